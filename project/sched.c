/* SPDX-License-Identifier: MIT */
/*
 * sched.c - the model's virtual threads and their scheduler (docs/projection.md).
 *
 * Every virtual thread is a coroutine with its own stack, run on this one
 * real thread.  Before each access it makes on the tree's memory
 * (sim_maybe_yield), the thread gives way to any event with an earlier
 * virtual time: another thread's clock, a timer.  So the accesses of all
 * threads happen in virtual-time order, and any lock built from atomics is
 * a lock in the model with no special case: a spinner re-reads the flag
 * until the holder's release, reads interleave with reads, waits end when
 * the thread that ends them runs.  Ties go to the lower thread index, and
 * nothing real is read (clocks are virtual, rt.c), so a projection is
 * deterministic.
 *
 * The scheduler: a thread runs on a PU; a PU runs one thread at a time and
 * queues the others (FIFO); a thread that blocks gives its PU to the next;
 * one that has run its slice while others wait goes to the queue's tail.  A
 * woken thread goes to its own PU if idle, else to an idle PU of its L3,
 * else it waits in its PU's queue.  (Assumptions, printed: a CFS-like slice,
 * 3 ms by default; no wake-up preemption; no migration but to an idle PU.)
 *
 * Blocking: a mutex or semaphore waiter, a condition wait, a join leave the
 * CPU until woken; the waker's post or unlock wakes the first waiter, who
 * runs the calibration's wake-up later (wake_ns).  A spinner that pauses
 * right after a load that hit (sim_pause) is parked on that line: it stays
 * on its PU, and runs again when another PU writes the line (its copy is
 * invalidated: the re-read is a transfer, on the lock's line, as a real
 * spinner's is) or when its slice ends with others waiting.  The spin loop's
 * iterations in between are not replayed: a loop that counts its spins
 * before yielding yields later in the model than on a real core.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim_internal.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define SIM_ASAN 1
#endif

/* ---- the stack switch ---- */

/*
 * sim_switch(from, to): save the callee-saved registers and the FP control
 * words on this stack, store the stack pointer in *from, continue on to.
 * x86-64 only (the SysV ABI's callee-saved set); elsewhere ucontext.
 */
#if defined(__x86_64__)
void sim_switch(void **from, void *to);
__asm__(".text\n"
	".globl sim_switch\n"
	".type sim_switch,@function\n"
	"sim_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	subq $8, %rsp\n"
	"	stmxcsr (%rsp)\n"
	"	fnstcw 4(%rsp)\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	ldmxcsr (%rsp)\n"
	"	fldcw 4(%rsp)\n"
	"	addq $8, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size sim_switch, .-sim_switch\n");

static void sim_fiber_entry(void);

/* A fresh stack that sim_switch "returns" into sim_fiber_entry from. */
static void *sim_stack_init(void *stack, size_t size)
{
	uint64_t *top = (uint64_t *)(((uintptr_t)stack + size) & ~(uintptr_t)15);
	uint64_t *sp = top - 9;
	uint32_t csr;
	uint16_t cw;

	__asm__ volatile("stmxcsr %0" : "=m"(csr));
	__asm__ volatile("fnstcw %0" : "=m"(cw));
	memset(sp, 0, 9 * sizeof(*sp));
	sp[0] = (uint64_t)csr | ((uint64_t)cw << 32);	/* ldmxcsr (%rsp), fldcw 4(%rsp) */
	/* sp[1..6]: r15 r14 r13 r12 rbx rbp, all 0 (a 0 rbp ends a frame-pointer unwind) */
	sp[7] = (uint64_t)(uintptr_t)sim_fiber_entry;	/* ret: entry with rsp = top - 8, as after a call */
	return sp;
}
#else
#include <ucontext.h>
/* The portable switch: a ucontext per thread (slower: a signal-mask syscall per switch). */
struct sim_uctx {
	ucontext_t uc;
};
static void sim_fiber_entry(void);
static void sim_switch(void **from, void *to)
{
	struct sim_uctx *f = *from ? *from : malloc(sizeof(*f));

	*from = f;
	swapcontext(&f->uc, &((struct sim_uctx *)to)->uc);
}
static void *sim_stack_init(void *stack, size_t size)
{
	struct sim_uctx *f = malloc(sizeof(*f));

	getcontext(&f->uc);
	f->uc.uc_stack.ss_sp = stack;
	f->uc.uc_stack.ss_size = size;
	f->uc.uc_link = NULL;
	makecontext(&f->uc, sim_fiber_entry, 0);
	return f;
}
#endif

