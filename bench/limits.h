/* SPDX-License-Identifier: MIT */
/*
 * limits.h - ctrbench limits: the physical limits of this machine (a bare
 * loop, a plain add, lock xadd, a 2-thread bounce, a walk through a
 * precomputed ancestor array, a count_stat-style read), measured beside the
 * harness's own figures for the algorithms they bound, each row a ratio
 * measured in one run.
 */
#ifndef BENCH_LIMITS_H
#define BENCH_LIMITS_H

int bench_cmd_limits(int argc, char **argv);

#endif /* BENCH_LIMITS_H */
