/* SPDX-License-Identifier: MIT */
/*
 * engine.c - what every scenario shares (scenario.h): the registry
 * (list.h), the columns chosen by capability, the defaults, the planning
 * pass, measuring through the executor (bench/exec.h) with --resume, the
 * raw results file, and --from (the tables from a results file, nothing
 * measured).
 *
 * A scenario is a list of configurations; each runs every algorithm of the
 * table (reps interleaved) and prints its row(s) as soon as it is measured,
 * so an interrupted scenario has shown, and written, all it finished.  What
 * the seeds had and this machine has not (80-384 CPUs, a PMU, a kernel's
 * osq_lock) is said in the header, never made up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "../cli.h"
#include "../outfile.h"
#include "../progress.h"
#include "../record.h"
#include "../schema.h"
#include "../setup.h"
#include "../../topology/topo.h"
#include "scenario.h"
#include "list.h"

#define SCN_PTR(n) &scn_##n,
const struct scn *const scn_list[] = { SCN_LIST(SCN_PTR) };
const int scn_nr = (int)(sizeof(scn_list) / sizeof(scn_list[0]));

const struct scn *scn_find(const char *name)
{
	for (int i = 0; i < scn_nr; i++)
		if (!strcmp(name, scn_list[i]->name))
			return scn_list[i];
	return NULL;
}

/* --- the columns: chosen by what they can do ----------------------------- */

/* The reader-side flush strategies (read=) the seed compared, in its order. */
const char *const scn_read_strategies[SCN_NR_STRATEGIES] = { "spin", "mutex", "sem", "batch" };

int scn_takes(const struct bench_algo *ba, const char *opt)
{
	char err[256];

	return !ctr_options_check(ba->algo, opt, err, sizeof(err));
}

/* Whether ba takes read=<strategy k>. */
int scn_takes_strategy(const struct bench_algo *ba, int k)
{
	char opt[32];

	snprintf(opt, sizeof(opt), "read=%s", scn_read_strategies[k]);
	return scn_takes(ba, opt);
}

unsigned scn_algo_caps(const struct bench_algo *ba)
{
	unsigned caps = 0;

	for (int k = 0; k < SCN_NR_STRATEGIES; k++)
		if (scn_takes_strategy(ba, k))
			caps |= SCN_CAP_READ_STRATEGY;
	if (scn_takes(ba, SCN_RSTAT_UPDATE))
		caps |= SCN_CAP_MEMCG_UPDATE;
	return caps;
}

/*
 * Each column against what the scenario's rows need, said in one line per
 * algorithm before anything is measured: one named in --algo that can run
 * none of them is bad input (exit 2); one that can run some runs those;
 * `--algo all` and the defaults leave out whoever lacks the capability.
 */
void scn_check_columns(struct scn_ctx *c)
{
	const int named = c->user_algos && !c->algo_all;
	int n = 0;

	for (int i = 0; i < c->nr_algos; i++) {
		const struct bench_algo *ba = c->algos[i];
		const int lacks = (c->s->needs & ~scn_algo_caps(ba)) != 0;
		const int keep = !lacks || (c->s->partial && !c->algo_all);

		if (lacks && named && !c->s->partial)
			die("scenario %s: %s cannot run it: it does not take %s", c->s->name, ba->name,
			    c->s->needs_what);
		if (lacks)
			fprintf(stderr, "ctrbench: scenario %s: %s does not take %s: %s\n", c->s->name, ba->name,
				c->s->needs_what, keep ? c->s->partial_what : "left out");
		if (keep)
			c->algos[n++] = ba;
	}
	if (!n && c->nr_algos)
		die("scenario %s: no algorithm of --algo takes %s", c->s->name, c->s->needs_what);
	c->nr_algos = n;
}

/* The default columns: the seed's designs (a)-(d) in its order, then the rest of the suite in list order. */
static void scn_default_algos(struct scn_ctx *c)
{
	const int nseed = (int)(sizeof(scn_designs) / sizeof(scn_designs[0]));

	for (int i = 0; i < nseed; i++)
		c->algos[c->nr_algos++] = bench_algo_find(scn_designs[i].algo);
	for (int i = 0; i < bench_nr_algos; i++)
		if (!scn_seed_col(bench_algos[i].name) && !bench_algos[i].baseline)
			c->algos[c->nr_algos++] = &bench_algos[i];
}