/*
 * Each stack: 256 KiB reserved, a guard page below, pages touched on use
 * (the instrumented operations take a few KiB; 10,000 threads reserve
 * 2.5 GiB of address space and touch tens of MiB).
 */
#define SIM_STACK (256 * 1024)

static void *sim_stack_new(size_t *size)
{
	char *p = mmap(NULL, SIM_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	mprotect(p, 4096, PROT_NONE);
	*size = SIM_STACK;
	return p;
}

/* Switch from the running context to `to` (a thread, or the scheduler when to_sp is sim.sched_sp). */
static void sim_switch_to(void **from, void *to, const void *to_stack, size_t to_size)
{
#ifdef SIM_ASAN
	void *fake = NULL;

	__sanitizer_start_switch_fiber(&fake, to_stack, to_size);
	sim_switch(from, to);
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#else
	(void)to_stack;
	(void)to_size;
	sim_switch(from, to);
#endif
}

/* The scheduler's own stack (the real thread's), for ASan's bookkeeping. */
static const void *sched_stack;
static size_t sched_stack_size;

/* The running thread gives the real thread back to the scheduler. */
static void sim_to_scheduler(void)
{
	struct sim_thread *t = sim.cur;

	sim.switches++;
	sim_switch_to(&t->sp, sim.sched_sp, sched_stack, sched_stack_size);
}

/* ---- the event heap: running threads by clock, timers by wake time ---- */

static inline double sim_key(const struct sim_thread *t)
{
	return t->state == VT_RUNNING ? t->now : t->wake;
}

/*
 * Each entry carries its thread's key and sequence, so a sift touches the
 * heap's own array and no thread struct (a thread's key changes only while
 * it is out of the heap: every change is a remove, an edit, a push).
 * Ties go to the thread that entered the heap first: by thread index, the
 * same waiters would win every race that starts at one instant (a lock's
 * release waking its spinners), and the last ones would starve for ever.
 */
static inline int sim_before(const struct sim_hent *a, const struct sim_hent *b)
{
	return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static inline void sim_heap_set(int pos, struct sim_hent e)
{
	sim.heap[pos] = e;
	sim.th[e.i].hpos = pos;
}

static void sim_heap_up(int pos)
{
	const struct sim_hent e = sim.heap[pos];

	while (pos > 0 && sim_before(&e, &sim.heap[(pos - 1) / 2])) {
		sim_heap_set(pos, sim.heap[(pos - 1) / 2]);
		pos = (pos - 1) / 2;
	}
	sim_heap_set(pos, e);
}

static void sim_heap_down(int pos)
{
	const struct sim_hent e = sim.heap[pos];

	for (;;) {
		int c = 2 * pos + 1;

		if (c >= sim.hn)
			break;
		if (c + 1 < sim.hn && sim_before(&sim.heap[c + 1], &sim.heap[c]))
			c++;
		if (!sim_before(&sim.heap[c], &e))
			break;
		sim_heap_set(pos, sim.heap[c]);
		pos = c;
	}
	sim_heap_set(pos, e);
}

static inline struct sim_hent sim_hent_of(int i)
{
	sim.th[i].seq = ++sim.seq;
	return (struct sim_hent){ .key = sim_key(&sim.th[i]), .seq = sim.th[i].seq, .i = i };
}

static void sim_heap_push(int i)
{
	sim.hn++;
	sim_heap_set(sim.hn - 1, sim_hent_of(i));
	sim_heap_up(sim.hn - 1);
}

static void sim_heap_remove(int i)
{
	const int pos = sim.th[i].hpos;

	if (pos < 0)
		return;
	sim.th[i].hpos = -1;
	if (--sim.hn == pos)
		return;
	sim_heap_set(pos, sim.heap[sim.hn]);
	sim_heap_up(pos);
	sim_heap_down(sim.th[sim.heap[pos].i].hpos);
}

static int sim_heap_pop(void)
{
	const int i = sim.heap[0].i;

	sim_heap_remove(i);
	return i;
}

/* ---- PUs: who runs, who waits ---- */

static inline int sim_index(const struct sim_thread *t)
{
	return (int)(t - sim.th);
}

/* Thread i takes PU p at time at. */
static void sim_give_pu(int p, int i, double at)
{
	struct sim_thread *t = &sim.th[i];

	sim.pus[p].cur = i;
	t->pu = p;
	if (t->now < at)
		t->now = at;
	t->state = VT_RUNNING;
	t->slice0 = t->now;
	sim_heap_push(i);
}

/* The running thread of PU p leaves it at time at: the queue's head takes it. */
static void sim_release_pu(int p, double at)
{
	struct sim_pu *u = &sim.pus[p];
	int i = u->q_head;

	u->cur = -1;
	if (i < 0)
		return;
	u->q_head = sim.th[i].next;
	if (u->q_head < 0)
		u->q_tail = -1;
	u->qlen--;
	sim_give_pu(p, i, at > sim.th[i].ready_at ? at : sim.th[i].ready_at);
}

static void sim_enqueue(int p, int i, double at)
{
	struct sim_pu *u = &sim.pus[p];
	struct sim_thread *t = &sim.th[i];

	t->state = VT_READY;
	t->ready_at = at;
	t->next = -1;
	t->pu = p;
	if (u->q_tail >= 0)
		sim.th[u->q_tail].next = i;
	else
		u->q_head = i;
	u->q_tail = i;
	u->qlen++;
	/* a thread parked on this PU now has someone waiting: its slice's end wakes it */
	if (u->cur >= 0 && sim.th[u->cur].state == VT_PARKED && sim_preemptible(&sim.th[u->cur])) {
		struct sim_thread *c = &sim.th[u->cur];
		const double end = c->slice0 + sim.slice_ns > at ? c->slice0 + sim.slice_ns : at;

		if (end < c->wake) {
			sim_heap_remove(u->cur);
			c->wake = end;
			sim_heap_push(u->cur);
		}
	}
}

/* Thread i is ready at time at: its PU if idle, else an idle one of its L3, else its PU's queue. */
static void sim_make_ready(int i, double at)
{
	struct sim_thread *t = &sim.th[i];
	const int p = t->pu;

	if (sim.pus[p].cur < 0) {
		sim_give_pu(p, i, at);
		return;
	}
	for (int q = 0; q < sim.nr_pus; q++)
		if (sim.pus[q].cur < 0 && sim.pus[q].l3 == sim.pus[p].l3 && !sim.pus[q].qlen) {
			sim_give_pu(q, i, at);
			return;
		}
	sim_enqueue(p, i, at);
}

/* ---- the threads ---- */

static void sim_fiber_entry(void)
{
	struct sim_thread *t = sim.cur;

#ifdef SIM_ASAN
	__sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
	t->fn(t->arg);
	t->state = VT_DONE;
	if (t->worker)
		sim.live_workers--;
	if (t->joiner >= 0) {
		sim.th[t->joiner].woken = 1;
		sim_make_ready(t->joiner, t->now);
	}
	sim_release_pu(t->pu, t->now);
	sim_to_scheduler();
	abort();	/* a done thread is never resumed */
}

int sim_sched_setup(int nthr, double slice_ns)
{
	sim.th_cap = nthr + 4;
	sim.th = calloc(sim.th_cap, sizeof(*sim.th));
	sim.heap = calloc(sim.th_cap, sizeof(*sim.heap));
	sim.wake_buf = calloc(sim.th_cap, sizeof(*sim.wake_buf));
	if (!sim.th || !sim.heap || !sim.wake_buf)
		return -ENOMEM;
	sim.nr_th = nthr;
	for (int i = 0; i < sim.th_cap; i++) {
		sim.th[i].hpos = -1;
		sim.th[i].joiner = -1;
		sim.th[i].next = -1;
		sim.th[i].park_until = 1e300;
	}
	sim.main_th.park_until = 1e300;
	sim.slice_ns = slice_ns;
	sim.cur = &sim.main_th;
	return 0;
}

void sim_sched_teardown(void)
{
	for (int i = 0; i < sim.nr_th; i++)
		if (sim.th[i].stack) {
#ifdef SIM_ASAN
			/* ASan's shadow still marks the frames' redzones: a later mapping at this address would inherit them */
			__asan_unpoison_memory_region(sim.th[i].stack, sim.th[i].stack_size);
#endif
			munmap(sim.th[i].stack, sim.th[i].stack_size);
		}
	free(sim.th);
	free(sim.heap);
	free(sim.wake_buf);
	for (int c = 0; c < sim.nr_chunks; c++)
		free(sim.obj_chunks[c]);
	free(sim.obj_chunks);
	free(sim.obj_hash);
}

/*
 * Start thread i (or, i < 0, a new one: a thread the code starts, which
 * runs on the last PU, a kworker somewhere) running fn(arg) from the
 * running context's time.  Its index, or -ENOMEM / -EAGAIN.
 */
int sim_thread_start(int i, void *(*fn)(void *), void *arg)
{
	struct sim_thread *t;

	if (i < 0) {
		if (sim.nr_th == sim.th_cap)
			return -EAGAIN;
		i = sim.nr_th++;
		sim.th[i].pu = sim.nr_pus - 1;
		sim.th[i].now = sim.cur->now;
	}
	t = &sim.th[i];
	t->stack = sim_stack_new(&t->stack_size);
	if (!t->stack)
		return -ENOMEM;
	t->sp = sim_stack_init(t->stack, t->stack_size);
	t->fn = fn;
	t->arg = arg;
	if (t->worker)
		sim.live_workers++;
	sim_make_ready(i, t->now);
	return i;
}

void sim_bail(const char *why)
{
	if (!sim.bailed)
		snprintf(sim.bail_why, sizeof(sim.bail_why), "%s", why);
	sim.bailed = 1;
	if (sim.cur != &sim.main_th)
		sim_to_scheduler();	/* never resumed: the projection stops */
}

void sim_starve_stop(const char *why)
{
	if (!sim.starved && !sim.bailed)
		snprintf(sim.bail_why, sizeof(sim.bail_why), "%s", why);
	sim.starved = 1;
	if (sim.cur != &sim.main_th)
		sim_to_scheduler();	/* never resumed: the run ends, its tree abandoned */
}

/* One event: resume the earliest running thread, or fire the earliest timer. */
static void sim_sched_one(void)
{
	const int i = sim_heap_pop();
	struct sim_thread *t = &sim.th[i];

	if (t->state == VT_TIMER) {
		t->woken = 0;
		t->now = t->wake;
		sim_make_ready(i, t->wake);
		return;
	}
	if (t->state == VT_PARKED) {
		/* its slice ended with others waiting: it leaves the PU and queues */
		t->now = t->wake;
		t->state = VT_RUNNING;
	}
	sim.cur = t;
	sim.switches++;
	sim_switch_to(&sim.sched_sp, t->sp, t->stack, t->stack_size);
	sim.cur = &sim.main_th;
}

static int sim_sched_loop(int until)
{
	char why[200];

	while (!sim.bailed && !sim.starved && (until >= 0 ? sim.th[until].state != VT_DONE : sim.live_workers > 0)) {
		if (!sim.hn) {
			snprintf(why, sizeof(why), "every virtual thread is blocked (%d workers not done): a wait "
				 "nobody can end", sim.live_workers);
			sim_bail(why);
			break;
		}
		sim_sched_one();
	}
	return sim.bailed ? -EDEADLK : 0;
}

int sim_sched_run(void)
{
	return sim_sched_loop(-1);
}

int sim_sched_run_until_done(int i)
{
	return sim_sched_loop(i);
}

/* The running thread leaves the real thread; when it is resumed, the time it was away is its wait. */
static void sim_away(struct sim_thread *t)
{
	const double before = t->now;

	sim_to_scheduler();
	if (t->now > before)
		sim_charge_wait(t, t->now - before);
}

/*
 * Before an access: any event earlier than the running thread's clock goes
 * first; a slice run out with others queued on the PU hands the PU over.
 */
void sim_maybe_yield(void)
{
	sim_yield_within(sim.lookahead);
}

void sim_yield_within(double ahead)
{
	struct sim_thread *t = sim.cur;
	struct sim_pu *u;

	if (t == &sim.main_th)
		return;
	u = &sim.pus[t->pu];
	if (sim_slice_over(t, u, sim.slice_ns)) {
		const int p = t->pu;

		sim_enqueue(p, sim_index(t), t->now);
		sim_release_pu(p, t->now);
		sim_away(t);
		return;
	}
	if (sim.hn && sim.heap[0].key < t->now - ahead) {
		const int j = sim.heap[0].i;

		if (sim.th[j].state != VT_RUNNING) {
			sim_heap_push(sim_index(t));
			sim_away(t);
			return;
		}
		/* the earliest is a running thread: it takes the heap's top, and the real thread, directly */
		sim.th[j].hpos = -1;
		sim_heap_set(0, sim_hent_of(sim_index(t)));
		sim_heap_down(0);
		sim.cur = &sim.th[j];
		sim.switches++;
		sim_switch_to(&t->sp, sim.th[j].sp, sim.th[j].stack, sim.th[j].stack_size);
	}
}

/* The running thread sleeps until `until`: off the CPU (a reader between reads, a timed wait). */
void sim_sleep(double until)
{
	struct sim_thread *t = sim.cur;

	if (t == &sim.main_th) {
		if (t->now < until)
			t->now = until;
		return;
	}
	if (until <= t->now) {
		sim_maybe_yield();
		return;
	}
	t->state = VT_TIMER;
	t->wake = until;
	sim_release_pu(t->pu, t->now);
	sim_heap_push(sim_index(t));
	sim_to_scheduler();	/* a sleep is not a wait of the operation's: its caller counts it */
}

/* A sched_yield syscall with nothing else to run on the PU (assumption: ~300 ns). */
#define SIM_YIELD_NS 300.0

void sim_yield_cpu(void)
{
	struct sim_thread *t = sim.cur;

	t->now += SIM_YIELD_NS;
	t->op_serial += SIM_YIELD_NS;
	t->op_overlap += SIM_YIELD_NS;
	t->last_load = 0;
	if (t == &sim.main_th)
		return;
	/* with preemption off (a kernel spinlock's waiter) a yield gives nothing away, as cond_resched() */
	if (sim.pus[t->pu].qlen && !t->nopreempt) {
		const int p = t->pu;

		sim_enqueue(p, sim_index(t), t->now);
		sim_release_pu(p, t->now);
		sim_away(t);
		return;
	}
	sim_maybe_yield();
}

/* ---- spinners parked on a line ---- */

#define SIM_TIMED_SPIN 64

void sim_pause(void)
{
	struct sim_thread *t = sim.cur;
	struct sim_line *l;

	t->now += sim.cal->pause_ns;
	t->op_serial += sim.cal->pause_ns;
	t->op_overlap += sim.cal->pause_ns;
	/*
	 * A spin that reads the clock within 64 pauses waits for a time (a
	 * deadline checked every few spins): it spins on, as written, since
	 * parking would skip the checks between.  Past 64 pauses without one
	 * it waits for the line alone.
	 */
	if (t == &sim.main_th || !t->last_load || ++t->pauses_since_clock <= SIM_TIMED_SPIN)
		return;
	l = sim_line_of(t->last_load * 64);
	/* still a hit: the value it polls cannot change until another PU writes the line */
	if (l->owner != t->pu && !(l->sharers[t->pu / 64] >> (t->pu % 64) & 1))
		return;
	if (t->park_until <= t->now)
		return;
	t->state = VT_PARKED;
	t->woken = 0;
	t->next = l->parked;
	l->parked = sim_index(t);
	t->wake = t->park_until;
	if (sim.pus[t->pu].qlen && sim_preemptible(t) && t->slice0 + sim.slice_ns < t->wake)
		t->wake = t->slice0 + sim.slice_ns > t->now ? t->slice0 + sim.slice_ns : t->now;
	if (t->wake < 1e300)
		sim_heap_push(sim_index(t));
	sim_away(t);
	if (!t->woken) {
		/* its slice ended: off the line's list (its link is the run queue's next) */
		int *pp = &sim_line_of(t->last_load * 64)->parked;

		while (*pp >= 0 && *pp != sim_index(t))
			pp = &sim.th[*pp].next;
		if (*pp >= 0)
			*pp = t->next;
		t->next = -1;
	}
	t->last_load = 0;
}

void sim_join(int i)
{
	struct sim_thread *t = sim.cur;

	if (i < 0 || i >= sim.nr_th || sim.th[i].state == VT_DONE || &sim.th[i] == t)
		return;
	if (t == &sim.main_th) {
		sim_sched_run_until_done(i);
		return;
	}
	sim.th[i].joiner = sim_index(t);
	t->state = VT_BLOCKED;
	sim_release_pu(t->pu, t->now);
	sim_away(t);
}

/* PU pu wrote l at time at: every thread parked on it runs again from then (the re-read is a miss). */
void sim_line_written(struct sim_line *l, int pu, double at)
{
	int n = 0;

	(void)pu;
	for (int i = l->parked; i >= 0; i = sim.th[i].next)
		sim.wake_buf[n++] = i;
	l->parked = -1;
	/* the list is newest first: the longest parked is woken first (it wins a tie) */
	while (n--) {
		const int i = sim.wake_buf[n];
		struct sim_thread *t = &sim.th[i];

		t->next = -1;
		if (t->state != VT_PARKED)
			continue;
		t->woken = 1;
		sim_heap_remove(i);
		if (t->now < at)
			t->now = at;
		t->state = VT_RUNNING;
		sim_heap_push(i);
	}
}

/* ---- synchronisation objects by address ---- */

static size_t sim_obj_hash(const void *a, size_t cap)
{
	return (size_t)(((uintptr_t)a * 0x9e3779b97f4a7c15ULL) >> (64 - __builtin_ctzll(cap)));
}

static int sim_obj_rehash(size_t cap)
{
	int *h = malloc(cap * sizeof(int));

	if (!h)
		return -ENOMEM;
	for (size_t k = 0; k < cap; k++)
		h[k] = -1;
	for (int i = 0; i < sim.nr_objs; i++) {
		size_t k = sim_obj_hash(sim_obj_at(i)->addr, cap);

		while (h[k] >= 0)
			k = (k + 1) & (cap - 1);
		h[k] = i;
	}
	free(sim.obj_hash);
	sim.obj_hash = h;
	sim.obj_hcap = cap;
	return 0;
}

/* The object at addr (made, of this kind, the first time it is seen; kind < 0: only find). */
struct sim_obj *sim_obj_of(const void *addr, int kind)
{
	size_t k;

	if (sim.obj_hcap) {
		k = sim_obj_hash(addr, sim.obj_hcap);
		while (sim.obj_hash[k] >= 0) {
			if (sim_obj_at(sim.obj_hash[k])->addr == addr)
				return sim_obj_at(sim.obj_hash[k]);
			k = (k + 1) & (sim.obj_hcap - 1);
		}
	}
	if (kind < 0)
		return NULL;
	if (sim.nr_objs == sim.nr_chunks * SIM_OBJ_CHUNK) {
		struct sim_obj **n = realloc(sim.obj_chunks, sizeof(*n) * (sim.nr_chunks + 1));

		if (!n)
			abort();	/* the model cannot go on without its locks */
		sim.obj_chunks = n;
		if (!(n[sim.nr_chunks] = malloc(sizeof(**n) * SIM_OBJ_CHUNK)))
			abort();
		sim.nr_chunks++;
	}
	if (sim.cal)
		sim_line_of((uintptr_t)addr)->sync = 1;	/* its line keeps strict order (sim.c's quiet hits) */
	*sim_obj_at(sim.nr_objs) = (struct sim_obj){ .addr = addr, .kind = kind, .holder = -1, .handoff = -1, .w_head = -1,
						  .w_tail = -1, .region = proj_rt_region_of((uintptr_t)addr) };
	sim.nr_objs++;
	if ((size_t)sim.nr_objs * 2 > sim.obj_hcap && sim_obj_rehash(sim.obj_hcap ? 2 * sim.obj_hcap : 128))
		abort();
	if (!sim.obj_hcap || sim_obj_at(sim.nr_objs - 1)->addr != addr)
		abort();
	k = sim_obj_hash(addr, sim.obj_hcap);
	while (sim.obj_hash[k] >= 0 && sim.obj_hash[k] != sim.nr_objs - 1)
		k = (k + 1) & (sim.obj_hcap - 1);
	sim.obj_hash[k] = sim.nr_objs - 1;
	return sim_obj_at(sim.nr_objs - 1);
}

static void sim_obj_unqueue(struct sim_obj *o, int i)
{
	int *pp = &o->w_head, prev = -1;

	while (*pp >= 0 && *pp != i) {
		prev = *pp;
		pp = &sim.th[*pp].next;
	}
	if (*pp != i)
		return;
	*pp = sim.th[i].next;
	if (o->w_tail == i)
		o->w_tail = prev;
	sim.th[i].next = -1;
}

/*
 * The running thread waits on o until woken (sim_wake_one), or until
 * timeout_at (a timed wait; < 0: none).  t->woken says which.  The main
 * context cannot leave the real thread: it runs the scheduler until woken.
 */
void sim_block_on(struct sim_obj *o, double timeout_at)
{
	struct sim_thread *t = sim.cur;
	const int me = t == &sim.main_th ? -1 : sim_index(t);

	if (me < 0) {
		/* the tree's teardown waiting for a thread: let the others run until it is free */
		t->woken = 1;
		if (sim.hn)
			sim_sched_one();
		else
			sim_bail("the main context waits on a lock nobody holds a way to free");
		return;
	}
	t->next = -1;
	if (o->w_tail >= 0)
		sim.th[o->w_tail].next = me;
	else
		o->w_head = me;
	o->w_tail = me;
	t->woken = 0;
	sim_release_pu(t->pu, t->now);
	if (timeout_at >= 0) {
		t->state = VT_TIMER;
		t->wake = timeout_at > t->now ? timeout_at : t->now;
		sim_heap_push(me);
	} else {
		t->state = VT_BLOCKED;
	}
	sim_away(t);
	if (!t->woken)
		sim_obj_unqueue(o, me);
	t->last_load = 0;
}

int sim_wake_one(struct sim_obj *o, double at)
{
	const int i = o->w_head;
	struct sim_thread *t;

	if (i < 0)
		return 0;
	t = &sim.th[i];
	o->w_head = t->next;
	if (o->w_head < 0)
		o->w_tail = -1;
	t->next = -1;
	sim_heap_remove(i);	/* a timed wait: woken before its timeout */
	t->woken = 1;
	t->now = at > t->now ? at : t->now;
	sim_make_ready(i, t->now);
	return 1;
}

void sim_wake_this(struct sim_obj *o, int i, double at)
{
	struct sim_thread *t = &sim.th[i];

	sim_obj_unqueue(o, i);
	sim_heap_remove(i);
	t->woken = 1;
	t->now = at > t->now ? at : t->now;
	sim_make_ready(i, t->now);
}
