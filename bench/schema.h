/* SPDX-License-Identifier: MIT */
/*
 * schema.h - every field of a result line, once.
 *
 * BENCH_FIELDS is the one list of what a result line (`run --format json`,
 * `sweep --out`, a scenario's raw file) holds.  Everything that reads or
 * writes results takes its field list from here: the JSON writer (order,
 * which fields, where each value comes from), the CSV writer (columns),
 * `sweep --resume` (the key of a configuration), `compare` (which lines
 * are the same configuration), `recommend` (what makes a variant), the
 * summaries of repetitions (median, worst, or one rep's), and
 * scripts/report (through `ctrbench schema`, which prints this table as JSON).
 *
 * One entry: X(ID, PATH, TYPE, IDENT, SUM, SRC, WHEN, CSV, DEFAULT, DOC)
 *   ID      C name: BF_<ID> is its index
 *   PATH    JSON path, dotted for a member of an object ("update_ns.p50")
 *   TYPE    BT_STR, BT_INT, BT_NUM, BT_BOOL, BT_OBJ, BT_ARR (any may be null where WHEN says)
 *   IDENT   what the field says about identity:
 *             BI_KEY   a configuration axis (algo, workload, shape, threads, slots, placement, readers)
 *             BI_KNOB  a setting of the configuration (options, work_ns, charge_burst, ...)
 *             BI_RUN   how it was measured (duration, reps, note): resume matches it, compare not
 *             BI_BUILD the build (env.commit, env.cflags): resume matches it, compare not
 *             BI_NONE  a measured figure or a detail
 *           compare matches lines on KEY and KNOB; sweep --resume on all four;
 *           recommend makes one variant per algo and KNOB values.
 *   SUM     how K repetitions summarise it: BS_SAME (a setting: equal in every rep),
 *           BS_MEDIAN (median, with an interval in "stats"), BS_WORST (the largest of
 *           the K: a bound must hold in every rep), BS_REP (taken from the rep
 *           details_from_rep names), BS_ALL (computed over all reps)
 *   SRC     where the writer takes the value: R(member) of struct bench_result,
 *           C(member) of struct bench_config, FN (bench_field_value() in record.c
 *           computes it), SUB (written as part of the object at its parent path)
 *   WHEN    BW_ALL, BW_READERS (null unless the readers workload), BW_CHARGE (null
 *           unless charge or store), BW_NOREADERS (null with readers: their CPU time is
 *           mixed in)
 *   CSV     1: a column of `--format csv`, named PATH, in this order
 *   DEFAULT the value as JSON text that a line which lacks the field is read as
 *           (and a sweep's expected key assumes for a setting it does not pass);
 *           NULL: no default (a line must have it)
 *   DOC     one line for `ctrbench schema` and docs/harness.md
 *
 * Adding a field: add its X() line where it belongs in the line's order; if
 * SRC is R() or C(), that is all for a number or a string member; if FN,
 * add its case to bench_field_value() in record.c.  If it is a setting
 * (BI_KNOB) that `sweep` does not pass to its runs, give it DEFAULT (run's
 * default) so --resume keys still match.  Bump BENCH_SCHEMA_VERSION when a
 * field changes meaning or is removed (readers refuse lines of other
 * versions); adding a field needs no bump unless old lines would be misread.
 */
#ifndef BENCH_SCHEMA_H
#define BENCH_SCHEMA_H

#include <stddef.h>

/* "schema" of every result line; readers refuse any other. */
#define BENCH_SCHEMA_VERSION 1

