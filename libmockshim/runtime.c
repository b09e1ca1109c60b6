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
#include "shim.h"
#include "spec.h"
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
static __thread int32_t t_pid, t_tid __attribute__((tls_model("initial-exec")));

/* The spec, read-only (sealed), and the tables in it; the state, which
 * every process writes, and its sections.  Indices the state holds are
 * bounded where they are read: another process may have written them. */
static const struct ms_chan_hdr *chan;
static const struct ms_chan_hdr *live;	/* chan, once attached (release) */
static struct ms_state_hdr *st;
static const struct ms_chan_fn *fns;
static struct ms_fn_state *fst;
static const struct ms_rule *rules;
static struct ms_rule_state *rst;
static const struct ms_out *outs;
static const struct ms_expect *expects;
static struct ms_count_state *xst;
static const struct ms_order *orders;
static struct ms_count_state *ost;
static const struct ms_cond *conds;
static struct ms_event *events;
static int32_t *pids;
static const char *pool;
static char exe_name[64];
static int32_t my_pid;		/* the pid that last wrote an event */
/*
 * This process's pid, without a syscall: read at attach and again in the
 * child of every fork() (pthread_atfork).  A vfork() child shares it with
 * its parent, and so may skip announcing a turn of a rule its parent has
 * logged already (log_consume); events themselves read the real pid.
 */
static int32_t self_pid;
/* What a rule's logged_pid holds when this process need not log its turn:
 * self_pid, or under -v (MS_CHAN_LOG_CALLS) -1, which no rule holds. */
static int32_t log_key = -1;
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
			memcpy(exe_name, "?", 2);
			return;
		}
		base = execfn;
	}
	for (const char *p = base; *p; p++)
		if (*p == '/')
			base = p + 1;
	n = (long)slen(base);
	if (n >= (long)sizeof(exe_name))
		n = sizeof(exe_name) - 1;
	memcpy(exe_name, base, (size_t)n);
	exe_name[n] = '\0';
}

/* Records pid in the channel's table: 1 if it was not there yet. */
/*
 * Records pid in the channel's table.  A forked child is entered at the
 * fork as -pid (it carries the shim, so mockrun does not call it
 * unmocked), and announced (pid, an attach event) by its first event;
 * announce 0 enters it only.  Returns 1 when pid is to be announced now.
 */
static int register_pid(int32_t pid, int announce)
{
	uint32_t n = __atomic_load_n(&st->npids, __ATOMIC_ACQUIRE), slot;

	for (uint32_t i = 0; i < n && i < chan->pids_cap; i++) {
		int32_t v = __atomic_load_n(&pids[i], __ATOMIC_RELAXED);

		if (v == pid)
			return 0;
		if (v == -pid)
			return announce && __atomic_compare_exchange_n(&pids[i], &v, pid, 0,
								       __ATOMIC_ACQ_REL,
								       __ATOMIC_RELAXED);
	}
	slot = __atomic_fetch_add(&st->npids, 1, __ATOMIC_ACQ_REL);
	if (slot < chan->pids_cap)
		__atomic_store_n(&pids[slot], announce ? pid : -pid, __ATOMIC_RELEASE);
	return announce;
}

/*
 * Takes an event slot and fills the common fields; NULL when the log is
 * full.  Consume events leave the last quarter of the log to failures.
 * The caller fills the rest and calls ev_commit().
 */
static struct ms_event *ev_begin(uint16_t type, unsigned fn, uint32_t rule, uint32_t call);

struct ms_event *ms_ev_begin(uint16_t type, unsigned fn, uint32_t rule, uint32_t call)
{
	return chan ? ev_begin(type, fn, rule, call) : NULL;
}

void ms_ev_commit(struct ms_event *e)
{
	__atomic_store_n(&e->state, 1, __ATOMIC_RELEASE);
}

static struct ms_event *ev_begin(uint16_t type, unsigned fn, uint32_t rule, uint32_t call)
{
	int32_t pid, last;
	struct ms_event *e;
	uint32_t i;

