/* SPDX-License-Identifier: MIT */
/*
 * ctrbench recommend: rank the algorithms for a workload (updates/s,
 * reads/s, tree depth, how stale a read may be) by the CPU time they would
 * spend on it, from measured results, and show the evidence behind each
 * rank.  docs/sweeps.md describes the cost model and the selection rules
 * for users; each is also printed with every answer.
 */
#define _GNU_SOURCE
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
#include "sweep.h"

/* The quick sweep recommend runs without --results: short, one repetition. */
#define REC_QUICK_DURATION_MS 100
#define REC_QUICK_WARMUP_MS 20

enum rec_staleness { REC_EXACT, REC_COUNT, REC_TIME };

struct rec_query {
	double updates, reads;		/* per second, the target workload */
	int depth;			/* tree depth the target updates and reads at */
	int threads;			/* CPUs the target updates from; 0: not given */
	enum rec_staleness kind;	/* --max-staleness */
	long long limit;		/* ... N counts (REC_COUNT) or MS milliseconds (REC_TIME) */
	const char *spec;		/* ... as typed */
};

/* The figure taken for one workload of one algorithm variant, and the lines behind it. */
struct rec_pick {
	int found;			/* some line had the figure */
	double value;			/* ns */
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
	if (errno || end == s || *end || !isfinite(v) || v < 0)
		die("bad value '%s' for --%s (want a number >= 0, like 2e6)", s, opt);
	return v;
}

