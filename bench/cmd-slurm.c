/* SPDX-License-Identifier: MIT */
/*
 * cmd-slurm.c - `ctrbench slurm FILE --out DIR`: a plan (sweep --dry-run
 * --format json) as a Slurm job array, one task per shard, on whole nodes
 * of each type; with --submit, submitted and followed to its end.
 * docs/fleet.md describes it.
 *
 * Nothing the user gives is ever put in a shell line: the sbatch script is
 * the same text for every plan, and takes the binary, the plan, the output
 * folder and the shard count as its arguments, which sbatch, squeue and
 * scancel get as argv (execvp).  The printed sbatch line is quoted for the
 * shell only to be copied.  Slurm is needed only when this command runs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "builtin.h"
#include "cli.h"
#include "sweep.h"

#define SLURM_MAX_TYPES 64
#define SLURM_MARK "ctrbench-slurm.json"	/* says the folder is this command's */

/*
 * The script: no value of the user's in it (they are its arguments).
 * Each #SBATCH line is what a task needs whatever the plan; docs/fleet.md
 * says why each is there.
 */
static const char slurm_script[] =
	"#!/bin/bash\n"
	"# Written by ctrbench slurm: one task of the job array runs one shard of a plan.\n"
	"# Arguments: CTRBENCH CONFIGS OUT_DIR SHARDS (the sbatch line ctrbench printed gives them).\n"
	"# one whole node per task: nothing else runs beside a measurement\n"
	"#SBATCH --nodes=1\n"
	"#SBATCH --ntasks=1\n"
	"#SBATCH --exclusive\n"

	"# a requeued task continues its shard (--resume), it does not start over\n"
	"#SBATCH --requeue\n"
	"#SBATCH --open-mode=append\n"
	"set -eu\n"
	"# the node's CPUs unbound: ctrbench pins its own threads (--placement of the plan)\n"
	"export SLURM_CPU_BIND=none\n"
	"export CTRBENCH_PROGRESS=1\n"
	"ctrbench=$1 configs=$2 out=$3 shards=$4\n"
	"exec \"$ctrbench\" sweep --configs \"$configs\" --shard \"$SLURM_ARRAY_TASK_ID/$shards\" \\\n"
	"\t--out \"$out\" --resume\n";

/* One node type: its constraint (NULL: any node) and its folder's name. */
struct slurm_type {
	const char *constraint;
	char dir[128];
	char *jobid;		/* --submit: sbatch --parsable's answer */
};

struct slurm {
	const char *configs;	/* FILE as given */
	const char *out;	/* --out DIR */
	const char *partition;	/* --partition or NULL */
	int nodes;		/* --nodes-per-type: shards per type */
	int submit, only;	/* --submit; --shard I (0: all) */
	const char *time;	/* --time or NULL */
	struct slurm_type type[SLURM_MAX_TYPES];
	int nr_types;
	long nr_configs;	/* lines of FILE */
	char *self;		/* this ctrbench, absolute */
};

