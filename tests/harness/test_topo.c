/* SPDX-License-Identifier: MIT */
/*
 * Topology: placement policies on synthetic machines (expected PU lists
 * written out), wrap-around, explicit lists good and bad, distance classes
 * and pair counts, XML loading, printing, and this machine.
 *
 * Synthetic machines number PUs in logical order, so the arithmetic is easy:
 *   EPYC1 "pack:1 l3:12 core:8 pu:2"          PU p: core p/2, L3 p/16
 *   NPS4  "pack:2 numa:4 l3:3 core:8 pu:2"    PU p: core p/2, L3 p/16, NUMA p/48, package p/192
 *   GENOA "pack:2 [numa] l3:12 core:8 pu:2"   PU p: core p/2, L3 p/16, NUMA = package = p/192
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <hwloc.h>

#include "../testutil.h"
#include "../../topology/topo.h"

#define EPYC1 "pack:1 l3:12 core:8 pu:2"
#define NPS4 "pack:2 numa:4 l3:3 core:8 pu:2"
#define GENOA "pack:2 [numa] l3:12 core:8 pu:2"

static struct topo *load(const char *spec)
{
	char err[256] = "";
	struct topo *t = topo_load(spec, err, sizeof(err));

	if (!t)
		fail_msg("topo_load(%s): %s", spec ? spec : "NULL", err);
	return t;
}

/* Place n threads, expect success and (when want) the first nw PUs. */
static int *place(const struct topo *t, const char *policy, int n, int *wrapped)
{
	int *pus = malloc(sizeof(int) * n);
	char err[256] = "";

	assert_non_null(pus);
	if (topo_place(t, policy, n, pus, wrapped, err, sizeof(err)))
		fail_msg("topo_place(%s, %d): %s", policy, n, err);
	return pus;
}

static void expect_list(const struct topo *t, const char *policy, int n, const int *want, int nw)
{
	int wrapped = -1, *pus = place(t, policy, n, &wrapped);

	assert_int_equal(wrapped, n > topo_nr_pus(t) ? 1 : 0);
	for (int i = 0; i < nw; i++)
		if (pus[i] != want[i])
			fail_msg("%s %s, %d threads: thread %d on PU %d, want %d", topo_spec(t), policy, n,
				 i, pus[i], want[i]);
	free(pus);
}

#define EXPECT(t, policy, n, ...) do { \
	static const int want_[] = { __VA_ARGS__ }; \
	expect_list(t, policy, n, want_, (int)(sizeof(want_) / sizeof(want_[0]))); \
} while (0)

static struct topo_pu_info info(const struct topo *t, int pu)
{
	struct topo_pu_info in;

	assert_int_equal(topo_pu_info(t, pu, &in), 0);
	return in;
}

/* Every policy over exactly all PUs is a permutation of them. */
static void expect_permutation(const struct topo *t, const char *policy)
{
	int n = topo_nr_pus(t), wrapped, *pus = place(t, policy, n, &wrapped);
	char *seen = calloc(n, 1);

	assert_int_equal(wrapped, 0);
	for (int i = 0; i < n; i++) {
		assert_in_range(pus[i], 0, n - 1);	/* synthetic: OS indexes are 0..n-1 */
		if (seen[pus[i]]++)
			fail_msg("%s: PU %d placed twice", policy, pus[i]);
	}
	free(seen);
	free(pus);
}

