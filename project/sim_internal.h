/* SPDX-License-Identifier: MIT */
/*
 * sim_internal.h - the model's state, shared by its three parts:
 *   sim.c    the machine: PUs, cache lines (MESI), what one access costs;
 *   sched.c  the virtual threads: each a coroutine with its own stack, a
 *            scheduler that resumes the earliest clock at every access, per-PU
 *            run queues with a time slice, and the blocking objects (mutexes,
 *            semaphores, condition variables, joins) and spinners parked on a
 *            line until it is written;
 *   run.c    one projection: the workload loops, the tree, what is counted.
 * One projection runs at a time, in the one instance `sim` (the hooks rt.c
 * calls carry no context: their signatures are the real pthread and TSan ones).
 */
#ifndef PROJ_SIM_INTERNAL_H
#define PROJ_SIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "proj.h"

struct sim_pu {
	int core, l3, pkg, numa;	/* logical indexes */
	int cur;			/* thread running on it, -1 idle */
	int q_head, q_tail;		/* run queue (threads ready, FIFO), -1 empty */
	int qlen;
};

struct sim_line {
	uintptr_t tag;		/* address / 64, 0 = empty slot */
	int owner;		/* PU holding it in M or E, -1 if none */
	int nsharers;		/* PUs holding it in S */
	int home;		/* NUMA node (logical) */
	double busy;		/* the last booked transfer holds the line until here */
	double dstart;		/* the first queued transfer (booked behind another, performed on arrival) starts here */
	int dpu;		/* it goes to this PU, -2 to another than the owner, -1 none queued: from dstart
				 * the owner has lost its right to write (sim.c) */
	int dlast;		/* the PU of the last one queued */
	double hold;		/* its owner's last store or RMW ended here */
	int burst_n;		/* stores and RMWs its owner made since it took the line */
	int waiter;		/* the first request waiting for the owner's burst (thread), -1 none: it goes next */
	int parked;		/* first thread parked on it (sched.c), -1 none */
	int sync;		/* a lock, flag or semaphore lies in it: its accesses always take their turn */
	uint64_t *sharers;	/* bitmap over PUs */
	/* the capacity model (sim.c): */
	uint32_t gen;		/* its latest fill into an L2: only that fill's ring entry can evict it */
	uint32_t vgen;		/* its latest move into an L3 (victim) ring, the same for that ring */
	int victim_pu;		/* an L2 of this PU's core dropped it: it is in that PU's L3, -1 none */
	unsigned char ref;	/* hit since its ring entry last came round (a second chance: LRU-like) */
};

/* A cache's contents in fill order (FIFO with a second chance): line tags and the fill they stand for. */
struct sim_rent {
	uintptr_t tag;
	uint32_t gen;
};

struct sim_ring {
	struct sim_rent *e;	/* circular, grown on demand up to max */
	size_t head, n, cap;	/* oldest entry, entries, allocated */
	size_t max;		/* the cache's lines */
};

enum sim_obj_kind { SIM_OBJ_FLAG, SIM_OBJ_MUTEX, SIM_OBJ_SEM, SIM_OBJ_COND };

/* A synchronisation object of the tree, by address: its state in the model and its figures. */
struct sim_obj {
	const void *addr;	/* the object's address (its line is costed as the real one's) */
	int kind;		/* enum sim_obj_kind (a flag: a test-and-set word seen taken) */
	int holder;		/* a lock's holder thread, -1 free */
	int handoff;		/* the waiter the next unlock hands it to, -1 none (sync.c) */
	long count;		/* a semaphore's value */
	int w_head, w_tail;	/* threads blocked on it, FIFO */
	char role[48];		/* CTR_LOCK_ROLE's name, "" unnamed */
	int region;		/* allocation it lies in (unnamed locks are reported by it) */
	double held_at;		/* when the holder took it */
	long acq, contended;	/* measured window */
	double wait, hold;
};

enum sim_state {
	VT_NEW,		/* not started */
	VT_RUNNING,	/* on its PU; in the event heap by its clock (unless it is the one running) */
	VT_READY,	/* in its PU's run queue */
	VT_TIMER,	/* off the CPU until its wake time (a sleep, a timed wait); in the heap by wake */
	VT_BLOCKED,	/* off the CPU until woken */
	VT_PARKED,	/* on its PU, spinning on a line until it is written (in the heap only for a slice end) */
	VT_DONE,
};

