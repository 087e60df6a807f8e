/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "env.h"
#include "output.h"
#include "reps.h"

static const char *const bench_workload_names[] = { "update", "charge", "readers" };

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
		       "lat_samples,charge_fail,limit_max_over,task_clock_ns,verify,placement,readers,"
		       "reads_per_sec,read_p50_ns,read_p99_ns,read_error_max,read_error_at_rest,"
		       "read_error_bound,work_ns,reps_done,ops_per_sec_lo,ops_per_sec_hi,ops_per_sec_level,"
		       "ops_per_sec_cv\n");
	} else if (o->format == BENCH_FMT_TABLE) {
		if (cfg->env)
			bench_env_print(stdout, cfg->env);
		printf("# %s on %s (%d nodes, depth %d), %d updater%s + %d reader%s on %d CPU%s%s;"
		       " %d ms measured after %d ms warm-up\n",
		       bench_workload_names[cfg->workload], cfg->shape.spec, cfg->shape.nr_nodes,
		       cfg->shape.depth, cfg->threads, cfg->threads == 1 ? "" : "s", cfg->readers,
		       cfg->readers == 1 ? "" : "s", nr_cpus, nr_cpus == 1 ? "" : "s",
		       cfg->threads + cfg->readers > nr_cpus ?
		       " (more threads than CPUs: they preempt each other)" : "",
		       cfg->duration_ms, cfg->warmup_ms);
		if (cfg->workload == BENCH_UPDATE)
			printf("# throughput with no timer in the loop; latency timed apart after it with %s"
			       " (%.3f ticks/ns%s), in batches of k ops where 2 ops span under %u timer steps"
			       " (k per row); overhead subtracted: %.1f ns fenced, %.1f ns unfenced (batches);"
			       " resolution %.2f ns\n",
			       BENCH_TSC_IS_CYCLES ? "rdtsc" : "clock_gettime", cfg->tsc.ghz,
			       cfg->tsc.invariant ? ", invariant TSC" : ", TSC NOT invariant", BENCH_LAT_MIN_STEPS,
			       (double)cfg->tsc.overhead / cfg->tsc.ghz, (double)cfg->tsc.overhead_raw / cfg->tsc.ghz,
			       (double)cfg->tsc.resolution / cfg->tsc.ghz);
		else
			printf("# latency: 1 %s in %u timed with %s (%.3f ticks/ns%s), %.1f ns timer overhead"
			       " subtracted, resolution %.1f ns\n",
			       cfg->workload == BENCH_CHARGE ? "charge" : "update", cfg->sample_every,
			       BENCH_TSC_IS_CYCLES ? "rdtsc" : "clock_gettime", cfg->tsc.ghz,
			       cfg->tsc.invariant ? ", invariant TSC" : ", TSC NOT invariant",
			       (double)cfg->tsc.overhead / cfg->tsc.ghz,
			       (double)cfg->tsc.resolution / cfg->tsc.ghz);
		printf("# placement %s on this machine: pairs %ld smt, %ld ccx, %ld numa, %ld package, %ld remote"
		       "%s%s; shared memory %s\n", cfg->placement, cfg->pairs[TOPO_CLASS_SMT],
		       cfg->pairs[TOPO_CLASS_CCX], cfg->pairs[TOPO_CLASS_NUMA], cfg->pairs[TOPO_CLASS_PACKAGE],
		       cfg->pairs[TOPO_CLASS_REMOTE], cfg->pairs[TOPO_CLASS_SAME] ? ", some on the same PU" : "",
		       cfg->wrapped ? " (wrapped: more threads than PUs)" : "",
		       cfg->shared_mem ? cfg->shared_mem : "local");
		if (cfg->options)
			printf("# options %s\n", cfg->options);
		if (cfg->flush_period_ms)
			printf("# periodic flush every %d ms where the algorithm has a flusher\n",
			       cfg->flush_period_ms);
		if (cfg->work_ns)
			printf("# %d ns of private work after each operation (--work-ns), counted in ns/op,"
			       " not in the latencies\n", cfg->work_ns);
		printf("# ops/s = sum of each updater's ops over its own window; ns/op = updaters x 1 s / ops/s;"
		       " cpu ns/op = task-clock / ops%s\n",
		       cfg->workload == BENCH_CHARGE ? "; an op is one charge attempt (its uncharge included)" :
		       cfg->workload == BENCH_READERS ? " (n/a with readers); read errors are distances outside"
		       " every value the node held during the read" : "");
		printf("%-14s %12s %9s %9s %8s %8s %8s %8s %10s %s%s\n", "algo", "ops/s", "ns/op",
		       "cpu ns/op", "mean", "p50", "p90", "p99", "max", "verify",
		       cfg->workload == BENCH_CHARGE ? "    refused" : "");
	}
	fflush(stdout);
}

