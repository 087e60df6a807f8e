/* SPDX-License-Identifier: MIT */
/*
 * results.h - reading a file of result lines (`ctrbench run --format json`,
 * `ctrbench sweep --out`): one JSON object per line.  Shared by sweep (to
 * resume), recommend (to rank) and compare.  Every line must carry the
 * "schema" this build writes (schema.h); identity keys come from the
 * field table.
 */
#ifndef BENCH_RESULTS_H
#define BENCH_RESULTS_H

#include <stddef.h>
#include <jansson.h>

struct bench_results_line {
	json_t *obj;		/* the line's object (owned) */
	int lineno;		/* 1-based line number in the file */
	unsigned long long hash;	/* of its text: two lines of one text are one line written twice */
};

struct bench_results {
	struct bench_results_line *line;	/* complete, non-blank lines in file order */
	int n;					/* their number */
	size_t complete_bytes;			/* bytes up to and including the last '\n' */
	size_t partial_bytes;			/* bytes after it: a line cut short, 0 if none */
	int partial_ok;				/* the cut line could be the start of a result line */
	int partial_lineno;			/* its line number */
	char *buf;				/* the file while it is read (NULL after) */
	struct bench_results_line *rep;		/* lines of one rep ("kind": "rep", bench/exec.h), file order */
	int nr_rep;				/* their number: not among line[] */
};

/* A result line is a few KB: a longer line is not one (nor a file with no newline of 100 MB). */
#define BENCH_RESULT_MAX_LINE (1 << 20)
/* Result lines nest 4 levels; jansson refuses past 2048. */
#define BENCH_RESULT_MAX_DEPTH 64

/* 1 if s[0..n) could be a JSON object cut short (a '{' and valid JSON so far), else 0. */
int bench_json_prefix_ok(const char *s, size_t n);

/*
 * Reads path into r.  A last line without its '\n' is not parsed: a writer
 * killed in the middle of a write(2) leaves such a tail, so it is only
 * counted in partial_bytes for the caller to drop or report.  Blank lines
 * are skipped.  A missing file is an empty result set when missing_ok,
 * else bad input.  Bad input (unreadable, not a regular file, a line over
 * BENCH_RESULT_MAX_LINE, a complete line that is not a JSON object, or of
 * another "schema", a line equal to an earlier one: one measurement copied
 * twice, never two) dies naming the file and line.
 */
void bench_results_load(const char *path, int missing_ok, struct bench_results *r);
void bench_results_free(struct bench_results *r);

/*
 * What compare and recommend do with r's partial last line: a tail no result
 * line starts with is not a results file (dies, naming file and line); a
 * file with nothing else has no results (dies); else one line on stderr says
 * it was ignored (cmd names the command).
 */
void bench_results_check_partial(const struct bench_results *r, const char *path, const char *cmd);

/*
 * Dies naming path, the line, the earlier line it repeats and the
 * configuration (and rep) when two summary lines of r have one identity
 * (bench_line_key with in_key), or two rep lines one identity and rep index:
 * what two writers on one file, or a file appended to itself, leave.  A
 * reader that took either line would show one configuration measured twice
 * as if once, or pool a rep twice.
 */
void bench_results_check_unique(const struct bench_results *r, const char *path, int (*in_key)(int f));

/* "rstat_force store chain:4 --threads 2 --options update=memcg (note 'scenario ...')" into buf. */
void bench_line_describe(json_t *o, char *buf, size_t len);

/* o's member at a dotted path ("read_ns.mean"), or NULL. */
json_t *bench_json_path(json_t *o, const char *path);

/* Dies naming path, line and version unless o's "schema" is BENCH_SCHEMA_VERSION. */
void bench_results_check_schema(json_t *o, const char *path, int lineno);

/*
 * Dies naming path, line and field unless every field of the table in o has
 * the table's type and range (BENCH_FIELD_RANGES), and the configuration's
 * axes without a default are there.  bench_results_load calls it on every
 * line, so compare, recommend and sweep --resume refuse the same lines, as
 * scripts/report does from `ctrbench schema`.
 */
void bench_results_check_line(json_t *o, const char *path, int lineno);

/* Field f (schema.h) of line o: its own value, else the table's default, else NULL (borrowed). */
json_t *bench_line_field(json_t *o, int f);

/*
 * The identity of line o as compact JSON with sorted keys (caller frees):
 * every field f with in_key(f), defaults filled in.  in_key is
 * bench_field_is_config (compare) or bench_field_is_resume_key (sweep).
 */
char *bench_line_key(json_t *o, int (*in_key)(int f));

/* The first field with in_key whose values differ in a and b (-1: none); *nr: how many differ. */
int bench_line_diff(json_t *a, json_t *b, int (*in_key)(int f), int *nr);

#endif /* BENCH_RESULTS_H */
