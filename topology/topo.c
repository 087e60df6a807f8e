/* SPDX-License-Identifier: MIT */
/*
 * topo.c - hwloc topology flattened to one record per PU; placement
 * policies as sort orders over those records; distance classes by
 * comparing their ancestors.  See topo.h for the contract.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwloc.h>

#include "topo.h"

/* Levels a placement groups by, outermost first. */
enum { LVL_PKG, LVL_NUMA, LVL_L3, LVL_CORE, NR_LVLS };

struct topo_pu {
	struct topo_pu_info info;
	int key[NR_LVLS];	/* grouping keys: logical indexes, core made unique when missing */
	hwloc_obj_t obj;
};

/* How PU numbers were made (topo_numbering). */
enum { NUM_OS, NUM_LINUX_MODEL, NUM_SPEC_INDEXES, NUM_HWLOC_LOGICAL };

struct topo {
	hwloc_topology_t hw;
	char *spec;		/* as given (a layout's name, a spec, a file); NULL for this machine */
	char *synth;		/* the synthetic spec hwloc loaded (a layout's expanded), NULL if none */
	int has_layout;		/* spec named a layout: layout holds it */
	struct topo_layout layout;	/* that layout */
	int numbering;		/* NUM_*: how info.pu was made */
	int *dist;		/* NUMA distances, nr_numa x nr_numa by logical index; NULL if none */
	int synthetic;		/* not this machine: a spec, or hwloc told to fake it by env */
	int nr_pus;
	struct topo_pu *pu;	/* by logical index */
	int nr_os;		/* by_os[] covers OS indexes [0, nr_os) */
	int *by_os;		/* OS index -> logical index, -1 for a hole */
	struct topo_counts counts;
};

void topo_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static int topo_logical_of(const struct topo *t, int pu)
{
	if (!t || pu < 0 || pu >= t->nr_os)
		return -1;
	return t->by_os[pu];
}

static const struct topo_pu *topo_pu_of(const struct topo *t, int pu)
{
	int l = topo_logical_of(t, pu);

	return l < 0 ? NULL : &t->pu[l];
}

/*
 * The NUMA node local to obj: the memory child of its nearest ancestor that
 * has memory attached.  Not "the first NUMA node whose cpuset covers it":
 * a node attached higher up (CXL or HBM memory at the machine level) covers
 * every PU too, and may come first in logical order.
 */
static hwloc_obj_t topo_local_numa(hwloc_obj_t obj)
{
	for (; obj; obj = obj->parent) {
		hwloc_obj_t m = obj->memory_first_child;

		/* Memory-side caches sit between an object and its NUMA node. */
		while (m && m->type != HWLOC_OBJ_NUMANODE)
			m = m->memory_first_child;
		if (m)
			return m;
	}
	return NULL;
}

static int topo_ancestor_index(hwloc_topology_t hw, hwloc_obj_type_t type, hwloc_obj_t pu)
{
	hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(hw, type, pu);

	return a ? (int)a->logical_index : -1;
}

/*
 * On this machine keep only the PUs the calling thread may run on, so a
 * placement never hands out a PU that binding would refuse (taskset,
 * cgroup cpusets already being removed by hwloc itself).
 */
static int topo_restrict_to_affinity(hwloc_topology_t hw)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int ret = 0;

	if (!set)
		return -ENOMEM;
	if (!hwloc_get_cpubind(hw, set, HWLOC_CPUBIND_THREAD) &&
	    hwloc_bitmap_intersects(set, hwloc_topology_get_topology_cpuset(hw)) &&
	    !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(hw), set))
		ret = hwloc_topology_restrict(hw, set, 0) ? -errno : 0;
	hwloc_bitmap_free(set);
	return ret;
}

