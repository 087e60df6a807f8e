/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "atomic_tree.h"

static int atomic_tree_init(struct ctr_tree *t)
{
	struct ctr_atomic_tree *a = ctr_container_of(t, struct ctr_atomic_tree, base);
	size_t line_words = CTR_CACHELINE / sizeof(int64_t);

	a->stride = CTR_ROUND_UP((size_t)t->nr_stats, line_words);
	a->val = ctr_zalloc_aligned(t->nr_nodes * a->stride * sizeof(*a->val));
	if (!a->val)
		return -ENOMEM;
	if (ctr_offsets_init(&a->off, t, a->stride)) {
		ctr_free(a->val);
		return -ENOMEM;
	}
	return 0;
}

static void atomic_tree_fini(struct ctr_tree *t)
{
	struct ctr_atomic_tree *a = ctr_container_of(t, struct ctr_atomic_tree, base);

	ctr_free(a->val);
	ctr_offsets_fini(&a->off);
}

/* val (each node's stats on lines of their own) and the refs' offset lists. */
static size_t atomic_tree_footprint(struct ctr_tree *t)
{
	size_t stride = CTR_ROUND_UP((size_t)t->nr_stats, CTR_CACHELINE / sizeof(int64_t));

	return ctr_size_add(ctr_alloc_footprint(ctr_size_mul((size_t)t->nr_nodes * stride, sizeof(int64_t))),
			    ctr_offsets_footprint(t));
}

/* The instance, each node's line of counters, the refs' offsets. */
int __ctr_atomic_tree_layout(struct ctr_tree *t, const struct ctr_layout_sink *s)
{
	struct ctr_atomic_tree *a = ctr_container_of(t, struct ctr_atomic_tree, base);
	int err = ctr_emit_instance(s, NULL, 0);

	if (!err)
		err = ctr_emit_nodes(s, a->val, a->stride * sizeof(*a->val), NULL, -1, "the shared atomic");
	return err ? err : ctr_emit_offsets(s, &a->off);
}

const struct ctr_algo ctr_algo_atomic_tree = {
	.name = "atomic_tree",
	.summary = "page counters (d): an atomic per node, updates walk ancestors; exact reads, limit never exceeded at rest",
	.size = sizeof(struct ctr_atomic_tree),
	.init = atomic_tree_init,
	.fini = atomic_tree_fini,
	.footprint = atomic_tree_footprint,
	.layout = __ctr_atomic_tree_layout,
	.add = ctr_atomic_tree_add,
	.read = ctr_atomic_tree_read,
	.read_exact = ctr_atomic_tree_read,
	.try_charge = ctr_atomic_tree_try_charge,
};
