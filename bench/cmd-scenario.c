/* SPDX-License-Identifier: MIT */
/*
 * cmd-scenario.c - `ctrbench scenario list | NAME [options]`: parses the
 * command line and dispatches to the scenario (bench/scenario/list.h):
 * measured through the engine (bench/scenario/engine.c), or projected with
 * --project (bench/scenario/project.c).  Which options a scenario takes is
 * its own struct's (struct scn.opts), never a test of which scenario it is.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"
#include "scenario/scenario.h"

static const char *scn_names(void)
{
	static char buf[512];

	buf[0] = 0;
	for (int i = 0; i < scn_nr; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? ", " : "", scn_list[i]->name);
	return buf;
}

static const char *const scn_help =
	"usage: ctrbench scenario list | NAME [options]\n"
	"\n"
	"A seed thread's experiment on this machine: its table, and every result as a JSON line in\n"
	"--out (ctrbench scenario list names them and their seeds).\n"
	"\n"
	"  --quick                  short runs, every scenario under 30 s (default off)\n"
	"  --format F               table or json (default table); with --project, json: one line per\n"
	"                           projected configuration on stdout, as it finishes (project --format\n"
	"                           json's fields, then scenario, row, column and options: its cell)\n"
	"  --out FILE               raw results (default, with the table format: in this folder,\n"
	"                           ctrbench-NAME-YYYYMMDD-HHMMSS.jsonl, or -2, -3... if taken; never\n"
	"                           overwritten; one writer at a time: it is locked)\n"
	"  --reps K                 (default 3; 1 with --quick)\n"
	"  --duration-ms MS         (default 1000; stat-read-storm 3000; --quick 60, read storm 400)\n"
	"  --warmup-ms MS           (default 200; 20 with --quick)\n"
	"  --flush-period-ms MS     (default a tenth of --duration-ms)\n"
	"  --readers R              stat-read-storm only (default 1000; 100 with --quick)\n"
	"  --algo LIST              (default the scenario's own list)\n"
	"  --work-ns NS             (default 0)\n"
	"  --slots N                per-CPU slots (default the seed's CPU count: 80 for 000, 96 for 001,\n"
	"                           384 for 004; subsys-flush-locks: run's default)\n"
	"  --limit-headroom X       store scenarios' limits, X times the holdings (default 2: not hit)\n"
	"  --no-cap                 the seed's thread counts even past this machine's PUs (default: capped)\n"
	"  --resume                 with --out: reuse the configurations it already holds, run the rest\n"
	"                           (default: refuse a non-empty --out); a file of this scenario's results\n"
	"                           only, each configuration once (a partial last line is dropped)\n"
	"  --from FILE              print the tables from FILE's results, measuring nothing (default:\n"
	"                           measure); FILE: a scenario's --out, run with the same options\n"
	"  --project TOPOLOGY       PROJECTED from the coherence model, measuring nothing (default: measure);\n"
	"                           TOPOLOGY an hwloc synthetic spec; takes only --calibration, --ops,\n"
	"                           --readers (stat-read-storm: its readers, default 10000) and --format\n"
	"  --calibration FILE       with --project (default: published Genoa figures): c2c --format json\n"
	"  --ops N                  with --project: operations per projected worker (default 300)\n"
	"  --wide                   table: the algorithms side by side, the seed's figures and ours/seed\n"
	"                           in rows under each row, notes on one line each (default: what fits\n"
	"                           100 columns, a line per algorithm and row)\n"
	"\n"
	"example: ctrbench scenario zswap-store-limit --quick\n";


/* The options a scenario may not take (enum scn_opt), each with the flag that gives it. */
static const struct { unsigned opt; const char *flag; } scn_opt_flags[] = {
	{ SCN_OPT_WORK_NS, "--work-ns" }, { SCN_OPT_LIMIT_HEADROOM, "--limit-headroom" },
	{ SCN_OPT_NO_CAP, "--no-cap" }, { SCN_OPT_READERS, "--readers" }, { SCN_OPT_SLOTS, "--slots" },
	{ SCN_OPT_FROM, "--from" }, { SCN_OPT_RESUME, "--resume" }, { SCN_OPT_ALGO, "--algo" },
};

