/* SPDX-License-Identifier: MIT */
/*
 * project.c - `ctrbench scenario NAME --project TOPOLOGY`: the seed's
 * table from the coherence projection (docs/projection.md), beside the
 * figures the seed posted (docs/seeds/tables.csv, read at run time).  Each
 * scenario's projected configuration sits in its own file beside its
 * measured one (struct scn.project).  Every projected figure is labelled;
 * nothing is scaled to meet the posted ones: the same model and calibration
 * for every row and scenario.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../topology/topo.h"
#include "../cli.h"
#include "../project.h"
#include "scenario.h"

/* The scenarios that have a projection, for the refusal. */
static const char *scn_projected_names(char *buf, size_t len)
{
	*buf = 0;
	for (int i = 0; i < scn_nr; i++)
		if (scn_list[i]->project)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", *buf ? ", " : "", scn_list[i]->name);
	return buf;
}

int scn_project_main(const struct scn *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "project", required_argument, NULL, 'p' },
		{ "calibration", required_argument, NULL, 'c' },
		{ "ops", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spec = NULL, *calib = NULL;
	struct proj_calib cal;
	struct bench_seeds seeds = { 0 };
	struct scn_proj p = { .s = s, .ops = 300, .cal = &cal, .seeds = &seeds };
	struct topo *topo;
	char err[256];
	int opt;

	opterr = 0;
	optind = 2;
	while ((opt = bench_getopt(argc, argv, opts)) != -1) {
		switch (opt) {
		case 'p': spec = optarg; break;
		case 'c': calib = optarg; break;
		case 'n': p.ops = bench_parse_int("ops", optarg, 10, 1000000); break;
		default: bench_die_getopt(opt, argv);
		}
	}
	if (optind < argc)
		die("scenario %s --project: unexpected argument '%s' (takes --calibration and --ops)", s->name,
		    argv[optind]);
	if (!s->project)
		die("scenario %s: no projection (%s)", s->name, scn_projected_names(err, sizeof(err)));
	if (calib ? proj_calib_load(&cal, calib, err, sizeof(err)) : (proj_calib_default(&cal), 0))
		die("scenario: %s", err);
	topo = topo_load(spec, err, sizeof(err));
	if (!topo)
		die("scenario: %s", err);
	p.topo = topo;
	bench_seeds_load(&seeds);
	printf("# scenario %s, PROJECTED on %s (%d PUs): model, not measured (docs/projection.md)\n# calibration: %s\n",
	       s->name, topo_spec(topo), topo_nr_pus(topo), cal.source);
	if (seeds.why)	/* the posted columns then say nan or - */
		printf("# seed figures: %s %s (set CTRBENCH_SEEDS to tables.csv): none shown\n", seeds.path, seeds.why);
	s->project(&p);
	bench_seeds_free(&seeds);
	topo_free(topo);
	return 0;
}
