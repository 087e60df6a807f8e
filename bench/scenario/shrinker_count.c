/* SPDX-License-Identifier: MIT */
/*
 * shrinker_count.c - seed 001's shrinker count: shrinker threads reading a
 * leaf (zswap_shrinker_count) while updaters run, with and without them:
 * flushes, flush-lock contention and wait.  Measured and projected side by
 * side, from one definition (the shape, the shrinkers and what they read).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../cli.h"
#include "../project.h"
#include "../../topology/topo.h"
#include "scenario.h"

/*
 * The scenario, measured and projected alike (seed 001's regime): 20
 * updaters on the leaves of tree:4x4, and with shrinker=Y one shrinker per
 * NUMA node of the seed's machine (001: "Multiple kswapd threads (one per
 * NUMA node) run concurrently", 12 nodes), each calling count, a read of the
 * root ("Each call flushes the full cgroup rstat hierarchy"), every 5 ms.
 * The interval is an assumption: 001 gives no call rate, and the contention
 * scales with it (its projected header and docs/projection.md say so).
 */
#define SCN_SHRINKER_SHAPE "tree:4x4"
#define SCN_SHRINKER_READ_NODE 0
#define SCN_SHRINKERS 12
#define SCN_SHRINKER_INTERVAL_US 5000
/*
 * The seed's kernel: memcg's ancestor walk, and a flush lock that sleeps
 * (001's profile: osq_lock under __mutex_lock under __cgroup_rstat_lock), for
 * every column that takes both (asked, never by name).
 */
#define SCN_SHRINKER_LOCK "lockkind=mutex"
#define SCN_SHRINKER_KERNEL SCN_RSTAT_UPDATE "," SCN_SHRINKER_LOCK
/* shrinker=Y: the updaters and the shrinkers; shrinker=N: the updaters alone */
#define SCN_SHRINKER_WORKLOAD(y) ((y) ? BENCH_READERS : BENCH_UPDATE)

static double scn_flush_rate(const struct bench_summary *s, uint64_t v)
{
	return s->med.has_flush && s->med.seconds > 0 ? (double)v / s->med.seconds : NAN;
}

static double scn_contended(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return scn_flush_rate(s, s->med.flush.lock_contended);
}

static double scn_lock_wait(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return scn_flush_rate(s, s->med.flush.lock_wait_ns) / 1e9;
}

static double scn_flushes(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return scn_flush_rate(s, s->med.flush.flushes);
}

/*
 * 001's "84% of kswapd cycles in flushing", as far as the counts go: the
 * flush lock's hold and wait time per second over the count calls' time per
 * second (reads x mean read latency), %.  The holds include the periodic
 * flusher's (a few per window), so it can pass 100 where counts rarely flush.
 */
static double scn_flush_share(const struct bench_summary *s, int *noisy)
{
	const double busy = (double)s->med.reads * s->med.read_lat.mean;

	*noisy = 0;
	if (!s->med.has_flush || !s->med.reads || !(busy > 0))
		return NAN;
	return 100.0 * (double)(s->med.flush.lock_hold_ns + s->med.flush.lock_wait_ns) / busy;
}

static double scn_na(const struct bench_summary *s, int *noisy)
{
	(void)s;
	*noisy = 0;
	return NAN;
}

static void scn_shrinker_run(struct scn_ctx *c)
{
	const int workers = scn_workers(c, SCN_SEED_WORKERS), shrinkers = SCN_SHRINKERS;
	static const struct scn_rowdef rows[] = {
		{ "osq_lock % cycles", scn_na }, { "contended acq/s", scn_contended },
		{ "lock wait s/s", scn_lock_wait }, { "flushes/s", scn_flushes }, { "count p99 ns", scn_read_p99 },
		{ "count time flushing %", scn_flush_share },
	};
	/* 001's figures of each row: the kernel then, whose shrinker count forced a flush (design (a)) */
	static const char *const seed_col[] = { "osq_lock_cycles", "contended_acquisitions", "lock_wait", NULL, NULL,
						NULL };
	char buf[160];

	snprintf(buf, sizeof(buf), "%d updaters on the leaves of tree:4x4 (16 memcgs)", workers);
	scn_common_notes(c, buf);
	scn_note(c, "shrinker=Y: %d shrinker threads (001's kswapds, one per node of its 12) call count (one"
		 " read of the root through the algorithm, as zswap_shrinker_count flushes the hierarchy then"
		 " reads) every %d ms (assumed: 001 gives no rate); shrinker=N: updates and the periodic flusher"
		 " only", shrinkers, SCN_SHRINKER_INTERVAL_US / 1000);
	scn_note(c, "options %s where the algorithm takes them (001's kernel: a flush lock that sleeps, its"
		 " profile's __mutex_lock)", SCN_SHRINKER_KERNEL);
	scn_note(c, "the seed's column is the flush before the patch (rstat_force) and after it"
		 " (rstat_ratelimit); lock figures are n/a for algorithms without a flush lock");
	scn_note(c, "osq_lock %% cycles is n/a: it needs a PMU and a kernel's optimistic spinning; this"
		 " machine has no PMU and user space has no osq_lock");
	scn_note(c, "count time flushing %%: the flush lock's hold and wait time over the count calls' time"
		 " (reads x mean read ns; holds include the periodic flusher's); 001 saw 84%% of kswapd's"
		 " cycles in flushing");
	scn_header(c, "shrinker", 22);
	for (int y = 1; y >= 0; y--) {
		struct bench_config cfg = scn_config(c, SCN_SHRINKER_WORKLOAD(y), SCN_SHRINKER_SHAPE, workers);
		int stop;

		if (y) {
			cfg.readers = shrinkers;
			cfg.read_node = SCN_SHRINKER_READ_NODE;
			cfg.read_interval_us = SCN_SHRINKER_INTERVAL_US;
		}
		stop = scn_measure_cols_with(c, &cfg, y ? "shrinker=Y" : "shrinker=N", SCN_SHRINKER_KERNEL);
		bench_shape_free(&cfg.shape);
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			char label[64];

			if (!y && (rows[r].fn == scn_read_p99 || rows[r].fn == scn_flush_share))
				continue;
			const struct scn_seedref seed = { .row = seed_col[r] ? (y ? "shrinker=Y" : "shrinker=N") : NULL,
							  .column = seed_col[r], .algo = scn_designs[0].algo };

			snprintf(label, sizeof(label), "%s %s", y ? "Y" : "N", rows[r].name);
			scn_row_seed(c, label, 22, rows[r].fn, &seed);
		}
		if (stop)
			return;
	}
}

