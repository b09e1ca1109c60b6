/* SPDX-License-Identifier: MIT */
/* --trace's line pieces (decide/tracefmt.c): numbers in every base the
 * lines use, against printf; arguments as each row shows them (its
 * enum ms_show, decided when the row is parsed). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <cmocka.h>

#include "catalog/catalog.h"
#include "decide/decide.h"

/* the tiers' fault-safe read (checks.c), here a plain copy counted */
static unsigned user_reads;

size_t ms_read_user(void *dst, const void *src, size_t n)
{
	user_reads++;
	memcpy(dst, src, n);
	return n;
}

static void want_u(uint64_t v, unsigned base)
{
	struct ms_tline o;
	char want[40];

	memcpy(o.buf, "x ", 2);
	o.n = 2;
	ms_tl_u(&o, v, base);
	snprintf(want, sizeof(want), base == 10 ? "x %llu" : base == 16 ? "x %llx" : "x %llo",
		 (unsigned long long)v);
	if (o.n != strlen(want) || memcmp(o.buf, want, o.n) != 0)
		fail_msg("base %u: [%.*s], expected [%s]", base, (int)o.n, o.buf, want);
	if (base != 10)
		return;
	/* a constant base: decimals below 100 take the header's inline path */
	o.n = 2;
	ms_tl_u(&o, v, 10);
	if (o.n != strlen(want) || memcmp(o.buf, want, o.n) != 0)
		fail_msg("base 10 (constant): [%.*s], expected [%s]", (int)o.n, o.buf, want);
}

static void test_numbers(void **state)
{
	uint64_t p = 1, r = 88172645463325252ull;

	(void)state;
	for (int k = 0; k < 20; k++, p *= 10)
		for (int d = -1; d <= 1; d++)
			for (unsigned b = 8; b <= 16; b += b == 8 ? 2 : 6)
				want_u(p + (uint64_t)d, b);
	for (int k = 0; k < 64; k++)
		for (unsigned b = 8; b <= 16; b += b == 8 ? 2 : 6) {
			want_u((uint64_t)1 << k, b);
			want_u(((uint64_t)1 << k) - 1, b);
		}
	for (int i = 0; i < 100000; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17; /* xorshift */
		for (unsigned b = 8; b <= 16; b += b == 8 ? 2 : 6)
			want_u(r >> (i % 64), b);
	}
	for (uint64_t v = 0; v < 200000; v++)
		want_u(v, 10);
	for (uint64_t v = UINT32_MAX - 1000; v < (uint64_t)UINT32_MAX + 1000; v++)
		want_u(v, 10);
	/* 9 and 10 digits below 2^32 (a time's fields) take a path of their
	 * own: a stride through them, and each side of 10^8 and 10^9 */
	for (uint64_t v = 100000000 - 7; v <= UINT32_MAX; v += 9973)
		want_u(v, 10);
	for (uint64_t v = 999999000; v < 1000001000; v++)
		want_u(v, 10);
	want_u(UINT64_MAX, 10);
	want_u(0, 16);
}

/* The line's end: cut there, the first digits kept, never past it. */
static void test_cut(void **state)
{
	struct ms_tline o;

	(void)state;
	o.n = MS_TLINE - 5;
	ms_tl_u(&o, 1234567890, 10);
	assert_int_equal(o.n, MS_TLINE - 2);
	assert_memory_equal(o.buf + MS_TLINE - 5, "123", 3);
	/* the inline path's numbers too: 42 with room for one digit */
	o.n = MS_TLINE - 3;
	ms_tl_u(&o, 42, 10);
	assert_int_equal(o.n, MS_TLINE - 2);
	assert_int_equal(o.buf[MS_TLINE - 3], '4');
	ms_tl_u(&o, 7, 10);
	assert_int_equal(o.n, MS_TLINE - 2);
	o.n = MS_TLINE - 4;
	ms_tl_put(&o, "abcdef");
	assert_int_equal(o.n, MS_TLINE - 2);
	assert_memory_equal(o.buf + MS_TLINE - 4, "ab", 2);
	ms_tl_put(&o, "more");
	ms_tl_c(&o, 'z');
	assert_int_equal(o.n, MS_TLINE - 2);
}

