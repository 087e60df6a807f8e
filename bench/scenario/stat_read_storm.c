/* SPDX-License-Identifier: MIT */
/*
 * stat_read_storm.c - seed 004's read storm: stat readers by the hundred
 * (one per node, then --readers) against updaters on tree:50x5, each
 * algorithm that takes read= under every reader-side flush strategy it
 * takes (asked with ctr_options_check, never read from its name), with a
 * lone reader and subtree sizes beside.  Measured and projected side by side.
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

/*
 * The storm (test 2), measured and projected alike, as 004 ran it: readers
 * and no other load ("doesn't generate any loads other than these stat
 * reader threads") on 1K memcgs ("This test creates only 1K memory
 * cgroups": tree:10x100, 1011 nodes), each reader reading its own node
 * (reader i node i mod 1011) every 100 ms (--quick: 10 ms), under
 * read=<strategy>.  One updater, on a leaf: the harness needs one, and it
 * keeps the flushes from being all clean.  The seed's 10000 readers on 384
 * CPUs are the projection's; measured, --readers (1000).  Test 0, the lone
 * reader 004 set the storm against, runs on the same definition.
 */
#define SCN_STORM_SEED_SHAPE "tree:10x100"
#define SCN_STORM_SEED_NODES 1011
#define SCN_STORM_SEED_UPDATERS 1
/* Tests 1 and 3-5 (004's per-node readers, the subtree sizes): updaters on every PU, on tree:50x5. */
#define SCN_STORM_SHAPE "tree:50x5"
#define SCN_STORM_READ_NODE BENCH_READ_OWN
#define SCN_STORM_SEED_READERS 10000
#define SCN_STORM_INTERVAL_US 100000
/* The lone reader of tests 3-5: one reader of a given node every ms (test 3: the root). */
#define SCN_STORM_LONE_INTERVAL_US 1000

static void scn_storm_header(const struct scn_ctx *c)
{
	if (c->table && c->wide)
		printf("%-36s %8s %9s %9s %9s %10s %10s %7s %8s %13s %10s %6s\n", "algorithm read=", "reads",
		       "p50 ns", "p99 ns", "p99.9 ns", "max ns", ">1ms %", ">1s %", "flush/rd",
		       "lock wait", "upd Mops/s", "verify");
	else if (c->table)	/* within 100 columns (issue 31): p99.9, >1ms, >1s, lock wait, upd Mops/s are --wide's */
		printf("%-36s %8s %9s %9s %10s %8s %6s\n", "algorithm read=", "reads", "p50 ns", "p99 ns", "max ns",
		       "flush/rd", "verify");
}

static void scn_storm_row(const struct scn_ctx *c, const char *label, const struct bench_summary *s)
{
	const struct bench_result *r = &s->med;
	const struct ctr_flush_stats *f = &r->flush;
	char fr[32] = "n/a", lw[32] = "n/a";

	if (!c->table)
		return;
	if (!s->k) {
		printf("%-36s not run\n", label);
		return;
	}
	if (r->has_flush && f->reads_flush)
		snprintf(fr, sizeof(fr), "%.3f", (double)f->reader_flushes / (double)f->reads_flush);
	if (r->has_flush) {
		snprintf(lw, sizeof(lw), "%.4f", (double)f->lock_wait_ns / 1e9 / (r->seconds > 0 ? r->seconds : 1));
	}
	if (c->wide)
		printf("%-36s %8llu %9.0f %9.0f %9.0f %10.0f %10.3f %7.3f %8s %9s s/s %10.2f %6s\n", label,
		       (unsigned long long)r->reads, r->read_lat.p50, r->read_lat.p99, r->read_lat.p999,
		       r->read_lat.max, 100 * r->read_lat.over_1ms, 100 * r->read_lat.over_1s, fr, lw,
		       r->ops_per_sec / 1e6, r->verify > 0 ? "ok" : r->verify ? "n/a" : "FAIL");
	else
		printf("%-36s %8llu %9.0f %9.0f %10.0f %8s %6s\n", label, (unsigned long long)r->reads,
		       r->read_lat.p50, r->read_lat.p99, r->read_lat.max, fr,
		       r->verify > 0 ? "ok" : r->verify ? "n/a" : "FAIL");
	fflush(stdout);
}

