/* SPDX-License-Identifier: MIT */
/* reps.c - a configuration's K runs summarized: medians, their intervals, the CV (reps.h). */
#include <math.h>
#include <stdlib.h>

#include "reps.h"
#include "stats.h"

double bench_field_num(const struct bench_result *r, int f)
{
	const struct bench_field *d = &bench_fields[f];
	const char *p = (const char *)r + d->off;

	if (d->src != BSRC_RESULT)
		return 0;
	switch (d->ctype) {
	case BC_DOUBLE: return *(const double *)p;
	case BC_U64: return (double)*(const uint64_t *)p;
	case BC_I64: return (double)*(const int64_t *)p;
	case BC_INT: return *(const int *)p;
	case BC_UINT: return *(const unsigned *)p;
	default: return 0;
	}
}

void bench_field_put(struct bench_result *r, int f, double v)
{
	const struct bench_field *d = &bench_fields[f];
	char *p = (char *)r + d->off;

	switch (d->ctype) {
	case BC_DOUBLE: *(double *)p = v; break;
	case BC_U64: *(uint64_t *)p = (uint64_t)v; break;
	case BC_I64: *(int64_t *)p = (int64_t)v; break;
	case BC_INT: *(int *)p = (int)v; break;
	case BC_UINT: *(unsigned *)p = (unsigned)v; break;
	default: break;
	}
}

/* A field the summary computes from the reps: a numeric R() row with this SUM. */
static int bench_field_summed(int f, enum bench_fsum how)
{
	return bench_fields[f].sum == how && bench_fields[f].src == BSRC_RESULT &&
	       bench_fields[f].ctype != BC_STR && bench_fields[f].ctype != BC_NONE;
}

/*
 * The median's interval is stats.c's cmp_median_ci: [x(j), x(k-j+1)]
 * covers the true median with probability 1 - 2 P(Bin(k, 1/2) <= j - 1),
 * whatever the distribution: the widest j with coverage >= 95%, or the
 * whole range when K is too small for 95% (5 reps give 93.75%: say so,
 * don't pretend).
 */
void bench_stat_of(double *v, int k, struct bench_stat *s)
{
	double mean = 0, var = 0;

	qsort(v, k, sizeof(*v), cmp_double);
	s->median = cmp_median(v, k);
	s->level = cmp_median_ci(v, k, 0.95, &s->lo, &s->hi);
	for (int i = 0; i < k; i++)
		mean += v[i] / k;
	for (int i = 0; k > 1 && i < k; i++)
		var += (v[i] - mean) * (v[i] - mean) / (k - 1);
	s->cv = mean != 0 ? sqrt(var) / fabs(mean) : 0;
}

void bench_summarize(const struct bench_result *reps, int k, struct bench_summary *s)
{
	double *v = malloc(sizeof(double) * (k ? k : 1));
	int worst = 1;

	s->k = k;
	s->rep_index = 0;
	for (int f = 0; v && f < BF_NR; f++) {
		if (!bench_field_summed(f, BS_MEDIAN))
			continue;
		for (int i = 0; i < k; i++)
			v[i] = bench_field_num(&reps[i], f);
		bench_stat_of(v, k, &s->stat[f]);
	}
	/* the details come from the rep whose throughput is closest to the median */
	for (int i = 1; i < k; i++)
		if (fabs(reps[i].ops_per_sec - s->stat[BF_OPS_PER_SEC].median) <
		    fabs(reps[s->rep_index].ops_per_sec - s->stat[BF_OPS_PER_SEC].median))
			s->rep_index = i;
	s->med = reps[s->rep_index];
	for (int i = 0; i < k; i++)
		worst = reps[i].verify == 0 ? 0 : worst == 0 ? 0 : reps[i].verify < worst ? reps[i].verify : worst;
	s->med.verify = worst;
	/* the host over every rep, not the median rep's alone: noise in any of them spreads the K */
	if (k)
		s->med.host = reps[0].host;
	for (int i = 1; i < k; i++)
		bench_noise_pool(&s->med.host, &reps[i].host);
	for (int i = 0; i < k && worst == 0; i++) {
		if (reps[i].verify == 0) {
			s->med.bad_node = reps[i].bad_node;
			s->med.got = reps[i].got;
			s->med.want = reps[i].want;
			break;
		}
	}
	/*
	 * Every summarized figure is its median, the read ones too, so that a
	 * table never sets one rep's p99.9 beside the median p99 (medians keep
	 * the order of quantiles that hold in every rep: p99 <= p99.9 in each,
	 * so in theirs).
	 */
	for (int f = 0; v && f < BF_NR; f++)
		if (bench_field_summed(f, BS_MEDIAN))
			bench_field_put(&s->med, f, s->stat[f].median);
	/* what a bound or a limit promises must hold in every rep: report the worst */
	for (int i = 0; i < k; i++) {
		const struct bench_result *r = &reps[i];

		for (int f = 0; f < BF_NR; f++)
			if (bench_field_summed(f, BS_WORST) && bench_field_num(r, f) > bench_field_num(&s->med, f))
				bench_field_put(&s->med, f, bench_field_num(r, f));
		/* admission is one object: the worst overshoot of any rep */
		if (r->overshoot_max > s->med.overshoot_max)
			s->med.overshoot_max = r->overshoot_max;
		/* the worst rep's false rejects with its own audit counts, so their ratio is one rep's */
		if (r->false_rejects > s->med.false_rejects) {
			s->med.false_rejects = r->false_rejects;
			s->med.audited = r->audited;
			s->med.audit_rejected = r->audit_rejected;
		}
	}
	free(v);
}
