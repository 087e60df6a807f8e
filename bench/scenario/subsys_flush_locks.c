/* SPDX-License-Identifier: MIT */
/*
 * subsys_flush_locks.c - two rstat subsystems on one tree, one flush lock
 * or one each (kernel 6.16): contention per subsystem.  The body is
 * bench/subsys.c's (bench_subsys_scenario): it runs its own threads, so the
 * engine neither plans it nor resumes it; its lines are result lines of the
 * schema, and --from prints the table from them (bench_subsys_from).
 */
#include <stdio.h>

#include "../subsys.h"
#include "scenario.h"

static void scn_subsys_run(struct scn_ctx *c)
{
	/*
	 * 8 threads on 2 CPUs: in --quick's 60 ms window a subsystem's readers got
	 * no time slice under load (0 reads); a quick run here takes 300 ms.
	 */
	const int ms = c->quick && c->duration_ms < 300 ? 300 : c->duration_ms;
	const struct bench_subsys_args a = {
		.base = &c->base, .reps = c->reps, .duration_ms = ms, .warmup_ms = c->warmup_ms,
		.table = c->table, .raw = c->raw.fp ? c->raw.fp : c->table ? NULL : stdout,
	};

	/* --from: the table from the file's lines (the engine has checked them), nothing run */
	c->failed |= c->from ? bench_subsys_from(c->from) : bench_subsys_scenario(&a);
}

const struct scn scn_subsys_flush_locks = {
	.name = "subsys-flush-locks",
	.seed = "kernel 6.16 (no seed)",
	.what = "two rstat subsystems, one flush lock or one each: contention per subsystem",
	.opts = SCN_OPT_FROM,
	.opts_why = "it runs its own threads and one algorithm's two lock modes, not columns the engine plans",
	.own_plan = 1,
	.run = scn_subsys_run,
};
