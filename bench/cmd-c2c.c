/* SPDX-License-Identifier: MIT */
/*
 * cmd-c2c.c - `ctrbench c2c`: two pinned threads bounce one cache line, pair
 * by pair; the one-way time per transfer is summarized per topology distance
 * class, with the line's home NUMA node chosen (first touch, node:K, each
 * node in turn) and checked with move_pages(2).
 *
 * The CAS op is core-to-core-latency's (nviennot) method, so that its figures
 * can be set beside that tool's: a one-byte flag, PING -> PONG by the pong
 * thread and PONG -> PING by the ping thread with relaxed compare-exchange,
 * a sample = I round trips timed by ping, one-way = sample / I / 2, the first
 * sample thrown away as warm-up, and a pair's figure the mean of S samples.
 * Reps repeat every pair K times (reps outermost, so drift of a shared machine
 * spreads over all pairs); a pair's figure is the median over reps with an
 * order-statistic interval (bench_stat_of), a class's the median, p10 and p90
 * of its pairs' figures.
 *
 * Nothing is measured in a function called through a pointer: each op has its
 * own loops, chosen by a switch outside them.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <jansson.h>

#include "builtin.h"
#include "c2c.h"
#include "cli.h"
#include "env.h"
#include "reps.h"
#include "schema.h"
#include "tsc.h"
#include "../pmu/pmu.h"

/* c2c lines follow the field table's version (their fields: BENCH_C2C_FIELDS in schema.h). */
#define C2C_SCHEMA BENCH_SCHEMA_VERSION
#define C2C_LINE 64
/*
 * What the estimate assumes one transfer costs before anything is measured:
 * cross-socket transfers on current servers are 100-200 ns (the 2 x
 * 9454 figures), same-L3 ones 20-50 ns; the first measured pair replaces it.
 */
#define C2C_ASSUMED_NS 100.0
/* Creating, binding and joining the two threads of one measurement, measured here: ~0.1 ms. */
#define C2C_SETUP_NS 100000.0
/* A matrix wider than this many CPUs is left to the JSON and CSV. */
#define C2C_TABLE_MAX_CPUS 32
#define C2C_TABLE_MAX_PAIRS 64
#define C2C_MAX_HOMES 64

enum c2c_op { C2C_CAS, C2C_LOAD_STORE, C2C_FETCH_ADD };
static const char *const c2c_op_names[] = { "cas", "load-store", "fetch-add" };
/* What one figure of each op is, for the table's heading and the JSON. */
static const char *const c2c_op_figure[] = {
	"one-way ns: CAS round trip / 2",
	"one-way ns: store-then-wait round trip / 2",
	"ns per fetch-add: 2 x window / adds of both CPUs (run's ns/op)",
};

/* ---- the plan ----------------------------------------------------------- */

/* splitmix64: the draws only need to be fixed and spread, not secret. */
static uint64_t c2c_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void __attribute__((format(printf, 3, 4))) c2c_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static int c2c_cmp_logical(const void *x, const void *y, void *arg)
{
	struct topo_pu_info a, b;

	topo_pu_info(arg, *(const int *)x, &a);
	topo_pu_info(arg, *(const int *)y, &b);
	return (a.logical > b.logical) - (a.logical < b.logical);
}

/* How many CPUs a list names (ranges counted whole); 0 when it is malformed (topo_place says why). */
static long c2c_list_len(const char *s)
{
	long n = 0;

	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;

		if (end == s)
			return 0;
		if (*end == '-') {
			const char *h = end + 1;

			hi = strtol(h, &end, 10);
			if (end == h)
				return 0;
		}
		if (hi < lo || hi - lo > 1 << 20)
			return 0;
		n += hi - lo + 1;
		if (*end == ',')
			end++;
		else if (*end)
			return 0;
		s = end;
	}
	return n;
}

/* p->cpus, p->dups from "all" or a list. */
static int c2c_plan_cpus(const struct topo *t, const char *cpus, struct c2c_plan *p, char *err,
			 size_t errlen)
{
	int n = topo_nr_pus(t), *v, k = 0;
	char perr[512];

	if (!strcmp(cpus, "all")) {
		v = malloc(sizeof(int) * n);
		if (!v)
			return -ENOMEM;
		for (int i = 0; i < n; i++) {
			struct topo_pu_info in;

			topo_pu_at(t, i, &in);
			v[i] = in.pu;
		}
	} else {
		long len = c2c_list_len(cpus);
		size_t plen = strlen(cpus) + 6;
		char *policy = malloc(plen);

		if (!policy)
			return -ENOMEM;
		snprintf(policy, plen, "list:%s", cpus);
		n = len > 0 ? (int)len : 1;
		v = malloc(sizeof(int) * n);
		if (!v) {
			free(policy);
			return -ENOMEM;
		}
		if (len < 1 || topo_place(t, policy, n, v, NULL, perr, sizeof(perr))) {
			if (len < 1)
				topo_place(t, policy, 1, v, NULL, perr, sizeof(perr));
			c2c_err(err, errlen, "bad value '%s' for --cpus (%s)", cpus,
				strstr(perr, "': ") ? strstr(perr, "': ") + 3 : perr);
			free(policy);
			free(v);
			return -EINVAL;
		}
		free(policy);
	}
	qsort_r(v, n, sizeof(int), c2c_cmp_logical, (void *)t);
	p->dups = calloc(n, sizeof(int));
	if (!p->dups) {
		free(v);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		if (k && v[k - 1] == v[i]) {
			if (!p->nr_dups || p->dups[p->nr_dups - 1] != v[i])
				p->dups[p->nr_dups++] = v[i];
			continue;
		}
		v[k++] = v[i];
	}
	p->cpus = v;
	p->nr_cpus = k;
	if (k < 2) {
		c2c_err(err, errlen, "bad value '%s' for --cpus (a pair needs two different CPUs)", cpus);
		return -EINVAL;
	}
	return 0;
}

static int c2c_parse_mode(const char *s, struct c2c_plan *p, char *err, size_t errlen)
{
	const char *num = NULL;
	char *end;
	long n;

	if (!strcmp(s, "all")) {
		p->mode = C2C_PAIRS_ALL;
		return 0;
	}
	if (!strncmp(s, "sample:", 7)) {
		p->mode = C2C_PAIRS_SAMPLE;
		num = s + 7;
	} else if (!strncmp(s, "per-class:", 10)) {
		p->mode = C2C_PAIRS_PER_CLASS;
		num = s + 10;
	}
	errno = 0;
	n = num && *num >= '0' && *num <= '9' ? strtol(num, &end, 10) : 0;
	if (!num || errno || n < 1 || n > 1 << 20 || *end) {
		c2c_err(err, errlen, "bad value '%s' for --pairs (want all, sample:N or per-class:N, "
			"N from 1 to %d)", s, 1 << 20);
		return -EINVAL;
	}
	p->per = (int)n;
	return 0;
}

