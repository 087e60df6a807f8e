/* SPDX-License-Identifier: MIT */
/*
 * atomic_tree_stock under concurrency: 16 threads on 2 CPUs charge and
 * uncharge small amounts (mostly served from their stocks) over more nodes
 * than a stock holds (so slots are evicted), against tight limits (so
 * charges fail and drain other CPUs' stocks while those CPUs use them),
 * with a monitor thread that watches every limited level's page counter and
 * drains all stocks now and then on its own.  Checked:
 *   - no level's page counter is ever over its limit (the monitor), nor the
 *     true value at rest;
 *   - nothing is lost: at rest every node's exact value equals what the
 *     threads hold below it; after draining every stock the page counters
 *     equal those holdings exactly; after the threads' holdings are
 *     uncharged and the stocks drained again, every counter is 0.
 * Built with -fsanitize=thread by make test.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include "../testutil.h"
#include "../../counters/atomic_tree_stock.h"

#define THREADS 16
#define TREES 4
#define ATTEMPTS 12000
#define WORKING_SET 10		/* nodes per thread: more than CTR_STOCK_NR */

struct st_shared {
	struct ctr_tree *t;		/* under test */
	struct ctr_atomic_tree_stock *a;	/* its insides */
	int n;				/* nodes */
	const int64_t *limit;		/* per node */
	uint64_t seed;			/* per-tree seed */
	pthread_barrier_t start;	/* everyone begins together */
	_Atomic int running;		/* workers not yet done */
	_Atomic int64_t worst_over;	/* largest counter - limit the monitor saw */
};

struct st_worker {
	struct st_shared *sh;		/* the run */
	int slot;			/* owned slot */
	int64_t *held;			/* private: charged and not uncharged, per node */
	long admitted, refused, uncharges;	/* outcomes */
};

static void *st_worker_main(void *arg)
{
	struct st_worker *w = arg;
	struct st_shared *sh = w->sh;
	uint64_t rng = sh->seed ^ ((uint64_t)(w->slot + 1) * 0x9e3779b97f4a7c15ULL);
	int set[WORKING_SET];

	for (int i = 0; i < WORKING_SET; i++)
		set[i] = tu_range(&rng, 0, sh->n - 1);
	pthread_barrier_wait(&sh->start);
	for (int i = 0; i < ATTEMPTS; i++) {
		int node = set[tu_range(&rng, 0, WORKING_SET - 1)];
		/* mostly under the batch (stock), now and then past it (straight through the tree) */
		int64_t delta = tu_range(&rng, 0, 15) ? tu_range(&rng, 1, 16) : tu_range(&rng, 65, 200);

		if (w->held[node] > 0 && tu_range(&rng, 0, 1)) {
			delta = w->held[node] < delta ? w->held[node] : delta;
			if (tu_range(&rng, 0, 1))
				ctr_add(sh->t, w->slot, node, 0, -delta);
			else
				assert_int_equal(ctr_try_charge(sh->t, w->slot, node, -delta), 1);
			w->held[node] -= delta;
			w->uncharges++;
		} else if (ctr_try_charge(sh->t, w->slot, node, delta)) {
			w->held[node] += delta;
			w->admitted++;
		} else {
			w->refused++;
		}
		if (i % 256 == 255)
			sched_yield();
	}
	atomic_fetch_sub(&sh->running, 1);
	return NULL;
}

/* Watches every limited counter; drains all stocks now and then, as a failing charge would. */
static void *st_monitor(void *arg)
{
	struct st_shared *sh = arg;
	int64_t worst = INT64_MIN;
	long rounds = 0;

	pthread_barrier_wait(&sh->start);
	while (atomic_load(&sh->running) > 0) {
		for (int i = 0; i < sh->n; i++) {
			int64_t v;

			if (sh->limit[i] == CTR_NO_LIMIT)
				continue;
			v = atomic_load_explicit(__ctr_ats_word(sh->a, i, 0), memory_order_relaxed);
			if (v - sh->limit[i] > worst)
				worst = v - sh->limit[i];
			(void)ctr_read(sh->t, i, 0);	/* lockless stock reads race with owners: TSan watches */
		}
		if (++rounds % 64 == 0)
			__ctr_atomic_tree_stock_drain(sh->a, 0);
		sched_yield();
	}
	atomic_store(&sh->worst_over, worst);
	return NULL;
}

static void check_counters(struct st_shared *sh, const int64_t *want, int drained, const char *when)
{
	for (int i = 0; i < sh->n; i++) {
		int64_t exact = ctr_read_exact(sh->t, i, 0);
		int64_t raw = atomic_load_explicit(__ctr_ats_word(sh->a, i, 0), memory_order_relaxed);

		if (exact != want[i])
			fail_msg("%s: node %d: exact %lld, want %lld: a unit was lost", when, i,
				 (long long)exact, (long long)want[i]);
		if (drained && raw != want[i])
			fail_msg("%s: node %d: page counter %lld with every stock drained, want %lld", when, i,
				 (long long)raw, (long long)want[i]);
		if (raw < exact)
			fail_msg("%s: node %d: page counter %lld below the charged value %lld", when, i,
				 (long long)raw, (long long)exact);
		if (sh->limit[i] != CTR_NO_LIMIT && raw > sh->limit[i])
			fail_msg("%s: node %d: page counter %lld over its limit %lld", when, i, (long long)raw,
				 (long long)sh->limit[i]);
	}
}

