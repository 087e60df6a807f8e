/* SPDX-License-Identifier: MIT */
/*
 * rstat - the kernel's cgroup rstat machinery (kernel/cgroup/rstat.c) with
 * memcg's flushing policies (mm/memcontrol.c), designs (a) and (b) of the
 * seed thread, in user space.  One mechanism, four registered algorithms:
 *
 *   rstat_force      every read flushes the node's subtree (design (a))
 *   rstat_ratelimit  a periodic flusher; reads flush only when it is more than
 *                    one period late (design (b), ..._flush_stats_ratelimited)
 *   rstat_threshold  reads flush only when enough |delta| is pending
 *                    (memcg_vmstats_needs_flush), plus the periodic flusher
 *   rstat_unified    reads flush from the root; one finding a flush in
 *                    progress waits for it and shares its result
 *
 * Update: add the delta to the caller's slot of that node only (load and
 * store, no RMW, no ancestor walk), then, unless the node is already on this
 * CPU's "updated" tree, link it and its ancestors up to the first linked one
 * (updated_children / updated_next, under a per-CPU lock that only the owner
 * and a flusher take).  Flush of n: under the global flush lock, for every
 * CPU detach the updated subtree under n, then children before parents fold
 * each node's per-CPU delta (slot minus the value seen at the last fold) and
 * its pending delta from flushed children into its aggregated value and into
 * its parent's pending delta.  Read: the aggregated value.
 *
 * Why a per-CPU mutex and not a lock-free list: the owner takes it only on
 * the first update of a node after a flush detached it, which is rare in a
 * steady state; a lock keeps the detach of a whole subtree (unlink from the
 * parent, walk, reset) one critical section, which a lock-free list (the
 * kernel's newer llist) can only approximate by re-walking.
 *
 * The one ordering hazard: the owner stores the slot and then loads its
 * node's updated_next to see whether it is linked; a flusher unlinks and then
 * loads the slot.  That is the store-buffering pattern: without a StoreLoad
 * barrier on both sides, both loads can see the old values, the flusher
 * folds a stale slot and the owner skips relinking, stranding the delta until
 * the node's next update.  The kernel accepts that ("temporary
 * inaccuracies"; since its llist rewrite, css_process_update_tree() says an
 * smp_mb() there, paired with one before css_rstat_updated(), would be needed
 * "if the guarantee is required", and adds neither).  An exact
 * ctr_read_exact cannot.  options=fence=...:
 *   membarrier  (default) updates are the kernel's plain movs; flushes do
 *           not unlink.  A flush walks each CPU's linked subtree and folds
 *           slot - last, leaving every node linked; at most once per period
 *           (period_ms, 2 s by default) a flush prunes instead: it detaches
 *           the subtree on every CPU (unlinking it), calls
 *           membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) once, then folds
 *           what it detached.  Proof that no completed update is lost:
 *           (1) a flush that does not prune unlinks nothing, so an owner
 *           that found its node linked finds it still linked at every later
 *           flush, and every flush loads its slot after the update completed
 *           (a read that must see the update happens after it; the link
 *           walk is under the CPU's lock, which the owner's linking took);
 *           (2) a prune: the kernel makes every thread of the process that
 *           is running execute a full barrier during the call, and a thread
 *           that is not running passes one when it is next scheduled; so for
 *           the owner's store S of the slot and load L of updated_next,
 *           either the owner's barrier point falls after S, and S is visible
 *           when membarrier returns, before the prune's slot load; or it
 *           falls before S, hence before L, and after the prune's unlink
 *           store U (which precedes the call), so L sees U: the owner finds
 *           the node unlinked and relinks it, and the next flush folds it.
 *           Either way the delta is folded; no outcome has both loads old.
 *           The owner keeps L after S in program order by a compiler-only
 *           fence: x86-64 (and arm64) then need no instruction on its side.
 *           A membarrier cost 35 us on the 2-vCPU KVM guest this was built
 *           on (IPIs; 0.25 us on a Firecracker guest, issue 28): one per
 *           period, not per flush, is what makes this cheap.  The price
 *           is the read's: a flush of n costs one check per CPU plus every
 *           node under n that any CPU updated since the last prune that
 *           covered it, not only since the last flush (the kernel's), since
 *           nothing else unlinks; prunes come at most once a period, of the
 *           subtree flushed then, so a node can stay linked longer than a
 *           period.  After each of 1024 slots updated a node once, every root
 *           read until the next prune folds 1024 (idle) lists (issue 28: 25
 *           us against 3.9 for a clean one).  options=prune=flush is the
 *           kernel's read instead: every flush is a prune, so it unlinks what
 *           it folded and the next one walks only what was updated since;
 *           the price moves to a membarrier for each flush that unlinked
 *           anything (a flush that found nothing linked needs none: it
 *           stored no unlink) and to the update, whose first one of a node
 *           after each flush relinks it, as in the kernel.  A kernel refusing
 *           the registration (old, seccomp) gets fence=update.
 *   update  the slot store and the linked check are seq_cst, as are the
 *           flusher's unlink and slot load (an xchg in the update on
 *           x86-64), and every flush unlinks: exact at 7 ns more per update
 *           (issue 13).
 *   none    the kernel's behaviour: a delta can be stranded until the next
 *           update of that node on that CPU, so reads are not exact (error
 *           bound -1) and the exactness tests do not apply.
 *
 * Reader-side serialization, options=read=...: how a read that its policy
 * decided must flush (force: always, its subtree; ratelimit: when the
 * periodic flush is late; threshold: when enough is pending; unified: always,
 * from the root) gets that flush done.  The options of seed 004's thread:
 *   spin   (default) as the policies always did: the reader takes the global
 *          flush lock itself (rstat_unified: shares a reader's flush in
 *          progress, yielding until it ends).  Wei Xu's "mutex removed,
 *          readers contend directly on cgroup_rstat_lock".
 *   mutex  the reader takes a reader mutex, then the flush lock: readers
 *          queue on their own mutex and at most one of them competes with
 *          other flushers (patch 4/4 v4, stats_user_flush_mutex).  As fresh
 *          as spin; every read still pays for a flush, now one at a time.
 *   sem    the reader tries a semaphore of count 1 for 1 ms; holding it, it
 *          flushes as spin; timed out, it falls back to a unified flush: it
 *          waits (asleep) for the root flush in progress and uses its result,
 *          or does one if none is.  That flush may have started before the
 *          reader arrived and folded a CPU before an update the reader saw
 *          complete: stale by up to one flush (Yosry Ahmed's down_timeout()
 *          proposal).  Error bound -1 where the policy's was a count.
 *   batch  the reader records the flush sequence at arrival; if no flush of
 *          the batch is running it flushes from the root for everyone,
 *          otherwise it sleeps until a flush that STARTED after its arrival
 *          has completed (Tejun Heo's "at least one flush since the read
 *          attempt started").  So the read is as fresh as a flush of its own:
 *          it keeps the policy's bound (and gives rstat_unified a bound of 0),
 *          while most readers never flush.
 * Update paths and the periodic flusher are the same for all four, and the
 * state the strategies add sits on lines of its own (struct ctr_rstat_gate).
 */
