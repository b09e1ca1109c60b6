/* SPDX-License-Identifier: MIT */
/*
 * What the loader will do with a program, before it runs: the warnings
 * every run prints (a setuid or static program the preload cannot
 * reach), and `mockrun --check`, which says for each mocked function
 * whether the program or one of its libraries imports it, and where its
 * work goes when it does not (stdio inside libc, a SYS_ statement).
 * ELF files are read, never loaded (elfread.h); the libraries are listed by
 * the loader itself (LD_TRACE_LOADED_OBJECTS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "elfread.h"
#include "session.h"

/* argv[0] as execvp finds it, in buf; NULL when not found. */
static const char *find_program(const char *name, char *const envp[], char *buf, size_t cap)
{
	const char *path = NULL;
	size_t len = strlen(name);

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? name : NULL;
	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			path = *e + 5;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		/* (this runs before every run: no snprintf per directory) */
		if (n + 1 + len < cap) {
			memcpy(buf, path, n);
			buf[n] = '/';
			memcpy(buf + n + !!n, name, len + 1);
			if (access(buf, X_OK) == 0)
				return buf;
		}
		path += n + (path[n] == ':');
	}
	return NULL;
}

/* 1: an ELF program with an interpreter (the loader), 0: a static ELF,
 * -1: not ELF (a script) or unreadable.  One read finds the program
 * headers where linkers put them, right after the ELF header. */
static int has_interp(const char *path)
{
	union {
		Elf64_Ehdr eh;
		unsigned char b[4096];
	} u;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = -1;
	ssize_t got;

	if (fd < 0)
		return -1;
	got = pread(fd, u.b, sizeof(u.b), 0);
	if (got >= (ssize_t)sizeof(u.eh) && ms_elf_ehdr_ok(&u.eh) &&
	    u.eh.e_phentsize == sizeof(Elf64_Phdr)) {
		uint64_t phoff = u.eh.e_phoff;

		r = 0;
		for (unsigned i = 0; i < u.eh.e_phnum; i++) {
			uint64_t off = phoff + (uint64_t)i * sizeof(Elf64_Phdr);
			Elf64_Phdr ph;

			if (off <= (uint64_t)got && (uint64_t)got - off >= sizeof(ph))
				memcpy(&ph, u.b + off, sizeof(ph));
			else if (pread(fd, &ph, sizeof(ph), (off_t)off) != (ssize_t)sizeof(ph))
				break;
			if (ph.p_type == PT_INTERP)
				r = 1;
		}
	}
	close(fd);
	return r;
}

int mockshim_check_program(const char *program, char *const envp[], char *buf, size_t cap)
{
	return ms_check_program(program, envp, 0, buf, cap);
}

int ms_session_has_syscalls(const struct mockshim_session *s)
{
	for (uint32_t i = 0; i < s->spec.ndyn; i++)
		if (s->spec.dyn[i]->syscall)
			return 1;
	return 0;
}

/* Whether the ELF at path is a Go program (its build ID note or build
 * information section): one that makes its system calls itself. */
static int is_go(const char *path)
{
	FILE *f = fopen(path, "re");
	int r;

	if (!f)
		return 0;
	r = ms_elf_section(f, ".go.buildinfo", NULL, NULL) == 0 ||
	    ms_elf_section(f, ".note.go.buildid", NULL, NULL) == 0;
	fclose(f);
	return r;
}

/* Whether mockrun has CAP_SYS_ADMIN: its filter then needs no
 * no_new_privs, and a setuid program under it keeps its privilege. */
static int sys_admin(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long eff = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "CapEff:", 7) == 0)
			eff = strtoull(line + 7, NULL, 16);
	fclose(f);
	return (eff >> 21) & 1; /* CAP_SYS_ADMIN */
}

int ms_session_check_flags(const struct mockshim_session *s)
{
	return (ms_session_has_syscalls(s) ? MS_CHECK_SYSCALLS : 0) |
	       (s->spec.nftimes ? MS_CHECK_FTIME : 0);
}

