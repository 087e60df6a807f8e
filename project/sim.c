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

/*
 * One-way core-to-core latencies as published for AMD Genoa (Zen 4) by
 * nviennot/core-to-core-latency runs on 2 x EPYC 9654, 2 x 9454 and a
 * 9274F: ~10 ns between SMT siblings, ~26 ns within a CCX, ~100 ns to
 * another CCX of the socket with the line's home there, ~200 ns with its
 * home on the other socket, ~195 ns to the other socket.  DRAM (first touch
 * only, since nothing is evicted) 110 ns: the usual Genoa local figure, an
 * assumption, not one of those results.  A hit: 0.5 ns (an L1 load's
 * 4-5 cycles at ~3.7 GHz, with two or three issued per cycle); a locked RMW
 * that hits: 5 ns (the ~18 cycles of a lock-prefixed add on Zen).  Both are
 * assumptions too, said with every projection.
 */
void proj_calib_default(struct proj_calib *c)
{
	static const double ns[PROJ_NR_CLASSES] = { 10, 26, 100, 200, 195, 110 };

	memcpy(c->ns, ns, sizeof(ns));
	c->hit_ns = 0.5;
	c->hit_rmw_ns = 5;
	snprintf(c->source, sizeof(c->source),
		 "default: published Genoa one-way core-to-core-latency figures (2 x 9654, 2 x 9454, 9274F)");
	snprintf(c->name, sizeof(c->name), "Genoa default");
}

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

static struct {
	const struct proj_calib *cal;
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
} S;

/* One projection's run: what sim_step needs, from the main loop or from sim_yield. */
static struct {
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
	jmp_buf bail;			/* where an operation past its step budget returns to */
} R;

static void sim_yield(void);


/* Class of a transfer to PU a from PU b of a line whose home is NUMA node home. */
static int sim_class(int a, int b, int home)
{
	const struct sim_pu *x = &S.pus[a], *y = &S.pus[b];

	if (x->core == y->core)
		return PROJ_C_SMT;
	if (x->l3 == y->l3)
		return PROJ_C_CCX;
	if (x->pkg == y->pkg)
		return home >= 0 && S.numa_pkg[home] != x->pkg ? PROJ_C_XCCX_RH : PROJ_C_XCCX;
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
	return (size_t)((tag * 0x9e3779b97f4a7c15ULL) >> (64 - __builtin_ctzll(S.cap)));
}

static struct sim_line *sim_line_of(uintptr_t addr)
{
	const uintptr_t tag = addr / 64;
	int home_os;
	size_t h;

	if (S.used * 2 >= S.cap && sim_grow())
		abort();	/* out of memory: the model cannot go on */
	h = sim_hash(tag);
	while (S.lines[h].tag && S.lines[h].tag != tag)
		h = (h + 1) & (S.cap - 1);
	if (!S.lines[h].tag) {
		struct sim_line *l = &S.lines[h];

		home_os = proj_rt_home_of(addr);	/* once, when the line is first seen */
		l->tag = tag;
		l->owner = -1;
		l->nsharers = 0;
		l->busy0 = l->busy = l->hold = -1;
		l->sharers = &S.bits[h * S.words];
		memset(l->sharers, 0, sizeof(uint64_t) * S.words);
		l->home = home_os >= 0 && home_os <= S.max_numa_os && S.numa_of_os[home_os] >= 0 ?
			  S.numa_of_os[home_os] : S.pus[S.pu].numa;
		S.used++;
	}
	return &S.lines[h];
}

static int sim_alloc(size_t cap)
{
	S.lines = calloc(cap, sizeof(*S.lines));
	S.bits = calloc(cap * S.words, sizeof(uint64_t));
	if (!S.lines || !S.bits) {
		free(S.lines);
		free(S.bits);
		return -ENOMEM;
	}
	S.cap = cap;
	S.used = 0;
	return 0;
}