#ifndef CTR_RSTAT_H
#define CTR_RSTAT_H

#include <pthread.h>
#include <semaphore.h>

#include "ctr_internal.h"
#include "hist.h"
#include "rstat_tree.h"	/* struct ctr_rstat_link, CTR_RSTAT_OFF: the updated trees */

enum ctr_rstat_policy { CTR_RSTAT_FORCE, CTR_RSTAT_RATELIMIT, CTR_RSTAT_THRESHOLD, CTR_RSTAT_UNIFIED };
/* options=fence=...; the zero of a fresh instance is the default, membarrier. */
enum ctr_rstat_fence { CTR_RSTAT_FENCE_MEMBARRIER, CTR_RSTAT_FENCE_UPDATE, CTR_RSTAT_FENCE_NONE };
/*
 * options=prune=period|flush, which flushes of fence=membarrier unlink
 * (fence=update and none unlink at every flush whatever it says):
 *   period  (default) a flush prunes at most once a period, the others
 *           leave every node linked: a membarrier per period, and a read
 *           walks every node updated since the last prune.
 *   flush   every flush prunes: a read walks only what was updated since
 *           the last flush (the kernel's cgroup_rstat_updated_list(), which
 *           pops what it returns), for a membarrier per flush that unlinked
 *           anything.  A prune has no lock break (ctr_rstat_prune says why),
 *           so neither has any flush of this mode.
 */
enum ctr_rstat_prune { CTR_RSTAT_PRUNE_PERIOD, CTR_RSTAT_PRUNE_FLUSH };
/*
 * options=lockbreak=on|off: whether a flush drops the flush lock between
 * CPUs for a waiter (struct ctr_rstat_lock).  on (default): the kernel's
 * cgroup_rstat_flush_locked() on a preemptible kernel, "if (need_resched()
 * || spin_needbreak(&cgroup_rstat_lock))"; off: a non-preemptible one,
 * where spin_needbreak() is 0 (include/linux/sched.h: "#ifdef
 * CONFIG_PREEMPTION return spin_is_contended(lock); #else return 0"; since
 * c793a62823d1, 2024, include/linux/spinlock.h: "if
 * (!preempt_model_preemptible()) return 0", the boot-time model), so a
 * waiter sits through the whole flush (need_resched(), its other test, has
 * no user-space equivalent either way).
 */
