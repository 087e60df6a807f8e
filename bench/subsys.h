/* SPDX-License-Identifier: MIT */
/*
 * subsys.h - the subsys-flush-locks scenario: two rstat subsystems (stat 0
 * "memory": updaters and readers; stat 1 "io": readers only) on one tree of
 * an algorithm that takes subsys= and lock= (rstat_llist), run with one
 * shared flush lock (lock=global, before kernel 6.16) and with one lock per
 * subsystem (lock=per-tree, 6.16 on), printing each subsystem's flush-lock
 * contention in seed 001's terms.  Its raw lines are result lines
 * (schema.h), the per-subsystem figures in "subsys".
 */
#ifndef BENCH_SUBSYS_H
#define BENCH_SUBSYS_H

#include <stdio.h>

#include "run.h"

/* What the scenario command hands over (its machine is set up already). */
struct bench_subsys_args {
	const struct bench_config *base;	/* the machine: topology, placement, timer, env */
	int reps;				/* repetitions, interleaved by lock mode */
	int duration_ms, warmup_ms;		/* per run */
	int table;				/* print the table (else only the JSON lines) */
	FILE *raw;				/* the result lines (rep lines, then summaries), or NULL */
};

/*
 * Runs it; returns 1 if a run failed verification, could not start, a line
 * could not be written, or it was interrupted.  An algorithm without the
 * capability is refused (one line, exit 2) before anything runs.
 */
int bench_subsys_scenario(const struct bench_subsys_args *a);

/*
 * `scenario subsys-flush-locks --from FILE`: the table again from FILE's
 * lines (read with bench_results_load), measuring nothing.  Returns 0, or 1
 * when a lock mode has no lines there (its column "not run", said on
 * stderr); bad input (not a results file, no lines of this scenario) dies.
 */
int bench_subsys_from(const char *path);

#endif /* BENCH_SUBSYS_H */
