/* SPDX-License-Identifier: MIT */
/*
 * outfile.h - the results file a measuring command appends to (sweep --out,
 * scenario --out).  One function opens it for both, so that they refuse the
 * same files the same way: two writers on one file would interleave (double)
 * its configurations, and --resume must never append to, or cut, a file
 * that is not this command's results.
 */
#ifndef BENCH_OUTFILE_H
#define BENCH_OUTFILE_H

#include "results.h"

struct bench_outfile {
	const char *cmd;	/* the command, in messages ("sweep", "scenario admission-staleness") */
	const char *path;	/* the file */
	int resume;		/* --resume: continue what it holds (else it must be new or empty) */
	int fresh;		/* a name the command made up: create it, never open one that exists */
	/*
	 * With resume: the start every line's "note" must have ("scenario NAME: "),
	 * so that one command's --resume does not append to another's results; NULL:
	 * any note.
	 */
	const char *note_prefix;
};

/*
 * Opens o->path for appending (O_APPEND: each line one write) and returns
 * its descriptor; done receives its lines with o->resume (else it is
 * empty).  Everything that would refuse the file is checked before anything
 * is changed, and before the caller measures anything; each refusal dies
 * (exit 2, one line):
 *  - another process holds the file's exclusive lock (flock, held until
 *    exit): a second sweep or scenario on one file;
 *  - without resume, the file is not empty (checked under the lock, so a
 *    writer that finished a moment ago is seen);
 *  - with resume: a line that is not a result line (no "algo"), not of
 *    o->note_prefix, a configuration (or rep) twice (bench_results_check_unique),
 *    or a partial last line that no result line starts with.
 * A partial last line that could be the start of one (a writer killed inside
 * its write) is cut off, saying so.  A new file's name is fsynced into its
 * folder.  A device or FIFO (/dev/null, /dev/full) is refused: it cannot be
 * locked, resumed or fsynced, and a results file is a file (sweep refused
 * them before scenario shared this code).  With o->fresh and a file already
 * of that name, returns -1 (errno EEXIST) and changes nothing: the caller
 * picks another name.
 */
int bench_outfile_open(const struct bench_outfile *o, struct bench_results *done);

#endif /* BENCH_OUTFILE_H */