enum ctr_rstat_lockbreak { CTR_RSTAT_LOCKBREAK_ON, CTR_RSTAT_LOCKBREAK_OFF };
/*
 * options=cpulock=linked|always: whether a flush takes the link lock of a
 * CPU where the node it flushes is not linked.  linked (default): it looks
 * first (a seq_cst load of the node's link) and skips a clean CPU without
 * taking (and dirtying) its lock, ctrbench's own.  always: the kernel's,
 * cgroup_rstat_flush_locked() taking every possible CPU's
 * cgroup_rstat_cpu_lock before it pops that CPU's updated list (v4.18 to
 * v6.7; cgroup_rstat_updated_list() since still takes it before its
 * "not on-list" test), so a flush of a clean subtree still moves one lock
 * line per CPU, each last written by the previous flusher.
 */
enum ctr_rstat_cpulock { CTR_RSTAT_CPULOCK_LINKED, CTR_RSTAT_CPULOCK_ALWAYS };
/*
 * options=update=plain|memcg and threshold=memcg|global, resolved at init
 * into what the update counts for the flush threshold:
 *   none    update=plain (default but for rstat_threshold): cgroup_rstat_updated()
 *           only, the generic rstat update (the cpu and io controllers').
 *   memcg   update=memcg with threshold=memcg (the default pair, and
 *           rstat_threshold's default): memcg_rstat_updated() as of 6.8 (Yosry
 *           Ahmed's per-memcg threshold, the kernel seed 000 patches): the
 *           update walks the node and its ancestors, adding |delta| to each
 *           one's per-CPU stats_updates; a level whose count reaches the batch
 *           hands it to the level's shared stats_updates (an atomic add,
 *           skipped if that level is already over the threshold) and restarts
 *           it.  So the update's cost grows with depth, as in the seed's
 *           no-limit table.  rstat_threshold then reads node n flushing n's
 *           subtree only, when n's own shared count exceeds batch x CPUs.
 *   global  update=memcg with threshold=global: as 6.1-6.7 (2023): one per-CPU
 *           count, no walk, handed to one shared total; rstat_threshold reads
 *           flush from the root when the total exceeds batch x CPUs.
 * rstat_threshold needs the counts: it refuses update=plain.
 */
enum ctr_rstat_update { CTR_RSTAT_UPDATE_DEFAULT, CTR_RSTAT_UPDATE_PLAIN, CTR_RSTAT_UPDATE_MEMCG };
enum ctr_rstat_threshold { CTR_RSTAT_THRESHOLD_MEMCG, CTR_RSTAT_THRESHOLD_GLOBAL };
enum ctr_rstat_count { CTR_RSTAT_COUNT_NONE, CTR_RSTAT_COUNT_MEMCG, CTR_RSTAT_COUNT_GLOBAL };
/* options=read=...; the zero of a fresh instance is the default, spin. */
enum ctr_rstat_read { CTR_RSTAT_READ_SPIN, CTR_RSTAT_READ_MUTEX, CTR_RSTAT_READ_SEM, CTR_RSTAT_READ_BATCH,
		      CTR_RSTAT_READ_NR };
/* Their option values, indexed by enum ctr_rstat_read: a harness can iterate them. */
extern const char *const ctr_rstat_read_names[CTR_RSTAT_READ_NR];

#define CTR_RSTAT_DEFAULT_PERIOD_MS 2000	/* the kernel's FLUSH_TIME, 2 s */
#define CTR_RSTAT_DEFAULT_BATCH 64	/* MEMCG_CHARGE_BATCH */
/* Where a slot area's slots begin: its header, rounded to a line (rstat.c lays it out so). */
#define CTR_RSTAT_CPU_HDR CTR_ROUND_UP(sizeof(struct ctr_rstat_cpu), CTR_CACHELINE)
#define CTR_RSTAT_NU_STRIDE (CTR_CACHELINE / sizeof(int64_t))	/* node_updates: one line per node */
#define CTR_RSTAT_NU_FLUSHING 1	/* ... whose second word counts the flushes under way that reset it */

/*
 * One slot's area: allocated on its own, every part starting a fresh line,
 * so that a flusher taking the lock does not dirty the line the owner reads
 * on every update, nor the owner's threshold count the line a flusher reads.
 */
