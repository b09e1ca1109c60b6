/* SPDX-License-Identifier: MIT */
/*
 * The syscall tier's supervisor (supervise.h): a seccomp filter that
 * notifies mockrun of the armed system calls only, and a thread that
 * answers each notification with the one decision the shim uses
 * (decide/decide.c): the same rules, queues, checks and events, on
 * another process's call.
 *
 * +--------------------------------------------------------------------+
 * | The hand-over of the listener uses no system call the filter may   |
 * | notify: the child puts the listener's number in a shared page and  |
 * | waits on a futex (no SYS_ name has futex); the parent takes the    |
 * | descriptor with pidfd_getfd, starts the thread, then releases the  |
 * | child, whose next call is the execve of the program.  An execve    |
 * | armed by a statement is not consumed by that exec: the child's own |
 * | (its envp is mockrun's array, before the exec succeeded) goes on.  |
 * +--------------------------------------------------------------------+
 *
 * Per notification: the caller's thread group and executable (read from
 * /proc when the caller changes), ms_decide() with ms_d.remote set (the
 * decision reads and writes the caller's memory with process_vm_readv
 * and process_vm_writev), SECCOMP_IOCTL_NOTIF_ID_VALID after the reads
 * and before the reply (the caller may have died, its pid reused), then
 * the reply: -errno, a value, or SECCOMP_USER_NOTIF_FLAG_CONTINUE for the
 * real call.
 *
 * --trace=SYS_NAME: a traced system call is notified as an armed one is,
 * and the supervisor writes its line (tracefmt.h's format, the shim's
 * destination) before it replies.  A call it continues is run by the
 * kernel after the reply, and user notification never tells the
 * supervisor what it returned (seccomp_unotify(2): CONTINUE is the whole
 * answer): that line's result is "= ? (continued)", as strace writes
 * "= ?" for a result it did not see.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arch/arch.h"
#include "catalog/catalog.h"
#include "channel/channel.h"
#include "decide/decide.h"
#include "supervise.h"

/* Linux 6.6: the caller and the supervisor are woken on one CPU, which
 * halves a notification's cost (shared/NOTES.md); older kernels refuse
 * it, and the supervisor works without. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1
#endif


/* The page parent and child share across the fork. */
struct handoff {
	uint32_t state;		/* futex: 0 installing, 1 listener ready, 2 go, 3 failed */
	int32_t listener;	/* in the child */
	int32_t err;		/* state 3: errno */
};

struct ms_sup {
	const struct ms_chan_hdr *spec;
	struct ms_state_hdr *state;
	uint32_t fn_of[MS_SYS_NR_MAX];	/* id of the SYS_ function of each number, 0: none */
	struct sock_filter *filter;
	unsigned short nfilter;
	struct handoff *shared;
	char *const *envp;	/* the child's (mockrun's array): its own execve */
	pid_t child;
	int execd;		/* the child's exec is done (set by the thread) */
	int listener;
	int thread_on, stopping;
	int need_exe;		/* in= on a SYS_ statement, or --trace=SYS_: the
				 * executable at every call */
	int need_arg0;		/* in= on a SYS_ statement: argv[0] too, read
				 * when the caller or its executable changes */
	/* --trace=SYS_NAME: the lines' file (the program's stderr or
	 * --trace-file), -1: none; chrome's timed lines; the call's start */
	int trace_fd, timed, unseen;
	uint64_t t_start;
	int32_t last_ppid;
	pthread_t thread;
	/* the last caller: its thread, thread group and executable */
	pid_t last_tid;
	int32_t last_tgid;
	char last_exe[64];
	struct stat self_exe;
	/* the processes announced (an attach event, as the shim writes at
	 * its start): by pid, with the executable they had then */
	struct {
		int32_t pid;
		char exe[64];
	} announced[64];
};

/* ---- the decision's hooks: a call of another process ---- */

int ms_hook_from(uint32_t from_glob, const void *caller)
{
	(void)from_glob;
	(void)caller;
	return 0; /* the parser refuses from= on SYS_ statements */
}

void ms_hook_caller(const void *caller, struct ms_event *e)
{
	/* the instruction after the syscall; the object it is in is the
	 * caller's business (a static program has one) */
	e->caller_off = (uint64_t)(uintptr_t)caller;
	ms_copy_str(e->caller, MS_EV_CALLER, ms_d.exe_name);
}

int ms_hook_site(const void *caller, char *obj, size_t cap, uint64_t *off)
{
	/* a system call's site is another process's stack: not here (the
	 * parser refuses at= on SYS_ statements) */
	(void)caller, (void)obj, (void)cap, (void)off;
	return -1;
}

/* The notification being answered, and its listener (for a held one). */
static int cur_listener = -1, *cur_stopping;
static uint64_t cur_id;

