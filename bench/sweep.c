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
#include "sweep.h"

#define SWEEP_MAX_THREADS 4096		/* as run --threads */
#define SWEEP_MAX_CONFIGS 1000000	/* a cross product past this is a typo, not a plan */
#define SWEEP_MAX_PLAN (64 * 1024)	/* a plan is a few lines; it is copied into every result */
#define SWEEP_CHILD_SECS 0.15		/* a child's own start (hwloc, TSC calibration), measured here */

/* The options a sweep takes with a value; a plan file takes the same names. */
enum {
	SO_ALGO, SO_WORKLOAD, SO_SHAPE, SO_THREADS, SO_PLACEMENT, SO_REPS, SO_DURATION, SO_WARMUP,
	SO_READERS, SO_OPTIONS, SO_FLUSH, SO_WORK_NS, SO_NOTE, SO_OUT, SO_EVENTS, SO_NR,
	SO_PLAN = SO_NR, SO_RESUME,
};

static const char *const sweep_opt_names[SO_NR] = {
	"algo", "workload", "shape", "threads", "placement", "reps", "duration-ms", "warmup-ms",
	"readers", "options", "flush-period-ms", "work-ns", "note", "out", "events",
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die("out of memory");
	return d;
}

/* Text that JSON cannot hold (not UTF-8) would vanish from the results: refuse it. */
static void sweep_check_utf8(const char *what, const char *s)
{
	json_t *j = json_string(s);

	if (!j)
		die("bad value for %s (not UTF-8)", what);
	json_decref(j);
}

/* s split at sep into fresh strings; an empty item or one given twice is bad input for --opt. */
static char **sweep_split(const char *opt, const char *s, char sep, int *n)
{
	char *copy = xstrdup(s), *p = copy, *item, seps[2] = { sep, 0 };
	char **v = xcalloc(strlen(s) + 1, sizeof(*v));

	*n = 0;
	while ((item = strsep(&p, seps))) {
		if (!*item)
			die("empty item in --%s '%s'", opt, s);
		for (int i = 0; i < *n; i++)
			if (!strcmp(v[i], item))
				die("'%s' given twice in --%s '%s'", item, opt, s);
		v[(*n)++] = xstrdup(item);
	}
	free(copy);
	return v;
}

/* A whole decimal in [1, SWEEP_MAX_THREADS], or -1. */
static int sweep_thread_count(const char *s, size_t len)
{
	long v = 0;

	if (!len || len > 4)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v >= 1 && v <= SWEEP_MAX_THREADS ? (int)v : -1;
}

/*
 * `nodes`: 1, then the PUs of one NUMA node, of two, ..., of all (the
 * steps the Linux kernel test robot's will-it-scale sweeps take), nodes in
 * logical order.  A machine without NUMA information is one node.
 */
static void sweep_node_steps(const struct topo *t, char *want)
{
	int nr = topo_nr_pus(t), *per_node = xcalloc((size_t)nr + 1, sizeof(int)), max = 0, sum = 0;
	struct topo_pu_info info;

	for (int i = 0; i < nr; i++) {
		int node = topo_pu_at(t, i, &info) || info.numa < 0 ? 0 : info.numa;

		per_node[node < nr ? node : nr]++;
		if (node > max)
			max = node < nr ? node : nr;
	}
	want[1] = 1;
	for (int n = 0; n <= max; n++) {
		sum += per_node[n];
		if (sum >= 1 && sum <= SWEEP_MAX_THREADS)
			want[sum] = 1;
	}
	free(per_node);
}

/* --threads: N, A..B and `nodes`, comma-separated; the union, ascending. */
static int *sweep_parse_threads(const char *s, const struct topo *t, int *n)
{
	char *want = xcalloc(SWEEP_MAX_THREADS + 1, 1);
	char *copy = xstrdup(s), *p = copy, *item;
	int *v;

	while ((item = strsep(&p, ","))) {
		const char *dots = strstr(item, "..");
		int a, b;

		if (!strcmp(item, "nodes")) {
			sweep_node_steps(t, want);
			continue;
		}
		if (dots) {
			a = sweep_thread_count(item, (size_t)(dots - item));
			b = sweep_thread_count(dots + 2, strlen(dots + 2));
		} else {
			a = b = sweep_thread_count(item, strlen(item));
		}
		if (a < 0 || b < 0 || a > b)
			die("bad value '%s' in --threads '%s' (want N, A..B with A <= B, or nodes,"
			    " comma-separated; counts from 1 to %d)", item, s, SWEEP_MAX_THREADS);
		for (int k = a; k <= b; k++)
			want[k] = 1;
	}
	*n = 0;
	for (int k = 1; k <= SWEEP_MAX_THREADS; k++)
		*n += want[k];
	v = xcalloc((size_t)*n, sizeof(int));
	*n = 0;
	for (int k = 1; k <= SWEEP_MAX_THREADS; k++)
		if (want[k])
			v[(*n)++] = k;
	free(want);
	free(copy);
	return v;
}

