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
#include "report_cmd.h"
#include "run.h"
#include "topo_cmd.h"

#define BENCH_MAX_THREADS 4096
#define BENCH_MAX_ALGOS 64

static const char *bench_usage =
	"usage: ctrbench list\n"
	"       ctrbench topo [--topology SPEC] [--placement P --threads N] [--format table|json]\n"
	"       ctrbench events [--events LIST] [--format table|json]\n"
	"       ctrbench compare A.jsonl B.jsonl [--metric M] [--format table|json]\n"
	"       ctrbench report RESULTS.jsonl [MORE.jsonl...] --out DIR [--format html|markdown]\n"
	"                       [--baseline ALGO]\n"
	"       ctrbench run --algo A[,B...]|all --workload update|charge|readers\n"
	"                    --shape chain:D|tree:AxB[xC...] --threads N\n"
	"                    [--readers R] [--read-interval-us US] [--read-node random|root|leaf|N]\n"
	"                    [--placement compact|scatter|ccx|numa|smt|list:0,2-5] [--topology SPEC]\n"
	"                    [--shared-mem local|interleave|node:K] [--events LIST|bounce]\n"
	"                    [--sample 1/N] [--reps K] [--note TEXT] [--work-ns NS]\n"
	"                    [--options KEY=VAL,...] [--flush-period-ms MS]\n"
	"                    [--duration-ms MS] [--warmup-ms MS] [--format table|csv|json]\n";

static int bench_cmd_list(void)
{
	for (int i = 0; i < bench_nr_algos; i++)
		printf("%-18s %s\n", bench_algos[i].name, ctr_algo_summary(bench_algos[i].algo));
	return 0;
}

/*
 * This machine's topology (a synthetic or XML one is for planning with
 * ctrbench topo: there is no such hardware to run on), the PU of every
 * thread, the pair counts, and each updater's NUMA node for its slot.
 */
static void bench_setup_placement(struct bench_config *cfg, const char *topology)
{
	const int total = cfg->threads + cfg->readers;
	char err[256];

	if (topology) {
		struct topo *t = topo_load(topology, err, sizeof(err));

		if (!t)
			die("%s", err);
		if (topo_is_synthetic(t))
			die("topology '%s' is not this machine: plan with ctrbench topo, run here without --topology",
			    topology);
		topo_free(t);
	}
	cfg->topo = topo_load(NULL, err, sizeof(err));
	if (!cfg->topo)
		die("%s", err);
	if (!cfg->placement)
		cfg->placement = "compact";
	cfg->pus = calloc(total, sizeof(int));
	cfg->slot_node = calloc(cfg->threads, sizeof(int));
	if (!cfg->pus || !cfg->slot_node)
		die("out of memory");
	if (topo_place(cfg->topo, cfg->placement, total, cfg->pus, &cfg->wrapped, err, sizeof(err)))
		die("%s", err);
	topo_pair_counts(cfg->topo, cfg->pus, total, cfg->pairs);
	for (int i = 0; i < cfg->threads; i++) {
		cfg->slot_node[i] = topo_numa_node_of_pu(cfg->topo, cfg->pus[i]);
		if (cfg->slot_node[i] < 0)
			cfg->slot_node[i] = 0;	/* no NUMA information: one node */
	}
}

/* Results are JSON: text that is not UTF-8 would vanish from them, so refuse it. */
static void bench_check_utf8(const char *opt, const char *s)
{
	json_t *j = json_string(s);

	if (!j)
		die("bad value for --%s (not UTF-8)", opt);
	json_decref(j);
}

static volatile sig_atomic_t bench_interrupted;

static void bench_on_signal(int sig)
{
	(void)sig;
	bench_interrupted = 1;
}

/*
 * K repetitions, the algorithms interleaved within each so that drift hits
 * them alike; then one summary per algorithm.  SIGINT or SIGTERM stops after
 * the measurement in progress, and what was measured is still printed.
 * Returns 1 if a verification failed or a run could not start.
 */
