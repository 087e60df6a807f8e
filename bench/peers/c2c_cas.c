/* SPDX-License-Identifier: MIT */
/*
 * c2c_cas.c - core-to-core-latency's (github.com/nviennot/core-to-core-latency)
 * CAS benchmark, its method rewritten in C so its figure can be set beside
 * `ctrbench c2c --op cas` on a machine where its Rust crates cannot be
 * fetched.  What it does, as src/bench/cas.rs and src/bench.rs do:
 *   - a one-byte flag (Rust's AtomicBool) in a struct the main thread created,
 *     PING at first; a barrier of two;
 *   - pong (pinned to core j) does samples * iters relaxed CAS PING -> PONG,
 *     each retried until it succeeds; ping (core i) does PONG -> PING;
 *   - ping times each sample of iters round trips with the TSC (quanta's
 *     Clock::raw, scaled to ns by a calibration against the monotonic clock),
 *     one-way = sample / iters / 2;
 *   - 1 + samples samples, the first dropped as warm-up; the figure is the
 *     mean of the others (and the standard error, as it prints it);
 *   - for the pair (i, j) with i > j: ping on i, pong on j, threads spawned
 *     for each pair.
 * Not built by make: cc -O2 -pthread bench/peers/c2c_cas.c -o build/c2c_cas
 * Usage: build/c2c_cas PING_CPU PONG_CPU [ITERS [SAMPLES]]  (defaults 1000 300, as the tool's)
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#define PING 0
#define PONG 1

struct bench {
	pthread_barrier_t barrier;
	uint8_t flag;
};

struct arg {
	struct bench *b;
	int cpu;
	unsigned iters, samples;
	double ns_per_tick;
	double *out;
};

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof(s), &s)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static void *pong(void *p)
{
	struct arg *a = p;

	pin(a->cpu);
	pthread_barrier_wait(&a->b->barrier);
	for (uint64_t i = 0; i < (uint64_t)a->iters * a->samples; i++) {
		uint8_t want;

		do
			want = PING;
		while (!__atomic_compare_exchange_n(&a->b->flag, &want, PONG, 0, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED));
	}
	return NULL;
}

static void *ping(void *p)
{
	struct arg *a = p;

	pin(a->cpu);
	pthread_barrier_wait(&a->b->barrier);
	for (unsigned s = 0; s < a->samples; s++) {
		uint64_t t0 = __rdtsc(), t1;

		for (unsigned i = 0; i < a->iters; i++) {
			uint8_t want;

			do
				want = PONG;
			while (!__atomic_compare_exchange_n(&a->b->flag, &want, PING, 0, __ATOMIC_RELAXED,
							    __ATOMIC_RELAXED));
		}
		t1 = __rdtsc();
		a->out[s] = (double)(t1 - t0) * a->ns_per_tick / a->iters / 2.0;
	}
	return NULL;
}

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct bench b = { .flag = PING };
	unsigned iters = argc > 3 ? (unsigned)atoi(argv[3]) : 1000, samples = argc > 4 ? (unsigned)atoi(argv[4]) : 300;
	struct arg pi, po;
	pthread_t tp, tq;
	double t0, sum = 0, sq = 0, *out;
	uint64_t c0;

	if (argc < 3 || !iters || !samples) {
		fprintf(stderr, "usage: %s PING_CPU PONG_CPU [ITERS [SAMPLES]]\n", argv[0]);
		return 2;
	}
	/* quanta calibrates the TSC against the OS clock; 100 ms here */
	t0 = now_ns();
	c0 = __rdtsc();
	while (now_ns() - t0 < 1e8)
		;
	out = malloc(sizeof(double) * (samples + 1));
	pthread_barrier_init(&b.barrier, NULL, 2);
	pi = (struct arg){ .b = &b, .cpu = atoi(argv[1]), .iters = iters, .samples = samples + 1,
			   .ns_per_tick = (now_ns() - t0) / (double)(__rdtsc() - c0), .out = out };
	po = pi;
	po.cpu = atoi(argv[2]);
	pthread_create(&tq, NULL, pong, &po);
	pthread_create(&tp, NULL, ping, &pi);
	pthread_join(tq, NULL);
	pthread_join(tp, NULL);
	for (unsigned s = 1; s <= samples; s++)
		sum += out[s];
	for (unsigned s = 1; s <= samples; s++)
		sq += (out[s] - sum / samples) * (out[s] - sum / samples);
	/* the samples' median besides: not the tool's figure, but what a preempted sample leaves alone */
	qsort(out + 1, samples, sizeof(double), cmp);
	printf("cas %d %d mean %.1f ns stderr %.1f median %.1f\n", pi.cpu, po.cpu, sum / samples,
	       sqrt(sq / (samples - 1)) / sqrt(samples),
	       samples % 2 ? out[1 + samples / 2] : (out[samples / 2] + out[1 + samples / 2]) / 2);
	free(out);
	return 0;
}
