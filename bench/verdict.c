/* SPDX-License-Identifier: MIT */
/*
 * verdict.c - the verdict (verdict.h).  The ranking is recommend's own
 * (bench/recommend/model.c, rec_query.only: one workload's figure, the tie
 * rule of overlapping intervals); exact and approximate designs are told
 * apart by the bound each algorithm states (struct ctr_algo, recorded as
 * read_error_bound), never by its name.  What the machine cannot show
 * comes from the topology the lines recorded.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "cli.h"
#include "output.h"
#include "results.h"
#include "verdict.h"
#include "recommend/recommend.h"

/* A workload the verdict ranks: recommend's figure for it and the rate shown beside. */
struct vd_workload {
	const char *name;	/* "update", "readers" */
	const char *figure;	/* the figure, in words */
	const char *unit;	/* its column */
	const char *rate, *rate_unit;	/* the line's throughput and its column */
};

static const struct vd_workload vd_workloads[] = {
	{ "update", "CPU ns per update (task-clock / ops)", "cpu ns/op", "ops_per_sec", "ops/s" },
	{ "readers", "ns per read (mean of the timed reads)", "read ns", "reads_per_sec", "reads/s" },
};

/* What the next commands need from the ranked workloads. */
struct vd_seen {
	int ranked;		/* workloads ranked */
	int readers;		/* a readers workload among them */
	int depth, threads;	/* the deepest tree and most threads ranked */
	char shape[64];		/* a shape of those lines */
	json_t *machine;	/* the first line's machine (rec_state.machines[0]), owned */
	int nr_machines;
};

static void vd_say(const char *first, const char *text)
{
	bench_print_wrapped(stdout, first, "    ", "", text, 0);
}

/* s quoted for a shell where it needs it: the commands printed are to be pasted. */
static void vd_quote(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	if (s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+-=:,@%")] == 0) {
		snprintf(buf, len, "%s", s);
		return;
	}
	buf[o++] = '\'';
	for (; *s && o + 6 < len; s++) {
		if (*s == '\'') {
			memcpy(buf + o, "'\\''", 4);
			o += 4;
		} else {
			buf[o++] = *s;
		}
	}
	buf[o++] = '\'';
	buf[o] = 0;
}

/* The mean of the rate at path over the lines behind pick p. */
static double vd_rate(const struct rec_state *st, const struct rec_pick *p, const char *path)
{
	double sum = 0, x;
	int k = 0;
	size_t i;
	json_t *l;

	json_array_foreach(p->lines, i, l) {
		long long n = json_integer_value(json_object_get(l, "line"));

		for (int j = 0; j < st->nr_lines; j++)
			if (st->lines[j].lineno == n && bench_rec_num(st->lines[j].o, path, &x)) {
				sum += x;
				k++;
				break;
			}
	}
	return k ? sum / k : -1;
}

/* Ranks apart: the ties and ranks of one list only. */
static void vd_rerank(struct rec_variant **v, int n)
{
	for (int i = 0; i < n; i++)
		v[i]->tie = 0;
	bench_rec_ties(v, n);
}

static void vd_list(const struct rec_state *st, const struct vd_workload *w, struct rec_variant **v, int n,
		    int exact)
{
	int lw = 6, ties = 0;

	printf("%s\n", exact ? "  exact designs (a read is the true count):" :
	       "  approximate designs (a read may be off, by the bound each states):");
	if (!n) {
		printf("    none measured\n");
		return;
	}
	for (int i = 0; i < n; i++)
		if ((int)strlen(v[i]->label) > lw)
			lw = (int)strlen(v[i]->label);
	if (lw > 32)
		lw = 32;
	printf("    %-4s  %-*s  %10s  %-28s  %10s\n", "rank", lw, "design", w->unit, "interval (coverage)",
	       w->rate_unit);
	for (int i = 0; i < n; i++) {
		const struct rec_pick *p = !strcmp(w->name, "readers") ? &v[i]->rd : &v[i]->upd;
		char rank[16], iv[64], rate[32];
		double r = vd_rate(st, p, w->rate);

		snprintf(rank, sizeof(rank), "%d%s", v[i]->rank, v[i]->tie ? "=" : "");
		if (v[i]->has_iv)
			snprintf(iv, sizeof(iv), "[%.4g, %.4g] %.0f%%", v[i]->cost_lo, v[i]->cost_hi, 100 * v[i]->level);
		else
			snprintf(iv, sizeof(iv), "none (1 rep)");
		snprintf(rate, sizeof(rate), r >= 0 ? "%.4g" : "n/a", r);
		if ((int)strlen(v[i]->label) > lw)
			printf("    %-4s  %s\n%-*s", rank, v[i]->label, 10 + lw, "");
		else
			printf("    %-4s  %-*s", rank, lw, v[i]->label);
		printf("  %10.4g  %-28s  %10s\n", v[i]->cost, iv, rate);
		if (!exact) {
			char line[300];

			snprintf(line, sizeof(line), "read error: %s", v[i]->staleness);
			bench_print_wrapped(stdout, "          ", "            ", "", line, 0);
		}
		ties |= v[i]->tie;
	}
	if (ties)
		vd_say("    ", "= a tie: their intervals overlap, so this run cannot order them; more reps"
		       " could (ctrbench recommend says how many)");
}

