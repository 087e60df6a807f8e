/* SPDX-License-Identifier: MIT */
/*
 * compare statistics: medians, Mann-Whitney U and its p-value against
 * hand-computed values, near-equal values made ties, the order-statistic interval of the median (its
 * levels and its coverage on simulated data), the bootstrap interval of
 * the change (covers a known shift, reproducible from its seed).
 */
#include <math.h>

#include "../testutil.h"
#include "../../bench/stats.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static double tu_unit(uint64_t *s)	/* (0, 1) */
{
	return ((double)(tu_rand(s) >> 11) + 0.5) / 9007199254740992.0;
}

static void test_median(void **state)
{
	const double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	(void)state;
	assert_float_equal(cmp_median(odd, N(odd)), 2, 0);
	assert_float_equal(cmp_median(even, N(even)), 2.5, 0);
	assert_float_equal(cmp_median(one, 1), 7, 0);
	assert_true(isnan(cmp_median(one, 0)));
	assert_float_equal(odd[0], 3, 0);	/* inputs untouched */
}

static void test_mw_u(void **state)
{
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	const double ta[] = { 1, 2, 2 }, tb[] = { 2, 3, 4 };

	(void)state;
	assert_float_equal(cmp_mw_u(a, 3, b, 3), 0, 0);
	assert_float_equal(cmp_mw_u(b, 3, a, 3), 9, 0);
	/* Ties count 1/2: each 2 of ta ties the 2 of tb. */
	assert_float_equal(cmp_mw_u(ta, 3, tb, 3), 1, 0);
	assert_float_equal(cmp_mw_u(tb, 3, ta, 3), 8, 0);
}

static void test_mw_p_exact(void **state)
{
	const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	const double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
	const double odd5[] = { 1, 3, 5, 7, 9 }, even5[] = { 2, 4, 6, 8, 10 };
	const double ta[] = { 1, 2, 2 }, tb[] = { 2, 3, 4 };
	const double same[] = { 1, 1, 1 };

	(void)state;
	/* Complete separation: 2 of the C(n, k) arrangements are as extreme. */
	assert_float_equal(cmp_mw_p(a3, 3, b3, 3), 2.0 / 20, 1e-12);
	assert_float_equal(cmp_mw_p(b3, 3, a3, 3), 2.0 / 20, 1e-12);
	assert_float_equal(cmp_mw_p(a5, 5, b5, 5), 2.0 / 252, 1e-12);
	/*
	 * Interleaved 5 and 5: U = 10; the U distribution for 5, 5 has counts
	 * 1 1 2 3 5 7 9 11 14 16 18 for U = 0..10, so P(U <= 10) = 87/252.
	 */
	assert_float_equal(cmp_mw_p(odd5, 5, even5, 5), 174.0 / 252, 1e-12);
	/*
	 * Ties: ranks 1 3 3 3 5 6, A's sum 7 against a mean of 10.5; of the 20
	 * subsets 3 sum to 7 and 3 to 14 (by hand), so p = 6/20.
	 */
	assert_float_equal(cmp_mw_p(ta, 3, tb, 3), 6.0 / 20, 1e-12);
	assert_float_equal(cmp_mw_p(same, 3, same, 3), 1, 1e-12);
	assert_float_equal(cmp_mw_p(same, 0, same, 3), 1, 0);
	/* Sizes that differ: 4 vs 2 separated, 2/C(6,2). */
	assert_float_equal(cmp_mw_p(a5, 4, b5, 2), 2.0 / 15, 1e-12);
}