static int sim_grow(void)
{
	struct sim_line *old = S.lines;
	uint64_t *oldbits = S.bits;
	size_t oldcap = S.cap;

	if (sim_alloc(oldcap * 2)) {
		S.lines = old;
		S.bits = oldbits;
		return -ENOMEM;
	}
	for (size_t i = 0; i < oldcap; i++) {
		struct sim_line *o = &old[i], *n;
		size_t h;

		if (!o->tag)
			continue;
		h = sim_hash(o->tag);
		while (S.lines[h].tag)
			h = (h + 1) & (S.cap - 1);
		n = &S.lines[h];
		*n = *o;
		n->sharers = &S.bits[h * S.words];
		memcpy(n->sharers, o->sharers, sizeof(uint64_t) * S.words);
		S.used++;
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
	if (++S.steps > S.max_steps && S.max_steps && pthread_equal(pthread_self(), R.main))
		longjmp(R.bail, 1);
}

void proj_sim_step(void)
{
	if (S.cal)
		sim_steps();
}

void proj_sim_flag(const volatile void *addr, int held)
{
	if (!S.cal)
		return;
	if (held) {
		/* past the table's size a flag is not protected: the step budget still ends a spin on it */
		if (S.nflags < (int)(sizeof(S.flags) / sizeof(S.flags[0])))
			S.flags[S.nflags++] = addr;
		return;
	}
	for (int i = 0; i < S.nflags; i++)
		if (S.flags[i] == addr) {
			S.flags[i] = S.flags[--S.nflags];
			return;
		}
}

static void sim_close_group(void)
{
	S.op_overlap += S.group_max;
	S.group_max = 0;
}

/* Cost one access; the state moves as MESI says. */
void proj_sim_access(uintptr_t addr, unsigned size, int kind)
{
	struct sim_line *l;
	const int p = S.pu;
	int cls = -1, far = -1;
	double lat = 0, c;

	(void)size;
	if (!S.cal)
		return;		/* recording a trace outside a projection (the footprint test) */
	if (kind == PROJ_FENCE) {
		sim_close_group();
		return;
	}
	l = sim_line_of(addr);
	/*
	 * A line its owner just obtained is held for the owner's accesses
	 * that follow back to back (each within an RMW hit of the one before):
	 * stores drain from the store buffer under that one ownership before a
	 * request queued behind the transfer takes the line.  Without this a
	 * mailbox polled by many updaters would be taken from its writer
	 * between every two of its stores.  Any other access first lets the
	 * threads with earlier clocks run (sim_yield).
	 */
	sim_steps();
	if (S.can_yield && !S.nested && !S.locks_held && !S.nflags && R.n && R.th[R.heap[0]].now < S.now &&
	    !(l->owner == p && kind != PROJ_LOAD && S.now <= l->hold + S.cal->hit_rmw_ns)) {
		const struct sim_line *base = S.lines;

		sim_yield();
		if (S.lines != base)
			l = sim_line_of(addr);	/* the table grew: entries moved */
	}
	S.accesses += 1;
	if (kind == PROJ_LOAD) {
		if (l->owner == p || sim_bit(l->sharers, p)) {
			cls = -1;
		} else if (l->owner >= 0) {
			cls = sim_class(p, l->owner, l->home);
			l->sharers[l->owner / 64] |= 1ull << (l->owner % 64);
			l->sharers[p / 64] |= 1ull << (p % 64);
			l->nsharers = 2;
			l->owner = -1;
		} else if (l->nsharers) {
			/* the nearest copy answers */
			for (int w = 0; w < S.words; w++)
				for (uint64_t b = l->sharers[w]; b; b &= b - 1) {
					int q = w * 64 + __builtin_ctzll(b);
					int k = sim_class(p, q, l->home);

					if (cls < 0 || S.cal->ns[k] < S.cal->ns[cls])
						cls = k;
				}
			l->sharers[p / 64] |= 1ull << (p % 64);
			l->nsharers++;
		} else {
			cls = PROJ_C_DRAM;
			l->owner = p;	/* E */
		}
	} else {
		if (l->owner == p) {
			cls = -1;
		} else {
			/* every other copy is invalidated: the farthest bounds the wait */
			if (l->owner >= 0)
				far = sim_class(p, l->owner, l->home);
			for (int w = 0; w < S.words && l->nsharers; w++)
				for (uint64_t b = l->sharers[w]; b; b &= b - 1) {
					int q = w * 64 + __builtin_ctzll(b);
					int k;

					if (q == p)
						continue;
					k = sim_class(p, q, l->home);
					if (far < 0 || S.cal->ns[k] > S.cal->ns[far])
						far = k;
				}
			cls = far >= 0 ? far : PROJ_C_DRAM;
			if (l->nsharers)
				memset(l->sharers, 0, sizeof(uint64_t) * S.words);
			l->nsharers = 0;
			l->owner = p;
		}
	}
	if (cls < 0) {
		c = kind == PROJ_RMW ? S.cal->hit_rmw_ns : S.cal->hit_ns;
	} else {
		double start;

		lat = S.cal->ns[cls];
		/*
		 * An update run inside another operation runs whole at its
		 * start, and a read runs on past the other readers, so a long one (a read
		 * over every CPU's slot) leaves transfers stamped ahead of the
		 * other threads' clocks.  An access that ends before such a
		 * transfer begins goes first rather than wait for the future;
		 * one that overlaps it waits for its end.
		 */
		if (S.now >= l->busy || S.now + lat <= l->busy0) {
			start = S.now;
		} else {
			start = l->busy;
		}
		S.op_wait += start - S.now;
		if (start >= l->busy) {
			l->busy0 = start;
			l->busy = start + lat;
		}
		c = start - S.now + lat;
		if (S.counting)
			S.xfer[cls] += 1;
	}
	S.now += c;
	S.op_serial += c;
	if (kind != PROJ_LOAD && (cls >= 0 || S.now - c <= l->hold + S.cal->hit_rmw_ns))
		l->hold = S.now;	/* obtained now, or a back-to-back store or RMW since */
	if (kind == PROJ_RMW) {
		sim_close_group();
		S.op_overlap += c;
	} else if (cls < 0) {
		S.op_overlap += c;	/* a hit is the core's own work: it adds up */
	} else if (c > S.group_max) {
		S.group_max = c;
	}
}

uint64_t proj_sim_now(void)
{
	return (uint64_t)S.now;
}

static struct sim_lock *sim_lock_of(void *m)
{
	for (int i = 0; i < S.nr_locks; i++)
		if (S.locks[i].m == m)
			return &S.locks[i];
	if (S.nr_locks % 64 == 0) {
		struct sim_lock *n = realloc(S.locks, sizeof(*n) * (S.nr_locks + 64));

		if (!n)
			abort();
		S.locks = n;
	}
	S.locks[S.nr_locks] = (struct sim_lock){ m, 0, 0, 0, 0 };
	return &S.locks[S.nr_locks++];
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

	if (!S.cal)
		return 0;
	k = sim_lock_of(m);
	if (op == PROJ_UNLOCK) {
		proj_sim_access((uintptr_t)m, 4, PROJ_RMW);
		k->free_at = S.now;
		S.locks_held -= S.locks_held > 0;
		return 0;
	}
	if (S.can_yield && !S.nested && !S.locks_held && !S.nflags)
		sim_yield();
	if (S.now < k->free_at) {
		double w = k->free_at - S.now;

		if (op == PROJ_TRYLOCK) {
			proj_sim_access((uintptr_t)m, 4, PROJ_LOAD);
			return 1;
		}
		if (S.counting) {
			k->contended++;
			k->wait += w;
		}
		sim_close_group();
		S.op_serial += w;
		S.op_overlap += w;
		S.op_wait += w;
		S.now = k->free_at;
	}
	k->free_at = 1e300;	/* held */
	S.locks_held++;
	proj_sim_access((uintptr_t)m, 4, PROJ_RMW);
	if (S.counting)
		k->acq++;
	return 0;
}

/* ---- the run ---- */

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
	memset(&S, 0, sizeof(S));
	S.cal = cfg->calib;
	S.nr_pus = topo_nr_pus(cfg->topo);
	S.words = (S.nr_pus + 63) / 64;
	topo_counts(cfg->topo, &tc);
	S.nr_numa = tc.numa_nodes > 0 ? tc.numa_nodes : 1;
	S.pus = calloc(S.nr_pus, sizeof(*S.pus));
	S.numa_pkg = calloc(S.nr_numa, sizeof(int));
	if (!S.pus || !S.numa_pkg)
		goto nomem;
	for (int i = 0; i < S.nr_pus; i++) {
		struct topo_pu_info in;

		topo_pu_at(cfg->topo, i, &in);
		S.pus[i] = (struct sim_pu){ in.core, in.l3 >= 0 ? in.l3 : in.package, in.package,
					    in.numa >= 0 ? in.numa : 0 };
		if (S.pus[i].numa < S.nr_numa)
			S.numa_pkg[S.pus[i].numa] = in.package;
		if (in.numa_os > maxos)
			maxos = in.numa_os;
	}
	S.max_numa_os = maxos;
	S.numa_of_os = malloc(sizeof(int) * (maxos + 1));
	if (!S.numa_of_os)
		goto nomem;
	for (int i = 0; i <= maxos; i++)
		S.numa_of_os[i] = -1;
	for (int i = 0; i < S.nr_pus; i++) {
		struct topo_pu_info in;

		topo_pu_at(cfg->topo, i, &in);
		if (in.numa_os >= 0)
			S.numa_of_os[in.numa_os] = S.pus[i].numa;
	}
	if (sim_alloc(1 << 12))
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "projection: out of memory for %d PUs", S.nr_pus);
	return -ENOMEM;
}

