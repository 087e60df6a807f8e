/* SPDX-License-Identifier: MIT */
/*
 * next.c - what recommend would measure next (recommend.h): the quick sweep
 * it runs without --results, and for each tie, each rank without an
 * interval and a missing workload, the sweep and recommend command lines
 * (quoted for a shell) that would settle it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../topology/topo.h"
#include <jansson.h>

#include "../cli.h"
#include "recommend.h"
#include "../run.h"
#include "../sweep.h"

/* The quick sweep recommend runs without --results: short, one repetition. */
#define REC_QUICK_DURATION_MS 100
#define REC_QUICK_WARMUP_MS 20

/* ---- what to measure next ---- */

/* s for a shell: as is when it has nothing the shell reads, else in single quotes. */
static void rec_sh(FILE *f, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:=/+%-") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* The members of set, comma-separated (sep ';' where one has a comma: list: placements). */
static void rec_sh_list(FILE *f, json_t *set)
{
	char sep = ',', *t;
	size_t i, len = 0;
	json_t *x;

	json_array_foreach(set, i, x)
		if (strchr(json_string_value(x), ','))
			sep = ';';
	json_array_foreach(set, i, x)
		len += strlen(json_string_value(x)) + 1;
	t = bench_xcalloc(1, len + 1);
	json_array_foreach(set, i, x) {
		if (i)
			t[strlen(t)] = sep;
		strcat(t, json_string_value(x));
	}
	rec_sh(f, t);
	free(t);
}

static void rec_add_all(json_t *set, json_t *from)
{
	size_t i;
	json_t *x;

	json_array_foreach(from, i, x)
		bench_rec_add_once(set, json_string_value(x));
}

/*
 * The sweep that measures the variants of vs (those with vs[0]'s knobs) in
 * the workloads asked for, at the configurations their figures came from
 * (shapes, threads and placements of the lines used, their longest duration
 * and warm-up), with reps repetitions, into out: one command, malloc'd.
 */
static char *rec_sweep_cmd(struct rec_variant *const *vs, int n, int upd, int rd, int reps, const char *out,
			   int resume)
{
	json_t *algos = json_array(), *shapes = json_array(), *placements = json_array(), *threads = json_array();
	int dur = 0, warm = 0;
	char *cmd = NULL, num[16];
	size_t len = 0;
	FILE *f = open_memstream(&cmd, &len);

	if (!f)
		die("out of memory");
	for (int i = 0; i < n; i++) {
		const struct rec_pick *ps[2] = { &vs[i]->upd, &vs[i]->rd };

		if (!bench_rec_str_eq(vs[i]->options, vs[0]->options) || vs[i]->flush_period_ms != vs[0]->flush_period_ms)
			continue;
		bench_rec_add_once(algos, vs[i]->algo);
		for (int k = 0; k < 2; k++) {
			if (!ps[k]->found)
				continue;
			rec_add_all(shapes, ps[k]->shapes);
			rec_add_all(placements, ps[k]->placements);
			snprintf(num, sizeof(num), "%d", ps[k]->threads);
			bench_rec_add_once(threads, num);
			dur = ps[k]->duration_ms > dur ? ps[k]->duration_ms : dur;
			warm = ps[k]->warmup_ms > warm ? ps[k]->warmup_ms : warm;
		}
	}
	fputs("ctrbench sweep --algo ", f);
	rec_sh_list(f, algos);
	fprintf(f, " --workload %s --shape ", upd && rd ? "update,readers" : upd ? "update" : "readers");
	rec_sh_list(f, shapes);
	fputs(" --threads ", f);
	rec_sh_list(f, threads);
	fputs(" --placement ", f);
	rec_sh_list(f, placements);
	fprintf(f, " --reps %d", reps);
	if (dur)
		fprintf(f, " --duration-ms %d", dur);
	if (warm)
		fprintf(f, " --warmup-ms %d", warm);
	if (vs[0]->options) {
		fputs(" --options ", f);
		rec_sh(f, vs[0]->options);
	}
	if (vs[0]->flush_period_ms)
		fprintf(f, " --flush-period-ms %d", vs[0]->flush_period_ms);
	fputs(" --out ", f);
	rec_sh(f, out);
	if (resume)
		fputs(" --resume", f);
	fclose(f);
	json_decref(algos);
	json_decref(shapes);
	json_decref(placements);
	json_decref(threads);
	return cmd;
}

/* One sweep command per set of knobs (options, flush period) among vs[0..n), as a JSON array. */
static json_t *rec_sweep_cmds(struct rec_variant *const *vs, int n, int upd, int rd, int reps, const char *out,
			      int resume)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++) {
		int first = 1;
		char *c;

		for (int k = 0; k < i; k++)
			first &= !(bench_rec_str_eq(vs[k]->options, vs[i]->options) &&
				   vs[k]->flush_period_ms == vs[i]->flush_period_ms);
		if (!first)
			continue;
		c = rec_sweep_cmd(vs + i, n - i, upd, rd, reps, out, resume);
		json_array_append_new(a, json_string(c));
		free(c);
	}
	return a;
}

