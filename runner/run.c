/* SPDX-License-Identifier: MIT */
/*
 * A run of the program (mockshim_session_run): the channel made from the
 * session's statements, the program started with the shim preloaded (and
 * under the syscall filter when there are SYS_ statements), the tree
 * watched until every process of it is gone (timeout, ctl --stop,
 * stopped descendants, the signals mockrun passes on, captured output),
 * then the state it left audited once for the report.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "control.h"
#include "holds.h"
#include "session.h"
#include "supervise.h"

#define KILL_GRACE_MS 2000
/* A terminating signal mockrun passes on (SIGINT, SIGTERM, SIGHUP) is
 * followed by SIGCONT, and by SIGKILL of what is left this much later:
 * a CI job's cancellation or kill(1) ends the run whatever the tree does
 * with the signal. */
#define FORWARD_GRACE_MS 5000
/* A descendant stopped this long (not the program itself, which stops as
 * a job does) keeps the run from ending: say so.  Once the program has
 * exited and every process left is stopped, nothing of the tree can
 * continue them: after this long they get SIGHUP and SIGCONT (stuck()). */
#define STOPPED_WARN_MS 2000
#define MAX_STOPPED 16
/* watch()'s own descriptors: the signalfd, stdout, stderr, stdin, the
 * program's pidfd; the control socket's follow */
#define WATCH_FDS 5
/* the longest watch() sleeps while processes of the tree are left */
#define REAP_POLL_MS 100

extern char **environ;

/* ---- finding libmockshim.so ---- */

/* DIR/../libmockshim/libmockshim.so (build tree), DIR/../LIBDIR/ (installed
 * binary) or DIR/ (installed library), for the directory DIR of us: the
 * kernel's name of it (or realpath()'s), with no link and no "..", whose
 * parent is DIR without its last name.  The path is made so, not read
 * back from the file system a component at a time (realpath(), a system
 * call each); only a LIBDIR with ".." in it goes to realpath(). */
static char *shim_near(const char *dir)
{
	const char *rel[] = { "../libmockshim/", "../" MS_LIBDIR_REL "/", "" };
	const char *last = strrchr(dir, '/');
	char cand[PATH_MAX + 64];

	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		const char *r = rel[i];
		size_t keep = strlen(dir);

		if (last && strncmp(r, "../", 3) == 0) {
			keep = (size_t)(last - dir);
			r += 3;
		}
		snprintf(cand, sizeof(cand), "%.*s/%slibmockshim.so", (int)keep, dir, r);
		if (access(cand, R_OK) != 0)
			continue;
		return strstr(cand, "/../") || strstr(cand, "/./") || strstr(cand, "//")
			       ? realpath(cand, NULL)
			       : strdup(cand);
	}
	return NULL;
}

static char *find_shim(void)
{
	static const char anchor; /* an address inside whatever holds this code */
	char self[PATH_MAX], *slash, *found;
	const char *env = getenv("MOCKSHIM_LIBRARY");
	Dl_info info;
	ssize_t n;

	if (env && *env)
		return realpath(env, NULL);
	/* the shared driver library, wherever the program using it is */
	if (dladdr(&anchor, &info) && info.dli_fname && strstr(info.dli_fname, ".so") &&
	    realpath(info.dli_fname, self) && (slash = strrchr(self, '/'))) {
		*slash = '\0';
		found = shim_near(self);
		if (found)
			return found;
	}
	/* mockrun itself */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			found = shim_near(self);
			if (found)
				return found;
		}
	}
	if (access(MS_LIBDIR "/libmockshim.so", R_OK) == 0)
		return strdup(MS_LIBDIR "/libmockshim.so");
	return NULL;
}

/* ---- environment of the program ---- */

static char **child_env(char *const envp[], const char *shim, char *const *mods, size_t nmods,
			const char *chan_path, const char *chan_fd, const char *control)
{
	size_t n = 0, k = 0, kept = 0;
	char **env;
	const char *preload = NULL;
	char *list = NULL;
	size_t len = 0;
	FILE *m;

	for (; envp[n]; n++)
		if (strncmp(envp[n], "LD_PRELOAD=", 11) == 0)
			preload = envp[n] + 11;
	env = calloc(n + 5, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(envp[i], "LD_PRELOAD=", 11) == 0 ||
		    strncmp(envp[i], MS_CHAN_ENV "=", sizeof(MS_CHAN_ENV)) == 0 ||
		    strncmp(envp[i], MS_CHAN_FD_ENV "=", sizeof(MS_CHAN_FD_ENV)) == 0 ||
		    strncmp(envp[i], MS_CONTROL_ENV "=", sizeof(MS_CONTROL_ENV)) == 0 ||
		    strncmp(envp[i], "MOCKSHIM=", 9) == 0 || strncmp(envp[i], "MOCKSHIM_FILE=", 14) == 0)
			continue;
		env[k++] = envp[i];
	}
	kept = k;
	/* Appended: sanitizer runtimes must stay first; modules after the shim. */
	m = open_memstream(&list, &len);
	if (!m)
		goto fail;
	fprintf(m, "LD_PRELOAD=%s%s%s", preload && *preload ? preload : "",
		preload && *preload ? ":" : "", shim);
	for (size_t i = 0; i < nmods; i++)
		fprintf(m, ":%s", mods[i]);
	if (fclose(m) != 0)
		goto fail;
	env[k++] = list;
	list = NULL;
	if (asprintf(&env[k++], "%s=%s", MS_CHAN_ENV, chan_path) < 0 ||
	    (chan_fd && asprintf(&env[k++], "%s=%s", MS_CHAN_FD_ENV, chan_fd) < 0) ||
	    (control && asprintf(&env[k++], "%s=%s", MS_CONTROL_ENV, control) < 0)) {
		env[--k] = NULL; /* asprintf left it undefined */
		goto fail;
	}
	return env;
fail:
	free(list);
	while (k > kept)
		free(env[--k]);
	free(env);
	return NULL;
}

