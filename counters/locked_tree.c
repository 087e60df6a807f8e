/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "locked_tree.h"

static int locked_tree_init(struct ctr_tree *t)
{
	struct ctr_locked_tree *l = ctr_container_of(t, struct ctr_locked_tree, base);
	int err;

	l->val = calloc((size_t)t->nr_nodes * t->nr_stats, sizeof(*l->val));
	if (!l->val)
		return -ENOMEM;
	if (ctr_offsets_init(&l->off, t, (size_t)t->nr_stats)) {
		free(l->val);
		return -ENOMEM;
	}
	err = pthread_mutex_init(&l->lock, NULL);
	if (err) {
		free(l->val);
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
	free(l->val);
	ctr_offsets_fini(&l->off);
}

static size_t locked_tree_footprint(struct ctr_tree *t)
{
	return ctr_size_add(ctr_alloc_footprint(ctr_size_mul((size_t)t->nr_nodes * t->nr_stats, sizeof(int64_t))),
			    ctr_offsets_footprint(t));
}

const struct ctr_algo ctr_algo_locked_tree = {
	.name = "locked_tree",
	.summary = "baseline: one mutex around a plain tree of sums; exact, every operation serializes",
	.size = sizeof(struct ctr_locked_tree),
	.init = locked_tree_init,
	.fini = locked_tree_fini,
	.footprint = locked_tree_footprint,
	.add = ctr_locked_tree_add,
	.read = ctr_locked_tree_read,
	.read_exact = ctr_locked_tree_read,
	.try_charge = ctr_locked_tree_try_charge,
};
