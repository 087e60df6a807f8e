/* SPDX-License-Identifier: MIT */
/*
 * model.c - recommend's analysis (recommend.h): the result lines it can use,
 * grouped into algorithm variants, each variant's update and read figure at
 * the target's depth and threads, the staleness rule, the rank by cost and
 * what the figures were measured on.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "../cli.h"
#include "recommend.h"
#include "../schema.h"
#include "../run.h"

int bench_rec_int(json_t *o, const char *path, long long *v)
{
	json_t *j = bench_json_path(o, path);

	if (!json_is_integer(j))
		return 0;
	*v = json_integer_value(j);
	return 1;
}

int bench_rec_num(json_t *o, const char *path, double *v)
{
	json_t *j = bench_json_path(o, path);

	if (!json_is_number(j))
		return 0;
	*v = json_number_value(j);
	return 1;
}


/* ---- reading and grouping ---- */

/*
 * A line measured the plain cost the model adds up: no private work between
 * updates (--work-ns), no charge bursts, back-to-back reads of random nodes.
 * Others measured something else and would skew an average they joined.
 */
static int rec_plain_cost(json_t *o)
{
	long long v = 0;
	json_t *node = json_object_get(o, "read_node");

	if ((bench_rec_int(o, "work_ns", &v) && v) || (bench_rec_int(o, "charge_burst", &v) && v) ||
	    (bench_rec_int(o, "read_interval_us", &v) && v))
		return 0;
	return !node || json_is_null(node) || (json_is_string(node) && !strcmp(json_string_value(node), "random"));
}

int bench_rec_str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* What makes a variant: the algorithm and the knobs every workload carries. */
static int rec_in_variant(int f)
{
	return f == BF_ALGO || (bench_fields[f].ident == BI_KNOB && bench_fields[f].when == BW_ALL);
}

static struct rec_variant *rec_variant_of(struct rec_variant **v, int *n, json_t *o)
{
	const char *algo = json_string_value(json_object_get(o, "algo"));
	char *key = bench_line_key(o, rec_in_variant);
	long long period = 0;
	struct rec_variant *x;

	for (int i = 0; i < *n; i++) {
		if (!strcmp((*v)[i].key, key)) {
			free(key);
			return &(*v)[i];
		}
	}
	bench_rec_int(o, "flush_period_ms", &period);
	*v = realloc(*v, sizeof(**v) * (size_t)(*n + 1));
	if (!*v)
		die("out of memory");
	x = &(*v)[(*n)++];
	memset(x, 0, sizeof(*x));
	x->key = key;
	x->algo = algo;
	x->options = json_string_value(json_object_get(o, "options"));
	x->flush_period_ms = (int)period;
	x->baseline = json_is_true(json_object_get(o, "baseline"));
	snprintf(x->label, sizeof(x->label), "%s", algo);
	for (int f = 0; f < BF_NR; f++) {
		json_t *val = bench_line_field(o, f), *d;

		if (!rec_in_variant(f) || f == BF_ALGO || !val)
			continue;
		d = bench_fields[f].def ? json_loads(bench_fields[f].def, JSON_DECODE_ANY, NULL) : NULL;
		if (!d || !json_equal(val, d)) {
			char *t = json_is_string(val) ? strdup(json_string_value(val)) :
				  json_dumps(val, JSON_COMPACT | JSON_ENCODE_ANY);

			/* the two knobs every reader knows keep their short labels */
			if (f == BF_OPTIONS)
				snprintf(x->label + strlen(x->label), sizeof(x->label) - strlen(x->label),
					 " [%s]", t ? t : "?");
			else if (f == BF_FLUSH_PERIOD_MS)
				snprintf(x->label + strlen(x->label), sizeof(x->label) - strlen(x->label),
					 " [flush %s ms]", t ? t : "?");
			else
				snprintf(x->label + strlen(x->label), sizeof(x->label) - strlen(x->label),
					 " [%s=%s]", bench_fields[f].path, t ? t : "?");
			free(t);
		}
		json_decref(d);
	}
	return x;
}

