/* SPDX-License-Identifier: MIT */
/*
 * progress.h - feedback on long work, as hyperfine gives it: on a terminal
 * (stderr) one line rewritten in place with what is measured now, how far
 * the work is and the time left; off a terminal one line per finished
 * configuration, once the work has run a second (short runs, and the tests'
 * clean stderr, stay silent); CTRBENCH_PROGRESS=0 turns it off.  One per process: `run`, `sweep` and `scenario` plan it
 * and bench_exec advances it.
 */
#ifndef BENCH_PROGRESS_H
#define BENCH_PROGRESS_H

#include <stddef.h>

/*
 * total measurements to come (0: unknown, then no time left is shown) and
 * the seconds one should take before any has been timed.
 */
void bench_progress_plan(int total, double secs_each);

/* A measurement begins: what (algorithm, row, rep) for the terminal line. */
void bench_progress_start(const char *what);

/* It ended; if it finished a configuration (its last rep), say so off a terminal. */
void bench_progress_end(const char *config_done);

/*
 * n measurements ended elsewhere (a group's own process, bench/exec.c,
 * advanced its copy of this state): count them here too.
 */
void bench_progress_advance(int n);

/* Clear the terminal line (before printing a table row, or at the end). */
void bench_progress_clear(void);

/* "1:05" or "1:02:03", rounded to the second. */
void bench_fmt_secs(char *buf, size_t len, double secs);

/* CLOCK_MONOTONIC, seconds. */
double bench_now(void);

#endif /* BENCH_PROGRESS_H */