/* One workload's ranking from lines; 1 if it had lines of it. */
static int vd_workload(json_t *lines, const char *file, const struct vd_workload *w, struct vd_seen *seen)
{
	struct rec_state *st = bench_xcalloc(1, sizeof(*st));
	struct rec_variant **ex, **ap;
	int nex = 0, nap = 0, nlines = 0, depth = 0, threads = 0, printed = 0;
	char buf[512];
	size_t i;
	json_t *o;

	st->q = (struct rec_query){ .updates = -1, .reads = -1, .count = -1, .only = w->name, .spec = "" };
	st->results = file;
	st->machines = json_array();
	st->caveats = json_array();
	st->r.line = bench_xcalloc(json_array_size(lines) + 1, sizeof(*st->r.line));
	json_array_foreach(lines, i, o) {
		st->r.line[st->r.n].obj = json_incref(o);
		st->r.line[st->r.n].lineno = (int)i + 1;
		st->r.n++;
	}
	bench_rec_take(st);
	for (int k = 0; k < st->nr_lines; k++) {
		if (strcmp(st->lines[k].workload, w->name))
			continue;
		nlines++;
		if (st->lines[k].depth > depth)
			depth = st->lines[k].depth;
		if (st->lines[k].threads > threads)
			threads = st->lines[k].threads;
		if (!seen->shape[0])
			snprintf(seen->shape, sizeof(seen->shape), "%s",
				 json_string_value(json_object_get(st->lines[k].o, "shape")) ?
				 json_string_value(json_object_get(st->lines[k].o, "shape")) : "chain:8");
	}
	if (!nlines) {
		bench_rec_free(st);
		return 0;
	}
	st->q.depth = depth;
	st->q.threads = threads;
	bench_rec_rank(st);
	if (!seen->machine && json_array_size(st->machines)) {
		seen->machine = json_incref(json_array_get(st->machines, 0));
		seen->nr_machines = (int)json_array_size(st->machines);
	}
	seen->ranked++;
	seen->readers |= !strcmp(w->name, "readers");
	if (depth > seen->depth)
		seen->depth = depth;
	if (threads > seen->threads)
		seen->threads = threads;
	ex = bench_xcalloc((size_t)st->ranked + 1, sizeof(*ex));
	ap = bench_xcalloc((size_t)st->ranked + 1, sizeof(*ap));
	for (int k = 0; k < st->ranked; k++) {
		struct rec_variant *v = st->order[k];
		const struct rec_pick *p = !strcmp(w->name, "readers") ? &v->rd : &v->upd;

		/* exact: the algorithm states bound 0 and no read was seen off; else its bound is shown */
		if (p->bound == 0 && !p->observed)
			ex[nex++] = v;
		else
			ap[nap++] = v;
	}
	vd_rerank(ex, nex);
	vd_rerank(ap, nap);
	snprintf(buf, sizeof(buf), "%s workload at depth %d, %d thread%s (the deepest and most measured): by"
		 " %s, lowest first; a tie (=) where intervals overlap", w->name, depth, threads,
		 threads == 1 ? "" : "s", w->figure);
	vd_say("", buf);
	vd_list(st, w, ex, nex, 1);
	vd_list(st, w, ap, nap, 0);
	buf[0] = 0;
	for (int k = 0; k < st->nr_var; k++) {
		if (st->var[k].admitted)
			continue;
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s (%s)", printed++ ? "; " : "",
			 st->var[k].label, st->var[k].baseline ? "harness baseline" : st->var[k].reason);
	}
	if (printed) {
		char line[600];

		snprintf(line, sizeof(line), "not ranked: %s", buf);
		vd_say("  ", line);
	}
	free(ex);
	free(ap);
	bench_rec_free(st);
	return 1;
}

/* n of what in the topology words "1 package, 1 NUMA node, 1 L3, 2 cores, 2 PUs"; -1 if not there. */
static long vd_topo_count(const char *topo, const char *what)
{
	const char *p = topo;
	size_t n = strlen(what);

	while (p && *p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end != p && *end == ' ' && !strncmp(end + 1, what, n))
			return v;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return -1;
}

