/* SPDX-License-Identifier: MIT */
/*
 * The stated read-error bounds of the batched algorithms, pushed to the
 * edge.  On random trees, after a random history, every CPU's pending delta
 * of every node is driven to the largest value the algorithm lets it keep
 * without flushing (+batch or -batch for batched_percpu, +-(batch - 1) for
 * percpu_counter), and then at every node
 *   - ctr_read_exact equals the reference model (nothing lost),
 *   - |ctr_read - exact| <= ctr_read_error_bound, and
 *   - the observed error is what the proof in the header says it must be:
 *     batch x nr_cpus x |subtree| for batched_percpu, so exactly the bound at
 *     the root, and nr_cpus x (batch - 1), the bound, at every node for
 *     percpu_counter.  So the bound is attained: the test would fail if a
 *     header understated it, and shows that it cannot be made smaller.
 * Then every algorithm with a count bound gets random deltas around its
 * batch, checked against its bound and the model.  Single-threaded (run
 * under ASan+UBSan by make test).
 */
#include "../testutil.h"
#include "../../counters/batched_percpu.h"
#include "../../counters/percpu_counter.h"
#include "../../counters/preorder.h"

#define TREES 24

struct model {
	const int *parent;	/* shape */
	int n, nr_stats;	/* nodes, stats */
	int64_t *direct;	/* [node * nr_stats + stat] deltas added at the node itself */
	int64_t *want;		/* hierarchical sums, scratch */
};

static void m_add(struct ctr_tree *t, struct model *m, int cpu, int node, int stat, int64_t delta)
{
	ctr_add(t, cpu, node, stat, delta);
	m->direct[(size_t)node * m->nr_stats + stat] += delta;
}

/* Checks exactness and the bound everywhere; returns the largest |read - exact| seen. */
static int64_t m_check(struct ctr_tree *t, struct model *m, const char *name)
{
	int64_t bound = ctr_read_error_bound(t), worst = 0;

	tu_hier_sums(m->parent, m->n, m->nr_stats, m->direct, m->want);
	for (int i = 0; i < m->n; i++) {
		for (int s = 0; s < m->nr_stats; s++) {
			int64_t w = m->want[(size_t)i * m->nr_stats + s];
			int64_t r = ctr_read(t, i, s), e = ctr_read_exact(t, i, s);
			int64_t err = r > e ? r - e : e - r;

			if (e != w)
				fail_msg("%s: node %d stat %d: exact %lld, want %lld", name, i, s,
					 (long long)e, (long long)w);
			if (bound >= 0 && err > bound)
				fail_msg("%s: node %d stat %d: read %lld, exact %lld: off by %lld > bound %lld",
					 name, i, s, (long long)r, (long long)e, (long long)err, (long long)bound);
			if (err > worst)
				worst = err;
		}
	}
	return worst;
}

static void random_history(struct ctr_tree *t, struct model *m, uint64_t *rng, int64_t batch, int ops)
{
	for (int op = 0; op < ops; op++) {
		int64_t d = tu_range(rng, -(int)(3 * batch), (int)(3 * batch));

		if (op % 101 == 0)
			d *= 1000003;	/* now and then far past the batch */
		m_add(t, m, tu_range(rng, 0, t->nr_cpus - 1), tu_range(rng, 0, m->n - 1),
		      tu_range(rng, 0, m->nr_stats - 1), d);
	}
}

/* Parameters of one random tree; batch 0 is the algorithm's default. */
static struct ctr_tree *new_tree(const char *algo, uint64_t *rng, struct model *m, int tree)
{
	static const int64_t batches[] = { 0, 1, 2, 7, 100, 0 };
	int n = tu_range(rng, 1, tree % 3 ? 40 : 120);
	struct ctr_tree *t;

