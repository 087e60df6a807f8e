/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "env.h"
#include "output.h"
#include "record.h"
#include "reps.h"
#include "results.h"
#include "schema.h"

int bench_output_parse_format(const char *name, enum bench_format *f)
{
	static const char *const names[] = { "table", "csv", "json" };

	for (int i = 0; i < 3; i++) {
		if (!strcmp(name, names[i])) {
			*f = (enum bench_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Columns of s[0..n): UTF-8 continuation bytes take none ("·" is one). */
static int bench_cols(const char *s, size_t n)
{
	int c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

void bench_print_wrapped(FILE *f, const char *first, const char *rest, const char *cont, const char *text,
			 int wide)
{
	const char *p = text, *pre = first;
	int room_cont = bench_cols(cont, strlen(cont));

	if (wide) {
		fprintf(f, "%s%s\n", first, text);
		return;
	}
	for (;;) {
		int room = BENCH_COLUMNS - bench_cols(pre, strlen(pre));
		size_t n = strlen(p), cut = 0;

		if (bench_cols(p, n) <= room) {
			fprintf(f, "%s%s\n", pre, p);
			return;
		}
		/* the last space that leaves the line, its continuation mark too, within room */
		for (size_t i = 1; i < n; i++)
			if (p[i] == ' ' && bench_cols(p, i) + room_cont <= room)
				cut = i;
			else if (bench_cols(p, i) + room_cont > room)
				break;
		if (!cut)	/* one word longer than the room: to its end */
			cut = strcspn(p + 1, " ") + 1;
		if (!p[cut]) {
			fprintf(f, "%s%s\n", pre, p);
			return;
		}
		fprintf(f, "%s%.*s%s\n", pre, (int)cut, p, cont);
		p += cut;
		while (*p == ' ')
			p++;
		pre = rest;
	}
}

/*
 * The notes and detail lines of a table, written to a memory stream (buf),
 * out to stdout each broken to BENCH_COLUMNS: a "# " note goes on under
 * "#   ", a detail line ("  what  ...") under its text's column.
 */
static void bench_print_lines(char *buf, int wide)
{
	for (char *l = buf, *nl; l && *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = 0;
		if (!strncmp(l, "# ", 2))
			bench_print_wrapped(stdout, "# ", "#   ", "", l + 2, wide);
		else if (!strncmp(l, "  ", 2) && strlen(l) > 15)
			bench_print_wrapped(stdout, "", "                 ", "", l, wide);
		else
			puts(l);
	}
}

/* A memory stream for bench_print_lines; stdout where there is no memory for one. */
static FILE *bench_lines_open(char **buf, size_t *len)
{
	FILE *t = open_memstream(buf, len);

	return t ? t : stdout;
}

static void bench_lines_close(FILE *t, char **buf, int wide)
{
	if (t == stdout)
		return;
	fclose(t);	/* sets *buf */
	bench_print_lines(*buf, wide);
	free(*buf);
}

void bench_output_begin(struct bench_output *o, const struct bench_config *cfg, int nr_cpus)
{
	o->nr_cpus = nr_cpus;
	if (o->format == BENCH_FMT_CSV) {
		/* the CSV columns: the table's fields marked CSV, named by their JSON path */
		for (int f = 0, n = 0; f < BF_NR; f++)
			if (bench_fields[f].csv)
				printf("%s%s", n++ ? "," : "", bench_fields[f].path);
		putchar('\n');
	} else if (o->format == BENCH_FMT_TABLE) {
		char *buf;
		size_t len;
		FILE *t = bench_lines_open(&buf, &len);

		if (cfg->env)
			bench_env_print(t, cfg->env);
		fprintf(t, "# %s on %s (%d nodes, depth %d), %d updater%s in %d slot%s + %d reader%s on %d CPU%s%s;"
		       " %d ms measured after %d ms warm-up\n",
		       bench_workload_name(cfg->workload), cfg->shape.spec, cfg->shape.nr_nodes,
		       cfg->shape.depth, cfg->threads, cfg->threads == 1 ? "" : "s", cfg->slots,
		       cfg->slots == 1 ? "" : "s", cfg->readers,
		       cfg->readers == 1 ? "" : "s", nr_cpus, nr_cpus == 1 ? "" : "s",
		       cfg->threads + cfg->readers > nr_cpus ?
		       " (more threads than CPUs: they preempt each other)" : "",
		       cfg->duration_ms, cfg->warmup_ms);
		if (cfg->workload == BENCH_UPDATE)
			fprintf(t, "# throughput with no timer in the loop; latency timed apart after it with %s"
			       " (%.3f ticks/ns%s), in batches of k ops where 2 ops span under %u timer steps"
			       " (k per row); overhead subtracted: %.1f ns fenced, %.1f ns unfenced (batches);"
			       " resolution %.2f ns\n",
			       BENCH_TSC_IS_CYCLES ? "rdtsc" : "clock_gettime", cfg->tsc.ghz,
			       cfg->tsc.invariant ? ", invariant TSC" : ", TSC NOT invariant", BENCH_LAT_MIN_STEPS,
			       (double)cfg->tsc.overhead / cfg->tsc.ghz, (double)cfg->tsc.overhead_raw / cfg->tsc.ghz,
			       (double)cfg->tsc.resolution / cfg->tsc.ghz);
		else
			fprintf(t, "# latency: 1 %s in %u timed with %s (%.3f ticks/ns%s), %.1f ns timer overhead"
			       " subtracted, resolution %.1f ns\n",
			       cfg->workload == BENCH_CHARGE ? "charge" : cfg->workload == BENCH_STORE ? "store" : "update", cfg->sample_every,
			       BENCH_TSC_IS_CYCLES ? "rdtsc" : "clock_gettime", cfg->tsc.ghz,
			       cfg->tsc.invariant ? ", invariant TSC" : ", TSC NOT invariant",
			       (double)cfg->tsc.overhead / cfg->tsc.ghz,
			       (double)cfg->tsc.resolution / cfg->tsc.ghz);
		fprintf(t, "# placement %s on this machine: pairs %ld smt, %ld ccx, %ld numa, %ld package, %ld remote"
		       "%s%s; shared memory %s\n", cfg->placement, cfg->pairs[TOPO_CLASS_SMT],
		       cfg->pairs[TOPO_CLASS_CCX], cfg->pairs[TOPO_CLASS_NUMA], cfg->pairs[TOPO_CLASS_PACKAGE],
		       cfg->pairs[TOPO_CLASS_REMOTE], cfg->pairs[TOPO_CLASS_SAME] ? ", some on the same PU" : "",
		       cfg->wrapped ? " (wrapped: more threads than PUs)" : "",
		       cfg->shared_mem ? cfg->shared_mem : "local");
		if (cfg->options)
			fprintf(t, "# options %s\n", cfg->options);
		if (cfg->flush_period_ms)
			fprintf(t, "# periodic flush every %d ms where the algorithm has a flusher\n",
			       cfg->flush_period_ms);
		if (bench_workload_charges(cfg->workload) && cfg->charge_burst == BENCH_BURST_FROM_BOUND)
			fprintf(t, "# bursts sized from each algorithm's stated error bound (burst per row)\n");
		if (bench_workload_charges(cfg->workload)) {
			char hold[32] = "B";

			if (cfg->charge_burst != BENCH_BURST_FROM_BOUND)
				snprintf(hold, sizeof(hold), "%d", cfg->charge_burst ? cfg->charge_burst :
					 BENCH_CHARGE_WINDOW);
			fprintf(t, "# limits at %s: %.3g x the most the workers below it hold (%s charges"
			       " of %d bytes each)%s; refused = share of attempts refused\n",
			       !cfg->limit_levels || !strcmp(cfg->limit_levels, "all") ? "every level" :
			       !strcmp(cfg->limit_levels, "root") ? "the root only" : "the workers' leaves only",
			       cfg->limit_headroom > 0 ? cfg->limit_headroom : BENCH_LIMIT_HEADROOM, hold,
			       BENCH_CHARGE_UNIT,
			       (cfg->limit_headroom > 0 ? cfg->limit_headroom : BENCH_LIMIT_HEADROOM) >= 1 ?
			       ": not hit by an exact design" : "");
		}
		if (cfg->work_ns)
			fprintf(t, "# %d ns of private work after each operation (--work-ns), counted in ns/op,"
			       " not in the latencies\n", cfg->work_ns);
		fprintf(t, "# ops/s = sum of each updater's ops over its own window; ns/op = updaters x 1 s / ops/s;"
		       " cpu ns/op = task-clock / ops%s\n",
		       cfg->workload == BENCH_CHARGE ? "; an op is one charge attempt (its uncharge included)" :
		       cfg->workload == BENCH_STORE ? "; an op is one zswap store: the limit check at every level"
		       " (a read per level), the charge of stat 0 (bytes), stat 1 +1 page, its later free included;"
		       " ns/op is wall, cpu ns/op CPU time per store (the seeds' unit)" :
		       cfg->workload == BENCH_READERS ? " (n/a with readers); read errors are distances outside"
		       " every value the node held during the read" : "");
		bench_lines_close(t, &buf, o->wide);
		if (o->wide)
			printf("%-14s %12s %9s %9s %8s %8s %8s %8s %10s %s%s\n", "algo", "ops/s", "ns/op",
			       "cpu ns/op", "mean", "p50", "p90", "p99", "max", "verify",
			       bench_workload_charges(cfg->workload) ? "    refused" : "");
		else	/* the essential columns: mean, p90 and max are --wide's */
			printf("%-17s %10s %8s %9s %8s %8s %s%s\n", "algo", "ops/s", "ns/op", "cpu ns/op",
			       "p50", "p99", "verify", bench_workload_charges(cfg->workload) ? "    refused" : "");
	}
	fflush(stdout);
}

/* A latency cell: below the per-op resolution it says so ("<0.06"), never "0.0". */
static const char *bench_lat_cell(char *buf, size_t len, double v, double res)
{
	if (res > 0 && v < res)
		snprintf(buf, len, "<%.2g", res);
	else
		snprintf(buf, len, v < 10 ? "%.2f" : "%.1f", v);
	return buf;
}

/* write(2) until done: 0 or -1 with errno. */
static int bench_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * One JSON object, one line.  Into a results file (o->fp) it goes in one
 * write and is fsynced: a run killed at any moment leaves every finished
 * line whole and on disk, and never half a line.
 */
static void bench_output_line(struct bench_output *o, json_t *j)
{
	char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	FILE *fp = o->fp ? o->fp : stdout;

	if (!text)
		return;
	if (o->fp) {
		size_t n = strlen(text);

		text[n] = '\n';	/* json_dumps's NUL becomes the newline: one write */
		fflush(fp);
		/* EINVAL: a file that cannot be synced (a pipe, /dev/null) has nothing to lose */
		if ((bench_write_all(fileno(fp), text, n + 1) || (fsync(fileno(fp)) && errno != EINVAL)) &&
		    !o->write_failed) {
			fprintf(stderr, "ctrbench: writing results: %s\n", strerror(errno));
			o->write_failed = 1;
		}
	} else {
		fputs(text, fp);
		putc('\n', fp);
	}
	free(text);
}

/* One CSV field, RFC 4180: quoted when it holds a comma, a quote or a line break; quotes doubled. */
static void bench_csv_field(const char *v)
{
	if (!v[strcspn(v, ",\"\r\n")]) {
		fputs(v, stdout);
		return;
	}
	putchar('"');
	for (; *v; v++) {
		if (*v == '"')
			putchar('"');
		putchar(*v);
	}
	putchar('"');
}

/* The CSV columns of a result line: empty where the field is null (n/a), numbers as JSON has them. */
static void bench_csv_row(json_t *j)
{
	for (int f = 0, n = 0; f < BF_NR; f++) {
		json_t *v;
		char buf[64];

		if (!bench_fields[f].csv)
			continue;
		if (n++)
			putchar(',');
		v = bench_json_path(j, bench_fields[f].path);
		if (json_is_string(v)) {
			bench_csv_field(json_string_value(v));
		} else if (json_is_integer(v)) {
			printf("%lld", (long long)json_integer_value(v));
		} else if (json_is_real(v)) {
			snprintf(buf, sizeof(buf), "%.10g", json_real_value(v));
			fputs(buf, stdout);
		} else if (json_is_boolean(v)) {
			fputs(json_is_true(v) ? "true" : "false", stdout);
		} else if (v && !json_is_null(v)) {
			char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

			bench_csv_field(t ? t : "");
			free(t);
		}
	}
	putchar('\n');
}

/* The table's indented lines under a row: readers, admission audit, flushes. */
static void bench_table_details(FILE *t, const struct bench_config *cfg, const struct bench_result *r)
{
	double s = r->seconds > 0 ? r->seconds : 1;

	if (cfg->workload == BENCH_READERS) {
		const struct bench_lat *l = &r->read_lat;

		fprintf(t, "  %-12s %12.4g reads/s; read ns mean %.1f p50 %.1f p99 %.1f p99.9 %.1f max %.1f;"
		       " error max %lld mean %.2f\n", "reads", r->reads_per_sec, l->mean, l->p50, l->p99,
		       l->p999, l->max, (long long)r->read_err_max, r->read_err_mean);
	}
	/* The stated bound beside what was observed, for every algorithm that is not exact. */
	if ((r->error_bound != 0 || r->read_error != 0) && r->ba->verify != BENCH_VERIFY_NONE) {
		char bound[32];

		if (r->error_bound < 0)
			snprintf(bound, sizeof(bound), "by time only");
		else
			snprintf(bound, sizeof(bound), "%lld", (long long)r->error_bound);
		fprintf(t, "  %-12s ctr_read off by %lld at rest", "read error", (long long)r->read_error);
		if (cfg->workload == BENCH_READERS)
			fprintf(t, ", %lld at most under updates", (long long)r->read_err_max);
		fprintf(t, "; stated bound %s\n", bound);
	}
	if (bench_workload_charges(cfg->workload) && r->audited && r->ba->verify != BENCH_VERIFY_NONE)
		fprintf(t, "  %-12s %llu of %llu audited refusals had room (false rejects); worst overshoot %lld"
		       "%s%.0d\n", "admission", (unsigned long long)r->false_rejects,
		       (unsigned long long)r->audit_rejected, (long long)r->overshoot_max,
		       cfg->charge_burst == BENCH_BURST_FROM_BOUND ? "; burst " : "",
		       cfg->charge_burst == BENCH_BURST_FROM_BOUND ? r->charge_burst : 0);
	if (cfg->nr_events) {
		fprintf(t, "  %-12s", "events");
		for (int e = 0; e < cfg->nr_events; e++) {
			/* libpfm4 names are long: the table shows what follows the PMU name */
			const char *name = strstr(cfg->events[e].name, "::") ?
					   strrchr(cfg->events[e].name, ':') + 1 : cfg->events[e].name;

			if (r->ev_why[e])
				fprintf(t, " %s n/a (%s);", name, r->ev_tag[e]);
			else if (cfg->readers)
				fprintf(t, " %s %llu in all;", name, (unsigned long long)r->ev_total[e]);
			else
				fprintf(t, " %s %.3g/op;", name,
				       r->ops ? (double)r->ev_total[e] / (double)r->ops : 0.0);
		}
		fputc('\n', t);
	}
	if (r->has_flush) {
		const struct ctr_flush_stats *f = &r->flush;

		fprintf(t, "  %-12s %llu (%.0f/s), ns mean %.0f p99 %llu; lock contended %llu (%.1f/s),"
		       " wait %.3f s/s, hold %.3f s/s, breaks %llu\n", "flushes",
		       (unsigned long long)f->flushes, (double)f->flushes / s,
		       f->flush_ns.count ? (double)f->flush_ns.sum / (double)f->flush_ns.count : 0.0,
		       (unsigned long long)ctr_hist_quantile(&f->flush_ns, 0.99),
		       (unsigned long long)f->lock_contended, (double)f->lock_contended / s,
		       (double)f->lock_wait_ns / 1e9 / s, (double)f->lock_hold_ns / 1e9 / s,
		       (unsigned long long)f->lock_breaks);
		/*
		 * How the reads that needed a flush got it (options=read=...): by
		 * their own flush, or served by another's; and what they waited at
		 * the reader-side gate (mutex, semaphore, batch sleep), apart from
		 * the flush lock above.  Per read where reads are counted (readers):
		 * the harness's reads, counted in each reader's own window, against
		 * the algorithm's counts over the main one; the share of the reads
		 * that needed a flush which flushed comes from one window, exact.
		 */
		fprintf(t, "  %-12s", "read flushes");
		if (r->reads)
			fprintf(t, " %.3g flushes/read, lock wait %.0f ns/read;", (double)f->flushes / (double)r->reads,
			       (double)f->lock_wait_ns / (double)r->reads);
		fprintf(t, " of %llu reads that needed one %llu flushed (%.3g), %llu were served by another's;"
		       " gate waits %llu, %.3f s/s, mean %.0f ns", (unsigned long long)f->reads_flush,
		       (unsigned long long)f->reader_flushes,
		       f->reads_flush ? (double)f->reader_flushes / (double)f->reads_flush : 0.0,
		       (unsigned long long)f->reads_shared, (unsigned long long)f->reader_waits,
		       (double)f->reader_wait_ns / 1e9 / s,
		       f->reader_waits ? (double)f->reader_wait_ns / (double)f->reader_waits : 0.0);
		if (f->sem_fallbacks)
			fprintf(t, "; sem timeouts %llu", (unsigned long long)f->sem_fallbacks);
		fputc('\n', t);
	}
}

static void bench_output_one(struct bench_output *o, const struct bench_config *cfg,
			     const struct bench_result *r, const struct bench_summary *sum,
			     const struct bench_result *reps);

/* Under a NOISY row: its likely cause (noise.h), as host.noise_cause says it. */
static void bench_noise_footnote(FILE *t, const struct bench_output *o,
				 const struct bench_config *cfg, const struct bench_result *r,
				 const struct bench_summary *sum)
{
	char why[128];

	if (bench_summary_noisy(sum))
		fprintf(t, "  %-12s likely cause: %s\n", "noisy",
		       bench_noise_cause(&r->host, o->nr_cpus, cfg->threads + cfg->readers, why, sizeof(why)));
}

void bench_output_summary(struct bench_output *o, const struct bench_config *cfg,
			  const struct bench_result *reps, int k)
{
	struct bench_summary *s = calloc(1, sizeof(*s));

	if (!s)
		return;
	bench_summarize(reps, k, s);
	bench_output_one(o, cfg, &s->med, s, reps);
	free(s);
}

static void bench_output_one(struct bench_output *o, const struct bench_config *cfg,
			     const struct bench_result *r, const struct bench_summary *sum,
			     const struct bench_result *reps)
{
	const struct bench_lat *l = &r->lat;

	switch (o->format) {
	case BENCH_FMT_JSON:
	case BENCH_FMT_CSV: {
		json_t *j = bench_record_json(cfg, o->nr_cpus, r, sum, reps);

		if (!j)
			break;
		if (o->format == BENCH_FMT_JSON)
			bench_output_line(o, j);
		else
			bench_csv_row(j);
		json_decref(j);
		break;
	}
	case BENCH_FMT_TABLE: {
		char *buf;
		size_t len;
		FILE *t;

		if (o->wide)
			printf("%-14s %12.4g %9.2f ", r->ba->name, r->ops_per_sec, r->ns_per_op);
		else
			printf("%-17s %10.4g %8.2f ", r->ba->name, r->ops_per_sec, r->ns_per_op);
		if (cfg->readers)
			printf("%9s", "n/a");
		else
			printf("%9.2f", r->cpu_ns_per_op);
		{
			char c[5][32];

			if (o->wide)
				printf(" %8s %8s %8s %8s %10s %s", bench_lat_cell(c[0], 32, l->mean, l->resolution_ns),
				       bench_lat_cell(c[1], 32, l->p50, l->resolution_ns),
				       bench_lat_cell(c[2], 32, l->p90, l->resolution_ns),
				       bench_lat_cell(c[3], 32, l->p99, l->resolution_ns),
				       bench_lat_cell(c[4], 32, l->max, l->resolution_ns), bench_verify_name(r->verify));
			else
				printf(" %8s %8s %s", bench_lat_cell(c[1], 32, l->p50, l->resolution_ns),
				       bench_lat_cell(c[3], 32, l->p99, l->resolution_ns), bench_verify_name(r->verify));
		}
		if (bench_workload_charges(cfg->workload)) {
			uint64_t tries = bench_attempts(r, sum, reps);

			printf("%*s%5.1f%%", r->verify == 1 ? 5 : 0, "",
			       tries ? 100.0 * (double)r->charge_fail / (double)tries : 0.0);
		}
		if (r->verify == 0)
			printf(" (node %d: %lld, want %lld)", r->bad_node, (long long)r->got,
			       (long long)r->want);
		if (bench_summary_noisy(sum))
			printf(" NOISY");
		putchar('\n');
		t = bench_lines_open(&buf, &len);
		if (l->batch > 1)
			fprintf(t, "  %-12s batched: %u ops per sample, per-op resolution %.2g ns\n", "latency",
			       l->batch, l->resolution_ns);
		if (sum && (sum->k > 1 || sum->k < cfg->reps)) {
			const struct bench_stat *ops = &sum->stat[BF_OPS_PER_SEC], *p50 = &sum->stat[BF_UPDATE_NS_P50];
			char of[32] = "";

			/* fewer than asked (a signal stopped the run): done of planned, as reps_done/reps_requested */
			if (sum->k < cfg->reps)
				snprintf(of, sizeof(of), " of %d", cfg->reps);
			if (sum->k > 1)
				fprintf(t, "  %-12s %d%s: ops/s median %.4g [%.4g, %.4g] (%.1f%%), cv %.1f%%;"
				       " p50 %.2f [%.2f, %.2f] ns, cv %.1f%%\n", "reps", sum->k, of, ops->median,
				       ops->lo, ops->hi, 100 * ops->level, 100 * ops->cv, p50->median, p50->lo,
				       p50->hi, 100 * p50->cv);
			else
				fprintf(t, "  %-12s %d%s: one rep, no interval\n", "reps", sum->k, of);
		}
		bench_noise_footnote(t, o, cfg, r, sum);
		bench_table_details(t, cfg, r);
		bench_lines_close(t, &buf, o->wide);
		break;
	}
	}
	fflush(stdout);
}

void bench_output_end(struct bench_output *o, const struct bench_config *cfg)
{
	(void)cfg;
	if (o->format == BENCH_FMT_TABLE)
		bench_print_wrapped(stdout, "# ", "#   ", "", "latencies in ns; task-clock per worker from"
				    " perf_event (libperf) where allowed, else the thread CPU clock", o->wide);
	fflush(stdout);
}
