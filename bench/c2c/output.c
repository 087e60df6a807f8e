/* SPDX-License-Identifier: MIT */
/*
 * c2c/output.c - c2c's figures (c2c.h): a pair's over its reps, a class's over
 * its pairs (stats.c's median, interval and quantiles), and the table, the
 * CSV and the dry run's plan that print them.  The JSON is json.c's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli.h"
#include "../stats.h"
#include "c2c.h"

double *c2c_res(struct c2c_run *r, int h, int i)
{
	return &r->res[((size_t)h * r->plan.nr_pairs + i) * r->o->reps];
}

/* A pair's statistics over the reps measured; 0 when none were. */
int c2c_pair_stat(struct c2c_run *r, int h, int i, struct bench_stat *st, double *vals)
{
	double *v = c2c_res(r, h, i);
	int k = 0;

	for (int j = 0; j < r->o->reps; j++)
		if (!isnan(v[j]))
			vals[k++] = v[j];
	if (!k)
		return 0;
	{
		double tmp[1000];

		memcpy(tmp, vals, sizeof(double) * k);
		bench_stat_of(tmp, k, st);
	}
	return k;
}

/* Class rows of home h (h -1: every home pooled). */
void c2c_classes(struct c2c_run *r, int h, struct c2c_class_row rows[TOPO_NR_CLASSES])
{
	int n = r->plan.nr_pairs * (h < 0 ? r->nr_homes : 1);
	double *v = malloc(sizeof(double) * (n ? n : 1)), vals[1000];

	if (!v)
		die("out of memory");
	for (int c = 0; c < TOPO_NR_CLASSES; c++) {
		int k = 0;

		for (int hh = h < 0 ? 0 : h; hh < (h < 0 ? r->nr_homes : h + 1); hh++)
			for (int i = 0; i < r->plan.nr_pairs; i++) {
				struct bench_stat st;

				if (r->plan.pairs[i].cls == c && c2c_pair_stat(r, hh, i, &st, vals))
					v[k++] = st.median;
			}
		rows[c].pairs = k;
		if (!k)
			continue;
		qsort(v, k, sizeof(double), cmp_double);
		rows[c].median = quantile_sorted(v, k, 0.5);
		rows[c].p10 = quantile_sorted(v, k, 0.1);
		rows[c].p90 = quantile_sorted(v, k, 0.9);
	}
	free(v);
}

/* ---- table ---- */

static void c2c_print_events(struct c2c_run *r, int h, int c, FILE *f)
{
	double tr = r->tr_sum[h * TOPO_NR_CLASSES + c];

	if (!r->nr_ev || r->ev_reason || tr <= 0)
		return;
	for (int e = 0; e < r->nr_ev; e++)
		fprintf(f, "  %s %.3f", r->ev[e].name,
			r->ev_sum[((size_t)h * TOPO_NR_CLASSES + c) * r->nr_ev + e] / tr);
}

void c2c_print_table(struct c2c_run *r, int interrupted)
{
	const struct c2c_plan *p = &r->plan;
	char buf[256], mode[64];
	FILE *f = stdout;

	c2c_mode_str(p, mode, sizeof(mode));
	fprintf(f, "c2c: op %s (%s), %d CPU%s, pairs %s: %d pair%s, %d of %d reps of %d samples x "
		"%d %s\n", c2c_op_names[r->o->op], c2c_op_figure[r->o->op], p->nr_cpus,
		p->nr_cpus == 1 ? "" : "s", mode, p->nr_pairs, p->nr_pairs == 1 ? "" : "s",
		r->reps_done, r->o->reps, r->o->samples, r->o->iters,
		r->o->op == C2C_FETCH_ADD ? "adds" : "round trips");
	if (interrupted)
		fprintf(f, "interrupted: figures from what was measured\n");
	if (r->nr_ev && r->ev_reason)
		fprintf(f, "events: not counted: %s\n", r->ev_reason);
	for (int h = 0; h < r->nr_homes; h++) {
		struct c2c_class_row rows[TOPO_NR_CLASSES];
		double vals[1000];

		fprintf(f, "\nline home: %s%s\n", c2c_home_label(r, h, buf, sizeof(buf)),
			r->nodes_total == 1 ? "; the machine's only NUMA node" : "");
		c2c_classes(r, h, rows);
		fprintf(f, "%-8s %5s %9s %9s %9s\n", "class", "pairs", "median", "p10", "p90");
		for (int c = 0; c < TOPO_NR_CLASSES; c++) {
			if (!rows[c].pairs)
				continue;
			fprintf(f, "%-8s %5d %9.1f %9.1f %9.1f", topo_class_name(c), rows[c].pairs,
				rows[c].median, rows[c].p10, rows[c].p90);
			c2c_print_events(r, h, c, f);
			fputc('\n', f);
		}
		if (p->nr_cpus <= C2C_TABLE_MAX_CPUS) {
			fprintf(f, "\nmatrix (median over reps; CPUs in topology order)\n%5s", "");
			for (int j = 0; j < p->nr_cpus; j++)
				fprintf(f, " %7d", p->cpus[j]);
			fputc('\n', f);
			for (int i = 0; i < p->nr_cpus; i++) {
				fprintf(f, "%5d", p->cpus[i]);
				for (int j = 0; j < p->nr_cpus; j++) {
					struct bench_stat st;
					int k = -1;

					for (int q = 0; q < p->nr_pairs && k < 0; q++)
						if ((p->pairs[q].a == p->cpus[i] && p->pairs[q].b == p->cpus[j]) ||
						    (p->pairs[q].b == p->cpus[i] && p->pairs[q].a == p->cpus[j]))
							k = q;
					if (k >= 0 && c2c_pair_stat(r, h, k, &st, vals))
						fprintf(f, " %7.1f", st.median);
					else
						fprintf(f, " %7s", i == j ? "-" : ".");
				}
				fputc('\n', f);
			}
		} else {
			fprintf(f, "\nmatrix: %d x %d CPUs, in the JSON and CSV output\n", p->nr_cpus,
				p->nr_cpus);
		}
		if (p->nr_pairs <= C2C_TABLE_MAX_PAIRS) {
			fprintf(f, "\n%5s %5s %-8s %9s  %-22s %6s\n", "cpu_a", "cpu_b", "class", "median",
				"interval over reps", "cv");
			for (int i = 0; i < p->nr_pairs; i++) {
				struct bench_stat st;
				int k = c2c_pair_stat(r, h, i, &st, vals);
				char iv[64];

				if (!k)
					continue;
				snprintf(iv, sizeof(iv), "[%.1f, %.1f] %.0f%%", st.lo, st.hi, 100 * st.level);
				fprintf(f, "%5d %5d %-8s %9.1f  %-22s %5.1f%%%s\n", p->pairs[i].a, p->pairs[i].b,
					topo_class_name(p->pairs[i].cls), st.median, iv, 100 * st.cv,
					st.cv > BENCH_NOISY_CV ? " noisy" : "");
			}
		}
	}
	fprintf(f, "\n");
}

