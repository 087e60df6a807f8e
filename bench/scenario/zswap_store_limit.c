/* SPDX-License-Identifier: MIT */
/*
 * zswap_store_limit.c - seed 000's store with zswap.max at every level: CPU time
 * per store (the limit check through each algorithm's own read, the charge,
 * a second stat, the free), depths 1-32, 20 workers, and the flush-calls
 * table (design (a) against (b)).  Its body is the no-limit scenario's too
 * (zswap_store_nolimit.c: w = BENCH_UPDATE).  Measured and projected
 * (--project: scn_store_project) side by side.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../cli.h"
#include "../project.h"
#include "../../topology/topo.h"
#include "scenario.h"

/* The seed's depths (its rows), measured and projected alike. */
static const int scn_store_depths[] = { 1, 2, 4, 8, 32 };

/* Seed 000's flush-calls figures of one depth: store attempts and flushes, before and after the ratelimit. */
struct scn_flush_calls {
	int have;		/* measured (both designs ran at this depth) */
	double attempts[2];	/* design (a) (before), (b) (after): store attempts in the window */
	double flushes[2];	/* ... flushes done, any cause (the periodic flusher's included) */
};

/*
 * Seed 000's flush-calls table (obj_cgroup_may_zswap calls and the flushes
 * they did, 281,017 -> 80,445 for 198,977 calls with the ratelimit): here
 * per depth, design (a) before, (b) after, from the runs above.
 */
static void scn_flush_calls_table(const struct scn_ctx *c, const struct scn_flush_calls *fc, int nd)
{
	static const char *const rows[2] = { "before ratelimit", "after ratelimit" };
	const struct bench_seed_fig *calls[2], *fl[2];
	int lw, nw, rw;

	if (!c->table)
		return;
	for (int b = 0; b < 2; b++) {
		calls[b] = bench_seed_find(&c->seeds, "flush_calls", rows[b], "may_zswap_calls");
		fl[b] = bench_seed_find(&c->seeds, "flush_calls", rows[b], "flush_calls");
	}
	scn_note(c, "seed 000's flush-calls table: store attempts (may_zswap calls) and flushes, rstat_force"
		 " before the ratelimit, rstat_ratelimit after (flushes: any cause, the periodic flusher's too)");
	/* the default table fits 100 columns (issue 31); --wide: today's widths */
	lw = c->wide ? 28 : 25;
	nw = c->wide ? 14 : 12;
	rw = c->wide ? 12 : 10;
	printf("%-*s %*s %*s %*s %*s %*s %*s\n", lw, "flush calls", nw, "may_zswap", nw, "flushes", rw,
	       "flush/call", nw, "seed calls", nw, "seed flushes", rw + !c->wide, "seed f/call");
	for (int d = 0; d < nd; d++) {
		if (!fc[d].have)
			continue;
		for (int b = 0; b < 2; b++) {
			char label[64], sc[32] = "-", sf[32] = "-", sr[32] = "-";

			snprintf(label, sizeof(label), "depth %d %s", scn_store_depths[d], rows[b]);
			if (calls[b] && fl[b] && calls[b]->lo > 0) {
				scn_fmt(sc, sizeof(sc), calls[b]->lo);
				scn_fmt(sf, sizeof(sf), fl[b]->lo);
				snprintf(sr, sizeof(sr), "%.3f", fl[b]->lo / calls[b]->lo);
			}
			printf("%-*s %*.0f %*.0f %*.3f %*s %*s %*s\n", lw, label, nw, fc[d].attempts[b], nw,
			       fc[d].flushes[b], rw, fc[d].attempts[b] > 0 ? fc[d].flushes[b] / fc[d].attempts[b] : NAN,
			       nw, sc, nw, sf, rw + !c->wide, sr);
		}
	}
	fflush(stdout);
}

/* Refused attempts, % of attempts (refusals of the median-throughput rep over the median attempts). */
static double scn_refused_share(const struct bench_summary *s, int *noisy)
{
	*noisy = 0;
	return s->med.ops ? 100.0 * (double)s->med.charge_fail / (double)s->med.ops : NAN;
}

