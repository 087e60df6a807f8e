/* SPDX-License-Identifier: MIT */
/*
 * rstat.c - create/free, linking, detaching, flushing and the policies'
 * reads.  See rstat.h for the mechanism and the ordering argument.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

#include "rstat.h"

/*
 * The ratelimit's clock, read on every read: the kernel compares jiffies, a
 * plain load; CLOCK_MONOTONIC_COARSE is the user-space equivalent (a few ns,
 * tick resolution, ample for a 2 s period).
 */
static uint64_t ctr_jiffies_ns(void)
{
	return ctr_clock_ns(CLOCK_MONOTONIC_COARSE);
}

/*
 * The flush lock's instrumentation clock: the TSC, as the harness times
 * operations (bench/tsc.h), not clock_gettime: three of those per flush
 * (lock taken, flush end, lock released) cost about 110 ns of a 310-415 ns
 * forced read here (issue 13); an unfenced rdtsc costs a few ns, and the
 * lock holds it brackets are hundreds of ns.  Ticks become ns through a
 * ratio calibrated once per process (2 ms against CLOCK_MONOTONIC, the
 * first time an rstat tree is made), so every figure is still in ns.
 */
/*
 * The projection's copy (CTR_PROJ) reads the clock instead: an rdtsc there
 * would read this machine's real TSC in the middle of virtual time, and a
 * projection would differ from run to run (issue 27).
 */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(CTR_PROJ)
#include <x86intrin.h>
static inline uint64_t ctr_rstat_ticks(void)
{
	return __rdtsc();
}
#else
static inline uint64_t ctr_rstat_ticks(void)
{
	return ctr_clock_ns(CLOCK_MONOTONIC);
}
#endif

static double ctr_rstat_ns_per_tick = 1.0;	/* written once, under ctr_rstat_calib_once */
static pthread_once_t ctr_rstat_calib_once = PTHREAD_ONCE_INIT;

static void ctr_rstat_calibrate(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && !defined(CTR_PROJ)
	struct timespec nap = { 0, 2 * 1000 * 1000 };
	uint64_t n0 = ctr_clock_ns(CLOCK_MONOTONIC), c0 = ctr_rstat_ticks(), n1, c1;

	nanosleep(&nap, NULL);
	n1 = ctr_clock_ns(CLOCK_MONOTONIC);
	c1 = ctr_rstat_ticks();
	if (c1 > c0 && n1 > n0)
		ctr_rstat_ns_per_tick = (double)(n1 - n0) / (double)(c1 - c0);
#endif
}

static uint64_t ctr_rstat_ns(uint64_t ticks)
{
	return (uint64_t)((double)ticks * ctr_rstat_ns_per_tick);
}

/* Now, on the TSC, in ns: for the reader-side waits (differences only). */
static uint64_t ctr_rstat_now_ns(void)
{
	return ctr_rstat_ns(ctr_rstat_ticks());
}

/* ---- the global flush lock, instrumented ---- */

/*
 * lockkind=spin: test-and-test-and-set, spinning on a load; past
 * CTR_RSTAT_SPIN_BUDGET pauses a waiter also yields between checks (rstat.h
 * says why).  With no other thread runnable a yield returns at once: the
 * wait stays CPU time.
 */
static int ctr_rstat_spin_trylock(struct ctr_rstat_lock *l)
{
	return !atomic_load_explicit(&l->locked, memory_order_relaxed) &&
	       !atomic_exchange_explicit(&l->locked, 1, memory_order_acquire);
}

static void ctr_rstat_spin_wait(struct ctr_rstat_lock *l)
{
	atomic_fetch_add_explicit(&l->waiters, 1, memory_order_relaxed);
	for (unsigned spins = 0; !ctr_rstat_spin_trylock(l); spins++) {
		ctr_cpu_relax();
		/* a yield in 16 checks: a breaking flusher's handoff window still finds it spinning */
		if (spins >= CTR_RSTAT_SPIN_BUDGET && spins % 16 == 0)
			sched_yield();
	}
	atomic_fetch_sub_explicit(&l->waiters, 1, memory_order_relaxed);
}

/*
 * lockkind=qspin: the word is taken at once only with nobody queued (the
 * kernel's "val == 0"), so a waiter at the queue's head is not overtaken
 * by every newcomer; the exchange on the word is still what excludes.
 */
static int ctr_rstat_q_trylock(struct ctr_rstat_lock *l)
{
	return !atomic_load_explicit(&l->tail, memory_order_relaxed) && ctr_rstat_spin_trylock(l);
}

/*
 * Queue (MCS), spin on the own node until the one ahead makes this the
 * head, spin on the word as the head, then make the next one the head.
 * The node is freed once handed on: the one behind wrote its link before
 * this waiter read it, and nobody reads a node that left the queue.
 */
static void ctr_rstat_q_wait(struct ctr_rstat_lock *l)
{
	struct ctr_rstat_qnode *n = aligned_alloc(CTR_CACHELINE, CTR_CACHELINE), *prev, *next, *me;

	atomic_fetch_add_explicit(&l->waiters, 1, memory_order_relaxed);
	if (!n) {
		while (!ctr_rstat_spin_trylock(l))
			ctr_cpu_relax();
		goto out;
	}
	atomic_init(&n->next, NULL);
	atomic_init(&n->wait, 1);
	CTR_LOCK_ROLE(&n->wait, "flush lock's queue node");	/* a node's flag, in the projection's table */
	prev = atomic_exchange_explicit(&l->tail, n, memory_order_acq_rel);
	if (prev) {
		atomic_store_explicit(&prev->next, n, memory_order_release);
		while (atomic_load_explicit(&n->wait, memory_order_acquire))
			ctr_cpu_relax();
	}
	while (!ctr_rstat_spin_trylock(l))
		ctr_cpu_relax();
	me = n;
	if (!atomic_compare_exchange_strong_explicit(&l->tail, &me, NULL, memory_order_acq_rel,
						     memory_order_relaxed)) {
		while (!(next = atomic_load_explicit(&n->next, memory_order_acquire)))
			ctr_cpu_relax();
		atomic_store_explicit(&next->wait, 0, memory_order_release);
	}
	free(n);	/* transient, the lock path's: not the tree's, never tracked */
out:
	atomic_fetch_sub_explicit(&l->waiters, 1, memory_order_relaxed);
}

/* The word's kinds (spin, qspin): 1 if taken at once. */
static int ctr_rstat_word_trylock(struct ctr_rstat_lock *l)
{
	return l->kind == CTR_RSTAT_LOCK_QSPIN ? ctr_rstat_q_trylock(l) : ctr_rstat_spin_trylock(l);
}

static void ctr_rstat_word_wait(struct ctr_rstat_lock *l)
{
	if (l->kind == CTR_RSTAT_LOCK_QSPIN)
		ctr_rstat_q_wait(l);
	else
		ctr_rstat_spin_wait(l);
}

/*
 * The lock without the figures: for reading the figures out, which must
 * not count in them.  The word's kinds are kernel spinlocks: preemption is
 * off from before the wait to the release, as spin_lock() has it (a no-op
 * but in the projection, whose scheduler then never takes the PU from a
 * spinner: a queued waiter preempted would stall every one behind it).
 * That holds only because nothing a holder waits for is held by a thread
 * off its PU: the flush takes each CPU's link lock, a pthread mutex here,
 * the kernel's raw spinlock, held with preemption off too (ctr_rstat_cpu_lock)
 * and, taken under the flush lock, waited for spinning (the projection's
 * mutex in a preemption-off section).  With a sleeping link-lock wait the
 * projection found every virtual thread blocked (store-limit, 20 workers on 4
 * PUs, depth 8: the flush-lock holder asleep, the link-lock holder queued for
 * a PU behind spinners).
 */