/* ours: how many of the last entries child_env allocated */
static void free_child_env(char **env, size_t ours)
{
	size_t n = 0;

	if (!env)
		return;
	while (env[n])
		n++;
	for (; ours && n; ours--)
		free(env[--n]);
	free(env);
}

/* ---- the process tree ---- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Children of pid (all threads), via /proc/PID/task/TID/children. */
static size_t list_children(pid_t pid, pid_t *out, size_t cap)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	size_t n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char cpath[320];
		FILE *f;
		int c;

		if (de->d_name[0] == '.')
			continue;
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/children", (int)pid, de->d_name);
		f = fopen(cpath, "re");
		if (!f)
			continue;
		while (n < cap && fscanf(f, "%d", &c) == 1)
			out[n++] = c;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* Every descendant of this process, breadth first. */
static size_t list_tree(pid_t *out, size_t cap)
{
	size_t n = list_children(getpid(), out, cap);

	for (size_t i = 0; i < n && n < cap; i++)
		n += list_children(out[i], out + n, cap - n);
	return n;
}

/*
 * How a process of the tree stands, from its threads' states in /proc:
 * 'R' it can go on (running, sleeping, in the disk), 'T' stopped (every
 * thread stopped or exited: by a signal, 'T', or under a tracer, 't'),
 * 'Z' gone (a zombie, or no longer there).  *tracer: its TracerPid.
 */
static int proc_state(pid_t pid, pid_t *tracer)
{
	char path[320], buf[512];
	DIR *d;
	struct dirent *de;
	int stopped = 0, running = 0;
	FILE *f;

	*tracer = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 'Z';
	while ((de = readdir(d)) && !running) {
		char *rp;
		ssize_t k;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)pid, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		k = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (k <= 0)
			continue;
		buf[k] = '\0';
		/* the name in parentheses is the program's to choose: the state
		 * follows the last ')' */
		rp = strrchr(buf, ')');
		if (!rp || rp[1] != ' ')
			continue;
		if (rp[2] == 'T' || rp[2] == 't')
			stopped = 1;
		else if (rp[2] != 'Z' && rp[2] != 'X' && rp[2] != 'x')
			running = 1;
	}
	closedir(d);
	if (running)
		return 'R';
	if (!stopped)
		return 'Z';
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (f) {
		while (fgets(buf, sizeof(buf), f))
			if (sscanf(buf, "TracerPid: %d", tracer) == 1)
				break;
		fclose(f);
	}
	return 'T';
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

#define TREE_MAX 4096
/* kill_tree()'s SIGSTOP rounds before its SIGKILL, at most */
#define FREEZE_ROUNDS 200

/*
 * Stops every process of the tree, as far as FREEZE_ROUNDS go: 1 when
 * two looks in a row found the same processes, all stopped (or gone).
 * /proc's children lists can skip a child while others come and go, and
 * a process not yet stopped forks on (a fork bomb): only a look at a
 * tree that can no longer change finds every process of it.
 */