int ms_is_go_program(const char *program, char *const envp[])
{
	extern char **environ;
	char pathbuf[PATH_MAX];
	const char *p = find_program(program, envp ? envp : environ, pathbuf, sizeof(pathbuf));

	return p && is_go(p);
}

/* Go's clock: what a fake_time cannot reach, and what can */
#define GO_CLOCK                                                                                     \
	"%s %s a Go program: its runtime reads the clock from the vDSO itself, neither through "     \
	"libc nor by a system call, so fake_time does not reach it, and SYS_clock_gettime "           \
	"does not either; give the program its time from outside (a flag, an environment "            \
	"variable), or run it in a time namespace (unshare --time: the monotonic and boot "           \
	"clocks only)\n"

int ms_check_program(const char *program, char *const envp[], int flags, char *buf, size_t cap)
{
	int syscalls = flags & MS_CHECK_SYSCALLS;
	extern char **environ;
	char pathbuf[PATH_MAX];
	const char *p = find_program(program, envp ? envp : environ, pathbuf, sizeof(pathbuf));
	struct stat st;
	int n = 0;
	size_t off = 0;

	if (cap)
		buf[0] = '\0';
	if (!p || stat(p, &st) != 0)
		return 0; /* the run says "not found" */
	if ((st.st_mode & (S_ISUID | S_ISGID)) &&
	    ((st.st_mode & S_ISUID ? st.st_uid != getuid() : 0) ||
	     (st.st_mode & S_ISGID ? st.st_gid != getgid() : 0))) {
		off += (size_t)snprintf(buf + off, off < cap ? cap - off : 0,
					!syscalls ? "warning: %s is set%cid: the loader ignores "
						    "LD_PRELOAD for it, nothing in it can be mocked\n"
					: sys_admin() ? "warning: %s is set%cid: the loader ignores "
							"LD_PRELOAD for it; the SYS_ statements reach "
							"it, and it keeps its privilege (mockrun has "
							"CAP_SYS_ADMIN: the filter needs no "
							"no_new_privs)\n"
						      : "warning: %s is set%cid: the loader ignores "
							"LD_PRELOAD for it, and under the syscall "
							"filter (no_new_privs) it runs without its "
							"privilege\n",
					p, st.st_mode & S_ISUID ? 'u' : 'g');
		n++;
	}
	if (has_interp(p) == 0) {
		off += (size_t)snprintf(buf + off, off < cap ? cap - off : 0,
					syscalls ? "note: %s is statically linked: LD_PRELOAD "
						   "cannot reach it, the SYS_ statements do\n"
						 : "warning: %s is statically linked: LD_PRELOAD "
						   "cannot reach it, nothing in it can be mocked "
						   "(SYS_ statements can)\n",
					p);
		n++;
	}
	if ((flags & MS_CHECK_FTIME) && is_go(p)) {
		off += (size_t)snprintf(buf + off, off < cap ? cap - off : 0, "warning: fake_time: " GO_CLOCK, p,
					"is");
		n++;
	}
	return n;
}

/* ---- --check: which objects import the mocked functions ---- */

/* Calls fn for each undefined dynamic symbol of the ELF file at path. */
static int each_import(const char *path, void (*fn)(const char *name, void *ctx), void *ctx)
{
	FILE *f = fopen(path, "re");
	Elf64_Ehdr eh;
	int r = -ENOEXEC;

	if (!f)
		return -errno;
	if (ms_elf_ehdr(f, &eh) != 0 || eh.e_shentsize != sizeof(Elf64_Shdr))
		goto out;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh, strsh;
		char *strs;

		if (ms_elf_shdr(f, &eh, i, &sh) != 0)
			goto out;
		if (sh.sh_type != SHT_DYNSYM || sh.sh_entsize != sizeof(Elf64_Sym) ||
		    sh.sh_link >= eh.e_shnum)
			continue;
		if (ms_elf_shdr(f, &eh, sh.sh_link, &strsh) != 0)
			goto out;
		strs = ms_elf_blob(f, strsh.sh_offset, strsh.sh_size, 1u << 26);
		if (!strs)
			goto out;
		for (uint64_t k = 1; k < sh.sh_size / sizeof(Elf64_Sym); k++) {
			Elf64_Sym sym;

			if (ms_elf_at(f, sh.sh_offset + k * sizeof(sym), &sym, sizeof(sym)) != 0)
				break;
			if (sym.st_shndx == SHN_UNDEF && sym.st_name && sym.st_name < strsh.sh_size)
				fn(strs + sym.st_name, ctx);
		}
		free(strs);
		r = 0;
		break;
	}
