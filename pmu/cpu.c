/* SPDX-License-Identifier: MIT */
/*
 * cpu.c - which CPU this is (cpuid, else /proc/cpuinfo, or CTRBENCH_CPU for
 * tests) and the bounce preset for it: one row per generation with the
 * fill-source (AMD) or snoop (Intel) events under column names that stay the
 * same across generations, so reports of two machines line up.
 *
 * Every event and umask number below is the kernel's: tools/perf/pmu-events/
 * arch/x86/<dir>/<file>.json in torvalds/linux (EventCode, UMask), the file
 * named on each row.  Where libpfm4 4.13 knows the event its name is given
 * too, and pmu.c encodes through it; else pmu.c encodes the numbers raw.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "pmu.h"

/*
 * Which generation a family/model is.  AMD: perf's own mapping,
 * tools/perf/pmu-events/arch/x86/mapfile.csv (torvalds/linux b333067ff3b0):
 *   AuthenticAMD-23-([12][0-9A-F]|[0-9A-F])          amdzen1  (17h models 00-2f)
 *   AuthenticAMD-23-[[:xdigit:]]+                     amdzen2  (17h, the rest)
 *   AuthenticAMD-25-([245][[:xdigit:]]|[[:xdigit:]])  amdzen3  (19h 00-0f, 20-2f, 40-5f)
 *   AuthenticAMD-25-[[:xdigit:]]+                     amdzen4  (19h, the rest)
 * and the row "AuthenticAMD-26-[[:xdigit:]]+,v1,amdzen5" that Sandipan Das's
 * patch "perf vendor events amd: Add Zen 5 mapping" added.  Family 1Ah is
 * narrowed to the kernel's own Zen 5 ranges, arch/x86/kernel/cpu/amd.c
 * bsp_init_amd() (X86_FEATURE_ZEN5: 00-2f, 40-4f, 60-7f): it calls 50-5f,
 * 80-af and c0-cf Zen 6, which the amdzen5 tables were not written for.
 * Intel: mapfile.csv GenuineIntel-6-8F sapphirerapids, GenuineIntel-6-CF
 * emeraldrapids.
 *
 * Raw encodings (pmu_preset_config): the kernel's format attributes,
 * arch/x86/events/amd/core.c "event: config:0-7,32-35", "umask: config:8-15";
 * arch/x86/events/intel/core.c "event: config:0-7", "umask: config:8-15".
 */
