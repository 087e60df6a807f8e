/* SPDX-License-Identifier: MIT */
/*
 * reps.h - repetitions: medians, an order-statistic confidence interval for
 * each, and the coefficient of variation, over K runs of one configuration.
 */
#ifndef BENCH_REPS_H
#define BENCH_REPS_H

#include "noise.h"
#include "run.h"
#include "schema.h"

/* CV above this flags a figure as noisy (the table says so): 0.10 (noise.h: a test may set it). */
#define BENCH_NOISY_CV (bench_noisy_cv())

struct bench_stat {
	double median;		/* of the K values */
	double lo, hi;		/* an interval containing the true median with probability >= level */
	double level;		/* its coverage: 0.95 or more when K >= 6, else what K allows */
	double cv;		/* stddev / mean */
};

/* The statistics of v[0..k) (sorted in place). */
void bench_stat_of(double *v, int k, struct bench_stat *s);

/*
 * A numeric R() field of the field table (schema.h) in r, as a double; the
 * summaries take the BS_MEDIAN fields' medians and the BS_WORST fields'
 * largest values this way.
 */
double bench_field_num(const struct bench_result *r, int f);
/* Writes v into the numeric R() field f of r, in the member's own type. */
void bench_field_put(struct bench_result *r, int f, double v);

/*
 * K results of one algorithm in one configuration: their statistics, and a
 * result to print whose fields are summarised as the field table says
 * (schema.h): BS_MEDIAN ones (throughput, costs, latencies, reads) are the
 * medians, BS_WORST ones (verify, read errors, limit overshoot, false
 * rejects, bind failures) the worst of the K, and BS_REP ones (events,
 * flushes, placement) come from the repetition with the median throughput
 * (rep_index).
 */
struct bench_summary {
	int k;				/* repetitions done */
	int rep_index;			/* the one the details come from */
	struct bench_stat stat[BF_NR];	/* per BS_MEDIAN field of the table (schema.h) */
	struct bench_result med;	/* shallow copy of that rep with medians written in */
};

void bench_summarize(const struct bench_result *reps, int k, struct bench_summary *s);

/* s's throughput is noisy: the table's NOISY, which host.noise_cause explains (noise.h). */
static inline int bench_summary_noisy(const struct bench_summary *s)
{
	return s && s->k > 1 && s->stat[BF_OPS_PER_SEC].cv > BENCH_NOISY_CV;
}

#endif /* BENCH_REPS_H */
