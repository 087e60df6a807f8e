/* SPDX-License-Identifier: MIT */
/*
 * run.c - one projection (proj_run): the tree made as the harness makes it,
 * one virtual thread per updater and reader running bench/loops.c's
 * workload loops through the instrumented libctr, and what they counted.
 *
 * Every thread runs until all have done their measured operations: one
 * done early goes on, uncounted, so that what the others measure runs
 * against the same load (readers and updaters of very different speeds
 * overlap in virtual time instead of running one after the other).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../counters/ctr_internal.h"
#include "sim_internal.h"

/* The run's own state (one at a time, as the model's). */
static struct {
	const struct proj_config *cfg;
	struct proj_result *res;
	struct ctr_tree *t;
	const struct ctr_algo *a;	/* t's algorithm (the instrumented copy's), NULL for a raw pattern */
	int raw;			/* the model's own patterns: enum proj_raw, 0 for libctr code */
	char *raw_mem;
	double upd_xfer[PROJ_NR_CLASSES], rd_xfer[PROJ_NR_CLASSES];
	double win0, win1;		/* the measured window over every thread */
	int windows;
	int unfinished;
	int warm_left;			/* threads still in their warm-up: none counts until every one is done */
	int stop;			/* every thread has done its measured operations */
	int *slot_node, *slot_l3;	/* the tree's ctr_params arrays: each slot's node and L3 */
	int64_t *limit;			/* the tree's limits (charge workload) */
	double *rd_ns;			/* every measured read's serial cost, for the percentiles */
	long nr_rd, cap_rd;
	int rd_nomem;			/* a read's cost not kept (out of memory): no percentiles */
} run;

/*
 * The model's own patterns (enum proj_raw): no libctr code, the access
 * itself.  The caller's raw where it gives one (a harness baseline's, by
 * its table); else the model's own syntax for the two it has no algorithm
 * for; else none, algo's code.  -1: a raw the model has no pattern for.
 */
static int sim_raw_kind(int raw, const char *algo)
{
	static const char *const syntax[] = {
		[PROJ_RAW_FALSE_SHARED] = "=false-shared", [PROJ_RAW_PADDED] = "=padded",
	};

	if (raw)
		return raw > PROJ_RAW_NONE && raw <= PROJ_RAW_EMPTY ? raw : -1;
	for (int k = 1; k < (int)(sizeof(syntax) / sizeof(syntax[0])); k++)
		if (!strcmp(algo, syntax[k]))
			return k;
	return PROJ_RAW_NONE;
}

int proj_models_workload(int w)
{
	/* the loops below run these three as bench/loops.c's do; store's stats and limit check they have not */
	return w == BENCH_UPDATE || w == BENCH_CHARGE || w == BENCH_READERS;
}

int proj_topo_check(const struct topo *t, char *err, size_t errlen)
{
	for (int i = 0; i < topo_nr_pus(t); i++) {
		struct topo_pu_info in;

		if (topo_pu_at(t, i, &in))
			continue;
		/* sim_class: the SMT class is "same core", the others "same L3" (else package), then socket */
		if (in.core < 0 || (in.l3 < 0 && in.package < 0)) {
			snprintf(err, errlen, "topology '%s' has no %s level: the model classes each transfer by "
				 "the core, L3 (or package) of both ends (e.g. 'pack:1 core:%d pu:1')", topo_spec(t),
				 in.core < 0 ? "core" : "L3 or package", topo_nr_pus(t));
			return -EINVAL;
		}
	}
	return 0;
}

int proj_can_run(const char *algo, int raw, int workload, int readers, char *err, size_t errlen)
{
	const int kind = sim_raw_kind(raw, algo);
	const struct ctr_algo *a = kind ? NULL : proj_ctr_algo_find(algo);

	(void)readers;
	if (kind < 0) {
		snprintf(err, errlen, "%s: no pattern %d in the model (enum proj_raw)", algo, raw);
		return -EINVAL;
	}
	if (!a && !kind) {
		snprintf(err, errlen, "unknown algorithm '%s'", algo);
		return -EINVAL;
	}
	if (!proj_models_workload(workload)) {
		snprintf(err, errlen, "cannot model the %s workload (only update, charge and readers)",
			 bench_workload_name(workload));
		return -EINVAL;
	}
	return 0;
}

