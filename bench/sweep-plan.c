/* SPDX-License-Identifier: MIT */
/*
 * sweep-plan.c - `ctrbench sweep --dry-run`: the plan of a checked sweep
 * on a topology (this machine, a described one or a named layout) and its
 * time estimate, measuring nothing and writing no file.
 *
 * The plan is a list of points (struct bench_sweep_point), one per
 * configuration group the executor would run, each with a stable id (its
 * rank in the order the sweep runs them) and where its threads would sit;
 * bench_sweep_plan_point() makes one, the table printer below formats it.
 * A second printer (--format json) writes each configuration of them as a
 * JSON line, the input of `sweep --configs FILE --shard I/N`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../topology/topo.h"
#include "cli.h"
#include "env.h"
#include "progress.h"
#include "sweep.h"

double bench_sweep_secs_each(const struct bench_sweep *s)
{
	/*
	 * The planning figure the progress line starts from (run and sweep
	 * alike): the warm-up, then the measured window and a quarter more for
	 * its setup and verification.  A planned figure, not a measured one.
	 */
	return (s->warmup_ms + 1.25 * s->duration_ms) / 1000.0;
}

int bench_sweep_nr_points(const struct bench_sweep *s)
{
	return s->nr_workloads * s->nr_shapes * s->nr_placements * s->nr_threads;
}

void bench_sweep_plan_point(const struct bench_sweep *s, const struct topo *t, int i,
			    struct bench_sweep_point *p)
{
	const int per_shape = s->nr_placements * s->nr_threads;
	char err[256];

	memset(p, 0, sizeof(*p));
	p->id = i + 1;
	/* the order bench_sweep_exec runs them in: workload, shape, placement, threads */
	p->workload = s->workload[i / (s->nr_shapes * per_shape)];
	p->shape = s->shape[i / per_shape % s->nr_shapes];
	p->placement = s->placement[i / s->nr_threads % s->nr_placements];
	p->threads = s->threads[i % s->nr_threads];
	p->readers = strcmp(p->workload, "readers") ? 0 : s->readers < 0 ? 1 : s->readers;
	p->nr_cpus = p->threads + p->readers;
	p->cpus = bench_xcalloc((size_t)p->nr_cpus, sizeof(int));
	/* the placements were checked when parsed: a failure here is a thread count past a list */
	if (topo_place(t, p->placement, p->nr_cpus, p->cpus, &p->wrapped, err, sizeof(err)))
		die("%s", err);
	p->nr_algos = s->nr_algos;
	p->measurements = (long)s->nr_algos * s->reps;
}

void bench_sweep_point_free(struct bench_sweep_point *p)
{
	free(p->cpus);
	p->cpus = NULL;
}

static int plan_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* The threads per NUMA node (OS index): "0:96 1:96"; "-" without NUMA information. */
static void plan_numa(const struct topo *t, const struct bench_sweep_point *p, char *buf, size_t len)
{
	const int nodes = topo_nr_pus(t) + 1;
	int *per = bench_xcalloc((size_t)nodes, sizeof(int));
	size_t used = 0;

	buf[0] = 0;
	for (int i = 0; i < p->nr_cpus; i++) {
		int n = topo_numa_node_of_pu(t, p->cpus[i]);

		if (n >= 0 && n < nodes)
			per[n]++;
	}
	for (int n = 0; n < nodes && used < len; n++)
		if (per[n]) {
			int w = snprintf(buf + used, len - used, "%s%d:%d", used ? " " : "", n, per[n]);

			if (w < 0 || (size_t)w >= len - used) {
				if (len >= 4)
					strcpy(buf + len - 4, "...");
				break;
			}
			used += w;
		}
	if (!buf[0])
		snprintf(buf, len, "-");
	free(per);
}

void bench_sweep_plan(const struct bench_sweep *s, const struct topo *t, FILE *f)
{
	const int points = bench_sweep_nr_points(s);
	const long configs = (long)points * s->nr_algos;
	const double secs = (double)configs * s->reps * bench_sweep_secs_each(s);
	const struct topo_layout *l = topo_layout_of(t);
	char when[32];

	fprintf(f, "sweep plan (dry run: nothing measured, no file written) on %s%s\n", topo_spec(t),
		topo_is_synthetic(t) ? " (not this machine)" : "");
	if (l)
		fprintf(f, "  %s, %d socket%s, %s\n", l->part, l->sockets, l->sockets == 1 ? "" : "s", l->mode);
	fprintf(f, "CPU numbers: %s\n", topo_numbering(t));
	fprintf(f, "%d algorithm%s x %d workload%s x %d shape%s x %d placement%s x %d thread count%s"
		" = %ld configurations in %d points\n",
		s->nr_algos, s->nr_algos == 1 ? "" : "s", s->nr_workloads, s->nr_workloads == 1 ? "" : "s",
		s->nr_shapes, s->nr_shapes == 1 ? "" : "s", s->nr_placements, s->nr_placements == 1 ? "" : "s",
		s->nr_threads, s->nr_threads == 1 ? "" : "s", configs, points);
	fprintf(f, "%5s %-8s %-12s %-9s %7s %-34s %s\n", "id", "workload", "shape", "placement", "threads",
		"CPUs (updaters, then readers)", "NUMA node:threads");
	for (int i = 0; i < points; i++) {
		struct bench_sweep_point p;
		char cpus[35], numa[64];
		int *sorted;

		bench_sweep_plan_point(s, t, i, &p);
		sorted = bench_xcalloc((size_t)p.nr_cpus, sizeof(int));
		memcpy(sorted, p.cpus, sizeof(int) * p.nr_cpus);
		qsort(sorted, p.nr_cpus, sizeof(int), plan_cmp_int);
		topo_format_list(sorted, p.nr_cpus, cpus, sizeof(cpus));
		plan_numa(t, &p, numa, sizeof(numa));
		fprintf(f, "%5d %-8s %-12s %-9s %7d %-34s %s%s\n", p.id, p.workload, p.shape, p.placement,
			p.threads, cpus, numa, p.wrapped ? " (wrapped: CPUs run several)" : "");
		free(sorted);
		bench_sweep_point_free(&p);
	}
	bench_fmt_secs(when, sizeof(when), secs);
	fprintf(f, "estimate: %ld configurations x %d rep%s x %.2f s = %s of measurement\n", configs, s->reps,
		s->reps == 1 ? "" : "s", bench_sweep_secs_each(s), when);
	fprintf(f, "  (planned, not measured: warm-up + 1.25 x duration a measurement, as the progress\n"
		"  line plans it; process start-up not counted)\n");
}

void bench_sweep_configs(const struct bench_sweep *s, const struct topo *t, FILE *f)
{
	const int points = bench_sweep_nr_points(s);
	json_t *env = bench_env_json(s->note);

	for (int i = 0; i < points; i++)
		for (int a = 0; a < s->nr_algos; a++) {
			json_t *line = json_pack("{s:s,s:i,s:i}", "kind", "config", "id", i * s->nr_algos + a + 1,
						 "point", i + 1);
			json_t *id = bench_sweep_ident(s, t, env, i, a);
			char *text;

			if (!line || json_object_update(line, id))
				die("out of memory");
			text = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER);
			if (!text)
				die("out of memory");
			fprintf(f, "%s\n", text);
			free(text);
			json_decref(id);
			json_decref(line);
		}
	json_decref(env);
	if (fflush(f) || ferror(f))
		die("cannot write the configurations: %s", strerror(errno));
}
