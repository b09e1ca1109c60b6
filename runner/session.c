/* SPDX-License-Identifier: MIT */
/* Driver sessions: statements, the channel, and running a program. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "channel.h"
#include "control.h"
#include "session.h"
#include "supervise.h"

#define DEFAULT_EVENTS 8192
#define KILL_GRACE_MS 2000
/* A descendant stopped this long (not the program itself, which stops as
 * a job does) keeps the run from ending: say so. */
#define STOPPED_WARN_MS 2000
#define MAX_STOPPED 16
/* --control: rules mockrun ctl may add in a run */
#define LIVE_STATEMENTS 64

extern char **environ;

struct mockshim_session *mockshim_session_create(void)
{
	struct mockshim_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	ms_spec_init(&s->spec, realloc, free);
	pthread_mutex_init(&s->live_lock, NULL);
	s->spec.module_fn = ms_session_module_stmt;
	s->spec.module_ctx = s;
	s->chan.spec_fd = s->chan.state_fd = -1;
	s->events_cap = DEFAULT_EVENTS;
	return s;
}

static void release_run(struct mockshim_session *s)
{
	ms_report_release(&s->view);
	free(s->own);
	s->own = NULL;
	ms_channel_unmap(&s->chan);
	if (s->chan.spec_fd >= 0)
		close(s->chan.spec_fd);
	if (s->chan.state_fd >= 0)
		close(s->chan.state_fd);
	s->chan.spec_fd = s->chan.state_fd = -1;
	for (size_t i = 0; i < s->nunattached; i++)
		free(s->unattached[i]);
	free(s->unattached);
	s->unattached = NULL;
	s->nunattached = s->unattached_more = 0;
	for (size_t i = 0; i < s->nstill_running; i++)
		free(s->still_running[i]);
	free(s->still_running);
	s->still_running = NULL;
	s->nstill_running = 0;
	free(s->program);
	s->program = NULL;
	for (int i = 0; i < 2; i++) {
		free(s->out[i].data);
		memset(&s->out[i], 0, sizeof(s->out[i]));
	}
	s->ran = 0;
}

void mockshim_session_destroy(struct mockshim_session *s)
{
	if (!s)
		return;
	release_run(s);
	free(s->shim_path);
	for (size_t i = 0; i < s->nmodules; i++)
		free(s->modules[i]);
	free(s->modules);
	free(s->cwd);
	free(s->stdin_data);
	free(s->control_at);
	pthread_mutex_destroy(&s->live_lock);
	ms_spec_fini(&s->spec);
	free(s);
}

const char *mockshim_session_error(const struct mockshim_session *s)
{
	return s->error;
}

int mockshim_session_add(struct mockshim_session *s, const char *src, const char *text,
			 size_t len)
{
	struct ms_diag diag;
	int r;

	if (len == (size_t)-1)
		len = strlen(text);
	s->error[0] = '\0';
	/* during a run with --control, from another thread: added live */
	pthread_mutex_lock(&s->live_lock);
	if (s->live_open) {
		r = ms_session_add_live(s, src, text, len, s->error, sizeof(s->error));
		pthread_mutex_unlock(&s->live_lock);
		return r;
	}
	pthread_mutex_unlock(&s->live_lock);
	r = ms_parse(&s->spec, src, text, len, &diag);
	if (r == -EINVAL) {
		ms_format_diag(s->error, sizeof(s->error), src, text, len, &diag);
	} else if (r < 0) {
		snprintf(s->error, sizeof(s->error), "%s: %s\n", src, strerror(-r));
	}
	return r;
}

/* The largest spec file (or stdin) read: a recorded spec of 16 MiB
 * outputs fits, a runaway source (-f /dev/zero) does not. */
#define MS_SPEC_MAX (64 << 20)

