/* SPDX-License-Identifier: MIT */
/*
 * scenario.c - `ctrbench scenario NAME`: each experiment of the seed threads
 * (../shared/seeds/, docs/reproducing.md) as one command that prints the
 * thread's table in its layout (its rows; one column per algorithm) from
 * runs on this machine, and writes every run's raw result as a JSON line.
 *
 * A scenario is a list of configurations; each runs every algorithm of the
 * table (reps interleaved, through the executor: bench/exec.h) and prints its row(s) as soon as
 * it is measured, so an interrupted scenario has shown, and written, all it
 * finished.  What the seeds had and this machine has not (80-384 CPUs, a PMU,
 * a kernel's osq_lock) is said in the header, never made up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <jansson.h>

#include "cli.h"
#include "exec.h"
#include "outfile.h"
#include "record.h"
#include "results.h"
#include "schema.h"
#include "output.h"
#include "reps.h"
#include "builtin.h"
#include "progress.h"
#include "setup.h"
#include "subsys.h"
#include "seeds.h"

/* The seed's workers: 20 on an 80-CPU machine. */
#define SCN_SEED_WORKERS 20
/* Column width of the tables: the longest algorithm name is 21 (percpu_hier_delegated). */
#define SCN_COL 22

struct scn_ctx;

struct scn {
	const char *name;	/* as typed */
	const char *seed;	/* the thread it reproduces */
	const char *what;	/* one line for `scenario list` */
	void (*run)(struct scn_ctx *c);
	const char *seed_table;	/* its table in seeds/tables.csv, NULL if it has none */
	const char *seed_machine;	/* the seed's machine, for the header */
	int seed_cpus;		/* ... its CPU count (possible CPUs), 0 if none */
};

struct scn_ctx {
	const struct scn *s;			/* the scenario */
	int counting;				/* the planning pass: scn_measure only counts */
	int planned;				/* measurements it counted (configurations x reps) */
	int quick;				/* --quick: under 30 s here, for the tests */
	int reps;				/* --reps, or the scenario's default */
	int duration_ms, warmup_ms;		/* per run */
	int flush_period_ms;			/* periodic flushers' period, printed */
	int readers;				/* stat-read-storm test 2: reader threads */
	int no_cap;				/* --no-cap: seed thread counts even past this machine's PUs */
	int pus;				/* this machine's PUs */
	int table;				/* print the table (else JSON lines on stdout) */
	struct bench_config base;		/* the machine, set up once */
	const struct bench_algo *algos[BENCH_MAX_ALGOS];	/* the columns */
	int nr_algos;				/* their number */
	int user_algos;				/* --algo given: no scenario may add or drop one */
	struct bench_output raw;		/* every summary as a JSON line */
	struct bench_summary *sums;		/* scratch: one per column */
	int resume;				/* --resume: reuse what --out already holds */
	struct bench_results done;		/* ... its lines */
	struct bench_exec exec;			/* the executor's settings and tallies (bench/exec.h) */
	const char *raw_name;			/* --out (or the dated name), for messages */
	int reused;				/* summaries taken from them */
	int failed;				/* a verification failed or a run could not start */
	struct bench_seeds seeds;		/* the seeds' posted figures (empty: seeds.why says why) */
	const char *from;			/* --from FILE: print the tables from its lines, run nothing */
	int from_pus;				/* ... the PUs of the machine that wrote it */
	int missing;				/* --from: configurations the file does not hold */
	int slots;				/* --slots, default the seed's CPU count (0: run's default) */
	double limit_headroom;			/* --limit-headroom of the store scenarios (0: not given) */
	char timer_res[160];			/* the timer's resolution for the header (scn_timer_res) */
};

/*
 * The store scenarios' limits: twice what the workers hold, so an exact
 * design is never refused (the seed's case: zswap.max set at every level and,
 * apparently, not hit); --limit-headroom 0.75 is the charge workload's own.
 */
#define SCN_STORE_HEADROOM 2.0

/* The seed's column order: designs (a), (b), (c), (d), then the rest of the suite in list order. */
static const char *const scn_seed_order[] = { "rstat_force", "rstat_ratelimit", "percpu_hier", "atomic_tree" };

static void scn_default_algos(struct scn_ctx *c)
{
	const int nseed = (int)(sizeof(scn_seed_order) / sizeof(scn_seed_order[0]));

	for (int i = 0; i < nseed; i++)
		c->algos[c->nr_algos++] = bench_algo_find(scn_seed_order[i]);
	for (int i = 0; i < bench_nr_algos; i++) {
		int seed = 0;

		for (int k = 0; k < nseed; k++)
			seed |= !strcmp(bench_algos[i].name, scn_seed_order[k]);
		if (!seed && !bench_algos[i].baseline)
			c->algos[c->nr_algos++] = &bench_algos[i];
	}
}