/* The lines of variant v and this workload that carry the figure at path. */
static int rec_lines_of(const struct rec_line *all, int n, const struct rec_variant *v,
			const char *workload, const char *path, const struct rec_line **out)
{
	int k = 0;

	for (int i = 0; i < n; i++) {
		char *key;
		double x;

		if (strcmp(all[i].workload, workload) || !bench_rec_num(all[i].o, path, &x))
			continue;
		key = bench_line_key(all[i].o, rec_in_variant);
		if (!strcmp(key, v->key))
			out[k++] = &all[i];
		free(key);
	}
	return k;
}

/*
 * The mean exact value of the nodes a readers line read: its readers pick
 * nodes at random (the plain cost), its updaters swing their leaf from 0 to
 * BENCH_SWING and back (bench/loops.c), so a node's value averages
 * BENCH_SWING / 2 per updater under it.  The line does not record the values
 * read; this derives their mean from its shape and threads, as run places
 * them (updater i on leaf i mod leaves).  -1 for a shape this build cannot parse.
 */
static double rec_value_read(json_t *o, int threads)
{
	const char *spec = json_string_value(json_object_get(o, "shape")), *why;
	struct bench_shape sh = { 0 };
	double sum = 0;

	if (!spec || bench_shape_parse(spec, &sh, &why))
		return -1;
	for (int i = 0; i < threads; i++)
		for (int n = sh.leaves[i % sh.nr_leaves]; n >= 0; n = sh.parent[n])
			sum += BENCH_SWING / 2.0;
	sum /= sh.nr_nodes;
	bench_shape_free(&sh);
	return sum;
}

void bench_rec_add_once(json_t *set, const char *s)
{
	size_t i;
	json_t *x;

	json_array_foreach(set, i, x)
		if (!strcmp(json_string_value(x), s))
			return;
	json_array_append_new(set, json_string(s));
}

/*
 * Mean of the figure over the lines at (threads, depth); adds them to
 * p->lines.  *lo and *hi: the mean of their intervals (stats.PATH.lo/hi,
 * the order-statistic interval of each line's median over its reps), NAN
 * when a line has none (one rep).
 */
static double rec_mean_at(const struct rec_line **l, int n, int threads, int depth, const char *path,
			  struct rec_pick *p, double *lo, double *hi)
{
	double sum = 0, slo = 0, shi = 0;
	int k = 0;

	for (int i = 0; i < n; i++) {
		json_t *st;
		double x = 0, vr;
		long long b, e, cpus, reps = 1, ms = 0;

		if (l[i]->threads != threads || l[i]->depth != depth)
			continue;
		bench_rec_num(l[i]->o, path, &x);
		sum += x;
		k++;
		st = json_object_get(json_object_get(l[i]->o, "stats"), path);
		if (json_is_number(json_object_get(st, "lo")) && json_is_number(json_object_get(st, "hi")) &&
		    json_is_number(json_object_get(st, "level"))) {
			slo += json_number_value(json_object_get(st, "lo"));
			shi += json_number_value(json_object_get(st, "hi"));
			p->level *= json_number_value(json_object_get(st, "level"));
		} else {
			p->has_iv = 0;
		}
		bench_rec_int(l[i]->o, "reps_done", &reps);
		if (!p->reps || reps < p->reps)
			p->reps = (int)reps;
		if (bench_rec_int(l[i]->o, "duration_ms", &ms) && ms > p->duration_ms)
			p->duration_ms = (int)ms;
		if (bench_rec_int(l[i]->o, "warmup_ms", &ms) && ms > p->warmup_ms)
			p->warmup_ms = (int)ms;
		bench_rec_add_once(p->shapes, json_string_value(json_object_get(l[i]->o, "shape")));
		bench_rec_add_once(p->placements, json_string_value(json_object_get(l[i]->o, "placement")) ?
			     json_string_value(json_object_get(l[i]->o, "placement")) : "compact");
		if (!strcmp(l[i]->workload, "readers") && (vr = rec_value_read(l[i]->o, threads)) >= 0 &&
		    (p->value_read < 0 || vr < p->value_read))
			p->value_read = vr;
		json_array_append_new(p->lines, json_pack("{s:i,s:s,s:s,s:i,s:i,s:f}",
				      "line", l[i]->lineno,
				      "shape", json_string_value(json_object_get(l[i]->o, "shape")),
				      "placement", json_string_value(json_object_get(l[i]->o, "placement")) ?
				      json_string_value(json_object_get(l[i]->o, "placement")) : "?",
				      "depth", depth, "threads", threads, "value", x));
		/* by time (-1) wins over any count: it is not bounded by one */
		if (bench_rec_int(l[i]->o, "read_error_bound", &b) && p->bound >= 0)
			p->bound = b < 0 ? -1 : b > p->bound ? b : p->bound;
		if (bench_rec_int(l[i]->o, "read_error_at_rest", &e) && llabs(e) > p->observed)
			p->observed = llabs(e);
		if (bench_rec_int(l[i]->o, "read_error.max_abs", &e) && llabs(e) > p->observed)
			p->observed = llabs(e);
		if (bench_rec_num(l[i]->o, "flush.flush_ns.max", &x) && x > p->flush_max_ns)
			p->flush_max_ns = x;
		if (!p->mismatch_line && bench_rec_str_eq(json_string_value(json_object_get(l[i]->o, "verify")),
						    "mismatch"))
			p->mismatch_line = l[i]->lineno;
		{
			long long r = 0;

			bench_rec_int(l[i]->o, "readers", &r);
			if (bench_rec_int(l[i]->o, "cpus", &cpus) && threads + r > cpus)
				p->oversubscribed = 1;
		}
	}
	*lo = k ? slo / k : NAN;
	*hi = k ? shi / k : NAN;
	return k ? sum / k : NAN;
}