/*
 * --placement: names separated by ',' ("compact,scatter"), or by ';' as
 * soon as one is a list:CPUS, whose own commas would split it
 * ("compact;list:0,2-3").  A lone list:CPUS needs no ';'.
 */
static char **sweep_parse_placements(const char *s, const struct topo *t, int *n)
{
	char **v, err[256];
	int pu;

	if (strchr(s, ';'))
		v = sweep_split("placement", s, ';', n);
	else if (!strncmp(s, "list:", 5)) {
		v = xcalloc(1, sizeof(*v));
		v[0] = xstrdup(s);
		*n = 1;
	} else {
		v = sweep_split("placement", s, ',', n);
	}
	/* Whether a policy is known does not depend on the thread count: try each with one thread. */
	for (int i = 0; i < *n; i++)
		if (topo_place(t, v[i], 1, &pu, NULL, err, sizeof(err))) {
			if (!strchr(s, ';') && strstr(s, "list:"))
				die("bad value '%s' in --placement '%s' (a list:CPUS among other placements"
				    " needs ';' between them: compact;list:0,1)", v[i], s);
			die("%s", err);
		}
	return v;
}

static const struct bench_algo **sweep_parse_algos(const char *s, int *n)
{
	const struct bench_algo **v;
	char **names;

	if (!strcmp(s, "all")) {
		v = xcalloc((size_t)bench_nr_algos, sizeof(*v));
		for (int i = 0; i < bench_nr_algos; i++)
			v[i] = &bench_algos[i];
		*n = bench_nr_algos;
		return v;
	}
	names = sweep_split("algo", s, ',', n);
	v = xcalloc((size_t)*n, sizeof(*v));
	for (int i = 0; i < *n; i++) {
		v[i] = bench_algo_find(names[i]);
		if (!v[i])
			die("unknown algorithm '%s' (ctrbench list shows them)", names[i]);
		free(names[i]);
	}
	free(names);
	return v;
}

static int sweep_has_workload(const struct bench_sweep *s, const char *w)
{
	for (int i = 0; i < s->nr_workloads; i++)
		if (!strcmp(s->workload[i], w))
			return 1;
	return 0;
}

void bench_sweep_check(const struct bench_sweep *s)
{
	const struct ctr_params p = { .nr_nodes = 1, .nr_cpus = 1, .options = s->options,
				      .flush_period_ms = s->flush_period_ms };
	long configs = 1;

	for (int i = 0; i < s->nr_workloads; i++)
		if (strcmp(s->workload[i], "update") && strcmp(s->workload[i], "charge") &&
		    strcmp(s->workload[i], "readers"))
			die("unknown workload '%s' (want update, charge or readers)", s->workload[i]);
	for (int i = 0; i < s->nr_shapes; i++) {
		struct bench_shape shape;
		const char *why;

		if (bench_shape_parse(s->shape[i], &shape, &why))
			die("bad shape '%s' (%s)", s->shape[i], why);
		bench_shape_free(&shape);
	}
	if (s->readers >= 0 && !sweep_has_workload(s, "readers"))
		die("--readers %d needs the readers workload in --workload", s->readers);
	if (s->work_ns && sweep_has_workload(s, "readers"))
		die("--work-ns applies to the update and charge workloads, not to readers");
	if (sweep_has_workload(s, "readers"))
		for (int i = 0; i < s->nr_threads; i++)
			if (s->threads[i] + (s->readers < 0 ? 1 : s->readers) > SWEEP_MAX_THREADS)
				die("too many threads: --threads %d plus --readers %d", s->threads[i],
				    s->readers < 0 ? 1 : s->readers);
	if (s->options)
		sweep_check_utf8("--options", s->options);
	if (s->note)
		sweep_check_utf8("--note", s->note);
	/* As `run` checks --options and --flush-period-ms: on a one-node tree, before anything runs. */
	for (int i = 0; i < s->nr_algos && (s->options || s->flush_period_ms); i++) {
		struct ctr_tree *t;

		if (s->algo[i]->baseline) {
			if (s->options)
				die("bad value '%s' for --options (%s is a harness baseline: it takes none)",
				    s->options, s->algo[i]->name);
			continue;
		}
		errno = 0;
		t = ctr_tree_new(s->algo[i]->algo, &p);
		if (!t && errno == EINVAL)
			die("bad value '%s' for --options (not taken by %s; docs/algorithms.md lists"
			    " each algorithm's options)", s->options ? s->options : "", s->algo[i]->name);
		ctr_tree_free(t);
	}
	configs = (long)s->nr_algos * s->nr_workloads * s->nr_shapes * s->nr_placements;
	if (configs * s->nr_threads > SWEEP_MAX_CONFIGS)
		die("too many configurations: %ld (at most %d in one sweep)", configs * s->nr_threads,
		    SWEEP_MAX_CONFIGS);
}

