/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "striped.h"

static int striped_first_cells(const struct ctr_striped *s)
{
	return s->max_cells < 2 ? s->max_cells : 2;	/* Striped64 starts with 2 */
}

static int striped_trylock(struct ctr_striped_adder *ad)
{
	return !atomic_load_explicit(&ad->busy, memory_order_relaxed) &&
	       !atomic_exchange_explicit(&ad->busy, 1, memory_order_acquire);
}

static void striped_unlock(struct ctr_striped_adder *ad)
{
	atomic_store_explicit(&ad->busy, 0, memory_order_release);
}

/* Under busy, ncells == 0: a table of max_cells pointers and the first block of cells. */
static void striped_create(struct ctr_striped *s, struct ctr_striped_adder *ad)
{
	int n = striped_first_cells(s);
	struct ctr_striped_cell **table = ctr_calloc(s->max_cells, sizeof(*table));
	struct ctr_striped_cell *block = ctr_zalloc_aligned(n * sizeof(*block));

	if (!table || !block) {	/* no memory: stay on the base word, losing nothing */
		ctr_free(table);
		ctr_free(block);
		return;
	}
	for (int i = 0; i < n; i++)
		table[i] = &block[i];
	ad->cells = table;
	atomic_store_explicit(&ad->ncells, n, memory_order_release);
}

/* Under busy, ncells == n < max_cells: n new cells, then publish 2n.  Old cells stay where they are. */
static void striped_grow(struct ctr_striped_adder *ad, int n)
{
	struct ctr_striped_cell *block = ctr_zalloc_aligned(n * sizeof(*block));

	if (!block)
		return;
	for (int i = 0; i < n; i++)
		ad->cells[n + i] = &block[i];
	atomic_store_explicit(&ad->ncells, 2 * n, memory_order_release);
}

/*
 * Striped64.longAccumulate for a slot whose probe is its index: retry the
 * CAS on the word the slot maps to; a second failure on a cell means another
 * slot shares it, so double the table (while under max_cells); with no
 * table yet, whoever gets busy creates it and the others keep CASing the
 * base, as Java's do.  Every exit is a successful CAS of the whole delta.
 */
void __ctr_striped_add_slow(struct ctr_striped *s, struct ctr_striped_adder *ad, int cpu, int64_t delta)
{
	for (;;) {
		int n = atomic_load_explicit(&ad->ncells, memory_order_acquire);
		_Atomic int64_t *w;
		int64_t v;

		if (!n && striped_trylock(ad)) {
			if (!atomic_load_explicit(&ad->ncells, memory_order_relaxed))
				striped_create(s, ad);
			striped_unlock(ad);
			n = atomic_load_explicit(&ad->ncells, memory_order_acquire);
		}
		w = n ? &ad->cells[cpu & (n - 1)]->value : &ad->base;
		v = atomic_load_explicit(w, memory_order_relaxed);
		if (atomic_compare_exchange_strong_explicit(w, &v, v + delta, memory_order_relaxed,
							    memory_order_relaxed))
			return;
		if (n && n < s->max_cells && striped_trylock(ad)) {
			if (atomic_load_explicit(&ad->ncells, memory_order_relaxed) == n)
				striped_grow(ad, n);
			striped_unlock(ad);
		}
	}
}

/*
 * The base's first update: claim it for this slot (one CAS from 0; a slot
 * that loses the race is not the owner and CASes the base as any other),
 * then add by CAS, as a non-owner would: exact either way.
 */
void __ctr_striped_add_first(struct ctr_striped *s, struct ctr_striped_adder *ad, int cpu, int64_t delta)
{
	int none = 0;
	int64_t v;

	atomic_compare_exchange_strong_explicit(&ad->owner, &none, cpu + 1, memory_order_relaxed,
						memory_order_relaxed);
	v = atomic_load_explicit(&ad->base, memory_order_relaxed);
	if (!atomic_compare_exchange_strong_explicit(&ad->base, &v, v + delta, memory_order_relaxed,
						     memory_order_relaxed))
		__ctr_striped_add_slow(s, ad, cpu, delta);
}

/*
 * What __ctr_striped_adder_add does off its fast paths: ncells loaded again
 * (it only grows, so the later value is as good), the first update of the
 * base, a CAS of the base or the slot's cell, longAccumulate on a failure.
 */
void __ctr_striped_adder_add_rest(struct ctr_striped *s, struct ctr_striped_adder *ad, int cpu, int64_t delta)
{
	int n = atomic_load_explicit(&ad->ncells, memory_order_acquire);
	_Atomic int64_t *w;
	int64_t v;

	if (n == s->max_cells) {	/* full since the inline test */
		atomic_fetch_add_explicit(&ad->cells[cpu & (n - 1)]->value, delta, memory_order_relaxed);
		return;
	}
	if (!n) {	/* the base: its owner adds, the others CAS (see the top) */
		int o = atomic_load_explicit(&ad->owner, memory_order_relaxed);

		if (o == cpu + 1) {
			atomic_fetch_add_explicit(&ad->base, delta, memory_order_relaxed);
			return;
		}
		if (!o) {
			__ctr_striped_add_first(s, ad, cpu, delta);
			return;
		}
	}
	w = n ? &ad->cells[cpu & (n - 1)]->value : &ad->base;
	v = atomic_load_explicit(w, memory_order_relaxed);
	/* Relaxed: a counter orders nothing; the acquire above is for the cells' publication. */
	if (!atomic_compare_exchange_strong_explicit(w, &v, v + delta, memory_order_relaxed, memory_order_relaxed))
		__ctr_striped_add_slow(s, ad, cpu, delta);
}

