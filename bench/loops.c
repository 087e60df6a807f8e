/* SPDX-License-Identifier: MIT */
/*
 * loops.c - the timed loops, instantiated once per algorithm from
 * counters/list.h so that the compiler inlines each algorithm's update: no
 * indirect call, no shared write but the algorithm's own.  The update
 * workload measures throughput with no timer in the loop (the phase is
 * looked at once per BENCH_TPUT_BLOCK ops) and then latency in a phase of its
 * own; the other workloads time one op per block of --sample ops (64 by
 * default), at a random place in the block.
 */
#include <string.h>
#include <time.h>

#include "../counters/list.h"
#include "baselines.h"
#include "bench.h"
#include "run.h"
#include "workload.h"	/* the workloads these loops are: BENCH_CHARGE_*, BENCH_SWING */

static void bench_pause_us(int us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/*
 * Which operation of the next block is timed: a fresh position per block, so
 * that an algorithm doing extra work every k operations (a fold past a batch
 * of 32, say) is sampled in proportion, not always or never.
 */
static inline unsigned bench_sample_pos(uint64_t *rng, unsigned n)
{
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return (unsigned)(*rng & (n - 1));	/* n is a power of two (--sample 1/N) */
}

/*
 * --work-ns: private work after each operation, outside its timing, standing
 * for what surrounds a counter update in the kernel (a zswap store compresses
 * a page: about 35 us in the seed's table).  A spin on the TSC: no memory
 * traffic, so it dilutes contention without adding any.
 */
static inline void bench_work(uint64_t ticks)
{
	if (ticks) {
		uint64_t end = bench_tsc() + ticks;

		while (bench_tsc() < end)
			;
	}
}

/*
 * --work-iters N (update workload): N steps of one dependent chain of
 * register adds after every block of BENCH_TPUT_BLOCK operations of the
 * throughput phase (N/1024 per op: a fraction of a 1-ns op is possible,
 * which a TSC spin, 20-30 ns a read in a KVM guest, cannot add).  No memory,
 * no timer; the asm keeps the sum from being folded.  A controlled slowdown
 * for scripts/aa-check; 0 costs one predicted branch per block.
 */
static inline void bench_work_iters(uint64_t n)
{
	uint64_t x = 0;

	for (uint64_t i = 0; i < n; i++) {
		x += i;
		__asm__ volatile("" : "+r"(x));
	}
}

#define BENCH_RNG_SEED(w) (0x9e3779b97f4a7c15ULL * (uint64_t)((w)->index + 1) + (w)->reader)

#define BENCH_PHASE_CHECK(w, seen, ops, fails)					\
	({									\
		int __p = atomic_load_explicit(&(w)->gate->phase, memory_order_relaxed); \
		__p != (seen) && ((seen) = __p, bench_worker_phase(w, __p, ops, fails)); \
	})

/* One latency sample of k ops (ticks, overhead included) into the worker's histogram, per op. */
static inline void bench_lat_record(struct bench_worker *w, uint64_t ticks, uint64_t overhead, unsigned k)
{
	ctr_hist_add(&w->hist, ticks > overhead ? (ticks - overhead) * BENCH_LAT_SCALE / k : 0);
}

/*
 * The block's loop unswitched on a ref's one-level form: an algorithm whose
 * ref has one (counters/<name>.h defines CTR_REF_ONE_LEVEL_<name> as 1 and
 * <ref>_one_level(&ref)) gets a second copy of the loop under that test, in
 * which the compiler knows the walk is empty, so an update at depth 1 is its
 * add alone, with no per-update test of the depth (GCC -O2 does not unswitch
 * it by itself: two taken branches a +1/-1 pair, percpu_hier chain:1 at
 * 1.42-1.68x its own pairs, issue 28).  Others: 0, no second copy.  The
 * choice is the preprocessor's (Linux's IS_ENABLED trick), so an algorithm
 * without the form needs no function of that name.
 */
#define __BENCH_ARG_1 0,
#define __bench_second(ignored, val, ...) val
#define ___bench_if(arg_or_junk, yes, no) __bench_second(arg_or_junk yes, no)
#define ____bench_if(flag, yes, no) ___bench_if(__BENCH_ARG_##flag, yes, no)
#define __bench_if(flag, yes, no) ____bench_if(flag, yes, no)	/* flag expanded first */
#define BENCH_REF_ONE_LEVEL(name, ref, h) \
	__bench_if(CTR_REF_ONE_LEVEL_##name, ref##_one_level(&(h)), 0)

/*
 * update: +1/-1 pairs on the worker's leaf, so values stay bounded and every
 * node returns to its start unless an update is lost.  Every update goes
 * through the algorithm's prepared update (ctr_<name>_ref, made once per
 * worker: see CTR_REF_WRAP in counters/ctr_internal.h), as a kernel update's
 * per-CPU address costs nothing to form.
 *
 * Throughput phase (MEASURE): pairs back to back, the phase looked at once
 * per BENCH_TPUT_BLOCK ops, nothing else in the loop: no timer, no counter
 * of the position in the block, no --work-ns test (with --work-ns the loop
 * is a second instance with the work between ops, the phase looked at per
 * --sample ops so that a 35 us work does not stretch the window's edges).
 * The block is a function of its own, called once per BENCH_TPUT_BLOCK ops
 * (a direct call: 1024 ops to a call and a return): inlined into the
 * worker's loop, rstat_force's block, the same ten instructions a pair,
 * measured 1.4-2.4 ns an op, where the latency phase's batches of the same
 * instructions measured 0.5-0.7 in the same run; out of line, 0.58-0.62
 * (an Intel host, issue 13; no PMU here to say which resource it was).
 * It starts a 64-byte line, so that its loop's place in the line is set by
 * its own code: on that host a one-cycle loop's speed moved with it (an asm
 * probe of percpu_hier's loop 0.33-0.56 ns an op by its offset), and two
 * builds whose blocks were the same code, placed apart by an edit elsewhere,
 * measured rstat_force over percpu_hier 1.07-1.18x and 1.48-1.83x in the
 * same half hour (docs/harness.md).
 *
 * Latency phase (LATENCY): each worker first picks its batch k (a power of
 * two): the smallest whose fastest of 15 unfenced samples is at least
 * BENCH_LAT_MIN_STEPS timer resolutions, so that no op below the timer's
 * step reads as 0; where 2 ops already do, k = 1.  (Unfenced, because the
 * fenced pair's own jitter, 35 ns of overhead here, would make the choice
 * flip between runs; the fastest, because preemption and interrupts only
 * ever add, and on a loaded machine a median could pick k = 1 for a 0.2 ns
 * op.)  k == 1 times one +1 between fenced timestamps (its
 * -1 after, untimed); k > 1 times k/2 pairs between plain rdtsc.  --work-ns
 * forces k == 1 with the work between samples, as in throughput.
 */
#define BENCH_UPDATE_LOOP(name, ref, add)					\
typedef __typeof__(ref(NULL, 0, 0, 0)) bench_ref_##name;			\
										\
static inline uint64_t bench_time_##name(const bench_ref_##name h, unsigned k)	\
{										\
	uint64_t t0, t1;							\
										\
	if (k == 1) {								\
		t0 = bench_tsc();						\
		add(&h, 1);							\
		t1 = bench_tsc();						\
		add(&h, -1);							\
		return t1 - t0;							\
	}									\
	t0 = bench_tsc_raw();							\
	for (unsigned i = 0; i < k / 2; i++) {					\
		add(&h, 1);							\
		add(&h, -1);							\
	}									\
	t1 = bench_tsc_raw();							\
	return t1 - t0;								\
}										\
										\
static __attribute__((noinline, aligned(64))) void bench_block_##name(const bench_ref_##name h) \
{										\
	if (BENCH_REF_ONE_LEVEL(name, ref, h)) {				\
		for (unsigned i = 0; i < BENCH_TPUT_BLOCK / 2; i++) {		\
			add(&h, 1);						\
			add(&h, -1);						\
		}								\
		return;								\
	}									\
	for (unsigned i = 0; i < BENCH_TPUT_BLOCK / 2; i++) {			\
		add(&h, 1);							\
		add(&h, -1);							\
	}									\
}										\
										\
static unsigned bench_pick_batch_##name(struct bench_worker *w, const bench_ref_##name h) \
{										\
	const struct bench_gate *g = w->gate;					\
	unsigned k = 2;								\
										\
	for (; k < BENCH_LAT_BATCH_MAX; k *= 2) {				\
		uint64_t m = UINT64_MAX;					\
										\
		for (int j = 0; j < 15; j++) {					\
			uint64_t v = bench_time_##name(h, k);			\
										\
			m = v < m ? v : m;					\
		}								\
		if (m > g->tsc_overhead_raw &&					\
		    m - g->tsc_overhead_raw >= BENCH_LAT_MIN_STEPS * g->tsc_resolution) \
			break;							\
	}									\
	/* Two ops already span the steps: one alone is timed well enough, fenced. */ \
	return k == 2 ? 1 : k;							\
}										\
										\
static void bench_update_##name(struct bench_worker *w)			\
{										\
	const bench_ref_##name h = ref(w->tree, w->index, w->node, 0);		\
	const unsigned every = w->gate->sample_every;				\
	const uint64_t work = w->gate->work_ticks;				\
	const uint64_t iters = w->gate->work_iters;				\
	uint64_t ops = 0, oh;							\
	int seen = BENCH_WARMUP;						\
	unsigned k;								\
										\
	if (!work) {								\
		while (!BENCH_PHASE_CHECK(w, seen, ops, 0) && seen != BENCH_LATENCY) { \
			bench_block_##name(h);					\
			ops += BENCH_TPUT_BLOCK;				\
			bench_work_iters(iters);				\
		}								\
	} else {								\
		while (!BENCH_PHASE_CHECK(w, seen, ops, 0) && seen != BENCH_LATENCY) { \
			for (unsigned i = 0; i < every / 2; i++) {		\
				add(&h, 1);					\
				bench_work(work);				\
				add(&h, -1);					\
				bench_work(work);				\
			}							\
			ops += every;						\
		}								\
	}									\
	if (seen == BENCH_LATENCY) {						\
		k = work ? 1 : bench_pick_batch_##name(w, h);			\
		oh = k == 1 ? w->gate->tsc_overhead : w->gate->tsc_overhead_raw; \
		w->lat_batch = k;						\
		while (!BENCH_PHASE_CHECK(w, seen, ops, 0)) {			\
			for (unsigned i = 0; i < 16; i++) {			\
				bench_lat_record(w, bench_time_##name(h, k), oh, k); \
				bench_work(work);				\
			}							\
		}								\
	}									\
	w->tally = 0;								\
}

/*
 * Admission audit, on the sampled charge attempt only (1 in 64, outside its
 * timing).  The exact value a level held while the attempt checked it is
 * bracketed: every other updater's published (seq, held) is looked at
 * before the attempt (bench_audit_look) and after it.  Between the looks an
 * updater that published k times, from holding b to a, held at most
 * (a + b + k) / 2 and at least (a + b - k) / 2 (each publish moves it by one
 * charge at most), and its real holding is one charge from its published
 * one while an op is in flight: hi = that + 1 (at most the window or the
 * burst, which nobody exceeds), lo = that - 1 (at least 0).  The worker's
 * own holding is exact.  A refusal is a false reject only if every level had
 * room for one more charge with every other updater at its hi: no value in
 * the bracket could have refused, so an exact algorithm never has one, however
 * long the attempt or the audit is preempted.  An overshoot is what the level
 * held after the admission with every other updater at its lo: what
 * certainly happened.  (Before, the audit looked only after the attempt,
 * with one charge of slack per updater: a preempted audit saw other
 * updaters many charges away from the check, and called 21% of percpu_hier's
 * refusals false.)
 */
static void bench_audit_look(struct bench_worker *w)
{
	const struct bench_gate *g = w->gate;

	for (int u = 0; u < g->nr_updaters; u++)
		w->seen[u] = atomic_load_explicit(&g->updaters[u].published, memory_order_relaxed);
	/* the first look is complete before the attempt reads anything */
	atomic_thread_fence(memory_order_seq_cst);
}

static void bench_audit_charge(struct bench_worker *w, int64_t own_before, int admitted)
{
	const struct bench_gate *g = w->gate;
	const int64_t cap = g->charge_burst ? g->charge_burst : BENCH_CHARGE_WINDOW;
	int fits = 1;

	/* the attempt's reads are complete before the second look */
	atomic_thread_fence(memory_order_seq_cst);
	for (int m = w->node; m >= 0; m = g->parent[m]) {
		int64_t hi = 0, lo = 0;

		if (g->limit[m] == CTR_NO_LIMIT)
			continue;
		for (int k = 0; k < g->nr_under[m]; k++) {
			int u = g->under[m][k];
			int64_t pa, b, a, n, h, l;

			if (u == w->index)
				continue;
			pa = atomic_load_explicit(&g->updaters[u].published, memory_order_relaxed);
			b = bench_published_held(w->seen[u]);
			a = bench_published_held(pa);
			n = bench_published_seq(pa) - bench_published_seq(w->seen[u]);
			h = (a + b + n) / 2 + 1;
			l = (a + b - n + 1) / 2 - 1;
			hi += h < cap ? h : cap;
			lo += l > 0 ? l : 0;
		}
		if (admitted && (own_before + 1 + lo) * BENCH_CHARGE_UNIT - g->limit[m] > w->overshoot_max)
			w->overshoot_max = (own_before + 1 + lo) * BENCH_CHARGE_UNIT - g->limit[m];
		if (!admitted && (own_before + hi + 1) * BENCH_CHARGE_UNIT > g->limit[m])
			fits = 0;
	}
	w->audited++;
	if (!admitted) {
		w->audit_rejected++;
		w->false_rejects += fits;
	}
}

/*
 * charge: try_charge(+unit); past a window of BENCH_CHARGE_WINDOW held
 * charges, uncharge one first, and after a refusal uncharge one (what
 * reclaim would free), so that a worker at its limit keeps both paths busy.
 * One op is one charge attempt, its later uncharge included (the seed's
 * "cost per zswap store").  One attempt per block, at a random position, is
 * sampled and audited.  Holdings are published (a store to the worker's own line).
 *
 * store (the same loop with STORE 1): one op is a zswap store as the kernel
 * does it: obj_cgroup_may_zswap()'s check at every level with a limit (the
 * algorithm's try_charge: a read per level, after a flush for the rstat
 * designs), the charge of MEMCG_ZSWAP_B (stat 0, bytes) and, admitted,
 * MEMCG_ZSWAPPED (stat 1, +1 page); a free undoes both.  The sampled store
 * is timed whole on the TSC (wall: update_ns); CPU time per store is the
 * window's task-clock over its stores (cpu_ns_per_op), the seed's unit.  (A
 * thread CPU clock read around the sampled store, a system call here, added
 * 200 ns at the median and 20 us at p99 to an empty op after --work-ns
 * 35000 on this 2-CPU guest: no per-op CPU figure.)  memory.max's own page
 * counter charge, the same for every design, is not modelled.
 *
 * --charge-burst B (the admission-staleness scenario): B charge attempts in a
 * row, refusals included, then every held charge freed in a row, as a burst
 * of zswap stores and then of loads or invalidations.  Values swing from 0 to
 * the limit and back within microseconds, so a read that is one flush period
 * stale is as likely too high (a false rejection, the premature OOM) as too
 * low (an overshoot), and the audit counts both.
 *
 * The phase is looked at before every attempt, not once a block: an
 * attempt costs tens of ns to tens of us (a forced flush per level), so a
 * block of 64 could straddle the window's opening by milliseconds, and the
 * tree's flush count, which is global, took in the flushes of attempts that
 * the worker's count did not (rstat_force's 32 flushes a store at chain:32
 * read 33.5).  The load is of a line written only at phase changes.
 */
#define BENCH_ADMIT_FREE(add, t, cpu, node, STORE)				\
	do {									\
		add(t, cpu, node, 0, -BENCH_CHARGE_UNIT);			\
		if (STORE)							\
			add(t, cpu, node, 1, -1);				\
	} while (0)

#define BENCH_ADMIT_LOOP(fn, add, try_charge, STORE)				\
static void fn(struct bench_worker *w)						\
{										\
	struct ctr_tree *t = w->tree;						\
	const int cpu = w->index, node = w->node;				\
	const unsigned every = w->gate->sample_every;				\
	const uint64_t work = w->gate->work_ticks;				\
	const int burst = w->gate->charge_burst;				\
	uint64_t ops = 0, fails = 0, rng = BENCH_RNG_SEED(w), seq = 0;		\
	int seen = BENCH_WARMUP, held = 0, tried = 0;				\
										\
	while (!BENCH_PHASE_CHECK(w, seen, ops, fails)) {			\
		unsigned timed = bench_sample_pos(&rng, every), i;		\
										\
		for (i = 0; i < every; i++) {					\
			uint64_t t0 = 0;					\
			int ok, before;						\
										\
			/* the window's edges to the op (see above) */		\
			if (atomic_load_explicit(&w->gate->phase, memory_order_relaxed) != seen) \
				break;						\
			while (burst ? tried == burst && held : held == BENCH_CHARGE_WINDOW) { \
				BENCH_ADMIT_FREE(add, t, cpu, node, STORE);	\
				held--;						\
				atomic_store_explicit(&w->published, BENCH_PUBLISHED(++seq, held), \
						      memory_order_relaxed);		\
				if (!burst)					\
					break;					\
			}							\
			if (burst && tried == burst)				\
				tried = 0;					\
			tried++;						\
			before = held;						\
			if (i == timed) {					\
				bench_audit_look(w);				\
				t0 = bench_tsc();				\
			}							\
			ok = try_charge(t, cpu, node, BENCH_CHARGE_UNIT);	\
			if (STORE && ok)					\
				add(t, cpu, node, 1, 1);			\
			if (i == timed)						\
				ctr_hist_add(&w->hist, bench_tsc() - t0);	\
			held += ok;						\
			atomic_store_explicit(&w->published, BENCH_PUBLISHED(++seq, held),	\
					      memory_order_relaxed);			\
			if (i == timed)						\
				bench_audit_charge(w, before, ok);		\
			if (!ok && held && !burst) {	/* refused: free one, as reclaim would */ \
				BENCH_ADMIT_FREE(add, t, cpu, node, STORE);	\
				held--;						\
				atomic_store_explicit(&w->published, BENCH_PUBLISHED(++seq, held), \
						      memory_order_relaxed);		\
			}							\
			fails += !ok;						\
			bench_work(work);					\
		}								\
		ops += i;							\
	}									\
	w->tally = (int64_t)held * BENCH_CHARGE_UNIT;				\
}

#define BENCH_CHARGE_LOOP(name, add, try_charge)				\
	BENCH_ADMIT_LOOP(bench_charge_##name, add, try_charge, 0)		\
	BENCH_ADMIT_LOOP(bench_store_##name, add, try_charge, 1)

/*
 * readers, the updaters' side: +1 BENCH_SWING times, then -1 as many, so a
 * node's value swings by BENCH_SWING per updater below it and a stale read
 * is visibly off.  The count of operations is published after each (a store
 * to the worker's own line).  One op per block, at a random position, is timed.
 */
#define BENCH_SWING_LOOP(name, add)						\
static void bench_swing_##name(struct bench_worker *w)				\
{										\
	struct ctr_tree *t = w->tree;						\
	const int cpu = w->index, node = w->node;				\
	const unsigned every = w->gate->sample_every;				\
	uint64_t ops = 0, rng = BENCH_RNG_SEED(w);				\
	int64_t tally = 0;							\
	int seen = BENCH_WARMUP;						\
										\
	while (!BENCH_PHASE_CHECK(w, seen, ops, 0)) {				\
		const int64_t dir = (ops / BENCH_SWING) & 1 ? -1 : 1;		\
		unsigned timed = bench_sample_pos(&rng, every);	\
										\
		for (unsigned i = 0; i < every; i++) {		\
			if (i == timed) {					\
				uint64_t t0 = bench_tsc();			\
										\
				add(t, cpu, node, 0, dir);			\
				ctr_hist_add(&w->hist, bench_tsc() - t0);	\
			} else {						\
				add(t, cpu, node, 0, dir);			\
			}							\
			atomic_store_explicit(&w->published, (int64_t)(ops + i + 1), \
					      memory_order_relaxed);		\
		}								\
		tally += dir * every;				\
		ops += every;					\
	}									\
	w->tally = tally;							\
}

/* Every value node's exact count could have held between the reader's two looks. */
static void bench_read_window(struct bench_worker *w, int node, int64_t *lo, int64_t *hi)
{
	const struct bench_gate *g = w->gate;

	*lo = *hi = 0;
	for (int k = 0; k < g->nr_under[node]; k++) {
		int u = g->under[node][k];
		/* +1: an update can be visible in the counter just before its count is published */
		int64_t ca = atomic_load_explicit(&g->updaters[u].published, memory_order_relaxed) + 1;
		int64_t l, h;

		bench_swing_range(w->seen[u], ca, &l, &h);
		*lo += l;
		*hi += h;
	}
}

static void bench_read_look(struct bench_worker *w, int node)
{
	const struct bench_gate *g = w->gate;

	for (int k = 0; k < g->nr_under[node]; k++) {
		int u = g->under[node][k];

		w->seen[u] = atomic_load_explicit(&g->updaters[u].published, memory_order_relaxed);
	}
}

/*
 * readers, the readers' side: every read is timed (reads are what this
 * workload measures).  Before it the reader notes each updater's count, after
 * it derives every value the node could have held in between: the read's
 * error is its distance outside that range, 0 inside it, so a reader
 * preempted mid-read widens the range instead of inventing an error.  The
 * phase is checked every read.
 */
#define BENCH_READ_LOOP(name, read)						\
static void bench_read_##name(struct bench_worker *w)				\
{										\
	const struct bench_gate *g = w->gate;					\
	struct ctr_tree *t = w->tree;						\
	uint64_t ops = 0, rng = 0x9e3779b97f4a7c15ULL * (w->index + 1);	\
	int seen = BENCH_WARMUP;						\
										\
	while (!BENCH_PHASE_CHECK(w, seen, ops, 0)) {				\
		int pick = (int)((rng = rng * 6364136223846793005ULL + 1) >> 33);	\
		int node = g->read_node >= 0 ? g->read_node :			\
			   g->read_node == BENCH_READ_LEAF ? g->leaves[pick % g->nr_leaves] : \
			   g->read_node == BENCH_READ_OWN ? w->index % g->nr_nodes :	\
			   pick % g->nr_nodes;					\
		int64_t lo, hi, v, err;						\
		uint64_t t0, t1;						\
										\
		bench_read_look(w, node);					\
		t0 = bench_tsc();						\
		v = read(t, node, 0);						\
		t1 = bench_tsc();						\
		bench_read_window(w, node, &lo, &hi);				\
		ctr_hist_add(&w->hist, t1 - t0);				\
		err = v < lo ? lo - v : v > hi ? v - hi : 0;			\
		if (err > w->err_max)						\
			w->err_max = err;					\
		w->err_sum += (double)err;					\
		ops++;								\
		if (g->read_interval_us)					\
			bench_pause_us(g->read_interval_us);			\
	}									\
}

#define BENCH_LOOPS(name, ref, ref_add, add, try_charge, read)			\
	BENCH_UPDATE_LOOP(name, ref, ref_add)					\
	BENCH_CHARGE_LOOP(name, add, try_charge)				\
	BENCH_SWING_LOOP(name, add)						\
	BENCH_READ_LOOP(name, read)

#define BENCH_CTR_LOOPS(name) \
	BENCH_LOOPS(name, ctr_##name##_ref, ctr_##name##_ref_add, ctr_##name##_add, \
		    ctr_##name##_try_charge, ctr_##name##_read)

BENCH_LOOPS(empty, bench_empty_ref, bench_empty_ref_add, bench_empty_add, bench_empty_try_charge,
	    bench_empty_read)
BENCH_LOOPS(shared_atomic, bench_shared_atomic_ref, bench_shared_atomic_ref_add, bench_shared_atomic_add,
	    bench_shared_atomic_try_charge, bench_shared_atomic_read)
CTR_ALGO_LIST(BENCH_CTR_LOOPS)

#define BENCH_ENTRY(name, table, verify, baseline) \
	{ #name, &table, { bench_update_##name, bench_charge_##name, bench_swing_##name, \
			   bench_store_##name }, \
	  bench_read_##name, verify, baseline },
#define BENCH_CTR_ENTRY(name) BENCH_ENTRY(name, ctr_algo_##name, BENCH_VERIFY_NODES, 0)

const struct bench_algo bench_algos[] = {
	BENCH_ENTRY(empty, bench_algo_empty, BENCH_VERIFY_NONE, 1)
	BENCH_ENTRY(shared_atomic, bench_algo_shared_atomic, BENCH_VERIFY_TOTAL, 1)
	CTR_ALGO_LIST(BENCH_CTR_ENTRY)
};
const int bench_nr_algos = sizeof(bench_algos) / sizeof(bench_algos[0]);

const struct bench_algo *bench_algo_find(const char *name)
{
	for (int i = 0; i < bench_nr_algos; i++)
		if (!strcmp(bench_algos[i].name, name))
			return &bench_algos[i];
	return NULL;
}
