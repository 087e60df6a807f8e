/* SPDX-License-Identifier: MIT */
/* ctrbench compare: the change per configuration between two result files, and whether it is noise. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>

#include "cli.h"
#include "builtin.h"
#include "stats.h"
#include "results.h"
#include "schema.h"
#include "output.h"

/* ---- reading result files ---- */

static char *cell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct samples {
	double *v;
	int n, cap;
};

/* One configuration's figures on one side. */
struct side {
	struct samples reps;	/* every rep of every line */
	struct samples procs;	/* one per line (process): the median of its reps */
};

struct config {
	char *key;		/* the identity fields (schema.h) as compact JSON */
	json_t *line;		/* the first line of it, for its fields (owned) */
	struct side side[2];	/* in A and in B */
	int in[2];		/* it has lines in A, in B */
};

struct configs {
	struct config *c;
	int n, cap;
};

static void samples_add(struct samples *s, double v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = realloc(s->v, sizeof(*s->v) * (size_t)s->cap);
		if (!s->v)
			die("out of memory");
	}
	s->v[s->n++] = v;
}

/* --ignore FIELD,...: identity fields left out of matching (--ignore-algo: algo). */
static int cmp_ignored[BF_NR];

/*
 * --by machine: the sides are the two machines (env.machine) the lines were
 * measured on, not the two files: A the machine of the first line read, B the
 * other.  Lines of one machine from any number of files (a sweep's shards)
 * pool into its side, as reps of one configuration.
 */
static struct {
	int on;			/* --by machine */
	char *name[2];		/* env.machine of side A and B (strdup'd), NULL until met */
} cmp_by_machine;

/* "unknown machine" for a line from before env.machine (or one that could not read its CPU). */
static const char *line_machine(json_t *o)
{
	const char *m = json_string_value(json_object_get(json_object_get(o, "env"), "machine"));

	return m ? m : "unknown machine";
}

/* The side of a line under --by machine: 0 or 1; a third machine is an error naming it and the two. */
static int machine_side(json_t *o, const char *file, int lineno)
{
	const char *m = line_machine(o);

	for (int s = 0; s < 2; s++) {
		if (!cmp_by_machine.name[s]) {
			cmp_by_machine.name[s] = bench_xstrdup(m);
			return s;
		}
		if (!strcmp(cmp_by_machine.name[s], m))
			return s;
	}
	die("%s:%d: a third machine '%s' (compare --by machine puts two side by side: '%s' and '%s')",
	    file, lineno, m, cmp_by_machine.name[0], cmp_by_machine.name[1]);
}

/* What makes two lines the same configuration: the table's keys and knobs, less --ignore. */
static int cmp_in_key(int f)
{
	return bench_field_is_config(f) && !cmp_ignored[f];
}

static struct config *config_get(struct configs *cs, json_t *line)
{
	char *key = bench_line_key(line, cmp_in_key);

	for (int i = 0; i < cs->n; i++) {
		if (!strcmp(cs->c[i].key, key)) {
			free(key);
			return &cs->c[i];
		}
	}
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? 2 * cs->cap : 16;
		cs->c = realloc(cs->c, sizeof(*cs->c) * (size_t)cs->cap);
		if (!cs->c)
			die("out of memory");
	}
	cs->c[cs->n] = (struct config){ .key = key, .line = json_incref(line) };
	return &cs->c[cs->n++];
}

/* A sample from v: added when a number, skipped when absent or null, else bad input. */
static void add_value(struct samples *s, json_t *v, const char *file, int line, const char *what)
{
	if (!v || json_is_null(v))
		return;
	if (!json_is_number(v))
		die("%s:%d: %s is not a number", file, line, what);
	samples_add(s, json_number_value(v));
}

/* The KEY fields a line must have to be compared (a line without one is not a result line). */
static void check_keys(json_t *o, const char *file, int line)
{
	const char *kind = json_string_value(json_object_get(o, "kind"));

	/* c2c, limits and projected lines have tables of their own: nothing here to compare */
	if (kind)
		die("%s:%d: a '%s' line, not a run result: compare takes ctrbench run or sweep results",
		    file, line, kind);
	for (int f = 0; f < BF_NR; f++) {
		json_t *v = bench_line_field(o, f);

		if (bench_fields[f].ident != BI_KEY)
			continue;
		if (!v)
			die("%s:%d: \"%s\" is missing", file, line, bench_fields[f].path);
		if ((bench_fields[f].type == BT_STR && !json_is_string(v)) ||
		    (bench_fields[f].type == BT_INT && !json_is_integer(v)))
			die("%s:%d: \"%s\" is not %s", file, line, bench_fields[f].path,
			    bench_fields[f].type == BT_STR ? "a string" : "an integer");
	}
}

/* The metric of one line: its reps' values (or its own figure without reps) into s->reps, their median into s->procs. */
static void add_line(struct side *s, json_t *o, const char *metric, const char *file, int lineno)
{
	json_t *reps = json_object_get(o, "reps"), *v;
	struct samples one = { 0 };
	char what[160];
	size_t i;

	if (reps && !json_is_null(reps) && !json_is_array(reps))
		die("%s:%d: \"reps\" is not an array", file, lineno);
	if (json_array_size(reps)) {
		json_array_foreach(reps, i, v) {
			if (!json_is_object(v))
				die("%s:%d: reps[%zu] is not an object", file, lineno, i);
			snprintf(what, sizeof(what), "reps[%zu].%s", i, metric);
			add_value(&one, bench_json_path(v, metric), file, lineno, what);
		}
	} else {
		add_value(&one, bench_json_path(o, metric), file, lineno, metric);
	}
	for (int k = 0; k < one.n; k++)
		samples_add(&s->reps, one.v[k]);
	if (one.n)
		samples_add(&s->procs, cmp_median(one.v, one.n));
	free(one.v);
}

