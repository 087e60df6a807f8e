/* SPDX-License-Identifier: MIT */
/*
 * scenario.h - one scenario of `ctrbench scenario`: a seed thread's
 * experiment (docs/reproducing.md), measured here and projected
 * (docs/projection.md).  Each scenario is one file of this folder holding
 * a `const struct scn scn_<name>` (its measured and projected
 * configurations side by side) and one line of list.h; the engine
 * (engine.c: plan, measure through the executor bench/exec.h, --from,
 * --resume; table.c: the tables, the seed's figures read from
 * docs/seeds/tables.csv) does the rest.
 *
 * Columns are algorithms chosen by what they can do (enum scn_cap, asked
 * with ctr_options_check), never by their name: names appear only as data
 * (a seed's column "(a) = rstat_force", a default list).
 */
#ifndef BENCH_SCENARIO_H
#define BENCH_SCENARIO_H

#include <stdint.h>
#include <stdio.h>

#include "../bench.h"
#include "../exec.h"
#include "../output.h"
#include "../results.h"
#include "../run.h"
#include "../seeds.h"
#include "../setup.h"

/* The seed's workers: 20 on an 80-CPU machine. */
#define SCN_SEED_WORKERS 20
/* Column width of the tables: the longest algorithm name is 21 (percpu_hier_delegated). */
#define SCN_COL 22

/*
 * The store scenarios' limits: twice what the workers hold, so an exact
 * design is never refused (the seed's case: zswap.max set at every level and,
 * apparently, not hit); --limit-headroom 0.75 is the charge workload's own.
 */
#define SCN_STORE_HEADROOM 2.0

/*
 * The seed's rstat is memcg's: its update walks the ancestors for the flush
 * threshold (memcg_rstat_updated, 6.8 on), so the scenarios run every
 * algorithm that takes this option with it (docs/algorithms.md).
 */
#define SCN_RSTAT_UPDATE "update=memcg"

/*
 * The kernel's flush, for projected runs only.  lockbreak=off: the seeds'
 * machines ran production kernels without CONFIG_PREEMPTION, where
 * spin_needbreak() is false, so the flush holds its lock for the whole
 * flush and never breaks it for a waiter.  prune=flush: the kernel's flush
 * pops what it folded off the updated lists (cgroup_rstat_updated_list()),
 * so the next flush walks only CPUs updated since; the default prune=period
 * keeps them linked, and a charge that checks every ancestor re-walks each
 * one's whole subtree (store-limit at nr_stats 102, 20 workers, 30 ops:
 * 1.73 ms a store at depth 1 and 49.0 ms at depth 8 with prune=period,
 * 0.29 and 2.35 ms with prune=flush; posted 0.57 and 4.21 ms).  The
 * membarrier prune=flush pays after an unlinking flush has no virtual cost
 * in the model, as the kernel, which links under per-CPU locks, pays none.
 * cpulock=always: the kernel's flush takes every possible CPU's lock, its
 * node linked there or not (ctrbench's default skips a clean CPU), so a
 * flush of a clean subtree on 384 CPUs still moves 384 lock lines.
 * Added to a projected configuration's options where the algorithm takes
 * them (ctr_options_check, as SCN_RSTAT_UPDATE); the projected header says
 * so when it applies.  The measured runs keep the algorithm's defaults: they
 * run on this machine, not the seed's.
 */
#define SCN_PROJ_KERNEL "lockbreak=off,prune=flush,cpulock=always"
#define SCN_PROJ_KERNEL_WHY "a non-preemptible production kernel (spin_needbreak() false without" \
	" CONFIG_PREEMPTION: the flush holds its lock throughout) whose flush pops what it folded" \
	" off the updated lists (cgroup_rstat_updated_list()), taking every possible CPU's lock"
/*
 * The kernel's flush lock, cgroup_rstat_lock, is a spinlock_t: on x86 a
 * queued spinlock (kernel/locking/qspinlock.c), FIFO, each waiter past the
 * first spinning on a node of its own, and waiting with preemption off.
 * The projection models that (lockkind=qspin) where the row names no lock
 * kind of its own (shrinker-count's mutex, 001's profile, keeps its own);
 * the measured runs keep the default test-and-test-and-set word, whose
 * waiters can yield (with more threads than CPUs a queued waiter that is
 * preempted stalls every one behind it).  Why it matters: with a
 * test-and-test-and-set word every release and every failed exchange moves
 * the word's line to each spinner in turn (seed 004's storm, 2000 readers on
 * 384 CPUs: a 573 us mean read, the line's queue of transfers in the holder's
 * way), which a queued lock does not.
 */