struct ctr_rstat_cpu {
	_Atomic int64_t *slot;		/* [node * nr_stats + stat]; only the owner writes (own lines) */
	int64_t *last;			/* slot as of the last fold; under flush lock */
	struct ctr_rstat_link *link;	/* [node] */
	pthread_mutex_t lock __ctr_aligned;	/* guards link[]: the owner to link, a flusher to detach */
	int64_t pending_abs __ctr_aligned;	/* count=global: |delta| not yet in the total; owner only */
	int64_t *stats_updates;		/* count=memcg: [node] |delta| not yet handed to the node's
					 * shared count; owner only (own lines), never reset by a flusher */
};

/*
 * The global flush lock and what it costs (the figures of 001_1254a0fcae606091.txt).
 * options=lockkind=spin (default) is the kernel's cgroup_rstat_lock: a
 * spinlock taken with irqs off, whose waiters spin, so waiting is CPU time.
 * Here a test-and-test-and-set lock with a count of the threads waiting for
 * it; "the count is not zero" is spin_needbreak()'s test (a qspinlock with
 * a waiter queued or pending).  The flush loop's lock break is the kernel's:
 * release, cpu_relax(), retake (lockbreak=on, the default; off: never, as
 * spin_needbreak() on a non-preemptible kernel).  A queued spinlock hands the lock to its
 * waiter on release; this one is not fair, so the breaking flusher pauses
 * until a waiter has taken it, at most CTR_RSTAT_HANDOFF_NS, then
 * queues.  Why not a FIFO (ticket) lock, fair like the kernel's: the
 * kernel's holder and waiters cannot be preempted (irqs off), ours can (16
 * threads on 2 CPUs in the tests), and a FIFO lock whose next waiter is
 * preempted stalls everyone until it runs again: every lock break became a
 * context switch and test_mt_charge's rstat_force went from seconds to over
 * 5 minutes.  An unfair lock lets whoever is running take it.  For the same
 * reason a waiter that has spun CTR_RSTAT_SPIN_BUDGET pauses also calls
 * sched_yield() every 16 checks, which returns at once when nothing else is
 * runnable, leaving the wait CPU time as in the kernel (with more threads
 * than CPUs, time given to others is not).  need_resched() has no user-space
 * equivalent: the OS preempts a long flush instead.
 * options=lockkind=mutex: an adaptive pthread mutex (spins briefly, then
 * sleeps: the time asleep is not CPU time), what the model used before;
 * unfair, so its lock break yields until a waiter got in.
 * options=lockkind=qspin: the kernel's queued spinlock in outline: the
 * first waiter spins on the lock word, every later one on a node of its
 * own (MCS: a line per waiter, so a release moves the lock word to one
 * spinner, not to all of them), and the queue is FIFO.  It does not yield:
 * a waiter preempted in the queue stalls everyone behind it, which a kernel
 * spinlock (preemption off) never sees and a machine with more threads than
 * CPUs does; that is what the projection models (its scheduler keeps a
 * spinning kernel thread on its CPU) and what a run with a CPU per thread
 * measures.  The node comes from malloc on the contended path only (no
 * node: the waiter spins on the word as lockkind=spin does).
 */
enum ctr_rstat_lockkind { CTR_RSTAT_LOCK_SPIN, CTR_RSTAT_LOCK_MUTEX, CTR_RSTAT_LOCK_QSPIN };

/* lockkind=qspin: one waiter's place in the queue, on a line of its own. */
struct ctr_rstat_qnode {
	_Atomic(struct ctr_rstat_qnode *) next;	/* the waiter queued behind this one, NULL none yet */
	_Atomic int wait;			/* 1 until the waiter ahead has made this one the queue's head */
};
#define CTR_RSTAT_SPIN_BUDGET 1024	/* pauses before a waiter starts yielding (tens of us here) */
#define CTR_RSTAT_HANDOFF_NS 5000	/* how long a lock break waits for a spinning waiter to take it
					 * (a pause is a few cycles on this Zen: a count of them is ~0.3 us) */

