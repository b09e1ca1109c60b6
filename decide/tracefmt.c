/* SPDX-License-Identifier: MIT */
/*
 * --trace's line format (tracefmt.h): the arguments of a catalog or
 * syscall.def row decoded as strace shows them, and the result.
 * Compiled into each tier that writes trace lines, with its flags (the
 * shim's: no builtins), as decide.c is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#ifndef STATX_TYPE
#include <linux/stat.h>	/* a C library without statx (musl before 1.2.5): the kernel's */
#endif
#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U	/* Linux 5.8; musl 1.2.5's statx has no name for it */
#endif
#include <sys/time.h>
#include <time.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "tracefmt.h"
#include "usermem.h"

#define STR_CUT 64

/* Whether a starts with pre, inline: a struct parameter's type is asked
 * whether it is const on every line that shows it. */
static inline int starts(const char *a, const char *pre)
{
	while (*pre && *a == *pre)
		a++, pre++;
	return !*pre;
}

/* Digits near the line's end, or in another base, are written backwards
 * into a scratch buffer and copied once, cut. */
static void put_digits(struct ms_tline *o, const char *t, int k)
{
	size_t n = (size_t)(24 - k);
	char *d;

	if (o->n >= MS_TLINE - 2)
		return;
	if (n > MS_TLINE - 2 - o->n)
		n = MS_TLINE - 2 - o->n; /* cut as ms_tl_c cuts: the first digits stay */
	d = o->buf + o->n;
	o->n += n;
	t += k;
	while (n--)
		*d++ = *t++;
}

const char ms_tl_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
			      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
			      "8081828384858687888990919293949596979899";

/* Digits of v in base 16 or 8, from its bit length. */
static unsigned ndigits(uint64_t v, unsigned base)
{
	unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);

	return base == 16 ? (bits + 3) / 4 : (bits + 2) / 3;
}

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "dec8 lays digits out in a little-endian word"
#endif

/* The 8 decimal digits of x (< 10^8), zero-padded, as the bytes of a
 * little-endian word, the first digit in the lowest byte: the halves of
 * 4 digits, each split in pairs, each pair in digits, in 64-bit lanes
 * (a quotient by 100 below 10^4 is x * 10486 >> 20, by 10 below 100
 * x * 103 >> 10; no lane carries into the next). */
static inline uint64_t dec8(uint32_t x)
{
	uint64_t v = (uint64_t)(x / 10000) | (uint64_t)(x % 10000) << 32;
	uint64_t q = (v * 10486 >> 20) & 0x0000007f0000007fu;

	v = q | (v - 100 * q) << 16;
	q = (v * 103 >> 10) & 0x000f000f000f000fu;
	v = q | (v - 10 * q) << 8;
	return v + 0x3030303030303030u;
}

/* x (< 100) in decimal at d, one digit or two; returns its end. */
static inline char *dec2(char *d, uint32_t x)
{
	if (x < 10) {
		*d = (char)('0' + x);
		return d + 1;
	}
	__builtin_memcpy(d, ms_tl_pairs + 2 * x, 2);
	return d + 2;
}

/* 128 bits: a 64-bit fraction's product by 100, its pair above it */
__extension__ typedef unsigned __int128 u128;

/* The next two digits of a fraction f (in 2^-64ths): its product by
 * 100's upper half, the product's lower half the next fraction (one
 * multiply gives both). */
static inline char *next_pair(char *d, uint64_t *f)
{
	uint64_t hi;

#if defined(__x86_64__)
	/* mul leaves the halves in rdx:rax, rax the next fraction in place:
	 * from a 128-bit product GCC moves the lower half out and back, two
	 * moves a pair */
	__asm__("mulq %2" : "+a"(*f), "=d"(hi) : "r"((uint64_t)100) : "cc");
#else
	u128 p = (u128)*f * 100;

	*f = (uint64_t)p;
	hi = (uint64_t)(p >> 64);
#endif
	__builtin_memcpy(d, ms_tl_pairs + 2 * hi, 2);
	return d + 2;
}

/* A number x below 10^(2k + 2) in decimal at d, from t, x / 10^(2k) in
 * fixed point with s bits of fraction, from above by less than
 * 10^-(2k) (each caller says why): its one or two leading digits, then
 * k pairs of the fraction, each exact (the error never carries into a
 * digit); returns its end, and writes nothing past it. */
