/* SPDX-License-Identifier: MIT */
/*
 * probe: a small unmodified program that calls catalog functions in ways
 * the preload tests need, and prints what it got back.  It knows nothing
 * of mockshim; tests run it under mockrun.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../seccomp_errno.h"

static void *exit_thread(void *arg)
{
	(void)arg;
	(void)getgid();
	_exit(3);
}

static volatile sig_atomic_t handler_calls, handler_bad;

static void on_alarm(int sig)
{
	int saved = errno;

	(void)sig;
	handler_calls++;
	if (getuid() != 4242)
		handler_bad++;
	errno = saved;
}

/* sigfrom: the handler reads through liblate, the main loop by itself */
static long (*late_read)(const char *, char *, long);
static volatile sig_atomic_t late_calls, late_bad;

static void on_alarm_late(int sig)
{
	int saved = errno;
	char c;

	(void)sig;
	late_calls++;
	if (late_read("/dev/zero", &c, 1) != -1)
		late_bad++;
	errno = saved;
}

static const char *ename(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "0";
}

struct count_arg {
	long n;
	pid_t value;
	long hits;
};

static void *count_getpid(void *p)
{
	struct count_arg *a = p;

	for (long i = 0; i < a->n; i++)
		if (getpid() == a->value)
			a->hits++;
	return NULL;
}

/* collect: each thread keeps the mocked getpid values it saw */
struct collect_arg {
	long n, got;
	pid_t real;
	pid_t *seen;
};

static void *collect_getpid(void *p)
{
	struct collect_arg *a = p;

	for (long i = 0; i < a->n; i++) {
		pid_t v = getpid();

		if (v != a->real)
			a->seen[a->got++] = v;
	}
	return NULL;
}

/* T threads call getpid N times each; prints every mocked value seen,
 * one write per line (the lines of several processes do not mix). */
static void run_collect(int t, long n)
{
	pthread_t th[64];
	struct collect_arg args[64];
	pid_t real = (pid_t)syscall(SYS_getpid);

	if (t > 64)
		t = 64;
	for (int i = 0; i < t; i++) {
		args[i] = (struct collect_arg){ n, 0, real, calloc((size_t)n, sizeof(pid_t)) };
		pthread_create(&th[i], NULL, collect_getpid, &args[i]);
	}
	for (int i = 0; i < t; i++) {
		pthread_join(th[i], NULL);
		for (long k = 0; k < args[i].got; k++)
			dprintf(1, "%d\n", (int)args[i].seen[k]);
		free(args[i].seen);
	}
}

/* threads T N VALUE: T threads call getpid N times; returns the hits. */
static long run_threads(int t, long n, pid_t value)
{
	pthread_t th[64];
	struct count_arg args[64];
	long total = 0;

	if (t > 64)
		t = 64;
	for (int i = 0; i < t; i++) {
		args[i] = (struct count_arg){ n, value, 0 };
		pthread_create(&th[i], NULL, count_getpid, &args[i]);
	}
	for (int i = 0; i < t; i++) {
		pthread_join(th[i], NULL);
		total += args[i].hits;
	}
	return total;
}

