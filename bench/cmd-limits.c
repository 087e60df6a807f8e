/* SPDX-License-Identifier: MIT */
/*
 * cmd-limits.c - ctrbench limits: each row sets a harness figure (a ctrbench run
 * through the one executor, bench_exec: run's workers in a process of its own,
 * as `ctrbench run --reps 1` measures it) beside the physical limit that bounds it,
 * measured by a probe of the same shape built from the project's own code,
 * and gives the ratio.  Rounds interleave the two sides, so drift on a shared
 * machine hits them alike; the ratio shown is the median of the rounds'
 * ratios, with their range (stats.c's median and range).  The rows are one
 * table (lim_defs): each names its algorithm, shape and probe as data.
 *
 * Probes (single thread unless said; every loop a plain function, no call
 * inside it):
 *   bare loop        a loop whose body is two compiler barriers (one per op of a pair): what a loop costs
 *   plain add        x += 1 on a private volatile word: an update's floor
 *   plain add pairs  x += 1, x -= 1 (the workload's pairs): cores that rename a store to the
 *                    next load of the same address run these faster than single adds
 *   add + linked check  the pairs, each add followed by the kernel's rstat fast-path test
 *                    (css_rstat_updated(): is the node already on this CPU's updated tree?),
 *                    rstat.h's own one-compare check, its call never taken: what an rstat
 *                    update can cost, the pairs plus one compare and branch per update
 *   lock xadd        atomic fetch_add on a private word: an atomic's floor
 *   bounce           2 threads, lock xadd on one shared word (CPU ns per op per thread)
 *   array walk D     plain adds through a precomputed list of D slot offsets, +1
 *                    then -1 as the pairs (per level): what a D-level per-CPU update can cost
 *   count_stat read  sum of S per-thread counters, one per line, contiguous
 *                    (perfbook's count_stat.c read_count()): per slot
 *   page-aligned read the same over S page-aligned areas: the L1 aliasing that
 *                    uncoloured slot areas had (shown, not a limit)
 *
 * --format json: one line per row, {"kind":"limits", "schema" (BENCH_SCHEMA_VERSION),
 * "row", "limit" (the two sides' names), "unit" (op, level or slot), "ns", "limit_ns"
 * (medians over the rounds, CPU ns per unit), "ratio" (median of the rounds' ns /
 * limit_ns), "ratio_lo", "ratio_hi" (their range), "rounds"}: `ctrbench report` draws
 * such lines, given beside run results, as its "Ratio to the limit" section.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../counters/percpu_hier.h"
#include "../counters/rstat.h"
#include "../topology/topo.h"
#include "builtin.h"
#include "cli.h"
#include "exec.h"
#include "run.h"
#include "schema.h"
#include "setup.h"
#include "stats.h"

#define LIM_ROUNDS_MAX 99
#define LIM_PROBE_NS 20000000ull	/* each probe timing runs about this long (20 ms) */

/*
 * Every figure on both sides is CPU time: the calling thread's CPU clock
 * around a probe, the workers' task-clock in a harness run (cpu_ns_per_op).
 * On a machine shared with other load, wall time would charge whichever
 * side happened to be preempted with the wait; CPU time charges neither.
 */
static uint64_t lim_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the probes: fn(arg, n) does n ops; the caller times the call ---- */

typedef void (*lim_fn)(void *arg, uint64_t n);

/* Two barriers per iteration, as the update loop's pairs: n / 2 iterations for n ops. */
static void lim_bare(void *arg, uint64_t n)
{
	(void)arg;
	for (uint64_t i = 0; i < n / 2; i++) {
		__asm__ volatile("" : : "r"(i) : "memory");
		__asm__ volatile("" : : "r"(i) : "memory");
	}
}

/* x += 1 only: the "plain volatile add" (each op's load waits for the last store). */
static void lim_plain_inc(void *arg, uint64_t n)
{
	volatile int64_t *x = arg;

	for (uint64_t i = 0; i < n; i++)
		*x += 1;
}

/* +1 then -1, as the update workload's pairs: n / 2 pairs for n ops. */
static void lim_plain_add(void *arg, uint64_t n)
{
	volatile int64_t *x = arg;

	for (uint64_t i = 0; i < n / 2; i++) {
		*x += 1;
		*x -= 1;
	}
}