#define BENCH_FIELDS(X) \
	X(SCHEMA, "schema", BT_INT, BI_NONE, BS_SAME, FN, BW_ALL, 1, NULL, "version of this table the line follows (BENCH_SCHEMA_VERSION)") \
	X(ALGO, "algo", BT_STR, BI_KEY, BS_SAME, FN, BW_ALL, 1, NULL, "algorithm (ctrbench list)") \
	X(BASELINE, "baseline", BT_BOOL, BI_NONE, BS_SAME, FN, BW_ALL, 1, "false", "a harness floor, not a counter") \
	X(WORKLOAD, "workload", BT_STR, BI_KEY, BS_SAME, FN, BW_ALL, 1, NULL, "update, charge, readers or store") \
	X(SHAPE, "shape", BT_STR, BI_KEY, BS_SAME, C(shape.spec), BW_ALL, 1, NULL, "tree shape as typed (chain:D, tree:AxB...)") \
	X(NODES, "nodes", BT_INT, BI_NONE, BS_SAME, C(shape.nr_nodes), BW_ALL, 1, NULL, "nodes of the shape") \
	X(DEPTH, "depth", BT_INT, BI_NONE, BS_SAME, C(shape.depth), BW_ALL, 1, NULL, "levels of the shape, root included") \
	X(THREADS, "threads", BT_INT, BI_KEY, BS_SAME, C(threads), BW_ALL, 1, NULL, "updater threads") \
	X(SLOTS, "slots", BT_INT, BI_KEY, BS_SAME, C(slots), BW_ALL, 1, "0", "--slots: per-CPU slots the algorithm has (ctr_params.nr_cpus); updaters own the first; 0 in lines from before it, when slots were threads") \
	X(PLACEMENT, "placement", BT_STR, BI_KEY, BS_SAME, C(placement), BW_ALL, 1, "\"compact\"", "--placement as given") \
	X(READERS, "readers", BT_INT, BI_KEY, BS_SAME, C(readers), BW_ALL, 1, "0", "reader threads (0 but in the readers workload)") \
	X(OPTIONS, "options", BT_STR, BI_KNOB, BS_SAME, C(options), BW_ALL, 1, "null", "--options of the algorithm, null if none") \
	X(FLUSH_PERIOD_MS, "flush_period_ms", BT_INT, BI_KNOB, BS_SAME, C(flush_period_ms), BW_ALL, 1, "0", "--flush-period-ms, 0: the algorithm's default") \
	X(WORK_NS, "work_ns", BT_INT, BI_KNOB, BS_SAME, C(work_ns), BW_ALL, 1, "0", "--work-ns: private work after each operation") \
	X(WORK_ITERS, "work_iters", BT_INT, BI_KNOB, BS_SAME, C(work_iters), BW_ALL, 1, "0", "--work-iters: dependent adds per 1024 operations of the update workload (a slowdown of any size)") \
	X(CHARGE_BURST, "charge_burst", BT_INT, BI_KNOB, BS_SAME, C(charge_burst), BW_ALL, 1, "0", "--charge-burst: 0 steady window, B bursts of B, -1 sized from the bound (charge_burst_used)") \
	X(LIMIT_HEADROOM, "limit_headroom", BT_NUM, BI_KNOB, BS_SAME, C(limit_headroom), BW_CHARGE, 1, "0.75", "--limit-headroom: limits are this times the steady holdings (charge; lines from before it ran at 0.75)") \
	X(LIMIT_LEVELS, "limit_levels", BT_STR, BI_KNOB, BS_SAME, C(limit_levels), BW_CHARGE, 1, "\"all\"", "--limit-levels: all, leaf or root carry a limit (charge; lines from before it: all)") \
	X(BATCH, "batch", BT_INT, BI_KNOB, BS_SAME, FN, BW_ALL, 0, "0", "ctr_params.batch: 0 the algorithm's default") \
	X(READ_NODE, "read_node", BT_STR, BI_KNOB, BS_SAME, FN, BW_READERS, 1, "null", "--read-node: random, leaf, own or a node index (readers)") \
	X(READ_INTERVAL_US, "read_interval_us", BT_INT, BI_KNOB, BS_SAME, C(read_interval_us), BW_ALL, 1, "0", "--read-interval-us: pause between reads") \
	X(SHARED_MEM, "shared_mem", BT_STR, BI_KNOB, BS_SAME, FN, BW_ALL, 1, "\"local\"", "--shared-mem: local, interleave or node:K") \
	X(SAMPLE_EVERY, "timer.sample_every", BT_INT, BI_KNOB, BS_SAME, SUB, BW_ALL, 0, "64", "--sample 1/N: N") \
	X(DURATION_MS, "duration_ms", BT_INT, BI_RUN, BS_SAME, C(duration_ms), BW_ALL, 1, NULL, "measured window per rep") \
	X(WARMUP_MS, "warmup_ms", BT_INT, BI_RUN, BS_SAME, C(warmup_ms), BW_ALL, 1, NULL, "untimed run before it") \
	X(REPS_REQUESTED, "reps_requested", BT_INT, BI_RUN, BS_SAME, FN, BW_ALL, 1, "1", "--reps asked for") \
	X(EVENTS_REQUESTED, "events_requested", BT_STR, BI_RUN, BS_SAME, C(events_spec), BW_ALL, 0, "null", "--events as given, null if none") \
	X(NOTE, "note", BT_STR, BI_RUN, BS_SAME, C(note), BW_ALL, 1, "null", "--note, null if none") \
	X(CPUS, "cpus", BT_INT, BI_NONE, BS_SAME, FN, BW_ALL, 1, NULL, "CPUs the run could use") \
	X(ELAPSED_S, "elapsed_s", BT_NUM, BI_NONE, BS_REP, R(seconds), BW_ALL, 0, NULL, "the window as the main thread timed it") \
	X(OPS, "ops", BT_INT, BI_NONE, BS_MEDIAN, R(ops), BW_ALL, 1, NULL, "operations in the window, all updaters") \
	X(OPS_PER_SEC, "ops_per_sec", BT_NUM, BI_NONE, BS_MEDIAN, R(ops_per_sec), BW_ALL, 1, NULL, "throughput: sum of updaters' ops over their windows") \
	X(NS_PER_OP, "ns_per_op", BT_NUM, BI_NONE, BS_MEDIAN, R(ns_per_op), BW_ALL, 1, NULL, "updaters x 1 s / ops_per_sec") \
	X(CPU_NS_PER_OP, "cpu_ns_per_op", BT_NUM, BI_NONE, BS_MEDIAN, R(cpu_ns_per_op), BW_NOREADERS, 1, NULL, "task-clock / ops (null with readers)") \
	X(UPDATE_NS, "update_ns", BT_OBJ, BI_NONE, BS_MEDIAN, FN, BW_ALL, 0, NULL, "sampled update (charge attempt) latency, ns, timer overhead subtracted") \
	X(UPDATE_NS_MEAN, "update_ns.mean", BT_NUM, BI_NONE, BS_MEDIAN, R(lat.mean), BW_ALL, 1, NULL, "mean") \
	X(UPDATE_NS_P50, "update_ns.p50", BT_NUM, BI_NONE, BS_MEDIAN, R(lat.p50), BW_ALL, 1, NULL, "median") \
	X(UPDATE_NS_P90, "update_ns.p90", BT_NUM, BI_NONE, BS_MEDIAN, R(lat.p90), BW_ALL, 1, NULL, "90th percentile") \
	X(UPDATE_NS_P95, "update_ns.p95", BT_NUM, BI_NONE, BS_MEDIAN, R(lat.p95), BW_ALL, 0, NULL, "95th percentile") \
	X(UPDATE_NS_P99, "update_ns.p99", BT_NUM, BI_NONE, BS_MEDIAN, R(lat.p99), BW_ALL, 1, NULL, "99th percentile") \
	X(UPDATE_NS_P999, "update_ns.p999", BT_NUM, BI_NONE, BS_MEDIAN, R(lat.p999), BW_ALL, 0, NULL, "99.9th percentile") \
	X(UPDATE_NS_MAX, "update_ns.max", BT_NUM, BI_NONE, BS_MEDIAN, R(lat.max), BW_ALL, 1, NULL, "largest sample") \
	X(UPDATE_NS_SAMPLES, "update_ns.samples", BT_INT, BI_NONE, BS_REP, R(lat.samples), BW_ALL, 1, NULL, "timed operations") \
	X(UPDATE_NS_OVER_1MS, "update_ns.over_1ms", BT_NUM, BI_NONE, BS_REP, R(lat.over_1ms), BW_ALL, 0, NULL, "share of samples certainly above 1 ms") \
	X(UPDATE_NS_OVER_1S, "update_ns.over_1s", BT_NUM, BI_NONE, BS_REP, R(lat.over_1s), BW_ALL, 0, NULL, "share above 1 s") \
	X(UPDATE_NS_BATCH, "update_ns.batch", BT_INT, BI_NONE, BS_REP, R(lat.batch), BW_ALL, 0, "1", "ops per latency sample (update workload: batched where one op is below 16 timer steps; 1: timed alone)") \
	X(UPDATE_NS_RESOLUTION_NS, "update_ns.resolution_ns", BT_NUM, BI_NONE, BS_REP, R(lat.resolution_ns), BW_ALL, 0, "null", "per-op resolution: the timer's step over the smallest batch; a figure below it is < it") \
	X(SAMPLED_OP, "sampled_op", BT_STR, BI_NONE, BS_SAME, FN, BW_ALL, 0, NULL, "what update_ns times: add, try_charge or store") \
	X(VERIFY, "verify", BT_STR, BI_NONE, BS_WORST, FN, BW_ALL, 1, NULL, "ok, mismatch or n/a: the worst of the reps") \
	X(VERIFY_DETAIL, "verify_detail", BT_OBJ, BI_NONE, BS_WORST, FN, BW_ALL, 0, "null", "first mismatching node {node, got, want}, null if none") \
	X(READ_ERROR_BOUND, "read_error_bound", BT_INT, BI_NONE, BS_SAME, R(error_bound), BW_ALL, 1, NULL, "stated bound of ctr_read (-1: bounded by time only)") \
	X(READ_ERROR_AT_REST, "read_error_at_rest", BT_INT, BI_NONE, BS_WORST, R(read_error), BW_ALL, 1, NULL, "max |ctr_read - exact| over nodes at rest") \
	X(CHARGE_FAIL, "charge_fail", BT_INT, BI_NONE, BS_REP, R(charge_fail), BW_CHARGE, 1, NULL, "refused charges in the window") \
	X(CHARGE_BURST_USED, "charge_burst_used", BT_INT, BI_NONE, BS_SAME, R(charge_burst), BW_CHARGE, 0, "null", "the burst the run used (0 steady window): --charge-burst bound sizes it per algorithm") \
	X(LIMIT_MAX_OVER, "limit_max_over", BT_INT, BI_NONE, BS_WORST, R(limit_max_over), BW_CHARGE, 1, NULL, "worst value - limit at rest (<= 0 within)") \
	X(ADMISSION, "admission", BT_OBJ, BI_NONE, BS_REP, FN, BW_CHARGE, 0, NULL, "charge: attempts, rejected, audited, audited_rejected, false_rejects (worst rep), overshoot_max (worst)") \
	X(READS, "reads", BT_INT, BI_NONE, BS_MEDIAN, R(reads), BW_READERS, 1, NULL, "reads in the window") \
	X(READS_PER_SEC, "reads_per_sec", BT_NUM, BI_NONE, BS_MEDIAN, R(reads_per_sec), BW_READERS, 1, NULL, "reads / seconds") \
	X(READ_NS, "read_ns", BT_OBJ, BI_NONE, BS_MEDIAN, FN, BW_READERS, 0, NULL, "read latency, every read timed") \
	X(READ_NS_MEAN, "read_ns.mean", BT_NUM, BI_NONE, BS_MEDIAN, R(read_lat.mean), BW_READERS, 0, NULL, "mean") \
	X(READ_NS_P50, "read_ns.p50", BT_NUM, BI_NONE, BS_MEDIAN, R(read_lat.p50), BW_READERS, 1, NULL, "median") \
	X(READ_NS_P90, "read_ns.p90", BT_NUM, BI_NONE, BS_MEDIAN, R(read_lat.p90), BW_READERS, 0, NULL, "90th percentile") \
	X(READ_NS_P95, "read_ns.p95", BT_NUM, BI_NONE, BS_MEDIAN, R(read_lat.p95), BW_READERS, 0, NULL, "95th percentile") \
	X(READ_NS_P99, "read_ns.p99", BT_NUM, BI_NONE, BS_MEDIAN, R(read_lat.p99), BW_READERS, 1, NULL, "99th percentile") \
	X(READ_NS_P999, "read_ns.p999", BT_NUM, BI_NONE, BS_MEDIAN, R(read_lat.p999), BW_READERS, 0, NULL, "99.9th percentile") \
	X(READ_NS_MAX, "read_ns.max", BT_NUM, BI_NONE, BS_MEDIAN, R(read_lat.max), BW_READERS, 0, NULL, "largest") \
	X(READ_NS_SAMPLES, "read_ns.samples", BT_INT, BI_NONE, BS_REP, R(read_lat.samples), BW_READERS, 0, NULL, "timed reads") \
	X(READ_NS_OVER_1MS, "read_ns.over_1ms", BT_NUM, BI_NONE, BS_MEDIAN, R(read_lat.over_1ms), BW_READERS, 0, NULL, "share of reads certainly above 1 ms") \
	X(READ_NS_OVER_1S, "read_ns.over_1s", BT_NUM, BI_NONE, BS_MEDIAN, R(read_lat.over_1s), BW_READERS, 0, NULL, "share above 1 s") \
	X(READ_ERROR, "read_error", BT_OBJ, BI_NONE, BS_WORST, FN, BW_READERS, 0, NULL, "read errors under updates") \
	X(READ_ERROR_MAX_ABS, "read_error.max_abs", BT_INT, BI_NONE, BS_WORST, R(read_err_max), BW_READERS, 1, NULL, "worst distance of a read outside the exact window") \
	X(READ_ERROR_MEAN_ABS, "read_error.mean_abs", BT_NUM, BI_NONE, BS_REP, R(read_err_mean), BW_READERS, 0, NULL, "mean of those distances") \
	X(FLUSH, "flush", BT_OBJ, BI_NONE, BS_REP, FN, BW_ALL, 0, "null", "flush and flush-lock figures (docs/harness.md), null if the algorithm has none") \
	X(SUBSYS, "subsys", BT_ARR, BI_NONE, BS_REP, FN, BW_ALL, 0, "null", "scenario subsys-flush-locks: per subsystem {name, reads, flushes, lock_acquisitions, lock_contended, lock_wait_ns, lock_hold_ns, read_p50_ns, read_p99_ns} (bench/scenario/subsys_flush_locks.c); null in other lines") \
	X(EVENTS, "events", BT_OBJ, BI_NONE, BS_REP, FN, BW_ALL, 0, NULL, "task_clock_ns and each --events total") \
	X(EVENTS_SOURCE, "events_source", BT_STR, BI_NONE, BS_REP, FN, BW_ALL, 0, NULL, "perf or thread_cputime") \
	X(EVENTS_PER_OP, "events_per_op", BT_OBJ, BI_NONE, BS_REP, FN, BW_ALL, 0, NULL, "each --events per op (null with readers)") \
	X(EVENTS_UNAVAILABLE, "events_unavailable", BT_OBJ, BI_NONE, BS_REP, FN, BW_ALL, 0, NULL, "why an event has no count") \
	X(PLACEMENT_WRAPPED, "placement_wrapped", BT_BOOL, BI_NONE, BS_SAME, C(wrapped), BW_ALL, 0, NULL, "more threads than PUs") \
	X(PAIRS, "pairs", BT_OBJ, BI_NONE, BS_SAME, FN, BW_ALL, 0, NULL, "pairs of threads per distance class") \
	X(BIND_FAILURES, "bind_failures", BT_INT, BI_NONE, BS_WORST, R(bind_failures), BW_ALL, 1, NULL, "threads that could not be bound") \
	X(FAIRNESS, "fairness", BT_OBJ, BI_NONE, BS_REP, FN, BW_ALL, 0, NULL, "ops_min, ops_max, ops_cv of the updaters") \
	X(TIMER, "timer", BT_OBJ, BI_NONE, BS_SAME, FN, BW_ALL, 0, NULL, "source, ticks_per_ns, invariant, overhead_ns, overhead_raw_ns, resolution_ns, sample_every") \
	X(CPU_REQUESTED, "cpu_requested", BT_ARR, BI_NONE, BS_REP, FN, BW_ALL, 0, NULL, "PU each thread pinned to (updaters, then readers; -errno)") \
	X(CPU_OBSERVED, "cpu_observed", BT_ARR, BI_NONE, BS_REP, FN, BW_ALL, 0, NULL, "PU each thread was on at the end") \
	X(TASK_CLOCK_NS, "events.task_clock_ns", BT_INT, BI_NONE, BS_REP, SUB, BW_ALL, 1, NULL, "task-clock summed over workers") \
	X(REPS_DONE, "reps_done", BT_INT, BI_NONE, BS_ALL, FN, BW_ALL, 1, "1", "repetitions done (fewer than asked: interrupted)") \
	X(DETAILS_FROM_REP, "details_from_rep", BT_INT, BI_NONE, BS_ALL, FN, BW_ALL, 0, "null", "the rep BS_REP figures come from (null with one rep)") \
	X(STATS, "stats", BT_OBJ, BI_NONE, BS_ALL, FN, BW_ALL, 0, "null", "per BS_MEDIAN field: median, lo, hi, level, cv, noisy (null with one rep)") \
	X(STATS_OPS_LO, "stats.ops_per_sec.lo", BT_NUM, BI_NONE, BS_ALL, SUB, BW_ALL, 1, "null", "ops_per_sec: low end of the median's interval") \
	X(STATS_OPS_HI, "stats.ops_per_sec.hi", BT_NUM, BI_NONE, BS_ALL, SUB, BW_ALL, 1, "null", "ops_per_sec: high end") \
	X(STATS_OPS_LEVEL, "stats.ops_per_sec.level", BT_NUM, BI_NONE, BS_ALL, SUB, BW_ALL, 1, "null", "ops_per_sec: the interval's coverage") \
	X(STATS_OPS_CV, "stats.ops_per_sec.cv", BT_NUM, BI_NONE, BS_ALL, SUB, BW_ALL, 1, "null", "ops_per_sec: coefficient of variation over the reps") \
	X(REPS, "reps", BT_ARR, BI_NONE, BS_ALL, FN, BW_ALL, 0, "null", "each rep's ops_per_sec, ns_per_op, cpu_ns_per_op, update_ns.p50/p99, verify (null with one rep)") \
	X(HOST, "host", BT_OBJ, BI_NONE, BS_ALL, FN, BW_ALL, 0, "null", "the host while the reps ran, from /proc (bench/noise.h); a member is null where it could not be read") \
	X(HOST_LOAD1_START, "host.load1_start", BT_NUM, BI_NONE, BS_ALL, R(host.load1_start), BW_ALL, 0, "null", "1-minute load average (/proc/loadavg) as the first rep started") \
	X(HOST_LOAD1_END, "host.load1_end", BT_NUM, BI_NONE, BS_ALL, R(host.load1_end), BW_ALL, 0, "null", "... as the last rep ended") \
	X(HOST_SECONDS, "host.seconds", BT_NUM, BI_NONE, BS_ALL, R(host.seconds), BW_ALL, 0, "null", "seconds the shares cover: each rep's threads from start to join, summed over the reps") \
	X(HOST_STEAL, "host.steal", BT_NUM, BI_NONE, BS_ALL, R(host.steal), BW_ALL, 0, "null", "share of all CPUs' time the hypervisor gave other guests (/proc/stat steal)") \
	X(HOST_IOWAIT, "host.iowait", BT_NUM, BI_NONE, BS_ALL, R(host.iowait), BW_ALL, 0, "null", "share of all CPUs' time idle waiting on I/O (/proc/stat iowait)") \
	X(HOST_OTHERS, "host.others", BT_NUM, BI_NONE, BS_ALL, R(host.others), BW_ALL, 0, "null", "share of all CPUs' time other processes used: busy jiffies less this process's utime + stime") \
	X(HOST_NOISE_CAUSE, "host.noise_cause", BT_STR, BI_NONE, BS_ALL, FN, BW_ALL, 0, "null", "likely cause of a noisy ops_per_sec (the table's NOISY, bench_noise_cause); null if not noisy") \
	X(ENV, "env", BT_OBJ, BI_NONE, BS_SAME, FN, BW_ALL, 0, NULL, "the machine and build (bench/env.h)") \
	X(ENV_MACHINE, "env.machine", BT_STR, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "the kind of machine: CPU model, packages x cores, L3s, NUMA nodes, topology digest (not the host: identical nodes are one machine); compare --by machine, the report's series") \
	X(ENV_HOSTNAME, "env.hostname", BT_STR, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "gethostname(): which node of a cluster measured the line") \
	X(ENV_CPU_MODEL, "env.cpu_model", BT_STR, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "/proc/cpuinfo model name") \
	X(ENV_CPU_VENDOR, "env.cpu_vendor", BT_STR, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "/proc/cpuinfo vendor_id (AuthenticAMD, GenuineIntel)") \
	X(ENV_CPU_FAMILY, "env.cpu_family", BT_INT, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "/proc/cpuinfo cpu family, decimal (25: AMD 19h)") \
	X(ENV_CPU_MODEL_NUMBER, "env.cpu_model_number", BT_INT, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "/proc/cpuinfo model, decimal") \
	X(ENV_CPU_STEPPING, "env.cpu_stepping", BT_INT, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "/proc/cpuinfo stepping") \
	X(ENV_MICROCODE, "env.microcode", BT_STR, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "/proc/cpuinfo microcode") \
	X(ENV_KERNEL, "env.kernel", BT_STR, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "uname release") \
	X(ENV_SMT_ACTIVE, "env.smt_active", BT_BOOL, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "/sys/devices/system/cpu/smt/active") \
	X(ENV_GOVERNOR, "env.governor", BT_STR, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "cpu0's cpufreq scaling_governor") \
	X(ENV_BOOST, "env.boost", BT_BOOL, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "cpufreq/boost, or not intel_pstate/no_turbo") \
	X(ENV_NUMA_NODES, "env.numa_nodes", BT_INT, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "NUMA nodes (the NPS mode's result: 2 sockets at NPS4 show 8)") \
	X(ENV_PACKAGES, "env.packages", BT_INT, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "sockets: distinct physical_package_id of the online CPUs") \
	X(ENV_CORES, "env.cores", BT_INT, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "cores: distinct (package, core_id) of the online CPUs") \
	X(ENV_L3S, "env.l3s", BT_INT, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "L3 caches (CCXs on EPYC): distinct cache/index3/id of the online CPUs") \
	X(ENV_TOPOLOGY_DIGEST, "env.topology_digest", BT_STR, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "FNV-1a of every online CPU's (number, package, core, L3, node): equal digests number and group CPUs alike") \
	X(ENV_TOPOLOGY, "env.topology", BT_STR, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "the topology the run planned on, as topo prints it (\"1 package, 1 NUMA node, ...\")") \
	X(ENV_COMMIT, "env.commit", BT_STR, BI_BUILD, BS_SAME, SUB, BW_ALL, 0, NULL, "ctrbench commit") \
	X(ENV_CFLAGS, "env.cflags", BT_STR, BI_BUILD, BS_SAME, SUB, BW_ALL, 0, NULL, "compiler flags") \
	X(SWEEP, "sweep", BT_OBJ, BI_NONE, BS_SAME, SUB, BW_ALL, 0, "null", "sweep lines: id (the configuration's in the plan, sweep --dry-run --format json), plan_file and plan (added by sweep)")

