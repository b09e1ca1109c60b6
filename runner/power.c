/* SPDX-License-Identifier: MIT */
/*
 * power_loss(): the cut and the rollback (DESIGN.md section 7.3).
 *
 * Before a run whose spec has a power_loss statement, a power directory
 * is made (in $TMPDIR) with an empty journal, and its path goes in the
 * channel; the statements' paths= become absolute.  While the tree
 * runs, watch() asks ms_power_reached() whether a power_loss took its
 * turn, and then kills the tree.  Once every process is gone the
 * journal is replayed backwards (ms_power_rollback): every change not
 * made durable is undone, as mockrun's user, on a tree the program may
 * have made hostile: every path is checked against paths=, every
 * directory is opened from "/" one name at a time with O_NOFOLLOW, and
 * a file's data is written only to the inode the journal names.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "channel/channel.h"
#include "power/power.h"
#include "session.h"

static int power_rule(const struct ms_rule *r)
{
	return r->kind == MS_R_REAL && (r->flags & MS_RF_POWER);
}

/* An absolute path's "." and ".." and "//" taken away, in place: the
 * shim compares paths= with the paths the kernel gives (no ".."). */
static void lexical(char *p)
{
	char *out = p + 1, *in = p + 1;

	while (*in) {
		char *e = strchr(in, '/');
		size_t n = e ? (size_t)(e - in) : strlen(in);

		if (n == 0 || (n == 1 && in[0] == '.')) {
			/* nothing */
		} else if (n == 2 && in[0] == '.' && in[1] == '.') {
			if (out > p + 1) {
				out--;
				while (out > p + 1 && out[-1] != '/')
					out--;
			}
		} else {
			memmove(out, in, n);
			out += n;
			/* (the last component has no '/' after it: its
			 * string's end is not to be written over) */
			if (e)
				*out++ = '/';
		}
		in += n + (e != NULL);
	}
	if (out > p + 1 && out[-1] == '/')
		out--;
	*out = '\0';
}

