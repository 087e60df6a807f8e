/* SPDX-License-Identifier: MIT */
/*
 * bench/noise.c: the /proc parser on fake trees (CTRBENCH_PROC_ROOT), the
 * shares over an interval, pooling over reps, and the cause a NOISY row names.
 */
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../testutil.h"
#include "../../bench/noise.h"

static char root[64];

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void drop(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	unlink(path);
}

static int setup(void **state)
{
	char self[96];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_noise.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(self, sizeof(self), "%s/self", root);
	mkdir(self, 0700);
	setenv("CTRBENCH_PROC_ROOT", root, 1);
	return 0;
}

static int teardown(void **state)
{
	char self[96];

	(void)state;
	drop("loadavg");
	drop("stat");
	drop("self/stat");
	snprintf(self, sizeof(self), "%s/self", root);
	rmdir(self);
	rmdir(root);
	unsetenv("CTRBENCH_PROC_ROOT");
	return 0;
}

/* user nice system idle iowait irq softirq steal guest guest_nice, then per-CPU lines */
#define STAT_A "cpu  100 10 50 1000 20 5 5 30 7 0\ncpu0 50 5 25 500 10 2 2 15 0 0\nintr 1 2 3\n"
#define STAT_B "cpu  300 10 90 1100 40 5 15 130 9 0\ncpu0 150 5 45 550 20 2 7 65 0 0\nintr 9 9 9\n"
/* comm holds a space and a ')': the fields count from the last ')' */
#define SELF_A "4242 (ctr bench) x) R 1 4242 4242 0 -1 4194304 100 0 0 0 40 20 0 0 20 0 3 0 99 1 1\n"
#define SELF_B "4242 (ctr bench) x) R 1 4242 4242 0 -1 4194304 100 0 0 0 90 30 0 0 20 0 3 0 99 1 1\n"

static void test_parse(void **state)
{
	struct bench_noise_sample s;

	(void)state;
	put("loadavg", "3.42 2.10 1.05 5/321 9999\n");
	put("stat", STAT_A);
	put("self/stat", SELF_A);
	bench_noise_sample(&s);
	assert_true(fabs(s.load1 - 3.42) < 1e-9);
	assert_true(s.have_stat);
	/* busy = user + nice + system + irq + softirq; total adds idle, iowait, steal, not guest */
	assert_int_equal(s.busy, 100 + 10 + 50 + 5 + 5);
	assert_int_equal(s.total, 170 + 1000 + 20 + 30);
	assert_int_equal(s.steal, 30);
	assert_int_equal(s.iowait, 20);
	assert_true(s.have_self);
	assert_int_equal(s.self, 40 + 20);
	assert_true(s.t > 0);
}

static void test_interval(void **state)
{
	struct bench_noise_sample a, b;
	struct bench_host h;

	(void)state;
	put("loadavg", "1.50 1.00 1.00 1/100 1\n");
	put("stat", STAT_A);
	put("self/stat", SELF_A);
	bench_noise_sample(&a);
	put("loadavg", "2.25 1.00 1.00 1/100 1\n");
	put("stat", STAT_B);
	put("self/stat", SELF_B);
	bench_noise_sample(&b);
	bench_noise_interval(&a, &b, &h);
	/* totals 1220 -> 1690: 470 jiffies; busy 170 -> 420: 250, of which ours 60 -> 120: 60 */
	assert_true(fabs(h.load1_start - 1.5) < 1e-9);
	assert_true(fabs(h.load1_end - 2.25) < 1e-9);
	assert_true(h.seconds >= 0);
	assert_true(fabs(h.steal - 100.0 / 470) < 1e-9);
	assert_true(fabs(h.iowait - 20.0 / 470) < 1e-9);
	assert_true(fabs(h.others - 190.0 / 470) < 1e-9);
	/* the same file twice: no jiffy went by, no share, the loads still known */
	bench_noise_interval(&b, &b, &h);
	assert_true(isnan(h.steal) && isnan(h.iowait) && isnan(h.others));
	assert_true(fabs(h.load1_end - 2.25) < 1e-9);
}