struct ctr_rstat_lock {
	enum ctr_rstat_lockkind kind;	/* options=lockkind=...; read-only after init */
	_Atomic int locked;		/* spin: 1 while held */
	pthread_mutex_t mutex;		/* mutex: adaptive, spins briefly, then sleeps */
	_Atomic int waiters;		/* threads waiting for it: a flusher drops it between CPUs if > 0
					 * (lockbreak=on) */
	_Atomic(struct ctr_rstat_qnode *) tail;	/* qspin: the last waiter queued, NULL none (the lock word's line) */
	/*
	 * The rest is written by the holder only, on a line of its own: a
	 * holder's figures on the lock word's line would move it to the
	 * holder at every acquisition, under every spinner (the kernel's
	 * lock word carries none).
	 */
	_Alignas(CTR_CACHELINE) uint64_t acquisitions;	/* times taken */
	uint64_t contended;		/* times taken after waiting */
	uint64_t wait_ns;		/* total time spent waiting for it, in TSC ticks (ns when read out) */
	uint64_t hold_ns;		/* total time it was held, in TSC ticks */
	uint64_t t_acquired;		/* when the current holder took it, TSC */
};

/*
 * What the read strategies share.  Only reads that decided to flush touch
 * it, never an update: it lives on lines of its own (this struct is aligned),
 * the sleepers' lock and counts apart from the figures every such read bumps.
 */
struct ctr_rstat_gate {
	pthread_mutex_t user_mutex;	/* read=mutex: the kernel's stats_user_flush_mutex */
	sem_t sem;			/* read=sem: the user_flush_sem, count 1 */
	/* read=batch, and read=sem's fallback: root flushes that one reader does for all */
	pthread_mutex_t mutex;		/* the waiter lock: guards the four below */
	pthread_cond_t done_cond;	/* broadcast when a flush of the batch completes */
	uint64_t started;		/* batch flushes started; under mutex */
	uint64_t done;			/* ... completed, in the order started (one runs at a time); under mutex */
	int running;			/* one is under way (started == done + 1); under mutex */
	int sleepers;			/* readers asleep on done_cond; under mutex (tests wait on it) */
	/*
	 * Figures, bumped by reads outside any lock: relaxed atomics, on a line of
	 * their own.  A read that needed a flush is counted once, when it returns,
	 * in exactly one of the first two, so their sum is the reads that needed
	 * one in any window, however a reset falls among reads in progress.
	 */
	_Atomic uint64_t reader_flushes __ctr_aligned;	/* reads that flushed for themselves */
	_Atomic uint64_t reads_shared;		/* reads served by another reader's flush */
	_Atomic uint64_t waits;			/* ... that waited at the gate (mutex, semaphore, sleep, unified spin) */
	_Atomic uint64_t wait_ns;		/* time spent waiting there */
	_Atomic uint64_t sem_fallbacks;		/* read=sem: semaphore timed out, fell back to a unified flush */
} __ctr_aligned;

struct ctr_rstat {
	struct ctr_tree base;		/* common part, read-only */
	enum ctr_rstat_policy policy;	/* which algorithm this is */
	enum ctr_rstat_fence fence;	/* options=fence=... */
	enum ctr_rstat_prune prune;	/* options=prune=...: which membarrier flushes unlink */
	enum ctr_rstat_lockbreak lockbreak;	/* options=lockbreak=...: a flush lets waiters in between CPUs */
	enum ctr_rstat_cpulock cpulock;	/* options=cpulock=...: a flush takes a clean CPU's link lock */
	enum ctr_rstat_read read;	/* options=read=...: how a read that flushes gets it done */
	enum ctr_rstat_update update;	/* options=update=... as given */
	enum ctr_rstat_threshold thresh_kind;	/* options=threshold=... */
	enum ctr_rstat_count count;	/* what updates count, from the two above (init) */
	int plain;			/* the update is the kernel's fast path: fence != update, count none (init) */
	int64_t batch;			/* per-CPU |delta| before it reaches a shared count (MEMCG_CHARGE_BATCH) */
	int64_t threshold;		/* shared count above which a read flushes (batch x nr_cpus) */
	_Atomic int64_t *node_updates;	/* count=memcg: [node * CTR_RSTAT_NU_STRIDE] the node's shared
					 * stats_updates, a line each; reset by flushes of its subtree */
	int *sub_start;			/* count=memcg: [nr_nodes + 1] node n's subtree is sub_nodes[sub_start[n]..] */
	int *sub_nodes;			/* ... n and its descendants, for the reset; read-only */
	int period_ms;			/* periodic flusher period (ratelimit, threshold) */
	struct ctr_rstat_cpu **cpu;	/* [nr_cpus] */
	_Atomic int64_t *aggr;		/* [node * nr_stats + stat] flushed value; written under flush lock */
	int64_t *pending;		/* [node * nr_stats + stat] from flushed children; under flush lock */
	int *stack;			/* [nr_nodes] scratch of the detach walk; under flush lock */
	int *heads;			/* [2 * nr_cpus] a prune's detached lists, (CPU, head) pairs; under flush lock */
	uint64_t last_prune_ns;		/* fence=membarrier: CLOCK_MONOTONIC_COARSE of the last prune; under flush lock */
	uint64_t prunes;		/* fence=membarrier: prunes done; under flush lock */
	uint64_t barriers;		/* ... of them that unlinked something, so called membarrier(); under it */
	uint64_t folded;		/* (CPU, node) pairs folded by flushes, the reads' cost; under flush lock */