static void ctr_rstat_raw_lock(struct ctr_rstat_lock *l)
{
	if (l->kind == CTR_RSTAT_LOCK_MUTEX) {
		pthread_mutex_lock(&l->mutex);
		return;
	}
	ctr_preempt_disable();
	if (!ctr_rstat_word_trylock(l))
		ctr_rstat_word_wait(l);
}

static void ctr_rstat_raw_unlock(struct ctr_rstat_lock *l)
{
	if (l->kind != CTR_RSTAT_LOCK_MUTEX) {
		atomic_store_explicit(&l->locked, 0, memory_order_release);
		ctr_preempt_enable();
	} else {
		pthread_mutex_unlock(&l->mutex);
	}
}

void __ctr_rstat_lock_raw(struct ctr_rstat *r)
{
	ctr_rstat_raw_lock(&r->lock);
}

void __ctr_rstat_unlock_raw(struct ctr_rstat *r)
{
	ctr_rstat_raw_unlock(&r->lock);
}

int __ctr_rstat_lock_waiters(struct ctr_rstat *r)
{
	return atomic_load_explicit(&r->lock.waiters, memory_order_relaxed);
}

/* spin_needbreak(): someone waits (either kind counts the threads in its wait). */
static int ctr_rstat_lock_contended(struct ctr_rstat_lock *l)
{
	return atomic_load_explicit(&l->waiters, memory_order_relaxed) > 0;
}

static void ctr_rstat_lock(struct ctr_rstat *r)
{
	struct ctr_rstat_lock *l = &r->lock;
	uint64_t t0 = 0;
	int waited = 0;

	/* __cgroup_rstat_lock(): a trylock first, so the contended case is known and timed */
	if (l->kind != CTR_RSTAT_LOCK_MUTEX) {
		ctr_preempt_disable();	/* until ctr_rstat_raw_unlock (ctr_rstat_raw_lock says why) */
		if (!ctr_rstat_word_trylock(l)) {
			t0 = ctr_rstat_ticks();
			ctr_rstat_word_wait(l);
			waited = 1;
		}
	} else if (pthread_mutex_trylock(&l->mutex)) {
		t0 = ctr_rstat_ticks();
		atomic_fetch_add_explicit(&l->waiters, 1, memory_order_relaxed);
		pthread_mutex_lock(&l->mutex);
		atomic_fetch_sub_explicit(&l->waiters, 1, memory_order_relaxed);
		waited = 1;
	}
	l->t_acquired = ctr_rstat_ticks();
	l->acquisitions++;
	if (waited) {
		l->contended++;
		l->wait_ns += l->t_acquired - t0;
	}
}

static void ctr_rstat_unlock(struct ctr_rstat *r)
{
	struct ctr_rstat_lock *l = &r->lock;

	l->hold_ns += ctr_rstat_ticks() - l->t_acquired;
	ctr_rstat_raw_unlock(l);
}

/* ---- the updated trees ---- */

/*
 * A CPU's link lock: the kernel's cgroup_rstat_cpu_lock, a raw spinlock
 * taken with irqs off, so its holder is never off its CPU (a pthread mutex
 * here; preemption off is a no-op but in the projection).
 */
static inline void ctr_rstat_cpu_lock(struct ctr_rstat_cpu *c)
{
	ctr_preempt_disable();
	pthread_mutex_lock(&c->lock);
}

static inline void ctr_rstat_cpu_unlock(struct ctr_rstat_cpu *c)
{
	pthread_mutex_unlock(&c->lock);
	ctr_preempt_enable();
}

void __ctr_rstat_link(struct ctr_rstat *r, int cpu, int node)
{
	struct ctr_rstat_cpu *c = r->cpu[cpu];

	ctr_rstat_cpu_lock(c);
	ctr_rstat_tree_link(c->link, r->base.parent, node);
	ctr_rstat_cpu_unlock(c);
}

/*
 * Take the updated subtree under n from cpu's tree as a list through
 * flush_next, children first (rstat_tree.h); -1 if n is not linked there.
 * how: CTR_RSTAT_WALK_UNLINK_SEQ detaches it, its unlinks seq_cst (the owner
 * checks updated_next without the lock: rstat.h on store buffering);
 * CTR_RSTAT_WALK_KEEP is fence=membarrier's flush between prunes, which
 * leaves every node linked, so no update can find itself unlinked while the
 * flusher loads its slot.  Under the flush lock (the walk's stack is shared
 * scratch) and cpu's lock (the links).  Inline: how is a constant at each call.
 */
static inline __attribute__((always_inline)) int
ctr_rstat_take(struct ctr_rstat *r, int cpu, int n, enum ctr_rstat_walk how)
{
	struct ctr_rstat_cpu *c = r->cpu[cpu];
	struct ctr_rstat_link *l = c->link;
	int head;

	/*
	 * Not linked here: nothing to take, and (cpulock=linked) no need to
	 * take (and dirty) this CPU's lock.  A link racing with this check is
	 * an update in progress, which the flush does not promise to see.
	 * cpulock=always takes the lock first, as the kernel does.
	 */
	if (r->cpulock == CTR_RSTAT_CPULOCK_LINKED &&
	    atomic_load_explicit(&l[n].updated_next, memory_order_seq_cst) == CTR_RSTAT_OFF)
		return -1;
	ctr_rstat_cpu_lock(c);
	if (atomic_load_explicit(&l[n].updated_next, memory_order_relaxed) == CTR_RSTAT_OFF) {
		ctr_rstat_cpu_unlock(c);
		return -1;
	}
	if (how == CTR_RSTAT_WALK_KEEP)
		head = ctr_rstat_tree_walk(l, r->stack, n, how);
	else
		head = ctr_rstat_tree_detach(l, r->base.parent, r->stack, n, how);
	ctr_rstat_cpu_unlock(c);
	return head;
}

/*
 * Fold one CPU's detached list, children first, into aggregated values and
 * parents' pending: every stat, the slot loads seq_cst, after the seq_cst
 * unlinks (rstat.h on store buffering).
 */
static void ctr_rstat_fold(struct ctr_rstat *r, int cpu, int head)
{
	struct ctr_rstat_cpu *c = r->cpu[cpu];

	r->folded += (uint64_t)ctr_rstat_tree_fold(&r->base, c->link, head, c->slot, c->last, r->aggr,
						   r->pending, 0, 1, 1);
}

/*
 * Let a waiter in between two CPUs, as cgroup_rstat_flush_locked() does
 * ("play nice and yield if necessary": unlock, cond_resched() or
 * cpu_relax(), relock).  spin: a queued spinlock hands the lock to its
 * waiter; this one is not fair, so the flusher pauses until a waiter has
 * taken it, for at most CTR_RSTAT_HANDOFF_NS (a waiter that is
 * preempted, not spinning, cannot take it, and the flusher must not wait
 * for its next time slice), then queues for it.  mutex: a glibc mutex is
 * not fair either; the flusher yields until a waiter got in (or a few
 * rounds pass).
 */
