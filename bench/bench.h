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
#include "workload.h"	/* the workloads: enum bench_workload, BENCH_CHARGE_*, BENCH_SWING */

/* One operation in 64 is timed by default: 1/64 keeps rdtsc's ~20 ns (x2) off throughput. */
#define BENCH_SAMPLE_EVERY 64u
/* At most one in 1024: the readers workload's swing (BENCH_SWING) must be a whole number of blocks. */
#define BENCH_SAMPLE_MAX 1024u

/*
 * The update workload measures in two phases: MEASURE is throughput only (no
 * timer in the loop: the phase is looked at once per BENCH_TPUT_BLOCK ops),
 * then LATENCY times operations, batched where one is below the timer's
 * resolution.  The other workloads time one op per block inside MEASURE and
 * go from it straight to STOP.
 */
enum bench_phase { BENCH_WAIT, BENCH_WARMUP, BENCH_MEASURE, BENCH_LATENCY, BENCH_STOP };

/* Ops between two looks at the phase in the update workload's throughput phase (a power of 2). */
#define BENCH_TPUT_BLOCK 1024u
/*
 * Latency phase: a batch of k operations (k a power of two up to this) is
 * timed as one sample, k the smallest whose median is at least
 * BENCH_LAT_MIN_STEPS timer resolutions; samples are stored per op in
 * 1/BENCH_LAT_SCALE ticks, overhead subtracted, so a 0.3 ns op keeps its
 * digits.
 */
#define BENCH_LAT_BATCH_MAX 1024u
#define BENCH_LAT_MIN_STEPS 16u
#define BENCH_LAT_SCALE 256u

struct bench_worker;
struct topo;

/* State shared by the threads of one run; only the main thread writes it while they run. */
struct bench_gate {
	_Atomic int phase __ctr_aligned;	/* enum bench_phase; read once per block of sample_every ops */
	unsigned sample_every;			/* --sample 1/N: one op in N is timed (N a power of 2, <= 1024) */
	uint64_t work_ticks;			/* --work-ns in TSC ticks: private work after each op */
	uint64_t work_iters;			/* --work-iters: dependent adds per BENCH_TPUT_BLOCK updates */
	int split;				/* update workload: MEASURE (throughput), then LATENCY */
	uint64_t tsc_overhead;			/* bench_tsc pair's overhead, ticks (bench_tsc_info) */
	uint64_t tsc_overhead_raw;		/* bench_tsc_raw pair's */
	uint64_t tsc_resolution;		/* the timer's step, ticks */
	_Atomic int ready;			/* threads pinned and waiting at the gate */
	/* read-only while running: what readers and the admission audit need to know the truth */
	struct bench_worker *updaters;		/* all updating workers, for their published tallies */
	const int *parent;			/* the shape */
	const int64_t *limit;			/* charge: per-node limits; NULL otherwise */
	int **under;				/* under[n]: indices of the updaters whose leaf is in n's subtree */
	int *nr_under;				/* their number */
	int nr_nodes;				/* nodes, for readers picking one */
	int nr_updaters;			/* updating workers (readers pin after them) */
	const int *leaves;			/* readers with BENCH_READ_LEAF pick among these */
	int nr_leaves;				/* their number */
	int read_node;				/* readers: BENCH_READ_* (run.h) or a node */
	int charge_burst;			/* charge: burst size, 0 for the steady window */
	int read_interval_us;			/* readers: pause between reads */
	const struct topo *topo;		/* this machine, for binding */
	const int *pus;				/* PU of each thread: updaters, then readers */
	const struct pmu_event_spec *events;	/* --events */
	int nr_events;				/* their number */
};