const struct pmu_preset pmu_presets[] = {
	{
		.gen = "Zen 2", .vendor = "AuthenticAMD", .family = 0x17,
		.nranges = 1, .models = { { 0x30, 0xff } },
		/* Demand fills only: Zen 2 has no "any fills" event (0x44 is Zen 3's first). */
		.json = "tools/perf/pmu-events/arch/x86/amdzen2/memory.json",
		.ncols = 5,
		.cols = {
			{ "fill.local_l2", "amd64_fam17h_zen2::DATA_CACHE_REFILLS_FROM_SYSTEM:MABRESP_LCL_L2",
			  "ls_refills_from_sys.ls_mabresp_lcl_l2", 0x43, 0x01 },
			/* "Hit in cache; local CCX (not Local L2), or Remote CCX and the address's
			   Home Node is on this thread's die": same CCX and other CCX merged. */
			{ "fill.local_ccx+near_cache",
			  "amd64_fam17h_zen2::DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_CACHE",
			  "ls_refills_from_sys.ls_mabresp_lcl_cache", 0x43, 0x02 },
			{ "fill.far_cache", "amd64_fam17h_zen2::DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_RMT_CACHE",
			  "ls_refills_from_sys.ls_mabresp_rmt_cache", 0x43, 0x10 },
			{ "fill.dram_near", "amd64_fam17h_zen2::DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM",
			  "ls_refills_from_sys.ls_mabresp_lcl_dram", 0x43, 0x08 },
			{ "fill.dram_far", "amd64_fam17h_zen2::DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_RMT_DRAM",
			  "ls_refills_from_sys.ls_mabresp_rmt_dram", 0x43, 0x40 },
		},
	},
	{
		.gen = "Zen 3", .vendor = "AuthenticAMD", .family = 0x19,
		.nranges = 3, .models = { { 0x00, 0x0f }, { 0x20, 0x2f }, { 0x40, 0x5f } },
		.json = "tools/perf/pmu-events/arch/x86/amdzen3/memory.json",
		.ncols = 6,
		.cols = {
			{ "fill.local_l2", "amd64_fam19h_zen3::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:LCL_L2",
			  "ls_any_fills_from_sys.lcl_l2", 0x44, 0x01 },
			{ "fill.local_ccx", "amd64_fam19h_zen3::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:INT_CACHE",
			  "ls_any_fills_from_sys.int_cache", 0x44, 0x02 },
			{ "fill.near_cache", "amd64_fam19h_zen3::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_LCL",
			  "ls_any_fills_from_sys.ext_cache_local", 0x44, 0x04 },
			{ "fill.far_cache", "amd64_fam19h_zen3::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_RMT",
			  "ls_any_fills_from_sys.ext_cache_remote", 0x44, 0x10 },
			{ "fill.dram_near", "amd64_fam19h_zen3::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL",
			  "ls_any_fills_from_sys.mem_io_local", 0x44, 0x08 },
			{ "fill.dram_far", "amd64_fam19h_zen3::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_RMT",
			  "ls_any_fills_from_sys.mem_io_remote", 0x44, 0x40 },
		},
	},
	{
		.gen = "Zen 4", .vendor = "AuthenticAMD", .family = 0x19,
		.nranges = 3, .models = { { 0x10, 0x1f }, { 0x30, 0x3f }, { 0x60, 0xff } },
		.json = "tools/perf/pmu-events/arch/x86/amdzen4/cache.json",
		.ncols = 6,
		.cols = {
			{ "fill.local_l2", "amd64_fam19h_zen4::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:LCL_L2",
			  "ls_any_fills_from_sys.local_l2", 0x44, 0x01 },
			{ "fill.local_ccx", "amd64_fam19h_zen4::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:LOCAL_CCX",
			  "ls_any_fills_from_sys.local_ccx", 0x44, 0x02 },
			{ "fill.near_cache", "amd64_fam19h_zen4::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:NEAR_CACHE_NEAR_FAR",
			  "ls_any_fills_from_sys.near_cache", 0x44, 0x04 },
			{ "fill.far_cache", "amd64_fam19h_zen4::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:FAR_CACHE_NEAR_FAR",
			  "ls_any_fills_from_sys.far_cache", 0x44, 0x10 },
			{ "fill.dram_near", "amd64_fam19h_zen4::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_NEAR",
			  "ls_any_fills_from_sys.dram_io_near", 0x44, 0x08 },
			{ "fill.dram_far", "amd64_fam19h_zen4::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_FAR",
			  "ls_any_fills_from_sys.dram_io_far", 0x44, 0x40 },
		},
	},
	{
		/* libpfm4 4.13 has no Zen 5 table: every event raw. */
		.gen = "Zen 5", .vendor = "AuthenticAMD", .family = 0x1a,
		.nranges = 3, .models = { { 0x00, 0x2f }, { 0x40, 0x4f }, { 0x60, 0x7f } },
		.json = "tools/perf/pmu-events/arch/x86/amdzen5/load-store.json",
		.ncols = 6,
		.cols = {
			{ "fill.local_l2", NULL, "ls_any_fills_from_sys.local_l2", 0x44, 0x01 },
			{ "fill.local_ccx", NULL, "ls_any_fills_from_sys.local_ccx", 0x44, 0x02 },
			{ "fill.near_cache", NULL, "ls_any_fills_from_sys.near_cache", 0x44, 0x04 },
			{ "fill.far_cache", NULL, "ls_any_fills_from_sys.far_cache", 0x44, 0x10 },
			{ "fill.dram_near", NULL, "ls_any_fills_from_sys.dram_io_near", 0x44, 0x08 },
			{ "fill.dram_far", NULL, "ls_any_fills_from_sys.dram_io_far", 0x44, 0x40 },
		},
	},
	{
		/* Retired loads by data source: an L3 hit that a core of this socket had to
		   forward modified (HITM), or hit clean there; misses served remotely. */
		.gen = "Sapphire Rapids", .vendor = "GenuineIntel", .family = 6,
		.nranges = 1, .models = { { 0x8f, 0x8f } },
		.json = "tools/perf/pmu-events/arch/x86/sapphirerapids/cache.json",
		.ncols = 6,
		.cols = {
			{ "snoop.hitm", "spr::MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD",
			  "MEM_LOAD_L3_HIT_RETIRED.XSNP_FWD", 0xd2, 0x04 },
			{ "snoop.hit", "spr::MEM_LOAD_L3_HIT_RETIRED:XSNP_NO_FWD",
			  "MEM_LOAD_L3_HIT_RETIRED.XSNP_NO_FWD", 0xd2, 0x02 },
			{ "snoop.remote_hitm", "spr::MEM_LOAD_L3_MISS_RETIRED:REMOTE_HITM",
			  "MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM", 0xd3, 0x04 },
			{ "snoop.remote_fwd", "spr::MEM_LOAD_L3_MISS_RETIRED:REMOTE_FWD",
			  "MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD", 0xd3, 0x08 },
			{ "fill.dram_near", "spr::MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM",
			  "MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM", 0xd3, 0x01 },
			{ "fill.dram_far", "spr::MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM",
			  "MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM", 0xd3, 0x02 },
		},
	},
	{
		/* The same events as Sapphire Rapids; libpfm4 4.13 has no Emerald Rapids table. */
		.gen = "Emerald Rapids", .vendor = "GenuineIntel", .family = 6,
		.nranges = 1, .models = { { 0xcf, 0xcf } },
		.json = "tools/perf/pmu-events/arch/x86/emeraldrapids/cache.json",
		.ncols = 6,
		.cols = {
			{ "snoop.hitm", NULL, "MEM_LOAD_L3_HIT_RETIRED.XSNP_FWD", 0xd2, 0x04 },
			{ "snoop.hit", NULL, "MEM_LOAD_L3_HIT_RETIRED.XSNP_NO_FWD", 0xd2, 0x02 },
			{ "snoop.remote_hitm", NULL, "MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM", 0xd3, 0x04 },
			{ "snoop.remote_fwd", NULL, "MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD", 0xd3, 0x08 },
			{ "fill.dram_near", NULL, "MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM", 0xd3, 0x01 },
			{ "fill.dram_far", NULL, "MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM", 0xd3, 0x02 },
		},
	},
};
const int pmu_nr_presets = (int)(sizeof(pmu_presets) / sizeof(pmu_presets[0]));

