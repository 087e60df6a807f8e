/* SPDX-License-Identifier: MIT */
/* schema.c - the field table (schema.h) as data, and `ctrbench schema`. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "cli.h"
#include "run.h"
#include "schema.h"

/* The C type of a member, for the writer and the summaries. */
#define BC_OF_(e) _Generic((e), double: BC_DOUBLE, uint64_t: BC_U64, int64_t: BC_I64, int: BC_INT, \
			   unsigned: BC_UINT, const char *: BC_STR, char *: BC_STR, default: BC_NONE)
/* SRC expands to three initializers: src, off, ctype */
#define R(m) BSRC_RESULT, offsetof(struct bench_result, m), BC_OF_(((struct bench_result *)0)->m)
#define C(m) BSRC_CONFIG, offsetof(struct bench_config, m), BC_OF_(((struct bench_config *)0)->m)
#define FN BSRC_FN, 0, BC_NONE
#define SUB BSRC_SUB, 0, BC_NONE

const struct bench_field bench_fields[BF_NR] = {
#define BF_ROW_(id, path, type, ident, sum, src, when, csv, def, doc) \
	[BF_##id] = { path, type, ident, sum, src, when, csv, def, doc },
	BENCH_FIELDS(BF_ROW_)
#undef BF_ROW_
};

#undef R
#undef C
#undef FN
#undef SUB

int bench_field_find(const char *path)
{
	for (int f = 0; f < BF_NR; f++)
		if (!strcmp(bench_fields[f].path, path))
			return f;
	return -1;
}

const char *bench_ftype_name(enum bench_ftype t)
{
	static const char *const n[] = { "string", "integer", "number", "boolean", "object", "array" };

	return n[t];
}

const char *bench_fident_name(enum bench_fident i)
{
	static const char *const n[] = { "none", "key", "knob", "run", "build" };

	return n[i];
}

const char *bench_fsum_name(enum bench_fsum s)
{
	static const char *const n[] = { "same", "median", "worst", "rep", "all" };

	return n[s];
}

static const char *const bench_fwhen_names[] = { "always", "readers", "charge", "no readers" };

static const char *bench_schema_help =
	"usage: ctrbench schema [--format json|table]\n"
	"\n"
	"Prints the table of every field of a result line (bench/schema.h): its JSON path, type,\n"
	"identity class (key, knob: compare matches on them; run, build: sweep --resume also does),\n"
	"how repetitions summarise it, when it is not null, whether it is a CSV column, and the\n"
	"value a line without it is read as.\n"
	"\n"
	"  --format F   json (default: one object, {\"schema\": N, \"fields\": [...]}) or table\n"
	"\n"
	"example: ctrbench schema | python3 -m json.tool\n";

int bench_cmd_schema(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int table = 0, c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(bench_schema_help, stdout);
			return 0;
		}
		if (c == 'f') {
			if (!strcmp(optarg, "table"))
				table = 1;
			else if (strcmp(optarg, "json"))
				die("unknown format '%s' for schema (want json or table)", optarg);
			continue;
		}
		bench_die_getopt(c, argv);
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	if (table) {
		printf("# result schema %d\n%-24s %-8s %-6s %-7s %-10s %-4s %-9s %s\n", BENCH_SCHEMA_VERSION,
		       "path", "type", "ident", "reps", "when", "csv", "default", "meaning");
		for (int f = 0; f < BF_NR; f++) {
			const struct bench_field *d = &bench_fields[f];

			printf("%-24s %-8s %-6s %-7s %-10s %-4s %-9s %s\n", d->path, bench_ftype_name(d->type),
			       bench_fident_name(d->ident), bench_fsum_name(d->sum), bench_fwhen_names[d->when],
			       d->csv ? "yes" : "-", d->def ? d->def : "-", d->doc);
		}
		return 0;
	}
	json_t *fields = json_array(), *j;

	for (int f = 0; f < BF_NR; f++) {
		const struct bench_field *d = &bench_fields[f];

		json_array_append_new(fields, json_pack("{s:s,s:s,s:s,s:s,s:s,s:b,s:o,s:s}", "path", d->path,
				      "type", bench_ftype_name(d->type), "identity", bench_fident_name(d->ident),
				      "reps", bench_fsum_name(d->sum), "when", bench_fwhen_names[d->when],
				      "csv", d->csv, "default", d->def ? json_loads(d->def, JSON_DECODE_ANY, NULL)
				      : json_null(), "doc", d->doc));
	}
	j = json_pack("{s:i,s:o}", "schema", BENCH_SCHEMA_VERSION, "fields", fields);
	json_dumpf(j, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(j);
	return 0;
}