struct lim_fast {
	_Atomic int64_t *slot;		/* a slot, owner-written */
	_Atomic int *next;		/* its node's linked mark, on a line of its own as in rstat's area: never unlinked */
	_Atomic int calls;		/* link calls made: none, unless the mark was unlinked */
};

/* The slow path the check guards: out of line, as __ctr_rstat_link, so the loop keeps a call it never makes. */
static __attribute__((noinline)) void lim_fast_link(struct lim_fast *f)
{
	atomic_fetch_add_explicit(&f->calls, 1, memory_order_relaxed);
}

/* The pairs through ctr_owner_add, each followed by rstat's linked check (__ctr_rstat_unlinked_after_store). */
static void lim_fast_path(void *arg, uint64_t n)
{
	struct lim_fast *f = arg;
	_Atomic int64_t *const slot = f->slot;
	_Atomic int *const next = f->next;

	for (uint64_t i = 0; i < n / 2; i++) {
		ctr_owner_add(slot, 1);
		if (__ctr_rstat_unlinked_after_store(next, slot))
			lim_fast_link(f);
		ctr_owner_add(slot, -1);
		if (__ctr_rstat_unlinked_after_store(next, slot))
			lim_fast_link(f);
	}
}

static void lim_xadd(void *arg, uint64_t n)
{
	_Atomic int64_t *x = arg;

	for (uint64_t i = 0; i < n; i++)
		atomic_fetch_add_explicit(x, 1, memory_order_relaxed);
}

struct lim_walk {
	volatile int64_t *slots;	/* one per level, a line apart (a per-CPU area's nodes) */
	const int *off;			/* the precomputed ancestor list: offsets into slots */
	int depth;			/* its length */
};

static void lim_walk(void *arg, uint64_t n)
{
	const struct lim_walk *w = arg;
	volatile int64_t *const slots = w->slots;
	const int *const off = w->off;
	const int d = w->depth;

	for (uint64_t i = 0; i < n / 2; i++) {
		for (int k = 0; k < d; k++)
			slots[off[k]] += 1;
		for (int k = 0; k < d; k++)
			slots[off[k]] -= 1;
	}
}

struct lim_read {
	volatile const int64_t *const *slot;	/* slot[s]: slot s's counter */
	const volatile int64_t *packed;		/* count_stat: the counters, one per line, contiguous */
	int nr;					/* slots */
	struct ctr_tree *tree;			/* percpu_hier: its read */
	volatile int64_t sink;			/* keeps the sums live */
};

/* count_stat's read_count(): sum a per-thread array of line-padded counters. */
static void lim_read_packed(void *arg, uint64_t n)
{
	struct lim_read *r = arg;
	const int stride = CTR_CACHELINE / sizeof(int64_t);

	for (uint64_t i = 0; i < n; i++) {
		int64_t sum = 0;

		for (int s = 0; s < r->nr; s++)
			sum += r->packed[s * stride];
		r->sink = sum;
	}
}

static void lim_read_pages(void *arg, uint64_t n)
{
	struct lim_read *r = arg;

	for (uint64_t i = 0; i < n; i++) {
		int64_t sum = 0;

		for (int s = 0; s < r->nr; s++)
			sum += *r->slot[s];
		r->sink = sum;
	}
}

static void lim_read_hier(void *arg, uint64_t n)
{
	struct lim_read *r = arg;

	for (uint64_t i = 0; i < n; i++)
		r->sink = ctr_percpu_hier_read(r->tree, 0, 0);
}

/*
 * ns per op of fn: n doubled until a call lasts LIM_PROBE_NS / 8, then the
 * median of 5 calls of 8 times that, divided by n x per (ops per unit of n).
 */
static double lim_time(lim_fn fn, void *arg, double per)
{
	uint64_t n = 1024, t0, dt;
	double calls[5];

	for (;;) {
		t0 = lim_cpu_ns();
		fn(arg, n);
		dt = lim_cpu_ns() - t0;
		if (dt >= LIM_PROBE_NS / 8 || n > (1ull << 40))
			break;
		n *= 2;
	}
	n *= 8;
	for (int i = 0; i < 5; i++) {
		t0 = lim_cpu_ns();
		fn(arg, n);
		calls[i] = (double)(lim_cpu_ns() - t0);
	}
	return cmp_median(calls, 5) / ((double)n * per);
}