/*
 * The values a numeric field may take, X(ID, MIN, MAX) (MAX BR_ANY: no upper
 * bound): what run, sweep and scenario can write (their option ranges, a
 * count that cannot be negative, a share in [0, 1]).  Every reader refuses a
 * line with a value outside, or of another type than the table's, naming
 * file:line:field (bench_results_check_line; scripts/report reads the same
 * ranges from `ctrbench schema`).  A field not listed is checked for its
 * type only.  Kept apart from BENCH_FIELDS so each row there stays one line.
 */
#define BR_ANY 1e300
#define BENCH_FIELD_RANGES(X) \
	X(NODES, 1, 2147483647) X(DEPTH, 1, 2147483647) X(THREADS, 1, 4096) X(READERS, 0, 4096) \
	X(FLUSH_PERIOD_MS, 0, 3600000) X(WORK_NS, 0, 10000000) X(CHARGE_BURST, 0, 1048576) \
	X(BATCH, 0, BR_ANY) X(READ_INTERVAL_US, 0, 60000000) X(SAMPLE_EVERY, 1, 1024) \
	X(DURATION_MS, 1, 3600000) X(WARMUP_MS, 0, 3600000) X(REPS_REQUESTED, 1, 1000) \
	X(CPUS, 1, BR_ANY) X(ELAPSED_S, 0, BR_ANY) X(OPS, 0, BR_ANY) X(OPS_PER_SEC, 0, BR_ANY) \
	X(NS_PER_OP, 0, BR_ANY) X(CPU_NS_PER_OP, 0, BR_ANY) X(UPDATE_NS_SAMPLES, 0, BR_ANY) \
	X(UPDATE_NS_OVER_1MS, 0, 1) X(UPDATE_NS_OVER_1S, 0, 1) X(UPDATE_NS_BATCH, 1, BR_ANY) \
	X(READ_ERROR_BOUND, -1, BR_ANY) X(READ_ERROR_AT_REST, 0, BR_ANY) X(CHARGE_FAIL, 0, BR_ANY) \
	X(READS, 0, BR_ANY) X(READS_PER_SEC, 0, BR_ANY) X(READ_NS_SAMPLES, 0, BR_ANY) \
	X(READ_NS_OVER_1MS, 0, 1) X(READ_NS_OVER_1S, 0, 1) X(READ_ERROR_MAX_ABS, 0, BR_ANY) \
	X(READ_ERROR_MEAN_ABS, 0, BR_ANY) X(BIND_FAILURES, 0, 8192) X(TASK_CLOCK_NS, 0, BR_ANY) \
	X(REPS_DONE, 1, 1000) X(DETAILS_FROM_REP, 0, 1000) X(STATS_OPS_LEVEL, 0, 1) \
	X(STATS_OPS_CV, 0, BR_ANY) X(HOST_LOAD1_START, 0, BR_ANY) X(HOST_LOAD1_END, 0, BR_ANY) \
	X(HOST_SECONDS, 0, BR_ANY) X(HOST_STEAL, 0, 1) X(HOST_IOWAIT, 0, 1) X(HOST_OTHERS, 0, 1)