static void test_load_synthetic(void **state)
{
	struct topo *t = load(NPS4);
	struct topo_counts c;
	struct topo_pu_info in;

	(void)state;
	assert_true(topo_is_synthetic(t));
	assert_string_equal(topo_spec(t), NPS4);
	assert_int_equal(topo_nr_pus(t), 384);
	topo_counts(t, &c);
	assert_int_equal(c.packages, 2);
	assert_int_equal(c.numa_nodes, 8);
	assert_int_equal(c.l3s, 24);
	assert_int_equal(c.cores, 192);
	assert_int_equal(c.pus, 384);
	assert_int_equal(c.max_smt, 2);
	in = info(t, 51);
	assert_int_equal(in.pu, 51);
	assert_int_equal(in.logical, 51);
	assert_int_equal(in.smt, 1);
	assert_int_equal(in.core, 25);
	assert_int_equal(in.l3, 3);
	assert_int_equal(in.numa, 1);
	assert_int_equal(in.numa_os, 1);
	assert_int_equal(in.package, 0);
	in = info(t, 200);
	assert_int_equal(in.smt, 0);
	assert_int_equal(in.package, 1);
	assert_int_equal(topo_numa_node_of_pu(t, 200), 4);
	assert_int_equal(topo_numa_node_of_pu(t, 384), -EINVAL);
	assert_int_equal(topo_numa_node_of_pu(t, -1), -EINVAL);
	assert_int_equal(topo_pu_info(t, 384, &in), -EINVAL);
	assert_int_equal(topo_pu_at(t, 384, &in), -EINVAL);
	assert_int_equal(topo_pu_at(t, 7, &in), 0);
	assert_int_equal(in.pu, 7);
	assert_true(topo_numa_memory(t, 0) > 0);	/* hwloc gives synthetic numa levels 1 GB */
	assert_int_equal(topo_numa_memory(t, 8), -1);
	/* Synthetic: nothing to bind to. */
	assert_int_equal(topo_bind_self(t, 0), -EOPNOTSUPP);
	topo_free(t);

	t = load(GENOA);
	topo_counts(t, &c);
	assert_int_equal(c.packages, 2);
	assert_int_equal(c.numa_nodes, 2);
	assert_int_equal(c.l3s, 24);
	assert_int_equal(topo_numa_node_of_pu(t, 191), 0);
	assert_int_equal(topo_numa_node_of_pu(t, 192), 1);
	assert_int_equal(topo_numa_memory(t, 1), 0);	/* "[numa]" says nothing of memory */
	topo_free(t);

	t = load("pack:2 [numa(memory=64GB)] l3:12 core:8 pu:2");
	assert_true(topo_numa_memory(t, 1) == 64000000000LL);
	topo_free(t);
	topo_free(NULL);
}

static void test_load_bad(void **state)
{
	static const char *bad[] = { "pack:x", "", "pack:2 [nuuma] core:2 pu:2", "pack:2 core:4",
				     "/no/such/file.xml", "hello" };
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_null(topo_load(bad[i], err, sizeof(err)));
		if (!strstr(err, bad[i]) || strchr(err, '\n'))
			fail_msg("topo_load(%s): message '%s' does not name it on one line", bad[i], err);
	}
	assert_null(topo_load("pack:x", NULL, 0));	/* no err buffer: still just NULL */
}

/* A spec's PU count is known before hwloc builds it, and one too big is refused at once. */
static void test_load_too_big(void **state)
{
	static const struct { const char *spec; uint64_t pus; } cases[] = {
		{ "pack:2 [numa] l3:12 core:8 pu:2", 384 },
		{ "pack:2 [numa(memory=64GB)] l3:12(size=32MB) core:8 pu:2", 384 },
		{ "pack:1 numa:12 l3:1 core:8 pu:2", 192 },
		{ "2 4 2", 16 },
		{ "2147483648", 2147483648ULL },
		{ "pack:1000 core:1000 pu:1000", 1000000000ULL },
		{ "pack:99999999999 core:99999999999 pu:99999999999", UINT64_MAX },
		{ "pack:x", 0 },
		{ "", 0 },
	};
	char spec[512] = "", err[600];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (topo_synthetic_pus(cases[i].spec) != cases[i].pus)
			fail_msg("'%s': %llu PUs, want %llu", cases[i].spec,
				 (unsigned long long)topo_synthetic_pus(cases[i].spec),
				 (unsigned long long)cases[i].pus);
	for (int i = 0; i < 40; i++)	/* 40 nested group:2 levels: 2^40 PUs */
		strcat(spec, "group:2 ");
	strcat(spec, "pu:1");
	assert_true(topo_synthetic_pus(spec) == 1ULL << 40);
	assert_null(topo_load(spec, err, sizeof(err)));
	assert_non_null(strstr(err, "1099511627776 PUs"));
	assert_null(topo_load("pu:4097", err, sizeof(err)));
	assert_non_null(strstr(err, "4097 PUs, the most is 4096"));
	assert_null(topo_load("/dev/zero", err, sizeof(err)));
	assert_non_null(strstr(err, "'/dev/zero': not a regular file"));
}

