/* SPDX-License-Identifier: MIT */
/* percpu_tree - see percpu_tree.h for the design, the bound and the item orders. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "percpu_tree.h"

static struct ctr_percpu_tree *ptree_of(const struct ctr_tree *t)
{
	return ctr_container_of(t, struct ctr_percpu_tree, base);
}

void __ctr_percpu_tree_carry(struct ctr_percpu_tree *p, int cpu, size_t i, int64_t inc)
{
	struct ctr_ptree_item *items = p->items + i * p->nr_items;
	const int *map = p->item_of + (size_t)cpu * p->nr_levels;

	for (int j = 1; j <= p->nr_levels; j++) {
		const int shift = p->level_shift[j];

		/*
		 * A multiple of this level's batch leaves the item's residual as it
		 * is and would carry itself on: pass it up without touching the line
		 * (the kernel skips the level the same way).
		 */
		if ((uint64_t)inc & (((uint64_t)1 << shift) - 1)) {
			uint64_t old = (uint64_t)atomic_fetch_add_explicit(&items[map[j - 1]].count, inc,
									    memory_order_relaxed);

			inc = __ctr_ptree_floor_diff(old, old + (uint64_t)inc, shift);
			if (!inc)
				return;
		}
	}
	atomic_fetch_add_explicit(&items[p->nr_items - 1].count, inc, memory_order_relaxed);
}

int64_t __ctr_percpu_tree_sum(struct ctr_percpu_tree *p, size_t i)
{
	uint64_t sum = 0;	/* wrapping, as the counts themselves */

	for (int cpu = 0; cpu < p->base.nr_cpus; cpu++)
		sum += (uint64_t)atomic_load_explicit(&p->area[cpu][i], memory_order_relaxed);
	return (int64_t)sum;
}

int64_t ctr_percpu_tree_transit_max(const struct ctr_tree *t)
{
	const struct ctr_percpu_tree *p = ptree_of(t);

	/* with |delta| < B0 a carry is one batch: the top level's is the largest, the root's */
	return p->nr_levels ? (int64_t)1 << p->level_shift[p->nr_levels] : 0;
}

int ctr_percpu_tree_item_of(const struct ctr_tree *t, int cpu, int level)
{
	const struct ctr_percpu_tree *p = ptree_of(t);

	if (cpu < 0 || cpu >= t->nr_cpus || level < 1 || level > p->nr_levels)
		return -1;
	return p->item_of[(size_t)cpu * p->nr_levels + level - 1] - p->level_base[level];
}

static int ptree_set_option(struct ctr_tree *t, const char *key, const char *value)
{
	struct ctr_percpu_tree *p = ptree_of(t);

	if (!strcmp(key, "order")) {
		if (!strcmp(value, "strided"))
			p->order_topology = 0;
		else if (!strcmp(value, "topology"))
			p->order_topology = 1;
		else
			return -EINVAL;
		return 0;
	}
	if (!strcmp(key, "read")) {
		if (!strcmp(value, "approx"))
			p->read_precise = 0;
		else if (!strcmp(value, "precise"))
			p->read_precise = 1;
		else
			return -EINVAL;
		return 0;
	}
	return -ENOENT;
}

/*
 * The kernel's shape rule, restated: k bits of CPU number over min(k, 3)
 * arity steps (4 for k in 10..12, 5 above), spread evenly, larger first.
 * Returns the number of steps; arity[] gets their orders.
 */
static int ptree_arity(int k, int arity[CTR_PTREE_MAX_LEVELS])
{
	int steps = k <= 3 ? k : k <= 9 ? 3 : k <= 12 ? 4 : 5;

	for (int s = 0; s < steps; s++)
		arity[s] = k / steps + (s < k % steps);
	return steps;
}

/* Level-1 items in topology order: each L3's slots, in slot order, in chunks of fan. */
static int ptree_topology_level1(const struct ctr_tree *t, int fan, int *local)
{
	int items = 0;
	char *done = ctr_calloc(t->nr_cpus, 1);

	if (!done)
		return -ENOMEM;
	for (int c = 0; c < t->nr_cpus; c++) {
		int l3 = t->slot_l3 ? t->slot_l3[c] : 0, in_item = 0;

		if (done[c])
			continue;
		/* every slot of c's L3, from c on: c is the first of its L3 not yet placed */
		for (int d = c; d < t->nr_cpus; d++) {
			if (done[d] || (t->slot_l3 ? t->slot_l3[d] : 0) != l3)
				continue;
			if (in_item == fan) {
				items++;
				in_item = 0;
			}
			local[d] = items;
			in_item++;
			done[d] = 1;
		}
		items++;
	}
	ctr_free(done);
	return items;
}