static int c2c_cmp_pair(const void *x, const void *y)
{
	const struct c2c_pair_plan *a = x, *b = y;

	/* a and b hold positions in p->cpus while sorting (see c2c_plan_make) */
	if (a->a != b->a)
		return (a->a > b->a) - (a->a < b->a);
	return (a->b > b->b) - (a->b < b->b);
}

/*
 * The most pairs a plan holds: every pair of 1024 CPUs (523,776).  Measuring that many takes
 * about 44 hours at the defaults (the dry run's estimate), and its --dry-run --format json is
 * 21 MB made in 2 s; every pair of 4096 CPUs (8.4 million) would take a month to measure, and
 * its plan alone 356 MB and 65 s.  Past it, --pairs per-class:K or sample:N (or fewer --cpus)
 * plan what can be measured, so a bigger plan is refused in one line rather than printed.
 */
#define C2C_MAX_PAIRS (1L << 19)

static int c2c_too_many(const char *pairs, long n, const struct c2c_plan *p, char *err, size_t errlen)
{
	if (n <= C2C_MAX_PAIRS)
		return 0;
	c2c_err(err, errlen, "bad value '%s' for --pairs (%ld pairs of %d CPUs: a plan holds at most %ld,"
		" every pair of 1024 CPUs; take --pairs per-class:K or sample:N, or fewer --cpus)", pairs, n,
		p->nr_cpus, C2C_MAX_PAIRS);
	return -EINVAL;
}

