/* SPDX-License-Identifier: MIT */
/*
 * subsys_flush_locks.c - the subsys-flush-locks scenario: two rstat
 * subsystems (stat 0 "memory": updaters and readers; stat 1 "io": readers
 * only) on one tree of an algorithm that takes subsys= and lock=
 * (rstat_llist), with one shared flush lock (lock=global, before kernel
 * 6.16) and one lock per subsystem (lock=per-tree, 6.16 on).  Kernel 6.16
 * (JP Kobryn's series) split the one cgroup_rstat_lock into one lock per
 * subsystem; its cover letter measured 1M reads of *.stat files on 52 CPUs,
 * 73.7 s -> 42.5 s.  Here: on one tree with subsys=2, updaters add to the
 * "memory" stat of random leaves while readers flush and read it, and other
 * readers flush and read the "io" stat, which nobody updates: with one lock
 * the io readers queue behind memory's flushes, with a lock each they do
 * not.  Figures per subsystem come from the algorithm's own per-subsystem
 * lock counts (ctr_rstat_llist_subsys_stats), over the window.
 *
 * Its own threads rather than the executor's (bench/exec.h): bench_run_one's
 * readers run the algorithm's read loop on stat 0 only (bench/loops.c), and
 * its result has one flush figure for the whole tree, where this needs
 * readers of another stat and figures per subsystem.  Its lines are result
 * lines all the same (bench_record_json, the field table of schema.h, with
 * the per-subsystem figures in "subsys"), written as the executor writes
 * them: with K reps, a rep line per rep and a summary per lock mode
 * (bench_summarize); with one, the summary only.  So compare and report read
 * them, and the table is made from the lines, measured now or read back
 * (scn_subsys_from).  The update and the read are inlined
 * (ctr_rstat_llist_add, ctr_rstat_llist_read): no indirect call in the
 * timed loops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "../../counters/rstat_llist.h"
#include "../../topology/topo.h"
#include "../cli.h"
#include "../output.h"
#include "../record.h"
#include "../reps.h"
#include "../results.h"
#include "../setup.h"
#include "../stats.h"
#include "scenario.h"

/* What the scenario command hands over (its machine is set up already). */
struct scn_subsys_args {
	const struct bench_config *base;	/* the machine: topology, placement, timer, env */
	int reps;				/* repetitions, interleaved by lock mode */
	int duration_ms, warmup_ms;		/* per run */
	int table;				/* print the table (else only the JSON lines) */
	int wide;				/* --wide: the notes on one line each */
	FILE *raw;				/* the result lines (rep lines, then summaries), or NULL */
};


#define SUB_NR 2		/* subsystems: 0 memory (updated and read), 1 io (read only) */
#define SUB_SHAPE "tree:4x4"	/* 16 memcgs under 4 parents, as shrinker-count */
#define SUB_NOTE "scenario subsys-flush-locks: "	/* the lines' note: this, then the lock mode */

/*
 * The algorithm, as data: the timed loops below inline its update and read,
 * and its per-subsystem lock counts are what the table shows.  It is checked
 * for the capability (it takes subsys= and lock=) before anything runs.
 */
static const char *const sub_algo_name = "rstat_llist";

static const char *const sub_names[SUB_NR] = { "memory", "io" };
/* Per lock mode g (1: one shared lock, 0: one per subsystem): options and the note's tail. */
static const char *const sub_options[2] = { "subsys=2,lock=per-tree", "subsys=2,lock=global" };
static const char *const sub_modes[2] = { "lock=per-tree", "lock=global" };
/* Figures the harness's lines have and these threads do not measure: null in the lines. */
static const char *const sub_not_measured[] = {
	"update_ns", "read_error", "events", "events_source", "events_per_op", "events_unavailable",
};

enum sub_phase { SUB_WAIT, SUB_WARMUP, SUB_MEASURE, SUB_STOP };

struct sub_shared {
	struct ctr_tree *t;		/* the tree, subsys=2 */
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
	int bind_err;			/* topo_bind_self's */
	int cpu_observed;		/* PU it was on at the end */
	uint64_t ops;			/* operations in the window */
	uint64_t t0, t1;		/* its window */
	struct ctr_hist lat;		/* readers: every read in the window, ns */
} __ctr_aligned;