#define SCN_PROJ_LOCK "lockkind=qspin"
/*
 * The same non-preemptible kernel for every projected operation: an update,
 * a charge or a read is a kernel path (a fault, a syscall) that no slice end
 * interrupts; the scheduler switches between operations and where one
 * sleeps (a mutex, a semaphore).  Why: with 10,000 readers on 384 CPUs a
 * read whose slice ran out while it spun for the flush lock was preempted
 * right after the release, and sat behind 25 others for 0.3 s before it
 * finished (seed 004's storm: a 333 ms mean read, against 5-10 ms posted).
 */
#define SCN_PROJ_PREEMPT_NONE 1
#define SCN_PROJ_PREEMPT_WHY "--preempt none, an operation never preempted, a slice ends only between" \
	" them (a PREEMPT_NONE kernel, as lockbreak=off); a wait may still sleep"
#define SCN_PROJ_LOCK_WHY "the kernel's cgroup_rstat_lock is a spinlock_t, a queued spinlock on x86:" \
	" FIFO, a waiter's own node to spin on, preemption off while waiting"

/* What a column can do, asked of the algorithm (scn_algo_caps), never read from its name. */
enum scn_cap {
	SCN_CAP_READ_STRATEGY = 1u << 0,	/* takes read=<strategy> (reader-side flush serialization) */
	SCN_CAP_MEMCG_UPDATE = 1u << 1,		/* takes update=memcg (memcg's ancestor walk on update) */
};

/* The options a scenario takes beyond the common ones (struct scn.opts); the parser refuses the rest. */
enum scn_opt {
	SCN_OPT_WORK_NS = 1u << 0,		/* --work-ns */
	SCN_OPT_LIMIT_HEADROOM = 1u << 1,	/* --limit-headroom */
	SCN_OPT_NO_CAP = 1u << 2,		/* --no-cap */
	SCN_OPT_READERS = 1u << 3,		/* --readers */
	SCN_OPT_SLOTS = 1u << 4,		/* --slots */
	SCN_OPT_FROM = 1u << 5,			/* --from */
	SCN_OPT_RESUME = 1u << 6,		/* --resume */
	SCN_OPT_ALGO = 1u << 7,			/* --algo */
};
/* What every scenario measured through the engine takes. */
#define SCN_OPT_ENGINE (SCN_OPT_SLOTS | SCN_OPT_FROM | SCN_OPT_RESUME | SCN_OPT_ALGO)

struct scn_ctx;
struct scn_proj;
struct topo;
struct proj_calib;
struct proj_result;

/* One scenario: what it reproduces, what it takes, how it is measured and projected. */
struct scn {
	const char *name;		/* as typed */
	const char *seed;		/* the thread it reproduces */
	const char *what;		/* one line for `scenario list` */
	const char *seed_table;		/* its table in seeds/tables.csv, NULL if it has none */
	const char *seed_machine;	/* the seed's machine, for the header */
	int seed_cpus;			/* ... its CPU count (possible CPUs), 0 if none */
	unsigned opts;			/* enum scn_opt: the options that apply */
	const char *opts_why;		/* why the engine's options do not apply, where they do not */
	/*
	 * Capabilities its rows need (enum scn_cap), and what an algorithm
	 * without them gets: with partial, the rows that need none (the
	 * algorithm named in --algo runs those; `--algo all` leaves it out),
	 * else nothing (named: exit 2; all: left out).  One line says so before
	 * anything is measured.
	 */
	unsigned needs;
	int partial;			/* an algorithm without `needs` still has rows */
	const char *needs_what;		/* the capability, as the line names it */
	const char *partial_what;	/* with partial: what it runs then */
	int duration_ms, quick_duration_ms;	/* default window; 0: the engine's (1000, --quick 60) */
	double headroom;		/* default --limit-headroom (0: the workload's own) */
	const char *const *quick_algos;	/* --quick's columns without --algo (NULL: the default list) */
	int own_plan;			/* it runs its own threads: no planning pass, no progress plan */
	void (*run)(struct scn_ctx *c);		/* the measured table */
	void (*project)(const struct scn_proj *p);	/* the projected table (--project), or NULL */
	int project_readers;		/* its projection takes --readers (the storm's reader count) */
	const char *project_note;	/* where measured and projected configurations differ: why */
};

