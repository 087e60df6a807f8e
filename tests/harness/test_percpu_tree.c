/* SPDX-License-Identifier: MIT */
/*
 * percpu_tree: its error bound is reached, not only respected (the
 * adversary of percpu_tree.h, at the node and every ancestor, both item
 * orders, several CPU counts and batches), the approximate read is never
 * above the exact value at rest, and with order=topology no level-1 item
 * holds slots of two L3s on the synthetic 2-package, 24-L3, 384-PU layout,
 * where order=strided (the kernel's cpu & (items - 1)) mixes six.  The items
 * each CPU uses under both orders are printed.
 */
#include <errno.h>

#include "../testutil.h"
#include "../../counters/percpu_tree.h"
#include "../../topology/topo.h"

#define LAYOUT "pack:2 [numa] l3:12 core:8 pu:2"

static struct ctr_percpu_tree *ptree(struct ctr_tree *t)
{
	return ctr_container_of(t, struct ctr_percpu_tree, base);
}

/* The bound's adversary at `node` (see percpu_tree.h), then check every level of its path. */
static void reach_bound(int nr_cpus, int64_t batch, const char *options, const int *slot_l3)
{
	const int depth = 4;	/* chain: node 3 is the leaf */
	struct ctr_tree *t = ctr_tree_new(ctr_algo_find("percpu_tree"), &(struct ctr_params){
		.nr_nodes = depth, .nr_cpus = nr_cpus, .batch = batch, .options = options,
		.slot_l3 = slot_l3 });
	struct ctr_percpu_tree *p;
	int64_t bound, b0;

	assert_non_null(t);
	p = ptree(t);
	bound = ctr_read_error_bound(t);
	b0 = p->batch;
	for (int j = p->nr_levels; j >= 1; j--) {
		int64_t d = ((int64_t)1 << p->level_shift[j]) - ((int64_t)1 << p->level_shift[j - 1]);

		for (int x = 0; x < p->level_items[j]; x++)
			for (int c = 0; c < nr_cpus; c++)
				if (ctr_percpu_tree_item_of(t, c, j) == x) {
					ctr_add(t, c, depth - 1, 0, d);
					break;
				}
	}
	for (int c = 0; c < nr_cpus; c++)
		ctr_add(t, c, depth - 1, 0, b0 - 1);
	for (int n = 0; n < depth; n++) {
		int64_t exact = ctr_read_exact(t, n, 0), got = ctr_read(t, n, 0);

		if (exact - got != bound)
			fail_msg("cpus %d batch %lld %s: node %d read %lld exact %lld: off by %lld, bound %lld"
				 " not reached", nr_cpus, (long long)b0, options, n, (long long)got,
				 (long long)exact, (long long)(exact - got), (long long)bound);
	}
	/* One more unit anywhere carries: the read moves and stays within the bound. */
	ctr_add(t, 0, depth - 1, 0, 1);
	if (bound > 0)
		assert_true(ctr_read_exact(t, 0, 0) - ctr_read(t, 0, 0) < bound);
	assert_true(ctr_read_exact(t, 0, 0) - ctr_read(t, 0, 0) >= 0);
	printf("# cpus %3d batch %4lld %-14s: %d item levels, %d items, bound %lld reached at all %d levels\n",
	       nr_cpus, (long long)b0, options, p->nr_levels, p->nr_items, (long long)bound, depth);
	ctr_tree_free(t);
}

static void test_bound_reached(void **state)
{
	static const int cpus[] = { 1, 2, 3, 5, 8, 16, 33, 64, 384 };
	static const int64_t batches[] = { 0, 2, 64 };
	int l3[384];

	(void)state;
	for (int i = 0; i < 384; i++)
		l3[i] = i / 12;	/* 12 slots per L3: not a multiple of any arity, partial items */
	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		for (size_t b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
			reach_bound(cpus[i], batches[b], "order=strided", NULL);
			reach_bound(cpus[i], batches[b], "order=topology", NULL);
			reach_bound(cpus[i], batches[b], "order=topology", l3);
		}
	}
}

/* Random deltas, negative and huge ones too: at rest the read is in [exact - bound, exact]. */
static void test_read_below_exact(void **state)
{
	uint64_t rng = tu_seed("test_percpu_tree");

	(void)state;
	for (int round = 0; round < 20; round++) {
		int nr_cpus = tu_range(&rng, 1, 40), n = tu_range(&rng, 1, 30);
		int *parent = tu_random_tree(&rng, n, 8, NULL);
		struct ctr_tree *t = ctr_tree_new(ctr_algo_find("percpu_tree"), &(struct ctr_params){
			.nr_nodes = n, .parent = parent, .nr_cpus = nr_cpus,
			.options = round & 1 ? "order=topology" : "order=strided" });
		int64_t bound = ctr_read_error_bound(t);

		assert_non_null(t);
		for (int op = 0; op < 5000; op++) {
			int64_t d = tu_range(&rng, -300, 300);

			if (op % 101 == 0)
				d *= (int64_t)1 << 35;
			ctr_add(t, tu_range(&rng, 0, nr_cpus - 1), tu_range(&rng, 0, n - 1), 0, d);
			if (op % 50 == 0) {
				for (int m = 0; m < n; m++) {
					int64_t off = ctr_read_exact(t, m, 0) - ctr_read(t, m, 0);

					if (off < 0 || off > bound)
						fail_msg("node %d: exact - read = %lld, want in [0, %lld]", m,
							 (long long)off, (long long)bound);
				}
			}
		}
		ctr_tree_free(t);
		free(parent);
	}
}

