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
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "decide.h"
#include "shim.h"
#include "spec.h"
#include "names.h"
#include "mockshim/handler.h"

__thread int ms_binding __attribute__((tls_model("initial-exec")));
/*
 * The re-entry guard: held only around the shim's own work that calls
 * libc through interposed symbols (standalone set-up and report, module
 * registration); while held, every trampoline goes to the real function.
 * ms_consult() itself calls no interposed function (tests/preload/
 * symbols.sh checks), so it does not take it: a signal handler that
 * interrupts a consult and calls a mocked function is mocked too.
 */
__thread unsigned ms_guard __attribute__((tls_model("initial-exec")));
/* The spec and the state, and whose calls they answer: ms_d (decide.h).
 * live is ms_d.chan once attached (release). */
static const struct ms_chan_hdr *live;
/* The fast slots (shim.h): ms_d.log_key as the trampolines compare it */
int32_t ms_fast_key = -1;
struct ms_fast ms_fast[MS_FN_COUNT];

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

/* ---- attaching the channel ---- */

const char *ms_env(const char *key)
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
	const char *base = path, *execfn;

	if (n > 0) {
		path[n] = '\0';
	} else {
		/* no /proc (a sandbox): the path the program was exec'd by */
		execfn = (const char *)getauxval(AT_EXECFN);
		if (!execfn || !*execfn) {
			memcpy(ms_d.exe_name, "?", 2);
			return;
		}
		base = execfn;
	}
	for (const char *p = base; *p; p++)
		if (*p == '/')
			base = p + 1;
	n = (long)slen(base);
	if (n >= (long)sizeof(ms_d.exe_name))
		n = sizeof(ms_d.exe_name) - 1;
	memcpy(ms_d.exe_name, base, (size_t)n);
	ms_d.exe_name[n] = '\0';
}


static void warn_unmocked(const char *path, const char *why)
{
	ms_diag("warning: ignoring the channel ", path, ": ", why, "; the program runs unmocked",
		NULL);
}

/*
 * One part of MS_CHAN_FD_ENV's "FD:INODE,FD:INODE" at *v (advanced past
 * it): the descriptor, if it is still open here and still the memfd
 * mockrun passed; -1 otherwise (closed, or reused for another file), and
 * the path is tried.
 */
static long inherited_fd(const char **v, struct stat *sb)
{
	unsigned long long fd = 0, ino = 0;
	const char *p = *v;
	int ok;

	if (!p)
		return -1;
	for (; *p >= '0' && *p <= '9' && fd < 1u << 20; p++)
		fd = fd * 10 + (unsigned)(*p - '0');
	ok = *p == ':';
	if (ok)
		p++;
	for (; *p >= '0' && *p <= '9' && ino < UINT64_MAX / 10; p++)
		ino = ino * 10 + (unsigned)(*p - '0');
	ok = ok && (*p == ',' || !*p);
	while (*p && *p != ',')
		p++;
	*v = *p == ',' ? p + 1 : NULL;
	if (!ok || fd >= 1u << 20 || syscall(SYS_fstat, (long)fd, sb) != 0 ||
	    (unsigned long long)sb->st_ino != ino || !S_ISREG(sb->st_mode))
		return -1;
	return (long)fd;
}

static char *rec_log;		/* --record: the log, as validated at attach */
static uint64_t rec_cap;

char *ms_record_log(uint64_t *cap)
{
	*cap = rec_cap;
	return rec_log;
}

/*
 * Maps one of the two memfds: by the inherited descriptor fdv names,
 * else by the path (n bytes at path).  The spec (state 0) read-only and
 * the state writable, each only with the seals that keep it from
 * changing under us (the spec) or shrinking (either: no SIGBUS), and at
 * the size fstat says.  NULL with *why set.
 */
static void *map_part(const char *path, size_t n, const char **fdv, int state, uint64_t *size,
		      const char **why)
{
	char buf[256];
	struct stat sb;
	long fd = inherited_fd(fdv, &sb);
	int owned = fd < 0;
	void *map = NULL;

	*why = NULL;
	if (owned) {
		if (n >= sizeof(buf)) {
			*why = "path too long";
			return NULL;
		}
		memcpy(buf, path, n);
		buf[n] = '\0';
		fd = syscall(SYS_openat, AT_FDCWD, buf, (long)((state ? O_RDWR : O_RDONLY) | O_CLOEXEC));
		if (fd < 0) {
			*why = strerrorname_np(errno) ? strerrorname_np(errno) : "cannot open";
			return NULL;
		}
		if (syscall(SYS_fstat, fd, &sb) != 0)
			sb.st_size = 0;
	}
	{
		uint32_t magic = 0;
		long off = state ? (long)offsetof(struct ms_state_hdr, magic) : 0L;

		if (sb.st_size < (off_t)(state ? sizeof(struct ms_state_hdr) : sizeof(struct ms_chan_hdr)))
			*why = "too small to be a channel";
		else if (syscall(SYS_pread64, fd, &magic, sizeof(magic), off) != (long)sizeof(magic) ||
			 magic != (state ? MS_STATE_MAGIC : MS_CHAN_MAGIC))
			*why = "bad magic";
		else if (!ms_channel_seals_ok(fd, state))
			*why = "not a sealed mockshim channel";
	}
	if (!*why) {
		map = (void *)syscall(SYS_mmap, NULL, (size_t)sb.st_size,
				      (long)(state ? PROT_READ | PROT_WRITE : PROT_READ), (long)MAP_SHARED,
				      fd, (off_t)0);
		if (map == MAP_FAILED) {
			map = NULL;
			*why = "mmap failed";
		}
	}
	/* an inherited descriptor stays open, for the programs this one execs */
	if (owned)
		syscall(SYS_close, fd);
	*size = (uint64_t)sb.st_size;
	return map;
}