out:
	fclose(f);
	return r;
}

struct import_scan {
	const struct mockshim_session *s;
	unsigned char *hit;	/* per catalog id */
	const char **as;	/* per catalog id: the alias imported, or NULL */
};

/* A symbol armed by its row: __read_chk is read (the catalog's aliases). */
static void note_import(const char *name, void *ctx)
{
	struct import_scan *sc = ctx;
	int id = ms_catalog_find(name, strlen(name));

	if (id < 0)
		return;
	sc->hit[id] = 1;
	if (sc->as && !sc->as[id] && strcmp(name, ms_catalog_get((unsigned)id)->name) != 0)
		sc->as[id] = ms_sym_name_of(name);
}

/*
 * Where a function's work goes when a program does not import it: the
 * stdio and other calls that do the same inside libc (whose own calls
 * to it never reach the shim), and the system call under them.
 */
static const struct {
	const char *fn, *others, *sys;
} instead[] = {
	{ "write", "fwrite fputs fputc putc putchar puts printf fprintf vfprintf fflush", "SYS_write" },
	{ "read", "fread fgets fgetc getc getline getdelim fscanf", "SYS_read" },
	{ "open", "fopen openat", "SYS_openat" },
	{ "openat", "fopen open", "SYS_openat" },
	{ "close", "fclose", "SYS_close" },
	{ "lseek", "fseek fseeko ftell ftello rewind", "SYS_lseek" },
	{ "stat", "statx fstatat lstat", "SYS_statx" },
	{ "lstat", "statx fstatat stat", "SYS_statx" },
	{ "fstat", "statx fstatat", "SYS_fstat" },
	{ "fstatat", "statx stat lstat", "SYS_newfstatat" },
	{ "fork", "vfork posix_spawn posix_spawnp system popen", "SYS_clone" },
	{ "execve", "execv execvp execvpe execl execlp execle posix_spawn", "SYS_execve" },
	{ "rename", "renameat renameat2", "SYS_renameat2" },
	{ "unlink", "unlinkat remove", "SYS_unlinkat" },
	{ "utimensat", "futimens utimes utime", "SYS_utimensat" },
	{ "getaddrinfo", "gethostbyname gethostbyname2", NULL },
	{ "localtime", "localtime_r", NULL },
	{ "getgroups", "getgrouplist", "SYS_getgroups" },
	{ "statvfs", "fstatvfs statfs", "SYS_statfs" },
};