/*
 * How often a reader reads: the seed's every second (test 1) and every
 * 100 ms (test 2).  --quick has a 400 ms window and a tenth of the readers:
 * test 1 reads every 100 ms so the window holds reads, and test 2 every
 * 10 ms, the full form's 10000 reads/s from 100 readers.
 */
static int scn_storm_interval_us(const struct scn_ctx *c, int test)
{
	if (test == 1)
		return c->quick ? 100000 : 1000000;
	return c->quick ? SCN_STORM_INTERVAL_US / 10 : SCN_STORM_INTERVAL_US;
}

/* What one storm row measured, for the slowdown table after test 2. */
struct scn_storm_fig {
	char label[96];		/* "rstat_force spin" */
	const struct bench_algo *ba;	/* its algorithm */
	double p50, p99;	/* read latency, ns (NaN: not measured) */
};

/* Rows of one storm test: every algorithm, those that take read= under each strategy. */
#define SCN_STORM_MAX_ROWS (BENCH_MAX_ALGOS * SCN_NR_STRATEGIES)

/*
 * The strategies test 'test' runs ba under, into k[]; returns how many.  An
 * algorithm that takes no read= (scn_algo_caps) has one row in tests 0-2,
 * with no strategy (k -1), and none in tests 3-5; one that takes it, every
 * strategy it takes in tests 1-2, the first of them in tests 0 and 3-5.
 */
static int scn_storm_strategies(const struct bench_algo *ba, int test, int *k)
{
	int n = 0;

	for (int i = 0; i < SCN_NR_STRATEGIES; i++)
		if (scn_takes_strategy(ba, i) && (n == 0 || test == 1 || test == 2))
			k[n++] = i;
	if (!n && test <= 2)
		k[n++] = -1;
	return n;
}

/* One storm row: ba under strategy k (-1: none) in test 'test'; its p50/p99 into fig (if not NULL). */
static int scn_storm_one(struct scn_ctx *c, int test, const struct bench_algo *ba, int k,
			 struct scn_storm_fig *fig)
{
	static const int subtree_node[] = { 0, 1, 51 };	/* tree:50x5 in BFS order: root, node 1, first leaf */
	static const char *const subtree_name[] = { "root (301 nodes)", "top-level (6)", "leaf (1)" };
	const int seeded = test == 0 || test == 2;	/* on 004's storm definition (SCN_STORM_SEED_SHAPE) */
	struct bench_config cfg = scn_config(c, BENCH_READERS, seeded ? SCN_STORM_SEED_SHAPE : SCN_STORM_SHAPE,
					     seeded ? SCN_STORM_SEED_UPDATERS : c->pus);
	const int memcg = scn_takes(ba, SCN_RSTAT_UPDATE);
	char opt[64], label[96];
	int stop;

