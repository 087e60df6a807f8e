/* SPDX-License-Identifier: MIT */
/*
 * sim.c - the machine of the projection's model (docs/projection.md): PUs of
 * a topology (this machine's or a hwloc synthetic one), cache lines in MESI
 * states over them, and what each access of the instrumented code costs.
 *
 * Per cache line the model keeps the MESI state over PUs (an owner in M/E,
 * or a set of sharers in S), the line's home node (where it was bound, else
 * its first toucher's) and when its last booked transfer ends: transfers of
 * one line are booked in order, each starting when the one before it ends,
 * so a contended line serialises.  A miss costs the calibration's figure for
 * the class of the nearest holder (a load) or of the farthest one (a store
 * or RMW, which must invalidate every copy).  SMT siblings are one core: a
 * line the sibling holds costs the SMT figure.  An owner RMW-ing a line back
 * to back keeps it for the calibration's burst of its own RMWs before a
 * request from another PU takes it (a core finishes
 * its queued locked operations before it answers a snoop, as measured: 14-20
 * adds per handover on two cores here).  Capacity: each core's L2 and each
 * L3 hold their size in lines, and a line dropped from both comes from DRAM
 * next time (the capacity model, below).
 *
 * Each operation's cost is summed twice: serially (every access waits for
 * the one before) and with independent misses overlapped (the misses
 * between two RMWs or fences cost their slowest one, or their sum over the
 * core's outstanding-miss limit if that is more), which bound what
 * out-of-order cores achieve.  The serial sum drives the clocks.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

const char *const proj_class_names[PROJ_NR_CLASSES] = {
	"smt", "ccx", "xccx", "xccx_rh", "socket", "dram",
};

struct sim_state_all sim;

/* Class of a transfer to PU a from PU b of a line whose home is NUMA node home. */
static int sim_class(int a, int b, int home)
{
	const struct sim_pu *x = &sim.pus[a], *y = &sim.pus[b];

	if (x->core == y->core)
		return PROJ_C_SMT;
	if (x->l3 == y->l3)
		return PROJ_C_CCX;
	if (x->pkg == y->pkg)
		return home >= 0 && sim.numa_pkg[home] != x->pkg ? PROJ_C_XCCX_RH : PROJ_C_XCCX;
	return PROJ_C_SOCKET;
}

static inline int sim_bit(const uint64_t *b, int i)
{
	return (int)(b[i / 64] >> (i % 64)) & 1;
}

static int sim_grow(void);

/*
 * Fibonacci hashing, the product's high bits: the low bits of a line number
 * repeat across page-aligned per-CPU areas, and would pile them into one run.
 */
static inline size_t sim_hash(uintptr_t tag)
{
	return (size_t)((tag * 0x9e3779b97f4a7c15ULL) >> (64 - __builtin_ctzll(sim.cap)));
}

struct sim_line *sim_line_of(uintptr_t addr)
{
	const uintptr_t tag = addr / 64;
	int home_os;
	size_t h;

	if (sim.used * 2 >= sim.cap && sim_grow())
		abort();	/* out of memory: the model cannot go on */
	h = sim_hash(tag);
	while (sim.lines[h].tag && sim.lines[h].tag != tag)
		h = (h + 1) & (sim.cap - 1);
	if (!sim.lines[h].tag) {
		struct sim_line *l = &sim.lines[h];

		home_os = proj_rt_home_of(addr);	/* once, when the line is first seen */
		l->tag = tag;
		l->owner = -1;
		l->nsharers = 0;
		l->busy = l->hold = -1;
		l->dstart = -1;
		l->dpu = l->dlast = -1;
		l->burst_n = 0;
		l->waiter = -1;
		l->parked = -1;
		l->sync = 0;
		l->gen = l->vgen = 0;
		l->victim_pu = -1;
		l->ref = 0;
		l->sharers = &sim.bits[h * sim.words];
		memset(l->sharers, 0, sizeof(uint64_t) * sim.words);
		l->home = home_os >= 0 && home_os <= sim.max_numa_os && sim.numa_of_os[home_os] >= 0 ?
			  sim.numa_of_os[home_os] : sim.pus[sim.cur->pu].numa;
		sim.used++;
	}
	return &sim.lines[h];
}



