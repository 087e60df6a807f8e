/* SPDX-License-Identifier: MIT */
/*
 * recommend.h - what the parts of `ctrbench recommend` share: the query,
 * the result lines read, the algorithm variants ranked and the state of one
 * recommend.  The command (bench/cmd-recommend.c) parses the query; model.c
 * reads the lines and ranks the variants by the cost model; next.c runs the
 * quick sweep without --results and writes the commands that would settle
 * what the answer cannot (ties, missing intervals, a missing workload);
 * output.c prints the answer as a table or JSON.  docs/sweeps.md describes
 * the cost model and the selection rules for users.
 */
#ifndef BENCH_RECOMMEND_H
#define BENCH_RECOMMEND_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "../results.h"

/*
 * --max-staleness: EXACT, or up to one each of a count N, a fraction P% and
 * a time T (MSms or Ss), comma-separated, all of which must hold.
 */
struct rec_query {
	double updates, reads;		/* per second, the target workload */
	int depth;			/* tree depth the target updates and reads at */
	int threads;			/* CPUs the target updates from; 0: not given */
	int exact;			/* --max-staleness EXACT */
	long long count;		/* ... N: off by at most N counts; -1 if not given */
	double fraction;		/* ... P%: off by at most P/100 of value (else the mean value read); 0 if not given */
	double value;			/* --counter-value: the target counter's value, P%'s base; 0 if not given */
	long long ms;			/* ... T: at most T ms old; 0 if not given */
	const char *spec;		/* ... as typed */
	const char *only;		/* the verdict: "update" or "readers", that figure alone, no
					 * staleness rule; NULL: the cost model */
};

/* The figure taken for one workload of one algorithm variant, and the lines behind it. */
struct rec_pick {
	int found;			/* some line had the figure */
	double value;			/* ns */
	int has_iv;			/* every line used has an interval of its median (stats) */
	double lo, hi;			/* ... and the value's interval, ns, from those */
	double level;			/* its coverage: the product of theirs (independent runs) */
	int reps;			/* fewest repetitions of a line used */
	int duration_ms, warmup_ms;	/* longest of the lines used */
	json_t *shapes, *placements;	/* of the lines used, each once */
	double value_read;		/* readers: mean exact value of the nodes read, fewest of the lines */
	int threads;			/* thread count of the lines used */
	int depth_lo, depth_hi;		/* depths used: equal unless interpolated */
	const char *method;		/* "measured", "interpolated", "nearest" */
	json_t *lines;			/* [{line, shape, placement, depth, value}] */
	int64_t bound;			/* stated read_error_bound: the largest, -1 if any is by time */
	int64_t observed;		/* largest read error observed in those lines */
	double flush_max_ns;		/* longest flush in those lines, -1 if none */
	int mismatch_line;		/* a line used failed verification: its number, else 0 */
	int oversubscribed;		/* a line used ran more threads than the CPUs it had */
};

/*
 * One algorithm with one set of settings: the knobs of the field table
 * (schema.h) that every workload has (options, flush period, work, ...;
 * not read_node, which only readers lines carry).  A knob added to the
 * table makes variants of its own here with no edit.
 */
struct rec_variant {
	const char *algo;		/* name */
	const char *options;		/* --options of its lines, NULL if none */
	int flush_period_ms;		/* --flush-period-ms of its lines, 0 = the algorithm's default */
	int baseline;			/* a harness floor, never recommended */
	char *key;			/* algo and those knobs as compact JSON (bench_line_key) */
	char label[160];		/* algo, with the knobs not at their default */
	struct rec_pick upd, rd;	/* update and read cost */
	int has_cost;			/* both figures found */
	double cost;			/* CPU seconds per second for the query */
	int has_iv;			/* both figures have an interval */
	double cost_lo, cost_hi;	/* ... and the cost's, from theirs (U, R >= 0) */
	double level;			/* its coverage: the product of theirs */
	int rank;			/* 1 + how many rank ahead of it; shared in a tie */
	int tie;			/* its interval overlaps a neighbour's: same rank */
	int admitted;			/* meets --max-staleness and verified */
	char staleness[200];		/* its read error, in words */
	char reason[300];		/* why ruled out, or why not ranked */
};

struct rec_line {
	json_t *o;			/* the result */
	int lineno;			/* in the file */
	const char *workload;		/* "update" or "readers" */
	int depth, threads;		/* of the configuration */
};

/* One recommend: the query, the lines it reads and the variants it ranks. */
struct rec_state {
	struct rec_query q;		/* the target workload */
	const char *results;		/* --results, or the quick sweep's file */
	char *quick;			/* the quick sweep's file, NULL with --results */
	int json;			/* --format json */
	int verdict;			/* --verdict: the verdict alone (bench/verdict.h) */
	int status;			/* the quick sweep's exit status */
	struct bench_results r;		/* the file's lines */
	struct rec_line *lines;		/* the usable ones: update and readers, plain cost */
	int nr_lines;			/* their number */
	int max_threads;		/* the most threads a line ran */
	int skipped, unplain;		/* lines left out: stopped early; not the plain cost */
	const struct rec_line **tmp;	/* scratch, nr_lines */
	struct rec_variant *var;	/* one per algorithm and knobs */
	int nr_var;			/* their number */
	struct rec_variant **order;	/* the admitted ones by cost */
	int ranked;			/* their number */
	json_t *machines, *caveats;	/* the environment of the lines, in words */
	int nr_update, nr_readers;	/* usable lines of each workload */
	json_t *ties;			/* [{rank, algos, ..., sweep, recommend}]: what would separate each tie */
	json_t *untested;		/* {algos, sweep, recommend} for the ranked without an interval, or null */
	json_t *missing;		/* {workload, file, sweep}: a workload the file has no line of, or null */
};

/* model.c: o's integer (or number) at path ("a.b"): 1, or 0 when absent or not one. */
int bench_rec_int(json_t *o, const char *path, long long *v);
int bench_rec_num(json_t *o, const char *path, double *v);

/* model.c: a and b both NULL or the same string. */
int bench_rec_str_eq(const char *a, const char *b);

/* model.c: s appended to the JSON array set unless it holds it already. */
void bench_rec_add_once(json_t *set, const char *s);

/* model.c: the file's usable lines into st->lines (dies on a line that is not a result). */
void bench_rec_load(struct rec_state *st);

/* model.c: st->r's usable lines into st->lines (dies on a line that is not a result); their number. */
int bench_rec_take(struct rec_state *st);

/* model.c: ranks of o[0..n), in cost order: overlapping intervals share one, as ties. */
void bench_rec_ties(struct rec_variant **o, int n);

/* model.c: each variant's figures, its verdict, the admitted ones by cost, the environment. */
void bench_rec_rank(struct rec_state *st);

/* model.c: what st holds, freed (st itself too). */
void bench_rec_free(struct rec_state *st);

/* next.c: no --results: a quick sweep now, on this machine, into a temporary file.  0, or 1 when interrupted. */
int bench_rec_quick_sweep(struct rec_state *st);

/* next.c: the ties, the ranks without an interval and a missing workload, each with the sweep that would settle it. */
void bench_rec_findings(struct rec_state *st);

/* output.c: the answer as one JSON line, or as the table with its evidence. */
void bench_rec_print_json(const struct rec_state *st);
void bench_rec_print_table(const struct rec_state *st);

#endif /* BENCH_RECOMMEND_H */
