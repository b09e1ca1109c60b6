/* SPDX-License-Identifier: MIT */
/*
 * Handler modules: the driver reads a module's "mockshim_mocks" section
 * (written by MOCKSHIM_MOCK, include/mockshim/handler.h) to learn its
 * functions and parameter names, without loading it, and preloads it
 * after libmockshim.so.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog.h"
#include "session.h"
#include "declare.h"

#define MOCK_MAGIC "mockshim1"

static int fail(struct mockshim_session *s, int err, const char *path, const char *why)
{
	snprintf(s->error, sizeof(s->error), "%s: %s\n", path, why);
	return err;
}

/* ---- reading ELF files, never loading them ---- */

static int read_at(FILE *f, uint64_t off, void *buf, size_t n)
{
	return fseeko(f, (off_t)off, SEEK_SET) == 0 && fread(buf, 1, n, f) == n ? 0 : -1;
}

/* The header of a 64-bit ELF file, or -1. */
static int read_ehdr(FILE *f, Elf64_Ehdr *eh)
{
	return read_at(f, 0, eh, sizeof(*eh)) == 0 && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
		       eh->e_ident[EI_CLASS] == ELFCLASS64
		       ? 0
		       : -1;
}

static int read_shdr(FILE *f, const Elf64_Ehdr *eh, unsigned i, Elf64_Shdr *sh)
{
	return read_at(f, eh->e_shoff + (uint64_t)i * sizeof(*sh), sh, sizeof(*sh));
}

/* size bytes at off, malloc'd and NUL-terminated; NULL with errno ENOMEM,
 * or ENOEXEC when size passes max or the file is short. */
static char *read_blob(FILE *f, uint64_t off, uint64_t size, uint64_t max)
{
	char *b;

	if (size > max) {
		errno = ENOEXEC;
		return NULL;
	}
	b = malloc(size + 1);
	if (b && read_at(f, off, b, size) != 0) {
		free(b);
		errno = ENOEXEC;
		return NULL;
	}
	if (b)
		b[size] = '\0';
	return b;
}

/* The bytes of section name of the ELF file f, in malloc'd *out. */
static int read_section(FILE *f, const char *name, char **out, size_t *len)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strsh;
	char *names;
	int r = -ENOENT;

	if (read_ehdr(f, &eh) != 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    eh.e_shstrndx >= eh.e_shnum || read_shdr(f, &eh, eh.e_shstrndx, &strsh) != 0)
		return -ENOEXEC;
	names = read_blob(f, strsh.sh_offset, strsh.sh_size, 1u << 24);
	if (!names)
		return -errno;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (read_shdr(f, &eh, i, &sh) != 0) {
			r = -ENOEXEC;
			break;
		}
		if (sh.sh_name >= strsh.sh_size || strcmp(names + sh.sh_name, name) != 0)
			continue;
		*out = read_blob(f, sh.sh_offset, sh.sh_size, 1u << 24);
		r = *out ? 0 : -errno;
		*len = sh.sh_size;
		break;
	}
	free(names);
	return r;
}

