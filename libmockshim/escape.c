/* SPDX-License-Identifier: MIT */
/*
 * Escapes anywhere in the tree: before a process of the run execs or
 * spawns a program, the shim looks at what will run and in what
 * environment, and logs a warning event for each way the program would
 * run unmocked (static, setuid or file capabilities, 32-bit, or an
 * environment without the shim's LD_PRELOAD or the channel).  The report
 * names them with the process that started them.
 *
 * Called from the armed path of the exec family (they are armed in every
 * attached process: MS_FF_EXEC), possibly in a vfork child: raw system
 * calls, the stack and the channel only.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "channel/channel.h"
#include "shim.h"

extern char **environ;

static size_t len_of(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/*
 * KEY's value in env, copied into val (cap bytes): 1, or 0 when it is not
 * there.  env is the program's (the array execve was given): every
 * pointer and string is read fault-safely, so that a bad one makes the
 * exec fail with EFAULT as it would, not the shim crash.
 */
static int env_value(char *const *env, const char *key, char *val, size_t cap)
{
	size_t k = len_of(key);

	for (size_t i = 0; env && i < 65536; i++) {
		const char *p;
		size_t got;

		if (ms_read_user(&p, env + i, sizeof(p)) != sizeof(p) || !p)
			return 0;
		got = ms_read_user(val, p, cap - 1);
		val[got] = '\0';
		if (got > k && strncmp(val, key, k) == 0 && val[k] == '=') {
			memmove(val, val + k + 1, got - k);
			return 1;
		}
	}
	return 0;
}

