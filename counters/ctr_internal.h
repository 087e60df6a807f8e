/* SPDX-License-Identifier: MIT */
/*
 * ctr_internal.h - what every algorithm shares: the ops table, the common
 * part of an instance, and small helpers.  Internal to libctr and to the
 * harness (which includes the per-algorithm headers to inline the hot path);
 * users of the library see only ctr.h.
 */
#ifndef CTR_INTERNAL_H
#define CTR_INTERNAL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <time.h>

#include "ctr.h"

/*
 * The line size every shared structure is padded to.  Zen 4 and every other
 * x86-64 part in use has 64-byte lines; the adjacent-line prefetcher pulls
 * pairs, which padding to 128 would defeat at twice the memory, so we keep 64
 * and let the harness show what the prefetcher costs.
 */
#define CTR_CACHELINE 64

/*
 * The spin-wait hint every spin loop of libctr calls (PAUSE on x86), and the
 * role of a lock the code makes, for the coherence projection's lock table
 * (docs/projection.md).  The projection's copy is compiled with CTR_PROJ
 * (Makefile): there a pause is an event the model sees (a spinner that
 * pauses after a hit on a line waits for that line to change), and a lock's
 * role names it in the projected lock table.  The benchmark build never
 * defines CTR_PROJ: a pause is the instruction, a role costs nothing.
 * ctr_preempt_disable()/enable() bracket what the kernel runs with
 * preemption off (a spinlock's hold): user space cannot ask that
 * of the OS, so the benchmark build does nothing; the model's scheduler
 * does not end such a thread's time slice.
 */
#ifdef CTR_PROJ
void proj_rt_pause(void);
void proj_rt_lock_role(const volatile void *lock, const char *role);
void proj_rt_preempt(int delta);
static inline void ctr_cpu_relax(void)
{
	proj_rt_pause();
}
#define CTR_LOCK_ROLE(lock, role) proj_rt_lock_role((lock), (role))
#define ctr_preempt_disable() proj_rt_preempt(1)
#define ctr_preempt_enable() proj_rt_preempt(-1)
#else
static inline void ctr_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}
#define CTR_LOCK_ROLE(lock, role) ((void)(lock), (void)(role))
#define ctr_preempt_disable() ((void)0)
#define ctr_preempt_enable() ((void)0)
#endif
#define __ctr_aligned __attribute__((aligned(CTR_CACHELINE)))

#define ctr_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define CTR_ROUND_UP(x, a) (((x) + (a) - 1) / (a) * (a))

#if defined(CTR_DEBUG)
void __ctr_bad_index(const char *what, long val, long bound, const char *fn);
#define CTR_CHECK_RANGE(what, val, bound) do {				\
	if ((val) < 0 || (val) >= (bound))				\
		__ctr_bad_index(what, (long)(val), (long)(bound), __func__); \
} while (0)
#else
#define CTR_CHECK_RANGE(what, val, bound) do { } while (0)
#endif

/*
 * The common part of every instance, embedded first in each algorithm's own
 * struct.  Read-only after ctr_tree_new(), so it may share lines with
 * anything: no writer ever bounces it.
 */
struct ctr_tree {
	const struct ctr_algo *algo;	/* the ops of this instance */
	int nr_nodes;			/* nodes, root is 0 */
	int nr_cpus;			/* per-CPU slots */
	int nr_stats;			/* counters per node */
	int max_depth;			/* levels on the longest root-to-leaf path (chain:D has D) */
	int *parent;			/* parent[0] == -1, parent[i] < i */
	int *depth;			/* depth[0] == 1: levels from the root down to node i */
	const int *const *ancestors;	/* ancestors[i]: i, its parent, ..., 0, then -1 (depth[i] + 1 ints) */
	int *anc_store;			/* where those lists live, one after another */
	int64_t *limit;			/* per-node limit on stat 0, CTR_NO_LIMIT = none; NULL if no limits */
	int64_t batch;			/* params.batch as given (0 = the algorithm's default) */
	int flush_period_ms;		/* params.flush_period_ms as given */
	int *slot_node;			/* NUMA node per slot, or NULL (params.slot_node, copied) */
	int *slot_l3;			/* L3 group per slot, or NULL (params.slot_l3, copied) */
};

