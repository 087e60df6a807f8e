/* SPDX-License-Identifier: MIT */
/*
 * A loaded topology is read-only: workers bind themselves and place, count
 * and look up PUs all at once on one struct topo, as the harness's workers
 * will (run under ThreadSanitizer).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>

#include "../testutil.h"
#include "../../topology/topo.h"

enum { NR_WORKERS = 8 };

struct worker {
	const struct topo *machine, *plan;
	int pu, bound, cpu, bad;
};

static void *worker_fn(void *p)
{
	struct worker *w = p;
	long counts[TOPO_NR_CLASSES];
	int pus[64], wrapped;

	w->bound = topo_bind_self(w->machine, w->pu);
	w->cpu = sched_getcpu();
	for (int k = 0; k < 20; k++) {
		struct topo_pu_info in;

		if (topo_place(w->plan, k % 2 ? "scatter" : "list:0-63", 64, pus, &wrapped, NULL, 0) ||
		    topo_pair_counts(w->plan, pus, 64, counts) || topo_pu_info(w->plan, pus[k], &in) ||
		    topo_numa_node_of_pu(w->machine, w->pu) < 0)
			w->bad++;
	}
	return NULL;
}

static void test_concurrent_bind_and_place(void **state)
{
	char err[256];
	struct topo *machine = topo_load(NULL, err, sizeof(err));
	struct topo *plan = topo_load("pack:2 numa:4 l3:3 core:8 pu:2", err, sizeof(err));
	struct worker w[NR_WORKERS];
	pthread_t th[NR_WORKERS];
	int pus[NR_WORKERS];

	(void)state;
	assert_non_null(machine);
	assert_non_null(plan);
	assert_int_equal(topo_place(machine, "scatter", NR_WORKERS, pus, NULL, err, sizeof(err)), 0);
	for (int i = 0; i < NR_WORKERS; i++) {
		w[i] = (struct worker){ .machine = machine, .plan = plan, .pu = pus[i] };
		assert_int_equal(pthread_create(&th[i], NULL, worker_fn, &w[i]), 0);
	}
	for (int i = 0; i < NR_WORKERS; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(w[i].bound, 0);
		assert_int_equal(w[i].cpu, w[i].pu);
		assert_int_equal(w[i].bad, 0);
	}
	topo_free(plan);
	topo_free(machine);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concurrent_bind_and_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
