/* SPDX-License-Identifier: MIT */
/*
 * record.h - one result as a JSON object, built field by field from the
 * field table (schema.h): the JSON writer prints it, the CSV writer takes
 * its columns from it, so both say the same thing.
 */
#ifndef BENCH_RECORD_H
#define BENCH_RECORD_H

#include <jansson.h>

#include "reps.h"
#include "run.h"

/*
 * The result line of r (a summary of reps[0..sum->k) when sum is not NULL):
 * every field of bench_fields in the table's order, null where the field's
 * WHEN says it does not apply.  NULL only when out of memory.
 */
json_t *bench_record_json(const struct bench_config *cfg, int nr_cpus, const struct bench_result *r,
			  const struct bench_summary *sum, const struct bench_result *reps);

/*
 * Only the identity fields (schema.h: key, knob, run, build) of the line
 * algorithm ba would write in cfg, and the objects that hold them: its
 * sweep --resume key is bench_line_key(this, bench_field_is_resume_key).
 */
json_t *bench_record_ident(const struct bench_config *cfg, int nr_cpus, const struct bench_algo *ba);

/*
 * A result line read back into a summary (scenario --resume): every numeric
 * R() field, the "stats" intervals, verify, the admission audit and the
 * flush counts scenario tables use.  Per-thread arrays, events and the flush
 * histogram are not restored.  0, or -EINVAL when the algorithm is unknown.
 */
int bench_record_parse(json_t *o, struct bench_summary *s);

/* Sets path ("a.b.c") in o, making objects on the way; dropped when a parent is not an object. */
void bench_json_set_path(json_t *o, const char *path, json_t *v);

/* The workload's name as results spell it. */
const char *bench_workload_name(int w);

/* The workload named: update, charge, readers or store (enum bench_workload); dies on any other. */
int bench_parse_workload(const char *name);

/* "ok", "mismatch" or "n/a" for a result's verify. */
const char *bench_verify_name(int v);

/*
 * Charge attempts of the rep whose refusals (charge_fail) a summary carries:
 * the summary's ops is a median, so a refusal share needs that rep's own.
 */
uint64_t bench_attempts(const struct bench_result *r, const struct bench_summary *sum,
			const struct bench_result *reps);

#endif /* BENCH_RECORD_H */
