/* SPDX-License-Identifier: MIT */
/*
 * scenario_project.c - `ctrbench scenario NAME --project TOPOLOGY`: the
 * seed's table from the coherence projection (docs/projection.md), beside
 * the figures the seed posted (shared/seeds/tables.csv, copied below).
 * Every projected figure is labelled; nothing is scaled to meet the posted
 * ones: the same model and calibration for every row and scenario.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../topology/topo.h"
#include "cli.h"
#include "project.h"
#include "builtin.h"

/* The seed's columns and the libctr algorithm projected for each. */
static const struct { const char *seed, *algo; } sp_cols[] = {
	{ "a_rstat_force", "rstat_force" }, { "b_rstat_ratelimit", "rstat_ratelimit" },
	{ "c_percpu_hier", "percpu_hier" }, { "d_page_counter", "atomic_tree" },
};
static const int sp_depths[] = { 1, 2, 4, 8, 32 };
/* 000_2f7e5ca340efc1f8.txt, ns per store, [depth][column] as in tables.csv */
static const double sp_limit[5][4] = {
	{ 567116, 35604, 35841, 34995 }, { 1082007, 35507, 37803, 36209 }, { 2153329, 37591, 40117, 39893 },
	{ 4211692, 34963, 41070, 44211 }, { 15728220, 53575, 94685, 65946 },
};
static const double sp_nolimit[5][4] = {
	{ 34787, 34062, 34930, 35630 }, { 34913, 35061, 36404, 36360 }, { 36422, 36809, 36922, 37483 },
	{ 42177, 34440, 36679, 40793 }, { 55309, 55321, 57671, 59190 },
};

struct sp_ctx {
	const struct topo *topo;
	const struct proj_calib *cal;
	long ops;
};

/* zswap-store-limit / -nolimit: 20 workers, chain:D, each store paced by the seed's ~35 us of other work. */
static void sp_store(const struct sp_ctx *c, int limit)
{
	const double (*posted)[4] = limit ? sp_limit : sp_nolimit;
	const int64_t work = 35000;	/* the posted depth-1 store minus nothing: compression and the rest */
	double first[4] = { 0 };

	printf("# seed 000 store %s limit: 20 workers, chain:D, placement scatter; every store followed by %lld ns of\n"
	       "# private work (the seed's ~35 us per store), counters' cost projected; flush period the algorithm's (2 s)\n",
	       limit ? "with a" : "without", (long long)work);
	printf("# cell: projected counter ns/store overlap..serial | projected total (work + serial) | posted ns/store\n");
	printf("%-9s", "depth");
	for (int k = 0; k < 4; k++)
		printf(" | %-44s", sp_cols[k].seed);
	printf("\n");
	for (int d = 0; d < 5; d++) {
		char shape[32];

		snprintf(shape, sizeof(shape), "chain:%d", sp_depths[d]);
		printf("depth %-3d", sp_depths[d]);
		for (int k = 0; k < 4; k++) {
			struct proj_result r;
			double lo, hi;
			char cell[64];

			bench_project_one(sp_cols[k].algo, limit ? BENCH_CHARGE : BENCH_UPDATE, shape, 20, 0, c->topo,
					  "scatter", c->cal, NULL, 0, work, 0, 0, c->ops, 0, c->ops / 10, &r, NULL);
			lo = r.ns_overlap / (double)r.ops;
			hi = r.ns_serial / (double)r.ops;
			if (!d)
				first[k] = hi + (double)work;
			snprintf(cell, sizeof(cell), "%.0f..%.0f | %.0f | %.0f", lo, hi, hi + (double)work,
				 posted[d][k]);
			printf(" | %-44s", cell);
		}
		printf("\n");
	}
	printf("# growth depth 32 / depth 1, projected total vs posted:");
	for (int k = 0; k < 4; k++) {
		struct proj_result r;

		bench_project_one(sp_cols[k].algo, limit ? BENCH_CHARGE : BENCH_UPDATE, "chain:32", 20, 0, c->topo,
				  "scatter", c->cal, NULL, 0, work, 0, 0, c->ops, 0, c->ops / 10, &r, NULL);
		printf(" %s x%.2f vs x%.2f;", sp_cols[k].algo, (r.ns_serial / (double)r.ops + (double)work) / first[k],
		       posted[4][k] / posted[0][k]);
	}
	printf("\n");
}