static int sim_alloc(size_t cap)
{
	sim.lines = calloc(cap, sizeof(*sim.lines));
	sim.bits = calloc(cap * sim.words, sizeof(uint64_t));
	if (!sim.lines || !sim.bits) {
		free(sim.lines);
		free(sim.bits);
		return -ENOMEM;
	}
	sim.cap = cap;
	sim.used = 0;
	return 0;
}

static int sim_grow(void)
{
	struct sim_line *old = sim.lines;
	uint64_t *oldbits = sim.bits;
	size_t oldcap = sim.cap;

	if (sim_alloc(oldcap * 2)) {
		sim.lines = old;
		sim.bits = oldbits;
		return -ENOMEM;
	}
	for (size_t i = 0; i < oldcap; i++) {
		struct sim_line *o = &old[i], *n;
		size_t h;

		if (!o->tag)
			continue;
		h = sim_hash(o->tag);
		while (sim.lines[h].tag)
			h = (h + 1) & (sim.cap - 1);
		n = &sim.lines[h];
		*n = *o;
		n->sharers = &sim.bits[h * sim.words];
		memcpy(n->sharers, o->sharers, sizeof(uint64_t) * sim.words);
		sim.used++;
	}
	free(old);
	free(oldbits);
	return 0;
}

/* ---- the capacity model ---- */

/*
 * Each core's L2 and each L3 hold at most their size in lines.  An L2 is
 * filled by its core's misses; full, it drops the line that came in
 * first and has not been hit since it last came round (FIFO with a second
 * chance, LRU's usual stand-in).  What an L2 drops goes to its L3 (Zen's
 * L3 is a victim cache of its CCX's L2s): a later miss of that CCX is an
 * L3 hit (l3_hit_ns, no transfer), another CCX's is served from there as
 * from that core.  A full L3 drops its oldest (FIFO); a line nobody holds
 * any more comes from DRAM next time.  A store anywhere makes the L3's copy
 * stale.  Approximations: one "hit since" bit per line, not per cache; a
 * line filled into several L2s can be dropped by capacity only from the
 * last one that filled it (the others lose it when it is written).
 */
#define SIM_L3_HIT (-2)		/* a class of sim_load/sim_store: the core's own L3 had it */

/* The line of tag if the table has it: no insertion, no growth (the callers hold line pointers). */
static struct sim_line *sim_line_find(uintptr_t tag)
{
	size_t h = sim_hash(tag);

	while (sim.lines[h].tag && sim.lines[h].tag != tag)
		h = (h + 1) & (sim.cap - 1);
	return sim.lines[h].tag ? &sim.lines[h] : NULL;
}

static void sim_ring_push(struct sim_ring *r, uintptr_t tag, uint32_t gen)
{
	if (r->n == r->cap) {
		const size_t cap = r->cap ? r->cap * 2 : 64;
		struct sim_rent *e = malloc(cap * sizeof(*e));

		if (!e)
			abort();	/* out of memory: the model cannot go on (as sim_line_of) */
		for (size_t i = 0; i < r->n; i++)
			e[i] = r->e[(r->head + i) & (r->cap - 1)];
		free(r->e);
		r->e = e;
		r->cap = cap;
		r->head = 0;
	}
	r->e[(r->head + r->n++) & (r->cap - 1)] = (struct sim_rent){ .tag = tag, .gen = gen };
}

static struct sim_rent sim_ring_pop(struct sim_ring *r)
{
	const struct sim_rent e = r->e[r->head];

	r->head = (r->head + 1) & (r->cap - 1);
	r->n--;
	return e;
}

/* Line l, dropped by the L2 of PU pu's core, into that L3; a full L3 drops its oldest. */
static void sim_l3_fill(struct sim_line *l, int pu)
{
	const int c = sim.pus[pu].l3;
	struct sim_ring *r = &sim.l3[c];

	l->victim_pu = pu;
	sim_ring_push(r, l->tag, ++l->vgen);
	while (r->n > r->max) {
		const struct sim_rent e = sim_ring_pop(r);
		struct sim_line *x = sim_line_find(e.tag);

		if (x && x->victim_pu >= 0 && x->vgen == e.gen && sim.pus[x->victim_pu].l3 == c) {
			x->victim_pu = -1;
			sim.dram_evicted++;
		}
	}
}

