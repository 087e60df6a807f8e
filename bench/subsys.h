/* SPDX-License-Identifier: MIT */
/*
 * subsys.h - the subsys-flush-locks scenario: two rstat subsystems (stat 0
 * "memory": updaters and readers; stat 1 "io": readers only) on one
 * rstat_llist tree, run with one shared flush lock (lock=global, before
 * kernel 6.16) and with one lock per subsystem (lock=per-tree, 6.16 on),
 * printing each subsystem's flush-lock contention in seed 001's terms.
 */
#ifndef BENCH_SUBSYS_H
#define BENCH_SUBSYS_H

#include <stdio.h>

#include "run.h"

/* What the scenario command hands over (its machine is set up already). */
struct bench_subsys_args {
	const struct bench_config *base;	/* the machine: topology, placement */
	int reps;				/* repetitions, interleaved by lock mode */
	int duration_ms, warmup_ms;		/* per run */
	int table;				/* print the table (else only the JSON lines) */
	FILE *raw;				/* one JSON line per run, or NULL */
};

/* Runs it; returns 1 if a run failed verification, could not start, or was interrupted. */
int bench_subsys_scenario(const struct bench_subsys_args *a);

#endif /* BENCH_SUBSYS_H */