void scn_store(struct scn_ctx *c, enum bench_workload w)
{
	const int workers = scn_workers(c, SCN_SEED_WORKERS);
	const int nd = (int)(sizeof(scn_store_depths) / sizeof(scn_store_depths[0]));
	/* the flush-calls table: design (a), before the ratelimit, against (b), after it */
	const int fa = scn_algo_index(c, scn_designs[0].algo), fb = scn_algo_index(c, scn_designs[1].algo);
	struct scn_flush_calls fc[sizeof(scn_store_depths) / sizeof(scn_store_depths[0])];
	char buf[128];

	memset(fc, 0, sizeof(fc));
	snprintf(buf, sizeof(buf), "%d (the seed's 20%s) on a chain's leaf", workers,
		 workers < SCN_SEED_WORKERS ? ", capped at this machine's PUs" : "");
	scn_common_notes(c, buf);
	if (w == BENCH_STORE)
		scn_note(c, "a store (--workload store): the limit check at every level through each algorithm's"
			 " own read (as obj_cgroup_may_zswap), the charge of one 4 KiB page and +1 page of a second"
			 " stat (MEMCG_ZSWAPPED), its free later; limits %.2g x what the workers hold (--limit-headroom;"
			 " >= 1: never hit by an exact design, the seed's case; refused %%: attempts refused)",
			 c->limit_headroom);
	else
		scn_note(c, "a store here: one update (+1 or -1 on the leaf, every ancestor's view included): the"
			 " update path with no limit to check, half of the kernel's store (it updates two stats)");
	scn_note(c, "row \"depth D\": CPU time per store, ns (task-clock / stores, which a wait asleep does not"
		 " count: the seed's unit is kernel CPU time per zswap store); \"wall\": wall time per store"
		 " (threads x window / stores)");
	if (!c->base.work_ns)
		scn_note(c, "the seed's stores also compressed a page (~35 us); here only the counter's cost is"
			 " timed (--work-ns adds a stand-in), so no ours/seed: a ratio of unlike quantities");
	else
		scn_note(c, "the seed's stores also compressed a page (~35 us); here --work-ns %lld ns of private"
			 " work stands in for it, so ours/seed compares like with like", (long long)c->base.work_ns);
	scn_header(c, "ns/store", 18);
	for (int d = 0; d < nd; d++) {
		int stop = scn_measure_chain(c, w, scn_store_depths[d], workers);
		const struct scn_seedref ref = { .row = NULL, .unlike = !c->base.work_ns };
		struct scn_seedref seed = ref;
		char label[32], row[32];

		snprintf(label, sizeof(label), "depth %d", scn_store_depths[d]);
		snprintf(row, sizeof(row), "depth %d", scn_store_depths[d]);
		seed.row = row;
		scn_row_seed(c, label, 18, scn_cpu_ns, &seed);
		snprintf(label, sizeof(label), "depth %d wall", scn_store_depths[d]);
		scn_row(c, label, 18, scn_wall_ns);
		if (w == BENCH_STORE) {
			snprintf(label, sizeof(label), "depth %d refused %%", scn_store_depths[d]);
			scn_row(c, label, 18, scn_refused_share);
		}
		if (w == BENCH_STORE && fa >= 0 && fb >= 0 && c->sums[fa].k && c->sums[fb].k) {
			const struct bench_summary *sa = &c->sums[fa], *sb = &c->sums[fb];

			fc[d].have = 1;
			fc[d].attempts[0] = (double)sa->med.ops;
			fc[d].attempts[1] = (double)sb->med.ops;
			fc[d].flushes[0] = (double)sa->med.flush.flushes;
			fc[d].flushes[1] = (double)sb->med.flush.flushes;
		}
		if (stop)
			break;
	}
	if (w == BENCH_STORE)
		scn_flush_calls_table(c, fc, nd);
}


/*
 * Projected: 20 workers, chain:D, each store paced by the seed's ~35 us of
 * other work, every design of the seed; the posted ns/store beside, from
 * tables.csv (table store_limit or store_nolimit).
 */
static double scn_store_posted(const struct scn_proj *p, int limit, int depth, int k)
{
	const struct bench_seed_fig *g;
	char row[32];

	snprintf(row, sizeof(row), "depth %d", depth);
	g = bench_seed_find(p->seeds, limit ? "store_limit" : "store_nolimit", row, scn_designs[k].column);
	return g ? g->lo : NAN;
}

/*
 * The projected counter cost of design k on chain:depth: ns per store,
 * overlapped and serial.  The measured run's definition (scn_store through
 * scn_measure_chain): its workload, chain:depth, the seed's 20 workers and
 * the scenario's headroom (SCN_STORE_HEADROOM: never hit by an exact
 * design, the seed's case), where the projection used to take the charge
 * workload's 3/4 and hit its limits.
 */
