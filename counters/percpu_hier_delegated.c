/* SPDX-License-Identifier: MIT */
/* percpu_hier_delegated - see percpu_hier_delegated.h for the protocol and its proof. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "percpu_hier_delegated.h"

/* Groups one read posts to at a time (a batch's rounds live on the reader's stack). */
#define CTR_PHD_BATCH 64

static struct ctr_percpu_hier_delegated *phd_of(const struct ctr_tree *t)
{
	return ctr_container_of(t, struct ctr_percpu_hier_delegated, base);
}

/* Group g's slots of counter i, summed by whoever calls (reader or claimer). */
static int64_t phd_group_sum(struct ctr_percpu_hier_delegated *p, int g, size_t i)
{
	int64_t sum = 0;

	for (int k = p->member_base[g]; k < p->member_base[g + 1]; k++)
		sum += atomic_load_explicit(&p->area[p->members[k]][i], memory_order_relaxed);
	return sum;
}

int64_t __ctr_phd_sum(struct ctr_percpu_hier_delegated *p, size_t i)
{
	int64_t sum = 0;

	for (int cpu = 0; cpu < p->base.nr_cpus; cpu++)
		sum += atomic_load_explicit(&p->area[cpu][i], memory_order_relaxed);
	return sum;
}

void __ctr_phd_answer(struct ctr_percpu_hier_delegated *p, int cpu, uint64_t s)
{
	const int g = p->group_of[cpu];
	struct ctr_phd_mbox *m = &p->mbox[g];
	const uint64_t seq = CTR_PHD_SEQ(s);
	size_t i;

	/* one claimer per round; a withdrawn round (IDLE(seq + 1)) makes this fail */
	if (!atomic_compare_exchange_strong_explicit(&m->state, &s, CTR_PHD_STATE(seq, CTR_PHD_CLAIMED),
						     memory_order_acquire, memory_order_relaxed))
		return;
	i = atomic_load_explicit(&m->req, memory_order_relaxed);
	atomic_store_explicit(&m->answer, phd_group_sum(p, g, i), memory_order_relaxed);
	s = CTR_PHD_STATE(seq, CTR_PHD_CLAIMED);
	if (!atomic_compare_exchange_strong_explicit(&m->state, &s, CTR_PHD_STATE(seq, CTR_PHD_ANSWERED),
						     memory_order_release, memory_order_relaxed))
		/* the reader gave up on us (ABANDONED) and read the group itself: free the box */
		atomic_store_explicit(&m->state, CTR_PHD_STATE(seq + 1, CTR_PHD_IDLE), memory_order_release);
}

/* Take an answered round's sum and free the mailbox for the next round. */
static int64_t phd_take(struct ctr_phd_mbox *m, uint64_t seq)
{
	int64_t v = atomic_load_explicit(&m->answer, memory_order_relaxed);

	atomic_store_explicit(&m->state, CTR_PHD_STATE(seq + 1, CTR_PHD_IDLE), memory_order_release);
	return v;
}

