/* SPDX-License-Identifier: MIT */
/*
 * Which file a site's object name means, for one run: the program as
 * exec finds it and its libraries as the loader finds them in the common
 * case (DT_RPATH when there is no DT_RUNPATH, LD_LIBRARY_PATH,
 * DT_RUNPATH, /etc/ld.so.conf's directories, then the multiarch and
 * plain system directories).  ld.so.cache is not read: its directories
 * are ld.so.conf's.
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "objmap.h"

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__i386__)
#define MULTIARCH "i386-linux-gnu"
#elif defined(__arm__)
#define MULTIARCH "arm-linux-gnueabihf"
#elif defined(__riscv)
#define MULTIARCH "riscv64-linux-gnu"
#else
#define MULTIARCH ""
#endif

#define MAX_OBJS 512

int ms_objmap_is_system(const char *base)
{
	static const char *const sys[] = { "libc.so*", "libm.so*", "ld-linux*", "ld64.so*", "ld-musl*",
					   "libgcc_s.so*", "libstdc++.so*", "libpthread.so*", "libdl.so*",
					   "librt.so*", "libmvec.so*", "linux-vdso.so*", "libc.musl*" };

	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (fnmatch(sys[i], base, 0) == 0)
			return 1;
	return 0;
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static struct ms_obj *lookup(struct ms_objmap *m, const char *base)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->obj[i].base, base) == 0)
			return &m->obj[i];
	return NULL;
}

static struct ms_obj *add(struct ms_objmap *m, const char *base, const char *path)
{
	struct ms_obj *o = lookup(m, base);

	if (o)
		return o;
	if (m->n == MAX_OBJS)
		return NULL;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct ms_obj *p = realloc(m->obj, cap * sizeof(*p));

		if (!p)
			return NULL;
		m->obj = p;
		m->cap = cap;
	}
	o = &m->obj[m->n];
	o->base = strdup(base);
	o->path = strdup(path);
	o->system = ms_objmap_is_system(base);
	o->sym = NULL;
	if (!o->base || !o->path) {
		free(o->base);
		free(o->path);
		return NULL;
	}
	m->n++;
	return o;
}

/* What the loader needs of an object: its class and machine, DT_NEEDED,
 * DT_RPATH and DT_RUNPATH */
struct dyninfo {
	int cls, machine;
	char *needed[64];
	size_t nneeded;
	char *rpath, *runpath;
};

static void dyninfo_free(struct dyninfo *d)
{
	for (size_t i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
	free(d->rpath);
	free(d->runpath);
	memset(d, 0, sizeof(*d));
}

static int read_dyn(const char *path, struct dyninfo *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	Elf *e;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;

	memset(d, 0, sizeof(*d));
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		goto out;
	d->cls = gelf_getclass(e);
	d->machine = eh.e_machine;
	rc = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(data, (int)i, &dyn))
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH)
				continue;
			s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			if (!s)
				continue;
			if (dyn.d_tag == DT_NEEDED && d->nneeded < sizeof(d->needed) / sizeof(d->needed[0]))
				d->needed[d->nneeded++] = strdup(s);
			else if (dyn.d_tag == DT_RPATH && !d->rpath)
				d->rpath = strdup(s);
			else if (dyn.d_tag == DT_RUNPATH && !d->runpath)
				d->runpath = strdup(s);
		}
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

/* an ELF file of the class and machine of want's */
static int fits(const char *path, const struct dyninfo *want)
{
	struct dyninfo d;
	int ok;

	if (access(path, R_OK) != 0 || read_dyn(path, &d) < 0)
		return 0;
	ok = d.cls == want->cls && d.machine == want->machine;
	dyninfo_free(&d);
	return ok;
}

/* name in the directories of list (':'-separated, $ORIGIN expanded to
 * origin): the first that fits, into out */
static int search_list(const char *list, const char *origin, const char *name, const struct dyninfo *want,
		       char *out, size_t outlen)
{
	const char *p = list;

	while (p && *p) {
		size_t len = strcspn(p, ":;");
		char dir[PATH_MAX];
		const char *o;

		if (len && len < sizeof(dir)) {
			memcpy(dir, p, len);
			dir[len] = '\0';
			if ((o = strstr(dir, "$ORIGIN")) || (o = strstr(dir, "${ORIGIN}"))) {
				char rest[PATH_MAX];
				size_t skip = o[1] == '{' ? 9 : 7;

				snprintf(rest, sizeof(rest), "%.*s%s%s", (int)(o - dir), dir, origin, o + skip);
				snprintf(dir, sizeof(dir), "%s", rest);
			}
			if ((size_t)snprintf(out, outlen, "%s/%s", dir, name) < outlen && fits(out, want))
				return 0;
		}
		p += len;
		if (*p)
			p++;
	}
	return -1;
}

