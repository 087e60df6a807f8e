/* SPDX-License-Identifier: MIT */
/* The harness's own arithmetic: latency histogram quantiles and shape parsing. */
#include <errno.h>
#include <math.h>

#include "../testutil.h"
#include "../../counters/hist.h"
#include "../../bench/run.h"
#include <time.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Quantiles from the histogram are within the bucket error of the exact nearest-rank ones. */
static void test_hist_quantiles(void **state)
{
	enum { N = 100000 };
	uint64_t *v = malloc(sizeof(uint64_t) * N), rng = tu_seed("test_hist");
	struct ctr_hist *h = calloc(1, sizeof(*h)), *h2 = calloc(1, sizeof(*h2));
	const double qs[] = { 0.0, 0.01, 0.5, 0.9, 0.99, 0.999, 1.0 };

	(void)state;
	for (int dist = 0; dist < 3; dist++) {
		ctr_hist_reset(h);
		ctr_hist_reset(h2);
		for (int i = 0; i < N; i++) {
			/* small exact values, a wide log-uniform spread, and a heavy tail */
			uint64_t x = dist == 0 ? tu_rand(&rng) % 40 :
				     dist == 1 ? tu_rand(&rng) >> (tu_rand(&rng) % 64) :
						 (i % 1000 ? 100 + tu_rand(&rng) % 50 : 1000000 + tu_rand(&rng) % 9999);
			v[i] = x;
			ctr_hist_add(i % 2 ? h : h2, x);
		}
		ctr_hist_merge(h, h2);
		qsort(v, N, sizeof(v[0]), cmp_u64);
		assert_int_equal(h->count, N);
		assert_int_equal(h->max, v[N - 1]);
		for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
			size_t rank = (size_t)ceil(qs[k] * N);
			uint64_t exact = v[rank ? rank - 1 : 0], got = ctr_hist_quantile(h, qs[k]);
			double err = fabs((double)got - (double)exact);

			if (err > (double)exact / 32.0 + 0.5)
				fail_msg("dist %d q %.3f: histogram %llu, exact %llu", dist, qs[k],
					 (unsigned long long)got, (unsigned long long)exact);
		}
	}
	ctr_hist_reset(h);
	assert_int_equal(ctr_hist_quantile(h, 0.5), 0);
	free(v), free(h), free(h2);
}

/*
 * count_above is a lower bound on the exact count above v, short by at most
 * the samples that share v's bucket.
 */
static void test_hist_count_above(void **state)
{
	enum { N = 20000 };
	uint64_t *v = malloc(sizeof(uint64_t) * N), rng = tu_seed("test_hist_above");
	struct ctr_hist *h = calloc(1, sizeof(*h));
	const uint64_t cuts[] = { 0, 5, 31, 32, 100, 1000, 999999, 1000000, 1u << 30 };

	(void)state;
	for (int i = 0; i < N; i++) {
		v[i] = tu_rand(&rng) >> (tu_rand(&rng) % 64);
		ctr_hist_add(h, v[i]);
	}
	for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
		uint64_t above = 0, same = 0, got = ctr_hist_count_above(h, cuts[k]);

		for (int i = 0; i < N; i++) {
			above += v[i] > cuts[k];
			same += v[i] > cuts[k] && ctr_hist_index(v[i]) == ctr_hist_index(cuts[k]);
		}
		if (got > above || got < above - same)
			fail_msg("cut %llu: count_above %llu, exact %llu (%llu in its bucket)",
				 (unsigned long long)cuts[k], (unsigned long long)got,
				 (unsigned long long)above, (unsigned long long)same);
	}
	assert_int_equal(ctr_hist_count_above(h, UINT64_MAX), 0);
	free(v), free(h);
}

/* Bucket index grows with the value, and every bucket's midpoint maps back to it. */
static void test_hist_index_monotonic(void **state)
{
	unsigned prev = 0;

	(void)state;
	for (uint64_t x = 0; x < UINT64_MAX / 2; x += 1 + (x >> 9)) {
		unsigned i = ctr_hist_index(x);

		assert_true(i < CTR_HIST_BUCKETS);
		assert_true(i >= prev);
		assert_true(i <= prev + 1);	/* steps of at most x/512 never skip a bucket */
		prev = i;
	}
	assert_int_equal(ctr_hist_index(UINT64_MAX), CTR_HIST_BUCKETS - 1);
	for (uint64_t x = 0; x < 32; x++)
		assert_int_equal(ctr_hist_index(x), x);
}

