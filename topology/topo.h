/* SPDX-License-Identifier: MIT */
/*
 * topo.h - thread placement.  For now a stub: thread i runs on the i-th CPU
 * of the process's affinity mask, modulo their number.  hwloc discovery and
 * placement policies replace it (issue 5) behind the same calls.
 */
#ifndef TOPO_H
#define TOPO_H

/* CPUs this process may run on (its affinity mask), >= 1. */
int topo_nr_cpus(void);

/* Pin the calling thread for worker index i; returns the CPU or -errno. */
int topo_pin_self(int i);

/* The CPU the calling thread is on now, -1 if unknown. */
int topo_current_cpu(void);

#endif /* TOPO_H */