/* A known length's copy, every length its small moves treat apart, in
 * the line and at its end. */
static void test_putn(void **state)
{
	static const char src[] = "abcdefghijklmnopqrstuvwxyz";
	struct ms_tline o;

	(void)state;
	for (size_t n = 0; n <= 20; n++) {
		memset(o.buf, '.', sizeof(o.buf));
		o.n = 1;
		ms_tl_putn(&o, src, n);
		assert_int_equal(o.n, 1 + n);
		assert_memory_equal(o.buf + 1, src, n);
		assert_int_equal(o.buf[0], '.');
		assert_int_equal(o.buf[1 + n], '.');
		o.n = MS_TLINE - 5;
		ms_tl_putn(&o, src, n);
		assert_int_equal(o.n, MS_TLINE - 5 + (n < 3 ? n : 3));
		assert_memory_equal(o.buf + MS_TLINE - 5, src, n < 3 ? n : 3);
	}
}

static const char *line(const char *fn, const uint64_t *a, int filled)
{
	static struct ms_tline o;
	int id = ms_catalog_find(fn, strlen(fn));

	assert_true(id >= 0);
	o.n = 0;
	ms_tl_call(&o, ms_catalog_get((unsigned)id), a, filled);
	o.buf[o.n] = '\0';
	return o.buf;
}

static void test_shown(void **state)
{
	struct timespec ts = { 12, 345 };
	/* room for the bytes a string's read takes past its end (the safe
	 * read stops at an unreadable page, not at the NUL) */
	static const char path[128] = "/tmp/f";

	(void)state;
	{
		uint64_t a[] = { (uintptr_t)path, O_WRONLY | O_CREAT, 0640 };

		assert_string_equal(line("open", a, 0), "open(\"/tmp/f\", O_WRONLY|O_CREAT, 0640)");
		a[1] = O_RDONLY;
		assert_string_equal(line("open", a, 0), "open(\"/tmp/f\", O_RDONLY)");
	}
	{
		uint64_t a[] = { (uint64_t)(int64_t)AT_FDCWD, (uintptr_t)path, AT_REMOVEDIR };

		assert_string_equal(line("unlinkat", a, 0), "unlinkat(AT_FDCWD, \"/tmp/f\", AT_REMOVEDIR)");
		a[0] = 7;
		a[2] = 0;
		assert_string_equal(line("unlinkat", a, 0), "unlinkat(7, \"/tmp/f\", 0)");
	}
	{
		uint64_t a[] = { CLOCK_MONOTONIC, (uintptr_t)&ts };

		/* not filled (the call failed): the pointer; filled: the values */
		assert_non_null(strstr(line("clock_gettime", a, 0), "clock_gettime(CLOCK_MONOTONIC, 0x"));
		user_reads = 0;
		assert_string_equal(line("clock_gettime", a, 1),
				    "clock_gettime(CLOCK_MONOTONIC, {tv_sec=12, tv_nsec=345})");
		assert_int_equal(user_reads, 1);
		/* written by this process's real call: read without the safe read */
		assert_string_equal(line("clock_gettime", a, MS_TL_WRITTEN),
				    "clock_gettime(CLOCK_MONOTONIC, {tv_sec=12, tv_nsec=345})");
		assert_int_equal(user_reads, 1);
	}
	{
		uint64_t a[] = { 3, 0x7ffd0000abcdull, 64 };

		assert_string_equal(line("read", a, 1), "read(3, 0x7ffd0000abcd, 64)");
	}
}

/* A whole line (ms_tl_line, ms_tl_end) from offset at, terminated. */
static const char *whole(size_t at, const char *fn, const uint64_t *a, int64_t ret, int err,
			 int fills, const char *mocked_by, const char *passed_by)
{
	static struct ms_tline o;
	int id = ms_catalog_find(fn, strlen(fn));

	assert_true(id >= 0);
	memset(o.buf, '.', sizeof(o.buf));
	o.n = at;
	ms_tl_line(&o, ms_catalog_get((unsigned)id), a, ret, err, fills);
	ms_tl_end(&o, mocked_by, passed_by, NULL);
	assert_true(o.n < MS_TLINE);
	o.buf[o.n] = '\0';
	return o.buf + at;
}

