/* SPDX-License-Identifier: MIT */
/*
 * subsys.c - the subsys-flush-locks scenario (see subsys.h).  Kernel 6.16
 * (JP Kobryn's series) split the one cgroup_rstat_lock into one lock per
 * subsystem; its cover letter measured 1M reads of *.stat files on 52 CPUs,
 * 73.7 s -> 42.5 s.  Here: on one rstat_llist tree with subsys=2, updaters
 * add to the "memory" stat of random leaves while readers flush and read
 * it, and other readers flush and read the "io" stat, which nobody updates:
 * with one lock the io readers queue behind memory's flushes, with a lock
 * each they do not.  Figures per subsystem come from the algorithm's own
 * per-subsystem lock counts (ctr_rstat_llist_subsys_stats), over the window.
 *
 * Its own threads rather than the harness's workloads: those update and read
 * stat 0 only, and this needs readers of another stat and figures per
 * subsystem.  The update and the read are inlined (ctr_rstat_llist_add,
 * ctr_rstat_llist_read): no indirect call in the timed loops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "../counters/rstat_llist.h"
#include "../topology/topo.h"
#include "cli.h"
#include "subsys.h"

#define SUB_NR 2		/* subsystems: 0 memory (updated and read), 1 io (read only) */
#define SUB_SHAPE "tree:4x4"	/* 16 memcgs under 4 parents, as shrinker-count */
#define SUB_MAX_RUNS 64		/* reps x 2 lock modes kept for the medians */

static const char *const sub_names[SUB_NR] = { "memory", "io" };

enum sub_phase { SUB_WAIT, SUB_WARMUP, SUB_MEASURE, SUB_STOP };

struct sub_shared {
	struct ctr_tree *t;		/* the rstat_llist tree, subsys=2 */
	const struct bench_shape *shape;	/* its nodes and leaves */
	const struct topo *topo;	/* for binding */
	_Atomic int phase __ctr_aligned;	/* enum sub_phase, set by the main thread */
	_Atomic int ready;		/* threads bound and waiting */
};

struct sub_worker {
	struct sub_shared *sh;		/* the run */
	int slot;			/* updaters: the slot it owns */
	int sub;			/* readers: which subsystem's stat it reads; -1 for an updater */
	int pu;				/* where the placement put it */
	/* the thread's own, read after join */
	uint64_t ops;			/* operations in the window */
	uint64_t t0, t1;		/* its window */
	struct ctr_hist lat;		/* readers: every read in the window, ns */
} __ctr_aligned;

struct sub_run {			/* one run's figures */
	int lock_global;		/* lock mode */
	double seconds;			/* window */
	double upd_per_s;		/* memory updates/s */
	struct ctr_flush_stats f[SUB_NR];	/* per subsystem, over the window */
	double read_p50[SUB_NR], read_p99[SUB_NR];	/* ns */
	uint64_t reads[SUB_NR];		/* reads in the window */
	int verify;			/* exact at the end */
};

static volatile sig_atomic_t sub_interrupted;

static void sub_on_signal(int sig)
{
	(void)sig;
	sub_interrupted = 1;
}

static uint64_t sub_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sub_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR && !sub_interrupted)
		;
}

/* Wait at the gate, then count the window: returns the phase seen. */
static int sub_phase(struct sub_worker *w, int *seen, uint64_t ops, uint64_t *ops0)
{
	int p = atomic_load_explicit(&w->sh->phase, memory_order_relaxed);

	if (p == *seen)
		return p;
	*seen = p;
	if (p == SUB_MEASURE) {
		*ops0 = ops;
		w->t0 = sub_now_ns();
		ctr_hist_reset(&w->lat);
	} else if (p == SUB_STOP) {
		w->t1 = sub_now_ns();
		w->ops = w->t0 ? ops - *ops0 : 0;
	}
	return p;
}

