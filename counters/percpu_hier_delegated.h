/* SPDX-License-Identifier: MIT */
/*
 * percpu_hier_delegated - design (c)'s per-CPU slots (percpu_hier: each
 * update writes its own slot of the node and of every ancestor) with reads
 * delegated to the updaters, flat combining for reads.  Nobody has built it
 * before: it is here to be measured on machines with many L3s.
 *
 * The slots are grouped by L3 (ctr_params.slot_l3; without a map, groups of
 * CTR_PHD_DEFAULT_GROUP consecutive slots, a Zen CCX's 8 cores), and each
 * group has one mailbox line.  A reader posts its request, the counter index,
 * to every group's mailbox; an updater, after its update, loads its group's
 * mailbox state (one load of a line that stays in its L1 while nobody reads)
 * and, finding a request, claims it, sums its group's slots for that counter
 * (lines of its own L3) and answers.  A group with no active updater does not
 * answer within the timeout (options=timeout_ns=N, default 2000): the reader
 * withdraws the request and sums that group's slots itself.  On a 192-CPU,
 * 12-CCX machine a read would then move about 12 x 3 mailbox transfers, ~36
 * lines across CCXs, instead of 176 remote slot lines; this machine has one
 * L3 and cannot show that (the projection and real machines judge the
 * speed).  timeout_ns=0 never posts: every read sums all slots, as (c).
 *
 * The mailbox, one word `state` = seq << 3 | phase, seq counting rounds:
 *   IDLE(k)     free.  A reader CASes it to BUSY(k) (fails: another reader's
 *               round is under way, so it reads this group directly), stores
 *               the counter index in `req`, then stores REQ(k) (release).
 *   REQ(k)      an updater CASes it to CLAIMED(k) (acquire; one wins), loads
 *               `req`, sums the group's slots, stores `answer`, then CASes it
 *               to ANSWERED(k) (release).  Or the reader, timed out, CASes it
 *               to IDLE(k + 1) and reads the group itself; the two CASes
 *               exclude each other, so a request is answered or withdrawn.
 *   CLAIMED(k)  the timed-out reader CASes it to ABANDONED(k) and reads the
 *               group itself (the claimer was preempted mid-sum: here, not in
 *               a kernel with preemption off), or finds it ANSWERED(k).
 *   ABANDONED(k) the claimer's CAS to ANSWERED fails; it stores IDLE(k + 1).
 *   ANSWERED(k) the reader (acquire) takes `answer` and stores IDLE(k + 1).
 * `req` and `answer` are written only by the one thread the phase entitles,
 * and read by the other only after the release/acquire pair of that phase;
 * an abandoned answer is never read, and the next round cannot post before
 * its claimer, done writing, frees the box.
 *
 * Why the read cannot miss a completed update.  Let U be an update that
 * completed before the read began (happens-before, as a join or any
 * synchronization gives; on x86 real time suffices).  The read returns the
 * sum over groups of a sum over the group's slots, each slot loaded once,
 * either by the reader or by a claimer.  A reader's own load is after the
 * read began in program order.  A claimer's load follows its acquiring CAS
 * of REQ(k), which read the reader's release store of REQ(k), made after
 * the read began: so U's store to its slot happens before that load too.  By
 * write-read coherence the load returns U's store or a later store of the
 * same slot, and a slot has one writer whose later stores only add later
 * deltas: every slot's value includes U's delta where U wrote it.  So the sum
 * includes every completed update, as percpu_hier's does (a regular read:
 * updates in flight may or may not be in it), and with no update in progress
 * it is exact (ctr_read_error_bound 0).  No answer is mixed up with another
 * round's: a round's answer is written while its state is CLAIMED(k), read
 * while it is ANSWERED(k), and the next round cannot post before IDLE(k + 1).
 *
 * Liveness: nobody waits on anybody.  A claimer sums at most a group's
 * slots and answers; a reader waits at most its timeout, then reads what was
 * not answered itself (a first version waited for a preempted claimer, and on
 * 7 threads pinned to 2 CPUs a read could outlast a 40 ms window).  ctr_try_charge
 * sums the slots directly (the charging thread is an updater of its own
 * group and would wait for itself); check-then-act like percpu_hier's.
 */
