/* SPDX-License-Identifier: MIT */
/*
 * output.h - results as a table for people, CSV for spreadsheets, JSON lines
 * for tools.  Each result is written and flushed as soon as it is measured,
 * so an interrupted run loses nothing already measured.
 */
#ifndef BENCH_OUTPUT_H
#define BENCH_OUTPUT_H

#include <stdio.h>

#include <jansson.h>

#include "run.h"

enum bench_format { BENCH_FMT_TABLE, BENCH_FMT_CSV, BENCH_FMT_JSON };

/* What a default table and its notes fit in (issue 31: 149 columns wrapped on a 100-column terminal); --wide: no limit. */
#define BENCH_COLUMNS 100

struct bench_output {
	enum bench_format format;	/* how results are printed */
	int nr_cpus;			/* CPUs the run could use, for the notes */
	FILE *fp;			/* json: where lines go, each flushed and fsynced; NULL = stdout */
	int write_failed;		/* a line could not be written to fp (said on stderr once) */
	int wide;			/* --wide: every column and notes on one line each, as before */
	json_t *kept;			/* table: each summary's JSON record, for the verdict; NULL: not kept */
};

/* 0, or -EINVAL for an unknown name. */
int bench_output_parse_format(const char *name, enum bench_format *f);
void bench_output_begin(struct bench_output *o, const struct bench_config *cfg, int nr_cpus);
/* k repetitions of one algorithm: their medians with intervals (k == 1: the result as is). */
void bench_output_summary(struct bench_output *o, const struct bench_config *cfg,
			  const struct bench_result *reps, int k);
void bench_output_end(struct bench_output *o, const struct bench_config *cfg);

/*
 * text to f, broken at spaces into lines of at most BENCH_COLUMNS columns
 * (a word longer than that stands alone): first before the first line, rest
 * before the others, cont after every line but the last (" \\" for a shell
 * command).  wide: one line, as it is.
 */
void bench_print_wrapped(FILE *f, const char *first, const char *rest, const char *cont, const char *text,
			 int wide);

#endif /* BENCH_OUTPUT_H */