/*
 * will_hold on a SYS_ call: the notification is kept unanswered (the
 * caller stays stopped in the kernel) while the thread serves the
 * others; a release (ms_sup_poke, from mockrun's control or the driver)
 * or a hold's timeout= wakes it to look at the held ones again.
 */
#define MAX_DEFERRED 64
static uint64_t now_ns(void);
struct deferred {
	struct seccomp_notif req;
	uint32_t id, ri, ticket, call;
	int64_t deadline;	/* ns of CLOCK_MONOTONIC, 0: none */
};
static struct deferred deferred[MAX_DEFERRED];
static unsigned ndeferred;
static const struct seccomp_notif *cur_req;
static int cur_deferred;	/* the call being answered was taken */
static int wake_fd = -1;	/* an eventfd: a release happened */

void ms_sup_poke(void)
{
	uint64_t one = 1;
	int fd = __atomic_load_n(&wake_fd, __ATOMIC_ACQUIRE);

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0) {
		/* full: a wake-up is pending already */
	}
}

int ms_hook_hold_defer(uint32_t ri, uint32_t t, uint32_t call)
{
	struct deferred *d;
	int64_t timeout = ms_d.rules[ri].value;

	if (!cur_req || ndeferred >= MAX_DEFERRED || __atomic_load_n(&wake_fd, __ATOMIC_ACQUIRE) < 0)
		return 0;
	d = &deferred[ndeferred++];
	d->req = *cur_req;
	d->id = ms_d.rules[ri].stmt.fn;
	d->ri = ri;
	d->ticket = t;
	d->call = call;
	d->deadline = timeout > 0 ? (int64_t)now_ns() + timeout : 0;
	cur_deferred = 1;
	return 1;
}

int ms_hook_hold_gone(void)
{
	return (cur_stopping && __atomic_load_n(cur_stopping, __ATOMIC_ACQUIRE)) ||
	       (cur_listener >= 0 &&
		syscall(SYS_ioctl, cur_listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &cur_id) != 0);
}

void ms_hook_abort(void)
{
	/* --on-fail=abort: the caller, not mockrun */
	if (ms_d.remote > 0)
		kill(ms_d.remote, SIGABRT);
}

void ms_hook_power_cut(const void *caller)
{
	(void)caller;
	/* power_loss() on a SYS_ name: the caller waits in the kernel for
	 * this answer; it is stopped, and the answer withheld until mockrun,
	 * which watches the rule's turns, has killed the tree (at most 10 s) */
	if (ms_d.remote <= 0)
		return;
	kill(ms_d.remote, SIGSTOP);
	for (int i = 0; i < 10000 && kill(ms_d.remote, 0) == 0; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
}

int ms_hook_out(unsigned id, uint32_t ri, const struct ms_rule *r, const struct ms_out *o,
		const uint64_t *a, uint32_t call, const void *caller)
{
	(void)id, (void)ri, (void)r, (void)o, (void)a, (void)call, (void)caller;
	return 0; /* libc's outputs: no system call has them (validated) */
}

int64_t ms_hook_value(const struct ms_rule *r, const uint64_t *a, int64_t v)
{
	(void)r, (void)a;
	return v;
}

/* ---- --trace=SYS_NAME ---- */

/* The supervisor of the run (one at a time: ms_d is the decision's one
 * state), for the trace hook. */
static struct ms_sup *tracing;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The syscall.def row of function id, NULL for any other. */
static const struct ms_fn_meta *sys_row(unsigned id)
{
	const struct ms_chan_dyn *d;

	if (id < MS_FN_COUNT || id - MS_FN_COUNT >= ms_d.chan->ndyn)
		return NULL;
	d = &ms_d.dyn[id - MS_FN_COUNT];
	return d->kind == MS_DYN_SYSCALL ? ms_syscall_by_nr(d->sysnr) : NULL;
}

/*
 * The site of a system call (\" at OBJ+0xOFF\" on its trace line): the
 * object mapped at the calling process's instruction pointer
 * (/proc/PID/maps) and the ELF vaddr there (the file's program headers:
 * an ET_EXEC's is the address itself).  The syscall instruction, not
 * the program's frame: the supervisor does not unwind another process's
 * stack (a dynamic program's site is libc's; a static program's, its
 * own).  A few answers are kept, by process, executable and mapping.
 */
#define SUP_SITES 8
static struct {
	int32_t pid;
	uint64_t lo, hi;
	int64_t delta;	/* offset = ip + delta */
	char exe[64];
	char name[64];
} sup_sites[SUP_SITES];
static unsigned sup_next;

static int map_delta(const char *path, uint64_t lo, uint64_t pgoff, int64_t *delta)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	int r = -1;

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0) {
		if (eh.e_type == ET_EXEC) {
			*delta = 0;
			r = 0;
		} else if (eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
			for (unsigned i = 0; i < eh.e_phnum && r; i++) {
				Elf64_Phdr ph;

				if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
				    (ssize_t)sizeof(ph))
					break;
				if (ph.p_type == PT_LOAD &&
				    pgoff >= (ph.p_offset & ~(ph.p_align ? ph.p_align - 1 : (uint64_t)0xfff)) &&
				    pgoff < ph.p_offset + ph.p_filesz) {
					*delta = (int64_t)(pgoff - lo - ph.p_offset + ph.p_vaddr);
					r = 0;
				}
			}
		} else {
			*delta = (int64_t)(pgoff - lo);
			r = 0;
		}
	}
	close(fd);
	return r;
}

