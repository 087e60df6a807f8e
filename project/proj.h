/* SPDX-License-Identifier: MIT */
/*
 * proj.h - the coherence projection: libctr's own code, compiled a second
 * time with GCC's -fsanitize=thread instrumentation (build/proj/), run one
 * virtual thread at a time on a modelled many-core machine.
 *
 * The instrumented copy never links libtsan: every symbol it defines is
 * renamed proj_<name> (so it sits beside the benchmark's libctr in one
 * binary) and every call it makes to the TSan entry points, the allocator,
 * pthread locks, clocks and yields is renamed proj_<name> too and lands in
 * project/rt.c, which reports each load, store and RMW on the tree's own
 * allocations to the model (project/sim.c) and gives the code virtual time
 * and virtual locks.  The benchmark build is not touched: its objects are
 * byte-identical with or without project/ (tests/cli_project.sh).
 */
#ifndef PROJ_H
#define PROJ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../bench/workload.h"
#include "../topology/topo.h"

/* Kinds of access the runtime reports. */
enum proj_kind { PROJ_LOAD, PROJ_STORE, PROJ_RMW, PROJ_FENCE };

/*
 * Cost classes of one access that is not a hit in the accessor's own
 * cache, in the calibration's terms.
 */
enum proj_class {
	PROJ_C_SMT,		/* from the SMT sibling (same core) */
	PROJ_C_CCX,		/* from another core of the same L3 */
	PROJ_C_XCCX,		/* from another L3 of the same socket, line's home on this socket */
	PROJ_C_XCCX_RH,		/* ... line's home on the other socket */
	PROJ_C_SOCKET,		/* from the other socket */
	PROJ_C_DRAM,		/* from memory: no cache held it (first touch) */
	PROJ_NR_CLASSES,
};
extern const char *const proj_class_names[PROJ_NR_CLASSES];

/* ns per access by class, and where the figures come from. */
struct proj_calib {
	double ns[PROJ_NR_CLASSES];
	double hit_ns;		/* a load or store that hits the accessor's own cache */
	double hit_rmw_ns;	/* an atomic RMW that hits (a locked instruction is slow even then) */
	char source[256];	/* printed with every projection */
	char name[64];		/* the same, short, for labels: "Genoa default", a c2c file's name */
	/*
	 * The contention figures (issue 27), each with where it comes from
	 * (a probe on this machine, a published figure, or "assumption"):
	 */
	double burst;		/* RMWs an owner keeps a contended line for before a queued request takes it (>= 1) */
	char burst_src[128];
	double wake_ns;		/* a blocked waiter's wake-up: from the waker's post or unlock to running */
	char wake_src[128];
	double pause_ns;	/* one spin-wait hint (PAUSE) */
	char pause_src[128];
	int mlp;		/* misses one core keeps outstanding: the overlapped band's lower edge */
	char mlp_src[128];
	double mutex_spin_ns;	/* a kernel mutex's optimistic spin before its waiter sleeps (lockkind=mutex) */
	char mutex_spin_src[128];
	/* The capacity model's defaults, where the topology gives no size (proj_capacity): */
	long long l2_bytes;	/* one core's L2 (its L1 inside it) */
	long long l3_bytes;	/* one L3 (a CCX's), a victim cache of its cores' L2s */
	double l3_hit_ns;	/* a load or store served from the core's own L3 */
	char cache_src[128];	/* the sizes' */
	char l3_hit_src[128];
};

/* The caches one projection models: the topology's sizes where it has them, else the calibration's. */
struct proj_capacity {
	long long l2_bytes, l3_bytes;
	double l3_hit_ns;
	char src[320];		/* where each figure came from, printed with every projection */
};
void proj_capacity_of(const struct topo *t, const struct proj_calib *c, struct proj_capacity *out);
/* Its line of a projection's header ("#   capacity: ..."), on stdout. */
void proj_capacity_print(const struct topo *t, const struct proj_calib *c);
/* The default: published Genoa one-way figures (see docs/projection.md). */
void proj_calib_default(struct proj_calib *c);
/* Only the contention figures (burst .. mutex_spin_ns), their defaults. */
void proj_calib_contention_default(struct proj_calib *c);
/* A `ctrbench c2c --format json` file (project/calib.c); 0, or -EINVAL with a one-line message in err. */
int proj_calib_load(struct proj_calib *c, const char *path, char *err, size_t errlen);

/*
 * 1 if the model runs workload w (bench/workload.h) as bench/loops.c does:
 * update, charge and readers; store, and any workload added after them, not.
 */
int proj_models_workload(int w);

/*
 * The model's raw patterns: an access of its own in place of libctr code,
 * for what has no code of libctr's to instrument (proj_config.raw).
 */
