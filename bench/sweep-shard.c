/* SPDX-License-Identifier: MIT */
/*
 * sweep-shard.c - `ctrbench sweep --configs FILE --shard I/N --out DIR`:
 * shard I of the configurations a `sweep --dry-run --format json` wrote,
 * measured by the same engine as a sweep (bench_sweep_run: the executor,
 * every rep written as measured, --resume) into DIR/shard-I-of-N.jsonl.
 *
 * A line of FILE is data, not a command: each is turned back into a sweep
 * of one configuration and refused unless the identity fields this build
 * would write for it are the line's own, so a shard runs exactly what the
 * plan lists (a line edited into a setting sweep does not pass, or made by
 * another build, is named and refused before anything runs).  Lines of one
 * point next to each other in the shard become one group again, their
 * algorithms' reps interleaved as in the sweep the plan came from.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <jansson.h>

#include "../topology/topo.h"
#include "cli.h"
#include "env.h"
#include "results.h"
#include "run.h"
#include "schema.h"
#include "sweep.h"

/* One line of --configs. */
struct shard_line {
	json_t *obj;		/* the line */
	long id;		/* its "id" */
	int lineno;		/* where it is in the file */
};

static int shard_cmp_id(const void *a, const void *b)
{
	const struct shard_line *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Every line of path: a "config" object with an id, each id once; sorted by id. */
static struct shard_line *shard_read(const char *path, long *n)
{
	int not_regular, lineno = 0;
	FILE *f = bench_fopen_regular(path, &not_regular);
	struct shard_line *v = NULL;
	size_t cap = 0, len = 0;
	char *buf = NULL;

	if (not_regular)
		die("configurations '%s' are not a regular file", path);
	if (!f)
		die("cannot open configurations '%s': %s", path, strerror(errno));
	*n = 0;
	while (getline(&buf, &cap, f) >= 0) {
		json_error_t jerr;
		json_t *o, *id;

		lineno++;
		len = strlen(buf);
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = 0;
		if (!len)
			continue;
		o = json_loads(buf, 0, &jerr);
		if (!json_is_object(o))
			die("%s:%d: not a JSON object (want the lines of sweep --dry-run --format json)", path, lineno);
		id = json_object_get(o, "id");
		if (strcmp(json_string_value(json_object_get(o, "kind")) ?: "", "config") ||
		    !json_is_integer(id) || json_integer_value(id) < 1)
			die("%s:%d: not a configuration (want \"kind\":\"config\" and an \"id\" from 1: the lines"
			    " of sweep --dry-run --format json)", path, lineno);
		v = realloc(v, sizeof(*v) * (size_t)(*n + 1));
		if (!v)
			die("out of memory");
		v[(*n)++] = (struct shard_line){ o, (long)json_integer_value(id), lineno };
	}
	if (ferror(f))
		die("cannot read configurations '%s': %s", path, strerror(errno));
	fclose(f);
	free(buf);
	if (!*n)
		die("configurations '%s' hold none (write them with sweep --dry-run --format json)", path);
	qsort(v, (size_t)*n, sizeof(*v), shard_cmp_id);
	for (long i = 1; i < *n; i++)
		if (v[i].id == v[i - 1].id)
			die("%s:%d: id %ld given twice (also line %d)", path, v[i].lineno, v[i].id, v[i - 1].lineno);
	return v;
}

/* A string member of a line, or die naming it; NULL for null where null may be. */
static const char *shard_str(const char *path, const struct shard_line *l, const char *name, int nullable)
{
	json_t *v = json_object_get(l->obj, name);

	if (nullable && (!v || json_is_null(v)))
		return NULL;
	if (!json_is_string(v))
		die("%s:%d: configuration %ld has no string \"%s\"", path, l->lineno, l->id, name);
	return json_string_value(v);
}

static int shard_int(const char *path, const struct shard_line *l, const char *name, int lo, int hi)
{
	json_t *v = json_object_get(l->obj, name);

	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		die("%s:%d: configuration %ld: bad \"%s\" (want a whole number from %d to %d)", path,
		    l->lineno, l->id, name, lo, hi);
	return (int)json_integer_value(v);
}

/* A sweep of line l's one configuration, checked as sweep checks its options. */
static void shard_sweep(const char *path, const struct shard_line *l, const struct topo *t,
			struct bench_sweep *s)
{
	const char *algo = shard_str(path, l, "algo", 0), *why;
	struct bench_shape shape;
	char err[256];
	int pu;

	memset(s, 0, sizeof(*s));
	s->algo = bench_xcalloc(1, sizeof(*s->algo));
	s->algo[0] = bench_algo_find(algo);
	if (!s->algo[0])
		die("%s:%d: unknown algorithm '%s' (ctrbench list shows them)", path, l->lineno, algo);
	s->nr_algos = 1;
	s->workload = bench_xcalloc(1, sizeof(*s->workload));
	s->workload[0] = shard_str(path, l, "workload", 0);
	s->nr_workloads = 1;
	s->shape = bench_xcalloc(1, sizeof(*s->shape));
	s->shape[0] = (char *)shard_str(path, l, "shape", 0);
	s->nr_shapes = 1;
	if (bench_shape_parse(s->shape[0], &shape, &why))
		die("%s:%d: bad shape '%s' (%s)", path, l->lineno, s->shape[0], why);
	bench_shape_free(&shape);
	s->threads = bench_xcalloc(1, sizeof(*s->threads));
	s->threads[0] = shard_int(path, l, "threads", 1, BENCH_SWEEP_MAX_THREADS);
	s->nr_threads = 1;
	s->placement = bench_xcalloc(1, sizeof(*s->placement));
	s->placement[0] = (char *)shard_str(path, l, "placement", 0);
	s->nr_placements = 1;
	if (topo_place(t, s->placement[0], 1, &pu, NULL, err, sizeof(err)))
		die("%s:%d: %s", path, l->lineno, err);
	s->reps = shard_int(path, l, "reps_requested", 1, 1000);
	s->duration_ms = shard_int(path, l, "duration_ms", 1, 3600 * 1000);
	s->warmup_ms = shard_int(path, l, "warmup_ms", 0, 3600 * 1000);
	s->readers = strcmp(s->workload[0], "readers") ? -1
			: shard_int(path, l, "readers", 1, BENCH_SWEEP_MAX_THREADS);
	s->flush_period_ms = shard_int(path, l, "flush_period_ms", 0, 3600 * 1000);
	s->work_ns = shard_int(path, l, "work_ns", 0, 10 * 1000 * 1000);
	s->work_iters = shard_int(path, l, "work_iters", 0, 1000 * 1000 * 1000);
	s->slots = shard_int(path, l, "slots", 1, 8192);
	s->options = shard_str(path, l, "options", 1);
	s->events = shard_str(path, l, "events_requested", 1);
	s->note = shard_str(path, l, "note", 1);
	bench_parse_workload(s->workload[0]);
	bench_die_where(NULL);
	bench_sweep_check(s);
}

/* What of the line's identity this build would write differently: the field's path, or NULL. */
static const char *shard_differs(json_t *line, json_t *ident)
{
	for (int f = 0; f < BF_NR; f++) {
		json_t *a, *b;

		if (!bench_field_is_resume_key(f) || bench_fields[f].type == BT_OBJ)
			continue;
		a = bench_json_path(line, bench_fields[f].path);
		b = bench_json_path(ident, bench_fields[f].path);
		if (!json_equal(a ? a : json_null(), b ? b : json_null()))
			return bench_fields[f].path;
	}
	return NULL;
}

/* Lines a and b are one point (every identity field but the algorithm's equal). */
static int shard_same_point(json_t *a, json_t *b)
{
	for (int f = 0; f < BF_NR; f++) {
		json_t *x, *y;

		if (!bench_field_is_resume_key(f) || bench_fields[f].type == BT_OBJ ||
		    f == BF_ALGO || f == BF_BASELINE)
			continue;
		x = bench_json_path(a, bench_fields[f].path);
		y = bench_json_path(b, bench_fields[f].path);
		if (!json_equal(x ? x : json_null(), y ? y : json_null()))
			return 0;
	}
	return 1;
}

/*
 * DIR for the shard's file: made if missing (the shards of one plan make it
 * at once: EEXIST is theirs), and refused if it holds anything but shard
 * files, which only this command writes.
 */
static void shard_out_dir(const char *dir)
{
	struct stat sb;
	struct dirent *e;
	DIR *d;

	if (mkdir(dir, 0777) && errno != EEXIST)
		die("cannot make folder '%s': %s", dir, strerror(errno));
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode))
		die("bad value '%s' for --out (with --shard, a folder: each shard writes shard-I-of-N.jsonl"
		    " there)", dir);
	d = opendir(dir);
	if (!d)
		die("cannot read folder '%s': %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		char again[64];
		int i, n, end = 0;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (sscanf(e->d_name, "shard-%d-of-%d.jsonl%n", &i, &n, &end) == 2 &&
		    snprintf(again, sizeof(again), "shard-%d-of-%d.jsonl", i, n) > 0 && !strcmp(again, e->d_name) &&
		    (size_t)end == strlen(e->d_name))
			continue;
		die("'%s' holds '%s', which sweep --shard did not write: give a new or empty folder, or one of"
		    " shard files", dir, e->d_name);
	}
	closedir(d);
}