/* Core k's L2 drops line x: every copy of its PUs (an owner's dirty one written back), into its L3. */
static void sim_l2_drop(struct sim_line *x, int k)
{
	int pu = -1;

	if (x->owner >= 0 && sim.pus[x->owner].core == k) {
		pu = x->owner;
		x->owner = -1;
	}
	for (int w = 0; w < sim.words && x->nsharers; w++)
		for (uint64_t b = x->sharers[w]; b; b &= b - 1) {
			const int q = w * 64 + __builtin_ctzll(b);

			if (sim.pus[q].core == k) {
				x->sharers[w] &= ~(1ull << (q % 64));
				x->nsharers--;
				pu = q;
			}
		}
	if (pu < 0)
		return;		/* invalidated since: nothing of it left here */
	sim.evictions++;
	sim_l3_fill(x, pu);
}

/* A miss of PU pu brought line l into its core's L2; a full L2 drops one. */
static void sim_l2_fill(struct sim_line *l, int pu)
{
	const int k = sim.pus[pu].core;
	struct sim_ring *r = &sim.l2[k];

	l->ref = 0;
	sim_ring_push(r, l->tag, ++l->gen);
	while (r->n > r->max) {
		const struct sim_rent e = sim_ring_pop(r);
		struct sim_line *x = sim_line_find(e.tag);

		if (!x || x->gen != e.gen)
			continue;	/* filled again since (here or elsewhere): that fill's entry stands for it */
		if (x->ref) {
			x->ref = 0;	/* hit since: round once more */
			sim_ring_push(r, e.tag, e.gen);
			continue;
		}
		sim_l2_drop(x, k);
	}
}

/* Where a miss of PU p on l comes from when no PU holds it: its own L3, another L3, or DRAM. */
static int sim_uncached_class(const struct sim_line *l, int p)
{
	if (l->victim_pu < 0)
		return PROJ_C_DRAM;
	if (sim.pus[l->victim_pu].l3 == sim.pus[p].l3)
		return SIM_L3_HIT;
	return sim_class(p, l->victim_pu, l->home);
}

/*
 * The class a load by PU p is served from (-1: a hit; SIM_L3_HIT): the
 * nearest copy, the owner's, or where an uncached line comes from.  No
 * state changes (sim_load makes them).
 */
static int sim_load_class(const struct sim_line *l, int p)
{
	int cls = -1;

	if (l->owner == p || sim_bit(l->sharers, p))
		return -1;
	if (l->owner >= 0)
		return sim_class(p, l->owner, l->home);
	if (!l->nsharers)
		return sim_uncached_class(l, p);
	/* the nearest copy answers */
	for (int w = 0; w < sim.words; w++)
		for (uint64_t b = l->sharers[w]; b; b &= b - 1) {
			int q = w * 64 + __builtin_ctzll(b);
			int k = sim_class(p, q, l->home);

			if (cls < 0 || sim.cal->ns[k] < sim.cal->ns[cls])
				cls = k;
		}
	return cls;
}

/* A load miss by PU p (sim_load_class said where from): the line moved to S (or E from memory or an L3). */
static void sim_load_miss(struct sim_line *l, int p)
{
	if (l->owner >= 0) {
		l->sharers[l->owner / 64] |= 1ull << (l->owner % 64);
		l->sharers[p / 64] |= 1ull << (p % 64);
		l->nsharers = 2;
		l->owner = -1;
	} else if (l->nsharers) {
		l->sharers[p / 64] |= 1ull << (p % 64);
		l->nsharers++;
	} else {
		l->owner = p;	/* E */
	}
}

/*
 * The class a store or RMW by PU p waits for (-1: a hit; SIM_L3_HIT):
 * every other copy is invalidated, so the farthest bounds the wait.  No
 * state changes (sim_store makes them).
 */
