/* SPDX-License-Identifier: MIT */
/*
 * pmu presets: each generation's CPU description picks its bounce preset,
 * and every event it encodes is the kernel's event and umask, checked
 * against the table below (typed from the kernel's JSON, not from cpu.c):
 * raw, and through libpfm4 forced to the generation's PMU
 * (LIBPFM_FORCE_PMU) where libpfm4 knows the event.  A CPU without a
 * preset says "no preset for ...", and the CPU detected here is the one
 * /proc/cpuinfo names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>

#include "../testutil.h"
#include "../../pmu/pmu.h"

/* One column as the kernel's perf tables give it. */
struct kernel_event {
	const char *column;	/* ctrbench's column name */
	unsigned event, umask;	/* EventCode, UMask */
};

struct generation {
	const char *cpu;	/* a CTRBENCH_CPU-style description of one such CPU */
	const char *gen;	/* the preset it must get */
	const char *pfm_pmu;	/* libpfm4 4.13's PMU for it, or NULL (no table: raw only) */
	const char *file;	/* where the numbers below come from (torvalds/linux) */
	int amd;		/* AMD's raw format (event:0-7,32-35) rather than Intel's (event:0-7) */
	struct kernel_event ev[6];
	int n;
};

/* Read off the kernel's files by hand: EventCode and UMask of each event named in the comment. */
static const struct generation gens[] = {
	/* Rome: family 17h model 31h. */
	{ "AuthenticAMD 0x17 0x31 0", "Zen 2", "amd64_fam17h_zen2",
	  "tools/perf/pmu-events/arch/x86/amdzen2/memory.json", 1, {
		{ "fill.local_l2", 0x43, 0x01 },		/* ls_refills_from_sys.ls_mabresp_lcl_l2 */
		{ "fill.local_ccx+near_cache", 0x43, 0x02 },	/* ls_refills_from_sys.ls_mabresp_lcl_cache */
		{ "fill.far_cache", 0x43, 0x10 },		/* ls_refills_from_sys.ls_mabresp_rmt_cache */
		{ "fill.dram_near", 0x43, 0x08 },		/* ls_refills_from_sys.ls_mabresp_lcl_dram */
		{ "fill.dram_far", 0x43, 0x40 },		/* ls_refills_from_sys.ls_mabresp_rmt_dram */
	  }, 5 },
	/* Milan: family 19h model 01h. */
	{ "AuthenticAMD 0x19 0x01 1", "Zen 3", "amd64_fam19h_zen3",
	  "tools/perf/pmu-events/arch/x86/amdzen3/memory.json", 1, {
		{ "fill.local_l2", 0x44, 0x01 },	/* ls_any_fills_from_sys.lcl_l2 */
		{ "fill.local_ccx", 0x44, 0x02 },	/* ls_any_fills_from_sys.int_cache */
		{ "fill.near_cache", 0x44, 0x04 },	/* ls_any_fills_from_sys.ext_cache_local */
		{ "fill.far_cache", 0x44, 0x10 },	/* ls_any_fills_from_sys.ext_cache_remote */
		{ "fill.dram_near", 0x44, 0x08 },	/* ls_any_fills_from_sys.mem_io_local */
		{ "fill.dram_far", 0x44, 0x40 },	/* ls_any_fills_from_sys.mem_io_remote */
	  }, 6 },
	/* Genoa: family 19h model 11h. */
	{ "AuthenticAMD 0x19 0x11 1", "Zen 4", "amd64_fam19h_zen4",
	  "tools/perf/pmu-events/arch/x86/amdzen4/cache.json", 1, {
		{ "fill.local_l2", 0x44, 0x01 },	/* ls_any_fills_from_sys.local_l2 */
		{ "fill.local_ccx", 0x44, 0x02 },	/* ls_any_fills_from_sys.local_ccx */
		{ "fill.near_cache", 0x44, 0x04 },	/* ls_any_fills_from_sys.near_cache */
		{ "fill.far_cache", 0x44, 0x10 },	/* ls_any_fills_from_sys.far_cache */
		{ "fill.dram_near", 0x44, 0x08 },	/* ls_any_fills_from_sys.dram_io_near */
		{ "fill.dram_far", 0x44, 0x40 },	/* ls_any_fills_from_sys.dram_io_far */
	  }, 6 },
	/* Family 19h models a0h-afh (Bergamo, Siena): the same Zen 4 tables. */
	{ "AuthenticAMD 0x19 0xa0", "Zen 4", "amd64_fam19h_zen4",
	  "tools/perf/pmu-events/arch/x86/amdzen4/cache.json", 1, {
		{ "fill.local_l2", 0x44, 0x01 },
		{ "fill.local_ccx", 0x44, 0x02 },
		{ "fill.near_cache", 0x44, 0x04 },
		{ "fill.far_cache", 0x44, 0x10 },
		{ "fill.dram_near", 0x44, 0x08 },
		{ "fill.dram_far", 0x44, 0x40 },
	  }, 6 },
	/* Turin: family 1Ah model 02h (perf's "Using CPUID AuthenticAMD-26-2-1" on a Zen 5). */
	{ "AuthenticAMD 0x1a 0x02 1", "Zen 5", NULL,
	  "tools/perf/pmu-events/arch/x86/amdzen5/load-store.json", 1, {
		{ "fill.local_l2", 0x44, 0x01 },	/* ls_any_fills_from_sys.local_l2 */
		{ "fill.local_ccx", 0x44, 0x02 },	/* ls_any_fills_from_sys.local_ccx */
		{ "fill.near_cache", 0x44, 0x04 },	/* ls_any_fills_from_sys.near_cache */
		{ "fill.far_cache", 0x44, 0x10 },	/* ls_any_fills_from_sys.far_cache */
		{ "fill.dram_near", 0x44, 0x08 },	/* ls_any_fills_from_sys.dram_io_near */
		{ "fill.dram_far", 0x44, 0x40 },	/* ls_any_fills_from_sys.dram_io_far */
	  }, 6 },
	{ "GenuineIntel 6 0x8f 8", "Sapphire Rapids", "spr",
	  "tools/perf/pmu-events/arch/x86/sapphirerapids/cache.json", 0, {
		{ "snoop.hitm", 0xd2, 0x04 },		/* MEM_LOAD_L3_HIT_RETIRED.XSNP_FWD */
		{ "snoop.hit", 0xd2, 0x02 },		/* MEM_LOAD_L3_HIT_RETIRED.XSNP_NO_FWD */
		{ "snoop.remote_hitm", 0xd3, 0x04 },	/* MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM */
		{ "snoop.remote_fwd", 0xd3, 0x08 },	/* MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD */
		{ "fill.dram_near", 0xd3, 0x01 },	/* MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM */
		{ "fill.dram_far", 0xd3, 0x02 },	/* MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM */
	  }, 6 },
	{ "GenuineIntel 6 0xcf 2", "Emerald Rapids", NULL,
	  "tools/perf/pmu-events/arch/x86/emeraldrapids/cache.json", 0, {
		{ "snoop.hitm", 0xd2, 0x04 },		/* MEM_LOAD_L3_HIT_RETIRED.XSNP_FWD */
		{ "snoop.hit", 0xd2, 0x02 },		/* MEM_LOAD_L3_HIT_RETIRED.XSNP_NO_FWD */
		{ "snoop.remote_hitm", 0xd3, 0x04 },	/* MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM */
		{ "snoop.remote_fwd", 0xd3, 0x08 },	/* MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD */
		{ "fill.dram_near", 0xd3, 0x01 },	/* MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM */
		{ "fill.dram_far", 0xd3, 0x02 },	/* MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM */
	  }, 6 },
};
#define NR_GENS ((int)(sizeof(gens) / sizeof(gens[0])))

