/* SPDX-License-Identifier: MIT */
/*
 * pmu.h - per-thread event counting through the kernel's libperf, with
 * libpfm4 for PMU-specific event names.
 *
 * Two layers:
 *   - task-clock alone (struct pmu_task_clock): what every run measures;
 *   - an event list (struct pmu_event_spec, from pmu_events_parse) counted by
 *     a struct pmu_group that each worker opens on itself.  Where an event
 *     cannot be counted the group says why (pmu_reason) instead of a number.
 *
 * Hardware and libpfm4 events count user space only (exclude_kernel: they
 * characterize the benchmark's own loads and stores, and perf_event_paranoid
 * 2 allows them); software events count kernel work too (a context switch
 * happens in the kernel), so they need paranoid <= 1 or CAP_PERFMON and fall
 * back to getrusage(RUSAGE_THREAD) / CLOCK_THREAD_CPUTIME_ID where perf
 * refuses them.
 */
#ifndef PMU_H
#define PMU_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct perf_evsel;
struct perf_thread_map;

enum pmu_source {
	PMU_SRC_PERF,		/* perf_event, counted by the kernel */
	PMU_SRC_CPUTIME,	/* CLOCK_THREAD_CPUTIME_ID, where perf_event_open was refused */
	PMU_SRC_RUSAGE,		/* getrusage(RUSAGE_THREAD), where perf_event_open was refused */
	PMU_SRC_NONE,		/* not counted: see the event's reason */
};

struct pmu_task_clock {
	enum pmu_source source;		/* where the figure comes from */
	int open_errno;			/* why perf was not used (PMU_SRC_CPUTIME), else 0 */
	struct perf_evsel *evsel;	/* PMU_SRC_PERF: the open counter */
	struct perf_thread_map *threads;/* PMU_SRC_PERF: the calling thread */
};

/*
 * Once per process, before any other pmu_ call, while single-threaded:
 * libperf, libpfm4 and the perf_event_paranoid level the reasons quote.
 */
void pmu_init(void);

/* Count task-clock of the calling thread; falls back to the thread CPU clock. */
void pmu_task_clock_open(struct pmu_task_clock *c);
/* Nanoseconds of CPU time of that thread so far. */
uint64_t pmu_task_clock_read(struct pmu_task_clock *c);
void pmu_task_clock_close(struct pmu_task_clock *c);
/* "perf", "thread_cputime", "getrusage" or "none". */
const char *pmu_source_name(enum pmu_source s);

/* ---- Why an event is not counted ---- */

enum pmu_phase {
	PMU_PHASE_NAME,		/* resolving the name: ENOENT unknown, ENODEV PMU not on this CPU,
				   EINVAL libpfm4 could not encode its attributes */
	PMU_PHASE_OPEN,		/* perf_event_open of a user-space-only event (paranoid <= 2 allows) */
	PMU_PHASE_OPEN_KERNEL,	/* perf_event_open of an event counting the kernel too (<= 1) */
	PMU_PHASE_READ,		/* reading it: err 0 means time_running was 0 (never scheduled) */
};

/*
 * Why an event is unavailable, from the positive errno (err) met in that
 * phase: "no PMU (ENOENT: ...)", "forbidden by perf_event_paranoid=N (needs
 * <= M or CAP_PERFMON)", "invalid for this PMU (EINVAL)", "unknown event
 * name", "never scheduled (...)", "no preset for <vendor family model>"
 * (ENXIO at the name: a bounce column on a CPU without a preset) ...  Every
 * reason for a missing PMU starts with "no PMU".  Static strings: safe from any thread.  N is the level
 * pmu_init read (if it could not, the reason says the level is unknown).
 */
const char *pmu_reason(int err, int phase);
/* The same with N given: pure, for tests and for reasoning about other machines. */
const char *pmu_reason_paranoid(int err, int phase, int paranoid);
/* The short tag for a table cell: "no PMU", "forbidden", "unknown name", "never scheduled",
   "invalid", "unsupported", "no device", "bad attributes", "no preset", "failed". */
const char *pmu_reason_tag(int err, int phase);
/* /proc/sys/kernel/perf_event_paranoid as pmu_init read it, or PMU_PARANOID_UNKNOWN. */
#define PMU_PARANOID_UNKNOWN (-1000)
int pmu_paranoid(void);

/* ---- The CPU, and the bounce preset chosen for it (cpu.c) ---- */