static void read_file(struct configs *cs, int side, const char *file, const char *metric)
{
	struct bench_results r;

	int s;

	bench_results_load(file, 0, &r);
	bench_results_check_partial(&r, file, "compare");
	for (int l = 0; l < r.n; l++) {
		struct config *c;

		check_keys(r.line[l].obj, file, r.line[l].lineno);
		c = config_get(cs, r.line[l].obj);
		s = cmp_by_machine.on ? machine_side(r.line[l].obj, file, r.line[l].lineno) : side;
		c->in[s] = 1;
		add_line(&c->side[s], r.line[l].obj, metric, file, r.line[l].lineno);
	}
	if (!r.n)
		die("'%s' has no results", file);
	bench_results_free(&r);
}

/*
 * --by machine takes folders too (a sweep's shards, a folder per machine):
 * every regular *.jsonl file under one, in path order, each read as a
 * results file; a report's folder (its .ctrbench-report marker) is skipped.
 * Returns how many files it read.
 */
static int read_folder(struct configs *cs, const char *dir, const char *metric)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), read = 0;
	char path[4096], marker[4096];
	struct stat st;

	if (n < 0)
		die("cannot read the folder '%s': %s", dir, strerror(errno));
	snprintf(marker, sizeof(marker), "%s/.ctrbench-report", dir);
	for (int i = 0; i < n; i++) {
		if (!access(marker, F_OK)) {	/* a report's folder: its files are not results */
			free(names[i]);
			continue;
		}
		const char *e = names[i]->d_name;
		size_t len = strlen(e);

		if (e[0] != '.' &&
		    snprintf(path, sizeof(path), "%s/%s", dir, e) < (int)sizeof(path) && !lstat(path, &st)) {
			if (S_ISDIR(st.st_mode)) {
				read += read_folder(cs, path, metric);
			} else if (S_ISREG(st.st_mode) && len > 6 && !strcmp(e + len - 6, ".jsonl")) {
				read_file(cs, 0, path, metric);
				read++;
			}
		}
		free(names[i]);
	}
	free(names);
	return read;
}

/*
 * Why configuration c (only on one side) matched nothing on the other: the
 * configuration there that differs from it in the fewest identity fields,
 * and the first of those fields with both values.
 */
static char *unmatched_why(const struct configs *cs, const struct config *c)
{
	int side = c->in[0] ? 1 : 0, best = -1, best_nr = BF_NR + 1, field = -1;
	char *a, *b, *why;

	for (int i = 0; i < cs->n; i++) {
		int nr, f;

		if (!cs->c[i].in[side] || cs->c[i].in[!side])
			continue;
		f = bench_line_diff(c->line, cs->c[i].line, cmp_in_key, &nr);
		if (f >= 0 && nr < best_nr) {
			best = i;
			best_nr = nr;
			field = f;
		}
	}
	if (best < 0)
		return cell("no line in %s", side ? "B" : "A");
	a = json_dumps(bench_line_field(c->line, field), JSON_COMPACT | JSON_ENCODE_ANY);
	b = json_dumps(bench_line_field(cs->c[best].line, field), JSON_COMPACT | JSON_ENCODE_ANY);
	/* the flag that would pair them, where this field is the only one apart (issue 31) */
	why = cell("%s differs: %s here, %s in %s%s%s%s", bench_fields[field].path, a ? a : "null",
		   b ? b : "null", side ? "B" : "A", best_nr > 1 ? " (and more fields)" : "",
		   best_nr > 1 ? "" : "; --ignore ", best_nr > 1 ? "" : bench_fields[field].path);
	free(a);
	free(b);
	return why;
}

/* ---- deciding ---- */

/* What decides a verdict (the command's options). */
struct cmp_opts {
	const char *metric;		/* --metric */
	int higher_better;		/* ops_per_sec: higher is faster */
	double alpha;			/* --significance-level */
	double noise;			/* --noise-threshold, as a fraction (0.02) */
	const char *noise_file;		/* --noise FILE: a calibration to honour, or NULL */
	const char *calibrate;		/* --calibrate FILE: write this A/A comparison's noise there */
	int fail_on;			/* --fail-on: 0 never, 1 slower, 2 changed */
	int json;			/* --format json */
	int wide;			/* --wide: every column, notes on one line each */
};

enum verdict { V_NO_CHANGE, V_FASTER, V_SLOWER, V_NOISE, V_INCONCLUSIVE, V_NA, V_ONLY_A, V_ONLY_B };

static const char *const verdict_names[] = {
	[V_NO_CHANGE] = "no change", [V_FASTER] = "faster", [V_SLOWER] = "slower",
	[V_NOISE] = "within noise", [V_INCONCLUSIVE] = "inconclusive", [V_NA] = "n/a",
	[V_ONLY_A] = "only in A", [V_ONLY_B] = "only in B",
};