/*
 * In a secure-execution process (setuid, setgid, file capabilities) the
 * shim is inert, as the loader ignores its own LD_ variables there: no
 * MOCKSHIM* variable is read, no channel attached, no file opened by a
 * name the environment gave.  The parent that exec'd it said so already
 * (ms_exec_check).
 */
static int secure_exec(void)
{
	return getauxval(AT_SECURE) != 0;
}

static char chan_env[256];	/* MOCKSHIM_CHANNEL, as attached by */
static char shim_base[64] = "libmockshim.so";	/* the shim's file name */

const char *ms_shim_base(void)
{
	return shim_base;
}
static int preload_env;		/* LD_PRELOAD named a libmockshim then */

const char *ms_channel_env(void)
{
	return ms_d.chan && chan_env[0] ? chan_env : NULL;
}

int ms_preloaded_by_env(void)
{
	return preload_env;
}

static void attach(void)
{
	int expect = ATTACH_NONE;
	static char standalone_path[64];
	const char *path, *comma, *fdv, *why = NULL, *shown;
	const struct ms_chan_hdr *h = NULL;
	struct ms_state_hdr *state = NULL;
	uint64_t size = 0, state_size = 0;

	if (!__atomic_compare_exchange_n(&attach_state, &expect, ATTACH_BUSY, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (!environ) {
		/* Too early (the loader is still relocating): try again later. */
		__atomic_store_n(&attach_state, ATTACH_NONE, __ATOMIC_RELEASE);
		return;
	}
	if (secure_exec())
		goto done;
	path = ms_env(MS_CHAN_ENV);
	if (!path || !*path) {
		path = ms_standalone_channel(standalone_path, sizeof(standalone_path));
		if (!path)
			goto done;
	}
	shown = path;
	/* the descriptors that go with the paths mockrun, or a standalone
	 * parent, set */
	fdv = ms_env(MS_CHAN_FD_ENV);
	comma = strchr(path, ',');
	h = map_part(path, comma ? (size_t)(comma - path) : slen(path), &fdv, 0, &size, &why);
	if (!h)
		goto fail;
	if (!comma) {
		why = "no state (not SPEC,STATE)";
		goto fail;
	}
	why = ms_channel_validate(h, size);
	if (why)
		goto fail;
	state = map_part(comma + 1, slen(comma + 1), &fdv, 1, &state_size, &why);
	if (!state)
		goto fail;
	why = ms_state_validate(h, state, state_size);
	if (why)
		goto fail;
	rec_log = h->rec_cap ? ms_state_at(state, h->st_rec_off) : NULL;
	rec_cap = h->rec_cap;
	ms_dec_tables(h, state);
	read_exe_name();
	ms_copy_str(chan_env, sizeof(chan_env), slen(path) < sizeof(chan_env) ? path : "");
	{
		const char *pre = ms_env("LD_PRELOAD");

		Dl_info info;

		/* the name LD_PRELOAD must keep, looked up now: the exec path
		 * may run in a vfork child or a signal handler */
		if (dladdr(ms_armed, &info) && info.dli_fname) {
			const char *b = info.dli_fname;

			for (const char *q = info.dli_fname; *q; q++)
				if (*q == '/')
					b = q + 1;
			ms_copy_str(shim_base, sizeof(shim_base), b);
		}
		preload_env = pre && strstr(pre, shim_base);
	}
	ms_d.chan = h;
	ms_d.st = state;
	ms_d.my_pid = (int32_t)syscall(SYS_getpid);
	__atomic_store_n(&ms_d.self_pid, ms_d.my_pid, __ATOMIC_RELAXED);
	__atomic_store_n(&ms_d.log_key, (ms_d.chan->flags & MS_CHAN_LOG_CALLS) ? -1 : ms_d.my_pid,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&ms_fast_key, ms_d.log_key, __ATOMIC_RELAXED);
	ms_register_pid(ms_d.my_pid, 1);
	ms_trace_open(ms_d.chan, ms_d.pool);
	__atomic_fetch_add(&ms_d.st->attached, 1, __ATOMIC_RELAXED);
	{
		struct ms_event *e = ms_ev_begin(MS_EV_ATTACH, 0, UINT32_MAX, 0);

		if (e) {
			ms_copy_str(e->text, MS_EV_TEXT, ms_d.exe_name);
			ms_ev_commit(e);
		}
	}
	if ((ms_d.chan->flags & MS_CHAN_STANDALONE) &&
	    __atomic_load_n(&ms_d.st->owner_pid, __ATOMIC_RELAXED) == ms_d.my_pid)
		ms_standalone_owner();
	goto done;
fail:
	if (h)
		syscall(SYS_munmap, h, (size_t)size);
	if (state)
		syscall(SYS_munmap, state, (size_t)state_size);
	warn_unmocked(shown, why);
done:
	__atomic_store_n(&live, ms_d.chan, __ATOMIC_RELEASE);
	__atomic_store_n(&attach_state, ATTACH_DONE, __ATOMIC_RELEASE);
	ms_decl_bind(ms_d.chan);
	ms_rearm();
}

void ms_guard_enter(void)
{
	ms_guard++;
}

void ms_guard_leave(void)
{
	ms_guard--;
}

const struct ms_chan_hdr *ms_channel(void)
{
	return __atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) == ATTACH_DONE ? ms_d.chan : NULL;
}

struct ms_state_hdr *ms_state(void)
{
	return __atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) == ATTACH_DONE ? ms_d.st : NULL;
}

