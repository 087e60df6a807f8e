/* SPDX-License-Identifier: MIT */
/* Parameter validation and the registry, for every algorithm. */
#include <errno.h>

#include "../testutil.h"

static void expect_errno(const struct ctr_algo *a, const struct ctr_params *p, const char *why, int want)
{
	struct ctr_tree *t;

	errno = 0;
	t = ctr_tree_new(a, p);
	if (t || errno != want)
		fail_msg("%s: %s: got %p errno %d, want NULL/%d", ctr_algo_name(a), why,
			 (void *)t, errno, want);
	ctr_tree_free(t);
}

static void expect_einval(const struct ctr_algo *a, const struct ctr_params *p, const char *why)
{
	expect_errno(a, p, why, EINVAL);
}

static void test_registry(void **state)
{
	(void)state;
	assert_true(ctr_algo_count() >= 3);
	assert_null(ctr_algo_at(-1));
	assert_null(ctr_algo_at(ctr_algo_count()));
	assert_null(ctr_algo_find("no_such_algo"));
	assert_null(ctr_algo_find(NULL));
	for (int i = 0; i < ctr_algo_count(); i++) {
		const struct ctr_algo *a = ctr_algo_at(i);
		const char *sum = ctr_algo_summary(a);

		assert_non_null(a);
		assert_ptr_equal(ctr_algo_find(ctr_algo_name(a)), a);
		assert_non_null(sum);
		assert_true(strlen(sum) > 10);
		assert_null(strchr(sum, '\n'));
		for (int j = 0; j < i; j++)
			assert_string_not_equal(ctr_algo_name(ctr_algo_at(j)), ctr_algo_name(a));
	}
	for (const char *n = "atomic_tree\0percpu_hier\0locked_tree\0"; *n; n += strlen(n) + 1)
		assert_non_null(ctr_algo_find(n));
}

/*
 * recommend ranks an algorithm for a staleness bound only from what the
 * registry says: every algorithm whose read is bounded by time (error bound
 * -1), with any of its read options, states the bound through
 * ctr_read_staleness_ms(), so a new one is ranked with no harness edit.
 */
static void test_staleness(void **state)
{
	static const char *const opts[] = { NULL, "read=spin", "read=mutex", "read=sem", "read=batch",
					    "fence=none" };
	char why[160];

	(void)state;
	for (int i = 0; i < ctr_algo_count(); i++) {
		for (size_t o = 0; o < sizeof(opts) / sizeof(opts[0]); o++) {
			struct ctr_params p = { .nr_nodes = 3, .nr_cpus = 2, .options = opts[o],
						.flush_period_ms = 500 };
			struct ctr_tree *t = ctr_tree_new(ctr_algo_at(i), &p);
			double ms;

			if (!t) {
				p.flush_period_ms = 0;	/* no flusher, or not this option */
				t = ctr_tree_new(ctr_algo_at(i), &p);
			}
			if (!t)
				continue;
			ms = ctr_read_staleness_ms(t, 3.5, why, sizeof(why));
			assert_true(strlen(why) > 5);
			if (ctr_read_error_bound(t) >= 0)
				assert_true(ms == 0);
			else
				assert_true(ms > 0 || ms == CTR_STALE_UNBOUNDED);
			/* one flush needs a measured flush: without one it is unknown, not guessed */
			if (ms == 3.5)
				assert_true(ctr_read_staleness_ms(t, -1, NULL, 0) == CTR_STALE_UNKNOWN);
			ctr_tree_free(t);
		}
	}
	{
		struct ctr_params p = { .nr_nodes = 1, .nr_cpus = 1, .flush_period_ms = 500 };
		struct ctr_tree *t = ctr_tree_new(ctr_algo_find("rstat_ratelimit"), &p);

		assert_non_null(t);
		assert_true(ctr_read_staleness_ms(t, -1, why, sizeof(why)) == 1000);	/* 2 periods */
		ctr_tree_free(t);
		p.options = "fence=none";
		t = ctr_tree_new(ctr_algo_find("rstat_force"), &p);
		assert_non_null(t);
		assert_true(ctr_read_staleness_ms(t, 1, why, sizeof(why)) == CTR_STALE_UNBOUNDED);
		ctr_tree_free(t);
	}
}

