/* SPDX-License-Identifier: MIT */
/*
 * bench.h - the ctrbench harness: what a run is, what a worker does, and the
 * table of everything `run --algo` can name (libctr's algorithms and the two
 * harness baselines), each with its own timed loops.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdatomic.h>
#include <stdint.h>

#include "../counters/ctr_internal.h"
#include "../pmu/pmu.h"
#include "../counters/hist.h"
#include "tsc.h"

enum bench_workload {
	BENCH_UPDATE,	/* +1/-1 pairs on the worker's leaf */
	BENCH_CHARGE,	/* try_charge(+BENCH_CHARGE_UNIT), uncharge the oldest past a window */
};

/* Bytes per charge: one 4 KiB page, as zswap stores. */
#define BENCH_CHARGE_UNIT 4096
/* Charges a worker holds before it uncharges the oldest: a zswap pool's worth of pages in flight. */
#define BENCH_CHARGE_WINDOW 8
/* One operation in 2^BENCH_SAMPLE_SHIFT is timed: 1/64 keeps rdtsc's ~20 ns off throughput. */
#define BENCH_SAMPLE_SHIFT 6
#define BENCH_SAMPLE_EVERY (1u << BENCH_SAMPLE_SHIFT)

enum bench_phase { BENCH_WAIT, BENCH_WARMUP, BENCH_MEASURE, BENCH_STOP };

/* State shared by the workers of one run; only the main thread writes it while they run. */
struct bench_gate {
	_Atomic int phase __ctr_aligned;	/* enum bench_phase; read every BENCH_SAMPLE_EVERY ops */
	_Atomic int ready;			/* workers pinned and waiting at the gate */
};

struct bench_worker {
	/* set up by the main thread before start */
	struct ctr_tree *tree;		/* the instance under test */
	struct bench_gate *gate;	/* start/stop */
	int index;			/* worker i owns slot i */
	int node;			/* the leaf it updates */
	enum bench_workload workload;	/* what its loop does */
	int cpu_requested;		/* PU it pinned to, -errno if pinning failed */
	/* written by the worker only, read after join */
	int cpu_observed;		/* sched_getcpu() at the end */
	int64_t tally;			/* net delta it left in its leaf (what verify expects) */
	uint64_t ops;			/* operations in the measured window */
	uint64_t charge_fail;		/* try_charge calls that were refused, measured window */
	uint64_t t_start, t_end;	/* its own CLOCK_MONOTONIC at measure start and stop */
	uint64_t cpu_ns;		/* task-clock over the measured window */
	struct pmu_task_clock clk;	/* its task-clock counter */
	struct ctr_hist hist;		/* sampled operation latencies, TSC ticks */
} __ctr_aligned;

typedef void (*bench_loop_fn)(struct bench_worker *w);

enum bench_verify {
	BENCH_VERIFY_NODES,	/* every node's ctr_read_exact equals the workers' tallies under it */
	BENCH_VERIFY_TOTAL,	/* one shared word holds the sum of all tallies */
	BENCH_VERIFY_NONE,	/* nothing is counted (the empty loop) */
};

/* One entry of `run --algo`. */
struct bench_algo {
	const char *name;		/* as typed */
	const struct ctr_algo *algo;	/* its ops, for create/read/verify */
	bench_loop_fn loop[2];		/* timed loop per enum bench_workload, update inlined */
	enum bench_verify verify;	/* how the result is checked */
	int baseline;			/* a harness floor, not a counter */
};

extern const struct bench_algo bench_algos[];
extern const int bench_nr_algos;
const struct bench_algo *bench_algo_find(const char *name);

/*
 * The worker's side of the gate, called every BENCH_SAMPLE_EVERY ops by the
 * timed loops when the phase changed: marks the window's start and end.
 * Returns 1 when the loop must stop.
 */
int bench_worker_phase(struct bench_worker *w, int phase, uint64_t ops, uint64_t fails);

#endif /* BENCH_H */
