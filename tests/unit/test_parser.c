/* SPDX-License-Identifier: MIT */
/* The statement language: values, rules, and every error with its position. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "catalog/catalog.h"
#include "channel/channel.h"

#include "parse_fixture.h"

static void test_will_return(void **state)
{
	struct fixture *f = *state;
	const struct ms_rule *r;

	assert_int_equal(parse(f, "will_return(geteuid, 4242)"), 0);
	r = rule(state, 0);
	assert_int_equal(r->stmt.fn, MS_ID_geteuid);
	assert_int_equal(r->kind, MS_R_RETURN);
	assert_int_equal(r->stmt.count, 1);
	assert_int_equal(r->value, 4242);
	assert_int_equal(r->stmt.line, 1);
	assert_int_equal(r->stmt.col, 1);
	assert_string_equal(pool(state, r->stmt.text), "will_return(geteuid, 4242)");
	assert_string_equal(pool(state, r->stmt.src), "t.mock");
}

static void test_counts(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(parse(f, "will_return_count(getuid, 1, 3); will_return_always(getgid, 2)\n"
				  "will_return_maybe(getegid, 3)\nwill_return_count(getpid, 7, -1)\n"
				  "will_return_count(getpid, 7, -2)"),
			 0);
	assert_int_equal(f->spec.nrules, 5);
	assert_int_equal(rule(state, 0)->stmt.count, 3);
	assert_int_equal(rule(state, 1)->stmt.count, MS_COUNT_ALWAYS);
	assert_int_equal(rule(state, 2)->stmt.count, MS_COUNT_MAYBE);
	assert_int_equal(rule(state, 2)->stmt.line, 2);
	assert_int_equal(rule(state, 3)->stmt.count, MS_COUNT_ALWAYS);
	assert_int_equal(rule(state, 4)->stmt.count, MS_COUNT_MAYBE);
}

static void test_integers(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(parse(f, "will_return(read, -7); will_return(read, 0x10)\n"
				  "will_return(read, 010); will_return(open, O_CREAT|O_EXCL|1)\n"
				  "will_return(read, true); will_return(read, ENOENT)\n"
				  "will_return(read, -EIO)"),
			 0);
	assert_int_equal(rule(state, 0)->value, -7);
	assert_int_equal(rule(state, 1)->value, 16);
	assert_int_equal(rule(state, 2)->value, 8);
	assert_int_equal(rule(state, 3)->value, 0x40 | 0x80 | 1);
	assert_int_equal(rule(state, 4)->value, 1);
	assert_int_equal(rule(state, 5)->value, ENOENT);
	assert_int_equal(rule(state, 6)->value, -EIO);
	expect_error(state, "will_return(read, -bogus)", 1, 20,
		     "expected a number or a named constant after '-'");
}

static void test_will_fail(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(parse(f, "will_fail(read)\nwill_fail(write, ENOSPC)\n"
				  "will_fail(getaddrinfo, EAI_AGAIN)\nwill_fail_count(open, EACCES, 2)\n"
				  "will_fail(malloc)\nwill_fail(read, errno=EINTR)"),
			 0);
	assert_int_equal(rule(state, 0)->kind, MS_R_FAIL);
	assert_int_equal(rule(state, 0)->value, -1);
	assert_int_equal(rule(state, 0)->err, EIO);
	assert_true(rule(state, 0)->flags & MS_RF_ERRNO);
	assert_int_equal(rule(state, 1)->err, ENOSPC);
	/* getaddrinfo returns its error code and leaves errno alone */
	assert_int_equal(rule(state, 2)->value, -3 /* EAI_AGAIN */);
	assert_false(rule(state, 2)->flags & MS_RF_ERRNO);
	assert_int_equal(rule(state, 3)->stmt.count, 2);
	assert_int_equal(rule(state, 3)->err, EACCES);
	assert_int_equal(rule(state, 4)->value, 0);
	assert_int_equal(rule(state, 4)->err, ENOMEM);
	/* errno= alone is the error */
	assert_int_equal(rule(state, 5)->err, EINTR);
	/* an ERR and an errno= that disagree are refused; that agree are not */
	expect_error(state, "will_fail(read, EIO, errno=ENOSPC)", 1, 17,
		     "will_fail's error and errno= disagree (5 and 28): give one");
	assert_int_equal(parse(f, "will_fail(read, EIO, errno=EIO)"), 0);
	/* getaddrinfo takes EAI_* codes only: an errno would be returned as
	 * an unknown code */
	expect_error(state, "will_fail(getaddrinfo, ENOENT)", 1, 24,
		     "getaddrinfo() fails with an EAI_* code, not 2 (EAI_NONAME, EAI_AGAIN");
}

static void test_call_real(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(parse(f, "will_call_real(read); will_call_real(read, 2, in=\"cat\")"), 0);
	assert_int_equal(rule(state, 0)->kind, MS_R_REAL);
	assert_int_equal(rule(state, 0)->stmt.count, 1);
	assert_int_equal(rule(state, 1)->stmt.count, 2);
	assert_string_equal(pool(state, rule(state, 1)->stmt.in_glob), "cat");
}

