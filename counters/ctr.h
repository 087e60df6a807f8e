/* SPDX-License-Identifier: MIT */
/*
 * ctr.h - the public API of libctr, the only header a user of the library
 * includes.  Everything else under counters/ is internal: struct layouts can
 * change without notice, this file cannot.
 *
 * A tree (struct ctr_tree) is one instance of one algorithm (struct ctr_algo):
 * nr_nodes nodes, node 0 the root, each holding nr_stats 64-bit counters.
 * The value of (node n, stat s) is the sum of every delta added to s at n or
 * at any descendant of n: a memcg's hierarchical statistic.  Deltas may be
 * negative.
 *
 * Concurrency contract:
 *  - `cpu` is a slot index in [0, nr_cpus).  Callers running at the same time
 *    use different slots (a slot is a CPU with preemption disabled); any number
 *    of threads up to nr_cpus may update at once.
 *  - ctr_read() is the algorithm's own read (with its own flushing, caching or
 *    staleness) and may run on any thread, concurrently with updates.
 *  - ctr_read_exact() is exact whenever no update is in progress.
 *  - ctr_read_error_bound() is the most ctr_read() can differ from the exact
 *    value when no update is in progress: 0 for exact algorithms, -1 where the
 *    staleness is bounded by time rather than by count.
 *
 * Range checks: ctr_tree_new() validates everything it is given.  The update
 * and read calls (ctr_add, ctr_read, ctr_read_exact, ctr_try_charge) check
 * cpu, node and stat only in builds with -DCTR_DEBUG (the sanitizer builds
 * of the tests use it), where a bad index aborts with a message; release
 * builds check nothing on these paths, as the kernel's this_cpu ops don't.
 */
#ifndef CTR_H
#define CTR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ctr_algo;	/* one algorithm (opaque) */
struct ctr_tree;	/* one instance: a tree of nodes, each with nr_stats counters */

/* Limit value meaning "no limit on this node" in ctr_params.limit. */
#define CTR_NO_LIMIT INT64_MAX

struct ctr_params {		/* zero = default for every field but nr_nodes */
	int nr_nodes;		/* >= 1, no default; node 0 is the root */
	const int *parent;	/* parent[0] == -1, 0 <= parent[i] < i; NULL: chain, parent[i] = i-1 */
	int nr_cpus;		/* per-CPU slots, >= 1; 0 = the number of configured CPUs */
	int nr_stats;		/* counters per node, >= 1; 0 = 1 */
	const int64_t *limit;	/* per-node limit on stat 0 for ctr_try_charge (CTR_NO_LIMIT = none); NULL = no limits */
	int64_t batch;		/* batching threshold, where the algorithm has one; 0 = its default */
	int flush_period_ms;	/* periodic flusher period, where the algorithm has one; 0 = its default */
	const char *options;	/* "key=value,..." algorithm-specific; unknown key -> EINVAL */
	const int *slot_node;	/* NUMA node of each slot's owner, [nr_cpus]; NULL: memory goes where it
				 * is first touched.  Given, every per-slot region is bound to its node. */
	const int *slot_l3;	/* L3 (CCX) group of each slot's owner, [nr_cpus], >= 0: which slots share a
				 * last-level cache (percpu_tree order=topology, percpu_hier_delegated's
				 * mailboxes); NULL: unknown, each algorithm says what it assumes */
};

/* The registry of algorithms, in the order of counters/list.h. */
int ctr_algo_count(void);
const struct ctr_algo *ctr_algo_at(int i);			/* NULL if out of range */
const struct ctr_algo *ctr_algo_find(const char *name);	/* NULL if unknown */
const char *ctr_algo_name(const struct ctr_algo *a);
const char *ctr_algo_summary(const struct ctr_algo *a);	/* one line */

/*
 * Create an instance.  Returns NULL with errno set: EINVAL for bad
 * parameters (nr_nodes < 1, a parent out of order, negative counts, a bad
 * options string: see ctr_options_check), ENOENT for an option key the
 * algorithm does not take, ENOMEM when out of memory.  The parent and limit
 * arrays are copied; the caller may free them afterwards.
 */
struct ctr_tree *ctr_tree_new(const struct ctr_algo *a, const struct ctr_params *p);
void ctr_tree_free(struct ctr_tree *t);	/* NULL is a no-op */

