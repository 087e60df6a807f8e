/* SPDX-License-Identifier: MIT */
/* results.c - a file of result lines read back and checked (results.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "results.h"
#include "schema.h"

/* Where bench_json_prefix_ok is: its state, the open brackets, a string's or literal's progress. */
enum jp_state { JP_VALUE, JP_VALUE_OR_END, JP_KEY_OR_END, JP_KEY, JP_COLON, JP_COMMA_OR_END, JP_STR, JP_STR_ESC, JP_STR_HEX, JP_NUM, JP_LIT };

struct json_prefix {
	enum jp_state st;			/* what the next character may be */
	char stack[BENCH_RESULT_MAX_DEPTH];	/* the open '{' and '[', innermost last */
	int depth;				/* their number */
	int hex;				/* hex digits of a \u escape seen */
	int key;				/* the string being read is a key */
	const char *lit;			/* the rest of true, false or null to come */
};

/*
 * c inside a string, literal or number: 1 when it is taken, 0 when it is
 * to be read as structure (a number ended), -1 when it cannot be there.
 */
static int json_prefix_token(struct json_prefix *j, unsigned char c)
{
	switch (j->st) {
	case JP_STR:
		if (c == '"')
			j->st = j->key ? JP_COLON : JP_COMMA_OR_END;
		else if (c == '\\')
			j->st = JP_STR_ESC;
		else if (c < 0x20)
			return -1;
		return 1;
	case JP_STR_ESC:
		if (c == 'u') {
			j->st = JP_STR_HEX;
			j->hex = 0;
		} else if (strchr("\"\\/bfnrt", c) && c) {
			j->st = JP_STR;
		} else {
			return -1;
		}
		return 1;
	case JP_STR_HEX:
		if (!strchr("0123456789abcdefABCDEF", c) || !c)
			return -1;
		if (++j->hex == 4)
			j->st = JP_STR;
		return 1;
	case JP_LIT:
		if (c != (unsigned char)*j->lit++)
			return -1;
		if (!*j->lit)
			j->st = JP_COMMA_OR_END;
		return 1;
	case JP_NUM:
		if (c && strchr("0123456789+-.eE", c))
			return 1;
		j->st = JP_COMMA_OR_END;
		return 0;	/* c is looked at again as structure */
	default:
		return 0;
	}
}

/* A value starts with c (or an empty array ends): 0, or -1 when it cannot. */
static int json_prefix_value(struct json_prefix *j, unsigned char c)
{
	if (c == ']' && j->st == JP_VALUE_OR_END) {	/* [] */
		j->depth--;
		j->st = JP_COMMA_OR_END;
	} else if (c == '{' || c == '[') {
		if (j->depth == BENCH_RESULT_MAX_DEPTH)
			return -1;
		j->stack[j->depth++] = (char)c;
		j->st = c == '{' ? JP_KEY_OR_END : JP_VALUE_OR_END;
	} else if (c == '"') {
		j->st = JP_STR;
		j->key = 0;
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		j->st = JP_NUM;
	} else if (c == 't' || c == 'f' || c == 'n') {
		j->lit = c == 't' ? "rue" : c == 'f' ? "alse" : "ull";
		j->st = JP_LIT;
	} else {
		return -1;
	}
	return 0;
}

/* c between tokens, blanks skipped: 0, or -1 when it cannot be there. */
static int json_prefix_struct(struct json_prefix *j, unsigned char c)
{
	switch (j->st) {
	case JP_VALUE:
	case JP_VALUE_OR_END:
		return json_prefix_value(j, c);
	case JP_KEY_OR_END:
	case JP_KEY:
		if (c == '"') {
			j->st = JP_STR;
			j->key = 1;
		} else if (c == '}' && j->st == JP_KEY_OR_END) {
			j->depth--;
			j->st = JP_COMMA_OR_END;
		} else {
			return -1;
		}
		return 0;
	case JP_COLON:
		if (c != ':')
			return -1;
		j->st = JP_VALUE;
		return 0;
	case JP_COMMA_OR_END:
		if (!j->depth)
			return -1;	/* a whole object already: then a newline should follow */
		if (c == ',')
			j->st = j->stack[j->depth - 1] == '{' ? JP_KEY : JP_VALUE;
		else if (c == (j->stack[j->depth - 1] == '{' ? '}' : ']'))
			j->depth--;
		else
			return -1;
		return 0;
	default:
		return -1;
	}
}