enum bench_field_id {
#define BF_ENUM_(id, ...) BF_##id,
	BENCH_FIELDS(BF_ENUM_)
#undef BF_ENUM_
	BF_NR
};

enum bench_ftype { BT_STR, BT_INT, BT_NUM, BT_BOOL, BT_OBJ, BT_ARR };
enum bench_fident { BI_NONE, BI_KEY, BI_KNOB, BI_RUN, BI_BUILD };
enum bench_fsum { BS_SAME, BS_MEDIAN, BS_WORST, BS_REP, BS_ALL };
enum bench_fsrc { BSRC_FN, BSRC_SUB, BSRC_RESULT, BSRC_CONFIG };
enum bench_fwhen { BW_ALL, BW_READERS, BW_CHARGE, BW_NOREADERS };
/* C type of an R() or C() member */
enum bench_fctype { BC_NONE, BC_DOUBLE, BC_U64, BC_I64, BC_INT, BC_UINT, BC_STR };

struct bench_field {
	const char *path;		/* JSON path, dotted */
	enum bench_ftype type;		/* JSON type (null allowed where when says) */
	enum bench_fident ident;	/* identity class */
	enum bench_fsum sum;		/* how reps summarise it */
	enum bench_fsrc src;		/* where the writer takes it */
	size_t off;			/* R()/C(): offset of the member */
	enum bench_fctype ctype;	/* R()/C(): its C type */
	enum bench_fwhen when;		/* when it is not null */
	int csv;			/* a CSV column */
	const char *def;		/* JSON text read for a line without it, or NULL */
	const char *doc;		/* one line */
};