static void sim_teardown(void)
{
	free(S.pus);
	free(S.numa_pkg);
	free(S.numa_of_os);
	free(S.lines);
	free(S.bits);
	free(S.locks);
	memset(&S, 0, sizeof(S));
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

#define SIM_UNIT 4096	/* a charge: one page, as the harness's BENCH_CHARGE_UNIT */
#define SIM_WINDOW 8	/* charges held before the oldest is freed (BENCH_CHARGE_WINDOW) */
#define SIM_SWING 1024	/* readers workload: +1 this many times, then -1 (BENCH_SWING) */


/* Run thread i's next operation (S's per-operation fields set here), and count it. */
static void sim_step(int i)
{
	const struct proj_config *cfg = R.cfg;
	struct sim_thread *w = &R.th[i];
	/* readers warm up on a tenth of their reads (at least one), updaters on warmup_ops */
	const long warm = w->reader ? (cfg->reads >= 10 ? cfg->reads / 10 : 1) : cfg->warmup_ops;
	const long total = warm + (w->reader ? cfg->reads : cfg->ops);
	struct proj_result *res = R.res;

	S.pu = w->pu;
	S.now = w->now;
	S.steps = 0;
	S.counting = w->done >= warm && w->done < total;
	if (w->done == warm)
		w->t0 = w->now;
	S.op_serial = S.op_overlap = S.group_max = S.op_wait = 0;
	S.xfer = w->reader ? R.rd_xfer : R.upd_xfer;
	if (R.raw) {
		/* a store to the thread's word: 8 bytes apart (one line) or 64 (a line each) */
		proj_sim_access((uintptr_t)(R.raw_mem + (size_t)i * (R.raw == 1 ? 8 : 64)), 8, PROJ_STORE);
	} else if (w->reader) {
		int node = cfg->read_node >= 0 ? cfg->read_node : cfg->leaves[(w->done + i) % cfg->nr_leaves];

		(void)proj_ctr_read(R.t, node, 0);
	} else if (cfg->workload == PROJ_W_CHARGE) {
		const int leaf = cfg->leaves[i % cfg->nr_leaves];
		int ok;

		if (w->held == SIM_WINDOW) {
			proj_ctr_add(R.t, i, leaf, 0, -SIM_UNIT);
			w->held--;
		}
		ok = proj_ctr_try_charge(R.t, i, leaf, SIM_UNIT);
		w->held += ok;
		if (!ok && w->held) {
			proj_ctr_add(R.t, i, leaf, 0, -SIM_UNIT);
			w->held--;
		}
		if (S.counting && !ok)
			res->charges_refused++;
	} else if (cfg->workload == PROJ_W_READERS) {
		if (w->done && w->done % SIM_SWING == 0)
			w->dir = -w->dir;
		proj_ctr_add(R.t, i, cfg->leaves[i % cfg->nr_leaves], 0, w->dir);
	} else {
		proj_ctr_add(R.t, i, cfg->leaves[i % cfg->nr_leaves], 0, w->done & 1 ? -1 : 1);
	}
	sim_close_group();
	/* a flag still set when its operation ends is not held by the next one (a taker spins: the budget) */
	S.nflags = 0;
	if (S.counting) {
		if (w->reader) {
			res->reads++;
			res->rns_serial += S.op_serial;
			res->rns_overlap += S.op_overlap;
			if (S.op_serial > res->rns_max)
				res->rns_max = S.op_serial;
		} else {
			res->ops++;
			res->ns_serial += S.op_serial;
			res->ns_overlap += S.op_overlap;
			res->wait_ns += S.op_wait;
		}
	}
	w->now = S.now + (w->reader ? (double)cfg->read_interval_ns : (double)cfg->work_ns);
	w->done++;
	if (w->done == total) {
		if (!w->reader) {
			R.span += w->now - w->t0;
			R.spans++;
		}
		R.unfinished--;
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
	const int pu = S.pu, counting = S.counting;
	const double now = S.now, serial = S.op_serial, overlap = S.op_overlap, gmax = S.group_max,
		     wait = S.op_wait;
	const long steps = S.steps;
	double *const xfer = S.xfer;

	if (!R.n || !(R.th[R.heap[0]].now < now))
		return;
	S.nested = 1;
	while (R.n && R.th[R.heap[0]].now < now) {
		const int j = R.heap[0];

		R.heap[0] = R.heap[--R.n];
		sim_heap_down(R.heap, R.n, 0, R.th);
		sim_step(j);
		R.heap[R.n] = j;
		sim_heap_up(R.heap, R.n++, R.th);
	}
	S.nested = 0;
	S.pu = pu;
	S.counting = counting;
	S.now = now;
	S.op_serial = serial;
	S.op_overlap = overlap;
	S.group_max = gmax;
	S.op_wait = wait;
	S.xfer = xfer;
	S.steps = steps;
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

int proj_run(const struct proj_config *cfg, struct proj_result *res, char *err, size_t errlen)
{
	const int nthr = cfg->threads + cfg->readers;
	/* "=false-shared", "=padded": the model's own patterns, no libctr code */
	const int raw = cfg->algo[0] == '=' ? 1 + !strcmp(cfg->algo, "=padded") : 0;
	const struct ctr_algo *a = raw ? NULL : proj_ctr_algo_find(cfg->algo);
	struct sim_thread *th = NULL;
	int *heap = NULL, *rheap = NULL, *slot_node = NULL, *slot_l3 = NULL, ret;
	int64_t *limit = NULL;
	struct ctr_params p = { 0 };
	struct ctr_tree *t = NULL;
	int fl_pu;

	memset(res, 0, sizeof(*res));
	memset(&R, 0, sizeof(R));
	if (!a && (!raw || strcmp(cfg->algo, raw == 1 ? "=false-shared" : "=padded"))) {
		snprintf(err, errlen, "projection: unknown algorithm '%s'", cfg->algo);
		return -EINVAL;
	}
	/*
	 * Reads interleave with updates, not with each other (sim_yield): a
	 * read runs on until it is done, pushing the updaters' clocks to its
	 * end, so a second reader's requests to the mailboxes would be posted
	 * in the updaters' past and time out unanswered: not the design.
	 */
	if (!raw && !strcmp(cfg->algo, "percpu_hier_delegated") && cfg->readers > 1) {
		snprintf(err, errlen, "projection: percpu_hier_delegated with %d readers: the model interleaves "
			 "reads with updates but not with each other, so a second reader's mailbox requests would "
			 "go unanswered; project it with --readers 1 (docs/projection.md)", cfg->readers);
		return -EINVAL;
	}
	ret = sim_setup(cfg, err, errlen);
	if (ret)
		return ret;
	ret = -ENOMEM;
	th = calloc(nthr, sizeof(*th));
	heap = calloc(nthr, sizeof(*heap));
	rheap = calloc(nthr, sizeof(*rheap));
	slot_node = calloc(nthr, sizeof(*slot_node));
	slot_l3 = calloc(nthr, sizeof(*slot_l3));
	limit = calloc(cfg->nr_nodes, sizeof(*limit));
	if (!th || !heap || !rheap || !slot_node || !slot_l3 || !limit)
		goto out;
	for (int i = 0; i < nthr; i++) {
		th[i].pu = sim_logical(cfg->topo, cfg->pus[i]);
		th[i].reader = i >= cfg->threads;
		th[i].dir = 1;
		slot_node[i] = topo_numa_node_of_pu(cfg->topo, cfg->pus[i]);
		if (slot_node[i] < 0)
			slot_node[i] = 0;
		/* the L3 of each slot's thread, as the harness gives it (bench/setup.c) */
		slot_l3[i] = S.pus[th[i].pu].l3;
	}
	/* limits as the harness sets them: 3/4 of what the workers below a node can hold */
	{
		int *below = calloc(cfg->nr_nodes, sizeof(int));

		if (!below)
			goto out;
		for (int i = 0; i < cfg->threads; i++)
			for (int m = cfg->leaves[i % cfg->nr_leaves]; m >= 0; m = cfg->parent[m])
				below[m]++;
		for (int m = 0; m < cfg->nr_nodes; m++)
			limit[m] = below[m] ? (int64_t)SIM_UNIT * SIM_WINDOW * below[m] * 3 / 4 : CTR_NO_LIMIT;
		free(below);
	}
	p.nr_nodes = cfg->nr_nodes;
	p.parent = cfg->parent;
	p.nr_cpus = nthr;
	p.options = cfg->options;
	p.flush_period_ms = cfg->flush_period_ms;
	p.slot_node = slot_node;
	p.slot_l3 = slot_l3;
	if (cfg->workload == PROJ_W_CHARGE) {
		p.limit = limit;
		p.batch = (int64_t)64 * SIM_UNIT;	/* BENCH_CHARGE_BATCH */
	}
	/* created by worker 0, as the harness's main thread: shared lines are homed on its node */
	S.pu = th[0].pu;
	S.xfer = R.upd_xfer;
	proj_rt_reset();
	proj_rt_record(1);
	if (raw) {
		R.raw_mem = proj_malloc((size_t)64 * (nthr + 1));
		if (!R.raw_mem)
			goto out;
	}
	t = raw ? NULL : proj_ctr_tree_new(a, &p);
	if (!t && !raw) {
		ret = -errno;
		snprintf(err, errlen, "projection: %s: cannot create the tree (options '%s'?)", cfg->algo,
			 cfg->options ? cfg->options : "");
		goto out;
	}
	/* the periodic flusher, if any, runs on the last PU (a kworker somewhere) */
	fl_pu = S.nr_pus - 1;
	R.cfg = cfg;
	R.res = res;
	R.t = t;
	R.raw = raw;
	R.th = th;
	R.heap = heap;
	R.rheap = rheap;
	R.unfinished = nthr;
	/*
	 * Every thread runs until all have done their measured operations: one
	 * done early goes on, uncounted, so that what the others measure runs
	 * against the same load (readers and updaters of very different speeds
	 * overlap in virtual time instead of running one after the other).  The
	 * earliest clock runs next, out of the heap while it runs (sim_yield
	 * runs the others inside its operation).
	 */
	for (int i = 0; i < nthr; i++)
		if (th[i].reader)
			rheap[R.rn++] = i;
		else
			heap[R.n++] = i;
	/*
	 * The step budget of one operation: a legitimate one touches each
	 * (slot, node) pair a few times, so 256 times each, and 2^24 steps
	 * for a small tree (a wait with a virtual timeout polls at a hit's
	 * cost: 2^24 polls are 8 ms of virtual time at the default 0.5 ns),
	 * is far above any; a spin that no virtual thread can end reaches it in
	 * a few seconds of real time.
	 */
	R.main = pthread_self();
	if (setjmp(R.bail)) {
		snprintf(err, errlen, "projection cannot run %s%s%s: an operation (on PU %d) went on past %ld "
			 "steps (accesses, yields, clock reads), waiting for what only an operation the model "
			 "has suspended could do (it runs one at a time, some inside another; docs/projection.md)", cfg->algo, cfg->options ? " with options " : "",
			 cfg->options ? cfg->options : "", S.pu, S.max_steps);
		S.max_steps = 0;
		sim_abandon(t);
		t = NULL;
		ret = -EDEADLK;
		goto out;
	}
	S.steps = 0;
	S.max_steps = (1L << 24) + 256L * nthr * cfg->nr_nodes;
	while (R.unfinished) {
		/* the earliest clock of either heap runs next */
		const int rd = R.rn && (!R.n || th[rheap[0]].now < th[heap[0]].now);
		int *h = rd ? rheap : heap, *hn = rd ? &R.rn : &R.n;
		const int i = h[0];

		if (proj_rt_have_flusher() && (double)proj_rt_flusher_due() <= th[i].now) {
			S.pu = fl_pu;
			S.now = (double)proj_rt_flusher_due();
			S.counting = 0;
			S.op_serial = S.op_overlap = S.group_max = S.op_wait = 0;
			S.steps = 0;
			proj_rt_flusher_step();
			S.nflags = 0;
			continue;
		}
		h[0] = h[--*hn];
		sim_heap_down(h, *hn, 0, th);
		S.can_yield = 1;
		sim_step(i);
		S.can_yield = 0;
		h[*hn] = i;
		sim_heap_up(h, (*hn)++, th);
	}
	S.max_steps = 0;	/* the tree's teardown is no operation */
	memcpy(res->xfer, R.upd_xfer, sizeof(R.upd_xfer));
	memcpy(res->rxfer, R.rd_xfer, sizeof(R.rd_xfer));
	res->elapsed_ns = R.spans ? R.span / R.spans : 0;
	res->accesses = S.accesses;
	for (int k = 0; k < S.nr_locks; k++)
		if (S.locks[k].acq > res->lock_acq) {
			res->lock_acq = S.locks[k].acq;
			res->lock_contended = S.locks[k].contended;
			res->lock_wait_ns = S.locks[k].wait;
		}
	ret = 0;
out:
	if (t) {
		S.counting = 0;
		S.can_yield = 0;
		proj_ctr_tree_free(t);
	}
	proj_rt_record(0);
	proj_free(R.raw_mem);
	free(th);
	free(heap);
	free(rheap);
	free(slot_node);
	free(slot_l3);
	free(limit);
	sim_teardown();
	memset(&R, 0, sizeof(R));
	return ret;
}
