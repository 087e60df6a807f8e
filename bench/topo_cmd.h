/* SPDX-License-Identifier: MIT */
/*
 * topo_cmd.h - `ctrbench topo`: print a topology (this machine, a hwloc
 * synthetic description or an lstopo XML file) and, optionally, where a
 * placement policy puts N threads on it.
 */
#ifndef BENCH_TOPO_CMD_H
#define BENCH_TOPO_CMD_H

/*
 * ctrbench topo [--topology SPEC] [--placement P --threads N] [--format table|json]
 * argv[0] is "topo" (main passes argc - 1, argv + 1 as for run).  Returns
 * the exit status: 0, or 1 if this machine's topology cannot be read; bad
 * input prints one line on stderr naming the bad value and exits 2.
 * --threads without --placement places them compact (run's default).
 */
int bench_cmd_topo(int argc, char **argv);

#endif /* BENCH_TOPO_CMD_H */
