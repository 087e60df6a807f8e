/* SPDX-License-Identifier: MIT */
/*
 * rstat_tree.h - the "updated" tree of one CPU that rstat (rstat.c) and
 * rstat_llist (rstat_llist.c) both keep: linking a node and its unlinked
 * ancestors, detaching (or walking) the linked subtree under a node as a
 * list, children first, and folding that list into aggregated values.
 *
 * The two differ in who touches the tree, not in the tree: rstat's owner
 * links under its CPU's lock while flushers detach under it, and its
 * lockless linked check needs the detach's "unlinked" stores seq_cst (the
 * store-buffering argument of rstat.h); rstat_llist's tree is the flushers'
 * alone, under the flush lock, its owner's check is on the list instead.
 * So the code is one, and the callers say which stores must be seq_cst.
 * Always inline, with those choices constant at every call: each caller's
 * flush compiles to what its own copy did (a runtime memory order would make
 * GCC emit seq_cst).
 */
#ifndef CTR_RSTAT_TREE_H
#define CTR_RSTAT_TREE_H

#include "ctr_internal.h"

#define CTR_RSTAT_OFF (-1)		/* updated_next of a node not on the CPU's updated tree */

/* Per (CPU, node) (rstat_llist: per (CPU, subsystem, node)): that CPU's updated tree. */
struct ctr_rstat_link {
	_Atomic int updated_next;	/* next sibling on the parent's list, the parent's own index ends it;
					 * CTR_RSTAT_OFF: not linked.  rstat's owner reads it locklessly;
					 * written under the CPU's lock (rstat) or the flush lock (rstat_llist) */
	int updated_children;		/* first linked child, or this node's own index if none; under that lock */
	int flush_next;			/* next node of a detached list, children first; flusher's, under flush lock */
};

/* How ctr_rstat_tree_walk leaves the nodes it lists. */
enum ctr_rstat_walk {
	CTR_RSTAT_WALK_KEEP,		/* linked: rstat's fence=membarrier flush between prunes */
	CTR_RSTAT_WALK_UNLINK,		/* unlinked, plain stores: no lockless reader of updated_next */
	CTR_RSTAT_WALK_UNLINK_SEQ,	/* unlinked, seq_cst stores: rstat's owner checks updated_next unlocked */
};

/* Link x and its unlinked ancestors, up to the first linked one; the root links to itself. */
static inline __attribute__((always_inline)) void
ctr_rstat_tree_link(struct ctr_rstat_link *l, const int *parent, int x)
{
	for (;;) {
		int p = parent[x];

		if (atomic_load_explicit(&l[x].updated_next, memory_order_relaxed) != CTR_RSTAT_OFF)
			return;
		if (p < 0) {
			atomic_store_explicit(&l[x].updated_next, x, memory_order_relaxed);
			return;
		}
		atomic_store_explicit(&l[x].updated_next, l[p].updated_children, memory_order_relaxed);
		l[p].updated_children = x;
		x = p;
	}
}

static inline __attribute__((always_inline)) void
ctr_rstat_tree_unlink_store(_Atomic int *next, int v, enum ctr_rstat_walk how)
{
	if (how == CTR_RSTAT_WALK_UNLINK_SEQ)
		atomic_store_explicit(next, v, memory_order_seq_cst);
	else
		atomic_store_explicit(next, v, memory_order_relaxed);
}

/*
 * The linked subtree under n (n linked), as a list through flush_next, every
 * child before its parent (the reverse of a pre-order walk); with an UNLINK
 * kind every node under n is unlinked on the way (n itself is left to the
 * caller).  stack: nr_nodes ints of scratch.
 */
static inline __attribute__((always_inline)) int
ctr_rstat_tree_walk(struct ctr_rstat_link *l, int *stack, int n, enum ctr_rstat_walk how)
{
	int head = -1, sp = 0;

	stack[sp++] = n;
	while (sp) {
		int x = stack[--sp];

		l[x].flush_next = head;
		head = x;
		for (int ch = l[x].updated_children; ch != x; ) {
			int next = atomic_load_explicit(&l[ch].updated_next, memory_order_relaxed);

			stack[sp++] = ch;
			if (how != CTR_RSTAT_WALK_KEEP)
				ctr_rstat_tree_unlink_store(&l[ch].updated_next, CTR_RSTAT_OFF, how);
			ch = next;
		}
		if (how != CTR_RSTAT_WALK_KEEP)
			l[x].updated_children = x;
	}
	return head;
}

/*
 * Detach the updated subtree under n (n linked) and return it as a list, as
 * ctr_rstat_tree_walk; how is an UNLINK kind.  n's parent stays linked: it
 * gets n's delta as pending and is folded when it is flushed.  Node 0 is the
 * root.
 */
static inline __attribute__((always_inline)) int
ctr_rstat_tree_detach(struct ctr_rstat_link *l, const int *parent, int *stack, int n, enum ctr_rstat_walk how)
{
	int head;

	if (n) {
		int p = parent[n], prev = -1, x = l[p].updated_children;
		int after = atomic_load_explicit(&l[n].updated_next, memory_order_relaxed);

		/* n is on its parent's list (linking always reaches a linked ancestor) */
		while (x != n) {
			prev = x;
			x = atomic_load_explicit(&l[x].updated_next, memory_order_relaxed);
		}
		if (prev < 0)
			l[p].updated_children = after;
		else
			atomic_store_explicit(&l[prev].updated_next, after, memory_order_relaxed);
	}
	head = ctr_rstat_tree_walk(l, stack, n, how);
	ctr_rstat_tree_unlink_store(&l[n].updated_next, CTR_RSTAT_OFF, how);
	return head;
}

/*
 * Fold one CPU's list (from head through flush_next, children first) into
 * the aggregated values and the parents' pending deltas: for each node, each
 * stat s0, s0 + step, ... below nr_stats, slot minus its value at the last
 * fold plus what flushed children handed up.  seq: the slot loads are
 * seq_cst (after the seq_cst unlinks: the callers' headers say why).
 * Returns the nodes folded, the walk's length (rstat counts them).
 */
static inline __attribute__((always_inline)) int
ctr_rstat_tree_fold(const struct ctr_tree *t, const struct ctr_rstat_link *l, int head,
		    _Atomic int64_t *slot, int64_t *last, _Atomic int64_t *aggr, int64_t *pending,
		    int s0, int step, int seq)
{
	const int ns = t->nr_stats;
	int nodes = 0;

	for (int x = head; x >= 0; x = l[x].flush_next, nodes++) {
		int p = t->parent[x];

		for (int s = s0; s < ns; s += step) {
			size_t i = (size_t)x * ns + s;
			int64_t v = seq ? atomic_load_explicit(&slot[i], memory_order_seq_cst) :
					  atomic_load_explicit(&slot[i], memory_order_relaxed);
			int64_t d = v - last[i] + pending[i];

			last[i] = v;
			pending[i] = 0;
			if (!d)
				continue;
			atomic_store_explicit(&aggr[i], atomic_load_explicit(&aggr[i], memory_order_relaxed) + d,
					      memory_order_relaxed);
			if (p >= 0)
				pending[(size_t)p * ns + s] += d;
		}
	}
	return nodes;
}

#endif /* CTR_RSTAT_TREE_H */