static int freeze_tree(pid_t pgid, pid_t *pids, size_t *np)
{
	pid_t *prev = pids + TREE_MAX;
	size_t nprev = 0;

	for (int round = 0; round < FREEZE_ROUNDS; round++) {
		size_t n = list_tree(pids, TREE_MAX);
		int frozen = n < TREE_MAX;

		kill(-pgid, SIGSTOP);
		for (size_t i = 0; i < n; i++) {
			pid_t tracer;

			kill(pids[i], SIGSTOP);
			if (frozen && proc_state(pids[i], &tracer) == 'R')
				frozen = 0;
		}
		qsort(pids, n, sizeof(pid_t), pid_cmp);
		*np = n;
		if (frozen && n == nprev && memcmp(pids, prev, n * sizeof(pid_t)) == 0)
			return 1;
		memcpy(prev, pids, n * sizeof(pid_t));
		nprev = n;
		if (!frozen)
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
	return 0;
}

/*
 * sig to the program's process group (one kill(2) reaches every member,
 * those it is forking included) and to every descendant.  SIGKILL goes
 * to a frozen tree (freeze_tree()): a process forked while the kill
 * went on, in a session of its own, is found too.  What still escapes
 * (a process in the disk for FREEZE_ROUNDS ms) is killed at the next
 * grace period.
 */
static void kill_tree(pid_t pgid, int sig)
{
	pid_t *pids = malloc(2 * TREE_MAX * sizeof(pid_t));
	size_t n = 0;

	if (!pids) {
		kill(-pgid, sig);
		return;
	}
	if (sig == SIGKILL)
		freeze_tree(pgid, pids, &n);
	else
		n = list_tree(pids, TREE_MAX);
	kill(-pgid, sig);
	for (size_t i = 0; i < n; i++)
		kill(pids[i], sig);
	free(pids);
}

/* /proc/PID/comm, or "?" (control characters replaced: it is the
 * program's to set). */
static void comm_of(pid_t pid, char *comm, size_t cap)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	snprintf(comm, cap, "?");
	f = fopen(path, "re");
	if (f) {
		if (fgets(comm, (int)cap, f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	for (char *c = comm; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f)
			*c = '?';
}

/* pid, an orphan mockrun reaps, if its shim never announced it. */
static void note_unattached(struct mockshim_session *s, pid_t pid)
{
	const struct ms_chan_hdr *h = s->own;
	const struct ms_state_hdr *st = s->chan.state;
	const int32_t *pids = ms_state_at(st, h->st_pids_off);
	uint32_t n = __atomic_load_n(&st->npids, __ATOMIC_ACQUIRE);
	char comm[64], **v;

	/* -pid: a forked child that carried the shim, never announced */
	for (uint32_t i = 0; i < n && i < h->pids_cap; i++)
		if (__atomic_load_n(&pids[i], __ATOMIC_RELAXED) == (int32_t)pid ||
		    __atomic_load_n(&pids[i], __ATOMIC_RELAXED) == -(int32_t)pid)
			return;
	if (n > h->pids_cap)
		return; /* the table is full: it may have attached */
	if (s->nunattached >= 32) {
		s->unattached_more++;
		return;
	}
	comm_of(pid, comm, sizeof(comm));
	v = realloc(s->unattached, (s->nunattached + 1) * sizeof(*v));
	if (!v)
		return;
	s->unattached = v;
	if (asprintf(&v[s->nunattached], "%s[%d]", comm, (int)pid) >= 0)
		s->nunattached++;
}

static void note_still_running(struct mockshim_session *s)
{
	pid_t pids[256];
	size_t n = list_tree(pids, sizeof(pids) / sizeof(pids[0]));

	s->still_running = calloc(n ? n : 1, sizeof(char *));
	if (!s->still_running)
		return;
	for (size_t i = 0; i < n; i++) {
		char comm[64];

		comm_of(pids[i], comm, sizeof(comm));
		if (asprintf(&s->still_running[s->nstill_running], "%s[%d]", comm, (int)pids[i]) >= 0)
			s->nstill_running++;
	}
}

/*
 * The program stopped (^Z, SIGTTIN): on a terminal, stop with it, as the
 * shell expects of a job, and when continued give it back the terminal
 * and continue it.  Off a terminal, someone else stopped it: wait.
 */
static void job_stopped(int tty, pid_t child)
{
	if (tty < 0)
		return;
	tcsetpgrp(tty, getpgrp());
	raise(SIGTSTP);
	/* continued by the shell */
	tcsetpgrp(tty, child);
	kill(-child, SIGCONT);
}

/* Reads what is there: > 0 more may come, 0 at EOF, < 0 on error. */
static ssize_t drain(int fd, struct buffer *b)
{
	for (;;) {
		ssize_t k;

		if (b->cap - b->len < 4096) {
			size_t cap = b->cap ? b->cap * 2 : 8192;
			char *d = realloc(b->data, cap + 1);

			if (!d)
				return -1;
			b->data = d;
			b->cap = cap;
		}
		k = read(fd, b->data + b->len, b->cap - b->len);
		if (k > 0) {
			b->len += (size_t)k;
			b->data[b->len] = '\0';
			continue;
		}
		if (k < 0 && errno == EAGAIN)
			return 1;
		if (k < 0 && errno == EINTR)
			continue;
		return k;
	}
}

/*
 * A session that runs once (mockrun's program mode) needs its compiled
 * statements no more once they are in the channel and its own copy: the
 * arrays go, so that a large spec is not held twice through the run.
 * The spec stays valid and empty.
 */
static void drop_spec(struct ms_spec *spec)
{
	free(spec->rules);
	free(spec->outs);
	free(spec->expects);
	free(spec->orders);
	free(spec->conds);
	spec->rules = NULL;
	spec->outs = NULL;
	spec->expects = NULL;
	spec->orders = NULL;
	spec->conds = NULL;
	spec->nrules = spec->cap_rules = spec->nouts = spec->cap_outs = 0;
	spec->nexpects = spec->cap_expects = spec->norders = spec->cap_orders = 0;
	spec->nconds = spec->cap_conds = 0;
	/* the strings too: the channel's pool is the copy the report reads */
	free(spec->pool);
	spec->pool = NULL;
	spec->pool_len = spec->pool_cap = 0;
}


/* ms_channel_create_own()'s own_alloc: zeroed for a spec composed in
 * it, else the arrays are in the memfd and may go */
static void *own_alloc(void *arg, uint64_t size, int read)
{
	struct mockshim_session *s = arg;

	if (!read)
		return calloc(1, size);
	if (s->once && !s->control)
		drop_spec(&s->spec);
	return malloc(size);
}

static int make_channel(struct mockshim_session *s)
{
	const char *why;
	void *own;
	int r;

	if (getrandom(&s->token, sizeof(s->token), 0) != (ssize_t)sizeof(s->token))
		s->token = (uint64_t)now_ms() ^ ((uint64_t)getpid() << 32);
	if (!s->seed_set && getrandom(&s->seed, sizeof(s->seed), 0) != (ssize_t)sizeof(s->seed))
		s->seed = (uint64_t)now_ms() * 0x9e3779b97f4a7c15ull;
	/* a random seed fits in what a user types back: 9 digits */
	if (!s->seed_set)
		s->seed %= 1000000000ull;
	s->spec.seed = s->seed;
	/* Read from here on: a kernel before 6.7 lets a read-only shared
	 * mapping of a sealed memfd be made writable (mprotect), so the
	 * memfd is only compared with it at the end.  The memfd is written
	 * from this copy and not mapped here (with --control, the live
	 * statements' writable mapping stays). */
	r = ms_channel_create_own(&s->spec, s->events_cap,
				  s->chan_flags |
					  (s->verbosity >= MOCKSHIM_VERBOSE ? MS_CHAN_LOG_CALLS : 0),
				  s->token, &own, own_alloc, s, &s->chan);
	s->own = own;
	if (r < 0)
		return r;
	/* what the shims will refuse, refused here: a spec the parser made
	 * and the validator does not take is mockshim's bug, and the run
	 * would be silently unmocked */
	why = ms_channel_validate(s->own, s->chan.spec_size);
	if (why) {
		snprintf(s->error, sizeof(s->error),
			 "internal error: the compiled statements do not validate (%s)\n", why);
		return -EPROTO;
	}
	if (s->once && !s->control)
		drop_spec(&s->spec);
	return 0;
}

/* ---- one run ---- */

/* What mockshim_session_run() sets up for one run of the program, watches
 * while the tree runs, and gives back after it. */
struct run {
	char **env;		/* the program's environment */
	int inherit_fd[2];	/* the channel's memfds, inherited (-1: none) */
	int errpipe[2];		/* the child's errno when it cannot exec */
	int io[3][2];		/* stdin, stdout, stderr: pipes, or -1 */
	size_t stdin_off;	/* of stdin_data, written so far */
	int sfd;		/* signalfd: SIGCHLD, SIGINT, SIGTERM, SIGHUP */
	int pidfd;		/* the program's, until it is reaped, or -1 */
	int tty;		/* the terminal handed to the program, or -1 */
	int taken;		/* the signal state below is ours to give back */
	int reset_handlers;	/* the child shares our memory, and there may be
				 * handlers: default_handlers() */
	sigset_t old_mask;
	struct sigaction old_pipe, old_ttou;
	pid_t child;
	int exec_err;
	struct ms_sup *sup;	/* SYS_ statements: the syscall supervisor */
	int64_t deadline, kill_at;	/* -1: none */
	int main_done, status;
	struct {
		pid_t pid;
		int64_t since;	/* < 0: warned */
	} stopped[MAX_STOPPED];
	size_t nstopped;
	int64_t stuck_since;	/* the program gone, all left stopped since; -1 */
	int64_t stuck_look;	/* the next look at the tree's states */
	int stuck_hup;		/* SIGHUP and SIGCONT sent once: next, SIGKILL */
	int forwarded;		/* the terminating signal passed on, or 0 */
	int power_cut;		/* a power_loss() took its turn: the tree killed */
};

/* The run's program, its start time, and the shim it preloads. */
static int run_begin(struct mockshim_session *s, char *const argv[], struct timespec *t0)
{
	ms_session_release_run(s);
	memset(&s->result, 0, sizeof(s->result));
	s->done_before_timeout = 0;
	/* for the reports: JUnit's timestamp and time */
	clock_gettime(CLOCK_MONOTONIC, t0);
	s->result.started = (long long)time(NULL);
	s->program = strdup(argv[0]);
	if (!s->program)
		return -ENOMEM;
	/* the report says why a fake_time read no clock (the env's PATH) */
	s->go_program = s->spec.nftimes && ms_is_go_program(argv[0], NULL);
	if (!s->shim_path) {
		s->shim_path = find_shim();
		if (!s->shim_path) {
			snprintf(s->error, sizeof(s->error),
				 "cannot find libmockshim.so (set MOCKSHIM_LIBRARY)\n");
			return -ENOENT;
		}
	}
	if (strpbrk(s->shim_path, ": ")) {
		snprintf(s->error, sizeof(s->error),
			 "the path of libmockshim.so cannot go in LD_PRELOAD (it has ':' or ' '): %s\n",
			 s->shim_path);
		return -EINVAL;
	}
	return 0;
}

/* The channel, the control socket (--control) and the program's
 * environment that names both. */
static int open_channel(struct mockshim_session *s, struct run *r, char *const envp[])
{
	char chan_path[96], chan_fd[100];
	struct stat sb[2];
	int rc;

	/* before the counts: its strings stay for every run */
	rc = ms_power_prepare(s);
	if (rc < 0)
		return rc;
	ms_session_spec_counts(&s->spec, s->base);
	s->nctl = 0;
	s->stop_req = 0;
	rc = make_channel(s);
	if (rc < 0)
		return rc;
	if (s->control) {
		s->ctl = ms_control_open(s->control_at, s->error, sizeof(s->error));
		if (!s->ctl)
			return -EINVAL;
		if (!s->control_at && s->verbosity > MOCKSHIM_QUIET)
			fprintf(stderr, "mockshim: control socket %s (" MS_CONTROL_ENV ")\n",
				ms_control_path(s->ctl));
		__atomic_store_n(&s->ctl_path, ms_control_path(s->ctl), __ATOMIC_RELEASE);
		pthread_mutex_lock(&s->live_lock);
		s->live_open = 1;
		pthread_mutex_unlock(&s->live_lock);
	}
	snprintf(chan_path, sizeof(chan_path), "/proc/%d/fd/%d,/proc/%d/fd/%d", (int)getpid(),
		 s->chan.spec_fd, (int)getpid(), s->chan.state_fd);
	/* The program also inherits the channel as a descriptor (close-on-exec
	 * cleared in the child): a process in a sandbox with its own /proc, or
	 * none, cannot open the path.  A process that closes every descriptor
	 * still has the path. */
	r->inherit_fd[0] = fcntl(s->chan.spec_fd, F_DUPFD_CLOEXEC, MS_CHAN_FD_FLOOR);
	r->inherit_fd[1] = fcntl(s->chan.state_fd, F_DUPFD_CLOEXEC, MS_CHAN_FD_FLOOR);
	if (r->inherit_fd[0] >= 0 && r->inherit_fd[1] >= 0 && fstat(r->inherit_fd[0], &sb[0]) == 0 &&
	    fstat(r->inherit_fd[1], &sb[1]) == 0) {
		snprintf(chan_fd, sizeof(chan_fd), "%d:%llu,%d:%llu", r->inherit_fd[0],
			 (unsigned long long)sb[0].st_ino, r->inherit_fd[1],
			 (unsigned long long)sb[1].st_ino);
	} else {
		for (int i = 0; i < 2; i++)
			if (r->inherit_fd[i] >= 0)
				close(r->inherit_fd[i]);
		r->inherit_fd[0] = r->inherit_fd[1] = -1;
	}
	r->env = child_env(envp, s->shim_path, s->modules, s->nmodules, chan_path,
			   r->inherit_fd[0] >= 0 ? chan_fd : NULL, s->ctl ? ms_control_path(s->ctl) : NULL);
	return r->env ? 0 : -ENOMEM;
}

/* The parent's side of the signals while the tree runs: SIGPIPE ignored
 * (a program that closes its stdin), SIGCHLD and the signals mockrun
 * passes on read from a signalfd, orphans reaped here (subreaper), and
 * the terminal handed over, as a shell does it (SIGTTOU ignored
 * meanwhile).  give_back() undoes it, in the parent and in the child. */
static int take_signals(struct run *r)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t mask;

	sigaction(SIGPIPE, &ign, &r->old_pipe);
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &r->old_mask);
	r->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r->sfd < 0) {
		int e = errno;

		sigprocmask(SIG_SETMASK, &r->old_mask, NULL);
		sigaction(SIGPIPE, &r->old_pipe, NULL);
		return -e;
	}
	r->taken = 1;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* The program gets the terminal, as under a shell: both sides hand it
	 * over, so the program never reads it before it is in the foreground
	 * (SIGTTIN). */
	if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp()) {
		r->tty = STDIN_FILENO;
		sigaction(SIGTTOU, &ign, &r->old_ttou);
	}
	return 0;
}

