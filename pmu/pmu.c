/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/resource.h>
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
/* After linux/perf_event.h, so libpfm4 uses the kernel's struct perf_event_attr. */
#include <perfmon/pfmlib_perf_event.h>

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

/* /proc/sys/kernel/perf_event_paranoid as pmu_init found it. */
static int pmu_paranoid_level = PMU_PARANOID_UNKNOWN;
/* libpfm4: 0 not tried, 1 ready, -1 pfm_initialize failed (every PMU-specific name is unknown). */
static int pmu_pfm_state;
/* pmu_debug_fail_open: a positive errno every perf open in pmu_group_open gets instead. */
static int pmu_fail_open;

static void pmu_pfm_init_once(void)
{
	if (!pmu_pfm_state)
		pmu_pfm_state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
}

void pmu_init(void)
{
	FILE *f;
	int v;

	libperf_init(pmu_libperf_print);
	if (!pmu_any_cpu)
		pmu_any_cpu = perf_cpu_map__dummy_new();
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &v) == 1)
			pmu_paranoid_level = v;
		fclose(f);
	}
	pmu_pfm_init_once();
	pmu_cpu_detect();
}

int pmu_paranoid(void)
{
	return pmu_paranoid_level;
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
	switch (s) {
	case PMU_SRC_PERF:
		return "perf";
	case PMU_SRC_CPUTIME:
		return "thread_cputime";
	case PMU_SRC_RUSAGE:
		return "getrusage";
	default:
		return "none";
	}
}

/* ---- Reasons ---- */

/* "forbidden" for paranoid level n and needed level m, as static strings for any thread. */
#define PMU_FORBID(n, m) "forbidden by perf_event_paranoid=" #n " (needs <= " #m " or CAP_PERFMON)"
#define PMU_DENIED(n) "forbidden although perf_event_paranoid=" #n " allows it (EACCES/EPERM: " \
		      "a security module, seccomp or container policy)"
#define PMU_PARANOID_LO (-1)
#define PMU_PARANOID_HI 4
static const char *const pmu_forbid[PMU_PARANOID_HI - PMU_PARANOID_LO + 1][2] = {
	{ PMU_DENIED(-1), PMU_DENIED(-1) },
	{ PMU_DENIED(0), PMU_DENIED(0) },
	{ PMU_DENIED(1), PMU_DENIED(1) },
	{ PMU_FORBID(2, 1), PMU_DENIED(2) },
	{ PMU_FORBID(3, 1), PMU_FORBID(3, 2) },
	{ PMU_FORBID(4, 1), PMU_FORBID(4, 2) },
};

static const char *pmu_forbidden(int paranoid, int need)
{
	if (paranoid < PMU_PARANOID_LO || paranoid > PMU_PARANOID_HI)
		return need == 1 ? "forbidden by perf_event_paranoid (level unknown; needs <= 1 or CAP_PERFMON)"
				 : "forbidden by perf_event_paranoid (level unknown; needs <= 2 or CAP_PERFMON)";
	return pmu_forbid[paranoid - PMU_PARANOID_LO][need - 1];
}

const char *pmu_reason_paranoid(int err, int phase, int paranoid)
{
	if (phase == PMU_PHASE_NAME) {
		switch (err) {
		case ENOENT:
			return "unknown event name";
		case ENXIO:
			return pmu_preset_reason() ? pmu_preset_reason() : "no preset for this CPU";
		case ENODEV:
			return "no PMU (libpfm4 knows the event, but its PMU is not this CPU's)";
		default:
			return "bad event attributes (libpfm4 could not encode it)";
		}
	}
	if (phase == PMU_PHASE_READ)
		return err ? "read failed" : "never scheduled (time_running 0: no counter was free while it was enabled)";
	switch (err) {
	case ENOENT:
		return "no PMU (ENOENT: this CPU or hypervisor exposes no such event)";
	case EACCES:
	case EPERM:
		/* User-space-only counting per thread needs <= 2; counting the kernel too <= 1. */
		return pmu_forbidden(paranoid, phase == PMU_PHASE_OPEN_KERNEL ? 1 : 2);
	case EINVAL:
		return "invalid for this PMU (EINVAL)";
	case EOPNOTSUPP:
		return "not supported by this PMU (EOPNOTSUPP)";
	case ENODEV:
		return "no such PMU device (ENODEV)";
	case ENOSYS:
		return "perf_event_open unavailable (ENOSYS: kernel without perf events, or seccomp)";
	case EMFILE:
	case ENFILE:
		return "out of file descriptors (EMFILE)";
	case ENOSPC:
		return "no room for more events (ENOSPC)";
	case E2BIG:
		return "event attributes too new for this kernel (E2BIG)";
	case ENOMEM:
		return "out of memory (ENOMEM)";
	default:
		return "perf_event_open failed (unexpected errno)";
	}
}

