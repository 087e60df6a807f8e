/* SPDX-License-Identifier: MIT */
/*
 * sweep.c - `ctrbench sweep`'s engine (sweep.h): the cross product of
 * --algo x --workload x --shape x --placement x --threads, checked before
 * anything runs, one result line per finished configuration.
 *
 * Each point (workload, shape, placement, threads) is one group of the
 * executor (bench/exec.h): its algorithms measured in a process of its own,
 * forked from this one, their reps interleaved.  A crash (or a sanitizer
 * abort) of one group ends that group, not the sweep: it is reported, the
 * sweep goes on and ends with exit status 1.  Every rep goes to --out as
 * it is measured (one write(2) on an O_APPEND descriptor, then fsync), so a
 * sweep killed at any moment loses at most the rep in flight and leaves at
 * most a partial last line (killed inside the write), which the next
 * --resume drops, saying so; --resume runs only what --out lacks, down to
 * the reps of a half-done configuration.  --resume matches every identity
 * field of the table and the build (env.commit, env.cflags), so a rebuilt
 * binary re-runs what it did not measure itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "../topology/topo.h"
#include "cli.h"
#include "record.h"
#include "env.h"
#include "exec.h"
#include "outfile.h"
#include "progress.h"
#include "setup.h"
#include "results.h"
#include "run.h"
#include "schema.h"
#include "setup.h"
#include "sweep.h"

/* ---- signals ---- */

int bench_sweep_interrupted(void)
{
	return bench_was_interrupted();
}

/* ---- the output file ---- */

struct sweep_state {
	const struct bench_sweep *s;	/* what to run */
	int fd;				/* --out, O_APPEND, locked */
	struct bench_results done;	/* its lines before this sweep (--resume) */
};

/*
 * Open --out for appending under an exclusive lock (two sweeps appending to
 * one file would interleave configurations); with --resume, read what is
 * there.  bench_outfile_open (outfile.h), scenario's too, says what it refuses.
 */
static void sweep_open_out(struct sweep_state *st)
{
	const struct bench_outfile o = { .cmd = "sweep", .path = st->s->out, .resume = st->s->resume };

	st->fd = bench_outfile_open(&o, &st->done);	/* the executor reads back what is whole and the reps of what is not */
}

/* "atomic_tree,percpu_hier update chain:2 --threads 1 --placement compact" */
static char *sweep_describe(const struct bench_sweep *s, const char *workload, const char *shape,
			    const char *placement, int threads, int with_algos)
{
	size_t len = 64 + strlen(workload) + strlen(shape) + strlen(placement);
	char *buf;

	for (int a = 0; with_algos && a < s->nr_algos; a++)
		len += strlen(s->algo[a]->name) + 1;
	buf = bench_xcalloc(len, 1);
	for (int a = 0; with_algos && a < s->nr_algos; a++)
		strcat(strcat(buf, a ? "," : ""), s->algo[a]->name);
	snprintf(buf + strlen(buf), len - strlen(buf), "%s%s %s --threads %d --placement %s",
		 with_algos ? " " : "", workload, shape, threads, placement);
	return buf;
}

/*
 * The configuration of point i (sweep-plan.c's order), on the machine set
 * up in base.  Its slots are left 0 (bench_setup_threads's default, as
 * run's) unless --slots: bench_sweep_ident fills in what the line will say.
 */
static struct bench_config sweep_config(const struct bench_sweep *s, const struct bench_config *base, int i)
{
	const int per_shape = s->nr_placements * s->nr_threads;
	struct bench_config cfg = *base;
	const char *shape = s->shape[i / per_shape % s->nr_shapes], *why;

	cfg.workload = bench_parse_workload(s->workload[i / (s->nr_shapes * per_shape)]);
	if (bench_shape_parse(shape, &cfg.shape, &why))
		die("bad shape '%s' (%s)", shape, why);
	cfg.placement = s->placement[i / s->nr_threads % s->nr_placements];
	cfg.threads = s->threads[i % s->nr_threads];
	cfg.slots = s->slots;	/* 0: bench_setup_threads's default, as run's */
	cfg.readers = cfg.workload == BENCH_READERS ? (s->readers < 0 ? 1 : s->readers) : 0;
	cfg.read_node = BENCH_READ_RANDOM;
	cfg.pus = cfg.slot_node = cfg.slot_l3 = NULL;
	return cfg;
}

