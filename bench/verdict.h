/* SPDX-License-Identifier: MIT */
/*
 * verdict.h - what to make of a run's figures, at the end of run, sweep,
 * recommend --verdict and make run (issue 31: numbers, no verdict): per
 * workload measured, the designs ranked by recommend's figure with exact
 * and approximate ones apart (bench/recommend/), the evidence file, what
 * this machine cannot show and the next commands.  Every line fits
 * BENCH_COLUMNS.
 */
#ifndef BENCH_VERDICT_H
#define BENCH_VERDICT_H

#include <jansson.h>

/*
 * The verdict on lines (a JSON array of result records, as run --format
 * json writes them) to stdout.  file: where they are kept (the evidence),
 * NULL: nowhere (run's table), then keep says how to keep them.
 */
void bench_verdict_print(json_t *lines, const char *file, const char *keep);

/* The same from a results file (recommend --verdict --results FILE). */
void bench_verdict_file(const char *file);

#endif /* BENCH_VERDICT_H */
