/* SPDX-License-Identifier: MIT */
/*
 * cmd-limits.c - ctrbench limits: each row sets a harness figure (a ctrbench run
 * through the one executor, bench_exec: run's workers in a process of its own,
 * as `ctrbench run --reps 1` measures it) beside the physical limit that bounds it,
 * measured by a probe of the same shape built from the project's own code,
 * and gives the ratio.  Rounds interleave the two sides, so drift on a shared
 * machine hits them alike; the ratio is the median of the rounds' ratios,
 * with their range (stats.c's median and range), and the table sets the
 * ratio of the two medians it prints beside it.  The rows are one
 * table (lim_defs): each names its algorithm, shape and probe as data.
 *
 * Probes (single thread unless said; every loop a noinline function of its
 * own, no call inside it, counted down as the harness's blocks are):
 *   bare loop        a loop whose body is two compiler barriers (one per op of a pair): what a loop costs
 *   plain add        x += 1 on a private volatile word, two a turn: an update's floor
 *   plain add pairs  x += 1, x -= 1 (the workload's pairs): cores that rename a store to the
 *                    next load of the same address run these faster than single adds
 *   add + linked check  the pairs, each add followed by the kernel's rstat fast-path test
 *                    (css_rstat_updated(): is the node already on this CPU's updated tree?),
 *                    rstat.h's own one-compare check, its call never taken: what an rstat
 *                    update can cost, the pairs plus one compare and branch per update
 *   lock xadd        atomic fetch_add on a private word, two a turn: an atomic's floor
 *   bounce           2 threads, lock xadd on one shared word (CPU ns per op per thread)
 *   private padded atomics  2 threads, each lock xadd on a line of its own: what two threads
 *                    on two cells of a grown striped table cost, striped's 2-thread floor
 *   array walk D     plain adds through a precomputed list of D slot offsets, +1
 *                    then -1 as the pairs (per level); shown, not a floor: it reloads an
 *                    offset and forms an address at every level, and walks the first level
 *                    too, more instructions than percpu_hier's own update (issue 28)
 *   straight-line stores D  the pairs at D levels a line apart, unrolled, every address
 *                    a constant from one register: a D-level update's floor (per level)
 *   straight-line lock adds D  the same with lock adds: atomic_tree's floor (per level)
 *   count_stat read  sum of S per-thread counters, one per line, contiguous, S a runtime
 *                    count (perfbook's count_stat.c read_count() as a loop): per slot
 *   count_stat unrolled read  the same over a static array, S a compile-time count, the sum
 *                    unrolled: count_stat as perfbook builds it (-O3) at 8, its floor at 64 and 512
 *   page-aligned read the same over S page-aligned areas: the L1 aliasing that
 *                    uncoloured slot areas had (shown, not a limit)
 *
 * Every limit is a floor of what it bounds in instructions per op (its loop's, on objdump, at
 * most the bounded loop's), but the rows said not to be: tests/cli_limits_floor.sh, which reads
 * the rows' loops from --loops.
 *
 * --format json: one line per row, {"kind":"limits", "schema" (BENCH_SCHEMA_VERSION),
 * "row", "limit" (the two sides' names), "unit" (op, level or slot), "ns", "limit_ns"
 * (medians over the rounds, CPU ns per unit), "ratio" (median of the rounds' ns /
 * limit_ns), "ratio_lo", "ratio_hi" (their range), "rounds", "floor" (false: the limit is
 * shown, not a floor)}: `ctrbench report` draws such lines, given beside run results, as
 * its "Ratio to the limit" section.
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

/*
 * Every probe's loop is a function of its own under a stable name (the row
 * table's loop field): tests/cli_limits_floor.sh finds it in objdump and
 * holds its instructions per op to at most those of the loop it bounds.
 * It starts a 64-byte line, as the harness's blocks do (bench/loops.c), so
 * its loop's place in the line is its own code's: unaligned, an edit
 * elsewhere in this file moved the runtime-count count_stat read's loop
 * across a 32-byte boundary and its figure went from 0.62-0.64 to 1.11-1.14
 * ns a slot at 8 slots, the code unchanged (3 runs each of limits --rounds 7).
 */
