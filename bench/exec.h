/* SPDX-License-Identifier: MIT */
/*
 * exec.h - the one executor: `run`, `sweep` and `scenario` all measure
 * through bench_exec.  A group is one configuration (bench_config) and the
 * algorithms measured in it, their reps interleaved (A, B, C, A, B, C) so
 * that drift hits them alike.  Each group runs in a process of its own,
 * forked from the one that set the machine up (topology, TSC calibration,
 * environment): every configuration starts from the same heap and page
 * state whatever ran before it, and a crash ends that group only.
 * docs/methodology.md ("A fresh process per configuration") has the
 * measurement behind that choice.
 *
 * With a journal (a results file: sweep --out, scenario --out) every rep is
 * written as it is measured, as a rep line ("kind": "rep", "rep": its index,
 * then the configuration's line as one rep would write it), and the summary
 * line follows when all reps of the algorithm are done: a kill loses at most
 * the rep in flight.  With one rep asked for, the summary is the rep: no rep
 * line.  Resuming (x->resume holds the journal's lines), a configuration
 * whose summary is there is read back, not run; one with rep lines only runs
 * the reps it lacks and its summary pools the reps read back with those
 * measured now, each index once.  An interrupted configuration writes no
 * summary to the journal (its reps are there; --resume completes it).
 */
#ifndef BENCH_EXEC_H
#define BENCH_EXEC_H

#include <jansson.h>

#include "output.h"
#include "reps.h"
#include "results.h"
#include "run.h"

/* One configuration and the algorithms measured in it. */
struct bench_exec_group {
	struct bench_config *cfg;		/* set up (bench_setup_machine), shape parsed, reps >= 1 */
	const struct bench_algo *const *algos;	/* the algorithms, in the order measured */
	int nr_algos;				/* their number */
	const char *label;			/* after the algorithm's name in progress lines, or NULL */
	const char *what;			/* the configuration in messages ("update chain:2 --threads 1") */
	struct bench_summary *sums;		/* out, nr_algos of them (k == 0: nothing), or NULL */
	json_t **extra;				/* nr_algos objects: members added to that algorithm's
						   journal lines after x->extra's (sweep's id), or NULL */
};

/* How groups are measured and where their results go; the tallies are bench_exec's. */
struct bench_exec {
	const char *name;		/* the command, prefixing its messages ("sweep") */
	struct bench_output *out;	/* summaries printed (table, csv or json on stdout), or NULL */
	int journal;			/* fd of the results file: rep and summary lines appended; -1 none */
	const char *journal_name;	/* its name, for messages */
	json_t *extra;			/* members added to every journal line (sweep's plan), or NULL */
	struct bench_results *resume;	/* the journal's lines before this run, or NULL */
	int nr_cpus;			/* this machine's PUs, in every line */
	/* tallies over every bench_exec call */
	int measured;			/* reps measured now (algorithm x rep) */
	int configs_done;		/* configurations with every rep done (read back or measured) */
	int reused;			/* ... of them read back whole from resume */
	int reused_reps;		/* reps read back from rep lines of unfinished configurations */
	int reused_mismatch;		/* read-back configurations that had failed verification */
	int failed;			/* a verification failed, a run could not start, a group died */
	int interrupted;		/* SIGINT or SIGTERM: stopped after the measurement in flight */
	int write_failed;		/* the journal could not be written */
	char **line_keys, **rep_keys;	/* private: resume keys of resume's lines, computed once */
};

/*
 * Measures groups g[0..n) one after another (each in its own process) and
 * stops after the first one a signal interrupted.  Bad input found there
 * (exit 2 of the group's process) ends this process with exit 2.  Returns 1
 * if anything failed or it was interrupted, else 0.
 */
int bench_exec(struct bench_exec *x, struct bench_exec_group *g, int n);

/* Frees what bench_exec keeps in x (not x's own settings). */
void bench_exec_release(struct bench_exec *x);

#endif /* BENCH_EXEC_H */
