/* SPDX-License-Identifier: MIT */
/*
 * cmd-report.c - `ctrbench report`: reports are drawn by scripts/report, a Python script that
 * uses gnuplot; this command finds the script and hands it the command line.  The script is
 * looked for in $CTRBENCH_SCRIPTS_DIR, else in ../libexec/ctrbench beside this binary (where
 * make install puts it, under any prefix or DESTDIR), else in the scripts folder of the tree this
 * binary was built from (CTRBENCH_SCRIPTS_DIR, compiled in by the Makefile).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "builtin.h"

#ifndef CTRBENCH_SCRIPTS_DIR
#define CTRBENCH_SCRIPTS_DIR "scripts"
#endif

/* <folder of this executable>/../libexec/ctrbench, if it holds the script; else NULL. */
static const char *bench_installed_scripts(char *buf, size_t len)
{
	char exe[PATH_MAX], path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	if (snprintf(buf, len, "%s/../libexec/ctrbench", exe) >= (int)len ||
	    snprintf(path, sizeof(path), "%s/report", buf) >= (int)sizeof(path) || access(path, R_OK))
		return NULL;
	return buf;
}

/* $CTRBENCH_ALGOS: the registry's order, so every report gives an algorithm the same colour and marker. */
static void bench_export_algo_order(void)
{
	size_t len = 1;
	char *names;

	for (int i = 0; i < bench_nr_algos; i++)
		len += strlen(bench_algos[i].name) + 1;
	names = calloc(1, len);
	if (!names)
		return;	/* the report then colours by first appearance */
	for (int i = 0; i < bench_nr_algos; i++) {
		if (i)
			strcat(names, ",");
		strcat(names, bench_algos[i].name);
	}
	setenv("CTRBENCH_ALGOS", names, 1);
	free(names);
}

int bench_cmd_report(int argc, char **argv)
{
	const char *dir = getenv("CTRBENCH_SCRIPTS_DIR");
	char script[PATH_MAX], installed[PATH_MAX];
	char **args;

	if (!dir || !*dir)
		dir = bench_installed_scripts(installed, sizeof(installed));
	if (!dir)
		dir = CTRBENCH_SCRIPTS_DIR;
	if (snprintf(script, sizeof(script), "%s/report", dir) >= (int)sizeof(script)) {
		fprintf(stderr, "ctrbench: report: CTRBENCH_SCRIPTS_DIR is too long\n");
		return 1;
	}
	if (access(script, R_OK)) {
		fprintf(stderr, "ctrbench: report: cannot read the report script '%s': %s"
			" (set CTRBENCH_SCRIPTS_DIR to the folder that holds it)\n", script,
			strerror(errno));
		return 1;
	}
	/* the script reads the field table (ctrbench schema) from this very binary */
	{
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n > 0) {
			self[n] = 0;
			setenv("CTRBENCH_BIN", self, 1);
		}
	}
	/* python3 SCRIPT ARGS... NULL */
	args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args) {
		fprintf(stderr, "ctrbench: report: out of memory\n");
		return 1;
	}
	args[0] = (char *)"python3";
	args[1] = script;
	for (int i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	bench_export_algo_order();
	fflush(NULL);
	execvp(args[0], args);
	fprintf(stderr, "ctrbench: report needs python3 (%s): install it (scripts/install-deps.sh does)\n",
		strerror(errno));
	free(args);
	return 1;
}