enum proj_raw {
	PROJ_RAW_NONE,			/* the algorithm's own code, instrumented */
	PROJ_RAW_FALSE_SHARED,		/* a store to the thread's word, 8 bytes apart: one line ("=false-shared") */
	PROJ_RAW_PADDED,		/* ... 64 bytes apart: a line each ("=padded") */
	PROJ_RAW_SHARED_ATOMIC,		/* one atomic add on one shared word (the shared_atomic baseline) */
	PROJ_RAW_EMPTY,			/* no access (the empty loop, the harness floor) */
};

/* One projected configuration: as `ctrbench run` would run it. */
struct proj_config {
	const char *algo;		/* a libctr algorithm name, or the name raw is printed as */
	int raw;			/* enum proj_raw: the pattern run in place of algo's code (a harness baseline's) */
	enum bench_workload workload;	/* one proj_models_workload takes */
	int nr_nodes;			/* the shape */
	const int *parent;
	int nr_leaves;
	const int *leaves;		/* worker i updates leaves[i % nr_leaves] */
	int depth;
	int threads;			/* updaters (worker i owns slot i) */
	int readers;			/* readers workload: reader threads (slots after the updaters) */
	const struct topo *topo;
	const int *pus;			/* [threads + readers]: where each runs */
	const char *options;		/* ctr_params.options */
	int flush_period_ms;		/* ctr_params.flush_period_ms (0: the algorithm's) */
	int64_t work_ns;		/* private work after each update, as --work-ns */
	int64_t read_interval_ns;	/* readers: pause between reads */
	int read_node;			/* readers: node read (PROJ_READ_LEAVES, PROJ_READ_OWN) */
	long ops;			/* measured operations per updater */
	long reads;			/* measured reads per reader */
	long warmup_ops;		/* operations per thread before the counts start */
	double limit_headroom;		/* charge: limits this times the holdings (0: BENCH_LIMIT_HEADROOM, as run) */
	const struct proj_calib *calib;
	int slots;			/* the tree's slots (possible CPUs), at least threads: readers own none; 0: one per thread, readers too */
	int nr_stats;			/* stats per node (ctr_params.nr_stats; 0: 1) */
	uint64_t seed;			/* the readers' interval jitter (and nothing else) */
	int jitter;			/* 1: each reader's pause is uniform in [0.5, 1.5] x read_interval_ns */
	double slice_ns;		/* the scheduler's time slice, more threads than PUs (0: 3 ms) */
	int preempt_none;		/* 1: no slice ends inside an operation (kernel code on a PREEMPT_NONE
					 * kernel: only between them); 0: at any access (user space) */
};

/* One lock of the tree as the model saw it over the measured window, by role. */
struct proj_lock_stat {
	char role[48];			/* CTR_LOCK_ROLE's name ("flush lock"), else "lock in allocation N" */
	long acq, contended;		/* acquisitions; of them, those that waited */
	double wait_ns, hold_ns;	/* summed over the threads */
};
/*
 * The harness's main thread from its wake-up to its next sleep, when it
 * opens the start gate on a worker's PU (run.c): two context switches and
 * two syscalls, ~2 us, an assumption.
 */
#define PROJ_GATE_NS 2000.0

#define PROJ_MAX_LOCK_STATS 16

/* proj_config.read_node: each reader picks a leaf in turn; reader r reads node r mod nr_nodes (its own). */
#define PROJ_READ_LEAVES (-1)
#define PROJ_READ_OWN (-2)

/* What the model counted over the measured operations. */
struct proj_result {
	long ops;			/* updater operations */
	long reads;			/* reader operations */
	double xfer[PROJ_NR_CLASSES];	/* transfers, updaters' operations */
	double rxfer[PROJ_NR_CLASSES];	/* transfers, readers' operations */
	double ns_serial, ns_overlap;	/* updaters: summed op cost, every miss in turn / independent ones overlapped */
	double rns_serial, rns_overlap;	/* readers, the same */
	double rns_max;			/* slowest read (serial) */
	double rns_p50, rns_p99;	/* the reads' median and 99th percentile (serial; 0 without reads) */
	double wait_ns;			/* of ns_serial: waiting for a busy line or a lock */
	double elapsed_ns;		/* virtual time from the first measured op to the last, any thread */
	long lock_acq, lock_contended;	/* the lock with the most wait (locks[0]) */
	double lock_wait_ns;
	struct proj_lock_stat locks[PROJ_MAX_LOCK_STATS];	/* by wait, most first; roles alike merged */
	int nr_locks;
	long switches;			/* virtual-thread switches the model made (its own cost, not the machine's) */
	int starved;			/* threads stopped short of their measured operations (0: none) */
	char starved_why[256];		/* which, and why: printed with the result */
	long charges_refused;
	double accesses;		/* reported accesses on the tree's lines, all operations */
	/* the capacity model, the whole run (the warmup and the tree's creation included): */
	long l3_hits;			/* misses of an L2 served by the core's own L3 (no transfer) */
	long l2_evictions;		/* lines an L2 dropped for room (into its L3) */
	long l3_evictions;		/* lines an L3 dropped for room (the next access is DRAM's) */
	struct proj_capacity cap;	/* the sizes it used and their source */
};

