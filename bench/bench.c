/* SPDX-License-Identifier: MIT */
/*
 * bench: an unmodified program (it knows nothing of mockshim) that calls
 * one libc function in a loop, through the PLT, and prints the cost per
 * call.  run.py runs it plain, under libmockshim.so, under mockrun and
 * under the peers, and compares.
 *
 *	bench OP N [REPS [WARMUP]]
 *				OP: read clock getpid getppid getuid malloc
 *				socket getaddrinfo decl decl_dbl floor_const
 *				floor_queue floor_int floor_read floor_clock
 *				none; N calls, REPS
 *				(default 3: the fastest is printed), after
 *				WARMUP calls (default 64)
 *	bench threads-shared T N	T threads call getpid N times each
 *	bench threads-unrelated T N	thread i calls getpid, getuid, getgid
 *					or geteuid (i mod 4) N times
 *	bench rss		prints the memory line only
 *
 * Output: one line of key=value pairs, e.g.
 *	op=read n=200000 reps=3 ns=95.31 errors=0 rss_kb=1532 shmem_kb=0
 * ns is nanoseconds per call (per loop iteration: malloc+free,
 * socket+close, getaddrinfo+freeaddrinfo are pairs); for the threads
 * modes it is each thread's CPU time per call, averaged over the
 * threads, and wall_ns the wall time per call of one thread.
 *
 * The program's own bookkeeping (timing, /proc/self/status, output) uses
 * raw syscalls, never the functions being measured, so that a mocked
 * clock_gettime, read or malloc cannot disturb it.  Each measured loop is
 * a noinline function named loop_OP (the warm-up runs a copy, warm_OP):
 * run.py counts instructions with valgrind --tool=callgrind
 * --toggle-collect='loop_*', which leaves out start-up, the warm-up (the
 * first calls bind symbols) and the timing.
 * Build with -fno-builtin (meson does), so that malloc+free stays.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "floor.h"

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif
#define BENCH_FD 100		/* /dev/zero for the read loop */
#define WARMUP 64

/* Results go through here, so that no call can be proven useless. */
/* per thread: one variable written by every thread's loop would make the
 * threads modes measure its cache line going back and forth */
static __thread volatile long sink;
static long errors;

/* ---- bookkeeping, by raw syscalls ---- */

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void out(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = (int)sizeof(buf) - 1;
	if (n > 0)
		syscall(SYS_write, 1, buf, (size_t)n);
}

static void die(const char *msg)
{
	syscall(SYS_write, 2, "bench: ", 7);
	syscall(SYS_write, 2, msg, strlen(msg));
	syscall(SYS_write, 2, "\n", 1);
	syscall(SYS_exit_group, 2);
	__builtin_unreachable();
}

