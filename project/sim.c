/* SPDX-License-Identifier: MIT */
/*
 * sim.c - the discrete-event MESI model the projection runs libctr's real
 * code against (docs/projection.md).
 *
 * Virtual threads sit on PUs of a topology (this machine's or a hwloc
 * synthetic one).  Each has a clock; the one with the earliest clock runs
 * its next operation through the instrumented libctr, the updaters whose
 * clocks are earlier running theirs inside it before each of its accesses
 * (sim_yield), and every load, store and RMW made on the tree's memory
 * comes here.  Per cache
 * line the model keeps the MESI state over PUs (an owner in M/E, or a set
 * of sharers in S), the line's home node (where it was bound, else its first
 * toucher's) and a busy-until time: a miss starts when the line is free and
 * holds it for its transfer, so contention on one line serialises instead of
 * only counting transfers.  A miss costs the calibration's figure for the
 * class of the nearest holder (a load) or of the farthest one (a store or
 * RMW, which must invalidate every copy).  SMT siblings are one core: a line
 * the sibling holds costs the SMT figure.  No capacity: a line once cached
 * stays until another PU takes it (counters' lines are few and hot).
 *
 * Each operation's cost is summed twice: serially (every access waits for
 * the one before) and with independent misses overlapped (the accesses
 * between two RMWs or fences cost their slowest one), which bound what
 * out-of-order cores achieve.  The serial sum drives the clocks.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../counters/ctr_internal.h"
#include "proj.h"

const char *const proj_class_names[PROJ_NR_CLASSES] = {
	"smt", "ccx", "xccx", "xccx_rh", "socket", "dram",
};

/* ---- the machine ---- */

struct sim_pu {
	int core, l3, pkg, numa;	/* logical indexes */
};

struct sim_line {
	uintptr_t tag;		/* address / 64, 0 = empty slot */
	int owner;		/* PU holding it in M or E, -1 if none */
	int nsharers;		/* PUs holding it in S */
	int home;		/* NUMA node (logical) */
	double busy0, busy;	/* the last transfer held the line over [busy0, busy) */
	double hold;		/* its owner's back-to-back accesses since that transfer end here */
	uint64_t *sharers;	/* bitmap over PUs */
};

struct sim_lock {
	void *m;		/* the lock's address */
	double free_at;		/* released at */
	long acq, contended;	/* measured window */
	double wait;
};

struct sim_thread {
	double now;		/* virtual clock, ns */
	int pu;			/* logical PU index */
	int reader;		/* a reader, not an updater */
	long done;		/* operations done, warmup included */
	int held;		/* charge: charges held */
	int64_t dir;		/* readers workload: the swing's direction */
	double t0;		/* when its first measured operation started */
};

/* The modelled machine, its lines and locks, and the running operation's accounting. */
struct sim_machine {
	const struct proj_calib *cal;	/* costs per class; NULL outside a projection */
	struct sim_pu *pus;	/* by logical index */
	int nr_pus, words;
	int *numa_of_os;	/* NUMA OS index -> logical, [max_numa_os + 1] */
	int max_numa_os;
	int *numa_pkg;		/* package of each NUMA node (logical) */
	int nr_numa;
	struct sim_line *lines;	/* open addressing */
	size_t cap, used;
	uint64_t *bits;		/* sharer bitmaps, words per line, same slot as lines */
	struct sim_lock *locks;
	int nr_locks;
	/* the running thread */
	int pu;
	double now;
	int counting;		/* in a measured operation */
	double op_serial, op_overlap, group_max, op_wait;
	double *xfer;		/* where this operation's transfers are counted */
	double accesses;
	/* interleaving (sim_yield): who else may run inside the running operation */
	int can_yield;		/* the running operation is a virtual thread's, run from the main loop */
	int nested;		/* an operation run inside another's (never yields itself) */
	int locks_held;		/* virtual locks the running thread holds: no yield while > 0 */
	/*
	 * Spin flags the running operation holds (proj_sim_flag): a word it
	 * set from 0 by an acquiring exchange and has not stored 0 to since,
	 * the test-and-set locks of rstat (lockkind=spin), striped and
	 * atomic_tree_stock.  They are not virtual locks, so without this an
	 * operation run inside the holder (sim_yield) would spin on the flag
	 * forever: the holder, suspended below it on this one real thread,
	 * can never release it.  Nobody runs inside a holder, as for locks.
	 */
	const volatile void *flags[16];
	int nflags;
	/* the step budget of one operation (sim_steps): a wait nobody can end stops the projection */
	long steps, max_steps;
};

/* One projection's run: what sim_step needs, from the main loop or from sim_yield. */
struct sim_run {
	const struct proj_config *cfg;
	struct proj_result *res;
	struct ctr_tree *t;
	int raw;			/* 0: libctr code; 1 "=false-shared", 2 "=padded" */
	char *raw_mem;
	struct sim_thread *th;
	int *heap, n;			/* updaters waiting to run, by clock (the running one is out) */
	int *rheap, rn;			/* readers, the same */
	double upd_xfer[PROJ_NR_CLASSES], rd_xfer[PROJ_NR_CLASSES];
	double span;			/* updaters' measured spans, summed */
	int spans, unfinished;
	pthread_t main;			/* the real thread running proj_run (the flusher's is another) */
	int *slot_node, *slot_l3;	/* the tree's ctr_params arrays: each slot's node and L3 */
	int64_t *limit;			/* the tree's limits (charge workload) */
	jmp_buf bail;			/* where an operation past its step budget returns to */
};

