/* SPDX-License-Identifier: MIT */
/*
 * hitm.c - see hitm.h.
 *
 * What perf gives, from its documentation:
 *  - perf-c2c(1): `perf c2c record [<options>] -- [<record command options>]
 *    <command>` records loads and stores with their data address and data
 *    source (on AMD Zen through IBS op, on Intel through its load-latency
 *    and store events); `-u`/`--all-user` keeps user space only.
 *  - perf-record(1): `--control=fifo:ctl-fifo[,ack-fifo]` takes `enable` and
 *    `disable` on ctl-fifo and answers `ack` on ack-fifo; `-D -1`
 *    (`--delay=-1`) starts with the events disabled; `-p PID` attaches.
 *  - perf-script(1): `-F addr,data_src` prints, per sample, the data address
 *    and the data source, each in hex (the source followed by its decoding,
 *    `|OP LOAD|LVL L3 hit|SNP HitM|...`, which we do not rely on).  The value
 *    is linux/perf_event.h's union perf_mem_data_src, decoded here with that
 *    header's PERF_MEM_* masks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "cli.h"
#include "hitm.h"

#ifndef PERF_MEM_SNOOPX_PEER
#define PERF_MEM_SNOOPX_PEER 0x02	/* linux/perf_event.h of 5.19 on; older headers lack it */
#define PERF_MEM_SNOOPX_SHIFT 38
#endif

extern char **environ;

/* ---- the layout map ---- */

int bench_hitm_map_add(struct bench_hitm_map *m, const struct bench_hitm_region *r)
{
	if (m->n == m->cap) {
		int cap = m->cap ? 2 * m->cap : 256;
		struct bench_hitm_region *n = realloc(m->r, sizeof(*n) * (size_t)cap);

		if (!n)
			return -ENOMEM;
		m->r = n;
		m->cap = cap;
	}
	m->r[m->n++] = *r;
	return 0;
}

static int hitm_collect(const struct ctr_region *r, void *arg)
{
	const struct bench_hitm_region x = {
		.addr = (uint64_t)(uintptr_t)r->addr, .len = r->len, .node = r->node, .level = r->level,
		.slot = r->slot, .index = r->index, .what = r->what,
	};

	return bench_hitm_map_add(arg, &x);
}

static int hitm_by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct bench_hitm_region *)a)->addr, y = ((const struct bench_hitm_region *)b)->addr;

	return x < y ? -1 : x > y;
}

int bench_hitm_map_sort(struct bench_hitm_map *m)
{
	qsort(m->r, (size_t)m->n, sizeof(*m->r), hitm_by_addr);
	for (int i = 1; i < m->n; i++)
		if (m->r[i - 1].addr + m->r[i - 1].len > m->r[i].addr)
			return -EINVAL;
	return 0;
}

int bench_hitm_map_of_tree(struct bench_hitm_map *m, struct ctr_tree *t)
{
	int err = ctr_layout(t, hitm_collect, m);

	return err ? err : bench_hitm_map_sort(m);
}

const struct bench_hitm_region *bench_hitm_lookup(const struct bench_hitm_map *m, uint64_t addr)
{
	int lo = 0, hi = m->n - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (addr < m->r[mid].addr)
			hi = mid - 1;
		else if (addr - m->r[mid].addr >= m->r[mid].len)
			lo = mid + 1;
		else
			return &m->r[mid];
	}
	return NULL;
}

void bench_hitm_map_free(struct bench_hitm_map *m)
{
	free(m->r);
	m->r = NULL;
	m->n = m->cap = 0;
}

void bench_hitm_name(const struct bench_hitm_region *r, char *buf, size_t len)
{
	char idx[32] = "";

	if (!r->what) {
		snprintf(buf, len, "outside the tree's memory");
		return;
	}
	if (r->index >= 0)
		snprintf(idx, sizeof(idx), " [%d]", r->index);
	if (r->slot >= 0 && r->node >= 0)
		snprintf(buf, len, "slot %d's area, node %d (level %d): %s%s", r->slot, r->node, r->level, r->what, idx);
	else if (r->slot >= 0)
		snprintf(buf, len, "slot %d's area: %s%s", r->slot, r->what, idx);
	else if (r->node >= 0)
		snprintf(buf, len, "node %d, level %d: %s%s", r->node, r->level, r->what, idx);
	else
		snprintf(buf, len, "shared: %s%s", r->what, idx);
}

