/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "results.h"
#include "schema.h"

/* The whole file in memory (result files are at most a few MB); *len its size. */
static char *slurp(const char *path, int missing_ok, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	*len = 0;
	if (!f) {
		if (missing_ok && errno == ENOENT)
			return NULL;
		die("cannot open '%s': %s", path, strerror(errno));
	}
	for (;;) {
		size_t got;

		if (cap - n < 65536) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap + 1);
			if (!buf)
				die("out of memory");
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f))
		die("cannot read '%s': %s", path, strerror(errno));
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

void bench_results_load(const char *path, int missing_ok, struct bench_results *r)
{
	size_t len, start = 0;
	char *buf = slurp(path, missing_ok, &len);
	int lineno = 0, cap = 0;

	memset(r, 0, sizeof(*r));
	if (!buf)
		return;
	while (start < len) {
		char *nl = memchr(buf + start, '\n', len - start);
		json_error_t err;
		json_t *o;

		if (!nl) {
			r->partial_bytes = len - start;
			break;
		}
		lineno++;
		*nl = 0;
		if (!buf[start + strspn(buf + start, " \t\r")]) {
			start = (size_t)(nl - buf) + 1;
			continue;
		}
		if (strlen(buf + start) != (size_t)(nl - buf) - start)
			die("%s:%d: not JSON (a NUL byte in the line)", path, lineno);
		o = json_loads(buf + start, 0, &err);
		if (!o)
			die("%s:%d: not JSON (%s)", path, lineno, err.text);
		if (!json_is_object(o))
			die("%s:%d: not a JSON object", path, lineno);
		bench_results_check_schema(o, path, lineno);
		if (r->n == cap) {
			cap = cap ? 2 * cap : 64;
			r->line = realloc(r->line, sizeof(*r->line) * (size_t)cap);
			if (!r->line)
				die("out of memory");
		}
		r->line[r->n++] = (struct bench_results_line){ .obj = o, .lineno = lineno };
		start = (size_t)(nl - buf) + 1;
	}
	r->complete_bytes = len - r->partial_bytes;
	free(buf);
}

void bench_results_free(struct bench_results *r)
{
	for (int i = 0; i < r->n; i++)
		json_decref(r->line[i].obj);
	free(r->line);
	memset(r, 0, sizeof(*r));
}

json_t *bench_json_path(json_t *o, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *t = strtok_r(buf, ".", &save); t && o; t = strtok_r(NULL, ".", &save))
		o = json_is_object(o) ? json_object_get(o, t) : NULL;
	return o;
}

void bench_results_check_schema(json_t *o, const char *path, int lineno)
{
	json_t *v = json_object_get(o, "schema");
	char *text;

	if (json_is_integer(v) && json_integer_value(v) == BENCH_SCHEMA_VERSION)
		return;
	text = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	die("%s:%d: result schema %s, this ctrbench reads schema %d (ctrbench schema prints it)", path,
	    lineno, text ? text : "missing", BENCH_SCHEMA_VERSION);
}

json_t *bench_line_field(json_t *o, int f)
{
	static json_t *defaults[BF_NR];
	json_t *v = bench_json_path(o, bench_fields[f].path);

	if (v || !bench_fields[f].def)
		return v;
	if (!defaults[f]) {
		defaults[f] = json_loads(bench_fields[f].def, JSON_DECODE_ANY, NULL);
		if (!defaults[f])
			die("out of memory");
	}
	return defaults[f];
}

char *bench_line_key(json_t *o, int (*in_key)(int f))
{
	json_t *k = json_object();
	char *s;

	for (int f = 0; f < BF_NR; f++) {
		json_t *v;

		if (!in_key(f))
			continue;
		v = bench_line_field(o, f);
		json_object_set(k, bench_fields[f].path, v ? v : json_null());
	}
	s = json_dumps(k, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(k);
	if (!s)
		die("out of memory");
	return s;
}

int bench_line_diff(json_t *a, json_t *b, int (*in_key)(int f), int *nr)
{
	int first = -1;

	*nr = 0;
	for (int f = 0; f < BF_NR; f++) {
		json_t *va, *vb;

		if (!in_key(f))
			continue;
		va = bench_line_field(a, f);
		vb = bench_line_field(b, f);
		if (va == vb || (va && vb && json_equal(va, vb)))
			continue;
		if (first < 0)
			first = f;
		(*nr)++;
	}
	return first;
}
