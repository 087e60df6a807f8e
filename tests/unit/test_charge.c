/* SPDX-License-Identifier: MIT */
/*
 * ctr_try_charge, single-threaded, on random trees with random limits:
 *  - algorithms whose reads are exact (error bound 0) must give exactly the
 *    reference answer (no concurrency, so check-then-act is exact too) and
 *    never leave a node over its limit;
 *  - those with a count bound B may differ from the reference only where the
 *    exact value is within B of a limit, and overshoot by at most B;
 *  - those bounded by time (-1) promise only the rest: for every algorithm a
 *    refused charge changes no node and an admitted one is counted exactly.
 */
#include "../testutil.h"

#define TREES 30

/*
 * A charge decided against the reference is acceptable only for an algorithm
 * whose reads can be off by bound >= 0 and only near a limit: admitted while
 * over means every level over was over by at most bound; refused while it fit
 * means some level was within bound of its limit.
 */
static int charge_near_limit(const int *parent, const int64_t *limit, const int64_t *want, int node,
			     int64_t delta, int got, int64_t bound)
{
	if (bound <= 0)
		return bound < 0;	/* exact: never; bounded by time: anything */
	for (int m = node; m >= 0; m = parent[m]) {
		int64_t excess;

		if (limit[m] == CTR_NO_LIMIT)
			continue;
		excess = want[m] + delta - limit[m];
		if (got && excess > bound)
			return 0;
		if (!got && excess <= 0 && -excess < bound)
			return 1;
	}
	return got;
}
#define OPS_PER_TREE 8000

static void test_charge_reference(void **state)
{
	const struct ctr_algo *a;
	uint64_t seed = tu_seed("test_charge");

	(void)state;
	TU_FOR_EACH_ALGO(a) {
		uint64_t rng = seed;
		const char *name = ctr_algo_name(a);
		int admitted = 0, refused = 0;

		for (int tree = 0; tree < TREES; tree++) {
			int n = tu_range(&rng, 1, 60), nr_cpus = tu_range(&rng, 1, 8);
			int *parent = tu_random_tree(&rng, n, 32, NULL);
			int64_t *limit = malloc(sizeof(int64_t) * n);
			int64_t *direct = calloc(n, sizeof(int64_t)), *want = calloc(n, sizeof(int64_t));
			int64_t *held = calloc(n, sizeof(int64_t));	/* charged at node, not yet uncharged */
			struct ctr_tree *t;
			int64_t bound;

			for (int i = 0; i < n; i++)
				limit[i] = tu_range(&rng, 0, 3) ? tu_range(&rng, 0, 5000) : CTR_NO_LIMIT;
			t = ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = n, .parent = parent,
								   .nr_cpus = nr_cpus, .limit = limit });
			assert_non_null(t);
			bound = ctr_read_error_bound(t);
			for (int op = 0; op < OPS_PER_TREE; op++) {
				int node = tu_range(&rng, 0, n - 1), cpu = tu_range(&rng, 0, nr_cpus - 1);
				int64_t delta = tu_range(&rng, 1, 600);
				int expect = 1, got;

				if (tu_range(&rng, 0, 2) == 0 && held[node] > 0) {
					/* uncharge part of what this node holds */
					delta = tu_range(&rng, 1, (int)(held[node] < 600 ? held[node] : 600));
					ctr_add(t, cpu, node, 0, -delta);
					held[node] -= delta;
					direct[node] -= delta;
					continue;
				}
				tu_hier_sums(parent, n, 1, direct, want);
				for (int m = node; m >= 0; m = parent[m])
					if (limit[m] != CTR_NO_LIMIT && want[m] + delta > limit[m])
						expect = 0;
				got = ctr_try_charge(t, cpu, node, delta);
				if (got != expect && !charge_near_limit(parent, limit, want, node, delta, got, bound))
					fail_msg("%s: tree %d op %d: try_charge(node %d, %lld) = %d, want %d "
						 "(error bound %lld)", name, tree, op, node, (long long)delta,
						 got, expect, (long long)bound);
				if (got) {
					direct[node] += delta;
					held[node] += delta;
					admitted++;
				} else {
					refused++;
				}
				/* Every 37 ops (exact reads flush, which would hide staleness if done every op). */
				if (op % 37)
					continue;
				tu_hier_sums(parent, n, 1, direct, want);
				for (int i = 0; i < n; i++) {
					int64_t v = ctr_read_exact(t, i, 0);

					if (v != want[i])
						fail_msg("%s: node %d at %lld, want %lld: a charge was lost, or a "
							 "refused one counted", name, i, (long long)v, (long long)want[i]);
					if (bound >= 0 && limit[i] != CTR_NO_LIMIT && v > limit[i] + bound)
						fail_msg("%s: node %d at %lld over its limit %lld by more than %lld",
							 name, i, (long long)v, (long long)limit[i], (long long)bound);
				}
			}
			ctr_tree_free(t);
			free(parent), free(limit), free(direct), free(want), free(held);
		}
		/* The test means something only if both outcomes happened often. */
		assert_true(admitted > TREES * 100);
		assert_true(refused > TREES * 100);
	}
}

/* Limit exactly reached is allowed (value + delta <= limit); one more unit is not. */
static void test_charge_edges(void **state)
{
	const struct ctr_algo *a;
	const int64_t limit[] = { 10, 10 };

	(void)state;
	TU_FOR_EACH_ALGO(a) {
		struct ctr_tree *t = ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = 2, .nr_cpus = 1,
									    .limit = limit });

		assert_non_null(t);
		if (ctr_read_error_bound(t) != 0) {	/* stale reads: test_charge_reference covers them */
			ctr_tree_free(t);
			continue;
		}
		assert_int_equal(ctr_try_charge(t, 0, 1, 10), 1);
		assert_int_equal(ctr_try_charge(t, 0, 1, 1), 0);
		assert_int_equal(ctr_try_charge(t, 0, 0, 1), 0);
		assert_int_equal(ctr_try_charge(t, 0, 1, INT64_MAX), 0);	/* no overflow into admission */
		assert_int_equal(ctr_try_charge(t, 0, 1, 0), 1);
		/* A negative charge (a refund) always fits. */
		assert_int_equal(ctr_try_charge(t, 0, 1, -4), 1);
		assert_int_equal(ctr_read_exact(t, 0, 0), 6);
		assert_int_equal(ctr_read_exact(t, 1, 0), 6);
		ctr_tree_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_charge_edges),
		cmocka_unit_test(test_charge_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