/* The line composed at once: the pieces' bytes, and near the line's end
 * the same line cut where the pieces cut it (its first MS_TLINE - 2
 * bytes, and the newline), from every offset that cuts it. */
static void test_line(void **state)
{
	struct timespec ts = { 1796597924, 325918014 }, neg = { -5, 999999999 };
	struct timeval tv = { 77, 123456 };
	static const char path[128] = "/tmp/\"q\"\n";
	const struct {
		const char *fn;
		uint64_t a[4];
		int64_t ret;
		int err, fills;
		const char *mocked_by, *passed_by, *want;
	} t[] = {
		{ "getpid", { 0 }, 4194304, 0, 2, NULL, NULL, "getpid() = 4194304\n" },
		{ "getuid", { 0 }, 0, 0, 2, NULL, NULL, "getuid() = 0\n" },
		{ "read", { 100, 0x7fffc047e74full, 1 }, 1, 0, 2, NULL, NULL,
		  "read(100, 0x7fffc047e74f, 1) = 1\n" },
		{ "read", { 3, 0, 64 }, -1, 5, 1, "-e#1:1", NULL,
		  "read(3, NULL, 64) = -1 EIO (mocked: -e#1:1)\n" },
		{ "read", { 12345678, 0xffffffffffffffffull, 18446744073709551615ull }, 99, 0, 2, NULL,
		  "-e#2", "read(12345678, 0xffffffffffffffff, 18446744073709551615) = 99 (passed by: -e#2)\n" },
		{ "clock_gettime", { CLOCK_REALTIME, (uintptr_t)&ts }, 0, 0, 2, NULL, NULL,
		  "clock_gettime(CLOCK_REALTIME, {tv_sec=1796597924, tv_nsec=325918014}) = 0\n" },
		{ "clock_gettime", { 77, (uintptr_t)&neg }, 0, 0, 2, NULL, NULL,
		  "clock_gettime(77, {tv_sec=-5, tv_nsec=999999999}) = 0\n" },
		/* failed: the pointer, not read (nothing is there) */
		{ "clock_gettime", { CLOCK_MONOTONIC, 0x1000 }, -1, 22, 2, NULL, NULL,
		  "clock_gettime(CLOCK_MONOTONIC, 0x1000) = -1 EINVAL\n" },
		{ "gettimeofday", { (uintptr_t)&tv, 0 }, 0, 0, 2, NULL, NULL,
		  "gettimeofday({tv_sec=77, tv_usec=123456}, NULL) = 0\n" },
		{ "socket", { AF_INET, SOCK_DGRAM, 0 }, 4, 0, 2, NULL, NULL,
		  "socket(AF_INET, SOCK_DGRAM, 0) = 4\n" },
		{ "socket", { AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | 0x4000, 6 }, -1, 97, 2, NULL, NULL,
		  "socket(AF_INET6, SOCK_STREAM|SOCK_CLOEXEC|0x4000, 6) = -1 EAFNOSUPPORT\n" },
		{ "openat", { (uint64_t)(int64_t)AT_FDCWD, (uintptr_t)path, O_RDONLY }, 3, 0, 2, NULL, NULL,
		  "openat(AT_FDCWD, \"/tmp/\\\"q\\\"\\n\", O_RDONLY) = 3\n" },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		size_t len = strlen(t[k].want);

		assert_string_equal(whole(0, t[k].fn, t[k].a, t[k].ret, t[k].err, t[k].fills,
					  t[k].mocked_by, t[k].passed_by),
				    t[k].want);
		for (size_t at = MS_TLINE - 1 - len; at <= MS_TLINE - 2; at++) {
			const char *got = whole(at, t[k].fn, t[k].a, t[k].ret, t[k].err, t[k].fills,
						t[k].mocked_by, t[k].passed_by);
			size_t keep = MS_TLINE - 2 - at < len - 1 ? MS_TLINE - 2 - at : len - 1;

			if (strlen(got) != keep + 1 || memcmp(got, t[k].want, keep) != 0 ||
			    got[keep] != '\n')
				fail_msg("%s from %zu: [%s]", t[k].fn, at, got);
		}
	}
}

/* A time's two numbers (the line's own path, put_time, for what the
 * real call wrote; put_struct's for a statement's), against printf, at
 * each digit count's edges, negative and at the extremes. */
