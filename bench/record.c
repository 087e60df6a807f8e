/* SPDX-License-Identifier: MIT */
/* record.c - a result as a JSON object, from the field table (see record.h, schema.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "env.h"
#include "record.h"
#include "results.h"
#include "schema.h"

const char *bench_verify_name(int v)
{
	return v > 0 ? "ok" : v == 0 ? "mismatch" : "n/a";
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

	if (!v)		/* a rep read back (bench/exec.c): its line's own array is copied in */
		return json_null();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

/*
 * Charge attempts of the rep whose refusals (charge_fail) a summary carries:
 * the summary's ops is a median, so a refusal share needs that rep's own.
 */
uint64_t bench_attempts(const struct bench_result *r, const struct bench_summary *sum,
			       const struct bench_result *reps)
{
	return sum && reps ? reps[sum->rep_index].ops : r->ops;
}
/* What one field's FN case needs. */
struct bench_rec_ctx {
	const struct bench_config *cfg;		/* the configuration */
	int nr_cpus;				/* CPUs it could use */
	const struct bench_result *r;		/* the result (a summary's medians) */
	const struct bench_summary *sum;	/* its summary, or NULL for one result */
	const struct bench_result *reps;	/* the reps summarised, or NULL */
};

/* Each BS_MEDIAN field of the result: median, interval, level and CV over the reps. */
static json_t *bench_stats_json(const struct bench_summary *s)
{
	json_t *stats = json_object();

	for (int f = 0; f < BF_NR; f++) {
		const struct bench_stat *st = &s->stat[f];

		if (bench_fields[f].sum != BS_MEDIAN || bench_fields[f].src != BSRC_RESULT)
			continue;
		json_object_set_new(stats, bench_fields[f].path,
				    json_pack("{s:f,s:f,s:f,s:f,s:f,s:b}", "median", st->median, "lo", st->lo,
					      "hi", st->hi, "level", st->level, "cv", st->cv,
					      "noisy", st->cv > BENCH_NOISY_CV));
	}
	return stats;
}

/* Every rep's headline figures. */
static json_t *bench_reps_json(const struct bench_summary *s, const struct bench_result *reps)
{
	json_t *each = json_array();

	for (int i = 0; i < s->k; i++)
		json_array_append_new(each, json_pack("{s:f,s:f,s:o,s:{s:f,s:f},s:s}",
				      "ops_per_sec", reps[i].ops_per_sec, "ns_per_op", reps[i].ns_per_op,
				      /* null with readers, whose CPU time is mixed in (as the line's own) */
				      "cpu_ns_per_op", reps[i].cpu_ns_per_op > 0 || !reps[i].ops ?
				      json_real(reps[i].cpu_ns_per_op) : json_null(),
				      "update_ns", "p50", reps[i].lat.p50, "p99", reps[i].lat.p99,
				      "verify", bench_verify_name(reps[i].verify)));
	return each;
}

static json_t *bench_events_json(const struct bench_rec_ctx *x, int which)
{
	const struct bench_config *cfg = x->cfg;
	const struct bench_result *r = x->r;
	json_t *j = json_object();

	if (which == BF_EVENTS)
		json_object_set_new(j, "task_clock_ns", json_integer((json_int_t)r->task_clock_ns));
	if (which == BF_EVENTS_UNAVAILABLE && r->clock_source != PMU_SRC_PERF)
		json_object_set_new(j, "task_clock_perf", json_string(strerror(r->clock_errno)));
	for (int e = 0; e < cfg->nr_events; e++) {
		const char *name = cfg->events[e].name;
		json_t *v;

		if (which == BF_EVENTS_UNAVAILABLE) {
			if (r->ev_why[e])
				json_object_set_new(j, name, json_string(r->ev_why[e]));
			continue;
		}
		if (r->ev_why[e])
			v = json_null();
		else if (which == BF_EVENTS)
			v = json_integer((json_int_t)r->ev_total[e]);
		else	/* with readers the totals include them: no per-update figure */
			v = r->ops && !cfg->readers ? json_real((double)r->ev_total[e] / (double)r->ops) : json_null();
		json_object_set_new(j, name, v);
	}
	return j;
}

