/* SPDX-License-Identifier: MIT */
/*
 * run.h - one benchmark run: a shape, a workload, N pinned workers behind a
 * start gate, a warm-up, a timed window, and a verification of the result.
 */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include <stdint.h>

#include "../topology/topo.h"
#include "bench.h"
#include "noise.h"

/* A tree shape as given on the command line. */
struct bench_shape {
	const char *spec;	/* as typed: "chain:8", "tree:4x8" */
	int nr_nodes;		/* nodes, root is 0 */
	int depth;		/* levels, root included */
	int *parent;		/* parent[0] == -1 */
	int nr_leaves;		/* nodes workers update */
	int *leaves;		/* workers are spread round-robin over these */
};

/* 0, -ENOMEM, or -EINVAL with *why saying what is wrong with spec. */
int bench_shape_parse(const char *spec, struct bench_shape *s, const char **why);
void bench_shape_free(struct bench_shape *s);

#define BENCH_READ_RANDOM (-1)	/* each read picks any node */
#define BENCH_READ_LEAF (-2)	/* each read picks one of the leaves */
#define BENCH_READ_OWN (-3)	/* reader i always reads node i mod nodes: one reader per node, in turn */

/*
 * --limit-levels: which levels get a limit (the rest CTR_NO_LIMIT, which
 * page_counter-like walks skip): every level with a worker below it (the
 * seed's zswap.max on every level), only the workers' own leaves, or only
 * the root.
 */
enum bench_limit_levels { BENCH_LIMIT_ALL, BENCH_LIMIT_LEAF, BENCH_LIMIT_ROOT };
/*
 * --charge-burst bound: each algorithm's burst B sized from its stated error
 * bound E (ctr_read_error_bound, bytes), so that what the workers can hold
 * past the limits, threads x B x (1 - headroom) charges, is twice E: a read
 * stale by its whole bound can overshoot by all of it (with B fixed, the
 * overshoot of every approximate design stopped at the same cap and they
 * could not be ranked).  Exact designs (E = 0) get BENCH_BURST_EXACT; those
 * bounded by time only (E = -1) BENCH_BURST_TIMED, as no count reaches a
 * flush period's worth of charges.  Headroom of 3/4 or more is taken as 3/4.
 */
#define BENCH_BURST_FROM_BOUND (-1)
#define BENCH_BURST_EXACT 64
#define BENCH_BURST_TIMED 16384
#define BENCH_BURST_MAX (1 << 20)
struct bench_config {
	enum bench_workload workload;	/* what the workers do */
	struct bench_shape shape;	/* the tree */
	int threads;			/* workers, worker i owns slot i */
	int slots;			/* --slots: ctr_params.nr_cpus, >= threads; the updaters own slots
					 * 0..threads-1, the rest are idle CPUs that reads, flushes and
					 * drains still walk.  0: bench_setup_threads resolves the default
					 * (bench_default_slots); bench_run_one takes 0 as threads */
	int duration_ms;		/* measured window */
	int warmup_ms;			/* untimed run before it */
	int readers;			/* readers workload: reader threads */
	int read_interval_us;		/* readers: pause between reads, 0 = back to back */
	int read_node;			/* readers: BENCH_READ_RANDOM, _LEAF, _OWN, or a node */
	int charge_burst;		/* charge: 0 steady window; B: bursts of B charges, then free all;
					 * BENCH_BURST_FROM_BOUND: B sized from the algorithm's error bound */
	const char *limit_levels;	/* --limit-levels: all (NULL), leaf or root (enum bench_limit_levels) */
	double limit_headroom;		/* --limit-headroom: every level's limit is this times what the
					 * workers below it hold at most (BENCH_CHARGE_WINDOW or the burst,
					 * each); < 1 is hit, >= 1 never is by an exact design; 0: the
					 * default, BENCH_LIMIT_HEADROOM */
	unsigned sample_every;		/* --sample 1/N: N */
	const char *note;		/* --note, kept with the results */
	int work_ns;			/* --work-ns: private work after each update or charge */
	int work_iters;			/* --work-iters: dependent adds per 1024 updates (throughput phase) */
	const char *options;		/* --options: ctr_params.options, "key=value,..." */
	int flush_period_ms;		/* --flush-period-ms: ctr_params.flush_period_ms, 0 = the default */
	int reps;			/* --reps: repetitions asked for */
	int force;			/* --force: run what bench_check_memory says does not fit */
	struct json_t *env;		/* the environment of the run (bench/env.h), in every result */
	struct topo *topo;		/* this machine */
	const char *placement;		/* --placement as given */
	int *pus;			/* PU of each thread: updaters, then readers */
	int wrapped;			/* more threads than PUs: the placement wrapped around */
	long pairs[TOPO_NR_CLASSES];	/* pairs of threads per distance class */
	int *slot_node;			/* NUMA node of each slot ([slots]): its updater's PU's, or for an
					 * idle slot that of PU (slot mod PUs) in logical order */
	int *slot_l3;			/* L3 (logical index) of each slot, chosen the same way: ctr_params.slot_l3 */
	const char *shared_mem;		/* --shared-mem as given: local, interleave or node:K */
	const char *events_spec;	/* --events as given, NULL if none */
	struct pmu_event_spec *events;	/* --events, parsed */
	int nr_events;			/* their number */
	struct bench_tsc_info tsc;	/* calibrated once per process */
};

