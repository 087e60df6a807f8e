/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("ctrbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

int bench_parse_int(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		die("bad value '%s' for --%s (want an integer in [%ld, %ld])", s, opt, min, max);
	return (int)v;
}

int bench_parse_table_json(const char *cmd, const char *s)
{
	if (!strcmp(s, "json"))
		return 1;
	if (!strcmp(s, "table"))
		return 0;
	die("unknown format '%s' for %s (want table or json)", s, cmd);
}

void bench_help(int argc, char **argv, const char *text)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(text, stdout);
			exit(0);
		}
	}
}

void bench_need(const char *cmd, const char *const *names, const int *missing, int n, const char *hint)
{
	char buf[512] = "";
	int k = 0, seen = 0;

	for (int i = 0; i < n; i++)
		k += missing[i];
	if (!k)
		return;
	for (int i = 0; i < n; i++) {
		if (!missing[i])
			continue;
		seen++;
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
			 seen == 1 ? "" : seen == k ? " and " : ", ", names[i]);
	}
	die("%s needs %s%s%s", cmd, buf, hint ? " " : "", hint ? hint : "");
}

void bench_die_getopt(int c, char **argv)
{
	if (c == ':')
		die("option '%s' needs a value", argv[optind - 1]);
	/* In a cluster of short options optind has not moved on: name the letter. */
	if (optopt)
		die("unknown option '-%c'", optopt);
	die("unknown option '%s'", argv[optind - 1]);
}
