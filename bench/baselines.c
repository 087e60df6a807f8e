/* SPDX-License-Identifier: MIT */
#include "baselines.h"
#include "../project/proj.h"

static int bench_nothing_init(struct ctr_tree *t)
{
	(void)t;
	return 0;
}

static void bench_nothing_fini(struct ctr_tree *t)
{
	(void)t;
}

/* Nothing beyond the instance (counted by ctr_footprint). */
static size_t bench_nothing_footprint(struct ctr_tree *t)
{
	(void)t;
	return 0;
}

/* The instance alone: empty has nothing else. */
static int bench_empty_layout(struct ctr_tree *t, const struct ctr_layout_sink *s)
{
	(void)t;
	return ctr_emit_instance(s, NULL, 0);
}

/* The instance, its one word named: the line every update of shared_atomic bounces. */
static int bench_shared_atomic_layout(struct ctr_tree *t, const struct ctr_layout_sink *s)
{
	static const struct ctr_span spans[] = { CTR_SPAN(struct bench_shared_atomic, word, "the shared atomic") };

	(void)t;
	return ctr_emit_instance(s, spans, 1);
}

/* Nothing is counted: its reads say nothing, so its bound is "unbounded" (-1). */
static int64_t bench_empty_error_bound(const struct ctr_tree *t)
{
	(void)t;
	return -1;
}

const struct ctr_algo bench_algo_empty = {
	.name = "empty",
	.summary = "baseline: the harness floor, an update that does nothing (loop, phase check, sampling)",
	.size = sizeof(struct ctr_tree),
	.init = bench_nothing_init,
	.fini = bench_nothing_fini,
	.footprint = bench_nothing_footprint,
	.layout = bench_empty_layout,
	.add = bench_empty_add,
	.read = bench_empty_read,
	.read_exact = bench_empty_read,
	.try_charge = bench_empty_try_charge,
	.error_bound = bench_empty_error_bound,
};

const struct ctr_algo bench_algo_shared_atomic = {
	.name = "shared_atomic",
	.summary = "baseline: one atomic add on a single shared word per update, no hierarchy",
	.size = sizeof(struct bench_shared_atomic),
	.init = bench_nothing_init,
	.fini = bench_nothing_fini,
	.footprint = bench_nothing_footprint,
	.layout = bench_shared_atomic_layout,
	.add = bench_shared_atomic_add,
	.read = bench_shared_atomic_read,
	.read_exact = bench_shared_atomic_read,
	.try_charge = bench_shared_atomic_try_charge,
};

/* Each baseline's access as the model's pattern: what its add above does, in the model's terms. */
static const struct {
	const struct ctr_algo *ops;
	enum proj_raw raw;
} bench_baseline_raw[] = {
	{ &bench_algo_empty, PROJ_RAW_EMPTY },			/* a compiler barrier: no access */
	{ &bench_algo_shared_atomic, PROJ_RAW_SHARED_ATOMIC },	/* one relaxed fetch_add on one word */
};

int bench_baseline_proj_raw(const struct ctr_algo *a)
{
	for (size_t i = 0; i < sizeof(bench_baseline_raw) / sizeof(bench_baseline_raw[0]); i++)
		if (bench_baseline_raw[i].ops == a)
			return bench_baseline_raw[i].raw;
	return PROJ_RAW_NONE;
}
