/* SPDX-License-Identifier: MIT */
/*
 * Waits on a deadline the way a program does, and prints how long the
 * wait really took (CLOCK_MONOTONIC by the system call, which no preload
 * sees): clockprobe abstime|cond|cond-mono|cond-shared|sem|timerfd|timerfd-rel
 * SECONDS.  The deadline is SECONDS after what clock_gettime(CLOCK_REALTIME)
 * says (CLOCK_MONOTONIC for cond-mono, a condition variable on that clock;
 * cond-shared is a process-shared one on CLOCK_REALTIME).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static double mono(void)
{
	struct timespec t;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static struct timespec deadline(clockid_t c, double secs)
{
	struct timespec t;

	clock_gettime(c, &t);
	t.tv_sec += (time_t)secs;
	t.tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

int main(int argc, char **argv)
{
	double secs, start;
	struct timespec d;
	int r = 0;

	if (argc != 3)
		return 2;
	secs = atof(argv[2]);
	d = deadline(strcmp(argv[1], "cond-mono") == 0 ? CLOCK_MONOTONIC : CLOCK_REALTIME, secs);
	start = mono();
	if (strcmp(argv[1], "abstime") == 0) {
		r = clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &d, NULL);
	} else if (strncmp(argv[1], "cond", 4) == 0) {
		pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
		pthread_condattr_t a;
		pthread_cond_t c;

		pthread_condattr_init(&a);
		if (strcmp(argv[1], "cond-mono") == 0)
			pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
		else if (strcmp(argv[1], "cond-shared") == 0)
			pthread_condattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
		else if (strcmp(argv[1], "cond") != 0)
			return 2;
		pthread_cond_init(&c, &a);
		pthread_mutex_lock(&m);
		r = pthread_cond_timedwait(&c, &m, &d);
		r = r == ETIMEDOUT ? 0 : r ? r : -1;
	} else if (strcmp(argv[1], "sem") == 0) {
		sem_t s;

		sem_init(&s, 0, 0);
		r = sem_timedwait(&s, &d) == -1 && errno == ETIMEDOUT ? 0 : -1;
	} else if (strcmp(argv[1], "timerfd") == 0 || strcmp(argv[1], "timerfd-rel") == 0) {
		int fd = timerfd_create(CLOCK_REALTIME, 0), rel = argv[1][7] == '-';
		struct itimerspec v = { { 0, 0 }, d };
		uint64_t n;

		if (rel) {
			v.it_value.tv_sec = (time_t)secs;
			v.it_value.tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9);
		}
		if (fd < 0 || timerfd_settime(fd, rel ? 0 : TFD_TIMER_ABSTIME, &v, NULL) != 0 ||
		    read(fd, &n, sizeof(n)) != sizeof(n))
			r = -1;
	} else {
		return 2;
	}
	printf("%s %.2f\n", r == 0 ? "ok" : "error", mono() - start);
	return r != 0;
}
