/* SPDX-License-Identifier: MIT */
/*
 * power_loss(): durability tracking (DESIGN.md section 7.3).  Before
 * each call that changes a file or a name under paths=, this process
 * appends to mockrun's journal what a power cut would undo (power/
 * power.h); before fsync, fdatasync, sync and syncfs, what they make
 * durable.  Only system calls (syscall(2)), never a catalog function:
 * the shim's own writes must not come back through its trampolines.
 *
 * Cost: a tracked write reads the bytes it overwrites (none past the
 * file's size) and appends them: O(bytes written); an fsync appends one
 * record: O(1).  Truncating a file (ftruncate, O_TRUNC) keeps the tail
 * it drops: O(bytes dropped).  A removed file is kept as a hard link
 * beside the journal (O(1)); where it cannot be linked (another file
 * system) it is lost to the rollback, which says so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "channel/channel.h"
#include "decide/decide.h"
#include "catalog/catalog.h"
#include "power/power.h"
#include "shim.h"

int ms_power_on;
static int jfd = -1;
/* the journal's path and inode: a program that closes its descriptors
 * (a daemon's way) may close jfd and get its number for a file of its
 * own; the journal is then opened again, never written into that */
static char jpath[MS_PW_PATH_MAX + 16];
static uint64_t jdev, jino;
static const char *pdir;	/* the power directory (pool) */
#define MAX_GLOBS 16
static const char *globs[MAX_GLOBS];
static unsigned nglobs;
static uint32_t kept_n;
/* the power_loss rules: once one is used up, the power is out */
static uint32_t prules[MAX_GLOBS];
static unsigned nprules;

/* The functions tracked, by catalog id. */
static const uint8_t power_fns[MS_FN_COUNT] = {
	[MS_ID_write] = 1, [MS_ID_pwrite] = 1, [MS_ID_writev] = 1, [MS_ID_ftruncate] = 1,
	[MS_ID_truncate] = 1, [MS_ID_open] = 1, [MS_ID_openat] = 1, [MS_ID_creat] = 1,
	[MS_ID_rename] = 1, [MS_ID_renameat] = 1, [MS_ID_renameat2] = 1, [MS_ID_link] = 1,
	[MS_ID_linkat] = 1, [MS_ID_symlink] = 1, [MS_ID_symlinkat] = 1, [MS_ID_unlink] = 1,
	[MS_ID_unlinkat] = 1, [MS_ID_mkdir] = 1, [MS_ID_mkdirat] = 1, [MS_ID_rmdir] = 1,
	[MS_ID_fsync] = 1, [MS_ID_fdatasync] = 1, [MS_ID_sync] = 1, [MS_ID_syncfs] = 1,
	[MS_ID_fallocate] = 1, [MS_ID_copy_file_range] = 1, [MS_ID_sendfile] = 1,
	[MS_ID_fflush] = 1, [MS_ID_fclose] = 1, [MS_ID_fwrite] = 1, [MS_ID_mmap] = 1,
};

/* glibc's list of open streams (weak: absent elsewhere) */
extern FILE *_IO_list_all __attribute__((weak));
extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso) __attribute__((weak));
static void note_stdio(FILE *fp, uint64_t more);

/*
 * exit() flushes every stream after the atexit handlers, inside libc,
 * where no call is seen: this handler, registered at attach (before the
 * program's own), notes each stream's pending buffer just before.
 */
static void streams_at_exit(void *arg)
{
	(void)arg;
	if (&_IO_list_all == NULL || ms_guard)
		return;
	for (FILE *fp = _IO_list_all; fp; fp = fp->_chain)
		note_stdio(fp, 0);
}

int ms_power_fn(unsigned id)
{
	return id < MS_FN_COUNT && power_fns[id];
}

static size_t slen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* The journal opened, out of the way of a program that closes its
 * descriptors from 3: a descriptor, or -1. */