#ifdef __clang__
#define LIM_LOOP __attribute__((noinline, aligned(64)))
#else
#define LIM_LOOP __attribute__((noinline, noclone, aligned(64)))	/* noclone: one instance, no constprop copy */
#endif

/* Two barriers per iteration, as the update loop's pairs: n / 2 iterations for n ops. */
static LIM_LOOP void lim_bare(void *arg, uint64_t n)
{
	(void)arg;
	for (uint64_t i = n / 2; i; i--) {
		__asm__ volatile("" : : "r"(i) : "memory");
		__asm__ volatile("" : : "r"(i) : "memory");
	}
}

/*
 * x += 1 only: the "plain add" (each op's load waits for the last store), in the one
 * instruction this_cpu_add() is and percpu_hier's walk uses (ctr_owner_add_insn, an add to
 * memory): a volatile load, add and store was three, more than the block it bounds once that
 * block had the add to memory (tests/cli_limits_floor.sh).  Two a turn, as the harness's pairs:
 * one a turn carried a loop's count and branch per op.
 */
static LIM_LOOP void lim_plain_inc(void *arg, uint64_t n)
{
	_Atomic int64_t *x = arg;

	for (uint64_t i = n / 2; i; i--) {
		ctr_owner_add_insn(x, 1);
		ctr_owner_add_insn(x, 1);
	}
}