const char *ms_exe_name(void)
{
	return ms_d.exe_name;
}


int ms_applies_here(unsigned fn)
{
	const struct ms_chan_fn *f = &ms_d.fns[fn];

	if (f->flags & (MS_FF_AFTER | MS_FF_EXEC | MS_FF_COUNTED))
		return 1;
	for (uint32_t k = 0; k < f->nrules; k++)
		if (ms_in_here(ms_d.rules[f->first_rule + k].stmt.in_glob))
			return 1;
	for (uint32_t k = 0; k < f->nexpects; k++)
		if (ms_in_here(ms_d.expects[f->first_expect + k].stmt.in_glob))
			return 1;
	for (uint32_t k = 0; (f->flags & ~(MS_FF_LEAN | MS_FF_LEAN_AIMED)) && k < ms_d.chan->norders; k++)
		if (ms_d.orders[k].stmt.fn == fn && ms_in_here(ms_d.orders[k].stmt.in_glob))
			return 1;
	return 0;
}

/* Fills function fn's fast slot (struct ms_fast), or empties it. */
static void fast_fill(unsigned fn)
{
	const struct ms_chan_fn *f = &ms_d.fns[fn];
	const struct ms_rule *r = &ms_d.rules[f->first_rule];
	struct ms_fast *s = &ms_fast[fn];

	__atomic_store_n(&s->kind, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&s->open, 0, __ATOMIC_RELAXED);
	if (f->nrules != 1 || f->nexpects || (f->flags & ~MS_FF_LEAN) ||
	    (ms_d.chan->flags & MS_CHAN_LOG_CALLS) || !ms_rule_plain(r) || (r->flags & MS_RF_DOUBLE) ||
	    r->stmt.from_glob || r->stmt.ncond || !ms_in_here(r->stmt.in_glob) || r->stmt.count == 0)
		return;
	s->count = r->stmt.count;
	s->err = r->err;
	s->value = r->value;
	s->consumed = &ms_d.rst[f->first_rule].consumed;
	s->logged_pid = &ms_d.rst[f->first_rule].logged_pid;
	__atomic_store_n(&s->kind,
			 (r->stmt.count < 0 ? MS_FAST_ALWAYS : MS_FAST_QUEUE) + !!(r->flags & MS_RF_ERRNO),
			 __ATOMIC_RELEASE);
}

void ms_rearm(void)
{
	int done = __atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) == ATTACH_DONE;
	int boot = __atomic_load_n(&ms_boot_used, __ATOMIC_RELAXED);

	if (!done)
		return; /* everything stays on the slow path until attached */
	ms_time_setup();
	for (unsigned i = 0; i < MS_FN_COUNT; i++) {
		uint8_t on = ms_d.chan && (ms_applies_here(i) || (i == MS_ID_dlopen && ms_decl_active()));

		if (boot && (i == MS_ID_free || i == MS_ID_realloc))
			on = 1;
		if (ms_d.chan)
			fast_fill(i);
		on |= ms_time_arms(i);
		__atomic_store_n(&ms_armed[i], on, __ATOMIC_SEQ_CST);
	}
	/* the bootstrap arena may have been used meanwhile: see boot_alloc() */
	if (__atomic_load_n(&ms_boot_used, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&ms_armed[MS_ID_free], 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&ms_armed[MS_ID_realloc], 1, __ATOMIC_SEQ_CST);
	}
}