static int sim_store_class(const struct sim_line *l, int p)
{
	int far = -1;

	if (l->owner == p)
		return -1;
	if (l->owner >= 0)
		far = sim_class(p, l->owner, l->home);
	for (int w = 0; w < sim.words && l->nsharers; w++)
		for (uint64_t b = l->sharers[w]; b; b &= b - 1) {
			int q = w * 64 + __builtin_ctzll(b);
			int k;

			if (q == p)
				continue;
			k = sim_class(p, q, l->home);
			if (far < 0 || sim.cal->ns[k] > sim.cal->ns[far])
				far = k;
		}
	return far >= 0 ? far : sim_uncached_class(l, p);
}

/* A store or RMW by PU p (sim_store_class said what it waits for): the line moved to M at p; an L3's copy is stale from now on. */
static void sim_store_own(struct sim_line *l, int p)
{
	if (l->nsharers)
		memset(l->sharers, 0, sizeof(uint64_t) * sim.words);
	l->nsharers = 0;
	l->owner = p;
	l->victim_pu = -1;
}

/* The line's state moved for an access of kind by PU p whose class (sim_*_class) was cls. */
static void sim_move(struct sim_line *l, int p, int kind, int cls)
{
	if (kind != PROJ_LOAD)
		sim_store_own(l, p);
	else if (cls != -1)
		sim_load_miss(l, p);
}


void sim_machine_teardown(void)
{
	for (int i = 0; sim.l2 && i < sim.nr_cores; i++)
		free(sim.l2[i].e);
	for (int i = 0; sim.l3 && i < sim.nr_l3; i++)
		free(sim.l3[i].e);
	free(sim.l2);
	free(sim.l3);
	sim.l2 = sim.l3 = NULL;
	free(sim.pus);
	free(sim.numa_pkg);
	free(sim.numa_of_os);
	free(sim.lines);
	free(sim.bits);
}

/* The misses since the last RMW or fence overlap: their slowest, or their sum over the core's miss limit. */
void sim_close_group(struct sim_thread *t)
{
	double g = t->group_max;

	if (sim.cal && sim.cal->mlp > 0 && t->group_sum / sim.cal->mlp > g)
		g = t->group_sum / sim.cal->mlp;
	t->op_overlap += g;
	t->group_max = t->group_sum = 0;
}

/* t waited w ns (a busy line, a lock, the run queue): in both sums, as wait. */
void sim_charge_wait(struct sim_thread *t, double w)
{
	sim_close_group(t);
	t->op_serial += w;
	t->op_overlap += w;
	t->op_wait += w;
}

/*
 * One step of the running operation: an access, a yield, a pause, a clock
 * read.  The watchdog counts steps since any worker last finished an
 * operation (run.c resets it): a wait that starves one thread while the
 * others go on is the design's (a test-and-set lock is not fair); steps
 * past max_steps with nobody finishing anything are a wait that never ends,
 * and the projection stops there instead of running for ever.
 */
void proj_sim_step(void)
{
	if (!sim.cal)
		return;
	sim.cur->last_load = 0;		/* a clock read or a yield between: not a plain poll of a line */
	sim_budget_step();
}

void sim_budget_step(void)
{
	sim_step(sim.cur);
}

/* The watchdog and the starvation bound, past their cheap tests (sim_step). */
void sim_step_slow(struct sim_thread *t)
{
	if (sim.max_op > 0 && t->now - t->op_t0 > SIM_STARVE_NS && t->now - t->op_t0 > SIM_STARVE_X * sim.max_op &&
	    t->worker && sim.done_role[t->reader] - t->role_done0 > SIM_STARVE_X * (long)sim.nr_role[t->reader] &&
	    !sim.starved) {
		char why[200];

		snprintf(why, sizeof(why), "thread %d (PU %d) starved: one operation waited %.1f s of virtual time "
			 "while the others went on", (int)(t - sim.th), t->pu, (t->now - t->op_t0) / 1e9);
		sim_starve_stop(why);
	}
	if (sim.idle_steps > sim.max_steps && sim.max_steps && t != &sim.main_th) {
		char why[200];

		snprintf(why, sizeof(why), "no operation finished in %ld steps (accesses, yields, pauses, clock "
			 "reads; the last on PU %d): a wait that never ends", sim.max_steps, t->pu);
		sim_bail(why);
	}
}

