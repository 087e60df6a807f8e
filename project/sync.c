/* SPDX-License-Identifier: MIT */
/*
 * sync.c - the tree's locks, semaphores and condition variables in the
 * model, and the lock table a projection reports (docs/projection.md).
 *
 * rt.c turns the instrumented code's pthread and semaphore calls into
 * these.  Each object is known by its address; its word's line is costed as
 * the real one's (a take and a release are RMWs on it, a spinner's re-read a
 * load).  Which thread holds it and who waits is the model's own state; the
 * real object is never taken (one real thread runs every virtual one).
 *
 * - A pthread mutex: taken if free; else its waiter spins (parked on the
 *   lock's line, re-reading it when the holder's release writes it) for up
 *   to the calibration's mutex_spin_ns while the holder is on a CPU, as a
 *   kernel mutex's optimistic spin and glibc's adaptive one do, then sleeps
 *   until an unlock wakes it (wake_ns later) and competes again.  Taken
 *   with preemption off (a kernel raw spinlock), it spins until it is free.
 * - A pthread spinlock: test-and-test-and-set, spinning for ever.
 * - A semaphore: a count; a waiter at 0 sleeps until a post hands it over.
 * - A condition variable: its waiter sleeps until signalled (wake_ns later)
 *   or its deadline, then retakes the mutex.
 * - A flag: a word libctr's own code takes with an acquiring exchange from
 *   0 (rstat's lockkind=spin, the stock's lock) and frees by storing 0:
 *   the access stream alone makes it a lock; this file only counts it.
 * Figures count over the measured window (the acquiring operation's), by
 * role (CTR_LOCK_ROLE in counters/).
 */
#include <errno.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

static inline int sim_me(void)
{
	return sim.cur == &sim.main_th ? -1 : (int)(sim.cur - sim.th);
}

static void sim_took(struct sim_obj *o, double since, int waited)
{
	struct sim_thread *t = sim.cur;

	o->holder = sim_me() >= 0 ? sim_me() : sim.nr_th;	/* the main context holds as "nr_th" */
	o->held_at = t->now;
	if (!t->counting)
		return;
	o->acq++;
	if (waited) {
		o->contended++;
		o->wait += t->now - since;
	}
}

static void sim_released(struct sim_obj *o)
{
	if (o->holder >= 0 && sim.cur->counting)
		o->hold += sim.cur->now - o->held_at;
	o->holder = -1;
}

/* Whether o's holder is on a CPU (running, or spinning there): an optimistic spinner keeps spinning. */
static int sim_holder_runs(const struct sim_obj *o)
{
	if (o->holder < 0 || o->holder >= sim.nr_th)
		return o->holder >= 0;
	return sim.th[o->holder].state == VT_RUNNING || sim.th[o->holder].state == VT_PARKED;
}

void proj_sim_lock_role(const void *addr, const char *role)
{
	struct sim_obj *o;

	if (!sim.cal)
		return;
	o = sim_obj_of(addr, SIM_OBJ_FLAG);
	snprintf(o->role, sizeof(o->role), "%s", role);
}

/* Taken, or handed over to the running thread by the last unlock. */
static int sim_lock_mine(const struct sim_obj *o)
{
	return o->holder < 0 || (o->holder == sim_me() && sim_me() >= 0);
}

/*
 * A waiter that was woken, or saw a release, and still lost the lock to a
 * barging taker asks for a handoff, as a kernel mutex's waiter does
 * (MUTEX_FLAG_HANDOFF): the next unlock gives the lock to it.  Without it
 * a thread that retakes the lock at once after every unlock (a tight loop,
 * no work between) would starve the others for ever in a model with no
 * noise, and the projection would never end.
 */
static void sim_want_handoff(struct sim_obj *o)
{
	if (o->handoff < 0 && sim_me() >= 0)
		o->handoff = sim_me();
}

