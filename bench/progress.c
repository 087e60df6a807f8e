/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static struct {
	int tty;		/* stderr is a terminal: the rewritten line */
	int total;		/* measurements planned, 0 unknown */
	int done;		/* measurements ended */
	double secs_each;	/* estimate before the first ends */
	double start;		/* when the plan was made */
	int shown;		/* the terminal line is on screen */
} bp;

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void bench_fmt_secs(char *buf, size_t len, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

void bench_progress_plan(int total, double secs_each)
{
	const char *env = getenv("CTRBENCH_PROGRESS");

	if (env && !strcmp(env, "0"))	/* CTRBENCH_PROGRESS=0: no progress at all (the tests) */
		return;
	bp.tty = isatty(STDERR_FILENO);
	bp.total = total;
	bp.done = 0;
	bp.secs_each = secs_each;
	bp.start = bench_now();
}

/* "[3/12] 0:04 elapsed, ~0:12 left" (no total: "[3] 0:04 elapsed"). */
static void bench_progress_where(char *buf, size_t len)
{
	double el = bench_now() - bp.start;
	double per = bp.done ? el / bp.done : bp.secs_each;
	char e[32], l[32];

	bench_fmt_secs(e, sizeof(e), el);
	if (bp.total > 0) {
		bench_fmt_secs(l, sizeof(l), per * (bp.total - bp.done > 0 ? bp.total - bp.done : 0));
		snprintf(buf, len, "[%d/%d] %s elapsed, ~%s left", bp.done, bp.total, e, l);
	} else {
		snprintf(buf, len, "[%d] %s elapsed", bp.done, e);
	}
}

void bench_progress_start(const char *what)
{
	char where[96];

	if (!bp.tty || !bp.start)
		return;
	bench_progress_where(where, sizeof(where));
	fprintf(stderr, "\r\033[K%s: %s", where, what);
	fflush(stderr);
	bp.shown = 1;
}

void bench_progress_end(const char *config_done)
{
	char where[96];

	if (!bp.start)
		return;
	bp.done++;
	if (bp.tty || !config_done || bench_now() - bp.start < 1.0)
		return;
	bench_progress_where(where, sizeof(where));
	fprintf(stderr, "ctrbench: %s: done %s\n", where, config_done);
}

void bench_progress_advance(int n)
{
	if (bp.start)
		bp.done += n;
}

void bench_progress_clear(void)
{
	if (bp.shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		bp.shown = 0;
	}
}
