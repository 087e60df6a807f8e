/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

#include "pmu.h"

/* libperf's own debug chatter stays off; errors come back as return values. */
static int pmu_libperf_print(enum libperf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/*
 * One dummy CPU map for every open.  With cpus == NULL libperf 6.1 creates
 * its own lazily in a function static, unlocked: workers opening at once
 * race on it and leak the losers' maps.
 */
static struct perf_cpu_map *pmu_any_cpu;

void pmu_init(void)
{
	libperf_init(pmu_libperf_print);
	if (!pmu_any_cpu)
		pmu_any_cpu = perf_cpu_map__dummy_new();
}

void pmu_task_clock_open(struct pmu_task_clock *c)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.size = sizeof(attr),
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
		.disabled = 1,
	};
	int err;

	memset(c, 0, sizeof(*c));
	c->threads = perf_thread_map__new_dummy();
	if (!c->threads) {
		err = -ENOMEM;
		goto fallback;
	}
	perf_thread_map__set_pid(c->threads, 0, 0);	/* pid 0: the calling thread */
	c->evsel = perf_evsel__new(&attr);
	if (!c->evsel) {
		err = -ENOMEM;
		goto fallback;
	}
	if (!pmu_any_cpu) {
		err = -ENOMEM;
		goto fallback;
	}
	err = perf_evsel__open(c->evsel, pmu_any_cpu, c->threads);
	if (err)
		goto fallback;
	err = perf_evsel__enable(c->evsel);
	if (err) {
		perf_evsel__close(c->evsel);
		goto fallback;
	}
	c->source = PMU_SRC_PERF;
	return;
fallback:
	if (c->evsel)
		perf_evsel__delete(c->evsel);
	if (c->threads)
		perf_thread_map__put(c->threads);
	c->evsel = NULL;
	c->threads = NULL;
	c->source = PMU_SRC_CPUTIME;
	c->open_errno = err < 0 ? -err : EINVAL;
}

uint64_t pmu_task_clock_read(struct pmu_task_clock *c)
{
	struct perf_counts_values v = { 0 };
	struct timespec ts;

	if (c->source == PMU_SRC_PERF && !perf_evsel__read(c->evsel, 0, 0, &v))
		return v.val;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pmu_task_clock_close(struct pmu_task_clock *c)
{
	if (c->source != PMU_SRC_PERF)
		return;
	perf_evsel__disable(c->evsel);
	perf_evsel__close(c->evsel);
	perf_evsel__delete(c->evsel);
	perf_thread_map__put(c->threads);
	c->evsel = NULL;
	c->threads = NULL;
}

const char *pmu_source_name(enum pmu_source s)
{
	return s == PMU_SRC_PERF ? "perf" : "thread_cputime";
}
