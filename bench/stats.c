/* SPDX-License-Identifier: MIT */
/* stats.c - the statistics of stats.h: medians, their intervals, Mann-Whitney, the bootstrap. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stats.h"

int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static double *sorted_copy(const double *x, int n)
{
	double *s = bench_xmalloc(sizeof(*s) * (size_t)(n > 0 ? n : 1));

	if (n > 0)
		memcpy(s, x, sizeof(*s) * (size_t)n);
	qsort(s, (size_t)(n > 0 ? n : 0), sizeof(*s), cmp_double);
	return s;
}

static double median_sorted(const double *s, int n)
{
	if (n < 1)
		return NAN;
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double cmp_median(const double *x, int n)
{
	double *s, m;

	if (n < 1)
		return NAN;
	s = sorted_copy(x, n);
	m = median_sorted(s, n);
	free(s);
	return m;
}

double cmp_median_range(const double *x, int n, double *lo, double *hi)
{
	double *s, m;

	if (n < 1) {
		*lo = *hi = NAN;
		return NAN;
	}
	s = sorted_copy(x, n);
	m = median_sorted(s, n);
	*lo = s[0];
	*hi = s[n - 1];
	free(s);
	return m;
}

double cmp_mw_u(const double *a, int na, const double *b, int nb)
{
	double u = 0;

	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
	return u;
}

struct tagged {
	double v;
	int from_a;
};

static int cmp_tagged(const void *pa, const void *pb)
{
	return cmp_double(&((const struct tagged *)pa)->v, &((const struct tagged *)pb)->v);
}

double cmp_mw_p(const double *a, int na, const double *b, int nb)
{
	int n = na + nb;
	struct tagged *t;
	long *r2;		/* twice the midrank: an integer */
	long s_obs = 0, e2, d_obs;
	double ties = 0, p;

	if (na < 1 || nb < 1)
		return 1;
	t = bench_xmalloc(sizeof(*t) * (size_t)n);
	r2 = bench_xmalloc(sizeof(*r2) * (size_t)n);
	for (int i = 0; i < na; i++)
		t[i] = (struct tagged){ a[i], 1 };
	for (int j = 0; j < nb; j++)
		t[na + j] = (struct tagged){ b[j], 0 };
	qsort(t, (size_t)n, sizeof(*t), cmp_tagged);
	for (int i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && t[j].v == t[i].v; j++)
			;
		for (int k = i; k < j; k++)
			r2[k] = (long)(i + 1) + (long)j;	/* ranks i+1..j: midrank (i+1+j)/2 */
		ties += (double)(j - i) * (j - i) * (j - i) - (j - i);
	}
	for (int k = 0; k < n; k++)
		if (t[k].from_a)
			s_obs += r2[k];
	e2 = (long)na * (n + 1);
	d_obs = labs(s_obs - e2);

	if (n <= CMP_MW_EXACT_MAX) {
		/* dp[k][s]: subsets of k items whose doubled ranks sum to s. */
		long smax = (long)n * (n + 1);
		double *dp = calloc((size_t)(na + 1) * (size_t)(smax + 1), sizeof(*dp));
		double hit = 0, all = 0;

		if (!dp)
			die("out of memory");
		dp[0] = 1;
		for (int i = 0; i < n; i++)
			for (int k = i + 1 < na ? i + 1 : na; k >= 1; k--)
				for (long s = smax; s >= r2[i]; s--)
					dp[(size_t)k * (size_t)(smax + 1) + (size_t)s] +=
						dp[(size_t)(k - 1) * (size_t)(smax + 1) + (size_t)(s - r2[i])];
		for (long s = 0; s <= smax; s++) {
			double c = dp[(size_t)na * (size_t)(smax + 1) + (size_t)s];

			all += c;
			if (labs(s - e2) >= d_obs)
				hit += c;
		}
		free(dp);
		p = hit / all;
	} else {
		double mean = (double)na * nb / 2;
		double var = (double)na * nb / 12 * ((n + 1) - ties / ((double)n * (n - 1)));
		double u = (double)s_obs / 2 - (double)na * (na + 1) / 2;
		double z = fabs(u - mean) - 0.5;

		if (var <= 0)
			p = 1;
		else
			p = erfc((z > 0 ? z : 0) / sqrt(var) / sqrt(2));
	}
	free(t);
	free(r2);
	return p > 1 ? 1 : p;
}