/* The CPU the presets are chosen for; written only while single-threaded (pmu_init, tests). */
static struct pmu_cpu pmu_the_cpu;
static int pmu_cpu_known;
static const struct pmu_preset *pmu_the_preset;
/* "no preset for ..." of pmu_the_cpu, for pmu_reason (static: any thread may read it). */
static char pmu_no_preset[128];
/* A CTRBENCH_CPU that did not parse: the message, else "". */
static char pmu_cpu_err[200];

int pmu_cpu_parse(const char *s, struct pmu_cpu *c)
{
	unsigned long v[3] = { 0, 0, 0 };
	const char *p = s;
	char *end;
	size_t len;
	int n = 0;

	memset(c, 0, sizeof(*c));
	p += strspn(p, " ");
	len = strcspn(p, " ");
	if (!len || len >= sizeof(c->vendor))
		return -EINVAL;
	memcpy(c->vendor, p, len);
	p += len;
	while (*p) {
		p += strspn(p, " ");
		if (!*p)
			break;
		if (n == 3 || *p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v[n] = strtoul(p, &end, 0);
		if (errno || end == p || (*end && *end != ' ') || v[n] > 0xff)
			return -EINVAL;
		n++;
		p = end;
	}
	if (n < 2)
		return -EINVAL;
	c->family = (unsigned)v[0];
	c->model = (unsigned)v[1];
	c->stepping = (unsigned)v[2];
	return 0;
}

const struct pmu_preset *pmu_preset_for(const struct pmu_cpu *c)
{
	for (int i = 0; i < pmu_nr_presets; i++) {
		const struct pmu_preset *p = &pmu_presets[i];

		if (strcmp(p->vendor, c->vendor) || p->family != c->family)
			continue;
		for (int r = 0; r < p->nranges; r++)
			if (c->model >= p->models[r].lo && c->model <= p->models[r].hi)
				return p;
	}
	return NULL;
}

void pmu_cpu_id(const struct pmu_cpu *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s family 0x%x model 0x%02x", c->vendor[0] ? c->vendor : "(unknown vendor)",
		 c->family, c->model);
}

