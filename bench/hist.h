/* SPDX-License-Identifier: MIT */
/*
 * hist.h - log-linear latency histogram.  Values below 2^BENCH_HIST_SUB_BITS
 * are exact; above, each power of two is split into 2^BENCH_HIST_SUB_BITS
 * buckets, so a bucket's midpoint is within 1/64 (1.6%) of any value in it.
 * One per worker thread, merged after the run: no shared write while
 * measuring.
 */
#ifndef BENCH_HIST_H
#define BENCH_HIST_H

#include <stdint.h>

#define BENCH_HIST_SUB_BITS 5
#define BENCH_HIST_SUB (1u << BENCH_HIST_SUB_BITS)
#define BENCH_HIST_BUCKETS (BENCH_HIST_SUB + (64 - BENCH_HIST_SUB_BITS) * BENCH_HIST_SUB)

struct bench_hist {
	uint64_t count;				/* samples recorded */
	uint64_t sum;				/* their sum, for the mean */
	uint64_t max;				/* largest sample, exact */
	uint64_t bucket[BENCH_HIST_BUCKETS];	/* counts per log-linear bucket */
};

static inline unsigned bench_hist_index(uint64_t v)
{
	unsigned msb, shift;

	if (v < BENCH_HIST_SUB)
		return (unsigned)v;
	msb = 63 - (unsigned)__builtin_clzll(v);
	shift = msb - BENCH_HIST_SUB_BITS;
	return BENCH_HIST_SUB + shift * BENCH_HIST_SUB +
	       (unsigned)((v >> shift) - BENCH_HIST_SUB);
}

static inline void bench_hist_add(struct bench_hist *h, uint64_t v)
{
	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
	h->bucket[bench_hist_index(v)]++;
}

void bench_hist_reset(struct bench_hist *h);
void bench_hist_merge(struct bench_hist *into, const struct bench_hist *from);
/* Value at quantile q in [0, 1] (nearest rank, bucket midpoint; the max is exact). */
uint64_t bench_hist_quantile(const struct bench_hist *h, double q);

#endif /* BENCH_HIST_H */
