/* SPDX-License-Identifier: MIT */
/*
 * calprobe.h - the projection's calibration probes on this machine
 * (`ctrbench project --validate`): the one-way transfer of a line between two
 * PUs, how long a core keeps a contended line (the handover burst), a futex
 * wake-up, a PAUSE.  Each probe runs its threads bound to the PUs given and
 * under SCHED_FIFO where the kernel allows it (SCHED_OTHER else), and says
 * which in its result.
 */
#ifndef BENCH_CALPROBE_H
#define BENCH_CALPROBE_H

#include "../topology/topo.h"

/* What a probe ran under: both threads bound and SCHED_FIFO, or the reason they were not. */
struct calprobe_how {
	int fifo;		/* 1: every thread of the probe ran SCHED_FIFO */
	char why[96];		/* "SCHED_FIFO", or "SCHED_OTHER, SCHED_FIFO refused: ..." */
};

/*
 * Load/store ping-pong between PUs a and b: ns per one-way hop, the median
 * of samples of round trips timed from both threads running to the last hop
 * (the figure `ctrbench c2c --op load-store` reports as sample_p50_ns).
 * -1 if the threads could not be started or bound.
 */
double calprobe_one_way_ns(const struct topo *t, int a, int b, struct calprobe_how *how);

struct calprobe_burst {
	double hand_per_add;	/* handovers of the line per add, median over the runs */
	double burst;		/* adds per handover: 1 / hand_per_add */
	double ns_per_add;	/* each thread's ns per add over the same runs (median): c2c --op fetch-add's figure */
	double lo, hi;		/* the least and most handovers per add of a run */
	int runs;
	long adds;		/* per thread per run, at most */
};

/*
 * Two threads on PUs a and b add to one word (lock xadd) as fast as they can;
 * 0, or -1 if the threads could not be started or bound.
 */
int calprobe_burst(const struct topo *t, int a, int b, struct calprobe_burst *r, struct calprobe_how *how);

/*
 * Futex ping-pong between PUs a and b: the median ns from one thread's post
 * (store, FUTEX_WAKE) to the sleeping waiter running; *samples of them.
 * -1 if the threads could not be started or bound, or no waiter slept.
 */
double calprobe_wake_ns(const struct topo *t, int a, int b, int *samples, struct calprobe_how *how);

/* ns per PAUSE on PU pu, the median of batches; -1 where there is no PAUSE (not x86) or no PU. */
double calprobe_pause_ns(const struct topo *t, int pu, struct calprobe_how *how);

#endif /* BENCH_CALPROBE_H */
