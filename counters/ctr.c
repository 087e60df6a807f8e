/* SPDX-License-Identifier: MIT */
/*
 * ctr.c - the registry, parameter validation, and the public API, which
 * dispatches through each algorithm's ops table.  Nothing here is on a
 * timed path: the harness inlines the algorithms' hot paths itself.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/mempolicy.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "list.h"

#define CTR_ALGO_PTR(name) &ctr_algo_##name,
static const struct ctr_algo *const ctr_algos[] = { CTR_ALGO_LIST(CTR_ALGO_PTR) };
#define CTR_NR_ALGOS ((int)(sizeof(ctr_algos) / sizeof(ctr_algos[0])))

int ctr_algo_count(void)
{
	return CTR_NR_ALGOS;
}

const struct ctr_algo *ctr_algo_at(int i)
{
	return i >= 0 && i < CTR_NR_ALGOS ? ctr_algos[i] : NULL;
}

const struct ctr_algo *ctr_algo_find(const char *name)
{
	for (int i = 0; name && i < CTR_NR_ALGOS; i++)
		if (!strcmp(ctr_algos[i]->name, name))
			return ctr_algos[i];
	return NULL;
}

const char *ctr_algo_name(const struct ctr_algo *a)
{
	return a ? a->name : NULL;
}

const char *ctr_algo_summary(const struct ctr_algo *a)
{
	return a ? a->summary : NULL;
}

/* The test hook (ctr_debug_track_allocs): on, and the live allocations under its lock. */
static _Atomic int ctr_track_on;
static pthread_mutex_t ctr_track_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ctr_alloc_rec *ctr_track_recs;	/* the live allocations, under ctr_track_lock */
static int ctr_track_n, ctr_track_cap;		/* used, allocated */

void ctr_debug_track_allocs(int on)
{
	pthread_mutex_lock(&ctr_track_lock);
	free(ctr_track_recs);
	ctr_track_recs = NULL;
	ctr_track_n = ctr_track_cap = 0;
	atomic_store_explicit(&ctr_track_on, on, memory_order_relaxed);
	pthread_mutex_unlock(&ctr_track_lock);
}

int ctr_debug_allocs(const struct ctr_alloc_rec **recs)
{
	*recs = ctr_track_recs;
	return ctr_track_n;
}

/* A list that cannot grow loses the record, which the test then misses: it fails, nothing crashes. */
static void *ctr_tracked(void *p, size_t size)
{
	if (!p || !atomic_load_explicit(&ctr_track_on, memory_order_relaxed))
		return p;
	pthread_mutex_lock(&ctr_track_lock);
	if (ctr_track_n == ctr_track_cap) {
		int cap = ctr_track_cap ? 2 * ctr_track_cap : 256;
		struct ctr_alloc_rec *r = realloc(ctr_track_recs, sizeof(*r) * (size_t)cap);

		if (r) {
			ctr_track_recs = r;
			ctr_track_cap = cap;
		}
	}
	if (ctr_track_n < ctr_track_cap)
		ctr_track_recs[ctr_track_n++] = (struct ctr_alloc_rec){ p, size };
	pthread_mutex_unlock(&ctr_track_lock);
	return p;
}

static void ctr_untrack(void *p)
{
	if (!p || !atomic_load_explicit(&ctr_track_on, memory_order_relaxed))
		return;
	pthread_mutex_lock(&ctr_track_lock);
	for (int i = 0; i < ctr_track_n; i++)
		if (ctr_track_recs[i].p == p) {
			ctr_track_recs[i] = ctr_track_recs[--ctr_track_n];
			break;
		}
	pthread_mutex_unlock(&ctr_track_lock);
}

void *ctr_malloc(size_t size)
{
	return ctr_tracked(malloc(size), size);
}

void *ctr_calloc(size_t n, size_t size)
{
	return ctr_tracked(calloc(n, size), n * size);	/* calloc refused what overflows */
}

