/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the statistics behind `ctrbench compare` and the summaries of
 * repetitions, as pure functions (tests/harness/test_compare.c calls them).
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stdint.h>

/* Statistics.  None keeps or changes its inputs (they copy and sort). */

/* Median of x[0..n) (mean of the middle two when n is even); NAN when n < 1. */
double cmp_median(const double *x, int n);

/* The median of x[0..n) with its range [*lo, *hi] = [min, max]; NAN (all three) when n < 1. */
double cmp_median_range(const double *x, int n, double *lo, double *hi);

/*
 * Mann-Whitney U of a against b: the pairs (a_i, b_j) with a_i > b_j, a
 * tie counting 1/2.  U(a,b) + U(b,a) = na * nb.
 */
double cmp_mw_u(const double *a, int na, const double *b, int nb);

/*
 * Two-sided p-value of the Mann-Whitney U test (no shift between a and b).
 * Exact (the permutation distribution of the midrank sum, ties included)
 * when na + nb <= CMP_MW_EXACT_MAX, else the normal approximation with
 * tie and continuity corrections.  1 when either side is empty.
 */
#define CMP_MW_EXACT_MAX 60
double cmp_mw_p(const double *a, int na, const double *b, int nb);

/*
 * Distribution-free (order-statistic) interval for the median of x:
 * [x(k), x(n+1-k)] with the largest k whose coverage
 * 1 - 2 P(Binomial(n, 1/2) < k) is at least level.  When even k = 1 falls
 * short (n < 6 at 0.95), [min, max].  Returns the coverage achieved (0 for
 * n = 1, NAN and lo = hi = NAN for n < 1).
 */
double cmp_median_ci(const double *x, int n, double level, double *lo, double *hi);

/*
 * Percentile bootstrap interval of the change of medians in percent,
 * 100 * (median(b*) / median(a*) - 1), over `resamples` resamplings of
 * each side with replacement, from a xorshift64* generator seeded with
 * `seed` (the same inputs give the same interval).  Resamples whose
 * median(a*) is 0 are dropped.  Returns the resamples used; 0 (and NAN
 * bounds) when none could be.
 */
int cmp_bootstrap_change_ci(const double *a, int na, const double *b, int nb, int resamples,
			    uint64_t seed, double level, double *lo, double *hi);

/*
 * Makes values of a and b that lie within a relative distance rel of each
 * other equal (each run of sorted values, pooled over both, chained from
 * its smallest, takes that smallest value), so that the tests see them as
 * ties: latency percentiles are histogram buckets scaled by each run's
 * timer calibration, and the same bucket in two runs differs by about
 * 1e-6 -- without this, a perfect separation.  Changes a and b in place.
 */
void cmp_snap(double *a, int na, double *b, int nb, double rel);

/* qsort comparison of doubles, ascending: the one every command sorts with. */
int cmp_double(const void *pa, const void *pb);

/* Linear interpolation between order statistics of sorted s[0..n) at q in [0, 1]. */
double quantile_sorted(const double *s, int n, double q);

/* What compare uses. */
#define CMP_TIE_REL 1e-4	/* values within 0.01% are ties for the tests */
#define CMP_RESAMPLES 2000
#define CMP_SEED 0x5eedc0a1beef2026ULL
#define CMP_LEVEL 0.95
#define CMP_ALPHA 0.05		/* --significance-level default, as criterion's */
#define CMP_NOISE 0.02		/* --noise-threshold default: 2%, as criterion's */
#define CMP_MW_MIN_REPS 5	/* both sides at least this many: Mann-Whitney, else intervals */

#endif /* BENCH_STATS_H */