	m->n = n;
	m->nr_stats = tu_range(rng, 1, 3);
	m->parent = tu_random_tree(rng, n, 32, NULL);
	m->direct = calloc((size_t)n * m->nr_stats, sizeof(int64_t));
	m->want = calloc((size_t)n * m->nr_stats, sizeof(int64_t));
	t = ctr_tree_new(ctr_algo_find(algo), &(struct ctr_params){
		.nr_nodes = n, .parent = m->parent, .nr_cpus = tu_range(rng, 1, 16),
		.nr_stats = m->nr_stats, .batch = batches[tree % 6] });
	assert_non_null(t);
	return t;
}

static void model_free(struct model *m)
{
	free((void *)m->parent);
	free(m->direct);
	free(m->want);
}

/*
 * batched_percpu: a delta of (cpu, node) flushes only past +-batch, so add
 * +H then -H (|H| > 2 x batch: both flush) to zero it, then +-batch, the
 * most it keeps.  Every delta is independent (no ancestor walk), so every
 * node's error is then batch x nr_cpus x |subtree|.
 */
static void test_batched_percpu_edge(void **state)
{
	uint64_t rng = tu_seed("test_batched: batched_percpu");
	int64_t root_max = 0;

	(void)state;
	for (int tree = 0; tree < TREES; tree++) {
		struct model m;
		struct ctr_tree *t = new_tree("batched_percpu", &rng, &m, tree);
		struct ctr_batched_percpu *b = ctr_container_of(t, struct ctr_batched_percpu, base);
		const int64_t batch = b->batch, h = 2 * batch + 1, bound = ctr_read_error_bound(t);
		int *pos = NULL, *size = NULL;

		assert_int_equal(bound, batch * t->nr_cpus * m.n);
		assert_int_equal(ctr_preorder(t, &pos, &size), 0);
		random_history(t, &m, &rng, batch, 3000);
		m_check(t, &m, "batched_percpu");
		for (int sign = 1; sign >= -1; sign -= 2) {
			for (int cpu = 0; cpu < t->nr_cpus; cpu++)
				for (int i = 0; i < m.n; i++)
					for (int s = 0; s < m.nr_stats; s++) {
						m_add(t, &m, cpu, i, s, h);
						m_add(t, &m, cpu, i, s, -h);
						m_add(t, &m, cpu, i, s, sign * batch);
					}
			root_max = m_check(t, &m, "batched_percpu");
			for (int i = 0; i < m.n; i++)
				for (int s = 0; s < m.nr_stats; s++) {
					int64_t err = ctr_read_exact(t, i, s) - ctr_read(t, i, s);

					if (err != sign * batch * t->nr_cpus * size[i])
						fail_msg("batched_percpu: node %d: error %lld, want %lld: the "
							 "proof's residues are wrong", i, (long long)err,
							 (long long)(sign * batch * t->nr_cpus * size[i]));
				}
			assert_int_equal(root_max, bound);	/* attained at the root */
			assert_true(root_max > 0);
		}
		printf("# batched_percpu: %d nodes, %d cpus, batch %lld: bound %lld, observed %lld at the root "
		       "(+ and -)\n", m.n, t->nr_cpus, (long long)batch, (long long)bound, (long long)root_max);
		free(pos);
		free(size);
		ctr_tree_free(t);
		model_free(&m);
	}
}

/*
 * percpu_counter: the update walks the ancestors, each with its own local
 * counts, so an add at a leaf moves every local count on its path.  For
 * every leaf in turn: +H then -H (|H| >= 2 x batch: every level folds) zero
 * the path's counts, then +-(batch - 1) sets them all just under the batch.
 * Every node is on some leaf's path, and the last such leaf leaves it there,
 * so at the end every CPU's count of every node is +-(batch - 1).
 */