static int journal_open(void)
{
	struct stat st;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, jpath, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);

	if (fd >= 0 && fd < 500) {
		int hi = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 500L);

		if (hi >= 0) {
			syscall(SYS_close, fd);
			fd = hi;
		}
	}
	if (fd >= 0 && (syscall(SYS_fstat, fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		syscall(SYS_close, fd);
		fd = -1;
	}
	if (fd >= 0 && !jdev && !jino) {
		jdev = st.st_dev;
		jino = st.st_ino;
	}
	return fd;
}

/* jfd, still the journal, or the journal opened again: 1; 0 if not */
static int journal_ok(void)
{
	struct stat st;
	int fd = __atomic_load_n(&jfd, __ATOMIC_RELAXED);

	if (fd >= 0 && syscall(SYS_fstat, fd, &st) == 0 && (uint64_t)st.st_dev == jdev &&
	    (uint64_t)st.st_ino == jino)
		return 1;
	/* (jfd's number is not closed: it may be the program's now) */
	fd = journal_open();
	if (fd < 0)
		return 0;
	if (syscall(SYS_fstat, fd, &st) != 0 || (uint64_t)st.st_dev != jdev || (uint64_t)st.st_ino != jino) {
		syscall(SYS_close, fd);
		return 0;
	}
	__atomic_store_n(&jfd, fd, __ATOMIC_RELAXED);
	return 1;
}

void ms_power_open(const struct ms_chan_hdr *h, const char *pool, const struct ms_rule *rules)
{
	size_t n;
	int fd;

	if (!h->power_dir || jfd >= 0)
		return;
	pdir = pool + h->power_dir;
	n = slen(pdir);
	if (n + sizeof("/" MS_PW_JOURNAL) > sizeof(jpath))
		return;
	memcpy(jpath, pdir, n);
	memcpy(jpath + n, "/" MS_PW_JOURNAL, sizeof("/" MS_PW_JOURNAL));
	for (uint32_t i = 0; i < h->nrules && nglobs < MAX_GLOBS; i++)
		if ((rules[i].flags & MS_RF_POWER) && rules[i].value_str) {
			globs[nglobs++] = pool + rules[i].value_str;
			prules[nprules++] = i;
		}
	fd = journal_open();
	if (fd < 0) {
		ms_diag("warning: power_loss: cannot open the journal; this process's changes "
			"are not tracked", NULL);
		return;
	}
	jfd = fd;
	if (__cxa_atexit)
		__cxa_atexit(streams_at_exit, NULL, NULL);
	__atomic_store_n(&ms_power_on, 1, __ATOMIC_RELAXED);
}

static int tracked(const char *abs)
{
	for (unsigned i = 0; i < nglobs; i++)
		if (ms_glob_match(globs[i], abs))
			return 1;
	return 0;
}

/* /proc/self/fd/FD's target into out (NUL-terminated): its length, or -1 */
static ssize_t fd_path(int fd, char *out, size_t cap)
{
	char p[40];
	struct ms_tline t;
	ssize_t k;

	t.n = 0;
	ms_tl_put(&t, "/proc/self/fd/");
	ms_tl_i(&t, fd);
	memcpy(p, t.buf, t.n);
	p[t.n] = '\0';
	k = syscall(SYS_readlinkat, AT_FDCWD, p, out, cap - 1);
	if (k <= 0 || out[0] != '/')
		return -1;
	out[k] = '\0';
	return k;
}

/*
 * The absolute path of (dirfd, path) without following its last
 * component: its directory resolved by the kernel (/proc/self/fd of an
 * O_PATH descriptor), then the last name.  *dst: the directory's.
 */
static ssize_t abs_path(int dirfd, const char *path, char *out, size_t cap, struct stat *dst)
{
	size_t n = slen(path), cut = n, base;
	char dir[MS_PW_PATH_MAX];
	int dfd;
	ssize_t k;

	while (cut > 0 && path[cut - 1] == '/')
		cut--;
	if (cut == 0 || n >= sizeof(dir))
		return -1;
	base = cut;
	while (base > 0 && path[base - 1] != '/')
		base--;
	if (base == 0) {
		dir[0] = '.';
		dir[1] = '\0';
	} else {
		memcpy(dir, path, base);
		dir[base] = '\0';
	}
	dfd = (int)syscall(SYS_openat, dirfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	k = fd_path(dfd, out, cap);
	if (dst && syscall(SYS_fstat, dfd, dst) != 0)
		k = -1;
	syscall(SYS_close, dfd);
	if (k < 0 || (size_t)k + 1 + (cut - base) + 1 > cap)
		return -1;
	if (k > 1)
		out[k++] = '/';
	memcpy(out + k, path + base, cut - base);
	k += (ssize_t)(cut - base);
	out[k] = '\0';
	return k;
}

/* One record: header, paths, data, with one write(2) (O_APPEND). */
static void put(struct ms_pw_rec *r, const char *p1, const char *p2, const void *data, size_t dlen)
{
	struct iovec v[4];
	int n = 0;

	r->magic = MS_PW_MAGIC;
	r->pid = (int32_t)syscall(SYS_getpid);
	r->path_len = p1 ? (uint32_t)slen(p1) : 0;
	r->path2_len = p2 ? (uint32_t)slen(p2) : 0;
	r->data_len = (uint32_t)dlen;
	v[n++] = (struct iovec){ r, sizeof(*r) };
	if (r->path_len)
		v[n++] = (struct iovec){ (void *)(uintptr_t)p1, r->path_len };
	if (r->path2_len)
		v[n++] = (struct iovec){ (void *)(uintptr_t)p2, r->path2_len };
	if (dlen)
		v[n++] = (struct iovec){ (void *)(uintptr_t)data, dlen };
	if (journal_ok())
		syscall(SYS_writev, __atomic_load_n(&jfd, __ATOMIC_RELAXED), v, n);
}

#define CHUNK 65536

/*
 * The old bytes of [off, off + n) of the file open at fd, st its stat,
 * path its name, journaled as records of kind (WRITE or TRUNC's tail,
 * which undoing restores), in chunks: a WRITE first (with the size), the
 * rest continuations.  A descriptor open for writing only is read
 * through /proc/self/fd.
 */
static void old_bytes(int fd, const struct stat *st, const char *path, int64_t off, uint64_t n,
		      int cont)
{
	char buf[CHUNK];
	int rfd = fd, opened = 0;
	uint64_t done = 0;
	int64_t size = st->st_size;

	do {
		uint64_t want = n - done > CHUNK ? CHUNK : n - done, have = 0;
		struct ms_pw_rec r = { .kind = MS_PW_WRITE, .dev = st->st_dev, .ino = st->st_ino,
				       .off = off + (int64_t)done, .n = want, .size = size };

		if (done || cont)
			r.flags = MS_PW_F_CONT;
		if (r.off < size) {
			uint64_t can = (uint64_t)(size - r.off) < want ? (uint64_t)(size - r.off) : want;
			ssize_t k = syscall(SYS_pread64, rfd, buf, can, r.off);

			if (k < 0 && errno == EBADF && !opened) {
				char p[40];
				struct ms_tline t;

				t.n = 0;
				ms_tl_put(&t, "/proc/self/fd/");
				ms_tl_i(&t, fd);
				memcpy(p, t.buf, t.n);
				p[t.n] = '\0';
				rfd = (int)syscall(SYS_openat, AT_FDCWD, p, O_RDONLY | O_CLOEXEC);
				opened = rfd >= 0;
				if (!opened)
					rfd = fd;
				else
					k = syscall(SYS_pread64, rfd, buf, can, r.off);
			}
			have = k > 0 ? (uint64_t)k : 0;
		}
		put(&r, done ? NULL : path, NULL, buf, have);
		done += want;
	} while (done < n);
	if (opened)
		syscall(SYS_close, rfd);
}

/* A tracked regular file open at fd: its stat and path, 1; else 0. */
static int tracked_fd(int fd, struct stat *st, char *path, size_t cap)
{
	if (fd < 0 || syscall(SYS_fstat, fd, st) != 0)
		return 0;
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
		return 0;
	if (fd_path(fd, path, cap) < 0)
		return 0;
	return tracked(path) || S_ISDIR(st->st_mode);
}

/* n bytes about to be written at fd (at off, or at its offset if off < 0) */
static void note_write(int fd, int64_t off, uint64_t n)
{
	char path[MS_PW_PATH_MAX];
	struct stat st;
	long fl;

	if (!tracked_fd(fd, &st, path, sizeof(path)) || !S_ISREG(st.st_mode))
		return;
	fl = syscall(SYS_fcntl, fd, F_GETFL);
	if (off < 0)
		off = fl >= 0 && (fl & O_APPEND) ? (int64_t)st.st_size
						 : (int64_t)syscall(SYS_lseek, fd, 0L, SEEK_CUR);
	if (off < 0)
		return;
	old_bytes(fd, &st, path, off, n, 0);
	/* O_SYNC and O_DSYNC: durable when written */
	if (fl >= 0 && (fl & (O_SYNC | O_DSYNC))) {
		struct ms_pw_rec r = { .kind = MS_PW_SYNC, .dev = st.st_dev, .ino = st.st_ino };

		put(&r, path, NULL, NULL, 0);
	}
}

/* the file at fd (or at (dirfd, p), through symbolic links as the call
 * goes unless nofollow: O_PATH, which opens nothing for real, and the
 * path it resolves to is what paths= is matched with) truncated to len */
static void note_trunc(int fd, int dirfd, const char *p, int64_t len, int nofollow)
{
	char path[MS_PW_PATH_MAX];
	struct stat st;
	int own = -1;

	if (fd < 0) {
		own = fd = (int)syscall(SYS_openat, dirfd, p, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
		if (fd < 0)
			return;
	}
	if (tracked_fd(fd, &st, path, sizeof(path)) && S_ISREG(st.st_mode) && len >= 0) {
		struct ms_pw_rec r = { .kind = MS_PW_TRUNC, .dev = st.st_dev, .ino = st.st_ino,
				       .off = len, .size = st.st_size };

		put(&r, path, NULL, NULL, 0);
		if (len < st.st_size)
			old_bytes(fd, &st, NULL, len, (uint64_t)(st.st_size - len), 1);
	}
	if (own >= 0)
		syscall(SYS_close, own);
}

/* a name about to be made (kind MS_PW_CREATE or MKDIR) at (dirfd, p) */
/* (follow: open's O_CREAT without O_EXCL or O_NOFOLLOW, which makes a
 * symbolic link's missing target: its name is the one made, as many
 * links on as the kernel follows) */
static void note_create(int dirfd, const char *p, uint16_t kind, int follow)
{
	char path[MS_PW_PATH_MAX], to[MS_PW_PATH_MAX];
	struct stat dst, st;
	struct ms_pw_rec r = { .kind = kind };
	ssize_t k, n;

	for (int links = 0;; links++) {
		if (abs_path(dirfd, p, path, sizeof(path), &dst) < 0)
			return;
		if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) != 0)
			break;
		/* there already: nothing is made, unless a link to a name
		 * that is not */
		if (!follow || !S_ISLNK(st.st_mode) || links >= 40 ||
		    syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) == 0)
			return;
		k = syscall(SYS_readlinkat, AT_FDCWD, path, to, sizeof(to) - 1);
		if (k <= 0)
			return;
		to[k] = '\0';
		if (to[0] != '/') {
			/* relative to the link's directory */
			n = (ssize_t)slen(path);
			while (n > 0 && path[n - 1] != '/')
				n--;
			if ((size_t)(n + k) >= sizeof(path))
				return;
			memcpy(path + n, to, (size_t)k + 1);
			memcpy(to, path, (size_t)(n + k) + 1);
		}
		dirfd = AT_FDCWD;
		p = to;
	}
	if (!tracked(path))
		return;
	r.dev = dst.st_dev;
	r.ino = dst.st_ino;
	put(&r, path, NULL, NULL, 0);
}