static int bench_run_reps(struct bench_config *cfg, struct bench_output *out,
			  const struct bench_algo **algos, int nr_algos, int reps)
{
	struct bench_result *res = calloc((size_t)nr_algos * reps, sizeof(*res));
	/* restart interrupted writes; a second signal takes the default action and ends the run */
	struct sigaction sa = { .sa_handler = bench_on_signal, .sa_flags = SA_RESTART | SA_RESETHAND };
	int *done = calloc(nr_algos, sizeof(int)), failed = 0;

	if (!res || !done)
		die("out of memory");
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (int rep = 0; rep < reps && !bench_interrupted && !failed; rep++) {
		for (int i = 0; i < nr_algos && !bench_interrupted; i++) {
			int err = bench_run_one(cfg, algos[i], &res[(size_t)i * reps + rep]);

			if (err) {
				/* Not bad input: the machine refused (memory, threads).  Exit 1, not 2. */
				fprintf(stderr, "ctrbench: %s: cannot run: %s\n", algos[i]->name,
					strerror(-err));
				bench_result_free(&res[(size_t)i * reps + rep]);
				failed = 1;
				break;
			}
			done[i]++;
			/* With one rep, print as each result comes: nothing to summarize. */
			if (reps == 1)
				bench_output_summary(out, cfg, &res[i], 1);
		}
	}
	for (int i = 0; i < nr_algos; i++) {
		if (reps > 1 && done[i])
			bench_output_summary(out, cfg, &res[(size_t)i * reps], done[i]);
		for (int k = 0; k < done[i]; k++) {
			failed |= res[(size_t)i * reps + k].verify == 0;
			bench_result_free(&res[(size_t)i * reps + k]);
		}
	}
	if (bench_interrupted)
		fprintf(stderr, "ctrbench: interrupted: printed what was measured\n");
	free(res);
	free(done);
	return failed || bench_interrupted;
}