/* Groups [g0, g0 + n): post, wait up to the timeout, then settle every round. */
static int64_t phd_read_batch(struct ctr_percpu_hier_delegated *p, size_t i, int g0, int n)
{
	uint64_t seq[CTR_PHD_BATCH];
	unsigned char open[CTR_PHD_BATCH];	/* 1: our request is out and not settled */
	uint64_t answered = 0, withdrawn = 0, busy = 0, deadline;
	int64_t sum = 0;
	int pending = 0;

	for (int k = 0; k < n; k++) {
		struct ctr_phd_mbox *m = &p->mbox[g0 + k];
		uint64_t s = atomic_load_explicit(&m->state, memory_order_relaxed);

		open[k] = 0;
		if (CTR_PHD_PHASE(s) != CTR_PHD_IDLE ||
		    !atomic_compare_exchange_strong_explicit(&m->state, &s,
							     CTR_PHD_STATE(CTR_PHD_SEQ(s), CTR_PHD_BUSY),
							     memory_order_relaxed, memory_order_relaxed)) {
			sum += phd_group_sum(p, g0 + k, i);	/* another reader's round: read it ourselves */
			busy++;
			continue;
		}
		seq[k] = CTR_PHD_SEQ(s);
		atomic_store_explicit(&m->req, i, memory_order_relaxed);
		/* release: the request, and everything before this read, reach the claimer */
		atomic_store_explicit(&m->state, CTR_PHD_STATE(seq[k], CTR_PHD_REQ), memory_order_release);
		open[k] = 1;
		pending++;
	}
	deadline = pending ? ctr_now_ns() + (uint64_t)p->timeout_ns : 0;
	for (unsigned spin = 0; pending; spin++) {
		for (int k = 0; k < n; k++) {
			struct ctr_phd_mbox *m = &p->mbox[g0 + k];

			if (open[k] && atomic_load_explicit(&m->state, memory_order_acquire) ==
				       CTR_PHD_STATE(seq[k], CTR_PHD_ANSWERED)) {
				sum += phd_take(m, seq[k]);
				open[k] = 0;
				pending--;
				answered++;
			}
		}
		if (!pending || ((spin & 31) == 31 && ctr_now_ns() >= deadline))
			break;
		ctr_cpu_relax();
	}
	/*
	 * Timed out: withdraw what nobody claimed; abandon what a claimer has
	 * not answered yet (it was preempted mid-sum: it frees the box when it
	 * gets back); either way read the group ourselves.  Take what was
	 * answered meanwhile.  No reader ever waits past its timeout.
	 */
	for (int k = 0; k < n && pending; k++) {
		struct ctr_phd_mbox *m = &p->mbox[g0 + k];
		uint64_t s = CTR_PHD_STATE(seq[k], CTR_PHD_REQ);

		if (!open[k])
			continue;
		if (atomic_compare_exchange_strong_explicit(&m->state, &s, CTR_PHD_STATE(seq[k] + 1, CTR_PHD_IDLE),
							    memory_order_relaxed, memory_order_relaxed)) {
			sum += phd_group_sum(p, g0 + k, i);
			withdrawn++;
		} else if (s = CTR_PHD_STATE(seq[k], CTR_PHD_CLAIMED),
			   atomic_compare_exchange_strong_explicit(&m->state, &s,
								   CTR_PHD_STATE(seq[k], CTR_PHD_ABANDONED),
								   memory_order_relaxed, memory_order_relaxed)) {
			sum += phd_group_sum(p, g0 + k, i);
			withdrawn++;
		} else {
			/* ANSWERED(seq) is all that is left: acquire it, then take the answer */
			(void)atomic_load_explicit(&m->state, memory_order_acquire);
			sum += phd_take(m, seq[k]);
			answered++;
		}
		open[k] = 0;
		pending--;
	}
	if (answered)
		atomic_fetch_add_explicit(&p->stats.answered, answered, memory_order_relaxed);
	if (withdrawn)
		atomic_fetch_add_explicit(&p->stats.withdrawn, withdrawn, memory_order_relaxed);
	if (busy)
		atomic_fetch_add_explicit(&p->stats.busy, busy, memory_order_relaxed);
	return sum;
}

int64_t __ctr_phd_read(struct ctr_tree *t, int node, int stat)
{
	struct ctr_percpu_hier_delegated *p = phd_of(t);
	size_t i = (size_t)node * t->nr_stats + stat;
	int64_t sum = 0;

	if (!p->timeout_ns)
		return __ctr_phd_sum(p, i);
	for (int g = 0; g < p->nr_groups; g += CTR_PHD_BATCH)
		sum += phd_read_batch(p, i, g, p->nr_groups - g < CTR_PHD_BATCH ? p->nr_groups - g : CTR_PHD_BATCH);
	return sum;
}

static int64_t phd_read_exact(struct ctr_tree *t, int node, int stat)
{
	return __ctr_phd_sum(phd_of(t), (size_t)node * t->nr_stats + stat);
}

