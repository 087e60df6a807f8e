/* SPDX-License-Identifier: MIT */
/*
 * c2c/plan.c - c2c's plan (c2c.h): the CPUs, the pairs drawn among them, each
 * pair's distance class.  Nothing here measures: tests/harness/test_c2c.c plans on
 * synthetic topologies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c2c.h"

/* splitmix64: the draws only need to be fixed and spread, not secret. */
static uint64_t c2c_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}


static int c2c_cmp_logical(const void *x, const void *y, void *arg)
{
	struct topo_pu_info a, b;

	topo_pu_info(arg, *(const int *)x, &a);
	topo_pu_info(arg, *(const int *)y, &b);
	return (a.logical > b.logical) - (a.logical < b.logical);
}

/* How many CPUs a list names (ranges counted whole); 0 when it is malformed (topo_place says why). */
static long c2c_list_len(const char *s)
{
	long n = 0;

	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;

		if (end == s)
			return 0;
		if (*end == '-') {
			const char *h = end + 1;

			hi = strtol(h, &end, 10);
			if (end == h)
				return 0;
		}
		if (hi < lo || hi - lo > 1 << 20)
			return 0;
		n += hi - lo + 1;
		if (*end == ',')
			end++;
		else if (*end)
			return 0;
		s = end;
	}
	return n;
}

/* p->cpus, p->dups from "all" or a list. */
static int c2c_plan_cpus(const struct topo *t, const char *cpus, struct c2c_plan *p, char *err,
			 size_t errlen)
{
	int n = topo_nr_pus(t), *v, k = 0;
	char perr[512];

	if (!strcmp(cpus, "all")) {
		v = malloc(sizeof(int) * n);
		if (!v)
			return -ENOMEM;
		for (int i = 0; i < n; i++) {
			struct topo_pu_info in;

			topo_pu_at(t, i, &in);
			v[i] = in.pu;
		}
	} else {
		long len = c2c_list_len(cpus);
		size_t plen = strlen(cpus) + 6;
		char *policy = malloc(plen);

		if (!policy)
			return -ENOMEM;
		snprintf(policy, plen, "list:%s", cpus);
		n = len > 0 ? (int)len : 1;
		v = malloc(sizeof(int) * n);
		if (!v) {
			free(policy);
			return -ENOMEM;
		}
		if (len < 1 || topo_place(t, policy, n, v, NULL, perr, sizeof(perr))) {
			if (len < 1)
				topo_place(t, policy, 1, v, NULL, perr, sizeof(perr));
			topo_err(err, errlen, "bad value '%s' for --cpus (%s)", cpus,
				strstr(perr, "': ") ? strstr(perr, "': ") + 3 : perr);
			free(policy);
			free(v);
			return -EINVAL;
		}
		free(policy);
	}
	qsort_r(v, n, sizeof(int), c2c_cmp_logical, (void *)t);
	p->dups = calloc(n, sizeof(int));
	if (!p->dups) {
		free(v);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		if (k && v[k - 1] == v[i]) {
			if (!p->nr_dups || p->dups[p->nr_dups - 1] != v[i])
				p->dups[p->nr_dups++] = v[i];
			continue;
		}
		v[k++] = v[i];
	}
	p->cpus = v;
	p->nr_cpus = k;
	if (k < 2) {
		topo_err(err, errlen, "bad value '%s' for --cpus (a pair needs two different CPUs)", cpus);
		return -EINVAL;
	}
	return 0;
}

static int c2c_parse_mode(const char *s, struct c2c_plan *p, char *err, size_t errlen)
{
	const char *num = NULL;
	char *end;
	long n;

	if (!strcmp(s, "all")) {
		p->mode = C2C_PAIRS_ALL;
		return 0;
	}
	if (!strncmp(s, "sample:", 7)) {
		p->mode = C2C_PAIRS_SAMPLE;
		num = s + 7;
	} else if (!strncmp(s, "per-class:", 10)) {
		p->mode = C2C_PAIRS_PER_CLASS;
		num = s + 10;
	}
	errno = 0;
	n = num && *num >= '0' && *num <= '9' ? strtol(num, &end, 10) : 0;
	if (!num || errno || n < 1 || n > 1 << 20 || *end) {
		topo_err(err, errlen, "bad value '%s' for --pairs (want all, sample:N or per-class:N, "
			"N from 1 to %d)", s, 1 << 20);
		return -EINVAL;
	}
	p->per = (int)n;
	return 0;
}

static int c2c_cmp_pair(const void *x, const void *y)
{
	const struct c2c_pair_plan *a = x, *b = y;

	/* a and b hold positions in p->cpus while sorting (see c2c_plan_make) */
	if (a->a != b->a)
		return (a->a > b->a) - (a->a < b->a);
	return (a->b > b->b) - (a->b < b->b);
}

/*
 * The most pairs a plan holds: every pair of 1024 CPUs (523,776).  Measuring that many takes
 * about 44 hours at the defaults (the dry run's estimate), and its --dry-run --format json is
 * 21 MB made in 2 s; every pair of 4096 CPUs (8.4 million) would take a month to measure, and
 * its plan alone 356 MB and 65 s.  Past it, --pairs per-class:K or sample:N (or fewer --cpus)
 * plan what can be measured, so a bigger plan is refused in one line rather than printed.
 */