/* batch: ops per sample (1: each timed alone); resolution_ns: per op, a figure below it is "< resolution" */
static json_t *bench_lat_json(const struct bench_lat *l)
{
	return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I,s:f,s:f,s:i,s:f}", "mean", l->mean, "p50", l->p50,
			 "p90", l->p90, "p95", l->p95, "p99", l->p99, "p999", l->p999, "max", l->max,
			 "samples", (json_int_t)l->samples, "over_1ms", l->over_1ms, "over_1s", l->over_1s,
			 "batch", (int)(l->batch ? l->batch : 1), "resolution_ns", l->resolution_ns);
}

/* A latency cell: below the per-op resolution it says so ("<0.06"), never "0.0". */
static const char *bench_lat_cell(char *buf, size_t len, double v, double res)
{
	if (res > 0 && v < res)
		snprintf(buf, len, "<%.2g", res);
	else
		snprintf(buf, len, v < 10 ? "%.2f" : "%.1f", v);
	return buf;
}

/* Flush and lock figures over the window, with rates per second; null where there are none. */
static json_t *bench_flush_json(const struct bench_result *r)
{
	const struct ctr_flush_stats *f = &r->flush;
	double s = r->seconds > 0 ? r->seconds : 1;
	const struct ctr_hist *h = &f->flush_ns;

	json_t *j;

	if (!r->has_flush)
		return json_null();
	j = json_pack("{s:I,s:f,s:{s:f,s:f,s:f,s:I},s:I,s:f,s:I,s:f,s:I,s:f,s:I}",
			 "flushes", (json_int_t)f->flushes, "flushes_per_sec", (double)f->flushes / s,
			 "flush_ns", "mean", h->count ? (double)h->sum / (double)h->count : 0.0,
			 "p50", (double)ctr_hist_quantile(h, 0.5), "p99", (double)ctr_hist_quantile(h, 0.99),
			 "max", (json_int_t)h->max,
			 "lock_contended", (json_int_t)f->lock_contended,
			 "lock_contended_per_sec", (double)f->lock_contended / s,
			 "lock_wait_ns", (json_int_t)f->lock_wait_ns,
			 "lock_wait_s_per_s", (double)f->lock_wait_ns / 1e9 / s,
			 "lock_hold_ns", (json_int_t)f->lock_hold_ns,
			 "lock_hold_s_per_s", (double)f->lock_hold_ns / 1e9 / s,
			 "lock_breaks", (json_int_t)f->lock_breaks);
	/* How reads that needed a flush got it (options=read=...); per read only where reads are counted. */
	json_object_set_new(j, "reads_flush", json_integer((json_int_t)f->reads_flush));
	json_object_set_new(j, "reader_flushes", json_integer((json_int_t)f->reader_flushes));
	json_object_set_new(j, "reads_shared", json_integer((json_int_t)f->reads_shared));
	json_object_set_new(j, "reader_waits", json_integer((json_int_t)f->reader_waits));
	json_object_set_new(j, "reader_wait_ns", json_integer((json_int_t)f->reader_wait_ns));
	json_object_set_new(j, "reader_wait_s_per_s", json_real((double)f->reader_wait_ns / 1e9 / s));
	json_object_set_new(j, "sem_fallbacks", json_integer((json_int_t)f->sem_fallbacks));
	json_object_set_new(j, "flushes_per_read",
			    r->reads ? json_real((double)f->flushes / (double)r->reads) : json_null());
	json_object_set_new(j, "reader_flushes_per_read",
			    r->reads ? json_real((double)f->reader_flushes / (double)r->reads) : json_null());
	/* one window: of the reads that needed a flush, the share that flushed themselves */
	json_object_set_new(j, "reader_flushes_per_flush_read",
			    f->reads_flush ? json_real((double)f->reader_flushes / (double)f->reads_flush)
					   : json_null());
	json_object_set_new(j, "lock_wait_ns_per_read",
			    r->reads ? json_real((double)f->lock_wait_ns / (double)r->reads) : json_null());
	return j;
}

