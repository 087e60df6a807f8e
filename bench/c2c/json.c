/* SPDX-License-Identifier: MIT */
/*
 * c2c/json.c - c2c's JSON (c2c.h): one object, its members in the field
 * table's order (BENCH_C2C_FIELDS in schema.h): the plan on a dry run, else
 * every home's classes, pairs and matrix, and the calibration a coherence
 * projection takes.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../schema.h"
#include "../stats.h"
#include "c2c.h"

static json_t *c2c_int_array(const int *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static json_t *c2c_home_json(const struct c2c_run *r, int h)
{
	const struct c2c_home *hm = &r->homes[h];

	return json_pack("{s:s,s:o,s:o,s:s,s:o}", "how", hm->asked < 0 ? "first-touch" : "node",
			 "asked", hm->asked < 0 ? json_null() : json_integer(hm->asked), "node",
			 hm->node < 0 ? json_null() : json_integer(hm->node), "checked_with", "move_pages",
			 "why_unknown", hm->why ? json_string(hm->why) : json_null());
}

static json_t *c2c_class_json(struct c2c_run *r, int h, int c, const struct c2c_class_row *row)
{
	json_t *o = json_pack("{s:s,s:i,s:f,s:f,s:f}", "class", topo_class_name(c), "pairs", row->pairs,
			      "median_ns", row->median, "p10_ns", row->p10, "p90_ns", row->p90);
	double tr = h >= 0 ? r->tr_sum[h * TOPO_NR_CLASSES + c] : 0;

	if (h >= 0)
		json_object_set_new(o, "home_node", r->homes[h].node < 0 ? json_null()
									  : json_integer(r->homes[h].node));
	if (h >= 0 && r->nr_ev && !r->ev_reason && tr > 0) {
		json_t *e = json_object();

		for (int i = 0; i < r->nr_ev; i++)
			json_object_set_new(e, r->ev[i].name, json_real(
				r->ev_sum[((size_t)h * TOPO_NR_CLASSES + c) * r->nr_ev + i] / tr));
		json_object_set_new(o, "events_per_transfer", e);
	}
	return o;
}

/*
 * The calibration a coherence projection takes: class -> one-way ns, pooled
 * over the homes measured, with the machine it came from.
 */
static json_t *c2c_calibration_json(struct c2c_run *r)
{
	struct c2c_class_row rows[TOPO_NR_CLASSES];
	json_t *ns = json_object(), *pairs = json_object(), *homes = json_array();
	static const char *const keys[] = { "cpu_model", "hypervisor", "kernel", "arch", "numa_nodes",
					    "cpus_online", "smt_active", "date", "commit" };
	json_t *machine = json_object();
	struct topo_counts tc;

	c2c_classes(r, -1, rows);
	for (int c = 0; c < TOPO_NR_CLASSES; c++) {
		if (!rows[c].pairs)
			continue;
		json_object_set_new(ns, topo_class_name(c), json_real(rows[c].median));
		json_object_set_new(pairs, topo_class_name(c), json_integer(rows[c].pairs));
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(r->env, keys[i]);

		json_object_set(machine, keys[i], v ? v : json_null());
	}
	topo_counts(r->t, &tc);
	json_object_set_new(machine, "topology", json_sprintf("%d packages, %d NUMA nodes, %d L3s, "
							      "%d cores, %d PUs", tc.packages,
							      tc.numa_nodes, tc.l3s, tc.cores, tc.pus));
	for (int h = 0; h < r->nr_homes; h++)
		json_array_append_new(homes, r->homes[h].node < 0 ? json_null()
								   : json_integer(r->homes[h].node));
	return json_pack("{s:s,s:i,s:s,s:s,s:o,s:o,s:o,s:o}", "kind", "c2c-calibration", "schema",
			 C2C_SCHEMA, "op", c2c_op_names[r->o->op], "figure", c2c_op_figure[r->o->op],
			 "one_way_ns", ns, "pairs", pairs, "home_nodes", homes, "machine", machine);
}

static json_t *c2c_plan_json(struct c2c_run *r)
{
	const struct c2c_plan *p = &r->plan;
	json_t *avail = json_object(), *planned = json_object();
	char mode[64];

	c2c_mode_str(p, mode, sizeof(mode));
	for (int c = 0; c < TOPO_NR_CLASSES; c++) {
		if (c == TOPO_CLASS_SAME)
			continue;	/* distinct CPUs: never a pair */
		json_object_set_new(avail, topo_class_name(c), json_integer(p->avail[c]));
		json_object_set_new(planned, topo_class_name(c), json_integer(c2c_plan_count(p, c)));
	}
	return json_pack("{s:s,s:i,s:o,s:o,s:o,s:i,s:i,s:f}", "pairs_mode", mode, "pairs", p->nr_pairs,
			 "pairs_per_class", planned, "pairs_available", avail, "cpus_duplicate",
			 c2c_int_array(p->dups, p->nr_dups), "homes", r->homes_each ? r->nodes_total : 1,
			 "measurements", p->nr_pairs * (r->homes_each ? r->nodes_total : 1) * r->o->reps,
			 "estimate_s", r->estimate_s);
}