static int sup_site(int32_t pid, uint64_t ip, char *buf, size_t cap)
{
	char path[64], line[4200];
	FILE *f;
	int found = -1;

	for (unsigned i = 0; i < SUP_SITES; i++)
		if (sup_sites[i].pid == pid && ip >= sup_sites[i].lo && ip < sup_sites[i].hi &&
		    strcmp(sup_sites[i].exe, ms_d.exe_name) == 0)
			return snprintf(buf, cap, "%s+%#llx", sup_sites[i].name,
					(unsigned long long)(ip + (uint64_t)sup_sites[i].delta));
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, pgoff;
		int n = 0;
		char *file, *base;
		int64_t delta;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &pgoff, &n) < 3 || !n ||
		    ip < lo || ip >= hi)
			continue;
		file = line + n;
		file[strcspn(file, "\n")] = '\0';
		if (file[0] != '/' || map_delta(file, lo, pgoff, &delta))
			break;
		base = strrchr(file, '/') + 1;
		{
			unsigned k = sup_next++ % SUP_SITES;

			sup_sites[k].pid = pid;
			sup_sites[k].lo = lo;
			sup_sites[k].hi = hi;
			sup_sites[k].delta = delta;
			snprintf(sup_sites[k].exe, sizeof(sup_sites[k].exe), "%s", ms_d.exe_name);
			snprintf(sup_sites[k].name, sizeof(sup_sites[k].name), "%s", base);
		}
		found = snprintf(buf, cap, "%s+%#llx", base, (unsigned long long)(ip + (uint64_t)delta));
	}
	fclose(f);
	return found;
}

/*
 * A traced system call's line, in the shim's format (its timed prefix for
 * --trace-format chrome, the calling process's pid and executable): its
 * result when a statement answered it, "= ? (continued)" when the kernel
 * runs it after the reply (tracing->unseen).
 */
void ms_hook_trace_call(unsigned id, const uint64_t *a, int64_t ret, int err, const char *by,
			const char *passed_by, const void *caller)
{
	const struct ms_fn_meta *m = sys_row(id);
	struct ms_sup *s = tracing;
	struct ms_tline o;
	int saved = errno;
	ssize_t w;

	if (!s || s->trace_fd < 0 || !m)
		return;
	o.n = 0;
	if (s->timed) {
		uint64_t end = now_ns();

		ms_tl_c(&o, '@');
		ms_tl_u(&o, s->t_start && s->t_start <= end ? s->t_start : end, 10);
		ms_tl_c(&o, ' ');
		ms_tl_u(&o, end, 10);
		ms_tl_c(&o, ' ');
		ms_tl_i(&o, ms_d.remote_tid);
		ms_tl_c(&o, ' ');
		ms_tl_i(&o, s->last_ppid);
		ms_tl_c(&o, ' ');
	}
	ms_tl_i(&o, s->last_tgid);
	ms_tl_c(&o, ' ');
	ms_tl_put(&o, ms_d.exe_name);
	ms_tl_put(&o, ": ");
	ms_tl_call(&o, m, a, !s->unseen && ms_tl_ok(m, ret, err));
	if (s->unseen)
		ms_tl_put(&o, " = ? (continued)");
	else
		ms_tl_result(&o, m, ret, err);
	{
		char site[96];

		ms_tl_end(&o, by, passed_by,
			  caller && sup_site(s->last_tgid, (uint64_t)(uintptr_t)caller, site, sizeof(site)) > 0
				  ? site
				  : NULL);
	}
	w = write(s->trace_fd, o.buf, o.n);
	if (w != (ssize_t)o.n)
		ms_trace_lost(ms_d.st, w < 0 ? -errno : (long)w);
	errno = saved;
}

void ms_hook_trace_decl(const struct ms_chan_dyn *d, const char *pool, const uint64_t *a,
			uint64_t ret, const char *by, const void *caller)
{
	(void)d, (void)pool, (void)a, (void)ret, (void)by, (void)caller;
}

void ms_hook_trace_exec(unsigned id, const uint64_t *a, const void *caller)
{
	(void)id, (void)a, (void)caller;
}

void ms_hook_record_call(const struct ms_chan_hdr *h, struct ms_state_hdr *st, unsigned id,
			 const uint64_t *a, int64_t ret, int err)
{
	(void)h, (void)st, (void)id, (void)a, (void)ret, (void)err;
}

