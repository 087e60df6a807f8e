/* SPDX-License-Identifier: MIT */
/*
 * project.c - one projection as the harness's commands ask for it (project,
 * scenario --project): a shape and a placement by name, onto project/'s model.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../project/proj.h"
#include "../topology/topo.h"
#include "baselines.h"
#include "cli.h"
#include "project.h"
#include "run.h"
#include "schema.h"

double pj_total(const double *x)
{
	double s = 0;

	for (int k = 0; k < PROJ_NR_CLASSES; k++)
		s += x[k];
	return s;
}

int bench_proj_default_slots(const struct topo *topo, int threads, int readers)
{
	const int pus = topo_nr_pus(topo), need = threads + readers;

	return pus > need ? pus : need;
}

int bench_proj_raw(const char *algo)
{
	const struct bench_algo *b = bench_algo_find(algo);

	return b ? bench_baseline_proj_raw(b->algo) : PROJ_RAW_NONE;
}

/* q as the model's configuration, the shape and the PUs filled in by the caller. */
static void bench_proj_config(const struct bench_proj_req *q, int readers, struct proj_config *pc)
{
	pc->algo = q->algo;
	pc->raw = bench_proj_raw(q->algo);
	pc->workload = q->workload;
	pc->threads = q->threads;
	pc->readers = readers;
	pc->topo = q->topo;
	pc->options = q->options;
	pc->flush_period_ms = q->flush_period_ms;
	pc->work_ns = q->work_ns;
	pc->read_interval_ns = q->read_interval_ns;
	pc->read_node = q->read_node;
	pc->ops = q->ops;
	pc->reads = q->reads;
	pc->warmup_ops = q->warmup;
	pc->limit_headroom = q->limit_headroom;
	pc->calib = q->calib;
	pc->slots = q->slots ? q->slots : bench_proj_default_slots(q->topo, q->threads, readers);
	pc->nr_stats = q->nr_stats ? q->nr_stats : 1;
	pc->seed = q->seed;
	pc->jitter = !q->no_jitter;
	pc->slice_ns = (q->slice_ms > 0 ? q->slice_ms : BENCH_PROJ_SLICE_MS) * 1e6;
	pc->preempt_none = q->preempt_none;
}

