/* SPDX-License-Identifier: MIT */
/*
 * The projection's footprint recorder (project/rt.c) on libctr's own code:
 * what an update reports is what the algorithm's design says it touches;
 * and what the model refuses to run, chosen by capability, not by name.
 */
#include "../testutil.h"
#include "../../counters/list.h"
#include "../../bench/baselines.h"
#include "../../bench/bench.h"
#include "../../bench/project.h"
#include "../../project/proj.h"

#define CAP 4096

static struct proj_access trace[CAP];

/* Record one ctr_add of the instrumented copy on a fresh chain:depth tree of nr_cpus slots. */
static int record_add(const char *algo, int depth, int nr_cpus, int cpu)
{
	const struct ctr_algo *a = proj_ctr_algo_find(algo);
	struct ctr_params p = { .nr_nodes = depth, .nr_cpus = nr_cpus };
	struct ctr_tree *t;
	int n;

	assert_non_null(a);
	proj_rt_reset();
	proj_rt_record(1);
	t = proj_ctr_tree_new(a, &p);
	assert_non_null(t);
	proj_ctr_add(t, cpu, depth - 1, 0, 1);	/* warm: first-time paths out of the way */
	proj_rt_trace(trace, CAP);
	proj_ctr_add(t, cpu, depth - 1, 0, 1);
	n = proj_rt_trace_len();
	proj_rt_trace(NULL, 0);
	proj_rt_record(0);
	assert_int_equal(proj_ctr_read_exact(t, 0, 0), 2);
	proj_ctr_tree_free(t);
	return n;
}

/* Distinct lines of the trace with the given kind, and the one region they are all in (-1 if several). */
static int lines_of(int n, int kind, int *region)
{
	uintptr_t seen[CAP];
	int nseen = 0;

	*region = -2;
	for (int i = 0; i < n; i++) {
		int dup = 0;

		if (trace[i].kind != kind)
			continue;
		*region = *region == -2 || *region == trace[i].region ? trace[i].region : -1;
		for (int j = 0; j < nseen; j++)
			dup |= seen[j] == trace[i].line;
		if (!dup)
			seen[nseen++] = trace[i].line;
	}
	return nseen;
}

/* The first line a trace stores to. */
static uintptr_t first_store_line(int n)
{
	for (int i = 0; i < n; i++)
		if (trace[i].kind == PROJ_STORE)
			return trace[i].line;
	return 0;
}

/*
 * percpu_hier: a store to the caller's own slot at every level (D stores),
 * all in its own area, no RMW.  A CPU's area holds its slots of every node
 * side by side (8 bytes each), so the D stores fill ceil(D / 8) lines of it.
 * The areas are one block at a stride (without a slot-to-node map), so two
 * slots' stores are in one region, on lines of their own.
 */
static void test_percpu_hier_footprint(void **state)
{
	(void)state;
	for (int depth = 1; depth <= 32; depth *= 2) {
		int r1, r2, n, stores = 0;
		uintptr_t l1;

		n = record_add("percpu_hier", depth, 4, 1);
		for (int i = 0; i < n; i++)
			stores += trace[i].kind == PROJ_STORE;
		assert_int_equal(stores, depth);
		assert_int_equal(lines_of(n, PROJ_STORE, &r1), (depth + 7) / 8);
		assert_true(r1 >= 0);
		l1 = first_store_line(n);
		assert_int_equal(lines_of(n, PROJ_RMW, &r2), 0);
		n = record_add("percpu_hier", depth, 4, 2);
		assert_int_equal(lines_of(n, PROJ_STORE, &r2), (depth + 7) / 8);
		assert_true(r2 >= 0);
		assert_int_not_equal(l1, first_store_line(n));	/* slot 1's area is not slot 2's */
	}
}

/* atomic_tree: one RMW per level, on D distinct lines of the one shared array, no plain store. */
static void test_atomic_tree_footprint(void **state)
{
	(void)state;
	for (int depth = 1; depth <= 32; depth *= 2) {
		int n = record_add("atomic_tree", depth, 4, 3), r, rmws = 0, r0;

		assert_int_equal(lines_of(n, PROJ_RMW, &r), depth);
		assert_true(r >= 0);
		for (int i = 0; i < n; i++)
			rmws += trace[i].kind == PROJ_RMW;
		assert_int_equal(rmws, depth);
		assert_int_equal(lines_of(n, PROJ_STORE, &r0), 0);
		/* the same lines whatever the slot: shared */
		n = record_add("atomic_tree", depth, 4, 0);
		assert_int_equal(lines_of(n, PROJ_RMW, &r0), depth);
		assert_int_equal(r0, r);
	}
}