static json_t *bench_int_array(const int *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

/* Repetitions: each metric's median, interval, level and CV; every rep's headline figures. */
static void bench_json_reps(json_t *j, const struct bench_summary *s, const struct bench_result *reps)
{
	json_t *stats = json_object(), *each = json_array();

	for (int m = 0; m < BM_NR; m++) {
		const struct bench_stat *st = &s->stat[m];

		json_object_set_new(stats, bench_metric_names[m],
				    json_pack("{s:f,s:f,s:f,s:f,s:f,s:b}", "median", st->median, "lo", st->lo,
					      "hi", st->hi, "level", st->level, "cv", st->cv,
					      "noisy", st->cv > BENCH_NOISY_CV));
	}
	for (int i = 0; i < s->k; i++)
		json_array_append_new(each, json_pack("{s:f,s:f,s:{s:f,s:f},s:s}",
				      "ops_per_sec", reps[i].ops_per_sec, "ns_per_op", reps[i].ns_per_op,
				      "update_ns", "p50", reps[i].lat.p50, "p99", reps[i].lat.p99,
				      "verify", reps[i].verify > 0 ? "ok" : reps[i].verify ? "n/a" : "mismatch"));
	json_object_set_new(j, "details_from_rep", json_integer(s->rep_index));
	json_object_set_new(j, "stats", stats);
	json_object_set_new(j, "reps", each);
}

/* write(2) until done: 0 or -1 with errno. */
static int bench_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * One JSON object, one line.  Into a results file (o->fp) it goes in one
 * write and is fsynced: a run killed at any moment leaves every finished
 * line whole and on disk, and never half a line.
 */
static void bench_output_line(struct bench_output *o, json_t *j)
{
	char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	FILE *fp = o->fp ? o->fp : stdout;

	if (!text)
		return;
	if (o->fp) {
		size_t n = strlen(text);

		text[n] = '\n';	/* json_dumps's NUL becomes the newline: one write */
		fflush(fp);
		/* EINVAL: a file that cannot be synced (a pipe, /dev/null) has nothing to lose */
		if ((bench_write_all(fileno(fp), text, n + 1) || (fsync(fileno(fp)) && errno != EINVAL)) &&
		    !o->write_failed) {
			fprintf(stderr, "ctrbench: writing results: %s\n", strerror(errno));
			o->write_failed = 1;
		}
	} else {
		fputs(text, fp);
		putc('\n', fp);
	}
	free(text);
}

/*
 * Charge attempts of the rep whose refusals (charge_fail) a summary carries:
 * the summary's ops is a median, so a refusal share needs that rep's own.
 */
static uint64_t bench_attempts(const struct bench_result *r, const struct bench_summary *sum,
			       const struct bench_result *reps)
{
	return sum && reps ? reps[sum->rep_index].ops : r->ops;
}

static void bench_output_json(const struct bench_config *cfg, struct bench_output *o,
			      const struct bench_result *r, const struct bench_summary *sum,
			      const struct bench_result *reps)
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

	/* With readers the task-clock covers them too: no per-update CPU figure. */
	if (cfg->readers)
		json_object_set_new(j, "cpu_ns_per_op", json_null());
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
		/* attempts and rejected: every attempt of one rep (details_from_rep); the audited ones:
		 * 1 in 64, of the rep with the most false rejects (bench_summarize) */
		json_object_set_new(j, "admission", json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}",
				    "attempts", (json_int_t)bench_attempts(r, sum, reps),
				    "rejected", (json_int_t)r->charge_fail,
				    "audited", (json_int_t)r->audited,
				    "audited_rejected", (json_int_t)r->audit_rejected,
				    "false_rejects", (json_int_t)r->false_rejects,
				    "overshoot_max", (json_int_t)(r->audited ? r->overshoot_max : 0)));
	} else {
		json_object_set_new(j, "admission", json_null());
	}
	if (cfg->workload == BENCH_READERS) {
		json_object_set_new(j, "readers", json_integer(cfg->readers));
		json_object_set_new(j, "reads", json_integer((json_int_t)r->reads));
		json_object_set_new(j, "reads_per_sec", json_real(r->reads_per_sec));
		json_object_set_new(j, "read_ns", bench_lat_json(&r->read_lat));
		json_object_set_new(j, "read_error", json_pack("{s:I,s:f}", "max_abs",
				    (json_int_t)r->read_err_max, "mean_abs", r->read_err_mean));
	} else {
		json_object_set_new(j, "read_ns", json_null());
		json_object_set_new(j, "read_error", json_null());
	}
	json_object_set_new(j, "flush", bench_flush_json(r));
	json_object_set_new(j, "events", events);
	json_object_set_new(j, "events_source",
			    json_string(pmu_source_name(r->clock_source)));
	{
		/* --events: totals and per op where counted, the reason where not */
		json_t *per_op = json_object(), *why = json_object();

		if (r->clock_source != PMU_SRC_PERF)
			json_object_set_new(why, "task_clock_perf", json_string(strerror(r->clock_errno)));
		for (int e = 0; e < cfg->nr_events; e++) {
			const char *name = cfg->events[e].name;

			if (r->ev_why[e]) {
				json_object_set_new(events, name, json_null());
				json_object_set_new(per_op, name, json_null());
				json_object_set_new(why, name, json_string(r->ev_why[e]));
				continue;
			}
			json_object_set_new(events, name, json_integer((json_int_t)r->ev_total[e]));
			/* with readers the totals include them: no per-update figure */
			json_object_set_new(per_op, name, r->ops && !cfg->readers ?
					    json_real((double)r->ev_total[e] / (double)r->ops) : json_null());
		}
		json_object_set_new(j, "events_per_op", per_op);
		json_object_set_new(j, "events_unavailable", why);
	}
	json_object_set_new(j, "placement", json_string(cfg->placement));
	json_object_set_new(j, "placement_wrapped", json_boolean(cfg->wrapped));
	{
		json_t *pairs = json_object();

		for (int c = 0; c < TOPO_NR_CLASSES; c++)
			json_object_set_new(pairs, topo_class_name(c), json_integer(cfg->pairs[c]));
		json_object_set_new(j, "pairs", pairs);
	}
	json_object_set_new(j, "bind_failures", json_integer(r->bind_failures));
	json_object_set_new(j, "work_ns", json_integer(cfg->work_ns));
	json_object_set_new(j, "options", cfg->options ? json_string(cfg->options) : json_null());
	json_object_set_new(j, "flush_period_ms", json_integer(cfg->flush_period_ms));
	json_object_set_new(j, "events_requested", cfg->events_spec ? json_string(cfg->events_spec) : json_null());
	json_object_set_new(j, "charge_burst", json_integer(cfg->charge_burst));
	/* ctr_params.batch: the algorithm's default (0) but in the charge workload */
	json_object_set_new(j, "batch", json_integer(cfg->workload == BENCH_CHARGE ? BENCH_CHARGE_BATCH : 0));
	if (cfg->readers)
		json_object_set_new(j, "read_node", cfg->read_node >= 0 ? json_integer(cfg->read_node) :
				    json_string(cfg->read_node == BENCH_READ_LEAF ? "leaf" :
						cfg->read_node == BENCH_READ_OWN ? "own" : "random"));
	json_object_set_new(j, "read_interval_us", json_integer(cfg->read_interval_us));
	json_object_set_new(j, "fairness", json_pack("{s:I,s:I,s:f}", "ops_min", (json_int_t)r->ops_min,
			    "ops_max", (json_int_t)r->ops_max, "ops_cv", r->ops_cv));
	json_object_set_new(j, "shared_mem", json_string(cfg->shared_mem ? cfg->shared_mem : "local"));
	json_object_set_new(j, "timer", json_pack("{s:s,s:f,s:b,s:f,s:f,s:i}",
			    "source", BENCH_TSC_IS_CYCLES ? "rdtsc" : "clock_gettime",
			    "ticks_per_ns", cfg->tsc.ghz, "invariant", cfg->tsc.invariant,
			    "overhead_ns", (double)cfg->tsc.overhead / cfg->tsc.ghz,
			    "resolution_ns", (double)cfg->tsc.resolution / cfg->tsc.ghz,
			    "sample_every", (int)cfg->sample_every));
	/* updaters first, then readers */
	json_object_set_new(j, "cpu_requested", bench_int_array(r->cpu_requested, cfg->threads + cfg->readers));
	json_object_set_new(j, "cpu_observed", bench_int_array(r->cpu_observed, cfg->threads + cfg->readers));
	/* an interrupted run says how many of the asked-for reps it did */
	json_object_set_new(j, "reps_requested", json_integer(cfg->reps ? cfg->reps : 1));
	json_object_set_new(j, "reps_done", json_integer(sum ? sum->k : 1));
	if (sum && sum->k > 1)
		bench_json_reps(j, sum, reps);
	if (cfg->note)
		json_object_set_new(j, "note", json_string(cfg->note));
	if (cfg->env)
		json_object_set(j, "env", cfg->env);
	bench_output_line(o, j);
	json_decref(j);
}