int ms_hook_check_fn(const struct ms_expect *x, uint64_t value)
{
	(void)x, (void)value;
	return -1;
}

void ms_hook_exec_check(unsigned id, const uint64_t *a)
{
	(void)id, (void)a;
}

/* ---- the filter ---- */

static long futex(uint32_t *addr, int op, uint32_t val, const struct timespec *t)
{
	return syscall(SYS_futex, addr, op, val, t, NULL, 0);
}

/* Notifies the armed numbers of this architecture's system calls (arch.h:
 * x86-64, aarch64); allows everything else, other ABIs (i386's int 0x80,
 * x32, arm32) included: their numbers mean other calls, which no
 * statement names. */
static int build_filter(struct ms_sup *s, const unsigned *nrs, unsigned n)
{
#ifdef MS_ARCH_SYS_ABI_BIT
	const unsigned abi_check = 1;
#else
	const unsigned abi_check = 0;
#endif
	unsigned k = 0, allow = 3 + abi_check + n, notify = allow + 1;
	struct sock_filter *f = calloc(n + 6, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MS_ARCH_AUDIT, 0,
					    (uint8_t)(allow - k - 1));
	k++;
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
#ifdef MS_ARCH_SYS_ABI_BIT
	/* x32's calls are x86-64's numbers with this bit: another ABI */
	f[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, MS_ARCH_SYS_ABI_BIT,
					    (uint8_t)(allow - k - 1), 0);
	k++;
#endif
	for (unsigned i = 0; i < n; i++, k++)
		f[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nrs[i],
						    (uint8_t)(notify - k - 1), 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	s->filter = f;
	s->nfilter = (unsigned short)k;
	return 0;
}

struct ms_sup *ms_sup_prepare(const struct ms_chan_hdr *spec, struct ms_state_hdr *state, int *err,
			      char *msg, size_t cap)
{
	const struct ms_chan_dyn *dyn = ms_chan_at(spec, spec->dyn_off);
	unsigned nrs[MS_SYS_NR_MAX], n = 0;
	struct ms_sup *s;

	*err = 0;
	for (uint32_t i = 0; i < spec->ndyn; i++)
		if (dyn[i].kind == MS_DYN_SYSCALL && dyn[i].sysnr < MS_SYS_NR_MAX && n < MS_SYS_NR_MAX)
			nrs[n++] = dyn[i].sysnr;
	if (!n)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s || build_filter(s, nrs, n) < 0) {
		free(s);
		*err = -ENOMEM;
		snprintf(msg, cap, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < spec->ndyn; i++)
		if (dyn[i].kind == MS_DYN_SYSCALL && dyn[i].sysnr < MS_SYS_NR_MAX)
			s->fn_of[dyn[i].sysnr] = MS_FN_COUNT + i;
	for (uint32_t i = 0; i < ms_chan_nstmts(spec); i++) {
		const struct ms_stmt *st = ms_chan_stmt(spec, i);

		s->need_exe |= st->fn >= MS_FN_COUNT && st->in_glob;
		s->need_arg0 |= st->fn >= MS_FN_COUNT && st->in_glob;
	}
	/* a traced line names the program the caller runs now */
	s->need_exe |= (spec->flags & MS_CHAN_TRACE) != 0;
	s->spec = spec;
	s->state = state;
	s->listener = -1;
	s->trace_fd = -1;
	s->timed = (spec->flags & MS_CHAN_TRACE_TIMED) != 0;
	s->shared = mmap(NULL, sizeof(*s->shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			 -1, 0);
	if (s->shared == MAP_FAILED) {
		*err = -errno;
		snprintf(msg, cap, "cannot set up the syscall supervisor: %s", strerror(errno));
		if (s->shared == MAP_FAILED)
			s->shared = NULL;
		ms_sup_stop(s);
		return NULL;
	}
	stat("/proc/self/exe", &s->self_exe);
	return s;
}

int ms_sup_install(struct ms_sup *s, char *const envp[])
{
	struct sock_fprog prog = { .len = s->nfilter, .filter = s->filter };
	long fd;

	s->envp = envp;
	/* a filter needs no_new_privs, unless we have CAP_SYS_ADMIN: tried
	 * without first, so that a privileged run keeps setuid working */
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0 && errno == EACCES && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			     &prog);
	if (fd < 0) {
		s->shared->err = errno;
		__atomic_store_n(&s->shared->state, 3, __ATOMIC_RELEASE);
		futex(&s->shared->state, FUTEX_WAKE, 1, NULL);
		return -s->shared->err;
	}
	s->shared->listener = (int32_t)fd;
	__atomic_store_n(&s->shared->state, 1, __ATOMIC_RELEASE);
	futex(&s->shared->state, FUTEX_WAKE, 1, NULL);
	/* from here on, no call the filter may notify until the parent has
	 * the listener: futex is in no statement's reach */
	while (__atomic_load_n(&s->shared->state, __ATOMIC_ACQUIRE) == 1)
		futex(&s->shared->state, FUTEX_WAIT, 1, NULL);
	return __atomic_load_n(&s->shared->state, __ATOMIC_ACQUIRE) == 2 ? 0 : -ECANCELED;
}

/* ---- answering ---- */

/* The basename of tid's argv[0] into ms_d.arg0_name ("" when it is the
 * executable's, or unknown), as the shim's attach reads its own: in=
 * matches either.  Read with the executable, when the caller or its
 * executable changes, not at every call. */
static void read_arg0(pid_t tid)
{
	char path[64], buf[256];
	const char *b = buf;
	ssize_t n = -1;
	int fd;

	ms_d.arg0_name[0] = '\0';
	ms_d.touched++;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return;
	buf[n] = '\0'; /* argv[0] ends at its NUL */
	for (const char *q = buf; *q; q++)
		if (*q == '/')
			b = q + 1;
	if (*b && strlen(b) < sizeof(ms_d.arg0_name) && strcmp(b, ms_d.exe_name) != 0)
		memcpy(ms_d.arg0_name, b, strlen(b) + 1);
}

/* The caller's thread group and executable, read when the caller changes
 * (an exec keeps the pid: the executable is read again then only when
 * the spec has in=, which needs it). */
static void caller_of(struct ms_sup *s, pid_t tid, int fresh)
{
	char path[64], buf[PATH_MAX];
	int32_t tgid = tid;
	ssize_t n;
	FILE *f;

	if (tid != s->last_tid) {
		ms_d.touched++;
		snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
		f = fopen(path, "re");
		if (f) {
			while (fgets(buf, sizeof(buf), f)) {
				if (strncmp(buf, "Tgid:", 5) == 0)
					tgid = (int32_t)strtol(buf + 5, NULL, 10);
				if (strncmp(buf, "PPid:", 5) == 0) {
					s->last_ppid = (int32_t)strtol(buf + 5, NULL, 10);
					break; /* after Tgid */
				}
			}
			fclose(f);
		}
		s->last_tgid = tgid;
	} else if (!fresh) {
		return;
	}
	ms_d.touched++;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)tid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n > 0) {
		const char *b = buf;

		buf[n] = '\0';
		if (n > 10 && strcmp(buf + n - 10, " (deleted)") == 0)
			buf[n - 10] = '\0';
		for (const char *q = buf; *q; q++)
			if (*q == '/')
				b = q + 1;
		ms_copy_str(s->last_exe, sizeof(s->last_exe), b);
	} else {
		ms_copy_str(s->last_exe, sizeof(s->last_exe), "?");
	}
	if (tid != s->last_tid || strcmp(s->last_exe, ms_d.exe_name) != 0) {
		memcpy(ms_d.exe_name, s->last_exe, sizeof(ms_d.exe_name));
		if (s->need_arg0)
			read_arg0(tid);
		ms_in_here_reset();
	}
	s->last_tid = tid;
}