#ifndef CTR_PERCPU_HIER_DELEGATED_H
#define CTR_PERCPU_HIER_DELEGATED_H

#include "ctr_internal.h"

#define CTR_PHD_DEFAULT_GROUP 8		/* slots per group without an L3 map: one Zen CCX of 8 cores */
#define CTR_PHD_DEFAULT_TIMEOUT_NS 2000	/* an updater every ~50 ns answers in ~0.1-0.5 us; idle groups cost this */

enum ctr_phd_phase { CTR_PHD_IDLE, CTR_PHD_BUSY, CTR_PHD_REQ, CTR_PHD_CLAIMED, CTR_PHD_ANSWERED,
		     CTR_PHD_ABANDONED };
#define CTR_PHD_PHASE(s) ((int)((s) & 7))
#define CTR_PHD_SEQ(s) ((s) >> 3)
#define CTR_PHD_STATE(seq, phase) (((uint64_t)(seq) << 3) | (uint64_t)(phase))

/* One group's mailbox, alone on a line: read by its updaters on every update, written per read. */
struct ctr_phd_mbox {
	_Atomic uint64_t state;		/* seq << 3 | enum ctr_phd_phase (see the top) */
	_Atomic size_t req;		/* counter index asked for; written by the reader in BUSY */
	_Atomic int64_t answer;		/* the group's sum; written by the claimer in CLAIMED */
} __ctr_aligned;

/* How reads were served, for tests and notes (bumped by readers only, on a line of its own). */
struct ctr_phd_stats {
	_Atomic uint64_t answered;	/* groups summed by one of their updaters */
	_Atomic uint64_t withdrawn;	/* groups that timed out, withdrawn or abandoned: the reader summed them */
	_Atomic uint64_t busy;		/* groups another reader was using: summed directly */
} __ctr_aligned;

struct ctr_percpu_hier_delegated {
	struct ctr_tree base;		/* common part, read-only */
	int64_t timeout_ns;		/* options=timeout_ns: how long a reader waits for answers */
	int nr_groups;			/* mailboxes */
	int *group_of;			/* [nr_cpus] slot's group; read-only */
	int *member_base;		/* [nr_groups + 1] group g's slots are members[member_base[g] ...] */
	int *members;			/* [nr_cpus] slots, grouped; read-only */
	struct ctr_phd_mbox *mbox;	/* [nr_groups] */
	struct ctr_phd_stats stats;	/* how reads were served */
	/* area[cpu]: that CPU's slots [node * nr_stats + stat], as percpu_hier; only the owner writes */
	_Atomic int64_t **area;
	struct ctr_offsets off;		/* off.of[node]: n * nr_stats for node and its ancestors (refs' walk) */
};

extern const struct ctr_algo ctr_algo_percpu_hier_delegated;

/* Out of line: claim and answer the request found in state s of cpu's group. */
void __ctr_phd_answer(struct ctr_percpu_hier_delegated *p, int cpu, uint64_t s);
/* Out of line: the delegated read. */
int64_t __ctr_phd_read(struct ctr_tree *t, int node, int stat);
/* The sum of counter i over all slots, read directly (percpu_hier's read). */
int64_t __ctr_phd_sum(struct ctr_percpu_hier_delegated *p, size_t i);

static inline void ctr_percpu_hier_delegated_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	struct ctr_percpu_hier_delegated *p = ctr_container_of(t, struct ctr_percpu_hier_delegated, base);
	_Atomic int64_t *slots = p->area[cpu] + stat;
	const int nr_stats = t->nr_stats;
	uint64_t s;

	/* one writer per slot: load and store (see percpu_hier.h) */
	ctr_for_each_ancestor(t, n, node) {
		_Atomic int64_t *x = slots + (size_t)n * nr_stats;

		atomic_store_explicit(x, atomic_load_explicit(x, memory_order_relaxed) + delta,
				      memory_order_relaxed);
	}
	/* after the stores: an answer given now includes this update */
	s = atomic_load_explicit(&p->mbox[p->group_of[cpu]].state, memory_order_relaxed);
	if (__builtin_expect(CTR_PHD_PHASE(s) == CTR_PHD_REQ, 0))
		__ctr_phd_answer(p, cpu, s);
}

