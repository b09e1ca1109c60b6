/* SPDX-License-Identifier: MIT */
/*
 * --trace: one line per intercepted call, strace-like,
 *	1234 cat: open("/etc/hostname", O_RDONLY) = 3
 *	1234 cat: read(3, 0x7ffd..., 131072) = -1 EIO (mocked: -e#1:1)
 * formatted into a stack buffer and written with one write(2) (a whole
 * line at once), no stdio, no malloc; errno preserved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "shim.h"
#include "spec.h"

#define LINE 1024
#define STR_CUT 64

struct out {
	char buf[LINE];
	size_t n;
};

static int trace_fd = -1;
int ms_trace_timed;
static __thread uint64_t call_start __attribute__((tls_model("initial-exec")));

/* CLOCK_MONOTONIC in ns by the system call: clock_gettime is in the
 * catalog, and the shim calls none of its functions */
static uint64_t now_ns(void)
{
	struct timespec ts;

	if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void ms_trace_start(void)
{
	call_start = now_ns();
}

static void put(struct out *o, const char *s)
{
	while (*s && o->n < LINE - 2)
		o->buf[o->n++] = *s++;
}

static void put_c(struct out *o, char c)
{
	if (o->n < LINE - 2)
		o->buf[o->n++] = c;
}

static void put_u(struct out *o, uint64_t v, unsigned base)
{
	char t[24];
	int k = 0;

	do
		t[k++] = "0123456789abcdef"[v % base];
	while ((v /= base) && k < 24);
	while (k)
		put_c(o, t[--k]);
}

static void put_i(struct out *o, int64_t v)
{
	if (v < 0) {
		put_c(o, '-');
		put_u(o, (uint64_t)0 - (uint64_t)v, 10);
	} else {
		put_u(o, (uint64_t)v, 10);
	}
}

static void put_ptr(struct out *o, uint64_t v)
{
	if (!v) {
		put(o, "NULL");
		return;
	}
	put(o, "0x");
	put_u(o, v, 16);
}

/* A string argument, read fault-safely, quoted, cut at STR_CUT bytes. */
static void put_str(struct out *o, uint64_t v)
{
	char s[STR_CUT + 1];
	size_t n;

	if (!v) {
		put(o, "NULL");
		return;
	}
	n = ms_read_user(s, (const void *)(uintptr_t)v, sizeof(s));
	put_c(o, '"');
	for (size_t i = 0; i < n && i < STR_CUT && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			put_c(o, '\\');
			put_c(o, (char)c);
		} else if (c == '\n') {
			put(o, "\\n");
		} else if (c < 0x20 || c >= 0x7f) {
			put(o, "\\x");
			put_c(o, "0123456789abcdef"[c >> 4]);
			put_c(o, "0123456789abcdef"[c & 15]);
		} else {
			put_c(o, (char)c);
		}
	}
	put_c(o, '"');
	if (n > STR_CUT && memchr(s, 0, STR_CUT) == NULL)
		put(o, "...");
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

static void put_oflags(struct out *o, int64_t v)
{
	int acc = (int)v & O_ACCMODE, rest = (int)v & ~O_ACCMODE;

	put(o, acc == O_WRONLY ? "O_WRONLY" : acc == O_RDWR ? "O_RDWR" : "O_RDONLY");
	for (size_t i = 0; i < sizeof(oflags) / sizeof(oflags[0]); i++) {
		if ((rest & oflags[i].bit) == oflags[i].bit && oflags[i].bit) {
			put_c(o, '|');
			put(o, oflags[i].name);
			rest &= ~oflags[i].bit;
		}
	}
	if (rest) {
		put(o, "|0x");
		put_u(o, (uint32_t)rest, 16);
	}
}

static void put_arg(struct out *o, const struct ms_fn_meta *m, unsigned i, uint64_t v)
{
	const struct ms_param *p = &m->params[i];
	int64_t iv = p->type.size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;

	if (p->type.tclass == MS_T_STR) {
		put_str(o, v);
	} else if (p->type.tclass == MS_T_PTR) {
		put_ptr(o, v);
	} else if (strcmp(p->name, "flags") == 0 &&
		   (strcmp(m->name, "open") == 0 || strcmp(m->name, "openat") == 0)) {
		put_oflags(o, iv);
	} else if (strcmp(p->type.text, "mode_t") == 0) {
		put_c(o, '0');
		put_u(o, (uint32_t)v, 8);
	} else if ((strcmp(p->name, "dirfd") == 0 || strcmp(p->name, "olddirfd") == 0 ||
		    strcmp(p->name, "newdirfd") == 0) && iv == AT_FDCWD) {
		put(o, "AT_FDCWD");
	} else if (p->type.tclass == MS_T_UINT) {
		put_u(o, p->type.size == 4 ? (uint32_t)v : v, 10);
	} else {
		put_i(o, iv);
	}
}

void ms_trace_open(const struct ms_chan_hdr *h, const char *pool)
{
	if (!(h->flags & MS_CHAN_TRACE))
		return;
	ms_catalog_init();
	if (h->trace_path)
		trace_fd = (int)syscall(SYS_openat, AT_FDCWD, pool + h->trace_path,
					O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	else
		trace_fd = (int)syscall(SYS_fcntl, 2, F_DUPFD_CLOEXEC, 500L);
	if (trace_fd < 0)
		ms_diag("warning: --trace: cannot open the trace file", NULL);
	ms_trace_timed = trace_fd >= 0 && (h->flags & MS_CHAN_TRACE_TIMED);
}

void ms_trace_call(unsigned id, const uint64_t *a, int64_t ret, int err, const char *mocked_by)
{
	const struct ms_fn_meta *m = ms_catalog_get(id);
	struct out o;
	int saved = errno;

	if (trace_fd < 0 || !m)
		return;
	o.n = 0;
	if (ms_trace_timed) {
		/* "@START END TID PPID ": the driver turns it into trace events */
		uint64_t end = now_ns();

		put_c(&o, '@');
		put_u(&o, call_start && call_start <= end ? call_start : end, 10);
		put_c(&o, ' ');
		put_u(&o, end, 10);
		put_c(&o, ' ');
		put_i(&o, (int64_t)syscall(SYS_gettid));
		put_c(&o, ' ');
		put_i(&o, (int64_t)syscall(SYS_getppid));
		put_c(&o, ' ');
		call_start = 0;
	}
	put_i(&o, (int64_t)syscall(SYS_getpid));
	put_c(&o, ' ');
	put(&o, ms_exe_name());
	put(&o, ": ");
	put(&o, m->name);
	put_c(&o, '(');
	for (unsigned i = 0; i < m->nparams; i++) {
		/* open's mode is only read with O_CREAT or O_TMPFILE: as strace */
		if (strcmp(m->params[i].name, "mode") == 0 && i > 0 &&
		    (strcmp(m->name, "open") == 0 || strcmp(m->name, "openat") == 0) &&
		    !(a[i - 1] & O_CREAT) && (a[i - 1] & O_TMPFILE) != O_TMPFILE)
			break;
		if (i)
			put(&o, ", ");
		put_arg(&o, m, i, a[i]);
	}
	put_c(&o, ')');
	if (m->ret.tclass != MS_T_VOID) {
		int failed;

		put(&o, " = ");
		if (m->ret.tclass >= MS_T_PTR) {
			put_ptr(&o, (uint64_t)ret);
			failed = ret == 0 && m->fail_kind == MS_FK_ERRNO;
		} else {
			int64_t r = m->ret.size == 4 ? (int64_t)(int32_t)ret : ret;

			if (m->ret.tclass == MS_T_UINT)
				put_u(&o, m->ret.size == 4 ? (uint32_t)ret : (uint64_t)ret, 10);
			else
				put_i(&o, r);
			failed = m->fail_kind == MS_FK_ERRNO && r == m->fail_value;
			if (m->fail_kind == MS_FK_RC && r != 0 && ms_eai_name((int)r)) {
				put_c(&o, ' ');
				put(&o, ms_eai_name((int)r));
			}
		}
		if (failed && err > 0 && ms_errno_name(err)) {
			put_c(&o, ' ');
			put(&o, ms_errno_name(err));
		}
	}
	if (mocked_by) {
		put(&o, " (mocked: ");
		put(&o, mocked_by);
		put_c(&o, ')');
	}
	o.buf[o.n++] = '\n';
	syscall(SYS_write, trace_fd, o.buf, o.n);
	errno = saved;
}
