/* SPDX-License-Identifier: MIT */
/*
 * percpu_tree - Mathieu Desnoyers' hierarchical per-CPU counter tree
 * (lib/percpu_counter_tree.c, Documentation/core-api/percpu-counter-tree.rst,
 * mm-unstable, February 2026, for mm RSS), one counter tree per (node, stat)
 * and an update that walks the ancestors, as percpu_hier does.
 *
 * One counter tree.  Level 0 is a per-CPU 64-bit count, written only by its
 * CPU.  Above it sit levels of shared "items" (one cache line each) and a
 * root item.  Every count c is split as floor(c / B) x B plus a residual in
 * [0, B): an update that moves level 0 across a multiple of the batch B0 (a
 * power of two) hands the change of the floor part, the "carry", to its
 * CPU's item of level 1 with a relaxed fetch_add; that item does the same
 * with its own batch B1 = B0 << a1 towards level 2, and so on up to the
 * root, which only accumulates.  ctr_read is the approximate read: one load
 * of the root.  ctr_read_exact is the precise sum of level 0 over all CPUs.
 *
 * The shape (ours, from the kernel's rule): k = ceil(log2(nr_cpus)) bits of
 * CPU number are spread over min(k, 3) levels (4 for k in 10..12, 5 above),
 * the larger arities first (k = 9: 8 CPUs per level-1 item, 8 level-1 items
 * per level-2 item, 8 of those under the root), batch doubling by the arity
 * each level: B_j = B_{j-1} << a_j.  One CPU (k = 0): no item, the read is
 * CPU 0's level 0 and exact.
 *
 * Error bound (ctr_read_error_bound).  At rest each level-0 count keeps a
 * residual in [0, B0 - 1], and each item of level j >= 1, which only ever
 * receives multiples of B_{j-1}, keeps one in {0, B_{j-1}, ..., B_j -
 * B_{j-1}}; the root gets everything else.  So exact - read is the sum of
 * the residuals:
 *     0 <= exact - read <= nr_cpus x (B0 - 1) + sum over items used of (B_j - B_{j-1})
 * (an item is "used" when some CPU carries into it).  The read is never above
 * the exact value at rest.  The bound is reached: from a fresh tree, add
 * B_j - B_{j-1} from one CPU under each item (a multiple of every batch
 * below it, so it passes the lower levels untouched and stops in that item),
 * then B0 - 1 from every CPU; tests/harness/test_percpu_tree.c does it and finds the
 * bound exactly, at the node and every ancestor.  The kernel states the
 * looser approx_accuracy_range: under = B0 x M, over = (B0 - 1) x M with M =
 * sum over levels l < nr_levels of (B_l / B0) x items_l, counting 2^k CPUs
 * (8 CPUs, B0 = 32: under 768, where the sum of residuals cannot pass 504).
 * In flight the error is larger, by at most T + |delta| per update in
 * progress, T the largest batch a carry can move (the top level's,
 * ctr_percpu_tree_transit_max): every stored count keeps its residual in
 * the range above at every instant, and an update has at most one carry in
 * transit between two levels.  Not just |delta| (what this comment said,
 * and the kernel's "bounded by the number of updaters and their increment
 * size" suggests): while CPU a's carry of B1 is in transit from item X to
 * the root, CPU c, which shares X, can refill X's residual to B1 - B0 and
 * its own to B0 - 1, so exact - read reaches 2 x B1 - 1 against the bound
 * at rest of B1 + B0 - 2 for the two.  Measured: tests/harness/test_mt_bench.c saw
 * 428 with 5 updaters against 411 at rest + 5 x |delta|, on 2 CPUs under load.
 *
 * Which item a CPU carries into, options=order=...:
 *   strided   (default) the kernel's: the level-j item of CPU c is
 *             c & (items_j - 1).  Checked against the current source
 *             (linux-mm and linux-next lib/percpu_counter_tree.c,
 *             percpu_counter_tree_add_slowpath(), fetched Dec 2026): it is
 *             still `item[cpu & (level_items - 1)]` at every level, with
 *             raw_smp_processor_id() and n-ary levels; the claim holds.  With
 *             Linux's numbering (consecutive CPUs in one L3) an item gathers
 *             CPUs items_j apart: on 384 CPUs (24 L3s of 16) each level-1
 *             item has 6 CPUs of 6 different L3s on both packages.
 *   topology  from the slot-to-L3 map the harness passes (ctr_params.slot_l3):
 *             the slots of each L3, in slot order, fill level-1 items of
 *             2^a1 slots, so no item has slots of two L3s and its line stays
 *             in one CCX; higher levels group consecutive items.  An L3 whose
 *             slot count is not a multiple of 2^a1 gets one partly filled
 *             item, so there can be more items than strided (the bound counts
 *             them).  Without a map, slots 0, 1, ... are taken in order, as
 *             if consecutive slots shared an L3.
 * options=read=approx (default) | precise: ctr_read is the one-load root
 * read, or the precise level-0 sum (bound 0), so that the readers workload
 * can time both.
 *
 * The kernel's level-0 add is this_cpu_add_return (safe against interrupts);
 * with one writer per slot a load and a store do the same.  Charging is
 * check-then-act on the precise sums (CTR_CHARGE_RACY, percpu_hier's bound
 * (T - 1) x max_delta): the approximate fast path of the kernel's
 * precise_compare_value would let a carry in flight widen that bound.
 */