/*
 * The figure at the query's depth: from the lines at the thread count
 * nearest the query's (the larger on a tie), the depth itself if measured,
 * else a straight line between the nearest measured depths either side,
 * else the nearest depth -- never extrapolated, since how a cost grows past
 * the deepest tree measured is what differs between algorithms.
 */
static void rec_pick(const struct rec_line **l, int n, const struct rec_query *q, int threads,
		     const char *path, struct rec_pick *p)
{
	int best_t = -1, lo = -1, hi = -1;

	memset(p, 0, sizeof(*p));
	p->flush_max_ns = -1;
	p->value_read = -1;
	p->has_iv = 1;
	p->level = 1;
	p->lines = json_array();
	p->shapes = json_array();
	p->placements = json_array();
	for (int i = 0; i < n; i++) {
		int d = abs(l[i]->threads - threads), bd = abs(best_t - threads);

		if (best_t < 0 || d < bd || (d == bd && l[i]->threads > best_t))
			best_t = l[i]->threads;
	}
	if (best_t < 0)
		return;
	for (int i = 0; i < n; i++) {
		if (l[i]->threads != best_t)
			continue;
		if (l[i]->depth <= q->depth && l[i]->depth > lo)
			lo = l[i]->depth;
		if (l[i]->depth >= q->depth && (hi < 0 || l[i]->depth < hi))
			hi = l[i]->depth;
	}
	p->found = 1;
	p->threads = best_t;
	if (lo == q->depth) {
		p->method = "measured";
		p->depth_lo = p->depth_hi = lo;
		p->value = rec_mean_at(l, n, best_t, lo, path, p, &p->lo, &p->hi);
	} else if (lo >= 0 && hi >= 0) {
		double alo, ahi, blo, bhi, f = (q->depth - lo) / (double)(hi - lo);
		double a = rec_mean_at(l, n, best_t, lo, path, p, &alo, &ahi);
		double b = rec_mean_at(l, n, best_t, hi, path, p, &blo, &bhi);

		/* weights 1 - f and f are >= 0: the ends' intervals give the interpolated one's */
		p->method = "interpolated";
		p->depth_lo = lo;
		p->depth_hi = hi;
		p->value = a + (b - a) * f;
		p->lo = alo + (blo - alo) * f;
		p->hi = ahi + (bhi - ahi) * f;
	} else {
		p->method = "nearest";
		p->depth_lo = p->depth_hi = lo >= 0 ? lo : hi;
		p->value = rec_mean_at(l, n, best_t, p->depth_lo, path, p, &p->lo, &p->hi);
	}
	if (!p->has_iv)
		p->lo = p->hi = NAN;
}

