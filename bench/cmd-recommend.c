/* SPDX-License-Identifier: MIT */
/*
 * ctrbench recommend: rank the algorithms for a workload (updates/s,
 * reads/s, tree depth, how stale a read may be) by the CPU time they would
 * spend on it, from measured results, and show the evidence behind each
 * rank.  docs/sweeps.md describes the cost model and the selection rules
 * for users; each is also printed with every answer.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "../topology/topo.h"
#include "cli.h"
#include "results.h"
#include "schema.h"
#include "builtin.h"
#include "run.h"
#include "sweep.h"

/* The quick sweep recommend runs without --results: short, one repetition. */
#define REC_QUICK_DURATION_MS 100
#define REC_QUICK_WARMUP_MS 20

/*
 * --max-staleness: EXACT, or up to one each of a count N, a fraction P% and
 * a time T (MSms or Ss), comma-separated, all of which must hold.
 */
struct rec_query {
	double updates, reads;		/* per second, the target workload */
	int depth;			/* tree depth the target updates and reads at */
	int threads;			/* CPUs the target updates from; 0: not given */
	int exact;			/* --max-staleness EXACT */
	long long count;		/* ... N: off by at most N counts; -1 if not given */
	double fraction;		/* ... P%: off by at most P/100 of the mean value read; 0 if not given */
	long long ms;			/* ... T: at most T ms old; 0 if not given */
	const char *spec;		/* ... as typed */
};

/* The figure taken for one workload of one algorithm variant, and the lines behind it. */
struct rec_pick {
	int found;			/* some line had the figure */
	double value;			/* ns */
	int has_iv;			/* every line used has an interval of its median (stats) */
	double lo, hi;			/* ... and the value's interval, ns, from those */
	double level;			/* its coverage: the product of theirs (independent runs) */
	int reps;			/* fewest repetitions of a line used */
	int duration_ms, warmup_ms;	/* longest of the lines used */
	json_t *shapes, *placements;	/* of the lines used, each once */
	double value_read;		/* readers: mean exact value of the nodes read, fewest of the lines */
	int threads;			/* thread count of the lines used */
	int depth_lo, depth_hi;		/* depths used: equal unless interpolated */
	const char *method;		/* "measured", "interpolated", "nearest" */
	json_t *lines;			/* [{line, shape, placement, depth, value}] */
	int64_t bound;			/* stated read_error_bound: the largest, -1 if any is by time */
	int64_t observed;		/* largest read error observed in those lines */
	double flush_max_ns;		/* longest flush in those lines, -1 if none */
	int mismatch_line;		/* a line used failed verification: its number, else 0 */
	int oversubscribed;		/* a line used ran more threads than the CPUs it had */
};

/*
 * One algorithm with one set of settings: the knobs of the field table
 * (schema.h) that every workload has (options, flush period, work, ...;
 * not read_node, which only readers lines carry).  A knob added to the
 * table makes variants of its own here with no edit.
 */
struct rec_variant {
	const char *algo;		/* name */
	const char *options;		/* --options of its lines, NULL if none */
	int flush_period_ms;		/* --flush-period-ms of its lines, 0 = the algorithm's default */
	int baseline;			/* a harness floor, never recommended */
	char *key;			/* algo and those knobs as compact JSON (bench_line_key) */
	char label[160];		/* algo, with the knobs not at their default */
	struct rec_pick upd, rd;	/* update and read cost */
	int has_cost;			/* both figures found */
	double cost;			/* CPU seconds per second for the query */
	int has_iv;			/* both figures have an interval */
	double cost_lo, cost_hi;	/* ... and the cost's, from theirs (U, R >= 0) */
	double level;			/* its coverage: the product of theirs */
	int rank;			/* 1 + how many rank ahead of it; shared in a tie */
	int tie;			/* its interval overlaps a neighbour's: same rank */
	int admitted;			/* meets --max-staleness and verified */
	char staleness[200];		/* its read error, in words */
	char reason[300];		/* why ruled out, or why not ranked */
};