static void forked(void)
{
	int32_t pid = (int32_t)syscall(SYS_getpid);

	/* announced in the pid table at once: mockrun, reaping an orphan,
	 * tells the processes that ran unmocked by it */
	if (__atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) == ATTACH_DONE && ms_d.chan)
		ms_register_pid(pid, 0);
	ms_time_forked();
	__atomic_store_n(&ms_d.self_pid, pid, __ATOMIC_RELAXED);
	if (__atomic_load_n(&ms_d.log_key, __ATOMIC_RELAXED) != -1) {
		__atomic_store_n(&ms_d.log_key, pid, __ATOMIC_RELAXED);
		__atomic_store_n(&ms_fast_key, pid, __ATOMIC_RELAXED);
	}
}

/*
 * Not the trivial constructor STYLE.md asks for, and on purpose: a
 * process attaches the channel here, before main(), because
 *  - the spec may arm malloc, and the first malloc comes long before any
 *    other call: attaching at a first intercepted call would attach
 *    inside the allocator;
 *  - GOT patching for declared prototypes (declared.c) must be in place
 *    before the program's first call of a declared function, which may
 *    be another library's constructor: only a constructor comes early;
 *  - standalone mode (MOCKSHIM=) parses its spec here for the same reason;
 *  - the pid table gets each process at its start, so that mockrun can
 *    name a process that ran unmocked even if it never calls a mocked
 *    function.
 * Binding stays lazy: ms_symbols_init only counts the objects loaded at
 * start, and each real function is bound by its stub at its first call
 * (trampolines.c), so gdb, valgrind and sanitizer runtimes that call
 * into libc before this runs are safe: the trampolines' unarmed path
 * needs nothing of what is set up here.
 */
__attribute__((constructor)) static void shim_init(void)
{
	ms_symbols_init();
	pthread_atfork(NULL, NULL, forked);
	attach();
}

/*
 * The program's malloc, for copies the program frees (strdup, a declared
 * char **): the first definition but the shim's own (whose trampoline
 * would take turns of malloc rules), which a sanitizer runtime in the
 * executable or an allocator preloaded before the shim provides, else
 * libc's.  Looked up at the first copy; one word, which a signal
 * handler cannot see half-written.
 */
static void *(*prog_malloc)(size_t);

static void *copy_alloc(size_t n)
{
	void *(*f)(size_t) = __atomic_load_n(&prog_malloc, __ATOMIC_ACQUIRE);

	if (ms_unlikely(!f)) {
		void *p = ms_find_symbol("malloc", 0);

		if (p)
			memcpy(&f, &p, sizeof(f));
		else
			f = ms_real.malloc.fn;
		__atomic_store_n(&prog_malloc, f, __ATOMIC_RELEASE);
	}
	return f(n);
}

static const char *basename_of(const char *p)
{
	const char *b = p;

	for (; p && *p; p++)
		if (*p == '/')
			b = p + 1;
	return b;
}

/* The basename of the object containing addr ("" dli_fname: the program). */
static const char *object_of(const void *addr, Dl_info *info)
{
	if (!addr || !dladdr(addr, info) || !info->dli_fname)
		return NULL;
	return info->dli_fname[0] ? basename_of(info->dli_fname) : ms_d.exe_name;
}

/*
 * from= asks which object a return address is in on every call: a table
 * of the executable segments of the loaded objects answers without the
 * loader's lock (dladdr takes it).  An address no segment holds (a
 * library dlopened since) rebuilds the table, into the other of two
 * buffers, so that readers of the current one are not disturbed.
 */
#define MAX_SEGS 256

struct seg {
	uintptr_t lo, hi;
	char name[48];
};

struct seg_table {
	unsigned n;
	struct seg seg[MAX_SEGS];
};

static struct seg_table seg_tables[2];
static struct seg_table *segs;	/* the current table, or NULL */
static int seg_busy;

static int add_segs(struct dl_phdr_info *info, size_t size, void *data)
{
	struct seg_table *t = data;
	const char *name = info->dlpi_name && info->dlpi_name[0] ? basename_of(info->dlpi_name)
								 : ms_d.exe_name;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum && t->n < MAX_SEGS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		struct seg *g = &t->seg[t->n];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		g->lo = info->dlpi_addr + ph->p_vaddr;
		g->hi = g->lo + ph->p_memsz;
		ms_copy_str(g->name, sizeof(g->name), name);
		t->n++;
	}
	return 0;
}

static const char *seg_lookup(const struct seg_table *t, uintptr_t a)
{
	for (unsigned i = 0; t && i < t->n; i++)
		if (a >= t->seg[i].lo && a < t->seg[i].hi)
			return t->seg[i].name;
	return NULL;
}