/* +1 then -1, as the update workload's pairs: n / 2 pairs for n ops. */
static LIM_LOOP void lim_plain_add(void *arg, uint64_t n)
{
	_Atomic int64_t *x = arg;

	for (uint64_t i = n / 2; i; i--) {
		ctr_owner_add_insn(x, 1);
		ctr_owner_add_insn(x, -1);
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
static LIM_LOOP void lim_fast_path(void *arg, uint64_t n)
{
	struct lim_fast *f = arg;
	_Atomic int64_t *const slot = f->slot;
	_Atomic int *const next = f->next;

	for (uint64_t i = n / 2; i; i--) {
		ctr_owner_add(slot, 1);
		if (__ctr_rstat_unlinked_after_store(next, slot))
			lim_fast_link(f);
		ctr_owner_add(slot, -1);
		if (__ctr_rstat_unlinked_after_store(next, slot))
			lim_fast_link(f);
	}
}

/* Two a turn, as lim_plain_inc (a lock add's cost is its own; the loop's must not be more than the block's). */
static LIM_LOOP void lim_xadd(void *arg, uint64_t n)
{
	_Atomic int64_t *x = arg;

	for (uint64_t i = n / 2; i; i--) {
		atomic_fetch_add_explicit(x, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(x, 1, memory_order_relaxed);
	}
}

struct lim_walk {
	volatile int64_t *slots;	/* one per level, a line apart (a per-CPU area's nodes) */
	const int *off;			/* the precomputed ancestor list: offsets into slots */
	int depth;			/* its length */
};

static LIM_LOOP void lim_walk(void *arg, uint64_t n)
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
static LIM_LOOP void lim_read_packed(void *arg, uint64_t n)
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

static LIM_LOOP void lim_read_pages(void *arg, uint64_t n)
{
	struct lim_read *r = arg;

	for (uint64_t i = 0; i < n; i++) {
		int64_t sum = 0;

		for (int s = 0; s < r->nr; s++)
			sum += *r->slot[s];
		r->sink = sum;
	}
}

static LIM_LOOP void lim_read_hier(void *arg, uint64_t n)
{
	struct lim_read *r = arg;
	struct ctr_tree *const t = r->tree;	/* a reader's memcg, in a register as count_stat's array address */

	for (uint64_t i = 0; i < n; i++)
		r->sink = ctr_percpu_hier_read(t, 0, 0);
}

/*
 * count_stat as perfbook builds it (CodeSamples/count/count_stat.c, -O3):
 * read_count() sums NR_THREADS counters of a static per-thread array, each
 * on a line of its own, NR_THREADS a compile-time constant, so every load
 * is one instruction with the counter's address in it.  At 8, GCC 12 -O3
 * unrolls the sum fully, as here; at 64 and 512 it keeps a loop that forms
 * each address with a sign extension, a shift and an add (8 instructions a
 * slot on objdump, more than the runtime-count loop's 5 and percpu_hier's
 * 6), so the sum is unrolled by pragma: the floor of a sum over S lines
 * whose addresses are known, one load and one add a slot.
 */
struct lim_cs_slot {
	_Alignas(CTR_CACHELINE) volatile int64_t v;	/* one thread's counter, a line of its own */
};

#ifdef __clang__
#define LIM_O3
#else
#define LIM_O3 __attribute__((optimize("O3")))	/* perfbook's GCC_ARGS, whatever this build's -O */
#endif

#define LIM_CS_READ(S)								\
static struct lim_cs_slot lim_cs_##S[S];					\
static LIM_LOOP LIM_O3 void lim_cs_read_##S(void *arg, uint64_t n)		\
{										\
	struct lim_read *r = arg;						\
										\
	for (uint64_t i = n; i; i--) {						\
		int64_t sum = 0;						\
										\
		_Pragma("GCC unroll 512")					\
		for (int t = 0; t < (S); t++)					\
			sum += lim_cs_##S[t].v;					\
		r->sink = sum;							\
	}									\
}

LIM_CS_READ(8)
LIM_CS_READ(64)
LIM_CS_READ(512)

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

/*
 * Straight-line D-level pairs: +1 at every level, leaf first, then -1 at
 * every level, through addresses formed before the loop (one base register,
 * each level a constant displacement a line apart: a chain's nodes in one
 * slot's area), nothing loaded but the slots.  What a D-level update's
 * stores cost when the kernel's per-CPU code has every address in hand
 * (issue 28: the array walk reloads an offset and forms an address a
 * level, more instructions than percpu_hier's own walk).
 */
#define LIM_STRAIGHT(name, D, T, ADD)						\
static LIM_LOOP void name(void *arg, uint64_t n)				\
{										\
	T *const s = arg;							\
										\
	for (uint64_t i = n / 2; i; i--) {					\
		_Pragma("GCC unroll 64")					\
		for (int k = 0; k < (D); k++)					\
			ADD(&s[((D) - 1 - k) * LIM_STRIDE], 1);			\
		_Pragma("GCC unroll 64")					\
		for (int k = 0; k < (D); k++)					\
			ADD(&s[((D) - 1 - k) * LIM_STRIDE], -1);		\
	}									\
}

#define LIM_STRIDE ((int)(CTR_CACHELINE / sizeof(int64_t)))	/* int64_t words a line */
#define LIM_PLAIN(p, d) ctr_owner_add_insn((p), (d))	/* this_cpu_add()'s add to memory, as percpu_hier's walk */
#define LIM_LOCKED(p, d) atomic_fetch_add_explicit((p), (d), memory_order_relaxed)

LIM_STRAIGHT(lim_stores_8, 8, _Atomic int64_t, LIM_PLAIN)
LIM_STRAIGHT(lim_stores_32, 32, _Atomic int64_t, LIM_PLAIN)
/* atomic_tree's floor: each level's lock add to a word whose address is in hand */
LIM_STRAIGHT(lim_lock_adds_8, 8, _Atomic int64_t, LIM_LOCKED)

/* A straight-line probe of D levels over its own lines: ns per level. */
static double lim_straight_level(lim_fn fn, int depth)
{
	int64_t *slots = ctr_zalloc_aligned((size_t)depth * CTR_CACHELINE);
	double ns;

	if (!slots)
		die("out of memory");
	ns = lim_time(fn, slots, depth);
	free(slots);
	return ns;
}

/* ---- two pinned threads: on one word (the bounce), or each on a line of its own ---- */

struct lim_bounce {
	const struct topo *topo;	/* for binding */
	int pu;				/* this thread's PU */
	_Atomic int64_t *word;		/* its word: the shared line, or a private one */
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

/*
 * ns per op per thread, two threads on the first two PUs of a compact
 * placement, lock-adding one shared word (shared) or each its own word on a
 * line of its own: the private lines are what two threads on two cells of
 * a grown striped table touch, so they, not the bounce, bound striped at 2
 * threads (issue 28: the bounce swung 3.1-27 ns here, the private lines
 * 2.6-3.1).
 */
static double lim_pair(const struct topo *topo, int shared)
{
	_Atomic int64_t *words = ctr_zalloc_aligned(2 * CTR_CACHELINE);
	struct lim_bounce b[2];
	pthread_t tid[2];
	_Atomic int go = 0;
	int pus[2], wrapped;
	char err[256];
	double ns;

	if (!words || topo_place(topo, "compact", 2, pus, &wrapped, err, sizeof(err)))
		die("limits: cannot place the probe's two threads");
	for (int i = 0; i < 2; i++) {
		b[i] = (struct lim_bounce){ topo, pus[i], shared ? words : words + i * LIM_STRIDE, &go, 1u << 23, 0 };
		if (pthread_create(&tid[i], NULL, lim_bounce_main, &b[i]))
			die("limits: cannot start the probe's threads");
	}
	for (int i = 0; i < 2; i++)
		pthread_join(tid[i], NULL);
	ns = (double)(b[0].ns + b[1].ns) / (double)(b[0].n + b[1].n);
	free((void *)words);
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

/* percpu_hier's read of node 0 over S slots, every slot mapped to node 0 as the harness maps them here (one block, bound): ns per slot. */
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

/* count_stat's read of its static S counters (fn: lim_cs_read_S): ns per slot. */
static double lim_cs_read(lim_fn fn, int slots)
{
	struct lim_read r = { .nr = slots };

	return lim_time(fn, &r, slots);
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
	LIM_BOUNCE,		/* lim_pair, one shared word */
	LIM_STORES,		/* lim_stores_<n>: straight-line stores, per level */
	LIM_LOCK_ADDS,		/* lim_lock_adds_<n>: straight-line lock adds, per level */
	LIM_CS_READ,		/* lim_cs_read_<n>: count_stat's unrolled read, per slot */
	LIM_PRIVATE,		/* lim_pair, a private line each */
};

struct lim_side {
	enum lim_probe probe;	/* what is measured */
	const char *algo;	/* LIM_HARNESS: the algorithm (a name: data, looked up, never tested) */
	const char *shape;	/* LIM_HARNESS: its shape */
	int threads;		/* LIM_HARNESS: its updaters */
	int n;			/* LIM_HARNESS: the figure divided by it (levels); walk: depth; reads: slots */
	lim_fn fn;		/* a probe's timed loop (the kinds that time one function as it is) */
	const char *loop;	/* its name, the symbol the floor test reads (NULL: a harness run's bench_block_<algo>) */
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
	/*
	 * What an op is in both sides' loops, for tests/cli_limits_floor.sh: "stores" (an update
	 * writes memory once), "sums" (a read adds one loaded slot) or "pairs" (a loop turn is a
	 * +1/-1 pair that writes nothing).
	 */
	const char *ops;
	/*
	 * 1: l is a floor of h, tested: its loop has at most h's instructions per op.  0: shown, not
	 * a floor (the array walk, issue 28: it reloads an offset and forms the address at every
	 * level, more instructions than percpu_hier's own walk); the test holds that it is not.
	 */
	int floor;
};

#define LIM_RUN(a, s, t, per) { LIM_HARNESS, (a), (s), (t), (per), NULL, NULL }
#define LIM_PROBE(p, per, fn) { (p), NULL, NULL, 0, (per), (fn), #fn }
#define LIM_AGAIN_ { LIM_AGAIN, NULL, NULL, 0, 0, NULL, NULL }

/* Every row, in the order each round measures them; a LIM_AGAIN side repeats the row above's. */
static const struct lim_def lim_defs[] = {
	{ "empty (harness floor)", "bare loop", "op", LIM_RUN("empty", "chain:1", 1, 1),
	  LIM_PROBE(LIM_BARE, 0, lim_bare), 0, "pairs", 1 },
	{ "percpu_hier chain:1", "plain add", "op", LIM_RUN("percpu_hier", "chain:1", 1, 1),
	  LIM_PROBE(LIM_PLAIN_INC, 0, lim_plain_inc), 0, "stores", 1 },
	{ "percpu_hier chain:1", "plain add pairs", "op", LIM_AGAIN_, LIM_PROBE(LIM_PLAIN_ADD, 0, lim_plain_add), 0,
	  "stores", 1 },
	{ "percpu_hier chain:1", "array walk 1", "op", LIM_AGAIN_, LIM_PROBE(LIM_WALK, 1, lim_walk), 0, "stores", 0 },
	{ "percpu_hier chain:8 per level", "array walk 8, per level", "level",
	  LIM_RUN("percpu_hier", "chain:8", 1, 8), LIM_PROBE(LIM_WALK, 8, lim_walk), 0, "stores", 0 },
	{ "percpu_hier chain:8 per level", "straight-line stores 8, per level", "level", LIM_AGAIN_,
	  LIM_PROBE(LIM_STORES, 8, lim_stores_8), 0, "stores", 1 },
	{ "percpu_hier chain:32 per level", "array walk 32, per level", "level",
	  LIM_RUN("percpu_hier", "chain:32", 1, 32), LIM_PROBE(LIM_WALK, 32, lim_walk), 0, "stores", 0 },
	{ "percpu_hier chain:32 per level", "straight-line stores 32, per level", "level", LIM_AGAIN_,
	  LIM_PROBE(LIM_STORES, 32, lim_stores_32), 0, "stores", 1 },
	/* the runtime-count loop is longer than percpu_hier's read of two slots a step, and than its
	 * straight line of 8: shown, not a floor */
	{ "percpu_hier read, 8 slots", "count_stat read, 8 slots", "slot", LIM_PROBE(LIM_HIER_READ, 8, lim_read_hier),
	  LIM_PROBE(LIM_PACKED_READ, 8, lim_read_packed), 0, "sums", 0 },
	{ "percpu_hier read, 8 slots", "count_stat unrolled read, 8 slots", "slot", LIM_AGAIN_,
	  LIM_PROBE(LIM_CS_READ, 8, lim_cs_read_8), 0, "sums", 1 },
	{ "percpu_hier read, 64 slots", "count_stat read, 64 slots", "slot",
	  LIM_PROBE(LIM_HIER_READ, 64, lim_read_hier), LIM_PROBE(LIM_PACKED_READ, 64, lim_read_packed), 0, "sums", 0 },
	{ "percpu_hier read, 64 slots", "count_stat unrolled read, 64 slots", "slot", LIM_AGAIN_,
	  LIM_PROBE(LIM_CS_READ, 64, lim_cs_read_64), 0, "sums", 1 },
	{ "percpu_hier read, 512 slots", "count_stat read, 512 slots", "slot",
	  LIM_PROBE(LIM_HIER_READ, 512, lim_read_hier), LIM_PROBE(LIM_PACKED_READ, 512, lim_read_packed), 0, "sums",
	  0 },
	{ "percpu_hier read, 512 slots", "count_stat unrolled read, 512 slots", "slot", LIM_AGAIN_,
	  LIM_PROBE(LIM_CS_READ, 512, lim_cs_read_512), 0, "sums", 1 },
	{ "page-aligned read, 512 slots", "count_stat read, 512 slots", "slot",
	  LIM_PROBE(LIM_PAGES_READ, 512, lim_read_pages), LIM_PROBE(LIM_PACKED_READ, 512, lim_read_packed), 0,
	  "sums", 1 },
	/* its own percpu_hier runs around it, the fast-path probe (the next row's limit) in the middle */
	{ "rstat_force update chain:1", "percpu_hier chain:1", "op", LIM_RUN("rstat_force", "chain:1", 1, 1),
	  LIM_RUN("percpu_hier", "chain:1", 1, 1), 1, "stores", 1 },
	{ "rstat_force update chain:1", "add + linked check pairs", "op", LIM_AGAIN_,
	  LIM_PROBE(LIM_FAST_PATH, 0, lim_fast_path), 0, "stores", 1 },
	{ "atomic_tree chain:8 per level", "lock xadd", "level", LIM_RUN("atomic_tree", "chain:8", 1, 8),
	  LIM_PROBE(LIM_XADD, 0, lim_xadd), 0, "stores", 1 },
	{ "atomic_tree chain:8 per level", "straight-line lock adds 8, per level", "level", LIM_AGAIN_,
	  LIM_PROBE(LIM_LOCK_ADDS, 8, lim_lock_adds_8), 0, "stores", 1 },
	{ "striped chain:1, 1 thread", "lock xadd", "op", LIM_RUN("striped", "chain:1", 1, 1),
	  LIM_PROBE(LIM_XADD, 0, lim_xadd), 0, "stores", 1 },
	{ "striped chain:1, 2 threads", "2-thread bounce", "op", LIM_RUN("striped", "chain:1", 2, 1),
	  LIM_PROBE(LIM_BOUNCE, 0, lim_xadd), 0, "stores", 1 },
	{ "striped chain:1, 2 threads", "2 threads, private padded atomics", "op", LIM_AGAIN_,
	  LIM_PROBE(LIM_PRIVATE, 0, lim_xadd), 0, "stores", 1 },
};

#undef LIM_RUN
#undef LIM_PROBE
#undef LIM_AGAIN_

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
		return lim_pair(c->base.topo, 1);
	case LIM_STORES:
	case LIM_LOCK_ADDS:
		return lim_straight_level(s->fn, s->n);
	case LIM_CS_READ:
		return lim_cs_read(s->fn, s->n);
	case LIM_PRIVATE:
		return lim_pair(c->base.topo, 0);
	}
	return 0;
}

/*
 * The table: each harness figure once, its limits indented under it, so it fits 100 columns.
 * Two ratios, both shown: "medians" is the ratio of the two medians printed beside it (what a
 * reader computes from the row), "per round" the median of the rounds' own ratios with their
 * range (the two sides of one moment: drift between rounds cancels, so it is the figure the
 * JSON's "ratio" and the docs quote).  They part when the host drifts, e.g. 0.754 / 0.600 ns
 * read as 1.26x over the medians but 1.00x round by round; showing only the second beside
 * the two medians read as a contradiction (issue 31, point 5).
 */
static void lim_print(const struct lim_row *rows, int rounds, int json)
{
	const char *last = NULL;
	double last_h = 0;

	if (!json)
		printf("%-44s %9s %8s  %s\n", "ctrbench figure, then its limits (same rounds)", "CPU ns",
		       "medians", "per round [range]");
	for (int i = 0; i < LIM_NR_ROWS; i++) {
		const struct lim_def *d = &lim_defs[i];
		const struct lim_row *r = &rows[i];
		double ratio[LIM_ROUNDS_MAX], hlo, hhi, llo, lhi, rlo, rhi;
		double h = cmp_median_range(r->h, rounds, &hlo, &hhi), l = cmp_median_range(r->l, rounds, &llo, &lhi), q;
		char lim[64];

		for (int k = 0; k < rounds; k++)
			ratio[k] = r->l[k] > 0 ? r->h[k] / r->l[k] : 0;
		q = cmp_median_range(ratio, rounds, &rlo, &rhi);
		snprintf(lim, sizeof(lim), "%s%s", d->limit, d->floor ? "" : " *");
		if (json) {
			printf("{\"kind\":\"limits\",\"schema\":%d,\"row\":\"%s\",\"limit\":\"%s\","
			       "\"unit\":\"%s\",\"ns\":%.6g,\"limit_ns\":%.6g,\"ratio\":%.6g,\"ratio_lo\":%.6g,"
			       "\"ratio_hi\":%.6g,\"rounds\":%d,\"floor\":%s}\n", BENCH_SCHEMA_VERSION, d->what, d->limit,
			       d->unit, h, l, q, rlo, rhi, rounds, d->floor ? "true" : "false");
			continue;
		}
		/* a figure the next row reuses (LIM_AGAIN: the same runs) is printed once */
		if (!last || strcmp(last, d->what) || h != last_h)
			printf("%-44s %9.3f\n", d->what, h);
		last = d->what;
		last_h = h;
		printf("  %-42s %9.3f %7.2fx  %5.2fx [%.2f, %.2f]\n", lim, l, l > 0 ? h / l : 0, q, rlo, rhi);
	}
	if (!json)
		printf("# CPU ns per op, level or slot (harness: task-clock / ops; probes: the thread's CPU\n"
		       "# clock), medians of %d round%s, each measuring a figure and its limits side by side.\n"
		       "# medians: ctrbench / limit of the two medians shown; per round: the median of the\n"
		       "# rounds' own ctrbench / limit and their range (the JSON's ratio, what the docs quote)\n"
		       "# * shown, not a floor: the probe's loop has more instructions per op than the loop\n"
		       "#   it is set beside (tests/cli_limits_floor.sh)\n", rounds,
		       rounds == 1 ? "" : "s");
}

/*
 * --loops: each row's two loops, as the floor test reads them (tab-separated: row, limit,
 * the bounded side's loop and its n, the limit's loop and its n, what an op is, floor or
 * not); a side repeated from the row above names the row above's loop.  Nothing is measured.
 */
static void lim_print_loops(void)
{
	char loop[2][128];

	for (int i = 0; i < LIM_NR_ROWS; i++) {
		const struct lim_def *d = &lim_defs[i];
		const struct lim_side *side[2] = { &d->h, &d->l };
		int n[2];

		for (int j = 0; j < 2; j++) {
			const struct lim_side *s = side[j];
			int k = i;

			/* LIM_AGAIN: the nearest row above whose side says what it is */
			while (s->probe == LIM_AGAIN && k > 0)
				s = j ? &lim_defs[--k].l : &lim_defs[--k].h;
			if (s->probe == LIM_HARNESS)
				snprintf(loop[j], sizeof(loop[j]), "bench_block_%s", s->algo);
			else
				snprintf(loop[j], sizeof(loop[j]), "%s", s->loop ? s->loop : "?");
			/* the loop's own n: levels or slots (a harness run's chain depth is its n) */
			n[j] = s->n > 0 ? s->n : 1;
		}
		printf("%s\t%s\t%s\t%d\t%s\t%d\t%s\t%d\n", d->what, d->limit, loop[0], n[0], loop[1], n[1], d->ops,
		       d->floor);
	}
}

static const char *const limits_help =
	"usage: ctrbench limits [options]\n"
	"\n"
	"Each harness figure beside the physical limit that bounds it (bare loop, plain add, lock xadd,\n"
	"a 2-thread bounce and private padded atomics, straight-line stores and lock adds through\n"
	"addresses in registers, count_stat's read as a loop and unrolled, rstat's add and linked\n"
	"check; a precomputed-array walk, shown, not a floor: marked *), measured by probes in this\n"
	"process, each row a ratio of one moment: CPU ns per op on both sides, rounds interleaved.\n"
	"\n"
	"  --rounds K               rounds of every row, the ratio their median (default 3)\n"
	"  --duration-ms MS         each harness run's window (default 300)\n"
	"  --format F               table or json, one line per row (default table)\n"
	"  --loops                  print each row's two timed loops (the functions the floor test\n"
	"                           reads in objdump), tab-separated, and measure nothing\n"
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
		{ "loops", no_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	static struct lim_row rows[LIM_NR_ROWS];
	struct lim_ctx c = { .duration_ms = 300 };
	int rounds = 3, json = 0, loops = 0, opt;

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
		case 'l':
			loops = 1;
			break;
		default:
			bench_die_getopt(opt, argv);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	if (loops) {
		lim_print_loops();
		return 0;
	}
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
