/* SPDX-License-Identifier: MIT */
/*
 * layouts.c - the named layouts: real EPYC parts in 1 and 2 sockets and the
 * NUMA modes their BIOS offers, each expanded to a hwloc synthetic spec
 * with its cache sizes and to the NUMA distances its firmware reports.
 * topo_load() resolves a name here wherever --topology is taken.
 *
 * One table of parts (the figures, each with its source) and one of modes;
 * a layout is a part x sockets x a mode the part offers, named
 * "PART-Ns" (NPS1, AMD's default) or "PART-Ns-MODE".  The parts' figures are
 * checked against the datasheet counts, written independently, by
 * tests/harness/test_layouts.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "topo.h"

/* Modes, as bits of topo_part.modes. */
enum { M_NPS1 = 1, M_NPS2 = 2, M_NPS4 = 4, M_L3NUMA = 8, M_ALL = 15 };

/* One EPYC part: what the layouts of it share. */
struct topo_part {
	const char *key;	/* the names' prefix: "genoa-9654" */
	const char *part;	/* the product, its family and core */
	int cores;		/* cores per socket */
	int ccds;		/* core dies (CCDs) per socket */
	int l3s;		/* L3s (CCXs) per socket: one per CCD but on Bergamo (two) */
	const char *l3;		/* one L3's size, hwloc synthetic syntax */
	const char *l2;		/* one core's L2 */
	int modes;		/* M_* the BIOS offers for it */
	const char *source;	/* where cores, CCDs, L3 and L2 come from */
};

/*
 * NPS1/2/4 split a socket's memory channels into 1, 2 or 4 interleave sets
 * (whole socket, halves, quadrants), each a node with the CCDs nearest it;
 * "L3 as NUMA" (the BIOS's "LLC as NUMA node", ACPI SRAT L3 cache as NUMA
 * domain) makes every CCX a node of its own.  Every part here divides its
 * CCDs evenly into quadrants (8, 12 or 16 CCDs), so all four are offered:
 * Dell's PowerEdge manuals (R6525, "NPS options per processor SKU") list
 * NPS 4, 2, 1 for 8-CCD parts; AMD's EPYC 9004/9005 BIOS tuning guides and
 * Lenovo Press LP1977 (UEFI settings for 4th Gen EPYC) list NPS0/1/2/4 and
 * the LLC-as-NUMA option.  NPS0 (one node for two sockets) is not modelled.
 */
static const struct topo_part topo_parts[] = {
	/*
	 * AMD EPYC 7763 product page: 64 cores, 128 threads, 256 MB L3.  Zen 3
	 * (Milan): 8 CCDs of 8 cores, one CCX and 32 MB L3 each, 512 KB L2 per
	 * core (AMD EPYC 7003 launch; AnandTech's Milan review; wccftech's 7763
	 * sample: 32 MB L2, 256 MB L3 in all).
	 */
	{ "milan-7763", "AMD EPYC 7763 (Milan, Zen 3)", 64, 8, 8, "32MiB", "512KiB", M_ALL,
	  "AMD product page EPYC 7763: 64 cores, 256 MB L3; Zen 3: 8 CCDs x 8 cores, 1 CCX (32 MB L3) "
	  "each, 512 KB L2/core" },
	/*
	 * AMD EPYC 9654 product page: 96 cores, 192 threads, 384 MB L3.  Zen 4
	 * (Genoa): 12 CCDs of 8 cores, 32 MB L3 each, 1 MB L2 per core (Tom's
	 * Hardware's Bergamo/Genoa table from SemiAnalysis: L3 per CCX 32 MB, CCD
	 * count 12, 1 CCX per CCD, L2 1 MB).
	 */
	{ "genoa-9654", "AMD EPYC 9654 (Genoa, Zen 4)", 96, 12, 12, "32MiB", "1MiB", M_ALL,
	  "AMD product page EPYC 9654: 96 cores, 384 MB L3; 12 CCDs x 8 cores, 1 CCX (32 MB L3) each, "
	  "1 MB L2/core" },
	/*
	 * AMD EPYC 9754 product page: 128 cores, 256 threads, 256 MB L3.  Zen 4c
	 * (Bergamo): 8 CCDs of 16 cores as two CCXs of 8, 16 MB L3 per CCX, 1 MB
	 * L2 per core (Tom's Hardware, "EPYC 'Bergamo' and Zen 4c detailed": CCX
	 * per CCD 2, L3 per CCX 16 MB, CCD count 8, cores per CCD 16).
	 */
	{ "bergamo-9754", "AMD EPYC 9754 (Bergamo, Zen 4c)", 128, 8, 16, "16MiB", "1MiB", M_ALL,
	  "AMD product page EPYC 9754: 128 cores, 256 MB L3; 8 CCDs x 16 cores as 2 CCXs of 8 "
	  "(16 MB L3 each), 1 MB L2/core" },
	/*
	 * AMD EPYC 9755 product page: 128 cores, 256 threads, 512 MB L3.  Zen 5
	 * (Turin): 16 CCDs of 8 cores, 32 MB L3 each, 1 MB L2 per core (Tom's
	 * Hardware, "New Zen 5 128-core EPYC CPU wields 512MB of L3 cache").
	 */
	{ "turin-9755", "AMD EPYC 9755 (Turin, Zen 5)", 128, 16, 16, "32MiB", "1MiB", M_ALL,
	  "AMD product page EPYC 9755: 128 cores, 512 MB L3; 16 CCDs x 8 cores, 1 CCX (32 MB L3) each, "
	  "1 MB L2/core" },
	/*
	 * AMD EPYC 9965 product page: 192 cores, 384 threads, 384 MB L3.  Zen 5c
	 * (Turin dense): 12 CCDs of 16 cores, one CCX with a unified 32 MB L3 per
	 * CCD (die shots reported by HXL, April 2025: one L3 for all 16 cores,
	 * unlike Zen 4c's two CCXs), 1 MB L2 per core.
	 */
	{ "turin-9965", "AMD EPYC 9965 (Turin dense, Zen 5c)", 192, 12, 12, "32MiB", "1MiB", M_ALL,
	  "AMD product page EPYC 9965: 192 cores, 384 MB L3; 12 CCDs x 16 cores, 1 CCX (32 MB L3) each, "
	  "1 MB L2/core" },
};