/* Fill t->pu[], t->by_os[] and t->counts from the loaded hwloc topology. */
static int topo_flatten(struct topo *t)
{
	hwloc_topology_t hw = t->hw;
	int nr_cores = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_CORE);
	int *core_seen = calloc(nr_cores > 0 ? nr_cores : 1, sizeof(int));
	int max_os = -1;

	t->nr_pus = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PU);
	if (t->nr_pus < 1 || !core_seen) {
		free(core_seen);
		return -ENODEV;
	}
	t->pu = calloc(t->nr_pus, sizeof(*t->pu));
	if (!t->pu) {
		free(core_seen);
		return -ENOMEM;
	}
	for (int i = 0; i < t->nr_pus; i++) {
		hwloc_obj_t obj = hwloc_get_obj_by_type(hw, HWLOC_OBJ_PU, i);
		hwloc_obj_t numa = topo_local_numa(obj);
		struct topo_pu *p = &t->pu[i];
		struct topo_pu_info *in = &p->info;

		p->obj = obj;
		in->pu = (int)obj->os_index;
		in->logical = i;
		in->core = topo_ancestor_index(hw, HWLOC_OBJ_CORE, obj);
		in->l3 = topo_ancestor_index(hw, HWLOC_OBJ_L3CACHE, obj);
		in->package = topo_ancestor_index(hw, HWLOC_OBJ_PACKAGE, obj);
		in->numa = numa ? (int)numa->logical_index : -1;
		in->numa_os = numa ? (int)numa->os_index : -1;
		/* PUs come in logical order, so a core's PUs get ranks 0, 1, ... in order. */
		in->smt = in->core >= 0 ? core_seen[in->core]++ : 0;
		if (in->smt + 1 > t->counts.max_smt)
			t->counts.max_smt = in->smt + 1;
		p->key[LVL_PKG] = in->package;
		p->key[LVL_NUMA] = in->numa;
		p->key[LVL_L3] = in->l3;
		/* Without a core level every PU is its own core. */
		p->key[LVL_CORE] = in->core >= 0 ? in->core : nr_cores + i;
		if (in->pu > max_os)
			max_os = in->pu;
	}
	free(core_seen);
	if (t->numbering == NUM_LINUX_MODEL) {
		int *smt = malloc(sizeof(int) * t->nr_pus), *cpu = malloc(sizeof(int) * t->nr_pus);

		if (!smt || !cpu) {
			free(smt);
			free(cpu);
			return -ENOMEM;
		}
		for (int i = 0; i < t->nr_pus; i++)
			smt[i] = t->pu[i].info.smt;
		topo_linux_numbering(smt, t->nr_pus, cpu);
		max_os = t->nr_pus - 1;	/* a permutation of 0..nr_pus-1 */
		for (int i = 0; i < t->nr_pus; i++)
			t->pu[i].info.pu = cpu[i];
		free(smt);
		free(cpu);
	}
	t->nr_os = max_os + 1;
	t->by_os = malloc(sizeof(int) * t->nr_os);
	if (!t->by_os)
		return -ENOMEM;
	for (int i = 0; i < t->nr_os; i++)
		t->by_os[i] = -1;
	for (int i = 0; i < t->nr_pus; i++)
		t->by_os[t->pu[i].info.pu] = i;
	t->counts.packages = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PACKAGE);
	t->counts.numa_nodes = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_NUMANODE);
	t->counts.l3s = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_L3CACHE);
	t->counts.cores = nr_cores > 0 ? nr_cores : 0;
	t->counts.pus = t->nr_pus;
	return 0;
}

/* An XML file when it says so by its name or exists; anything else is a synthetic string. */
static int topo_spec_is_xml(const char *spec)
{
	size_t len = strlen(spec);
	struct stat st;

	return (len > 4 && !strcmp(spec + len - 4, ".xml")) || !stat(spec, &st);
}

/* Skip from an opening bracket at s to just past its match (or to the end). */
static const char *topo_skip_group(const char *s, char open, char close)
{
	int depth = 0;

	for (; *s; s++) {
		if (*s == open)
			depth++;
		else if (*s == close && --depth == 0)
			return s + 1;
	}
	return s;
}

uint64_t topo_synthetic_pus(const char *spec)
{
	uint64_t pus = 1;
	const char *s = spec;
	int levels = 0;

	while (*s) {
		const char *start, *count;
		char *end;
		uint64_t n;

		if (*s == ' ' || *s == '\t' || *s == '\n') {
			s++;
			continue;
		}
		if (*s == '[') {	/* a memory child ([numa]): no PUs of its own */
			s = topo_skip_group(s, '[', ']');
			continue;
		}
		start = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '(')
			s++;
		count = start;
		for (const char *c = start; c < s; c++)
			if (*c == ':')
				count = c + 1;
		if (count == s || *count < '0' || *count > '9')
			return 0;
		errno = 0;
		n = strtoull(count, &end, 10);
		if (end != s)
			return 0;
		if (errno == ERANGE || n == 0 || pus > UINT64_MAX / n)
			pus = n == 0 ? 0 : UINT64_MAX;	/* saturate; hwloc refuses a 0 itself */
		else
			pus *= n;
		if (*s == '(')	/* attributes: (size=32MB), (indexes=...) */
			s = topo_skip_group(s, '(', ')');
		levels++;
	}
	return levels ? pus : 0;
}

/*
 * Refuse what hwloc would spend minutes or all memory on: a synthetic spec
 * over TOPO_MAX_PUS, or an "XML file" that is not a regular file (reading
 * /dev/zero never ends) or is larger than any real machine's lstopo output.
 */
#define TOPO_MAX_XML_BYTES (256u << 20)
static int topo_check_size(const char *spec, int xml, char *err, size_t errlen)
{
	struct stat st;
	uint64_t pus;

	if (xml) {
		if (stat(spec, &st))
			return 0;	/* hwloc says "no such file" */
		if (!S_ISREG(st.st_mode)) {
			topo_err(err, errlen, "bad topology '%s': not a regular file", spec);
			return -1;
		}
		if ((uint64_t)st.st_size > TOPO_MAX_XML_BYTES) {
			topo_err(err, errlen, "bad topology '%s': %lld bytes, over the %u MiB an lstopo XML "
				 "file of %d PUs needs", spec, (long long)st.st_size,
				 TOPO_MAX_XML_BYTES >> 20, TOPO_MAX_PUS);
			return -1;
		}
		return 0;
	}
	pus = topo_synthetic_pus(spec);
	if (pus > TOPO_MAX_PUS) {
		if (pus == UINT64_MAX)
			topo_err(err, errlen, "bad topology '%s': over 2^64 PUs, the most is %d",
				 spec, TOPO_MAX_PUS);
		else
			topo_err(err, errlen, "bad topology '%s': %llu PUs, the most is %d", spec,
				 (unsigned long long)pus, TOPO_MAX_PUS);
		return -1;
	}
	return 0;
}

void topo_linux_numbering(const int *smt, int n, int *cpu)
{
	int next = 0, max = 0;

	for (int i = 0; i < n; i++)
		if (smt[i] > max)
			max = smt[i];
	for (int r = 0; r <= max; r++)
		for (int i = 0; i < n; i++)
			if (smt[i] == r)
				cpu[i] = next++;
}