static int scn_store_one(const struct scn_proj *p, int limit, int k, int depth, int64_t work, double *lo,
			 double *hi, char *err, size_t errlen)
{
	struct proj_result r;
	char shape[32], row[32];
	const struct scn_proj_cfg pc = {
		.algo = scn_designs[k].algo, .workload = limit ? BENCH_STORE : BENCH_UPDATE, .shape = shape,
		.threads = SCN_SEED_WORKERS, .placement = "scatter", .work_ns = work, .ops = p->ops,
		.warmup = p->ops / 10, .limit_headroom = p->s->headroom, .row = row, .column = scn_designs[k].column,
	};
	int ret;

	snprintf(shape, sizeof(shape), "chain:%d", depth);
	snprintf(row, sizeof(row), "depth %d", depth);
	/* a refusal is the cell's, not the table's: scn_project_run wrote its line, the caller goes on */
	if ((ret = scn_project_run(p, &pc, &r, err, errlen)))
		return ret;
	*lo = r.ns_overlap / (double)r.ops;
	*hi = r.ns_serial / (double)r.ops;
	return 0;
}

void scn_store_project(const struct scn_proj *p, int limit)
{
	const int nd = (int)(sizeof(scn_store_depths) / sizeof(scn_store_depths[0]));
	const int64_t work = 35000;	/* the posted depth-1 store minus nothing: compression and the rest */
	const char *algos[4];
	double first[4] = { 0 };
	char err[4][512];
	int bad[4];

	for (int k = 0; k < 4; k++)
		algos[k] = scn_designs[k].algo;
	printf("# seed 000 store %s limit: 20 workers, chain:D, placement scatter; every store followed by %lld ns of\n"
	       "# private work (the seed's ~35 us per store), counters' cost projected; flush period the algorithm's (2 s)\n",
	       limit ? "with a" : "without", (long long)work);
	if (limit)
		printf("# limits %.2g x what the workers hold (the measured scenario's); a store projected as a charge (the\n"
		       "# model has no store workload: its limit check's reads and the second stat are not projected)\n",
		       p->s->headroom);
	scn_proj_kernel_note(algos, 4);
	printf("# cell: projected counter ns/store overlap..serial | projected total (work + serial) | posted ns/store\n");
	printf("%-9s", "depth");
	for (int k = 0; k < 4; k++)
		printf(" | %-44s", scn_designs[k].column);
	printf("\n");
	for (int d = 0; d < nd; d++) {
		printf("depth %-3d", scn_store_depths[d]);
		for (int k = 0; k < 4; k++) {
			double lo, hi;
			char cell[64];

			bad[k] = scn_store_one(p, limit, k, scn_store_depths[d], work, &lo, &hi, err[k], sizeof(err[k]));
			if (bad[k])
				snprintf(cell, sizeof(cell), "not projected | - | %.0f",
					 scn_store_posted(p, limit, scn_store_depths[d], k));
			else
				snprintf(cell, sizeof(cell), "%.0f..%.0f | %.0f | %.0f", lo, hi, hi + (double)work,
					 scn_store_posted(p, limit, scn_store_depths[d], k));
			if (!d)
				first[k] = bad[k] ? NAN : hi + (double)work;
			printf(" | %-44s", cell);
		}
		printf("\n");
		for (int k = 0; k < 4; k++)
			if (bad[k])
				printf("#   %s depth %d not projected: %s\n", scn_designs[k].algo, scn_store_depths[d],
				       err[k]);
		fflush(stdout);
	}
	if (p->json)
		return;	/* the growth line projects depth 32 again: its lines are the table's */
	printf("# growth depth 32 / depth 1, projected total vs posted:");
	for (int k = 0; k < 4; k++) {
		double lo, hi;

		if (scn_store_one(p, limit, k, 32, work, &lo, &hi, err[k], sizeof(err[k])))
			hi = NAN;
		printf(" %s x%.2f vs x%.2f;", scn_designs[k].algo, (hi + (double)work) / first[k],
		       scn_store_posted(p, limit, 32, k) / scn_store_posted(p, limit, 1, k));
	}
	printf("\n");
}

static void scn_store_limit_run(struct scn_ctx *c)
{
	scn_store(c, BENCH_STORE);
}

static void scn_store_limit_project(const struct scn_proj *p)
{
	scn_store_project(p, 1);
}

const struct scn scn_zswap_store_limit = {
	.name = "zswap-store-limit",
	.seed = "000_2f7e5ca340efc1f8.txt",
	.what = "CPU time per store that checks the limit at every level, depths 1-32",
	.seed_table = "store_limit",
	.seed_machine = "20 workers",
	.seed_cpus = 80,
	.opts = SCN_OPT_ENGINE | SCN_OPT_WORK_NS | SCN_OPT_LIMIT_HEADROOM | SCN_OPT_NO_CAP,
	.headroom = SCN_STORE_HEADROOM,
	.run = scn_store_limit_run,
	.project = scn_store_limit_project,
};