static int phd_set_option(struct ctr_tree *t, const char *key, const char *value)
{
	struct ctr_percpu_hier_delegated *p = phd_of(t);
	char *end;
	long long v;

	if (strcmp(key, "timeout_ns"))
		return -ENOENT;
	if (!*value || *value < '0' || *value > '9')
		return -EINVAL;
	errno = 0;
	v = strtoll(value, &end, 10);
	if (errno || *end || v < 0 || v > 1000000000LL)
		return -EINVAL;
	/* -1: 0 was given (never post), told apart from "not given" until init */
	p->timeout_ns = v ? v : -1;
	return 0;
}

static size_t phd_area_size(const struct ctr_tree *t)
{
	return (size_t)t->nr_nodes * t->nr_stats * sizeof(int64_t);
}

static void phd_fini(struct ctr_tree *t)
{
	struct ctr_percpu_hier_delegated *p = phd_of(t);

	if (p->area)
		for (int cpu = 0; cpu < t->nr_cpus; cpu++)
			ctr_free_slot_area(t, (void *)p->area[cpu], phd_area_size(t));
	ctr_free(p->area);
	ctr_free(p->mbox);
	ctr_free(p->group_of);
	ctr_free(p->member_base);
	ctr_free(p->members);
	ctr_offsets_fini(&p->off);
}

/* Groups: one per distinct L3 of the map, in order of first slot; without one, runs of the default size. */
static int phd_build_groups(struct ctr_percpu_hier_delegated *p)
{
	const struct ctr_tree *t = &p->base;
	int *first = ctr_malloc(sizeof(int) * t->nr_cpus);	/* first slot of each group, to match L3 ids */
	int n = 0;

	p->group_of = ctr_malloc(sizeof(int) * t->nr_cpus);
	p->members = ctr_malloc(sizeof(int) * t->nr_cpus);
	if (!first || !p->group_of || !p->members) {
		ctr_free(first);
		return -ENOMEM;
	}
	for (int c = 0; c < t->nr_cpus; c++) {
		int g = -1;

		if (!t->slot_l3) {
			g = c / CTR_PHD_DEFAULT_GROUP;
			n = g + 1;
		} else {
			for (int k = 0; k < n && g < 0; k++)
				if (t->slot_l3[first[k]] == t->slot_l3[c])
					g = k;
			if (g < 0) {
				first[n] = c;
				g = n++;
			}
		}
		p->group_of[c] = g;
	}
	ctr_free(first);
	p->nr_groups = n;
	p->member_base = ctr_calloc(n + 1, sizeof(int));
	if (!p->member_base)
		return -ENOMEM;
	for (int c = 0; c < t->nr_cpus; c++)
		p->member_base[p->group_of[c] + 1]++;
	for (int g = 0; g < n; g++)
		p->member_base[g + 1] += p->member_base[g];
	{
		int *fill = ctr_calloc(n, sizeof(int));

		if (!fill)
			return -ENOMEM;
		for (int c = 0; c < t->nr_cpus; c++) {
			int g = p->group_of[c];

			p->members[p->member_base[g] + fill[g]++] = c;
		}
		ctr_free(fill);
	}
	return 0;
}

static int phd_init(struct ctr_tree *t)
{
	struct ctr_percpu_hier_delegated *p = phd_of(t);
	int err;

	if (!p->timeout_ns)
		p->timeout_ns = CTR_PHD_DEFAULT_TIMEOUT_NS;
	else if (p->timeout_ns < 0)
		p->timeout_ns = 0;
	err = phd_build_groups(p);
	if (err)
		goto fail;
	err = -ENOMEM;
	p->mbox = ctr_zalloc_aligned(sizeof(*p->mbox) * p->nr_groups);
	p->area = ctr_calloc(t->nr_cpus, sizeof(*p->area));
	if (!p->mbox || !p->area || ctr_offsets_init(&p->off, t, (size_t)t->nr_stats))
		goto fail;
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		p->area[cpu] = ctr_alloc_slot_area(t, cpu, phd_area_size(t));
		if (!p->area[cpu]) {
			err = errno ? -errno : -ENOMEM;
			goto fail;
		}
	}
	return 0;