/*
 * A layout's SLIT into hwloc, so that it is read back as an XML file's or
 * this machine's are: nodes of one package at slit_socket, of two at
 * slit_remote.  0 or -errno.
 */
static int topo_add_layout_distances(struct topo *t)
{
	hwloc_topology_t hw = t->hw;
	int n = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_NUMANODE), ret = -ENOMEM;
	hwloc_obj_t *objs = calloc(n > 0 ? n : 1, sizeof(*objs));
	hwloc_uint64_t *val = calloc((size_t)(n > 0 ? n : 1) * (n > 0 ? n : 1), sizeof(*val));
	hwloc_distances_add_handle_t h;

	if (!objs || !val)
		goto out;
	ret = 0;
	if (n < 2)	/* hwloc takes no matrix of one: topo_read_distances gives it slit_local */
		goto out;
	for (int i = 0; i < n; i++)
		objs[i] = hwloc_get_obj_by_type(hw, HWLOC_OBJ_NUMANODE, i);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(hw, HWLOC_OBJ_PACKAGE, objs[i]);
			hwloc_obj_t b = hwloc_get_ancestor_obj_by_type(hw, HWLOC_OBJ_PACKAGE, objs[j]);

			val[i * n + j] = i == j ? t->layout.slit_local :
					 a == b ? t->layout.slit_socket : t->layout.slit_remote;
		}
	ret = -EINVAL;
	h = hwloc_distances_add_create(hw, "NUMALatency", HWLOC_DISTANCES_KIND_FROM_USER |
				       HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0);
	if (!h)
		goto out;
	if (hwloc_distances_add_values(hw, h, n, objs, val, 0) || hwloc_distances_add_commit(hw, h, 0))
		goto out;
	ret = 0;
out:
	free(objs);
	free(val);
	return ret;
}

/* The NUMA latency matrix hwloc has (sysfs, an XML file, a layout) into t->dist; none is no error. */
static void topo_read_distances(struct topo *t)
{
	struct hwloc_distances_s *d[1];
	unsigned nr = 1;
	int n = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_NUMANODE);

	if (n == 1 && t->has_layout && (t->dist = malloc(sizeof(int)))) {
		t->dist[0] = t->layout.slit_local;
		return;
	}
	if (n < 1 || hwloc_distances_get_by_type(t->hw, HWLOC_OBJ_NUMANODE, &nr, d,
						 HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) || nr < 1)
		return;
	if ((int)d[0]->nbobjs == n && (t->dist = malloc(sizeof(int) * n * n))) {
		for (int i = 0; i < n * n; i++)
			t->dist[i] = -1;
		for (unsigned i = 0; i < d[0]->nbobjs; i++)
			for (unsigned j = 0; j < d[0]->nbobjs; j++) {
				hwloc_obj_t a = d[0]->objs[i], b = d[0]->objs[j];

				if (a && b && a->logical_index < (unsigned)n && b->logical_index < (unsigned)n)
					t->dist[a->logical_index * n + b->logical_index] =
						(int)d[0]->values[i * d[0]->nbobjs + j];
			}
	}
	hwloc_distances_release(t->hw, d[0]);
}

struct topo *topo_load(const char *spec, char *err, size_t errlen)
{
	struct topo *t = calloc(1, sizeof(*t));
	int xml = 0, ret;

	if (!t) {
		topo_err(err, errlen, "cannot load topology: out of memory");
		return NULL;
	}
	/* A layout's name first: a name is not a file, whatever the directory holds. */
	if (spec && !topo_layout_find(spec, &t->layout))
		t->has_layout = 1;
	else
		xml = spec && topo_spec_is_xml(spec);
	if (spec) {
		t->spec = strdup(spec);
		t->synth = xml ? NULL : strdup(t->has_layout ? t->layout.spec : spec);
		if (!t->spec || (!xml && !t->synth)) {
			topo_err(err, errlen, "cannot load topology: out of memory");
			goto fail_early;
		}
		if (topo_check_size(xml ? spec : t->synth, xml, err, errlen))
			goto fail_early;
		/*
		 * hwloc numbers a synthetic machine's PUs logically; Linux does not
		 * (topo_linux_numbering).  A layout models a real machine, so it gets
		 * Linux's numbering; a hand-written spec keeps hwloc's, as it always
		 * had (every placement test and plan written for one says so).
		 */
		if (!xml)
			t->numbering = t->has_layout ? NUM_LINUX_MODEL :
				       strstr(t->synth, "indexes=") ? NUM_SPEC_INDEXES : NUM_HWLOC_LOGICAL;
	}
	if (hwloc_topology_init(&t->hw)) {
		topo_err(err, errlen, "cannot load topology: out of memory");
		goto fail_early;
	}
	if (spec) {
		ret = xml ? hwloc_topology_set_xml(t->hw, spec) : hwloc_topology_set_synthetic(t->hw, t->synth);
		if (ret) {
			if (xml)
				topo_err(err, errlen, "bad topology '%s': cannot read it as an lstopo XML file (%s)",
					 spec, errno == ENOENT ? "no such file" : "not valid hwloc XML");
			else
				topo_err(err, errlen, "bad topology '%s': not a hwloc synthetic description "
					 "(like \"pack:2 [numa] l3:12 core:8 pu:2\"), a named layout (ctrbench topo "
					 "--layouts) nor an XML file", spec);
			goto fail;
		}
	}
	if (hwloc_topology_load(t->hw)) {
		topo_err(err, errlen, "cannot load topology '%s': %s", spec ? spec : "this machine",
			 strerror(errno));
		goto fail;
	}
	if (t->has_layout && (ret = topo_add_layout_distances(t))) {
		topo_err(err, errlen, "cannot load topology '%s': its NUMA distances: %s", spec, strerror(-ret));
		goto fail;
	}
	/*
	 * HWLOC_XMLFILE / HWLOC_SYNTHETIC in the environment make hwloc load
	 * something else than this machine even without a spec: trust
	 * hwloc's own verdict, so such a topology is never bound to.
	 */
	t->synthetic = spec || !hwloc_topology_is_thissystem(t->hw);
	if (!t->synthetic && (ret = topo_restrict_to_affinity(t->hw))) {
		topo_err(err, errlen, "cannot restrict topology to the affinity mask: %s", strerror(-ret));
		goto fail;
	}
	if ((ret = topo_flatten(t))) {
		topo_err(err, errlen, "cannot load topology '%s': %s", spec ? spec : "this machine",
			 ret == -ENODEV ? "no PUs in it" : strerror(-ret));
		goto fail;
	}
	if (spec && t->nr_pus > TOPO_MAX_PUS) {	/* an XML file of a bigger machine */
		topo_err(err, errlen, "bad topology '%s': %d PUs, the most is %d", spec, t->nr_pus,
			 TOPO_MAX_PUS);
		goto fail;
	}
	topo_read_distances(t);
	return t;
fail_early:
	free(t->spec);
	free(t->synth);
	free(t);
	return NULL;
fail:
	topo_free(t);
	return NULL;
}