	cfg.readers = test == 1 ? 301 : test == 2 ? c->readers : 1;
	cfg.read_node = test == 0 ? BENCH_READ_RANDOM : test >= 3 ? subtree_node[test - 3] : SCN_STORM_READ_NODE;
	cfg.read_interval_us = test == 0 || test >= 3 ? SCN_STORM_LONE_INTERVAL_US : scn_storm_interval_us(c, test);
	if (k >= 0) {
		snprintf(opt, sizeof(opt), "read=%s%s", scn_read_strategies[k], memcg ? "," SCN_RSTAT_UPDATE : "");
		cfg.options = opt;
		snprintf(label, sizeof(label), "test %d %s %s", test, ba->name, scn_read_strategies[k]);
	} else {
		cfg.options = memcg ? SCN_RSTAT_UPDATE : NULL;
		snprintf(label, sizeof(label), "test %d %s", test, ba->name);
	}
	if (test >= 3)
		snprintf(label + strlen(label), sizeof(label) - strlen(label), " %s", subtree_name[test - 3]);
	stop = scn_measure(c, &cfg, &ba, 1, label);
	bench_shape_free(&cfg.shape);
	scn_storm_row(c, label + 7, &c->sums[0]);
	if (fig) {
		snprintf(fig->label, sizeof(fig->label), "%s", label + 7);
		fig->ba = ba;
		fig->p50 = c->sums[0].k && c->sums[0].med.reads ? c->sums[0].med.read_lat.p50 : NAN;
		fig->p99 = c->sums[0].k && c->sums[0].med.reads ? c->sums[0].med.read_lat.p99 : NAN;
	}
	return stop;
}

/*
 * Test (1) or (2) of 004 for every algorithm, those that take read= under
 * each strategy; test 0: a lone reader (the seed's "no contention", one
 * strategy: with one reader there is nothing to serialize) reading a random
 * node every millisecond; tests 3-5: a lone reader of the root (301 nodes),
 * a top-level memcg (6) and a leaf (1), algorithms that take read=: 004's
 * read cost against subtree size.  Each row's p50/p99 into fig[] (if not
 * NULL); returns 1 when stopped.
 */
static int scn_storm_test(struct scn_ctx *c, int test, struct scn_storm_fig *fig, int *nfig)
{
	for (int i = 0; i < c->nr_algos; i++) {
		int k[SCN_NR_STRATEGIES];
		const int nk = scn_storm_strategies(c->algos[i], test, k);

		for (int j = 0; j < nk; j++) {
			struct scn_storm_fig *f = fig && *nfig < SCN_STORM_MAX_ROWS ? &fig[(*nfig)++] : NULL;

			if (scn_storm_one(c, test, c->algos[i], k[j], f))
				return 1;
		}
	}
	return 0;
}

/* A seed read_storm figure (ms) as "lo-hi" ns, or "-". */
static void scn_storm_seed(const struct scn_ctx *c, const char *row, const char *col, char *buf, size_t len,
			   double *lo, double *hi)
{
	const struct bench_seed_fig *g = bench_seed_find(&c->seeds, "read_storm", row, col);

	*lo = *hi = NAN;
	snprintf(buf, len, "-");
	if (!g || isnan(g->lo))
		return;
	*lo = g->lo * 1e6;
	*hi = g->hi * 1e6;
	snprintf(buf, len, "%.0f-%.0f", *lo, *hi);
}

/*
 * The storm against a lone reader: test 2's p50 and p99 over the lone
 * reader's p50 (test 0) of the same algorithm, with 004's figures beside
 * (5-10 ms under 10K readers, 0.02-0.05 ms alone: 100-500x).
 */
