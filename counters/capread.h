/* SPDX-License-Identifier: MIT */
/*
 * capread.h - a test-build-only algorithm (CTR_TEST_ALGOS, counters/list.h):
 * page counters (atomic_tree's code) under a new name that takes read=
 * (spin, mutex, sem, batch).  It exists so tests/cli_scenario_caps.sh can
 * prove that a scenario chooses its columns by capability: an algorithm
 * nobody named in bench/ runs stat-read-storm's strategy rows with no edit
 * outside counters/.  The normal build compiles this to nothing.
 */
#ifndef CTR_CAPREAD_H
#define CTR_CAPREAD_H

#ifdef CTR_TEST_ALGOS
#include "atomic_tree.h"

struct ctr_capread {
	struct ctr_atomic_tree at;	/* the counter; its base first, so t is both */
	int read;			/* read=: the strategy taken (page counters have no flush to serialize) */
};

extern const struct ctr_algo ctr_algo_capread;

static inline void ctr_capread_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	ctr_atomic_tree_add(t, cpu, node, stat, delta);
}
/* atomic_tree's prepared update (its init builds the same offset lists) */
static inline struct ctr_atomic_tree_ref ctr_capread_ref(struct ctr_tree *t, int cpu, int node, int stat)
{
	return ctr_atomic_tree_ref(t, cpu, node, stat);
}

#define CTR_REF_ONE_LEVEL_capread 1
static inline int ctr_capread_ref_one_level(const struct ctr_atomic_tree_ref *r)
{
	return ctr_atomic_tree_ref_one_level(r);
}

static inline __attribute__((always_inline)) void ctr_capread_ref_add(const struct ctr_atomic_tree_ref *r, int64_t delta)
{
	ctr_atomic_tree_ref_add(r, delta);
}

static inline int64_t ctr_capread_read(struct ctr_tree *t, int node, int stat)
{
	return ctr_atomic_tree_read(t, node, stat);
}

static inline int ctr_capread_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	return ctr_atomic_tree_try_charge(t, cpu, node, delta);
}
#endif /* CTR_TEST_ALGOS */

#endif /* CTR_CAPREAD_H */