extern const struct bench_field bench_fields[BF_NR];

/* BENCH_FIELD_RANGES by field: has 0 where the field has none. */
struct bench_field_range {
	int has;			/* the field is listed */
	double lo, hi;			/* its bounds, inclusive; hi BR_ANY: none */
};
extern const struct bench_field_range bench_field_ranges[BF_NR];

/* Index of the field at path, or -1. */
int bench_field_find(const char *path);

/* Names for `ctrbench schema` and error messages. */
const char *bench_ftype_name(enum bench_ftype t);
const char *bench_fident_name(enum bench_fident i);
const char *bench_fsum_name(enum bench_fsum s);
const char *bench_fwhen_name(enum bench_fwhen w);

/* Compare and recommend: the field is part of a configuration's identity (KEY or KNOB). */
static inline int bench_field_is_config(int f)
{
	return bench_fields[f].ident == BI_KEY || bench_fields[f].ident == BI_KNOB;
}

/* sweep --resume: any identity (KEY, KNOB, RUN, BUILD). */
static inline int bench_field_is_resume_key(int f)
{
	return bench_fields[f].ident != BI_NONE;
}

/*
 * A `ctrbench c2c --format json` line (kind "c2c") is not a result line: its
 * fields are this second table, X(PATH, TYPE, WHEN, NULLABLE, DOC).  "a[]."
 * is a member of each element of array a.  WHEN: BCW_ALL in every c2c line,
 * BCW_MEASURED only in a measured one (not in a --dry-run plan).  NULLABLE 1:
 * null where DOC says.  The c2c writer emits its top-level members in this
 * order and nothing else (bench/cmd-c2c.c); tests/cli_c2c.sh checks lines
 * against every row.  Its version is BENCH_SCHEMA_VERSION too.
 */
