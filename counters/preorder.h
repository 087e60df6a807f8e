/* SPDX-License-Identifier: MIT */
/*
 * preorder.h - a preorder numbering of a tree, for the algorithms that must
 * visit a node's whole subtree (batched_percpu's exact read, the stock
 * drain of atomic_tree_stock): in preorder every subtree is one contiguous
 * range, so "m is under n" is two compares and a subtree is one scan.
 */
#ifndef CTR_PREORDER_H
#define CTR_PREORDER_H

#include <errno.h>
#include <stdlib.h>

#include "ctr_internal.h"

/*
 * pos[n]: n's preorder index; size[n]: nodes in n's subtree, n included.
 * The subtree of n is exactly the nodes m with pos[n] <= pos[m] < pos[n] +
 * size[n].  Two linear passes suffice because parent[i] < i: a backward
 * pass sums subtree sizes (children before parents), a forward one hands
 * each child the next free range of its parent's (parents before children).
 * Returns 0 or -ENOMEM; the caller frees *pos and *size.
 */
static inline int ctr_preorder(const struct ctr_tree *t, int **pos_out, int **size_out)
{
	const int n = t->nr_nodes;
	int *pos = ctr_malloc(sizeof(int) * n), *size = ctr_malloc(sizeof(int) * n);
	int *next = ctr_malloc(sizeof(int) * n);	/* next free index in node i's range */

	if (!pos || !size || !next) {
		ctr_free(pos), ctr_free(size), ctr_free(next);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		size[i] = 1;
	for (int i = n - 1; i > 0; i--)
		size[t->parent[i]] += size[i];
	pos[0] = 0;
	next[0] = 1;
	for (int i = 1; i < n; i++) {
		int p = t->parent[i];

		pos[i] = next[p];
		next[p] += size[i];
		next[i] = pos[i] + 1;
	}
	ctr_free(next);
	*pos_out = pos;
	*size_out = size;
	return 0;
}

/* m is n or a descendant of n. */
static inline int ctr_preorder_under(const int *pos, const int *size, int m, int n)
{
	return pos[m] >= pos[n] && pos[m] < pos[n] + size[n];
}

#endif /* CTR_PREORDER_H */