/* One run: its result line's figures, and those per subsystem. */
struct sub_run {
	struct bench_result r;			/* the line (workload readers: updaters, then readers) */
	struct ctr_flush_stats f[SUB_NR];	/* per subsystem, over the window */
	double read_p50[SUB_NR], read_p99[SUB_NR];	/* ns; NAN without reads */
	uint64_t reads[SUB_NR];			/* reads in the window */
};

/* One run as the table reads it back from its line. */
struct sub_fig {
	int global;				/* lock mode */
	double seconds;				/* elapsed_s */
	double upd_per_s;			/* ops_per_sec: memory updates/s */
	int verify;				/* 1 ok, 0 mismatch */
	double reads[SUB_NR], contended[SUB_NR], wait_ns[SUB_NR], acq[SUB_NR], p99[SUB_NR];
};

static volatile sig_atomic_t sub_interrupted;

static void sub_on_signal(int sig)
{
	(void)sig;
	sub_interrupted = 1;
}

static void sub_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR && !sub_interrupted)
		;
}

/* The algorithm, if it takes both lock modes' options; else one line naming it and what it lacks, exit 2. */
static const struct bench_algo *sub_algo(void)
{
	const struct bench_algo *ba = bench_algo_find(sub_algo_name);
	char err[200];

	if (!ba)
		die("scenario subsys-flush-locks: algorithm '%s' is not in this build", sub_algo_name);
	for (int g = 0; g < 2; g++)
		if (ctr_options_check(ba->algo, sub_options[g], err, sizeof(err)))
			die("scenario subsys-flush-locks: %s cannot run it: it lacks subsystems with their own or"
			    " one shared flush lock (options '%s': %s)", ba->name, sub_options[g], err);
	return ba;
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
		w->t0 = bench_time_ns();
		ctr_hist_reset(&w->lat);
	} else if (p == SUB_STOP) {
		w->t1 = bench_time_ns();
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

	w->bind_err = topo_bind_self(sh->topo, w->pu);
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
			uint64_t t0 = bench_time_ns();

			(void)ctr_rstat_llist_read(sh->t, node, w->sub);
			ctr_hist_add(&w->lat, bench_time_ns() - t0);
			ops++;
		}
	}
	w->cpu_observed = topo_current_cpu();
	return NULL;
}

/* The warm-up and the window of started threads; the window's per-subsystem lock counts into out. */
static void sub_window(const struct bench_config *cfg, struct sub_shared *sh, int total, struct sub_run *out)
{
	uint64_t t0, t1;

	while (atomic_load_explicit(&sh->ready, memory_order_acquire) < total)
		sub_sleep_ms(1);
	atomic_store_explicit(&sh->phase, SUB_WARMUP, memory_order_release);
	sub_sleep_ms(cfg->warmup_ms);
	for (int k = 0; k < SUB_NR; k++)
		ctr_rstat_llist_subsys_stats(sh->t, k, &out->f[k], 1);	/* reset: the window's figures only */
	t0 = bench_time_ns();
	atomic_store_explicit(&sh->phase, SUB_MEASURE, memory_order_release);
	sub_sleep_ms(cfg->duration_ms);
	atomic_store_explicit(&sh->phase, SUB_STOP, memory_order_release);
	t1 = bench_time_ns();
	out->r.seconds = (double)(t1 - t0) / 1e9;
}

/* The read latency of every read, timed on CLOCK_MONOTONIC (ns), as the line's read_ns. */
static void sub_read_lat(const struct ctr_hist *h, struct bench_lat *l)
{
	l->batch = 1;
	l->samples = h->count;
	if (!h->count)
		return;
	l->mean = (double)h->sum / (double)h->count;
	l->p50 = (double)ctr_hist_quantile(h, 0.50);
	l->p90 = (double)ctr_hist_quantile(h, 0.90);
	l->p95 = (double)ctr_hist_quantile(h, 0.95);
	l->p99 = (double)ctr_hist_quantile(h, 0.99);
	l->p999 = (double)ctr_hist_quantile(h, 0.999);
	l->max = (double)h->max;
	l->over_1ms = (double)ctr_hist_count_above(h, 1000000) / (double)h->count;
	l->over_1s = (double)ctr_hist_count_above(h, 1000000000) / (double)h->count;
}