/* A fresh run configuration on the machine set up once. */
static struct bench_config scn_config(const struct scn_ctx *c, enum bench_workload w, const char *shape,
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
 * configurations, and the reps of a half-done one), the rest measured; each
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
static int scn_measure(struct scn_ctx *c, struct bench_config *cfg, const struct bench_algo **algos,
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
 * The seed's rstat is memcg's: its update walks the ancestors for the flush
 * threshold (memcg_rstat_updated, 6.8 on), so the scenarios run the rstat
 * algorithms of counters/rstat.c with update=memcg (docs/algorithms.md).
 */
#define SCN_RSTAT_UPDATE "update=memcg"

static int scn_memcg_update(const struct bench_algo *ba)
{
	static const char *const names[] = { "rstat_force", "rstat_ratelimit", "rstat_threshold", "rstat_unified" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(ba->name, names[i]))
			return 1;
	return 0;
}

/*
 * scn_measure of every column in cfg: the rstat ones with SCN_RSTAT_UPDATE
 * added to cfg's options, the others as cfg is, in two measurements whose
 * summaries land in c->sums in column order.  Returns scn_measure's stop.
 */
static int scn_measure_cols(struct scn_ctx *c, struct bench_config *cfg, const char *note)
{
	const struct bench_algo *part[2][BENCH_MAX_ALGOS];
	struct bench_summary *got[2];
	int idx[2][BENCH_MAX_ALGOS], n[2] = { 0, 0 }, stop = 0;
	const char *base = cfg->options;
	char opt[128];

	snprintf(opt, sizeof(opt), "%s%s%s", base ? base : "", base ? "," : "", SCN_RSTAT_UPDATE);
	for (int i = 0; i < c->nr_algos; i++) {
		const int k = scn_memcg_update(c->algos[i]);

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

/* --- the tables --------------------------------------------------------- */

/* A figure of one summary; NaN where it does not apply.  *noisy: its median has a CV over 10%. */
typedef double (*scn_value_fn)(const struct bench_summary *s, int *noisy);

static void scn_header(const struct scn_ctx *c, const char *corner, int width)
{
	if (!c->table)
		return;
	printf("%-*s", width, corner);
	for (int i = 0; i < c->nr_algos; i++)
		printf(" %*s", SCN_COL, c->algos[i]->name);
	putchar('\n');
}

/*
 * One cell: n/a where NaN, "FAIL" where verification failed, "~" after a
 * noisy median (CV > 10%), "[3/5]" after one from 3 of 5 reps asked
 * (interrupted: scn_row says so under the row).
 */
static void scn_cell(const struct bench_summary *s, double v, int noisy, int reps)
{
	char buf[64];

	if (!s->k)
		snprintf(buf, sizeof(buf), "not run");
	else if (s->med.verify == 0)
		snprintf(buf, sizeof(buf), "FAIL");
	else if (isnan(v))
		snprintf(buf, sizeof(buf), "n/a");
	else if (fabs(v) >= 1000 || v == floor(v))
		snprintf(buf, sizeof(buf), "%.0f%s", v, noisy ? "~" : "");
	else if (fabs(v) >= 1)
		snprintf(buf, sizeof(buf), "%.1f%s", v, noisy ? "~" : "");
	else
		snprintf(buf, sizeof(buf), "%.3g%s", v, noisy ? "~" : "");
	if (s->k && s->k < reps)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "[%d/%d]", s->k, reps);
	printf(" %*s", SCN_COL, buf);
}

static void scn_row(const struct scn_ctx *c, const char *label, int width, scn_value_fn fn)
{
	int short_reps = 0;

	if (!c->table)
		return;
	printf("%-*s", width, label);
	for (int i = 0; i < c->nr_algos; i++) {
		int noisy = 0;
		double v = c->sums[i].k ? fn(&c->sums[i], &noisy) : NAN;

		scn_cell(&c->sums[i], v, noisy, c->reps);
		short_reps |= c->sums[i].k && c->sums[i].k < c->reps;
	}
	putchar('\n');
	if (short_reps)
		printf("# [k/K] = from k of the K reps asked (interrupted); --resume measures the rest\n");
	fflush(stdout);
}

/* v as a cell prints it: whole numbers from 1000 up, one decimal from 1, 3 digits below. */
static void scn_fmt(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (fabs(v) >= 1000 || v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 1)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

/*
 * Where a row's seed figures are in tables.csv: the scenario's table
 * (struct scn), this row, and a column.  column NULL: each of the seed's
 * four designs has its own column (a_rstat_force ... d_page_counter);
 * else the one figure sits beside algorithm algo.
 */
struct scn_seedref {
	const char *row;	/* the seed's row; NULL: the row has no seed figure */
	const char *column;	/* the seed's column, or NULL (one per design) */
	const char *algo;	/* with column: the algorithm it sits beside */
	double scale;		/* the seed's unit in ours (ms -> ns: 1e6); 0: the same unit */
};

/* The seed's column of algorithm name in 000's design tables, NULL if none is one of them. */
static const char *scn_seed_col(const char *name)
{
	static const char *const map[][2] = { { "rstat_force", "a_rstat_force" },
					      { "rstat_ratelimit", "b_rstat_ratelimit" },
					      { "percpu_hier", "c_percpu_hier" },
					      { "atomic_tree", "d_page_counter" } };

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(name, map[i][0]))
			return map[i][1];
	return NULL;
}

static const struct bench_seed_fig *scn_seed_fig(const struct scn_ctx *c, const struct scn_seedref *ref,
						 const char *algo)
{
	const char *col = ref->column ? (strcmp(algo, ref->algo) ? NULL : ref->column) : scn_seed_col(algo);

	if (!c->s->seed_table || !ref->row || !col)
		return NULL;
	return bench_seed_find(&c->seeds, c->s->seed_table, ref->row, col);
}

/* The cell of a seed figure (in our unit) and of ours/seed ("lo-hi" for a posted range). */
static void scn_seed_cells(const struct bench_seed_fig *g, double scale, double ours, char *fig, char *ratio,
			   size_t len)
{
	char a[32], b[32];

	snprintf(fig, len, "-");
	snprintf(ratio, len, "-");
	if (!g)
		return;
	if (isnan(g->lo)) {
		snprintf(fig, len, "%s", g->value);
		return;
	}
	scn_fmt(a, sizeof(a), g->lo * scale);
	scn_fmt(b, sizeof(b), g->hi * scale);
	if (scale == 1)
		snprintf(fig, len, "%s", g->value);	/* as posted: 2.88 stays 2.88 */
	else if (g->lo == g->hi)
		snprintf(fig, len, "%s", a);
	else
		snprintf(fig, len, "%s-%s", a, b);
	if (isnan(ours) || g->lo <= 0)
		return;
	scn_fmt(a, sizeof(a), ours / (g->hi * scale));
	scn_fmt(b, sizeof(b), ours / (g->lo * scale));
	if (g->lo == g->hi)
		snprintf(ratio, len, "%s", b);
	else
		snprintf(ratio, len, "%s-%s", a, b);
}


/*
 * Under a row whose cells fn made: the seed's figures of ref (indented
 * "seed NNN" row) and ours/seed, read from tables.csv at run time.  Prints
 * nothing where the seed has no figure for the row.
 */
static void scn_seed_beside(const struct scn_ctx *c, const struct scn_seedref *ref, int width, scn_value_fn fn)
{
	char fig[BENCH_MAX_ALGOS][64], ratio[BENCH_MAX_ALGOS][64], label[32];
	const double scale = ref->scale > 0 ? ref->scale : 1;
	int any = 0;

	if (!c->table || !ref->row)
		return;
	for (int i = 0; i < c->nr_algos; i++) {
		const struct bench_seed_fig *g = scn_seed_fig(c, ref, c->algos[i]->name);
		int noisy = 0;
		double v = c->sums[i].k && c->sums[i].med.verify != 0 ? fn(&c->sums[i], &noisy) : NAN;

		any |= g != NULL;
		scn_seed_cells(g, scale, v, fig[i], ratio[i], sizeof(fig[i]));
	}
	if (!any)
		return;
	snprintf(label, sizeof(label), "  seed %.3s", c->s->seed);
	printf("%-*s", width, label);
	for (int i = 0; i < c->nr_algos; i++)
		printf(" %*s", SCN_COL, fig[i]);
	printf("\n%-*s", width, "  ours/seed");
	for (int i = 0; i < c->nr_algos; i++)
		printf(" %*s", SCN_COL, ratio[i]);
	putchar('\n');
}

/* scn_row, then the seed's figures of ref under it and ours/seed. */
static void scn_row(const struct scn_ctx *c, const char *label, int width, scn_value_fn fn);

static void scn_row_seed(const struct scn_ctx *c, const char *label, int width, scn_value_fn fn,
			 const struct scn_seedref *ref)
{
	scn_row(c, label, width, fn);
	scn_seed_beside(c, ref, width, fn);
	fflush(stdout);
}

/* A row of figures: its label and where its value comes from. */
struct scn_rowdef {
	const char *name;	/* label (after any prefix) */
	scn_value_fn fn;	/* the value of one column */
};

static int scn_noisy(const struct bench_summary *s, int m)
{
	return s->k > 1 && s->stat[m].cv > BENCH_NOISY_CV;
}

static double scn_cpu_ns(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_CPU_NS_PER_OP);
	return s->med.cpu_ns_per_op;
}

/* Wall time per op: threads x window / ops (what a worker spends per store, on CPU or not). */
static double scn_wall_ns(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_NS_PER_OP);
	return s->med.ns_per_op;
}

/* Refused attempts, % of attempts (refusals of the median-throughput rep over the median attempts). */
static double scn_refused_share(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return s->med.ops ? 100.0 * (double)s->med.charge_fail / (double)s->med.ops : NAN;
}

static double scn_p50(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_UPDATE_NS_P50);
	return s->med.lat.p50;
}

static double scn_p90(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_UPDATE_NS_P90);
	return s->med.lat.p90;
}

static double scn_p95(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_UPDATE_NS_P95);
	return s->med.lat.p95;
}

static double scn_p99(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_UPDATE_NS_P99);
	return s->med.lat.p99;
}

static double scn_mean(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_UPDATE_NS_MEAN);
	return s->med.lat.mean;
}

