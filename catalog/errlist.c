/* SPDX-License-Identifier: MIT */
/*
 * The errors each function's man page lists (Linux man-pages, ERRORS),
 * for `mockrun explore --errnos all`: the ones a program can meet at run
 * time, not those of a wrong call (EFAULT, EBADF of a closed fd, EINVAL
 * of bad flags).  A row not here has only its default error.
 */
#include <string.h>

#include "catalog.h"

static const struct {
	const char *fn, *errs;
} rows[] = {
	{ "malloc", "ENOMEM" },
	{ "calloc", "ENOMEM" },
	{ "realloc", "ENOMEM" },
	{ "reallocarray", "ENOMEM" },
	{ "posix_memalign", "ENOMEM" },
	{ "aligned_alloc", "ENOMEM" },
	{ "memalign", "ENOMEM" },
	{ "strdup", "ENOMEM" },
	{ "strndup", "ENOMEM" },
	{ "open", "ENOENT,EACCES,EMFILE,ENFILE,ENOSPC,EROFS,EISDIR,ENOMEM,EINTR" },
	{ "openat", "ENOENT,EACCES,EMFILE,ENFILE,ENOSPC,EROFS,EISDIR,ENOMEM,EINTR" },
	{ "creat", "ENOENT,EACCES,EMFILE,ENFILE,ENOSPC,EROFS,EISDIR,ENOMEM" },
	{ "fopen", "ENOENT,EACCES,EMFILE,ENFILE,ENOSPC,EROFS,EISDIR,ENOMEM" },
	{ "fdopen", "ENOMEM,EINVAL" },
	{ "read", "EIO,EINTR,EAGAIN,EISDIR" },
	{ "pread", "EIO,EINTR,EAGAIN,EISDIR" },
	{ "readv", "EIO,EINTR,EAGAIN" },
	{ "write", "EIO,ENOSPC,EDQUOT,EFBIG,EINTR,EAGAIN,EPIPE" },
	{ "pwrite", "EIO,ENOSPC,EDQUOT,EFBIG,EINTR,EAGAIN" },
	{ "writev", "EIO,ENOSPC,EDQUOT,EFBIG,EINTR,EAGAIN,EPIPE" },
	{ "close", "EIO,EINTR,ENOSPC,EDQUOT" },
	{ "fsync", "EIO,ENOSPC,EDQUOT,EROFS" },
	{ "fdatasync", "EIO,ENOSPC,EDQUOT,EROFS" },
	{ "fclose", "EIO,ENOSPC,EDQUOT,EINTR" },
	{ "fflush", "EIO,ENOSPC,EDQUOT,EFBIG,EINTR" },
	{ "fwrite", "EIO,ENOSPC" },
	{ "fread", "EIO" },
	{ "rename", "EACCES,EBUSY,EDQUOT,EEXIST,EISDIR,ENOENT,ENOSPC,EROFS,EXDEV,EIO" },
	{ "renameat", "EACCES,EBUSY,EDQUOT,EEXIST,EISDIR,ENOENT,ENOSPC,EROFS,EXDEV,EIO" },
	{ "unlink", "EACCES,EBUSY,EIO,EISDIR,ENOENT,EPERM,EROFS" },
	{ "unlinkat", "EACCES,EBUSY,EIO,EISDIR,ENOENT,EPERM,EROFS" },
	{ "mkdir", "EACCES,EDQUOT,EEXIST,ENOENT,ENOSPC,EROFS" },
	{ "rmdir", "EACCES,EBUSY,ENOENT,ENOTEMPTY,EROFS" },
	{ "stat", "EACCES,ENOENT,ENOMEM,EIO" },
	{ "lstat", "EACCES,ENOENT,ENOMEM,EIO" },
	{ "fstat", "EIO,ENOMEM" },
	{ "ftruncate", "EIO,EFBIG,EROFS,EINTR" },
	{ "truncate", "EACCES,EIO,EFBIG,ENOENT,EROFS" },
	{ "lseek", "EIO,ESPIPE" },
	{ "dup", "EMFILE" },
	{ "dup2", "EMFILE,EINTR,EBUSY" },
	{ "pipe", "EMFILE,ENFILE" },
	{ "opendir", "EACCES,EMFILE,ENFILE,ENOENT,ENOMEM" },
	{ "mmap", "ENOMEM,EAGAIN,ENFILE" },
	{ "socket", "EACCES,EMFILE,ENFILE,ENOBUFS,ENOMEM" },
	{ "connect", "ECONNREFUSED,ETIMEDOUT,ENETUNREACH,EHOSTUNREACH,EINTR,EAGAIN,EADDRNOTAVAIL" },
	{ "bind", "EADDRINUSE,EACCES,EADDRNOTAVAIL" },
	{ "listen", "EADDRINUSE" },
	{ "accept", "EMFILE,ENFILE,ENOBUFS,ENOMEM,EINTR,ECONNABORTED,EAGAIN" },
	{ "send", "ECONNRESET,EPIPE,ENOBUFS,EINTR,EAGAIN" },
	{ "sendto", "ECONNRESET,EPIPE,ENOBUFS,EINTR,EAGAIN" },
	{ "recv", "ECONNRESET,ECONNREFUSED,EINTR,EAGAIN" },
	{ "recvfrom", "ECONNRESET,ECONNREFUSED,EINTR,EAGAIN" },
	{ "fork", "EAGAIN,ENOMEM" },
	{ "vfork", "EAGAIN,ENOMEM" },
	{ "execve", "E2BIG,EACCES,ENOENT,ENOEXEC,ENOMEM,ETXTBSY" },
	{ "execvp", "E2BIG,EACCES,ENOENT,ENOEXEC,ENOMEM,ETXTBSY" },
	{ "waitpid", "ECHILD,EINTR" },
	{ "posix_spawn", "EAGAIN,ENOMEM,ENOENT,EACCES" },
	{ "posix_spawnp", "EAGAIN,ENOMEM,ENOENT,EACCES" },
	{ "setuid", "EAGAIN,EPERM" },
	{ "setgid", "EPERM" },
	{ "kill", "EPERM,ESRCH" },
	{ "clock_gettime", "EINVAL" },
	{ "nanosleep", "EINTR" },
};

const char *ms_catalog_errnos(const char *name)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (strcmp(rows[i].fn, name) == 0)
			return rows[i].errs;
	return NULL;
}
