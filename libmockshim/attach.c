/* SPDX-License-Identifier: MIT */
/*
 * The owner of the attached channel: it binds the real symbols, attaches
 * the channel (validated once, mapped read-only and the state writable),
 * publishes the views every other part reads (ms_d, decide.h; the fast
 * slots, shim.h), re-arms after a fork or a change of scope, and holds
 * ms_consult(), the one slow path every armed trampoline takes, beside
 * the attach it may have to finish (one translation unit: the hot path's
 * inlining does not depend on another file).  Around it: caller.c (which
 * object called: from=, the report's caller), reply.c (what a reply
 * writes besides the value), handler.c (handler modules' API).
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

#include "channel/channel.h"
#include "decide/decide.h"
#include "shim.h"
#include "catalog/catalog.h"
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
/* The fast slots (shim.h): ms_d.log_key as a reply's slot going live
 * compares it */
int32_t ms_fast_key = -1;
uint8_t ms_fast_any;
#define MS_FAST_SLOTS (MS_FN_COUNT + MS_DECL_MAX)
struct ms_fast ms_fast[MS_FAST_SLOTS];
__thread uint64_t *ms_t_lanes __attribute__((tls_model("initial-exec"))) = ms_lanes_none;
uint64_t ms_lanes_none[MS_LANES], ms_lanes_single[MS_LANES];

/* This thread's lane block: the next the state has, or none left. */
void ms_lanes_give(void)
{
	uint32_t i = __atomic_fetch_add(&ms_d.st->lanes_next, 1, __ATOMIC_RELAXED);

	ms_t_lanes = ms_d.lanes && i < ms_d.chan->lanes_cap ? ms_d.lanes + (size_t)i * MS_LANES
							      : ms_lanes_single;
}

enum { ATTACH_NONE, ATTACH_BUSY, ATTACH_DONE };
static int attach_state;

extern char **environ;

/* ---- diagnostics ---- */