int mockshim_session_add_module(struct mockshim_session *s, const char *path)
{
	char *abs = realpath(path, NULL), *data = NULL, **mods;
	size_t len = 0, nfns = 0;
	FILE *f;
	int r;

	s->error[0] = '\0';
	if (!abs)
		return fail(s, -errno, path, strerror(errno));
	if (strpbrk(abs, ": ")) {
		r = fail(s, -EINVAL, abs, "cannot go in LD_PRELOAD (it has ':' or ' ')");
		free(abs);
		return r;
	}
	for (size_t i = 0; i < s->nmodules; i++) {
		if (strcmp(s->modules[i], abs) == 0) {
			free(abs);
			return 0;
		}
	}
	f = fopen(abs, "re");
	if (!f) {
		r = fail(s, -errno, abs, strerror(errno));
		free(abs);
		return r;
	}
	r = read_section(f, "mockshim_mocks", &data, &len);
	fclose(f);
	if (r == -ENOEXEC) {
		r = fail(s, -EINVAL, abs, "not a 64-bit ELF shared object");
		goto out;
	}
	if (r == -ENOENT) {
		r = fail(s, -EINVAL, abs, "not a handler module (no MOCKSHIM_MOCK in it)");
		goto out;
	}
	if (r < 0)
		goto out;
	/* records: "mockshim1\0RET\0NAME\0PARAMS\0", maybe padded with NULs */
	for (size_t off = 0; off < len;) {
		const char *ret, *name, *params;

		if (data[off] == '\0') {
			off++;
			continue;
		}
		if (strcmp(data + off, MOCK_MAGIC) != 0) {
			r = fail(s, -EINVAL, abs, "a mockshim_mocks section of another version");
			goto out;
		}
		off += sizeof(MOCK_MAGIC);
		ret = data + off;
		off += strlen(ret) + 1;
		name = off < len ? data + off : "";
		off += strlen(name) + 1;
		params = off < len ? data + off : "";
		off += strlen(params) + 1;
		if (off > len + 1) {
			r = fail(s, -EINVAL, abs, "a truncated mockshim_mocks section");
			goto out;
		}
		r = ms_spec_declare(&s->spec, ret, name, params);
		if (r == -EEXIST) {
			snprintf(s->error, sizeof(s->error),
				 "%s: %s is a catalog function or comes from another module already\n",
				 abs, name);
			goto out;
		}
		if (r == -EINVAL) {
			snprintf(s->error, sizeof(s->error),
				 "%s: cannot read the declaration %s %s(%s)\n", abs, ret, name, params);
			goto out;
		}
		if (r < 0)
			goto out;
		nfns++;
	}
	if (!nfns) {
		r = fail(s, -EINVAL, abs, "not a handler module (no MOCKSHIM_MOCK in it)");
		goto out;
	}
	mods = realloc(s->modules, (s->nmodules + 1) * sizeof(*mods));
	if (!mods) {
		r = -ENOMEM;
		goto out;
	}
	s->modules = mods;
	s->modules[s->nmodules++] = abs;
	abs = NULL;
	r = 0;
out:
	free(data);
	free(abs);
	return r;
}

/* module "path" in statements: relative to the file that names it. */
int ms_session_module_stmt(void *ctx, const char *src, const char *path, char *msg, size_t cap)
{
	struct mockshim_session *s = ctx;
	char full[PATH_MAX * 2];
	const char *slash = strrchr(src, '/');
	int r;

	if (path[0] != '/' && slash && access(src, R_OK) == 0)
		snprintf(full, sizeof(full), "%.*s/%s", (int)(slash - src), src, path);
	else
		snprintf(full, sizeof(full), "%s", path);
	r = mockshim_session_add_module(s, full);
	if (r < 0) {
		const char *e = s->error;
		const char *colon = strstr(e, ": ");

		snprintf(msg, cap, "%s", colon ? colon + 2 : strerror(-r));
		msg[strcspn(msg, "\n")] = '\0';
	}
	return r < 0 ? -1 : 0;
}

/* ---- what the loader will do with a program ---- */

/* argv[0] as execvp finds it, in buf; NULL when not found. */
static const char *find_program(const char *name, char *const envp[], char *buf, size_t cap)
{
	const char *path = NULL;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? name : NULL;
	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			path = *e + 5;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, cap, "%.*s%s%s", (int)n, path, n ? "/" : "", name);
		if (access(buf, X_OK) == 0)
			return buf;
		path += n + (path[n] == ':');
	}
	return NULL;
}

/* 1: an ELF program with an interpreter (the loader), 0: a static ELF,
 * -1: not ELF (a script) or unreadable. */