/* A reader's pause between reads: uniform in [0.5, 1.5] x the interval (splitmix64 of seed, thread, read). */
static double sim_interval(int i, long n)
{
	const double base = (double)run.cfg->read_interval_ns;
	uint64_t z = run.cfg->seed + 0x9e3779b97f4a7c15ULL * ((uint64_t)i * 1000003u + (uint64_t)n + 1);

	if (!run.cfg->jitter || base <= 0)
		return base;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return base * (0.5 + (double)(z >> 11) / 9007199254740992.0);
}

/* One charge as bench/loops.c's: a window of held charges, one freed after a refusal. */
static void sim_charge_op(int i, struct sim_thread *w)
{
	const int leaf = run.cfg->leaves[i % run.cfg->nr_leaves];
	int ok;

	if (w->held == BENCH_CHARGE_WINDOW) {
		proj_ctr_add(run.t, i, leaf, 0, -BENCH_CHARGE_UNIT);
		w->held--;
	}
	ok = proj_ctr_try_charge(run.t, i, leaf, BENCH_CHARGE_UNIT);
	w->held += ok;
	if (!ok && w->held) {
		proj_ctr_add(run.t, i, leaf, 0, -BENCH_CHARGE_UNIT);
		w->held--;
	}
	if (w->counting && !ok)
		run.res->charges_refused++;
}

/*
 * Thread i's next operation, the workload's.  The update workload's goes
 * through ref, the algorithm's prepared update, made on the thread's first
 * update (a warmup one) as bench/loops.c makes it before its timed loop:
 * the model runs the update the benchmark times.
 */
static void sim_op(int i, struct sim_thread *w, struct proj_ref *ref)
{
	const struct proj_config *cfg = run.cfg;

	switch (run.raw) {
	case PROJ_RAW_FALSE_SHARED:	/* a store to the thread's word: 8 bytes apart (one line) */
	case PROJ_RAW_PADDED:		/* ... or 64 (a line each) */
		proj_sim_access((uintptr_t)(run.raw_mem + (size_t)i * (run.raw == PROJ_RAW_FALSE_SHARED ? 8 : 64)),
				8, PROJ_STORE);
		return;
	case PROJ_RAW_SHARED_ATOMIC:	/* the baseline: one lock add on one shared word */
		proj_sim_access((uintptr_t)run.raw_mem, 8, PROJ_RMW);
		return;
	case PROJ_RAW_EMPTY:		/* the harness floor: no access */
		return;
	}
	if (w->reader) {
		const int node = cfg->read_node >= 0 ? cfg->read_node :
				 cfg->read_node == PROJ_READ_OWN ? (i - cfg->threads) % cfg->nr_nodes :
				 cfg->leaves[(w->done + i) % cfg->nr_leaves];

		(void)proj_ctr_read(run.t, node, 0);
	} else if (cfg->workload == BENCH_CHARGE) {
		sim_charge_op(i, w);
	} else if (cfg->workload == BENCH_READERS) {
		if (w->done && w->done % BENCH_SWING == 0)
			w->dir = -w->dir;
		proj_ctr_add(run.t, i, cfg->leaves[i % cfg->nr_leaves], 0, w->dir);
	} else if (ref->kind || !proj_ctr_ref_make(run.a, run.t, i, cfg->leaves[i % cfg->nr_leaves], 0, ref)) {
		proj_ctr_ref_add(ref, w->done & 1 ? -1 : 1);
	} else {
		/* an algorithm with no ref (every one of the list has one: ref.c) updates through its add */
		proj_ctr_add(run.t, i, cfg->leaves[i % cfg->nr_leaves], 0, w->done & 1 ? -1 : 1);
	}
}

