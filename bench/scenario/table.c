/* SPDX-License-Identifier: MIT */
/*
 * table.c - the scenarios' tables (scenario.h): a header row of columns,
 * rows of cells (n/a, FAIL, "~" after a noisy median, "[k/K]" after a
 * partial one), the notes every header has, and under a row the seed's
 * posted figure and ours/seed, read at run time from tables.csv
 * (bench/seeds.h): no posted figure is typed into code.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"
#include "../output.h"
#include "scenario.h"

/*
 * The default (narrow) table fits BENCH_COLUMNS (issue 31: 214 to 364
 * columns, one per algorithm): a row of the wide table becomes one line
 * per algorithm, "label  algo  ours  seed  ours/seed", the label on its
 * first; --wide (c->wide) keeps the algorithms side by side, the seed's
 * figures and ours/seed in rows of their own under each row.
 */
#define SCN_NARROW_ALGO 21	/* the longest algorithm name */
#define SCN_NARROW_COL 12	/* ours, seed, ours/seed */

/* The narrow table has seed and ours/seed columns: the scenario has a seed table and its figures were read. */
static int scn_narrow_seeds(const struct scn_ctx *c)
{
	return c->s->seed_table && !c->seeds.why;
}

/* One narrow line: the label (or blanks), the algorithm, its cell, the seed's and the ratio's where the table has them. */
static void scn_narrow_line(const struct scn_ctx *c, const char *label, int width, const char *algo,
			    const char *ours, const char *seed, const char *ratio)
{
	printf("%-*s %-*s %*s", width, label, SCN_NARROW_ALGO, algo, SCN_NARROW_COL, ours);
	if (scn_narrow_seeds(c))
		printf(" %*s %*s", SCN_NARROW_COL, seed, SCN_NARROW_COL, ratio);
	putchar('\n');
}

/* The seed's four designs (000's tables): its column, and the algorithm that stands for it. */
const struct scn_design scn_designs[4] = {
	{ "a_rstat_force", "rstat_force" },
	{ "b_rstat_ratelimit", "rstat_ratelimit" },
	{ "c_percpu_hier", "percpu_hier" },
	{ "d_page_counter", "atomic_tree" },
};

void scn_header(const struct scn_ctx *c, const char *corner, int width)
{
	if (!c->table)
		return;
	if (!c->wide) {
		char seed[32];

		snprintf(seed, sizeof(seed), "seed %.3s", c->s->seed);
		scn_narrow_line(c, corner, width, "algo", "ours", seed, "ours/seed");
		return;
	}
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
static void scn_cell_fmt(char *buf, size_t len, const struct bench_summary *s, double v, int noisy, int reps)
{
	if (!s->k)
		snprintf(buf, len, "not run");
	else if (s->med.verify == 0)
		snprintf(buf, len, "FAIL");
	else if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (fabs(v) >= 1000 || v == floor(v))
		snprintf(buf, len, "%.0f%s", v, noisy ? "~" : "");
	else if (fabs(v) >= 1)
		snprintf(buf, len, "%.1f%s", v, noisy ? "~" : "");
	else
		snprintf(buf, len, "%.3g%s", v, noisy ? "~" : "");
	if (s->k && s->k < reps)
		snprintf(buf + strlen(buf), len - strlen(buf), "[%d/%d]", s->k, reps);
}

void scn_row_cells(const struct scn_ctx *c, const char *label, int width, char (*cells)[64])
{
	if (!c->table)
		return;
	if (!c->wide) {
		for (int i = 0; i < c->nr_algos; i++)
			scn_narrow_line(c, i ? "" : label, width, c->algos[i]->name, cells[i], "-", "-");
		fflush(stdout);
		return;
	}
	printf("%-*s", width, label);
	for (int i = 0; i < c->nr_algos; i++)
		printf(" %*s", SCN_COL, cells[i]);
	putchar('\n');
	fflush(stdout);
}

static int scn_short_reps_said;	/* the [k/K] note printed */

/* The cells of a row (scn_row), with the seed's figures and ours/seed of ref where it has them (NULL: none). */
static void scn_row_ref(const struct scn_ctx *c, const char *label, int width, scn_value_fn fn,
			const struct scn_seedref *ref);

void scn_row(const struct scn_ctx *c, const char *label, int width, scn_value_fn fn)
{
	scn_row_ref(c, label, width, fn, NULL);
}

static const struct bench_seed_fig *scn_seed_fig(const struct scn_ctx *c, const struct scn_seedref *ref,
						 const char *algo);
static void scn_seed_cells(const struct bench_seed_fig *g, double scale, double ours, char *fig, char *ratio,
			   size_t len);

static void scn_row_ref(const struct scn_ctx *c, const char *label, int width, scn_value_fn fn,
			const struct scn_seedref *ref)
{
	char cells[BENCH_MAX_ALGOS][64];
	int short_reps = 0;

	if (!c->table)
		return;
	for (int i = 0; i < c->nr_algos; i++) {
		int noisy = 0;
		double v = c->sums[i].k ? fn(&c->sums[i], &noisy) : NAN;

		scn_cell_fmt(cells[i], sizeof(cells[i]), &c->sums[i], v, noisy, c->reps);
		short_reps |= c->sums[i].k && c->sums[i].k < c->reps;
	}
	if (c->wide || !ref || !ref->row) {
		scn_row_cells(c, label, width, cells);
	} else {
		const double scale = ref->scale > 0 ? ref->scale : 1;

		for (int i = 0; i < c->nr_algos; i++) {
			const struct bench_seed_fig *g = scn_seed_fig(c, ref, c->algos[i]->name);
			char fig[64], ratio[64];
			int noisy = 0;
			double v = c->sums[i].k && c->sums[i].med.verify != 0 ? fn(&c->sums[i], &noisy) : NAN;

			scn_seed_cells(g, scale, v, fig, ratio, sizeof(fig));
			/* unlike quantities: no ratio, the header's note says why */
			scn_narrow_line(c, i ? "" : label, width, c->algos[i]->name, cells[i], fig,
					ref->unlike ? "-" : ratio);
		}
	}
	/* said once, under the first such row: one scenario a process (issue 31: under every row) */
	if (short_reps && !scn_short_reps_said++)
		printf("# [k/K] = from k of the K reps asked (interrupted); --resume measures the rest\n");
	fflush(stdout);
}

/* v as a cell prints it: whole numbers from 1000 up, one decimal from 1, 3 digits below. */
void scn_fmt(char *buf, size_t len, double v)
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

/* The seed's column of algorithm name in 000's design tables, NULL if none is one of them. */
const char *scn_seed_col(const char *name)
{
	for (size_t i = 0; i < sizeof(scn_designs) / sizeof(scn_designs[0]); i++)
		if (!strcmp(name, scn_designs[i].algo))
			return scn_designs[i].column;
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

	if (!c->table || !ref->row || !c->wide)	/* narrow: on the row's lines (scn_row_ref) */
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
	putchar('\n');
	/* unlike quantities (the seed's include work ours does not): no ratio, its header note says why */
	if (ref->unlike)
		return;
	printf("%-*s", width, "  ours/seed");
	for (int i = 0; i < c->nr_algos; i++)
		printf(" %*s", SCN_COL, ratio[i]);
	putchar('\n');
}

/* scn_row, then the seed's figures of ref under it and ours/seed. */
void scn_row_seed(const struct scn_ctx *c, const char *label, int width, scn_value_fn fn,
			 const struct scn_seedref *ref)
{
	scn_row_ref(c, label, width, fn, ref);
	scn_seed_beside(c, ref, width, fn);
	fflush(stdout);
}

int scn_noisy(const struct bench_summary *s, int m)
{
	return s->k > 1 && s->stat[m].cv > BENCH_NOISY_CV;
}

double scn_cpu_ns(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_CPU_NS_PER_OP);
	return s->med.cpu_ns_per_op;
}