/* The transfer of class cls to t: booked after the line's last one (transfers of a line are in order). */
static double sim_transfer(struct sim_thread *t, struct sim_line *l, int cls)
{
	const double lat = sim.cal->ns[cls];
	const double start = t->now >= l->busy ? t->now : l->busy;

	t->op_wait += start - t->now;
	l->busy = start + lat;
	if (t->counting)
		t->xfer[cls] += 1;
	return start - t->now + lat;
}

/*
 * An owner RMW-ing its line back to back keeps it for a burst:
 * a request from another PU waits while the owner's accesses keep coming
 * (each within an RMW hit of the one before) and the burst is not spent.
 * The requester waits until just after the owner's last one; if the owner
 * made another meanwhile, again.  1 if it waited (the caller yields first).
 */
static int sim_burst_stall(struct sim_thread *t, struct sim_line *l)
{
	const double win = sim.cal->hit_rmw_ns;
	const int me = t == &sim.main_th ? -1 : (int)(t - sim.th);
	double until;

	if (me < 0)
		return 0;
	if (l->owner == t->pu) {
		if (l->waiter == me)
			l->waiter = -1;	/* it has the line: no longer the one the others wait behind */
		return 0;
	}
	/*
	 * A waiter off its CPU (its slice ended, it sleeps, it is done) has no
	 * request outstanding: it no longer holds the others back (one in its
	 * PU's run queue kept 600 readers stepping 5 ns at a time for 3 ms).
	 */
	if (l->waiter >= 0 && l->waiter != me && sim.th[l->waiter].state != VT_RUNNING)
		l->waiter = -1;
	if (l->waiter >= 0 && l->waiter != me) {
		/* requests are served in order: the first one waiting for the burst goes first */
		until = (l->hold > t->now ? l->hold : t->now) + win;
	} else if (l->owner < 0 || l->burst_n >= sim.cal->burst || l->hold < t->now - win ||
		   l->hold == t->stall_hold) {
		if (l->waiter == me)
			l->waiter = -1;
		return 0;
	} else {
		l->waiter = me;
		t->stall_hold = l->hold;
		until = l->hold + win;
	}
	if (until > t->now) {
		sim_charge_wait(t, until - t->now);
		t->now = until;
	}
	return 1;
}

/*
 * A hit needs no turn.  A thread yields before each access so that the
 * accesses of all threads happen in virtual-time order, but a hit on a line
 * that is quiet (no transfer booked within SIM_QUIET_NS, nobody waiting for
 * it or parked on it, no lock or flag on it) can only come out otherwise if
 * another thread, at an earlier clock not yet run, touches that very line:
 * so such a hit runs at once, as long as the thread is at most
 * SIM_RUNAHEAD_NS ahead of the earliest other event.  The bound on what
 * that changes: a line that turns contended after 1 us of quiet may see its
 * first transfer up to 100 ns out of order, the hits of the running thread
 * in between costed as hits.  Per-CPU slots, a thread's own counters, the
 * private work of a loop are then one turn per 100 ns instead of one per
 * 2 ns (the lookahead); every contended line keeps its strict order.
 */
#define SIM_QUIET_NS 1000.0

static inline int sim_quiet_hit(const struct sim_thread *t, const struct sim_line *l, int kind)
{
	const struct sim_pu *u = &sim.pus[t->pu];

	if (l->owner != t->pu && (kind != PROJ_LOAD || !sim_bit(l->sharers, t->pu)))
		return 0;	/* a miss: it waits its turn */
	if (l->sync || l->waiter >= 0 || l->parked >= 0 || l->busy >= t->now - SIM_QUIET_NS)
		return 0;
	if (sim_slice_over(t, u, sim.slice_ns))
		return 0;	/* its slice is over: the PU goes to the next */
	return !sim.hn || sim.heap[0].key >= t->now - SIM_RUNAHEAD_NS;
}

/*
 * Queued behind a transfer of the line in flight: booked now, in order, but
 * performed when the line arrives.  Until then the copies it will invalidate
 * stay valid, and what their holders do meanwhile comes first: a slot that
 * loaded the line just before keeps reading the value it loaded, and its
 * CAS, requested after this write, is booked after it and fails, as on a
 * real core (performed at the request, the write was seen by that load and
 * no CAS of striped's ever failed: two slots convoyed at 8 transfers an
 * update, where this machine measured its cells grown, 13-16 ns an update).
 * Its class is the one seen at the request.  Its cost; *lp and *had as
 * found on arrival.
 */