/* The basename of the executable object holding addr, or NULL. */
static const char *caller_object(const void *addr)
{
	const struct seg_table *t = __atomic_load_n(&segs, __ATOMIC_ACQUIRE);
	const char *name = seg_lookup(t, (uintptr_t)addr);
	int expect = 0;

	if (name || !addr)
		return name;
	/* a miss: rebuild, unless another thread is at it */
	if (__atomic_compare_exchange_n(&seg_busy, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		struct seg_table *next = t == &seg_tables[0] ? &seg_tables[1] : &seg_tables[0];

		next->n = 0;
		dl_iterate_phdr(add_segs, next);
		__atomic_store_n(&segs, next, __ATOMIC_RELEASE);
		__atomic_store_n(&seg_busy, 0, __ATOMIC_RELEASE);
		return seg_lookup(next, (uintptr_t)addr);
	}
	return NULL;
}

/*
 * from= for this call.  A loop calls from one place: each thread keeps its
 * last answer (return address, glob, result).  The entry is three words,
 * so a sequence number guards it against a signal handler that calls a
 * mocked function while this thread is writing or reading it: odd while
 * written (the handler then neither uses nor writes it), and changed
 * under a reader that was interrupted (the reader then asks again).
 */
static __thread struct {
	unsigned seq;
	uint32_t glob;
	int match;
	const void *caller;
} t_from __attribute__((tls_model("initial-exec")));

/* A cache miss: which object called, and does it match (errno kept). */
static __attribute__((noinline)) int from_lookup(uint32_t from_glob, const void *caller,
						 unsigned seq)
{
	int saved = errno, match;
	const char *obj = caller_object(caller);

	match = obj && ms_glob_match(ms_d.pool + from_glob, obj);
	if (!(seq & 1) && t_from.seq == seq) {
		t_from.seq = seq + 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t_from.caller = caller;
		t_from.glob = from_glob;
		t_from.match = match;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t_from.seq = seq + 2;
	}
	errno = saved;
	return match;
}

static inline int from_here(uint32_t from_glob, const void *caller)
{
	unsigned seq = t_from.seq;
	int match;

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (ms_likely(!(seq & 1) && t_from.caller == caller && t_from.glob == from_glob)) {
		match = t_from.match;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (ms_likely(t_from.seq == seq))
			return match;
	}
	return from_lookup(from_glob, caller, seq);
}

static char *put_hex(char *p, char *end, uint64_t v)
{
	char tmp[16];
	int n = 0;

	do
		tmp[n++] = "0123456789abcdef"[v & 15];
	while ((v >>= 4) && n < 16);
	if (p + 2 + n >= end)
		return p;
	*p++ = '0';
	*p++ = 'x';
	while (n)
		*p++ = tmp[--n];
	*p = '\0';
	return p;
}

/* getpwuid/getpwnam's result: static storage, as glibc's own (the strings
 * stay in the channel, which lives as long as the process). */
static struct passwd *passwd_of(const struct ms_rule *r)
{
	static struct passwd pw;
	struct ms_passwd_rec rec;

	memcpy(&rec, ms_d.pool + r->value_str, sizeof(rec));
	pw.pw_name = (char *)ms_d.pool + rec.name;
	pw.pw_passwd = (char *)ms_d.pool + rec.passwd;
	pw.pw_gecos = (char *)ms_d.pool + rec.gecos;
	pw.pw_dir = (char *)ms_d.pool + rec.dir;
	pw.pw_shell = (char *)ms_d.pool + rec.shell;
	pw.pw_uid = rec.uid;
	pw.pw_gid = rec.gid;
	return &pw;
}

/* getpw*_r: the passwd record at pool offset off into *pw, its strings
 * copied into buf; 0 if they do not fit in buflen bytes (ERANGE). */
static int fill_passwd(uint32_t off, struct passwd *pw, char *buf, uint64_t buflen)
{
	struct ms_passwd_rec rec;
	const uint32_t *strs[] = { &rec.name, &rec.passwd, &rec.gecos, &rec.dir, &rec.shell };
	char **dst[] = { &pw->pw_name, &pw->pw_passwd, &pw->pw_gecos, &pw->pw_dir,
			 &pw->pw_shell };
	size_t len[5];
	uint64_t need = 0, at = 0;

	memcpy(&rec, ms_d.pool + off, sizeof(rec));
	for (unsigned i = 0; i < 5; i++)
		need += len[i] = slen(ms_d.pool + *strs[i]) + 1;
	if (!buf || need > buflen)
		return 0;
	for (unsigned i = 0; i < 5; i++) {
		memcpy(buf + at, ms_d.pool + *strs[i], len[i]);
		*dst[i] = buf + at;
		at += len[i];
	}
	pw->pw_uid = rec.uid;
	pw->pw_gid = rec.gid;
	return 1;
}

/* A struct group from the rule's record: static storage, as glibc's; the
 * members are split out of a copy of the comma separated list. */
static struct group *group_of(const struct ms_rule *r)
{
	static struct group gr;
	static char names[4096];
	static char *mem[64];
	struct ms_group_rec rec;
	size_t n, k = 0;

	memcpy(&rec, ms_d.pool + r->value_str, sizeof(rec));
	gr.gr_name = (char *)ms_d.pool + rec.name;
	gr.gr_passwd = (char *)ms_d.pool + rec.passwd;
	gr.gr_gid = rec.gid;
	n = slen(ms_d.pool + rec.mem);
	if (n >= sizeof(names))
		n = sizeof(names) - 1;
	memcpy(names, ms_d.pool + rec.mem, n);
	names[n] = '\0';
	for (char *p = names; n && k < sizeof(mem) / sizeof(mem[0]) - 1;) {
		mem[k++] = p;
		while (*p && *p != ',')
			p++;
		if (!*p)
			break;
		*p++ = '\0';
	}
	mem[k] = NULL;
	gr.gr_mem = mem;
	return &gr;
}

/* gethostbyname*'s result from the rule's addresses: static storage, as
 * glibc's; h_name is the name asked for, the addresses those of the
 * first one's family. */
static struct hostent *hostent_of(const struct ms_rule *r, const uint64_t *a)
{
	static struct hostent he;
	static char name[256];
	static char *aliases[1];
	static char *list[65];
	static unsigned char addrs[64][16];
	size_t n = ms_read_user(name, (const void *)(uintptr_t)a[0], sizeof(name) - 1), k = 0;
	struct ms_addr ad;
	uint16_t family = 0;

	name[n < sizeof(name) ? n : sizeof(name) - 1] = '\0';
	name[sizeof(name) - 1] = '\0';
	for (uint64_t i = 0; i < (uint64_t)r->value && i < 64; i++) {
		memcpy(&ad, ms_d.pool + r->value_str + i * sizeof(ad), sizeof(ad));
		if (!family)
			family = ad.family;
		if (ad.family != family)
			continue;
		memcpy(addrs[k], ad.addr, sizeof(addrs[k]));
		list[k] = (char *)addrs[k];
		k++;
	}
	list[k] = NULL;
	aliases[0] = NULL;
	he.h_name = name;
	he.h_aliases = aliases;
	he.h_addrtype = family;
	he.h_length = family == AF_INET6 ? 16 : 4;
	he.h_addr_list = list;
	return &he;
}

/* ---- the decision's hooks (decide.h): what only a call of this process has ---- */

int ms_hook_from(uint32_t from_glob, const void *caller)
{
	return from_here(from_glob, caller);
}

void ms_hook_caller(const void *caller, struct ms_event *e)
{
	Dl_info info;
	const char *obj = object_of(caller, &info);

	if (obj) {
		e->caller_off = (uint64_t)((uintptr_t)caller - (uintptr_t)info.dli_fbase);
		ms_copy_str(e->caller, MS_EV_CALLER, obj);
		if (info.dli_sname && info.dli_saddr) {
			char *p, *end = e->sym + MS_EV_SYM;

			ms_copy_str(e->sym, MS_EV_SYM - 20, info.dli_sname);
			p = e->sym + slen(e->sym);
			if (p + 1 < end) {
				*p++ = '+';
				put_hex(p, end, (uintptr_t)caller - (uintptr_t)info.dli_saddr);
			}
		}
	} else {
		e->caller_off = (uint64_t)(uintptr_t)caller;
	}
}

void ms_hook_abort(void)
{
	ms_diag("a check failed: aborting (--on-fail=abort)", NULL);
	abort();
}

int ms_hook_out(unsigned id, uint32_t ri, const struct ms_rule *r, const struct ms_out *o,
		const uint64_t *a, uint32_t call, const void *caller)
{
	void *p = (void *)(uintptr_t)a[o->param];
	int rc = 0;

	switch (o->kind) {
	case MS_O_PASSWD_R: {
		/* the row's layout (validated): pwd, buf, buflen, result */
		struct passwd **res = (struct passwd **)(uintptr_t)a[o->param + 3];

		if (!res || (o->data && !p)) {
			ms_output_null(id, ri, call, caller, res ? o->param : o->param + 3);
			break;
		}
		*res = NULL;
		if (!o->data)
			break;
		if (fill_passwd(o->data, p, (char *)(uintptr_t)a[o->param + 1], a[o->param + 2]))
			*res = p;
		else
			rc = ERANGE;
		break;
	}
	case MS_O_STRDUP:
	case MS_O_POOLPTR: {
		/* a declared char ** (the caller frees a copy from its
		 * own malloc: copy_alloc), const char **, or a string
		 * field of a declared struct (at byte len) */
		const char *str = ms_d.pool + o->data;
		char *c = (char *)str;

		if (!p) {
			ms_output_null(id, ri, call, caller, o->param);
			break;
		}
		if (o->kind == MS_O_STRDUP) {
			size_t len = slen(str) + 1;

			c = copy_alloc(len);
			if (c)
				memcpy(c, str, len);
		}
		memcpy((char *)p + o->len, &c, sizeof(c));
		break;
	}
	case MS_O_ADDRINFO:
		if (!p) {
			ms_output_null(id, ri, call, caller, o->param);
			break;
		}
		/* only getaddrinfo's row has this output (validated) */
		rc = ms_build_addrinfo(ms_d.pool + o->data, o->len, (const char *)(uintptr_t)a[0],
				       (const char *)(uintptr_t)a[1],
				       (const struct addrinfo *)(uintptr_t)a[2], p);
		break;
	case MS_O_FERROR:
		/* glibc's FILE starts with int _flags; _IO_ERR_SEEN is 0x20:
		 * ferror() must see the failure, as after a real one. */
		if (p && r->kind == MS_R_FAIL)
			*(int *)p |= 0x20;
		break;
	default:
		break;
	}
	return rc;
}

int64_t ms_hook_value(const struct ms_rule *r, const uint64_t *a, int64_t v)
{
	if (r->flags & MS_RF_STRVAL)
		v = (int64_t)(uintptr_t)(ms_d.pool + r->value_str);
	if (r->flags & MS_RF_OWNED) {
		/* strdup's caller frees what it gets: a copy from its own
		 * malloc (copy_alloc; strdup is not async-signal-safe either) */
		size_t n = slen(ms_d.pool + r->value_str) + 1;
		char *c = copy_alloc(n);

		if (c)
			memcpy(c, ms_d.pool + r->value_str, n);
		v = (int64_t)(uintptr_t)c;
	}
	if (r->flags & MS_RF_PASSWD)
		v = (int64_t)(uintptr_t)passwd_of(r);
	if (r->flags & MS_RF_GROUP)
		v = (int64_t)(uintptr_t)group_of(r);
	if (r->flags & MS_RF_HOSTENT)
		v = (int64_t)(uintptr_t)hostent_of(r, a);
	return v;
}

/* The first call of a process (or of a thread racing the attach). */
static __attribute__((noinline)) int consult_attaching(unsigned id, const uint64_t *args,
						       int64_t *ret, const void *caller)
{
	int saved = errno;

	attach();
	errno = saved;
	/* chan and the section pointers are only read once attach is done
	 * (acquire): another thread may be attaching right now */
	if (!__atomic_load_n(&live, __ATOMIC_ACQUIRE))
		return 0;
	return ms_decide(id, args, ret, caller);
}

/* id is a catalog id: the trampolines pass constants. */
int ms_consult(unsigned id, const uint64_t *args, int64_t *ret, const void *caller)
{
	if (ms_guard)
		return 0;
	if (ms_unlikely(!__atomic_load_n(&live, __ATOMIC_ACQUIRE)))
		return __atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) == ATTACH_DONE
			       ? 0 : consult_attaching(id, args, ret, caller);
	if (ms_unlikely(ms_trace_timed) && (ms_d.fns[id].flags & MS_FF_TRACED))
		ms_trace_start();
	return ms_decide(id, args, ret, caller);
}