const char *pmu_reason(int err, int phase)
{
	return pmu_reason_paranoid(err, phase, pmu_paranoid_level);
}

const char *pmu_reason_tag(int err, int phase)
{
	if (phase == PMU_PHASE_NAME)
		return err == ENOENT ? "unknown name" : err == ENODEV ? "no PMU" :
		       err == ENXIO ? "no preset" : "bad attributes";
	if (phase == PMU_PHASE_READ)
		return err ? "failed" : "never scheduled";
	switch (err) {
	case ENOENT:
		return "no PMU";
	case EACCES:
	case EPERM:
		return "forbidden";
	case EINVAL:
		return "invalid";
	case EOPNOTSUPP:
		return "unsupported";
	case ENODEV:
		return "no device";
	default:
		return "failed";
	}
}

/* ---- Event names ---- */

struct pmu_generic {
	const char *name;
	__u32 type;
	__u64 config;
};

static const struct pmu_generic pmu_generics[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
};

const char *const pmu_generic_names[] = {
	"cycles", "instructions", "cache-misses", "cache-references", "branch-misses",
	"task-clock", "page-faults", "context-switches", "cpu-migrations", NULL,
};

/* Does s (len bytes) name attr or event info name a, case-insensitively like libpfm4? */
static int pmu_name_eq(const char *s, size_t len, const char *a)
{
	return strlen(a) == len && !strncasecmp(s, a, len);
}

/*
 * PMU::EVENT[:ATTR[=V]...] that libpfm4 could not find: is it a real event of
 * a PMU libpfm4 knows but this CPU is not?  Then the reason is a missing PMU,
 * not a typo.  (libpfm4 searches only the PMUs it detected.)
 */
static int pmu_pfm_known_elsewhere(const char *name)
{
	const char *sep = strstr(name, "::"), *ev, *end;
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;
	pfm_pmu_t p;
	int idx;

	if (!sep)
		return 0;
	pfm_for_all_pmus(p) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(p, &pinfo) == PFM_SUCCESS && !pinfo.is_present &&
		    pmu_name_eq(name, (size_t)(sep - name), pinfo.name))
			break;
	}
	if (p >= PFM_PMU_MAX)
		return 0;
	ev = sep + 2;
	end = strchrnul(ev, ':');
	for (idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
		memset(&einfo, 0, sizeof(einfo));
		einfo.size = sizeof(einfo);
		if (pfm_get_event_info(idx, PFM_OS_NONE, &einfo) != PFM_SUCCESS)
			return 0;
		if (pmu_name_eq(ev, (size_t)(end - ev), einfo.name))
			break;
	}
	if (idx == -1)
		return 0;
	/* Each :ATTR (before any =value) must be one of its umasks or modifiers. */
	while (*end == ':') {
		const char *a = end + 1, *aend = strchrnul(a, ':'), *eq = memchr(a, '=', (size_t)(aend - a));
		size_t alen = (size_t)((eq ? eq : aend) - a);
		int found = 0;

		for (int k = 0; k < einfo.nattrs && !found; k++) {
			pfm_event_attr_info_t ainfo;

			memset(&ainfo, 0, sizeof(ainfo));
			ainfo.size = sizeof(ainfo);
			found = pfm_get_event_attr_info(idx, k, PFM_OS_NONE, &ainfo) == PFM_SUCCESS &&
				pmu_name_eq(a, alen, ainfo.name);
		}
		if (!found)
			return 0;
		end = aend;
	}
	return 1;
}