/* imported: whether p imports id itself (then the others are "also") */
static void suggest(FILE *out, unsigned id, const struct import_scan *sc, int imported)
{
	const char *fn = ms_catalog_get(id)->name;

	for (size_t i = 0; i < sizeof(instead) / sizeof(instead[0]); i++) {
		const char *w = instead[i].others;
		int any = 0;

		if (strcmp(instead[i].fn, fn) != 0)
			continue;
		while (*w) {
			size_t n = strcspn(w, " ");
			int o = ms_catalog_find(w, n);

			if (o >= 0 && sc->hit[o]) {
				fprintf(out, "%s%.*s", any++ ? ", " : imported ? "check:   it also imports "
									  : "check:   it imports ",
					(int)n, w);
				if (sc->as[o])
					fprintf(out, " (as %s)", sc->as[o]);
			}
			w += n + (w[n] == ' ');
		}
		if (any && imported)
			fprintf(out, ": what goes through %s never calls the shim's %s() (libc's "
				     "own calls stay inside it): mock %s too\n",
				any > 1 ? "them" : "it", fn, any > 1 ? "them" : "it");
		else if (any)
			fprintf(out, ": mock %s instead\n", any > 1 ? "those" : "that");
		if (instead[i].sys && any && imported)
			fprintf(out, "check:   libc's own calls reach the kernel as %s, which a "
				     "preload does not see: use %s with when(%s ...) for them\n",
				instead[i].sys, instead[i].sys,
				ms_catalog_get(id)->nparams ? ms_catalog_get(id)->params[0].name : "");
		else if (instead[i].sys && (any || !imported))
			fprintf(out, "check:   libc's own calls reach the kernel as %s, which a "
				     "preload does not see: %s statements reach them\n",
				instead[i].sys, instead[i].sys);
	}
}

/* The objects the loader maps for path, as ldd lists them. */
static size_t needed_objects(const char *path, char **out, size_t cap)
{
	char cmd[PATH_MAX + 64], line[PATH_MAX + 64];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "LD_TRACE_LOADED_OBJECTS=1 LD_PRELOAD= '%s' 2>/dev/null", path);
	if (strchr(path, '\''))
		return 0;
	p = popen(cmd, "re");
	if (!p)
		return 0;
	while (n < cap && fgets(line, sizeof(line), p)) {
		char *arrow = strstr(line, "=> "), *lib = arrow ? arrow + 3 : line;
		char *end;

		while (*lib == ' ' || *lib == '\t')
			lib++;
		if (*lib != '/')
			continue;
		end = strpbrk(lib, " \t(\n");
		if (end)
			*end = '\0';
		out[n] = strdup(lib);
		if (out[n])
			n++;
	}
	pclose(p);
	return n;
}

/* A "#!" script's interpreter (/usr/bin/env NAME: NAME as found in the
 * PATH) in buf, or NULL when path is no script. */
static const char *interpreter_of(const char *path, char *const envp[], char *buf, size_t cap)
{
	char line[PATH_MAX + 16], *w, *arg;
	FILE *f = fopen(path, "re");
	int got;

	if (!f)
		return NULL;
	got = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!got || strncmp(line, "#!", 2) != 0)
		return NULL;
	w = line + 2 + strspn(line + 2, " \t");
	w[strcspn(w, " \t\r\n")] = '\0';
	arg = w + strlen(w) + 1;
	if (!*w)
		return NULL;
	if (strcmp(strrchr(w, '/') ? strrchr(w, '/') + 1 : w, "env") == 0 && arg < line + sizeof(line)) {
		arg += strspn(arg, " \t");
		arg[strcspn(arg, " \t\r\n")] = '\0';
		if (*arg && *arg != '-')
			return find_program(arg, envp, buf, cap);
	}
	snprintf(buf, cap, "%s", w);
	return buf;
}