static void run_tree(uint64_t *rng, int tight)
{
	struct st_shared sh = { .n = tu_range(rng, 8, 40) };
	struct st_worker ws[THREADS];
	pthread_t tid[THREADS], mon;
	int *parent = tu_random_tree(rng, sh.n, 32, NULL);
	int64_t *limit = malloc(sizeof(int64_t) * sh.n);
	int64_t *direct = calloc(sh.n, sizeof(int64_t)), *want = calloc(sh.n, sizeof(int64_t));
	int64_t stocked = 0;
	long admitted = 0, refused = 0, uncharges = 0;
	uint64_t drains;

	/*
	 * Tight: 16 threads with stocks of up to 64 units per node fill them
	 * at once, so most charges end in drains.  Loose: the stocks serve most
	 * charges and hold units at rest, and limits are still reached.
	 */
	for (int i = 0; i < sh.n; i++)
		limit[i] = !tu_range(rng, 0, 5) ? CTR_NO_LIMIT :
			   tight ? tu_range(rng, 300, 3000) : tu_range(rng, 3000, 12000);
	sh.limit = limit;
	sh.t = ctr_tree_new(ctr_algo_find("atomic_tree_stock"), &(struct ctr_params){
		.nr_nodes = sh.n, .parent = parent, .nr_cpus = THREADS, .limit = limit });
	assert_non_null(sh.t);
	sh.a = ctr_container_of(sh.t, struct ctr_atomic_tree_stock, base);
	sh.seed = tu_rand(rng);
	atomic_store(&sh.running, THREADS);
	atomic_store(&sh.worst_over, INT64_MIN);
	pthread_barrier_init(&sh.start, NULL, THREADS + 1);
	for (int i = 0; i < THREADS; i++) {
		ws[i] = (struct st_worker){ .sh = &sh, .slot = i, .held = calloc(sh.n, sizeof(int64_t)) };
		assert_non_null(ws[i].held);
		assert_int_equal(pthread_create(&tid[i], NULL, st_worker_main, &ws[i]), 0);
	}
	assert_int_equal(pthread_create(&mon, NULL, st_monitor, &sh), 0);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(tid[i], NULL);
		for (int k = 0; k < sh.n; k++)
			direct[k] += ws[i].held[k];
		admitted += ws[i].admitted;
		refused += ws[i].refused;
		uncharges += ws[i].uncharges;
	}
	pthread_join(mon, NULL);
	drains = atomic_load(&sh.a->drains);

	if (atomic_load(&sh.worst_over) > 0)
		fail_msg("a page counter was %lld over its limit while charges ran",
			 (long long)atomic_load(&sh.worst_over));
	tu_hier_sums(parent, sh.n, 1, direct, want);
	check_counters(&sh, want, 0, "at rest");
	stocked = atomic_load_explicit(__ctr_ats_word(sh.a, 0, 0), memory_order_relaxed) - want[0];
	__ctr_atomic_tree_stock_drain(sh.a, 0);
	check_counters(&sh, want, 1, "stocks drained");

	/* Give everything back from the holders' own slots, drain, and nothing may remain anywhere. */
	for (int i = 0; i < THREADS; i++)
		for (int k = 0; k < sh.n; k++)
			if (ws[i].held[k])
				ctr_add(sh.t, i, k, 0, -ws[i].held[k]);
	memset(want, 0, sizeof(int64_t) * sh.n);
	check_counters(&sh, want, 0, "all uncharged");
	__ctr_atomic_tree_stock_drain(sh.a, 0);
	check_counters(&sh, want, 1, "all uncharged and drained");

	assert_true(admitted > 0);
	assert_true(refused > 0);
	assert_true(drains > 0);
	printf("# atomic_tree_stock, %s limits: %d nodes: %ld admitted, %ld refused, %ld uncharges, %llu drains; "
	       "worst counter - limit while running %lld; %lld units stocked at rest, none lost\n",
	       tight ? "tight" : "loose", sh.n, admitted, refused, uncharges, (unsigned long long)drains,
	       (long long)atomic_load(&sh.worst_over), (long long)stocked);
	for (int i = 0; i < THREADS; i++)
		free(ws[i].held);
	pthread_barrier_destroy(&sh.start);
	ctr_tree_free(sh.t);
	free(parent), free(limit), free(direct), free(want);
}

static void test_stock_limits_and_drains(void **state)
{
	uint64_t rng = tu_seed("test_mt_stock");
	cpu_set_t all, two;
	int kept = 0;

	(void)state;
	/* 16 threads on (at most) 2 CPUs, so they preempt one another inside the stock's critical sections. */
	if (!sched_getaffinity(0, sizeof(all), &all)) {
		CPU_ZERO(&two);
		for (int c = 0; c < CPU_SETSIZE && kept < 2; c++)
			if (CPU_ISSET(c, &all))
				CPU_SET(c, &two), kept++;
		sched_setaffinity(0, sizeof(two), &two);
	}
	for (int tree = 0; tree < TREES; tree++)
		run_tree(&rng, tree == 0);
	if (kept)
		sched_setaffinity(0, sizeof(all), &all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stock_limits_and_drains),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
