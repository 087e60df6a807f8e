/* SPDX-License-Identifier: MIT */
/*
 * exec.c - see exec.h.
 *
 * The parent forks one process per group and only waits, relays signals and
 * collects the summaries; the group's process measures, writes the journal
 * itself (one write(2) per line on the O_APPEND descriptor, then fsync) and
 * sends each summary back through a pipe:
 *   "S <algo index> <summary line>\n" for each algorithm with a summary,
 *   "T <measured> <done> <reused> <reused reps> <reused mismatch> <write failed>\n" last;
 * and exits 0, or with bit 0 (failed) and bit 2 (interrupted) set; exit 2
 * is bad input, said already on stderr.
 *
 * Signals: the group's process has a process group of its own, so a
 * terminal's Ctrl-C reaches the parent only, which passes every SIGINT and
 * SIGTERM on: the first stops the group after the measurement in flight, a
 * second ends it (the default action), as it did in one process.  A parent
 * killed with SIGKILL takes its group along (PR_SET_PDEATHSIG).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <jansson.h>

#include "cli.h"
#include "exec.h"
#include "hitm.h"
#include "progress.h"
#include "record.h"
#include "schema.h"
#include "setup.h"

/* ---- signals ---- */

static volatile sig_atomic_t exec_stop;		/* a SIGINT or SIGTERM came */
static volatile pid_t exec_child;		/* the group's process while it runs, else 0 */
static int exec_was_stopped;			/* some bench_exec was interrupted */

/* The parent's: note it, pass it on. */
static void exec_on_signal(int sig)
{
	exec_stop = 1;
	if (exec_child > 0)
		kill(exec_child, sig);
}

/* The group's: stop after the measurement in flight (a second signal: the default action). */
static void exec_on_signal_child(int sig)
{
	(void)sig;
	exec_stop = 1;
}

int bench_was_interrupted(void)
{
	return exec_was_stopped;
}

/* ---- the journal ---- */