int proj_sim_mutex_lock(void *m, int try, int spin_forever)
{
	struct sim_obj *o = sim_obj_of(m, SIM_OBJ_MUTEX);
	struct sim_thread *t = sim.cur;
	const double since = t->now;
	int waited = 0;

	o->kind = SIM_OBJ_MUTEX;
	/*
	 * Taken with preemption off (ctr_preempt_disable: a kernel raw spinlock,
	 * rstat's link lock), a mutex is waited for spinning, never asleep: a
	 * sleeper gives its PU away, and a spinner of a lock it holds, which no
	 * slice end moves, could keep it from ever getting it back.
	 */
	spin_forever |= t->nopreempt > 0;
	proj_sim_access((uintptr_t)m, 4, PROJ_RMW);
	while (!sim_lock_mine(o)) {
		const double spin_end = spin_forever ? 1e300 : since + sim.cal->mutex_spin_ns;

		if (try)
			return EBUSY;
		if (waited)
			sim_want_handoff(o);
		waited = 1;
		if (t == &sim.main_th) {
			sim_block_on(o, -1);
			continue;
		}
		/* spin on the lock word while the holder runs; the release writes it */
		while (!sim_lock_mine(o) && t->now < spin_end && (spin_forever || sim_holder_runs(o))) {
			proj_sim_access((uintptr_t)m, 4, PROJ_LOAD);
			if (sim_lock_mine(o))
				break;
			t->park_until = spin_end;
			sim_pause();
			t->park_until = 1e300;
		}
		if (!sim_lock_mine(o))
			sim_block_on(o, -1);	/* sleep until an unlock wakes it */
		if (o->holder < 0)
			proj_sim_access((uintptr_t)m, 4, PROJ_RMW);	/* the take */
	}
	if (o->handoff == sim_me())
		o->handoff = -1;
	sim_took(o, since, waited);
	return 0;
}

void proj_sim_mutex_unlock(void *m)
{
	struct sim_obj *o = sim_obj_of(m, SIM_OBJ_MUTEX);
	const int h = o->handoff;

	proj_sim_access((uintptr_t)m, 4, PROJ_RMW);
	sim_released(o);
	if (h >= 0 && h != sim_me()) {
		/* handed over: the waiter holds it from now; asleep, it is woken, spinning, the release woke it */
		o->holder = h;
		o->handoff = -1;
		if (sim.th[h].state == VT_BLOCKED)
			sim_wake_this(o, h, sim.cur->now + sim.cal->wake_ns);
		return;
	}
	sim_wake_one(o, sim.cur->now + sim.cal->wake_ns);
}

/* The model's count starts at the real semaphore's value, read once (sem_init ran for real). */
static struct sim_obj *sim_sem_of(sem_t *s)
{
	struct sim_obj *o = sim_obj_of(s, -1);

	if (!o) {
		int v = 0;

		o = sim_obj_of(s, SIM_OBJ_SEM);
		sem_getvalue(s, &v);
		o->count = v;
	} else if (o->kind != SIM_OBJ_SEM) {
		int v = 0;

		o->kind = SIM_OBJ_SEM;
		sem_getvalue(s, &v);
		o->count = v;
	}
	return o;
}

/* A wait: 0, or ETIMEDOUT (deadline_ns >= 0, virtual) / EAGAIN (a trywait) with the count at 0. */
int proj_sim_sem_wait(sem_t *s, int try, double deadline_ns)
{
	struct sim_obj *o = sim_sem_of(s);
	struct sim_thread *t = sim.cur;
	const double since = t->now;

	proj_sim_access((uintptr_t)s, 4, PROJ_RMW);
	if (o->count > 0) {
		o->count--;
		sim_took(o, since, 0);
		return 0;
	}
	if (try)
		return EAGAIN;
	for (;;) {
		sim_block_on(o, deadline_ns);
		if (t != &sim.main_th && t->woken)
			break;		/* a post handed it over */
		if (t == &sim.main_th && o->count > 0) {
			o->count--;
			break;
		}
		if (t != &sim.main_th || (deadline_ns >= 0 && t->now >= deadline_ns))
			return ETIMEDOUT;
	}
	sim_took(o, since, 1);
	return 0;
}

void proj_sim_sem_post(sem_t *s)
{
	struct sim_obj *o = sim_sem_of(s);

	proj_sim_access((uintptr_t)s, 4, PROJ_RMW);
	if (o->holder >= 0)
		sim_released(o);
	if (!sim_wake_one(o, sim.cur->now + sim.cal->wake_ns))
		o->count++;
}