/* The topology summary belongs with the environment: "2 packages, 24 L3s, ..." of this machine. */
static void bench_env_add_topology(json_t *env, const struct topo *t)
{
	struct topo_counts c;
	char buf[160];

	topo_counts(t, &c);
	snprintf(buf, sizeof(buf), "%d package%s, %d NUMA node%s, %d L3%s, %d cores, %d PUs",
		 c.packages, c.packages == 1 ? "" : "s", c.numa_nodes, c.numa_nodes == 1 ? "" : "s",
		 c.l3s, c.l3s == 1 ? "" : "s", c.cores, c.pus);
	json_object_set_new(env, "topology", json_string(buf));
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

/* A PU of this machine sits on NUMA node id (OS index); node 0 where there is no NUMA information. */
static int bench_node_has_pu(const struct topo *t, long id)
{
	struct topo_pu_info info;

	for (int i = 0; i < topo_nr_pus(t); i++) {
		int node;

		if (topo_pu_at(t, i, &info))
			continue;
		node = topo_numa_node_of_pu(t, info.pu);
		if ((node < 0 ? 0 : node) == id)
			return 1;
	}
	return 0;
}

/* --shared-mem local|interleave|node:K, K a NUMA node of this machine. */
static void bench_check_shared_mem(const char *s, struct bench_config *cfg)
{
	struct topo_counts c;
	char *end;
	long node;

	if (!s || !strcmp(s, "local") || !strcmp(s, "interleave"))
		return;
	topo_counts(cfg->topo, &c);
	if (strncmp(s, "node:", 5) || s[5] < '0' || s[5] > '9')
		die("bad value '%s' for --shared-mem (want local, interleave or node:K)", s);
	errno = 0;
	node = strtol(s + 5, &end, 10);
	/* K is a node ID, which can be sparse: ask whether a PU of this machine is on it */
	if (errno || *end || !bench_node_has_pu(cfg->topo, node))
		die("bad value '%s' for --shared-mem (no NUMA node %s with a CPU of this machine;"
		    " it has %d node%s)", s, s + 5, c.numa_nodes > 0 ? c.numa_nodes : 1,
		    c.numa_nodes == 1 ? "" : "s");
}

/* --read-node: random (default), root, leaf (any leaf), or a node index of the shape. */
static int bench_parse_read_node(const char *s, int nr_nodes)
{
	if (!s || !strcmp(s, "random"))
		return BENCH_READ_RANDOM;
	if (!strcmp(s, "root"))
		return 0;
	if (!strcmp(s, "leaf"))
		return BENCH_READ_LEAF;
	if (*s < '0' || *s > '9')
		die("bad value '%s' for --read-node (want random, root, leaf or a node index)", s);
	return bench_parse_int("read-node", s, 0, nr_nodes - 1);
}

/*
 * --options and --flush-period-ms go to every algorithm named: try them on a
 * one-node tree first, so that a key one of them does not take is bad input
 * (exit 2 before anything runs), not a failed run.  Baselines take none.
 */
static void bench_check_options(const struct bench_config *cfg, const struct bench_algo **algos,
				int nr_algos)
{
	const struct ctr_params p = { .nr_nodes = 1, .nr_cpus = 1, .options = cfg->options,
				      .flush_period_ms = cfg->flush_period_ms };

	for (int i = 0; i < nr_algos && (cfg->options || cfg->flush_period_ms); i++) {
		struct ctr_tree *t;

		if (algos[i]->baseline) {
			if (cfg->options)
				die("bad value '%s' for --options (%s is a harness baseline: it takes none)",
				    cfg->options, algos[i]->name);
			continue;
		}
		errno = 0;
		t = ctr_tree_new(algos[i]->algo, &p);
		if (!t && errno == EINVAL)
			die("bad value '%s' for --options (not taken by %s; docs/algorithms.md lists"
			    " each algorithm's options)", cfg->options ? cfg->options : "", algos[i]->name);
		ctr_tree_free(t);
	}
}

/* "a,b" or "all" into algos[]; dies on an unknown or repeated name. */
static int bench_parse_algos(char *list, const struct bench_algo **algos)
{
	const char *whole = strdupa(list);
	int n = 0;

	if (!strcmp(list, "all")) {
		for (int i = 0; i < bench_nr_algos; i++)
			algos[n++] = &bench_algos[i];
		return n;
	}
	for (char *name; (name = strsep(&list, ",")); ) {
		const struct bench_algo *ba = bench_algo_find(name);

		if (!*name)
			die("empty algorithm name in --algo '%s'", whole);

		if (!ba)
			die("unknown algorithm '%s' (ctrbench list shows them)", name);
		for (int i = 0; i < n; i++)
			if (algos[i] == ba)
				die("algorithm '%s' given twice", name);
		if (n == BENCH_MAX_ALGOS)
			die("too many algorithms in --algo");
		algos[n++] = ba;
	}
	return n;
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
		{ NULL, 0, NULL, 0 },
	};
	const struct bench_algo *algos[BENCH_MAX_ALGOS];
	struct bench_config cfg = { .duration_ms = 1000, .warmup_ms = 200, .readers = -1,
				    .read_node = BENCH_READ_RANDOM, .sample_every = BENCH_SAMPLE_EVERY };
	const char *read_node = NULL, *topology = NULL, *events = NULL;
	char err[256];
	struct bench_output out = { .format = BENCH_FMT_TABLE };
	char *algo_list = NULL;
	const char *shape = NULL, *why;
	int nr_algos, opt, failed = 0, reps = 5;

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
	if (!algo_list)
		die("run needs --algo (ctrbench list shows them)");
	if (!shape)
		die("run needs --shape (chain:D or tree:AxB...)");
	if (!cfg.threads)
		die("run needs --threads");
	nr_algos = bench_parse_algos(algo_list, algos);
	if (bench_shape_parse(shape, &cfg.shape, &why))
		die("bad shape '%s' (%s)", shape, why);
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
	bench_setup_placement(&cfg, topology);
	bench_check_shared_mem(cfg.shared_mem, &cfg);
	pmu_init();
	if (events && pmu_events_parse(events, &cfg.events, &cfg.nr_events, err, sizeof(err)))
		die("%s", err);
	bench_tsc_calibrate(&cfg.tsc);
	cfg.env = bench_env_json(cfg.note);
	bench_env_add_topology(cfg.env, cfg.topo);
	bench_output_begin(&out, &cfg, topo_nr_pus(cfg.topo));
	cfg.reps = reps;
	failed = bench_run_reps(&cfg, &out, algos, nr_algos, reps);
	bench_output_end(&out, &cfg);
	bench_shape_free(&cfg.shape);
	free(cfg.pus);
	free(cfg.slot_node);
	free(cfg.events);
	json_decref(cfg.env);
	topo_free(cfg.topo);
	return failed ? 1 : 0;
}

static int bench_cmd_list_args(int argc, char **argv)
{
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
	{ "report", bench_cmd_report },
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
	for (int i = 0; i < n; i++)
		if (!strcmp(argv[1], bench_cmds[i].name))
			return bench_cmds[i].fn(argc - 1, argv + 1);
	die("unknown command '%s' (want %s)", argv[1], names);
}