static int ptree_build_shape(struct ctr_percpu_tree *p)
{
	const struct ctr_tree *t = &p->base;
	int arity[CTR_PTREE_MAX_LEVELS] = { 0 }, k = 0, steps, *local = NULL, *used = NULL;
	int64_t bound, add;
	int err = -ENOMEM;

	while (((int64_t)1 << k) < t->nr_cpus)
		k++;
	steps = ptree_arity(k, arity);
	p->level_shift[0] = __builtin_ctzll((unsigned long long)p->batch);
	for (int s = 1; s < steps; s++)
		p->level_shift[s] = p->level_shift[s - 1] + arity[s - 1];
	/* the top batch and the bound must fit an int64 */
	if (p->level_shift[0] + k > 62)
		return -EINVAL;
	p->nr_levels = steps > 0 ? steps - 1 : 0;
	p->level_items[0] = t->nr_cpus;
	if (!steps) {	/* one CPU: no item, the read is its count */
		p->nr_items = 0;
		p->bound = 0;
		return 0;
	}
	p->item_of = ctr_malloc(sizeof(int) * (size_t)t->nr_cpus * (p->nr_levels ? p->nr_levels : 1));
	local = ctr_malloc(sizeof(int) * t->nr_cpus);
	if (!p->item_of || !local)
		goto out;
	/* local[c]: c's item index within the current level */
	for (int j = 1; j <= p->nr_levels; j++) {
		if (!p->order_topology) {
			p->level_items[j] = 1 << (k - (p->level_shift[j] - p->level_shift[0]));
			for (int c = 0; c < t->nr_cpus; c++)
				local[c] = c & (p->level_items[j] - 1);
		} else if (j == 1) {
			p->level_items[1] = ptree_topology_level1(t, 1 << arity[0], local);
			if (p->level_items[1] < 0)
				goto out;
		} else {
			p->level_items[j] = (p->level_items[j - 1] + (1 << arity[j - 1]) - 1) >> arity[j - 1];
			for (int c = 0; c < t->nr_cpus; c++)
				local[c] >>= arity[j - 1];
		}
		p->level_base[j] = j == 1 ? 0 : p->level_base[j - 1] + p->level_items[j - 1];
		for (int c = 0; c < t->nr_cpus; c++)
			p->item_of[(size_t)c * p->nr_levels + j - 1] = p->level_base[j] + local[c];
	}
	p->nr_items = p->nr_levels ? p->level_base[p->nr_levels] + p->level_items[p->nr_levels] + 1 : 1;
	/* the bound: every CPU's residual and every used item's (percpu_tree.h) */
	used = ctr_calloc(p->nr_items, sizeof(int));
	if (!used)
		goto out;
	for (size_t x = 0; x < (size_t)t->nr_cpus * p->nr_levels; x++)
		used[p->item_of[x]] = 1;
	bound = (int64_t)t->nr_cpus * (p->batch - 1);
	for (int j = 1; j <= p->nr_levels; j++) {
		for (int x = 0; x < p->level_items[j]; x++) {
			add = used[p->level_base[j] + x] ?
			      ((int64_t)1 << p->level_shift[j]) - ((int64_t)1 << p->level_shift[j - 1]) : 0;
			if (__builtin_add_overflow(bound, add, &bound)) {
				err = -EINVAL;
				goto out;
			}
		}
	}
	p->bound = bound;
	err = 0;
out:
	ctr_free(local);
	ctr_free(used);
	return err;
}

static size_t ptree_area_size(const struct ctr_tree *t)
{
	return (size_t)t->nr_nodes * t->nr_stats * sizeof(int64_t);
}

static void ptree_fini(struct ctr_tree *t)
{
	struct ctr_percpu_tree *p = ptree_of(t);

	if (p->area)
		for (int cpu = 0; cpu < t->nr_cpus; cpu++)
			ctr_free_slot_area(t, (void *)p->area[cpu], ptree_area_size(t));
	ctr_free(p->area);
	ctr_free(p->items);
	ctr_free(p->item_of);
	ctr_offsets_fini(&p->off);
	p->area = NULL;
	p->items = NULL;
	p->item_of = NULL;
}

static int ptree_init(struct ctr_tree *t)
{
	struct ctr_percpu_tree *p = ptree_of(t);
	size_t bytes;
	int err;

	p->batch = t->batch ? t->batch : CTR_PTREE_DEFAULT_BATCH;
	if (p->batch < 2 || (p->batch & (p->batch - 1)))
		return -EINVAL;	/* a power of two > 1, as the kernel's */
	err = ptree_build_shape(p);
	if (err)
		goto fail;
	err = -ENOMEM;
	if (p->nr_items) {
		if (__builtin_mul_overflow((size_t)t->nr_nodes * t->nr_stats, (size_t)p->nr_items, &bytes) ||
		    __builtin_mul_overflow(bytes, sizeof(struct ctr_ptree_item), &bytes))
			goto fail;
		p->items = ctr_zalloc_aligned(bytes);
		if (!p->items)
			goto fail;
	}
	if (ctr_offsets_init(&p->off, t, (size_t)t->nr_stats))
		goto fail;
	p->area = ctr_calloc(t->nr_cpus, sizeof(*p->area));
	if (!p->area)
		goto fail;
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		p->area[cpu] = ctr_alloc_slot_area(t, cpu, ptree_area_size(t));
		if (!p->area[cpu]) {
			err = errno ? -errno : -ENOMEM;
			goto fail;
		}
	}
	return 0;