/* Options and batches the kernel refuses. */
static void test_bad_options(void **state)
{
	static const char *const bad[] = { "order=", "order=numa", "read=exact", "read=approx,order=x" };
	const struct ctr_algo *a = ctr_algo_find("percpu_tree");

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		assert_null(ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = 2, .nr_cpus = 4, .options = bad[i] }));
		assert_int_equal(errno, EINVAL);
	}
	for (int64_t b = 1; b < 8; b++) {
		struct ctr_tree *t = ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = 1, .nr_cpus = 4, .batch = b });

		assert_true((t != NULL) == (b == 2 || b == 4));
		ctr_tree_free(t);
	}
	{	/* read=precise: the bound is 0 and the read exact */
		struct ctr_tree *t = ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = 2, .nr_cpus = 8,
									    .options = "read=precise" });

		assert_non_null(t);
		assert_int_equal(ctr_read_error_bound(t), 0);
		ctr_add(t, 3, 1, 0, 17);
		assert_int_equal(ctr_read(t, 0, 0), 17);
		ctr_tree_free(t);
	}
}

/* Distinct L3s among the slots of level-1 item x. */
static int item_l3s(struct ctr_tree *t, const int *slot_l3, int x)
{
	int seen[64], n = 0;

	for (int c = 0; c < t->nr_cpus; c++) {
		int dup = 0;

		if (ctr_percpu_tree_item_of(t, c, 1) != x)
			continue;
		for (int k = 0; k < n; k++)
			dup |= seen[k] == slot_l3[c];
		if (!dup && n < 64)
			seen[n++] = slot_l3[c];
	}
	return n;
}

static void print_items(struct ctr_tree *t, const struct topo *topo, const char *order)
{
	struct ctr_percpu_tree *p = ptree(t);
	int *cpus = malloc(sizeof(int) * t->nr_cpus);
	char buf[256];

	assert_non_null(cpus);
	printf("# %s: %d level-1 items of up to %d CPUs (then %d level(s) above, %d items in all)\n", order,
	       p->level_items[1], 1 << (p->level_shift[1] - p->level_shift[0]), p->nr_levels - 1, p->nr_items);
	for (int x = 0; x < p->level_items[1]; x++) {
		int n = 0;

		for (int c = 0; c < t->nr_cpus; c++)
			if (ctr_percpu_tree_item_of(t, c, 1) == x)
				cpus[n++] = c;
		topo_format_list(cpus, n, buf, sizeof(buf));
		printf("#   item %2d: CPUs %-28s L3s %d\n", x, buf, item_l3s(t, t->slot_l3, x));
	}
	free(cpus);
	(void)topo;
}

static void test_topology_order(void **state)
{
	char err[256];
	struct topo *topo = topo_load(LAYOUT, err, sizeof(err));
	int n, *slot_l3;
	struct ctr_tree *strided, *topology;
	int worst_strided = 0, worst_topology = 0;

	(void)state;
	assert_non_null(topo);
	n = topo_nr_pus(topo);
	assert_int_equal(n, 384);
	slot_l3 = malloc(sizeof(int) * n);
	assert_non_null(slot_l3);
	/* slot i on PU i: the harness's map (bench_setup_threads) of a placement over every PU */
	for (int i = 0; i < n; i++) {
		struct topo_pu_info info;

		assert_int_equal(topo_pu_info(topo, i, &info), 0);
		slot_l3[i] = info.l3;
	}
	strided = ctr_tree_new(ctr_algo_find("percpu_tree"), &(struct ctr_params){
		.nr_nodes = 1, .nr_cpus = n, .slot_l3 = slot_l3, .options = "order=strided" });
	topology = ctr_tree_new(ctr_algo_find("percpu_tree"), &(struct ctr_params){
		.nr_nodes = 1, .nr_cpus = n, .slot_l3 = slot_l3, .options = "order=topology" });
	assert_non_null(strided);
	assert_non_null(topology);
	for (int x = 0; x < ptree(strided)->level_items[1]; x++) {
		int k = item_l3s(strided, slot_l3, x);

		worst_strided = k > worst_strided ? k : worst_strided;
	}
	for (int x = 0; x < ptree(topology)->level_items[1]; x++) {
		int k = item_l3s(topology, slot_l3, x);

		assert_int_equal(k, 1);	/* the point of order=topology */
		worst_topology = k > worst_topology ? k : worst_topology;
	}
	/* the kernel's order, on Linux's numbering: every item spans 6 L3s on both packages */
	assert_int_equal(worst_strided, 6);
	printf("# %s: item of each CPU under both orders (CPU numbers = OS indexes = slots)\n", LAYOUT);
	print_items(strided, topo, "order=strided");
	print_items(topology, topo, "order=topology");
	printf("# L3s per level-1 item, worst: strided %d, topology %d\n", worst_strided, worst_topology);
	ctr_tree_free(strided);
	ctr_tree_free(topology);
	free(slot_l3);
	topo_free(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound_reached),
		cmocka_unit_test(test_read_below_exact),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_topology_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
