/* SPDX-License-Identifier: MIT */
/*
 * project.c - `ctrbench scenario NAME --project TOPOLOGY`: the seed's
 * table from the coherence projection (docs/projection.md), beside the
 * figures the seed posted (docs/seeds/tables.csv, read at run time).  Each
 * scenario's projected configuration sits in its own file beside its
 * measured one (struct scn.project).  Every projected figure is labelled;
 * nothing is scaled to meet the posted ones: the same model and calibration
 * for every row and scenario.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../topology/topo.h"
#include "../cli.h"
#include "../project.h"
#include "scenario.h"

/* The scenarios that have a projection, for the refusal. */
static const char *scn_projected_names(char *buf, size_t len)
{
	*buf = 0;
	for (int i = 0; i < scn_nr; i++)
		if (scn_list[i]->project)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", *buf ? ", " : "", scn_list[i]->name);
	return buf;
}

enum bench_workload scn_proj_workload(enum bench_workload w)
{
	/* a store is a charge with its limit check and a second stat: the charge is what the model has */
	return proj_models_workload(w) ? w : w == BENCH_STORE ? BENCH_CHARGE : w;
}

/* The measured run's read node in the model's terms (a node, a leaf in turn, its own); -ENOTSUP and why if none. */
static int scn_proj_read_node(int node, int *out, char *err, size_t errlen)
{
	if (node >= 0 || node == BENCH_READ_LEAF || node == BENCH_READ_OWN) {
		*out = node >= 0 ? node : node == BENCH_READ_OWN ? PROJ_READ_OWN : PROJ_READ_LEAVES;
		return 0;
	}
	snprintf(err, errlen, "the model reads a given node, the leaves in turn or its own, not read_node random");
	return -ENOTSUP;
}

/*
 * The options the model is given for c: the row's, then each of the
 * scenario's additions the algorithm takes (asked with ctr_options_check,
 * never by name): update=memcg, as scn_measure_cols gives it to the
 * measured columns, and the kernel's lock behaviour (SCN_PROJ_KERNEL).
 * Into buf; returns buf, or c->options where nothing is added.
 */
/* Whether the options list opts sets any key that the list add sets ("k=v,k2=v2"). */
static int scn_opts_share_key(const char *opts, const char *add)
{
	for (const char *k = add; *k; k += strcspn(k, ",") + !!k[strcspn(k, ",")]) {
		const size_t kl = strcspn(k, "=,");

		for (const char *o = opts; *o; o += strcspn(o, ",") + !!o[strcspn(o, ",")])
			if (strcspn(o, "=,") == kl && !strncmp(o, k, kl))
				return 1;
	}
	return 0;
}

