/* SPDX-License-Identifier: MIT */
/*
 * output.c - recommend's answer (recommend.h): the query, the cost model,
 * the machines, the ranked variants with the evidence behind each figure,
 * the findings and what was ruled out, as a table or one JSON line.
 */
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "../bench.h"
#include "../cli.h"
#include "recommend.h"

static const char rec_cost_model[] =
	"CPU seconds per second = U x update CPU ns/op (update workload: task-clock / ops) + R x"
	" read ns (readers workload: mean of every timed read, of nodes picked at random over the"
	" shape); lower is better";
static const char rec_selection[] =
	"per algorithm and workload: the lines at the thread count nearest the target (the larger"
	" on a tie); at the target depth if measured (several lines there averaged), else linear"
	" between the nearest measured depths either side, else the nearest depth (never"
	" extrapolated)";

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

/*
 * The registry's counters that no line of the results measured, as a JSON
 * array: a ranking is of what was measured, and says what it left out
 * (issue 31: it did not).  Harness baselines are not counters: not listed.
 */
static json_t *rec_not_measured(const struct rec_state *st)
{
	json_t *a = json_array();

	for (int i = 0; i < bench_nr_algos; i++) {
		int seen = bench_algos[i].baseline;

		for (int k = 0; k < st->nr_var && !seen; k++)
			seen = !strcmp(st->var[k].algo, bench_algos[i].name);
		if (!seen)
			json_array_append_new(a, json_string(bench_algos[i].name));
	}
	return a;
}

void bench_rec_print_json(const struct rec_state *st)
{
	json_t *j = json_pack("{s:{s:f,s:f,s:i,s:i,s:s,s:o},s:s,s:s,s:s,s:b,s:O,s:O,s:o}",
			      "query", "updates_per_sec", st->q.updates, "reads_per_sec", st->q.reads,
			      "depth", st->q.depth, "threads", st->q.threads, "max_staleness", st->q.spec,
			      "counter_value", st->q.value > 0 ? json_real(st->q.value) : json_null(),
			      "cost_model", rec_cost_model, "selection", rec_selection, "results", st->results,
			      "measured_now", st->quick != NULL, "machines", st->machines, "caveats", st->caveats,
			      "not_measured", rec_not_measured(st));
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

void bench_rec_print_table(const struct rec_state *st)
{
	size_t k;
	json_t *m;
	int w = 9;

	for (int i = 0; i < st->nr_var; i++)
		if ((int)strlen(st->var[i].label) > w)
			w = (int)strlen(st->var[i].label);
	printf("# recommend: %.6g updates/s, %.6g reads/s at depth %d from %d thread%s; max staleness %s",
	       st->q.updates, st->q.reads, st->q.depth, st->q.threads, st->q.threads == 1 ? "" : "s", st->q.spec);
	if (st->q.value > 0)
		printf(" (P%% of the counter's value, %.6g)", st->q.value);
	putchar('\n');
	printf("# cost model: %s\n", rec_cost_model);
	printf("# figures: %s\n", rec_selection);
	printf("# evidence: %s (%d results%s%s)%s\n", st->results, st->nr_lines,
	       st->skipped ? ", some stopped early and skipped" : "",
	       st->unplain ? ", some left out: measured with private work, charge bursts, paced reads or"
			 " a chosen read node, not the plain cost" : "",
	       st->quick ? ", measured just now on this machine; kept: --results reuses it" : "");
	json_array_foreach(st->machines, k, m) {
		long long cpus = 0, nodes = 0;

		bench_rec_int(m, "cpus_online", &cpus);
		bench_rec_int(m, "numa_nodes", &nodes);
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
	{
		json_t *nm = rec_not_measured(st);

		if (json_array_size(nm)) {
			printf("# not in the results, so not ranked: ");
			rec_print_names(nm);
			printf(" (ctrbench sweep --algo with them, then --results)\n");
		}
		json_decref(nm);
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