struct bench_lat {
	double mean, p50, p90, p95, p99, p999, max;	/* ns, timer overhead subtracted */
	double over_1ms, over_1s;		/* share of samples certainly above 1 ms, 1 s */
	uint64_t samples;			/* timed samples (each of batch ops) */
	unsigned batch;				/* ops per sample, the largest any worker used (1: not batched) */
	double resolution_ns;			/* per op: the timer's step / the smallest batch (0: not known) */
};

struct bench_result {
	const struct bench_algo *ba;	/* what ran */
	uint64_t ops;			/* operations in the window, all workers */
	uint64_t ops_min, ops_max;	/* fairness: fewest and most operations of one updater */
	double ops_cv;			/* ... coefficient of variation of the updaters' counts */
	double seconds;			/* the window, as the main thread timed it */
	double ops_per_sec;		/* ops / seconds */
	double ns_per_op;		/* threads * seconds / ops: wall time a worker spends per op */
	double cpu_ns_per_op;		/* task-clock / ops: CPU time per op (the seed's metric) */
	uint64_t task_clock_ns;		/* summed over workers, measured window */
	enum pmu_source clock_source;	/* perf or thread_cputime (worst of the workers) */
	int clock_errno;		/* why perf was not used, if not */
	struct bench_lat lat;		/* sampled update (or charge, or store) latency: wall, TSC */
	int verify;			/* 1 ok, 0 mismatch, -1 not applicable */
	int bad_node;			/* first mismatching node */
	int64_t got, want;		/* its value and the expected one */
	int64_t error_bound;		/* ctr_read_error_bound() */
	int64_t read_error;		/* max |ctr_read - ctr_read_exact| over nodes at rest */
	uint64_t charge_fail;		/* refused charges in the window */
	int charge_burst;		/* the burst this run used (--charge-burst bound: from the bound) */
	int64_t limit_max_over;		/* worst value - limit over nodes at rest (<= 0 is within) */
	uint64_t audited;		/* charge: sampled attempts checked against exact values */
	uint64_t audit_rejected;	/* ... refused */
	uint64_t false_rejects;		/* ... refused although every level had room */
	int64_t overshoot_max;		/* ... worst exact value - limit after an admission */
	uint64_t reads;			/* readers: reads in the window */
	double reads_per_sec;		/* reads / seconds */
	struct bench_lat read_lat;	/* readers: every read timed */
	int64_t read_err_max;		/* readers: worst distance of a read outside the exact window */
	double read_err_mean;		/* readers: mean of those distances */
	uint64_t ev_total[PMU_MAX_EVENTS];	/* --events summed over threads, scaled for multiplexing */
	const char *ev_why[PMU_MAX_EVENTS];	/* why an event has no figure, NULL if counted */
	const char *ev_tag[PMU_MAX_EVENTS];	/* the same in a word or two */
	int bind_failures;		/* threads that could not be bound to their PU */
	int has_flush;			/* the algorithm reports flush figures */
	struct ctr_flush_stats flush;	/* its flushes and flush lock over the window */
	int *cpu_requested;		/* per thread (updaters, then readers): PU it pinned to (-errno) */
	int *cpu_observed;		/* per thread: PU it was on at the end */
	int thread_failed;		/* the thread (from 1) pthread_create refused; 0: all started */
	struct bench_host host;		/* the host from the threads' start to their end (noise.h) */
};

/*
 * The bytes bench_run_one(cfg, ba) would allocate: the algorithm's instance
 * (ctr_footprint) in *algo, the harness's own per-thread, per-reader and
 * per-node buffers in *harness.  0, or ctr_footprint's -errno.
 */
int bench_run_footprint(const struct bench_config *cfg, const struct bench_algo *ba, size_t *algo,
			size_t *harness);

/* Run one algorithm; 0 or -errno (the tree could not be created). */
int bench_run_one(const struct bench_config *cfg, const struct bench_algo *ba,
		  struct bench_result *r);
void bench_result_free(struct bench_result *r);

/*
 * Why --work-ns and --work-iters cannot go with workload (enum
 * bench_workload), or NULL when they can: run and sweep refuse with this
 * one message (die("%s", ...)), so the two never disagree.
 */
const char *bench_work_refusal(int workload, int work_ns, int work_iters);

#endif /* BENCH_RUN_H */
