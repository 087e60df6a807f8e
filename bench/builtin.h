/* SPDX-License-Identifier: MIT */
/*
 * builtin.h - the ctrbench commands, one file each (bench/cmd-NAME.c: its
 * option table, --help text with every default, and the parsing, which then
 * calls the engine), dispatched by main.c's table, from which ctrbench
 * --help is written.  Every command takes argv from its own name on
 * (argv[0] is "run", "sweep", ...) and returns the exit status; bad input
 * dies (die(), cli.h) with one line and status 2; --help prints the
 * command's flags, each default and one example, and exits 0.
 *
 * The engine they share: run.c (one run), loops.c (timed loops), setup.c
 * (machine, threads, repetitions), reps.c (summaries), exec.c (the one
 * executor: each group of configurations measured in a child process of
 * its own), sweep.c (a sweep's cross product checked and handed to the
 * executor, each result appended as it is measured), schema.c/record.c/
 * output.c/results.c (the field table, writing and reading result lines),
 * stats.c (the statistics), cli.c (die, parsing helpers shared by every
 * command: the bottom layer, calling nothing above it).  A command's own
 * parts, where it has several, are in bench/NAME/ (bench/recommend/).
 */
#ifndef BENCH_BUILTIN_H
#define BENCH_BUILTIN_H

/*
 * ctrbench project (cmd-project.c): the coherence projection (docs/projection.md).  0, or 1 if
 * --validate's known answers did not come out.
 */
int bench_cmd_project(int argc, char **argv);

/*
 * ctrbench slurm FILE --out DIR (cmd-slurm.c): a plan as an sbatch job array, one shard a
 * task (docs/fleet.md); --submit runs it and follows it.  0, or 1 if a shard ended short.
 */
int bench_cmd_slurm(int argc, char **argv);

/* list, run: cmd-run.c.  run's exit status: 0, or 1 if a verification failed or it was interrupted. */
int bench_cmd_list(int argc, char **argv);
int bench_cmd_run(int argc, char **argv);

/*
 * ctrbench topo [--topology SPEC] [--placement P --threads N] [--format table|json]: a
 * topology (this machine, a hwloc synthetic description or an lstopo XML file) and where a
 * placement puts N threads on it.  0, or 1 if this machine's topology cannot be read.
 * --threads without --placement places them compact (run's default).
 */
int bench_cmd_topo(int argc, char **argv);

/*
 * ctrbench events [--events LIST] [--format table|json]: opens every generic event and the
 * bounce preset (or LIST) on the calling thread, does a little work, and prints per event:
 * name, ok or n/a, source, reason.  Calls pmu_init itself.  Returns 0.
 */
int bench_cmd_events(int argc, char **argv);

/*
 * ctrbench compare A.jsonl B.jsonl: the change per configuration between two result files and
 * whether it is outside noise (docs/methodology.md).  0, or 1 with --fail-on when a
 * configuration is slower (or changed).
 */
int bench_cmd_compare(int argc, char **argv);

/* ctrbench scenario list|NAME: a seed thread's experiment and its table from this machine. */
int bench_cmd_scenario(int argc, char **argv);

/* ctrbench sweep: 0, 1 (a configuration failed or the sweep was interrupted). */
int bench_cmd_sweep(int argc, char **argv);

/* ctrbench recommend: 0, 1 (its own quick sweep failed). */
int bench_cmd_recommend(int argc, char **argv);

/*
 * ctrbench report: execs python3 on scripts/report with argv[1..], so the script's exit status
 * is the command's: 0, 2 for bad input, 1 when the report cannot be written.  Where python3 or
 * the script cannot be found it prints one line and returns 1 (the installation is at fault).
 */
int bench_cmd_report(int argc, char **argv);

/* ctrbench schema [--format json|table]: the field table (schema.h). */
int bench_cmd_schema(int argc, char **argv);

/*
 * ctrbench c2c [--cpus LIST|all] [--pairs all|sample:N|per-class:N]
 *              [--home first-touch|node:K|each] [--op cas|load-store|fetch-add]
 *              [--reps K] [--samples S] [--iters I] [--events LIST|bounce|none]
 *              [--topology SPEC] [--dry-run] [--format table|json|csv]: the cost of moving one
 * cache line between two CPUs, per pair and distance class (cmd-c2c.c, docs/c2c.md).  0, or 1
 * when the machine refused (binding, memory placement) or a signal stopped it (what was
 * measured is printed).
 */
int bench_cmd_c2c(int argc, char **argv);

/*
 * ctrbench limits [--rounds K] [--duration-ms MS] [--format table|json] (cmd-limits.c): each
 * harness figure beside the physical limit that bounds it, as ratios measured in one run.
 * Returns 0.
 */
int bench_cmd_limits(int argc, char **argv);

#endif /* BENCH_BUILTIN_H */
