/* SPDX-License-Identifier: MIT */
/*
 * percpu_counter - Linux's lib/percpu_counter.c, one counter per (node,
 * stat), and an update that walks the ancestors: at each level the caller's
 * s32 local count takes the delta, and once |local + delta| reaches the
 * batch the sum is folded into the level's shared count under that
 * counter's lock (percpu_counter_add_batch).  ctr_read is
 * percpu_counter_read (one load of the count, approximate); ctr_read_exact
 * is percpu_counter_sum (take the lock, add every CPU's local count).
 *
 * Error bound (returned by ctr_read_error_bound): nr_cpus x (batch - 1).
 * Proof.  An update stores a local count l(c, n) only when |l + delta| <
 * batch; otherwise it folds l + delta into count[n] and stores 0, both under
 * the lock.  So |l(c, n)| <= batch - 1 for every CPU c and node n whenever
 * no update is in progress.  Every delta added at or below n went into
 * exactly one of count[n] and some l(c, n) (the walk gives each level its
 * own local counts), so at rest exact(n) = count[n] + sum over c of l(c, n)
 * and |ctr_read(n) - exact(n)| <= nr_cpus x (batch - 1).  Attained: add
 * batch - 1 from every CPU at a leaf, and every level of its path reads 0
 * against nr_cpus x (batch - 1).  Unlike batched_percpu the bound does not
 * grow with the subtree, at the price of an ancestor walk over local counts.
 *
 * The kernel fast path is this_cpu_try_cmpxchg to be safe against
 * interrupts; with one writer per slot a load and a store do the same.  The
 * local counts are s32 as in the kernel, so the batch must fit one
 * (ctr_params.batch > INT32_MAX is EINVAL).
 */
#ifndef CTR_PERCPU_COUNTER_H
#define CTR_PERCPU_COUNTER_H

#include <pthread.h>

#include "ctr_internal.h"

/* The shared part of one struct percpu_counter: its lock and count, alone on a line. */
struct ctr_pcpu_count {
	pthread_mutex_t lock;		/* the kernel's raw spinlock: folds and sums; adaptive (spins, then sleeps) */
	_Atomic int64_t count;		/* folded total of the subtree; written under lock, read locklessly */
} __ctr_aligned;

struct ctr_percpu_counter {
	struct ctr_tree base;		/* common part, read-only */
	int32_t batch;			/* fold once |local| would reach it: max(32, 2 x nr_cpus) by default */
	struct ctr_pcpu_count *cnt;	/* [node * nr_stats + stat], one line each */
	/*
	 * local[cpu] is that CPU's s32 counts, [node * nr_stats + stat],
	 * allocated on its own and padded to whole lines (ctr_alloc_slot_area).
	 * Only the owner writes (locklessly, or zeroing under the counter's lock
	 * when it folds); sums load under the lock.
	 */
	_Atomic int32_t **local;
	struct ctr_offsets off;		/* off.of[node]: n * nr_stats for node and its ancestors (refs' walk) */
};

extern const struct ctr_algo ctr_algo_percpu_counter;

/* Out of line: fold local + delta into the count under the lock (the rare path). */
void __ctr_percpu_counter_fold(struct ctr_percpu_counter *p, _Atomic int32_t *local, size_t i, int64_t delta);
/* Out of line: percpu_counter_sum of counter i. */
int64_t __ctr_percpu_counter_sum(struct ctr_percpu_counter *p, size_t i);

static inline void ctr_percpu_counter_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	struct ctr_percpu_counter *p = ctr_container_of(t, struct ctr_percpu_counter, base);
	_Atomic int32_t *local = p->local[cpu];
	const int32_t batch = p->batch;

	ctr_for_each_ancestor(t, n, node) {
		size_t i = (size_t)n * t->nr_stats + stat;
		int64_t x = atomic_load_explicit(&local[i], memory_order_relaxed) + delta;

		if (__builtin_expect(x >= batch || x <= -batch, 0))
			__ctr_percpu_counter_fold(p, &local[i], i, delta);
		else
			atomic_store_explicit(&local[i], (int32_t)x, memory_order_relaxed);
	}
}

/*
 * A prepared update (ctr_internal.h): the node's own s32 count, the
 * ancestors' as offsets from the owner's counts of the stat, and the batch:
 * what this_cpu_add's fast path (percpu_counter_add_batch) has, the address
 * and the bound.  Add reloaded local[cpu], ancestors and nr_stats after
 * every possible fold (a call).  One level is a form of its own, which the
 * timed loop unswitches (bench/loops.c).
 */
