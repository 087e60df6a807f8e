/* SPDX-License-Identifier: MIT */
/* noise.c - the host's state from /proc, and the likely cause of noise (noise.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "noise.h"

/*
 * What counts as a cause.  Steal of 5% is well above what an idle
 * hypervisor takes (0-1%) and, being bursty, spreads reps more than its
 * mean suggests; other processes at 10% of the CPU take a PU from the run
 * a tenth of the time on average, unevenly; iowait at 10% means the host
 * is paging or writing, which stalls memory-bound runs.
 */
#define BENCH_CAUSE_STEAL 0.05
#define BENCH_CAUSE_OTHERS 0.10
#define BENCH_CAUSE_IOWAIT 0.10

/* CTRBENCH_PROC_ROOT's file, or /proc's: "loadavg", "stat", "self/stat". */
static FILE *bench_proc_open(const char *name)
{
	const char *root = getenv("CTRBENCH_PROC_ROOT");
	char path[4096];

	if (!root || !*root)
		root = "/proc";
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, name) >= sizeof(path))
		return NULL;
	return fopen(path, "re");
}

static void bench_noise_read_loadavg(struct bench_noise_sample *s)
{
	FILE *f = bench_proc_open("loadavg");
	double v;

	if (f && fscanf(f, "%lf", &v) == 1 && v >= 0 && isfinite(v))
		s->load1 = v;
	if (f)
		fclose(f);
}

/* The aggregate "cpu " line: user nice system idle iowait irq softirq steal [guest guest_nice]. */
static void bench_noise_read_stat(struct bench_noise_sample *s)
{
	FILE *f = bench_proc_open("stat");
	char line[1024];

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long v[8];

		if (strncmp(line, "cpu ", 4))
			continue;
		/* steal came with Linux 2.6.11: a shorter line is not one we can read */
		if (sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
			   &v[4], &v[5], &v[6], &v[7]) == 8) {
			s->busy = v[0] + v[1] + v[2] + v[5] + v[6];
			s->iowait = v[4];
			s->steal = v[7];
			/* guest time is already in user and nice: not added again */
			s->total = s->busy + v[3] + v[4] + v[7];
			s->have_stat = 1;
		}
		break;
	}
	if (f)
		fclose(f);
}

/* utime and stime, fields 14 and 15, counted after the ")" that ends comm (which may hold spaces). */
static void bench_noise_read_self(struct bench_noise_sample *s)
{
	FILE *f = bench_proc_open("self/stat");
	char line[2048], *p;
	unsigned long long ut, st;

	if (f && fgets(line, sizeof(line), f) && (p = strrchr(line, ')')) &&
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2) {
		s->self = ut + st;
		s->have_self = 1;
	}
	if (f)
		fclose(f);
}

void bench_noise_sample(struct bench_noise_sample *s)
{
	struct timespec ts;

	memset(s, 0, sizeof(*s));
	s->load1 = NAN;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	bench_noise_read_loadavg(s);
	bench_noise_read_stat(s);
	bench_noise_read_self(s);
}

void bench_noise_clear(struct bench_host *h)
{
	*h = (struct bench_host){ NAN, NAN, NAN, NAN, NAN, NAN };
}

/* A share of the interval's jiffies, in [0, 1] (the counters are per CPU, rounded apart). */
static double bench_share(double part, double total)
{
	double v = part / total;

	return v < 0 ? 0 : v > 1 ? 1 : v;
}

