/* SPDX-License-Identifier: MIT */
/* ctrbench compare: the change per configuration between two result files, and whether it is noise. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "cli.h"
#include "compare.h"
#include "results.h"
#include "schema.h"

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

/* ---- statistics ---- */

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static double *sorted_copy(const double *x, int n)
{
	double *s = xmalloc(sizeof(*s) * (size_t)(n > 0 ? n : 1));

	if (n > 0)
		memcpy(s, x, sizeof(*s) * (size_t)n);
	qsort(s, (size_t)(n > 0 ? n : 0), sizeof(*s), cmp_double);
	return s;
}

static double median_sorted(const double *s, int n)
{
	if (n < 1)
		return NAN;
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double cmp_median(const double *x, int n)
{
	double *s, m;

	if (n < 1)
		return NAN;
	s = sorted_copy(x, n);
	m = median_sorted(s, n);
	free(s);
	return m;
}

double cmp_mw_u(const double *a, int na, const double *b, int nb)
{
	double u = 0;

	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
	return u;
}

struct tagged {
	double v;
	int from_a;
};

static int cmp_tagged(const void *pa, const void *pb)
{
	return cmp_double(&((const struct tagged *)pa)->v, &((const struct tagged *)pb)->v);
}

double cmp_mw_p(const double *a, int na, const double *b, int nb)
{
	int n = na + nb;
	struct tagged *t;
	long *r2;		/* twice the midrank: an integer */
	long s_obs = 0, e2, d_obs;
	double ties = 0, p;

	if (na < 1 || nb < 1)
		return 1;
	t = xmalloc(sizeof(*t) * (size_t)n);
	r2 = xmalloc(sizeof(*r2) * (size_t)n);
	for (int i = 0; i < na; i++)
		t[i] = (struct tagged){ a[i], 1 };
	for (int j = 0; j < nb; j++)
		t[na + j] = (struct tagged){ b[j], 0 };
	qsort(t, (size_t)n, sizeof(*t), cmp_tagged);
	for (int i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && t[j].v == t[i].v; j++)
			;
		for (int k = i; k < j; k++)
			r2[k] = (long)(i + 1) + (long)j;	/* ranks i+1..j: midrank (i+1+j)/2 */
		ties += (double)(j - i) * (j - i) * (j - i) - (j - i);
	}
	for (int k = 0; k < n; k++)
		if (t[k].from_a)
			s_obs += r2[k];
	e2 = (long)na * (n + 1);
	d_obs = labs(s_obs - e2);

	if (n <= CMP_MW_EXACT_MAX) {
		/* dp[k][s]: subsets of k items whose doubled ranks sum to s. */
		long smax = (long)n * (n + 1);
		double *dp = calloc((size_t)(na + 1) * (size_t)(smax + 1), sizeof(*dp));
		double hit = 0, all = 0;

		if (!dp)
			die("out of memory");
		dp[0] = 1;
		for (int i = 0; i < n; i++)
			for (int k = i + 1 < na ? i + 1 : na; k >= 1; k--)
				for (long s = smax; s >= r2[i]; s--)
					dp[(size_t)k * (size_t)(smax + 1) + (size_t)s] +=
						dp[(size_t)(k - 1) * (size_t)(smax + 1) + (size_t)(s - r2[i])];
		for (long s = 0; s <= smax; s++) {
			double c = dp[(size_t)na * (size_t)(smax + 1) + (size_t)s];

			all += c;
			if (labs(s - e2) >= d_obs)
				hit += c;
		}
		free(dp);
		p = hit / all;
	} else {
		double mean = (double)na * nb / 2;
		double var = (double)na * nb / 12 * ((n + 1) - ties / ((double)n * (n - 1)));
		double u = (double)s_obs / 2 - (double)na * (na + 1) / 2;
		double z = fabs(u - mean) - 0.5;

		if (var <= 0)
			p = 1;
		else
			p = erfc((z > 0 ? z : 0) / sqrt(var) / sqrt(2));
	}
	free(t);
	free(r2);
	return p > 1 ? 1 : p;
}