/* A condition wait: the mutex released, asleep until signalled or the deadline, the mutex retaken. */
int proj_sim_cond_wait(void *c, void *m, double deadline_ns)
{
	struct sim_obj *o = sim_obj_of(c, SIM_OBJ_COND);
	struct sim_thread *t = sim.cur;
	int woken;

	proj_sim_mutex_unlock(m);
	sim_block_on(o, deadline_ns);
	woken = t->woken;
	proj_sim_mutex_lock(m, 0, 0);
	return woken || t == &sim.main_th ? 0 : ETIMEDOUT;
}

void proj_sim_cond_signal(void *c, int all)
{
	struct sim_obj *o = sim_obj_of(c, SIM_OBJ_COND);

	while (sim_wake_one(o, sim.cur->now + sim.cal->wake_ns) && all)
		;
}

/* ---- flags: test-and-set words of libctr's own code ---- */

void proj_sim_flag(const volatile void *addr, int held)
{
	struct sim_thread *t = sim.cur;
	struct sim_obj *o;

	if (!sim.cal)
		return;
	if (!held) {
		o = sim_obj_of((const void *)addr, -1);
		if (o && o->kind == SIM_OBJ_FLAG && o->holder >= 0)
			sim_released(o);
		return;
	}
	o = sim_obj_of((const void *)addr, SIM_OBJ_FLAG);
	sim_took(o, t->flag_since, t->flag_wait == (const void *)addr);
	t->flag_wait = NULL;
}

/* A flag seen taken (an acquiring exchange or a load found it nonzero): its wait starts. */
void proj_sim_flag_busy(const volatile void *addr)
{
	struct sim_thread *t = sim.cur;
	const struct sim_obj *o;

	if (!sim.cal || t->flag_wait == (const void *)addr)
		return;
	o = sim_obj_of((const void *)addr, -1);
	if (o && o->kind == SIM_OBJ_FLAG && o->holder >= 0) {
		t->flag_wait = (const void *)addr;
		t->flag_since = t->now;
	}
}

/* ---- the lock table ---- */

static int sim_stat_by_wait(const void *a, const void *b)
{
	const struct proj_lock_stat *x = a, *y = b;

	if (x->wait_ns != y->wait_ns)
		return x->wait_ns < y->wait_ns ? 1 : -1;
	if (x->acq != y->acq)
		return x->acq < y->acq ? 1 : -1;
	return strcmp(x->role, y->role);
}

/* Every lock taken in the window, by role (locks of one role summed), most wait first. */
void sim_lock_table(struct proj_result *res)
{
	struct proj_lock_stat *all = calloc(sim.nr_objs + 1, sizeof(*all));
	int n = 0;

	if (!all)
		return;
	for (int i = 0; i < sim.nr_objs; i++) {
		const struct sim_obj *o = sim_obj_at(i);
		char role[48];
		int k;

		if (!o->acq || o->kind == SIM_OBJ_COND)
			continue;
		if (o->role[0])
			snprintf(role, sizeof(role), "%s", o->role);
		else
			snprintf(role, sizeof(role), "%s in allocation %d",
				 o->kind == SIM_OBJ_SEM ? "semaphore" : "lock", o->region);
		for (k = 0; k < n && strcmp(all[k].role, role); k++)
			;
		if (k == n)
			snprintf(all[n++].role, sizeof(all[0].role), "%s", role);
		all[k].acq += o->acq;
		all[k].contended += o->contended;
		all[k].wait_ns += o->wait;
		all[k].hold_ns += o->hold;
	}
	qsort(all, n, sizeof(*all), sim_stat_by_wait);
	res->nr_locks = n < PROJ_MAX_LOCK_STATS ? n : PROJ_MAX_LOCK_STATS;
	memcpy(res->locks, all, sizeof(*all) * res->nr_locks);
	if (n) {
		res->lock_acq = all[0].acq;
		res->lock_contended = all[0].contended;
		res->lock_wait_ns = all[0].wait_ns;
	}
	free(all);
}
