/* SPDX-License-Identifier: MIT */
/*
 * cli.c - what every command shares on its command line (cli.h).  It is the
 * bottom layer of bench/: it calls libc, jansson and pmu/ only, never the
 * engine or a command, so every other file can call it without a circle.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "../pmu/pmu.h"

void bench_one_line(char *msg)
{
	for (unsigned char *p = (unsigned char *)msg; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
}

static const char *bench_die_at;

void bench_die_where(const char *where)
{
	bench_die_at = where;
}

/*
 * One line, whatever the bad value holds: a control character in it (an
 * argument "8\n", a file name with a newline) is shown as '?'.
 */
void die(const char *fmt, ...)
{
	char msg[2048];
	size_t at = 0;
	va_list ap;

	/* a long path in where keeps half the line for the message itself */
	if (bench_die_at)
		at = (size_t)snprintf(msg, sizeof(msg) / 2, "%s: ", bench_die_at);
	if (at >= sizeof(msg) / 2)
		at = sizeof(msg) / 2 - 1;
	va_start(ap, fmt);
	vsnprintf(msg + at, sizeof(msg) - at, fmt, ap);
	va_end(ap);
	bench_one_line(msg);
	fprintf(stderr, "ctrbench: %s\n", msg);
	exit(2);
}

int bench_events_lenient;

int bench_events_parse(const char *list, struct pmu_event_spec **out, int *n, char *err,
		       size_t errlen)
{
	return bench_events_lenient ? pmu_events_parse(list, out, n, err, errlen)
				    : pmu_events_parse_strict(list, out, n, err, errlen);
}

int bench_plain_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '.')
		s++;
	/* decimal only: strtod takes 0x10 (and strtol with base 0 would) */
	return *s >= '0' && *s <= '9' && !strpbrk(s, "xXpP");
}

int bench_parse_int(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!bench_plain_number(s) || errno || end == s || *end || v < min || v > max)
		die("bad value '%s' for --%s (want an integer in [%ld, %ld])", s, opt, min, max);
	return (int)v;
}

double bench_parse_num(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!bench_plain_number(s) || errno || end == s || *end || !(v >= min) || !(v <= max))
		die("bad value '%s' for --%s (want a number from %g to %g)", s, opt, min, max);
	return v;
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

FILE *bench_fopen_regular(const char *path, int *not_regular)
{
	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer that may never come */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), err;
	struct stat sb;
	FILE *f;

	*not_regular = 0;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		*not_regular = 1;
		close(fd);
		return NULL;
	}
	/* a regular file never blocks; back to ordinary reads */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	f = fdopen(fd, "r");
	if (!f) {
		err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

char *bench_fd_slurp(int fd, size_t *len, int *err)
{
	char *buf = NULL;
	size_t cap = 0, n = 0;

	*err = 0;
	for (;;) {
		ssize_t got;

		if (cap - n < 65536) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap + 1);
			if (!buf)
				die("out of memory");
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			*err = errno;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

json_t *bench_json_load_regular(const char *path, size_t flags, json_error_t *err)
{
	int not_regular;
	FILE *f = bench_fopen_regular(path, &not_regular);
	json_t *j;

	if (!f) {
		snprintf(err->text, sizeof(err->text), "%s", not_regular ? "not a regular file" : strerror(errno));
		return NULL;
	}
	j = json_loadf(f, flags, err);
	fclose(f);
	return j;
}

void *bench_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *bench_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

char *bench_xstrdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		die("out of memory");
	return d;
}

void bench_check_utf8(const char *what, const char *s)
{
	json_t *j = json_string(s);

	if (!j)
		die("bad value for %s (not UTF-8)", what);
	json_decref(j);
}

int bench_getopt(int argc, char **argv, const struct option *opts)
{
	/* The first value of each option of this command line (NULL: not given yet; "" for a flag). */
	static const struct option *cur;
	static const char *given[BENCH_MAX_OPTS];
	int idx = -1, c;

	if (opts != cur || optind <= 1) {
		cur = opts;
		memset(given, 0, sizeof(given));
	}
	c = getopt_long(argc, argv, ":", opts, &idx);
	if (c == -1 || c == ':' || c == '?' || idx < 0 || idx >= BENCH_MAX_OPTS)
		return c;
	if (given[idx]) {
		if (opts[idx].has_arg == no_argument)
			die("--%s given twice: give it once", opts[idx].name);
		die("--%s given twice ('%s', then '%s'): give it once", opts[idx].name, given[idx],
		    optarg ? optarg : "");
	}
	given[idx] = optarg ? optarg : "";
	return c;
}