/* A field of /proc/self/status in kB, -1 when absent. */
static long status_kb(const char *status, const char *key)
{
	const char *p = strstr(status, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static void print_memory(void)
{
	static char status[8192];
	long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);
	long n = 0, k;

	if (fd < 0)
		die("cannot open /proc/self/status");
	while (n < (long)sizeof(status) - 1 &&
	       (k = syscall(SYS_read, fd, status + n, sizeof(status) - 1 - (size_t)n)) > 0)
		n += k;
	syscall(SYS_close, fd);
	status[n] = '\0';
	out(" rss_kb=%ld anon_kb=%ld file_kb=%ld shmem_kb=%ld\n", status_kb(status, "\nVmRSS:"),
	    status_kb(status, "\nRssAnon:"), status_kb(status, "\nRssFile:"),
	    status_kb(status, "\nRssShmem:"));
}

/* ---- the measured loops: one call (or pair) per iteration ---- */

/*
 * Each loop exists twice: loop_NAME, measured (and the only code callgrind
 * counts), and warm_NAME, the same body for the warm-up, so that binding
 * the PLT slot and the shim's real pointer on the first calls stays out.
 */
#define LOOP(name, ...)                                 \
	static NOINLINE void loop_##name(long n)        \
	{                                               \
		__VA_ARGS__                             \
	}                                               \
	static NOINLINE void warm_##name(long n)        \
	{                                               \
		__VA_ARGS__                             \
	}

LOOP(read,
	char c;

	for (long i = 0; i < n; i++)
		if (read(BENCH_FD, &c, 1) != 1)
			errors++;
)

LOOP(clock,
	struct timespec ts;

	for (long i = 0; i < n; i++) {
		if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
			errors++;
		sink = ts.tv_nsec;
	}
)

LOOP(getpid,
	for (long i = 0; i < n; i++)
		sink = getpid();
)

LOOP(getppid,
	for (long i = 0; i < n; i++)
		sink = getppid();
)

LOOP(getuid,
	for (long i = 0; i < n; i++)
		sink = (long)getuid();
)

LOOP(getgid,
	for (long i = 0; i < n; i++)
		sink = (long)getgid();
)

LOOP(geteuid,
	for (long i = 0; i < n; i++)
		sink = (long)geteuid();
)

LOOP(malloc,
	for (long i = 0; i < n; i++) {
		void *p = malloc(32);

		sink = (long)(uintptr_t)p;
		free(p);
	}
)

/* strdup+free: the malloc inside is libc's call on the program's behalf
 * (a call site at= finds by unwinding past libc) */
LOOP(strdup,
	for (long i = 0; i < n; i++) {
		char *p = strdup("a string to copy");

		sink = (long)(uintptr_t)p;
		free(p);
	}
)

LOOP(socket,
	for (long i = 0; i < n; i++) {
		int fd = socket(AF_INET, SOCK_DGRAM, 0);

		if (fd < 0)
			errors++;
		else
			close(fd);
	}
)

LOOP(getaddrinfo,
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };

	for (long i = 0; i < n; i++) {
		struct addrinfo *res = NULL;

		if (getaddrinfo("localhost", NULL, &hints, &res) != 0 || !res)
			errors++;
		else
			freeaddrinfo(res);
	}
)

/* a library function outside the catalog (bench/decl.c): a declared
 * prototype's stub */
int msb_add(int a, int b);
double msb_scale(double x, int k);

LOOP(decl,
	for (long i = 0; i < n; i++)
		sink = msb_add((int)i, 1);
)

LOOP(decl_dbl,
	for (long i = 0; i < n; i++)
		sink = (long)msb_scale(0.5, (int)i);
)

/* the floor (bench/floor.c): a hand-written stub returning a constant,
 * one taking values from a queue, each through the PLT */
LOOP(floor_const,
	for (long i = 0; i < n; i++)
		sink = msb_floor_const();
)

/* ... and a constant stub at the call sites of getpid, read and clock */
LOOP(floor_int,
	for (long i = 0; i < n; i++)
		sink = msb_floor_int();
)

LOOP(floor_read,
	char c;

	for (long i = 0; i < n; i++)
		if (msb_floor_read(BENCH_FD, &c, 1) != 1)
			errors++;
)

LOOP(floor_clock,
	struct timespec ts = { 0, 0 };

	for (long i = 0; i < n; i++) {
		if (msb_floor_clock(CLOCK_REALTIME, &ts) != 0)
			errors++;
		sink = ts.tv_nsec;
	}
)

LOOP(floor_queue,
	for (long i = 0; i < n; i++)
		sink = msb_floor_queue();
)

LOOP(none,
	for (long i = 0; i < n; i++)
		sink = i;
)

/* The floor of any count that threads share exactly: one atomic add on
 * one cache line a call, no mock (threads-atomic). */
static uint32_t shared_count __attribute__((aligned(64)));
LOOP(atomic,
	for (long i = 0; i < n; i++)
		__atomic_fetch_add(&shared_count, 1, __ATOMIC_RELAXED);
)

struct op {
	const char *name;
	void (*loop)(long n);
	void (*warm)(long n);
};

#define OP(name) { #name, loop_##name, warm_##name }