int c2c_plan_make(const struct topo *t, const char *cpus, const char *pairs, struct c2c_plan *p,
		  char *err, size_t errlen)
{
	struct c2c_pair_plan *res[TOPO_NR_CLASSES] = { 0 };
	long seen[TOPO_NR_CLASSES] = { 0 }, total;
	uint64_t seed = 0x6332632d706c616eull;	/* fixed: the same plan on every run */
	int ret, n, cap;

	memset(p, 0, sizeof(*p));
	ret = c2c_parse_mode(pairs, p, err, errlen);
	if (!ret)
		ret = c2c_plan_cpus(t, cpus, p, err, errlen);
	if (ret)
		goto fail;
	n = p->nr_cpus;
	total = (long)n * (n - 1) / 2;
	if (total > 1L << 26) {
		c2c_err(err, errlen, "bad value '%s' for --cpus (%ld pairs: too many to plan)", cpus, total);
		ret = -EINVAL;
		goto fail;
	}
	/* all and sample:N know their count now; per-class:N after the pass (the classes present) */
	ret = c2c_too_many(pairs, p->mode == C2C_PAIRS_ALL ? total : p->mode == C2C_PAIRS_SAMPLE &&
			   p->per < total ? p->per : p->mode == C2C_PAIRS_SAMPLE ? total : 0, p, err, errlen);
	if (ret)
		goto fail;
	/* One pass over every pair: all keeps it, the others keep a reservoir (one per class). */
	cap = p->mode == C2C_PAIRS_ALL ? (int)total : p->per;
	for (int c = 0; c < TOPO_NR_CLASSES; c++) {
		if (p->mode != C2C_PAIRS_PER_CLASS && c)
			break;
		res[c] = malloc(sizeof(*res[c]) * (cap ? cap : 1));
		if (!res[c]) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	for (int i = 0; i < n; i++) {
		for (int j = i + 1; j < n; j++) {
			int cls = topo_class_of(t, p->cpus[i], p->cpus[j]);
			int r = p->mode == C2C_PAIRS_PER_CLASS ? cls : 0;
			long slot = seen[r]++;

			p->avail[cls]++;
			if (slot >= cap) {
				/* reservoir sampling: keep this one with probability cap / (slot + 1) */
				slot = (long)(c2c_rand(&seed) % (uint64_t)(slot + 1));
				if (slot >= cap)
					continue;
			}
			res[r][slot] = (struct c2c_pair_plan){ .a = i, .b = j, .cls = cls };
		}
	}
	for (int c = 0; c < TOPO_NR_CLASSES; c++)
		p->nr_pairs += res[c] ? (int)(seen[c] < cap ? seen[c] : cap) : 0;
	ret = c2c_too_many(pairs, p->nr_pairs, p, err, errlen);
	if (ret)
		goto fail;
	p->pairs = malloc(sizeof(*p->pairs) * (p->nr_pairs ? p->nr_pairs : 1));
	if (!p->pairs) {
		ret = -ENOMEM;
		goto fail;
	}
	n = 0;
	for (int c = 0; c < TOPO_NR_CLASSES; c++) {
		int k = res[c] ? (int)(seen[c] < cap ? seen[c] : cap) : 0;

		if (k)
			memcpy(p->pairs + n, res[c], sizeof(*p->pairs) * k);
		n += k;
	}
	qsort(p->pairs, p->nr_pairs, sizeof(*p->pairs), c2c_cmp_pair);
	for (int i = 0; i < p->nr_pairs; i++) {
		p->pairs[i].a = p->cpus[p->pairs[i].a];
		p->pairs[i].b = p->cpus[p->pairs[i].b];
	}
	for (int c = 0; c < TOPO_NR_CLASSES; c++)
		free(res[c]);
	return 0;
fail:
	for (int c = 0; c < TOPO_NR_CLASSES; c++)
		free(res[c]);
	c2c_plan_free(p);
	return ret;
}

void c2c_plan_free(struct c2c_plan *p)
{
	free(p->cpus);
	free(p->dups);
	free(p->pairs);
	memset(p, 0, sizeof(*p));
}

int c2c_plan_count(const struct c2c_plan *p, int cls)
{
	int n = 0;

	for (int i = 0; i < p->nr_pairs; i++)
		n += p->pairs[i].cls == cls;
	return n;
}

/* ---- the line's home ---------------------------------------------------- */

struct c2c_home {
	int asked;		/* node:K's K, -1 for first-touch */
	int node;		/* where move_pages says the page is, -1 unknown */
	const char *why;	/* when node is -1: why not known */
	void *page;		/* the line is its first 64 bytes, nothing else is on the page */
	size_t len;		/* the page's size */
	int numa_alloc;		/* page from numa_alloc_onnode (else mmap) */
};

/* The node the page at p is on, from move_pages with no target (a query); -errno on failure. */
static int c2c_node_of(void *p)
{
	int status = -1;

	if (move_pages(0, 1, &p, NULL, &status, 0))
		return -errno;
	return status;
}

/*
 * Allocate and first-touch the line's page: on node asked (numa_alloc_onnode,
 * which binds it with mbind), or where the calling thread runs (asked -1).
 * Then ask the kernel where it is.  Returns 0, or -errno when no memory.
 */
static int c2c_home_alloc(struct c2c_home *h, int asked)
{
	int node;

	memset(h, 0, sizeof(*h));
	h->asked = asked;
	h->len = (size_t)sysconf(_SC_PAGESIZE);
	if (asked >= 0) {
		h->page = numa_alloc_onnode(h->len, asked);
		h->numa_alloc = 1;
	} else {
		h->page = mmap(NULL, h->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (h->page == MAP_FAILED)
			h->page = NULL;
	}
	if (!h->page)
		return -ENOMEM;
	memset(h->page, 0, h->len);	/* the first touch: it places the page */
	node = c2c_node_of(h->page);
	h->node = node >= 0 ? node : -1;
	if (node < 0)
		h->why = node == -ENOSYS ? "move_pages not supported (no NUMA in this kernel)"
					 : "move_pages failed";
	return 0;
}

static void c2c_home_free(struct c2c_home *h)
{
	if (!h->page)
		return;
	if (h->numa_alloc)
		numa_free(h->page, h->len);
	else
		munmap(h->page, h->len);
	h->page = NULL;
}

/* ---- measuring ---------------------------------------------------------- */

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

static int c2c_cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
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
		qsort(ns + 1, samples, sizeof(double), c2c_cmp_double);
		m->p50 = samples % 2 ? ns[1 + samples / 2] : (ns[samples / 2] + ns[1 + samples / 2]) / 2;
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

/* ---- the command -------------------------------------------------------- */

static volatile sig_atomic_t c2c_stopped;

static void c2c_on_signal(int sig)
{
	(void)sig;
	c2c_stopped = 1;
}

/* The command line, as given (defaults in bench_cmd_c2c and the usage text). */
struct c2c_opts {
	const char *cpus, *pairs, *home;	/* --cpus, --pairs, --home */
	const char *topology;		/* --topology, NULL for this machine */
	enum c2c_op op;			/* --op */
	int reps, samples, iters;	/* --reps, --samples, --iters */
	int dry_run;			/* --dry-run */
	int format;			/* 0 table, 1 json, 2 csv */
};

/* Results: pair i of home h has reps r at res[(h * nr_pairs + i) * reps + r]. */
struct c2c_run {
	const struct c2c_opts *o;
	const struct topo *t;
	struct c2c_plan plan;
	int nr_homes;
	struct c2c_home homes[C2C_MAX_HOMES];
	int homes_each;			/* --home each */
	int nodes_total;		/* NUMA nodes with memory on this machine (1 without NUMA) */
	int reps_done;			/* full passes over every pair */
	double *res;			/* NAN: not measured */
	double *res_p50;		/* the same layout: the samples' medians */
	struct pmu_event_spec *ev;
	int nr_ev;
	const char *ev_reason;		/* why events are not counted, once */
	double *ev_sum;			/* [home][class][event] summed counts */
	double *tr_sum;			/* [home][class] transfers those counts cover */
	double estimate_s, elapsed_s;
	json_t *env;
};

static double *c2c_res(struct c2c_run *r, int h, int i)
{
	return &r->res[((size_t)h * r->plan.nr_pairs + i) * r->o->reps];
}

/* Percentile q in [0,1] of sorted v[0..n), linearly interpolated. */
static double c2c_pct(const double *v, int n, double q)
{
	double x = q * (n - 1);
	int i = (int)x;

	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (v[i + 1] - v[i]) * (x - i);
}

/* A pair's statistics over the reps measured; 0 when none were. */
static int c2c_pair_stat(struct c2c_run *r, int h, int i, struct bench_stat *st, double *vals)
{
	double *v = c2c_res(r, h, i);
	int k = 0;

	for (int j = 0; j < r->o->reps; j++)
		if (!isnan(v[j]))
			vals[k++] = v[j];
	if (!k)
		return 0;
	{
		double tmp[1000];

		memcpy(tmp, vals, sizeof(double) * k);
		bench_stat_of(tmp, k, st);
	}
	return k;
}

struct c2c_class_row {
	int pairs;
	double median, p10, p90;
};

/* Class rows of home h (h -1: every home pooled). */
static void c2c_classes(struct c2c_run *r, int h, struct c2c_class_row rows[TOPO_NR_CLASSES])
{
	int n = r->plan.nr_pairs * (h < 0 ? r->nr_homes : 1);
	double *v = malloc(sizeof(double) * (n ? n : 1)), vals[1000];

	if (!v)
		die("out of memory");
	for (int c = 0; c < TOPO_NR_CLASSES; c++) {
		int k = 0;

		for (int hh = h < 0 ? 0 : h; hh < (h < 0 ? r->nr_homes : h + 1); hh++)
			for (int i = 0; i < r->plan.nr_pairs; i++) {
				struct bench_stat st;

				if (r->plan.pairs[i].cls == c && c2c_pair_stat(r, hh, i, &st, vals))
					v[k++] = st.median;
			}
		rows[c].pairs = k;
		if (!k)
			continue;
		qsort(v, k, sizeof(double), c2c_cmp_double);
		rows[c].median = c2c_pct(v, k, 0.5);
		rows[c].p10 = c2c_pct(v, k, 0.1);
		rows[c].p90 = c2c_pct(v, k, 0.9);
	}
	free(v);
}

static double c2c_estimate(const struct c2c_opts *o, long measurements, double one_way_ns)
{
	double per = (double)o->iters * (o->samples + 1) * one_way_ns * (o->op == C2C_FETCH_ADD ? 1 : 2);

	return (double)measurements * o->reps * (per + C2C_SETUP_NS) / 1e9;
}

static const char *c2c_home_label(const struct c2c_run *r, int h, char *buf, size_t len)
{
	const struct c2c_home *hm = &r->homes[h];

	if (hm->node < 0)
		snprintf(buf, len, "unknown (%s)", hm->why ? hm->why : "not measured");
	else
		snprintf(buf, len, "node %d (%s, checked with move_pages)", hm->node,
			 hm->asked < 0 ? "first touch by the main thread" : "numa_alloc_onnode");
	return buf;
}

static const char *const c2c_pairs_names[] = { "all", "sample", "per-class" };

static void c2c_mode_str(const struct c2c_plan *p, char *buf, size_t len)
{
	if (p->mode == C2C_PAIRS_ALL)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%s:%d", c2c_pairs_names[p->mode], p->per);
}

/* ---- output: table ------------------------------------------------------ */

static void c2c_print_events(struct c2c_run *r, int h, int c, FILE *f)
{
	double tr = r->tr_sum[h * TOPO_NR_CLASSES + c];

	if (!r->nr_ev || r->ev_reason || tr <= 0)
		return;
	for (int e = 0; e < r->nr_ev; e++)
		fprintf(f, "  %s %.3f", r->ev[e].name,
			r->ev_sum[((size_t)h * TOPO_NR_CLASSES + c) * r->nr_ev + e] / tr);
}

static void c2c_print_table(struct c2c_run *r, int interrupted)
{
	const struct c2c_plan *p = &r->plan;
	char buf[256], mode[64];
	FILE *f = stdout;

	c2c_mode_str(p, mode, sizeof(mode));
	fprintf(f, "c2c: op %s (%s), %d CPU%s, pairs %s: %d pair%s, %d of %d reps of %d samples x "
		"%d %s\n", c2c_op_names[r->o->op], c2c_op_figure[r->o->op], p->nr_cpus,
		p->nr_cpus == 1 ? "" : "s", mode, p->nr_pairs, p->nr_pairs == 1 ? "" : "s",
		r->reps_done, r->o->reps, r->o->samples, r->o->iters,
		r->o->op == C2C_FETCH_ADD ? "adds" : "round trips");
	if (interrupted)
		fprintf(f, "interrupted: figures from what was measured\n");
	if (r->nr_ev && r->ev_reason)
		fprintf(f, "events: not counted: %s\n", r->ev_reason);
	for (int h = 0; h < r->nr_homes; h++) {
		struct c2c_class_row rows[TOPO_NR_CLASSES];
		double vals[1000];

		fprintf(f, "\nline home: %s%s\n", c2c_home_label(r, h, buf, sizeof(buf)),
			r->nodes_total == 1 ? "; the machine's only NUMA node" : "");
		c2c_classes(r, h, rows);
		fprintf(f, "%-8s %5s %9s %9s %9s\n", "class", "pairs", "median", "p10", "p90");
		for (int c = 0; c < TOPO_NR_CLASSES; c++) {
			if (!rows[c].pairs)
				continue;
			fprintf(f, "%-8s %5d %9.1f %9.1f %9.1f", topo_class_name(c), rows[c].pairs,
				rows[c].median, rows[c].p10, rows[c].p90);
			c2c_print_events(r, h, c, f);
			fputc('\n', f);
		}
		if (p->nr_cpus <= C2C_TABLE_MAX_CPUS) {
			fprintf(f, "\nmatrix (median over reps; CPUs in topology order)\n%5s", "");
			for (int j = 0; j < p->nr_cpus; j++)
				fprintf(f, " %7d", p->cpus[j]);
			fputc('\n', f);
			for (int i = 0; i < p->nr_cpus; i++) {
				fprintf(f, "%5d", p->cpus[i]);
				for (int j = 0; j < p->nr_cpus; j++) {
					struct bench_stat st;
					int k = -1;

					for (int q = 0; q < p->nr_pairs && k < 0; q++)
						if ((p->pairs[q].a == p->cpus[i] && p->pairs[q].b == p->cpus[j]) ||
						    (p->pairs[q].b == p->cpus[i] && p->pairs[q].a == p->cpus[j]))
							k = q;
					if (k >= 0 && c2c_pair_stat(r, h, k, &st, vals))
						fprintf(f, " %7.1f", st.median);
					else
						fprintf(f, " %7s", i == j ? "-" : ".");
				}
				fputc('\n', f);
			}
		} else {
			fprintf(f, "\nmatrix: %d x %d CPUs, in the JSON and CSV output\n", p->nr_cpus,
				p->nr_cpus);
		}
		if (p->nr_pairs <= C2C_TABLE_MAX_PAIRS) {
			fprintf(f, "\n%5s %5s %-8s %9s  %-22s %6s\n", "cpu_a", "cpu_b", "class", "median",
				"interval over reps", "cv");
			for (int i = 0; i < p->nr_pairs; i++) {
				struct bench_stat st;
				int k = c2c_pair_stat(r, h, i, &st, vals);
				char iv[64];

				if (!k)
					continue;
				snprintf(iv, sizeof(iv), "[%.1f, %.1f] %.0f%%", st.lo, st.hi, 100 * st.level);
				fprintf(f, "%5d %5d %-8s %9.1f  %-22s %5.1f%%%s\n", p->pairs[i].a, p->pairs[i].b,
					topo_class_name(p->pairs[i].cls), st.median, iv, 100 * st.cv,
					st.cv > BENCH_NOISY_CV ? " noisy" : "");
			}
		}
	}
	fprintf(f, "\n");
}

/* ---- output: JSON ------------------------------------------------------- */

static json_t *c2c_int_array(const int *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static json_t *c2c_home_json(const struct c2c_run *r, int h)
{
	const struct c2c_home *hm = &r->homes[h];

	return json_pack("{s:s,s:o,s:o,s:s,s:o}", "how", hm->asked < 0 ? "first-touch" : "node",
			 "asked", hm->asked < 0 ? json_null() : json_integer(hm->asked), "node",
			 hm->node < 0 ? json_null() : json_integer(hm->node), "checked_with", "move_pages",
			 "why_unknown", hm->why ? json_string(hm->why) : json_null());
}

static json_t *c2c_class_json(struct c2c_run *r, int h, int c, const struct c2c_class_row *row)
{
	json_t *o = json_pack("{s:s,s:i,s:f,s:f,s:f}", "class", topo_class_name(c), "pairs", row->pairs,
			      "median_ns", row->median, "p10_ns", row->p10, "p90_ns", row->p90);
	double tr = h >= 0 ? r->tr_sum[h * TOPO_NR_CLASSES + c] : 0;

	if (h >= 0)
		json_object_set_new(o, "home_node", r->homes[h].node < 0 ? json_null()
									  : json_integer(r->homes[h].node));
	if (h >= 0 && r->nr_ev && !r->ev_reason && tr > 0) {
		json_t *e = json_object();

		for (int i = 0; i < r->nr_ev; i++)
			json_object_set_new(e, r->ev[i].name, json_real(
				r->ev_sum[((size_t)h * TOPO_NR_CLASSES + c) * r->nr_ev + i] / tr));
		json_object_set_new(o, "events_per_transfer", e);
	}
	return o;
}

/*
 * The calibration a coherence projection takes: class -> one-way ns, pooled
 * over the homes measured, with the machine it came from.
 */
static json_t *c2c_calibration_json(struct c2c_run *r)
{
	struct c2c_class_row rows[TOPO_NR_CLASSES];
	json_t *ns = json_object(), *pairs = json_object(), *homes = json_array();
	static const char *const keys[] = { "cpu_model", "hypervisor", "kernel", "arch", "numa_nodes",
					    "cpus_online", "smt_active", "date", "commit" };
	json_t *machine = json_object();
	struct topo_counts tc;

	c2c_classes(r, -1, rows);
	for (int c = 0; c < TOPO_NR_CLASSES; c++) {
		if (!rows[c].pairs)
			continue;
		json_object_set_new(ns, topo_class_name(c), json_real(rows[c].median));
		json_object_set_new(pairs, topo_class_name(c), json_integer(rows[c].pairs));
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(r->env, keys[i]);

		json_object_set(machine, keys[i], v ? v : json_null());
	}
	topo_counts(r->t, &tc);
	json_object_set_new(machine, "topology", json_sprintf("%d packages, %d NUMA nodes, %d L3s, "
							      "%d cores, %d PUs", tc.packages,
							      tc.numa_nodes, tc.l3s, tc.cores, tc.pus));
	for (int h = 0; h < r->nr_homes; h++)
		json_array_append_new(homes, r->homes[h].node < 0 ? json_null()
								   : json_integer(r->homes[h].node));
	return json_pack("{s:s,s:i,s:s,s:s,s:o,s:o,s:o,s:o}", "kind", "c2c-calibration", "schema",
			 C2C_SCHEMA, "op", c2c_op_names[r->o->op], "figure", c2c_op_figure[r->o->op],
			 "one_way_ns", ns, "pairs", pairs, "home_nodes", homes, "machine", machine);
}

static json_t *c2c_plan_json(struct c2c_run *r)
{
	const struct c2c_plan *p = &r->plan;
	json_t *avail = json_object(), *planned = json_object();
	char mode[64];

	c2c_mode_str(p, mode, sizeof(mode));
	for (int c = 0; c < TOPO_NR_CLASSES; c++) {
		if (c == TOPO_CLASS_SAME)
			continue;	/* distinct CPUs: never a pair */
		json_object_set_new(avail, topo_class_name(c), json_integer(p->avail[c]));
		json_object_set_new(planned, topo_class_name(c), json_integer(c2c_plan_count(p, c)));
	}
	return json_pack("{s:s,s:i,s:o,s:o,s:o,s:i,s:i,s:f}", "pairs_mode", mode, "pairs", p->nr_pairs,
			 "pairs_per_class", planned, "pairs_available", avail, "cpus_duplicate",
			 c2c_int_array(p->dups, p->nr_dups), "homes", r->homes_each ? r->nodes_total : 1,
			 "measurements", p->nr_pairs * (r->homes_each ? r->nodes_total : 1) * r->o->reps,
			 "estimate_s", r->estimate_s);
}

/*
 * The line's top-level members in the order of the field table
 * (BENCH_C2C_FIELDS in schema.h), which must list every one: a member the
 * table lacks, or one it lists for this kind of line that is missing, is a
 * bug in this file, caught by the assertion (and by tests/cli_c2c.sh).
 */
static json_t *c2c_in_schema_order(json_t *j, int dry_run)
{
	json_t *out = json_object();
	size_t n = 0;

	for (int f = 0; f < bench_c2c_nr_fields; f++) {
		const struct bench_c2c_field *d = &bench_c2c_fields[f];
		json_t *v;

		if (strchr(d->path, '.') || strchr(d->path, '['))
			continue;
		v = json_object_get(j, d->path);
		assert(v || (dry_run && d->when == BCW_MEASURED));
		if (v) {
			json_object_set(out, d->path, v);
			n++;
		}
	}
	assert(n == json_object_size(j));
	(void)n;
	return out;
}

/* Where each CPU sits (hwloc logical indexes), so a reader can order and group the matrix. */
static json_t *c2c_cpu_info_json(struct c2c_run *r)
{
	json_t *a = json_array();

	for (int i = 0; i < r->plan.nr_cpus; i++) {
		struct topo_pu_info in;

		topo_pu_info(r->t, r->plan.cpus[i], &in);
		json_array_append_new(a, json_pack("{s:i,s:i,s:i,s:i,s:i,s:i}", "cpu", in.pu, "package",
						   in.package, "numa", in.numa, "l3", in.l3, "core",
						   in.core, "smt", in.smt));
	}
	return a;
}

static void c2c_print_json(struct c2c_run *r, int interrupted)
{
	const struct c2c_plan *p = &r->plan;
	json_t *j, *homes = json_array(), *classes = json_array(), *pairs = json_array();
	json_t *matrices = json_array(), *events, *out;
	double vals[1000];

	j = json_pack("{s:s,s:i,s:s,s:s,s:b}", "kind", "c2c", "schema", C2C_SCHEMA, "op",
		      c2c_op_names[r->o->op], "figure", c2c_op_figure[r->o->op], "dry_run", r->o->dry_run);
	json_object_set_new(j, "method", json_pack("{s:i,s:i,s:i,s:i,s:s,s:s}", "reps", r->o->reps,
						   "reps_done", r->reps_done, "samples", r->o->samples,
						   "iters", r->o->iters, "pair_figure",
						   "mean over samples (warm-up sample dropped), median over reps",
						   "class_figure", "median, p10, p90 of the pairs' figures"));
	json_object_set_new(j, "topology", json_pack("{s:s,s:b}", "spec", topo_spec(r->t), "synthetic",
						     topo_is_synthetic(r->t)));
	json_object_set_new(j, "cpus", c2c_int_array(p->cpus, p->nr_cpus));
	json_object_set_new(j, "cpu_info", c2c_cpu_info_json(r));
	json_object_set_new(j, "plan", c2c_plan_json(r));
	if (r->o->dry_run) {
		for (int i = 0; i < p->nr_pairs; i++)
			json_array_append_new(pairs, json_pack("{s:i,s:i,s:s}", "cpu_a", p->pairs[i].a,
							       "cpu_b", p->pairs[i].b, "class",
							       topo_class_name(p->pairs[i].cls)));
		json_object_set_new(j, "pairs", pairs);
		json_decref(homes);
		json_decref(classes);
		json_decref(matrices);
		goto print;
	}
	json_object_set_new(j, "interrupted", json_boolean(interrupted));
	json_object_set_new(j, "elapsed_s", json_real(r->elapsed_s));
	json_object_set_new(j, "numa_single_node", json_boolean(r->nodes_total == 1));
	if (!r->nr_ev)
		events = json_pack("{s:b,s:s}", "counted", 0, "reason", "not asked (--events none)");
	else
		events = json_pack("{s:b,s:o}", "counted", !r->ev_reason, "reason",
				   r->ev_reason ? json_string(r->ev_reason) : json_null());
	json_object_set_new(j, "events", events);
	for (int h = 0; h < r->nr_homes; h++) {
		struct c2c_class_row rows[TOPO_NR_CLASSES];
		json_t *rowsj = json_array();

		json_array_append_new(homes, c2c_home_json(r, h));
		c2c_classes(r, h, rows);
		for (int c = 0; c < TOPO_NR_CLASSES; c++)
			if (rows[c].pairs)
				json_array_append_new(classes, c2c_class_json(r, h, c, &rows[c]));
		for (int i = 0; i < p->nr_cpus; i++) {
			json_t *row = json_array();

			for (int jj = 0; jj < p->nr_cpus; jj++)
				json_array_append_new(row, json_null());
			json_array_append_new(rowsj, row);
		}
		for (int i = 0; i < p->nr_pairs; i++) {
			struct bench_stat st;
			int k = c2c_pair_stat(r, h, i, &st, vals), ia = -1, ib = -1;
			json_t *reps = json_array();
			double p50;

			if (!k)
				continue;
			for (int q = 0; q < k; q++)
				json_array_append_new(reps, json_real(vals[q]));
			{
				const double *v50 = r->res_p50 + (c2c_res(r, h, i) - r->res);
				double m50[1000];
				int k50 = 0;

				for (int q = 0; q < r->o->reps; q++)
					if (!isnan(c2c_res(r, h, i)[q]))
						m50[k50++] = v50[q];
				qsort(m50, k50, sizeof(double), c2c_cmp_double);
				p50 = c2c_pct(m50, k50, 0.5);
			}
			json_array_append_new(pairs, json_pack("{s:o,s:i,s:i,s:s,s:f,s:f,s:f,s:f,s:f,s:o}",
				"home_node", r->homes[h].node < 0 ? json_null() : json_integer(r->homes[h].node),
				"cpu_a", p->pairs[i].a, "cpu_b", p->pairs[i].b,
				"class", topo_class_name(p->pairs[i].cls), "median_ns", st.median,
				"lo_ns", st.lo, "hi_ns", st.hi, "level", st.level, "cv", st.cv, "reps_ns", reps));
			json_object_set_new(json_array_get(pairs, json_array_size(pairs) - 1), "sample_p50_ns",
					    json_real(p50));
			for (int q = 0; q < p->nr_cpus; q++) {
				if (p->cpus[q] == p->pairs[i].a)
					ia = q;
				if (p->cpus[q] == p->pairs[i].b)
					ib = q;
			}
			json_array_set_new(json_array_get(rowsj, ia), ib, json_real(st.median));
			json_array_set_new(json_array_get(rowsj, ib), ia, json_real(st.median));
		}
		json_array_append_new(matrices, json_pack("{s:o,s:o,s:o}", "home_node",
			r->homes[h].node < 0 ? json_null() : json_integer(r->homes[h].node),
			"cpus", c2c_int_array(p->cpus, p->nr_cpus), "ns", rowsj));
	}
	json_object_set_new(j, "homes", homes);
	json_object_set_new(j, "classes", classes);
	json_object_set_new(j, "pairs", pairs);
	json_object_set_new(j, "matrices", matrices);
	json_object_set_new(j, "calibration", c2c_calibration_json(r));
print:
	json_object_set(j, "env", r->env);
	out = c2c_in_schema_order(j, r->o->dry_run);
	json_dumpf(out, stdout, JSON_COMPACT);
	fputc('\n', stdout);
	json_decref(out);
	json_decref(j);
}

/* ---- output: CSV -------------------------------------------------------- */

static void c2c_print_csv(struct c2c_run *r)
{
	const struct c2c_plan *p = &r->plan;
	double vals[1000];

	printf("row,op,home_node,class,cpu_a,cpu_b,pairs,median_ns,p10_ns,p90_ns,lo_ns,hi_ns,reps_ns\n");
	for (int h = 0; h < r->nr_homes; h++) {
		struct c2c_class_row rows[TOPO_NR_CLASSES];
		char home[16] = "";

		if (r->homes[h].node >= 0)
			snprintf(home, sizeof(home), "%d", r->homes[h].node);
		c2c_classes(r, h, rows);
		for (int c = 0; c < TOPO_NR_CLASSES; c++)
			if (rows[c].pairs)
				printf("class,%s,%s,%s,,,%d,%.2f,%.2f,%.2f,,,\n", c2c_op_names[r->o->op], home,
				       topo_class_name(c), rows[c].pairs, rows[c].median, rows[c].p10,
				       rows[c].p90);
		for (int i = 0; i < p->nr_pairs; i++) {
			struct bench_stat st;
			int k = c2c_pair_stat(r, h, i, &st, vals);

			if (!k)
				continue;
			printf("pair,%s,%s,%s,%d,%d,,%.2f,,,%.2f,%.2f,", c2c_op_names[r->o->op], home,
			       topo_class_name(p->pairs[i].cls), p->pairs[i].a, p->pairs[i].b, st.median,
			       st.lo, st.hi);
			for (int q = 0; q < k; q++)
				printf("%s%.2f", q ? ";" : "", vals[q]);
			printf("\n");
		}
	}
}

/* ---- the command -------------------------------------------------------- */

static const char *c2c_usage =
	"usage: ctrbench c2c [--cpus LIST|all] [--pairs all|sample:N|per-class:N]\n"
	"                    [--home first-touch|node:K|each] [--op cas|load-store|fetch-add]\n"
	"                    [--reps K] [--samples S] [--iters I] [--events LIST|bounce|none]\n"
	"                    [--topology SPEC] [--dry-run] [--format table|json|csv]\n"
	"\n"
	"Two threads pinned to CPUs a and b bounce one cache line; the time per transfer is\n"
	"reported per pair and per distance class (smt, ccx, numa, package, remote).\n"
	"  --cpus LIST|all     CPUs to pair (default all; 0,2,4-7: one named twice is measured once).\n"
	"  --pairs MODE        all (default), sample:N (N pairs drawn from all) or per-class:N\n"
	"                      (N from each class present). Draws are fixed: the same plan every run.\n"
	"  --home H            where the line lives: first-touch (default: the main thread touches it,\n"
	"                      as core-to-core-latency does), node:K (numa_alloc_onnode), each (every\n"
	"                      node in turn). Checked with move_pages and printed.\n"
	"  --op OP             cas (default: core-to-core-latency's CAS ping-pong), load-store (store,\n"
	"                      wait for the other's store) or fetch-add (both add: 2 x window / adds).\n"
	"  --reps K            passes over every pair (default 5): median and interval over them.\n"
	"  --samples S         samples per measurement after one warm-up sample (default 300).\n"
	"  --iters I           round trips (fetch-add: adds) per sample (default 1000).\n"
	"  --events LIST       counted per class per transfer where a PMU exists (default bounce:\n"
	"                      the fill-source events, see ctrbench events); none to skip.\n"
	"  --topology SPEC     plan on another machine (hwloc synthetic or XML; default this\n"
	"                      machine): needs --dry-run.\n"
	"  --dry-run           print the plan and its time estimate, measure nothing (default: measure).\n"
	"  --format F          table (default), json (one object, with a calibration member:\n"
	"                      class -> one-way ns) or csv (class rows, then pair rows).\n"
	"\n"
	"example: ctrbench c2c --pairs per-class:4 --format json > c2c.json\n";

static enum c2c_op c2c_parse_op(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, c2c_op_names[i]))
			return (enum c2c_op)i;
	die("unknown op '%s' for c2c (want cas, load-store or fetch-add)", s);
}

/* --home: r->homes[] asked, r->nr_homes; on a synthetic topology only how many. */
static void c2c_parse_home(struct c2c_run *r, const char *s)
{
	int numa = numa_available() >= 0;
	struct topo_counts tc;

	topo_counts(r->t, &tc);
	r->nodes_total = 1;
	if (topo_is_synthetic(r->t))
		r->nodes_total = tc.numa_nodes > 0 ? tc.numa_nodes : 1;
	else if (numa)
		r->nodes_total = numa_num_configured_nodes() > 0 ? numa_num_configured_nodes() : 1;
	r->nr_homes = 1;
	r->homes[0].asked = -1;
	if (!strcmp(s, "first-touch"))
		return;
	if (!strcmp(s, "each")) {
		r->homes_each = 1;
		if (topo_is_synthetic(r->t) || !numa)
			return;
		r->nr_homes = 0;
		for (int n = 0; n <= numa_max_node() && r->nr_homes < C2C_MAX_HOMES; n++)
			if (numa_bitmask_isbitset(numa_all_nodes_ptr, n))
				r->homes[r->nr_homes++].asked = n;
		if (!r->nr_homes) {
			r->nr_homes = 1;
			r->homes[0].asked = -1;
		}
		return;
	}
	if (!strncmp(s, "node:", 5) && s[5] >= '0' && s[5] <= '9') {
		char *end;
		long k;

		errno = 0;
		k = strtol(s + 5, &end, 10);
		if (!errno && !*end && k < 1 << 20) {
			if (topo_is_synthetic(r->t) && k < r->nodes_total) {
				r->homes[0].asked = (int)k;
				return;
			}
			if (topo_is_synthetic(r->t) && r->nodes_total == 1)
				die("bad value '%s' for --home (the topology has 1 NUMA node: node:0)", s);
			if (topo_is_synthetic(r->t))
				die("bad value '%s' for --home (the topology has %d NUMA nodes: node:0 to node:%d)",
				    s, r->nodes_total, r->nodes_total - 1);
			if (numa && k <= numa_max_node() && numa_bitmask_isbitset(numa_all_nodes_ptr, (int)k)) {
				r->homes[0].asked = (int)k;
				return;
			}
			die("bad value '%s' for --home (no NUMA node %ld with memory here; %d node%s)", s, k,
			    r->nodes_total, r->nodes_total == 1 ? "" : "s");
		}
	}
	die("bad value '%s' for --home (want first-touch, node:K or each)", s);
}

/* --events: parse the list; 0 events for none. */
static void c2c_parse_events(struct c2c_run *r, const char *s)
{
	char err[512];

	if (!strcmp(s, "none"))
		return;
	if (bench_events_parse(s, &r->ev, &r->nr_ev, err, sizeof(err)))
		die("%s", err);
}

static void c2c_measure_all(struct c2c_run *r)
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
}