static void scn_note(const struct scn_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void scn_note(const struct scn_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->table)
		return;
	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* The seed's workers (20) capped at this machine's PUs unless --no-cap. */
static int scn_workers(const struct scn_ctx *c, int want)
{
	return c->no_cap || want <= c->pus ? want : c->pus;
}

static void scn_common_notes(const struct scn_ctx *c, const char *workers)
{
	scn_note(c, "%s, from %s; %d rep%s of %d ms after %d ms warm-up, median shown, ~ = CV over 10%%",
		 c->s->name, c->s->seed, c->reps, c->reps == 1 ? "" : "s", c->duration_ms, c->warmup_ms);
	if (c->s->seed_cpus)
		scn_note(c, "seed %.3s's machine: %s (CPU count %d)", c->s->seed, c->s->seed_machine, c->s->seed_cpus);
	scn_note(c, "%s: %d PUs; threads: %s", c->from ? "the machine that measured it" : "this machine", c->pus,
		 workers);
	if (c->slots)
		scn_note(c, "slots: %d%s (--slots; the algorithms' per-CPU slots: threads own the first, the rest"
			 " are idle CPUs that every read, flush and drain still walks)", c->slots,
			 c->slots == c->s->seed_cpus ? ", the seed's CPU count" : "");
	else
		scn_note(c, "slots: this machine's possible CPUs, or the threads if more (--slots)");
	if (c->s->seed_cpus)
		scn_note(c, "rstat_force, _ratelimit, _threshold and _unified run with options %s (memcg's"
			 " update: the ancestor walk for the flush threshold) and their default lockkind=spin (the"
			 " kernel's spinning flush lock: waiting is CPU time)", SCN_RSTAT_UPDATE);
	if (c->from)
		scn_note(c, "read from %s (--from: nothing measured now)", c->from);
	if (c->s->seed_table && c->seeds.why)
		scn_note(c, "seed figures: %s %s (set CTRBENCH_SEEDS to tables.csv): none shown", c->seeds.path,
			 c->seeds.why);
	else if (c->s->seed_table)
		scn_note(c, "under a row: the seed's posted figure (\"seed %.3s\", from tables.csv, table %s) and"
			 " ours/seed", c->s->seed, c->s->seed_table);
	scn_note(c, "periodic flush every %d ms where an algorithm has a flusher (the kernel's is 2000 ms:"
		 " scaled so a window holds about 10; --flush-period-ms)", c->flush_period_ms);
}

/* --- zswap-store-limit, zswap-store-nolimit, zswap-load-latency ---------- */

static const int scn_store_depths[] = { 1, 2, 4, 8, 32 };
static const int scn_load_depths[] = { 2, 4, 8, 32 };

/* Workload w on chain:depth, the row "depth D"; returns scn_measure's stop. */
static int scn_measure_chain(struct scn_ctx *c, enum bench_workload w, int depth, int workers)
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

/* Seed 000's flush-calls figures of one depth: store attempts and flushes, before and after the ratelimit. */
struct scn_flush_calls {
	int have;		/* measured (both designs ran at this depth) */
	double attempts[2];	/* rstat_force (before), rstat_ratelimit (after): store attempts in the window */
	double flushes[2];	/* ... flushes done, any cause (the periodic flusher's included) */
};

static int scn_algo_index(const struct scn_ctx *c, const char *name)
{
	for (int i = 0; i < c->nr_algos; i++)
		if (!strcmp(c->algos[i]->name, name))
			return i;
	return -1;
}

/*
 * Seed 000's flush-calls table (obj_cgroup_may_zswap calls and the flushes
 * they did, 281,017 -> 80,445 for 198,977 calls with the ratelimit): here
 * per depth, rstat_force before, rstat_ratelimit after, from the runs above.
 */
static void scn_flush_calls_table(const struct scn_ctx *c, const struct scn_flush_calls *fc, int nd)
{
	static const char *const rows[2] = { "before ratelimit", "after ratelimit" };
	const struct bench_seed_fig *calls[2], *fl[2];

	if (!c->table)
		return;
	for (int b = 0; b < 2; b++) {
		calls[b] = bench_seed_find(&c->seeds, "flush_calls", rows[b], "may_zswap_calls");
		fl[b] = bench_seed_find(&c->seeds, "flush_calls", rows[b], "flush_calls");
	}
	scn_note(c, "seed 000's flush-calls table: store attempts (may_zswap calls) and flushes, rstat_force"
		 " before the ratelimit, rstat_ratelimit after (flushes: any cause, the periodic flusher's too)");
	printf("%-28s %14s %14s %12s %14s %14s %12s\n", "flush calls", "may_zswap", "flushes", "flush/call",
	       "seed calls", "seed flushes", "seed f/call");
	for (int d = 0; d < nd; d++) {
		if (!fc[d].have)
			continue;
		for (int b = 0; b < 2; b++) {
			char label[64], sc[32] = "-", sf[32] = "-", sr[32] = "-";

			snprintf(label, sizeof(label), "depth %d %s", scn_store_depths[d], rows[b]);
			if (calls[b] && fl[b] && calls[b]->lo > 0) {
				scn_fmt(sc, sizeof(sc), calls[b]->lo);
				scn_fmt(sf, sizeof(sf), fl[b]->lo);
				snprintf(sr, sizeof(sr), "%.3f", fl[b]->lo / calls[b]->lo);
			}
			printf("%-28s %14.0f %14.0f %12.3f %14s %14s %12s\n", label, fc[d].attempts[b],
			       fc[d].flushes[b], fc[d].attempts[b] > 0 ? fc[d].flushes[b] / fc[d].attempts[b] : NAN,
			       sc, sf, sr);
		}
	}
	fflush(stdout);
}

static void scn_store(struct scn_ctx *c, enum bench_workload w)
{
	const int workers = scn_workers(c, SCN_SEED_WORKERS);
	const int nd = (int)(sizeof(scn_store_depths) / sizeof(scn_store_depths[0]));
	const int fa = scn_algo_index(c, "rstat_force"), fb = scn_algo_index(c, "rstat_ratelimit");
	struct scn_flush_calls fc[sizeof(scn_store_depths) / sizeof(scn_store_depths[0])];
	char buf[128];

	memset(fc, 0, sizeof(fc));
	snprintf(buf, sizeof(buf), "%d (the seed's 20%s) on a chain's leaf", workers,
		 workers < SCN_SEED_WORKERS ? ", capped at this machine's PUs" : "");
	scn_common_notes(c, buf);
	if (w == BENCH_STORE)
		scn_note(c, "a store (--workload store): the limit check at every level through each algorithm's"
			 " own read (as obj_cgroup_may_zswap), the charge of one 4 KiB page and +1 page of a second"
			 " stat (MEMCG_ZSWAPPED), its free later; limits %.2g x what the workers hold (--limit-headroom;"
			 " >= 1: never hit by an exact design, the seed's case; refused %%: attempts refused)",
			 c->limit_headroom);
	else
		scn_note(c, "a store here: one update (+1 or -1 on the leaf, every ancestor's view included): the"
			 " update path with no limit to check, half of the kernel's store (it updates two stats)");
	scn_note(c, "row \"depth D\": CPU time per store, ns (task-clock / stores, which a wait asleep does not"
		 " count: the seed's unit is kernel CPU time per zswap store); \"wall\": wall time per store"
		 " (threads x window / stores)");
	scn_note(c, "the seed's stores also compressed a page (~35 us); here only the counter's cost is"
		 " timed (--work-ns adds a stand-in)");
	scn_header(c, "ns/store", 18);
	for (int d = 0; d < nd; d++) {
		int stop = scn_measure_chain(c, w, scn_store_depths[d], workers);
		const struct scn_seedref ref = { .row = NULL };
		struct scn_seedref seed = ref;
		char label[32], row[32];

		snprintf(label, sizeof(label), "depth %d", scn_store_depths[d]);
		snprintf(row, sizeof(row), "depth %d", scn_store_depths[d]);
		seed.row = row;
		scn_row_seed(c, label, 18, scn_cpu_ns, &seed);
		snprintf(label, sizeof(label), "depth %d wall", scn_store_depths[d]);
		scn_row(c, label, 18, scn_wall_ns);
		if (w == BENCH_STORE) {
			snprintf(label, sizeof(label), "depth %d refused %%", scn_store_depths[d]);
			scn_row(c, label, 18, scn_refused_share);
		}
		if (w == BENCH_STORE && fa >= 0 && fb >= 0 && c->sums[fa].k && c->sums[fb].k) {
			const struct bench_summary *sa = &c->sums[fa], *sb = &c->sums[fb];

			fc[d].have = 1;
			fc[d].attempts[0] = (double)sa->med.ops;
			fc[d].attempts[1] = (double)sb->med.ops;
			fc[d].flushes[0] = (double)sa->med.flush.flushes;
			fc[d].flushes[1] = (double)sb->med.flush.flushes;
		}
		if (stop)
			break;
	}
	if (w == BENCH_STORE)
		scn_flush_calls_table(c, fc, nd);
}

static void scn_store_limit(struct scn_ctx *c)
{
	scn_store(c, BENCH_STORE);
}

static void scn_store_nolimit(struct scn_ctx *c)
{
	scn_store(c, BENCH_UPDATE);
}

static void scn_load_latency(struct scn_ctx *c)
{
	const int workers = scn_workers(c, SCN_SEED_WORKERS);
	static const struct scn_rowdef rows[] = { { "p50", scn_p50 }, { "p90", scn_p90 }, { "p95", scn_p95 },
						   { "p99", scn_p99 }, { "avg", scn_mean } };
	char buf[128];

	snprintf(buf, sizeof(buf), "%d (the seed's 20%s)", workers,
		 workers < SCN_SEED_WORKERS ? ", capped at this machine's PUs" : "");
	scn_common_notes(c, buf);
	scn_note(c, "ns per load = latency of an update of the leaf (+1/-1, as the uncharge a load hit does),"
		 " timed with rdtsc after the throughput window, in batches where one op is below %u timer steps"
		 " (resolution %s), timer overhead subtracted", BENCH_LAT_MIN_STEPS, c->timer_res);
	scn_note(c, "the seed's loads also decompressed a page (~6 us); here only the counter's part is timed");
	scn_header(c, "ns/load", 14);
	for (size_t d = 0; d < sizeof(scn_load_depths) / sizeof(scn_load_depths[0]); d++) {
		int stop = scn_measure_chain(c, BENCH_UPDATE, scn_load_depths[d], workers);
		char label[32];

		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			const struct scn_seedref seed = { .row = label };

			snprintf(label, sizeof(label), "depth %d %s", scn_load_depths[d], rows[r].name);
			scn_row_seed(c, label, 14, rows[r].fn, &seed);
		}
		if (stop)
			return;
	}
}

