/* SPDX-License-Identifier: MIT */
/*
 * What is particular to the rstat algorithms (the API-wide exactness tests
 * cover them too):
 *  - readers that flush while writers update lose no update, and the flush
 *    lock's figures add up;
 *  - rstat_force and rstat_unified read exactly at quiescence, without
 *    ctr_read_exact flushing first;
 *  - rstat_ratelimit is stale until the periodic flush and exact after it;
 *  - the periodic flusher is created with the tree and stopped and joined by
 *    ctr_tree_free (ThreadSanitizer sees the joins; no thread is left over).
 * Built with -fsanitize=thread by make test.
 */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "testutil.h"

#define WRITERS 12
#define READERS 4
#define OPS 30000

static const char *const rstat_algos[] = { "rstat_force", "rstat_ratelimit", "rstat_threshold",
					   "rstat_unified" };

struct rs_shared {
	struct ctr_tree *t;		/* under test */
	int n;				/* nodes */
	pthread_barrier_t start;	/* writers and readers begin together */
	_Atomic int writers_left;	/* readers stop when it reaches 0 */
};

struct rs_worker {
	struct rs_shared *sh;		/* the run */
	int slot;			/* owned slot (writers) */
	int64_t *direct;		/* what a writer added per node */
	long reads;			/* what a reader read */
};

static void *rs_writer(void *arg)
{
	struct rs_worker *w = arg;
	uint64_t rng = 0x1234567ULL * (w->slot + 1);

	pthread_barrier_wait(&w->sh->start);
	for (int i = 0; i < OPS; i++) {
		int node = tu_range(&rng, 0, w->sh->n - 1);
		int64_t delta = tu_range(&rng, -9, 10);

		ctr_add(w->sh->t, w->slot, node, 0, delta);
		w->direct[node] += delta;
		if (i % 500 == 499)
			sched_yield();
	}
	atomic_fetch_sub(&w->sh->writers_left, 1);
	return NULL;
}

static void *rs_reader(void *arg)
{
	struct rs_worker *w = arg;
	uint64_t rng = 0x9876543ULL * (w->slot + 1);

	pthread_barrier_wait(&w->sh->start);
	while (atomic_load(&w->sh->writers_left) > 0) {
		int node = tu_range(&rng, 0, w->sh->n - 1);

		/* Mostly the algorithm's own read; now and then a full flush. */
		if (w->reads % 16)
			ctr_read(w->sh->t, node, 0);
		else
			ctr_read_exact(w->sh->t, node, 0);
		w->reads++;
	}
	return NULL;
}

