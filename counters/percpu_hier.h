/* SPDX-License-Identifier: MIT */
/*
 * percpu_hier - hierarchical per-CPU counters, design (c) of the seed thread:
 * every update writes the caller's own slot of the node and of every
 * ancestor, with no atomic read-modify-write; every read sums the node's
 * slots over all CPUs.  Updates never bounce a line; reads cost nr_cpus
 * loads, each of a line some other CPU owns.
 */
#ifndef CTR_PERCPU_HIER_H
#define CTR_PERCPU_HIER_H

#include "ctr_internal.h"

/* The walk's unroll: a ref's list is padded to a multiple of it (see off below). */
#define CTR_PHIER_UNROLL 4

struct ctr_percpu_hier {
	struct ctr_tree base;		/* common part, read-only */
	/*
	 * area[cpu] is that CPU's slots, [node * nr_stats + stat], then
	 * nr_stats sink words (see off), padded to whole lines, so no line
	 * holds two CPUs' slots: each allocated on its owner's NUMA node with a
	 * slot-to-node map whose slots are on two or more nodes, else all
	 * in one block (see block).  Only the owner writes a slot;
	 * readers load it.
	 */
	_Atomic int64_t **area;
	/*
	 * off[node]: the word offsets (n * nr_stats) of node and its ancestors,
	 * leaf first, depth[node] of them: the update's walk is a list of
	 * stores through one base, no index chased or multiplied per level.
	 * A list of more than one level is padded to a multiple of
	 * CTR_PHIER_UNROLL with the sink's offset (nr_nodes * nr_stats): the
	 * ref's walk then has no remainder loop, and the padding's adds go to
	 * the owner's sink words, which no read looks at.
	 */
	const int *const *off;
	int *off_store;			/* where those lists live */
	/*
	 * Without a slot-to-node map, or with every slot on one node (bound
	 * there as a whole), every slot's area is in one allocation, slot c's
	 * at block + c * stride words (an odd number of lines, one at least
	 * past the area, so no two slots' lines are a 128-byte pair and the
	 * same node's slots of 64 consecutive CPUs fall in 64 L1 sets, as
	 * ctr_alloc_slot_area's colouring), and a read walks them by the
	 * stride: one load a slot, as count_stat's per-thread array, not the
	 * area pointer's and then the word's.  0 with slots on two or more
	 * nodes: areas apart, each on its own node.
	 */
	_Atomic int64_t *block;		/* the areas, or NULL */
	size_t stride;			/* words from one slot's area to the next in block, or 0 */
	size_t span;			/* nr_cpus x stride: a read's end, computed once */
	size_t stride8;			/* stride in bytes with 8 slots in block, else 0: that read's one test */
};

extern const struct ctr_algo ctr_algo_percpu_hier;

static inline void ctr_percpu_hier_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	struct ctr_percpu_hier *p = ctr_container_of(t, struct ctr_percpu_hier, base);
	_Atomic int64_t *const slots = p->area[cpu] + stat;
	const int *const off = p->off[node];
	const int d = t->depth[node];

	/*
	 * Load and store, not fetch_add: the slot has one writer (the slot's
	 * owner, which runs with "preemption off"), so no update can be lost;
	 * the store only has to be untorn for readers (ctr_owner_add).
	 */
	for (int k = 0; k < d; k++)
		ctr_owner_add(slots + off[k], delta);
}
/*
 * A prepared update (see ctr_internal.h): the node's own slot as an address,
 * then the ancestors' offsets from the owner's slots of the stat.  What the
 * kernel's this_cpu_add() of each level would have: the address, in a
 * register, no walk setup.  The walk is unrolled four levels a step (one
 * loop test and one pointer step per four stores, not per store: at chain:8
 * the loop test was as many instructions as the store), and the one-level
 * case is a form of its own (CTR_REF_ONE_LEVEL_percpu_hier below), which
 * the timed loop unswitches: at depth 1 an update is the add, nothing else
 * (before, each update also tested k < depth, two taken branches a +1/-1
 * pair; issue 28).
 */