static const char *scn_proj_options(const struct ctr_algo *a, const char *options, char *buf, size_t len)
{
	static const char *const add[] = { SCN_RSTAT_UPDATE, SCN_PROJ_KERNEL, SCN_PROJ_LOCK };
	char why[256];

	snprintf(buf, len, "%s", options ? options : "");
	for (size_t i = 0; a && i < sizeof(add) / sizeof(add[0]); i++) {
		const size_t at = strlen(buf);

		/* the row's own choice stands (shrinker-count's lockkind=mutex) */
		if (scn_opts_share_key(buf, add[i]))
			continue;
		/* appended in place, taken back where the algorithm refuses it (or it does not fit) */
		if ((size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", add[i]) >= len - at ||
		    ctr_options_check(a, buf, why, sizeof(why)))
			buf[at] = 0;
	}
	return *buf || options ? buf : NULL;
}

/* Into names: those of algos[0..n) that take the options opt (asked of each, never by name), ", "-separated. */
static const char *scn_proj_takers(const char *const *algos, int n, const char *opt, char *names, size_t len)
{
	char why[256];

	*names = 0;
	for (int i = 0; i < n; i++) {
		const struct ctr_algo *a = ctr_algo_find(algos[i]);

		if (a && !ctr_options_check(a, opt, why, sizeof(why)) && !strstr(names, algos[i]))
			snprintf(names + strlen(names), len - strlen(names), "%s%s", *names ? ", " : "", algos[i]);
	}
	return names;
}

void scn_proj_kernel_note(const char *const *algos, int n)
{
	char names[256];

	if (*scn_proj_takers(algos, n, SCN_PROJ_KERNEL, names, sizeof(names)))
		printf("# the kernel's flush: %s for %s (%s)\n", SCN_PROJ_KERNEL, names, SCN_PROJ_KERNEL_WHY);
	printf("# the kernel's scheduling: %s\n", SCN_PROJ_PREEMPT_WHY);
	if (*scn_proj_takers(algos, n, SCN_PROJ_LOCK, names, sizeof(names)))
		printf("# the kernel's flush lock: %s for %s where the row names no lockkind (%s)\n", SCN_PROJ_LOCK,
		       names, SCN_PROJ_LOCK_WHY);
}

/* The configuration's own fields, after the cell, on every line (projected or not). */
static int scn_project_cfg_json(json_t *o, const struct scn_proj_cfg *c)
{
	return json_object_set_new(o, "work_ns", json_integer(c->work_ns)) ||
	       json_object_set_new(o, "read_interval_ns",
				   json_integer(c->workload == BENCH_READERS ? c->read_interval_ns : 0)) ||
	       json_object_set_new(o, "limit_headroom",
				   json_real(bench_workload_charges(scn_proj_workload(c->workload)) ?
					     c->limit_headroom : 0));
}

/* c's JSON line (--format json): as `ctrbench project` writes it, with the scenario's cell after it. */
static void scn_project_json(const struct scn_proj *p, const struct scn_proj_cfg *c, const struct proj_config *pc,
			     const struct proj_result *res, int pus_used, double secs)
{
	const struct bench_proj_line l = {
		.algo = c->algo, .workload = bench_workload_name(pc->workload), .shape = c->shape,
		.placement = c->placement ? c->placement : "compact", .threads = pc->threads, .readers = pc->readers,
		.topo = p->topo, .cal = p->cal, .slots = pc->slots, .nr_stats = pc->nr_stats, .seed = (long)pc->seed,
		.jitter = pc->jitter, .slice_ms = pc->slice_ns / 1e6, .preempt_none = pc->preempt_none,
		.nr_pus_used = pus_used,
	};
	json_t *cell = json_pack("{s:s,s:s,s:s,s:s}", "scenario", p->s->name, "row", c->row ? c->row : "",
				 "column", c->column ? c->column : "", "options", pc->options ? pc->options : "");

	if (!cell || scn_project_cfg_json(cell, c))
		die("scenario: out of memory");
	bench_proj_print_json(p->json, &l, res, secs, cell);
}

/*
 * The line of a configuration not projected: the cell, what it would have
 * run and why not (the model's refusal or failure, err), flushed as the
 * projected lines are, so the lines say which cell is missing.
 */
static void scn_project_refused_json(const struct scn_proj *p, const struct scn_proj_cfg *c, const char *options,
				     const char *err)
{
	json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:s,s:s,s:s}", "kind", "not projected",
			      "scenario", p->s->name, "row", c->row ? c->row : "", "column",
			      c->column ? c->column : "", "algo", c->algo,
			      "workload", bench_workload_name(scn_proj_workload(c->workload)), "shape", c->shape,
			      "threads", c->threads, "readers", c->workload == BENCH_READERS ? c->readers : 0,
			      "placement", c->placement ? c->placement : "compact", "topology", topo_spec(p->topo),
			      "options", options ? options : "");
	char *text;

	if (!o || scn_project_cfg_json(o, c) || json_object_set_new(o, "nr_stats", json_integer(SCN_MEMCG_NR_STATS)) ||
	    json_object_set_new(o, "reason", json_string(err)))
		die("scenario: out of memory");
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!text)
		die("scenario: out of memory");
	fprintf(p->json, "%s\n", text);
	fflush(p->json);
	free(text);
	json_decref(o);
}