/*
 * The projection running: one at a time, in one named instance.  Its hooks
 * (proj_sim_access, proj_sim_lock, proj_sim_flag, proj_sim_step,
 * proj_sim_now) are called by rt.c from the instrumented libctr through
 * TSan's entry points and the renamed pthread and clock calls, whose
 * signatures are the real ones and carry no context; rt.c's own state (the
 * tree's allocations, the one flusher thread) is process-wide for the same
 * reason.  So the state is this struct, reset by sim_setup and proj_run.
 */
static struct proj_sim {
	struct sim_machine m;		/* the machine and the running operation (sim_setup .. sim_teardown) */
	struct sim_run r;		/* the run (proj_run) */
} sim;

static void sim_yield(void);


/* Class of a transfer to PU a from PU b of a line whose home is NUMA node home. */
static int sim_class(int a, int b, int home)
{
	const struct sim_pu *x = &sim.m.pus[a], *y = &sim.m.pus[b];

	if (x->core == y->core)
		return PROJ_C_SMT;
	if (x->l3 == y->l3)
		return PROJ_C_CCX;
	if (x->pkg == y->pkg)
		return home >= 0 && sim.m.numa_pkg[home] != x->pkg ? PROJ_C_XCCX_RH : PROJ_C_XCCX;
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
	return (size_t)((tag * 0x9e3779b97f4a7c15ULL) >> (64 - __builtin_ctzll(sim.m.cap)));
}

static struct sim_line *sim_line_of(uintptr_t addr)
{
	const uintptr_t tag = addr / 64;
	int home_os;
	size_t h;

	if (sim.m.used * 2 >= sim.m.cap && sim_grow())
		abort();	/* out of memory: the model cannot go on */
	h = sim_hash(tag);
	while (sim.m.lines[h].tag && sim.m.lines[h].tag != tag)
		h = (h + 1) & (sim.m.cap - 1);
	if (!sim.m.lines[h].tag) {
		struct sim_line *l = &sim.m.lines[h];

		home_os = proj_rt_home_of(addr);	/* once, when the line is first seen */
		l->tag = tag;
		l->owner = -1;
		l->nsharers = 0;
		l->busy0 = l->busy = l->hold = -1;
		l->sharers = &sim.m.bits[h * sim.m.words];
		memset(l->sharers, 0, sizeof(uint64_t) * sim.m.words);
		l->home = home_os >= 0 && home_os <= sim.m.max_numa_os && sim.m.numa_of_os[home_os] >= 0 ?
			  sim.m.numa_of_os[home_os] : sim.m.pus[sim.m.pu].numa;
		sim.m.used++;
	}
	return &sim.m.lines[h];
}

static int sim_alloc(size_t cap)
{
	sim.m.lines = calloc(cap, sizeof(*sim.m.lines));
	sim.m.bits = calloc(cap * sim.m.words, sizeof(uint64_t));
	if (!sim.m.lines || !sim.m.bits) {
		free(sim.m.lines);
		free(sim.m.bits);
		return -ENOMEM;
	}
	sim.m.cap = cap;
	sim.m.used = 0;
	return 0;
}

static int sim_grow(void)
{
	struct sim_line *old = sim.m.lines;
	uint64_t *oldbits = sim.m.bits;
	size_t oldcap = sim.m.cap;

	if (sim_alloc(oldcap * 2)) {
		sim.m.lines = old;
		sim.m.bits = oldbits;
		return -ENOMEM;
	}
	for (size_t i = 0; i < oldcap; i++) {
		struct sim_line *o = &old[i], *n;
		size_t h;

		if (!o->tag)
			continue;
		h = sim_hash(o->tag);
		while (sim.m.lines[h].tag)
			h = (h + 1) & (sim.m.cap - 1);
		n = &sim.m.lines[h];
		*n = *o;
		n->sharers = &sim.m.bits[h * sim.m.words];
		memcpy(n->sharers, o->sharers, sizeof(uint64_t) * sim.m.words);
		sim.m.used++;
	}
	free(old);
	free(oldbits);
	return 0;
}

/*
 * One step of the running operation: an access, a yield, a clock read.  A
 * legitimate operation makes a bounded number (each slot of each node a few
 * times); one that goes on past max_steps (far above that, proj_run) is
 * waiting for something no virtual thread can do while it runs, as a spin
 * on a flag held by the operation it runs inside whose kind the model does
 * not know, and would never return.  The projection stops there instead
 * (proj_run says why).  Only on proj_run's own thread: the flusher's real
 * thread runs between operations, when no operation is suspended, and
 * cannot jump to proj_run's stack.
 */
static void sim_steps(void)
{
	if (++sim.m.steps > sim.m.max_steps && sim.m.max_steps && pthread_equal(pthread_self(), sim.r.main))
		longjmp(sim.r.bail, 1);
}