void topo_free(struct topo *t)
{
	if (!t)
		return;
	if (t->hw)
		hwloc_topology_destroy(t->hw);
	free(t->pu);
	free(t->by_os);
	free(t->spec);
	free(t->synth);
	free(t->dist);
	free(t);
}

int topo_is_synthetic(const struct topo *t)
{
	return t->synthetic;
}

long long topo_cache_bytes(const struct topo *t, int level)
{
	static const hwloc_obj_type_t type[] = { HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE };
	hwloc_obj_t o;

	if (level < 1 || level > 3)
		return 0;
	/*
	 * A synthetic spec without "size=" gets sizes hwloc makes up (16 MiB
	 * for any L3): not the modelled machine's, so none.  An XML file or
	 * this machine says what was read from the hardware.
	 */
	if (t->synth ? !strstr(t->synth, "size=") : t->synthetic && !t->spec)
		return 0;
	o = hwloc_get_obj_by_type(t->hw, type[level - 1], 0);
	return o && o->attr ? (long long)o->attr->cache.size : 0;
}

const struct topo_layout *topo_layout_of(const struct topo *t)
{
	return t->has_layout ? &t->layout : NULL;
}

const char *topo_numbering(const struct topo *t)
{
	switch (t->numbering) {
	case NUM_LINUX_MODEL:
		return "Linux's, modelled (first thread of every core, then the siblings)";
	case NUM_SPEC_INDEXES:
		return "the spec's indexes= (hwloc's OS index)";
	case NUM_HWLOC_LOGICAL:
		return "hwloc's logical order (a spec: core c has 2c, 2c+1), not Linux's; "
		       "a named layout models Linux's";
	}
	return "Linux's (the OS index, as taskset and numactl take it)";
}

int topo_numa_distance(const struct topo *t, int a, int b)
{
	const int n = t->counts.numa_nodes;

	if (!t->dist || a < 0 || b < 0 || a >= n || b >= n)
		return -1;
	return t->dist[a * n + b];
}

const char *topo_spec(const struct topo *t)
{
	if (t->spec)
		return t->spec;
	return t->synthetic ? "set by the HWLOC_XMLFILE/HWLOC_SYNTHETIC environment" : "this machine";
}

int topo_nr_pus(const struct topo *t)
{
	return t->nr_pus;
}

void topo_counts(const struct topo *t, struct topo_counts *c)
{
	*c = t->counts;
}

int topo_pu_info(const struct topo *t, int pu, struct topo_pu_info *info)
{
	const struct topo_pu *p = topo_pu_of(t, pu);

	if (!p)
		return -EINVAL;
	*info = p->info;
	return 0;
}

int topo_pu_at(const struct topo *t, int i, struct topo_pu_info *info)
{
	if (i < 0 || i >= t->nr_pus)
		return -EINVAL;
	*info = t->pu[i].info;
	return 0;
}

int topo_numa_node_of_pu(const struct topo *t, int pu)
{
	const struct topo_pu *p = topo_pu_of(t, pu);

	return p && p->info.numa_os >= 0 ? p->info.numa_os : -EINVAL;
}

long long topo_numa_memory(const struct topo *t, int node)
{
	hwloc_obj_t n = node < 0 ? NULL : hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_NUMANODE, node);

	return n ? (long long)n->attr->numanode.local_memory : -1;
}

/* ---- placement ---------------------------------------------------------- */

/*
 * Every policy but list and scatter is a sort of the PUs by a tuple of
 * fields, compared left to right; the last field is always the logical PU
 * index, so orders are total and ties follow hwloc's logical order.
 */
enum topo_field { F_PKG, F_NUMA, F_L3, F_CORE, F_SMT, F_END };