/* The recommend that asks the same question of results in file: malloc'd. */
static char *rec_again_cmd(const struct rec_query *q, const char *file)
{
	char *cmd = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&cmd, &len);

	if (!f)
		die("out of memory");
	fprintf(f, "ctrbench recommend --updates-per-sec %.6g --reads-per-sec %.6g --depth %d --threads %d"
		" --max-staleness ", q->updates, q->reads, q->depth, q->threads);
	rec_sh(f, q->spec);
	fputs(" --results ", f);
	rec_sh(f, file);
	fclose(f);
	return cmd;
}

/*
 * What would separate the tie at o[0..n) (in cost order): the workloads
 * whose part of the cost overlaps between neighbours (both if neither alone
 * does: *sum_only), and how many reps: an interval of a median narrows about as
 * 1 / sqrt(reps), so neighbours a gap d apart with half-widths summing to w
 * at k reps part at about k (w / d)^2.  *reps: that estimate, clamped to
 * 6..100 (6: the fewest with a 95% interval); *hopeless: more than 100.
 */
static void rec_tie_plan(struct rec_variant *const *o, int n, const struct rec_query *q, int *upd, int *rd,
			 int *sum_only, int *reps, int *hopeless)
{
	double need = 0;
	int k = 0;

	*upd = *rd = *sum_only = 0;
	for (int i = 0; i < n; i++) {
		int r = o[i]->upd.reps < o[i]->rd.reps ? o[i]->upd.reps : o[i]->rd.reps;

		k = !k || r < k ? r : k;
	}
	for (int i = 1; i < n; i++) {
		const struct rec_variant *a = o[i - 1], *b = o[i];
		double d = b->cost - a->cost, w;

		if (!a->has_iv || !b->has_iv) {
			*upd = *rd = 1;
			continue;
		}
		*upd |= q->updates * a->upd.hi >= q->updates * b->upd.lo && q->updates * b->upd.hi >= q->updates * a->upd.lo;
		*rd |= q->reads * a->rd.hi >= q->reads * b->rd.lo && q->reads * b->rd.hi >= q->reads * a->rd.lo;
		w = (a->cost_hi - a->cost) + (b->cost - b->cost_lo);
		need = fmax(need, d > 0 ? k * (w / d) * (w / d) : INFINITY);
	}
	if (!*upd && !*rd)
		*sum_only = *upd = *rd = 1;
	*hopeless = need > 100;
	*reps = need > 100 ? 100 : need < 6 ? 6 : (int)ceil(need);
	if (*reps <= k)
		*reps = k + 1 > 100 ? 100 : k + 1;
}

/* "[0.0551, 0.0602] 77%", or why there is none */