static void ctr_rstat_lock_break(struct ctr_rstat *r)
{
	struct ctr_rstat_lock *l = &r->lock;
	int waiting = atomic_load_explicit(&l->waiters, memory_order_relaxed);

	r->lock_breaks++;
	ctr_rstat_unlock(r);
	if (l->kind != CTR_RSTAT_LOCK_MUTEX) {
		uint64_t until = ctr_rstat_ticks() + (uint64_t)(CTR_RSTAT_HANDOFF_NS / ctr_rstat_ns_per_tick);

		while (!atomic_load_explicit(&l->locked, memory_order_relaxed) && ctr_rstat_ticks() < until)
			ctr_cpu_relax();
	}
	else
		for (int i = 0; i < 16 && atomic_load_explicit(&l->waiters, memory_order_relaxed) >= waiting; i++)
			sched_yield();
	ctr_rstat_lock(r);
}

/*
 * fence=membarrier's prune: detach n's whole subtree on every CPU, one
 * membarrier(), then fold what was detached.  The one place where nodes are
 * unlinked, so the one place that needs the barrier (rstat.h has the
 * proof).  No lock break: another flush could relink and re-list a node
 * whose flush_next is still in one of these lists.  A prune that detached
 * nothing stored no unlink, so it has no store-buffering pair to close and
 * skips the barrier: with prune=flush a read of a subtree nobody updated
 * since the last flush costs what the kernel's does, a check per CPU.
 */
static void ctr_rstat_prune(struct ctr_rstat *r, int n)
{
	int detached = 0;	/* (CPU, list) pairs in heads[] */

	/*
	 * Only the CPUs that had something, as pairs: a prune of a clean
	 * subtree stores nothing and folds nothing.  An entry stored for
	 * every CPU and a second pass over all of them made a clean read of
	 * prune=flush 1.5-1.7x the default's at 1024 slots (issue 28); as
	 * pairs it is 0.7-0.85x (no waiter test per CPU: a prune never breaks).
	 */
	for (int cpu = 0; cpu < r->base.nr_cpus; cpu++) {
		int head = ctr_rstat_take(r, cpu, n, CTR_RSTAT_WALK_UNLINK_SEQ);

		if (head >= 0) {
			r->heads[2 * detached] = cpu;
			r->heads[2 * detached++ + 1] = head;
		}
	}
	if (detached) {
		/* Registered at init; it cannot fail after a successful registration. */
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
		r->barriers++;
	}
	for (int i = 0; i < detached; i++)
		ctr_rstat_fold(r, r->heads[2 * i], r->heads[2 * i + 1]);
	r->prunes++;
}

/*
 * Flush n's subtree: after it, with no update in progress, every node under
 * n is exact.  Its duration, from taking the lock to releasing it, includes
 * any time spent getting the lock back after a lock break.
 */
static void ctr_rstat_flush(struct ctr_rstat *r, int n)
{
	uint64_t t0;

	ctr_rstat_lock(r);
	t0 = r->lock.t_acquired;
	/*
	 * Restart the threshold counts of what will be folded (memcg resets them
	 * per flush): count=global the total, on a flush from the root;
	 * count=memcg the shared count of every node of n's subtree.  From the
	 * reset until the last CPU is folded the counts understate what is
	 * pending, so a flag (memcg: each node's) tells threshold readers to
	 * flush (and so wait for this one) meanwhile.  The reset is done before any CPU is folded, by
	 * an exchange: a hand-in it erases happened before it (release, then
	 * acquire), so the folds that follow see the slot stores it counted;
	 * a hand-in after it stays counted.  A count read as 0 is left alone:
	 * a hand-in missed that way stays counted too (counting more only
	 * flushes sooner).  The owners' per-CPU counts are never reset here
	 * (the kernel does, racily): at most batch - 1 each, held back.
	 */
	if (r->count == CTR_RSTAT_COUNT_MEMCG) {
		/*
		 * The flag per node (beside its count, CTR_RSTAT_NU_FLUSHING): one
		 * global flag raised by every subtree flush made every threshold
		 * read flush while any flush ran, each raising it again: with 16
		 * threads charging, rstat_threshold became rstat_force.
		 */
		for (int i = r->sub_start[n]; i < r->sub_start[n + 1]; i++) {
			_Atomic int64_t *nu = &r->node_updates[(size_t)r->sub_nodes[i] * CTR_RSTAT_NU_STRIDE];

			atomic_fetch_add_explicit(&nu[CTR_RSTAT_NU_FLUSHING], 1, memory_order_seq_cst);
			if (atomic_load_explicit(nu, memory_order_relaxed))
				atomic_exchange_explicit(nu, 0, memory_order_seq_cst);
		}
	} else if (!n && r->count == CTR_RSTAT_COUNT_GLOBAL) {
		atomic_fetch_add_explicit(&r->root_flushing, 1, memory_order_seq_cst);
		atomic_exchange_explicit(&r->total, 0, memory_order_seq_cst);
	}
	if (r->fence == CTR_RSTAT_FENCE_MEMBARRIER) {
		uint64_t now = ctr_jiffies_ns();

		/*
		 * prune=flush: every flush (the kernel's read cost).  period: once
		 * a period at most, since the barrier cost 35 us on the KVM guest
		 * this was written on (IPIs); 0.25 us on a Firecracker one (issue 28).
		 */
		if (r->prune == CTR_RSTAT_PRUNE_FLUSH || now - r->last_prune_ns >= (uint64_t)r->period_ms * 1000000) {
			r->last_prune_ns = now;
			ctr_rstat_prune(r, n);
			goto done;
		}
	}
	for (int cpu = 0; cpu < r->base.nr_cpus; cpu++) {
		int head = r->fence == CTR_RSTAT_FENCE_MEMBARRIER ? ctr_rstat_take(r, cpu, n, CTR_RSTAT_WALK_KEEP) :
			   ctr_rstat_take(r, cpu, n, CTR_RSTAT_WALK_UNLINK_SEQ);

		if (head >= 0)
			ctr_rstat_fold(r, cpu, head);
		/*
		 * As the kernel does, after every CPU, where spin_needbreak() can be
		 * true (lockbreak=on, a preemptible kernel): do not make a waiter
		 * sit through them all.
		 */
		if (r->lockbreak == CTR_RSTAT_LOCKBREAK_ON && cpu + 1 < r->base.nr_cpus &&
		    ctr_rstat_lock_contended(&r->lock))
			ctr_rstat_lock_break(r);
	}
done:
	if (r->count == CTR_RSTAT_COUNT_MEMCG)
		for (int i = r->sub_start[n]; i < r->sub_start[n + 1]; i++)
			atomic_fetch_sub_explicit(&r->node_updates[(size_t)r->sub_nodes[i] * CTR_RSTAT_NU_STRIDE +
								   CTR_RSTAT_NU_FLUSHING], 1, memory_order_seq_cst);
	else if (!n && r->count == CTR_RSTAT_COUNT_GLOBAL)
		atomic_fetch_sub_explicit(&r->root_flushing, 1, memory_order_seq_cst);
	r->flushes++;
	ctr_hist_add(&r->flush_ns, ctr_rstat_ns(ctr_rstat_ticks() - t0));
	if (!n)
		atomic_store_explicit(&r->last_flush_ns, ctr_jiffies_ns(), memory_order_relaxed);
	ctr_rstat_unlock(r);
}

/* ---- reads that flush, per options=read=... ---- */

const char *const ctr_rstat_read_names[CTR_RSTAT_READ_NR] = { "spin", "mutex", "sem", "batch" };

