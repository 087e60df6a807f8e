/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "batched_percpu.h"
#include "preorder.h"

static size_t batched_percpu_area_size(const struct ctr_tree *t)
{
	return (size_t)t->nr_nodes * t->nr_stats * sizeof(int64_t);
}

static void batched_percpu_fini(struct ctr_tree *t)
{
	struct ctr_batched_percpu *b = ctr_container_of(t, struct ctr_batched_percpu, base);

	if (b->delta)
		for (int cpu = 0; cpu < t->nr_cpus; cpu++)
			ctr_free_slot_area(t, (void *)b->delta[cpu], batched_percpu_area_size(t));
	ctr_free(b->delta);
	ctr_free(b->total);
	ctr_free(b->pos);
	ctr_free(b->size);
}

static int batched_percpu_init(struct ctr_tree *t)
{
	struct ctr_batched_percpu *b = ctr_container_of(t, struct ctr_batched_percpu, base);
	int err;

	b->batch = t->batch ? t->batch : CTR_BATCHED_PERCPU_DEFAULT_BATCH;
	b->stride = CTR_ROUND_UP((size_t)t->nr_stats, CTR_CACHELINE / sizeof(int64_t));
	err = ctr_preorder(t, &b->pos, &b->size);
	if (err)
		return err;
	err = -ENOMEM;
	b->total = ctr_zalloc_aligned(t->nr_nodes * b->stride * sizeof(*b->total));
	b->delta = ctr_calloc(t->nr_cpus, sizeof(*b->delta));
	if (!b->total || !b->delta)
		goto fail;
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		b->delta[cpu] = ctr_alloc_slot_area(t, cpu, batched_percpu_area_size(t));
		if (!b->delta[cpu]) {
			err = errno ? -errno : -ENOMEM;
			goto fail;
		}
	}
	return 0;
fail:
	batched_percpu_fini(t);
	return err;
}

/* total plus every CPU's pending deltas of the subtree: one contiguous range per CPU. */
static int64_t batched_percpu_read_exact(struct ctr_tree *t, int node, int stat)
{
	struct ctr_batched_percpu *b = ctr_container_of(t, struct ctr_batched_percpu, base);
	size_t first = (size_t)b->pos[node], end = first + b->size[node];
	int64_t sum = ctr_batched_percpu_read(t, node, stat);

	for (int cpu = 0; cpu < t->nr_cpus; cpu++)
		for (size_t p = first; p < end; p++)
			sum += atomic_load_explicit(&b->delta[cpu][p * t->nr_stats + stat],
						    memory_order_relaxed);
	return sum;
}

/* batch x nr_cpus x nr_nodes, proven and attained (batched_percpu.h); saturates at INT64_MAX. */
static int64_t batched_percpu_error_bound(const struct ctr_tree *t)
{
	const struct ctr_batched_percpu *b = ctr_container_of(t, struct ctr_batched_percpu, base);
	int64_t bound;

	if (__builtin_mul_overflow(b->batch, (int64_t)t->nr_cpus, &bound) ||
	    __builtin_mul_overflow(bound, (int64_t)t->nr_nodes, &bound))
		return INT64_MAX;
	return bound;
}

/* pos and size (preorder), the totals, the area pointers and every slot's deltas. */
static size_t batched_percpu_footprint(struct ctr_tree *t)
{
	size_t stride = CTR_ROUND_UP((size_t)t->nr_stats, CTR_CACHELINE / sizeof(int64_t));
	size_t b = 2 * ctr_alloc_footprint((size_t)t->nr_nodes * sizeof(int));

	b = ctr_size_add(b, ctr_alloc_footprint(ctr_size_mul((size_t)t->nr_nodes * stride, sizeof(int64_t))));
	b = ctr_size_add(b, ctr_alloc_footprint((size_t)t->nr_cpus * sizeof(void *)));
	return ctr_size_add(b, ctr_slot_areas_footprint(t, batched_percpu_area_size(t)));
}

/* The instance, the shared totals, the slots' pending deltas (by preorder position), the shape's maps. */
static int batched_percpu_layout(struct ctr_tree *t, const struct ctr_layout_sink *s)
{
	struct ctr_batched_percpu *b = ctr_container_of(t, struct ctr_batched_percpu, base);
	size_t n = (size_t)t->nr_nodes;
	int err = ctr_emit_instance(s, NULL, 0);

	if (!err)
		err = ctr_emit_nodes(s, b->total, b->stride * sizeof(*b->total), NULL, -1, "the node's shared total (atomic)");
	if (!err)
		err = ctr_emit(s, b->delta, (size_t)t->nr_cpus * sizeof(*b->delta), -1, -1, -1, "the slots' area pointers");
	for (int cpu = 0; !err && cpu < t->nr_cpus; cpu++)
		err = ctr_emit_nodes(s, b->delta[cpu], (size_t)t->nr_stats * sizeof(int64_t), b->pos, cpu,
				     "the slot's pending delta");
	if (!err)
		err = ctr_emit(s, b->pos, n * sizeof(int), -1, -1, -1, "the preorder positions");
	return err ? err : ctr_emit(s, b->size, n * sizeof(int), -1, -1, -1, "the subtree sizes");
}

const struct ctr_algo ctr_algo_batched_percpu = {
	.name = "batched_percpu",
	.summary = "memcg stats of 42a300353577: per-CPU deltas flushed past +-batch to every ancestor; "
		   "read off by <= batch x cpus x nodes",
	.flags = CTR_CHARGE_RACY,
	.size = sizeof(struct ctr_batched_percpu),
	.init = batched_percpu_init,
	.fini = batched_percpu_fini,
	.footprint = batched_percpu_footprint,
	.layout = batched_percpu_layout,
	.add = ctr_batched_percpu_add,
	.read = ctr_batched_percpu_read,
	.read_exact = batched_percpu_read_exact,
	.try_charge = ctr_batched_percpu_try_charge,
	.error_bound = batched_percpu_error_bound,
};