/* A fresh run configuration on the machine set up once. */
struct bench_config scn_config(const struct scn_ctx *c, enum bench_workload w, const char *shape,
				      int threads)
{
	struct bench_config cfg = c->base;
	const char *why;

	cfg.workload = w;
	cfg.threads = threads;
	cfg.readers = 0;
	cfg.read_node = BENCH_READ_RANDOM;
	cfg.duration_ms = c->duration_ms;
	cfg.warmup_ms = c->warmup_ms;
	cfg.flush_period_ms = c->flush_period_ms;
	cfg.reps = c->reps;
	cfg.pus = NULL;
	cfg.slot_node = NULL;
	cfg.slot_l3 = NULL;
	cfg.slots = c->slots > threads ? c->slots : c->slots ? threads : 0;
	cfg.limit_headroom = bench_workload_charges(w) ? c->limit_headroom : 0;
	if (bench_shape_parse(shape, &cfg.shape, &why))
		die("scenario %s: bad shape '%s' (%s)", c->s->name, shape, why);
	return cfg;
}

/*
 * Summaries of algos[0..n) in cfg into c->sums through the executor
 * (bench/exec.h): with --resume, what --out holds is read back (whole
 * rep goes to --out as it is measured.
 */
/* --from: every identity but the build's (a file is read by later builds than the one that wrote it). */
static int scn_from_key(int f)
{
	return bench_fields[f].ident != BI_NONE && bench_fields[f].ident != BI_BUILD;
}

/* --from: the summary of ba in cfg from the file's lines (the last that matches), else 0. */
static int scn_from_file(struct scn_ctx *c, const struct bench_config *cfg, const struct bench_algo *ba,
			 struct bench_summary *s)
{
	json_t *id = bench_record_ident(cfg, c->pus, ba);
	char *want = bench_line_key(id, scn_from_key);
	int found = 0;

	json_decref(id);
	for (int i = c->done.n - 1; i >= 0 && !found; i--) {
		json_t *o = c->done.line[i].obj;
		char *key = bench_line_key(o, scn_from_key);

		found = !strcmp(key, want) && json_integer_value(json_object_get(o, "reps_done")) >= c->reps &&
			!bench_record_parse(o, s);
		free(key);
	}
	free(want);
	return found;
}

static int scn_run_or_reuse(struct scn_ctx *c, struct bench_config *cfg, const struct bench_algo **algos, int n)
{
	char label[300];
	struct bench_exec_group g = { .cfg = cfg, .algos = algos, .nr_algos = n, .label = label,
				      .what = cfg->note, .sums = c->sums };
	int stop;

	if (c->from) {	/* measure nothing: each cell from the file, or "not run" */
		bench_setup_threads(cfg);
		for (int i = 0; i < n; i++) {
			memset(&c->sums[i], 0, sizeof(c->sums[i]));
			if (scn_from_file(c, cfg, algos[i], &c->sums[i]))
				c->reused++;
			else
				c->missing++;
		}
		return 0;
	}
	if (!c->exec.name) {
		c->exec = (struct bench_exec){ .name = "scenario", .journal = -1, .nr_cpus = c->pus,
					       .resume = c->resume ? &c->done : NULL };
		if (c->raw.fp) {
			fflush(c->raw.fp);
			c->exec.journal = fileno(c->raw.fp);
			c->exec.journal_name = c->raw_name;
		} else if (!c->table) {
			c->exec.out = &c->raw;	/* json on stdout */
		}
	}
	snprintf(label, sizeof(label), "· %s", cfg->note);
	stop = bench_exec(&c->exec, &g, 1);
	c->reused = c->exec.reused;
	c->raw.write_failed |= c->exec.write_failed;
	return stop;
}

/*
 * Run cfg for algos[0..n), note saying which row it is, summaries into
 * c->sums.  Returns 0, or 1 when a signal stopped it (the caller stops too).
 */