static double sim_access_queued(struct sim_thread *t, struct sim_line **lp, uintptr_t addr, int kind, int cls,
				int *had)
{
	struct sim_line *l = *lp;
	double c;

	if (l->dpu == -1) {
		l->dstart = l->busy;
		l->dpu = t->pu;
	} else if (l->dlast != t->pu) {
		cls = sim_class(t->pu, l->dlast, l->home);	/* it comes from the one queued before */
	}
	l->dlast = t->pu;
	c = sim_transfer(t, l, cls);
	t->now += c;
	sim_maybe_yield();
	l = sim_line_of(addr);
	*had = l->owner == t->pu;
	sim_move(l, t->pu, kind, kind == PROJ_LOAD ? sim_load_class(l, t->pu) : -1);
	/* arrived: the next one queued, if any, starts now */
	l->dstart = t->now;
	l->dpu = l->busy > t->now ? -2 : -1;
	sim_l2_fill(l, t->pu);
	*lp = l;
	return c;
}

/* Cost one access by the running thread; the line's state moves as MESI says. */
void proj_sim_access(uintptr_t addr, unsigned size, int kind)
{
	struct sim_thread *t = sim.cur;
	struct sim_line *l;
	int cls, had;
	double c;

	(void)size;
	if (!sim.cal)
		return;		/* recording a trace outside a projection (the footprint test) */
	if (kind == PROJ_FENCE) {
		sim_close_group(t);
		return;
	}
	sim_step(t);
	l = sim_line_of(addr);
	if (t == &sim.main_th || !sim_quiet_hit(t, l, kind)) {
		for (;;) {
			sim_maybe_yield();	/* everything earlier happens first */
			if (!sim_burst_stall(t, sim_line_of(addr)))
				break;
			sim_budget_step();	/* a wait behind bursts is steps too: the watchdog and the starvation bound see it */
			if (sim.starved || sim.bailed)
				break;
		}
		l = sim_line_of(addr);	/* others' accesses meanwhile may have grown the table */
		t->op_strict = 1;
	}
	t->stall_hold = -1;
	sim.accesses += 1;
	cls = kind == PROJ_LOAD ? sim_load_class(l, t->pu) : sim_store_class(l, t->pu);
	if (cls == -1 && kind != PROJ_LOAD && t != &sim.main_th && l->dpu != -1 && l->dpu != t->pu &&
	    l->dstart <= t->now && t->now < l->busy)
		cls = sim_class(t->pu, l->dlast, l->home);	/* on its way to another: it comes back after the last */
	if (cls >= 0 && l->busy > t->now && t != &sim.main_th) {
		c = sim_access_queued(t, &l, addr, kind, cls, &had);
	} else {
		had = l->owner == t->pu;
		sim_move(l, t->pu, kind, cls);
		if (cls == -1) {
			c = kind == PROJ_RMW ? sim.cal->hit_rmw_ns : sim.cal->hit_ns;
			l->ref = 1;
		} else if (cls == SIM_L3_HIT) {
			c = sim.l3_hit_ns + (kind == PROJ_RMW ? sim.cal->hit_rmw_ns : 0);	/* no transfer: nobody else had it */
			sim.l3_hits++;
		} else {
			c = sim_transfer(t, l, cls);
		}
		if (cls != -1)
			sim_l2_fill(l, t->pu);	/* l stays valid: no line is added meanwhile */
		t->now += c;
	}
	t->op_serial += c;
	if (kind == PROJ_RMW) {
		/* a burst: the owner's RMWs back to back since it took the line */
		l->burst_n = had && l->hold >= t->now - c - sim.cal->hit_rmw_ns && l->burst_n < INT_MAX / 2 ?
			     l->burst_n + 1 : 1;
		l->hold = t->now;
	} else if (kind == PROJ_STORE) {
		l->burst_n = INT_MAX / 2;	/* a plain store is no locked operation: no burst, the next request takes it */
	}
	if (kind != PROJ_LOAD && cls != -1 && l->parked >= 0)
		sim_line_written(l, t->pu, t->now);
	t->last_load = kind == PROJ_LOAD && cls == -1 ? l->tag : 0;
	if (kind == PROJ_RMW) {
		sim_close_group(t);
		t->op_overlap += c;
	} else if (cls == -1) {
		t->op_overlap += c;	/* a hit is the core's own work: it adds up */
	} else {
		t->group_sum += c;
		if (c > t->group_max)
			t->group_max = c;
	}
}

