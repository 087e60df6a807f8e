/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

struct progress_state {
	int tty;		/* stderr is a terminal: the rewritten line */
	int force;		/* CTRBENCH_PROGRESS=1: off a terminal from the start */
	int total;		/* measurements planned, 0 unknown */
	int done;		/* measurements ended, here or in a group's process */
	int dropped;		/* planned ones that will not run here: read back, or their group ended */
	int settled;		/* done + dropped at the last bench_progress_advance */
	double secs_each;	/* estimate before the first ends */
	double secs_done;	/* what the ended ones took, start to end */
	double start;		/* when the plan was made; 0: no plan, nothing shown */
	double mstart;		/* when the measurement in flight began */
	int shown;		/* the terminal line is on screen */
};

/*
 * Shared with the groups' processes (bench_exec forks one per group): what
 * they count is this process's count, and a group that dies keeps what it
 * counted.  If the mapping fails, a private copy: the groups' counts are
 * then lost to this process and bench_progress_advance drops them.
 */
static struct progress_state bp_private, *bp = &bp_private;

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
	if (bp == &bp_private) {
		void *m = mmap(NULL, sizeof(*bp), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (m != MAP_FAILED)
			bp = m;
	}
	memset(bp, 0, sizeof(*bp));
	bp->tty = isatty(STDERR_FILENO);
	bp->force = env && !strcmp(env, "1");
	bp->total = total;
	bp->secs_each = secs_each;
	bp->start = bench_now();
}

int bench_progress_on(void)
{
	return bp->start != 0;
}

/* Measurements still to run here. */
static int progress_left(void)
{
	int left = bp->total - bp->dropped - bp->done;

	return left > 0 ? left : 0;
}

/* Seconds left: the mean of those timed here (before any, the plan's) times those left. */
static double progress_secs_left(void)
{
	return (bp->done ? bp->secs_done / bp->done : bp->secs_each) * progress_left();
}

/* "[3/12] 0:04 elapsed, ~0:12 left" (no total: "[3] 0:04 elapsed"). */
static void bench_progress_where(char *buf, size_t len)
{
	char e[32], l[32];

	bench_fmt_secs(e, sizeof(e), bench_now() - bp->start);
	if (bp->total > 0) {
		bench_fmt_secs(l, sizeof(l), progress_secs_left());
		snprintf(buf, len, "[%d/%d] %s elapsed, ~%s left", bp->done, bp->total - bp->dropped, e, l);
	} else {
		snprintf(buf, len, "[%d] %s elapsed", bp->done, e);
	}
}

void bench_progress_start(const char *what)
{
	char where[96];

	if (!bp->start)
		return;
	bp->mstart = bench_now();
	if (!bp->tty)
		return;
	bench_progress_where(where, sizeof(where));
	fprintf(stderr, "\r\033[K%s: %s", where, what);
	fflush(stderr);
	bp->shown = 1;
}

void bench_progress_end(const char *round_done)
{
	const double now = bench_now();
	char l[32];

	if (!bp->start)
		return;
	bp->done++;
	if (bp->mstart)
		bp->secs_done += now - bp->mstart;
	bp->mstart = 0;
	if (bp->tty || !round_done || (!bp->force && now - bp->start < 1.0))
		return;
	if (bp->total > 0) {
		bench_fmt_secs(l, sizeof(l), progress_secs_left());
		/* 87 columns for make run's rounds: "ctrbench: rep 1/3 of update chain:8 ... compact: 16/96, 0:25 left" */
		fprintf(stderr, "ctrbench: %s: %d/%d, %s left\n", round_done, bp->done,
			bp->total - bp->dropped, l);
	} else {
		fprintf(stderr, "ctrbench: %s: %d done\n", round_done, bp->done);
	}
	fflush(stderr);
}

void bench_progress_reuse(int n)
{
	if (bp->start)
		bp->dropped += n;
}

void bench_progress_advance(int n)
{
	int counted;

	if (!bp->start)
		return;
	counted = bp->done + bp->dropped - bp->settled;
	if (counted < n)
		bp->dropped += n - counted;
	bp->settled = bp->done + bp->dropped;
}

void bench_progress_clear(void)
{
	if (bp->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		bp->shown = 0;
	}
}
