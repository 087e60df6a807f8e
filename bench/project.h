/* SPDX-License-Identifier: MIT */
/* project.h - one projection as the commands ask for it (project.c): ctrbench project and scenario --project. */
#ifndef BENCH_PROJECT_H
#define BENCH_PROJECT_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "../project/proj.h"

/* Transfers summed over classes. */
double pj_total(const double *x);

/*
 * The readers' jitter seed when none is given: a constant, so the same
 * command projects the same figures (issue 27.4); --seed changes it.
 */
#define BENCH_PROJ_SEED 1
/* The scheduler's time slice when none is given (ms): CFS's base slice, as struct proj_config assumes. */
#define BENCH_PROJ_SLICE_MS 3.0

/*
 * One projection as a command asks for it: struct proj_config's settings
 * with the shape and the placement by name.  Every field left 0 (or NULL)
 * takes its default, so a caller names only what it sets: in particular
 * no_jitter 0 is the default jitter, and seed 0 is a seed like any other
 * (commands pass BENCH_PROJ_SEED unless told).
 */
struct bench_proj_req {
	const char *algo;		/* a libctr name, a harness baseline (bench_proj_raw), or "=false-shared"... */
	enum bench_workload workload;
	const char *shape;		/* as typed: chain:D, tree:AxB... */
	int threads;			/* updaters */
	int readers;			/* readers workload only (ignored for the others) */
	const struct topo *topo;
	const char *placement;		/* compact, scatter, ...: topo_place's; past the PUs it wraps round */
	const struct proj_calib *calib;
	const char *options;		/* ctr_params.options (NULL: none) */
	int flush_period_ms;		/* 0: the algorithm's */
	int64_t work_ns;		/* private work after each update */
	int64_t read_interval_ns;	/* readers: pause between reads */
	int read_node;			/* readers: node read (-1: each reader picks a leaf in turn) */
	long ops, reads, warmup;	/* per updater, per reader, warmup ops per thread */
	double limit_headroom;		/* charge: 0 is run's BENCH_LIMIT_HEADROOM */
	int slots;			/* the tree's slots (possible CPUs); 0: bench_proj_default_slots */
	int nr_stats;			/* stats per node; 0: 1 */
	uint64_t seed;			/* the readers' interval jitter */
	int no_jitter;			/* 1: every reader pauses exactly read_interval_ns */
	double slice_ms;		/* the scheduler's slice for more threads than PUs; 0: BENCH_PROJ_SLICE_MS */
	int preempt_none;		/* 1: a slice ends only between operations (proj_config.preempt_none) */
};

/*
 * The slots a projection's tree gets by default, as run's
 * (bench_default_slots): the modelled machine's possible CPUs, its PUs,
 * or the threads if there are more of them (each owns a slot).
 */
int bench_proj_default_slots(const struct topo *topo, int threads, int readers);

/*
 * The pattern the model runs for algo in place of libctr code (enum
 * proj_raw): its ops table's, bench_baseline_proj_raw; 0 for a libctr
 * algorithm, a name ctrbench list lacks ("=false-shared": the model's own).
 */
int bench_proj_raw(const char *algo);

/* Project one algorithm as q says (dies on bad input); secs: the model's own run time. */
void bench_project_one(const struct bench_proj_req *q, struct proj_result *res, double *secs);

/*
 * The lock a projection names: the one with the most wait, locks[0] of the
 * model's table (sorted so); a model that fills no table (before issue 27's)
 * gives its one lock's figures with no role ("").
 */
struct bench_proj_lock {
	const char *role;
	long acq, contended;
	double wait_ns, hold_ns;
};
struct bench_proj_lock bench_proj_top_lock(const struct proj_result *r);
/* x per virtual second of r's measured window (0 for an empty one). */
double bench_proj_per_s(const struct proj_result *r, double x);
/* Distinct PUs of pus[0..n) (sorts pus): where a projection's threads run, time-shared past n of them. */
int bench_proj_pus_used(int *pus, int n);

/*
 * What a projected JSON line says of its configuration beside the model's
 * figures, every field as the model ran it (defaults resolved): the
 * settings of `ctrbench project` and of `scenario --project` alike.
 */
struct bench_proj_line {
	const char *algo;
	const char *workload;		/* the workload the model ran (bench_workload_name) */
	const char *shape, *placement;
	int threads, readers;		/* readers: 0 outside the readers workload */
	const struct topo *topo;
	const struct proj_calib *cal;
	int slots, nr_stats;
	long seed;
	int jitter;			/* 1: readers' pauses jittered */
	double slice_ms;
	int preempt_none;		/* 1: "preempt": "none" */
	int nr_pus_used;		/* distinct PUs the threads and readers run on (bench_proj_pus_used) */
};

/*
 * One line of kind "projected" on f, flushed (a caller that projects for
 * minutes keeps every line done): bench_proj_fields (bench/schema.h), in
 * order, then the members of extra (NULL: none) after them; extra is
 * consumed.  secs: the model's own run time.  Dies out of memory.
 */
void bench_proj_print_json(FILE *f, const struct bench_proj_line *l, const struct proj_result *r, double secs,
			   json_t *extra);

#endif /* BENCH_PROJECT_H */