/*
 * rstat_unified with read=spin, as it always was: one reader flushes from the
 * root; readers that find it flushing wait for it, yielding, and share it.
 * Returns 1 if this read did the flush, 0 if it shared another's.
 */
static int ctr_rstat_unified_flush(struct ctr_rstat *r, uint64_t *waited)
{
	uint64_t seq = atomic_load_explicit(&r->flush_seq, memory_order_acquire), t0;
	int idle = 0;

	if (atomic_compare_exchange_strong_explicit(&r->ongoing, &idle, 1, memory_order_acquire,
						    memory_order_relaxed)) {
		ctr_rstat_flush(r, 0);
		atomic_fetch_add_explicit(&r->flush_seq, 1, memory_order_release);
		atomic_store_explicit(&r->ongoing, 0, memory_order_release);
		return 1;
	}
	/* Not queueing on the lock: wait for the flush in progress to end. */
	t0 = ctr_rstat_now_ns();
	while (atomic_load_explicit(&r->ongoing, memory_order_acquire) &&
	       atomic_load_explicit(&r->flush_seq, memory_order_acquire) == seq)
		sched_yield();
	*waited += ctr_rstat_now_ns() - t0;
	return 0;
}

/* Take the waiter lock; time spent blocked on it is gate wait too (trylock first: free when idle). */
static void ctr_rstat_gate_lock(struct ctr_rstat_gate *g, uint64_t *waited)
{
	if (pthread_mutex_trylock(&g->mutex)) {
		uint64_t t0 = ctr_rstat_now_ns();

		pthread_mutex_lock(&g->mutex);
		*waited += ctr_rstat_now_ns() - t0;
	}
}

/*
 * Root flushes that one reader does for all (read=batch, and read=sem's
 * fallback).  They run one at a time, numbered in the order they start:
 * flush k started after every reader that saw started < k arrived.
 *
 * fresh (batch): the reader needs flush started + 1 as of its arrival, one
 * that had not begun when it arrived, so everything that completed before the
 * read began is folded by the time it returns: as fresh as a flush of its
 * own.  Not fresh (sem fallback): if a flush is running it needs only that
 * one, which may have folded some CPU before an update that completed before
 * the read began (the staleness Yosry's fallback accepts); if none is, it
 * does one.
 *
 * Waiting is asleep on done_cond, never spinning: with 64 readers on 2 CPUs a
 * spinning waiter would steal the flusher's CPU.  The waiter lock is not held
 * during the flush, so readers keep arriving and numbering themselves.
 * Returns 1 if this reader did a flush, 0 if another's served it.
 */
static int ctr_rstat_batch_flush(struct ctr_rstat *r, int fresh, uint64_t *waited)
{
	struct ctr_rstat_gate *g = &r->gate;
	uint64_t need;
	int flushed = 0;

	ctr_rstat_gate_lock(g, waited);
	need = g->started + (fresh || !g->running);
	while (g->done < need) {
		if (!g->running) {
			g->running = 1;
			g->started++;
			pthread_mutex_unlock(&g->mutex);
			ctr_rstat_flush(r, 0);
			ctr_rstat_gate_lock(g, waited);
			g->done++;
			g->running = 0;
			flushed = 1;
			pthread_cond_broadcast(&g->done_cond);
		} else {
			uint64_t t0 = ctr_rstat_now_ns();

			g->sleepers++;
			pthread_cond_wait(&g->done_cond, &g->mutex);	/* retaking the lock is in it */
			g->sleepers--;
			*waited += ctr_rstat_now_ns() - t0;
		}
	}
	pthread_mutex_unlock(&g->mutex);
	return flushed;
}

/*
 * read=sem: the semaphore's count is 1, as the kernel proposal's: the flush
 * lock admits one flusher at a time anyway, so a second holder would only
 * queue on that lock, the contention the gate exists to keep off it (and
 * with lock breaks would stretch the first holder's flush).  The timeout
 * bounds the wait for the gate; past it, the reader shares a root flush.
 */
#define CTR_RSTAT_SEM_TIMEOUT_NS 1000000L	/* 1 ms: down_timeout(..., msecs_to_jiffies(1)) */

static int ctr_rstat_sem_get(struct ctr_rstat *r, uint64_t *waited)
{
	struct timespec due;
	uint64_t t0;
	int ok;

	if (!sem_trywait(&r->gate.sem))
		return 1;
	t0 = ctr_rstat_now_ns();
	/* CLOCK_MONOTONIC: a wall-clock step must not stretch or cut the 1 ms */
	due = ctr_deadline_ns(CTR_RSTAT_SEM_TIMEOUT_NS);
	while ((ok = !sem_clockwait(&r->gate.sem, CLOCK_MONOTONIC, &due)) == 0 && errno == EINTR)
		;
	*waited += ctr_rstat_now_ns() - t0;
	return ok;
}

/* A read that its policy decided must flush n's subtree (n = 0: from the root). */
static void ctr_rstat_read_flush(struct ctr_rstat *r, int n)
{
	uint64_t waited = 0;	/* at the gate, over the whole read: one wait a read at most */
	int own = 1;		/* this read flushed for itself (else another's flush served it) */

	switch (r->read) {
	case CTR_RSTAT_READ_SPIN:
		if (r->policy == CTR_RSTAT_UNIFIED)
			own = ctr_rstat_unified_flush(r, &waited);
		else
			ctr_rstat_flush(r, n);
		break;
	case CTR_RSTAT_READ_MUTEX:
		if (pthread_mutex_trylock(&r->gate.user_mutex)) {
			uint64_t t0 = ctr_rstat_now_ns();

			pthread_mutex_lock(&r->gate.user_mutex);
			waited += ctr_rstat_now_ns() - t0;
		}
		ctr_rstat_flush(r, n);
		pthread_mutex_unlock(&r->gate.user_mutex);
		break;
	case CTR_RSTAT_READ_SEM:
		if (ctr_rstat_sem_get(r, &waited)) {
			ctr_rstat_flush(r, n);
			sem_post(&r->gate.sem);
		} else {
			atomic_fetch_add_explicit(&r->gate.sem_fallbacks, 1, memory_order_relaxed);
			own = ctr_rstat_batch_flush(r, 0, &waited);
		}
		break;
	default:
		own = ctr_rstat_batch_flush(r, 1, &waited);
		break;
	}
	/* counted once, as it returns (struct ctr_rstat_gate) */
	atomic_fetch_add_explicit(own ? &r->gate.reader_flushes : &r->gate.reads_shared, 1,
				  memory_order_relaxed);
	if (waited) {
		atomic_fetch_add_explicit(&r->gate.waits, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&r->gate.wait_ns, waited, memory_order_relaxed);
	}
}