/* s quoted for a POSIX shell: 'it'\''s' (only for lines printed to be copied). */
static void slurm_quote(FILE *f, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.,/=:%@+") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* The argv of type t's sbatch (NULL-terminated, fresh strings). */
static char **slurm_sbatch_argv(const struct slurm *S, const struct slurm_type *t, int submit)
{
	char **v = bench_xcalloc(24, sizeof(*v));
	int n = 0;

	v[n++] = bench_xstrdup("sbatch");
	if (submit)
		v[n++] = bench_xstrdup("--parsable");
	if (S->only) {
		if (asprintf(&v[n++], "--array=%d", S->only) < 0)
			die("out of memory");
	} else if (asprintf(&v[n++], "--array=1-%d", S->nodes) < 0) {
		die("out of memory");
	}
	if (asprintf(&v[n++], "--job-name=ctrbench-%s", t->dir) < 0 ||
	    asprintf(&v[n++], "--output=%s/logs/%s-%%A_%%a.out", S->out, t->dir) < 0)
		die("out of memory");
	if (S->partition && asprintf(&v[n++], "--partition=%s", S->partition) < 0)
		die("out of memory");
	if (t->constraint && asprintf(&v[n++], "--constraint=%s", t->constraint) < 0)
		die("out of memory");
	if (S->time && asprintf(&v[n++], "--time=%s", S->time) < 0)
		die("out of memory");
	if (asprintf(&v[n++], "%s/ctrbench.sbatch", S->out) < 0)
		die("out of memory");
	v[n++] = bench_xstrdup(S->self);
	if (asprintf(&v[n++], "%s/configs.jsonl", S->out) < 0 ||
	    asprintf(&v[n++], "%s/results/%s", S->out, t->dir) < 0 ||
	    asprintf(&v[n++], "%d", S->nodes) < 0)
		die("out of memory");
	return v;
}

static void slurm_argv_free(char **v)
{
	for (int i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

/*
 * Runs argv (execvp: no shell), its stdout into *out (NULL: inherited),
 * stderr inherited or, with quiet, discarded.  The exit status, 127 if it
 * could not start.
 */
static int slurm_run(char *const argv[], char **out, int quiet)
{
	int pfd[2] = { -1, -1 }, status;
	size_t len = 0, cap = 0;
	pid_t pid;

	if (out && pipe(pfd))
		die("cannot make a pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("cannot fork: %s", strerror(errno));
	if (!pid) {
		if (out) {
			dup2(pfd[1], STDOUT_FILENO);
			close(pfd[0]);
			close(pfd[1]);
		}
		if (quiet) {
			int nul = open("/dev/null", O_WRONLY);

			if (nul >= 0)
				dup2(nul, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (out) {
		char buf[4096];
		ssize_t r;

		close(pfd[1]);
		*out = NULL;
		while ((r = read(pfd[0], buf, sizeof(buf))) != 0) {
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				break;
			if (len + (size_t)r + 1 > cap) {
				cap = 2 * (len + (size_t)r + 1);
				*out = realloc(*out, cap);
				if (!*out)
					die("out of memory");
			}
			memcpy(*out + len, buf, (size_t)r);
			len += (size_t)r;
			(*out)[len] = 0;
		}
		close(pfd[0]);
		if (!*out)
			*out = bench_xstrdup("");
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("cannot wait for %s: %s", argv[0], strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The plan's configurations: each line a "config" object (sweep --configs checks the rest). */
static char *slurm_read_configs(struct slurm *S, size_t *len)
{
	int not_regular;
	FILE *f = bench_fopen_regular(S->configs, &not_regular);
	char *text = NULL, *p;
	size_t cap = 0;

	if (not_regular)
		die("plan '%s' is not a regular file", S->configs);
	if (!f)
		die("cannot open plan '%s': %s", S->configs, strerror(errno));
	*len = 0;
	for (;;) {
		if (*len + 65536 > cap) {
			cap = 2 * cap + 65536;
			text = realloc(text, cap + 1);
			if (!text)
				die("out of memory");
		}
		size_t r = fread(text + *len, 1, cap - *len, f);

		*len += r;
		if (r == 0)
			break;
	}
	if (ferror(f))
		die("cannot read plan '%s': %s", S->configs, strerror(errno));
	fclose(f);
	text[*len] = 0;
	S->nr_configs = 0;
	p = text;
	for (int lineno = 1; *p; lineno++) {
		char *nl = strchr(p, '\n'), save;
		json_t *o;

		if (!nl)
			nl = p + strlen(p);
		save = *nl;
		*nl = 0;
		if (*p) {
			o = json_loads(p, 0, NULL);
			if (!json_is_object(o) || strcmp(json_string_value(json_object_get(o, "kind")) ?: "", "config"))
				die("%s:%d: not a configuration (want the lines of sweep --dry-run --format json)",
				    S->configs, lineno);
			json_decref(o);
			S->nr_configs++;
		}
		*nl = save;
		p = *nl ? nl + 1 : nl;
	}
	if (!S->nr_configs)
		die("plan '%s' holds no configuration (write it with sweep --dry-run --format json)", S->configs);
	return text;
}

/* path holds exactly text[0..len), or does not exist (0); 1: it holds something else. */
static int slurm_differs(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t r;
	int d;

	if (!f)
		return errno == ENOENT ? 0 : 1;
	buf = bench_xcalloc(len + 2, 1);
	r = fread(buf, 1, len + 1, f);
	fclose(f);
	d = r != len || memcmp(buf, text, len);
	free(buf);
	return d;
}

/* Writes path (a new file, or one this command wrote with the same text), fsynced. */
static void slurm_write(const char *path, const char *text, size_t len, mode_t mode)
{
	char *tmp;
	int fd;

	if (asprintf(&tmp, "%s.tmp", path) < 0)
		die("out of memory");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || fsync(fd) || close(fd) || rename(tmp, path))
		die("cannot write '%s': %s", path, strerror(errno));
	free(tmp);
}

/*
 * DIR: new, empty, or one this command wrote for the same plan (its mark and
 * its copy of the plan are there): writing it again changes nothing, and a
 * resubmission (--shard I) continues the results beside them.
 */
static void slurm_prepare(struct slurm *S)
{
	char *mark, *copy, *script, *p, *logs, *results;
	const char *const ours[] = { SLURM_MARK, "configs.jsonl", "ctrbench.sbatch", "logs", "results" };
	size_t len;
	char *text = slurm_read_configs(S, &len);
	struct dirent *e;
	int has_mark;
	DIR *d;

	if (asprintf(&mark, "%s/" SLURM_MARK, S->out) < 0 || asprintf(&copy, "%s/configs.jsonl", S->out) < 0 ||
	    asprintf(&script, "%s/ctrbench.sbatch", S->out) < 0 || asprintf(&logs, "%s/logs", S->out) < 0 ||
	    asprintf(&results, "%s/results", S->out) < 0)
		die("out of memory");
	if (mkdir(S->out, 0777) && errno != EEXIST)
		die("cannot make folder '%s': %s", S->out, strerror(errno));
	d = opendir(S->out);
	if (!d)
		die("bad value '%s' for --out (want a folder: %s)", S->out, strerror(errno));
	has_mark = access(mark, F_OK) == 0;
	while ((e = readdir(d))) {
		int known = 0;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
			known |= !strcmp(e->d_name, ours[i]);
		if (!has_mark || !known)
			die("'%s' is not empty and not a folder ctrbench slurm wrote ('%s' is there): give a new"
			    " or empty folder", S->out, e->d_name);
	}
	closedir(d);
	if (has_mark && slurm_differs(copy, text, len))
		die("'%s' holds the results of another plan than '%s': give a new folder", S->out, S->configs);
	{
		json_t *m = json_pack("{s:s,s:s,s:i,s:I}", "written_by", "ctrbench slurm", "plan", S->configs,
				      "nodes_per_type", S->nodes, "configurations", (json_int_t)S->nr_configs);

		if (!m)
			die("bad value '%s' for the plan's name (not UTF-8)", S->configs);
		p = json_dumps(m, JSON_COMPACT);
		json_decref(m);
		if (!p)
			die("out of memory");
		if (!has_mark)
			slurm_write(mark, p, strlen(p), 0666);
		free(p);
	}
	slurm_write(copy, text, len, 0666);
	slurm_write(script, slurm_script, strlen(slurm_script), 0777);
	if ((mkdir(logs, 0777) && errno != EEXIST) || (mkdir(results, 0777) && errno != EEXIST))
		die("cannot make folders in '%s': %s", S->out, strerror(errno));
	free(text);
	free(mark);
	free(copy);
	free(script);
	free(logs);
	free(results);
}

/* Summary lines in a shard's file: its configurations done. */
static long slurm_done(const struct slurm *S, const struct slurm_type *t, int shard, long *reps)
{
	char *path, *line = NULL;
	size_t cap = 0;
	long n = 0;
	FILE *f;

	*reps = 0;
	if (asprintf(&path, "%s/results/%s/shard-%d-of-%d.jsonl", S->out, t->dir, shard, S->nodes) < 0)
		die("out of memory");
	f = fopen(path, "r");
	free(path);
	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		if (!strchr(line, '\n'))
			break;	/* a line in the writing */
		if (strstr(line, "{\"kind\":\"rep\"") == line)
			++*reps;
		else
			n++;
	}
	free(line);
	fclose(f);
	return n;
}

static volatile sig_atomic_t slurm_stop;

static void slurm_on_signal(int sig)
{
	(void)sig;
	slurm_stop = 1;
}

/* Task i's state from squeue's "%K %T" lines of job id (the array's tasks), or NULL: not queued. */
static const char *slurm_task_state(const char *sq, int i, char *buf, size_t len)
{
	for (const char *p = sq; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		int task;
		char st[64];

		if (sscanf(p, "%d %63s", &task, st) == 2 && task == i) {
			snprintf(buf, len, "%s", st);
			return buf;
		}
	}
	return NULL;
}

/* Follows every submitted array until none of its tasks is queued; 0 if every shard is whole. */
static int slurm_follow(struct slurm *S)
{
	char *last = bench_xstrdup(""), *sacct_arg;
	int queued = 1, incomplete = 0;
	struct sigaction sa = { .sa_handler = slurm_on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (queued && !slurm_stop) {
		char *now = NULL;
		size_t nlen = 0;
		FILE *m = open_memstream(&now, &nlen);

		queued = 0;
		for (int k = 0; k < S->nr_types; k++) {
			char *sq = NULL, jobopt[64];
			char *argv[] = { "squeue", "-h", "-r", "-o", "%K %T", jobopt, NULL };

			snprintf(jobopt, sizeof(jobopt), "--jobs=%s", S->type[k].jobid);
			if (slurm_run(argv, &sq, 1)) {
				free(sq);
				sq = NULL;
			}
			fprintf(m, "ctrbench: slurm: job %s%s%s:", S->type[k].jobid,
				S->type[k].constraint ? " " : "", S->type[k].constraint ? S->type[k].constraint : "");
			for (int i = 1; i <= S->nodes; i++) {
				long lo, hi, reps, done;
				char buf[64];
				const char *st;

				if (S->only && i != S->only)
					continue;
				bench_sweep_shard_range(S->nr_configs, i, S->nodes, &lo, &hi);
				done = slurm_done(S, &S->type[k], i, &reps);
				st = slurm_task_state(sq, i, buf, sizeof(buf));
				queued |= st != NULL;
				fprintf(m, " %d/%d %s %ld/%ld", i, S->nodes, st ? st : done >= hi - lo ? "done" : "ended",
					done, hi - lo);
			}
			fputc('\n', m);
			free(sq);
		}
		fclose(m);
		if (strcmp(now, last))
			fputs(now, stderr);
		free(last);
		last = now;
		if (queued)
			usleep(500 * 1000);
	}
	free(last);
	if (slurm_stop) {
		fprintf(stderr, "ctrbench: slurm: stopped waiting; the jobs go on (scancel stops them)\n");
		return 1;
	}
	for (int k = 0; k < S->nr_types; k++) {
		for (int i = 1; i <= S->nodes; i++) {
			long lo, hi, reps;

			if (S->only && i != S->only)
				continue;
			bench_sweep_shard_range(S->nr_configs, i, S->nodes, &lo, &hi);
			if (slurm_done(S, &S->type[k], i, &reps) < hi - lo) {
				fprintf(stderr, "ctrbench: slurm: job %s: shard %d/%d ended short of its %ld"
					" configurations (its log: %s/logs/); resubmit it with --submit --shard %d\n",
					S->type[k].jobid, i, S->nodes, hi - lo, S->out, i);
				incomplete = 1;
			}
		}
		/* sacct says how each task ended where accounting is on; without it, the files said */
		if (asprintf(&sacct_arg, "--jobs=%s", S->type[k].jobid) < 0)
			die("out of memory");
		{
			char *argv[] = { "sacct", "-n", "-X", "-P", "-o", "JobID,State,ExitCode", sacct_arg, NULL };
			char *out = NULL;

			if (!slurm_run(argv, &out, 1) && *out)
				fprintf(stderr, "ctrbench: slurm: sacct: %s", out);
			free(out);
		}
		free(sacct_arg);
	}
	return incomplete;
}

/* --constraint LIST into S->type (one "any" type without it); the list's copy, which they point into. */
static char *slurm_types(struct slurm *S, const char *constraint)
{
	char *list = NULL;

	if (constraint) {
		char *p, *item;

		list = bench_xstrdup(constraint);
		for (p = list; (item = strsep(&p, ",")); ) {
			struct slurm_type *t = &S->type[S->nr_types];
			size_t n = 0;

			if (!*item || strpbrk(item, "\n\t "))
				die("bad value '%s' in --constraint '%s' (want node features, comma-separated)",
				    item, constraint);
			if (S->nr_types == SLURM_MAX_TYPES)
				die("bad value '%s' for --constraint (more than %d types)", constraint, SLURM_MAX_TYPES);
			t->constraint = item;
			/* the folder's name: the feature, with what a file name cannot hold as '_' */
			for (const char *c = item; *c && n < sizeof(t->dir) - 1; c++)
				t->dir[n++] = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-.", *c) ? *c : '_';
			t->dir[n] = 0;
			if (t->dir[0] == '.')
				t->dir[0] = '_';
			for (int k = 0; k < S->nr_types; k++)
				if (!strcmp(S->type[k].dir, t->dir))
					die("bad value '%s' in --constraint '%s' (given twice, or the same folder as"
					    " '%s')", item, constraint, S->type[k].constraint);
			S->nr_types++;
		}
	} else {
		strcpy(S->type[0].dir, "any");
		S->nr_types = 1;
	}
	return list;
}

/* sbatch each type's array (argv, no shell), then follow them: 0 if every shard is whole. */
static int slurm_submit(struct slurm *S)
{
	int ret = 0;

	for (int k = 0; k < S->nr_types; k++) {
		char **v = slurm_sbatch_argv(S, &S->type[k], 1), *out = NULL;
		int rc = slurm_run(v, &out, 0);

		slurm_argv_free(v);
		out[strcspn(out, ";\n")] = 0;
		if (rc == 127)
			die("cannot run sbatch (is Slurm installed here? the script is in '%s')", S->out);
		if (rc || !*out || strspn(out, "0123456789") != strlen(out)) {
			fprintf(stderr, "ctrbench: slurm: sbatch failed (exit %d)\n", rc);
			free(out);
			ret = 1;
			break;
		}
		S->type[k].jobid = out;
		fprintf(stderr, "ctrbench: slurm: submitted job %s%s%s\n", out,
			S->type[k].constraint ? " for " : "", S->type[k].constraint ? S->type[k].constraint : "");
	}
	if (!ret)
		ret = slurm_follow(S);
	for (int k = 0; k < S->nr_types; k++)
		free(S->type[k].jobid);
	return ret;
}

static const char *const slurm_help =
	"usage: ctrbench slurm FILE --out DIR [options]\n"
	"\n"
	"FILE's configurations (sweep --dry-run --format json) as a Slurm job array: one task per\n"
	"shard, each on a whole node, writing DIR/results/TYPE/shard-I-of-K.jsonl (docs/fleet.md).\n"
	"Writes DIR/ctrbench.sbatch and prints the sbatch line of each node type.\n"
	"\n"
	"  --out DIR                the folder (required; new, empty, or one slurm wrote for FILE)\n"
	"  --nodes-per-type K       shards, one node each, per node type (default 1)\n"
	"  --constraint LIST        node types, comma-separated (default: any node, type 'any'):\n"
	"                           one array each, sbatch --constraint\n"
	"  --partition P            sbatch --partition (default the cluster's)\n"
	"  --time T                 sbatch --time of each task (default the partition's)\n"
	"  --submit                 run sbatch, then follow the tasks with squeue (sacct where\n"
	"                           accounting is on) until they end; exit 1 if a shard is short\n"
	"                           (default: print the line only)\n"
	"  --shard I                only task I of each array (default all): a shard to rerun, which\n"
	"                           measures only what its file lacks\n"
	"\n"
	"example: ctrbench slurm p.jsonl --out fleet/ --nodes-per-type 4 --constraint genoa,spr --submit\n"
	"         (p.jsonl: ctrbench sweep --algo all --shape chain:8 --threads 1..8 --dry-run --format json)\n";

int bench_cmd_slurm(int argc, char **argv)
{
	enum { O_OUT, O_NODES, O_CONSTRAINT, O_PARTITION, O_TIME, O_SUBMIT, O_SHARD };
	static const struct option opts[] = {
		{ "out", required_argument, NULL, O_OUT },
		{ "nodes-per-type", required_argument, NULL, O_NODES },
		{ "constraint", required_argument, NULL, O_CONSTRAINT },
		{ "partition", required_argument, NULL, O_PARTITION },
		{ "time", required_argument, NULL, O_TIME },
		{ "submit", no_argument, NULL, O_SUBMIT },
		{ "shard", required_argument, NULL, O_SHARD },
		{ 0 },
	};
	struct slurm S = { .nodes = 1 };
	const char *constraint = NULL, *shard = NULL;
	char *list = NULL, *abs_out;
	int opt, ret = 0;

	bench_help(argc, argv, slurm_help);
	opterr = 0;
	optind = 1;
	while ((opt = bench_getopt(argc, argv, opts)) != -1) {
		switch (opt) {
		case O_OUT: S.out = optarg; break;
		case O_NODES: S.nodes = bench_parse_int("nodes-per-type", optarg, 1, 100000); break;
		case O_CONSTRAINT: constraint = optarg; break;
		case O_PARTITION: S.partition = optarg; break;
		case O_TIME: S.time = optarg; break;
		case O_SUBMIT: S.submit = 1; break;
		case O_SHARD: shard = optarg; break;
		default: bench_die_getopt(opt, argv);
		}
	}
	if (optind >= argc)
		die("slurm needs FILE, the plan (ctrbench slurm --help)");
	S.configs = argv[optind++];
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	if (!S.out)
		die("slurm needs --out DIR (ctrbench slurm --help)");
	if (!*S.out || strchr(S.out, '%'))
		die("bad value '%s' for --out (want a folder; no '%%', which sbatch --output reads as a pattern)",
		    S.out);
	if (shard)
		S.only = bench_parse_int("shard", shard, 1, S.nodes);
	if (S.partition && (!*S.partition || strpbrk(S.partition, ", \t\n")))
		die("bad value '%s' for --partition (want one partition's name)", S.partition);
	if (S.time && (!*S.time || strspn(S.time, "0123456789:-") != strlen(S.time)))
		die("bad value '%s' for --time (want Slurm's [D-]HH:MM:SS or minutes)", S.time);
	list = slurm_types(&S, constraint);
	S.self = realpath("/proc/self/exe", NULL);
	if (!S.self)
		die("cannot find this ctrbench's path: %s", strerror(errno));
	slurm_prepare(&S);
	/* the tasks run wherever sbatch puts them: every path they get is absolute */
	abs_out = realpath(S.out, NULL);
	if (!abs_out)
		die("cannot find folder '%s': %s", S.out, strerror(errno));
	S.out = abs_out;
	for (int k = 0; k < S.nr_types; k++) {
		char **v = slurm_sbatch_argv(&S, &S.type[k], 0);

		for (int i = 0; v[i]; i++) {
			fputs(i ? " " : "", stdout);
			slurm_quote(stdout, v[i]);
		}
		fputc('\n', stdout);
		slurm_argv_free(v);
	}
	fflush(stdout);
	if (S.submit)
		ret = slurm_submit(&S);
	free(S.self);
	free(list);
	free(abs_out);
	return ret;
}
