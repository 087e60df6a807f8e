/* SPDX-License-Identifier: MIT */
/*
 * cmd-project.c - `ctrbench project`: the coherence projection of
 * project/ (docs/projection.md) on a topology, its validation against known
 * answers and against what this machine (or a results file) measured.
 * Every figure it prints is projected and says so, with its calibration.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../project/proj.h"
#include "../topology/topo.h"
#include "calprobe.h"
#include "cli.h"
#include "project.h"
#include "results.h"
#include "run.h"
#include "schema.h"
#include "setup.h"

/* ---- one projection, printed ---- */

struct pj_opts {
	const char *algos, *workload, *shape, *placement, *topology, *calib_path, *options;
	int threads, readers, json, flush_period_ms, read_node;
	long ops, reads, warmup;
	int64_t work_ns, read_interval_ns;
	int slots, nr_stats, no_jitter;	/* --slots (0: bench_proj_default_slots), --nr-stats, --no-jitter */
	long seed;			/* --seed */
	double slice_ms;		/* --slice-ms */
	int preempt_none;		/* --preempt none */
	const char *names[BENCH_MAX_ALGOS];	/* --algo, parsed (pj_parse_algo_list) */
	int nr_names;
	int nr_pus_used;		/* distinct PUs the placement puts the threads on (pj_check_args) */
	const char *setup_opt;		/* the first of --slots .. --preempt given (the modes refuse them) */
};

/* Updaters, at most: run's --threads limit (BENCH_MAX_THREADS there). */
#define PJ_MAX_THREADS 4096
/*
 * Readers, at most: seed 004's storm is 10,000 readers on 384 CPUs, more
 * threads than PUs, which the model's scheduler time-shares (issue 27.3).
 * Not a bound on the model's cost: a read walks every slot, so a readers
 * projection's work grows as readers x slots x reads.
 */
#define PJ_MAX_READERS 16384
/*
 * Slots, at most: run's limit is the kernel's NR_CPUS (8192), but here
 * every thread owns a slot and threads and readers together reach
 * PJ_MAX_THREADS + PJ_MAX_READERS.
 */
#define PJ_MAX_SLOTS (PJ_MAX_THREADS + PJ_MAX_READERS)
/*
 * --nr-stats, at most: ten times the kernel's memcg stat items (about 100),
 * so a tree of kernel-sized nodes fits with room; each is a 64-bit word in
 * every slot of every node, so the model's memory grows with it.
 */
#define PJ_MAX_STATS 1024
/* --slice-ms, at most: a second (CFS's slices are milliseconds; more says nothing a time slice would). */
#define PJ_MAX_SLICE_MS 1000.0

/* --workload W by the harness's names (bench/workload.h; proj_can_run says which the model runs); dies on others. */
static enum bench_workload pj_workload(const char *w)
{
	const int k = bench_workload_find(w);

	if (k < 0)
		die("project: unknown --workload '%s' (update, charge or readers)", w);
	return (enum bench_workload)k;
}

/* Updaters' readers: the readers workload's, none for the others. */
static int pj_readers(const struct pj_opts *o)
{
	return strcmp(o->workload, "readers") ? 0 : o->readers;
}

/* --slots, --nr-stats, the jitter and the scheduler as the projection assumes them (issue 27.3, 27.7). */
static void pj_print_setup(const struct pj_opts *o, const struct topo *topo)
{
	const int n = o->threads + pj_readers(o);
	const int slots = o->slots ? o->slots : bench_proj_default_slots(topo, o->threads, pj_readers(o));

	printf("# slots %d (%s); %d stat%s per node\n", slots,
	       o->slots ? "--slots" : slots == topo_nr_pus(topo) && slots >= n
			? "possible CPUs: the topology's PUs, as run takes this machine's"
			: "one per thread: more threads than the topology's PUs",
	       o->nr_stats, o->nr_stats == 1 ? "" : "s");
	if (pj_readers(o) && o->no_jitter)
		printf("# readers' pauses: each exactly --read-interval-us (--no-jitter)\n");
	else if (pj_readers(o))
		printf("# readers' pauses: each uniform in [0.5, 1.5] x --read-interval-us, seed %ld (--seed)\n",
		       o->seed);
	if (n >= topo_nr_pus(topo))
		printf("# start gate: a worker on every PU, so worker 0 starts %.0f ns after the others: the harness's "
		       "main thread opens the gate on its PU (assumption: ~2 us, two context switches and two syscalls)\n",
		       PROJ_GATE_NS);
	if (o->nr_pus_used < n)
		printf("# %d virtual threads on %d PUs: the scheduler time-shares them (slice %g ms, %s)\n", n,
		       o->nr_pus_used, o->slice_ms,
		       o->preempt_none ? "ending only between operations: --preempt none" : "ending at any access");
}

/* The calibration's contention figures, each with its source (a probe here, a published figure, an assumption). */
static void pj_print_contention(const struct proj_calib *cal)
{
	printf("#   contention: burst %.1f RMWs (%s), wake-up %.0f ns (%s), pause %.1f ns (%s), mlp %d (%s), "
	       "mutex spin %.0f ns (%s)\n", cal->burst, cal->burst_src, cal->wake_ns, cal->wake_src, cal->pause_ns,
	       cal->pause_src, cal->mlp, cal->mlp_src, cal->mutex_spin_ns, cal->mutex_spin_src);
}

static void pj_print_header(const struct pj_opts *o, const struct topo *topo, const struct proj_calib *cal)
{
	printf("# PROJECTED (model, not measured): coherence projection of libctr's own code, docs/projection.md\n");
	printf("# calibration: %s\n", cal->source);
	printf("#   one-way ns: smt %.0f, ccx %.0f, xccx %.0f (home on socket) / xccx_rh %.0f (home on the other), "
	       "socket %.0f, dram %.0f; hit %.1f, RMW hit %.1f\n", cal->ns[PROJ_C_SMT], cal->ns[PROJ_C_CCX],
	       cal->ns[PROJ_C_XCCX], cal->ns[PROJ_C_XCCX_RH], cal->ns[PROJ_C_SOCKET], cal->ns[PROJ_C_DRAM], cal->hit_ns,
	       cal->hit_rmw_ns);
	pj_print_contention(cal);
	proj_capacity_print(topo, cal);
	printf("# topology: %s (%d PUs); placement %s; %d updaters", topo_spec(topo), topo_nr_pus(topo), o->placement,
	       o->threads);
	if (!strcmp(o->workload, "readers"))
		printf(" + %d readers (%ld reads each)", o->readers, o->reads);
	printf("; workload %s; shape %s; %ld ops per updater after %ld of warmup\n", o->workload, o->shape, o->ops,
	       o->warmup);
	pj_print_setup(o, topo);
	printf("%-22s %8s %8s %8s %8s %8s %8s %8s %22s %12s  %s\n", "algo (projected)", "xfer/op", "smt", "ccx",
	       "xccx", "xccx_rh", "socket", "dram", "ns/op overlap..serial", "lock cont/s", "lock (most wait)");
}

