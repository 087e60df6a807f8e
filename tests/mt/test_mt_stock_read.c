/* SPDX-License-Identifier: MIT */
/*
 * atomic_tree_stock's read while charges move units between the page
 * counters and the stocks: the in-flight bound stated in
 * counters/atomic_tree_stock.h, (2 + 2k) x batch per CPU active under the
 * node (k: stock slots that CPU uses for nodes there; 1 here), held.
 *
 * Each of 12 workers (6 per CPU) owns one leaf and swings it as a triangle:
 * K charges of delta, then K uncharges of delta, through ctr_try_charge, so
 * consumes, batch misses with refills, and refills past a batch that drain
 * all happen; after each operation it publishes its operation count.  From
 * the counts before and after a read, the reader knows every value each leaf
 * held meanwhile (the operation in flight at either end included), and so the
 * range the node's value was in; a read outside it by more than the bound
 * fails the test.  Reads of the root (12 workers under it) and of one leaf.
 * Built with -fsanitize=thread by make test.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#include "../testutil.h"
#include "../../counters/atomic_tree_stock.h"

#define WORKERS 12
#define BATCH 64
#define DELTA 24		/* < batch: mostly consumed from the stock */
#define K 9			/* 9 x 24 = 216 units: several batch misses up, drains down */
#define OPS 40000

struct sr_shared {
	struct ctr_tree *t;			/* under test: root 0, leaves 1..WORKERS */
	_Atomic long count[WORKERS];		/* operations worker w has completed */
	_Atomic int running;			/* workers not yet done */
	pthread_barrier_t start;		/* everyone begins together */
};

struct sr_worker {
	struct sr_shared *sh;	/* the run */
	int w;			/* slot, and leaf w + 1 */
};

/* Units worker w holds after c operations: the triangle's height. */
static int64_t sr_held(long c)
{
	long p = c % (2 * K);

	return DELTA * (p <= K ? p : 2 * K - p);
}

static void *sr_worker_main(void *arg)
{
	struct sr_worker *me = arg;
	struct sr_shared *sh = me->sh;

	pthread_barrier_wait(&sh->start);
	for (long c = 0; c < OPS; c++) {
		int64_t d = (c % (2 * K)) < K ? DELTA : -DELTA;

		assert_int_equal(ctr_try_charge(sh->t, me->w, me->w + 1, d), 1);	/* no limits */
		atomic_store_explicit(&sh->count[me->w], c + 1, memory_order_release);
		if (c % 512 == 511)
			sched_yield();
	}
	atomic_fetch_sub(&sh->running, 1);
	return NULL;
}

/* The lowest and highest value worker w's leaf held while its count went from c0 to c1 (+1 in flight). */
static void sr_range(long c0, long c1, int64_t *lo, int64_t *hi)
{
	*lo = INT64_MAX;
	*hi = INT64_MIN;
	for (long c = c0; c <= c1 + 1 && c <= c0 + 2 * K; c++) {
		int64_t v = sr_held(c);

		*lo = v < *lo ? v : *lo;
		*hi = v > *hi ? v : *hi;
	}
	if (c1 + 1 - c0 >= 2 * K) {	/* a whole period went by: every value */
		*lo = 0;
		*hi = DELTA * K;
	}
}

static void test_read_in_flight_bound(void **state)
{
	const int64_t bound_per_cpu = 4 * BATCH;	/* (2 + 2k) x batch, k = 1 */
	int parent[WORKERS + 1];
	struct sr_shared sh = { .running = WORKERS };
	struct sr_worker wk[WORKERS];
	pthread_t th[WORKERS];
	int64_t worst[2] = { 0, 0 };
	long reads = 0;

	(void)state;
	parent[0] = -1;
	for (int i = 1; i <= WORKERS; i++)
		parent[i] = 0;
	sh.t = ctr_tree_new(&ctr_algo_atomic_tree_stock, &(struct ctr_params){
		.nr_nodes = WORKERS + 1, .parent = parent, .nr_cpus = WORKERS, .batch = BATCH });
	assert_non_null(sh.t);
	pthread_barrier_init(&sh.start, NULL, WORKERS + 1);
	for (int w = 0; w < WORKERS; w++) {
		wk[w] = (struct sr_worker){ .sh = &sh, .w = w };
		assert_int_equal(pthread_create(&th[w], NULL, sr_worker_main, &wk[w]), 0);
	}
	pthread_barrier_wait(&sh.start);
	while (atomic_load(&sh.running)) {
		long c0[WORKERS], c1[WORKERS];
		int64_t root, leaf, lo = 0, hi = 0, llo = 0, lhi = 0;

		for (int w = 0; w < WORKERS; w++)
			c0[w] = atomic_load_explicit(&sh.count[w], memory_order_acquire);
		root = ctr_read(sh.t, 0, 0);
		leaf = ctr_read(sh.t, 1, 0);
		for (int w = 0; w < WORKERS; w++)
			c1[w] = atomic_load_explicit(&sh.count[w], memory_order_acquire);
		for (int w = 0; w < WORKERS; w++) {
			int64_t l, h;

			sr_range(c0[w], c1[w], &l, &h);
			lo += l;
			hi += h;
			if (w == 0) {
				llo = l;
				lhi = h;
			}
		}
		int64_t err = root < lo ? lo - root : root > hi ? root - hi : 0;
		int64_t lerr = leaf < llo ? llo - leaf : leaf > lhi ? leaf - lhi : 0;

		if (err > WORKERS * bound_per_cpu)
			fail_msg("root read %lld outside [%lld, %lld] by %lld, over the bound %lld",
				 (long long)root, (long long)lo, (long long)hi, (long long)err,
				 (long long)(WORKERS * bound_per_cpu));
		if (lerr > bound_per_cpu)
			fail_msg("leaf read %lld outside [%lld, %lld] by %lld, over the bound %lld",
				 (long long)leaf, (long long)llo, (long long)lhi, (long long)lerr,
				 (long long)bound_per_cpu);
		worst[0] = err > worst[0] ? err : worst[0];
		worst[1] = lerr > worst[1] ? lerr : worst[1];
		reads++;
	}
	for (int w = 0; w < WORKERS; w++)
		pthread_join(th[w], NULL);
	/* at rest: exact */
	assert_int_equal(ctr_read(sh.t, 1, 0), sr_held(OPS));
	assert_int_equal(ctr_read(sh.t, 0, 0), WORKERS * sr_held(OPS));
	printf("# %ld reads under updates: worst error %lld at the root (bound %lld), %lld at a leaf "
	       "(bound %lld), batch %d\n", reads, (long long)worst[0],
	       (long long)(WORKERS * bound_per_cpu), (long long)worst[1], (long long)bound_per_cpu,
	       BATCH);
	assert_true(reads > 0);
	pthread_barrier_destroy(&sh.start);
	ctr_tree_free(sh.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_in_flight_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