/*
 * The line's top-level members in the order of the field table
 * (BENCH_C2C_FIELDS in schema.h), which must list every one: a member the
 * table lacks, or one it lists for this kind of line that is missing, is a
 * bug in this file, caught by the assertion (and by tests/cli_c2c.sh).
 */
static json_t *c2c_in_schema_order(json_t *j, int dry_run)
{
	json_t *out = json_object();
	size_t n = 0;

	for (int f = 0; f < bench_c2c_nr_fields; f++) {
		const struct bench_c2c_field *d = &bench_c2c_fields[f];
		json_t *v;

		if (strchr(d->path, '.') || strchr(d->path, '['))
			continue;
		v = json_object_get(j, d->path);
		assert(v || (dry_run && d->when == BCW_MEASURED));
		if (v) {
			json_object_set(out, d->path, v);
			n++;
		}
	}
	assert(n == json_object_size(j));
	(void)n;
	return out;
}

/* Where each CPU sits (hwloc logical indexes), so a reader can order and group the matrix. */
static json_t *c2c_cpu_info_json(struct c2c_run *r)
{
	json_t *a = json_array();

	for (int i = 0; i < r->plan.nr_cpus; i++) {
		struct topo_pu_info in;

		topo_pu_info(r->t, r->plan.cpus[i], &in);
		json_array_append_new(a, json_pack("{s:i,s:i,s:i,s:i,s:i,s:i}", "cpu", in.pu, "package",
						   in.package, "numa", in.numa, "l3", in.l3, "core",
						   in.core, "smt", in.smt));
	}
	return a;
}

/* The median over pair i's measured reps of each rep's sample median (what a preempted sample does not move). */
static double c2c_pair_p50(struct c2c_run *r, int h, int i)
{
	const double *v = c2c_res(r, h, i), *v50 = r->res_p50 + (v - r->res);
	double m50[1000];
	int k50 = 0;

	for (int q = 0; q < r->o->reps; q++)
		if (!isnan(v[q]))
			m50[k50++] = v50[q];
	qsort(m50, k50, sizeof(double), cmp_double);
	return quantile_sorted(m50, k50, 0.5);
}

/* Pair i of home h into pairs, its figure into the matrix rowsj; nothing when it has none. */
static void c2c_pair_json(struct c2c_run *r, int h, int i, json_t *pairs, json_t *rowsj)
{
	const struct c2c_plan *p = &r->plan;
	double vals[1000];
	struct bench_stat st;
	int k = c2c_pair_stat(r, h, i, &st, vals), ia = -1, ib = -1;
	json_t *reps;

	if (!k)
		return;
	reps = json_array();
	for (int q = 0; q < k; q++)
		json_array_append_new(reps, json_real(vals[q]));
	json_array_append_new(pairs, json_pack("{s:o,s:i,s:i,s:s,s:f,s:f,s:f,s:f,s:f,s:o}",
		"home_node", r->homes[h].node < 0 ? json_null() : json_integer(r->homes[h].node),
		"cpu_a", p->pairs[i].a, "cpu_b", p->pairs[i].b,
		"class", topo_class_name(p->pairs[i].cls), "median_ns", st.median,
		"lo_ns", st.lo, "hi_ns", st.hi, "level", st.level, "cv", st.cv, "reps_ns", reps));
	json_object_set_new(json_array_get(pairs, json_array_size(pairs) - 1), "sample_p50_ns",
			    json_real(c2c_pair_p50(r, h, i)));
	for (int q = 0; q < p->nr_cpus; q++) {
		if (p->cpus[q] == p->pairs[i].a)
			ia = q;
		if (p->cpus[q] == p->pairs[i].b)
			ib = q;
	}
	json_array_set_new(json_array_get(rowsj, ia), ib, json_real(st.median));
	json_array_set_new(json_array_get(rowsj, ib), ia, json_real(st.median));
}

