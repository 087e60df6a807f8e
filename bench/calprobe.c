/* SPDX-License-Identifier: MIT */
/*
 * calprobe.c - the projection's calibration probes (calprobe.h), run by
 * `ctrbench project --validate` on this machine.
 *
 * Every probe's threads are bound to their PUs, then ask for SCHED_FIFO
 * (the lowest real-time priority): a probe of two threads measures the
 * hardware only while both are running, and on a shared or oversubscribed
 * host a SCHED_OTHER thread is preempted for whole time slices, which reads
 * as a long burst (one thread adding alone), a slow hop, or a late wake-up.
 * Where the kernel refuses SCHED_FIFO (no CAP_SYS_NICE, an RLIMIT_RTPRIO of
 * 0) the probe runs SCHED_OTHER and its result says so.  SCHED_FIFO is
 * asked for only once the thread is bound to its own PU, never on a PU the
 * other thread shares: two FIFO threads spinning on one CPU would never
 * yield to each other.  The kernel's real-time throttling (by default 95% of
 * each second) bounds what a probe can take from the rest of the machine;
 * every probe spins for tens of milliseconds at most.
 *
 * The two threads meet at a pthread barrier (blocking, so that the thread
 * created first does not spin on a CPU the creating thread needs), then at a
 * spin rendezvous, so that the timed part starts with both running.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "calprobe.h"
#include "stats.h"
#include "tsc.h"

#define CP_LINE 64

struct cp_pair;
typedef void (*cp_fn)(struct cp_pair *p, int role);

/* Two threads, each bound to its PU, running fn(p, role) once both are there. */
struct cp_pair {
	const struct topo *t;
	int pu[2];
	cp_fn fn;
	void *arg;			/* the probe's state */
	pthread_barrier_t start;
	_Atomic int arrived, failed;
	int fifo[2];
	char why[96];			/* why SCHED_FIFO was not had, from the first thread refused it */
	pthread_mutex_t why_lock;
};

static void cp_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* SCHED_FIFO for the calling thread, bound already; 1, or 0 with the reason in why. */
static int cp_fifo(char *why, size_t len)
{
	struct sched_param sp = { .sched_priority = sched_get_priority_min(SCHED_FIFO) };
	int e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

	if (!e)
		return 1;
	snprintf(why, len, "SCHED_OTHER, SCHED_FIFO refused: %s", strerror(e));
	return 0;
}

struct cp_arg {
	struct cp_pair *p;
	int role;
};

static void *cp_main(void *arg)
{
	struct cp_pair *p = ((struct cp_arg *)arg)->p;
	const int role = ((struct cp_arg *)arg)->role;
	char why[96] = "";

	if (topo_bind_self(p->t, p->pu[role]))
		atomic_store(&p->failed, 1);
	else if (p->pu[0] != p->pu[1])
		p->fifo[role] = cp_fifo(why, sizeof(why));
	if (why[0]) {
		pthread_mutex_lock(&p->why_lock);
		if (!p->why[0])
			snprintf(p->why, sizeof(p->why), "%s", why);
		pthread_mutex_unlock(&p->why_lock);
	}
	pthread_barrier_wait(&p->start);
	atomic_fetch_add(&p->arrived, 1);
	while (atomic_load(&p->arrived) < 2)
		cp_relax();
	if (!atomic_load(&p->failed))
		p->fn(p, role);
	return NULL;
}

/* Run fn on PUs a and b; 0, or -1 if a thread could not be started or bound (fn not run). */
static int cp_run_pair(const struct topo *t, int a, int b, cp_fn fn, void *arg, struct calprobe_how *how)
{
	struct cp_pair p = { .t = t, .pu = { a, b }, .fn = fn, .arg = arg };
	struct cp_arg args[2] = { { &p, 0 }, { &p, 1 } };
	pthread_t th[2];
	int started = 0;

	if (a == b)
		return -1;
	pthread_barrier_init(&p.start, NULL, 2);
	pthread_mutex_init(&p.why_lock, NULL);
	for (; started < 2; started++)
		if (pthread_create(&th[started], NULL, cp_main, &args[started]))
			break;
	if (started < 2) {
		/* the one started waits at the barrier: let it through to find the failure */
		atomic_store(&p.failed, 1);
		if (started) {
			pthread_barrier_wait(&p.start);
			atomic_fetch_add(&p.arrived, 1);
		}
	}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&p.start);
	pthread_mutex_destroy(&p.why_lock);
	how->fifo = p.fifo[0] && p.fifo[1];
	snprintf(how->why, sizeof(how->why), "%s", how->fifo ? "SCHED_FIFO" : p.why[0] ? p.why : "SCHED_OTHER");
	return started < 2 || atomic_load(&p.failed) ? -1 : 0;
}

/* ---- the one-way transfer: a load/store ping-pong ---- */