static void pmu_resolve(const char *name, struct pmu_event_spec *s);

/*
 * A preset column: through libpfm4 where it has the event and finds its PMU
 * on this CPU, else raw from the kernel's event and umask numbers (a CPU
 * libpfm4 does not detect still gets the generation's events).
 */
static void pmu_resolve_column(const struct pmu_preset *p, const struct pmu_preset_col *col,
			       struct pmu_event_spec *s)
{
	if (col->pfm) {
		pmu_resolve(col->pfm, s);
		if (!s->err) {
			snprintf(s->name, sizeof(s->name), "%s", col->column);
			s->col = col;
			s->via = col->pfm;
			return;
		}
	}
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", col->column);
	s->col = col;
	s->attr.size = sizeof(s->attr);
	s->attr.type = PERF_TYPE_RAW;
	s->attr.config = pmu_preset_config(p, col);
	/* User space only, as every hardware event here. */
	s->attr.exclude_kernel = 1;
	s->attr.exclude_hv = 1;
	s->hardware = 1;
}

/* Fill s for one name: a generic event, a preset column, whatever libpfm4 makes of it, or its reason. */
static void pmu_resolve(const char *name, struct pmu_event_spec *s)
{
	const struct pmu_preset_col *col;
	pfm_perf_encode_arg_t arg;
	int r;

	col = pmu_preset_column(pmu_preset(), name);
	if (col) {
		pmu_resolve_column(pmu_preset(), col, s);
		return;
	}
	memset(s, 0, sizeof(*s));
	strcpy(s->name, name);
	s->attr.size = sizeof(s->attr);
	for (size_t i = 0; i < sizeof(pmu_generics) / sizeof(pmu_generics[0]); i++) {
		if (strcmp(name, pmu_generics[i].name))
			continue;
		s->attr.type = pmu_generics[i].type;
		s->attr.config = pmu_generics[i].config;
		s->hardware = s->attr.type == PERF_TYPE_HARDWARE;
		/* Hardware: the benchmark's own user-space work.  Software: kernel work is the point. */
		s->attr.exclude_kernel = s->hardware;
		s->attr.exclude_hv = s->hardware;
		return;
	}
	if (!pmu_preset() && pmu_preset_is_column(name)) {
		s->err = ENXIO;	/* a bounce column, on a CPU without a preset */
		return;
	}
	pmu_pfm_init_once();
	if (pmu_pfm_state < 0) {
		s->err = ENOENT;
		return;
	}
	memset(&arg, 0, sizeof(arg));
	arg.attr = &s->attr;
	arg.size = sizeof(arg);
	r = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r == PFM_SUCCESS) {
		s->attr.size = sizeof(s->attr);
		s->hardware = s->attr.type != PERF_TYPE_SOFTWARE;
		return;
	}
	memset(&s->attr, 0, sizeof(s->attr));
	if (r == PFM_ERR_NOTFOUND)
		s->err = pmu_pfm_known_elsewhere(name) ? ENODEV : ENOENT;
	else if (r == PFM_ERR_ATTR)
		s->err = ENOENT;	/* a umask its event does not have */
	else
		s->err = EINVAL;
}

/* Append one name to v[*n] unless the list is full or has it: -1 with err set then. */
static int pmu_events_add(const char *name, struct pmu_event_spec *v, int *n, char *err, size_t errlen)
{
	for (int i = 0; i < *n; i++) {
		if (!strcmp(v[i].name, name)) {
			snprintf(err, errlen, "event '%s' given twice in --events", name);
			return -1;
		}
	}
	if (*n >= PMU_MAX_EVENTS) {
		snprintf(err, errlen, "too many events in --events at '%s' (at most %d)", name, PMU_MAX_EVENTS);
		return -1;
	}
	pmu_resolve(name, &v[(*n)++]);
	return 0;
}