static inline __attribute__((always_inline)) char *dec_fixed(char *d, uint64_t t, unsigned s,
							      unsigned k)
{
	uint64_t f = t << (64 - s);

	d = dec2(d, (uint32_t)(t >> s));
	/* written out (k: 1 to 4, a constant): a loop's counter costs as
	 * much as a pair */
	if (k > 3)
		d = next_pair(d, &f);
	if (k > 2)
		d = next_pair(d, &f);
	if (k > 1)
		d = next_pair(d, &f);
	return next_pair(d, &f);
}

/* x (< 10^8) in decimal at d, without leading zeros; returns its end,
 * and writes nothing past it. */
static inline __attribute__((always_inline)) char *dec_lead(char *d, uint32_t x)
{
	if (x < 100)
		return dec2(d, x);
	if (x < 10000) {
		/* a descriptor, a count, a port: two pairs (the first may be
		 * one digit) */
		uint32_t hi = x / 100, lo = x - 100 * hi;

		d = dec2(d, hi);
		__builtin_memcpy(d, ms_tl_pairs + 2 * lo, 2);
		return d + 2;
	}
	/* x / 10^4 or x / 10^6 in 12.52 fixed point, 2^52 / 10^4 or 10^6
	 * rounded up: above it by less than x / 2^52 < 2.3 * 10^-8, well
	 * below the 10^-4 or 10^-6 of a last digit (checked against printf
	 * for every such x) */
	if (x < 1000000)
		return dec_fixed(d, (uint64_t)x * 450359962738u, 52, 2);
	return dec_fixed(d, (uint64_t)x * 4503599628u, 52, 3);
}

/* x (10^8 <= x < 2^32: a time's seconds or nanoseconds) in decimal at
 * d, its 9 or 10 digits; returns its end, and writes nothing past it.
 * x / 10^8 in 6.58 fixed point, x times 2^58 / 10^8 rounded up: above
 * it by x * 0.483 / 2^58, less than 0.72 * 10^-8, below the 10^-8 of a
 * last digit (checked against printf for every such x). */
static inline char *dec_big32(char *d, uint32_t x)
{
	return dec_fixed(d, (uint64_t)x * 2882303762u, 58, 4);
}

/* v in decimal at d, eight digits at a time; returns its end.  The 8
 * bytes past it may be written. */
static char *dec(char *d, uint64_t v)
{
	uint64_t hi, w;

	if (v < 100000000u)
		return dec_lead(d, (uint32_t)v);
	if (v <= UINT32_MAX)
		return dec_big32(d, (uint32_t)v);
	hi = v / 100000000u;
	if (hi < 100000000u) {
		d = dec_lead(d, (uint32_t)hi);
	} else {
		uint64_t top = hi / 100000000u;

		d = dec_lead(d, (uint32_t)top);
		w = dec8((uint32_t)(hi - top * 100000000u));
		__builtin_memcpy(d, &w, 8);
		d += 8;
	}
	w = dec8((uint32_t)(v - hi * 100000000u));
	__builtin_memcpy(d, &w, 8);
	return d + 8;
}

/* "00".."ff": a byte's two hex digits at 2 * b */
#define HEX16(x) \
	x "0" x "1" x "2" x "3" x "4" x "5" x "6" x "7" x "8" x "9" x "a" x "b" x "c" x "d" x "e" x "f"
static const char hex_pairs[513] = HEX16("0") HEX16("1") HEX16("2") HEX16("3") HEX16("4") HEX16("5")
	HEX16("6") HEX16("7") HEX16("8") HEX16("9") HEX16("a") HEX16("b") HEX16("c") HEX16("d")
	HEX16("e") HEX16("f");
#undef HEX16

/* v in hex at d, a byte (two digits) at a time from its end; returns
 * its end, and writes nothing past it. */
static inline char *hex(char *d, uint64_t v)
{
	char *e = d + ndigits(v, 16), *q = e;

	while (v > 0xff) {
		q -= 2;
		__builtin_memcpy(q, hex_pairs + 2 * (v & 0xff), 2);
		v >>= 8;
	}
	if (v > 0xf)
		__builtin_memcpy(q - 2, hex_pairs + 2 * v, 2);
	else
		q[-1] = hex_pairs[2 * v + 1];
	return e;
}

