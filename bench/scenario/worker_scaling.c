/* SPDX-License-Identifier: MIT */
/*
 * worker_scaling.c - seed 000's store at depth 8 (chain:8, limits at every
 * level) for 10-80 workers: CPU time per store.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../cli.h"
#include "../project.h"
#include "../../topology/topo.h"
#include "scenario.h"

static void scn_worker_scaling_run(struct scn_ctx *c)
{
	static const int want[] = { 10, 20, 40, 50, 80 };
	int ran = -1;

	scn_common_notes(c, c->no_cap ? "as the seed's rows ask (--no-cap: past the PUs they share CPUs)"
				      : "as the row asks, capped at this machine's PUs (--no-cap runs them all)");
	scn_note(c, "ns/store = CPU time per store (--workload store: task-clock / stores) at"
		 " depth 8 (chain:8), limits at every level, %.2g x the holdings (--limit-headroom)", c->limit_headroom);
	scn_header(c, "workers", 16);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		const int t = scn_workers(c, want[k]);
		char label[64];

		if (t != want[k])
			snprintf(label, sizeof(label), "%d (ran %d)", want[k], t);
		else
			snprintf(label, sizeof(label), "%d", want[k]);
		/* a capped row that would repeat the one above prints its figures again, not a new run */
		if (t != ran) {
			struct bench_config cfg = scn_config(c, BENCH_STORE, "chain:8", t);
			int stop = scn_measure_cols(c, &cfg, label);

			bench_shape_free(&cfg.shape);
			ran = t;
			if (stop) {
				scn_row(c, label, 16, scn_cpu_ns);
				return;
			}
		} else if (c->table) {
			snprintf(label + strlen(label), sizeof(label) - strlen(label), "=");
		}
		scn_row(c, label, 16, scn_cpu_ns);
	}
	scn_note(c, "a label ending in = repeats the run above it (same capped worker count)");
}

const struct scn scn_worker_scaling = {
	.name = "worker-scaling",
	.seed = "000_2f7e5ca340efc1f8.txt",
	.what = "CPU time per store at depth 8 for 10-80 workers",
	.seed_machine = "20 workers",
	.seed_cpus = 80,
	.opts = SCN_OPT_ENGINE | SCN_OPT_WORK_NS | SCN_OPT_LIMIT_HEADROOM | SCN_OPT_NO_CAP,
	.headroom = SCN_STORE_HEADROOM,
	.run = scn_worker_scaling_run,
};