/* The measured scenario's state: its options, the machine, the columns, the raw output. */
struct scn_ctx {
	const struct scn *s;			/* the scenario */
	int counting;				/* the planning pass: scn_measure only counts */
	int planned;				/* measurements it counted (configurations x reps) */
	int quick;				/* --quick: under 30 s here, for the tests */
	int reps;				/* --reps, or the scenario's default */
	int duration_ms, warmup_ms;		/* per run */
	int flush_period_ms;			/* periodic flushers' period, printed */
	int readers;				/* stat-read-storm test 2: reader threads */
	int no_cap;				/* --no-cap: seed thread counts even past this machine's PUs */
	int pus;				/* this machine's PUs */
	int table;				/* print the table (else JSON lines on stdout) */
	int wide;				/* --wide: algorithms side by side, notes on one line (table.c) */
	struct bench_config base;		/* the machine, set up once */
	const struct bench_algo *algos[BENCH_MAX_ALGOS];	/* the columns */
	int nr_algos;				/* their number */
	int user_algos;				/* --algo given: no scenario may add or drop one */
	int algo_all;				/* ... as "all": the scenario leaves out who cannot run it */
	struct bench_output raw;		/* every summary as a JSON line */
	struct bench_summary *sums;		/* scratch: one per column */
	int resume;				/* --resume: reuse what --out already holds */
	struct bench_results done;		/* ... its lines */
	struct bench_exec exec;			/* the executor's settings and tallies (bench/exec.h) */
	const char *raw_name;			/* --out (or the dated name), for messages */
	int reused;				/* summaries taken from them */
	int failed;				/* a verification failed or a run could not start */
	struct bench_seeds seeds;		/* the seeds' posted figures (empty: seeds.why says why) */
	const char *from;			/* --from FILE: print the tables from its lines, run nothing */
	int missing;				/* --from: configurations the file does not hold */
	int slots;				/* --slots, default the seed's CPU count (0: run's default) */
	double limit_headroom;			/* --limit-headroom of the store scenarios (0: not given) */
	char timer_res[160];			/* the timer's resolution for the header (scn_timer_res) */
};

/* The projected scenario's inputs (--project): the machine modelled, its calibration, the seeds. */
struct scn_proj {
	const struct scn *s;			/* the scenario */
	const struct topo *topo;		/* the machine projected */
	const struct proj_calib *cal;		/* the model's calibration */
	const struct bench_seeds *seeds;	/* the posted figures, beside the projected ones */
	long ops;				/* --ops: operations per projected worker */
	int readers;				/* --readers: readers of a projection that has them (0: its own) */
	/*
	 * --format json: where each projected configuration's line goes, as
	 * scn_project_run finishes it (stdout; the scenario's table, printed
	 * as ever, then goes nowhere); NULL: the table alone.
	 */
	FILE *json;
};

/* The seed's four designs: its column in tables.csv and the algorithm measured for it (data). */
struct scn_design {
	const char *column;	/* "a_rstat_force" */
	const char *algo;	/* "rstat_force" */
};
extern const struct scn_design scn_designs[4];

/* The registry (list.h), and lookup. */
extern const struct scn *const scn_list[];
extern const int scn_nr;
const struct scn *scn_find(const char *name);

/* enum scn_cap of ba, from ctr_options_check; scn_takes: whether ba takes options opt. */
unsigned scn_algo_caps(const struct bench_algo *ba);
int scn_takes(const struct bench_algo *ba, const char *opt);
/* The reader-side flush strategies (read=) the seed compared; whether ba takes strategy k. */
#define SCN_NR_STRATEGIES 4
extern const char *const scn_read_strategies[SCN_NR_STRATEGIES];
int scn_takes_strategy(const struct bench_algo *ba, int k);

/* engine.c: `ctrbench scenario NAME [options]` once parsed into c (out: --out, algo_list: --algo, or
 * NULL); returns the exit status. */
