/* SPDX-License-Identifier: MIT */
/*
 * NUMA-local per-slot memory: with a slot-to-node map every slot's region is
 * bound to its node (checked page by page with get_mempolicy; on this
 * one-node machine that is node 0), a node that does not exist fails
 * creation with EINVAL, and without a map nothing changes.
 */
#include <errno.h>
#include <unistd.h>
#include <linux/mempolicy.h>
#include <sys/syscall.h>

#include "../testutil.h"
#include "../../counters/percpu_hier.h"
#include "../../counters/rstat.h"

/* get_mempolicy(2) by its system call, as libctr calls mbind: a unit test links no libnuma. */
static long tu_get_mempolicy(int *mode, unsigned long *mask, unsigned long maxnode, void *addr, unsigned long flags)
{
	return syscall(SYS_get_mempolicy, mode, mask, maxnode, addr, flags);
}

/* The node the page holding p is on (it is touched already), or -errno. */
static int node_of(const void *p)
{
	int node = -1;

	if (tu_get_mempolicy(&node, NULL, 0, (void *)p, MPOL_F_NODE | MPOL_F_ADDR))
		return -errno;
	return node;
}

static void check_areas(const char *name, struct ctr_tree *t, const int *want)
{
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		const void *area = !strcmp(name, "percpu_hier") ?
			(const void *)ctr_container_of(t, struct ctr_percpu_hier, base)->area[cpu] :
			(const void *)ctr_container_of(t, struct ctr_rstat, base)->cpu[cpu];
		int node = node_of(area), mode = -1;
		unsigned long mask[16] = { 0 };

		if (node != want[cpu])
			fail_msg("%s: slot %d's region is on node %d, want %d", name, cpu, node, want[cpu]);
		/* Bound there, not merely landed there (one node would hide the difference). */
		assert_int_equal(tu_get_mempolicy(&mode, mask, sizeof(mask) * 8, (void *)area, MPOL_F_ADDR), 0);
		assert_int_equal(mode, MPOL_BIND);
		assert_true(mask[want[cpu] / 64] & (1UL << (want[cpu] % 64)));
	}
}

static void test_slot_regions_on_node(void **state)
{
	const char *names[] = { "percpu_hier", "rstat_force" };
	const int nodes[4] = { 0, 0, 0, 0 };

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct ctr_tree *t = ctr_tree_new(ctr_algo_find(names[k]), &(struct ctr_params){
			.nr_nodes = 600, .nr_cpus = 4, .nr_stats = 2, .slot_node = nodes });

		assert_non_null(t);
		check_areas(names[k], t, nodes);
		/* and it still counts */
		ctr_add(t, 3, 599, 1, 5);
		assert_int_equal(ctr_read_exact(t, 0, 1), 5);
		ctr_tree_free(t);
	}
}

/* True if this machine has a NUMA node 7 (then "missing" is not missing). */
static int numa_node_exists_7(void)
{
	return access("/sys/devices/system/node/node7", F_OK) == 0;
}

static void test_bad_nodes(void **state)
{
	const struct ctr_algo *a;
	const int missing[2] = { 0, 7 }, negative[2] = { 0, -1 }, huge[2] = { 4096, 0 };

	(void)state;
	if (numa_node_exists_7())
		skip();
	TU_FOR_EACH_ALGO(a) {
		struct ctr_tree *t;

		errno = 0;
		assert_null(ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = 3, .nr_cpus = 2,
								   .slot_node = negative }));
		assert_int_equal(errno, EINVAL);
		/* algorithms with per-slot regions bind them and fail on a node that does not exist */
		t = ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = 3, .nr_cpus = 2, .slot_node = missing });
		if (t) {
			ctr_tree_free(t);	/* no per-slot region to place */
			continue;
		}
		assert_int_equal(errno, EINVAL);
		errno = 0;
		assert_null(ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = 3, .nr_cpus = 2,
								   .slot_node = huge }));
		assert_int_equal(errno, EINVAL);
	}
	/* These two place per-slot regions: they must have refused. */
	errno = 0;
	assert_null(ctr_tree_new(ctr_algo_find("percpu_hier"), &(struct ctr_params){
		.nr_nodes = 3, .nr_cpus = 2, .slot_node = missing }));
	assert_null(ctr_tree_new(ctr_algo_find("rstat_unified"), &(struct ctr_params){
		.nr_nodes = 3, .nr_cpus = 2, .slot_node = missing }));
}

/*
 * Coloured areas: slot i's copy of a node sits i lines into a page further
 * than slot 0's, so the copies of one node in 64 slots fill 64 different L1
 * sets (address bits 6..11), and 512 slots put no more than 8 in a set (the
 * L1's ways).  Page-aligned areas put all of them in one set.
 */
static void test_slot_areas_coloured(void **state)
{
	enum { SLOTS = 512, SETS = 64 };
	static int nodes[SLOTS];
	struct ctr_tree *t = ctr_tree_new(ctr_algo_find("percpu_hier"), &(struct ctr_params){
		.nr_nodes = 5, .nr_cpus = SLOTS, .nr_stats = 3, .slot_node = nodes });
	struct ctr_percpu_hier *p;

	(void)state;
	assert_non_null(t);
	p = ctr_container_of(t, struct ctr_percpu_hier, base);
	for (int n = 0; n < 5; n++) {
		int per_set[SETS] = { 0 };

		for (int cpu = 0; cpu < SLOTS; cpu++) {
			uintptr_t a = (uintptr_t)&p->area[cpu][n * 3 + 2];
			int set = (int)(a / 64 % SETS);

			if (cpu < SETS && per_set[set])
				fail_msg("node %d: slots under 64 share L1 set %d (slot %d)", n, set, cpu);
			per_set[set]++;
			assert_true(a % 8 == 0);
		}
		for (int s = 0; s < SETS; s++)
			if (per_set[s] > SLOTS / SETS)
				fail_msg("node %d: %d copies in L1 set %d, more than %d", n, per_set[s], s,
					 SLOTS / SETS);
	}
	/* every slot still counts, and the free finds each mapping's start */
	for (int cpu = 0; cpu < SLOTS; cpu++)
		ctr_add(t, cpu, 4, 2, cpu);
	assert_int_equal(ctr_read_exact(t, 0, 2), SLOTS * (SLOTS - 1) / 2);
	ctr_tree_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_regions_on_node),
		cmocka_unit_test(test_bad_nodes),
		cmocka_unit_test(test_slot_areas_coloured),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
