/* SPDX-License-Identifier: MIT */
/*
 * zswap_load_latency.c - seed 000's load (uncharge) latency: p50/p90/p95/p99/avg
 * of an update of the leaf, depths 2-32, 20 workers.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../cli.h"
#include "../project.h"
#include "../../topology/topo.h"
#include "scenario.h"

/* The seed's depths (its rows). */
static const int scn_load_depths[] = { 2, 4, 8, 32 };

static double scn_p50(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_UPDATE_NS_P50);
	return s->med.lat.p50;
}

static double scn_p90(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_UPDATE_NS_P90);
	return s->med.lat.p90;
}

static double scn_p95(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_UPDATE_NS_P95);
	return s->med.lat.p95;
}

static double scn_p99(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_UPDATE_NS_P99);
	return s->med.lat.p99;
}

static double scn_mean(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_UPDATE_NS_MEAN);
	return s->med.lat.mean;
}


static void scn_load_latency_run(struct scn_ctx *c)
{
	const int workers = scn_workers(c, SCN_SEED_WORKERS);
	static const struct scn_rowdef rows[] = { { "p50", scn_p50 }, { "p90", scn_p90 }, { "p95", scn_p95 },
						   { "p99", scn_p99 }, { "avg", scn_mean } };
	char buf[128];

	snprintf(buf, sizeof(buf), "%d (the seed's 20%s)", workers,
		 workers < SCN_SEED_WORKERS ? ", capped at this machine's PUs" : "");
	scn_common_notes(c, buf);
	scn_note(c, "ns per load = latency of an update of the leaf (+1/-1, as the uncharge a load hit does),"
		 " timed with rdtsc after the throughput window, in batches where one op is below %u timer steps"
		 " (resolution %s), timer overhead subtracted", BENCH_LAT_MIN_STEPS, c->timer_res);
	scn_note(c, "the seed's loads also decompressed a page (~6 us); here only the counter's part is timed,"
		 " so no ours/seed: a ratio of unlike quantities");
	scn_header(c, "ns/load", 14);
	for (size_t d = 0; d < sizeof(scn_load_depths) / sizeof(scn_load_depths[0]); d++) {
		int stop = scn_measure_chain(c, BENCH_UPDATE, scn_load_depths[d], workers);
		char label[32];

		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			const struct scn_seedref seed = { .row = label, .unlike = 1 };

			snprintf(label, sizeof(label), "depth %d %s", scn_load_depths[d], rows[r].name);
			scn_row_seed(c, label, 14, rows[r].fn, &seed);
		}
		if (stop)
			return;
	}
}

const struct scn scn_zswap_load_latency = {
	.name = "zswap-load-latency",
	.seed = "000_2f7e5ca340efc1f8.txt",
	.what = "load (uncharge) latency p50/p90/p95/p99/avg, depths 2-32",
	.seed_table = "load_latency",
	.seed_machine = "20 workers",
	.seed_cpus = 80,
	.opts = SCN_OPT_ENGINE | SCN_OPT_WORK_NS | SCN_OPT_NO_CAP,
	.run = scn_load_latency_run,
};
