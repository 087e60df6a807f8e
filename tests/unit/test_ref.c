/* SPDX-License-Identifier: MIT */
/*
 * Prepared updates (ctr_<name>_ref, ctr_<name>_ref_add: CTR_REF_WRAP in
 * counters/ctr_internal.h) update exactly what ctr_<name>_add does: the
 * harness's timed update loops go through them.  For every algorithm of
 * counters/list.h, on random trees: refs for random (slot, node, stat)
 * triples, each used for many random deltas (negative and large ones
 * included) interleaved with plain adds and with reads that flush, then every
 * node and stat read exactly against a reference model.  Options that take
 * rstat's and rstat_llist's other update paths are run as well.
 */
#include "../testutil.h"

#include "../../counters/list.h"

#define TREES 12
#define REFS 16
#define OPS 6000

/* What one algorithm's refs look like to the test: made and used through its inline functions. */
struct ref_algo {
	const char *name;
	const char *options;	/* NULL: the defaults */
	void (*run)(struct ctr_tree *t, uint64_t *rng, int n, int nr_cpus, int nr_stats, int64_t *direct);
};

/*
 * REFS refs, each for a random (slot, node, stat); each op updates through a
 * random one of them, or (one op in 8) through ctr_add at a random place, or
 * (one in 64) reads a random node, so a read's flush can unlink what a ref
 * points at and the next ref update must put it back.
 */
