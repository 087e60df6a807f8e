/* SPDX-License-Identifier: MIT */
/*
 * cmd-topo.c - `ctrbench topo`: the topology as a compact tree and a
 * placement as a table with its distance-class pair counts, or both as one
 * JSON object.  Everything is computed before anything is printed, so bad
 * input leaves stdout empty and stderr with one line (as run does).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "../topology/topo.h"
#include "builtin.h"

#define TOPO_CMD_MAX_THREADS 4096

/* The element of array a whose member key equals v, or a new one appended with it. */
static json_t *topo_cmd_child(json_t *a, const char *key, int v)
{
	size_t i;
	json_t *e;

	json_array_foreach(a, i, e)
		if (json_integer_value(json_object_get(e, key)) == v)
			return e;
	e = json_pack("{s:i}", key, v);
	json_array_append_new(a, e);
	return e;
}

/* Append v to the int array member key of o, unless it is already its last element. */
static void topo_cmd_add(json_t *o, const char *key, int v)
{
	json_t *a = json_object_get(o, key);
	size_t n;

	if (!a) {
		a = json_array();
		json_object_set_new(o, key, a);
	}
	n = json_array_size(a);
	if (!n || json_integer_value(json_array_get(a, n - 1)) != v)
		json_array_append_new(a, json_integer(v));
}

/*
 * The tree: packages -> NUMA nodes (OS index, memory) -> L3s -> core and PU
 * lists.  Levels the machine lacks have index -1.
 */
static json_t *topo_cmd_tree_json(const struct topo *t)
{
	json_t *pkgs = json_array();

	for (int i = 0; i < topo_nr_pus(t); i++) {
		struct topo_pu_info in;
		json_t *pkg, *numa, *l3;

		topo_pu_at(t, i, &in);
		pkg = topo_cmd_child(pkgs, "package", in.package);
		if (!json_object_get(pkg, "numa_nodes"))
			json_object_set_new(pkg, "numa_nodes", json_array());
		numa = topo_cmd_child(json_object_get(pkg, "numa_nodes"), "numa", in.numa);
		if (!json_object_get(numa, "l3s")) {
			long long mem = topo_numa_memory(t, in.numa);

			json_object_set_new(numa, "os", json_integer(in.numa_os));
			json_object_set_new(numa, "memory_bytes", mem > 0 ? json_integer(mem) : json_null());
			json_object_set_new(numa, "l3s", json_array());
		}
		l3 = topo_cmd_child(json_object_get(numa, "l3s"), "l3", in.l3);
		if (in.core >= 0)
			topo_cmd_add(l3, "cores", in.core);
		topo_cmd_add(l3, "pus", in.pu);
	}
	return pkgs;
}

static json_t *topo_cmd_placement_json(const struct topo *t, const char *policy, const int *pus,
				       int n, int wrapped)
{
	json_t *workers = json_array(), *pairs = json_object();
	long counts[TOPO_NR_CLASSES];

	for (int i = 0; i < n; i++) {
		struct topo_pu_info in;

		topo_pu_info(t, pus[i], &in);
		json_array_append_new(workers, json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "thread", i,
							 "pu", in.pu, "hwloc_pu", in.logical, "smt", in.smt, "core", in.core,
							 "l3", in.l3, "numa", in.numa, "numa_os",
							 in.numa_os, "package", in.package));
	}
	topo_pair_counts(t, pus, n, counts);
	for (int c = 0; c < TOPO_NR_CLASSES; c++)
		json_object_set_new(pairs, topo_class_name(c), json_integer(counts[c]));
	return json_pack("{s:s,s:i,s:b,s:o,s:o}", "policy", policy, "threads", n, "wrapped", wrapped,
			 "workers", workers, "pairs", pairs);
}

/* A layout as JSON: its name, part, mode, spec and sources. */
static json_t *topo_cmd_layout_json(const struct topo_layout *l)
{
	return json_pack("{s:s,s:s,s:i,s:s,s:i,s:s,s:{s:i,s:i,s:i},s:s,s:s}", "name", l->name, "part", l->part,
			 "sockets", l->sockets, "mode", l->mode, "nodes_per_socket", l->nodes_per_socket,
			 "spec", l->spec, "slit", "local", l->slit_local, "socket", l->slit_socket, "remote",
			 l->slit_remote, "source", l->source, "slit_source", l->slit_source);
}

/* The NUMA distance matrix by logical node, or null where none is known. */
static json_t *topo_cmd_distances_json(const struct topo *t, int nodes)
{
	json_t *m;

	if (topo_numa_distance(t, 0, 0) < 0)
		return json_null();
	m = json_array();
	for (int i = 0; i < nodes; i++) {
		json_t *row = json_array();

		for (int j = 0; j < nodes; j++)
			json_array_append_new(row, json_integer(topo_numa_distance(t, i, j)));
		json_array_append_new(m, row);
	}
	return m;
}

static json_t *topo_cmd_size_json(long long bytes)
{
	return bytes > 0 ? json_integer(bytes) : json_null();
}

