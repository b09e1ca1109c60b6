/* SPDX-License-Identifier: MIT */
/* Every catalog row is well formed: prototype, outputs, failure convention. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "catalog/catalog.h"
#include "channel/channel.h"

/* A row's number of parameters is its (args)' length. */
/* The first lookups of a process scan the catalog, the later ones use
 * the table built then: every name gets the same answer from both (this
 * test runs first, so that its first lookups are the scans). */
static void test_lookup_paths(void **state)
{
	static const char *const names[] = {
		"open64", "__xstat", "read", "getpid", "dlsym", "rea", "openat64", "fstatat64",
		"__fxstat64", "readdir64", "clock_gettime", "syscall", "__read_chk", "stat", "stat64",
		"getuid",
	};
	int first[16];

	(void)state;
	for (size_t i = 0; i < 16; i++)
		first[i] = ms_catalog_find(names[i], strlen(names[i]));
	assert_int_equal(first[0], MS_ID_open);
	assert_int_equal(first[1], MS_ID_stat);
	assert_int_equal(first[2], MS_ID_read);
	assert_int_equal(first[4], -1);
	assert_int_equal(first[5], -1);
	assert_int_equal(first[12], MS_ID_read);
	assert_int_equal(first[15], MS_ID_getuid);
	assert_int_equal(ms_catalog_find("", 0), -1);
	/* the table, built by now */
	for (unsigned i = 0; i < MS_FN_COUNT; i++) {
		const struct ms_fn_meta *m = ms_catalog_get(i);

		assert_int_equal(ms_catalog_find(m->name, strlen(m->name)), (int)i);
	}
	for (size_t i = 0; i < 16; i++)
		assert_int_equal(ms_catalog_find(names[i], strlen(names[i])), first[i]);
}

static void test_nargs(void **state)
{
	(void)state;
	assert_int_equal(MS_NARGS_OF(()), 0);
	assert_int_equal(MS_NARGS_OF((fd)), 1);
	assert_int_equal(MS_NARGS_OF((fd, buf, count)), 3);
	assert_int_equal(MS_NARGS_OF((a, b, c, d, e, f, g, h)), 8);
	assert_int_equal(ms_catalog_nparams((unsigned)ms_catalog_find("read", 4)), 3);
	assert_int_equal(ms_catalog_nparams((unsigned)ms_catalog_find("getpid", 6)), 0);
}

static int parse_type(const char *s, unsigned flags, struct ms_ctype *ct, char *msg, size_t cap)
{
	struct ms_ctype_err err = { msg, cap, NULL };

	return ms_ctype_parse(s, s + strlen(s), ct, NULL, NULL, NULL, flags, &err);
}

/* One type table: dev_t is an unsigned 64-bit integer, not a silent
 * int64; a name the table does not know is refused, in the catalog's
 * strict mode even behind a pointer. */