struct topo_sort {
	const struct topo *t;
	const enum topo_field *fields;	/* ends with F_END */
};

static int topo_field(const struct topo_pu *p, enum topo_field f)
{
	return f == F_SMT ? p->info.smt : p->key[f];	/* F_PKG..F_CORE are LVL_* */
}

static int topo_cmp(const void *a, const void *b, void *arg)
{
	const struct topo_sort *s = arg;
	const struct topo_pu *pa = &s->t->pu[*(const int *)a], *pb = &s->t->pu[*(const int *)b];

	for (const enum topo_field *f = s->fields; *f != F_END; f++) {
		int x = topo_field(pa, *f), y = topo_field(pb, *f);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return pa->info.logical - pb->info.logical;
}

static void topo_sort_by(const struct topo *t, int *order, int n, const enum topo_field *fields)
{
	struct topo_sort s = { t, fields };

	qsort_r(order, n, sizeof(int), topo_cmp, &s);
}

/*
 * Hierarchical round-robin: items[0..n) (logical PU indexes sorted by
 * package, NUMA, L3, core) split into the groups of level lvl; each group
 * is ordered the same way one level down, then out[] takes the first of
 * every group in turn, then the second of every group, and so on.  So
 * consecutive threads differ at the outermost level that still has a
 * choice.  tmp[] is scratch of n entries.
 */
static void topo_interleave(const struct topo *t, const int *items, int n, int lvl, int *out,
			    int *tmp)
{
	int nr_groups = 0, *start, left;

	if (lvl == NR_LVLS || n <= 1) {
		memcpy(out, items, sizeof(int) * n);
		return;
	}
	start = malloc(sizeof(int) * (n + 1));
	if (!start) {
		/* Out of memory here is not worth an error path: fall back to tree order. */
		memcpy(out, items, sizeof(int) * n);
		return;
	}
	for (int i = 0; i < n; i++)
		if (!i || t->pu[items[i]].key[lvl] != t->pu[items[i - 1]].key[lvl])
			start[nr_groups++] = i;
	start[nr_groups] = n;
	/* Each group ordered into tmp[] (its own slice of out[] as scratch), then dealt out. */
	for (int g = 0; g < nr_groups; g++)
		topo_interleave(t, items + start[g], start[g + 1] - start[g], lvl + 1, tmp + start[g],
				out + start[g]);
	left = n;
	for (int round = 0, k = 0; left; round++)
		for (int g = 0; g < nr_groups; g++)
			if (start[g] + round < start[g + 1]) {
				out[k++] = tmp[start[g] + round];
				left--;
			}
	free(start);
}

/* Scatter: the first PU of every core dealt round-robin down the tree, then the siblings. */
static int topo_scatter_order(const struct topo *t, int *order)
{
	static const enum topo_field tree[] = { F_PKG, F_NUMA, F_L3, F_CORE, F_END };
	int *items = malloc(sizeof(int) * t->nr_pus), *tmp = malloc(sizeof(int) * t->nr_pus);
	int done = 0;

	if (!items || !tmp) {
		free(items);
		free(tmp);
		return -ENOMEM;
	}
	for (int r = 0; r < t->counts.max_smt; r++) {
		int n = 0;

		for (int i = 0; i < t->nr_pus; i++)
			if (t->pu[i].info.smt == r)
				items[n++] = i;
		topo_sort_by(t, items, n, tree);
		topo_interleave(t, items, n, LVL_PKG, order + done, tmp);
		done += n;
	}
	free(items);
	free(tmp);
	return 0;
}

/*
 * One item of a list (at *s, up to ',' or the end): N or N-M, each in the
 * topology.  Appends to *v, growing it.  Returns 0 or -EINVAL with err set.
 */
static int topo_parse_item(const struct topo *t, const char *policy, const char **s, int **v,
			   int *n, int *cap, char *err, size_t errlen)
{
	const char *p = *s;
	long lo, hi;
	char *end;

	if (*p < '0' || *p > '9') {
		topo_err(err, errlen, "bad placement '%s': %s", policy,
			 *p == ',' || !*p ? "empty item in the list" : "want PU numbers like list:0,2,4-7");
		return -EINVAL;
	}
	errno = 0;
	lo = hi = strtol(p, &end, 10);
	if (!errno && *end == '-') {
		if (end[1] < '0' || end[1] > '9') {
			topo_err(err, errlen, "bad placement '%s': range '%.*s' has no end", policy,
				 (int)(end + 1 - p), p);
			return -EINVAL;
		}
		hi = strtol(end + 1, &end, 10);
	}
	if (errno || (*end && *end != ',')) {
		topo_err(err, errlen, "bad placement '%s': want PU numbers like list:0,2,4-7", policy);
		return -EINVAL;
	}
	if (lo > hi) {
		topo_err(err, errlen, "bad placement '%s': range %ld-%ld runs backwards", policy, lo, hi);
		return -EINVAL;
	}
	for (long pu = lo; pu <= hi; pu++) {
		if (pu > INT_MAX || topo_logical_of(t, (int)pu) < 0) {
			char have[128];
			int *os = malloc(sizeof(int) * t->nr_pus);

			for (int i = 0; os && i < t->nr_pus; i++)
				os[i] = t->pu[i].info.pu;
			topo_format_list(os, os ? t->nr_pus : 0, have, sizeof(have));
			free(os);
			topo_err(err, errlen, "bad placement '%s': PU %ld is not in the topology (PUs %s)",
				 policy, pu, have);
			return -EINVAL;
		}
		if (*n == *cap) {
			int *nv = realloc(*v, sizeof(int) * (*cap = *cap ? *cap * 2 : 16));

			if (!nv) {
				topo_err(err, errlen, "placement '%s': out of memory", policy);
				return -ENOMEM;
			}
			*v = nv;
		}
		(*v)[(*n)++] = (int)pu;
	}
	*s = end;
	return 0;
}

/* "list:..." into a malloc'ed array of OS indexes; 0 or -errno with err set. */
static int topo_parse_list(const struct topo *t, const char *policy, int **v, int *n, char *err,
			   size_t errlen)
{
	const char *s = policy + strlen("list:");
	int cap = 0, ret;

	*v = NULL;
	*n = 0;
	for (;;) {
		ret = topo_parse_item(t, policy, &s, v, n, &cap, err, errlen);
		if (ret)
			break;
		if (!*s)
			return 0;
		s++;	/* the ',' */
	}
	free(*v);
	*v = NULL;
	return ret;
}

int topo_place(const struct topo *t, const char *policy, int n, int *pus, int *wrapped,
	       char *err, size_t errlen)
{
	static const enum topo_field compact[] = { F_SMT, F_CORE, F_END };
	static const enum topo_field smt[] = { F_CORE, F_SMT, F_END };
	static const enum topo_field ccx[] = { F_PKG, F_NUMA, F_L3, F_SMT, F_CORE, F_END };
	static const enum topo_field numa[] = { F_PKG, F_NUMA, F_SMT, F_L3, F_CORE, F_END };
	const enum topo_field *fields = NULL;
	int *order = NULL, len = t->nr_pus, ret = 0;

	if (!policy) {
		topo_err(err, errlen, "no placement given");
		return -EINVAL;
	}
	if (n < 1) {
		topo_err(err, errlen, "placement '%s' for %d threads: want at least 1", policy, n);
		return -EINVAL;
	}
	if (!strcmp(policy, "compact"))
		fields = compact;
	else if (!strcmp(policy, "smt"))
		fields = smt;
	else if (!strcmp(policy, "ccx"))
		fields = ccx;
	else if (!strcmp(policy, "numa"))
		fields = numa;
	else if (strcmp(policy, "scatter") && strncmp(policy, "list:", 5)) {
		topo_err(err, errlen, "unknown placement '%s' (want compact, scatter, ccx, numa, smt "
			 "or list:CPUS)", policy);
		return -EINVAL;
	}

	if (!strncmp(policy, "list:", 5)) {
		ret = topo_parse_list(t, policy, &order, &len, err, errlen);
		if (ret)
			return ret;
	} else {
		order = malloc(sizeof(int) * t->nr_pus);
		if (!order) {
			topo_err(err, errlen, "placement '%s': out of memory", policy);
			return -ENOMEM;
		}
		if (fields) {
			for (int i = 0; i < t->nr_pus; i++)
				order[i] = i;
			topo_sort_by(t, order, t->nr_pus, fields);
		} else if ((ret = topo_scatter_order(t, order))) {
			topo_err(err, errlen, "placement '%s': out of memory", policy);
			free(order);
			return ret;
		}
		/* Logical indexes to OS indexes. */
		for (int i = 0; i < t->nr_pus; i++)
			order[i] = t->pu[order[i]].info.pu;
	}
	for (int i = 0; i < n; i++)
		pus[i] = order[i % len];
	if (wrapped)
		*wrapped = n > len;
	free(order);
	return 0;
}

/* ---- distance classes --------------------------------------------------- */

static const char *const topo_class_names[TOPO_NR_CLASSES] = {
	[TOPO_CLASS_SAME] = "same", [TOPO_CLASS_SMT] = "smt", [TOPO_CLASS_CCX] = "ccx",
	[TOPO_CLASS_NUMA] = "numa", [TOPO_CLASS_PACKAGE] = "package", [TOPO_CLASS_REMOTE] = "remote",
};

const char *topo_class_name(int cls)
{
	return cls >= 0 && cls < TOPO_NR_CLASSES ? topo_class_names[cls] : "?";
}

/* Same object at a level: both have one (>= 0) and it is the same one. */
static int topo_same(int a, int b)
{
	return a >= 0 && a == b;
}

int topo_class_of(const struct topo *t, int pu_a, int pu_b)
{
	const struct topo_pu *a = topo_pu_of(t, pu_a), *b = topo_pu_of(t, pu_b);

	if (!a || !b)
		return -EINVAL;
	if (a == b)
		return TOPO_CLASS_SAME;
	if (topo_same(a->info.core, b->info.core))
		return TOPO_CLASS_SMT;
	if (topo_same(a->info.l3, b->info.l3))
		return TOPO_CLASS_CCX;
	if (topo_same(a->info.numa, b->info.numa))
		return TOPO_CLASS_NUMA;
	/* A machine without a package level is one package. */
	if (topo_same(a->info.package, b->info.package) || (a->info.package < 0 && b->info.package < 0))
		return TOPO_CLASS_PACKAGE;
	return TOPO_CLASS_REMOTE;
}

int topo_pair_counts(const struct topo *t, const int *pus, int n, long counts[TOPO_NR_CLASSES])
{
	for (int c = 0; c < TOPO_NR_CLASSES; c++)
		counts[c] = 0;
	for (int i = 0; i < n; i++)
		if (!topo_pu_of(t, pus[i]))
			return -EINVAL;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			counts[topo_class_of(t, pus[i], pus[j])]++;
	return 0;
}

/* ---- binding ------------------------------------------------------------ */

int topo_bind_self(const struct topo *t, int pu)
{
	const struct topo_pu *p = topo_pu_of(t, pu);

	if (topo_is_synthetic(t))
		return -EOPNOTSUPP;
	if (!p)
		return -EINVAL;
	if (hwloc_set_cpubind(t->hw, p->obj->cpuset, HWLOC_CPUBIND_THREAD))
		return errno ? -errno : -EINVAL;
	return 0;
}

/* ---- printing ----------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

char *topo_format_list(const int *v, int n, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	for (int i = 0; i < n; ) {
		int j = i;
		int w;

		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		w = j > i ? snprintf(buf + used, len - used, "%s%d-%d", i ? "," : "", v[i], v[j]) :
			    snprintf(buf + used, len - used, "%s%d", i ? "," : "", v[i]);
		if (w < 0 || (size_t)w >= len - used) {
			/* Truncated: end in "..." when there is room, so nobody reads a short list as whole. */
			if (len >= 4)
				strcpy(buf + len - 4, "...");
			return buf;
		}
		used += w;
		i = j + 1;
	}
	return buf;
}

