/* SPDX-License-Identifier: MIT */
/*
 * c2c: the plan (CPUs, pairs, their distance classes) on synthetic machines,
 * without measuring anything.  The expected figures are worked out from the
 * layout, not from the code:
 *   GENOA "pack:2 [numa] l3:12 core:8 pu:2"  PU p: core p/2, L3 p/16, NUMA = package = p/192
 *     smt pairs: 192 cores x 1 = 192; ccx: 24 L3s x C(16,2) - 192 = 2688;
 *     numa: 2 x (C(192,2) - 12 x C(16,2)) = 33792; package: 0 (one node per package);
 *     remote: 192 x 192 = 36864.  Four classes: per-class:4 plans 16 pairs.
 *   NPS4  "pack:2 numa:4 l3:3 core:8 pu:2"   PU p: NUMA p/48: all five classes, so 20.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "../testutil.h"
#include "../../bench/c2c/c2c.h"

#define GENOA "pack:2 [numa] l3:12 core:8 pu:2"
#define NPS4 "pack:2 numa:4 l3:3 core:8 pu:2"

static struct topo *load(const char *spec)
{
	char err[256] = "";
	struct topo *t = topo_load(spec, err, sizeof(err));

	if (!t)
		fail_msg("topo_load(%s): %s", spec, err);
	return t;
}

static void plan(const struct topo *t, const char *cpus, const char *pairs, struct c2c_plan *p)
{
	char err[256] = "";

	if (c2c_plan_make(t, cpus, pairs, p, err, sizeof(err)))
		fail_msg("c2c_plan_make(%s, %s): %s", cpus, pairs, err);
}

/* Every planned pair: two different CPUs in topology order, its class what the topology says, no pair twice. */
static void check_pairs(const struct topo *t, const struct c2c_plan *p)
{
	for (int i = 0; i < p->nr_pairs; i++) {
		struct topo_pu_info a, b;

		assert_int_equal(topo_pu_info(t, p->pairs[i].a, &a), 0);
		assert_int_equal(topo_pu_info(t, p->pairs[i].b, &b), 0);
		assert_true(a.logical < b.logical);
		assert_int_equal(p->pairs[i].cls, topo_class_of(t, p->pairs[i].a, p->pairs[i].b));
		for (int j = 0; j < i; j++)
			assert_false(p->pairs[j].a == p->pairs[i].a && p->pairs[j].b == p->pairs[i].b);
		if (i) {
			struct topo_pu_info pa;

			topo_pu_info(t, p->pairs[i - 1].a, &pa);
			assert_true(pa.logical <= a.logical);
		}
	}
}

/* A list naming CPUs twice and out of order: measured once each, in topology order, classes by hand. */
static void test_list_dups(void **state)
{
	struct topo *t = load(GENOA);
	struct c2c_plan p;
	static const int want_cpus[] = { 0, 1, 2, 16, 200 };

	(void)state;
	plan(t, "200,0,2,1,0,16,2", "all", &p);
	assert_int_equal(p.nr_cpus, 5);
	assert_memory_equal(p.cpus, want_cpus, sizeof(want_cpus));
	assert_int_equal(p.nr_dups, 2);
	assert_int_equal(p.dups[0], 0);
	assert_int_equal(p.dups[1], 2);
	assert_int_equal(p.nr_pairs, 10);
	check_pairs(t, &p);
	/* 0-1 share a core; 0-2, 1-2 an L3; 16 is the next L3 of package 0; 200 is package 1 */
	assert_int_equal(c2c_plan_count(&p, TOPO_CLASS_SAME), 0);
	assert_int_equal(c2c_plan_count(&p, TOPO_CLASS_SMT), 1);
	assert_int_equal(c2c_plan_count(&p, TOPO_CLASS_CCX), 2);
	assert_int_equal(c2c_plan_count(&p, TOPO_CLASS_NUMA), 3);
	assert_int_equal(c2c_plan_count(&p, TOPO_CLASS_PACKAGE), 0);
	assert_int_equal(c2c_plan_count(&p, TOPO_CLASS_REMOTE), 4);
	assert_int_equal(p.pairs[0].a, 0);
	assert_int_equal(p.pairs[0].b, 1);
	assert_int_equal(p.pairs[0].cls, TOPO_CLASS_SMT);
	assert_int_equal(p.pairs[9].a, 16);
	assert_int_equal(p.pairs[9].b, 200);
	assert_int_equal(p.pairs[9].cls, TOPO_CLASS_REMOTE);
	c2c_plan_free(&p);
	/* a range and its own CPUs again */
	plan(t, "4-7,5,6", "all", &p);
	assert_int_equal(p.nr_cpus, 4);
	assert_int_equal(p.nr_dups, 2);
	assert_int_equal(p.nr_pairs, 6);
	assert_int_equal(c2c_plan_count(&p, TOPO_CLASS_SMT), 2);	/* 4-5, 6-7 */
	assert_int_equal(c2c_plan_count(&p, TOPO_CLASS_CCX), 4);
	c2c_plan_free(&p);
	topo_free(t);
}

