/* SPDX-License-Identifier: MIT */
/*
 * The files mockrun writes (-o, --record, --trace-file, JUnit): checked
 * before the program runs, written to a temporary file beside FILE and
 * renamed over it when complete, so that a failed write leaves an earlier
 * FILE as it was; a device, a FIFO, "-" (stdout) and /dev/fd/N are
 * written in place.  A write that fails is remembered with its errno.
 */
#ifndef MS_OUTFILE_H
#define MS_OUTFILE_H

#include <stddef.h>

struct ms_outfile {
	const char *opt;	/* the option, for messages: "-o", "--record" */
	const char *path;	/* as given */
	char *tmp;		/* the new file beside path, NULL when in place */
	char *real;		/* the file a symbolic link path names, or NULL */
	int fd;			/* -1: not open */
	int own;		/* fd is ours to close */
	int error;		/* the first errno of a write, 0 */
	int unnamed;		/* fd is an O_TMPFILE, named at close */
	int shared;		/* set before ms_out_open: other processes
				 * open it by name (--trace-file): by
				 * /proc/PID/fd/N (via) when it is unnamed,
				 * else it is a named one beside path */
	char *via;		/* that name, or NULL */
};

/* Opens (creates) it now; 0 or -errno. */
int ms_out_open(struct ms_outfile *o, const char *opt, const char *path);
/* Appends n bytes; 0 or -errno (the first error sticks). */
int ms_out_write(struct ms_outfile *o, const void *buf, size_t n);
/* Done: with keep, the new file becomes path; without, it is removed and
 * path left as it was.  0 or -errno of the first failed write/close/rename. */
int ms_out_close(struct ms_outfile *o, int keep);
/* The path the writer itself should open (the temporary file), for a
 * file that other processes write (--trace-file). */
const char *ms_out_target(const struct ms_outfile *o);
/* A scratch file beside path that other processes write by name and
 * this one reads after them (--trace-format chrome's timed lines): an
 * unnamed one, *name "/proc/PID/fd/N", gone with the descriptor however
 * mockrun ends; else a named PATH.raw.XXXXXX (*named set).  The
 * descriptor, or -errno. */
int ms_out_scratch(const char *path, char **name, int *named);
/* Whether a and b name the same file. */
int ms_out_same(const char *a, const char *b);

#endif
