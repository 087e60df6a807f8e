/* SPDX-License-Identifier: MIT */
/*
 * cmd-run.c - `ctrbench run` (one configuration, every algorithm asked for,
 * reps interleaved) and `ctrbench list`.  A run that fails verification
 * exits 1 after printing every result.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "builtin.h"
#include "cli.h"
#include "record.h"
#include "../topology/topo.h"
#include "env.h"
#include "exec.h"
#include "hitm.h"
#include "output.h"
#include "run.h"
#include "schema.h"
#include "progress.h"
#include "setup.h"
#include "sweep.h"
#include "verdict.h"

#define BENCH_MAX_THREADS 4096
#define BENCH_MAX_SLOTS 8192	/* the kernel's NR_CPUS at most on x86-64 */
#define BENCH_OPT_C2C 1001	/* --c2c and --c2c-out: long options only, past BENCH_OPT_WIDE */
#define BENCH_OPT_C2C_OUT 1002

static const char *const bench_run_help =
	"usage: ctrbench run [options]   (with none: the default benchmark, every algorithm on chain:8\n"
	"                                 from 2 threads, as make run)\n"
	"\n"
	"  --algo A[,B...]|all      algorithms, ctrbench list (default all)\n"
	"  --workload W             " BENCH_WORKLOAD_LIST " (default update)\n"
	"  --shape S                chain:D or tree:AxB[xC...] (default chain:8)\n"
	"  --threads N              updater threads (default 2)\n"
	"  --slots N                per-CPU slots the algorithm walks (default this machine's possible\n"
	"                           CPUs, or --threads if more); >= --threads, the updaters own the first\n"
	"  --readers R              readers workload: reader threads (default 1)\n"
	"  --read-interval-us US    readers: pause between reads (default 0, back to back)\n"
	"  --read-node N            readers: random, root, leaf, own or a node index (default random)\n"
	"  --placement P            compact, scatter, ccx, numa, smt or list:0,2-5 (default compact)\n"
	"  --topology SPEC          must name this machine (default: read from hwloc)\n"
	"  --shared-mem M           local, interleave or node:K (default local)\n"
	"  --events LIST|bounce     perf events per op (default none)\n"
	"  --c2c                    record each window under perf c2c where perf and a load-sampling PMU\n"
	"                           exist, and name the lines with the most HITM loads (default off)\n"
	"  --c2c-out DIR            with --c2c: a new folder for its files (default ctrbench-c2c-DATE-TIME)\n"
	"  --sample 1/N             time one operation in N (default 1/64)\n"
	"  --reps K                 repetitions, interleaved (default 5)\n"
	"  --note TEXT              kept with the results (default none)\n"
	"  --work-ns NS             private work after each operation (default 0)\n"
	"  --work-iters N           update: N dependent adds per 1024 ops, any slowdown (default 0)\n"
	"  --options KEY=VAL,...    the algorithm's options, docs/algorithms.md (default none)\n"
	"  --flush-period-ms MS     periodic flusher's period (default the algorithm's, 2000 for rstat)\n"
	"  --charge-burst B|bound   charge: bursts of B, then free them all (default 0, steady window);\n"
	"                           bound: B sized from each algorithm's error bound\n"
	"  --limit-levels L         charge: all, leaf (the workers' leaves) or root get a limit (default all)\n"
	"  --limit-headroom X       charge: limits X times the most the workers below hold (default 0.75);\n"
	"                           1 or more: never hit by an exact design\n"
	"  --duration-ms MS         measured window per rep (default 1000)\n"
	"  --warmup-ms MS           untimed run before it (default 200)\n"
	"  --format F               table, csv or json (default table)\n"
	"  --wide                   table: every column (mean, p90, max too) and notes on one line each\n"
	"                           (default: 100 columns, then the verdict)\n"
	"  --force                  run even where the tree and buffers need more than MemAvailable\n"
	"\n"
	"example: ctrbench run --algo atomic_tree,percpu_hier --shape chain:8 --threads 2 --format json\n";

static const char *const bench_list_help =
	"usage: ctrbench list\n"
	"\n"
	"Every algorithm and harness baseline run --algo can name, with its one-line summary.\n"
	"(no options)\n"
	"\n"
	"example: ctrbench list\n";