void proj_sim_step(void)
{
	if (sim.m.cal)
		sim_steps();
}

void proj_sim_flag(const volatile void *addr, int held)
{
	if (!sim.m.cal)
		return;
	if (held) {
		/* past the table's size a flag is not protected: the step budget still ends a spin on it */
		if (sim.m.nflags < (int)(sizeof(sim.m.flags) / sizeof(sim.m.flags[0])))
			sim.m.flags[sim.m.nflags++] = addr;
		return;
	}
	for (int i = 0; i < sim.m.nflags; i++)
		if (sim.m.flags[i] == addr) {
			sim.m.flags[i] = sim.m.flags[--sim.m.nflags];
			return;
		}
}

static void sim_close_group(void)
{
	sim.m.op_overlap += sim.m.group_max;
	sim.m.group_max = 0;
}

/* A load by PU p: the class it is served from (-1: a hit), the line moved to S (or E from memory). */
static int sim_load(struct sim_line *l, int p)
{
	int cls = -1;

	if (l->owner == p || sim_bit(l->sharers, p))
		return -1;
	if (l->owner >= 0) {
		cls = sim_class(p, l->owner, l->home);
		l->sharers[l->owner / 64] |= 1ull << (l->owner % 64);
		l->sharers[p / 64] |= 1ull << (p % 64);
		l->nsharers = 2;
		l->owner = -1;
	} else if (l->nsharers) {
		/* the nearest copy answers */
		for (int w = 0; w < sim.m.words; w++)
			for (uint64_t b = l->sharers[w]; b; b &= b - 1) {
				int q = w * 64 + __builtin_ctzll(b);
				int k = sim_class(p, q, l->home);

				if (cls < 0 || sim.m.cal->ns[k] < sim.m.cal->ns[cls])
					cls = k;
			}
		l->sharers[p / 64] |= 1ull << (p % 64);
		l->nsharers++;
	} else {
		cls = PROJ_C_DRAM;
		l->owner = p;	/* E */
	}
	return cls;
}

/* A store or RMW by PU p: the class it waits for (-1: a hit), the line moved to M at p. */
static int sim_store(struct sim_line *l, int p)
{
	int far = -1;

	if (l->owner == p)
		return -1;
	/* every other copy is invalidated: the farthest bounds the wait */
	if (l->owner >= 0)
		far = sim_class(p, l->owner, l->home);
	for (int w = 0; w < sim.m.words && l->nsharers; w++)
		for (uint64_t b = l->sharers[w]; b; b &= b - 1) {
			int q = w * 64 + __builtin_ctzll(b);
			int k;

			if (q == p)
				continue;
			k = sim_class(p, q, l->home);
			if (far < 0 || sim.m.cal->ns[k] > sim.m.cal->ns[far])
				far = k;
		}
	if (l->nsharers)
		memset(l->sharers, 0, sizeof(uint64_t) * sim.m.words);
	l->nsharers = 0;
	l->owner = p;
	return far >= 0 ? far : PROJ_C_DRAM;
}

/* The cost of a transfer of class cls to the running thread: its wait for the line, then the transfer. */
static double sim_transfer(struct sim_line *l, int cls)
{
	const double lat = sim.m.cal->ns[cls];
	double start;

	/*
	 * An update run inside another operation runs whole at its
	 * start, and a read runs on past the other readers, so a long one (a read
	 * over every CPU's slot) leaves transfers stamped ahead of the
	 * other threads' clocks.  An access that ends before such a
	 * transfer begins goes first rather than wait for the future;
	 * one that overlaps it waits for its end.
	 */
	if (sim.m.now >= l->busy || sim.m.now + lat <= l->busy0) {
		start = sim.m.now;
	} else {
		start = l->busy;
	}
	sim.m.op_wait += start - sim.m.now;
	if (start >= l->busy) {
		l->busy0 = start;
		l->busy = start + lat;
	}
	if (sim.m.counting)
		sim.m.xfer[cls] += 1;
	return start - sim.m.now + lat;
}

/*
 * Before an access to l: the threads with earlier clocks run first
 * (sim_yield), unless the running operation may not be interrupted or the
 * access follows its owner's own back to back.  A line its owner just
 * obtained is held for the owner's accesses that follow back to back (each
 * within an RMW hit of the one before): stores drain from the store buffer
 * under that one ownership before a request queued behind the transfer
 * takes the line.  Without this a mailbox polled by many updaters would be
 * taken from its writer between every two of its stores.  Returns l, or
 * where it moved to if the table grew meanwhile.
 */
static struct sim_line *sim_let_earlier_run(struct sim_line *l, uintptr_t addr, int kind)
{
	const struct sim_line *base = sim.m.lines;

	if (!sim.m.can_yield || sim.m.nested || sim.m.locks_held || sim.m.nflags || !sim.r.n ||
	    !(sim.r.th[sim.r.heap[0]].now < sim.m.now) ||
	    (l->owner == sim.m.pu && kind != PROJ_LOAD && sim.m.now <= l->hold + sim.m.cal->hit_rmw_ns))
		return l;
	sim_yield();
	return sim.m.lines != base ? sim_line_of(addr) : l;	/* the table grew: entries moved */
}

