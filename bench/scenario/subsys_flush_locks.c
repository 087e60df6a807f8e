/* SPDX-License-Identifier: MIT */
/*
 * subsys_flush_locks.c - two rstat subsystems on one tree, one flush lock
 * or one each (kernel 6.16): contention per subsystem.  The body is
 * bench/subsys.c's (bench_subsys_scenario): it runs its own threads, so the
 * engine neither plans it nor reads it back (--from, --resume).
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

	c->failed |= bench_subsys_scenario(&a);
}

const struct scn scn_subsys_flush_locks = {
	.name = "subsys-flush-locks",
	.seed = "kernel 6.16 (no seed)",
	.what = "two rstat subsystems, one flush lock or one each: contention per subsystem",
	.opts = 0,
	.opts_why = "it runs its own threads and one algorithm's two lock modes, not result lines of columns",
	.own_plan = 1,
	.run = scn_subsys_run,
};