/*
 * A prepared update (ctr_internal.h): percpu_hier's (the node's own slot, the
 * ancestors' offsets from the owner's slots of the stat) and the group's
 * mailbox state word, looked at after the stores.  Add reloaded area[cpu],
 * the ancestors, group_of[cpu] and mbox after every update (the answer's
 * call).  The slot adds are ctr_owner_add's volatile load and store, which
 * GCC does not take as writes to the ref's lists.  One level is a form of
 * its own, which the timed loop unswitches (bench/loops.c).
 */
struct ctr_percpu_hier_delegated_ref {
	struct ctr_percpu_hier_delegated *p;	/* for the answer */
	_Atomic int64_t *own;		/* the node's slot: area[cpu] + off[0] + stat */
	_Atomic int64_t *slots;		/* area[cpu] + stat: level k's is slots[off[k]] */
	const int *off;			/* off.of[node], leaf first */
	_Atomic uint64_t *state;	/* the slot's group's mailbox state */
	int depth;			/* levels from the node to the root */
	int cpu;			/* the slot, for the answer */
};

static inline struct ctr_percpu_hier_delegated_ref
ctr_percpu_hier_delegated_ref(struct ctr_tree *t, int cpu, int node, int stat)
{
	struct ctr_percpu_hier_delegated *p = ctr_container_of(t, struct ctr_percpu_hier_delegated, base);
	_Atomic int64_t *slots = p->area[cpu] + stat;

	return (struct ctr_percpu_hier_delegated_ref){ p, slots + p->off.of[node][0], slots, p->off.of[node],
						       &p->mbox[p->group_of[cpu]].state, t->depth[node], cpu };
}

#define CTR_REF_ONE_LEVEL_percpu_hier_delegated 1
static inline int ctr_percpu_hier_delegated_ref_one_level(const struct ctr_percpu_hier_delegated_ref *r)
{
	return r->depth == 1;
}

static inline __attribute__((always_inline)) void
ctr_percpu_hier_delegated_ref_add(const struct ctr_percpu_hier_delegated_ref *r, int64_t delta)
{
	_Atomic int64_t *const slots = r->slots;
	uint64_t s;

	ctr_owner_add(r->own, delta);
	for (const int *o = r->off + 1, *const end = r->off + r->depth; o < end; o++)
		ctr_owner_add(slots + *o, delta);
	/* after the stores: an answer given now includes this update */
	s = atomic_load_explicit(r->state, memory_order_relaxed);
	if (__builtin_expect(CTR_PHD_PHASE(s) == CTR_PHD_REQ, 0))
		__ctr_phd_answer(r->p, r->cpu, s);
}

static inline int64_t ctr_percpu_hier_delegated_read(struct ctr_tree *t, int node, int stat)
{
	return __ctr_phd_read(t, node, stat);
}

/* Check-then-act on direct sums (see the top): percpu_hier's bound, (T - 1) x max_delta over. */
static inline int ctr_percpu_hier_delegated_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	struct ctr_percpu_hier_delegated *p = ctr_container_of(t, struct ctr_percpu_hier_delegated, base);

	ctr_for_each_ancestor(t, n, node)
		if (ctr_limit(t, n) != CTR_NO_LIMIT &&
		    !ctr_within_limit(__ctr_phd_sum(p, (size_t)n * t->nr_stats), delta, ctr_limit(t, n)))
			return 0;
	ctr_percpu_hier_delegated_add(t, cpu, node, 0, delta);
	return 1;
}

#endif /* CTR_PERCPU_HIER_DELEGATED_H */
