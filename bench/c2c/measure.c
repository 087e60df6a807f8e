/* SPDX-License-Identifier: MIT */
/*
 * c2c/measure.c - c2c's measuring (c2c.h): two pinned threads bounce one cache
 * line, pair by pair, rep by rep.
 *
 * The CAS op is core-to-core-latency's (nviennot) method, so that its figures
 * can be set beside that tool's: a one-byte flag, PING -> PONG by the pong
 * thread and PONG -> PING by the ping thread with relaxed compare-exchange,
 * a sample = I round trips timed by ping, one-way = sample / I / 2, the first
 * sample thrown away as warm-up, and a pair's figure the mean of S samples.
 * Reps repeat every pair K times (reps outermost, so drift of a shared machine
 * spreads over all pairs); a pair's figure is the median over reps with an
 * order-statistic interval (bench_stat_of), a class's the median, p10 and p90
 * of its pairs' figures (output.c, with stats.c's functions).
 *
 * Not through the executor (exec.c, run.c's workers): run's workers each loop
 * over a counter algorithm's op for a timed window, and what c2c times is a
 * round trip between two threads with different roles (ping times, pong
 * answers), counted in round trips, not in a window; and the executor's
 * process per configuration would cost every one of c2c's measurements a
 * fork (docs/c2c.md, "Why c2c has its own threads", has the measurement).
 *
 * Nothing is measured in a function called through a pointer: each op has its
 * own loops, chosen by a switch outside them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../stats.h"
#include "../tsc.h"
#include "c2c.h"

const char *const c2c_op_names[C2C_NR_OPS] = { "cas", "load-store", "fetch-add" };
const char *const c2c_op_figure[C2C_NR_OPS] = {
	"one-way ns: CAS round trip / 2",
	"one-way ns: store-then-wait round trip / 2",
	"ns per fetch-add: 2 x window / adds of both CPUs (run's ns/op)",
};

#define C2C_PING 0
#define C2C_PONG 1

struct c2c_shared {
	pthread_barrier_t start;	/* both bound and their counters open */
	int failed;			/* a worker could not bind: the other returns after start */
	enum c2c_op op;
	int iters, samples;		/* samples: including the warm-up one */
	void *line;			/* the home's page: the flag or word is its first bytes */
	/* fetch-add: ping tells pong to stop, on a line of its own so pong's polls do not bounce the measured one */
	_Alignas(C2C_LINE) volatile int stop;
	char pad[C2C_LINE - sizeof(int)];
};

/* One of the two threads; the main thread reads what it wrote only after pthread_join. */
struct c2c_worker {
	pthread_t th;			/* the thread */
	struct c2c_shared *sh;		/* what both share */
	const struct topo *t;		/* to bind with */
	int cpu, role;			/* OS CPU to run on; C2C_PING or C2C_PONG */
	int bind_err;			/* -errno of topo_bind_self, 0 */
	double *ns;			/* ping: one figure per sample (samples entries) */
	uint64_t ops;			/* fetch-add: adds done */
	const struct pmu_event_spec *ev;/* events to count on itself, nr_ev of them (0: none) */
	int nr_ev;
	uint64_t ev_val[PMU_MAX_EVENTS];/* each event over the whole measurement */
	int ev_counted[PMU_MAX_EVENTS];	/* 1 where ev_val is a count */
	const char *ev_reason;		/* the first event's reason when it is not counted */
};

static void c2c_cas_ping(struct c2c_shared *sh, double *ns)
{
	uint8_t *flag = sh->line;

	for (int s = 0; s < sh->samples; s++) {
		uint64_t t0 = bench_time_ns(), t1;

		for (int i = 0; i < sh->iters; i++) {
			uint8_t want;

			do
				want = C2C_PONG;
			while (!__atomic_compare_exchange_n(flag, &want, C2C_PING, 0, __ATOMIC_RELAXED,
							    __ATOMIC_RELAXED));
		}
		t1 = bench_time_ns();
		ns[s] = (double)(t1 - t0) / sh->iters / 2;
	}
}

static void c2c_cas_pong(struct c2c_shared *sh)
{
	uint8_t *flag = sh->line;
	long n = (long)sh->iters * sh->samples;

	for (long i = 0; i < n; i++) {
		uint8_t want;

		do
			want = C2C_PING;
		while (!__atomic_compare_exchange_n(flag, &want, C2C_PONG, 0, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED));
	}
}

/* load-store: ping stores an odd number and waits for pong's even one; plain loads and stores. */
static void c2c_ls_ping(struct c2c_shared *sh, double *ns)
{
	uint64_t *word = sh->line, k = 0;

	for (int s = 0; s < sh->samples; s++) {
		uint64_t t0 = bench_time_ns(), t1;

		for (int i = 0; i < sh->iters; i++, k += 2) {
			__atomic_store_n(word, k + 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != k + 2)
				;
		}
		t1 = bench_time_ns();
		ns[s] = (double)(t1 - t0) / sh->iters / 2;
	}
}