	/* a full log costs no syscall */
	if (type == MS_EV_CONSUME &&
	    __atomic_load_n(&st->events_next, __ATOMIC_RELAXED) >= chan->events_cap / 4 * 3) {
		__atomic_fetch_add(&st->consume_dropped, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	if (__atomic_load_n(&st->events_next, __ATOMIC_RELAXED) >= chan->events_cap) {
		__atomic_fetch_add(&st->events_next, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	pid = (int32_t)syscall(SYS_getpid);
	last = __atomic_load_n(&my_pid, __ATOMIC_RELAXED);
	/* A child forked without exec shares our mapping and our memory: the
	 * first event it writes announces it, so reports can name it.  A
	 * vfork child even shares my_pid; the pid table tells the parent
	 * that it was announced already. */
	if (type != MS_EV_ATTACH && pid != last &&
	    __atomic_compare_exchange_n(&my_pid, &last, pid, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED) &&
	    register_pid(pid, 1)) {
		__atomic_fetch_add(&st->attached, 1, __ATOMIC_RELAXED);
		e = ev_begin(MS_EV_ATTACH, 0, UINT32_MAX, 0);
		if (e) {
			e->value = 1;
			memcpy(e->text, exe_name, sizeof(exe_name) < MS_EV_TEXT ? sizeof(exe_name) : MS_EV_TEXT);
			__atomic_store_n(&e->state, 1, __ATOMIC_RELEASE);
		}
	}
	i = __atomic_fetch_add(&st->events_next, 1, __ATOMIC_RELAXED);
	if (i >= chan->events_cap)
		return NULL;
	e = &events[i];
	e->type = type;
	e->fn = (uint16_t)fn;
	e->rule = rule;
	e->call = call;
	e->pid = pid;
	/* the tid is this thread's while the pid is the one it was read
	 * under: a forked (or vforked) child reads its own */
	if (t_pid != pid) {
		t_tid = (int32_t)syscall(SYS_gettid);
		t_pid = pid;
	}
	e->tid = t_tid;
	return e;
}

static void ev_commit(struct ms_event *e)
{
	__atomic_store_n(&e->state, 1, __ATOMIC_RELEASE);
}

/*
 * A rule took a turn.  The report names the processes that consumed each
 * rule, so an event is logged for the first turn each process takes of
 * each rule, and for every turn under -v (MS_CHAN_LOG_CALLS): the mocked
 * path of a queue's later calls then writes no event and makes no syscall.
 * A process's first turn still logs when the log is full, so that it is
 * announced (ev_begin) if there is room for that.  errno preserved.
 */
static void log_consume(unsigned id, uint32_t ri, uint32_t call, int64_t value, const void *caller)
{
	struct ms_event *e;

	if (__atomic_load_n(&rst[ri].logged_pid, __ATOMIC_RELAXED) ==
	    __atomic_load_n(&log_key, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&rst[ri].logged_pid, __atomic_load_n(&self_pid, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	e = ev_begin(MS_EV_CONSUME, id, ri, call);
	if (e) {
		e->value = value;
		e->caller_off = (uint64_t)(uintptr_t)caller;
		ev_commit(e);
	}
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = slen(src);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
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
	return chan && chan_env[0] ? chan_env : NULL;
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
	fns = ms_chan_at(h, h->fns_off);
	rules = ms_chan_at(h, h->rules_off);
	outs = ms_chan_at(h, h->outs_off);
	expects = ms_chan_at(h, h->expects_off);
	orders = ms_chan_at(h, h->orders_off);
	conds = ms_chan_at(h, h->conds_off);
	pool = ms_chan_at(h, h->pool_off);
	fst = ms_state_at(state, h->st_fns_off);
	rst = ms_state_at(state, h->st_rules_off);
	xst = ms_state_at(state, h->st_expects_off);
	ost = ms_state_at(state, h->st_orders_off);
	events = ms_state_at(state, h->st_events_off);
	pids = ms_state_at(state, h->st_pids_off);
	read_exe_name();
	copy_str(chan_env, sizeof(chan_env), slen(path) < sizeof(chan_env) ? path : "");
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
			copy_str(shim_base, sizeof(shim_base), b);
		}
		preload_env = pre && strstr(pre, shim_base);
	}
	chan = h;
	st = state;
	my_pid = (int32_t)syscall(SYS_getpid);
	__atomic_store_n(&self_pid, my_pid, __ATOMIC_RELAXED);
	__atomic_store_n(&log_key, (chan->flags & MS_CHAN_LOG_CALLS) ? -1 : my_pid,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&ms_fast_key, log_key, __ATOMIC_RELAXED);
	register_pid(my_pid, 1);
	ms_trace_open(chan, pool);
	__atomic_fetch_add(&st->attached, 1, __ATOMIC_RELAXED);
	{
		struct ms_event *e = ev_begin(MS_EV_ATTACH, 0, UINT32_MAX, 0);

		if (e) {
			copy_str(e->text, MS_EV_TEXT, exe_name);
			ev_commit(e);
		}
	}
	if ((chan->flags & MS_CHAN_STANDALONE) &&
	    __atomic_load_n(&st->owner_pid, __ATOMIC_RELAXED) == my_pid)
		ms_standalone_owner();
	goto done;
fail:
	if (h)
		syscall(SYS_munmap, h, (size_t)size);
	if (state)
		syscall(SYS_munmap, state, (size_t)state_size);
	warn_unmocked(shown, why);
done:
	__atomic_store_n(&live, chan, __ATOMIC_RELEASE);
	__atomic_store_n(&attach_state, ATTACH_DONE, __ATOMIC_RELEASE);
	ms_decl_bind(chan);
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
	return __atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) == ATTACH_DONE ? chan : NULL;
}

struct ms_state_hdr *ms_state(void)
{
	return __atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) == ATTACH_DONE ? st : NULL;
}

const char *ms_exe_name(void)
{
	return exe_name;
}

/* in= is decided once per process: a function whose statements all name
 * other programs stays unarmed here, and costs nothing.  The answers are
 * kept (the executable does not change until the next exec) in a small
 * table of single words, (glob << 32) | match, which threads and signal
 * handlers read and write without tearing. */
static uint64_t here_cache[64];

static int in_here(uint32_t in_glob)
{
	uint64_t e;
	int match;

	if (!in_glob)
		return 1;
	e = __atomic_load_n(&here_cache[in_glob % 64], __ATOMIC_RELAXED);
	if ((uint32_t)(e >> 32) == in_glob)
		return (int)(e & 1);
	match = ms_glob_match(pool + in_glob, exe_name);
	__atomic_store_n(&here_cache[in_glob % 64], (uint64_t)in_glob << 32 | (uint64_t)match,
			 __ATOMIC_RELAXED);
	return match;
}

int ms_applies_here(unsigned fn)
{
	const struct ms_chan_fn *f = &fns[fn];

	if (f->flags & (MS_FF_AFTER | MS_FF_EXEC | MS_FF_COUNTED))
		return 1;
	for (uint32_t k = 0; k < f->nrules; k++)
		if (in_here(rules[f->first_rule + k].in_glob))
			return 1;
	for (uint32_t k = 0; k < f->nexpects; k++)
		if (in_here(expects[f->first_expect + k].in_glob))
			return 1;
	for (uint32_t k = 0; (f->flags & ~(MS_FF_LEAN | MS_FF_LEAN_AIMED)) && k < chan->norders; k++)
		if (orders[k].fn == fn && in_here(orders[k].in_glob))
			return 1;
	return 0;
}

/* Fills function fn's fast slot (struct ms_fast), or empties it. */
static void fast_fill(unsigned fn)
{
	const struct ms_chan_fn *f = &fns[fn];
	const struct ms_rule *r = &rules[f->first_rule];
	struct ms_fast *s = &ms_fast[fn];

	__atomic_store_n(&s->kind, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&s->open, 0, __ATOMIC_RELAXED);
	if (f->nrules != 1 || f->nexpects || (f->flags & ~MS_FF_LEAN) ||
	    (chan->flags & MS_CHAN_LOG_CALLS) || !ms_rule_plain(r) || (r->flags & MS_RF_DOUBLE) ||
	    r->from_glob || r->ncond || (r->in_glob && !in_here(r->in_glob)) || r->count == 0)
		return;
	s->count = r->count;
	s->err = r->err;
	s->value = r->value;
	s->consumed = &rst[f->first_rule].consumed;
	s->logged_pid = &rst[f->first_rule].logged_pid;
	__atomic_store_n(&s->kind,
			 (r->count < 0 ? MS_FAST_ALWAYS : MS_FAST_QUEUE) + !!(r->flags & MS_RF_ERRNO),
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
		uint8_t on = chan && (ms_applies_here(i) || (i == MS_ID_dlopen && ms_decl_active()));

		if (boot && (i == MS_ID_free || i == MS_ID_realloc))
			on = 1;
		if (chan)
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
	if (__atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) == ATTACH_DONE && chan)
		register_pid(pid, 0);
	ms_time_forked();
	__atomic_store_n(&self_pid, pid, __ATOMIC_RELAXED);
	if (__atomic_load_n(&log_key, __ATOMIC_RELAXED) != -1) {
		__atomic_store_n(&log_key, pid, __ATOMIC_RELAXED);
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

/* ---- consulting the rules ---- */

/* The last rule this thread's call passed by, for --trace: (id << 32) |
 * (rule + 1), 0: none.  Another function's is stale. */
static __thread uint64_t t_passby __attribute__((tls_model("initial-exec")));

/*
 * when(): whether statement i of a table (0 rules, 1 expectations,
 * 2 call order) is for this call.  One it passes by counts the call,
 * and logs the first few with what it saw (the report lists them for a
 * statement no call matched: a typo shows).
 */
static __attribute__((noinline)) int passes(unsigned table, uint32_t i, unsigned id,
					    uint32_t first, uint32_t n, const uint64_t *a)
{
	struct ms_passby why;
	uint32_t *passed;
	struct ms_event *e;

	if (ms_conds_hold(chan, first, n, a, &why))
		return 1;
	if (table == 0 && (fns[id].flags & MS_FF_TRACED))
		t_passby = (uint64_t)id << 32 | (i + 1);
	passed = table == 0 ? &rst[i].passed : table == 1 ? &xst[i].passed : &ost[i].passed;
	if (__atomic_fetch_add(passed, 1, __ATOMIC_RELAXED) < MS_PASSBY_LOGGED) {
		int saved = errno;

		e = ev_begin(MS_EV_PASSBY, id, i, 0);
		if (e) {
			e->kind = (uint16_t)table;
			e->param = why.param;
			e->value = why.value;
			e->flags = why.is_text ? MS_EVF_TEXT : 0;
			copy_str(e->text, MS_EV_TEXT, why.text);
			e->len = (uint32_t)slen(e->text);
			ev_commit(e);
		}
		errno = saved;
	}
	return 0;
}

/*
 * probability=P: the k-th call that reaches rule ri takes it when a hash
 * of (seed, ri, k) falls under P.  The same seed gives the same outcome
 * to the k-th call in every run, whatever the threads and processes.
 */
static __attribute__((noinline)) int draw(uint32_t ri)
{
	uint64_t k = __atomic_fetch_add(&rst[ri].tries, 1, __ATOMIC_RELAXED);
	uint64_t z = chan->seed ^ ((uint64_t)ri << 32 | k) * 0x9e3779b97f4a7c15ull;

	/* splitmix64's finaliser */
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	if ((uint32_t)(z >> 32) < rules[ri].prob)
		return 1;
	__atomic_fetch_add(&rst[ri].declined, 1, __ATOMIC_RELAXED);
	if (fns[rules[ri].fn].flags & MS_FF_TRACED)
		t_passby = (uint64_t)rules[ri].fn << 32 | (ri + 1);
	return 0;
}

/* The common case inline: integer conditions that hold.  1 when they
 * all do; 0 when one does not or needs more than the value (passes()
 * decides then, and logs). */
static inline int ints_hold(uint32_t first, uint32_t n, const uint64_t *a)
{
	const struct ms_cond *c = conds + first;

	for (const struct ms_cond *end = c + n; c < end; c++) {
		int64_t v;

		if (c->arg != MS_CA_INT || (c->psize != 4 && c->psize != 8))
			return 0;
		v = c->psize == 8 ? (int64_t)a[c->param]
		    : c->psigned  ? (int64_t)(int32_t)(uint32_t)a[c->param]
				  : (int64_t)(uint32_t)a[c->param];
		if (c->op == MS_C_EQ ? v != c->value
		    : c->op == MS_C_NE ? v == c->value
		    : c->op == MS_C_ANYBITS ? !(v & c->value)
		    : c->op == MS_C_NOBITS ? (v & c->value) != 0
					  : 1)
			return 0;
	}
	return 1;
}

#define AIMED_AT(table, i, id, s, a)                                  \
	(!(s)->ncond || ints_hold((s)->cond_first, (s)->ncond, a) || \
	 passes(table, i, id, (s)->cond_first, (s)->ncond, a))

/* Takes one turn of an entry with count turns (< 0: unlimited). */
static int claim_turn(uint32_t *consumed, int32_t count)
{
	uint32_t c;

	if (count < 0) {
		__atomic_fetch_add(consumed, 1, __ATOMIC_RELAXED);
		return 1;
	}
	c = __atomic_load_n(consumed, __ATOMIC_RELAXED);
	while (c < (uint32_t)count)
		if (__atomic_compare_exchange_n(consumed, &c, c + 1, 1, __ATOMIC_ACQ_REL,
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

/* The basename of the object containing addr ("" dli_fname: the program). */
static const char *object_of(const void *addr, Dl_info *info)
{
	if (!addr || !dladdr(addr, info) || !info->dli_fname)
		return NULL;
	return info->dli_fname[0] ? basename_of(info->dli_fname) : exe_name;
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
								 : exe_name;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum && t->n < MAX_SEGS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		struct seg *g = &t->seg[t->n];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		g->lo = info->dlpi_addr + ph->p_vaddr;
		g->hi = g->lo + ph->p_memsz;
		copy_str(g->name, sizeof(g->name), name);
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

	match = obj && ms_glob_match(pool + from_glob, obj);
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

/* in= and from= of a statement against this call. */
static inline int in_scope(uint32_t in_glob, uint32_t from_glob, const void *caller)
{
	if (in_glob && !in_here(in_glob))
		return 0;
	return !from_glob || from_here(from_glob, caller);
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

struct failure {
	uint16_t kind;
	uint8_t param, flags;
	int64_t value;
	const void *bytes;	/* actual bytes for text, nbytes of them */
	uint32_t nbytes, len, at, seq;
};

/*
 * Records a failed check as it happens, so a crash afterwards loses
 * nothing; with --on-fail=abort, stops the program here.
 */
static void record_failure(unsigned id, uint32_t idx, uint32_t call, const void *caller,
			   const struct failure *f)
{
	struct ms_event *e;
	Dl_info info;
	const char *obj;
	int saved = errno;

	/* the event is the failure; the count is of those the full log had
	 * no room for (a process killed between two writes leaves no count
	 * that disagrees with the events) */
	e = ev_begin(MS_EV_FAIL, id, idx, call);
	if (!e)
		__atomic_fetch_add(&st->failures, 1, __ATOMIC_RELAXED);
	if (e) {
		e->kind = f->kind;
		e->param = f->param;
		e->flags = f->flags;
		e->value = f->value;
		e->len = f->len;
		e->at = f->at;
		e->seq = f->seq;
		if (f->nbytes)
			memcpy(e->text, f->bytes, f->nbytes < MS_EV_TEXT ? f->nbytes : MS_EV_TEXT);
		obj = object_of(caller, &info);
		if (obj) {
			e->caller_off = (uint64_t)((uintptr_t)caller - (uintptr_t)info.dli_fbase);
			copy_str(e->caller, MS_EV_CALLER, obj);
			if (info.dli_sname && info.dli_saddr) {
				char *p, *end = e->sym + MS_EV_SYM;

				copy_str(e->sym, MS_EV_SYM - 20, info.dli_sname);
				p = e->sym + slen(e->sym);
				if (p + 1 < end) {
					*p++ = '+';
					put_hex(p, end, (uintptr_t)caller - (uintptr_t)info.dli_saddr);
				}
			}
		} else {
			e->caller_off = (uint64_t)(uintptr_t)caller;
		}
		ev_commit(e);
	}
	if (chan->flags & MS_CHAN_ABORT_ON_FAIL) {
		ms_diag("a check failed: aborting (--on-fail=abort)", NULL);
		abort();
	}
	errno = saved;
}

/*
 * Copies chunk bytes through a pipe of its own: the kernel's write says
 * EFAULT of an unreadable source instead of a crash.  For where
 * process_vm_readv does not exist (ENOSYS: qemu-user implements neither
 * it nor process_vm_writev); four system calls more, on a rare path.
 */
static long read_through_pipe(void *dst, const void *src, size_t chunk)
{
	int fds[2];
	long k;

	if (syscall(SYS_pipe2, fds, (long)O_CLOEXEC) != 0)
		return -1;
	k = syscall(SYS_write, fds[1], src, (long)chunk);
	if (k > 0)
		k = syscall(SYS_read, fds[0], dst, k);
	syscall(SYS_close, fds[0]);
	syscall(SYS_close, fds[1]);
	return k;
}

/*
 * Copies n bytes from the program's memory, stopping at the first page
 * that cannot be read: process_vm_readv on ourselves faults into an error,
 * never into a crash.  Returns the bytes copied.
 */
size_t ms_read_user(void *dst, const void *src, size_t n)
{
	static int no_vm_readv;	/* ENOSYS once: qemu-user */
	long pid = syscall(SYS_getpid);
	size_t done = 0;
	int saved = errno;

	while (done < n) {
		uintptr_t addr = (uintptr_t)src + done;
		size_t chunk = 4096 - (addr & 4095);
		struct iovec l, r;
		long k;

		if (chunk > n - done)
			chunk = n - done;
		l.iov_base = (char *)dst + done;
		l.iov_len = chunk;
		r.iov_base = (void *)addr;
		r.iov_len = chunk;
		k = __atomic_load_n(&no_vm_readv, __ATOMIC_RELAXED)
			    ? -1
			    : syscall(SYS_process_vm_readv, pid, &l, 1UL, &r, 1UL, 0UL);
		if (k < 0 && (errno == ENOSYS || __atomic_load_n(&no_vm_readv, __ATOMIC_RELAXED))) {
			__atomic_store_n(&no_vm_readv, 1, __ATOMIC_RELAXED);
			k = read_through_pipe(l.iov_base, r.iov_base, chunk);
			if (k < 0 && errno != EFAULT) {
				memcpy(l.iov_base, r.iov_base, chunk);
				k = (long)chunk;
			}
		} else if (k < 0 && errno != EFAULT) {
			/* not permitted here (seccomp): plain reads, as libc would */
			memcpy(l.iov_base, r.iov_base, chunk);
			k = (long)chunk;
		}
		if (k <= 0)
			break;
		done += (size_t)k;
		if ((size_t)k < chunk)
			break;
	}
	errno = saved;
	return done;
}

static int64_t norm(uint64_t v, const struct ms_expect *x)
{
	unsigned sh;

	/* the parameter's psize bytes (1, 2, 4 or 8: validated), sign- or
	 * zero-extended; the common sizes first */
	if (x->psize == 4)
		return x->psigned ? (int64_t)(int32_t)(uint32_t)v : (int64_t)(uint32_t)v;
	if (x->psize == 8)
		return (int64_t)v;
	sh = 64 - 8u * x->psize;
	v <<= sh;
	return x->psigned ? (int64_t)v >> sh : (int64_t)(v >> sh);
}

/*
 * The program's bytes at ptr, read once: the first 256 bytes serve the
 * report's excerpt, the comparison and the string's length, which are
 * all a short string needs; the rest is read when asked for.
 */
struct user_bytes {
	const char *ptr;
	size_t got;		/* bytes of first[] read (short: a fault there) */
	unsigned char first[256];
};

static size_t user_read(struct user_bytes *u, void *dst, size_t off, size_t n)
{
	size_t have;

	if (off + n > sizeof(u->first) && u->got == sizeof(u->first))
		return ms_read_user(dst, u->ptr + off, n);
	have = off < u->got ? u->got - off : 0;
	if (have > n)
		have = n;
	memcpy(dst, u->first + off, have);
	return have;
}

/* String and memory expectations, compared in bounded chunks. */
static int check_bytes(const struct ms_expect *x, const char *ptr, struct failure *f, char *shown)
{
	const unsigned char *want = (const unsigned char *)pool + x->data;
	int string = x->kind == MS_X_STRING || x->kind == MS_X_NOT_STRING;
	size_t need = string ? x->len + 1 : x->len, off = 0, diff = (size_t)-1;
	unsigned char chunk[256];
	struct user_bytes u;

	if (!ptr) {
		f->flags |= MS_EVF_NULL;
		return 0;
	}
	u.ptr = ptr;
	u.got = ms_read_user(u.first, ptr, sizeof(u.first));
	/* what the report shows: the start of a string, around a difference */
	f->nbytes = (uint32_t)user_read(&u, shown, 0, MS_EV_TEXT);
	while (off < need) {
		size_t n = need - off < sizeof(chunk) ? need - off : sizeof(chunk);
		size_t got = user_read(&u, chunk, off, n);

		for (size_t i = 0; i < got && diff == (size_t)-1; i++)
			if (chunk[i] != (off + i < x->len ? want[off + i] : 0))
				diff = off + i;
		if (got < n && diff == (size_t)-1) {
			f->flags |= MS_EVF_FAULT;
			diff = off + got;
		}
		if (diff != (size_t)-1 || got < n)
			break;
		off += n;
	}
	if (string) {
		/* the actual length, up to the bound */
		size_t len = 0;

		for (;;) {
			size_t got = user_read(&u, chunk, len, sizeof(chunk));
			const unsigned char *z = memchr(chunk, 0, got);

			if (z) {
				len += (size_t)(z - chunk);
				break;
			}
			len += got;
			if (got < sizeof(chunk)) {
				f->flags |= MS_EVF_FAULT;
				break;
			}
			if (len >= MS_STRING_BOUND) {
				f->flags |= MS_EVF_UNTERMINATED;
				break;
			}
		}
		f->len = (uint32_t)len;
		if (f->nbytes > len)
			f->nbytes = (uint32_t)len;
	} else {
		f->len = x->len;
		if (diff != (size_t)-1 && diff > 16) {
			f->at = (uint32_t)(diff - 16);
			f->nbytes = (uint32_t)user_read(&u, shown, f->at,
							x->len - f->at < MS_EV_TEXT ? x->len - f->at : MS_EV_TEXT);
		} else if (f->nbytes > x->len) {
			f->nbytes = x->len;
		}
	}
	if (f->len > f->nbytes || (f->at + f->nbytes < f->len))
		f->flags |= MS_EVF_TRUNCATED;
	return diff == (size_t)-1;
}

static int check_one(const struct ms_expect *x, uint64_t arg, struct failure *f, char *shown)
{
	int64_t v = norm(arg, x), lo = norm((uint64_t)x->lo, x), hi = norm((uint64_t)x->hi, x);
	int in;

	f->value = v;
	switch (x->kind) {
	case MS_X_VALUE:
		return v == lo;
	case MS_X_NOT_VALUE:
		return v != lo;
	case MS_X_RANGE:
	case MS_X_NOT_RANGE:
		in = x->psigned ? v >= lo && v <= hi
				: (uint64_t)v >= (uint64_t)lo && (uint64_t)v <= (uint64_t)hi;
		return x->kind == MS_X_RANGE ? in : !in;
	case MS_X_SET:
	case MS_X_NOT_SET:
		in = 0;
		for (uint32_t i = 0; i < x->len && !in; i++) {
			int64_t m;

			memcpy(&m, pool + x->data + 8 * i, 8);
			in = norm((uint64_t)m, x) == v;
		}
		return x->kind == MS_X_SET ? in : !in;
	case MS_X_STRING:
	case MS_X_MEMORY:
		return check_bytes(x, (const char *)(uintptr_t)arg, f, shown);
	case MS_X_NOT_STRING:
	case MS_X_NOT_MEMORY:
		/* NULL or unreadable is not "different": it fails too */
		in = check_bytes(x, (const char *)(uintptr_t)arg, f, shown);
		return !in && !(f->flags & (MS_EVF_NULL | MS_EVF_FAULT));
	default:
		return 1;
	}
}

/*
 * CMocka's rule: once a parameter has expectations, every call (in their
 * scope) takes the next one, in declaration order; none left is a failure.
 */
/* Expectation xi, taken by parameter param of this call: checked. */
static __attribute__((noinline)) void check_taken(unsigned id, uint32_t xi, uint8_t param,
						  uint64_t value, uint32_t call, const void *caller)
{
	struct failure fl = { .kind = MS_FAIL_CHECK, .param = param };
	char shown[MS_EV_TEXT];

	fl.bytes = shown;
	if (!check_one(&expects[xi], value, &fl, shown))
		record_failure(id, xi, call, caller, &fl);
}

/* Parameter param of this call takes its next expectation, if it has any. */
static void check_param(unsigned id, uint8_t param, uint64_t value, const uint64_t *args,
			uint32_t call, const void *caller)
{
	const struct ms_chan_fn *f = &fns[id];
	uint32_t last = UINT32_MAX, taken = UINT32_MAX;
	int scoped = 0;

	for (uint32_t j = 0; j < f->nexpects; j++) {
		const struct ms_expect *y = &expects[f->first_expect + j];

		if (y->param != param)
			continue;
		last = f->first_expect + j;
		/* (check_params counted this call's pass-bys already) */
		if (!in_scope(y->in_glob, y->from_glob, caller) ||
		    (y->ncond && !ms_conds_hold(chan, y->cond_first, y->ncond, args, NULL)))
			continue;
		scoped = 1;
		if (claim_turn(&xst[f->first_expect + j].consumed, y->count)) {
			taken = f->first_expect + j;
			break;
		}
	}
	if (taken != UINT32_MAX) {
		const struct ms_expect *x = &expects[taken];

		if (x->kind == MS_X_VALUE && norm(value, x) == norm((uint64_t)x->lo, x))
			return; /* the common case, with no failure to set up */
		check_taken(id, taken, param, value, call, caller);
	} else if (scoped) {
		struct failure fl = { .kind = MS_FAIL_NO_EXPECT, .param = param,
				      .value = norm(value, &expects[last]) };
		const struct ms_expect *lx = &expects[last];
		char shown[MS_EV_TEXT];

		/* a string or memory parameter: the report shows its bytes,
		 * not the pointer */
		if (lx->kind == MS_X_STRING || lx->kind == MS_X_NOT_STRING || lx->kind == MS_X_MEMORY ||
		    lx->kind == MS_X_NOT_MEMORY) {
			fl.bytes = shown;
			check_bytes(lx, (const char *)(uintptr_t)value, &fl, shown);
		}
		record_failure(id, last, call, caller, &fl);
	}
}

/*
 * CMocka's rule: once a parameter has expectations, every call (in their
 * scope) takes the next one, in declaration order; none left is a failure.
 */
static void check_params(unsigned id, const uint64_t *a, uint32_t call, const void *caller)
{
	const struct ms_chan_fn *f = &fns[id];
	uint32_t done = 0, missing = 0;

	/* one pass: each parameter takes the first expectation in scope with
	 * a turn left; a parameter that found none is reported by check_param */
	for (uint32_t xi = f->first_expect, end = xi + f->nexpects; xi < end; xi++) {
		const struct ms_expect *y = &expects[xi];
		uint32_t bit = 1u << y->param;

		if ((done & bit) || !in_scope(y->in_glob, y->from_glob, caller) ||
		    !AIMED_AT(1, xi, id, y, a))
			continue;
		if (!claim_turn(&xst[xi].consumed, y->count)) {
			missing |= bit;
			continue;
		}
		done |= bit;
		if (y->kind != MS_X_VALUE || norm(a[y->param], y) != norm((uint64_t)y->lo, y))
			check_taken(id, xi, y->param, a[y->param], call, caller);
	}
	for (missing &= ~done; missing; missing &= missing - 1) {
		uint8_t p = (uint8_t)__builtin_ctz(missing);

		check_param(id, p, a[p], a, call, caller);
	}
}

static int order_done(uint32_t i)
{
	return orders[i].kind != MS_ORD_CALL ||
	       __atomic_load_n(&ost[i].consumed, __ATOMIC_RELAXED) >= (uint32_t)orders[i].count;
}

/* The position in the expected sequence of entry c's next call. */
static uint32_t expected_position(uint32_t c)
{
	uint32_t p = 1;

	for (uint32_t i = 0; i < c; i++)
		if (orders[i].kind == MS_ORD_CALL)
			p += (uint32_t)orders[i].count;
	return p + __atomic_load_n(&ost[c].consumed, __ATOMIC_RELAXED);
}

/*
 * expect_function_call(s): the calls of the functions named there must come
 * in the declared sequence.  The cursor is shared by every process: the
 * sequence is the order in which the calls claim their turn.
 */
static void check_order(unsigned id, const uint64_t *a, uint32_t call, const void *caller)
{
	const struct ms_chan_fn *f = &fns[id];
	uint32_t n = chan->norders, last = UINT32_MAX, seq;
	int scoped = 0;

	if (f->flags & MS_FF_NO_CALL) {
		for (uint32_t i = 0; i < n; i++) {
			if (orders[i].fn == id && orders[i].kind == MS_ORD_NO_CALL &&
			    in_scope(orders[i].in_glob, orders[i].from_glob, caller) &&
			    AIMED_AT(2, i, id, &orders[i], a)) {
				struct failure fl = { .kind = MS_FAIL_NO_CALL };

				__atomic_fetch_add(&ost[i].consumed, 1, __ATOMIC_RELAXED);
				record_failure(id, i, call, caller, &fl);
				break;
			}
		}
	}
	if (!(f->flags & MS_FF_ORDERED))
		return;
	for (uint32_t i = 0; i < n; i++) {
		if (orders[i].fn == id && orders[i].kind == MS_ORD_CALL) {
			last = i;
			scoped |= in_scope(orders[i].in_glob, orders[i].from_glob, caller) &&
				  AIMED_AT(2, i, id, &orders[i], a);
		}
	}
	if (!scoped)
		return;
	seq = __atomic_add_fetch(&st->order_seq, 1, __ATOMIC_RELAXED);
	for (;;) {
		uint32_t c = __atomic_load_n(&st->order_cursor, __ATOMIC_ACQUIRE);
		const struct ms_order *o;

		if (c == MS_ORDER_BROKEN)
			return;
		while (c < n && order_done(c)) {
			__atomic_compare_exchange_n(&st->order_cursor, &c, c + 1, 0, __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE);
			c = __atomic_load_n(&st->order_cursor, __ATOMIC_ACQUIRE);
		}
		if (c == MS_ORDER_BROKEN)
			return;
		if (c >= n) {
			if (!(f->flags & MS_FF_IGNORED)) {
				struct failure fl = { .kind = MS_FAIL_ORDER_EXTRA, .seq = seq };

				record_failure(id, last, call, caller, &fl);
			}
			return;
		}
		o = &orders[c];
		if (o->fn == id && in_scope(o->in_glob, o->from_glob, caller) &&
		    (!o->ncond || ms_conds_hold(chan, o->cond_first, o->ncond, a, NULL))) {
			if (claim_turn(&ost[c].consumed, o->count))
				return;
			continue; /* someone took the last turn: look again */
		}
		if (f->flags & MS_FF_IGNORED)
			return;
		/* The first call out of order breaks the sequence: that one
		 * failure says what was expected and what came, and nothing of
		 * the sequence is checked after it (the report shows no
		 * cascade of "more often" and "not called" that contradict
		 * it).  Only the process that breaks it reports. */
		if (!__atomic_compare_exchange_n(&st->order_cursor, &c, MS_ORDER_BROKEN, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue; /* the cursor moved meanwhile: look again */
		{
			struct failure fl = { .kind = MS_FAIL_ORDER, .seq = seq,
					      .value = expected_position(c) };

			record_failure(id, c, call, caller, &fl);
		}
		return;
	}
}

/* The length + 1 of the string at p, read fault-safely, at most max. */
static uint64_t own_capacity(const char *p, uint64_t max)
{
	char chunk[256];
	uint64_t n = 0;

	while (n < max) {
		size_t got = ms_read_user(chunk, p + n, sizeof(chunk)), k;

		for (k = 0; k < got; k++)
			if (!chunk[k])
				return n + k + 1;
		if (got < sizeof(chunk))
			return 0; /* unreadable: nothing is written */
		n += got;
	}
	return max;
}

static uint64_t capacity(const struct ms_out *o, const uint64_t *a)
{
	uint64_t cap = o->cap1 == MS_NONE8 ? UINT64_MAX
		       : o->cap1 == MS_CAP_OWN ? own_capacity((const char *)(uintptr_t)a[o->param], 4096)
					      : a[o->cap1];

	if (o->cap2 != MS_NONE8) {
		uint64_t m = a[o->cap2];

		cap = m && cap > UINT64_MAX / m ? UINT64_MAX : cap * m;
	}
	return cap;
}

static void output_null(unsigned id, uint32_t ri, uint32_t call, const void *caller, uint8_t param)
{
	struct failure fl = { .kind = MS_FAIL_OUTPUT_NULL, .param = param };

	record_failure(id, ri, call, caller, &fl);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	while (syscall(SYS_nanosleep, &ts, &ts) != 0 && errno == EINTR)
		;
}

/* getpwuid/getpwnam's result: static storage, as glibc's own (the strings
 * stay in the channel, which lives as long as the process). */
static struct passwd *passwd_of(const struct ms_rule *r)
{
	static struct passwd pw;
	struct ms_passwd_rec rec;

	memcpy(&rec, pool + r->value_str, sizeof(rec));
	pw.pw_name = (char *)pool + rec.name;
	pw.pw_passwd = (char *)pool + rec.passwd;
	pw.pw_gecos = (char *)pool + rec.gecos;
	pw.pw_dir = (char *)pool + rec.dir;
	pw.pw_shell = (char *)pool + rec.shell;
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

	memcpy(&rec, pool + off, sizeof(rec));
	for (unsigned i = 0; i < 5; i++)
		need += len[i] = slen(pool + *strs[i]) + 1;
	if (!buf || need > buflen)
		return 0;
	for (unsigned i = 0; i < 5; i++) {
		memcpy(buf + at, pool + *strs[i], len[i]);
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

	memcpy(&rec, pool + r->value_str, sizeof(rec));
	gr.gr_name = (char *)pool + rec.name;
	gr.gr_passwd = (char *)pool + rec.passwd;
	gr.gr_gid = rec.gid;
	n = slen(pool + rec.mem);
	if (n >= sizeof(names))
		n = sizeof(names) - 1;
	memcpy(names, pool + rec.mem, n);
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
		memcpy(&ad, pool + r->value_str + i * sizeof(ad), sizeof(ad));
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

static int64_t reply(unsigned id, uint32_t ri, const struct ms_rule *r, const uint64_t *a,
		     uint32_t call, const void *caller)
{
	uint64_t copied = 0;
	int64_t v = r->value;
	int rc = 0;

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
					output_null(id, ri, call, caller, o->param);
				break;
			}
			memcpy(p, pool + o->data, n);
			if (o->kind == MS_O_STR)
				((char *)p)[n] = '\0';
			copied += n;
			break;
		case MS_O_STORE:
			if (!p) {
				output_null(id, ri, call, caller, o->param);
				break;
			}
			memcpy(p, pool + o->data, o->len);
			break;
		case MS_O_REVENTS: {
			/* the row's layout (validated): nfds follows */
			struct pollfd *fds = p;
			uint64_t given = o->len / 2;

			if (!fds) {
				if (a[o->cap1])
					output_null(id, ri, call, caller, o->param);
				break;
			}
			for (uint64_t i = 0; i < a[o->cap1]; i++) {
				int16_t ev = 0;

				if (i < given)
					memcpy(&ev, pool + o->data + 2 * i, 2);
				fds[i].revents = ev;
				copied += ev != 0; /* ret=#: the entries with events */
			}
			break;
		}
		case MS_O_SOCKADDR: {
			/* the row's layout (validated): the socklen_t * follows */
			socklen_t *lenp = (socklen_t *)(uintptr_t)a[o->cap1];

			if (!p || !lenp) {
				output_null(id, ri, call, caller, p ? o->cap1 : o->param);
				break;
			}
			memcpy(p, pool + o->data, *lenp < o->len ? *lenp : o->len);
			*lenp = o->len;
			break;
		}
		case MS_O_PASSWD_R: {
			/* the row's layout (validated): pwd, buf, buflen, result */
			struct passwd **res = (struct passwd **)(uintptr_t)a[o->param + 3];

			if (!res || (o->data && !p)) {
				output_null(id, ri, call, caller, res ? o->param : o->param + 3);
				break;
			}
			*res = NULL;
			if (!o->data)
				break;
			if (fill_passwd(o->data, p, (char *)(uintptr_t)a[o->param + 1],
					a[o->param + 2]))
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
			const char *str = pool + o->data;
			char *c = (char *)str;

			if (!p) {
				output_null(id, ri, call, caller, o->param);
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
				output_null(id, ri, call, caller, o->param);
				break;
			}
			/* only getaddrinfo's row has this output (validated) */
			rc = ms_build_addrinfo(pool + o->data, o->len, (const char *)(uintptr_t)a[0],
					       (const char *)(uintptr_t)a[1],
					       (const struct addrinfo *)(uintptr_t)a[2], p);
			break;
		default:
			break;
		}
	}
	if (r->flags & MS_RF_STRVAL)
		v = (int64_t)(uintptr_t)(pool + r->value_str);
	if (r->flags & MS_RF_OWNED) {
		/* strdup's caller frees what it gets: a copy from its own
		 * malloc (copy_alloc; strdup is not async-signal-safe either) */
		size_t n = slen(pool + r->value_str) + 1;
		char *c = copy_alloc(n);

		if (c)
			memcpy(c, pool + r->value_str, n);
		v = (int64_t)(uintptr_t)c;
	}
	if (r->flags & MS_RF_PASSWD)
		v = (int64_t)(uintptr_t)passwd_of(r);
	if (r->flags & MS_RF_GROUP)
		v = (int64_t)(uintptr_t)group_of(r);
	if (r->flags & MS_RF_HOSTENT)
		v = (int64_t)(uintptr_t)hostent_of(r, a);
	if (rc && v == 0)
		v = rc; /* the list could not be built as asked: an EAI_* code */
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

/* "SRC:LINE" of the rule that replied, for the trace line. */
/* "SRC:LINE" of rule r into by (160 bytes). */
static void rule_where(const struct ms_rule *r, char *by)
{
	size_t n = 0;
	const char *src = pool + r->src;
	uint32_t line = r->line;
	char digits[12];
	int k = 0;

	while (*src && n < 160 - 16)
		by[n++] = *src++;
	by[n++] = ':';
	do
		digits[k++] = (char)('0' + line % 10);
	while ((line /= 10) && k < 11);
	while (k)
		by[n++] = digits[--k];
	by[n] = '\0';
}

static void trace_mocked(unsigned id, const uint64_t *a, int64_t v, int err, const struct ms_rule *r)
{
	char by[160];

	rule_where(r, by);
	t_passby = 0;
	if (id >= MS_FN_COUNT) {
		ms_trace_decl((const struct ms_chan_dyn *)ms_chan_at(chan, chan->dyn_off) + (id - MS_FN_COUNT),
			      pool, a, (uint64_t)v, by);
		return;
	}
	ms_trace_call(id, a, v, err, by, NULL);
}

int64_t ms_trace_after(unsigned id, const uint64_t *a, int64_t ret)
{
	int err = errno;

	if (fns[id].flags & MS_FF_RECORD)
		ms_record_call(chan, st, id, a, ret, err);
	if (fns[id].flags & MS_FF_TRACED) {
		char by[160];
		uint64_t p = t_passby;

		t_passby = 0;
		if (p >> 32 == id && (uint32_t)p)
			rule_where(&rules[(uint32_t)p - 1], by);
		ms_trace_call(id, a, ret, err, NULL, p >> 32 == id && (uint32_t)p ? by : NULL);
	}
	errno = err;
	return ret;
}

/*
 * The rule loop has a lean path for the common case, a function with no
 * expectation, call order or trace, answered by a rule with nothing but a
 * value (and errno) to give: it saves no errno (nothing on it sets errno),
 * writes no event after each process's first turn of the rule, and
 * reaches everything else by tail calls (it keeps a small frame: two
 * registers).  Anything else goes to the functions below, which save
 * errno around the work that may change it.
 */

/* errno = e (unless e < 0); returns 1, the end of a mocked call. */
static __attribute__((noinline)) int mocked_errno(int e)
{
	if (e >= 0)
		errno = e;
	return 1;
}

/* A process's first turn of rule ri (or any turn under -v): its event. */
static __attribute__((noinline)) int log_turn(unsigned id, uint32_t ri, uint32_t call,
					      const void *caller, int64_t value, int err)
{
	log_consume(id, ri, call, value, caller);
	return mocked_errno(err);
}

/*
 * will_call_real(FN, PARAM=VALUE): the arguments the real call gets,
 * written into the trampoline's array (it calls the real function from
 * it); the strings and addresses are the spec's, which lives as long as
 * the process.  An alias's trampoline, whose own arguments are another
 * array, then calls its canonical function (ms_rewrote).
 */
__thread int ms_rewrote __attribute__((tls_model("initial-exec")));

static void rewrite(const struct ms_rule *r, uint64_t *a)
{
	for (uint32_t k = 0; k < r->nouts; k++) {
		const struct ms_out *o = &outs[r->outs_first + k];

		switch (o->kind) {
		case MS_O_ARG_INT:
			memcpy(&a[o->param], pool + o->data, 8);
			break;
		case MS_O_ARG_STR:
			a[o->param] = o->data ? (uint64_t)(uintptr_t)(pool + o->data) : 0;
			break;
		case MS_O_ARG_ADDR:
			a[o->param] = (uint64_t)(uintptr_t)(pool + o->data);
			a[o->cap1] = o->len;
			break;
		default:
			break;
		}
	}
	ms_rewrote = (int)r->fn + 1;
}

/* A turn of rule ri (of function rules[ri].fn), claimed. */
static __attribute__((noinline)) int answer(uint32_t ri, const uint64_t *a, int64_t *ret,
					    const void *caller, uint32_t call)
{
	const struct ms_rule *r = &rules[ri];
	unsigned id = r->fn;
	int traced = fns[id].flags & MS_FF_TRACED, after = fns[id].flags & MS_FF_AFTER,
	    saved = errno;
	int64_t v = r->value;

	if (r->delay_ns)
		sleep_ns(r->delay_ns);
	if (r->kind == MS_R_REAL) {
		if (r->nouts)
			rewrite(r, (uint64_t *)(uintptr_t)a);
		log_consume(id, ri, call, 0, caller);
		errno = saved;
		return after ? 2 : 0;
	}
	if (r->nouts || (r->flags & ~MS_RF_ERRNO))
		v = reply(id, ri, r, a, call, caller);
	log_consume(id, ri, call, v, caller);
	*ret = v;
	if (traced)
		trace_mocked(id, a, v, r->flags & MS_RF_ERRNO ? r->err : 0, r);
	if (r->flags & MS_RF_ERRNO)
		errno = r->err;
	else if ((r->flags & MS_RF_OWNED) && !v)
		errno = ENOMEM; /* the copy could not be made: strdup's own failure */
	else
		errno = saved;
	return 1;
}

/* A turn of a lean rule (ms_rule_lean): its value, and errno. */
static inline int take(unsigned id, const struct ms_rule *r, int64_t *ret, const void *caller,
		       uint32_t call)
{
	*ret = r->value;
	if (ms_unlikely(__atomic_load_n(&rst[r - rules].logged_pid, __ATOMIC_RELAXED) !=
			__atomic_load_n(&log_key, __ATOMIC_RELAXED)))
		return log_turn(id, (uint32_t)(r - rules), call, caller, r->value,
				r->flags & MS_RF_ERRNO ? r->err : -1);
	if (r->flags & MS_RF_ERRNO)
		return mocked_errno(r->err);
	return 1;
}

/*
 * A call site that none of a function's statements is for (from= names
 * other objects, in= other programs) stays so: the executable and the
 * objects do not change, and a rule that ran out of turns never gets
 * more.  Each thread keeps the last such site of a lean function, as one
 * word, (caller << 16) | id, so that signal handlers cannot tear it.
 */
static __thread uint64_t t_skip __attribute__((tls_model("initial-exec")));

static uint64_t skip_key(unsigned id, const void *caller)
{
	return (uint64_t)(uintptr_t)caller << 16 | id;
}

/*
 * Call numbers (the "call N" of reports and -v).  A function with checks
 * numbers every call it sees, since each is checked; any other numbers
 * the calls a statement answers, when the turn is taken: a call that no
 * statement is for, or that finds every queue empty, goes to the real
 * function unnumbered, as a call in= leaves out never reaches the shim.
 * Lean functions (MS_FF_LEAN) number nothing: nothing would show it.
 */
static inline uint32_t number_call(unsigned id)
{
	return __atomic_add_fetch(&fst[id].calls, 1, __ATOMIC_RELAXED);
}

/* The rules of function id from ri on, with in= and from= checked; call
 * is the call's number, or 0 to number it when a turn is taken. */
static __attribute__((noinline)) int decide_from(unsigned id, uint32_t ri, const uint64_t *a,
						 int64_t *ret, const void *caller, uint32_t call)
{
	const struct ms_chan_fn *f = &fns[id];
	int scoped = 0;

	for (uint32_t end = f->first_rule + f->nrules; ri < end; ri++) {
		const struct ms_rule *r = &rules[ri];

		if (!in_scope(r->in_glob, r->from_glob, caller))
			continue;
		/* an aimed rule may be for a later call of this site */
		scoped = 1;
		if (!AIMED_AT(0, ri, id, r, a) || (r->prob && !draw(ri)))
			continue;
		if (claim_turn(&rst[ri].consumed, r->count)) {
			/* numbered where something shows the number */
			if (!call && ((f->flags & ~(MS_FF_LEAN | MS_FF_LEAN_AIMED)) || f->nexpects ||
				      (chan->flags & MS_CHAN_LOG_CALLS)))
				call = number_call(id);
			return (f->flags & MS_FF_TRACED) || !ms_rule_plain(r)
				       ? answer(ri, a, ret, caller, call)
				       : take(id, r, ret, caller, call);
		}
	}
	if (!scoped && !(f->flags | f->nexpects))
		__atomic_store_n(&t_skip, skip_key(id, caller), __ATOMIC_RELAXED);
	return f->flags & MS_FF_AFTER ? 2 : 0;
}

/*
 * The statements mockrun ctl added (--control), after the spec's own:
 * loaded with acquire, so that everything mockrun wrote before it shows.
 * Only counted functions get here, and only their calls numbered.
 */
static __attribute__((noinline)) int decide_live(unsigned id, const uint64_t *a, int64_t *ret,
						 const void *caller, uint32_t call, int k)
{
	uint32_t n = __atomic_load_n(&chan->live_n, __ATOMIC_ACQUIRE);

	if (n > chan->live_cap)
		n = chan->live_cap;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t ri = chan->live_first + j;
		const struct ms_rule *r = &rules[ri];

		if (r->fn != id || !in_scope(r->in_glob, r->from_glob, caller) ||
		    !AIMED_AT(0, ri, id, r, a) || (r->prob && !draw(ri)))
			continue;
		if (claim_turn(&rst[ri].consumed, r->count))
			return (fns[id].flags & MS_FF_TRACED) || !ms_rule_plain(r)
				       ? answer(ri, a, ret, caller, call)
				       : take(id, r, ret, caller, call);
	}
	return k;
}

/* The checks of decide_checked() but its most common case. */
static __attribute__((noinline)) void check_all(unsigned id, const uint64_t *a, uint32_t call,
						const void *caller)
{
	if (fns[id].flags & ~MS_FF_EXEC)
		check_order(id, a, call, caller);
	if (fns[id].nexpects)
		check_params(id, a, call, caller);
}

static int is_exec(unsigned id)
{
	const struct ms_fn_meta *m = ms_catalog_get(id);

	return m && (strncmp(m->name, "exec", 4) == 0 || strcmp(m->name, "fexecve") == 0);
}

/* A function with call order, expectations or a trace. */
static __attribute__((noinline)) int decide_checked(unsigned id, const uint64_t *a, int64_t *ret,
						    const void *caller, uint32_t call)
{
	const struct ms_chan_fn *f = &fns[id];
	const struct ms_expect *y;
	int k;

	/* the checks keep errno: record_failure() and ms_read_user() do.
	 * Most common: one expect_value for any caller, and nothing else */
	if (!f->flags && f->nexpects == 1 &&
	    (y = &expects[f->first_expect], !(y->in_glob | y->from_glob | y->ncond)) &&
	    y->kind == MS_X_VALUE) {
		if (!claim_turn(&xst[f->first_expect].consumed, y->count))
			check_param(id, y->param, a[y->param], a, call, caller);
		else if (norm(a[y->param], y) != norm((uint64_t)y->lo, y))
			check_taken(id, f->first_expect, y->param, a[y->param], call, caller);
	} else {
		check_all(id, a, call, caller);
	}
	k = f->nrules ? decide_from(id, f->first_rule, a, ret, caller, call)
		      : f->flags & MS_FF_AFTER ? 2 : 0;
	if (ms_unlikely(f->flags & MS_FF_COUNTED) && k != 1 && chan->live_cap)
		k = decide_live(id, a, ret, caller, call, k);
	/* the program it starts, if the call goes to the real function */
	if (ms_unlikely(f->flags & MS_FF_EXEC) && k != 1)
		ms_exec_check(id, a);
	/* an exec that succeeds never comes back to be traced */
	if (k == 2 && (f->flags & MS_FF_TRACED) && is_exec(id))
		ms_trace_exec(id, a);
	return k;
}

static inline int decide(unsigned id, const uint64_t *a, int64_t *ret, const void *caller)
{
	const struct ms_chan_fn *f = &fns[id];
	const struct ms_rule *r, *end;
	struct ms_rule_state *rs;

	/* no call numbers, and no write to the function's shared line */
	if (ms_likely(f->flags == MS_FF_LEAN)) {
		for (r = rules + f->first_rule, end = r + f->nrules, rs = rst + f->first_rule; r < end;
		     r++, rs++)
			if (claim_turn(&rs->consumed, r->count))
				return take(id, r, ret, caller, 0);
		return 0;
	}
	if (f->flags == MS_FF_LEAN_AIMED) {
		/* integer conditions tested here; any other, or one that does
		 * not hold, is decide_from's (which counts a pass-by) */
		for (r = rules + f->first_rule, end = r + f->nrules, rs = rst + f->first_rule; r < end;
		     r++, rs++) {
			if (r->ncond && !ints_hold(r->cond_first, r->ncond, a))
				return decide_from(id, (uint32_t)(r - rules), a, ret, caller, 0);
			if (claim_turn(&rs->consumed, r->count))
				return take(id, r, ret, caller, 0);
		}
		return 0;
	}
	if (ms_unlikely(f->flags | f->nexpects))
		return decide_checked(id, a, ret, caller, number_call(id));
	if (__atomic_load_n(&t_skip, __ATOMIC_RELAXED) == skip_key(id, caller))
		return 0;
	for (r = rules + f->first_rule, end = r + f->nrules, rs = rst + f->first_rule; r < end;
	     r++, rs++) {
		if (ms_likely(r->lean)) {
			if (claim_turn(&rs->consumed, r->count))
				return take(id, r, ret, caller, number_call(id));
			continue;
		}
		if (r->in_glob | r->from_glob | r->prob)
			return decide_from(id, (uint32_t)(r - rules), a, ret, caller, 0);
		if (r->ncond) {
			/* aimed by integers that hold: answered here; anything
			 * else is decide_from's (which counts a pass-by) */
			if (!ints_hold(r->cond_first, r->ncond, a))
				return decide_from(id, (uint32_t)(r - rules), a, ret, caller, 0);
			if (ms_rule_plain(r)) {
				if (claim_turn(&rs->consumed, r->count))
					return take(id, r, ret, caller, 0);
				continue;
			}
		}
		if (claim_turn(&rs->consumed, r->count))
			return answer((uint32_t)(r - rules), a, ret, caller, number_call(id));
	}
	return 0;
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
	return decide(id, args, ret, caller);
}

/* id is a catalog id: the trampolines pass constants. */
int ms_consult(unsigned id, const uint64_t *args, int64_t *ret, const void *caller)
{
	if (ms_guard)
		return 0;
	if (ms_unlikely(!__atomic_load_n(&live, __ATOMIC_ACQUIRE)))
		return __atomic_load_n(&attach_state, __ATOMIC_ACQUIRE) == ATTACH_DONE
			       ? 0 : consult_attaching(id, args, ret, caller);
	if (ms_unlikely(ms_trace_timed) && (fns[id].flags & MS_FF_TRACED))
		ms_trace_start();
	return decide(id, args, ret, caller);
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
	d = ms_chan_at(chan, chan->dyn_off);
	for (uint32_t i = 0; i < chan->ndyn; i++)
		if (strcmp(pool + d[i].name, name) == 0)
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
	f = &fns[id];
	pop = number_call((unsigned)id);
	for (uint32_t k = 0; k < f->nrules; k++) {
		uint32_t ri = f->first_rule + k;
		const struct ms_rule *r = &rules[ri];

		last = ri;
		if (!in_scope(r->in_glob, r->from_glob, caller) || !claim_turn(&rst[ri].consumed, r->count))
			continue;
		v = (r->flags & MS_RF_STRVAL) ? (uintmax_t)(uintptr_t)(pool + r->value_str)
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
		log_consume((unsigned)id, ri, 0, (int64_t)v, caller);
		goto out;
	}
	{
		/* CMocka: mock() with nothing queued fails the test */
		struct failure fl = { .kind = MS_FAIL_MOCK_EMPTY, .seq = pop };

		record_failure((unsigned)id, last, 0, caller, &fl);
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
	d = (const struct ms_chan_dyn *)ms_chan_at(chan, chan->dyn_off) + (id - MS_FN_COUNT);
	for (p = pool + d->params; *p; index++) {
		size_t n = 0;

		while (p[n] && p[n] != ',')
			n++;
		if (slen(param) == n && strncmp(p, param, n) == 0) {
			check_param((unsigned)id, index, (uint64_t)value, NULL, 0, MS_CALLER);
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
	check_order((unsigned)id, NULL, 0, MS_CALLER);
	errno = saved;
}