struct outcome {
	int n[2];			/* samples per side (reps, or processes) */
	int by_process;			/* the samples are processes (>= 2 lines per side), not reps */
	double med[2];			/* medians of the metric */
	double ratio;			/* med[1] / med[0] */
	double ch_lo, ch_hi;		/* bootstrap interval of the change, % */
	double p;			/* Mann-Whitney two-sided p-value */
	double threshold;		/* |log ratio| a change must pass: max(noise, between-process) */
	enum verdict verdict;
};

/* The smallest two-sided p-value Mann-Whitney can give with na and nb samples: 2 / C(na + nb, na). */
static double mw_min_p(int na, int nb)
{
	return 2 * exp(lgamma(na + 1.0) + lgamma(nb + 1.0) - lgamma(na + nb + 1.0));
}

/* The test and the medians; the threshold and the verdict come after (they need every configuration). */
static void compare_one(const struct config *c, struct outcome *r)
{
	const struct samples *s[2];

	*r = (struct outcome){ .ratio = NAN, .ch_lo = NAN, .ch_hi = NAN, .p = NAN, .verdict = V_NA };
	/* several processes on both sides: a process is the unit, so drift between them is in the test */
	r->by_process = c->side[0].procs.n >= 2 && c->side[1].procs.n >= 2;
	for (int k = 0; k < 2; k++) {
		s[k] = r->by_process ? &c->side[k].procs : &c->side[k].reps;
		r->n[k] = s[k]->n;
		r->med[k] = cmp_median(s[k]->v, s[k]->n);
	}
	if (!c->in[0] || !c->in[1])
		r->verdict = c->in[0] ? V_ONLY_A : V_ONLY_B;
	if (!c->in[0] || !c->in[1] || !r->n[0] || !r->n[1])
		return;
	if (r->med[0] > 0 && r->med[1] > 0)
		r->ratio = r->med[1] / r->med[0];
	cmp_bootstrap_change_ci(s[0]->v, r->n[0], s[1]->v, r->n[1], CMP_RESAMPLES, CMP_SEED, CMP_LEVEL,
				&r->ch_lo, &r->ch_hi);
	/* the test sees values within CMP_TIE_REL as ties: on copies, the medians stay as measured */
	double *sa = bench_xmalloc(sizeof(*sa) * (size_t)r->n[0]), *sb = bench_xmalloc(sizeof(*sb) * (size_t)r->n[1]);

	memcpy(sa, s[0]->v, sizeof(*sa) * (size_t)r->n[0]);
	memcpy(sb, s[1]->v, sizeof(*sb) * (size_t)r->n[1]);
	cmp_snap(sa, r->n[0], sb, r->n[1], CMP_TIE_REL);
	r->p = cmp_mw_p(sa, r->n[0], sb, r->n[1]);
	free(sa);
	free(sb);
}

/* Median of |x - median(x)| times 1.4826: a standard deviation that outliers do not move. */
static double robust_sd(const double *x, int n)
{
	double m = cmp_median(x, n), *d = bench_xmalloc(sizeof(*d) * (size_t)(n ? n : 1)), sd;

	for (int i = 0; i < n; i++)
		d[i] = fabs(x[i] - m);
	sd = 1.4826 * cmp_median(d, n);
	free(d);
	return sd;
}

/* Configurations needed to estimate the between-process noise from their spread. */
#define CMP_XCONFIG_MIN 8
/* A change must be this many of those standard deviations away to be outside it. */
#define CMP_XCONFIG_SIGMAS 3.0

/*
 * The noise between processes, as |log ratio| (0 when none is known):
 *  - a calibration (--noise FILE): the 95th percentile of |log ratio| over the configurations of
 *    an A/A comparison of two separate runs;
 *  - else, with >= CMP_XCONFIG_MIN configurations compared one process a side: each is one
 *    draw of the between-process difference, so CMP_XCONFIG_SIGMAS robust standard deviations
 *    of their log ratios (around their median: a shift of every configuration alike stays a
 *    change, see docs/methodology.md).
 */
static double between_noise(const struct outcome *out, int n, const struct cmp_opts *o, const char **how)
{
	double *x = bench_xmalloc(sizeof(*x) * (size_t)(n ? n : 1)), sd;
	int k = 0;

	if (o->noise_file) {
		json_error_t err;
		json_t *j = bench_json_load_regular(o->noise_file, 0, &err), *q;

		if (!j) {
			free(x);
			die("cannot read --noise '%s': %s", o->noise_file, err.text);
		}
		q = json_object_get(j, "q95_abs_log_ratio");
		if (!json_is_number(q) || !json_is_string(json_object_get(j, "metric")) ||
		    strcmp(json_string_value(json_object_get(j, "metric")), o->metric)) {
			json_decref(j);	/* LeakSanitizer checks the exit of bad input too */
			free(x);
			die("bad value '%s' for --noise (not a calibration of %s by compare --calibrate)",
			    o->noise_file, o->metric);
		}
		sd = json_number_value(q);
		json_decref(j);
		free(x);
		*how = "calibration";
		return sd;
	}
	for (int i = 0; i < n; i++)
		if (!out[i].by_process && isfinite(out[i].ratio))
			x[k++] = log(out[i].ratio);
	sd = k >= CMP_XCONFIG_MIN ? CMP_XCONFIG_SIGMAS * robust_sd(x, k) : 0;
	*how = k >= CMP_XCONFIG_MIN ? "spread over configurations" : "none";
	free(x);
	return sd;
}