int mockshim_session_check(const struct mockshim_session *s, const char *program,
			   char *const envp[], FILE *out)
{
	extern char **environ;
	char warn[2048], pathbuf[PATH_MAX], interp[PATH_MAX];
	const char *script, *p = find_program(program, envp ? envp : environ, pathbuf, sizeof(pathbuf));
	unsigned char used[MS_FN_COUNT] = { 0 }, hit[MS_FN_COUNT] = { 0 };
	const char *as[MS_FN_COUNT] = { 0 };
	struct import_scan sc = { s, hit, as };
	char *libs[128];
	size_t nlibs;
	const char *kind;
	int problems = ms_check_program(program, envp, ms_session_check_flags(s), warn, sizeof(warn));

	fputs(warn, out);
	if (!p) {
		fprintf(out, "check: %s: not found\n", program);
		return problems + 1;
	}
	script = interpreter_of(p, envp ? envp : environ, interp, sizeof(interp));
	if (script) {
		/* what loads is the interpreter: its imports are checked, and
		 * its own calls take the statements' values too */
		fprintf(out, "check: %s is a script run by %s: its imports are checked; its own calls "
			     "take the statements' values too (in= scopes a statement to a program)\n",
			p, script);
		p = script;
	}
	for (uint32_t i = 0; i < ms_spec_nstmts(&s->spec); i++)
		if (ms_spec_stmt(&s->spec, i)->fn < MS_FN_COUNT)
			used[ms_spec_stmt(&s->spec, i)->fn] = 1;
	kind = has_interp(p) == 0 ? "static binary" : is_go(p) ? "a Go program: its runtime makes "
								 "system calls itself" : NULL;
	if (kind) {
		/* a dynamic Go program (cgo) imports what its C code calls:
		 * those are said below; the rest reach the kernel from Go's
		 * runtime, never through libc, one line each */
		int go_dyn = has_interp(p) != 0;

		if (go_dyn)
			each_import(p, note_import, &sc);
		/* nothing reaches a preload: the syscall tier does */
		for (unsigned id = 0; id < MS_FN_COUNT; id++) {
			const char *name = ms_catalog_get(id)->name, *sys = NULL;
			char sysname[64];

			if (!used[id] || hit[id])
				continue;
			for (size_t i = 0; i < sizeof(instead) / sizeof(instead[0]); i++)
				if (strcmp(instead[i].fn, name) == 0)
					sys = instead[i].sys;
			if (!sys && ms_syscall_find(name, strlen(name))) {
				snprintf(sysname, sizeof(sysname), "SYS_%s", name);
				sys = sysname;
			}
			if (sys)
				fprintf(out, "check: %s() is not imported (%s); %s reaches it\n", name,
					kind, sys);
			else
				fprintf(out, "check: warning: %s() is not imported (%s), and no SYS_ "
					     "name reaches it\n",
					name, kind);
			problems++;
			used[id] = 0; /* said: not again below */
		}
		if (!go_dyn)
			return problems;
		memset(hit, 0, sizeof(hit));
		memset(as, 0, sizeof(as));
	}
	if (each_import(p, note_import, &sc) == 0) {
		for (unsigned id = 0; id < MS_FN_COUNT; id++) {
			if (!used[id])
				continue;
			fprintf(out, "check: %s() %s imported by %s%s%s%s\n", ms_catalog_get(id)->name,
				hit[id] ? "is" : "is not", p, as[id] ? " (as " : "", as[id] ? as[id] : "",
				as[id] ? ")" : "");
			if (hit[id])
				suggest(out, id, &sc, 1);
		}
	}
	/* only a dynamic program: a static one would run under LD_TRACE_* */
	nlibs = has_interp(p) == 1 ? needed_objects(p, libs, sizeof(libs) / sizeof(libs[0])) : 0;
	for (unsigned id = 0; id < MS_FN_COUNT; id++) {
		unsigned char by_lib[MS_FN_COUNT];

		if (!used[id] || hit[id])
			continue;
		/* not the program's own import: does a library of it call it? */
		for (size_t k = 0; k < nlibs; k++) {
			struct import_scan lsc = { s, by_lib, NULL };

			memset(by_lib, 0, sizeof(by_lib));
			if (each_import(libs[k], note_import, &lsc) == 0 && by_lib[id]) {
				fprintf(out, "check: %s() is imported by %s (use from=\"%s\" to scope a rule to it)\n",
					ms_catalog_get(id)->name, libs[k],
					strrchr(libs[k], '/') ? strrchr(libs[k], '/') + 1 : libs[k]);
				hit[id] = 2;
			}
		}
		if (!hit[id]) {
			fprintf(out, "check: warning: nothing in %s imports %s(): its statements can "
				     "only act in programs it starts\n",
				p, ms_catalog_get(id)->name);
			suggest(out, id, &sc, 0);
			problems++;
		}
	}
	for (size_t k = 0; k < nlibs; k++)
		free(libs[k]);
	return problems;
}