static int bench_list_algos(void)
{
	for (int i = 0; i < bench_nr_algos; i++)
		printf("%-18s %s\n", bench_algos[i].name, ctr_algo_summary(bench_algos[i].algo));
	return 0;
}

/* --sample 1/N: N a power of two in [2, BENCH_SAMPLE_MAX]. */
static unsigned bench_parse_sample(const char *s)
{
	long n;

	if (strncmp(s, "1/", 2) || s[2] < '0' || s[2] > '9')
		die("bad value '%s' for --sample (want 1/N, N a power of two from 2 to %u)", s,
		    BENCH_SAMPLE_MAX);
	n = bench_parse_int("sample", s + 2, 2, BENCH_SAMPLE_MAX);
	if (n & (n - 1))
		die("bad value '%s' for --sample (want 1/N, N a power of two from 2 to %u)", s,
		    BENCH_SAMPLE_MAX);
	return (unsigned)n;
}

/* --read-node: random (default), root, leaf (any leaf), own (reader i: node i mod nodes), or a node index. */
static int bench_parse_read_node(const char *s, int nr_nodes)
{
	if (!s || !strcmp(s, "random"))
		return BENCH_READ_RANDOM;
	if (!strcmp(s, "root"))
		return 0;
	if (!strcmp(s, "leaf"))
		return BENCH_READ_LEAF;
	if (!strcmp(s, "own"))
		return BENCH_READ_OWN;
	if (*s < '0' || *s > '9')
		die("bad value '%s' for --read-node (want random, root, leaf, own or a node index)", s);
	return bench_parse_int("read-node", s, 0, nr_nodes - 1);
}

/* What run's command line says, before anything is set up. */
struct run_args {
	struct bench_config cfg;	/* the configuration, shape not yet parsed */
	struct bench_output out;	/* --format */
	char *algo_list;		/* --algo as given */
	const char *shape;		/* --shape as given */
	const char *read_node;		/* --read-node as given, NULL if not */
	const char *topology;		/* --topology, NULL if not */
	const char *events;		/* --events, NULL if not */
	int reps;			/* --reps */
	int c2c;			/* --c2c */
	const char *c2c_out;		/* --c2c-out, NULL if not */
};

/* --c2c and --c2c-out into a: 1, or 0 for another option. */
static int run_option_c2c(int opt, struct run_args *a)
{
	if (opt == BENCH_OPT_C2C)
		a->c2c = 1;
	else if (opt == BENCH_OPT_C2C_OUT)
		a->c2c_out = optarg;
	return opt == BENCH_OPT_C2C || opt == BENCH_OPT_C2C_OUT;
}

/* One option of run's into a. */
static void run_option(int opt, char **argv, struct run_args *a)
{
	switch (opt) {
	case 'a':
		a->algo_list = optarg;
		break;
	case 'w':
		a->cfg.workload = bench_parse_workload(optarg);
		break;
	case 's':
		a->shape = optarg;
		break;
	case 't':
		a->cfg.threads = bench_parse_int("threads", optarg, 1, BENCH_MAX_THREADS);
		break;
	case 'C':
		a->cfg.slots = bench_parse_int("slots", optarg, 1, BENCH_MAX_SLOTS);
		break;
	case 'd':
		a->cfg.duration_ms = bench_parse_int("duration-ms", optarg, 1, 3600 * 1000);
		break;
	case 'W':
		a->cfg.warmup_ms = bench_parse_int("warmup-ms", optarg, 0, 3600 * 1000);
		break;
	case 'r':
		a->cfg.readers = bench_parse_int("readers", optarg, 1, BENCH_MAX_THREADS);
		break;
	case 'i':
		a->cfg.read_interval_us = bench_parse_int("read-interval-us", optarg, 0, 60 * 1000000);
		break;
	case 'n':
		a->read_node = optarg;
		break;
	case 'p':
		a->cfg.placement = optarg;
		break;
	case 'T':
		a->topology = optarg;
		break;
	case 'm':
		a->cfg.shared_mem = optarg;
		break;
	case 'e':
		a->events = optarg;
		break;
	case 'S':
		a->cfg.sample_every = bench_parse_sample(optarg);
		break;
	case 'k':
		a->reps = bench_parse_int("reps", optarg, 1, 1000);
		break;
	case 'N':
		a->cfg.note = optarg;
		bench_check_utf8("--note", optarg);
		break;
	case 'X':
		a->cfg.work_ns = bench_parse_int("work-ns", optarg, 0, 10 * 1000 * 1000);
		break;
	case 'J':
		a->cfg.work_iters = bench_parse_int("work-iters", optarg, 0, 1000 * 1000 * 1000);
		break;
	case 'O':
		a->cfg.options = bench_options_normalize(optarg);
		bench_check_utf8("--options", optarg);
		break;
	case 'B':
		if (strcmp(optarg, "bound") && (*optarg < '0' || *optarg > '9'))
			die("bad value '%s' for --charge-burst (want an integer in [1, %d] or bound)", optarg,
			    BENCH_BURST_MAX);
		a->cfg.charge_burst = !strcmp(optarg, "bound") ? BENCH_BURST_FROM_BOUND :
				      bench_parse_int("charge-burst", optarg, 1, BENCH_BURST_MAX);
		break;
	case 'L':
		a->cfg.limit_headroom = bench_parse_num("limit-headroom", optarg, 0.01, 1000);
		break;
	case 'V':
		if (strcmp(optarg, "all") && strcmp(optarg, "leaf") && strcmp(optarg, "root"))
			die("bad value '%s' for --limit-levels (want all, leaf or root)", optarg);
		a->cfg.limit_levels = optarg;
		break;
	case 'P':
		a->cfg.flush_period_ms = bench_parse_int("flush-period-ms", optarg, 1, 3600 * 1000);
		break;
	case 'F':
		a->cfg.force = 1;
		break;
	case BENCH_OPT_WIDE:
		a->out.wide = 1;
		break;
	case 'f':
		if (bench_output_parse_format(optarg, &a->out.format))
			die("unknown format '%s' (want table, csv or json)", optarg);
		break;
	default:
		if (!run_option_c2c(opt, a))
			bench_die_getopt(opt, argv);
	}
}

