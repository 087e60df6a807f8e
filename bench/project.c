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

/* Run one algorithm on a loaded topology; dies on bad input. */
void bench_project_one(const char *algo, enum bench_workload w, const char *shape, int threads, int readers,
		       const struct topo *topo, const char *placement, const struct proj_calib *cal,
		       const char *options, int flush_period_ms, int64_t work_ns, int64_t read_interval_ns,
		       int read_node, long ops, long reads, long warmup, struct proj_result *res, double *secs)
{
	struct bench_shape s;
	struct proj_config pc = { 0 };
	const char *why;
	char err[512];
	int *pus;
	struct timespec t0, t1;

	if (bench_shape_parse(shape, &s, &why))
		die("project: bad --shape '%s' (%s)", shape, why);
	pus = calloc(threads + readers, sizeof(int));
	if (!pus)
		die("project: out of memory");
	if (topo_place(topo, placement, threads + readers, pus, NULL, err, sizeof(err)))
		die("project: %s", err);
	pc.algo = algo;
	pc.workload = w;
	pc.nr_nodes = s.nr_nodes;
	pc.parent = s.parent;
	pc.nr_leaves = s.nr_leaves;
	pc.leaves = s.leaves;
	pc.depth = s.depth;
	pc.threads = threads;
	pc.readers = w == BENCH_READERS ? readers : 0;
	pc.topo = topo;
	pc.pus = pus;
	pc.options = options;
	pc.flush_period_ms = flush_period_ms;
	pc.work_ns = work_ns;
	pc.read_interval_ns = read_interval_ns;
	pc.read_node = read_node;
	pc.ops = ops;
	pc.reads = reads;
	pc.warmup_ops = warmup;
	pc.calib = cal;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (proj_run(&pc, res, err, sizeof(err)))
		die("%s", err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (secs)
		*secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	free(pus);
	bench_shape_free(&s);
}