	struct ctr_rstat_lock lock __ctr_aligned;	/* the global flush lock */
	uint64_t flushes;		/* flushes done, any cause; under flush lock */
	uint64_t lock_breaks;		/* times a flush dropped the lock between CPUs for a waiter; under it */
	struct ctr_hist flush_ns;	/* duration of each flush; under flush lock */

	_Atomic int64_t total __ctr_aligned;	/* count=global: |delta| handed in by CPUs since the last flush */
	_Atomic int root_flushing;		/* count=global: flushes from the root under way (total reset) */
	_Atomic int ongoing __ctr_aligned;	/* rstat_unified: a reader is flushing */
	_Atomic uint64_t flush_seq;		/* rstat_unified: completed reader flushes */
	_Atomic uint64_t last_flush_ns;		/* CLOCK_MONOTONIC_COARSE of the last flush from the root */

	struct ctr_rstat_gate gate;		/* options=read=...: readers' own serialization (aligned) */

	/* The periodic flusher (ratelimit, threshold); created with the tree, joined by free. */
	pthread_t flusher;		/* its thread */
	int flusher_running;		/* created and not yet joined */
	pthread_mutex_t stop_mutex;	/* guards stop, with stop_cond */
	pthread_cond_t stop_cond;	/* signalled by ctr_tree_free */
	int stop;			/* set once, under stop_mutex */
};

extern const struct ctr_algo ctr_algo_rstat_force;
extern const struct ctr_algo ctr_algo_rstat_ratelimit;
extern const struct ctr_algo ctr_algo_rstat_threshold;
extern const struct ctr_algo ctr_algo_rstat_unified;

/* Out of line: link node and its unlinked ancestors on cpu's updated tree. */
void __ctr_rstat_link(struct ctr_rstat *r, int cpu, int node);
/*
 * The global flush lock taken and released as a flusher would, without the
 * figures, and the threads waiting for it while it is held (tests gate
 * readers on it; reading the figures out uses the same raw lock).
 */
void __ctr_rstat_lock_raw(struct ctr_rstat *r);
void __ctr_rstat_unlock_raw(struct ctr_rstat *r);
int __ctr_rstat_lock_waiters(struct ctr_rstat *r);
/* Out of line: the policy's read, flushing as it decides. */
int64_t __ctr_rstat_read(struct ctr_tree *t, int node, int stat);

static inline struct ctr_rstat *ctr_rstat_of(struct ctr_tree *t)
{
	return ctr_container_of(t, struct ctr_rstat, base);
}

/*
 * The linked check after ctr_owner_add's store, kept after it by the
 * compiler with no instruction: both volatile (volatile accesses keep their
 * order), which unlike a signal fence leaves the tree's fields in registers
 * across an inlined loop.  Under ThreadSanitizer the store is a relaxed
 * atomic (ctr_owner_add), so a signal fence and a relaxed load.  The
 * hardware may still swap them: the prune's membarrier() covers that.
 */
static inline int __ctr_rstat_next_after_store(_Atomic int *next)
{
#if defined(__SANITIZE_THREAD__)
	atomic_signal_fence(memory_order_seq_cst);
	return atomic_load_explicit(next, memory_order_relaxed);
#else
	return *(volatile int *)next;
#endif
}

/*
 * The fast path's linked check, "updated_next == CTR_RSTAT_OFF" after the
 * slot store.  On x86-64 (asm goto) one compare of the word in memory with
 * the mark held in a register, then the branch: a pair Intel cores fuse
 * into one op, where GCC emits a load, a compare and a branch for a volatile
 * load, and Intel does not fuse a compare of memory with an immediate.
 * Measured with ctrbench limits on an Intel host (issue 13), rstat_force
 * over percpu_hier at chain:1: 1.42x and 1.25x comparing with an immediate,
 * 1.12x and 1.00x with the register, in two runs each (the ratio moves
 * with the host: docs/methodology.md).  The asm reads the slot too (an input
 * operand it does not use), so the compiler keeps it after the slot's
 * store, as the volatile pair does; the hardware may still swap them, which
 * the prune's membarrier() covers, as above.
 */