/* --- worker-scaling ------------------------------------------------------ */

static void scn_worker_scaling(struct scn_ctx *c)
{
	static const int want[] = { 10, 20, 40, 50, 80 };
	int ran = -1;

	scn_common_notes(c, c->no_cap ? "as the seed's rows ask (--no-cap: past the PUs they share CPUs)"
				      : "as the row asks, capped at this machine's PUs (--no-cap runs them all)");
	scn_note(c, "ns/store = CPU time per store (--workload store: task-clock / stores) at"
		 " depth 8 (chain:8), limits at every level, %.2g x the holdings (--limit-headroom)", c->limit_headroom);
	scn_header(c, "workers", 16);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		const int t = scn_workers(c, want[k]);
		char label[64];

		if (t != want[k])
			snprintf(label, sizeof(label), "%d (ran %d)", want[k], t);
		else
			snprintf(label, sizeof(label), "%d", want[k]);
		/* a capped row that would repeat the one above prints its figures again, not a new run */
		if (t != ran) {
			struct bench_config cfg = scn_config(c, BENCH_STORE, "chain:8", t);
			int stop = scn_measure_cols(c, &cfg, label);

			bench_shape_free(&cfg.shape);
			ran = t;
			if (stop) {
				scn_row(c, label, 16, scn_cpu_ns);
				return;
			}
		} else if (c->table) {
			snprintf(label + strlen(label), sizeof(label) - strlen(label), "=");
		}
		scn_row(c, label, 16, scn_cpu_ns);
	}
	scn_note(c, "a label ending in = repeats the run above it (same capped worker count)");
}

/* --- shrinker-count ------------------------------------------------------- */

static double scn_flush_rate(const struct bench_summary *s, uint64_t v)
{
	return s->med.has_flush && s->med.seconds > 0 ? (double)v / s->med.seconds : NAN;
}

static double scn_contended(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return scn_flush_rate(s, s->med.flush.lock_contended);
}

static double scn_lock_wait(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return scn_flush_rate(s, s->med.flush.lock_wait_ns) / 1e9;
}

static double scn_flushes(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return scn_flush_rate(s, s->med.flush.flushes);
}

/*
 * 001's "84% of kswapd cycles in flushing", as far as the counts go: the
 * flush lock's hold and wait time per second over the count calls' time per
 * second (reads x mean read latency), %.  The holds include the periodic
 * flusher's (a few per window), so it can pass 100 where counts rarely flush.
 */
static double scn_flush_share(const struct bench_summary *s, int *noisy)
{
	const double busy = (double)s->med.reads * s->med.read_lat.mean;

	*noisy = 0;
	if (!s->med.has_flush || !s->med.reads || !(busy > 0))
		return NAN;
	return 100.0 * (double)(s->med.flush.lock_hold_ns + s->med.flush.lock_wait_ns) / busy;
}

static double scn_read_p99(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_READ_NS_P99);
	return s->med.reads ? s->med.read_lat.p99 : NAN;
}

static double scn_na(const struct bench_summary *s, int *noisy)
{
	(void)s;
	*noisy = 0;
	return NAN;
}

static void scn_shrinker(struct scn_ctx *c)
{
	const int workers = scn_workers(c, SCN_SEED_WORKERS), shrinkers = 4;
	static const struct scn_rowdef rows[] = {
		{ "osq_lock % cycles", scn_na }, { "contended acq/s", scn_contended },
		{ "lock wait s/s", scn_lock_wait }, { "flushes/s", scn_flushes }, { "count p99 ns", scn_read_p99 },
		{ "count time flushing %", scn_flush_share },
	};
	/* 001's figures of each row: the kernel then, whose shrinker count forced a flush (rstat_force) */
	static const char *const seed_col[] = { "osq_lock_cycles", "contended_acquisitions", "lock_wait", NULL, NULL,
						NULL };
	char buf[160];

	snprintf(buf, sizeof(buf), "%d updaters on the leaves of tree:4x4 (16 memcgs)", workers);
	scn_common_notes(c, buf);
	scn_note(c, "shrinker=Y: %d shrinker threads call count (one read of a leaf through the algorithm,"
		 " as zswap_shrinker_count flushes then reads two stats) every 100 us; shrinker=N: updates"
		 " and the periodic flusher only", shrinkers);
	scn_note(c, "the seed's column is the flush before the patch (rstat_force) and after it"
		 " (rstat_ratelimit); lock figures are n/a for algorithms without a flush lock");
	scn_note(c, "osq_lock %% cycles is n/a: it needs a PMU and a kernel's optimistic spinning; this"
		 " machine has no PMU and user space has no osq_lock");
	scn_note(c, "count time flushing %%: the flush lock's hold and wait time over the count calls' time"
		 " (reads x mean read ns; holds include the periodic flusher's); 001 saw 84%% of kswapd's"
		 " cycles in flushing");
	scn_header(c, "shrinker", 22);
	for (int y = 1; y >= 0; y--) {
		struct bench_config cfg = scn_config(c, y ? BENCH_READERS : BENCH_UPDATE, "tree:4x4", workers);
		int stop;

		if (y) {
			cfg.readers = shrinkers;
			cfg.read_node = BENCH_READ_LEAF;
			cfg.read_interval_us = 100;
		}
		stop = scn_measure_cols(c, &cfg, y ? "shrinker=Y" : "shrinker=N");
		bench_shape_free(&cfg.shape);
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			char label[64];

			if (!y && (rows[r].fn == scn_read_p99 || rows[r].fn == scn_flush_share))
				continue;
			const struct scn_seedref seed = { .row = seed_col[r] ? (y ? "shrinker=Y" : "shrinker=N") : NULL,
							  .column = seed_col[r], .algo = "rstat_force" };

			snprintf(label, sizeof(label), "%s %s", y ? "Y" : "N", rows[r].name);
			scn_row_seed(c, label, 22, rows[r].fn, &seed);
		}
		if (stop)
			return;
	}
}

