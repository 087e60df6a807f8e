/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
		w->ops = ops;
		w->charge_fail = fails;
		w->cpu_ns = pmu_task_clock_read(&w->clk);
		w->t_start = bench_time_ns();
		return 0;
	}
	if (phase != BENCH_STOP)
		return 0;
	w->t_end = bench_time_ns();
	if (!w->t_start) {
		/* Preempted through the whole window: it measured nothing. */
		ctr_hist_reset(&w->hist);
		w->ops = w->charge_fail = w->cpu_ns = 0;
		return 1;
	}
	w->ops = ops - w->ops;
	w->charge_fail = fails - w->charge_fail;
	w->cpu_ns = pmu_task_clock_read(&w->clk) - w->cpu_ns;
	return 1;
}

struct bench_thread {
	struct bench_worker *w;		/* its worker */
	bench_loop_fn loop;		/* the timed loop to run */
};

static void *bench_worker_main(void *arg)
{
	struct bench_thread *th = arg;
	struct bench_worker *w = th->w;

	w->cpu_requested = topo_pin_self(w->index);
	pmu_task_clock_open(&w->clk);
	atomic_fetch_add_explicit(&w->gate->ready, 1, memory_order_release);
	/* Yield, not spin: there are usually more workers than CPUs here. */
	while (atomic_load_explicit(&w->gate->phase, memory_order_acquire) == BENCH_WAIT)
		sched_yield();
	th->loop(w);
	w->cpu_observed = topo_current_cpu();
	pmu_task_clock_close(&w->clk);
	return NULL;
}

/* Charge workload limits: 3/4 of what the workers below a node can hold, so some charges fail. */
static int64_t *bench_charge_limits(const struct bench_config *cfg, const struct bench_worker *ws)
{
	const struct bench_shape *s = &cfg->shape;
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
		limit[n] = below[n] ? (int64_t)BENCH_CHARGE_UNIT * BENCH_CHARGE_WINDOW * below[n] * 3 / 4
				    : CTR_NO_LIMIT;
	free(below);
	return limit;
}

static double bench_ticks_to_ns(const struct bench_config *cfg, double ticks)
{
	ticks -= (double)cfg->tsc.overhead;
	return ticks > 0 ? ticks / cfg->tsc.ghz : 0;
}

static void bench_summarize_latency(const struct bench_config *cfg, const struct ctr_hist *h,
				    struct bench_lat *lat)
{
	lat->samples = h->count;
	if (!h->count)
		return;
	lat->mean = bench_ticks_to_ns(cfg, (double)h->sum / (double)h->count);
	lat->p50 = bench_ticks_to_ns(cfg, (double)ctr_hist_quantile(h, 0.50));
	lat->p90 = bench_ticks_to_ns(cfg, (double)ctr_hist_quantile(h, 0.90));
	lat->p99 = bench_ticks_to_ns(cfg, (double)ctr_hist_quantile(h, 0.99));
	lat->max = bench_ticks_to_ns(cfg, (double)h->max);
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
	for (int n = 0; n < s->nr_nodes; n++) {
		int64_t exact = ctr_read_exact(t, n, 0);
		int64_t expect = ba->verify == BENCH_VERIFY_TOTAL ? total : want[n];

		if (r->verify == 1 && exact != expect) {
			r->verify = 0;
			r->bad_node = n;
			r->got = exact;
			r->want = expect;
		}
		if (bench_abs64(ctr_read(t, n, 0) - exact) > r->read_error)
			r->read_error = bench_abs64(ctr_read(t, n, 0) - exact);
		/* A single shared word is checked against the root's limit only. */
		if (limit && limit[n] != CTR_NO_LIMIT && exact - limit[n] > r->limit_max_over &&
		    (ba->verify != BENCH_VERIFY_TOTAL || n == 0))
			r->limit_max_over = exact - limit[n];
	}
	free(want);
}

