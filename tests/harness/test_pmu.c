/* SPDX-License-Identifier: MIT */
/*
 * pmu: why an event is not counted (stubbed error codes), event lists, and
 * opening the bounce preset with task-clock and page-faults on this machine.
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../testutil.h"
#include "../../pmu/pmu.h"

static int starts_with(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

static void test_reasons(void **state)
{
	(void)state;
	assert_string_equal(pmu_reason_paranoid(ENOENT, PMU_PHASE_OPEN, 2),
			    "no PMU (ENOENT: this CPU or hypervisor exposes no such event)");
	assert_string_equal(pmu_reason_tag(ENOENT, PMU_PHASE_OPEN), "no PMU");
	/* User-space-only events need <= 2, events counting the kernel <= 1. */
	assert_string_equal(pmu_reason_paranoid(EACCES, PMU_PHASE_OPEN_KERNEL, 2),
			    "forbidden by perf_event_paranoid=2 (needs <= 1 or CAP_PERFMON)");
	assert_string_equal(pmu_reason_paranoid(EPERM, PMU_PHASE_OPEN_KERNEL, 3),
			    "forbidden by perf_event_paranoid=3 (needs <= 1 or CAP_PERFMON)");
	assert_string_equal(pmu_reason_paranoid(EPERM, PMU_PHASE_OPEN, 3),
			    "forbidden by perf_event_paranoid=3 (needs <= 2 or CAP_PERFMON)");
	assert_string_equal(pmu_reason_paranoid(EACCES, PMU_PHASE_OPEN, 4),
			    "forbidden by perf_event_paranoid=4 (needs <= 2 or CAP_PERFMON)");
	assert_string_equal(pmu_reason_tag(EPERM, PMU_PHASE_OPEN), "forbidden");
	/* Refused although the level allows it: something else forbids it, and the reason says so. */
	assert_true(starts_with(pmu_reason_paranoid(EACCES, PMU_PHASE_OPEN, 2),
				"forbidden although perf_event_paranoid=2 allows it"));
	assert_true(starts_with(pmu_reason_paranoid(EPERM, PMU_PHASE_OPEN_KERNEL, -1),
				"forbidden although perf_event_paranoid=-1 allows it"));
	assert_true(starts_with(pmu_reason_paranoid(EACCES, PMU_PHASE_OPEN, PMU_PARANOID_UNKNOWN),
				"forbidden by perf_event_paranoid (level unknown; needs <= 2"));
	assert_string_equal(pmu_reason_paranoid(EINVAL, PMU_PHASE_OPEN, 2), "invalid for this PMU (EINVAL)");
	assert_string_equal(pmu_reason_paranoid(EOPNOTSUPP, PMU_PHASE_OPEN, 2),
			    "not supported by this PMU (EOPNOTSUPP)");
	assert_string_equal(pmu_reason_paranoid(ENODEV, PMU_PHASE_OPEN, 2), "no such PMU device (ENODEV)");
	assert_true(starts_with(pmu_reason_paranoid(0, PMU_PHASE_READ, 2), "never scheduled"));
	assert_string_equal(pmu_reason_tag(0, PMU_PHASE_READ), "never scheduled");
	assert_string_equal(pmu_reason_paranoid(ENOENT, PMU_PHASE_NAME, 2), "unknown event name");
	assert_true(starts_with(pmu_reason_paranoid(ENODEV, PMU_PHASE_NAME, 2), "no PMU"));
	assert_non_null(pmu_reason_paranoid(12345, PMU_PHASE_OPEN, 2));
	/* pmu_reason quotes the level pmu_init read. */
	assert_string_equal(pmu_reason(EACCES, PMU_PHASE_OPEN_KERNEL),
			    pmu_reason_paranoid(EACCES, PMU_PHASE_OPEN_KERNEL, pmu_paranoid()));
}