static size_t append(char *buf, size_t n, size_t cap, const char *s)
{
	size_t k = ms_slen(s);

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

/* By hand, not strncmp: every process runs this a few times in its
 * constructor, and most entries differ at their first byte. */
const char *ms_env(const char *key)
{
	for (char **e = environ; e && *e; e++) {
		const char *p = *e, *q = key;

		while (*q && *p == *q)
			p++, q++;
		if (!*q && *p == '=')
			return p + 1;
	}
	return NULL;
}

/*
 * in= also matches argv[0]'s basename: what the user typed ("python3"
 * started /usr/bin/python3.11).  glibc's program_invocation_name is
 * argv[0], set before any constructor; read once per process (at attach,
 * so again after each exec), never per call.  "" when it says nothing
 * exe_name does not.
 */
static void read_arg0_name(void)
{
	const char *a = program_invocation_name, *base;
	size_t n;

	ms_d.arg0_name[0] = '\0';
	if (!a || !*a)
		return;
	base = a;
	for (const char *p = a; *p; p++)
		if (*p == '/')
			base = p + 1;
	n = ms_slen(base);
	if (!n || n >= sizeof(ms_d.arg0_name) || strcmp(base, ms_d.exe_name) == 0)
		return;
	memcpy(ms_d.arg0_name, base, n + 1);
}

/* probability=: this process's draws (decide/when.c:ms_dec_draw) */
#define DRAW_RULES 1024
static uint32_t draw_tries[DRAW_RULES];
static uint32_t forks_made;

static uint64_t draw_mix(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull; /* FNV-1a */
	return h;
}

/* The key of a process's stream: its executable and arguments, read once
 * per process (at attach: again after each exec). */
static void read_draw_key(void)
{
	char buf[4096];
	long n = 0, k;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	uint64_t h = draw_mix(0xcbf29ce484222325ull, (const unsigned char *)ms_d.exe_name,
			      ms_slen(ms_d.exe_name) + 1);

	if (fd >= 0) {
		while (n < (long)sizeof(buf) &&
		       (k = syscall(SYS_read, fd, buf + n, sizeof(buf) - (size_t)n)) > 0)
			n += k;
		syscall(SYS_close, fd);
		/* argv[0] as typed varies (a path, a name): the arguments after it */
		for (k = 0; k < n && buf[k]; k++)
			;
		if (k < n)
			h = draw_mix(h, (const unsigned char *)buf + k, (size_t)(n - k));
	}
	ms_d.draw_key = h;
	ms_d.draw_tries = draw_tries;
	ms_d.ndraw = DRAW_RULES;
	memset(draw_tries, 0, sizeof(draw_tries));
	forks_made = 0;
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
	n = (long)ms_slen(base);
	if (n >= (long)sizeof(ms_d.exe_name))
		n = sizeof(ms_d.exe_name) - 1;
	memcpy(ms_d.exe_name, base, (size_t)n);
	ms_d.exe_name[n] = '\0';
	read_arg0_name();
	read_draw_key();
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
 * (ms_hook_exec_check).
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

/* The loaded object whose segments hold addr: its name.  (dladdr() would
 * also look for the nearest symbol, through all of the shim's.) */
struct own_object {
	uintptr_t addr;
	const char *name;
};

static int find_own_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct own_object *o = arg;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_LOAD && o->addr - (info->dlpi_addr + p->p_vaddr) < p->p_memsz) {
			o->name = info->dlpi_name;
			return 1;
		}
	}
	return 0;
}

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
	h = map_part(path, comma ? (size_t)(comma - path) : ms_slen(path), &fdv, 0, &size, &why);
	if (!h)
		goto fail;
	if (!comma) {
		why = "no state (not SPEC,STATE)";
		goto fail;
	}
	why = ms_channel_validate_attach(h, size);
	if (why)
		goto fail;
	state = map_part(comma + 1, ms_slen(comma + 1), &fdv, 1, &state_size, &why);
	if (!state)
		goto fail;
	why = ms_state_validate(h, state, state_size);
	if (why)
		goto fail;
	rec_log = h->rec_cap ? ms_state_at(state, h->st_rec_off) : NULL;
	rec_cap = h->rec_cap;
	ms_dec_tables(h, state);
	read_exe_name();
	ms_copy_str(chan_env, sizeof(chan_env), ms_slen(path) < sizeof(chan_env) ? path : "");
	{
		const char *pre = ms_env("LD_PRELOAD");

		struct own_object o = { (uintptr_t)ms_armed, NULL };

		/* the name LD_PRELOAD must keep, looked up now: the exec path
		 * may run in a vfork child or a signal handler */
		dl_iterate_phdr(find_own_object, &o);
		if (o.name && *o.name) {
			const char *b = o.name;

			for (const char *q = o.name; *q; q++)
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
	ms_trace_open(ms_d.chan, ms_d.pool, ms_d.st);
	ms_site_warm();
	ms_crash_install();
	ms_power_open(ms_d.chan, ms_d.pool, ms_d.rules);
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
	ms_guard += MS_GUARD;
}

void ms_guard_leave(void)
{
	ms_guard -= MS_GUARD;
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


/* Whether a statement of function fn (catalog or not) is for this
 * program (in=), or fn is traced, recorded or counted.  Its statements
 * are checked. */
static int applies_here(unsigned fn)
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

/* Fills slot s with function f's only statement, expect_value for any
 * caller, if it is one: live at once (nothing to log first). */
static void fast_fill_expect(struct ms_fast *s, const struct ms_chan_fn *f, unsigned fn)
{
	const struct ms_expect *y = &ms_d.expects[f->first_expect];

	if (y->kind != MS_X_VALUE || y->delay_us || y->stmt.from_glob || y->stmt.ncond ||
	    !ms_in_here(y->stmt.in_glob) || y->stmt.count == 0)
		return;
	s->count = y->stmt.count;
	s->far = y->stmt.count > MS_CLAIM_SLACK ? y->stmt.count - MS_CLAIM_SLACK : 0;
	s->value = y->lo;
	s->mask = y->psize >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * y->psize)) - 1;
	s->param = y->param;
	s->consumed = &ms_d.xst[f->first_expect].consumed;
	s->calls = &ms_d.fst[fn].calls;
	s->kind = MS_FAST_EXPECT;
	__atomic_store_n(&ms_fast_any, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&s->live, MS_FAST_EXPECT, __ATOMIC_RELEASE);
}