void cmp_snap(double *a, int na, double *b, int nb, double rel)
{
	int n = na + nb;
	double **p = xmalloc(sizeof(*p) * (size_t)(n > 0 ? n : 1));
	double g = 0;

	for (int i = 0; i < na; i++)
		p[i] = &a[i];
	for (int j = 0; j < nb; j++)
		p[na + j] = &b[j];
	/* Insertion sort by value: a handful of reps. */
	for (int i = 1; i < n; i++) {
		double *t = p[i];
		int k = i;

		for (; k > 0 && *p[k - 1] > *t; k--)
			p[k] = p[k - 1];
		p[k] = t;
	}
	for (int i = 0; i < n; i++) {
		if (i && fabs(*p[i] - g) <= rel * fmax(fabs(g), fabs(*p[i])))
			*p[i] = g;
		else
			g = *p[i];
	}
	free(p);
}

/* P(Binomial(n, 1/2) = i). */
static double binom_half_pmf(int n, int i)
{
	return exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * log(2.0));
}

double cmp_median_ci(const double *x, int n, double level, double *lo, double *hi)
{
	double *s, cdf, cov;
	int k = 1;

	if (n < 1) {
		*lo = *hi = NAN;
		return NAN;
	}
	s = sorted_copy(x, n);
	/* [x(k), x(n+1-k)] misses the median when fewer than k draws fall below it, or above. */
	cdf = binom_half_pmf(n, 0);	/* P(Bin <= k - 1) */
	cov = 1 - 2 * cdf;
	for (int kk = 2; 2 * kk <= n + 1; kk++) {
		double c = 1 - 2 * (cdf + binom_half_pmf(n, kk - 1));

		if (c < level)
			break;
		cdf += binom_half_pmf(n, kk - 1);
		k = kk;
		cov = c;
	}
	*lo = s[k - 1];
	*hi = s[n - k];
	free(s);
	return cov < 0 ? 0 : cov;
}

static uint64_t xorshift64s(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static double resample_median(const double *x, int n, double *scratch, uint64_t *rng)
{
	for (int i = 0; i < n; i++)
		scratch[i] = x[xorshift64s(rng) % (uint64_t)n];
	qsort(scratch, (size_t)n, sizeof(*scratch), cmp_double);
	return median_sorted(scratch, n);
}

/* Linear interpolation between order statistics of sorted s[0..n). */
static double quantile_sorted(const double *s, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)floor(pos);

	if (i >= n - 1)
		return s[n - 1];
	return s[i] + (pos - i) * (s[i + 1] - s[i]);
}

int cmp_bootstrap_change_ci(const double *a, int na, const double *b, int nb, int resamples,
			    uint64_t seed, double level, double *lo, double *hi)
{
	double *ch, *sa, *sb;
	uint64_t rng = seed ? seed : 1;
	int m = 0;

	*lo = *hi = NAN;
	if (na < 1 || nb < 1 || resamples < 1)
		return 0;
	ch = xmalloc(sizeof(*ch) * (size_t)resamples);
	sa = xmalloc(sizeof(*sa) * (size_t)na);
	sb = xmalloc(sizeof(*sb) * (size_t)nb);
	for (int r = 0; r < resamples; r++) {
		double ma = resample_median(a, na, sa, &rng);
		double mb = resample_median(b, nb, sb, &rng);

		if (ma != 0)
			ch[m++] = 100 * (mb / ma - 1);
	}
	if (m) {
		qsort(ch, (size_t)m, sizeof(*ch), cmp_double);
		*lo = quantile_sorted(ch, m, (1 - level) / 2);
		*hi = quantile_sorted(ch, m, 1 - (1 - level) / 2);
	}
	free(ch);
	free(sa);
	free(sb);
	return m;
}

