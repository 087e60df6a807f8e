/* SPDX-License-Identifier: MIT */
/*
 * setup.h - what `run` and `scenario` do around a run: check the options
 * against the algorithms, load this machine's topology, calibrate the timer,
 * read the environment, and place the threads (bench/exec.h repeats the runs).  Bad input
 * ends in die().
 */
#ifndef BENCH_SETUP_H
#define BENCH_SETUP_H

#include "run.h"

#define BENCH_MAX_ALGOS 64

/* --algo "a,b" or "all" into algos[] (BENCH_MAX_ALGOS at most); dies on an unknown or repeated name. */
int bench_parse_algos(char *list, const struct bench_algo **algos);

/* --options / --flush-period-ms: every algorithm named must take them (a tiny tree is made). */
void bench_check_options(const struct bench_config *cfg, const struct bench_algo **algos, int nr_algos);
/* The same for a sweep's or a scenario's options and flush period. */
void bench_check_algo_options(const char *options, int flush_period_ms,
			      const struct bench_algo *const *algos, int nr_algos);
/*
 * --options as recorded: the items sorted by key ("read=mutex,fence=update" is
 * "fence=update,read=mutex"), after bench_check_algo_options took them.
 */
const char *bench_options_normalize(const char *options);

/*
 * Once per process: this machine's topology (--topology may only name this
 * machine), cfg->placement defaulted, --shared-mem and --events checked, the
 * TSC calibrated, the environment read (cfg->note included).
 */
void bench_setup_machine(struct bench_config *cfg, const char *topology, const char *events);

/*
 * The slots of a run of `threads` updaters when --slots is not given: this
 * machine's possible CPUs (topo_nr_possible_cpus), or threads where there
 * are more threads than that (every updater owns a slot).
 */
int bench_default_slots(int threads);

/*
 * Per thread count: the PU of every thread (updaters, then readers), pair
 * counts, cfg->slots resolved (0: bench_default_slots; fewer than threads
 * dies), cfg->limit_headroom (0: BENCH_LIMIT_HEADROOM) and cfg->limit_levels
 * (NULL: "all"), and the NUMA node
 * and L3 of every slot.
 */
void bench_setup_threads(struct bench_config *cfg);

/*
 * After bench_setup_threads: dies (exit 2, one line) when an algorithm's
 * instance and the harness's buffers would need more than MemAvailable,
 * unless cfg->force (--force).
 */
void bench_check_memory(const struct bench_config *cfg, const struct bench_algo **algos, int nr_algos);

/* Frees what the two above allocated (not the shape). */
void bench_setup_release(struct bench_config *cfg);

/* A SIGINT or SIGTERM stopped a bench_exec (bench/exec.h) of this process. */
int bench_was_interrupted(void);

#endif /* BENCH_SETUP_H */
