/* SPDX-License-Identifier: MIT */
/*
 * c2c/c2c.h - `ctrbench c2c`: the cost of moving one cache line between two
 * CPUs, per pair and per topology distance class, with the line's home NUMA
 * node chosen and checked.  docs/c2c.md describes it for users.
 *
 * The command is five files, one per step: c2c/plan.c (which CPUs, which
 * pairs, their classes: apart from the measuring so that tests can check it
 * on synthetic topologies), c2c/home.c (where the line lives), c2c/measure.c
 * (the two threads), c2c/output.c and c2c/json.c (table, CSV, JSON), and
 * cmd-c2c.c, which parses the command line and runs the steps in order.
 */
#ifndef BENCH_C2C_H
#define BENCH_C2C_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../../pmu/pmu.h"
#include "../../topology/topo.h"
#include "../reps.h"

/* --pairs: every pair, N drawn from all, or N drawn from each class present. */
enum c2c_pairs_mode { C2C_PAIRS_ALL, C2C_PAIRS_SAMPLE, C2C_PAIRS_PER_CLASS };

struct c2c_pair_plan {
	int a, b;		/* OS CPU indexes; a comes before b in topology order */
	int cls;		/* enum topo_class of the two */
};

struct c2c_plan {
	int nr_cpus;		/* entries of cpus */
	int *cpus;		/* distinct OS CPUs in topology (logical) order */
	int nr_dups;		/* entries of dups */
	int *dups;		/* CPUs the list named more than once (each listed once here) */
	enum c2c_pairs_mode mode;
	int per;		/* N of sample:N / per-class:N */
	long avail[TOPO_NR_CLASSES];	/* pairs of each class among the CPUs */
	int nr_pairs;		/* entries of pairs */
	struct c2c_pair_plan *pairs;	/* sorted by a's then b's topology position */
};

/*
 * Plan the pairs over topology t: cpus is "all" (every PU of t) or a CPU
 * list ("0,2,4-7"; a CPU named twice is measured once and reported in
 * dups), pairs is "all", "sample:N" or "per-class:N".  Draws are
 * deterministic (a fixed seed), so one plan is the same on every run.
 * Returns 0, or -EINVAL with one line naming the bad value in err (fewer
 * than two distinct CPUs, a CPU not in t, a malformed mode), -ENOMEM.
 */
int c2c_plan_make(const struct topo *t, const char *cpus, const char *pairs, struct c2c_plan *p,
		  char *err, size_t errlen);
void c2c_plan_free(struct c2c_plan *p);

/* Pairs of class cls in the plan. */
int c2c_plan_count(const struct c2c_plan *p, int cls);

/* "all", or "sample:N" / "per-class:N" with the plan's N, into buf. */
void c2c_mode_str(const struct c2c_plan *p, char *buf, size_t len);

/* ---- between the c2c files ---------------------------------------------- */

/* c2c lines follow the field table's version (their fields: BENCH_C2C_FIELDS in schema.h). */
#define C2C_SCHEMA BENCH_SCHEMA_VERSION
#define C2C_LINE 64
/*
 * What the estimate assumes one transfer costs before anything is measured:
 * cross-socket transfers on current servers are 100-200 ns (the 2 x
 * 9454 figures), same-L3 ones 20-50 ns; the first measured pair replaces it.
 */
#define C2C_ASSUMED_NS 100.0
/* Creating, binding and joining the two threads of one measurement, measured here: ~0.1 ms. */
#define C2C_SETUP_NS 100000.0
/* A matrix wider than this many CPUs is left to the JSON and CSV. */
#define C2C_TABLE_MAX_CPUS 32
#define C2C_TABLE_MAX_PAIRS 64
#define C2C_MAX_HOMES 64

enum c2c_op { C2C_CAS, C2C_LOAD_STORE, C2C_FETCH_ADD, C2C_NR_OPS };
/* --op's names, and what one figure of each op is (the table's heading, the JSON): measure.c. */
extern const char *const c2c_op_names[C2C_NR_OPS];
extern const char *const c2c_op_figure[C2C_NR_OPS];