#ifndef CTR_PERCPU_TREE_H
#define CTR_PERCPU_TREE_H

#include "ctr_internal.h"

#define CTR_PTREE_DEFAULT_BATCH 32	/* the kernel's documented example BATCH(level 0) */
#define CTR_PTREE_MAX_LEVELS 5		/* arity steps, as the kernel's MAX_NR_LEVELS */

/* One item: a carry count of one level, alone on a line (the kernel's ____cacheline_aligned_in_smp). */
struct ctr_ptree_item {
	_Atomic int64_t count;		/* carries received (multiples of the level below's batch); relaxed RMW */
} __ctr_aligned;

struct ctr_percpu_tree {
	struct ctr_tree base;		/* common part, read-only */
	int order_topology;		/* options=order=topology */
	int read_precise;		/* options=read=precise */
	int64_t batch;			/* B0, a power of two >= 2 */
	int nr_levels;			/* item levels below the root (the kernel's nr_levels - 1); 0: one CPU */
	int nr_items;			/* items per counter tree, root included (0 with one CPU) */
	int level_shift[CTR_PTREE_MAX_LEVELS];	/* log2 of B_j, the batch of level j (0: level 0) */
	int level_items[CTR_PTREE_MAX_LEVELS];	/* items of level j >= 1 (level 0: nr_cpus) */
	int level_base[CTR_PTREE_MAX_LEVELS];	/* index of level j's first item in a counter's items */
	int *item_of;			/* [cpu * nr_levels + (j - 1)]: CPU's item at level j, an index into a
					 * counter's items; read-only after init */
	int64_t bound;			/* ctr_read_error_bound (read=approx) */
	struct ctr_ptree_item *items;	/* [(node * nr_stats + stat) * nr_items + i]; the root is the last */
	/*
	 * area[cpu] is that CPU's level-0 counts, [node * nr_stats + stat],
	 * allocated on its own and padded to whole lines (ctr_alloc_slot_area).
	 * Only the owner writes; precise reads load them.
	 */
	_Atomic int64_t **area;
	struct ctr_offsets off;		/* off.of[node]: n * nr_stats for node and its ancestors (refs' walk) */
};

extern const struct ctr_algo ctr_algo_percpu_tree;

/* Out of line: carry inc (a nonzero multiple of B0) from cpu up counter i's items. */
void __ctr_percpu_tree_carry(struct ctr_percpu_tree *p, int cpu, size_t i, int64_t inc);
/* Out of line: the precise sum of counter i's level 0. */
int64_t __ctr_percpu_tree_sum(struct ctr_percpu_tree *p, size_t i);

/*
 * The change of floor(v / 2^shift) x 2^shift from old to new, in wrapping
 * arithmetic (level-0 counts may wrap; only differences matter): the carry.
 */
static inline int64_t __ctr_ptree_floor_diff(uint64_t old, uint64_t new, int shift)
{
	const uint64_t mask = ~(((uint64_t)1 << shift) - 1);

	return (int64_t)((new & mask) - (old & mask));
}

static inline void ctr_percpu_tree_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	struct ctr_percpu_tree *p = ctr_container_of(t, struct ctr_percpu_tree, base);
	_Atomic int64_t *lvl0 = p->area[cpu];
	const int shift = p->level_shift[0], ns = t->nr_stats;

	ctr_for_each_ancestor(t, n, node) {
		size_t i = (size_t)n * ns + stat;
		uint64_t old = (uint64_t)atomic_load_explicit(&lvl0[i], memory_order_relaxed);
		uint64_t new = old + (uint64_t)delta;
		int64_t carry;

		atomic_store_explicit(&lvl0[i], (int64_t)new, memory_order_relaxed);
		carry = __ctr_ptree_floor_diff(old, new, shift);
		if (__builtin_expect(carry != 0 && p->nr_items, 0))
			__ctr_percpu_tree_carry(p, cpu, i, carry);
	}
}