/*
 * Could s[0..n) be the start of a JSON object, cut short?  What a sweep
 * killed inside its write(2) leaves is exactly that; lab notes, a binary or
 * a line of another program are not, and --resume must not cut them off.
 * A small pushdown check of JSON's grammar: containers on a stack, one state
 * for what may come next.
 */
int bench_json_prefix_ok(const char *s, size_t n)
{
	struct json_prefix j = { .st = JP_VALUE };

	if (!n || s[0] != '{')
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int took = json_prefix_token(&j, c);

		if (took < 0)
			return 0;
		if (took || c == ' ' || c == '\t' || c == '\r')
			continue;
		if (json_prefix_struct(&j, c))
			return 0;
	}
	return 1;
}

/*
 * The whole file in memory (result files are at most a few MB); *len its
 * size.  Only a regular file: reading /dev/zero would never end, opening a
 * FIFO would wait for a writer.
 */
static char *slurp(const char *path, int missing_ok, size_t *len)
{
	int not_regular;
	FILE *f = bench_fopen_regular(path, &not_regular);
	char *buf;
	int err;

	*len = 0;
	if (not_regular)
		die("'%s' is not a regular file", path);
	if (!f) {
		if (missing_ok && errno == ENOENT)
			return NULL;
		die("cannot open '%s': %s", path, strerror(errno));
	}
	buf = bench_fd_slurp(fileno(f), len, &err);
	if (err)
		die("cannot read '%s': %s", path, strerror(err));
	fclose(f);
	return buf;
}