int bench_sweep_exec_shard(const struct bench_sweep *head)
{
	const char *path = head->configs_file;
	struct bench_sweep h = *head, *s;
	struct bench_sweep_unit *u;
	struct shard_line *line;
	long m, lo, hi;
	int n = 0, ret, *ids;
	char err[256], *out;
	struct topo *t;
	json_t *env;

	bench_check_utf8("--configs", path);
	line = shard_read(path, &m);
	bench_sweep_shard_range(m, head->shard, head->nr_shards, &lo, &hi);
	if (asprintf(&out, "%s/shard-%d-of-%d.jsonl", head->out, head->shard, head->nr_shards) < 0)
		die("out of memory");
	t = topo_load(NULL, err, sizeof(err));
	if (!t)
		die("%s", err);
	env = bench_env_json(NULL);
	s = bench_xcalloc((size_t)(hi - lo) + 1, sizeof(*s));
	u = bench_xcalloc((size_t)(hi - lo) + 1, sizeof(*u));
	ids = bench_xcalloc((size_t)(hi - lo) + 1, sizeof(int));
	for (long k = lo; k < hi; k++) {
		struct bench_sweep one;
		const char *bad;
		json_t *id;

		shard_sweep(path, &line[k], t, &one);
		id = bench_sweep_ident(&one, t, env, 0, 0);
		bad = shard_differs(line[k].obj, id);
		if (bad)
			die("%s:%d: configuration %ld: its \"%s\" is not what this build writes for it (another"
			    " build's plan, or a setting sweep does not pass): plan again with this ctrbench",
			    path, line[k].lineno, line[k].id, bad);
		json_decref(id);
		if (s[0].events != one.events && (!s[0].events || !one.events || strcmp(s[0].events, one.events)) &&
		    k > lo)
			die("%s:%d: configuration %ld: events_requested differs from the shard's first: one"
			    " --events for a whole sweep", path, line[k].lineno, line[k].id);
		ids[k - lo] = (int)line[k].id;
		if (n && shard_same_point(line[k - 1].obj, line[k].obj)) {
			/* the next algorithm of the group: the lists are its first line's (strings live in line[]) */
			struct bench_sweep *g = &s[n - 1];

			g->algo = realloc(g->algo, sizeof(*g->algo) * (size_t)(g->nr_algos + 1));
			if (!g->algo)
				die("out of memory");
			g->algo[g->nr_algos++] = one.algo[0];
			free(one.algo);
			free(one.workload);
			free(one.shape);
			free(one.threads);
			free(one.placement);
			continue;
		}
		s[n] = one;
		u[n] = (struct bench_sweep_unit){ .s = &s[n], .point = 0, .ids = ids + (k - lo) };
		n++;
	}
	json_decref(env);
	topo_free(t);
	/* every line checked: only now is anything made */
	shard_out_dir(head->out);
	h.out = out;
	h.events = n ? s[0].events : NULL;
	if (n) {
		h.duration_ms = s[0].duration_ms;
		h.warmup_ms = s[0].warmup_ms;
	}
	fprintf(stderr, "ctrbench: sweep: shard %d of %d: configurations %ld to %ld of %ld (by id) into '%s'\n",
		head->shard, head->nr_shards, lo < hi ? line[lo].id : 0, lo < hi ? line[hi - 1].id : 0, m, out);
	ret = bench_sweep_run(&h, u, n);
	for (int g = 0; g < n; g++) {
		free(s[g].algo);
		free(s[g].workload);
		free(s[g].shape);
		free(s[g].threads);
		free(s[g].placement);
	}
	for (long k = 0; k < m; k++)
		json_decref(line[k].obj);
	free(line);
	free(ids);
	free(u);
	free(s);
	free(out);
	return ret;
}