void ms_tl_u_(struct ms_tline *o, uint64_t v, unsigned base)
{
	char t[24];
	int k = 24;

	/* the common case: the digits written in place, eight at a time
	 * (room for 24 more: an eight's last bytes may pass the number) */
	if ((base == 10 || base == 16 || base == 8) && o->n + 24 <= MS_TLINE - 2) {
		unsigned n;
		char *d = o->buf + o->n;

		if (base == 10) {
			o->n = (size_t)(dec(d, v) - o->buf);
			return;
		}
		if (base == 16) {
			o->n = (size_t)(hex(d, v) - o->buf);
			return;
		}
		n = ndigits(v, base);
		o->n += n;
		/* base 8 */
		d += n;
		do
			*--d = (char)('0' + (v & 7));
		while ((v >>= 3));
		return;
	}
	/* near the line's end, or another base: into t, then cut */
	do
		t[--k] = "0123456789abcdef"[v % base];
	while ((v /= base) && k > 0);
	put_digits(o, t, k);
}

void ms_tl_ptr(struct ms_tline *o, uint64_t v)
{
	if (!v) {
		ms_tl_put(o, "NULL");
		return;
	}
	ms_tl_put(o, "0x");
	ms_tl_u(o, v, 16);
}

/* A string argument, read fault-safely, quoted, cut at STR_CUT bytes. */
void ms_tl_str(struct ms_tline *o, uint64_t v)
{
	char s[STR_CUT + 1];
	size_t n;

	if (!v) {
		ms_tl_put(o, "NULL");
		return;
	}
	n = ms_read_user(s, (const void *)(uintptr_t)v, sizeof(s));
	ms_tl_c(o, '"');
	for (size_t i = 0; i < n && i < STR_CUT && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			ms_tl_c(o, '\\');
			ms_tl_c(o, (char)c);
		} else if (c == '\n') {
			ms_tl_put(o, "\\n");
		} else if (c < 0x20 || c >= 0x7f) {
			ms_tl_put(o, "\\x");
			ms_tl_c(o, "0123456789abcdef"[c >> 4]);
			ms_tl_c(o, "0123456789abcdef"[c & 15]);
		} else {
			ms_tl_c(o, (char)c);
		}
	}
	ms_tl_c(o, '"');
	if (n > STR_CUT && memchr(s, 0, STR_CUT) == NULL)
		ms_tl_put(o, "...");
}

static const struct {
	int bit;
	const char *name;
} oflags[] = {
	{ O_CREAT, "O_CREAT" },	      { O_EXCL, "O_EXCL" },	      { O_NOCTTY, "O_NOCTTY" },
	{ O_TRUNC, "O_TRUNC" },	      { O_APPEND, "O_APPEND" },	      { O_NONBLOCK, "O_NONBLOCK" },
	{ O_DIRECTORY, "O_DIRECTORY" }, { O_NOFOLLOW, "O_NOFOLLOW" }, { O_CLOEXEC, "O_CLOEXEC" },
	{ O_SYNC, "O_SYNC" },	      { O_NOATIME, "O_NOATIME" },     { O_PATH, "O_PATH" },
	{ O_LARGEFILE, "O_LARGEFILE" },
};

static void put_oflags(struct ms_tline *o, int64_t v)
{
	int acc = (int)v & O_ACCMODE, rest = (int)v & ~O_ACCMODE;

	ms_tl_put(o, acc == O_WRONLY ? "O_WRONLY" : acc == O_RDWR ? "O_RDWR" : "O_RDONLY");
	for (size_t i = 0; i < sizeof(oflags) / sizeof(oflags[0]); i++) {
		if ((rest & oflags[i].bit) == oflags[i].bit && oflags[i].bit) {
			ms_tl_c(o, '|');
			ms_tl_put(o, oflags[i].name);
			rest &= ~oflags[i].bit;
		}
	}
	if (rest) {
		ms_tl_put(o, "|0x");
		ms_tl_u(o, (uint32_t)rest, 16);
	}
}

struct flag {
	int64_t bit;
	const char *name;
	size_t len;
};