/* given (enum scn_opt) against what s takes: the first it does not take is bad input, with who takes it. */
static void scn_check_opts(const struct scn *s, unsigned given)
{
	for (size_t i = 0; i < sizeof(scn_opt_flags) / sizeof(scn_opt_flags[0]); i++) {
		char who[512] = "";

		if (!(given & scn_opt_flags[i].opt) || (s->opts & scn_opt_flags[i].opt))
			continue;
		for (int k = 0; k < scn_nr; k++)
			if (scn_list[k]->opts & scn_opt_flags[i].opt)
				snprintf(who + strlen(who), sizeof(who) - strlen(who), "%s%s", *who ? ", " : "",
					 scn_list[k]->name);
		die("%s does not apply to %s%s%s (it applies to %s)", scn_opt_flags[i].flag, s->name,
		    s->opts_why ? ": " : "", s->opts_why ? s->opts_why : "", who);
	}
}

static const struct option scn_long_opts[] = {
	{ "quick", no_argument, NULL, 'q' },
	{ "format", required_argument, NULL, 'f' },
	{ "out", required_argument, NULL, 'o' },
	{ "reps", required_argument, NULL, 'k' },
	{ "duration-ms", required_argument, NULL, 'd' },
	{ "warmup-ms", required_argument, NULL, 'W' },
	{ "flush-period-ms", required_argument, NULL, 'P' },
	{ "readers", required_argument, NULL, 'r' },
	{ "algo", required_argument, NULL, 'a' },
	{ "work-ns", required_argument, NULL, 'X' },
	{ "no-cap", no_argument, NULL, 'C' },
	{ "resume", no_argument, NULL, 'R' },
	{ "from", required_argument, NULL, 'F' },
	{ "slots", required_argument, NULL, 'S' },
	{ "limit-headroom", required_argument, NULL, 'H' },
	{ "wide", no_argument, NULL, BENCH_OPT_WIDE },
	{ NULL, 0, NULL, 0 },
};

/* One option into c (or algo_list, out); returns the enum scn_opt it gives, 0 for a common one. */
static unsigned scn_parse_one(int opt, char **argv, struct scn_ctx *c, char **algo_list, const char **out)
{
	switch (opt) {
	case 'q': c->quick = 1; return 0;
	case BENCH_OPT_WIDE: c->wide = 1; return 0;
	case 'f':
		if (strcmp(optarg, "table") && strcmp(optarg, "json"))
			die("unknown format '%s' (want table or json)", optarg);
		c->table = !strcmp(optarg, "table");
		return 0;
	case 'o': *out = optarg; return 0;
	case 'k': c->reps = bench_parse_int("reps", optarg, 1, 1000); return 0;
	case 'd': c->duration_ms = bench_parse_int("duration-ms", optarg, 1, 3600 * 1000); return 0;
	case 'W': c->warmup_ms = bench_parse_int("warmup-ms", optarg, 0, 3600 * 1000); return 0;
	case 'P': c->flush_period_ms = bench_parse_int("flush-period-ms", optarg, 1, 3600 * 1000); return 0;
	case 'r': c->readers = bench_parse_int("readers", optarg, 1, 4000); return SCN_OPT_READERS;
	case 'a': *algo_list = optarg; return SCN_OPT_ALGO;
	case 'X':
		c->base.work_ns = bench_parse_int("work-ns", optarg, 0, 10 * 1000 * 1000);
		return c->base.work_ns ? SCN_OPT_WORK_NS : 0;
	case 'C': c->no_cap = 1; return SCN_OPT_NO_CAP;
	case 'R': c->resume = 1; return SCN_OPT_RESUME;
	case 'F': c->from = optarg; return SCN_OPT_FROM;
	case 'S': c->slots = bench_parse_int("slots", optarg, 1, 8192); return SCN_OPT_SLOTS;
	case 'H':
		c->limit_headroom = bench_parse_num("limit-headroom", optarg, 0.01, 1000);
		return SCN_OPT_LIMIT_HEADROOM;
	default: bench_die_getopt(opt, argv);
	}
}