/* ---- reading result files ---- */

static char *cell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct samples {
	double *v;
	int n, cap;
};

struct config {
	char *key;		/* the identity fields (schema.h) as compact JSON */
	json_t *line;		/* the first line of it, for its fields (owned) */
	struct samples side[2];	/* the metric's values in A and in B */
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

/* --ignore-algo: match configurations whatever the algorithm (one algorithm per file). */
static int cmp_ignore_algo;

/* What makes two lines the same configuration: the table's keys and knobs (algo aside with --ignore-algo). */
static int cmp_in_key(int f)
{
	return bench_field_is_config(f) && !(cmp_ignore_algo && f == BF_ALGO);
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

static void read_file(struct configs *cs, int side, const char *file, const char *metric)
{
	struct bench_results r;
	char what[160];

	bench_results_load(file, 0, &r);
	if (r.partial_bytes)
		fprintf(stderr, "ctrbench: compare: '%s' ends in a line without its newline (%zu bytes, a"
			" killed writer's): skipped\n", file, r.partial_bytes);
	for (int l = 0; l < r.n; l++) {
		json_t *o = r.line[l].obj, *v, *reps;
		int lineno = r.line[l].lineno;
		struct config *c;

		check_keys(o, file, lineno);
		c = config_get(cs, o);
		c->in[side] = 1;
		reps = json_object_get(o, "reps");
		if (reps && !json_is_null(reps) && !json_is_array(reps))
			die("%s:%d: \"reps\" is not an array", file, lineno);
		if (json_array_size(reps)) {
			size_t i;

			json_array_foreach(reps, i, v) {
				if (!json_is_object(v))
					die("%s:%d: reps[%zu] is not an object", file, lineno, i);
				snprintf(what, sizeof(what), "reps[%zu].%s", i, metric);
				add_value(&c->side[side], bench_json_path(v, metric), file, lineno, what);
			}
		} else {
			add_value(&c->side[side], bench_json_path(o, metric), file, lineno, metric);
		}
	}
	if (!r.n)
		die("'%s' has no results", file);
	bench_results_free(&r);
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
	why = cell("%s differs: %s here, %s in %s%s", bench_fields[field].path, a ? a : "null",
		   b ? b : "null", side ? "B" : "A", best_nr > 1 ? " (and more fields)" : "");
	free(a);
	free(b);
	return why;
}

/* ---- comparing and printing ---- */

/* A field of configuration k as text: strings as they are, anything else as JSON; "-" for null. */
static char *field_text(const struct config *k, int f)
{
	json_t *v = bench_line_field(k->line, f);
	char *t;

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

		if (bench_fields[f].ident != BI_KNOB || !v)
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


enum verdict { V_NO_CHANGE, V_FASTER, V_SLOWER, V_INCONCLUSIVE, V_NA, V_ONLY_A, V_ONLY_B };

struct outcome {
	int n[2];
	double med[2], ci_lo[2], ci_hi[2], ci_level[2];
	double change, ch_lo, ch_hi, p;
	enum verdict verdict;
	const char *test;	/* "mann-whitney", "intervals" or NULL */
};

static void compare_one(const struct config *c, int higher_better, struct outcome *r)
{
	int up = 0;

	*r = (struct outcome){ .change = NAN, .ch_lo = NAN, .ch_hi = NAN, .p = NAN, .verdict = V_NA };
	for (int s = 0; s < 2; s++) {
		r->n[s] = c->side[s].n;
		r->med[s] = cmp_median(c->side[s].v, c->side[s].n);
		r->ci_level[s] = cmp_median_ci(c->side[s].v, c->side[s].n, CMP_LEVEL, &r->ci_lo[s], &r->ci_hi[s]);
	}
	if (!c->in[1] || !c->in[0]) {
		r->verdict = c->in[0] ? V_ONLY_A : V_ONLY_B;
		return;
	}
	if (!r->n[0] || !r->n[1]) {
		r->verdict = V_NA;
		return;
	}
	if (r->med[0] != 0)
		r->change = 100 * (r->med[1] / r->med[0] - 1);
	cmp_bootstrap_change_ci(c->side[0].v, r->n[0], c->side[1].v, r->n[1], CMP_RESAMPLES, CMP_SEED,
				CMP_LEVEL, &r->ch_lo, &r->ch_hi);
	/* The tests see values within CMP_TIE_REL as ties: copies, the medians above stay as measured. */
	double *sa = xmalloc(sizeof(*sa) * (size_t)r->n[0]), *sb = xmalloc(sizeof(*sb) * (size_t)r->n[1]);
	double lo[2], hi[2];

	memcpy(sa, c->side[0].v, sizeof(*sa) * (size_t)r->n[0]);
	memcpy(sb, c->side[1].v, sizeof(*sb) * (size_t)r->n[1]);
	cmp_snap(sa, r->n[0], sb, r->n[1], CMP_TIE_REL);
	cmp_median_ci(sa, r->n[0], CMP_LEVEL, &lo[0], &hi[0]);
	cmp_median_ci(sb, r->n[1], CMP_LEVEL, &lo[1], &hi[1]);
	if (r->n[0] >= CMP_MW_MIN_REPS && r->n[1] >= CMP_MW_MIN_REPS) {
		double u_ba = cmp_mw_u(sb, r->n[1], sa, r->n[0]);

		r->test = "mann-whitney";
		r->p = cmp_mw_p(sa, r->n[0], sb, r->n[1]);
		if (r->p >= CMP_ALPHA)
			r->verdict = V_NO_CHANGE;
		up = u_ba > (double)r->n[0] * r->n[1] / 2;
	} else if (r->n[0] < 2 || r->n[1] < 2) {
		r->verdict = V_INCONCLUSIVE;
	} else {
		r->test = "intervals";
		if (hi[0] < lo[1])
			up = 1;
		else if (hi[1] < lo[0])
			up = 0;
		else
			r->verdict = V_NO_CHANGE;
	}
	free(sa);
	free(sb);
	if (r->verdict == V_NA)	/* not settled above: outside noise */
		r->verdict = up == higher_better ? V_FASTER : V_SLOWER;
}

static const char *const verdict_names[] = {
	[V_NO_CHANGE] = "no change", [V_FASTER] = "faster", [V_SLOWER] = "slower",
	[V_INCONCLUSIVE] = "inconclusive", [V_NA] = "n/a", [V_ONLY_A] = "only in A",
	[V_ONLY_B] = "only in B",
};

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_json(const char *file, const struct outcome *r, int s, int present)
{
	if (!present)
		return json_null();
	return json_pack("{s:s,s:i,s:o,s:o,s:o}", "file", file, "n", r->n[s], "median", num(r->med[s]),
			 "ci", r->n[s] ? json_pack("[o,o]", num(r->ci_lo[s]), num(r->ci_hi[s])) : json_null(),
			 "ci_level", num(r->ci_level[s]));
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

static void fmt_pct(char *buf, size_t len, double v)
{
	if (isfinite(v))
		snprintf(buf, len, "%+.1f%%", v);
	else
		snprintf(buf, len, "-");
}

enum { NCOL = 12 };

/* Column j of the table: numbers right-aligned, names left, the last one ends the line. */
static void print_cell(int j, int w, const char *s)
{
	if (j == NCOL - 1)
		printf("%s\n", s);
	else if (j >= 6 && j <= 9)
		printf("%*s  ", w, s);
	else
		printf("%-*s  ", w, s);
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

int bench_cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'f' },
		{ "ignore-algo", no_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const metrics[] = { "ops_per_sec", "update_ns.p50", "update_ns.p99", NULL };
	const char *metric = "ops_per_sec", *file[2];
	struct configs cs = { 0 };
	int json = 0, higher_better, c, known = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			metric = optarg;
			break;
		case 'i':
			cmp_ignore_algo = 1;
			break;
		case 'f':
			json = bench_parse_table_json("compare", optarg);
			break;
		default:
			bench_die_getopt(c, argv);
		}
	}
	for (int i = 0; metrics[i]; i++)
		known |= !strcmp(metric, metrics[i]);
	if (!known)
		die("unknown metric '%s' (want ops_per_sec, update_ns.p50 or update_ns.p99)", metric);
	if (argc - optind < 2)
		die("compare needs two files: compare A.jsonl B.jsonl%s", argc - optind ? " (got one)" : "");
	if (argc - optind > 2)
		die("unexpected argument '%s'", argv[optind + 2]);
	file[0] = argv[optind];
	file[1] = argv[optind + 1];
	higher_better = !strcmp(metric, "ops_per_sec");
	read_file(&cs, 0, file[0], metric);
	read_file(&cs, 1, file[1], metric);

	/* Configurations of A in A's order, then those only in B in B's order (config_get keeps both). */
	struct outcome *out = xmalloc(sizeof(*out) * (size_t)cs.n);

	for (int i = 0; i < cs.n; i++)
		compare_one(&cs.c[i], higher_better, &out[i]);

	if (json) {
		for (int i = 0; i < cs.n; i++) {
			const struct config *k = &cs.c[i];
			const struct outcome *r = &out[i];
			json_t *j = json_object(), *config = json_object();

			for (int f = 0; f < BF_NR; f++)
				if (cmp_in_key(f))
					json_object_set(config, bench_fields[f].path, bench_line_field(k->line, f) ?
							bench_line_field(k->line, f) : json_null());
			json_object_set_new(j, "config", config);
			json_object_set_new(j, "metric", json_string(metric));
			json_object_set_new(j, "better", json_string(higher_better ? "higher" : "lower"));
			char seed[32];

			snprintf(seed, sizeof(seed), "0x%llx", (unsigned long long)CMP_SEED);
			json_object_set_new(j, "a", side_json(file[0], r, 0, k->in[0]));
			json_object_set_new(j, "b", side_json(file[1], r, 1, k->in[1]));
			json_object_set_new(j, "change_pct", num(r->change));
			json_object_set_new(j, "change_ci_pct", isfinite(r->ch_lo) ?
					    json_pack("[f,f]", r->ch_lo, r->ch_hi) : json_null());
			json_object_set_new(j, "change_ci_method",
					    json_pack("{s:s,s:i,s:s,s:f}", "method", "percentile bootstrap of the medians",
						      "resamples", CMP_RESAMPLES, "seed", seed, "level", CMP_LEVEL));
			json_object_set_new(j, "verdict", json_string(verdict_names[r->verdict]));
			json_object_set_new(j, "test", r->test ? json_string(r->test) : json_null());
			json_object_set_new(j, "p_value", num(r->p));
			json_object_set_new(j, "alpha", json_real(CMP_ALPHA));
			if (!k->in[0] || !k->in[1]) {
				char *why = unmatched_why(&cs, k);

				json_object_set_new(j, "unmatched", json_string(why));
				free(why);
			}
			json_dumpf(j, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
			fputc('\n', stdout);
			json_decref(j);
		}
	} else {
		static const char *const head[NCOL] = {
			"algo", "workload", "shape", "threads", "placement", "settings",
			"A median", "B median", "change", "95% CI", "verdict", "test",
		};
		char ***rows = xmalloc(sizeof(*rows) * (size_t)(cs.n + 1));
		int w[NCOL];

		printf("# compare: A = %s, B = %s; metric %s (%s is faster); change = median(B) / median(A) - 1\n",
		       file[0], file[1], metric, higher_better ? "higher" : "lower");
		printf("# 95%% CI of the change: percentile bootstrap of the medians, %d resamples of each side's reps, seed 0x%llx\n",
		       CMP_RESAMPLES, (unsigned long long)CMP_SEED);
		printf("# verdict: Mann-Whitney U (two-sided, alpha %.2f; exact up to %d samples) when both sides have >= %d reps,\n"
		       "#   else non-overlapping order-statistic intervals of the medians (95%%; [min, max] at the level shown\n"
		       "#   when a side has < 6 reps); inconclusive with < 2 reps on a side.  Values within %g%% count as equal\n"
		       "#   in the tests (timer calibration differs between runs).  (n) after a median: its sample count\n",
		       CMP_ALPHA, CMP_MW_EXACT_MAX, CMP_MW_MIN_REPS, 100 * CMP_TIE_REL);
		for (int i = 0; i < cs.n; i++) {
			const struct config *k = &cs.c[i];
			const struct outcome *r = &out[i];
			char m[2][32], ch[32], lo[32], hi[32];

			rows[i] = xmalloc(sizeof(**rows) * NCOL);
			for (int s = 0; s < 2; s++)
				fmt_si(m[s], sizeof(m[s]), r->med[s]);
			fmt_pct(ch, sizeof(ch), r->change);
			fmt_pct(lo, sizeof(lo), r->ch_lo);
			fmt_pct(hi, sizeof(hi), r->ch_hi);
			rows[i][0] = cmp_ignore_algo ? cell("(either)") : field_text(k, BF_ALGO);
			rows[i][1] = field_text(k, BF_WORKLOAD);
			rows[i][2] = field_text(k, BF_SHAPE);
			rows[i][3] = field_text(k, BF_THREADS);
			rows[i][4] = field_text(k, BF_PLACEMENT);
			rows[i][5] = knobs_text(k);
			rows[i][6] = k->in[0] ? cell("%s (%d)", m[0], r->n[0]) : cell("-");
			rows[i][7] = k->in[1] ? cell("%s (%d)", m[1], r->n[1]) : cell("-");
			rows[i][8] = cell("%s", ch);
			rows[i][9] = isfinite(r->ch_lo) ? cell("[%s, %s]", lo, hi) : cell("-");
			rows[i][10] = cell("%s", verdict_names[r->verdict]);
			if (r->test && !strcmp(r->test, "mann-whitney"))
				rows[i][11] = cell("Mann-Whitney p=%.3g", r->p);
			else if (r->test)
				rows[i][11] = cell("intervals %.1f%%/%.1f%%", 100 * r->ci_level[0], 100 * r->ci_level[1]);
			else if (r->verdict == V_INCONCLUSIVE)
				rows[i][11] = cell("none (< 2 reps)");
			else if (r->verdict == V_ONLY_A || r->verdict == V_ONLY_B)
				rows[i][11] = unmatched_why(&cs, k);
			else if (r->verdict == V_NA)
				rows[i][11] = cell("none (no %s)", metric);
			else
				rows[i][11] = cell("-");
		}
		for (int j = 0; j < NCOL; j++) {
			w[j] = (int)strlen(head[j]);
			for (int i = 0; i < cs.n; i++)
				if ((int)strlen(rows[i][j]) > w[j])
					w[j] = (int)strlen(rows[i][j]);
		}
		for (int j = 0; j < NCOL; j++)
			print_cell(j, w[j], head[j]);
		for (int i = 0; i < cs.n; i++) {
			for (int j = 0; j < NCOL; j++) {
				print_cell(j, w[j], rows[i][j]);
				free(rows[i][j]);
			}
			free(rows[i]);
		}
		free(rows);
	}
	for (int i = 0; i < cs.n; i++) {
		free(cs.c[i].key);
		json_decref(cs.c[i].line);
		free(cs.c[i].side[0].v);
		free(cs.c[i].side[1].v);
	}
	free(cs.c);
	free(out);
	return 0;
}