static void test_options(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(parse(f, "will_return(read, 0, errno=EINTR, in=\"c*\", from=\"libfoo.so*\", delay=250ms)\n"
				  "will_return(read, 0, delay=2s); will_return(read, 0, delay=10us)"),
			 0);
	assert_true(rule(state, 0)->flags & MS_RF_ERRNO);
	assert_int_equal(rule(state, 0)->err, EINTR);
	assert_string_equal(pool(state, rule(state, 0)->stmt.in_glob), "c*");
	assert_string_equal(pool(state, rule(state, 0)->stmt.from_glob), "libfoo.so*");
	assert_int_equal(rule(state, 0)->delay_ns, 250000000);
	assert_int_equal(rule(state, 1)->delay_ns, 2000000000);
	assert_int_equal(rule(state, 2)->delay_ns, 10000);
}

static const struct ms_expect *expect(void **state, uint32_t i);

/* delay= on an expectation: the checked call waits (issue 47) */
static void test_expect_delay(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(parse(f, "expect_value(read, fd, 0, delay=250ms); expect_any(read, count)"), 0);
	assert_int_equal(expect(state, 0)->delay_us, 250000);
	assert_int_equal(expect(state, 1)->delay_us, 0);
}

static void test_buffer_output(void **state)
{
	struct fixture *f = *state;
	const struct ms_rule *r;
	const struct ms_out *o;

	assert_int_equal(parse(f, "will_return(read, _, buf=\"he\" \"llo\\n\\x41\\101\\0z\")"), 0);
	r = rule(state, 0);
	assert_true(r->flags & MS_RF_DEFAULT);
	assert_int_equal(r->rd_kind, MS_RD_BYTES);
	assert_int_equal(r->nouts, 1);
	o = &f->spec.outs[r->outs_first];
	assert_int_equal(o->kind, MS_O_BYTES);
	assert_int_equal(o->param, 1);
	assert_int_equal(o->cap1, 2);
	assert_int_equal(o->len, 10);
	assert_memory_equal(pool(state, o->data), "hello\nAA\0z", 10);
}

static void test_struct_output(void **state)
{
	struct fixture *f = *state;
	const struct ms_out *o;
	struct timespec ts;

	assert_int_equal(parse(f, "will_return(clock_gettime, 0, *tp={1700000000, 5})\n"
				  "will_return(clock_gettime, 0, *tp={.tv_nsec = 7, .tv_sec = -1})\n"
				  "will_return(stat, 0, *statbuf={.st_size = 4096, .st_mode = S_IFREG|0644})"),
			 0);
	o = &f->spec.outs[rule(state, 0)->outs_first];
	assert_int_equal(o->kind, MS_O_STORE);
	assert_int_equal(o->len, sizeof(ts));
	memcpy(&ts, pool(state, o->data), sizeof(ts));
	assert_int_equal(ts.tv_sec, 1700000000);
	assert_int_equal(ts.tv_nsec, 5);
	o = &f->spec.outs[rule(state, 1)->outs_first];
	memcpy(&ts, pool(state, o->data), sizeof(ts));
	assert_int_equal(ts.tv_sec, -1);
	assert_int_equal(ts.tv_nsec, 7);
	assert_int_equal(f->spec.outs[rule(state, 2)->outs_first].kind, MS_O_STORE);
}

static void test_addrinfo_output(void **state)
{
	struct fixture *f = *state;
	const struct ms_out *o;
	struct ms_addr a[3];

	assert_int_equal(parse(f, "will_return(getaddrinfo, _, *res={\"10.1.2.3\", \"::1\", \"[2001:db8::1]:443\"})"), 0);
	o = &f->spec.outs[rule(state, 0)->outs_first];
	assert_int_equal(o->kind, MS_O_ADDRINFO);
	assert_int_equal(o->len, 3 * sizeof(struct ms_addr));
	memcpy(a, pool(state, o->data), sizeof(a));
	assert_int_equal(a[0].family, 2 /* AF_INET */);
	assert_memory_equal(a[0].addr, "\x0a\x01\x02\x03", 4);
	assert_int_equal(a[1].family, 10 /* AF_INET6 */);
	assert_int_equal(a[1].addr[15], 1);
	assert_int_equal(a[2].port, 443);
	assert_int_equal(rule(state, 0)->value, 0);
	expect_error(state, "will_return(getaddrinfo, 0, *res={\"not-an-ip\"})", 1, 35, "expected an IPv4 or IPv6 address");
	expect_error(state, "will_return(getaddrinfo, 0, *res={\"1.2.3.4:99999\"})", 1, 35, "expected an IPv4 or IPv6 address");
	expect_error(state, "will_return(getaddrinfo, 0, res={\"1.2.3.4\"})", 1, 29, "write *res=");
	expect_error(state, "will_return(getaddrinfo, 0, *res=\"1.2.3.4\")", 1, 34, "list of addresses");
}

static void test_passwd_value(void **state)
{
	struct fixture *f = *state;
	struct ms_passwd_rec rec;
	const struct ms_rule *r;

	assert_int_equal(parse(f, "will_return(getpwnam, {.pw_name = \"alice\", .pw_uid = 1000, .pw_dir = \"/d\"})"), 0);
	r = rule(state, 0);
	assert_true(r->flags & MS_RF_PASSWD);
	memcpy(&rec, pool(state, r->value_str), sizeof(rec));
	assert_string_equal(pool(state, rec.name), "alice");
	assert_string_equal(pool(state, rec.dir), "/d");
	assert_int_equal(rec.uid, 1000);
	assert_int_equal(rec.shell, 0);
	expect_error(state, "will_return(getpwuid, {.pw_home = \"/d\"})", 1, 25, "struct passwd has no field 'pw_home'");
	expect_error(state, "will_return(getpwuid, {.pw_uid = \"x\"})", 1, 34, "pw_uid needs a uid/gid");
	expect_error(state, "will_return(getuid, {\"x\"})", 1, 21, "expected an integer");
}