static int has_interp(const char *path)
{
	FILE *f = fopen(path, "re");
	Elf64_Ehdr eh;
	int r = -1;

	if (!f)
		return -1;
	if (read_ehdr(f, &eh) == 0 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
		r = 0;
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;

			if (read_at(f, eh.e_phoff + (uint64_t)i * sizeof(ph), &ph, sizeof(ph)) != 0)
				break;
			if (ph.p_type == PT_INTERP)
				r = 1;
		}
	}
	fclose(f);
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
	Elf64_Ehdr eh;
	int r = 0;

	if (!f)
		return 0;
	if (read_ehdr(f, &eh) == 0 && eh.e_shentsize == sizeof(Elf64_Shdr) && eh.e_shstrndx < eh.e_shnum) {
		Elf64_Shdr strsh;

		if (read_shdr(f, &eh, eh.e_shstrndx, &strsh) == 0) {
			char *names = read_blob(f, strsh.sh_offset, strsh.sh_size, 1u << 20);

			for (unsigned i = 0; names && !r && i < eh.e_shnum; i++) {
				Elf64_Shdr sh;

				if (read_shdr(f, &eh, i, &sh) == 0 && sh.sh_name < strsh.sh_size &&
				    (strcmp(names + sh.sh_name, ".go.buildinfo") == 0 ||
				     strcmp(names + sh.sh_name, ".note.go.buildid") == 0))
					r = 1;
			}
			free(names);
		}
	}
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

int ms_check_program(const char *program, char *const envp[], int syscalls, char *buf, size_t cap)
{
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
	if (read_ehdr(f, &eh) != 0 || eh.e_shentsize != sizeof(Elf64_Shdr))
		goto out;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh, strsh;
		char *strs;

		if (read_shdr(f, &eh, i, &sh) != 0)
			goto out;
		if (sh.sh_type != SHT_DYNSYM || sh.sh_entsize != sizeof(Elf64_Sym) ||
		    sh.sh_link >= eh.e_shnum)
			continue;
		if (read_shdr(f, &eh, sh.sh_link, &strsh) != 0)
			goto out;
		strs = read_blob(f, strsh.sh_offset, strsh.sh_size, 1u << 26);
		if (!strs)
			goto out;
		for (uint64_t k = 1; k < sh.sh_size / sizeof(Elf64_Sym); k++) {
			Elf64_Sym sym;

			if (read_at(f, sh.sh_offset + k * sizeof(sym), &sym, sizeof(sym)) != 0)
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

int mockshim_session_check(const struct mockshim_session *s, const char *program,
			   char *const envp[], FILE *out)
{
	extern char **environ;
	char warn[2048], pathbuf[PATH_MAX];
	const char *p = find_program(program, envp ? envp : environ, pathbuf, sizeof(pathbuf));
	unsigned char used[MS_FN_COUNT] = { 0 }, hit[MS_FN_COUNT] = { 0 };
	const char *as[MS_FN_COUNT] = { 0 };
	struct import_scan sc = { s, hit, as };
	char *libs[128];
	size_t nlibs;
	const char *kind;
	int problems = ms_check_program(program, envp, ms_session_has_syscalls(s), warn, sizeof(warn));

	fputs(warn, out);
	if (!p) {
		fprintf(out, "check: %s: not found\n", program);
		return problems + 1;
	}
	for (uint32_t i = 0; i < ms_spec_nstmts(&s->spec); i++)
		if (ms_spec_stmt(&s->spec, i)->fn < MS_FN_COUNT)
			used[ms_spec_stmt(&s->spec, i)->fn] = 1;
	kind = has_interp(p) == 0 ? "static binary" : is_go(p) ? "a Go program: its runtime makes "
								 "system calls itself" : NULL;
	if (kind) {
		/* nothing reaches a preload: the syscall tier does */
		for (unsigned id = 0; id < MS_FN_COUNT; id++) {
			const char *name = ms_catalog_get(id)->name, *sys = NULL;
			char sysname[64];

			if (!used[id])
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
		}
		if (has_interp(p) == 0)
			return problems;
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