void ctr_free(void *p)
{
	ctr_untrack(p);
	free(p);
}

static void *ctr_zalloc_raw(size_t size)
{
	void *p;

	size = CTR_ROUND_UP(size ? size : 1, CTR_CACHELINE);
	p = aligned_alloc(CTR_CACHELINE, size);
	if (p)
		memset(p, 0, size);
	return p;
}

void *ctr_zalloc_aligned(size_t size)
{
	return ctr_tracked(ctr_zalloc_raw(size), size);
}

static size_t ctr_page_round(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return CTR_ROUND_UP(size ? size : 1, page);
}

/*
 * The colour of slot cpu's area: its offset into its first page, cpu lines
 * modulo a page.  The L1D is indexed by the address bits below the page
 * (32 KiB, 8 ways: 64 sets of 64-byte lines, one set per line of a page), so
 * page-aligned areas would put every slot's copy of a node in one set, and a
 * read summing more than 8 slots would miss on every load past the eighth
 * (measured: 10.9x per slot at 512 slots, issue 13).  Coloured, the copies of
 * a node in slots 0..63 sit in 64 different sets, and with S slots no set
 * holds more than ceil(S / 64) of them: 8 ways cover 512 slots.  The
 * kernel's per-CPU allocator gets the same effect from its unit layout; the
 * cost here is one page more per area at most.
 */
static size_t ctr_slot_colour(int cpu)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return ((size_t)cpu * CTR_CACHELINE) % page;
}

void *ctr_alloc_slot_area(const struct ctr_tree *t, int cpu, size_t size)
{
	unsigned long mask[16] = { 0 };	/* nodes 0..1023 */
	int node = t->slot_node ? t->slot_node[cpu] : -1;
	size_t len, colour = ctr_slot_colour(cpu);
	void *p;

	if (node < 0)
		return ctr_tracked(ctr_zalloc_raw(size), size);
	if (node >= (int)(sizeof(mask) * 8)) {
		errno = EINVAL;
		return NULL;
	}
	len = ctr_page_round(size + colour);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	mask[node / (8 * sizeof(long))] = 1UL << (node % (8 * sizeof(long)));
	/* Bind before the first touch, so the pages are allocated there and nowhere else. */
	if (syscall(SYS_mbind, p, len, MPOL_BIND, mask, sizeof(mask) * 8, 0)) {
		int err = errno;

		munmap(p, len);
		errno = err;
		return NULL;
	}
	/* First touch by the creating thread, after the bind: the pages are on the slot's node. */
	memset(p, 0, len);
	return ctr_tracked((char *)p + colour, size);
}

void ctr_free_slot_area(const struct ctr_tree *t, void *p, size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), colour;

	if (!p)
		return;
	ctr_untrack(p);
	if (!t->slot_node) {
		free(p);
		return;
	}
	/* The colour is less than a page: the mapping starts at p's page. */
	colour = (uintptr_t)p % page;
	munmap((char *)p - colour, ctr_page_round(size + colour));
}

#ifdef CTR_DEBUG
void __ctr_bad_index(const char *what, long val, long bound, const char *fn)
{
	fprintf(stderr, "libctr: %s: %s %ld out of range [0, %ld)\n", fn, what, val, bound);
	abort();
}
#endif

/*
 * The items of "key=value,key=value", each checked for its form: *items
 * malloc'd pointers into *copy (free both).  -EINVAL with *bad the first
 * item that is empty (",,", a leading or trailing comma), has no '=' or no
 * key, or repeats a key given before it.
 */
