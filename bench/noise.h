/* SPDX-License-Identifier: MIT */
/*
 * noise.h - the host's state around a measurement, and the likely cause of
 * a noisy figure.
 *
 * A figure whose repetitions spread more than BENCH_NOISY_CV is flagged
 * NOISY; on a shared host that says nothing about why.  Each rep samples
 * /proc before and after it runs: the 1-minute load (/proc/loadavg), the
 * aggregate "cpu" line of /proc/stat (steal, iowait, busy and total
 * jiffies) and this process's own CPU time (/proc/self/stat, utime +
 * stime), so that a result line can say what the host did meanwhile: how
 * much of the CPU time the hypervisor gave to other guests (steal), how
 * much was idle waiting on I/O, and how much other processes used
 * (busy jiffies minus our own).  bench_noise_cause() turns that into the
 * one likely cause a NOISY row names.
 *
 * CTRBENCH_PROC_ROOT, when set, is read instead of /proc (files loadavg,
 * stat, self/stat): tests give a fake tree.  A file that cannot be read or
 * parsed leaves its figures unknown (NaN here, null in JSON), never an error.
 */
#ifndef BENCH_NOISE_H
#define BENCH_NOISE_H

#include <stddef.h>
#include <stdint.h>

/* One look at the host. */
struct bench_noise_sample {
	double t;			/* CLOCK_MONOTONIC, seconds */
	double load1;			/* /proc/loadavg's first figure; NaN unknown */
	int have_stat;			/* the aggregate cpu line was read */
	uint64_t total;			/* its jiffies: user..steal, all CPUs (guest is in user) */
	uint64_t busy;			/* user + nice + system + irq + softirq */
	uint64_t steal, iowait;
	int have_self;			/* /proc/self/stat was read */
	uint64_t self;			/* this process's utime + stime, in the same ticks */
};

/* The host over an interval (a rep, or a configuration's reps pooled); NaN: unknown. */
struct bench_host {
	double load1_start, load1_end;	/* the 1-minute load at its start and end */
	double seconds;			/* the interval's length (pooled: the reps' sum) */
	double steal;			/* share of all CPUs' time the hypervisor gave other guests */
	double iowait;			/* share spent idle waiting on I/O */
	double others;			/* share used by other processes than this one */
};

/* Samples the host now into *s; whatever cannot be read is left unknown. */
void bench_noise_sample(struct bench_noise_sample *s);

/* The host between samples a (before) and b (after). */
void bench_noise_interval(const struct bench_noise_sample *a, const struct bench_noise_sample *b,
			  struct bench_host *h);

/* Every figure unknown. */
void bench_noise_clear(struct bench_host *h);

/*
 * Pools rep after acc's reps (reps in the order they ran): acc's start
 * load stays, the end load is rep's, seconds add up, and each share is the
 * mean weighted by seconds over the reps that have it.
 */
void bench_noise_pool(struct bench_host *acc, const struct bench_host *rep);

/*
 * The likely cause of a noisy figure measured with threads threads (updaters
 * and readers) on nr_cpus CPUs under host h, written into buf (at most len
 * bytes, under 90 characters): the first of more threads than CPUs, steal,
 * other processes' load, iowait; else "none found on this host (run-to-run
 * variance)".  Returns buf.
 */
const char *bench_noise_cause(const struct bench_host *h, int nr_cpus, int threads, char *buf, size_t len);

/*
 * The coefficient of variation above which a figure is noisy: 0.10, or
 * CTRBENCH_NOISY_CV where set (a test hook: -1 flags every figure of two or
 * more reps, so a test can check what a NOISY row prints; a value that is
 * not a number dies, naming it).
 */
double bench_noisy_cv(void);

#endif /* BENCH_NOISE_H */
