/* SPDX-License-Identifier: MIT */
/*
 * The C library's headers that declare every type of the catalog's type
 * table (catalog/ctype.h) and everything its rows' prototypes use: shim.h
 * includes them for the shim's files, trampolines.c in the context of
 * its own (MS_SYSDECL_TRAMPOLINES, below).  The build compiles the type
 * table against them in both contexts before any file of the shim
 * (types_check.c, tools/types_check.py), so that a table entry no header
 * here declares, or that the compiler sizes otherwise, is one line
 * naming it, not a screen of errors from every file that expands a row.
 */
#ifndef MS_SYSDECL_H
#define MS_SYSDECL_H

#ifdef MS_SYSDECL_TRAMPOLINES
/*
 * The trampolines' context: without _GNU_SOURCE, so that glibc's
 * transparent unions (__SOCKADDR_ARG) do not clash with the catalog's
 * plain pointer types, and without _FILE_OFFSET_BITS, so that open is
 * open, not open64.  It must be the file's first include.
 */
#undef _FILE_OFFSET_BITS
#undef _GNU_SOURCE
/* no extern inline definitions from glibc's headers (getc_unlocked,
 * feof_unlocked, ... when optimising): the rows define those symbols */
#ifndef __NO_INLINE__
#define __NO_INLINE__ 1
#endif
#define _DEFAULT_SOURCE
#define _LARGEFILE64_SOURCE

/* <stdio.h> renames the scanf functions to their __isoc99_ forms (in
 * C99 and later, which this file is); the rows define both names: the
 * declarations it redirects get other names here. */
#define vfscanf ms_redirected_vfscanf
#define vscanf ms_redirected_vscanf
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <glob.h>
#include <grp.h>
#include <mqueue.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

/* <resolv.h>'s typedef, without its macros (it defines p_type, which
 * symbols.c's Elf64_Phdr needs): the same type, so a later include agrees */
struct __res_state;
typedef struct __res_state *res_state;

#ifdef MS_SYSDECL_TRAMPOLINES
#undef vfscanf
#undef vscanf
#endif

#endif