int64_t __ctr_rstat_read(struct ctr_tree *t, int node, int stat)
{
	struct ctr_rstat *r = ctr_rstat_of(t);

	/*
	 * No shared counter before the policy decides: in the charge path reads
	 * are the hot path (the harness counts them); only reads that flush are
	 * counted, in ctr_rstat_read_flush.
	 */
	switch (r->policy) {
	case CTR_RSTAT_FORCE:
		ctr_rstat_read_flush(r, node);
		break;
	case CTR_RSTAT_RATELIMIT: {
		/* Only when the periodic flush is more than one full period late. */
		uint64_t last = atomic_load_explicit(&r->last_flush_ns, memory_order_relaxed);

		/* signed: a flush may store a later time than the clock read after the load */
		if ((int64_t)(ctr_jiffies_ns() - last) > 2 * (int64_t)r->period_ms * 1000000)
			ctr_rstat_read_flush(r, 0);
		break;
	}
	case CTR_RSTAT_THRESHOLD:
		/*
		 * The count first, then the flag: a reset this load missed was
		 * flagged before it.  memcg (mem_cgroup_flush_stats(memcg) since
		 * 6.8): the node's own count, and a flush of its subtree only;
		 * global (2023): the one total, and a flush from the root.
		 */
		if (r->count == CTR_RSTAT_COUNT_MEMCG) {
			_Atomic int64_t *nu = &r->node_updates[(size_t)node * CTR_RSTAT_NU_STRIDE];

			if (atomic_load_explicit(nu, memory_order_seq_cst) > r->threshold ||
			    atomic_load_explicit(&nu[CTR_RSTAT_NU_FLUSHING], memory_order_seq_cst))
				ctr_rstat_read_flush(r, node);
		} else if (atomic_load_explicit(&r->total, memory_order_seq_cst) > r->threshold ||
			   atomic_load_explicit(&r->root_flushing, memory_order_seq_cst)) {
			ctr_rstat_read_flush(r, 0);
		}
		break;
	case CTR_RSTAT_UNIFIED:
		ctr_rstat_read_flush(r, 0);
		break;
	}
	return atomic_load_explicit(&r->aggr[(size_t)node * t->nr_stats + stat], memory_order_relaxed);
}

static int64_t ctr_rstat_read_exact(struct ctr_tree *t, int node, int stat)
{
	struct ctr_rstat *r = ctr_rstat_of(t);

	ctr_rstat_flush(r, 0);
	return atomic_load_explicit(&r->aggr[(size_t)node * t->nr_stats + stat], memory_order_relaxed);
}

/* ---- the periodic flusher ---- */

static void *ctr_rstat_flusher_main(void *arg)
{
	struct ctr_rstat *r = arg;
	struct timespec due;

	pthread_mutex_lock(&r->stop_mutex);
	due = ctr_deadline_ns(0);
	while (!r->stop) {
		ctr_timespec_add_ns(&due, (uint64_t)r->period_ms * 1000000u);
		while (!r->stop && pthread_cond_timedwait(&r->stop_cond, &r->stop_mutex, &due) != ETIMEDOUT)
			;
		if (r->stop)
			break;
		pthread_mutex_unlock(&r->stop_mutex);
		ctr_rstat_flush(r, 0);
		pthread_mutex_lock(&r->stop_mutex);
	}
	pthread_mutex_unlock(&r->stop_mutex);
	return NULL;
}

static int ctr_rstat_start_flusher(struct ctr_rstat *r)
{
	pthread_condattr_t ca;
	int err;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	err = pthread_cond_init(&r->stop_cond, &ca);
	pthread_condattr_destroy(&ca);
	if (err)
		return -err;
	pthread_mutex_init(&r->stop_mutex, NULL);
	CTR_LOCK_ROLE(&r->stop_mutex, "flusher stop mutex");
	err = pthread_create(&r->flusher, NULL, ctr_rstat_flusher_main, r);
	if (err) {
		pthread_cond_destroy(&r->stop_cond);
		pthread_mutex_destroy(&r->stop_mutex);
		return -err;
	}
	r->flusher_running = 1;
	return 0;
}

static void ctr_rstat_stop_flusher(struct ctr_rstat *r)
{
	if (!r->flusher_running)
		return;
	pthread_mutex_lock(&r->stop_mutex);
	r->stop = 1;
	pthread_cond_signal(&r->stop_cond);
	pthread_mutex_unlock(&r->stop_mutex);
	pthread_join(r->flusher, NULL);
	pthread_cond_destroy(&r->stop_cond);
	pthread_mutex_destroy(&r->stop_mutex);
	r->flusher_running = 0;
}

/* ---- create / free ---- */

static int ctr_rstat_set_option(struct ctr_tree *t, const char *key, const char *value)
{
	struct ctr_rstat *r = ctr_rstat_of(t);

	if (!strcmp(key, "read")) {
		for (int i = 0; i < CTR_RSTAT_READ_NR; i++) {
			if (!strcmp(value, ctr_rstat_read_names[i])) {
				r->read = (enum ctr_rstat_read)i;
				return 0;
			}
		}
		return -EINVAL;
	}
	if (!strcmp(key, "update")) {
		if (!strcmp(value, "memcg"))
			r->update = CTR_RSTAT_UPDATE_MEMCG;
		else if (!strcmp(value, "plain") && t->algo != &ctr_algo_rstat_threshold)
			r->update = CTR_RSTAT_UPDATE_PLAIN;	/* rstat_threshold's reads need the counts */
		else
			return -EINVAL;
		return 0;
	}
	if (!strcmp(key, "threshold")) {
		if (!strcmp(value, "memcg"))
			r->thresh_kind = CTR_RSTAT_THRESHOLD_MEMCG;
		else if (!strcmp(value, "global"))
			r->thresh_kind = CTR_RSTAT_THRESHOLD_GLOBAL;
		else
			return -EINVAL;
		return 0;
	}
	if (!strcmp(key, "lockkind")) {
		if (!strcmp(value, "spin"))
			r->lock.kind = CTR_RSTAT_LOCK_SPIN;
		else if (!strcmp(value, "mutex"))
			r->lock.kind = CTR_RSTAT_LOCK_MUTEX;
		else if (!strcmp(value, "qspin"))
			r->lock.kind = CTR_RSTAT_LOCK_QSPIN;
		else
			return -EINVAL;
		return 0;
	}
	if (!strcmp(key, "prune")) {
		if (!strcmp(value, "period"))
			r->prune = CTR_RSTAT_PRUNE_PERIOD;
		else if (!strcmp(value, "flush"))
			r->prune = CTR_RSTAT_PRUNE_FLUSH;
		else
			return -EINVAL;
		return 0;
	}
	if (!strcmp(key, "cpulock")) {
		if (!strcmp(value, "linked"))
			r->cpulock = CTR_RSTAT_CPULOCK_LINKED;
		else if (!strcmp(value, "always"))
			r->cpulock = CTR_RSTAT_CPULOCK_ALWAYS;
		else
			return -EINVAL;
		return 0;
	}
	if (!strcmp(key, "lockbreak")) {
		if (!strcmp(value, "on"))
			r->lockbreak = CTR_RSTAT_LOCKBREAK_ON;
		else if (!strcmp(value, "off"))
			r->lockbreak = CTR_RSTAT_LOCKBREAK_OFF;
		else
			return -EINVAL;
		return 0;
	}
	if (strcmp(key, "fence"))
		return -ENOENT;
	if (!strcmp(value, "membarrier"))
		r->fence = CTR_RSTAT_FENCE_MEMBARRIER;
	else if (!strcmp(value, "update"))
		r->fence = CTR_RSTAT_FENCE_UPDATE;
	else if (!strcmp(value, "none"))
		r->fence = CTR_RSTAT_FENCE_NONE;
	else
		return -EINVAL;
	return 0;
}

