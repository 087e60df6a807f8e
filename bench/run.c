/* SPDX-License-Identifier: MIT */
/*
 * run.c - one benchmark run (run.h): the workers behind a start gate, the
 * warm-up, the timed window and the latency phase, then collection and
 * verification.  The timed loops themselves are in loops.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hitm.h"
#include "../topology/topo.h"
#include "run.h"

static void bench_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int bench_worker_phase(struct bench_worker *w, int phase, uint64_t ops, uint64_t fails)
{
	if (phase == BENCH_MEASURE) {
		ctr_hist_reset(&w->hist);
		w->audited = w->audit_rejected = w->false_rejects = 0;
		w->overshoot_max = INT64_MIN;
		w->err_max = 0;
		w->err_sum = 0;
		w->ops = ops;
		w->charge_fail = fails;
		w->cpu_ns = pmu_task_clock_read(&w->clk);
		if (w->gate->nr_events)
			pmu_group_read(&w->pmu, NULL, w->pmu0);
		w->t_start = bench_time_ns();
		return 0;
	}
	if (phase != BENCH_STOP && phase != BENCH_LATENCY)
		return 0;
	/* The throughput window closed at LATENCY: STOP only ends the loop. */
	if (w->window_closed)
		return phase == BENCH_STOP;
	w->window_closed = 1;
	w->t_end = bench_time_ns();
	if (!w->t_start) {
		/* Preempted through the whole window: it measured nothing. */
		ctr_hist_reset(&w->hist);
		w->ops = w->charge_fail = w->cpu_ns = 0;
		w->audited = w->audit_rejected = w->false_rejects = 0;
		w->err_max = 0;
		w->err_sum = 0;
		w->overshoot_max = INT64_MIN;
		return phase == BENCH_STOP;
	}
	w->ops = ops - w->ops;
	w->charge_fail = fails - w->charge_fail;
	w->cpu_ns = pmu_task_clock_read(&w->clk) - w->cpu_ns;
	if (w->gate->nr_events)
		pmu_group_read(&w->pmu, NULL, w->pmu1);
	return phase == BENCH_STOP;
}

struct bench_thread {
	struct bench_worker *w;		/* its worker */
	bench_loop_fn loop;		/* the timed loop to run */
};

static void *bench_worker_main(void *arg)
{
	struct bench_thread *th = arg;
	struct bench_worker *w = th->w;

	const struct bench_gate *g = w->gate;

	w->cpu_requested = g->pus[w->reader ? g->nr_updaters + w->index : w->index];
	w->bind_err = topo_bind_self(g->topo, w->cpu_requested);
	pmu_task_clock_open(&w->clk);
	if (g->nr_events)
		pmu_group_open(&w->pmu, g->events, g->nr_events);
	atomic_fetch_add_explicit(&w->gate->ready, 1, memory_order_release);
	/* Yield, not spin: there are usually more workers than CPUs here. */
	while (atomic_load_explicit(&w->gate->phase, memory_order_acquire) == BENCH_WAIT)
		sched_yield();
	th->loop(w);
	w->cpu_observed = topo_current_cpu();
	pmu_task_clock_close(&w->clk);
	/* The counts and reasons before closing: close forgets why an event was not counted. */
	for (int e = 0; w->t_start && e < g->nr_events; e++) {
		const struct pmu_event *ev = &w->pmu.ev[e];

		w->ev_why[e] = pmu_group_delta(&w->pmu, e, &w->pmu0[e], &w->pmu1[e], &w->ev_val[e]);
		if (w->ev_why[e])
			w->ev_tag[e] = ev->source == PMU_SRC_NONE ? pmu_reason_tag(ev->err, ev->phase) :
				       pmu_reason_tag(0, PMU_PHASE_READ);
	}
	if (g->nr_events)
		pmu_group_close(&w->pmu);
	return NULL;
}

/*
 * --shared-mem: the memory policy of the creating thread while ctr_tree_new
 * allocates and first-touches the shared parts (per-slot regions are bound to
 * their owners' nodes on their own): local (the default: the main thread's
 * node), interleave (all nodes), node:K.
 */