/* Cost one access; the state moves as MESI says. */
void proj_sim_access(uintptr_t addr, unsigned size, int kind)
{
	struct sim_line *l;
	int cls;
	double c;

	(void)size;
	if (!sim.m.cal)
		return;		/* recording a trace outside a projection (the footprint test) */
	if (kind == PROJ_FENCE) {
		sim_close_group();
		return;
	}
	l = sim_line_of(addr);
	sim_steps();
	l = sim_let_earlier_run(l, addr, kind);
	sim.m.accesses += 1;
	cls = kind == PROJ_LOAD ? sim_load(l, sim.m.pu) : sim_store(l, sim.m.pu);
	if (cls < 0)
		c = kind == PROJ_RMW ? sim.m.cal->hit_rmw_ns : sim.m.cal->hit_ns;
	else
		c = sim_transfer(l, cls);
	sim.m.now += c;
	sim.m.op_serial += c;
	if (kind != PROJ_LOAD && (cls >= 0 || sim.m.now - c <= l->hold + sim.m.cal->hit_rmw_ns))
		l->hold = sim.m.now;	/* obtained now, or a back-to-back store or RMW since */
	if (kind == PROJ_RMW) {
		sim_close_group();
		sim.m.op_overlap += c;
	} else if (cls < 0) {
		sim.m.op_overlap += c;	/* a hit is the core's own work: it adds up */
	} else if (c > sim.m.group_max) {
		sim.m.group_max = c;
	}
}

uint64_t proj_sim_now(void)
{
	return (uint64_t)sim.m.now;
}

static struct sim_lock *sim_lock_of(void *m)
{
	for (int i = 0; i < sim.m.nr_locks; i++)
		if (sim.m.locks[i].m == m)
			return &sim.m.locks[i];
	if (sim.m.nr_locks % 64 == 0) {
		struct sim_lock *n = realloc(sim.m.locks, sizeof(*n) * (sim.m.nr_locks + 64));

		if (!n)
			abort();
		sim.m.locks = n;
	}
	sim.m.locks[sim.m.nr_locks] = (struct sim_lock){ m, 0, 0, 0, 0 };
	return &sim.m.locks[sim.m.nr_locks++];
}

/*
 * A virtual lock: free at free_at.  A taker that comes earlier waits until
 * then (a trylock fails instead); each take and release is an RMW on the
 * lock's line, so a contended lock's line bounces as the real one does.
 * Threads whose clocks are earlier run first (sim_yield), so the lock is
 * seen as they leave it; it is marked held before its RMW is costed, and
 * nobody runs inside an operation while it holds a lock, so no thread ever
 * waits for one held by an operation that is not running.
 */
int proj_sim_lock(void *m, int op)
{
	struct sim_lock *k;

	if (!sim.m.cal)
		return 0;
	k = sim_lock_of(m);
	if (op == PROJ_UNLOCK) {
		proj_sim_access((uintptr_t)m, 4, PROJ_RMW);
		k->free_at = sim.m.now;
		sim.m.locks_held -= sim.m.locks_held > 0;
		return 0;
	}
	if (sim.m.can_yield && !sim.m.nested && !sim.m.locks_held && !sim.m.nflags)
		sim_yield();
	if (sim.m.now < k->free_at) {
		double w = k->free_at - sim.m.now;

		if (op == PROJ_TRYLOCK) {
			proj_sim_access((uintptr_t)m, 4, PROJ_LOAD);
			return 1;
		}
		if (sim.m.counting) {
			k->contended++;
			k->wait += w;
		}
		sim_close_group();
		sim.m.op_serial += w;
		sim.m.op_overlap += w;
		sim.m.op_wait += w;
		sim.m.now = k->free_at;
	}
	k->free_at = 1e300;	/* held */
	sim.m.locks_held++;
	proj_sim_access((uintptr_t)m, 4, PROJ_RMW);
	if (sim.m.counting)
		k->acq++;
	return 0;
}

/* ---- the run ---- */

int proj_models_workload(int w)
{
	/* sim_step runs these three as bench/loops.c's loops do; store's stats and limit check it has not */
	return w == BENCH_UPDATE || w == BENCH_CHARGE || w == BENCH_READERS;
}

int proj_topo_check(const struct topo *t, char *err, size_t errlen)
{
	for (int i = 0; i < topo_nr_pus(t); i++) {
		struct topo_pu_info in;

		if (topo_pu_at(t, i, &in))
			continue;
		/* sim_class: the SMT class is "same core", the others "same L3" (else package), then socket */
		if (in.core < 0 || (in.l3 < 0 && in.package < 0)) {
			snprintf(err, errlen, "topology '%s' has no %s level: the model classes each transfer by "
				 "the core, L3 (or package) of both ends (e.g. 'pack:1 core:%d pu:1')", topo_spec(t),
				 in.core < 0 ? "core" : "L3 or package", topo_nr_pus(t));
			return -EINVAL;
		}
	}
	return 0;
}