static int hitm_write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int bench_hitm_map_write(int fd, const char *algo, int rep, const struct bench_hitm_map *m)
{
	for (int i = 0; i < m->n; i++) {
		const struct bench_hitm_region *r = &m->r[i];
		char addr[24], line[24];
		json_t *j;
		char *s;
		int err;

		snprintf(addr, sizeof(addr), "0x%" PRIx64, r->addr);
		snprintf(line, sizeof(line), "0x%" PRIx64, r->addr & ~(uint64_t)63);
		j = json_pack("{s:s,s:s,s:i,s:s,s:I,s:s,s:i,s:i,s:i,s:i,s:s}", "kind", "layout", "algo", algo, "rep", rep,
			      "addr", addr, "len", (json_int_t)r->len, "line", line, "node", r->node, "level", r->level,
			      "slot", r->slot, "index", r->index, "what", r->what);
		s = j ? json_dumps(j, JSON_COMPACT) : NULL;
		json_decref(j);
		if (!s)
			return -ENOMEM;
		err = hitm_write_all(fd, s, strlen(s));
		if (!err)
			err = hitm_write_all(fd, "\n", 1);
		free(s);
		if (err)
			return err;
	}
	return 0;
}

/* ---- samples ---- */

enum bench_hitm_kind bench_hitm_kind(uint64_t data_src)
{
	uint64_t op = (data_src >> PERF_MEM_OP_SHIFT) & 0x1f;
	uint64_t snoop = (data_src >> PERF_MEM_SNOOP_SHIFT) & 0x1f;
	uint64_t snoopx = (data_src >> PERF_MEM_SNOOPX_SHIFT) & 0x3;

	if (!(op & PERF_MEM_OP_LOAD))
		return BENCH_HITM_NOT_LOAD;
	if (snoop & PERF_MEM_SNOOP_HITM)
		return BENCH_HITM_HITM;
	if (snoopx & PERF_MEM_SNOOPX_PEER)
		return BENCH_HITM_PEER;
	return BENCH_HITM_OTHER;
}

/* One hex field (with or without 0x), then blanks: its end, or NULL. */
static const char *hitm_hex(const char *s, uint64_t *v)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))
		return NULL;
	errno = 0;
	*v = strtoull(s, &end, 16);
	if (errno || (*end && *end != ' ' && *end != '\t' && *end != '\n'))
		return NULL;
	return end;
}

int bench_hitm_parse_line(const char *line, uint64_t *addr, uint64_t *data_src)
{
	const char *s = hitm_hex(line, addr);

	if (!s || !hitm_hex(s, data_src))
		return -EINVAL;
	return 0;
}

static int hitm_same(const struct bench_hitm_region *a, const struct bench_hitm_region *b)
{
	if (!a->what || !b->what)
		return !a->what && !b->what;
	return a->node == b->node && a->slot == b->slot && a->index == b->index && !strcmp(a->what, b->what);
}

int bench_hitm_tally_add(struct bench_hitm_tally *t, const struct bench_hitm_map *m, uint64_t addr,
			 uint64_t data_src)
{
	enum bench_hitm_kind k = bench_hitm_kind(data_src);
	const struct bench_hitm_region *r;
	struct bench_hitm_region key = { .node = -1, .level = -1, .slot = -1, .index = -1 };
	struct bench_hitm_entry *e = NULL;

	t->samples++;
	if (k == BENCH_HITM_NOT_LOAD)
		return 0;
	t->loads++;
	r = bench_hitm_lookup(m, addr);
	if (r)
		key = *r;
	for (int i = 0; i < t->n && !e; i++)
		if (hitm_same(&t->e[i].r, &key))
			e = &t->e[i];
	if (!e) {
		if (t->n == t->cap) {
			int cap = t->cap ? 2 * t->cap : 64;
			struct bench_hitm_entry *n = realloc(t->e, sizeof(*n) * (size_t)cap);

			if (!n)
				return -ENOMEM;
			t->e = n;
			t->cap = cap;
		}
		e = &t->e[t->n++];
		*e = (struct bench_hitm_entry){ .r = key };
	}
	e->r.addr = addr & ~(uint64_t)63;	/* the line sampled last */
	e->loads++;
	e->hitm += k == BENCH_HITM_HITM;
	e->peer += k == BENCH_HITM_PEER;
	return 0;
}