static void test_bad_params(void **state)
{
	const struct ctr_algo *a;
	const int bad_root[] = { 0, 0, 1 };
	const int forward[] = { -1, 2, 0 };
	const int self[] = { -1, 1, 1 };
	const int below[] = { -1, 0, -2 };

	(void)state;
	expect_einval(ctr_algo_at(0), NULL, "NULL params");
	expect_einval(NULL, &(struct ctr_params){ .nr_nodes = 1 }, "NULL algorithm");
	TU_FOR_EACH_ALGO(a) {
		expect_einval(a, &(struct ctr_params){ .nr_nodes = 0 }, "nr_nodes 0");
		expect_einval(a, &(struct ctr_params){ .nr_nodes = -3 }, "nr_nodes -3");
		expect_einval(a, &(struct ctr_params){ .nr_nodes = 3, .parent = bad_root }, "root with a parent");
		expect_einval(a, &(struct ctr_params){ .nr_nodes = 3, .parent = forward }, "parent after child");
		expect_einval(a, &(struct ctr_params){ .nr_nodes = 3, .parent = self }, "own parent");
		expect_einval(a, &(struct ctr_params){ .nr_nodes = 3, .parent = below }, "parent -2");
		expect_einval(a, &(struct ctr_params){ .nr_nodes = 1, .nr_cpus = -1 }, "nr_cpus -1");
		expect_einval(a, &(struct ctr_params){ .nr_nodes = 1, .nr_stats = -1 }, "nr_stats -1");
		expect_einval(a, &(struct ctr_params){ .nr_nodes = 1, .batch = -1 }, "batch -1");
		expect_einval(a, &(struct ctr_params){ .nr_nodes = 1, .flush_period_ms = -1 }, "period -1");
		/* a key the algorithm does not take is ENOENT, a malformed string EINVAL */
		expect_errno(a, &(struct ctr_params){ .nr_nodes = 1, .options = "no_such_key=1" }, "unknown option",
			     ENOENT);
		expect_einval(a, &(struct ctr_params){ .nr_nodes = 1, .options = ",," }, "empty items");
		expect_einval(a, &(struct ctr_params){ .nr_nodes = 1, .options = "x=1,x=2" }, "key twice");
		expect_einval(a, &(struct ctr_params){ .nr_nodes = 1, .options = "novalue" }, "option without =");
		expect_einval(a, &(struct ctr_params){ .nr_nodes = 1, .options = "=1" }, "option without key");
		/* Sizes no machine can hold fail cleanly with ENOMEM, never wrap into a small allocation. */
		errno = 0;
		assert_null(ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = INT32_MAX, .nr_cpus = INT32_MAX,
								   .nr_stats = INT32_MAX }));
		assert_int_equal(errno, ENOMEM);
	}
}

/*
 * rstat's options=read=..., lockkind=..., prune=..., lockbreak=... and cpulock=...: the
 * values are taken, anything else is EINVAL.
 */
