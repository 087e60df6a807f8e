/* SPDX-License-Identifier: MIT */
/* cmd-events.c - `ctrbench events`: try each event on this thread and say what counts and why not the rest. */
#define _GNU_SOURCE
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "cli.h"
#include "../pmu/pmu.h"
#include "builtin.h"

/* Every generic event, then the preset's events not among them. */
static char *bench_events_default(void)
{
	const char *names[2 + PMU_PRESET_COLS];
	int nn = pmu_preset_bounce_names(names, 2 + PMU_PRESET_COLS);
	size_t len = 1;
	char *s;

	for (int i = 0; pmu_generic_names[i]; i++)
		len += strlen(pmu_generic_names[i]) + 1;
	for (int i = 0; i < nn; i++)
		len += strlen(names[i]) + 1;
	s = calloc(1, len);
	if (!s)
		die("out of memory");
	for (int i = 0; pmu_generic_names[i]; i++) {
		strcat(s, pmu_generic_names[i]);
		strcat(s, ",");
	}
	for (int i = 0; i < nn; i++) {
		int dup = 0;

		for (int j = 0; pmu_generic_names[j]; j++)
			dup |= !strcmp(pmu_generic_names[j], names[i]);
		if (!dup) {
			strcat(s, names[i]);
			strcat(s, ",");
		}
	}
	s[strlen(s) - 1] = 0;
	return s;
}

/* The CPU the preset was chosen for, and the preset (or why none): two lines, or JSON members. */
static void bench_events_cpu(json_t *root)
{
	const struct pmu_cpu *c = pmu_cpu();
	const struct pmu_preset *p = pmu_preset();
	char id[96];

	pmu_cpu_id(c, id, sizeof(id));
	if (root) {
		json_t *cols = json_array();

		json_object_set_new(root, "cpu", json_pack("{s:s,s:i,s:i,s:i,s:s,s:b,s:s}", "vendor", c->vendor,
							   "family", (int)c->family, "model", (int)c->model,
							   "stepping", (int)c->stepping, "name", c->name,
							   "hypervisor", c->hypervisor, "source", c->source));
		for (int i = 0; p && i < p->ncols; i++) {
			const struct pmu_preset_col *col = &p->cols[i];

			json_array_append_new(cols, json_pack("{s:s,s:s,s:i,s:i,s:o}", "column", col->column,
							      "kernel", col->kernel, "event", (int)col->event,
							      "umask", (int)col->umask, "libpfm4",
							      col->pfm ? json_string(col->pfm) : json_null()));
		}
		json_object_set_new(root, "preset", p ? json_pack("{s:s,s:s,s:o}", "generation", p->gen,
								  "source", p->json, "columns", cols)
						      : (json_decref(cols), json_null()));
		json_object_set_new(root, "preset_reason", p ? json_null() : json_string(pmu_preset_reason()));
		return;
	}
	printf("cpu: %s stepping %u%s%s%s, from %s%s\n", id, c->stepping, c->name[0] ? " (" : "",
	       c->name, c->name[0] ? ")" : "", c->source,
	       c->hypervisor ? ", under a hypervisor (the model it reports, not necessarily the host's)" : "");
	if (p)
		printf("preset bounce: %s, events from the kernel's %s\n", p->gen, p->json);
	else
		printf("preset bounce: none, %s\n", pmu_preset_reason());
}

