/* SPDX-License-Identifier: MIT */
/*
 * env.h - the environment a result was measured in: CPU model and
 * microcode, kernel, SMT, frequency governor and boost, NUMA nodes,
 * perf_event_paranoid, hypervisor, online CPUs, compiler and flags,
 * ctrbench commit, date and the user's note.
 */
#ifndef BENCH_ENV_H
#define BENCH_ENV_H

#include <stdio.h>
#include <jansson.h>

/*
 * A new JSON object (the caller owns the reference), keys in this order:
 *   cpu_model (string), microcode (string), kernel (uname release),
 *   kernel_build (uname version), arch (uname machine),
 *   smt_active (bool), smt_control (string: on, off, forceoff, notsupported...),
 *   governor (cpu0's scaling_governor), boost (bool: cpufreq/boost, or the
 *   inverse of intel_pstate/no_turbo), numa_nodes (int),
 *   perf_event_paranoid (int), hypervisor (bool: the cpuinfo flag),
 *   cpus_online (int), cpus_online_list (string, "0-1"),
 *   compiler (string, __VERSION__), cflags (CTRBENCH_CFLAGS or "unknown"),
 *   commit (CTRBENCH_COMMIT or "unknown"),
 *   date (UTC, ISO 8601: 2026-11-30T04:31:00Z), note (string or null).
 * Whatever cannot be read here is null, never guessed.  NULL only when
 * out of memory.
 *
 * CTRBENCH_CFLAGS and CTRBENCH_COMMIT may be given as string literals
 * (-DCTRBENCH_COMMIT='"abc123"') or as bare tokens (-DCTRBENCH_COMMIT=abc123).
 */
json_t *bench_env_json(const char *note);

/*
 * Prints env as comment lines "# key: value", one per key in the object's
 * order: strings as they are (newlines folded to spaces), null as "n/a",
 * anything else as compact JSON.  For the table format.
 */
void bench_env_print(FILE *f, const json_t *env);

/* The release of this ctrbench (ctrbench --version). */
#define CTRBENCH_VERSION "0.1.0"

/* The commit it was built from (CTRBENCH_COMMIT), "unknown" if not known. */
const char *bench_env_commit(void);

#endif /* BENCH_ENV_H */