int bench_hitm_read(FILE *f, const struct bench_hitm_map *m, struct bench_hitm_tally *t)
{
	char buf[1024];

	while (fgets(buf, sizeof(buf), f)) {
		uint64_t addr, src;
		int err;

		if (bench_hitm_parse_line(buf, &addr, &src))
			continue;	/* not a sample: a header, a warning */
		err = bench_hitm_tally_add(t, m, addr, src);
		if (err)
			return err;
	}
	return 0;
}

static int hitm_by_rank(const void *a, const void *b)
{
	const struct bench_hitm_entry *x = a, *y = b;

	if (x->hitm != y->hitm)
		return x->hitm > y->hitm ? -1 : 1;
	if (x->peer != y->peer)
		return x->peer > y->peer ? -1 : 1;
	if (x->loads != y->loads)
		return x->loads > y->loads ? -1 : 1;
	return x->r.addr < y->r.addr ? -1 : x->r.addr > y->r.addr;
}

void bench_hitm_rank(struct bench_hitm_tally *t)
{
	qsort(t->e, (size_t)t->n, sizeof(*t->e), hitm_by_rank);
}

void bench_hitm_print(FILE *out, const char *algo, const struct bench_hitm_tally *t, int top)
{
	int shown = 0;

	fprintf(out, "c2c: %s: %" PRIu64 " load samples of %" PRIu64 "; lines by HITM, then peer-cache loads:\n",
		algo, t->loads, t->samples);
	for (int i = 0; i < t->n && shown < top; i++) {
		char name[256];

		if (!t->e[i].hitm && !t->e[i].peer)
			continue;
		bench_hitm_name(&t->e[i].r, name, sizeof(name));
		fprintf(out, "  %6" PRIu64 " hitm %6" PRIu64 " peer %7" PRIu64 " loads  line 0x%" PRIx64 "  %s\n",
			t->e[i].hitm, t->e[i].peer, t->e[i].loads, t->e[i].r.addr, name);
		shown++;
	}
	if (!shown)
		fprintf(out, "  no HITM or peer-cache load sampled\n");
}

void bench_hitm_tally_free(struct bench_hitm_tally *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

/* ---- prerequisites ---- */

/* name on PATH, as execvp would find it, into buf: 0 or -ENOENT. */
static int hitm_which(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	for (const char *p = path; p && *p;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n && (size_t)snprintf(buf, len, "%.*s/%s", (int)n, p, name) < len && !access(buf, X_OK))
			return 0;
		p = end ? end + 1 : p + n;
	}
	return -ENOENT;
}

static int hitm_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;	/* the kernel's default where it cannot be read */

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

#define HITM_SYSFS "/sys/bus/event_source/devices/"

int bench_hitm_check(char *perf, size_t len, char *why, size_t whylen)
{
	int paranoid;

	if (hitm_which("perf", perf, len)) {
		snprintf(why, whylen, "no perf on PATH");
		return -1;
	}
	if (access(HITM_SYSFS "ibs_op", F_OK) && access(HITM_SYSFS "cpu/events/mem-loads", F_OK)) {
		snprintf(why, whylen, "no load-sampling PMU (no " HITM_SYSFS "ibs_op or cpu/events/mem-loads)");
		return -1;
	}
	/* user space only (--all-user) of one process: allowed up to paranoid 2 */
	paranoid = hitm_paranoid();
	if (paranoid > 2 && geteuid() != 0) {
		snprintf(why, whylen, "forbidden by perf_event_paranoid=%d (needs <= 2 or CAP_PERFMON)", paranoid);
		return -1;
	}
	return 0;
}

/* ---- the recorder (one per process: run's group process records its windows) ---- */

#define HITM_MAX_ALGOS 64
#define HITM_TOP 8