int scn_measure(struct scn_ctx *c, struct bench_config *cfg, const struct bench_algo **algos,
		       int n, const char *note)
{
	char buf[256];
	int stop;

	if (c->counting) {	/* the planning pass: count, measure nothing */
		c->planned += n * c->reps;
		memset(c->sums, 0, sizeof(*c->sums) * (size_t)n);
		return 0;
	}
	snprintf(buf, sizeof(buf), "scenario %s: %s", c->s->name, note);
	cfg->note = buf;
	stop = scn_run_or_reuse(c, cfg, algos, n);
	for (int i = 0; i < n; i++)
		c->failed |= (!c->sums[i].k && !c->from) || (c->sums[i].k && c->sums[i].med.verify == 0);
	stop = stop && bench_was_interrupted();
	free(cfg->pus);
	free(cfg->slot_node);
	free(cfg->slot_l3);
	cfg->pus = cfg->slot_node = cfg->slot_l3 = NULL;
	cfg->note = NULL;
	return stop;
}

/*
 * scn_measure of every column in cfg: those that take add (SCN_RSTAT_UPDATE
 * and what else the scenario's kernel had) with it added to cfg's options,
 * the others as cfg is, in two measurements whose summaries land in c->sums
 * in column order.  Returns scn_measure's stop.
 */
int scn_measure_cols_with(struct scn_ctx *c, struct bench_config *cfg, const char *note, const char *add)
{
	const struct bench_algo *part[2][BENCH_MAX_ALGOS];
	struct bench_summary *got[2];
	int idx[2][BENCH_MAX_ALGOS], n[2] = { 0, 0 }, stop = 0;
	const char *base = cfg->options;
	char opt[128];

	snprintf(opt, sizeof(opt), "%s%s%s", base ? base : "", base ? "," : "", add);
	for (int i = 0; i < c->nr_algos; i++) {
		const int k = scn_takes(c->algos[i], add);

		idx[k][n[k]] = i;
		part[k][n[k]++] = c->algos[i];
	}
	got[0] = bench_xcalloc((size_t)c->nr_algos, sizeof(*got[0]));
	got[1] = bench_xcalloc((size_t)c->nr_algos, sizeof(*got[1]));
	for (int k = 0; k < 2 && !stop; k++) {
		if (!n[k])
			continue;
		cfg->options = k ? opt : base;
		stop = scn_measure(c, cfg, part[k], n[k], note);
		memcpy(got[k], c->sums, sizeof(*c->sums) * (size_t)n[k]);
	}
	cfg->options = base;
	memset(c->sums, 0, sizeof(*c->sums) * (size_t)c->nr_algos);
	for (int k = 0; k < 2; k++)
		for (int j = 0; j < n[k]; j++)
			c->sums[idx[k][j]] = got[k][j];
	free(got[0]);
	free(got[1]);
	return stop;
}

int scn_measure_cols(struct scn_ctx *c, struct bench_config *cfg, const char *note)
{
	return scn_measure_cols_with(c, cfg, note, SCN_RSTAT_UPDATE);
}

/* Workload w on chain:depth, the row "depth D"; returns scn_measure's stop. */
int scn_measure_chain(struct scn_ctx *c, enum bench_workload w, int depth, int workers)
{
	char shape[32], label[32];
	struct bench_config cfg;
	int stop;

	snprintf(shape, sizeof(shape), "chain:%d", depth);
	snprintf(label, sizeof(label), "depth %d", depth);
	cfg = scn_config(c, w, shape, workers);
	stop = scn_measure_cols(c, &cfg, label);
	bench_shape_free(&cfg.shape);
	return stop;
}

int scn_workers(const struct scn_ctx *c, int want)
{
	return c->no_cap || want <= c->pus ? want : c->pus;
}

int scn_algo_index(const struct scn_ctx *c, const char *name)
{
	for (int i = 0; i < c->nr_algos; i++)
		if (!strcmp(c->algos[i]->name, name))
			return i;
	return -1;
}

/* --- the command's run ---------------------------------------------------- */

