/* SPDX-License-Identifier: MIT */
/*
 * striped - a contention-adaptive counter in the style of Java's LongAdder
 * (java.util.concurrent.atomic.Striped64), one per (node, stat).  An adder
 * starts as one base word updated by compare-and-swap (by fetch_add from its
 * owner, below); the first time a CAS fails (another slot updated it in
 * between) the adder grows a table of cells, each on its own line, and from
 * then on every update CASes its own cell; when two slots collide on a cell
 * the table doubles, up to the first power of two >= nr_cpus.  A read sums
 * the base and the cells.
 *
 * Hierarchy: every node has its own adders and an update walks the
 * ancestors, adding the delta to each level's adder, as atomic_tree walks
 * its atomics: so every ancestor's value includes the delta, each level
 * adapts to its own contention (the root, which every update reaches,
 * stripes first; a leaf one CPU owns never does), and a read is one adder,
 * never a subtree.  The alternative, one adder per node with the ancestors
 * summed at read time, would make a read walk the subtree.
 *
 * The probe: Java hashes a thread's random probe and rehashes it on a
 * collision; a slot here is a CPU, a perfect hash, so the probe is the slot
 * index and cell = slot & (cells - 1): once the table has >= nr_cpus cells
 * no two slots share one, and growth stops there (Java's NCPU cap).
 *
 * A full table takes fetch_add, not CAS: a CAS's failure is only a signal
 * to grow, and a table of max_cells cells cannot grow, so there the update
 * is one lock xadd (lock add) instead of a load and a lock cmpxchg, whose
 * failure branch and extra load sit on the chain the locked op serializes.
 * Java cannot do this (its threads outnumber any table); here a full table
 * is what every contended adder reaches once nr_cpus slots have collided,
 * and with 2 slots the first table is already full.  Measured: 2 threads
 * on chain:1, CPU ns per op, 0.72-0.76x the CAS form (4 runs, issue 13).
 * Not a plain store even so: a slot that read a smaller ncells before the
 * last doubling may still CAS the cell it then shared, so a full table's
 * cell can have a second writer for a moment, and an RMW keeps both.
 *
 * The base's owner takes fetch_add too: the first slot to update an adder
 * owns its base and adds there by lock xadd; every other slot CASes it as
 * Java's threads do, and their failure is the collision that makes the
 * table.  A collision between the owner and another slot is still seen:
 * the owner's add changes the word between the other's load and its CAS,
 * which fails (only one side of it sees it, where Java's two both might).
 * An adder one slot updates, the common case Java also optimises for (no
 * cells until a collision), so pays one locked op, not a load and a CAS,
 * which measured 14.6-15.4 ns per op here against lock xadd's 8.9-9.0
 * (a probe of each, 3 runs, issue 13).
 *
 * Exact at rest: a delta lands whole in exactly one word (base or one cell)
 * by a successful CAS or one fetch_add, words are never moved or reset, and the cell table
 * only grows (old cells stay), so the sum of base and cells is every delta
 * added.  Concurrent reads are a sum, not a snapshot.  Error bound 0.
 */
#ifndef CTR_STRIPED_H
#define CTR_STRIPED_H

#include "ctr_internal.h"

/* One stripe: Java's @Contended Cell. */
struct ctr_striped_cell {
	_Atomic int64_t value;		/* the deltas of the slots that hash here; CAS */
} __ctr_aligned;

/* One (node, stat): Java's LongAdder, alone on its line. */
struct ctr_striped_adder {
	_Atomic int64_t base;		/* CAS by every update until cells exist (and while they are being made) */
	_Atomic int ncells;		/* cells in the table: 0, then min(2, max), doubling up to max_cells;
					 * grows only, published with release after the cells are set up */
	_Atomic int busy;		/* Striped64.cellsBusy: one thread at a time creates or grows the table */
	_Atomic int owner;		/* 1 + the slot that first updated the base (it fetch_adds there), 0 none yet;
					 * set once by CAS, never changed */
	struct ctr_striped_cell **cells;	/* [max_cells] once created; entries below ncells valid; set under busy
						 * before ncells publishes them, never changed after */
} __ctr_aligned;

struct ctr_striped {
	struct ctr_tree base;		/* common part, read-only */
	int max_cells;			/* first power of two >= nr_cpus: no collisions at that size */
	struct ctr_striped_adder *adder;	/* [node * nr_stats + stat] */
	struct ctr_offsets off;		/* off.of[node]: n * nr_stats for node and its ancestors (refs' walk) */
};

extern const struct ctr_algo ctr_algo_striped;

/* Out of line: Striped64.longAccumulate, after a failed CAS. */
void __ctr_striped_add_slow(struct ctr_striped *s, struct ctr_striped_adder *ad, int cpu, int64_t delta);
/* Out of line: the base's first update, which makes its slot the owner. */
void __ctr_striped_add_first(struct ctr_striped *s, struct ctr_striped_adder *ad, int cpu, int64_t delta);

/* Out of line: an adder's update off its two fast paths (the first, the CAS while the table grows). */
void __ctr_striped_adder_add_rest(struct ctr_striped *s, struct ctr_striped_adder *ad, int cpu, int64_t delta);