/* What depends on more than one option, and the shape. */
static void run_check(struct run_args *a)
{
	const char *why;

	if (bench_shape_parse(a->shape, &a->cfg.shape, &why))
		die("bad value '%s' for --shape (%s)", a->shape, why);
	if (a->cfg.charge_burst && !bench_workload_charges(a->cfg.workload))
		die("--charge-burst applies to the charge and store workloads");
	if (a->cfg.limit_levels && !bench_workload_charges(a->cfg.workload))
		die("--limit-levels applies to the charge and store workloads");
	if (a->cfg.limit_headroom && !bench_workload_charges(a->cfg.workload))
		die("--limit-headroom applies to the charge and store workloads");
	why = bench_work_refusal(a->cfg.workload, a->cfg.work_ns, a->cfg.work_iters);
	if (why)
		die("%s", why);
	if (a->cfg.workload != BENCH_READERS) {
		if (a->cfg.readers >= 0 || a->read_node || a->cfg.read_interval_us)
			die("--readers, --read-node and --read-interval-us need --workload readers");
		a->cfg.readers = 0;
	} else {
		if (a->cfg.readers < 0)
			a->cfg.readers = 1;
		if (a->cfg.threads + a->cfg.readers > BENCH_MAX_THREADS)
			die("too many threads: --threads %d plus --readers %d", a->cfg.threads, a->cfg.readers);
		a->cfg.read_node = bench_parse_read_node(a->read_node, a->cfg.shape.nr_nodes);
	}
	if (a->c2c_out && !a->c2c)
		die("--c2c-out needs --c2c");
	if (a->c2c_out && !*a->c2c_out)
		die("bad value '' for --c2c-out (want a folder to create)");

}

/* --c2c: its folder made (the default named by the time) and what can be recorded said, before any run. */
static void run_c2c_setup(const struct run_args *a)
{
	const char *dir = a->c2c_out;
	char name[64];
	time_t now = time(NULL);
	struct tm tm;

	if (!a->c2c)
		return;
	if (!dir) {
		localtime_r(&now, &tm);
		strftime(name, sizeof(name), "ctrbench-c2c-%Y%m%d-%H%M%S", &tm);
		dir = name;
	}
	bench_hitm_setup(dir);
}

/* The table's end: the verdict on what it printed (bench/verdict.h). */
static void run_verdict(struct bench_output *o)
{
	if (o->kept && json_array_size(o->kept))
		bench_verdict_print(o->kept, NULL, "the figures above, kept in no file (--format json >FILE"
				    " keeps them)");
	json_decref(o->kept);
}

