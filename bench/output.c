/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "output.h"

static const char *const bench_workload_names[] = { "update", "charge" };

int bench_output_parse_format(const char *name, enum bench_format *f)
{
	static const char *const names[] = { "table", "csv", "json" };

	for (int i = 0; i < 3; i++) {
		if (!strcmp(name, names[i])) {
			*f = (enum bench_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *bench_verify_name(int v)
{
	return v > 0 ? "ok" : v == 0 ? "mismatch" : "n/a";
}

void bench_output_begin(struct bench_output *o, const struct bench_config *cfg, int nr_cpus)
{
	o->nr_cpus = nr_cpus;
	if (o->format == BENCH_FMT_CSV) {
		printf("algo,baseline,workload,shape,nodes,depth,threads,cpus,duration_ms,ops,ops_per_sec,"
		       "ns_per_op,cpu_ns_per_op,lat_mean_ns,lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_max_ns,"
		       "lat_samples,charge_fail,limit_max_over,task_clock_ns,verify\n");
	} else if (o->format == BENCH_FMT_TABLE) {
		printf("# %s on %s (%d nodes, depth %d), %d thread%s on %d CPU%s%s; %d ms measured after %d ms warm-up\n",
		       bench_workload_names[cfg->workload], cfg->shape.spec, cfg->shape.nr_nodes,
		       cfg->shape.depth, cfg->threads, cfg->threads == 1 ? "" : "s", nr_cpus,
		       nr_cpus == 1 ? "" : "s",
		       cfg->threads > nr_cpus ? " (more threads than CPUs: workers preempt each other)" : "",
		       cfg->duration_ms, cfg->warmup_ms);
		printf("# latency: 1 %s in %u timed with %s (%.3f ticks/ns%s), %.1f ns timer overhead subtracted,"
		       " resolution %.1f ns\n",
		       cfg->workload == BENCH_CHARGE ? "charge" : "update", BENCH_SAMPLE_EVERY,
		       BENCH_TSC_IS_CYCLES ? "rdtsc" : "clock_gettime", cfg->tsc.ghz,
		       cfg->tsc.invariant ? ", invariant TSC" : ", TSC NOT invariant",
		       (double)cfg->tsc.overhead / cfg->tsc.ghz,
		       (double)cfg->tsc.resolution / cfg->tsc.ghz);
		printf("# ns/op = threads x wall time / ops; cpu ns/op = task-clock / ops%s\n",
		       cfg->workload == BENCH_CHARGE ? "; an op is one charge attempt (its uncharge included)" : "");
		printf("%-14s %12s %9s %9s %8s %8s %8s %8s %10s %s%s\n", "algo", "ops/s", "ns/op",
		       "cpu ns/op", "mean", "p50", "p90", "p99", "max", "verify",
		       cfg->workload == BENCH_CHARGE ? "    refused" : "");
	}
	fflush(stdout);
}

static json_t *bench_lat_json(const struct bench_lat *l)
{
	return json_pack("{s:f,s:f,s:f,s:f,s:f,s:I}", "mean", l->mean, "p50", l->p50, "p90", l->p90,
			 "p99", l->p99, "max", l->max, "samples", (json_int_t)l->samples);
}

static json_t *bench_int_array(const int *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static void bench_output_json(const struct bench_config *cfg, const struct bench_output *o,
			      const struct bench_result *r)
{
	json_t *j = json_pack("{s:s,s:b,s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:f,s:I,s:f,s:f,s:f}",
			      "algo", r->ba->name, "baseline", r->ba->baseline,
			      "workload", bench_workload_names[cfg->workload], "shape", cfg->shape.spec,
			      "nodes", cfg->shape.nr_nodes, "depth", cfg->shape.depth,
			      "threads", cfg->threads, "cpus", o->nr_cpus,
			      "duration_ms", cfg->duration_ms, "warmup_ms", cfg->warmup_ms,
			      "elapsed_s", r->seconds, "ops", (json_int_t)r->ops,
			      "ops_per_sec", r->ops_per_sec, "ns_per_op", r->ns_per_op,
			      "cpu_ns_per_op", r->cpu_ns_per_op);
	json_t *events = json_pack("{s:I}", "task_clock_ns", (json_int_t)r->task_clock_ns);

	/* The sampled operation: an update, or in the charge workload a charge attempt. */
	json_object_set_new(j, "update_ns", bench_lat_json(&r->lat));
	json_object_set_new(j, "sampled_op",
			    json_string(cfg->workload == BENCH_CHARGE ? "try_charge" : "add"));
	json_object_set_new(j, "verify", json_string(bench_verify_name(r->verify)));
	if (r->verify == 0)
		json_object_set_new(j, "verify_detail",
				    json_pack("{s:i,s:I,s:I}", "node", r->bad_node,
					      "got", (json_int_t)r->got, "want", (json_int_t)r->want));
	json_object_set_new(j, "read_error_bound", json_integer(r->error_bound));
	json_object_set_new(j, "read_error_at_rest", json_integer(r->read_error));
	if (cfg->workload == BENCH_CHARGE) {
		json_object_set_new(j, "charge_fail", json_integer((json_int_t)r->charge_fail));
		json_object_set_new(j, "limit_max_over", json_integer(r->limit_max_over));
	}
	json_object_set_new(j, "events", events);
	json_object_set_new(j, "events_source",
			    json_string(pmu_source_name(r->clock_source)));
	if (r->clock_source != PMU_SRC_PERF)
		json_object_set_new(j, "events_unavailable",
				    json_pack("{s:s}", "task_clock_perf", strerror(r->clock_errno)));
	json_object_set_new(j, "timer", json_pack("{s:s,s:f,s:b,s:f,s:f,s:i}",
			    "source", BENCH_TSC_IS_CYCLES ? "rdtsc" : "clock_gettime",
			    "ticks_per_ns", cfg->tsc.ghz, "invariant", cfg->tsc.invariant,
			    "overhead_ns", (double)cfg->tsc.overhead / cfg->tsc.ghz,
			    "resolution_ns", (double)cfg->tsc.resolution / cfg->tsc.ghz,
			    "sample_every", BENCH_SAMPLE_EVERY));
	json_object_set_new(j, "cpu_requested", bench_int_array(r->cpu_requested, cfg->threads));
	json_object_set_new(j, "cpu_observed", bench_int_array(r->cpu_observed, cfg->threads));
	json_dumpf(j, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(j);
}

void bench_output_result(struct bench_output *o, const struct bench_config *cfg,
			 const struct bench_result *r)
{
	const struct bench_lat *l = &r->lat;

	switch (o->format) {
	case BENCH_FMT_JSON:
		bench_output_json(cfg, o, r);
		break;
	case BENCH_FMT_CSV:
		printf("%s,%d,%s,%s,%d,%d,%d,%d,%d,%llu,%.0f,%.3f,%.3f,%.2f,%.2f,%.2f,%.2f,%.2f,%llu,%llu,%lld,%llu,%s\n",
		       r->ba->name, r->ba->baseline, bench_workload_names[cfg->workload],
		       cfg->shape.spec, cfg->shape.nr_nodes, cfg->shape.depth, cfg->threads,
		       o->nr_cpus, cfg->duration_ms, (unsigned long long)r->ops, r->ops_per_sec,
		       r->ns_per_op, r->cpu_ns_per_op, l->mean, l->p50, l->p90, l->p99, l->max,
		       (unsigned long long)l->samples, (unsigned long long)r->charge_fail,
		       cfg->workload == BENCH_CHARGE ? (long long)r->limit_max_over : 0LL,
		       (unsigned long long)r->task_clock_ns, bench_verify_name(r->verify));
		break;
	case BENCH_FMT_TABLE:
		printf("%-14s %12.4g %9.2f %9.2f %8.1f %8.1f %8.1f %8.1f %10.1f %s",
		       r->ba->name, r->ops_per_sec, r->ns_per_op, r->cpu_ns_per_op, l->mean, l->p50,
		       l->p90, l->p99, l->max, bench_verify_name(r->verify));
		if (cfg->workload == BENCH_CHARGE)
			printf("%*s%5.1f%%", r->verify == 1 ? 5 : 0, "",
			       r->ops ? 100.0 * (double)r->charge_fail / (double)r->ops : 0.0);
		if (r->verify == 0)
			printf(" (node %d: %lld, want %lld)", r->bad_node, (long long)r->got,
			       (long long)r->want);
		putchar('\n');
		break;
	}
	fflush(stdout);
}

void bench_output_end(struct bench_output *o, const struct bench_config *cfg)
{
	(void)cfg;
	if (o->format == BENCH_FMT_TABLE)
		printf("# latencies in ns; task-clock per worker from %s\n",
		       "perf_event (libperf) where allowed, else the thread CPU clock");
	fflush(stdout);
}