static struct {
	int on;				/* --c2c given */
	int record;			/* the check passed and nothing failed since */
	char dir[PATH_MAX];		/* the folder of the map and recordings */
	char perf[PATH_MAX];		/* perf's path */
	char ctl[PATH_MAX + 16];	/* the control fifo */
	char ack[PATH_MAX + 16];	/* its ack fifo */
	int layout_fd;			/* layout.jsonl, O_APPEND */
	const char *algo;		/* the measurement in flight, NULL none */
	struct bench_hitm_map map;	/* its tree's map */
	pid_t perf_pid;			/* its perf c2c record, 0 none */
	int ctl_fd, ack_fd;		/* the fifos' ends, -1 closed */
	char data[PATH_MAX + 64];	/* its perf.data */
	struct {
		const char *algo;		/* a registry name */
		int reps;			/* measurements begun */
		struct bench_hitm_tally t;	/* their samples */
	} algos[HITM_MAX_ALGOS];		/* per algorithm */
	int nr_algos;			/* used */
} hs = { .layout_fd = -1, .ctl_fd = -1, .ack_fd = -1 };

/* Recording stops for the rest of the run, with why in one line; the measurements go on. */
static void __attribute__((format(printf, 1, 2))) hitm_give_up(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "ctrbench: c2c: not recorded: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	hs.record = 0;
}

void bench_hitm_setup(const char *dir)
{
	char why[256], path[PATH_MAX + 16];

	if (snprintf(hs.dir, sizeof(hs.dir), "%s", dir) >= (int)sizeof(hs.dir))
		die("bad value '%s' for --c2c-out (path too long)", dir);
	if (mkdir(dir, 0777))
		die("bad value '%s' for --c2c-out (%s: a new folder is made, nothing overwritten)", dir,
		    errno == EEXIST ? "exists" : strerror(errno));
	snprintf(path, sizeof(path), "%s/layout.jsonl", dir);
	hs.layout_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0666);
	if (hs.layout_fd < 0)
		die("cannot create '%s': %s", path, strerror(errno));
	hs.on = 1;
	hs.record = !bench_hitm_check(hs.perf, sizeof(hs.perf), why, sizeof(why));
	if (!hs.record) {
		fprintf(stderr, "ctrbench: c2c: not recorded: %s\n", why);
	} else {
		snprintf(hs.ctl, sizeof(hs.ctl), "%s/ctl.fifo", dir);
		snprintf(hs.ack, sizeof(hs.ack), "%s/ack.fifo", dir);
		if (mkfifo(hs.ctl, 0600) || mkfifo(hs.ack, 0600))
			hitm_give_up("cannot make its control fifos: %s", strerror(errno));
	}
	fprintf(stderr, "ctrbench: c2c: layout map of every tree measured: %s\n", path);
}

