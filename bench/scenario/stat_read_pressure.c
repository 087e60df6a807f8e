/* SPDX-License-Identifier: MIT */
/*
 * stat_read_pressure.c - seed 003's benchmark 4: one reader reading the
 * root 10,000 times under update pressure: average, stddev and their deltas
 * against the first column.
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

static double scn_10k_reads_ms(const struct bench_summary *s, int *noisy)
{
	*noisy = scn_noisy(s, BF_READ_NS_MEAN);
	return s->med.reads ? s->med.read_lat.mean * 10000 / 1e6 : NAN;
}

/* Its stddev over the reps: the coefficient of variation times the figure (NaN with one rep). */
static double scn_10k_sd(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return s->k > 1 && s->med.reads ? s->stat[BF_READ_NS_MEAN].cv * s->med.read_lat.mean * 10000 / 1e6 : NAN;
}

static void scn_read_pressure_run(struct scn_ctx *c)
{
	struct bench_config cfg;
	double base = NAN, base_sd = NAN;
	int stop;

	scn_common_notes(c, "2 updaters (pressure: +1/-1 swings on the leaves of tree:4x4) and one reader");
	scn_note(c, "the reader reads the root (17 nodes) back to back through the algorithm's own read,"
		 " as 003's benchmark 4 read memory.stat 10,000 times under memory pressure; 003 reports the"
		 " average and stddev over trials and their delta in %%: here over --reps, against the first"
		 " column");
	scn_header(c, "10000 reads", 26);
	cfg = scn_config(c, BENCH_READERS, "tree:4x4", c->pus);
	cfg.readers = 1;
	cfg.read_node = 0;
	cfg.read_interval_us = 0;
	stop = scn_measure_cols(c, &cfg, "one reader");
	bench_shape_free(&cfg.shape);
	scn_row(c, "average ms", 26, scn_10k_reads_ms);
	scn_row(c, "stddev ms", 26, scn_10k_sd);
	if (c->table && c->nr_algos && c->sums[0].k) {
		int noisy;

		base = scn_10k_reads_ms(&c->sums[0], &noisy);
		base_sd = scn_10k_sd(&c->sums[0], &noisy);
		char cells[BENCH_MAX_ALGOS][64];

		for (int i = 0; i < c->nr_algos; i++) {
			double v = c->sums[i].k ? scn_10k_reads_ms(&c->sums[i], &noisy) : NAN;

			snprintf(cells[i], sizeof(cells[i]), isnan(v) || isnan(base) ? "n/a" : "%+.1f%%",
				 100 * (v / base - 1));
		}
		scn_row_cells(c, "average delta %", 26, cells);
		for (int i = 0; i < c->nr_algos; i++) {
			double v = c->sums[i].k ? scn_10k_sd(&c->sums[i], &noisy) : NAN;

			snprintf(cells[i], sizeof(cells[i]), isnan(v) || isnan(base_sd) || !(base_sd > 0) ? "n/a" :
				 "%+.1f%%", 100 * (v / base_sd - 1));
		}
		scn_row_cells(c, "stddev delta %", 26, cells);
	}
	scn_row(c, "read p99 ns", 26, scn_read_p99);
	(void)stop;
}

const struct scn scn_stat_read_pressure = {
	.name = "stat-read-pressure",
	.seed = "003_340db1117e54b711.txt",
	.what = "one reader reading a stat 10,000 times under update pressure: average, stddev, deltas",
	.opts = SCN_OPT_ENGINE,
	.run = scn_read_pressure_run,
};