/*
 * Whether rule r, not plain, is a reply with one output the fast slot
 * writes (MS_FAST_OUT): constant bytes through a pointer argument, at
 * most an argument's worth (buf="...", reply()'s MS_O_BYTES) or all of
 * them (*tp={...}, MS_O_STORE); a value, or `_` as the bytes copied; no
 * errno, delay or probability.  Fills s's output fields if so.
 */
static int fast_fill_out(struct ms_fast *s, const struct ms_rule *r)
{
	const struct ms_out *o;

	if (r->kind != MS_R_RETURN || r->nouts != 1 || r->delay_ns || r->prob ||
	    (r->flags & ~MS_RF_DEFAULT))
		return 0;
	o = &ms_d.outs[r->outs_first];
	if (o->cap2 != MS_NONE8)
		return 0;
	if (o->kind == MS_O_BYTES ? o->cap1 == MS_CAP_OWN : o->kind != MS_O_STORE || o->cap1 != MS_NONE8)
		return 0;
	/* `_`: the bytes a buf= copied; a store copies none */
	if ((r->flags & MS_RF_DEFAULT) &&
	    (r->rd_kind != MS_RD_BYTES || r->rd_div != MS_NONE8 || o->kind != MS_O_BYTES))
		return 0;
	s->param = o->param;
	s->data = ms_d.pool + o->data;
	s->len = o->len;
	s->cap = o->cap1;
	s->bytes = (r->flags & MS_RF_DEFAULT) != 0;
	s->calls = &ms_d.fst[r->stmt.fn].calls;
	return 1;
}

/* Fills function fn's fast slot (struct ms_fast), or empties it. */
static void fast_fill(unsigned fn)
{
	const struct ms_chan_fn *f = &ms_d.fns[fn];
	const struct ms_rule *r = &ms_d.rules[f->first_rule];
	struct ms_fast *s = &ms_fast[fn];

	__atomic_store_n(&s->live, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&s->kind, 0, __ATOMIC_RELAXED);
	s->far = 0;
	s->lane_off = -1;
	/* -v logs every call; a fake clock's calls are ms_timed_NAME's */
	if ((ms_d.chan->flags & MS_CHAN_LOG_CALLS) || ms_time_arms(fn) ||
	    (ms_power_on && ms_power_fn(fn)))
		return;
	if (f->nrules == 0 && f->nexpects == 1 && !f->flags) {
		fast_fill_expect(s, f, fn);
		return;
	}
	/* traced and nothing else: ms_decide's 2 without a rule to read */
	if (f->flags == MS_FF_TRACED && !f->nrules && !f->nexpects) {
		s->calls = &ms_d.fst[fn].calls;
		s->kind = MS_FAST_TRACE;
		__atomic_store_n(&ms_fast_any, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&s->live, MS_FAST_TRACE, __ATOMIC_RELEASE);
		return;
	}
	if (f->nrules && !f->nexpects && !f->flags) {
		uint32_t k = 0;

		while (k < f->nrules && (r[k].stmt.from_glob || !ms_in_here(r[k].stmt.in_glob)))
			k++;
		if (k == f->nrules) {
			s->kind = MS_FAST_SKIP;
			__atomic_store_n(&ms_fast_any, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&s->live, MS_FAST_SKIP, __ATOMIC_RELEASE);
			return;
		}
	}
	if (f->nrules != 1 || f->nexpects || (f->flags & ~MS_FF_LEAN) ||
	    (!ms_rule_plain(r) && !fast_fill_out(s, r)) ||
	    /* a double's bits: a declared stub returns them in xmm0 too */
	    ((r->flags & MS_RF_DOUBLE) && fn < MS_FN_COUNT) ||
	    r->stmt.from_glob || r->stmt.ncond || !ms_in_here(r->stmt.in_glob) ||
	    r->stmt.count == 0)
		return;
	s->count = r->stmt.count;
	s->far = r->stmt.count > MS_CLAIM_SLACK ? r->stmt.count - MS_CLAIM_SLACK : 0;
	s->err = r->err;
	s->value = r->value;
	s->consumed = &ms_d.rst[f->first_rule].consumed;
	s->logged_pid = &ms_d.rst[f->first_rule].logged_pid;
	if (r->nouts)
		s->kind = MS_FAST_OUT;
	else if (r->flags & MS_RF_ERRNO)
		s->kind = r->stmt.count < 0 ? MS_FAST_ALWAYS_ERRNO : MS_FAST_QUEUE_ERRNO;
	else
		s->kind = r->stmt.count < 0 ? MS_FAST_ALWAYS : MS_FAST_QUEUE;
	/* a queue of many turns: taken from this thread's lane */
	if (r->lane && s->far > MS_LANE_BATCH) {
		s->lane_off = (int64_t)(r->lane - 1) * (int64_t)sizeof(uint64_t);
		if (s->kind == MS_FAST_QUEUE)
			s->kind = MS_FAST_LANE;
	}
}