static void c2c_ls_pong(struct c2c_shared *sh)
{
	uint64_t *word = sh->line;
	uint64_t n = (uint64_t)sh->iters * sh->samples;

	for (uint64_t k = 0; k < 2 * n; k += 2) {
		while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != k + 1)
			;
		__atomic_store_n(word, k + 2, __ATOMIC_RELEASE);
	}
}

/* fetch-add: both add as fast as they can (shared_atomic's update); ping times its samples. */
static uint64_t c2c_fa_ping(struct c2c_shared *sh, double *ns)
{
	uint64_t *word = sh->line;

	for (int s = 0; s < sh->samples; s++) {
		uint64_t t0 = bench_time_ns(), t1;

		for (int i = 0; i < sh->iters; i++)
			__atomic_fetch_add(word, 1, __ATOMIC_RELAXED);
		t1 = bench_time_ns();
		ns[s] = (double)(t1 - t0) / sh->iters;
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	return (uint64_t)sh->iters * sh->samples;
}

static uint64_t c2c_fa_pong(struct c2c_shared *sh)
{
	uint64_t *word = sh->line, n = 0;

	/* the stop flag is read once per 64 adds: its line stays shared, not bounced */
	while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < 64; i++)
			__atomic_fetch_add(word, 1, __ATOMIC_RELAXED);
		n += 64;
	}
	return n;
}

static void *c2c_worker_main(void *arg)
{
	struct c2c_worker *w = arg;
	struct c2c_shared *sh = w->sh;
	struct pmu_count c0[PMU_MAX_EVENTS], c1[PMU_MAX_EVENTS];
	struct pmu_group g = { 0 };

	w->bind_err = topo_bind_self(w->t, w->cpu);
	if (w->bind_err)
		__atomic_store_n(&sh->failed, 1, __ATOMIC_RELAXED);
	if (w->nr_ev) {
		pmu_group_open(&g, w->ev, w->nr_ev);
		pmu_group_read(&g, NULL, c0);
	}
	pthread_barrier_wait(&sh->start);
	if (__atomic_load_n(&sh->failed, __ATOMIC_RELAXED))
		goto out;
	switch (sh->op * 2 + w->role) {
	case C2C_CAS * 2 + C2C_PING:
		c2c_cas_ping(sh, w->ns);
		break;
	case C2C_CAS * 2 + C2C_PONG:
		c2c_cas_pong(sh);
		break;
	case C2C_LOAD_STORE * 2 + C2C_PING:
		c2c_ls_ping(sh, w->ns);
		break;
	case C2C_LOAD_STORE * 2 + C2C_PONG:
		c2c_ls_pong(sh);
		break;
	case C2C_FETCH_ADD * 2 + C2C_PING:
		w->ops = c2c_fa_ping(sh, w->ns);
		break;
	default:
		w->ops = c2c_fa_pong(sh);
	}
out:
	if (w->nr_ev) {
		pmu_group_read(&g, NULL, c1);
		for (int i = 0; i < w->nr_ev; i++) {
			const char *why = pmu_group_delta(&g, i, c0, c1, &w->ev_val[i]);

			w->ev_counted[i] = !why;
			if (why && !w->ev_reason)
				w->ev_reason = why;
		}
		pmu_group_close(&g);
	}
	return NULL;
}


/* What one measurement of one pair gave. */
struct c2c_meas {
	double ns;			/* mean over the samples after the warm-up one */
	double p50;			/* their median: what a preempted sample does not move */
	double transfers;		/* line moves the events are divided by */
	uint64_t ev_val[PMU_MAX_EVENTS];/* both threads' counts summed */
	int ev_counted[PMU_MAX_EVENTS];
	const char *ev_reason;
};

