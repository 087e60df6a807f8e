/* SPDX-License-Identifier: MIT */
/*
 * topo.h - machine topology, thread placement and binding, through hwloc.
 *
 * A struct topo is a loaded hwloc topology (this machine, a hwloc synthetic
 * description or an lstopo XML export) flattened into one record per PU, so
 * that placement and distance questions are array walks, not tree walks.
 * Indexes: a "PU" handed in or out is always the CPU number Linux gives it
 * (the OS index: what the kernel, sched_getcpu(), taskset and /sys call a
 * CPU; for a named layout, the Linux numbering modelled by
 * topo_linux_numbering(); for another synthetic spec, hwloc's logical
 * order, see topo_numbering()); core, L3, NUMA node and
 * package numbers in struct topo_pu_info are hwloc logical indexes (dense,
 * in topology order), which is what a table wants.  topo_numa_node_of_pu()
 * is the one exception: it gives the NUMA node's OS index, because that is
 * what mbind()/numa_alloc_onnode() take.
 *
 * A loaded topology is read-only: every function taking a const struct topo *
 * may be called from many threads at once (workers binding themselves).
 *
 * docs/topology.md describes the policies and distance classes for users.
 */
#ifndef TOPO_H
#define TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct topo;

/*
 * Load a topology.  spec NULL: discover this machine with hwloc, restricted
 * to the CPUs this process may run on (its affinity mask), so that every PU
 * a placement hands out can actually be bound to.  Otherwise spec names an
 * lstopo XML file when it ends in ".xml" or names an existing file, and is
 * a hwloc synthetic description ("pack:2 [numa] l3:12 core:8 pu:2") if not,
 * unless it is a named layout's name ("genoa-9654-2s", topo_layout_find):
 * then its spec, with the layout's NUMA distances added to the topology.
 * Returns NULL on failure with a one-line message naming spec in err (when
 * err is not NULL; errlen bytes, always terminated).
 */
struct topo *topo_load(const char *spec, char *err, size_t errlen);

/*
 * The most PUs a spec may describe.  hwloc builds every object of a
 * synthetic topology in memory, each with cpusets as wide as the machine,
 * and its build is superlinear in a level's width: measured here with
 * hwloc 2.9, "pu:4096" loads in 1.7 s, "pu:8192" in 9 s, "pack:4 pu:4096"
 * in 31 s, "pack:16 l3:16 core:16 pu:16" (65,536) in 5 s and 1 GB, and a
 * bare "2147483648" never returns.  So topo_load() counts a synthetic
 * spec's PUs first and refuses one over 4,096: five times the largest
 * EPYC system this field plans for (2 x 192 cores x 2 threads = 768).
 */
#define TOPO_MAX_PUS 4096

/*
 * The PUs a synthetic spec describes: the product of its levels' counts
 * ("pack:2 [numa] l3:12 core:8 pu:2" is 384; memory children in [] add
 * none), saturated at UINT64_MAX.  0 if a level has no count this can read
 * (hwloc then says what is wrong).  Exposed for the tests.
 */
uint64_t topo_synthetic_pus(const char *spec);

/*
 * A named layout: a real part in 1 or 2 sockets under one NUMA mode
 * (topology/layouts.c holds the one table, each figure with its source).
 * topo_load() takes the name wherever a spec is taken: "genoa-9654-2s"
 * (NPS1, AMD's default), "genoa-9654-2s-nps4", "turin-9965-1s-l3numa".
 */
struct topo_layout {
	char name[48];		/* "genoa-9654-2s-nps4" */
	const char *part;	/* "AMD EPYC 9654 (Genoa, Zen 4)" */
	int sockets;		/* 1 or 2 */
	const char *mode;	/* "NPS1", "NPS2", "NPS4" or "L3 as NUMA" */
	int nodes_per_socket;	/* NUMA nodes in one socket under that mode */
	char spec[160];		/* the hwloc synthetic spec it expands to, cache sizes in it */
	int slit_local;		/* SLIT distance of a node to itself (10) */
	int slit_socket;	/* to another node of the same socket */
	int slit_remote;	/* to a node of the other socket */
	const char *source;	/* where the part's counts and cache sizes come from */
	const char *slit_source;	/* where the distances come from */
};

/* How many named layouts there are; the i-th (0 or -ENOENT past the last). */
int topo_nr_layouts(void);
int topo_layout_at(int i, struct topo_layout *l);

