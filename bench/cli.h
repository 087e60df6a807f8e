/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what every ctrbench command shares on its command line: the one
 * die() (bad input is one line naming the bad value, exit status 2), strict
 * integers, and getopt's errors said the same way everywhere.
 */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

/* "ctrbench: <message>" on stderr, exit 2.  Nothing else in ctrbench exits. */
void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...);
/* msg with every control character replaced by '?': what die() prints, so it is one line. */
void bench_one_line(char *msg);
/*
 * Until called again with NULL, die() says where before its message
 * ("ctrbench: plan:3: bad value ..."): a value read from a file goes through
 * the same parser as the flag on the command line, and its error names the line.
 */
void bench_die_where(const char *where);

/*
 * Does s start as a number is written: a digit, after an optional '-' and '.'?  strtol and
 * strtod also take leading blanks and a '+' (" 8", "+8"), which a command line never means.
 */
int bench_plain_number(const char *s);

struct pmu_event_spec;

/* --events-lenient was given (main takes it out of argv): unknown event names are not an error. */
extern int bench_events_lenient;

/* --events: pmu_events_parse_strict, or pmu_events_parse with --events-lenient. */
int bench_events_parse(const char *list, struct pmu_event_spec **out, int *n, char *err,
		       size_t errlen);

/* A whole decimal in [min, max], or die naming the option (without --) and the value. */
int bench_parse_int(const char *opt, const char *s, long min, long max);

/* A plain decimal number in [min, max], or die naming the option (without --) and the value. */
double bench_parse_num(const char *opt, const char *s, double min, double max);

/* --format table|json of a command: 1 for json; dies naming the value otherwise. */
int bench_parse_table_json(const char *cmd, const char *s);

/*
 * A command's --help: when argv[1..) holds --help or -h (before a lone "--"),
 * prints text (its flags, each default, one example) and exits 0.
 */
void bench_help(int argc, char **argv, const char *text);

/*
 * Required options: missing[i] says whether names[i] (e.g. "--algo") was not
 * given; dies naming every missing one at once ("sweep needs --algo, --shape
 * and --out"), with hint after it.  Returns when none is missing.
 */
void bench_need(const char *cmd, const char *const *names, const int *missing, int n, const char *hint);

/* Allocation that dies (out of memory) rather than return NULL; n == 0 allocates 1 byte. */
/*
 * path opened for reading if it is a regular file, without blocking on a
 * FIFO or reading a device forever: NULL with errno (open's) or with
 * *not_regular set (a FIFO, a device, a directory).
 */
FILE *bench_fopen_regular(const char *path, int *not_regular);
/*
 * Everything fd holds until its end, NUL-terminated (*len bytes before the
 * NUL), read(2) retried on EINTR.  *err: 0, or the errno of a failed read
 * (what came before it is returned).  Dies only when out of memory.
 */
char *bench_fd_slurp(int fd, size_t *len, int *err);
/* json_load_file of a regular file only (err->text says "not a regular file" for the rest). */
json_t *bench_json_load_regular(const char *path, size_t flags, json_error_t *err);
void *bench_xmalloc(size_t n);
void *bench_xcalloc(size_t n, size_t size);
char *bench_xstrdup(const char *s);	/* NULL stays NULL */

/* Results are JSON: text that is not UTF-8 would vanish from them, so it is bad input for what. */
void bench_check_utf8(const char *what, const char *s);

#include <getopt.h>

/* --wide, a long option only: the full tables (output.h, BENCH_COLUMNS) */
#define BENCH_OPT_WIDE 1000

/* Options a command may have, at most (bench_getopt's bookkeeping). */
#define BENCH_MAX_OPTS 64

/*
 * getopt_long(argc, argv, ":", opts, ...) for a command's loop, refusing an
 * option given twice (the last would silently win: "--threads 1 --threads 2"
 * ran 2) with one line naming both values.
 */
int bench_getopt(int argc, char **argv, const struct option *opts);

/* getopt_long returned ':' or '?' for argv: die naming the option. */
void __attribute__((noreturn)) bench_die_getopt(int c, char **argv);

#endif /* BENCH_CLI_H */