static void test_group_value(void **state)
{
	struct fixture *f = *state;
	struct ms_group_rec rec;
	const struct ms_rule *r;

	assert_int_equal(parse(f, "will_return(getgrgid, {.gr_name = \"devs\", .gr_gid = 77, .gr_mem = \"a,b\"})"), 0);
	r = rule(state, 0);
	assert_true(r->flags & MS_RF_GROUP);
	memcpy(&rec, pool(state, r->value_str), sizeof(rec));
	assert_string_equal(pool(state, rec.name), "devs");
	assert_string_equal(pool(state, rec.mem), "a,b");
	assert_int_equal(rec.gid, 77);
	expect_error(state, "will_return(getgrnam, {.gr_members = \"a\"})", 1, 25, "struct group has no field 'gr_members'");
	expect_error(state, "will_return(getgrnam, {.gr_mem = 5})", 1, 34, "gr_mem needs a string of members");
	expect_error(state, "will_return(getpwnam, {.gr_name = \"x\"})", 1, 25, "struct passwd has no field 'gr_name'");
}

static void test_repeat_and_file(void **state)
{
	struct fixture *f = *state;
	const struct ms_rule *r;
	const struct ms_out *o;

	assert_int_equal(parse(f, "will_return(read, _, buf=repeat(\"ab\", 3))"), 0);
	r = rule(state, 0);
	o = &f->spec.outs[r->outs_first];
	assert_int_equal(o->len, 6);
	assert_memory_equal(pool(state, o->data), "ababab", 6);
	expect_error(state, "will_return(read, _, buf=repeat(\"a\", -1))", 1, 38, "COUNT must be a number, 0 or more");
	expect_error(state, "will_return(read, _, buf=repeat(\"a\", 20000000))", 1, 26,
		     "more than 16777216 bytes");
	/* a count whose product wraps around must not pass for a small one */
	expect_error(state, "will_return(read, _, buf=repeat(repeat(\"a\", 524289), 288229826396946432))",
		     1, 26, "more than 16777216 bytes");
	expect_error(state, "will_return(read, _, buf=file(\"/nonexistent/x\"))", 1, 31, "cannot read: No such file");
	expect_error(state, "will_return(read, _, buf=file(3))", 1, 31, "file(PATH) needs a string");
	/* a parameter named file is still a parameter */
	assert_int_equal(parse(f, "expect_string(execvp, file, \"ls\")"), 0);
}

/* The parse's scratch is as long as the text: what repeat() and file()
 * make may be far longer, and a literal as long as the text fits. */
static void test_bytes_longer_than_text(void **state)
{
	struct fixture *f = *state;
	char path[] = "/tmp/test_parser.XXXXXX", text[128];
	const struct ms_out *o;
	char *big, *data = malloc(100000);
	size_t n;
	int fd;

	assert_non_null(data);
	assert_int_equal(parse(f, "will_return(read, _, buf=repeat(\"ab\", 100000))"), 0);
	o = &f->spec.outs[rule(state, 0)->outs_first];
	assert_int_equal(o->len, 200000);
	assert_memory_equal(pool(state, o->data) + 199996, "abab", 4);
	for (size_t i = 0; i < 100000; i++)
		data[i] = (char)('a' + i % 26);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, 100000), 100000);
	close(fd);
	snprintf(text, sizeof(text), "will_return(read, _, buf=file(\"%s\"))", path);
	assert_int_equal(parse(f, text), 0);
	unlink(path);
	o = &f->spec.outs[rule(state, 1)->outs_first];
	assert_int_equal(o->len, 100000);
	assert_memory_equal(pool(state, o->data), data, 100000);
	free(data);
	/* no newline after it: the literal ends one byte before the text */
	assert_int_equal(parse(f, "expect_string(open, pathname, \"\\x41b\\n\")"), 0);
	/* the longest literal, and one byte more */
	n = 16u << 20;
	big = malloc(n + 64);
	assert_non_null(big);
	for (int more = 0; more < 2; more++) {
		size_t k = (size_t)snprintf(big, 64, "will_return(read, _, buf=\"");

		memset(big + k, 'x', n + (size_t)more);
		k += n + (size_t)more;
		memcpy(big + k, "\")", 3);
		assert_int_equal(ms_parse(&f->spec, "t.mock", big, k + 2, &f->diag), more ? -EINVAL : 0);
		if (more)
			assert_non_null(strstr(f->diag.msg, "string too long (at most 16777216 bytes)"));
	}
	free(big);
}

static void test_time_mirrors_return(void **state)
{
	struct fixture *f = *state;
	const struct ms_rule *r;

	assert_int_equal(parse(f, "will_return(time, 1700000000)"), 0);
	r = rule(state, 0);
	assert_int_equal(r->nouts, 1);
	assert_int_equal(f->spec.outs[r->outs_first].kind, MS_O_RETSTORE);
	assert_int_equal(f->spec.outs[r->outs_first].len, 8);
}