/* Measure pair (a, b) once on the line at page.  0, or -errno (binding refused, no threads). */
static int c2c_measure(const struct topo *t, int a, int b, enum c2c_op op, int iters, int samples,
		       void *page, const struct pmu_event_spec *ev, int nr_ev, struct c2c_meas *m)
{
	struct c2c_shared *sh;
	struct c2c_worker w[2] = { 0 };
	double *ns = malloc(sizeof(double) * (samples + 1));
	int ret = 0, started = 0;

	memset(m, 0, sizeof(*m));
	if (!ns || posix_memalign((void **)&sh, C2C_LINE, sizeof(*sh))) {
		free(ns);
		return -ENOMEM;
	}
	memset(sh, 0, sizeof(*sh));
	sh->op = op;
	sh->iters = iters;
	sh->samples = samples + 1;	/* the first is the warm-up, as core-to-core-latency's */
	sh->line = page;
	memset(page, 0, C2C_LINE);	/* flag PING, word 0 */
	pthread_barrier_init(&sh->start, NULL, 2);
	for (int i = 0; i < 2; i++) {
		w[i] = (struct c2c_worker){ .sh = sh, .t = t, .cpu = i ? b : a, .role = i ? C2C_PONG : C2C_PING,
					    .ns = ns, .ev = ev, .nr_ev = nr_ev };
		ret = -pthread_create(&w[i].th, NULL, c2c_worker_main, &w[i]);
		if (ret)
			break;
		started++;
	}
	if (started < 2) {
		/* the one started waits at the barrier: let it through, telling it to stop */
		sh->failed = 1;
		if (started)
			pthread_barrier_wait(&sh->start);
	}
	for (int i = 0; i < started; i++)
		pthread_join(w[i].th, NULL);
	if (!ret)
		ret = w[0].bind_err ? w[0].bind_err : w[1].bind_err;
	if (!ret) {
		double sum = 0;

		for (int s = 1; s <= samples; s++)
			sum += ns[s];
		m->ns = sum / samples;
		if (op == C2C_FETCH_ADD && w[0].ops + w[1].ops) {
			/*
			 * As run's ns/op (threads x window / ops of all): both CPUs' adds over
			 * ping's window, warm-up included as pong counts from the same start.
			 * Not ping's own time per add: a CPU that holds the line longer than
			 * the other does more adds, and run's figure counts them all.
			 */
			double window = 0;

			for (int s = 0; s <= samples; s++)
				window += ns[s] * iters;
			m->ns = 2 * window / (double)(w[0].ops + w[1].ops);
		}
		m->p50 = cmp_median(ns + 1, samples);
		m->transfers = op == C2C_FETCH_ADD ? (double)(w[0].ops + w[1].ops)
						   : 2.0 * iters * (samples + 1);
		for (int i = 0; i < nr_ev; i++) {
			m->ev_counted[i] = w[0].ev_counted[i] && w[1].ev_counted[i];
			m->ev_val[i] = w[0].ev_val[i] + w[1].ev_val[i];
		}
		m->ev_reason = w[0].ev_reason ? w[0].ev_reason : w[1].ev_reason;
	}
	pthread_barrier_destroy(&sh->start);
	free(sh);
	free(ns);
	return ret;
}

static volatile sig_atomic_t c2c_stopped;

static void c2c_on_signal(int sig)
{
	(void)sig;
	c2c_stopped = 1;
}

double c2c_estimate(const struct c2c_opts *o, long measurements, double one_way_ns)
{
	double per = (double)o->iters * (o->samples + 1) * one_way_ns * (o->op == C2C_FETCH_ADD ? 1 : 2);

	return (double)measurements * o->reps * (per + C2C_SETUP_NS) / 1e9;
}

void c2c_measure_all(struct c2c_run *r)
{
	const struct c2c_opts *o = r->o;
	const struct c2c_plan *p = &r->plan;
	struct sigaction sa = { .sa_handler = c2c_on_signal, .sa_flags = SA_RESTART | SA_RESETHAND };
	uint64_t t0 = bench_time_ns();
	int first = 1;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (int rep = 0; rep < o->reps && !c2c_stopped; rep++) {
		long done = 0;	/* measurements of this pass: a pass is done when all are */

		for (int h = 0; h < r->nr_homes && !c2c_stopped; h++) {
			for (int i = 0; i < p->nr_pairs && !c2c_stopped; i++) {
				struct c2c_meas m;
				uint64_t m0 = bench_time_ns();
				int ret = c2c_measure(r->t, p->pairs[i].a, p->pairs[i].b, o->op, o->iters,
						      o->samples, r->homes[h].page, r->ev,
						      r->ev_reason ? 0 : r->nr_ev, &m);

				if (ret) {
					/* Not bad input: the machine refused.  Print what was measured, exit 1. */
					fprintf(stderr, "ctrbench: c2c: cannot measure CPUs %d and %d: %s\n",
						p->pairs[i].a, p->pairs[i].b, strerror(-ret));
					c2c_stopped = 2;
					break;
				}
				c2c_res(r, h, i)[rep] = m.ns;
				done++;
				r->res_p50[c2c_res(r, h, i) - r->res + rep] = m.p50;
				if (m.ev_reason && !r->ev_reason) {
					/* said once; counting stops (no PMU does not come back) */
					r->ev_reason = m.ev_reason;
				}
				if (r->nr_ev && !r->ev_reason) {
					int cls = p->pairs[i].cls;

					r->tr_sum[h * TOPO_NR_CLASSES + cls] += m.transfers;
					for (int e = 0; e < r->nr_ev; e++)
						r->ev_sum[((size_t)h * TOPO_NR_CLASSES + cls) * r->nr_ev + e] +=
							(double)m.ev_val[e];
				}
				if (first) {
					double took = (double)(bench_time_ns() - m0) / 1e9;
					long left = (long)p->nr_pairs * r->nr_homes * o->reps - 1;

					fprintf(stderr, "ctrbench: c2c: first pair took %.3f s: about %.0f s to go\n",
						took, took * left);
					first = 0;
				}
			}
		}
		if (done == (long)r->nr_homes * p->nr_pairs)
			r->reps_done++;
	}
	r->elapsed_s = (double)(bench_time_ns() - t0) / 1e9;
	r->stopped = c2c_stopped;
}