/* Function i's ms_armed bits whatever its statements: the fake clock's
 * (MS_ARM_TIME; timed: any fake time, ms_time_any()), dlopen for declared
 * prototypes, the allocator while the bootstrap arena is in use. */
static inline uint8_t armed_besides(unsigned i, int boot, int timed)
{
	/* power_loss() tracks these whatever the statements */
	if (ms_unlikely(ms_power_on) && ms_power_fn(i))
		return MS_ARM_RULES | (timed ? ms_time_arms(i) : 0);
	if (!timed && i != MS_ID_dlopen && i != MS_ID_free && i != MS_ID_realloc)
		return 0;
	return (timed ? ms_time_arms(i) : 0) |
	       ((i == MS_ID_dlopen && ms_decl_active()) ||
				((i == MS_ID_free || i == MS_ID_realloc) &&
				 (boot || __atomic_load_n(&ms_boot_used, __ATOMIC_SEQ_CST)))
			? MS_ARM_RULES : 0);
}

/*
 * A function's statements are checked (ms_channel_fn_ok) and matched
 * against this program (in=) at its first call, not at attach: a process
 * pays for the functions it calls, whatever the size of the spec.  Per
 * function: unchecked, being checked (by one thread; any other, or a
 * signal handler, checks for itself meanwhile), on, off.  A process that
 * forks keeps its answers: its child runs the same program.
 */
enum { FN_UNCHECKED, FN_CHECKING, FN_ON, FN_OFF };
static uint8_t fn_state[MS_FN_COUNT + MS_DECL_MAX];
static uint8_t orders_state;	/* 0 unchecked, 1 good, 2 bad */

/* Whether function fn's statements are good and one is for this program;
 * *why says what is wrong with them. */
static int fn_check(unsigned fn, const char **why)
{
	const struct ms_chan_fn *f = &ms_d.fns[fn];

	*why = ms_channel_fn_ok(ms_d.chan, fn);
	/* the call-order entries, read by the calls of functions with flags */
	if (!*why && (f->flags & ~(MS_FF_LEAN | MS_FF_LEAN_AIMED))) {
		uint8_t o = __atomic_load_n(&orders_state, __ATOMIC_ACQUIRE);

		if (!o) {
			o = ms_channel_orders_ok(ms_d.chan) ? 2 : 1;
			__atomic_store_n(&orders_state, o, __ATOMIC_RELEASE);
		}
		if (o == 2)
			*why = ms_channel_orders_ok(ms_d.chan);
	}
	return !*why && applies_here(fn);
}

