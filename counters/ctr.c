/* SPDX-License-Identifier: MIT */
/*
 * ctr.c - the registry, parameter validation, and the public API, which
 * dispatches through each algorithm's ops table.  Nothing here is on a
 * timed path: the harness inlines the algorithms' hot paths itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/mempolicy.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "list.h"

#define CTR_ALGO_PTR(name) &ctr_algo_##name,
static const struct ctr_algo *const ctr_algos[] = { CTR_ALGO_LIST(CTR_ALGO_PTR) };
#define CTR_NR_ALGOS ((int)(sizeof(ctr_algos) / sizeof(ctr_algos[0])))

int ctr_algo_count(void)
{
	return CTR_NR_ALGOS;
}

const struct ctr_algo *ctr_algo_at(int i)
{
	return i >= 0 && i < CTR_NR_ALGOS ? ctr_algos[i] : NULL;
}

const struct ctr_algo *ctr_algo_find(const char *name)
{
	for (int i = 0; name && i < CTR_NR_ALGOS; i++)
		if (!strcmp(ctr_algos[i]->name, name))
			return ctr_algos[i];
	return NULL;
}

const char *ctr_algo_name(const struct ctr_algo *a)
{
	return a ? a->name : NULL;
}

const char *ctr_algo_summary(const struct ctr_algo *a)
{
	return a ? a->summary : NULL;
}

void *ctr_zalloc_aligned(size_t size)
{
	void *p;

	size = CTR_ROUND_UP(size ? size : 1, CTR_CACHELINE);
	p = aligned_alloc(CTR_CACHELINE, size);
	if (p)
		memset(p, 0, size);
	return p;
}

static size_t ctr_page_round(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return CTR_ROUND_UP(size ? size : 1, page);
}

void *ctr_alloc_slot_area(const struct ctr_tree *t, int cpu, size_t size)
{
	unsigned long mask[16] = { 0 };	/* nodes 0..1023 */
	int node = t->slot_node ? t->slot_node[cpu] : -1;
	size_t len;
	void *p;

	if (node < 0)
		return ctr_zalloc_aligned(size);
	if (node >= (int)(sizeof(mask) * 8)) {
		errno = EINVAL;
		return NULL;
	}
	len = ctr_page_round(size);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	mask[node / (8 * sizeof(long))] = 1UL << (node % (8 * sizeof(long)));
	/* Bind before the first touch, so the pages are allocated there and nowhere else. */
	if (syscall(SYS_mbind, p, len, MPOL_BIND, mask, sizeof(mask) * 8, 0)) {
		int err = errno;

		munmap(p, len);
		errno = err;
		return NULL;
	}
	memset(p, 0, len);
	return p;
}

void ctr_free_slot_area(const struct ctr_tree *t, void *p, size_t size)
{
	if (!p)
		return;
	if (t->slot_node)
		munmap(p, ctr_page_round(size));
	else
		free(p);
}

#ifdef CTR_DEBUG
void __ctr_bad_index(const char *what, long val, long bound, const char *fn)
{
	fprintf(stderr, "libctr: %s: %s %ld out of range [0, %ld)\n", fn, what, val, bound);
	abort();
}
#endif

/* "key=value,key=value": hand each pair to the algorithm; -EINVAL on any bad one. */
static int ctr_parse_options(struct ctr_tree *t, const char *options)
{
	char *copy, *save = NULL, *tok;
	int err = 0;

	if (!options || !*options)
		return 0;
	copy = strdup(options);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok || !t->algo->set_option) {
			err = -EINVAL;
			break;
		}
		*eq = '\0';
		err = t->algo->set_option(t, tok, eq + 1);
	}
	free(copy);
	return err;
}

/* Copy and check the shape; fills parent, depth and max_depth. */
static int ctr_init_shape(struct ctr_tree *t, const struct ctr_params *p)
{
	t->parent = malloc(sizeof(int) * p->nr_nodes);
	t->depth = malloc(sizeof(int) * p->nr_nodes);
	if (!t->parent || !t->depth)
		return -ENOMEM;
	for (int i = 0; i < p->nr_nodes; i++) {
		int par = p->parent ? p->parent[i] : i - 1;

		if (i == 0 ? par != -1 : par < 0 || par >= i)
			return -EINVAL;
		t->parent[i] = par;
		t->depth[i] = i ? t->depth[par] + 1 : 1;
		if (t->depth[i] > t->max_depth)
			t->max_depth = t->depth[i];
	}
	if (p->limit) {
		t->limit = malloc(sizeof(int64_t) * p->nr_nodes);
		if (!t->limit)
			return -ENOMEM;
		memcpy(t->limit, p->limit, sizeof(int64_t) * p->nr_nodes);
	}
	if (p->slot_node) {
		t->slot_node = malloc(sizeof(int) * t->nr_cpus);
		if (!t->slot_node)
			return -ENOMEM;
		for (int i = 0; i < t->nr_cpus; i++) {
			if (p->slot_node[i] < 0)
				return -EINVAL;
			t->slot_node[i] = p->slot_node[i];
		}
	}
	if (p->slot_l3) {
		t->slot_l3 = malloc(sizeof(int) * t->nr_cpus);
		if (!t->slot_l3)
			return -ENOMEM;
		for (int i = 0; i < t->nr_cpus; i++) {
			if (p->slot_l3[i] < 0)
				return -EINVAL;
			t->slot_l3[i] = p->slot_l3[i];
		}
	}
	return 0;
}

