/* SPDX-License-Identifier: MIT */
/*
 * power_loss(): the journal of pre-images (DESIGN.md section 7.3).
 *
 * +--------------------------------------------------------------------+
 * | Every process of the tree appends records to one file, journal, in |
 * | mockrun's power directory (the channel's power_dir), each with one |
 * | write(2) on an O_APPEND descriptor: records of all processes are   |
 * | whole and in the order their changes were made (each is written   |
 * | before its change).  A record says what a power cut would undo:   |
 * | the bytes a write overwrites and the size before it, the tail a    |
 * | truncation drops, a name made, removed (the removed file kept as a |
 * | hard link "k<pid>.<n>" beside the journal) or renamed, and what    |
 * | made data or names durable (fsync of a file or a directory, sync). |
 * | The shim writes it (libmockshim/power.c); mockrun reads it after   |
 * | every process is gone and trusts nothing in it: each path is       |
 * | checked against paths= before the rollback touches it (runner/     |
 * | power.c).                                                          |
 * +--------------------------------------------------------------------+
 *
 * A record: struct ms_pw_rec, then path (path_len bytes, no NUL), path2
 * (path2_len), then data (data_len bytes: old content).
 */
#ifndef MS_POWER_H
#define MS_POWER_H

#include <stdint.h>

#define MS_PW_MAGIC 0x4d535057u	/* "MSPW" */
#define MS_PW_JOURNAL "journal"
#define MS_PW_PATH_MAX 4096
/* the most old bytes one record carries: a bigger change is cut in pieces */
#define MS_PW_DATA_MAX (1u << 20)

enum ms_pw_kind {
	MS_PW_WRITE = 1,	/* off, n bytes written; size: the file's before;
				 * data: old bytes at off (up to the old size) */
	MS_PW_TRUNC,		/* the file's size set to off (ftruncate, truncate,
				 * O_TRUNC); size: before; data: old bytes from off */
	MS_PW_SYNC,		/* fsync/fdatasync/O_SYNC write of ino: what came
				 * before it on ino (its data, or for a directory
				 * its names) is durable */
	MS_PW_SYNC_ALL,		/* sync(), syncfs(): everything before is durable */
	MS_PW_CREATE,		/* path made (a file, O_CREAT; link; symlink);
				 * ino: its directory's */
	MS_PW_MKDIR,		/* path made, a directory */
	MS_PW_REMOVE,		/* path removed (unlink); kept: "k<pid>.<n>" in
				 * path2 (a link, or a copy when the power
				 * directory is on another file system), or
				 * empty when it could not be kept; dev2, ino2:
				 * the file's own */
	MS_PW_RMDIR,		/* path removed, an empty directory; dev2, ino2:
				 * the directory's own */
	MS_PW_RENAME,		/* path renamed to path2; n: 1 when path2 existed
				 * and was kept as the link (or copy) whose name
				 * is data; size, off: that file's dev, ino */
	MS_PW_CUT,		/* the power went out at this process's call */
};

struct ms_pw_rec {
	uint32_t magic;
	uint16_t kind;		/* enum ms_pw_kind */
	uint16_t flags;		/* MS_PW_F_* */
	int32_t pid;
	uint32_t path_len, path2_len, data_len;
	uint64_t dev, ino;	/* the file (data records, SYNC) or the directory
				 * holding path (name records) */
	uint64_t dev2, ino2;	/* RENAME: the directory holding path2 */
	int64_t off;
	uint64_t n;
	int64_t size;
};

enum ms_pw_flags {
	MS_PW_F_DIR = 1u << 0,		/* SYNC: ino is a directory */
	MS_PW_F_KEPT = 1u << 1,		/* REMOVE/RENAME: the old file was kept */
	MS_PW_F_DATA_ONLY = 1u << 2,	/* SYNC by fdatasync */
	MS_PW_F_CONT = 1u << 3,		/* the old bytes of the record before, continued */
};

/* power_loss(..., mode=): r->value of the rule */
enum ms_pw_mode {
	MS_PW_DROP = 0,
	MS_PW_TORN,
	MS_PW_REORDER,
};

#endif
