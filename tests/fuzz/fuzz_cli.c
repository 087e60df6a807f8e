/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cli.c - libFuzzer target for the parsers a command line's values go
 * through.  The input, up to its first NUL (an argv string), is handed to
 * each: shapes (bench_shape_parse), placements on a synthetic 2-socket
 * machine (topo_place), --options for every algorithm (ctr_options_check),
 * --events (the strict parser), numbers (bench_plain_number) and a synthetic
 * topology spec's PU count (topo_synthetic_pus).  Each must answer with an
 * error return, never a crash, a hang or an exit; one that calls die() from
 * another file lands in __wrap_die here (-Wl,--wrap=die) and must say one
 * line.  Built and run by `make fuzz` (tests/fuzz/run.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/cli.h"
#include "../../bench/run.h"
#include "../../counters/ctr.h"
#include "../../pmu/pmu.h"
#include "../../topology/topo.h"
#include "fuzz_die.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct topo *genoa;
	char *s = malloc(size + 1), err[512];
	struct bench_shape shape;
	struct pmu_event_spec *ev = NULL;
	const char *why;
	int pus[64], wrapped, n;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;	/* up to the first NUL: a C string, as argv holds */
	if (!genoa)
		genoa = topo_load("pack:2 [numa] l3:12 core:8 pu:2", err, sizeof(err));
	memset(&shape, 0, sizeof(shape));
	if (!bench_shape_parse(s, &shape, &why))
		bench_shape_free(&shape);
	topo_place(genoa, s, 8, pus, &wrapped, err, sizeof(err));
	for (int i = 0; i < ctr_algo_count(); i++)
		ctr_options_check(ctr_algo_at(i), s, err, sizeof(err));
	if (!pmu_events_parse_strict(s, &ev, &n, err, sizeof(err)))
		free(ev);
	topo_synthetic_pus(s);
	bench_plain_number(s);
	free(s);
	return 0;
}