static int ctr_split_options(const char *options, char **copy, char ***items, int *n, const char **bad)
{
	char *p;
	int cap = 1;

	*n = 0;
	*items = NULL;
	*bad = NULL;
	*copy = strdup(options);
	if (!*copy)
		return -ENOMEM;
	for (p = *copy; *p; p++)
		cap += *p == ',';
	*items = ctr_calloc((size_t)cap, sizeof(**items));
	if (!*items)
		return -ENOMEM;
	for (p = *copy;; ) {
		char *comma = strchr(p, ','), *eq;

		if (comma)
			*comma = '\0';
		eq = strchr(p, '=');
		if (!*p || !eq || eq == p) {
			*bad = p;
			return -EINVAL;
		}
		for (int i = 0; i < *n; i++) {
			const char *k = (*items)[i];

			if (!strncmp(k, p, (size_t)(eq - p) + 1)) {	/* same key, '=' included */
				*bad = p;
				return -EINVAL;
			}
		}
		(*items)[(*n)++] = p;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/*
 * Hand each key=value to the algorithm.  set_option answers -ENOENT for a
 * key it does not take and -EINVAL for a value it does not take; an
 * algorithm without options takes no key.
 */
static int ctr_parse_options(struct ctr_tree *t, const char *options)
{
	char *copy, **items;
	const char *bad;
	int n, err;

	if (!options || !*options)
		return 0;
	err = ctr_split_options(options, &copy, &items, &n, &bad);
	for (int i = 0; i < n && !err; i++) {
		char *eq = strchr(items[i], '=');

		*eq = '\0';
		err = t->algo->set_option ? t->algo->set_option(t, items[i], eq + 1) : -ENOENT;
		*eq = '=';
	}
	ctr_free(items);
	ctr_free(copy);
	return err;
}

int ctr_options_check(const struct ctr_algo *a, const char *options, char *err, size_t errlen)
{
	char *copy, **items;
	const char *bad;
	int n, ret;

	if (!options || !*options)
		return 0;
	ret = ctr_split_options(options, &copy, &items, &n, &bad);
	if (ret == -EINVAL) {
		if (!*bad)
			snprintf(err, errlen, "an empty item in '%s'", options);
		else if (!strchr(bad, '=') || *bad == '=')
			snprintf(err, errlen, "'%s' is not key=value", bad);
		else
			snprintf(err, errlen, "key '%.*s' given twice", (int)(strchr(bad, '=') - bad), bad);
	}
	for (int i = 0; i < n && !ret; i++) {
		const struct ctr_params p = { .nr_nodes = 1, .nr_cpus = 1, .options = items[i] };
		struct ctr_tree *t;
		const char *eq = strchr(items[i], '=');

		errno = 0;
		t = ctr_tree_new(a, &p);
		if (t) {
			ctr_tree_free(t);
			continue;
		}
		ret = -errno;
		if (errno == ENOENT)
			snprintf(err, errlen, "key '%.*s' is not one %s takes", (int)(eq - items[i]),
				 items[i], a->name);
		else if (errno == EINVAL)
			snprintf(err, errlen, "'%s' is not a value %s takes for %.*s", eq + 1, a->name,
				 (int)(eq - items[i]), items[i]);
		else
			snprintf(err, errlen, "%s with '%s': %s", a->name, items[i], strerror(errno));
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	ctr_free(items);
	ctr_free(copy);
	return ret;
}

/*
 * Every node's ancestor list (ctr_tree.ancestors), depth + 1 ints each: a
 * chain:4096 costs 33 MiB, the deepest shape the harness takes.
 */
static int ctr_init_ancestors(struct ctr_tree *t)
{
	const int **lists = ctr_malloc(sizeof(*lists) * t->nr_nodes);
	size_t total = 0, at = 0;

	t->ancestors = lists;
	if (!lists)
		return -ENOMEM;
	for (int i = 0; i < t->nr_nodes; i++)
		if (__builtin_add_overflow(total, (size_t)t->depth[i] + 1, &total))
			return -ENOMEM;
	if (total > SIZE_MAX / sizeof(int))
		return -ENOMEM;
	t->anc_store = ctr_malloc(sizeof(int) * total);
	if (!t->anc_store)
		return -ENOMEM;
	for (int i = 0; i < t->nr_nodes; i++) {
		lists[i] = t->anc_store + at;
		for (int n = i; n >= 0; n = t->parent[n])
			t->anc_store[at++] = n;
		t->anc_store[at++] = -1;
	}
	return 0;
}

/* Copy and check the shape; fills parent, depth, max_depth and ancestors. */
static int ctr_init_shape(struct ctr_tree *t, const struct ctr_params *p)
{
	t->parent = ctr_malloc(sizeof(int) * p->nr_nodes);
	t->depth = ctr_malloc(sizeof(int) * p->nr_nodes);
	if (!t->parent || !t->depth)
		return -ENOMEM;
	for (int i = 0; i < p->nr_nodes; i++) {
		int par = p->parent ? p->parent[i] : i - 1;

		if (i == 0 ? par != -1 : par < 0 || par >= i)
			return -EINVAL;
		t->parent[i] = par;
		t->depth[i] = i ? t->depth[par] + 1 : 1;
		if (t->depth[i] > t->max_depth)
			t->max_depth = t->depth[i];
	}
	if (ctr_init_ancestors(t))
		return -ENOMEM;
	if (p->limit) {
		t->limit = ctr_malloc(sizeof(int64_t) * p->nr_nodes);
		if (!t->limit)
			return -ENOMEM;
		memcpy(t->limit, p->limit, sizeof(int64_t) * p->nr_nodes);
	}
	if (p->slot_node) {
		t->slot_node = ctr_malloc(sizeof(int) * t->nr_cpus);
		if (!t->slot_node)
			return -ENOMEM;
		for (int i = 0; i < t->nr_cpus; i++) {
			if (p->slot_node[i] < 0)
				return -EINVAL;
			t->slot_node[i] = p->slot_node[i];
		}
	}
	if (p->slot_l3) {
		t->slot_l3 = ctr_malloc(sizeof(int) * t->nr_cpus);
		if (!t->slot_l3)
			return -ENOMEM;
		for (int i = 0; i < t->nr_cpus; i++) {
			if (p->slot_l3[i] < 0)
				return -EINVAL;
			t->slot_l3[i] = p->slot_l3[i];
		}
	}
	return 0;
}

/*
 * No layout is bigger than (nr_cpus + 1) x nr_nodes x nr_stats words, each
 * node's stats rounded up to a line: refuse what size_t cannot count, so no
 * algorithm's size arithmetic can wrap.
 */
static int ctr_check_size(const struct ctr_tree *t)
{
	size_t words;

	if (__builtin_mul_overflow((size_t)t->nr_nodes,
				   CTR_ROUND_UP((size_t)t->nr_stats, CTR_CACHELINE / sizeof(int64_t)), &words) ||
	    __builtin_mul_overflow(words, (size_t)t->nr_cpus + 1, &words) ||
	    words > SIZE_MAX / CTR_CACHELINE)
		return -ENOMEM;
	return 0;
}

static void ctr_free_base(struct ctr_tree *t)
{
	ctr_free(t->parent);
	ctr_free(t->depth);
	ctr_free((void *)t->ancestors);
	ctr_free(t->anc_store);
	ctr_free(t->limit);
	ctr_free(t->slot_node);
	ctr_free(t->slot_l3);
	ctr_free(t);
}

/* The instance of a, its base's counts filled in from p; NULL with errno set (EINVAL, ENOMEM). */
static struct ctr_tree *ctr_tree_alloc(const struct ctr_algo *a, const struct ctr_params *p)
{
	struct ctr_tree *t;
	int err;

	if (!a || !p || p->nr_nodes < 1 || p->nr_cpus < 0 || p->nr_stats < 0 ||
	    p->batch < 0 || p->flush_period_ms < 0) {
		errno = EINVAL;
		return NULL;
	}
	t = ctr_zalloc_aligned(a->size);
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->algo = a;
	t->nr_nodes = p->nr_nodes;
	t->nr_cpus = p->nr_cpus;
	if (!t->nr_cpus) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		t->nr_cpus = n > 0 ? (int)n : 1;
	}
	t->nr_stats = p->nr_stats ? p->nr_stats : 1;
	t->batch = p->batch;
	t->flush_period_ms = p->flush_period_ms;
	err = ctr_check_size(t);
	if (err) {
		ctr_free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

struct ctr_tree *ctr_tree_new(const struct ctr_algo *a, const struct ctr_params *p)
{
	struct ctr_tree *t = ctr_tree_alloc(a, p);
	int err;

	if (!t)
		return NULL;
	err = ctr_init_shape(t, p);
	if (err)
		goto fail;
	err = ctr_parse_options(t, p->options);
	if (err)
		goto fail;
	err = a->init(t);
	if (err)
		goto fail;
	return t;
fail:
	ctr_free_base(t);
	errno = -err;
	return NULL;
}

size_t ctr_alloc_footprint(size_t size)
{
	/* glibc: an 8-byte header, chunks in 16s, 32 the least; an aligned one can waste a line before it */
	return ctr_size_add(CTR_ROUND_UP(ctr_size_add(size, 8), 16), size >= CTR_CACHELINE ? CTR_CACHELINE : 0);
}

size_t ctr_slot_areas_footprint(const struct ctr_tree *t, size_t size)
{
	size_t total = 0;

	if (!t->slot_node)
		return ctr_size_mul((size_t)t->nr_cpus, ctr_alloc_footprint(size));
	for (int cpu = 0; cpu < t->nr_cpus && total < SIZE_MAX; cpu++)
		total = ctr_size_add(total, ctr_page_round(ctr_size_add(size, ctr_slot_colour(cpu))));
	return total;
}

int ctr_slots_one_node(const struct ctr_tree *t)
{
	for (int cpu = 1; t->slot_node && cpu < t->nr_cpus; cpu++)
		if (t->slot_node[cpu] != t->slot_node[0])
			return 0;
	return 1;
}

size_t ctr_slot_block_footprint(const struct ctr_tree *t, size_t size)
{
	if (!t->slot_node)
		return ctr_alloc_footprint(size);
	return size > SIZE_MAX / 2 ? SIZE_MAX : ctr_page_round(size);
}

/*
 * What ctr_tree_new's base holds: the instance, parent and depth, the
 * ancestor lists (depth + 1 ints a node), limits and slot maps.
 */
static size_t ctr_base_footprint(const struct ctr_tree *t, const struct ctr_params *p, size_t anc_ints)
{
	size_t n = (size_t)t->nr_nodes, b = ctr_alloc_footprint(t->algo->size);

	b = ctr_size_add(b, 2 * ctr_alloc_footprint(n * sizeof(int)));
	b = ctr_size_add(b, ctr_alloc_footprint(n * sizeof(int *)));
	b = ctr_size_add(b, ctr_alloc_footprint(ctr_size_mul(anc_ints, sizeof(int))));
	if (p->limit)
		b = ctr_size_add(b, ctr_alloc_footprint(n * sizeof(int64_t)));
	if (p->slot_node)
		b = ctr_size_add(b, ctr_alloc_footprint((size_t)t->nr_cpus * sizeof(int)));
	if (p->slot_l3)
		b = ctr_size_add(b, ctr_alloc_footprint((size_t)t->nr_cpus * sizeof(int)));
	return b;
}

/*
 * A probe: the instance with its counts, depths and options, no shape
 * copies (depth is scratch here) and no slot maps of its own (it borrows
 * p's, read only).  Then the base's bytes plus the algorithm's.
 */
int ctr_footprint(const struct ctr_algo *a, const struct ctr_params *p, size_t *bytes)
{
	struct ctr_tree *t = ctr_tree_alloc(a, p);
	size_t anc_ints = 0, words;
	int err = 0;

	if (!t)
		return -errno;
	t->depth = ctr_malloc(sizeof(int) * (size_t)t->nr_nodes);
	if (!t->depth) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < t->nr_nodes; i++) {
		int par = p->parent ? p->parent[i] : i - 1;

		if (i == 0 ? par != -1 : par < 0 || par >= i) {
			err = -EINVAL;
			goto out;
		}
		t->depth[i] = i ? t->depth[par] + 1 : 1;
		if (t->depth[i] > t->max_depth)
			t->max_depth = t->depth[i];
		anc_ints = ctr_size_add(anc_ints, (size_t)t->depth[i] + 1);
	}
	for (int i = 0; p->slot_node && i < t->nr_cpus; i++)
		if (p->slot_node[i] < 0)
			err = -EINVAL;
	for (int i = 0; p->slot_l3 && i < t->nr_cpus; i++)
		if (p->slot_l3[i] < 0)
			err = -EINVAL;
	if (!err)
		err = ctr_parse_options(t, p->options);
	if (err)
		goto out;
	t->slot_node = (int *)p->slot_node;
	t->slot_l3 = (int *)p->slot_l3;
	if (a->footprint) {
		*bytes = a->footprint(t);
	} else {
		words = ctr_size_mul((size_t)t->nr_nodes,
				     CTR_ROUND_UP((size_t)t->nr_stats, CTR_CACHELINE / sizeof(int64_t)));
		*bytes = ctr_size_mul(ctr_size_mul(words, (size_t)t->nr_cpus + 1), sizeof(int64_t));
	}
	*bytes = ctr_size_add(*bytes, ctr_base_footprint(t, p, anc_ints));
out:
	ctr_free(t->depth);
	ctr_free(t);
	return err;
}

void ctr_tree_free(struct ctr_tree *t)
{
	if (!t)
		return;
	t->algo->fini(t);
	ctr_free_base(t);
}

#define CTR_CHECK_NODE_STAT(t, node, stat) do {		\
	CTR_CHECK_RANGE("node", node, (t)->nr_nodes);	\
	CTR_CHECK_RANGE("stat", stat, (t)->nr_stats);	\
} while (0)

void ctr_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	CTR_CHECK_RANGE("cpu", cpu, t->nr_cpus);
	CTR_CHECK_NODE_STAT(t, node, stat);
	t->algo->add(t, cpu, node, stat, delta);
}

int64_t ctr_read(struct ctr_tree *t, int node, int stat)
{
	CTR_CHECK_NODE_STAT(t, node, stat);
	return t->algo->read(t, node, stat);
}

int64_t ctr_read_exact(struct ctr_tree *t, int node, int stat)
{
	CTR_CHECK_NODE_STAT(t, node, stat);
	return t->algo->read_exact(t, node, stat);
}

int ctr_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	CTR_CHECK_RANGE("cpu", cpu, t->nr_cpus);
	CTR_CHECK_RANGE("node", node, t->nr_nodes);
	return t->algo->try_charge(t, cpu, node, delta);
}

