/* SPDX-License-Identifier: MIT */
/* project.h - one projection as the commands ask for it (project.c): ctrbench project and scenario --project. */
#ifndef BENCH_PROJECT_H
#define BENCH_PROJECT_H

#include <stdint.h>

#include "../project/proj.h"

/* Transfers summed over classes. */
double pj_total(const double *x);

/* Project one algorithm on topo (dies on bad input); secs: the model's own run time. */
void bench_project_one(const char *algo, enum bench_workload w, const char *shape, int threads, int readers,
		       const struct topo *topo, const char *placement, const struct proj_calib *cal,
		       const char *options, int flush_period_ms, int64_t work_ns, int64_t read_interval_ns,
		       int read_node, long ops, long reads, long warmup, struct proj_result *res, double *secs);

#endif /* BENCH_PROJECT_H */