/* What one operation of thread w cost, into the result. */
static void sim_count(struct sim_thread *w)
{
	struct proj_result *res = run.res;

	if (!w->counting)
		return;
	if (w->reader) {
		res->reads++;
		res->rns_serial += w->op_serial;
		res->rns_overlap += w->op_overlap;
		if (w->op_serial > res->rns_max)
			res->rns_max = w->op_serial;
		if (run.nr_rd == run.cap_rd) {
			const long cap = run.cap_rd ? 2 * run.cap_rd : 1024;
			double *n = realloc(run.rd_ns, (size_t)cap * sizeof(*n));

			if (!n) {
				run.rd_nomem = 1;
				return;
			}
			run.rd_ns = n;
			run.cap_rd = cap;
		}
		run.rd_ns[run.nr_rd++] = w->op_serial;
	} else {
		res->ops++;
		res->ns_serial += w->op_serial;
		res->ns_overlap += w->op_overlap;
		res->wait_ns += w->op_wait;
	}
}

/* A worker thread's body: its operations, until every thread has done its measured ones. */
static void *sim_worker(void *arg)
{
	const int i = (int)(intptr_t)arg;
	struct sim_thread *w = &sim.th[i];
	const struct proj_config *cfg = run.cfg;
	/* readers warm up on a tenth of their reads (at least one), updaters on warmup_ops */
	const long warm = w->reader ? (cfg->reads >= 10 ? cfg->reads / 10 : 1) : cfg->warmup_ops;
	const long want = w->reader ? cfg->reads : cfg->ops;
	/* on this virtual thread's stack, which the model does not track: the timed loop's ref is in registers */
	struct proj_ref ref = { .kind = 0 };

	while (!run.stop) {
		int counted;

		w->steps = 0;
		w->op_t0 = w->now;
		w->role_done0 = sim.done_role[w->reader];
		if (!w->warmed && w->done >= warm) {
			w->warmed = 1;
			run.warm_left--;
		}
		/*
		 * The harness's window opens for every worker at once, after the
		 * warm-up (bench/run.c): here when the last thread has done its
		 * warm-up, and a thread done with its own runs on uncounted until
		 * then.  Counted from its own warm-up's end instead, a thread that
		 * started early measured its first operations alone, on lines
		 * nobody else had touched yet.
		 */
		w->counting = !run.warm_left && w->measured < want;
		if (w->counting && !w->measured)
			w->t0 = w->now;
		w->op_serial = w->op_overlap = w->group_max = w->group_sum = w->op_wait = 0;
		w->xfer = w->reader ? run.rd_xfer : run.upd_xfer;
		w->kernel_op = cfg->preempt_none;
		sim_op(i, w, &ref);
		w->kernel_op = 0;
		/* the loop itself costs a hit at least: a thread of empty operations still moves on in time */
		if (w->now == w->op_t0) {
			w->now += sim.cal->hit_ns;
			w->op_serial += sim.cal->hit_ns;
			w->op_overlap += sim.cal->hit_ns;
		}
		sim_close_group(w);
		sim_count(w);
		counted = w->counting;
		w->measured += counted;
		sim.idle_steps = 0;
		sim.done_role[w->reader]++;
		if (w->now - w->op_t0 > sim.max_op)
			sim.max_op = w->now - w->op_t0;
		w->counting = 0;
		if (w->reader)
			sim_sleep(w->now + sim_interval(i, w->done));	/* off the CPU: others may run on it */
		else
			w->now += (double)cfg->work_ns;			/* private work: on the CPU */
		w->done++;
		/*
		 * A scheduling point per operation: one that made no access still
		 * gives way.  One of quiet hits alone may run on ahead as they did
		 * (sim.c); one that took a turn gives way as its accesses do (an
		 * owner's RMWs in a burst and the request waiting behind them alternate).
		 */
		if (w->op_strict)
			sim_maybe_yield();
		else
			sim_yield_within(SIM_RUNAHEAD_NS);
		w->op_strict = 0;
		if (counted && w->measured == want) {
			/* the measured window: the first measured operation's start to the last one's end, any thread */
			if (!run.windows++ || w->t0 < run.win0)
				run.win0 = w->t0;
			if (w->now > run.win1)
				run.win1 = w->now;
			if (!--run.unfinished)
				run.stop = 1;
		}
	}
	return NULL;
}