static int bench_shared_mem_policy(const char *spec)
{
	unsigned long mask[16] = { 0 };
	char *end;
	long node;

	/* Not asked for: the default policy, and no error where set_mempolicy is forbidden (seccomp). */
	if (!spec)
		return 0;
	if (!strcmp(spec, "local"))
		return set_mempolicy(MPOL_LOCAL, NULL, 0) ? -errno : 0;
	if (!strcmp(spec, "interleave")) {
		/* every node this process may use */
		if (get_mempolicy(NULL, mask, sizeof(mask) * 8, NULL, MPOL_F_MEMS_ALLOWED))
			return -errno;
		return set_mempolicy(MPOL_INTERLEAVE, mask, sizeof(mask) * 8) ? -errno : 0;
	}
	node = strtol(spec + 5, &end, 10);
	mask[node / 64] = 1UL << (node % 64);
	return set_mempolicy(MPOL_BIND, mask, sizeof(mask) * 8) ? -errno : 0;
}

/* The update workload's latency phase: a quarter of the throughput window, 1 to 250 ms. */
static int bench_latency_ms(int duration_ms)
{
	int ms = duration_ms / 4;

	return ms < 1 ? 1 : ms > 250 ? 250 : ms;
}

/* Does node n get a limit under --limit-levels (n has a worker below it)? */
static int bench_limit_level(const struct bench_config *cfg, int n)
{
	const char *l = cfg->limit_levels;

	if (!l || !strcmp(l, "all"))
		return 1;
	if (!strcmp(l, "root"))
		return n == 0;
	for (int i = 0; i < cfg->shape.nr_leaves; i++)	/* leaf */
		if (cfg->shape.leaves[i] == n)
			return 1;
	return 0;
}

/*
 * Charge workload limits: --limit-headroom (3/4 by default) times what the
 * workers below a node can hold, at every level with a worker below it.
 */
static int64_t *bench_charge_limits(const struct bench_config *cfg, const struct bench_worker *ws,
				    int burst)
{
	const struct bench_shape *s = &cfg->shape;
	const double headroom = cfg->limit_headroom > 0 ? cfg->limit_headroom : BENCH_LIMIT_HEADROOM;
	const int hold = burst ? burst : BENCH_CHARGE_WINDOW;
	int64_t *limit = calloc(s->nr_nodes, sizeof(*limit));
	int *below = calloc(s->nr_nodes, sizeof(*below));

	if (!limit || !below) {
		free(limit);
		free(below);
		return NULL;
	}
	for (int i = 0; i < cfg->threads; i++)
		for (int n = ws[i].node; n >= 0; n = s->parent[n])
			below[n]++;
	for (int n = 0; n < s->nr_nodes; n++)
		limit[n] = below[n] && bench_limit_level(cfg, n) ? bench_headroom_limit(below[n], hold, headroom) : CTR_NO_LIMIT;
	free(below);
	return limit;
}

/* --charge-burst bound: B for this algorithm (BENCH_BURST_FROM_BOUND in run.h); 0 or -errno. */
static int bench_burst_from_bound(const struct bench_config *cfg, const struct bench_algo *ba,
				  const struct ctr_params *p, int *burst)
{
	double headroom = cfg->limit_headroom > 0 ? cfg->limit_headroom : BENCH_LIMIT_HEADROOM;
	struct ctr_params probe = *p;
	struct ctr_tree *t;
	int64_t bound;
	double b;

	/* the bound of the very instance, limits aside: a tree of its own, freed at once */
	probe.limit = NULL;
	probe.slot_node = NULL;
	t = ctr_tree_new(ba->algo, &probe);
	if (!t)
		return -errno;
	bound = ctr_read_error_bound(t);
	ctr_tree_free(t);
	if (headroom > 0.75)
		headroom = 0.75;
	if (bound == 0) {
		*burst = BENCH_BURST_EXACT;
		return 0;
	}
	if (bound < 0) {
		*burst = BENCH_BURST_TIMED;
		return 0;
	}
	b = ceil(2.0 * (double)bound / ((double)cfg->threads * BENCH_CHARGE_UNIT * (1 - headroom)));
	*burst = b < BENCH_BURST_EXACT ? BENCH_BURST_EXACT : b > BENCH_BURST_MAX ? BENCH_BURST_MAX : (int)b;
	return 0;
}