/* No --results: measure now, briefly, on this machine.  0, or 1 when interrupted. */
int bench_rec_quick_sweep(struct rec_state *st)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct bench_sweep s = { .reps = 1, .duration_ms = REC_QUICK_DURATION_MS,
				 .warmup_ms = REC_QUICK_WARMUP_MS, .readers = -1 };
	static const char *workloads[] = { "update", "readers" };
	char shape[32], *shapes[1] = { shape }, *placements[1] = { "compact" };
	const struct bench_algo **algos = calloc((size_t)bench_nr_algos, sizeof(*algos));
	char errbuf[256];
	struct topo *t = topo_load(NULL, errbuf, sizeof(errbuf));
	int pus, fd;

	if (!t)
		die("%s", errbuf);
	pus = topo_nr_pus(t);
	topo_free(t);
	if (!algos || asprintf(&st->quick, "%s/ctrbench-recommend-XXXXXX.jsonl", dir) < 0)
		die("out of memory");
	fd = mkstemps(st->quick, 6);
	if (fd < 0)
		die("cannot create a results file in '%s': %s", dir, strerror(errno));
	close(fd);
	for (int i = 0; i < bench_nr_algos; i++)
		if (!bench_algos[i].baseline)
			algos[s.nr_algos++] = &bench_algos[i];
	snprintf(shape, sizeof(shape), "chain:%d", st->q.depth);
	s.algo = algos;
	s.workload = workloads;
	s.nr_workloads = 2;
	s.shape = shapes;
	s.nr_shapes = 1;
	s.threads = &pus;
	s.nr_threads = 1;
	s.placement = placements;
	s.nr_placements = 1;
	s.out = st->quick;
	fprintf(stderr, "ctrbench: recommend: no --results: measuring now (update and readers at %s,"
		" %d threads, %d ms each, 1 rep) into %s\n", shape, pus, REC_QUICK_DURATION_MS, st->quick);
	bench_sweep_check(&s);
	st->status = bench_sweep_exec(&s);
	free(algos);
	if (st->status && bench_sweep_interrupted())
		return 1;
	st->results = st->quick;
	if (!st->q.threads)
		st->q.threads = pus;
	return 0;
}

/* What the answer cannot tell, and the measurement that would: ties, ranks with no interval, a workload missing. */
void bench_rec_findings(struct rec_state *st)
{
	struct rec_variant **vs = bench_xcalloc((size_t)st->nr_var + 1, sizeof(*vs));
	int n = 0;

	st->ties = json_array();
	for (int i = 0; i < st->ranked; i = i + n) {
		struct rec_variant **g = st->order + i;
		int upd, rd, sum_only, reps, hopeless;
		char out[32], *again;
		json_t *algos = json_array(), *t;

		for (n = 1; i + n < st->ranked && g[n]->rank == g[0]->rank; n++)
			;
		if (n < 2) {
			json_decref(algos);
			continue;
		}
		rec_tie_plan(g, n, &st->q, &upd, &rd, &sum_only, &reps, &hopeless);
		for (int k = 0; k < n; k++)
			json_array_append_new(algos, json_string(g[k]->label));
		snprintf(out, sizeof(out), "tie-rank%d.jsonl", g[0]->rank);
		again = rec_again_cmd(&st->q, out);
		t = json_pack("{s:i,s:o,s:f,s:f,s:s,s:i,s:b,s:o,s:s}", "rank", g[0]->rank, "algos", algos,
			      "gap", g[n - 1]->cost - g[0]->cost, "cheapest", g[0]->cost,
			      "overlap_in", sum_only ? "sum" : upd && rd ? "both" : upd ? "update" : "read",
			      "reps", reps, "hopeless", hopeless,
			      /* both workloads: the recommend on out needs both */
			      "sweep", rec_sweep_cmds(g, n, 1, 1, reps, out, 0), "recommend", again);
		free(again);
		json_array_append_new(st->ties, t);
	}
	n = 0;
	for (int i = 0; i < st->ranked; i++)
		if (!st->order[i]->has_iv)
			vs[n++] = st->order[i];
	st->untested = json_null();
	if (n) {
		json_t *algos = json_array();
		char *again = rec_again_cmd(&st->q, "reps.jsonl");

		for (int k = 0; k < n; k++)
			json_array_append_new(algos, json_string(vs[k]->label));
		json_decref(st->untested);
		st->untested = json_pack("{s:o,s:o,s:s}", "algos", algos,
					 "sweep", rec_sweep_cmds(vs, n, 1, 1, 5, "reps.jsonl", 0), "recommend", again);
		free(again);
	}
	st->missing = json_null();
	if (!st->nr_readers || !st->nr_update) {
		int reps = 0;

		n = 0;
		for (int i = 0; i < st->nr_var; i++) {
			const struct rec_pick *p = st->var[i].upd.found ? &st->var[i].upd : &st->var[i].rd;

			vs[n++] = &st->var[i];
			reps = !reps || p->reps < reps ? p->reps : reps;
		}
		json_decref(st->missing);
		st->missing = json_pack("{s:s,s:s,s:o}", "workload", st->nr_readers ? "update" : "readers",
					"file", st->results, "sweep",
					rec_sweep_cmds(vs, n, !st->nr_update, !st->nr_readers, reps ? reps : 1,
						       st->results, 1));
	}
	free(vs);
}
