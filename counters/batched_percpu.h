/* SPDX-License-Identifier: MIT */
/*
 * batched_percpu - memcg's statistics before rstat, as commit 42a300353577
 * ("mm: memcontrol: fix recursive statistics correctness & scalability")
 * made them: each (node, stat) has a per-CPU delta; an update adds to the
 * caller's delta of that node only, and when the delta passes +-batch it is
 * added with an atomic to the node's shared total and to every ancestor's,
 * then reset.  ctr_read is one load of the total (fast, approximate);
 * ctr_read_exact adds every CPU's pending delta of every node in the subtree.
 *
 * Error bound (returned by ctr_read_error_bound): batch x nr_cpus x nr_nodes.
 * Proof.  A CPU's delta d(c, m) of node m is stored only by an update that
 * found |d + delta| <= batch (one that found more flushed it and stored 0),
 * so |d(c, m)| <= batch for every c and m whenever no update is in progress.
 * A flush adds the whole delta to total[a] of m and of every ancestor a in
 * one pass and then zeroes d(c, m), so at rest, for every node n,
 *   exact(n) = total[n] + sum over c, over m in subtree(n), of d(c, m),
 * hence |ctr_read(n) - exact(n)| <= batch x nr_cpus x |subtree(n)|, and the
 * root's subtree is the whole tree.  The bound is attained, so no smaller one
 * holds: add exactly +batch (or -batch) at every node from every CPU and
 * nothing flushes; the root then reads 0 against batch x nr_cpus x nr_nodes
 * (tests/unit/test_batched.c does exactly that).  The error grows with the number
 * of nodes below a reader: the reason memcg replaced this scheme with rstat.
 *
 * Layout: a CPU's deltas are indexed by preorder position, so the exact read
 * of a subtree scans one contiguous range per CPU.
 */
#ifndef CTR_BATCHED_PERCPU_H
#define CTR_BATCHED_PERCPU_H

#include "ctr_internal.h"

#define CTR_BATCHED_PERCPU_DEFAULT_BATCH 32	/* MEMCG_CHARGE_BATCH at the time of 42a300353577 */

struct ctr_batched_percpu {
	struct ctr_tree base;		/* common part, read-only */
	int64_t batch;			/* a CPU's |delta| may reach batch; past it, it is flushed; read-only */
	size_t stride;			/* int64 words per node in total[]: nr_stats rounded up to a line */
	int *pos;			/* [node] preorder index: subtree(n) is pos[n] .. pos[n] + size[n] - 1 */
	int *size;			/* [node] nodes in its subtree, itself included; read-only */
	_Atomic int64_t *total;		/* [node * stride + stat] flushed deltas of the subtree; each node starts a line;
					 * every flush of a descendant RMWs it */
	/*
	 * delta[cpu] is that CPU's pending deltas, [pos[node] * nr_stats +
	 * stat], allocated on its own (ctr_alloc_slot_area) and padded to
	 * whole lines, so no line holds two CPUs' deltas.  Only the owner
	 * writes; exact reads load.
	 */
	_Atomic int64_t **delta;
};

extern const struct ctr_algo ctr_algo_batched_percpu;

static inline void ctr_batched_percpu_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	struct ctr_batched_percpu *b = ctr_container_of(t, struct ctr_batched_percpu, base);
	_Atomic int64_t *d = &b->delta[cpu][(size_t)b->pos[node] * t->nr_stats + stat];
	int64_t x = atomic_load_explicit(d, memory_order_relaxed) + delta;

	/*
	 * One writer per delta (the slot's owner), so load and store, no RMW;
	 * relaxed atomics only keep the store untorn for exact readers.  The
	 * flush adds before it zeroes, so a concurrent exact read can count a
	 * flushing delta twice, never lose it; at rest it is exact.
	 */
	if (__builtin_expect(x > b->batch || x < -b->batch, 0)) {
		ctr_for_each_ancestor(t, n, node)
			atomic_fetch_add_explicit(&b->total[(size_t)n * b->stride + stat], x,
						  memory_order_relaxed);
		x = 0;
	}
	atomic_store_explicit(d, x, memory_order_relaxed);
}

/*
 * A prepared update (ctr_internal.h): the slot's pending delta and the batch,
 * what the kernel's __mod_memcg_state fast path has (the per-CPU address
 * and MEMCG_CHARGE_BATCH); the flush's walk is the rare path and takes the
 * tree's lists.  Add reloaded delta[cpu], pos[node], nr_stats and batch after
 * every possible flush (its locked adds are compiler barriers).
 */
struct ctr_batched_percpu_ref {
	struct ctr_batched_percpu *b;	/* for the flush */
	_Atomic int64_t *d;		/* the slot's pending delta of (node, stat) */
	int64_t batch;			/* b->batch */
	int node, stat;			/* for the flush */
};

static inline struct ctr_batched_percpu_ref ctr_batched_percpu_ref(struct ctr_tree *t, int cpu, int node, int stat)
{
	struct ctr_batched_percpu *b = ctr_container_of(t, struct ctr_batched_percpu, base);

	return (struct ctr_batched_percpu_ref){ b, &b->delta[cpu][(size_t)b->pos[node] * t->nr_stats + stat],
						b->batch, node, stat };
}

static inline __attribute__((always_inline)) void
ctr_batched_percpu_ref_add(const struct ctr_batched_percpu_ref *r, int64_t delta)
{
	int64_t x = atomic_load_explicit(r->d, memory_order_relaxed) + delta;

	/* as add: one writer, the flush adds before it zeroes */
	if (__builtin_expect(x > r->batch || x < -r->batch, 0)) {
		struct ctr_batched_percpu *b = r->b;

		ctr_for_each_ancestor(&b->base, n, r->node)
			atomic_fetch_add_explicit(&b->total[(size_t)n * b->stride + r->stat], x,
						  memory_order_relaxed);
		x = 0;
	}
	atomic_store_explicit(r->d, x, memory_order_relaxed);
}

/* The flushed total: off by at most the pending deltas below the node (see the bound above). */
static inline int64_t ctr_batched_percpu_read(struct ctr_tree *t, int node, int stat)
{
	struct ctr_batched_percpu *b = ctr_container_of(t, struct ctr_batched_percpu, base);

	return atomic_load_explicit(&b->total[(size_t)node * b->stride + stat], memory_order_relaxed);
}

/*
 * Check-then-act against the fast read, as a charge against a memcg stat
 * would be: admit if total + delta <= limit at every level, then add.
 * Alone, a decision is wrong only within the error bound E of a limit (a
 * level can end over it by at most E).  Concurrently, with charges only
 * (every delta >= 0, so totals and pending deltas only grow), the admitted
 * check that started last saw a total of at least what was completed before
 * it, minus E still pending, and missed at most one in-flight charge per
 * other thread: a level ends at most E + (T - 1) x max_delta over its limit.
 */
static inline int ctr_batched_percpu_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	ctr_for_each_ancestor(t, n, node)
		if (ctr_limit(t, n) != CTR_NO_LIMIT &&
		    !ctr_within_limit(ctr_batched_percpu_read(t, n, 0), delta, ctr_limit(t, n)))
			return 0;
	ctr_batched_percpu_add(t, cpu, node, 0, delta);
	return 1;
}

#endif /* CTR_BATCHED_PERCPU_H */