struct pmu_cpu {
	char vendor[16];	/* cpuid leaf 0: "AuthenticAMD", "GenuineIntel" ("" if unknown) */
	unsigned family;	/* as the kernel's x86 field: base, plus extended where base is 0xf */
	unsigned model;		/* as the kernel's x86_model: extended model folded in (family >= 6) */
	unsigned stepping;	/* cpuid leaf 1 EAX[3:0] */
	int hypervisor;		/* cpuid leaf 1 ECX bit 31: under a hypervisor (its CPU model, not the host's) */
	char name[64];		/* brand string (cpuid 0x80000002-4, or /proc/cpuinfo model name), or "" */
	const char *source;	/* "cpuid", "/proc/cpuinfo", "CTRBENCH_CPU" or what a test set */
};

/* One column of a preset: a stable name and the event behind it on one generation. */
struct pmu_preset_col {
	const char *column;	/* the same name on every generation where it means the same: "fill.local_l2" */
	const char *pfm;	/* libpfm4 4.13 name, encoded through libpfm4; NULL: none, encoded raw */
	const char *kernel;	/* the kernel's perf name (tools/perf/pmu-events JSON) */
	unsigned event;		/* the kernel's EventCode */
	unsigned umask;		/* the kernel's UMask */
};

#define PMU_PRESET_COLS 6
struct pmu_model_range {
	unsigned lo, hi;	/* inclusive */
};

/* The bounce preset of one generation. */
struct pmu_preset {
	const char *gen;		/* "Zen 4", "Sapphire Rapids" */
	const char *vendor;		/* cpuid vendor it is for */
	unsigned family;		/* cpu family it is for */
	int nranges;			/* models[0..nranges) */
	struct pmu_model_range models[4];	/* the models of that family it is for */
	const char *json;		/* the kernel file its event numbers come from */
	int ncols;			/* cols[0..ncols) */
	struct pmu_preset_col cols[PMU_PRESET_COLS];	/* the columns, after cycles and instructions */
};

extern const struct pmu_preset pmu_presets[];
extern const int pmu_nr_presets;

/*
 * "VENDOR FAMILY MODEL [STEPPING]" (numbers decimal or 0x hex, at most 0xff):
 * the form of CTRBENCH_CPU, a testing input that stands in for cpuid
 * ("AuthenticAMD 0x19 0x11").  0, or -EINVAL with *c cleared.
 */
int pmu_cpu_parse(const char *s, struct pmu_cpu *c);
/* Detect the CPU again: CTRBENCH_CPU if set and valid, else cpuid, else /proc/cpuinfo. */
void pmu_cpu_detect(void);
/* The CPU presets are chosen for (detected on first use; pmu_init detects it). */
const struct pmu_cpu *pmu_cpu(void);
/* Testing: choose presets for c from now on.  Not thread-safe: while single-threaded. */
void pmu_cpu_set(const struct pmu_cpu *c);
/* CTRBENCH_CPU was set but did not parse: the one-line message; else NULL. */
const char *pmu_cpu_error(void);
/* "AuthenticAMD family 0x19 model 0x11": what presets are chosen by. */
void pmu_cpu_id(const struct pmu_cpu *c, char *buf, size_t len);
/* The preset row for c, or NULL when there is none. */
const struct pmu_preset *pmu_preset_for(const struct pmu_cpu *c);
/* The current CPU's preset, or NULL; and then "no preset for <vendor family model>", else NULL. */
const struct pmu_preset *pmu_preset(void);
const char *pmu_preset_reason(void);
/* The column of p called name, or NULL. */
const struct pmu_preset_col *pmu_preset_column(const struct pmu_preset *p, const char *name);
/* Is name a column of any preset? */
int pmu_preset_is_column(const char *name);
/* perf_event_attr.config for col, raw (PERF_TYPE_RAW) from the kernel's event and umask numbers. */
uint64_t pmu_preset_config(const struct pmu_preset *p, const struct pmu_preset_col *col);
/*
 * What "bounce" expands to on the current CPU into names[0..max): cycles,
 * instructions and its preset's columns (a CPU without one: its vendor's
 * newest preset's columns, each unavailable with the "no preset" reason).
 * Returns the count.
 */
int pmu_preset_bounce_names(const char **names, int max);

/* ---- Event lists ---- */

#define PMU_MAX_EVENTS 32
#define PMU_NAME_MAX 128
/* Hardware events opened as one perf group at most this many at a time (the rest form further
   groups): a group must fit the core counters at once, and the NMI watchdog may hold one. */
#define PMU_GROUP_MAX 4

struct pmu_event_spec {
	char name[PMU_NAME_MAX];	/* as typed, or as the preset spells it */
	struct perf_event_attr attr;	/* what perf_event_open gets (when err == 0) */
	int hardware;			/* counted by a PMU (grouped), not a software event */
	int err;			/* nonzero: unavailable already at PMU_PHASE_NAME (positive errno;
					   ENXIO: a preset column this CPU has no preset for) */
	const struct pmu_preset_col *col;	/* a preset column: its row; else NULL */
	const char *via;		/* a preset column encoded through libpfm4: that name; raw: NULL */
};

