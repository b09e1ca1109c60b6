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
#include <sys/syscall.h>
#include <unistd.h>

#include "channel.h"
#include "shim.h"

extern char **environ;

static size_t len_of(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* KEY's value in env (NULL: not there). */
static const char *env_value(char *const *env, const char *key)
{
	size_t k = len_of(key);

	for (; env && *env; env++)
		if (strncmp(*env, key, k) == 0 && (*env)[k] == '=')
			return *env + k + 1;
	return NULL;
}

/* file found on PATH as execvp would (the first executable), into out. */
static int search_path(const char *file, char *out, size_t cap)
{
	const char *p = env_value(environ, "PATH");
	size_t n = len_of(file);

	if (!p)
		p = "/bin:/usr/bin";
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
	if (syscall(SYS_fstat, fd, &sb) == 0 && (sb.st_mode & (S_ISUID | S_ISGID)))
		kind = MS_ESC_SETUID;
	else if (syscall(SYS_fgetxattr, fd, "security.capability", NULL, 0L) > 0)
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
	const char *pre = env_value(env, "LD_PRELOAD"), *chan = env_value(env, MS_CHAN_ENV);
	const char *mine = ms_channel_env();
	Dl_info info;
	const char *base = "libmockshim.so";

	if (dladdr(ms_armed, &info) && info.dli_fname) {
		base = info.dli_fname;
		for (const char *p = info.dli_fname; *p; p++)
			if (*p == '/')
				base = p + 1;
	}
	/* (a shim loaded by /etc/ld.so.preload needs no LD_PRELOAD) */
	if (ms_preloaded_by_env() && (!pre || !strstr(pre, base)))
		return MS_ESC_NO_PRELOAD;
	if (mine && (!chan || strcmp(chan, mine) != 0))
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

void ms_exec_check(unsigned id, const uint64_t *a)
{
	char path[512];
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
		file = (const char *)(uintptr_t)a[x->file];
	}
	if (x->env >= 0)
		env = (char *const *)(uintptr_t)a[x->env];
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
	envk = env_escape(env ? env : environ);
	kind = examine(path, sizeof(path), 0);
	if (kind)
		warn(id, kind, spawned, search || file[0] == '/' ? path : file);
	if (envk)
		warn(id, envk, spawned, file);
out:
	errno = saved;
}