/* An lstopo-style XML export loads like the synthetic machine it was made from. */
static void test_load_xml(void **state)
{
	char path[] = "/tmp/test_topo_XXXXXX.xml", noext[] = "/tmp/test_topo_XXXXXX", bad[] = "/tmp/test_topo_bad_XXXXXX.xml";
	hwloc_topology_t hw;
	struct topo *t, *s;
	int fd, *a, *b;
	char err[256] = "";

	(void)state;
	assert_int_equal(hwloc_topology_init(&hw), 0);
	assert_int_equal(hwloc_topology_set_synthetic(hw, NPS4), 0);
	assert_int_equal(hwloc_topology_load(hw), 0);
	fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(hwloc_topology_export_xml(hw, path, 0), 0);
	fd = mkstemp(noext);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(hwloc_topology_export_xml(hw, noext, 0), 0);
	hwloc_topology_destroy(hw);

	s = load(NPS4);
	for (int k = 0; k < 2; k++) {
		t = load(k ? noext : path);
		assert_true(topo_is_synthetic(t));
		assert_int_equal(topo_nr_pus(t), 384);
		a = place(t, "scatter", 384, NULL);
		b = place(s, "scatter", 384, NULL);
		assert_memory_equal(a, b, sizeof(int) * 384);
		free(a), free(b);
		assert_int_equal(topo_bind_self(t, 0), -EOPNOTSUPP);
		topo_free(t);
	}
	topo_free(s);

	fd = mkstemps(bad, 4);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "<garbage", 8), 8);
	close(fd);
	assert_null(topo_load(bad, err, sizeof(err)));
	assert_non_null(strstr(err, bad));
	unlink(path), unlink(noext), unlink(bad);
}

