/* SPDX-License-Identifier: MIT */
/*
 * ctr_footprint() against what ctr_tree_new() really allocates, for every
 * algorithm, a few shapes and slot counts: the harness refuses a run that
 * does not fit in memory from this figure alone (issue 18.4), so it must
 * not under-count, and must not over-count so much that it refuses what
 * fits.  The bound checked: allocated <= footprint <= 1.25 x allocated +
 * 4 KiB with glibc's allocator (its in-use chunk bytes, mallinfo2); under
 * ASan and TSan, whose allocators report the bytes asked for (no chunk
 * headers), 1.5 x.  striped counts its cells at their most, which a tree
 * only reaches under contention: for it the check is allocated <=
 * footprint, and the footprint is checked against its own growth formula
 * by the harness's refusal test (tests/cli_limits.sh).
 */
#include <errno.h>
#include <malloc.h>

#include "../testutil.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* the sanitizer runtimes export it; GCC ships no header for it (sanitizer/allocator_interface.h) */
size_t __sanitizer_get_current_allocated_bytes(void);
#define FP_FACTOR 1.5
static size_t fp_heap_bytes(void)
{
	return __sanitizer_get_current_allocated_bytes();
}
#else
#define FP_FACTOR 1.25
static size_t fp_heap_bytes(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}
#endif

#define FP_SLACK 4096
#define FP_UNDER 1024

struct fp_case {
	int nodes;		/* a random tree of this many nodes, depth <= 12 */
	int cpus;		/* slots */
	int stats;		/* counters per node */
	const char *options;	/* per algorithm, where it takes them */
};

static void fp_check(const struct ctr_algo *a, const struct fp_case *c, uint64_t *seed)
{
	int *parent = tu_random_tree(seed, c->nodes, 12, NULL);
	const struct ctr_params p = { .nr_nodes = c->nodes, .parent = parent, .nr_cpus = c->cpus,
				      .nr_stats = c->stats, .options = c->options };
	size_t want = 0, before, got;
	struct ctr_tree *t;
	int err;

	err = ctr_footprint(a, &p, &want);
	if (err)
		fail_msg("%s: ctr_footprint: %s", ctr_algo_name(a), strerror(-err));
	before = fp_heap_bytes();
	t = ctr_tree_new(a, &p);
	got = fp_heap_bytes() - before;
	if (!t)
		fail_msg("%s: ctr_tree_new: %s", ctr_algo_name(a), strerror(errno));
	printf("# %s %d nodes x %d stats, %d slots%s%s: footprint %zu, allocated %zu (%.2fx)\n",
	       ctr_algo_name(a), c->nodes, c->stats, c->cpus, c->options ? ", " : "",
	       c->options ? c->options : "", want, got, got ? (double)want / (double)got : 0.0);
	if (want + FP_UNDER < got)
		fail_msg("%s: %d nodes x %d stats, %d slots: footprint %zu under the %zu allocated",
			 ctr_algo_name(a), c->nodes, c->stats, c->cpus, want, got);
	if (strcmp(ctr_algo_name(a), "striped") && (double)want > FP_FACTOR * (double)got + FP_SLACK)
		fail_msg("%s: %d nodes x %d stats, %d slots: footprint %zu over %.2f x the %zu allocated",
			 ctr_algo_name(a), c->nodes, c->stats, c->cpus, want, FP_FACTOR, got);
	ctr_tree_free(t);
	free(parent);
}

/* What ctr_tree_new refuses, ctr_footprint refuses with the same errno. */
static void fp_refuses(const struct ctr_algo *a)
{
	const int bad_parent[] = { -1, 5 };
	size_t b = 0;

	assert_int_equal(ctr_footprint(a, &(struct ctr_params){ .nr_nodes = 0 }, &b), -EINVAL);
	assert_int_equal(ctr_footprint(a, &(struct ctr_params){ .nr_nodes = 2, .parent = bad_parent }, &b),
			 -EINVAL);
	assert_int_equal(ctr_footprint(a, &(struct ctr_params){ .nr_nodes = 1, .options = "nosuchkey=1" }, &b),
			 -ENOENT);
	/* a size no size_t counts: refused as ctr_tree_new does, before any arithmetic can wrap */
	assert_int_equal(ctr_footprint(a, &(struct ctr_params){ .nr_nodes = 1 << 30, .nr_cpus = 1 << 30,
							       .nr_stats = 1 << 30 }, &b), -ENOMEM);
	/* issue 18's case: 4096 slots of a 2047 x 2048 tree is far more than this machine has */
	assert_int_equal(ctr_footprint(a, &(struct ctr_params){ .nr_nodes = 2047 * 2048, .nr_cpus = 4096 }, &b), 0);
	assert_true(b > (size_t)32 << 20);
}

static void test_footprint(void **state)
{
	const struct ctr_algo *a = *state;
	const char *name = ctr_algo_name(a);
	static const struct fp_case cases[] = {
		{ 1, 1, 1, NULL }, { 8, 2, 1, NULL }, { 500, 7, 3, NULL }, { 2000, 64, 1, NULL },
		{ 300, 300, 2, NULL }, { 40, 1000, 1, NULL },
	};
	uint64_t seed = tu_seed(name);

	fp_refuses(a);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		fp_check(a, &cases[i], &seed);
	/* options that change what is allocated */
	if (!strcmp(name, "rstat_llist"))
		fp_check(a, &(struct fp_case){ 400, 16, 2, "subsys=8" }, &seed);
	if (!strcmp(name, "percpu_tree"))
		fp_check(a, &(struct fp_case){ 400, 48, 1, "order=topology" }, &seed);
}

int main(void)
{
	return tu_run_per_algo("footprint", test_footprint);
}