static void test_percpu_counter_edge(void **state)
{
	uint64_t rng = tu_seed("test_batched: percpu_counter");

	(void)state;
	for (int tree = 0; tree < TREES; tree++) {
		struct model m;
		struct ctr_tree *t = new_tree("percpu_counter", &rng, &m, tree);
		struct ctr_percpu_counter *p = ctr_container_of(t, struct ctr_percpu_counter, base);
		const int64_t batch = p->batch, h = 2 * batch, bound = ctr_read_error_bound(t);
		char *leaf = malloc(m.n);
		int64_t worst = 0;

		assert_int_equal(bound, (batch - 1) * t->nr_cpus);
		memset(leaf, 1, m.n);
		for (int i = 1; i < m.n; i++)
			leaf[m.parent[i]] = 0;
		random_history(t, &m, &rng, batch, 3000);
		m_check(t, &m, "percpu_counter");
		for (int sign = 1; sign >= -1; sign -= 2) {
			for (int cpu = 0; cpu < t->nr_cpus; cpu++)
				for (int i = 0; i < m.n; i++)
					for (int s = 0; leaf[i] && s < m.nr_stats; s++) {
						m_add(t, &m, cpu, i, s, h);
						m_add(t, &m, cpu, i, s, -h);
						m_add(t, &m, cpu, i, s, sign * (batch - 1));
					}
			worst = m_check(t, &m, "percpu_counter");
			for (int i = 0; i < m.n; i++)
				for (int s = 0; s < m.nr_stats; s++) {
					int64_t err = ctr_read_exact(t, i, s) - ctr_read(t, i, s);

					if (err != sign * bound)
						fail_msg("percpu_counter: node %d: error %lld, want %lld", i,
							 (long long)err, (long long)(sign * bound));
				}
			assert_int_equal(worst, bound);	/* attained at every node */
			if (batch > 1)
				assert_true(worst > 0);
		}
		printf("# percpu_counter: %d nodes, %d cpus, batch %lld: bound %lld, observed %lld at every node "
		       "(+ and -)\n", m.n, t->nr_cpus, (long long)batch, (long long)bound, (long long)worst);
		free(leaf);
		ctr_tree_free(t);
		model_free(&m);
	}
}

/* Every algorithm with a count bound: deltas just under, at and past the batches in use. */
static void test_all_near_batch(void **state)
{
	const struct ctr_algo *a;
	uint64_t seed = tu_seed("test_batched: all");
	static const int64_t near[] = { 1, 31, 32, 33, 63, 64, 65 };

	(void)state;
	TU_FOR_EACH_ALGO(a) {
		uint64_t rng = seed;
		int64_t worst = 0, bound = 0;

		for (int tree = 0; tree < TREES / 4; tree++) {
			struct model m = { 0 };
			int n = tu_range(&rng, 1, 60);
			struct ctr_tree *t;

			m.n = n;
			m.nr_stats = 2;
			m.parent = tu_random_tree(&rng, n, 32, NULL);
			m.direct = calloc((size_t)n * 2, sizeof(int64_t));
			m.want = calloc((size_t)n * 2, sizeof(int64_t));
			t = ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = n, .parent = m.parent,
								   .nr_cpus = tu_range(&rng, 1, 16), .nr_stats = 2 });
			assert_non_null(t);
			bound = ctr_read_error_bound(t);
			for (int op = 0; op < 20000; op++) {
				int64_t d = near[tu_range(&rng, 0, 6)] * (tu_range(&rng, 0, 1) ? 1 : -1);

				m_add(t, &m, tu_range(&rng, 0, t->nr_cpus - 1), tu_range(&rng, 0, n - 1),
				      tu_range(&rng, 0, 1), d);
				if (op % 4999 == 0) {
					int64_t w = m_check(t, &m, ctr_algo_name(a));

					worst = w > worst ? w : worst;
				}
			}
			{
				int64_t w = m_check(t, &m, ctr_algo_name(a));

				worst = w > worst ? w : worst;
			}
			ctr_tree_free(t);
			model_free(&m);
		}
		printf("# %s: near-batch deltas: worst |read - exact| %lld (bound of the last tree %lld)\n",
		       ctr_algo_name(a), (long long)worst, (long long)bound);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batched_percpu_edge),
		cmocka_unit_test(test_percpu_counter_edge),
		cmocka_unit_test(test_all_near_batch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