static void decide(struct outcome *r, double bp, const struct cmp_opts *o)
{
	int up;

	if (r->verdict != V_NA || !isfinite(r->ratio))
		return;
	r->threshold = fmax(log1p(o->noise), r->by_process ? 0 : bp);
	if (mw_min_p(r->n[0], r->n[1]) >= o->alpha)
		r->verdict = V_INCONCLUSIVE;	/* too few samples for any p below alpha */
	else if (r->p >= o->alpha)
		r->verdict = V_NO_CHANGE;
	else if (fabs(log(r->ratio)) <= r->threshold)
		r->verdict = V_NOISE;
	else {
		up = r->ratio > 1;
		r->verdict = up == o->higher_better ? V_FASTER : V_SLOWER;
	}
}

/*
 * --calibrate FILE writes a new file or replaces a calibration, never anything else (a typo
 * naming a results file or notes would lose it): what compare --calibrate writes is recognised by
 * its kind and, for files written before the kind was, by the members it has always had.
 */
#define CMP_CAL_KIND "compare-calibration"

static int is_calibration(json_t *j)
{
	json_t *kind = json_object_get(j, "kind"), *files = json_object_get(j, "files");

	return json_is_object(j) && (!kind || (json_is_string(kind) &&
					       !strcmp(json_string_value(kind), CMP_CAL_KIND))) &&
	       json_is_string(json_object_get(j, "metric")) && json_is_array(files) &&
	       json_array_size(files) == 2 && json_is_integer(json_object_get(j, "configurations")) &&
	       json_is_number(json_object_get(j, "q95_abs_log_ratio")) &&
	       json_is_array(json_object_get(j, "configs"));
}

/*
 * Where --calibrate FILE may be written, checked before anything is compared (a refusal then
 * costs nothing and leaves everything as it was): FILE new, empty (nothing to lose: mktemp's
 * file), or a calibration; never a device, FIFO or folder, and never input A or B, even were
 * they calibrations (the files it is computed from).  A symbolic link is followed, so that the
 * link stays and its target is replaced.  Returns the path to write (free it); *is_new when
 * nothing is there yet.
 */
static char *calibrate_target(const char *path, const char *const file[2], int *is_new)
{
	struct stat sb, in;
	json_error_t err;
	char *real;
	json_t *j;
	int ok;

	*is_new = 0;
	if (lstat(path, &sb)) {
		if (errno != ENOENT)
			die("cannot write --calibrate '%s': %s", path, strerror(errno));
		*is_new = 1;
		return bench_xstrdup(path);
	}
	if (S_ISLNK(sb.st_mode)) {
		real = realpath(path, NULL);
		if (!real || stat(real, &sb)) {
			free(real);
			die("bad value '%s' for --calibrate (a symbolic link to nothing: give the file itself)",
			    path);
		}
	} else {
		real = bench_xstrdup(path);
	}
	if (!S_ISREG(sb.st_mode)) {
		free(real);
		die("bad value '%s' for --calibrate (not a regular file: a calibration is a new file or"
		    " one compare --calibrate wrote)", path);
	}
	for (int i = 0; i < 2; i++)
		if (!stat(file[i], &in) && in.st_dev == sb.st_dev && in.st_ino == sb.st_ino) {
			free(real);
			die("bad value '%s' for --calibrate (it is input %c, '%s': give a new file)", path,
			    'A' + i, file[i]);
		}
	if (sb.st_size == 0)
		return real;
	j = bench_json_load_regular(real, 0, &err);
	ok = j && is_calibration(j);
	json_decref(j);
	if (!ok) {
		free(real);
		die("bad value '%s' for --calibrate (it exists and is not a calibration that compare"
		    " --calibrate wrote: give a new file; it was left as it is)", path);
	}
	return real;
}

/*
 * j into path whole or not at all: written to a new file beside it, flushed to disk, then
 * renamed over it, so that an interrupted or failed write (a full disk) leaves path as it was
 * and no temporary behind.  A path that was new must still be (RENAME_NOREPLACE: a file made
 * there meanwhile is not replaced; a filesystem without it gets a plain rename).  Returns 0 or
 * an errno.
 */
static int write_whole(json_t *j, const char *path, int is_new)
{
	char *dir = bench_xstrdup(path), *slash = strrchr(dir, '/'), *tmp = NULL;
	int fd, dfd, err = 0;
	mode_t um;
	FILE *f;

	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	/* a short name of its own: path's own name plus a suffix could pass NAME_MAX */
	if (asprintf(&tmp, "%s/.ctrbench-calibration.XXXXXX", slash ? dir : ".") < 0)
		die("out of memory");
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		goto out;
	}
	um = umask(0);	/* mkostemp made it 0600; a calibration is read as any file fopen makes */
	umask(um);
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		goto fail;
	}
	errno = 0;
	if (fchmod(fd, 0666 & ~um) || json_dumpf(j, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) ||
	    fputc('\n', f) == EOF || fflush(f) || fsync(fd))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno;
	if (err)
		goto fail;
	if (is_new && renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE)) {
		if (errno != EINVAL && errno != ENOSYS) {
			err = errno;
			goto fail;
		}
		is_new = 0;
	}
	if (!is_new && rename(tmp, path)) {
		err = errno;
		goto fail;
	}
	/* the new name must survive a crash too */
	dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	goto out;
fail:
	unlink(tmp);
out:
	free(tmp);
	free(dir);
	return err;
}

/*
 * --calibrate: this comparison's noise, for later --noise FILE, into target (calibrate_target).
 * Returns 0, or 1 with why in msg: the caller frees what it holds before it dies, so that
 * LeakSanitizer finds nothing on that exit either.
 */
