/* SPDX-License-Identifier: MIT */
/*
 * cmd-recommend.c - `ctrbench recommend`: rank the algorithms for a
 * workload (updates/s, reads/s, tree depth, how stale a read may be) by the
 * CPU time they would spend on it, from measured results, and show the
 * evidence behind each rank.  This file parses the query; the ranking is
 * bench/recommend/ (recommend.h says which part is where).  docs/sweeps.md
 * describes the cost model and the selection rules for users; each is also
 * printed with every answer.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"
#include "run.h"
#include "recommend/recommend.h"
#include "verdict.h"

static double rec_parse_rate(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!bench_plain_number(s) || errno || end == s || *end || !isfinite(v) || v < 0)
		die("bad value '%s' for --%s (want a number >= 0, like 2e6)", s, opt);
	return v;
}

#define REC_STALENESS_WANT "want EXACT, or one or more of a count like 100, a fraction like 1%%," \
	" a time like 2000ms or 2s (1 ms to 24 h), comma-separated, each kind once"

/* One item of --max-staleness (not EXACT) into q: 1, 0 if it is not one, -1 if its kind came before. */
static int rec_parse_staleness_item(const char *it, size_t len, struct rec_query *q)
{
	char buf[32], *end;
	size_t digits;

	if (!len || len >= sizeof(buf))
		return 0;
	memcpy(buf, it, len);
	buf[len] = 0;
	digits = strspn(buf, "0123456789");
	errno = 0;
	if (buf[len - 1] == '%') {
		double f;

		buf[len - 1] = 0;
		f = strtod(buf, &end);
		if (!digits || strspn(buf, "0123456789.") != len - 1 || end != buf + len - 1 || errno ||
		    !(f > 0 && f <= 100))
			return 0;
		if (q->fraction)
			return -1;
		q->fraction = f / 100;
		return 1;
	}
	if (!digits || digits > 12)
		return 0;
	if (!buf[digits]) {
		if (q->count >= 0)
			return -1;
		q->count = strtoll(buf, &end, 10);
		return 1;
	}
	if (strcmp(buf + digits, "ms") && strcmp(buf + digits, "s"))
		return 0;
	if (q->ms)
		return -1;
	q->ms = strtoll(buf, &end, 10) * (buf[digits + 1] ? 1 : 1000);
	return q->ms >= 1 && q->ms <= 24LL * 3600 * 1000;
}

/* EXACT, or N, P%, T (MSms or Ss) combined with commas: all must hold. */
static void rec_parse_staleness(const char *s, struct rec_query *q)
{
	const char *it = s;

	q->spec = s;
	q->count = -1;
	q->fraction = 0;
	q->ms = 0;
	q->exact = !strcasecmp(s, "exact");
	if (q->exact)
		return;
	for (;;) {
		size_t len = strcspn(it, ",");
		int r = rec_parse_staleness_item(it, len, q);

		if (r < 0)
			die("bad value '%s' for --max-staleness: '%.*s' is a second %s (each kind once)", s,
			    (int)len, it, it[len - 1] == '%' ? "fraction" : isdigit((unsigned char)it[len - 1]) ?
			    "count" : "time");
		if (!r && len == 5 && !strncasecmp(it, "exact", 5))
			die("bad value '%s' for --max-staleness: EXACT stands alone", s);
		if (!r)
			die("bad value '%s' for --max-staleness: '%.*s' is not an item (" REC_STALENESS_WANT ")",
			    s, (int)len, it);
		if (!it[len])
			return;
		it += len + 1;
	}
}



/* the help text says 512 per updater: the swing's mean */
_Static_assert(BENCH_SWING == 1024, "recommend --help states BENCH_SWING / 2 as 512");

/* --max-staleness's value as the usage, the option's line and a missing-option error write it */
#define REC_STALENESS_SYNTAX "EXACT|N|P%|T[,...]"