/*
 * Walk node and its ancestors up to the root, over node's precomputed list:
 * no load of parent[n] depends on the previous level's, so the levels of an
 * update are independent stores the core overlaps, and the list is read
 * through a local pointer, which no store of the body can be taken to alias
 * (an int list, int64_t counters).  Two loops: the outer runs once to hold
 * the pointer, so a break in the body still ends the walk.
 */
#define ctr_for_each_ancestor(t, n, node)					\
	for (const int *__anc = (t)->ancestors[node]; __anc; __anc = NULL)	\
		for (int n; (n = *__anc) >= 0; __anc++)

/*
 * *s += delta on a slot only its owner writes, readers loading it
 * concurrently: a load and a store, untorn (one aligned 64-bit mov each on
 * x86-64, as the kernel's this_cpu_add/WRITE_ONCE), no RMW.  Volatile, not a
 * relaxed C11 store, because GCC treats every __atomic store as a write to
 * any memory: in an inlined loop of updates it reloads the tree's fields
 * (area, nr_stats, the ancestor list) after each one, which costs more than
 * the update itself at one level (measured with ctrbench limits: issue 13).
 * A volatile int64_t store may alias only int64_t objects, so they stay in
 * registers.  Under ThreadSanitizer, which cannot know that a volatile mov is
 * untorn, it is the relaxed atomic, so the race detector checks the same
 * claim: one writer, readers that tolerate any interleaving.
 */
static inline void ctr_owner_add(_Atomic int64_t *s, int64_t delta)
{
#if defined(__SANITIZE_THREAD__)
	atomic_store_explicit(s, atomic_load_explicit(s, memory_order_relaxed) + delta, memory_order_relaxed);
#else
	volatile int64_t *v = (volatile int64_t *)s;

	*v = *v + delta;
#endif
}

/*
 * ctr_owner_add as the kernel's this_cpu_add() compiles on x86-64: one add
 * to memory (`addq %delta, (slot)`), not locked, which is a load and a store
 * of the aligned word, each untorn, so a reader sees the old or the new
 * value, and the one writer loses nothing.  The asm tells the compiler it
 * writes that word and nothing else, so an inlined loop of them keeps every
 * address in registers, as with the volatile form, in one instruction
 * instead of three (a mov, an add, a mov: at chain:8 the loads and stores of
 * the walk were the update; issue 28).  For a walk with no ordering
 * against a later load (rstat's linked check wants the volatile form's).
 * Elsewhere, and under ThreadSanitizer, ctr_owner_add.
 */
static inline void ctr_owner_add_insn(_Atomic int64_t *s, int64_t delta)
{
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
	__asm__ volatile("addq %1, %0" : "+m"(*(int64_t *)s) : "er"(delta));
#else
	ctr_owner_add(s, delta);
#endif
}

/* ctr_owner_add that returns the value before it: for a fast path that tests what the add crossed. */
static inline int64_t ctr_owner_fetch_add(_Atomic int64_t *s, int64_t delta)
{
#if defined(__SANITIZE_THREAD__)
	int64_t old = atomic_load_explicit(s, memory_order_relaxed);

	atomic_store_explicit(s, (int64_t)((uint64_t)old + (uint64_t)delta), memory_order_relaxed);
	return old;
#else
	volatile int64_t *v = (volatile int64_t *)s;
	int64_t old = *v;

	*v = (int64_t)((uint64_t)old + (uint64_t)delta);	/* wrapping, as a level-0 count may */
	return old;
#endif
}