/* time_running and scaling, on a group whose readings are made up. */
static void test_delta_stubbed(void **state)
{
	struct pmu_group g;
	struct pmu_count a = { 1000, 5000, 5000 }, b;
	uint64_t v;

	(void)state;
	memset(&g, 0, sizeof(g));
	g.n = 3;
	g.ev[0].source = PMU_SRC_PERF;
	g.ev[1].source = PMU_SRC_NONE;
	g.ev[1].err = ENOENT;
	g.ev[1].phase = PMU_PHASE_OPEN;
	g.ev[2].source = PMU_SRC_RUSAGE;

	/* Never ran in the window: time_running did not move. */
	b = (struct pmu_count){ 1000, 9000, 5000 };
	assert_true(starts_with(pmu_group_delta(&g, 0, &a, &b, &v), "never scheduled"));
	assert_int_equal(v, 0);
	/* Multiplexed: ran half the window, so the count is doubled. */
	b = (struct pmu_count){ 1100, 7000, 6000 };
	assert_null(pmu_group_delta(&g, 0, &a, &b, &v));
	assert_int_equal(v, 200);
	/* Ran all the time: as counted; large values do not overflow. */
	a = (struct pmu_count){ 0, 0, 0 };
	b = (struct pmu_count){ UINT64_MAX / 2, 3000000000ull, 3000000000ull };
	assert_null(pmu_group_delta(&g, 0, &a, &b, &v));
	assert_true(v == UINT64_MAX / 2);
	b = (struct pmu_count){ 1ull << 62, 4000000000ull, 2000000000ull };
	assert_null(pmu_group_delta(&g, 0, &a, &b, &v));
	assert_true(v == 1ull << 63);
	/* Not open: its own reason, whatever the readings. */
	assert_string_equal(pmu_group_delta(&g, 1, &a, &b, &v), pmu_reason(ENOENT, PMU_PHASE_OPEN));
	assert_string_equal(pmu_event_reason(&g, 1), pmu_reason(ENOENT, PMU_PHASE_OPEN));
	assert_null(pmu_event_reason(&g, 0));
	/* A fallback is a plain difference. */
	a = (struct pmu_count){ 10, 0, 0 };
	b = (struct pmu_count){ 17, 0, 0 };
	assert_null(pmu_group_delta(&g, 2, &a, &b, &v));
	assert_int_equal(v, 7);
}