/* The calibrated rate converts a later TSC interval into the CLOCK_MONOTONIC one within 2%. */
static void test_tsc_calibration(void **state)
{
	struct bench_tsc_info info;
	struct timespec nap = { 0, 120 * 1000 * 1000 };
	uint64_t t0, c0, t1, c1;
	double ns_from_tsc, ns;

	(void)state;
	bench_tsc_calibrate(&info);
	assert_true(info.ghz > 0.1 && info.ghz < 20);
	assert_true(info.resolution >= 1 && info.resolution <= info.overhead + 1000);
	t0 = bench_time_ns();
	c0 = bench_tsc();
	nanosleep(&nap, NULL);
	t1 = bench_time_ns();
	c1 = bench_tsc();
	ns_from_tsc = (double)(c1 - c0) / info.ghz;
	ns = (double)(t1 - t0);
	printf("# tsc %.4f ticks/ns, invariant %d, overhead %llu ticks, step %llu ticks; 120 ms: %.0f ns by TSC, %.0f by clock\n",
	       info.ghz, info.invariant, (unsigned long long)info.overhead,
	       (unsigned long long)info.resolution, ns_from_tsc, ns);
	assert_true(ns_from_tsc > 0.98 * ns && ns_from_tsc < 1.02 * ns);
}

static void test_shapes(void **state)
{
	struct bench_shape s;
	const char *bad;
	const char *bads[] = { "chain:0", "chain:", "chain:-1", "chain:8x", "chain:08 ", "tree:",
			       "tree:4x", "tree:x4", "tree:4x0", "tree:4xx2", "tree:4,2", "line:3",
			       "chain:99999999999", "chain:4097", "tree:2048x2048x2", "", "chain:1.5" };

	(void)state;
	assert_int_equal(bench_shape_parse("chain:1", &s, &bad), 0);
	assert_int_equal(s.nr_nodes, 1);
	assert_int_equal(s.depth, 1);
	assert_int_equal(s.parent[0], -1);
	assert_int_equal(s.leaves[0], 0);
	bench_shape_free(&s);

	assert_int_equal(bench_shape_parse("chain:32", &s, &bad), 0);
	assert_int_equal(s.nr_nodes, 32);
	assert_int_equal(s.depth, 32);
	assert_int_equal(s.nr_leaves, 1);
	assert_int_equal(s.leaves[0], 31);
	for (int i = 1; i < 32; i++)
		assert_int_equal(s.parent[i], i - 1);
	bench_shape_free(&s);

	/* root, 3 children, 2 under each: 1 + 3 + 6 nodes, the 6 are leaves */
	assert_int_equal(bench_shape_parse("tree:3x2", &s, &bad), 0);
	assert_int_equal(s.nr_nodes, 10);
	assert_int_equal(s.depth, 3);
	assert_int_equal(s.nr_leaves, 6);
	for (int i = 1; i <= 3; i++)
		assert_int_equal(s.parent[i], 0);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(s.leaves[i], 4 + i);
		assert_int_equal(s.parent[4 + i], 1 + i / 2);
	}
	bench_shape_free(&s);

	assert_int_equal(bench_shape_parse("tree:2x2x2x2", &s, &bad), 0);
	assert_int_equal(s.nr_nodes, 31);
	assert_int_equal(s.depth, 5);
	assert_int_equal(s.nr_leaves, 16);
	bench_shape_free(&s);

	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		if (bench_shape_parse(bads[i], &s, &bad) != -EINVAL)
			fail_msg("shape '%s' was accepted", bads[i]);
		assert_non_null(bad);
		bench_shape_free(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_index_monotonic),
		cmocka_unit_test(test_hist_quantiles),
		cmocka_unit_test(test_hist_count_above),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_tsc_calibration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
