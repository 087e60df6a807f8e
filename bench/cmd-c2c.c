/* SPDX-License-Identifier: MIT */
/*
 * cmd-c2c.c - `ctrbench c2c`: two pinned threads bounce one cache line, pair
 * by pair; the one-way time per transfer is summarized per topology distance
 * class, with the line's home NUMA node chosen (first touch, node:K, each
 * node in turn) and checked with move_pages(2).
 *
 * This file parses the command line and runs the steps in order; each step
 * is a file of bench/c2c/ (c2c/c2c.h): the plan, the line's home, the
 * measuring (its method described there), the output.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "builtin.h"
#include "c2c/c2c.h"
#include "cli.h"
#include "env.h"
#include "../pmu/pmu.h"

static const char *c2c_usage =
	"usage: ctrbench c2c [--cpus LIST|all] [--pairs all|sample:N|per-class:N]\n"
	"                    [--home first-touch|node:K|each] [--op cas|load-store|fetch-add]\n"
	"                    [--reps K] [--samples S] [--iters I] [--events LIST|bounce|none]\n"
	"                    [--topology SPEC] [--dry-run] [--format table|json|csv]\n"
	"\n"
	"Two threads pinned to CPUs a and b bounce one cache line; the time per transfer is\n"
	"reported per pair and per distance class (smt, ccx, numa, package, remote).\n"
	"  --cpus LIST|all     CPUs to pair (default all; 0,2,4-7: one named twice is measured once).\n"
	"  --pairs MODE        all (default), sample:N (N pairs drawn from all) or per-class:N\n"
	"                      (N from each class present). Draws are fixed: the same plan every run.\n"
	"  --home H            where the line lives: first-touch (default: the main thread touches it,\n"
	"                      as core-to-core-latency does), node:K (numa_alloc_onnode), each (every\n"
	"                      node in turn). Checked with move_pages and printed.\n"
	"  --op OP             cas (default: core-to-core-latency's CAS ping-pong), load-store (store,\n"
	"                      wait for the other's store) or fetch-add (both add: 2 x window / adds).\n"
	"  --reps K            passes over every pair (default 5): median and interval over them.\n"
	"  --samples S         samples per measurement after one warm-up sample (default 300).\n"
	"  --iters I           round trips (fetch-add: adds) per sample (default 1000).\n"
	"  --events LIST       counted per class per transfer where a PMU exists (default bounce:\n"
	"                      the fill-source events, see ctrbench events); none to skip.\n"
	"  --topology SPEC     plan on another machine (hwloc synthetic or XML; default this\n"
	"                      machine): needs --dry-run.\n"
	"  --dry-run           print the plan and its time estimate, measure nothing (default: measure).\n"
	"  --format F          table (default), json (one object, with a calibration member:\n"
	"                      class -> one-way ns) or csv (class rows, then pair rows).\n"
	"\n"
	"example: ctrbench c2c --pairs per-class:4 --format json > c2c.json\n";

static enum c2c_op c2c_parse_op(const char *s)
{
	for (int i = 0; i < C2C_NR_OPS; i++)
		if (!strcmp(s, c2c_op_names[i]))
			return (enum c2c_op)i;
	die("unknown op '%s' for c2c (want cas, load-store or fetch-add)", s);
}

/* --events: parse the list; 0 events for none. */
static void c2c_parse_events(struct c2c_run *r, const char *s)
{
	char err[512];

	if (!strcmp(s, "none"))
		return;
	if (bench_events_parse(s, &r->ev, &r->nr_ev, err, sizeof(err)))
		die("%s", err);
}