static int sim_setup(const struct proj_config *cfg, char *err, size_t errlen)
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
	memset(&sim.m, 0, sizeof(sim.m));
	sim.m.cal = cfg->calib;
	sim.m.nr_pus = topo_nr_pus(cfg->topo);
	sim.m.words = (sim.m.nr_pus + 63) / 64;
	topo_counts(cfg->topo, &tc);
	sim.m.nr_numa = tc.numa_nodes > 0 ? tc.numa_nodes : 1;
	sim.m.pus = calloc(sim.m.nr_pus, sizeof(*sim.m.pus));
	sim.m.numa_pkg = calloc(sim.m.nr_numa, sizeof(int));
	if (!sim.m.pus || !sim.m.numa_pkg)
		goto nomem;
	for (int i = 0; i < sim.m.nr_pus; i++) {
		struct topo_pu_info in;

		topo_pu_at(cfg->topo, i, &in);
		sim.m.pus[i] = (struct sim_pu){ in.core, in.l3 >= 0 ? in.l3 : in.package, in.package,
					    in.numa >= 0 ? in.numa : 0 };
		if (sim.m.pus[i].numa < sim.m.nr_numa)
			sim.m.numa_pkg[sim.m.pus[i].numa] = in.package;
		if (in.numa_os > maxos)
			maxos = in.numa_os;
	}
	sim.m.max_numa_os = maxos;
	sim.m.numa_of_os = malloc(sizeof(int) * (maxos + 1));
	if (!sim.m.numa_of_os)
		goto nomem;
	for (int i = 0; i <= maxos; i++)
		sim.m.numa_of_os[i] = -1;
	for (int i = 0; i < sim.m.nr_pus; i++) {
		struct topo_pu_info in;

		topo_pu_at(cfg->topo, i, &in);
		if (in.numa_os >= 0)
			sim.m.numa_of_os[in.numa_os] = sim.m.pus[i].numa;
	}
	if (sim_alloc(1 << 12))
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "projection: out of memory for %d PUs", sim.m.nr_pus);
	return -ENOMEM;
}

static void sim_teardown(void)
{
	free(sim.m.pus);
	free(sim.m.numa_pkg);
	free(sim.m.numa_of_os);
	free(sim.m.lines);
	free(sim.m.bits);
	free(sim.m.locks);
	memset(&sim.m, 0, sizeof(sim.m));
}

/* Logical index of OS PU pu. */
static int sim_logical(const struct topo *t, int pu)
{
	struct topo_pu_info in;

	return topo_pu_info(t, pu, &in) ? 0 : in.logical;
}

/* The heap of threads by clock: the earliest runs next. */
static void sim_heap_down(int *h, int n, int i, const struct sim_thread *th)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && th[h[l]].now < th[h[m]].now)
			m = l;
		if (r < n && th[h[r]].now < th[h[m]].now)
			m = r;
		if (m == i)
			return;
		int x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

static void sim_heap_up(int *h, int i, const struct sim_thread *th)
{
	while (i > 0) {
		int up = (i - 1) / 2, x;

		if (!(th[h[i]].now < th[h[up]].now))
			return;
		x = h[i];
		h[i] = h[up];
		h[up] = x;
		i = up;
	}
}

/* Run thread i's next operation (sim.m's per-operation fields set here), and count it. */
static void sim_step(int i)
{
	const struct proj_config *cfg = sim.r.cfg;
	struct sim_thread *w = &sim.r.th[i];
	/* readers warm up on a tenth of their reads (at least one), updaters on warmup_ops */
	const long warm = w->reader ? (cfg->reads >= 10 ? cfg->reads / 10 : 1) : cfg->warmup_ops;
	const long total = warm + (w->reader ? cfg->reads : cfg->ops);
	struct proj_result *res = sim.r.res;

	sim.m.pu = w->pu;
	sim.m.now = w->now;
	sim.m.steps = 0;
	sim.m.counting = w->done >= warm && w->done < total;
	if (w->done == warm)
		w->t0 = w->now;
	sim.m.op_serial = sim.m.op_overlap = sim.m.group_max = sim.m.op_wait = 0;
	sim.m.xfer = w->reader ? sim.r.rd_xfer : sim.r.upd_xfer;
	if (sim.r.raw) {
		/* a store to the thread's word: 8 bytes apart (one line) or 64 (a line each) */
		proj_sim_access((uintptr_t)(sim.r.raw_mem + (size_t)i * (sim.r.raw == 1 ? 8 : 64)), 8, PROJ_STORE);
	} else if (w->reader) {
		int node = cfg->read_node >= 0 ? cfg->read_node : cfg->leaves[(w->done + i) % cfg->nr_leaves];

		(void)proj_ctr_read(sim.r.t, node, 0);
	} else if (cfg->workload == BENCH_CHARGE) {
		const int leaf = cfg->leaves[i % cfg->nr_leaves];
		int ok;

		if (w->held == BENCH_CHARGE_WINDOW) {
			proj_ctr_add(sim.r.t, i, leaf, 0, -BENCH_CHARGE_UNIT);
			w->held--;
		}
		ok = proj_ctr_try_charge(sim.r.t, i, leaf, BENCH_CHARGE_UNIT);
		w->held += ok;
		if (!ok && w->held) {
			proj_ctr_add(sim.r.t, i, leaf, 0, -BENCH_CHARGE_UNIT);
			w->held--;
		}
		if (sim.m.counting && !ok)
			res->charges_refused++;
	} else if (cfg->workload == BENCH_READERS) {
		if (w->done && w->done % BENCH_SWING == 0)
			w->dir = -w->dir;
		proj_ctr_add(sim.r.t, i, cfg->leaves[i % cfg->nr_leaves], 0, w->dir);
	} else {
		proj_ctr_add(sim.r.t, i, cfg->leaves[i % cfg->nr_leaves], 0, w->done & 1 ? -1 : 1);
	}
	sim_close_group();
	/* a flag still set when its operation ends is not held by the next one (a taker spins: the budget) */
	sim.m.nflags = 0;
	if (sim.m.counting) {
		if (w->reader) {
			res->reads++;
			res->rns_serial += sim.m.op_serial;
			res->rns_overlap += sim.m.op_overlap;
			if (sim.m.op_serial > res->rns_max)
				res->rns_max = sim.m.op_serial;
		} else {
			res->ops++;
			res->ns_serial += sim.m.op_serial;
			res->ns_overlap += sim.m.op_overlap;
			res->wait_ns += sim.m.op_wait;
		}
	}
	w->now = sim.m.now + (w->reader ? (double)cfg->read_interval_ns : (double)cfg->work_ns);
	w->done++;
	if (w->done == total) {
		if (!w->reader) {
			sim.r.span += w->now - w->t0;
			sim.r.spans++;
		}
		sim.r.unfinished--;
	}
}