/* shrinker-count (seed 001): updaters and shrinker reads, forced vs ratelimited flushing: the flush lock. */
static void sp_shrinker(const struct sp_ctx *c)
{
	static const char *const algos[] = { "rstat_force", "rstat_ratelimit" };

	printf("# seed 001 lock contention: 20 updaters (35 us of work per update), 4 shrinker readers of the root every\n"
	       "# 100 us (the scenario's), chain:8, placement scatter; the global flush lock, projected\n");
	printf("%-16s %14s %14s %14s %16s %16s\n", "algo", "contended/s", "acquired/s", "wait s/s", "read ns (serial)",
	       "posted cont./s");
	for (int k = 0; k < 2; k++) {
		struct proj_result r;
		double s;

		bench_project_one(algos[k], BENCH_READERS, "chain:8", 20, 4, c->topo, "scatter", c->cal, NULL, 0,
				  35000, 100000, 0, c->ops, c->ops, c->ops / 10, &r, NULL);
		s = r.elapsed_ns / 1e9;
		printf("%-16s %14.1f %14.1f %14.4f %16.0f %16s\n", algos[k], s > 0 ? (double)r.lock_contended / s : 0,
		       s > 0 ? (double)r.lock_acq / s : 0, s > 0 ? r.lock_wait_ns / 1e9 / s : 0,
		       r.reads ? r.rns_serial / (double)r.reads : 0, k ? "1.1 (shrinker=N)" : "248 (shrinker=Y)");
	}
	printf("# posted: eBPF rstat lock wait across 8 machines (EPYC 9684X 96c/192t, 12 NUMA nodes), production load\n");
}

/* stat-read-storm (seed 004): readers on every CPU reading the root of a 1111-node tree every 100 ms. */
static void sp_storm(const struct sp_ctx *c)
{
	static const char *const opts[] = { "read=mutex", "read=spin" };
	const int readers = topo_nr_pus(c->topo) - 20;

	printf("# seed 004 read storm: 20 updaters (35 us of work), %d readers (one per remaining PU; the seed's 10K\n"
	       "# threads time-share them) reading the root of tree:10x10x10 every 100 ms, rstat_force; projected\n", readers);
	printf("%-12s %16s %16s %16s\n", "read side", "read ns mean", "read ns max", "posted");
	for (int k = 0; k < 2; k++) {
		struct proj_result r;

		bench_project_one("rstat_force", BENCH_READERS, "tree:10x10x10", 20, readers, c->topo, "compact",
				  c->cal, opts[k], 0, 35000, 100000000, 0, 1, 3, 1, &r, NULL);
		printf("%-12s %16.0f %16.0f %16s\n", opts[k], r.reads ? r.rns_serial / (double)r.reads : 0, r.rns_max,
		       k ? "5-10 ms common" : "5-10 ms, 5% > 1 s");
	}
	printf("# posted: 384 CPUs, 10K threads reading memory.stat every 100 ms, 1K memcgs (004_8da19ccf0ddfde5d.txt)\n");
}

int bench_scenario_project(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "project", required_argument, NULL, 'p' },
		{ "calibration", required_argument, NULL, 'c' },
		{ "ops", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spec = NULL, *calib = NULL, *name = argv[1];
	struct proj_calib cal;
	struct sp_ctx c = { .ops = 300 };
	struct topo *topo;
	char err[256];
	int opt;

	opterr = 0;
	optind = 2;
	while ((opt = bench_getopt(argc, argv, opts)) != -1) {
		switch (opt) {
		case 'p': spec = optarg; break;
		case 'c': calib = optarg; break;
		case 'n': c.ops = bench_parse_int("ops", optarg, 10, 1000000); break;
		default: bench_die_getopt(opt, argv);
		}
	}
	if (optind < argc)
		die("scenario %s --project: unexpected argument '%s' (takes --calibration and --ops)", name, argv[optind]);
	if (calib ? proj_calib_load(&cal, calib, err, sizeof(err)) : (proj_calib_default(&cal), 0))
		die("scenario: %s", err);
	topo = topo_load(spec, err, sizeof(err));
	if (!topo)
		die("scenario: %s", err);
	c.topo = topo;
	c.cal = &cal;
	printf("# scenario %s, PROJECTED on %s (%d PUs): model, not measured (docs/projection.md)\n# calibration: %s\n",
	       name, topo_spec(topo), topo_nr_pus(topo), cal.source);
	if (!strcmp(name, "zswap-store-limit"))
		sp_store(&c, 1);
	else if (!strcmp(name, "zswap-store-nolimit"))
		sp_store(&c, 0);
	else if (!strcmp(name, "shrinker-count"))
		sp_shrinker(&c);
	else if (!strcmp(name, "stat-read-storm"))
		sp_storm(&c);
	else
		die("scenario %s: no projection (zswap-store-limit, zswap-store-nolimit, shrinker-count, stat-read-storm)",
		    name);
	topo_free(topo);
	return 0;
}