/*
 * A prepared update: what one thread's updates of one (node, stat) of its
 * own slot resolve to, computed once by ctr_<name>_ref(t, cpu, node, stat)
 * and used by every ctr_<name>_ref_add(&ref, delta) after it.  Why: the
 * kernel's this_cpu_add() reaches the running CPU's copy through a
 * %gs-relative operand, with no load of a per-CPU base and no arithmetic;
 * user space has no per-CPU segment, so the slot's address is a chain of
 * loads from the tree.  Where an update has an out-of-line slow path (rstat's
 * link, taken once per node and prune) or a locked op (a compiler barrier to
 * GCC), the compiler must assume memory changed, so in a loop of updates it
 * reloads the chain after every update, taken or not: rstat_force's five
 * loads and a multiply an update.  With a ref its update is the kernel's
 * fast path, the add, one compare of the linked mark, a branch: 1.16-1.22 ns
 * at chain:1 before, 0.60-0.63 with the ref (and the fused check and
 * out-of-line block that came with it; ctrbench limits side by side, issue
 * 13).  A ref holds the addresses in locals, which no call or barrier can
 * change: the node's own word, the base its ancestors' words are offsets
 * from and their offset list (ctr_offsets below), the masks and bounds of
 * the fast path's test.  A ref is valid for the tree's life, on its slot's
 * owner only: it holds nothing that changes after init (a structure that
 * grows, striped's cell table, is reached through what does not: the
 * adder).  The timed update loops (bench/loops.c) update through refs;
 * everything else, the API included, through ctr_<name>_add.  Every
 * algorithm has its own (issue 28: the ref of add's arguments that some
 * had, CTR_REF_GENERIC, reloaded the tree's fields after every locked op;
 * tests/cli_objdump.sh fails on an algorithm header that uses CTR_REF_WRAP,
 * and holds every update block to an instruction budget per level).
 * CTR_REF_WRAP is left for the harness's baselines (bench/baselines.h),
 * whose add has no tree to hoist from: a ref that is add's arguments, kept.
 */
#define CTR_REF_WRAP(ref, add)							\
struct ref {									\
	struct ctr_tree *t;	/* add's arguments, kept for every update */	\
	int cpu, node, stat;							\
};										\
static inline struct ref ref(struct ctr_tree *t, int cpu, int node, int stat)	\
{										\
	return (struct ref){ t, cpu, node, stat };				\
}										\
static inline __attribute__((always_inline)) void				\
ref##_add(const struct ref *r, int64_t delta)					\
{										\
	add(r->t, r->cpu, r->node, r->stat, delta);				\
}

/*
 * One algorithm.  None of these is called from a timed loop: the harness
 * inlines ctr_<name>_add() and ctr_<name>_try_charge() from counters/<name>.h
 * (see counters/list.h); the table serves creation, reads, verification and
 * the public API.
 */
#include "hist.h"

/* Flush and lock figures of algorithms that flush (rstat); see ctr_algo.flush_stats. */
struct ctr_flush_stats {
	uint64_t flushes;		/* flushes done, any cause */
	uint64_t lock_acquisitions;	/* global flush lock taken */
	uint64_t lock_contended;	/* ... after waiting */
	uint64_t lock_wait_ns;		/* time spent waiting for it */
	uint64_t lock_hold_ns;		/* time it was held */
	uint64_t lock_breaks;		/* times a flush dropped it between CPUs for a waiter */
	struct ctr_hist flush_ns;	/* duration of each flush */
	/*
	 * The reads (ctr_read, and try_charge's reads) whose policy decided to
	 * flush, and how they got it done (options=read=...).  Each either
	 * flushed itself or was served by another's flush, and is counted once,
	 * as it returns: reads_flush == reader_flushes + reads_shared in every
	 * window, reads in progress at its edges included.
	 */
	uint64_t reads_flush;		/* reads that needed a flush */
	uint64_t reader_flushes;	/* ... that flushed for themselves (one flush each) */
	uint64_t reads_shared;		/* ... reads served by someone else's flush (unified, sem fallback, batch) */
	uint64_t reader_waits;		/* ... reads that waited at the reader-side gate */
	uint64_t reader_wait_ns;	/* time spent there: reader mutex, semaphore, batch sleep, unified
					 * wait (not the flush lock: that is lock_wait_ns) */
	uint64_t sem_fallbacks;		/* read=sem: reads whose semaphore wait timed out */
};

/* Where an algorithm's layout op sends its regions (ctr_layout). */
struct ctr_layout_sink {
	const struct ctr_tree *t;	/* the tree described: a region's level is its node's depth */
	ctr_layout_fn emit;		/* the caller's callback */
	void *arg;			/* its argument */
};

