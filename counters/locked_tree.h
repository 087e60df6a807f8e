/* SPDX-License-Identifier: MIT */
/*
 * locked_tree - the baseline everybody understands: one mutex around a plain
 * tree of int64 sums.  Exact in every respect; every operation serializes.
 */
#ifndef CTR_LOCKED_TREE_H
#define CTR_LOCKED_TREE_H

#include <pthread.h>

#include "ctr_internal.h"

struct ctr_locked_tree {
	struct ctr_tree base;		/* common part, read-only */
	pthread_mutex_t lock __ctr_aligned;	/* guards val; on its own line with val's head */
	int64_t *val;			/* val[node * nr_stats + stat], under lock */
	struct ctr_offsets off;		/* off.of[node]: n * nr_stats for node and its ancestors (refs' walk) */
};

extern const struct ctr_algo ctr_algo_locked_tree;

static inline void __ctr_locked_tree_add(struct ctr_locked_tree *l, int node, int stat, int64_t delta)
{
	const struct ctr_tree *t = &l->base;

	ctr_for_each_ancestor(t, n, node)
		l->val[(size_t)n * t->nr_stats + stat] += delta;
}

static inline void ctr_locked_tree_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	struct ctr_locked_tree *l = ctr_container_of(t, struct ctr_locked_tree, base);

	(void)cpu;
	pthread_mutex_lock(&l->lock);
	__ctr_locked_tree_add(l, node, stat, delta);
	pthread_mutex_unlock(&l->lock);
}

/*
 * A prepared update (ctr_internal.h): the lock, the node's own sum and the
 * ancestors' as offsets from val + stat.  Add reloaded val, ancestors and
 * nr_stats after the lock's call and multiplied per level.  One level is a
 * form of its own, which the timed loop unswitches (bench/loops.c).
 */
struct ctr_locked_tree_ref {
	pthread_mutex_t *lock;		/* the tree's lock */
	int64_t *own;			/* the node's sum of stat */
	int64_t *val;			/* val + stat: level k's sum is val[off[k]] */
	const int *off;			/* off.of[node], leaf first */
	int depth;			/* levels from the node to the root */
};

static inline struct ctr_locked_tree_ref ctr_locked_tree_ref(struct ctr_tree *t, int cpu, int node, int stat)
{
	struct ctr_locked_tree *l = ctr_container_of(t, struct ctr_locked_tree, base);

	(void)cpu;
	return (struct ctr_locked_tree_ref){ &l->lock, l->val + stat + l->off.of[node][0], l->val + stat,
					     l->off.of[node], t->depth[node] };
}

#define CTR_REF_ONE_LEVEL_locked_tree 1
static inline int ctr_locked_tree_ref_one_level(const struct ctr_locked_tree_ref *r)
{
	return r->depth == 1;
}

static inline __attribute__((always_inline)) void
ctr_locked_tree_ref_add(const struct ctr_locked_tree_ref *r, int64_t delta)
{
	int64_t *const val = r->val;

	pthread_mutex_lock(r->lock);
	*r->own += delta;
	for (const int *o = r->off + 1, *const end = r->off + r->depth; o < end; o++)
		val[*o] += delta;
	pthread_mutex_unlock(r->lock);
}

static inline int64_t ctr_locked_tree_read(struct ctr_tree *t, int node, int stat)
{
	struct ctr_locked_tree *l = ctr_container_of(t, struct ctr_locked_tree, base);
	int64_t v;

	pthread_mutex_lock(&l->lock);
	v = l->val[(size_t)node * t->nr_stats + stat];
	pthread_mutex_unlock(&l->lock);
	return v;
}

/* Check and charge under the lock: exact, a level never exceeds its limit. */
static inline int ctr_locked_tree_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	struct ctr_locked_tree *l = ctr_container_of(t, struct ctr_locked_tree, base);
	int ok = 1;

	(void)cpu;
	pthread_mutex_lock(&l->lock);
	ctr_for_each_ancestor(t, n, node) {
		if (!ctr_within_limit(l->val[(size_t)n * t->nr_stats], delta, ctr_limit(t, n))) {
			ok = 0;
			break;
		}
	}
	if (ok)
		__ctr_locked_tree_add(l, node, 0, delta);
	pthread_mutex_unlock(&l->lock);
	return ok;
}

#endif /* CTR_LOCKED_TREE_H */