struct bench_worker {
	/* set up by the main thread before start */
	struct ctr_tree *tree;		/* the instance under test */
	struct bench_gate *gate;	/* start/stop and the shared truth */
	int index;			/* updater i owns slot i; readers count from 0 too */
	int reader;			/* a reader thread, not an updater */
	int node;			/* the leaf it updates */
	enum bench_workload workload;	/* what its loop does */
	int cpu_requested;		/* PU the placement gave it */
	int bind_err;			/* binding to it failed: -errno, else 0 */
	/* written by the thread only, read after join */
	int cpu_observed;		/* sched_getcpu() at the end */
	int64_t tally;			/* net delta it left in its leaf (what verify expects) */
	uint64_t ops;			/* operations (reads, for readers) in the measured window */
	uint64_t charge_fail;		/* try_charge calls that were refused, measured window */
	uint64_t audited;		/* charge: sampled attempts checked against the exact values */
	uint64_t audit_rejected;	/* ... of which refused */
	uint64_t false_rejects;		/* ... refused although the exact values had room */
	int64_t overshoot_max;		/* ... worst exact value - limit right after an admission */
	int64_t err_max;		/* reader: worst |read - exact| outside the exact window */
	double err_sum;			/* reader: sum of those distances */
	uint64_t t_start, t_end;	/* its own CLOCK_MONOTONIC at measure start and stop */
	uint64_t cpu_ns;		/* task-clock over the measured window */
	struct pmu_task_clock clk;	/* its task-clock counter */
	struct pmu_group pmu;		/* --events, opened on itself */
	struct pmu_count pmu0[PMU_MAX_EVENTS];	/* their readings at the window's start */
	struct pmu_count pmu1[PMU_MAX_EVENTS];	/* ... and end */
	uint64_t ev_val[PMU_MAX_EVENTS];	/* their counts over the window, scaled */
	const char *ev_why[PMU_MAX_EVENTS];	/* why one has no count (NULL: counted) */
	const char *ev_tag[PMU_MAX_EVENTS];	/* the same in a word or two, for the table */
	struct ctr_hist hist;		/* sampled operation latencies (every read for readers), TSC ticks;
					 * update workload: per op, 1/BENCH_LAT_SCALE ticks, overhead subtracted */
	unsigned lat_batch;		/* update workload: ops per latency sample (1: each op timed alone) */
	int window_closed;		/* update workload: its throughput window has ended (LATENCY seen) */
	int64_t *seen;			/* reader, and charge/store updater (the audit's first look):
					 * scratch, one per updater */
	/* Operations done so far (readers), or BENCH_PUBLISHED(seq, held) (charge, store), for readers
	 * and the audit. */
	_Atomic int64_t published __ctr_aligned;
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
	bench_loop_fn loop[BENCH_NR_WORKLOADS];	/* updaters' timed loop per workload, update inlined */
	bench_loop_fn read_loop;	/* readers' timed loop, read inlined */
	enum bench_verify verify;	/* how the result is checked */
	int baseline;			/* a harness floor, not a counter */
};

extern const struct bench_algo bench_algos[];
extern const int bench_nr_algos;
const struct bench_algo *bench_algo_find(const char *name);

/*
 * The worker's side of the gate, called once per block of ops by the timed
 * loops when the phase changed: marks the window's start and end (at
 * LATENCY, or STOP where there is no latency phase).  Returns 1 when the
 * loop must stop.
 */
int bench_worker_phase(struct bench_worker *w, int phase, uint64_t ops, uint64_t fails);

/* An updater's value in the readers workload after c operations. */
static inline int64_t bench_swing_value(int64_t c)
{
	int64_t phase = c % (2 * BENCH_SWING);

	return phase <= BENCH_SWING ? phase : 2 * BENCH_SWING - phase;
}

/* Lowest and highest value an updater held while its count went from cb to ca. */
static inline void bench_swing_range(int64_t cb, int64_t ca, int64_t *lo, int64_t *hi)
{
	int64_t vb = bench_swing_value(cb), va = bench_swing_value(ca);
	/* the first peak (odd multiple of BENCH_SWING) and trough (even multiple) at or after cb */
	int64_t peak = (cb + BENCH_SWING) / (2 * BENCH_SWING) * (2 * BENCH_SWING) + BENCH_SWING;
	int64_t trough = (cb + 2 * BENCH_SWING - 1) / (2 * BENCH_SWING) * (2 * BENCH_SWING);

	*lo = trough <= ca ? 0 : vb < va ? vb : va;
	*hi = peak - 2 * BENCH_SWING >= cb || peak <= ca ? BENCH_SWING : vb > va ? vb : va;
}

/*
 * charge and store: what an updater publishes after each change of its
 * holding, (seq << BENCH_HELD_BITS) | held, in one store: the charges it holds
 * and how many times it has published, so that the admission audit knows how
 * far a holding can have moved between two looks (bench_audit_charge).
 * Holdings are at most the window or a burst (< 2^BENCH_HELD_BITS).
 */
#define BENCH_HELD_BITS 24
#define BENCH_PUBLISHED(seq, held) ((int64_t)(((uint64_t)(seq) << BENCH_HELD_BITS) | (uint64_t)(held)))

static inline int64_t bench_published_held(int64_t p)
{
	return p & (((int64_t)1 << BENCH_HELD_BITS) - 1);
}

static inline int64_t bench_published_seq(int64_t p)
{
	return (int64_t)((uint64_t)p >> BENCH_HELD_BITS);
}

#endif /* BENCH_H */
