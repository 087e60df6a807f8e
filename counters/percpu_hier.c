/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "percpu_hier.h"

/* The slots, then nr_stats sink words for the padded walks (percpu_hier.h), on whole lines. */
static size_t percpu_hier_area_size(const struct ctr_tree *t)
{
	return CTR_ROUND_UP(((size_t)t->nr_nodes + 1) * t->nr_stats * sizeof(int64_t), CTR_CACHELINE);
}

int64_t __ctr_percpu_hier_sum_apart(struct ctr_percpu_hier *p, size_t off)
{
	_Atomic int64_t *const *area = p->area;
	const int nr = p->base.nr_cpus;
	int64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	int cpu = 0;

	for (; cpu + 8 <= nr; cpu += 8) {
		s0 += atomic_load_explicit(&area[cpu][off], memory_order_relaxed);
		s1 += atomic_load_explicit(&area[cpu + 1][off], memory_order_relaxed);
		s2 += atomic_load_explicit(&area[cpu + 2][off], memory_order_relaxed);
		s3 += atomic_load_explicit(&area[cpu + 3][off], memory_order_relaxed);
		s0 += atomic_load_explicit(&area[cpu + 4][off], memory_order_relaxed);
		s1 += atomic_load_explicit(&area[cpu + 5][off], memory_order_relaxed);
		s2 += atomic_load_explicit(&area[cpu + 6][off], memory_order_relaxed);
		s3 += atomic_load_explicit(&area[cpu + 7][off], memory_order_relaxed);
	}
	for (; cpu < nr; cpu++)
		s0 += atomic_load_explicit(&area[cpu][off], memory_order_relaxed);
	return (int64_t)((uint64_t)s0 + (uint64_t)s1 + (uint64_t)s2 + (uint64_t)s3);
}

/*
 * The block's stride in words: an area's whole lines and one more, made odd
 * (see percpu_hier.h).  The line between areas keeps two slots' lines from
 * ever being a 128-byte pair, which an adjacent-line prefetcher (Intel's
 * spatial one, AMD's L2 up/down) fetches together: the kernel's per-CPU
 * units are far apart, so no update there pulls another CPU's line.
 */
static size_t percpu_hier_stride(const struct ctr_tree *t)
{
	size_t lines = percpu_hier_area_size(t) / CTR_CACHELINE + 1;

	return (lines | 1) * (CTR_CACHELINE / sizeof(int64_t));
}

/* The block's bytes: every slot's area at the stride. */
static size_t percpu_hier_block_size(const struct ctr_tree *t)
{
	return ctr_size_mul((size_t)t->nr_cpus, percpu_hier_stride(t) * sizeof(int64_t));
}

static void percpu_hier_fini(struct ctr_tree *t)
{
	struct ctr_percpu_hier *p = ctr_container_of(t, struct ctr_percpu_hier, base);

	ctr_free((void *)p->off);
	ctr_free(p->off_store);
	if (!p->area)
		return;
	if (p->block)
		ctr_free_slot_area(t, p->block, percpu_hier_block_size(t));
	else
		for (int cpu = 0; cpu < t->nr_cpus; cpu++)
			ctr_free_slot_area(t, (void *)p->area[cpu], percpu_hier_area_size(t));
	ctr_free(p->area);
	p->block = NULL;
}

/* off[node]: n * nr_stats for node and each ancestor, from the tree's ancestor lists, padded with the sink's. */
static int percpu_hier_init_offsets(struct ctr_tree *t, struct ctr_percpu_hier *p)
{
	const int **off = ctr_malloc(sizeof(*off) * t->nr_nodes);
	size_t total = 0, at = 0;

	p->off = off;
	if (!off)
		return -ENOMEM;
	for (int i = 0; i < t->nr_nodes; i++)
		total += (size_t)ctr_percpu_hier_padded(t->depth[i]);
	/* the sink's offset, nr_nodes * nr_stats, must fit an int too */
	if ((size_t)t->nr_nodes * t->nr_stats > INT32_MAX)
		return -ENOMEM;
	p->off_store = ctr_malloc(sizeof(int) * (total ? total : 1));
	if (!p->off_store)
		return -ENOMEM;
	for (int i = 0; i < t->nr_nodes; i++) {
		off[i] = p->off_store + at;
		ctr_for_each_ancestor(t, n, i) {
			/* ctr_check_size bounds nr_nodes x nr_stats words; an int offset must hold them too */
			if ((size_t)n * t->nr_stats > INT32_MAX)
				return -ENOMEM;
			p->off_store[at++] = n * t->nr_stats;
		}
		for (int k = t->depth[i]; k < ctr_percpu_hier_padded(t->depth[i]); k++)
			p->off_store[at++] = t->nr_nodes * t->nr_stats;
	}
	return 0;
}

