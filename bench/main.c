/* SPDX-License-Identifier: MIT */
/*
 * main.c - ctrbench, measure concurrent counter algorithms.  This file is
 * the dispatcher: the table of commands, from which ctrbench --help is
 * written; each command lives in bench/cmd-NAME.c (builtin.h).
 *
 * Every bad input ends in die(): one line naming the bad value, exit 2.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"
#include "env.h"
#include "schema.h"

/*
 * The commands: main dispatches argv from the command's name on to fn, and
 * `ctrbench --help` is written from this table, so no command can be left
 * out of it (tests/help_flags.py reads the table and checks both).  Each
 * command's flags are in its own --help, next to its option table.
 */
static const struct bench_cmd {
	const char *name;		/* argv[1] */
	int (*fn)(int argc, char **argv);	/* the command, in bench/cmd-NAME.c (builtin.h) */
	const char *summary;		/* one line for ctrbench --help */
} bench_cmds[] = {
	{ "list", bench_cmd_list, "the algorithms, one a line" },
	{ "run", bench_cmd_run, "measure algorithms on one configuration: one result each" },
	{ "topo", bench_cmd_topo, "a topology and where a placement puts N threads on it" },
	{ "events", bench_cmd_events, "which hardware events open here, and why not" },
	{ "compare", bench_cmd_compare, "the change per configuration between two result files" },
	{ "scenario", bench_cmd_scenario, "a seed thread's experiment and its table from this machine" },
	{ "sweep", bench_cmd_sweep, "a cross product of configurations, one result line each" },
	{ "slurm", bench_cmd_slurm, "a sweep's plan as a Slurm job array, one shard per node" },
	{ "recommend", bench_cmd_recommend, "rank the algorithms for a workload, with the evidence" },
	{ "report", bench_cmd_report, "an HTML or Markdown report of result files" },
	{ "schema", bench_cmd_schema, "the fields of a result line" },
	{ "c2c", bench_cmd_c2c, "the cost of moving one cache line between two CPUs" },
	{ "limits", bench_cmd_limits, "each harness figure beside the physical limit that bounds it" },
	{ "project", bench_cmd_project, "libctr's code projected onto a model of a topology (not measured)" },
};

#define BENCH_NR_CMDS ((int)(sizeof(bench_cmds) / sizeof(bench_cmds[0])))

/* ctrbench --help: every command of the table with its summary. */
static void bench_usage(void)
{
	int w = 0;

	for (int i = 0; i < BENCH_NR_CMDS; i++)
		if ((int)strlen(bench_cmds[i].name) > w)
			w = (int)strlen(bench_cmds[i].name);
	fputs("usage: ctrbench COMMAND [OPTIONS]\n"
	      "       ctrbench [COMMAND] --version\n"
	      "\n"
	      "commands (ctrbench COMMAND --help: its flags, each default, an example):\n", stdout);
	for (int i = 0; i < BENCH_NR_CMDS; i++)
		printf("  ctrbench %-*s  %s\n", w, bench_cmds[i].name, bench_cmds[i].summary);
	fputs("\n"
	      "--events names nothing knows are an error; --events-lenient counts the others\n",
	      stdout);
}

/* ctrbench --version (and COMMAND --version): the version, the commit built, the result schema. */
static int bench_version(void)
{
	printf("ctrbench %s (commit %s; result schema %d)\n", CTRBENCH_VERSION, bench_env_commit(),
	       BENCH_SCHEMA_VERSION);
	return 0;
}

int main(int argc, char **argv)
{
	char names[256] = "";
	const int n = BENCH_NR_CMDS;

	for (int i = 0; i < n; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? (i == n - 1 ? " or " : ", ") : "", bench_cmds[i].name);
	if (argc < 2)
		die("no command given (want %s); try ctrbench --help", names);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		bench_usage();
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		if (argc > 2)
			die("unexpected argument '%s' after %s", argv[2], argv[1]);
		return bench_version();
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
	for (int i = 0; i < n; i++) {
		if (strcmp(argv[1], bench_cmds[i].name))
			continue;
		/* COMMAND --version alone: the same line as ctrbench --version, for every command */
		if (argc == 3 && (!strcmp(argv[2], "--version") || !strcmp(argv[2], "-V")))
			return bench_version();
		return bench_cmds[i].fn(argc - 1, argv + 1);
	}
	die("unknown command '%s' (want %s)", argv[1], names);
}