/*
 * The SLIT the firmware reports, as `numactl -H` prints it: 10 local (the
 * ACPI identity), 12 another node of the same socket, 32 the other socket.
 * Typical values, not AMD datasheet figures: 32 is what every Zen machine's
 * SLIT holds for the other socket (LKML, "sched/topology: Improve load
 * balancing on AMD EPYC", M. Fleming and M. Gorman, June 2019), 10/12/32 what
 * a 2-socket EPYC in NPS4 reports (numactl -H of 2P Genoa-class nodes, as
 * HPC centres' binding tutorials print them).  NPS2 and L3-as-NUMA are
 * given NPS4's 12 within a socket: assumed, no source seen.
 */
#define SLIT_SOURCE "typical SLIT (numactl -H of 2P EPYC in NPS4: 10 local, 12 same socket, 32 other " \
	"socket); 12 for NPS2 and L3-as-NUMA assumed"

/* One NUMA mode. */
struct topo_mode {
	int bit;		/* M_* */
	const char *suffix;	/* "" (NPS1), "-nps2", "-nps4", "-l3numa" */
	const char *name;	/* as the BIOS calls it */
	int per_socket;		/* nodes per socket; 0: one per L3 */
};

static const struct topo_mode topo_modes[] = {
	{ M_NPS1, "", "NPS1", 1 },
	{ M_NPS2, "-nps2", "NPS2", 2 },
	{ M_NPS4, "-nps4", "NPS4", 4 },
	{ M_L3NUMA, "-l3numa", "L3 as NUMA", 0 },
};

#define NR_PARTS (int)(sizeof(topo_parts) / sizeof(topo_parts[0]))
#define NR_MODES (int)(sizeof(topo_modes) / sizeof(topo_modes[0]))

/* Fill *l for part p in s sockets, mode m; 0, or -ENOENT if the part does not offer m. */
static int topo_layout_make(const struct topo_part *p, int s, const struct topo_mode *m,
			    struct topo_layout *l)
{
	const int per_l3 = p->cores / p->l3s;
	int w;

	if (!(p->modes & m->bit))
		return -ENOENT;
	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s-%ds%s", p->key, s, m->suffix);
	l->part = p->part;
	l->sockets = s;
	l->mode = m->name;
	/*
	 * Levels outside in: packages, the NUMA nodes (a level of their own for
	 * NPS2/4, memory attached to each package for NPS1, to each L3 for
	 * L3-as-NUMA), the L3s, one L2 per core, two threads per core (SMT).
	 */
	if (m->per_socket == 1)
		w = snprintf(l->spec, sizeof(l->spec), "pack:%d [numa] l3:%d(size=%s) l2:%d(size=%s) core:1 pu:2",
			     s, p->l3s, p->l3, per_l3, p->l2);
	else if (m->per_socket)
		w = snprintf(l->spec, sizeof(l->spec), "pack:%d numa:%d l3:%d(size=%s) l2:%d(size=%s) core:1 pu:2",
			     s, m->per_socket, p->l3s / m->per_socket, p->l3, per_l3, p->l2);
	else
		w = snprintf(l->spec, sizeof(l->spec), "pack:%d l3:%d(size=%s) [numa] l2:%d(size=%s) core:1 pu:2",
			     s, p->l3s, p->l3, per_l3, p->l2);
	if (w < 0 || (size_t)w >= sizeof(l->spec))
		return -ENAMETOOLONG;
	l->nodes_per_socket = m->per_socket ? m->per_socket : p->l3s;
	l->slit_local = 10;
	l->slit_socket = 12;
	l->slit_remote = 32;
	l->source = p->source;
	l->slit_source = SLIT_SOURCE;
	return 0;
}

int topo_nr_layouts(void)
{
	struct topo_layout l;
	int n = 0;

	while (!topo_layout_at(n, &l))
		n++;
	return n;
}

int topo_layout_at(int i, struct topo_layout *l)
{
	if (i < 0)
		return -ENOENT;
	/* parts outermost, then 1 and 2 sockets, then the modes: the order --layouts prints */
	for (int p = 0; p < NR_PARTS; p++)
		for (int s = 1; s <= 2; s++)
			for (int m = 0; m < NR_MODES; m++)
				if (!topo_layout_make(&topo_parts[p], s, &topo_modes[m], l) && !i--)
					return 0;
	return -ENOENT;
}

int topo_layout_find(const char *name, struct topo_layout *l)
{
	for (int i = 0; !topo_layout_at(i, l); i++)
		if (!strcmp(l->name, name))
			return 0;
	return -ENOENT;
}