fail:
	phd_fini(t);
	p->area = NULL;
	p->mbox = NULL;
	p->group_of = p->member_base = p->members = NULL;
	return err;
}

/* The groups (built on the probe and freed: their count sizes the mailboxes), the areas. */
static size_t phd_footprint(struct ctr_tree *t)
{
	struct ctr_percpu_hier_delegated *p = phd_of(t);
	size_t b, groups;

	groups = phd_build_groups(p) ? (size_t)t->nr_cpus : (size_t)p->nr_groups;
	ctr_free(p->group_of);
	ctr_free(p->member_base);
	ctr_free(p->members);
	p->group_of = p->member_base = p->members = NULL;
	b = 2 * ctr_alloc_footprint((size_t)t->nr_cpus * sizeof(int));
	b = ctr_size_add(b, ctr_alloc_footprint((groups + 1) * sizeof(int)));
	b = ctr_size_add(b, ctr_alloc_footprint(groups * sizeof(struct ctr_phd_mbox)));
	b = ctr_size_add(b, ctr_alloc_footprint((size_t)t->nr_cpus * sizeof(void *)));
	b = ctr_size_add(b, ctr_offsets_footprint(t));
	return ctr_size_add(b, ctr_slot_areas_footprint(t, phd_area_size(t)));
}

/* The instance (the read counts named), the mailboxes, the groups, the slots' counts. */
static int phd_layout(struct ctr_tree *t, const struct ctr_layout_sink *s)
{
	struct ctr_percpu_hier_delegated *p = phd_of(t);
	static const struct ctr_span spans[] = {
		CTR_SPAN(struct ctr_percpu_hier_delegated, stats, "how reads were served (counts)"),
	};
	size_t cpus = (size_t)t->nr_cpus;
	int err = ctr_emit_instance(s, spans, 1);

	for (int g = 0; !err && g < p->nr_groups; g++)
		err = ctr_emit(s, &p->mbox[g], sizeof(*p->mbox), -1, -1, g, "the L3 group's mailbox");
	if (!err)
		err = ctr_emit(s, p->group_of, cpus * sizeof(int), -1, -1, -1, "the slots' groups");
	if (!err)
		err = ctr_emit(s, p->member_base, ((size_t)p->nr_groups + 1) * sizeof(int), -1, -1, -1,
			       "the groups' first members");
	if (!err)
		err = ctr_emit(s, p->members, cpus * sizeof(int), -1, -1, -1, "the groups' members");
	if (!err)
		err = ctr_emit(s, p->area, cpus * sizeof(*p->area), -1, -1, -1, "the slots' area pointers");
	for (int cpu = 0; !err && cpu < t->nr_cpus; cpu++)
		err = ctr_emit_nodes(s, p->area[cpu], (size_t)t->nr_stats * sizeof(int64_t), NULL, cpu, "the slot's count");
	return err ? err : ctr_emit_offsets(s, &p->off);
}

const struct ctr_algo ctr_algo_percpu_hier_delegated = {
	.name = "percpu_hier_delegated",
	.summary = "(c)'s slots + a mailbox per L3 group: a read asks each group, an updater there sums "
		   "its group and answers (idle groups read directly); exact at rest",
	.flags = CTR_CHARGE_RACY | CTR_READ_ASKS_UPDATERS,
	.size = sizeof(struct ctr_percpu_hier_delegated),
	.set_option = phd_set_option,
	.init = phd_init,
	.fini = phd_fini,
	.footprint = phd_footprint,
	.layout = phd_layout,
	.add = ctr_percpu_hier_delegated_add,
	.read = __ctr_phd_read,
	.read_exact = phd_read_exact,
	.try_charge = ctr_percpu_hier_delegated_try_charge,
};