static double bench_ticks_to_ns(const struct bench_config *cfg, double ticks)
{
	ticks -= (double)cfg->tsc.overhead;
	return ticks > 0 ? ticks / cfg->tsc.ghz : 0;
}

/*
 * Ticks (or, with scale > 1, per-op 1/scale ticks with the overhead already
 * subtracted, as the update workload's latency phase records) to ns.
 */
static double bench_hist_ns(const struct bench_config *cfg, double v, unsigned scale)
{
	if (scale > 1)
		return v / scale / cfg->tsc.ghz;
	return bench_ticks_to_ns(cfg, v);
}

static void bench_summarize_latency(const struct bench_config *cfg, const struct ctr_hist *h,
				    unsigned scale, struct bench_lat *lat)
{
	double ms = 1e6 * cfg->tsc.ghz * scale;

	lat->samples = h->count;
	if (!lat->batch)
		lat->batch = 1;
	if (!h->count)
		return;
	lat->mean = bench_hist_ns(cfg, (double)h->sum / (double)h->count, scale);
	lat->p50 = bench_hist_ns(cfg, (double)ctr_hist_quantile(h, 0.50), scale);
	lat->p90 = bench_hist_ns(cfg, (double)ctr_hist_quantile(h, 0.90), scale);
	lat->p95 = bench_hist_ns(cfg, (double)ctr_hist_quantile(h, 0.95), scale);
	lat->p99 = bench_hist_ns(cfg, (double)ctr_hist_quantile(h, 0.99), scale);
	lat->p999 = bench_hist_ns(cfg, (double)ctr_hist_quantile(h, 0.999), scale);
	lat->max = bench_hist_ns(cfg, (double)h->max, scale);
	/* the reader-storm figures of 004: reads over 1 ms and over 1 s */
	lat->over_1ms = (double)ctr_hist_count_above(h, (uint64_t)ms) / (double)h->count;
	lat->over_1s = (double)ctr_hist_count_above(h, (uint64_t)(1000 * ms)) / (double)h->count;
}

static int64_t bench_abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* Compare every node with the workers' tallies; also the algorithm's own read and the limits. */
static void bench_verify(const struct bench_config *cfg, const struct bench_algo *ba,
			 struct ctr_tree *t, const struct bench_worker *ws, const int64_t *limit,
			 struct bench_result *r)
{
	const struct bench_shape *s = &cfg->shape;
	int64_t *want = calloc(s->nr_nodes, sizeof(*want)), total = 0;

	r->verify = -1;
	r->bad_node = -1;
	r->limit_max_over = INT64_MIN;
	if (!want)
		return;
	for (int i = 0; i < cfg->threads; i++) {
		total += ws[i].tally;
		for (int n = ws[i].node; n >= 0; n = s->parent[n])
			want[n] += ws[i].tally;
	}
	if (ba->verify != BENCH_VERIFY_NONE)
		r->verify = 1;
	/*
	 * The algorithm's own reads at rest first, against the tallies: an exact
	 * read flushes, and would make every read after it look up to date.
	 */
	for (int n = 0; r->verify >= 0 && n < s->nr_nodes; n++) {
		int64_t expect = ba->verify == BENCH_VERIFY_TOTAL ? total : want[n];
		int64_t off;

		if (cfg->workload == BENCH_STORE && ba->verify == BENCH_VERIFY_TOTAL)
			expect += expect / BENCH_CHARGE_UNIT;
		off = bench_abs64(ctr_read(t, n, 0) - expect);	/* once: a read may flush */

		if (off > r->read_error)
			r->read_error = off;
	}
	for (int n = 0; n < s->nr_nodes; n++) {
		int64_t exact = ctr_read_exact(t, n, 0);
		int64_t expect = ba->verify == BENCH_VERIFY_TOTAL ? total : want[n];

		/* store: one shared word holds both stats; the nodes' stat 1 counts the pages */
		if (cfg->workload == BENCH_STORE && ba->verify == BENCH_VERIFY_TOTAL)
			expect += expect / BENCH_CHARGE_UNIT;
		if (r->verify == 1 && exact != expect) {
			r->verify = 0;
			r->bad_node = n;
			r->got = exact;
			r->want = expect;
		}
		if (r->verify == 1 && cfg->workload == BENCH_STORE && ba->verify == BENCH_VERIFY_NODES &&
		    ctr_read_exact(t, n, 1) != want[n] / BENCH_CHARGE_UNIT) {
			r->verify = 0;
			r->bad_node = n;
			r->got = ctr_read_exact(t, n, 1);
			r->want = want[n] / BENCH_CHARGE_UNIT;
		}
		/* A single shared word is checked against the root's limit only. */
		if (limit && limit[n] != CTR_NO_LIMIT && exact - limit[n] > r->limit_max_over &&
		    (ba->verify != BENCH_VERIFY_TOTAL || n == 0))
			r->limit_max_over = exact - limit[n];
	}
	free(want);
}

