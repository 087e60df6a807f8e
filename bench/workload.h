/* SPDX-License-Identifier: MIT */
/*
 * workload.h - the harness's workloads, defined once: what each one does, its
 * name, its constants and the rule that sets the charge workloads' limits.
 * bench/loops.c runs them (the timed loops), bench/run.c sets their limits,
 * and project/sim.c models the same loops on a projected machine: a change
 * here reaches the measurement and the projection alike.
 */
#ifndef BENCH_WORKLOAD_H
#define BENCH_WORKLOAD_H

#include <stdint.h>

enum bench_workload {
	BENCH_UPDATE,	/* +1/-1 pairs on the worker's leaf */
	BENCH_CHARGE,	/* try_charge(+BENCH_CHARGE_UNIT), uncharge the oldest past a window */
	BENCH_READERS,	/* updaters swinging their leaf up and down, plus reader threads */
	BENCH_STORE,	/* a zswap store as the kernel does it: limit check, charge, two stats */
	BENCH_NR_WORKLOADS
};

/* The workloads that charge against limits (and are audited): charge and store. */
static inline int bench_workload_charges(int w)
{
	return w == BENCH_CHARGE || w == BENCH_STORE;
}

/* Every workload's name, as the helps and the parser's error list them (bench_workload_names' order). */
#define BENCH_WORKLOAD_LIST "update, charge, readers or store"

/* The workload's name (update, charge, readers, store), "?" for no workload. */
const char *bench_workload_name(int w);
/* The workload named name, or -1 for no workload's name. */
int bench_workload_find(const char *name);
/* The workload named (enum bench_workload); dies naming it on any other (the CLI's parser). */
int bench_parse_workload(const char *name);

/*
 * store: the stats a zswap store updates besides the charged one (stat 0,
 * MEMCG_ZSWAP_B in bytes): stat 1 is MEMCG_ZSWAPPED, +1 page per store.
 */
#define BENCH_STORE_NR_STATS 2

/*
 * readers: an updater adds +1 this many times, then -1 as many, so values
 * swing and staleness shows.  Its value after c operations is then a
 * triangle wave of c, so it publishes only c, and a reader knows every value
 * the updater's leaf held between two looks (bench_swing_range()).
 */
#define BENCH_SWING 1024

/* Bytes per charge: one 4 KiB page, as zswap stores. */
#define BENCH_CHARGE_UNIT 4096
/*
 * Batches in the charge workload: 64 pages (MEMCG_CHARGE_BATCH), in the
 * units the deltas come in.  The kernel's batches and flush threshold count
 * pages (memcg_state_val_in_pages() turns byte stats into pages for the
 * threshold); an algorithm's default batch counts delta units, which at
 * BENCH_CHARGE_UNIT a charge would pass every time.
 */
#define BENCH_CHARGE_BATCH ((int64_t)64 * BENCH_CHARGE_UNIT)
/* Charges a worker holds before it uncharges the oldest: a zswap pool's worth of pages in flight. */
#define BENCH_CHARGE_WINDOW 8

/*
 * The charge workload's default limits: 3/4 of the steady holdings, so that a
 * steady share of attempts is refused and both paths stay busy (the
 * admission figures need refusals).  The seed's case, limits set and not
 * hit, is --limit-headroom 1 or more.
 */
#define BENCH_LIMIT_HEADROOM 0.75

/*
 * The headroom rule: the limit of a node with `below` workers under it, each
 * holding at most `hold` charges (BENCH_CHARGE_WINDOW, or --charge-burst's),
 * is headroom times what they can hold together, in bytes (headroom <= 0:
 * BENCH_LIMIT_HEADROOM, the --limit-headroom default).
 */
int64_t bench_headroom_limit(int below, int hold, double headroom);

#endif /* BENCH_WORKLOAD_H */