/* One block per slot (on the slot's node if mapped): header, slots, last values, links; each part on its own lines. */
static size_t ctr_rstat_cpu_size(const struct ctr_tree *t, size_t *hdr, size_t *vals, size_t *links)
{
	const struct ctr_rstat *r = ctr_container_of(t, struct ctr_rstat, base);
	size_t words = (size_t)t->nr_nodes * t->nr_stats;
	size_t counts = r->count == CTR_RSTAT_COUNT_MEMCG ?
			CTR_ROUND_UP(t->nr_nodes * sizeof(int64_t), CTR_CACHELINE) : 0;

	*hdr = CTR_RSTAT_CPU_HDR;	/* the update computes the slots' address from it */
	*vals = CTR_ROUND_UP(words * sizeof(int64_t), CTR_CACHELINE);
	*links = CTR_ROUND_UP(t->nr_nodes * sizeof(struct ctr_rstat_link), CTR_CACHELINE);
	return *hdr + 2 * *vals + *links + counts;
}

static struct ctr_rstat_cpu *ctr_rstat_cpu_new(const struct ctr_tree *t, int cpu)
{
	size_t hdr, vals, links;
	struct ctr_rstat_cpu *c = ctr_alloc_slot_area(t, cpu, ctr_rstat_cpu_size(t, &hdr, &vals, &links));

	if (!c)
		return NULL;
	c->slot = (_Atomic int64_t *)((char *)c + hdr);
	c->last = (int64_t *)((char *)c + hdr + vals);
	c->link = (struct ctr_rstat_link *)((char *)c + hdr + 2 * vals);
	if (ctr_rstat_of((struct ctr_tree *)t)->count == CTR_RSTAT_COUNT_MEMCG)
		c->stats_updates = (int64_t *)((char *)c + hdr + 2 * vals + links);	/* zeroed */
	for (int n = 0; n < t->nr_nodes; n++) {
		atomic_init(&c->link[n].updated_next, CTR_RSTAT_OFF);
		c->link[n].updated_children = n;
	}
	pthread_mutex_init(&c->lock, NULL);
	CTR_LOCK_ROLE(&c->lock, "per-CPU link lock");
	return c;
}

static void ctr_rstat_fini(struct ctr_tree *t)
{
	struct ctr_rstat *r = ctr_rstat_of(t);

	ctr_rstat_stop_flusher(r);
	for (int cpu = 0; r->cpu && cpu < t->nr_cpus; cpu++) {
		if (!r->cpu[cpu])
			continue;
		size_t hdr, vals, links;

		pthread_mutex_destroy(&r->cpu[cpu]->lock);
		ctr_free_slot_area(t, r->cpu[cpu], ctr_rstat_cpu_size(t, &hdr, &vals, &links));
	}
	ctr_free(r->cpu);
	ctr_free(r->aggr);
	ctr_free(r->pending);
	ctr_free(r->stack);
	ctr_free(r->heads);
	ctr_free(r->node_updates);
	ctr_free(r->sub_start);
	ctr_free(r->sub_nodes);
	pthread_mutex_destroy(&r->lock.mutex);
	pthread_mutex_destroy(&r->gate.user_mutex);
	sem_destroy(&r->gate.sem);
	pthread_mutex_destroy(&r->gate.mutex);
	pthread_cond_destroy(&r->gate.done_cond);
}

/*
 * count=memcg: every node's shared count, a line each, and every node's
 * subtree as a list (node first), which a flush of it resets: each node
 * appears in the lists of its depth ancestors, as many ints as the
 * ancestor lists hold.  -ENOMEM on failure (the caller frees).
 */
static int ctr_rstat_subtrees(struct ctr_rstat *r)
{
	const struct ctr_tree *t = &r->base;
	int n = t->nr_nodes, *fill;
	size_t total = 0;

	r->node_updates = ctr_zalloc_aligned((size_t)n * CTR_RSTAT_NU_STRIDE * sizeof(int64_t));
	r->sub_start = ctr_calloc((size_t)n + 1, sizeof(int));
	for (int x = 0; x < n; x++)
		total += (size_t)t->depth[x];
	r->sub_nodes = ctr_malloc(total * sizeof(int));
	fill = ctr_calloc((size_t)n, sizeof(int));
	if (!r->node_updates || !r->sub_start || !r->sub_nodes || !fill) {
		ctr_free(fill);
		return -ENOMEM;
	}
	for (int x = 0; x < n; x++)
		for (const int *a = t->ancestors[x]; *a >= 0; a++)
			r->sub_start[*a + 1]++;
	for (int x = 0; x < n; x++)
		r->sub_start[x + 1] += r->sub_start[x];
	/* x ascending, parent[x] < x: a node comes first in its own list */
	for (int x = 0; x < n; x++)
		for (const int *a = t->ancestors[x]; *a >= 0; a++)
			r->sub_nodes[r->sub_start[*a] + fill[*a]++] = x;
	ctr_free(fill);
	return 0;
}

/* The update path and its counts from the options and the policy (init, and a footprint probe). */
static void ctr_rstat_resolve(struct ctr_rstat *r, enum ctr_rstat_policy policy)
{
	r->policy = policy;
	if (r->update == CTR_RSTAT_UPDATE_DEFAULT)
		r->update = policy == CTR_RSTAT_THRESHOLD ? CTR_RSTAT_UPDATE_MEMCG : CTR_RSTAT_UPDATE_PLAIN;
	if (r->update == CTR_RSTAT_UPDATE_PLAIN)
		r->count = CTR_RSTAT_COUNT_NONE;
	else
		r->count = r->thresh_kind == CTR_RSTAT_THRESHOLD_GLOBAL ? CTR_RSTAT_COUNT_GLOBAL :
			   CTR_RSTAT_COUNT_MEMCG;
}

static int ctr_rstat_init(struct ctr_tree *t, enum ctr_rstat_policy policy)
{
	struct ctr_rstat *r = ctr_rstat_of(t);
	size_t words = (size_t)t->nr_nodes * t->nr_stats;
	pthread_mutexattr_t ma;
	int err = -ENOMEM;

	ctr_rstat_resolve(r, policy);
	r->batch = t->batch ? t->batch : CTR_RSTAT_DEFAULT_BATCH;
	r->threshold = r->batch * t->nr_cpus;
	r->period_ms = t->flush_period_ms ? t->flush_period_ms : CTR_RSTAT_DEFAULT_PERIOD_MS;
	atomic_init(&r->last_flush_ns, ctr_jiffies_ns());
	pthread_once(&ctr_rstat_calib_once, ctr_rstat_calibrate);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(&r->lock.mutex, &ma);
	/*
	 * cgroup_rstat_lock, whichever kind lockkind= picked: the spin word
	 * (zero from the allocation) and the mutex share the kernel's name, so
	 * the projected lock table reads the same for both.
	 */
	CTR_LOCK_ROLE(&r->lock.locked, "flush lock");
	CTR_LOCK_ROLE(&r->lock.mutex, "flush lock");
	/* the reader mutex models a kernel mutex too (optimistic spinning, then sleep) */
	pthread_mutex_init(&r->gate.user_mutex, &ma);
	CTR_LOCK_ROLE(&r->gate.user_mutex, "user flush mutex");
	pthread_mutexattr_destroy(&ma);
	/* process-private, count 1 (see ctr_rstat_sem_get); cannot fail for these arguments */
	sem_init(&r->gate.sem, 0, 1);
	CTR_LOCK_ROLE(&r->gate.sem, "user flush sem");
	pthread_mutex_init(&r->gate.mutex, NULL);
	CTR_LOCK_ROLE(&r->gate.mutex, "waiter lock");
	pthread_cond_init(&r->gate.done_cond, NULL);

	/* read on every update: on lines of its own, shared with no written heap neighbour */
	r->cpu = ctr_zalloc_aligned(t->nr_cpus * sizeof(*r->cpu));
	r->aggr = ctr_zalloc_aligned(words * sizeof(*r->aggr));
	r->pending = ctr_calloc(words, sizeof(*r->pending));
	r->stack = ctr_malloc(sizeof(int) * t->nr_nodes);
	r->heads = ctr_malloc(2 * sizeof(int) * t->nr_cpus);
	if (!r->cpu || !r->aggr || !r->pending || !r->stack || !r->heads)
		goto fail;
	if (r->count == CTR_RSTAT_COUNT_MEMCG && ctr_rstat_subtrees(r))
		goto fail;
	/*
	 * fence=membarrier needs the process registered for expedited private
	 * barriers (idempotent); where the kernel refuses (too old, seccomp),
	 * the instance falls back to fence=update, exact at the update's cost.
	 */
	if (r->fence == CTR_RSTAT_FENCE_MEMBARRIER &&
	    syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0))
		r->fence = CTR_RSTAT_FENCE_UPDATE;
	r->last_prune_ns = ctr_jiffies_ns();
	r->plain = r->fence != CTR_RSTAT_FENCE_UPDATE && r->count == CTR_RSTAT_COUNT_NONE;
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		r->cpu[cpu] = ctr_rstat_cpu_new(t, cpu);
		if (!r->cpu[cpu]) {
			err = errno ? -errno : -ENOMEM;
			goto fail;
		}
	}
	if (policy == CTR_RSTAT_RATELIMIT || policy == CTR_RSTAT_THRESHOLD) {
		err = ctr_rstat_start_flusher(r);
		if (err)
			goto fail;
	}
	return 0;
