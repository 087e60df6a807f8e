/* SPDX-License-Identifier: MIT */
/*
 * rstat_force's read cost per prune mode (issue 28.3), on this thread's CPU
 * clock: each of S slots updates the deepest node of chain:D once, then R
 * reads of the root are timed ("dirty once": the case), beside R
 * reads of a tree nobody updated ("clean") and R reads each after one
 * update on one slot ("steady": what a read costs when something changed
 * since the last one), and the same with another thread of the process
 * spinning on the other CPU ("steady+spin": a membarrier() then has a CPU
 * to interrupt, as it has while updaters run; a single-threaded process's
 * costs next to nothing).  The spinner does not update: an updater whose
 * link blocks on its CPU's mutex sleeps, and on this loaded 2-vCPU guest its
 * wake-up took milliseconds, so most reads found nothing to unlink.  Last,
 * what one membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) costs with such a
 * spinner: the price prune=flush adds to a read that unlinked something.  The modes alternate within every round, in one
 * process; medians and ranges over the rounds.  Not built by make: a probe
 * for the figures of docs/algorithms.md, built against libctr.a:
 *
 *   cc -O2 -Wall -Wextra -o build/rstat_read_cost bench/probes/rstat_read_cost.c build/libctr.a -pthread -lm
 *   build/rstat_read_cost [rounds=7] [slots=1024] [depth=8] [reads=200]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

#include "../../counters/rstat.h"

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Pin the calling thread to CPU cpu (mod the CPUs online), so the reader and the updater each have one. */
static void pin(int cpu)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&set);
	CPU_SET(cpu % (n > 0 ? (int)n : 1), &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

enum { CASE_DIRTY, CASE_CLEAN, CASE_STEADY, CASE_BUSY, NR_CASES };
static const char *const case_names[NR_CASES] = { "dirty once", "clean", "steady", "steady+spin" };

struct busy {
	_Atomic int stop;	/* set by the reader when done */
	_Atomic int started;	/* set by the spinner once running */
};

static void *busy_spin(void *arg)
{
	struct busy *b = arg;

	pin(1);
	atomic_store(&b->started, 1);
	while (!atomic_load_explicit(&b->stop, memory_order_relaxed))
		;
	return NULL;
}
static const char *const modes[] = { "prune=period", "prune=flush" };
#define NR_MODES 2

/*
 * ns per root read of one case, one mode; per read, the pairs folded in
 * *folded and the membarrier() calls in *barriers.
 */
static double measure(const char *opts, int c, int slots, int depth, int reads, double *folded,
		      double *barriers)
{
	struct ctr_tree *t = ctr_tree_new(ctr_algo_find("rstat_force"), &(struct ctr_params){
		.nr_nodes = depth, .nr_cpus = slots, .options = opts });
	struct ctr_rstat *r;
	volatile int64_t sink = 0;
	struct busy b = { 0 };
	pthread_t tid;
	uint64_t f0, b0;
	double t0, t1;

	if (!t) {
		fprintf(stderr, "rstat_read_cost: options '%s' refused\n", opts);
		exit(2);
	}
	r = ctr_rstat_of(t);
	if (c == CASE_DIRTY) {
		for (int s = 0; s < slots; s++)
			ctr_add(t, s, depth - 1, 0, 1);
		sink += ctr_read(t, 0, 0);	/* the first read folds them all, either mode */
	}
	if (c == CASE_BUSY) {
		if (pthread_create(&tid, NULL, busy_spin, &b)) {
			fprintf(stderr, "rstat_read_cost: no spinner thread\n");
			exit(2);
		}
		while (!atomic_load(&b.started))
			;
	}
	f0 = r->folded;
	b0 = r->barriers;
	t0 = cpu_ns();
	for (int i = 0; i < reads; i++) {
		if (c == CASE_STEADY || c == CASE_BUSY)
			ctr_add(t, i % slots, depth - 1, 0, 1);
		sink += ctr_read(t, 0, 0);
	}
	t1 = cpu_ns();
	*folded = (double)(r->folded - f0) / reads;
	*barriers = (double)(r->barriers - b0) / reads;
	if (c == CASE_BUSY) {
		atomic_store(&b.stop, 1);
		pthread_join(tid, NULL);
	}
	if (r->fence != CTR_RSTAT_FENCE_MEMBARRIER)
		fprintf(stderr, "rstat_read_cost: membarrier refused, fence=update measured\n");
	ctr_tree_free(t);
	(void)sink;
	return (t1 - t0) / reads;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 7, slots = argc > 2 ? atoi(argv[2]) : 1024;
	int depth = argc > 3 ? atoi(argv[3]) : 8, reads = argc > 4 ? atoi(argv[4]) : 200;
	double (*ns)[NR_MODES][NR_CASES], folded[NR_MODES][NR_CASES], barriers[NR_MODES][NR_CASES];

	if (rounds < 1 || slots < 1 || depth < 1 || reads < 1) {
		fprintf(stderr, "rstat_read_cost: rounds, slots, depth and reads must be >= 1\n");
		return 2;
	}
	ns = calloc((size_t)rounds, sizeof(*ns));
	if (!ns)
		return 1;
	pin(0);
	for (int k = 0; k < rounds; k++)
		for (int c = 0; c < NR_CASES; c++)
			for (int m = 0; m < NR_MODES; m++) {
				/* alternate which mode goes first */
				int mm = (k + c) % 2 ? NR_MODES - 1 - m : m;

				ns[k][mm][c] = measure(modes[mm], c, slots, depth, reads, &folded[mm][c],
						       &barriers[mm][c]);
			}
	printf("rstat_force root read, chain:%d, %d slots, %d reads per case, %d rounds: thread CPU ns per read,"
	       " median [min, max]; per read, (CPU, node) pairs folded and membarrier() calls (last round)\n",
	       depth, slots, reads, rounds);
	for (int c = 0; c < NR_CASES; c++) {
		double med[NR_MODES];

		for (int m = 0; m < NR_MODES; m++) {
			double v[rounds];

			for (int k = 0; k < rounds; k++)
				v[k] = ns[k][m][c];
			qsort(v, (size_t)rounds, sizeof(v[0]), cmp_double);
			med[m] = v[rounds / 2];
			printf("  %-10s %-12s %10.0f [%.0f, %.0f]  folded %.1f, membarriers %.3f\n", case_names[c],
			       modes[m], med[m], v[0], v[rounds - 1], folded[m][c], barriers[m][c]);
		}
		printf("  %-10s flush/period %.2fx\n", case_names[c], med[1] / med[0]);
	}
	{
		struct busy b = { 0 };
		pthread_t tid;
		double v[rounds];

		if (pthread_create(&tid, NULL, busy_spin, &b))
			return 1;
		while (!atomic_load(&b.started))
			;
		for (int k = 0; k < rounds; k++) {
			double t0 = cpu_ns();

			for (int i = 0; i < 2000; i++)
				syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
			v[k] = (cpu_ns() - t0) / 2000;
		}
		atomic_store(&b.stop, 1);
		pthread_join(tid, NULL);
		qsort(v, (size_t)rounds, sizeof(v[0]), cmp_double);
		printf("  membarrier(PRIVATE_EXPEDITED), a thread spinning on the other CPU: %.0f [%.0f, %.0f] ns\n",
		       v[rounds / 2], v[0], v[rounds - 1]);
	}
	free(ns);
	return 0;
}
