/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>

#include "hist.h"

void ctr_hist_reset(struct ctr_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void ctr_hist_merge(struct ctr_hist *into, const struct ctr_hist *from)
{
	into->count += from->count;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
	for (unsigned i = 0; i < CTR_HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
}

/* Midpoint of bucket i (its only value below CTR_HIST_SUB). */
static uint64_t ctr_hist_mid(unsigned i)
{
	unsigned shift, sub;

	if (i < CTR_HIST_SUB)
		return i;
	shift = (i - CTR_HIST_SUB) / CTR_HIST_SUB;
	sub = (i - CTR_HIST_SUB) % CTR_HIST_SUB;
	return ((uint64_t)(CTR_HIST_SUB + sub) << shift) + (((uint64_t)1 << shift) >> 1);
}

uint64_t ctr_hist_quantile(const struct ctr_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (q >= 1.0)
		return h->max;
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < CTR_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t v = ctr_hist_mid(i);

			return v > h->max ? h->max : v;
		}
	}
	return h->max;
}

uint64_t ctr_hist_count_above(const struct ctr_hist *h, uint64_t v)
{
	uint64_t n = 0;

	for (unsigned i = ctr_hist_index(v) + 1; i < CTR_HIST_BUCKETS; i++)
		n += h->bucket[i];
	return n;
}
