/* SPDX-License-Identifier: MIT */
/*
 * ctrbench sweep: the cross product of --algo x --workload x --shape x
 * --placement x --threads, one result line per finished configuration.
 *
 * Each configuration runs as a child process, `<this binary> run --algo A
 * ... --format json`, rather than as a call in this process:
 *  - a crash (or a sanitizer abort) of one configuration ends that child,
 *    not the sweep: it is reported, nothing of it is recorded, the sweep
 *    goes on and ends with exit status 1;
 *  - every configuration starts from a fresh process (heap, TSC calibration,
 *    perf state), as a user's own `ctrbench run` would;
 *  - the parent only validates and appends: the child's output must be one
 *    line holding one JSON object whose parameters are those asked for, and
 *    it goes to --out with one write(2) on an O_APPEND descriptor, then
 *    fsync.  A sweep killed at any moment therefore loses no configuration
 *    that was reported finished, and leaves at most a partial last line
 *    (killed inside the write), which the next --resume drops, saying so.
 * The child finds this very binary through /proc/self/exe, so a sweep never
 * mixes builds; --resume matches every parameter and the build (env.commit,
 * env.cflags), so a rebuilt binary re-runs what it did not measure itself.
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
#include "env.h"
#include "results.h"
#include "run.h"
#include "schema.h"
#include "setup.h"
#include "sweep.h"

#define SWEEP_CHILD_SECS 0.15		/* a child's own start (hwloc, TSC calibration), measured here */

/* ---- one configuration ---- */

struct sweep_config {
	const struct bench_algo *algo;	/* what runs */
	const char *workload;		/* update, charge, readers or store */
	const char *shape;		/* as typed */
	const char *placement;		/* as run --placement takes it */
	int threads;			/* updaters */
};

/*
 * What identifies a configuration in a result line: every field of the
 * table (schema.h) that is not a plain figure -- the configuration's keys
 * and knobs, how it was measured, and the build.  A line from a run with
 * another value of any of them is another configuration, so --resume runs
 * this one again rather than guess.  Fields a line lacks read as the
 * table's default.
 */
static char *sweep_key(json_t *line)
{
	return bench_line_key(line, bench_field_is_resume_key);
}

/* The key a child's line for c must have: what run prints for these arguments, built here. */
static char *sweep_expected_key(const struct bench_sweep *s, const struct sweep_config *c,
				json_t *build)
{
	json_t *o = json_object();
	char *key;

	json_object_set_new(o, "algo", json_string(c->algo->name));
	json_object_set_new(o, "workload", json_string(c->workload));
	json_object_set_new(o, "shape", json_string(c->shape));
	json_object_set_new(o, "threads", json_integer(c->threads));
	json_object_set_new(o, "slots", json_integer(s->slots ? s->slots : bench_default_slots(c->threads)));
	json_object_set_new(o, "placement", json_string(c->placement));
	if (!strcmp(c->workload, "readers")) {
		json_object_set_new(o, "readers", json_integer(s->readers < 0 ? 1 : s->readers));
		json_object_set_new(o, "read_node", json_string("random"));
	}
	if (!strcmp(c->workload, "charge") || !strcmp(c->workload, "store")) {
		json_object_set_new(o, "batch", json_integer(BENCH_CHARGE_BATCH));
		json_object_set_new(o, "limit_headroom", json_real(BENCH_LIMIT_HEADROOM));
		json_object_set_new(o, "limit_levels", json_string("all"));
	}
	json_object_set_new(o, "reps_requested", json_integer(s->reps));
	json_object_set_new(o, "duration_ms", json_integer(s->duration_ms));
	json_object_set_new(o, "warmup_ms", json_integer(s->warmup_ms));
	json_object_set_new(o, "options", s->options ? json_string(s->options) : json_null());
	json_object_set_new(o, "flush_period_ms", json_integer(s->flush_period_ms));
	json_object_set_new(o, "work_ns", json_integer(s->work_ns));
	json_object_set_new(o, "events_requested", s->events ? json_string(s->events) : json_null());
	json_object_set_new(o, "shared_mem", json_string("local"));
	json_object_set_new(o, "timer", json_pack("{s:i}", "sample_every", (int)BENCH_SAMPLE_EVERY));
	if (s->note)
		json_object_set_new(o, "note", json_string(s->note));
	json_object_set(o, "env", build);
	key = sweep_key(o);
	json_decref(o);
	return key;
}