/* The options into o and *events; 1 if --help was asked (printed), 0 to go on. */
static int c2c_parse_args(int argc, char **argv, struct c2c_opts *o, const char **events)
{
	static const struct option opts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "pairs", required_argument, NULL, 'p' },
		{ "home", required_argument, NULL, 'H' },
		{ "op", required_argument, NULL, 'o' },
		{ "reps", required_argument, NULL, 'k' },
		{ "samples", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'i' },
		{ "events", required_argument, NULL, 'e' },
		{ "topology", required_argument, NULL, 'T' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = bench_getopt(argc, argv, opts)) != -1) {
		switch (opt) {
		case 'c':
			o->cpus = optarg;
			break;
		case 'p':
			o->pairs = optarg;
			break;
		case 'H':
			o->home = optarg;
			break;
		case 'o':
			o->op = c2c_parse_op(optarg);
			break;
		case 'k':
			o->reps = bench_parse_int("reps", optarg, 1, 1000);
			break;
		case 's':
			o->samples = bench_parse_int("samples", optarg, 1, 1000000);
			break;
		case 'i':
			o->iters = bench_parse_int("iters", optarg, 1, 100000000);
			break;
		case 'e':
			*events = optarg;
			break;
		case 'T':
			o->topology = optarg;
			break;
		case 'n':
			o->dry_run = 1;
			break;
		case 'f':
			if (!strcmp(optarg, "table"))
				o->format = 0;
			else if (!strcmp(optarg, "json"))
				o->format = 1;
			else if (!strcmp(optarg, "csv"))
				o->format = 2;
			else
				die("unknown format '%s' for c2c (want table, json or csv)", optarg);
			break;
		case 'h':
			fputs(c2c_usage, stdout);
			return 1;
		default:
			bench_die_getopt(opt, argv);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* --dry-run: the plan and its estimate, nothing measured. */
static void c2c_print_plan(struct c2c_run *r, long measurements)
{
	const struct c2c_opts *o = r->o;
	char mode[64], buf[256];

	if (o->format == 2)
		die("--dry-run prints a table or JSON, not csv");
	if (o->format == 1) {
		c2c_print_json(r, 0);
		return;
	}
	c2c_mode_str(&r->plan, mode, sizeof(mode));
	printf("c2c plan on %s: %d CPUs, pairs %s: %d pair%s", topo_spec(r->t), r->plan.nr_cpus,
	       mode, r->plan.nr_pairs, r->plan.nr_pairs == 1 ? "" : "s");
	if (r->homes_each)
		printf(" x %d home node%s", r->nodes_total, r->nodes_total == 1 ? "" : "s");
	printf(", %d reps of %d samples x %d\n", o->reps, o->samples, o->iters);
	printf("%-8s %9s %9s\n", "class", "available", "planned");
	for (int c = TOPO_CLASS_SMT; c < TOPO_NR_CLASSES; c++)
		if (r->plan.avail[c])
			printf("%-8s %9ld %9d\n", topo_class_name(c), r->plan.avail[c],
			       c2c_plan_count(&r->plan, c));
	if (r->plan.nr_dups) {
		topo_format_list(r->plan.dups, r->plan.nr_dups, buf, sizeof(buf));
		printf("CPUs named more than once, measured once: %s\n", buf);
	}
	printf("estimate: %.1f s (%ld measurements at an assumed %.0f ns per transfer "
	       "plus %.1f ms to start each)\n", r->estimate_s, measurements * o->reps,
	       C2C_ASSUMED_NS, C2C_SETUP_NS / 1e6);
}

/* Measure the plan and print it; the exit status (1: a line could not be placed, or interrupted). */
static int c2c_run_plan(struct c2c_run *r)
{
	const struct c2c_opts *o = r->o;
	size_t n = (size_t)r->nr_homes * r->plan.nr_pairs * o->reps;
	char buf[256];
	int interrupted;

	fprintf(stderr, "ctrbench: c2c: %d pair%s x %d rep%s: estimate %.1f s at an assumed %.0f ns "
		"per transfer\n", r->plan.nr_pairs, r->plan.nr_pairs == 1 ? "" : "s", o->reps,
		o->reps == 1 ? "" : "s", r->estimate_s, C2C_ASSUMED_NS);
	if (r->plan.nr_dups) {
		topo_format_list(r->plan.dups, r->plan.nr_dups, buf, sizeof(buf));
		fprintf(stderr, "ctrbench: c2c: CPUs named more than once, measured once: %s\n", buf);
	}
	for (int h = 0; h < r->nr_homes; h++) {
		int ret = c2c_home_alloc(&r->homes[h], r->homes[h].asked);

		if (ret) {
			fprintf(stderr, "ctrbench: c2c: cannot allocate the line: %s\n", strerror(-ret));
			return 1;
		}
		if (r->homes[h].asked >= 0 && r->homes[h].node >= 0 && r->homes[h].node != r->homes[h].asked) {
			fprintf(stderr, "ctrbench: c2c: the line asked on node %d is on node %d\n",
				r->homes[h].asked, r->homes[h].node);
			return 1;
		}
	}
	if (r->nodes_total == 1)
		fprintf(stderr, "ctrbench: c2c: this machine has one NUMA node: the line is on it for "
			"every pair, --home cannot move it\n");
	r->res = malloc(sizeof(double) * n);
	r->res_p50 = malloc(sizeof(double) * n);
	r->ev_sum = calloc((size_t)r->nr_homes * TOPO_NR_CLASSES * (r->nr_ev ? r->nr_ev : 1), sizeof(double));
	r->tr_sum = calloc((size_t)r->nr_homes * TOPO_NR_CLASSES, sizeof(double));
	if (!r->res || !r->res_p50 || !r->ev_sum || !r->tr_sum)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		r->res[i] = NAN;
	c2c_measure_all(r);
	if (r->ev_reason)
		fprintf(stderr, "ctrbench: c2c: events not counted: %s\n", r->ev_reason);
	interrupted = c2c_stopped != 0;
	if (o->format == 1)
		c2c_print_json(r, interrupted);
	else if (o->format == 2)
		c2c_print_csv(r);
	else
		c2c_print_table(r, interrupted);
	if (c2c_stopped == 1)
		fprintf(stderr, "ctrbench: interrupted: printed what was measured\n");
	return interrupted;
}

int bench_cmd_c2c(int argc, char **argv)
{
	struct c2c_opts o = { .cpus = "all", .pairs = "all", .home = "first-touch", .op = C2C_CAS,
			      .reps = 5, .samples = 300, .iters = 1000 };
	struct c2c_run r = { .o = &o };
	const char *events = "bounce";
	char err[512];
	struct topo *t;
	long measurements;
	int status = 0;

	if (c2c_parse_args(argc, argv, &o, &events))
		return 0;
	t = topo_load(o.topology, err, sizeof(err));
	if (!t) {
		if (o.topology)
			die("%s", err);
		fprintf(stderr, "ctrbench: %s\n", err);
		return 1;
	}
	if (topo_is_synthetic(t) && !o.dry_run) {
		topo_free(t);
		die("--topology '%s' describes another machine: plan it with --dry-run", o.topology);
	}
	r.t = t;
	if (c2c_plan_make(t, o.cpus, o.pairs, &r.plan, err, sizeof(err))) {
		topo_free(t);
		die("%s", err);
	}
	c2c_parse_home(&r, o.home);
	pmu_init();
	c2c_parse_events(&r, events);
	r.env = bench_env_json(NULL);
	if (!r.env)
		die("out of memory");
	measurements = (long)r.plan.nr_pairs * (r.homes_each ? r.nodes_total : r.nr_homes);
	r.estimate_s = c2c_estimate(&o, measurements, C2C_ASSUMED_NS);
	if (o.dry_run)
		c2c_print_plan(&r, measurements);
	else
		status = c2c_run_plan(&r);
	for (int h = 0; h < r.nr_homes; h++)
		c2c_home_free(&r.homes[h]);
	free(r.res);
	free(r.res_p50);
	free(r.ev_sum);
	free(r.tr_sum);
	free(r.ev);
	json_decref(r.env);
	c2c_plan_free(&r.plan);
	topo_free(t);
	return status;
}