/* Whether thread i has done its measured operations. */
static int sim_finished(int i)
{
	const struct sim_thread *w = &sim.th[i];

	return w->measured >= (w->reader ? run.cfg->reads : run.cfg->ops);
}

/* The run's threads and the tree's slot arrays (freed by sim_run_free); 0 or -ENOMEM. */
static int sim_threads_new(const struct proj_config *cfg, int nthr, int slots)
{
	run.slot_node = calloc(slots, sizeof(*run.slot_node));
	run.slot_l3 = calloc(slots, sizeof(*run.slot_l3));
	run.limit = calloc(cfg->nr_nodes, sizeof(*run.limit));
	if (!run.slot_node || !run.slot_l3 || !run.limit || sim_sched_setup(nthr, cfg->slice_ns > 0 ? cfg->slice_ns : 3e6))
		return -ENOMEM;
	/*
	 * Accesses within a few hits of each other may go in either order:
	 * four hits (2 ns by default) is far under any transfer (10 ns and up),
	 * so the order of contended accesses stands, and it spares the model a
	 * switch at nearly every access of a hundred threads' private work.
	 */
	sim.lookahead = 4 * cfg->calib->hit_ns;
	for (int i = 0; i < nthr; i++) {
		struct topo_pu_info in;

		sim.th[i].pu = topo_pu_info(cfg->topo, cfg->pus[i], &in) ? 0 : in.logical;
		sim.th[i].reader = i >= cfg->threads;
		sim.th[i].dir = 1;
		sim.th[i].worker = 1;
		sim.nr_role[sim.th[i].reader]++;
		run.slot_node[i] = topo_numa_node_of_pu(cfg->topo, cfg->pus[i]);
		if (run.slot_node[i] < 0)
			run.slot_node[i] = 0;
		/* the L3 of each slot's thread, as the harness gives it (bench/setup.c) */
		run.slot_l3[i] = sim.pus[sim.th[i].pu].l3;
	}
	/* idle slots (possible CPUs with no thread): on the PUs in turn, as the harness spreads them */
	for (int i = nthr; i < slots; i++) {
		const int p = i % sim.nr_pus;

		run.slot_l3[i] = sim.pus[p].l3;
		run.slot_node[i] = 0;
		for (int k = 0; k <= sim.max_numa_os; k++)
			if (sim.numa_of_os[k] == sim.pus[p].numa)
				run.slot_node[i] = k;
	}
	return 0;
}

/* Limits as the harness sets them (bench_headroom_limit): its headroom times what the workers below a node hold. */
static int sim_limits(const struct proj_config *cfg)
{
	int *below = calloc(cfg->nr_nodes, sizeof(int));

	if (!below)
		return -ENOMEM;
	for (int i = 0; i < cfg->threads; i++)
		for (int m = cfg->leaves[i % cfg->nr_leaves]; m >= 0; m = cfg->parent[m])
			below[m]++;
	for (int m = 0; m < cfg->nr_nodes; m++)
		run.limit[m] = below[m] ? bench_headroom_limit(below[m], BENCH_CHARGE_WINDOW, cfg->limit_headroom)
					: CTR_NO_LIMIT;
	free(below);
	return 0;
}

/*
 * The tree (or a raw pattern's memory), created by worker 0's PU as the
 * harness's main thread creates it: its shared lines are homed on that
 * worker's node.
 */
