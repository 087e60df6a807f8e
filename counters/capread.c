/* SPDX-License-Identifier: MIT */
/* capread.c - the test-build-only algorithm of capread.h (nothing without CTR_TEST_ALGOS). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capread.h"

#ifdef CTR_TEST_ALGOS
static int capread_init(struct ctr_tree *t)
{
	struct ctr_atomic_tree *a = ctr_container_of(t, struct ctr_atomic_tree, base);

	a->stride = CTR_ROUND_UP((size_t)t->nr_stats, CTR_CACHELINE / sizeof(int64_t));
	a->val = ctr_zalloc_aligned(t->nr_nodes * a->stride * sizeof(*a->val));
	if (!a->val)
		return -ENOMEM;
	if (ctr_offsets_init(&a->off, t, a->stride)) {
		ctr_free(a->val);
		return -ENOMEM;
	}
	return 0;
}

static void capread_fini(struct ctr_tree *t)
{
	struct ctr_atomic_tree *a = ctr_container_of(t, struct ctr_atomic_tree, base);

	ctr_free(a->val);
	ctr_offsets_fini(&a->off);
}

/* read=spin|mutex|sem|batch, as rstat's names go: taken, and changes nothing (an exact counter). */
static int capread_set_option(struct ctr_tree *t, const char *key, const char *value)
{
	static const char *const names[] = { "spin", "mutex", "sem", "batch" };
	struct ctr_capread *c = (struct ctr_capread *)t;

	if (strcmp(key, "read"))
		return -ENOENT;
	for (int i = 0; i < 4; i++)
		if (!strcmp(value, names[i])) {
			c->read = i;
			return 0;
		}
	return -EINVAL;
}


const struct ctr_algo ctr_algo_capread = {
	.name = "capread",
	.summary = "test build only: page counters under a new name that take read= (capability tests)",
	.size = sizeof(struct ctr_capread),
	.set_option = capread_set_option,
	.init = capread_init,
	.fini = capread_fini,
	.layout = __ctr_atomic_tree_layout,
	.add = ctr_capread_add,
	.read = ctr_capread_read,
	.read_exact = ctr_capread_read,
	.try_charge = ctr_capread_try_charge,
};
#else
/* ISO C wants a declaration in every translation unit. */
extern int ctr_capread_absent;
#endif
