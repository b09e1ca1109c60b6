/* SPDX-License-Identifier: MIT */
/*
 * The shim's runtime: binding real symbols, attaching the channel, and
 * ms_consult(), the one slow path every armed trampoline takes.
 *
 * Everything here runs inside arbitrary calls of the program, possibly
 * in a signal handler: only raw syscalls, atomics and our own code.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "shim.h"
#include "spec.h"

__thread int ms_binding __attribute__((tls_model("initial-exec")));
static __thread unsigned depth __attribute__((tls_model("initial-exec")));

static struct ms_chan_hdr *chan;
static struct ms_chan_fn *fns;
static struct ms_rule *rules;
static const struct ms_out *outs;
static struct ms_event *events;
static const char *pool;
static char exe_name[64];
static int32_t my_pid;		/* the pid that last wrote an event */

enum { ATTACH_NONE, ATTACH_BUSY, ATTACH_DONE };
static int attach_state;

extern char **environ;

/* ---- diagnostics ---- */

static size_t slen(const char *s)
{
	size_t n = 0;

	while (s && s[n])
		n++;
	return n;
}

static size_t append(char *buf, size_t n, size_t cap, const char *s)
{
	size_t k = slen(s);

	if (k > cap - n)
		k = cap - n;
	memcpy(buf + n, s, k);
	return n + k;
}

void ms_diag(const char *first, ...)
{
	char buf[512];
	size_t n = append(buf, 0, sizeof(buf) - 1, "mockshim: ");
	int saved = errno;
	va_list ap;

	va_start(ap, first);
	for (const char *part = first; part; part = va_arg(ap, const char *))
		n = append(buf, n, sizeof(buf) - 1, part);
	va_end(ap);
	buf[n++] = '\n';
	syscall(SYS_write, 2, buf, n);
	errno = saved;
}

/* ---- binding ---- */

static void missing_real(void)
{
	ms_diag("fatal: a function called through the shim has no real definition", NULL);
	syscall(SYS_exit_group, 127);
}

void *ms_lookup(const char *name)
{
	void (*missing)(void) = missing_real;
	int saved = errno;
	void *p;

	ms_binding++;
	p = dlsym(RTLD_NEXT, name);
	ms_binding--;
	if (!p) {
		ms_diag("no real definition of ", name, " after libmockshim.so", NULL);
		memcpy(&p, &missing, sizeof(p));
	}
	errno = saved;
	return p;
}

/* ---- attaching the channel ---- */

static const char *env_lookup(const char *key)
{
	size_t k = slen(key);

	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, key, k) == 0 && (*e)[k] == '=')
			return *e + k + 1;
	return NULL;
}

static void read_exe_name(void)
{
	char path[4096];
	long n = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", path, sizeof(path) - 1);
	const char *base = path;

	if (n <= 0) {
		memcpy(exe_name, "?", 2);
		return;
	}
	path[n] = '\0';
	for (long i = 0; i < n; i++)
		if (path[i] == '/')
			base = path + i + 1;
	n = (long)slen(base);
	if (n >= (long)sizeof(exe_name))
		n = sizeof(exe_name) - 1;
	memcpy(exe_name, base, (size_t)n);
	exe_name[n] = '\0';
}

static void emit(uint16_t type, unsigned fn, uint32_t rule, uint32_t call, int64_t value,
		 const void *caller, const char *text)
{
	int32_t pid = (int32_t)syscall(SYS_getpid), last = __atomic_load_n(&my_pid, __ATOMIC_RELAXED);
	uint32_t i;
	struct ms_event *e;
	size_t n;

	/* A child forked without exec shares our mapping and our memory: the
	 * first event it writes announces it, so reports can name it. */
	if (type != MS_EV_ATTACH && pid != last &&
	    __atomic_compare_exchange_n(&my_pid, &last, pid, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&chan->attached, 1, __ATOMIC_RELAXED);
		emit(MS_EV_ATTACH, 0, UINT32_MAX, 0, 1, NULL, exe_name);
	}
	i = __atomic_fetch_add(&chan->events_next, 1, __ATOMIC_RELAXED);

	if (i >= chan->events_cap)
		return;
	e = &events[i];
	e->type = type;
	e->fn = (uint16_t)fn;
	e->rule = rule;
	e->call = call;
	e->pid = pid;
	e->tid = (int32_t)syscall(SYS_gettid);
	e->value = value;
	e->caller_off = (uint64_t)(uintptr_t)caller;
	n = slen(text);
	if (n >= MS_EV_TEXT)
		n = MS_EV_TEXT - 1;
	memcpy(e->text, text, n);
	e->text[n] = '\0';
	__atomic_store_n(&e->state, 1, __ATOMIC_RELEASE);
}

