/* SPDX-License-Identifier: MIT */
/*
 * The harness end to end, in-process so ThreadSanitizer sees the gate, the
 * workers and the verification: every algorithm and baseline, every
 * workload (store's second stat verified too), more workers than CPUs, on a bushy tree.  Verification must
 * pass, the window must have counted operations and sampled latencies.
 */
#include "../testutil.h"
#include "../../bench/run.h"
#include "../../counters/percpu_tree.h"

static int read_stays_in_window(const char *name)
{
	static const char *const names[] = { "atomic_tree", "percpu_hier", "locked_tree",
					      "rstat_force" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

/* percpu_tree's largest carry in transit for cfg's shape and updaters (one slot each). */
static int64_t ptree_transit_max(const struct bench_config *cfg)
{
	struct ctr_tree *t = ctr_tree_new(ctr_algo_find("percpu_tree"), &(struct ctr_params){
		.nr_nodes = cfg->shape.nr_nodes, .parent = cfg->shape.parent,
		.nr_cpus = cfg->threads, .nr_stats = 1 });
	int64_t x;

	assert_non_null(t);
	x = ctr_percpu_tree_transit_max(t);
	ctr_tree_free(t);
	return x;
}

static void test_run_everything(void **state)
{
	struct bench_config cfg = { .threads = 5, .duration_ms = 40, .warmup_ms = 10, .placement = "compact" };
	const char *bad;
	char err[256];
	int pus[8];

	(void)state;
	cfg.topo = topo_load(NULL, err, sizeof(err));
	assert_non_null(cfg.topo);
	assert_int_equal(topo_place(cfg.topo, "compact", 8, pus, &cfg.wrapped, err, sizeof(err)), 0);
	cfg.pus = pus;
	assert_int_equal(pmu_events_parse("task-clock,cycles", &cfg.events, &cfg.nr_events, err, sizeof(err)), 0);
	pmu_init();
	bench_tsc_calibrate(&cfg.tsc);
	assert_true(cfg.tsc.ghz > 0);
	assert_int_equal(bench_shape_parse("tree:3x2", &cfg.shape, &bad), 0);
	for (int w = BENCH_UPDATE; w < BENCH_NR_WORKLOADS; w++) {
		cfg.workload = w;
		cfg.readers = w == BENCH_READERS ? 2 : 0;
		/*
		 * 7 threads on 2 CPUs, the updaters never sleeping: a 40 ms window gave a
		 * reader no time slice at all 2 times in 9 under a load of 13-27 (TSan); 40 ms
		 * gave locked_tree's latency phase no sample once with make test's two jobs.
		 */
		cfg.duration_ms = w == BENCH_READERS ? 150 : 100;
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
			if (bench_workload_charges(w) && !(ba->algo->flags & CTR_CHARGE_RACY) &&
			    ba->verify == BENCH_VERIFY_NODES)
				assert_true(r.limit_max_over <= 0);
			for (int k = 0; k < cfg.threads + cfg.readers; k++)
				assert_true(r.cpu_requested[k] >= 0);
			assert_int_equal(r.bind_failures, 0);
			/* task-clock counts here (perf or a fallback); cycles has a figure or a reason */
			assert_null(r.ev_why[0]);
			assert_true(r.ev_total[0] > 0);
			assert_true(r.ev_why[1] || r.ev_total[1] > 0);
			if (w == BENCH_READERS) {
				assert_true(r.reads > 0);
				assert_true(r.read_lat.samples == r.reads);
				/*
				 * Reads that sum per-slot values, or load one word, fall
				 * within what the node held; those that move units between
				 * a stock and a counter need not, and claim only rest
				 * (shared_atomic reads one word for every node: no window).
				 */
				if (read_stays_in_window(ba->name))
					assert_int_equal(r.read_err_max, 0);
				/*
				 * ctr_read_error_bound is a bound at rest (ctr.h).  Under
				 * updates batched_percpu and percpu_counter keep it;
				 * percpu_tree states it is larger by at most T + |delta|
				 * per update in progress (percpu_tree.h): the readers
				 * workload adds +-1, one update in progress per updater.
				 * Measured under load: 428 against 411 at rest (the old
				 * claim, 411 + 5, did not hold).
				 */
				if (r.error_bound > 0)
					assert_true(r.read_err_max <= r.error_bound +
						    (strcmp(ba->name, "percpu_tree") ? 0 :
						     cfg.threads * (ptree_transit_max(&cfg) + 1)));
				if (r.error_bound > 0)
					assert_true(r.read_error <= r.error_bound);
			}
			if (bench_workload_charges(w)) {
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
	free(cfg.events);
	topo_free(cfg.topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_everything),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
