/* SPDX-License-Identifier: MIT */
/*
 * zswap_store_nolimit.c - seed 000's store with no zswap.max: the update path
 * only (one update per store), depths 1-32, 20 workers; the body is
 * zswap-store-limit's (scn_store, scn_store_project) without the limit.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../cli.h"
#include "../project.h"
#include "../../topology/topo.h"
#include "scenario.h"

static void scn_store_nolimit_run(struct scn_ctx *c)
{
	scn_store(c, BENCH_UPDATE);
}

static void scn_store_nolimit_project(const struct scn_proj *p)
{
	scn_store_project(p, 0);
}

const struct scn scn_zswap_store_nolimit = {
	.name = "zswap-store-nolimit",
	.seed = "000_2f7e5ca340efc1f8.txt",
	.what = "the same store with no limit: the update path only",
	.seed_table = "store_nolimit",
	.seed_machine = "20 workers",
	.seed_cpus = 80,
	.opts = SCN_OPT_ENGINE | SCN_OPT_WORK_NS | SCN_OPT_NO_CAP,
	.run = scn_store_nolimit_run,
	.project = scn_store_nolimit_project,
};