/* The file at path copied to dst (another file system than the power
 * directory's: no link there): a regular file's bytes (O(its size)), a
 * symbolic link's target.  0, or -1. */
static int keep_copy(const char *path, const char *dst)
{
	char buf[MS_PW_PATH_MAX];
	struct stat st;
	int src, out, ok = 0;
	ssize_t k;

	if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
	if (S_ISLNK(st.st_mode)) {
		k = syscall(SYS_readlinkat, AT_FDCWD, path, buf, sizeof(buf) - 1);
		if (k <= 0)
			return -1;
		buf[k] = '\0';
		return syscall(SYS_symlinkat, buf, AT_FDCWD, dst) == 0 ? 0 : -1;
	}
	if (!S_ISREG(st.st_mode))
		return -1;
	src = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (src < 0)
		return -1;
	out = (int)syscall(SYS_openat, AT_FDCWD, dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			   (long)((st.st_mode & 07777) | 0600));
	if (out >= 0) {
		ok = 1;
		while ((k = syscall(SYS_sendfile, out, src, NULL, 1L << 30)) != 0)
			if (k < 0) {
				ok = 0;
				break;
			}
		syscall(SYS_close, out);
		if (!ok)
			syscall(SYS_unlinkat, AT_FDCWD, dst, 0);
	}
	syscall(SYS_close, src);
	return ok ? 0 : -1;
}

