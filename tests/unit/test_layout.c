/* SPDX-License-Identifier: MIT */
/*
 * ctr_layout(), the map `ctrbench run --c2c` names sampled lines with,
 * against what the tree really allocated, for every algorithm, random
 * shapes, slot counts and stats, with and without a slot-to-node map:
 *  - every allocation the tree holds (each one libctr made, listed by
 *    ctr_debug_allocs) is covered by regions byte for byte, and every
 *    region lies inside one of them, no two overlapping;
 *  - each region's node, level and slot are in range and its level is its
 *    node's depth;
 *  - looked up by address, each region's first, middle and last bytes give
 *    that region, and addresses outside every allocation (the stack, a fresh
 *    malloc) give nothing;
 *  - attribution: an update from slot s at node n changes only bytes of
 *    regions that are s's or shared, and n's, an ancestor's or no node's,
 *    and some byte of n's, an ancestor's or s's (atomic_tree_stock's
 *    update may only consume the slot's stock).
 */
#include <errno.h>

#include "../testutil.h"

struct ly_alloc {
	char *p;		/* what the allocator returned */
	size_t size;		/* bytes asked for */
	unsigned char *copy;	/* its bytes before an update (attribution check) */
};

struct ly_set {
	struct ly_alloc *a;	/* live allocations */
	int n, cap;		/* used, allocated */
};

static struct ly_set ly_live;

/* libctr's live allocations now (ctr_debug_allocs), copied into ly_live. */
static void ly_snapshot(void)
{
	const struct ctr_alloc_rec *recs;
	int n = ctr_debug_allocs(&recs);

	if (n > ly_live.cap) {
		ly_live.cap = n;
		ly_live.a = realloc(ly_live.a, sizeof(*ly_live.a) * (size_t)n);
		assert_non_null(ly_live.a);
	}
	for (int i = 0; i < n; i++)
		ly_live.a[i] = (struct ly_alloc){ recs[i].p, recs[i].size, NULL };
	ly_live.n = n;
}

struct ly_regions {
	struct ctr_region *r;	/* the map */
	int n, cap;		/* used, allocated */
};

static int ly_collect(const struct ctr_region *r, void *arg)
{
	struct ly_regions *m = arg;

	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 1024;
		m->r = realloc(m->r, sizeof(*m->r) * (size_t)m->cap);
		assert_non_null(m->r);
	}
	m->r[m->n++] = *r;
	return 0;
}

static int ly_by_addr(const void *a, const void *b)
{
	const char *x = ((const struct ctr_region *)a)->addr, *y = ((const struct ctr_region *)b)->addr;

	return x < y ? -1 : x > y;
}

static int ly_alloc_by_addr(const void *a, const void *b)
{
	const char *x = ((const struct ly_alloc *)a)->p, *y = ((const struct ly_alloc *)b)->p;

	return x < y ? -1 : x > y;
}

/* The region holding addr in the sorted map, or NULL. */
static const struct ctr_region *ly_lookup(const struct ly_regions *m, const void *addr)
{
	const char *p = addr;
	int lo = 0, hi = m->n - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		const char *start = m->r[mid].addr;

		if (p < start)
			hi = mid - 1;
		else if (p >= start + m->r[mid].len)
			lo = mid + 1;
		else
			return &m->r[mid];
	}
	return NULL;
}

static int ly_is_ancestor(const struct ctr_tree *t, int anc, int node)
{
	ctr_for_each_ancestor(t, n, node)
		if (n == anc)
			return 1;
	return 0;
}