static void scn_storm_slowdown(const struct scn_ctx *c, const struct scn_storm_fig *lone, int nlone,
			       const struct scn_storm_fig *storm, int nstorm)
{
	char sl[32], ss[32], sr[32];
	double llo, lhi, slo, shi;

	if (!c->table)
		return;
	scn_note(c, "storm vs lone reader: test 2's read latency over a lone reader's p50 (test 0, same"
		 " algorithm and updaters); seed 004: \"common\" reads under 10K readers (mutex and spin rows)"
		 " against one reader with no contention");
	if (c->wide)
		printf("%-36s %12s %12s %12s %10s %10s %14s %14s %12s\n", "storm vs lone", "lone p50 ns", "storm p50",
		       "storm p99", "p50/lone", "p99/lone", "seed lone ns", "seed storm ns", "seed ratio");
	else	/* within 100 columns (issue 31): storm p99, p99/lone and the seed's lone figure are --wide's */
		printf("%-36s %11s %10s %9s %16s %10s\n", "storm vs lone", "lone p50 ns", "storm p50", "p50/lone",
		       "seed storm ns", "seed ratio");
	scn_storm_seed(c, "no contention", "read_latency", sl, sizeof(sl), &llo, &lhi);
	for (int i = 0; i < nstorm; i++) {
		const char *sp = strchr(storm[i].label, ' ');
		const char *strat = sp ? sp + 1 : "";
		double lp = NAN;

		for (int k = 0; k < nlone; k++)
			if (lone[k].ba == storm[i].ba)
				lp = lone[k].p50;
		snprintf(ss, sizeof(ss), "-");
		snprintf(sr, sizeof(sr), "-");
		slo = shi = NAN;
		if (!strcmp(strat, "mutex"))
			scn_storm_seed(c, "mutex 10K readers", "read_latency_common", ss, sizeof(ss), &slo, &shi);
		else if (!strcmp(strat, "spin"))
			scn_storm_seed(c, "spinlock only 10K readers", "read_latency_common", ss, sizeof(ss), &slo, &shi);
		if (!isnan(slo) && !isnan(llo))
			snprintf(sr, sizeof(sr), "%.0f-%.0f", slo / lhi, shi / llo);
		if (c->wide)
			printf("%-36s %12.0f %12.0f %12.0f %10.2f %10.1f %14s %14s %12s\n", storm[i].label, lp,
			       storm[i].p50, storm[i].p99, storm[i].p50 / lp, storm[i].p99 / lp, strcmp(ss, "-") ? sl : "-",
			       ss, sr);
		else
			printf("%-36s %11.0f %10.0f %9.2f %16s %10s\n", storm[i].label, lp, storm[i].p50,
			       storm[i].p50 / lp, ss, sr);
	}
	fflush(stdout);
}

static void scn_read_storm_run(struct scn_ctx *c)
{
	struct scn_storm_fig *lone = calloc(SCN_STORM_MAX_ROWS, sizeof(*lone));
	struct scn_storm_fig *storm = calloc(SCN_STORM_MAX_ROWS, sizeof(*storm));
	int nlone = 0, nstorm = 0;
	char buf[200];

	if (!lone || !storm)
		die("out of memory");
	snprintf(buf, sizeof(buf), "tests 1, 3-5: %d updaters (the seed's 10 per leaf, scaled to this machine) on"
		 " tree:50x5 (50 top-level memcgs x 5 children, 301 nodes)", c->pus);
	scn_common_notes(c, buf);
	scn_note(c, "read= is the reader-side flush serialization of the rstat algorithms: spin (contend on"
		 " the flush lock), mutex (a reader mutex first), sem (1 ms semaphore, then wait for a unified"
		 " flush), batch (wait for a flush that started after arrival; one reader flushes for all)");
	scn_note(c, "latencies are of every read, ns; >1ms/>1s: share of reads certainly above; flush/rd:"
		 " flushes a reader did per read that needed one (the rest were served by another's flush;"
		 " exact, from the algorithm's own counts); lock wait: time waiting for the flush lock per second;"
		 " upd Mops/s: the updaters' throughput meanwhile (004's test 1 measured the updaters' run time)");
	scn_note(c, "tests 0 and 2 as 004 ran its storm: its readers and no other load (one updater on a leaf:"
		 " the harness needs one) on 1K memcgs, %s (%d nodes)", SCN_STORM_SEED_SHAPE, SCN_STORM_SEED_NODES);
	scn_note(c, "test 0: a lone reader (the seed's \"no contention\"), reading a random node every ms");
	scn_storm_header(c);
	if (scn_storm_test(c, 0, lone, &nlone))
		goto out;
	scn_note(c, "test 1: one reader per node (301), each reading its node every %s", c->quick ?
		 "100 ms (the seed's second, shortened by --quick to fit the window)" : "second");
	scn_storm_header(c);
	if (scn_storm_test(c, 1, NULL, NULL))
		goto out;
	scn_note(c, "test 2: %d readers (the seed's 10000 on 384 CPUs; --readers), each reading its own"
		 " node every %d ms%s", c->readers, scn_storm_interval_us(c, 2) / 1000,
		 c->quick ? " (the seed's 100 ms, shortened by --quick to keep 10000 reads/s)" : "");
	scn_storm_header(c);
	if (scn_storm_test(c, 2, storm, &nstorm))
		goto out;
	scn_storm_slowdown(c, lone, nlone, storm, nstorm);
	scn_note(c, "tests 3-5: read cost against subtree size (004): a lone reader of the root, a top-level"
		 " memcg and a leaf, every ms, rstat algorithms (read=spin)");
	scn_storm_header(c);
	for (int t = 3; t <= 5; t++)
		if (scn_storm_test(c, t, NULL, NULL))
			break;
out:
	free(lone);
	free(storm);
}