/* The table's indented lines under a row: readers, admission audit, flushes. */
static void bench_table_details(const struct bench_config *cfg, const struct bench_result *r)
{
	double s = r->seconds > 0 ? r->seconds : 1;

	if (cfg->workload == BENCH_READERS) {
		const struct bench_lat *l = &r->read_lat;

		printf("  %-12s %12.4g reads/s; read ns mean %.1f p50 %.1f p99 %.1f p99.9 %.1f max %.1f;"
		       " error max %lld mean %.2f\n", "reads", r->reads_per_sec, l->mean, l->p50, l->p99,
		       l->p999, l->max, (long long)r->read_err_max, r->read_err_mean);
	}
	/* The stated bound beside what was observed, for every algorithm that is not exact. */
	if ((r->error_bound != 0 || r->read_error != 0) && r->ba->verify != BENCH_VERIFY_NONE) {
		char bound[32];

		if (r->error_bound < 0)
			snprintf(bound, sizeof(bound), "by time only");
		else
			snprintf(bound, sizeof(bound), "%lld", (long long)r->error_bound);
		printf("  %-12s ctr_read off by %lld at rest", "read error", (long long)r->read_error);
		if (cfg->workload == BENCH_READERS)
			printf(", %lld at most under updates", (long long)r->read_err_max);
		printf("; stated bound %s\n", bound);
	}
	if (cfg->workload == BENCH_CHARGE && r->audited && r->ba->verify != BENCH_VERIFY_NONE)
		printf("  %-12s %llu of %llu audited refusals had room (false rejects); worst overshoot %lld\n",
		       "admission", (unsigned long long)r->false_rejects,
		       (unsigned long long)r->audit_rejected, (long long)r->overshoot_max);
	if (cfg->nr_events) {
		printf("  %-12s", "events");
		for (int e = 0; e < cfg->nr_events; e++) {
			/* libpfm4 names are long: the table shows what follows the PMU name */
			const char *name = strstr(cfg->events[e].name, "::") ?
					   strrchr(cfg->events[e].name, ':') + 1 : cfg->events[e].name;

			if (r->ev_why[e])
				printf(" %s n/a (%s);", name, r->ev_tag[e]);
			else if (cfg->readers)
				printf(" %s %llu in all;", name, (unsigned long long)r->ev_total[e]);
			else
				printf(" %s %.3g/op;", name,
				       r->ops ? (double)r->ev_total[e] / (double)r->ops : 0.0);
		}
		putchar('\n');
	}
	if (r->has_flush) {
		const struct ctr_flush_stats *f = &r->flush;

		printf("  %-12s %llu (%.0f/s), ns mean %.0f p99 %llu; lock contended %llu (%.1f/s),"
		       " wait %.3f s/s, hold %.3f s/s, breaks %llu\n", "flushes",
		       (unsigned long long)f->flushes, (double)f->flushes / s,
		       f->flush_ns.count ? (double)f->flush_ns.sum / (double)f->flush_ns.count : 0.0,
		       (unsigned long long)ctr_hist_quantile(&f->flush_ns, 0.99),
		       (unsigned long long)f->lock_contended, (double)f->lock_contended / s,
		       (double)f->lock_wait_ns / 1e9 / s, (double)f->lock_hold_ns / 1e9 / s,
		       (unsigned long long)f->lock_breaks);
		/*
		 * How the reads that needed a flush got it (options=read=...): by
		 * their own flush, or served by another's; and what they waited at
		 * the reader-side gate (mutex, semaphore, batch sleep), apart from
		 * the flush lock above.  Per read where reads are counted (readers):
		 * the harness's reads, counted in each reader's own window, against
		 * the algorithm's counts over the main one; the share of the reads
		 * that needed a flush which flushed comes from one window, exact.
		 */
		printf("  %-12s", "read flushes");
		if (r->reads)
			printf(" %.3g flushes/read, lock wait %.0f ns/read;", (double)f->flushes / (double)r->reads,
			       (double)f->lock_wait_ns / (double)r->reads);
		printf(" of %llu reads that needed one %llu flushed (%.3g), %llu were served by another's;"
		       " gate waits %llu, %.3f s/s, mean %.0f ns", (unsigned long long)f->reads_flush,
		       (unsigned long long)f->reader_flushes,
		       f->reads_flush ? (double)f->reader_flushes / (double)f->reads_flush : 0.0,
		       (unsigned long long)f->reads_shared, (unsigned long long)f->reader_waits,
		       (double)f->reader_wait_ns / 1e9 / s,
		       f->reader_waits ? (double)f->reader_wait_ns / (double)f->reader_waits : 0.0);
		if (f->sem_fallbacks)
			printf("; sem timeouts %llu", (unsigned long long)f->sem_fallbacks);
		putchar('\n');
	}
}