struct ctr_percpu_hier_ref {
	_Atomic int64_t *slots;		/* the owner's slots of stat: area[cpu] + stat */
	_Atomic int64_t *own;		/* ... of the node itself: slots + off[node][0] */
	const int *off;			/* the node's offsets list (off[node]), leaf first, padded */
	const int *end;			/* its end, padding included (a multiple of CTR_PHIER_UNROLL past off) */
	int depth;			/* levels from the node to the root */
};

/* A list's length in the store: depth, padded past one level to a multiple of the unroll. */
static inline int ctr_percpu_hier_padded(int depth)
{
	return depth == 1 ? 1 : CTR_ROUND_UP(depth, CTR_PHIER_UNROLL);
}

static inline struct ctr_percpu_hier_ref ctr_percpu_hier_ref(struct ctr_tree *t, int cpu, int node, int stat)
{
	struct ctr_percpu_hier *p = ctr_container_of(t, struct ctr_percpu_hier, base);
	_Atomic int64_t *const slots = p->area[cpu] + stat;
	const int d = t->depth[node];

	return (struct ctr_percpu_hier_ref){ slots, slots + p->off[node][0], p->off[node],
					     p->off[node] + ctr_percpu_hier_padded(d), d };
}

/* One level, or a walk: the timed loop runs a loop of each (bench/loops.c, BENCH_REF_ONE_LEVEL). */
#define CTR_REF_ONE_LEVEL_percpu_hier 1
static inline int ctr_percpu_hier_ref_one_level(const struct ctr_percpu_hier_ref *h)
{
	return h->depth == 1;
}

/*
 * The adds are this_cpu_add's instruction (ctr_owner_add_insn): a level is
 * an add to memory at slots + offset, after one load of the offset (an int:
 * no int64 add can be taken to change it).
 */
static inline __attribute__((always_inline)) void
ctr_percpu_hier_ref_add(const struct ctr_percpu_hier_ref *h, int64_t delta)
{
	_Atomic int64_t *const slots = h->slots;
	const int *o = h->off;

	if (h->depth == 1) {
		ctr_owner_add_insn(h->own, delta);
		return;
	}
	do {
		ctr_owner_add_insn(slots + o[0], delta);
		ctr_owner_add_insn(slots + o[1], delta);
		ctr_owner_add_insn(slots + o[2], delta);
		ctr_owner_add_insn(slots + o[3], delta);
		o += CTR_PHIER_UNROLL;
	} while (o < h->end);
}

/* Out of line: the sum of word off over areas apart (slots on two or more nodes), 8 slots a step. */
int64_t __ctr_percpu_hier_sum_apart(struct ctr_percpu_hier *p, size_t off);

/* The slot bytes past w: the 8-slot read's one-instruction load. */
static inline int64_t __ctr_percpu_hier_load(const char *w, size_t bytes)
{
	return atomic_load_explicit((_Atomic int64_t *)(w + bytes), memory_order_relaxed);
}

/*
 * Sum of (node, stat) over all CPUs: not a snapshot while updates run.
 * With the areas in one block a slot is one load at a stride, two slots a
 * step into two sums (one slot and one sum a step, through the areas'
 * pointers, was 1.96-3.34x perfbook's count_stat_8 as -O3 unrolls it, at 8
 * slots; 8 a step took more setup than it saved there; issue 28).  Apart
 * (slots on two or more NUMA nodes), two: the area's pointer, then the
 * word, as per_cpu_ptr's offset and its load, out of line (inline, its
 * registers were saved and restored on every read of the block's path).
 */
