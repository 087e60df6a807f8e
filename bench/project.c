/* SPDX-License-Identifier: MIT */
/*
 * project.c - one projection as the harness's commands ask for it (project,
 * scenario --project): a shape and a placement by name, onto project/'s model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../project/proj.h"
#include "../topology/topo.h"
#include "baselines.h"
#include "cli.h"
#include "project.h"
#include "run.h"

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