enum bench_c2c_when { BCW_ALL, BCW_MEASURED };

#define BENCH_C2C_FIELDS(X) \
	X("kind", BT_STR, BCW_ALL, 0, "\"c2c\"") \
	X("schema", BT_INT, BCW_ALL, 0, "BENCH_SCHEMA_VERSION") \
	X("op", BT_STR, BCW_ALL, 0, "cas, load-store or fetch-add") \
	X("figure", BT_STR, BCW_ALL, 0, "what one figure is (one-way ns of a CAS round trip / 2, ...)") \
	X("dry_run", BT_BOOL, BCW_ALL, 0, "true: a plan, nothing measured") \
	X("method", BT_OBJ, BCW_ALL, 0, "how the figures were made") \
	X("method.reps", BT_INT, BCW_ALL, 0, "--reps: passes over every pair") \
	X("method.reps_done", BT_INT, BCW_ALL, 0, "passes done (fewer: interrupted)") \
	X("method.samples", BT_INT, BCW_ALL, 0, "--samples per measurement, after one warm-up sample") \
	X("method.iters", BT_INT, BCW_ALL, 0, "--iters: round trips (fetch-add: adds) per sample") \
	X("method.pair_figure", BT_STR, BCW_ALL, 0, "how a pair's figure is made") \
	X("method.class_figure", BT_STR, BCW_ALL, 0, "how a class's figures are made") \
	X("topology", BT_OBJ, BCW_ALL, 0, "the topology planned on") \
	X("topology.spec", BT_STR, BCW_ALL, 0, "\"this machine\" or --topology") \
	X("topology.synthetic", BT_BOOL, BCW_ALL, 0, "not this machine (plans only)") \
	X("cpus", BT_ARR, BCW_ALL, 0, "the distinct CPUs paired, in topology order") \
	X("cpu_info", BT_ARR, BCW_ALL, 0, "where each CPU sits") \
	X("cpu_info[].cpu", BT_INT, BCW_ALL, 0, "OS index") \
	X("cpu_info[].package", BT_INT, BCW_ALL, 0, "package (logical index, -1 none)") \
	X("cpu_info[].numa", BT_INT, BCW_ALL, 0, "NUMA node (logical index, -1 none)") \
	X("cpu_info[].l3", BT_INT, BCW_ALL, 0, "L3 (logical index, -1 none)") \
	X("cpu_info[].core", BT_INT, BCW_ALL, 0, "core (logical index)") \
	X("cpu_info[].smt", BT_INT, BCW_ALL, 0, "rank among its core's PUs") \
	X("plan", BT_OBJ, BCW_ALL, 0, "what --pairs and --home planned") \
	X("plan.pairs_mode", BT_STR, BCW_ALL, 0, "all, sample:N or per-class:N") \
	X("plan.pairs", BT_INT, BCW_ALL, 0, "pairs planned") \
	X("plan.pairs_per_class", BT_OBJ, BCW_ALL, 0, "class -> pairs planned") \
	X("plan.pairs_available", BT_OBJ, BCW_ALL, 0, "class -> pairs among the CPUs") \
	X("plan.cpus_duplicate", BT_ARR, BCW_ALL, 0, "CPUs --cpus named more than once (measured once)") \
	X("plan.homes", BT_INT, BCW_ALL, 0, "home nodes each pair is measured with") \
	X("plan.measurements", BT_INT, BCW_ALL, 0, "pairs x homes x reps") \
	X("plan.estimate_s", BT_NUM, BCW_ALL, 0, "estimated seconds, at an assumed cost per transfer") \
	X("pairs", BT_ARR, BCW_ALL, 0, "the pairs (a plan's without figures)") \
	X("pairs[].cpu_a", BT_INT, BCW_ALL, 0, "CPU a (ping), before b in topology order") \
	X("pairs[].cpu_b", BT_INT, BCW_ALL, 0, "CPU b (pong)") \
	X("pairs[].class", BT_STR, BCW_ALL, 0, "distance class: smt, ccx, numa, package, remote") \
	X("pairs[].home_node", BT_INT, BCW_MEASURED, 1, "node the line was on, null unknown") \
	X("pairs[].median_ns", BT_NUM, BCW_MEASURED, 0, "median over reps of the mean over samples") \
	X("pairs[].lo_ns", BT_NUM, BCW_MEASURED, 0, "low end of the median's interval") \
	X("pairs[].hi_ns", BT_NUM, BCW_MEASURED, 0, "high end") \
	X("pairs[].level", BT_NUM, BCW_MEASURED, 0, "the interval's coverage") \
	X("pairs[].cv", BT_NUM, BCW_MEASURED, 0, "coefficient of variation over the reps") \
	X("pairs[].reps_ns", BT_ARR, BCW_MEASURED, 0, "each rep's figure, in order") \
	X("pairs[].sample_p50_ns", BT_NUM, BCW_MEASURED, 0, "median over reps of the samples' median") \
	X("interrupted", BT_BOOL, BCW_MEASURED, 0, "a signal stopped it: the figures are what was measured") \
	X("elapsed_s", BT_NUM, BCW_MEASURED, 0, "time measuring") \
	X("numa_single_node", BT_BOOL, BCW_MEASURED, 0, "the machine has one NUMA node") \
	X("events", BT_OBJ, BCW_MEASURED, 0, "fill-source events") \
	X("events.counted", BT_BOOL, BCW_MEASURED, 0, "counted (classes carry events_per_transfer)") \
	X("events.reason", BT_STR, BCW_MEASURED, 1, "why not, null when counted") \
	X("homes", BT_ARR, BCW_MEASURED, 0, "the line's home per --home") \
	X("homes[].how", BT_STR, BCW_MEASURED, 0, "first-touch or node") \
	X("homes[].asked", BT_INT, BCW_MEASURED, 1, "node:K's K, null for first-touch") \
	X("homes[].node", BT_INT, BCW_MEASURED, 1, "where move_pages says the line is, null unknown") \
	X("homes[].checked_with", BT_STR, BCW_MEASURED, 0, "move_pages") \
	X("homes[].why_unknown", BT_STR, BCW_MEASURED, 1, "why node is null, else null") \
	X("classes", BT_ARR, BCW_MEASURED, 0, "one row per class and home measured") \
	X("classes[].class", BT_STR, BCW_MEASURED, 0, "distance class") \
	X("classes[].pairs", BT_INT, BCW_MEASURED, 0, "pairs measured") \
	X("classes[].median_ns", BT_NUM, BCW_MEASURED, 0, "median of the pairs' figures") \
	X("classes[].p10_ns", BT_NUM, BCW_MEASURED, 0, "10th percentile") \
	X("classes[].p90_ns", BT_NUM, BCW_MEASURED, 0, "90th percentile") \
	X("classes[].home_node", BT_INT, BCW_MEASURED, 1, "the line's node, null unknown") \
	X("matrices", BT_ARR, BCW_MEASURED, 0, "one CPU x CPU matrix per home") \
	X("matrices[].home_node", BT_INT, BCW_MEASURED, 1, "the line's node, null unknown") \
	X("matrices[].cpus", BT_ARR, BCW_MEASURED, 0, "rows and columns: cpus") \
	X("matrices[].ns", BT_ARR, BCW_MEASURED, 0, "pair medians, null on the diagonal and where not measured") \
	X("calibration", BT_OBJ, BCW_MEASURED, 0, "the class table for a coherence projection") \
	X("calibration.kind", BT_STR, BCW_MEASURED, 0, "\"c2c-calibration\"") \
	X("calibration.schema", BT_INT, BCW_MEASURED, 0, "BENCH_SCHEMA_VERSION") \
	X("calibration.op", BT_STR, BCW_MEASURED, 0, "the op measured") \
	X("calibration.figure", BT_STR, BCW_MEASURED, 0, "what the figures are") \
	X("calibration.one_way_ns", BT_OBJ, BCW_MEASURED, 0, "class -> median over its pairs, all homes pooled") \
	X("calibration.pairs", BT_OBJ, BCW_MEASURED, 0, "class -> pairs behind it") \
	X("calibration.home_nodes", BT_ARR, BCW_MEASURED, 0, "the homes pooled") \
	X("calibration.machine", BT_OBJ, BCW_MEASURED, 0, "cpu_model, kernel, hypervisor, topology... of env") \
	X("env", BT_OBJ, BCW_ALL, 0, "the machine and build (bench/env.h)")