void bench_noise_interval(const struct bench_noise_sample *a, const struct bench_noise_sample *b,
			  struct bench_host *h)
{
	bench_noise_clear(h);
	h->load1_start = a->load1;
	h->load1_end = b->load1;
	h->seconds = b->t >= a->t ? b->t - a->t : NAN;
	/* no jiffy went by (a short rep, or a file that did not change): no share to give */
	if (!a->have_stat || !b->have_stat || b->total <= a->total || b->steal < a->steal ||
	    b->iowait < a->iowait || b->busy < a->busy)
		return;
	{
		double total = (double)(b->total - a->total), busy = (double)(b->busy - a->busy);

		h->steal = bench_share((double)(b->steal - a->steal), total);
		h->iowait = bench_share((double)(b->iowait - a->iowait), total);
		if (a->have_self && b->have_self && b->self >= a->self)
			h->others = bench_share(busy - (double)(b->self - a->self), total);
	}
}

/* acc's share v pooled with rep's w, each weighted by its seconds; the known one where one is not. */
static double bench_pool_share(double v, double vs, double w, double ws)
{
	if (isnan(w) || isnan(ws))
		return v;
	if (isnan(v) || isnan(vs))
		return w;
	return vs + ws > 0 ? (v * vs + w * ws) / (vs + ws) : (v + w) / 2;
}

void bench_noise_pool(struct bench_host *acc, const struct bench_host *rep)
{
	/* the seconds behind each share: a rep whose share is unknown does not weigh */
	double vs = acc->seconds, ws = rep->seconds;

	if (isnan(acc->load1_start))
		acc->load1_start = rep->load1_start;
	if (!isnan(rep->load1_end))
		acc->load1_end = rep->load1_end;
	acc->steal = bench_pool_share(acc->steal, vs, rep->steal, ws);
	acc->iowait = bench_pool_share(acc->iowait, vs, rep->iowait, ws);
	acc->others = bench_pool_share(acc->others, vs, rep->others, ws);
	acc->seconds = isnan(vs) ? ws : isnan(ws) ? vs : vs + ws;
}

const char *bench_noise_cause(const struct bench_host *h, int nr_cpus, int threads, char *buf, size_t len)
{
	double load = fmax(h->load1_start, h->load1_end);	/* fmax: the known one of the two */
	const char *cpus = nr_cpus == 1 ? "" : "s";

	if (nr_cpus > 0 && threads > nr_cpus)
		snprintf(buf, len, "more threads (%d) than CPUs (%d): they preempt each other", threads,
			 nr_cpus);
	else if (h->steal >= BENCH_CAUSE_STEAL)
		snprintf(buf, len, "steal %.0f%% (the hypervisor ran other guests)", 100 * h->steal);
	else if (h->others >= BENCH_CAUSE_OTHERS && !isnan(load))
		snprintf(buf, len, "load %.1f on %d CPU%s: other processes used %.0f%% of the CPU", load,
			 nr_cpus, cpus, 100 * h->others);
	else if (h->others >= BENCH_CAUSE_OTHERS)
		snprintf(buf, len, "other processes used %.0f%% of the CPU", 100 * h->others);
	/* others unknown: the load says only that the run had company (its own threads are in it) */
	else if (isnan(h->others) && load > nr_cpus + 0.5)
		snprintf(buf, len, "load %.1f on %d CPU%s (other processes' share unknown)", load, nr_cpus,
			 cpus);
	else if (h->iowait >= BENCH_CAUSE_IOWAIT)
		snprintf(buf, len, "iowait %.0f%% (the host was paging or waiting on disk)", 100 * h->iowait);
	else if (isnan(h->steal) && isnan(h->others) && isnan(load))
		snprintf(buf, len, "unknown: the host's state could not be read");
	else
		snprintf(buf, len, "none found on this host (run-to-run variance)");
	return buf;
}

double bench_noisy_cv(void)
{
	static double cv = -2;	/* below any value taken: not read yet */

	if (cv < -1.5) {
		const char *env = getenv("CTRBENCH_NOISY_CV");
		char *end;

		cv = 0.10;
		if (env && *env) {
			double v = strtod(env, &end);

			if (*end || !isfinite(v) || v < -1)
				die("CTRBENCH_NOISY_CV: '%s' is not a number of -1 or more", env);
			cv = v;
		}
	}
	return cv;
}