static int percpu_hier_init(struct ctr_tree *t)
{
	struct ctr_percpu_hier *p = ctr_container_of(t, struct ctr_percpu_hier, base);
	int err;

	err = percpu_hier_init_offsets(t, p);
	if (err) {
		percpu_hier_fini(t);
		p->off = NULL;
		p->off_store = NULL;
		return err;
	}
	p->area = ctr_calloc(t->nr_cpus, sizeof(*p->area));
	if (!p->area) {
		percpu_hier_fini(t);
		return -ENOMEM;
	}
	if (ctr_slots_one_node(t)) {
		p->stride = percpu_hier_stride(t);
		p->span = (size_t)t->nr_cpus * p->stride;
		p->stride8 = t->nr_cpus == 8 ? p->stride * sizeof(int64_t) : 0;
		/* slot 0's node is every slot's: the block is bound there, page-aligned (colour 0) */
		p->block = ctr_alloc_slot_area(t, 0, percpu_hier_block_size(t));
		if (!p->block)
			goto fail;
		for (int cpu = 0; cpu < t->nr_cpus; cpu++)
			p->area[cpu] = p->block + (size_t)cpu * p->stride;
		return 0;
	}
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		p->area[cpu] = ctr_alloc_slot_area(t, cpu, percpu_hier_area_size(t));
		if (!p->area[cpu])
			goto fail;
	}
	return 0;
fail:
	err = errno ? -errno : -ENOMEM;
	percpu_hier_fini(t);
	p->area = NULL;
	p->off = NULL;
	p->off_store = NULL;
	return err;
}

/* The offset lists (padded), the area pointers and every slot's area (one block where the slots share a node). */
static size_t percpu_hier_footprint(struct ctr_tree *t)
{
	size_t levels = 0, b = ctr_alloc_footprint((size_t)t->nr_nodes * sizeof(int *));

	for (int i = 0; i < t->nr_nodes; i++)
		levels += (size_t)ctr_percpu_hier_padded(t->depth[i]);
	b = ctr_size_add(b, ctr_alloc_footprint(ctr_size_mul(levels ? levels : 1, sizeof(int))));
	b = ctr_size_add(b, ctr_alloc_footprint((size_t)t->nr_cpus * sizeof(void *)));
	if (ctr_slots_one_node(t))	/* one block (percpu_hier_init) */
		return ctr_size_add(b, ctr_slot_block_footprint(t, percpu_hier_block_size(t)));
	return ctr_size_add(b, ctr_slot_areas_footprint(t, percpu_hier_area_size(t)));
}

/* One slot's area: its counts, the sink, then padding to size bytes. */
static int percpu_hier_layout_area(const struct ctr_layout_sink *s, const int64_t *area, int cpu, size_t size)
{
	const struct ctr_tree *t = s->t;
	size_t words = (size_t)t->nr_nodes * t->nr_stats;
	int err = ctr_emit_nodes(s, area, (size_t)t->nr_stats * sizeof(int64_t), NULL, cpu, "the slot's count");

	if (!err)
		err = ctr_emit(s, area + words, (size_t)t->nr_stats * sizeof(int64_t), -1, cpu, -1,
			       "the slot's sink (the padded walks' spare words)");
	return err ? err : ctr_emit_pad(s, area, (words + t->nr_stats) * sizeof(int64_t), size, cpu);
}

/* The instance, the offset lists, the areas (in one block at the stride, or one each). */
static int percpu_hier_layout(struct ctr_tree *t, const struct ctr_layout_sink *s)
{
	struct ctr_percpu_hier *p = ctr_container_of(t, struct ctr_percpu_hier, base);
	size_t total = 0;
	int err = ctr_emit_instance(s, NULL, 0);

	for (int i = 0; i < t->nr_nodes; i++)
		total += (size_t)ctr_percpu_hier_padded(t->depth[i]);
	if (!err)
		err = ctr_emit(s, p->off, (size_t)t->nr_nodes * sizeof(*p->off), -1, -1, -1, "the refs' offset list pointers");
	if (!err)
		err = ctr_emit(s, p->off_store, (total ? total : 1) * sizeof(int), -1, -1, -1, "the refs' offset lists");
	if (!err)
		err = ctr_emit(s, p->area, (size_t)t->nr_cpus * sizeof(*p->area), -1, -1, -1, "the slots' area pointers");
	for (int cpu = 0; !err && cpu < t->nr_cpus; cpu++)
		err = percpu_hier_layout_area(s, (const int64_t *)p->area[cpu], cpu,
					      p->block ? p->stride * sizeof(int64_t) : percpu_hier_area_size(t));
	return err;
}

const struct ctr_algo ctr_algo_percpu_hier = {
	.name = "percpu_hier",
	.summary = "hierarchical per-CPU (c): updates write own slot at every level, reads sum all CPUs; exact at rest",
	.flags = CTR_CHARGE_RACY,
	.size = sizeof(struct ctr_percpu_hier),
	.init = percpu_hier_init,
	.fini = percpu_hier_fini,
	.footprint = percpu_hier_footprint,
	.layout = percpu_hier_layout,
	.add = ctr_percpu_hier_add,
	.read = ctr_percpu_hier_read,
	.read_exact = ctr_percpu_hier_read,
	.try_charge = ctr_percpu_hier_try_charge,
};
