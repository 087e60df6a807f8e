/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>

#include "reps.h"

const char *const bench_metric_names[BM_NR] = {
	"ops_per_sec", "ns_per_op", "update_ns.mean", "update_ns.p50", "update_ns.p90",
	"update_ns.p95", "update_ns.p99", "update_ns.p999", "update_ns.max", "cpu_ns_per_op", "ops",
	"reads_per_sec", "read_ns.p50", "read_ns.p99", "read_ns.mean", "read_ns.p90", "read_ns.p95",
	"read_ns.p999", "read_ns.max", "read_ns.over_1ms", "read_ns.over_1s", "reads",
};

/* Where a metric that is a double lives in a result; NULL for the counts (ops, reads). */
static double *bench_metric_slot(struct bench_result *r, enum bench_metric m)
{
	switch (m) {
	case BM_OPS_PER_SEC: return &r->ops_per_sec;
	case BM_NS_PER_OP: return &r->ns_per_op;
	case BM_MEAN: return &r->lat.mean;
	case BM_P50: return &r->lat.p50;
	case BM_P90: return &r->lat.p90;
	case BM_P95: return &r->lat.p95;
	case BM_P99: return &r->lat.p99;
	case BM_P999: return &r->lat.p999;
	case BM_MAX: return &r->lat.max;
	case BM_CPU_NS_PER_OP: return &r->cpu_ns_per_op;
	case BM_READS_PER_SEC: return &r->reads_per_sec;
	case BM_READ_P50: return &r->read_lat.p50;
	case BM_READ_P99: return &r->read_lat.p99;
	case BM_READ_MEAN: return &r->read_lat.mean;
	case BM_READ_P90: return &r->read_lat.p90;
	case BM_READ_P95: return &r->read_lat.p95;
	case BM_READ_P999: return &r->read_lat.p999;
	case BM_READ_MAX: return &r->read_lat.max;
	case BM_READ_OVER_1MS: return &r->read_lat.over_1ms;
	case BM_READ_OVER_1S: return &r->read_lat.over_1s;
	default: return NULL;	/* BM_OPS, BM_READS */
	}
}

double bench_metric(const struct bench_result *r, enum bench_metric m)
{
	/* the slot is only read here */
	const double *slot = bench_metric_slot((struct bench_result *)r, m);

	if (slot)
		return *slot;
	return m == BM_OPS ? (double)r->ops : (double)r->reads;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* P(Binomial(k, 1/2) <= j) */
static double binom_half_cdf(int k, int j)
{
	double p = 0, c = 1;	/* C(k, i) */

	for (int i = 0; i <= j; i++) {
		p += c;
		c = c * (k - i) / (i + 1);
	}
	return p / pow(2.0, k);
}

/*
 * The median's interval [x(j), x(k-j+1)] (1-based order statistics) covers
 * the true median with probability 1 - 2 P(Bin(k, 1/2) <= j - 1), whatever
 * the distribution: the widest j with coverage >= 95%, or the whole range
 * when K is too small for 95% (5 reps give 93.75%: say so, don't pretend).
 */
void bench_stat_of(double *v, int k, struct bench_stat *s)
{
	double mean = 0, var = 0;
	int j = 1;

	qsort(v, k, sizeof(*v), cmp_double);
	s->median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	while (j + 1 <= (k + 1) / 2 && 1 - 2 * binom_half_cdf(k, j) >= 0.95)
		j++;
	s->lo = v[j - 1];
	s->hi = v[k - j];
	s->level = 1 - 2 * binom_half_cdf(k, j - 1);
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
	for (int m = 0; v && m < BM_NR; m++) {
		for (int i = 0; i < k; i++)
			v[i] = bench_metric(&reps[i], m);
		bench_stat_of(v, k, &s->stat[m]);
	}
	/* the details come from the rep whose throughput is closest to the median */
	for (int i = 1; i < k; i++)
		if (fabs(reps[i].ops_per_sec - s->stat[BM_OPS_PER_SEC].median) <
		    fabs(reps[s->rep_index].ops_per_sec - s->stat[BM_OPS_PER_SEC].median))
			s->rep_index = i;
	s->med = reps[s->rep_index];
	for (int i = 0; i < k; i++)
		worst = reps[i].verify == 0 ? 0 : worst == 0 ? 0 : reps[i].verify < worst ? reps[i].verify : worst;
	s->med.verify = worst;
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
	for (int m = 0; v && m < BM_NR; m++) {
		double *slot = bench_metric_slot(&s->med, m);

		if (slot)
			*slot = s->stat[m].median;
		else if (m == BM_OPS)
			s->med.ops = (uint64_t)s->stat[m].median;
		else
			s->med.reads = (uint64_t)s->stat[m].median;
	}
	/* what a bound or a limit promises must hold in every rep: report the worst */
	for (int i = 0; i < k; i++) {
		const struct bench_result *r = &reps[i];

#define BENCH_WORST(f) if (r->f > s->med.f) s->med.f = r->f
		BENCH_WORST(read_error);
		BENCH_WORST(read_err_max);
		BENCH_WORST(limit_max_over);
		BENCH_WORST(overshoot_max);
		BENCH_WORST(bind_failures);
#undef BENCH_WORST
		/* the worst rep's false rejects with its own audit counts, so their ratio is one rep's */
		if (r->false_rejects > s->med.false_rejects) {
			s->med.false_rejects = r->false_rejects;
			s->med.audited = r->audited;
			s->med.audit_rejected = r->audit_rejected;
		}
	}
	free(v);
}
