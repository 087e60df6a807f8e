/* SPDX-License-Identifier: MIT */
/*
 * sweep.h - the engine of `ctrbench sweep` (and of recommend's quick
 * sweep): the cross product of algorithms, workloads, shapes, thread counts
 * and placements, checked whole before anything runs, each point measured
 * by the executor (exec.h) in a child process of its own, each result
 * appended to --out as one JSON line.  docs/sweeps.md describes it for users.
 */
#ifndef BENCH_SWEEP_H
#define BENCH_SWEEP_H

#include <stdio.h>
#include <jansson.h>

#include "bench.h"

struct topo;

#define BENCH_SWEEP_MAX_THREADS 4096	/* as run --threads */
#define BENCH_SWEEP_MAX_CONFIGS 1000000	/* a cross product past this is a typo, not a plan */

/* A sweep, every list parsed and checked (bench_sweep_check) before anything runs. */
struct bench_sweep {
	const struct bench_algo **algo;	/* --algo, in the order given */
	int nr_algos;			/* their number */
	const char **workload;		/* --workload: "update", "charge", "readers" */
	int nr_workloads;		/* their number */
	char **shape;			/* --shape specs as typed */
	int nr_shapes;			/* their number */
	int *threads;			/* --threads, ascending, no repeats */
	int nr_threads;			/* their number */
	char **placement;		/* --placement policies as `run --placement` takes them */
	int nr_placements;		/* their number */
	int reps;			/* --reps for every run */
	int duration_ms;		/* --duration-ms for every run */
	int warmup_ms;			/* --warmup-ms for every run */
	int readers;			/* --readers for the readers workload; -1: run's default (1) */
	int flush_period_ms;		/* --flush-period-ms; 0: not given (the algorithm's default) */
	int work_ns;			/* --work-ns; 0: none */
	int work_iters;			/* --work-iters; 0: none */
	int slots;			/* --slots for every run; 0: run's default (bench_default_slots) */
	const char *options;		/* --options or NULL */
	const char *events;		/* --events (a list or bounce) or NULL */
	const char *note;		/* --note or NULL */
	const char *out;		/* --out: the results file, appended to */
	int resume;			/* --resume: skip configurations already in out */
	int force;			/* --force: run what does not fit in MemAvailable (checked before the first) */
	const char *topology;		/* --topology: plan for it (--dry-run), NULL for this machine */
	int dry_run;			/* --dry-run: print the plan and its estimate, run nothing */
	const char *plan_file;		/* --plan as given, or NULL */
	char *plan_text;		/* its contents, kept in every line written */
	int format_json;		/* --dry-run --format json: the configurations, one JSON line each */
	const char *configs_file;	/* --configs: run the shard of this file's configurations */
	int shard, nr_shards;		/* --shard I/N, 1 <= I <= N */
};

/* A point of a sweep and the configuration ids of its algorithms: what bench_sweep_run measures. */
struct bench_sweep_unit {
	const struct bench_sweep *s;	/* the lists the point indexes */
	int point;			/* 0-based point of s (sweep-plan.c's order) */
	const int *ids;			/* s->nr_algos configuration ids, written in each line's "sweep" */
};


/*
 * Runs a checked sweep (recommend builds one without --results).  Bad
 * input dies (exit 2) before anything is written; returns 0, or 1 when a
 * configuration failed verification, could not run, or the sweep was
 * interrupted (SIGINT, SIGTERM).  A progress line is drawn on stderr when it
 * is a terminal.
 */
int bench_sweep_exec(const struct bench_sweep *s);

/*
 * Measures units u[0..n) into head->out (head: --out, --resume, --force,
 * --events, the plan, the shard), each point one group of the executor:
 * what bench_sweep_exec and a shard (sweep-shard.c) share.
 */
int bench_sweep_run(const struct bench_sweep *head, const struct bench_sweep_unit *u, int n);

/*
 * The identity fields (record.h: bench_record_ident) of the line algorithm
 * s->algo[a] will write at point i, run on t with env (bench_env_json):
 * the defaults the process that runs it fills in (slots) filled in here.
 */
json_t *bench_sweep_ident(const struct bench_sweep *s, const struct topo *t, json_t *env, int i, int a);

/* The last bench_sweep_exec stopped on SIGINT or SIGTERM. */
int bench_sweep_interrupted(void);

/* Dies (exit 2, one line) on anything in s that `run` would refuse (sweep.c: sweep and recommend share it). */
void bench_sweep_check(const struct bench_sweep *s);

/* ---- the plan (sweep-plan.c): what --dry-run prints ---- */

/* One point of the cross product: a group of configurations the executor runs together. */
struct bench_sweep_point {
	int id;				/* 1-based rank in the order the sweep runs them (stable for one plan) */
	const char *workload;		/* its workload, as given */
	const char *shape;		/* its shape spec, as given */
	const char *placement;		/* its placement policy, as given */
	int threads;			/* updaters */
	int readers;			/* reader threads (readers workload), else 0 */
	int *cpus;			/* nr_cpus CPU numbers: updaters', then readers' */
	int nr_cpus;			/* threads + readers */
	int wrapped;			/* more threads than the placement has CPUs */
	int nr_algos;			/* configurations in the point: one per algorithm */
	long measurements;		/* nr_algos x reps */
};

/* The seconds one measurement is planned at: warm-up + 1.25 x duration. */
double bench_sweep_secs_each(const struct bench_sweep *s);

/* How many points s has (workloads x shapes x placements x thread counts). */
int bench_sweep_nr_points(const struct bench_sweep *s);

/* Point i (0-based, run order) of s on topology t into *p; free with bench_sweep_point_free. */
void bench_sweep_plan_point(const struct bench_sweep *s, const struct topo *t, int i,
			    struct bench_sweep_point *p);
void bench_sweep_point_free(struct bench_sweep_point *p);

/* Print the plan of the checked sweep s on t: a header, one row per point, the estimate. */
void bench_sweep_plan(const struct bench_sweep *s, const struct topo *t, FILE *f);

/*
 * --dry-run --format json: one line per configuration, in run order:
 * {"kind":"config","id":N,"point":P, then every identity field its result
 * line will hold}.  Configuration N is algorithm (N-1) % A of point
 * (N-1) / A + 1 (A algorithms): the "sweep.id" of its result lines.
 */
void bench_sweep_configs(const struct bench_sweep *s, const struct topo *t, FILE *f);

/* ---- shards (sweep-shard.c) ---- */

/*
 * --configs FILE --shard I/N --out DIR: the ids of shard I of the file's
 * M configurations (sorted by id) are those at positions [(I-1)M/N, IM/N):
 * contiguous, so that the algorithms of one point stay in one shard, their
 * reps interleaved.  Measured into DIR/shard-I-of-N.jsonl, resumable.
 */
int bench_sweep_exec_shard(const struct bench_sweep *head);

/* The first and one-past-last positions of shard i (1-based) of n over m configurations. */
static inline void bench_sweep_shard_range(long m, int i, int n, long *lo, long *hi)
{
	*lo = m * (i - 1) / n;
	*hi = m * i / n;
}


#endif /* BENCH_SWEEP_H */