/* ---- handler modules (include/mockshim/handler.h) ---- */

#define MAX_MOCKS 512
#define HANDLER_PREFIX "mockshim_handler_"

static struct mockshim_mock *mocks[MAX_MOCKS];
static unsigned nmocks;

MS_EXPORT void *(*const mockshim_dlsym)(void *, const char *) = dlsym;

static int dyn_find(const char *name)
{
	const struct ms_chan_dyn *d;

	if (!ms_channel())
		return -1;
	d = ms_chan_at(ms_d.chan, ms_d.chan->dyn_off);
	for (uint32_t i = 0; i < ms_d.chan->ndyn; i++)
		if (strcmp(ms_d.pool + d[i].name, name) == 0)
			return (int)(MS_FN_COUNT + i);
	return -1;
}

MS_EXPORT void mockshim_register(struct mockshim_mock *m)
{
	int saved = errno, id;
	void (*missing)(void) = ms_missing_real;
	unsigned slot;

	if (m->abi != MOCKSHIM_MOCK_ABI) {
		ms_diag("warning: a handler module of another ABI: ", m->name, " stays unmocked", NULL);
		return;
	}
	ms_guard++;
	if (__atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) != ATTACH_DONE)
		attach();
	if (!m->real.ptr) {
		ms_diag("warning: no real definition of ", m->name, " after its handler module", NULL);
		memcpy(&m->real.ptr, &missing, sizeof(m->real.ptr));
	}
	id = dyn_find(m->name);
	m->id = id < 0 ? UINT32_MAX : (unsigned)id;
	slot = __atomic_fetch_add(&nmocks, 1, __ATOMIC_ACQ_REL);
	if (slot < MAX_MOCKS)
		__atomic_store_n(&mocks[slot], m, __ATOMIC_RELEASE);
	/* armed last: from here on calls enter the handler */
	__atomic_store_n(&m->armed, id >= 0 && ms_applies_here((unsigned)id),
			 __ATOMIC_RELEASE);
	ms_guard--;
	errno = saved;
}

