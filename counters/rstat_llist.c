/* SPDX-License-Identifier: MIT */
/*
 * rstat_llist.c - lists, flushes, subsystems and their locks.  See
 * rstat_llist.h for the mechanism and the ordering argument.  The updated
 * trees and the fold are rstat.c's (rstat_tree.h), here touched by flushers only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "rstat_llist.h"

static struct ctr_rstat_llist *rsl_of(const struct ctr_tree *t)
{
	return ctr_container_of(t, struct ctr_rstat_llist, base);
}

static struct ctr_rsl_lock *rsl_lock_of(struct ctr_rstat_llist *r, int sub)
{
	return &r->locks[r->lock_global ? 0 : sub];
}

/* ---- the flush locks, instrumented per subsystem ---- */

static void rsl_lock(struct ctr_rstat_llist *r, int sub)
{
	struct ctr_rsl_lock *l = rsl_lock_of(r, sub);
	struct ctr_rsl_subsys *s = &r->sub[sub];
	uint64_t t0 = 0;
	int waited = 0;

	if (pthread_mutex_trylock(&l->mutex)) {
		t0 = ctr_now_ns();
		atomic_fetch_add_explicit(&l->waiters, 1, memory_order_relaxed);
		pthread_mutex_lock(&l->mutex);
		atomic_fetch_sub_explicit(&l->waiters, 1, memory_order_relaxed);
		waited = 1;
	}
	/* the subsystem's figures are written under the lock its flushes take */
	s->t_acquired = ctr_now_ns();
	s->acquisitions++;
	if (waited) {
		s->contended++;
		s->wait_ns += s->t_acquired - t0;
	}
}

static void rsl_unlock(struct ctr_rstat_llist *r, int sub)
{
	struct ctr_rsl_subsys *s = &r->sub[sub];

	s->hold_ns += ctr_now_ns() - s->t_acquired;
	pthread_mutex_unlock(&rsl_lock_of(r, sub)->mutex);
}

/* Between two CPUs, let a waiter in (as rstat.c: yield until it got in, or a few rounds). */
static void rsl_lock_break(struct ctr_rstat_llist *r, int sub)
{
	struct ctr_rsl_lock *l = rsl_lock_of(r, sub);
	int waiting = atomic_load_explicit(&l->waiters, memory_order_relaxed);

	r->sub[sub].lock_breaks++;
	rsl_unlock(r, sub);
	for (int i = 0; i < 16 && atomic_load_explicit(&l->waiters, memory_order_relaxed) >= waiting; i++)
		sched_yield();
	rsl_lock(r, sub);
}

/* ---- the lists ---- */

void __ctr_rstat_llist_push(struct ctr_rstat_llist *r, int cpu, int sub, int node)
{
	struct ctr_rsl_cpu *c = r->cpu[cpu];
	_Atomic int *next = &c->next[(size_t)sub * r->base.nr_nodes + node];
	_Atomic int *head = &c->head[sub];
	int off = CTR_RSL_OFF, first;

	/*
	 * Claim: off -> end.  With one writer per slot nothing else claims it
	 * (a flusher only marks off nodes it took from the list), but this is
	 * the kernel's try_cmpxchg and what the update pays on its first change
	 * after a flush.  A node claimed reads as listed from here on.
	 */
	if (!atomic_compare_exchange_strong_explicit(next, &off, CTR_RSL_END, memory_order_seq_cst,
						     memory_order_relaxed))
		return;
	/* llist_add: the head's CAS publishes next (release); a flusher exchanges the head (acquire) */
	first = atomic_load_explicit(head, memory_order_relaxed);
	do
		atomic_store_explicit(next, first, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(head, &first, node, memory_order_release,
						      memory_order_relaxed));
}

