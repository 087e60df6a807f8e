/* SPDX-License-Identifier: MIT */
/*
 * rstat_llist - rstat with lockless "updated" lists, as kernel 6.18's
 * kernel/cgroup/rstat.c: the update path takes no lock at all.  Every read
 * flushes the node's subtree, as rstat_force, so the two compare the update
 * paths and the flushes of the same policy.
 *
 * Update: add the delta to the caller's slot (load and store, one writer),
 * then the kernel's css_rstat_updated(): if the node's per-CPU list node is
 * already on a list, done; else claim it (a compare-and-swap of its `next`
 * from "off" to "end", which in the kernel picks one winner among an updater
 * and the interrupts or NMIs that re-enter it) and push it on the CPU's list
 * head with a compare-and-swap (llist_add).  Nothing links ancestors here:
 * the list only says "this node changed on this CPU".
 *
 * Flush of n: under the flush lock, for every CPU take the whole list
 * (llist_del_all, an exchange of the head), and for each node on it read its
 * `next`, then mark it off the list (init_llist_node) and link it and its
 * unlinked ancestors into the CPU's updated tree, which only flushers touch
 * now (under the flush lock, so the kernel's per-CPU locks are gone, as its
 * later patches removed them).  Then, as rstat_force: detach the updated
 * subtree under n, and fold children before parents (slot minus the value
 * at the last fold, plus what flushed children handed up).
 *
 * The store-buffering hazard of rstat.h applies, with the list node in the
 * place of updated_next: the updater stores the slot, then loads `next` to
 * see whether the node is listed; the flusher stores "off" into `next`, then
 * loads the slot.  Without a StoreLoad barrier on both sides both loads can
 * return the old values: the flusher folds the old slot, the updater sees
 * the node listed and does not push it, and the delta is stranded until the
 * node's next update on that CPU (the kernel's comments ask for an smp_mb()
 * pair "if the guarantee is required by a rstat user"; none adds it).  With
 * options=fence=update (default) it is closed as rstat.h closes it: the slot
 * store and the `next` load are seq_cst (an xchg and a plain load on x86-64),
 * and so are the flusher's "off" store and its slot load.  All four are in
 * C11's single total order S: if the updater's load precedes the flusher's
 * store in S it read "listed" from a list the flusher had not yet emptied of
 * it, and the flusher's slot load, after its own store, follows the
 * updater's slot store, so it folds the delta; otherwise the updater's load
 * reads "off" (or a later value) and it pushes the node again, so the next
 * flush finds it.  Either way no delta of a completed update is left behind,
 * and ctr_read_exact is exact (test_mt_rstat_llist holds it to that, under
 * TSan, with flushes racing updates on every node, and counts strandings in
 * a litmus of the window itself).  fence=none is the kernel's behaviour:
 * plain stores and loads on both sides (error bound -1).
 *
 * Subsystems and flush locks (kernel 6.16, JP Kobryn's series): stats are
 * spread over options=subsys=K subsystems (stat s in subsystem s mod K,
 * default 1), each with its own per-CPU lists and updated trees, so a flush
 * of one subsystem's stat never walks another's.  options=lock=per-tree
 * (default: 6.16 on) gives each subsystem its own flush lock; lock=global
 * makes them share one, as before 6.16.  (Before 6.16 the kernel also shared
 * one updated tree among subsystems; lock=global keeps the trees apart, so it
 * isolates the cost of the shared lock.)  Lock figures are kept per
 * subsystem: with a shared lock, the acquisitions, contention and waits of
 * the flushes of that subsystem (ctr_rstat_llist_subsys_stats).
 */
#ifndef CTR_RSTAT_LLIST_H
#define CTR_RSTAT_LLIST_H

#include <pthread.h>

#include "ctr_internal.h"
#include "hist.h"
#include "rstat_tree.h"	/* struct ctr_rstat_link: the updated trees, rstat's, here only flushers' */

#define CTR_RSL_OFF (-2)	/* list node's next: not on any list (the kernel's "points to itself") */
#define CTR_RSL_END (-1)	/* ... last on its list (the kernel's NULL) */
#define CTR_RSL_MAX_SUBSYS 16	/* options=subsys=K, 1..16 (the kernel has about a dozen controllers) */

/* One slot's area, every part on lines of its own (allocated with ctr_alloc_slot_area). */
struct ctr_rsl_cpu {
	_Atomic int64_t *slot;		/* [node * nr_stats + stat]; only the owner writes */
	int64_t *last;			/* slot as of the last fold; under the counter's subsystem's lock */
	_Atomic int *next;		/* [sub * nr_nodes + node] list node: CTR_RSL_OFF, CTR_RSL_END or the next
					 * node; the owner claims (CAS) and links, a flusher marks it off */
	struct ctr_rstat_link *link;	/* [sub * nr_nodes + node] the updated trees; under the subsystem's lock */
	_Atomic int *head;		/* [sub] first node of the CPU's list; owner CASes, flusher exchanges */
};

/* One flush lock. */
struct ctr_rsl_lock {
	pthread_mutex_t mutex;		/* adaptive, as rstat.h's global lock */
	_Atomic int waiters;		/* blocked on it: a flusher drops it between CPUs if > 0 */
} __ctr_aligned;