/* The options into o and *events; 1 if --help was asked (printed), 0 to go on. */
static int c2c_parse_args(int argc, char **argv, struct c2c_opts *o, const char **events)
{
	static const struct option opts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "pairs", required_argument, NULL, 'p' },
		{ "home", required_argument, NULL, 'H' },
		{ "op", required_argument, NULL, 'o' },
		{ "reps", required_argument, NULL, 'k' },
		{ "samples", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'i' },
		{ "events", required_argument, NULL, 'e' },
		{ "topology", required_argument, NULL, 'T' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = bench_getopt(argc, argv, opts)) != -1) {
		switch (opt) {
		case 'c':
			o->cpus = optarg;
			break;
		case 'p':
			o->pairs = optarg;
			break;
		case 'H':
			o->home = optarg;
			break;
		case 'o':
			o->op = c2c_parse_op(optarg);
			break;
		case 'k':
			o->reps = bench_parse_int("reps", optarg, 1, 1000);
			break;
		case 's':
			o->samples = bench_parse_int("samples", optarg, 1, 1000000);
			break;
		case 'i':
			o->iters = bench_parse_int("iters", optarg, 1, 100000000);
			break;
		case 'e':
			*events = optarg;
			break;
		case 'T':
			o->topology = optarg;
			break;
		case 'n':
			o->dry_run = 1;
			break;
		case 'f':
			if (!strcmp(optarg, "table"))
				o->format = 0;
			else if (!strcmp(optarg, "json"))
				o->format = 1;
			else if (!strcmp(optarg, "csv"))
				o->format = 2;
			else
				die("unknown format '%s' for c2c (want table, json or csv)", optarg);
			break;
		case 'h':
			fputs(c2c_usage, stdout);
			return 1;
		default:
			bench_die_getopt(opt, argv);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* Measure the plan and print it; the exit status (1: a line could not be placed, or interrupted). */
static int c2c_run_plan(struct c2c_run *r)
{
	const struct c2c_opts *o = r->o;
	size_t n = (size_t)r->nr_homes * r->plan.nr_pairs * o->reps;
	char buf[256];
	int interrupted;

	fprintf(stderr, "ctrbench: c2c: %d pair%s x %d rep%s: estimate %.1f s at an assumed %.0f ns "
		"per transfer\n", r->plan.nr_pairs, r->plan.nr_pairs == 1 ? "" : "s", o->reps,
		o->reps == 1 ? "" : "s", r->estimate_s, C2C_ASSUMED_NS);
	if (r->plan.nr_dups) {
		topo_format_list(r->plan.dups, r->plan.nr_dups, buf, sizeof(buf));
		fprintf(stderr, "ctrbench: c2c: CPUs named more than once, measured once: %s\n", buf);
	}
	for (int h = 0; h < r->nr_homes; h++) {
		int ret = c2c_home_alloc(&r->homes[h], r->homes[h].asked);

		if (ret) {
			fprintf(stderr, "ctrbench: c2c: cannot allocate the line: %s\n", strerror(-ret));
			return 1;
		}
		if (r->homes[h].asked >= 0 && r->homes[h].node >= 0 && r->homes[h].node != r->homes[h].asked) {
			fprintf(stderr, "ctrbench: c2c: the line asked on node %d is on node %d\n",
				r->homes[h].asked, r->homes[h].node);
			return 1;
		}
	}
	if (r->nodes_total == 1)
		fprintf(stderr, "ctrbench: c2c: this machine has one NUMA node: the line is on it for "
			"every pair, --home cannot move it\n");
	r->res = malloc(sizeof(double) * n);
	r->res_p50 = malloc(sizeof(double) * n);
	r->ev_sum = calloc((size_t)r->nr_homes * TOPO_NR_CLASSES * (r->nr_ev ? r->nr_ev : 1), sizeof(double));
	r->tr_sum = calloc((size_t)r->nr_homes * TOPO_NR_CLASSES, sizeof(double));
	if (!r->res || !r->res_p50 || !r->ev_sum || !r->tr_sum)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		r->res[i] = NAN;
	c2c_measure_all(r);
	if (r->ev_reason)
		fprintf(stderr, "ctrbench: c2c: events not counted: %s\n", r->ev_reason);
	interrupted = r->stopped != 0;
	if (o->format == 1)
		c2c_print_json(r, interrupted);
	else if (o->format == 2)
		c2c_print_csv(r);
	else
		c2c_print_table(r, interrupted);
	if (r->stopped == 1)
		fprintf(stderr, "ctrbench: interrupted: printed what was measured\n");
	return interrupted;
}

int bench_cmd_c2c(int argc, char **argv)
{
	struct c2c_opts o = { .cpus = "all", .pairs = "all", .home = "first-touch", .op = C2C_CAS,
			      .reps = 5, .samples = 300, .iters = 1000 };
	struct c2c_run r = { .o = &o };
	const char *events = "bounce";
	char err[512];
	struct topo *t;
	long measurements;
	int status = 0;

	if (c2c_parse_args(argc, argv, &o, &events))
		return 0;
	t = topo_load(o.topology, err, sizeof(err));
	if (!t) {
		if (o.topology)
			die("%s", err);
		fprintf(stderr, "ctrbench: %s\n", err);
		return 1;
	}
	if (topo_is_synthetic(t) && !o.dry_run) {
		topo_free(t);
		die("--topology '%s' describes another machine: plan it with --dry-run", o.topology);
	}
	r.t = t;
	if (c2c_plan_make(t, o.cpus, o.pairs, &r.plan, err, sizeof(err))) {
		topo_free(t);
		die("%s", err);
	}
	c2c_homes_parse(&r, o.home);
	pmu_init();
	c2c_parse_events(&r, events);
	r.env = bench_env_json(NULL);
	if (!r.env)
		die("out of memory");
	measurements = (long)r.plan.nr_pairs * (r.homes_each ? r.nodes_total : r.nr_homes);
	r.estimate_s = c2c_estimate(&o, measurements, C2C_ASSUMED_NS);
	if (o.dry_run)
		c2c_print_plan(&r, measurements);
	else
		status = c2c_run_plan(&r);
	for (int h = 0; h < r.nr_homes; h++)
		c2c_home_free(&r.homes[h]);
	free(r.res);
	free(r.res_p50);
	free(r.ev_sum);
	free(r.tr_sum);
	free(r.ev);
	json_decref(r.env);
	c2c_plan_free(&r.plan);
	topo_free(t);
	return status;
}
