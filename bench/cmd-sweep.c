/* SPDX-License-Identifier: MIT */
/*
 * cmd-sweep.c - `ctrbench sweep`: its options (on the command line or in a
 * plan file) and every list parsed; the engine (sweep.c) then checks them
 * all before anything runs and hands the cross product to the executor.
 * docs/sweeps.md describes it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "../topology/topo.h"
#include "builtin.h"
#include "cli.h"
#include "record.h"
#include "run.h"
#include "setup.h"
#include "sweep.h"

#define SWEEP_MAX_PLAN (64 * 1024)	/* a plan is a few lines; it is copied into every result */

/* The options a sweep takes with a value; a plan file takes the same names. */
enum {
	SO_ALGO, SO_WORKLOAD, SO_SHAPE, SO_THREADS, SO_PLACEMENT, SO_REPS, SO_DURATION, SO_WARMUP,
	SO_READERS, SO_OPTIONS, SO_FLUSH, SO_WORK_NS, SO_NOTE, SO_OUT, SO_EVENTS, SO_WORK_ITERS, SO_SLOTS,
	SO_NR, SO_PLAN = SO_NR, SO_RESUME, SO_FORCE, SO_TOPOLOGY, SO_DRY_RUN, SO_FORMAT, SO_CONFIGS, SO_SHARD,
};

static const char *const sweep_opt_names[SO_NR] = {
	"algo", "workload", "shape", "threads", "placement", "reps", "duration-ms", "warmup-ms",
	"readers", "options", "flush-period-ms", "work-ns", "note", "out", "events", "work-iters", "slots",
};

/* s split at sep into fresh strings; an empty item or one given twice is bad input for --opt. */
static char **sweep_split(const char *opt, const char *s, char sep, int *n)
{
	char *copy = bench_xstrdup(s), *p = copy, *item, seps[2] = { sep, 0 };
	char **v = bench_xcalloc(strlen(s) + 1, sizeof(*v));

	*n = 0;
	while ((item = strsep(&p, seps))) {
		if (!*item)
			die("empty item in --%s '%s'", opt, s);
		for (int i = 0; i < *n; i++)
			if (!strcmp(v[i], item))
				die("'%s' given twice in --%s '%s'", item, opt, s);
		v[(*n)++] = bench_xstrdup(item);
	}
	free(copy);
	return v;
}

/* A whole decimal in [1, BENCH_SWEEP_MAX_THREADS], or -1. */
static int sweep_thread_count(const char *s, size_t len)
{
	long v = 0;

	if (!len || len > 4)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v >= 1 && v <= BENCH_SWEEP_MAX_THREADS ? (int)v : -1;
}

/*
 * `nodes`: 1, then the PUs of one NUMA node, of two, ..., of all (the
 * steps the Linux kernel test robot's will-it-scale sweeps take), nodes in
 * logical order.  A machine without NUMA information is one node.
 */
static void sweep_node_steps(const struct topo *t, char *want)
{
	int nr = topo_nr_pus(t), *per_node = bench_xcalloc((size_t)nr + 1, sizeof(int)), max = 0, sum = 0;
	struct topo_pu_info info;

	for (int i = 0; i < nr; i++) {
		int node = topo_pu_at(t, i, &info) || info.numa < 0 ? 0 : info.numa;

		per_node[node < nr ? node : nr]++;
		if (node > max)
			max = node < nr ? node : nr;
	}
	want[1] = 1;
	for (int n = 0; n <= max; n++) {
		sum += per_node[n];
		if (sum >= 1 && sum <= BENCH_SWEEP_MAX_THREADS)
			want[sum] = 1;
	}
	free(per_node);
}

/* --threads: N, A..B and `nodes`, comma-separated; the union, ascending. */
static int *sweep_parse_threads(const char *s, const struct topo *t, int *n)
{
	char *want = bench_xcalloc(BENCH_SWEEP_MAX_THREADS + 1, 1);
	char *copy = bench_xstrdup(s), *p = copy, *item;
	int *v;

	while ((item = strsep(&p, ","))) {
		const char *dots = strstr(item, "..");
		int a, b;

		if (!strcmp(item, "nodes")) {
			sweep_node_steps(t, want);
			continue;
		}
		if (dots) {
			a = sweep_thread_count(item, (size_t)(dots - item));
			b = sweep_thread_count(dots + 2, strlen(dots + 2));
		} else {
			a = b = sweep_thread_count(item, strlen(item));
		}
		if (a < 0 || b < 0 || a > b)
			die("bad value '%s' in --threads '%s' (want N, A..B with A <= B, or nodes,"
			    " comma-separated; counts from 1 to %d)", item, s, BENCH_SWEEP_MAX_THREADS);
		for (int k = a; k <= b; k++)
			want[k] = 1;
	}
	*n = 0;
	for (int k = 1; k <= BENCH_SWEEP_MAX_THREADS; k++)
		*n += want[k];
	v = bench_xcalloc((size_t)*n, sizeof(int));
	*n = 0;
	for (int k = 1; k <= BENCH_SWEEP_MAX_THREADS; k++)
		if (want[k])
			v[(*n)++] = k;
	free(want);
	free(copy);
	return v;
}

