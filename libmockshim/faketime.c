/* SPDX-License-Identifier: MIT */
/*
 * fake_time(WHEN, rate=R, clocks=..., stat=BOOL, in=GLOB): the clocks a
 * process reads start at WHEN and run at rate R; sleeps and timeouts
 * measured on a faked clock take 1/R of the real time; with stat=true,
 * file times move with the wall clock.
 *
 * The anchor (each clock's real time when the session started, the wall
 * clocks' offset, the rate) is in the state (struct ms_time_state), so
 * that every process of the tree agrees, whenever it started, and
 * mockrun ctl can move it.  A process picks its fake_time once, when it
 * attaches (in= names the executable, which only an exec changes), and
 * arms the functions of MS_TIMED_FNS with MS_ARM_TIME: their generated
 * trampolines call ms_time_call() for the real call, after the
 * statements (a will_return on clock_gettime answers first).
 *
 * The real functions are called through ms_real; the system calls that
 * read /proc are raw: nothing here enters a trampoline.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timeb.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "channel/channel.h"
#include "shim.h"
#include "catalog/catalog.h"

static const struct ms_ftime *ft;	/* this process's fake_time, or NULL */
static struct ms_time_state *ts;	/* its anchor */
static uint32_t ft_index;
static int logged;			/* this process announced its first read */

#define NS 1000000000ll
/* argument i of the canonical array a */
#define A(i, type) ((type)(uintptr_t)a[i])

void ms_time_setup(void)
{
	const struct ms_chan_hdr *h = ms_channel();

	__atomic_store_n(&ft, NULL, __ATOMIC_RELAXED);
	if (!h || !ms_state() || !h->nftimes)
		return;
	for (uint32_t i = 0; i < h->nftimes; i++) {
		if (ms_d.ftimes[i].in_glob && !ms_in_names(ms_chan_str(h, ms_d.ftimes[i].in_glob)))
			continue;
		ft_index = i;
		ts = &ms_d.times[i];
		__atomic_store_n(&ft, &ms_d.ftimes[i], __ATOMIC_RELEASE);
		return;
	}
}

int ms_time_any(void)
{
	return __atomic_load_n(&ft, __ATOMIC_ACQUIRE) != NULL;
}

uint8_t ms_time_arms(unsigned id)
{
	const struct ms_ftime *f = __atomic_load_n(&ft, __ATOMIC_ACQUIRE);

	if (!f)
		return 0;
	if (id == MS_ID_stat || id == MS_ID_fstat || id == MS_ID_lstat || id == MS_ID_fstatat ||
	    id == MS_ID_statx)
		return f->flags & MS_FT_STAT ? MS_ARM_TIME : 0;
	switch (id) {
#define X(name) case MS_ID_##name:
	MS_TIMED_FNS(X)
#undef X
		return MS_ARM_TIME;
	default:
		return 0;
	}
}

static void forget_anchor(void);

void ms_time_forked(void)
{
	__atomic_store_n(&logged, 0, __ATOMIC_RELAXED);
	/* the child's one thread refills, and so logs its first read */
	forget_anchor();
}

/* ---- time values ---- */

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * NS + t->tv_nsec;
}

static struct timespec ns_ts(int64_t ns)
{
	struct timespec t;

	t.tv_sec = (time_t)(ns / NS);
	t.tv_nsec = (long)(ns % NS);
	if (t.tv_nsec < 0) {
		t.tv_sec--;
		t.tv_nsec += NS;
	}
	return t;
}

/* A file's time in ns, stopped at the ends (a file may say 2300). */
static int64_t ts_ns_sat(const struct timespec *t)
{
	if (t->tv_sec > INT64_MAX / NS - 1)
		return INT64_MAX;
	if (t->tv_sec < INT64_MIN / NS + 1)
		return INT64_MIN;
	return ts_ns(t);
}

static int ts_valid(const struct timespec *t)
{
	return t->tv_sec >= 0 && t->tv_nsec >= 0 && t->tv_nsec < NS;
}