/*
 * Interleaving at the granularity of accesses.  Before each access of the
 * running operation (and before it takes a lock), every updater whose clock
 * is earlier than the running thread's runs its next operation, whole, so
 * the access sees what they did before it in virtual time: a reader's
 * request posted to a mailbox is answered by an updater of that L3 while the
 * reader waits for it (percpu_hier_delegated), a long read over every slot
 * sees the updates made meanwhile, a flush walks slots being written.  Only
 * updates run inside another operation, one level deep (they do not yield
 * themselves): a read is a long operation, so it runs from the main loop
 * only, where it can be interleaved; an update waits at most one other
 * update's length for its turn, as every operation did before.  Nobody runs
 * inside an operation that holds a lock (so no thread waits for a lock held
 * by one that is not running).  What remains coarse: an update run inside
 * another operation is stamped at its own start and may see, up to its own
 * length early, what the running one stores later.
 */
static void sim_yield(void)
{
	const int pu = sim.m.pu, counting = sim.m.counting;
	const double now = sim.m.now, serial = sim.m.op_serial, overlap = sim.m.op_overlap, gmax = sim.m.group_max,
		     wait = sim.m.op_wait;
	const long steps = sim.m.steps;
	double *const xfer = sim.m.xfer;

	if (!sim.r.n || !(sim.r.th[sim.r.heap[0]].now < now))
		return;
	sim.m.nested = 1;
	while (sim.r.n && sim.r.th[sim.r.heap[0]].now < now) {
		const int j = sim.r.heap[0];

		sim.r.heap[0] = sim.r.heap[--sim.r.n];
		sim_heap_down(sim.r.heap, sim.r.n, 0, sim.r.th);
		sim_step(j);
		sim.r.heap[sim.r.n] = j;
		sim_heap_up(sim.r.heap, sim.r.n++, sim.r.th);
	}
	sim.m.nested = 0;
	sim.m.pu = pu;
	sim.m.counting = counting;
	sim.m.now = now;
	sim.m.op_serial = serial;
	sim.m.op_overlap = overlap;
	sim.m.group_max = gmax;
	sim.m.op_wait = wait;
	sim.m.xfer = xfer;
	sim.m.steps = steps;
}

/*
 * A tree whose operation was stopped mid-way (the step budget): its locks
 * and lists are as the operation left them, so its teardown could wait on
 * them too.  It is left as it is, reachable (not a leak), and the process,
 * which refuses the projection, ends soon after.
 */
static struct ctr_tree *sim_abandoned[8];

static void sim_abandon(struct ctr_tree *t)
{
	static unsigned n;

	sim_abandoned[n++ % 8] = t;
}

/* "=false-shared" 1, "=padded" 2: the model's own patterns, no libctr code; 0 for any other name. */
static int sim_raw_kind(const char *algo)
{
	return !strcmp(algo, "=false-shared") ? 1 : !strcmp(algo, "=padded") ? 2 : 0;
}

