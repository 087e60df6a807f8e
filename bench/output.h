/* SPDX-License-Identifier: MIT */
/*
 * output.h - results as a table for people, CSV for spreadsheets, JSON lines
 * for tools.  Each result is written and flushed as soon as it is measured,
 * so an interrupted run loses nothing already measured.
 */
#ifndef BENCH_OUTPUT_H
#define BENCH_OUTPUT_H

#include <stdio.h>

#include "run.h"

enum bench_format { BENCH_FMT_TABLE, BENCH_FMT_CSV, BENCH_FMT_JSON };

struct bench_output {
	enum bench_format format;	/* how results are printed */
	int nr_cpus;			/* CPUs the run could use, for the notes */
	FILE *fp;			/* json: where lines go, each flushed and fsynced; NULL = stdout */
	int write_failed;		/* a line could not be written to fp (said on stderr once) */
};

/* 0, or -EINVAL for an unknown name. */
int bench_output_parse_format(const char *name, enum bench_format *f);
void bench_output_begin(struct bench_output *o, const struct bench_config *cfg, int nr_cpus);
/* k repetitions of one algorithm: their medians with intervals (k == 1: the result as is). */
void bench_output_summary(struct bench_output *o, const struct bench_config *cfg,
			  const struct bench_result *reps, int k);
void bench_output_end(struct bench_output *o, const struct bench_config *cfg);

#endif /* BENCH_OUTPUT_H */
