/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* Hard caps that keep a typo from allocating the machine away. */
#define BENCH_MAX_NODES (1 << 22)
#define BENCH_MAX_DEPTH 4096	/* far deeper than any cgroup hierarchy in use */

static const char *const bench_shape_syntax = "want chain:D or tree:AxB[xC...], counts >= 1";

/* A decimal in [1, max] ending at a char of `ends`; advances *p. */
static int bench_parse_count(const char **p, long max, const char *ends, long *out)
{
	char *end;
	long v;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno || v < 1 || !strchr(ends, *end))
		return -EINVAL;
	*p = end;
	*out = v > max ? max + 1 : v;	/* the caller reports a count over its cap */
	return 0;
}

static int bench_shape_alloc(struct bench_shape *s, long nodes, long leaves)
{
	s->nr_nodes = (int)nodes;
	s->nr_leaves = (int)leaves;
	s->parent = malloc(sizeof(int) * nodes);
	s->leaves = malloc(sizeof(int) * leaves);
	return s->parent && s->leaves ? 0 : -ENOMEM;
}

int bench_shape_parse(const char *spec, struct bench_shape *s, const char **why)
{
	const char *p;
	long v, width[BENCH_MAX_DEPTH], level_nodes = 1, total = 1;
	int levels = 0, err;

	memset(s, 0, sizeof(*s));
	s->spec = spec;
	*why = bench_shape_syntax;
	if (!strncmp(spec, "chain:", 6)) {
		p = spec + 6;
		if (bench_parse_count(&p, BENCH_MAX_DEPTH, "", &v))
			return -EINVAL;
		if (v > BENCH_MAX_DEPTH) {
			*why = "deeper than 4096 levels";
			return -EINVAL;
		}
		err = bench_shape_alloc(s, v, 1);
		if (err)
			return err;
		for (long i = 0; i < v; i++)
			s->parent[i] = (int)i - 1;
		s->leaves[0] = (int)v - 1;
		s->depth = (int)v;
		return 0;
	}
	if (strncmp(spec, "tree:", 5))
		return -EINVAL;
	/* tree:AxBxC: the root, A children, B under each of those, ... */
	for (p = spec + 5; ; p++) {
		if (bench_parse_count(&p, BENCH_MAX_NODES, "x", &v))
			return -EINVAL;
		if (levels == BENCH_MAX_DEPTH - 1) {
			*why = "deeper than 4096 levels";
			return -EINVAL;
		}
		width[levels++] = v;
		level_nodes *= v;
		total += level_nodes;
		if (v > BENCH_MAX_NODES || total > BENCH_MAX_NODES) {
			*why = "more than 4194304 nodes";
			return -EINVAL;
		}
		if (!*p)
			break;
	}
	err = bench_shape_alloc(s, total, level_nodes);
	if (err)
		return err;
	s->parent[0] = -1;
	s->depth = levels + 1;
	{
		long first = 0, count = 1, next = 1;	/* the previous level's nodes */

		for (int l = 0; l < levels; l++) {
			for (long i = 0; i < count * width[l]; i++)
				s->parent[next + i] = (int)(first + i / width[l]);
			first = next;
			count *= width[l];
			next += count;
		}
		for (long i = 0; i < count; i++)
			s->leaves[i] = (int)(first + i);
	}
	return 0;
}

void bench_shape_free(struct bench_shape *s)
{
	free(s->parent);
	free(s->leaves);
	s->parent = s->leaves = NULL;
}