int proj_can_run(const char *algo, int workload, int readers, char *err, size_t errlen)
{
	const struct ctr_algo *a = sim_raw_kind(algo) ? NULL : proj_ctr_algo_find(algo);

	if (!a && !sim_raw_kind(algo)) {
		snprintf(err, errlen, "unknown algorithm '%s'", algo);
		return -EINVAL;
	}
	if (!proj_models_workload(workload)) {
		snprintf(err, errlen, "cannot model the %s workload (only update, charge and readers)",
			 bench_workload_name(workload));
		return -EINVAL;
	}
	/*
	 * Reads interleave with updates, not with each other (sim_yield): a
	 * read runs on until it is done, pushing the updaters' clocks to its
	 * end, so a second reader's requests to the updaters (a read that asks
	 * them, CTR_READ_ASKS_UPDATERS: mailboxes) would be posted in the
	 * updaters' past and time out unanswered: not the design.
	 */
	if (a && (a->flags & CTR_READ_ASKS_UPDATERS) && readers > 1) {
		snprintf(err, errlen, "%s with %d readers: the model interleaves reads with updates but not with "
			 "each other, so a second reader's mailbox requests would go unanswered; project it with "
			 "--readers 1 (docs/projection.md)", algo, readers);
		return -EINVAL;
	}
	return 0;
}

/* The run's threads, heaps and the tree's slot arrays, in sim.r (freed by sim_run_free); 0 or -ENOMEM. */
static int sim_threads_new(const struct proj_config *cfg, int nthr)
{
	struct sim_run *r = &sim.r;

	r->th = calloc(nthr, sizeof(*r->th));
	r->heap = calloc(nthr, sizeof(*r->heap));
	r->rheap = calloc(nthr, sizeof(*r->rheap));
	r->slot_node = calloc(nthr, sizeof(*r->slot_node));
	r->slot_l3 = calloc(nthr, sizeof(*r->slot_l3));
	r->limit = calloc(cfg->nr_nodes, sizeof(*r->limit));
	if (!r->th || !r->heap || !r->rheap || !r->slot_node || !r->slot_l3 || !r->limit)
		return -ENOMEM;
	for (int i = 0; i < nthr; i++) {
		r->th[i].pu = sim_logical(cfg->topo, cfg->pus[i]);
		r->th[i].reader = i >= cfg->threads;
		r->th[i].dir = 1;
		r->slot_node[i] = topo_numa_node_of_pu(cfg->topo, cfg->pus[i]);
		if (r->slot_node[i] < 0)
			r->slot_node[i] = 0;
		/* the L3 of each slot's thread, as the harness gives it (bench/setup.c) */
		r->slot_l3[i] = sim.m.pus[r->th[i].pu].l3;
	}
	return 0;
}

/* Limits as the harness sets them (bench_headroom_limit): its headroom times what the workers below a node hold. */
static int sim_limits(const struct proj_config *cfg)
{
	int *below = calloc(cfg->nr_nodes, sizeof(int));

	if (!below)
		return -ENOMEM;
	for (int i = 0; i < cfg->threads; i++)
		for (int m = cfg->leaves[i % cfg->nr_leaves]; m >= 0; m = cfg->parent[m])
			below[m]++;
	for (int m = 0; m < cfg->nr_nodes; m++)
		sim.r.limit[m] = below[m] ? bench_headroom_limit(below[m], BENCH_CHARGE_WINDOW, cfg->limit_headroom)
					  : CTR_NO_LIMIT;
	free(below);
	return 0;
}

/*
 * The tree (or a raw pattern's memory), created by worker 0 as the harness's
 * main thread creates it: its shared lines are homed on that worker's node.
 */
static int sim_tree_new(const struct proj_config *cfg, const struct ctr_algo *a, int nthr, char *err,
			size_t errlen)
{
	struct ctr_params p = { 0 };

	p.nr_nodes = cfg->nr_nodes;
	p.parent = cfg->parent;
	p.nr_cpus = nthr;
	p.options = cfg->options;
	p.flush_period_ms = cfg->flush_period_ms;
	p.slot_node = sim.r.slot_node;
	p.slot_l3 = sim.r.slot_l3;
	if (cfg->workload == BENCH_CHARGE) {
		p.limit = sim.r.limit;
		p.batch = BENCH_CHARGE_BATCH;
	}
	sim.m.pu = sim.r.th[0].pu;
	sim.m.xfer = sim.r.upd_xfer;
	proj_rt_reset();
	proj_rt_record(1);
	if (sim.r.raw) {
		sim.r.raw_mem = proj_malloc((size_t)64 * (nthr + 1));
		return sim.r.raw_mem ? 0 : -ENOMEM;
	}
	sim.r.t = proj_ctr_tree_new(a, &p);
	if (!sim.r.t) {
		const int e = errno;

		snprintf(err, errlen, "projection: %s: cannot create the tree (options '%s'?)", cfg->algo,
			 cfg->options ? cfg->options : "");
		return -e;
	}
	return 0;
}

/* Run the flusher's next step, on the last PU (a kworker somewhere), at its due time. */
static void sim_flusher_step(void)
{
	sim.m.pu = sim.m.nr_pus - 1;
	sim.m.now = (double)proj_rt_flusher_due();
	sim.m.counting = 0;
	sim.m.op_serial = sim.m.op_overlap = sim.m.group_max = sim.m.op_wait = 0;
	sim.m.steps = 0;
	proj_rt_flusher_step();
	sim.m.nflags = 0;
}

/*
 * Every thread runs until all have done their measured operations: one
 * done early goes on, uncounted, so that what the others measure runs
 * against the same load (readers and updaters of very different speeds
 * overlap in virtual time instead of running one after the other).  The
 * earliest clock runs next, out of the heap while it runs (sim_yield
 * runs the others inside its operation).
 */
