/* SPDX-License-Identifier: MIT */
/*
 * atomic_tree - page counters, design (d) of the seed thread: one 64-bit
 * atomic per (node, stat) and an update that walks the ancestors with an
 * atomic add at every level (mm/page_counter.c).  Reads are one load and
 * exact; every update bounces one line per level between the updating CPUs.
 */
#ifndef CTR_ATOMIC_TREE_H
#define CTR_ATOMIC_TREE_H

#include "ctr_internal.h"

struct ctr_atomic_tree {
	struct ctr_tree base;		/* common part, read-only */
	size_t stride;			/* int64 words per node: nr_stats rounded up to a cache line */
	_Atomic int64_t *val;		/* val[node * stride + stat]; each node starts a line */
	struct ctr_offsets off;		/* off.of[node]: n * stride for node and its ancestors (refs' walk) */
};

extern const struct ctr_algo ctr_algo_atomic_tree;

/* Its layout map (ctr_algo.layout), for the algorithms built on it (capread). */
int __ctr_atomic_tree_layout(struct ctr_tree *t, const struct ctr_layout_sink *s);

static inline _Atomic int64_t *__ctr_atomic_tree_word(struct ctr_atomic_tree *a, int node, int stat)
{
	return &a->val[(size_t)node * a->stride + stat];
}

static inline void ctr_atomic_tree_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	struct ctr_atomic_tree *a = ctr_container_of(t, struct ctr_atomic_tree, base);

	(void)cpu;
	/* Relaxed: a counter orders nothing; each level's sum is exact on its own. */
	ctr_for_each_ancestor(t, n, node)
		atomic_fetch_add_explicit(__ctr_atomic_tree_word(a, n, stat), delta, memory_order_relaxed);
}

/*
 * A prepared update (ctr_internal.h): the node's word, then each ancestor's
 * as an offset from val + stat, so a level is a load of its offset and a
 * lock add, as page_counter_charge()'s walk through c->parent is a load and
 * a lock add.  Add's walk instead reloaded t->ancestors[node], the stride
 * and val after every lock add (a compiler barrier), and multiplied: 1.28-1.34x
 * a lock xadd per level (issue 28).  One level is a form of its own, which
 * the timed loop unswitches (bench/loops.c).
 */
struct ctr_atomic_tree_ref {
	_Atomic int64_t *own;		/* the node's word of stat */
	_Atomic int64_t *base;		/* val + stat: level k's word is base[off[k]] */
	const int *off;			/* off.of[node]: leaf first, off[0] is own's */
	int depth;			/* levels from the node to the root */
};

static inline struct ctr_atomic_tree_ref ctr_atomic_tree_ref(struct ctr_tree *t, int cpu, int node, int stat)
{
	struct ctr_atomic_tree *a = ctr_container_of(t, struct ctr_atomic_tree, base);

	(void)cpu;
	return (struct ctr_atomic_tree_ref){ __ctr_atomic_tree_word(a, node, stat), a->val + stat,
					     a->off.of[node], t->depth[node] };
}

#define CTR_REF_ONE_LEVEL_atomic_tree 1
static inline int ctr_atomic_tree_ref_one_level(const struct ctr_atomic_tree_ref *r)
{
	return r->depth == 1;
}

static inline __attribute__((always_inline)) void
ctr_atomic_tree_ref_add(const struct ctr_atomic_tree_ref *r, int64_t delta)
{
	_Atomic int64_t *const base = r->base;

	atomic_fetch_add_explicit(r->own, delta, memory_order_relaxed);
	for (const int *o = r->off + 1, *const end = r->off + r->depth; o < end; o++)
		atomic_fetch_add_explicit(base + *o, delta, memory_order_relaxed);
}

/* One load: exact at all times. */
static inline int64_t ctr_atomic_tree_read(struct ctr_tree *t, int node, int stat)
{
	struct ctr_atomic_tree *a = ctr_container_of(t, struct ctr_atomic_tree, base);

	return atomic_load_explicit(__ctr_atomic_tree_word(a, node, stat), memory_order_relaxed);
}

/*
 * The kernel's speculative charge (page_counter_try_charge): add at each
 * level going up, and at the first level that went over its limit take the
 * charge back from it and from every level below.  A level's value can
 * exceed its limit only transiently, by the sum of the charges racing with
 * this one (each of which will see the excess and back off, or was admitted
 * first); at quiescence no level is over its limit.  A racing speculative
 * charge can also make a charge fail that would have fit a moment later,
 * which is the kernel's behaviour too.
 */
static inline int ctr_atomic_tree_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	struct ctr_atomic_tree *a = ctr_container_of(t, struct ctr_atomic_tree, base);
	int failed = -1;

	(void)cpu;
	ctr_for_each_ancestor(t, n, node) {
		int64_t old = atomic_fetch_add_explicit(__ctr_atomic_tree_word(a, n, 0), delta,
							memory_order_relaxed);
		if (!ctr_within_limit(old, delta, ctr_limit(t, n))) {
			failed = n;
			break;
		}
	}
	if (failed < 0)
		return 1;
	ctr_for_each_ancestor(t, n, node) {
		atomic_fetch_sub_explicit(__ctr_atomic_tree_word(a, n, 0), delta, memory_order_relaxed);
		if (n == failed)
			break;
	}
	return 0;
}

#endif /* CTR_ATOMIC_TREE_H */