/* What the joined threads measured into out: the line's figures, those per subsystem. */
static void sub_collect(const struct bench_config *cfg, const struct sub_worker *ws, struct sub_run *out)
{
	struct bench_result *r = &out->r;
	struct ctr_hist *lat = calloc(SUB_NR + 1, sizeof(*lat));	/* per subsystem, then all reads */
	double mean = 0, var = 0;

	if (!lat)
		die("out of memory");
	r->ops_min = UINT64_MAX;
	for (int i = 0; i < cfg->threads + cfg->readers; i++) {
		const struct sub_worker *w = &ws[i];

		r->cpu_requested[i] = w->pu;
		r->cpu_observed[i] = w->cpu_observed;
		r->bind_failures += w->bind_err != 0;
		if (w->sub >= 0) {
			out->reads[w->sub] += w->ops;
			ctr_hist_merge(&lat[w->sub], &w->lat);
			ctr_hist_merge(&lat[SUB_NR], &w->lat);
			continue;
		}
		r->ops += w->ops;
		r->ops_min = w->ops < r->ops_min ? w->ops : r->ops_min;
		r->ops_max = w->ops > r->ops_max ? w->ops : r->ops_max;
		mean += (double)w->ops / cfg->threads;
		if (w->t1 > w->t0 && w->t0)
			r->ops_per_sec += (double)w->ops * 1e9 / (double)(w->t1 - w->t0);
	}
	for (int i = 0; i < cfg->threads; i++)
		var += ((double)ws[i].ops - mean) * ((double)ws[i].ops - mean) / cfg->threads;
	r->ops_cv = mean > 0 ? sqrt(var) / mean : 0;
	r->ns_per_op = r->ops_per_sec > 0 ? 1e9 * cfg->threads / r->ops_per_sec : 0;
	for (int k = 0; k < SUB_NR; k++) {
		out->read_p50[k] = lat[k].count ? (double)ctr_hist_quantile(&lat[k], 0.5) : NAN;
		out->read_p99[k] = lat[k].count ? (double)ctr_hist_quantile(&lat[k], 0.99) : NAN;
		r->reads += out->reads[k];
	}
	r->reads_per_sec = r->seconds > 0 ? (double)r->reads / r->seconds : 0;
	sub_read_lat(&lat[SUB_NR], &r->read_lat);
	free(lat);
}

/* The tree's flush figures (the line's "flush": both subsystems') and the check at rest. */
static void sub_verify(const struct bench_config *cfg, struct ctr_tree *t, struct sub_run *out)
{
	struct bench_result *r = &out->r;

	for (int k = 0; k < SUB_NR; k++)
		ctr_rstat_llist_subsys_stats(t, k, &out->f[k], 0);
	r->has_flush = t->algo->flush_stats != NULL;
	if (r->has_flush)
		t->algo->flush_stats(t, &r->flush, 0);
	r->error_bound = ctr_read_error_bound(t);
	/* +1/-1 pairs and nothing on io: every node of both stats must be back at 0 */
	r->verify = 1;
	r->bad_node = -1;
	for (int n = 0; n < cfg->shape.nr_nodes && r->verify; n++)
		for (int k = 0; k < SUB_NR && r->verify; k++)
			if (ctr_read_exact(t, n, k)) {
				r->verify = 0;
				r->bad_node = n;
				r->got = ctr_read_exact(t, n, k);
			}
}

/* One run of cfg (its options say the lock mode); 0, or -errno when it could not start. */
static int sub_run_one(const struct bench_config *cfg, const struct bench_algo *ba, struct sub_run *out)
{
	const int updaters = cfg->threads, total = updaters + cfg->readers;
	struct sub_shared sh __ctr_aligned = { .shape = &cfg->shape, .topo = cfg->topo };
	struct sub_worker *ws = ctr_zalloc_aligned(sizeof(*ws) * total);
	pthread_t *tid = calloc(total, sizeof(*tid));
	int started = 0, err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->r.ba = ba;
	out->r.cpu_requested = calloc(total, sizeof(int));
	out->r.cpu_observed = calloc(total, sizeof(int));
	if (!ws || !tid || !out->r.cpu_requested || !out->r.cpu_observed)
		goto out;
	sh.t = ctr_tree_new(ba->algo, &(struct ctr_params){
		.nr_nodes = cfg->shape.nr_nodes, .parent = cfg->shape.parent, .nr_cpus = cfg->slots,
		.nr_stats = SUB_NR, .options = cfg->options });
	err = sh.t ? 0 : -errno;
	for (int i = 0; i < total && !err; i++) {
		ws[i].sh = &sh;
		ws[i].slot = i < updaters ? i : 0;
		/* readers alternate between the two subsystems */
		ws[i].sub = i < updaters ? -1 : (i - updaters) % SUB_NR;
		ws[i].pu = cfg->pus[i];
		err = -pthread_create(&tid[i], NULL, sub_main, &ws[i]);
		started += !err;
	}
	if (!err)
		sub_window(cfg, &sh, total, out);
	/* a failed start goes straight to STOP: the started threads exit */
	atomic_store_explicit(&sh.phase, SUB_STOP, memory_order_release);
	while (started)
		pthread_join(tid[--started], NULL);
	if (!err) {
		sub_collect(cfg, ws, out);
		sub_verify(cfg, sh.t, out);
	}
out:
	ctr_tree_free(sh.t);
	free(ws);
	free(tid);
	if (err)
		bench_result_free(&out->r);
	return err;
}