struct sim_thread {
	/* the scheduler's */
	double now;		/* virtual clock, ns */
	int pu;			/* logical PU it runs on */
	int state;		/* enum sim_state */
	double wake;		/* VT_TIMER / VT_PARKED: when the heap wakes it */
	double ready_at;	/* VT_READY: since when */
	double slice0;		/* when its slice on the PU began */
	int next;		/* link: a run queue, a wait queue, a line's parked list */
	int hpos;		/* position in the event heap, -1 not in it */
	long seq;		/* when it entered the heap (ties: the first in goes first) */
	int woken;		/* the last block ended by a wake (1) or its timeout (0) */
	int joiner;		/* thread blocked in a join of this one, -1 none */
	void *sp;		/* saved stack pointer (sched.c's switch) */
	void *stack;		/* its stack (mmap), NULL for the main context */
	size_t stack_size;
	void *(*fn)(void *);	/* a thread the code started (a periodic flusher) */
	void *arg;
	int worker;		/* a workload thread (run.c), not one the code started */
	/* the workload's (run.c) */
	int reader;		/* a reader, not an updater */
	long done;		/* operations done, warmup included */
	long measured;		/* measured operations done */
	int warmed;		/* it has done its warm-up (run.warm_left counts those that have not) */
	int held;		/* charge: charges held */
	int64_t dir;		/* readers workload: the swing's direction */
	double t0;		/* when its first measured operation started */
	/* the running operation's accounting */
	int counting;		/* in a measured operation */
	double op_serial, op_overlap, op_wait;
	double group_max, group_sum;	/* misses since the last RMW or fence: the overlapped band */
	double *xfer;		/* where this operation's transfers are counted */
	long steps;		/* of this operation: its budget (a wait nobody can end) */
	uintptr_t last_load;	/* line of its last access if a load that hit, else 0: a pause parks on it */
	long pauses_since_clock;	/* pauses since it last read the clock: a timed spin is not parked */
	double op_t0;		/* when its running operation started */
	long role_done0;	/* sim.done_role of its kind when it started: what its peers finished since */
	double stall_hold;	/* the owner's hold it last stalled behind (a burst, sim.c) */
	int op_strict;		/* this operation made an access that took its turn (not a quiet hit) */
	int nopreempt;		/* > 0: in what the kernel runs with preemption off (ctr_preempt_disable) */
	int kernel_op;		/* in an operation run as kernel code on a PREEMPT_NONE kernel (preempt_none):
				 * no slice end, but it may still sleep (a mutex, a semaphore) */
	double park_until;	/* a pause parks it at most until then (a bounded spin), else +inf */
	const void *flag_wait;	/* a flag it found taken, and since when: a contended acquisition */
	double flag_since;
};

/* An entry of the event heap: a thread and the key it entered with. */
struct sim_hent {
	double key;		/* its clock (running) or wake time (a timer, a parked spinner's bound) */
	long seq;		/* when it entered (ties: the first in goes first) */
	int i;			/* the thread */
};

struct sim_state_all {
	/* the machine (sim.c) */
	const struct proj_calib *cal;	/* NULL outside a projection */
	struct sim_pu *pus;
	int nr_pus, words;
	int *numa_of_os;		/* NUMA OS index -> logical */
	int max_numa_os;
	int *numa_pkg;			/* package of each NUMA node (logical) */
	int nr_numa;
	struct sim_line *lines;		/* open addressing */
	size_t cap, used;
	uint64_t *bits;			/* sharer bitmaps, words per line, same slot as lines */
	double accesses;
	/* the capacity model: an L2 ring per core, an L3 (victim) ring per L3 */
	struct sim_ring *l2, *l3;
	int nr_cores, nr_l3;
	double l3_hit_ns;
	long l3_hits, evictions;	/* the whole run: served from the own L3; dropped by an L2 */
	long dram_evicted;		/* dropped by an L3 too: the next access goes to DRAM */
	struct proj_capacity capacity;	/* the sizes, and where they came from */
	/* the synchronisation objects (sched.c) */
	/*
	 * In chunks that never move (sim_obj_at): a caller keeps its object's
	 * pointer across accesses, during which other threads make objects
	 * (a queued waiter's node, a flag first taken); one array grown by
	 * realloc left that pointer dangling (a lock's holder written to freed
	 * memory: "every virtual thread is blocked").
	 */
	struct sim_obj **obj_chunks;
	int nr_objs, nr_chunks;
	int *obj_hash;			/* open addressing over the objects' indexes, -1 empty */
	size_t obj_hcap;
	/* the threads (sched.c) */
	struct sim_thread *th;		/* [nr_th]: workers first, then threads the code started */
	int nr_th, th_cap;
	struct sim_thread main_th;	/* the main context: the tree's creation and teardown */
	struct sim_thread *cur;		/* running: a thread of th[], or &main_th */
	struct sim_hent *heap;		/* event heap over th[] by key (sched.c) */
	int hn;
	long seq;			/* heap entries so far */
	int *wake_buf;			/* [th_cap]: sim_line_written's */
	void *sched_sp;			/* the scheduler's saved stack pointer */
	int live_workers;		/* worker threads not yet done */
	long switches;
	double slice_ns;
	double lookahead;		/* a thread runs on while the earliest other event is at most this much earlier */
	int bailed;			/* an operation went past its budget, or every thread blocked */
	int starved;			/* a thread starved past SIM_STARVE_NS: the run stops, what it counted stands */
	char bail_why[256];
	double max_op;			/* the longest operation finished (virtual ns): the starvation bound */
	long done_role[2];		/* operations finished by the updaters [0] and the readers [1] */
	int nr_role[2];			/* how many workers of each */
	long max_steps;			/* the watchdog: steps with no operation finished (sim.c) */
	long idle_steps;
};