/* The executable of pid's latest attach event ("": none), as the report
 * reads it; a scan of the log, at the first call of each process. */
static const char *attached_as(int32_t pid)
{
	uint32_t n = __atomic_load_n(&ms_d.st->events_next, __ATOMIC_ACQUIRE);
	const char *name = "";

	if (n > ms_d.chan->events_cap)
		n = ms_d.chan->events_cap;
	for (uint32_t i = 0; i < n; i++) {
		const struct ms_event *e = &ms_d.events[i];

		if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == 1 && e->type == MS_EV_ATTACH &&
		    e->pid == pid)
			name = e->text;
	}
	return name;
}

/*
 * The report names a process by its latest attach event: a process the
 * shim never attached (a static program), or one that exec'd since (sh
 * running a static program in place of its child), is announced here,
 * the first time the supervisor answers it as what it is now.
 * Attach events are counted (the audit checks it), value 2: "answered
 * by the syscall tier".
 */
static void announce(struct ms_sup *s, int32_t pid)
{
	unsigned k = (unsigned)pid % 64;
	struct ms_event *e;

	int seen = s->announced[k].pid == pid, fresh;

	if (seen && strcmp(s->announced[k].exe, ms_d.exe_name) == 0)
		return;
	s->announced[k].pid = pid;
	memcpy(s->announced[k].exe, ms_d.exe_name, sizeof(s->announced[k].exe));
	/* a process the shim announced as what it still is needs no other
	 * name; one new to the table, or that exec'd since, does */
	fresh = ms_register_pid(pid, 1);
	if (!fresh && !seen && strcmp(attached_as(pid), ms_d.exe_name) == 0)
		return;
	__atomic_fetch_add(&ms_d.st->attached, 1, __ATOMIC_RELAXED);
	e = ms_ev_begin(MS_EV_ATTACH, 0, UINT32_MAX, 0);
	if (e) {
		e->value = 2;
		ms_copy_str(e->text, MS_EV_TEXT, ms_d.exe_name);
		ms_ev_commit(e);
	}
}

