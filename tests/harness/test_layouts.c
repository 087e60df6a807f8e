/* SPDX-License-Identifier: MIT */
/*
 * Named layouts: every layout topology/layouts.c lists loads, and its PU,
 * core, L3 and NUMA counts, cache sizes and distances are those of the part
 * as its datasheet gives them, written here independently of the table;
 * Linux's CPU numbering is modelled (CPU N is CPU 0's sibling on N cores).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "../testutil.h"
#include "../../topology/topo.h"

/*
 * Per socket, as the parts' sources say (not read from layouts.c):
 *   EPYC 7763   AMD product page: 64 cores / 128 threads, 256 MB L3;
 *               Zen 3: 8 CCDs, one 32 MB L3 (CCX) each; 512 KB L2 per core
 *   EPYC 9654   AMD product page: 96 cores / 192 threads, 384 MB L3;
 *               12 CCDs, 32 MB L3 each; 1 MB L2 per core
 *   EPYC 9754   AMD product page: 128 cores / 256 threads, 256 MB L3;
 *               8 CCDs of 2 CCXs, 16 MB L3 per CCX; 1 MB L2 per core
 *   EPYC 9755   AMD product page: 128 cores / 256 threads, 512 MB L3;
 *               16 CCDs, 32 MB L3 each; 1 MB L2 per core
 *   EPYC 9965   AMD product page: 192 cores / 384 threads, 384 MB L3;
 *               12 CCDs of 16 cores, one 32 MB L3 each; 1 MB L2 per core
 */
static const struct part {
	const char *key;	/* the layouts' name prefix */
	int threads, cores, l3s;	/* per socket */
	long long l3_total_mb;	/* per socket, the product page's figure */
	long long l2_kb;	/* per core */
} parts[] = {
	{ "milan-7763", 128, 64, 8, 256, 512 },
	{ "genoa-9654", 192, 96, 12, 384, 1024 },
	{ "bergamo-9754", 256, 128, 16, 256, 1024 },
	{ "turin-9755", 256, 128, 16, 512, 1024 },
	{ "turin-9965", 384, 192, 12, 384, 1024 },
};

/* NUMA nodes per socket of each mode's suffix (the BIOS's NPS1/2/4, one per L3). */
static int nodes_per_socket(const struct part *p, const char *suffix)
{
	if (!*suffix)
		return 1;
	if (!strcmp(suffix, "-nps2"))
		return 2;
	if (!strcmp(suffix, "-nps4"))
		return 4;
	if (!strcmp(suffix, "-l3numa"))
		return p->l3s;
	fail_msg("unknown mode suffix '%s'", suffix);
	return -1;
}

static void check_layout(const struct part *p, int sockets, const char *suffix)
{
	char name[64], err[256] = "";
	struct topo_layout l;
	struct topo_counts c;
	struct topo_pu_info in;
	struct topo *t;
	int nodes = nodes_per_socket(p, suffix) * sockets;

	snprintf(name, sizeof(name), "%s-%ds%s", p->key, sockets, suffix);
	assert_int_equal(topo_layout_find(name, &l), 0);
	t = topo_load(name, err, sizeof(err));
	if (!t)
		fail_msg("topo_load(%s): %s", name, err);
	topo_counts(t, &c);
	if (c.pus != p->threads * sockets || c.cores != p->cores * sockets || c.l3s != p->l3s * sockets ||
	    c.numa_nodes != nodes || c.packages != sockets || c.max_smt != 2)
		fail_msg("%s: %d PUs, %d cores, %d L3s, %d NUMA, %d packages; want %d, %d, %d, %d, %d", name,
			 c.pus, c.cores, c.l3s, c.numa_nodes, c.packages, p->threads * sockets,
			 p->cores * sockets, p->l3s * sockets, nodes, sockets);
	/* the L3s of a socket add up to the product page's L3 */
	assert_int_equal(topo_cache_bytes(t, 3) * p->l3s, p->l3_total_mb << 20);
	assert_int_equal(topo_cache_bytes(t, 2), p->l2_kb << 10);
	assert_ptr_not_equal(topo_layout_of(t), NULL);
	assert_string_equal(topo_layout_of(t)->name, name);
	/* Linux's numbering: CPU (all cores) is CPU 0's SMT sibling; CPU 1 is core 1 */
	assert_int_equal(topo_pu_info(t, c.cores, &in), 0);
	assert_int_equal(in.core, 0);
	assert_int_equal(in.smt, 1);
	assert_int_equal(in.logical, 1);
	assert_int_equal(topo_pu_info(t, 1, &in), 0);
	assert_int_equal(in.core, 1);
	assert_int_equal(topo_class_of(t, 0, c.cores), TOPO_CLASS_SMT);
	/* distances: 10 on the diagonal, 12 in a socket, 32 across (the SLIT's typical values) */
	for (int a = 0; a < nodes; a++)
		for (int b = 0; b < nodes; b++) {
			int want = a == b ? 10 : a / (nodes / sockets) == b / (nodes / sockets) ? 12 : 32;

			if (topo_numa_distance(t, a, b) != want)
				fail_msg("%s: distance %d-%d is %d, want %d", name, a, b,
					 topo_numa_distance(t, a, b), want);
		}
	topo_free(t);
}