/* One projected row: design (a) under read=strategy with readers of node read_node (BENCH_READ_*). */
static int scn_storm_proj_one(const struct scn_proj *p, const char *strategy, int readers, int read_node,
			      int interval_us, const char *column, struct proj_result *r, char *err, size_t errlen)
{
	char opt[32];
	const struct scn_proj_cfg pc = {
		.algo = scn_designs[0].algo, .workload = BENCH_READERS, .shape = SCN_STORM_SEED_SHAPE,
		.threads = SCN_STORM_SEED_UPDATERS, .readers = readers, .read_node = read_node, .options = opt,
		.work_ns = 35000, .read_interval_ns = (int64_t)interval_us * 1000, .ops = 1, .reads = 3, .warmup = 1,
		.row = strategy, .column = column,
	};

	snprintf(opt, sizeof(opt), "read=%s", strategy);
	return scn_project_run(p, &pc, r, err, errlen);
}

/*
 * Projected: seed 004's regime, the measured storm's definition (test 2:
 * readers only but one updater, 1K memcgs) with the seed's reader count,
 * 10000 (more than the PUs: the model's scheduler time-shares them),
 * design (a) under read=mutex and read=spin (the two posted rows), its
 * flush lock the kernel's queued spinlock (SCN_PROJ_LOCK: under the
 * test-and-test-and-set word the 10000-reader spin storm took the model over
 * 15 minutes here, every release moving the word's line to every spinner); the
 * lone read is one reader of the root on the same definition, the storm's
 * mean and slowest read over it, and the posted figures beside.
 */
