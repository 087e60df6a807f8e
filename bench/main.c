/* SPDX-License-Identifier: MIT */
/*
 * ctrbench - measure concurrent counter algorithms.  This file is the
 * dispatcher: the usage line of every command and the table of commands;
 * each command lives in bench/cmd-NAME.c (builtin.h).
 *
 * Every bad input ends in die(): one line naming the bad value, exit 2.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"
#include "env.h"
#include "schema.h"

static const char *bench_usage =
	"usage: ctrbench list\n"
	"       ctrbench topo [--topology SPEC] [--placement P --threads N] [--format table|json]\n"
	"       ctrbench events [--events LIST] [--format table|json]\n"
	"       ctrbench compare A.jsonl B.jsonl [--metric M] [--format table|json]\n"
	"       ctrbench scenario list | NAME [--quick] [--format table|json] [--out FILE] [--reps K]\n"
	"                    [--duration-ms MS] [--warmup-ms MS] [--flush-period-ms MS] [--readers R]\n"
	"                    [--algo LIST] [--work-ns NS] [--no-cap] [--resume]\n"
	"       ctrbench report RESULTS.jsonl [MORE.jsonl...] --out DIR [--format html|markdown]\n"
	"                       [--baseline ALGO]\n"
	"       ctrbench run [--algo A[,B...]|all] [--workload update|charge|readers]\n"
	"                    [--shape chain:D|tree:AxB[xC...]] [--threads N]\n"
	"                    [--readers R] [--read-interval-us US] [--read-node random|root|leaf|own|N]\n"
	"                    [--placement compact|scatter|ccx|numa|smt|list:0,2-5] [--topology SPEC]\n"
	"                    [--shared-mem local|interleave|node:K] [--events LIST|bounce]\n"
	"                    [--sample 1/N] [--reps K] [--note TEXT] [--work-ns NS]\n"
	"                    [--options KEY=VAL,...] [--flush-period-ms MS] [--charge-burst B]\n"
	"                    [--duration-ms MS] [--warmup-ms MS] [--format table|csv|json] [--force]\n"
	"       ctrbench sweep --algo LIST --shape LIST --threads LIST|A..B|nodes --out FILE [--resume]\n"
	"                    [--workload LIST] [--placement LIST] [--plan FILE] [--reps K] [--readers R]\n"
	"                    [--duration-ms MS] [--warmup-ms MS] [--options O] [--flush-period-ms MS]\n"
	"                    [--work-ns NS] [--events LIST|bounce] [--note TEXT] [--force]\n"
	"       ctrbench c2c [--cpus LIST|all] [--pairs all|sample:N|per-class:N] [--home first-touch|node:K|each]\n"
	"                    [--op cas|load-store|fetch-add] [--reps K] [--dry-run] [--format table|json|csv]\n"
	"       ctrbench recommend --updates-per-sec U --reads-per-sec R --depth D\n"
	"                    --max-staleness EXACT|N|MSms [--results FILE] [--threads T] [--format table|json]\n"
	"       ctrbench schema [--format json|table]\n"
	"       ctrbench limits [--rounds K] [--duration-ms MS] [--format table|json]\n"
	"       ctrbench --version\n"
	"  every command takes --help: its flags, each default, an example\n"
	"  --events names nothing knows are an error; --events-lenient counts the others\n";

/* The subcommands; each takes argv from its own name on. */
static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} bench_cmds[] = {
	{ "list", bench_cmd_list },
	{ "run", bench_cmd_run },
	{ "topo", bench_cmd_topo },
	{ "events", bench_cmd_events },
	{ "compare", bench_cmd_compare },
	{ "scenario", bench_cmd_scenario },
	{ "sweep", bench_cmd_sweep },
	{ "recommend", bench_cmd_recommend },
	{ "report", bench_cmd_report },
	{ "schema", bench_cmd_schema },
	{ "c2c", bench_cmd_c2c },
	{ "limits", bench_cmd_limits },
	{ "project", bench_cmd_project },
};

int main(int argc, char **argv)
{
	char names[256] = "";
	const int n = (int)(sizeof(bench_cmds) / sizeof(bench_cmds[0]));

	for (int i = 0; i < n; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? (i == n - 1 ? " or " : ", ") : "", bench_cmds[i].name);
	if (argc < 2)
		die("no command given (want %s); try ctrbench --help", names);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(bench_usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		if (argc > 2)
			die("unexpected argument '%s' after %s", argv[2], argv[1]);
		printf("ctrbench %s (commit %s; result schema %d)\n", CTRBENCH_VERSION, bench_env_commit(),
		       BENCH_SCHEMA_VERSION);
		return 0;
	}
	/* --events-lenient, wherever it stands, for every command that takes --events */
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--events-lenient")) {
			bench_events_lenient = 1;
			memmove(&argv[i], &argv[i + 1], sizeof(*argv) * (size_t)(argc - i));
			argc--;
			i--;
		}
	}
	for (int i = 0; i < n; i++)
		if (!strcmp(argv[1], bench_cmds[i].name))
			return bench_cmds[i].fn(argc - 1, argv + 1);
	die("unknown command '%s' (want %s)", argv[1], names);
}
