/* SPDX-License-Identifier: MIT */
/*
 * progress.h - feedback on long work, as hyperfine gives it: on a terminal
 * (stderr) one line rewritten in place with what is measured now, how far
 * the work is and the time left; off a terminal one line per finished rep
 * round (every algorithm of a configuration measured once more), once the
 * work has run a second (short runs, and the tests' clean stderr, stay
 * silent).  CTRBENCH_PROGRESS=0 turns it off; CTRBENCH_PROGRESS=1 prints the
 * lines off a terminal from the start (the tests of these lines).  One per
 * process: `run`, `sweep` and `scenario` plan it and bench_exec advances it.
 *
 * The counts and the time left are of this process's work only: a
 * measurement read back from a results file (--resume) leaves the plan, so
 * neither the total nor the done count holds it, and the time left is the
 * mean time of the measurements timed here (before any, the planned seconds
 * each) times those left.  The state is shared with the groups' processes
 * bench_exec forks (a shared mapping), so what they measure and read back
 * counts here as it happens.
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

/*
 * It ended; if it finished a rep round ("rep 2/3 of update chain:2 ..."),
 * say so off a terminal, with the counts and the time left.
 */
void bench_progress_end(const char *round_done);

/* n planned measurements are read back from a results file, not run: out of the plan. */
void bench_progress_reuse(int n);

/*
 * A group of n planned measurements ended (in its own process, bench/exec.c):
 * those of them it neither ended nor read back will not run (it died, failed
 * or was stopped): out of the plan.
 */
void bench_progress_advance(int n);

/* Progress is on (planned, CTRBENCH_PROGRESS not 0). */
int bench_progress_on(void);

/* Clear the terminal line (before printing a table row, or at the end). */
void bench_progress_clear(void);

/* "1:05" or "1:02:03", rounded to the second. */
void bench_fmt_secs(char *buf, size_t len, double secs);

/* CLOCK_MONOTONIC, seconds. */
double bench_now(void);

#endif /* BENCH_PROGRESS_H */