static inline __attribute__((always_inline)) int
__ctr_rstat_unlinked_after_store(_Atomic int *next, _Atomic int64_t *slot)
{
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
	__asm__ goto("cmpl %[off], %[next]\n\tje %l[unlinked]"
		     : : [next] "m"(*(volatile int *)next), "m"(*(volatile int64_t *)slot),
		       [off] "r"(CTR_RSTAT_OFF) : : unlinked);
	return 0;
unlinked:
	return 1;
#else
	(void)slot;
	return __ctr_rstat_next_after_store(next) == CTR_RSTAT_OFF;
#endif
}

/*
 * count=memcg's check of a level's shared count after the owner's slot
 * store, with a full fence between (see __ctr_rstat_add).  ThreadSanitizer
 * does not model fences: there, an RMW that adds 0, which reads the latest
 * value and is read by a later reset's exchange, which gives the same order.
 */
static inline int64_t __ctr_rstat_count_after_fence(_Atomic int64_t *nu)
{
#if defined(__SANITIZE_THREAD__)
	return atomic_fetch_add_explicit(nu, 0, memory_order_acq_rel);
#else
	atomic_thread_fence(memory_order_seq_cst);
	return atomic_load_explicit(nu, memory_order_relaxed);
#endif
}

/*
 * A prepared update (see CTR_REF_WRAP in ctr_internal.h): the slot's and
 * the linked mark's addresses, computed once.  The link call on the slow
 * path is why rstat needs one: without it every update of a loop reloads
 * r->cpu[cpu], its area, nr_stats and the options after the call it might
 * have made, five loads and a multiply around the kernel's three
 * instructions.
 */
struct ctr_rstat_ref {
	struct ctr_rstat *r;		/* the tree */
	struct ctr_rstat_cpu *c;	/* the owner's area */
	_Atomic int64_t *slot;		/* its slot of (node, stat) */
	_Atomic int *next;		/* node's updated_next on this CPU: the linked check */
	int cpu, node;			/* for the link and the counts */
	int plain;			/* the kernel's fast path applies: no fence, no count (at ref time) */
};

static inline __attribute__((always_inline)) struct ctr_rstat_ref
__ctr_rstat_ref(struct ctr_tree *t, int cpu, int node, int stat, enum ctr_rstat_policy policy)
{
	struct ctr_rstat *r = ctr_rstat_of(t);
	struct ctr_rstat_cpu *c = r->cpu[cpu];

	return (struct ctr_rstat_ref){
		.r = r,
		.c = c,
		/* c->slot, at a constant offset: one load fewer */
		.slot = (_Atomic int64_t *)((char *)c + CTR_RSTAT_CPU_HDR) + (size_t)node * t->nr_stats + stat,
		.next = &c->link[node].updated_next,
		.cpu = cpu,
		.node = node,
		.plain = policy != CTR_RSTAT_THRESHOLD && r->plain,
	};
}

/*
 * Always inline: the memcg count made the function big enough that GCC
 * called it out of line from the timed loops (a call per update, issue 13);
 * the plain path is a few instructions, the rest sits behind a branch.
 */