uint64_t pmu_preset_config(const struct pmu_preset *p, const struct pmu_preset_col *col)
{
	uint64_t ev = col->event, um = col->umask & 0xff;

	if (!strcmp(p->vendor, "AuthenticAMD"))
		return (ev & 0xff) | ((ev >> 8) & 0xf) << 32 | um << 8;
	return (ev & 0xff) | um << 8;
}

#if defined(__x86_64__) || defined(__i386__)
/* cpuid leaves 0, 1 and the brand string; 0 when cpuid gave them. */
static int pmu_cpu_cpuid(struct pmu_cpu *c)
{
	unsigned a, b, cx, d, fam, mod;
	unsigned brand[12];

	if (!__get_cpuid(0, &a, &b, &cx, &d))
		return -1;
	memcpy(c->vendor, &b, 4);
	memcpy(c->vendor + 4, &d, 4);
	memcpy(c->vendor + 8, &cx, 4);
	c->vendor[12] = 0;
	if (a < 1 || !__get_cpuid(1, &a, &b, &cx, &d))
		return -1;
	/* The kernel's x86_family()/x86_model(), arch/x86/lib/cpu.c. */
	fam = (a >> 8) & 0xf;
	if (fam == 0xf)
		fam += (a >> 20) & 0xff;
	mod = (a >> 4) & 0xf;
	if (fam >= 0x6)
		mod += ((a >> 16) & 0xf) << 4;
	c->family = fam;
	c->model = mod;
	c->stepping = a & 0xf;
	c->hypervisor = !!(cx & (1u << 31));
	if (__get_cpuid(0x80000000, &a, &b, &cx, &d) && a >= 0x80000004) {
		for (unsigned i = 0; i < 3; i++)
			__get_cpuid(0x80000002 + i, &brand[4 * i], &brand[4 * i + 1], &brand[4 * i + 2],
				    &brand[4 * i + 3]);
		memcpy(c->name, brand, sizeof(brand) < sizeof(c->name) ? sizeof(brand) : sizeof(c->name) - 1);
	}
	c->source = "cpuid";
	return 0;
}
#else
static int pmu_cpu_cpuid(struct pmu_cpu *c)
{
	(void)c;
	return -1;
}
#endif

/* The first processor's vendor_id, cpu family, model, stepping, model name and flags. */
static int pmu_cpu_procfs(struct pmu_cpu *c)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	int got = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;

		if (line[0] == '\n' && got)
			break;	/* the end of the first processor */
		if (!colon)
			continue;
		v = colon + 1 + strspn(colon + 1, " \t");
		v[strcspn(v, "\n")] = 0;
		if (!strncmp(line, "vendor_id", 9)) {
			snprintf(c->vendor, sizeof(c->vendor), "%s", v);
			got |= 1;
		} else if (!strncmp(line, "cpu family", 10)) {
			c->family = (unsigned)strtoul(v, NULL, 10);
			got |= 2;
		} else if (!strncmp(line, "model name", 10)) {
			snprintf(c->name, sizeof(c->name), "%s", v);
		} else if (!strncmp(line, "model", 5) && (line[5] == ' ' || line[5] == '\t')) {
			c->model = (unsigned)strtoul(v, NULL, 10);
			got |= 4;
		} else if (!strncmp(line, "stepping", 8)) {
			c->stepping = (unsigned)strtoul(v, NULL, 10);
		} else if (!strncmp(line, "flags", 5)) {
			c->hypervisor = !!strstr(v, " hypervisor") || !strncmp(v, "hypervisor", 10);
		}
	}
	fclose(f);
	c->source = "/proc/cpuinfo";
	return got == 7 ? 0 : -1;
}