#define NF(x) { x, #x, sizeof(#x) - 1 }
static const struct flag at_flags[] = {
	NF(AT_SYMLINK_NOFOLLOW), NF(AT_SYMLINK_FOLLOW), NF(AT_NO_AUTOMOUNT), NF(AT_EMPTY_PATH),
	NF(AT_STATX_FORCE_SYNC), NF(AT_STATX_DONT_SYNC),
};
static const struct flag msg_flags[] = {
	NF(MSG_OOB), NF(MSG_PEEK), NF(MSG_DONTROUTE), NF(MSG_CTRUNC), NF(MSG_TRUNC),
	NF(MSG_DONTWAIT), NF(MSG_EOR), NF(MSG_WAITALL), NF(MSG_NOSIGNAL), NF(MSG_MORE),
	NF(MSG_CMSG_CLOEXEC), NF(MSG_FASTOPEN), NF(MSG_ERRQUEUE),
};
static const struct flag statx_mask[] = {
	NF(STATX_TYPE), NF(STATX_MODE), NF(STATX_NLINK), NF(STATX_UID), NF(STATX_GID),
	NF(STATX_ATIME), NF(STATX_MTIME), NF(STATX_CTIME), NF(STATX_INO), NF(STATX_SIZE),
	NF(STATX_BLOCKS), NF(STATX_BTIME), NF(STATX_MNT_ID),
};
static const struct flag clocks[] = {
	NF(CLOCK_REALTIME), NF(CLOCK_MONOTONIC), NF(CLOCK_PROCESS_CPUTIME_ID),
	NF(CLOCK_THREAD_CPUTIME_ID), NF(CLOCK_MONOTONIC_RAW), NF(CLOCK_REALTIME_COARSE),
	NF(CLOCK_MONOTONIC_COARSE), NF(CLOCK_BOOTTIME), NF(CLOCK_REALTIME_ALARM),
	NF(CLOCK_BOOTTIME_ALARM), NF(CLOCK_TAI),
};
static const struct flag families[] = {
	NF(AF_UNSPEC), NF(AF_UNIX), NF(AF_INET), NF(AF_INET6), NF(AF_NETLINK), NF(AF_PACKET),
	NF(AF_BLUETOOTH), NF(AF_ALG), NF(AF_VSOCK),
};
static const struct flag sock_types[] = {
	NF(SOCK_STREAM), NF(SOCK_DGRAM), NF(SOCK_RAW), NF(SOCK_RDM), NF(SOCK_SEQPACKET),
	NF(SOCK_PACKET),
};
static const struct flag sock_flags[] = { NF(SOCK_NONBLOCK), NF(SOCK_CLOEXEC) };
#undef NF
#define N_(t) (sizeof(t) / sizeof((t)[0]))

/* FLAG|FLAG|0xREST, or 0. */
static void put_flags(struct ms_tline *o, int64_t v, const struct flag *t, size_t n, int first)
{
	uint64_t rest = (uint64_t)v;

	for (size_t i = 0; i < n; i++) {
		if (t[i].bit && (rest & (uint64_t)t[i].bit) == (uint64_t)t[i].bit) {
			if (!first)
				ms_tl_c(o, '|');
			ms_tl_putn(o, t[i].name, t[i].len);
			rest &= ~(uint64_t)t[i].bit;
			first = 0;
		}
	}
	if (rest || first) {
		if (!first)
			ms_tl_c(o, '|');
		if (rest) {
			ms_tl_put(o, "0x");
			ms_tl_u(o, rest, 16);
		} else {
			ms_tl_c(o, '0');
		}
	}
}

/* One name of a table, or the number. */
static int put_name(struct ms_tline *o, int64_t v, const struct flag *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i].bit == v) {
			ms_tl_putn(o, t[i].name, t[i].len);
			return 1;
		}
	}
	ms_tl_i(o, v);
	return 0;
}

/* An exec's argv: ["sh", "-c", "..."], bounded. */
static void put_argv(struct ms_tline *o, uint64_t v)
{
	uint64_t p;

	if (!v) {
		ms_tl_put(o, "NULL");
		return;
	}
	ms_tl_c(o, '[');
	for (unsigned i = 0;; i++) {
		if (ms_read_user(&p, (const void *)(uintptr_t)(v + 8 * i), 8) != 8) {
			ms_tl_put(o, "?");
			break;
		}
		if (!p)
			break;
		if (i == 8) {
			ms_tl_put(o, ", ...");
			break;
		}
		if (i)
			ms_tl_put(o, ", ");
		ms_tl_str(o, p);
	}
	ms_tl_c(o, ']');
}

/* A struct the call reads (const) or filled (after a success): its
 * values, as strace shows them; the catalog's time and stat types, as
 * the row's parse named them (enum ms_show). */
static size_t struct_read(void *dst, const void *src, size_t n, int filled)
{
	if (filled == MS_TL_WRITTEN) {
		memcpy(dst, src, n);
		return n;
	}
	return ms_read_user(dst, src, n);
}

