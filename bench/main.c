/* SPDX-License-Identifier: MIT */
/*
 * ctrbench - measure concurrent counter algorithms.
 *
 *   ctrbench list
 *   ctrbench run --algo A[,B...]|all --workload update|charge|readers
 *                --shape chain:D|tree:AxB[xC...] --threads N [--readers R]
 *                [--read-interval-us US] [--read-node random|root|leaf|N]
 *                [--duration-ms MS] [--warmup-ms MS] [--format table|csv|json]
 *
 * Every bad input ends in die(): one line naming the bad value, exit 2.
 * A run that fails verification exits 1 after printing every result.
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
#include <jansson.h>

#include "cli.h"
#include "../topology/topo.h"
#include "compare.h"
#include "env.h"
#include "events_cmd.h"
#include "output.h"
#include "project_cmd.h"
#include "report_cmd.h"
#include "run.h"
#include "scenario.h"
#include "schema.h"
#include "setup.h"
#include "sweep.h"
#include "topo_cmd.h"

#define BENCH_MAX_THREADS 4096

static const char *bench_usage =
	"usage: ctrbench list\n"
	"       ctrbench topo [--topology SPEC] [--placement P --threads N] [--format table|json]\n"
	"       ctrbench events [--events LIST] [--format table|json]\n"
	"       ctrbench compare A.jsonl B.jsonl [--metric M] [--format table|json]\n"
	"       ctrbench scenario list | NAME [--quick] [--format table|json] [--out FILE] [--reps K]\n"
	"                    [--duration-ms MS] [--warmup-ms MS] [--flush-period-ms MS] [--readers R]\n"
	"                    [--algo LIST] [--work-ns NS] [--no-cap]\n"
	"       ctrbench report RESULTS.jsonl [MORE.jsonl...] --out DIR [--format html|markdown]\n"
	"                       [--baseline ALGO]\n"
	"       ctrbench run [--algo A[,B...]|all] [--workload update|charge|readers]\n"
	"                    [--shape chain:D|tree:AxB[xC...]] [--threads N]\n"
	"                    [--readers R] [--read-interval-us US] [--read-node random|root|leaf|own|N]\n"
	"                    [--placement compact|scatter|ccx|numa|smt|list:0,2-5] [--topology SPEC]\n"
	"                    [--shared-mem local|interleave|node:K] [--events LIST|bounce]\n"
	"                    [--sample 1/N] [--reps K] [--note TEXT] [--work-ns NS]\n"
	"                    [--options KEY=VAL,...] [--flush-period-ms MS] [--charge-burst B]\n"
	"                    [--duration-ms MS] [--warmup-ms MS] [--format table|csv|json]\n"
	"       ctrbench sweep --algo LIST --shape LIST --threads LIST|A..B|nodes --out FILE [--resume]\n"
	"                    [--workload LIST] [--placement LIST] [--plan FILE] [--reps K] [--readers R]\n"
	"                    [--duration-ms MS] [--warmup-ms MS] [--options O] [--flush-period-ms MS]\n"
	"                    [--work-ns NS] [--events LIST|bounce] [--note TEXT]\n"
	"       ctrbench recommend --updates-per-sec U --reads-per-sec R --depth D\n"
	"                    --max-staleness EXACT|N|MSms [--results FILE] [--threads T] [--format table|json]\n"
	"       ctrbench schema [--format json|table]\n"
	"       ctrbench --version\n"
	"  every command takes --help: its flags, each default, an example\n";

static const char *const bench_run_help =
	"usage: ctrbench run [options]   (with none: the default benchmark, every algorithm on chain:8\n"
	"                                 from 2 threads, as make run)\n"
	"\n"
	"  --algo A[,B...]|all      algorithms, ctrbench list (default all)\n"
	"  --workload W             update, charge or readers (default update)\n"
	"  --shape S                chain:D or tree:AxB[xC...] (default chain:8)\n"
	"  --threads N              updater threads (default 2)\n"
	"  --readers R              readers workload: reader threads (default 1)\n"
	"  --read-interval-us US    readers: pause between reads (default 0, back to back)\n"
	"  --read-node N            readers: random, root, leaf, own or a node index (default random)\n"
	"  --placement P            compact, scatter, ccx, numa, smt or list:0,2-5 (default compact)\n"
	"  --topology SPEC          must name this machine (default: read from hwloc)\n"
	"  --shared-mem M           local, interleave or node:K (default local)\n"
	"  --events LIST|bounce     perf events per op (default none)\n"
	"  --sample 1/N             time one operation in N (default 1/64)\n"
	"  --reps K                 repetitions, interleaved (default 5)\n"
	"  --note TEXT              kept with the results (default none)\n"
	"  --work-ns NS             private work after each operation (default 0)\n"
	"  --options KEY=VAL,...    the algorithm's options, docs/algorithms.md (default none)\n"
	"  --flush-period-ms MS     periodic flusher's period (default the algorithm's, 2000 for rstat)\n"
	"  --charge-burst B         charge: bursts of B, then free them all (default 0, steady window)\n"
	"  --duration-ms MS         measured window per rep (default 1000)\n"
	"  --warmup-ms MS           untimed run before it (default 200)\n"
	"  --format F               table, csv or json (default table)\n"
	"\n"
	"example: ctrbench run --algo atomic_tree,percpu_hier --shape chain:8 --threads 2 --format json\n";

static const char *const bench_list_help =
	"usage: ctrbench list\n"
	"\n"
	"Every algorithm and harness baseline run --algo can name, with its one-line summary.\n"
	"(no options)\n"
	"\n"
	"example: ctrbench list\n";

static int bench_cmd_list(void)
{
	for (int i = 0; i < bench_nr_algos; i++)
		printf("%-18s %s\n", bench_algos[i].name, ctr_algo_summary(bench_algos[i].algo));
	return 0;
}

/* Results are JSON: text that is not UTF-8 would vanish from them, so refuse it. */
static void bench_check_utf8(const char *opt, const char *s)
{
	json_t *j = json_string(s);

	if (!j)
		die("bad value for --%s (not UTF-8)", opt);
	json_decref(j);
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

static int bench_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "algo", required_argument, NULL, 'a' },
		{ "workload", required_argument, NULL, 'w' },
		{ "shape", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
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
		{ "options", required_argument, NULL, 'O' },
		{ "flush-period-ms", required_argument, NULL, 'P' },
		{ "charge-burst", required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	const struct bench_algo *algos[BENCH_MAX_ALGOS];
	struct bench_config cfg = { .duration_ms = 1000, .warmup_ms = 200, .readers = -1,
				    .read_node = BENCH_READ_RANDOM, .sample_every = BENCH_SAMPLE_EVERY };
	const char *read_node = NULL, *topology = NULL, *events = NULL;
	struct bench_output out = { .format = BENCH_FMT_TABLE };
	char *algo_list = (char []){ "all" };
	const char *shape = "chain:8", *why;
	int nr_algos, opt, failed = 0, reps = 5;

	bench_help(argc, argv, bench_run_help);
	cfg.threads = 2;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			algo_list = optarg;
			break;
		case 'w':
			if (!strcmp(optarg, "update"))
				cfg.workload = BENCH_UPDATE;
			else if (!strcmp(optarg, "charge"))
				cfg.workload = BENCH_CHARGE;
			else if (!strcmp(optarg, "readers"))
				cfg.workload = BENCH_READERS;
			else
				die("unknown workload '%s' (want update, charge or readers)", optarg);
			break;
		case 's':
			shape = optarg;
			break;
		case 't':
			cfg.threads = bench_parse_int("threads", optarg, 1, BENCH_MAX_THREADS);
			break;
		case 'd':
			cfg.duration_ms = bench_parse_int("duration-ms", optarg, 1, 3600 * 1000);
			break;
		case 'W':
			cfg.warmup_ms = bench_parse_int("warmup-ms", optarg, 0, 3600 * 1000);
			break;
		case 'r':
			cfg.readers = bench_parse_int("readers", optarg, 1, BENCH_MAX_THREADS);
			break;
		case 'i':
			cfg.read_interval_us = bench_parse_int("read-interval-us", optarg, 0, 60 * 1000000);
			break;
		case 'n':
			read_node = optarg;
			break;
		case 'p':
			cfg.placement = optarg;
			break;
		case 'T':
			topology = optarg;
			break;
		case 'm':
			cfg.shared_mem = optarg;
			break;
		case 'e':
			events = optarg;
			break;
		case 'S':
			cfg.sample_every = bench_parse_sample(optarg);
			break;
		case 'k':
			reps = bench_parse_int("reps", optarg, 1, 1000);
			break;
		case 'N':
			cfg.note = optarg;
			bench_check_utf8("note", optarg);
			break;
		case 'X':
			cfg.work_ns = bench_parse_int("work-ns", optarg, 0, 10 * 1000 * 1000);
			break;
		case 'O':
			cfg.options = optarg;
			bench_check_utf8("options", optarg);
			break;
		case 'B':
			cfg.charge_burst = bench_parse_int("charge-burst", optarg, 1, 1 << 20);
			break;
		case 'P':
			cfg.flush_period_ms = bench_parse_int("flush-period-ms", optarg, 1, 3600 * 1000);
			break;
		case 'f':
			if (bench_output_parse_format(optarg, &out.format))
				die("unknown format '%s' (want table, csv or json)", optarg);
			break;
		default:
			bench_die_getopt(opt, argv);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	nr_algos = bench_parse_algos(algo_list, algos);
	if (bench_shape_parse(shape, &cfg.shape, &why))
		die("bad shape '%s' (%s)", shape, why);
	if (cfg.charge_burst && cfg.workload != BENCH_CHARGE)
		die("--charge-burst applies to the charge workload");
	if (cfg.work_ns && cfg.workload == BENCH_READERS)
		die("--work-ns applies to the update and charge workloads");
	if (cfg.workload != BENCH_READERS) {
		if (cfg.readers >= 0 || read_node || cfg.read_interval_us)
			die("--readers, --read-node and --read-interval-us need --workload readers");
		cfg.readers = 0;
	} else {
		if (cfg.readers < 0)
			cfg.readers = 1;
		if (cfg.threads + cfg.readers > BENCH_MAX_THREADS)
			die("too many threads: --threads %d plus --readers %d", cfg.threads, cfg.readers);
		cfg.read_node = bench_parse_read_node(read_node, cfg.shape.nr_nodes);
	}

	bench_check_options(&cfg, algos, nr_algos);
	bench_setup_machine(&cfg, topology, events);
	bench_setup_threads(&cfg);
	bench_output_begin(&out, &cfg, topo_nr_pus(cfg.topo));
	cfg.reps = reps;
	failed = bench_run_reps(&cfg, &out, algos, nr_algos, reps, NULL);
	bench_output_end(&out, &cfg);
	bench_shape_free(&cfg.shape);
	bench_setup_release(&cfg);
	return failed ? 1 : 0;
}

static int bench_cmd_list_args(int argc, char **argv)
{
	bench_help(argc, argv, bench_list_help);
	if (argc > 1)
		die("unexpected argument '%s'", argv[1]);
	return bench_cmd_list();
}

/* The subcommands; each takes argv from its own name on. */
static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} bench_cmds[] = {
	{ "list", bench_cmd_list_args },
	{ "run", bench_cmd_run },
	{ "topo", bench_cmd_topo },
	{ "events", bench_cmd_events },
	{ "compare", bench_cmd_compare },
	{ "scenario", bench_cmd_scenario },
	{ "sweep", bench_cmd_sweep },
	{ "recommend", bench_cmd_recommend },
	{ "report", bench_cmd_report },
	{ "schema", bench_cmd_schema },
	{ "project", bench_cmd_project },
};

int main(int argc, char **argv)
{
	char names[256] = "";
	const int n = (int)(sizeof(bench_cmds) / sizeof(bench_cmds[0]));

	for (int i = 0; i < n; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? (i == n - 1 ? " or " : ", ") : "", bench_cmds[i].name);
	if (argc < 2)
		die("no command given (want %s); try ctrbench --help", names);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(bench_usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("ctrbench %s (commit %s; result schema %d)\n", CTRBENCH_VERSION, bench_env_commit(),
		       BENCH_SCHEMA_VERSION);
		return 0;
	}
	for (int i = 0; i < n; i++)
		if (!strcmp(argv[1], bench_cmds[i].name))
			return bench_cmds[i].fn(argc - 1, argv + 1);
	die("unknown command '%s' (want %s)", argv[1], names);
}
