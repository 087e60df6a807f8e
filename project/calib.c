/* SPDX-License-Identifier: MIT */
/*
 * calib.c - the projection's calibration (struct proj_calib, proj.h): ns per
 * transfer class, the published Genoa figures by default, or a `ctrbench c2c
 * --format json` line's measured ones.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/cli.h"
#include "../bench/schema.h"
#include "proj.h"

/*
 * One-way core-to-core latencies as published for AMD Genoa (Zen 4) by
 * nviennot/core-to-core-latency runs on 2 x EPYC 9654, 2 x 9454 and a
 * 9274F: ~10 ns between SMT siblings, ~26 ns within a CCX, ~100 ns to
 * another CCX of the socket with the line's home there, ~200 ns with its
 * home on the other socket, ~195 ns to the other socket.  DRAM (a first
 * touch, or a line every cache dropped) 110 ns: the usual Genoa local figure, an
 * assumption, not one of those results.  A hit: 0.5 ns (an L1 load's
 * 4-5 cycles at ~3.7 GHz, with two or three issued per cycle); a locked RMW
 * that hits: 5 ns (the ~18 cycles of a lock-prefixed add on Zen).  Both are
 * assumptions too, said with every projection.
 */
void proj_calib_default(struct proj_calib *c)
{
	static const double ns[PROJ_NR_CLASSES] = { 10, 26, 100, 200, 195, 110 };

	memcpy(c->ns, ns, sizeof(ns));
	c->hit_ns = 0.5;
	c->hit_rmw_ns = 5;
	snprintf(c->source, sizeof(c->source),
		 "default: published Genoa one-way core-to-core-latency figures (2 x 9654, 2 x 9454, 9274F)");
	snprintf(c->name, sizeof(c->name), "Genoa default");
	proj_calib_contention_default(c);
}

/*
 * The contention figures, defaults (each printed with its source; `project
 * --validate` measures burst, wake-up and PAUSE on this machine with the
 * probes of bench/calprobe.c and uses its own figures there).  None is a
 * published Zen 4 figure: no AMD document found gives PAUSE's latency or the
 * L1D's outstanding misses for Zen 4 (Intel documents PAUSE at ~10 cycles
 * before Skylake and up to 140 since, its Optimization Reference Manual
 * 2.6.4), so each is said to be an assumption, and where this project's
 * guest (a Zen 3 EPYC, 2 vCPUs, ~2.45 GHz TSC) measured it, what it measured:
 *  - burst: 0.057-0.059 handovers per add, bursts of 16.9-17.4, with
 *    SCHED_FIFO (issue 27's session saw 0.049-0.071);
 *  - wake-up: 10.8-11.4 us, a KVM guest's, the host's idle exit and IPI
 *    delivery included; bare metal is usually a few us: 5 us assumed;
 *  - PAUSE: 26-30 ns there, 64-73 TSC cycles, so ~65 cycles, 18 ns at the
 *    ~3.7 GHz of a Genoa core under load.
 * The sources are short (proj.h gives each 128 bytes); this comment is the long form.
 */
void proj_calib_contention_default(struct proj_calib *c)
{
	c->burst = 16;
	snprintf(c->burst_src, sizeof(c->burst_src),
		 "assumption: 16 adds per handover; project --validate measured 17 on a Zen 3 guest, SCHED_FIFO");
	c->wake_ns = 5000;
	snprintf(c->wake_src, sizeof(c->wake_src),
		 "assumption: a futex wake-up of a sleeping waiter, ~5 us; 11 us measured on a Zen 3 KVM guest");
	c->pause_ns = 18;
	snprintf(c->pause_src, sizeof(c->pause_src),
		 "assumption: PAUSE ~65 cycles at ~3.7 GHz; 64-73 cycles measured on a Zen 3 guest");
	c->mlp = 16;
	snprintf(c->mlp_src, sizeof(c->mlp_src),
		 "assumption: 16 outstanding L1D misses per core; no published Zen 4 figure found");
	c->mutex_spin_ns = 2000;
	snprintf(c->mutex_spin_src, sizeof(c->mutex_spin_src),
		 "assumption: a kernel mutex's optimistic spin, bounded here at 2 us before the waiter sleeps");
	/*
	 * Zen 4's caches as AMD gives them for EPYC 9004 (1 MB of L2 per core,
	 * 32 MB of L3 per CCD); the L3 hit's ~50 cycles at ~3.7 GHz is an
	 * assumption (no AMD figure found), said as one.
	 */
	c->l2_bytes = 1LL << 20;
	c->l3_bytes = 32LL << 20;
	c->l3_hit_ns = 13.5;
	snprintf(c->cache_src, sizeof(c->cache_src), "default: Zen 4's, EPYC 9004: 1 MB L2 per core, 32 MB L3 per CCD");
	snprintf(c->l3_hit_src, sizeof(c->l3_hit_src), "assumption: ~50 cycles at ~3.7 GHz");
}

/* n bytes as a size a user reads: "1 MiB", "32 MiB", "512 KiB", "96 B". */
static const char *proj_size(long long n, char *buf, size_t len)
{
	if (n >= (1LL << 20) && n % (1LL << 20) == 0)
		snprintf(buf, len, "%lld MiB", n >> 20);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, len, "%lld KiB", n >> 10);
	else
		snprintf(buf, len, "%lld B", n);
	return buf;
}