static void warn_unmocked(const char *path, const char *why)
{
	ms_diag("warning: ignoring the channel ", path, ": ", why, "; the program runs unmocked",
		NULL);
}

static void attach(void)
{
	int expect = ATTACH_NONE;
	const char *path, *why;
	struct stat st;
	void *map;
	long fd;

	if (!__atomic_compare_exchange_n(&attach_state, &expect, ATTACH_BUSY, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (!environ) {
		/* Too early (the loader is still relocating): try again later. */
		__atomic_store_n(&attach_state, ATTACH_NONE, __ATOMIC_RELEASE);
		return;
	}
	path = env_lookup(MS_CHAN_ENV);
	if (!path || !*path)
		goto done;
	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		warn_unmocked(path, strerrorname_np(errno) ? strerrorname_np(errno) : "cannot open");
		goto done;
	}
	if (syscall(SYS_fstat, fd, &st) != 0 || st.st_size < (off_t)sizeof(struct ms_chan_hdr)) {
		syscall(SYS_close, fd);
		warn_unmocked(path, "too small to be a channel");
		goto done;
	}
	map = (void *)syscall(SYS_mmap, NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
			      MAP_SHARED, fd, 0);
	syscall(SYS_close, fd);
	if (map == MAP_FAILED) {
		warn_unmocked(path, "mmap failed");
		goto done;
	}
	why = ms_channel_validate(map, (uint64_t)st.st_size);
	if (why) {
		syscall(SYS_munmap, map, (size_t)st.st_size);
		warn_unmocked(path, why);
		goto done;
	}
	fns = ms_chan_at(map, ((struct ms_chan_hdr *)map)->fns_off);
	rules = ms_chan_at(map, ((struct ms_chan_hdr *)map)->rules_off);
	outs = ms_chan_at(map, ((struct ms_chan_hdr *)map)->outs_off);
	events = ms_chan_at(map, ((struct ms_chan_hdr *)map)->events_off);
	pool = ms_chan_at(map, ((struct ms_chan_hdr *)map)->pool_off);
	read_exe_name();
	chan = map;
	my_pid = (int32_t)syscall(SYS_getpid);
	__atomic_fetch_add(&chan->attached, 1, __ATOMIC_RELAXED);
	emit(MS_EV_ATTACH, 0, UINT32_MAX, 0, 0, NULL, exe_name);
done:
	__atomic_store_n(&attach_state, ATTACH_DONE, __ATOMIC_RELEASE);
	ms_rearm();
}

void ms_rearm(void)
{
	int done = __atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) == ATTACH_DONE;
	int boot = __atomic_load_n(&ms_boot_used, __ATOMIC_RELAXED);

	if (!done)
		return; /* everything stays on the slow path until attached */
	for (unsigned i = 0; i < MS_FN_COUNT; i++) {
		uint8_t on = chan && fns[i].nrules > 0;

		if (boot && (i == MS_ID_free || i == MS_ID_realloc))
			on = 1;
		__atomic_store_n(&ms_armed[i], on, __ATOMIC_RELAXED);
	}
}

__attribute__((constructor)) static void shim_init(void)
{
	attach();
}

/* ---- consulting the rules ---- */