struct rec_line {
	json_t *o;			/* the result */
	int lineno;			/* in the file */
	const char *workload;		/* "update" or "readers" */
	int depth, threads;		/* of the configuration */
};

static int rec_int(json_t *o, const char *path, long long *v)
{
	json_t *j = bench_json_path(o, path);

	if (!json_is_integer(j))
		return 0;
	*v = json_integer_value(j);
	return 1;
}

static int rec_num(json_t *o, const char *path, double *v)
{
	json_t *j = bench_json_path(o, path);

	if (!json_is_number(j))
		return 0;
	*v = json_number_value(j);
	return 1;
}

static double rec_parse_rate(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!bench_plain_number(s) || errno || end == s || *end || !isfinite(v) || v < 0)
		die("bad value '%s' for --%s (want a number >= 0, like 2e6)", s, opt);
	return v;
}

#define REC_STALENESS_WANT "want EXACT, or one or more of a count like 100, a fraction like 1%%," \
	" a time like 2000ms or 2s (1 ms to 24 h), comma-separated, each kind once"

/* One item of --max-staleness (not EXACT) into q: 1, 0 if it is not one, -1 if its kind came before. */
static int rec_parse_staleness_item(const char *it, size_t len, struct rec_query *q)
{
	char buf[32], *end;
	size_t digits;

	if (!len || len >= sizeof(buf))
		return 0;
	memcpy(buf, it, len);
	buf[len] = 0;
	digits = strspn(buf, "0123456789");
	errno = 0;
	if (buf[len - 1] == '%') {
		double f;

		buf[len - 1] = 0;
		f = strtod(buf, &end);
		if (!digits || strspn(buf, "0123456789.") != len - 1 || end != buf + len - 1 || errno ||
		    !(f > 0 && f <= 100))
			return 0;
		if (q->fraction)
			return -1;
		q->fraction = f / 100;
		return 1;
	}
	if (!digits || digits > 12)
		return 0;
	if (!buf[digits]) {
		if (q->count >= 0)
			return -1;
		q->count = strtoll(buf, &end, 10);
		return 1;
	}
	if (strcmp(buf + digits, "ms") && strcmp(buf + digits, "s"))
		return 0;
	if (q->ms)
		return -1;
	q->ms = strtoll(buf, &end, 10) * (buf[digits + 1] ? 1 : 1000);
	return q->ms >= 1 && q->ms <= 24LL * 3600 * 1000;
}

/* EXACT, or N, P%, T (MSms or Ss) combined with commas: all must hold. */
static void rec_parse_staleness(const char *s, struct rec_query *q)
{
	const char *it = s;

	q->spec = s;
	q->count = -1;
	q->fraction = 0;
	q->ms = 0;
	q->exact = !strcasecmp(s, "exact");
	if (q->exact)
		return;
	for (;;) {
		size_t len = strcspn(it, ",");
		int r = rec_parse_staleness_item(it, len, q);

		if (r < 0)
			die("bad value '%s' for --max-staleness: '%.*s' is a second %s (each kind once)", s,
			    (int)len, it, it[len - 1] == '%' ? "fraction" : isdigit((unsigned char)it[len - 1]) ?
			    "count" : "time");
		if (!r && len == 5 && !strncasecmp(it, "exact", 5))
			die("bad value '%s' for --max-staleness: EXACT stands alone", s);
		if (!r)
			die("bad value '%s' for --max-staleness: '%.*s' is not an item (" REC_STALENESS_WANT ")",
			    s, (int)len, it);
		if (!it[len])
			return;
		it += len + 1;
	}
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

	if ((rec_int(o, "work_ns", &v) && v) || (rec_int(o, "charge_burst", &v) && v) ||
	    (rec_int(o, "read_interval_us", &v) && v))
		return 0;
	return !node || json_is_null(node) || (json_is_string(node) && !strcmp(json_string_value(node), "random"));
}

