/* SPDX-License-Identifier: MIT */
/*
 * seeds.c - reading the seed threads' figures (seeds.h).  The file is data
 * from public threads, small (a hundred rows): read whole, parsed as CSV
 * with quoted fields ("a, b" and "" inside quotes), '#' lines comments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "seeds.h"

#ifndef CTRBENCH_SEEDS_FILE
#define CTRBENCH_SEEDS_FILE "docs/seeds/tables.csv"
#endif

#define SEED_NR_COLS 7

/* Splits line (modified in place) into at most SEED_NR_COLS fields; returns how many, -1 if a quote is open. */
static int seed_split(char *line, char **f)
{
	int n = 0;
	char *p = line;

	for (;;) {
		char *out = p;

		if (n == SEED_NR_COLS)
			return n + 1;	/* too many: the caller says so */
		f[n++] = p;
		if (*p == '"') {
			p++;
			for (;;) {
				if (!*p)
					return -1;
				if (*p == '"' && p[1] == '"')
					*out++ = '"', p += 2;
				else if (*p == '"')
					break;
				else
					*out++ = *p++;
			}
			p++;
			*out = 0;
			if (*p && *p != ',')
				return -1;
		} else {
			p += strcspn(p, ",");
		}
		if (!*p)
			return n;
		*p++ = 0;
	}
}

/* "567116" -> [567116, 567116]; "5-10" -> [5, 10]; anything else NaN. */
static void seed_number(const char *v, double *lo, double *hi)
{
	char *end;

	*lo = *hi = NAN;
	if (!*v)
		return;
	*lo = strtod(v, &end);
	if (end == v) {
		*lo = NAN;
		return;
	}
	if (!*end) {
		*hi = *lo;
		return;
	}
	if (*end == '-' && end[1]) {
		const char *p = end + 1;

		*hi = strtod(p, &end);
		if (end != p && !*end && *hi >= *lo)
			return;
	}
	*lo = *hi = NAN;
}

/* The installed copy: <folder of this binary>/../share/ctrbench/seeds/tables.csv, if readable. */
static int seed_installed(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return 0;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return 0;
	*slash = 0;
	return snprintf(buf, len, "%s/../share/ctrbench/seeds/tables.csv", exe) < (int)len && !access(buf, R_OK);
}

static int seed_parse(struct bench_seeds *s, FILE *fp)
{
	char *line = NULL, *f[SEED_NR_COLS + 1];
	size_t cap = 0;
	ssize_t len;
	int lineno = 0;

	while ((len = getline(&line, &cap, fp)) >= 0) {
		struct bench_seed_fig *g;
		int nf;

		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len || line[0] == '#')
			continue;
		nf = seed_split(line, f);
		if (nf != SEED_NR_COLS)
			die("seed figures '%s' line %d: %s (want table,source_file,row,column,value,unit,conditions)",
			    s->path, lineno, nf < 0 ? "an unclosed quote" : "not 7 fields");
		g = realloc(s->fig, sizeof(*s->fig) * (size_t)(s->n + 1));
		if (!g)
			die("out of memory");
		s->fig = g;
		g = &s->fig[s->n];
		memset(g, 0, sizeof(*g));
		g->table = strdup(f[0]);
		g->source = strdup(f[1]);
		g->row = strdup(f[2]);
		g->column = strdup(f[3]);
		g->value = strdup(f[4]);
		g->unit = strdup(f[5]);
		/* "same": the conditions of the table's row above */
		if (!strcmp(f[6], "same") && s->n && !strcmp(s->fig[s->n - 1].table, f[0]))
			g->conditions = strdup(s->fig[s->n - 1].conditions);
		else
			g->conditions = strdup(f[6]);
		if (!g->table || !g->source || !g->row || !g->column || !g->value || !g->unit || !g->conditions)
			die("out of memory");
		seed_number(g->value, &g->lo, &g->hi);
		s->n++;
	}
	free(line);
	return ferror(fp) ? -EIO : 0;
}

int bench_seeds_load(struct bench_seeds *s)
{
	const char *env = getenv("CTRBENCH_SEEDS");
	FILE *fp;
	int err;

	memset(s, 0, sizeof(*s));
	if (env && *env)
		snprintf(s->path, sizeof(s->path), "%s", env);
	else if (!seed_installed(s->path, sizeof(s->path)))
		snprintf(s->path, sizeof(s->path), "%s", CTRBENCH_SEEDS_FILE);
	fp = fopen(s->path, "r");
	if (!fp) {
		err = -errno;
		s->why = err == -ENOENT ? "not found" : "cannot be read";
		return err;
	}
	err = seed_parse(s, fp);
	fclose(fp);
	if (err)
		s->why = "cannot be read";
	return err;
}

void bench_seeds_free(struct bench_seeds *s)
{
	for (int i = 0; i < s->n; i++) {
		struct bench_seed_fig *g = &s->fig[i];

		free(g->table), free(g->source), free(g->row), free(g->column);
		free(g->value), free(g->unit), free(g->conditions);
	}
	free(s->fig);
	s->fig = NULL;
	s->n = 0;
}

const struct bench_seed_fig *bench_seed_find(const struct bench_seeds *s, const char *table, const char *row,
					     const char *column)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->fig[i].table, table) && !strcmp(s->fig[i].row, row) &&
		    !strcmp(s->fig[i].column, column))
			return &s->fig[i];
	return NULL;
}