static int put_struct(struct ms_tline *o, const struct ms_param *p, uint64_t v, int filled)
{
	const void *src = (const void *)(uintptr_t)v;

	switch (p->show) {
	case MS_SHOW_TIMESPEC: {
		struct timespec ts;

		if (struct_read(&ts, src, sizeof(ts), filled) != sizeof(ts))
			return 0;
		ms_tl_put(o, "{tv_sec=");
		ms_tl_i(o, ts.tv_sec);
		ms_tl_put(o, ", tv_nsec=");
		ms_tl_i(o, ts.tv_nsec);
		ms_tl_c(o, '}');
		return 1;
	}
	case MS_SHOW_TIMEVAL: {
		struct timeval tv;

		if (struct_read(&tv, src, sizeof(tv), filled) != sizeof(tv))
			return 0;
		ms_tl_put(o, "{tv_sec=");
		ms_tl_i(o, tv.tv_sec);
		ms_tl_put(o, ", tv_usec=");
		ms_tl_i(o, tv.tv_usec);
		ms_tl_c(o, '}');
		return 1;
	}
	case MS_SHOW_STAT: {
		struct stat st;

		if (struct_read(&st, src, sizeof(st), filled) != sizeof(st))
			return 0;
		ms_tl_put(o, "{st_mode=0");
		ms_tl_u(o, (uint32_t)st.st_mode, 8);
		ms_tl_put(o, ", st_size=");
		ms_tl_i(o, st.st_size);
		ms_tl_put(o, ", ...}");
		return 1;
	}
	case MS_SHOW_STATX: {
		struct statx sx;

		if (struct_read(&sx, src, sizeof(sx), filled) != sizeof(sx))
			return 0;
		ms_tl_put(o, "{stx_mode=0");
		ms_tl_u(o, sx.stx_mode, 8);
		ms_tl_put(o, ", stx_size=");
		ms_tl_u(o, sx.stx_size, 10);
		ms_tl_put(o, ", ...}");
		return 1;
	}
	default:
		return 0;
	}
}

_Static_assert(sizeof(struct timespec) == 16 && sizeof(struct timeval) == 16 &&
		       offsetof(struct timespec, tv_nsec) == 8 && offsetof(struct timeval, tv_usec) == 8,
	       "a time's two fields, as put_time reads them");

/* Parameter i of m, as its row says it shows (enum ms_show). */
static void put_arg(struct ms_tline *o, const struct ms_fn_meta *m, unsigned i, uint64_t v, int filled)
{
	const struct ms_param *p = &m->params[i];
	int64_t iv = p->type.size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;

	switch (p->show) {
	case MS_SHOW_STR:
		ms_tl_str(o, v);
		return;
	case MS_SHOW_ARGV:
		put_argv(o, v);
		return;
	case MS_SHOW_PTR:
		ms_tl_ptr(o, v);
		return;
	case MS_SHOW_TIMESPEC:
	case MS_SHOW_TIMEVAL:
	case MS_SHOW_STAT:
	case MS_SHOW_STATX:
		/* read or filled: its values; else the pointer */
		if (!v || !(filled || starts(p->type.text, "const")) || !put_struct(o, p, v, filled))
			ms_tl_ptr(o, v);
		return;
	case MS_SHOW_AT_UNLINK:
	case MS_SHOW_AT_ACCESS: {
		int64_t first = p->show == MS_SHOW_AT_UNLINK ? AT_REMOVEDIR : AT_EACCESS;

		if (iv & first) {
			ms_tl_put(o, p->show == MS_SHOW_AT_UNLINK ? "AT_REMOVEDIR" : "AT_EACCESS");
			if (iv & ~first) {
				ms_tl_c(o, '|');
				put_flags(o, iv & ~first, at_flags, N_(at_flags), 1);
			}
			return;
		}
		put_flags(o, iv, at_flags, N_(at_flags), 1);
		return;
	}
	case MS_SHOW_AT_FLAGS:
		put_flags(o, iv, at_flags, N_(at_flags), 1);
		return;
	case MS_SHOW_STATX_MASK:
		put_flags(o, (int64_t)(uint32_t)v, statx_mask, N_(statx_mask), 1);
		return;
	case MS_SHOW_MSG_FLAGS:
		put_flags(o, iv, msg_flags, N_(msg_flags), 1);
		return;
	case MS_SHOW_CLOCK:
		put_name(o, iv, clocks, N_(clocks));
		return;
	case MS_SHOW_DOMAIN:
		put_name(o, iv, families, N_(families));
		return;
	case MS_SHOW_SOCKTYPE:
		put_name(o, iv & 0xf, sock_types, N_(sock_types));
		if (iv & ~0xf) {
			ms_tl_c(o, '|');
			put_flags(o, iv & ~0xf, sock_flags, N_(sock_flags), 1);
		}
		return;
	case MS_SHOW_OFLAGS:
		put_oflags(o, iv);
		return;
	case MS_SHOW_MODE:
	case MS_SHOW_OPEN_MODE:
		ms_tl_c(o, '0');
		ms_tl_u(o, (uint32_t)v, 8);
		return;
	case MS_SHOW_DIRFD:
		if (iv == AT_FDCWD) {
			ms_tl_put(o, "AT_FDCWD");
			return;
		}
		break;
	default:
		break;
	}
	if (p->type.tclass == MS_T_UINT)
		ms_tl_u(o, p->type.size == 4 ? (uint32_t)v : v, 10);
	else
		ms_tl_i(o, iv);
}