/*
 * The bytes ctr_tree_new(a, p) would allocate, computed without allocating
 * them (a few bytes per node and per slot of scratch): the instance, the
 * shape's copies and ancestor lists, the algorithm's arrays and per-slot
 * areas, with the allocator's rounding; for memory that grows after creation
 * (striped's cells), the most it can grow to.  What a caller compares with
 * the memory it has before creating a large tree.  0, or the -errno
 * ctr_tree_new would fail with for bad parameters or options (-EINVAL,
 * -ENOENT); *bytes is SIZE_MAX when the sum does not fit a size_t.  Within
 * 25% (plus 4 KiB) of what is allocated: tests/unit/test_footprint.c holds every
 * algorithm to it.
 */
int ctr_footprint(const struct ctr_algo *a, const struct ctr_params *p, size_t *bytes);

/*
 * Check options ("key=value,...", as ctr_params.options) for algorithm a:
 * 0 when ctr_tree_new would take them, else -EINVAL (an empty item, an item
 * that is not key=value, a key given twice, a value the key does not take)
 * or -ENOENT (a key a does not take), with a one-line reason naming the item
 * in err (errlen bytes, always terminated).
 */
int ctr_options_check(const struct ctr_algo *a, const char *options, char *err, size_t errlen);

/* Add delta to (node, stat) from slot cpu. */
void ctr_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta);

/* The algorithm's own read: see ctr_read_error_bound() for how far off it can be. */
int64_t ctr_read(struct ctr_tree *t, int node, int stat);

/* Exact whenever no update is in progress. */
int64_t ctr_read_exact(struct ctr_tree *t, int node, int stat);

/*
 * Charge delta to stat 0 of node and of every ancestor if, at each of them,
 * value + delta <= limit; return 1 if charged, 0 if nothing was changed.
 * How close to the limit a level may get under concurrent charges is a
 * property of the algorithm, stated in ctrbench list and docs/algorithms.md.
 */
int ctr_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta);

/* Most ctr_read() can be off at quiescence: 0 exact, -1 bounded by time. */
int64_t ctr_read_error_bound(const struct ctr_tree *t);

/*
 * How old the value ctr_read() returns can be, in ms, for this instance
 * (its options and flush period), where ctr_read_error_bound() is -1.
 * flush_ms: the longest flush measured, -1 if unknown (a bound of "one
 * flush" needs it).  why (len bytes, may be NULL): the bound in words.
 * Returns 0 when the read is bounded by a count (ctr_read_error_bound() >=
 * 0), the ms, CTR_STALE_UNBOUNDED when no time bounds it (a delta can wait
 * for an event that may not come), or CTR_STALE_UNKNOWN when the algorithm
 * does not say (or a bound of one flush has no flush_ms).
 */
#define CTR_STALE_UNBOUNDED (-1.0)
#define CTR_STALE_UNKNOWN (-2.0)
double ctr_read_staleness_ms(const struct ctr_tree *t, double flush_ms, char *why, size_t len);

/*
 * The layout map: every region of memory a tree allocated, with whose it is
 * (node, slot) and what it holds, so that a tool sampling addresses (perf
 * c2c, `ctrbench run --c2c`) can name the line a sample hit.  Regions do not
 * overlap, and together they cover every byte of every allocation the tree
 * holds (padding is a region too, what = "padding").  Call it when no update
 * is in progress: memory that grows under contention (striped's cells) is
 * read as it stands.
 */
struct ctr_region {
	const void *addr;	/* first byte */
	size_t len;		/* bytes, >= 1 */
	int node;		/* the node whose counters these are, -1: no one node's */
	int level;		/* that node's level, the root 1 (levels from the root), -1 with no node */
	int slot;		/* the slot (per-CPU area) that owns it, -1: shared by every slot */
	int index;		/* which of several alike (an L3 group's mailbox, a subsystem), -1: the only one */
	const char *what;	/* what it holds, a static string: "the node's atomic counters", "padding" */
};

/* Called once per region; a nonzero return stops the walk and is ctr_layout's. */
typedef int (*ctr_layout_fn)(const struct ctr_region *r, void *arg);

/*
 * Walk t's layout map, calling emit for each region, in no set order.
 * 0, what emit returned when nonzero, -EINVAL for a NULL t or emit, or
 * -EOPNOTSUPP where the algorithm has no map.
 */
int ctr_layout(struct ctr_tree *t, ctr_layout_fn emit, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* CTR_H */