static void pj_print_row(const char *algo, const struct proj_result *r)
{
	const double ops = r->ops ? (double)r->ops : 1;
	const struct bench_proj_lock l = bench_proj_top_lock(r);

	printf("%-22s %8.3f", algo, pj_total(r->xfer) / ops);
	for (int k = 0; k < PROJ_NR_CLASSES; k++)
		printf(" %8.3f", r->xfer[k] / ops);
	printf(" %10.1f..%-11.1f %12.1f  %s\n", r->ns_overlap / ops, r->ns_serial / ops,
	       bench_proj_per_s(r, (double)l.contended), *l.role ? l.role : "-");
	if (r->reads) {
		const double n = (double)r->reads;

		printf("%-22s %8.3f", "  reads", pj_total(r->rxfer) / n);
		for (int k = 0; k < PROJ_NR_CLASSES; k++)
			printf(" %8.3f", r->rxfer[k] / n);
		printf(" %10.1f..%-11.1f %12s\n", r->rns_overlap / n, r->rns_serial / n, "(per read)");
		printf("%-22s p50 %.1f  p99 %.1f  max %.1f ns (serial)\n", "  read latency", r->rns_p50, r->rns_p99,
		       r->rns_max);
	}
}

/*
 * After the main table: algo's locks by role, each per virtual second (wait
 * and hold summed over the threads, so above 1 when several wait at once),
 * the one with the most wait named, and what the model itself cost.
 */
static void pj_print_locks(const char *algo, const struct proj_result *r, double secs)
{
	if (r->starved)
		printf("# STARVED, %s: the run stopped with %d thread%s short of its measured operations: %s; the "
		       "figures are of the operations done until then\n", algo, r->starved, r->starved == 1 ? "" : "s",
		       r->starved_why);
	printf("# locks (projected), %s: per virtual second of %.3g s\n", algo, r->elapsed_ns / 1e9);
	if (!r->nr_locks) {
		printf("#   %s\n", r->lock_acq ? "the model gave no table by role" : "none taken");
	} else {
		const struct bench_proj_lock l = bench_proj_top_lock(r);

		printf("  %-40s %14s %14s %12s %12s\n", "role", "acquisitions/s", "contended/s", "wait s/s",
		       "hold s/s");
		for (int i = 0; i < r->nr_locks && i < PROJ_MAX_LOCK_STATS; i++) {
			const struct proj_lock_stat *k = &r->locks[i];

			printf("  %-40s %14.1f %14.1f %12.6f %12.6f\n", k->role, bench_proj_per_s(r, (double)k->acq),
			       bench_proj_per_s(r, (double)k->contended), bench_proj_per_s(r, k->wait_ns / 1e9),
			       bench_proj_per_s(r, k->hold_ns / 1e9));
		}
		printf("# %s: most wait: %s, %.6f s/s waited, %.1f contended acquisitions/s\n", algo, l.role,
		       bench_proj_per_s(r, l.wait_ns / 1e9), bench_proj_per_s(r, (double)l.contended));
	}
	/* the model's real seconds vary from run to run: JSON's model_seconds has them, the text stays byte-identical */
	(void)secs;
	printf("# model: %s: %ld virtual-thread switches (its own cost, not the machine's)\n", algo, r->switches);
}

/* One JSON line of algo's projection as o asked for it (bench_proj_print_json). */
static void pj_print_json(const struct pj_opts *o, const char *algo, const struct topo *topo,
			  const struct proj_calib *cal, const struct proj_result *r, double secs)
{
	const struct bench_proj_line l = {
		.algo = algo, .workload = o->workload, .shape = o->shape, .placement = o->placement,
		.threads = o->threads, .readers = pj_readers(o), .topo = topo, .cal = cal,
		.slots = o->slots ? o->slots : bench_proj_default_slots(topo, o->threads, pj_readers(o)),
		.nr_stats = o->nr_stats, .seed = o->seed, .jitter = !o->no_jitter, .slice_ms = o->slice_ms,
		.preempt_none = o->preempt_none, .nr_pus_used = o->nr_pus_used,
	};

	bench_proj_print_json(stdout, &l, r, secs, NULL);
}

/* ---- validation ---- */

static int pj_flag(double ratio)
{
	return !(ratio >= 0.5 && ratio <= 2.0);
}

/*
 * This core's hit costs, measured by private loops (not the algorithms'
 * code), ns per access, the least of the batches (1-2 ms each here).
 * Hits: a walk's levels, as the model counts them: an offset loaded, then
 * the word at it loaded and stored (an add to memory), 8 words of private
 * lines, independent of each other.  (The loop before summed 8 loads into one register: a chain of
 * adds, one a cycle, which is what it timed: 0.25-0.42 ns an access here,
 * where percpu_hier's chain:8 update, 24 such accesses, measured 3.3-5.0 ns
 * in the same runs.)  RMW: a locked add to a private word.
 */