/* --- stat-read-storm ------------------------------------------------------ */

static const char *const scn_strategies[] = { "spin", "mutex", "sem", "batch" };

/* One row per (algorithm, strategy): the read-storm figures of 004 as columns. */
static void scn_storm_header(const struct scn_ctx *c)
{
	if (c->table)
		printf("%-36s %8s %9s %9s %9s %10s %10s %7s %8s %13s %10s %6s\n", "algorithm read=", "reads",
		       "p50 ns", "p99 ns", "p99.9 ns", "max ns", ">1ms %", ">1s %", "flush/rd",
		       "lock wait", "upd Mops/s", "verify");
}

static void scn_storm_row(const struct scn_ctx *c, const char *label, const struct bench_summary *s)
{
	const struct bench_result *r = &s->med;
	const struct ctr_flush_stats *f = &r->flush;
	char fr[32] = "n/a", lw[32] = "n/a";

	if (!c->table)
		return;
	if (!s->k) {
		printf("%-36s not run\n", label);
		return;
	}
	if (r->has_flush && f->reads_flush)
		snprintf(fr, sizeof(fr), "%.3f", (double)f->reader_flushes / (double)f->reads_flush);
	if (r->has_flush) {
		snprintf(lw, sizeof(lw), "%.4f", (double)f->lock_wait_ns / 1e9 / (r->seconds > 0 ? r->seconds : 1));
	}
	printf("%-36s %8llu %9.0f %9.0f %9.0f %10.0f %10.3f %7.3f %8s %9s s/s %10.2f %6s\n", label,
	       (unsigned long long)r->reads, r->read_lat.p50, r->read_lat.p99, r->read_lat.p999,
	       r->read_lat.max, 100 * r->read_lat.over_1ms, 100 * r->read_lat.over_1s, fr, lw,
	       r->ops_per_sec / 1e6, r->verify > 0 ? "ok" : r->verify ? "n/a" : "FAIL");
	fflush(stdout);
}

/*
 * How often a reader reads: the seed's every second (test 1) and every
 * 100 ms (test 2).  --quick has a 400 ms window and a tenth of the readers:
 * test 1 reads every 100 ms so the window holds reads, and test 2 every
 * 10 ms, the full form's 10000 reads/s from 100 readers.
 */
static int scn_storm_interval_us(const struct scn_ctx *c, int test)
{
	if (test == 1)
		return c->quick ? 100000 : 1000000;
	return c->quick ? 10000 : 100000;
}

/* What one storm row measured, for the slowdown table after test 2. */
struct scn_storm_fig {
	char label[96];		/* "rstat_force spin" */
	const struct bench_algo *ba;	/* its algorithm */
	double p50, p99;	/* read latency, ns (NaN: not measured) */
};

/* Rows of one storm test: every algorithm, the rstat ones under each strategy. */
#define SCN_STORM_MAX_ROWS (BENCH_MAX_ALGOS * 4)

/*
 * Test (1) or (2) of 004 for every algorithm, the rstat ones under each
 * strategy; test 0: a lone reader (the seed's "no contention", one strategy:
 * with one reader there is nothing to serialize) reading a random node every
 * millisecond; tests 3-5: a lone rstat reader of the root (301 nodes), a
 * top-level memcg (6) and a leaf (1): 004's read cost against subtree size.
 * Each row's p50/p99 into fig[] (if not NULL); returns 1 when stopped.
 */
static int scn_storm_test(struct scn_ctx *c, int test, struct scn_storm_fig *fig, int *nfig)
{
	static const int subtree_node[] = { 0, 1, 51 };	/* tree:50x5 in BFS order: root, node 1, first leaf */
	static const char *const subtree_name[] = { "root (301 nodes)", "top-level (6)", "leaf (1)" };
	const int updaters = c->pus;
	const int readers = test == 1 ? 301 : test == 2 ? c->readers : 1;

	for (int i = 0; i < c->nr_algos; i++) {
		const struct bench_algo *ba = c->algos[i];
		const int rstat = !strncmp(ba->name, "rstat_", 6);
		const int nk = rstat && (test == 1 || test == 2) ? 4 : 1;

		if (test >= 3 && !rstat)
			continue;
		for (int k = 0; k < nk; k++) {
			struct bench_config cfg = scn_config(c, BENCH_READERS, "tree:50x5", updaters);
			char opt[32], label[96];
			int stop;

			cfg.readers = readers;
			cfg.read_node = test == 0 ? BENCH_READ_RANDOM : test >= 3 ? subtree_node[test - 3] : BENCH_READ_OWN;
			cfg.read_interval_us = test == 0 || test >= 3 ? 1000 : scn_storm_interval_us(c, test);
			if (rstat) {
				snprintf(opt, sizeof(opt), "read=%s%s", scn_strategies[k],
					 scn_memcg_update(ba) ? "," SCN_RSTAT_UPDATE : "");
				cfg.options = opt;
				snprintf(label, sizeof(label), "test %d %s %s", test, ba->name, scn_strategies[k]);
			} else {
				snprintf(label, sizeof(label), "test %d %s", test, ba->name);
			}
			if (test >= 3)
				snprintf(label + strlen(label), sizeof(label) - strlen(label), " %s", subtree_name[test - 3]);
			stop = scn_measure(c, &cfg, &ba, 1, label);
			bench_shape_free(&cfg.shape);
			scn_storm_row(c, label + 7, &c->sums[0]);
			if (fig && *nfig < SCN_STORM_MAX_ROWS) {
				struct scn_storm_fig *f = &fig[(*nfig)++];

				snprintf(f->label, sizeof(f->label), "%s", label + 7);
				f->ba = ba;
				f->p50 = c->sums[0].k && c->sums[0].med.reads ? c->sums[0].med.read_lat.p50 : NAN;
				f->p99 = c->sums[0].k && c->sums[0].med.reads ? c->sums[0].med.read_lat.p99 : NAN;
			}
			if (stop)
				return 1;
		}
	}
	return 0;
}

/* A seed read_storm figure (ms) as "lo-hi" ns, or "-". */
static void scn_storm_seed(const struct scn_ctx *c, const char *row, const char *col, char *buf, size_t len,
			   double *lo, double *hi)
{
	const struct bench_seed_fig *g = bench_seed_find(&c->seeds, "read_storm", row, col);

	*lo = *hi = NAN;
	snprintf(buf, len, "-");
	if (!g || isnan(g->lo))
		return;
	*lo = g->lo * 1e6;
	*hi = g->hi * 1e6;
	snprintf(buf, len, "%.0f-%.0f", *lo, *hi);
}

/*
 * The storm against a lone reader: test 2's p50 and p99 over the lone
 * reader's p50 (test 0) of the same algorithm, with 004's figures beside
 * (5-10 ms under 10K readers, 0.02-0.05 ms alone: 100-500x).
 */