/* ---- the staleness rule ---- */

/*
 * How stale a read of variant v can be, where its stated bound is -1: the
 * algorithm says (ctr_read_staleness_ms) for an instance made with the
 * variant's options and flush period; kind gets it in words.  Returns the
 * ms, or -1 when unbounded or unknown.
 */
static double rec_staleness(const struct rec_variant *v, double flush_ms, char *kind, size_t len)
{
	const struct bench_algo *ba = bench_algo_find(v->algo);
	const struct ctr_params p = { .nr_nodes = 1, .nr_cpus = 1, .options = v->options,
				      .flush_period_ms = v->flush_period_ms };
	struct ctr_tree *t = ba && !ba->baseline ? ctr_tree_new(ba->algo, &p) : NULL;
	double ms;

	if (!t) {
		snprintf(kind, len, "bounded by time, by how much this build does not know (%s%s)", v->algo,
			 ba ? " takes other options here" : " is not in this build");
		return -1;
	}
	ms = ctr_read_staleness_ms(t, flush_ms, kind, len);
	ctr_tree_free(t);
	return ms >= 0 ? ms : -1;
}

/*
 * What is judged before the staleness rule: a harness baseline (never
 * ranked) and the verdict's one-figure query.  1 if v is judged here.
 */
static int rec_judge_aside(struct rec_variant *v, const struct rec_query *q)
{
	if (v->baseline) {
		const struct bench_algo *ba = bench_algo_find(v->algo);

		/* the registry's own words: "baseline: the harness floor, ..." */
		snprintf(v->reason, sizeof(v->reason), "harness %s; not a counter",
			 ba ? ctr_algo_summary(ba->algo) : "baseline");
		return 1;
	}
	/*
	 * The verdict (bench/verdict.c): one workload's figure alone, no
	 * staleness rule: exact and approximate designs are listed apart there,
	 * by the bound each states, rather than ruled out here.
	 */
	if (q->only) {
		const struct rec_pick *p = !strcmp(q->only, "readers") ? &v->rd : &v->upd;

		if (!p->found)
			snprintf(v->reason, sizeof(v->reason), "no %s results", q->only);
		else if (p->mismatch_line)
			snprintf(v->reason, sizeof(v->reason), "verification failed in the results (line %d)",
				 p->mismatch_line);
		else
			v->admitted = 1;
		return 1;
	}
	return 0;
}

/*
 * Whether v meets --max-staleness, and its read error in words.  A time
 * bound comes from the algorithm itself (struct ctr_algo.staleness_ms, via
 * rec_staleness), given the longest flush the results measured: nothing
 * here knows an algorithm by name.
 */