/*
 * A catalog call's line, composed in one function (ms_tl_line) with its
 * pieces inlined: the next byte's address stays in a register, where
 * o->n in memory was read and written by every piece, and a piece checks
 * the room left once, against the most it writes, not per character.
 * Where the room is short (the line's end) or the argument is a rare
 * kind (a string, flags, a stat), the piece is the o->n one above, which
 * cuts the line as it always did: the cursor is stored to o->n before it
 * and read back after.  ms_tl_call, ms_tl_result and ms_tl_end (the
 * syscall tier's) are the same pieces.
 */
struct cur {
	struct ms_tline *o;
	char *p; /* o->buf + o->n while the cursor holds the line */
	char *end; /* o->buf + MS_TLINE - 2: the room a line has */
};

#define AI static inline __attribute__((always_inline))

/* the line handed to an o->n piece, and taken back */
#define SLOW(c, piece)                                      \
	do {                                                \
		(c)->o->n = (size_t)((c)->p - (c)->o->buf); \
		piece;                                      \
		(c)->p = (c)->o->buf + (c)->o->n;           \
	} while (0)

AI size_t room(const struct cur *c)
{
	return (size_t)(c->end - c->p);
}

AI void cur_c(struct cur *c, char ch)
{
	if (room(c))
		*c->p++ = ch;
}

/* A literal: its length is the compiler's. */
AI void cur_lit(struct cur *c, const char *s)
{
	size_t n = __builtin_strlen(s);

	if (room(c) < n) {
		SLOW(c, ms_tl_put(c->o, s));
		return;
	}
	__builtin_memcpy(c->p, s, n);
	c->p += n;
}

/* A string of unknown length (an errno's name, a statement's), cut as
 * ms_tl_put cuts. */
AI void cur_str(struct cur *c, const char *s)
{
	char *p = c->p;

	while (*s && p < c->end)
		*p++ = *s++;
	c->p = p;
}

AI void cur_putn(struct cur *c, const char *s, size_t n)
{
	if (room(c) < n) {
		SLOW(c, ms_tl_putn(c->o, s, n));
		return;
	}
	ms_tl_moves(c->p, s, n);
	c->p += n;
}

/* A number's most: 20 digits, and dec's 8 bytes past them (24, as
 * ms_tl_u_ asks); a sign. */
AI void cur_u10(struct cur *c, uint64_t v)
{
	if (room(c) < 24) {
		SLOW(c, ms_tl_u_(c->o, v, 10));
		return;
	}
	if (v < 10) {
		*c->p++ = (char)('0' + v);
		return;
	}
	c->p = dec(c->p, v);
}

/* v with its sign at d, unchecked: 25 bytes of room; returns its end. */
AI char *put_i10(char *d, int64_t v)
{
	if (v < 0) {
		*d++ = '-';
		return dec(d, (uint64_t)0 - (uint64_t)v);
	}
	if (v < 10) {
		*d = (char)('0' + v);
		return d + 1;
	}
	return dec(d, (uint64_t)v);
}

AI void cur_i10(struct cur *c, int64_t v)
{
	if (room(c) < 25) {
		SLOW(c, ms_tl_i(c->o, v));
		return;
	}
	c->p = put_i10(c->p, v);
}

/* A time a call of this process wrote, "{tv_sec=S, tv_nsec=N}" (sub:
 * ", tv_nsec=" or ", tv_usec=", 10 bytes) at d from its two fields at
 * t; returns its end.  Unchecked: the caller checks its room once,
 * TIME_MAX, both numbers at their widest, where the pieces checked five
 * times. */
#define TIME_MAX (8 + 25 + 10 + 25 + 1)

/* One of its numbers: below 2^32 (a second of the epoch, any
 * nanosecond) its digits inline, the rest by put_i10. */
AI char *put_time_field(char *d, int64_t v)
{
	if ((uint64_t)v >= 100000000u && (uint64_t)v <= UINT32_MAX)
		return dec_big32(d, (uint32_t)v);
	if ((uint64_t)v < 100000000u)
		return dec_lead(d, (uint32_t)v);
	return put_i10(d, v);
}