static int write_calibration(const struct configs *cs, const struct outcome *out, const struct cmp_opts *o,
			     const char *file[2], const char *target, int is_new, char *msg, size_t len)
{
	double *x = bench_xmalloc(sizeof(*x) * (size_t)(cs->n ? cs->n : 1)), q;
	json_t *per = json_array(), *j;
	int k = 0, err;

	for (int i = 0; i < cs->n; i++) {
		if (!isfinite(out[i].ratio))
			continue;
		x[k++] = fabs(log(out[i].ratio));
		json_array_append_new(per, json_pack("{s:s,s:f}", "config", cs->c[i].key,
						     "abs_log_ratio", x[k - 1]));
	}
	if (k < 2) {
		snprintf(msg, len, "compare --calibrate needs at least 2 configurations in both files (got %d)", k);
		json_decref(per);
		free(x);
		return 1;
	}
	qsort(x, (size_t)k, sizeof(*x), cmp_double);
	q = quantile_sorted(x, k, 0.95);
	free(x);
	j = json_pack("{s:s,s:s,s:[s,s],s:i,s:f,s:f,s:o}", "kind", CMP_CAL_KIND, "metric", o->metric,
		      "files", file[0], file[1], "configurations", k, "q95_abs_log_ratio", q,
		      "q95_ratio", exp(q), "configs", per);
	if (!j)
		die("out of memory");
	err = write_whole(j, target, is_new);
	json_decref(j);
	if (err) {
		snprintf(msg, len, "cannot write --calibrate '%s': %s (nothing was written)", o->calibrate,
			 strerror(err));
		return 1;
	}
	fprintf(stderr, "ctrbench: compare: A/A noise of %d configurations: 95%% of |change| within %.3fx;"
		" written to '%s' (compare --noise FILE honours it)\n", k, exp(q), o->calibrate);
	return 0;
}

/* ---- printing ---- */

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* 123456789 -> "123.5M": four significant figures with an SI suffix. */
static void fmt_si(char *buf, size_t len, double v)
{
	static const char *const sfx[] = { "", "k", "M", "G", "T" };
	int i = 0;
	double a = fabs(v);

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	while (a >= 1000 && i < 4) {
		a /= 1000;
		v /= 1000;
		i++;
	}
	snprintf(buf, len, "%.*f%s", a >= 100 ? 1 : a >= 10 ? 2 : 3, v, sfx[i]);
}

static char *cell(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	return s;
}

/* A field of configuration k as text: strings as they are, anything else as JSON; "-" for null. */
static char *field_text(const struct config *k, int f)
{
	json_t *v = bench_line_field(k->line, f);
	char *t;

	if (cmp_ignored[f])
		return cell("(either)");
	if (!v || json_is_null(v))
		return cell("-");
	if (json_is_string(v))
		return cell("%s", json_string_value(v));
	t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!t)
		die("out of memory");
	return t;
}

/* The knobs of k that are not at their default, "work_ns=2000 options=read=spin", or "-". */
static char *knobs_text(const struct config *k)
{
	char buf[512] = "";

	for (int f = 0; f < BF_NR; f++) {
		json_t *v = bench_line_field(k->line, f), *d;
		char *t;

		if (bench_fields[f].ident != BI_KNOB || !v || cmp_ignored[f])
			continue;
		d = bench_fields[f].def ? json_loads(bench_fields[f].def, JSON_DECODE_ANY, NULL) : NULL;
		if (!d || !json_equal(v, d)) {
			t = field_text(k, f);
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s=%s", *buf ? " " : "",
				 bench_fields[f].path, t);
			free(t);
		}
		json_decref(d);
	}
	return cell("%s", *buf ? buf : "-");
}

/*
 * What decided a verdict that has both figures (decide()): the test (p at
 * or over alpha: no change, whatever the ratio), else the threshold (the
 * ratio inside it: within noise), else both passed.  It names the one
 * that decided, with its figure (issue 31: "threshold 1.020x" for a row at
 * 0.923x that p = 0.222 had left unchanged).
 */
static char *decided_why(const struct outcome *r, const struct cmp_opts *o)
{
	if (r->verdict == V_NO_CHANGE)
		return cell("test: p %.3g >= alpha %.3g", r->p, o->alpha);
	if (r->verdict == V_NOISE)
		return cell("threshold %.3fx: |B/A - 1| %.2f%% is within it", exp(r->threshold),
			    100 * fabs(r->ratio - 1));
	return cell("threshold %.3fx passed, and the test: p %.3g < alpha %.3g", exp(r->threshold), r->p, o->alpha);
}