/* Take cpu's whole list of subsystem sub into its updated tree (llist_del_all, then init each node). */
static void rsl_drain(struct ctr_rstat_llist *r, int cpu, int sub)
{
	struct ctr_rsl_cpu *c = r->cpu[cpu];
	struct ctr_rstat_link *l = c->link + (size_t)sub * r->base.nr_nodes;
	_Atomic int *next = c->next + (size_t)sub * r->base.nr_nodes;
	int x;

	/* a plain load first: an empty list costs no write to the owner's line */
	if (atomic_load_explicit(&c->head[sub], memory_order_relaxed) == CTR_RSL_END)
		return;
	x = atomic_exchange_explicit(&c->head[sub], CTR_RSL_END, memory_order_acquire);
	while (x != CTR_RSL_END) {
		/* claimed but not pushed yet cannot be on a list we took: next is a node or the end */
		int nx = atomic_load_explicit(&next[x], memory_order_relaxed);

		/* off the list before its slot is read (the fold's seq_cst load): see rstat_llist.h */
		atomic_store_explicit(&next[x], CTR_RSL_OFF, r->fence_none ? memory_order_relaxed : memory_order_seq_cst);
		/* css_process_update_tree(): x and its unlinked ancestors, into the updated tree */
		ctr_rstat_tree_link(l, r->base.parent, x);
		x = nx;
	}
}

/*
 * Detach the updated subtree under n from cpu's tree of sub (rstat_tree.h),
 * -1 if n is not linked.  Plain unlinks: no one reads the tree without the
 * flush lock (the owner checks its list node instead).
 */
static int rsl_detach(struct ctr_rstat_llist *r, int cpu, int sub, int n)
{
	struct ctr_rstat_link *l = r->cpu[cpu]->link + (size_t)sub * r->base.nr_nodes;

	if (atomic_load_explicit(&l[n].updated_next, memory_order_relaxed) == CTR_RSTAT_OFF)
		return -1;
	return ctr_rstat_tree_detach(l, r->base.parent, r->sub[sub].stack, n, CTR_RSTAT_WALK_UNLINK);
}

/*
 * Fold a detached list, children first, the stats of subsystem sub only;
 * the slot loads seq_cst, after the seq_cst "off" stores of the drain
 * (rstat_llist.h), but with fence=none.
 */
static void rsl_fold(struct ctr_rstat_llist *r, int cpu, int sub, int head)
{
	struct ctr_rsl_cpu *c = r->cpu[cpu];

	ctr_rstat_tree_fold(&r->base, c->link + (size_t)sub * r->base.nr_nodes, head, c->slot, c->last,
			    r->aggr, r->pending, sub, r->nr_subsys, !r->fence_none);
}

/* Flush n's subtree of subsystem sub: after it, with no update in progress, its stats under n are exact. */
static void rsl_flush(struct ctr_rstat_llist *r, int sub, int n)
{
	struct ctr_rsl_subsys *s = &r->sub[sub];
	uint64_t t0;

	rsl_lock(r, sub);
	t0 = s->t_acquired;
	for (int cpu = 0; cpu < r->base.nr_cpus; cpu++) {
		int head;

		rsl_drain(r, cpu, sub);
		head = rsl_detach(r, cpu, sub, n);
		if (head < 0)
			continue;
		rsl_fold(r, cpu, sub, head);
		if (cpu + 1 < r->base.nr_cpus &&
		    atomic_load_explicit(&rsl_lock_of(r, sub)->waiters, memory_order_relaxed) > 0)
			rsl_lock_break(r, sub);
	}
	s->flushes++;
	ctr_hist_add(&s->flush_ns, ctr_now_ns() - t0);
	rsl_unlock(r, sub);
}

static int rsl_sub_of(const struct ctr_rstat_llist *r, int stat)
{
	return r->nr_subsys > 1 ? stat % r->nr_subsys : 0;
}

int64_t __ctr_rstat_llist_read(struct ctr_tree *t, int node, int stat)
{
	struct ctr_rstat_llist *r = rsl_of(t);
	int sub = rsl_sub_of(r, stat);

	rsl_flush(r, sub, node);
	atomic_fetch_add_explicit(&r->sub[sub].reads, 1, memory_order_relaxed);
	return atomic_load_explicit(&r->aggr[(size_t)node * t->nr_stats + stat], memory_order_relaxed);
}