static inline int64_t ctr_percpu_hier_read(struct ctr_tree *t, int node, int stat)
{
	struct ctr_percpu_hier *p = ctr_container_of(t, struct ctr_percpu_hier, base);
	const size_t off = (size_t)node * t->nr_stats + stat;
	size_t stride;
	int64_t s0 = 0, s1 = 0;
	int nr;

	/*
	 * 8 slots, the count of a small machine, in a straight line, as
	 * count_stat_8: the stride in bytes s and 3s, and w + s, in registers,
	 * so every load is one instruction, base + index x {1, 2, 4} (slots 0-7
	 * are w, w+s, w+2s, w+3s, w+4s, (w+s)+4s, w+2(3s), (w+s)+2(3s)), and
	 * one test, stride8, before them.  `ctrbench limits`, CPU time against
	 * count_stat_8 unrolled: the harness's slot map put every read on the
	 * apart path, 2.97x [2.13, 3.67] (7 rounds); in the block with each
	 * address a chain of adds and nr and stride tested, 2.1-2.4x (2
	 * rounds); this, 1.28x [0.97, 1.95] (15 rounds, docs/results/limits/; issue 28).
	 */
	if (p->stride8) {
		const char *w = (const char *)(p->block + off), *w1;
		size_t s = p->stride8, s3 = 3 * s;

		w1 = w + s;
		/* opaque to GCC, which else rebuilt the eight addresses as chains of adds from w */
		__asm__("" : "+r"(w1), "+r"(s), "+r"(s3));
		s0 = __ctr_percpu_hier_load(w, 0) + __ctr_percpu_hier_load(w, s);
		s1 = __ctr_percpu_hier_load(w, 2 * s) + __ctr_percpu_hier_load(w, s3);
		s0 += __ctr_percpu_hier_load(w, 4 * s) + __ctr_percpu_hier_load(w1, 4 * s);
		s1 += __ctr_percpu_hier_load(w, 2 * s3) + __ctr_percpu_hier_load(w1, 2 * s3);
		return (int64_t)((uint64_t)s0 + (uint64_t)s1);
	}
	/*
	 * Locals: an atomic load may be taken to touch any memory, and would
	 * reload them per slot.  Loaded past an empty asm: GCC else loaded
	 * them before the test above too, two loads more on the 8-slot path.
	 */
	__asm__("" : "=r"(p) : "0"(p));
	stride = p->stride;
	nr = t->nr_cpus;
	if (__builtin_expect(stride != 0, 1)) {
		_Atomic int64_t *w = p->block + off, *const end = w + p->span;

		/* two slots a step, a pointer and a bound: at 8 slots the setup is the read, so little */
		if (nr & 1) {
			s0 = atomic_load_explicit(w, memory_order_relaxed);
			w += stride;
		}
		for (; w < end; w += 2 * stride) {
			s0 += atomic_load_explicit(w, memory_order_relaxed);
			s1 += atomic_load_explicit(w + stride, memory_order_relaxed);
		}
		return (int64_t)((uint64_t)s0 + (uint64_t)s1);
	}
	return __ctr_percpu_hier_sum_apart(p, off);
}

/*
 * Check-then-act, as obj_cgroup_may_zswap() does: read every level, then
 * charge if all of them had room.  Under concurrency a level can end over
 * its limit.  Bound, for charges only (no concurrent uncharge): slots only
 * grow, so the latest-starting admitted check saw every charge completed
 * before it began; the charges it missed were in flight, at most one per
 * other thread.  Hence value <= limit + (T - 1) * max_delta with T threads
 * charging, even at quiescence (tests/mt/test_mt_charge.c holds it to that).
 * Concurrent uncharges make the non-snapshot sum lag in both directions, so
 * with them a check can also refuse a charge that would have fit.
 */
static inline int ctr_percpu_hier_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	ctr_for_each_ancestor(t, n, node)
		if (ctr_limit(t, n) != CTR_NO_LIMIT &&
		    !ctr_within_limit(ctr_percpu_hier_read(t, n, 0), delta, ctr_limit(t, n)))
			return 0;
	ctr_percpu_hier_add(t, cpu, node, 0, delta);
	return 1;
}

#endif /* CTR_PERCPU_HIER_H */