static json_t *outcome_json(const struct configs *cs, int i, const struct outcome *r,
			    const struct cmp_opts *o, const char *file[2])
{
	const struct config *k = &cs->c[i];
	json_t *j = json_object(), *config = json_object();

	for (int f = 0; f < BF_NR; f++)
		if (cmp_in_key(f))
			json_object_set(config, bench_fields[f].path, bench_line_field(k->line, f) ?
					bench_line_field(k->line, f) : json_null());
	json_object_set_new(j, "config", config);
	json_object_set_new(j, "metric", json_string(o->metric));
	json_object_set_new(j, "better", json_string(o->higher_better ? "higher" : "lower"));
	for (int s = 0; s < 2; s++)
		json_object_set_new(j, s ? "b" : "a", !k->in[s] ? json_null() :
				    json_pack("{s:s,s:i,s:i,s:o}", cmp_by_machine.on ? "machine" : "file", file[s], "n", r->n[s],
					      "lines", k->side[s].procs.n, "median", num(r->med[s])));
	json_object_set_new(j, "unit", json_string(r->by_process ? "process" : "rep"));
	json_object_set_new(j, "ratio", num(r->ratio));
	json_object_set_new(j, "change_ci_pct", isfinite(r->ch_lo) ?
			    json_pack("[f,f]", r->ch_lo, r->ch_hi) : json_null());
	json_object_set_new(j, "p_value", num(r->p));
	json_object_set_new(j, "significance_level", json_real(o->alpha));
	json_object_set_new(j, "threshold_ratio", r->threshold > 0 ? json_real(exp(r->threshold)) : json_null());
	json_object_set_new(j, "verdict", json_string(verdict_names[r->verdict]));
	if (r->verdict == V_NO_CHANGE || r->verdict == V_NOISE || r->verdict == V_FASTER || r->verdict == V_SLOWER) {
		char *why = decided_why(r, o);

		json_object_set_new(j, "why", json_string(why));
		free(why);
	}
	if (!k->in[0] || !k->in[1]) {
		char *why = unmatched_why(cs, k);

		json_object_set_new(j, "unmatched", json_string(why));
		free(why);
	}
	return j;
}

enum { NCOL = 13 };

/* Column j of the table: numbers right-aligned, names left, the last one (last) ends the line. */
static void print_cell(int j, int w, const char *s, int last)
{
	if (last)
		printf("%s\n", s);
	else if (j >= 6 && j <= 10)
		printf("%*s  ", w, s);
	else
		printf("%-*s  ", w, s);
}

/* The row of configuration i, NCOL cells. */
static char **outcome_row(const struct configs *cs, int i, const struct outcome *r, const struct cmp_opts *o)
{
	const struct config *k = &cs->c[i];
	char **row = bench_xmalloc(sizeof(*row) * NCOL), m[2][32];

	for (int s = 0; s < 2; s++)
		fmt_si(m[s], sizeof(m[s]), r->med[s]);
	row[0] = field_text(k, BF_ALGO);
	row[1] = field_text(k, BF_WORKLOAD);
	row[2] = field_text(k, BF_SHAPE);
	row[3] = field_text(k, BF_THREADS);
	row[4] = field_text(k, BF_PLACEMENT);
	row[5] = knobs_text(k);
	row[6] = k->in[0] ? cell("%s (%d%s)", m[0], r->n[0], r->by_process ? "p" : "") : cell("-");
	row[7] = k->in[1] ? cell("%s (%d%s)", m[1], r->n[1], r->by_process ? "p" : "") : cell("-");
	row[8] = isfinite(r->ratio) ? cell("%.3fx", r->ratio) : cell("-");
	row[9] = isfinite(r->ch_lo) ? cell("[%.3fx, %.3fx]", 1 + r->ch_lo / 100, 1 + r->ch_hi / 100) : cell("-");
	row[10] = isfinite(r->p) ? cell("%.3g", r->p) : cell("-");
	row[11] = cell("%s", verdict_names[r->verdict]);
	if (r->verdict == V_ONLY_A || r->verdict == V_ONLY_B)
		row[12] = unmatched_why(cs, k);
	else if (r->verdict == V_INCONCLUSIVE)
		row[12] = cell("too few samples for p < alpha (min p %.3g)", mw_min_p(r->n[0], r->n[1]));
	else if (r->verdict == V_NA)
		row[12] = cell("no figure");
	else
		row[12] = decided_why(r, o);
	return row;
}

