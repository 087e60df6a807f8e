/* SPDX-License-Identifier: MIT */
/*
 * reps.h - repetitions: medians, an order-statistic confidence interval for
 * each, and the coefficient of variation, over K runs of one configuration.
 */
#ifndef BENCH_REPS_H
#define BENCH_REPS_H

#include "run.h"

/* CV above this flags a figure as noisy (the table says so). */
#define BENCH_NOISY_CV 0.10

struct bench_stat {
	double median;		/* of the K values */
	double lo, hi;		/* an interval containing the true median with probability >= level */
	double level;		/* its coverage: 0.95 or more when K >= 6, else what K allows */
	double cv;		/* stddev / mean */
};

/* The statistics of v[0..k) (sorted in place). */
void bench_stat_of(double *v, int k, struct bench_stat *s);

/* Metrics summarized per configuration, in this order. */
enum bench_metric { BM_OPS_PER_SEC, BM_NS_PER_OP, BM_MEAN, BM_P50, BM_P90, BM_P95, BM_P99, BM_P999,
		    BM_MAX, BM_CPU_NS_PER_OP, BM_OPS, BM_READS_PER_SEC, BM_READ_P50, BM_READ_P99,
		    BM_READ_MEAN, BM_READ_P90, BM_READ_P95, BM_READ_P999, BM_READ_MAX, BM_READ_OVER_1MS,
		    BM_READ_OVER_1S, BM_READS, BM_NR };
extern const char *const bench_metric_names[BM_NR];
double bench_metric(const struct bench_result *r, enum bench_metric m);

/*
 * K results of one algorithm in one configuration: their statistics, and a
 * result to print whose headline figures (throughput, costs, latencies,
 * reads) are the medians, whose correctness figures (verify, read errors,
 * limit overshoot, false rejects, bind failures) are the worst of the K, and
 * whose other details (events, flushes, placement) come from the repetition
 * with the median throughput (rep_index).
 */
struct bench_summary {
	int k;				/* repetitions done */
	int rep_index;			/* the one the details come from */
	struct bench_stat stat[BM_NR];	/* per metric */
	struct bench_result med;	/* shallow copy of that rep with medians written in */
};

void bench_summarize(const struct bench_result *reps, int k, struct bench_summary *s);

#endif /* BENCH_REPS_H */