int64_t ctr_read_error_bound(const struct ctr_tree *t)
{
	return t->algo->error_bound ? t->algo->error_bound(t) : 0;
}

double ctr_read_staleness_ms(const struct ctr_tree *t, double flush_ms, char *why, size_t len)
{
	char scratch[8];

	if (!why) {
		why = scratch;
		len = sizeof(scratch);
	}
	if (ctr_read_error_bound(t) >= 0) {
		snprintf(why, len, "bounded by a count, not by time");
		return 0;
	}
	if (!t->algo->staleness_ms) {
		snprintf(why, len, "bounded by time, by how much %s does not say", t->algo->name);
		return CTR_STALE_UNKNOWN;
	}
	return t->algo->staleness_ms(t, flush_ms, why, len);
}

int ctr_emit(const struct ctr_layout_sink *s, const void *addr, size_t len, int node, int slot, int index,
	     const char *what)
{
	struct ctr_region r = {
		.addr = addr, .len = len, .node = node, .slot = slot, .index = index, .what = what,
		.level = node >= 0 ? s->t->depth[node] : -1,
	};

	return len ? s->emit(&r, s->arg) : 0;
}

int ctr_emit_nodes(const struct ctr_layout_sink *s, const void *base, size_t bytes, const int *pos, int slot,
		   const char *what)
{
	for (int n = 0; n < s->t->nr_nodes; n++) {
		size_t at = (size_t)(pos ? pos[n] : n) * bytes;
		int err = ctr_emit(s, (const char *)base + at, bytes, n, slot, -1, what);

		if (err)
			return err;
	}
	return 0;
}

