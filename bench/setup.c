/* SPDX-License-Identifier: MIT */
/*
 * setup.c - see setup.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "cli.h"
#include "env.h"
#include "output.h"
#include "setup.h"

/* The topology summary belongs with the environment: "2 packages, 24 L3s, ..." of this machine. */
static void bench_env_add_topology(json_t *env, const struct topo *t)
{
	struct topo_counts c;
	char buf[160];

	topo_counts(t, &c);
	snprintf(buf, sizeof(buf), "%d package%s, %d NUMA node%s, %d L3%s, %d cores, %d PUs",
		 c.packages, c.packages == 1 ? "" : "s", c.numa_nodes, c.numa_nodes == 1 ? "" : "s",
		 c.l3s, c.l3s == 1 ? "" : "s", c.cores, c.pus);
	json_object_set_new(env, "topology", json_string(buf));
}


/* A PU of this machine sits on NUMA node id (OS index); node 0 where there is no NUMA information. */
static int bench_node_has_pu(const struct topo *t, long id)
{
	struct topo_pu_info info;

	for (int i = 0; i < topo_nr_pus(t); i++) {
		int node;

		if (topo_pu_at(t, i, &info))
			continue;
		node = topo_numa_node_of_pu(t, info.pu);
		if ((node < 0 ? 0 : node) == id)
			return 1;
	}
	return 0;
}

/* --shared-mem local|interleave|node:K, K a NUMA node of this machine. */
static void bench_check_shared_mem(const char *s, struct bench_config *cfg)
{
	struct topo_counts c;
	char *end;
	long node;

	if (!s || !strcmp(s, "local") || !strcmp(s, "interleave"))
		return;
	topo_counts(cfg->topo, &c);
	if (strncmp(s, "node:", 5) || s[5] < '0' || s[5] > '9')
		die("bad value '%s' for --shared-mem (want local, interleave or node:K)", s);
	errno = 0;
	node = strtol(s + 5, &end, 10);
	/* K is a node ID, which can be sparse: ask whether a PU of this machine is on it */
	if (errno || *end || !bench_node_has_pu(cfg->topo, node))
		die("bad value '%s' for --shared-mem (no NUMA node %s with a CPU of this machine;"
		    " it has %d node%s)", s, s + 5, c.numa_nodes > 0 ? c.numa_nodes : 1,
		    c.numa_nodes == 1 ? "" : "s");
}


/*
 * --options and --flush-period-ms go to every algorithm named: check the
 * options against each one first (ctr_options_check: an empty item, a key
 * given twice, a key it does not take and a value the key does not take
 * each said apart), so bad input is exit 2 before anything runs, not a
 * failed run.  Baselines take none.  A flush period on an algorithm with no
 * periodic flusher changes nothing: say so, once.
 */
void bench_check_algo_options(const char *options, int flush_period_ms,
			      const struct bench_algo *const *algos, int nr_algos)
{
	char err[256], none[256] = "";

	for (int i = 0; i < nr_algos; i++) {
		if (algos[i]->baseline) {
			if (options)
				die("bad value '%s' for --options (%s is a harness baseline: it takes none)",
				    options, algos[i]->name);
		} else if (options && ctr_options_check(algos[i]->algo, options, err, sizeof(err))) {
			die("bad value '%s' for --options: %s (docs/algorithms.md lists each algorithm's"
			    " options)", options, err);
		}
		if (flush_period_ms && (algos[i]->baseline || !(algos[i]->algo->flags & CTR_PERIODIC_FLUSH)))
			snprintf(none + strlen(none), sizeof(none) - strlen(none), "%s%s", *none ? ", " : "",
				 algos[i]->name);
	}
	if (*none)
		fprintf(stderr, "ctrbench: note: --flush-period-ms %d changes nothing for %s (no periodic"
			" flusher)\n", flush_period_ms, none);
}

void bench_check_options(const struct bench_config *cfg, const struct bench_algo **algos,
			 int nr_algos)
{
	bench_check_algo_options(cfg->options, cfg->flush_period_ms, algos, nr_algos);
}

