/* SPDX-License-Identifier: MIT */
/*
 * atomic_tree_stock - page counters (atomic_tree, design (d)) behind a
 * per-CPU charge stock, as memcg's consume_stock()/refill_stock() keep one
 * in front of mm/page_counter.c, and as the seed thread proposes pushing it
 * down into the page counter itself.
 *
 * Charge (stat 0) of delta from CPU c at node n:
 *  1. consume: if c's stock holds >= delta units of n, take them: no shared
 *     line is touched;
 *  2. otherwise charge max(delta, batch) through the tree (every level up to
 *     the root, each limited level by compare-and-swap against its limit) and
 *     put the surplus in c's stock for n (refill);
 *  3. if a level refuses, retry with delta alone, then drain every CPU's
 *     stocked units of the nodes under the refusing level (the kernel's
 *     drain_all_stock: those units are charged there but used by no one) and
 *     retry, unless there were none (then the refusal is real); each round
 *     drains a strictly higher level, so it ends within max_depth rounds,
 *     and alone it is exact: a charge is refused only if the true value +
 *     delta exceeds some limit.
 * Uncharge (a negative delta on stat 0, from ctr_add or ctr_try_charge):
 * refill c's stock for n, and once a slot holds more than a batch drain it
 * back through the tree (uncharges bigger than a batch go straight to the
 * counters: the stock could not keep them).
 *
 * ctr_add on stat 0: a negative delta is the uncharge above; a positive one
 * is a forced charge (page_counter_charge, as for __GFP_NOFAIL): it consumes
 * from the stock if the stock covers it, else adds delta at every level with
 * no limit check (so it may push a level over its limit, which only
 * ctr_try_charge promises to respect; units already stocked stay
 * consumable, as in the kernel).  ctr_add on any other stat is atomic_tree's
 * plain walk: stocks and limits concern the charged stat only.
 *
 * Values: the page counter of a level counts the units charged below it
 * plus the units stocked below it, so the true value is the counter minus
 * every CPU's stocked units of nodes in the subtree, and that is what
 * ctr_read and ctr_read_exact return (exact at rest: error bound 0).
 * Stock units are never created or destroyed, only moved between a stock
 * slot and the counters under that stock's lock, so draining loses nothing.
 *
 * A read during charges is not a snapshot: it loads the page counter V at
 * t0, then each stock slot at its own later time.  Its bound, per CPU c
 * that charges under the node meanwhile, using k stock slots for nodes
 * there (k = 1 for one node per CPU, 7 at most): within (2 + 2k) x batch of
 * a value the node held during the read.  Proof: the read is the sum over
 * CPUs of C_c(t0) - s_c(t_c), C_c the units c charged through the counter,
 * s_c its stocked units.  (1) C_c(t0) - s_c(t0) differs from what c has
 * completed by -2 batch .. +batch: a miss charges a batch to the counter
 * before the refill stocks the surplus (+batch), and an uncharge refill
 * past a batch drains by first uncharging the counter, then zeroing the
 * slot, which held at most 2 x batch (-2 batch).  (2) Each slot holds 0 ..
 * 2 x batch at any instant, so s(t_c) - s(t0) is within +-2 batch per slot,
 * whatever node it was reassigned to.  So 4 x batch per CPU with one node
 * (the harness's workloads).  tests/mt/test_mt_stock_read.c holds reads of a
 * root and of a leaf to it with 12 CPUs swinging their leaves; it measures
 * leaf errors over one batch (72 with batch 64), so "a batch in transit",
 * which docs/sweeps.md used to say, was not a bound.
 *
 * Limits: a limited level's counter only grows by a compare-and-swap that
 * checks it against the limit (the kernel's page_counter_try_charge adds
 * first and backs off, which lets a counter sit over its limit for a moment;
 * the CAS never does, at the price of retries under contention), and the
 * true value is at most the counter, so no level's value or counter exceeds
 * its limit, ever, unless a forced ctr_add put it there.
 *
 * The stock: up to CTR_STOCK_NR (the kernel's NR_MEMCG_STOCK, 7) nodes per
 * CPU, each slot holding at most batch units at rest.  A CPU's stock is
 * guarded by its own lock, which the owner takes on every consume and
 * refill (uncontended, one xchg on a line only it writes) and a drainer of
 * a failed charge takes from another CPU: the kernel gets the owner's side
 * for free by disabling interrupts and drains remote stocks by running work
 * on each CPU, which user space can't, so this is the kernel's PREEMPT_RT
 * arrangement (local_lock is a per-CPU spinlock there).
 *
 * What switching nodes costs.  A CPU cycling among up to 7 nodes hits its
 * stock every time; past 7 a charge to a node evicted since its last use
 * misses, and a miss costs a batch charge through the tree (max_depth atomic
 * RMWs on lines other CPUs share) plus the drain of a random victim slot
 * (another walk).  Measured on this 2-vCPU guest, one CPU (or two, on
 * disjoint leaves under a shared chain) charging then uncharging 1 unit,
 * cycling over k leaves, ns per charge+uncharge, depth 2 / depth 8:
 *   k = 1..7    14-16 / 14-16 (1 or 2 CPUs: every op a stock hit)
 *   k = 8       26 / 44 alone, 71 / 317 with 2 CPUs (random eviction keeps
 *               part of the cycle stocked; round-robin measured 51 / 123
 *               and 103 / 817: it evicts exactly the next node)
 *   k = 16      47 / 118 alone, 161 / 825 with 2 CPUs (nearly every op misses)
 *   atomic_tree 24 / 94 alone, 60-84 / 930-1100 with 2 CPUs, for any k
 * So a switch that misses costs about one atomic_tree charge+uncharge (it
 * does the same two walks, plus the stock's lock and scan): beyond 7 nodes
 * per CPU the stock stops paying, and below it it removes the walk entirely.
 * ctrbench's charge workload charges one page (4096 units) against a batch
 * of 64 pages (BENCH_CHARGE_BATCH), so it goes through the stock as the
 * kernel's zswap charges do; one worker per slot never switches nodes, so
 * the switch cost above shows only where workers share slots.
 */