/* EXACT, a count N, or a time MSms. */
static void rec_parse_staleness(const char *s, struct rec_query *q)
{
	size_t digits = strspn(s, "0123456789");
	char *end;

	q->spec = s;
	if (!strcasecmp(s, "exact")) {
		q->kind = REC_EXACT;
		return;
	}
	errno = 0;
	if (digits && digits <= 15 && (!s[digits] || !strcmp(s + digits, "ms"))) {
		q->limit = strtoll(s, &end, 10);
		q->kind = s[digits] ? REC_TIME : REC_COUNT;
		if (q->kind == REC_COUNT || (q->limit >= 1 && q->limit <= 24LL * 3600 * 1000))
			return;
	}
	die("bad value '%s' for --max-staleness (want EXACT, a count like 100, or a time from 1ms to"
	    " 86400000ms like 2000ms)", s);
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

/* Mean of the figure over the lines at (threads, depth); adds them to p->lines. */
static double rec_mean_at(const struct rec_line **l, int n, int threads, int depth, const char *path,
			  struct rec_pick *p)
{
	double sum = 0;
	int k = 0;

	for (int i = 0; i < n; i++) {
		double x = 0;
		long long b, e, cpus;

		if (l[i]->threads != threads || l[i]->depth != depth)
			continue;
		rec_num(l[i]->o, path, &x);
		sum += x;
		k++;
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
	p->lines = json_array();
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
		p->value = rec_mean_at(l, n, best_t, lo, path, p);
	} else if (lo >= 0 && hi >= 0) {
		double a = rec_mean_at(l, n, best_t, lo, path, p), b = rec_mean_at(l, n, best_t, hi, path, p);

		p->method = "interpolated";
		p->depth_lo = lo;
		p->depth_hi = hi;
		p->value = a + (b - a) * (q->depth - lo) / (double)(hi - lo);
	} else {
		p->method = "nearest";
		p->depth_lo = p->depth_hi = lo >= 0 ? lo : hi;
		p->value = rec_mean_at(l, n, best_t, p->depth_lo, path, p);
	}
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
	switch (q->kind) {
	case REC_EXACT:
		if (bound != 0)
			snprintf(v->reason, sizeof(v->reason), "not exact: %s", kind);
		else if (seen)
			/* atomic_tree_stock: a read under updates can miss a batch in transit */
			snprintf(v->reason, sizeof(v->reason), "not exact under updates: reads were off by %lld",
				 (long long)seen);
		else
			v->admitted = 1;
		break;
	case REC_COUNT:
		if (bound < 0)
			snprintf(v->reason, sizeof(v->reason), "not bounded by a count: %s", kind);
		else if (bound > q->limit)
			snprintf(v->reason, sizeof(v->reason), "stated bound %lld > %lld", (long long)bound,
				 q->limit);
		else if (seen > q->limit)
			snprintf(v->reason, sizeof(v->reason), "observed off by %lld > %lld", (long long)seen,
				 q->limit);
		else
			v->admitted = 1;
		break;
	case REC_TIME:
		/* exact and count-bounded ones are admitted: their error has a bound, whatever the time */
		if (bound >= 0)
			v->admitted = 1;
		else if (stale_ms < 0)
			snprintf(v->reason, sizeof(v->reason), "%s", kind);
		else if (stale_ms > (double)q->limit)
			snprintf(v->reason, sizeof(v->reason), "%s: more than %lld ms", kind, q->limit);
		else
			v->admitted = 1;
		break;
	}
}

static int rec_cmp_cost(const void *a, const void *b)
{
	const struct rec_variant *x = *(struct rec_variant *const *)a, *y = *(struct rec_variant *const *)b;

	return (x->cost > y->cost) - (x->cost < y->cost);
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
	return json_pack("{s:s,s:f,s:i,s:s,s:i,s:i,s:O}", "metric", metric, "ns", p->value,
			 "threads", p->threads, "method", p->method, "depth_lo", p->depth_lo,
			 "depth_hi", p->depth_hi, "lines", p->lines);
}

static json_t *rec_variant_json(const struct rec_variant *v, int rank)
{
	json_t *j = json_pack("{s:s,s:o,s:i}", "algo", v->algo,
			      "options", v->options ? json_string(v->options) : json_null(),
			      "flush_period_ms", v->flush_period_ms);

	if (rank)
		json_object_set_new(j, "rank", json_integer(rank));
	json_object_set_new(j, "cpu_s_per_s", v->has_cost ? json_real(v->cost) : json_null());
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

static void rec_print_row(const struct rec_variant *v, int rank, int w)
{
	char r[16];

	snprintf(r, sizeof(r), "%d", rank);
	printf("%-4s  %-*s  %10.4g  %9.1f  %9.1f  %s\n", rank ? r : "-", w, v->label, v->cost,
	       v->upd.value, v->rd.value, v->staleness);
}

static const char *const rec_help =
	"usage: ctrbench recommend --updates-per-sec U --reads-per-sec R --depth D\n"
	"                          --max-staleness EXACT|N|MSms [options]\n"
	"\n"
	"Ranks the algorithms for a workload by the CPU time they would spend on it (docs/sweeps.md).\n"
	"\n"
	"  --updates-per-sec U      updates per second of the target (required)\n"
	"  --reads-per-sec R        reads per second (required)\n"
	"  --depth D                tree depth, root included (required)\n"
	"  --max-staleness S        EXACT, a count N, or a time MSms (required)\n"
	"  --results FILE           sweep results to rank from (default: a quick sweep now, 100 ms runs)\n"
	"  --threads T              CPUs the target updates from (default: the most the results have)\n"
	"  --format F               table or json (default table)\n"
	"\n"
	"example: ctrbench recommend --updates-per-sec 2e6 --reads-per-sec 1e4 --depth 5 \\\n"
	"             --max-staleness 2000ms --results results.jsonl\n";

int bench_cmd_recommend(int argc, char **argv)
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
	struct rec_query q = { .updates = -1, .reads = -1 };
	const char *results = NULL;
	char *quick = NULL;
	int json = 0, c, nr_lines = 0, nr_var = 0, max_threads = 0, ranked = 0, status = 0, skipped = 0;
	int unplain = 0;
	struct bench_results r;
	struct rec_line *lines;
	const struct rec_line **tmp;
	struct rec_variant *var = NULL, **order;
	json_t *machines = json_array(), *caveats = json_array();

	bench_help(argc, argv, rec_help);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
			q.updates = rec_parse_rate("updates-per-sec", optarg);
			break;
		case 'r':
			q.reads = rec_parse_rate("reads-per-sec", optarg);
			break;
		case 'd':
			q.depth = bench_parse_int("depth", optarg, 1, 4096);
			break;
		case 's':
			rec_parse_staleness(optarg, &q);
			break;
		case 'R':
			results = optarg;
			break;
		case 't':
			q.threads = bench_parse_int("threads", optarg, 1, 4096);
			break;
		case 'f':
			json = bench_parse_table_json("recommend", optarg);
			break;
		default:
			bench_die_getopt(c, argv);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	{
		static const char *const need[] = { "--updates-per-sec U", "--reads-per-sec R",
						    "--depth D", "--max-staleness EXACT|N|MSms" };
		const int missing[] = { q.updates < 0, q.reads < 0, !q.depth, !q.spec };

		bench_need("recommend", need, missing, 4, "(ctrbench recommend --help)");
	}

	if (!results) {
		/* Nothing measured given: measure now, briefly, on this machine. */
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
		if (!algos || asprintf(&quick, "%s/ctrbench-recommend-XXXXXX.jsonl", dir) < 0)
			die("out of memory");
		fd = mkstemps(quick, 6);
		if (fd < 0)
			die("cannot create a results file in '%s': %s", dir, strerror(errno));
		close(fd);
		for (int i = 0; i < bench_nr_algos; i++)
			if (!bench_algos[i].baseline)
				algos[s.nr_algos++] = &bench_algos[i];
		snprintf(shape, sizeof(shape), "chain:%d", q.depth);
		s.algo = algos;
		s.workload = workloads;
		s.nr_workloads = 2;
		s.shape = shapes;
		s.nr_shapes = 1;
		s.threads = &pus;
		s.nr_threads = 1;
		s.placement = placements;
		s.nr_placements = 1;
		s.out = quick;
		fprintf(stderr, "ctrbench: recommend: no --results: measuring now (update and readers at %s,"
			" %d threads, %d ms each, 1 rep) into %s\n", shape, pus, REC_QUICK_DURATION_MS, quick);
		bench_sweep_check(&s);
		status = bench_sweep_exec(&s);
		free(algos);
		if (status && bench_sweep_interrupted())
			return 1;
		results = quick;
		if (!q.threads)
			q.threads = pus;
	}

	bench_results_load(results, 0, &r);
	if (r.partial_bytes)
		fprintf(stderr, "ctrbench: recommend: ignored a partial last line of '%s' (%zu bytes:"
			" a sweep killed while writing it)\n", results, r.partial_bytes);
	lines = calloc((size_t)r.n + 1, sizeof(*lines));
	tmp = calloc((size_t)r.n + 1, sizeof(*tmp));
	if (!lines || !tmp)
		die("out of memory");
	for (int i = 0; i < r.n; i++) {
		json_t *o = r.line[i].obj;
		const char *w = json_string_value(json_object_get(o, "workload"));
		long long d, t, done, asked;

		if (!json_is_string(json_object_get(o, "algo")) || !w)
			die("%s:%d: not a result line (no \"algo\" or \"workload\")", results, r.line[i].lineno);
		if (!rec_int(o, "depth", &d) || !rec_int(o, "threads", &t))
			die("%s:%d: \"depth\" or \"threads\" is missing or not an integer", results,
			    r.line[i].lineno);
		if (strcmp(w, "update") && strcmp(w, "readers"))
			continue;	/* charge: not part of this cost model */
		if (rec_int(o, "reps_done", &done) && rec_int(o, "reps_requested", &asked) && done < asked) {
			skipped++;	/* stopped early */
			continue;
		}
		if (!rec_plain_cost(o)) {
			unplain++;
			continue;
		}
		lines[nr_lines++] = (struct rec_line){ .o = o, .lineno = r.line[i].lineno, .workload = w,
						       .depth = (int)d, .threads = (int)t };
		if (t > max_threads)
			max_threads = (int)t;
	}
	if (!nr_lines)
		die("'%s' has no results of the update or readers workload", results);
	if (!q.threads)
		q.threads = max_threads;
	for (int i = 0; i < nr_lines; i++)
		rec_variant_of(&var, &nr_var, lines[i].o);
	order = calloc((size_t)nr_var, sizeof(*order));
	if (!order)
		die("out of memory");
	for (int i = 0; i < nr_var; i++) {
		struct rec_variant *v = &var[i];
		int n;

		n = rec_lines_of(lines, nr_lines, v, "update", "cpu_ns_per_op", tmp);
		rec_pick(tmp, n, &q, q.threads, "cpu_ns_per_op", &v->upd);
		n = rec_lines_of(lines, nr_lines, v, "readers", "read_ns.mean", tmp);
		rec_pick(tmp, n, &q, q.threads, "read_ns.mean", &v->rd);
		v->has_cost = v->upd.found && v->rd.found;
		if (v->has_cost)
			v->cost = q.updates * v->upd.value * 1e-9 + q.reads * v->rd.value * 1e-9;
		rec_judge(v, &q);
		if (v->admitted)
			order[ranked++] = v;
	}
	qsort(order, (size_t)ranked, sizeof(*order), rec_cmp_cost);
	rec_environment(lines, nr_lines, &q, max_threads, machines, caveats);

	static const char cost_model[] =
		"CPU seconds per second = U x update CPU ns/op (update workload: task-clock / ops) + R x"
		" read ns (readers workload: mean of every timed read, of nodes picked at random over the"
		" shape); lower is better";
	static const char selection[] =
		"per algorithm and workload: the lines at the thread count nearest the target (the larger"
		" on a tie); at the target depth if measured (several lines there averaged), else linear"
		" between the nearest measured depths either side, else the nearest depth (never"
		" extrapolated)";
	if (json) {
		json_t *j = json_pack("{s:{s:f,s:f,s:i,s:i,s:s},s:s,s:s,s:s,s:b,s:O,s:O}",
				      "query", "updates_per_sec", q.updates, "reads_per_sec", q.reads,
				      "depth", q.depth, "threads", q.threads, "max_staleness", q.spec,
				      "cost_model", cost_model, "selection", selection, "results", results,
				      "measured_now", quick != NULL, "machines", machines, "caveats", caveats);
		json_t *a = json_array(), *out = json_array(), *base = json_array();

		for (int i = 0; i < ranked; i++)
			json_array_append_new(a, rec_variant_json(order[i], i + 1));
		for (int i = 0; i < nr_var; i++)
			if (!var[i].admitted)
				json_array_append_new(var[i].baseline ? base : out, rec_variant_json(&var[i], 0));
		json_object_set_new(j, "ranked", a);
		json_object_set_new(j, "ruled_out", out);
		json_object_set_new(j, "not_ranked", base);
		json_dumpf(j, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(j);
	} else {
		size_t k;
		json_t *m;
		int w = 9;

		for (int i = 0; i < nr_var; i++)
			if ((int)strlen(var[i].label) > w)
				w = (int)strlen(var[i].label);
		printf("# recommend: %.6g updates/s, %.6g reads/s at depth %d from %d thread%s; max staleness %s\n",
		       q.updates, q.reads, q.depth, q.threads, q.threads == 1 ? "" : "s", q.spec);
		printf("# cost model: %s\n", cost_model);
		printf("# figures: %s\n", selection);
		printf("# evidence: %s (%d results%s%s)%s\n", results, nr_lines,
		       skipped ? ", some stopped early and skipped" : "",
		       unplain ? ", some left out: measured with private work, charge bursts, paced reads or"
				 " a chosen read node, not the plain cost" : "",
		       quick ? ", measured just now on this machine; kept: --results reuses it" : "");
		json_array_foreach(machines, k, m) {
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
		json_array_foreach(caveats, k, m)
			printf("# caveat: %s\n", json_string_value(m));
		printf("%-4s  %-*s  %10s  %9s  %9s  %s\n", "rank", w, "algorithm", "CPU s/s", "update ns",
		       "read ns", "read error");
		for (int i = 0; i < ranked; i++) {
			rec_print_row(order[i], i + 1, w);
			rec_print_evidence("update:", &order[i]->upd, &q);
			rec_print_evidence("read:", &order[i]->rd, &q);
		}
		if (!ranked)
			printf("(none meets max staleness %s)\n", q.spec);
		for (int b = 0; b < 2; b++) {
			int first = 1;

			for (int i = 0; i < nr_var; i++) {
				if (var[i].admitted || var[i].baseline != b)
					continue;
				if (first)
					printf("%s\n", b ? "# not ranked (harness baselines), for reference:" :
					       "# ruled out:");
				first = 0;
				printf("  %-*s  ", w, var[i].label);
				if (var[i].has_cost)
					printf("%.4g CPU s/s (update %.1f ns, read %.1f ns): ", var[i].cost,
					       var[i].upd.value, var[i].rd.value);
				printf("%s\n", var[i].reason);
			}
		}
	}
	for (int i = 0; i < nr_var; i++) {
		json_decref(var[i].upd.lines);
		json_decref(var[i].rd.lines);
		free(var[i].key);
	}
	json_decref(machines);
	json_decref(caveats);
	free(var);
	free(order);
	free(lines);
	free(tmp);
	bench_results_free(&r);
	free(quick);
	return status ? 1 : 0;
}