int scn_project_run(const struct scn_proj *p, const struct scn_proj_cfg *c, struct proj_result *res, char *err,
		    size_t errlen)
{
	const int n = c->threads + (c->workload == BENCH_READERS ? c->readers : 0);
	const struct ctr_algo *a = ctr_algo_find(c->algo);
	struct proj_config pc = { 0 };
	struct bench_shape s = { 0 };
	char opt[256], why[256];
	const char *bad;
	int *pus = NULL, wrapped, ret;
	struct timespec t0, t1;

	pc.options = scn_proj_options(a, c->options, opt, sizeof(opt));
	if (!a) {
		snprintf(err, errlen, "unknown algorithm '%s'", c->algo);
		ret = -EINVAL;
		goto out;
	}
	if ((ret = scn_proj_read_node(c->workload == BENCH_READERS ? c->read_node : 0, &pc.read_node, err, errlen)))
		goto out;
	if (bench_shape_parse(c->shape, &s, &bad)) {
		snprintf(err, errlen, "bad shape '%s' (%s)", c->shape, bad);
		ret = -EINVAL;
		goto out;
	}
	pus = calloc((size_t)n, sizeof(int));
	if (!pus)
		die("out of memory");
	/* more threads than PUs wrap round the placement: the model's scheduler time-shares them */
	if ((ret = topo_place(p->topo, c->placement ? c->placement : "compact", n, pus, &wrapped, why,
			      sizeof(why)))) {
		snprintf(err, errlen, "%s", why);
		goto out;
	}
	pc.algo = c->algo;
	pc.workload = scn_proj_workload(c->workload);
	pc.nr_nodes = s.nr_nodes;
	pc.parent = s.parent;
	pc.nr_leaves = s.nr_leaves;
	pc.leaves = s.leaves;
	pc.depth = s.depth;
	pc.threads = c->threads;
	pc.readers = c->workload == BENCH_READERS ? c->readers : 0;
	pc.topo = p->topo;
	pc.pus = pus;
	pc.flush_period_ms = c->flush_period_ms;
	pc.work_ns = c->work_ns;
	pc.read_interval_ns = c->read_interval_ns;
	pc.ops = c->ops;
	pc.reads = c->reads;
	pc.warmup_ops = c->warmup;
	pc.limit_headroom = bench_workload_charges(pc.workload) ? c->limit_headroom : 0;
	pc.calib = p->cal;
	/* the modelled machine's possible CPUs, as run's --slots default (readers own none: proj.h) */
	pc.slots = topo_nr_pus(p->topo) > c->threads ? topo_nr_pus(p->topo) : c->threads;
	pc.seed = BENCH_PROJ_SEED;
	pc.jitter = 1;
	pc.nr_stats = SCN_MEMCG_NR_STATS;
	pc.slice_ns = BENCH_PROJ_SLICE_MS * 1e6;
	pc.preempt_none = SCN_PROJ_PREEMPT_NONE;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = proj_run(&pc, res, err, errlen);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!ret && p->json)
		scn_project_json(p, c, &pc, res, bench_proj_pus_used(pus, n),
				 (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
out:
	if (ret && p->json)
		scn_project_refused_json(p, c, pc.options, err);
	free(pus);
	bench_shape_free(&s);	/* zeroed or parsed: either frees */
	return ret;
}

int scn_project_main(const struct scn *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "project", required_argument, NULL, 'p' },
		{ "calibration", required_argument, NULL, 'c' },
		{ "ops", required_argument, NULL, 'n' },
		{ "readers", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spec = NULL, *calib = NULL;
	struct proj_calib cal;
	struct bench_seeds seeds = { 0 };
	struct scn_proj p = { .s = s, .ops = 300, .cal = &cal, .seeds = &seeds };
	struct topo *topo;
	char err[256];
	int opt, json = 0;

	/*
	 * jansson's hash seed, fixed before any JSON object exists: drawn at
	 * random, it changes the harness's heap between one projection and the
	 * next under --format json, and the model's figures depend on where
	 * libctr's allocations land (project/rt.c: proj_malloc is malloc), so
	 * the same command gave other figures from run to run.
	 */
	json_object_seed(1);
	opterr = 0;
	optind = 2;
	while ((opt = bench_getopt(argc, argv, opts)) != -1) {
		switch (opt) {
		case 'p': spec = optarg; break;
		case 'c': calib = optarg; break;
		case 'n': p.ops = bench_parse_int("ops", optarg, 10, 1000000); break;
		case 'r': p.readers = bench_parse_int("readers", optarg, 1, 100000); break;
		case 'f': json = bench_parse_table_json("scenario --project", optarg); break;
		default: bench_die_getopt(opt, argv);
		}
	}
	if (optind < argc)
		die("scenario %s --project: unexpected argument '%s' (takes --calibration, --ops, --readers and --format)",
		    s->name, argv[optind]);
	if (!s->project)
		die("scenario %s: no projection (%s)", s->name, scn_projected_names(err, sizeof(err)));
	if (p.readers && !s->project_readers)
		die("scenario %s --project: bad option '--readers %d': its projection has no readers to count", s->name,
		    p.readers);
	if (calib ? proj_calib_load(&cal, calib, err, sizeof(err)) : (proj_calib_default(&cal), 0))
		die("scenario: %s", err);
	topo = topo_load(spec, err, sizeof(err));
	if (!topo)
		die("scenario: %s", err);
	p.topo = topo;
	bench_seeds_load(&seeds);
	if (json) {
		/*
		 * The lines on stdout, the table (which each scenario prints as it
		 * projects) into /dev/null: one definition of each projection, its
		 * table code unchanged, and nothing on stdout but JSON lines.
		 */
		const int fd = dup(STDOUT_FILENO);

		if (fd < 0 || !(p.json = fdopen(fd, "w")) || !freopen("/dev/null", "w", stdout))
			die("scenario: --format json: cannot set stdout aside: %s", strerror(errno));
	}
	printf("# scenario %s, PROJECTED on %s (%d PUs): model, not measured (docs/projection.md)\n# calibration: %s\n",
	       s->name, topo_spec(topo), topo_nr_pus(topo), cal.source);
	proj_capacity_print(topo, &cal);
	printf("# nr_stats %d (%s); slots %d (the modelled machine's possible CPUs; one per thread where there are more threads)\n",
	       SCN_MEMCG_NR_STATS, SCN_MEMCG_NR_STATS_SRC, topo_nr_pus(topo));
	if (seeds.why)	/* the posted columns then say nan or - */
		printf("# seed figures: %s %s (set CTRBENCH_SEEDS to tables.csv): none shown\n", seeds.path, seeds.why);
	s->project(&p);
	if (p.json && fclose(p.json))
		die("scenario: --format json: writing stdout: %s", strerror(errno));
	bench_seeds_free(&seeds);
	topo_free(topo);
	return 0;
}
