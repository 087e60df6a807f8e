/* SPDX-License-Identifier: MIT */
/*
 * tsc.h - cycle-counter timestamps for sampled latencies.  A sample is the
 * difference of two timestamps taken by the same thread back to back around
 * one operation; timestamps of different threads are never compared.  This
 * guest has no rdtscp (cpuinfo lacks it), so both ends are lfence-fenced
 * rdtsc: the first lfence keeps earlier work from leaking into the sample,
 * the second keeps the operation from starting before the read.
 *
 * bench_tsc_raw() is rdtsc alone, for timing a batch of k operations in the
 * latency phase (bench/loops.c): the few instructions it lets slip across
 * either end are a rounding error on a batch sized to 16 resolutions, and it
 * costs a fraction of the fenced pair (both overheads are calibrated and
 * stated).  Neither is ever called in a throughput phase.
 */
#ifndef BENCH_TSC_H
#define BENCH_TSC_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t bench_tsc(void)
{
	uint64_t t;

	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return t;
}
static inline uint64_t bench_tsc_raw(void)
{
	return __rdtsc();
}
#define BENCH_TSC_IS_CYCLES 1
#else
#include <time.h>
static inline uint64_t bench_tsc(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define bench_tsc_raw bench_tsc
#define BENCH_TSC_IS_CYCLES 0
#endif

struct bench_tsc_info {
	double ghz;		/* ticks per ns, measured against CLOCK_MONOTONIC over 50 ms */
	int invariant;		/* constant_tsc and nonstop_tsc both in /proc/cpuinfo */
	uint64_t overhead;	/* median ticks of an empty fenced timed region, subtracted from samples */
	uint64_t overhead_raw;	/* the same with bench_tsc_raw(), subtracted from batched samples */
	uint64_t resolution;	/* smallest step between timestamps seen (a KVM guest's TSC can step by ~20) */
};

/* Calibrate (about 50 ms); fills *info. */
void bench_tsc_calibrate(struct bench_tsc_info *info);
uint64_t bench_time_ns(void);	/* CLOCK_MONOTONIC in ns */

#endif /* BENCH_TSC_H */