/* What the machine cannot show, from its topology (env.topology, else env.numa_nodes and cpus_online). */
static void vd_machine(const struct vd_seen *seen, const char *file)
{
	const char *topo = json_string_value(json_object_get(seen->machine, "topology"));
	long long cpus = -1, nodes = -1;
	long l3 = -1, pkgs = -1;
	char buf[600], missing[80] = "";
	char f[300];

	vd_quote(f, sizeof(f), file ? file : "FILE");
	bench_rec_int(seen->machine, "cpus_online", &cpus);
	bench_rec_int(seen->machine, "numa_nodes", &nodes);
	if (topo) {
		long n = vd_topo_count(topo, "NUMA node"), p = vd_topo_count(topo, "PU");

		l3 = vd_topo_count(topo, "L3");
		pkgs = vd_topo_count(topo, "package");
		if (n > 0)
			nodes = n;
		if (p > 0)
			cpus = p;
	}
	if (l3 >= 0 && l3 <= 1)
		snprintf(missing, sizeof(missing), "cross-CCX");
	if (nodes >= 0 && nodes <= 1)
		snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%sNUMA",
			 missing[0] ? " or " : "");
	else if (pkgs >= 0 && pkgs <= 1)
		snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%scross-socket",
			 missing[0] ? " or " : "");
	snprintf(buf, sizeof(buf), "%lld NUMA node%s, %ld L3%s, %lld CPU%s: ", nodes, nodes == 1 ? "" : "s",
		 l3, l3 == 1 ? "" : "s", cpus, cpus == 1 ? "" : "s");
	if (missing[0])
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "no %s effects shown", missing);
	else
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "none of a larger machine's effects shown");
	if (cpus > 0 && cpus <= 4)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ", nor contention past %lld threads", cpus);
	if (json_is_true(json_object_get(seen->machine, "hypervisor")))
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "; a VM guest: its vCPUs may share cores"
			 " with other guests");
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "; `ctrbench project --against %s --topology"
		 " SPEC` models a larger machine", f);
	if (seen->nr_machines > 1)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " (the first of %d machines in the results)",
			 seen->nr_machines);
	vd_say("this machine cannot show: ", buf);
}

static void vd_cmd(const char *cmd)
{
	bench_print_wrapped(stdout, "  ", "      ", " \\", cmd, 0);
}

void bench_verdict_print(json_t *lines, const char *file, const char *keep)
{
	struct vd_seen seen = { 0 };
	char f[300], cmd[1024];

	printf("\n== verdict (recommend's judgement, docs/sweeps.md) ==\n");
	for (size_t w = 0; w < sizeof(vd_workloads) / sizeof(vd_workloads[0]); w++)
		vd_workload(lines, file, &vd_workloads[w], &seen);
	if (!seen.ranked)
		vd_say("", "no update or readers results: the verdict ranks those workloads (ctrbench report"
		       " shows the others)");
	if (file) {
		snprintf(cmd, sizeof(cmd), "%s (%zu result%s)", file, json_array_size(lines),
			 json_array_size(lines) == 1 ? "" : "s");
		vd_say("evidence: ", cmd);
	} else {
		vd_say("evidence: ", keep ? keep : "the figures above, kept in no file");
	}
	if (seen.machine)
		vd_machine(&seen, file);
	printf("next:\n");
	vd_quote(f, sizeof(f), file ? file : "FILE");
	if (!file) {
		snprintf(cmd, sizeof(cmd), "ctrbench recommend --verdict --results FILE");
		vd_cmd(cmd);
	}
	if (seen.ranked && !seen.readers) {
		char s[128];

		vd_quote(s, sizeof(s), seen.shape);
		snprintf(cmd, sizeof(cmd), "ctrbench sweep --algo all --workload readers --shape %s --threads %d"
			 " --out %s --resume", s, seen.threads, f);
		vd_say("  ", "reads too (recommend's cost model needs both figures):");
		vd_cmd(cmd);
	}
	snprintf(cmd, sizeof(cmd), "ctrbench recommend --updates-per-sec U --reads-per-sec R --depth %d"
		 " --max-staleness EXACT --results %s", seen.depth ? seen.depth : 8, f);
	vd_say("  ", "your workload's rates and staleness (EXACT, or 1%,2s), ranked by CPU time:");
	vd_cmd(cmd);
	snprintf(cmd, sizeof(cmd), "ctrbench report %s --out DIR", f);
	vd_say("  ", "every table and plot:");
	vd_cmd(cmd);
	json_decref(seen.machine);
	fflush(stdout);
}

void bench_verdict_file(const char *file)
{
	struct bench_results r = { 0 };
	json_t *lines = json_array();

	bench_results_load(file, 0, &r);
	bench_results_check_partial(&r, file, "recommend");
	for (int i = 0; i < r.n; i++)
		json_array_append(lines, r.line[i].obj);
	bench_verdict_print(lines, file, NULL);
	json_decref(lines);
	bench_results_free(&r);
}