static void hex(const unsigned char *p, ssize_t n)
{
	for (ssize_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

struct aimed_arg {
	long n, counts[3];
};

static void *aimed_thread(void *p)
{
	struct aimed_arg *a = p;
	char buf[2];

	for (long i = 0; i < a->n; i++) {
		for (size_t len = 1; len <= 2; len++) {
			errno = 0;
			if (getrandom(buf, len, 0) >= 0)
				continue;
			if (errno == (len == 1 ? EAGAIN : EINTR))
				a->counts[len - 1]++;
			else
				a->counts[2]++;
		}
	}
	return NULL;
}

/* T threads of aimed_thread; the sums into got[3]. */
static void aimed_threads(int t, long n, long got[3])
{
	pthread_t th[64];
	struct aimed_arg args[64];

	memset(args, 0, sizeof(args));
	got[0] = got[1] = got[2] = 0;
	for (int i = 0; i < t && i < 64; i++) {
		args[i].n = n;
		pthread_create(&th[i], NULL, aimed_thread, &args[i]);
	}
	for (int i = 0; i < t && i < 64; i++) {
		pthread_join(th[i], NULL);
		for (int k = 0; k < 3; k++)
			got[k] += args[i].counts[k];
	}
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	/* novmread CMD ...: CMD with process_vm_readv failing with ENOSYS, as
	 * under qemu-user: the shim reads the program's memory its other way */
	if (strcmp(cmd, "novmread") == 0 && argc > 2) {
		if (seccomp_errno(SYS_process_vm_readv, ENOSYS) != 0) {
			perror("probe: seccomp");
			return 2;
		}
		argv++;
		argc--;
		cmd = argv[1];
	}

	if (strcmp(cmd, "ids") == 0) {
		printf("uid=%u euid=%u gid=%u egid=%u\n", getuid(), geteuid(), getgid(), getegid());
	} else if (strcmp(cmd, "getuid") == 0 && argc == 3) {
		/* getuid N: prints N results on one line */
		for (int i = 0, n = atoi(argv[2]); i < n; i++)
			printf("%s%u", i ? " " : "", getuid());
		printf("\n");
	} else if (strcmp(cmd, "threads") == 0 && argc == 5) {
		printf("%ld\n", run_threads(atoi(argv[2]), atol(argv[3]), atoi(argv[4])));
	} else if (strcmp(cmd, "fork-threads") == 0 && argc == 6) {
		/* fork-threads P T N VALUE: P processes x T threads x N getpid calls */
		int p = atoi(argv[2]), fds[2];
		long total = 0, got;

		if (pipe(fds) != 0)
			return 2;
		for (int i = 0; i < p; i++) {
			if (fork() == 0) {
				got = run_threads(atoi(argv[3]), atol(argv[4]), atoi(argv[5]));
				if (write(fds[1], &got, sizeof(got)) != sizeof(got))
					_exit(2);
				_exit(0);
			}
		}
		close(fds[1]);
		while (read(fds[0], &got, sizeof(got)) == sizeof(got))
			total += got;
		while (wait(NULL) > 0)
			;
		printf("%ld\n", total);
	} else if (strcmp(cmd, "collect") == 0 && argc == 5) {
		/* collect P T N: P processes x T threads x N getpid calls, every
		 * mocked value printed */
		int p = atoi(argv[2]);

		fflush(stdout);
		for (int i = 1; i < p; i++)
			if (fork() == 0) {
				run_collect(atoi(argv[3]), atol(argv[4]));
				_exit(0);
			}
		run_collect(atoi(argv[3]), atol(argv[4]));
		while (wait(NULL) > 0)
			;
	} else if (strcmp(cmd, "read") == 0 && argc == 4) {
		unsigned char buf[256];
		int fd = open(argv[2], O_RDONLY);
		size_t n = (size_t)atoi(argv[3]);
		ssize_t r;

		if (fd < 0) {
			printf("open: -1 %s\n", ename(errno));
			return 1;
		}
		memset(buf, 0, sizeof(buf));
		errno = 0;
		r = read(fd, buf, n > sizeof(buf) ? sizeof(buf) : n);
		printf("read: %zd %s ", r, ename(errno));
		hex(buf, r > 0 ? r : 0);
		close(fd);
	} else if (strcmp(cmd, "readn") == 0 && argc == 4) {
		/* readn N COUNT: N reads of stdin into a zeroed buffer, COUNT
		 * bytes asked each time (0: a NULL buffer for the last read),
		 * each result and the last bytes read */
		unsigned char buf[32];
		int n = atoi(argv[2]);
		size_t count = (size_t)atoi(argv[3]);
		ssize_t r = 0;

		for (int i = 0; i < n; i++) {
			memset(buf, 0, sizeof(buf));
			r = read(0, count || i < n - 1 ? buf : NULL, count ? count : 1);
			printf("%s%zd", i ? " " : "", r);
		}
		printf(" |");
		hex(buf, r > 0 ? r : 0);
	} else if (strcmp(cmd, "clockn") == 0 && argc == 3) {
		/* clockn N: N clock_gettime(CLOCK_REALTIME) calls, each's time */
		for (int i = 0, n = atoi(argv[2]); i < n; i++) {
			struct timespec ts = { 0, 0 };
			int r = clock_gettime(CLOCK_REALTIME, &ts);

			printf("%s%d:%lld.%09ld", i ? " " : "", r, (long long)ts.tv_sec, ts.tv_nsec);
		}
		printf("\n");
	} else if (strcmp(cmd, "readseq") == 0 && argc == 3) {
		/* readseq N: N reads of a byte from stdin, then one from
		 * /dev/zero (fd 3): the bytes read */
		int n = atoi(argv[2]), fd = open("/dev/zero", O_RDONLY);
		long got = 0;
		char c;

		for (int i = 0; i < n; i++)
			got += read(0, &c, 1);
		got += read(fd, &c, 1);
		printf("%ld\n", got);
	} else if (strcmp(cmd, "turns") == 0 && argc == 3) {
		/* turns N: N calls of getuid, then of read(0, buf, 1), each
		 * with errno set before: the values, and each errno after */
		int n = atoi(argv[2]), kept = 1;
		char buf[1];

		printf("getuid:");
		for (int i = 0; i < n; i++) {
			errno = 1000 + i;
			printf(" %ld", (long)getuid());
			kept &= errno == 1000 + i;
		}
		printf(" errno %s\nread:", kept ? "kept" : "clobbered");
		for (int i = 0; i < n; i++) {
			ssize_t r;

			errno = 0;
			r = read(0, buf, 1);
			printf(" %zd/%s", r, ename(errno));
		}
		printf("\n");
	} else if (strcmp(cmd, "errno") == 0) {
		/* errno is preserved on mocked and real paths that do not set it */
		int ok = 1;

		errno = 1234;
		(void)getuid();
		ok &= errno == 1234;
		errno = 4321;
		(void)getpid();
		ok &= errno == 4321;
		errno = 77;
		(void)geteuid();
		ok &= errno == 77;
		printf("errno %s\n", ok ? "preserved" : "clobbered");
	} else if (strcmp(cmd, "time") == 0) {
		time_t t = 0, r = time(&t);

		printf("time: %lld %lld null=%lld\n", (long long)r, (long long)t, (long long)time(NULL));
	} else if (strcmp(cmd, "clock") == 0) {
		struct timespec ts = { 0, 0 };
		int r = clock_gettime(CLOCK_REALTIME, &ts);

		printf("clock: %d %lld.%09ld %s\n", r, (long long)ts.tv_sec, ts.tv_nsec, ename(errno));
	} else if (strcmp(cmd, "gettimeofday") == 0) {
		struct timeval tv = { 0, 0 };
		int r = gettimeofday(&tv, NULL);

		printf("gettimeofday: %d %lld.%06ld\n", r, (long long)tv.tv_sec, (long)tv.tv_usec);
	} else if (strcmp(cmd, "strdup") == 0 && argc == 3) {
		/* the caller owns what strdup returns: it frees it */
		char *d = strdup(argv[2]);

		printf("strdup: %s\n", d ? d : "(null)");
		free(d);
	} else if (strcmp(cmd, "getpwuid_r") == 0 && argc == 3) {
		/* getpwuid_r BUFLEN: the entry, or the error and *result */
		struct passwd pw, *res = (struct passwd *)1;
		size_t len = (size_t)atol(argv[2]);
		char *buf = malloc(len ? len : 1);
		int rc = getpwuid_r(0, &pw, buf, len, &res);

		if (rc || !res)
			printf("getpwuid_r: %d %s\n", rc, res ? "result set" : "NULL");
		else
			printf("getpwuid_r: %s %u %s %s\n", pw.pw_name, (unsigned)pw.pw_uid, pw.pw_dir,
			       pw.pw_shell);
		free(buf);
	} else if (strcmp(cmd, "getline") == 0 && argc == 3) {
		FILE *f = fopen(argv[2], "r");
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;

		if (!f)
			return 2;
		errno = 0;
		n = getline(&line, &cap, f);
		printf("getline: %zd %s ferror=%d\n", n, n < 0 ? strerrorname_np(errno) : "",
		       ferror(f) != 0);
		free(line);
		fclose(f);
	} else if (strcmp(cmd, "getsockname") == 0 && argc == 3) {
		/* getsockname LEN: the bytes stored with *addrlen = LEN, and
		 * what *addrlen says after */
		unsigned char sa[32];
		socklen_t len = (socklen_t)atoi(argv[2]);
		int rc;

		memset(sa, 0xee, sizeof(sa));
		rc = getsockname(3, (struct sockaddr *)sa, &len);
		printf("getsockname: %d len=%u ", rc, (unsigned)len);
		hex(sa, 8);
	} else if (strcmp(cmd, "poll0") == 0) {
		/* poll(NULL, 0, 0): the sleep idiom, no entry to fill */
		printf("poll0: %d\n", poll(NULL, 0, 0));
	} else if (strcmp(cmd, "poll") == 0) {
		/* stdin for reading, stdout for writing, and a third entry */
		struct pollfd p[3] = { { 0, POLLIN, 0x5a }, { 1, POLLOUT, 0x5a }, { 2, POLLOUT, 0x5a } };
		int rc = poll(p, 3, 0);

		printf("poll: %d %x %x %x\n", rc, (unsigned)p[0].revents, (unsigned)p[1].revents,
		       (unsigned)p[2].revents);
	} else if (strcmp(cmd, "dlerror") == 0 && argc == 3) {
		/* a dlopen that fails, and dlerror's message, twice */
		for (int i = 0; i < 2; i++) {
			void *h = dlopen(argv[2], RTLD_NOW);
			const char *e = dlerror();

			printf("dlopen: %s [%s]\n", h ? "ok" : "NULL", e ? e : "no error");
		}
	} else if (strcmp(cmd, "arc4random") == 0) {
		printf("arc4random: %u\n", arc4random());
	} else if (strcmp(cmd, "getenv") == 0 && argc == 3) {
		const char *v = getenv(argv[2]);

		printf("getenv: %s\n", v ? v : "(null)");
	} else if (strcmp(cmd, "malloc") == 0) {
		void *p;

		errno = 0;
		p = malloc(64);
		printf("malloc: %s %s\n", p ? "ok" : "NULL", ename(errno));
		free(p);
	} else if (strcmp(cmd, "mallocn") == 0 && argc == 3) {
		/* malloc(64) N times: how many NULLs, the last errno with one */
		int nulls = 0, ok = 0, e = 0;

		for (int i = atoi(argv[2]); i > 0; i--) {
			void *q;

			errno = 0;
			q = malloc(64);
			if (q)
				ok++;
			else
				nulls++, e = errno;
			free(q);
		}
		printf("mallocn: ok %d null %d %s\n", ok, nulls, ename(e));
	} else if (strcmp(cmd, "fgets") == 0 && argc == 3) {
		FILE *f = fopen(argv[2], "r");
		char line[64];
		char *r;

		if (!f) {
			printf("fopen: NULL %s\n", ename(errno));
			return 1;
		}
		r = fgets(line, sizeof(line), f);
		printf("fgets: %s ferror=%d [%s]\n", r == line ? "s" : r ? "?" : "NULL", ferror(f),
		       r ? line : "");
		fclose(f);
	} else if (strcmp(cmd, "fread") == 0 && argc == 3) {
		FILE *f = fopen(argv[2], "r");
		char buf[16] = { 0 };
		size_t r;

		if (!f)
			return 1;
		r = fread(buf, 4, 4, f);
		printf("fread: %zu ferror=%d [%.*s]\n", r, ferror(f), (int)(r * 4), buf);
		fclose(f);
	} else if (strcmp(cmd, "stat") == 0 && argc == 3) {
		struct stat st;
		int r = stat(argv[2], &st);

		printf("stat: %d %s size=%lld mode=%o\n", r, r ? ename(errno) : "0",
		       r ? 0LL : (long long)st.st_size, r ? 0 : (unsigned)st.st_mode);
	} else if (strcmp(cmd, "uname") == 0) {
		struct utsname u;
		int r = uname(&u);

		printf("uname: %d %s %s\n", r, u.sysname, u.nodename);
	} else if (strcmp(cmd, "stdio") == 0 && argc == 3) {
		/* fputc and fwrite N times each, their results on stderr (the
		 * standalone report calls them too, under the guard:
		 * reentrant.sh) */
		for (int i = atoi(argv[2]); i > 0; i--) {
			int c = fputc('x', stdout);
			size_t w = fwrite("y\n", 1, 2, stdout);

			fprintf(stderr, "fputc: %d fwrite: %zu\n", c, w);
		}
	} else if (strcmp(cmd, "gethostname") == 0) {
		char name[8];
		int r = gethostname(name, sizeof(name));

		printf("gethostname: %d [%s]\n", r, name);
	} else if (strcmp(cmd, "getrandom") == 0) {
		unsigned char buf[8] = { 0 };
		ssize_t r = getrandom(buf, sizeof(buf), 0);

		printf("getrandom: %zd ", r);
		hex(buf, r > 0 ? r : 0);
	} else if (strcmp(cmd, "creat") == 0 && argc == 3) {
		/* the variadic mode argument reaches the real open */
		struct stat st;
		int fd;

		umask(0);
		fd = open(argv[2], O_CREAT | O_WRONLY | O_EXCL, 0640);
		if (fd < 0 || fstat(fd, &st) != 0) {
			printf("creat: -1 %s\n", ename(errno));
			return 1;
		}
		printf("creat: mode=%o\n", (unsigned)st.st_mode & 0777);
		close(fd);
	} else if (strcmp(cmd, "getaddrinfo") == 0 && argc == 3) {
		struct addrinfo *res = NULL;
		int r = getaddrinfo(argv[2], NULL, NULL, &res);

		printf("getaddrinfo: %d %s\n", r, r ? gai_strerror(r) : "ok");
		if (!r)
			freeaddrinfo(res);
	} else if (strcmp(cmd, "exec") == 0 && argc >= 3) {
		/* exec PROG ARGS: replaces itself (exec across the session) */
		execvp(argv[2], argv + 2);
		printf("exec: %s\n", ename(errno));
		return 127;
	} else if (strcmp(cmd, "closefds-exec") == 0 && argc >= 4) {
		/* closefds-exec OUT PROG ARGS: closes every fd, then runs PROG
		 * with stdout on OUT (a program that fights its environment) */
		if (syscall(SYS_close_range, 0u, ~0u, 0u) != 0)
			return 2;
		if (open("/dev/null", O_RDONLY) != 0 ||
		    open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644) != 1 || dup(1) != 2)
			return 2;
		execvp(argv[3], argv + 3);
		return 127;
	} else if (strcmp(cmd, "scribble") == 0) {
		/* a hostile program: overwrites the whole state mapping (the
		 * spec is mapped read-only: writing it would be a SIGSEGV) */
		FILE *maps = fopen("/proc/self/maps", "r");
		char line[512];
		int done = 0;

		while (maps && fgets(line, sizeof(line), maps)) {
			unsigned long lo, hi;

			if (strstr(line, "memfd:mockshim-state") && sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
				memset((void *)lo, 'x', hi - lo);
				done = 1;
			}
		}
		printf("scribbled: %d\n", done);
	} else if (strcmp(cmd, "aimed") == 0 && argc == 5) {
		/* aimed P T N: P processes x T threads x N pairs of getrandom
		 * calls, one of 1 byte and one of 2; prints how many failed
		 * with EAGAIN and EINTR, and how many failed the other way */
		int p = atoi(argv[2]), fds[2];
		long got[3], total[3] = { 0, 0, 0 };

		if (pipe(fds) != 0)
			return 2;
		for (int i = 0; i < p; i++) {
			if (fork() == 0) {
				aimed_threads(atoi(argv[3]), atol(argv[4]), got);
				if (write(fds[1], got, sizeof(got)) != sizeof(got))
					_exit(2);
				_exit(0);
			}
		}
		close(fds[1]);
		while (read(fds[0], got, sizeof(got)) == sizeof(got))
			for (int k = 0; k < 3; k++)
				total[k] += got[k];
		while (wait(NULL) > 0)
			;
		printf("eagain %ld eintr %ld wrong %ld\n", total[0], total[1], total[2]);
	} else if (strcmp(cmd, "exec-bad") == 0) {
		/* an exec given a bad pointer fails with EFAULT, as without the shim */
		char *args[] = { "x", NULL };
		/* volatile: the compiler must not see through them */
		const char *volatile badpath = (const char *)16;
		char **volatile badenv = (char **)16;

		execve(badpath, args, environ);
		printf("execve: %s\n", strerrorname_np(errno));
		execve("/bin/true", args, badenv);
		printf("execve env: %s\n", strerrorname_np(errno));
	} else if (strcmp(cmd, "exec-null-env") == 0 && argc == 3) {
		/* execve(..., NULL): the program starts with no environment */
		char *args[] = { argv[2], NULL };

		execve(argv[2], args, NULL);
		printf("execve: %s\n", strerrorname_np(errno));
	} else if (strcmp(cmd, "fopen64") == 0 && argc == 3) {
		/* an alias (fopen64) whose arguments will_call_real replaces */
		char line[256] = "";
		FILE *f = fopen64(argv[2], "r");

		if (!f || !fgets(line, sizeof(line), f))
			printf("fopen64: %s\n", strerror(errno));
		else
			printf("fopen64: %s", line);
		if (f)
			fclose(f);
	} else if (strcmp(cmd, "attack-spec") == 0) {
		/* every way a program could change the sealed spec, or shrink
		 * the state, from the descriptors it inherits: each must fail */
		const char *v = getenv("MOCKSHIM_CHANNEL_FD");
		int sfd = v ? atoi(v) : -1, tfd = v && strchr(v, ',') ? atoi(strchr(v, ',') + 1) : -1;
		FILE *maps = fopen("/proc/self/maps", "r");
		char line[512];
		void *spec = NULL;
		struct stat sb;

#define SAY(what, ok) printf("%s: %s\n", what, (ok) ? "succeeded" : strerrorname_np(errno))
		SAY("write", write(sfd, "x", 1) == 1);
		SAY("ftruncate", ftruncate(sfd, 0) == 0);
		fstat(sfd, &sb);
		SAY("mmap-write", mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0) != MAP_FAILED);
		while (maps && fgets(line, sizeof(line), maps)) {
			unsigned long lo, hi;

			if (strstr(line, "memfd:mockshim-spec") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
				spec = (void *)lo;
		}
		SAY("mprotect", spec && mprotect(spec, 4096, PROT_READ | PROT_WRITE) == 0);
		SAY("state-ftruncate", ftruncate(tfd, 0) == 0);
		SAY("seal-state", fcntl(tfd, F_ADD_SEALS, F_SEAL_WRITE) == 0);
#undef SAY
		printf("getuid: %u\n", getuid());
	} else if (strcmp(cmd, "vfork") == 0) {
		/* a vfork child that calls getuid before it exits */
		pid_t pid = vfork();

		if (pid == 0) {
			(void)getuid();
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		printf("parent %u\n", getuid());
	} else if (strcmp(cmd, "tracepids") == 0) {
		/* getuid in this process, a fork child, a vfork child, and
		 * this process again; each pid on stdout, for --trace's lines */
		pid_t pid;

		printf("self %d\n", (int)getpid());
		(void)getuid();
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			(void)getuid();
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		printf("fork %d\n", (int)pid);
		pid = vfork();
		if (pid == 0) {
			(void)getuid();
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		printf("vfork %d\n", (int)pid);
		(void)getuid();
		(void)getuid();
	} else if (strcmp(cmd, "sigloop") == 0 && argc == 3) {
		/* the mocked path from a signal handler: SIGALRM every 100us
		 * calls getuid while the main loop calls it too */
		struct sigaction sa;
		struct itimerval it = { { 0, 100 }, { 0, 100 } };
		long n = atol(argv[2]), bad = 0;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		for (long i = 0; i < n; i++)
			bad += getuid() != 4242;
		it.it_value.tv_usec = it.it_interval.tv_usec = 0;
		setitimer(ITIMER_REAL, &it, NULL);
		printf("main %ld bad, handler %ld calls %ld bad\n", bad, (long)handler_calls,
		       (long)handler_bad);
	} else if (strcmp(cmd, "spawners") == 0 && argc == 3) {
		/* spawners PROBE: posix_spawn, system and popen each start
		 * "PROBE getuid 1"; then this process calls getuid itself */
		extern char **environ;
		char *args[] = { argv[2], "getuid", "1", NULL };
		char cmdline[4096], line[64];
		pid_t pid;
		FILE *p;

		if (posix_spawn(&pid, argv[2], NULL, NULL, args, environ) != 0)
			return 2;
		waitpid(pid, NULL, 0);
		fflush(stdout);
		snprintf(cmdline, sizeof(cmdline), "'%s' getuid 1", argv[2]);
		if (system(cmdline) != 0)
			return 2;
		p = popen(cmdline, "r");
		if (!p || !fgets(line, sizeof(line), p))
			return 2;
		pclose(p);
		printf("popen: %s", line);
		printf("self: %u\n", getuid());
	} else if (strcmp(cmd, "dlopen") == 0 && argc == 4) {
		/* dlopen LIB PATH: a library loaded late reads through the shim */
		void *h = dlopen(argv[2], RTLD_NOW);
		long (*read_first)(const char *, char *, long);
		char buf[16] = "";
		long n;

		if (!h)
			return 2;
		*(void **)&read_first = dlsym(h, "read_first");
		n = read_first(argv[3], buf, sizeof(buf) - 1);
		printf("read_first: %ld [%s]\n", n, n > 0 ? buf : "");
	} else if ((strcmp(cmd, "fromalt") == 0 || strcmp(cmd, "sigfrom") == 0) && argc == 4) {
		/* fromalt LIB N: N reads of /dev/zero by this program and N by
		 * LIB's read_first, alternating; sigfrom LIB N: N reads here
		 * while SIGALRM makes LIB read.  Under a from="liblate.so" rule
		 * that fails read, only LIB's reads must fail. */
		void *h = dlopen(argv[2], RTLD_NOW);
		long n = atol(argv[3]), own_bad = 0, lib_bad = 0;
		int fd = open("/dev/zero", O_RDONLY);
		char c;

		if (!h || fd < 0)
			return 2;
		*(void **)&late_read = dlsym(h, "read_first");
		if (cmd[0] == 'f') {
			for (long i = 0; i < n; i++) {
				own_bad += read(fd, &c, 1) != 1;
				lib_bad += late_read("/dev/zero", &c, 1) != -1;
			}
			printf("own %ld bad, lib %ld bad\n", own_bad, lib_bad);
		} else {
			struct sigaction sa;
			struct itimerval it = { { 0, 200 }, { 0, 200 } };

			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = on_alarm_late;
			sa.sa_flags = SA_RESTART;
			sigaction(SIGALRM, &sa, NULL);
			setitimer(ITIMER_REAL, &it, NULL);
			for (long i = 0; i < n; i++)
				own_bad += read(fd, &c, 1) != 1;
			it.it_value.tv_usec = it.it_interval.tv_usec = 0;
			setitimer(ITIMER_REAL, &it, NULL);
			printf("own %ld bad, handler %ld calls %ld bad\n", own_bad, (long)late_calls,
			       (long)late_bad);
		}
	} else if (strcmp(cmd, "lane-hold") == 0 && argc == 4) {
		/* lane-hold N VALUE: a thread calls getpid twice (its second
		 * call takes a batch of a long queue's turns into its lane),
		 * then waits while main calls getpid N times: main must get
		 * the turns the waiting thread holds once the count is taken */
		struct count_arg held = { 2, atoi(argv[3]), 0 };
		pthread_t th;
		long main_hits;

		pthread_create(&th, NULL, count_getpid, &held);
		pthread_join(th, NULL);
		main_hits = run_threads(1, atol(argv[2]), atoi(argv[3]));
		printf("thread %ld main %ld\n", held.hits, main_hits);
	} else if (strcmp(cmd, "lane-killed") == 0 && argc == 4) {
		/* lane-killed N VALUE: a child calls getpid twice, then is
		 * killed holding the rest of its batch; then main calls it N
		 * times */
		int fds[2], status;
		long child_hits = 0, main_hits;
		pid_t pid;

		if (pipe(fds) != 0)
			return 2;
		pid = fork();
		if (pid == 0) {
			child_hits = run_threads(1, 2, atoi(argv[3]));
			if (write(fds[1], &child_hits, sizeof(child_hits)) != sizeof(child_hits))
				_exit(2);
			raise(SIGKILL);
		}
		close(fds[1]);
		if (read(fds[0], &child_hits, sizeof(child_hits)) != sizeof(child_hits))
			return 2;
		waitpid(pid, &status, 0);
		main_hits = run_threads(1, atol(argv[2]), atoi(argv[3]));
		printf("child %ld %s, main %ld\n", child_hits,
		       WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? "killed" : "not killed",
		       main_hits);
	} else if (strcmp(cmd, "thread-exit") == 0) {
		/* a thread ends the process with _exit(3) while main waits */
		pthread_t th;

		printf("uid %u\n", getuid());
		fflush(stdout);
		pthread_create(&th, NULL, exit_thread, NULL);
		pause();
		return 0;
	} else if (strcmp(cmd, "badptr") == 0) {
		/* a pointer the program should never pass: the checks must cope */
		int fd = open((const char *)16, O_RDONLY);

		printf("open: %d %s\n", fd, ename(errno));
	} else if (strcmp(cmd, "nullptr") == 0) {
		/* a NULL string: the kernel says EFAULT, the checks say NULL */
		const char *volatile path = NULL;
		int fd = open(path, O_RDONLY);

		printf("open: %d %s\n", fd, ename(errno));
	} else if (strcmp(cmd, "edgeptr") == 0) {
		/* a string that runs into an unmapped page without a NUL */
		char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int fd;

		if (p == MAP_FAILED || mprotect(p + 4096, 4096, PROT_NONE) != 0)
			return 2;
		memset(p, 'a', 4096);
		fd = open(p + 4096 - 10, O_RDONLY);
		printf("open: %d %s\n", fd, ename(errno));
	} else if (strcmp(cmd, "order") == 0) {
		/* getuid, geteuid, getgid, getegid: in this order */
		uid_t u = getuid(), eu = geteuid();
		gid_t g = getgid(), eg = getegid();

		printf("%u %u %u %u\n", u, eu, g, eg);
	} else if (strcmp(cmd, "clockloop") == 0 && argc == 3) {
		struct timespec ts;

		for (long i = 0, n = atol(argv[2]); i < n; i++)
			clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("done\n");
	} else if (strcmp(cmd, "write") == 0 && argc == 3) {
		ssize_t r = write(1, argv[2], strlen(argv[2]));

		printf("\nwrite: %zd\n", r);
	} else if (strcmp(cmd, "signal") == 0 && argc == 3) {
		raise(atoi(argv[2]));
		return 0;
	} else if (strcmp(cmd, "exit") == 0 && argc == 3) {
		return atoi(argv[2]);
	} else if (strcmp(cmd, "daemon") == 0 && argc == 4) {
		/* daemon MS PATH: leaves a grandchild in its own session that
		 * creates PATH after MS milliseconds */
		if (fork() == 0) {
			setsid();
			if (fork() == 0) {
				usleep((useconds_t)atoi(argv[2]) * 1000);
				close(open(argv[3], O_CREAT | O_WRONLY, 0644));
				_exit(0);
			}
			_exit(0);
		}
		wait(NULL);
		printf("parent done\n");
	} else {
		fprintf(stderr, "probe: unknown command\n");
		return 2;
	}
	return 0;
}