/* The module function a handler (its __func__) stands for: its id, or -1. */
static int handler_id(const char *func)
{
	size_t k = sizeof(HANDLER_PREFIX) - 1;
	unsigned n = __atomic_load_n(&nmocks, __ATOMIC_ACQUIRE);

	if (!func || strncmp(func, HANDLER_PREFIX, k) != 0 || !ms_channel())
		return -1;
	for (unsigned i = 0; i < n && i < MAX_MOCKS; i++) {
		const struct mockshim_mock *m = __atomic_load_n(&mocks[i], __ATOMIC_ACQUIRE);

		if (m && m->id != UINT32_MAX && strcmp(m->name, func + k) == 0)
			return (int)m->id;
	}
	return -1;
}

static uintmax_t mock_pop(const char *func, const void *caller, int want_double);

MS_EXPORT uintmax_t mockshim_mock_value(const char *func)
{
	return mock_pop(func, MS_CALLER, 0);
}

MS_EXPORT double mockshim_mock_double(const char *func)
{
	uintmax_t bits = mock_pop(func, MS_CALLER, 1);
	int64_t b = (int64_t)bits;
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

/* The next queued value; a double's bits when want_double (an integer
 * value is converted), an integer otherwise (a double is truncated). */
static uintmax_t mock_pop(const char *func, const void *caller, int want_double)
{
	int saved = errno, id = handler_id(func);
	uintmax_t v = 0;
	uint32_t last = UINT32_MAX, pop;
	const struct ms_chan_fn *f;

	if (id < 0)
		return 0;
	f = &ms_d.fns[id];
	pop = ms_number_call((unsigned)id);
	for (uint32_t k = 0; k < f->nrules; k++) {
		uint32_t ri = f->first_rule + k;
		const struct ms_rule *r = &ms_d.rules[ri];

		last = ri;
		if (!ms_in_scope(&r->stmt, caller) || !ms_claim_turn(&ms_d.rst[ri].consumed, r->stmt.count))
			continue;
		v = (r->flags & MS_RF_STRVAL) ? (uintmax_t)(uintptr_t)(ms_d.pool + r->value_str)
					      : (uintmax_t)r->value;
		if (!(r->flags & MS_RF_DOUBLE) != !want_double) {
			double d;
			int64_t b = r->value;

			if (want_double) {
				d = (double)r->value;
				memcpy(&b, &d, sizeof(b));
			} else {
				memcpy(&d, &b, sizeof(d));
				b = (int64_t)d;
			}
			v = (uintmax_t)b;
		}
		ms_log_consume((unsigned)id, ri, 0, (int64_t)v, caller);
		goto out;
	}
	{
		/* CMocka: mock() with nothing queued fails the test */
		struct ms_failure fl = { .kind = MS_FAIL_MOCK_EMPTY, .seq = pop };

		ms_record_failure((unsigned)id, last, 0, caller, &fl);
	}
out:
	errno = saved;
	return v;
}

MS_EXPORT void mockshim_check_expected(const char *func, const char *param, uintmax_t value)
{
	int saved = errno, id = handler_id(func);
	const struct ms_chan_dyn *d;
	const char *p;
	uint8_t index = 0;

	if (id < 0)
		return;
	d = (const struct ms_chan_dyn *)ms_chan_at(ms_d.chan, ms_d.chan->dyn_off) + (id - MS_FN_COUNT);
	for (p = ms_d.pool + d->params; *p; index++) {
		size_t n = 0;

		while (p[n] && p[n] != ',')
			n++;
		if (slen(param) == n && strncmp(p, param, n) == 0) {
			ms_check_param((unsigned)id, index, (uint64_t)value, NULL, 0, MS_CALLER);
			goto out;
		}
		p += n + (p[n] == ',');
	}
	ms_diag("warning: check_expected(", param, "): no such parameter of ", func + sizeof(HANDLER_PREFIX) - 1, NULL);
out:
	errno = saved;
}

MS_EXPORT void mockshim_function_called(const char *func)
{
	int saved = errno, id = handler_id(func);

	if (id < 0)
		return;
	ms_check_order((unsigned)id, NULL, 0, MS_CALLER);
	errno = saved;
}