/* ---- the bounce: two pinned threads on one word ---- */

struct lim_bounce {
	const struct topo *topo;	/* for binding */
	int pu;				/* this thread's PU */
	_Atomic int64_t *word;		/* the shared line */
	_Atomic int *go;		/* both ready */
	uint64_t n;			/* ops each */
	uint64_t ns;			/* its elapsed time */
};

static void *lim_bounce_main(void *arg)
{
	struct lim_bounce *b = arg;
	uint64_t t0;

	topo_bind_self(b->topo, b->pu);
	atomic_fetch_add(b->go, 1);
	while (atomic_load(b->go) < 2)
		;
	t0 = lim_cpu_ns();
	lim_xadd((void *)b->word, b->n);
	b->ns = lim_cpu_ns() - t0;
	return NULL;
}

/* ns per op per thread, two threads on the first two PUs of a compact placement. */
static double lim_bounce(const struct topo *topo)
{
	_Atomic int64_t *word = ctr_zalloc_aligned(CTR_CACHELINE);
	struct lim_bounce b[2];
	pthread_t tid[2];
	_Atomic int go = 0;
	int pus[2], wrapped;
	char err[256];
	double ns;

	if (!word || topo_place(topo, "compact", 2, pus, &wrapped, err, sizeof(err)))
		die("limits: cannot place the bounce's two threads");
	for (int i = 0; i < 2; i++) {
		b[i] = (struct lim_bounce){ topo, pus[i], word, &go, 1u << 23, 0 };
		if (pthread_create(&tid[i], NULL, lim_bounce_main, &b[i]))
			die("limits: cannot start the bounce's threads");
	}
	for (int i = 0; i < 2; i++)
		pthread_join(tid[i], NULL);
	ns = (double)(b[0].ns + b[1].ns) / (double)(b[0].n + b[1].n);
	free((void *)word);
	return ns;
}

/* ---- the harness's side: one ctrbench run, through the executor ---- */

struct lim_ctx {
	struct bench_config base;	/* the machine, set up once */
	int duration_ms;		/* each harness run's window */
	struct bench_exec x;		/* the executor, as run's: no output, no journal */
};

/*
 * CPU ns per op of ctrbench run --algo name --workload update --shape shape
 * --threads threads --reps 1 (task-clock / ops: ns_per_op without the
 * preemptions), measured as run measures it: bench_exec, in a process of its own.
 */
static double lim_harness(struct lim_ctx *c, const char *name, const char *shape, int threads)
{
	struct bench_config cfg = c->base;
	const struct bench_algo *ba = bench_algo_find(name);
	struct bench_summary sum;
	struct bench_exec_group g = { .cfg = &cfg, .algos = &ba, .nr_algos = 1, .what = name, .sums = &sum };
	const char *why;
	double ns;

	cfg.workload = BENCH_UPDATE;
	cfg.threads = threads;
	cfg.readers = 0;
	cfg.duration_ms = c->duration_ms;
	cfg.warmup_ms = 100;
	cfg.reps = 1;
	cfg.options = NULL;
	cfg.pus = NULL;
	cfg.slot_node = NULL;
	cfg.slot_l3 = NULL;
	if (!ba || bench_shape_parse(shape, &cfg.shape, &why))
		die("limits: %s on %s cannot run", name, shape);
	/* A worker preempted through the whole window measures nothing (run.c): run it again. */
	for (int tries = 0; ; tries++) {
		bench_exec(&c->x, &g, 1);
		if (c->x.interrupted) {
			fprintf(stderr, "ctrbench: limits: interrupted: a row needs every round, nothing printed\n");
			exit(1);
		}
		if (!sum.k)
			die("limits: %s on %s could not start", name, shape);
		if (sum.med.verify == 0)
			die("limits: %s on %s failed verification", name, shape);
		ns = sum.med.cpu_ns_per_op > 0 ? sum.med.cpu_ns_per_op : sum.med.ns_per_op;
		if (sum.med.ops && ns > 0)
			break;
		if (tries == 9)
			die("limits: %s on %s measured nothing in 10 runs (the machine is too busy)", name, shape);
	}
	bench_shape_free(&cfg.shape);
	return ns;
}