static void test_flushing_readers(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(rstat_algos) / sizeof(rstat_algos[0]); k++) {
		const struct ctr_algo *a = ctr_algo_find(rstat_algos[k]);
		uint64_t rng = tu_seed(rstat_algos[k]);
		struct rs_shared sh = { .n = 60 };
		struct rs_worker ws[WRITERS + READERS];
		pthread_t tid[WRITERS + READERS];
		int *parent = tu_random_tree(&rng, sh.n, 32, NULL);
		int64_t direct[60] = { 0 }, want[60];
		struct ctr_flush_stats fs;
		long reads = 0;

		assert_non_null(a);
		sh.t = ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = sh.n, .parent = parent,
							      .nr_cpus = WRITERS, .flush_period_ms = 1 });
		assert_non_null(sh.t);
		atomic_store(&sh.writers_left, WRITERS);
		pthread_barrier_init(&sh.start, NULL, WRITERS + READERS);
		for (int i = 0; i < WRITERS + READERS; i++) {
			ws[i] = (struct rs_worker){ .sh = &sh, .slot = i,
						    .direct = calloc(sh.n, sizeof(int64_t)) };
			assert_int_equal(pthread_create(&tid[i], NULL, i < WRITERS ? rs_writer : rs_reader,
							&ws[i]), 0);
		}
		for (int i = 0; i < WRITERS + READERS; i++) {
			pthread_join(tid[i], NULL);
			for (int m = 0; i < WRITERS && m < sh.n; m++)
				direct[m] += ws[i].direct[m];
			reads += i >= WRITERS ? ws[i].reads : 0;
			free(ws[i].direct);
		}
		tu_hier_sums(parent, sh.n, 1, direct, want);
		for (int m = 0; m < sh.n; m++)
			if (ctr_read_exact(sh.t, m, 0) != want[m])
				fail_msg("%s: node %d: %lld, want %lld", rstat_algos[k], m,
					 (long long)ctr_read_exact(sh.t, m, 0), (long long)want[m]);
		a->flush_stats(sh.t, &fs, 0);
		printf("# %s: %d updates, %ld concurrent reads: %llu flushes, lock taken %llu times, "
		       "%llu contended, %llu breaks, flush p50 %llu ns\n", rstat_algos[k],
		       WRITERS * OPS, reads, (unsigned long long)fs.flushes,
		       (unsigned long long)fs.lock_acquisitions, (unsigned long long)fs.lock_contended,
		       (unsigned long long)fs.lock_breaks,
		       (unsigned long long)ctr_hist_quantile(&fs.flush_ns, 0.5));
		assert_true(fs.flushes > 0);
		assert_true(fs.flush_ns.count == fs.flushes);
		assert_true(fs.lock_acquisitions >= fs.flushes);
		assert_true(fs.lock_contended <= fs.lock_acquisitions);
		assert_true(fs.lock_wait_ns > 0 || fs.lock_contended == 0);
		pthread_barrier_destroy(&sh.start);
		ctr_tree_free(sh.t);
		free(parent);
	}
}

/* A read with no update in progress, and no ctr_read_exact before it. */
static void test_read_at_quiescence(void **state)
{
	(void)state;
	for (int k = 0; k < 4; k++) {
		const struct ctr_algo *a = ctr_algo_find(rstat_algos[k]);
		const int parent[] = { -1, 0, 1, 1, 0 };
		struct ctr_tree *t = ctr_tree_new(a, &(struct ctr_params){
			.nr_nodes = 5, .parent = parent, .nr_cpus = 3, .flush_period_ms = 60000 });

		assert_non_null(t);
		ctr_add(t, 0, 2, 0, 7);
		ctr_add(t, 1, 3, 0, -3);
		ctr_add(t, 2, 4, 0, 100);
		if (k == 0 || k == 3) {	/* force, unified: exact */
			assert_int_equal(ctr_read(t, 1, 0), 4);
			assert_int_equal(ctr_read(t, 0, 0), 104);
		} else {		/* ratelimit, threshold: stale, nothing flushed yet */
			assert_int_equal(ctr_read(t, 0, 0), 0);
			assert_true(ctr_read_error_bound(t) == -1 ||
				    110 <= ctr_read_error_bound(t));
		}
		ctr_tree_free(t);
	}
}

/* rstat_ratelimit: stale until the periodic flusher runs, exact after one period. */
static void test_ratelimit_period(void **state)
{
	const int period_ms = 30;
	struct timespec nap = { 0, 3 * period_ms * 1000000L };
	struct ctr_tree *t = ctr_tree_new(ctr_algo_find("rstat_ratelimit"),
					  &(struct ctr_params){ .nr_nodes = 4, .nr_cpus = 2,
								.flush_period_ms = period_ms });

	int waited = 0;

	(void)state;
	assert_non_null(t);
	ctr_add(t, 1, 3, 0, 42);
	/* Three periods, then more on a loaded machine (up to 3 s): the flusher must have run. */
	do
		nanosleep(&nap, NULL);
	while (ctr_read(t, 0, 0) != 42 && ++waited < 30);
	for (int n = 0; n < 4; n++)
		assert_int_equal(ctr_read(t, n, 0), 42);
	ctr_tree_free(t);
}