static int64_t rsl_read_exact(struct ctr_tree *t, int node, int stat)
{
	struct ctr_rstat_llist *r = rsl_of(t);

	rsl_flush(r, rsl_sub_of(r, stat), 0);
	return atomic_load_explicit(&r->aggr[(size_t)node * t->nr_stats + stat], memory_order_relaxed);
}

/* ---- figures ---- */

/* Take (and reset) subsystem sub's figures; the caller holds its lock. */
static void rsl_take(struct ctr_rstat_llist *r, int sub, struct ctr_flush_stats *out, int reset)
{
	struct ctr_rsl_subsys *s = &r->sub[sub];
	uint64_t reads = reset ? atomic_exchange_explicit(&s->reads, 0, memory_order_relaxed)
			       : atomic_load_explicit(&s->reads, memory_order_relaxed);

	out->flushes += s->flushes;
	out->lock_acquisitions += s->acquisitions;
	out->lock_contended += s->contended;
	out->lock_wait_ns += s->wait_ns;
	out->lock_hold_ns += s->hold_ns;
	out->lock_breaks += s->lock_breaks;
	ctr_hist_merge(&out->flush_ns, &s->flush_ns);
	/* every read flushes for itself */
	out->reads_flush += reads;
	out->reader_flushes += reads;
	if (reset) {
		s->flushes = s->acquisitions = s->contended = 0;
		s->wait_ns = s->hold_ns = s->lock_breaks = 0;
		ctr_hist_reset(&s->flush_ns);
	}
}

void ctr_rstat_llist_subsys_stats(struct ctr_tree *t, int sub, struct ctr_flush_stats *out, int reset)
{
	struct ctr_rstat_llist *r = rsl_of(t);
	struct ctr_rsl_lock *l = rsl_lock_of(r, sub);

	memset(out, 0, sizeof(*out));
	/* the raw mutex: reading the figures must not count in them */
	pthread_mutex_lock(&l->mutex);
	rsl_take(r, sub, out, reset);
	pthread_mutex_unlock(&l->mutex);
}

static void rsl_flush_stats(struct ctr_tree *t, struct ctr_flush_stats *out, int reset)
{
	struct ctr_rstat_llist *r = rsl_of(t);

	memset(out, 0, sizeof(*out));
	for (int k = 0; k < r->nr_subsys; k++) {
		struct ctr_rsl_lock *l = rsl_lock_of(r, k);

		pthread_mutex_lock(&l->mutex);
		rsl_take(r, k, out, reset);
		pthread_mutex_unlock(&l->mutex);
	}
}

/* ---- create / free ---- */

static int rsl_set_option(struct ctr_tree *t, const char *key, const char *value)
{
	struct ctr_rstat_llist *r = rsl_of(t);

	if (!strcmp(key, "fence")) {
		if (!strcmp(value, "update"))
			r->fence_none = 0;
		else if (!strcmp(value, "none"))
			r->fence_none = 1;
		else
			return -EINVAL;
		return 0;
	}
	if (!strcmp(key, "lock")) {
		if (!strcmp(value, "per-tree"))
			r->lock_global = 0;
		else if (!strcmp(value, "global"))
			r->lock_global = 1;
		else
			return -EINVAL;
		return 0;
	}
	if (!strcmp(key, "subsys")) {
		char *end;
		long k = strtol(value, &end, 10);

		if (*value < '0' || *value > '9' || *end || k < 1 || k > CTR_RSL_MAX_SUBSYS)
			return -EINVAL;
		r->nr_subsys = (int)k;
		return 0;
	}
	return -ENOENT;
}

/* The parts of one slot's area, each on lines of its own. */
struct rsl_layout {
	size_t hdr, vals, nexts, links, heads;	/* bytes of each part, rounded to lines */
};

