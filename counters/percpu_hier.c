/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "percpu_hier.h"

static size_t percpu_hier_area_size(const struct ctr_tree *t)
{
	return (size_t)t->nr_nodes * t->nr_stats * sizeof(int64_t);
}

static void percpu_hier_fini(struct ctr_tree *t)
{
	struct ctr_percpu_hier *p = ctr_container_of(t, struct ctr_percpu_hier, base);

	if (!p->area)
		return;
	for (int cpu = 0; cpu < t->nr_cpus; cpu++)
		ctr_free_slot_area(t, (void *)p->area[cpu], percpu_hier_area_size(t));
	free(p->area);
}

static int percpu_hier_init(struct ctr_tree *t)
{
	struct ctr_percpu_hier *p = ctr_container_of(t, struct ctr_percpu_hier, base);
	int err;

	p->area = calloc(t->nr_cpus, sizeof(*p->area));
	if (!p->area)
		return -ENOMEM;
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
	return err;
}

const struct ctr_algo ctr_algo_percpu_hier = {
	.name = "percpu_hier",
	.summary = "hierarchical per-CPU (c): updates write own slot at every level, reads sum all CPUs; exact at rest",
	.flags = CTR_CHARGE_RACY,
	.size = sizeof(struct ctr_percpu_hier),
	.init = percpu_hier_init,
	.fini = percpu_hier_fini,
	.add = ctr_percpu_hier_add,
	.read = ctr_percpu_hier_read,
	.read_exact = ctr_percpu_hier_read,
	.try_charge = ctr_percpu_hier_try_charge,
};
