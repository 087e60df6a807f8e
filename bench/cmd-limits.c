/* SPDX-License-Identifier: MIT */
/*
 * cmd-limits.c - ctrbench limits: each row sets a harness figure (ctrbench run's
 * own loops, in this process) beside the physical limit that bounds it,
 * measured by a probe of the same shape built from the project's own code,
 * and gives the ratio.  Rounds interleave the two sides, so drift on a shared
 * machine hits them alike; the ratio shown is the median of the rounds'
 * ratios, with their range.
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
#include "run.h"
#include "schema.h"
#include "setup.h"

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
	uint64_t n = 1024, t0, dt, best[5];

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
		best[i] = lim_cpu_ns() - t0;
	}
	for (int i = 1; i < 5; i++)
		for (int j = i; j > 0 && best[j - 1] > best[j]; j--) {
			uint64_t x = best[j];

			best[j] = best[j - 1];
			best[j - 1] = x;
		}
	return (double)best[2] / ((double)n * per);
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

/* ---- the harness's side: one ctrbench run in this process ---- */

struct lim_ctx {
	struct bench_config base;	/* the machine, set up once */
	int duration_ms;		/* each harness run's window */
};

/*
 * CPU ns per op of ctrbench run --algo name --workload update --shape shape
 * --threads threads (task-clock / ops: ns_per_op without the preemptions).
 */
