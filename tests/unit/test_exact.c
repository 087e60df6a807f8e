/* SPDX-License-Identifier: MIT */
/*
 * Single-threaded exactness: random trees (depth up to 32), several stats,
 * random slots and random deltas, negative ones included, checked against a
 * reference model after every burst, for every registered algorithm.
 */
#include "../testutil.h"

#define TREES 40
#define OPS_PER_TREE 20000

static void check_all(struct ctr_tree *t, const int *parent, int n, int nr_stats,
		      const int64_t *direct, int64_t *want, const char *name)
{
	int64_t bound = ctr_read_error_bound(t);

	tu_hier_sums(parent, n, nr_stats, direct, want);
	for (int i = 0; i < n; i++) {
		for (int s = 0; s < nr_stats; s++) {
			int64_t w = want[(size_t)i * nr_stats + s];
			int64_t exact = ctr_read_exact(t, i, s), got = ctr_read(t, i, s);

			if (exact != w)
				fail_msg("%s: node %d stat %d: read_exact %lld, want %lld", name, i, s,
					 (long long)exact, (long long)w);
			if (bound >= 0 && (got - w > bound || w - got > bound))
				fail_msg("%s: node %d stat %d: read %lld, exact %lld, bound %lld", name,
					 i, s, (long long)got, (long long)w, (long long)bound);
		}
	}
}

static void test_random_trees(void **state)
{
	const struct ctr_algo *a;
	uint64_t seed = tu_seed("test_exact");

	(void)state;
	TU_FOR_EACH_ALGO(a) {
		uint64_t rng = seed;

		for (int tree = 0; tree < TREES; tree++) {
			int n = tu_range(&rng, 1, tree % 4 == 0 ? 300 : 40);
			int nr_stats = tu_range(&rng, 1, 4), nr_cpus = tu_range(&rng, 1, 16);
			int *parent = tu_random_tree(&rng, n, 32, NULL);
			int64_t *direct = calloc((size_t)n * nr_stats, sizeof(int64_t));
			int64_t *want = calloc((size_t)n * nr_stats, sizeof(int64_t));
			struct ctr_tree *t = ctr_tree_new(a, &(struct ctr_params){
				.nr_nodes = n, .parent = parent, .nr_cpus = nr_cpus, .nr_stats = nr_stats });

			assert_non_null(t);
			for (int op = 0; op < OPS_PER_TREE; op++) {
				int node = tu_range(&rng, 0, n - 1), s = tu_range(&rng, 0, nr_stats - 1);
				int64_t delta = tu_range(&rng, -1000, 1000);

				/* Now and then a large one, to catch 32-bit truncation. */
				if (op % 997 == 0)
					delta *= (int64_t)1 << 33;
				ctr_add(t, tu_range(&rng, 0, nr_cpus - 1), node, s, delta);
				direct[(size_t)node * nr_stats + s] += delta;
				if (op % 5000 == 4999)
					check_all(t, parent, n, nr_stats, direct, want, ctr_algo_name(a));
			}
			check_all(t, parent, n, nr_stats, direct, want, ctr_algo_name(a));
			ctr_tree_free(t);
			free(parent);
			free(direct);
			free(want);
		}
	}
}

/* Updates of one stat never show up in another, nor in siblings. */
static void test_isolation(void **state)
{
	const struct ctr_algo *a;
	const int parent[] = { -1, 0, 0, 1, 2 };

	(void)state;
	TU_FOR_EACH_ALGO(a) {
		struct ctr_tree *t = ctr_tree_new(a, &(struct ctr_params){
			.nr_nodes = 5, .parent = parent, .nr_cpus = 3, .nr_stats = 3 });

		assert_non_null(t);
		ctr_add(t, 2, 3, 1, -9);
		for (int n = 0; n < 5; n++)
			for (int s = 0; s < 3; s++)
				assert_int_equal(ctr_read_exact(t, n, s),
						 (s == 1 && (n == 3 || n == 1 || n == 0)) ? -9 : 0);
		ctr_tree_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isolation),
		cmocka_unit_test(test_random_trees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