/* Out of line: one call for the two numbers, and the line's function
 * keeps its registers for the arguments' loop. */
static __attribute__((noinline)) char *put_time(char *d, const void *t, const char *sub)
{
	int64_t f[2]; /* both are two 64-bit fields (asserted above) */

	__builtin_memcpy(f, t, sizeof(f));
	__builtin_memcpy(d, "{tv_sec=", 8);
	d = put_time_field(d + 8, f[0]);
	__builtin_memcpy(d, sub, 10);
	d = put_time_field(d + 10, f[1]);
	*d = '}';
	return d + 1;
}

/* "0x" and 16 digits at most */
AI void cur_ptr(struct cur *c, uint64_t v)
{
	if (room(c) < 18) {
		SLOW(c, ms_tl_ptr(c->o, v));
		return;
	}
	if (!v) {
		__builtin_memcpy(c->p, "NULL", 4);
		c->p += 4;
		return;
	}
	__builtin_memcpy(c->p, "0x", 2);
	c->p = hex(c->p + 2, v);
}

AI void cur_name(struct cur *c, int64_t v, const struct flag *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i].bit == v) {
			cur_putn(c, t[i].name, t[i].len);
			return;
		}
	}
	cur_i10(c, v);
}

/* What the call's structs show as: ms_tl_call's filled as given, or
 * ms_tl_line's, what a success fills, asked of ms_tl_ok only where a
 * parameter shows a struct (most lines have none). */
struct fills {
	int filled, ask;
	int64_t ret;
	int err;
};

AI int filled(const struct ms_fn_meta *m, struct fills f)
{
	return !f.ask || ms_tl_ok(m, f.ret, f.err) ? f.filled : 0;
}

/* A 4-byte signed parameter's value: the register's upper half is not
 * the value's. */