/* The per-subsystem figures of a run: the line's "subsys". */
static json_t *sub_subsys_json(const struct sub_run *run)
{
	json_t *subs = json_array();

	for (int k = 0; k < SUB_NR; k++) {
		const struct ctr_flush_stats *f = &run->f[k];

		json_array_append_new(subs, json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o}",
			"name", sub_names[k], "reads", (json_int_t)run->reads[k],
			"flushes", (json_int_t)f->flushes, "lock_acquisitions", (json_int_t)f->lock_acquisitions,
			"lock_contended", (json_int_t)f->lock_contended, "lock_wait_ns", (json_int_t)f->lock_wait_ns,
			"lock_hold_ns", (json_int_t)f->lock_hold_ns,
			"read_p50_ns", isnan(run->read_p50[k]) ? json_null() : json_real(run->read_p50[k]),
			"read_p99_ns", isnan(run->read_p99[k]) ? json_null() : json_real(run->read_p99[k])));
	}
	return subs;
}

/* Line j's figures these threads do not measure: null, and so are their intervals and per-rep values. */
static void sub_null_unmeasured(json_t *j)
{
	json_t *stats = json_object_get(j, "stats"), *reps = json_object_get(j, "reps"), *e;
	const char *key;
	void *tmp;
	size_t i;

	for (size_t m = 0; m < sizeof(sub_not_measured) / sizeof(sub_not_measured[0]); m++) {
		const char *nm = sub_not_measured[m];
		const size_t n = strlen(nm);

		json_object_set_new(j, nm, json_null());
		json_object_foreach_safe(stats, tmp, key, e)
			if (!strncmp(key, nm, n) && (key[n] == '.' || !key[n]))
				json_object_del(stats, key);
		json_array_foreach(reps, i, e)
			if (json_object_get(e, nm))
				json_object_set_new(e, nm, json_null());
	}
}

/*
 * The line of runs[0..k) of one lock mode: a rep line of runs[0] (rep >= 0),
 * else their summary (bench_summarize: medians, intervals; the details,
 * "subsys" included, from the rep it names).
 */
static json_t *sub_line(const struct bench_config *cfg, int nr_cpus, const struct sub_run *runs, int k, int rep)
{
	struct bench_result *res = bench_xcalloc((size_t)k, sizeof(*res));
	struct bench_summary s;
	json_t *j;

	for (int i = 0; i < k; i++)
		res[i] = runs[i].r;
	if (rep >= 0) {
		j = json_pack("{s:s,s:i}", "kind", "rep", "rep", rep);
		json_object_update_new(j, bench_record_json(cfg, nr_cpus, &res[0], NULL, NULL));
		s.rep_index = 0;
	} else {
		bench_summarize(res, k, &s);
		j = bench_record_json(cfg, nr_cpus, &s.med, &s, res);
	}
	if (!j)
		die("out of memory");
	sub_null_unmeasured(j);
	json_object_set_new(j, "subsys", sub_subsys_json(&runs[s.rep_index]));
	free(res);
	return j;
}

/* One line into the results file: one write(2), then fsync, so a killed run never leaves half a line. */
static int sub_put(FILE *fp, json_t *j)
{
	char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	size_t n;
	int bad;

	if (!text)
		die("out of memory");
	fflush(fp);
	n = strlen(text);
	text[n] = '\n';		/* over the terminating NUL: one write */
	bad = write(fileno(fp), text, n + 1) != (ssize_t)(n + 1) || (fsync(fileno(fp)) && errno != EINVAL);
	free(text);
	return bad ? -1 : 0;
}