/* FNV-1a of a line's text. */
static unsigned long long bench_text_hash(const char *s)
{
	unsigned long long h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Append o (owned) to r's lines. */
static void bench_results_push(struct bench_results *r, json_t *o, int lineno, unsigned long long hash, int *cap)
{
	if (r->n == *cap) {
		struct bench_results_line *l;

		*cap = *cap ? 2 * *cap : 64;
		l = realloc(r->line, sizeof(*r->line) * (size_t)*cap);
		if (!l) {
			json_decref(o);
			die("out of memory");
		}
		r->line = l;
	}
	r->line[r->n++] = (struct bench_results_line){ .obj = o, .lineno = lineno, .hash = hash };
}

static int bench_line_cmp_hash(const void *a, const void *b)
{
	const struct bench_results_line *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->lineno - y->lineno;
}

static int bench_line_cmp_lineno(const void *a, const void *b)
{
	return ((const struct bench_results_line *)a)->lineno - ((const struct bench_results_line *)b)->lineno;
}

/*
 * A line equal to an earlier one (`cat a.jsonl a.jsonl`, a file appended to
 * itself) is one measurement twice: every reader would count it twice (as
 * two processes, two reps, or a configuration of two lines).  Two measured
 * lines always differ (their figures, their start), so equal text is never
 * two runs.  Sorted by hash in place and back (no allocation: a die() here
 * leaves nothing to free but r), the first repeat in file order is named.
 */
static void bench_results_check_repeats(struct bench_results *r, const char *path)
{
	int dup = -1, orig = -1;

	if (r->n < 2)
		return;
	qsort(r->line, (size_t)r->n, sizeof(*r->line), bench_line_cmp_hash);
	for (int i = 1; i < r->n; i++) {
		int k = i - 1;

		/* the first of the run of equal hashes equal to line i: the earliest line it repeats */
		while (k > 0 && r->line[k - 1].hash == r->line[i].hash)
			k--;
		for (; k < i; k++)
			if (r->line[k].hash == r->line[i].hash && json_equal(r->line[k].obj, r->line[i].obj))
				break;
		if (k < i && (dup < 0 || r->line[i].lineno < dup)) {
			dup = r->line[i].lineno;
			orig = r->line[k].lineno;
		}
	}
	qsort(r->line, (size_t)r->n, sizeof(*r->line), bench_line_cmp_lineno);
	if (dup >= 0) {
		char what[256];

		for (int i = 0; i < r->n; i++)
			if (r->line[i].lineno == dup)
				bench_line_describe(r->line[i].obj, what, sizeof(what));
		die("%s:%d: the same line as line %d (%s): one measurement written twice (a file appended"
		    " to itself?), never two", path, dup, orig, what);
	}
}

/* Rep lines ("kind": "rep") out of line[] into rep[], both in file order. */
static void bench_results_split_reps(struct bench_results *r)
{
	int n = 0;

	for (int i = 0; i < r->n; i++) {
		const char *kind = json_string_value(json_object_get(r->line[i].obj, "kind"));

		if (kind && !strcmp(kind, "rep")) {
			if (!r->rep)
				r->rep = bench_xcalloc((size_t)r->n, sizeof(*r->rep));
			r->rep[r->nr_rep++] = r->line[i];
		} else {
			r->line[n++] = r->line[i];
		}
	}
	r->n = n;
}

/*
 * What a die() on bad input leaves behind is held by r (the file's buffer,
 * every object parsed so far, the offending one too), so bench_results_free
 * frees it all: the CLI exits there anyway, the fuzz target goes on.
 */
void bench_results_load(const char *path, int missing_ok, struct bench_results *r)
{
	size_t len, start = 0;
	char *buf;
	int lineno = 0, cap = 0;

	memset(r, 0, sizeof(*r));
	r->buf = buf = slurp(path, missing_ok, &len);
	if (!buf)
		return;
	while (start < len) {
		char *nl = memchr(buf + start, '\n', len - start);
		size_t line_len = nl ? (size_t)(nl - buf) - start : len - start;
		json_error_t err;
		json_t *o;

		lineno++;
		if (line_len > BENCH_RESULT_MAX_LINE)
			die("%s:%d: a line of over %d bytes: not a result line", path, lineno,
			    BENCH_RESULT_MAX_LINE);
		if (!nl) {
			r->partial_bytes = len - start;
			r->partial_ok = bench_json_prefix_ok(buf + start, r->partial_bytes);
			r->partial_lineno = lineno;
			break;
		}
		*nl = 0;
		if (!buf[start + strspn(buf + start, " \t\r")]) {
			start = (size_t)(nl - buf) + 1;
			continue;
		}
		if (strlen(buf + start) != line_len)
			die("%s:%d: not JSON (a NUL byte in the line)", path, lineno);
		/* a key twice would be read as its last value by one reader, its first by another */
		o = json_loads(buf + start, JSON_REJECT_DUPLICATES, &err);
		if (!o)
			die("%s:%d: not JSON (%s)", path, lineno, err.text);
		bench_results_push(r, o, lineno, bench_text_hash(buf + start), &cap);
		if (!json_is_object(o))
			die("%s:%d: not a JSON object", path, lineno);
		bench_results_check_schema(o, path, lineno);
		bench_results_check_line(o, path, lineno);
		start = (size_t)(nl - buf) + 1;
	}
	r->complete_bytes = len - r->partial_bytes;
	free(buf);
	r->buf = NULL;
	bench_results_check_repeats(r, path);
	bench_results_split_reps(r);
}

void bench_line_describe(json_t *o, char *buf, size_t len)
{
	const char *algo = json_string_value(json_object_get(o, "algo"));
	const char *workload = json_string_value(json_object_get(o, "workload"));
	const char *shape = json_string_value(json_object_get(o, "shape"));
	const char *options = json_string_value(json_object_get(o, "options"));
	const char *note = json_string_value(json_object_get(o, "note"));
	const char *kind = json_string_value(json_object_get(o, "kind"));
	json_t *threads = json_object_get(o, "threads"), *readers = json_object_get(o, "readers");
	size_t n;

	snprintf(buf, len, "%s %s %s", algo ? algo : kind ? kind : "?", workload ? workload : "?",
		 shape ? shape : "?");
	n = strlen(buf);
	if (json_is_integer(threads))
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, " --threads %lld",
				      (long long)json_integer_value(threads));
	if (n < len && json_integer_value(readers) > 0)
		n += (size_t)snprintf(buf + n, len - n, " --readers %lld", (long long)json_integer_value(readers));
	if (n < len && options)
		n += (size_t)snprintf(buf + n, len - n, " --options %s", options);
	if (n < len && note)
		snprintf(buf + n, len - n, ", note '%s'", note);
}

