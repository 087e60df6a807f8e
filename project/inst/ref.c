/* SPDX-License-Identifier: MIT */
/*
 * ref.c - the timed update loop's prepared update, for the projection.
 * Compiled as libctr is for the model (instrumented, every symbol renamed
 * proj_*: the Makefile's build/proj/), never into the benchmark.
 *
 * Why: bench/loops.c times updates through ctr_<name>_ref_add(), the ref
 * made once per worker (see the prepared update in counters/ctr_internal.h),
 * and the model ran ctr_<name>_add(), which forms the slot's address from the
 * tree on every update: percpu_hier at chain:8 made 31 accesses an update
 * where the timed loop makes 24, and atomic_tree at chain:1 loaded the
 * node's word through the tree before its one locked add.  The ref lives in
 * the caller's memory (a virtual thread's stack, which the model does not
 * track), as the timed loop keeps it in registers: only the add's accesses
 * to the tree's own lines are reported.
 */
#include <errno.h>

#include "../../counters/list.h"
#include "../proj.h"

/* The ref functions' names before proj-rename.sh gives them the proj_ prefix (proj.h declares those). */
int ctr_ref_make(const struct ctr_algo *a, struct ctr_tree *t, int cpu, int node, int stat, struct proj_ref *r);
void ctr_ref_add(const struct proj_ref *r, int64_t delta);

/* One kind per algorithm of the list, in its order; 0 is no ref. */
enum {
	PROJ_REF_NONE,
#define PROJ_REF_KIND(name) PROJ_REF_##name,
	CTR_ALGO_LIST(PROJ_REF_KIND)
#undef PROJ_REF_KIND
};

/* Every algorithm's ref fits proj_ref's buffer, aligned as its type needs. */
#define PROJ_REF_FITS(name)										\
	_Static_assert(sizeof(__typeof__(ctr_##name##_ref(NULL, 0, 0, 0))) <= PROJ_REF_BYTES &&		\
		       _Alignof(__typeof__(ctr_##name##_ref(NULL, 0, 0, 0))) <= _Alignof(struct proj_ref),	\
		       "struct proj_ref's buffer is too small for " #name "'s ref");
CTR_ALGO_LIST(PROJ_REF_FITS)
#undef PROJ_REF_FITS

int ctr_ref_make(const struct ctr_algo *a, struct ctr_tree *t, int cpu, int node, int stat, struct proj_ref *r)
{
#define PROJ_REF_MAKE(name)								\
	if (a == &ctr_algo_##name) {							\
		__typeof__(ctr_##name##_ref(NULL, 0, 0, 0)) h = ctr_##name##_ref(t, cpu, node, stat); \
											\
		__builtin_memcpy(r->buf, &h, sizeof(h));				\
		r->kind = PROJ_REF_##name;						\
		return 0;								\
	}
	CTR_ALGO_LIST(PROJ_REF_MAKE)
#undef PROJ_REF_MAKE
	r->kind = PROJ_REF_NONE;
	return -ENOENT;
}

void ctr_ref_add(const struct proj_ref *r, int64_t delta)
{
	switch (r->kind) {
#define PROJ_REF_ADD(name)										\
	case PROJ_REF_##name:										\
		ctr_##name##_ref_add((const __typeof__(ctr_##name##_ref(NULL, 0, 0, 0)) *)(const void *)r->buf, delta); \
		return;
	CTR_ALGO_LIST(PROJ_REF_ADD)
#undef PROJ_REF_ADD
	}
}
