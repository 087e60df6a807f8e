/* SPDX-License-Identifier: MIT */
/* outfile.c - opening sweep's and scenario's --out (outfile.h says what is refused, and why). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>

#include "cli.h"
#include "outfile.h"
#include "results.h"
#include "schema.h"

/* The new name must survive a crash too, not only the lines written under it. */
static void outfile_sync_dir(const char *path)
{
	char *dir = bench_xstrdup(path), *slash = strrchr(dir, '/');
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

/*
 * The file, created when missing; *created says whether this call made it.
 * O_EXCL both ways: of two commands starting at once, one creates the file
 * and the other opens what the first created, never a second file.
 */
static int outfile_openat(const struct bench_outfile *o, int *created)
{
	/*
	 * O_NONBLOCK: a FIFO with no reader would block the open forever (it fails
	 * with ENXIO instead); bench_outfile_open clears it once the file is known.
	 */
	const int flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK;

	for (int tries = 0; tries < 8; tries++) {
		int fd = open(o->path, flags | O_CREAT | O_EXCL, 0644);

		if (fd >= 0) {
			*created = 1;
			return fd;
		}
		if (errno != EEXIST)
			break;
		if (o->fresh)
			return -1;
		fd = open(o->path, flags);
		if (fd >= 0) {
			*created = 0;
			return fd;
		}
		if (errno != ENOENT)	/* removed between the two opens: create it again */
			break;
	}
	if (errno == ENXIO)
		die("cannot open '%s' for --out: a FIFO with no reader", o->path);
	die("cannot open '%s' for --out: %s", o->path, strerror(errno));
}

/* With resume: every line of done must be a result line of this command, each configuration once. */
static void outfile_check_lines(const struct bench_outfile *o, const struct bench_results *r)
{
	const size_t np = o->note_prefix ? strlen(o->note_prefix) : 0;

	for (int pass = 0; pass < 2; pass++) {
		const struct bench_results_line *l = pass ? r->rep : r->line;
		const int n = pass ? r->nr_rep : r->n;

		for (int i = 0; i < n; i++) {
			const char *note = json_string_value(json_object_get(l[i].obj, "note"));

			if (!json_is_string(json_object_get(l[i].obj, "algo")))
				die("%s:%d: not a result line (no \"algo\"): --out must be a file of result lines;"
				    " nothing was changed", o->path, l[i].lineno);
			if (np && (!note || strncmp(note, o->note_prefix, np)))
				die("%s:%d: a result of %s%s%s, not of %.*s: --resume continues its own results"
				    " only; nothing was changed", o->path, l[i].lineno, note ? "'" : "",
				    note ? note : "another command (no note)", note ? "'" : "",
				    (int)(np > 2 ? np - 2 : np), o->note_prefix);
		}
	}
	bench_results_check_unique(r, o->path, bench_field_is_resume_key);
	if (r->partial_bytes && !r->partial_ok)
		die("%s:%d: not a result line (%zu bytes with no newline that no result line starts"
		    " with): --out must be a file of result lines; nothing was changed", o->path,
		    r->partial_lineno, r->partial_bytes);
}

int bench_outfile_open(const struct bench_outfile *o, struct bench_results *done)
{
	struct stat sb;
	int created, fd = outfile_openat(o, &created);

	memset(done, 0, sizeof(*done));
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		die("cannot open '%s' for --out: %s", o->path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		die("'%s' is not a regular file: --out is a file of result lines (a new file or one"
		    " this command wrote)", o->path);
	if (flock(fd, LOCK_EX | LOCK_NB))
		die("'%s' is being written by another sweep or scenario (it holds the file's lock): one"
		    " writer per results file; wait for it, or give another --out", o->path);
	/* under the lock: what a writer that just finished wrote is seen */
	if (fstat(fd, &sb))
		die("cannot open '%s' for --out: %s", o->path, strerror(errno));
	if (!o->resume && sb.st_size > 0)
		die("'%s' exists and is not empty: results are never overwritten or mixed (add --resume to"
		    " continue it, or give another --out)", o->path);
	if (created)
		outfile_sync_dir(o->path);
	if (!o->resume)
		return fd;
	bench_results_load(o->path, 0, done);
	/* nothing is cut before the whole file is known to be this command's */
	outfile_check_lines(o, done);
	if (done->partial_bytes) {
		if (ftruncate(fd, (off_t)done->complete_bytes) || fsync(fd))
			die("cannot drop the partial last line of '%s': %s", o->path, strerror(errno));
		fprintf(stderr, "ctrbench: %s: dropped a partial last line of '%s' (%zu bytes, no newline: a"
			" writer killed while writing it); what it held is run again\n", o->cmd, o->path,
			done->partial_bytes);
	}
	return fd;
}