static void pj_hit_ns(double *hit, double *rmw, int batches)
{
	static _Atomic long mine[8] __attribute__((aligned(64)));
	/* 8 words a line apart; the offsets behind a volatile pointer, loaded every time as a walk's */
	static volatile unsigned long w[8 * 8] __attribute__((aligned(64)));
	static const int off[8] = { 0, 8, 16, 24, 32, 40, 48, 56 };
	const int *volatile offp = off;
	const long iters = 200000;

	*hit = *rmw = -1;
	for (int k = 0; k < batches; k++) {
		struct timespec t0, t1, t2;
		double a, b;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (long i = 0; i < iters; i++) {
			const volatile int *o = offp;

			for (int j = 0; j < 8; j++)
				w[o[j]] += 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		for (long i = 0; i < iters; i++)
			atomic_fetch_add_explicit(&mine[i & 7], 1, memory_order_relaxed);
		clock_gettime(CLOCK_MONOTONIC, &t2);
		a = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (iters * 24.0);
		b = ((double)(t2.tv_sec - t1.tv_sec) * 1e9 + (double)(t2.tv_nsec - t1.tv_nsec)) / (double)iters;
		if (*hit < 0 || a < *hit)
			*hit = a;
		if (*rmw < 0 || b < *rmw)
			*rmw = b;
	}
}

/* Known answers: transfers per op the model must give exactly (within 2%). */
static int pj_validate_known(const struct topo *topo, const struct proj_calib *cal)
{
	/* per_burst: the answer is want / burst (an owner keeps a line for its burst of back-to-back RMWs) */
	static const struct { const char *what, *algo, *shape; int threads; double want; int per_burst; } k[] = {
		{ "private counter (percpu_hier, own slot)", "percpu_hier", "chain:1", 2, 0, 0 },
		{ "one shared atomic, 2 threads: handed over once per burst (1/burst)", "atomic_tree", "chain:1", 2, 1, 1 },
		{ "false-shared pair: 2 threads storing to their own word of one line", "=false-shared", "chain:1", 2, 1, 0 },
		{ "the same pair padded to a line each", "=padded", "chain:1", 2, 0, 0 },
		{ "atomic_tree depth 4, 2 threads", "atomic_tree", "chain:4", 2, 4, 0 },
		{ "atomic_tree depth 8, 2 threads", "atomic_tree", "chain:8", 2, 8, 0 },
		{ "percpu_hier depth 8, 2 threads", "percpu_hier", "chain:8", 2, 0, 0 },
	};
	int bad = 0;

	printf("# validation 1: patterns with known answers (transfers per update, projected)\n");
	printf("%-66s %10s %10s %s\n", "pattern", "projected", "expected", "");
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		struct proj_result r;
		double got, want = k[i].per_burst ? k[i].want / cal->burst : k[i].want;

		bench_project_one(&(const struct bench_proj_req){ .algo = k[i].algo, .workload = BENCH_UPDATE,
				  .shape = k[i].shape, .threads = k[i].threads, .topo = topo, .placement = "compact",
				  .calib = cal, .ops = 2000, .warmup = 200, .seed = BENCH_PROJ_SEED }, &r, NULL);
		got = pj_total(r.xfer) / (double)r.ops;
		printf("%-66s %10.3f %10.3f %s\n", k[i].what, got, want,
		       fabs(got - want) <= 0.02 * (want > 1 ? want : 1) ? "ok" : "FAIL");
		bad += fabs(got - want) > 0.02 * (want > 1 ? want : 1);
	}
	return bad;
}

/* The configurations validation 2 measures here and projects: 1- and 2-thread runs. */
static const struct pj_here_case { const char *algo, *shape; int threads; } pj_here_cases[] = {
	{ "atomic_tree", "chain:1", 1 }, { "atomic_tree", "chain:8", 1 },
	{ "percpu_hier", "chain:8", 1 }, { "atomic_tree", "chain:1", 2 },
	{ "atomic_tree", "chain:8", 2 }, { "percpu_hier", "chain:8", 2 },
	{ "striped", "chain:4", 2 },
};
#define PJ_NR_HERE (sizeof(pj_here_cases) / sizeof(pj_here_cases[0]))

/* Validation 2's state: the machine, its calibration, what the runs so far found. */
struct pj_here {
	struct bench_config cfg;	/* the runs' configuration, this machine's topology */
	struct proj_calib cal;		/* the given calibration, with what was measured here in place */
	int pus[2], have_pus;		/* the compact pair the probes ran on */
	double hand;			/* handovers per add of one shared atomic here (-1: not measured) */
	int spot;			/* cal's hits or transfer measured here: each row measures them again */
	int flagged;			/* rows outside 0.5-2x */
};

/* This machine's hit costs into cal (pj_hit_ns, the least of batches); 0, or -1 if the loops measured nothing. */
static int pj_here_hits(struct proj_calib *cal, int batches)
{
	double hit, rmw;

	pj_hit_ns(&hit, &rmw, batches);
	if (hit <= 0 || rmw <= 0)
		return -1;
	cal->hit_ns = hit;
	cal->hit_rmw_ns = rmw;
	return 0;
}

/* The model's class (enum proj_class) of the compact pair's transfer. */
static int pj_here_class(const struct pj_here *h)
{
	const int c = topo_class_of(h->cfg.topo, h->pus[0], h->pus[1]);

	return c == TOPO_CLASS_SMT ? PROJ_C_SMT : c == TOPO_CLASS_CCX ? PROJ_C_CCX :
	       c == TOPO_CLASS_REMOTE ? PROJ_C_SOCKET : PROJ_C_XCCX;
}

/*
 * The one-way transfer between the compact pair, timed over the ping-pong's
 * hops alone (calprobe.c), into cal as its class's figure: ns, or <= 0 (cal
 * untouched).  *cls: the pair's class (topo's).
 */
static double pj_here_transfer(struct pj_here *h, struct proj_calib *cal, struct calprobe_how *how, int *cls)
{
	const int pc = pj_here_class(h);
	const double ow = calprobe_one_way_ns(h->cfg.topo, h->pus[0], h->pus[1], how);

	*cls = topo_class_of(h->cfg.topo, h->pus[0], h->pus[1]);
	if (ow > 0) {
		cal->ns[pc] = ow;
		if (pc == PROJ_C_XCCX)
			cal->ns[PROJ_C_XCCX_RH] = ow;
	}
	return ow;
}

/*
 * With the default calibration, this machine's own figures in its place:
 * its hit costs, and the one-way transfer between the two compact PUs (its
 * class's figure).  h->spot says they were measured here, so that each row
 * measures them again around its run (pj_here_row).
 */