#ifndef CTR_ATOMIC_TREE_STOCK_H
#define CTR_ATOMIC_TREE_STOCK_H

#include "ctr_internal.h"
#include "preorder.h"

#define CTR_STOCK_NR 7				/* NR_MEMCG_STOCK: nodes one CPU's stock holds */
#define CTR_ATOMIC_TREE_STOCK_DEFAULT_BATCH 64	/* MEMCG_CHARGE_BATCH */

/* One CPU's stock, in that CPU's own region (ctr_alloc_slot_area); others only read it (ctr_read) or drain it. */
struct ctr_stock {
	_Atomic int lock;			/* 0 free, 1 held: the owner on consume/refill, a drainer */
	uint32_t evict;				/* xorshift32 state picking the slot to evict; never 0; under lock */
	_Atomic int node[CTR_STOCK_NR];		/* node of slot i's units (-1: never used); under lock, read locklessly */
	_Atomic int64_t nr[CTR_STOCK_NR];	/* units charged at node[i] and its ancestors, held for this CPU;
						 * 0 = slot free; <= batch at rest; under lock, read locklessly */
};

struct ctr_atomic_tree_stock {
	struct ctr_tree base;		/* common part, read-only */
	int64_t batch;			/* units a stock miss charges through the tree; read-only */
	size_t stride;			/* int64 words per node: nr_stats rounded up to a line */
	int *pos;			/* [node] preorder index: m under n iff pos[n] <= pos[m] < pos[n] + size[n] */
	int *size;			/* [node] nodes in its subtree */
	_Atomic int64_t *val;		/* [node * stride + stat] page counters; stat 0 includes stocked units */
	struct ctr_stock **stock;	/* [cpu] */
	_Atomic uint64_t drains __ctr_aligned;	/* drains that took units back (for tests and notes);
						 * own line: only the failure path writes it */
};

extern const struct ctr_algo ctr_algo_atomic_tree_stock;

/* Out of line: wait for a stock lock somebody else holds (a drainer, or the owner seen by a drainer). */
void __ctr_stock_lock_slow(struct ctr_stock *s);
/* Out of line: a charge the tree refused once: retry exact, drain the stocks under the refusing level, retry. */
int __ctr_atomic_tree_stock_charge_slow(struct ctr_atomic_tree_stock *a, int node, int64_t delta,
					int failed, int tried_exact);
/* Drain every CPU's stocked units of nodes under node back through the tree; returns the units drained. */
int64_t __ctr_atomic_tree_stock_drain(struct ctr_atomic_tree_stock *a, int node);

static inline void __ctr_stock_lock(struct ctr_stock *s)
{
	if (__builtin_expect(atomic_exchange_explicit(&s->lock, 1, memory_order_acquire), 0))
		__ctr_stock_lock_slow(s);
}

static inline void __ctr_stock_unlock(struct ctr_stock *s)
{
	atomic_store_explicit(&s->lock, 0, memory_order_release);
}

static inline _Atomic int64_t *__ctr_ats_word(struct ctr_atomic_tree_stock *a, int node, int stat)
{
	return &a->val[(size_t)node * a->stride + stat];
}