static void test_rstat_read_option(void **state)
{
	static const char *const rstat[] = { "rstat_force", "rstat_ratelimit", "rstat_threshold",
					     "rstat_unified" };
	static const char *const good[] = { "read=spin", "read=mutex", "read=sem", "read=batch",
					    "read=batch,fence=none", "fence=update,read=sem",
					    "fence=membarrier,read=mutex", "lockkind=spin", "lockkind=mutex",
					    "lockkind=qspin",
					    "lockkind=mutex,read=batch,fence=update", "update=memcg",
					    "threshold=global", "update=memcg,threshold=memcg",
					    "threshold=global,update=memcg,lockkind=mutex", "prune=period",
					    "prune=flush", "prune=flush,fence=update", "fence=none,prune=flush",
					    "lockbreak=on", "lockbreak=off",
					    "lockbreak=off,prune=flush,lockkind=qspin,read=batch",
					    "cpulock=linked", "cpulock=always",
					    "cpulock=always,prune=flush,lockbreak=off,fence=update" };
	static const char *const bad[] = { "read=sometimes", "read=", "read=BATCH", "read=batch,read=x",
					   "read=spin,fence=sometimes", "read", "lockkind=ticket",
					   "lockkind=", "lockkind=spin,lockkind=mutex", "update=sometimes",
					   "threshold=percpu", "update=", "prune=sometimes", "prune=",
					   "prune=FLUSH", "prune=flush,prune=period", "lockbreak=maybe",
					   "lockbreak=", "lockbreak=1", "lockbreak=on,lockbreak=off", "cpulock=",
					   "cpulock=sometimes", "cpulock=always,cpulock=linked" };

	(void)state;
	for (size_t k = 0; k < sizeof(rstat) / sizeof(rstat[0]); k++) {
		const struct ctr_algo *a = ctr_algo_find(rstat[k]);

		assert_non_null(a);
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			expect_einval(a, &(struct ctr_params){ .nr_nodes = 2, .nr_cpus = 2, .options = bad[i] },
				      bad[i]);
		for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
			struct ctr_tree *t = ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = 2, .nr_cpus = 2,
										   .options = good[i] });

			if (!t)
				fail_msg("%s: options %s refused (errno %d)", rstat[k], good[i], errno);
			ctr_add(t, 1, 1, 0, -4);
			assert_int_equal(ctr_read_exact(t, 0, 0), -4);
			ctr_tree_free(t);
		}
	}
	/* update=plain: taken where the policy does not read the counts, refused where it does */
	for (size_t k = 0; k < sizeof(rstat) / sizeof(rstat[0]); k++) {
		const struct ctr_params p = { .nr_nodes = 2, .nr_cpus = 2, .options = "update=plain" };
		struct ctr_tree *t;

		if (!strcmp(rstat[k], "rstat_threshold")) {
			expect_einval(ctr_algo_find(rstat[k]), &p, "update=plain on rstat_threshold");
			continue;
		}
		t = ctr_tree_new(ctr_algo_find(rstat[k]), &p);
		assert_non_null(t);
		ctr_tree_free(t);
	}
	/* Not an option of the algorithms that do not flush. */
	expect_errno(ctr_algo_find("atomic_tree"), &(struct ctr_params){ .nr_nodes = 1, .options = "read=batch" },
		     "read= on atomic_tree", ENOENT);
}

/* ctr_options_check says which item is wrong, and how. */
static void test_options_check(void **state)
{
	static const struct { const char *opts; int ret; const char *says; } cases[] = {
		{ "fence=update,read=mutex", 0, "" },
		{ "fence=none,fence=update", -EINVAL, "key 'fence' given twice" },
		{ ",,", -EINVAL, "an empty item in ',,'" },
		{ "read=spin,", -EINVAL, "an empty item" },
		{ "fence", -EINVAL, "'fence' is not key=value" },
		{ "=1", -EINVAL, "'=1' is not key=value" },
		{ "fence=maybe", -EINVAL, "'maybe' is not a value rstat_force takes for fence" },
		{ "read=spin,bogus=1", -ENOENT, "key 'bogus' is not one rstat_force takes" },
		{ "lockkind=sleepy", -EINVAL, "'sleepy' is not a value rstat_force takes for lockkind" },
		{ "prune=flush,lockbreak=off", 0, "" },
		{ "prune=often", -EINVAL, "'often' is not a value rstat_force takes for prune" },
		{ "lockbreak=yes", -EINVAL, "'yes' is not a value rstat_force takes for lockbreak" },
		{ "cpulock=never", -EINVAL, "'never' is not a value rstat_force takes for cpulock" },
	};
	const struct ctr_algo *a = ctr_algo_find("rstat_force");
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		err[0] = 0;
		ret = ctr_options_check(a, cases[i].opts, err, sizeof(err));
		if (ret != cases[i].ret || !strstr(err, cases[i].says))
			fail_msg("'%s': %d '%s', want %d '%s'", cases[i].opts, ret, err, cases[i].ret,
				 cases[i].says);
	}
	assert_int_equal(ctr_options_check(ctr_algo_find("atomic_tree"), "read=spin", err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "key 'read' is not one atomic_tree takes"));
}