static inline __attribute__((always_inline)) void
__ctr_rstat_ref_add(const struct ctr_rstat_ref *h, int64_t delta)
{
	struct ctr_rstat *r = h->r;
	struct ctr_rstat_cpu *c = h->c;
	int linked;

	/*
	 * The kernel's fast path, tested by one flag of the ref: the slot's
	 * load and store, the linked check, nothing else.
	 */
	if (h->plain) {
		ctr_owner_add(h->slot, delta);
		if (__ctr_rstat_unlinked_after_store(h->next, h->slot))
			__ctr_rstat_link(r, h->cpu, h->node);
		return;
	}

	/*
	 * One writer per slot: load and store, no RMW.  fence=update: the store
	 * is seq_cst (an xchg on x86-64) and so is the linked check (a plain
	 * mov): with the flusher's seq_cst unlink and slot load, C11 forbids
	 * both sides reading the old values.  fence=membarrier (the default):
	 * plain movs, the compiler kept from swapping them (a signal fence, no
	 * instruction); the flusher's membarrier() is the StoreLoad barrier of
	 * both sides (see the top).  fence=none: plain movs, as the kernel.
	 */
	if (r->fence == CTR_RSTAT_FENCE_UPDATE) {
		atomic_store_explicit(h->slot, atomic_load_explicit(h->slot, memory_order_relaxed) + delta,
				      memory_order_seq_cst);
		linked = atomic_load_explicit(h->next, memory_order_seq_cst);
	} else {
		ctr_owner_add(h->slot, delta);
		linked = __ctr_rstat_next_after_store(h->next);
	}
	/* Speculative already-on-the-tree test, as css_rstat_updated(). */
	if (linked == CTR_RSTAT_OFF)
		__ctr_rstat_link(r, h->cpu, h->node);
	if (r->count == CTR_RSTAT_COUNT_MEMCG) {
		int64_t a = delta < 0 ? -delta : delta;

		/*
		 * memcg_rstat_updated() since 6.8: every level's per-CPU count,
		 * handed to the level's shared count in batches; the atomic is
		 * skipped where that count is already over the threshold (it
		 * stays so until a flush of the level resets it, and that flush
		 * folds this update: rstat.c has the bound).  The fence, once a
		 * batch, not per update: the skip's load against a reset's
		 * exchange and slot loads is store buffering again; without it
		 * the load could see the count before a reset whose flush missed
		 * the slot store, and the update would be neither folded nor
		 * counted (the kernel has that race).
		 */
		for (const int *anc = r->base.ancestors[h->node]; *anc >= 0; anc++) {
			int64_t v = c->stats_updates[*anc] + a;

			if (v >= r->batch) {
				_Atomic int64_t *nu = &r->node_updates[(size_t)*anc * CTR_RSTAT_NU_STRIDE];

				if (__ctr_rstat_count_after_fence(nu) <= r->threshold)
					atomic_fetch_add_explicit(nu, v, memory_order_release);
				v = 0;
			}
			c->stats_updates[*anc] = v;
		}
	} else if (r->count == CTR_RSTAT_COUNT_GLOBAL) {
		/* memcg_rstat_updated() in 6.1-6.7: one per-CPU count, handed to the shared total in batches. */
		c->pending_abs += delta < 0 ? -delta : delta;
		if (c->pending_abs >= r->batch) {
			atomic_fetch_add_explicit(&r->total, c->pending_abs, memory_order_release);
			c->pending_abs = 0;
		}
	}
}

static inline __attribute__((always_inline)) void
__ctr_rstat_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta, enum ctr_rstat_policy policy)
{
	const struct ctr_rstat_ref h = __ctr_rstat_ref(t, cpu, node, stat, policy);

	__ctr_rstat_ref_add(&h, delta);
}

/*
 * Check-then-act through the policy's own read, as obj_cgroup_may_zswap()
 * does (read each level, flushing as the policy decides, then charge).
 * Racy like percpu_hier's (CTR_CHARGE_RACY), and as stale as the read.
 */
static inline int __ctr_rstat_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta,
					 enum ctr_rstat_policy policy)
{
	ctr_for_each_ancestor(t, n, node)
		if (ctr_limit(t, n) != CTR_NO_LIMIT &&
		    !ctr_within_limit(__ctr_rstat_read(t, n, 0), delta, ctr_limit(t, n)))
			return 0;
	__ctr_rstat_add(t, cpu, node, 0, delta, policy);
	return 1;
}

#define CTR_RSTAT_POLICY_OPS(name, policy)						\
static inline __attribute__((always_inline)) void				\
ctr_##name##_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)	\
{										\
	__ctr_rstat_add(t, cpu, node, stat, delta, policy);				\
}										\
static inline __attribute__((always_inline)) struct ctr_rstat_ref		\
ctr_##name##_ref(struct ctr_tree *t, int cpu, int node, int stat)		\
{										\
	return __ctr_rstat_ref(t, cpu, node, stat, policy);			\
}										\
static inline __attribute__((always_inline)) void				\
ctr_##name##_ref_add(const struct ctr_rstat_ref *h, int64_t delta)		\
{										\
	__ctr_rstat_ref_add(h, delta);						\
}										\
static inline int ctr_##name##_try_charge(struct ctr_tree *t, int cpu, int node,	\
					  int64_t delta)				\
{										\
	return __ctr_rstat_try_charge(t, cpu, node, delta, policy);			\
}										\
static inline int64_t ctr_##name##_read(struct ctr_tree *t, int node, int stat)	\
{										\
	return __ctr_rstat_read(t, node, stat);						\
}

CTR_RSTAT_POLICY_OPS(rstat_force, CTR_RSTAT_FORCE)
CTR_RSTAT_POLICY_OPS(rstat_ratelimit, CTR_RSTAT_RATELIMIT)
CTR_RSTAT_POLICY_OPS(rstat_threshold, CTR_RSTAT_THRESHOLD)
CTR_RSTAT_POLICY_OPS(rstat_unified, CTR_RSTAT_UNIFIED)

#endif /* CTR_RSTAT_H */
