/* SPDX-License-Identifier: MIT */
/*
 * Live control (mockrun --control, mockrun ctl): a unix socket mockrun
 * serves from its run loop (control.c), and the client (ctl.c).  One
 * request per connection: a line "mockshim-ctl 1\tVERB\tARG...\n"; the
 * reply is a line "mockshim-ctl 1 ok|error|timeout\n" and a body.
 */
#ifndef MS_CONTROL_H
#define MS_CONTROL_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

#define MS_CONTROL_ENV "MOCKSHIM_CONTROL"
/* the first word of every request and reply, and a request's longest
 * line (-e and -f text escaped in it) */
#define MS_CTL_PROTO "mockshim-ctl 1"
#define MS_CTL_MAX_REQUEST 65536
/* pollfds a control socket may want: the listener, its clients and the
 * hold watcher's pipe */
#define MS_CONTROL_POLLFDS 18

struct mockshim_session;
struct ms_control;

/* Listens at path (NULL: control in a private directory under $TMPDIR)
 * and starts the process that removes the socket if mockrun dies; NULL
 * with the reason in err. */
struct ms_control *ms_control_open(const char *path, char *err, size_t cap);
const char *ms_control_path(const struct ms_control *c);
/* The descriptors to poll into pfd (at most MS_CONTROL_POLLFDS); how
 * many.  The milliseconds the loop may sleep at most, or -1. */
size_t ms_control_pollfds(struct ms_control *c, struct pollfd *pfd);
int ms_control_wait_ms(const struct ms_control *c);
/* Accepts, reads and answers after poll() filled pfd[0 .. n). */
void ms_control_serve(struct ms_control *c, const struct pollfd *pfd, size_t n,
		      struct mockshim_session *s);
/* The run is over (the state is still mapped): answers what waits. */
void ms_control_finish(struct ms_control *c, struct mockshim_session *s);
/* Closes every connection, removes the socket (and its directory); the
 * process that removes them keeps how the run ended for a few seconds,
 * for a --wait-exit that comes late, at ms_control_ended_name(). */
void ms_control_close(struct ms_control *c);
/* The abstract socket where a run's end is kept, for the socket path:
 * 0, or -1. */
int ms_control_ended_name(const char *path, struct sockaddr_un *a, socklen_t *len);

/* ms of CLOCK_MONOTONIC: the deadlines of waits, on both sides */
static inline int64_t ms_mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* mockrun ctl SOCKET ACTION... (ctl.c): the exit status. */
int ms_ctl_main(int argc, char **argv);

#endif