static void test_unreadable(void **state)
{
	struct bench_noise_sample a, b;
	struct bench_host h;

	(void)state;
	drop("loadavg");
	drop("self/stat");
	/* a line without steal (before Linux 2.6.11) is not read */
	put("stat", "cpu  1 2 3 4 5 6 7\n");
	bench_noise_sample(&a);
	assert_true(isnan(a.load1));
	assert_false(a.have_stat);
	assert_false(a.have_self);
	put("loadavg", "garbage\n");
	put("self/stat", "no parenthesis here\n");
	drop("stat");
	bench_noise_sample(&b);
	assert_true(isnan(b.load1));
	assert_false(b.have_stat || b.have_self);
	bench_noise_interval(&a, &b, &h);
	assert_true(isnan(h.load1_start) && isnan(h.load1_end) && isnan(h.steal) && isnan(h.others));
	assert_true(h.seconds >= 0);
	/* stat but no self: steal known, others not */
	put("stat", STAT_A);
	bench_noise_sample(&a);
	put("stat", STAT_B);
	bench_noise_sample(&b);
	bench_noise_interval(&a, &b, &h);
	assert_true(h.steal > 0 && isnan(h.others));
}

static void test_pool(void **state)
{
	struct bench_host acc = { 1.0, 2.0, 1.0, 0.10, 0.0, NAN };
	struct bench_host r2 = { 2.0, 3.0, 3.0, 0.30, 0.2, 0.4 };
	struct bench_host r3;

	(void)state;
	bench_noise_pool(&acc, &r2);
	assert_true(fabs(acc.load1_start - 1.0) < 1e-9);	/* the first rep's start */
	assert_true(fabs(acc.load1_end - 3.0) < 1e-9);		/* the last rep's end */
	assert_true(fabs(acc.seconds - 4.0) < 1e-9);
	assert_true(fabs(acc.steal - (0.10 * 1 + 0.30 * 3) / 4) < 1e-9);
	assert_true(fabs(acc.iowait - 0.15) < 1e-9);
	assert_true(fabs(acc.others - 0.4) < 1e-9);		/* the one rep that has it */
	bench_noise_clear(&r3);
	bench_noise_pool(&acc, &r3);				/* an unknown rep changes nothing */
	assert_true(fabs(acc.steal - 0.25) < 1e-9 && fabs(acc.load1_end - 3.0) < 1e-9);
}

static void test_cause(void **state)
{
	struct bench_host h = { 0.2, 0.3, 1.0, 0.12, 0.01, 0.02 };
	char buf[128];

	(void)state;
	assert_string_equal(bench_noise_cause(&h, 2, 1, buf, sizeof(buf)),
			    "steal 12% (the hypervisor ran other guests)");
	/* more threads than CPUs comes first: the configuration itself */
	assert_string_equal(bench_noise_cause(&h, 2, 4, buf, sizeof(buf)),
			    "more threads (4) than CPUs (2): they preempt each other");
	h = (struct bench_host){ 3.4, 2.9, 1.0, 0.0, 0.0, 0.45 };
	assert_string_equal(bench_noise_cause(&h, 2, 2, buf, sizeof(buf)),
			    "load 3.4 on 2 CPUs: other processes used 45% of the CPU");
	h.load1_start = h.load1_end = NAN;
	assert_string_equal(bench_noise_cause(&h, 2, 2, buf, sizeof(buf)),
			    "other processes used 45% of the CPU");
	h = (struct bench_host){ 5.0, 5.0, 1.0, NAN, NAN, NAN };
	assert_string_equal(bench_noise_cause(&h, 1, 1, buf, sizeof(buf)),
			    "load 5.0 on 1 CPU (other processes' share unknown)");
	h = (struct bench_host){ 0.1, 0.1, 1.0, 0.0, 0.25, 0.0 };
	assert_string_equal(bench_noise_cause(&h, 2, 1, buf, sizeof(buf)),
			    "iowait 25% (the host was paging or waiting on disk)");
	h = (struct bench_host){ 0.1, 0.1, 1.0, 0.01, 0.0, 0.03 };
	assert_string_equal(bench_noise_cause(&h, 2, 1, buf, sizeof(buf)),
			    "none found on this host (run-to-run variance)");
	bench_noise_clear(&h);
	assert_string_equal(bench_noise_cause(&h, 2, 1, buf, sizeof(buf)),
			    "unknown: the host's state could not be read");
	/* a short buffer is cut, never overrun */
	assert_int_equal(strlen(bench_noise_cause(&h, 2, 1, buf, 8)), 7);
}

static void test_threshold(void **state)
{
	(void)state;
	unsetenv("CTRBENCH_NOISY_CV");
	assert_true(fabs(bench_noisy_cv() - 0.10) < 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_cause),
		cmocka_unit_test(test_threshold),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