/* The kernel's raw formats: amd/core.c "event: config:0-7,32-35", "umask: config:8-15"; intel/core.c "config:0-7". */
static uint64_t raw_config(int amd, unsigned event, unsigned umask)
{
	uint64_t cfg = (uint64_t)(event & 0xff) | (uint64_t)umask << 8;

	return amd ? cfg | (uint64_t)((event >> 8) & 0xf) << 32 : cfg;
}

static void use_cpu(const char *desc)
{
	struct pmu_cpu c;

	if (pmu_cpu_parse(desc, &c))
		fail_msg("CPU description '%s' did not parse", desc);
	c.source = "test";
	pmu_cpu_set(&c);
}

/* Expand bounce for g's CPU and check every column; 1 if every column went through libpfm4. */
static int check_generation(const struct generation *g, int want_pfm)
{
	struct pmu_event_spec *ev;
	char err[256];
	int n, all_pfm = 1;

	use_cpu(g->cpu);
	assert_non_null(pmu_preset());
	assert_string_equal(pmu_preset()->gen, g->gen);
	assert_string_equal(pmu_preset()->json, g->file);
	assert_null(pmu_preset_reason());
	if (pmu_events_parse("bounce", &ev, &n, err, sizeof(err)))
		fail_msg("%s: %s", g->cpu, err);
	assert_int_equal(n, 2 + g->n);
	assert_string_equal(ev[0].name, "cycles");
	assert_string_equal(ev[1].name, "instructions");
	for (int i = 0; i < g->n; i++) {
		const struct pmu_event_spec *s = &ev[2 + i];
		const struct kernel_event *k = &g->ev[i];
		uint64_t want = raw_config(g->amd, k->event, k->umask);

		assert_string_equal(s->name, k->column);
		if (s->err)
			fail_msg("%s %s: err %d", g->gen, k->column, s->err);
		assert_true(s->hardware);
		assert_non_null(s->col);
		assert_int_equal(s->col->event, k->event);
		assert_int_equal(s->col->umask, k->umask);
		assert_int_equal(s->attr.type, PERF_TYPE_RAW);
		if (s->attr.config != want)
			fail_msg("%s %s (%s): config 0x%llx, the kernel's %s says 0x%llx", g->gen, k->column,
				 s->via ? s->via : "raw", (unsigned long long)s->attr.config, g->file,
				 (unsigned long long)want);
		assert_true(s->attr.exclude_kernel);
		if (want_pfm && !s->via)
			fail_msg("%s %s: not encoded through libpfm4 %s", g->gen, k->column, g->pfm_pmu);
		all_pfm &= s->via != NULL;
	}
	free(ev);
	return all_pfm;
}