/* Keys of one identity, for bench_results_check_unique: the line's key, a rep's with its index. */
struct bench_ukey {
	char *key;
	int lineno;
	json_t *obj;
};

static int bench_ukey_cmp(const void *a, const void *b)
{
	const struct bench_ukey *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : x->lineno - y->lineno;
}

void bench_results_check_unique(const struct bench_results *r, const char *path, int (*in_key)(int f))
{
	const int n = r->n + r->nr_rep;
	struct bench_ukey *k = bench_xcalloc((size_t)n + 1, sizeof(*k));
	int dup = -1, orig = -1;
	json_t *obj = NULL;

	for (int i = 0; i < n; i++) {
		const struct bench_results_line *l = i < r->n ? &r->line[i] : &r->rep[i - r->n];
		char *key = bench_line_key(l->obj, in_key);

		/* a rep is its configuration's and its index; "S"/"R": a summary is never a rep */
		if (asprintf(&k[i].key, "%s %lld %s", i < r->n ? "S" : "R",
			     i < r->n ? 0LL : (long long)json_integer_value(json_object_get(l->obj, "rep")), key) < 0)
			die("out of memory");
		free(key);
		k[i].lineno = l->lineno;
		k[i].obj = l->obj;
	}
	qsort(k, (size_t)n, sizeof(*k), bench_ukey_cmp);
	for (int i = 0; i < n; ) {
		int j = i + 1;

		/* a run of equal keys, sorted by line: its first is the original, its second the repeat */
		while (j < n && !strcmp(k[j].key, k[i].key))
			j++;
		if (j - i > 1 && (dup < 0 || k[i + 1].lineno < dup)) {
			dup = k[i + 1].lineno;
			orig = k[i].lineno;
			obj = k[i + 1].obj;
		}
		i = j;
	}
	for (int i = 0; i < n; i++)
		free(k[i].key);
	free(k);
	if (dup >= 0) {
		char what[256], rep[32] = "";
		const char *kind = json_string_value(json_object_get(obj, "kind"));

		bench_line_describe(obj, what, sizeof(what));
		if (kind && !strcmp(kind, "rep"))
			snprintf(rep, sizeof(rep), ", rep %lld", (long long)json_integer_value(json_object_get(obj, "rep")));
		die("%s:%d: %s%s again, measured at line %d too: a results file holds each configuration%s"
		    " once (two writers on one file?)", path, dup, what, rep, orig, *rep ? " and rep" : "");
	}
}

void bench_results_check_partial(const struct bench_results *r, const char *path, const char *cmd)
{
	if (!r->partial_bytes)
		return;
	if (!r->partial_ok)
		die("%s:%d: not a result line (%zu bytes with no newline that no result line starts with)",
		    path, r->partial_lineno, r->partial_bytes);
	if (!r->n)
		die("'%s' has no results (only a line cut short: %zu bytes with no newline, a killed"
		    " writer's)", path, r->partial_bytes);
	fprintf(stderr, "ctrbench: %s: ignored a partial last line of '%s' (%zu bytes with no newline:"
		" a writer killed while writing it)\n", cmd, path, r->partial_bytes);
}