static void topo_print_mem(long long bytes, FILE *f)
{
	if (bytes <= 0)
		fputs("memory not given", f);
	else if (bytes >= 1LL << 30)
		fprintf(f, "%.1f GiB", (double)bytes / (1LL << 30));
	else
		fprintf(f, "%lld MiB", bytes >> 20);
}

/* One L3 (or, without L3s, one NUMA node's cores): its cores and PUs as ranges. */
static void topo_print_group(const struct topo *t, const int *order, int n, const char *indent,
			     FILE *f)
{
	int *cores = calloc(n, sizeof(int)), *os = calloc(n, sizeof(int)), *lg = calloc(n, sizeof(int));
	char cbuf[256], pbuf[256], lbuf[256];
	int nc = 0;

	if (!cores || !os || !lg) {
		free(cores);
		free(os);
		free(lg);
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct topo_pu_info *in = &t->pu[order[i]].info;

		if (in->core >= 0 && (!nc || cores[nc - 1] != in->core))
			cores[nc++] = in->core;
		os[i] = in->pu;
		lg[i] = in->logical;
	}
	qsort(os, n, sizeof(int), cmp_int);
	qsort(lg, n, sizeof(int), cmp_int);
	fprintf(f, "%s", indent);
	if (t->pu[order[0]].info.l3 >= 0)
		fprintf(f, "L3 #%d: ", t->pu[order[0]].info.l3);
	if (nc)
		fprintf(f, "%s %s, ", nc == 1 ? "core" : "cores", topo_format_list(cores, nc, cbuf, sizeof(cbuf)));
	fprintf(f, "%s %s (hwloc PU L#%s)\n", n == 1 ? "CPU" : "CPUs", topo_format_list(os, n, pbuf, sizeof(pbuf)),
		topo_format_list(lg, n, lbuf, sizeof(lbuf)));
	free(cores);
	free(os);
	free(lg);
}

