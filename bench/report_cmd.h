/* SPDX-License-Identifier: MIT */
/*
 * report_cmd.h - `ctrbench report RESULTS.jsonl... --out DIR [--format html|markdown]
 * [--baseline ALGO]`: an HTML or Markdown report from result files (docs/reports.md).
 */
#ifndef BENCH_REPORT_CMD_H
#define BENCH_REPORT_CMD_H

/*
 * argv[0] is the command name ("report").  The report is scripts/report (Python and gnuplot);
 * this execs python3 on it with argv[1..], so the script's exit status is the command's: 0, 2
 * for bad input, 1 when the report cannot be written.  Where python3 or the script cannot be
 * found it prints one line and returns 1 (the installation is at fault, not the input).
 */
int bench_cmd_report(int argc, char **argv);

#endif /* BENCH_REPORT_CMD_H */