/* What the header says: from the configuration measured now, or from a file's first line. */
struct sub_plan {
	const char *algo;		/* the algorithm */
	int reps, duration_ms, warmup_ms;	/* asked for */
	int updaters, readers;		/* memory's updaters; readers per subsystem */
	int pus, wrapped;		/* the machine's PUs; the placement wrapped */
	const char *where;		/* "this machine", or the file's */
	int wide;			/* --wide: the notes on one line each (else broken at 100 columns) */
};

/* A "# " note of the header, broken at BENCH_COLUMNS unless wide (issue 31). */
static void sub_note(int wide, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sub_note(int wide, const char *fmt, ...)
{
	va_list ap;
	char *text;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	bench_print_wrapped(stdout, "# ", "#   ", "", text, wide);
	free(text);
}

static void sub_header(const struct sub_plan *p)
{
	sub_note(p->wide, "subsys-flush-locks, from kernel 6.16's per-subsystem rstat locks (JP Kobryn's series);"
		 " %d rep%s of %d ms after %d ms warm-up per lock mode, interleaved; median [min, max]",
		 p->reps, p->reps == 1 ? "" : "s", p->duration_ms, p->warmup_ms);
	sub_note(p->wide, "%s subsys=2 on %s: memory (stat 0): %d updaters (+1/-1 pairs on random leaves)"
		 " and %d readers; io (stat 1): %d readers, no updates; every read flushes its node's"
		 " subtree of its subsystem, back to back", p->algo, SUB_SHAPE, p->updaters, p->readers,
		 p->readers);
	sub_note(p->wide, "lock=global: both subsystems' flushes take one lock (before 6.16); lock=per-tree: one"
		 " each (6.16 on); figures per subsystem are of its own flushes, from the lock's counts");
	sub_note(p->wide, "%s: %d PUs, %d threads%s; the cover letter's 52 CPUs and 1M stat reads are"
		 " not reproduced, only the lock figures' layout (seed 001)", p->where, p->pus,
		 p->updaters + 2 * p->readers, p->wrapped ? " (placement wrapped)" : "");
}

/* A number at path in o, NAN where it is not one. */
static double sub_num(json_t *o, const char *path)
{
	json_t *v = bench_json_path(o, path);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Line o of this scenario as the table reads it; -1 when it is another's. */
static int sub_fig_of(json_t *o, struct sub_fig *f)
{
	const char *note = json_string_value(json_object_get(o, "note"));
	json_t *subs = json_object_get(o, "subsys");

	memset(f, 0, sizeof(*f));
	f->global = -1;
	for (int g = 0; g < 2 && note && !strncmp(note, SUB_NOTE, strlen(SUB_NOTE)); g++)
		if (!strcmp(note + strlen(SUB_NOTE), sub_modes[g]))
			f->global = g;
	if (f->global < 0 || json_array_size(subs) != SUB_NR)
		return -1;
	f->seconds = sub_num(o, "elapsed_s");
	f->upd_per_s = sub_num(o, "ops_per_sec");
	f->verify = !strcmp(json_string_value(json_object_get(o, "verify")) ?: "", "ok");
	for (int k = 0; k < SUB_NR; k++) {
		json_t *s = json_array_get(subs, k);

		f->reads[k] = sub_num(s, "reads");
		f->contended[k] = sub_num(s, "lock_contended");
		f->wait_ns[k] = sub_num(s, "lock_wait_ns");
		f->acq[k] = sub_num(s, "lock_acquisitions");
		f->p99[k] = sub_num(s, "read_p99_ns");
	}
	return 0;
}

/* Figure of subsystem k of a run. */
typedef double (*sub_fig_fn)(const struct sub_fig *r, int k);

static double sub_rate(const struct sub_fig *r, double v)
{
	return r->seconds > 0 ? v / r->seconds : NAN;
}

static double sub_contended(const struct sub_fig *r, int k) { return sub_rate(r, r->contended[k]); }
static double sub_wait(const struct sub_fig *r, int k) { return sub_rate(r, r->wait_ns[k]) / 1e9; }
static double sub_acq(const struct sub_fig *r, int k) { return sub_rate(r, r->acq[k]); }
static double sub_reads(const struct sub_fig *r, int k) { return sub_rate(r, r->reads[k]); }
static double sub_p99(const struct sub_fig *r, int k) { return r->p99[k]; }
static double sub_upd(const struct sub_fig *r, int k) { return k ? NAN : r->upd_per_s / 1e6; }

/* The median (stats.c) of runs of lock mode g, with its [min, max], into buf. */
static void sub_cell(const struct sub_fig *runs, int nruns, int g, int k, sub_fig_fn fn, char *buf, size_t len)
{
	double *v = bench_xcalloc((size_t)nruns + 1, sizeof(double)), lo = INFINITY, hi = -INFINITY;
	int n = 0;

	for (int i = 0; i < nruns; i++)
		if (runs[i].global == g && !isnan(fn(&runs[i], k))) {
			v[n] = fn(&runs[i], k);
			lo = v[n] < lo ? v[n] : lo;
			hi = v[n] > hi ? v[n] : hi;
			n++;
		}
	if (!n)
		snprintf(buf, len, "n/a");
	else if (n == 1)
		snprintf(buf, len, "%.4g", v[0]);
	else
		snprintf(buf, len, "%.4g [%.3g, %.3g]", cmp_median(v, n), lo, hi);
	free(v);
}

/* The table of the runs' lines (rep lines, or one rep's summaries); the number of runs it shows. */
static int sub_table(json_t *const *lines, int nlines)
{
	static const struct { const char *name; sub_fig_fn fn; } rows[] = {
		{ "contended acq/s", sub_contended }, { "lock wait s/s", sub_wait },
		{ "lock acquisitions/s", sub_acq }, { "reads/s", sub_reads }, { "read p99 ns", sub_p99 },
		{ "updates Mops/s", sub_upd },
	};
	struct sub_fig *runs = bench_xcalloc((size_t)nlines + 1, sizeof(*runs));
	char cell[64], label[64];
	int n = 0;

	for (int i = 0; i < nlines; i++)
		n += !sub_fig_of(lines[i], &runs[n]);
	printf("%-30s %26s %26s\n", "subsystem figure", "lock=global", "lock=per-tree");
	for (int k = 0; k < SUB_NR; k++)
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			if (k && rows[r].fn == sub_upd)
				continue;
			snprintf(label, sizeof(label), "%s %s", sub_names[k], rows[r].name);
			printf("%-30s", label);
			for (int g = 1; g >= 0; g--) {
				sub_cell(runs, n, g, k, rows[r].fn, cell, sizeof(cell));
				printf(" %26s", cell);
			}
			putchar('\n');
		}
	printf("%-30s", "verify");
	for (int g = 1; g >= 0; g--) {
		int ok = 1, m = 0;

		for (int i = 0; i < n; i++)
			if (runs[i].global == g)
				ok &= runs[i].verify, m++;
		printf(" %26s", !m ? "not run" : ok ? "ok" : "FAIL");
	}
	putchar('\n');
	free(runs);
	return n;
}

/* The scenario measured now: its two configurations, its runs [g * reps + rep], their lines. */
struct sub_ctx {
	const struct scn_subsys_args *a;	/* what the command asked for */
	const struct bench_algo *ba;		/* the algorithm (sub_algo) */
	int nr_cpus;				/* this machine's PUs, in every line */
	struct bench_config cfg[2];		/* per lock mode g */
	struct sub_run *runs;			/* [g * reps + rep] */
	int done[2];				/* reps done per lock mode */
	json_t **lines;				/* each run's line, for the table */
	int nlines;				/* their number */
	int failed;				/* a run failed verification, could not start, or a write failed */
};

/* Lock mode g's configuration: the readers workload's fields, set as these threads run. */
static void sub_config(struct sub_ctx *c, int g, const struct bench_shape *shape)
{
	struct bench_config *cfg = &c->cfg[g];
	const int pus = topo_nr_pus(c->a->base->topo);

	*cfg = *c->a->base;
	cfg->pus = cfg->slot_node = cfg->slot_l3 = NULL;
	cfg->workload = BENCH_READERS;
	cfg->shape = *shape;
	cfg->threads = pus;			/* memory's updaters, one a PU */
	cfg->readers = SUB_NR * pus;		/* then readers, one a PU per subsystem, alternating */
	cfg->slots = pus;			/* a slot per updater: the readers own none */
	cfg->read_node = BENCH_READ_RANDOM;
	cfg->read_interval_us = 0;
	cfg->flush_period_ms = 0;		/* no periodic flusher: not a setting of this run */
	cfg->work_ns = cfg->work_iters = cfg->charge_burst = 0;
	cfg->events_spec = NULL;
	cfg->nr_events = 0;
	cfg->duration_ms = c->a->duration_ms;
	cfg->warmup_ms = c->a->warmup_ms;
	cfg->reps = c->a->reps;
	cfg->options = sub_options[g];
	cfg->note = g ? SUB_NOTE "lock=global" : SUB_NOTE "lock=per-tree";
	bench_setup_threads(cfg);
}

/*
 * Rep rep of lock mode g: measured, its rep line written (with one rep: its
 * summary).  0; 1 when it failed verification or a write failed; -1 when it could not start.
 */
static int sub_rep(struct sub_ctx *c, int g, int rep)
{
	struct sub_run *run = &c->runs[g * c->a->reps + rep];
	int e = sub_run_one(&c->cfg[g], c->ba, run);
	json_t *j;

	if (e) {
		fprintf(stderr, "ctrbench: %s: cannot run: %s\n", c->ba->name, strerror(-e));
		return -1;
	}
	c->done[g]++;
	j = sub_line(&c->cfg[g], c->nr_cpus, run, 1, c->a->reps > 1 ? rep : -1);
	if (c->a->raw && sub_put(c->a->raw, j)) {
		fprintf(stderr, "ctrbench: writing results: %s\n", strerror(errno));
		c->failed = 1;
	}
	c->lines[c->nlines++] = j;
	return !run->r.verify || c->failed;
}

/* With K reps done in both modes: each mode's summary line (as the executor writes it). */
static void sub_summaries(struct sub_ctx *c)
{
	for (int g = 1; g >= 0 && c->a->reps > 1 && c->a->raw; g--) {
		json_t *j;

		if (c->done[g] != c->a->reps)
			continue;	/* interrupted: its reps are in the file, no summary short of reps */
		j = sub_line(&c->cfg[g], c->nr_cpus, &c->runs[g * c->a->reps], c->done[g], -1);
		if (sub_put(c->a->raw, j)) {
			fprintf(stderr, "ctrbench: writing results: %s\n", strerror(errno));
			c->failed = 1;
		}
		json_decref(j);
	}
}

/*
 * Runs it; returns 1 if a run failed verification, could not start, a line
 * could not be written, or it was interrupted.  An algorithm without the
 * capability is refused (one line, exit 2) before anything runs.
 */
static int scn_subsys_measure(const struct scn_subsys_args *a)
{
	struct sigaction sa = { .sa_handler = sub_on_signal, .sa_flags = SA_RESTART | SA_RESETHAND };
	struct sub_ctx c = { .a = a, .ba = sub_algo(), .nr_cpus = topo_nr_pus(a->base->topo) };
	struct bench_shape shape;
	const char *why;

	if (bench_shape_parse(SUB_SHAPE, &shape, &why))
		die("scenario subsys-flush-locks: bad shape '%s' (%s)", SUB_SHAPE, why);
	for (int g = 0; g < 2; g++)
		sub_config(&c, g, &shape);
	c.runs = bench_xcalloc((size_t)(2 * a->reps), sizeof(*c.runs));
	c.lines = bench_xcalloc((size_t)(2 * a->reps), sizeof(*c.lines));
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (a->table)
		sub_header(&(struct sub_plan){ c.ba->name, a->reps, a->duration_ms, a->warmup_ms, c.cfg[0].threads,
					       c.cfg[0].readers / SUB_NR, c.nr_cpus, c.cfg[0].wrapped, "this machine",
					       a->wide });
	/* interleaved: global, per-tree, then again */
	for (int rep = 0; rep < a->reps && !c.failed && !sub_interrupted; rep++)
		for (int g = 1; g >= 0 && !sub_interrupted; g--) {
			int e = sub_rep(&c, g, rep);

			c.failed |= e;
			if (e < 0)
				break;
		}
	sub_summaries(&c);
	if (a->table && c.nlines)
		sub_table(c.lines, c.nlines);
	if (sub_interrupted)
		fprintf(stderr, "ctrbench: scenario subsys-flush-locks interrupted: what was measured is printed\n");
	for (int i = 0; i < 2 * a->reps; i++)
		bench_result_free(&c.runs[i].r);
	for (int i = 0; i < c.nlines; i++)
		json_decref(c.lines[i]);
	for (int g = 0; g < 2; g++) {	/* what bench_setup_threads made; the machine is the caller's */
		free(c.cfg[g].pus);
		free(c.cfg[g].slot_node);
		free(c.cfg[g].slot_l3);
	}
	bench_shape_free(&shape);
	free(c.runs);
	free(c.lines);
	return c.failed || sub_interrupted;
}

/* A file's run lines of this scenario: its rep lines, and the summaries of one rep (each such a run). */
static int sub_from_lines(const struct bench_results *r, json_t **lines)
{
	struct sub_fig f;
	int n = 0;

	for (int i = 0; i < r->nr_rep; i++)
		if (!sub_fig_of(r->rep[i].obj, &f))
			lines[n++] = r->rep[i].obj;
	for (int i = 0; i < r->n; i++)
		if (json_integer_value(json_object_get(r->line[i].obj, "reps_done")) <= 1 &&
		    !sub_fig_of(r->line[i].obj, &f))
			lines[n++] = r->line[i].obj;
	return n;
}

/*
 * --from FILE: the table again from FILE's lines (bench_results_load),
 * measuring nothing.  0, or 1 when a lock mode has no lines there (its
 * column "not run", said on stderr); bad input dies.
 */
static int scn_subsys_from(const char *path, int wide)
{
	struct bench_results r = { 0 };
	json_t **lines, *o;
	int n, missing = 0;

	bench_results_load(path, 0, &r);
	bench_results_check_partial(&r, path, "scenario");
	bench_results_check_unique(&r, path, bench_field_is_resume_key);
	lines = bench_xcalloc((size_t)(r.n + r.nr_rep) + 1, sizeof(*lines));
	n = sub_from_lines(&r, lines);
	if (!n)
		die("'%s' for --from holds no subsys-flush-locks results", path);
	o = lines[0];
	sub_header(&(struct sub_plan){ json_string_value(json_object_get(o, "algo")),
		(int)json_integer_value(json_object_get(o, "reps_requested")),
		(int)json_integer_value(json_object_get(o, "duration_ms")),
		(int)json_integer_value(json_object_get(o, "warmup_ms")),
		(int)json_integer_value(json_object_get(o, "threads")),
		(int)json_integer_value(json_object_get(o, "readers")) / SUB_NR,
		(int)json_integer_value(json_object_get(o, "cpus")),
		json_is_true(json_object_get(o, "placement_wrapped")), "the file's machine", wide });
	sub_table(lines, n);
	for (int g = 0; g < 2; g++) {
		int have = 0;
		struct sub_fig f;

		for (int i = 0; i < n; i++)
			have += !sub_fig_of(lines[i], &f) && f.global == g;
		missing += !have;
	}
	if (missing)
		fprintf(stderr, "ctrbench: scenario subsys-flush-locks: %d lock mode%s not in '%s' (printed"
			" \"not run\"): run with the options that wrote it\n", missing, missing == 1 ? " is" : "s are",
			path);
	free(lines);
	bench_results_free(&r);
	return missing ? 1 : 0;
}

static void scn_subsys_run(struct scn_ctx *c)
{
	/*
	 * 8 threads on 2 CPUs: in --quick's 60 ms window a subsystem's readers got
	 * no time slice under load (0 reads); a quick run here takes 300 ms.
	 */
	const int ms = c->quick && c->duration_ms < 300 ? 300 : c->duration_ms;
	const struct scn_subsys_args a = {
		.base = &c->base, .reps = c->reps, .duration_ms = ms, .warmup_ms = c->warmup_ms,
		.table = c->table, .wide = c->wide, .raw = c->raw.fp ? c->raw.fp : c->table ? NULL : stdout,
	};

	/* --from: the table from the file's lines (the engine has checked them), nothing run */
	c->failed |= c->from ? scn_subsys_from(c->from, c->wide) : scn_subsys_measure(&a);
}

const struct scn scn_subsys_flush_locks = {
	.name = "subsys-flush-locks",
	.seed = "kernel 6.16 (no seed)",
	.what = "two rstat subsystems, one flush lock or one each: contention per subsystem",
	.opts = SCN_OPT_FROM,
	.opts_why = "it runs its own threads and one algorithm's two lock modes, not columns the engine plans",
	.own_plan = 1,
	.run = scn_subsys_run,
};