/* One subsystem's flush figures, written under the lock its flushes take. */
struct ctr_rsl_subsys {
	uint64_t flushes;		/* flushes of this subsystem */
	uint64_t acquisitions;		/* flush lock taken by them */
	uint64_t contended;		/* ... after waiting */
	uint64_t wait_ns;		/* time they waited for it */
	uint64_t hold_ns;		/* time they held it */
	uint64_t lock_breaks;		/* times they dropped it between CPUs for a waiter */
	uint64_t t_acquired;		/* when the current holder took it */
	struct ctr_hist flush_ns;	/* duration of each flush */
	int *stack;			/* [nr_nodes] scratch of the detach walk */
	_Atomic uint64_t reads __ctr_aligned;	/* reads that flushed (every read does), bumped outside the lock */
} __ctr_aligned;

struct ctr_rstat_llist {
	struct ctr_tree base;		/* common part, read-only */
	int fence_none;			/* options=fence=none */
	int lock_global;		/* options=lock=global */
	int nr_subsys;			/* options=subsys=K */
	struct ctr_rsl_cpu **cpu;	/* [nr_cpus] */
	_Atomic int64_t *aggr;		/* [node * nr_stats + stat] flushed value; written under the stat's lock */
	int64_t *pending;		/* [node * nr_stats + stat] from flushed children; under the stat's lock */
	struct ctr_rsl_lock *locks;	/* [1 if lock=global else nr_subsys] */
	struct ctr_rsl_subsys *sub;	/* [nr_subsys] */
};

extern const struct ctr_algo ctr_algo_rstat_llist;

/* Out of line: claim cpu's list node of (sub, node) and push it (css_rstat_updated's slow path). */
void __ctr_rstat_llist_push(struct ctr_rstat_llist *r, int cpu, int sub, int node);
/* Out of line: flush node's subtree of stat's subsystem, then read. */
int64_t __ctr_rstat_llist_read(struct ctr_tree *t, int node, int stat);
/* A subsystem's figures since creation or the last reset (locks, flushes, reads), reset if asked. */
void ctr_rstat_llist_subsys_stats(struct ctr_tree *t, int sub, struct ctr_flush_stats *out, int reset);

/* A prepared update (CTR_REF_WRAP in ctr_internal.h): the slow path's push is a call, as rstat's link. */
struct ctr_rstat_llist_ref {
	struct ctr_rstat_llist *r;	/* the tree */
	_Atomic int64_t *slot;		/* the owner's slot of (node, stat) */
	_Atomic int *next;		/* its list node's next on this CPU: llist_on_list() */
	int cpu, sub, node;		/* for the push */
	int fence_none;			/* options=fence=none, at ref time */
};

static inline __attribute__((always_inline)) struct ctr_rstat_llist_ref
ctr_rstat_llist_ref(struct ctr_tree *t, int cpu, int node, int stat)
{
	struct ctr_rstat_llist *r = ctr_container_of(t, struct ctr_rstat_llist, base);
	struct ctr_rsl_cpu *c = r->cpu[cpu];
	const int sub = r->nr_subsys > 1 ? stat % r->nr_subsys : 0;

	return (struct ctr_rstat_llist_ref){
		.r = r,
		.slot = &c->slot[(size_t)node * t->nr_stats + stat],
		.next = &c->next[(size_t)sub * t->nr_nodes + node],
		.cpu = cpu,
		.sub = sub,
		.node = node,
		.fence_none = r->fence_none,
	};
}

static inline __attribute__((always_inline)) void
ctr_rstat_llist_ref_add(const struct ctr_rstat_llist_ref *h, int64_t delta)
{
	int64_t v = atomic_load_explicit(h->slot, memory_order_relaxed) + delta;

	/* one writer per slot; seq_cst with fence=update: see the top */
	if (!h->fence_none)
		atomic_store_explicit(h->slot, v, memory_order_seq_cst);
	else
		atomic_store_explicit(h->slot, v, memory_order_relaxed);
	/* llist_on_list(): listed already, nothing to do */
	if (atomic_load_explicit(h->next, memory_order_seq_cst) == CTR_RSL_OFF)
		__ctr_rstat_llist_push(h->r, h->cpu, h->sub, h->node);
}

static inline void ctr_rstat_llist_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	const struct ctr_rstat_llist_ref h = ctr_rstat_llist_ref(t, cpu, node, stat);

	ctr_rstat_llist_ref_add(&h, delta);
}

static inline int64_t ctr_rstat_llist_read(struct ctr_tree *t, int node, int stat)
{
	return __ctr_rstat_llist_read(t, node, stat);
}

/* Check-then-act through the flushing read, as rstat's (CTR_CHARGE_RACY). */
static inline int ctr_rstat_llist_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	ctr_for_each_ancestor(t, n, node)
		if (ctr_limit(t, n) != CTR_NO_LIMIT &&
		    !ctr_within_limit(__ctr_rstat_llist_read(t, n, 0), delta, ctr_limit(t, n)))
			return 0;
	ctr_rstat_llist_add(t, cpu, node, 0, delta);
	return 1;
}

#endif /* CTR_RSTAT_LLIST_H */