static double lim_harness(struct lim_ctx *c, const char *name, const char *shape, int threads,
			  const char *options)
{
	struct bench_config cfg = c->base;
	const struct bench_algo *ba = bench_algo_find(name);
	struct bench_result r;
	const char *why;
	double ns;

	cfg.workload = BENCH_UPDATE;
	cfg.threads = threads;
	cfg.readers = 0;
	cfg.duration_ms = c->duration_ms;
	cfg.warmup_ms = 100;
	cfg.options = options;
	cfg.pus = NULL;
	cfg.slot_node = NULL;
	cfg.slot_l3 = NULL;
	if (!ba || bench_shape_parse(shape, &cfg.shape, &why))
		die("limits: %s on %s cannot run", name, shape);
	bench_setup_threads(&cfg);
	/* A worker preempted through the whole window measures nothing (run.c): run it again. */
	for (int tries = 0; ; tries++) {
		if (bench_run_one(&cfg, ba, &r))
			die("limits: %s on %s could not start", name, shape);
		if (r.verify == 0)
			die("limits: %s on %s failed verification", name, shape);
		ns = r.cpu_ns_per_op > 0 ? r.cpu_ns_per_op : r.ns_per_op;
		bench_result_free(&r);
		if (r.ops && ns > 0)
			break;
		if (tries == 9)
			die("limits: %s on %s measured nothing in 10 runs (the machine is too busy)", name, shape);
	}
	free(cfg.pus);
	free(cfg.slot_node);
	free(cfg.slot_l3);
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

/* ---- the table ---- */

enum { LIM_ROWS_MAX = 16 };

struct lim_row {
	const char *what;		/* the harness figure */
	const char *limit;		/* what bounds it */
	const char *unit;		/* ns per op, per level or per slot */
	double h[LIM_ROUNDS_MAX];	/* harness figure per round */
	double l[LIM_ROUNDS_MAX];	/* limit per round */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double lim_median(const double *v, int n, double *lo, double *hi)
{
	double s[LIM_ROUNDS_MAX];

	memcpy(s, v, sizeof(double) * n);
	qsort(s, n, sizeof(double), cmp_double);
	*lo = s[0];
	*hi = s[n - 1];
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void lim_print(const struct lim_row *rows, int nr, int rounds, int json)
{
	if (!json)
		printf("%-34s %10s  %-30s %10s  %7s %17s\n", "ctrbench", "median", "limit, same run", "median",
		       "ratio", "[ratio range]");
	for (int i = 0; i < nr; i++) {
		const struct lim_row *r = &rows[i];
		double ratio[LIM_ROUNDS_MAX], hlo, hhi, llo, lhi, rlo, rhi;
		double h = lim_median(r->h, rounds, &hlo, &hhi), l = lim_median(r->l, rounds, &llo, &lhi), q;

		for (int k = 0; k < rounds; k++)
			ratio[k] = r->l[k] > 0 ? r->h[k] / r->l[k] : 0;
		q = lim_median(ratio, rounds, &rlo, &rhi);
		if (json)
			printf("{\"kind\":\"limits\",\"schema\":%d,\"row\":\"%s\",\"limit\":\"%s\","
			       "\"unit\":\"%s\",\"ns\":%.4f,\"limit_ns\":%.4f,\"ratio\":%.4f,\"ratio_lo\":%.4f,"
			       "\"ratio_hi\":%.4f,\"rounds\":%d}\n", BENCH_SCHEMA_VERSION, r->what, r->limit,
			       r->unit, h, l, q, rlo, rhi, rounds);
		else
			printf("%-34s %10.3f  %-30s %10.3f  %6.2fx [%6.2f, %6.2f]\n", r->what, h, r->limit, l, q,
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

/* Every row, rounds times, interleaved: each row's two sides in the same round.  The rows made. */
static int lim_measure(struct lim_ctx *c, struct lim_row *rows, int rounds)
{
	static const int read_slots[] = { 8, 64, 512 };
	static char names[3][2][48];
	int64_t *word = ctr_zalloc_aligned(CTR_CACHELINE);
	char *lines = ctr_zalloc_aligned(2 * CTR_CACHELINE);
	struct lim_fast fast = { (_Atomic int64_t *)lines, (_Atomic int *)(lines + CTR_CACHELINE), 0 };
	int nr = 0;

	if (!word || !lines)
		die("out of memory");
	atomic_init(fast.next, 0);	/* linked: the check falls through, as on a tree already marked */
#define LIM_ROW(w, l, u) (rows[nr] = (struct lim_row){ .what = (w), .limit = (l), .unit = (u) }, nr++)
	LIM_ROW("empty (harness floor)", "bare loop", "op");
	LIM_ROW("percpu_hier chain:1", "plain add", "op");
	LIM_ROW("percpu_hier chain:1", "plain add pairs", "op");
	LIM_ROW("percpu_hier chain:1", "array walk 1", "op");
	LIM_ROW("percpu_hier chain:8 per level", "array walk 8, per level", "level");
	LIM_ROW("percpu_hier chain:32 per level", "array walk 32, per level", "level");
	for (int i = 0; i < 3; i++) {
		snprintf(names[i][0], sizeof(names[i][0]), "percpu_hier read, %d slots", read_slots[i]);
		snprintf(names[i][1], sizeof(names[i][1]), "count_stat read, %d slots", read_slots[i]);
		LIM_ROW(names[i][0], names[i][1], "slot");
	}
	LIM_ROW("page-aligned read, 512 slots", "count_stat read, 512 slots", "slot");
	LIM_ROW("rstat_force update chain:1", "percpu_hier chain:1", "op");
	LIM_ROW("rstat_force update chain:1", "add + linked check pairs", "op");
	LIM_ROW("atomic_tree chain:8 per level", "lock xadd", "level");
	LIM_ROW("striped chain:1, 1 thread", "lock xadd", "op");
	LIM_ROW("striped chain:1, 2 threads", "2-thread bounce", "op");
#undef LIM_ROW

	for (int k = 0; k < rounds; k++) {
		int i = 0;
		double hier1, rstat1;

		rows[i].h[k] = lim_harness(c, "empty", "chain:1", 1, NULL);
		rows[i++].l[k] = lim_time(lim_bare, NULL, 1);
		rows[i].h[k] = hier1 = lim_harness(c, "percpu_hier", "chain:1", 1, NULL);
		rows[i++].l[k] = lim_time(lim_plain_inc, word, 1);
		rows[i].h[k] = hier1;
		rows[i++].l[k] = lim_time(lim_plain_add, word, 1);
		rows[i].h[k] = hier1;
		rows[i++].l[k] = lim_walk_level(1);
		rows[i].h[k] = lim_harness(c, "percpu_hier", "chain:8", 1, NULL) / 8;
		rows[i++].l[k] = lim_walk_level(8);
		rows[i].h[k] = lim_harness(c, "percpu_hier", "chain:32", 1, NULL) / 32;
		rows[i++].l[k] = lim_walk_level(32);
		for (int s = 0; s < 3; s++) {
			rows[i].h[k] = lim_hier_read(read_slots[s]);
			rows[i++].l[k] = lim_packed_read(read_slots[s]);
		}
		rows[i].h[k] = lim_pages_read(512);
		rows[i++].l[k] = lim_packed_read(512);
		/*
		 * Its own percpu_hier runs around it, in the order A B B A (the
		 * round's first is seconds away, and this host drifts): a drift
		 * that is linear over the four runs hits both sides' means alike.
		 * The fast-path probe sits between the two rstat runs.
		 */
		hier1 = lim_harness(c, "percpu_hier", "chain:1", 1, NULL);
		rstat1 = lim_harness(c, "rstat_force", "chain:1", 1, NULL);
		rows[i + 1].l[k] = lim_time(lim_fast_path, &fast, 1);
		rstat1 = (rstat1 + lim_harness(c, "rstat_force", "chain:1", 1, NULL)) / 2;
		rows[i].l[k] = (hier1 + lim_harness(c, "percpu_hier", "chain:1", 1, NULL)) / 2;
		rows[i++].h[k] = rstat1;
		rows[i++].h[k] = rstat1;
		rows[i].h[k] = lim_harness(c, "atomic_tree", "chain:8", 1, NULL) / 8;
		rows[i++].l[k] = lim_time(lim_xadd, word, 1);
		rows[i].h[k] = lim_harness(c, "striped", "chain:1", 1, NULL);
		rows[i++].l[k] = lim_time(lim_xadd, word, 1);
		rows[i].h[k] = lim_harness(c, "striped", "chain:1", 2, NULL);
		rows[i++].l[k] = lim_bounce(c->base.topo);
		fprintf(stderr, "limits: round %d of %d done\n", k + 1, rounds);
	}
	if (atomic_load(&fast.calls))
		die("limits: the linked-check probe took its slow path (its mark was never unlinked)");
	free(word);
	free(lines);
	return nr;
}

int bench_cmd_limits(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration-ms", required_argument, NULL, 'd' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	static struct lim_row rows[LIM_ROWS_MAX];
	struct lim_ctx c = { .duration_ms = 300 };
	int rounds = 3, json = 0, opt, nr;

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
	nr = lim_measure(&c, rows, rounds);
	lim_print(rows, nr, rounds, json);
	bench_setup_release(&c.base);
	return 0;
}