uint64_t proj_sim_now(void)
{
	return (uint64_t)sim.cur->now;
}

/* ---- the machine of one projection ---- */

int sim_machine_setup(const struct proj_config *cfg, char *err, size_t errlen)
{
	struct topo_counts tc;
	int maxos = 0;

	{
		char why[256];

		if (proj_topo_check(cfg->topo, why, sizeof(why))) {
			snprintf(err, errlen, "projection: %s", why);
			return -EINVAL;
		}
	}
		sim.cal = cfg->calib;
	sim.nr_pus = topo_nr_pus(cfg->topo);
	sim.words = (sim.nr_pus + 63) / 64;
	topo_counts(cfg->topo, &tc);
	sim.nr_numa = tc.numa_nodes > 0 ? tc.numa_nodes : 1;
	sim.pus = calloc(sim.nr_pus, sizeof(*sim.pus));
	sim.numa_pkg = calloc(sim.nr_numa, sizeof(int));
	if (!sim.pus || !sim.numa_pkg)
		goto nomem;
	for (int i = 0; i < sim.nr_pus; i++) {
		struct topo_pu_info in;

		topo_pu_at(cfg->topo, i, &in);
		sim.pus[i] = (struct sim_pu){ .core = in.core, .l3 = in.l3 >= 0 ? in.l3 : in.package,
					    .pkg = in.package, .numa = in.numa >= 0 ? in.numa : 0,
					    .cur = -1, .q_head = -1, .q_tail = -1 };
		if (sim.pus[i].numa < sim.nr_numa)
			sim.numa_pkg[sim.pus[i].numa] = in.package;
		if (in.numa_os > maxos)
			maxos = in.numa_os;
	}
	sim.max_numa_os = maxos;
	sim.numa_of_os = malloc(sizeof(int) * (maxos + 1));
	if (!sim.numa_of_os)
		goto nomem;
	for (int i = 0; i <= maxos; i++)
		sim.numa_of_os[i] = -1;
	for (int i = 0; i < sim.nr_pus; i++) {
		struct topo_pu_info in;

		topo_pu_at(cfg->topo, i, &in);
		if (in.numa_os >= 0)
			sim.numa_of_os[in.numa_os] = sim.pus[i].numa;
	}
	/* the caches: one L2 per core, one L3 per L3 (or package), each its size in lines */
	proj_capacity_of(cfg->topo, cfg->calib, &sim.capacity);
	sim.l3_hit_ns = sim.capacity.l3_hit_ns;
	sim.nr_cores = sim.nr_l3 = 0;
	for (int i = 0; i < sim.nr_pus; i++) {
		if (sim.pus[i].core >= sim.nr_cores)
			sim.nr_cores = sim.pus[i].core + 1;
		if (sim.pus[i].l3 >= sim.nr_l3)
			sim.nr_l3 = sim.pus[i].l3 + 1;
	}
	sim.l2 = calloc(sim.nr_cores, sizeof(*sim.l2));
	sim.l3 = calloc(sim.nr_l3, sizeof(*sim.l3));
	if (!sim.l2 || !sim.l3)
		goto nomem;
	for (int i = 0; i < sim.nr_cores; i++)
		sim.l2[i].max = sim.capacity.l2_bytes >= 128 ? (size_t)sim.capacity.l2_bytes / 64 : 2;
	for (int i = 0; i < sim.nr_l3; i++)
		sim.l3[i].max = sim.capacity.l3_bytes >= 64 ? (size_t)sim.capacity.l3_bytes / 64 : 1;
	sim.l3_hits = sim.evictions = sim.dram_evicted = 0;
	if (sim_alloc(1 << 12))
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "projection: out of memory for %d PUs", sim.nr_pus);
	return -ENOMEM;
}