static void test_strings_and_null(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(parse(f, "will_return(getenv, \"v\\tw\"); will_return(getenv, NULL)\n"
				  "will_return(fopen, NULL); will_return(free, _)\n"
				  "will_return(fgets, _, s=\"line\\n\")"),
			 0);
	assert_true(rule(state, 0)->flags & MS_RF_STRVAL);
	assert_string_equal(pool(state, rule(state, 0)->value_str), "v\tw");
	assert_false(rule(state, 1)->flags & MS_RF_STRVAL);
	assert_int_equal(rule(state, 1)->value, 0);
	assert_int_equal(rule(state, 4)->rd_kind, MS_RD_PARAM);
	assert_int_equal(f->spec.outs[rule(state, 4)->outs_first].kind, MS_O_STR);
}

static void test_aliases_and_comments(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(parse(f, "# a comment\n\n  will_fail(open64) # trailing\n"
				  "will_fail(__read_chk);;\nwill_return(\n\tgetuid,\n\t0\n)\n"),
			 0);
	assert_int_equal(f->spec.nrules, 3);
	assert_int_equal(rule(state, 0)->stmt.fn, MS_ID_open);
	assert_int_equal(rule(state, 0)->stmt.line, 3);
	assert_int_equal(rule(state, 0)->stmt.col, 3);
	assert_int_equal(rule(state, 1)->stmt.fn, MS_ID_read);
	assert_int_equal(rule(state, 2)->stmt.fn, MS_ID_getuid);
	assert_int_equal(rule(state, 2)->stmt.line, 5);
}

static void test_errors(void **state)
{
	expect_error(state, "will_fail(nosuchfn, EIO)", 1, 11, "unknown function 'nosuchfn'");
	expect_error(state, "will_return(getuid, \"x\")", 1, 21, "expected an integer, not a string");
	expect_error(state, "will_return(getuid)", 1, 1, "wrong number of arguments");
	expect_error(state, "will_return(getuid, 5000000000)", 1, 21, "does not fit in uid_t");
	expect_error(state, "will_return(read, 1, fd=3)", 1, 22, "not an output parameter");
	expect_error(state, "will_return(read, 1, nope=3)", 1, 22, "has no parameter 'nope'");
	expect_error(state, "will_return(read, 1, *buf=\"x\")", 1, 22, "without '*'");
	expect_error(state, "will_return(clock_gettime, 0, tp={1, 2})", 1, 31, "write *tp={...}");
	expect_error(state, "will_return(clock_gettime, 0, *tp={1, 1000000000})", 1, 39,
		     "tv_nsec = 1000000000 out of range");
	expect_error(state, "will_return(clock_gettime, 0, *tp={.tv_foo = 1})", 1, 37,
		     "has no field 'tv_foo'");
	expect_error(state, "will_return(read, _)", 1, 19, "number of bytes copied");
	expect_error(state, "will_return(getuid, _)", 1, 21, "has no meaning");
	expect_error(state, "will_fail(getpid)", 1, 11, "cannot fail");
	expect_error(state, "will_return(fopen, 3)", 1, 20, "only NULL");
	expect_error(state, "will_return(free, 0)", 1, 19, "returns void");
	expect_error(state, "will_return(fgets, \"line\")", 1, 20,
		     "fgets() returns its s argument: write will_return(fgets, _, s=\"...\")");
	expect_error(state, "will_return_count(getuid, 1, 0)", 1, 30, "COUNT must be");
	expect_error(state, "will_return(read, 0, in=\"x\", 3)", 1, 30, "positional value after");
	expect_error(state, "will_return(read, 0, delay=5)", 1, 28, "needs a duration");
	expect_error(state, "will_return(read, 0, delay=5h)", 1, 28, "invalid number");
	expect_error(state, "will_return(read, NOT_A_NAME)", 1, 19, "unknown name 'NOT_A_NAME'");
	expect_error(state, "will_return(read, 1", 1, 20,
		     "expected ')' at the end of the line, to close 'will_return(' (note: opened at 1:12)");
	/* a ')' missing at the end of line 1 is reported there, not at 2:1 */
	expect_error(state, "will_return(getuid, 0\nwill_return(getgid, 1)", 1, 22,
		     "expected ')' at the end of the line, to close 'will_return('");
	expect_error(state, "will_return(read, 0, delay=-1s)", 1, 29, "a duration cannot be negative: -1s");
	expect_error(state, "expect_value(read, fd, 3, errno=EIO)", 1, 27,
		     "expect_value takes no 'errno=': an expectation checks the call");
	expect_error(state, "expect_function_call(read, delay=1s)", 1, 28,
		     "expect_function_call takes no 'delay='");
	expect_error(state, "will_return(getenv, \"abc)", 1, 21, "unterminated string");
	expect_error(state, "will_return(getenv, \"\\q\")", 1, 22, "unknown escape");
	expect_error(state, "frobnicate(read)", 1, 1, "unknown statement 'frobnicate'");
	expect_error(state, "will_return(getuid, 1) will_return(getuid, 2)", 1, 24,
		     "expected ';' or a new line");
	expect_error(state, "will_return(getuid, 1)\n\n   will_fail(bogus)", 3, 14,
		     "unknown function 'bogus'");
	expect_error(state, "will_fail(read, \"EIO\")", 1, 17, "ERR must be an error name");
	expect_error(state, "will_return(read, 1 | \"x\")", 1, 23, "'|' joins integers");
	expect_error(state, "will_return(read, 1, errno=\"x\")", 1, 28, "errno= needs");
	expect_error(state, "will_return(read, 1, in=\"\")", 1, 25, "non-empty glob");
	expect_error(state, "will_return(read, 1) @", 1, 22, "unexpected character '@'");
}