/* Every generation, whatever PMU libpfm4 finds here: the encodings are the kernel's numbers. */
static void test_generations(void **state)
{
	(void)state;
	for (int i = 0; i < NR_GENS; i++)
		check_generation(&gens[i], 0);
}

/*
 * Through libpfm4: forced to each generation's PMU, the preset's libpfm4
 * names encode to the kernel's numbers too.  (LIBPFM_FORCE_PMU is read by
 * pfm_initialize, so each case re-initializes libpfm4.)
 */
static void test_libpfm4(void **state)
{
	int checked = 0;

	(void)state;
	for (int i = 0; i < NR_GENS; i++) {
		if (!gens[i].pfm_pmu)
			continue;
		pfm_terminate();
		assert_int_equal(setenv("LIBPFM_FORCE_PMU", gens[i].pfm_pmu, 1), 0);
		assert_int_equal(pfm_initialize(), PFM_SUCCESS);
		assert_true(check_generation(&gens[i], 1));
		checked++;
	}
	pfm_terminate();
	unsetenv("LIBPFM_FORCE_PMU");
	assert_int_equal(pfm_initialize(), PFM_SUCCESS);
	assert_int_equal(checked, 5);
}

/* The model ranges: perf's mapfile.csv for 17h/19h, the kernel's Zen 5 ranges for 1Ah. */
static void test_model_ranges(void **state)
{
	static const struct {
		const char *cpu, *gen;	/* gen NULL: no preset */
	} cases[] = {
		{ "AuthenticAMD 0x17 0x01", NULL },	/* Zen 1 (amdzen1): no preset */
		{ "AuthenticAMD 0x17 0x2f", NULL },
		{ "AuthenticAMD 0x17 0x30", "Zen 2" },
		{ "AuthenticAMD 0x17 0x71", "Zen 2" },
		{ "AuthenticAMD 0x19 0x00", "Zen 3" },
		{ "AuthenticAMD 0x19 0x0f", "Zen 3" },
		{ "AuthenticAMD 0x19 0x10", "Zen 4" },
		{ "AuthenticAMD 0x19 0x1f", "Zen 4" },
		{ "AuthenticAMD 0x19 0x21", "Zen 3" },
		{ "AuthenticAMD 0x19 0x30", "Zen 4" },
		{ "AuthenticAMD 0x19 0x44", "Zen 3" },
		{ "AuthenticAMD 0x19 0x5f", "Zen 3" },
		{ "AuthenticAMD 0x19 0x61", "Zen 4" },
		{ "AuthenticAMD 0x19 0xaf", "Zen 4" },
		{ "AuthenticAMD 0x1a 0x00", "Zen 5" },
		{ "AuthenticAMD 0x1a 0x11", "Zen 5" },
		{ "AuthenticAMD 0x1a 0x44", "Zen 5" },
		{ "AuthenticAMD 0x1a 0x70", "Zen 5" },
		{ "AuthenticAMD 0x1a 0x50", NULL },	/* the kernel's Zen 6 */
		{ "AuthenticAMD 0x1a 0x90", NULL },
		{ "AuthenticAMD 0x15 0x02", NULL },	/* Bulldozer-era */
		{ "GenuineIntel 6 0x8f", "Sapphire Rapids" },
		{ "GenuineIntel 6 207", "Emerald Rapids" },
		{ "GenuineIntel 6 1", NULL },
		{ "GenuineIntel 6 0x6a", NULL },	/* Ice Lake-X: not in the table */
		{ "HygonGenuine 0x18 0x00", NULL },
	};
	struct pmu_cpu c;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pmu_preset *p;

		assert_int_equal(pmu_cpu_parse(cases[i].cpu, &c), 0);
		p = pmu_preset_for(&c);
		if (!cases[i].gen != !p || (p && strcmp(p->gen, cases[i].gen)))
			fail_msg("%s: preset %s, want %s", cases[i].cpu, p ? p->gen : "none",
				 cases[i].gen ? cases[i].gen : "none");
	}
}