/*
 * Parse a comma-separated list of event names into a malloc'd array (*out,
 * *n entries; free() it).  Names: the generic cycles, instructions,
 * cache-misses, cache-references, branch-misses, task-clock, page-faults,
 * context-switches, cpu-migrations; anything libpfm4 encodes (PMU::EVENT:UMASK);
 * the preset "bounce" (cycles, instructions and the fill-source or snoop
 * columns of this CPU's generation, see cpu.c) and those column names alone.  A name nobody knows is not a parse error: it
 * becomes an event whose err says so (unknown name, or its PMU is not this
 * CPU's).  A malformed list (empty, an empty item, a name with a blank or
 * other byte outside printable ASCII, a name too long, one given twice,
 * more than PMU_MAX_EVENTS) returns -1 with one line in err
 * that names the bad value; 0 on success.
 */
int pmu_events_parse(const char *list, struct pmu_event_spec **out, int *n, char *err, size_t errlen);
/*
 * The same, but a name typed in list that neither perf nor libpfm4 knows
 * (ENOENT at the name: a typo, "cylces") fails with a message naming it;
 * names the "bounce" preset brings stay unavailable-with-a-reason on CPUs
 * that lack them.  The commands use this unless --events-lenient.
 */
int pmu_events_parse_strict(const char *list, struct pmu_event_spec **out, int *n, char *err,
			    size_t errlen);
/* The generic names, NULL-terminated (the preset: pmu_preset_bounce_names). */
extern const char *const pmu_generic_names[];

/* ---- Per-thread counting ---- */

struct pmu_event {
	const char *name;		/* the spec's */
	enum pmu_source source;		/* where its figure comes from */
	int err, phase;			/* PMU_SRC_NONE: why not counted; fallbacks: why perf was not used */
	int leader;			/* PMU_SRC_PERF: index of its group leader (itself if alone) */
	int fallback;			/* what to read instead of perf (internal) */
	struct perf_evsel *evsel;	/* PMU_SRC_PERF: the open counter */
};

struct pmu_group {
	int n;
	struct pmu_event ev[PMU_MAX_EVENTS];
	struct perf_thread_map *threads;	/* the calling thread (pid 0) */
};

/* One raw reading of one event. */
struct pmu_count {
	uint64_t val;		/* counter value (fallbacks: the getrusage/clock figure) */
	uint64_t enabled;	/* time_enabled, ns (fallbacks: equal to running) */
	uint64_t running;	/* time_running, ns */
};

/*
 * Open ev[0..n) on the calling thread (pid 0, any CPU) and start counting.
 * Hardware events go into groups of up to PMU_GROUP_MAX (a leader and its
 * members); an event that cannot join its group is retried alone, and one
 * that cannot open at all is left PMU_SRC_NONE with its reason, never
 * stopping the others.  Software events open alone and fall back to
 * getrusage/the thread clock when perf refuses them.  Returns how many
 * events are counted (any source).
 */
int pmu_group_open(struct pmu_group *g, const struct pmu_event_spec *ev, int n);
/*
 * Read every event: raw[i] (if non-NULL) gets value, time_enabled and
 * time_running; vals_scaled[i] (if non-NULL) the value since open scaled for
 * multiplexing (val * enabled / running, 0 when running is 0).  Returns the
 * number of events that are counted and were scheduled so far.
 */
int pmu_group_read(struct pmu_group *g, uint64_t *vals_scaled, struct pmu_count *raw);
/*
 * Event i over a window between two raw readings: the scaled difference,
 * (val1 - val0) * (enabled1 - enabled0) / (running1 - running0).  Returns
 * NULL with *val set when counted, else the reason (the open's, or "never
 * scheduled" when it did not run in the window) with *val = 0.
 */
const char *pmu_group_delta(const struct pmu_group *g, int i, const struct pmu_count *start,
			    const struct pmu_count *stop, uint64_t *val);
/* Stop counting and release everything; g is zeroed. */
void pmu_group_close(struct pmu_group *g);
/* Why event i is not counted (NULL when it is, whatever its source). */
const char *pmu_event_reason(const struct pmu_group *g, int i);

/*
 * Testing: when err > 0, every perf_event_open pmu_group_open attempts
 * fails with that errno instead (to see fallbacks and reasons where perf
 * works); 0 restores.  Not thread-safe: set it while single-threaded.
 */
void pmu_debug_fail_open(int err);

#endif /* PMU_H */
