/* SPDX-License-Identifier: MIT */
/* cmd-schema.c - `ctrbench schema`: the field table (schema.h) as JSON or a table. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "builtin.h"
#include "cli.h"
#include "schema.h"

static const char *bench_schema_help =
	"usage: ctrbench schema [--format json|table]\n"
	"\n"
	"Prints the table of every field of a result line (bench/schema.h): its JSON path, type,\n"
	"identity class (key, knob: compare matches on them; run, build: sweep --resume also does),\n"
	"how repetitions summarise it, when it is not null, whether it is a CSV column, the\n"
	"value a line without it is read as, and (json: min, max) the values a reader takes;\n"
	"then the fields of a ctrbench c2c line (c2c_fields) and of a ctrbench project line\n"
	"(projected_fields: a model's figures, not measured).\n"
	"\n"
	"  --format F   json (default: one object, {\"schema\": N, \"fields\": [...]}) or table\n"
	"\n"
	"example: ctrbench schema | python3 -m json.tool\n";

/* --format table: each field table, a row per field. */
static void schema_print_table(void)
{
	printf("# result schema %d\n%-24s %-8s %-6s %-7s %-10s %-4s %-9s %s\n", BENCH_SCHEMA_VERSION,
	       "path", "type", "ident", "reps", "when", "csv", "default", "meaning");
	for (int f = 0; f < BF_NR; f++) {
		const struct bench_field *d = &bench_fields[f];

		printf("%-24s %-8s %-6s %-7s %-10s %-4s %-9s %s\n", d->path, bench_ftype_name(d->type),
		       bench_fident_name(d->ident), bench_fsum_name(d->sum), bench_fwhen_name(d->when),
		       d->csv ? "yes" : "-", d->def ? d->def : "-", d->doc);
	}
	printf("\n# c2c line (kind c2c): fields\n%-28s %-8s %-8s %-5s %s\n", "path", "type", "when",
	       "null", "meaning");
	for (int f = 0; f < bench_c2c_nr_fields; f++)
		printf("%-28s %-8s %-8s %-5s %s\n", bench_c2c_fields[f].path,
		       bench_ftype_name(bench_c2c_fields[f].type),
		       bench_c2c_fields[f].when == BCW_ALL ? "always" : "measured",
		       bench_c2c_fields[f].nullable ? "yes" : "-", bench_c2c_fields[f].doc);
	printf("\n# projected line (kind projected, ctrbench project): fields\n%-28s %-8s %s\n", "path",
	       "type", "meaning");
	for (int f = 0; f < bench_proj_nr_fields; f++)
		printf("%-28s %-8s %s\n", bench_proj_fields[f].path, bench_ftype_name(bench_proj_fields[f].type),
		       bench_proj_fields[f].doc);
}

/* --format json (the default): the same tables as one object, read by scripts/report. */
static void schema_print_json(void)
{
	json_t *fields = json_array(), *c2c = json_array(), *proj = json_array(), *j;

	for (int f = 0; f < BF_NR; f++) {
		const struct bench_field *d = &bench_fields[f];
		const struct bench_field_range *r = &bench_field_ranges[f];
		json_t *row;

		row = json_pack("{s:s,s:s,s:s,s:s,s:s,s:b,s:o,s:s}", "path", d->path,
				      "type", bench_ftype_name(d->type), "identity", bench_fident_name(d->ident),
				      "reps", bench_fsum_name(d->sum), "when", bench_fwhen_name(d->when),
				      "csv", d->csv, "default", d->def ? json_loads(d->def, JSON_DECODE_ANY, NULL)
				      : json_null(), "doc", d->doc);
		/* the values a reader takes (BENCH_FIELD_RANGES), null: no bound */
		json_object_set_new(row, "min", r->has ? json_real(r->lo) : json_null());
		json_object_set_new(row, "max", r->has && r->hi < BR_ANY ? json_real(r->hi) : json_null());
		json_array_append_new(fields, row);
	}
	for (int f = 0; f < bench_c2c_nr_fields; f++)
		json_array_append_new(c2c, json_pack("{s:s,s:s,s:s,s:b,s:s}", "path", bench_c2c_fields[f].path,
				      "type", bench_ftype_name(bench_c2c_fields[f].type), "when",
				      bench_c2c_fields[f].when == BCW_ALL ? "always" : "measured",
				      "nullable", bench_c2c_fields[f].nullable, "doc", bench_c2c_fields[f].doc));
	for (int f = 0; f < bench_proj_nr_fields; f++)
		json_array_append_new(proj, json_pack("{s:s,s:s,s:s}", "path", bench_proj_fields[f].path, "type",
						      bench_ftype_name(bench_proj_fields[f].type), "doc",
						      bench_proj_fields[f].doc));
	j = json_pack("{s:i,s:o,s:o,s:o}", "schema", BENCH_SCHEMA_VERSION, "fields", fields, "c2c_fields", c2c,
		      "projected_fields", proj);
	json_dumpf(j, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(j);
}

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
	while ((c = bench_getopt(argc, argv, opts)) != -1) {
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
	if (table)
		schema_print_table();
	else
		schema_print_json();
	return 0;
}