static void test_mw_p_normal(void **state)
{
	double a[40], b[40], x[30], y[30];
	double sd = sqrt(40.0 * 40 * 81 / 12);	/* no ties: n1 n2 (N + 1) / 12 */
	uint64_t s = tu_seed("mw normal");

	(void)state;
	for (int i = 0; i < 40; i++) {
		a[i] = i;
		b[i] = 40 + i;
	}
	/* N = 80: the normal approximation, U = 0 against a mean of 800. */
	assert_float_equal(cmp_mw_p(a, 40, b, 40), erfc((800 - 0.5) / sd / sqrt(2)), 1e-20);
	assert_true(cmp_mw_p(a, 40, b, 40) < 1e-10);
	/* N = 60 is exact: close to the normal approximation on random data. */
	for (int i = 0; i < 30; i++) {
		x[i] = tu_unit(&s);
		y[i] = tu_unit(&s) + 0.1;
	}
	double u = cmp_mw_u(x, 30, y, 30), sd60 = sqrt(30.0 * 30 * 61 / 12);
	double approx = erfc(fmax(fabs(u - 450) - 0.5, 0) / sd60 / sqrt(2));
	double exact = cmp_mw_p(x, 30, y, 30);

	print_message("# N = 60: U %.0f, exact p %.5f, normal %.5f\n", u, exact, approx);
	assert_float_equal(exact, approx, 0.01);
}

/* The same latency bucket under two timer calibrations: ties, not a perfect separation. */
static void test_snap(void **state)
{
	double a[] = { 10.019082784691212, 10.019082784691212, 281.4885, 10.019082784691212, 10.019082784691212 };
	double b[] = { 10.019100745091917, 10.019100745091917, 10.019100745091917, 10.019100745091917, 281.4890 };
	double x[] = { 100, 100.009, 100.018, 100.5 }, y[] = { 100.02 };

	(void)state;
	assert_true(cmp_mw_p(a, 5, b, 5) < 0.2);
	cmp_snap(a, 5, b, 5, CMP_TIE_REL);
	assert_float_equal(b[0], 10.019082784691212, 0);
	assert_float_equal(b[4], 281.4885, 0);
	assert_float_equal(a[2], 281.4885, 0);
	assert_float_equal(cmp_mw_p(a, 5, b, 5), 1, 1e-12);
	/* Chained from the smallest of a run: 100.018 is within 1e-4 of 100.009 but not of 100. */
	cmp_snap(x, 4, y, 1, CMP_TIE_REL);
	assert_float_equal(x[0], 100, 0);
	assert_float_equal(x[1], 100, 0);
	assert_float_equal(x[2], 100.018, 0);
	assert_float_equal(y[0], 100.018, 0);
	assert_float_equal(x[3], 100.5, 0);
}

static void test_median_ci_levels(void **state)
{
	const double x5[] = { 5, 1, 4, 2, 3 };
	const double x10[] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
	double lo, hi, lvl;

	(void)state;
	/* n = 5 cannot reach 95%: [min, max] at 1 - 2/32. */
	lvl = cmp_median_ci(x5, 5, 0.95, &lo, &hi);
	assert_float_equal(lvl, 1 - 2.0 / 32, 1e-12);
	assert_float_equal(lo, 1, 0);
	assert_float_equal(hi, 5, 0);
	/* n = 10: [x(2), x(9)] covers 1 - 2 * 11/1024; [x(3), x(8)] only 1 - 2 * 56/1024. */
	lvl = cmp_median_ci(x10, 10, 0.95, &lo, &hi);
	assert_float_equal(lvl, 1 - 22.0 / 1024, 1e-12);
	assert_float_equal(lo, 2, 0);
	assert_float_equal(hi, 9, 0);
	lvl = cmp_median_ci(x10, 10, 0.85, &lo, &hi);
	assert_float_equal(lvl, 1 - 112.0 / 1024, 1e-12);
	assert_float_equal(lo, 3, 0);
	assert_float_equal(hi, 8, 0);
	lvl = cmp_median_ci(x5, 1, 0.95, &lo, &hi);
	assert_float_equal(lvl, 0, 0);
	assert_float_equal(lo, 5, 0);
	assert_float_equal(hi, 5, 0);
	assert_true(isnan(cmp_median_ci(x5, 0, 0.95, &lo, &hi)));
}

