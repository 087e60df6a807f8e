/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>

#include "hist.h"

void bench_hist_reset(struct bench_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void bench_hist_merge(struct bench_hist *into, const struct bench_hist *from)
{
	into->count += from->count;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
	for (unsigned i = 0; i < BENCH_HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
}

/* Midpoint of bucket i (its only value below BENCH_HIST_SUB). */
static uint64_t bench_hist_mid(unsigned i)
{
	unsigned shift, sub;

	if (i < BENCH_HIST_SUB)
		return i;
	shift = (i - BENCH_HIST_SUB) / BENCH_HIST_SUB;
	sub = (i - BENCH_HIST_SUB) % BENCH_HIST_SUB;
	return ((uint64_t)(BENCH_HIST_SUB + sub) << shift) + (((uint64_t)1 << shift) >> 1);
}

uint64_t bench_hist_quantile(const struct bench_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (q >= 1.0)
		return h->max;
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < BENCH_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t v = bench_hist_mid(i);

			return v > h->max ? h->max : v;
		}
	}
	return h->max;
}