static const char *const rec_help =
	"usage: ctrbench recommend --updates-per-sec U --reads-per-sec R --depth D\n"
	"                          --max-staleness " REC_STALENESS_SYNTAX " [options]\n"
	"\n"
	"Ranks the algorithms for a workload by the CPU time they would spend on it (docs/sweeps.md),\n"
	"each with an interval from the reps of its results; overlapping ones share a rank as a tie,\n"
	"with the sweep that would separate them.\n"
	"\n"
	"  --updates-per-sec U      updates per second of the target (required)\n"
	"  --reads-per-sec R        reads per second (required)\n"
	"  --depth D                tree depth, root included (required)\n"
	"  --max-staleness " REC_STALENESS_SYNTAX "  how far off a read may be (required): EXACT,\n"
	"                           or any of a count N, a fraction P% of --counter-value (else of the\n"
	"                           mean value the readers workload read: 512 per updater under the\n"
	"                           node read, its swing's mean), a time T as MSms or Ss;\n"
	"                           comma-separated, all must hold: 1%,2s\n"
	"  --counter-value V        the value the target's counter holds, which P% is of (default: the\n"
	"                           benchmark's mean value read, as above)\n"
	"  --results FILE           sweep results to rank from (default: a quick sweep now, 100 ms runs)\n"
	"  --threads T              CPUs the target updates from (default: the most the results have)\n"
	"  --format F               table or json (default table)\n"
	"  --verdict                with --results: the verdict alone, as run and make run end with: the\n"
	"                           designs measured, ranked by each workload's figure, exact and\n"
	"                           approximate ones apart (no other option needed)\n"
	"\n"
	"example: ctrbench recommend --updates-per-sec 2e6 --reads-per-sec 1e4 --depth 5 \\\n"
	"             --max-staleness 1%,2s --results results.jsonl\n";

static void rec_parse_args(int argc, char **argv, struct rec_state *st)
{
	static const struct option opts[] = {
		{ "updates-per-sec", required_argument, NULL, 'u' },
		{ "reads-per-sec", required_argument, NULL, 'r' },
		{ "depth", required_argument, NULL, 'd' },
		{ "max-staleness", required_argument, NULL, 's' },
		{ "results", required_argument, NULL, 'R' },
		{ "threads", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'f' },
		{ "counter-value", required_argument, NULL, 'V' },
		{ "verdict", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	bench_help(argc, argv, rec_help);
	optind = 0;
	opterr = 0;
	while ((c = bench_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case 'u':
			st->q.updates = rec_parse_rate("updates-per-sec", optarg);
			break;
		case 'r':
			st->q.reads = rec_parse_rate("reads-per-sec", optarg);
			break;
		case 'd':
			st->q.depth = bench_parse_int("depth", optarg, 1, 4096);
			break;
		case 's':
			rec_parse_staleness(optarg, &st->q);
			break;
		case 'R':
			st->results = optarg;
			break;
		case 't':
			st->q.threads = bench_parse_int("threads", optarg, 1, 4096);
			break;
		case 'f':
			st->json = bench_parse_table_json("recommend", optarg);
			break;
		case 'V':
			st->q.value = bench_parse_num("counter-value", optarg, 1e-9, 1e18);
			break;
		case 'v':
			st->verdict = 1;
			break;
		default:
			bench_die_getopt(c, argv);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	if (st->verdict) {
		if (!st->results)
			die("recommend --verdict needs --results FILE");
		return;
	}
	{
		static const char *const need[] = { "--updates-per-sec U", "--reads-per-sec R",
						    "--depth D", "--max-staleness " REC_STALENESS_SYNTAX };
		const int missing[] = { st->q.updates < 0, st->q.reads < 0, !st->q.depth, !st->q.spec };

		bench_need("recommend", need, missing, 4, "(ctrbench recommend --help)");
	}
}

int bench_cmd_recommend(int argc, char **argv)
{
	struct rec_state *st = bench_xcalloc(1, sizeof(*st));
	int ret;

	st->q = (struct rec_query){ .updates = -1, .reads = -1 };
	st->machines = json_array();
	st->caveats = json_array();
	rec_parse_args(argc, argv, st);
	if (st->verdict) {
		bench_verdict_file(st->results);
		bench_rec_free(st);
		return 0;
	}
	if (!st->results && bench_rec_quick_sweep(st))
		return 1;
	bench_rec_load(st);
	bench_rec_rank(st);
	bench_rec_findings(st);
	if (st->json)
		bench_rec_print_json(st);
	else
		bench_rec_print_table(st);
	ret = st->status ? 1 : 0;
	bench_rec_free(st);
	return ret;
}