/* Where the line lives (home.c). */
struct c2c_home {
	int asked;		/* node:K's K, -1 for first-touch */
	int node;		/* where move_pages says the page is, -1 unknown */
	const char *why;	/* when node is -1: why not known */
	void *page;		/* the line is its first 64 bytes, nothing else is on the page */
	size_t len;		/* the page's size */
	int numa_alloc;		/* page from numa_alloc_onnode (else mmap) */
};

/* The command line, as given (defaults in bench_cmd_c2c and the usage text). */
struct c2c_opts {
	const char *cpus, *pairs, *home;	/* --cpus, --pairs, --home */
	const char *topology;		/* --topology, NULL for this machine */
	enum c2c_op op;			/* --op */
	int reps, samples, iters;	/* --reps, --samples, --iters */
	int dry_run;			/* --dry-run */
	int format;			/* 0 table, 1 json, 2 csv */
};

/* Results: pair i of home h has reps r at res[(h * nr_pairs + i) * reps + r]. */
struct c2c_run {
	const struct c2c_opts *o;	/* the command line */
	const struct topo *t;		/* the machine (or --topology's) */
	struct c2c_plan plan;		/* the pairs */
	int nr_homes;			/* entries of homes */
	struct c2c_home homes[C2C_MAX_HOMES];	/* the line's homes, measured in turn */
	int homes_each;			/* --home each */
	int nodes_total;		/* NUMA nodes with memory on this machine (1 without NUMA) */
	int reps_done;			/* full passes over every pair */
	int stopped;			/* 1: a signal stopped the measuring, 2: a pair could not be measured */
	double *res;			/* NAN: not measured */
	double *res_p50;		/* the same layout: the samples' medians */
	struct pmu_event_spec *ev;	/* --events, nr_ev of them */
	int nr_ev;
	const char *ev_reason;		/* why events are not counted, once */
	double *ev_sum;			/* [home][class][event] summed counts */
	double *tr_sum;			/* [home][class] transfers those counts cover */
	double estimate_s, elapsed_s;	/* the plan's estimate; the measuring's wall time */
	json_t *env;			/* bench_env_json's environment, in every JSON line */
};

/* One class's row: how many pairs had a figure, and the median, p10, p90 of those figures. */
struct c2c_class_row {
	int pairs;
	double median, p10, p90;
};

/* home.c: --home into r->homes[] (asked only), r->nr_homes; on a synthetic topology only how many. */
void c2c_homes_parse(struct c2c_run *r, const char *s);
/* Allocates and first-touches h's page on node asked (-1: where this thread runs), checks it; 0, -errno. */
int c2c_home_alloc(struct c2c_home *h, int asked);
void c2c_home_free(struct c2c_home *h);
/* "node 1 (numa_alloc_onnode, checked with move_pages)", or why it is unknown, into buf. */
const char *c2c_home_label(const struct c2c_run *r, int h, char *buf, size_t len);

/* measure.c: seconds the plan takes at one_way_ns per transfer. */
double c2c_estimate(const struct c2c_opts *o, long measurements, double one_way_ns);
/* Every rep of every pair on every home into r->res (r->stopped on a signal or a failure). */
void c2c_measure_all(struct c2c_run *r);

/* output.c: pair i of home h's reps. */
double *c2c_res(struct c2c_run *r, int h, int i);
/* A pair's statistics over the reps measured, vals its figures; how many (0: none). */
int c2c_pair_stat(struct c2c_run *r, int h, int i, struct bench_stat *st, double *vals);
/* Class rows of home h (h -1: every home pooled). */
void c2c_classes(struct c2c_run *r, int h, struct c2c_class_row rows[TOPO_NR_CLASSES]);
void c2c_print_table(struct c2c_run *r, int interrupted);
void c2c_print_csv(struct c2c_run *r);
/* --dry-run: the plan and its estimate, nothing measured. */
void c2c_print_plan(struct c2c_run *r, long measurements);

/* json.c: the one JSON line, the plan's (dry run) or the results'. */
void c2c_print_json(struct c2c_run *r, int interrupted);

/* The command itself: bench_cmd_c2c in builtin.h. */

#endif /* BENCH_C2C_H */