int bench_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "algo", required_argument, NULL, 'a' },
		{ "workload", required_argument, NULL, 'w' },
		{ "shape", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "slots", required_argument, NULL, 'C' },
		{ "duration-ms", required_argument, NULL, 'd' },
		{ "warmup-ms", required_argument, NULL, 'W' },
		{ "format", required_argument, NULL, 'f' },
		{ "readers", required_argument, NULL, 'r' },
		{ "read-interval-us", required_argument, NULL, 'i' },
		{ "read-node", required_argument, NULL, 'n' },
		{ "placement", required_argument, NULL, 'p' },
		{ "topology", required_argument, NULL, 'T' },
		{ "shared-mem", required_argument, NULL, 'm' },
		{ "events", required_argument, NULL, 'e' },
		{ "sample", required_argument, NULL, 'S' },
		{ "reps", required_argument, NULL, 'k' },
		{ "note", required_argument, NULL, 'N' },
		{ "work-ns", required_argument, NULL, 'X' },
		{ "work-iters", required_argument, NULL, 'J' },
		{ "options", required_argument, NULL, 'O' },
		{ "flush-period-ms", required_argument, NULL, 'P' },
		{ "charge-burst", required_argument, NULL, 'B' },
		{ "force", no_argument, NULL, 'F' },
		{ "wide", no_argument, NULL, BENCH_OPT_WIDE },
		{ "limit-headroom", required_argument, NULL, 'L' },
		{ "limit-levels", required_argument, NULL, 'V' },
		{ "c2c", no_argument, NULL, BENCH_OPT_C2C }, { "c2c-out", required_argument, NULL, BENCH_OPT_C2C_OUT },
		{ NULL, 0, NULL, 0 },
	};
	struct run_args a = {
		.cfg = { .duration_ms = 1000, .warmup_ms = 200, .readers = -1, .threads = 2,
			 .read_node = BENCH_READ_RANDOM, .sample_every = BENCH_SAMPLE_EVERY },
		.out = { .format = BENCH_FMT_TABLE }, .algo_list = (char []){ "all" }, .shape = "chain:8",
		.reps = 5,
	};
	const struct bench_algo *algos[BENCH_MAX_ALGOS];
	struct bench_exec x = { .name = "run", .out = &a.out, .journal = -1 };
	struct bench_exec_group g = { .cfg = &a.cfg, .algos = algos, .what = "run" };
	char label[320];
	int nr_algos, opt, failed;

	bench_help(argc, argv, bench_run_help);
	opterr = 0;
	optind = 1;
	while ((opt = bench_getopt(argc, argv, opts)) != -1)
		run_option(opt, argv, &a);
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	nr_algos = bench_parse_algos(a.algo_list, algos);
	run_check(&a);
	bench_check_options(&a.cfg, algos, nr_algos);
	bench_setup_machine(&a.cfg, a.topology, a.events);
	bench_setup_threads(&a.cfg);
	bench_check_memory(&a.cfg, algos, nr_algos);
	run_c2c_setup(&a);
	if (a.out.format == BENCH_FMT_TABLE)
		a.out.kept = json_array();	/* for the verdict */
	bench_output_begin(&a.out, &a.cfg, topo_nr_pus(a.cfg.topo));
	a.cfg.reps = a.reps;
	/* a measurement: warm-up, the window, then the latency phase (a quarter of it) */
	bench_progress_plan(nr_algos * a.reps, (a.cfg.warmup_ms + 1.25 * a.cfg.duration_ms) / 1000.0);
	x.nr_cpus = topo_nr_pus(a.cfg.topo);
	g.nr_algos = nr_algos;
	if (a.cfg.note) {
		snprintf(label, sizeof(label), "· %s", a.cfg.note);
		g.label = label;
	}
	failed = bench_exec(&x, &g, 1);
	if (x.interrupted)
		fprintf(stderr, "ctrbench: interrupted: printed what was measured\n");
	bench_output_end(&a.out, &a.cfg);
	run_verdict(&a.out);
	bench_shape_free(&a.cfg.shape);
	bench_setup_release(&a.cfg);
	return failed ? 1 : 0;
}

int bench_cmd_list(int argc, char **argv)
{
	bench_help(argc, argv, bench_list_help);
	if (argc > 1)
		die("unexpected argument '%s'", argv[1]);
	return bench_list_algos();
}

