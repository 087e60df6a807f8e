/* SPDX-License-Identifier: MIT */
/*
 * Concurrent exactness: 16 threads on this 2-CPU machine (so they migrate
 * and preempt one another mid-update), each owning one slot, add random
 * deltas (negative too) to random nodes and stats of random trees up to
 * depth 32 while a reader thread reads; at quiescence every node must equal
 * the sum of what the threads added below it.  About 10^6 updates per
 * algorithm.  Then idle slots: 2 threads in 80 slots (the first two) and 4
 * in 384 (spread: 0, 96, 192, 383), the slots a machine's possible CPUs give
 * an algorithm while few are busy; reads and flushes walk every one.  Built
 * with -fsanitize=thread by make test.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "../testutil.h"

#define THREADS 16
#define TREES 3
#define OPS_PER_THREAD 22000	/* x 16 threads x 3 trees = 1.06e6 updates */
#define NR_STATS 2

struct mt_shared {
	struct ctr_tree *t;		/* under test */
	const int *parent;		/* its shape */
	int n;				/* nodes */
	uint64_t seed;			/* per-tree seed */
	pthread_barrier_t start;	/* everyone begins together */
	_Atomic int writers_left;	/* the reader stops when this hits 0 */
	int ops;			/* updates per writer */
};

struct mt_worker {
	struct mt_shared *sh;		/* the run */
	int slot;			/* owned slot */
	int64_t *direct;		/* private: what it added at each (node, stat) */
	uint64_t reads;			/* reader only: reads done */
};

static void *mt_writer(void *arg)
{
	struct mt_worker *w = arg;
	struct mt_shared *sh = w->sh;
	uint64_t rng = sh->seed ^ ((uint64_t)(w->slot + 1) * 0x9e3779b97f4a7c15ULL);

	pthread_barrier_wait(&sh->start);
	for (int i = 0; i < sh->ops; i++) {
		int node = tu_range(&rng, 0, sh->n - 1), s = tu_range(&rng, 0, NR_STATS - 1);
		int64_t delta = tu_range(&rng, -50, 50);

		ctr_add(sh->t, w->slot, node, s, delta);
		w->direct[(size_t)node * NR_STATS + s] += delta;
		/* Each burst is shorter than a time slice: yield so all 16 interleave. */
		if (i % 512 == 511)
			sched_yield();
	}
	atomic_fetch_sub(&sh->writers_left, 1);
	return NULL;
}

/* Reads race with the writers: nothing is checked but that they run (TSan watches). */
static void *mt_reader(void *arg)
{
	struct mt_worker *w = arg;
	struct mt_shared *sh = w->sh;
	uint64_t rng = sh->seed;
	int64_t sink = 0;

	pthread_barrier_wait(&sh->start);
	while (atomic_load(&sh->writers_left) > 0) {
		int node = tu_range(&rng, 0, sh->n - 1);

		sink += ctr_read(sh->t, node, 0);
		w->reads++;
	}
	w->direct[0] = sink;	/* keep the reads */
	return NULL;
}

/* threads writers in slots 0, stride, 2 stride, ... (the last in slots - 1 when spread) of slots. */
static void run_tree(const struct ctr_algo *a, uint64_t *rng, int threads, int slots, int spread, int ops)
{
	struct mt_shared sh = { .ops = ops };
	struct mt_worker ws[THREADS + 1];
	pthread_t tid[THREADS + 1];
	int n = tu_range(rng, 32, 200);
	int *parent = tu_random_tree(rng, n, 32, NULL);
	int64_t *direct = calloc((size_t)n * NR_STATS, sizeof(int64_t));
	int64_t *want = calloc((size_t)n * NR_STATS, sizeof(int64_t));
	int64_t bound;

	sh.t = ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = n, .parent = parent,
						      .nr_cpus = slots, .nr_stats = NR_STATS,
						      /* periodic flushers, where there are, run all along */
						      .flush_period_ms = 1 });
	assert_non_null(sh.t);
	sh.parent = parent;
	sh.n = n;
	sh.seed = tu_rand(rng);
	atomic_store(&sh.writers_left, threads);
	pthread_barrier_init(&sh.start, NULL, threads + 1);
	for (int i = 0; i <= threads; i++) {
		int slot = !spread ? i : i == threads - 1 ? slots - 1 : i * (slots / threads);

		ws[i] = (struct mt_worker){ .sh = &sh, .slot = i < threads ? slot : 0,
					    .direct = calloc((size_t)n * NR_STATS, sizeof(int64_t)) };
		assert_non_null(ws[i].direct);
		assert_int_equal(pthread_create(&tid[i], NULL, i < threads ? mt_writer : mt_reader,
						&ws[i]), 0);
	}
	for (int i = 0; i <= threads; i++)
		pthread_join(tid[i], NULL);
	for (int i = 0; i < threads; i++) {
		for (int k = 0; k < n * NR_STATS; k++)
			direct[k] += ws[i].direct[k];
	}
	for (int i = 0; i <= threads; i++)
		free(ws[i].direct);
	tu_hier_sums(parent, n, NR_STATS, direct, want);
	bound = ctr_read_error_bound(sh.t);
	for (int i = 0; i < n; i++) {
		for (int s = 0; s < NR_STATS; s++) {
			int64_t w = want[(size_t)i * NR_STATS + s], got = ctr_read_exact(sh.t, i, s);
			int64_t r = ctr_read(sh.t, i, s);

			if (got != w)
				fail_msg("%s: node %d (depth %d tree of %d) stat %d: %lld, want %lld: "
					 "an update was lost", ctr_algo_name(a), i, sh.t->depth[i], n, s,
					 (long long)got, (long long)w);
			if (bound >= 0 && (r - w > bound || w - r > bound))
				fail_msg("%s: node %d: read %lld off exact %lld by more than %lld",
					 ctr_algo_name(a), i, (long long)r, (long long)w, (long long)bound);
		}
	}
	printf("# %s: tree of %d nodes, depth %d, %d threads in %d slots%s: %d updates exact, %llu"
	       " concurrent reads, reads within %lld\n", ctr_algo_name(a), n, sh.t->max_depth, threads,
	       slots, spread ? " (spread)" : "", threads * ops, (unsigned long long)ws[threads].reads,
	       (long long)bound);
	pthread_barrier_destroy(&sh.start);
	ctr_tree_free(sh.t);
	free(parent);
	free(direct);
	free(want);
}

static void test_concurrent_exact(void **state)
{
	const struct ctr_algo *a = *state;
	uint64_t rng = tu_seed(ctr_algo_name(a));

	for (int tree = 0; tree < TREES; tree++)
		run_tree(a, &rng, THREADS, THREADS, 0, OPS_PER_THREAD);
	/* idle slots: what the possible CPUs of the seeds' machines give with few threads busy */
	run_tree(a, &rng, 2, 80, 0, OPS_PER_THREAD);
	run_tree(a, &rng, 4, 384, 1, OPS_PER_THREAD / 2);
}

int main(void)
{
	return tu_run_per_algo("test_mt_exact", test_concurrent_exact);
}