static void test_times(void **state)
{
	static const int64_t v[] = {
		0, 1, 9, 10, 99, 100, 9999, 10000, 999999, 1000000, 9999999, 10000000,
		99999999, 100000000, 100000001, 999999999, 1000000000, 1796597924,
		(int64_t)UINT32_MAX - 1, (int64_t)UINT32_MAX, (int64_t)UINT32_MAX + 1,
		9999999999, 10000000000, INT64_MAX, -1, -9, -10, -100000000, -1000000000,
		-(int64_t)UINT32_MAX, INT64_MIN,
	};
	const size_t n = sizeof(v) / sizeof(v[0]);
	char want[160];

	(void)state;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			struct timespec ts = { (time_t)v[i], (long)v[j] };
			struct timeval tv = { (time_t)v[i], (suseconds_t)v[j] };
			uint64_t a[] = { CLOCK_MONOTONIC, (uintptr_t)&ts };
			uint64_t g[] = { (uintptr_t)&tv, 0 };

			snprintf(want, sizeof(want),
				 "clock_gettime(CLOCK_MONOTONIC, {tv_sec=%lld, tv_nsec=%lld}) = 0\n",
				 (long long)v[i], (long long)v[j]);
			for (int fills = 1; fills <= MS_TL_WRITTEN; fills++) {
				size_t len = strlen(want);

				assert_string_equal(whole(0, "clock_gettime", a, 0, 0, fills, NULL, NULL),
						    want);
				/* near the line's end: cut where the pieces cut */
				for (size_t at = MS_TLINE - 1 - len; at <= MS_TLINE - 2; at++) {
					const char *got = whole(at, "clock_gettime", a, 0, 0, fills, NULL,
								NULL);
					size_t keep = MS_TLINE - 2 - at < len - 1 ? MS_TLINE - 2 - at
										  : len - 1;

					if (strlen(got) != keep + 1 || memcmp(got, want, keep) != 0 ||
					    got[keep] != '\n')
						fail_msg("from %zu: [%s]", at, got);
				}
			}
			snprintf(want, sizeof(want),
				 "gettimeofday({tv_sec=%lld, tv_usec=%lld}, NULL) = 0\n",
				 (long long)v[i], (long long)v[j]);
			for (int fills = 1; fills <= MS_TL_WRITTEN; fills++)
				assert_string_equal(whole(0, "gettimeofday", g, 0, 0, fills, NULL, NULL),
						    want);
		}
}

/* A row's precomputed success test (ok_kind) answers as the row's
 * fields do, for every catalog function and system call: the same row
 * with MS_OK_ANY asks them one by one. */
static void test_ok_kind(void **state)
{
	static const int64_t rets[] = { 0, 1, -1, 2, -2, -4095, -4096, 4096, 0xffffffffll,
					0x100000000ll, 0x7fffffffll, -0x80000000ll, INT64_MIN,
					INT64_MAX, (int64_t)0xffffffff00000000ull };
	unsigned counted[8] = { 0 };

	(void)state;
	for (unsigned i = 0;; i++) {
		const struct ms_fn_meta *m = i < MS_FN_COUNT ? ms_catalog_get(i)
							     : ms_syscall_at(i - MS_FN_COUNT);
		struct ms_fn_meta any;

		if (!m)
			break;
		any = *m;
		any.ok_kind = MS_OK_ANY;
		counted[m->ok_kind < 8 ? m->ok_kind : 7]++;
		for (size_t r = 0; r < sizeof(rets) / sizeof(rets[0]); r++)
			for (int err = 0; err < 2; err++)
				if (ms_tl_ok(m, rets[r], err * 5) != ms_tl_ok(&any, rets[r], err * 5))
					fail_msg("%s: ok_kind %u says %d for %lld (errno %d)", m->name,
						 m->ok_kind, ms_tl_ok(m, rets[r], err * 5),
						 (long long)rets[r], err * 5);
	}
	/* each kind is some row's: the loop above tried them all */
	for (unsigned k = MS_OK_ANY; k <= MS_OK_ZERO; k++)
		assert_true(counted[k] > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_putn),
		cmocka_unit_test(test_shown),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_ok_kind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