static const struct ms_expect *expect(void **state, uint32_t i)
{
	struct fixture *f = *state;

	assert_true(i < f->spec.nexpects);
	return &f->spec.expects[i];
}

static void test_expectations(void **state)
{
	struct fixture *f = *state;
	const struct ms_expect *x;
	int64_t set[3];

	assert_int_equal(parse(f, "expect_value(read, fd, 3)\n"
				  "expect_string_count(open, pathname, \"/etc/hostname\", -1)\n"
				  "expect_memory(write, buf, \"ab\\0cd\", 4)\n"
				  "expect_in_range(read, count, 1, 4096)\n"
				  "expect_not_in_set_count(socket, domain, {AF_INET, AF_INET6, 1}, 2, in=\"curl\")\n"
				  "expect_any(open, flags); expect_not_value(open, pathname, NULL)"),
			 0);
	assert_int_equal(f->spec.nexpects, 7);
	assert_int_equal(f->spec.nrules, 0);
	x = expect(state, 0);
	assert_int_equal(x->stmt.fn, MS_ID_read);
	assert_int_equal(x->kind, MS_X_VALUE);
	assert_int_equal(x->param, 0);
	assert_int_equal(x->psize, 4);
	assert_true(x->psigned);
	assert_int_equal(x->lo, 3);
	assert_int_equal(x->stmt.count, 1);
	x = expect(state, 1);
	assert_int_equal(x->kind, MS_X_STRING);
	assert_int_equal(x->stmt.count, MS_COUNT_ALWAYS);
	assert_int_equal(x->len, 13);
	assert_string_equal(pool(state, x->data), "/etc/hostname");
	x = expect(state, 2);
	assert_int_equal(x->kind, MS_X_MEMORY);
	assert_int_equal(x->len, 4);
	assert_memory_equal(pool(state, x->data), "ab\0c", 4);
	x = expect(state, 3);
	assert_int_equal(x->kind, MS_X_RANGE);
	assert_int_equal(x->psize, 8);
	assert_false(x->psigned);
	assert_int_equal(x->lo, 1);
	assert_int_equal(x->hi, 4096);
	x = expect(state, 4);
	assert_int_equal(x->kind, MS_X_NOT_SET);
	assert_int_equal(x->stmt.count, 2);
	assert_int_equal(x->len, 3);
	memcpy(set, pool(state, x->data), sizeof(set));
	assert_int_equal(set[0], 2);
	assert_int_equal(set[1], 10);
	assert_int_equal(set[2], 1);
	assert_string_equal(pool(state, x->stmt.in_glob), "curl");
	assert_int_equal(expect(state, 5)->kind, MS_X_ANY);
	assert_int_equal(expect(state, 6)->kind, MS_X_NOT_VALUE);
	assert_int_equal(expect(state, 6)->lo, 0);
	assert_int_equal(expect(state, 6)->stmt.line, 6);
	assert_int_equal(expect(state, 6)->stmt.col, 26);
}

static void test_call_order(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(parse(f, "expect_function_call(open); expect_function_calls(read, 3)\n"
				  "ignore_function_calls(close); expect_no_call(unlink)"),
			 0);
	assert_int_equal(f->spec.norders, 4);
	assert_int_equal(f->spec.orders[0].stmt.fn, MS_ID_open);
	assert_int_equal(f->spec.orders[0].kind, MS_ORD_CALL);
	assert_int_equal(f->spec.orders[0].stmt.count, 1);
	assert_int_equal(f->spec.orders[1].stmt.count, 3);
	assert_int_equal(f->spec.orders[2].kind, MS_ORD_IGNORE);
	assert_int_equal(f->spec.orders[3].kind, MS_ORD_NO_CALL);
	assert_int_equal(f->spec.orders[3].stmt.line, 2);
}

/* One statement's table entry: rules, expectations or call order. */
struct compiled {
	int table;		/* 0 rule, 1 expectation, 2 call order */
	const struct ms_stmt *stmt;
	unsigned kind;
	int64_t lo, hi, value;
	uint32_t len, param;
	const char *data;
};

static void compile_one(const char *text, struct compiled *out)
{
	struct fixture f;

	memset(&f, 0, sizeof(f));
	ms_spec_init(&f.spec, realloc, free);
	if (parse(&f, text))
		fail_msg("'%s' does not compile: %s", text, f.diag.msg);
	if (f.spec.nrules + f.spec.nexpects + f.spec.norders != 1)
		fail_msg("'%s' compiles to %u statements", text,
			 f.spec.nrules + f.spec.nexpects + f.spec.norders);
	memset(out, 0, sizeof(*out));
	/* copies: the store goes with the spec */
	if (f.spec.nrules) {
		static struct ms_stmt hdr;
		const struct ms_rule *r = &f.spec.rules[0];

		hdr = r->stmt;
		*out = (struct compiled){ 0, &hdr, r->kind, 0, 0, r->value, r->nouts, 0, NULL };
	} else if (f.spec.nexpects) {
		static struct ms_stmt hdr;
		static char data[64];
		const struct ms_expect *x = &f.spec.expects[0];

		hdr = x->stmt;
		memcpy(data, f.spec.pool + x->data, x->len * 8 < sizeof(data) ? x->len * 8 : sizeof(data));
		*out = (struct compiled){ 1, &hdr, x->kind, x->lo, x->hi, 0, x->len, x->param, data };
	} else {
		static struct ms_stmt hdr;

		hdr = f.spec.orders[0].stmt;
		*out = (struct compiled){ 2, &hdr, f.spec.orders[0].kind, 0, 0, 0, 0, 0, NULL };
	}
	ms_spec_fini(&f.spec);
}