static size_t rsl_cpu_size(const struct ctr_rstat_llist *r, struct rsl_layout *lay)
{
	const struct ctr_tree *t = &r->base;
	size_t words = (size_t)t->nr_nodes * t->nr_stats, lists = (size_t)r->nr_subsys * t->nr_nodes;

	lay->hdr = CTR_ROUND_UP(sizeof(struct ctr_rsl_cpu), CTR_CACHELINE);
	lay->vals = CTR_ROUND_UP(words * sizeof(int64_t), CTR_CACHELINE);
	lay->nexts = CTR_ROUND_UP(lists * sizeof(int), CTR_CACHELINE);
	lay->links = CTR_ROUND_UP(lists * sizeof(struct ctr_rstat_link), CTR_CACHELINE);
	lay->heads = CTR_ROUND_UP(r->nr_subsys * sizeof(int), CTR_CACHELINE);
	return lay->hdr + 2 * lay->vals + lay->nexts + lay->links + lay->heads;
}

static struct ctr_rsl_cpu *rsl_cpu_new(const struct ctr_rstat_llist *r, int cpu)
{
	struct rsl_layout lay;
	size_t lists = (size_t)r->nr_subsys * r->base.nr_nodes;
	struct ctr_rsl_cpu *c = ctr_alloc_slot_area(&r->base, cpu, rsl_cpu_size(r, &lay));
	char *base = (char *)c;

	if (!c)
		return NULL;
	c->slot = (_Atomic int64_t *)(base + lay.hdr);
	c->last = (int64_t *)(base + lay.hdr + lay.vals);
	c->next = (_Atomic int *)(base + lay.hdr + 2 * lay.vals);
	c->link = (struct ctr_rstat_link *)(base + lay.hdr + 2 * lay.vals + lay.nexts);
	c->head = (_Atomic int *)(base + lay.hdr + 2 * lay.vals + lay.nexts + lay.links);
	for (size_t x = 0; x < lists; x++) {
		atomic_init(&c->next[x], CTR_RSL_OFF);
		atomic_init(&c->link[x].updated_next, CTR_RSTAT_OFF);
		c->link[x].updated_children = (int)(x % r->base.nr_nodes);
	}
	for (int k = 0; k < r->nr_subsys; k++)
		atomic_init(&c->head[k], CTR_RSL_END);
	return c;
}

static void rsl_fini(struct ctr_tree *t)
{
	struct ctr_rstat_llist *r = rsl_of(t);
	struct rsl_layout lay;
	int nlocks = r->lock_global ? 1 : r->nr_subsys;

	for (int cpu = 0; r->cpu && cpu < t->nr_cpus; cpu++)
		if (r->cpu[cpu])
			ctr_free_slot_area(t, r->cpu[cpu], rsl_cpu_size(r, &lay));
	ctr_free(r->cpu);
	ctr_free(r->aggr);
	ctr_free(r->pending);
	for (int k = 0; r->locks && k < nlocks; k++)
		pthread_mutex_destroy(&r->locks[k].mutex);
	ctr_free(r->locks);
	for (int k = 0; r->sub && k < r->nr_subsys; k++)
		ctr_free(r->sub[k].stack);
	ctr_free(r->sub);
	r->cpu = NULL;
	r->aggr = NULL;
	r->pending = NULL;
	r->locks = NULL;
	r->sub = NULL;
}