static void pj_here_calibrate(struct pj_here *h)
{
	struct proj_calib *cal = &h->cal;

	if (!pj_here_hits(cal, 5)) {
		h->spot = 1;
		snprintf(cal->source, sizeof(cal->source),
			 "this machine: hits %.2f ns, RMW hit %.2f ns, measured now by private loops (least of 5)",
			 cal->hit_ns, cal->hit_rmw_ns);
		snprintf(cal->name, sizeof(cal->name), "this machine's loops");
	}
	if (h->have_pus) {
		struct calprobe_how how;
		int c;
		double ow = pj_here_transfer(h, cal, &how, &c);

		printf("# probe transfer: PU %d <-> PU %d (class %s): %.1f ns one way, a load/store ping-pong timed over "
		       "its hops alone (%s)\n", h->pus[0], h->pus[1], topo_class_name(c), ow, how.why);
		if (ow > 0) {
			h->spot = 1;
			snprintf(cal->source, sizeof(cal->source),
				 "this machine: load/store ping-pong PU %d <-> PU %d (class %s) %.1f ns one way (median, "
				 "%.60s); hits %.2f ns, RMW hit %.2f ns by private loops (least of 5); all measured now",
				 h->pus[0], h->pus[1], topo_class_name(c), ow, how.why, cal->hit_ns, cal->hit_rmw_ns);
			snprintf(cal->name, sizeof(cal->name), "this machine's ping-pong and loops");
		}
	}
}

/*
 * The contention figures this machine's probes measure (calprobe.c), in
 * place of the defaults whatever the given calibration (a c2c file has
 * none): the burst of one shared atomic between the compact pair, a futex
 * wake-up between them, a PAUSE.  mlp and the mutex's spin keep theirs.
 */
static void pj_here_contention(struct pj_here *h)
{
	struct proj_calib *cal = &h->cal;
	struct calprobe_how how;
	struct calprobe_burst b;
	double ns;
	int n;

	ns = calprobe_pause_ns(h->cfg.topo, h->have_pus ? h->pus[0] : 0, &how);
	printf("# probe pause: %.1f ns per PAUSE on PU %d, the median of 31 batches of 1000 (%s)\n", ns,
	       h->have_pus ? h->pus[0] : 0, how.why);
	if (ns > 0) {
		cal->pause_ns = ns;
		snprintf(cal->pause_src, sizeof(cal->pause_src), "this machine: PAUSE probe, %.60s", how.why);
	}
	if (!h->have_pus)
		return;
	if (!calprobe_burst(h->cfg.topo, h->pus[0], h->pus[1], &b, &how)) {
		printf("# probe burst: PU %d and PU %d each lock xadd one word up to %ld times: %.3f handovers per add "
		       "(median of %d runs, %.3f-%.3f), a burst of %.1f adds per handover, %.1f ns per add (%s)\n",
		       h->pus[0], h->pus[1], b.adds, b.hand_per_add, b.runs, b.lo, b.hi, b.burst, b.ns_per_add, how.why);
		h->hand = b.hand_per_add;
		cal->burst = b.burst < 1 ? 1 : b.burst;
		snprintf(cal->burst_src, sizeof(cal->burst_src), "this machine: handover probe, %.60s", how.why);
	} else {
		printf("# probe burst: not measured (its threads could not be started or bound)\n");
	}
	ns = calprobe_wake_ns(h->cfg.topo, h->pus[0], h->pus[1], &n, &how);
	if (ns <= 0 || !n)
		printf("# probe wake-up: PU %d <-> PU %d futex ping-pong: not measured, no post found its waiter asleep "
		       "(%s); wake-up keeps %.0f ns (%s)\n", h->pus[0], h->pus[1], how.why, cal->wake_ns, cal->wake_src);
	else
		printf("# probe wake-up: PU %d <-> PU %d futex ping-pong: %.0f ns from post to the woken waiter running, "
		       "the median of %d wake-ups (%s)\n", h->pus[0], h->pus[1], ns, n, how.why);
	if (ns > 0 && n) {
		cal->wake_ns = ns;
		snprintf(cal->wake_src, sizeof(cal->wake_src), "this machine: futex wake-up probe, %.60s", how.why);
	}
}

/*
 * A row's hits measured for this many batches, 1-2 ms each: this guest's
 * speed moves in phases of about 100 ms (the same loop in a program of its
 * own, 400 batches in a row, took 0.21-0.30 or 0.40-0.55 ns an access, in
 * runs of tens of batches), and the least of 60 finds the fast phase where
 * one occurred around the run.
 */
#define PJ_ROW_HIT_BATCHES 60

/*
 * cal's speed figures measured again now: with the calibration measured
 * here (h->spot) the hit costs, and for a row of threads > 1 the transfer;
 * for such a row the burst too (measured here whatever the calibration).
 */
static void pj_here_speed(struct pj_here *h, int threads, struct proj_calib *cal)
{
	struct calprobe_how how;
	struct calprobe_burst b;
	int cls;

	*cal = h->cal;
	if (h->spot)
		(void)pj_here_hits(cal, PJ_ROW_HIT_BATCHES);
	if (threads < 2 || !h->have_pus)
		return;
	if (h->spot)
		(void)pj_here_transfer(h, cal, &how, &cls);
	if (!calprobe_burst(h->cfg.topo, h->pus[0], h->pus[1], &b, &how))
		cal->burst = b.burst < 1 ? 1 : b.burst;
}

/*
 * Case i measured here and projected, its row printed and counted.  The
 * speed figures (pj_here_speed) are measured again right before the run and
 * right after it, and the row is projected under each; the band is both
 * projections' (each overlap..serial) together.  Why: a loaded guest's
 * speed moves within seconds, more than any ratio this checks (the hit
 * loop's phases above; the ping-pong's hop 50 or 245 ns within one
 * validation, the burst with it), so figures measured once, before all the
 * rows, priced each row at whatever speed the machine had then.
 */