static void *sub_main(void *arg)
{
	struct sub_worker *w = arg;
	struct sub_shared *sh = w->sh;
	const struct bench_shape *s = sh->shape;
	uint64_t ops = 0, ops0 = 0, rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(w->slot + 7 * w->sub + 11);
	int seen = SUB_WAIT;

	topo_bind_self(sh->topo, w->pu);
	atomic_fetch_add_explicit(&sh->ready, 1, memory_order_release);
	while (atomic_load_explicit(&sh->phase, memory_order_acquire) == SUB_WAIT)
		sched_yield();
	seen = SUB_WARMUP;
	while (sub_phase(w, &seen, ops, &ops0) != SUB_STOP) {
		rng = rng * 6364136223846793005ULL + 1;
		if (w->sub < 0) {
			/* a burst of +1/-1 pairs on a random leaf: values stay bounded, nothing may be lost */
			int leaf = s->leaves[(rng >> 33) % (uint64_t)s->nr_leaves];

			for (int i = 0; i < 32; i++) {
				ctr_rstat_llist_add(sh->t, w->slot, leaf, 0, 1);
				ctr_rstat_llist_add(sh->t, w->slot, leaf, 0, -1);
			}
			ops += 64;
		} else {
			/* a memory.stat / io.stat read: flush the node's subtree of that subsystem, read */
			int node = (int)((rng >> 33) % (uint64_t)s->nr_nodes);
			uint64_t t0 = sub_now_ns();

			(void)ctr_rstat_llist_read(sh->t, node, w->sub);
			ctr_hist_add(&w->lat, sub_now_ns() - t0);
			ops++;
		}
	}
	return NULL;
}

/* One run with lock mode global; 0, or -errno when it could not start. */
static int sub_run_one(const struct bench_subsys_args *a, const struct bench_shape *shape, int updaters,
		       int readers, const int *pus, int global, struct sub_run *out)
{
	const int total = updaters + 2 * readers;
	struct sub_shared sh __ctr_aligned = { .shape = shape, .topo = a->base->topo };
	struct sub_worker *ws = ctr_zalloc_aligned(sizeof(*ws) * total);
	pthread_t *tid = calloc(total, sizeof(*tid));
	struct ctr_hist *lat = calloc(SUB_NR, sizeof(*lat));
	uint64_t t0 = 0, t1 = 0;
	int started = 0, err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->lock_global = global;
	if (!ws || !tid || !lat)
		goto out;
	sh.t = ctr_tree_new(ctr_algo_find("rstat_llist"), &(struct ctr_params){
		.nr_nodes = shape->nr_nodes, .parent = shape->parent, .nr_cpus = updaters, .nr_stats = SUB_NR,
		.options = global ? "subsys=2,lock=global" : "subsys=2,lock=per-tree" });
	if (!sh.t) {
		err = -errno;
		goto out;
	}
	for (int i = 0; i < total; i++) {
		ws[i].sh = &sh;
		ws[i].slot = i < updaters ? i : 0;
		/* readers alternate between the two subsystems */
		ws[i].sub = i < updaters ? -1 : (i - updaters) % SUB_NR;
		ws[i].pu = pus[i];
		err = -pthread_create(&tid[i], NULL, sub_main, &ws[i]);
		if (err)
			goto stop;
		started++;
	}
	while (atomic_load_explicit(&sh.ready, memory_order_acquire) < total)
		sub_sleep_ms(1);
	atomic_store_explicit(&sh.phase, SUB_WARMUP, memory_order_release);
	sub_sleep_ms(a->warmup_ms);
	for (int k = 0; k < SUB_NR; k++)
		ctr_rstat_llist_subsys_stats(sh.t, k, &out->f[k], 1);	/* reset: the window's figures only */
	t0 = sub_now_ns();
	atomic_store_explicit(&sh.phase, SUB_MEASURE, memory_order_release);
	sub_sleep_ms(a->duration_ms);
	atomic_store_explicit(&sh.phase, SUB_STOP, memory_order_release);
	t1 = sub_now_ns();
	err = 0;
stop:
	atomic_store_explicit(&sh.phase, SUB_STOP, memory_order_release);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	if (err)
		goto out;
	for (int k = 0; k < SUB_NR; k++)
		ctr_rstat_llist_subsys_stats(sh.t, k, &out->f[k], 0);
	out->seconds = (double)(t1 - t0) / 1e9;
	for (int i = 0; i < total; i++) {
		const struct sub_worker *w = &ws[i];

		if (w->sub < 0) {
			if (w->t1 > w->t0 && w->t0)
				out->upd_per_s += (double)w->ops * 1e9 / (double)(w->t1 - w->t0);
		} else {
			out->reads[w->sub] += w->ops;
			ctr_hist_merge(&lat[w->sub], &w->lat);
		}
	}
	for (int k = 0; k < SUB_NR; k++) {
		out->read_p50[k] = lat[k].count ? (double)ctr_hist_quantile(&lat[k], 0.5) : NAN;
		out->read_p99[k] = lat[k].count ? (double)ctr_hist_quantile(&lat[k], 0.99) : NAN;
	}
	/* +1/-1 pairs and nothing on io: every node of both stats must be back at 0 */
	out->verify = 1;
	for (int n = 0; n < shape->nr_nodes; n++)
		for (int k = 0; k < SUB_NR; k++)
			out->verify &= ctr_read_exact(sh.t, n, k) == 0;
out:
	ctr_tree_free(sh.t);
	free(ws);
	free(tid);
	free(lat);
	return err;
}