/* The settings every configuration of s shares, before the machine is set up. */
static struct bench_config sweep_base(const struct bench_sweep *s)
{
	return (struct bench_config){
		.duration_ms = s->duration_ms, .warmup_ms = s->warmup_ms, .sample_every = BENCH_SAMPLE_EVERY,
		.note = s->note, .work_ns = s->work_ns, .work_iters = s->work_iters, .options = s->options,
		.flush_period_ms = s->flush_period_ms, .reps = s->reps, .placement = "compact", .force = s->force,
	};
}

json_t *bench_sweep_ident(const struct bench_sweep *s, const struct topo *t, json_t *env, int i, int a)
{
	struct bench_config base = sweep_base(s), cfg;
	json_t *full, *id;

	base.env = env;
	base.events_spec = s->events;
	cfg = sweep_config(s, &base, i);
	/* what bench_setup_threads will make of the defaults, in the process that runs it */
	if (!cfg.slots)
		cfg.slots = topo_is_synthetic(t) ? (topo_nr_pus(t) > cfg.threads ? topo_nr_pus(t) : cfg.threads)
						 : bench_default_slots(cfg.threads);
	cfg.limit_headroom = BENCH_LIMIT_HEADROOM;
	cfg.limit_levels = "all";
	cfg.tsc.ghz = 1;	/* the timer object holds sample_every; its figures are not identity */
	full = bench_record_ident(&cfg, topo_nr_pus(t), s->algo[a]);
	id = json_object();
	if (!full || !id)
		die("out of memory");
	/* the identity fields alone: env and timer hold others, which are not the configuration's */
	for (int f = 0; f < BF_NR; f++) {
		json_t *v;

		if (!bench_field_is_resume_key(f) || bench_fields[f].type == BT_OBJ)
			continue;
		v = bench_json_path(full, bench_fields[f].path);
		bench_json_set_path(id, bench_fields[f].path, v ? json_incref(v) : json_null());
	}
	json_decref(full);
	bench_shape_free(&cfg.shape);
	return id;
}

/* The "sweep" member of configuration id's lines: the plan it came from, the id, the shard. */
static json_t *sweep_member(const struct bench_sweep *s, int id)
{
	json_t *j = json_pack("{s:{s:o,s:o,s:i}}", "sweep",
			      "plan_file", s->plan_file ? json_string(s->plan_file) : json_null(),
			      "plan", s->plan_text ? json_string(s->plan_text) : json_null(), "id", id);

	if (!j)
		die("out of memory");
	if (s->configs_file) {
		json_t *sw = json_object_get(j, "sweep");

		if (json_object_set_new(sw, "configs", json_string(s->configs_file)) ||
		    json_object_set_new(sw, "shard", json_integer(s->shard)) ||
		    json_object_set_new(sw, "shards", json_integer(s->nr_shards)))
			die("out of memory");
	}
	return j;
}