/*
 * One region of len bytes at addr: node's (-1 none), owned by slot (-1
 * shared), index among its like (-1 none), holding what (a static string).
 * Nothing for len 0.  0 or what the caller's callback returned.
 */
int ctr_emit(const struct ctr_layout_sink *s, const void *addr, size_t len, int node, int slot, int index,
	     const char *what);

/*
 * One region per node, bytes long, node n's at base + (pos ? pos[n] : n) x
 * bytes: an array indexed by node (or by preorder position) of slot's (-1
 * shared).
 */
int ctr_emit_nodes(const struct ctr_layout_sink *s, const void *base, size_t bytes, const int *pos, int slot,
		   const char *what);

/* The rest of a block of size bytes at base past its first used ones: "padding" of slot (-1 shared). */
static inline int ctr_emit_pad(const struct ctr_layout_sink *s, const void *base, size_t used, size_t size, int slot)
{
	return used < size ? ctr_emit(s, (const char *)base + used, size - used, -1, slot, -1, "padding") : 0;
}

/* A field of the instance that a layout names (ctr_emit_instance). */
struct ctr_span {
	size_t off;		/* offset in the instance */
	size_t len;		/* bytes */
	const char *what;	/* what it holds */
};
#define CTR_SPAN(type, field, what) { offsetof(type, field), sizeof(((type *)0)->field), what }

/*
 * The instance, [t, t + algo->size): the n spans given (ascending, apart),
 * and what lies between and around them as "the instance's read-mostly
 * fields" (the base, sizes, pointers: written at init only).
 */
int ctr_emit_instance(const struct ctr_layout_sink *s, const struct ctr_span *spans, int n);

/* The refs' offset lists of a ctr_offsets (bookkeeping, read at ref time only). */
struct ctr_offsets;
int ctr_emit_offsets(const struct ctr_layout_sink *s, const struct ctr_offsets *o);

/*
 * The allocators every allocation of libctr goes through (ctr_zalloc_aligned
 * and ctr_alloc_slot_area too), so that a test can see each live one and hold
 * the layout map to them.  ctr_free takes what any of the first three gave.
 */
void *ctr_malloc(size_t size);
void *ctr_calloc(size_t n, size_t size);
void ctr_free(void *p);

/*
 * Test hook: while on, libctr keeps a list of every live allocation made
 * above (its address and the size asked for), which ctr_debug_allocs
 * returns (*recs valid until the next allocation or free; the count is
 * returned).  Turning it on starts a fresh list, off forgets it.  A list, not
 * a callback: the allocators are reached from timed loops (striped's cells),
 * where tests/cli_objdump.sh allows no indirect call.
 */
struct ctr_alloc_rec {
	void *p;		/* what the allocator returned */
	size_t size;		/* bytes asked for */
};
void ctr_debug_track_allocs(int on);
int ctr_debug_allocs(const struct ctr_alloc_rec **recs);

/* struct ctr_algo.flags */
#define CTR_READ_ASKS_UPDATERS (1u << 2)	/* a read waits for updaters to answer it (mailboxes), not only loads */
#define CTR_PERIODIC_FLUSH (1u << 1)	/* flush_period_ms changes something: a periodic flusher, rstat's prune */
#define CTR_CHARGE_RACY	(1u << 0)	/* check-then-act: with T threads charging, a level can end over its
					 * limit by up to (T - 1) x the largest delta; else never over at rest */