static void test_parse(void **state)
{
	struct pmu_event_spec *ev;
	char err[256], longname[PMU_NAME_MAX + 8], many[PMU_MAX_EVENTS * 8];
	const char *names[2 + PMU_PRESET_COLS];
	int n, i, nb;
	static const char *const bad[] = { ",", "cycles,", ",cycles", "cycles,,instructions",
					   "cycles,cycles", "bounce,instructions", "bounce,bounce" };

	(void)state;
	assert_int_equal(pmu_events_parse("bounce", &ev, &n, err, sizeof(err)), 0);
	nb = pmu_preset_bounce_names(names, 2 + PMU_PRESET_COLS);
	assert_int_equal(n, nb);
	assert_true(nb >= 7);
	for (i = 0; i < nb; i++)
		assert_string_equal(ev[i].name, names[i]);
	assert_string_equal(ev[0].name, "cycles");
	assert_string_equal(ev[1].name, "instructions");
	assert_string_equal(ev[n - 1].name, "fill.dram_far");
	for (i = 0; i < n; i++)
		assert_true(ev[i].hardware || ev[i].err);
	assert_int_equal(ev[0].err, 0);
	assert_int_equal(ev[0].attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(ev[0].attr.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_true(ev[0].attr.exclude_kernel);
	/* The preset's columns: encoded (libpfm4 or raw) where this CPU has a preset, else "no preset". */
	for (i = 2; i < n; i++)
		assert_int_equal(ev[i].err, pmu_preset() ? 0 : ENXIO);
	free(ev);

	/* Unknown names are events with a reason, not errors; the preset mixes in. */
	assert_int_equal(pmu_events_parse("task-clock,nosuch,bounce,page-faults,"
					  "amd64_fam19h_zen4::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:NOPE",
					  &ev, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4 + nb);
	assert_string_equal(ev[0].name, "task-clock");
	assert_int_equal(ev[0].err, 0);
	assert_false(ev[0].hardware);
	assert_false(ev[0].attr.exclude_kernel);
	assert_string_equal(ev[1].name, "nosuch");
	assert_int_equal(ev[1].err, ENOENT);
	assert_string_equal(pmu_reason(ev[1].err, PMU_PHASE_NAME), "unknown event name");
	assert_string_equal(ev[2].name, "cycles");
	assert_string_equal(ev[2 + nb].name, "page-faults");
	assert_int_equal(ev[3 + nb].err, ENOENT);
	free(ev);

	/* Every generic name is known. */
	for (i = 0; pmu_generic_names[i]; i++) {
		assert_int_equal(pmu_events_parse(pmu_generic_names[i], &ev, &n, err, sizeof(err)), 0);
		assert_int_equal(n, 1);
		assert_int_equal(ev[0].err, 0);
		free(ev);
	}
	assert_int_equal(i, 9);

	/* Malformed lists: an error naming the bad value, nothing returned. */
	assert_int_equal(pmu_events_parse("", &ev, &n, err, sizeof(err)), -1);
	assert_null(ev);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err, "empty event list"));
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		err[0] = 0;
		if (pmu_events_parse(bad[k], &ev, &n, err, sizeof(err)) != -1)
			fail_msg("event list '%s' was accepted", bad[k]);
		assert_null(ev);
		assert_true(strlen(err) > 0);
	}
	assert_int_equal(pmu_events_parse("cycles,,x", &ev, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'cycles,,x'"));
	assert_int_equal(pmu_events_parse("bounce,instructions", &ev, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'instructions' given twice"));

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	assert_int_equal(pmu_events_parse(longname, &ev, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "too long"));

	many[0] = 0;
	for (i = 0; i <= PMU_MAX_EVENTS; i++)
		sprintf(many + strlen(many), "%se%d", i ? "," : "", i);
	assert_int_equal(pmu_events_parse(many, &ev, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "too many events"));
}

/* Does this machine expose a CPU PMU to perf at all? (Not in a KVM guest without one.) */
static int have_cpu_pmu(void)
{
	struct stat st;

	return !stat("/sys/bus/event_source/devices/cpu", &st) ||
	       !stat("/sys/bus/event_source/devices/cpu_core", &st);
}

/* Fault in fresh pages and burn some CPU. */
static void work(void)
{
	enum { PAGES = 256 };
	long page = sysconf(_SC_PAGESIZE);
	volatile uint64_t x = 1;
	char *p = mmap(NULL, (size_t)PAGES * (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	for (int i = 0; i < PAGES; i++)
		((volatile char *)p)[(size_t)i * (size_t)page] = (char)i;
	for (int i = 0; i < 3000000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	munmap(p, (size_t)PAGES * (size_t)page);
}

static void test_open_bounce(void **state)
{
	struct pmu_event_spec *ev;
	struct pmu_group *g = calloc(1, sizeof(*g));
	struct pmu_count a[PMU_MAX_EVENTS], b[PMU_MAX_EVENTS];
	uint64_t v, scaled[PMU_MAX_EVENTS];
	char err[256];
	int n, nb;

	(void)state;
	assert_non_null(g);
	assert_int_equal(pmu_events_parse("bounce,task-clock,page-faults", &ev, &n, err, sizeof(err)), 0);
	nb = n - 2;	/* the preset's events, then task-clock and page-faults */
	assert_true(nb >= 7);
	pmu_group_open(g, ev, n);
	assert_int_equal(g->n, n);
	pmu_group_read(g, NULL, a);
	work();
	pmu_group_read(g, scaled, b);
	for (int i = 0; i < nb; i++) {
		const char *why = pmu_group_delta(g, i, &a[i], &b[i], &v);

		if (!have_cpu_pmu()) {
			/* This KVM guest: every hardware event unavailable, and said to be for lack of a PMU
			   (or, for a preset column on a CPU without a preset, of a preset). */
			const char *want = i >= 2 && !pmu_preset() ? "no preset for " : "no PMU";

			assert_int_equal(g->ev[i].source, PMU_SRC_NONE);
			if (!starts_with(why, want))
				fail_msg("%s: '%s', want '%s...'", g->ev[i].name, why ? why : "(counted)", want);
			assert_true(starts_with(pmu_event_reason(g, i), want));
		} else if (why) {
			assert_int_equal(v, 0);
		}
	}
	for (int i = nb; i < n; i++) {
		assert_null(pmu_group_delta(g, i, &a[i], &b[i], &v));
		if (v == 0)
			fail_msg("%s counted 0 (source %s)", g->ev[i].name, pmu_source_name(g->ev[i].source));
		assert_true(scaled[i] >= v);
	}
	/* task-clock: at least the 3M multiply-adds; page-faults: most of the 256 fresh pages. */
	pmu_group_delta(g, nb, &a[nb], &b[nb], &v);
	assert_true(v > 100000);
	pmu_group_delta(g, nb + 1, &a[nb + 1], &b[nb + 1], &v);
	assert_true(v >= 200);
	pmu_group_close(g);
	free(g);
	free(ev);
}

/* Where perf refuses: software events fall back, the rest say which paranoid level would do. */
static void test_open_forbidden(void **state)
{
	struct pmu_event_spec *ev;
	struct pmu_group *g = calloc(1, sizeof(*g));
	struct pmu_count a[PMU_MAX_EVENTS], b[PMU_MAX_EVENTS];
	uint64_t v;
	char err[256];
	int n;

	(void)state;
	assert_non_null(g);
	assert_int_equal(pmu_events_parse("task-clock,page-faults,context-switches,cpu-migrations,cycles,nosuch",
					  &ev, &n, err, sizeof(err)), 0);
	pmu_debug_fail_open(EACCES);
	assert_int_equal(pmu_group_open(g, ev, n), 3);
	pmu_debug_fail_open(0);
	assert_int_equal(g->ev[0].source, PMU_SRC_CPUTIME);
	assert_int_equal(g->ev[1].source, PMU_SRC_RUSAGE);
	assert_int_equal(g->ev[2].source, PMU_SRC_RUSAGE);
	assert_int_equal(g->ev[3].source, PMU_SRC_NONE);
	assert_int_equal(g->ev[4].source, PMU_SRC_NONE);
	assert_int_equal(g->ev[5].source, PMU_SRC_NONE);
	/* The fallbacks remember why perf was not used. */
	assert_int_equal(g->ev[0].err, EACCES);
	assert_string_equal(pmu_reason(g->ev[0].err, g->ev[0].phase),
			    pmu_reason_paranoid(EACCES, PMU_PHASE_OPEN_KERNEL, pmu_paranoid()));
	assert_string_equal(pmu_event_reason(g, 3), pmu_reason(EACCES, PMU_PHASE_OPEN_KERNEL));
	assert_string_equal(pmu_event_reason(g, 4), pmu_reason(EACCES, PMU_PHASE_OPEN));
	assert_string_equal(pmu_event_reason(g, 5), "unknown event name");
	if (pmu_paranoid() == 2)
		assert_string_equal(pmu_event_reason(g, 3),
				    "forbidden by perf_event_paranoid=2 (needs <= 1 or CAP_PERFMON)");

	pmu_group_read(g, NULL, a);
	work();
	pmu_group_read(g, NULL, b);
	assert_null(pmu_group_delta(g, 0, &a[0], &b[0], &v));
	assert_true(v > 100000);
	assert_null(pmu_group_delta(g, 1, &a[1], &b[1], &v));
	assert_true(v >= 200);
	assert_null(pmu_group_delta(g, 2, &a[2], &b[2], &v));
	assert_non_null(pmu_group_delta(g, 3, &a[3], &b[3], &v));
	assert_int_equal(v, 0);
	pmu_group_close(g);
	free(g);
	free(ev);
}

/* The task-clock API bench/run.c uses still works beside the groups. */
static void test_task_clock(void **state)
{
	struct pmu_task_clock c;
	uint64_t t0, t1;

	(void)state;
	pmu_task_clock_open(&c);
	t0 = pmu_task_clock_read(&c);
	work();
	t1 = pmu_task_clock_read(&c);
	assert_true(t1 > t0);
	pmu_task_clock_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_delta_stubbed),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_open_bounce),
		cmocka_unit_test(test_open_forbidden),
		cmocka_unit_test(test_task_clock),
	};

	pmu_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