/* A CPU without a preset: the columns are listed, each with "no preset for <vendor family model>". */
static void test_no_preset(void **state)
{
	static const struct {
		const char *cpu, *reason, *first;
	} cases[] = {
		{ "GenuineIntel 6 1", "no preset for GenuineIntel family 0x6 model 0x01", "snoop.hitm" },
		{ "AuthenticAMD 0x15 0x02", "no preset for AuthenticAMD family 0x15 model 0x02", "fill.local_l2" },
		{ "AuthenticAMD 23 1", "no preset for AuthenticAMD family 0x17 model 0x01", "fill.local_l2" },
		{ "SomeVendor 1 2", "no preset for SomeVendor family 0x1 model 0x02", "fill.local_l2" },
	};
	struct pmu_event_spec *ev;
	char err[256];
	int n;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		use_cpu(cases[i].cpu);
		assert_null(pmu_preset());
		assert_string_equal(pmu_preset_reason(), cases[i].reason);
		assert_int_equal(pmu_events_parse("bounce", &ev, &n, err, sizeof(err)), 0);
		assert_int_equal(n, 8);
		assert_string_equal(ev[2].name, cases[i].first);
		for (int k = 2; k < n; k++) {
			assert_int_equal(ev[k].err, ENXIO);
			assert_string_equal(pmu_reason(ev[k].err, PMU_PHASE_NAME), cases[i].reason);
			assert_string_equal(pmu_reason_tag(ev[k].err, PMU_PHASE_NAME), "no preset");
		}
		free(ev);
		/* A column typed alone says the same, and is not a typo to the strict parser. */
		assert_int_equal(pmu_events_parse_strict("fill.dram_far", &ev, &n, err, sizeof(err)), 0);
		assert_int_equal(ev[0].err, ENXIO);
		free(ev);
	}
}