struct ctr_algo {
	const char *name;			/* as in ctrbench run --algo */
	const char *summary;			/* one line for ctrbench list */
	unsigned flags;				/* CTR_CHARGE_RACY, CTR_PERIODIC_FLUSH, CTR_READ_ASKS_UPDATERS */
	size_t size;				/* sizeof the algorithm's instance struct */
	/* Parse one option key=value before init: -ENOENT for a key it does not take, -EINVAL for a
	 * bad value.  NULL: no options. */
	int (*set_option)(struct ctr_tree *t, const char *key, const char *value);
	/* Allocate the algorithm's part; the base is filled in.  0 or -errno; must free what it allocated on error. */
	int (*init)(struct ctr_tree *t);
	void (*fini)(struct ctr_tree *t);	/* free what init allocated */
	void (*add)(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta);
	int64_t (*read)(struct ctr_tree *t, int node, int stat);
	int64_t (*read_exact)(struct ctr_tree *t, int node, int stat);
	int (*try_charge)(struct ctr_tree *t, int cpu, int node, int64_t delta);
	int64_t (*error_bound)(const struct ctr_tree *t);	/* NULL: exact (0) */
	/* Where error_bound is -1: ctr_read_staleness_ms() of this instance.  NULL: not stated. */
	double (*staleness_ms)(const struct ctr_tree *t, double flush_ms, char *why, size_t len);
	/* Copy the flush figures since creation or the last reset, and reset them if asked.  NULL: none. */
	void (*flush_stats)(struct ctr_tree *t, struct ctr_flush_stats *out, int reset);
	/*
	 * The bytes init allocates, and for memory that grows after it (striped's cells) the most it can
	 * come to, summed with ctr_alloc_footprint / ctr_slot_areas_footprint per allocation (saturating
	 * at SIZE_MAX).  Called on a probe (ctr_footprint): the base is filled in and the options parsed,
	 * but parent, ancestors and limit are NULL (depth and max_depth are there).  It may set fields
	 * of the probe and allocate O(nr_cpus) scratch, which it frees.  NULL: ctr.c's upper bound,
	 * (nr_cpus + 1) x nr_nodes x nr_stats words, each node's stats on whole lines.
	 */
	size_t (*footprint)(struct ctr_tree *t);
	/*
	 * The layout map of what init allocated (ctr_layout): every region through ctr_emit and its
	 * helpers below, the instance included (ctr_emit_instance), the base's arrays not (ctr.c emits
	 * them).  0 or what the sink returned.  NULL: ctr_layout says -EOPNOTSUPP.
	 */
	int (*layout)(struct ctr_tree *t, const struct ctr_layout_sink *s);
};

/* Limit of node n, CTR_NO_LIMIT if none. */
/*
 * Node n's limit, CTR_NO_LIMIT where it has none.  The designs whose check
 * is a read (rstat's flush, a per-CPU sum) skip the read at a level with no
 * limit, as obj_cgroup_may_zswap() skips a memcg whose zswap.max is the
 * page counter's maximum: --limit-levels leaf or root then costs fewer reads.
 */
static inline int64_t ctr_limit(const struct ctr_tree *t, int n)
{
	return t->limit ? t->limit[n] : CTR_NO_LIMIT;
}

/* value + delta <= limit, without overflowing. */
static inline int ctr_within_limit(int64_t value, int64_t delta, int64_t limit)
{
	int64_t sum;

	if (__builtin_add_overflow(value, delta, &sum))
		return delta < 0;
	return sum <= limit;
}

/* Cache-line-aligned zeroed allocation of at least size bytes; NULL on ENOMEM. */
void *ctr_zalloc_aligned(size_t size);

/*
 * The region a slot owns (its per-CPU area), zeroed: on the slot's NUMA node
 * when the tree has a slot-to-node map (whole pages, bound with mbind, as the
 * kernel's per-CPU allocator places each CPU's chunk), else as
 * ctr_zalloc_aligned.  NULL with errno set (EINVAL for a node that does not
 * exist).  Coloured: slot cpu's area starts cpu lines (modulo a page) into
 * its first page, so that no two of 64 slots' copies of a node share an L1
 * set (see ctr.c).  Free with ctr_free_slot_area and the same size.
 */
void *ctr_alloc_slot_area(const struct ctr_tree *t, int cpu, size_t size);
void ctr_free_slot_area(const struct ctr_tree *t, void *p, size_t size);

/*
 * 1 when every slot is on one NUMA node (or the tree has no slot-to-node
 * map), else 0: then one allocation can hold every slot's area, bound to
 * that node as a whole (ctr_alloc_slot_area(t, 0, size): slot 0's node,
 * colour 0), and ctr_slot_block_footprint(t, size) is what it takes.
 */
int ctr_slots_one_node(const struct ctr_tree *t);
size_t ctr_slot_block_footprint(const struct ctr_tree *t, size_t size);