/* under[n]: the updaters whose leaf lies in n's subtree (what the exact value of n sums). */
static int bench_build_under(const struct bench_config *cfg, const struct bench_worker *ws,
			     struct bench_gate *g)
{
	const struct bench_shape *s = &cfg->shape;

	g->under = calloc(s->nr_nodes, sizeof(*g->under));
	g->nr_under = calloc(s->nr_nodes, sizeof(*g->nr_under));
	if (!g->under || !g->nr_under)
		return -ENOMEM;
	for (int i = 0; i < cfg->threads; i++)
		for (int n = ws[i].node; n >= 0; n = s->parent[n])
			g->nr_under[n]++;
	for (int n = 0; n < s->nr_nodes; n++) {
		g->under[n] = malloc(sizeof(int) * (g->nr_under[n] ? g->nr_under[n] : 1));
		if (!g->under[n])
			return -ENOMEM;
		g->nr_under[n] = 0;
	}
	for (int i = 0; i < cfg->threads; i++)
		for (int n = ws[i].node; n >= 0; n = s->parent[n])
			g->under[n][g->nr_under[n]++] = i;
	return 0;
}

static void bench_free_under(const struct bench_config *cfg, struct bench_gate *g)
{
	for (int n = 0; g->under && n < cfg->shape.nr_nodes; n++)
		free(g->under[n]);
	free(g->under);
	free(g->nr_under);
}

/* Fairness: how evenly the updaters got through their work. */
static void bench_fairness(const struct bench_worker *ws, int n, struct bench_result *r)
{
	double mean = 0, var = 0;

	r->ops_min = UINT64_MAX;
	r->ops_max = 0;
	for (int i = 0; i < n; i++) {
		mean += (double)ws[i].ops / n;
		r->ops_min = ws[i].ops < r->ops_min ? ws[i].ops : r->ops_min;
		r->ops_max = ws[i].ops > r->ops_max ? ws[i].ops : r->ops_max;
	}
	for (int i = 0; i < n; i++)
		var += ((double)ws[i].ops - mean) * ((double)ws[i].ops - mean) / n;
	r->ops_cv = mean > 0 ? sqrt(var) / mean : 0;
}

/* Sum what the threads measured into r. */
static void bench_collect(const struct bench_config *cfg, const struct bench_worker *ws,
			  struct bench_result *r)
{
	const int nthr = cfg->threads, total = nthr + cfg->readers;
	struct ctr_hist *upd = calloc(1, sizeof(*upd)), *rd = calloc(1, sizeof(*rd));
	double err_sum = 0;
	unsigned min_batch = 0;