/* One line, one write(2), then fsync: whole in the file, or (killed inside the write) a partial tail. */
static void exec_put(struct bench_exec *x, json_t *extra, json_t *j)
{
	char *t;
	size_t n, off = 0;

	if (x->extra)
		json_object_update(j, x->extra);
	if (extra)
		json_object_update(j, extra);
	t = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!t)
		die("out of memory");
	n = strlen(t);
	t = realloc(t, n + 2);
	if (!t)
		die("out of memory");
	t[n++] = '\n';
	while (off < n) {
		ssize_t w = write(x->journal, t + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	/* EINVAL: a file that cannot be synced (a pipe, /dev/null) has nothing to lose */
	if ((off < n || (fsync(x->journal) && errno != EINVAL)) && !x->write_failed) {
		bench_progress_clear();
		fprintf(stderr, "ctrbench: %s: writing results to '%s': %s\n", x->name, x->journal_name,
			strerror(off < n && errno == 0 ? EIO : errno));
		x->write_failed = 1;
	}
	free(t);
}

/* ---- what the journal already holds ---- */

/* The resume key of algorithm ba's line in cfg. */
static char *exec_key(const struct bench_exec *x, const struct bench_config *cfg, const struct bench_algo *ba)
{
	json_t *id = bench_record_ident(cfg, x->nr_cpus, ba);
	char *key = bench_line_key(id, bench_field_is_resume_key);

	json_decref(id);
	return key;
}

/* Keys of the resume lines, computed once per bench_exec (a sweep asks for thousands). */
static void exec_resume_keys(struct bench_exec *x)
{
	const struct bench_results *r = x->resume;

	if (!r || x->line_keys)
		return;
	x->line_keys = bench_xcalloc((size_t)r->n + 1, sizeof(char *));
	x->rep_keys = bench_xcalloc((size_t)r->nr_rep + 1, sizeof(char *));
	for (int i = 0; i < r->n; i++)
		x->line_keys[i] = bench_line_key(r->line[i].obj, bench_field_is_resume_key);
	for (int i = 0; i < r->nr_rep; i++)
		x->rep_keys[i] = bench_line_key(r->rep[i].obj, bench_field_is_resume_key);
}

/* The last summary line of key with every rep done, or NULL. */
static json_t *exec_find_whole(const struct bench_exec *x, const char *key, int reps)
{
	const struct bench_results *r = x->resume;

	for (int i = r ? r->n - 1 : -1; i >= 0; i--)
		if (!strcmp(x->line_keys[i], key) &&
		    json_integer_value(json_object_get(r->line[i].obj, "reps_done")) >= reps)
			return r->line[i].obj;
	return NULL;
}

/*
 * The BS_REP objects (events, flush, fairness, placement) of a rep read
 * back are not in struct bench_result: when the summary's details come from
 * such a rep, they are copied from its line as written.
 */
static void exec_graft(json_t *sum, json_t *rep)
{
	for (int f = 0; f < BF_NR; f++) {
		const struct bench_field *d = &bench_fields[f];
		json_t *v;

		/* admission: its audit comes from the worst rep, which the summary has right */
		if (d->sum != BS_REP || d->src != BSRC_FN || f == BF_ADMISSION || strchr(d->path, '.'))
			continue;
		v = json_object_get(rep, d->path);
		if (v)
			json_object_set(sum, d->path, v);
	}
}

/* ---- the group's process ---- */

/* Sends line "S i <j>" (or "T ...") to the parent. */
static void exec_send(int fd, const char *head, json_t *j)
{
	char *t = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	char *msg;
	int n;

	n = asprintf(&msg, "%s%s%s\n", head, t ? " " : "", t ? t : "");
	if (n < 0)
		die("out of memory");
	for (int off = 0; off < n; ) {
		ssize_t w = write(fd, msg + off, (size_t)(n - off));

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (int)w;
	}
	free(msg);
	free(t);
}

/* "percpu_hier · scenario ...: depth 2" */
static void exec_label(const struct bench_exec_group *g, const struct bench_algo *ba, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", ba->name, g->label ? " " : "", g->label ? g->label : "");
}

/* "rep 2/3 of update chain:2 --threads 1 --placement compact" (no label: "rep 2/3"). */
static void exec_round_label(const struct bench_exec_group *g, int k, char *buf, size_t len)
{
	const char *l = g->label;

	if (l && !strncmp(l, "· ", strlen("· ")))
		l += strlen("· ");
	snprintf(buf, len, "rep %d/%d%s%s", k + 1, g->cfg->reps, l ? " of " : "", l ? l : "");
}

/* What the group's process knows of its reps; [i * reps + k] is algorithm i's rep k. */
struct exec_state {
	struct bench_exec *x;		/* the settings */
	struct bench_exec_group *g;	/* the group */
	int fd;				/* the pipe to the parent */
	int reps;			/* reps asked for */
	struct bench_result *res;	/* each rep, measured or read back */
	json_t **jrep;			/* a rep read back: its line (borrowed from x->resume) */
	char *have;			/* the rep is in res */
	char *sent;			/* algorithm i's summary is sent (read back whole, or one rep) */
	int measured, done, reused, reused_reps, reused_bad, failed;	/* the tallies sent */
};

/* Sends algorithm i's summary line j to the parent. */
static void exec_send_sum(struct exec_state *st, int i, json_t *j)
{
	char head[32];

	snprintf(head, sizeof(head), "S %d", i);
	exec_send(st->fd, head, j);
	st->sent[i] = 1;
}

/* What the journal holds for algorithm i: its summary (then nothing runs), or some of its reps. */
static void exec_read_back(struct exec_state *st, int i)
{
	struct bench_exec *x = st->x;
	char *key = exec_key(x, st->g->cfg, st->g->algos[i]);
	json_t *o = exec_find_whole(x, key, st->reps);

	if (o) {
		const char *v = json_string_value(json_object_get(o, "verify"));

		st->reused++;
		st->done++;
		st->reused_bad += v && !strcmp(v, "mismatch");
		exec_send_sum(st, i, o);
		free(key);
		return;
	}
	for (int l = 0; l < x->resume->nr_rep; l++) {
		json_t *line = x->resume->rep[l].obj;
		json_int_t k = json_integer_value(json_object_get(line, "rep"));
		struct bench_summary one;

		if (strcmp(x->rep_keys[l], key) || k < 0 || k >= st->reps || st->have[i * st->reps + k] ||
		    bench_record_parse(line, &one))
			continue;
		st->res[i * st->reps + k] = one.med;
		st->jrep[i * st->reps + k] = line;
		st->have[i * st->reps + k] = 1;
		st->reused_reps++;
	}
	free(key);
}

/* The summary line of reps[0..k) (jreps: lines of those read back); *s filled. */
static json_t *exec_summary(struct exec_state *st, struct bench_result *reps, json_t **jreps, int k,
			    struct bench_summary *s)
{
	json_t *j;

	bench_summarize(reps, k, s);
	j = bench_record_json(st->g->cfg, st->x->nr_cpus, &s->med, s, reps);
	if (!j)
		die("out of memory");
	if (jreps && jreps[s->rep_index])
		exec_graft(j, jreps[s->rep_index]);
	return j;
}

/* Algorithm i's rep k measured now: written as it is; with one rep, that is its summary.  0, or -errno. */
static int exec_measure(struct exec_state *st, int i, int k)
{
	struct bench_exec *x = st->x;
	struct bench_config *cfg = st->g->cfg;
	struct bench_result *r = &st->res[i * st->reps + k];
	char what[320];
	int err, left = 0;

	exec_label(st->g, st->g->algos[i], what, sizeof(what));
	snprintf(what + strlen(what), sizeof(what) - strlen(what), ", rep %d of %d", k + 1, st->reps);
	bench_progress_start(what);
	err = bench_run_one(cfg, st->g->algos[i], r);
	/* the rep round (rep k of every algorithm, exec_child_run's order) ends with the last one it runs */
	for (int j = i + 1; j < st->g->nr_algos; j++)
		left += !st->sent[j] && !st->have[j * st->reps + k];
	exec_round_label(st->g, k, what, sizeof(what));
	bench_progress_end(err || left ? NULL : what);
	if (err) {
		/* Not bad input: the machine refused (memory, threads).  Exit 1, not 2. */
		bench_progress_clear();
		if (r->thread_failed)
			fprintf(stderr, "ctrbench: %s: cannot create thread %d of %d: %s\n",
				st->g->algos[i]->name, r->thread_failed, cfg->threads + cfg->readers,
				strerror(-err));
		else
			fprintf(stderr, "ctrbench: %s: cannot run: %s\n", st->g->algos[i]->name,
				strerror(-err));
		bench_result_free(r);
		memset(r, 0, sizeof(*r));
		st->failed = 1;
		return err;
	}
	st->have[i * st->reps + k] = 1;
	st->measured++;
	if (st->reps > 1 && x->journal >= 0) {
		json_t *line = json_pack("{s:s,s:i}", "kind", "rep", "rep", k);
		json_t *j = bench_record_json(cfg, x->nr_cpus, r, NULL, NULL);

		if (!line || !j)
			die("out of memory");
		json_object_update(line, j);
		exec_put(x, st->g->extra ? st->g->extra[i] : NULL, line);
		json_decref(line);
		json_decref(j);
	} else if (st->reps == 1) {
		/* one rep: it is the summary, written (and printed) as it comes */
		struct bench_summary s;
		json_t *j = exec_summary(st, r, NULL, 1, &s);

		if (x->journal >= 0)
			exec_put(x, st->g->extra ? st->g->extra[i] : NULL, j);
		if (x->out) {
			bench_progress_clear();
			bench_output_summary(x->out, cfg, r, 1);
		}
		exec_send_sum(st, i, j);
		json_decref(j);
		st->done++;
		st->failed |= r->verify == 0;
	}
	return 0;
}

/* Algorithm i's summary over its reps (when not sent yet): journal (all reps done), output, parent. */
static void exec_finish(struct exec_state *st, int i)
{
	struct bench_exec *x = st->x;
	struct bench_result *arr = bench_xcalloc((size_t)st->reps, sizeof(*arr));
	json_t **jarr = bench_xcalloc((size_t)st->reps, sizeof(*jarr));
	int k = 0, parsed = 0;

	for (int rep = 0; rep < st->reps && !st->sent[i]; rep++)
		if (st->have[i * st->reps + rep]) {
			parsed |= !!st->jrep[i * st->reps + rep];
			jarr[k] = st->jrep[i * st->reps + rep];
			arr[k++] = st->res[i * st->reps + rep];
		}
	if (k) {
		struct bench_summary s;
		json_t *j = exec_summary(st, arr, jarr, k, &s);

		/* an interrupted configuration's reps are in the journal: no summary short of reps */
		if (x->journal >= 0 && k == st->reps)
			exec_put(x, st->g->extra ? st->g->extra[i] : NULL, j);
		if (x->out && !parsed)
			bench_output_summary(x->out, st->g->cfg, arr, k);
		exec_send_sum(st, i, j);
		json_decref(j);
		st->done += k == st->reps;
		st->failed |= s.med.verify == 0;
	}
	free(arr);
	free(jarr);
}

/* Measures g, writes the journal, sends the summaries on fd; returns the exit status. */
static int exec_child_run(struct bench_exec *x, struct bench_exec_group *g, int fd)
{
	const int reps = g->cfg->reps, nr = g->nr_algos;
	struct exec_state st = {
		.x = x, .g = g, .fd = fd, .reps = reps,
		.res = bench_xcalloc((size_t)nr * reps, sizeof(*st.res)),
		.jrep = bench_xcalloc((size_t)nr * reps, sizeof(*st.jrep)),
		.have = bench_xcalloc((size_t)nr * reps, 1), .sent = bench_xcalloc((size_t)nr, 1),
	};
	char msg[160];
	int stop = 0;

	bench_setup_threads(g->cfg);
	for (int i = 0; i < nr && x->resume; i++)
		exec_read_back(&st, i);
	/* read back, not run: not in the progress counts nor in its time left */
	bench_progress_reuse(st.reused * reps + st.reused_reps);
	/* rep-major: A, B, C, then A, B, C again */
	for (int rep = 0; rep < reps && !stop; rep++)
		for (int i = 0; i < nr && !stop; i++) {
			if (st.sent[i] || st.have[i * reps + rep])
				continue;
			stop = exec_stop || exec_measure(&st, i, rep);
		}
	bench_progress_clear();
	for (int i = 0; i < nr; i++)
		exec_finish(&st, i);
	bench_hitm_report();	/* run --c2c: each algorithm's lines by HITM */
	snprintf(msg, sizeof(msg), "T %d %d %d %d %d %d", st.measured, st.done, st.reused, st.reused_reps,
		 st.reused_bad, x->write_failed);
	exec_send(fd, msg, NULL);
	fflush(NULL);
	return (st.failed || x->write_failed) | (exec_stop ? 4 : 0);
}

/* ---- the parent ---- */

/* What the group's process sent: its summaries into g->sums, its tallies into x. */
static void exec_collect(struct bench_exec *x, struct bench_exec_group *g, char *buf)
{
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (line[0] == 'S' && line[1] == ' ') {
			char *end;
			long i = strtol(line + 2, &end, 10);
			json_t *o = json_loads(end, 0, NULL);

			if (o && i >= 0 && i < g->nr_algos && g->sums)
				bench_record_parse(o, &g->sums[i]);
			/* run's table: the summaries kept in this process, for the verdict (bench/verdict.h) */
			if (o && x->out && x->out->kept)
				json_array_append(x->out->kept, o);
			json_decref(o);
		} else if (line[0] == 'T') {
			int m = 0, d = 0, r = 0, rr = 0, rb = 0, wf = 0;

			if (sscanf(line + 1, "%d %d %d %d %d %d", &m, &d, &r, &rr, &rb, &wf) == 6) {
				x->measured += m;
				x->configs_done += d;
				x->reused += r;
				x->reused_reps += rr;
				x->reused_mismatch += rb;
				x->write_failed |= wf;
			}
		}
	}
}

