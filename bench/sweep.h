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

#include "bench.h"

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
	const char *plan_file;		/* --plan as given, or NULL */
	char *plan_text;		/* its contents, kept in every line written */
};


/*
 * Runs a checked sweep (recommend builds one without --results).  Bad
 * input dies (exit 2) before anything is written; returns 0, or 1 when a
 * configuration failed verification, could not run, or the sweep was
 * interrupted (SIGINT, SIGTERM).  A progress line is drawn on stderr when it
 * is a terminal.
 */
int bench_sweep_exec(const struct bench_sweep *s);

/* The last bench_sweep_exec stopped on SIGINT or SIGTERM. */
int bench_sweep_interrupted(void);

/* Dies (exit 2, one line) on anything in s that `run` would refuse (sweep.c: sweep and recommend share it). */
void bench_sweep_check(const struct bench_sweep *s);


#endif /* BENCH_SWEEP_H */