static int sim_tree_new(const struct proj_config *cfg, const struct ctr_algo *a, int slots, char *err,
			size_t errlen)
{
	struct ctr_params p = { 0 };

	p.nr_nodes = cfg->nr_nodes;
	p.parent = cfg->parent;
	p.nr_cpus = slots;
	p.nr_stats = cfg->nr_stats > 0 ? cfg->nr_stats : 1;
	p.options = cfg->options;
	p.flush_period_ms = cfg->flush_period_ms;
	p.slot_node = run.slot_node;
	p.slot_l3 = run.slot_l3;
	if (cfg->workload == BENCH_CHARGE) {
		p.limit = run.limit;
		p.batch = BENCH_CHARGE_BATCH;
	}
	sim.main_th.pu = sim.th[0].pu;
	sim.main_th.xfer = run.upd_xfer;
	proj_rt_reset();
	proj_rt_record(1);
	if (run.raw) {
		/* line-aligned: the false-shared words are one line, the padded ones a line each */
		run.raw_mem = proj_aligned_alloc(64, (size_t)64 * (slots + cfg->threads + cfg->readers + 1));
		return run.raw_mem ? 0 : -ENOMEM;
	}
	run.t = proj_ctr_tree_new(a, &p);
	if (!run.t) {
		const int e = errno;

		snprintf(err, errlen, "projection: %s: cannot create the tree (options '%s'?)", cfg->algo,
			 cfg->options ? cfg->options : "");
		return -e;
	}
	return 0;
}

/*
 * A tree whose operation was stopped mid-way (the step budget, every thread
 * blocked): its locks and lists are as the operation left them, so its
 * teardown could wait on them too.  It is left as it is, reachable (not a
 * leak), and the process, which refuses the projection, ends soon after.
 */
static struct ctr_tree *sim_abandoned[8];

static void sim_abandon(struct ctr_tree *t)
{
	static unsigned n;

	sim_abandoned[n++ % 8] = t;
}

/*
 * The run, under the watchdog (sim.c): a legitimate operation touches each
 * (slot, node, stat) a few times, so 256 times each for every thread, and
 * 2^24 steps for a small tree, is far above what all threads make before
 * one of them finishes an operation.  0, or -EDEADLK (and why).
 */
static int sim_run_budgeted(const struct proj_config *cfg, int nthr, int slots, char *err, size_t errlen)
{
	int ret;

	run.unfinished = run.warm_left = nthr;
	/* every thread may be in such an operation at once (a convoy of flushers): the bound is theirs summed */
	sim.max_steps = (1L << 24) + 256L * slots * cfg->nr_nodes * (cfg->nr_stats > 0 ? cfg->nr_stats : 1) * nthr;
	/*
	 * The harness's start gate (bench/run.c): with a worker on every PU none
	 * is idle, so the main thread, woken from its sleep to open the gate,
	 * takes a worker's PU (worker 0's, where it made the tree) until it
	 * sleeps again (PROJ_GATE_NS).  Started together instead, two of
	 * striped's slots convoyed one level apart for ever: no CAS of theirs
	 * failed and the cells never grew (8 transfers an update on 2 PUs, where
	 * this machine measured 13-16 ns); with worker 0 late, the other has
	 * run alone on every level when it comes, and its first CASes fail.
	 */
	const int late = nthr >= sim.nr_pus ? 0 : -1;

	for (int i = 0; i < nthr; i++) {
		/*
		 * The harness starts its workers once the tree is made: their clocks
		 * start at the creator's, after its stores to the tree's lines.  From
		 * 0 instead, a worker on another socket waited out a transfer the
		 * creation had booked at its own later clock (6.6 us in atomic_tree's
		 * first update at chain:4 on 384 PUs, its ref's first load), while
		 * worker 0, on the creator's PU, ran 320 updates alone.
		 */
		sim.th[i].now = sim.main_th.now + (i == late ? PROJ_GATE_NS : 0);
		ret = sim_thread_start(i, sim_worker, (void *)(intptr_t)i);
		if (ret < 0) {
			snprintf(err, errlen, "projection: out of memory for %d virtual threads' stacks", nthr);
			return ret;
		}
	}
	ret = sim_sched_run();
	sim.max_steps = 0;	/* the tree's teardown is no operation */
	if (!ret && sim.starved) {
		/* threads are mid-operation: the tree is left as it is; what was counted stands, said */
		for (int i = 0; i < nthr; i++)
			run.res->starved += sim.th[i].state != VT_DONE && !sim_finished(i);
		snprintf(run.res->starved_why, sizeof(run.res->starved_why), "%s", sim.bail_why);
		sim_abandon(run.t);
		run.t = NULL;
	}
	if (ret) {
		snprintf(err, errlen, "projection cannot run %s%s%s: %s (docs/projection.md)", cfg->algo,
			 cfg->options ? " with options " : "", cfg->options ? cfg->options : "", sim.bail_why);
		sim_abandon(run.t);
		run.t = NULL;
	}
	return ret;
}