/*
 * --placement: names separated by ',' ("compact,scatter"), or by ';' as
 * soon as one is a list:CPUS, whose own commas would split it
 * ("compact;list:0,2-3").  A lone list:CPUS needs no ';'.
 */
static char **sweep_parse_placements(const char *s, const struct topo *t, int *n)
{
	char **v, err[256];
	int pu;

	if (strchr(s, ';'))
		v = sweep_split("placement", s, ';', n);
	else if (!strncmp(s, "list:", 5)) {
		v = bench_xcalloc(1, sizeof(*v));
		v[0] = bench_xstrdup(s);
		*n = 1;
	} else {
		v = sweep_split("placement", s, ',', n);
	}
	/* Whether a policy is known does not depend on the thread count: try each with one thread. */
	for (int i = 0; i < *n; i++)
		if (topo_place(t, v[i], 1, &pu, NULL, err, sizeof(err))) {
			if (!strchr(s, ';') && strstr(s, "list:"))
				die("bad value '%s' in --placement '%s' (a list:CPUS among other placements"
				    " needs ';' between them: compact;list:0,1)", v[i], s);
			die("%s", err);
		}
	return v;
}

static const struct bench_algo **sweep_parse_algos(const char *s, int *n)
{
	const struct bench_algo **v;
	char **names;

	if (!strcmp(s, "all")) {
		v = bench_xcalloc((size_t)bench_nr_algos, sizeof(*v));
		for (int i = 0; i < bench_nr_algos; i++)
			v[i] = &bench_algos[i];
		*n = bench_nr_algos;
		return v;
	}
	names = sweep_split("algo", s, ',', n);
	v = bench_xcalloc((size_t)*n, sizeof(*v));
	for (int i = 0; i < *n; i++) {
		v[i] = bench_algo_find(names[i]);
		if (!v[i])
			die("unknown algorithm '%s' (ctrbench list shows them)", names[i]);
		free(names[i]);
	}
	free(names);
	return v;
}

/* ---- the command line and plan files ---- */

/* A plan's lines: each value and where it is, for die() to name. */
struct sweep_plan {
	const char *val[SO_NR];		/* each line's value (fresh strings), NULL where the plan has none */
	char *where[SO_NR];		/* "FILE:LINE" of that line */
};

/*
 * A plan: one option per line, "name value" with the names of the flags
 * (a leading "--" is allowed), '#' comment lines and blank lines.  A flag
 * on the command line overrides the plan's line of the same name, so one
 * plan serves a quick check (--duration-ms 50 --out /tmp/x.jsonl) and the
 * real sweep.  Only the syntax here: the values are parsed with the flags'.
 */