/* Enough work for every counter to move: arithmetic, fresh pages, a yield. */
static void bench_events_work(void)
{
	enum { PAGES = 64, PAGE = 4096 };
	volatile uint64_t x = 1;
	char *p = malloc((size_t)PAGES * PAGE);

	for (int i = 0; i < 2000000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	if (p) {
		for (int i = 0; i < PAGES; i++)
			((volatile char *)p)[(size_t)i * PAGE] = (char)i;
		free(p);
	}
	sched_yield();
}

/* What was counted between start and stop, per event: a table, or one JSON object. */
static void bench_events_print(const struct pmu_group *g, const struct pmu_event_spec *ev, int n,
			       const struct pmu_count *start, const struct pmu_count *stop, int json)
{
	json_t *root = json_object(), *arr = json_array(), *unavail = json_object();

	int w = (int)strlen("event");

	for (int i = 0; i < n; i++)
		if ((int)strlen(ev[i].name) > w)
			w = (int)strlen(ev[i].name);
	bench_events_cpu(json ? root : NULL);
	if (!json)
		printf("%-*s  %-6s  %-14s  %s\n", w, "event", "status", "source", "reason");
	for (int i = 0; i < n; i++) {
		const struct pmu_event *e = &g->ev[i];
		uint64_t val;
		const char *why = pmu_group_delta(g, i, &start[i], &stop[i], &val);
		/* A fallback counts, but say why perf did not. */
		const char *note = why ? why : e->source != PMU_SRC_PERF ? pmu_reason(e->err, e->phase) : NULL;
		const char *src = why ? "-" : pmu_source_name(e->source);

		if (json) {
			json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:o,s:o}", "name", e->name,
							     "status", why ? "n/a" : "ok", "source", src,
							     "count", why ? json_null() : json_integer((json_int_t)val),
							     "reason", note ? json_string(note) : json_null()));
			if (ev[i].col) {
				char enc[PMU_NAME_MAX + 32];

				if (ev[i].via)
					snprintf(enc, sizeof(enc), "libpfm4 %s", ev[i].via);
				else if (!ev[i].err)
					snprintf(enc, sizeof(enc), "raw config 0x%llx",
						 (unsigned long long)ev[i].attr.config);
				else
					snprintf(enc, sizeof(enc), "none");
				json_object_set_new(json_array_get(arr, json_array_size(arr) - 1), "encoding",
						    json_string(enc));
			}
			if (why)
				json_object_set_new(unavail, e->name, json_string(why));
		} else {
			if (note)
				printf("%-*s  %-6s  %-14s  %s%s\n", w, e->name, why ? "n/a" : "ok", src,
				       why ? "" : "perf: ", note);
			else
				printf("%-*s  %-6s  %s\n", w, e->name, "ok", src);
		}
	}
	if (json) {
		json_object_set_new(root, "perf_event_paranoid",
				    pmu_paranoid() == PMU_PARANOID_UNKNOWN ? json_null() : json_integer(pmu_paranoid()));
		json_object_set_new(root, "events", arr);
		json_object_set_new(root, "events_unavailable", unavail);
		json_dumpf(root, stdout, JSON_COMPACT);
		putchar('\n');
	} else {
		json_decref(arr);
		json_decref(unavail);
	}
	json_decref(root);
}

static const char *const events_help =
	"usage: ctrbench events [options]\n"
	"\n"
	"What this machine can count (perf events opened on this thread), and why not the rest;\n"
	"first the CPU it detected and the bounce preset chosen for it (or why there is none).\n"
	"\n"
	"  --events LIST|bounce     events to try (default: every generic event and the bounce preset)\n"
	"  --format F               table or json (default table)\n"
	"\n"
	"CTRBENCH_CPU='VENDOR FAMILY MODEL [STEPPING]' in the environment stands in for cpuid, to see\n"
	"another CPU's preset (testing): CTRBENCH_CPU='AuthenticAMD 0x19 0x11' is a Zen 4.\n"
	"\n"
	"example: ctrbench events --events cycles,instructions\n";

int bench_cmd_events(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct pmu_count start[PMU_MAX_EVENTS], stop[PMU_MAX_EVENTS];
	const char *list = NULL;
	struct pmu_event_spec *ev;
	struct pmu_group *g;
	char *deflist = NULL, err[256];
	int json = 0, n, c;

	optind = 0;
	bench_help(argc, argv, events_help);
	opterr = 0;
	while ((c = bench_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case 'e':
			list = optarg;
			break;
		case 'f':
			json = bench_parse_table_json("events", optarg);
			break;
		default:
			bench_die_getopt(c, argv);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	pmu_init();
	if (pmu_cpu_error())
		die("%s", pmu_cpu_error());
	if (!list)
		list = deflist = bench_events_default();
	if (bench_events_parse(list, &ev, &n, err, sizeof(err)))
		die("%s", err);

	g = calloc(1, sizeof(*g));
	if (!g)
		die("out of memory");
	pmu_group_open(g, ev, n);
	pmu_group_read(g, NULL, start);
	bench_events_work();
	pmu_group_read(g, NULL, stop);

	bench_events_print(g, ev, n, start, stop, json);
	pmu_group_close(g);
	free(g);
	free(ev);
	free(deflist);
	return 0;
}
