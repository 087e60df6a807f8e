/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what every ctrbench command shares on its command line: the one
 * die() (bad input is one line naming the bad value, exit status 2), strict
 * integers, and getopt's errors said the same way everywhere.
 */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

/* "ctrbench: <message>" on stderr, exit 2.  Nothing else in ctrbench exits. */
void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...);

/* A whole decimal in [min, max], or die naming the option (without --) and the value. */
int bench_parse_int(const char *opt, const char *s, long min, long max);

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

/* getopt_long returned ':' or '?' for argv: die naming the option. */
void __attribute__((noreturn)) bench_die_getopt(int c, char **argv);

#endif /* BENCH_CLI_H */