/* 0 if the model can run on topology t (a core, and an L3 or package, for every PU), else -EINVAL and why. */
int proj_topo_check(const struct topo *t, char *err, size_t errlen);

/*
 * Whether the model can run algo (a libctr name, or its own patterns
 * "=false-shared" and "=padded"), or raw (enum proj_raw) in its place where
 * not PROJ_RAW_NONE, under workload with this many readers: 0, or -EINVAL
 * and why in err (no prefix: the caller says whose refusal).
 */
int proj_can_run(const char *algo, int raw, int workload, int readers, char *err, size_t errlen);

/*
 * Run the projection (proj_can_run first); 0 or -errno (with a message in err).  -EDEADLK: an
 * operation went on past the step budget, or every virtual thread blocked: a wait nobody can end.
 */
int proj_run(const struct proj_config *cfg, struct proj_result *res, char *err, size_t errlen);

/* ---- the footprint recorder (project/rt.c), also used by the tests ---- */

/* One recorded access, when a trace is being kept. */
struct proj_access {
	uintptr_t line;		/* address / 64 */
	int kind;		/* enum proj_kind */
	int region;		/* which allocation of the tree, in allocation order */
};

/* Called by rt.c for each access to a tracked allocation (sim.c). */
void proj_sim_access(uintptr_t addr, unsigned size, int kind);
/*
 * Called by rt.c: an acquiring exchange set the word at addr from 0 (held 1,
 * a test-and-set lock taken) or a store wrote 0 to it (held 0, released).
 */
void proj_sim_flag(const volatile void *addr, int held);
/* Called by rt.c for a yield, sleep or clock read: a step of the running operation (its budget). */
void proj_sim_step(void);
/* Virtual time of the running virtual thread, ns. */
uint64_t proj_sim_now(void);

/* The runtime's allocator (tracked memory): the model's own patterns use it. */
void *proj_malloc(size_t n);
void *proj_aligned_alloc(size_t al, size_t n);
void proj_free(void *p);

/* Runtime controls. */
void proj_rt_reset(void);		/* forget allocations and the trace */
void proj_rt_record(int on);		/* report accesses (1) or not (0) */
void proj_rt_trace(struct proj_access *buf, int cap);	/* keep a trace in buf (NULL: stop) */
int proj_rt_trace_len(void);
int proj_rt_region_of(uintptr_t addr);	/* allocation index, -1 if not the tree's */
int proj_rt_home_of(uintptr_t addr);	/* bound NUMA node (OS index) of addr, -1 if first touch */

/* The instrumented libctr, renamed (build/proj/libctr_proj.o). */
struct ctr_tree;
struct ctr_params;
struct ctr_algo;
const struct ctr_algo *proj_ctr_algo_find(const char *name);
struct ctr_tree *proj_ctr_tree_new(const struct ctr_algo *a, const struct ctr_params *p);
void proj_ctr_tree_free(struct ctr_tree *t);
void proj_ctr_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta);
int64_t proj_ctr_read(struct ctr_tree *t, int node, int stat);
int64_t proj_ctr_read_exact(struct ctr_tree *t, int node, int stat);
int proj_ctr_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta);

/*
 * The timed update loop's prepared update, instrumented (project/inst/ref.c):
 * ctr_<name>_ref() made once into a proj_ref, then ctr_<name>_ref_add() per
 * update, as bench/loops.c's update loop runs them.  A proj_ref lives in
 * memory the model does not track (a virtual thread's stack), as the timed
 * loop's ref is in registers.
 */
#define PROJ_REF_BYTES 192
struct proj_ref {
	int kind;				/* the algorithm's, set by proj_ctr_ref_make (0: none) */
	_Alignas(16) unsigned char buf[PROJ_REF_BYTES];	/* its struct ctr_<name>_ref */
};
struct ctr_algo;
/* r for (cpu, node, stat) of t, a tree of algorithm a (proj_ctr_algo_find's); 0, or -ENOENT: a has no ref. */
int proj_ctr_ref_make(const struct ctr_algo *a, struct ctr_tree *t, int cpu, int node, int stat, struct proj_ref *r);
void proj_ctr_ref_add(const struct proj_ref *r, int64_t delta);

#endif /* PROJ_H */