/* percpu_hier's read of node 0 over S slots with the harness's areas (coloured, bound): ns per slot. */
static double lim_hier_read(int slots)
{
	int *node = calloc(slots, sizeof(int));
	struct lim_read r = { .nr = slots };
	double ns;

	if (!node)
		die("out of memory");
	r.tree = ctr_tree_new(&ctr_algo_percpu_hier, &(struct ctr_params){ .nr_nodes = 1, .nr_cpus = slots,
									   .slot_node = node });
	if (!r.tree)
		die("limits: percpu_hier with %d slots: %s", slots, strerror(errno));
	for (int s = 0; s < slots; s++)
		ctr_add(r.tree, s, 0, 0, 1);
	ns = lim_time(lim_read_hier, &r, slots);
	ctr_tree_free(r.tree);
	free(node);
	return ns;
}

static double lim_packed_read(int slots)
{
	int64_t *packed = ctr_zalloc_aligned((size_t)slots * CTR_CACHELINE);
	struct lim_read r = { .nr = slots, .packed = packed };
	double ns;

	if (!packed)
		die("out of memory");
	ns = lim_time(lim_read_packed, &r, slots);
	free(packed);
	return ns;
}

static double lim_pages_read(int slots)
{
	volatile const int64_t **slot = calloc(slots, sizeof(*slot));
	struct lim_read r = { .nr = slots };
	double ns;

	if (!slot)
		die("out of memory");
	for (int s = 0; s < slots; s++) {
		int64_t *p = aligned_alloc(4096, 4096);

		if (!p)
			die("out of memory");
		memset(p, 0, 4096);
		slot[s] = p;
	}
	r.slot = (volatile const int64_t *const *)slot;
	ns = lim_time(lim_read_pages, &r, slots);
	for (int s = 0; s < slots; s++)
		free((void *)slot[s]);
	free(slot);
	return ns;
}

static double lim_walk_level(int depth)
{
	int64_t *slots = ctr_zalloc_aligned((size_t)depth * CTR_CACHELINE);
	int *off = malloc(sizeof(int) * depth);
	struct lim_walk w = { slots, off, depth };
	double ns;

	if (!slots || !off)
		die("out of memory");
	/* leaf first, root last, a line apart: as a chain's nodes in one slot's area */
	for (int k = 0; k < depth; k++)
		off[k] = (depth - 1 - k) * (int)(CTR_CACHELINE / sizeof(int64_t));
	ns = lim_time(lim_walk, &w, depth);
	free(slots);
	free(off);
	return ns;
}

/*
 * The probes run on this thread, bound to the PU a one-thread harness run's
 * worker gets (the first of a compact placement): on a virtual machine the
 * vCPUs are host threads whose speed differs from one to another and from
 * moment to moment, and a ratio of two sides on different vCPUs measured
 * that difference too.
 */
static void lim_bind_probes(const struct topo *topo)
{
	int pu, wrapped, e;
	char err[256];

	/* As the harness's workers: a refused binding is said, and the run goes on. */
	if (topo_place(topo, "compact", 1, &pu, &wrapped, err, sizeof(err)))
		fprintf(stderr, "limits: probes not bound: %s\n", err);
	else if ((e = topo_bind_self(topo, pu)))
		fprintf(stderr, "limits: probes not bound to PU %d: %s\n", pu, strerror(-e));
}

/* ---- the rows: what each side measures, as data ---- */

/* What one side of a row measures. */
enum lim_probe {
	LIM_HARNESS,		/* a harness run (lim_harness) of algo on shape with threads, / n */
	LIM_AGAIN,		/* the row above's figure on this side, this round (no new measurement) */
	LIM_BARE,		/* lim_bare */
	LIM_PLAIN_INC,		/* lim_plain_inc */
	LIM_PLAIN_ADD,		/* lim_plain_add */
	LIM_WALK,		/* lim_walk_level(n) */
	LIM_HIER_READ,		/* lim_hier_read(n) */
	LIM_PACKED_READ,	/* lim_packed_read(n) */
	LIM_PAGES_READ,		/* lim_pages_read(n) */
	LIM_FAST_PATH,		/* lim_fast_path */
	LIM_XADD,		/* lim_xadd */
	LIM_BOUNCE,		/* lim_bounce */
};