static void print_table(const struct configs *cs, const struct outcome *out, const struct cmp_opts *o,
			const char *file[2], double bp, const char *bp_how)
{
	static const char *const head[NCOL] = {
		"algo", "workload", "shape", "threads", "placement", "settings", "A median", "B median",
		"B/A", "95% CI", "p", "verdict", "why",
	};
	char ***rows = bench_xmalloc(sizeof(*rows) * (size_t)(cs->n + 1)), *note;
	int w[NCOL], show[NCOL], last = NCOL - 1;

	note = cell("compare%s: A = %s, B = %s; metric %s (%s is faster); B/A = median(B) / median(A)",
		    cmp_by_machine.on ? " --by machine" : "", file[0], file[1], o->metric,
		    o->higher_better ? "higher" : "lower");
	bench_print_wrapped(stdout, "# ", "#   ", "", note, o->wide);
	free(note);
	{
		char buf[1024] = "";

		for (int f = 0; f < BF_NR; f++)
			if (cmp_ignored[f])
				snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
					 *buf ? ", " : "--ignore: lines paired whatever their ", bench_fields[f].path);
		if (*buf)
			bench_print_wrapped(stdout, "# ", "#   ", "", buf, o->wide);
	}
	printf("# changed (faster/slower) when both: Mann-Whitney U two-sided p < %g (exact up to %d samples)\n"
	       "#   and |B/A - 1| beyond the threshold: the larger of --noise-threshold %.3gx and the noise\n"
	       "#   between processes (%s: %.3fx). Samples are reps, or processes (np) where each side has\n"
	       "#   >= 2 lines of the configuration. 95%% CI: percentile bootstrap of the medians, %d resamples\n",
	       o->alpha, CMP_MW_EXACT_MAX, 1 + o->noise, bp_how, exp(bp), CMP_RESAMPLES);
	for (int i = 0; i < cs->n; i++)
		rows[i] = outcome_row(cs, i, &out[i], o);
	for (int j = 0; j < NCOL; j++) {
		w[j] = (int)strlen(head[j]);
		for (int i = 0; i < cs->n; i++)
			if ((int)strlen(rows[i][j]) > w[j])
				w[j] = (int)strlen(rows[i][j]);
	}
	/*
	 * The default table fits BENCH_COLUMNS (issue 31): the key, both
	 * medians, B/A and the verdict; placement and settings only where the
	 * rows differ in them (else they would not tell the rows apart); the
	 * CI, p and why are --wide's (and the JSON's).
	 */
	for (int j = 0; j < NCOL; j++) {
		show[j] = o->wide || j <= 3 || (j >= 6 && j <= 8) || j == 11;
		for (int i = 1; !show[j] && j >= 4 && j <= 5 && i < cs->n; i++)
			show[j] = strcmp(rows[i][j], rows[0][j]) != 0;
	}
	if (!o->wide)
		last = 11;
	for (int j = 0; j < NCOL; j++)
		if (show[j])
			print_cell(j, w[j], head[j], j == last);
	for (int i = 0; i < cs->n; i++) {
		for (int j = 0; j < NCOL; j++) {
			if (show[j])
				print_cell(j, w[j], rows[i][j], j == last);
			free(rows[i][j]);
		}
		free(rows[i]);
	}
	if (!o->wide) {
		note = cell("--wide: %s95%% CI, p and why (what decided the verdict, what differed) too",
			    show[4] && show[5] ? "" : show[4] ? "settings (the same in every row), " : show[5] ?
			    "placement (the same in every row), " : "placement, settings (the same in every row), ");
		bench_print_wrapped(stdout, "# ", "#   ", "", note, 0);
		free(note);
	}
	free(rows);
}

/* ---- the command ---- */

static const char *const cmp_help =
	"usage: ctrbench compare A.jsonl B.jsonl [options]\n"
	"       ctrbench compare --by machine FILE... [options]\n"
	"\n"
	"The change of B against A per configuration (lines whose identity fields, ctrbench schema's\n"
	"keys and knobs, are all equal; a line that matches nothing says which field differed).\n"
	"A change is called (faster, slower) only when the test and the threshold both say so.\n"
	"\n"
	"  --metric M               ops_per_sec (default), cpu_ns_per_op (CPU time: what other load\n"
	"                           preempts does not count), update_ns.p50 or update_ns.p99\n"
	"  --significance-level A   Mann-Whitney p below A (default 0.05)\n"
	"  --noise-threshold PCT    |B/A - 1| must pass PCT percent (default 2)\n"
	"  --noise FILE             honour a calibration written by --calibrate (default: the spread\n"
	"                           over >= 8 configurations compared, else none)\n"
	"  --calibrate FILE         A and B are an A/A pair: write their noise to FILE (default: none;\n"
	"                           a new file or a calibration this wrote, never A or B)\n"
	"  --by file|machine        what A and B are: the two files (default), or the two machines\n"
	"                           (env.machine) the lines of every FILE were measured on, A the\n"
	"                           first line's: a machine's lines from many files (shards) pool;\n"
	"                           a FILE may be a folder (every *.jsonl under it)\n"
	"  --ignore FIELD,...       leave identity fields out of matching (default none)\n"
	"  --ignore-algo            the same as --ignore algo\n"
	"  --fail-on slower|changed exit 1 when a configuration is slower / changed (default: exit 0)\n"
	"  --format table|json      (default table)\n"
	"  --wide                   table: every column (placement, settings, 95% CI, p, why too) and\n"
	"                           notes on one line each (default: what fits 100 columns)\n"
	"\n"
	"example: ctrbench compare before.jsonl after.jsonl --fail-on slower\n"
	"         ctrbench compare --by machine milan/*.jsonl genoa/*.jsonl\n";

static void parse_ignore(const char *list)
{
	char *copy = strdup(list), *p = copy, *item;

	if (!copy)
		die("out of memory");
	while ((item = strsep(&p, ","))) {
		int f = bench_field_find(item);

		if (f < 0 || !bench_field_is_config(f))
			die("bad value '%s' for --ignore (want identity fields: ctrbench schema, identity key or knob)",
			    item);
		cmp_ignored[f] = 1;
	}
	free(copy);
}

static double parse_real(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!bench_plain_number(s) || errno || end == s || *end || !(v > lo) || !(v < hi))
		die("bad value '%s' for --%s (want a number above %g and below %g)", s, opt, lo, hi);
	return v;
}

