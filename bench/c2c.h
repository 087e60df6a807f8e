/* SPDX-License-Identifier: MIT */
/*
 * c2c.h - `ctrbench c2c` (cmd-c2c.c): the cost of moving one cache line between two
 * CPUs, per pair and per topology distance class, with the line's home NUMA
 * node chosen and checked.  docs/c2c.md describes it for users.
 *
 * The plan (which CPUs, which pairs, their classes) is separate from the
 * measuring so that tests can check it on synthetic topologies.
 */
#ifndef BENCH_C2C_H
#define BENCH_C2C_H

#include <stddef.h>

#include "../topology/topo.h"

/* --pairs: every pair, N drawn from all, or N drawn from each class present. */
enum c2c_pairs_mode { C2C_PAIRS_ALL, C2C_PAIRS_SAMPLE, C2C_PAIRS_PER_CLASS };

struct c2c_pair_plan {
	int a, b;		/* OS CPU indexes; a comes before b in topology order */
	int cls;		/* enum topo_class of the two */
};

struct c2c_plan {
	int nr_cpus;
	int *cpus;		/* distinct OS CPUs in topology (logical) order */
	int nr_dups;
	int *dups;		/* CPUs the list named more than once (each listed once here) */
	enum c2c_pairs_mode mode;
	int per;		/* N of sample:N / per-class:N */
	long avail[TOPO_NR_CLASSES];	/* pairs of each class among the CPUs */
	int nr_pairs;
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

/* The command itself: bench_cmd_c2c in builtin.h. */

#endif /* BENCH_C2C_H */