/* A process's first read of its fake clock, in the event log. */
static __attribute__((noinline, cold)) void log_first_read(unsigned id)
{
	struct ms_event *e;

	if (__atomic_exchange_n(&logged, 1, __ATOMIC_RELAXED))
		return;
	e = ms_ev_begin(MS_EV_TIME, id, ft_index, 0);
	if (e) {
		const char *n = ms_exe_name();
		size_t k = 0;

		for (; n[k] && k < MS_EV_TEXT - 1; k++)
			e->text[k] = n[k];
		e->text[k] = '\0';
		ms_ev_commit(e);
	}
}

/* A read of a faked clock: counted, and each process's first one logged. */
static inline void count_read(unsigned id)
{
	__atomic_fetch_add(&ts->reads, 1, __ATOMIC_RELAXED);
	if (ms_unlikely(!__atomic_load_n(&logged, __ATOMIC_RELAXED)))
		log_first_read(id);
}

/* Slot k's real time t as the fake clock shows it, if k is faked. */
static int64_t shift(unsigned k, int64_t t)
{
	struct ms_time_now n;

	ms_time_read(ts, &n);
	return ms_time_fake(&n, k, t);
}

/* Whether slot k is faked for this call: never for the shim's own calls
 * (under the guard), which see the real clock. */
static int faked(int k)
{
	const struct ms_ftime *f = __atomic_load_n(&ft, __ATOMIC_ACQUIRE);

	return k >= 0 && f && !ms_guard && (f->clocks >> k & 1);
}

/* The real time a wait of d ns on a clock running at n->rate takes. */
static int64_t real_span(const struct ms_time_now *n, int64_t d)
{
	double r = (double)d / n->rate;

	return r > 9e18 ? INT64_MAX : (int64_t)r;
}

/* Whether waits measured on slot k scale now (faked, rate > 0, not 1);
 * *n then holds the anchor. */
static int scales(int k, struct ms_time_now *n)
{
	if (!faked(k))
		return 0;
	ms_time_read(ts, n);
	if (n->rate > 0 && n->rate != 1.0) {
		__atomic_fetch_add(&ts->sleeps, 1, __ATOMIC_RELAXED);
		return 1;
	}
	return 0;
}

static int64_t real_now(clockid_t c)
{
	struct timespec t = { 0, 0 };

	ms_real.clock_gettime.fn(c, &t);
	return ts_ns(&t);
}

/* The real deadline on clock c (slot k, faked) of fake deadline d. */
static struct timespec real_deadline(clockid_t c, int k, int64_t d)
{
	struct ms_time_now n;
	int64_t now;

	ms_time_read(ts, &n);
	__atomic_fetch_add(&ts->sleeps, 1, __ATOMIC_RELAXED);
	if (n.rate > 0)
		return ns_ts(ms_sat_add(n.r0[k], real_span(&n, ms_sat_sub(d, ms_time_start(&n, k)))));
	/* a frozen clock: what is left of the wait, in real time */
	now = real_now(c);
	return ns_ts(ms_sat_add(now, ms_sat_sub(d, ms_time_fake(&n, k, now))));
}

/* A relative wait of *t scaled to real time, into *out. */
static const struct timespec *scaled_ts(const struct timespec *t, struct timespec *out)
{
	struct ms_time_now n;

	if (!t || !ts_valid(t) || !scales(MS_TC_MONOTONIC, &n))
		return t;
	*out = ns_ts(real_span(&n, ts_ns(t)));
	return out;
}

/* A timeout in ms (negative: none) scaled, rounded up. */
static int scaled_ms(int ms)
{
	struct ms_time_now n;
	int64_t r;

	if (ms <= 0 || !scales(MS_TC_MONOTONIC, &n))
		return ms;
	r = real_span(&n, (int64_t)ms * 1000000);
	return (int)((r + 999999) / 1000000);
}

/* What is left of a scaled wait, back in the program's time. */
static void unscale_ts(struct timespec *t)
{
	struct ms_time_now n;

	if (!t)
		return;
	ms_time_read(ts, &n);
	if (n.rate > 0 && n.rate != 1.0)
		*t = ns_ts((int64_t)((double)ts_ns(t) * n.rate));
}

