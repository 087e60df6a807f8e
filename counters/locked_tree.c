/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "locked_tree.h"

static int locked_tree_init(struct ctr_tree *t)
{
	struct ctr_locked_tree *l = ctr_container_of(t, struct ctr_locked_tree, base);
	int err;

	l->val = ctr_calloc((size_t)t->nr_nodes * t->nr_stats, sizeof(*l->val));
	if (!l->val)
		return -ENOMEM;
	if (ctr_offsets_init(&l->off, t, (size_t)t->nr_stats)) {
		ctr_free(l->val);
		return -ENOMEM;
	}
	err = pthread_mutex_init(&l->lock, NULL);
	if (err) {
		ctr_free(l->val);
		ctr_offsets_fini(&l->off);
		return -err;
	}
	CTR_LOCK_ROLE(&l->lock, "tree lock");
	return 0;
}

static void locked_tree_fini(struct ctr_tree *t)
{
	struct ctr_locked_tree *l = ctr_container_of(t, struct ctr_locked_tree, base);

	pthread_mutex_destroy(&l->lock);
	ctr_free(l->val);
	ctr_offsets_fini(&l->off);
}

static size_t locked_tree_footprint(struct ctr_tree *t)
{
	return ctr_size_add(ctr_alloc_footprint(ctr_size_mul((size_t)t->nr_nodes * t->nr_stats, sizeof(int64_t))),
			    ctr_offsets_footprint(t));
}

/* The instance (its lock named), each node's sums, the refs' offsets. */
static int locked_tree_layout(struct ctr_tree *t, const struct ctr_layout_sink *s)
{
	struct ctr_locked_tree *l = ctr_container_of(t, struct ctr_locked_tree, base);
	static const struct ctr_span spans[] = { CTR_SPAN(struct ctr_locked_tree, lock, "the tree lock") };
	int err = ctr_emit_instance(s, spans, 1);

	if (!err)
		err = ctr_emit_nodes(s, l->val, (size_t)t->nr_stats * sizeof(*l->val), NULL, -1,
				     "the node's sums (under the tree lock)");
	return err ? err : ctr_emit_offsets(s, &l->off);
}

const struct ctr_algo ctr_algo_locked_tree = {
	.name = "locked_tree",
	.summary = "baseline: one mutex around a plain tree of sums; exact, every operation serializes",
	.size = sizeof(struct ctr_locked_tree),
	.init = locked_tree_init,
	.fini = locked_tree_fini,
	.footprint = locked_tree_footprint,
	.layout = locked_tree_layout,
	.add = ctr_locked_tree_add,
	.read = ctr_locked_tree_read,
	.read_exact = ctr_locked_tree_read,
	.try_charge = ctr_locked_tree_try_charge,
};