static char *sweep_read_plan(const char *path, struct sweep_plan *plan)
{
	int not_regular, lineno = 0;
	FILE *f;
	char *text, *p, *line;
	size_t len;

	/* the path goes into every result line (JSON): as --note, it must be UTF-8 */
	bench_check_utf8("--plan", path);
	f = bench_fopen_regular(path, &not_regular);
	if (not_regular)
		die("plan '%s' is not a regular file", path);
	if (!f)
		die("cannot open plan '%s': %s", path, strerror(errno));
	text = bench_xcalloc(SWEEP_MAX_PLAN + 2, 1);
	len = fread(text, 1, SWEEP_MAX_PLAN + 1, f);
	if (ferror(f))
		die("cannot read plan '%s': %s", path, strerror(errno));
	fclose(f);
	if (len > SWEEP_MAX_PLAN)
		die("plan '%s' is larger than %d bytes: it is kept in every result line", path, SWEEP_MAX_PLAN);
	if (strlen(text) != len)
		die("plan '%s' is not text (a NUL byte)", path);
	{
		/* kept in every result line (JSON): UTF-8, as --note; the error names the plan */
		json_t *j = json_string(text);

		if (!j)
			die("plan '%s' is not UTF-8 text", path);
		json_decref(j);
	}
	p = bench_xstrdup(text);
	for (char *rest = p; (line = strsep(&rest, "\n")); ) {
		char *key, *value, *end;
		int k;

		lineno++;
		while (*line == ' ' || *line == '\t')
			line++;
		end = line + strlen(line);
		while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = 0;
		if (!*line || *line == '#')
			continue;
		key = line;
		if (!strncmp(key, "--", 2))
			key += 2;
		value = key + strcspn(key, " \t");
		if (*value)
			*value++ = 0;
		value += strspn(value, " \t");
		if (!strcmp(key, "plan") || !strcmp(key, "resume") || !strcmp(key, "force"))
			die("%s:%d: '%s' belongs on the command line, not in a plan", path, lineno, key);
		for (k = 0; k < SO_NR && strcmp(key, sweep_opt_names[k]); k++)
			;
		if (k == SO_NR)
			die("%s:%d: unknown option '%s' (want algo, workload, shape, threads, placement, reps,"
			    " duration-ms, warmup-ms, readers, options, flush-period-ms, work-ns, work-iters, note, out,"
			    " events or slots)",
			    path, lineno, key);
		if (!*value)
			die("%s:%d: '%s' needs a value", path, lineno, key);
		if (plan->val[k])
			die("%s:%d: '%s' given twice in the plan", path, lineno, key);
		plan->val[k] = bench_xstrdup(value);
		if (asprintf(&plan->where[k], "%s:%d", path, lineno) < 0)
			die("out of memory");
	}
	free(p);
	return text;
}

/*
 * One option's value v into s, with the checks the value gets on its own
 * (what needs two options together is bench_sweep_check's).  The one parser
 * of each option, for the command line and for every line of a plan alike.
 */
static void sweep_parse_value(int k, const char *v, const struct topo *topo, struct bench_sweep *s)
{
	char err[256];

	switch (k) {
	case SO_ALGO:
		s->algo = sweep_parse_algos(v, &s->nr_algos);
		break;
	case SO_WORKLOAD:
		s->workload = (const char **)sweep_split("workload", v, ',', &s->nr_workloads);
		for (int i = 0; i < s->nr_workloads; i++)
			bench_parse_workload(s->workload[i]);
		break;
	case SO_SHAPE:
		s->shape = sweep_split("shape", v, ',', &s->nr_shapes);
		for (int i = 0; i < s->nr_shapes; i++) {
			struct bench_shape shape;
			const char *why;

			if (bench_shape_parse(s->shape[i], &shape, &why))
				die("bad value '%s' in --shape '%s' (%s)", s->shape[i], v, why);
			bench_shape_free(&shape);
		}
		break;
	case SO_THREADS:
		s->threads = sweep_parse_threads(v, topo, &s->nr_threads);
		break;
	case SO_PLACEMENT:
		s->placement = sweep_parse_placements(v, topo, &s->nr_placements);
		break;
	case SO_REPS:
		s->reps = bench_parse_int("reps", v, 1, 1000);
		break;
	case SO_DURATION:
		s->duration_ms = bench_parse_int("duration-ms", v, 1, 3600 * 1000);
		break;
	case SO_WARMUP:
		s->warmup_ms = bench_parse_int("warmup-ms", v, 0, 3600 * 1000);
		break;
	case SO_READERS:
		s->readers = bench_parse_int("readers", v, 1, BENCH_SWEEP_MAX_THREADS);
		break;
	case SO_FLUSH:
		s->flush_period_ms = bench_parse_int("flush-period-ms", v, 1, 3600 * 1000);
		break;
	case SO_WORK_NS:
		s->work_ns = bench_parse_int("work-ns", v, 0, 10 * 1000 * 1000);
		break;
	case SO_WORK_ITERS:
		s->work_iters = bench_parse_int("work-iters", v, 0, 1000 * 1000 * 1000);
		break;
	case SO_SLOTS:
		s->slots = bench_parse_int("slots", v, 1, 8192);
		break;
	case SO_OPTIONS:
		bench_check_utf8("--options", v);
		s->options = bench_options_normalize(v);
		break;
	case SO_EVENTS: {
		struct pmu_event_spec *spec = NULL;
		int nr;

		pmu_init();
		if (bench_events_parse(v, &spec, &nr, err, sizeof(err)))
			die("%s", err);
		free(spec);
		s->events = v;
		break;
	}
	case SO_NOTE:
		bench_check_utf8("--note", v);
		s->note = v;
		break;
	case SO_OUT:
		if (!*v)
			die("bad value '' for --out (want a file name)");
		s->out = v;
		break;
	}
}