static void striped_fini(struct ctr_tree *t)
{
	struct ctr_striped *s = ctr_container_of(t, struct ctr_striped, base);
	size_t nr = (size_t)t->nr_nodes * t->nr_stats;

	ctr_offsets_fini(&s->off);
	if (!s->adder)
		return;
	for (size_t i = 0; i < nr; i++) {
		struct ctr_striped_adder *ad = &s->adder[i];
		int n = atomic_load_explicit(&ad->ncells, memory_order_relaxed);

		/* Blocks start at cell 0, then at every doubling: first, 2 x first, ... */
		if (n)
			ctr_free(ad->cells[0]);
		for (int k = striped_first_cells(s); k < n; k *= 2)
			ctr_free(ad->cells[k]);
		ctr_free(ad->cells);
	}
	ctr_free(s->adder);
}

static int striped_init(struct ctr_tree *t)
{
	struct ctr_striped *s = ctr_container_of(t, struct ctr_striped, base);

	s->max_cells = 1;
	while (s->max_cells < t->nr_cpus && s->max_cells < (1 << 30))
		s->max_cells *= 2;
	s->adder = ctr_zalloc_aligned((size_t)t->nr_nodes * t->nr_stats * sizeof(*s->adder));
#ifdef CTR_PROJ
	/*
	 * Striped64.cellsBusy: a try-lock word, free (zero) from the allocation.
	 * Inside #ifdef, not bare: even an empty loop here makes gcc lay out this
	 * function's code differently, and the benchmark build must not change.
	 */
	for (size_t i = 0; s->adder && i < (size_t)t->nr_nodes * t->nr_stats; i++)
		CTR_LOCK_ROLE(&s->adder[i].busy, "cells busy lock");
#endif
	if (!s->adder)
		return -ENOMEM;
	if (ctr_offsets_init(&s->off, t, (size_t)t->nr_stats)) {
		ctr_free(s->adder);
		s->adder = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * The adders, and what contention can grow them to: a contended adder gets a
 * table of max_cells pointers and cells in blocks of 2, 2, 4, ... up to
 * max_cells.  Every adder at its most would be nr_cpus cells a (node, stat),
 * far more than any use reaches (an adder grows only where slots collide on
 * it), so the count is for one leaf-to-root path of adders per slot, the
 * most the harness's workloads (each slot updating one leaf) can contend:
 * min(adders, nr_cpus x max_depth x nr_stats) grown.  Created, a tree has
 * only the adders (and the refs' offset lists); a use updating every node from
 * every slot can exceed this.
 */
static size_t striped_footprint(struct ctr_tree *t)
{
	size_t adders = (size_t)t->nr_nodes * t->nr_stats, grown, nr_grown, max = 1, first;

	while (max < (size_t)t->nr_cpus && max < ((size_t)1 << 30))
		max *= 2;
	first = max < 2 ? max : 2;
	grown = ctr_alloc_footprint(max * sizeof(struct ctr_striped_cell *)) +
		ctr_alloc_footprint(first * sizeof(struct ctr_striped_cell));
	for (size_t n = first; n < max; n *= 2)
		grown = ctr_size_add(grown, ctr_alloc_footprint(n * sizeof(struct ctr_striped_cell)));
	nr_grown = ctr_size_mul(ctr_size_mul((size_t)t->nr_cpus, (size_t)t->max_depth), (size_t)t->nr_stats);
	if (t->nr_cpus < 2)
		nr_grown = 0;	/* one slot never collides */
	return ctr_size_add(ctr_size_add(ctr_alloc_footprint(ctr_size_mul(adders, sizeof(struct ctr_striped_adder))),
					 ctr_size_mul(nr_grown < adders ? nr_grown : adders, grown)),
			    ctr_offsets_footprint(t));
}

/*
 * The instance, each node's adders, and what contention grew: an adder's cell
 * table and its cells, in the blocks striped_create and striped_grow made.
 */
static int striped_layout(struct ctr_tree *t, const struct ctr_layout_sink *s)
{
	struct ctr_striped *st = ctr_container_of(t, struct ctr_striped, base);
	size_t nr = (size_t)t->nr_nodes * t->nr_stats;
	int err = ctr_emit_instance(s, NULL, 0);

	if (!err)
		err = ctr_emit_nodes(s, st->adder, (size_t)t->nr_stats * sizeof(*st->adder), NULL, -1,
				     "the node's adder (base word, cell table)");
	for (size_t i = 0; !err && i < nr; i++) {
		struct ctr_striped_adder *ad = &st->adder[i];
		int n = atomic_load_explicit(&ad->ncells, memory_order_acquire), node = (int)(i / t->nr_stats);

		if (!n)
			continue;
		err = ctr_emit(s, ad->cells, (size_t)st->max_cells * sizeof(*ad->cells), node, -1, -1, "the node's cell table");
		for (int c = 0; !err && c < n; c++)
			err = ctr_emit(s, ad->cells[c], sizeof(struct ctr_striped_cell), node, -1, c,
				       "a cell (the slots that hash to it)");
	}
	return err ? err : ctr_emit_offsets(s, &st->off);
}

const struct ctr_algo ctr_algo_striped = {
	.name = "striped",
	.summary = "LongAdder (Striped64) per node, updates walk ancestors: CAS on a base word (its owner "
		   "fetch_adds), padded cells doubling on contention; exact at rest",
	.flags = CTR_CHARGE_RACY,
	.size = sizeof(struct ctr_striped),
	.init = striped_init,
	.fini = striped_fini,
	.footprint = striped_footprint,
	.layout = striped_layout,
	.add = ctr_striped_add,
	.read = ctr_striped_read,
	.read_exact = ctr_striped_read,
	.try_charge = ctr_striped_try_charge,
};