/* ---- CSV ---- */

void c2c_print_csv(struct c2c_run *r)
{
	const struct c2c_plan *p = &r->plan;
	double vals[1000];

	printf("row,op,home_node,class,cpu_a,cpu_b,pairs,median_ns,p10_ns,p90_ns,lo_ns,hi_ns,reps_ns\n");
	for (int h = 0; h < r->nr_homes; h++) {
		struct c2c_class_row rows[TOPO_NR_CLASSES];
		char home[16] = "";

		if (r->homes[h].node >= 0)
			snprintf(home, sizeof(home), "%d", r->homes[h].node);
		c2c_classes(r, h, rows);
		for (int c = 0; c < TOPO_NR_CLASSES; c++)
			if (rows[c].pairs)
				printf("class,%s,%s,%s,,,%d,%.2f,%.2f,%.2f,,,\n", c2c_op_names[r->o->op], home,
				       topo_class_name(c), rows[c].pairs, rows[c].median, rows[c].p10,
				       rows[c].p90);
		for (int i = 0; i < p->nr_pairs; i++) {
			struct bench_stat st;
			int k = c2c_pair_stat(r, h, i, &st, vals);

			if (!k)
				continue;
			printf("pair,%s,%s,%s,%d,%d,,%.2f,,,%.2f,%.2f,", c2c_op_names[r->o->op], home,
			       topo_class_name(p->pairs[i].cls), p->pairs[i].a, p->pairs[i].b, st.median,
			       st.lo, st.hi);
			for (int q = 0; q < k; q++)
				printf("%s%.2f", q ? ";" : "", vals[q]);
			printf("\n");
		}
	}
}

/* ---- the dry run's plan ---- */

void c2c_print_plan(struct c2c_run *r, long measurements)
{
	const struct c2c_opts *o = r->o;
	char mode[64], buf[256];

	if (o->format == 2)
		die("--dry-run prints a table or JSON, not csv");
	if (o->format == 1) {
		c2c_print_json(r, 0);
		return;
	}
	c2c_mode_str(&r->plan, mode, sizeof(mode));
	printf("c2c plan on %s: %d CPUs, pairs %s: %d pair%s", topo_spec(r->t), r->plan.nr_cpus,
	       mode, r->plan.nr_pairs, r->plan.nr_pairs == 1 ? "" : "s");
	if (r->homes_each)
		printf(" x %d home node%s", r->nodes_total, r->nodes_total == 1 ? "" : "s");
	printf(", %d reps of %d samples x %d\n", o->reps, o->samples, o->iters);
	printf("%-8s %9s %9s\n", "class", "available", "planned");
	for (int c = TOPO_CLASS_SMT; c < TOPO_NR_CLASSES; c++)
		if (r->plan.avail[c])
			printf("%-8s %9ld %9d\n", topo_class_name(c), r->plan.avail[c],
			       c2c_plan_count(&r->plan, c));
	if (r->plan.nr_dups) {
		topo_format_list(r->plan.dups, r->plan.nr_dups, buf, sizeof(buf));
		printf("CPUs named more than once, measured once: %s\n", buf);
	}
	printf("estimate: %.1f s (%ld measurements at an assumed %.0f ns per transfer "
	       "plus %.1f ms to start each)\n", r->estimate_s, measurements * o->reps,
	       C2C_ASSUMED_NS, C2C_SETUP_NS / 1e6);
}