/* One group in a process of its own; 1 if it failed or was interrupted. */
static int exec_group(struct bench_exec *x, struct bench_exec_group *g)
{
	const pid_t parent = getpid();
	char *buf = NULL;
	size_t len = 0;
	int read_err;
	int pfd[2], status = 0, code;
	pid_t pid;

	if (g->sums)
		memset(g->sums, 0, sizeof(*g->sums) * (size_t)g->nr_algos);
	if (pipe2(pfd, O_CLOEXEC))
		die("cannot start a run: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("cannot start a run: %s", strerror(errno));
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = exec_on_signal_child, .sa_flags = SA_RESTART | SA_RESETHAND };

		close(pfd[0]);
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		/* not the terminal's foreground group: its table and progress must print even with tostop */
		signal(SIGTTOU, SIG_IGN);
		_exit(exec_child_run(x, g, pfd[1]));
	}
	exec_child = pid;
	setpgid(pid, pid);	/* also here: no window in which a Ctrl-C reaches both */
	if (exec_stop)
		kill(pid, SIGTERM);
	close(pfd[1]);
	/* a read error ends what the group said, as its end of file does */
	buf = bench_fd_slurp(pfd[0], &len, &read_err);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	exec_child = 0;
	exec_collect(x, g, buf);
	free(buf);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		exit(2);	/* bad input: the group said what, once, as die() does */
	if (!WIFEXITED(status)) {
		bench_progress_clear();
		fprintf(stderr, "ctrbench: %s: %s: run died of signal %d (%s); its measurement in flight is"
			" lost, what it wrote before is kept\n", x->name, g->what, WTERMSIG(status),
			strsignal(WTERMSIG(status)));
		x->failed = 1;
		return 1;
	}
	code = WEXITSTATUS(status);
	if (code & ~5) {
		fprintf(stderr, "ctrbench: %s: %s: run exited %d\n", x->name, g->what, code);
		x->failed = 1;
		return 1;
	}
	x->failed |= code & 1;
	x->interrupted |= (code & 4) || exec_stop;
	return (code & 1) || x->interrupted;
}

int bench_exec(struct bench_exec *x, struct bench_exec_group *g, int n)
{
	struct sigaction sa = { .sa_handler = exec_on_signal }, old_int, old_term;
	int ret = 0;

	exec_resume_keys(x);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	for (int i = 0; i < n && !x->interrupted && !exec_stop; i++) {
		ret |= exec_group(x, &g[i]);
		bench_progress_advance(g[i].nr_algos * g[i].cfg->reps);
	}
	x->interrupted |= exec_stop;
	exec_was_stopped |= x->interrupted;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return ret || x->interrupted || x->failed;
}

void bench_exec_release(struct bench_exec *x)
{
	for (int i = 0; x->line_keys && i < x->resume->n; i++)
		free(x->line_keys[i]);
	for (int i = 0; x->rep_keys && i < x->resume->nr_rep; i++)
		free(x->rep_keys[i]);
	free(x->line_keys);
	free(x->rep_keys);
	x->line_keys = x->rep_keys = NULL;
}