int bench_sweep_run(const struct bench_sweep *head, const struct bench_sweep_unit *u, int n)
{
	struct sweep_state st = { .s = head };
	struct bench_config base = sweep_base(head);
	struct bench_exec x = { .name = "sweep", .journal_name = head->out };
	const int tty = isatty(STDERR_FILENO);
	int nr_failed = 0;	/* configurations that could not run, died or failed verification */
	int total = 0, measurements = 0;
	double start;

	for (int k = 0; k < n; k++) {
		total += u[k].s->nr_algos;
		measurements += u[k].s->nr_algos * u[k].s->reps;
	}
	sweep_open_out(&st);
	bench_setup_machine(&base, NULL, head->events);
	x.journal = st.fd;
	x.resume = &st.done;
	x.nr_cpus = topo_nr_pus(base.topo);
	bench_progress_plan(measurements, bench_sweep_secs_each(head));
	start = bench_now();
	for (int k = 0; k < n && !x.interrupted; k++) {
		const struct bench_sweep *s = u[k].s;
		const int i = u[k].point, per_shape = s->nr_placements * s->nr_threads;
		const char *workload = s->workload[i / (s->nr_shapes * per_shape)];
		const char *shape = s->shape[i / per_shape % s->nr_shapes];
		const char *placement = s->placement[i / s->nr_threads % s->nr_placements];
		const int threads = s->threads[i % s->nr_threads];
		struct bench_config cfg;
		char *what = sweep_describe(s, workload, shape, placement, threads, 1);
		char *label = sweep_describe(s, workload, shape, placement, threads, 0);
		struct bench_summary *sums = bench_xcalloc((size_t)s->nr_algos, sizeof(*sums));
		json_t **extra = bench_xcalloc((size_t)s->nr_algos, sizeof(*extra));
		/* algorithms innermost, reps interleaved among them: drift over a long sweep hits them alike */
		struct bench_exec_group g = { .cfg = &cfg, .algos = s->algo, .nr_algos = s->nr_algos,
					      .label = label, .what = what, .sums = sums, .extra = extra };

		/* a shard's groups each carry their own run settings (they came from the lines) */
		base.duration_ms = s->duration_ms;
		base.warmup_ms = s->warmup_ms;
		base.reps = s->reps;
		base.note = s->note;
		base.work_ns = s->work_ns;
		base.work_iters = s->work_iters;
		base.options = s->options;
		base.flush_period_ms = s->flush_period_ms;
		cfg = sweep_config(s, &base, i);
		for (int a = 0; a < s->nr_algos; a++)
			extra[a] = sweep_member(head, u[k].ids[a]);
		bench_exec(&x, &g, 1);
		/* an interrupted group's configurations are unfinished, not failed */
		for (int a = 0; a < s->nr_algos && !x.interrupted; a++)
			nr_failed += sums[a].k == 0 || sums[a].med.verify == 0;
		for (int a = 0; a < s->nr_algos; a++)
			json_decref(extra[a]);
		bench_shape_free(&cfg.shape);
		free(extra);
		free(sums);
		free(what);
		free(label);
	}
	bench_progress_clear();
	if (x.interrupted) {
		fprintf(stderr, "ctrbench: sweep: interrupted: %d of %d configurations in '%s'; the one"
			" running stopped after its measurement in flight, its reps kept; --resume continues\n",
			x.configs_done, total, head->out);
	} else {
		if (x.reused_mismatch) {
			fprintf(stderr, "ctrbench: sweep: %d configuration%s already in '%s' failed"
				" verification\n", x.reused_mismatch, x.reused_mismatch == 1 ? "" : "s", head->out);
			x.failed = 1;
		}
		/*
		 * off a terminal too (a log of a long sweep ends with what it did), unless
		 * CTRBENCH_PROGRESS=0; the file on a line of its own, so the counts fit 100 columns
		 */
		if (tty || bench_progress_on())
			fprintf(stderr, "ctrbench: sweep: %d of %d configurations: %d measured now,"
				" %d already there, %d failed, in %.1f s\nctrbench: sweep: in '%s'\n",
				x.configs_done, total, x.configs_done - x.reused, x.reused, nr_failed,
				bench_now() - start, head->out);
	}
	close(st.fd);
	bench_exec_release(&x);
	bench_results_free(&st.done);
	bench_setup_release(&base);
	return x.failed || x.interrupted || x.write_failed;
}