/* An update of (cpu, node) from cpu: what it changed is cpu's or shared, and node's line's. */
static void ly_attribution(struct ctr_tree *t, const struct ly_regions *m, int cpu, int node, const char *name)
{
	int own = 0;

	for (int i = 0; i < ly_live.n; i++) {
		ly_live.a[i].copy = malloc(ly_live.a[i].size ? ly_live.a[i].size : 1);
		assert_non_null(ly_live.a[i].copy);
		memcpy(ly_live.a[i].copy, ly_live.a[i].p, ly_live.a[i].size);
	}
	ctr_add(t, cpu, node, 0, 1);
	for (int i = 0; i < ly_live.n; i++) {
		const struct ly_alloc *a = &ly_live.a[i];

		for (size_t b = 0; b < a->size; b++) {
			const struct ctr_region *r;

			if (a->copy[b] == (unsigned char)a->p[b])
				continue;
			r = ly_lookup(m, a->p + b);
			if (!r)
				fail_msg("%s: add(cpu %d, node %d) changed %p, in no region", name, cpu, node, a->p + b);
			if (r->slot >= 0 && r->slot != cpu)
				fail_msg("%s: add(cpu %d, node %d) changed slot %d's '%s'", name, cpu, node, r->slot, r->what);
			if (r->node >= 0 && !ly_is_ancestor(t, r->node, node))
				fail_msg("%s: add(cpu %d, node %d) changed node %d's '%s', not an ancestor", name, cpu, node,
					 r->node, r->what);
			own += r->node >= 0 || r->slot == cpu;
		}
	}
	if (!own)
		fail_msg("%s: add(cpu %d, node %d) changed no region of the node, its ancestors or the slot", name, cpu,
			 node);
	ctr_add(t, cpu, node, 0, -1);
	for (int i = 0; i < ly_live.n; i++) {
		free(ly_live.a[i].copy);
		ly_live.a[i].copy = NULL;
	}
}

struct ly_case {
	int nodes;		/* a random tree of this many nodes, depth <= 10 */
	int cpus;		/* slots */
	int stats;		/* counters per node */
	int numa;		/* 1: every slot mapped to node 0 (mmap'd areas), 2: and L3 groups of 4 */
	const char *options;	/* where the algorithm takes them */
};

static void ly_check(const struct ctr_algo *a, const struct ly_case *c, uint64_t *seed)
{
	const char *name = ctr_algo_name(a);
	int *parent = tu_random_tree(seed, c->nodes, 10, NULL);
	int *slot_node = calloc((size_t)c->cpus, sizeof(int)), *slot_l3 = malloc(sizeof(int) * (size_t)c->cpus);
	struct ctr_params p = { .nr_nodes = c->nodes, .parent = parent, .nr_cpus = c->cpus, .nr_stats = c->stats,
				.options = c->options, .flush_period_ms = 3600 * 1000 };
	struct ly_regions m = { 0 };
	struct ctr_tree *t;
	int stack_word = 0, ai = 0, r;
	char *fresh;

	assert_non_null(slot_node);
	assert_non_null(slot_l3);
	for (int i = 0; i < c->cpus; i++)
		slot_l3[i] = i / 4;
	if (c->numa)
		p.slot_node = slot_node;
	if (c->numa > 1)
		p.slot_l3 = slot_l3;
	ctr_debug_track_allocs(1);
	t = ctr_tree_new(a, &p);
	if (!t)
		fail_msg("%s: ctr_tree_new: %s", name, strerror(errno));
	/* a few updates and reads first: what they may allocate or link is part of what is mapped */
	for (int i = 0; i < 4 * c->cpus; i++)
		ctr_add(t, i % c->cpus, tu_range(seed, 0, c->nodes - 1), i % c->stats, 1);
	for (int i = 0; i < c->nodes; i++)
		(void)ctr_read(t, i, 0);
	ly_snapshot();
	r = ctr_layout(t, ly_collect, &m);
	if (r)
		fail_msg("%s: ctr_layout: %s", name, strerror(-r));
	qsort(m.r, (size_t)m.n, sizeof(*m.r), ly_by_addr);
	qsort(ly_live.a, (size_t)ly_live.n, sizeof(*ly_live.a), ly_alloc_by_addr);
	printf("# %s: %d nodes x %d stats, %d slots%s%s%s: %d allocations, %d regions\n", name, c->nodes, c->stats,
	       c->cpus, c->numa ? ", slot_node" : "", c->options ? ", " : "", c->options ? c->options : "",
	       ly_live.n, m.n);

	/* every region inside one allocation, none overlapping, each field in range */
	for (int i = 0; i < m.n; i++) {
		const struct ctr_region *x = &m.r[i];
		const char *start = x->addr;

		assert_true(x->len >= 1);
		if (!x->what || !*x->what)
			fail_msg("%s: region %p has no what", name, x->addr);
		if (i && (const char *)m.r[i - 1].addr + m.r[i - 1].len > start)
			fail_msg("%s: '%s' at %p overlaps '%s' before it", name, x->what, x->addr, m.r[i - 1].what);
		while (ai < ly_live.n && ly_live.a[ai].p + ly_live.a[ai].size <= start)
			ai++;
		if (ai == ly_live.n || start < ly_live.a[ai].p || start + x->len > ly_live.a[ai].p + ly_live.a[ai].size)
			fail_msg("%s: '%s' at %p, %zu bytes, is in no allocation", name, x->what, x->addr, x->len);
		if (x->node < -1 || x->node >= t->nr_nodes || x->slot < -1 || x->slot >= t->nr_cpus || x->index < -1)
			fail_msg("%s: '%s': node %d, slot %d, index %d out of range", name, x->what, x->node, x->slot,
				 x->index);
		assert_int_equal(x->level, x->node >= 0 ? t->depth[x->node] : -1);
	}
	/* every allocation covered byte for byte: the regions in it, apart, add up to its size */
	for (int i = 0, ri = 0; i < ly_live.n; i++) {
		const struct ly_alloc *al = &ly_live.a[i];
		size_t covered = 0;

		while (ri < m.n && (const char *)m.r[ri].addr < al->p + al->size) {
			if ((const char *)m.r[ri].addr >= al->p)
				covered += m.r[ri].len;
			ri++;
		}
		if (covered != al->size)
			fail_msg("%s: allocation %p of %zu bytes has %zu in regions", name, al->p, al->size, covered);
	}
	/* looked up, each region's bytes give it; outside addresses nothing */
	for (int i = 0; i < m.n; i++) {
		const char *start = m.r[i].addr;

		assert_ptr_equal(ly_lookup(&m, start), &m.r[i]);
		assert_ptr_equal(ly_lookup(&m, start + m.r[i].len / 2), &m.r[i]);
		assert_ptr_equal(ly_lookup(&m, start + m.r[i].len - 1), &m.r[i]);
	}
	fresh = malloc(64);
	assert_non_null(fresh);
	assert_null(ly_lookup(&m, &stack_word));
	assert_null(ly_lookup(&m, fresh));
	assert_null(ly_lookup(&m, &m));
	free(fresh);
	/* attribution, from the first and the last slot, at a random node and the deepest */
	ly_attribution(t, &m, 0, tu_range(seed, 0, c->nodes - 1), name);
	ly_attribution(t, &m, c->cpus - 1, c->nodes - 1, name);

	ctr_tree_free(t);
	ly_snapshot();
	if (ly_live.n)
		fail_msg("%s: %d allocations left after ctr_tree_free", name, ly_live.n);
	ctr_debug_track_allocs(0);
	free(m.r);
	free(parent);
	free(slot_node);
	free(slot_l3);
}

