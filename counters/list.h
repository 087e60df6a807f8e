/* SPDX-License-Identifier: MIT */
/*
 * list.h - the one list of algorithms (an X-macro), in the order
 * ctrbench list shows them.
 *
 * To add an algorithm `foo`:
 *  1. counters/foo.h: `struct ctr_foo` with `struct ctr_tree base` as its
 *     first member, `extern const struct ctr_algo ctr_algo_foo;`, and the
 *     timed paths as static inline functions with exactly these signatures:
 *       void ctr_foo_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta);
 *       int ctr_foo_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta);
 *       int64_t ctr_foo_read(struct ctr_tree *t, int node, int stat);
 *     (an inline wrapper around an out-of-line slow path is fine: the rule
 *     is no indirect call in a timed loop), and after them its prepared
 *     update, which the timed update loops use: its own `struct
 *     ctr_foo_ref`, ctr_foo_ref(t, cpu, node, stat) and
 *     ctr_foo_ref_add(const struct ctr_foo_ref *, delta), holding what the
 *     kernel's per-CPU code has in registers (the slot's address, each
 *     level's word or its offset from a base: ctr_offsets; the fast path's
 *     bounds), nothing that changes after init: see the prepared update in
 *     ctr_internal.h.  Not CTR_REF_WRAP (add's arguments, kept): that is
 *     for the harness's baselines, and tests/cli_objdump.sh fails on an
 *     algorithm header that uses it.  Where an update walks levels, also
 *     `#define CTR_REF_ONE_LEVEL_foo 1` and ctr_foo_ref_one_level(&ref)
 *     (true at depth 1): the timed loop then runs the one-level case as a
 *     loop of its own (bench/loops.c).  tests/unit/test_ref.c holds every
 *     ref to its add; tests/cli_objdump.sh holds every update block to an
 *     instruction budget per level, stated there (a new algorithm gets a
 *     line in it).
 *  2. counters/foo.c: init/fini/read/read_exact (and error_bound if not
 *     exact, and staleness_ms if that bound is by time: recommend ranks it
 *     for --max-staleness from it), footprint (the bytes init allocates,
 *     each allocation through ctr_alloc_footprint/ctr_slot_areas_footprint:
 *     the harness refuses a run that does not fit in memory from it, and
 *     tests/unit/test_footprint.c holds it to what init really allocates) and the
 *     `const struct ctr_algo ctr_algo_foo` table.  The Makefile finds the
 *     file by wildcard.
 *  3. Below: the #include and one CTR_ALGO(foo) line.
 * The registry (counters/ctr.c) and the harness's timed loops
 * (bench/loops.c, one instance per algorithm so the update is inlined) are
 * generated from this list; tests iterate the registry, so a new algorithm
 * is tested for exactness (or its stated bound) with no further edit.
 */
#ifndef CTR_LIST_H
#define CTR_LIST_H

#include "atomic_tree.h"
#include "percpu_hier.h"
#include "locked_tree.h"
#include "rstat.h"
#include "batched_percpu.h"
#include "percpu_counter.h"
#include "atomic_tree_stock.h"
#include "striped.h"
#include "percpu_tree.h"
#include "percpu_hier_delegated.h"
#include "rstat_llist.h"

/*
 * A test build (-DCTR_TEST_ALGOS: build/testalgo/ctrbench) adds a test
 * algorithm at the end; the normal build's list is the one above.
 */
#ifdef CTR_TEST_ALGOS
#include "capread.h"
#define CTR_TEST_ALGO_LIST(X) X(capread)
#else
#define CTR_TEST_ALGO_LIST(X)
#endif

#define CTR_ALGO_LIST(CTR_ALGO)	\
	CTR_ALGO(atomic_tree)	\
	CTR_ALGO(percpu_hier)	\
	CTR_ALGO(locked_tree)	\
	CTR_ALGO(rstat_force)	\
	CTR_ALGO(rstat_ratelimit)	\
	CTR_ALGO(rstat_threshold)	\
	CTR_ALGO(rstat_unified)	\
	CTR_ALGO(batched_percpu)	\
	CTR_ALGO(percpu_counter)	\
	CTR_ALGO(atomic_tree_stock)	\
	CTR_ALGO(striped)	\
	CTR_ALGO(percpu_tree)	\
	CTR_ALGO(percpu_hier_delegated)	\
	CTR_ALGO(rstat_llist)	\
	CTR_TEST_ALGO_LIST(CTR_ALGO)

#endif /* CTR_LIST_H */