	r->clock_source = PMU_SRC_PERF;
	r->overshoot_max = INT64_MIN;
	for (int i = 0; i < total; i++) {
		const struct bench_worker *w = &ws[i];

		r->task_clock_ns += w->cpu_ns;
		if (w->clk.source != PMU_SRC_PERF) {
			r->clock_source = w->clk.source;
			r->clock_errno = w->clk.open_errno;
		}
		r->cpu_requested[i] = w->cpu_requested;
		r->cpu_observed[i] = w->cpu_observed;
		r->bind_failures += w->bind_err != 0;
		/* An event missing on any thread has no total: a partial sum would mislead. */
		for (int e = 0; w->t_start && e < cfg->nr_events; e++) {
			if (w->ev_why[e] && !r->ev_why[e]) {
				r->ev_why[e] = w->ev_why[e];
				r->ev_tag[e] = w->ev_tag[e];
			}
			r->ev_total[e] += w->ev_val[e];
		}
		if (w->reader) {
			r->reads += w->ops;
			err_sum += w->err_sum;
			if (w->err_max > r->read_err_max)
				r->read_err_max = w->err_max;
			if (rd)
				ctr_hist_merge(rd, &w->hist);
			continue;
		}
		r->ops += w->ops;
		r->charge_fail += w->charge_fail;
		r->audited += w->audited;
		r->audit_rejected += w->audit_rejected;
		r->false_rejects += w->false_rejects;
		if (w->audited && w->overshoot_max > r->overshoot_max)
			r->overshoot_max = w->overshoot_max;
		if (upd)
			ctr_hist_merge(upd, &w->hist);
		if (w->lat_batch > r->lat.batch)
			r->lat.batch = w->lat_batch;
		if (w->lat_batch && (!min_batch || w->lat_batch < min_batch))
			min_batch = w->lat_batch;
	}
	bench_fairness(ws, nthr, r);
	/*
	 * Each updater's rate over its own window (it counts whole blocks of
	 * --sample ops between seeing the window open and close), summed: with
	 * long blocks (--work-ns) the main thread's window would not match.
	 */
	r->ops_per_sec = 0;
	for (int i = 0; i < nthr; i++)
		if (ws[i].t_end > ws[i].t_start && ws[i].t_start)
			r->ops_per_sec += (double)ws[i].ops * 1e9 / (double)(ws[i].t_end - ws[i].t_start);
	r->ns_per_op = r->ops_per_sec > 0 ? 1e9 * nthr / r->ops_per_sec : 0;
	/* CPU time of the updaters only would need per-role clocks; readers' share is in reads. */
	r->cpu_ns_per_op = r->ops && !cfg->readers ? (double)r->task_clock_ns / (double)r->ops : 0;
	r->reads_per_sec = r->seconds > 0 ? (double)r->reads / r->seconds : 0;
	r->read_err_mean = r->reads ? err_sum / (double)r->reads : 0;
	/* The coarsest per-op step any updater's samples have. */
	r->lat.resolution_ns = (double)cfg->tsc.resolution / cfg->tsc.ghz / (min_batch ? min_batch : 1);
	r->read_lat.resolution_ns = (double)cfg->tsc.resolution / cfg->tsc.ghz;
	if (upd)
		bench_summarize_latency(cfg, upd, cfg->workload == BENCH_UPDATE ? BENCH_LAT_SCALE : 1, &r->lat);
	if (rd)
		bench_summarize_latency(cfg, rd, 1, &r->read_lat);
	free(upd);
	free(rd);
}

/* The instance bench_run_one creates for cfg; limit: the charge workload's limits, NULL for the others. */
static struct ctr_params bench_run_params(const struct bench_config *cfg, const int64_t *limit)
{
	return (struct ctr_params){
		.nr_nodes = cfg->shape.nr_nodes,
		.parent = cfg->shape.parent,
		/* idle slots past the updaters' are real memory every read, flush and drain walks */
		.nr_cpus = cfg->slots > 0 ? cfg->slots : cfg->threads,
		.nr_stats = cfg->workload == BENCH_STORE ? BENCH_STORE_NR_STATS : 1,
		.options = cfg->options,
		.flush_period_ms = cfg->flush_period_ms,
		.slot_node = cfg->slot_node,
		.slot_l3 = cfg->slot_l3,
		.limit = limit,
		.batch = limit ? BENCH_CHARGE_BATCH : 0,
	};
}