/* The lock a projected row reports: the flush lock by its role where the model names it, else its busiest. */
static const char *scn_shrinker_lock(const struct proj_result *r, long *acq, long *cont, double *wait)
{
	for (int i = 0; i < r->nr_locks; i++)
		if (!strcmp(r->locks[i].role, "flush lock")) {
			*acq = r->locks[i].acq;
			*cont = r->locks[i].contended;
			*wait = r->locks[i].wait_ns;
			return "flush lock";
		}
	*acq = r->lock_acq;
	*cont = r->lock_contended;
	*wait = r->lock_wait_ns;
	return "most wait";
}

/*
 * Projected: the measured table's rows (shrinker=Y, then N) for design (a),
 * forced flushing, and (b), ratelimited, each on the measured definition;
 * 001's posted figures beside design (a)'s rows, as the measured table has
 * them (the seed's kernel forced a flush on every count).
 */
static void scn_shrinker_project(const struct scn_proj *p)
{
	const char *const algos[2] = { scn_designs[0].algo, scn_designs[1].algo };

	printf("# seed 001 lock contention: %d updaters (35 us of work per update) on the leaves of %s; shrinker=Y: %d\n"
	       "# shrinkers (001's kswapds, one per node) each reading the root every %d ms (the measured scenario's;\n"
	       "# assumed, 001 gives no rate: the contention grows with the rate), placement scatter; lockkind=mutex\n"
	       "# (001's profile: __mutex_lock in __cgroup_rstat_lock); projected\n",
	       SCN_SEED_WORKERS, SCN_SHRINKER_SHAPE, SCN_SHRINKERS, SCN_SHRINKER_INTERVAL_US / 1000);
	printf("# lock: the flush lock by its role (CTR_LOCK_ROLE), or the lock with the most wait where the model names none\n");
	scn_proj_kernel_note(algos, 2);
	printf("%-16s %-10s %-10s %14s %14s %14s %16s %16s\n", "algo", "shrinker", "lock", "contended/s", "acquired/s",
	       "wait s/s", "read ns (serial)", "posted cont./s");
	for (int y = 1; y >= 0; y--)
		for (int k = 0; k < 2; k++) {
			const char *row = y ? "shrinker=Y" : "shrinker=N";
			const struct bench_seed_fig *g = k ? NULL : bench_seed_find(p->seeds, "lock_contention", row,
										     "contended_acquisitions");
			const struct scn_proj_cfg pc = {
				.algo = scn_designs[k].algo, .workload = SCN_SHRINKER_WORKLOAD(y), .options = SCN_SHRINKER_LOCK,
				.shape = SCN_SHRINKER_SHAPE, .threads = SCN_SEED_WORKERS, .readers = SCN_SHRINKERS,
				.read_node = SCN_SHRINKER_READ_NODE, .placement = "scatter", .work_ns = 35000,
				.read_interval_ns = SCN_SHRINKER_INTERVAL_US * 1000, .ops = p->ops, .reads = p->ops,
				.warmup = p->ops / 10, .row = row, .column = scn_designs[k].column,
			};
			struct proj_result r;
			const char *lock;
			char err[512];
			long acq, cont;
			double wait, s;

			if (scn_project_run(p, &pc, &r, err, sizeof(err))) {
				/* the cell's refusal (its JSON line written): the other rows go on */
				printf("%-16s %-10s not projected: %s\n", pc.algo, row + 9, err);
				fflush(stdout);
				continue;
			}
			lock = scn_shrinker_lock(&r, &acq, &cont, &wait);
			s = r.elapsed_ns / 1e9;
			printf("%-16s %-10s %-10s %14.1f %14.1f %14.4f %16.0f %16s\n", pc.algo, row + 9, lock,
			       s > 0 ? (double)cont / s : 0, s > 0 ? (double)acq / s : 0, s > 0 ? wait / 1e9 / s : 0,
			       r.reads ? r.rns_serial / (double)r.reads : 0, g ? g->value : "-");
			fflush(stdout);
		}
	printf("# posted: eBPF rstat lock wait across 8 machines (EPYC 9684X 96c/192t, 12 NUMA nodes), production load\n");
}

const struct scn scn_shrinker_count = {
	.name = "shrinker-count",
	.seed = "001_1254a0fcae606091.txt",
	.what = "shrinker count reads racing updates: flushes, flush lock contention and wait",
	.seed_table = "lock_contention",
	.seed_machine = "AMD EPYC 9684X, 96 cores / 192 threads, 12 NUMA nodes, production",
	.seed_cpus = 96,
	.opts = SCN_OPT_ENGINE | SCN_OPT_NO_CAP,
	.run = scn_shrinker_run,
	.project = scn_shrinker_project,
};