struct bench_c2c_field {
	const char *path;		/* JSON path: dotted, "a[]." for each element of a */
	enum bench_ftype type;
	enum bench_c2c_when when;	/* every line, or measured ones only */
	int nullable;			/* may be null */
	const char *doc;		/* one line */
};

extern const struct bench_c2c_field bench_c2c_fields[];
extern const int bench_c2c_nr_fields;

/*
 * A `ctrbench project --format json` line (kind "projected") is not a result
 * line either: a figure of the coherence model (docs/projection.md), never a
 * measurement.  Its fields are this third table, X(PATH, TYPE, DOC); every
 * row is in every line, in this order, and nothing else (bench/cmd-project.c
 * writes them from this table; tests/cli_project.sh checks lines against it;
 * scripts/report reads them through `ctrbench schema`, "projected_fields",
 * and draws them dashed, labelled "projected (model, calibration NAME)").
 * Its version is BENCH_SCHEMA_VERSION too.  "C." is each cost class of the
 * model: smt, ccx, xccx, xccx_rh, socket, dram (project/proj.h).
 */
#define BENCH_PROJ_CLASS_FIELDS(X, obj, what) \
	X(obj ".smt", BT_NUM, what " from the SMT sibling") \
	X(obj ".ccx", BT_NUM, what " from another core of the L3") \
	X(obj ".xccx", BT_NUM, what " from another L3 of the socket, the line's home on it") \
	X(obj ".xccx_rh", BT_NUM, what " from another L3 of the socket, the home on the other socket") \
	X(obj ".socket", BT_NUM, what " from the other socket") \
	X(obj ".dram", BT_NUM, what " from memory (first touch)")