static void warn_fn(unsigned fn, const char *why)
{
	const struct ms_fn_meta *m = fn < MS_FN_COUNT ? ms_catalog_get(fn) : NULL;
	const char *name = m ? m->name : ms_d.pool + ms_d.dyn[fn - MS_FN_COUNT].name;

	ms_diag("warning: ignoring the statements for ", name, " in the channel ",
		chan_env[0] ? chan_env : "(inherited)", ": ", why,
		"; its calls go to the real function", NULL);
}

int ms_fn_ready(unsigned fn)
{
	uint8_t st = FN_UNCHECKED;
	const char *why;
	int on;

	if (fn < sizeof(fn_state)) {
		st = __atomic_load_n(&fn_state[fn], __ATOMIC_ACQUIRE);
		if (st == FN_ON || st == FN_OFF)
			return st == FN_ON;
	}
	on = fn_check(fn, &why);
	if (fn >= sizeof(fn_state)) {
		if (why)
			warn_fn(fn, why);
		return on;
	}
	if (st != FN_UNCHECKED ||
	    !__atomic_compare_exchange_n(&fn_state[fn], &st, FN_CHECKING, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return on;
	if (why)
		warn_fn(fn, why);
	if (on && fn < MS_FAST_SLOTS)
		fast_fill(fn);
	__atomic_store_n(&fn_state[fn], on ? FN_ON : FN_OFF, __ATOMIC_RELEASE);
	/* nothing here for it: unarmed from now on, as if the spec had
	 * never named it (but free and realloc, which boot_alloc() may arm
	 * meanwhile: they stay armed and find fn_state off) */
	if (!on && fn < MS_FN_COUNT && fn != MS_ID_free && fn != MS_ID_realloc)
		__atomic_store_n(&ms_armed[fn], armed_besides(fn, 0, ms_time_any()), __ATOMIC_SEQ_CST);
	return on;
}

void ms_rearm(void)
{
	int done = __atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) == ATTACH_DONE;
	int boot = __atomic_load_n(&ms_boot_used, __ATOMIC_RELAXED);

	if (!done)
		return; /* everything stays on the slow path until attached */
	ms_time_setup();
	if (!ms_d.chan) {
		/*
		 * No channel (LD_PRELOAD alone, or one that did not validate):
		 * nothing is armed, so no row to look at.  Relaxed stores of
		 * eight flags at a time (ms_armed is 8-aligned: shim.h), then
		 * one fence, not a sequentially consistent store per row.
		 * Ordered with boot_alloc() as before: the stores come before
		 * the fence, the fence before the load of ms_boot_used below,
		 * and a boot_alloc() that sets ms_boot_used after the fence
		 * re-arms free and realloc later in their order.
		 */
		typedef uint64_t __attribute__((may_alias)) word;
		word *w = (word *)(void *)ms_armed;
		unsigned i = 0;

		for (; i + sizeof(word) <= MS_FN_COUNT; i += sizeof(word))
			__atomic_store_n(&w[i / sizeof(word)], 0, __ATOMIC_RELAXED);
		for (; i < MS_FN_COUNT; i++)
			__atomic_store_n(&ms_armed[i], 0, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		boot = 0;
	}
	/* armed where the channel has anything for a function: its first
	 * call checks its statements and whether one is for this program
	 * (ms_fn_ready), and disarms it if not.  Relaxed stores and one
	 * fence, ordered with boot_alloc() as above. */
	for (unsigned i = 0, timed = ms_time_any(); ms_d.chan && i < MS_FN_COUNT; i++) {
		const struct ms_chan_fn *f = &ms_d.fns[i];
		uint8_t on = ((f->nrules | f->nexpects | f->flags) ? MS_ARM_RULES : 0) |
			     armed_besides(i, boot, (int)timed);

		/* its catalog row parsed now, once a function's (not a
		 * statement's): the first call's check reads it, and a signal
		 * handler's call that interrupted the parse would wait on it */
		if (f->nrules | f->nexpects)
			ms_catalog_get(i);
		__atomic_store_n(&ms_armed[i], on, __ATOMIC_RELAXED);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* the bootstrap arena may have been used meanwhile: see boot_alloc() */
	if (__atomic_load_n(&ms_boot_used, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&ms_armed[MS_ID_free], 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&ms_armed[MS_ID_realloc], 1, __ATOMIC_SEQ_CST);
	}
}

/* the parent, before each fork: the child's place among its forks */
static void forking(void)
{
	__atomic_fetch_add(&forks_made, 1, __ATOMIC_RELAXED);
}

static void forked(void)
{
	int32_t pid = (int32_t)syscall(SYS_getpid);
	uint32_t nth = __atomic_load_n(&forks_made, __ATOMIC_RELAXED);

	/* a stream of its own: its parent's key and its place, counts anew */
	ms_d.draw_key = draw_mix(ms_d.draw_key ^ 0x9e3779b97f4a7c15ull, (const unsigned char *)&nth,
				 sizeof(nth));
	memset(draw_tries, 0, sizeof(draw_tries));
	forks_made = 0;

	/* announced in the pid table at once: mockrun, reaping an orphan,
	 * tells the processes that ran unmocked by it */
	if (__atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) == ATTACH_DONE && ms_d.chan)
		ms_register_pid(pid, 0);
	ms_time_forked();
	ms_trace_forked(pid);
	/* the parent's live replies: this process has logged no turn yet
	 * (a check or a skip logs nothing: it stays live) */
	if (__atomic_load_n(&ms_fast_any, __ATOMIC_RELAXED))
		for (unsigned i = 0; i < MS_FAST_SLOTS; i++)
			if (ms_fast[i].live < MS_FAST_EXPECT)
				__atomic_store_n(&ms_fast[i].live, 0, __ATOMIC_RELAXED);
	/* its own lane block at its first turn: the parent's thread keeps
	 * the turns its block holds */
	if (ms_t_lanes != ms_lanes_single)
		ms_t_lanes = ms_lanes_none;
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
	pthread_atfork(forking, NULL, forked);
	attach();
}

void ms_attach_now(void)
{
	if (__atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) != ATTACH_DONE)
		attach();
}

/* A call in an attached process: a function's first call checks it. */
static inline int consult_attached(unsigned id, const uint64_t *args, int64_t *ret,
				   const void *caller)
{
	int k;

	if (ms_unlikely(__atomic_load_n(&fn_state[id], __ATOMIC_ACQUIRE) != FN_ON) &&
	    !ms_fn_ready(id)) {
		if (ms_unlikely(ms_power_on) && ms_power_fn(id))
			ms_power_note(id, args);
		return 0;
	}
	if (ms_unlikely(ms_trace_timed) && (ms_d.fns[id].flags & MS_FF_TRACED))
		ms_trace_start();
	k = ms_decide(id, args, ret, caller);
	/* power_loss(): after the decision (a power cut there never comes
	 * back; a mocked call changes nothing), before the real call */
	if (ms_unlikely(ms_power_on) && k != 1 && ms_power_fn(id))
		ms_power_note(id, args);
	return k;
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
	return consult_attached(id, args, ret, caller);
}

/* id is a catalog id: the trampolines pass constants. */
int ms_consult(unsigned id, const uint64_t *args, int64_t *ret, const void *caller)
{
	if (ms_guard)
		return 0;
	if (ms_unlikely(!__atomic_load_n(&live, __ATOMIC_ACQUIRE)))
		return __atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) == ATTACH_DONE
			       ? 0 : consult_attaching(id, args, ret, caller);
	return consult_attached(id, args, ret, caller);
}