/* "1 MiB", "32 MiB", "512 KiB" */
static void topo_print_size(long long bytes, FILE *f)
{
	if (bytes >= 1LL << 20 && !(bytes % (1LL << 20)))
		fprintf(f, "%lld MiB", bytes >> 20);
	else if (bytes >= 1LL << 10 && !(bytes % (1LL << 10)))
		fprintf(f, "%lld KiB", bytes >> 10);
	else
		fprintf(f, "%lld B", bytes);
}

/* The cache sizes hwloc has, one line; "not given" for a spec without size=. */
static void topo_print_caches(const struct topo *t, FILE *f)
{
	int any = 0;

	fputs("caches:", f);
	for (int level = 1; level <= 3; level++) {
		long long b = topo_cache_bytes(t, level);

		if (b <= 0)
			continue;
		fprintf(f, "%s L%d ", any++ ? "," : "", level);
		topo_print_size(b, f);
		fputs(level == 3 ? " per L3" : " per core", f);
	}
	fputs(any ? "\n" : " sizes not given (a synthetic spec without size=)\n", f);
}

/*
 * The NUMA distances: the matrix for up to 8 nodes (fits 100 columns),
 * else each node's row with the nodes at each distance grouped.
 */
static void topo_print_distances(const struct topo *t, FILE *f)
{
	const int n = t->counts.numa_nodes;
	const struct topo_layout *l = topo_layout_of(t);

	if (!t->dist) {
		fprintf(f, "NUMA distances: none known (hwloc has none for this topology)\n");
		return;
	}
	fprintf(f, "NUMA distances (SLIT, 10 = local)%s\n", l ? ":" : ", as hwloc read them:");
	if (l)
		fprintf(f, "  source: %s\n", l->slit_source);
	if (n <= 8) {
		fprintf(f, "  node");
		for (int j = 0; j < n; j++)
			fprintf(f, " %4d", j);
		fputc('\n', f);
		for (int i = 0; i < n; i++) {
			fprintf(f, "  %4d", i);
			for (int j = 0; j < n; j++)
				fprintf(f, " %4d", t->dist[i * n + j]);
			fputc('\n', f);
		}
		return;
	}
	for (int i = 0; i < n; i++) {
		int *seen = calloc(n, sizeof(int)), *nodes = malloc(sizeof(int) * n);
		char buf[256];

		if (!seen || !nodes) {
			free(seen);
			free(nodes);
			return;
		}
		fprintf(f, "  node %d:", i);
		for (int j = 0, first = 1; j < n; j++) {
			int v = t->dist[i * n + j], k = 0;

			if (seen[j])
				continue;
			for (int m = j; m < n; m++)
				if (t->dist[i * n + m] == v) {
					seen[m] = 1;
					nodes[k++] = m;
				}
			fprintf(f, "%s %d to %s %s", first ? "" : ",", v, k == 1 ? "node" : "nodes",
				topo_format_list(nodes, k, buf, sizeof(buf)));
			first = 0;
		}
		fputc('\n', f);
		free(seen);
		free(nodes);
	}
}

