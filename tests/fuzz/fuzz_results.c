/* SPDX-License-Identifier: MIT */
/*
 * fuzz_results.c - libFuzzer target for the result-line reader: the bytes
 * become a results file, read as sweep --resume, compare and recommend read
 * one (bench_results_load, the schema check, the identity keys from the field
 * table, the per-line summary), and a partial tail is judged as --resume
 * judges it (bench_json_prefix_ok).  Bad input must end in die() (here a
 * longjmp back: linked with -Wl,--wrap=die), never in a crash, a leak the
 * sanitizer sees, or a hang.  Built and run by `make fuzz` (tests/fuzz/run.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../bench/record.h"
#include "../../bench/reps.h"
#include "../../bench/results.h"
#include "../../bench/schema.h"
#include "fuzz_die.h"

static char fz_path[64];	/* the results file the input becomes */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bench_results r;	/* static: a longjmp out of a load leaves it for the next free */
	FILE *f;

	if (!*fz_path)
		snprintf(fz_path, sizeof(fz_path), "/tmp/fuzz_results.%d.jsonl", (int)getpid());
	bench_json_prefix_ok((const char *)data, size);
	f = fopen(fz_path, "w");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (setjmp(fz_back) == 0) {
		bench_results_load(fz_path, 0, &r);
		for (int i = 0; i < r.n; i++) {
			struct bench_summary s;
			char *k;

			bench_results_check_schema(r.line[i].obj, fz_path, r.line[i].lineno);
			k = bench_line_key(r.line[i].obj, bench_field_is_resume_key);
			free(k);
			memset(&s, 0, sizeof(s));
			bench_record_parse(r.line[i].obj, &s);
		}
	}
	bench_results_free(&r);
	return 0;
}