/* CMocka's other spellings compile to the statement they stand for. */
static void test_cmocka_names(void **state)
{
	static const char *const pairs[][2] = {
		{ "expect_any_always(open, pathname)", "expect_any_count(open, pathname, -1)" },
		{ "expect_int_value(read, fd, 3)", "expect_value(read, fd, 3)" },
		{ "expect_uint_value(read, count, 3)", "expect_value(read, count, 3)" },
		{ "expect_int_value_count(read, fd, 3, 2)", "expect_value_count(read, fd, 3, 2)" },
		{ "expect_uint_value_count(read, count, 3, -1)", "expect_value_count(read, count, 3, -1)" },
		{ "expect_int_not_value(read, fd, 3)", "expect_not_value(read, fd, 3)" },
		{ "expect_uint_not_value(read, count, 3)", "expect_not_value(read, count, 3)" },
		{ "expect_int_not_value_count(read, fd, 3, 2)", "expect_not_value_count(read, fd, 3, 2)" },
		{ "expect_uint_not_value_count(read, count, 3, 2)", "expect_not_value_count(read, count, 3, 2)" },
		{ "expect_int_in_range(read, fd, -1, 9)", "expect_in_range(read, fd, -1, 9)" },
		{ "expect_uint_in_range(read, count, 1, 9)", "expect_in_range(read, count, 1, 9)" },
		{ "expect_int_in_range_count(read, fd, 0, 9, 2)", "expect_in_range_count(read, fd, 0, 9, 2)" },
		{ "expect_uint_in_range_count(read, count, 0, 9, -2)", "expect_in_range_count(read, count, 0, 9, -2)" },
		{ "expect_int_not_in_range(read, fd, 0, 9)", "expect_not_in_range(read, fd, 0, 9)" },
		{ "expect_uint_not_in_range(read, count, 0, 9)", "expect_not_in_range(read, count, 0, 9)" },
		{ "expect_int_not_in_range_count(read, fd, 0, 9, 3)", "expect_not_in_range_count(read, fd, 0, 9, 3)" },
		{ "expect_uint_not_in_range_count(read, count, 0, 9, 3)", "expect_not_in_range_count(read, count, 0, 9, 3)" },
		{ "expect_int_in_set(read, fd, {0, 3})", "expect_in_set(read, fd, {0, 3})" },
		{ "expect_uint_in_set(read, count, {1, 4})", "expect_in_set(read, count, {1, 4})" },
		{ "expect_int_in_set_count(read, fd, {0, 3}, 2)", "expect_in_set_count(read, fd, {0, 3}, 2)" },
		{ "expect_uint_in_set_count(read, count, {1, 4}, 2)", "expect_in_set_count(read, count, {1, 4}, 2)" },
		{ "expect_int_not_in_set(read, fd, {0, 3})", "expect_not_in_set(read, fd, {0, 3})" },
		{ "expect_uint_not_in_set(read, count, {1, 4})", "expect_not_in_set(read, count, {1, 4})" },
		{ "expect_int_not_in_set_count(read, fd, {0}, 2)", "expect_not_in_set_count(read, fd, {0}, 2)" },
		{ "expect_uint_not_in_set_count(read, count, {1}, 2)", "expect_not_in_set_count(read, count, {1}, 2)" },
		{ "will_return_int(getpid, 7)", "will_return(getpid, 7)" },
		{ "will_return_uint(geteuid, 7)", "will_return(geteuid, 7)" },
		{ "will_return_ptr(fopen, NULL)", "will_return(fopen, NULL)" },
		{ "will_return_double(getpid, 7)", "will_return(getpid, 7)" },
		{ "will_return_float(getpid, 7)", "will_return(getpid, 7)" },
		{ "will_return_int_count(getpid, 7, 3)", "will_return_count(getpid, 7, 3)" },
		{ "will_return_uint_count(geteuid, 7, 3)", "will_return_count(geteuid, 7, 3)" },
		{ "will_return_ptr_count(fopen, NULL, 2)", "will_return_count(fopen, NULL, 2)" },
		{ "will_return_float_count(getpid, 7, 2)", "will_return_count(getpid, 7, 2)" },
		{ "will_return_double_count(getpid, 7, 2)", "will_return_count(getpid, 7, 2)" },
		{ "will_return_int_always(getpid, 7)", "will_return_always(getpid, 7)" },
		{ "will_return_uint_always(geteuid, 7)", "will_return_always(geteuid, 7)" },
		{ "will_return_ptr_always(fopen, NULL)", "will_return_always(fopen, NULL)" },
		{ "will_return_float_always(getpid, 7)", "will_return_always(getpid, 7)" },
		{ "will_return_double_always(getpid, 7)", "will_return_always(getpid, 7)" },
		{ "will_return_int_maybe(getpid, 7)", "will_return_maybe(getpid, 7)" },
		{ "will_return_uint_maybe(geteuid, 7)", "will_return_maybe(geteuid, 7)" },
		{ "will_return_ptr_maybe(fopen, NULL)", "will_return_maybe(fopen, NULL)" },
		{ "will_return_float_maybe(getpid, 7)", "will_return_maybe(getpid, 7)" },
		{ "will_return_double_maybe(getpid, 7)", "will_return_maybe(getpid, 7)" },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct compiled a, b;
		struct ms_stmt ha;
		char da[64] = { 0 };

		compile_one(pairs[i][0], &a);
		ha = *a.stmt;
		if (a.data)
			memcpy(da, a.data, sizeof(da));
		compile_one(pairs[i][1], &b);
		if (a.table != b.table || a.kind != b.kind || ha.fn != b.stmt->fn ||
		    ha.count != b.stmt->count || a.lo != b.lo || a.hi != b.hi || a.value != b.value ||
		    a.len != b.len || a.param != b.param || (b.data && memcmp(da, b.data, sizeof(da))))
			fail_msg("'%s' is not '%s': table %d/%d kind %u/%u count %d/%d", pairs[i][0],
				 pairs[i][1], a.table, b.table, a.kind, b.kind, ha.count, b.stmt->count);
	}
	/* one or more calls at its place: no other statement says it */
	assert_int_equal(parse(f, "expect_function_call_any(read)"), 0);
	assert_int_equal(f->spec.norders, 1);
	assert_int_equal(f->spec.orders[0].kind, MS_ORD_CALL);
	assert_int_equal(f->spec.orders[0].stmt.count, MS_COUNT_ALWAYS);
	assert_int_equal(f->spec.orders[0].stmt.fn, MS_ID_read);
	expect_error(state, "expect_function_call_any(read, 2)", 1, 1,
		     "wrong number of arguments: expect_function_call_any(FN)");
	/* the report quotes what the user wrote */
	assert_int_equal(parse(f, "expect_any_always(open, pathname)"), 0);
	assert_string_equal(pool(state, expect(state, 0)->stmt.text), "expect_any_always(open, pathname)");
	/* the spellings' own usage in their errors */
	expect_error(state, "expect_any_always(open, pathname, 2)", 1, 1,
		     "wrong number of arguments: expect_any_always(FN, PARAM)");
	expect_error(state, "will_return_int_count(getpid, 7)", 1, 1,
		     "wrong number of arguments: will_return_int_count(FN, VALUE, COUNT [, ...])");
	/* CMocka's names with no mockshim statement: unknown, with what to write */
	expect_error(state, "expect_double(cos, x, 0.5, 0.001)", 1, 1,
		     "unknown statement 'expect_double' (CMocka 2.0 compares within an epsilon; "
		     "mockshim compares a double bit for bit: expect_value)");
	expect_error(state, "will_set_parameter(chef_cook, dish_out, \"x\")", 1, 1,
		     "unknown statement 'will_set_parameter' (CMocka 2.0's output of a handler");
	expect_error(state, "will_set_errno_always(read, EIO)", 1, 1,
		     "unknown statement 'will_set_errno_always' (CMocka 2.0's: give errno=E");
	/* expect_check: a handler module's check function, by name */
	{
		uint32_t b = f->spec.nexpects;

		assert_int_equal(parse(f, "expect_check(read, fd, is_ok); expect_check_data(read, count, at_most, 4)\n"
					  "expect_check_count(read, fd, is_ok, \"x\", 2)"),
				 0);
		assert_int_equal(expect(state, b)->kind, MS_X_CHECK);
		assert_string_equal(pool(state, expect(state, b)->data), "is_ok");
		assert_int_equal(expect(state, b + 1)->lo, 4);
		assert_int_equal(expect(state, b + 2)->stmt.count, 2);
		assert_int_equal(expect(state, b + 2)->hi, 1);
		assert_string_equal(pool(state, (uint32_t)expect(state, b + 2)->lo), "x");
	}
	expect_error(state, "expect_check(read, fd, 3)", 1, 24, "expected the name of a check function");
	expect_error(state, "expect_check(SYS_read, fd, f)", 1, 1, "a system call is checked by mockrun's supervisor");
	expect_error(state, "expect_assert_failure(read)", 1, 1, "a program run whole has none");
	/* a name that is still unknown: the same error as any other */
	expect_error(state, "expect_any_sometimes(open, pathname)", 1, 1,
		     "unknown statement 'expect_any_sometimes'");
}