void topo_print_tree(const struct topo *t, FILE *f)
{
	static const enum topo_field tree[] = { F_PKG, F_NUMA, F_L3, F_CORE, F_SMT, F_END };
	const struct topo_counts *c = &t->counts;
	const struct topo_layout *l = topo_layout_of(t);
	int *order = malloc(sizeof(int) * t->nr_pus);

	fprintf(f, "topology: %s%s\n", topo_spec(t),
		topo_is_synthetic(t) ? " (not this machine: for planning, runs refuse it)" : "");
	if (l)
		fprintf(f, "layout: %s, %d socket%s, %s: %s\n  source: %s\n", l->part, l->sockets,
			l->sockets == 1 ? "" : "s", l->mode, l->spec, l->source);
	fprintf(f, "%d package%s, %d NUMA node%s, %d L3%s, %d cores, %d PUs (%d per core)\n",
		c->packages, c->packages == 1 ? "" : "s", c->numa_nodes, c->numa_nodes == 1 ? "" : "s",
		c->l3s, c->l3s == 1 ? "" : "s", c->cores, c->pus, c->max_smt);
	fprintf(f, "CPU numbers: %s; L# is hwloc's logical PU index\n", topo_numbering(t));
	topo_print_caches(t, f);
	topo_print_distances(t, f);
	if (!order)
		return;
	for (int i = 0; i < t->nr_pus; i++)
		order[i] = i;
	topo_sort_by(t, order, t->nr_pus, tree);
	for (int i = 0, g = 0; i < t->nr_pus; i = g) {
		const struct topo_pu_info *in = &t->pu[order[i]].info, *prev = i ? &t->pu[order[i - 1]].info : NULL;

		if (!prev || prev->package != in->package) {
			if (in->package >= 0)
				fprintf(f, "package #%d\n", in->package);
			else
				fprintf(f, "no package level\n");
		}
		if (!prev || prev->package != in->package || prev->numa != in->numa) {
			fprintf(f, "  NUMA #%d (node %d): ", in->numa, in->numa_os);
			topo_print_mem(topo_numa_memory(t, in->numa), f);
			fputc('\n', f);
		}
		/* The group: same package, NUMA node and L3. */
		for (g = i + 1; g < t->nr_pus; g++) {
			const struct topo_pu_info *x = &t->pu[order[g]].info;

			if (x->package != in->package || x->numa != in->numa || x->l3 != in->l3)
				break;
		}
		topo_print_group(t, order + i, g - i, "    ", f);
	}
	free(order);
}

void topo_print_placement(const struct topo *t, const int *pus, int n, FILE *f)
{
	long counts[TOPO_NR_CLASSES];
	int shared = 0;

	fprintf(f, "%6s %5s %5s %5s %5s %5s %7s\n", "thread", "CPU", "L#PU", "core", "L3", "NUMA", "package");
	for (int i = 0; i < n; i++) {
		struct topo_pu_info in;

		if (topo_pu_info(t, pus[i], &in)) {
			fprintf(f, "%6d %5d %5s %5s %5s %5s %7s\n", i, pus[i], "?", "?", "?", "?", "?");
			continue;
		}
		fprintf(f, "%6d %5d %5d %5d %5d %5d %7d\n", i, in.pu, in.logical, in.core, in.l3, in.numa,
			in.package);
	}
	if (topo_pair_counts(t, pus, n, counts)) {
		fprintf(f, "pairs: not counted (a PU is not in the topology)\n");
		return;
	}
	shared = counts[TOPO_CLASS_SAME] > 0;
	fprintf(f, "pairs (%ld):", (long)n * (n - 1) / 2);
	for (int c = 0; c < TOPO_NR_CLASSES; c++)
		fprintf(f, " %s %ld%s", topo_class_name(c), counts[c], c + 1 < TOPO_NR_CLASSES ? "," : "\n");
	if (shared)
		fprintf(f, "note: %ld pair%s of threads share a PU\n", counts[TOPO_CLASS_SAME],
			counts[TOPO_CLASS_SAME] == 1 ? "" : "s");
}

/* ---- the calling process and thread -------------------------------------- */

int topo_nr_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
}

/*
 * A CPU list as the kernel writes it ("0-3,8-11"): how many CPUs it names,
 * or -1 if it is not one.
 */
static int topo_count_cpulist(const char *s)
{
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		n += (int)(b - a + 1);
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return n;
}

int topo_nr_possible_cpus(void)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	long n = -1;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			n = topo_count_cpulist(buf);
		fclose(f);
	}
	if (n < 1)
		n = sysconf(_SC_NPROCESSORS_CONF);
	return n >= 1 ? (int)n : topo_nr_cpus();
}

int topo_current_cpu(void)
{
	return sched_getcpu();
}