/* Sort the items by key, so the same options in another order are the same configuration. */
static int bench_option_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *bench_options_kept[4];	/* the normalised strings handed out (one per command line) */
static int bench_options_nkept;

const char *bench_options_normalize(const char *options)
{
	char *copy, *out, *items[64], *p;
	int n = 0;

	if (!options)
		return NULL;
	copy = strdup(options);
	out = calloc(1, strlen(options) + 1);
	if (!copy || !out)
		die("out of memory");
	for (p = copy; n < 64; ) {
		char *comma = strchr(p, ',');

		items[n++] = p;
		if (!comma)
			break;
		*comma = '\0';
		p = comma + 1;
	}
	qsort(items, (size_t)n, sizeof(*items), bench_option_cmp);
	for (int i = 0; i < n; i++)
		strcat(strcat(out, i ? "," : ""), items[i]);
	free(copy);
	/* lives as long as the command line it came from: kept reachable, freed at exit */
	bench_options_kept[bench_options_nkept++ % 4] = out;
	return out;
}

/*
 * This machine's topology (a synthetic or XML one is for planning with
 * ctrbench topo: there is no such hardware to run on).
 */
void bench_setup_machine(struct bench_config *cfg, const char *topology, const char *events)
{
	char err[256];

	if (topology) {
		struct topo *t = topo_load(topology, err, sizeof(err));

		if (!t)
			die("%s", err);
		if (topo_is_synthetic(t))
			die("topology '%s' is not this machine: plan with ctrbench topo, run here without --topology",
			    topology);
		topo_free(t);
	}
	cfg->topo = topo_load(NULL, err, sizeof(err));
	if (!cfg->topo)
		die("%s", err);
	if (!cfg->placement)
		cfg->placement = "compact";
	bench_check_shared_mem(cfg->shared_mem, cfg);
	pmu_init();
	if (events && bench_events_parse(events, &cfg->events, &cfg->nr_events, err, sizeof(err)))
		die("%s", err);
	cfg->events_spec = events;
	bench_tsc_calibrate(&cfg->tsc);
	cfg->env = bench_env_json(cfg->note);
	bench_env_add_topology(cfg->env, cfg->topo);
}

int bench_default_slots(int threads)
{
	int possible = topo_nr_possible_cpus();

	return possible > threads ? possible : threads;
}

/*
 * The PU of every thread, the pair counts, and each slot's NUMA node and L3.
 * An idle slot stands for a CPU of the modelled machine with nobody on it:
 * its memory goes to the node of PU (slot mod PUs) in logical order, so
 * idle slots spread over this machine's nodes as possible CPUs spread over
 * a machine's, and cost a reader what remote idle CPUs cost.
 */
void bench_setup_threads(struct bench_config *cfg)
{
	const int total = cfg->threads + cfg->readers;
	char err[256];
	int nr_pus;

	if (!cfg->slots)
		cfg->slots = bench_default_slots(cfg->threads);
	if (!cfg->limit_headroom)
		cfg->limit_headroom = BENCH_LIMIT_HEADROOM;
	if (!cfg->limit_levels)
		cfg->limit_levels = "all";
	if (cfg->slots < cfg->threads)
		die("bad value '%d' for --slots (fewer than --threads %d: every updater owns a slot)",
		    cfg->slots, cfg->threads);
	free(cfg->pus);
	free(cfg->slot_node);
	free(cfg->slot_l3);
	cfg->pus = calloc(total, sizeof(int));
	cfg->slot_node = calloc(cfg->slots, sizeof(int));
	cfg->slot_l3 = calloc(cfg->slots, sizeof(int));
	if (!cfg->pus || !cfg->slot_node || !cfg->slot_l3)
		die("out of memory");
	if (topo_place(cfg->topo, cfg->placement, total, cfg->pus, &cfg->wrapped, err, sizeof(err)))
		die("%s", err);
	topo_pair_counts(cfg->topo, cfg->pus, total, cfg->pairs);
	nr_pus = topo_nr_pus(cfg->topo);
	for (int i = 0; i < cfg->slots; i++) {
		struct topo_pu_info info;
		int ok = i < cfg->threads ? !topo_pu_info(cfg->topo, cfg->pus[i], &info)
					  : nr_pus > 0 && !topo_pu_at(cfg->topo, i % nr_pus, &info);
		int pu = i < cfg->threads ? cfg->pus[i] : ok ? info.pu : -1;

		cfg->slot_node[i] = pu >= 0 ? topo_numa_node_of_pu(cfg->topo, pu) : 0;
		if (cfg->slot_node[i] < 0)
			cfg->slot_node[i] = 0;	/* no NUMA information: one node */
		/* which slots share an L3, for the algorithms that group slots by it (ctr_params.slot_l3) */
		cfg->slot_l3[i] = ok && info.l3 >= 0 ? info.l3 : 0;
	}
}