static void sim_loop(void)
{
	struct sim_run *r = &sim.r;

	while (r->unfinished) {
		/* the earliest clock of either heap runs next */
		const int rd = r->rn && (!r->n || r->th[r->rheap[0]].now < r->th[r->heap[0]].now);
		int *h = rd ? r->rheap : r->heap, *hn = rd ? &r->rn : &r->n;
		const int i = h[0];

		if (proj_rt_have_flusher() && (double)proj_rt_flusher_due() <= r->th[i].now) {
			sim_flusher_step();
			continue;
		}
		h[0] = h[--*hn];
		sim_heap_down(h, *hn, 0, r->th);
		sim.m.can_yield = 1;
		sim_step(i);
		sim.m.can_yield = 0;
		h[*hn] = i;
		sim_heap_up(h, (*hn)++, r->th);
	}
}

/*
 * The run, under the step budget of one operation: a legitimate one touches
 * each (slot, node) pair a few times, so 256 times each, and 2^24 steps for
 * a small tree (a wait with a virtual timeout polls at a hit's cost: 2^24
 * polls are 8 ms of virtual time at the default 0.5 ns), is far above any; a
 * spin that no virtual thread can end reaches it in a few seconds of real
 * time.  0, or -EDEADLK (and why) when an operation went past it.
 */
static int sim_run_budgeted(const struct proj_config *cfg, int nthr, char *err, size_t errlen)
{
	struct sim_run *r = &sim.r;

	for (int i = 0; i < nthr; i++)
		if (r->th[i].reader)
			r->rheap[r->rn++] = i;
		else
			r->heap[r->n++] = i;
	r->unfinished = nthr;
	r->main = pthread_self();
	if (setjmp(r->bail)) {
		snprintf(err, errlen, "projection cannot run %s%s%s: an operation (on PU %d) went on past %ld "
			 "steps (accesses, yields, clock reads), waiting for what only an operation the model "
			 "has suspended could do (it runs one at a time, some inside another; docs/projection.md)",
			 cfg->algo, cfg->options ? " with options " : "", cfg->options ? cfg->options : "", sim.m.pu,
			 sim.m.max_steps);
		sim.m.max_steps = 0;
		sim_abandon(r->t);
		r->t = NULL;
		return -EDEADLK;
	}
	sim.m.steps = 0;
	sim.m.max_steps = (1L << 24) + 256L * nthr * cfg->nr_nodes;
	sim_loop();
	sim.m.max_steps = 0;	/* the tree's teardown is no operation */
	return 0;
}

/* What the model counted, into res. */
static void sim_collect(struct proj_result *res)
{
	memcpy(res->xfer, sim.r.upd_xfer, sizeof(sim.r.upd_xfer));
	memcpy(res->rxfer, sim.r.rd_xfer, sizeof(sim.r.rd_xfer));
	res->elapsed_ns = sim.r.spans ? sim.r.span / sim.r.spans : 0;
	res->accesses = sim.m.accesses;
	for (int k = 0; k < sim.m.nr_locks; k++)
		if (sim.m.locks[k].acq > res->lock_acq) {
			res->lock_acq = sim.m.locks[k].acq;
			res->lock_contended = sim.m.locks[k].contended;
			res->lock_wait_ns = sim.m.locks[k].wait;
		}
}

/* The tree freed (its teardown not counted), everything the run allocated, the model torn down. */
static void sim_run_free(void)
{
	struct sim_run *r = &sim.r;

	if (r->t) {
		sim.m.counting = 0;
		sim.m.can_yield = 0;
		proj_ctr_tree_free(r->t);
	}
	proj_rt_record(0);
	proj_free(r->raw_mem);
	free(r->th);
	free(r->heap);
	free(r->rheap);
	free(r->slot_node);
	free(r->slot_l3);
	free(r->limit);
	sim_teardown();
	memset(r, 0, sizeof(*r));
}

int proj_run(const struct proj_config *cfg, struct proj_result *res, char *err, size_t errlen)
{
	const int nthr = cfg->threads + cfg->readers;
	const int raw = sim_raw_kind(cfg->algo);
	const struct ctr_algo *a = raw ? NULL : proj_ctr_algo_find(cfg->algo);
	char why[512];
	int ret;

	memset(res, 0, sizeof(*res));
	memset(&sim.r, 0, sizeof(sim.r));
	if (proj_can_run(cfg->algo, cfg->workload, cfg->readers, why, sizeof(why))) {
		snprintf(err, errlen, "projection: %s", why);
		return -EINVAL;
	}
	ret = sim_setup(cfg, err, errlen);
	if (ret)
		return ret;
	sim.r.cfg = cfg;
	sim.r.res = res;
	sim.r.raw = raw;
	ret = sim_threads_new(cfg, nthr);
	if (!ret)
		ret = sim_limits(cfg);
	if (!ret)
		ret = sim_tree_new(cfg, a, nthr, err, errlen);
	if (!ret)
		ret = sim_run_budgeted(cfg, nthr, err, errlen);
	if (!ret)
		sim_collect(res);
	sim_run_free();
	return ret;
}
