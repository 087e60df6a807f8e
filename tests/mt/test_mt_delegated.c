/* SPDX-License-Identifier: MIT */
/*
 * percpu_hier_delegated: a read never misses a completed update.  Updaters
 * in two L3 groups add +1 and then publish how many they did (release);
 * readers load every published count (acquire) before a read and after it:
 * the read must be at least the first sum (every update counted there had
 * completed before the read began) and at most the second plus the updates
 * that can be in flight.  A third group has slots nobody updates, so its
 * requests always time out and are withdrawn; two readers at once make each
 * find the other's rounds busy.  Every way a group is read (answered by an
 * updater, withdrawn, busy) must have happened, so the test covers them all.
 * Built with -fsanitize=thread by make test.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "../testutil.h"
#include "../../counters/percpu_hier_delegated.h"

#define UPDATERS 6
#define IDLE_SLOTS 3
#define READERS 2
#define NODES 4	/* chain: updates at the leaf reach every level */

struct dl_shared {
	struct ctr_tree *t;			/* under test */
	_Atomic int stop;			/* readers done */
	_Atomic int64_t done[UPDATERS][8];	/* updates completed per updater, one line each */
	_Atomic uint64_t reads;			/* reads checked */
};

struct dl_arg {
	struct dl_shared *sh;	/* the run */
	int id;			/* slot (updaters) or reader number */
};

static void *dl_updater(void *arg)
{
	struct dl_arg *a = arg;
	struct dl_shared *sh = a->sh;
	int64_t n = 0;

	while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
		ctr_add(sh->t, a->id, NODES - 1, 0, 1);
		atomic_store_explicit(&sh->done[a->id][0], ++n, memory_order_release);
		if ((n & 255) == 0)
			sched_yield();
	}
	return NULL;
}

static int64_t dl_published(struct dl_shared *sh)
{
	int64_t s = 0;

	for (int u = 0; u < UPDATERS; u++)
		s += atomic_load_explicit(&sh->done[u][0], memory_order_acquire);
	return s;
}

static void *dl_reader(void *arg)
{
	struct dl_arg *a = arg;
	struct dl_shared *sh = a->sh;
	struct ctr_percpu_hier_delegated *p = ctr_container_of(sh->t, struct ctr_percpu_hier_delegated, base);
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int node = (int)(atomic_load(&sh->reads) % NODES);
		int64_t lo = dl_published(sh), v = ctr_read(sh->t, node, 0), hi = dl_published(sh) + UPDATERS;

		if (v < lo || v > hi)
			fail_msg("reader %d: node %d read %lld, outside [%lld, %lld]: a completed update was missed"
				 " (or one counted twice)", a->id, node, (long long)v, (long long)lo, (long long)hi);
		atomic_fetch_add(&sh->reads, 1);
		clock_gettime(CLOCK_MONOTONIC, &now);
		/* at least 2000 reads each and every path seen, or 20 s */
		if (now.tv_sec - t0.tv_sec >= 20 ||
		    (atomic_load(&sh->reads) > 2000 * READERS && atomic_load(&p->stats.answered) > 50 &&
		     atomic_load(&p->stats.busy) > 0))
			break;
	}
	return NULL;
}

static void test_reads_miss_nothing(void **state)
{
	int slot_l3[UPDATERS + IDLE_SLOTS];
	struct dl_shared sh = { 0 };
	struct dl_arg ua[UPDATERS], ra[READERS];
	pthread_t ut[UPDATERS], rt[READERS];
	struct ctr_percpu_hier_delegated *p;
	int64_t want = 0;

	(void)state;
	for (int i = 0; i < UPDATERS + IDLE_SLOTS; i++)
		slot_l3[i] = i < UPDATERS / 2 ? 0 : i < UPDATERS ? 1 : 2;
	/* a timeout long enough for a sanitized updater to answer, short enough to withdraw often */
	sh.t = ctr_tree_new(ctr_algo_find("percpu_hier_delegated"), &(struct ctr_params){
		.nr_nodes = NODES, .nr_cpus = UPDATERS + IDLE_SLOTS, .slot_l3 = slot_l3,
		.options = "timeout_ns=100000" });
	assert_non_null(sh.t);
	p = ctr_container_of(sh.t, struct ctr_percpu_hier_delegated, base);
	assert_int_equal(p->nr_groups, 3);
	for (int i = 0; i < UPDATERS; i++) {
		ua[i] = (struct dl_arg){ &sh, i };
		assert_int_equal(pthread_create(&ut[i], NULL, dl_updater, &ua[i]), 0);
	}
	for (int i = 0; i < READERS; i++) {
		ra[i] = (struct dl_arg){ &sh, i };
		assert_int_equal(pthread_create(&rt[i], NULL, dl_reader, &ra[i]), 0);
	}
	for (int i = 0; i < READERS; i++)
		pthread_join(rt[i], NULL);
	atomic_store(&sh.stop, 1);
	for (int i = 0; i < UPDATERS; i++)
		pthread_join(ut[i], NULL);
	want = dl_published(&sh);
	for (int n = 0; n < NODES; n++) {
		assert_int_equal(ctr_read_exact(sh.t, n, 0), want);
		assert_int_equal(ctr_read(sh.t, n, 0), want);
	}
	printf("# %llu reads checked, %lld updates; groups answered by an updater %llu, withdrawn %llu,"
	       " busy %llu\n", (unsigned long long)atomic_load(&sh.reads), (long long)want,
	       (unsigned long long)atomic_load(&p->stats.answered),
	       (unsigned long long)atomic_load(&p->stats.withdrawn),
	       (unsigned long long)atomic_load(&p->stats.busy));
	assert_true(atomic_load(&p->stats.answered) > 0);
	assert_true(atomic_load(&p->stats.withdrawn) > 0);
	assert_true(atomic_load(&p->stats.busy) > 0);
	ctr_tree_free(sh.t);
}

/* timeout_ns=0: never posts, reads every slot itself; bad values are EINVAL. */
static void test_options(void **state)
{
	static const char *const bad[] = { "timeout_ns=", "timeout_ns=-1", "timeout_ns=1x", " timeout_ns=5",
					   "timeout_ns=2000000000" };
	const struct ctr_algo *a = ctr_algo_find("percpu_hier_delegated");
	struct ctr_tree *t;
	struct ctr_percpu_hier_delegated *p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		assert_null(ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = 1, .nr_cpus = 2, .options = bad[i] }));
		assert_int_equal(errno, bad[i][0] == ' ' ? ENOENT : EINVAL);	/* " timeout_ns": no such key */
	}
	errno = 0;
	assert_null(ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = 1, .nr_cpus = 2, .options = "timeout=5" }));
	assert_int_equal(errno, ENOENT);	/* a key it does not take */
	t = ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = 2, .nr_cpus = 20, .options = "timeout_ns=0" });
	assert_non_null(t);
	p = ctr_container_of(t, struct ctr_percpu_hier_delegated, base);
	assert_int_equal(p->nr_groups, 3);	/* 8 + 8 + 4 slots without a map */
	ctr_add(t, 19, 1, 0, 5);
	assert_int_equal(ctr_read(t, 0, 0), 5);
	assert_int_equal(atomic_load(&p->stats.withdrawn) + atomic_load(&p->stats.answered), 0);
	ctr_tree_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_reads_miss_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