static void scn_storm_slowdown(const struct scn_ctx *c, const struct scn_storm_fig *lone, int nlone,
			       const struct scn_storm_fig *storm, int nstorm)
{
	char sl[32], ss[32], sr[32];
	double llo, lhi, slo, shi;

	if (!c->table)
		return;
	scn_note(c, "storm vs lone reader: test 2's read latency over a lone reader's p50 (test 0, same"
		 " algorithm and updaters); seed 004: \"common\" reads under 10K readers (mutex and spin rows)"
		 " against one reader with no contention");
	printf("%-36s %12s %12s %12s %10s %10s %14s %14s %12s\n", "storm vs lone", "lone p50 ns", "storm p50",
	       "storm p99", "p50/lone", "p99/lone", "seed lone ns", "seed storm ns", "seed ratio");
	scn_storm_seed(c, "no contention", "read_latency", sl, sizeof(sl), &llo, &lhi);
	for (int i = 0; i < nstorm; i++) {
		const char *sp = strchr(storm[i].label, ' ');
		const char *strat = sp ? sp + 1 : "";
		double lp = NAN;

		for (int k = 0; k < nlone; k++)
			if (lone[k].ba == storm[i].ba)
				lp = lone[k].p50;
		snprintf(ss, sizeof(ss), "-");
		snprintf(sr, sizeof(sr), "-");
		slo = shi = NAN;
		if (!strcmp(strat, "mutex"))
			scn_storm_seed(c, "mutex 10K readers", "read_latency_common", ss, sizeof(ss), &slo, &shi);
		else if (!strcmp(strat, "spin"))
			scn_storm_seed(c, "spinlock only 10K readers", "read_latency_common", ss, sizeof(ss), &slo, &shi);
		if (!isnan(slo) && !isnan(llo))
			snprintf(sr, sizeof(sr), "%.0f-%.0f", slo / lhi, shi / llo);
		printf("%-36s %12.0f %12.0f %12.0f %10.2f %10.1f %14s %14s %12s\n", storm[i].label, lp, storm[i].p50,
		       storm[i].p99, storm[i].p50 / lp, storm[i].p99 / lp, strcmp(ss, "-") ? sl : "-", ss, sr);
	}
	fflush(stdout);
}

static void scn_read_storm(struct scn_ctx *c)
{
	struct scn_storm_fig *lone = calloc(SCN_STORM_MAX_ROWS, sizeof(*lone));
	struct scn_storm_fig *storm = calloc(SCN_STORM_MAX_ROWS, sizeof(*storm));
	int nlone = 0, nstorm = 0;
	char buf[200];

	if (!lone || !storm)
		die("out of memory");
	snprintf(buf, sizeof(buf), "%d updaters (the seed's 10 per leaf, scaled to this machine) on"
		 " tree:50x5 (50 top-level memcgs x 5 children, 301 nodes)", c->pus);
	scn_common_notes(c, buf);
	scn_note(c, "read= is the reader-side flush serialization of the rstat algorithms: spin (contend on"
		 " the flush lock), mutex (a reader mutex first), sem (1 ms semaphore, then wait for a unified"
		 " flush), batch (wait for a flush that started after arrival; one reader flushes for all)");
	scn_note(c, "latencies are of every read, ns; >1ms/>1s: share of reads certainly above; flush/rd:"
		 " flushes a reader did per read that needed one (the rest were served by another's flush;"
		 " exact, from the algorithm's own counts); lock wait: time waiting for the flush lock per second;"
		 " upd Mops/s: the updaters' throughput meanwhile (004's test 1 measured the updaters' run time)");
	scn_note(c, "test 0: a lone reader (the seed's \"no contention\"), reading a random node every ms");
	scn_storm_header(c);
	if (scn_storm_test(c, 0, lone, &nlone))
		goto out;
	scn_note(c, "test 1: one reader per node (301), each reading its node every %s", c->quick ?
		 "100 ms (the seed's second, shortened by --quick to fit the window)" : "second");
	scn_storm_header(c);
	if (scn_storm_test(c, 1, NULL, NULL))
		goto out;
	scn_note(c, "test 2: %d readers (the seed's 10000 on 384 CPUs; --readers), each reading its own"
		 " node every %d ms%s", c->readers, scn_storm_interval_us(c, 2) / 1000,
		 c->quick ? " (the seed's 100 ms, shortened by --quick to keep 10000 reads/s)" : "");
	scn_storm_header(c);
	if (scn_storm_test(c, 2, storm, &nstorm))
		goto out;
	scn_storm_slowdown(c, lone, nlone, storm, nstorm);
	scn_note(c, "tests 3-5: read cost against subtree size (004): a lone reader of the root, a top-level"
		 " memcg and a leaf, every ms, rstat algorithms (read=spin)");
	scn_storm_header(c);
	for (int t = 3; t <= 5; t++)
		if (scn_storm_test(c, t, NULL, NULL))
			break;
out:
	free(lone);
	free(storm);
}

/* --- stat-read-pressure (003) ------------------------------------------------ */

/* 003's unit: the time of 10,000 reads, ms (the reps' median of the mean read). */
static double scn_10k_reads_ms(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_READ_NS_MEAN);
	return s->med.reads ? s->med.read_lat.mean * 10000 / 1e6 : NAN;
}

/* Its stddev over the reps: the coefficient of variation times the figure (NaN with one rep). */
static double scn_10k_sd(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return s->k > 1 && s->med.reads ? s->stat[BF_READ_NS_MEAN].cv * s->med.read_lat.mean * 10000 / 1e6 : NAN;
}

static void scn_read_pressure(struct scn_ctx *c)
{
	struct bench_config cfg;
	double base = NAN, base_sd = NAN;
	int stop;

	scn_common_notes(c, "2 updaters (pressure: +1/-1 swings on the leaves of tree:4x4) and one reader");
	scn_note(c, "the reader reads the root (17 nodes) back to back through the algorithm's own read,"
		 " as 003's benchmark 4 read memory.stat 10,000 times under memory pressure; 003 reports the"
		 " average and stddev over trials and their delta in %%: here over --reps, against the first"
		 " column");
	scn_header(c, "10000 reads", 26);
	cfg = scn_config(c, BENCH_READERS, "tree:4x4", c->pus);
	cfg.readers = 1;
	cfg.read_node = 0;
	cfg.read_interval_us = 0;
	stop = scn_measure_cols(c, &cfg, "one reader");
	bench_shape_free(&cfg.shape);
	scn_row(c, "average ms", 26, scn_10k_reads_ms);
	scn_row(c, "stddev ms", 26, scn_10k_sd);
	if (c->table && c->nr_algos && c->sums[0].k) {
		int noisy;

		base = scn_10k_reads_ms(&c->sums[0], &noisy);
		base_sd = scn_10k_sd(&c->sums[0], &noisy);
		printf("%-26s", "average delta %");
		for (int i = 0; i < c->nr_algos; i++) {
			double v = c->sums[i].k ? scn_10k_reads_ms(&c->sums[i], &noisy) : NAN;
			char buf[32];

			snprintf(buf, sizeof(buf), "%+.1f%%", 100 * (v / base - 1));
			printf(" %*s", SCN_COL, isnan(v) || isnan(base) ? "n/a" : buf);
		}
		printf("\n%-26s", "stddev delta %");
		for (int i = 0; i < c->nr_algos; i++) {
			double v = c->sums[i].k ? scn_10k_sd(&c->sums[i], &noisy) : NAN;
			char buf[32];

			snprintf(buf, sizeof(buf), "%+.1f%%", 100 * (v / base_sd - 1));
			printf(" %*s", SCN_COL, isnan(v) || isnan(base_sd) || !(base_sd > 0) ? "n/a" : buf);
		}
		putchar('\n');
	}
	scn_row(c, "read p99 ns", 26, scn_read_p99);
	(void)stop;
}

/* --- admission-staleness -------------------------------------------------- */