/* The layout called name: 0, or -ENOENT. */
int topo_layout_find(const char *name, struct topo_layout *l);

/*
 * The layout a topology was loaded from, NULL if it was not a name.  Its
 * strings live as long as t.
 */
const struct topo_layout *topo_layout_of(const struct topo *t);

/*
 * Linux's CPU numbering of a machine described by a synthetic spec, which
 * hwloc itself numbers in logical order (core c's threads 2c and 2c+1).
 * On x86 Linux numbers CPUs in the order the firmware lists them (the ACPI
 * MADT), which on EPYC is the first thread of every core (package 0's
 * cores, then package 1's), then every core's second thread in the same
 * order: on 2 x 96 cores CPU 192 is CPU 0's sibling.  smt[i] is the rank of
 * the PU of logical index i among its core's threads; cpu[i] gets its
 * number: all PUs of rank 0 in logical order, then those of rank 1, ...
 */
void topo_linux_numbering(const int *smt, int n, int *cpu);

/*
 * How the PU numbers of t ("CPU" in every table, what list: takes) were
 * made: Linux's (the OS index, as taskset and numactl take it) on this
 * machine and an XML file, the modelled Linux numbering for a named layout
 * (topo_linux_numbering), the spec's own when it gives indexes=, and
 * hwloc's logical order for any other synthetic spec.
 */
const char *topo_numbering(const struct topo *t);

/*
 * NUMA distance (the SLIT's, 10 = local) from node a to node b, logical
 * indexes; -1 where the topology has none (hwloc read none, or a synthetic
 * spec that is not a named layout).
 */
int topo_numa_distance(const struct topo *t, int a, int b);

/* Free a topology from topo_load(); NULL is a no-op. */
void topo_free(struct topo *t);

/*
 * The one-line error message of the functions here: printf into err[0..len)
 * (nothing when err is NULL or len 0).  Exported so that the topology's
 * callers that take the same err/len pair (c2c's plan) fill it the same way.
 */
void __attribute__((format(printf, 3, 4))) topo_err(char *err, size_t len, const char *fmt, ...);

/*
 * True for a synthetic or XML topology: it describes a machine we are not
 * running on, so it is good for planning and printing only, and
 * topo_bind_self() refuses it.  A benchmark run must refuse it too.
 */
int topo_is_synthetic(const struct topo *t);
/*
 * Bytes of the first level-N data cache (1-3), 0 where unknown: the
 * topology has none, or is a synthetic spec that gives no "size=" (hwloc
 * would make one up).
 */
long long topo_cache_bytes(const struct topo *t, int level);

/*
 * What was loaded: the spec given to topo_load(), or "this machine" (or a
 * note that hwloc's environment variables substituted another topology).
 */
const char *topo_spec(const struct topo *t);

/* Number of PUs (hardware threads) in the topology, >= 1. */
int topo_nr_pus(const struct topo *t);

/* How many of each object the topology has (levels it lacks count 0). */
struct topo_counts {
	int packages, numa_nodes, l3s, cores, pus;
	int max_smt;		/* most PUs in one core: 2 with SMT on, 1 without */
};
void topo_counts(const struct topo *t, struct topo_counts *c);

/* Where one PU sits.  Logical indexes, -1 where the machine lacks that level. */
struct topo_pu_info {
	int pu;			/* Linux CPU number (OS index; modelled for a synthetic spec) */
	int logical;		/* hwloc logical index of the PU, 0..topo_nr_pus()-1 */
	int smt;		/* rank among its core's PUs: 0 first hyperthread, 1 its sibling */
	int core, l3, numa, package;
	int numa_os;		/* OS index of the local NUMA node */
};

/* Fill *info for the PU with OS index pu; 0, or -EINVAL if the topology has no such PU. */
int topo_pu_info(const struct topo *t, int pu, struct topo_pu_info *info);

/* Info of the i-th PU in logical order (i in [0, topo_nr_pus())); 0 or -EINVAL. */
int topo_pu_at(const struct topo *t, int i, struct topo_pu_info *info);

/* OS index of the NUMA node local to PU pu (for memory placement), or -EINVAL. */
int topo_numa_node_of_pu(const struct topo *t, int pu);

/* Memory of the NUMA node with logical index node in bytes (0 if unknown), or -1 if none. */
long long topo_numa_memory(const struct topo *t, int node);