static int sim_cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile of the sorted v[0..n), nearest rank (n > 0). */
static double sim_quantile(const double *v, long n, double q)
{
	long k = (long)(q * (double)n + 0.999999999);

	return v[(k < 1 ? 1 : k > n ? n : k) - 1];
}

/* What the model counted, into res. */
static void sim_collect(struct proj_result *res)
{
	if (run.nr_rd && !run.rd_nomem) {
		qsort(run.rd_ns, (size_t)run.nr_rd, sizeof(*run.rd_ns), sim_cmp_double);
		res->rns_p50 = sim_quantile(run.rd_ns, run.nr_rd, 0.50);
		res->rns_p99 = sim_quantile(run.rd_ns, run.nr_rd, 0.99);
	}
	memcpy(res->xfer, run.upd_xfer, sizeof(run.upd_xfer));
	memcpy(res->rxfer, run.rd_xfer, sizeof(run.rd_xfer));
	/* per virtual second figures (locks) divide by the window every thread measured in */
	res->elapsed_ns = run.windows ? run.win1 - run.win0 : 0;
	res->accesses = sim.accesses;
	res->l3_hits = sim.l3_hits;
	res->l2_evictions = sim.evictions;
	res->l3_evictions = sim.dram_evicted;
	res->cap = sim.capacity;
	res->switches = sim.switches;
	sim_lock_table(res);
}

/* The tree freed (its teardown not counted: the main context, after every worker), the model torn down. */
static void sim_run_free(void)
{
	if (run.t) {
		sim.main_th.counting = 0;
		for (int i = 0; i < sim.nr_th; i++)
			if (sim.main_th.now < sim.th[i].now)
				sim.main_th.now = sim.th[i].now;
		proj_ctr_tree_free(run.t);
	}
	proj_rt_record(0);
	proj_free(run.raw_mem);
	free(run.slot_node);
	free(run.slot_l3);
	free(run.limit);
	free(run.rd_ns);
	sim_sched_teardown();
	sim_machine_teardown();
	memset(&sim, 0, sizeof(sim));
	memset(&run, 0, sizeof(run));
}

int proj_run(const struct proj_config *cfg, struct proj_result *res, char *err, size_t errlen)
{
	const int nthr = cfg->threads + cfg->readers;
	/* slots given: the updaters' and the idle ones (readers run on CPUs but own no slot); else one per thread */
	const int slots = cfg->slots ? (cfg->slots > cfg->threads ? cfg->slots : cfg->threads) : nthr;
	const int arrays = slots > nthr ? slots : nthr;
	const int raw = sim_raw_kind(cfg->raw, cfg->algo);
	const struct ctr_algo *a = raw ? NULL : proj_ctr_algo_find(cfg->algo);
	char why[512];
	int ret;

	memset(res, 0, sizeof(*res));
	memset(&run, 0, sizeof(run));
	memset(&sim, 0, sizeof(sim));
	if (proj_can_run(cfg->algo, cfg->raw, cfg->workload, cfg->readers, why, sizeof(why))) {
		snprintf(err, errlen, "projection: %s", why);
		return -EINVAL;
	}
	if (proj_topo_check(cfg->topo, why, sizeof(why))) {
		snprintf(err, errlen, "projection: %s", why);
		return -EINVAL;
	}
	sim.cur = &sim.main_th;
	ret = sim_machine_setup(cfg, err, errlen);
	run.cfg = cfg;
	run.res = res;
	run.raw = raw;
	run.a = a;
	if (!ret)
		ret = sim_threads_new(cfg, nthr, arrays);
	if (!ret)
		ret = sim_limits(cfg);
	if (!ret)
		ret = sim_tree_new(cfg, a, slots, err, errlen);
	if (!ret)
		ret = sim_run_budgeted(cfg, nthr, slots, err, errlen);
	if (!ret)
		sim_collect(res);
	sim_run_free();
	return ret;
}