static void test_layout(void **state)
{
	const struct ctr_algo *a = *state;
	const char *name = ctr_algo_name(a);
	static const struct ly_case cases[] = {
		{ 1, 1, 1, 0, NULL }, { 8, 2, 1, 0, NULL }, { 60, 7, 3, 0, NULL }, { 200, 16, 2, 1, NULL },
		{ 30, 9, 1, 2, NULL }, { 3, 64, 1, 0, NULL },
	};
	uint64_t seed = tu_seed(name);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ly_check(a, &cases[i], &seed);
	/* options that change what is allocated */
	if (!strcmp(name, "rstat_llist"))
		ly_check(a, &(struct ly_case){ 40, 6, 2, 0, "subsys=4,lock=per-tree" }, &seed);
	if (!strcmp(name, "rstat_force"))
		ly_check(a, &(struct ly_case){ 40, 6, 2, 0, "update=memcg" }, &seed);
	if (!strcmp(name, "rstat_threshold"))
		ly_check(a, &(struct ly_case){ 40, 6, 2, 0, "threshold=global" }, &seed);
	if (!strcmp(name, "percpu_tree"))
		ly_check(a, &(struct ly_case){ 40, 12, 1, 2, "order=topology" }, &seed);
}

/* No tree, no callback: -EINVAL, not a crash. */
static void test_layout_args(void **state)
{
	struct ctr_tree *t = ctr_tree_new(ctr_algo_at(0), &(struct ctr_params){ .nr_nodes = 2 });

	(void)state;
	assert_non_null(t);
	assert_int_equal(ctr_layout(NULL, ly_collect, NULL), -EINVAL);
	assert_int_equal(ctr_layout(t, NULL, NULL), -EINVAL);
	ctr_tree_free(t);
}

int main(void)
{
	const struct CMUnitTest args[] = { cmocka_unit_test(test_layout_args) };

	if (cmocka_run_group_tests_name("layout_args", args, NULL, NULL))
		return 1;
	return tu_run_per_algo("layout", test_layout);
}
