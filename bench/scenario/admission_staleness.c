/* SPDX-License-Identifier: MIT */
/*
 * admission_staleness.c - seed 000's premature OOM, as far as a counter
 * goes: bursts of stores and frees against a limit at every level, audited
 * against the exact values: false rejections (stale high) and overshoot
 * (stale low, or a racing check-then-act).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli.h"
#include "../project.h"
#include "../../topology/topo.h"
#include "scenario.h"

static double scn_refused(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return s->med.audited ? 100.0 * (double)s->med.audit_rejected / (double)s->med.audited : NAN;
}

static double scn_audited(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return (double)s->med.audited;
}

static double scn_false_rejects(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return (double)s->med.false_rejects;
}

static double scn_false_pct(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return s->med.audit_rejected ? 100.0 * (double)s->med.false_rejects / (double)s->med.audit_rejected
				     : 0.0;
}

static double scn_overshoot(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return s->med.overshoot_max > 0 ? (double)s->med.overshoot_max / BENCH_CHARGE_UNIT : 0.0;
}

static void scn_admission_run(struct scn_ctx *c)
{
	const int workers = c->pus, burst = 64;
	static const struct scn_rowdef rows[] = {
		{ "refused % (audited)", scn_refused }, { "audited attempts", scn_audited },
		{ "false rejects", scn_false_rejects }, { "false rejects % of refusals", scn_false_pct },
		{ "worst overshoot (pages)", scn_overshoot },
	};
	struct bench_config cfg;
	char buf[160];
	int stop;

	snprintf(buf, sizeof(buf), "%d, each in bursts of %d stores (charges of a 4 KiB page) then as many"
		 " frees, on chain:4", workers, burst);
	scn_common_notes(c, buf);
	scn_note(c, "limit at every level: 3/4 of what the workers hold at a burst's top; 1 attempt in %u is"
		 " audited against the exact values of that moment (workers' published holdings)",
		 c->base.sample_every);
	scn_note(c, "with several reps the rows come from the rep with the most false rejects; the worst"
		 " overshoot is the worst of all reps");
	scn_note(c, "false reject: refused although every level had room (stale high: the premature OOM);"
		 " overshoot: admitted past a limit (stale low, or racing check-then-act)");
	scn_header(c, "admission", 28);
	cfg = scn_config(c, BENCH_CHARGE, "chain:4", workers);
	cfg.charge_burst = burst;
	stop = scn_measure_cols(c, &cfg, "bursts");
	bench_shape_free(&cfg.shape);
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
		scn_row(c, rows[r].name, 28, rows[r].fn);
	(void)stop;
}

const struct scn scn_admission_staleness = {
	.name = "admission-staleness",
	.seed = "000_2f7e5ca340efc1f8.txt",
	.what = "bursts of stores and frees against a limit: false rejections and overshoot",
	.seed_machine = "20 workers",
	.seed_cpus = 80,
	.opts = SCN_OPT_ENGINE | SCN_OPT_WORK_NS | SCN_OPT_LIMIT_HEADROOM,
	.run = scn_admission_run,
};