static void rec_judge(struct rec_variant *v, const struct rec_query *q)
{
	int64_t bound = v->upd.bound < 0 || v->rd.bound < 0 ? -1 :
			v->upd.bound > v->rd.bound ? v->upd.bound : v->rd.bound;
	int64_t seen = v->upd.observed > v->rd.observed ? v->upd.observed : v->rd.observed;
	int mismatch = v->upd.mismatch_line ? v->upd.mismatch_line : v->rd.mismatch_line;
	double flush_ms = fmax(v->upd.flush_max_ns, v->rd.flush_max_ns) / 1e6;
	double stale_ms = -1;		/* time bound, where there is one */
	char kind[160];

	if (bound == 0)
		snprintf(kind, sizeof(kind), "exact%s (bound 0)", seen ? " at rest" : "");
	else if (bound > 0)
		snprintf(kind, sizeof(kind), "off by <= %lld (stated bound)", (long long)bound);
	else
		stale_ms = rec_staleness(v, flush_ms, kind, sizeof(kind));
	snprintf(v->staleness, sizeof(v->staleness), "%s; observed off by %lld%s", kind, (long long)seen,
		 v->rd.found ? " under updates" : "");

	if (rec_judge_aside(v, q))
		return;
	if (!v->upd.found || !v->rd.found) {
		snprintf(v->reason, sizeof(v->reason), "no %s results (a sweep with --workload update,readers"
			 " gives both)", !v->upd.found && !v->rd.found ? "update or readers" :
			 !v->upd.found ? "update" : "readers");
		return;
	}
	if (mismatch) {
		snprintf(v->reason, sizeof(v->reason), "verification failed in the results (line %d)", mismatch);
		return;
	}
	if (q->exact) {
		if (bound != 0)
			snprintf(v->reason, sizeof(v->reason), "not exact: %s", kind);
		else if (seen)
			/* atomic_tree_stock: a read under updates can miss a batch in transit */
			snprintf(v->reason, sizeof(v->reason), "not exact under updates: reads were off by %lld",
				 (long long)seen);
		else
			v->admitted = 1;
		return;
	}
	/*
	 * The count the error must stay within: N, P% of the user's counter
	 * value (--counter-value) or else of the mean value read, the smaller.
	 */
	if (q->count >= 0 || q->fraction > 0) {
		double lim = q->count >= 0 ? (double)q->count : INFINITY;
		const double base = q->value > 0 ? q->value : v->rd.value_read;
		char what[120];

		if (q->fraction > 0) {
			if (base <= 0) {
				snprintf(v->reason, sizeof(v->reason), "%g%% of what: the mean value of its readers"
					 " lines (shape %s) is not known to this build", 100 * q->fraction,
					 json_string_value(json_array_get(v->rd.shapes, 0)) ?
					 json_string_value(json_array_get(v->rd.shapes, 0)) : "?");
				return;
			}
			if (q->fraction * base < lim)
				lim = q->fraction * base;
		}
		if (q->fraction > 0 && lim == q->fraction * base)
			snprintf(what, sizeof(what), "%.4g (%g%% of %s, %.6g)", lim, 100 * q->fraction,
				 q->value > 0 ? "--counter-value" : "the mean value read", base);
		else
			snprintf(what, sizeof(what), "%.4g", lim);
		if (bound < 0 && !q->ms) {
			snprintf(v->reason, sizeof(v->reason), "not bounded by a count: %s%s", kind,
				 q->fraction > 0 ? " (a time too, like 1%,2s, admits it on its observed error)" : "");
			return;
		}
		if (bound > 0 && (double)bound > lim) {
			snprintf(v->reason, sizeof(v->reason), "stated bound %lld > %s", (long long)bound, what);
			return;
		}
		if ((double)seen > lim) {
			snprintf(v->reason, sizeof(v->reason), "observed off by %lld > %s", (long long)seen, what);
			return;
		}
	}
	/* exact and count-bounded ones meet any time: their error has a bound, whatever the time */
	if (q->ms && bound < 0) {
		if (stale_ms < 0) {
			snprintf(v->reason, sizeof(v->reason), "%s", kind);
			return;
		}
		if (stale_ms > (double)q->ms) {
			snprintf(v->reason, sizeof(v->reason), "%s: more than %lld ms", kind, q->ms);
			return;
		}
	}
	v->admitted = 1;
}

static int rec_cmp_cost(const void *a, const void *b)
{
	const struct rec_variant *x = *(struct rec_variant *const *)a, *y = *(struct rec_variant *const *)b;

	return (x->cost > y->cost) - (x->cost < y->cost);
}

/*
 * Ranks, in cost order: a variant whose interval overlaps the union of the
 * intervals of the group before it (directly or through a chain of
 * overlapping ones) shares that group's rank, and all of the group are
 * ties.  One without an interval (one rep) joins a group its point falls
 * in; otherwise it ranks alone, untested.
 */
void bench_rec_ties(struct rec_variant **o, int n)
{
	double top = -INFINITY;		/* the group's highest hi */
	int start = 0;			/* its first */

	for (int i = 0; i < n; i++) {
		double lo = o[i]->has_iv ? o[i]->cost_lo : o[i]->cost;
		double hi = o[i]->has_iv ? o[i]->cost_hi : o[i]->cost;

		if (i && lo <= top && (o[i]->has_iv || o[start]->has_iv)) {
			o[i]->rank = o[start]->rank;
			o[i]->tie = o[start]->tie = 1;
			for (int k = start + 1; k < i; k++)
				o[k]->tie = 1;
			top = fmax(top, hi);
		} else {
			start = i;
			o[i]->rank = i + 1;
			top = hi;
		}
	}
}