void proj_capacity_print(const struct topo *t, const struct proj_calib *c)
{
	struct proj_capacity cap;
	char l2[32], l3[32];

	proj_capacity_of(t, c, &cap);
	printf("#   capacity: L2 %s per core, L3 %s per L3 (a victim cache of its L2s), L3 hit %.1f ns (%s)\n",
	       proj_size(cap.l2_bytes, l2, sizeof(l2)), proj_size(cap.l3_bytes, l3, sizeof(l3)), cap.l3_hit_ns,
	       cap.src);
}

void proj_capacity_of(const struct topo *t, const struct proj_calib *c, struct proj_capacity *out)
{
	const long long l2 = t ? topo_cache_bytes(t, 2) : 0, l3 = t ? topo_cache_bytes(t, 3) : 0;

	out->l2_bytes = l2 > 0 ? l2 : c->l2_bytes;
	out->l3_bytes = l3 > 0 ? l3 : c->l3_bytes;
	out->l3_hit_ns = c->l3_hit_ns;
	if (l2 > 0 && l3 > 0)
		snprintf(out->src, sizeof(out->src), "sizes the topology's; L3 hit %s", c->l3_hit_src);
	else if (l2 > 0 || l3 > 0)
		snprintf(out->src, sizeof(out->src), "the topology's %s, the %s the %s; L3 hit %s", l2 > 0 ? "L2" : "L3",
			 l2 > 0 ? "L3" : "L2", c->cache_src, c->l3_hit_src);
	else
		snprintf(out->src, sizeof(out->src), "sizes %s; L3 hit %s", c->cache_src, c->l3_hit_src);
}

/* ---- calibration from a c2c file ---- */

int proj_calib_load(struct proj_calib *c, const char *path, char *err, size_t errlen)
{
	json_error_t je;
	/* a key given twice would be read as its last value here, its first elsewhere */
	json_t *root = bench_json_load_regular(path, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &je), *cal, *ns;
	static const struct { const char *key; int cls[2]; } map[] = {
		{ "smt", { PROJ_C_SMT, -1 } },
		{ "ccx", { PROJ_C_CCX, -1 } },
		/* c2c pools the homes: one figure for both home cases of another L3 */
		{ "numa", { PROJ_C_XCCX, PROJ_C_XCCX_RH } },
		{ "package", { PROJ_C_XCCX, PROJ_C_XCCX_RH } },
		{ "remote", { PROJ_C_SOCKET, -1 } },
	};
	int got = 0;

	proj_calib_default(c);
	if (!root) {
		snprintf(err, errlen, "--calibration '%s': %s", path, je.text);
		return -EINVAL;
	}
	/* a c2c line is of this build's schema and measured: a --dry-run plan measured nothing */
	{
		json_t *v = json_object_get(root, "schema"), *dry = json_object_get(root, "dry_run");

		if (v && !(json_is_integer(v) && json_integer_value(v) == BENCH_SCHEMA_VERSION)) {
			char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

			snprintf(err, errlen, "--calibration '%s': schema %.40s, this ctrbench reads schema %d", path,
				 text ? text : "?", BENCH_SCHEMA_VERSION);
			free(text);
			json_decref(root);
			return -EINVAL;
		}
		if (dry && !json_is_false(dry)) {
			snprintf(err, errlen, "--calibration '%s': a c2c --dry-run plan (dry_run: true): nothing in it "
				 "was measured", path);
			json_decref(root);
			return -EINVAL;
		}
	}
	cal = json_object_get(root, "calibration");
	if (!cal && json_is_string(json_object_get(root, "kind")) &&
	    !strcmp(json_string_value(json_object_get(root, "kind")), "c2c-calibration"))
		cal = root;
	ns = cal ? json_object_get(cal, "one_way_ns") : NULL;
	if (!json_is_object(ns)) {
		snprintf(err, errlen, "--calibration '%s': no calibration.one_way_ns (a ctrbench c2c --format json line)",
			 path);
		json_decref(root);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		json_t *v = json_object_get(ns, map[i].key);

		if (!json_is_number(v))
			continue;
		if (json_number_value(v) <= 0) {
			snprintf(err, errlen, "--calibration '%s': one_way_ns.%s = %g", path, map[i].key,
				 json_number_value(v));
			json_decref(root);
			return -EINVAL;
		}
		for (int k = 0; k < 2; k++)
			if (map[i].cls[k] >= 0)
				c->ns[map[i].cls[k]] = json_number_value(v);
		got++;
	}
	if (!got) {
		snprintf(err, errlen, "--calibration '%s': one_way_ns names no class (smt, ccx, numa, package, remote)",
			 path);
		json_decref(root);
		return -EINVAL;
	}
	snprintf(c->source, sizeof(c->source), "%s (ctrbench c2c, %d classes measured; the rest the Genoa defaults)",
		 path, got);
	{
		const char *base = strrchr(path, '/');

		snprintf(c->name, sizeof(c->name), "%s", base ? base + 1 : path);
	}
	json_decref(root);
	return 0;
}