/* mockrun's child before its exec: the execve that starts the program */
static int own_exec(struct ms_sup *s, const struct seccomp_notif *req)
{
	char path[64];
	struct stat sb;

	if (__atomic_load_n(&s->execd, __ATOMIC_RELAXED) || (pid_t)req->pid != s->child ||
	    req->data.args[2] != (uint64_t)(uintptr_t)s->envp)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)req->pid);
	return stat(path, &sb) == 0 && sb.st_dev == s->self_exe.st_dev &&
	       sb.st_ino == s->self_exe.st_ino;
}

/* The decision's view set to the caller of req. */
static void take_caller(struct ms_sup *s, const struct seccomp_notif *req)
{
	caller_of(s, (pid_t)req->pid, s->need_exe);
	ms_d.remote = s->last_tgid;
	ms_d.remote_tid = (int32_t)req->pid;
	ms_d.self_pid = s->last_tgid;
	ms_d.log_key = (s->spec->flags & MS_CHAN_LOG_CALLS) ? -1 : s->last_tgid;
	ms_t_skip = 0; /* a site no statement was for: another process's now */
	announce(s, s->last_tgid);
}

static void reply_of(struct ms_sup *s, uint32_t id, uint64_t *a, int k, int64_t ret, int e,
		     const struct seccomp_notif *req, struct seccomp_notif_resp *resp);

static void answer(struct ms_sup *s, const struct seccomp_notif *req,
		   struct seccomp_notif_resp *resp)
{
	uint32_t id = req->data.nr < MS_SYS_NR_MAX ? s->fn_of[req->data.nr] : 0;
	uint64_t a[6];
	int64_t ret = 0;
	int k, e;

	memset(resp, 0, sizeof(*resp));
	resp->id = req->id;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (!id || req->data.arch != MS_ARCH_AUDIT)
		return;
	if (req->data.nr == SYS_execve && own_exec(s, req))
		return;
	take_caller(s, req);
	memcpy(a, req->data.args, sizeof(a));
	errno = 0;
	cur_req = req;
	k = ms_decide(id, a, &ret, (const void *)(uintptr_t)req->data.instruction_pointer);
	cur_req = NULL;
	e = errno;
	reply_of(s, id, a, k, ret, e, req, resp);
}

/* The reply to a decision k (ret, errno e) on a call of id. */
static void reply_of(struct ms_sup *s, uint32_t id, uint64_t *a, int k, int64_t ret, int e,
		     const struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	if (k == 2) {
		/* traced, and continued: the kernel's result is never seen */
		s->unseen = 1;
		ms_trace_after(id, a, 0, (const void *)(uintptr_t)req->data.instruction_pointer);
		s->unseen = 0;
	}
	if (k != 1)
		return;
	resp->flags = 0;
	if (e) {
		resp->error = -e;
		resp->val = 0;
	} else {
		resp->val = ret;
	}
}

/* The thread waits in SECCOMP_IOCTL_NOTIF_RECV itself, not in poll():
 * one system call less per notification.  RECV does not end when the
 * last process leaves the filter, so ms_sup_stop() interrupts it with
 * STOP_SIGNAL (its handler does nothing: the call fails with EINTR). */
#define STOP_SIGNAL SIGRTMIN

static void stop_handler(int sig)
{
	(void)sig;
}

/* The listener's ioctls as a raw system call: glibc declares ioctl's
 * request unsigned long, musl int, and RECV's and SEND's numbers have
 * the top bit of 32 set (_IOWR), which musl's int gets only by an
 * overflow (-Wpedantic warns); the kernel reads 32 bits of either. */
static long notif_ioctl(int fd, unsigned long req, void *arg)
{
	return syscall(SYS_ioctl, fd, req, arg);
}

/* Sends resp, after checking that what the decision read came from the
 * call's process (its pid may have been reused). */
static void send_reply(struct ms_sup *s, struct seccomp_notif_resp *resp)
{
	uint64_t id = resp->id;

	if (ms_d.touched && notif_ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0)
		return;
	/* ENOENT: the caller was killed meanwhile */
	notif_ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
}

/* The held calls: those released or past their timeout= go on (the
 * function's next statement, or the real call); those whose caller died
 * are forgotten.  The nearest deadline left, in ms (-1: none). */