#define BENCH_PROJ_FIELDS(X) \
	X("kind", BT_STR, "\"projected\": a model's figures, not a measurement") \
	X("schema", BT_INT, "BENCH_SCHEMA_VERSION") \
	X("algo", BT_STR, "algorithm (ctrbench list), its code run through the model") \
	X("workload", BT_STR, "update, charge or readers") \
	X("shape", BT_STR, "tree shape as typed") \
	X("threads", BT_INT, "updater threads") \
	X("readers", BT_INT, "reader threads (0 outside the readers workload)") \
	X("placement", BT_STR, "--placement on the modelled topology") \
	X("topology", BT_STR, "the modelled topology (--topology, or \"this machine\")") \
	X("slots", BT_INT, "the tree's slots, possible CPUs (--slots; default the topology's PUs, or the threads if more)") \
	X("nr_stats", BT_INT, "stats per node (--nr-stats)") \
	X("seed", BT_INT, "the readers' interval jitter's seed (--seed)") \
	X("jitter", BT_INT, "1: readers' pauses uniform in [0.5, 1.5] x the interval; 0: exactly it (--no-jitter)") \
	X("slice_ms", BT_NUM, "the scheduler's time slice for more threads than PUs (--slice-ms)") \
	X("preempt", BT_STR, "where a slice may end: full, at any access; none, only between operations (--preempt)") \
	X("virtual_threads_per_pu", BT_NUM, "updaters and readers per PU they are placed on (above 1: time-shared)") \
	X("calibration", BT_STR, "where the per-class ns come from, in full") \
	X("calibration_name", BT_STR, "the same, short: the label's \"calibration NAME\"") \
	X("ops", BT_INT, "updater operations projected (all updaters)") \
	X("reads", BT_INT, "reads projected (all readers)") \
	X("transfers_per_op", BT_OBJ, "line transfers per update by class") \
	BENCH_PROJ_CLASS_FIELDS(X, "transfers_per_op", "per update,") \
	X("ns_per_op", BT_OBJ, "projected ns per update: the band") \
	X("ns_per_op.overlap", BT_NUM, "independent misses overlapped (the band's low end)") \
	X("ns_per_op.serial", BT_NUM, "every miss in turn (the band's high end)") \
	X("read_transfers", BT_OBJ, "line transfers per read by class (0 without readers)") \
	BENCH_PROJ_CLASS_FIELDS(X, "read_transfers", "per read,") \
	X("ns_per_read", BT_OBJ, "projected ns per read: the band (0 without readers)") \
	X("ns_per_read.overlap", BT_NUM, "the band's low end") \
	X("ns_per_read.serial", BT_NUM, "the band's high end") \
	X("read_ns_p50", BT_NUM, "the measured reads' median, serial ns (0 without readers)") \
	X("read_ns_p99", BT_NUM, "their 99th percentile, serial ns (nearest rank)") \
	X("read_ns_max", BT_NUM, "the slowest, serial ns") \
	X("virtual_s", BT_NUM, "modelled time from the first measured update to the last") \
	X("lock_contended_per_s", BT_NUM, "contended acquisitions per virtual second of the lock with the most wait (locks[0])") \
	X("lock_acquisitions", BT_INT, "acquisitions of that lock") \
	X("lock_wait_s_per_s", BT_NUM, "virtual seconds waited for it per virtual second, summed over the threads") \
	X("lock_role", BT_STR, "that lock's role (CTR_LOCK_ROLE's name, or \"lock in allocation N\"); \"\" if none") \
	X("lock_hold_s_per_s", BT_NUM, "virtual seconds it was held per virtual second") \
	X("locks", BT_ARR, "every lock taken, most wait first: {role, acquisitions, contended, acquisitions_per_s, contended_per_s, wait_s_per_s, hold_s_per_s}") \
	X("model_seconds", BT_NUM, "real seconds the projection took here") \
	X("model_accesses", BT_NUM, "accesses to the tree's lines the model costed") \
	X("model_switches", BT_INT, "virtual-thread switches the model made (its own cost, not the machine's)") \
	X("starved", BT_INT, "threads the run stopped short of their measured operations (a lock whose holder always wins the race); 0 none") \
	X("starved_why", BT_STR, "which thread starved and how long its operation waited; \"\" if none")

struct bench_proj_field {
	const char *path;		/* JSON path, dotted for a member of an object */
	enum bench_ftype type;
	const char *doc;		/* one line */
};

extern const struct bench_proj_field bench_proj_fields[];
extern const int bench_proj_nr_fields;

#endif /* BENCH_SCHEMA_H */