static void sweep_describe(const struct sweep_config *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s %s --threads %d --placement %s", c->algo->name, c->workload,
		 c->shape, c->threads, c->placement);
}

/* argv of the child: `ctrbench run` with this configuration, JSON out. */
static char **sweep_child_argv(const struct bench_sweep *s, const struct sweep_config *c)
{
	char **argv = bench_xcalloc(40, sizeof(*argv));
	int n = 0;

#define ARG(x) (argv[n++] = bench_xstrdup(x))
#define ARGI(opt, v) do { char b_[24]; snprintf(b_, sizeof(b_), "%d", (v)); ARG(opt); ARG(b_); } while (0)
	ARG("ctrbench");
	ARG("run");
	ARG("--algo");
	ARG(c->algo->name);
	ARG("--workload");
	ARG(c->workload);
	ARG("--shape");
	ARG(c->shape);
	ARGI("--threads", c->threads);
	if (s->slots)
		ARGI("--slots", s->slots);
	ARG("--placement");
	ARG(c->placement);
	ARGI("--reps", s->reps);
	ARGI("--duration-ms", s->duration_ms);
	ARGI("--warmup-ms", s->warmup_ms);
	if (!strcmp(c->workload, "readers") && s->readers >= 0)
		ARGI("--readers", s->readers);
	if (s->options) {
		ARG("--options");
		ARG(s->options);
	}
	if (s->flush_period_ms)
		ARGI("--flush-period-ms", s->flush_period_ms);
	if (s->work_ns)
		ARGI("--work-ns", s->work_ns);
	if (s->events) {
		ARG("--events");
		ARG(s->events);
		if (bench_events_lenient)
			ARG("--events-lenient");
	}
	if (s->note) {
		ARG("--note");
		ARG(s->note);
	}
	ARG("--format");
	ARG("json");
#undef ARG
#undef ARGI
	return argv;
}

static void sweep_free_argv(char **argv)
{
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

/* ---- signals ---- */

static volatile sig_atomic_t sweep_stop;

static void sweep_on_signal(int sig)
{
	(void)sig;
	sweep_stop = 1;
}

int bench_sweep_interrupted(void)
{
	return sweep_stop;
}

/*
 * SIGINT and SIGTERM stay blocked except inside ppoll while a child runs:
 * they can then never land in the middle of an append, and one that comes
 * between two configurations is pending until the next ppoll, which
 * returns at once.  run_mask: the mask ppoll and the children run with.
 */
static sigset_t sweep_old_mask, sweep_run_mask;
static struct sigaction sweep_old_int, sweep_old_term;

static void sweep_signals_on(void)
{
	struct sigaction sa = { .sa_handler = sweep_on_signal };
	sigset_t block;

	sweep_stop = 0;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &sweep_old_mask);
	sweep_run_mask = sweep_old_mask;
	sigdelset(&sweep_run_mask, SIGINT);
	sigdelset(&sweep_run_mask, SIGTERM);
	sigaction(SIGINT, &sa, &sweep_old_int);
	sigaction(SIGTERM, &sa, &sweep_old_term);
}

static void sweep_signals_off(void)
{
	sigaction(SIGINT, &sweep_old_int, NULL);
	sigaction(SIGTERM, &sweep_old_term, NULL);
	sigprocmask(SIG_SETMASK, &sweep_old_mask, NULL);
}

/* ---- the child ---- */

struct sweep_child {
	char *out;		/* its stdout */
	size_t len;		/* ... bytes */
	char *err;		/* its stderr, NUL-terminated */
	int status;		/* as waitpid gives it */
	int stopped;		/* SIGINT/SIGTERM came while it ran: it was killed, its output is void */
};