static void bench_output_one(struct bench_output *o, const struct bench_config *cfg,
			     const struct bench_result *r, const struct bench_summary *sum,
			     const struct bench_result *reps);

void bench_output_summary(struct bench_output *o, const struct bench_config *cfg,
			  const struct bench_result *reps, int k)
{
	struct bench_summary *s = calloc(1, sizeof(*s));

	if (!s)
		return;
	bench_summarize(reps, k, s);
	bench_output_one(o, cfg, &s->med, s, reps);
	free(s);
}

void bench_output_result(struct bench_output *o, const struct bench_config *cfg,
			 const struct bench_result *r)
{
	bench_output_one(o, cfg, r, NULL, NULL);
}

static void bench_output_one(struct bench_output *o, const struct bench_config *cfg,
			     const struct bench_result *r, const struct bench_summary *sum,
			     const struct bench_result *reps)
{
	const struct bench_lat *l = &r->lat;

	switch (o->format) {
	case BENCH_FMT_JSON:
		bench_output_json(cfg, o, r, sum, reps);
		break;
	case BENCH_FMT_CSV:
		/* an empty field where a figure does not apply (n/a in the table, null in JSON) */
		printf("%s,%d,%s,%s,%d,%d,%d,%d,%d,%llu,%.0f,%.3f,", r->ba->name, r->ba->baseline,
		       bench_workload_names[cfg->workload], cfg->shape.spec, cfg->shape.nr_nodes,
		       cfg->shape.depth, cfg->threads, o->nr_cpus, cfg->duration_ms,
		       (unsigned long long)r->ops, r->ops_per_sec, r->ns_per_op);
		if (!cfg->readers)
			printf("%.3f", r->cpu_ns_per_op);
		printf(",%.2f,%.2f,%.2f,%.2f,%.2f,%llu,%llu,", l->mean, l->p50, l->p90, l->p99, l->max,
		       (unsigned long long)l->samples, (unsigned long long)r->charge_fail);
		if (cfg->workload == BENCH_CHARGE)
			printf("%lld", (long long)r->limit_max_over);
		printf(",%llu,%s,%s,%d,", (unsigned long long)r->task_clock_ns, bench_verify_name(r->verify),
		       cfg->placement, cfg->readers);
		if (cfg->readers)
			printf("%.0f,%.2f,%.2f,%lld", r->reads_per_sec, r->read_lat.p50, r->read_lat.p99,
			       (long long)r->read_err_max);
		else
			printf(",,,");
		printf(",%lld,%lld,%d,%d,", (long long)r->read_error, (long long)r->error_bound,
		       cfg->work_ns, sum ? sum->k : 1);
		if (sum && sum->k > 1)
			printf("%.0f,%.0f,%.4f,%.4f\n", sum->stat[BM_OPS_PER_SEC].lo,
			       sum->stat[BM_OPS_PER_SEC].hi, sum->stat[BM_OPS_PER_SEC].level,
			       sum->stat[BM_OPS_PER_SEC].cv);
		else
			printf(",,,\n");
		break;
	case BENCH_FMT_TABLE:
		printf("%-14s %12.4g %9.2f ", r->ba->name, r->ops_per_sec, r->ns_per_op);
		if (cfg->readers)
			printf("%9s", "n/a");
		else
			printf("%9.2f", r->cpu_ns_per_op);
		{
			char c[5][32];

			printf(" %8s %8s %8s %8s %10s %s", bench_lat_cell(c[0], 32, l->mean, l->resolution_ns),
			       bench_lat_cell(c[1], 32, l->p50, l->resolution_ns),
			       bench_lat_cell(c[2], 32, l->p90, l->resolution_ns),
			       bench_lat_cell(c[3], 32, l->p99, l->resolution_ns),
			       bench_lat_cell(c[4], 32, l->max, l->resolution_ns), bench_verify_name(r->verify));
		}
		if (cfg->workload == BENCH_CHARGE) {
			uint64_t tries = bench_attempts(r, sum, reps);

			printf("%*s%5.1f%%", r->verify == 1 ? 5 : 0, "",
			       tries ? 100.0 * (double)r->charge_fail / (double)tries : 0.0);
		}
		if (r->verify == 0)
			printf(" (node %d: %lld, want %lld)", r->bad_node, (long long)r->got,
			       (long long)r->want);
		if (sum && sum->k > 1 && sum->stat[BM_OPS_PER_SEC].cv > BENCH_NOISY_CV)
			printf(" NOISY");
		putchar('\n');
		if (l->batch > 1)
			printf("  %-12s batched: %u ops per sample, per-op resolution %.2g ns\n", "latency",
			       l->batch, l->resolution_ns);
		if (sum && sum->k > 1) {
			const struct bench_stat *ops = &sum->stat[BM_OPS_PER_SEC], *p50 = &sum->stat[BM_P50];

			printf("  %-12s %d: ops/s median %.4g [%.4g, %.4g] (%.1f%%), cv %.1f%%;"
			       " p50 %.2f [%.2f, %.2f] ns, cv %.1f%%\n", "reps", sum->k, ops->median, ops->lo,
			       ops->hi, 100 * ops->level, 100 * ops->cv, p50->median, p50->lo, p50->hi,
			       100 * p50->cv);
		}
		bench_table_details(cfg, r);
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