static void test_expectation_errors(void **state)
{
	expect_error(state, "expect_value(read, nofd, 3)", 1, 20, "read() has no parameter 'nofd' (parameters: fd, buf, count)");
	expect_error(state, "expect_value(read, 3, 3)", 1, 20, "expected a parameter name of read()");
	expect_error(state, "expect_value(read, fd, \"3\")", 1, 24, "expected an integer, not a string");
	expect_error(state, "expect_value(read, fd, 5000000000)", 1, 24, "does not fit in int");
	expect_error(state, "expect_value(read, buf, \"x\")", 1, 25, "use expect_string or expect_memory");
	expect_error(state, "expect_string(read, fd, \"x\")", 1, 21, "not a pointer: use expect_value");
	expect_error(state, "expect_string(open, pathname, \"a\\0b\")", 1, 31, "NUL byte: use expect_memory");
	expect_error(state, "expect_memory(write, buf, \"ab\", 3)", 1, 33, "SIZE must be 1..2");
	expect_error(state, "expect_in_range(read, count, 9, 1)", 1, 30, "MIN 9 is greater than MAX 1");
	expect_error(state, "expect_in_range(open, pathname, 1, 2)", 1, 23, "not an integer");
	expect_error(state, "expect_in_set(read, fd, 3)", 1, 25, "expected a set of integers");
	expect_error(state, "expect_in_set(read, fd, {.a = 1})", 1, 27, "a set has no field names");
	expect_error(state, "expect_in_set(read, fd, {\"x\"})", 1, 26, "set members must be integers");
	expect_error(state, "expect_value(read, fd)", 1, 1, "wrong number of arguments: expect_value(FN, PARAM, VALUE)");
	expect_error(state, "expect_value_count(read, fd, 3, 0)", 1, 33, "COUNT must be");
	expect_error(state, "expect_value(read, fd, 3, errno=EIO)", 1, 27, "takes no 'errno='");
	expect_error(state, "expect_function_calls(read, -1)", 1, 29, "COUNT must be a positive integer");
	expect_error(state, "expect_function_call(nosuch)", 1, 22, "unknown function 'nosuch'");
	expect_error(state, "expect_no_call(read, 3)", 1, 1, "wrong number of arguments");
	expect_error(state, "expect_any(read, fd, BOGUS_NAME)", 1, 22, "unknown name 'BOGUS_NAME'");
	expect_error(state, "expect_any(read, fd, 3)", 1, 1, "wrong number of arguments");
	expect_error(state, "expect_value(read, fd, BOGUS_NAME)", 1, 24, "unknown name 'BOGUS_NAME'");
}

