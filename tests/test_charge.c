/* SPDX-License-Identifier: MIT */
/*
 * ctr_try_charge, single-threaded: on random trees with random limits, every
 * algorithm must give exactly the reference answer (no concurrency, so
 * check-then-act is exact too), a refused charge must change no node, and
 * no node may ever be over its limit.
 */
#include "testutil.h"

#define TREES 30
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
			int64_t *before = calloc(n, sizeof(int64_t));
			int64_t *held = calloc(n, sizeof(int64_t));	/* charged at node, not yet uncharged */
			struct ctr_tree *t;

			for (int i = 0; i < n; i++)
				limit[i] = tu_range(&rng, 0, 3) ? tu_range(&rng, 0, 5000) : CTR_NO_LIMIT;
			t = ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = n, .parent = parent,
								   .nr_cpus = nr_cpus, .limit = limit });
			assert_non_null(t);
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
				for (int i = 0; i < n; i++)
					before[i] = ctr_read_exact(t, i, 0);
				got = ctr_try_charge(t, cpu, node, delta);
				if (got != expect)
					fail_msg("%s: tree %d op %d: try_charge(node %d, %lld) = %d, want %d",
						 name, tree, op, node, (long long)delta, got, expect);
				if (got) {
					direct[node] += delta;
					held[node] += delta;
					admitted++;
				} else {
					refused++;
					for (int i = 0; i < n; i++)
						if (ctr_read_exact(t, i, 0) != before[i])
							fail_msg("%s: refused charge changed node %d", name, i);
				}
				for (int i = 0; i < n; i++)
					if (limit[i] != CTR_NO_LIMIT && ctr_read_exact(t, i, 0) > limit[i])
						fail_msg("%s: node %d at %lld over its limit %lld", name, i,
							 (long long)ctr_read_exact(t, i, 0), (long long)limit[i]);
			}
			ctr_tree_free(t);
			free(parent), free(limit), free(direct), free(want), free(before), free(held);
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