#define CP_PP_SAMPLES 32	/* the first one a warm-up, dropped */
#define CP_PP_ITERS 1000	/* round trips per sample, as c2c's default --iters */

struct cp_pingpong {
	_Alignas(CP_LINE) _Atomic uint64_t word;
	char pad[CP_LINE - sizeof(uint64_t)];
	double ns[CP_PP_SAMPLES];
};

/*
 * Ping stores an odd number and waits for pong's next even one: each store
 * is one hop of the line (a plain store, no locked instruction), two hops a
 * round trip.  A sample is timed by ping over its round trips alone.
 */
static void cp_pingpong_fn(struct cp_pair *p, int role)
{
	struct cp_pingpong *pp = p->arg;
	uint64_t k = 0;

	if (role) {
		for (long i = 0; i < (long)CP_PP_SAMPLES * CP_PP_ITERS; i++, k += 2) {
			while (atomic_load_explicit(&pp->word, memory_order_acquire) != k + 1)
				;
			atomic_store_explicit(&pp->word, k + 2, memory_order_release);
		}
		return;
	}
	for (int s = 0; s < CP_PP_SAMPLES; s++) {
		uint64_t t0 = bench_time_ns();

		for (int i = 0; i < CP_PP_ITERS; i++, k += 2) {
			atomic_store_explicit(&pp->word, k + 1, memory_order_release);
			while (atomic_load_explicit(&pp->word, memory_order_acquire) != k + 2)
				;
		}
		pp->ns[s] = (double)(bench_time_ns() - t0) / (2.0 * CP_PP_ITERS);
	}
}

double calprobe_one_way_ns(const struct topo *t, int a, int b, struct calprobe_how *how)
{
	struct cp_pingpong *pp = aligned_alloc(CP_LINE, sizeof(*pp));
	double ns = -1;

	if (!pp)
		return -1;
	memset(pp, 0, sizeof(*pp));
	if (!cp_run_pair(t, a, b, cp_pingpong_fn, pp, how))
		ns = cmp_median(pp->ns + 1, CP_PP_SAMPLES - 1);
	free(pp);
	return ns;
}

/* ---- the handover burst: two threads adding to one word ---- */

#define CP_BURST_RUNS 7
#define CP_BURST_ADDS 200000L

struct cp_adders {
	_Alignas(CP_LINE) _Atomic long word;
	/* the first thread done stops the other: read every 64 adds, a line both keep shared till then */
	_Alignas(CP_LINE) _Atomic int stop;
	_Alignas(CP_LINE) long adds[2], hand[2];
	uint64_t ns;		/* thread 0's window */
};

/*
 * Each add's returned value says whether the other thread added since this
 * thread's previous add: if it is not that add's value + 1, the line went to
 * the other thread and came back, one handover (counted by the thread it
 * came back to).  The count is in registers: it puts no access on any line.
 */
static void cp_adders_fn(struct cp_pair *p, int role)
{
	struct cp_adders *ad = p->arg;
	long last = 0, hand = 0, n = 0;
	uint64_t t0 = bench_time_ns();

	for (;; n++) {
		long v;

		if (!(n & 63) && (n >= CP_BURST_ADDS || atomic_load_explicit(&ad->stop, memory_order_relaxed)))
			break;
		v = atomic_fetch_add_explicit(&ad->word, 1, memory_order_relaxed);
		hand += n && v != last + 1;
		last = v;
	}
	atomic_store_explicit(&ad->stop, 1, memory_order_relaxed);
	if (!role)
		ad->ns = bench_time_ns() - t0;
	ad->adds[role] = n;
	ad->hand[role] = hand;
}

int calprobe_burst(const struct topo *t, int a, int b, struct calprobe_burst *r, struct calprobe_how *how)
{
	struct cp_adders *ad = aligned_alloc(CP_LINE, sizeof(*ad));
	double hpa[CP_BURST_RUNS], npa[CP_BURST_RUNS];
	int runs = 0;

	memset(r, 0, sizeof(*r));
	if (!ad)
		return -1;
	for (int k = 0; k < CP_BURST_RUNS; k++) {
		struct calprobe_how h;
		double adds;

		memset(ad, 0, sizeof(*ad));
		if (cp_run_pair(t, a, b, cp_adders_fn, ad, &h))
			break;
		/* the first run's policy, or that of a run that did not have SCHED_FIFO */
		if (!runs || !h.fifo)
			*how = h;
		adds = (double)(ad->adds[0] + ad->adds[1]);
		hpa[runs] = (double)(ad->hand[0] + ad->hand[1]) / adds;
		/* each thread's time per add, as run's ns/op: two adding through one window */
		npa[runs] = 2.0 * (double)ad->ns / adds;
		runs++;
	}
	free(ad);
	if (!runs)
		return -1;
	r->runs = runs;
	r->adds = CP_BURST_ADDS;
	r->hand_per_add = cmp_median_range(hpa, runs, &r->lo, &r->hi);
	r->burst = r->hand_per_add > 0 ? 1 / r->hand_per_add : CP_BURST_ADDS;
	r->ns_per_add = cmp_median(npa, runs);
	return 0;
}