int mockshim_session_add_file(struct mockshim_session *s, const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int r = 0;

	if (!f) {
		r = -errno;
		snprintf(s->error, sizeof(s->error), "%s: cannot read: %s\n", path, strerror(errno));
		return r;
	}
	for (;;) {
		size_t got;

		if (len + 4096 > cap) {
			char *nb;

			cap = cap * 2 + 4096;
			cap = cap > MS_SPEC_MAX + 1 ? MS_SPEC_MAX + 1 : cap;
			nb = realloc(buf, cap);

			if (!nb) {
				r = -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (len > MS_SPEC_MAX) {
			/* -f /dev/zero must not take the machine's memory */
			r = -EFBIG;
			snprintf(s->error, sizeof(s->error),
				 "%s: a spec is at most %d MiB: this one is larger\n", path,
				 MS_SPEC_MAX >> 20);
			goto out;
		}
		if (got == 0) {
			if (ferror(f)) {
				r = -EIO;
				snprintf(s->error, sizeof(s->error), "%s: read error\n", path);
				goto out;
			}
			break;
		}
	}
	r = mockshim_session_add(s, path, buf ? buf : "", len);
out:
	if (f != stdin)
		fclose(f);
	free(buf);
	return r;
}

int mockshim_session_set_trace(struct mockshim_session *s, const char *fns, const char *path)
{
	s->error[0] = '\0';
	memset(s->spec.traced, 0, sizeof(s->spec.traced));
	s->spec.trace = 1;
	s->spec.trace_path = 0;
	for (uint32_t i = 0; i < s->spec.ndyn; i++)
		s->spec.dyn[i]->traced = 0;
	if (!fns || !*fns) {
		/* every catalog function but the allocator, which would drown
		 * it, and every declared one */
		for (unsigned i = 0; i < MS_FN_COUNT; i++)
			s->spec.traced[i] = strcmp(ms_catalog_get(i)->group, "memory") != 0;
		for (uint32_t i = 0; i < s->spec.ndyn; i++)
			s->spec.dyn[i]->traced = s->spec.dyn[i]->declared;
	} else {
		for (const char *p = fns; *p;) {
			size_t n = strcspn(p, ",");
			int id = ms_catalog_find(p, n);

			/* a declared function (the statements are added first) */
			for (uint32_t i = 0; id < 0 && i < s->spec.ndyn; i++) {
				const struct ms_fn_meta *m = s->spec.dyn[i];

				if (m->declared && strlen(m->name) == n && strncmp(m->name, p, n) == 0) {
					s->spec.dyn[i]->traced = 1;
					id = INT_MAX;
				}
			}
			if (id == INT_MAX) {
				p += n + (p[n] == ',');
				continue;
			}
			if (id < 0 && n > 4 && strncmp(p, "SYS_", 4) == 0) {
				/* a system call: the supervisor traces it */
				int k = ms_spec_syscall(&s->spec, p, n);
				char why[192];

				if (k == -ENOMEM)
					return -ENOMEM;
				if (k < 0 && ms_syscall_absent(p, n, why, sizeof(why))) {
					snprintf(s->error, sizeof(s->error), "--trace: %s\n", why);
					s->spec.trace = 0;
					return -EINVAL;
				}
				if (k < 0) {
					snprintf(s->error, sizeof(s->error),
						 "--trace: '%.*s' is not a system call the syscall tier "
						 "knows (see mockrun --list: syscall)\n",
						 (int)n, p);
					s->spec.trace = 0;
					return -EINVAL;
				}
				s->spec.dyn[k - MS_FN_COUNT]->traced = 1;
				p += n + (p[n] == ',');
				continue;
			}
			if (id < 0) {
				snprintf(s->error, sizeof(s->error),
					 "--trace: '%.*s' is not in the catalog (see mockrun --list) nor declared with mock\n",
					 (int)n, p);
				s->spec.trace = 0;
				return -EINVAL;
			}
			s->spec.traced[id] = 1;
			p += n + (p[n] == ',');
		}
	}
	if (path) {
		char *abs = path[0] == '/' ? strdup(path) : NULL;
		char cwd[PATH_MAX];

		if (!abs && getcwd(cwd, sizeof(cwd)) && asprintf(&abs, "%s/%s", cwd, path) < 0)
			abs = NULL;
		if (!abs)
			return -ENOMEM;
		s->spec.trace_path = ms_spec_str(&s->spec, abs, strlen(abs));
		free(abs);
		if (!s->spec.trace_path)
			return -ENOMEM;
	}
	return 0;
}

int mockshim_session_set_shim(struct mockshim_session *s, const char *path)
{
	char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	free(s->shim_path);
	s->shim_path = p;
	return 0;
}

int mockshim_session_set_cwd(struct mockshim_session *s, const char *dir)
{
	char *d = dir ? strdup(dir) : NULL;

	if (dir && !d)
		return -ENOMEM;
	free(s->cwd);
	s->cwd = d;
	return 0;
}

int mockshim_session_set_stdin(struct mockshim_session *s, const void *data, size_t len)
{
	char *d = NULL;

	if (data) {
		d = malloc(len ? len : 1);
		if (!d)
			return -ENOMEM;
		memcpy(d, data, len);
	}
	free(s->stdin_data);
	s->stdin_data = d;
	s->stdin_len = data ? len : 0;
	s->has_stdin = data != NULL;
	return 0;
}

void mockshim_session_set_capture(struct mockshim_session *s, int on)
{
	s->capture = on;
}

const char *mockshim_session_output(const struct mockshim_session *s, int fd, size_t *len)
{
	const struct buffer *b = fd == 1 ? &s->out[0] : fd == 2 ? &s->out[1] : NULL;

	if (len)
		*len = b ? b->len : 0;
	return b && b->data ? b->data : "";
}

int mockshim_session_set_control(struct mockshim_session *s, int on, const char *path)
{
	char *p = path ? strdup(path) : NULL;

	if (path && !p)
		return -ENOMEM;
	free(s->control_at);
	s->control_at = p;
	s->control = on;
	s->spec.live_cap = on ? LIVE_STATEMENTS : 0;
	/* counted from the start: --wait-call N is about the whole run */
	for (unsigned i = 0; i < MS_FN_COUNT; i++)
		s->spec.counted[i] = on && strcmp(ms_catalog_get(i)->group, "memory") != 0;
	return 0;
}

void ms_session_spec_counts(const struct ms_spec *spec, uint32_t c[5])
{
	c[0] = spec->nrules;
	c[1] = spec->nouts;
	c[2] = spec->nconds;
	c[3] = spec->pool_len;
	c[4] = spec->nsources;
}

void ms_session_spec_restore(struct ms_spec *spec, const uint32_t c[5])
{
	spec->nrules = c[0];
	spec->nouts = c[1];
	spec->nconds = c[2];
	spec->pool_len = c[3];
	spec->nsources = c[4];
}

const char *mockshim_session_control_path(const struct mockshim_session *s)
{
	return __atomic_load_n(&s->ctl_path, __ATOMIC_ACQUIRE);
}

int mockshim_session_set_timeout(struct mockshim_session *s, double seconds)
{
	if (!(seconds >= 0) || seconds > 1e9)
		return -EINVAL;
	s->timeout = seconds;
	return 0;
}

void mockshim_session_set_abort_on_fail(struct mockshim_session *s, int on)
{
	if (on)
		s->chan_flags |= MS_CHAN_ABORT_ON_FAIL;
	else
		s->chan_flags &= ~(uint32_t)MS_CHAN_ABORT_ON_FAIL;
}

void mockshim_session_set_seed(struct mockshim_session *s, uint64_t seed)
{
	s->seed = seed;
	s->seed_set = 1;
}

void mockshim_session_set_trace_timed(struct mockshim_session *s, int on)
{
	if (on)
		s->chan_flags |= MS_CHAN_TRACE_TIMED;
	else
		s->chan_flags &= ~(uint32_t)MS_CHAN_TRACE_TIMED;
}

void mockshim_session_set_verbosity(struct mockshim_session *s, int verbosity)
{
	s->verbosity = verbosity;
}

/* ---- finding libmockshim.so ---- */

/* DIR/../libmockshim/libmockshim.so (build tree), DIR/../LIBDIR/ (installed
 * binary) or DIR/ (installed library), for the directory DIR of us. */
static char *shim_near(const char *dir)
{
	const char *rel[] = { "../libmockshim/", "../" MS_LIBDIR_REL "/", "" };
	char cand[PATH_MAX + 64];

	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(cand, sizeof(cand), "%s/%slibmockshim.so", dir, rel[i]);
		if (access(cand, R_OK) == 0)
			return realpath(cand, NULL);
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

static void kill_tree(pid_t pgid, int sig)
{
	pid_t pids[4096];
	size_t n = list_tree(pids, sizeof(pids) / sizeof(pids[0]));

	kill(-pgid, sig);
	for (size_t i = 0; i < n; i++)
		kill(pids[i], sig);
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
}

void ms_session_set_once(struct mockshim_session *s)
{
	s->once = 1;
}

static int make_channel(struct mockshim_session *s)
{
	const char *why;
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
	s->own = calloc(1, ms_channel_size(&s->spec, s->events_cap));
	if (!s->own)
		return -ENOMEM;
	r = ms_channel_create_own(&s->spec, s->events_cap,
				  s->chan_flags |
					  (s->verbosity >= MOCKSHIM_VERBOSE ? MS_CHAN_LOG_CALLS : 0),
				  s->token, s->own, &s->chan);
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

int mockshim_session_run(struct mockshim_session *s, char *const argv[], char *const envp[],
			 struct mockshim_result *result)
{
	sigset_t mask, old;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_ttou;
	char chan_path[96], chan_fd[100];
	char **env = NULL;
	int inherit_fd[2] = { -1, -1 };
	int errpipe[2] = { -1, -1 }, sfd = -1, r = 0, tty = -1, exec_err = 0;
	int io[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } }; /* stdin, stdout, stderr */
	struct sigaction ign_pipe = { .sa_handler = SIG_IGN }, old_pipe;
	size_t stdin_off = 0;
	pid_t child = -1;
	int64_t deadline = -1, kill_at = -1;
	int main_done = 0, status = 0, spec_changed;
	struct {
		pid_t pid;
		int64_t since;	/* < 0: warned */
	} stopped[MAX_STOPPED];
	size_t nstopped = 0;
	ssize_t got;
	struct timespec run_t0, run_t1;
	struct ms_sup *sup = NULL;	/* SYS_ statements: the syscall supervisor */

	if (!argv || !argv[0])
		return -EINVAL;
	release_run(s);
	memset(&s->result, 0, sizeof(s->result));
	s->done_before_timeout = 0;
	/* for the reports: JUnit's timestamp and time */
	clock_gettime(CLOCK_MONOTONIC, &run_t0);
	s->result.started = (long long)time(NULL);
	s->program = strdup(argv[0]);
	if (!s->program)
		return -ENOMEM;
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
	ms_session_spec_counts(&s->spec, s->base);
	s->nctl = 0;
	s->stop_req = 0;
	r = make_channel(s);
	if (r < 0)
		goto out;
	if (s->control) {
		s->ctl = ms_control_open(s->control_at, s->error, sizeof(s->error));
		if (!s->ctl) {
			r = -EINVAL;
			goto out;
		}
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
	{
		struct stat sb[2];

		inherit_fd[0] = fcntl(s->chan.spec_fd, F_DUPFD_CLOEXEC, MS_CHAN_FD_FLOOR);
		inherit_fd[1] = fcntl(s->chan.state_fd, F_DUPFD_CLOEXEC, MS_CHAN_FD_FLOOR);
		if (inherit_fd[0] >= 0 && inherit_fd[1] >= 0 && fstat(inherit_fd[0], &sb[0]) == 0 &&
		    fstat(inherit_fd[1], &sb[1]) == 0) {
			snprintf(chan_fd, sizeof(chan_fd), "%d:%llu,%d:%llu", inherit_fd[0],
				 (unsigned long long)sb[0].st_ino, inherit_fd[1],
				 (unsigned long long)sb[1].st_ino);
		} else {
			for (int i = 0; i < 2; i++)
				if (inherit_fd[i] >= 0)
					close(inherit_fd[i]);
			inherit_fd[0] = inherit_fd[1] = -1;
		}
	}
	env = child_env(envp ? envp : environ, s->shim_path, s->modules, s->nmodules, chan_path,
			inherit_fd[0] >= 0 ? chan_fd : NULL, s->ctl ? ms_control_path(s->ctl) : NULL);
	if (!env) {
		r = -ENOMEM;
		goto out;
	}
	/* the spec as mapped when --control adds to it, else mockrun's own
	 * copy of it (the memfd is not mapped then: ms_session_set_once) */
	sup = ms_sup_prepare(s->chan.spec ? s->chan.spec : s->own, s->chan.state, &r, s->error,
			     sizeof(s->error));
	if (r < 0 || (sup && (r = ms_sup_check(argv[0], envp ? envp : environ, s->error,
						sizeof(s->error))) < 0))
		goto out;
	if (pipe2(errpipe, O_CLOEXEC) != 0) {
		r = -errno;
		goto out;
	}
	/* stdin fed from memory, stdout and stderr captured: through pipes,
	 * never files (a program may take another path on a regular file) */
	if ((s->has_stdin && pipe2(io[0], O_CLOEXEC) != 0) ||
	    (s->capture && (pipe2(io[1], O_CLOEXEC) != 0 || pipe2(io[2], O_CLOEXEC) != 0))) {
		r = -errno;
		goto out;
	}
	sigaction(SIGPIPE, &ign_pipe, &old_pipe);
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		r = -errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		sigaction(SIGPIPE, &old_pipe, NULL);
		goto out;
	}
	/* Orphans of the tree come to us, so we can wait for all of them. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* The program gets the terminal, as under a shell: both sides hand it
	 * over, so the program never reads it before it is in the foreground
	 * (SIGTTIN).  SIGTTOU is ignored meanwhile, as shells do. */
	if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp()) {
		tty = STDIN_FILENO;
		sigaction(SIGTTOU, &ign, &old_ttou);
	}
	child = fork();
	if (child < 0) {
		r = -errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		prctl(PR_SET_CHILD_SUBREAPER, 0);
		if (tty >= 0)
			sigaction(SIGTTOU, &old_ttou, NULL);
		sigaction(SIGPIPE, &old_pipe, NULL);
		goto out;
	}
	if (child == 0) {
		int e;

		setpgid(0, 0);
		if (tty >= 0) {
			tcsetpgrp(tty, getpid());
			sigaction(SIGTTOU, &old_ttou, NULL);
		}
		sigaction(SIGPIPE, &old_pipe, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		for (int i = 0; i < 2; i++)
			if (inherit_fd[i] >= 0)
				fcntl(inherit_fd[i], F_SETFD, 0);
		if ((io[0][0] >= 0 && dup2(io[0][0], 0) < 0) || (io[1][1] >= 0 && dup2(io[1][1], 1) < 0) ||
		    (io[2][1] >= 0 && dup2(io[2][1], 2) < 0) || (s->cwd && chdir(s->cwd) != 0)) {
			e = errno;
			if (write(errpipe[1], &e, sizeof(e)) < 0)
				_exit(126);
			_exit(126);
		}
		if (sup && (e = -ms_sup_install(sup, env)) > 0) {
			if (write(errpipe[1], &e, sizeof(e)) < 0)
				_exit(126);
			_exit(126);
		}
		execvpe(argv[0], argv, env);
		e = errno;
		if (write(errpipe[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(child, child);
	if (sup && ms_sup_attach(sup, child, s->error, sizeof(s->error)) < 0)
		fprintf(stderr, "mockrun: %s\n", s->error); /* the child exits 126 */
	close(errpipe[1]);
	errpipe[1] = -1;
	/* keep only our ends: the program's ends close when it is done */
	for (int i = 0; i < 3; i++) {
		int theirs = i == 0 ? 0 : 1;

		if (io[i][theirs] >= 0)
			close(io[i][theirs]);
		io[i][theirs] = -1;
		if (io[i][!theirs] >= 0)
			fcntl(io[i][!theirs], F_SETFL, O_NONBLOCK);
	}
	if (io[0][1] >= 0 && s->stdin_len == 0) {
		close(io[0][1]);
		io[0][1] = -1;
	}
	if (tty >= 0)
		tcsetpgrp(tty, child);
	got = read(errpipe[0], &exec_err, sizeof(exec_err));
	if (got != (ssize_t)sizeof(exec_err))
		exec_err = 0;
	if (!exec_err)
		ms_sup_execd(sup);
	if (s->timeout > 0)
		deadline = now_ms() + (int64_t)(s->timeout * 1000);

	for (;;) {
		struct pollfd pfd[4 + MS_CONTROL_POLLFDS] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = io[1][0], .events = POLLIN },
			{ .fd = io[2][0], .events = POLLIN },
			{ .fd = io[0][1], .events = POLLOUT },
		};
		size_t npfd = 4;
		struct signalfd_siginfo si;
		int64_t t = now_ms(), wait_ms = -1;
		pid_t p;
		int st;

		/* A descendant that exited, looked at before it is reaped (its
		 * comm is still there): one that never attached ran unmocked. */
		for (;;) {
			siginfo_t wi;

			memset(&wi, 0, sizeof(wi));
			if (waitid(P_ALL, 0, &wi, WEXITED | WNOHANG | WNOWAIT) != 0 || wi.si_pid <= 0)
				break;
			if (wi.si_pid != child)
				note_unattached(s, wi.si_pid);
			if (waitpid(wi.si_pid, &st, WNOHANG) != wi.si_pid)
				break;
			for (size_t i = 0; i < nstopped; i++)
				if (stopped[i].pid == wi.si_pid)
					stopped[i] = stopped[--nstopped];
			if (wi.si_pid == child) {
				status = st;
				main_done = 1;
			}
		}
		while ((p = waitpid(-1, &st, WNOHANG | WUNTRACED | WCONTINUED)) > 0) {
			if (WIFCONTINUED(st)) {
				/* continued: no longer one to name */
				for (size_t i = 0; i < nstopped; i++)
					if (stopped[i].pid == p)
						stopped[i] = stopped[--nstopped];
				continue;
			}
			if (p == child && WIFSTOPPED(st)) {
				job_stopped(tty, child);
				continue;
			}
			if (WIFSTOPPED(st)) {
				if (nstopped < MAX_STOPPED) {
					stopped[nstopped].pid = p;
					stopped[nstopped++].since = now_ms();
				}
				continue;
			}
			for (size_t i = 0; i < nstopped; i++)
				if (stopped[i].pid == p)
					stopped[i] = stopped[--nstopped];
			if (p == child) {
				status = st;
				main_done = 1;
			}
		}
		for (size_t i = 0; i < nstopped; i++) {
			char comm[64];

			if (stopped[i].since < 0 || t - stopped[i].since < STOPPED_WARN_MS)
				continue;
			stopped[i].since = -1;
			comm_of(stopped[i].pid, comm, sizeof(comm));
			fprintf(stderr, "mockshim: warning: %s[%d] is stopped (SIGSTOP): the run ends when "
					"it does; SIGCONT or kill it, or use --timeout\n",
				comm, (int)stopped[i].pid);
		}
		if (p < 0 && errno == ECHILD && io[1][0] < 0 && io[2][0] < 0)
			break;
		if (deadline >= 0 && t >= deadline && !s->result.timed_out) {
			s->result.timed_out = 1;
			s->done_before_timeout = main_done;
			note_still_running(s);
			kill_tree(child, SIGTERM);
			/* a stopped process takes its SIGTERM when continued, as
			 * timeout(1) does it */
			kill_tree(child, SIGCONT);
			kill_at = t + KILL_GRACE_MS;
		}
		if (__atomic_load_n(&s->stop_req, __ATOMIC_ACQUIRE) == 1 && kill_at < 0) {
			/* ctl --stop: as at the timeout, but not one */
			s->stop_req = 2;
			kill_tree(child, SIGTERM);
			kill_tree(child, SIGCONT);
			kill_at = t + KILL_GRACE_MS;
		}
		if (kill_at >= 0 && t >= kill_at) {
			kill_tree(child, SIGKILL);
			kill_at = t + KILL_GRACE_MS;
		}
		if (kill_at >= 0)
			wait_ms = kill_at - t;
		else if (deadline >= 0)
			wait_ms = deadline - t;
		for (size_t i = 0; i < nstopped; i++)
			if (stopped[i].since >= 0 &&
			    (wait_ms < 0 || stopped[i].since + STOPPED_WARN_MS - t < wait_ms))
				wait_ms = stopped[i].since + STOPPED_WARN_MS - t > 0
						  ? stopped[i].since + STOPPED_WARN_MS - t : 0;
		if (s->ctl) {
			int w = ms_control_wait_ms(s->ctl);

			npfd += ms_control_pollfds(s->ctl, pfd + 4);
			if (w >= 0 && (wait_ms < 0 || w < wait_ms))
				wait_ms = w;
		}
		if (poll(pfd, (nfds_t)npfd, wait_ms < 0 ? -1 : (int)(wait_ms > INT_MAX ? INT_MAX : wait_ms)) < 0 &&
		    errno != EINTR)
			break;
		if (s->ctl)
			ms_control_serve(s->ctl, pfd + 4, npfd - 4, s);
		for (int i = 1; i <= 2; i++) {
			if (io[i][0] >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
			    drain(io[i][0], &s->out[i - 1]) <= 0) {
				close(io[i][0]);
				io[i][0] = -1;
			}
		}
		if (io[0][1] >= 0 && (pfd[3].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t k = write(io[0][1], s->stdin_data + stdin_off, s->stdin_len - stdin_off);

			if (k > 0)
				stdin_off += (size_t)k;
			if ((k < 0 && errno != EAGAIN) || stdin_off == s->stdin_len) {
				close(io[0][1]);
				io[0][1] = -1;
			}
		}
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				continue;
			s->result.driver_signal = (int)si.ssi_signo;
			kill_tree(child, (int)si.ssi_signo);
		}
	}
	(void)main_done;
	/* every process of the tree is gone: so are its system calls */
	ms_sup_stop(sup);
	sup = NULL;
	if (tty >= 0) {
		tcsetpgrp(tty, getpgrp());
		sigaction(SIGTTOU, &old_ttou, NULL);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	prctl(PR_SET_CHILD_SUBREAPER, 0);

	s->ran = 1;
	clock_gettime(CLOCK_MONOTONIC, &run_t1);
	s->result.seconds = (double)(run_t1.tv_sec - run_t0.tv_sec) +
			    (double)(run_t1.tv_nsec - run_t0.tv_nsec) / 1e9;
	s->result.exec_errno = exec_err;
	if (!exec_err) {
		if (WIFEXITED(status)) {
			s->result.exited = 1;
			s->result.exit_status = WEXITSTATUS(status);
		} else if (WIFSIGNALED(status)) {
			s->result.signal = WTERMSIG(status);
		}
	}
	pthread_mutex_lock(&s->live_lock);
	s->live_open = 0;
	pthread_mutex_unlock(&s->live_lock);
	if (s->ctl)
		ms_control_finish(s->ctl, s);
	/* Every process of the tree has exited: what they left in the state
	 * is copied once and audited, and the report reads only that copy
	 * and mockrun's own spec, where the statements ctl added now count. */
	spec_changed = s->chan.spec ? memcmp(s->own, s->chan.spec, s->chan.spec_size) != 0
				    : !ms_channel_same(s->chan.spec_fd, s->own, s->chan.spec_size);
	ms_channel_commit_live(s->own);
	s->view.spec = s->own;
	r = ms_report_take_state_fd(&s->view, s->chan.state_fd, s->chan.state_size, s->token);
	if (r < 0)
		goto out;
	if (spec_changed && !s->view.tampered)
		s->view.tampered = "the spec was written during the run (through a mapping made "
				   "writable, or mockrun's memory)";
	s->result.processes = ms_report_state(&s->view)->attached;
	s->result.tampered = s->view.tampered != NULL;
	{
		struct ms_report_in in = ms_session_report_in(s);

		s->result.failures = ms_report_failures(&in);
		s->result.leftovers = ms_report_leftovers(&in);
		s->result.consumed = ms_report_consumed(&in);
	}
	if (result)
		*result = s->result;
out:
	ms_sup_stop(sup);
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 2; k++)
			if (io[i][k] >= 0)
				close(io[i][k]);
	if (sfd >= 0)
		close(sfd);
	if (errpipe[0] >= 0)
		close(errpipe[0]);
	if (errpipe[1] >= 0)
		close(errpipe[1]);
	free_child_env(env, (inherit_fd[0] >= 0 ? 3 : 2) + (s->ctl != NULL));
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
		if (inherit_fd[i] >= 0)
			close(inherit_fd[i]);
	/* The memfds go now: nothing of the session survives the run but the
	 * spec's mapping and the state's audited copy, which the report reads. */
	if (s->chan.state) {
		munmap(s->chan.state, s->chan.state_size);
		s->chan.state = NULL;
	}
	if (s->chan.spec_fd >= 0)
		close(s->chan.spec_fd);
	if (s->chan.state_fd >= 0)
		close(s->chan.state_fd);
	s->chan.spec_fd = s->chan.state_fd = -1;
	return r;
}

struct ms_report_in ms_session_report_in(const struct mockshim_session *s)
{
	struct ms_report_in in = {
		.spec = s->view.spec,
		.state = s->view.state,
		.state_size = s->view.state_size,
		.tampered = s->view.tampered,
		.tamper_pid = s->view.tamper_pid,
		.program = s->program,
		.result = s->result,
		.verbosity = s->verbosity,
		.done_before_timeout = s->done_before_timeout,
		.unattached = s->unattached,
		.nunattached = s->nunattached,
		.unattached_more = s->unattached_more,
		.still_running = s->still_running,
		.nstill_running = s->nstill_running,
	};

	return in;
}

int mockshim_session_report(struct mockshim_session *s, FILE *out, int format)
{
	struct ms_report_in in;

	if (!s->ran)
		return -EINVAL;
	in = ms_session_report_in(s);
	return ms_report_write(&in, out, format);
}