/* Zero means default: one stat, one slot per configured CPU; and a chain when parent is NULL. */
static void test_defaults(void **state)
{
	const struct ctr_algo *a;

	(void)state;
	TU_FOR_EACH_ALGO(a) {
		struct ctr_tree *t = ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = 4 });

		assert_non_null(t);
		assert_true(t->nr_cpus >= 1);
		assert_int_equal(t->nr_stats, 1);
		assert_int_equal(t->max_depth, 4);
		ctr_add(t, t->nr_cpus - 1, 3, 0, 5);
		ctr_add(t, 0, 1, 0, -2);
		assert_int_equal(ctr_read_exact(t, 0, 0), 3);
		assert_int_equal(ctr_read_exact(t, 1, 0), 3);
		assert_int_equal(ctr_read_exact(t, 2, 0), 5);
		assert_int_equal(ctr_read_exact(t, 3, 0), 5);
		/*
		 * Where an exact read flushes (rstat), the algorithm's read is now
		 * exact; where it only sums (batched_percpu, percpu_counter), the
		 * read may still lag, within the stated bound.
		 */
		if (ctr_read(t, 3, 0) != 5) {
			int64_t bound = ctr_read_error_bound(t), r = ctr_read(t, 3, 0);

			if (bound <= 0 || r - 5 > bound || 5 - r > bound)
				fail_msg("%s: read %lld, exact 5, bound %lld", ctr_algo_name(a),
					 (long long)r, (long long)bound);
		}
		/* No limits: every charge is admitted. */
		assert_int_equal(ctr_try_charge(t, 0, 3, INT64_MAX / 4), 1);
		assert_int_equal(ctr_read_exact(t, 0, 0), 3 + INT64_MAX / 4);
		ctr_tree_free(t);
	}
	ctr_tree_free(NULL);
}

/* The parent and limit arrays are copied: the caller may free them at once. */
static void test_params_copied(void **state)
{
	const struct ctr_algo *a;

	(void)state;
	TU_FOR_EACH_ALGO(a) {
		int *parent = malloc(3 * sizeof(int));
		int stale, fresh;
		int64_t *limit = malloc(3 * sizeof(int64_t));
		struct ctr_tree *t;

		parent[0] = -1, parent[1] = 0, parent[2] = 0;
		limit[0] = 10, limit[1] = CTR_NO_LIMIT, limit[2] = 4;
		t = ctr_tree_new(a, &(struct ctr_params){ .nr_nodes = 3, .parent = parent,
							   .nr_cpus = 2, .limit = limit });
		assert_non_null(t);
		stale = ctr_read_error_bound(t) != 0;
		memset(parent, 0x7f, 3 * sizeof(int));
		memset(limit, 0, 3 * sizeof(int64_t));
		free(parent);
		free(limit);
		assert_int_equal(ctr_try_charge(t, 0, 2, 4), 1);
		/*
		 * Reads that may be stale are brought up to date first: this tests
		 * the copies.  Where an exact read does not refresh the algorithm's
		 * read (batched_percpu, percpu_counter sum without folding), that
		 * read may lag by its bound, so only the charges that fit whatever
		 * the lag are checked; the exact values below still test the shape.
		 */
		if (stale)
			ctr_read_exact(t, 0, 0);
		fresh = 1;
		for (int n = 0; n < 3; n++)
			fresh &= ctr_read(t, n, 0) == ctr_read_exact(t, n, 0);
		if (fresh)
			assert_int_equal(ctr_try_charge(t, 1, 2, 1), 0);	/* node 2 is full */
		assert_int_equal(ctr_try_charge(t, 1, 1, 6), 1);	/* root: 10 */
		if (stale)
			ctr_read_exact(t, 0, 0);
		if (fresh)
			assert_int_equal(ctr_try_charge(t, 0, 1, 1), 0);	/* root is full */
		assert_int_equal(ctr_read_exact(t, 0, 0), 10);
		assert_int_equal(ctr_read_exact(t, 1, 0), 6);
		assert_int_equal(ctr_read_exact(t, 2, 0), 4);
		ctr_tree_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_staleness),
		cmocka_unit_test(test_bad_params),
		cmocka_unit_test(test_rstat_read_option),
		cmocka_unit_test(test_options_check),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_params_copied),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