static int rec_str_eq(const char *a, const char *b)
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
	rec_int(o, "flush_period_ms", &period);
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

		if (strcmp(all[i].workload, workload) || !rec_num(all[i].o, path, &x))
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

static void rec_add_once(json_t *set, const char *s)
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
		rec_num(l[i]->o, path, &x);
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
		rec_int(l[i]->o, "reps_done", &reps);
		if (!p->reps || reps < p->reps)
			p->reps = (int)reps;
		if (rec_int(l[i]->o, "duration_ms", &ms) && ms > p->duration_ms)
			p->duration_ms = (int)ms;
		if (rec_int(l[i]->o, "warmup_ms", &ms) && ms > p->warmup_ms)
			p->warmup_ms = (int)ms;
		rec_add_once(p->shapes, json_string_value(json_object_get(l[i]->o, "shape")));
		rec_add_once(p->placements, json_string_value(json_object_get(l[i]->o, "placement")) ?
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
		if (rec_int(l[i]->o, "read_error_bound", &b) && p->bound >= 0)
			p->bound = b < 0 ? -1 : b > p->bound ? b : p->bound;
		if (rec_int(l[i]->o, "read_error_at_rest", &e) && llabs(e) > p->observed)
			p->observed = llabs(e);
		if (rec_int(l[i]->o, "read_error.max_abs", &e) && llabs(e) > p->observed)
			p->observed = llabs(e);
		if (rec_num(l[i]->o, "flush.flush_ns.max", &x) && x > p->flush_max_ns)
			p->flush_max_ns = x;
		if (!p->mismatch_line && rec_str_eq(json_string_value(json_object_get(l[i]->o, "verify")),
						    "mismatch"))
			p->mismatch_line = l[i]->lineno;
		{
			long long r = 0;

			rec_int(l[i]->o, "readers", &r);
			if (rec_int(l[i]->o, "cpus", &cpus) && threads + r > cpus)
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

	if (v->baseline) {
		const struct bench_algo *ba = bench_algo_find(v->algo);

		/* the registry's own words: "baseline: the harness floor, ..." */
		snprintf(v->reason, sizeof(v->reason), "harness %s; not a counter",
			 ba ? ctr_algo_summary(ba->algo) : "baseline");
		return;
	}
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
	/* the count the error must stay within: N, P% of the mean value read, the smaller */
	if (q->count >= 0 || q->fraction > 0) {
		double lim = q->count >= 0 ? (double)q->count : INFINITY;
		char what[120];

		if (q->fraction > 0) {
			if (v->rd.value_read <= 0) {
				snprintf(v->reason, sizeof(v->reason), "%g%% of what: the mean value of its readers"
					 " lines (shape %s) is not known to this build", 100 * q->fraction,
					 json_string_value(json_array_get(v->rd.shapes, 0)) ?
					 json_string_value(json_array_get(v->rd.shapes, 0)) : "?");
				return;
			}
			if (q->fraction * v->rd.value_read < lim)
				lim = q->fraction * v->rd.value_read;
		}
		if (q->fraction > 0 && lim == q->fraction * v->rd.value_read)
			snprintf(what, sizeof(what), "%.4g (%g%% of the mean value read, %.6g)", lim,
				 100 * q->fraction, v->rd.value_read);
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
static void rec_ties(struct rec_variant **o, int n)
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

		rec_int(l[i].o, "env.cpus_online", &cpus);
		rec_int(l[i].o, "env.numa_nodes", &nodes);
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

/* ---- output ---- */

static json_t *rec_pick_json(const struct rec_pick *p, const char *metric)
{
	if (!p->found)
		return json_null();
	return json_pack("{s:s,s:f,s:o,s:o,s:o,s:i,s:i,s:s,s:i,s:i,s:O}", "metric", metric, "ns", p->value,
			 "lo_ns", p->has_iv ? json_real(p->lo) : json_null(),
			 "hi_ns", p->has_iv ? json_real(p->hi) : json_null(),
			 "level", p->has_iv ? json_real(p->level) : json_null(), "reps", p->reps,
			 "threads", p->threads, "method", p->method, "depth_lo", p->depth_lo,
			 "depth_hi", p->depth_hi, "lines", p->lines);
}

static json_t *rec_variant_json(const struct rec_variant *v, int rank)
{
	json_t *j = json_pack("{s:s,s:o,s:i}", "algo", v->algo,
			      "options", v->options ? json_string(v->options) : json_null(),
			      "flush_period_ms", v->flush_period_ms);

	if (rank) {
		json_object_set_new(j, "rank", json_integer(v->rank));
		json_object_set_new(j, "tie", json_boolean(v->tie));
	}
	json_object_set_new(j, "cpu_s_per_s", v->has_cost ? json_real(v->cost) : json_null());
	json_object_set_new(j, "cpu_s_per_s_lo", v->has_iv ? json_real(v->cost_lo) : json_null());
	json_object_set_new(j, "cpu_s_per_s_hi", v->has_iv ? json_real(v->cost_hi) : json_null());
	json_object_set_new(j, "coverage", v->has_iv ? json_real(v->level) : json_null());
	json_object_set_new(j, "update", rec_pick_json(&v->upd, "cpu_ns_per_op"));
	json_object_set_new(j, "read", rec_pick_json(&v->rd, "read_ns.mean"));
	json_object_set_new(j, "staleness", json_string(v->staleness));
	if (!rank)
		json_object_set_new(j, "reason", json_string(v->reason));
	return j;
}

/* "chain:2 (line 3), chain:8 (line 9) at 2 threads, interpolated to depth 4" */
static void rec_print_evidence(const char *what, const struct rec_pick *p, const struct rec_query *q)
{
	size_t i;
	json_t *x;

	printf("      %-8s", what);
	json_array_foreach(p->lines, i, x)
		printf("%s%s %s (line %lld)", i ? ", " : "", json_string_value(json_object_get(x, "shape")),
		       json_string_value(json_object_get(x, "placement")),
		       (long long)json_integer_value(json_object_get(x, "line")));
	printf(" at %d thread%s: ", p->threads, p->threads == 1 ? "" : "s");
	if (!strcmp(p->method, "measured"))
		printf("depth %d measured", p->depth_lo);
	else if (!strcmp(p->method, "interpolated"))
		printf("interpolated between depths %d and %d", p->depth_lo, p->depth_hi);
	else
		printf("nearest depth %d (depth %d not measured, not extrapolated)", p->depth_lo, q->depth);
	if (json_array_size(p->lines) > 1 && !strcmp(p->method, "measured"))
		printf(", mean of %zu lines", json_array_size(p->lines));
	if (p->oversubscribed)
		printf("; more threads than CPUs: preemption is in the mean");
	putchar('\n');
}

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
		rec_add_once(set, json_string_value(x));
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

		if (!rec_str_eq(vs[i]->options, vs[0]->options) || vs[i]->flush_period_ms != vs[0]->flush_period_ms)
			continue;
		rec_add_once(algos, vs[i]->algo);
		for (int k = 0; k < 2; k++) {
			if (!ps[k]->found)
				continue;
			rec_add_all(shapes, ps[k]->shapes);
			rec_add_all(placements, ps[k]->placements);
			snprintf(num, sizeof(num), "%d", ps[k]->threads);
			rec_add_once(threads, num);
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
			first &= !(rec_str_eq(vs[k]->options, vs[i]->options) &&
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
static void rec_interval(const struct rec_variant *v, char *buf, size_t len)
{
	if (v->has_iv)
		snprintf(buf, len, "[%.4g, %.4g] %.0f%%", v->cost_lo, v->cost_hi, 100 * v->level);
	else
		snprintf(buf, len, "none (1 rep)");
}

static void rec_print_row(const struct rec_variant *v, int w)
{
	char iv[64];

	rec_interval(v, iv, sizeof(iv));
	printf("%-4d  %-*s  %10.4g  %-28s  %-3s  %9.1f  %9.1f  %s\n", v->rank, w, v->label, v->cost, iv,
	       v->tie ? "tie" : "", v->upd.value, v->rd.value, v->staleness);
}

static void rec_print_strings(const char *indent, json_t *a)
{
	size_t i;
	json_t *x;

	json_array_foreach(a, i, x)
		printf("%s%s\n", indent, json_string_value(x));
}

/* The algos of a finding, "a, b and c". */
static void rec_print_names(json_t *a)
{
	size_t i, n = json_array_size(a);
	json_t *x;

	json_array_foreach(a, i, x)
		printf("%s%s", i ? i + 1 == n ? " and " : ", " : "", json_string_value(x));
}

/* the help text says 512 per updater: the swing's mean */
_Static_assert(BENCH_SWING == 1024, "recommend --help states BENCH_SWING / 2 as 512");

static const char *const rec_help =
	"usage: ctrbench recommend --updates-per-sec U --reads-per-sec R --depth D\n"
	"                          --max-staleness EXACT|N|P%|T[,...] [options]\n"
	"\n"
	"Ranks the algorithms for a workload by the CPU time they would spend on it (docs/sweeps.md),\n"
	"each with an interval from the reps of its results; overlapping ones share a rank as a tie,\n"
	"with the sweep that would separate them.\n"
	"\n"
	"  --updates-per-sec U      updates per second of the target (required)\n"
	"  --reads-per-sec R        reads per second (required)\n"
	"  --depth D                tree depth, root included (required)\n"
	"  --max-staleness S        how far off a read may be (required): EXACT, or any of a count N,\n"
	"                           a fraction P% of the mean value the readers workload read (512 per\n"
	"                           updater under the node read: its swing's mean), a time MSms or Ss;\n"
	"                           comma-separated, all must hold: 1%,2s\n"
	"  --results FILE           sweep results to rank from (default: a quick sweep now, 100 ms runs)\n"
	"  --threads T              CPUs the target updates from (default: the most the results have)\n"
	"  --format F               table or json (default table)\n"
	"\n"
	"example: ctrbench recommend --updates-per-sec 2e6 --reads-per-sec 1e4 --depth 5 \\\n"
	"             --max-staleness 1%,2s --results results.jsonl\n";

/* One recommend: the query, the lines it reads and the variants it ranks. */
struct rec_state {
	struct rec_query q;		/* the target workload */
	const char *results;		/* --results, or the quick sweep's file */
	char *quick;			/* the quick sweep's file, NULL with --results */
	int json;			/* --format json */
	int status;			/* the quick sweep's exit status */
	struct bench_results r;		/* the file's lines */
	struct rec_line *lines;		/* the usable ones: update and readers, plain cost */
	int nr_lines;			/* their number */
	int max_threads;		/* the most threads a line ran */
	int skipped, unplain;		/* lines left out: stopped early; not the plain cost */
	const struct rec_line **tmp;	/* scratch, nr_lines */
	struct rec_variant *var;	/* one per algorithm and knobs */
	int nr_var;			/* their number */
	struct rec_variant **order;	/* the admitted ones by cost */
	int ranked;			/* their number */
	json_t *machines, *caveats;	/* the environment of the lines, in words */
	int nr_update, nr_readers;	/* usable lines of each workload */
	json_t *ties;			/* [{rank, algos, ..., sweep, recommend}]: what would separate each tie */
	json_t *untested;		/* {algos, sweep, recommend} for the ranked without an interval, or null */
	json_t *missing;		/* {workload, file, sweep}: a workload the file has no line of, or null */
};

static const char rec_cost_model[] =
	"CPU seconds per second = U x update CPU ns/op (update workload: task-clock / ops) + R x"
	" read ns (readers workload: mean of every timed read, of nodes picked at random over the"
	" shape); lower is better";
static const char rec_selection[] =
	"per algorithm and workload: the lines at the thread count nearest the target (the larger"
	" on a tie); at the target depth if measured (several lines there averaged), else linear"
	" between the nearest measured depths either side, else the nearest depth (never"
	" extrapolated)";

static void rec_parse_args(int argc, char **argv, struct rec_state *st)
{
	static const struct option opts[] = {
		{ "updates-per-sec", required_argument, NULL, 'u' },
		{ "reads-per-sec", required_argument, NULL, 'r' },
		{ "depth", required_argument, NULL, 'd' },
		{ "max-staleness", required_argument, NULL, 's' },
		{ "results", required_argument, NULL, 'R' },
		{ "threads", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	bench_help(argc, argv, rec_help);
	optind = 0;
	opterr = 0;
	while ((c = bench_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case 'u':
			st->q.updates = rec_parse_rate("updates-per-sec", optarg);
			break;
		case 'r':
			st->q.reads = rec_parse_rate("reads-per-sec", optarg);
			break;
		case 'd':
			st->q.depth = bench_parse_int("depth", optarg, 1, 4096);
			break;
		case 's':
			rec_parse_staleness(optarg, &st->q);
			break;
		case 'R':
			st->results = optarg;
			break;
		case 't':
			st->q.threads = bench_parse_int("threads", optarg, 1, 4096);
			break;
		case 'f':
			st->json = bench_parse_table_json("recommend", optarg);
			break;
		default:
			bench_die_getopt(c, argv);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	{
		static const char *const need[] = { "--updates-per-sec U", "--reads-per-sec R",
						    "--depth D", "--max-staleness EXACT|N|P%|T" };
		const int missing[] = { st->q.updates < 0, st->q.reads < 0, !st->q.depth, !st->q.spec };

		bench_need("recommend", need, missing, 4, "(ctrbench recommend --help)");
	}
}

/* No --results: measure now, briefly, on this machine.  0, or 1 when interrupted. */
static int rec_quick_sweep(struct rec_state *st)
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

/* The file's usable lines into st->lines. */
static void rec_load(struct rec_state *st)
{
	bench_results_load(st->results, 0, &st->r);
	bench_results_check_partial(&st->r, st->results, "recommend");
	st->lines = calloc((size_t)st->r.n + 1, sizeof(*st->lines));
	st->tmp = calloc((size_t)st->r.n + 1, sizeof(*st->tmp));
	if (!st->lines || !st->tmp)
		die("out of memory");
	for (int i = 0; i < st->r.n; i++) {
		json_t *o = st->r.line[i].obj;
		const char *w = json_string_value(json_object_get(o, "workload"));
		long long d, t, done, asked;

		if (!json_is_string(json_object_get(o, "algo")) || !w)
			die("%s:%d: not a result line (no \"algo\" or \"workload\")", st->results, st->r.line[i].lineno);
		if (!rec_int(o, "depth", &d) || !rec_int(o, "threads", &t))
			die("%s:%d: \"depth\" or \"threads\" is missing or not an integer", st->results,
			    st->r.line[i].lineno);
		if (strcmp(w, "update") && strcmp(w, "readers"))
			continue;	/* charge: not part of this cost model */
		if (rec_int(o, "reps_done", &done) && rec_int(o, "reps_requested", &asked) && done < asked) {
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
	if (!st->nr_lines)
		die("'%s' has no results of the update or readers workload", st->results);
	if (!st->q.threads)
		st->q.threads = st->max_threads;
}

/* Each variant's figures, its verdict, and the admitted ones by cost. */
static void rec_rank(struct rec_state *st)
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
		if (v->has_cost) {
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
	rec_ties(st->order, st->ranked);
	rec_environment(st->lines, st->nr_lines, &st->q, st->max_threads, st->machines, st->caveats);
}

/* What the answer cannot tell, and the measurement that would: ties, ranks with no interval, a workload missing. */
static void rec_findings(struct rec_state *st)
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

static void rec_print_json(const struct rec_state *st)
{
	json_t *j = json_pack("{s:{s:f,s:f,s:i,s:i,s:s},s:s,s:s,s:s,s:b,s:O,s:O}",
			      "query", "updates_per_sec", st->q.updates, "reads_per_sec", st->q.reads,
			      "depth", st->q.depth, "threads", st->q.threads, "max_staleness", st->q.spec,
			      "cost_model", rec_cost_model, "selection", rec_selection, "results", st->results,
			      "measured_now", st->quick != NULL, "machines", st->machines, "caveats", st->caveats);
	json_t *a = json_array(), *out = json_array(), *base = json_array();

	for (int i = 0; i < st->ranked; i++)
		json_array_append_new(a, rec_variant_json(st->order[i], i + 1));
	for (int i = 0; i < st->nr_var; i++)
		if (!st->var[i].admitted)
			json_array_append_new(st->var[i].baseline ? base : out, rec_variant_json(&st->var[i], 0));
	json_object_set_new(j, "ranked", a);
	json_object_set_new(j, "ruled_out", out);
	json_object_set_new(j, "not_ranked", base);
	json_object_set_new(j, "ties", json_incref(st->ties));
	json_object_set_new(j, "no_interval", json_incref(st->untested));
	json_object_set_new(j, "missing", json_incref(st->missing));
	json_dumpf(j, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(j);
}

static void rec_print_findings(const struct rec_state *st)
{
	size_t i;
	json_t *t;

	json_array_foreach(st->ties, i, t) {
		double gap = json_real_value(json_object_get(t, "gap")),
		       cheapest = json_real_value(json_object_get(t, "cheapest"));
		const char *w;

		printf("# tie at rank %lld: ", (long long)json_integer_value(json_object_get(t, "rank")));
		rec_print_names(json_object_get(t, "algos"));
		w = json_string_value(json_object_get(t, "overlap_in"));
		printf(": their intervals overlap (%.3g%% apart at most; %s); ",
		       cheapest > 0 ? 100 * gap / cheapest : 0.0, !strcmp(w, "update") ? "in their update figures" :
		       !strcmp(w, "read") ? "in their read figures" : !strcmp(w, "sum") ?
		       "in the sum only: neither figure's intervals overlap alone" : "in their update and read figures");
		if (json_is_true(json_object_get(t, "hopeless")))
			printf("the gap is within their run-to-run spread: even 100 reps may not separate"
			       " them, so take them as equal here:\n");
		else
			printf("about %lld reps each should separate them (an estimate: an interval narrows"
			       " about as 1/sqrt(reps)):\n", (long long)json_integer_value(json_object_get(t, "reps")));
		rec_print_strings("#   ", json_object_get(t, "sweep"));
		printf("#   %s\n", json_string_value(json_object_get(t, "recommend")));
	}
	if (!json_is_null(st->untested)) {
		printf("# no interval for ");
		rec_print_names(json_object_get(st->untested, "algos"));
		printf(": one repetition per line, so their order is not tested; for intervals (5 reps: 94%%"
		       " each):\n");
		rec_print_strings("#   ", json_object_get(st->untested, "sweep"));
		printf("#   %s\n", json_string_value(json_object_get(st->untested, "recommend")));
	}
}

static void rec_print_table(const struct rec_state *st)
{
	size_t k;
	json_t *m;
	int w = 9;

	for (int i = 0; i < st->nr_var; i++)
		if ((int)strlen(st->var[i].label) > w)
			w = (int)strlen(st->var[i].label);
	printf("# recommend: %.6g updates/s, %.6g reads/s at depth %d from %d thread%s; max staleness %s\n",
	       st->q.updates, st->q.reads, st->q.depth, st->q.threads, st->q.threads == 1 ? "" : "s", st->q.spec);
	printf("# cost model: %s\n", rec_cost_model);
	printf("# figures: %s\n", rec_selection);
	printf("# evidence: %s (%d results%s%s)%s\n", st->results, st->nr_lines,
	       st->skipped ? ", some stopped early and skipped" : "",
	       st->unplain ? ", some left out: measured with private work, charge bursts, paced reads or"
			 " a chosen read node, not the plain cost" : "",
	       st->quick ? ", measured just now on this machine; kept: --results reuses it" : "");
	json_array_foreach(st->machines, k, m) {
		long long cpus = 0, nodes = 0;

		rec_int(m, "cpus_online", &cpus);
		rec_int(m, "numa_nodes", &nodes);
		printf("# machine: %s, %lld CPUs online, %lld NUMA node%s (%s)%s; commit %s\n",
		       json_string_value(json_object_get(m, "cpu_model")) ?
		       json_string_value(json_object_get(m, "cpu_model")) : "unknown CPU", cpus, nodes,
		       nodes == 1 ? "" : "s",
		       json_string_value(json_object_get(m, "topology")) ?
		       json_string_value(json_object_get(m, "topology")) : "topology unknown",
		       json_is_true(json_object_get(m, "hypervisor")) ? ", a VM guest" : "",
		       json_string_value(json_object_get(m, "commit")) ?
		       json_string_value(json_object_get(m, "commit")) : "unknown");
	}
	json_array_foreach(st->caveats, k, m)
		printf("# caveat: %s\n", json_string_value(m));
	printf("%-4s  %-*s  %10s  %-28s  %-3s  %9s  %9s  %s\n", "rank", w, "algorithm", "CPU s/s",
	       "interval (coverage)", "", "update ns", "read ns", "read error");
	for (int i = 0; i < st->ranked; i++) {
		rec_print_row(st->order[i], w);
		rec_print_evidence("update:", &st->order[i]->upd, &st->q);
		rec_print_evidence("read:", &st->order[i]->rd, &st->q);
	}
	rec_print_findings(st);
	if (!json_is_null(st->missing)) {
		size_t k2;
		json_t *c;

		printf("(no %s measurements in %s: run", !strcmp(json_string_value(json_object_get(st->missing,
		       "workload")), "readers") ? "read" : "update", st->results);
		json_array_foreach(json_object_get(st->missing, "sweep"), k2, c)
			printf("%s `%s`", k2 ? " and" : "", json_string_value(c));
		printf(" to get them)\n");
	} else if (!st->ranked) {
		printf("(none meets max staleness %s)\n", st->q.spec);
	}
	for (int b = 0; b < 2; b++) {
		int first = 1;

		for (int i = 0; i < st->nr_var; i++) {
			if (st->var[i].admitted || st->var[i].baseline != b)
				continue;
			if (first)
				printf("%s\n", b ? "# not ranked (harness baselines), for reference:" :
				       "# ruled out:");
			first = 0;
			printf("  %-*s  ", w, st->var[i].label);
			if (st->var[i].has_cost)
				printf("%.4g CPU s/s (update %.1f ns, read %.1f ns): ", st->var[i].cost,
				       st->var[i].upd.value, st->var[i].rd.value);
			printf("%s\n", st->var[i].reason);
		}
	}
}

int bench_cmd_recommend(int argc, char **argv)
{
	struct rec_state *st = bench_xcalloc(1, sizeof(*st));
	int ret;

	st->q = (struct rec_query){ .updates = -1, .reads = -1 };
	st->machines = json_array();
	st->caveats = json_array();
	rec_parse_args(argc, argv, st);
	if (!st->results && rec_quick_sweep(st))
		return 1;
	rec_load(st);
	rec_rank(st);
	rec_findings(st);
	if (st->json)
		rec_print_json(st);
	else
		rec_print_table(st);
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
	ret = st->status ? 1 : 0;
	free(st);
	return ret;
}
