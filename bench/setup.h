/* SPDX-License-Identifier: MIT */
/*
 * setup.h - what `run` and `scenario` do before a run: check the options
 * against the algorithms, load this machine's topology, calibrate the timer,
 * read the environment, and place the threads.  Bad input ends in die().
 */
#ifndef BENCH_SETUP_H
#define BENCH_SETUP_H

#include "run.h"

/* --options / --flush-period-ms: every algorithm named must take them (a tiny tree is made). */
void bench_check_options(const struct bench_config *cfg, const struct bench_algo **algos, int nr_algos);

/*
 * Once per process: this machine's topology (--topology may only name this
 * machine), cfg->placement defaulted, --shared-mem and --events checked, the
 * TSC calibrated, the environment read (cfg->note included).
 */
void bench_setup_machine(struct bench_config *cfg, const char *topology, const char *events);

/* Per thread count: the PU of every thread (updaters, then readers), pair counts, slot nodes. */
void bench_setup_threads(struct bench_config *cfg);

/* Frees what the two above allocated (not the shape). */
void bench_setup_release(struct bench_config *cfg);

#endif /* BENCH_SETUP_H */