static void sweep_free_lists(struct bench_sweep *s)
{
	for (int i = 0; i < s->nr_workloads; i++)
		free((char *)s->workload[i]);
	for (int i = 0; i < s->nr_shapes; i++)
		free(s->shape[i]);
	for (int i = 0; i < s->nr_placements; i++)
		free(s->placement[i]);
	free(s->workload);
	free(s->shape);
	free(s->placement);
	free(s->threads);
	free(s->algo);
}

/*
 * The values of the options (command line over plan) into s, every list
 * parsed and checked; then each plan line the command line overrode, by the
 * same parser (a plan's "threads 0" is bad input whatever overrides it: the
 * plan's text goes into every result line, so all of it has been checked).
 * A value from the plan that is bad names its FILE:LINE.
 */
static struct topo *sweep_from_values(const char *const val[SO_NR], const struct sweep_plan *plan,
				      const int from_cli[SO_NR], struct bench_sweep *s)
{
	static const char *const defaults[SO_NR] = { [SO_WORKLOAD] = "update", [SO_PLACEMENT] = "compact" };
	/* a plan without --shape plans run's default shape: where threads sit does not depend on it */
	static const char *const plan_defaults[SO_NR] = { [SO_WORKLOAD] = "update", [SO_PLACEMENT] = "compact",
							  [SO_SHAPE] = "chain:8" };
	const char *const *dflt = s->dry_run ? plan_defaults : defaults;
	struct bench_sweep over = { 0 };
	struct topo *topo;
	char err[256];

	/* --out first, before the topology is loaded (bench_need saw it given, but for --dry-run) */
	bench_die_where(from_cli[SO_OUT] ? NULL : plan->where[SO_OUT]);
	if (val[SO_OUT])
		sweep_parse_value(SO_OUT, val[SO_OUT], NULL, s);
	bench_die_where(NULL);
	/* the lists (--threads nodes, --placement list:) are read against the machine planned for */
	topo = topo_load(s->topology, err, sizeof(err));
	if (!topo)
		die("%s", err);
	if (topo_is_synthetic(topo) && !s->dry_run) {
		topo_free(topo);
		die("--topology '%s' describes another machine: plan it with --dry-run", s->topology);
	}
	for (int k = 0; k < SO_NR; k++) {
		bench_die_where(from_cli[k] ? NULL : plan->where[k]);
		if (k != SO_OUT && (val[k] || dflt[k]))
			sweep_parse_value(k, val[k] ? val[k] : dflt[k], topo, s);
	}
	for (int k = 0; k < SO_NR; k++) {
		bench_die_where(plan->where[k]);
		if (from_cli[k] && plan->val[k])
			sweep_parse_value(k, plan->val[k], topo, &over);
	}
	/*
	 * --options go with the algorithms: checked here against those that run,
	 * so that a plan's line is named (bench_sweep_check checks again, for
	 * recommend, and says the --flush-period-ms note); an overridden line
	 * against the algorithms its plan names.
	 */
	if (s->options) {
		bench_die_where(from_cli[SO_OPTIONS] ? NULL : plan->where[SO_OPTIONS]);
		bench_check_algo_options(s->options, 0, s->algo, s->nr_algos);
	}
	if (from_cli[SO_OPTIONS] && plan->val[SO_OPTIONS]) {
		bench_die_where(plan->where[SO_OPTIONS]);
		if (from_cli[SO_ALGO] && plan->val[SO_ALGO])
			bench_check_algo_options(over.options, 0, over.algo, over.nr_algos);
		else
			bench_check_algo_options(over.options, 0, s->algo, s->nr_algos);
	}
	bench_die_where(NULL);
	sweep_free_lists(&over);
	return topo;
}

/* --shard I/N: whole decimals, 1 <= I <= N <= 100000, or die naming the value. */
static void sweep_parse_shard(const char *v, int *i, int *n)
{
	long a = 0, b = 0;
	const char *p = v;

	if (!v) {
		*i = *n = 1;
		return;
	}
	for (; *p >= '0' && *p <= '9' && a <= 100000; p++)
		a = a * 10 + (*p - '0');
	if (p == v || *p++ != '/' || !(*p >= '0' && *p <= '9'))
		goto bad;
	for (; *p >= '0' && *p <= '9' && b <= 100000; p++)
		b = b * 10 + (*p - '0');
	if (*p || a < 1 || b < 1 || a > b || b > 100000)
		goto bad;
	*i = (int)a;
	*n = (int)b;
	return;
bad:
	die("bad value '%s' for --shard (want I/N, 1 <= I <= N <= 100000: 2/4)", v);
}