/* Runs argv as a child of this binary; fills *ch. */
static void sweep_run_child(char **argv, struct sweep_child *ch)
{
	int pfd[2], efd = memfd_create("ctrbench-sweep-stderr", MFD_CLOEXEC);
	pid_t parent = getpid(), pid;
	size_t cap = 0;
	off_t elen;

	memset(ch, 0, sizeof(*ch));
	if (efd < 0 || pipe2(pfd, O_CLOEXEC))
		die("cannot start a run: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("cannot start a run: %s", strerror(errno));
	if (pid == 0) {
		/* A sweep killed with SIGKILL takes its run along: no orphan left measuring. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(pfd[1], STDOUT_FILENO);
		dup2(efd, STDERR_FILENO);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigprocmask(SIG_SETMASK, &sweep_old_mask, NULL);
		/* the sweep's own line says how far it is; a run's line would only be relayed as noise */
		setenv("CTRBENCH_PROGRESS", "0", 1);
		execv("/proc/self/exe", argv);
		dprintf(STDERR_FILENO, "cannot run /proc/self/exe: %s\n", strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd pf = { .fd = pfd[0], .events = POLLIN };
		ssize_t got;

		if (sweep_stop) {
			ch->stopped = 1;
			kill(pid, SIGKILL);
			break;
		}
		if (ppoll(&pf, 1, NULL, &sweep_run_mask) < 0) {
			if (errno == EINTR)
				continue;
			die("cannot wait for a run: %s", strerror(errno));
		}
		if (ch->len + 4096 > cap) {
			cap = cap ? 2 * cap : 16384;
			ch->out = realloc(ch->out, cap + 1);
			if (!ch->out)
				die("out of memory");
		}
		got = read(pfd[0], ch->out + ch->len, cap - ch->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		ch->len += (size_t)got;
	}
	close(pfd[0]);
	while (waitpid(pid, &ch->status, 0) < 0 && errno == EINTR)
		;
	if (!ch->out)
		ch->out = bench_xcalloc(1, 1);
	ch->out[ch->len] = 0;
	elen = lseek(efd, 0, SEEK_END);
	ch->err = bench_xcalloc((size_t)(elen > 0 ? elen : 0) + 1, 1);
	if (elen > 0 && pread(efd, ch->err, (size_t)elen, 0) < 0)
		ch->err[0] = 0;
	close(efd);
}

/* ---- the output file ---- */

struct sweep_done {
	char *key;		/* sweep_key of a complete line */
	int mismatch;		/* that line failed verification */
};

static int sweep_done_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sweep_done *)a)->key, ((const struct sweep_done *)b)->key);
}

struct sweep_state {
	const struct bench_sweep *s;	/* what to run */
	int fd;				/* --out, O_APPEND, locked */
	struct sweep_done *done;	/* lines already there, sorted by key */
	int nr_done;			/* their number */
	json_t *build;			/* {commit, cflags} of this binary */
	json_t *sweep_rec;		/* "sweep" member added to every line: the plan */
	int tty;			/* stderr is a terminal: draw progress */
	int progress_shown;		/* a progress line is on screen, to clear before other output */
};

/* Clear the progress line before other stderr output. */
static void sweep_clear_progress(struct sweep_state *st)
{
	if (st->progress_shown) {
		fputs("\r\033[K", stderr);
		st->progress_shown = 0;
	}
}