/* Every part in 1 and 2 sockets, in every mode; and nothing else is listed. */
static void test_every_layout(void **state)
{
	static const char *const suffixes[] = { "", "-nps2", "-nps4", "-l3numa" };
	const int nr_parts = sizeof(parts) / sizeof(parts[0]);
	struct topo_layout l;

	(void)state;
	for (int p = 0; p < nr_parts; p++)
		for (int s = 1; s <= 2; s++)
			for (int m = 0; m < 4; m++)
				check_layout(&parts[p], s, suffixes[m]);
	assert_int_equal(topo_nr_layouts(), nr_parts * 2 * 4);
	for (int i = 0; i < topo_nr_layouts(); i++) {
		assert_int_equal(topo_layout_at(i, &l), 0);
		assert_non_null(strstr(l.source, "AMD product page"));
		assert_true(strlen(l.slit_source) > 0);
	}
	assert_int_equal(topo_layout_at(topo_nr_layouts(), &l), -ENOENT);
	assert_int_equal(topo_layout_find("genoa-9654-3s", &l), -ENOENT);
}

/* The model itself: first threads in core order, then the siblings. */
static void test_linux_numbering(void **state)
{
	/* 3 cores, 2 threads each, in hwloc's logical order: c0t0 c0t1 c1t0 c1t1 c2t0 c2t1 */
	static const int smt[] = { 0, 1, 0, 1, 0, 1 };
	static const int want[] = { 0, 3, 1, 4, 2, 5 };
	int cpu[6];

	(void)state;
	topo_linux_numbering(smt, 6, cpu);
	assert_memory_equal(cpu, want, sizeof(want));
}

/* genoa-9654-2s: the case, CPU 192 is CPU 0's sibling; a spec keeps hwloc's numbers. */
static void test_genoa_2s(void **state)
{
	char err[256] = "";
	struct topo *t = topo_load("genoa-9654-2s", err, sizeof(err));
	struct topo *s = topo_load("pack:2 [numa] l3:12 core:8 pu:2", err, sizeof(err));
	struct topo_pu_info in;

	(void)state;
	assert_non_null(t);
	assert_non_null(s);
	assert_int_equal(topo_pu_info(t, 192, &in), 0);
	assert_int_equal(in.core, 0);
	assert_int_equal(in.package, 0);
	assert_int_equal(topo_pu_info(t, 96, &in), 0);
	assert_int_equal(in.package, 1);
	assert_int_equal(topo_pu_info(s, 192, &in), 0);
	assert_int_equal(in.package, 1);
	assert_int_equal(topo_numa_distance(s, 0, 1), -1);
	topo_free(t);
	topo_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_layout),
		cmocka_unit_test(test_linux_numbering),
		cmocka_unit_test(test_genoa_2s),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