/* file found on PATH as execvp would (the first executable), into out. */
static int search_path(const char *file, char *out, size_t cap)
{
	char pathv[1024];
	const char *p = env_value(environ, "PATH", pathv, sizeof(pathv)) ? pathv : "/bin:/usr/bin";
	size_t n = len_of(file);

	while (*p) {
		const char *e = strchr(p, ':');
		size_t d = e ? (size_t)(e - p) : len_of(p);

		if (d + 1 + n < cap) {
			memcpy(out, p, d);
			out[d] = '/';
			memcpy(out + d + 1, file, n + 1);
			if (!d)
				memmove(out, out + 1, n + 1); /* an empty entry: the cwd */
			if (syscall(SYS_faccessat, AT_FDCWD, out, X_OK, 0) == 0)
				return 0;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return -1;
}

/* What the program at path is: one of enum ms_escape, 0 when it can be
 * mocked; a script's interpreter (one level) is looked at in its place. */
static int examine(char *path, size_t cap, int depth)
{
	unsigned char buf[1024];
	struct stat sb;
	long fd = syscall(SYS_openat, AT_FDCWD, path, (long)(O_RDONLY | O_CLOEXEC)), n;
	const Elf64_Ehdr *eh = (const void *)buf;
	int kind = 0;

	if (fd < 0)
		return 0; /* the exec will fail on its own */
	/* secure execution: the exec changes the effective ids (not on a
	 * nosuid mount, nor to the ids the process has) */
	if (syscall(SYS_fstat, fd, &sb) == 0 &&
	    (((sb.st_mode & S_ISUID) && sb.st_uid != (uid_t)syscall(SYS_getuid)) ||
	     ((sb.st_mode & S_ISGID) && sb.st_gid != (gid_t)syscall(SYS_getgid)))) {
		struct statfs fs;

		if (syscall(SYS_fstatfs, fd, &fs) != 0 || !(fs.f_flags & ST_NOSUID))
			kind = MS_ESC_SETUID;
	}
	if (!kind && syscall(SYS_fgetxattr, fd, "security.capability", NULL, 0L) > 0)
		kind = MS_ESC_CAPS;
	n = kind ? 0 : syscall(SYS_pread64, fd, buf, sizeof(buf) - 1, 0L);
	if (n >= 2 && buf[0] == '#' && buf[1] == '!' && depth == 0) {
		/* a script: its interpreter runs, with the script as argument */
		char *p = (char *)buf + 2, *q;

		buf[n] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		q = p;
		while (*q && *q != ' ' && *q != '\t' && *q != '\n')
			q++;
		*q = '\0';
		if (*p && (size_t)(q - p) < cap) {
			memcpy(path, p, (size_t)(q - p) + 1);
			syscall(SYS_close, fd);
			return examine(path, cap, 1);
		}
	} else if (n >= (long)sizeof(*eh) && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0) {
		if (eh->e_ident[EI_CLASS] != ELFCLASS64) {
			kind = MS_ESC_32BIT;
		} else if (eh->e_phentsize == sizeof(Elf64_Phdr) && eh->e_phnum < 128) {
			int interp = 0;

			for (unsigned i = 0; i < eh->e_phnum && !interp; i++) {
				Elf64_Phdr ph;

				if (syscall(SYS_pread64, fd, &ph, sizeof(ph),
					    (long)(eh->e_phoff + i * sizeof(ph))) != (long)sizeof(ph))
					break;
				interp = ph.p_type == PT_INTERP;
			}
			if (!interp && (eh->e_type == ET_EXEC || eh->e_type == ET_DYN))
				kind = MS_ESC_STATIC;
		}
	}
	syscall(SYS_close, fd);
	return kind;
}

/* Whether env keeps this run's shim and channel (as this process had
 * them when it attached: env may be environ, cleared since, as env -i
 * does before its execvp): 0, or the escape. */
static int env_escape(char *const *env)
{
	char pre[2048], chan[512];
	const char *mine = ms_channel_env(), *base = ms_shim_base();

	/* (a shim loaded by /etc/ld.so.preload needs no LD_PRELOAD) */
	if (ms_preloaded_by_env() &&
	    (!env_value(env, "LD_PRELOAD", pre, sizeof(pre)) || !strstr(pre, base)))
		return MS_ESC_NO_PRELOAD;
	if (mine && (!env_value(env, MS_CHAN_ENV, chan, sizeof(chan)) || strcmp(chan, mine) != 0))
		return MS_ESC_NO_CHANNEL;
	return 0;
}

static void warn(unsigned id, int kind, int spawned, const char *path)
{
	struct ms_event *e = ms_ev_begin(MS_EV_WARN, id, UINT32_MAX, 0);
	size_t n;

	if (!e)
		return;
	e->kind = (uint16_t)kind;
	e->param = (uint8_t)spawned;
	n = len_of(path);
	if (n >= MS_EV_TEXT) {
		/* the end of a long path says more than its start */
		path += n - (MS_EV_TEXT - 1);
		n = MS_EV_TEXT - 1;
	}
	memcpy(e->text, path, n);
	e->text[n] = '\0';
	ms_ev_commit(e);
}

void ms_hook_exec_check(unsigned id, const uint64_t *a)
{
	char path[512], name[512];
	const char *file = NULL;
	char *const *env = environ;
	const struct ms_exec_row *x = ms_exec_row(id);
	int search, spawned, saved = errno, kind, envk;

	if (!x)
		return;
	if (x->file == MS_EXEC_SH) {
		if (!a[0])
			return; /* system(NULL): is there a shell? */
		file = "/bin/sh";
	} else if (x->fd) {
		/* fexecve: the file the fd refers to */
		static const char fdp[] = "/dev/fd/";
		unsigned v = (unsigned)(int)a[x->file];
		char d[12];
		int n = 0, k = sizeof(fdp) - 1;

		memcpy(path, fdp, (size_t)k);
		do
			d[n++] = (char)('0' + v % 10);
		while ((v /= 10) && n < 11);
		while (n)
			path[k++] = d[--n];
		path[k] = '\0';
		file = path;
	} else {
		/* the program's string, read fault-safely */
		size_t got = ms_read_user(name, (const void *)(uintptr_t)a[x->file], sizeof(name) - 1);

		if (!a[x->file] || !got)
			return;
		name[got] = '\0';
		file = name;
	}
	/* execve(path, argv, NULL): the program starts with no environment */
	if (x->env >= 0)
		env = a[x->env] ? (char *const *)(uintptr_t)a[x->env] : NULL;
	search = x->search;
	spawned = x->spawn;
	if (!file || !*file)
		return;
	if (search && !strchr(file, '/')) {
		if (search_path(file, path, sizeof(path)) != 0)
			goto out;
	} else if (len_of(file) < sizeof(path)) {
		if (file != path)
			memcpy(path, file, len_of(file) + 1);
	} else {
		goto out;
	}
	/* an exec that will fail (a shell trying each PATH entry) starts nothing */
	if (syscall(SYS_faccessat, AT_FDCWD, path, X_OK, 0) != 0)
		goto out;
	envk = env_escape(env);
	kind = examine(path, sizeof(path), 0);
	if (kind)
		warn(id, kind, spawned, search || file[0] == '/' ? path : file);
	if (envk)
		warn(id, envk, spawned, file);
out:
	errno = saved;
}
