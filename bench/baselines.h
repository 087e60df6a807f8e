/* SPDX-License-Identifier: MIT */
/*
 * baselines.h - the two floors every figure is read against, shaped like
 * algorithms so the same timed loops run them:
 *  - empty: the harness floor, a loop whose "update" is a compiler barrier;
 *    what is left is the loop, the phase check and the 1/64 sampling.
 *  - shared_atomic: one atomic word for the whole tree, whatever the node:
 *    the cost of one contended atomic add per update, with no hierarchy.
 * They live in the harness, not in libctr: neither is a hierarchical counter.
 */
#ifndef BENCH_BASELINES_H
#define BENCH_BASELINES_H

#include "../counters/ctr_internal.h"

struct bench_shared_atomic {
	struct ctr_tree base;			/* common part, read-only */
	_Atomic int64_t word __ctr_aligned;	/* every update of every node and stat, on its own line */
};

extern const struct ctr_algo bench_algo_empty;
extern const struct ctr_algo bench_algo_shared_atomic;

/*
 * The pattern the projection runs for ops table a (enum proj_raw of
 * project/proj.h): a baseline has no libctr code for the model to
 * instrument, so the model runs its access itself.  0 (PROJ_RAW_NONE) for
 * any other table.  An int here: the timed loops (loops.c) include this
 * header and build without project/ (tests/cli_project.sh).
 */
int bench_baseline_proj_raw(const struct ctr_algo *a);

static inline void bench_empty_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	/* Keep the arguments live and the loop from being folded away. */
	__asm__ volatile("" : : "r"(t), "r"(cpu), "r"(node), "r"(stat), "r"(delta) : "memory");
}

CTR_REF_WRAP(bench_empty_ref, bench_empty_add)	/* the timed update loops' form (ctr_internal.h) */

static inline int bench_empty_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	bench_empty_add(t, cpu, node, 0, delta);
	return 1;
}

static inline void bench_shared_atomic_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	struct bench_shared_atomic *s = ctr_container_of(t, struct bench_shared_atomic, base);

	(void)cpu, (void)node, (void)stat;
	atomic_fetch_add_explicit(&s->word, delta, memory_order_relaxed);
}

CTR_REF_WRAP(bench_shared_atomic_ref, bench_shared_atomic_add)

static inline int64_t bench_empty_read(struct ctr_tree *t, int node, int stat)
{
	__asm__ volatile("" : : "r"(t), "r"(node), "r"(stat) : "memory");
	return 0;
}

static inline int64_t bench_shared_atomic_read(struct ctr_tree *t, int node, int stat)
{
	struct bench_shared_atomic *s = ctr_container_of(t, struct bench_shared_atomic, base);

	(void)node, (void)stat;
	return atomic_load_explicit(&s->word, memory_order_relaxed);
}

/* Speculative charge against the root's limit, one level. */
static inline int bench_shared_atomic_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	struct bench_shared_atomic *s = ctr_container_of(t, struct bench_shared_atomic, base);
	int64_t old = atomic_fetch_add_explicit(&s->word, delta, memory_order_relaxed);

	(void)cpu, (void)node;
	if (ctr_within_limit(old, delta, ctr_limit(t, 0)))
		return 1;
	atomic_fetch_sub_explicit(&s->word, delta, memory_order_relaxed);
	return 0;
}

#endif /* BENCH_BASELINES_H */