static int rsl_init(struct ctr_tree *t)
{
	struct ctr_rstat_llist *r = rsl_of(t);
	size_t words = (size_t)t->nr_nodes * t->nr_stats;
	int nlocks, err = -ENOMEM;
	pthread_mutexattr_t ma;

	if (!r->nr_subsys)
		r->nr_subsys = 1;
	nlocks = r->lock_global ? 1 : r->nr_subsys;
	r->cpu = ctr_zalloc_aligned(t->nr_cpus * sizeof(*r->cpu));
	r->aggr = ctr_zalloc_aligned(words * sizeof(*r->aggr));
	r->pending = ctr_calloc(words, sizeof(*r->pending));
	r->locks = ctr_zalloc_aligned(nlocks * sizeof(*r->locks));
	r->sub = ctr_zalloc_aligned(r->nr_subsys * sizeof(*r->sub));
	if (!r->cpu || !r->aggr || !r->pending || !r->locks || !r->sub) {
		ctr_free(r->locks);
		r->locks = NULL;	/* no mutex initialized yet */
		goto fail;
	}
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP);
	for (int k = 0; k < nlocks; k++) {
		pthread_mutex_init(&r->locks[k].mutex, &ma);
		/* lock=global is cgroup_rstat_lock; per subsystem, the kernel's ss->rstat_ss_lock */
		CTR_LOCK_ROLE(&r->locks[k].mutex, r->lock_global ? "flush lock" : "per-subsystem flush lock");
	}
	pthread_mutexattr_destroy(&ma);
	for (int k = 0; k < r->nr_subsys; k++) {
		r->sub[k].stack = ctr_malloc(sizeof(int) * t->nr_nodes);
		if (!r->sub[k].stack)
			goto fail;
	}
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		r->cpu[cpu] = rsl_cpu_new(r, cpu);
		if (!r->cpu[cpu]) {
			err = errno ? -errno : -ENOMEM;
			goto fail;
		}
	}
	return 0;
fail:
	rsl_fini(t);
	return err;
}

static int64_t rsl_error_bound(const struct ctr_tree *t)
{
	return rsl_of(t)->fence_none ? -1 : 0;	/* fence=none: a stranded delta waits for its node's next update */
}

/* Every read flushes; only fence=none's stranded delta makes it stale, for as long as its node idles. */
static double rsl_staleness_ms(const struct ctr_tree *t, double flush_ms, char *why, size_t len)
{
	(void)flush_ms;
	if (rsl_of(t)->fence_none) {
		snprintf(why, len, "unbounded (fence=none: a stranded delta waits for its node's next update)");
		return CTR_STALE_UNBOUNDED;
	}
	snprintf(why, len, "exact: every read flushes its subtree");
	return 0;
}

/* The shared arrays, one stack per subsystem, and every slot's block (rsl_cpu_size). */
static size_t rsl_footprint(struct ctr_tree *t)
{
	struct ctr_rstat_llist *r = rsl_of(t);
	size_t words = (size_t)t->nr_nodes * t->nr_stats, subsys, nlocks, b;
	struct rsl_layout lay;

	if (!r->nr_subsys)
		r->nr_subsys = 1;
	subsys = (size_t)r->nr_subsys;
	nlocks = r->lock_global ? 1 : subsys;
	b = ctr_alloc_footprint((size_t)t->nr_cpus * sizeof(*r->cpu));
	b = ctr_size_add(b, 2 * ctr_alloc_footprint(ctr_size_mul(words, sizeof(int64_t))));
	b = ctr_size_add(b, ctr_alloc_footprint(nlocks * sizeof(*r->locks)));
	b = ctr_size_add(b, ctr_alloc_footprint(subsys * sizeof(*r->sub)));
	b = ctr_size_add(b, ctr_size_mul(subsys, ctr_alloc_footprint((size_t)t->nr_nodes * sizeof(int))));
	return ctr_size_add(b, ctr_slot_areas_footprint(t, rsl_cpu_size(r, &lay)));
}