static void parse_args(int argc, char **argv, struct cmp_opts *o, const char *file[2], int *nfiles)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' }, { "format", required_argument, NULL, 'f' },
		{ "ignore-algo", no_argument, NULL, 'i' }, { "ignore", required_argument, NULL, 'I' },
		{ "significance-level", required_argument, NULL, 'a' },
		{ "noise-threshold", required_argument, NULL, 't' }, { "noise", required_argument, NULL, 'n' },
		{ "calibrate", required_argument, NULL, 'c' }, { "fail-on", required_argument, NULL, 'F' },
		{ "wide", no_argument, NULL, BENCH_OPT_WIDE }, { "by", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	opterr = 0;
	while ((c = bench_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case 'm': o->metric = optarg; break;
		case 'i': cmp_ignored[BF_ALGO] = 1; break;
		case 'I': parse_ignore(optarg); break;
		case 'f': o->json = bench_parse_table_json("compare", optarg); break;
		case 'a': o->alpha = parse_real("significance-level", optarg, 0, 1); break;
		case 't': o->noise = parse_real("noise-threshold", optarg, -1e-12, 1000) / 100; break;
		case 'n': o->noise_file = optarg; break;
		case 'c': o->calibrate = optarg; break;
		case BENCH_OPT_WIDE: o->wide = 1; break;
		case 'b':
			if (strcmp(optarg, "file") && strcmp(optarg, "machine"))
				die("bad value '%s' for --by (want file or machine)", optarg);
			cmp_by_machine.on = !strcmp(optarg, "machine");
			break;
		case 'F':
			if (strcmp(optarg, "slower") && strcmp(optarg, "changed"))
				die("bad value '%s' for --fail-on (want slower or changed)", optarg);
			o->fail_on = strcmp(optarg, "slower") ? 2 : 1;
			break;
		case 'h': fputs(cmp_help, stdout); exit(0);
		default: bench_die_getopt(c, argv);
		}
	}
	if (strcmp(o->metric, "ops_per_sec") && strcmp(o->metric, "update_ns.p50") &&
	    strcmp(o->metric, "update_ns.p99") && strcmp(o->metric, "cpu_ns_per_op"))
		die("unknown metric '%s' (want ops_per_sec, cpu_ns_per_op, update_ns.p50 or update_ns.p99)",
		    o->metric);
	*nfiles = argc - optind;
	if (cmp_by_machine.on) {
		if (!*nfiles)
			die("compare --by machine needs results files: compare --by machine FILE...");
		if (o->calibrate)
			die("--calibrate takes the two files of one A/A pair, not --by machine");
	} else {
		if (*nfiles < 2)
			die("compare needs two files: compare A.jsonl B.jsonl%s", *nfiles ? " (got one)" : "");
		if (*nfiles > 2)
			die("unexpected argument '%s'", argv[optind + 2]);
	}
	file[0] = argv[optind];
	file[1] = *nfiles > 1 ? argv[optind + 1] : NULL;
	o->higher_better = !strcmp(o->metric, "ops_per_sec");
}

int bench_cmd_compare(int argc, char **argv)
{
	struct cmp_opts o = { .metric = "ops_per_sec", .alpha = CMP_ALPHA, .noise = CMP_NOISE };
	const char *file[2], *bp_how;
	struct configs cs = { 0 };
	struct outcome *out;
	char *target = NULL, msg[2048];
	int fail = 0, is_new = 0, bad = 0, nfiles;
	double bp;

	parse_args(argc, argv, &o, file, &nfiles);
	if (o.calibrate)
		target = calibrate_target(o.calibrate, file, &is_new);
	if (cmp_by_machine.on) {
		for (int i = 0; i < nfiles; i++) {
			struct stat st;
			const char *a = argv[optind + i];

			if (!stat(a, &st) && S_ISDIR(st.st_mode)) {
				if (!read_folder(&cs, a, o.metric))
					die("'%s' is a folder with no .jsonl results file in it", a);
			} else {
				read_file(&cs, 0, a, o.metric);
			}
		}
		if (!cmp_by_machine.name[1])
			die("compare --by machine: every line is of one machine ('%s'): nothing to put side by side",
			    cmp_by_machine.name[0]);
		file[0] = cmp_by_machine.name[0];
		file[1] = cmp_by_machine.name[1];
	} else {
		read_file(&cs, 0, file[0], o.metric);
		read_file(&cs, 1, file[1], o.metric);
	}
	/* configurations of A in A's order, then those only in B in B's order (config_get keeps both) */
	out = bench_xmalloc(sizeof(*out) * (size_t)(cs.n ? cs.n : 1));
	for (int i = 0; i < cs.n; i++)
		compare_one(&cs.c[i], &out[i]);
	bp = between_noise(out, cs.n, &o, &bp_how);
	for (int i = 0; i < cs.n; i++) {
		decide(&out[i], bp, &o);
		fail |= (o.fail_on == 1 && out[i].verdict == V_SLOWER) ||
			(o.fail_on == 2 && (out[i].verdict == V_SLOWER || out[i].verdict == V_FASTER));
	}
	if (o.calibrate)
		bad = write_calibration(&cs, out, &o, file, target, is_new, msg, sizeof(msg));
	if (!bad && o.json) {
		for (int i = 0; i < cs.n; i++) {
			json_t *j = outcome_json(&cs, i, &out[i], &o, file);

			json_object_set_new(j, "between_process_noise", json_pack("{s:s,s:f}", "from", bp_how,
					    "ratio", exp(bp)));
			json_dumpf(j, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
			fputc('\n', stdout);
			json_decref(j);
		}
	} else if (!bad) {
		print_table(&cs, out, &o, file, bp, bp_how);
	}
	for (int i = 0; i < cs.n; i++) {
		free(cs.c[i].key);
		json_decref(cs.c[i].line);
		for (int s = 0; s < 2; s++) {
			free(cs.c[i].side[s].reps.v);
			free(cs.c[i].side[s].procs.v);
		}
	}
	free(cs.c);
	free(out);
	free(target);
	free(cmp_by_machine.name[0]);
	free(cmp_by_machine.name[1]);
	if (bad)
		die("%s", msg);
	return fail;
}