/* a + b and a x b, SIZE_MAX when they do not fit: footprints only ever compare against memory. */
static inline size_t ctr_size_add(size_t a, size_t b)
{
	size_t r;

	return __builtin_add_overflow(a, b, &r) ? SIZE_MAX : r;
}

static inline size_t ctr_size_mul(size_t a, size_t b)
{
	size_t r;

	return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

/*
 * What one malloc/calloc/ctr_zalloc_aligned of size bytes takes from the heap
 * (glibc's chunk header and 16-byte rounding, an aligned allocation's line),
 * and what nr_cpus slot areas of size bytes take (ctr_alloc_slot_area: whole
 * pages each, colour included, when the tree binds slots to nodes).
 */
size_t ctr_alloc_footprint(size_t size);
size_t ctr_slot_areas_footprint(const struct ctr_tree *t, size_t size);

/*
 * The clocks libctr reads, in one place: clock id's now in ns, CLOCK_MONOTONIC's
 * (durations, timeouts: a wall-clock step must not stretch or cut them), and
 * an absolute CLOCK_MONOTONIC deadline ns from now for the timed waits
 * (sem_clockwait, a condition variable on CLOCK_MONOTONIC).  Inline, so the
 * projection's copy (scripts/proj-rename.sh) still sees each clock_gettime.
 */
static inline uint64_t ctr_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t ctr_now_ns(void)
{
	return ctr_clock_ns(CLOCK_MONOTONIC);
}

/* ts moved ns later, tv_nsec kept below a second. */
static inline void ctr_timespec_add_ns(struct timespec *ts, uint64_t ns)
{
	ts->tv_sec += (time_t)(ns / 1000000000u);
	ts->tv_nsec += (long)(ns % 1000000000u);
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static inline struct timespec ctr_deadline_ns(uint64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ctr_timespec_add_ns(&ts, ns);
	return ts;
}

/*
 * Per node, the word offsets (n * mult) of its ancestors, leaf first,
 * depth[node] of them: what a ref walks, so that a level is one load of an
 * int and an access at base + offset, with no index chased through
 * ancestors[] and no multiply by a stride (an imul per level before, issue
 * 28).  Built at init from the tree's ancestor lists; read-only after.
 */
struct ctr_offsets {
	const int *const *of;		/* of[node]: depth[node] offsets, node's own first */
	int *store;			/* where those lists live, one after another */
};

static inline void ctr_offsets_fini(struct ctr_offsets *o)
{
	ctr_free((void *)o->of);
	ctr_free(o->store);
	o->of = NULL;
	o->store = NULL;
}

/* 0, or -ENOMEM (an offset past INT32_MAX included); frees what it allocated on error. */
static inline int ctr_offsets_init(struct ctr_offsets *o, const struct ctr_tree *t, size_t mult)
{
	const int **of = ctr_malloc(sizeof(*of) * (size_t)t->nr_nodes);
	size_t total = 0, at = 0;

	o->of = of;
	o->store = NULL;
	if (!of)
		return -ENOMEM;
	for (int i = 0; i < t->nr_nodes; i++)
		total += (size_t)t->depth[i];
	o->store = ctr_malloc(sizeof(int) * (total ? total : 1));
	if (!o->store)
		goto fail;
	for (int i = 0; i < t->nr_nodes; i++) {
		of[i] = o->store + at;
		ctr_for_each_ancestor(t, n, i) {
			if ((size_t)n * mult > INT32_MAX)
				goto fail;
			o->store[at++] = (int)((size_t)n * mult);
		}
	}
	return 0;
fail:
	ctr_offsets_fini(o);
	return -ENOMEM;
}

/* What ctr_offsets_init allocates (a footprint's share): the list pointers and the lists. */
static inline size_t ctr_offsets_footprint(const struct ctr_tree *t)
{
	size_t levels = 0;

	for (int i = 0; i < t->nr_nodes; i++)
		levels += (size_t)t->depth[i];
	return ctr_size_add(ctr_alloc_footprint((size_t)t->nr_nodes * sizeof(int *)),
			    ctr_alloc_footprint(ctr_size_mul(levels ? levels : 1, sizeof(int))));
}

#endif /* CTR_INTERNAL_H */