struct lim_side {
	enum lim_probe probe;	/* what is measured */
	const char *algo;	/* LIM_HARNESS: the algorithm (a name: data, looked up, never tested) */
	const char *shape;	/* LIM_HARNESS: its shape */
	int threads;		/* LIM_HARNESS: its updaters */
	int n;			/* LIM_HARNESS: the figure divided by it (levels); walk: depth; reads: slots */
};

struct lim_def {
	const char *what;	/* the harness figure */
	const char *limit;	/* what bounds it */
	const char *unit;	/* ns per op, per level or per slot */
	struct lim_side h, l;	/* the two sides, measured h then l */
	/*
	 * Measured l, h, the next row's l, h, l (A B B A, the figures the means
	 * of the two): the round's first run is seconds away and a host drifts;
	 * a drift linear over the four runs hits both sides' means alike.
	 */
	int abba;
};

#define LIM_RUN(a, s, t, per) { LIM_HARNESS, (a), (s), (t), (per) }
#define LIM_PROBE(p, per) { (p), NULL, NULL, 0, (per) }

/* Every row, in the order each round measures them. */
static const struct lim_def lim_defs[] = {
	{ "empty (harness floor)", "bare loop", "op", LIM_RUN("empty", "chain:1", 1, 1), LIM_PROBE(LIM_BARE, 0), 0 },
	{ "percpu_hier chain:1", "plain add", "op", LIM_RUN("percpu_hier", "chain:1", 1, 1),
	  LIM_PROBE(LIM_PLAIN_INC, 0), 0 },
	{ "percpu_hier chain:1", "plain add pairs", "op", LIM_PROBE(LIM_AGAIN, 0), LIM_PROBE(LIM_PLAIN_ADD, 0), 0 },
	{ "percpu_hier chain:1", "array walk 1", "op", LIM_PROBE(LIM_AGAIN, 0), LIM_PROBE(LIM_WALK, 1), 0 },
	{ "percpu_hier chain:8 per level", "array walk 8, per level", "level",
	  LIM_RUN("percpu_hier", "chain:8", 1, 8), LIM_PROBE(LIM_WALK, 8), 0 },
	{ "percpu_hier chain:32 per level", "array walk 32, per level", "level",
	  LIM_RUN("percpu_hier", "chain:32", 1, 32), LIM_PROBE(LIM_WALK, 32), 0 },
	{ "percpu_hier read, 8 slots", "count_stat read, 8 slots", "slot", LIM_PROBE(LIM_HIER_READ, 8),
	  LIM_PROBE(LIM_PACKED_READ, 8), 0 },
	{ "percpu_hier read, 64 slots", "count_stat read, 64 slots", "slot", LIM_PROBE(LIM_HIER_READ, 64),
	  LIM_PROBE(LIM_PACKED_READ, 64), 0 },
	{ "percpu_hier read, 512 slots", "count_stat read, 512 slots", "slot", LIM_PROBE(LIM_HIER_READ, 512),
	  LIM_PROBE(LIM_PACKED_READ, 512), 0 },
	{ "page-aligned read, 512 slots", "count_stat read, 512 slots", "slot", LIM_PROBE(LIM_PAGES_READ, 512),
	  LIM_PROBE(LIM_PACKED_READ, 512), 0 },
	/* its own percpu_hier runs around it, the fast-path probe (the next row's limit) in the middle */
	{ "rstat_force update chain:1", "percpu_hier chain:1", "op", LIM_RUN("rstat_force", "chain:1", 1, 1),
	  LIM_RUN("percpu_hier", "chain:1", 1, 1), 1 },
	{ "rstat_force update chain:1", "add + linked check pairs", "op", LIM_PROBE(LIM_AGAIN, 0),
	  LIM_PROBE(LIM_FAST_PATH, 0), 0 },
	{ "atomic_tree chain:8 per level", "lock xadd", "level", LIM_RUN("atomic_tree", "chain:8", 1, 8),
	  LIM_PROBE(LIM_XADD, 0), 0 },
	{ "striped chain:1, 1 thread", "lock xadd", "op", LIM_RUN("striped", "chain:1", 1, 1),
	  LIM_PROBE(LIM_XADD, 0), 0 },
	{ "striped chain:1, 2 threads", "2-thread bounce", "op", LIM_RUN("striped", "chain:1", 2, 1),
	  LIM_PROBE(LIM_BOUNCE, 0), 0 },
};