/* "ctrbench: sweep: <what>" and each line of the child's stderr under it. */
static void sweep_report(struct sweep_state *st, const char *what, const char *child_err)
{
	sweep_clear_progress(st);
	fprintf(stderr, "ctrbench: sweep: %s\n", what);
	for (const char *p = child_err; p && *p; ) {
		size_t n = strcspn(p, "\n");

		fprintf(stderr, "ctrbench: sweep:   | %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	fflush(stderr);
}

/*
 * Open --out for appending under an exclusive lock (two sweeps appending to
 * one file would interleave configurations).  With --resume, read what is
 * there: a partial last line (a sweep killed inside its write) is cut off,
 * saying so; every complete line must be a result.
 */
static void sweep_open_out(struct sweep_state *st)
{
	const struct bench_sweep *s = st->s;
	struct bench_results r;
	struct stat sb;
	int created = stat(s->out, &sb) != 0;

	if (!created && sb.st_size > 0 && !s->resume)
		die("'%s' exists and is not empty: add --resume to continue that sweep, or give another --out",
		    s->out);
	st->fd = open(s->out, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (st->fd < 0)
		die("cannot open '%s': %s", s->out, strerror(errno));
	if (fstat(st->fd, &sb) || !S_ISREG(sb.st_mode))
		die("'%s' is not a regular file", s->out);
	if (flock(st->fd, LOCK_EX | LOCK_NB))
		die("'%s' is being written by another sweep (it holds the lock)", s->out);
	if (created) {
		/* The new name must survive a crash too, not only the lines. */
		char *dir = bench_xstrdup(s->out), *slash = strrchr(dir, '/');
		int dfd;

		if (slash)
			*(slash == dir ? slash + 1 : slash) = 0;
		dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		free(dir);
	}
	bench_results_load(s->out, 0, &r);
	/*
	 * Nothing is cut before the whole file is known to be a sweep's: every
	 * complete line a result line (checked in the loop below, which dies
	 * before any change), and a partial tail that could be the start of one.
	 */
	for (int i = 0; i < r.n; i++)
		if (!json_is_string(json_object_get(r.line[i].obj, "algo")))
			die("%s:%d: not a result line (no \"algo\"): --out must be a file of result lines;"
			    " nothing was changed", s->out, r.line[i].lineno);
	if (r.partial_bytes && !r.partial_ok)
		die("%s:%d: not a result line (%zu bytes with no newline that no result line starts"
		    " with): --out must be a file of result lines; nothing was changed", s->out,
		    r.partial_lineno, r.partial_bytes);
	if (r.partial_bytes) {
		if (ftruncate(st->fd, (off_t)r.complete_bytes) || fsync(st->fd))
			die("cannot drop the partial last line of '%s': %s", s->out, strerror(errno));
		fprintf(stderr, "ctrbench: sweep: dropped a partial last line of '%s' (%zu bytes, no newline:"
			" a sweep killed while writing it); the configuration it held is run again\n", s->out,
			r.partial_bytes);
	}
	st->done = bench_xcalloc((size_t)r.n, sizeof(*st->done));
	for (int i = 0; i < r.n; i++) {
		json_t *o = r.line[i].obj, *done = json_object_get(o, "reps_done"),
		       *asked = json_object_get(o, "reps_requested");

		/* a run stopped early (fewer reps than asked) is not that configuration done */
		if (json_is_integer(done) && json_is_integer(asked) &&
		    json_integer_value(done) < json_integer_value(asked))
			continue;
		st->done[st->nr_done].key = sweep_key(o);
		st->done[st->nr_done++].mismatch =
			json_is_string(json_object_get(o, "verify")) &&
			!strcmp(json_string_value(json_object_get(o, "verify")), "mismatch");
	}
	qsort(st->done, (size_t)st->nr_done, sizeof(*st->done), sweep_done_cmp);
	bench_results_free(&r);
}

static struct sweep_done *sweep_find_done(struct sweep_state *st, char *key)
{
	struct sweep_done k = { .key = key };

	return bsearch(&k, st->done, (size_t)st->nr_done, sizeof(*st->done), sweep_done_cmp);
}

/*
 * One line, one write(2), then fsync: the line is in the file whole or,
 * killed inside the write, a partial tail --resume drops.  A write that
 * fails is undone (truncated back) so the file stays whole lines.
 */
static void sweep_append(struct sweep_state *st, const char *line, size_t len)
{
	off_t before = lseek(st->fd, 0, SEEK_END);
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(st->fd, line + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;

			if (before >= 0 && ftruncate(st->fd, before) == 0)
				fsync(st->fd);
			sweep_clear_progress(st);
			fprintf(stderr, "ctrbench: sweep: cannot write '%s': %s; stopped\n", st->s->out,
				strerror(e));
			exit(1);
		}
		off += (size_t)w;
	}
	if (fsync(st->fd)) {
		sweep_clear_progress(st);
		fprintf(stderr, "ctrbench: sweep: cannot sync '%s': %s; stopped\n", st->s->out,
			strerror(errno));
		exit(1);
	}
}

static void sweep_fmt_secs(char *buf, size_t len, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

static double sweep_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The progress line: done/total, elapsed, time left, what runs now.  Time
 * left: the mean time of the configurations run so far in this sweep, times
 * those left; before the first one, what the durations ask for.
 */
static void sweep_progress(struct sweep_state *st, int done, int total, int ran, double start,
			   const char *what)
{
	const struct bench_sweep *s = st->s;
	double el = sweep_now() - start, per;
	char e[32], l[32];

	if (!st->tty)
		return;
	per = ran ? el / ran : s->reps * (s->duration_ms + s->warmup_ms) / 1000.0 + SWEEP_CHILD_SECS;
	sweep_fmt_secs(e, sizeof(e), el);
	sweep_fmt_secs(l, sizeof(l), per * (total - done));
	fprintf(stderr, "\r\033[K[%d/%d] %s elapsed, ~%s left: %s", done, total, e, l, what);
	fflush(stderr);
	st->progress_shown = 1;
}

/* The child's output checked: one line, one JSON object, this configuration; else why not. */
static json_t *sweep_check_output(const struct sweep_child *ch, const char *want_key, const char **why)
{
	json_error_t err;
	json_t *o;
	char *key;

	if (!ch->len) {
		*why = "printed no result";
		return NULL;
	}
	if (ch->out[ch->len - 1] != '\n' || memchr(ch->out, '\n', ch->len) != ch->out + ch->len - 1 ||
	    strlen(ch->out) != ch->len) {
		*why = "did not print exactly one line";
		return NULL;
	}
	o = json_loads(ch->out, 0, &err);
	if (!o || !json_is_object(o)) {
		json_decref(o);
		*why = "printed something that is not one JSON object";
		return NULL;
	}
	key = sweep_key(o);
	if (strcmp(key, want_key)) {
		*why = "printed a result whose parameters are not the ones asked for";
		json_decref(o);
		o = NULL;
	}
	free(key);
	return o;
}

/*
 * What a child left: recorded (appended to --out) when it printed this
 * configuration's line with every rep done, else reported.  Returns 1 when
 * the configuration failed (not recorded, or recorded with a verification
 * failure), 0 when recorded clean; *recorded says whether it was appended.
 */
static int sweep_record(struct sweep_state *st, struct sweep_child *ch, const char *key, const char *what,
			int *recorded)
{
	const struct bench_sweep *s = st->s;
	const char *why = NULL;
	int failed = 0;
	json_t *o;

	*recorded = 0;
	if (WIFEXITED(ch->status) && WEXITSTATUS(ch->status) == 2) {
		/* Bad input the checks above missed: every configuration would repeat it. */
		sweep_clear_progress(st);
		ch->err[strcspn(ch->err, "\n")] = 0;
		die("sweep: %s: run refused its arguments: %s", what, ch->err);
	}
	o = WIFEXITED(ch->status) ? sweep_check_output(ch, key, &why) : NULL;
	if (o && json_is_integer(json_object_get(o, "reps_done")) &&
	    json_integer_value(json_object_get(o, "reps_done")) < s->reps) {
		why = "stopped before its last repetition";
		json_decref(o);
		o = NULL;
	}
	if (o) {
		const char *v = json_string_value(json_object_get(o, "verify"));
		char *line;

		json_object_set(o, "sweep", st->sweep_rec);
		line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (!line)
			die("out of memory");
		line = realloc(line, strlen(line) + 2);
		if (!line)
			die("out of memory");
		strcat(line, "\n");
		sweep_append(st, line, strlen(line));
		free(line);
		*recorded = 1;
		if (WEXITSTATUS(ch->status) != 0) {
			char msg[640];

			snprintf(msg, sizeof(msg), "%s: verification failed (verify: %s; recorded)",
				 what, v ? v : "?");
			sweep_report(st, msg, ch->err);
			failed = 1;
		} else if (ch->err[0]) {
			char msg[640];

			snprintf(msg, sizeof(msg), "%s: done, and run said:", what);
			sweep_report(st, msg, ch->err);
		}
		json_decref(o);
	} else {
		char msg[640];

		if (WIFSIGNALED(ch->status))
			snprintf(msg, sizeof(msg), "%s: run died of signal %d (%s); not recorded", what,
				 WTERMSIG(ch->status), strsignal(WTERMSIG(ch->status)));
		else
			snprintf(msg, sizeof(msg), "%s: run exited %d and %s; not recorded", what,
				 WEXITSTATUS(ch->status), why ? why : "printed no result");
		sweep_report(st, msg, ch->err);
		failed = 1;
	}
	return failed;
}

int bench_sweep_exec(const struct bench_sweep *s)
{
	struct sweep_state st = { .s = s, .tty = isatty(STDERR_FILENO) };
	const int per_shape = s->nr_placements * s->nr_threads * s->nr_algos;
	const int total = s->nr_workloads * s->nr_shapes * per_shape;
	int done = 0, ran = 0, failed = 0, old_mismatch = 0, i;
	json_t *env = bench_env_json(NULL);
	double start;
	char what[512];

	if (!env)
		die("out of memory");
	st.build = json_pack("{s:O,s:O}", "commit", json_object_get(env, "commit"),
			     "cflags", json_object_get(env, "cflags"));
	json_decref(env);
	st.sweep_rec = json_pack("{s:o,s:o}",
				 "plan_file", s->plan_file ? json_string(s->plan_file) : json_null(),
				 "plan", s->plan_text ? json_string(s->plan_text) : json_null());
	if (!st.build || !st.sweep_rec)
		die("out of memory");
	sweep_open_out(&st);
	sweep_signals_on();
	start = sweep_now();
	for (i = 0; i < total && !sweep_stop; i++) {
		const int w = i / (s->nr_shapes * per_shape), sh = i / per_shape % s->nr_shapes;
		const int pl = i / (s->nr_threads * s->nr_algos) % s->nr_placements;
		const int th = i / s->nr_algos % s->nr_threads, a = i % s->nr_algos;
		/* algorithms innermost: drift over a long sweep hits them alike */
		const struct sweep_config c = {
			.algo = s->algo[a], .workload = s->workload[w], .shape = s->shape[sh],
			.placement = s->placement[pl], .threads = s->threads[th],
		};
		char *key = sweep_expected_key(s, &c, st.build), **argv;
		struct sweep_done *prev = sweep_find_done(&st, key);
		struct sweep_child ch;
		int recorded;

		if (prev) {
			old_mismatch += prev->mismatch;
			done++;
			free(key);
			continue;
		}
		sweep_describe(&c, what, sizeof(what));
		sweep_progress(&st, done, total, ran, start, what);
		argv = sweep_child_argv(s, &c);
		sweep_run_child(argv, &ch);
		sweep_free_argv(argv);
		if (ch.stopped) {
			free(ch.out);
			free(ch.err);
			free(key);
			break;
		}
		ran++;
		failed |= sweep_record(&st, &ch, key, what, &recorded);
		done += recorded;
		free(ch.out);
		free(ch.err);
		free(key);
	}
	sweep_signals_off();
	sweep_clear_progress(&st);
	if (sweep_stop) {
		fprintf(stderr, "ctrbench: sweep: interrupted: %d of %d configurations in '%s'; the one"
			" running was stopped and not recorded; --resume continues\n", done, total, s->out);
		failed = 1;
	} else {
		if (old_mismatch) {
			fprintf(stderr, "ctrbench: sweep: %d configuration%s already in '%s' failed"
				" verification\n", old_mismatch, old_mismatch == 1 ? "" : "s", s->out);
			failed = 1;
		}
		if (st.tty) {
			char e[32];

			sweep_fmt_secs(e, sizeof(e), sweep_now() - start);
			fprintf(stderr, "ctrbench: sweep: %d of %d configurations in '%s' (%d run now,"
				" %d already there) in %s\n", done, total, s->out, ran, done - ran, e);
		}
	}
	close(st.fd);
	for (i = 0; i < st.nr_done; i++)
		free(st.done[i].key);
	free(st.done);
	json_decref(st.build);
	json_decref(st.sweep_rec);
	return failed;
}
