/* SPDX-License-Identifier: MIT */
/*
 * testutil.h - what the cmocka tests share: a seeded PRNG, random trees,
 * and a reference model of the hierarchical value.
 */
#ifndef CTR_TESTUTIL_H
#define CTR_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../counters/ctr_internal.h"

/* xorshift64*: fast, seedable, good enough to pick nodes and deltas. */
static inline uint64_t tu_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static inline int tu_range(uint64_t *s, int lo, int hi)	/* [lo, hi] */
{
	return lo + (int)(tu_rand(s) % (uint64_t)(hi - lo + 1));
}

/* Seed from CTR_TEST_SEED if set, else a fixed one; printed so a failure can be replayed. */
static inline uint64_t tu_seed(const char *what)
{
	const char *env = getenv("CTR_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 0x5eed1234abcdULL;

	if (!seed)
		seed = 1;
	printf("# %s: seed 0x%llx (set CTR_TEST_SEED to replay another)\n", what,
	       (unsigned long long)seed);
	return seed;
}

/*
 * A random tree of n nodes and depth at most max_depth, with a path of
 * exactly min(n, max_depth) levels so the deepest case is always covered.
 * Returns parent[] (malloc'ed) and fills depth[] when given.
 */
static inline int *tu_random_tree(uint64_t *s, int n, int max_depth, int *depth_out)
{
	int *parent = malloc(sizeof(int) * n), *depth = malloc(sizeof(int) * n);
	int spine = n < max_depth ? n : max_depth;

	assert_non_null(parent);
	assert_non_null(depth);
	for (int i = 0; i < n; i++) {
		if (i == 0) {
			parent[i] = -1;
		} else if (i < spine) {
			parent[i] = i - 1;
		} else {
			do
				parent[i] = tu_range(s, 0, i - 1);
			while (depth[parent[i]] >= max_depth);
		}
		depth[i] = i ? depth[parent[i]] + 1 : 1;
	}
	if (depth_out)
		memcpy(depth_out, depth, sizeof(int) * n);
	free(depth);
	return parent;
}

/* Hierarchical sums from per-node direct deltas: want[i] = direct[i] + sum over descendants. */
static inline void tu_hier_sums(const int *parent, int n, int nr_stats, const int64_t *direct,
				int64_t *want)
{
	memcpy(want, direct, sizeof(int64_t) * n * nr_stats);
	/* Children have larger indices than their parents, so one backward pass folds them up. */
	for (int i = n - 1; i > 0; i--)
		for (int s = 0; s < nr_stats; s++)
			want[(size_t)parent[i] * nr_stats + s] += want[(size_t)i * nr_stats + s];
}

/* Every registered algorithm, for cmocka's state pointer. */
#define TU_FOR_EACH_ALGO(a) \
	for (int __i = 0; __i < ctr_algo_count() && ((a) = ctr_algo_at(__i)); __i++)

/* Hands the next registered algorithm to each test of a tu_run_per_algo() group, in order. */
static inline int tu_setup_next_algo(void **state)
{
	static int next;

	*state = (void *)ctr_algo_at(next++);
	return *state ? 0 : -1;
}

/* Run fn once per registered algorithm, each a test named after it (so a failure names it). */
static inline int tu_run_per_algo(const char *group, CMUnitTestFunction fn)
{
	struct CMUnitTest tests[256];
	int n = ctr_algo_count() < 256 ? ctr_algo_count() : 256;

	for (int i = 0; i < n; i++)
		tests[i] = (struct CMUnitTest){ ctr_algo_name(ctr_algo_at(i)), fn, tu_setup_next_algo,
						NULL, NULL };
	return _cmocka_run_group_tests(group, tests, n, NULL, NULL);
}

#endif /* CTR_TESTUTIL_H */
