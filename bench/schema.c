/* SPDX-License-Identifier: MIT */
/* schema.c - the field table (schema.h) as data. */
#include <stdio.h>
#include <string.h>

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

const struct bench_c2c_field bench_c2c_fields[] = {
#define BCF_ROW_(path, type, when, nullable, doc) { path, type, when, nullable, doc },
	BENCH_C2C_FIELDS(BCF_ROW_)
#undef BCF_ROW_
};
const int bench_c2c_nr_fields = sizeof(bench_c2c_fields) / sizeof(bench_c2c_fields[0]);

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

const char *bench_fwhen_name(enum bench_fwhen w)
{
	static const char *const n[] = { "always", "readers", "charge", "no readers" };

	return n[w];
}
