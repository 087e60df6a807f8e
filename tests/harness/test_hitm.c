/* SPDX-License-Identifier: MIT */
/*
 * The sample reader of `run --c2c` (bench/hitm.c) on a FIXTURE: a layout map
 * made up here (fixed addresses, no tree behind them) and
 * tests/data/c2c-script.txt, lines written by hand to the documented format
 * of `perf script -F addr,data_src` (perf-script(1)), not a recording.  It
 * checks that each sample maps to the region holding its address (or to
 * none), that data sources decode as HITM, peer-cache, other load or store
 * by linux/perf_event.h's layout, and that the lines rank by HITM, then peer
 * loads; and, on a real tree, that the map made through ctr_layout names a
 * node's counter by its address.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../bench/hitm.h"
#include "../../counters/atomic_tree.h"

#define FIXTURE "tests/data/c2c-script.txt"

/* The layout map fixture: the addresses the script fixture's samples hit. */
static void hitm_fixture_map(struct bench_hitm_map *m)
{
	static const struct bench_hitm_region r[] = {
		{ 0x7f0000001040, 64, 1, 2, -1, -1, "the shared atomic" },
		{ 0x7f0000001000, 64, 0, 1, -1, -1, "the shared atomic" },
		{ 0x7f0000002000, 64, 1, 2, 0, -1, "the slot's count" },
		{ 0x7f0000002040, 64, 1, 2, 1, -1, "the slot's count" },
		{ 0x7f0000003000, 128, -1, -1, -1, -1, "the flush lock" },
	};

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		assert_int_equal(bench_hitm_map_add(m, &r[i]), 0);
	assert_int_equal(bench_hitm_map_sort(m), 0);
}

static void test_kinds(void **state)
{
	uint64_t addr, src;

	(void)state;
	assert_int_equal(bench_hitm_kind(0x800442), BENCH_HITM_HITM);		/* LOAD, L3 hit, SNP HitM */
	assert_int_equal(bench_hitm_kind(0x8000080442), BENCH_HITM_PEER);	/* LOAD, L3 hit, SNPX Peer */
	assert_int_equal(bench_hitm_kind(0x100142), BENCH_HITM_OTHER);	/* LOAD, L1 hit, SNP None */
	assert_int_equal(bench_hitm_kind(0x80144), BENCH_HITM_NOT_LOAD);	/* STORE */
	assert_int_equal(bench_hitm_parse_line("    7f0000001040           800442 |OP LOAD|LVL L3 hit\n",
					       &addr, &src), 0);
	assert_true(addr == 0x7f0000001040 && src == 0x800442);
	assert_int_equal(bench_hitm_parse_line("# a comment\n", &addr, &src), -EINVAL);
	assert_int_equal(bench_hitm_parse_line("Warning: something\n", &addr, &src), -EINVAL);
	assert_int_equal(bench_hitm_parse_line("\n", &addr, &src), -EINVAL);
	assert_int_equal(bench_hitm_parse_line("7f0000001040\n", &addr, &src), -EINVAL);
}

static void test_lookup(void **state)
{
	struct bench_hitm_map m = { 0 };
	struct bench_hitm_region over = { 0x7f0000001050, 8, -1, -1, -1, -1, "overlapping" };
	char name[128];

	(void)state;
	hitm_fixture_map(&m);
	assert_int_equal(bench_hitm_lookup(&m, 0x7f0000001040)->node, 1);
	assert_int_equal(bench_hitm_lookup(&m, 0x7f000000107f)->node, 1);
	assert_int_equal(bench_hitm_lookup(&m, 0x7f000000103f)->node, 0);
	assert_int_equal(bench_hitm_lookup(&m, 0x7f0000002040)->slot, 1);
	assert_null(bench_hitm_lookup(&m, 0x7f0000001080));	/* between regions */
	assert_null(bench_hitm_lookup(&m, 0x7f0000003080));	/* just past the last */
	assert_null(bench_hitm_lookup(&m, 0x10000));
	bench_hitm_name(bench_hitm_lookup(&m, 0x7f0000001040), name, sizeof(name));
	assert_string_equal(name, "node 1, level 2: the shared atomic");
	bench_hitm_name(bench_hitm_lookup(&m, 0x7f0000002000), name, sizeof(name));
	assert_string_equal(name, "slot 0's area, node 1 (level 2): the slot's count");
	bench_hitm_name(bench_hitm_lookup(&m, 0x7f0000003000), name, sizeof(name));
	assert_string_equal(name, "shared: the flush lock");
	/* a map whose regions overlap is refused: a lookup there would be ambiguous */
	assert_int_equal(bench_hitm_map_add(&m, &over), 0);
	assert_int_equal(bench_hitm_map_sort(&m), -EINVAL);
	bench_hitm_map_free(&m);
}