int scn_main(struct scn_ctx *c, const char *out, char *algo_list);
/* engine.c: the seconds `scenario NAME [--quick]` would take here with its defaults (-1: no plan). */
double scn_plan_seconds(const struct scn *s, const struct bench_config *machine, int quick);
/* engine.c: the columns checked against s->needs (exit 2, or the lines, before measuring). */
void scn_check_columns(struct scn_ctx *c);

/* A fresh run configuration on the machine set up once (dies on a bad shape: the scenario's bug). */
struct bench_config scn_config(const struct scn_ctx *c, enum bench_workload w, const char *shape, int threads);
/* Run cfg for algos[0..n), note naming the row; summaries into c->sums.  1: a signal stopped it. */
int scn_measure(struct scn_ctx *c, struct bench_config *cfg, const struct bench_algo **algos, int n,
		const char *note);
/* scn_measure of every column, SCN_RSTAT_UPDATE added for those that take it; summaries in column order. */
int scn_measure_cols(struct scn_ctx *c, struct bench_config *cfg, const char *note);
/* The same with add (options, SCN_RSTAT_UPDATE among them) for the columns that take all of it. */
int scn_measure_cols_with(struct scn_ctx *c, struct bench_config *cfg, const char *note, const char *add);
/* Workload w on chain:depth for every column, the row "depth D"; returns scn_measure's stop. */
int scn_measure_chain(struct scn_ctx *c, enum bench_workload w, int depth, int workers);
/* The seed's workers (want) capped at this machine's PUs unless --no-cap. */
int scn_workers(const struct scn_ctx *c, int want);
/* The column of algorithm name, -1 if none. */
int scn_algo_index(const struct scn_ctx *c, const char *name);

/* --- table.c: the tables ------------------------------------------------- */

/* A figure of one summary; NaN where it does not apply.  *noisy: its median has a CV over 10%. */
typedef double (*scn_value_fn)(const struct bench_summary *s, int *noisy);

/* A row of figures: its label and where its value comes from. */
struct scn_rowdef {
	const char *name;	/* label (after any prefix) */
	scn_value_fn fn;	/* the value of one column */
};

/*
 * Where a row's seed figures are in tables.csv: the scenario's table
 * (struct scn), this row, and a column.  column NULL: each of the seed's
 * four designs has its own column (scn_designs); else the one figure sits
 * beside algorithm algo.
 */
struct scn_seedref {
	const char *row;	/* the seed's row; NULL: the row has no seed figure */
	const char *column;	/* the seed's column, or NULL (one per design) */
	const char *algo;	/* with column: the algorithm it sits beside */
	double scale;		/* the seed's unit in ours (ms -> ns: 1e6); 0: the same unit */
	int unlike;		/* the seed's figure holds work ours does not: no ours/seed row */
};

void scn_header(const struct scn_ctx *c, const char *corner, int width);
void scn_row(const struct scn_ctx *c, const char *label, int width, scn_value_fn fn);
/* A row of cells made by the scenario, one per algorithm (c->algos), as scn_row prints them. */
void scn_row_cells(const struct scn_ctx *c, const char *label, int width, char (*cells)[64]);
/* scn_row, then the seed's figures of ref under it and ours/seed. */
void scn_row_seed(const struct scn_ctx *c, const char *label, int width, scn_value_fn fn,
		  const struct scn_seedref *ref);