/* ---- a futex wake-up ---- */

#define CP_WAKE_ROUNDS 300
#define CP_WAKE_SKIP 4		/* the first rounds' samples: warm-up, dropped */

struct cp_wake {
	_Alignas(CP_LINE) _Atomic int turn;		/* the futex word: the step last posted */
	_Alignas(CP_LINE) _Atomic uint64_t posted;	/* when it was posted, written before turn */
	double ns[2][CP_WAKE_ROUNDS];
	int n[2];
};

static void cp_post(struct cp_wake *w, int step)
{
	atomic_store_explicit(&w->posted, bench_time_ns(), memory_order_relaxed);
	atomic_store_explicit(&w->turn, step, memory_order_release);
	syscall(SYS_futex, (int *)&w->turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Wait for step; a sample if this thread slept and was woken, not if the post came first. */
static void cp_await(struct cp_wake *w, int role, int step, int keep)
{
	int cur, slept = 0;

	while ((cur = atomic_load_explicit(&w->turn, memory_order_acquire)) != step)
		slept |= !syscall(SYS_futex, (int *)&w->turn, FUTEX_WAIT_PRIVATE, cur, NULL, NULL, 0);
	if (slept && keep)
		w->ns[role][w->n[role]++] = (double)(bench_time_ns() -
						     atomic_load_explicit(&w->posted, memory_order_relaxed));
}

/*
 * Thread 0 posts the odd steps, thread 1 the even ones, each going straight
 * from its post to FUTEX_WAIT: by the time the other is woken and posts back
 * (microseconds), the poster sleeps, so each post wakes a sleeping thread.
 */
static void cp_wake_fn(struct cp_pair *p, int role)
{
	struct cp_wake *w = p->arg;

	for (int i = 0; i < CP_WAKE_ROUNDS; i++) {
		if (!role) {
			cp_post(w, 2 * i + 1);
			cp_await(w, role, 2 * i + 2, i >= CP_WAKE_SKIP);
		} else {
			cp_await(w, role, 2 * i + 1, i >= CP_WAKE_SKIP);
			cp_post(w, 2 * i + 2);
		}
	}
}

double calprobe_wake_ns(const struct topo *t, int a, int b, int *samples, struct calprobe_how *how)
{
	struct cp_wake *w = aligned_alloc(CP_LINE, sizeof(*w));
	double ns = -1;

	*samples = 0;
	if (!w)
		return -1;
	memset(w, 0, sizeof(*w));
	if (!cp_run_pair(t, a, b, cp_wake_fn, w, how) && w->n[0] + w->n[1] > 0) {
		/* one array of both threads' samples */
		memmove(w->ns[0] + w->n[0], w->ns[1], (size_t)w->n[1] * sizeof(double));
		*samples = w->n[0] + w->n[1];
		ns = cmp_median(w->ns[0], *samples);
	}
	free(w);
	return ns;
}

/* ---- PAUSE ---- */

#define CP_PAUSE_BATCHES 31
#define CP_PAUSE_PER 1000

struct cp_pause {
	const struct topo *t;
	int pu, ok, fifo;
	char why[96];
	double ns[CP_PAUSE_BATCHES];
};

static void *cp_pause_main(void *arg)
{
	struct cp_pause *cp = arg;

	if (topo_bind_self(cp->t, cp->pu)) {
		snprintf(cp->why, sizeof(cp->why), "not bound to PU %d", cp->pu);
		return NULL;
	}
	cp->fifo = cp_fifo(cp->why, sizeof(cp->why));
	for (int k = 0; k < CP_PAUSE_BATCHES; k++) {
		uint64_t t0 = bench_time_ns();

		for (int i = 0; i < CP_PAUSE_PER; i++)
			cp_relax();
		cp->ns[k] = (double)(bench_time_ns() - t0) / CP_PAUSE_PER;
	}
	cp->ok = 1;
	return NULL;
}

double calprobe_pause_ns(const struct topo *t, int pu, struct calprobe_how *how)
{
#if defined(__x86_64__) || defined(__i386__)
	struct cp_pause cp = { .t = t, .pu = pu };
	pthread_t th;

	if (pthread_create(&th, NULL, cp_pause_main, &cp))
		return -1;
	pthread_join(th, NULL);
	how->fifo = cp.fifo;
	snprintf(how->why, sizeof(how->why), "%s", cp.fifo ? "SCHED_FIFO" : cp.why);
	return cp.ok ? cmp_median(cp.ns, CP_PAUSE_BATCHES) : -1;
#else
	(void)t;
	(void)pu;
	snprintf(how->why, sizeof(how->why), "no PAUSE on this architecture");
	how->fifo = 0;
	return -1;
#endif
}
