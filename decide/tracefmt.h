/* SPDX-License-Identifier: MIT */
/*
 * --trace's line format, shared by the two tiers that write trace lines:
 * the shim (libmockshim/trace.c, a call of its own process) and mockrun's
 * syscall supervisor (runner/supervise.c, a system call of another
 * process).  Arguments are decoded from the row's parameter names and
 * types (catalog.def, syscall.def); memory they point to is read with
 * ms_read_user (usermem.h), which reads the caller's, whichever tier asks.
 * No stdio, no malloc: a line is built in a buffer on the stack.
 */
#ifndef MS_TRACEFMT_H
#define MS_TRACEFMT_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"

#define MS_TLINE 1024

struct ms_tline {
	char buf[MS_TLINE];
	size_t n;
};

/* The line's pieces; the two smallest inline: every line takes dozens. */
static inline void ms_tl_put(struct ms_tline *o, const char *s)
{
	size_t n = __builtin_strlen(s);

	/* a literal that fits: its length is the compiler's, its copy a few
	 * moves (builtins even where the tier compiles with -fno-builtin) */
	if (__builtin_constant_p(n) && o->n + n <= MS_TLINE - 2) {
		__builtin_memcpy(o->buf + o->n, s, n);
		o->n += n;
		return;
	}
	/* a name (most are short: a loop beats strlen and memcpy calls), or
	 * the line's end */
	while (*s && o->n < MS_TLINE - 2)
		o->buf[o->n++] = *s++;
}

/* n bytes of s to d (its length, known): up to 16 in two overlapping
 * moves that read nothing outside s[0..n). */
static inline void ms_tl_moves(char *d, const char *s, size_t n)
{
	if (n >= 8) {
		if (n <= 16) {
			__builtin_memcpy(d, s, 8);
			__builtin_memcpy(d + n - 8, s + n - 8, 8);
		} else {
			__builtin_memcpy(d, s, n);
		}
	} else if (n >= 4) {
		__builtin_memcpy(d, s, 4);
		__builtin_memcpy(d + n - 4, s + n - 4, 4);
	} else if (n) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	}
}

static inline void ms_tl_putn(struct ms_tline *o, const char *s, size_t n)
{
	if (o->n + n > MS_TLINE - 2) {
		while (n-- && o->n < MS_TLINE - 2)
			o->buf[o->n++] = *s++;
		return;
	}
	ms_tl_moves(o->buf + o->n, s, n);
	o->n += n;
}

static inline void ms_tl_c(struct ms_tline *o, char c)
{
	if (o->n < MS_TLINE - 2)
		o->buf[o->n++] = c;
}

/* "00".."99": a two-digit number's characters at 2 * v */
extern const char ms_tl_pairs[201];
void ms_tl_u_(struct ms_tline *o, uint64_t v, unsigned base);

/* v in base 10, 16 or 8 (any other: 2 to 16).  A decimal below 100 (a
 * descriptor, a count, a result of 0 or -1) is written here, the rest by
 * ms_tl_u_. */
static inline void ms_tl_u(struct ms_tline *o, uint64_t v, unsigned base)
{
	if (__builtin_constant_p(base) && base == 10 && v < 100 && o->n < MS_TLINE - 3) {
		if (v < 10) {
			o->buf[o->n++] = (char)('0' + v);
		} else {
			__builtin_memcpy(o->buf + o->n, ms_tl_pairs + 2 * v, 2);
			o->n += 2;
		}
		return;
	}
	ms_tl_u_(o, v, base);
}

static inline void ms_tl_i(struct ms_tline *o, int64_t v)
{
	if (v < 0) {
		ms_tl_c(o, '-');
		ms_tl_u(o, (uint64_t)0 - (uint64_t)v, 10);
	} else {
		ms_tl_u(o, (uint64_t)v, 10);
	}
}
void ms_tl_ptr(struct ms_tline *o, uint64_t v);
/* A string of the caller's memory at v, quoted and escaped, cut. */
void ms_tl_str(struct ms_tline *o, uint64_t v);

/* Whether ret is a success of m (its outputs then show as values);
 * inline: every traced call asks. */
static inline int ms_tl_ok(const struct ms_fn_meta *m, int64_t ret, int err)
{
	/* the row's answer first: a libc call's int */
	if (__builtin_expect(m->ok_kind == MS_OK_NOT_VALUE32, 1))
		return (int64_t)(int32_t)ret != m->fail_value;
	switch (m->ok_kind) {
	case MS_OK_NOT_VALUE:
		return ret != m->fail_value;
	case MS_OK_ALWAYS:
		return 1;
	case MS_OK_NOT_NULL:
		return ret != 0;
	case MS_OK_ZERO:
		return ret == 0;
	default:
		break;
	}
	if (m->syscall)
		return !err && (ret >= 0 || ret < -4095 || (m->sys_flags & MS_SYSF_NOFAIL));
	if (m->ret.tclass >= MS_T_PTR)
		return ret != 0;
	if (m->fail_kind == MS_FK_RC)
		return ret == 0;
	return m->fail_kind != MS_FK_ERRNO ||
	       (m->ret.size == 4 ? (int64_t)(int32_t)ret : ret) != m->fail_value;
}
/* "NAME(ARGS)", the arguments decoded as strace shows them; filled: the
 * call succeeded, the structs it filled are shown as values;
 * MS_TL_WRITTEN: the real function of this process did, so the structs
 * it was given are memory it read or wrote, read without a system call. */
#define MS_TL_WRITTEN 2
void ms_tl_call(struct ms_tline *o, const struct ms_fn_meta *m, const uint64_t *a, int filled);
/* " = RESULT[ ERRNO]" (nothing for a void function).  A system call's
 * -errno reads as strace shows it: -1 ENAME. */
void ms_tl_result(struct ms_tline *o, const struct ms_fn_meta *m, int64_t ret, int err);
/* The line's end: " (mocked: BY)", " (passed by: BY)", " at SITE"
 * (each when not NULL; SITE "jq+0x2b7c4", always last on the line, where
 * mockrun's symbolizer finds it) and the newline. */
void ms_tl_end(struct ms_tline *o, const char *mocked_by, const char *passed_by, const char *site);
/* The first two at once, in one function (a traced call's line after
 * its prefix): ms_tl_call(o, m, a, ms_tl_ok(m, ret, err) ? fills : 0),
 * ms_tl_result(o, m, ret, err), the same bytes.  fills: what a success
 * fills (1 or MS_TL_WRITTEN).  The end is the caller's: most lines have
 * no (mocked: ...), and their pointers cost two arguments on the stack. */
void ms_tl_line(struct ms_tline *o, const struct ms_fn_meta *m, const uint64_t *a, int64_t ret,
		int err, int fills);

#endif