/*
 * The progress line's plan: the scenario run once with scn_measure counting
 * instead of measuring and its table going to /dev/null, so the time left is
 * known from the first row.  A scenario that runs its own threads, not
 * scn_measure (struct scn.own_plan), gets no plan (elapsed only).
 */
static void scn_plan_count(struct scn_ctx *c)
{
	struct scn_ctx saved = *c;
	int keep = dup(STDOUT_FILENO), nul = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (!c->s->own_plan && keep >= 0 && nul >= 0) {
		fflush(stdout);
		dup2(nul, STDOUT_FILENO);
		c->counting = 1;
		c->s->run(c);
		fflush(stdout);
		dup2(keep, STDOUT_FILENO);
		saved.planned = c->planned;
		*c = saved;	/* what the pass set (failed, table) is not the scenario's */
	}
	if (keep >= 0)
		close(keep);
	if (nul >= 0)
		close(nul);
}

static void scn_plan(struct scn_ctx *c)
{
	scn_plan_count(c);
	bench_progress_plan(c->planned, (c->warmup_ms + 1.25 * c->duration_ms) / 1000.0);
}

/*
 * The raw results file: --out, else a dated name of its own; NULL: none.
 * bench_outfile_open (outfile.h, sweep's too) locks it, so a second scenario
 * (or sweep) on one file refuses before measuring, and with --resume checks
 * what it holds.  Two scenarios started in the same second make two names:
 * the dated name is created exclusively, the second gets "-2" (then "-3"...).
 */
static const char *scn_raw_out(struct scn_ctx *c, const char *out, char **path)
{
	char prefix[128];
	struct bench_outfile o = { .cmd = "scenario", .path = out, .resume = c->resume, .note_prefix = prefix };
	int fd = -1;

	c->raw.format = BENCH_FMT_JSON;
	c->raw.nr_cpus = c->pus;
	snprintf(prefix, sizeof(prefix), "scenario %s: ", c->s->name);	/* scn_measure's notes */
	if (out) {
		fd = bench_outfile_open(&o, &c->done);
	} else if (c->table) {
		char stamp[32];
		time_t now = time(NULL);

		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
		o.fresh = 1;
		for (int k = 1; fd < 0; k++) {
			free(*path);
			if (k > 1000)
				die("cannot make a results file: ctrbench-%s-%s.jsonl and -2 to -1000 exist",
				    c->s->name, stamp);
			if ((k > 1 ? asprintf(path, "ctrbench-%s-%s-%d.jsonl", c->s->name, stamp, k) :
				     asprintf(path, "ctrbench-%s-%s.jsonl", c->s->name, stamp)) < 0)
				die("out of memory");
			o.path = out = *path;
			fd = bench_outfile_open(&o, &c->done);
		}
	}
	if (fd >= 0) {
		c->raw.fp = fdopen(fd, "a");
		if (!c->raw.fp)
			die("out of memory");
	}
	c->raw_name = out;
	return out;
}

/*
 * The timer's resolution in the header.  Measuring, this machine's; with
 * --from, the one the file's lines recorded (timer.resolution_ns): a table
 * printed from a file depends on the file alone, whatever host prints it.
 */
static void scn_timer_res(struct scn_ctx *c)
{
	double lo = 0, hi = 0;
	int have = 0, lack = 0;
	char a[32], b[32];
	size_t n;

	if (!c->from) {
		snprintf(c->timer_res, sizeof(c->timer_res), "%.1f ns", (double)c->base.tsc.resolution / c->base.tsc.ghz);
		return;
	}
	for (int i = 0; i < c->done.n; i++) {
		json_t *v = bench_json_path(c->done.line[i].obj, "timer.resolution_ns");

		if (!json_is_number(v)) {
			lack++;
			continue;
		}
		if (!have++ || json_number_value(v) < lo)
			lo = json_number_value(v);
		if (have == 1 || json_number_value(v) > hi)
			hi = json_number_value(v);
	}
	snprintf(a, sizeof(a), "%.1f", lo);
	snprintf(b, sizeof(b), "%.1f", hi);
	if (!have)
		snprintf(c->timer_res, sizeof(c->timer_res), "not recorded in the file's lines");
	else if (strcmp(a, b))
		snprintf(c->timer_res, sizeof(c->timer_res), "%s-%s ns: the file's lines differ", a, b);
	else
		snprintf(c->timer_res, sizeof(c->timer_res), "%s ns", a);
	n = strlen(c->timer_res);
	if (have && lack)
		snprintf(c->timer_res + n, sizeof(c->timer_res) - n, "; %d of its %d lines do not record it", lack,
			 have + lack);
}