static json_t *bench_read_node_json(int n)
{
	char buf[24];

	if (n >= 0) {
		snprintf(buf, sizeof(buf), "%d", n);
		return json_string(buf);
	}
	return json_string(n == BENCH_READ_LEAF ? "leaf" : n == BENCH_READ_OWN ? "own" : "random");
}

/* The value of a field whose SRC is FN; objects whose members have their own rows start empty. */
static json_t *bench_field_value(int f, const struct bench_rec_ctx *x)
{
	const struct bench_config *cfg = x->cfg;
	const struct bench_result *r = x->r;
	const struct bench_summary *sum = x->sum;
	int k = sum ? sum->k : 1;

	switch (f) {
	case BF_SCHEMA: return json_integer(BENCH_SCHEMA_VERSION);
	case BF_ALGO: return json_string(r->ba->name);
	case BF_BASELINE: return json_boolean(r->ba->baseline);
	case BF_WORKLOAD: return json_string(bench_workload_name(cfg->workload));
	/* ctr_params.batch: the algorithm's default (0) but in the charge workload */
	case BF_BATCH: return json_integer(bench_workload_charges(cfg->workload) ? BENCH_CHARGE_BATCH : 0);
	case BF_READ_NODE: return bench_read_node_json(cfg->read_node);
	case BF_SHARED_MEM: return json_string(cfg->shared_mem ? cfg->shared_mem : "local");
	case BF_REPS_REQUESTED: return json_integer(cfg->reps ? cfg->reps : 1);
	case BF_CPUS: return json_integer(x->nr_cpus);
	case BF_UPDATE_NS: case BF_READ_NS: case BF_READ_ERROR: return json_object();
	case BF_SAMPLED_OP: return json_string(cfg->workload == BENCH_CHARGE ? "try_charge" :
					       cfg->workload == BENCH_STORE ? "store" : "add");
	case BF_VERIFY: return json_string(bench_verify_name(r->verify));
	case BF_VERIFY_DETAIL:
		return r->verify ? json_null() : json_pack("{s:i,s:I,s:I}", "node", r->bad_node,
							   "got", (json_int_t)r->got, "want", (json_int_t)r->want);
	case BF_ADMISSION:
		/* attempts and rejected: every attempt of one rep (details_from_rep); the audited ones:
		 * 1 in 64, of the rep with the most false rejects (bench_summarize) */
		return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}",
				 "attempts", (json_int_t)bench_attempts(r, sum, x->reps),
				 "rejected", (json_int_t)r->charge_fail, "audited", (json_int_t)r->audited,
				 "audited_rejected", (json_int_t)r->audit_rejected,
				 "false_rejects", (json_int_t)r->false_rejects,
				 "overshoot_max", (json_int_t)(r->audited ? r->overshoot_max : 0));
	case BF_FLUSH: return bench_flush_json(r);
	case BF_EVENTS: case BF_EVENTS_PER_OP: case BF_EVENTS_UNAVAILABLE: return bench_events_json(x, f);
	case BF_EVENTS_SOURCE: return json_string(pmu_source_name(r->clock_source));
	case BF_PAIRS: {
		json_t *pairs = json_object();

		for (int c = 0; c < TOPO_NR_CLASSES; c++)
			json_object_set_new(pairs, topo_class_name(c), json_integer(cfg->pairs[c]));
		return pairs;
	}
	case BF_FAIRNESS:
		return json_pack("{s:I,s:I,s:f}", "ops_min", (json_int_t)r->ops_min,
				 "ops_max", (json_int_t)r->ops_max, "ops_cv", r->ops_cv);
	case BF_TIMER:
		/* overhead_raw_ns: the unfenced pair's, which the update workload's batched samples subtract */
		return json_pack("{s:s,s:f,s:b,s:f,s:f,s:f,s:i}", "source", BENCH_TSC_IS_CYCLES ? "rdtsc" : "clock_gettime",
				 "ticks_per_ns", cfg->tsc.ghz, "invariant", cfg->tsc.invariant,
				 "overhead_ns", (double)cfg->tsc.overhead / cfg->tsc.ghz,
				 "overhead_raw_ns", (double)cfg->tsc.overhead_raw / cfg->tsc.ghz,
				 "resolution_ns", (double)cfg->tsc.resolution / cfg->tsc.ghz,
				 "sample_every", (int)cfg->sample_every);
	/* updaters first, then readers */
	case BF_CPU_REQUESTED: return bench_int_array(r->cpu_requested, cfg->threads + cfg->readers);
	case BF_CPU_OBSERVED: return bench_int_array(r->cpu_observed, cfg->threads + cfg->readers);
	/* an interrupted run says how many of the asked-for reps it did */
	case BF_REPS_DONE: return json_integer(k);
	case BF_DETAILS_FROM_REP: return k > 1 ? json_integer(sum->rep_index) : json_null();
	case BF_STATS: return k > 1 ? bench_stats_json(sum) : json_null();
	case BF_REPS: return k > 1 ? bench_reps_json(sum, x->reps) : json_null();
	case BF_HOST: return json_object();
	case BF_HOST_NOISE_CAUSE: {
		char why[128];

		return bench_summary_noisy(sum) ?
		       json_string(bench_noise_cause(&r->host, x->nr_cpus, cfg->threads + cfg->readers, why,
						     sizeof(why))) : json_null();
	}
	case BF_ENV: return cfg->env ? json_incref(cfg->env) : json_null();
	default:
		/* a row with SRC FN and no case here: a bug the schema test catches */
		return json_null();
	}
}