static int resume_held(struct ms_sup *s)
{
	int64_t now = (int64_t)now_ns(), wait = -1;

	for (unsigned i = 0; i < ndeferred;) {
		struct deferred d = deferred[i];
		const struct ms_rule_state *rs = &ms_d.rst[d.ri];
		struct seccomp_notif_resp resp;
		uint64_t a[6], nid = d.req.id;
		int64_t ret = 0;
		int released, timed_out, k, e;

		released = (int32_t)(__atomic_load_n(&rs->hold_released, __ATOMIC_ACQUIRE) - d.ticket) > 0;
		timed_out = !released && d.deadline && now >= d.deadline;
		if (notif_ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &nid) != 0) {
			deferred[i] = deferred[--ndeferred]; /* died held: no UNHOLD */
			continue;
		}
		if (!released && !timed_out) {
			if (d.deadline && (wait < 0 || d.deadline - now < wait))
				wait = d.deadline - now;
			i++;
			continue;
		}
		deferred[i] = deferred[--ndeferred];
		ms_d.touched = 0;
		take_caller(s, &d.req);
		memcpy(a, d.req.data.args, sizeof(a));
		ms_hold_leave(d.id, d.ri, d.ticket, a, (const void *)(uintptr_t)d.req.data.instruction_pointer,
			      d.call, timed_out);
		errno = 0;
		cur_req = &d.req;
		cur_deferred = 0;
		k = ms_decide_after(d.id, d.ri, a, &ret,
				    (const void *)(uintptr_t)d.req.data.instruction_pointer, d.call);
		cur_req = NULL;
		e = errno;
		if (k == 3 || cur_deferred) {
			cur_deferred = 0; /* held again, at a later hold */
			i = 0;
			continue;
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = d.req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		reply_of(s, d.id, a, k, ret, e, &d.req, &resp);
		send_reply(s, &resp);
		i = 0; /* the list changed: from the start (it is short) */
	}
	return wait < 0 ? -1 : (int)((wait + 999999) / 1000000);
}

static void *serve(void *arg)
{
	struct ms_sup *s = arg;
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, STOP_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	while (!__atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE)) {
		if (ndeferred) {
			/* calls held: wait for a release or a timeout too */
			struct pollfd p[2] = { { .fd = s->listener, .events = POLLIN },
					       { .fd = wake_fd, .events = POLLIN } };
			int w = resume_held(s), n;

			if (!ndeferred)
				continue;
			n = poll(p, 2, w);
			if (n > 0 && (p[1].revents & POLLIN)) {
				uint64_t v;

				if (read(wake_fd, &v, sizeof(v)) < 0) {
					/* EAGAIN: taken already */
				}
			}
			if (n <= 0 || !(p[0].revents & POLLIN))
				continue;
		}
		memset(&req, 0, sizeof(req));
		if (notif_ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			break;
		}
		ms_d.touched = 0;
		cur_listener = s->listener;
		cur_stopping = &s->stopping;
		cur_id = req.id;
		cur_deferred = 0;
		if (s->timed)
			s->t_start = now_ns();
		answer(s, &req, &resp);
		if (cur_deferred)
			continue; /* held: answered once released */
		/* what the decision read came from the caller if it is still
		 * the one that made this call (its pid may have been reused);
		 * a decision that read nothing of it (getppid, a lean rule)
		 * needs no check: the reply goes to the call's id */
		send_reply(s, &resp);
	}
	return NULL;
}

int ms_sup_attach(struct ms_sup *s, pid_t child, char *msg, size_t cap)
{
	struct timespec t = { 1, 0 };
	uint32_t st;
	long pidfd;
	int r;

	s->child = child;
	for (int tries = 0; (st = __atomic_load_n(&s->shared->state, __ATOMIC_ACQUIRE)) == 0;
	     tries++) {
		if (tries > 30) {
			snprintf(msg, cap, "the program's process did not install the syscall filter");
			return -ETIMEDOUT;
		}
		futex(&s->shared->state, FUTEX_WAIT, 0, &t);
	}
	if (st == 3) {
		snprintf(msg, cap, "cannot install the syscall filter (seccomp): %s%s",
			 strerror(s->shared->err),
			 s->shared->err == ENOSYS ? " (the kernel has no seccomp filters, or an "
						    "emulator such as qemu-user does not provide them)"
						  : "");
		return -s->shared->err;
	}
	pidfd = syscall(SYS_pidfd_open, child, 0);
	if (pidfd >= 0) {
		s->listener = (int)syscall(SYS_pidfd_getfd, (int)pidfd, s->shared->listener, 0);
		r = errno;
		/* --trace without --trace-file: the program's stderr, where
		 * the shim's lines go (as its own descriptor: they interleave) */
		if (s->listener >= 0 && (s->spec->flags & MS_CHAN_TRACE) && !s->spec->trace_path)
			s->trace_fd = (int)syscall(SYS_pidfd_getfd, (int)pidfd, 2, 0);
		close((int)pidfd);
	} else {
		r = errno;
	}
	if (s->listener < 0) {
		snprintf(msg, cap, "cannot take the syscall filter's listener (pidfd_getfd): %s",
			 strerror(r));
		__atomic_store_n(&s->shared->state, 3, __ATOMIC_RELEASE);
		futex(&s->shared->state, FUTEX_WAKE, 1, NULL);
		return -r;
	}
	notif_ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		    (void *)(uintptr_t)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	ms_dec_tables(s->spec, s->state);
	ms_d.chan = s->spec;
	ms_d.st = s->state;
	ms_d.my_pid = 0;
	if ((s->spec->flags & MS_CHAN_TRACE) && s->spec->trace_path)
		s->trace_fd = open(ms_d.pool + s->spec->trace_path,
				   O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	tracing = s;
	{
		struct sigaction sa = { .sa_handler = stop_handler };

		sigemptyset(&sa.sa_mask);
		sigaction(STOP_SIGNAL, &sa, NULL); /* no SA_RESTART */
	}
	{
		/* its stack: 1 MiB whatever the C library's default (glibc's is
		 * RLIMIT_STACK, musl's 128 kB) */
		pthread_attr_t attr;

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 1u << 20);
		/* held SYS_ calls: a release wakes the thread (without one,
		 * a hold waits in the caller's place) */
		ndeferred = 0;
		__atomic_store_n(&wake_fd, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), __ATOMIC_RELEASE);
		r = pthread_create(&s->thread, &attr, serve, s);
		pthread_attr_destroy(&attr);
	}
	if (r) {
		snprintf(msg, cap, "cannot start the syscall supervisor: %s", strerror(r));
		__atomic_store_n(&s->shared->state, 3, __ATOMIC_RELEASE);
		futex(&s->shared->state, FUTEX_WAKE, 1, NULL);
		return -r;
	}
	s->thread_on = 1;
	__atomic_store_n(&s->shared->state, 2, __ATOMIC_RELEASE);
	futex(&s->shared->state, FUTEX_WAKE, 1, NULL);
	return 0;
}