/* One slot's area (rsl_cpu_size): header, slots, last folded values, list nodes, links, heads. */
static int rsl_layout_cpu(const struct ctr_layout_sink *s, const struct ctr_rstat_llist *r, int cpu)
{
	const struct ctr_tree *t = s->t;
	const struct ctr_rsl_cpu *c = r->cpu[cpu];
	size_t stats = (size_t)t->nr_stats * sizeof(int64_t), n = (size_t)t->nr_nodes, lists = r->nr_subsys * n;
	struct rsl_layout lay;
	const char *b = (const char *)c, *at;
	int err;

	rsl_cpu_size(r, &lay);
	err = ctr_emit(s, b, lay.hdr, -1, cpu, -1, "the slot's header");
	at = b + lay.hdr;
	if (!err)
		err = ctr_emit_nodes(s, at, stats, NULL, cpu, "the slot's stats");
	if (!err)
		err = ctr_emit_pad(s, at, n * stats, lay.vals, cpu);
	at += lay.vals;
	if (!err)
		err = ctr_emit_nodes(s, at, stats, NULL, cpu, "the slot's stats as last folded");
	if (!err)
		err = ctr_emit_pad(s, at, n * stats, lay.vals, cpu);
	at += lay.vals;
	for (size_t x = 0; !err && x < lists; x++)
		err = ctr_emit(s, at + x * sizeof(int), sizeof(int), (int)(x % n), cpu, (int)(x / n),
			       "the slot's llist node (the subsystem's updated list)");
	if (!err)
		err = ctr_emit_pad(s, at, lists * sizeof(int), lay.nexts, cpu);
	at += lay.nexts;
	for (size_t x = 0; !err && x < lists; x++)
		err = ctr_emit(s, at + x * sizeof(struct ctr_rstat_link), sizeof(struct ctr_rstat_link), (int)(x % n), cpu,
			       (int)(x / n), "the slot's updated-tree link");
	if (!err)
		err = ctr_emit_pad(s, at, lists * sizeof(struct ctr_rstat_link), lay.links, cpu);
	at += lay.links;
	for (int k = 0; !err && k < r->nr_subsys; k++)
		err = ctr_emit(s, at + k * sizeof(int), sizeof(int), -1, cpu, k, "the slot's llist head");
	return err ? err : ctr_emit_pad(s, at, r->nr_subsys * sizeof(int), lay.heads, cpu);
}

/* The instance, the slots' areas, the flushed values, the locks, the subsystems and their stacks. */
static int rsl_layout(struct ctr_tree *t, const struct ctr_layout_sink *s)
{
	struct ctr_rstat_llist *r = rsl_of(t);
	size_t stats = (size_t)t->nr_stats * sizeof(int64_t);
	int nlocks = r->lock_global ? 1 : r->nr_subsys;
	int err = ctr_emit_instance(s, NULL, 0);

	if (!err)
		err = ctr_emit(s, r->cpu, (size_t)t->nr_cpus * sizeof(*r->cpu), -1, -1, -1, "the slots' area pointers");
	for (int cpu = 0; !err && cpu < t->nr_cpus; cpu++)
		err = rsl_layout_cpu(s, r, cpu);
	if (!err)
		err = ctr_emit_nodes(s, r->aggr, stats, NULL, -1, "the node's flushed value");
	if (!err)
		err = ctr_emit_nodes(s, r->pending, stats, NULL, -1, "the node's pending from flushed children");
	for (int k = 0; !err && k < nlocks; k++)
		err = ctr_emit(s, &r->locks[k], sizeof(*r->locks), -1, -1, r->lock_global ? -1 : k,
			       r->lock_global ? "the flush lock" : "the subsystem's flush lock");
	for (int k = 0; !err && k < r->nr_subsys; k++) {
		err = ctr_emit(s, &r->sub[k], sizeof(*r->sub), -1, -1, k, "the subsystem's flush counts");
		if (!err)
			err = ctr_emit(s, r->sub[k].stack, (size_t)t->nr_nodes * sizeof(int), -1, -1, k,
				       "the subsystem's walk stack");
	}
	return err;
}

const struct ctr_algo ctr_algo_rstat_llist = {
	.name = "rstat_llist",
	.summary = "rstat with lockless per-CPU updated lists (6.18): update = store + on-list check, "
		   "push with CAS; every read flushes its subtree; subsys=K, lock=global|per-tree",
	.flags = CTR_CHARGE_RACY,
	.size = sizeof(struct ctr_rstat_llist),
	.set_option = rsl_set_option,
	.init = rsl_init,
	.fini = rsl_fini,
	.footprint = rsl_footprint,
	.layout = rsl_layout,
	.add = ctr_rstat_llist_add,
	.read = __ctr_rstat_llist_read,
	.read_exact = rsl_read_exact,
	.try_charge = ctr_rstat_llist_try_charge,
	.error_bound = rsl_error_bound,
	.staleness_ms = rsl_staleness_ms,
	.flush_stats = rsl_flush_stats,
};