/* The fake clock is int64 nanoseconds since 1970: 1677-09-21 00:12:44 to
 * 2262-04-11 23:47:16 UTC; past either end it used to wrap silently. */
static void test_fake_time_range(void **state)
{
	struct fixture *f = *state;

	expect_error(state, "fake_time(\"2300-01-01\")", 1, 12,
		     "time \"2300-01-01\" is out of range: a fake clock shows 1677-09-21 00:12:44 "
		     "to 2262-04-11 23:47:16 UTC");
	expect_error(state, "fake_time(\"0001-01-01\")", 1, 12, "is out of range");
	expect_error(state, "fake_time(\"2262-04-12\")", 1, 12, "is out of range");
	expect_error(state, "fake_time(\"1677-09-20\")", 1, 12, "is out of range");
	expect_error(state, "fake_time(\"1677-09-21 00:12:43\")", 1, 12, "is out of range");
	expect_error(state, "\n  fake_time(\"2262-04-11 23:47:17\", rate=0)", 2, 14, "is out of range");
	expect_error(state, "fake_time(\"2262-04-11 23:47:16.9\")", 1, 12, "is out of range");
	expect_error(state, "fake_time(\"2262-04-11 23:00:00-01:00\")", 1, 12, "is out of range");
	expect_error(state, "fake_time(\"@9223372037\")", 1, 12, "is out of range");
	expect_error(state, "fake_time(\"@-9999999999999\")", 1, 12, "is out of range");
	/* an offset from now: about 291 years ahead (an offset
	 * back, at most 292 years, cannot go past 1677 from now) */
	expect_error(state, "fake_time(\"+53000d1280000h\")", 1, 12,
		     "time \"+53000d1280000h\" is out of range: from now it is 23");
	expect_error(state, "fake_time(\"+9999999999999s\")", 1, 13, "offset too large");
	assert_int_equal(f->spec.nftimes, 0);

	assert_int_equal(parse(f, "fake_time(\"2262-04-11T00:00:00\", in=\"a\")\n"
				  "fake_time(\"2262-04-11 23:47:16.854775807\", in=\"b\")\n"
				  "fake_time(\"1677-09-21 00:12:44\", in=\"c\")\n"
				  "fake_time(\"@-9223372036.854775807\", in=\"d\")\n"
				  "fake_time(\"+53000d\", in=\"e\")\n"
				  "fake_time(\"-53000d1280000h\", in=\"f\")"),
			 0);
	assert_int_equal(f->spec.nftimes, 6);
	assert_true(f->spec.ftimes[0].when_ns == 9223286400ll * 1000000000);
	assert_true(f->spec.ftimes[1].when_ns == INT64_MAX);
	assert_true(f->spec.ftimes[2].when_ns == -9223372036ll * 1000000000);
	assert_true(f->spec.ftimes[3].when_ns == -INT64_MAX);
	assert_true(f->spec.ftimes[4].when_ns == 53000ll * 86400 * 1000000000);
	assert_true(f->spec.ftimes[5].when_ns == -(53000ll * 86400 + 1280000ll * 3600) * 1000000000);
}

static void test_failed_parse_keeps_nothing(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(parse(f, "will_return(getuid, 1)"), 0);
	assert_int_equal(parse(f, "will_return(getuid, 2)\nwill_fail(bogus)"), -EINVAL);
	assert_int_equal(f->spec.nrules, 1);
	assert_int_equal(f->spec.rules[0].value, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_will_return),
		T(test_counts),
		T(test_integers),
		T(test_will_fail),
		T(test_call_real),
		T(test_options),
		T(test_expect_delay),
		T(test_buffer_output),
		T(test_struct_output),
		T(test_addrinfo_output),
		T(test_passwd_value),
		T(test_group_value),
		T(test_repeat_and_file),
		T(test_bytes_longer_than_text),
		T(test_time_mirrors_return),
		T(test_strings_and_null),
		T(test_aliases_and_comments),
		T(test_errors),
		T(test_expectations),
		T(test_call_order),
		T(test_expectation_errors),
		T(test_cmocka_names),
		T(test_fake_time_range),
		T(test_failed_parse_keeps_nothing),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