static void scale_tv(struct timeval *tv, double by)
{
	int64_t us = (int64_t)((double)((int64_t)tv->tv_sec * 1000000 + tv->tv_usec) * by);

	tv->tv_sec = (time_t)(us / 1000000);
	tv->tv_usec = (suseconds_t)(us % 1000000);
}

/* A struct stat's or statx's times, moved with the wall clock. */
static void shift_stat_ts(struct timespec *t)
{
	*t = ns_ts(shift(MS_TC_REALTIME, ts_ns_sat(t)));
}

static void shift_statx_ts(struct statx_timestamp *t)
{
	struct timespec v = { (time_t)t->tv_sec, (long)t->tv_nsec };

	if (!ts_valid(&v))
		return;
	v = ns_ts(shift(MS_TC_REALTIME, ts_ns_sat(&v)));
	t->tv_sec = v.tv_sec;
	t->tv_nsec = (uint32_t)v.tv_nsec;
}

static void shift_stat(int r, struct stat *sb)
{
	if (r != 0 || !sb || !faked(MS_TC_REALTIME))
		return;
	shift_stat_ts(&sb->st_atim);
	shift_stat_ts(&sb->st_mtim);
	shift_stat_ts(&sb->st_ctim);
}

/* The clock of timerfd fd, from /proc/self/fdinfo (raw system calls). */
static clockid_t timerfd_clock(int fd)
{
	char path[48] = "/proc/self/fdinfo/", buf[256], *p;
	char digits[12];
	int n = 0, v = fd;
	long f, got;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < 11);
	for (p = path + strlen(path); n;)
		*p++ = digits[--n];
	*p = '\0';
	f = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	got = syscall(SYS_read, f, buf, sizeof(buf) - 1);
	syscall(SYS_close, f);
	if (got <= 0)
		return -1;
	buf[got] = '\0';
	p = strstr(buf, "clockid:");
	if (!p)
		return -1;
	for (p += 8; *p == ' ' || *p == '\t'; p++)
		;
	for (v = 0; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (*p - '0');
	return v;
}

/*
 * The hot path: clock_gettime on a faked clock, at the cost of a few
 * loads.  Each thread keeps the anchor it last read, with the seq it was
 * read under; one load of seq tells whether it is still current (mockrun
 * ctl moves the anchor by changing seq).
 */
struct anchor_cache {
	uint32_t seq;			/* the (even) seq it was read under; 0: none */
	uint32_t ids;			/* bit c: clockid_t c (< 12) is faked */
	uint32_t add;			/* of them, those off_s/off_ns shifts whole */
					/* (rate 1, the shift of CLOCK_REALTIME) */
	uint32_t relog;			/* read before the process logged its first */
	int64_t off_s, off_ns;		/* the wall clocks' shift, 0 <= off_ns < 1 s
					 * (in seconds it always fits) */
	struct ms_time_now n;
};

static __thread struct anchor_cache t_anchor __attribute__((tls_model("initial-exec")));

static void forget_anchor(void)
{
	t_anchor.seq = 0;
}

static __attribute__((noinline)) void refill(struct anchor_cache *c, uint32_t q)
{
	struct timespec f, r;

	ms_time_read(ts, &c->n);
	/* off itself may not fit in 64 bits (channel.h): its two ends do */
	f = ns_ts(ms_time_start(&c->n, MS_TC_REALTIME));
	r = ns_ts(c->n.r0[MS_TC_REALTIME]);
	c->off_s = (int64_t)f.tv_sec - r.tv_sec;
	c->off_ns = f.tv_nsec - r.tv_nsec;
	if (c->off_ns < 0) {
		c->off_ns += NS;
		c->off_s--;
	}
	c->ids = 0;
	for (long id = 0; id < 12; id++)
		if (ms_tclock_of(id) >= 0 && (ft->clocks >> ms_tclock_of(id) & 1))
			c->ids |= 1u << id;
	c->add = 0;
	/* until this process has logged its first read, every read takes
	 * clock_other, which logs; then it refills with the fast path */
	c->relog = !__atomic_load_n(&logged, __ATOMIC_RELAXED);
	for (long id = 0; id < 12 && c->n.rate == 1.0 && !c->relog; id++)
		if ((c->ids >> id & 1) && c->n.off[ms_tclock_of(id)] == c->n.off[MS_TC_REALTIME])
			c->add |= 1u << id;
	/* an odd seq (a move in progress) is read again next time; the
	 * anchor (ts) is the same for the whole process */
	c->seq = q & 1 ? 0 : q;
}