/* A child that shares the parent's memory until it execs must not run
 * the parent's signal handlers: those of the signals the program's mask
 * lets through go back to the default (which the exec would do), once
 * give_back() has put the old dispositions back and before it unblocks
 * them.  The parent blocked every signal meanwhile. */
static void default_handlers(const struct run *r)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (sigismember(&r->old_mask, sig) == 1 || sigaction(sig, NULL, &sa) != 0 ||
		    sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN)
			continue;
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = 0;
		sigaction(sig, &sa, NULL);
	}
}

/* in_child: the forked child, which takes the terminal for itself (it
 * is the leader of the program's process group) */
static void give_back(struct run *r, int in_child)
{
	if (!r->taken)
		return;
	/* (the child may share the parent's memory: see start()) */
	if (!in_child)
		r->taken = 0;
	if (r->tty >= 0) {
		tcsetpgrp(r->tty, in_child ? getpid() : getpgrp());
		sigaction(SIGTTOU, &r->old_ttou, NULL);
	}
	sigaction(SIGPIPE, &r->old_pipe, NULL);
	if (in_child && r->reset_handlers)
		default_handlers(r);
	sigprocmask(SIG_SETMASK, &r->old_mask, NULL);
	if (!in_child)
		prctl(PR_SET_CHILD_SUBREAPER, 0);
}

