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
CTR_REF_GENERIC(locked_tree)	/* a ref of add's arguments (ctr_internal.h) */

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
