/* SPDX-License-Identifier: MIT */
/*
 * api_demo.c - a program written against counters/ctr.h alone, built with
 * -I build/include (which holds nothing else) and linked with
 * build/libctr.a plus `make print-libs`.  It is also a usage example:
 *
 *   cc -Ibuild/include demo.c build/libctr.a $(make -s print-libs)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ctr.h>

int main(void)
{
	/* root 0 with children 1 and 2; node 3 under 1 */
	const int parent[] = { -1, 0, 0, 1 };
	const int64_t limit[] = { 100, CTR_NO_LIMIT, CTR_NO_LIMIT, 30 };
	struct ctr_params p = { .nr_nodes = 4, .parent = parent, .nr_cpus = 2, .limit = limit };
	int bad = 0;

	for (int i = 0; i < ctr_algo_count(); i++) {
		const struct ctr_algo *a = ctr_algo_at(i);
		struct ctr_tree *t = ctr_tree_new(a, &p);

		if (!t) {
			fprintf(stderr, "%s: ctr_tree_new: %s\n", ctr_algo_name(a), strerror(errno));
			return 1;
		}
		int64_t bound = ctr_read_error_bound(t);

		ctr_add(t, 0, 3, 0, 7);
		ctr_add(t, 1, 2, 0, -2);
		int ok1 = ctr_try_charge(t, 1, 3, 23);	/* node 3 reaches 30: admitted */
		/*
		 * An algorithm whose reads may be stale decides on what it has
		 * flushed.  Where an exact read flushes nothing (batched_percpu),
		 * the read stays stale within its bound and so may the decision.
		 */
		if (bound != 0)
			ctr_read_exact(t, 0, 0);
		int fresh = ctr_read(t, 3, 0) == ctr_read_exact(t, 3, 0);
		int ok2 = ctr_try_charge(t, 0, 3, 1);	/* over node 3's limit: refused */
		int64_t root = ctr_read_exact(t, 0, 0), n1 = ctr_read_exact(t, 1, 0);
		int64_t off = ctr_read(t, 0, 0) - root;

		printf("%-17s root=%lld node1=%lld charges=%d,%d read-exact=%lld bound=%lld\n",
		       ctr_algo_name(a), (long long)root, (long long)n1, ok1, ok2, (long long)off,
		       (long long)bound);
		bad |= root != 28 + ok2 || n1 != 30 + ok2 || ok1 != 1 || ok2 < 0 || ok2 > 1 || (ok2 && fresh);
		bad |= bound >= 0 && (off > bound || -off > bound);
		ctr_tree_free(t);
	}
	errno = 0;
	if (ctr_tree_new(ctr_algo_find("atomic_tree"), &(struct ctr_params){ .nr_nodes = 0 }) ||
	    errno != EINVAL)
		bad = 1;
	puts(bad ? "api_demo: FAILED" : "api_demo: ok");
	return bad;
}