#undef LIM_RUN
#undef LIM_PROBE

enum { LIM_NR_ROWS = sizeof(lim_defs) / sizeof(lim_defs[0]) };

/* A row's figures, round by round. */
struct lim_row {
	double h[LIM_ROUNDS_MAX];	/* harness figure per round */
	double l[LIM_ROUNDS_MAX];	/* limit per round */
};

/* What the probes work on, allocated once. */
struct lim_probes {
	int64_t *word;			/* plain add, lock xadd: a private word on a line of its own */
	struct lim_fast fast;		/* the linked check's slot and mark */
};

/* One side of a row, this round (prev: the row above's figure on this side, for LIM_AGAIN). */
static double lim_side_measure(struct lim_ctx *c, struct lim_probes *pr, const struct lim_side *s, double prev)
{
	switch (s->probe) {
	case LIM_HARNESS:
		return lim_harness(c, s->algo, s->shape, s->threads) / s->n;
	case LIM_AGAIN:
		return prev;
	case LIM_BARE:
		return lim_time(lim_bare, NULL, 1);
	case LIM_PLAIN_INC:
		return lim_time(lim_plain_inc, pr->word, 1);
	case LIM_PLAIN_ADD:
		return lim_time(lim_plain_add, pr->word, 1);
	case LIM_WALK:
		return lim_walk_level(s->n);
	case LIM_HIER_READ:
		return lim_hier_read(s->n);
	case LIM_PACKED_READ:
		return lim_packed_read(s->n);
	case LIM_PAGES_READ:
		return lim_pages_read(s->n);
	case LIM_FAST_PATH:
		return lim_time(lim_fast_path, &pr->fast, 1);
	case LIM_XADD:
		return lim_time(lim_xadd, pr->word, 1);
	case LIM_BOUNCE:
		return lim_bounce(c->base.topo);
	}
	return 0;
}

static void lim_print(const struct lim_row *rows, int rounds, int json)
{
	if (!json)
		printf("%-34s %10s  %-30s %10s  %7s %17s\n", "ctrbench", "median", "limit, same run", "median",
		       "ratio", "[ratio range]");
	for (int i = 0; i < LIM_NR_ROWS; i++) {
		const struct lim_def *d = &lim_defs[i];
		const struct lim_row *r = &rows[i];
		double ratio[LIM_ROUNDS_MAX], hlo, hhi, llo, lhi, rlo, rhi;
		double h = cmp_median_range(r->h, rounds, &hlo, &hhi), l = cmp_median_range(r->l, rounds, &llo, &lhi), q;

		for (int k = 0; k < rounds; k++)
			ratio[k] = r->l[k] > 0 ? r->h[k] / r->l[k] : 0;
		q = cmp_median_range(ratio, rounds, &rlo, &rhi);
		if (json)
			printf("{\"kind\":\"limits\",\"schema\":%d,\"row\":\"%s\",\"limit\":\"%s\","
			       "\"unit\":\"%s\",\"ns\":%.6g,\"limit_ns\":%.6g,\"ratio\":%.6g,\"ratio_lo\":%.6g,"
			       "\"ratio_hi\":%.6g,\"rounds\":%d}\n", BENCH_SCHEMA_VERSION, d->what, d->limit,
			       d->unit, h, l, q, rlo, rhi, rounds);
		else
			printf("%-34s %10.3f  %-30s %10.3f  %6.2fx [%6.2f, %6.2f]\n", d->what, h, d->limit, l, q,
			       rlo, rhi);
	}
	if (!json)
		printf("# CPU ns per op (per level, per slot where said; harness: task-clock / ops, probes: the"
		       " thread's CPU clock, so other load's preemptions count on neither side); each row's two"
		       " sides measured in the same round, %d round%s interleaved; ratio = ctrbench / limit,"
		       " median of the rounds\n", rounds, rounds == 1 ? "" : "s");
}