int pmu_events_parse(const char *list, struct pmu_event_spec **out, int *n, char *err, size_t errlen)
{
	struct pmu_event_spec *v;
	const char *p = list;
	char name[PMU_NAME_MAX];
	int cnt = 0;

	*out = NULL;
	*n = 0;
	if (!list || !*list) {
		snprintf(err, errlen, "empty event list in --events '%s'", list ? list : "");
		return -1;
	}
	v = calloc(PMU_MAX_EVENTS, sizeof(*v));
	if (!v) {
		snprintf(err, errlen, "out of memory parsing --events '%s'", list);
		return -1;
	}
	for (;;) {
		const char *comma = strchrnul(p, ',');
		size_t len = (size_t)(comma - p);

		if (!len) {
			snprintf(err, errlen, "empty event name in --events '%s'", list);
			goto fail;
		}
		if (len >= sizeof(name)) {
			snprintf(err, errlen, "event name too long in --events '%.*s' (at most %d characters)",
				 (int)len, p, PMU_NAME_MAX - 1);
			goto fail;
		}
		memcpy(name, p, len);
		name[len] = 0;
		/*
		 * The grammar: names separated by commas, nothing else.  " 8" or
		 * "cycles, instructions" would reach libpfm4 with the blank and come
		 * back "bad event attributes", a column of n/a and exit 0: a typo
		 * the user never sees.  Names are printable ASCII without blanks.
		 */
		for (size_t i = 0; i < len; i++) {
			if ((unsigned char)name[i] <= ' ' || (unsigned char)name[i] >= 0x7f) {
				snprintf(err, errlen, "bad event name '%s' in --events '%s' (want names"
					 " separated by commas, no blanks: cycles,instructions)", name, list);
				goto fail;
			}
		}
		if (!strcmp(name, "bounce")) {
			const char *names[2 + PMU_PRESET_COLS];
			int nn;

			if (pmu_cpu_error()) {
				snprintf(err, errlen, "%s", pmu_cpu_error());
				goto fail;
			}
			nn = pmu_preset_bounce_names(names, 2 + PMU_PRESET_COLS);
			for (int i = 0; i < nn; i++)
				if (pmu_events_add(names[i], v, &cnt, err, errlen))
					goto fail;
		} else if (pmu_events_add(name, v, &cnt, err, errlen)) {
			goto fail;
		}
		if (!*comma)
			break;
		p = comma + 1;
	}
	*out = v;
	*n = cnt;
	return 0;
fail:
	free(v);
	return -1;
}