/*
 * Placement: fill pus[0..n) with the OS PU indexes of n threads (thread i on
 * pus[i]) under policy:
 *   compact   one thread per core, cores in logical order; the SMT siblings
 *             (second hyperthreads, ...) only after every core has one
 *   scatter   round-robin over packages, then within each package over its
 *             NUMA nodes, then L3s, then cores (a hierarchical round-robin:
 *             consecutive threads are as far apart as the tree allows);
 *             SMT siblings only after every core has one
 *   ccx       fill one L3 (CCX) before the next, L3s in logical order;
 *             within an L3 one thread per core first, then the siblings
 *   numa      fill one NUMA node before the next; within a node one thread
 *             per core first (cores in logical order, so L3 by L3), then
 *             the siblings
 *   smt       every PU of a core before the next core (logical PU order)
 *   list:L    the OS indexes in L, a comma list of N or N-M (ascending)
 *             ranges, in the order written; thread i takes the i-th entry
 * More threads than PUs (or than list entries) wrap around to the start of
 * the order and set *wrapped (when wrapped is not NULL) to 1, else 0.
 * Returns 0, or -EINVAL with a one-line message naming policy in err: an
 * unknown policy, n < 1, a bad list (empty item, "5-2", "x", a PU the
 * topology does not have).
 */
int topo_place(const struct topo *t, const char *policy, int n, int *pus, int *wrapped,
	       char *err, size_t errlen);

/* Distance classes of two PUs, nearest first. */
enum topo_class {
	TOPO_CLASS_SAME,	/* one PU (two workers wrapped onto it) */
	TOPO_CLASS_SMT,		/* SMT siblings: same core */
	TOPO_CLASS_CCX,		/* same L3, other core */
	TOPO_CLASS_NUMA,	/* same NUMA node, other L3 */
	TOPO_CLASS_PACKAGE,	/* same package, other NUMA node */
	TOPO_CLASS_REMOTE,	/* other package */
	TOPO_NR_CLASSES,
};

/* "same", "smt", "ccx", "numa", "package", "remote"; "?" out of range. */
const char *topo_class_name(int cls);

/* Class of the OS PUs a and b (symmetric), or -EINVAL if either is not in the topology. */
int topo_class_of(const struct topo *t, int pu_a, int pu_b);

/*
 * counts[c] = how many unordered worker pairs {i, j}, i < j < n, have
 * topo_class_of(pus[i], pus[j]) == c.  Returns 0, or -EINVAL (counts then
 * undefined) if a PU is not in the topology.
 */
int topo_pair_counts(const struct topo *t, const int *pus, int n, long counts[TOPO_NR_CLASSES]);

/*
 * Bind the calling thread to OS PU pu with hwloc.  Returns 0 or -errno:
 * -EOPNOTSUPP on a synthetic/XML topology (nothing to run on), -EINVAL for
 * a PU not in the topology, else what the kernel said.
 */
int topo_bind_self(const struct topo *t, int pu);

/*
 * Print the topology as a compact tree: a summary line, then packages,
 * their NUMA nodes with memory, their L3s with core and PU ranges
 * ("L3 #3: cores 24-31, PUs 48-63").
 */
void topo_print_tree(const struct topo *t, FILE *f);

/*
 * Print a placement: the table thread -> PU -> core -> L3 -> NUMA ->
 * package, a line saying whether it wrapped, then the worker pair counts
 * per distance class.  PUs not in the topology print as "?".
 */
void topo_print_placement(const struct topo *t, const int *pus, int n, FILE *f);

/*
 * Write v[0..n) as a CPU list ("0-7,16,18-19": runs of consecutive values
 * collapsed) into buf of len bytes, always terminated; returns buf.
 */
char *topo_format_list(const int *v, int n, char *buf, size_t len);

/* CPUs this process may run on (its affinity mask), >= 1: what placements on this machine draw from. */
int topo_nr_cpus(void);

/*
 * This machine's possible CPUs (/sys/devices/system/cpu/possible, else
 * sysconf(_SC_NPROCESSORS_CONF)), >= 1: what the kernel's for_each_possible_cpu
 * walks, online or not, busy or idle.
 */
int topo_nr_possible_cpus(void);

/* The CPU the calling thread is on now (sched_getcpu), -1 if unknown. */
int topo_current_cpu(void);

#endif /* TOPO_H */