static const char *const limits_help =
	"usage: ctrbench limits [options]\n"
	"\n"
	"Each harness figure beside the physical limit that bounds it (bare loop, plain add, lock xadd,\n"
	"a 2-thread bounce, a precomputed-array walk, a count_stat-style read, rstat's add and linked\n"
	"check), measured by probes in this process, each row a ratio of one moment: CPU ns per op on\n"
	"both sides, rounds interleaved.\n"
	"\n"
	"  --rounds K               rounds of every row, the ratio their median (default 3)\n"
	"  --duration-ms MS         each harness run's window (default 300)\n"
	"  --format F               table or json, one line per row (default table)\n"
	"\n"
	"example: ctrbench limits --rounds 5\n";

/* Every row, rounds times, interleaved: each row's two sides in the same round. */
static void lim_measure(struct lim_ctx *c, struct lim_row *rows, int rounds)
{
	char *lines = ctr_zalloc_aligned(2 * CTR_CACHELINE);
	struct lim_probes pr = { ctr_zalloc_aligned(CTR_CACHELINE),
				 { (_Atomic int64_t *)lines, (_Atomic int *)(lines + CTR_CACHELINE), 0 } };

	if (!pr.word || !lines)
		die("out of memory");
	atomic_init(pr.fast.next, 0);	/* linked: the check falls through, as on a tree already marked */
	for (int k = 0; k < rounds; k++) {
		for (int i = 0; i < LIM_NR_ROWS; i++) {
			const struct lim_def *d = &lim_defs[i];
			struct lim_row *r = &rows[i];

			if (i && lim_defs[i - 1].abba) {
				/* its limit was measured inside the row above's A B B A */
				r->h[k] = lim_side_measure(c, &pr, &d->h, rows[i - 1].h[k]);
				continue;
			}
			if (!d->abba) {
				r->h[k] = lim_side_measure(c, &pr, &d->h, i ? rows[i - 1].h[k] : 0);
				r->l[k] = lim_side_measure(c, &pr, &d->l, i ? rows[i - 1].l[k] : 0);
				continue;
			}
			r->l[k] = lim_side_measure(c, &pr, &d->l, 0);
			r->h[k] = lim_side_measure(c, &pr, &d->h, 0);
			r[1].l[k] = lim_side_measure(c, &pr, &lim_defs[i + 1].l, 0);
			r->h[k] = (r->h[k] + lim_side_measure(c, &pr, &d->h, 0)) / 2;
			r->l[k] = (r->l[k] + lim_side_measure(c, &pr, &d->l, 0)) / 2;
		}
		fprintf(stderr, "limits: round %d of %d done\n", k + 1, rounds);
	}
	if (atomic_load(&pr.fast.calls))
		die("limits: the linked-check probe took its slow path (its mark was never unlinked)");
	free(pr.word);
	free(lines);
}

int bench_cmd_limits(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration-ms", required_argument, NULL, 'd' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	static struct lim_row rows[LIM_NR_ROWS];
	struct lim_ctx c = { .duration_ms = 300 };
	int rounds = 3, json = 0, opt;

	optind = 0;
	bench_help(argc, argv, limits_help);
	opterr = 0;
	while ((opt = bench_getopt(argc, argv, opts)) != -1) {
		switch (opt) {
		case 'd':
			c.duration_ms = bench_parse_int("duration-ms", optarg, 10, 60000);
			break;
		case 'r':
			rounds = bench_parse_int("rounds", optarg, 1, LIM_ROUNDS_MAX);
			break;
		case 'f':
			json = bench_parse_table_json("limits", optarg);
			break;
		default:
			bench_die_getopt(opt, argv);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	c.base.placement = "compact";
	c.base.sample_every = BENCH_SAMPLE_EVERY;
	c.base.read_node = BENCH_READ_RANDOM;
	bench_setup_machine(&c.base, NULL, NULL);
	lim_bind_probes(c.base.topo);
	c.x = (struct bench_exec){ .name = "limits", .journal = -1, .nr_cpus = topo_nr_pus(c.base.topo) };
	lim_measure(&c, rows, rounds);
	lim_print(rows, rounds, json);
	bench_exec_release(&c.x);
	bench_setup_release(&c.base);
	return 0;
}