static void pj_here_row(struct pj_here *h, size_t i)
{
	const struct pj_here_case *k = &pj_here_cases[i];
	const struct bench_algo *ba = bench_algo_find(k->algo);
	struct bench_config *cfg = &h->cfg;
	struct proj_calib cb[2];
	struct bench_result br;
	const char *why;
	double lo = 0, hi = 0, ratio, meas;
	const int pair = k->threads > 1 && h->have_pus;	/* a row the pair's figures apply to */
	const int nc = h->spot || pair ? 2 : 1;
	char buf[64], speed[80];

	cfg->threads = k->threads;
	if (bench_shape_parse(k->shape, &cfg->shape, &why))
		die("project: %s", why);
	bench_setup_threads(cfg);
	memset(&br, 0, sizeof(br));
	pj_here_speed(h, k->threads, &cb[0]);
	if (bench_run_one(cfg, ba, &br))
		die("project --validate: %s would not run here", k->algo);
	pj_here_speed(h, k->threads, &cb[1]);
	for (int c = 0; c < nc; c++) {
		struct proj_result r;

		bench_project_one(&(const struct bench_proj_req){ .algo = k->algo, .workload = BENCH_UPDATE,
				  .shape = k->shape, .threads = k->threads, .topo = cfg->topo,
				  .placement = cfg->placement, .calib = &cb[c], .ops = 20000, .warmup = 2000,
				  .seed = BENCH_PROJ_SEED }, &r, NULL);
		if (!c || r.ns_overlap / (double)r.ops < lo)
			lo = r.ns_overlap / (double)r.ops;
		if (!c || r.ns_serial / (double)r.ops > hi)
			hi = r.ns_serial / (double)r.ops;
	}
	/*
	 * The model has no OS: set against it the CPU time per op
	 * (task-clock), which leaves out the time other jobs had the
	 * CPU; the wall figure is printed beside it.
	 */
	meas = br.cpu_ns_per_op > 0 ? br.cpu_ns_per_op : br.ns_per_op;
	/* measured against the band: inside it is ratio 1, outside the distance to its nearer end */
	ratio = meas < lo ? meas / lo : meas > hi ? meas / hi : 1.0;
	snprintf(buf, sizeof(buf), "%.1f..%.1f", lo, hi);
	if (h->spot && pair)
		snprintf(speed, sizeof(speed), "hit %.2f/%.2f hop %.0f/%.0f burst %.1f/%.1f", cb[0].hit_ns,
			 cb[1].hit_ns, cb[0].ns[pj_here_class(h)], cb[1].ns[pj_here_class(h)], cb[0].burst, cb[1].burst);
	else if (h->spot)
		snprintf(speed, sizeof(speed), "hit %.2f/%.2f", cb[0].hit_ns, cb[1].hit_ns);
	else if (pair)
		snprintf(speed, sizeof(speed), "burst %.1f/%.1f (else the given)", cb[0].burst, cb[1].burst);
	else
		snprintf(speed, sizeof(speed), "(the given calibration)");
	/*
	 * A contended line is compared as any other: the model keeps it for
	 * the burst this machine's probe measured (the calibration), as the
	 * cores here do, so a 2-thread shared atomic is no exception.
	 */
	printf("%-12s %-8s %3d %9.1f %9.1f %24s %10.2f  %-38s %s\n", k->algo, k->shape, k->threads,
	       br.ns_per_op, meas, buf, ratio, speed, pj_flag(ratio) ? "OUTSIDE 0.5-2x" : "");
	h->flagged += pj_flag(ratio);
	bench_result_free(&br);
	free(cfg->pus);
	free(cfg->slot_node);
	free(cfg->slot_l3);
	cfg->pus = cfg->slot_node = cfg->slot_l3 = NULL;
	bench_shape_free(&cfg->shape);
}

/* This machine: measure 1- and 2-thread runs, project them on this machine's topology. */
static int pj_validate_here(const struct proj_calib *given, int ms)
{
	struct pj_here h = { .cal = *given, .hand = -1 };
	/* counted before any run: the runs bind this thread, which narrows its affinity */
	const int cpus = topo_nr_cpus();
	char err[128];

	h.cfg.workload = BENCH_UPDATE;
	h.cfg.duration_ms = ms;
	h.cfg.warmup_ms = ms / 4;
	h.cfg.reps = 1;
	h.cfg.read_node = BENCH_READ_RANDOM;
	bench_setup_machine(&h.cfg, NULL, NULL);
	h.have_pus = cpus >= 2 && !topo_place(h.cfg.topo, "compact", 2, h.pus, NULL, err, sizeof(err));
	printf("# validation 2: this machine, measured (%d ms, 1 rep) vs projected on its own topology\n", ms);
	if (!strncmp(given->source, "default", 7))
		pj_here_calibrate(&h);
	pj_here_contention(&h);
	printf("# calibration: %s\n", h.cal.source);
	pj_print_contention(&h.cal);
	proj_capacity_print(h.cfg.topo, &h.cal);
	if (h.hand >= 0)
		printf("# handovers: 2 threads adding to one shared atomic here hand its line over %.3f times per add, "
		       "a burst of %.1f adds (measured now; the model keeps a contended line for that burst)\n",
		       h.hand, h.cal.burst);
	printf("%-12s %-8s %3s %9s %9s %24s %10s  %-38s\n", "algo", "shape", "thr", "wall ns", "CPU ns",
	       "projected ns overlap..serial", "meas/proj", "speed before/after the run");
	for (size_t i = 0; i < PJ_NR_HERE; i++)
		if (pj_here_cases[i].threads <= cpus)
			pj_here_row(&h, i);
	printf("# meas/proj: measured CPU ns/op over the nearer end of the projected band (1.00: inside it), the band "
	       "the row's projections under the speed figures measured right before and right after its run; "
	       "%d outside 0.5-2x\n", h.flagged);
	bench_setup_release(&h.cfg);
	return h.flagged;
}

/* 1 if o->names (a parsed --algo) holds algo, or --algo was not given. */
static int pj_algo_wanted(const struct pj_opts *o, const char *algo)
{
	if (!o->algos)
		return 1;
	for (int i = 0; i < o->nr_names; i++)
		if (!strcmp(o->names[i], algo))
			return 1;
	return 0;
}

struct pj_against_row {
	const char *algo, *wl, *shape, *pl;	/* borrowed from the file's objects */
	int threads;
	int64_t work_ns;
	double meas, lo, hi;
};

/*
 * --against FILE: each measured update or charge line of FILE (of --algo's
 * algorithms, if given) beside its projection on --topology.  FILE is read
 * as every results reader reads it (bench_results_load: its schema, no key
 * twice, each field in range), and every line is checked (proj_can_run)
 * before anything is printed, so a line the projection refuses leaves
 * stdout empty; then each row is printed as its projection ends (a long
 * one shows the rows before it at once, and a SIGINT keeps them).
 */