#define REF_RUN(name)										\
static void ref_run_##name(struct ctr_tree *t, uint64_t *rng, int n, int nr_cpus, int nr_stats,	\
			   int64_t *direct)							\
{												\
	__typeof__(ctr_##name##_ref(t, 0, 0, 0)) refs[REFS];					\
	int node[REFS], stat[REFS];								\
												\
	for (int i = 0; i < REFS; i++) {							\
		node[i] = tu_range(rng, 0, n - 1);						\
		stat[i] = tu_range(rng, 0, nr_stats - 1);					\
		refs[i] = ctr_##name##_ref(t, tu_range(rng, 0, nr_cpus - 1), node[i], stat[i]);	\
	}											\
	for (int op = 0; op < OPS; op++) {							\
		int64_t delta = tu_range(rng, -1000, 1000);					\
		int k = tu_range(rng, 0, REFS - 1);						\
												\
		if (op % 997 == 0)								\
			delta *= (int64_t)1 << 33;						\
		if (op % 64 == 63) {								\
			(void)ctr_read(t, tu_range(rng, 0, n - 1), tu_range(rng, 0, nr_stats - 1)); \
		} else if (op % 8 == 7) {							\
			int nd = tu_range(rng, 0, n - 1), s = tu_range(rng, 0, nr_stats - 1);	\
												\
			ctr_add(t, tu_range(rng, 0, nr_cpus - 1), nd, s, delta);		\
			direct[(size_t)nd * nr_stats + s] += delta;				\
		} else {									\
			ctr_##name##_ref_add(&refs[k], delta);					\
			direct[(size_t)node[k] * nr_stats + stat[k]] += delta;			\
		}										\
	}											\
}
CTR_ALGO_LIST(REF_RUN)

#define REF_ENTRY(name) { #name, NULL, ref_run_##name },
static const struct ref_algo ref_algos[] = {
	CTR_ALGO_LIST(REF_ENTRY)
	/* the other update paths of the refs that have their own */
	{ "rstat_force", "fence=update", ref_run_rstat_force },
	{ "rstat_force", "fence=none", ref_run_rstat_force },
	{ "rstat_force", "update=memcg", ref_run_rstat_force },
	{ "rstat_force", "update=memcg,threshold=global", ref_run_rstat_force },
	{ "rstat_threshold", "threshold=global", ref_run_rstat_threshold },
	{ "rstat_llist", "fence=none", ref_run_rstat_llist },
	{ "rstat_llist", "subsys=3", ref_run_rstat_llist },
};

static void test_ref_updates_what_add_does(void **state)
{
	uint64_t seed = tu_seed("test_ref");
	int runs = 0;

	(void)state;
	for (size_t a = 0; a < sizeof(ref_algos) / sizeof(ref_algos[0]); a++) {
		const struct ref_algo *ra = &ref_algos[a];
		const struct ctr_algo *algo = ctr_algo_find(ra->name);
		uint64_t rng = seed + a;

		assert_non_null(algo);
		for (int tree = 0; tree < TREES; tree++) {
			int n = tu_range(&rng, 1, tree % 3 == 0 ? 200 : 30);
			int nr_stats = tu_range(&rng, 1, 4), nr_cpus = tu_range(&rng, 1, 12);
			int *parent = tu_random_tree(&rng, n, 32, NULL);
			int64_t *direct = calloc((size_t)n * nr_stats, sizeof(int64_t));
			int64_t *want = calloc((size_t)n * nr_stats, sizeof(int64_t));
			struct ctr_tree *t = ctr_tree_new(algo, &(struct ctr_params){
				.nr_nodes = n, .parent = parent, .nr_cpus = nr_cpus, .nr_stats = nr_stats,
				.options = ra->options });

			if (!t)
				fail_msg("%s options %s: ctr_tree_new failed", ra->name,
					 ra->options ? ra->options : "(none)");
			assert_non_null(direct);
			assert_non_null(want);
			ra->run(t, &rng, n, nr_cpus, nr_stats, direct);
			tu_hier_sums(parent, n, nr_stats, direct, want);
			for (int i = 0; i < n; i++)
				for (int s = 0; s < nr_stats; s++) {
					int64_t exact = ctr_read_exact(t, i, s), w = want[(size_t)i * nr_stats + s];

					if (exact != w)
						fail_msg("%s options %s: node %d stat %d: read_exact %lld, want %lld",
							 ra->name, ra->options ? ra->options : "(none)", i, s,
							 (long long)exact, (long long)w);
				}
			ctr_tree_free(t);
			free(parent);
			free(direct);
			free(want);
			runs++;
		}
	}
	printf("# %d trees, %d algorithm and option sets\n", runs,
	       (int)(sizeof(ref_algos) / sizeof(ref_algos[0])));
}

/* The check can fail: a ref update the model is not told of shows up as a difference. */
static void test_ref_update_is_seen(void **state)
{
	struct ctr_tree *t = ctr_tree_new(&ctr_algo_rstat_force,
					  &(struct ctr_params){ .nr_nodes = 3, .nr_cpus = 2 });
	struct ctr_rstat_ref h;

	(void)state;
	assert_non_null(t);
	h = ctr_rstat_force_ref(t, 1, 2, 0);
	ctr_rstat_force_ref_add(&h, 5);
	ctr_rstat_force_ref_add(&h, -7);
	/* chain: node 2's ancestors are 1 and 0 */
	for (int nd = 0; nd < 3; nd++)
		assert_int_equal(ctr_read_exact(t, nd, 0), -2);
	/* a read flushes (the first flush of a tree prunes: it unlinks); the ref's next update is seen */
	assert_int_equal(ctr_read(t, 0, 0), -2);
	ctr_rstat_force_ref_add(&h, 4);
	assert_int_equal(ctr_read(t, 0, 0), 2);
	ctr_tree_free(t);
}

/*
 * Every slot count from 1 to 20 (a read has forms by count: percpu_hier's
 * straight line at 8, its odd counts), every algorithm: each slot adds a
 * distinct delta at the leaf of a chain:3, and the exact read of each level
 * is their sum, so a read that skips or doubles a slot fails.
 */
static void test_ref_every_slot_count(void **state)
{
	(void)state;
	for (int a = 0; a < ctr_algo_count(); a++) {
		const struct ctr_algo *algo = ctr_algo_at(a);

		for (int nr = 1; nr <= 20; nr++) {
			struct ctr_tree *t = ctr_tree_new(algo, &(struct ctr_params){ .nr_nodes = 3, .nr_cpus = nr });
			int64_t want = 0;

			assert_non_null(t);
			for (int cpu = 0; cpu < nr; cpu++) {
				int64_t delta = (int64_t)(cpu + 1) * 1000003;

				ctr_add(t, cpu, 2, 0, delta);
				want += delta;
			}
			for (int nd = 0; nd < 3; nd++)
				if (ctr_read_exact(t, nd, 0) != want)
					fail_msg("%s, %d slots: node %d reads %lld, want %lld", ctr_algo_name(algo), nr, nd,
						 (long long)ctr_read_exact(t, nd, 0), (long long)want);
			ctr_tree_free(t);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ref_every_slot_count),
		cmocka_unit_test(test_ref_update_is_seen),
		cmocka_unit_test(test_ref_updates_what_add_does),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
