/* SPDX-License-Identifier: MIT */
/*
 * loops.c - the timed loops, instantiated once per algorithm from
 * counters/list.h so that the compiler inlines each algorithm's update: no
 * indirect call, no shared write but the algorithm's own, and one timing
 * pair per BENCH_SAMPLE_EVERY operations.
 */
#include <string.h>

#include "../counters/list.h"
#include "baselines.h"
#include "bench.h"

#define BENCH_PHASE_CHECK(w, seen, ops, fails)					\
	({									\
		int __p = atomic_load_explicit(&(w)->gate->phase, memory_order_relaxed); \
		__p != (seen) && ((seen) = __p, bench_worker_phase(w, __p, ops, fails)); \
	})

/*
 * update: +1/-1 pairs on the worker's leaf, so values stay bounded and every
 * node returns to its start unless an update is lost.  The +1 of the last
 * pair of each block is the sampled operation.
 */
#define BENCH_UPDATE_LOOP(name, add)						\
static void bench_update_##name(struct bench_worker *w)			\
{										\
	struct ctr_tree *t = w->tree;						\
	const int cpu = w->index, node = w->node;				\
	uint64_t ops = 0;							\
	int seen = BENCH_WARMUP;						\
										\
	while (!BENCH_PHASE_CHECK(w, seen, ops, 0)) {				\
		uint64_t t0, t1;						\
										\
		for (unsigned i = 0; i < BENCH_SAMPLE_EVERY / 2 - 1; i++) {	\
			add(t, cpu, node, 0, 1);				\
			add(t, cpu, node, 0, -1);				\
		}								\
		t0 = bench_tsc();						\
		add(t, cpu, node, 0, 1);					\
		t1 = bench_tsc();						\
		add(t, cpu, node, 0, -1);					\
		ctr_hist_add(&w->hist, t1 - t0);				\
		ops += BENCH_SAMPLE_EVERY;					\
	}									\
	w->tally = 0;								\
}

/*
 * charge: try_charge(+unit); past a window of BENCH_CHARGE_WINDOW held
 * charges, uncharge one first, and after a refusal uncharge one (what
 * reclaim would free), so that a worker at its limit keeps both paths busy.
 * One op is one charge attempt, its later uncharge included (the seed's
 * "cost per zswap store").  The first attempt of each block is sampled.
 */
#define BENCH_CHARGE_LOOP(name, add, try_charge)				\
static void bench_charge_##name(struct bench_worker *w)			\
{										\
	struct ctr_tree *t = w->tree;						\
	const int cpu = w->index, node = w->node;				\
	uint64_t ops = 0, fails = 0;						\
	int seen = BENCH_WARMUP, held = 0;					\
										\
	while (!BENCH_PHASE_CHECK(w, seen, ops, fails)) {			\
		for (unsigned i = 0; i < BENCH_SAMPLE_EVERY; i++) {		\
			uint64_t t0 = 0;					\
			int ok;							\
										\
			if (held == BENCH_CHARGE_WINDOW) {			\
				add(t, cpu, node, 0, -BENCH_CHARGE_UNIT);	\
				held--;						\
			}							\
			if (i == 0)						\
				t0 = bench_tsc();				\
			ok = try_charge(t, cpu, node, BENCH_CHARGE_UNIT);	\
			if (i == 0)						\
				ctr_hist_add(&w->hist, bench_tsc() - t0);	\
			if (ok) {						\
				held++;						\
			} else if (held) {	/* refused: free one, as reclaim would */ \
				add(t, cpu, node, 0, -BENCH_CHARGE_UNIT);	\
				held--;						\
			}							\
			fails += !ok;						\
		}								\
		ops += BENCH_SAMPLE_EVERY;					\
	}									\
	w->tally = (int64_t)held * BENCH_CHARGE_UNIT;				\
}

#define BENCH_LOOPS(name, add, try_charge)					\
	BENCH_UPDATE_LOOP(name, add)						\
	BENCH_CHARGE_LOOP(name, add, try_charge)

#define BENCH_CTR_LOOPS(name) BENCH_LOOPS(name, ctr_##name##_add, ctr_##name##_try_charge)

BENCH_LOOPS(empty, bench_empty_add, bench_empty_try_charge)
BENCH_LOOPS(shared_atomic, bench_shared_atomic_add, bench_shared_atomic_try_charge)
CTR_ALGO_LIST(BENCH_CTR_LOOPS)

#define BENCH_ENTRY(name, table, verify, baseline) \
	{ #name, &table, { bench_update_##name, bench_charge_##name }, verify, baseline },
#define BENCH_CTR_ENTRY(name) BENCH_ENTRY(name, ctr_algo_##name, BENCH_VERIFY_NODES, 0)

const struct bench_algo bench_algos[] = {
	BENCH_ENTRY(empty, bench_algo_empty, BENCH_VERIFY_NONE, 1)
	BENCH_ENTRY(shared_atomic, bench_algo_shared_atomic, BENCH_VERIFY_TOTAL, 1)
	CTR_ALGO_LIST(BENCH_CTR_ENTRY)
};
const int bench_nr_algos = sizeof(bench_algos) / sizeof(bench_algos[0]);

const struct bench_algo *bench_algo_find(const char *name)
{
	for (int i = 0; i < bench_nr_algos; i++)
		if (!strcmp(bench_algos[i].name, name))
			return &bench_algos[i];
	return NULL;
}