int ctr_emit_instance(const struct ctr_layout_sink *s, const struct ctr_span *spans, int n)
{
	static const char ro[] = "the instance's read-mostly fields";
	const char *t = (const char *)s->t;
	size_t at = 0;
	int err;

	for (int i = 0; i < n; i++) {
		err = ctr_emit(s, t + at, spans[i].off - at, -1, -1, -1, ro);
		if (!err)
			err = ctr_emit(s, t + spans[i].off, spans[i].len, -1, -1, -1, spans[i].what);
		if (err)
			return err;
		at = spans[i].off + spans[i].len;
	}
	return ctr_emit(s, t + at, s->t->algo->size - at, -1, -1, -1, ro);
}

int ctr_emit_offsets(const struct ctr_layout_sink *s, const struct ctr_offsets *o)
{
	size_t levels = 0;
	int err;

	for (int i = 0; i < s->t->nr_nodes; i++)
		levels += (size_t)s->t->depth[i];
	err = ctr_emit(s, o->of, (size_t)s->t->nr_nodes * sizeof(*o->of), -1, -1, -1, "the refs' offset list pointers");
	return err ? err : ctr_emit(s, o->store, (levels ? levels : 1) * sizeof(int), -1, -1, -1,
				    "the refs' offset lists");
}

/* The base's arrays (ctr_init_shape), then the algorithm's own. */
int ctr_layout(struct ctr_tree *t, ctr_layout_fn emit, void *arg)
{
	struct ctr_layout_sink s = { t, emit, arg };
	size_t n, anc = 0;
	int err;

	if (!t || !emit)
		return -EINVAL;
	if (!t->algo->layout)
		return -EOPNOTSUPP;
	n = (size_t)t->nr_nodes;
	for (int i = 0; i < t->nr_nodes; i++)
		anc += (size_t)t->depth[i] + 1;
	err = ctr_emit(&s, t->parent, n * sizeof(int), -1, -1, -1, "the shape: parent of each node");
	if (!err)
		err = ctr_emit(&s, t->depth, n * sizeof(int), -1, -1, -1, "the shape: depth of each node");
	if (!err)
		err = ctr_emit(&s, t->ancestors, n * sizeof(*t->ancestors), -1, -1, -1,
			       "the shape: ancestor list pointers");
	if (!err)
		err = ctr_emit(&s, t->anc_store, anc * sizeof(int), -1, -1, -1, "the shape: ancestor lists");
	if (!err && t->limit)
		err = ctr_emit(&s, t->limit, n * sizeof(int64_t), -1, -1, -1, "the limits");
	if (!err && t->slot_node)
		err = ctr_emit(&s, t->slot_node, (size_t)t->nr_cpus * sizeof(int), -1, -1, -1, "the slots' NUMA nodes");
	if (!err && t->slot_l3)
		err = ctr_emit(&s, t->slot_l3, (size_t)t->nr_cpus * sizeof(int), -1, -1, -1, "the slots' L3 groups");
	return err ? err : t->algo->layout(t, &s);
}