/*
 * One adder's update; max_cells passed in, so the walk loads it once, not
 * per level.  Inline only the two fast paths, a full table's cell and the
 * base's owner (see the top), each one lock xadd: the rest is out of line,
 * so a walk's level is the adder's ncells, its cell, the add, and the code
 * of a timed loop is that (issue 28: tests/cli_objdump.sh's budget).
 */
static inline void __ctr_striped_adder_add(struct ctr_striped *s, struct ctr_striped_adder *ad, int max_cells, int cpu,
					   int64_t delta)
{
	int n = atomic_load_explicit(&ad->ncells, memory_order_acquire);

	/* Full: no growth left for a failed CAS to ask for (see the top). */
	if (__builtin_expect(n == max_cells, 1)) {
		atomic_fetch_add_explicit(&ad->cells[cpu & (n - 1)]->value, delta, memory_order_relaxed);
		return;
	}
	/* the base: its owner adds (see the top) */
	if (__builtin_expect(!n && atomic_load_explicit(&ad->owner, memory_order_relaxed) == cpu + 1, 1)) {
		atomic_fetch_add_explicit(&ad->base, delta, memory_order_relaxed);
		return;
	}
	__ctr_striped_adder_add_rest(s, ad, cpu, delta);
}

static inline void ctr_striped_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	struct ctr_striped *s = ctr_container_of(t, struct ctr_striped, base);
	struct ctr_striped_adder *const adder = s->adder + stat;
	const int *const anc = t->ancestors[node];
	const int d = t->depth[node], ns = t->nr_stats, max = s->max_cells;

	/* Locals: every locked op is a compiler barrier, which would reload these per level. */
	for (int k = 0; k < d; k++)
		__ctr_striped_adder_add(s, adder + (size_t)anc[k] * ns, max, cpu, delta);
}

/*
 * A prepared update (ctr_internal.h): each level's adder, the node's own as a
 * pointer and the ancestors' as offsets from adder + stat, and the slot and
 * table size the cell is chosen by.  Not the cell: a table grows after the
 * ref is made (the first collision creates it, later ones double it), and a
 * ref is const; the adder never moves, and its ncells and cells are loaded
 * per update as add does, so a ref made before any growth uses the table
 * grown since (tests/unit/test_ref.c and tests/mt hold it to that).  What
 * it saves is what add reloaded after every locked op, a compiler barrier:
 * the ancestors list, adder, nr_stats and the multiply (1.15x slower than
 * Java 17's LongAdder at 1 thread, 1.52x at 2 with them; issue 28).
 */
struct ctr_striped_ref {
	struct ctr_striped *s;		/* for the slow paths */
	struct ctr_striped_adder *own;	/* the node's adder of stat */
	struct ctr_striped_adder *adder;	/* adder + stat: level k's is adder[off[k]] */
	const int *off;			/* off.of[node], leaf first */
	int depth;			/* levels from the node to the root */
	int cpu;			/* the slot: its cell is cpu & (ncells - 1) */
	int max_cells;			/* s->max_cells: a full table takes fetch_add */
};

static inline struct ctr_striped_ref ctr_striped_ref(struct ctr_tree *t, int cpu, int node, int stat)
{
	struct ctr_striped *s = ctr_container_of(t, struct ctr_striped, base);
	struct ctr_striped_adder *adder = s->adder + stat;

	return (struct ctr_striped_ref){ s, adder + s->off.of[node][0], adder, s->off.of[node], t->depth[node],
					 cpu, s->max_cells };
}

#define CTR_REF_ONE_LEVEL_striped 1
static inline int ctr_striped_ref_one_level(const struct ctr_striped_ref *r)
{
	return r->depth == 1;
}

static inline __attribute__((always_inline)) void ctr_striped_ref_add(const struct ctr_striped_ref *r, int64_t delta)
{
	struct ctr_striped_adder *const adder = r->adder;

	__ctr_striped_adder_add(r->s, r->own, r->max_cells, r->cpu, delta);
	for (const int *o = r->off + 1, *const end = r->off + r->depth; o < end; o++)
		__ctr_striped_adder_add(r->s, adder + *o, r->max_cells, r->cpu, delta);
}

/* LongAdder.sum: base plus every published cell. */
static inline int64_t ctr_striped_read(struct ctr_tree *t, int node, int stat)
{
	struct ctr_striped *s = ctr_container_of(t, struct ctr_striped, base);
	struct ctr_striped_adder *ad = &s->adder[(size_t)node * t->nr_stats + stat];
	int n = atomic_load_explicit(&ad->ncells, memory_order_acquire);
	int64_t sum = atomic_load_explicit(&ad->base, memory_order_relaxed);

	for (int i = 0; i < n; i++)
		sum += atomic_load_explicit(&ad->cells[i]->value, memory_order_relaxed);
	return sum;
}

/*
 * Check-then-act, as percpu_hier: read every level, then add.  With charges
 * only, words only grow, so an admitting check saw every charge completed
 * before it began and missed at most one in flight per other thread: with T
 * threads a level ends at most (T - 1) x max_delta over its limit.
 */
static inline int ctr_striped_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	ctr_for_each_ancestor(t, n, node)
		if (ctr_limit(t, n) != CTR_NO_LIMIT &&
		    !ctr_within_limit(ctr_striped_read(t, n, 0), delta, ctr_limit(t, n)))
			return 0;
	ctr_striped_add(t, cpu, node, 0, delta);
	return 1;
}

#endif /* CTR_STRIPED_H */
