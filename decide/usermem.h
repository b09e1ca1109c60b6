/* SPDX-License-Identifier: MIT */
/*
 * The calling program's memory, read and written fault-safely: the
 * shim's own process, or the process whose system call mockrun's
 * supervisor answers (ms_d.remote).
 */
#ifndef MS_DECIDE_USERMEM_H
#define MS_DECIDE_USERMEM_H

#include <stddef.h>

#include "tier.h"

/* Copies up to n bytes of the calling program's memory, fault-safely: the count. */
MS_DEC_HIDDEN size_t ms_read_user(void *dst, const void *src, size_t n);
/* Writes n bytes into the calling program's memory: 0, or -1 (a fault). */
MS_DEC_HIDDEN int ms_write_user(void *dst, const void *src, size_t n);

#endif