void bench_results_free(struct bench_results *r)
{
	for (int i = 0; i < r->n; i++)
		json_decref(r->line[i].obj);
	for (int i = 0; i < r->nr_rep; i++)
		json_decref(r->rep[i].obj);
	free(r->line);
	free(r->rep);
	free(r->buf);
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

/* v is of table type t (an integer is a number too). */
static int bench_type_ok(json_t *v, enum bench_ftype t)
{
	switch (t) {
	case BT_STR: return json_is_string(v);
	case BT_INT: return json_is_integer(v);
	case BT_NUM: return json_is_number(v);
	case BT_BOOL: return json_is_boolean(v);
	case BT_OBJ: return json_is_object(v);
	case BT_ARR: return json_is_array(v);
	}
	return 0;
}

/* "an integer in [1, 4096]", "a number >= 0": what field f takes. */
static const char *bench_field_want(int f, char *buf, size_t len)
{
	const struct bench_field_range *r = &bench_field_ranges[f];
	const char *t = bench_fields[f].type == BT_INT ? "an integer" : bench_fields[f].type == BT_NUM ?
			"a number" : bench_fields[f].type == BT_OBJ ? "an object" : bench_fields[f].type == BT_ARR ?
			"an array" : bench_fields[f].type == BT_BOOL ? "true or false" : "a string";

	if (!r->has)
		snprintf(buf, len, "%s", t);
	else if (r->hi >= BR_ANY)
		snprintf(buf, len, "%s >= %.15g", t, r->lo);
	else
		snprintf(buf, len, "%s in [%.15g, %.15g]", t, r->lo, r->hi);
	return buf;
}

/*
 * Every field of the table in a result line has the table's type and
 * range; null stands for "not measured" in any but the configuration's
 * axes without a default (algo, workload, shape, threads), which a line
 * must have.  A c2c line (its own "kind") has its own table.
 */
void bench_results_check_line(json_t *o, const char *path, int lineno)
{
	if (json_object_get(o, "kind"))
		return;
	for (int f = 0; f < BF_NR; f++) {
		const struct bench_field *d = &bench_fields[f];
		const struct bench_field_range *r = &bench_field_ranges[f];
		int required = d->ident == BI_KEY && !d->def;
		json_t *v = bench_json_path(o, d->path);
		char want[64], *text;
		double x;

		if (!v || json_is_null(v)) {
			if (required)
				die("%s:%d: field '%s' is %s, want %s", path, lineno, d->path,
				    v ? "null" : "missing", bench_field_want(f, want, sizeof(want)));
			continue;
		}
		x = json_is_number(v) ? json_number_value(v) : 0;
		if (bench_type_ok(v, d->type) && (!r->has || (x >= r->lo && x <= r->hi)) &&
		    (!required || d->type != BT_STR || *json_string_value(v)))
			continue;
		text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		if (text && strlen(text) > 40)
			strcpy(text + 37, "...");
		die("%s:%d: field '%s' is %s, want %s%s", path, lineno, d->path, text ? text : "?",
		    bench_field_want(f, want, sizeof(want)), required && d->type == BT_STR ? ", not empty" : "");
	}
}

/* Whether field f can be other than null in a line of o's workload (the table's WHEN). */
static int bench_field_applies(json_t *o, int f)
{
	const char *w = json_string_value(json_object_get(o, "workload"));

	switch (bench_fields[f].when) {
	case BW_READERS:
		return w && !strcmp(w, "readers");
	case BW_CHARGE:
		return w && (!strcmp(w, "charge") || !strcmp(w, "store"));
	case BW_NOREADERS:
		return !w || strcmp(w, "readers");
	default:
		return 1;
	}
}

/*
 * The field's value, or the table's default for a line written before the
 * field: only where the field applies, so that an update line without
 * limit_levels and one with a null there are the same configuration.
 */
json_t *bench_line_field(json_t *o, int f)
{
	static json_t *defaults[BF_NR];
	json_t *v = bench_json_path(o, bench_fields[f].path);

	if (v || !bench_fields[f].def || !bench_field_applies(o, f))
		return v && json_is_null(v) && !bench_field_applies(o, f) ? NULL : v;
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
