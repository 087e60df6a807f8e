/* SPDX-License-Identifier: MIT */
/*
 * percpu_hier - hierarchical per-CPU counters, design (c) of the seed thread:
 * every update writes the caller's own slot of the node and of every
 * ancestor, with no atomic read-modify-write; every read sums the node's
 * slots over all CPUs.  Updates never bounce a line; reads cost nr_cpus
 * loads, each of a line some other CPU owns.
 */
#ifndef CTR_PERCPU_HIER_H
#define CTR_PERCPU_HIER_H

#include "ctr_internal.h"

struct ctr_percpu_hier {
	struct ctr_tree base;		/* common part, read-only */
	/*
	 * area[cpu] is that CPU's slots, [node * nr_stats + stat], allocated
	 * on its own and padded to whole lines, so no line holds two CPUs'
	 * slots (and each area can later live on its owner's NUMA node).
	 * Only the owner writes a slot; readers load it.
	 */
	_Atomic int64_t **area;
	/*
	 * off[node]: the word offsets (n * nr_stats) of node and its ancestors,
	 * leaf first, depth[node] of them: the update's walk is a list of
	 * stores through one base, no index chased or multiplied per level.
	 */
	const int *const *off;
	int *off_store;			/* where those lists live */
};

extern const struct ctr_algo ctr_algo_percpu_hier;

static inline void ctr_percpu_hier_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	struct ctr_percpu_hier *p = ctr_container_of(t, struct ctr_percpu_hier, base);
	_Atomic int64_t *const slots = p->area[cpu] + stat;
	const int *const off = p->off[node];
	const int d = t->depth[node];

	/*
	 * Load and store, not fetch_add: the slot has one writer (the slot's
	 * owner, which runs with "preemption off"), so no update can be lost;
	 * the store only has to be untorn for readers (ctr_owner_add).
	 */
	for (int k = 0; k < d; k++)
		ctr_owner_add(slots + off[k], delta);
}
/*
 * A prepared update (CTR_REF_WRAP in ctr_internal.h): the node's own slot
 * as an address, then the ancestors' offsets.  percpu_hier has no call to
 * hoist past; what the ref saves is the walk's setup and, at one level, the
 * walk itself: the update is then one add to a register-held address and a
 * compare, as close to a plain add as an update that may have ancestors
 * gets.
 */
struct ctr_percpu_hier_ref {
	_Atomic int64_t *slots;		/* the owner's slots of stat: area[cpu] + stat */
	_Atomic int64_t *own;		/* ... of the node itself: slots + off[node][0] */
	const int *off;			/* the node's offsets list (off[node]), leaf first */
	int depth;			/* its length: levels from the node to the root */
};

static inline struct ctr_percpu_hier_ref ctr_percpu_hier_ref(struct ctr_tree *t, int cpu, int node, int stat)
{
	struct ctr_percpu_hier *p = ctr_container_of(t, struct ctr_percpu_hier, base);
	_Atomic int64_t *const slots = p->area[cpu] + stat;

	return (struct ctr_percpu_hier_ref){ slots, slots + p->off[node][0], p->off[node], t->depth[node] };
}

static inline __attribute__((always_inline)) void
ctr_percpu_hier_ref_add(const struct ctr_percpu_hier_ref *h, int64_t delta)
{
	ctr_owner_add(h->own, delta);
	for (int k = 1; k < h->depth; k++)
		ctr_owner_add(h->slots + h->off[k], delta);
}

/* Sum of (node, stat) over all CPUs: not a snapshot while updates run. */
static inline int64_t ctr_percpu_hier_read(struct ctr_tree *t, int node, int stat)
{
	struct ctr_percpu_hier *p = ctr_container_of(t, struct ctr_percpu_hier, base);
	_Atomic int64_t *const *area = p->area;
	const size_t off = (size_t)node * t->nr_stats + stat;
	const int nr = t->nr_cpus;
	int64_t sum = 0;

	/* Locals: an atomic load may be taken to touch any memory, and would reload them per slot. */
	for (int cpu = 0; cpu < nr; cpu++)
		sum += atomic_load_explicit(&area[cpu][off], memory_order_relaxed);
	return sum;
}

/*
 * Check-then-act, as obj_cgroup_may_zswap() does: read every level, then
 * charge if all of them had room.  Under concurrency a level can end over
 * its limit.  Bound, for charges only (no concurrent uncharge): slots only
 * grow, so the latest-starting admitted check saw every charge completed
 * before it began; the charges it missed were in flight, at most one per
 * other thread.  Hence value <= limit + (T - 1) * max_delta with T threads
 * charging, even at quiescence (tests/mt/test_mt_charge.c holds it to that).
 * Concurrent uncharges make the non-snapshot sum lag in both directions, so
 * with them a check can also refuse a charge that would have fit.
 */
static inline int ctr_percpu_hier_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	ctr_for_each_ancestor(t, n, node)
		if (ctr_limit(t, n) != CTR_NO_LIMIT &&
		    !ctr_within_limit(ctr_percpu_hier_read(t, n, 0), delta, ctr_limit(t, n)))
			return 0;
	ctr_percpu_hier_add(t, cpu, node, 0, delta);
	return 1;
}

#endif /* CTR_PERCPU_HIER_H */
