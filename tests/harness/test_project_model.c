/* SPDX-License-Identifier: MIT */
/*
 * Known answers of the projection's model (project/sim.c) on one contended
 * line, N = 2, 4, 8, 16 threads, compact on 2 x 12 L3s of 8 cores (issue 27):
 * a line serves one access at a time, so N threads issuing back to back on it
 * take at least N x its busy time per op each, whatever the model's other
 * rules; the model's own patterns ("=false-shared": stores, no burst) and a
 * shared atomic (atomic_tree chain:1: RMWs, an owner keeping the line for
 * `burst` of them).  The CLI's side of it: tests/cli_project_model.sh.
 */
#include "../testutil.h"
#include "../../bench/workload.h"
#include "../../project/proj.h"
#include "../../topology/topo.h"

#define OPS 200

static const char *const genoa = "pack:2 [numa] l3:12 core:8 pu:1";

/* One projection of algo on chain:1, n threads compact on the 2 x 12-L3 layout, the default calibration. */
static void project_line(const char *algo, int n, const struct proj_calib *cal, struct proj_result *r)
{
	static const int parent[1] = { -1 }, leaves[1] = { 0 };
	char err[512];
	struct topo *t = topo_load(genoa, err, sizeof(err));
	int pus[16];
	struct proj_config pc = {
		.algo = algo, .workload = BENCH_UPDATE, .nr_nodes = 1, .parent = parent, .nr_leaves = 1,
		.leaves = leaves, .depth = 1, .threads = n, .pus = pus, .read_node = 0, .ops = OPS,
		.warmup_ops = OPS / 10, .calib = cal, .seed = 1, .jitter = 1,
	};

	assert_non_null(t);
	assert_true(n <= 16);
	assert_int_equal(topo_place(t, "compact", n, pus, NULL, err, sizeof(err)), 0);
	pc.topo = t;
	memset(r, 0, sizeof(*r));
	if (proj_run(&pc, r, err, sizeof(err)))
		fail_msg("%s, %d threads: %s", algo, n, err);
	topo_free(t);
	assert_int_equal(r->ops, (long)n * OPS);
}

/*
 * The line's busy time per op: the transfers that brought it (by class, at
 * the calibration's cost), and on the ops that found it already held a hit
 * (an RMW hit for RMWs: the model's rule for a burst of B is then
 * (transfer + (B - 1) x RMW hit) / B per op).
 */
static double busy_per_op(const struct proj_result *r, const struct proj_calib *cal, int rmw, double *xfer)
{
	double x = 0, ns = 0;

	for (int k = 0; k < PROJ_NR_CLASSES; k++) {
		x += r->xfer[k] / (double)r->ops;
		ns += r->xfer[k] / (double)r->ops * cal->ns[k];
	}
	*xfer = x;
	return ns + (x < 1 ? 1 - x : 0) * (rmw ? cal->hit_rmw_ns : cal->hit_ns);
}

/*
 * Each N: the window at least all ops x busy (less 2%, its edges); ns/op (the band's lower edge)
 * >= N x busy, less 3% and, with a burst, burst / ops more (a thread left alone at the end runs
 * about its last burst uncontended); RMWs: at most 1/burst transfers per op (an owner keeps the
 * line for a burst before a queued request takes it); stores: one per op, as --validate's known
 * answer says; the total flat or falling.
 */
static void check_line(const char *algo, int rmw)
{
	struct proj_calib cal;
	double last = 0;

	proj_calib_default(&cal);
	/* =false-shared puts thread i's word 8 bytes on from thread i-1's: 8 threads fill its one line */
	for (int n = 2; n <= (rmw ? 16 : 8); n *= 2) {
		struct proj_result r;
		double x, busy, lo, total, tol = 0.03 + (rmw ? cal.burst / OPS : 0);

		project_line(algo, n, &cal, &r);
		busy = busy_per_op(&r, &cal, rmw, &x);
		lo = r.ns_overlap / (double)r.ops;
		total = n / lo;
		print_message("# %s N=%d: %.3f transfers/op, ns/op %.1f..%.1f, N x busy %.1f, %.1f M ops/s\n", algo, n, x,
			      lo, r.ns_serial / (double)r.ops, n * busy, total * 1e3);
		if (r.elapsed_ns < 0.98 * (double)r.ops * busy)
			fail_msg("%s N=%d: window %.0f ns shorter than its ops x the line's busy time %.0f", algo, n,
				 r.elapsed_ns, (double)r.ops * busy);
		if (lo < (1 - tol) * n * busy)
			fail_msg("%s N=%d: ns/op %.1f below N x the line's busy time %.1f", algo, n, lo, n * busy);
		if (rmw && (x <= 0 || x > 1.1 / cal.burst))
			fail_msg("%s N=%d: %.3f transfers per op, not in (0, 1/burst] (burst %g)", algo, n, x, cal.burst);
		if (!rmw && x < 0.98)
			fail_msg("%s N=%d: stores moved the line on %.3f of the ops, not every one", algo, n, x);
		if (last > 0 && total > 1.05 * last)
			fail_msg("%s: the total rises to N=%d: %.1f to %.1f M ops/s", algo, n, last * 1e3, total * 1e3);
		last = total;
	}
}

static void test_false_shared_serialises(void **state)
{
	(void)state;
	check_line("=false-shared", 0);
}

static void test_shared_atomic_serialises(void **state)
{
	(void)state;
	check_line("atomic_tree", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_false_shared_serialises),
		cmocka_unit_test(test_shared_atomic_serialises),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