/*
 * A thread's stack is reserved whole (8 MiB) but committed as it is
 * touched: a worker's loop and the perf reads touch a few pages.  Counted at
 * 64 KiB, so thousands of threads are not taken as free.
 */
#define BENCH_STACK_TOUCHED (64 << 10)

int bench_run_footprint(const struct bench_config *cfg, const struct bench_algo *ba, size_t *algo,
			size_t *harness)
{
	static const int64_t limit_present;	/* only whether the instance has limits counts */
	const size_t nthr = (size_t)cfg->threads, total = nthr + (size_t)cfg->readers;
	const size_t nodes = (size_t)cfg->shape.nr_nodes, depth = (size_t)cfg->shape.depth;
	struct ctr_params p = bench_run_params(cfg, bench_workload_charges(cfg->workload) ? &limit_present : NULL);
	size_t h;

	/* per thread: its worker, thread record, id, PUs asked and seen, its stack */
	h = ctr_size_mul(total, sizeof(struct bench_worker) + sizeof(struct bench_thread) + sizeof(pthread_t) +
			 2 * sizeof(int) + BENCH_STACK_TOUCHED);
	/* readers: what each has seen of every updater */
	h = ctr_size_add(h, ctr_size_mul((size_t)cfg->readers, ctr_alloc_footprint(nthr * sizeof(int64_t))));
	/* under[n] (a list and its count a node, the updaters on each path), verification's expected values */
	h = ctr_size_add(h, ctr_size_mul(nodes, sizeof(int *) + sizeof(int) + ctr_alloc_footprint(sizeof(int)) +
					 sizeof(int64_t)));
	h = ctr_size_add(h, ctr_size_mul(nthr, depth * sizeof(int)));
	if (bench_workload_charges(cfg->workload))	/* the limits and their helper counts */
		h = ctr_size_add(h, ctr_size_mul(nodes, sizeof(int64_t) + sizeof(int)));
	*harness = h;
	return ctr_footprint(ba->algo, &p, algo);
}

/* Each worker's part of cfg: updaters first, then readers, each with its node and timed loop. */
static void bench_run_workers(const struct bench_config *cfg, const struct bench_algo *ba,
			      struct bench_gate *gate, struct bench_worker *ws, struct bench_thread *th)
{
	const int nthr = cfg->threads, total = nthr + cfg->readers;

	for (int i = 0; i < total; i++) {
		ws[i].gate = gate;
		ws[i].reader = i >= nthr;
		ws[i].index = ws[i].reader ? i - nthr : i;
		ws[i].node = cfg->shape.leaves[i % cfg->shape.nr_leaves];
		ws[i].workload = cfg->workload;
		th[i].w = &ws[i];
		th[i].loop = ws[i].reader ? ba->read_loop : ba->loop[cfg->workload];
	}
}

/* The gate's copy of what every worker reads from cfg while it runs. */
static void bench_run_gate(const struct bench_config *cfg, struct bench_worker *ws, struct bench_gate *gate)
{
	gate->updaters = ws;
	gate->parent = cfg->shape.parent;
	gate->nr_nodes = cfg->shape.nr_nodes;
	gate->nr_updaters = cfg->threads;
	gate->leaves = cfg->shape.leaves;
	gate->nr_leaves = cfg->shape.nr_leaves;
	gate->read_node = cfg->read_node;
	gate->charge_burst = cfg->charge_burst;
	gate->read_interval_us = cfg->read_interval_us;
	gate->sample_every = cfg->sample_every ? cfg->sample_every : BENCH_SAMPLE_EVERY;
	gate->work_ticks = (uint64_t)(cfg->work_ns * cfg->tsc.ghz);
	gate->work_iters = (uint64_t)cfg->work_iters;
	gate->split = cfg->workload == BENCH_UPDATE;
	gate->tsc_overhead = cfg->tsc.overhead;
	gate->tsc_overhead_raw = cfg->tsc.overhead_raw;
	gate->tsc_resolution = cfg->tsc.resolution;
	gate->topo = cfg->topo;
	gate->pus = cfg->pus;
	gate->events = cfg->events;
	gate->nr_events = cfg->nr_events;
}

