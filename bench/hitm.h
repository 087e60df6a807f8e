/* SPDX-License-Identifier: MIT */
/*
 * hitm.h - which line bounced (`run --c2c`, docs/events.md): a tree's layout
 * map (ctr_layout) sorted for lookup by address, the load samples of a
 * `perf c2c record` read back through `perf script` and ranked by the line
 * they hit (HITM first, then loads from a peer cache), and the recorder that
 * runs perf around each measured window.
 */
#ifndef BENCH_HITM_H
#define BENCH_HITM_H

#include <stdint.h>
#include <stdio.h>

#include "../counters/ctr.h"

/* One region of a layout map: ctr_region with the address as a number (a sample's is one). */
struct bench_hitm_region {
	uint64_t addr;		/* first byte */
	uint64_t len;		/* bytes */
	int node;		/* node whose data it is, -1 none */
	int level;		/* the node's level (root 1), -1 none */
	int slot;		/* owning slot, -1 shared */
	int index;		/* which of several alike, -1 none */
	const char *what;	/* what it holds (libctr's static strings, or the caller's, kept alive) */
};

/* A layout map: regions sorted by address, apart (bench_hitm_map_sort). */
struct bench_hitm_map {
	struct bench_hitm_region *r;	/* the regions */
	int n, cap;			/* used, allocated */
};

int bench_hitm_map_add(struct bench_hitm_map *m, const struct bench_hitm_region *r);	/* 0, -ENOMEM */
/* Every region of t (ctr_layout), sorted: 0, -ENOMEM or ctr_layout's -EOPNOTSUPP. */
int bench_hitm_map_of_tree(struct bench_hitm_map *m, struct ctr_tree *t);
/* Sort by address: 0, or -EINVAL where two regions overlap (then lookups would be ambiguous). */
int bench_hitm_map_sort(struct bench_hitm_map *m);
/* The region holding addr, NULL where none does. */
const struct bench_hitm_region *bench_hitm_lookup(const struct bench_hitm_map *m, uint64_t addr);
void bench_hitm_map_free(struct bench_hitm_map *m);
/* A region in words: "node 3, level 2: the shared atomic", "slot 5's area, node 7: the slot's count". */
void bench_hitm_name(const struct bench_hitm_region *r, char *buf, size_t len);
/* The map as JSON lines, one a region, tagged with algo and rep: 0 or -errno of the write. */
int bench_hitm_map_write(int fd, const char *algo, int rep, const struct bench_hitm_map *m);

/* What a load sample's data source says (perf_event.h's union perf_mem_data_src). */
enum bench_hitm_kind {
	BENCH_HITM_NOT_LOAD = -1,	/* a store, or an op with no memory access */
	BENCH_HITM_OTHER = 0,		/* a load served otherwise (L1, L2, DRAM, ...) */
	BENCH_HITM_PEER,		/* from a peer cache (SNOOPX_PEER: another core's, clean or not) */
	BENCH_HITM_HITM,		/* hit a line modified in another core's cache (SNOOP_HITM) */
};
enum bench_hitm_kind bench_hitm_kind(uint64_t data_src);

/*
 * One line of `perf script -F addr,data_src` output: the sample's data
 * address and data source, both hex.  0, or -EINVAL for a line that is not
 * a sample (blank, a warning).
 */
int bench_hitm_parse_line(const char *line, uint64_t *addr, uint64_t *data_src);

/* The samples of one region (or, region NULL, of no region: outside the tree). */
struct bench_hitm_entry {
	struct bench_hitm_region r;	/* the region (addr: the last sampled line's), what NULL: outside */
	uint64_t hitm, peer, loads;	/* HITM loads, peer-cache loads, all loads */
};

/* Samples ranked by region, over one algorithm's windows. */
struct bench_hitm_tally {
	struct bench_hitm_entry *e;	/* one per region identity (node, slot, index, what) */
	int n, cap;			/* used, allocated */
	uint64_t samples;		/* sample lines read */
	uint64_t loads;			/* of them loads */
};

/* Count one sample against map m: 0, -ENOMEM. */
int bench_hitm_tally_add(struct bench_hitm_tally *t, const struct bench_hitm_map *m, uint64_t addr,
			 uint64_t data_src);
/* Every sample line of f: 0, -ENOMEM. */
int bench_hitm_read(FILE *f, const struct bench_hitm_map *m, struct bench_hitm_tally *t);
/* Most HITM first, then most peer-cache loads, then most loads. */
void bench_hitm_rank(struct bench_hitm_tally *t);
/* The first top entries with a HITM or peer load, as a table under algo's name. */
void bench_hitm_print(FILE *out, const char *algo, const struct bench_hitm_tally *t, int top);
void bench_hitm_tally_free(struct bench_hitm_tally *t);

/*
 * Whether perf c2c can record here: 0, or -1 with the reason in why (one
 * line: no perf on PATH, no load-sampling PMU, perf_event_paranoid).  perf
 * is searched on PATH (no shell); its path goes to perf (len bytes).
 */
int bench_hitm_check(char *perf, size_t len, char *why, size_t whylen);

/*
 * `run --c2c`: set up once, before any measurement (dir: a new folder, its
 * layout.jsonl created there; the check's reason printed if it cannot
 * record).  Exits 2 on a folder that exists.
 */
void bench_hitm_setup(const char *dir);
/* Around one measurement of algo (bench_run_one): the tree made, the window open/closed, the tree about to go. */
void bench_hitm_tree(const char *algo, struct ctr_tree *t);
void bench_hitm_window(int open);
void bench_hitm_tree_done(void);
/* Print every algorithm's ranking (stderr) and where the files are. */
void bench_hitm_report(void);

#endif /* BENCH_HITM_H */