fail:
	ctr_rstat_fini(t);
	return err;
}

static int64_t ctr_rstat_error_bound(const struct ctr_tree *t)
{
	const struct ctr_rstat *r = ctr_container_of(t, struct ctr_rstat, base);

	if (r->fence == CTR_RSTAT_FENCE_NONE)
		return -1;	/* a stranded delta waits for its node's next update */
	/*
	 * read=sem's fallback can return a flush that began before the read did,
	 * missing any number of updates that completed meanwhile: a time bound.
	 */
	if (r->read == CTR_RSTAT_READ_SEM)
		return -1;
	switch (r->policy) {
	case CTR_RSTAT_FORCE:
		return 0;
	case CTR_RSTAT_THRESHOLD:
		/*
		 * A read that does not flush found its count <= batch x nr_cpus
		 * (global: the total; memcg: the node's own, which every update
		 * under it reaches or was skipped while the count was over the
		 * threshold, so over it still), and every CPU holds back less
		 * than batch of |delta| (per node, memcg): what is not folded is
		 * less than 2 x batch x nr_cpus in absolute value (memcg: under
		 * that node).
		 */
		return 2 * r->batch * t->nr_cpus;
	case CTR_RSTAT_UNIFIED:
		/*
		 * spin: a shared flush may predate the read.  mutex: the reader's
		 * own root flush.  batch: a root flush that started after the read
		 * did.  Either way everything completed before the read is folded.
		 */
		return r->read == CTR_RSTAT_READ_SPIN ? -1 : 0;
	default:
		/* ratelimit: until the next periodic flush */
		return -1;
	}
}

/*
 * The time bounds behind error_bound's -1 (docs/algorithms.md): ratelimit
 * reads without flushing until the periodic flush is a full period late,
 * so a value can be 2 periods old; unified with read=spin, and read=sem's
 * fallback, can return a flush that began before the read: one flush old;
 * fence=none strands a delta until its node's next update, which may never
 * come.
 */
static double ctr_rstat_staleness_ms(const struct ctr_tree *t, double flush_ms, char *why, size_t len)
{
	const struct ctr_rstat *r = ctr_container_of(t, struct ctr_rstat, base);

	if (r->fence == CTR_RSTAT_FENCE_NONE) {
		snprintf(why, len, "unbounded (fence=none: a stranded delta waits for its node's next update)");
		return CTR_STALE_UNBOUNDED;
	}
	if (r->policy == CTR_RSTAT_RATELIMIT) {
		snprintf(why, len, "stale by <= %d ms (2 x %d ms flush period)", 2 * r->period_ms, r->period_ms);
		return 2.0 * r->period_ms;
	}
	if (flush_ms < 0) {
		snprintf(why, len, "stale by <= one flush (no flush measured)");
		return CTR_STALE_UNKNOWN;
	}
	snprintf(why, len, "stale by <= one flush (longest measured %.3f ms)", flush_ms);
	return flush_ms;
}

static void ctr_rstat_flush_stats(struct ctr_tree *t, struct ctr_flush_stats *out, int reset)
{
	struct ctr_rstat *r = ctr_rstat_of(t);

	/* The raw lock: reading the figures must not count in them. */
	ctr_rstat_raw_lock(&r->lock);
	out->flushes = r->flushes;
	out->lock_breaks = r->lock_breaks;
	out->lock_acquisitions = r->lock.acquisitions;
	out->lock_contended = r->lock.contended;
	out->lock_wait_ns = ctr_rstat_ns(r->lock.wait_ns);
	out->lock_hold_ns = ctr_rstat_ns(r->lock.hold_ns);
	out->flush_ns = r->flush_ns;
	/* Reads bump these outside the lock: taken (and zeroed) one by one. */
#define CTR_RSTAT_TAKE(f) (reset ? atomic_exchange_explicit(&r->gate.f, 0, memory_order_relaxed) \
				 : atomic_load_explicit(&r->gate.f, memory_order_relaxed))
	out->reader_flushes = CTR_RSTAT_TAKE(reader_flushes);
	out->reads_shared = CTR_RSTAT_TAKE(reads_shared);
	out->reads_flush = out->reader_flushes + out->reads_shared;
	out->reader_waits = CTR_RSTAT_TAKE(waits);
	out->reader_wait_ns = CTR_RSTAT_TAKE(wait_ns);
	out->sem_fallbacks = CTR_RSTAT_TAKE(sem_fallbacks);
#undef CTR_RSTAT_TAKE
	if (reset) {
		r->flushes = r->lock_breaks = 0;
		r->lock.acquisitions = r->lock.contended = 0;
		r->lock.wait_ns = r->lock.hold_ns = 0;
		ctr_hist_reset(&r->flush_ns);
	}
	ctr_rstat_raw_unlock(&r->lock);
}

/* The shared arrays and every slot's block (ctr_rstat_cpu_size), of a probe with policy. */
static size_t ctr_rstat_footprint(struct ctr_tree *t, enum ctr_rstat_policy policy)
{
	struct ctr_rstat *r = ctr_rstat_of(t);
	size_t words = (size_t)t->nr_nodes * t->nr_stats, hdr, vals, links, b, anc = 0;

	ctr_rstat_resolve(r, policy);
	b = ctr_alloc_footprint((size_t)t->nr_cpus * sizeof(*r->cpu));
	b = ctr_size_add(b, 2 * ctr_alloc_footprint(ctr_size_mul(words, sizeof(int64_t))));
	b = ctr_size_add(b, ctr_alloc_footprint((size_t)t->nr_nodes * sizeof(int)));
	b = ctr_size_add(b, ctr_alloc_footprint(2 * (size_t)t->nr_cpus * sizeof(int)));
	if (r->count == CTR_RSTAT_COUNT_MEMCG) {	/* ctr_rstat_subtrees: counts, list starts, lists */
		for (int x = 0; x < t->nr_nodes; x++)
			anc += (size_t)t->depth[x];
		b = ctr_size_add(b, ctr_alloc_footprint(ctr_size_mul((size_t)t->nr_nodes * CTR_RSTAT_NU_STRIDE,
								     sizeof(int64_t))));
		b = ctr_size_add(b, ctr_alloc_footprint(((size_t)t->nr_nodes + 1) * sizeof(int)));
		b = ctr_size_add(b, ctr_alloc_footprint(ctr_size_mul(anc, sizeof(int))));
	}
	return ctr_size_add(b, ctr_slot_areas_footprint(t, ctr_rstat_cpu_size(t, &hdr, &vals, &links)));
}