static int claim(struct ms_rule *r)
{
	uint32_t c;

	if (r->count < 0) {
		__atomic_fetch_add(&r->consumed, 1, __ATOMIC_RELAXED);
		return 1;
	}
	c = __atomic_load_n(&r->consumed, __ATOMIC_RELAXED);
	while (c < (uint32_t)r->count)
		if (__atomic_compare_exchange_n(&r->consumed, &c, c + 1, 1, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return 1;
	return 0;
}

static const char *basename_of(const char *p)
{
	const char *b = p;

	for (; p && *p; p++)
		if (*p == '/')
			b = p + 1;
	return b;
}

static int from_matches(const char *glob, const void *caller)
{
	Dl_info info;

	if (!caller || !dladdr(caller, &info) || !info.dli_fname)
		return 0;
	/* The loader names the main program "": it is the executable. */
	return ms_glob_match(glob, info.dli_fname[0] ? basename_of(info.dli_fname) : exe_name);
}

static uint64_t capacity(const struct ms_out *o, const uint64_t *a)
{
	uint64_t cap = o->cap1 == MS_NONE8 ? UINT64_MAX : a[o->cap1];

	if (o->cap2 != MS_NONE8) {
		uint64_t m = a[o->cap2];

		cap = m && cap > UINT64_MAX / m ? UINT64_MAX : cap * m;
	}
	return cap;
}

static void record_failure(unsigned id, uint32_t ri, uint32_t call, const void *caller,
			   const char *msg)
{
	__atomic_fetch_add(&chan->failures, 1, __ATOMIC_RELAXED);
	emit(MS_EV_FAIL, id, ri, call, 0, caller, msg);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	while (syscall(SYS_nanosleep, &ts, &ts) != 0 && errno == EINTR)
		;
}

static int64_t reply(unsigned id, uint32_t ri, const struct ms_rule *r, const uint64_t *a,
		     uint32_t call, const void *caller)
{
	uint64_t copied = 0;
	int64_t v = r->value;

	for (uint32_t k = 0; k < r->nouts; k++) {
		const struct ms_out *o = &outs[r->outs_first + k];
		void *p = (void *)(uintptr_t)a[o->param];
		uint64_t cap, n;

		switch (o->kind) {
		case MS_O_BYTES:
		case MS_O_STR:
			cap = capacity(o, a);
			if (o->kind == MS_O_STR) {
				if (cap == 0)
					break;
				cap--;
			}
			n = o->len < cap ? o->len : cap;
			if (!p) {
				if (n)
					record_failure(id, ri, call, caller,
						       "output buffer is NULL: nothing copied");
				break;
			}
			memcpy(p, pool + o->data, n);
			if (o->kind == MS_O_STR)
				((char *)p)[n] = '\0';
			copied += n;
			break;
		case MS_O_STORE:
			if (!p) {
				record_failure(id, ri, call, caller,
					       "output pointer is NULL: nothing stored");
				break;
			}
			memcpy(p, pool + o->data, o->len);
			break;
		default:
			break;
		}
	}
	if (r->flags & MS_RF_STRVAL)
		v = (int64_t)(uintptr_t)(pool + r->value_str);
	if (r->flags & MS_RF_DEFAULT) {
		switch (r->rd_kind) {
		case MS_RD_BYTES:
			v = (int64_t)copied;
			if (r->rd_div != MS_NONE8 && a[r->rd_div])
				v = (int64_t)(copied / a[r->rd_div]);
			break;
		case MS_RD_PARAM:
			v = (int64_t)a[r->rd_param];
			break;
		default:
			break;
		}
	}
	for (uint32_t k = 0; k < r->nouts; k++) {
		const struct ms_out *o = &outs[r->outs_first + k];
		void *p = (void *)(uintptr_t)a[o->param];

		if (!p)
			continue;
		if (o->kind == MS_O_RETSTORE) {
			if (o->len == 8)
				memcpy(p, &v, 8);
			else {
				int32_t w = (int32_t)v;

				memcpy(p, &w, 4);
			}
		} else if (o->kind == MS_O_FERROR && r->kind == MS_R_FAIL) {
			/* glibc's FILE starts with int _flags; _IO_ERR_SEEN is 0x20:
			 * ferror() must see the failure, as after a real one. */
			*(int *)p |= 0x20;
		}
	}
	return v;
}

static int decide(unsigned id, const uint64_t *a, int64_t *ret, const void *caller, int *err)
{
	struct ms_chan_fn *f = &fns[id];
	uint32_t call = __atomic_add_fetch(&f->calls, 1, __ATOMIC_RELAXED);

	for (uint32_t k = 0; k < f->nrules; k++) {
		uint32_t ri = f->first_rule + k;
		struct ms_rule *r = &rules[ri];

		if (r->in_glob && !ms_glob_match(pool + r->in_glob, exe_name))
			continue;
		if (r->from_glob && !from_matches(pool + r->from_glob, caller))
			continue;
		if (!claim(r))
			continue;
		if (r->delay_ns)
			sleep_ns(r->delay_ns);
		if (r->kind == MS_R_REAL) {
			emit(MS_EV_CONSUME, id, ri, call, 0, caller, "");
			return 0;
		}
		*ret = reply(id, ri, r, a, call, caller);
		if (r->flags & MS_RF_ERRNO)
			*err = r->err;
		emit(MS_EV_CONSUME, id, ri, call, *ret, caller, "");
		return 1;
	}
	return 0;
}

int ms_consult(unsigned id, const uint64_t *args, int64_t *ret, const void *caller)
{
	int saved = errno, mocked = 0;

	if (depth)
		return 0;
	depth++;
	if (ms_unlikely(__atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) != ATTACH_DONE))
		attach();
	if (chan && id < MS_FN_COUNT && fns[id].nrules)
		mocked = decide(id, args, ret, caller, &saved);
	depth--;
	errno = saved;
	return mocked;
}
