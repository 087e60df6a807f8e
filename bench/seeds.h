/* SPDX-License-Identifier: MIT */
/*
 * seeds.h - the seed threads' posted figures (tables.csv of ../shared/seeds,
 * copied into the tree as docs/seeds/tables.csv), read at run time so a
 * scenario prints each figure beside its own and the ratio.
 */
#ifndef BENCH_SEEDS_H
#define BENCH_SEEDS_H

/* One cell of a seed table, as posted. */
struct bench_seed_fig {
	char *table;		/* tables.csv's table: store_limit, read_storm, ... */
	char *source;		/* the thread's file */
	char *row;		/* "depth 1", "shrinker=Y", ... */
	char *column;		/* "a_rstat_force", "lock_wait", ... */
	char *value;		/* as posted: "567116", "5-10" */
	char *unit;		/* "ns/store", "ms", ... */
	char *conditions;	/* as posted; "same" replaced by the table's previous row's */
	double lo, hi;		/* the value as a number (lo == hi) or a range "lo-hi"; NaN if neither */
};

struct bench_seeds {
	struct bench_seed_fig *fig;	/* every row of the file, in order */
	int n;				/* their number */
	char path[4096];		/* the file read, or the last one tried */
	const char *why;		/* NULL when loaded; else why no figures (not found, bad line) */
};

/*
 * Finds and reads tables.csv: $CTRBENCH_SEEDS (a file), else
 * <this binary>/../share/ctrbench/seeds/tables.csv (make install), else the
 * tree's docs/seeds/tables.csv the binary was built from.  0, or -errno with
 * s->why set (the scenarios then say so and print no seed figures).  A file
 * that is there but malformed is bad input: die() naming file and line.
 */
int bench_seeds_load(struct bench_seeds *s);
void bench_seeds_free(struct bench_seeds *s);

/* The figure of table/row/column, or NULL. */
const struct bench_seed_fig *bench_seed_find(const struct bench_seeds *s, const char *table, const char *row,
					     const char *column);

#endif /* BENCH_SEEDS_H */