/* Wall time per op: threads x window / ops (what a worker spends per store, on CPU or not). */
double scn_wall_ns(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_NS_PER_OP);
	return s->med.ns_per_op;
}

void scn_note(const struct scn_ctx *c, const char *fmt, ...)
{
	va_list ap;
	char *text;
	int n;

	if (!c->table)
		return;
	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {	/* no memory to break it: the note as it is */
		fputs("# ", stdout);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
		return;
	}
	bench_print_wrapped(stdout, "# ", "#   ", "", text, c->wide);
	free(text);
}

/*
 * The algorithms of the suite that take SCN_RSTAT_UPDATE, as the header
 * names them: the first whole, the next ones from the first's prefix on
 * ("rstat_force, _ratelimit, _threshold and _unified").
 */
static const char *scn_memcg_names(char *buf, size_t len)
{
	const char *first = NULL;
	size_t pre = 0;
	int n = 0, total = 0;

	for (int i = 0; i < bench_nr_algos; i++)
		total += scn_takes(&bench_algos[i], SCN_RSTAT_UPDATE);
	*buf = 0;
	for (int i = 0; i < bench_nr_algos; i++) {
		const char *name = bench_algos[i].name;

		if (!scn_takes(&bench_algos[i], SCN_RSTAT_UPDATE))
			continue;
		if (!first) {
			first = name;
			pre = strcspn(name, "_");
		}
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", !n ? "" : n == total - 1 ? " and " : ", ",
			 n && !strncmp(name, first, pre) && name[pre] == '_' ? name + pre : name);
		n++;
	}
	return buf;
}

void scn_common_notes(const struct scn_ctx *c, const char *workers)
{
	char names[512];

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
		scn_note(c, "%s run with options %s (memcg's update: the ancestor walk for the flush threshold) and"
			 " their default lockkind=spin (the kernel's spinning flush lock: waiting is CPU time)",
			 scn_memcg_names(names, sizeof(names)), SCN_RSTAT_UPDATE);
	if (c->from)
		scn_note(c, "read from %s (--from: nothing measured now)", c->from);
	if (c->s->seed_table && c->seeds.why)
		scn_note(c, "seed figures: %s %s (set CTRBENCH_SEEDS to tables.csv): none shown", c->seeds.path,
			 c->seeds.why);
	else if (c->s->seed_table && c->wide)
		scn_note(c, "under a row: the seed's posted figure (\"seed %.3s\", from tables.csv, table %s) and"
			 " ours/seed where the two are one quantity", c->s->seed, c->s->seed_table);
	else if (c->s->seed_table)
		scn_note(c, "beside ours: the seed's posted figure (\"seed %.3s\", from tables.csv, table %s) and"
			 " ours/seed where the two are one quantity (\"-\": none)", c->s->seed, c->s->seed_table);
	scn_note(c, "periodic flush every %d ms where an algorithm has a flusher (the kernel's is 2000 ms:"
		 " scaled so a window holds about 10; --flush-period-ms)", c->flush_period_ms);
}

double scn_read_p99(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_READ_NS_P99);
	return s->med.reads ? s->med.read_lat.p99 : NAN;
}

