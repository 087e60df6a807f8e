/* SPDX-License-Identifier: MIT */
/*
 * pmu.h - per-thread event counting through the kernel's libperf.  For now
 * one software event, task-clock, opened by each worker on itself; hardware
 * events (and their reasons for being unavailable) come with issue 6.
 */
#ifndef PMU_H
#define PMU_H

#include <stdint.h>

struct perf_evsel;
struct perf_thread_map;

enum pmu_source {
	PMU_SRC_PERF,		/* perf_event task-clock, counted by the kernel */
	PMU_SRC_CPUTIME,	/* CLOCK_THREAD_CPUTIME_ID, where perf_event_open was refused */
};

struct pmu_task_clock {
	enum pmu_source source;		/* where the figure comes from */
	int open_errno;			/* why perf was not used (PMU_SRC_CPUTIME), else 0 */
	struct perf_evsel *evsel;	/* PMU_SRC_PERF: the open counter */
	struct perf_thread_map *threads;/* PMU_SRC_PERF: the calling thread */
};

/* Once per process, before any other pmu_ call, while single-threaded. */
void pmu_init(void);

/* Count task-clock of the calling thread; falls back to the thread CPU clock. */
void pmu_task_clock_open(struct pmu_task_clock *c);
/* Nanoseconds of CPU time of that thread so far. */
uint64_t pmu_task_clock_read(struct pmu_task_clock *c);
void pmu_task_clock_close(struct pmu_task_clock *c);
const char *pmu_source_name(enum pmu_source s);

#endif /* PMU_H */