static int pj_against(const char *path, const struct pj_opts *o, const struct topo *topo,
		      const struct proj_calib *cal, long ops)
{
	int flagged = 0, n = 0, not_regular;
	char err[256];
	FILE *f = bench_fopen_regular(path, &not_regular);
	struct bench_results res;
	struct pj_against_row *rows;

	if (not_regular)
		die("project: --against '%s' is not a regular file", path);
	if (!f)
		die("project: --against '%s': %s", path, strerror(errno));
	fclose(f);
	bench_results_load(path, 0, &res);
	if (!res.n)
		die("project: --against '%s' holds no result line the projection can take (update or charge)", path);
	bench_results_check_partial(&res, path, "project --against");
	rows = bench_xcalloc((size_t)res.n, sizeof(*rows));
	for (int i = 0; i < res.n; i++) {
		json_t *l = res.line[i].obj;
		struct pj_against_row *w = &rows[n];

		if (json_object_get(l, "kind"))
			continue;	/* a projected or c2c line: nothing measured to set beside a projection */
		w->algo = json_string_value(json_object_get(l, "algo"));
		w->wl = json_string_value(json_object_get(l, "workload"));
		w->shape = json_string_value(json_object_get(l, "shape"));
		w->pl = json_string_value(json_object_get(l, "placement"));
		w->threads = (int)json_integer_value(json_object_get(l, "threads"));
		w->meas = json_number_value(json_object_get(l, "ns_per_op"));
		if (!w->pl)
			w->pl = "compact";
		if (!w->algo || !w->wl || !w->shape || w->threads < 1 || w->meas <= 0 ||
		    (strcmp(w->wl, "update") && strcmp(w->wl, "charge")) || !pj_algo_wanted(o, w->algo) ||
		    proj_can_run(w->algo, bench_proj_raw(w->algo), pj_workload(w->wl), 0, err, sizeof(err)))
			continue;	/* not measured, not asked for, or not one the model runs (a baseline without a pattern) */
		w->work_ns = (int64_t)json_integer_value(json_object_get(l, "work_ns"));
		n++;
	}
	if (!n)
		die("project: --against '%s' holds no result line the projection can take (update or charge%s%s)", path,
		    o->algos ? ", of --algo " : "", o->algos ? o->algos : "");
	printf("# --against %s: measured ns/op of each result line vs projected on %s\n", path, topo_spec(topo));
	printf("# calibration: %s\n", cal->source);
	printf("%-18s %-8s %-10s %3s %-10s %12s %24s %10s\n", "algo", "workload", "shape", "thr",
	       "placement", "measured ns", "projected overlap..serial", "meas/proj");
	for (int i = 0; i < n; i++) {
		struct pj_against_row *w = &rows[i];
		struct proj_result r;
		double ratio;
		char buf[64];

		bench_project_one(&(const struct bench_proj_req){ .algo = w->algo, .workload = pj_workload(w->wl),
				  .shape = w->shape, .threads = w->threads, .topo = topo, .placement = w->pl,
				  .calib = cal, .work_ns = w->work_ns, .ops = ops, .warmup = ops / 10,
				  .seed = BENCH_PROJ_SEED }, &r, NULL);
		w->lo = r.ns_overlap / (double)r.ops;
		w->hi = r.ns_serial / (double)r.ops;
		ratio = w->meas < w->lo ? w->meas / w->lo : w->meas > w->hi ? w->meas / w->hi : 1.0;
		snprintf(buf, sizeof(buf), "%.1f..%.1f", w->lo, w->hi);
		printf("%-18s %-8s %-10s %3d %-10s %12.1f %24s %10.2f %s\n", w->algo, w->wl, w->shape, w->threads,
		       w->pl, w->meas, buf, ratio, pj_flag(ratio) ? "OUTSIDE 0.5-2x" : "");
		flagged += pj_flag(ratio);
	}
	printf("# %d lines, %d outside 0.5-2x\n", n, flagged);
	free(rows);
	bench_results_free(&res);
	return flagged;
}

static const char pj_help[] =
	"usage: ctrbench project --algo A[,B...] --shape S --threads N --topology SPEC [options]\n"
	"       ctrbench project --validate [--calibration FILE]\n"
	"       ctrbench project --against RESULTS.jsonl --topology SPEC [--calibration FILE]\n"
	"Projects libctr's real code (its loads, stores and RMWs, recorded by an instrumented copy) onto a\n"
	"MESI model of the topology.  Every figure is PROJECTED, not measured (docs/projection.md).\n"
	"  --algo LIST             algorithms, required (ctrbench list, shared_atomic and empty among\n"
	"                          them); all: libctr's algorithms\n"
	"  --workload W            update (default), charge or readers\n"
	"  --shape S               chain:D or tree:AxB...; no default\n"
	"  --threads N             updaters; no default\n"
	"  --readers R             readers workload: reader threads (default 1, at most 16384); more\n"
	"                          threads than PUs are time-shared (--slice-ms); a read walks every\n"
	"                          slot, so the model's work grows as R x --slots\n"
	"  --slots N               the tree's slots, possible CPUs idle past the threads (default the\n"
	"                          topology's PUs, or threads + readers if more, as run); >= threads +\n"
	"                          readers: each owns one\n"
	"  --nr-stats N            stats per node (default 1)\n"
	"  --seed N                seed of the readers' interval jitter, and nothing else (default 1)\n"
	"  --no-jitter             readers pause exactly --read-interval-us (default: each pause\n"
	"                          uniform in [0.5, 1.5] x it, seeded)\n"
	"  --slice-ms X            the scheduler's time slice when threads outnumber PUs (default 3)\n"
	"  --preempt full|none     where a slice may end: full (default) at any access, as user space;\n"
	"                          none only between operations, as kernel code on a PREEMPT_NONE\n"
	"                          kernel (a wait can still sleep)\n"
	"  --placement P           compact (default), scatter, ccx, numa, smt, list:...\n"
	"  --topology SPEC         hwloc synthetic spec or XML (default: this machine)\n"
	"  --calibration FILE      ctrbench c2c --format json output (default: published Genoa figures)\n"
	"  --ops N                 measured operations per updater (default 2000), after N/10 of warmup\n"
	"  --reads N               readers: measured reads per reader (default 20); every thread runs on\n"
	"                          until all have done theirs, so both sides see the same load\n"
	"  --work-ns N             private work after each update (default 0)\n"
	"  --read-interval-us N    readers: pause between reads (default 0)\n"
	"  --read-node N           readers: node read (default 0, the root)\n"
	"  --options K=V,...       the algorithm's options (default none)\n"
	"  --flush-period-ms N     periodic flusher period (default: the algorithm's)\n"
	"  --format table|json     (default table); json lines carry \"kind\": \"projected\"\n"
	"  --validate              known-answer patterns, then this machine's 1- and 2-thread runs\n"
	"  --against FILE          measured lines of FILE vs their projection (no default)\n"
	"example: ctrbench project --algo atomic_tree,percpu_hier --shape chain:8 --threads 96 \\\n"
	"             --placement scatter --topology \"pack:2 [numa] l3:12 core:8 pu:2\"\n";