static void topo_cmd_json(const struct topo *t, const char *policy, const int *pus, int n,
			  int wrapped)
{
	const struct topo_layout *l = topo_layout_of(t);
	struct topo_counts c;
	json_t *j;

	topo_counts(t, &c);
	j = json_pack("{s:s,s:b,s:i,s:i,s:i,s:i,s:i,s:i,s:o}", "topology", topo_spec(t),
		      "synthetic", topo_is_synthetic(t), "packages", c.packages, "numa_nodes",
		      c.numa_nodes, "l3s", c.l3s, "cores", c.cores, "pus", c.pus, "smt", c.max_smt,
		      "tree", topo_cmd_tree_json(t));
	json_object_set_new(j, "numbering", json_string(topo_numbering(t)));
	json_object_set_new(j, "layout", l ? topo_cmd_layout_json(l) : json_null());
	json_object_set_new(j, "caches", json_pack("{s:o,s:o,s:o}", "l1_bytes", topo_cmd_size_json(topo_cache_bytes(t, 1)),
						   "l2_bytes", topo_cmd_size_json(topo_cache_bytes(t, 2)),
						   "l3_bytes", topo_cmd_size_json(topo_cache_bytes(t, 3))));
	json_object_set_new(j, "distances", topo_cmd_distances_json(t, c.numa_nodes));
	json_object_set_new(j, "placement",
			    policy ? topo_cmd_placement_json(t, policy, pus, n, wrapped) : json_null());
	json_dumpf(j, stdout, JSON_COMPACT);
	fputc('\n', stdout);
	json_decref(j);
}

/* The tree, and where the placement put the threads if one was asked for. */
static void topo_cmd_table(const struct topo *t, const char *policy, const int *pus, int threads, int wrapped)
{
	topo_print_tree(t, stdout);
	if (!policy)
		return;
	printf("\nplacement %s: %d thread%s", policy, threads, threads == 1 ? "" : "s");
	if (wrapped)
		printf(" (wrapped around: more threads than %s, some PUs run several)",
		       strncmp(policy, "list:", 5) ? "PUs" : "list entries");
	printf("\n");
	topo_print_placement(t, pus, threads, stdout);
}

/*
 * --layouts: every named layout, what it expands to and its source; as a
 * table (name, PUs, part and mode; the spec and sources beneath) or one
 * JSON object per line.
 */
static int topo_cmd_layouts(int json, int with_machine)
{
	struct topo_layout l;

	if (with_machine)
		die("--layouts lists the named layouts: it takes no --topology, --placement or --threads");
	if (!json)
		printf("named layouts (--topology NAME wherever a topology is taken; CPU numbers as Linux's):\n"
		       "NPS1 is the BIOS default; SLIT: %s\n", topo_layout_at(0, &l) ? "" : l.slit_source);
	for (int i = 0; !topo_layout_at(i, &l); i++) {
		if (json) {
			json_t *j = topo_cmd_layout_json(&l);

			json_dumpf(j, stdout, JSON_COMPACT);
			fputc('\n', stdout);
			json_decref(j);
			continue;
		}
		printf("\n%-24s %s, %d socket%s, %s (%d NUMA node%s per socket)\n  spec: %s\n  source: %s\n",
		       l.name, l.part, l.sockets, l.sockets == 1 ? "" : "s", l.mode, l.nodes_per_socket,
		       l.nodes_per_socket == 1 ? "" : "s", l.spec, l.source);
	}
	return 0;
}

static const char *const topo_help =
	"usage: ctrbench topo [options]\n"
	"\n"
	"This machine's topology (or a described one), and where a placement puts threads.\n"
	"\n"
	"  --topology SPEC          \"pack:2 [numa] l3:12 core:8 pu:2\" or a layout (default: this one)\n"
	"                           named as --layouts lists them, e.g. genoa-9654-2s\n"
	"  --layouts                list the named layouts, each with its spec and source (default off)\n"
	"  --placement P            compact, scatter, ccx, numa, smt or list:CPUS (default none)\n"
	"  --threads N              threads to place, with --placement (default none)\n"
	"  --format F               table or json (default table)\n"
	"\n"
	"example: ctrbench topo --topology genoa-9654-2s-nps4 --placement scatter --threads 4\n";

int bench_cmd_topo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topology", required_argument, NULL, 'T' },
		{ "placement", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'f' },
		{ "layouts", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spec = NULL, *policy = NULL;
	int threads = 0, json = 0, opt, wrapped = 0, *pus = NULL, layouts = 0;
	char err[512];
	struct topo *t;

	bench_help(argc, argv, topo_help);
	opterr = 0;
	optind = 1;
	while ((opt = bench_getopt(argc, argv, opts)) != -1) {
		switch (opt) {
		case 'T':
			spec = optarg;
			break;
		case 'p':
			policy = optarg;
			break;
		case 't':
			threads = bench_parse_int("threads", optarg, 1, TOPO_CMD_MAX_THREADS);
			break;
		case 'f':
			json = bench_parse_table_json("topo", optarg);
			break;
		case 'L':
			layouts = 1;
			break;
		default:
			bench_die_getopt(opt, argv);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	if (layouts)
		return topo_cmd_layouts(json, spec || policy || threads);
	if (policy && !threads)
		die("--placement '%s' needs --threads", policy);
	if (threads && !policy)
		policy = "compact";

	t = topo_load(spec, err, sizeof(err));
	if (!t) {
		if (spec)
			die("%s", err);
		/* Not bad input: this machine could not be read.  Exit 1, not 2. */
		fprintf(stderr, "ctrbench: %s\n", err);
		return 1;
	}
	if (policy) {
		pus = malloc(sizeof(int) * threads);
		if (!pus) {
			fprintf(stderr, "ctrbench: out of memory\n");
			topo_free(t);
			return 1;
		}
		if (topo_place(t, policy, threads, pus, &wrapped, err, sizeof(err))) {
			free(pus);
			topo_free(t);
			die("%s", err);
		}
	}

	if (json)
		topo_cmd_json(t, policy, pus, threads, wrapped);
	else
		topo_cmd_table(t, policy, pus, threads, wrapped);
	free(pus);
	topo_free(t);
	return 0;
}