/* Home h's entries of the homes, classes, pairs and matrices arrays. */
static void c2c_home_results_json(struct c2c_run *r, int h, json_t *homes, json_t *classes, json_t *pairs,
				  json_t *matrices)
{
	const struct c2c_plan *p = &r->plan;
	struct c2c_class_row rows[TOPO_NR_CLASSES];
	json_t *rowsj = json_array();

	json_array_append_new(homes, c2c_home_json(r, h));
	c2c_classes(r, h, rows);
	for (int c = 0; c < TOPO_NR_CLASSES; c++)
		if (rows[c].pairs)
			json_array_append_new(classes, c2c_class_json(r, h, c, &rows[c]));
	for (int i = 0; i < p->nr_cpus; i++) {
		json_t *row = json_array();

		for (int jj = 0; jj < p->nr_cpus; jj++)
			json_array_append_new(row, json_null());
		json_array_append_new(rowsj, row);
	}
	for (int i = 0; i < p->nr_pairs; i++)
		c2c_pair_json(r, h, i, pairs, rowsj);
	json_array_append_new(matrices, json_pack("{s:o,s:o,s:o}", "home_node",
		r->homes[h].node < 0 ? json_null() : json_integer(r->homes[h].node),
		"cpus", c2c_int_array(p->cpus, p->nr_cpus), "ns", rowsj));
}

/* What the line says before any result: the op, the method, the machine, the plan. */
static json_t *c2c_head_json(struct c2c_run *r)
{
	const struct c2c_plan *p = &r->plan;
	json_t *j;

	j = json_pack("{s:s,s:i,s:s,s:s,s:b}", "kind", "c2c", "schema", C2C_SCHEMA, "op",
		      c2c_op_names[r->o->op], "figure", c2c_op_figure[r->o->op], "dry_run", r->o->dry_run);
	json_object_set_new(j, "method", json_pack("{s:i,s:i,s:i,s:i,s:s,s:s}", "reps", r->o->reps,
						   "reps_done", r->reps_done, "samples", r->o->samples,
						   "iters", r->o->iters, "pair_figure",
						   "mean over samples (warm-up sample dropped), median over reps",
						   "class_figure", "median, p10, p90 of the pairs' figures"));
	json_object_set_new(j, "topology", json_pack("{s:s,s:b}", "spec", topo_spec(r->t), "synthetic",
						     topo_is_synthetic(r->t)));
	json_object_set_new(j, "cpus", c2c_int_array(p->cpus, p->nr_cpus));
	json_object_set_new(j, "cpu_info", c2c_cpu_info_json(r));
	json_object_set_new(j, "plan", c2c_plan_json(r));
	return j;
}

/* The dry run's pairs: each pair's CPUs and class. */
static json_t *c2c_planned_pairs_json(const struct c2c_plan *p)
{
	json_t *pairs = json_array();

	for (int i = 0; i < p->nr_pairs; i++)
		json_array_append_new(pairs, json_pack("{s:i,s:i,s:s}", "cpu_a", p->pairs[i].a,
						       "cpu_b", p->pairs[i].b, "class",
						       topo_class_name(p->pairs[i].cls)));
	return pairs;
}

/* What was measured: the run's state, the events, then every home's results. */
static void c2c_results_json(struct c2c_run *r, json_t *j, int interrupted)
{
	json_t *homes = json_array(), *classes = json_array(), *pairs = json_array();
	json_t *matrices = json_array(), *events;

	json_object_set_new(j, "interrupted", json_boolean(interrupted));
	json_object_set_new(j, "elapsed_s", json_real(r->elapsed_s));
	json_object_set_new(j, "numa_single_node", json_boolean(r->nodes_total == 1));
	if (!r->nr_ev)
		events = json_pack("{s:b,s:s}", "counted", 0, "reason", "not asked (--events none)");
	else
		events = json_pack("{s:b,s:o}", "counted", !r->ev_reason, "reason",
				   r->ev_reason ? json_string(r->ev_reason) : json_null());
	json_object_set_new(j, "events", events);
	for (int h = 0; h < r->nr_homes; h++)
		c2c_home_results_json(r, h, homes, classes, pairs, matrices);
	json_object_set_new(j, "homes", homes);
	json_object_set_new(j, "classes", classes);
	json_object_set_new(j, "pairs", pairs);
	json_object_set_new(j, "matrices", matrices);
	json_object_set_new(j, "calibration", c2c_calibration_json(r));
}

void c2c_print_json(struct c2c_run *r, int interrupted)
{
	json_t *j = c2c_head_json(r), *out;

	if (r->o->dry_run)
		json_object_set_new(j, "pairs", c2c_planned_pairs_json(&r->plan));
	else
		c2c_results_json(r, j, interrupted);
	json_object_set(j, "env", r->env);
	out = c2c_in_schema_order(j, r->o->dry_run);
	json_dumpf(out, stdout, JSON_COMPACT);
	fputc('\n', stdout);
	json_decref(out);
	json_decref(j);
}