/* An R() or C() member as JSON. */
static json_t *bench_member_json(const struct bench_field *d, const void *base)
{
	const char *p = (const char *)base + d->off;

	switch (d->ctype) {
	case BC_DOUBLE: return json_real(*(const double *)p);
	case BC_U64: return json_integer((json_int_t)*(const uint64_t *)p);
	case BC_I64: return json_integer((json_int_t)*(const int64_t *)p);
	case BC_INT:
		return d->type == BT_BOOL ? json_boolean(*(const int *)p) : json_integer(*(const int *)p);
	case BC_UINT: return json_integer(*(const unsigned *)p);
	case BC_STR: return *(const char *const *)p ? json_string(*(const char *const *)p) : json_null();
	default: return json_null();
	}
}

void bench_json_set_path(json_t *o, const char *path, json_t *v)
{
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		char key[64];
		json_t *next;

		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		next = json_object_get(o, key);
		if (!next) {
			next = json_object();
			json_object_set_new(o, key, next);
		}
		if (!json_is_object(next)) {
			json_decref(v);
			return;
		}
		o = next;
		path = dot + 1;
	}
	json_object_set_new(o, path, v);
}

/* The field applies to this configuration (else it is null). */
static int bench_field_applies(const struct bench_field *d, const struct bench_config *cfg)
{
	switch (d->when) {
	case BW_READERS: return cfg->workload == BENCH_READERS;
	case BW_CHARGE: return bench_workload_charges(cfg->workload);
	case BW_NOREADERS: return !cfg->readers;
	default: return 1;
	}
}

/* Field f is an identity field, or the object one is written in (timer, env). */
static int bench_field_in_ident(int f)
{
	size_t n = strlen(bench_fields[f].path);

	for (int g = 0; g < BF_NR; g++)
		if (bench_field_is_resume_key(g) && !strncmp(bench_fields[g].path, bench_fields[f].path, n) &&
		    (bench_fields[g].path[n] == 0 || bench_fields[g].path[n] == '.'))
			return 1;
	return 0;
}

