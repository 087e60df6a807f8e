/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "percpu_counter.h"

static size_t percpu_counter_area_size(const struct ctr_tree *t)
{
	return (size_t)t->nr_nodes * t->nr_stats * sizeof(int32_t);
}

/*
 * percpu_counter_add_batch's slow path.  Only the owner writes *local, so
 * the value re-read under the lock is the one the caller saw; zeroing it
 * under the lock keeps count + locals constant for a concurrent sum, which
 * therefore never counts a folding delta twice or misses it.
 */
void __ctr_percpu_counter_fold(struct ctr_percpu_counter *p, _Atomic int32_t *local, size_t i, int64_t delta)
{
	struct ctr_pcpu_count *c = &p->cnt[i];

	pthread_mutex_lock(&c->lock);
	atomic_store_explicit(&c->count, atomic_load_explicit(&c->count, memory_order_relaxed) +
			      atomic_load_explicit(local, memory_order_relaxed) + delta, memory_order_relaxed);
	atomic_store_explicit(local, 0, memory_order_relaxed);
	pthread_mutex_unlock(&c->lock);
}

/* percpu_counter_sum: exact at rest; concurrent fast-path updates may or may not be seen. */
int64_t __ctr_percpu_counter_sum(struct ctr_percpu_counter *p, size_t i)
{
	struct ctr_pcpu_count *c = &p->cnt[i];
	int64_t sum;

	pthread_mutex_lock(&c->lock);
	sum = atomic_load_explicit(&c->count, memory_order_relaxed);
	for (int cpu = 0; cpu < p->base.nr_cpus; cpu++)
		sum += atomic_load_explicit(&p->local[cpu][i], memory_order_relaxed);
	pthread_mutex_unlock(&c->lock);
	return sum;
}

static void percpu_counter_fini(struct ctr_tree *t)
{
	struct ctr_percpu_counter *p = ctr_container_of(t, struct ctr_percpu_counter, base);
	size_t nr = (size_t)t->nr_nodes * t->nr_stats;

	if (p->local)
		for (int cpu = 0; cpu < t->nr_cpus; cpu++)
			ctr_free_slot_area(t, (void *)p->local[cpu], percpu_counter_area_size(t));
	ctr_free(p->local);
	if (p->cnt)
		for (size_t i = 0; i < nr; i++)
			pthread_mutex_destroy(&p->cnt[i].lock);
	ctr_free(p->cnt);
	ctr_offsets_fini(&p->off);
}

static int percpu_counter_init(struct ctr_tree *t)
{
	struct ctr_percpu_counter *p = ctr_container_of(t, struct ctr_percpu_counter, base);
	size_t nr = (size_t)t->nr_nodes * t->nr_stats;
	pthread_mutexattr_t ma;
	int64_t batch = t->batch;
	int err = -ENOMEM;

	if (!batch) {	/* the kernel's percpu_counter_batch: max(32, 2 x nr_cpus) */
		batch = 2 * (int64_t)t->nr_cpus;
		batch = batch < 32 ? 32 : batch > INT32_MAX ? INT32_MAX : batch;
	}
	if (batch > INT32_MAX)
		return -EINVAL;	/* the local counts are s32 */
	p->batch = (int32_t)batch;
	p->cnt = ctr_zalloc_aligned(nr * sizeof(*p->cnt));
	p->local = ctr_calloc(t->nr_cpus, sizeof(*p->local));
	if (!p->cnt || !p->local) {
		ctr_free(p->cnt);
		ctr_free(p->local);
		p->cnt = NULL;
		p->local = NULL;
		return -ENOMEM;
	}
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP);
	for (size_t i = 0; i < nr; i++) {
		pthread_mutex_init(&p->cnt[i].lock, &ma);
		CTR_LOCK_ROLE(&p->cnt[i].lock, "percpu_counter lock");	/* fbc->lock */
	}
	pthread_mutexattr_destroy(&ma);
	if (ctr_offsets_init(&p->off, t, (size_t)t->nr_stats))
		goto fail;
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		p->local[cpu] = ctr_alloc_slot_area(t, cpu, percpu_counter_area_size(t));
		if (!p->local[cpu]) {
			err = errno ? -errno : -ENOMEM;
			goto fail;
		}
	}
	return 0;
fail:
	percpu_counter_fini(t);
	return err;
}

static int64_t percpu_counter_read_exact(struct ctr_tree *t, int node, int stat)
{
	return __ctr_percpu_counter_sum(ctr_container_of(t, struct ctr_percpu_counter, base),
					(size_t)node * t->nr_stats + stat);
}

/* nr_cpus x (batch - 1), proven and attained (percpu_counter.h); batch <= INT32_MAX, so no overflow. */
static int64_t percpu_counter_error_bound(const struct ctr_tree *t)
{
	const struct ctr_percpu_counter *p = ctr_container_of(t, struct ctr_percpu_counter, base);

	return (int64_t)t->nr_cpus * (p->batch - 1);
}

/* One locked count per (node, stat), the local pointers and every slot's s32 counts. */
static size_t percpu_counter_footprint(struct ctr_tree *t)
{
	size_t b = ctr_alloc_footprint(ctr_size_mul((size_t)t->nr_nodes * t->nr_stats,
						    sizeof(struct ctr_pcpu_count)));

	b = ctr_size_add(b, ctr_alloc_footprint((size_t)t->nr_cpus * sizeof(void *)));
	b = ctr_size_add(b, ctr_offsets_footprint(t));
	return ctr_size_add(b, ctr_slot_areas_footprint(t, percpu_counter_area_size(t)));
}

/* The instance, each node's counters (lock and count), the slots' s32 counts, the refs' offsets. */
static int percpu_counter_layout(struct ctr_tree *t, const struct ctr_layout_sink *s)
{
	struct ctr_percpu_counter *p = ctr_container_of(t, struct ctr_percpu_counter, base);
	int err = ctr_emit_instance(s, NULL, 0);

	if (!err)
		err = ctr_emit_nodes(s, p->cnt, (size_t)t->nr_stats * sizeof(*p->cnt), NULL, -1,
				     "the node's percpu_counter (lock and folded count)");
	if (!err)
		err = ctr_emit(s, p->local, (size_t)t->nr_cpus * sizeof(*p->local), -1, -1, -1, "the slots' area pointers");
	for (int cpu = 0; !err && cpu < t->nr_cpus; cpu++)
		err = ctr_emit_nodes(s, p->local[cpu], (size_t)t->nr_stats * sizeof(int32_t), NULL, cpu,
				     "the slot's s32 count");
	return err ? err : ctr_emit_offsets(s, &p->off);
}

const struct ctr_algo ctr_algo_percpu_counter = {
	.name = "percpu_counter",
	.summary = "lib/percpu_counter.c per node, updates walk ancestors, locked fold past the batch; "
		   "read off by <= cpus x (batch - 1)",
	.flags = CTR_CHARGE_RACY,
	.size = sizeof(struct ctr_percpu_counter),
	.init = percpu_counter_init,
	.fini = percpu_counter_fini,
	.footprint = percpu_counter_footprint,
	.layout = percpu_counter_layout,
	.add = ctr_percpu_counter_add,
	.read = ctr_percpu_counter_read,
	.read_exact = percpu_counter_read_exact,
	.try_charge = ctr_percpu_counter_try_charge,
	.error_bound = percpu_counter_error_bound,
};