extern struct sim_state_all sim;

#define SIM_OBJ_CHUNK 256	/* objects per chunk */

/* Object i (0 <= i < sim.nr_objs). */
static inline struct sim_obj *sim_obj_at(int i)
{
	return &sim.obj_chunks[i / SIM_OBJ_CHUNK][i % SIM_OBJ_CHUNK];
}

/* Whether a slice end may take t's PU now: not with preemption off, nor inside a PREEMPT_NONE kernel's operation. */
static inline int sim_preemptible(const struct sim_thread *t)
{
	return !t->nopreempt && !t->kernel_op;
}

/* Whether thread t has run its slice on PU u with others queued there (and may be preempted). */
static inline int sim_slice_over(const struct sim_thread *t, const struct sim_pu *u, double slice_ns)
{
	return u->qlen && sim_preemptible(t) && t->now - t->slice0 >= slice_ns;
}

/* sim.c */
int sim_machine_setup(const struct proj_config *cfg, char *err, size_t errlen);
void sim_machine_teardown(void);
struct sim_line *sim_line_of(uintptr_t addr);
void sim_close_group(struct sim_thread *t);
void sim_charge_wait(struct sim_thread *t, double w);
void sim_budget_step(void);		/* one step of the running operation's budget */
/*
 * How far a thread runs ahead of the earliest other event on hits of quiet
 * lines, and at the end of an operation (sim.c's quiet hits).
 */
#define SIM_RUNAHEAD_NS 100.0

/* sched.c */
int sim_sched_setup(int nthr, double slice_ns);
void sim_sched_teardown(void);
int sim_thread_start(int i, void *(*fn)(void *), void *arg);	/* i: -1 a new one (returns its index) */
int sim_sched_run(void);		/* until every worker is done: 0, or -EDEADLK (sim.bail_why) */
int sim_sched_run_until_done(int i);	/* the main context: run until thread i has ended */
void sim_maybe_yield(void);		/* before an access: let an earlier clock run, a slice end preempt */
void sim_yield_within(double ahead);	/* the same, the running thread up to `ahead` ns ahead of the earliest */
void sim_sleep(double until);		/* the running thread off the CPU until then */
void sim_yield_cpu(void);		/* sched_yield */
void sim_pause(void);			/* a spin-wait hint */
void sim_join(int i);			/* the running thread waits until thread i has ended */
void sim_line_written(struct sim_line *l, int pu, double at);	/* wake whoever is parked on l */
void sim_bail(const char *why);
void sim_starve_stop(const char *why);	/* stop the run here: the figures so far stand (run.c says so) */

/*
 * One operation that waits this long (50 ms of virtual time, and 20 times
 * the longest operation finished so far), while the threads of its kind
 * (updaters, readers) finished 20 operations each on average, is
 * starved (a queue, however long, serves each waiter before any comes
 * round a second time; a reader at the end of a convoy of a thousand is
 * not starved, only late).  What starves: a lock its holder retakes at
 * once after every release (a tight loop, a test-and-set word, whose
 * holder wins every race for the line), a race the holder always wins in
 * a model with no noise, where a real machine's interrupts and preemption
 * end it sooner or later.  The run stops there and says so.
 */
#define SIM_STARVE_NS 5e7
#define SIM_STARVE_X 20
struct sim_obj *sim_obj_of(const void *addr, int kind);
void sim_block_on(struct sim_obj *o, double timeout_at);	/* the running thread waits on o */
int sim_wake_one(struct sim_obj *o, double at);		/* a waiter of o runs from at: 1, or 0 if none */
void sim_wake_this(struct sim_obj *o, int i, double at);	/* waiter i of o runs from at */

/* sync.c: rt.c's pthread and semaphore calls in the model */
struct proj_result;
#include <semaphore.h>
void proj_sim_lock_role(const void *addr, const char *role);
int proj_sim_mutex_lock(void *m, int try, int spin_forever);	/* 0, or EBUSY (a trylock) */
void proj_sim_mutex_unlock(void *m);
int proj_sim_sem_wait(sem_t *s, int try, double deadline_ns);	/* 0, EAGAIN or ETIMEDOUT */
void proj_sim_sem_post(sem_t *s);
int proj_sim_cond_wait(void *c, void *m, double deadline_ns);	/* 0 or ETIMEDOUT */
void proj_sim_cond_signal(void *c, int all);
void proj_sim_flag_busy(const volatile void *addr);
void sim_lock_table(struct proj_result *res);

/* One step of thread t's operation (sim_budget_step): the common case inline, the checks past it in sim.c. */
void sim_step_slow(struct sim_thread *t);
static inline void sim_step(struct sim_thread *t)
{
	t->steps++;
	if (++sim.idle_steps > sim.max_steps || t->now - t->op_t0 > SIM_STARVE_NS)
		sim_step_slow(t);
}

#endif /* PROJ_SIM_INTERNAL_H */