static void test_genoa_per_class(void **state)
{
	struct topo *t = load(GENOA);
	struct c2c_plan p, q;

	(void)state;
	plan(t, "all", "per-class:4", &p);
	assert_int_equal(p.nr_cpus, 384);
	assert_int_equal(p.avail[TOPO_CLASS_SMT], 192);
	assert_int_equal(p.avail[TOPO_CLASS_CCX], 2688);
	assert_int_equal(p.avail[TOPO_CLASS_NUMA], 33792);
	assert_int_equal(p.avail[TOPO_CLASS_PACKAGE], 0);
	assert_int_equal(p.avail[TOPO_CLASS_REMOTE], 36864);
	assert_int_equal(p.nr_pairs, 16);
	for (int c = TOPO_CLASS_SMT; c < TOPO_NR_CLASSES; c++)
		assert_int_equal(c2c_plan_count(&p, c), c == TOPO_CLASS_PACKAGE ? 0 : 4);
	check_pairs(t, &p);
	/* the draw is fixed: the same plan twice */
	plan(t, "all", "per-class:4", &q);
	assert_int_equal(q.nr_pairs, p.nr_pairs);
	assert_memory_equal(q.pairs, p.pairs, sizeof(*p.pairs) * p.nr_pairs);
	c2c_plan_free(&q);
	c2c_plan_free(&p);
	/* a class with fewer pairs than asked gives what it has */
	plan(t, "0-3", "per-class:4", &p);
	assert_int_equal(p.nr_pairs, 6);
	assert_int_equal(c2c_plan_count(&p, TOPO_CLASS_SMT), 2);
	assert_int_equal(c2c_plan_count(&p, TOPO_CLASS_CCX), 4);
	c2c_plan_free(&p);
	topo_free(t);
}

static void test_nps4_per_class(void **state)
{
	struct topo *t = load(NPS4);
	struct c2c_plan p;

	(void)state;
	plan(t, "all", "per-class:4", &p);
	assert_int_equal(p.nr_cpus, 384);
	assert_int_equal(p.nr_pairs, 20);
	for (int c = TOPO_CLASS_SMT; c < TOPO_NR_CLASSES; c++)
		assert_int_equal(c2c_plan_count(&p, c), 4);
	check_pairs(t, &p);
	c2c_plan_free(&p);
	topo_free(t);
}

static void test_sample_and_all(void **state)
{
	struct topo *t = load(GENOA);
	struct c2c_plan p;
	long sum = 0;

	(void)state;
	plan(t, "all", "sample:50", &p);
	assert_int_equal(p.nr_pairs, 50);
	check_pairs(t, &p);
	for (int c = 0; c < TOPO_NR_CLASSES; c++)
		sum += p.avail[c];
	assert_int_equal(sum, 384L * 383 / 2);
	c2c_plan_free(&p);
	plan(t, "0-31", "sample:1000", &p);	/* more than there are: all 496 */
	assert_int_equal(p.nr_pairs, 32 * 31 / 2);
	check_pairs(t, &p);
	c2c_plan_free(&p);
	plan(t, "0-31", "all", &p);
	assert_int_equal(p.nr_pairs, 32 * 31 / 2);
	assert_int_equal(c2c_plan_count(&p, TOPO_CLASS_SMT), 16);
	assert_int_equal(c2c_plan_count(&p, TOPO_CLASS_CCX), 2 * 120 - 16);
	assert_int_equal(c2c_plan_count(&p, TOPO_CLASS_NUMA), 16 * 16);
	check_pairs(t, &p);
	c2c_plan_free(&p);
	topo_free(t);
}

static void expect_bad(const struct topo *t, const char *cpus, const char *pairs, const char *names)
{
	struct c2c_plan p;
	char err[256] = "";

	assert_int_equal(c2c_plan_make(t, cpus, pairs, &p, err, sizeof(err)), -EINVAL);
	if (!strstr(err, names) || strchr(err, '\n'))
		fail_msg("c2c_plan_make(%s, %s): '%s' does not name '%s' on one line", cpus, pairs, err,
			 names);
	assert_null(p.pairs);
	assert_null(p.cpus);
}

/* Bad --cpus and --pairs values, and what the one-line message must name. */
static const struct { const char *cpus, *pairs, *names; } bad_cases[] = {
	{ "0", "all", "'0'" },
	{ "3,3", "all", "'3,3'" },
	{ "0,384", "all", "384" },
	{ "5-2", "all", "5-2" },
	{ "x", "all", "'x'" },
	{ "1,,2", "all", "1,,2" },
	{ "", "all", "''" },
	{ "all", "per-class:0", "per-class:0" },
	{ "all", "sample:", "sample:" },
	{ "all", "sample:3x", "sample:3x" },
	{ "all", "some", "'some'" },
	{ "all", "per-class:-1", "per-class:-1" },
};

static void test_bad(void **state)
{
	struct topo *t = load(GENOA);

	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		expect_bad(t, bad_cases[i].cpus, bad_cases[i].pairs, bad_cases[i].names);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_dups),
		cmocka_unit_test(test_genoa_per_class),
		cmocka_unit_test(test_nps4_per_class),
		cmocka_unit_test(test_sample_and_all),
		cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