/* The file at path kept as a link "k<pid>.<n>" beside the journal, or
 * a copy when the power directory is on another file system: its name
 * in out, or "" */
static void keep(const char *path, char *out)
{
	char dst[MS_PW_PATH_MAX + 64];
	struct ms_tline t;
	size_t n = slen(pdir);

	out[0] = '\0';
	if (n + 40 > sizeof(dst))
		return;
	t.n = 0;
	ms_tl_c(&t, 'k');
	ms_tl_i(&t, (int32_t)syscall(SYS_getpid));
	ms_tl_c(&t, '.');
	ms_tl_i(&t, (int32_t)__atomic_add_fetch(&kept_n, 1, __ATOMIC_RELAXED));
	memcpy(dst, pdir, n);
	dst[n] = '/';
	memcpy(dst + n + 1, t.buf, t.n);
	dst[n + 1 + t.n] = '\0';
	if (syscall(SYS_linkat, AT_FDCWD, path, AT_FDCWD, dst, 0) != 0 &&
	    (errno != EXDEV || keep_copy(path, dst) != 0))
		return;
	memcpy(out, t.buf, t.n);
	out[t.n] = '\0';
}

/* a name about to be removed at (dirfd, p) */
static void note_remove(int dirfd, const char *p, int dir)
{
	char path[MS_PW_PATH_MAX], kept[64];
	struct stat dst, st;
	struct ms_pw_rec r = { .kind = dir ? MS_PW_RMDIR : MS_PW_REMOVE };

	if (abs_path(dirfd, p, path, sizeof(path), &dst) < 0 || !tracked(path))
		return;
	if (syscall(SYS_newfstatat, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	r.dev = dst.st_dev;
	r.ino = dst.st_ino;
	r.size = (int64_t)st.st_mode;
	r.dev2 = st.st_dev;
	r.ino2 = st.st_ino;
	kept[0] = '\0';
	if (!dir) {
		keep(path, kept);
		if (kept[0])
			r.flags |= MS_PW_F_KEPT;
	}
	put(&r, path, kept[0] ? kept : NULL, NULL, 0);
}

static void note_rename(int ofd, const char *op, int nfd, const char *np, unsigned flags)
{
	char o[MS_PW_PATH_MAX], n[MS_PW_PATH_MAX], kept[64];
	struct stat od, nd, st;
	struct ms_pw_rec r = { .kind = MS_PW_RENAME };

	if (abs_path(ofd, op, o, sizeof(o), &od) < 0 || abs_path(nfd, np, n, sizeof(n), &nd) < 0 ||
	    !(tracked(o) || tracked(n)))
		return;
	/* what will fail changes nothing: no source, or RENAME_NOREPLACE
	 * onto a name there (mv tries that first); RENAME_EXCHANGE is not
	 * tracked */
	if (syscall(SYS_newfstatat, AT_FDCWD, o, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    ((flags & 1u) && syscall(SYS_newfstatat, AT_FDCWD, n, &st, AT_SYMLINK_NOFOLLOW) == 0))
		return;
	r.dev = od.st_dev;
	r.ino = od.st_ino;
	r.dev2 = nd.st_dev;
	r.ino2 = nd.st_ino;
	kept[0] = '\0';
	if (syscall(SYS_newfstatat, AT_FDCWD, n, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)) {
		r.size = (int64_t)st.st_dev;
		r.off = (int64_t)st.st_ino;
		keep(n, kept);
		if (kept[0]) {
			r.flags |= MS_PW_F_KEPT;
			r.n = 1;
		}
	}
	put(&r, o, n, kept, slen(kept));
}

static void note_sync(int fd, int data_only)
{
	char path[MS_PW_PATH_MAX];
	struct stat st;
	struct ms_pw_rec r = { .kind = MS_PW_SYNC };

	if (!tracked_fd(fd, &st, path, sizeof(path)))
		return;
	r.dev = st.st_dev;
	r.ino = st.st_ino;
	r.flags = (S_ISDIR(st.st_mode) ? MS_PW_F_DIR : 0) | (data_only ? MS_PW_F_DATA_ONLY : 0);
	put(&r, path, NULL, NULL, 0);
}

/* stdio: what a flush of fp may write (glibc's FILE) */
static void note_stdio(FILE *fp, uint64_t more)
{
	uint64_t pend;

	if (!fp || fp->_fileno < 0)
		return;
	pend = fp->_IO_write_ptr > fp->_IO_write_base
		       ? (uint64_t)(fp->_IO_write_ptr - fp->_IO_write_base) : 0;
	if (pend + more)
		note_write(fp->_fileno, -1, pend + more);
}

/* Whether the power went out (in another process, maybe): then this one
 * changes nothing more either, and waits for mockrun's SIGKILL. */
static void out_already(void)
{
	for (unsigned i = 0; i < nprules; i++) {
		const struct ms_rule *r = &ms_d.rules[prules[i]];

		if (r->stmt.count > 0 &&
		    __atomic_load_n(&ms_d.rst[prules[i]].consumed, __ATOMIC_ACQUIRE) >= (uint32_t)r->stmt.count)
			for (;;)
				syscall(SYS_kill, syscall(SYS_getpid), SIGSTOP);
	}
}

void ms_power_note(unsigned id, const uint64_t *a)
{
	int saved = errno;

	if (jfd < 0)
		return;
	out_already();
	switch (id) {
	case MS_ID_write:
		note_write((int)a[0], -1, a[2]);
		break;
	case MS_ID_pwrite:
		note_write((int)a[0], (int64_t)a[3], a[2]);
		break;
	case MS_ID_writev: {
		/* the vector copied with process_vm_readv: a bad pointer is
		 * the real writev's EFAULT, never a crash in the shim */
		struct iovec v[64], l, r;
		uint64_t n = 0;
		int cnt = (int)a[2] < 0 ? 0 : (int)a[2] > 64 ? 64 : (int)a[2];
		ssize_t got;

		l = (struct iovec){ v, (size_t)cnt * sizeof(v[0]) };
		r = (struct iovec){ (void *)(uintptr_t)a[1], l.iov_len };
		got = cnt ? syscall(SYS_process_vm_readv, syscall(SYS_getpid), &l, 1L, &r, 1L, 0L) : 0;
		for (int i = 0; got > 0 && i < (int)((size_t)got / sizeof(v[0])); i++)
			n += v[i].iov_len;
		if (got > 0 || !cnt)
			note_write((int)a[0], -1, n);
		break;
	}
	case MS_ID_fallocate:
		/* (KEEP_SIZE or not: the size before and any bytes there) */
		note_write((int)a[0], (int64_t)a[2], a[3]);
		break;
	case MS_ID_copy_file_range: {
		/* *off_out, read as writev's vector is */
		int64_t off = -1;
		struct iovec l = { &off, sizeof(off) }, r = { (void *)(uintptr_t)a[3], sizeof(off) };

		if (!a[3] || syscall(SYS_process_vm_readv, syscall(SYS_getpid), &l, 1L, &r, 1L, 0L) ==
				     (ssize_t)sizeof(off))
			note_write((int)a[2], off, a[4]);
		break;
	}
	case MS_ID_sendfile:
		note_write((int)a[0], -1, a[3]);
		break;
	case MS_ID_ftruncate:
		note_trunc((int)a[0], AT_FDCWD, NULL, (int64_t)a[1], 0);
		break;
	case MS_ID_truncate:
		if (a[0])
			note_trunc(-1, AT_FDCWD, (const char *)(uintptr_t)a[0], (int64_t)a[1], 0);
		break;
	case MS_ID_open:
	case MS_ID_openat:
	case MS_ID_creat: {
		int dirfd = id == MS_ID_openat ? (int)a[0] : AT_FDCWD;
		const char *p = (const char *)(uintptr_t)a[id == MS_ID_openat];
		int flags = id == MS_ID_creat ? O_CREAT | O_TRUNC | O_WRONLY : (int)a[1 + (id == MS_ID_openat)];

		if (!p)
			break;
		if (flags & O_CREAT)
			note_create(dirfd, p, MS_PW_CREATE, !(flags & (O_EXCL | O_NOFOLLOW)));
		if ((flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY)
			note_trunc(-1, dirfd, p, 0, (flags & O_NOFOLLOW) != 0);
		break;
	}
	case MS_ID_rename:
		note_rename(AT_FDCWD, (const char *)(uintptr_t)a[0], AT_FDCWD, (const char *)(uintptr_t)a[1], 0);
		break;
	case MS_ID_renameat:
	case MS_ID_renameat2:
		note_rename((int)a[0], (const char *)(uintptr_t)a[1], (int)a[2], (const char *)(uintptr_t)a[3],
			    id == MS_ID_renameat2 ? (unsigned)a[4] : 0);
		break;
	case MS_ID_link:
	case MS_ID_symlink:
		note_create(AT_FDCWD, (const char *)(uintptr_t)a[1], MS_PW_CREATE, 0);
		break;
	case MS_ID_linkat:
		note_create((int)a[2], (const char *)(uintptr_t)a[3], MS_PW_CREATE, 0);
		break;
	case MS_ID_symlinkat:
		note_create((int)a[1], (const char *)(uintptr_t)a[2], MS_PW_CREATE, 0);
		break;
	case MS_ID_unlink:
		note_remove(AT_FDCWD, (const char *)(uintptr_t)a[0], 0);
		break;
	case MS_ID_unlinkat:
		note_remove((int)a[0], (const char *)(uintptr_t)a[1], (a[2] & AT_REMOVEDIR) != 0);
		break;
	case MS_ID_rmdir:
		note_remove(AT_FDCWD, (const char *)(uintptr_t)a[0], 1);
		break;
	case MS_ID_mkdir:
		note_create(AT_FDCWD, (const char *)(uintptr_t)a[0], MS_PW_MKDIR, 0);
		break;
	case MS_ID_mkdirat:
		note_create((int)a[0], (const char *)(uintptr_t)a[1], MS_PW_MKDIR, 0);
		break;
	case MS_ID_fsync:
	case MS_ID_fdatasync:
		note_sync((int)a[0], id == MS_ID_fdatasync);
		break;
	case MS_ID_sync:
	case MS_ID_syncfs: {
		struct ms_pw_rec r = { .kind = MS_PW_SYNC_ALL };

		put(&r, NULL, NULL, NULL, 0);
		break;
	}
	case MS_ID_mmap:
		/* a shared writable mapping changes the file with no call: its
		 * whole range's old bytes now (O(mapping), not O(bytes
		 * written)); msync is not in the catalog: only fsync, sync and
		 * syncfs make the mapping's changes durable */
		if ((a[3] & MAP_SHARED) && (a[2] & PROT_WRITE) && (int)a[4] >= 0)
			note_write((int)a[4], (int64_t)a[5], a[1]);
		break;
	case MS_ID_fflush:
	case MS_ID_fclose:
		note_stdio((FILE *)(uintptr_t)a[0], 0);
		break;
	case MS_ID_fwrite:
		note_stdio((FILE *)(uintptr_t)a[3], a[1] * a[2]);
		break;
	default:
		break;
	}
	errno = saved;
}

/* The power goes out at this call: the caller stops, and so does every
 * thread of its process (SIGSTOP); mockrun SIGKILLs the whole tree. */
void ms_hook_power_cut(const void *caller)
{
	if (jfd >= 0) {
		/* where: the caller's object and offset, as events have them */
		static struct ms_event e;
		struct ms_pw_rec r = { .kind = MS_PW_CUT };

		ms_hook_caller(caller, &e);
		e.caller[MS_EV_CALLER - 1] = e.sym[MS_EV_SYM - 1] = '\0';
		r.off = (int64_t)e.caller_off;
		put(&r, e.caller[0] ? e.caller : "?", e.sym[0] ? e.sym : NULL, NULL, 0);
	}
	for (;;)
		syscall(SYS_kill, syscall(SYS_getpid), SIGSTOP);
}
