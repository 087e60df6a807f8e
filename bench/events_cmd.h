/* SPDX-License-Identifier: MIT */
/*
 * events_cmd.h - `ctrbench events [--events LIST] [--format table|json]`:
 * what this machine can count, and why not the rest.
 */
#ifndef BENCH_EVENTS_CMD_H
#define BENCH_EVENTS_CMD_H

/*
 * argv[0] is the command name ("events").  Opens every generic event and
 * the bounce preset (or LIST) on the calling thread, does a little work,
 * and prints per event: name, ok or n/a, source, reason.  Calls pmu_init
 * itself.  Bad input: one line on stderr naming the bad value, exit(2).
 * Returns 0.
 */
int bench_cmd_events(int argc, char **argv);

#endif /* BENCH_EVENTS_CMD_H */
