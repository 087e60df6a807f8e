/* SPDX-License-Identifier: MIT */
/*
 * sim.c - the discrete-event MESI model the projection runs libctr's real
 * code against (docs/projection.md).
 *
 * Virtual threads sit on PUs of a topology (this machine's or a hwloc
 * synthetic one).  Each has a clock; the one with the earliest clock runs
 * its next operation, whole, through the instrumented libctr, and every
 * load, store and RMW it makes on the tree's memory comes here.  Per cache
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
} S;


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
		l->busy0 = l->busy = 0;
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
	S.accesses += 1;
	l = sim_line_of(addr);
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
		 * An operation runs whole at its start, so a long one (a read
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
		return 0;
	}
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
	proj_sim_access((uintptr_t)m, 4, PROJ_RMW);
	if (S.counting)
		k->acq++;
	k->free_at = 1e300;	/* held */
	return 0;
}

/* ---- the run ---- */

static int sim_setup(const struct proj_config *cfg, char *err, size_t errlen)
{
	struct topo_counts tc;
	int maxos = 0;

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

#define SIM_UNIT 4096	/* a charge: one page, as the harness's BENCH_CHARGE_UNIT */
#define SIM_WINDOW 8	/* charges held before the oldest is freed (BENCH_CHARGE_WINDOW) */
#define SIM_SWING 1024	/* readers workload: +1 this many times, then -1 (BENCH_SWING) */

int proj_run(const struct proj_config *cfg, struct proj_result *res, char *err, size_t errlen)
{
	const int nthr = cfg->threads + cfg->readers;
	/* "=false-shared", "=padded": the model's own patterns, no libctr code */
	const int raw = cfg->algo[0] == '=' ? 1 + !strcmp(cfg->algo, "=padded") : 0;
	const struct ctr_algo *a = raw ? NULL : proj_ctr_algo_find(cfg->algo);
	char *raw_mem = NULL;
	struct sim_thread *th = NULL;
	int *heap = NULL, *slot_node = NULL, n, ret;
	int64_t *limit = NULL;
	struct ctr_params p = { 0 };
	struct ctr_tree *t = NULL;
	double upd_xfer[PROJ_NR_CLASSES] = { 0 }, rd_xfer[PROJ_NR_CLASSES] = { 0 };
	double span = 0;
	int spans = 0, fl_pu, unfinished = nthr;

	memset(res, 0, sizeof(*res));
	if (!a && (!raw || strcmp(cfg->algo, raw == 1 ? "=false-shared" : "=padded"))) {
		snprintf(err, errlen, "projection: unknown algorithm '%s'", cfg->algo);
		return -EINVAL;
	}
	ret = sim_setup(cfg, err, errlen);
	if (ret)
		return ret;
	ret = -ENOMEM;
	th = calloc(nthr, sizeof(*th));
	heap = calloc(nthr, sizeof(*heap));
	slot_node = calloc(nthr, sizeof(*slot_node));
	limit = calloc(cfg->nr_nodes, sizeof(*limit));
	if (!th || !heap || !slot_node || !limit)
		goto out;
	for (int i = 0; i < nthr; i++) {
		th[i].pu = sim_logical(cfg->topo, cfg->pus[i]);
		th[i].reader = i >= cfg->threads;
		th[i].dir = 1;
		slot_node[i] = topo_numa_node_of_pu(cfg->topo, cfg->pus[i]);
		if (slot_node[i] < 0)
			slot_node[i] = 0;
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
	if (cfg->workload == PROJ_W_CHARGE) {
		p.limit = limit;
		p.batch = (int64_t)64 * SIM_UNIT;	/* BENCH_CHARGE_BATCH */
	}
	/* created by worker 0, as the harness's main thread: shared lines are homed on its node */
	S.pu = th[0].pu;
	S.xfer = upd_xfer;
	proj_rt_reset();
	proj_rt_record(1);
	if (raw) {
		raw_mem = proj_malloc((size_t)64 * (nthr + 1));
		if (!raw_mem)
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
	/*
	 * Every thread runs until all have done their measured operations: one
	 * done early goes on, uncounted, so that what the others measure runs
	 * against the same load (readers and updaters of very different speeds
	 * overlap in virtual time instead of running one after the other).
	 */
	n = nthr;
	for (int i = 0; i < n; i++)
		heap[i] = i;
	while (unfinished) {
		struct sim_thread *w = &th[heap[0]];
		const int i = heap[0];
		/* readers warm up on a tenth of their reads (at least one), updaters on warmup_ops */
		const long warm = w->reader ? (cfg->reads >= 10 ? cfg->reads / 10 : 1) : cfg->warmup_ops;
		const long total = warm + (w->reader ? cfg->reads : cfg->ops);

		if (proj_rt_have_flusher() && (double)proj_rt_flusher_due() <= w->now) {
			S.pu = fl_pu;
			S.now = (double)proj_rt_flusher_due();
			S.counting = 0;
			S.op_serial = S.op_overlap = S.group_max = S.op_wait = 0;
			proj_rt_flusher_step();
			continue;
		}
		S.pu = w->pu;
		S.now = w->now;
		S.counting = w->done >= warm && w->done < total;
		if (w->done == warm)
			w->t0 = w->now;
		S.op_serial = S.op_overlap = S.group_max = S.op_wait = 0;
		S.xfer = w->reader ? rd_xfer : upd_xfer;
		if (raw) {
			/* a store to the thread's word: 8 bytes apart (one line) or 64 (a line each) */
			proj_sim_access((uintptr_t)(raw_mem + (size_t)i * (raw == 1 ? 8 : 64)), 8, PROJ_STORE);
		} else if (w->reader) {
			int node = cfg->read_node >= 0 ? cfg->read_node :
				   cfg->leaves[(w->done + i) % cfg->nr_leaves];

			(void)proj_ctr_read(t, node, 0);
		} else if (cfg->workload == PROJ_W_CHARGE) {
			const int leaf = cfg->leaves[i % cfg->nr_leaves];
			int ok;

			if (w->held == SIM_WINDOW) {
				proj_ctr_add(t, i, leaf, 0, -SIM_UNIT);
				w->held--;
			}
			ok = proj_ctr_try_charge(t, i, leaf, SIM_UNIT);
			w->held += ok;
			if (!ok && w->held) {
				proj_ctr_add(t, i, leaf, 0, -SIM_UNIT);
				w->held--;
			}
			if (S.counting && !ok)
				res->charges_refused++;
		} else if (cfg->workload == PROJ_W_READERS) {
			if (w->done && w->done % SIM_SWING == 0)
				w->dir = -w->dir;
			proj_ctr_add(t, i, cfg->leaves[i % cfg->nr_leaves], 0, w->dir);
		} else {
			proj_ctr_add(t, i, cfg->leaves[i % cfg->nr_leaves], 0, w->done & 1 ? -1 : 1);
		}
		sim_close_group();
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
				span += w->now - w->t0;
				spans++;
			}
			unfinished--;
		}
		sim_heap_down(heap, n, 0, th);
	}
	memcpy(res->xfer, upd_xfer, sizeof(upd_xfer));
	memcpy(res->rxfer, rd_xfer, sizeof(rd_xfer));
	res->elapsed_ns = spans ? span / spans : 0;
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
		proj_ctr_tree_free(t);
	}
	proj_rt_record(0);
	proj_free(raw_mem);
	free(th);
	free(heap);
	free(slot_node);
	free(limit);
	sim_teardown();
	return ret;
}