/* page_counter_charge / page_counter_uncharge: every level, no limit check. */
static inline void __ctr_ats_counter_add(struct ctr_atomic_tree_stock *a, int node, int stat, int64_t delta)
{
	ctr_for_each_ancestor(&a->base, n, node)
		atomic_fetch_add_explicit(__ctr_ats_word(a, n, stat), delta, memory_order_relaxed);
}

/*
 * page_counter_try_charge of nr > 0 units at node and every ancestor.
 * Returns -1 when charged, else the lowest level that refused, with nothing
 * changed (the levels below it are uncharged again).  A limited level grows
 * only by a CAS from a value v with v + nr <= limit, so it never exceeds its
 * limit, not even for a moment; unlimited levels take a plain atomic add.
 */
static inline int __ctr_ats_counter_try_charge(struct ctr_atomic_tree_stock *a, int node, int64_t nr)
{
	struct ctr_tree *t = &a->base;

	ctr_for_each_ancestor(t, n, node) {
		_Atomic int64_t *c = __ctr_ats_word(a, n, 0);
		const int64_t limit = ctr_limit(t, n);
		int64_t old;

		if (limit == CTR_NO_LIMIT) {
			atomic_fetch_add_explicit(c, nr, memory_order_relaxed);
			continue;
		}
		old = atomic_load_explicit(c, memory_order_relaxed);
		do {
			if (!ctr_within_limit(old, nr, limit)) {
				for (int m = node; m != n; m = t->parent[m])
					atomic_fetch_sub_explicit(__ctr_ats_word(a, m, 0), nr, memory_order_relaxed);
				return n;
			}
		} while (!atomic_compare_exchange_weak_explicit(c, &old, old + nr, memory_order_relaxed,
								memory_order_relaxed));
	}
	return -1;
}

/* Give slot i's units back to the tree (drain_stock); under s's lock. */
static inline void __ctr_ats_drain_slot(struct ctr_atomic_tree_stock *a, struct ctr_stock *s, int i)
{
	int64_t nr = atomic_load_explicit(&s->nr[i], memory_order_relaxed);

	if (!nr)
		return;
	__ctr_ats_counter_add(a, atomic_load_explicit(&s->node[i], memory_order_relaxed), 0, -nr);
	atomic_store_explicit(&s->nr[i], 0, memory_order_relaxed);
}

/* consume_stock: take nr units of node from this CPU's stock if it holds that many. */
static inline int __ctr_ats_consume(struct ctr_stock *s, int node, int64_t nr)
{
	int hit = 0;

	__ctr_stock_lock(s);
	for (int i = 0; i < CTR_STOCK_NR; i++) {
		if (atomic_load_explicit(&s->node[i], memory_order_relaxed) == node) {
			int64_t have = atomic_load_explicit(&s->nr[i], memory_order_relaxed);

			if (have >= nr) {
				atomic_store_explicit(&s->nr[i], have - nr, memory_order_relaxed);
				hit = 1;
			}
			break;	/* a node has at most one slot (refill reuses it) */
		}
	}
	__ctr_stock_unlock(s);
	return hit;
}

/*
 * refill_stock: put 0 < nr <= batch units of node (charged at node and its
 * ancestors) in this CPU's stock: node's own slot, else a free one, else
 * evict one at random, as the kernel does (get_random_u32_below): a
 * round-robin victim would be exactly the next node of a CPU cycling over 8,
 * missing on every switch; a random one keeps part of the cycle stocked.  A
 * slot past a batch is drained whole, so every slot holds at most batch
 * units at rest.
 */
static inline void __ctr_ats_refill(struct ctr_atomic_tree_stock *a, struct ctr_stock *s, int node, int64_t nr)
{
	int i, victim = -1;
	int64_t have;

	__ctr_stock_lock(s);
	for (i = 0; i < CTR_STOCK_NR; i++) {
		if (atomic_load_explicit(&s->node[i], memory_order_relaxed) == node)
			break;
		if (victim < 0 && !atomic_load_explicit(&s->nr[i], memory_order_relaxed))
			victim = i;
	}
	if (i == CTR_STOCK_NR) {
		if (victim < 0) {
			s->evict ^= s->evict << 13;
			s->evict ^= s->evict >> 17;
			s->evict ^= s->evict << 5;
			victim = (int)(s->evict % CTR_STOCK_NR);
			__ctr_ats_drain_slot(a, s, victim);
		}
		i = victim;
		atomic_store_explicit(&s->node[i], node, memory_order_relaxed);
	}
	have = atomic_load_explicit(&s->nr[i], memory_order_relaxed) + nr;
	atomic_store_explicit(&s->nr[i], have, memory_order_relaxed);
	if (have > a->batch)
		__ctr_ats_drain_slot(a, s, i);
	__ctr_stock_unlock(s);
}