/*
 * A charging workload's burst and per-node limits into p, the gate and r;
 * *limit is the array (the caller frees it).  0 or -errno.
 */
static int bench_run_charge(const struct bench_config *cfg, const struct bench_algo *ba,
			    struct bench_worker *ws, struct bench_gate *gate, struct ctr_params *p,
			    struct bench_result *r, int64_t **limit)
{
	int err;

	p->batch = BENCH_CHARGE_BATCH;
	r->charge_burst = cfg->charge_burst;
	if (cfg->charge_burst == BENCH_BURST_FROM_BOUND) {
		err = bench_burst_from_bound(cfg, ba, p, &r->charge_burst);
		if (err)
			return err;
	}
	gate->charge_burst = r->charge_burst;
	*limit = bench_charge_limits(cfg, ws, r->charge_burst);
	if (!*limit)
		return -ENOMEM;
	p->limit = *limit;
	gate->limit = *limit;
	return 0;
}

/*
 * The phases, once every worker is ready: warmup, the measured window
 * (from *t0 to *t1), the latency phase of the update workload, then stop.
 */
static void bench_run_window(const struct bench_config *cfg, const struct bench_algo *ba, struct ctr_tree *t,
			     struct bench_gate *gate, struct ctr_flush_stats *fs, struct bench_result *r,
			     uint64_t *t0, uint64_t *t1)
{
	const int total = cfg->threads + cfg->readers;

	while (atomic_load_explicit(&gate->ready, memory_order_acquire) < total)
		bench_sleep_ms(1);
	atomic_store_explicit(&gate->phase, BENCH_WARMUP, memory_order_release);
	bench_sleep_ms(cfg->warmup_ms);
	/*
	 * The window's flushes only.  Reset before the window opens: the reset
	 * takes the flush lock and can wait behind flushes, which must not
	 * come out of the window's time.
	 */
	if (r->has_flush)
		ba->algo->flush_stats(t, fs, 1);
	bench_hitm_window(1);	/* --c2c: perf's events on, before the window's clock starts */
	*t0 = bench_time_ns();
	atomic_store_explicit(&gate->phase, BENCH_MEASURE, memory_order_release);
	bench_sleep_ms(cfg->duration_ms);
	if (gate->split) {
		/*
		 * Throughput ends here; latency is timed apart, for a quarter of the
		 * window (1-250 ms).  The flushes are read out first: they are per op
		 * of this window, and the latency phase's stores flush too (they made
		 * rstat_force's 8 flushes a store read 9.1 where few ops fit the window).
		 */
		if (r->has_flush) {
			ba->algo->flush_stats(t, fs, 0);
			r->flush = *fs;
		}
		atomic_store_explicit(&gate->phase, BENCH_LATENCY, memory_order_release);
		*t1 = bench_time_ns();
		bench_hitm_window(0);	/* the throughput window only: the latency phase times its ops */
		bench_sleep_ms(bench_latency_ms(cfg->duration_ms));
	}
	atomic_store_explicit(&gate->phase, BENCH_STOP, memory_order_release);
	if (!gate->split) {
		*t1 = bench_time_ns();
		bench_hitm_window(0);
	}
}

/* The instance, its memory placed by --shared-mem; 0 or -errno. */
static int bench_run_tree(const struct bench_config *cfg, const struct bench_algo *ba,
			  const struct ctr_params *p, struct ctr_tree **t)
{
	int err = bench_shared_mem_policy(cfg->shared_mem);

	if (err)
		return err;
	*t = ctr_tree_new(ba->algo, p);
	err = *t ? 0 : -errno;
	if (cfg->shared_mem)
		set_mempolicy(MPOL_DEFAULT, NULL, 0);
	return err;
}