/* Of the audited attempts: from one rep, the one with the most false rejects (bench_summarize). */
static double scn_refused(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return s->med.audited ? 100.0 * (double)s->med.audit_rejected / (double)s->med.audited : NAN;
}

static double scn_audited(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return (double)s->med.audited;
}

static double scn_false_rejects(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return (double)s->med.false_rejects;
}

static double scn_false_pct(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return s->med.audit_rejected ? 100.0 * (double)s->med.false_rejects / (double)s->med.audit_rejected
				     : 0.0;
}

static double scn_overshoot(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return s->med.overshoot_max > 0 ? (double)s->med.overshoot_max / BENCH_CHARGE_UNIT : 0.0;
}

static void scn_admission(struct scn_ctx *c)
{
	const int workers = c->pus, burst = 64;
	static const struct scn_rowdef rows[] = {
		{ "refused % (audited)", scn_refused }, { "audited attempts", scn_audited },
		{ "false rejects", scn_false_rejects }, { "false rejects % of refusals", scn_false_pct },
		{ "worst overshoot (pages)", scn_overshoot },
	};
	struct bench_config cfg;
	char buf[160];
	int stop;

	snprintf(buf, sizeof(buf), "%d, each in bursts of %d stores (charges of a 4 KiB page) then as many"
		 " frees, on chain:4", workers, burst);
	scn_common_notes(c, buf);
	scn_note(c, "limit at every level: 3/4 of what the workers hold at a burst's top; 1 attempt in %u is"
		 " audited against the exact values of that moment (workers' published holdings)",
		 c->base.sample_every);
	scn_note(c, "with several reps the rows come from the rep with the most false rejects; the worst"
		 " overshoot is the worst of all reps");
	scn_note(c, "false reject: refused although every level had room (stale high: the premature OOM);"
		 " overshoot: admitted past a limit (stale low, or racing check-then-act)");
	scn_header(c, "admission", 28);
	cfg = scn_config(c, BENCH_CHARGE, "chain:4", workers);
	cfg.charge_burst = burst;
	stop = scn_measure_cols(c, &cfg, "bursts");
	bench_shape_free(&cfg.shape);
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
		scn_row(c, rows[r].name, 28, rows[r].fn);
	(void)stop;
}

/* --- subsys-flush-locks (bench/subsys.c) ------------------------------- */

static void scn_subsys(struct scn_ctx *c)
{
	/*
	 * 8 threads on 2 CPUs: in --quick's 60 ms window a subsystem's readers got
	 * no time slice under load (0 reads); a quick run here takes 300 ms.
	 */
	const int ms = c->quick && c->duration_ms < 300 ? 300 : c->duration_ms;
	const struct bench_subsys_args a = {
		.base = &c->base, .reps = c->reps, .duration_ms = ms, .warmup_ms = c->warmup_ms,
		.table = c->table, .raw = c->raw.fp ? c->raw.fp : c->table ? NULL : stdout,
	};

	c->failed |= bench_subsys_scenario(&a);
}

/* --- the list, and the command ------------------------------------------- */

static const struct scn scn_list[] = {
	{ "zswap-store-limit", "000_2f7e5ca340efc1f8.txt",
	  "CPU time per store that checks the limit at every level, depths 1-32", scn_store_limit,
	  "store_limit", "20 workers", 80 },
	{ "zswap-store-nolimit", "000_2f7e5ca340efc1f8.txt",
	  "the same store with no limit: the update path only", scn_store_nolimit,
	  "store_nolimit", "20 workers", 80 },
	{ "zswap-load-latency", "000_2f7e5ca340efc1f8.txt",
	  "load (uncharge) latency p50/p90/p95/p99/avg, depths 2-32", scn_load_latency,
	  "load_latency", "20 workers", 80 },
	{ "worker-scaling", "000_2f7e5ca340efc1f8.txt",
	  "CPU time per store at depth 8 for 10-80 workers", scn_worker_scaling,
	  NULL, "20 workers", 80 },
	{ "shrinker-count", "001_1254a0fcae606091.txt",
	  "shrinker count reads racing updates: flushes, flush lock contention and wait", scn_shrinker,
	  "lock_contention", "AMD EPYC 9684X, 96 cores / 192 threads, 12 NUMA nodes, production", 96 },
	{ "stat-read-storm", "004_8da19ccf0ddfde5d.txt",
	  "stat readers by the hundred: read latency per reader-side flush strategy", scn_read_storm,
	  "read_storm", "10K reader threads, 1K memcgs", 384 },
	{ "stat-read-pressure", "003_340db1117e54b711.txt",
	  "one reader reading a stat 10,000 times under update pressure: average, stddev, deltas", scn_read_pressure,
	  NULL, NULL, 0 },
	{ "admission-staleness", "000_2f7e5ca340efc1f8.txt",
	  "bursts of stores and frees against a limit: false rejections and overshoot", scn_admission,
	  NULL, "20 workers", 80 },
	{ "subsys-flush-locks", "kernel 6.16 (no seed)",
	  "two rstat subsystems, one flush lock or one each: contention per subsystem", scn_subsys,
	  NULL, NULL, 0 },
};
static const int scn_nr = (int)(sizeof(scn_list) / sizeof(scn_list[0]));

static const char *scn_names(void)
{
	static char buf[512];

	buf[0] = 0;
	for (int i = 0; i < scn_nr; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? ", " : "", scn_list[i].name);
	return buf;
}

static const char *const scn_help =
	"usage: ctrbench scenario list | NAME [options]\n"
	"\n"
	"A seed thread's experiment on this machine: its table, and every result as a JSON line in\n"
	"--out (ctrbench scenario list names them and their seeds).\n"
	"\n"
	"  --quick                  short runs, every scenario under 30 s (default off)\n"
	"  --format F               table or json (default table)\n"
	"  --out FILE               raw results (default ctrbench-NAME-DATE.jsonl, or -2, -3... if taken;\n"
	"                           never overwritten; one writer at a time: it is locked)\n"
	"  --reps K                 (default 3; 1 with --quick)\n"
	"  --duration-ms MS         (default 1000; stat-read-storm 3000; --quick 60, read storm 400)\n"
	"  --warmup-ms MS           (default 200; 20 with --quick)\n"
	"  --flush-period-ms MS     (default a tenth of --duration-ms)\n"
	"  --readers R              stat-read-storm only (default 1000; 100 with --quick)\n"
	"  --algo LIST              (default the scenario's own list)\n"
	"  --work-ns NS             (default 0)\n"
	"  --slots N                per-CPU slots (default the seed's CPU count: 80 for 000, 96 for 001,\n"
	"                           384 for 004; subsys-flush-locks: run's default)\n"
	"  --limit-headroom X       store scenarios' limits, X times the holdings (default 2: not hit)\n"
	"  --no-cap                 the seed's thread counts even past this machine's PUs (default: capped)\n"
	"  --resume                 with --out: reuse the configurations it already holds, run the rest\n"
	"                           (default: refuse a non-empty --out); a file of this scenario's results\n"
	"                           only, each configuration once (a partial last line is dropped)\n"
	"  --from FILE              print the tables from FILE's results, measuring nothing (default:\n"
	"                           measure); FILE: a scenario's --out, run with the same options\n"
	"\n"
	"example: ctrbench scenario zswap-store-limit --quick\n";