/* ---- one configuration ---- */

struct sweep_config {
	const struct bench_algo *algo;	/* what runs */
	const char *workload;		/* update, charge or readers */
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
	json_object_set_new(o, "placement", json_string(c->placement));
	if (!strcmp(c->workload, "readers")) {
		json_object_set_new(o, "readers", json_integer(s->readers < 0 ? 1 : s->readers));
		json_object_set_new(o, "read_node", json_string("random"));
	}
	if (!strcmp(c->workload, "charge"))
		json_object_set_new(o, "batch", json_integer(BENCH_CHARGE_BATCH));
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
	char **argv = xcalloc(40, sizeof(*argv));
	int n = 0;

#define ARG(x) (argv[n++] = xstrdup(x))
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
		ch->out = xcalloc(1, 1);
	ch->out[ch->len] = 0;
	elen = lseek(efd, 0, SEEK_END);
	ch->err = xcalloc((size_t)(elen > 0 ? elen : 0) + 1, 1);
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
		char *dir = xstrdup(s->out), *slash = strrchr(dir, '/');
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
	if (r.partial_bytes) {
		if (ftruncate(st->fd, (off_t)r.complete_bytes) || fsync(st->fd))
			die("cannot drop the partial last line of '%s': %s", s->out, strerror(errno));
		fprintf(stderr, "ctrbench: sweep: dropped a partial last line of '%s' (%zu bytes, no newline:"
			" a sweep killed while writing it); the configuration it held is run again\n", s->out,
			r.partial_bytes);
	}
	st->done = xcalloc((size_t)r.n, sizeof(*st->done));
	for (int i = 0; i < r.n; i++) {
		json_t *o = r.line[i].obj, *done = json_object_get(o, "reps_done"),
		       *asked = json_object_get(o, "reps_requested");

		if (!json_is_string(json_object_get(o, "algo")))
			die("%s:%d: not a result line (no \"algo\"): --out must be a file of result lines",
			    s->out, r.line[i].lineno);
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
		const char *why = NULL;
		json_t *o;

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
		if (WIFEXITED(ch.status) && WEXITSTATUS(ch.status) == 2) {
			/* Bad input the checks above missed: every configuration would repeat it. */
			sweep_clear_progress(&st);
			ch.err[strcspn(ch.err, "\n")] = 0;
			die("sweep: %s: run refused its arguments: %s", what, ch.err);
		}
		o = WIFEXITED(ch.status) ? sweep_check_output(&ch, key, &why) : NULL;
		if (o && json_is_integer(json_object_get(o, "reps_done")) &&
		    json_integer_value(json_object_get(o, "reps_done")) < s->reps) {
			why = "stopped before its last repetition";
			json_decref(o);
			o = NULL;
		}
		if (o) {
			const char *v = json_string_value(json_object_get(o, "verify"));
			char *line;

			json_object_set(o, "sweep", st.sweep_rec);
			line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
			if (!line)
				die("out of memory");
			line = realloc(line, strlen(line) + 2);
			if (!line)
				die("out of memory");
			strcat(line, "\n");
			sweep_append(&st, line, strlen(line));
			free(line);
			done++;
			if (WEXITSTATUS(ch.status) != 0) {
				char msg[640];

				snprintf(msg, sizeof(msg), "%s: verification failed (verify: %s; recorded)",
					 what, v ? v : "?");
				sweep_report(&st, msg, ch.err);
				failed = 1;
			} else if (ch.err[0]) {
				char msg[640];

				snprintf(msg, sizeof(msg), "%s: done, and run said:", what);
				sweep_report(&st, msg, ch.err);
			}
			json_decref(o);
		} else {
			char msg[640];

			if (WIFSIGNALED(ch.status))
				snprintf(msg, sizeof(msg), "%s: run died of signal %d (%s); not recorded", what,
					 WTERMSIG(ch.status), strsignal(WTERMSIG(ch.status)));
			else
				snprintf(msg, sizeof(msg), "%s: run exited %d and %s; not recorded", what,
					 WEXITSTATUS(ch.status), why ? why : "printed no result");
			sweep_report(&st, msg, ch.err);
			failed = 1;
		}
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

/* ---- the command line and plan files ---- */

/*
 * A plan: one option per line, "name value" with the names of the flags
 * (a leading "--" is allowed), '#' comment lines and blank lines.  A flag
 * on the command line overrides the plan's line of the same name, so one
 * plan serves a quick check (--duration-ms 50 --out /tmp/x.jsonl) and the
 * real sweep.
 */
static char *sweep_read_plan(const char *path, const char *val[SO_NR], const int from_cli[SO_NR])
{
	FILE *f = fopen(path, "r");
	char *text = xcalloc(SWEEP_MAX_PLAN + 2, 1), *p, *line;
	int in_plan[SO_NR] = { 0 }, lineno = 0;
	size_t len;

	if (!f)
		die("cannot open plan '%s': %s", path, strerror(errno));
	len = fread(text, 1, SWEEP_MAX_PLAN + 1, f);
	if (ferror(f))
		die("cannot read plan '%s': %s", path, strerror(errno));
	fclose(f);
	if (len > SWEEP_MAX_PLAN)
		die("plan '%s' is larger than %d bytes: it is kept in every result line", path, SWEEP_MAX_PLAN);
	if (strlen(text) != len)
		die("plan '%s' is not text (a NUL byte)", path);
	sweep_check_utf8("the plan", text);
	p = xstrdup(text);
	for (char *rest = p; (line = strsep(&rest, "\n")); ) {
		char *key, *value, *end;
		int k;

		lineno++;
		while (*line == ' ' || *line == '\t')
			line++;
		end = line + strlen(line);
		while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = 0;
		if (!*line || *line == '#')
			continue;
		key = line;
		if (!strncmp(key, "--", 2))
			key += 2;
		value = key + strcspn(key, " \t");
		if (*value)
			*value++ = 0;
		value += strspn(value, " \t");
		if (!strcmp(key, "plan") || !strcmp(key, "resume"))
			die("%s:%d: '%s' belongs on the command line, not in a plan", path, lineno, key);
		for (k = 0; k < SO_NR && strcmp(key, sweep_opt_names[k]); k++)
			;
		if (k == SO_NR)
			die("%s:%d: unknown option '%s' (want algo, workload, shape, threads, placement, reps,"
			    " duration-ms, warmup-ms, readers, options, flush-period-ms, work-ns, note, out or events)",
			    path, lineno, key);
		if (!*value)
			die("%s:%d: '%s' needs a value", path, lineno, key);
		if (in_plan[k]++)
			die("%s:%d: '%s' given twice in the plan", path, lineno, key);
		if (!from_cli[k])
			val[k] = xstrdup(value);
	}
	free(p);
	return text;
}

static const char *const sweep_help =
	"usage: ctrbench sweep --algo LIST --shape LIST --threads LIST --out FILE [options]\n"
	"\n"
	"The cross product of the lists, one run per configuration (a child process), each result\n"
	"appended to --out as it finishes (docs/sweeps.md).\n"
	"\n"
	"  --algo LIST|all          algorithms (required)\n"
	"  --shape LIST             chain:D,tree:AxB,... (required)\n"
	"  --threads LIST           N, A..B or nodes, comma-separated (required)\n"
	"  --out FILE               the results file (required)\n"
	"  --resume                 skip what --out already holds (default: refuse a non-empty --out)\n"
	"  --workload LIST          update, charge, readers (default update)\n"
	"  --placement LIST         as run --placement, ';' between them with a list: (default compact)\n"
	"  --plan FILE              options one per line; the command line wins (default none)\n"
	"  --reps K                 (default 5)\n"
	"  --readers R              readers workload (default 1)\n"
	"  --duration-ms MS         (default 1000)\n"
	"  --warmup-ms MS           (default 200)\n"
	"  --options O              (default none)\n"
	"  --flush-period-ms MS     (default the algorithm's)\n"
	"  --work-ns NS             (default 0)\n"
	"  --events LIST|bounce     (default none)\n"
	"  --note TEXT              (default none)\n"
	"\n"
	"example: ctrbench sweep --algo all --shape chain:2,chain:8 --threads 1..2 --out r.jsonl --resume\n";

int bench_cmd_sweep(int argc, char **argv)
{
	struct option opts[SO_NR + 3] = { { 0 } };
	const char *val[SO_NR] = { 0 };
	int from_cli[SO_NR] = { 0 }, opt;
	struct bench_sweep s = { .reps = 5, .duration_ms = 1000, .warmup_ms = 200, .readers = -1 };
	struct topo *topo;
	char err[256], **workloads;
	int ret;

	bench_help(argc, argv, sweep_help);
	for (int k = 0; k < SO_NR; k++)
		opts[k] = (struct option){ sweep_opt_names[k], required_argument, NULL, k };
	opts[SO_NR] = (struct option){ "plan", required_argument, NULL, SO_PLAN };
	opts[SO_NR + 1] = (struct option){ "resume", no_argument, NULL, SO_RESUME };
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (opt >= 0 && opt < SO_NR) {
			val[opt] = optarg;
			from_cli[opt] = 1;
		} else if (opt == SO_PLAN) {
			s.plan_file = optarg;
		} else if (opt == SO_RESUME) {
			s.resume = 1;
		} else {
			bench_die_getopt(opt, argv);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	if (s.plan_file)
		s.plan_text = sweep_read_plan(s.plan_file, val, from_cli);
	{
		static const char *const need[] = { "--algo", "--shape", "--threads", "--out FILE" };
		const int missing[] = { !val[SO_ALGO], !val[SO_SHAPE], !val[SO_THREADS], !val[SO_OUT] };

		bench_need("sweep", need, missing, 4, "(ctrbench sweep --help)");
	}
	if (!*val[SO_OUT])
		die("bad value '' for --out (want a file name)");
	topo = topo_load(NULL, err, sizeof(err));
	if (!topo)
		die("%s", err);
	s.algo = sweep_parse_algos(val[SO_ALGO], &s.nr_algos);
	workloads = sweep_split("workload", val[SO_WORKLOAD] ? val[SO_WORKLOAD] : "update", ',',
				&s.nr_workloads);
	s.workload = (const char **)workloads;
	s.shape = sweep_split("shape", val[SO_SHAPE], ',', &s.nr_shapes);
	s.threads = sweep_parse_threads(val[SO_THREADS], topo, &s.nr_threads);
	s.placement = sweep_parse_placements(val[SO_PLACEMENT] ? val[SO_PLACEMENT] : "compact", topo,
					     &s.nr_placements);
	topo_free(topo);
	if (val[SO_REPS])
		s.reps = bench_parse_int("reps", val[SO_REPS], 1, 1000);
	if (val[SO_DURATION])
		s.duration_ms = bench_parse_int("duration-ms", val[SO_DURATION], 1, 3600 * 1000);
	if (val[SO_WARMUP])
		s.warmup_ms = bench_parse_int("warmup-ms", val[SO_WARMUP], 0, 3600 * 1000);
	if (val[SO_READERS])
		s.readers = bench_parse_int("readers", val[SO_READERS], 1, SWEEP_MAX_THREADS);
	if (val[SO_FLUSH])
		s.flush_period_ms = bench_parse_int("flush-period-ms", val[SO_FLUSH], 1, 3600 * 1000);
	if (val[SO_WORK_NS])
		s.work_ns = bench_parse_int("work-ns", val[SO_WORK_NS], 0, 10 * 1000 * 1000);
	s.options = val[SO_OPTIONS];
	s.events = val[SO_EVENTS];
	if (s.events) {
		struct pmu_event_spec *spec = NULL;
		int nr;

		pmu_init();
		if (pmu_events_parse(s.events, &spec, &nr, err, sizeof(err)))
			die("%s", err);
		free(spec);
	}
	s.note = val[SO_NOTE];
	s.out = val[SO_OUT];
	bench_sweep_check(&s);
	ret = bench_sweep_exec(&s);
	for (int k = 0; k < SO_NR; k++)
		if (!from_cli[k])
			free((char *)val[k]);	/* from the plan */
	for (int i = 0; i < s.nr_workloads; i++)
		free(workloads[i]);
	for (int i = 0; i < s.nr_shapes; i++)
		free(s.shape[i]);
	for (int i = 0; i < s.nr_placements; i++)
		free(s.placement[i]);
	free(workloads);
	free(s.shape);
	free(s.placement);
	free(s.threads);
	free(s.algo);
	free(s.plan_text);
	return ret;
}