struct ctr_percpu_counter_ref {
	struct ctr_percpu_counter *p;	/* for the fold */
	_Atomic int32_t *own;		/* the node's count: local[cpu] + off[0] + stat */
	_Atomic int32_t *local;		/* local[cpu] + stat: level k's is local[off[k]] */
	const int *off;			/* off.of[node], leaf first */
	int32_t batch;			/* p->batch */
	int depth;			/* levels from the node to the root */
	int stat;			/* for the fold's index, off[k] + stat */
};

static inline struct ctr_percpu_counter_ref ctr_percpu_counter_ref(struct ctr_tree *t, int cpu, int node, int stat)
{
	struct ctr_percpu_counter *p = ctr_container_of(t, struct ctr_percpu_counter, base);
	_Atomic int32_t *local = p->local[cpu] + stat;

	return (struct ctr_percpu_counter_ref){ p, local + p->off.of[node][0], local, p->off.of[node], p->batch,
						t->depth[node], stat };
}

#define CTR_REF_ONE_LEVEL_percpu_counter 1
static inline int ctr_percpu_counter_ref_one_level(const struct ctr_percpu_counter_ref *r)
{
	return r->depth == 1;
}

static inline __attribute__((always_inline)) void
__ctr_percpu_counter_ref_level(const struct ctr_percpu_counter_ref *r, _Atomic int32_t *c, int off, int64_t delta)
{
	int64_t x = atomic_load_explicit(c, memory_order_relaxed) + delta;

	if (__builtin_expect(x >= r->batch || x <= -r->batch, 0))
		__ctr_percpu_counter_fold(r->p, c, (size_t)off + r->stat, delta);
	else
		atomic_store_explicit(c, (int32_t)x, memory_order_relaxed);
}

static inline __attribute__((always_inline)) void
ctr_percpu_counter_ref_add(const struct ctr_percpu_counter_ref *r, int64_t delta)
{
	_Atomic int32_t *const local = r->local;

	__ctr_percpu_counter_ref_level(r, r->own, r->off[0], delta);
	for (const int *o = r->off + 1, *const end = r->off + r->depth; o < end; o++)
		__ctr_percpu_counter_ref_level(r, local + *o, *o, delta);
}

/* percpu_counter_read: the folded count, off by at most nr_cpus x (batch - 1) at rest. */
static inline int64_t ctr_percpu_counter_read(struct ctr_tree *t, int node, int stat)
{
	struct ctr_percpu_counter *p = ctr_container_of(t, struct ctr_percpu_counter, base);

	return atomic_load_explicit(&p->cnt[(size_t)node * t->nr_stats + stat].count, memory_order_relaxed);
}

/*
 * __percpu_counter_compare per level: the fast read decides when it is more
 * than the error bound E away from the limit, the locked sum otherwise.  So
 * alone every decision is exact; it is still check-then-act (sum, then add),
 * hence CTR_CHARGE_RACY.  With charges only (local counts and counts only
 * grow) a check that admits saw at least every charge completed before it,
 * so with T threads a level ends at most (T - 1) x max_delta over its limit.
 */
static inline int __ctr_percpu_counter_fits(struct ctr_percpu_counter *p, int n, int64_t delta)
{
	const int64_t limit = ctr_limit(&p->base, n), e = (int64_t)p->base.nr_cpus * (p->batch - 1);
	size_t i = (size_t)n * p->base.nr_stats;
	int64_t v = atomic_load_explicit(&p->cnt[i].count, memory_order_relaxed);

	if (limit == CTR_NO_LIMIT)
		return ctr_within_limit(v, delta, limit);
	if (v > INT64_MIN + e && v < INT64_MAX - e) {
		if (ctr_within_limit(v + e, delta, limit))
			return 1;
		if (!ctr_within_limit(v - e, delta, limit))
			return 0;
	}
	return ctr_within_limit(__ctr_percpu_counter_sum(p, i), delta, limit);
}

static inline int ctr_percpu_counter_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	struct ctr_percpu_counter *p = ctr_container_of(t, struct ctr_percpu_counter, base);

	ctr_for_each_ancestor(t, n, node)
		if (!__ctr_percpu_counter_fits(p, n, delta))
			return 0;
	ctr_percpu_counter_add(t, cpu, node, 0, delta);
	return 1;
}

#endif /* CTR_PERCPU_COUNTER_H */