void pmu_cpu_set(const struct pmu_cpu *c)
{
	char id[96];

	pmu_the_cpu = *c;
	pmu_cpu_known = 1;
	pmu_the_preset = pmu_preset_for(c);
	pmu_cpu_id(c, id, sizeof(id));
	snprintf(pmu_no_preset, sizeof(pmu_no_preset), "no preset for %s", id);
}

void pmu_cpu_detect(void)
{
	const char *env = getenv("CTRBENCH_CPU");
	struct pmu_cpu c;

	pmu_cpu_err[0] = 0;
	if (env) {
		if (!pmu_cpu_parse(env, &c)) {
			c.source = "CTRBENCH_CPU";
			pmu_cpu_set(&c);
			return;
		}
		snprintf(pmu_cpu_err, sizeof(pmu_cpu_err), "bad CTRBENCH_CPU '%.80s' (want VENDOR FAMILY "
			 "MODEL [STEPPING], e.g. 'AuthenticAMD 0x19 0x11')", env);
	}
	memset(&c, 0, sizeof(c));
	if (pmu_cpu_cpuid(&c)) {
		memset(&c, 0, sizeof(c));
		if (pmu_cpu_procfs(&c)) {
			memset(&c, 0, sizeof(c));
			c.source = "nothing (no cpuid, no /proc/cpuinfo)";
		}
	}
	pmu_cpu_set(&c);
}

const struct pmu_cpu *pmu_cpu(void)
{
	if (!pmu_cpu_known)
		pmu_cpu_detect();
	return &pmu_the_cpu;
}

const struct pmu_preset *pmu_preset(void)
{
	pmu_cpu();
	return pmu_the_preset;
}

const char *pmu_preset_reason(void)
{
	pmu_cpu();
	return pmu_the_preset ? NULL : pmu_no_preset;
}

const char *pmu_cpu_error(void)
{
	pmu_cpu();
	return pmu_cpu_err[0] ? pmu_cpu_err : NULL;
}

const struct pmu_preset_col *pmu_preset_column(const struct pmu_preset *p, const char *name)
{
	for (int i = 0; p && i < p->ncols; i++)
		if (!strcmp(p->cols[i].column, name))
			return &p->cols[i];
	return NULL;
}

/* The columns a CPU without a preset lists: its vendor's newest row's, else Zen 4's. */
static const struct pmu_preset *pmu_preset_columns_of(const struct pmu_cpu *c)
{
	const struct pmu_preset *p = pmu_preset_for(c), *zen4 = NULL;

	if (p)
		return p;
	for (int i = 0; i < pmu_nr_presets; i++) {
		if (!strcmp(pmu_presets[i].vendor, c->vendor))
			p = &pmu_presets[i];
		if (!strcmp(pmu_presets[i].gen, "Zen 4"))
			zen4 = &pmu_presets[i];
	}
	return p ? p : zen4;
}

int pmu_preset_is_column(const char *name)
{
	for (int i = 0; i < pmu_nr_presets; i++)
		if (pmu_preset_column(&pmu_presets[i], name))
			return 1;
	return 0;
}

int pmu_preset_bounce_names(const char **names, int max)
{
	const struct pmu_preset *p = pmu_preset_columns_of(pmu_cpu());
	int n = 0;

	if (n < max)
		names[n++] = "cycles";
	if (n < max)
		names[n++] = "instructions";
	for (int i = 0; p && i < p->ncols && n < max; i++)
		names[n++] = p->cols[i].column;
	return n;
}
