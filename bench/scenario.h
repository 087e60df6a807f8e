/* SPDX-License-Identifier: MIT */
/*
 * scenario.h - `ctrbench scenario list|NAME [--quick] ...`: the seed threads'
 * experiments, each printing the thread's table from this machine's runs.
 */
#ifndef BENCH_SCENARIO_H
#define BENCH_SCENARIO_H

/* argv[0] is "scenario"; returns the exit status (bad input dies with 2). */
int bench_cmd_scenario(int argc, char **argv);

/* scenario NAME --project TOPOLOGY [--calibration FILE] [--ops N]: bench/scenario_project.c */
int bench_scenario_project(int argc, char **argv);

#endif /* BENCH_SCENARIO_H */