/* Figure f of subsystem k of a run. */
typedef double (*sub_fig_fn)(const struct sub_run *r, int k);

static double sub_rate(const struct sub_run *r, uint64_t v)
{
	return r->seconds > 0 ? (double)v / r->seconds : NAN;
}

static double sub_contended(const struct sub_run *r, int k) { return sub_rate(r, r->f[k].lock_contended); }
static double sub_wait(const struct sub_run *r, int k) { return sub_rate(r, r->f[k].lock_wait_ns) / 1e9; }
static double sub_acq(const struct sub_run *r, int k) { return sub_rate(r, r->f[k].lock_acquisitions); }
static double sub_reads(const struct sub_run *r, int k) { return sub_rate(r, r->reads[k]); }
static double sub_p99(const struct sub_run *r, int k) { return r->read_p99[k]; }
static double sub_upd(const struct sub_run *r, int k) { return k ? NAN : r->upd_per_s / 1e6; }

static int sub_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of runs of lock mode g, with its [min, max], into buf. */
static void sub_cell(const struct sub_run *runs, int nruns, int g, int k, sub_fig_fn fn, char *buf, size_t len)
{
	double v[SUB_MAX_RUNS];
	int n = 0;

	for (int i = 0; i < nruns; i++)
		if (runs[i].lock_global == g && !isnan(fn(&runs[i], k)))
			v[n++] = fn(&runs[i], k);
	if (!n) {
		snprintf(buf, len, "n/a");
		return;
	}
	qsort(v, n, sizeof(double), sub_cmp);
	if (n == 1)
		snprintf(buf, len, "%.4g", v[0]);
	else
		snprintf(buf, len, "%.4g [%.3g, %.3g]", n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0],
			 v[n - 1]);
}

/* One JSON line per run, fsynced, so an interrupted scenario keeps what it measured. */
static int sub_write_raw(FILE *fp, const struct sub_run *r, int rep, int updaters, int readers)
{
	json_t *j = json_object(), *subs = json_array();
	char *text;
	int bad = 0;

	json_object_set_new(j, "scenario", json_string("subsys-flush-locks"));
	json_object_set_new(j, "algo", json_string("rstat_llist"));
	json_object_set_new(j, "options", json_string(r->lock_global ? "subsys=2,lock=global" :
							"subsys=2,lock=per-tree"));
	json_object_set_new(j, "rep", json_integer(rep));
	json_object_set_new(j, "shape", json_string(SUB_SHAPE));
	json_object_set_new(j, "updaters", json_integer(updaters));
	json_object_set_new(j, "readers_per_subsys", json_integer(readers));
	json_object_set_new(j, "seconds", json_real(r->seconds));
	json_object_set_new(j, "verify", json_boolean(r->verify));
	json_object_set_new(j, "updates_per_s", json_real(r->upd_per_s));
	for (int k = 0; k < SUB_NR; k++) {
		json_t *s = json_object();

		json_object_set_new(s, "name", json_string(sub_names[k]));
		json_object_set_new(s, "reads", json_integer((json_int_t)r->reads[k]));
		json_object_set_new(s, "flushes", json_integer((json_int_t)r->f[k].flushes));
		json_object_set_new(s, "lock_acquisitions", json_integer((json_int_t)r->f[k].lock_acquisitions));
		json_object_set_new(s, "lock_contended", json_integer((json_int_t)r->f[k].lock_contended));
		json_object_set_new(s, "lock_wait_ns", json_integer((json_int_t)r->f[k].lock_wait_ns));
		json_object_set_new(s, "lock_hold_ns", json_integer((json_int_t)r->f[k].lock_hold_ns));
		json_object_set_new(s, "read_p50_ns", isnan(r->read_p50[k]) ? json_null() : json_real(r->read_p50[k]));
		json_object_set_new(s, "read_p99_ns", isnan(r->read_p99[k]) ? json_null() : json_real(r->read_p99[k]));
		json_array_append_new(subs, s);
	}
	json_object_set_new(j, "subsys", subs);
	text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (!text)
		return -1;
	fflush(fp);
	{
		size_t n = strlen(text);

		text[n] = '\n';	/* one write: a killed run never leaves half a line */
		bad = write(fileno(fp), text, n + 1) != (ssize_t)(n + 1) || (fsync(fileno(fp)) && errno != EINVAL);
	}
	free(text);
	return bad ? -1 : 0;
}