/* The line's fields, or only its identity (and the objects that hold it) when ident_only. */
static json_t *bench_record_fields(const struct bench_rec_ctx *x, int ident_only)
{
	const struct bench_config *cfg = x->cfg;
	json_t *j = json_object();

	for (int f = 0; j && f < BF_NR; f++) {
		const struct bench_field *d = &bench_fields[f];
		json_t *v;

		if (d->src == BSRC_SUB || (ident_only && !bench_field_in_ident(f)))
			continue;	/* SUB: its parent's value holds it */
		if (!bench_field_applies(d, cfg))
			v = json_null();
		else if (d->src == BSRC_FN)
			v = bench_field_value(f, x);
		else
			v = bench_member_json(d, d->src == BSRC_RESULT ? (const void *)x->r : (const void *)cfg);
		bench_json_set_path(j, d->path, v ? v : json_null());
	}
	return j;
}

json_t *bench_record_json(const struct bench_config *cfg, int nr_cpus, const struct bench_result *r,
			  const struct bench_summary *sum, const struct bench_result *reps)
{
	const struct bench_rec_ctx x = { cfg, nr_cpus, r, sum, reps };

	return bench_record_fields(&x, 0);
}

json_t *bench_record_ident(const struct bench_config *cfg, int nr_cpus, const struct bench_algo *ba)
{
	const struct bench_result r = { .ba = ba };
	const struct bench_rec_ctx x = { cfg, nr_cpus, &r, NULL, NULL };

	return bench_record_fields(&x, 1);
}

/* A number at path in o, or dflt. */
static double bench_num_at(json_t *o, const char *path, double dflt)
{
	json_t *v = bench_json_path(o, path);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

int bench_record_parse(json_t *o, struct bench_summary *s)
{
	const char *algo = json_string_value(json_object_get(o, "algo"));
	const char *verify = json_string_value(json_object_get(o, "verify"));
	json_t *flush = json_object_get(o, "flush"), *stats = json_object_get(o, "stats");

	memset(s, 0, sizeof(*s));
	s->med.ba = algo ? bench_algo_find(algo) : NULL;
	if (!s->med.ba)
		return -EINVAL;
	s->k = (int)bench_num_at(o, "reps_done", 1);
	bench_noise_clear(&s->med.host);	/* a line from before "host", or a null member: unknown */
	for (int f = 0; f < BF_NR; f++) {
		json_t *st = json_is_object(stats) ? json_object_get(stats, bench_fields[f].path) : NULL;

		if (bench_fields[f].src == BSRC_RESULT && json_is_number(bench_json_path(o, bench_fields[f].path)))
			bench_field_put(&s->med, f, json_number_value(bench_json_path(o, bench_fields[f].path)));
		if (json_is_object(st))
			s->stat[f] = (struct bench_stat){ .median = bench_num_at(st, "median", 0),
				.lo = bench_num_at(st, "lo", 0), .hi = bench_num_at(st, "hi", 0),
				.level = bench_num_at(st, "level", 0), .cv = bench_num_at(st, "cv", 0) };
	}
	s->med.verify = !verify || !strcmp(verify, "n/a") ? -1 : !strcmp(verify, "ok");
	s->med.audited = (uint64_t)bench_num_at(o, "admission.audited", 0);
	s->med.audit_rejected = (uint64_t)bench_num_at(o, "admission.audited_rejected", 0);
	s->med.false_rejects = (uint64_t)bench_num_at(o, "admission.false_rejects", 0);
	s->med.overshoot_max = (int64_t)bench_num_at(o, "admission.overshoot_max", 0);
	s->med.has_flush = json_is_object(flush);
#define BENCH_FLUSH_BACK(f) (s->med.flush.f = (uint64_t)bench_num_at(flush, #f, 0))
	BENCH_FLUSH_BACK(flushes);
	BENCH_FLUSH_BACK(lock_contended);
	BENCH_FLUSH_BACK(lock_wait_ns);
	BENCH_FLUSH_BACK(lock_hold_ns);
	BENCH_FLUSH_BACK(lock_breaks);
	BENCH_FLUSH_BACK(reads_flush);
	BENCH_FLUSH_BACK(reader_flushes);
	BENCH_FLUSH_BACK(reads_shared);
	BENCH_FLUSH_BACK(reader_waits);
	BENCH_FLUSH_BACK(reader_wait_ns);
	BENCH_FLUSH_BACK(sem_fallbacks);
#undef BENCH_FLUSH_BACK
	return 0;
}