/* ---- what the figures were measured on ---- */

/* The distinct machines (env) of the lines, and what they cannot show. */
static void rec_environment(const struct rec_line *l, int n, const struct rec_query *q, int max_threads,
			    json_t *machines, json_t *caveats)
{
	long long min_cpus = -1, min_nodes = -1;
	int hypervisor = 0, hw_events = 0;
	char buf[512];

	for (int i = 0; i < n; i++) {
		json_t *env = json_object_get(l[i].o, "env"), *m, *per_op = json_object_get(l[i].o, "events_per_op");
		long long cpus = -1, nodes = -1;
		const char *key;
		json_t *val;
		size_t k;
		int seen = 0;

		bench_rec_int(l[i].o, "env.cpus_online", &cpus);
		bench_rec_int(l[i].o, "env.numa_nodes", &nodes);
		if (cpus > 0 && (min_cpus < 0 || cpus < min_cpus))
			min_cpus = cpus;
		if (nodes > 0 && (min_nodes < 0 || nodes < min_nodes))
			min_nodes = nodes;
		hypervisor |= json_is_true(json_object_get(env, "hypervisor"));
		json_object_foreach(per_op, key, val)
			hw_events |= json_is_number(val);
		m = json_pack("{s:O?,s:O?,s:O?,s:O?,s:O?,s:O?}",
			      "cpu_model", json_object_get(env, "cpu_model"),
			      "cpus_online", json_object_get(env, "cpus_online"),
			      "numa_nodes", json_object_get(env, "numa_nodes"),
			      "topology", json_object_get(env, "topology"),
			      "hypervisor", json_object_get(env, "hypervisor"),
			      "commit", json_object_get(env, "commit"));
		json_array_foreach(machines, k, val)
			seen |= json_equal(val, m);
		if (!seen)
			json_array_append(machines, m);
		json_decref(m);
	}
	if (min_cpus > 0 && min_nodes > 0) {
		snprintf(buf, sizeof(buf), "measured on %lld CPU%s, %lld NUMA node%s: contention across %s"
			 " is not in these figures", min_cpus, min_cpus == 1 ? "" : "s", min_nodes,
			 min_nodes == 1 ? "" : "s", min_nodes <= 1 ? "CCXs and nodes" :
			 "more nodes than these");
		json_array_append_new(caveats, json_string(buf));
	}
	if (q->threads > max_threads) {
		snprintf(buf, sizeof(buf), "%d threads asked for, at most %d measured: the figures are for %d",
			 q->threads, max_threads, max_threads);
		json_array_append_new(caveats, json_string(buf));
	}
	if (hypervisor)
		json_array_append_new(caveats, json_string("measured in a virtual machine: vCPUs may share"
							   " cores with other guests"));
	if (!hw_events)
		json_array_append_new(caveats, json_string("no hardware events (cache misses, cycles) in these"
							   " results: none asked for, or no PMU"));
}


/* The file's usable lines into st->lines. */
void bench_rec_load(struct rec_state *st)
{
	bench_results_load(st->results, 0, &st->r);
	bench_results_check_partial(&st->r, st->results, "recommend");
	if (!bench_rec_take(st))
		die("'%s' has no results of the update or readers workload", st->results);
}