/* A time past an end of the range (channel.h) stopped there. */
static __attribute__((noinline, cold)) void clamp_ts(struct timespec *tp)
{
	if (tp->tv_sec > INT64_MAX / NS || (tp->tv_sec == INT64_MAX / NS && tp->tv_nsec > INT64_MAX % NS))
		*tp = ns_ts(INT64_MAX);
	else if (tp->tv_sec < INT64_MIN / NS - 1 ||
		 (tp->tv_sec == INT64_MIN / NS - 1 && tp->tv_nsec < NS + INT64_MIN % NS))
		*tp = ns_ts(INT64_MIN);
}

/* tp shifted by the wall clocks' whole offset, with the carry; one
 * compare sees the seconds near an end of the range. */
static inline void add_whole(struct timespec *tp, const struct anchor_cache *ac)
{
	tp->tv_sec += ac->off_s;
	tp->tv_nsec += ac->off_ns;
	if (tp->tv_nsec >= NS) {
		tp->tv_nsec -= NS;
		tp->tv_sec++;
	}
	if (ms_unlikely((uint64_t)tp->tv_sec + (uint64_t)(INT64_MAX / NS) >= (uint64_t)(2 * (INT64_MAX / NS))))
		clamp_ts(tp);
}

/* What ms_time_clock's fast path does not: an anchor to read, a clock
 * shifted by rate or by an offset of its own, a first read to log. */
static __attribute__((noinline)) int clock_other(clockid_t c, struct timespec *tp, uint32_t q)
{
	struct anchor_cache *ac = &t_anchor;

	if (ac->seq != q)
		refill(ac, q);
	if ((unsigned)c >= 12 || !(ac->ids >> c & 1))
		return 0;
	if (ac->add >> c & 1) {
		add_whole(tp, ac);
	} else {
		*tp = ns_ts(ms_time_fake(&ac->n, (unsigned)ms_tclock_of(c), ts_ns(tp)));
	}
	count_read(MS_ID_clock_gettime);
	if (ms_unlikely(ac->relog))
		ac->seq = 0;
	return 0;
}

/*
 * The common case stays in one frame: the real call, one load of the
 * anchor's seq against the thread's copy, the shift with its carry and
 * the count.  r is 0 past the first test, so nothing but tp and c lives
 * across the real call; a clockid_t past 11 or not faked returns as read.
 */