/* 1-socket 96-core 12-L3 machine with SMT. */
static void test_place_epyc1(void **state)
{
	struct topo *t = load(EPYC1);
	int *pus;

	(void)state;
	EXPECT(t, "compact", 16, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
	EXPECT(t, "scatter", 16, 0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 2, 18, 34, 50);
	EXPECT(t, "ccx", 20, 0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 16, 18, 20, 22);
	EXPECT(t, "numa", 16, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
	EXPECT(t, "smt", 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	EXPECT(t, "list:0,2,4-7", 6, 0, 2, 4, 5, 6, 7);

	/* compact / numa (one node): every core's first PU, then the siblings. */
	pus = place(t, "compact", 100, NULL);
	for (int i = 0; i < 96; i++)
		assert_int_equal(pus[i], 2 * i);
	for (int i = 96; i < 100; i++)
		assert_int_equal(pus[i], 2 * (i - 96) + 1);
	free(pus);
	pus = place(t, "numa", 192, NULL);
	for (int i = 0; i < 192; i++)
		assert_int_equal(pus[i], i < 96 ? 2 * i : 2 * (i - 96) + 1);
	free(pus);
	/* scatter: first 12 threads on the 12 L3s; first 96 one per core; the rest siblings. */
	pus = place(t, "scatter", 192, NULL);
	for (int i = 0; i < 192; i++) {
		struct topo_pu_info in = info(t, pus[i]);

		assert_int_equal(in.smt, i >= 96);
		if (i < 96)
			assert_int_equal(in.l3, i % 12);
	}
	free(pus);
	/* ccx: 16 threads per L3, L3 by L3. */
	pus = place(t, "ccx", 192, NULL);
	for (int i = 0; i < 192; i++)
		assert_int_equal(info(t, pus[i]).l3, i / 16);
	free(pus);
	for (const char **p = (const char *[]){ "compact", "scatter", "ccx", "numa", "smt", NULL }; *p; p++)
		expect_permutation(t, *p);
	topo_free(t);
}

/* 2-socket NPS4 Genoa-like: 4 NUMA nodes per package, 3 L3s per node. */
static void test_place_nps4(void **state)
{
	struct topo *t = load(NPS4);
	int *pus;

	(void)state;
	EXPECT(t, "compact", 16, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
	/* packages alternate; within each, its 4 NUMA nodes in turn; then the next L3 of each node */
	EXPECT(t, "scatter", 16, 0, 192, 48, 240, 96, 288, 144, 336, 16, 208, 64, 256, 112, 304, 160, 352);
	EXPECT(t, "ccx", 16, 0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
	EXPECT(t, "numa", 30, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38,
	       40, 42, 44, 46, 1, 3, 5, 7, 9, 11);
	EXPECT(t, "smt", 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	EXPECT(t, "list:383,0-2,200", 5, 383, 0, 1, 2, 200);

	/* scatter: first 24 threads on 24 different L3s, the first 8 on 8 different NUMA nodes. */
	pus = place(t, "scatter", 24, NULL);
	{
		int l3_seen[24] = { 0 }, numa_seen[8] = { 0 };

		for (int i = 0; i < 24; i++) {
			struct topo_pu_info in = info(t, pus[i]);

			assert_int_equal(in.package, i % 2);
			assert_int_equal(l3_seen[in.l3]++, 0);
			if (i < 8)
				assert_int_equal(numa_seen[in.numa]++, 0);
		}
	}
	free(pus);
	/* numa: 48 threads per node, node by node, cores before siblings in each. */
	pus = place(t, "numa", 384, NULL);
	for (int i = 0; i < 384; i++) {
		struct topo_pu_info in = info(t, pus[i]);

		assert_int_equal(in.numa, i / 48);
		assert_int_equal(in.smt, i % 48 >= 24);
	}
	free(pus);
	/* compact: one per core over both packages before any sibling. */
	pus = place(t, "compact", 384, NULL);
	for (int i = 0; i < 384; i++)
		assert_int_equal(pus[i], i < 192 ? 2 * i : 2 * (i - 192) + 1);
	free(pus);
	for (const char **p = (const char *[]){ "compact", "scatter", "ccx", "numa", "smt", NULL }; *p; p++)
		expect_permutation(t, *p);
	topo_free(t);
}

/* The acceptance case: 8 scatter threads on 8 L3s over both packages. */
static void test_place_genoa_scatter(void **state)
{
	struct topo *t = load(GENOA);
	int *pus = place(t, "scatter", 8, NULL), l3_seen[24] = { 0 }, per_pkg[2] = { 0 };
	long counts[TOPO_NR_CLASSES];

	(void)state;
	EXPECT(t, "scatter", 8, 0, 192, 16, 208, 32, 224, 48, 240);
	for (int i = 0; i < 8; i++) {
		struct topo_pu_info in = info(t, pus[i]);

		assert_int_equal(l3_seen[in.l3]++, 0);
		per_pkg[in.package]++;
	}
	assert_int_equal(per_pkg[0], 4);
	assert_int_equal(per_pkg[1], 4);
	assert_int_equal(topo_pair_counts(t, pus, 8, counts), 0);
	assert_int_equal(counts[TOPO_CLASS_NUMA], 12);	/* same package = same node here, other L3 */
	assert_int_equal(counts[TOPO_CLASS_REMOTE], 16);
	assert_int_equal(counts[TOPO_CLASS_SAME] + counts[TOPO_CLASS_SMT] + counts[TOPO_CLASS_CCX] +
			 counts[TOPO_CLASS_PACKAGE], 0);
	free(pus);
	topo_free(t);
}

static void test_wrap(void **state)
{
	struct topo *t = load(EPYC1);
	int wrapped = -1, *pus, *once;
	long counts[TOPO_NR_CLASSES];

	(void)state;
	for (const char **p = (const char *[]){ "compact", "scatter", "ccx", "numa", "smt", NULL }; *p; p++) {
		once = place(t, *p, 192, &wrapped);
		assert_int_equal(wrapped, 0);
		pus = place(t, *p, 200, &wrapped);
		assert_int_equal(wrapped, 1);
		assert_memory_equal(pus, once, sizeof(int) * 192);
		assert_memory_equal(pus + 192, once, sizeof(int) * 8);
		free(pus), free(once);
	}
	/* A list wraps over its own entries. */
	pus = place(t, "list:0,1", 4, &wrapped);
	assert_int_equal(wrapped, 1);
	assert_int_equal(pus[2], 0);
	assert_int_equal(pus[3], 1);
	assert_int_equal(topo_pair_counts(t, pus, 4, counts), 0);
	assert_int_equal(counts[TOPO_CLASS_SAME], 2);
	assert_int_equal(counts[TOPO_CLASS_SMT], 4);
	free(pus);
	/* Fewer threads than entries take the first ones, no wrap. */
	pus = place(t, "list:4-7", 2, &wrapped);
	assert_int_equal(wrapped, 0);
	assert_int_equal(pus[0], 4);
	assert_int_equal(pus[1], 5);
	free(pus);
	pus = place(t, "compact", 1, NULL);	/* wrapped may be NULL */
	assert_int_equal(pus[0], 0);
	free(pus);
	topo_free(t);
}

static void test_bad_policies(void **state)
{
	static const char *bad[] = { "list:5-2", "list:x", "list:", "list:1,", "list:,1", "list:1,,2",
				     "list:1-", "list:-1", "list:192", "list:0-192", "list:1 2",
				     "list:99999999999999999999", "list:3-x", "foo", "", "Compact",
				     "list", "scatter:2" };
	struct topo *t = load(EPYC1);
	int pus[4] = { -7, -7, -7, -7 };
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(topo_place(t, bad[i], 4, pus, NULL, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i]) || strchr(err, '\n') || strlen(err) < strlen(bad[i]) + 10)
			fail_msg("placement '%s': message '%s' does not name it on one line", bad[i], err);
	}
	assert_int_equal(pus[0], -7);	/* nothing written on error */
	assert_non_null(strstr((topo_place(t, "list:5-2", 1, pus, NULL, err, sizeof(err)), err), "backwards"));
	assert_non_null(strstr((topo_place(t, "list:192", 1, pus, NULL, err, sizeof(err)), err), "PU 192"));
	assert_int_equal(topo_place(t, "compact", 0, pus, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(topo_place(t, NULL, 1, pus, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(topo_place(t, "nope", 1, pus, NULL, NULL, 0), -EINVAL);
	topo_free(t);
}

static void test_classes(void **state)
{
	struct topo *t = load(NPS4);
	int pus[] = { 0, 1, 2, 16, 48, 192 }, *all;
	long counts[TOPO_NR_CLASSES], total = 0;

	(void)state;
	assert_int_equal(topo_class_of(t, 5, 5), TOPO_CLASS_SAME);
	assert_int_equal(topo_class_of(t, 0, 1), TOPO_CLASS_SMT);
	assert_int_equal(topo_class_of(t, 0, 2), TOPO_CLASS_CCX);
	assert_int_equal(topo_class_of(t, 0, 16), TOPO_CLASS_NUMA);
	assert_int_equal(topo_class_of(t, 0, 48), TOPO_CLASS_PACKAGE);
	assert_int_equal(topo_class_of(t, 0, 192), TOPO_CLASS_REMOTE);
	assert_int_equal(topo_class_of(t, 192, 0), TOPO_CLASS_REMOTE);
	assert_int_equal(topo_class_of(t, 0, 384), -EINVAL);
	assert_int_equal(topo_class_of(t, -1, 0), -EINVAL);

	/* pairs of {0,1,2,16,48,192}: smt {0,1}; ccx {0,2},{1,2}; numa 3 with 16;
	 * package 4 with 48; remote 5 with 192. */
	assert_int_equal(topo_pair_counts(t, pus, 6, counts), 0);
	assert_int_equal(counts[TOPO_CLASS_SAME], 0);
	assert_int_equal(counts[TOPO_CLASS_SMT], 1);
	assert_int_equal(counts[TOPO_CLASS_CCX], 2);
	assert_int_equal(counts[TOPO_CLASS_NUMA], 3);
	assert_int_equal(counts[TOPO_CLASS_PACKAGE], 4);
	assert_int_equal(counts[TOPO_CLASS_REMOTE], 5);
	pus[5] = 999;
	assert_int_equal(topo_pair_counts(t, pus, 6, counts), -EINVAL);

	/* Every PU of the machine: counts follow from the shape alone. */
	all = place(t, "smt", 384, NULL);
	assert_int_equal(topo_pair_counts(t, all, 384, counts), 0);
	for (int c = 0; c < TOPO_NR_CLASSES; c++)
		total += counts[c];
	assert_int_equal(total, 384L * 383 / 2);
	assert_int_equal(counts[TOPO_CLASS_SMT], 192);			/* one pair per core */
	assert_int_equal(counts[TOPO_CLASS_CCX], 24L * (16 * 15 / 2 - 8));	/* per L3, less its SMT pairs */
	assert_int_equal(counts[TOPO_CLASS_NUMA], 8L * 3 * 16 * 16);		/* per node, L3 pairs x 16 x 16 */
	assert_int_equal(counts[TOPO_CLASS_PACKAGE], 2L * 6 * 48 * 48);	/* per package, node pairs */
	assert_int_equal(counts[TOPO_CLASS_REMOTE], 192L * 192);
	free(all);

	assert_string_equal(topo_class_name(TOPO_CLASS_SAME), "same");
	assert_string_equal(topo_class_name(TOPO_CLASS_SMT), "smt");
	assert_string_equal(topo_class_name(TOPO_CLASS_CCX), "ccx");
	assert_string_equal(topo_class_name(TOPO_CLASS_NUMA), "numa");
	assert_string_equal(topo_class_name(TOPO_CLASS_PACKAGE), "package");
	assert_string_equal(topo_class_name(TOPO_CLASS_REMOTE), "remote");
	assert_string_equal(topo_class_name(TOPO_NR_CLASSES), "?");
	assert_string_equal(topo_class_name(-1), "?");
	topo_free(t);
}

static void test_format_list(void **state)
{
	int v[] = { 0, 1, 2, 5, 7, 8 };
	char buf[64], small[8];

	(void)state;
	assert_string_equal(topo_format_list(v, 6, buf, sizeof(buf)), "0-2,5,7-8");
	assert_string_equal(topo_format_list(v, 1, buf, sizeof(buf)), "0");
	assert_string_equal(topo_format_list(v, 0, buf, sizeof(buf)), "");
	assert_string_equal(topo_format_list(v, 6, small, sizeof(small)), "0-2,...");
}

static char *print_to_string(const struct topo *t, const int *pus, int n)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(f);
	if (pus)
		topo_print_placement(t, pus, n, f);
	else
		topo_print_tree(t, f);
	fclose(f);
	return s;
}

static void test_print(void **state)
{
	struct topo *t = load(NPS4);
	int *pus = place(t, "scatter", 8, NULL);
	char *s;

	(void)state;
	s = print_to_string(t, NULL, 0);
	assert_non_null(strstr(s, "2 packages, 8 NUMA nodes, 24 L3s, 192 cores, 384 PUs"));
	assert_non_null(strstr(s, "package #1\n"));
	assert_non_null(strstr(s, "  NUMA #1 (node 1): 1.0 GiB\n"));
	/* a hand-written spec keeps hwloc's numbering: CPU and L# agree */
	assert_non_null(strstr(s, "    L3 #3: cores 24-31, CPUs 48-63 (hwloc PU L#48-63)\n"));
	assert_non_null(strstr(s, "    L3 #23: cores 184-191, CPUs 368-383 (hwloc PU L#368-383)\n"));
	free(s);
	s = print_to_string(t, pus, 8);
	assert_non_null(strstr(s, "thread   CPU  L#PU  core    L3  NUMA package\n"));
	assert_non_null(strstr(s, "     1   192   192    96    12     4       1\n"));
	assert_non_null(strstr(s, "pairs (28): same 0, smt 0, ccx 0, numa 0, package 12, remote 16\n"));
	free(s);
	free(pus);
	topo_free(t);
}

struct bind_arg {
	const struct topo *t;
	int pu, ret, cpu;
};

static void *bind_thread(void *p)
{
	struct bind_arg *a = p;

	a->ret = topo_bind_self(a->t, a->pu);
	a->cpu = sched_getcpu();
	return NULL;
}

/* This machine loads, has PUs, and a thread binds to the last PU it offers. */
static void test_this_machine(void **state)
{
	struct topo *t = load(NULL);
	struct topo_pu_info in;
	struct bind_arg a = { .t = t };
	pthread_t th;
	int *pus;

	(void)state;
	assert_false(topo_is_synthetic(t));
	assert_string_equal(topo_spec(t), "this machine");
	assert_true(topo_nr_pus(t) >= 1);
	/* Restricted to the affinity mask, so never more PUs than the stub's count. */
	assert_true(topo_nr_pus(t) <= topo_nr_cpus());
	assert_int_equal(topo_pu_at(t, topo_nr_pus(t) - 1, &in), 0);
	assert_true(topo_numa_node_of_pu(t, in.pu) >= 0);
	pus = place(t, "scatter", topo_nr_pus(t) + 1, NULL);
	a.pu = pus[topo_nr_pus(t) - 1];
	free(pus);
	assert_int_equal(pthread_create(&th, NULL, bind_thread, &a), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(a.ret, 0);
	assert_int_equal(a.cpu, a.pu);
	assert_int_equal(topo_bind_self(t, 1 << 20), -EINVAL);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_synthetic),
		cmocka_unit_test(test_load_bad),
		cmocka_unit_test(test_load_too_big),
		cmocka_unit_test(test_load_xml),
		cmocka_unit_test(test_place_epyc1),
		cmocka_unit_test(test_place_nps4),
		cmocka_unit_test(test_place_genoa_scatter),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_bad_policies),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_format_list),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_this_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
