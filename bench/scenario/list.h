/* SPDX-License-Identifier: MIT */
/*
 * list.h - the one list of scenarios (an X-macro), in the order
 * `ctrbench scenario list` shows them.
 *
 * To add a scenario `foo-bar`:
 *  1. bench/scenario/foo_bar.c: its measured table (a function of struct
 *     scn_ctx that builds configurations with scn_config and measures them
 *     with scn_measure or scn_measure_cols: the engine plans, resumes, reads
 *     --from and writes every result line), its projected table if it has
 *     one, and `const struct scn scn_foo_bar` (scenario.h) naming them, its
 *     seed, the options that apply and the capabilities its columns need
 *     (enum scn_cap: ask what an algorithm can do, never test its name).
 *     The Makefile finds the file by wildcard.
 *  2. Below: one SCN(foo_bar) line.
 * The seed's posted figures go in docs/seeds/tables.csv, never in code:
 * the tables read them from there (scn_row_seed, bench_seed_find).
 */
#ifndef BENCH_SCENARIO_LIST_H
#define BENCH_SCENARIO_LIST_H

#define SCN_LIST(SCN)			\
	SCN(zswap_store_limit)		\
	SCN(zswap_store_nolimit)	\
	SCN(zswap_load_latency)		\
	SCN(worker_scaling)		\
	SCN(shrinker_count)		\
	SCN(stat_read_storm)		\
	SCN(stat_read_pressure)		\
	SCN(admission_staleness)	\
	SCN(subsys_flush_locks)

#define SCN_DECLARE(n) extern const struct scn scn_##n;
SCN_LIST(SCN_DECLARE)
#undef SCN_DECLARE

#endif /* BENCH_SCENARIO_LIST_H */
