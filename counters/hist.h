/* SPDX-License-Identifier: MIT */
/*
 * hist.h - log-linear histogram of durations (TSC ticks or ns), used by the
 * harness (one per worker, merged after the run: no shared write while
 * measuring) and by algorithms that time their own flushes.  Values below
 * 2^CTR_HIST_SUB_BITS are exact; above, each power of two is split into
 * 2^CTR_HIST_SUB_BITS buckets, so a bucket's midpoint is within 1/64 (1.6%)
 * of any value in it.
 */
#ifndef CTR_HIST_H
#define CTR_HIST_H

#include <stdint.h>

#define CTR_HIST_SUB_BITS 5
#define CTR_HIST_SUB (1u << CTR_HIST_SUB_BITS)
#define CTR_HIST_BUCKETS (CTR_HIST_SUB + (64 - CTR_HIST_SUB_BITS) * CTR_HIST_SUB)

struct ctr_hist {
	uint64_t count;				/* samples recorded */
	uint64_t sum;				/* their sum, for the mean */
	uint64_t max;				/* largest sample, exact */
	uint64_t bucket[CTR_HIST_BUCKETS];	/* counts per log-linear bucket */
};

static inline unsigned ctr_hist_index(uint64_t v)
{
	unsigned msb, shift;

	if (v < CTR_HIST_SUB)
		return (unsigned)v;
	msb = 63 - (unsigned)__builtin_clzll(v);
	shift = msb - CTR_HIST_SUB_BITS;
	return CTR_HIST_SUB + shift * CTR_HIST_SUB +
	       (unsigned)((v >> shift) - CTR_HIST_SUB);
}

static inline void ctr_hist_add(struct ctr_hist *h, uint64_t v)
{
	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
	h->bucket[ctr_hist_index(v)]++;
}

void ctr_hist_reset(struct ctr_hist *h);
void ctr_hist_merge(struct ctr_hist *into, const struct ctr_hist *from);
/* Value at quantile q in [0, 1] (nearest rank, bucket midpoint; the max is exact). */
uint64_t ctr_hist_quantile(const struct ctr_hist *h, double q);
/*
 * Samples certainly above v: those in buckets wholly above v's bucket.  The
 * ones sharing v's bucket (within 1/32 of v) are left out, so it is a lower
 * bound, off by at most that bucket's count.
 */
uint64_t ctr_hist_count_above(const struct ctr_hist *h, uint64_t v);

#endif /* CTR_HIST_H */