int bench_run_one(const struct bench_config *cfg, const struct bench_algo *ba,
		  struct bench_result *r)
{
	const int nthr = cfg->threads;
	struct bench_gate gate __ctr_aligned = { 0 };
	struct bench_worker *ws = NULL;
	struct bench_thread *th = NULL;
	pthread_t *tids = NULL;
	struct ctr_hist *all = NULL;
	struct ctr_params p = {
		.nr_nodes = cfg->shape.nr_nodes,
		.parent = cfg->shape.parent,
		.nr_cpus = nthr,
		.nr_stats = 1,
	};
	struct ctr_tree *t = NULL;
	int64_t *limit = NULL;
	uint64_t t0 = 0, t1 = 0;
	int started = 0, err = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->ba = ba;
	ws = ctr_zalloc_aligned(sizeof(*ws) * nthr);
	th = calloc(nthr, sizeof(*th));
	tids = calloc(nthr, sizeof(*tids));
	all = calloc(1, sizeof(*all));
	r->cpu_requested = calloc(nthr, sizeof(int));
	r->cpu_observed = calloc(nthr, sizeof(int));
	if (!ws || !th || !tids || !all || !r->cpu_requested || !r->cpu_observed)
		goto out;
	for (int i = 0; i < nthr; i++) {
		ws[i].gate = &gate;
		ws[i].index = i;
		ws[i].node = cfg->shape.leaves[i % cfg->shape.nr_leaves];
		ws[i].workload = cfg->workload;
		th[i].w = &ws[i];
		th[i].loop = ba->loop[cfg->workload];
	}
	if (cfg->workload == BENCH_CHARGE) {
		limit = bench_charge_limits(cfg, ws);
		if (!limit)
			goto out;
		p.limit = limit;
	}
	t = ctr_tree_new(ba->algo, &p);
	if (!t) {
		err = -errno;
		goto out;
	}
	for (int i = 0; i < nthr; i++) {
		ws[i].tree = t;
		err = -pthread_create(&tids[i], NULL, bench_worker_main, &th[i]);
		if (err)
			goto stop;
		started++;
	}
	while (atomic_load_explicit(&gate.ready, memory_order_acquire) < nthr)
		bench_sleep_ms(1);
	atomic_store_explicit(&gate.phase, BENCH_WARMUP, memory_order_release);
	bench_sleep_ms(cfg->warmup_ms);
	t0 = bench_time_ns();
	atomic_store_explicit(&gate.phase, BENCH_MEASURE, memory_order_release);
	bench_sleep_ms(cfg->duration_ms);
	atomic_store_explicit(&gate.phase, BENCH_STOP, memory_order_release);
	t1 = bench_time_ns();
	err = 0;
stop:
	/* On a failed start the gate goes straight to STOP, so started workers exit. */
	atomic_store_explicit(&gate.phase, BENCH_STOP, memory_order_release);
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	if (err)
		goto out;

	r->seconds = (double)(t1 - t0) / 1e9;
	r->clock_source = PMU_SRC_PERF;
	for (int i = 0; i < nthr; i++) {
		r->ops += ws[i].ops;
		r->charge_fail += ws[i].charge_fail;
		r->task_clock_ns += ws[i].cpu_ns;
		if (ws[i].clk.source != PMU_SRC_PERF) {
			r->clock_source = ws[i].clk.source;
			r->clock_errno = ws[i].clk.open_errno;
		}
		r->cpu_requested[i] = ws[i].cpu_requested;
		r->cpu_observed[i] = ws[i].cpu_observed;
		ctr_hist_merge(all, &ws[i].hist);
	}
	r->ops_per_sec = r->seconds > 0 ? (double)r->ops / r->seconds : 0;
	r->ns_per_op = r->ops ? r->seconds * 1e9 * nthr / (double)r->ops : 0;
	r->cpu_ns_per_op = r->ops ? (double)r->task_clock_ns / (double)r->ops : 0;
	bench_summarize_latency(cfg, all, &r->lat);
	r->error_bound = ctr_read_error_bound(t);
	bench_verify(cfg, ba, t, ws, limit, r);
out:
	ctr_tree_free(t);
	free(limit);
	free(all);
	free(tids);
	free(th);
	free(ws);
	return err;
}

void bench_result_free(struct bench_result *r)
{
	free(r->cpu_requested);
	free(r->cpu_observed);
	r->cpu_requested = r->cpu_observed = NULL;
}