int bench_sweep_exec(const struct bench_sweep *s)
{
	const int points = bench_sweep_nr_points(s);
	struct bench_sweep_unit *u = bench_xcalloc((size_t)points, sizeof(*u));
	int *ids = bench_xcalloc((size_t)points * s->nr_algos, sizeof(int)), ret;

	/* configuration ids as the dry run numbers them: point by point, algorithms innermost */
	for (int i = 0; i < points; i++) {
		for (int a = 0; a < s->nr_algos; a++)
			ids[i * s->nr_algos + a] = i * s->nr_algos + a + 1;
		u[i] = (struct bench_sweep_unit){ .s = s, .point = i, .ids = ids + i * s->nr_algos };
	}
	ret = bench_sweep_run(s, u, points);
	free(ids);
	free(u);
	return ret;
}

/* ---- checks before anything runs ---- */

static int sweep_has_workload(const struct bench_sweep *s, const char *w)
{
	for (int i = 0; i < s->nr_workloads; i++)
		if (!strcmp(s->workload[i], w))
			return 1;
	return 0;
}

/* Every configuration on this shape fits in memory (as run checks it), before anything runs. */
static void sweep_check_memory(const struct bench_sweep *s, const struct bench_shape *shape)
{
	/* run always maps each slot to a node: the slot areas are whole pages, as counted here */
	int *slot_node = bench_xcalloc(BENCH_SWEEP_MAX_THREADS, sizeof(int));
	struct bench_config cfg = { .shape = *shape, .options = s->options, .force = s->force,
				    .flush_period_ms = s->flush_period_ms, .slot_node = slot_node };

	for (int w = 0; w < s->nr_workloads; w++) {
		cfg.workload = bench_parse_workload(s->workload[w]);
		cfg.readers = cfg.workload != BENCH_READERS ? 0 : s->readers < 0 ? 1 : s->readers;
		for (int t = 0; t < s->nr_threads; t++) {
			cfg.threads = s->threads[t];
			cfg.slots = s->slots ? s->slots : bench_default_slots(cfg.threads);
			bench_check_memory(&cfg, s->algo, s->nr_algos);
		}
	}
	free(slot_node);
}

void bench_sweep_check(const struct bench_sweep *s)
{
	long configs = 1;

	for (int i = 0; i < s->nr_workloads; i++) {
		const char *why = bench_work_refusal(bench_parse_workload(s->workload[i]), s->work_ns,
						     s->work_iters);

		if (why)
			die("%s", why);
	}
	for (int i = 0; i < s->nr_shapes; i++) {
		struct bench_shape shape;
		const char *why;

		if (bench_shape_parse(s->shape[i], &shape, &why))
			die("bad value '%s' for --shape (%s)", s->shape[i], why);
		/* this machine's memory says nothing of the machine a dry run plans for */
		if (!s->dry_run)
			sweep_check_memory(s, &shape);
		bench_shape_free(&shape);
	}
	if (s->readers >= 0 && !sweep_has_workload(s, "readers"))
		die("--readers %d needs the readers workload in --workload", s->readers);
	if (sweep_has_workload(s, "readers"))
		for (int i = 0; i < s->nr_threads; i++)
			if (s->threads[i] + (s->readers < 0 ? 1 : s->readers) > BENCH_SWEEP_MAX_THREADS)
				die("too many threads: --threads %d plus --readers %d", s->threads[i],
				    s->readers < 0 ? 1 : s->readers);
	/* every updater owns a slot: the largest thread count must fit */
	if (s->slots && s->threads[s->nr_threads - 1] > s->slots)
		die("bad value '%d' for --slots (fewer than --threads %d: every updater owns a slot)",
		    s->slots, s->threads[s->nr_threads - 1]);
	if (s->options)
		bench_check_utf8("--options", s->options);
	if (s->note)
		bench_check_utf8("--note", s->note);
	/* As `run` checks --options and --flush-period-ms, before anything runs. */
	bench_check_algo_options(s->options, s->flush_period_ms, s->algo, s->nr_algos);
	configs = (long)s->nr_algos * s->nr_workloads * s->nr_shapes * s->nr_placements;
	if (configs * s->nr_threads > BENCH_SWEEP_MAX_CONFIGS)
		die("too many configurations: %ld (at most %d in one sweep)", configs * s->nr_threads,
		    BENCH_SWEEP_MAX_CONFIGS);
}