int bench_run_one(const struct bench_config *cfg, const struct bench_algo *ba,
		  struct bench_result *r)
{
	const int nthr = cfg->threads, total = nthr + cfg->readers;
	struct bench_gate gate __ctr_aligned = { 0 };
	struct bench_worker *ws = NULL;
	struct bench_thread *th = NULL;
	pthread_t *tids = NULL;
	struct ctr_params p = bench_run_params(cfg, NULL);
	struct ctr_flush_stats *fs = NULL;
	struct ctr_tree *t = NULL;
	int64_t *limit = NULL;
	uint64_t t0 = 0, t1 = 0;
	struct bench_noise_sample host0, host1;
	int started = 0, err = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->ba = ba;
	bench_noise_clear(&r->host);
	ws = ctr_zalloc_aligned(sizeof(*ws) * total);
	th = calloc(total, sizeof(*th));
	tids = calloc(total, sizeof(*tids));
	fs = calloc(1, sizeof(*fs));
	r->cpu_requested = calloc(total, sizeof(int));
	r->cpu_observed = calloc(total, sizeof(int));
	if (!ws || !th || !tids || !fs || !r->cpu_requested || !r->cpu_observed)
		goto out;
	bench_run_workers(cfg, ba, &gate, ws, th);
	for (int i = bench_workload_charges(cfg->workload) ? 0 : nthr; i < total; i++) {
		/* written every read (or audit): on lines of its own, not shared with another thread's */
		ws[i].seen = ctr_zalloc_aligned(nthr * sizeof(int64_t));
		if (!ws[i].seen)
			goto out;
	}
	bench_run_gate(cfg, ws, &gate);
	err = bench_build_under(cfg, ws, &gate);
	if (!err && bench_workload_charges(cfg->workload))
		err = bench_run_charge(cfg, ba, ws, &gate, &p, r, &limit);
	if (!err)
		err = bench_run_tree(cfg, ba, &p, &t);
	if (err)
		goto out;
	bench_hitm_tree(ba->name, t);	/* --c2c: its layout map, and perf attached (events off) */
	r->has_flush = ba->algo->flush_stats != NULL;
	/* the host from the threads' start to their join: warm-up, window and latency phase */
	bench_noise_sample(&host0);
	for (int i = 0; i < total; i++) {
		ws[i].tree = t;
		err = -pthread_create(&tids[i], NULL, bench_worker_main, &th[i]);
		if (err) {
			r->thread_failed = i + 1;
			break;
		}
		started++;
	}
	if (!err)
		bench_run_window(cfg, ba, t, &gate, fs, r, &t0, &t1);
	/* On a failed start the gate goes straight to STOP, so started threads exit. */
	atomic_store_explicit(&gate.phase, BENCH_STOP, memory_order_release);
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	bench_noise_sample(&host1);
	bench_noise_interval(&host0, &host1, &r->host);
	if (err)
		goto out;
	/* Before verification, whose exact reads flush. */
	if (r->has_flush && !gate.split) {
		ba->algo->flush_stats(t, fs, 0);
		r->flush = *fs;
	}
	r->seconds = (double)(t1 - t0) / 1e9;
	bench_collect(cfg, ws, r);
	r->error_bound = ctr_read_error_bound(t);
	bench_verify(cfg, ba, t, ws, limit, r);
out:
	if (t)
		bench_hitm_tree_done();	/* --c2c: perf stopped, its samples named through the live tree's map */
	ctr_tree_free(t);
	bench_free_under(cfg, &gate);
	free(limit);
	free(fs);
	free(tids);
	free(th);
	for (int i = 0; ws && i < total; i++)
		free(ws[i].seen);
	free(ws);
	return err;
}

void bench_result_free(struct bench_result *r)
{
	free(r->cpu_requested);
	free(r->cpu_observed);
	r->cpu_requested = r->cpu_observed = NULL;
}

const char *bench_work_refusal(int workload, int work_ns, int work_iters)
{
	if (work_ns && workload == BENCH_READERS)
		return "--work-ns applies to the update, charge and store workloads, not to readers";
	/* the update loop alone counts iterations; --work-ns already sets the work */
	if (work_iters && (workload != BENCH_UPDATE || work_ns))
		return "--work-iters applies to the update workload, without --work-ns";
	return NULL;
}
