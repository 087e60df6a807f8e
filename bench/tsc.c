/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tsc.h"

uint64_t bench_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int bench_tsc_invariant(void)
{
	FILE *f;
	char line[4096];
	int found = 0;

	if (!BENCH_TSC_IS_CYCLES)
		return 1;
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		found = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
		break;
	}
	fclose(f);
	return found;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void bench_tsc_calibrate(struct bench_tsc_info *info)
{
	enum { N = 4001 };
	static uint64_t empty[N];
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	uint64_t t0, c0, t1, c1;

	t0 = bench_time_ns();
	c0 = bench_tsc();
	nanosleep(&nap, NULL);
	t1 = bench_time_ns();
	c1 = bench_tsc();
	info->ghz = (double)(c1 - c0) / (double)(t1 - t0);
	info->invariant = bench_tsc_invariant();

	/* The median, not the minimum: it is what a typical sample paid. */
	for (int i = 0; i < N; i++) {
		uint64_t a = bench_tsc();

		empty[i] = bench_tsc() - a;
	}
	qsort(empty, N, sizeof(empty[0]), cmp_u64);
	info->overhead = empty[N / 2];
	/* Latencies are multiples of the counter's step: measure it rather than assume 1 tick. */
	info->resolution = UINT64_MAX;
	for (int i = 0; i < N; i++) {
		uint64_t step = i ? empty[i] - empty[i - 1] : empty[i];

		if (step && step < info->resolution)
			info->resolution = step;
	}
	if (info->resolution == UINT64_MAX)
		info->resolution = 1;
	for (int i = 0; i < N; i++) {
		uint64_t a = bench_tsc_raw();

		empty[i] = bench_tsc_raw() - a;
	}
	qsort(empty, N, sizeof(empty[0]), cmp_u64);
	info->overhead_raw = empty[N / 2];
}