static void test_read_and_rank(void **state)
{
	struct bench_hitm_map m = { 0 };
	struct bench_hitm_tally t = { 0 };
	FILE *f = fopen(FIXTURE, "r");
	char *out = NULL;
	size_t outlen = 0;
	FILE *o;

	(void)state;
	assert_non_null(f);
	hitm_fixture_map(&m);
	assert_int_equal(bench_hitm_read(f, &m, &t), 0);
	fclose(f);
	assert_int_equal(t.samples, 14);	/* every sample line, the store included */
	assert_int_equal(t.loads, 13);
	bench_hitm_rank(&t);
	assert_int_equal(t.n, 5);
	/* node 1's line: 3 HITM */
	assert_int_equal(t.e[0].r.node, 1);
	assert_int_equal(t.e[0].r.slot, -1);
	assert_int_equal(t.e[0].hitm, 3);
	assert_int_equal(t.e[0].loads, 4);
	/* the root's: 1 HITM and 2 peer, above the address outside the tree (1 HITM, no peer) */
	assert_int_equal(t.e[1].r.node, 0);
	assert_int_equal(t.e[1].hitm, 1);
	assert_int_equal(t.e[1].peer, 2);
	assert_null(t.e[2].r.what);
	assert_int_equal(t.e[2].hitm, 1);
	/* the flush lock: 3 peer loads over its two lines */
	assert_string_equal(t.e[3].r.what, "the flush lock");
	assert_int_equal(t.e[3].peer, 3);
	/* slot 0's count: loads from its own L1 only, last */
	assert_int_equal(t.e[4].r.slot, 0);
	assert_int_equal(t.e[4].hitm + t.e[4].peer, 0);
	assert_int_equal(t.e[4].loads, 2);

	o = open_memstream(&out, &outlen);
	assert_non_null(o);
	bench_hitm_print(o, "fixture", &t, 8);
	fclose(o);
	printf("%s", out);
	assert_non_null(strstr(out, "c2c: fixture: 13 load samples of 14"));
	assert_non_null(strstr(out, "line 0x7f0000001040  node 1, level 2: the shared atomic"));
	assert_non_null(strstr(out, "outside the tree's memory"));
	assert_null(strstr(out, "the slot's count"));	/* no HITM, no peer: not printed */
	/* the order printed is the rank */
	assert_true(strstr(out, "node 1, level 2") < strstr(out, "node 0, level 1"));
	assert_true(strstr(out, "node 0, level 1") < strstr(out, "the flush lock"));
	free(out);
	bench_hitm_tally_free(&t);
	bench_hitm_map_free(&m);
}

/* A real tree's map, through ctr_layout: the address of a node's counter names that node. */
static void test_tree_map(void **state)
{
	struct ctr_tree *t = ctr_tree_new(&ctr_algo_atomic_tree, &(struct ctr_params){ .nr_nodes = 4, .nr_cpus = 2 });
	struct ctr_atomic_tree *a = (struct ctr_atomic_tree *)t;
	struct bench_hitm_map m = { 0 };
	const struct bench_hitm_region *r;
	int x = 0;

	(void)state;
	assert_non_null(t);
	assert_int_equal(bench_hitm_map_of_tree(&m, t), 0);
	for (int n = 0; n < 4; n++) {
		r = bench_hitm_lookup(&m, (uint64_t)(uintptr_t)&a->val[(size_t)n * a->stride]);
		assert_non_null(r);
		assert_int_equal(r->node, n);
		assert_int_equal(r->level, n + 1);
		assert_string_equal(r->what, "the shared atomic");
	}
	assert_null(bench_hitm_lookup(&m, (uint64_t)(uintptr_t)&x));
	bench_hitm_map_free(&m);
	ctr_tree_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_read_and_rank),
		cmocka_unit_test(test_tree_map),
	};

	return cmocka_run_group_tests_name("hitm", tests, NULL, NULL);
}