/* v as a cell prints it: whole numbers from 1000 up, one decimal from 1, 3 digits below. */
void scn_fmt(char *buf, size_t len, double v);
void scn_note(const struct scn_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The header every scenario prints: the run, the machines, slots, options, seeds, flush period. */
void scn_common_notes(const struct scn_ctx *c, const char *workers);
/* The seed's column of algorithm name in its design tables (scn_designs), NULL if none. */
const char *scn_seed_col(const char *name);

/* Values shared by several scenarios. */
int scn_noisy(const struct bench_summary *s, int m);
double scn_cpu_ns(const struct bench_summary *s, int *noisy);
double scn_wall_ns(const struct bench_summary *s, int *noisy);
double scn_read_p99(const struct bench_summary *s, int *noisy);

/* --- project.c: --project ----------------------------------------------- */

/* `ctrbench scenario NAME --project TOPOLOGY [--calibration FILE] [--ops N]`. */
int scn_project_main(const struct scn *s, int argc, char **argv);

/*
 * The stats per memcg a projected flush folds (issue 27, point 7): what
 * mem_cgroup_css_rstat_flush() walks for one memcg on one CPU in Linux
 * v6.18 (mm/memcontrol.c, a distro config: CONFIG_SWAP, NUMA_BALANCING,
 * HUGETLB_PAGE and ZSWAP on, MEMCG_V1 off): the MEMCG_VMSTAT_SIZE state
 * items (NR_MEMCG_NODE_STAT_ITEMS 33 + memcg_stat_items 7 = 40), the
 * NR_MEMCG_EVENTS events (29) and one NUMA node's lruvec items (33).  Every
 * projected scenario is a memcg one, so each projects with this many; the
 * measured scenarios keep their own nr_stats (their timings are the
 * counter's, on this machine).  The header prints the figure and its source.
 */
#define SCN_MEMCG_NR_STATS 102
#define SCN_MEMCG_NR_STATS_SRC "kernel v6.18 mm/memcontrol.c: MEMCG_VMSTAT_SIZE 40 (NR_MEMCG_NODE_STAT_ITEMS 33 +" \
	" memcg_stat_items 7) + NR_MEMCG_EVENTS 29 + one node's lruvec items 33, folded per memcg and CPU by" \
	" mem_cgroup_css_rstat_flush"

/*
 * One projected run of a scenario, in the terms of its measured run
 * (struct bench_config), so that each scenario file defines its shape,
 * headroom, reader node and workload once and hands the same values to
 * scn_config (measured) and to scn_project_run (projected).  What the model
 * cannot run as measured is said by scn_project_run, never changed silently.
 */
struct scn_proj_cfg {
	const char *algo;		/* a libctr algorithm */
	enum bench_workload workload;	/* the measured run's */
	const char *shape;		/* the measured run's */
	int threads, readers;		/* updaters; readers (BENCH_READERS) */
	int read_node;			/* the measured run's: a node, BENCH_READ_LEAF (_OWN, _RANDOM: refused) */
	const char *placement;		/* NULL: compact, as run */
	const char *options;		/* the row's; update=memcg is added where the algorithm takes it */
	int flush_period_ms;		/* 0: the algorithm's */
	int64_t work_ns, read_interval_ns;
	long ops, reads, warmup;	/* per updater, per reader, per thread before the counts */
	double limit_headroom;		/* charging workloads: the measured run's headroom (0: the workload's) */
	/*
	 * The cell of the projected table it stands for, as the table labels
	 * it ("depth 8" and "a_rstat_force"; "shrinker=Y" and "a_rstat_force";
	 * "spin" and "storm"): its JSON line's "row" and "column" (NULL: "").
	 */
	const char *row, *column;
};

/*
 * Project c on p's machine with slots = its PUs (possible CPUs; at least
 * one per thread) and SCN_MEMCG_NR_STATS stats per node; 0, or -errno and a
 * line in err (the model's refusal, or a configuration it cannot express).
 * With p->json, each configuration it projects is written there as one
 * line: `ctrbench project --format json`'s fields (bench_proj_fields),
 * then "scenario", "row", "column", "options" (what the model was given,
 * update=memcg, SCN_PROJ_KERNEL and SCN_PROJ_LOCK included), "work_ns",
 * "read_interval_ns" and "limit_headroom" (the configuration's, 0 where it
 * has none); one it does not project, a line of kind "not projected" with
 * the scenario, row, column, algo and the configuration's fields, and
 * "reason" (err), so that a caller goes on with the next configuration and
 * a reader of the lines learns which cell is missing and why.
 */
int scn_project_run(const struct scn_proj *p, const struct scn_proj_cfg *c, struct proj_result *res, char *err,
		    size_t errlen);
/*
 * The projected header's lines for SCN_PROJ_KERNEL and SCN_PROJ_LOCK: each
 * printed when any of algos[0..n) takes it (asked with ctr_options_check),
 * naming those that do.
 */
void scn_proj_kernel_note(const char *const *algos, int n);
/* The workload the model runs for the measured w: w, or BENCH_CHARGE for a store (the model has none). */
enum bench_workload scn_proj_workload(enum bench_workload w);

/* zswap_store_limit.c: the store body both store scenarios share (w: BENCH_STORE or BENCH_UPDATE). */
void scn_store(struct scn_ctx *c, enum bench_workload w);
void scn_store_project(const struct scn_proj *p, int limit);

#endif /* BENCH_SCENARIO_H */
