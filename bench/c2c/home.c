/* SPDX-License-Identifier: MIT */
/*
 * c2c/home.c - where c2c's line lives (c2c.h): --home's nodes, the page
 * allocated and first-touched on one, and the node move_pages(2) says it is on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../cli.h"
#include "c2c.h"

/* The node the page at p is on, from move_pages with no target (a query); -errno on failure. */
static int c2c_node_of(void *p)
{
	int status = -1;

	if (move_pages(0, 1, &p, NULL, &status, 0))
		return -errno;
	return status;
}

/*
 * Allocate and first-touch the line's page: on node asked (numa_alloc_onnode,
 * which binds it with mbind), or where the calling thread runs (asked -1).
 * Then ask the kernel where it is.  Returns 0, or -errno when no memory.
 */
int c2c_home_alloc(struct c2c_home *h, int asked)
{
	int node;

	memset(h, 0, sizeof(*h));
	h->asked = asked;
	h->len = (size_t)sysconf(_SC_PAGESIZE);
	if (asked >= 0) {
		h->page = numa_alloc_onnode(h->len, asked);
		h->numa_alloc = 1;
	} else {
		h->page = mmap(NULL, h->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (h->page == MAP_FAILED)
			h->page = NULL;
	}
	if (!h->page)
		return -ENOMEM;
	memset(h->page, 0, h->len);	/* the first touch: it places the page */
	node = c2c_node_of(h->page);
	h->node = node >= 0 ? node : -1;
	if (node < 0)
		h->why = node == -ENOSYS ? "move_pages not supported (no NUMA in this kernel)"
					 : "move_pages failed";
	return 0;
}

void c2c_home_free(struct c2c_home *h)
{
	if (!h->page)
		return;
	if (h->numa_alloc)
		numa_free(h->page, h->len);
	else
		munmap(h->page, h->len);
	h->page = NULL;
}

const char *c2c_home_label(const struct c2c_run *r, int h, char *buf, size_t len)
{
	const struct c2c_home *hm = &r->homes[h];

	if (hm->node < 0)
		snprintf(buf, len, "unknown (%s)", hm->why ? hm->why : "not measured");
	else
		snprintf(buf, len, "node %d (%s, checked with move_pages)", hm->node,
			 hm->asked < 0 ? "first touch by the main thread" : "numa_alloc_onnode");
	return buf;
}

/* --home: r->homes[] asked, r->nr_homes; on a synthetic topology only how many. */
void c2c_homes_parse(struct c2c_run *r, const char *s)
{
	int numa = numa_available() >= 0;
	struct topo_counts tc;

	topo_counts(r->t, &tc);
	r->nodes_total = 1;
	if (topo_is_synthetic(r->t))
		r->nodes_total = tc.numa_nodes > 0 ? tc.numa_nodes : 1;
	else if (numa)
		r->nodes_total = numa_num_configured_nodes() > 0 ? numa_num_configured_nodes() : 1;
	r->nr_homes = 1;
	r->homes[0].asked = -1;
	if (!strcmp(s, "first-touch"))
		return;
	if (!strcmp(s, "each")) {
		r->homes_each = 1;
		if (topo_is_synthetic(r->t) || !numa)
			return;
		r->nr_homes = 0;
		for (int n = 0; n <= numa_max_node() && r->nr_homes < C2C_MAX_HOMES; n++)
			if (numa_bitmask_isbitset(numa_all_nodes_ptr, n))
				r->homes[r->nr_homes++].asked = n;
		if (!r->nr_homes) {
			r->nr_homes = 1;
			r->homes[0].asked = -1;
		}
		return;
	}
	if (!strncmp(s, "node:", 5) && s[5] >= '0' && s[5] <= '9') {
		char *end;
		long k;

		errno = 0;
		k = strtol(s + 5, &end, 10);
		if (!errno && !*end && k < 1 << 20) {
			if (topo_is_synthetic(r->t) && k < r->nodes_total) {
				r->homes[0].asked = (int)k;
				return;
			}
			if (topo_is_synthetic(r->t) && r->nodes_total == 1)
				die("bad value '%s' for --home (the topology has 1 NUMA node: node:0)", s);
			if (topo_is_synthetic(r->t))
				die("bad value '%s' for --home (the topology has %d NUMA nodes: node:0 to node:%d)",
				    s, r->nodes_total, r->nodes_total - 1);
			if (numa && k <= numa_max_node() && numa_bitmask_isbitset(numa_all_nodes_ptr, (int)k)) {
				r->homes[0].asked = (int)k;
				return;
			}
			die("bad value '%s' for --home (no NUMA node %ld with memory here; %d node%s)", s, k,
			    r->nodes_total, r->nodes_total == 1 ? "" : "s");
		}
	}
	die("bad value '%s' for --home (want first-touch, node:K or each)", s);
}