static inline void ctr_atomic_tree_stock_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	struct ctr_atomic_tree_stock *a = ctr_container_of(t, struct ctr_atomic_tree_stock, base);

	if (stat != 0 || delta == 0) {
		if (delta)
			__ctr_ats_counter_add(a, node, stat, delta);
	} else if (delta < 0) {
		if (delta >= -a->batch)
			__ctr_ats_refill(a, a->stock[cpu], node, -delta);	/* uncharge into the stock */
		else
			__ctr_ats_counter_add(a, node, 0, delta);		/* too big to keep */
	} else if (delta > a->batch || !__ctr_ats_consume(a->stock[cpu], node, delta)) {
		__ctr_ats_counter_add(a, node, 0, delta);	/* forced charge, no limit check */
	}
}

/*
 * A prepared update (ctr_internal.h): the slot's stock (the kernel's
 * this_cpu_ptr(&memcg_stock)), the node and stat, the batch.  Add reloaded
 * stock[cpu] and batch after every stock lock and locked op.  The tree
 * walk of a forced charge is the rare path and takes the tree's lists.
 */
struct ctr_atomic_tree_stock_ref {
	struct ctr_atomic_tree_stock *a;	/* the tree */
	struct ctr_stock *stock;	/* a->stock[cpu] */
	int64_t batch;			/* a->batch */
	int node, stat;			/* what is updated */
};

static inline struct ctr_atomic_tree_stock_ref ctr_atomic_tree_stock_ref(struct ctr_tree *t, int cpu, int node,
									    int stat)
{
	struct ctr_atomic_tree_stock *a = ctr_container_of(t, struct ctr_atomic_tree_stock, base);

	return (struct ctr_atomic_tree_stock_ref){ a, a->stock[cpu], a->batch, node, stat };
}

static inline __attribute__((always_inline)) void
ctr_atomic_tree_stock_ref_add(const struct ctr_atomic_tree_stock_ref *r, int64_t delta)
{
	if (r->stat != 0 || delta == 0) {
		if (delta)
			__ctr_ats_counter_add(r->a, r->node, r->stat, delta);
	} else if (delta < 0) {
		if (delta >= -r->batch)
			__ctr_ats_refill(r->a, r->stock, r->node, -delta);	/* uncharge into the stock */
		else
			__ctr_ats_counter_add(r->a, r->node, 0, delta);	/* too big to keep */
	} else if (delta > r->batch || !__ctr_ats_consume(r->stock, r->node, delta)) {
		__ctr_ats_counter_add(r->a, r->node, 0, delta);	/* forced charge, no limit check */
	}
}

/* The true charged value: exact at rest, not a snapshot while charges move units. */
static inline int64_t ctr_atomic_tree_stock_read(struct ctr_tree *t, int node, int stat)
{
	struct ctr_atomic_tree_stock *a = ctr_container_of(t, struct ctr_atomic_tree_stock, base);
	int64_t v = atomic_load_explicit(__ctr_ats_word(a, node, stat), memory_order_relaxed);

	if (stat != 0)
		return v;
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		struct ctr_stock *s = a->stock[cpu];

		for (int i = 0; i < CTR_STOCK_NR; i++) {
			int64_t nr = atomic_load_explicit(&s->nr[i], memory_order_relaxed);
			int m = atomic_load_explicit(&s->node[i], memory_order_relaxed);

			/* m < 0 only in a racing read that saw a first refill's nr before its node */
			if (nr && m >= 0 && ctr_preorder_under(a->pos, a->size, m, node))
				v -= nr;
		}
	}
	return v;
}

static inline int ctr_atomic_tree_stock_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	struct ctr_atomic_tree_stock *a = ctr_container_of(t, struct ctr_atomic_tree_stock, base);
	int64_t batch;
	int failed;

	if (delta <= 0) {	/* a refund always fits */
		ctr_atomic_tree_stock_add(t, cpu, node, 0, delta);
		return 1;
	}
	if (delta <= a->batch && __ctr_ats_consume(a->stock[cpu], node, delta))
		return 1;
	batch = delta < a->batch ? a->batch : delta;
	failed = __ctr_ats_counter_try_charge(a, node, batch);
	if (__builtin_expect(failed >= 0, 0))
		return __ctr_atomic_tree_stock_charge_slow(a, node, delta, failed, batch == delta);
	if (batch > delta)
		__ctr_ats_refill(a, a->stock[cpu], node, batch - delta);
	return 1;
}

#endif /* CTR_ATOMIC_TREE_STOCK_H */