int bench_rec_take(struct rec_state *st)
{
	const char *src = st->results ? st->results : "the results";

	st->lines = calloc((size_t)st->r.n + 1, sizeof(*st->lines));
	st->tmp = calloc((size_t)st->r.n + 1, sizeof(*st->tmp));
	if (!st->lines || !st->tmp)
		die("out of memory");
	for (int i = 0; i < st->r.n; i++) {
		json_t *o = st->r.line[i].obj;
		const char *w = json_string_value(json_object_get(o, "workload"));
		long long d, t, done, asked;

		if (!json_is_string(json_object_get(o, "algo")) || !w)
			die("%s:%d: not a result line (no \"algo\" or \"workload\")", src, st->r.line[i].lineno);
		if (!bench_rec_int(o, "depth", &d) || !bench_rec_int(o, "threads", &t))
			die("%s:%d: \"depth\" or \"threads\" is missing or not an integer", src,
			    st->r.line[i].lineno);
		if (strcmp(w, "update") && strcmp(w, "readers"))
			continue;	/* charge: not part of this cost model */
		if (bench_rec_int(o, "reps_done", &done) && bench_rec_int(o, "reps_requested", &asked) && done < asked) {
			st->skipped++;	/* stopped early */
			continue;
		}
		if (!rec_plain_cost(o)) {
			st->unplain++;
			continue;
		}
		st->nr_readers += !strcmp(w, "readers");
		st->nr_update += !strcmp(w, "update");
		st->lines[st->nr_lines++] = (struct rec_line){ .o = o, .lineno = st->r.line[i].lineno, .workload = w,
						       .depth = (int)d, .threads = (int)t };
		if (t > st->max_threads)
			st->max_threads = (int)t;
	}
	if (!st->q.threads)
		st->q.threads = st->max_threads;
	return st->nr_lines;
}

/* Each variant's figures, its verdict, and the admitted ones by cost. */
void bench_rec_rank(struct rec_state *st)
{
	for (int i = 0; i < st->nr_lines; i++)
		rec_variant_of(&st->var, &st->nr_var, st->lines[i].o);
	st->order = calloc((size_t)st->nr_var, sizeof(*st->order));
	if (!st->order)
		die("out of memory");
	for (int i = 0; i < st->nr_var; i++) {
		struct rec_variant *v = &st->var[i];
		int n;

		n = rec_lines_of(st->lines, st->nr_lines, v, "update", "cpu_ns_per_op", st->tmp);
		rec_pick(st->tmp, n, &st->q, st->q.threads, "cpu_ns_per_op", &v->upd);
		n = rec_lines_of(st->lines, st->nr_lines, v, "readers", "read_ns.mean", st->tmp);
		rec_pick(st->tmp, n, &st->q, st->q.threads, "read_ns.mean", &v->rd);
		v->has_cost = v->upd.found && v->rd.found;
		if (st->q.only) {
			/* the verdict: that workload's figure, ns, as the cost */
			const struct rec_pick *p = !strcmp(st->q.only, "readers") ? &v->rd : &v->upd;

			v->has_cost = p->found;
			v->cost = p->value;
			v->has_iv = p->has_iv;
			v->cost_lo = p->lo;
			v->cost_hi = p->hi;
			v->level = p->level;
		} else if (v->has_cost) {
			v->cost = st->q.updates * v->upd.value * 1e-9 + st->q.reads * v->rd.value * 1e-9;
			v->has_iv = v->upd.has_iv && v->rd.has_iv;
			v->cost_lo = st->q.updates * v->upd.lo * 1e-9 + st->q.reads * v->rd.lo * 1e-9;
			v->cost_hi = st->q.updates * v->upd.hi * 1e-9 + st->q.reads * v->rd.hi * 1e-9;
			v->level = v->upd.level * v->rd.level;
		}
		rec_judge(v, &st->q);
		if (v->admitted)
			st->order[st->ranked++] = v;
	}
	qsort(st->order, (size_t)st->ranked, sizeof(*st->order), rec_cmp_cost);
	bench_rec_ties(st->order, st->ranked);
	rec_environment(st->lines, st->nr_lines, &st->q, st->max_threads, st->machines, st->caveats);
}

void bench_rec_free(struct rec_state *st)
{
	for (int i = 0; i < st->nr_var; i++) {
		json_decref(st->var[i].upd.lines);
		json_decref(st->var[i].rd.lines);
		json_decref(st->var[i].upd.shapes);
		json_decref(st->var[i].rd.shapes);
		json_decref(st->var[i].upd.placements);
		json_decref(st->var[i].rd.placements);
		free(st->var[i].key);
	}
	json_decref(st->machines);
	json_decref(st->caveats);
	json_decref(st->ties);
	json_decref(st->untested);
	json_decref(st->missing);
	free(st->var);
	free(st->order);
	free(st->lines);
	free(st->tmp);
	bench_results_free(&st->r);
	free(st->quick);
	free(st);
}