/* Column names line up: Zen 3, 4 and 5 the same six; Zen 2 merges two; Intel shares the DRAM pair. */
static void test_columns_line_up(void **state)
{
	const struct pmu_preset *zen4 = NULL;

	(void)state;
	for (int i = 0; i < pmu_nr_presets; i++)
		if (!strcmp(pmu_presets[i].gen, "Zen 4"))
			zen4 = &pmu_presets[i];
	assert_non_null(zen4);
	for (int i = 0; i < pmu_nr_presets; i++) {
		const struct pmu_preset *p = &pmu_presets[i];

		if (!strcmp(p->gen, "Zen 3") || !strcmp(p->gen, "Zen 5"))
			for (int k = 0; k < p->ncols; k++)
				assert_string_equal(p->cols[k].column, zen4->cols[k].column);
		assert_non_null(pmu_preset_column(p, "fill.dram_near"));
		assert_non_null(pmu_preset_column(p, "fill.dram_far"));
	}
}

static void test_cpu_parse(void **state)
{
	static const char *const bad[] = { "", "AuthenticAMD", "AuthenticAMD 25", "AuthenticAMD x 1",
					   "AuthenticAMD 0x19 0x100", "AuthenticAMD 1 2 3 4",
					   "AuthenticAMD 25 -1", "AuthenticAMD 25 1x", "AVendorNameTooLong 1 2" };
	struct pmu_cpu c;

	(void)state;
	assert_int_equal(pmu_cpu_parse("AuthenticAMD 0x19 17 2", &c), 0);
	assert_string_equal(c.vendor, "AuthenticAMD");
	assert_int_equal(c.family, 0x19);
	assert_int_equal(c.model, 0x11);
	assert_int_equal(c.stepping, 2);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (pmu_cpu_parse(bad[i], &c) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);

	/* A bad CTRBENCH_CPU: said once, and bounce refuses to guess. */
	{
		struct pmu_event_spec *ev;
		char err[256];
		int n;

		assert_int_equal(setenv("CTRBENCH_CPU", "AuthenticAMD zen4", 1), 0);
		pmu_cpu_detect();
		assert_non_null(pmu_cpu_error());
		assert_non_null(strstr(pmu_cpu_error(), "'AuthenticAMD zen4'"));
		assert_int_equal(pmu_events_parse("bounce", &ev, &n, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "bad CTRBENCH_CPU"));
		assert_int_equal(setenv("CTRBENCH_CPU", "AuthenticAMD 0x19 0x11", 1), 0);
		pmu_cpu_detect();
		assert_null(pmu_cpu_error());
		assert_string_equal(pmu_cpu()->source, "CTRBENCH_CPU");
		assert_string_equal(pmu_preset()->gen, "Zen 4");
		unsetenv("CTRBENCH_CPU");
	}
}

/* What this machine's cpuid says is what /proc/cpuinfo says (the kernel decodes the same leaf). */
static void test_detect_here(void **state)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096], vendor[32] = "";
	unsigned fam = 0, model = 0;
	int got = 0;
	const struct pmu_cpu *c;

	(void)state;
	if (!f)
		skip();
	while (got != 7 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "vendor_id : %31s", vendor) == 1)
			got |= 1;
		else if (sscanf(line, "cpu family : %u", &fam) == 1)
			got |= 2;
		else if (sscanf(line, "model : %u", &model) == 1)
			got |= 4;
	}
	fclose(f);
	if (got != 7)
		skip();	/* not x86: no vendor_id/cpu family there */
	unsetenv("CTRBENCH_CPU");
	pmu_cpu_detect();
	c = pmu_cpu();
	printf("# detected: %s family 0x%x model 0x%02x stepping %u from %s%s\n", c->vendor, c->family,
	       c->model, c->stepping, c->source, c->hypervisor ? ", hypervisor" : "");
	assert_string_equal(c->vendor, vendor);
	assert_int_equal(c->family, fam);
	assert_int_equal(c->model, model);
	assert_true(pmu_preset() || pmu_preset_reason());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generations),
		cmocka_unit_test(test_libpfm4),
		cmocka_unit_test(test_model_ranges),
		cmocka_unit_test(test_no_preset),
		cmocka_unit_test(test_columns_line_up),
		cmocka_unit_test(test_cpu_parse),
		cmocka_unit_test(test_detect_here),
	};

	unsetenv("CTRBENCH_CPU");
	pmu_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