AI int64_t sext(const struct ms_param *p, uint64_t v)
{
	return p->type.size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

/* put_arg, its common kinds here: integers, pointers, names, and the
 * times a call of this process wrote (the struct copied in a few moves,
 * not by memcpy); the rest by put_arg.  Returns 0 for an open's mode
 * that is not shown (the line's arguments end before it). */
AI int cur_arg(struct cur *c, const struct ms_fn_meta *m, unsigned i, const uint64_t *a,
	       struct fills f)
{
	const struct ms_param *p = &m->params[i];
	uint64_t v = a[i];

	switch (p->show) {
	case MS_SHOW_INT32:
		cur_i10(c, (int32_t)(uint32_t)v);
		return 1;
	case MS_SHOW_UINT32:
		cur_u10(c, (uint32_t)v);
		return 1;
	case MS_SHOW_INT:
		cur_i10(c, (int64_t)v);
		return 1;
	case MS_SHOW_UINT:
		cur_u10(c, v);
		return 1;
	case MS_SHOW_PTR:
		cur_ptr(c, v);
		return 1;
	case MS_SHOW_TIMESPEC:
	case MS_SHOW_TIMEVAL:
		/* near the line's end, put_arg cuts it as the pieces would */
		if (v && room(c) >= TIME_MAX && filled(m, f) == MS_TL_WRITTEN) {
			c->p = put_time(c->p, (const void *)(uintptr_t)v,
					p->show == MS_SHOW_TIMESPEC ? ", tv_nsec=" : ", tv_usec=");
			return 1;
		}
		break;
	case MS_SHOW_CLOCK:
		cur_name(c, sext(p, v), clocks, N_(clocks));
		return 1;
	case MS_SHOW_DOMAIN:
		cur_name(c, sext(p, v), families, N_(families));
		return 1;
	case MS_SHOW_SOCKTYPE: {
		int64_t iv = sext(p, v);

		cur_name(c, iv & 0xf, sock_types, N_(sock_types));
		if (iv & ~0xf) {
			cur_c(c, '|');
			SLOW(c, put_flags(c->o, iv & ~0xf, sock_flags, N_(sock_flags), 1));
		}
		return 1;
	}
	case MS_SHOW_DIRFD:
		if (sext(p, v) == AT_FDCWD)
			cur_lit(c, "AT_FDCWD");
		else if (p->type.tclass == MS_T_UINT)
			cur_u10(c, p->type.size == 4 ? (uint32_t)v : v);
		else
			cur_i10(c, sext(p, v));
		return 1;
	case MS_SHOW_OPEN_MODE:
		/* open's mode is only read with O_CREAT or O_TMPFILE: as strace */
		if (!(a[i - 1] & O_CREAT) && (a[i - 1] & O_TMPFILE) != O_TMPFILE)
			return 0;
		break;
	default:
		break;
	}
	SLOW(c, put_arg(c->o, m, i, v, filled(m, f)));
	return 1;
}

AI void cur_call(struct cur *c, const struct ms_fn_meta *m, const uint64_t *a, struct fills f)
{
	unsigned n = m->nparams; /* read once: the line's stores may alias it */

	if (m->name_len)
		cur_putn(c, m->name, m->name_len);
	else
		cur_str(c, m->name); /* a meta whose parameters did not parse */
	cur_c(c, '(');
	for (unsigned i = 0; i < n; i++) {
		char *at = c->p;

		if (i)
			cur_lit(c, ", ");
		if (!cur_arg(c, m, i, a, f)) {
			c->p = at; /* not shown: nor its separator */
			break;
		}
	}
	cur_c(c, ')');
}

AI void cur_result(struct cur *c, const struct ms_fn_meta *m, int64_t ret, int err)
{
	int failed;

	if (m->ret.tclass == MS_T_VOID)
		return;
	if (m->syscall && !(m->sys_flags & MS_SYSF_NOFAIL) && !err && ret < 0 && ret >= -4095) {
		/* the kernel's -errno: what the caller's libc makes of it */
		err = (int)-ret;
		ret = -1;
	}
	cur_lit(c, " = ");
	if (m->ret.tclass >= MS_T_PTR) {
		cur_ptr(c, (uint64_t)ret);
		failed = ret == 0 && m->fail_kind == MS_FK_ERRNO;
	} else {
		int64_t r = m->ret.size == 4 ? (int64_t)(int32_t)ret : ret;

		if (m->ret.tclass == MS_T_UINT)
			cur_u10(c, m->ret.size == 4 ? (uint32_t)ret : (uint64_t)ret);
		else
			cur_i10(c, r);
		failed = m->fail_kind == MS_FK_ERRNO && r == m->fail_value;
		if (m->fail_kind == MS_FK_RC && r != 0 && ms_eai_name((int)r)) {
			cur_c(c, ' ');
			cur_str(c, ms_eai_name((int)r));
		}
	}
	/* a row whose failure sets no errno (getenv) shows none: it is stale */
	if (failed && err > 0 && m->fail_errno && ms_errno_name(err)) {
		cur_c(c, ' ');
		cur_str(c, ms_errno_name(err));
	}
}

AI void cur_end(struct cur *c, const char *mocked_by, const char *passed_by, const char *site)
{
	if (mocked_by) {
		cur_lit(c, " (mocked: ");
		cur_str(c, mocked_by);
		cur_c(c, ')');
	}
	if (passed_by) {
		/* when() or probability= let this call by a statement */
		cur_lit(c, " (passed by: ");
		cur_str(c, passed_by);
		cur_c(c, ')');
	}
	if (site) {
		cur_lit(c, " at ");
		cur_str(c, site);
	}
	*c->p++ = '\n';
}

void ms_tl_call(struct ms_tline *o, const struct ms_fn_meta *m, const uint64_t *a, int filled)
{
	struct cur c = { o, o->buf + o->n, o->buf + MS_TLINE - 2 };
	struct fills f = { filled, 0, 0, 0 };

	cur_call(&c, m, a, f);
	o->n = (size_t)(c.p - o->buf);
}

void ms_tl_result(struct ms_tline *o, const struct ms_fn_meta *m, int64_t ret, int err)
{
	struct cur c = { o, o->buf + o->n, o->buf + MS_TLINE - 2 };

	cur_result(&c, m, ret, err);
	o->n = (size_t)(c.p - o->buf);
}

void ms_tl_end(struct ms_tline *o, const char *mocked_by, const char *passed_by, const char *site)
{
	struct cur c = { o, o->buf + o->n, o->buf + MS_TLINE - 2 };

	cur_end(&c, mocked_by, passed_by, site);
	o->n = (size_t)(c.p - o->buf);
}

void ms_tl_line(struct ms_tline *o, const struct ms_fn_meta *m, const uint64_t *a, int64_t ret,
		int err, int fills)
{
	struct cur c = { o, o->buf + o->n, o->buf + MS_TLINE - 2 };
	struct fills f = { fills, 1, ret, err };

	cur_call(&c, m, a, f);
	cur_result(&c, m, ret, err);
	o->n = (size_t)(c.p - o->buf);
}