void cmp_snap(double *a, int na, double *b, int nb, double rel)
{
	int n = na + nb;
	double **p = bench_xmalloc(sizeof(*p) * (size_t)(n > 0 ? n : 1));
	double g = 0;

	for (int i = 0; i < na; i++)
		p[i] = &a[i];
	for (int j = 0; j < nb; j++)
		p[na + j] = &b[j];
	/* Insertion sort by value: a handful of reps. */
	for (int i = 1; i < n; i++) {
		double *t = p[i];
		int k = i;

		for (; k > 0 && *p[k - 1] > *t; k--)
			p[k] = p[k - 1];
		p[k] = t;
	}
	for (int i = 0; i < n; i++) {
		if (i && fabs(*p[i] - g) <= rel * fmax(fabs(g), fabs(*p[i])))
			*p[i] = g;
		else
			g = *p[i];
	}
	free(p);
}

/* P(Binomial(n, 1/2) = i). */
static double binom_half_pmf(int n, int i)
{
	return exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * log(2.0));
}

double cmp_median_ci(const double *x, int n, double level, double *lo, double *hi)
{
	double *s, cdf, cov;
	int k = 1;

	if (n < 1) {
		*lo = *hi = NAN;
		return NAN;
	}
	s = sorted_copy(x, n);
	/* [x(k), x(n+1-k)] misses the median when fewer than k draws fall below it, or above. */
	cdf = binom_half_pmf(n, 0);	/* P(Bin <= k - 1) */
	cov = 1 - 2 * cdf;
	for (int kk = 2; 2 * kk <= n + 1; kk++) {
		double c = 1 - 2 * (cdf + binom_half_pmf(n, kk - 1));

		if (c < level)
			break;
		cdf += binom_half_pmf(n, kk - 1);
		k = kk;
		cov = c;
	}
	*lo = s[k - 1];
	*hi = s[n - k];
	free(s);
	return cov < 0 ? 0 : cov;
}

static uint64_t xorshift64s(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static double resample_median(const double *x, int n, double *scratch, uint64_t *rng)
{
	for (int i = 0; i < n; i++)
		scratch[i] = x[xorshift64s(rng) % (uint64_t)n];
	qsort(scratch, (size_t)n, sizeof(*scratch), cmp_double);
	return median_sorted(scratch, n);
}

/* Linear interpolation between order statistics of sorted s[0..n). */
double quantile_sorted(const double *s, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)floor(pos);

	if (i >= n - 1)
		return s[n - 1];
	return s[i] + (pos - i) * (s[i + 1] - s[i]);
}

int cmp_bootstrap_change_ci(const double *a, int na, const double *b, int nb, int resamples,
			    uint64_t seed, double level, double *lo, double *hi)
{
	double *ch, *sa, *sb;
	uint64_t rng = seed ? seed : 1;
	int m = 0;

	*lo = *hi = NAN;
	if (na < 1 || nb < 1 || resamples < 1)
		return 0;
	ch = bench_xmalloc(sizeof(*ch) * (size_t)resamples);
	sa = bench_xmalloc(sizeof(*sa) * (size_t)na);
	sb = bench_xmalloc(sizeof(*sb) * (size_t)nb);
	for (int r = 0; r < resamples; r++) {
		double ma = resample_median(a, na, sa, &rng);
		double mb = resample_median(b, nb, sb, &rng);

		if (ma != 0)
			ch[m++] = 100 * (mb / ma - 1);
	}
	if (m) {
		qsort(ch, (size_t)m, sizeof(*ch), cmp_double);
		*lo = quantile_sorted(ch, m, (1 - level) / 2);
		*hi = quantile_sorted(ch, m, 1 - (1 - level) / 2);
	}
	free(ch);
	free(sa);
	free(sb);
	return m;
}

