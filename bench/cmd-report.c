/* SPDX-License-Identifier: MIT */
/*
 * report_cmd.c - `ctrbench report`: reports are drawn by scripts/report, a Python script that
 * uses gnuplot; this command finds the script and hands it the command line.  The script is
 * looked for in $CTRBENCH_SCRIPTS_DIR, else in the scripts folder of the tree this binary was
 * built from (CTRBENCH_SCRIPTS_DIR, compiled in by the Makefile).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"

#ifndef CTRBENCH_SCRIPTS_DIR
#define CTRBENCH_SCRIPTS_DIR "scripts"
#endif

int bench_cmd_report(int argc, char **argv)
{
	const char *dir = getenv("CTRBENCH_SCRIPTS_DIR");
	char script[PATH_MAX];
	char **args;

	if (!dir || !*dir)
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
	fflush(NULL);
	execvp(args[0], args);
	fprintf(stderr, "ctrbench: report needs python3 (%s): install it (scripts/install-deps.sh does)\n",
		strerror(errno));
	free(args);
	return 1;
}