/* 1000 trials of 5..20 draws: the 95% interval covers the true median at least 90% of the time. */
static void test_median_ci_coverage(void **state)
{
	uint64_t s = tu_seed("median ci coverage");
	double x[20];

	(void)state;
	for (int dist = 0; dist < 2; dist++) {
		int cover = 0, trials = 1000;
		/* Exponential (skewed, median ln 2) and uniform on [100, 110] (median 105). */
		double truth = dist ? 105 : log(2);

		for (int t = 0; t < trials; t++) {
			int n = tu_range(&s, 5, 20);
			double lo, hi;

			for (int i = 0; i < n; i++)
				x[i] = dist ? 100 + 10 * tu_unit(&s) : -log(tu_unit(&s));
			cmp_median_ci(x, n, 0.95, &lo, &hi);
			cover += lo <= truth && truth <= hi;
		}
		print_message("# median interval, %s: covered %d of %d\n", dist ? "uniform" : "exponential",
			      cover, trials);
		assert_true(cover >= 900);
	}
}

static void test_bootstrap_shift(void **state)
{
	uint64_t s = tu_seed("bootstrap shift");
	double a[20], b[20], lo, hi, lo2, hi2;
	/* Medians 1050 and 2050: B is 95.24% above A. */
	const double truth = 100 * (2050.0 / 1050 - 1);
	int cover = 0, trials = 200;

	(void)state;
	for (int i = 0; i < 20; i++) {
		a[i] = 1000 + 100 * tu_unit(&s);
		b[i] = 2000 + 100 * tu_unit(&s);
	}
	assert_int_equal(cmp_bootstrap_change_ci(a, 20, b, 20, CMP_RESAMPLES, CMP_SEED, 0.95, &lo, &hi),
			 CMP_RESAMPLES);
	print_message("# change %.2f%%, interval [%.2f, %.2f]\n", truth, lo, hi);
	assert_true(lo <= truth && truth <= hi);
	assert_true(lo > 0);
	/* The same seed, the same interval. */
	cmp_bootstrap_change_ci(a, 20, b, 20, CMP_RESAMPLES, CMP_SEED, 0.95, &lo2, &hi2);
	assert_float_equal(lo, lo2, 0);
	assert_float_equal(hi, hi2, 0);
	/* No shift: the interval holds 0. */
	cmp_bootstrap_change_ci(a, 20, a, 20, CMP_RESAMPLES, CMP_SEED, 0.95, &lo, &hi);
	assert_true(lo <= 0 && 0 <= hi);
	/* One sample each: a point. */
	cmp_bootstrap_change_ci(a, 1, b, 1, CMP_RESAMPLES, CMP_SEED, 0.95, &lo, &hi);
	assert_float_equal(lo, 100 * (b[0] / a[0] - 1), 1e-9);
	assert_float_equal(hi, lo, 1e-9);
	/* A median of 0 leaves no usable resample. */
	const double zero[] = { 0, 0, 0 };

	assert_int_equal(cmp_bootstrap_change_ci(zero, 3, b, 3, 100, 1, 0.95, &lo, &hi), 0);
	assert_true(isnan(lo) && isnan(hi));

	/* Coverage of the known shift over fresh samples of 10 a side (percentile bootstrap runs a little under). */
	for (int t = 0; t < trials; t++) {
		for (int i = 0; i < 10; i++) {
			a[i] = 1000 + 100 * tu_unit(&s);
			b[i] = 2000 + 100 * tu_unit(&s);
		}
		cmp_bootstrap_change_ci(a, 10, b, 10, CMP_RESAMPLES, CMP_SEED + (uint64_t)t, 0.95, &lo, &hi);
		cover += lo <= truth && truth <= hi;
	}
	print_message("# bootstrap change interval, n = 10 a side: covered %d of %d\n", cover, trials);
	assert_true(cover >= trials * 85 / 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_mw_u),
		cmocka_unit_test(test_mw_p_exact),
		cmocka_unit_test(test_mw_p_normal),
		cmocka_unit_test(test_snap),
		cmocka_unit_test(test_median_ci_levels),
		cmocka_unit_test(test_median_ci_coverage),
		cmocka_unit_test(test_bootstrap_shift),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