static void scn_read_storm_project(const struct scn_proj *p)
{
	const char *const algo[1] = { scn_designs[0].algo };
	static const char *const strat[] = { "mutex", "spin" };
	/* the posted figure of each (tables.csv, read_storm), and what the seed said of its tail */
	static const char *const rows[] = { "mutex 10K readers", "spinlock only 10K readers" };
	static const char *const tail[] = { ", 5% > 1 s", ", none > 1 s" };
	const struct bench_seed_fig *lone_g = bench_seed_find(p->seeds, "read_storm", "no contention", "read_latency");
	const int pus = topo_nr_pus(p->topo);
	const int readers = p->readers ? p->readers : SCN_STORM_SEED_READERS;	/* --readers, else the seed's */

	printf("# seed 004 read storm as 004 ran it (the measured test 2): %d readers (the seed's 10000 unless --readers;\n"
	       "# %s the model's PUs: time-shared) each reading its own node of %s (1K memcgs, %d nodes) every %d ms,\n"
	       "# no other load but %d updater on a leaf (35 us of work), %s; projected\n", readers,
	       readers > pus ? "more than" : "within", SCN_STORM_SEED_SHAPE, SCN_STORM_SEED_NODES,
	       SCN_STORM_INTERVAL_US / 1000, SCN_STORM_SEED_UPDATERS, scn_designs[0].algo);
	printf("# lone read: one reader of the root every %d ms on the same definition; read ns (serial): the storm's\n"
	       "# mean, median, 99th percentile and slowest; storm/lone: the storm's median over the lone read's\n",
	       SCN_STORM_LONE_INTERVAL_US / 1000);
	scn_proj_kernel_note(algo, 1);
	printf("%-10s %12s %12s %12s %12s %12s %10s %26s %16s\n", "read side", "storm mean", "storm p50", "storm p99",
	       "storm max", "lone read", "storm/lone", "posted storm", "posted lone");
	for (int k = 0; k < 2; k++) {
		const struct bench_seed_fig *g = bench_seed_find(p->seeds, "read_storm", rows[k], "read_latency_common");
		struct proj_result r, lone;
		char posted[64], plone[64], err[512], rerr[512];
		double mean, lone_p50;
		int refused, lrefused;

		snprintf(posted, sizeof(posted), "%s %s%s", g ? g->value : "-", g ? g->unit : "", tail[k]);
		snprintf(plone, sizeof(plone), "%s %s", lone_g ? lone_g->value : "-", lone_g ? lone_g->unit : "");
		/*
		 * Each refused or failed configuration has its JSON line (scn_project_run) and a
		 * comment under its row; the other configurations go on.
		 */
		lrefused = scn_storm_proj_one(p, strat[k], 1, 0, SCN_STORM_LONE_INTERVAL_US, "lone read", &lone, err,
					      sizeof(err));
		lone_p50 = !lrefused && lone.reads ? lone.rns_p50 : NAN;
		refused = scn_storm_proj_one(p, strat[k], readers, SCN_STORM_READ_NODE,
					     SCN_STORM_INTERVAL_US, "storm", &r, rerr, sizeof(rerr));
		if (refused) {
			printf("%-10s %12s %12s %12s %12s %12.0f %10s %26s %16s\n", strat[k], "-", "-", "-", "-", lone_p50, "-",
			       posted, plone);
		} else {
			mean = r.reads ? r.rns_serial / (double)r.reads : NAN;
			printf("%-10s %12.0f %12.0f %12.0f %12.0f %12.0f %10.1f %26s %16s\n", strat[k], mean, r.rns_p50,
			       r.rns_p99, r.rns_max, lone_p50, r.rns_p50 / lone_p50, posted, plone);
		}
		if (lrefused)
			printf("#   read=%s lone read not projected: %s\n", strat[k], err);
		if (refused)
			printf("#   read=%s storm not projected: %s\n", strat[k], rerr);
		fflush(stdout);
	}
	printf("# posted: 384 CPUs, 10K threads reading memory.stat every 100 ms, 1K memcgs (%s)\n", p->s->seed);
}

/* --quick's columns: the two flush designs 004 compares, under every strategy (data). */
static const char *const scn_storm_quick[] = { "rstat_force", "rstat_unified", NULL };

const struct scn scn_stat_read_storm = {
	.name = "stat-read-storm",
	.seed = "004_8da19ccf0ddfde5d.txt",
	.what = "stat readers by the hundred: read latency per reader-side flush strategy",
	.seed_table = "read_storm",
	.seed_machine = "10K reader threads, 1K memcgs",
	.seed_cpus = 384,
	.opts = SCN_OPT_ENGINE | SCN_OPT_READERS,
	.needs = SCN_CAP_READ_STRATEGY,
	.partial = 1,
	.needs_what = "read= (a reader-side flush strategy)",
	.partial_what = "tests 0-2 run it once, with no strategy; tests 3-5 leave it out",
	.duration_ms = 3000,
	.quick_duration_ms = 400,
	.quick_algos = scn_storm_quick,
	.run = scn_read_storm_run,
	.project = scn_read_storm_project,
	.project_readers = 1,
};