/*
 * --configs FILE [--shard I/N] --out DIR: the configurations are the
 * file's, so the options that make them are refused with it (a second
 * source of the same thing); what measures them is the sweep's engine.
 */
static int sweep_configs(struct bench_sweep *s, const char *const val[SO_NR], const char *shard)
{
	for (int k = 0; k < SO_NR; k++)
		if (val[k] && k != SO_OUT)
			die("--%s is not taken with --configs: the configurations are the file's", sweep_opt_names[k]);
	if (s->plan_file || s->dry_run || s->topology)
		die("--%s is not taken with --configs: the configurations are the file's",
		    s->plan_file ? "plan" : s->dry_run ? "dry-run" : "topology");
	if (!val[SO_OUT])
		die("sweep --configs needs --out DIR (a folder: the shard writes shard-I-of-N.jsonl there)");
	if (!*val[SO_OUT])
		die("bad value '' for --out (want a folder)");
	sweep_parse_shard(shard, &s->shard, &s->nr_shards);
	s->out = val[SO_OUT];
	return bench_sweep_exec_shard(s);
}

static const char *const sweep_help =
	"usage: ctrbench sweep --algo LIST --shape LIST --threads LIST --out FILE [options]\n"
	"\n"
	"The cross product of the lists, one run per configuration (a child process), each result\n"
	"appended to --out as it finishes (docs/sweeps.md).\n"
	"\n"
	"  --algo LIST|all          algorithms (required)\n"
	"  --shape LIST             chain:D,tree:AxB,... (required; --dry-run: default chain:8)\n"
	"  --threads LIST           N, A..B or nodes, comma-separated (required)\n"
	"  --out FILE               the results file (required; --dry-run writes none)\n"
	"  --resume                 skip what --out already holds (default: refuse a non-empty --out)\n"
	"  --force                  run configurations that need more than MemAvailable\n"
	"  --workload LIST          any of " BENCH_WORKLOAD_LIST ", comma-separated (default update)\n"
	"  --placement LIST         as run --placement, ';' between them with a list: (default compact)\n"
	"  --plan FILE              options one per line; the command line wins (default none)\n"
	"  --dry-run                print the plan and its estimate, measure nothing (default off)\n"
	"                           (each point's CPUs and NUMA nodes; no file written, --out not needed)\n"
	"  --format table|json      with --dry-run: json writes each configuration as a line, its id\n"
	"                           and identity fields, for --configs (default table)\n"
	"  --configs FILE           run the configurations of a --dry-run --format json file (default\n"
	"                           none; no --algo, --shape, ... with it; --out is then a folder)\n"
	"  --shard I/N              with --configs: shard I of N (default 1/1): the ids at positions\n"
	"                           [(I-1)M/N, IM/N) of the M sorted by id, into DIR/shard-I-of-N.jsonl\n"
	"  --topology SPEC          with --dry-run, the machine to plan for (default: this machine)\n"
	"                           (a spec, an XML file or a layout: ctrbench topo --layouts)\n"
	"  --reps K                 (default 5)\n"
	"  --readers R              readers workload (default 1)\n"
	"  --duration-ms MS         (default 1000)\n"
	"  --warmup-ms MS           (default 200)\n"
	"  --options O              (default none)\n"
	"  --flush-period-ms MS     (default the algorithm's)\n"
	"  --work-ns NS             (default 0)\n"
	"  --work-iters N           update: dependent adds per 1024 ops (default 0)\n"
	"  --slots N                per-CPU slots of every run, >= each thread count (default run's:\n"
	"                           this machine's possible CPUs, or the threads if more)\n"
	"  --events LIST|bounce     (default none)\n"
	"  --note TEXT              (default none)\n"
	"\n"
	"example: ctrbench sweep --algo all --shape chain:2,chain:8 --threads 1..2 --out r.jsonl --resume\n"
	"         ctrbench sweep --algo all --shape chain:8 --threads 1..2 --dry-run --format json > c.jsonl\n"
	"         ctrbench sweep --configs c.jsonl --shard 2/4 --out results/ --resume\n";