/*
 * A prepared update (ctr_internal.h): the slot addresses (the node's own
 * level-0 count, the ancestors' as offsets from the owner's counts of the
 * stat) and the batch mask, 0 when there is no item to carry into (one
 * CPU), so the fast path's test is one xor and one and of the count before
 * and after, and the carry is computed only when taken.  Add instead
 * reloaded five tree fields after each update (the carry's call) and
 * multiplied for the slot: 3.8 ns at chain:1, 5x percpu_hier (issue 28).
 * The level-0 add is a volatile load and store (ctr_owner_fetch_add), not a
 * relaxed atomic store, which GCC takes as a write to any memory.  One level
 * is a form of its own, which the timed loop unswitches (bench/loops.c).
 */
struct ctr_percpu_tree_ref {
	struct ctr_percpu_tree *p;	/* for the carry */
	_Atomic int64_t *own;		/* the node's level-0 count: area[cpu] + off[0] + stat */
	_Atomic int64_t *slots;		/* area[cpu] + stat: level k's count is slots[off[k]] */
	const int *off;			/* off.of[node], leaf first */
	uint64_t mask;			/* ~(B0 - 1), or 0 with no items: a carry iff (old ^ new) & mask */
	int depth;			/* levels from the node to the root */
	int cpu, stat;			/* for the carry: the slot, and i = off[k] + stat */
};

static inline struct ctr_percpu_tree_ref ctr_percpu_tree_ref(struct ctr_tree *t, int cpu, int node, int stat)
{
	struct ctr_percpu_tree *p = ctr_container_of(t, struct ctr_percpu_tree, base);
	_Atomic int64_t *slots = p->area[cpu] + stat;
	uint64_t mask = p->nr_items ? ~(((uint64_t)1 << p->level_shift[0]) - 1) : 0;

	return (struct ctr_percpu_tree_ref){ p, slots + p->off.of[node][0], slots, p->off.of[node], mask,
					     t->depth[node], cpu, stat };
}

#define CTR_REF_ONE_LEVEL_percpu_tree 1
static inline int ctr_percpu_tree_ref_one_level(const struct ctr_percpu_tree_ref *r)
{
	return r->depth == 1;
}

/* One level's count: add, and carry what crossed a multiple of B0 (the rare path). */
static inline __attribute__((always_inline)) void
__ctr_percpu_tree_ref_level(const struct ctr_percpu_tree_ref *r, _Atomic int64_t *x, int64_t delta)
{
	const uint64_t old = (uint64_t)ctr_owner_fetch_add(x, delta), new = old + (uint64_t)delta;

	/* the counter's index, (x - area[cpu]), only on the carry's path */
	if (__builtin_expect(((old ^ new) & r->mask) != 0, 0))
		__ctr_percpu_tree_carry(r->p, r->cpu, (size_t)(x - r->slots) + r->stat,
					(int64_t)((new & r->mask) - (old & r->mask)));
}

static inline __attribute__((always_inline)) void
ctr_percpu_tree_ref_add(const struct ctr_percpu_tree_ref *r, int64_t delta)
{
	_Atomic int64_t *const slots = r->slots;

	__ctr_percpu_tree_ref_level(r, r->own, delta);
	for (const int *o = r->off + 1, *const end = r->off + r->depth; o < end; o++)
		__ctr_percpu_tree_ref_level(r, slots + *o, delta);
}

/* The approximate sum: one load of the root (or the precise sum with read=precise). */
static inline int64_t ctr_percpu_tree_read(struct ctr_tree *t, int node, int stat)
{
	struct ctr_percpu_tree *p = ctr_container_of(t, struct ctr_percpu_tree, base);
	size_t i = (size_t)node * t->nr_stats + stat;

	if (p->read_precise || !p->nr_items)
		return __ctr_percpu_tree_sum(p, i);
	return atomic_load_explicit(&p->items[i * p->nr_items + p->nr_items - 1].count, memory_order_relaxed);
}

/* Check-then-act on the precise sums, as percpu_hier (see the top). */
static inline int ctr_percpu_tree_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	struct ctr_percpu_tree *p = ctr_container_of(t, struct ctr_percpu_tree, base);

	ctr_for_each_ancestor(t, n, node)
		if (ctr_limit(t, n) != CTR_NO_LIMIT &&
		    !ctr_within_limit(__ctr_percpu_tree_sum(p, (size_t)n * t->nr_stats), delta, ctr_limit(t, n)))
			return 0;
	ctr_percpu_tree_add(t, cpu, node, 0, delta);
	return 1;
}

/* For tests: the largest carry one update can have in transit (the in-flight bound above), 0 with one CPU. */
int64_t ctr_percpu_tree_transit_max(const struct ctr_tree *t);

/* For tests and tables: the item of level j (1..nr_levels) that cpu carries into, -1 if out of range. */
int ctr_percpu_tree_item_of(const struct ctr_tree *t, int cpu, int level);

#endif /* CTR_PERCPU_TREE_H */