/* The options into o, *validate and *against. */
static void pj_parse_args(int argc, char **argv, struct pj_opts *o, int *validate, const char **against)
{
	static const struct option opts[] = {
		{ "algo", required_argument, NULL, 'a' },
		{ "workload", required_argument, NULL, 'w' },
		{ "shape", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "readers", required_argument, NULL, 'r' },
		{ "placement", required_argument, NULL, 'p' },
		{ "topology", required_argument, NULL, 'T' },
		{ "calibration", required_argument, NULL, 'c' },
		{ "ops", required_argument, NULL, 'n' },
		{ "reads", required_argument, NULL, 'R' },
		{ "work-ns", required_argument, NULL, 'X' },
		{ "read-interval-us", required_argument, NULL, 'i' },
		{ "read-node", required_argument, NULL, 'N' },
		{ "options", required_argument, NULL, 'o' },
		{ "flush-period-ms", required_argument, NULL, 'P' },
		{ "format", required_argument, NULL, 'f' },
		{ "validate", no_argument, NULL, 'V' },
		{ "against", required_argument, NULL, 'A' },
		{ "slots", required_argument, NULL, 'C' },
		{ "nr-stats", required_argument, NULL, 'S' },
		{ "seed", required_argument, NULL, 'e' },
		{ "no-jitter", no_argument, NULL, 'J' },
		{ "slice-ms", required_argument, NULL, 'L' },
		{ "preempt", required_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	bench_help(argc, argv, pj_help);
	while ((c = bench_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case 'a': o->algos = optarg; break;
		case 'w': o->workload = optarg; break;
		case 's': o->shape = optarg; break;
		case 't': o->threads = bench_parse_int("threads", optarg, 1, PJ_MAX_THREADS); break;
		case 'r': o->readers = bench_parse_int("readers", optarg, 0, PJ_MAX_READERS); break;
		case 'p': o->placement = optarg; break;
		case 'T': o->topology = optarg; break;
		case 'c': o->calib_path = optarg; break;
		case 'n': o->ops = bench_parse_int("ops", optarg, 1, 100000000); break;
		case 'R': o->reads = bench_parse_int("reads", optarg, 1, 100000000); break;
		case 'X': o->work_ns = bench_parse_int("work-ns", optarg, 0, 1000000000); break;
		case 'i': o->read_interval_ns = (int64_t)bench_parse_int("read-interval-us", optarg, 0, 100000000) * 1000; break;
		case 'N': o->read_node = bench_parse_int("read-node", optarg, 0, 1 << 20); break;
		case 'o': o->options = optarg; break;
		case 'P': o->flush_period_ms = bench_parse_int("flush-period-ms", optarg, 1, 1000000); break;
		case 'f': o->json = bench_parse_table_json("project", optarg); break;
		case 'V': *validate = 1; break;
		case 'A': *against = optarg; break;
		case 'C': o->slots = bench_parse_int("slots", optarg, 1, PJ_MAX_SLOTS); break;
		case 'S': o->nr_stats = bench_parse_int("nr-stats", optarg, 1, PJ_MAX_STATS); break;
		case 'e': o->seed = bench_parse_int("seed", optarg, 0, INT_MAX); break;
		case 'J': o->no_jitter = 1; break;
		case 'L': o->slice_ms = bench_parse_num("slice-ms", optarg, 0.001, PJ_MAX_SLICE_MS); break;
		case 'E':
			if (strcmp(optarg, "full") && strcmp(optarg, "none"))
				die("project: bad value '%s' for --preempt (full or none)", optarg);
			o->preempt_none = !strcmp(optarg, "none");
			break;
		default: bench_die_getopt(c, argv);
		}
		if (!o->setup_opt && strchr("CSeJLE", c))
			o->setup_opt = c == 'C' ? "--slots" : c == 'S' ? "--nr-stats" : c == 'e' ? "--seed" :
				       c == 'J' ? "--no-jitter" : c == 'L' ? "--slice-ms" : "--preempt";
	}
	if (optind < argc)
		die("project: unexpected argument '%s'", argv[optind]);
	o->warmup = o->ops / 10;
}

/*
 * --algo into o->names as run and sweep take it (bench_parse_algos: "all",
 * no empty or repeated name, the same messages).  "all" is libctr's
 * algorithms; a harness baseline named (shared_atomic, empty: timed loops
 * of the harness, no libctr code) goes to the model, which runs the ones it
 * has a pattern of its own for (bench_proj_raw: the baseline's table says
 * which), as "=false-shared" (proj_can_run decides).
 */
static void pj_parse_algo_list(struct pj_opts *o)
{
	const struct bench_algo *algos[BENCH_MAX_ALGOS], *code[BENCH_MAX_ALGOS];
	char *copy = strdup(o->algos);
	const int all = !strcmp(o->algos, "all");
	int n;

	if (!copy)
		die("project: out of memory");
	n = bench_parse_algos(copy, algos);
	free(copy);
	o->nr_names = 0;
	for (int i = 0; i < n; i++) {
		if (algos[i]->baseline && all)
			continue;
		if (!algos[i]->baseline && !proj_ctr_algo_find(algos[i]->name))
			die("project: unknown --algo '%s' (ctrbench list)", algos[i]->name);
		code[o->nr_names] = algos[i];
		o->names[o->nr_names++] = algos[i]->name;
	}
	/* the tree would refuse them (ctr_tree_new), after the header: said here, as run says it */
	bench_check_algo_options(o->options, o->flush_period_ms, code, o->nr_names);
}

/* A projection's arguments, all refused before anything is printed. */
static void pj_check_args(struct pj_opts *o, const struct topo *topo)
{
	static const char *const names[] = { "--algo", "--shape", "--threads" };
	const int missing[] = { !o->algos, !o->shape, !o->threads };
	struct bench_shape s;
	const char *why;
	char err[512];
	int *pus;

	bench_need("project", names, missing, 3, "(or --validate, or --against FILE)");
	(void)pj_workload(o->workload);
	if (bench_shape_parse(o->shape, &s, &why))
		die("project: bad --shape '%s' (%s)", o->shape, why);
	if (o->read_node >= s.nr_nodes)
		die("project: --read-node %d: the shape has %d nodes", o->read_node, s.nr_nodes);
	bench_shape_free(&s);
	if (o->slots && o->slots < o->threads + pj_readers(o))
		die("project: bad value '%d' for --slots (fewer than --threads %d plus --readers %d: each owns a slot)",
		    o->slots, o->threads, pj_readers(o));
	pj_parse_algo_list(o);
	/* proj_run refuses them too; said here before anything is printed */
	for (int i = 0; i < o->nr_names; i++)
		if (proj_can_run(o->names[i], bench_proj_raw(o->names[i]), pj_workload(o->workload), pj_readers(o), err,
				 sizeof(err)))
			die("project: %s", err);
	/*
	 * Where each thread runs, as bench_project_one will place them: past
	 * the placement's PUs they wrap round, and the header says how many
	 * PUs the threads time-share.
	 */
	pus = bench_xcalloc((size_t)(o->threads + pj_readers(o)), sizeof(int));
	if (topo_place(topo, o->placement, o->threads + pj_readers(o), pus, NULL, err, sizeof(err)))
		die("project: %s", err);
	o->nr_pus_used = bench_proj_pus_used(pus, o->threads + pj_readers(o));
	free(pus);
}

/*
 * Project every --algo, a row (or a JSON line) each as it is done; then,
 * in a table, each one's locks and what the model cost.
 */
static void pj_project_all(const struct pj_opts *o, const struct topo *topo, const struct proj_calib *cal)
{
	struct proj_result *res = bench_xcalloc((size_t)o->nr_names, sizeof(*res));
	double *secs = bench_xcalloc((size_t)o->nr_names, sizeof(*secs));

	if (!o->json) {
		pj_print_header(o, topo, cal);
		fflush(stdout);	/* a projection can run for minutes: what it is of shows at once */
	}
	for (int i = 0; i < o->nr_names; i++) {
		const char *a = o->names[i];
		const struct bench_proj_req q = {
			.algo = a, .workload = pj_workload(o->workload), .shape = o->shape, .threads = o->threads,
			.readers = pj_readers(o), .topo = topo, .placement = o->placement, .calib = cal,
			.options = o->options, .flush_period_ms = o->flush_period_ms, .work_ns = o->work_ns,
			.read_interval_ns = o->read_interval_ns, .read_node = o->read_node, .ops = o->ops,
			.reads = o->reads, .warmup = o->warmup, .slots = o->slots, .nr_stats = o->nr_stats,
			.seed = (uint64_t)o->seed, .no_jitter = o->no_jitter, .slice_ms = o->slice_ms,
			.preempt_none = o->preempt_none,
		};

		bench_project_one(&q, &res[i], &secs[i]);
		if (o->json)
			pj_print_json(o, a, topo, cal, &res[i], secs[i]);
		else
			pj_print_row(a, &res[i]);
		fflush(stdout);
	}
	for (int i = 0; i < o->nr_names && !o->json; i++)
		pj_print_locks(o->names[i], &res[i], secs[i]);
	free(secs);
	free(res);
}

/*
 * SIGINT, SIGTERM: a projection in flight cannot be stopped part-way (the
 * model runs to its operation count), so the command ends at once; every
 * row before it is on stdout already (line-buffered), whole, and stays.
 */
static void pj_on_signal(int sig)
{
	static const char msg[] = "ctrbench: project: interrupted: the rows printed are kept, the one in flight is lost\n";
	ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);

	(void)w;
	(void)sig;
	_exit(1);
}

int bench_cmd_project(int argc, char **argv)
{
	struct pj_opts o = { .workload = "update", .placement = "compact", .readers = 1, .ops = 2000, .reads = 20,
			     .nr_stats = 1, .seed = BENCH_PROJ_SEED, .slice_ms = BENCH_PROJ_SLICE_MS };
	const char *against = NULL;
	int validate = 0, bad = 0;
	struct proj_calib cal;
	struct topo *topo;
	char err[256];
	struct sigaction sa = { .sa_handler = pj_on_signal };

	/* each line out as it is printed, not at the end: a row shows (and survives a SIGINT) as it is done */
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	pj_parse_args(argc, argv, &o, &validate, &against);
	/* the modes take their own configurations: an --algo they would not use is refused, not ignored */
	if (validate && against)
		die("project: --validate and --against '%s' are two modes: give one", against);
	if (validate && o.algos)
		die("project: --validate projects its own patterns and algorithms: --algo '%s' does not apply", o.algos);
	if ((validate || against) && o.setup_opt)
		die("project: --%s: %s projects its own configurations: %s does not apply", validate ? "validate" : "against",
		    validate ? "it" : "each line", o.setup_opt);
	if (o.calib_path) {
		if (proj_calib_load(&cal, o.calib_path, err, sizeof(err)))
			die("project: %s", err);
	} else {
		proj_calib_default(&cal);
	}
	topo = topo_load(o.topology, err, sizeof(err));
	if (!topo)
		die("project: %s", err);
	if (proj_topo_check(topo, err, sizeof(err)))
		die("project: --topology: %s", err);
	if (validate) {
		bad = pj_validate_known(topo, &cal);
		printf("\n");
		pj_validate_here(&cal, 200);
	} else if (against) {
		if (o.algos)
			pj_parse_algo_list(&o);
		pj_against(against, &o, topo, &cal, o.ops);
	} else {
		pj_check_args(&o, topo);
		pj_project_all(&o, topo, &cal);
	}
	topo_free(topo);
	return bad ? 1 : 0;
}
