/* SPDX-License-Identifier: MIT */
/* workload.c - the workloads' names and the charge limits' headroom rule (workload.h). */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "workload.h"

static const char *const bench_workload_names[BENCH_NR_WORKLOADS] = { "update", "charge", "readers", "store" };

const char *bench_workload_name(int w)
{
	return w >= 0 && w < BENCH_NR_WORKLOADS ? bench_workload_names[w] : "?";
}

int bench_workload_find(const char *name)
{
	for (int w = 0; w < BENCH_NR_WORKLOADS; w++)
		if (!strcmp(name, bench_workload_names[w]))
			return w;
	return -1;
}

int bench_parse_workload(const char *name)
{
	const int w = bench_workload_find(name);

	if (w >= 0)
		return w;
	die("unknown workload '%s' (want " BENCH_WORKLOAD_LIST ")", name);
}

int64_t bench_headroom_limit(int below, int hold, double headroom)
{
	if (headroom <= 0)
		headroom = BENCH_LIMIT_HEADROOM;
	return (int64_t)llround((double)BENCH_CHARGE_UNIT * hold * below * headroom);
}