/*
 * No layout is bigger than (nr_cpus + 1) x nr_nodes x nr_stats words, each
 * node's stats rounded up to a line: refuse what size_t cannot count, so no
 * algorithm's size arithmetic can wrap.
 */
static int ctr_check_size(const struct ctr_tree *t)
{
	size_t words;

	if (__builtin_mul_overflow((size_t)t->nr_nodes,
				   CTR_ROUND_UP((size_t)t->nr_stats, CTR_CACHELINE / sizeof(int64_t)), &words) ||
	    __builtin_mul_overflow(words, (size_t)t->nr_cpus + 1, &words) ||
	    words > SIZE_MAX / CTR_CACHELINE)
		return -ENOMEM;
	return 0;
}

static void ctr_free_base(struct ctr_tree *t)
{
	free(t->parent);
	free(t->depth);
	free(t->limit);
	free(t->slot_node);
	free(t->slot_l3);
	free(t);
}

struct ctr_tree *ctr_tree_new(const struct ctr_algo *a, const struct ctr_params *p)
{
	struct ctr_tree *t;
	int err;

	if (!a || !p || p->nr_nodes < 1 || p->nr_cpus < 0 || p->nr_stats < 0 ||
	    p->batch < 0 || p->flush_period_ms < 0) {
		errno = EINVAL;
		return NULL;
	}
	t = ctr_zalloc_aligned(a->size);
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->algo = a;
	t->nr_nodes = p->nr_nodes;
	t->nr_cpus = p->nr_cpus;
	if (!t->nr_cpus) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		t->nr_cpus = n > 0 ? (int)n : 1;
	}
	t->nr_stats = p->nr_stats ? p->nr_stats : 1;
	t->batch = p->batch;
	t->flush_period_ms = p->flush_period_ms;

	err = ctr_check_size(t);
	if (err)
		goto fail;
	err = ctr_init_shape(t, p);
	if (err)
		goto fail;
	err = ctr_parse_options(t, p->options);
	if (err)
		goto fail;
	err = a->init(t);
	if (err)
		goto fail;
	return t;
fail:
	ctr_free_base(t);
	errno = -err;
	return NULL;
}

void ctr_tree_free(struct ctr_tree *t)
{
	if (!t)
		return;
	t->algo->fini(t);
	ctr_free_base(t);
}

#define CTR_CHECK_NODE_STAT(t, node, stat) do {		\
	CTR_CHECK_RANGE("node", node, (t)->nr_nodes);	\
	CTR_CHECK_RANGE("stat", stat, (t)->nr_stats);	\
} while (0)

void ctr_add(struct ctr_tree *t, int cpu, int node, int stat, int64_t delta)
{
	CTR_CHECK_RANGE("cpu", cpu, t->nr_cpus);
	CTR_CHECK_NODE_STAT(t, node, stat);
	t->algo->add(t, cpu, node, stat, delta);
}

int64_t ctr_read(struct ctr_tree *t, int node, int stat)
{
	CTR_CHECK_NODE_STAT(t, node, stat);
	return t->algo->read(t, node, stat);
}

int64_t ctr_read_exact(struct ctr_tree *t, int node, int stat)
{
	CTR_CHECK_NODE_STAT(t, node, stat);
	return t->algo->read_exact(t, node, stat);
}

int ctr_try_charge(struct ctr_tree *t, int cpu, int node, int64_t delta)
{
	CTR_CHECK_RANGE("cpu", cpu, t->nr_cpus);
	CTR_CHECK_RANGE("node", node, t->nr_nodes);
	return t->algo->try_charge(t, cpu, node, delta);
}

int64_t ctr_read_error_bound(const struct ctr_tree *t)
{
	return t->algo->error_bound ? t->algo->error_bound(t) : 0;
}

double ctr_read_staleness_ms(const struct ctr_tree *t, double flush_ms, char *why, size_t len)
{
	char scratch[8];

	if (!why) {
		why = scratch;
		len = sizeof(scratch);
	}
	if (ctr_read_error_bound(t) >= 0) {
		snprintf(why, len, "bounded by a count, not by time");
		return 0;
	}
	if (!t->algo->staleness_ms) {
		snprintf(why, len, "bounded by time, by how much %s does not say", t->algo->name);
		return CTR_STALE_UNKNOWN;
	}
	return t->algo->staleness_ms(t, flush_ms, why, len);
}