static void hitm_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* perf c2c record attached to this process, events off until the window: 0, or -1 (given up). */
static int hitm_start_perf(void)
{
	char pid[24], ctl[sizeof(hs.ctl) + sizeof(hs.ack) + 16], log[sizeof(hs.data) + 8];
	char *argv[] = { "perf", "c2c", "record", "--all-user", "-o", hs.data, "--", ctl, "--delay=-1", "-p", pid,
			 NULL };
	posix_spawn_file_actions_t fa;
	int err, status;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(ctl, sizeof(ctl), "--control=fifo:%s,%s", hs.ctl, hs.ack);
	snprintf(log, sizeof(log), "%s.log", hs.data);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	err = posix_spawn(&hs.perf_pid, hs.perf, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		hs.perf_pid = 0;
		hitm_give_up("cannot start perf: %s", strerror(err));
		return -1;
	}
	hs.ack_fd = open(hs.ack, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	/* the control fifo opens once perf reads it: up to 10 s for perf to start */
	for (int i = 0; i < 1000 && hs.ack_fd >= 0; i++) {
		hs.ctl_fd = open(hs.ctl, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (hs.ctl_fd >= 0 || errno != ENXIO)
			break;
		if (waitpid(hs.perf_pid, &status, WNOHANG) == hs.perf_pid) {
			hs.perf_pid = 0;
			hitm_give_up("perf c2c record ended before the window (see %s)", log);
			return -1;
		}
		hitm_sleep_ms(10);
	}
	if (hs.ctl_fd < 0) {
		hitm_give_up("perf c2c record did not open its control fifo (see %s)", log);
		return -1;
	}
	return 0;
}

void bench_hitm_tree(const char *algo, struct ctr_tree *t)
{
	int err, a;

	if (!hs.on)
		return;
	for (a = 0; a < hs.nr_algos && strcmp(hs.algos[a].algo, algo); a++)
		;
	if (a == hs.nr_algos && a < HITM_MAX_ALGOS)
		hs.algos[hs.nr_algos++].algo = algo;
	if (a == HITM_MAX_ALGOS)
		return;
	hs.algo = algo;
	err = bench_hitm_map_of_tree(&hs.map, t);
	if (!err)
		err = bench_hitm_map_write(hs.layout_fd, algo, hs.algos[a].reps, &hs.map);
	if (err == -EOPNOTSUPP)
		fprintf(stderr, "ctrbench: c2c: %s has no layout map: its samples are not named\n", algo);
	else if (err)
		fprintf(stderr, "ctrbench: c2c: %s: layout map not written: %s\n", algo, strerror(-err));
	snprintf(hs.data, sizeof(hs.data), "%s/%s-%d.data", hs.dir, algo, hs.algos[a].reps);
	hs.algos[a].reps++;
	if (hs.record)
		hitm_start_perf();
}

void bench_hitm_window(int open)
{
	const char *cmd = open ? "enable\n" : "disable\n";
	struct pollfd p = { .fd = hs.ack_fd, .events = POLLIN };
	char buf[16];

	if (!hs.record || hs.ctl_fd < 0)
		return;
	if (hitm_write_all(hs.ctl_fd, cmd, strlen(cmd))) {
		hitm_give_up("perf's control fifo refused '%s'", open ? "enable" : "disable");
		return;
	}
	if (poll(&p, 1, 5000) != 1 || read(hs.ack_fd, buf, sizeof(buf)) <= 0)
		hitm_give_up("perf did not acknowledge '%s' in 5 s", open ? "enable" : "disable");
}

/* perf script -F addr,data_src of the window's recording, read through the tree's map into a's tally. */
static void hitm_read_samples(int a)
{
	char *argv[] = { "perf", "script", "-i", hs.data, "-F", "addr,data_src", NULL };
	posix_spawn_file_actions_t fa;
	char log[sizeof(hs.data) + 16];
	int pipefd[2], err, status = 0;
	pid_t pid;
	FILE *f;

	if (pipe2(pipefd, O_CLOEXEC)) {
		hitm_give_up("cannot read the samples: %s", strerror(errno));
		return;
	}
	snprintf(log, sizeof(log), "%s.script.log", hs.data);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	err = posix_spawn(&pid, hs.perf, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (err) {
		close(pipefd[0]);
		hitm_give_up("cannot start perf script: %s", strerror(err));
		return;
	}
	f = fdopen(pipefd[0], "r");
	if (!f || bench_hitm_read(f, &hs.map, &hs.algos[a].t))
		hitm_give_up("cannot read perf script's samples (see %s)", log);
	if (f)
		fclose(f);
	else
		close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		hitm_give_up("perf script failed (see %s)", log);
}

void bench_hitm_tree_done(void)
{
	int status = 0, a;

	if (!hs.on || !hs.algo)
		return;
	for (a = 0; a < hs.nr_algos && strcmp(hs.algos[a].algo, hs.algo); a++)
		;
	if (hs.perf_pid) {
		kill(hs.perf_pid, SIGINT);
		while (waitpid(hs.perf_pid, &status, 0) < 0 && errno == EINTR)
			;
		hs.perf_pid = 0;
		if (hs.record && (!WIFEXITED(status) || WEXITSTATUS(status)))
			hitm_give_up("perf c2c record failed (see %s.log)", hs.data);
		if (hs.record && a < hs.nr_algos)
			hitm_read_samples(a);
	}
	if (hs.ctl_fd >= 0)
		close(hs.ctl_fd);
	if (hs.ack_fd >= 0)
		close(hs.ack_fd);
	hs.ctl_fd = hs.ack_fd = -1;
	bench_hitm_map_free(&hs.map);
	hs.algo = NULL;
}

void bench_hitm_report(void)
{
	if (!hs.on || !hs.record)
		return;
	for (int a = 0; a < hs.nr_algos; a++) {
		bench_hitm_rank(&hs.algos[a].t);
		bench_hitm_print(stderr, hs.algos[a].algo, &hs.algos[a].t, HITM_TOP);
	}
	fprintf(stderr, "ctrbench: c2c: recordings in %s (perf c2c report -i FILE reads each)\n", hs.dir);
}