static void test_type_table(void **state)
{
	struct ms_ctype ct;
	char msg[200];

	(void)state;
	assert_int_equal(parse_type("dev_t", MS_CT_STRICT, &ct, msg, sizeof(msg)), 0);
	assert_int_equal(ct.t.tclass, MS_T_UINT);
	assert_int_equal(ct.t.size, 8);
	assert_int_equal(parse_type("const struct statx *", MS_CT_STRICT, &ct, msg, sizeof(msg)), 0);
	assert_int_equal(ct.t.tclass, MS_T_PTR);
	assert_string_equal(ct.t.strct, "statx");
	assert_int_equal(parse_type("const char *", MS_CT_STRICT, &ct, msg, sizeof(msg)), 0);
	assert_int_equal(ct.t.tclass, MS_T_STR);
	assert_int_equal(parse_type("unsigned long int", MS_CT_STRICT, &ct, msg, sizeof(msg)), 0);
	assert_int_equal(ct.t.tclass, MS_T_UINT);
	assert_int_equal(ct.t.size, 8);
	assert_int_equal(parse_type("double", 0, &ct, msg, sizeof(msg)), 0);
	assert_int_equal(ct.t.tclass, MS_T_DOUBLE);

	assert_int_equal(parse_type("foo_t", MS_CT_STRICT, &ct, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "unknown type 'foo_t'"));
	assert_int_equal(parse_type("foo_t", 0, &ct, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(parse_type("foo_t *", MS_CT_STRICT, &ct, msg, sizeof(msg)), -EINVAL);
	/* a declared prototype may point to what it cannot know: opaque */
	assert_int_equal(parse_type("foo_t *", 0, &ct, msg, sizeof(msg)), 0);
	assert_int_equal(ct.t.tclass, MS_T_PTR);
	assert_int_equal(parse_type("FILE", MS_CT_STRICT, &ct, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "FILE *"));
}

/* A handler module's declaration reads its types with the same table:
 * an unknown scalar is refused, not modelled as an int64. */
static void test_module_types(void **state)
{
	struct ms_fn_meta m = { .ret_text = "int", .proto = "(dev_t dev, mode_t mode)" };
	struct ms_fn_meta bad = { .ret_text = "int", .proto = "(foo_t x)" };
	struct ms_fn_meta badret = { .ret_text = "foo_t", .proto = "(int x)" };

	(void)state;
	assert_int_equal(ms_meta_parse(&m), 0);
	assert_int_equal(m.nparams, 2);
	assert_int_equal(m.params[0].type.tclass, MS_T_UINT);
	assert_int_equal(m.params[0].type.size, 8);
	assert_int_equal(ms_meta_parse(&bad), -1);
	assert_int_equal(ms_meta_parse(&badret), -1);
}

static void test_rows_parse(void **state)
{
	(void)state;
	for (unsigned i = 0; i < MS_FN_COUNT; i++) {
		const struct ms_fn_meta *m = ms_catalog_get(i);

		if (m->nparams == 0xff)
			fail_msg("%s: nparams disagrees with the prototype %s", m->name, m->proto);
		if (m->nouts == 0xff)
			fail_msg("%s: bad outputs \"%s\"", m->name, m->outs_text);
		for (unsigned k = 0; k < m->nparams; k++) {
			if (!m->params[k].name[0])
				fail_msg("%s: parameter %u has no name", m->name, k);
			if (!m->params[k].type.text[0])
				fail_msg("%s: parameter %s has no type", m->name, m->params[k].name);
		}
		for (unsigned k = 0; k < m->nouts; k++) {
			const struct ms_out_desc *o = &m->outs[k];

			if (o->param >= m->nparams)
				fail_msg("%s: output %u names no parameter", m->name, k);
			/* addrinfo and passwd_r are built by the shim, not
			 * copied from a literal */
			if (o->kind == MS_OK_STRUCT && !ms_struct_find(o->strct) &&
			    strcmp(o->strct, "addrinfo") != 0 && strcmp(o->strct, "passwd_r") != 0 &&
			    strcmp(o->strct, "sockaddr") != 0 && strcmp(o->strct, "revents") != 0)
				fail_msg("%s: output struct %s is unknown", m->name, o->strct);
			if (o->kind == MS_OK_STRUCT && strcmp(o->strct, "sockaddr") == 0 &&
			    (o->param + 1u >= m->nparams ||
			     strcmp(m->params[o->param + 1].type.text, "socklen_t *") != 0))
				fail_msg("%s: *%s:sockaddr is not followed by a socklen_t *", m->name,
					 m->params[o->param].name);
			if ((o->kind == MS_OK_BYTES || o->kind == MS_OK_STR) && o->cap1 >= m->nparams &&
			    o->cap1 != MS_CAP_OWN)
				fail_msg("%s: output %s has no capacity", m->name,
					 m->params[o->param].name);
		}
		if (m->rd_kind == MS_RD_PARAM && m->rd_param >= m->nparams)
			fail_msg("%s: ret= names no parameter", m->name);
		if (m->fail_kind == MS_FK_ERRNO && m->fail_errno && !ms_errno_name(m->fail_errno))
			fail_msg("%s: default errno %d has no name", m->name, m->fail_errno);
		assert_int_equal(ms_catalog_find(m->name, strlen(m->name)), (int)i);
	}
}

static void test_man_page_names(void **state)
{
	const struct ms_fn_meta *m;

	(void)state;
	m = ms_catalog_get(MS_ID_open);
	assert_string_equal(m->params[0].name, "pathname");
	assert_string_equal(m->params[1].name, "flags");
	assert_string_equal(m->params[2].name, "mode");
	m = ms_catalog_get(MS_ID_clock_gettime);
	assert_string_equal(m->params[0].name, "clockid");
	assert_string_equal(m->params[1].name, "tp");
	assert_string_equal(m->params[1].type.strct, "timespec");
	m = ms_catalog_get(MS_ID_getaddrinfo);
	assert_string_equal(m->params[3].name, "res");
	assert_int_equal(m->fail_kind, MS_FK_RC);
	m = ms_catalog_get(MS_ID_read);
	assert_int_equal(m->params[1].type.tclass, MS_T_PTR);
	assert_int_equal(m->ret.tclass, MS_T_INT);
	assert_int_equal(m->fail_errno, EIO);
	m = ms_catalog_get(MS_ID_getenv);
	assert_int_equal(m->ret.tclass, MS_T_STR);
	m = ms_catalog_get(MS_ID_getuid);
	assert_int_equal(m->ret.tclass, MS_T_UINT);
	assert_int_equal(m->ret.size, 4);
	assert_int_equal(m->fail_kind, MS_FK_NEVER);
}

static void test_aliases(void **state)
{
	static const struct {
		const char *alias;
		int canon;
	} cases[] = {
		{ "open64", MS_ID_open },	  { "__open_2", MS_ID_open },
		{ "__open64_2", MS_ID_open },	  { "__read_chk", MS_ID_read },
		{ "pread64", MS_ID_pread },	  { "pwrite64", MS_ID_pwrite },
		{ "stat64", MS_ID_stat },	  { "__xstat", MS_ID_stat },
		{ "__fxstat64", MS_ID_fstat },	  { "__lxstat", MS_ID_lstat },
		{ "fstatat64", MS_ID_fstatat },	  { "fopen64", MS_ID_fopen },
		{ "__fgets_chk", MS_ID_fgets },	  { "sendfile64", MS_ID_sendfile },
		{ "readdir64", MS_ID_readdir },	  { "openat64", MS_ID_openat },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(ms_catalog_find(cases[i].alias, strlen(cases[i].alias)),
				 cases[i].canon);
	assert_int_equal(ms_catalog_find("dlsym", 5), -1);
	assert_int_equal(ms_catalog_find("syscall", 7), -1);
	assert_int_equal(ms_catalog_find("rea", 3), -1);
}

static void test_required_rows(void **state)
{
	/* The foundation's list: every one must be a canonical row or alias. */
	static const char *const names[] = {
		"open", "open64", "__open_2", "__open64_2", "openat", "close", "read",
		"__read_chk", "write", "pread", "pread64", "pwrite", "pwrite64",
		"copy_file_range", "sendfile", "lseek", "fsync", "stat", "fstat", "lstat",
		"access", "unlink", "rename", "mkdir", "rmdir", "opendir", "readdir", "fopen",
		"fopen64", "fclose", "fread", "fwrite", "fgets", "malloc", "calloc", "realloc",
		"free", "getuid", "geteuid", "getgid", "getegid", "getpwuid", "gethostname",
		"uname", "time", "gettimeofday", "clock_gettime", "nanosleep", "getenv",
		"getrandom", "getentropy", "socket", "connect", "bind", "listen", "accept",
		"send", "recv", "getaddrinfo", "poll", "fork", "execve", "getpid",
		/* what rm, mkdir -p and mv call instead (coreutils 9) */
		"unlinkat", "mkdirat", "renameat",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (ms_catalog_find(names[i], strlen(names[i])) < 0)
			fail_msg("%s is missing from the catalog", names[i]);
}

/* Every function of DESIGN.md section 2, tier 1 (the ~150 of the groups). */
static void test_design_rows(void **state)
{
	static const char *const names[] = {
		"open", "openat", "creat", "close", "read", "pread", "write", "pwrite", "readv",
		"writev", "lseek", "copy_file_range", "sendfile", "splice", "fsync", "fdatasync",
		"ftruncate", "truncate", "stat", "fstat", "lstat", "fstatat", "statx", "access",
		"faccessat", "unlink", "unlinkat", "rename", "renameat", "mkdir", "mkdirat", "rmdir",
		"link", "symlink", "readlink", "chmod", "fchmod", "chown", "fchown", "opendir",
		"fdopendir", "readdir", "closedir", "dup", "dup2", "dup3", "pipe", "pipe2", "fcntl",
		"ioctl", "flock", "mmap", "munmap", "fopen", "fdopen", "freopen", "fclose", "fread",
		"fwrite", "fgets", "fputs", "fgetc", "fputc", "getline", "getdelim", "fflush", "fseek",
		"ftell", "fprintf", "printf", "puts", "malloc", "calloc", "realloc", "free",
		"posix_memalign", "aligned_alloc", "strdup", "strndup", "fork", "execve", "execvp",
		"posix_spawn", "posix_spawnp", "waitpid", "wait", "kill", "system", "popen", "pclose",
		"getpid", "getppid", "raise", "getuid", "geteuid", "getgid", "getegid", "getgroups",
		"getpwnam", "getpwuid", "getpwnam_r", "getpwuid_r", "getgrnam", "getgrgid", "getlogin",
		"gethostname", "uname", "setuid", "setgid", "time", "gettimeofday", "clock_gettime",
		"nanosleep", "clock_nanosleep", "sleep", "usleep", "alarm", "getenv", "secure_getenv",
		"setenv", "unsetenv", "getrandom", "getentropy", "rand", "random", "arc4random",
		"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "send",
		"sendto", "sendmsg", "recv", "recvfrom", "recvmsg", "shutdown", "setsockopt",
		"getsockopt", "getsockname", "getpeername", "getaddrinfo", "getnameinfo",
		"gethostbyname", "poll", "ppoll", "select", "epoll_wait", "epoll_ctl", "dlopen",
		"isatty", "sysconf", "getrlimit",
	};

	(void)state;
	assert_int_equal(sizeof(names) / sizeof(names[0]), 156);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (ms_catalog_find(names[i], strlen(names[i])) < 0)
			fail_msg("%s is missing from the catalog", names[i]);
}

static void test_symbol_names_unique(void **state)
{
	(void)state;
	for (unsigned i = 0; i < MS_SYM_COUNT; i++)
		for (unsigned k = i + 1; k < MS_SYM_COUNT; k++)
			if (strcmp(ms_sym_name(i), ms_sym_name(k)) == 0)
				fail_msg("symbol %s appears twice", ms_sym_name(i));
}

/* Our errno and signal names are glibc's strerrorname_np() and
 * sigabbrev_np(), value for value (mockrun may link a C library that
 * has neither), and the names read back to their values. */
static void test_errno_signal_names(void **state)
{
	int64_t v;

	(void)state;
	for (int e = -1; e < 512; e++) {
		const char *want = e > 0 ? strerrorname_np(e) : NULL, *got = ms_errno_name(e);

		if (!want || !got) {
			if (want != got)
				fail_msg("errno %d: %s, glibc: %s", e, got ? got : "NULL", want ? want : "NULL");
			continue;
		}
		assert_string_equal(got, want);
		assert_true(ms_name_value(got, strlen(got), &v));
		assert_int_equal(v, e);
	}
	for (int s = -1; s < 128; s++) {
		const char *want = s > 0 ? sigabbrev_np(s) : NULL, *got = ms_signal_abbrev(s);
		char name[32];

		if (!want || !got) {
			if (want != got)
				fail_msg("signal %d: %s, glibc: %s", s, got ? got : "NULL", want ? want : "NULL");
			continue;
		}
		assert_string_equal(got, want);
		snprintf(name, sizeof(name), "SIG%s", got);
		assert_true(ms_name_value(name, strlen(name), &v));
		assert_int_equal(v, s);
	}
	assert_false(ms_name_value("EWOULDBLOCK", 11, &v));	/* EAGAIN's, as glibc names it */
}

static void test_names(void **state)
{
	int64_t v;

	(void)state;
	assert_true(ms_name_value("ENOENT", 6, &v));
	assert_int_equal(v, ENOENT);
	assert_true(ms_name_value("EAI_NONAME", 10, &v));
	assert_int_equal(v, -2);
	assert_true(ms_name_value("SIGSEGV", 7, &v));
	assert_int_equal(v, 11);
	assert_true(ms_name_value("O_CREAT", 7, &v));
	assert_true(ms_name_value("S_IFREG", 7, &v));
	assert_int_equal(v, 0100000);
	assert_false(ms_name_value("ENOTANERRNO", 11, &v));
	assert_string_equal(ms_errno_name(EIO), "EIO");
	assert_true(ms_glob_match("c*", "cat"));
	assert_true(ms_glob_match("lib*.so*", "libfoo.so.1"));
	assert_true(ms_glob_match("[a-c]at", "bat"));
	assert_false(ms_glob_match("[!a-c]at", "bat"));
	assert_false(ms_glob_match("c?", "cat"));
	assert_true(ms_glob_match("*", ""));
	assert_false(ms_glob_match("cat", "cats"));
	/* unclosed brackets never read past the pattern (run under ASan) */
	assert_false(ms_glob_match("[", "x"));
	assert_true(ms_glob_match("[", "["));
	assert_true(ms_glob_match("ab[", "ab["));
	assert_false(ms_glob_match("[!", "x"));
	assert_true(ms_glob_match("[]]", "]"));
	assert_true(ms_glob_match("[]a]", "a"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_paths),
		cmocka_unit_test(test_nargs),
		cmocka_unit_test(test_type_table),
		cmocka_unit_test(test_module_types),
		cmocka_unit_test(test_rows_parse),
		cmocka_unit_test(test_man_page_names),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_required_rows),
		cmocka_unit_test(test_design_rows),
		cmocka_unit_test(test_symbol_names_unique),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_errno_signal_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