int ms_time_clock(clockid_t c, struct timespec *tp)
{
	struct ms_time_state *s;
	struct anchor_cache *ac;
	uint32_t q;
	int r = ms_real.clock_gettime.fn(c, tp);

	/* a 0 means tp was written (a NULL one faults or is EFAULT) */
	if (ms_unlikely(r != 0 || ms_guard))
		return r;
	s = ts;
	ac = &t_anchor;
	q = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	if (ms_likely(ac->seq == q && (unsigned)c < 12 && (ac->add >> c & 1))) {
		add_whole(tp, ac);
		__atomic_fetch_add(&s->reads, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (ms_unlikely(ac->seq != q) || ((unsigned)c < 12 && (ac->ids >> c & 1)))
		return clock_other(c, tp, q);
	return 0;
}

/* ---- the calls ---- */

static int64_t read_clock(unsigned id, const uint64_t *a)
{
	switch (id) {
	case MS_ID_clock_gettime: {
		struct timespec *tp = A(1, struct timespec *);
		int r = ms_real.clock_gettime.fn(A(0, clockid_t), tp);
		int k = ms_tclock_of((long)(clockid_t)a[0]);

		if (r == 0 && tp && faked(k)) {
			*tp = ns_ts(shift((unsigned)k, ts_ns(tp)));
			count_read(id);
		}
		return r;
	}
	case MS_ID_time: {
		time_t *tloc = A(0, time_t *), v;

		if (!faked(MS_TC_REALTIME))
			return ms_real.time.fn(tloc);
		v = ns_ts(shift(MS_TC_REALTIME, real_now(CLOCK_REALTIME))).tv_sec;
		count_read(id);
		if (tloc)
			*tloc = v;
		return v;
	}
	case MS_ID_gettimeofday: {
		struct timeval *tv = A(0, struct timeval *);
		int r = ms_real.gettimeofday.fn(tv, A(1, void *));

		if (r == 0 && tv && faked(MS_TC_REALTIME)) {
			struct timespec t = ns_ts(shift(MS_TC_REALTIME, (int64_t)tv->tv_sec * NS +
								 (int64_t)tv->tv_usec * 1000));

			tv->tv_sec = t.tv_sec;
			tv->tv_usec = (suseconds_t)(t.tv_nsec / 1000);
			count_read(id);
		}
		return r;
	}
	case MS_ID_ftime: {
		struct timeb *tb = A(0, struct timeb *);
		int r = ms_real.ftime.fn(tb);

		if (r == 0 && tb && faked(MS_TC_REALTIME)) {
			struct timespec t = ns_ts(shift(MS_TC_REALTIME, (int64_t)tb->time * NS +
								 (int64_t)tb->millitm * 1000000));

			tb->time = t.tv_sec;
			tb->millitm = (unsigned short)(t.tv_nsec / 1000000);
			count_read(id);
		}
		return r;
	}
	case MS_ID_timespec_get: {
		struct timespec *tp = A(0, struct timespec *);
		int r = ms_real.timespec_get.fn(tp, A(1, int));

		if (r == TIME_UTC && tp && faked(MS_TC_REALTIME)) {
			*tp = ns_ts(shift(MS_TC_REALTIME, ts_ns(tp)));
			count_read(id);
		}
		return r;
	}
	default:
		return -1;
	}
}

static int64_t wait_call(unsigned id, const uint64_t *a)
{
	struct ms_time_now n;
	struct timespec t;

	switch (id) {
	case MS_ID_nanosleep: {
		const struct timespec *req = A(0, const struct timespec *), *use = scaled_ts(req, &t);
		struct timespec *rem = A(1, struct timespec *);
		int r = ms_real.nanosleep.fn(use, rem);

		if (r != 0 && use != req && errno == EINTR) {
			int e = errno;

			unscale_ts(rem);
			errno = e;
		}
		return r;
	}
	case MS_ID_clock_nanosleep: {
		clockid_t c = A(0, clockid_t);
		int flags = A(1, int), k = ms_tclock_of((long)c), r;
		const struct timespec *req = A(2, const struct timespec *), *use = req;
		struct timespec *rem = A(3, struct timespec *);

		if (req && ts_valid(req) && faked(k)) {
			if (flags & TIMER_ABSTIME) {
				t = real_deadline(c, k, ts_ns(req));
				use = &t;
			} else if (scales(k, &n)) {
				t = ns_ts(real_span(&n, ts_ns(req)));
				use = &t;
			}
		}
		r = ms_real.clock_nanosleep.fn(c, flags, use, rem);
		if (r == EINTR && use != req && !(flags & TIMER_ABSTIME))
			unscale_ts(rem);
		return r;
	}
	case MS_ID_usleep: {
		useconds_t us = A(0, useconds_t);

		if (us && scales(MS_TC_MONOTONIC, &n))
			us = (useconds_t)((real_span(&n, (int64_t)us * 1000) + 999) / 1000);
		return ms_real.usleep.fn(us);
	}
	case MS_ID_sleep: {
		unsigned s = A(0, unsigned);
		struct timespec rem = { 0, 0 };

		if (!s || !scales(MS_TC_MONOTONIC, &n))
			return ms_real.sleep.fn(s);
		t = ns_ts(real_span(&n, (int64_t)s * NS));
		if (ms_real.nanosleep.fn(&t, &rem) == 0)
			return 0;
		return (unsigned)(((double)ts_ns(&rem) * n.rate + NS - 1) / NS);
	}
	case MS_ID_alarm: {
		unsigned s = A(0, unsigned);
		struct itimerval v = { { 0, 0 }, { 0, 0 } }, old;
		double left;

		if (!scales(MS_TC_MONOTONIC, &n))
			return ms_real.alarm.fn(s);
		v.it_value.tv_sec = s;
		scale_tv(&v.it_value, 1 / n.rate);
		if (s && !v.it_value.tv_sec && !v.it_value.tv_usec)
			v.it_value.tv_usec = 1;
		if (ms_real.setitimer.fn(ITIMER_REAL, &v, &old) != 0)
			return 0;
		left = ((double)old.it_value.tv_sec + old.it_value.tv_usec / 1e6) * n.rate;
		/* as glibc's alarm: rounded to the nearest second, a pending
		 * alarm never 0 */
		return left > 0 && left < 1 ? 1 : (unsigned)(left + 0.5);
	}
	case MS_ID_setitimer: {
		int which = A(0, int), r;
		const struct itimerval *nv = A(1, const struct itimerval *);
		struct itimerval *old = A(2, struct itimerval *), v;

		if (which != ITIMER_REAL || !nv || !scales(MS_TC_MONOTONIC, &n))
			return ms_real.setitimer.fn(which, nv, old);
		v = *nv;
		scale_tv(&v.it_value, 1 / n.rate);
		scale_tv(&v.it_interval, 1 / n.rate);
		r = ms_real.setitimer.fn(which, &v, old);
		if (r == 0 && old) {
			scale_tv(&old->it_value, n.rate);
			scale_tv(&old->it_interval, n.rate);
		}
		return r;
	}
	case MS_ID_poll:
		return ms_real.poll.fn(A(0, struct pollfd *), A(1, nfds_t), scaled_ms(A(2, int)));
	case MS_ID_epoll_wait:
		return ms_real.epoll_wait.fn(A(0, int), A(1, struct epoll_event *), A(2, int),
					     scaled_ms(A(3, int)));
	case MS_ID_epoll_pwait:
		return ms_real.epoll_pwait.fn(A(0, int), A(1, struct epoll_event *), A(2, int),
					      scaled_ms(A(3, int)), A(4, const sigset_t *));
	case MS_ID_ppoll:
		return ms_real.ppoll.fn(A(0, struct pollfd *), A(1, nfds_t),
					scaled_ts(A(2, const struct timespec *), &t),
					A(3, const sigset_t *));
	case MS_ID_pselect:
		return ms_real.pselect.fn(A(0, int), A(1, fd_set *), A(2, fd_set *), A(3, fd_set *),
					  scaled_ts(A(4, const struct timespec *), &t),
					  A(5, const sigset_t *));
	case MS_ID_select: {
		struct timeval *tv = A(4, struct timeval *), v;
		int r;

		if (!tv || tv->tv_sec < 0 || tv->tv_usec < 0 || !scales(MS_TC_MONOTONIC, &n))
			return ms_real.select.fn(A(0, int), A(1, fd_set *), A(2, fd_set *),
						 A(3, fd_set *), tv);
		v = *tv;
		scale_tv(&v, 1 / n.rate);
		r = ms_real.select.fn(A(0, int), A(1, fd_set *), A(2, fd_set *), A(3, fd_set *), &v);
		/* Linux leaves what is left of the timeout there */
		scale_tv(&v, n.rate);
		*tv = v;
		return r;
	}
	default:
		return -1;
	}
}

static int64_t deadline_call(unsigned id, const uint64_t *a)
{
	struct ms_time_now n;
	struct timespec t;

	switch (id) {
	case MS_ID_timerfd_settime: {
		int fd = A(0, int), flags = A(1, int), r;
		const struct itimerspec *nv = A(2, const struct itimerspec *);
		struct itimerspec *old = A(3, struct itimerspec *), v;
		clockid_t c;
		int k, sc;

		if (!nv || !ts_valid(&nv->it_value) || !ts_valid(&nv->it_interval) ||
		    (c = timerfd_clock(fd)) < 0 || !faked(k = ms_tclock_of((long)c)))
			return ms_real.timerfd_settime.fn(fd, flags, nv, old);
		v = *nv;
		sc = scales(k, &n);
		if ((flags & TFD_TIMER_ABSTIME) && (v.it_value.tv_sec || v.it_value.tv_nsec))
			v.it_value = real_deadline(c, k, ts_ns(&nv->it_value));
		else if (sc)
			v.it_value = ns_ts(real_span(&n, ts_ns(&nv->it_value)));
		if (sc)
			v.it_interval = ns_ts(real_span(&n, ts_ns(&nv->it_interval)));
		r = ms_real.timerfd_settime.fn(fd, flags, &v, old);
		if (r == 0 && old && sc) {
			unscale_ts(&old->it_value);
			unscale_ts(&old->it_interval);
		}
		return r;
	}
	case MS_ID_pthread_cond_timedwait: {
		pthread_cond_t *cv = A(0, pthread_cond_t *);
		const struct timespec *at = A(2, const struct timespec *);
		/* glibc keeps the condition's clock in bit 1 of __wrefs
		 * (bit 0 is process-shared): pthread_cond_common.c */
		int mono = cv && (__atomic_load_n(&cv->__data.__wrefs, __ATOMIC_RELAXED) & 2);
		int k = mono ? MS_TC_MONOTONIC : MS_TC_REALTIME;

		if (at && ts_valid(at) && faked(k)) {
			t = real_deadline(mono ? CLOCK_MONOTONIC : CLOCK_REALTIME, k, ts_ns(at));
			at = &t;
		}
		return ms_real.pthread_cond_timedwait.fn(cv, A(1, pthread_mutex_t *), at);
	}
	case MS_ID_sem_timedwait: {
		const struct timespec *at = A(1, const struct timespec *);

		if (at && ts_valid(at) && faked(MS_TC_REALTIME)) {
			t = real_deadline(CLOCK_REALTIME, MS_TC_REALTIME, ts_ns(at));
			at = &t;
		}
		return ms_real.sem_timedwait.fn(A(0, sem_t *), at);
	}
	default:
		return -1;
	}
}

static int64_t stat_call(unsigned id, const uint64_t *a)
{
	int r;

	switch (id) {
	case MS_ID_stat:
		r = ms_real.stat.fn(A(0, const char *), A(1, struct stat *));
		shift_stat(r, A(1, struct stat *));
		return r;
	case MS_ID_lstat:
		r = ms_real.lstat.fn(A(0, const char *), A(1, struct stat *));
		shift_stat(r, A(1, struct stat *));
		return r;
	case MS_ID_fstat:
		r = ms_real.fstat.fn(A(0, int), A(1, struct stat *));
		shift_stat(r, A(1, struct stat *));
		return r;
	case MS_ID_fstatat:
		r = ms_real.fstatat.fn(A(0, int), A(1, const char *), A(2, struct stat *), A(3, int));
		shift_stat(r, A(2, struct stat *));
		return r;
	case MS_ID_statx: {
		struct statx *sx = A(4, struct statx *);

		r = ms_real.statx.fn(A(0, int), A(1, const char *), A(2, int), A(3, unsigned), sx);
		if (r == 0 && sx && faked(MS_TC_REALTIME)) {
			shift_statx_ts(&sx->stx_atime);
			shift_statx_ts(&sx->stx_btime);
			shift_statx_ts(&sx->stx_ctime);
			shift_statx_ts(&sx->stx_mtime);
		}
		return r;
	}
	default:
		return -1;
	}
}

int64_t ms_time_call(unsigned id, const uint64_t *a)
{
	if (ms_likely(id == MS_ID_clock_gettime))
		return ms_time_clock(A(0, clockid_t), A(1, struct timespec *));
	switch (id) {
	case MS_ID_clock_gettime:
	case MS_ID_time:
	case MS_ID_gettimeofday:
	case MS_ID_ftime:
	case MS_ID_timespec_get:
		return read_clock(id, a);
	case MS_ID_stat:
	case MS_ID_lstat:
	case MS_ID_fstat:
	case MS_ID_fstatat:
	case MS_ID_statx:
		return stat_call(id, a);
	case MS_ID_timerfd_settime:
	case MS_ID_pthread_cond_timedwait:
	case MS_ID_sem_timedwait:
		return deadline_call(id, a);
	default:
		return wait_call(id, a);
	}
}
