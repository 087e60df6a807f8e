/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "atomic_tree_stock.h"

/*
 * Spin a little, then yield: a holder can be preempted (16 threads on 2
 * CPUs in the tests), which the kernel's irq-off holder never is.
 */
void __ctr_stock_lock_slow(struct ctr_stock *s)
{
	for (;;) {
		for (int spins = 0; atomic_load_explicit(&s->lock, memory_order_relaxed); spins++) {
			if (spins < 128) {
				ctr_cpu_relax();
			} else {
				sched_yield();
				spins = 0;
			}
		}
		if (!atomic_exchange_explicit(&s->lock, 1, memory_order_acquire))
			return;
	}
}

/* Slot i of s holds units of a node under node: a lockless look, as drain_all_stock takes one. */
static int stock_holds_under(struct ctr_atomic_tree_stock *a, struct ctr_stock *s, int i, int node)
{
	int m = atomic_load_explicit(&s->node[i], memory_order_relaxed);

	return atomic_load_explicit(&s->nr[i], memory_order_relaxed) && m >= 0 &&
	       ctr_preorder_under(a->pos, a->size, m, node);
}

/*
 * drain_all_stock: only the stocks that hold units under node are locked
 * (the kernel likewise looks at each CPU's cached memcgs without a lock and
 * schedules work only where one is under the limit being hit), so a failed
 * charge next to idle stocks costs a scan of lines nobody writes, not a
 * bounce of every CPU's stock line.  Units refilled after the look are not
 * drained: the caller's retry may then fail, as it may in the kernel.
 */
int64_t __ctr_atomic_tree_stock_drain(struct ctr_atomic_tree_stock *a, int node)
{
	int64_t drained = 0;

	for (int cpu = 0; cpu < a->base.nr_cpus; cpu++) {
		struct ctr_stock *s = a->stock[cpu];
		int any = 0;

		for (int i = 0; i < CTR_STOCK_NR && !any; i++)
			any = stock_holds_under(a, s, i, node);
		if (!any)
			continue;
		__ctr_stock_lock(s);
		for (int i = 0; i < CTR_STOCK_NR; i++) {
			if (stock_holds_under(a, s, i, node)) {
				drained += atomic_load_explicit(&s->nr[i], memory_order_relaxed);
				__ctr_ats_drain_slot(a, s, i);
			}
		}
		__ctr_stock_unlock(s);
	}
	if (drained)
		atomic_fetch_add_explicit(&a->drains, 1, memory_order_relaxed);
	return drained;
}

/*
 * try_charge_memcg's retry: the exact delta once, then drain what every CPU
 * holds stocked under the refusing level and try again.  Each round must
 * refuse at a strict ancestor of the level drained last, else the refusal
 * stands: alone that is exact (after draining under level k, k and every
 * level below it count no stocked unit, so they refuse only for real, and a
 * new refusal can only come from above k; with nothing stocked under k its
 * refusal was real already), and it bounds the rounds by max_depth.  No stock lock is held here, so draining our own stock too is
 * fine.
 */
int __ctr_atomic_tree_stock_charge_slow(struct ctr_atomic_tree_stock *a, int node, int64_t delta,
					int failed, int tried_exact)
{
	int drained = -1;

	if (!tried_exact)
		failed = __ctr_ats_counter_try_charge(a, node, delta);
	while (failed >= 0) {
		if (drained >= 0 && (failed == drained ||
				     !ctr_preorder_under(a->pos, a->size, drained, failed)))
			return 0;
		/* Nothing stocked under the refusing level: its counter is its true value. */
		if (!__ctr_atomic_tree_stock_drain(a, failed))
			return 0;
		drained = failed;
		failed = __ctr_ats_counter_try_charge(a, node, delta);
	}
	return 1;
}

static void atomic_tree_stock_fini(struct ctr_tree *t)
{
	struct ctr_atomic_tree_stock *a = ctr_container_of(t, struct ctr_atomic_tree_stock, base);

	if (a->stock)
		for (int cpu = 0; cpu < t->nr_cpus; cpu++)
			ctr_free_slot_area(t, a->stock[cpu], sizeof(struct ctr_stock));
	ctr_free(a->stock);
	ctr_free(a->val);
	ctr_free(a->pos);
	ctr_free(a->size);
}

