/* SPDX-License-Identifier: MIT */
/*
 * The harness end to end, in-process so ThreadSanitizer sees the gate, the
 * workers and the verification: every algorithm and baseline, both
 * workloads, more workers than CPUs, on a bushy tree.  Verification must
 * pass, the window must have counted operations and sampled latencies.
 */
#include "testutil.h"
#include "../bench/run.h"

static void test_run_everything(void **state)
{
	struct bench_config cfg = { .threads = 5, .duration_ms = 40, .warmup_ms = 10 };
	const char *bad;

	(void)state;
	pmu_init();
	bench_tsc_calibrate(&cfg.tsc);
	assert_true(cfg.tsc.ghz > 0);
	assert_int_equal(bench_shape_parse("tree:3x2", &cfg.shape, &bad), 0);
	for (int w = BENCH_UPDATE; w < BENCH_NR_WORKLOADS; w++) {
		cfg.workload = w;
		cfg.readers = w == BENCH_READERS ? 2 : 0;
		cfg.read_node = BENCH_READ_RANDOM;
		for (int i = 0; i < bench_nr_algos; i++) {
			const struct bench_algo *ba = &bench_algos[i];
			struct bench_result r;

			assert_int_equal(bench_run_one(&cfg, ba, &r), 0);
			printf("# workload %d %s: %llu ops, %llu samples, verify %d, p50 %.1f ns, %llu reads,"
			       " read error max %lld\n", w, ba->name, (unsigned long long)r.ops,
			       (unsigned long long)r.lat.samples, r.verify, r.lat.p50,
			       (unsigned long long)r.reads, (long long)r.read_err_max);
			assert_int_equal(r.verify, ba->verify == BENCH_VERIFY_NONE ? -1 : 1);
			assert_true(r.ops > 0);
			assert_true(r.lat.samples > 0);
			assert_true(r.lat.p50 <= r.lat.p99 && r.lat.p99 <= r.lat.max);
			assert_true(r.task_clock_ns > 0);
			if (w == BENCH_CHARGE && !(ba->algo->flags & CTR_CHARGE_RACY) &&
			    ba->verify == BENCH_VERIFY_NODES)
				assert_true(r.limit_max_over <= 0);
			for (int k = 0; k < cfg.threads + cfg.readers; k++)
				assert_true(r.cpu_requested[k] >= 0);
			if (w == BENCH_READERS) {
				assert_true(r.reads > 0);
				assert_true(r.read_lat.samples == r.reads);
				/* Exact algorithms' reads always fall within what the node held. */
				if (ba->verify == BENCH_VERIFY_NODES && r.error_bound == 0)
					assert_int_equal(r.read_err_max, 0);
				if (r.error_bound > 0)
					assert_true(r.read_err_max <= r.error_bound);
			}
			if (w == BENCH_CHARGE) {
				assert_true(r.audited > 0);
				assert_true(r.audit_rejected <= r.audited && r.false_rejects <= r.audit_rejected);
			}
			assert_int_equal(r.has_flush, ba->algo->flush_stats != NULL);
			if (r.has_flush && w != BENCH_UPDATE && strcmp(ba->name, "rstat_ratelimit"))
				assert_true(r.flush.flushes > 0);
			bench_result_free(&r);
		}
	}
	bench_shape_free(&cfg.shape);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_everything),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