static const struct op ops[] = {
	OP(read), OP(clock), OP(getpid), OP(getppid), OP(getuid), OP(malloc), OP(strdup), OP(socket),
	OP(getaddrinfo), OP(decl), OP(decl_dbl), OP(floor_const), OP(floor_queue), OP(floor_int),
	OP(floor_read), OP(floor_clock), OP(none),
};

/* ---- threads ---- */

struct worker {
	pthread_t th;
	const struct op *op;
	long n;
	int64_t cpu_ns, wall_ns;
};

static pthread_barrier_t start;

static void *work(void *p)
{
	struct worker *w = p;
	int64_t c0, t0;

	w->op->warm(WARMUP);
	pthread_barrier_wait(&start);
	t0 = now_ns(CLOCK_MONOTONIC);
	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	w->op->loop(w->n);
	w->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	w->wall_ns = now_ns(CLOCK_MONOTONIC) - t0;
	return NULL;
}

static int run_threads(const char *mode, int nthreads, long n)
{
	static const struct op unrelated[] = {
		OP(getpid), OP(getuid), OP(getgid), OP(geteuid),
	};
	static const struct op atomic = OP(atomic);
	struct worker w[64];
	double cpu = 0, wall = 0;
	int shared = strcmp(mode, "threads-shared") == 0;
	int floor = strcmp(mode, "threads-atomic") == 0;

	if (!shared && !floor && strcmp(mode, "threads-unrelated") != 0)
		die("unknown threads mode");
	if (nthreads < 1 || nthreads > 64)
		die("threads: 1 to 64");
	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (int i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .op = floor ? &atomic : &unrelated[shared ? 0 : i % 4], .n = n };
		if (pthread_create(&w[i].th, NULL, work, &w[i]) != 0)
			die("pthread_create failed");
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(w[i].th, NULL);
		cpu += (double)w[i].cpu_ns / (double)n;
		wall += (double)w[i].wall_ns / (double)n;
	}
	out("op=%s threads=%d n=%ld ns=%.2f wall_ns=%.2f errors=0", mode, nthreads, n,
	    cpu / nthreads, wall / nthreads);
	print_memory();
	return 0;
}

/* ---- main ---- */

static void open_zero(void)
{
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || dup2(fd, BENCH_FD) != BENCH_FD)
		die("cannot open /dev/zero");
	close(fd);
}

int main(int argc, char **argv)
{
	const struct op *op = NULL;
	double best = -1;
	long n, reps = 3, warmup = WARMUP;

	if (argc == 2 && strcmp(argv[1], "rss") == 0) {
		out("op=rss");
		print_memory();
		return 0;
	}
	if (argc == 4 && strncmp(argv[1], "threads-", 8) == 0)
		return run_threads(argv[1], atoi(argv[2]), atol(argv[3]));
	if (argc < 3 || argc > 5)
		die("usage: bench OP N [REPS [WARMUP]] | bench threads-shared|threads-unrelated|threads-atomic T N | "
		    "bench rss");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(ops[i].name, argv[1]) == 0)
			op = &ops[i];
	if (!op)
		die("unknown OP: read clock getpid getuid malloc strdup socket getaddrinfo decl decl_dbl "
		    "floor_const floor_queue floor_int floor_read floor_clock none");
	n = atol(argv[2]);
	if (argc >= 4)
		reps = atol(argv[3]);
	if (argc >= 5)
		warmup = atol(argv[4]);
	if (n < 1 || reps < 1 || warmup < 0)
		die("N and REPS must be positive, WARMUP not negative");
	if (op->loop == loop_read)
		open_zero();
	if (op->loop == loop_floor_queue)
		msb_floor_fill((unsigned long)(n * reps + warmup), 42);

	op->warm(warmup);
	for (long r = 0; r < reps; r++) {
		int64_t t0 = now_ns(CLOCK_MONOTONIC), t;

		op->loop(n);
		t = now_ns(CLOCK_MONOTONIC) - t0;
		if (best < 0 || (double)t / (double)n < best)
			best = (double)t / (double)n;
	}
	out("op=%s n=%ld reps=%ld ns=%.2f errors=%ld", op->name, n, reps, best, errors);
	print_memory();
	return 0;
}