int pmu_events_parse_strict(const char *list, struct pmu_event_spec **out, int *n, char *err,
			    size_t errlen)
{
	if (pmu_events_parse(list, out, n, err, errlen))
		return -1;
	/* A name the user typed (not one the bounce preset brought) that nothing knows is a typo. */
	for (int i = 0; i < *n; i++) {
		const struct pmu_event_spec *e = &(*out)[i];
		size_t len = strlen(e->name);
		const char *p = list;
		int typed = 0;

		if (e->err != ENOENT)
			continue;
		while ((p = strstr(p, e->name))) {
			typed |= (p == list || p[-1] == ',') && (p[len] == ',' || !p[len]);
			p += len;
		}
		if (!typed)
			continue;
		snprintf(err, errlen, "unknown event '%s' in --events '%s' (ctrbench events lists what "
			 "this machine knows; --events-lenient counts the rest)", e->name, list);
		free(*out);
		*out = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

/* ---- Per-thread groups ---- */

enum pmu_fallback { PMU_FB_NONE, PMU_FB_CPUTIME, PMU_FB_FAULTS, PMU_FB_CSW };

static int pmu_fallback_of(const struct pmu_event_spec *s)
{
	if (s->err || s->attr.type != PERF_TYPE_SOFTWARE)
		return PMU_FB_NONE;
	switch (s->attr.config) {
	case PERF_COUNT_SW_TASK_CLOCK:
	case PERF_COUNT_SW_CPU_CLOCK:
		return PMU_FB_CPUTIME;
	case PERF_COUNT_SW_PAGE_FAULTS:
		return PMU_FB_FAULTS;
	case PERF_COUNT_SW_CONTEXT_SWITCHES:
		return PMU_FB_CSW;
	default:
		return PMU_FB_NONE;
	}
}

void pmu_debug_fail_open(int err)
{
	pmu_fail_open = err > 0 ? err : 0;
}

/* Make member's group leader leader: libperf sets leaders only through an evlist. */
static int pmu_set_leader(struct perf_evsel *leader, struct perf_evsel *member)
{
	struct perf_evlist *l = perf_evlist__new();

	if (!l)
		return ENOMEM;
	perf_evlist__add(l, leader);
	perf_evlist__add(l, member);
	perf_evlist__set_leader(l);
	perf_evlist__remove(l, member);
	perf_evlist__remove(l, leader);
	perf_evlist__delete(l);
	return 0;
}

/* Open event i from attr, alone (leader < 0) or in leader's group; a positive errno on failure. */
static int pmu_open_one(struct pmu_group *g, int i, const struct perf_event_attr *attr, int leader)
{
	struct perf_event_attr a = *attr;
	struct perf_evsel *evsel;
	int err;

	if (pmu_fail_open)
		return pmu_fail_open;
	if (!pmu_any_cpu || !g->threads)
		return ENOMEM;
	a.size = sizeof(a);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.inherit = 0;
	a.disabled = leader < 0;	/* members count whenever their leader does */
	evsel = perf_evsel__new(&a);
	if (!evsel)
		return ENOMEM;
	if (leader >= 0 && pmu_set_leader(g->ev[leader].evsel, evsel)) {
		perf_evsel__delete(evsel);
		return ENOMEM;
	}
	err = perf_evsel__open(evsel, pmu_any_cpu, g->threads);
	if (err) {
		perf_evsel__delete(evsel);
		return err < 0 ? -err : EINVAL;
	}
	g->ev[i].evsel = evsel;
	g->ev[i].leader = leader < 0 ? i : leader;
	g->ev[i].source = PMU_SRC_PERF;
	return 0;
}

int pmu_group_open(struct pmu_group *g, const struct pmu_event_spec *ev, int n)
{
	int leader = -1, members = 0, counted = 0;

	memset(g, 0, sizeof(*g));
	g->n = n < 0 ? 0 : n > PMU_MAX_EVENTS ? PMU_MAX_EVENTS : n;
	g->threads = perf_thread_map__new_dummy();
	if (g->threads)
		perf_thread_map__set_pid(g->threads, 0, 0);	/* pid 0: the calling thread */
	for (int i = 0; i < g->n; i++) {
		struct pmu_event *e = &g->ev[i];
		const struct pmu_event_spec *s = &ev[i];
		int err;

		e->name = s->name;
		e->leader = i;
		e->fallback = pmu_fallback_of(s);
		if (s->err) {
			e->source = PMU_SRC_NONE;
			e->err = s->err;
			e->phase = PMU_PHASE_NAME;
			continue;
		}
		/* Join the current group; an event that cannot is tried alone. */
		if (s->hardware && leader >= 0 && members < PMU_GROUP_MAX &&
		    !pmu_open_one(g, i, &s->attr, leader)) {
			members++;
			counted++;
			continue;
		}
		err = pmu_open_one(g, i, &s->attr, -1);
		if (!err) {
			if (s->hardware && (leader < 0 || members >= PMU_GROUP_MAX)) {
				leader = i;
				members = 1;
			}
			counted++;
			continue;
		}
		e->err = err;
		e->phase = s->attr.exclude_kernel ? PMU_PHASE_OPEN : PMU_PHASE_OPEN_KERNEL;
		e->source = e->fallback == PMU_FB_CPUTIME ? PMU_SRC_CPUTIME :
			    e->fallback != PMU_FB_NONE ? PMU_SRC_RUSAGE : PMU_SRC_NONE;
		counted += e->source != PMU_SRC_NONE;
	}
	/* Start every leader (and so its members) and every event alone. */
	for (int i = 0; i < g->n; i++)
		if (g->ev[i].source == PMU_SRC_PERF && g->ev[i].leader == i)
			perf_evsel__enable(g->ev[i].evsel);
	return counted;
}

static uint64_t pmu_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void pmu_read_event(const struct pmu_event *e, struct pmu_count *c)
{
	struct perf_counts_values v;
	struct rusage ru;

	memset(c, 0, sizeof(*c));
	switch (e->source) {
	case PMU_SRC_PERF:
		memset(&v, 0, sizeof(v));
		if (!perf_evsel__read(e->evsel, 0, 0, &v)) {
			c->val = v.val;
			c->enabled = v.ena;
			c->running = v.run;
		}
		return;
	case PMU_SRC_CPUTIME:
	case PMU_SRC_RUSAGE:
		c->running = c->enabled = pmu_thread_cpu_ns();
		if (e->fallback == PMU_FB_CPUTIME) {
			c->val = c->running;
		} else if (!getrusage(RUSAGE_THREAD, &ru)) {
			c->val = e->fallback == PMU_FB_FAULTS ? (uint64_t)(ru.ru_minflt + ru.ru_majflt)
							      : (uint64_t)(ru.ru_nvcsw + ru.ru_nivcsw);
		}
		return;
	default:
		return;
	}
}

/* val * enabled / running without overflow; 0 if it never ran. */
static uint64_t pmu_scale(uint64_t val, uint64_t enabled, uint64_t running)
{
	if (!running)
		return 0;
	if (enabled <= running)
		return val;
	return (uint64_t)((unsigned __int128)val * enabled / running);
}

int pmu_group_read(struct pmu_group *g, uint64_t *vals_scaled, struct pmu_count *raw)
{
	int counted = 0;

	for (int i = 0; i < g->n; i++) {
		const struct pmu_event *e = &g->ev[i];
		struct pmu_count c;

		pmu_read_event(e, &c);
		if (raw)
			raw[i] = c;
		if (vals_scaled)
			vals_scaled[i] = e->source == PMU_SRC_PERF ? pmu_scale(c.val, c.enabled, c.running) : c.val;
		counted += e->source != PMU_SRC_NONE && (e->source != PMU_SRC_PERF || c.running);
	}
	return counted;
}

const char *pmu_group_delta(const struct pmu_group *g, int i, const struct pmu_count *start,
			    const struct pmu_count *stop, uint64_t *val)
{
	const struct pmu_event *e = &g->ev[i];

	*val = 0;
	if (e->source == PMU_SRC_NONE)
		return pmu_reason(e->err, e->phase);
	if (e->source != PMU_SRC_PERF) {
		*val = stop->val - start->val;
		return NULL;
	}
	if (stop->running <= start->running)
		return pmu_reason(0, PMU_PHASE_READ);
	*val = pmu_scale(stop->val - start->val, stop->enabled - start->enabled, stop->running - start->running);
	return NULL;
}

const char *pmu_event_reason(const struct pmu_group *g, int i)
{
	return g->ev[i].source == PMU_SRC_NONE ? pmu_reason(g->ev[i].err, g->ev[i].phase) : NULL;
}

void pmu_group_close(struct pmu_group *g)
{
	/* Members before their leaders. */
	for (int i = g->n - 1; i >= 0; i--) {
		struct pmu_event *e = &g->ev[i];

		if (e->source != PMU_SRC_PERF)
			continue;
		if (e->leader == i)
			perf_evsel__disable(e->evsel);
		perf_evsel__close(e->evsel);
		perf_evsel__delete(e->evsel);
	}
	if (g->threads)
		perf_thread_map__put(g->threads);
	memset(g, 0, sizeof(*g));
}