/* The scenario's options into c; algo_list and out as given (NULL if not). */
static void scn_parse(int argc, char **argv, struct scn_ctx *c, char **algo_list, const char **out)
{
	static const struct option opts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "format", required_argument, NULL, 'f' },
		{ "out", required_argument, NULL, 'o' },
		{ "reps", required_argument, NULL, 'k' },
		{ "duration-ms", required_argument, NULL, 'd' },
		{ "warmup-ms", required_argument, NULL, 'W' },
		{ "flush-period-ms", required_argument, NULL, 'P' },
		{ "readers", required_argument, NULL, 'r' },
		{ "algo", required_argument, NULL, 'a' },
		{ "work-ns", required_argument, NULL, 'X' },
		{ "no-cap", no_argument, NULL, 'C' },
		{ "resume", no_argument, NULL, 'R' },
		{ "from", required_argument, NULL, 'F' },
		{ "slots", required_argument, NULL, 'S' },
		{ "limit-headroom", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	c->reps = -1;
	c->readers = -1;
	c->warmup_ms = -1;
	c->flush_period_ms = -1;
	c->table = 1;
	opterr = 0;
	optind = 2;
	while ((opt = bench_getopt(argc, argv, opts)) != -1) {
		switch (opt) {
		case 'q':
			c->quick = 1;
			break;
		case 'f':
			if (strcmp(optarg, "table") && strcmp(optarg, "json"))
				die("unknown format '%s' (want table or json)", optarg);
			c->table = !strcmp(optarg, "table");
			break;
		case 'o':
			*out = optarg;
			break;
		case 'k':
			c->reps = bench_parse_int("reps", optarg, 1, 1000);
			break;
		case 'd':
			c->duration_ms = bench_parse_int("duration-ms", optarg, 1, 3600 * 1000);
			break;
		case 'W':
			c->warmup_ms = bench_parse_int("warmup-ms", optarg, 0, 3600 * 1000);
			break;
		case 'P':
			c->flush_period_ms = bench_parse_int("flush-period-ms", optarg, 1, 3600 * 1000);
			break;
		case 'r':
			c->readers = bench_parse_int("readers", optarg, 1, 4000);
			break;
		case 'a':
			*algo_list = optarg;
			break;
		case 'X':
			c->base.work_ns = bench_parse_int("work-ns", optarg, 0, 10 * 1000 * 1000);
			break;
		case 'C':
			c->no_cap = 1;
			break;
		case 'R':
			c->resume = 1;
			break;
		case 'F':
			c->from = optarg;
			break;
		case 'S':
			c->slots = bench_parse_int("slots", optarg, 1, 8192);
			break;
		case 'H':
			c->limit_headroom = bench_parse_num("limit-headroom", optarg, 0.01, 1000);
			break;
		default:
			bench_die_getopt(opt, argv);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	if (c->from && (*out || c->resume || !c->table))
		die("--from prints the tables of a results file: it takes no --out, --resume or --format json");
	if (c->from && c->s->run == scn_subsys)
		die("--from does not apply to subsys-flush-locks (its table is not made from result lines)");
	if (c->resume && c->s->run == scn_subsys)
		die("--resume does not apply to subsys-flush-locks (its lines are not result lines: it runs whole)");
	if (c->base.work_ns && (c->s->run == scn_read_storm || c->s->run == scn_shrinker || c->s->run == scn_subsys ||
				 c->s->run == scn_read_pressure))
		die("--work-ns applies to the store, load, scaling and admission scenarios");
	if (c->limit_headroom && c->s->run != scn_store_limit && c->s->run != scn_worker_scaling &&
	    c->s->run != scn_admission)
		die("--limit-headroom applies to the zswap-store-limit, worker-scaling and admission-staleness scenarios");
	if (c->slots && c->s->run == scn_subsys)
		die("--slots does not apply to subsys-flush-locks");
	if (c->readers >= 0 && c->s->run != scn_read_storm)
		die("--readers applies to the stat-read-storm scenario");
	/* its workers are this machine's PUs, never capped */
	if (c->no_cap && (c->s->run == scn_read_storm || c->s->run == scn_admission || c->s->run == scn_subsys ||
			  c->s->run == scn_read_pressure))
		die("--no-cap applies to the store, load, scaling and shrinker scenarios");
}

/* What was not given: the scenario's algorithms and defaults (--quick keeps each under 30 s here). */
static void scn_defaults(struct scn_ctx *c, char *algo_list)
{
	if (algo_list && c->s->run == scn_subsys)
		die("--algo does not apply to subsys-flush-locks (it runs rstat_llist, subsys=2, both lock modes)");
	if (algo_list) {
		c->nr_algos = bench_parse_algos(algo_list, c->algos);
		c->user_algos = 1;
	} else {
		scn_default_algos(c);
	}
	if (c->reps < 0)
		c->reps = c->quick ? 1 : 3;
	if (!c->slots)
		c->slots = c->s->seed_cpus;
	if (!c->limit_headroom && (c->s->run == scn_store_limit || c->s->run == scn_worker_scaling))
		c->limit_headroom = SCN_STORE_HEADROOM;
	if (!c->duration_ms)
		c->duration_ms = c->s->run == scn_read_storm ? (c->quick ? 400 : 3000) : c->quick ? 60 : 1000;
	if (c->warmup_ms < 0)
		c->warmup_ms = c->quick ? 20 : 200;
	if (c->flush_period_ms < 0)
		c->flush_period_ms = c->duration_ms / 10 > 0 ? c->duration_ms / 10 : 1;
	if (c->readers < 0)
		c->readers = c->quick ? 100 : 1000;
	if (c->s->run == scn_read_storm && c->quick && !c->user_algos) {
		/* quick: the two flush designs 004 compares, under every strategy */
		c->nr_algos = 0;
		c->algos[c->nr_algos++] = bench_algo_find("rstat_force");
		c->algos[c->nr_algos++] = bench_algo_find("rstat_unified");
	}
}

/*
 * The progress line's plan: the scenario run once with scn_measure counting
 * instead of measuring and its table going to /dev/null, so the time left is
 * known from the first row.  subsys-flush-locks runs its own threads, not
 * scn_measure: it gets no plan (elapsed only).
 */
static void scn_plan(struct scn_ctx *c)
{
	struct scn_ctx saved = *c;
	int keep = dup(STDOUT_FILENO), nul = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (c->s->run != scn_subsys && keep >= 0 && nul >= 0) {
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

/* `ctrbench scenario list`. */
static int scn_print_list(int argc, char **argv)
{
	if (argc > 2)
		die("unexpected argument '%s'", argv[2]);
	for (int i = 0; i < scn_nr; i++)
		printf("%-20s %-26s %s\n", scn_list[i].name, scn_list[i].seed, scn_list[i].what);
	return 0;
}

int bench_cmd_scenario(int argc, char **argv)
{
	struct scn_ctx *c = calloc(1, sizeof(*c));
	const char *out = NULL;
	char *algo_list = NULL, *path = NULL;
	int failed;

	bench_help(argc, argv, scn_help);
	if (!c)
		die("out of memory");
	if (argc < 2)
		die("scenario needs a name or list (%s)", scn_names());
	if (!strcmp(argv[1], "list")) {
		free(c);
		return scn_print_list(argc, argv);
	}
	for (int i = 0; i < scn_nr; i++)
		if (!strcmp(argv[1], scn_list[i].name))
			c->s = &scn_list[i];
	if (!c->s)
		die("unknown scenario '%s' (want %s)", argv[1], scn_names());
	for (int i = 2; i < argc; i++)
		if (!strncmp(argv[i], "--project", 9)) {	/* the projection instead of a run */
			free(c);
			return bench_scenario_project(argc, argv);
		}
	scn_parse(argc, argv, c, &algo_list, &out);
	scn_defaults(c, algo_list);
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
	c->sums = calloc(c->nr_algos, sizeof(*c->sums));
	if (!c->sums)
		die("out of memory");

	if (c->resume && !out)
		die("--resume needs --out FILE (the results it continues)");
	if (!c->from) {
		out = scn_raw_out(c, out, &path);
		scn_plan(c);
	}
	c->s->run(c);
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
	free(path);
	free(c);
	return failed ? 1 : 0;
}