/* The scenario's options into c; algo_list and out as given (NULL if not). */
static void scn_parse(int argc, char **argv, struct scn_ctx *c, char **algo_list, const char **out)
{
	unsigned given = 0;
	int opt;

	c->reps = -1;
	c->readers = -1;
	c->warmup_ms = -1;
	c->flush_period_ms = -1;
	c->table = 1;
	opterr = 0;
	optind = 2;
	while ((opt = bench_getopt(argc, argv, scn_long_opts)) != -1)
		given |= scn_parse_one(opt, argv, c, algo_list, out);
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	if (c->from && (*out || c->resume || !c->table))
		die("--from prints the tables of a results file: it takes no --out, --resume or --format json");
	scn_check_opts(c->s, given);
}

/* "41m (22s)": seconds as the list shows them, the full run's then --quick's; "own" without a plan. */
static void scn_fmt_duration(char *buf, size_t len, double full, double quick)
{
	char f[16], q[16];
	double v[2] = { full, quick };
	char *o[2] = { f, q };

	for (int k = 0; k < 2; k++) {
		if (v[k] < 0)
			snprintf(o[k], 16, "own");
		else if (v[k] < 90)
			snprintf(o[k], 16, "%.0fs", v[k]);
		else if (v[k] < 5400)
			snprintf(o[k], 16, "%.0fm", v[k] / 60);
		else
			snprintf(o[k], 16, "%.1fh", v[k] / 3600);
	}
	snprintf(buf, len, "%.15s (%.15s)", f, q);
}

/* `ctrbench scenario list`. */
static int scn_print_list(int argc, char **argv)
{
	if (argc > 2)
		die("unexpected argument '%s'", argv[2]);
	struct bench_config machine = { 0 };

	bench_setup_machine(&machine, NULL, NULL);
	/* how long each takes here, from its planning pass: what a newcomer asks before starting one */
	printf("%-20s %-26s %-14s %s\n", "scenario", "seed", "time (--quick)", "what it measures");
	for (int i = 0; i < scn_nr; i++) {
		char t[40];

		scn_fmt_duration(t, sizeof(t), scn_plan_seconds(scn_list[i], &machine, 0),
				 scn_plan_seconds(scn_list[i], &machine, 1));
		printf("%-20s %-26s %-14s %s\n", scn_list[i]->name, scn_list[i]->seed, t, scn_list[i]->what);
	}
	printf("# time: the planning pass's runs x (warm-up + 1.25 x window), at the defaults on this machine;"
	       " \"own\": it runs its own threads, no plan\n");
	bench_setup_release(&machine);
	return 0;
}

int bench_cmd_scenario(int argc, char **argv)
{
	const struct scn *s;
	struct scn_ctx *c;
	const char *out = NULL;
	char *algo_list = NULL;
	int rc;

	bench_help(argc, argv, scn_help);
	if (argc < 2)
		die("scenario needs a name or list (%s)", scn_names());
	if (!strcmp(argv[1], "list"))
		return scn_print_list(argc, argv);
	s = scn_find(argv[1]);
	if (!s)
		die("unknown scenario '%s' (want %s)", argv[1], scn_names());
	for (int i = 2; i < argc; i++)
		if (!strncmp(argv[i], "--project", 9))	/* the projection instead of a run */
			return scn_project_main(s, argc, argv);
	c = bench_xcalloc(1, sizeof(*c));
	c->s = s;
	scn_parse(argc, argv, c, &algo_list, &out);
	rc = scn_main(c, out, algo_list);
	free(c);
	return rc;
}