void bench_setup_release(struct bench_config *cfg)
{
	free(cfg->pus);
	free(cfg->slot_node);
	free(cfg->slot_l3);
	free(cfg->events);
	json_decref(cfg->env);
	topo_free(cfg->topo);
	cfg->pus = cfg->slot_node = cfg->slot_l3 = NULL;
	cfg->events = NULL;
	cfg->env = NULL;
	cfg->topo = NULL;
}

/* MemAvailable of /proc/meminfo in bytes; 0 when it cannot be read (then nothing is refused). */
static size_t bench_mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	unsigned long long kb = 0;
	char line[128];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb > SIZE_MAX / 1024 ? SIZE_MAX : (size_t)kb * 1024;
}

/* Bytes as a person reads them: "137 GB", "2.4 GB", "310 MB" (powers of 1000). */
static const char *bench_bytes_str(size_t b, char *buf, size_t len)
{
	double v = (double)b;

	if (b == SIZE_MAX)
		snprintf(buf, len, "more than size_t counts");
	else if (v >= 10e9)
		snprintf(buf, len, "%.0f GB", v / 1e9);
	else if (v >= 1e9)
		snprintf(buf, len, "%.1f GB", v / 1e9);
	else
		snprintf(buf, len, "%.0f MB", v / 1e6);
	return buf;
}

/*
 * Issue 18.4: a run whose tree cannot fit used to start zero-filling 137 GB
 * on a 23 GB machine.  Each algorithm's instance (ctr_footprint, one tree at
 * a time: a run frees each before the next) plus the harness's buffers is
 * held to MemAvailable before anything is allocated: a one-line refusal,
 * exit 2, unless --force.
 */
void bench_check_memory(const struct bench_config *cfg, const struct bench_algo **algos, int nr_algos)
{
	size_t avail = cfg->force ? 0 : bench_mem_available();
	char need[48], have[48];

	for (int i = 0; avail && i < nr_algos; i++) {
		size_t algo = 0, harness = 0;

		/* a bad parameter is ctr_tree_new's to report, as before */
		if (bench_run_footprint(cfg, algos[i], &algo, &harness))
			continue;
		if (ctr_size_add(algo, harness) > avail)
			die("%s on %s with %d slots needs %s, %s available (--force to try anyway)",
			    algos[i]->name, cfg->shape.spec, cfg->threads,
			    bench_bytes_str(ctr_size_add(algo, harness), need, sizeof(need)),
			    bench_bytes_str(avail, have, sizeof(have)));
	}
}

/* "a,b" or "all" into algos[]; dies on an unknown or repeated name. */
int bench_parse_algos(char *list, const struct bench_algo **algos)
{
	const char *whole = strdupa(list);
	int n = 0;

	if (!strcmp(list, "all")) {
		for (int i = 0; i < bench_nr_algos; i++)
			algos[n++] = &bench_algos[i];
		return n;
	}
	for (char *name; (name = strsep(&list, ",")); ) {
		const struct bench_algo *ba = bench_algo_find(name);

		if (!*name)
			die("empty algorithm name in --algo '%s'", whole);

		if (!ba)
			die("unknown algorithm '%s' (ctrbench list shows them)", name);
		for (int i = 0; i < n; i++)
			if (algos[i] == ba)
				die("algorithm '%s' given twice", name);
		if (n == BENCH_MAX_ALGOS)
			die("too many algorithms in --algo");
		algos[n++] = ba;
	}
	return n;
}