fail:
	ptree_fini(t);
	return err;
}

static int64_t ptree_read_exact(struct ctr_tree *t, int node, int stat)
{
	return __ctr_percpu_tree_sum(ptree_of(t), (size_t)node * t->nr_stats + stat);
}

static int64_t ptree_error_bound(const struct ctr_tree *t)
{
	const struct ctr_percpu_tree *p = ptree_of(t);

	return p->read_precise ? 0 : p->bound;
}

/*
 * The items of every (node, stat) and the slot-to-item map, from the shape
 * built on the probe (O(nr_cpus), freed), then every slot's area.  A batch
 * init refuses counts nothing: ctr_tree_new fails with EINVAL before it
 * allocates.
 */
static size_t ptree_footprint(struct ctr_tree *t)
{
	struct ctr_percpu_tree *p = ptree_of(t);
	size_t b = 0;

	p->batch = t->batch ? t->batch : CTR_PTREE_DEFAULT_BATCH;
	if (p->batch < 2 || (p->batch & (p->batch - 1)) || ptree_build_shape(p)) {
		ptree_fini(t);
		return 0;
	}
	if (p->nr_items) {
		b = ctr_alloc_footprint((size_t)t->nr_cpus * (p->nr_levels ? p->nr_levels : 1) * sizeof(int));
		b = ctr_size_add(b, ctr_alloc_footprint(ctr_size_mul(ctr_size_mul((size_t)t->nr_nodes * t->nr_stats,
									       (size_t)p->nr_items),
								  sizeof(struct ctr_ptree_item))));
	}
	ptree_fini(t);
	b = ctr_size_add(b, ctr_offsets_footprint(t));
	b = ctr_size_add(b, ctr_alloc_footprint((size_t)t->nr_cpus * sizeof(void *)));
	return ctr_size_add(b, ctr_slot_areas_footprint(t, ptree_area_size(t)));
}

/* The instance, every counter's items (carries, the root last), the CPUs' item map, the slots' counts. */
static int ptree_layout(struct ctr_tree *t, const struct ctr_layout_sink *s)
{
	struct ctr_percpu_tree *p = ptree_of(t);
	size_t per_node = (size_t)t->nr_stats * p->nr_items;
	int err = ctr_emit_instance(s, NULL, 0);

	for (size_t x = 0; !err && x < (size_t)t->nr_nodes * per_node; x++) {
		int i = (int)(x % p->nr_items);

		err = ctr_emit(s, &p->items[x], sizeof(*p->items), (int)(x / per_node), -1, i,
			       i == p->nr_items - 1 ? "the counter tree's root item" : "a carry item");
	}
	if (!err && p->item_of)
		err = ctr_emit(s, p->item_of, sizeof(int) * (size_t)t->nr_cpus * (p->nr_levels ? p->nr_levels : 1),
			       -1, -1, -1, "the CPUs' items at each level");
	if (!err)
		err = ctr_emit(s, p->area, (size_t)t->nr_cpus * sizeof(*p->area), -1, -1, -1, "the slots' area pointers");
	for (int cpu = 0; !err && cpu < t->nr_cpus; cpu++)
		err = ctr_emit_nodes(s, p->area[cpu], (size_t)t->nr_stats * sizeof(int64_t), NULL, cpu,
				     "the slot's level-0 count");
	return err ? err : ctr_emit_offsets(s, &p->off);
}

const struct ctr_algo ctr_algo_percpu_tree = {
	.name = "percpu_tree",
	.summary = "lib/percpu_counter_tree.c per node: per-CPU counts carry past power-of-two batches up "
		   "items to a root; read = one load, off by <= sum of residuals",
	.flags = CTR_CHARGE_RACY,
	.size = sizeof(struct ctr_percpu_tree),
	.set_option = ptree_set_option,
	.init = ptree_init,
	.fini = ptree_fini,
	.footprint = ptree_footprint,
	.layout = ptree_layout,
	.add = ctr_percpu_tree_add,
	.read = ctr_percpu_tree_read,
	.read_exact = ptree_read_exact,
	.try_charge = ctr_percpu_tree_try_charge,
	.error_bound = ptree_error_bound,
};