/*
 * rstat_threshold's bound with two readers at quiescence: one's read flushes
 * from the root (resetting the total first), the other reads meanwhile; it
 * must not trust the reset total while the flush is still folding.  Big
 * trees make the flush long enough for the second read to land inside it.
 */
struct thr_reader {
	struct ctr_tree *t;		/* under test */
	pthread_barrier_t *go;		/* both read at once */
	int64_t got;			/* what it read */
};

static void *thr_read_root(void *arg)
{
	struct thr_reader *rd = arg;

	pthread_barrier_wait(rd->go);
	rd->got = ctr_read(rd->t, 0, 0);
	return NULL;
}

static void test_threshold_bound_racing_readers(void **state)
{
	enum { N = 8000, ROUNDS = 60 };
	int *parent = malloc(sizeof(int) * N);
	struct ctr_tree *t;
	int64_t want = 0, bound, worst = 0;

	(void)state;
	for (int i = 0; i < N; i++)
		parent[i] = i ? (i - 1) / 2 : -1;
	t = ctr_tree_new(ctr_algo_find("rstat_threshold"), &(struct ctr_params){
		.nr_nodes = N, .parent = parent, .nr_cpus = 2, .flush_period_ms = 600000 });
	assert_non_null(t);
	bound = ctr_read_error_bound(t);
	for (int r = 0; r < ROUNDS; r++) {
		pthread_barrier_t go;
		struct thr_reader rd[2] = { { t, &go, 0 }, { t, &go, 0 } };
		pthread_t tid[2];

		for (int n = 0; n < N; n++, want++)
			ctr_add(t, r & 1, n, 0, 1);
		pthread_barrier_init(&go, NULL, 2);
		for (int i = 0; i < 2; i++)
			assert_int_equal(pthread_create(&tid[i], NULL, thr_read_root, &rd[i]), 0);
		for (int i = 0; i < 2; i++) {
			pthread_join(tid[i], NULL);
			if (llabs(want - rd[i].got) > worst)
				worst = llabs(want - rd[i].got);
		}
		pthread_barrier_destroy(&go);
	}
	printf("# rstat_threshold, two readers at rest: worst error %lld, bound %lld\n",
	       (long long)worst, (long long)bound);
	assert_true(worst <= bound);
	ctr_tree_free(t);
	free(parent);
}

static int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n - 2;	/* . and .. */
}

/*
 * Threads of this process once the count settles: a joined thread can stay
 * listed for a moment after pthread_join returns (the kernel wakes the
 * joiner before it reaps the task), so wait up to a second for want.
 */
static int settled_threads(int want)
{
	struct timespec nap = { 0, 1000000 };
	int n = count_threads();

	for (int i = 0; i < 1000 && n != want; i++) {
		nanosleep(&nap, NULL);
		n = count_threads();
	}
	return n;
}

/* Create and free trees with flushers at once and mid-period: every flusher is joined. */
static void test_flusher_lifecycle(void **state)
{
	int before;

	(void)state;
	before = settled_threads(1);
	for (int i = 0; i < 40; i++) {
		struct ctr_tree *t = ctr_tree_new(ctr_algo_find(rstat_algos[1 + i % 2]),
						  &(struct ctr_params){ .nr_nodes = 3, .nr_cpus = 2,
									.flush_period_ms = 1 + i % 3 });

		assert_non_null(t);
		assert_int_equal(settled_threads(before + 1), before + 1);
		ctr_add(t, i % 2, 2, 0, i);
		if (i % 4 == 0) {
			struct timespec nap = { 0, 2000000 };

			nanosleep(&nap, NULL);
		}
		assert_int_equal(ctr_read_exact(t, 0, 0), i);
		ctr_tree_free(t);
		assert_int_equal(settled_threads(before), before);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_at_quiescence),
		cmocka_unit_test(test_ratelimit_period),
		cmocka_unit_test(test_flusher_lifecycle),
		cmocka_unit_test(test_flushing_readers),
		cmocka_unit_test(test_threshold_bound_racing_readers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