/* Nothing outside the tree's allocations is reported: with recording off, nothing at all. */
static void test_filtered(void **state)
{
	const struct ctr_algo *a = proj_ctr_algo_find("atomic_tree");
	struct ctr_params p = { .nr_nodes = 4, .nr_cpus = 2 };
	struct ctr_tree *t;
	int64_t local = 0;

	(void)state;
	proj_rt_reset();
	t = proj_ctr_tree_new(a, &p);
	assert_non_null(t);
	proj_rt_trace(trace, CAP);
	proj_ctr_add(t, 0, 3, 0, 1);
	assert_int_equal(proj_rt_trace_len(), 0);
	proj_rt_trace(NULL, 0);
	assert_int_equal(proj_rt_region_of((uintptr_t)&local), -1);
	proj_ctr_tree_free(t);
}

/*
 * proj_can_run takes any number of readers for every algorithm, those whose
 * reads ask the updaters (CTR_READ_ASKS_UPDATERS) too, now that reads
 * interleave with reads (issue 27: every virtual thread a coroutine); and it
 * refuses a harness workload the model does not run (store) for every one.
 */
static void test_can_run_by_capability(void **state)
{
#define ONE(name) &ctr_algo_##name,
	static const struct ctr_algo *const all[] = { CTR_ALGO_LIST(ONE) };
#undef ONE
	char err[512];
	int asks = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const int flag = !!(all[i]->flags & CTR_READ_ASKS_UPDATERS);

		asks += flag;
		assert_int_equal(proj_can_run(all[i]->name, PROJ_RAW_NONE, BENCH_READERS, 1, err, sizeof(err)), 0);
		assert_int_equal(proj_can_run(all[i]->name, PROJ_RAW_NONE, BENCH_READERS, 2, err, sizeof(err)), 0);
		assert_int_equal(proj_can_run(all[i]->name, PROJ_RAW_NONE, BENCH_STORE, 1, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "store"));
	}
	assert_true(asks >= 1);
	assert_int_equal(proj_can_run("=padded", PROJ_RAW_NONE, BENCH_UPDATE, 2, err, sizeof(err)), 0);
	assert_int_equal(proj_can_run("=bogus", PROJ_RAW_NONE, BENCH_UPDATE, 2, err, sizeof(err)), -EINVAL);
}

/*
 * The harness baselines reach the model by their tables, not their names:
 * each entry of `run --algo` that is a baseline has a pattern
 * (bench_baseline_proj_raw), each counter none; shared_atomic's is the one
 * atomic add on one word its add does, empty's no access; and the model,
 * given a baseline's name without its pattern, runs nothing of its own for it.
 */
static void test_baselines_by_table(void **state)
{
	char err[512];
	int baselines = 0;

	(void)state;
	for (int i = 0; i < bench_nr_algos; i++) {
		const struct bench_algo *b = &bench_algos[i];
		const int raw = bench_baseline_proj_raw(b->algo);

		baselines += b->baseline;
		if (b->baseline ? raw == PROJ_RAW_NONE : raw != PROJ_RAW_NONE)
			fail_msg("%s: baseline %d, projected as pattern %d", b->name, b->baseline, raw);
		assert_int_equal(bench_proj_raw(b->name), raw);
		assert_int_equal(proj_can_run(b->name, raw, BENCH_UPDATE, 0, err, sizeof(err)), 0);
		assert_int_equal(proj_can_run(b->name, raw, BENCH_STORE, 0, err, sizeof(err)), -EINVAL);
		if (b->baseline) {
			assert_int_equal(proj_can_run(b->name, PROJ_RAW_NONE, BENCH_UPDATE, 0, err, sizeof(err)),
					 -EINVAL);
			assert_non_null(strstr(err, "unknown algorithm"));
		}
	}
	assert_true(baselines >= 2);
	assert_int_equal(bench_baseline_proj_raw(&bench_algo_shared_atomic), PROJ_RAW_SHARED_ATOMIC);
	assert_int_equal(bench_baseline_proj_raw(&bench_algo_empty), PROJ_RAW_EMPTY);
	assert_int_equal(bench_baseline_proj_raw(NULL), PROJ_RAW_NONE);
	/* the model's own syntax is no entry of the registry: its name says the pattern (run.c) */
	assert_int_equal(bench_proj_raw("=false-shared"), PROJ_RAW_NONE);
	assert_int_equal(proj_can_run("x", PROJ_RAW_EMPTY + 1, BENCH_UPDATE, 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no pattern"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_can_run_by_capability),
		cmocka_unit_test(test_baselines_by_table),
		cmocka_unit_test(test_percpu_hier_footprint),
		cmocka_unit_test(test_atomic_tree_footprint),
		cmocka_unit_test(test_filtered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