int bench_subsys_scenario(const struct bench_subsys_args *a)
{
	static const struct { const char *name; sub_fig_fn fn; } rows[] = {
		{ "contended acq/s", sub_contended }, { "lock wait s/s", sub_wait },
		{ "lock acquisitions/s", sub_acq }, { "reads/s", sub_reads }, { "read p99 ns", sub_p99 },
		{ "updates Mops/s", sub_upd },
	};
	const int pus_here = topo_nr_pus(a->base->topo);
	const int updaters = pus_here, readers = pus_here;	/* per subsystem */
	const int total = updaters + 2 * readers;
	struct sigaction sa = { .sa_handler = sub_on_signal, .sa_flags = SA_RESTART | SA_RESETHAND };
	struct sub_run runs[SUB_MAX_RUNS];
	struct bench_shape shape;
	const char *why;
	char err[256];
	int *pus = calloc(total, sizeof(int)), nruns = 0, failed = 0, wrapped = 0;

	if (!pus)
		die("out of memory");
	if (bench_shape_parse(SUB_SHAPE, &shape, &why))
		die("scenario subsys-flush-locks: bad shape '%s' (%s)", SUB_SHAPE, why);
	if (topo_place(a->base->topo, a->base->placement, total, pus, &wrapped, err, sizeof(err)))
		die("%s", err);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (a->table) {
		printf("# subsys-flush-locks, from kernel 6.16's per-subsystem rstat locks (JP Kobryn's series);"
		       " %d rep%s of %d ms after %d ms warm-up per lock mode, interleaved; median [min, max]\n",
		       a->reps, a->reps == 1 ? "" : "s", a->duration_ms, a->warmup_ms);
		printf("# rstat_llist subsys=2 on %s: memory (stat 0): %d updaters (+1/-1 pairs on random leaves)"
		       " and %d readers; io (stat 1): %d readers, no updates; every read flushes its node's"
		       " subtree of its subsystem, back to back\n", SUB_SHAPE, updaters, readers, readers);
		printf("# lock=global: both subsystems' flushes take one lock (before 6.16); lock=per-tree: one"
		       " each (6.16 on); figures per subsystem are of its own flushes, from the lock's counts\n");
		printf("# this machine: %d PUs, %d threads%s; the cover letter's 52 CPUs and 1M stat reads are"
		       " not reproduced, only the lock figures' layout (seed 001)\n", pus_here, total,
		       wrapped ? " (placement wrapped)" : "");
	}
	for (int rep = 0; rep < a->reps && nruns + 2 <= SUB_MAX_RUNS && !sub_interrupted; rep++) {
		for (int g = 1; g >= 0 && !sub_interrupted; g--) {
			int e = sub_run_one(a, &shape, updaters, readers, pus, g, &runs[nruns]);

			if (e) {
				fprintf(stderr, "ctrbench: subsys-flush-locks: cannot run: %s\n", strerror(-e));
				failed = 1;
				break;
			}
			failed |= !runs[nruns].verify;
			if (a->raw && sub_write_raw(a->raw, &runs[nruns], rep, updaters, readers)) {
				fprintf(stderr, "ctrbench: writing results: %s\n", strerror(errno));
				failed = 1;
			}
			nruns++;
		}
		if (failed)
			break;
	}
	if (a->table && nruns) {
		char cell[64];

		printf("%-30s %26s %26s\n", "subsystem figure", "lock=global", "lock=per-tree");
		for (int k = 0; k < SUB_NR; k++) {
			for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
				char label[64];

				if (k && rows[r].fn == sub_upd)
					continue;
				snprintf(label, sizeof(label), "%s %s", sub_names[k], rows[r].name);
				printf("%-30s", label);
				for (int g = 1; g >= 0; g--) {
					sub_cell(runs, nruns, g, k, rows[r].fn, cell, sizeof(cell));
					printf(" %26s", cell);
				}
				putchar('\n');
			}
		}
		printf("%-30s", "verify");
		for (int g = 1; g >= 0; g--) {
			int ok = 1, n = 0;

			for (int i = 0; i < nruns; i++)
				if (runs[i].lock_global == g)
					ok &= runs[i].verify, n++;
			printf(" %26s", !n ? "not run" : ok ? "ok" : "FAIL");
		}
		putchar('\n');
	}
	if (sub_interrupted)
		fprintf(stderr, "ctrbench: scenario subsys-flush-locks interrupted: what was measured is printed\n");
	bench_shape_free(&shape);
	free(pus);
	return failed || sub_interrupted;
}