static int atomic_tree_stock_init(struct ctr_tree *t)
{
	struct ctr_atomic_tree_stock *a = ctr_container_of(t, struct ctr_atomic_tree_stock, base);
	int err;

	a->batch = t->batch ? t->batch : CTR_ATOMIC_TREE_STOCK_DEFAULT_BATCH;
	if (a->batch > INT64_MAX / 4)
		return -EINVAL;	/* a slot adds up to 2 batches before it drains */
	a->stride = CTR_ROUND_UP((size_t)t->nr_stats, CTR_CACHELINE / sizeof(int64_t));
	err = ctr_preorder(t, &a->pos, &a->size);
	if (err)
		return err;
	err = -ENOMEM;
	a->val = ctr_zalloc_aligned(t->nr_nodes * a->stride * sizeof(*a->val));
	a->stock = ctr_calloc(t->nr_cpus, sizeof(*a->stock));
	if (!a->val || !a->stock)
		goto fail;
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		a->stock[cpu] = ctr_alloc_slot_area(t, cpu, sizeof(struct ctr_stock));
		if (!a->stock[cpu]) {
			err = errno ? -errno : -ENOMEM;
			goto fail;
		}
		for (int i = 0; i < CTR_STOCK_NR; i++)
			atomic_init(&a->stock[cpu]->node[i], -1);
		a->stock[cpu]->evict = 2463534242u + (uint32_t)cpu;	/* any nonzero seed */
		CTR_LOCK_ROLE(&a->stock[cpu]->lock, "stock lock");	/* free: zero from the allocation */
	}
	return 0;
fail:
	atomic_tree_stock_fini(t);
	return err;
}

/* pos and size (preorder), val, the stock pointers and one stock per slot. */
static size_t atomic_tree_stock_footprint(struct ctr_tree *t)
{
	size_t stride = CTR_ROUND_UP((size_t)t->nr_stats, CTR_CACHELINE / sizeof(int64_t));
	size_t b = 2 * ctr_alloc_footprint((size_t)t->nr_nodes * sizeof(int));

	b = ctr_size_add(b, ctr_alloc_footprint(ctr_size_mul((size_t)t->nr_nodes * stride, sizeof(int64_t))));
	b = ctr_size_add(b, ctr_alloc_footprint((size_t)t->nr_cpus * sizeof(struct ctr_stock *)));
	return ctr_size_add(b, ctr_slot_areas_footprint(t, sizeof(struct ctr_stock)));
}

/* The instance (the drain count named), the page counters, each slot's stock, the shape's maps. */
static int atomic_tree_stock_layout(struct ctr_tree *t, const struct ctr_layout_sink *s)
{
	struct ctr_atomic_tree_stock *a = ctr_container_of(t, struct ctr_atomic_tree_stock, base);
	static const struct ctr_span spans[] = {
		CTR_SPAN(struct ctr_atomic_tree_stock, drains, "the drain count"),
	};
	size_t n = (size_t)t->nr_nodes;
	int err = ctr_emit_instance(s, spans, 1);

	if (!err)
		err = ctr_emit_nodes(s, a->val, a->stride * sizeof(*a->val), NULL, -1, "the node's page counter (atomic)");
	if (!err)
		err = ctr_emit(s, a->stock, (size_t)t->nr_cpus * sizeof(*a->stock), -1, -1, -1, "the stock pointers");
	for (int cpu = 0; !err && cpu < t->nr_cpus; cpu++)
		err = ctr_emit(s, a->stock[cpu], sizeof(struct ctr_stock), -1, cpu, -1, "the slot's charge stock (its lock)");
	if (!err)
		err = ctr_emit(s, a->pos, n * sizeof(int), -1, -1, -1, "the preorder positions");
	return err ? err : ctr_emit(s, a->size, n * sizeof(int), -1, -1, -1, "the subtree sizes");
}

const struct ctr_algo ctr_algo_atomic_tree_stock = {
	.name = "atomic_tree_stock",
	.summary = "page counters behind a per-CPU charge stock (7 nodes, batch 64): exact reads, "
		   "limit never exceeded, drains lose nothing",
	.size = sizeof(struct ctr_atomic_tree_stock),
	.init = atomic_tree_stock_init,
	.fini = atomic_tree_stock_fini,
	.footprint = atomic_tree_stock_footprint,
	.layout = atomic_tree_stock_layout,
	.add = ctr_atomic_tree_stock_add,
	.read = ctr_atomic_tree_stock_read,
	.read_exact = ctr_atomic_tree_stock_read,
	.try_charge = ctr_atomic_tree_stock_try_charge,
};