void bench_project_one(const struct bench_proj_req *q, struct proj_result *res, double *secs)
{
	const int readers = q->workload == BENCH_READERS ? q->readers : 0;
	struct bench_shape s;
	struct proj_config pc = { 0 };
	const char *why;
	char err[512];
	int *pus;
	struct timespec t0, t1;

	if (bench_shape_parse(q->shape, &s, &why))
		die("project: bad --shape '%s' (%s)", q->shape, why);
	bench_proj_config(q, readers, &pc);
	if (pc.slots < q->threads + readers)
		die("project: bad value '%d' for --slots (fewer than the %d threads and readers: each owns a slot)",
		    pc.slots, q->threads + readers);
	pus = calloc(q->threads + readers, sizeof(int));
	if (!pus)
		die("project: out of memory");
	/*
	 * More threads than PUs wrap round (thread i on the PU of thread
	 * i mod the placement's PUs): the model's scheduler time-shares them.
	 */
	if (topo_place(q->topo, q->placement, q->threads + readers, pus, NULL, err, sizeof(err)))
		die("project: %s", err);
	pc.nr_nodes = s.nr_nodes;
	pc.parent = s.parent;
	pc.nr_leaves = s.nr_leaves;
	pc.leaves = s.leaves;
	pc.depth = s.depth;
	pc.pus = pus;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (proj_run(&pc, res, err, sizeof(err)))
		die("%s", err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (secs)
		*secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	free(pus);
	bench_shape_free(&s);
}

struct bench_proj_lock bench_proj_top_lock(const struct proj_result *r)
{
	if (r->nr_locks > 0) {
		const struct proj_lock_stat *l = &r->locks[0];

		return (struct bench_proj_lock){ l->role, l->acq, l->contended, l->wait_ns, l->hold_ns };
	}
	return (struct bench_proj_lock){ "", r->lock_acq, r->lock_contended, r->lock_wait_ns, 0 };
}

double bench_proj_per_s(const struct proj_result *r, double x)
{
	return r->elapsed_ns > 0 ? x / (r->elapsed_ns / 1e9) : 0.0;
}

static int bench_proj_int_cmp(const void *a, const void *b)
{
	const int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int bench_proj_pus_used(int *pus, int n)
{
	int d = n > 0;

	qsort(pus, (size_t)n, sizeof(*pus), bench_proj_int_cmp);
	for (int i = 1; i < n; i++)
		d += pus[i] != pus[i - 1];
	return d;
}

/*
 * The line in the order of bench_proj_fields (schema.h), and only its rows:
 * v holds every figure (nested as the paths say); a row v lacks is a bug here.
 */
static json_t *bench_proj_line_from_table(json_t *v)
{
	json_t *line = json_object();

	for (int f = 0; f < bench_proj_nr_fields; f++) {
		const char *path = bench_proj_fields[f].path, *dot = strchr(path, '.');
		json_t *x;

		if (!dot) {
			x = json_object_get(v, path);
			if (!x)
				die("project: no '%s' for the JSON line (bench/schema.h)", path);
			json_object_set_new(line, path, json_is_object(x) ? json_object() : json_incref(x));
		} else {
			char parent[64];

			snprintf(parent, sizeof(parent), "%.*s", (int)(dot - path), path);
			x = json_object_get(json_object_get(v, parent), dot + 1);
			if (!x || !json_object_get(line, parent))
				die("project: no '%s' for the JSON line (bench/schema.h)", path);
			json_object_set(json_object_get(line, parent), dot + 1, x);
		}
	}
	json_decref(v);
	return line;
}

/* The settings of issue 27.3 and 27.7 into line: 0, or -1 out of memory. */
static int bench_proj_json_setup(json_t *line, const struct bench_proj_line *l)
{
	return json_object_set_new(line, "slots", json_integer(l->slots)) ||
	       json_object_set_new(line, "nr_stats", json_integer(l->nr_stats)) ||
	       json_object_set_new(line, "seed", json_integer(l->seed)) ||
	       json_object_set_new(line, "jitter", json_integer(l->jitter)) ||
	       json_object_set_new(line, "slice_ms", json_real(l->slice_ms)) ||
	       json_object_set_new(line, "preempt", json_string(l->preempt_none ? "none" : "full")) ||
	       json_object_set_new(line, "virtual_threads_per_pu",
				   json_real((double)(l->threads + l->readers) / l->nr_pus_used)) ? -1 : 0;
}

/* The lock figures of issue 27.6 into line (lock_role, lock_hold_s_per_s, locks): 0, or -1 out of memory. */
static int bench_proj_json_locks(json_t *line, const struct proj_result *r)
{
	const struct bench_proj_lock l = bench_proj_top_lock(r);
	json_t *a = json_array();

	if (!a)
		return -1;
	for (int i = 0; i < r->nr_locks && i < PROJ_MAX_LOCK_STATS; i++) {
		const struct proj_lock_stat *k = &r->locks[i];

		if (json_array_append_new(a, json_pack("{s:s,s:I,s:I,s:f,s:f,s:f,s:f}", "role", k->role,
						       "acquisitions", (json_int_t)k->acq, "contended",
						       (json_int_t)k->contended, "acquisitions_per_s",
						       bench_proj_per_s(r, (double)k->acq), "contended_per_s",
						       bench_proj_per_s(r, (double)k->contended), "wait_s_per_s",
						       bench_proj_per_s(r, k->wait_ns / 1e9), "hold_s_per_s",
						       bench_proj_per_s(r, k->hold_ns / 1e9)))) {
			json_decref(a);
			return -1;
		}
	}
	return json_object_set_new(line, "locks", a) || json_object_set_new(line, "lock_role", json_string(l.role)) ||
	       json_object_set_new(line, "lock_hold_s_per_s", json_real(bench_proj_per_s(r, l.hold_ns / 1e9))) ||
	       json_object_set_new(line, "model_switches", json_integer(r->switches)) ||
	       json_object_set_new(line, "starved", json_integer(r->starved)) ||
	       json_object_set_new(line, "starved_why", json_string(r->starved_why)) ? -1 : 0;
}

void bench_proj_print_json(FILE *f, const struct bench_proj_line *l, const struct proj_result *r, double secs,
			   json_t *extra)
{
	json_t *x = json_object(), *rx = json_object();
	const double ops = r->ops ? (double)r->ops : 1, n = r->reads ? (double)r->reads : 1;
	const struct bench_proj_lock lk = bench_proj_top_lock(r);
	const char *key;
	json_t *line, *v;

	for (int k = 0; k < PROJ_NR_CLASSES; k++) {
		json_object_set_new(x, proj_class_names[k], json_real(r->xfer[k] / ops));
		json_object_set_new(rx, proj_class_names[k], json_real(r->rxfer[k] / n));
	}
	line = json_pack("{s:s,s:i,s:s,s:s,s:s,s:i,s:i,s:s,s:s,s:s,s:s,s:I,s:I,s:o,s:{s:f,s:f},s:o,s:{s:f,s:f},"
			 "s:f,s:f,s:f,s:f,s:f,s:I,s:f,s:f,s:f}",
			 "kind", "projected", "schema", BENCH_SCHEMA_VERSION, "algo", l->algo, "workload", l->workload,
			 "shape", l->shape, "threads", l->threads, "readers", l->readers, "placement", l->placement,
			 "topology", topo_spec(l->topo), "calibration", l->cal->source, "calibration_name", l->cal->name,
			 "ops", (json_int_t)r->ops, "reads", (json_int_t)r->reads,
			 "transfers_per_op", x, "ns_per_op", "overlap", r->ns_overlap / ops, "serial",
			 r->ns_serial / ops, "read_transfers", rx, "ns_per_read", "overlap", r->rns_overlap / n,
			 "serial", r->rns_serial / n, "read_ns_p50", r->rns_p50, "read_ns_p99", r->rns_p99,
			 "read_ns_max", r->rns_max, "virtual_s", r->elapsed_ns / 1e9, "lock_contended_per_s",
			 bench_proj_per_s(r, (double)lk.contended), "lock_acquisitions", (json_int_t)lk.acq,
			 "lock_wait_s_per_s", bench_proj_per_s(r, lk.wait_ns / 1e9), "model_seconds", secs,
			 "model_accesses", r->accesses);
	if (!line || bench_proj_json_setup(line, l) || bench_proj_json_locks(line, r))
		die("project: out of memory");
	line = bench_proj_line_from_table(line);
	/* the caller's own members after the table's (scenario --project: which cell of its table) */
	json_object_foreach(extra, key, v)
		if (json_object_set(line, key, v))
			die("project: out of memory");
	json_decref(extra);
	json_dumpf(line, f, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	fflush(f);
	json_decref(line);
}