/*
 * One slot's area (ctr_rstat_cpu_size): the header (its link lock), the
 * slots, their last folded values, the links, memcg's counts, each part on
 * lines of its own.
 */
static int ctr_rstat_layout_cpu(const struct ctr_layout_sink *s, const struct ctr_rstat_cpu *c, int cpu)
{
	const struct ctr_tree *t = s->t;
	size_t hdr, vals, links, size = ctr_rstat_cpu_size(t, &hdr, &vals, &links);
	size_t stats = (size_t)t->nr_stats * sizeof(int64_t), n = (size_t)t->nr_nodes;
	const char *b = (const char *)c;
	int err = ctr_emit(s, b, hdr, -1, cpu, -1, "the slot's header (its link lock)");

	if (!err)
		err = ctr_emit_nodes(s, b + hdr, stats, NULL, cpu, "the slot's stats");
	if (!err)
		err = ctr_emit_pad(s, b + hdr, n * stats, vals, cpu);
	if (!err)
		err = ctr_emit_nodes(s, b + hdr + vals, stats, NULL, cpu, "the slot's stats as last folded");
	if (!err)
		err = ctr_emit_pad(s, b + hdr + vals, n * stats, vals, cpu);
	if (!err)
		err = ctr_emit_nodes(s, b + hdr + 2 * vals, sizeof(struct ctr_rstat_link), NULL, cpu,
				     "the slot's updated-tree link");
	if (!err)
		err = ctr_emit_pad(s, b + hdr + 2 * vals, n * sizeof(struct ctr_rstat_link), links, cpu);
	if (!err && c->stats_updates) {
		err = ctr_emit_nodes(s, c->stats_updates, sizeof(int64_t), NULL, cpu, "the slot's memcg update count");
		if (!err)
			err = ctr_emit_pad(s, c->stats_updates, n * sizeof(int64_t), size - hdr - 2 * vals - links, cpu);
	}
	return err;
}

/* The instance (lock, counts and gates named), the slots' areas, the flushed values, the flush's scratch. */
static int ctr_rstat_layout(struct ctr_tree *t, const struct ctr_layout_sink *s)
{
	struct ctr_rstat *r = ctr_rstat_of(t);
	static const struct ctr_span spans[] = {
		CTR_SPAN(struct ctr_rstat, lock, "the flush lock"),
		{ offsetof(struct ctr_rstat, flushes), offsetof(struct ctr_rstat, total) - offsetof(struct ctr_rstat, flushes),
		  "the flush counts (under the flush lock)" },
		{ offsetof(struct ctr_rstat, total), offsetof(struct ctr_rstat, ongoing) - offsetof(struct ctr_rstat, total),
		  "threshold=global: the shared |delta| total" },
		{ offsetof(struct ctr_rstat, ongoing), offsetof(struct ctr_rstat, gate) - offsetof(struct ctr_rstat, ongoing),
		  "the unified flush in progress and the last flush's time" },
		CTR_SPAN(struct ctr_rstat, gate, "the readers' gate (read=...)"),
	};
	size_t n = (size_t)t->nr_nodes, stats = (size_t)t->nr_stats * sizeof(int64_t);
	int err = ctr_emit_instance(s, spans, (int)(sizeof(spans) / sizeof(spans[0])));

	if (!err)
		err = ctr_emit(s, r->cpu, (size_t)t->nr_cpus * sizeof(*r->cpu), -1, -1, -1, "the slots' area pointers");
	for (int cpu = 0; !err && cpu < t->nr_cpus; cpu++)
		err = ctr_rstat_layout_cpu(s, r->cpu[cpu], cpu);
	if (!err)
		err = ctr_emit_nodes(s, r->aggr, stats, NULL, -1, "the node's flushed value");
	if (!err)
		err = ctr_emit_nodes(s, r->pending, stats, NULL, -1, "the node's pending from flushed children");
	if (!err)
		err = ctr_emit(s, r->stack, n * sizeof(int), -1, -1, -1, "the flush's walk stack");
	if (!err)
		err = ctr_emit(s, r->heads, 2 * sizeof(int) * (size_t)t->nr_cpus, -1, -1, -1, "a prune's detached lists");
	if (!err && r->node_updates)
		err = ctr_emit_nodes(s, r->node_updates, CTR_RSTAT_NU_STRIDE * sizeof(int64_t), NULL, -1,
				     "the node's shared update count (memcg)");
	if (!err && r->sub_start) {
		size_t total = 0;

		for (int x = 0; x < t->nr_nodes; x++)
			total += (size_t)t->depth[x];
		err = ctr_emit(s, r->sub_start, (n + 1) * sizeof(int), -1, -1, -1, "the subtrees' starts");
		if (!err)
			err = ctr_emit(s, r->sub_nodes, total * sizeof(int), -1, -1, -1, "the subtrees' nodes");
	}
	return err;
}

#define CTR_RSTAT_ALGO(algo, policy, text)					\
static int ctr_##algo##_init(struct ctr_tree *t)				\
{										\
	return ctr_rstat_init(t, policy);					\
}										\
static size_t ctr_##algo##_footprint(struct ctr_tree *t)			\
{										\
	return ctr_rstat_footprint(t, policy);					\
}										\
const struct ctr_algo ctr_algo_##algo = {					\
	.name = #algo,								\
	.summary = text,							\
	.flags = CTR_CHARGE_RACY | CTR_PERIODIC_FLUSH,				\
	.size = sizeof(struct ctr_rstat),					\
	.set_option = ctr_rstat_set_option,					\
	.init = ctr_##algo##_init,						\
	.fini = ctr_rstat_fini,							\
	.footprint = ctr_##algo##_footprint,					\
	.layout = ctr_rstat_layout,						\
	.add = ctr_##algo##_add,						\
	.read = __ctr_rstat_read,						\
	.read_exact = ctr_rstat_read_exact,					\
	.try_charge = ctr_##algo##_try_charge,					\
	.error_bound = ctr_rstat_error_bound,					\
	.staleness_ms = ctr_rstat_staleness_ms,					\
	.flush_stats = ctr_rstat_flush_stats,					\
};

CTR_RSTAT_ALGO(rstat_force, CTR_RSTAT_FORCE,
	       "rstat (a): per-CPU deltas + updated trees; every read flushes its subtree under the global lock")
CTR_RSTAT_ALGO(rstat_ratelimit, CTR_RSTAT_RATELIMIT,
	       "rstat (b): periodic flusher (2 s); reads flush only if it is a full period late; stale by time")
CTR_RSTAT_ALGO(rstat_threshold, CTR_RSTAT_THRESHOLD,
	       "rstat: reads flush only when pending |delta| exceeds batch x CPUs (+ periodic); bounded error")
CTR_RSTAT_ALGO(rstat_unified, CTR_RSTAT_UNIFIED,
	       "rstat: reads flush from the root; a read finding a flush in progress waits and shares it")