/* The child: its descriptors, then the syscall filter, then the program.
 * What fails is sent to the parent as an errno on errpipe.  It writes
 * nothing of r, nor any other memory of the parent's (see start()). */
static __attribute__((noreturn)) void child_exec(struct mockshim_session *s, struct run *r,
						 char *const argv[])
{
	int e;

	setpgid(0, 0);
	give_back(r, 1);
	for (int i = 0; i < 2; i++)
		if (r->inherit_fd[i] >= 0)
			fcntl(r->inherit_fd[i], F_SETFD, 0);
	if ((r->io[0][0] >= 0 && dup2(r->io[0][0], 0) < 0) ||
	    (r->io[1][1] >= 0 && dup2(r->io[1][1], 1) < 0) ||
	    (r->io[2][1] >= 0 && dup2(r->io[2][1], 2) < 0) || (s->cwd && chdir(s->cwd) != 0)) {
		e = errno;
		if (write(r->errpipe[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(126);
	}
	if (r->sup && (e = -ms_sup_install(r->sup, r->env)) > 0) {
		if (write(r->errpipe[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(126);
	}
	execvpe(argv[0], argv, r->env);
	e = errno;
	if (write(r->errpipe[1], &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* The supervisor (SYS_ statements), the pipes, the signals, the child;
 * returns once the child exec'd or could not. */
static int start(struct mockshim_session *s, struct run *r, char *const argv[], char *const envp[])
{
	sigset_t all, mask;
	int rc = 0, e;
	ssize_t got;

	/* the spec as mapped when --control adds to it, else mockrun's own
	 * copy of it (the memfd is not mapped then: ms_session_set_once) */
	r->sup = ms_sup_prepare(s->chan.spec ? s->chan.spec : s->own, s->chan.state, &rc, s->error,
				sizeof(s->error));
	if (rc < 0 || (r->sup && (rc = ms_sup_check(argv[0], envp, s->error, sizeof(s->error))) < 0))
		return rc;
	/* stdin fed from memory, stdout and stderr captured: through pipes,
	 * never files (a program may take another path on a regular file) */
	if (pipe2(r->errpipe, O_CLOEXEC) != 0 || (s->has_stdin && pipe2(r->io[0], O_CLOEXEC) != 0) ||
	    (s->capture && (pipe2(r->io[1], O_CLOEXEC) != 0 || pipe2(r->io[2], O_CLOEXEC) != 0)))
		return -errno;
	rc = take_signals(r);
	if (rc < 0)
		return rc;
	/* Without a syscall supervisor to hand its listener over, the child
	 * borrows mockrun's memory until it execs (vfork): no copy of the
	 * page tables, no copy-on-write faults in mockrun afterwards, and
	 * mockrun waits meanwhile, as it would for the exec anyway.  No
	 * signal handler may run in it (default_handlers()). */
	r->reset_handlers = !r->sup && !s->no_handlers;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &mask);
	r->child = r->sup ? fork() : vfork();
	if (r->child == 0)
		child_exec(s, r, argv);
	e = errno;
	sigprocmask(SIG_SETMASK, &mask, NULL);
	if (r->child < 0) {
		give_back(r, 0);
		return -e;
	}
	if (r->sup)
		setpgid(r->child, r->child);
	/* The program's exit wakes watch() by its pidfd too: in a threaded
	 * host (the driver API) SIGCHLD may go to a thread that does not
	 * block it, and the signalfd never hears of it. */
	r->pidfd = (int)syscall(SYS_pidfd_open, r->child, 0);
	if (r->sup && ms_sup_attach(r->sup, r->child, s->error, sizeof(s->error)) < 0)
		fprintf(stderr, "mockrun: %s\n", s->error); /* the child exits 126 */
	close(r->errpipe[1]);
	r->errpipe[1] = -1;
	/* keep only our ends: the program's ends close when it is done */
	for (int i = 0; i < 3; i++) {
		int theirs = i == 0 ? 0 : 1;

		if (r->io[i][theirs] >= 0)
			close(r->io[i][theirs]);
		r->io[i][theirs] = -1;
		if (r->io[i][!theirs] >= 0)
			fcntl(r->io[i][!theirs], F_SETFL, O_NONBLOCK);
	}
	if (r->io[0][1] >= 0 && s->stdin_len == 0) {
		close(r->io[0][1]);
		r->io[0][1] = -1;
	}
	if (r->tty >= 0)
		tcsetpgrp(r->tty, r->child);
	if (s->started)
		s->started(s->started_arg);
	got = read(r->errpipe[0], &r->exec_err, sizeof(r->exec_err));
	if (got != (ssize_t)sizeof(r->exec_err))
		r->exec_err = 0;
	if (!r->exec_err)
		ms_sup_execd(r->sup);
	if (s->timeout > 0)
		r->deadline = now_ms() + (int64_t)(s->timeout * 1000);
	return 0;
}

static void forget_stopped(struct run *r, pid_t pid)
{
	for (size_t i = 0; i < r->nstopped; i++)
		if (r->stopped[i].pid == pid)
			r->stopped[i] = r->stopped[--r->nstopped];
}

static void main_reaped(struct run *r, int st)
{
	r->status = st;
	r->main_done = 1;
	/* a reaped process's pidfd stays readable: poll it no more */
	if (r->pidfd >= 0)
		close(r->pidfd);
	r->pidfd = -1;
}

/* Reaps what exited and notes what stopped; 1 when no process of the
 * tree is left. */
static int reap(struct mockshim_session *s, struct run *r)
{
	pid_t p;
	int st;

	/* A descendant that exited, looked at before it is reaped (its
	 * comm is still there): one that never attached ran unmocked. */
	for (;;) {
		siginfo_t wi;

		memset(&wi, 0, sizeof(wi));
		if (waitid(P_ALL, 0, &wi, WEXITED | WNOHANG | WNOWAIT) != 0 || wi.si_pid <= 0)
			break;
		if (wi.si_pid != r->child)
			note_unattached(s, wi.si_pid);
		if (waitpid(wi.si_pid, &st, WNOHANG) != wi.si_pid)
			break;
		forget_stopped(r, wi.si_pid);
		if (wi.si_pid == r->child)
			main_reaped(r, st);
	}
	while ((p = waitpid(-1, &st, WNOHANG | WUNTRACED | WCONTINUED)) > 0) {
		if (WIFCONTINUED(st)) {
			/* continued: no longer one to name */
			forget_stopped(r, p);
		} else if (p == r->child && WIFSTOPPED(st)) {
			/* (stopped by kill_tree() on its way to SIGKILL: not a job's stop) */
			if (r->kill_at < 0)
				job_stopped(r->tty, r->child);
		} else if (WIFSTOPPED(st)) {
			if (r->nstopped < MAX_STOPPED) {
				r->stopped[r->nstopped].pid = p;
				r->stopped[r->nstopped++].since = now_ms();
			}
		} else {
			forget_stopped(r, p);
			if (p == r->child)
				main_reaped(r, st);
		}
	}
	return p < 0 && errno == ECHILD;
}

/*
 * The program has exited: when every process left is stopped (zombies
 * aside), nothing of the tree can continue them.  Their number, in
 * out[], or 0 when one of them can go on.  A process a tracer outside
 * the tree holds (a debugger, strace -p) is the tracer's to continue:
 * it can go on.
 */
static size_t stuck_tree(pid_t *out, size_t cap)
{
	pid_t pids[256];
	size_t n = list_tree(pids, sizeof(pids) / sizeof(pids[0])), k = 0;

	if (n == sizeof(pids) / sizeof(pids[0]))
		return 0; /* too many to judge: the timeout's */
	for (size_t i = 0; i < n; i++) {
		pid_t tracer;
		int st = proc_state(pids[i], &tracer), inside = 0;

		if (st == 'R')
			return 0;
		if (st != 'T')
			continue;
		for (size_t j = 0; tracer && j < n; j++)
			inside |= pids[j] == tracer;
		if (tracer && !inside)
			return 0;
		if (k < cap)
			out[k++] = pids[i];
	}
	return k;
}

/*
 * Once the program has exited and only stopped processes are left for
 * STOPPED_WARN_MS, they are named and get what the kernel sends to an
 * orphaned process group with a stopped member (which mockrun, the
 * subreaper in another process group, keeps from being orphaned):
 * SIGHUP, then SIGCONT.  Found so again (a process that ignores SIGHUP
 * and stops again), they are killed.  The time until the next look, or -1.
 */
static int64_t stuck(struct mockshim_session *s, struct run *r, int64_t t)
{
	pid_t pids[64];
	size_t n;

	if (t < r->stuck_look)
		return r->stuck_look - t;
	r->stuck_look = t + REAP_POLL_MS;
	n = stuck_tree(pids, sizeof(pids) / sizeof(pids[0]));
	if (!n) {
		r->stuck_since = -1;
		return -1;
	}
	if (r->stuck_since < 0)
		r->stuck_since = t;
	if (t - r->stuck_since < STOPPED_WARN_MS)
		return REAP_POLL_MS;
	for (size_t i = 0; i < n; i++) {
		char comm[64];

		comm_of(pids[i], comm, sizeof(comm));
		fprintf(stderr,
			r->stuck_hup ? "mockshim: warning: %s[%d] is stopped again with nothing "
				       "left to continue it: killed (SIGKILL)\n"
				     : "mockshim: warning: %s[%d] is stopped and %s exited: nothing "
				       "is left to continue it; sending SIGHUP and SIGCONT (as to an "
				       "orphaned process group)\n",
			comm, (int)pids[i], s->program ? s->program : "the program");
		if (r->stuck_hup) {
			kill(pids[i], SIGKILL);
		} else {
			kill(pids[i], SIGHUP);
			kill(pids[i], SIGCONT);
		}
	}
	r->stuck_hup = 1;
	r->stuck_since = -1;
	/* no other warning for them */
	for (size_t i = 0; i < r->nstopped; i++)
		r->stopped[i].since = -1;
	return REAP_POLL_MS;
}

/* The descendants stopped for STOPPED_WARN_MS are named once; the time
 * until the next one is due, or -1. */
static int64_t warn_stopped(struct run *r, int64_t t)
{
	int64_t next = -1;

	/* the program gone and the rest stopped: stuck() names them */
	if (r->stuck_since >= 0)
		return -1;

	for (size_t i = 0; i < r->nstopped; i++) {
		char comm[64];
		int64_t due = r->stopped[i].since + STOPPED_WARN_MS - t;

		if (r->stopped[i].since < 0)
			continue;
		if (due > 0) {
			if (next < 0 || due < next)
				next = due;
			continue;
		}
		r->stopped[i].since = -1;
		comm_of(r->stopped[i].pid, comm, sizeof(comm));
		fprintf(stderr, "mockshim: warning: %s[%d] is stopped (SIGSTOP): the run ends when "
				"it does; SIGCONT or kill it, or use --timeout\n",
			comm, (int)r->stopped[i].pid);
	}
	return next;
}

/* The timeout and ctl --stop: SIGTERM (and SIGCONT, as timeout(1) sends
 * it, for a stopped process), then SIGKILL after a grace period.  The
 * time until the next of them, or -1. */
static int64_t watch_time(struct mockshim_session *s, struct run *r, int64_t t)
{
	if (r->deadline >= 0 && t >= r->deadline && !s->result.timed_out) {
		s->result.timed_out = 1;
		s->done_before_timeout = r->main_done;
		note_still_running(s);
		kill_tree(r->child, SIGTERM);
		kill_tree(r->child, SIGCONT);
		r->kill_at = t + KILL_GRACE_MS;
	}
	if (__atomic_load_n(&s->stop_req, __ATOMIC_ACQUIRE) == 1 && r->kill_at < 0) {
		/* ctl --stop: as at the timeout, but not one */
		s->stop_req = 2;
		kill_tree(r->child, SIGTERM);
		kill_tree(r->child, SIGCONT);
		r->kill_at = t + KILL_GRACE_MS;
	}
	if (r->kill_at >= 0 && t >= r->kill_at) {
		if (r->forwarded > 0)
			fprintf(stderr, "mockshim: warning: the process tree outlived SIG%s by %d s: "
					"killing it (SIGKILL)\n",
				ms_signal_abbrev(r->forwarded) ? ms_signal_abbrev(r->forwarded) : "?",
				FORWARD_GRACE_MS / 1000);
		r->forwarded = -1;
		kill_tree(r->child, SIGKILL);
		r->kill_at = t + KILL_GRACE_MS;
	}
	if (r->kill_at >= 0)
		return r->kill_at - t;
	return r->deadline >= 0 ? r->deadline - t : -1;
}

/* The program's output drained, its stdin fed, the signals mockrun
 * passes on to the tree. */
static void pump(struct mockshim_session *s, struct run *r, const struct pollfd *pfd)
{
	struct signalfd_siginfo si;

	for (int i = 1; i <= 2; i++) {
		if (r->io[i][0] >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    drain(r->io[i][0], &s->out[i - 1]) <= 0) {
			close(r->io[i][0]);
			r->io[i][0] = -1;
		}
	}
	if (r->io[0][1] >= 0 && (pfd[3].revents & (POLLOUT | POLLERR | POLLHUP))) {
		ssize_t k = write(r->io[0][1], s->stdin_data + r->stdin_off, s->stdin_len - r->stdin_off);

		if (k > 0)
			r->stdin_off += (size_t)k;
		if ((k < 0 && errno != EAGAIN) || r->stdin_off == s->stdin_len) {
			close(r->io[0][1]);
			r->io[0][1] = -1;
		}
	}
	while (read(r->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		s->result.driver_signal = (int)si.ssi_signo;
		kill_tree(r->child, (int)si.ssi_signo);
		/* a stopped process takes it when continued (as timeout(1)
		 * does it); what is left after the grace period is killed */
		kill_tree(r->child, SIGCONT);
		if (r->kill_at < 0) {
			r->forwarded = (int)si.ssi_signo;
			r->kill_at = now_ms() + FORWARD_GRACE_MS;
		}
	}
}

/* Until every process of the tree is gone and its output read. */
static void watch(struct mockshim_session *s, struct run *r)
{
	for (;;) {
		struct pollfd pfd[WATCH_FDS + MS_CONTROL_POLLFDS] = {
			{ .fd = r->sfd, .events = POLLIN },
			{ .fd = r->io[1][0], .events = POLLIN },
			{ .fd = r->io[2][0], .events = POLLIN },
			{ .fd = r->io[0][1], .events = POLLOUT },
			{ .fd = r->pidfd, .events = POLLIN },
		};
		size_t npfd = WATCH_FDS;
		int gone;

		/* power_loss(): its caller stopped itself before the call; the
		 * whole tree dies at once, before anything is reaped */
		if (!r->power_cut && s->power_dir && ms_power_reached(s)) {
			r->power_cut = 1;
			kill_tree(r->child, SIGKILL);
			r->kill_at = now_ms() + KILL_GRACE_MS;
		}
		gone = reap(s, r);
		int64_t t = now_ms(), wait_ms, w, w2 = -1;

		/* (after a timeout or a signal, the kill is under way) */
		if (r->main_done && !gone && r->kill_at < 0)
			w2 = stuck(s, r, t);
		w = warn_stopped(r, t);
		if (gone && r->io[1][0] < 0 && r->io[2][0] < 0)
			break;
		wait_ms = watch_time(s, r, t);
		if (w >= 0 && (wait_ms < 0 || w < wait_ms))
			wait_ms = w;
		if (w2 >= 0 && (wait_ms < 0 || w2 < wait_ms))
			wait_ms = w2;
		/* Processes are left: their SIGCHLD may go to another thread
		 * of a threaded host (see start()), so look again now and
		 * then rather than wait for it for ever. */
		if (!gone && (wait_ms < 0 || wait_ms > REAP_POLL_MS))
			wait_ms = REAP_POLL_MS;
		if (s->ctl) {
			w = ms_control_wait_ms(s->ctl);
			npfd += ms_control_pollfds(s->ctl, pfd + WATCH_FDS);
			if (w >= 0 && (wait_ms < 0 || w < wait_ms))
				wait_ms = w;
		}
		if (poll(pfd, (nfds_t)npfd, wait_ms < 0 ? -1 : (int)(wait_ms > INT_MAX ? INT_MAX : wait_ms)) < 0 &&
		    errno != EINTR)
			break;
		if (s->ctl)
			ms_control_serve(s->ctl, pfd + WATCH_FDS, npfd - WATCH_FDS, s);
		pump(s, r, pfd);
	}
}

/* The tree is gone: its result, and the state it left, audited once. */
static int finish(struct mockshim_session *s, struct run *r, const struct timespec *t0,
		  struct mockshim_result *result)
{
	struct timespec t1;
	struct ms_report_in in;
	int spec_changed, rc;

	/* every process of the tree is gone: so are its system calls */
	ms_sup_stop(r->sup);
	r->sup = NULL;
	give_back(r, 0);
	/* a thread held at a will_hold and never let go: a failure */
	ms_holds_settle(s);
	s->ran = 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s->result.seconds = (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
	s->result.exec_errno = r->exec_err;
	/* every process is gone: the files go back to what survives */
	if (s->power_dir)
		ms_power_rollback(s, r->power_cut);
	if (r->power_cut) {
		/* the statement's use, not the program's failure */
		s->result.exited = 1;
		s->result.exit_status = 0;
	} else if (!r->exec_err && WIFEXITED(r->status)) {
		s->result.exited = 1;
		s->result.exit_status = WEXITSTATUS(r->status);
	} else if (!r->exec_err && WIFSIGNALED(r->status)) {
		s->result.signal = WTERMSIG(r->status);
	}
	pthread_mutex_lock(&s->live_lock);
	s->live_open = 0;
	pthread_mutex_unlock(&s->live_lock);
	/* a driver's thread in mockshim_session_wait_held() looks again */
	if (s->chan.state) {
		__atomic_fetch_add(&s->chan.state->hold_seq, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &s->chan.state->hold_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
	if (s->ctl)
		ms_control_finish(s->ctl, s);
	/* Every process of the tree has exited: what they left in the state
	 * is copied once and audited, and the report reads only that copy
	 * and mockrun's own spec, where the statements ctl added now count. */
	spec_changed = s->chan.spec ? memcmp(s->own, s->chan.spec, s->chan.spec_size) != 0
				    : !ms_channel_same(s->chan.spec_fd, s->own, s->chan.spec_size);
	ms_channel_commit_live(s->own);
	s->view.spec = s->own;
	rc = ms_report_take_state_fd(&s->view, s->chan.state_fd, s->chan.state_size, s->token);
	if (rc < 0)
		return rc;
	if (spec_changed && !s->view.tampered)
		s->view.tampered = "the spec was written during the run (through a mapping made "
				   "writable, or mockrun's memory)";
	s->result.processes = ms_report_state(&s->view)->attached;
	s->result.tampered = s->view.tampered != NULL;
	in = ms_session_report_in(s);
	s->result.failures = ms_report_failures(&in);
	s->result.leftovers = ms_report_leftovers(&in);
	s->result.consumed = ms_report_consumed(&in);
	if (result)
		*result = s->result;
	return 0;
}

/* On every path: nothing of the run is left open but what the report
 * reads (the spec's copy, the state's audited copy). */
static void end_run(struct mockshim_session *s, struct run *r)
{
	ms_power_cleanup(s);
	ms_sup_stop(r->sup);
	give_back(r, 0);
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 2; k++)
			if (r->io[i][k] >= 0)
				close(r->io[i][k]);
	if (r->sfd >= 0)
		close(r->sfd);
	if (r->pidfd >= 0)
		close(r->pidfd);
	for (int i = 0; i < 2; i++)
		if (r->errpipe[i] >= 0)
			close(r->errpipe[i]);
	free_child_env(r->env, (r->inherit_fd[0] >= 0 ? 3 : 2) + (s->ctl != NULL));
	__atomic_store_n(&s->ctl_path, NULL, __ATOMIC_RELEASE);
	pthread_mutex_lock(&s->live_lock);
	s->live_open = 0;
	pthread_mutex_unlock(&s->live_lock);
	ms_control_close(s->ctl);
	s->ctl = NULL;
	/* the next run has the session's own statements only */
	if (s->nctl)
		ms_session_spec_restore(&s->spec, s->base);
	for (int i = 0; i < 2; i++)
		if (r->inherit_fd[i] >= 0)
			close(r->inherit_fd[i]);
	/* The memfds go now: nothing of the session survives the run but the
	 * spec's mapping and the state's audited copy, which the report reads.
	 * mockrun's one run (s->once) leaves the state's mapping to its exit,
	 * a moment later: the vforked child ran on mockrun's memory, maybe on
	 * another CPU, and an munmap now would interrupt that CPU to flush
	 * its TLB (an IPI: a VM exit on a virtual machine). */
	if (s->chan.state) {
		if (!s->once)
			munmap(s->chan.state, s->chan.state_size);
		s->chan.state = NULL;
	}
	if (s->chan.spec_fd >= 0)
		close(s->chan.spec_fd);
	if (s->chan.state_fd >= 0)
		close(s->chan.state_fd);
	s->chan.spec_fd = s->chan.state_fd = -1;
}

int mockshim_session_run(struct mockshim_session *s, char *const argv[], char *const envp[],
			 struct mockshim_result *result)
{
	struct run r = {
		.inherit_fd = { -1, -1 },
		.errpipe = { -1, -1 },
		.io = { { -1, -1 }, { -1, -1 }, { -1, -1 } },
		.sfd = -1,
		.pidfd = -1,
		.tty = -1,
		.child = -1,
		.deadline = -1,
		.kill_at = -1,
		.stuck_since = -1,
	};
	struct timespec t0;
	int rc;

	if (!argv || !argv[0])
		return -EINVAL;
	rc = run_begin(s, argv, &t0);
	if (rc < 0)
		return rc;
	if (!envp)
		envp = environ;
	rc = open_channel(s, &r, envp);
	if (rc >= 0)
		rc = start(s, &r, argv, envp);
	if (rc >= 0) {
		watch(s, &r);
		rc = finish(s, &r, &t0, result);
	}
	end_run(s, &r);
	return rc;
}