#define C2C_MAX_PAIRS (1L << 19)

static int c2c_too_many(const char *pairs, long n, const struct c2c_plan *p, char *err, size_t errlen)
{
	if (n <= C2C_MAX_PAIRS)
		return 0;
	topo_err(err, errlen, "bad value '%s' for --pairs (%ld pairs of %d CPUs: a plan holds at most %ld,"
		" every pair of 1024 CPUs; take --pairs per-class:K or sample:N, or fewer --cpus)", pairs, n,
		p->nr_cpus, C2C_MAX_PAIRS);
	return -EINVAL;
}

int c2c_plan_make(const struct topo *t, const char *cpus, const char *pairs, struct c2c_plan *p,
		  char *err, size_t errlen)
{
	struct c2c_pair_plan *res[TOPO_NR_CLASSES] = { 0 };
	long seen[TOPO_NR_CLASSES] = { 0 }, total;
	uint64_t seed = 0x6332632d706c616eull;	/* fixed: the same plan on every run */
	int ret, n, cap;

	memset(p, 0, sizeof(*p));
	ret = c2c_parse_mode(pairs, p, err, errlen);
	if (!ret)
		ret = c2c_plan_cpus(t, cpus, p, err, errlen);
	if (ret)
		goto fail;
	n = p->nr_cpus;
	total = (long)n * (n - 1) / 2;
	if (total > 1L << 26) {
		topo_err(err, errlen, "bad value '%s' for --cpus (%ld pairs: too many to plan)", cpus, total);
		ret = -EINVAL;
		goto fail;
	}
	/* all and sample:N know their count now; per-class:N after the pass (the classes present) */
	ret = c2c_too_many(pairs, p->mode == C2C_PAIRS_ALL ? total : p->mode == C2C_PAIRS_SAMPLE &&
			   p->per < total ? p->per : p->mode == C2C_PAIRS_SAMPLE ? total : 0, p, err, errlen);
	if (ret)
		goto fail;
	/* One pass over every pair: all keeps it, the others keep a reservoir (one per class). */
	cap = p->mode == C2C_PAIRS_ALL ? (int)total : p->per;
	for (int c = 0; c < TOPO_NR_CLASSES; c++) {
		if (p->mode != C2C_PAIRS_PER_CLASS && c)
			break;
		res[c] = malloc(sizeof(*res[c]) * (cap ? cap : 1));
		if (!res[c]) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	for (int i = 0; i < n; i++) {
		for (int j = i + 1; j < n; j++) {
			int cls = topo_class_of(t, p->cpus[i], p->cpus[j]);
			int r = p->mode == C2C_PAIRS_PER_CLASS ? cls : 0;
			long slot = seen[r]++;

			p->avail[cls]++;
			if (slot >= cap) {
				/* reservoir sampling: keep this one with probability cap / (slot + 1) */
				slot = (long)(c2c_rand(&seed) % (uint64_t)(slot + 1));
				if (slot >= cap)
					continue;
			}
			res[r][slot] = (struct c2c_pair_plan){ .a = i, .b = j, .cls = cls };
		}
	}
	for (int c = 0; c < TOPO_NR_CLASSES; c++)
		p->nr_pairs += res[c] ? (int)(seen[c] < cap ? seen[c] : cap) : 0;
	ret = c2c_too_many(pairs, p->nr_pairs, p, err, errlen);
	if (ret)
		goto fail;
	p->pairs = malloc(sizeof(*p->pairs) * (p->nr_pairs ? p->nr_pairs : 1));
	if (!p->pairs) {
		ret = -ENOMEM;
		goto fail;
	}
	n = 0;
	for (int c = 0; c < TOPO_NR_CLASSES; c++) {
		int k = res[c] ? (int)(seen[c] < cap ? seen[c] : cap) : 0;

		if (k)
			memcpy(p->pairs + n, res[c], sizeof(*p->pairs) * k);
		n += k;
	}
	qsort(p->pairs, p->nr_pairs, sizeof(*p->pairs), c2c_cmp_pair);
	for (int i = 0; i < p->nr_pairs; i++) {
		p->pairs[i].a = p->cpus[p->pairs[i].a];
		p->pairs[i].b = p->cpus[p->pairs[i].b];
	}
	for (int c = 0; c < TOPO_NR_CLASSES; c++)
		free(res[c]);
	return 0;
fail:
	for (int c = 0; c < TOPO_NR_CLASSES; c++)
		free(res[c]);
	c2c_plan_free(p);
	return ret;
}

void c2c_plan_free(struct c2c_plan *p)
{
	free(p->cpus);
	free(p->dups);
	free(p->pairs);
	memset(p, 0, sizeof(*p));
}

int c2c_plan_count(const struct c2c_plan *p, int cls)
{
	int n = 0;

	for (int i = 0; i < p->nr_pairs; i++)
		n += p->pairs[i].cls == cls;
	return n;
}

static const char *const c2c_pairs_names[] = { "all", "sample", "per-class" };

void c2c_mode_str(const struct c2c_plan *p, char *buf, size_t len)
{
	if (p->mode == C2C_PAIRS_ALL)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%s:%d", c2c_pairs_names[p->mode], p->per);
}