int ms_power_prepare(struct mockshim_session *s)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = NULL, cwd[PATH_MAX], path[PATH_MAX + 16];
	int any = 0, fd;

	for (uint32_t i = 0; i < s->spec.nrules; i++)
		any |= power_rule(&s->spec.rules[i]);
	if (!any)
		return 0;
	/* paths= relative to the program's working directory (mockrun's,
	 * or a test's), once */
	if (!s->power_abs) {
		if (s->cwd && s->cwd[0] == '/')
			snprintf(cwd, sizeof(cwd), "%s", s->cwd);
		else if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		else if (s->cwd)
			snprintf(cwd + strlen(cwd), sizeof(cwd) - strlen(cwd), "/%s", s->cwd);
		for (uint32_t i = 0; i < s->spec.nrules; i++) {
			struct ms_rule *r = &s->spec.rules[i];
			const char *g;
			char *abs;

			if (!power_rule(r))
				continue;
			g = s->spec.pool + r->value_str;
			if (g[0] == '/' ? !(abs = strdup(g))
					: asprintf(&abs, "%s/%s", strcmp(cwd, "/") ? cwd : "", g) < 0)
				return -ENOMEM;
			lexical(abs);
			r->value_str = ms_spec_str(&s->spec, abs, strlen(abs));
			free(abs);
			if (!r->value_str)
				return -ENOMEM;
		}
		s->power_abs = 1;
	}
	if (asprintf(&dir, "%s/mockrun-power-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		return -ENOMEM;
	if (!mkdtemp(dir)) {
		int e = errno;

		snprintf(s->error, sizeof(s->error), "power_loss: cannot make %s: %s\n", dir,
			 strerror(e));
		free(dir);
		return -e;
	}
	snprintf(path, sizeof(path), "%s/" MS_PW_JOURNAL, dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || !(s->spec.power_dir = ms_spec_str(&s->spec, dir, strlen(dir)))) {
		if (fd >= 0)
			close(fd);
		unlink(path);
		rmdir(dir);
		free(dir);
		return -ENOMEM;
	}
	close(fd);
	s->power_dir = dir;
	return 0;
}

static const struct ms_rule *own_rules(const struct mockshim_session *s)
{
	return (const struct ms_rule *)((const char *)s->own + s->own->rules_off);
}

static const char *own_pool(const struct mockshim_session *s)
{
	return (const char *)s->own + s->own->pool_off;
}

int ms_power_reached(const struct mockshim_session *s)
{
	const struct ms_rule_state *rst;

	if (!s->power_dir || !s->chan.state)
		return 0;
	rst = (const struct ms_rule_state *)((const char *)s->chan.state + s->own->st_rules_off);
	for (uint32_t i = 0; i < s->own->nrules; i++)
		if (power_rule(&own_rules(s)[i]) && own_rules(s)[i].stmt.count > 0 &&
		    __atomic_load_n(&rst[i].consumed, __ATOMIC_ACQUIRE) >= (uint32_t)own_rules(s)[i].stmt.count)
			return 1;
	return 0;
}

/* ---- the journal ---- */

struct rec {
	struct ms_pw_rec h;
	char *path, *path2;
	const unsigned char *data;
	int durable, keep;	/* keep: survives the cut (torn, reorder) */
	int64_t cut;		/* torn: the bytes from here are lost */
	size_t head;		/* the op's first record: itself, or for a
				 * continuation the last first record of its
				 * process and file before it (other processes'
				 * and threads' records fall in between) */
};

struct jr {
	struct rec *r;
	size_t n;
	unsigned char *buf;
	int pfd;		/* the power directory */
	struct mockshim_session *s;
	/* what was rolled back */
	unsigned files, names_made, names_back, renames, refused, lost;
	uint64_t bytes;
	uint64_t *inos;		/* files counted */
	size_t ninos;
	/* directories made again (rmdir undone): their inode then, now */
	struct { uint64_t dev, ino, ndev, nino; } *moved;
	size_t nmoved;
	int32_t cut_pid;
	size_t damaged;		/* the journal's bytes believed, when short of its size */
};

static int allowed(const struct jr *j, const char *path)
{
	if (!path || path[0] != '/' || strstr(path, "/../") || strstr(path, "/./"))
		return 0;
	for (uint32_t i = 0; i < j->s->own->nrules; i++) {
		const struct ms_rule *r = &own_rules(j->s)[i];

		if (power_rule(r) && ms_glob_match(own_pool(j->s) + r->value_str, path))
			return 1;
	}
	return 0;
}

static char *dupn(const unsigned char *p, uint32_t n)
{
	char *s = malloc((size_t)n + 1);

	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

static int load(struct jr *j)
{
	char path[PATH_MAX];
	struct stat st;
	size_t off = 0, cap = 0;
	int fd;

	/* the program may have put anything there: a FIFO (an open that
	 * waits for a writer for ever without O_NONBLOCK), a directory */
	snprintf(path, sizeof(path), "%s/" MS_PW_JOURNAL, j->s->power_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	j->buf = malloc((size_t)st.st_size + 1);
	while (j->buf && off < (size_t)st.st_size) {
		ssize_t k = read(fd, j->buf + off, (size_t)st.st_size - off);

		if (k <= 0)
			break;
		off += (size_t)k;
	}
	close(fd);
	if (!j->buf || off != (size_t)st.st_size)
		return -1;
	off = 0;
	while (off + sizeof(struct ms_pw_rec) <= (size_t)st.st_size) {
		struct rec x = { 0 };
		uint64_t need;

		memcpy(&x.h, j->buf + off, sizeof(x.h));
		need = sizeof(x.h) + (uint64_t)x.h.path_len + x.h.path2_len + x.h.data_len;
		if (x.h.magic != MS_PW_MAGIC || need > (uint64_t)st.st_size - off ||
		    x.h.path_len >= MS_PW_PATH_MAX || x.h.path2_len >= MS_PW_PATH_MAX ||
		    x.h.data_len > MS_PW_DATA_MAX)
			break; /* a record torn or forged: the rest is not believed */
		x.path = dupn(j->buf + off + sizeof(x.h), x.h.path_len);
		x.path2 = dupn(j->buf + off + sizeof(x.h) + x.h.path_len, x.h.path2_len);
		x.data = j->buf + off + sizeof(x.h) + x.h.path_len + x.h.path2_len;
		x.cut = -1;
		x.head = j->n;
		if (x.h.flags & MS_PW_F_CONT)
			for (size_t k = j->n; k-- > 0 && j->n - k <= 4096;)
				if (!(j->r[k].h.flags & MS_PW_F_CONT) && j->r[k].h.pid == x.h.pid &&
				    j->r[k].h.dev == x.h.dev && j->r[k].h.ino == x.h.ino) {
					x.head = k;
					break;
				}
		if (x.h.kind == MS_PW_CUT && !j->cut_pid)
			j->cut_pid = x.h.pid;
		if (j->n == cap) {
			struct rec *nr = realloc(j->r, (cap = cap ? 2 * cap : 64) * sizeof(*nr));

			if (!nr)
				return -1;
			j->r = nr;
		}
		j->r[j->n++] = x;
		off += need;
	}
	if (off < (size_t)st.st_size)
		j->damaged = off ? off : 1;
	return 0;
}

/* The directory holding path, opened from "/" one name at a time, never
 * through a symbolic link; *name: the last component.  -1 if any step
 * is not a plain directory. */
static int open_parent(const char *path, const char **name)
{
	char buf[PATH_MAX];
	char *p, *slash;
	int fd;

	if (strlen(path) >= sizeof(buf) || path[0] != '/')
		return -1;
	strcpy(buf, path);
	slash = strrchr(buf, '/');
	*name = path + (slash - buf) + 1;
	if (!**name)
		return -1;
	*slash = '\0';
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (p = buf + 1; fd >= 0 && *p;) {
		char *e = strchr(p, '/');
		int nfd;

		if (e)
			*e = '\0';
		nfd = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = nfd;
		if (!e)
			break;
		p = e + 1;
	}
	return fd;
}

/* (dev, ino) of a file or directory the rollback made again in place of
 * a removed one (a copy, an rmdir undone): the new one's */
static void remapped(const struct jr *j, uint64_t *dev, uint64_t *ino)
{
	for (size_t k = j->nmoved; k-- > 0;)
		if (j->moved[k].dev == *dev && j->moved[k].ino == *ino) {
			*dev = j->moved[k].ndev;
			*ino = j->moved[k].nino;
			return;
		}
}

/* The file of (dev, ino), at path or beside it, open for writing. */
static int open_ino(struct jr *j, const struct rec *x, const char *path)
{
	const char *name;
	struct stat st;
	int d, fd;
	DIR *dir;
	struct dirent *de;
	uint64_t dev = x->h.dev, ino = x->h.ino;

	if (!allowed(j, path))
		return -1;
	remapped(j, &dev, &ino);
	d = open_parent(path, &name);
	if (d < 0)
		return -1;
	fd = openat(d, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == dev &&
	    st.st_ino == ino) {
		close(d);
		return fd;
	}
	if (fd >= 0)
		close(fd);
	/* renamed since: another name in the same directory */
	fd = -1;
	dir = fdopendir(dup(d));
	while (dir && (de = readdir(dir))) {
		char full[PATH_MAX];

		if (de->d_ino != ino || fstatat(d, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode) || st.st_dev != dev)
			continue;
		snprintf(full, sizeof(full), "%.*s/%s", (int)(name - path - 1), path, de->d_name);
		if (allowed(j, full))
			fd = openat(d, de->d_name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		break;
	}
	if (dir)
		closedir(dir);
	close(d);
	return fd;
}

/* the path a data record's file had: its op's first's */
static const char *rec_path(const struct jr *j, size_t i)
{
	return j->r[j->r[i].head].path;
}

static void count_file(struct jr *j, uint64_t ino)
{
	uint64_t *n;

	for (size_t k = 0; k < j->ninos; k++)
		if (j->inos[k] == ino)
			return;
	n = realloc(j->inos, (j->ninos + 1) * sizeof(*n));
	if (!n)
		return;
	j->inos = n;
	j->inos[j->ninos++] = ino;
	j->files++;
}

/* undo data record i (from byte x->cut on, when torn) */
static void undo_data(struct jr *j, size_t i)
{
	struct rec *x = &j->r[i];
	int64_t from = x->h.off, end;
	int fd = open_ino(j, x, rec_path(j, i));

	if (fd < 0) {
		j->refused++;
		return;
	}
	if (x->h.kind == MS_PW_TRUNC) {
		if (ftruncate(fd, x->h.size) == 0)
			count_file(j, x->h.ino);
		close(fd);
		return;
	}
	if (x->cut > from)
		from = x->cut;
	end = x->h.off + (int64_t)x->h.n;
	if (from < end) {
		int64_t have = x->h.off + (int64_t)x->h.data_len;	/* old bytes up to here */

		if (have > from && pwrite(fd, x->data + (from - x->h.off), (size_t)(have - from), from) < 0)
			j->refused++;
		/* the size before, or (torn) the end of the part that
		 * survives: never the start of a write past the end, which
		 * would keep the hole it made */
		int64_t size = x->cut > x->h.off && from > x->h.size ? from : x->h.size;

		if (end > x->h.size && ftruncate(fd, size) != 0)
			j->refused++;
		j->bytes += (uint64_t)(end - from);
		count_file(j, x->h.ino);
	}
	close(fd);
}

/* Whether the directory open at d is the one the journal names (dev,
 * ino), or the one made again in its place by the rollback: a directory
 * the program swapped in since (from outside paths=) is not. */
static int same_dir(const struct jr *j, int d, uint64_t dev, uint64_t ino)
{
	struct stat st;

	if (fstat(d, &st) != 0)
		return 0;
	remapped(j, &dev, &ino);
	return (uint64_t)st.st_dev == dev && (uint64_t)st.st_ino == ino;
}

static void remade(struct jr *j, uint64_t odev, uint64_t oino, int d, const char *name)
{
	struct stat st;
	void *m;

	if (fstatat(d, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !(m = realloc(j->moved, (j->nmoved + 1) * sizeof(*j->moved))))
		return;
	j->moved = m;
	j->moved[j->nmoved].dev = odev;
	j->moved[j->nmoved].ino = oino;
	j->moved[j->nmoved].ndev = (uint64_t)st.st_dev;
	j->moved[j->nmoved++].nino = (uint64_t)st.st_ino;
}

/* The kept file "k..." back at (d, name): linked, or where the power
 * directory is on another file system, made again from its copy (a
 * new inode, which the records before take for the old one).  0, -1. */
static int restore(struct jr *j, const char *kept, int d, const char *name, uint64_t odev,
		   uint64_t oino)
{
	struct stat st;
	char buf[65536];
	int src, out, ok = 1;
	ssize_t k;

	if (linkat(j->pfd, kept, d, name, 0) == 0)
		return 0;
	if (errno != EXDEV || fstatat(j->pfd, kept, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
	if (S_ISLNK(st.st_mode)) {
		k = readlinkat(j->pfd, kept, buf, sizeof(buf) - 1);
		if (k <= 0)
			return -1;
		buf[k] = '\0';
		if (symlinkat(buf, d, name) != 0)
			return -1;
		remade(j, odev, oino, d, name);
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return -1;
	src = openat(j->pfd, kept, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (src < 0)
		return -1;
	out = openat(d, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 07777);
	if (out < 0) {
		close(src);
		return -1;
	}
	while ((k = read(src, buf, sizeof(buf))) != 0) {
		if (k < 0 || write(out, buf, (size_t)k) != k) {
			ok = 0;
			break;
		}
	}
	close(src);
	close(out);
	if (!ok) {
		unlinkat(d, name, 0);
		return -1;
	}
	remade(j, odev, oino, d, name);
	return 0;
}

static void undo_name(struct jr *j, struct rec *x)
{
	const char *name, *name2;
	struct stat st;
	int d = -1, d2 = -1;

	if (!allowed(j, x->path) || (x->h.kind == MS_PW_RENAME && !allowed(j, x->path2))) {
		j->refused++;
		return;
	}
	d = open_parent(x->path, &name);
	if (d >= 0 && !same_dir(j, d, x->h.dev, x->h.ino)) {
		close(d);
		d = -1;
	}
	if (d < 0) {
		j->refused++;
		return;
	}
	switch (x->h.kind) {
	case MS_PW_CREATE:
		if (fstatat(d, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode) &&
		    unlinkat(d, name, 0) == 0)
			j->names_made++;
		break;
	case MS_PW_MKDIR:
		if (unlinkat(d, name, AT_REMOVEDIR) == 0)
			j->names_made++;
		break;
	case MS_PW_RMDIR:
		if (mkdirat(d, name, (mode_t)(x->h.size & 07777)) == 0) {
			j->names_back++;
			remade(j, x->h.dev2, x->h.ino2, d, name);
		}
		break;
	case MS_PW_REMOVE:
		if (!(x->h.flags & MS_PW_F_KEPT) || strchr(x->path2, '/') || x->path2[0] != 'k') {
			j->lost++;
			break;
		}
		if (fstatat(d, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
			unlinkat(d, name, 0);
		if (restore(j, x->path2, d, name, x->h.dev2, x->h.ino2) == 0)
			j->names_back++;
		else
			j->lost++;
		break;
	case MS_PW_RENAME:
		d2 = open_parent(x->path2, &name2);
		if (d2 < 0 || !same_dir(j, d2, x->h.dev2, x->h.ino2) || renameat(d2, name2, d, name) != 0) {
			j->refused++;
			break;
		}
		j->renames++;
		if (x->h.n == 1 && x->h.data_len && x->h.data_len < 64) {
			char kept[64];

			memcpy(kept, x->data, x->h.data_len);
			kept[x->h.data_len] = '\0';
			if (kept[0] == 'k' && !strchr(kept, '/') &&
			    restore(j, kept, d2, name2, (uint64_t)x->h.size, (uint64_t)x->h.off) == 0)
				j->names_back++;
		}
		break;
	default:
		break;
	}
	if (d2 >= 0)
		close(d2);
	close(d);
}

static uint64_t mix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static int is_data(const struct rec *x)
{
	return x->h.kind == MS_PW_WRITE || x->h.kind == MS_PW_TRUNC;
}

/* The inodes a SYNC named, an open-addressed set. */
struct synced {
	uint64_t (*k)[2];
	size_t cap, n;
};

static uint64_t ino_hash(uint64_t dev, uint64_t ino)
{
	uint64_t z = dev * 0x9e3779b97f4a7c15u ^ ino;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	return z ^ (z >> 31);
}

static int synced_has(const struct synced *s, uint64_t dev, uint64_t ino)
{
	if (!s->cap)
		return 0;
	for (size_t h = ino_hash(dev, ino) & (s->cap - 1);; h = (h + 1) & (s->cap - 1)) {
		if (!s->k[h][0] && !s->k[h][1])
			return 0;
		if (s->k[h][0] == dev + 1 && s->k[h][1] == ino)
			return 1;
	}
}

/* (dev + 1: the empty slot is 0, 0) */
static void synced_add(struct synced *s, uint64_t dev, uint64_t ino)
{
	if (synced_has(s, dev, ino))
		return;
	if (2 * (s->n + 1) > s->cap) {
		struct synced t = { calloc(s->cap ? 2 * s->cap : 64, sizeof(*t.k)), s->cap ? 2 * s->cap : 64, 0 };

		if (!t.k)
			return;
		for (size_t i = 0; i < s->cap; i++)
			if (s->k[i][0] || s->k[i][1])
				synced_add(&t, s->k[i][0] - 1, s->k[i][1]);
		free(s->k);
		*s = t;
	}
	for (size_t h = ino_hash(dev, ino) & (s->cap - 1);; h = (h + 1) & (s->cap - 1))
		if (!s->k[h][0] && !s->k[h][1]) {
			s->k[h][0] = dev + 1;
			s->k[h][1] = ino;
			s->n++;
			return;
		}
}

/* durable: a later SYNC of its inode (data) or directory (names), or
 * sync(); one pass from the end, O(records) */
static void mark_durable(struct jr *j)
{
	struct synced later = { 0 };
	int all = 0;

	for (size_t i = j->n; i-- > 0;) {
		struct rec *x = &j->r[i];

		if (x->h.kind == MS_PW_SYNC_ALL)
			all = 1;
		if (x->h.kind == MS_PW_SYNC) {
			synced_add(&later, x->h.dev, x->h.ino);
			continue;
		}
		x->durable = all || (synced_has(&later, x->h.dev, x->h.ino) &&
				     (x->h.kind != MS_PW_RENAME || synced_has(&later, x->h.dev2, x->h.ino2)));
	}
	free(later.k);
/* an op's continuations go with it */
	for (size_t i = 1; i < j->n; i++)
		j->r[i].durable = j->r[j->r[i].head].durable;
}

/* torn and reorder: which lost ops survive after all */
static void choose(struct jr *j, int mode, uint64_t seed)
{
	uint64_t rng = seed ^ 0x6d6f636b72756e70u;
	size_t nops = 0, k;

	for (size_t i = 0; i < j->n; i++)
		if (!j->r[i].durable && is_data(&j->r[i]) && !(j->r[i].h.flags & MS_PW_F_CONT))
			nops++;
	if (!nops)
		return;
	if (mode == MS_PW_REORDER) {
		for (size_t i = 0; i < j->n; i++) {
			struct rec *x = &j->r[i];

			if (x->durable || !is_data(x))
				continue;
			x->keep = x->head == i ? x->h.kind == MS_PW_WRITE && (mix(&rng) & 1)
					       : j->r[x->head].keep;
		}
		return;
	}
	/* torn: every change before the k-th lost data op survives, in
	 * order; the k-th, a write, is cut at a 512-byte boundary (a
	 * truncation is lost whole); nothing after it survives */
	k = (size_t)(mix(&rng) % (nops + 1));
	{
		size_t opi = 0;
		int phase = 0;	/* 0 before the torn op, 1 in it, 2 after */
		int64_t cut = -1;

		for (size_t i = 0; i < j->n; i++) {
			struct rec *x = &j->r[i];
			int first = is_data(x) && !(x->h.flags & MS_PW_F_CONT);

			if (x->durable)
				continue;
			if (x->head != i) {
				/* a continuation: as its op */
				x->keep = j->r[x->head].keep;
				x->cut = j->r[x->head].cut;
				continue;
			}
			if (first) {
				if (opi == k && x->h.kind == MS_PW_WRITE) {
					int64_t lo = (x->h.off + 511) / 512 * 512, end = x->h.off;

					for (size_t m = i; m < j->n; m++)
						if (j->r[m].head == i)
							end = j->r[m].h.off + (int64_t)j->r[m].h.n;
					cut = lo >= end ? x->h.off
						       : lo + (int64_t)(mix(&rng) % (uint64_t)((end - lo) / 512 + 1)) * 512;
					if (cut > end)
						cut = end;
					phase = 1;
				} else if (opi >= k) {
					phase = 2;
				}
				opi++;
			} else if (phase == 1) {
				phase = 2;
			}
			if (phase == 0) {
				x->keep = 1;
			} else if (phase == 1) {
				x->keep = 1;
				x->cut = cut;
			}
		}
	}
}

static void summary(struct jr *j, const char *where)
{
	char *t = NULL;

	if (asprintf(&t,
		     "the power went out%s: rolled back %u file%s (%llu byte%s), %u name%s made "
		     "removed, %u removed name%s back, %u rename%s undone%s%s%s",
		     where, j->files, j->files == 1 ? "" : "s", (unsigned long long)j->bytes,
		     j->bytes == 1 ? "" : "s", j->names_made, j->names_made == 1 ? "" : "s",
		     j->names_back, j->names_back == 1 ? "" : "s", j->renames, j->renames == 1 ? "" : "s",
		     j->refused ? "; refused (outside paths=, through a link or gone): " : "",
		     j->refused ? "" : "", j->lost ? "; removed files that could not be kept" : "") < 0)
		t = NULL;
	if (t && j->refused) {
		char *u = NULL;

		if (asprintf(&u, "%s%u change%s", t, j->refused, j->refused == 1 ? "" : "s") >= 0) {
			free(t);
			t = u;
		}
	}
	free(j->s->power_note);
	j->s->power_note = t;
}

/* Whether each paths= glob matches something now; a warning for one that
 * matched nothing and that the journal never named. */
static void check_globs(struct jr *j)
{
	for (uint32_t i = 0; i < j->s->own->nrules; i++) {
		const struct ms_rule *r = &own_rules(j->s)[i];
		const char *g;
		glob_t gl;
		int hit = 0;

		if (!power_rule(r))
			continue;
		g = own_pool(j->s) + r->value_str;
		for (size_t k = 0; k < j->n && !hit; k++)
			hit = j->r[k].path && ms_glob_match(g, j->r[k].path);
		if (!hit && glob(g, GLOB_NOSORT, NULL, &gl) == 0) {
			hit = 1;
			globfree(&gl);
		}
		if (!hit) {
			char *t = NULL;

			if (asprintf(&t, "%s%swarning: power_loss's paths=\"%s\" matches nothing",
				     j->s->power_note ? j->s->power_note : "",
				     j->s->power_note ? "; " : "", g) >= 0) {
				free(j->s->power_note);
				j->s->power_note = t;
			}
		}
	}
}

/* Where the power went out, from the live state's events (bounded: the
 * program could write them): " at FN() in EXE[PID] from OBJ+0xOFF (SYM)" */
static void cut_site(const struct mockshim_session *s, uint32_t ri, const struct rec *cut,
		     char *out, size_t cap)
{
	const struct ms_state_hdr *st = s->chan.state;
	const struct ms_event *ev;
	const struct ms_rule *r = &own_rules(s)[ri];
	const struct ms_fn_meta *m = r->stmt.fn < MS_FN_COUNT ? ms_catalog_get(r->stmt.fn) : NULL;
	const char *fname = m ? m->name : "a call";
	uint32_t n;
	char exe[MS_EV_TEXT] = "?";

	if (!m && r->stmt.fn - MS_FN_COUNT < s->own->ndyn)
		fname = own_pool(s) + ((const struct ms_chan_dyn *)((const char *)s->own + s->own->dyn_off))
					      [r->stmt.fn - MS_FN_COUNT].name;
	snprintf(out, cap, " at %s()", fname);
	if (!st)
		return;
	ev = (const struct ms_event *)((const char *)st + s->own->st_events_off);
	n = __atomic_load_n(&st->events_next, __ATOMIC_ACQUIRE);
	if (n > s->own->events_cap)
		n = s->own->events_cap;
	for (uint32_t i = 0; i < n; i++) {
		char caller[MS_EV_CALLER], sym[MS_EV_SYM];

		if (ev[i].state != 1 || ev[i].type != MS_EV_CONSUME || ev[i].rule != ri)
			continue;
		for (uint32_t k = 0; k < n; k++)
			if (ev[k].state == 1 && ev[k].type == MS_EV_ATTACH && ev[k].pid == ev[i].pid) {
				memcpy(exe, ev[k].text, sizeof(exe));
				exe[sizeof(exe) - 1] = '\0';
			}
		snprintf(caller, sizeof(caller), "%s", cut && cut->path ? cut->path : "");
		snprintf(sym, sizeof(sym), "%s", cut && cut->path2 ? cut->path2 : "");
		for (char *c = caller; *c; c++)
			if ((unsigned char)*c < 0x20)
				*c = '?';
		for (char *c = sym; *c; c++)
			if ((unsigned char)*c < 0x20)
				*c = '?';
		snprintf(out, cap, " at %s() in %s[%d]", fname, exe, (int)ev[i].pid);
		if (caller[0])
			snprintf(out + strlen(out), cap - strlen(out), " from %s+0x%llx%s%s%s", caller,
				 (unsigned long long)cut->h.off, sym[0] ? " (" : "", sym, sym[0] ? ")" : "");
		return;
	}
}

void ms_power_rollback(struct mockshim_session *s, int cut)
{
	struct jr j = { .s = s, .pfd = -1 };
	int mode = MS_PW_DROP;
	uint32_t ri = UINT32_MAX;
	char where[400] = "";

	free(s->power_note);
	s->power_note = NULL;
	if (!s->power_dir)
		return;
	if (!cut) {
		if (load(&j) == 0)
			check_globs(&j);
		goto out;
	}
	{
		const struct ms_rule_state *rst =
			(const struct ms_rule_state *)((const char *)s->chan.state + s->own->st_rules_off);

		for (uint32_t i = 0; s->chan.state && i < s->own->nrules; i++)
			if (power_rule(&own_rules(s)[i]) && own_rules(s)[i].stmt.count > 0 &&
			    rst[i].consumed >= (uint32_t)own_rules(s)[i].stmt.count && ri == UINT32_MAX) {
				mode = (int)own_rules(s)[i].value;
				ri = i;
			}
	}
	j.pfd = open(s->power_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (load(&j) != 0 || j.pfd < 0) {
		s->power_note = strdup("the power went out, but its journal could not be read: "
				       "nothing was rolled back");
		goto out;
	}
	if (j.damaged) {
		/* a record torn (a full disk) or forged: the changes after it
		 * are unknown, and undoing only those before would make a
		 * state neither the program nor a power cut could */
		if (asprintf(&s->power_note,
			     "the power went out, but its journal is damaged at byte %zu (written by "
			     "the program, or its disk full): nothing was rolled back",
			     j.damaged == 1 ? (size_t)0 : j.damaged) < 0)
			s->power_note = NULL;
		goto out;
	}
	mark_durable(&j);
	if (mode != MS_PW_DROP)
		choose(&j, mode, s->seed);
	for (size_t i = j.n; i-- > 0;) {
		struct rec *x = &j.r[i];

		if (x->durable || (x->keep && x->cut < 0))
			continue;
		if (is_data(x))
			undo_data(&j, i);
		else if (x->h.kind != MS_PW_SYNC && x->h.kind != MS_PW_SYNC_ALL && x->h.kind != MS_PW_CUT)
			undo_name(&j, x);
	}
	if (ri != UINT32_MAX)
		{
			const struct rec *c = NULL;

			for (size_t i = 0; i < j.n && !c; i++)
				if (j.r[i].h.kind == MS_PW_CUT)
					c = &j.r[i];
			cut_site(s, ri, c, where, sizeof(where) - 60);
		}
	if (mode != MS_PW_DROP)
		snprintf(where + strlen(where), sizeof(where) - strlen(where), " (mode=%s, --seed %llu)",
			 mode == MS_PW_TORN ? "torn" : "reorder", (unsigned long long)s->seed);
	summary(&j, where);
	check_globs(&j);
out:
	for (size_t i = 0; i < j.n; i++) {
		free(j.r[i].path);
		free(j.r[i].path2);
	}
	free(j.r);
	free(j.buf);
	free(j.inos);
	free(j.moved);
	if (j.pfd >= 0)
		close(j.pfd);
}

int ms_power_was_cut(const struct mockshim_session *s)
{
	return s->power_note && strncmp(s->power_note, "the power went out", 18) == 0;
}

/* Everything in the directory dfd (closed): what the program put there
 * too (it knows the power directory): directories, made unwritable
 * ones, links never followed; depth bounds the recursion. */
static void remove_in(int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;

	if (!d) {
		close(dfd);
		return;
	}
	fchmod(dfd, 0700);
	while ((de = readdir(d))) {
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    unlinkat(dfd, de->d_name, 0) == 0 || depth <= 0)
			continue;
		sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		remove_in(sub, depth - 1);
		unlinkat(dfd, de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

/* The power directory and everything in it (the journal, kept files). */
void ms_power_cleanup(struct mockshim_session *s)
{
	int fd;

	if (!s->power_dir)
		return;
	fd = open(s->power_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		remove_in(fd, 64);
	rmdir(s->power_dir);
	free(s->power_dir);
	s->power_dir = NULL;
}