/*
 * --from: lines of one configuration that differ in the build only are one
 * measured again by a rebuilt binary (--resume re-runs what another build
 * measured): the last is shown, and this says so.  Two of one build too are
 * refused (bench_results_check_unique): two writers on one file.
 */
static void scn_from_check(struct scn_ctx *c)
{
	char **key = bench_xcalloc((size_t)c->done.n + 1, sizeof(*key));
	int again = 0, first = 0, last = 0;

	bench_results_check_partial(&c->done, c->from, "scenario");
	bench_results_check_unique(&c->done, c->from, bench_field_is_resume_key);
	for (int i = 0; i < c->done.n; i++) {
		key[i] = bench_line_key(c->done.line[i].obj, scn_from_key);
		for (int k = 0; k < i; k++)
			if (!strcmp(key[k], key[i])) {
				if (!again++)
					first = c->done.line[k].lineno;
				last = c->done.line[i].lineno;
				break;
			}
	}
	for (int i = 0; i < c->done.n; i++)
		free(key[i]);
	free(key);
	if (again)
		fprintf(stderr, "ctrbench: scenario %s: '%s': %d line%s measure%s again a configuration of an"
			" earlier line with another build (line %d, ... line %d): the last of each is shown\n",
			c->s->name, c->from, again, again == 1 ? "" : "s", again == 1 ? "s" : "", first, last);
}

/* --from: the file's lines, checked; the tables as the machine that wrote it capped them (its PUs). */
static void scn_from_load(struct scn_ctx *c)
{
	bench_results_load(c->from, 0, &c->done);
	if (!c->done.n)
		die("'%s' for --from holds no results", c->from);
	c->pus = (int)json_integer_value(bench_json_path(c->done.line[0].obj, "env.cpus_online"));
	if (c->pus < 1)
		die("'%s' for --from: its first line has no env.cpus_online", c->from);
	scn_from_check(c);
}


/* What was not given: the scenario's algorithms and defaults (--quick keeps each under 30 s here). */
static void scn_defaults(struct scn_ctx *c, char *algo_list)
{
	const struct scn *s = c->s;

	if (algo_list) {
		c->algo_all = !strcmp(algo_list, "all");
		c->nr_algos = bench_parse_algos(algo_list, c->algos);
		c->user_algos = 1;
	} else if (c->quick && s->quick_algos) {
		for (const char *const *a = s->quick_algos; *a; a++)
			c->algos[c->nr_algos++] = bench_algo_find(*a);
	} else {
		scn_default_algos(c);
	}
	if (c->reps < 0)
		c->reps = c->quick ? 1 : 3;
	if (!c->slots)
		c->slots = s->seed_cpus;
	if (!c->limit_headroom)
		c->limit_headroom = s->headroom;
	if (!c->duration_ms && c->quick)
		c->duration_ms = s->quick_duration_ms ? s->quick_duration_ms : 60;
	else if (!c->duration_ms)
		c->duration_ms = s->duration_ms ? s->duration_ms : 1000;
	if (c->warmup_ms < 0)
		c->warmup_ms = c->quick ? 20 : 200;
	if (c->flush_period_ms < 0)
		c->flush_period_ms = c->duration_ms / 10 > 0 ? c->duration_ms / 10 : 1;
	if (c->readers < 0)
		c->readers = c->quick ? 100 : 1000;
}

/*
 * What `scenario NAME` (quick: with --quick) would take on this machine with
 * its defaults, in seconds: the planning pass's measurements at the progress
 * line's estimate of each (scn_plan), without measuring; -1 for a scenario
 * that runs its own threads (no plan).  machine: set up once by the caller.
 */