/* The command line into val/from_cli (the options a plan takes too) and s (those it does not). */
static void sweep_args(int argc, char **argv, const char *val[SO_NR], int from_cli[SO_NR],
		       struct bench_sweep *s, const char **shard)
{
	struct option opts[SO_NR + 9] = { { 0 } };
	const char *format = NULL;
	int opt;

	for (int k = 0; k < SO_NR; k++)
		opts[k] = (struct option){ sweep_opt_names[k], required_argument, NULL, k };
	opts[SO_NR] = (struct option){ "plan", required_argument, NULL, SO_PLAN };
	opts[SO_NR + 1] = (struct option){ "resume", no_argument, NULL, SO_RESUME };
	opts[SO_NR + 2] = (struct option){ "force", no_argument, NULL, SO_FORCE };
	opts[SO_NR + 3] = (struct option){ "topology", required_argument, NULL, SO_TOPOLOGY };
	opts[SO_NR + 4] = (struct option){ "dry-run", no_argument, NULL, SO_DRY_RUN };
	opts[SO_NR + 5] = (struct option){ "format", required_argument, NULL, SO_FORMAT };
	opts[SO_NR + 6] = (struct option){ "configs", required_argument, NULL, SO_CONFIGS };
	opts[SO_NR + 7] = (struct option){ "shard", required_argument, NULL, SO_SHARD };
	opterr = 0;
	optind = 1;
	while ((opt = bench_getopt(argc, argv, opts)) != -1) {
		if (opt >= 0 && opt < SO_NR) {
			val[opt] = optarg;
			from_cli[opt] = 1;
		} else if (opt == SO_PLAN) {
			s->plan_file = optarg;
		} else if (opt == SO_RESUME) {
			s->resume = 1;
		} else if (opt == SO_FORCE) {
			s->force = 1;
		} else if (opt == SO_TOPOLOGY) {
			s->topology = optarg;
		} else if (opt == SO_DRY_RUN) {
			s->dry_run = 1;
		} else if (opt == SO_FORMAT) {
			format = optarg;
		} else if (opt == SO_CONFIGS) {
			s->configs_file = optarg;
		} else if (opt == SO_SHARD) {
			*shard = optarg;
		} else {
			bench_die_getopt(opt, argv);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	if (format && strcmp(format, "table") && strcmp(format, "json"))
		die("bad value '%s' for --format (want table or json)", format);
	if (format && !s->dry_run)
		die("--format %s needs --dry-run (a sweep writes JSON lines to --out)", format);
	s->format_json = format && !strcmp(format, "json");
	if (*shard && !s->configs_file)
		die("--shard %s needs --configs FILE (the configurations it splits)", *shard);
}

int bench_cmd_sweep(int argc, char **argv)
{
	const char *val[SO_NR] = { 0 }, *shard = NULL;
	int from_cli[SO_NR] = { 0 };
	struct bench_sweep s = { .reps = 5, .duration_ms = 1000, .warmup_ms = 200, .readers = -1 };
	struct sweep_plan plan = { { 0 }, { 0 } };
	struct topo *topo;
	int ret;

	bench_help(argc, argv, sweep_help);
	sweep_args(argc, argv, val, from_cli, &s, &shard);
	if (s.configs_file)
		return sweep_configs(&s, val, shard);
	if (s.plan_file)
		s.plan_text = sweep_read_plan(s.plan_file, &plan);
	for (int k = 0; k < SO_NR; k++)
		if (!from_cli[k])
			val[k] = plan.val[k];
	{
		static const char *const need[] = { "--algo", "--shape", "--threads", "--out FILE" };
		const int missing[] = { !val[SO_ALGO], !val[SO_SHAPE] && !s.dry_run, !val[SO_THREADS], !val[SO_OUT] && !s.dry_run };

		bench_need("sweep", need, missing, 4, "(ctrbench sweep --help)");
	}
	topo = sweep_from_values(val, &plan, from_cli, &s);
	bench_sweep_check(&s);
	if (s.dry_run && s.format_json) {
		bench_sweep_configs(&s, topo, stdout);
		ret = 0;
	} else if (s.dry_run) {
		bench_sweep_plan(&s, topo, stdout);
		ret = 0;
	} else {
		ret = bench_sweep_exec(&s);
	}
	topo_free(topo);
	for (int k = 0; k < SO_NR; k++) {
		free((char *)plan.val[k]);
		free(plan.where[k]);
	}
	sweep_free_lists(&s);
	free(s.plan_text);
	return ret;
}