/* /etc/ld.so.conf's directories, its includes followed, ':'-joined */
static void conf_dirs(const char *file, char *acc, size_t acclen, int depth)
{
	FILE *f = depth < 4 ? fopen(file, "re") : NULL;
	char line[PATH_MAX];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *s = line + strspn(line, " \t"), *e;

		s[strcspn(s, "#\n")] = '\0';
		e = s + strlen(s);
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (!*s)
			continue;
		if (strncmp(s, "include", 7) == 0 && (s[7] == ' ' || s[7] == '\t')) {
			glob_t g;
			char pat[PATH_MAX];

			s += 8;
			s += strspn(s, " \t");
			if (*s == '/')
				snprintf(pat, sizeof(pat), "%s", s);
			else
				snprintf(pat, sizeof(pat), "/etc/%s", s);
			if (glob(pat, 0, NULL, &g) == 0) {
				for (size_t i = 0; i < g.gl_pathc; i++)
					conf_dirs(g.gl_pathv[i], acc, acclen, depth + 1);
				globfree(&g);
			}
			continue;
		}
		if (*s == '/' && strlen(acc) + strlen(s) + 2 < acclen) {
			if (*acc)
				strcat(acc, ":");
			strcat(acc, s);
		}
	}
	fclose(f);
}

static const char *system_dirs(void)
{
	static char dirs[8192];

	if (!*dirs) {
		conf_dirs("/etc/ld.so.conf", dirs, sizeof(dirs) - 256, 0);
		strcat(dirs, *dirs ? ":" : "");
		strcat(dirs, *MULTIARCH ? "/lib/" MULTIARCH ":/usr/lib/" MULTIARCH ":" : "");
		strcat(dirs, "/lib:/usr/lib:/lib64:/usr/lib64");
	}
	return dirs;
}

/* a library name as the loader finds it for an object at path */
static int find_lib(const char *name, const char *path, const struct dyninfo *d, char *out, size_t outlen)
{
	char origin[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (strchr(name, '/')) {
		snprintf(out, outlen, "%s", name);
		return fits(out, d) ? 0 : -1;
	}
	snprintf(origin, sizeof(origin), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (!d->runpath && d->rpath && search_list(d->rpath, origin, name, d, out, outlen) == 0)
		return 0;
	if (search_list(getenv("LD_LIBRARY_PATH"), origin, name, d, out, outlen) == 0)
		return 0;
	if (d->runpath && search_list(d->runpath, origin, name, d, out, outlen) == 0)
		return 0;
	return search_list(system_dirs(), origin, name, d, out, outlen);
}

/* the program as execvp finds it */
static int find_program(const char *program, char *out, size_t outlen)
{
	const char *path = getenv("PATH");
	struct stat st;

	if (strchr(program, '/')) {
		snprintf(out, outlen, "%s", program);
		return access(out, R_OK) == 0 ? 0 : -1;
	}
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		if ((size_t)snprintf(out, outlen, "%.*s/%s", (int)len, len ? path : ".", program) < outlen &&
		    stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return 0;
		path += len;
		if (*path)
			path++;
	}
	return -1;
}

int ms_objmap_add_program(struct ms_objmap *m, const char *program, char *err, size_t errlen)
{
	char path[PATH_MAX], real[PATH_MAX];
	/* a breadth-first walk of the needed libraries */
	char *queue[MAX_OBJS];
	size_t head = 0, tail = 0;

	if (find_program(program, path, sizeof(path)) < 0) {
		snprintf(err, errlen, "%s: not found%s", program, strchr(program, '/') ? "" : " in PATH");
		return -1;
	}
	if (!add(m, base_of(path), path)) {
		snprintf(err, errlen, "%s: out of memory", program);
		return -1;
	}
	/* the name the kernel gives it, when a link led there */
	if (realpath(path, real) && strcmp(base_of(real), base_of(path)) != 0)
		add(m, base_of(real), real);
	queue[tail++] = strdup(path);
	while (head < tail) {
		char *cur = queue[head++];
		struct dyninfo d;

		if (cur && read_dyn(cur, &d) == 0) {
			for (size_t i = 0; i < d.nneeded; i++) {
				char lib[PATH_MAX];

				if (lookup(m, base_of(d.needed[i])) ||
				    find_lib(d.needed[i], cur, &d, lib, sizeof(lib)) < 0)
					continue;
				if (add(m, base_of(d.needed[i]), lib) && tail < MAX_OBJS)
					queue[tail++] = strdup(lib);
			}
			dyninfo_free(&d);
		}
		free(cur);
	}
	return 0;
}

struct ms_obj *ms_objmap_find(struct ms_objmap *m, const char *base)
{
	struct ms_obj *o = lookup(m, base);
	struct dyninfo self = { 0 };
	char path[PATH_MAX];

	if (o || strchr(base, '/'))
		return o;
	/* not in the map: the standard directories, for our class and machine */
	if (read_dyn("/proc/self/exe", &self) < 0)
		return NULL;
	if (search_list(system_dirs(), "/", base, &self, path, sizeof(path)) == 0)
		o = add(m, base, path);
	dyninfo_free(&self);
	return o;
}