double scn_plan_seconds(const struct scn *s, const struct bench_config *machine, int quick)
{
	struct scn_ctx *c;
	double sec = -1;

	if (s->own_plan)
		return -1;
	c = bench_xcalloc(1, sizeof(*c));
	c->s = s;
	c->quick = quick;
	c->reps = c->readers = c->warmup_ms = c->flush_period_ms = -1;
	c->table = 1;
	scn_defaults(c, NULL);
	c->base = *machine;
	c->base.flush_period_ms = c->flush_period_ms;
	c->base.sample_every = BENCH_SAMPLE_EVERY;
	c->pus = topo_nr_pus(c->base.topo);
	bench_seeds_load(&c->seeds);
	scn_timer_res(c);
	c->sums = bench_xcalloc((size_t)c->nr_algos + 1, sizeof(*c->sums));
	scn_plan_count(c);
	sec = c->planned * (c->warmup_ms + 1.25 * c->duration_ms) / 1000.0;
	free(c->sums);
	bench_seeds_free(&c->seeds);
	free(c);
	return sec;
}

/* The machine, the columns, the seeds, and --from's file or the raw output: all before the first run. */
static const char *scn_setup(struct scn_ctx *c, const char *out, char *algo_list, char **path)
{
	scn_defaults(c, algo_list);
	scn_check_columns(c);
	c->base.flush_period_ms = c->flush_period_ms;
	c->base.sample_every = BENCH_SAMPLE_EVERY;
	/* its flush period is the scenario's own (scaled), not a flag to judge */
	bench_check_algo_options(c->base.options, 0, c->algos, c->nr_algos);
	bench_setup_machine(&c->base, NULL, NULL);
	c->pus = topo_nr_pus(c->base.topo);
	bench_seeds_load(&c->seeds);
	if (c->from)
		scn_from_load(c);
	scn_timer_res(c);
	c->sums = bench_xcalloc((size_t)c->nr_algos + 1, sizeof(*c->sums));
	if (c->resume && !out)
		die("--resume needs --out FILE (the results it continues)");
	if (!c->from) {
		out = scn_raw_out(c, out, path);
		scn_plan(c);
	}
	return out;
}

/* After the run: what the user must know (missing, interrupted, where the results are); the status. */
static int scn_finish(struct scn_ctx *c, const char *out)
{
	int failed;

	if (c->from && c->missing)
		fprintf(stderr, "ctrbench: scenario %s: %d configuration%s not in '%s' (printed \"not run\"): run"
			" with the options that wrote it\n", c->s->name, c->missing, c->missing == 1 ? " is" : "s are",
			c->from);
	if (bench_was_interrupted())
		fprintf(stderr, "ctrbench: scenario %s interrupted: what was measured is printed%s%s\n",
			c->s->name, out && !c->raw.write_failed ? " and in " : "",
			out && !c->raw.write_failed ? out : "");
	else if (out && c->table && !c->raw.write_failed)
		printf("# raw results: %s%s\n", out, c->reused ? " (--resume: some rows from it, not run now)" : "");
	if (c->resume)
		fprintf(stderr, "ctrbench: scenario %s: --resume: %d configuration%s taken from '%s', the rest"
			" measured now\n", c->s->name, c->reused, c->reused == 1 ? "" : "s", out);
	bench_exec_release(&c->exec);
	bench_results_free(&c->done);
	failed = c->failed || bench_was_interrupted() || c->raw.write_failed || c->missing;
	bench_seeds_free(&c->seeds);
	if (c->raw.fp && fclose(c->raw.fp))
		fprintf(stderr, "ctrbench: writing '%s': %s\n", out, strerror(errno)), failed = 1;
	bench_setup_release(&c->base);
	free(c->sums);
	return failed ? 1 : 0;
}

int scn_main(struct scn_ctx *c, const char *out, char *algo_list)
{
	char *path = NULL;
	int rc;

	out = scn_setup(c, out, algo_list, &path);
	c->s->run(c);
	rc = scn_finish(c, out);
	free(path);
	return rc;
}