void ms_sup_execd(struct ms_sup *s)
{
	if (s)
		__atomic_store_n(&s->execd, 1, __ATOMIC_RELAXED);
}

void ms_sup_stop(struct ms_sup *s)
{
	if (!s)
		return;
	if (s->thread_on) {
		/* every process of the tree has exited: nothing is pending, the
		 * thread waits in RECV (or is about to) */
		__atomic_store_n(&s->stopping, 1, __ATOMIC_RELEASE);
		for (;;) {
			struct timespec t;

			pthread_kill(s->thread, STOP_SIGNAL);
			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_nsec += 20000000;
			if (t.tv_nsec >= 1000000000) {
				t.tv_sec++;
				t.tv_nsec -= 1000000000;
			}
			if (pthread_timedjoin_np(s->thread, NULL, &t) == 0)
				break;
		}
	}
	if (s->listener >= 0)
		close(s->listener);
	if (s->thread_on && wake_fd >= 0) {
		close(__atomic_exchange_n(&wake_fd, -1, __ATOMIC_ACQ_REL));
		ndeferred = 0;
	}
	if (s->trace_fd >= 0)
		close(s->trace_fd);
	if (tracing == s)
		tracing = NULL;
	if (s->shared)
		munmap(s->shared, sizeof(*s->shared));
	free(s->filter);
	memset(&ms_d, 0, sizeof(ms_d));
	ms_d.log_key = -1;
	free(s);
}

int ms_sup_elf_native(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC), n;

	if (fd < 0)
		return -1;
	n = (int)read(fd, h, sizeof(h));
	close(fd);
	if (n < (int)sizeof(h) || memcmp(h, "\177ELF", 4) != 0)
		return -1;
	/* EI_CLASS 2 (64-bit) and this e_machine (little-endian): x32 is
	 * 32-bit x86-64, ILP32 32-bit aarch64 */
	return h[4] == ELFCLASS64 && (h[18] | h[19] << 8) == MS_ARCH_ELF_MACHINE;
}

int ms_sup_check(const char *prog, char *const envp[], char *msg, size_t cap)
{
	const char *path = "/usr/local/bin:/usr/bin:/bin";
	char buf[PATH_MAX];
	int abi = -1;

	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			path = *e + 5;
	if (strchr(prog, '/')) {
		abi = ms_sup_elf_native(prog);
	} else {
		for (const char *p = path; abi < 0 && *p;) {
			const char *c = strchr(p, ':');
			size_t n = c ? (size_t)(c - p) : strlen(p);

			if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? p : ".", prog) <
			    (int)sizeof(buf) && access(buf, X_OK) == 0)
				abi = ms_sup_elf_native(buf);
			p += n + (c != NULL);
		}
	}
	if (abi == 0) {
		snprintf(msg, cap, "SYS_ statements answer 64-bit " MS_ARCH_NAME " system calls only: "
				   "%s is a program of another ABI (" MS_ARCH_OTHER_ABIS ") or "
				   "architecture, whose system calls have other numbers\n",
			 prog);
		return -ENOEXEC;
	}
	return 0;
}
