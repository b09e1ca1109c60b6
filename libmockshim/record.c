/* SPDX-License-Identifier: MIT */
/*
 * --record: the real calls of the recorded functions, logged to the
 * channel as they return: the value, errno, and what the call wrote
 * through its output parameters, as the catalog's row describes them.
 * mockrun turns the log into a spec (runner/record.c) that replays it.
 *
 * Called from the real path of an armed trampoline, so the shim's
 * discipline holds: no malloc, no stdio, the program's memory read
 * fault-safely, async-signal-safe (a signal handler's call gets an
 * entry of its own).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "channel/channel.h"
#include "shim.h"
#include "catalog/catalog.h"

#define MAX_ADDRS 64		/* addresses of a getaddrinfo list kept */
#define MAX_BYTES MS_REC_MAX_BYTES	/* bytes of one output kept */

struct piece {
	uint8_t kind, param;
	const void *src;	/* the program's memory, or local[] */
	uint32_t len;
};

/* The length of the program's string at s, at most bound: read in
 * chunks (a read stops at the first page that faults). */
static uint64_t user_strlen(const char *s, uint64_t bound)
{
	char chunk[256];
	uint64_t n = 0;

	while (n < bound) {
		size_t want = bound - n < sizeof(chunk) ? (size_t)(bound - n) : sizeof(chunk);
		size_t got = ms_read_user(chunk, s + n, want);
		const char *z = memchr(chunk, '\0', got);

		if (z)
			return n + (uint64_t)(z - chunk);
		n += got;
		if (got < want)
			break;
	}
	return n;
}

/* What the call wrote into the buffer of output o: the bytes it says. */
static uint32_t bytes_written(const struct ms_fn_meta *m, const struct ms_out_desc *o,
			      const uint64_t *a, int64_t ret)
{
	uint64_t cap = o->cap1 != MS_NONE8 ? a[o->cap1] : 0, n;

	if (o->cap2 != MS_NONE8)
		cap *= a[o->cap2];
	if (o->kind == MS_OK_STR) {
		n = user_strlen((const char *)(uintptr_t)a[o->param], cap < MAX_BYTES ? cap : MAX_BYTES);
		return (uint32_t)n;
	}
	if (m->rd_kind != MS_RD_BYTES || ret <= 0)
		return 0;
	n = (uint64_t)ret;
	if (m->rd_div != MS_NONE8)
		n *= a[m->rd_div];
	if (n > cap)
		n = cap;
	return (uint32_t)(n > MAX_BYTES ? MAX_BYTES : n);
}

/* The addresses of the addrinfo list at ptr, one entry per address (the
 * list has one per socket type, which a replay rebuilds); their bytes. */
static uint32_t read_addrinfo(const void *ptr, struct ms_addr *addrs)
{
	const struct addrinfo *ai = NULL;
	unsigned naddrs = 0;

	ms_read_user(&ai, ptr, sizeof(ai));
	for (; ai && naddrs < MAX_ADDRS; ai = ai->ai_next) {
		const struct sockaddr *sa = ai->ai_addr;
		struct ms_addr *x = &addrs[naddrs];
		unsigned k;

		memset(x, 0, sizeof(*x));
		if (!sa || (ai->ai_family != AF_INET && ai->ai_family != AF_INET6))
			continue;
		x->family = (uint16_t)ai->ai_family;
		if (ai->ai_family == AF_INET) {
			const struct sockaddr_in *in = (const void *)sa;

			x->port = ntohs(in->sin_port);
			memcpy(x->addr, &in->sin_addr, 4);
		} else {
			const struct sockaddr_in6 *in6 = (const void *)sa;

			x->port = ntohs(in6->sin6_port);
			memcpy(x->addr, &in6->sin6_addr, 16);
		}
		for (k = 0; k < naddrs && memcmp(&addrs[k], x, sizeof(*x)) != 0; k++)
			;
		if (k == naddrs)
			naddrs++;
	}
	return naddrs * (uint32_t)sizeof(addrs[0]);
}

/* Room for what a struct output of one call holds. */
struct rec_room {
	struct ms_addr addrs[MAX_ADDRS];
	int16_t revents[MAX_ADDRS];
};

/* What of a struct output a replay needs, in *q; -1: nothing. */
static int struct_piece(const struct ms_out_desc *o, const uint64_t *a, const void *ptr,
			struct piece *q, struct rec_room *room)
{
	if (strcmp(o->strct, "addrinfo") == 0) {
		q->kind = MS_REC_ADDRINFO;
		q->src = room->addrs;
		q->len = read_addrinfo(ptr, room->addrs);
	} else if (strcmp(o->strct, "sockaddr") == 0) {
		socklen_t len = 0;

		ms_read_user(&len, (const void *)(uintptr_t)a[o->param + 1], sizeof(len));
		q->kind = MS_REC_SOCKADDR;
		q->len = len > sizeof(struct sockaddr_storage) ? (uint32_t)sizeof(struct sockaddr_storage)
								: len;
	} else if (strcmp(o->strct, "revents") == 0) {
		const struct pollfd *fds = ptr;
		uint64_t nfds = a[o->param + 1];

		for (uint64_t k = 0; k < nfds && k < MAX_ADDRS; k++) {
			room->revents[k] = 0;
			ms_read_user(&room->revents[k], &fds[k].revents, sizeof(room->revents[k]));
		}
		q->kind = MS_REC_REVENTS;
		q->src = room->revents;
		q->len = (uint32_t)((nfds < MAX_ADDRS ? nfds : MAX_ADDRS) * sizeof(room->revents[0]));
	} else {
		const struct ms_struct_desc *sd = ms_struct_find(o->strct);

		if (!sd)
			return -1; /* refused by mockrun before the run */
		q->kind = MS_REC_STORE;
		q->len = sd->size;
	}
	return 0;
}

/* The outputs of a call that succeeded, as pieces to copy into its
 * record (pc has room for MS_MAX_PARAMS + 1); their number. */
static unsigned call_pieces(const struct ms_fn_meta *m, const uint64_t *a, int64_t ret,
			    struct piece *pc, struct rec_room *room)
{
	unsigned n = 0;

	for (unsigned i = 0; i < m->nouts; i++) {
		const struct ms_out_desc *o = &m->outs[i];
		const void *ptr = (const void *)(uintptr_t)a[o->param];
		struct piece *q = &pc[n];

		if (!ptr || o->kind == MS_OK_FERROR || (o->kind == MS_OK_SCALAR && o->mirror_ret))
			continue;
		q->param = o->param;
		q->src = ptr;
		if (o->kind == MS_OK_BYTES || o->kind == MS_OK_STR) {
			q->kind = MS_REC_BYTES;
			q->len = bytes_written(m, o, a, ret);
		} else if (o->kind == MS_OK_SCALAR) {
			q->kind = MS_REC_STORE;
			q->len = o->size;
		} else if (o->kind != MS_OK_STRUCT || struct_piece(o, a, ptr, q, room) < 0) {
			continue;
		}
		n++;
	}
	if (m->ret.tclass == MS_T_STR && ret && m->rd_kind != MS_RD_PARAM) {
		const char *s = (const char *)(uintptr_t)ret;

		pc[n++] = (struct piece){ MS_REC_RETSTR, 0, s,
					  (uint32_t)user_strlen(s, MS_STRING_BOUND) };
	}
	return n;
}

void ms_hook_record_call(const struct ms_chan_hdr *h, struct ms_state_hdr *st, unsigned id,
			 const uint64_t *a, int64_t ret, int err)
{
	const struct ms_fn_meta *m = ms_catalog_get(id);
	struct piece pc[MS_MAX_PARAMS + 1];
	struct rec_room room;
	unsigned n;
	uint32_t size = sizeof(struct ms_rec);
	uint64_t off, cap;
	struct ms_rec *r;
	char *p, *log = ms_record_log(&cap);

	if (!h || !st || !log || !m)
		return;
	n = ms_call_failed(m, ret) ? 0 : call_pieces(m, a, ret, pc, &room);
	for (unsigned i = 0; i < n; i++)
		size += (uint32_t)sizeof(struct ms_rec_out) + ms_rec_pad(pc[i].len);
	/* cap and log are the validated ones; rec_next is the programs' to
	 * move, so its value is checked, not trusted */
	off = __atomic_fetch_add(&st->rec_next, size, __ATOMIC_RELAXED);
	if (off > cap || size > cap - off || off % 8) {
		__atomic_fetch_add(&st->rec_dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	r = (struct ms_rec *)(log + off);
	r->size = size;
	r->seq = __atomic_fetch_add(&st->rec_seq, 1, __ATOMIC_RELAXED);
	r->fn = (uint16_t)id;
	r->nouts = (uint16_t)n;
	r->pid = (int32_t)syscall(SYS_getpid);
	r->err = err;
	r->ret = ret;
	{
		const char *e = ms_exe_name();
		size_t k = 0;

		for (; e && e[k] && k < MS_REC_EXE - 1; k++)
			r->exe[k] = e[k];
		r->exe[k] = '\0';
	}
	p = (char *)(r + 1);
	for (unsigned i = 0; i < n; i++) {
		struct ms_rec_out *o = (struct ms_rec_out *)p;
		uint32_t got;

		o->kind = pc[i].kind;
		o->param = pc[i].param;
		o->reserved = 0;
		p += sizeof(*o);
		o->len = pc[i].len;
		got = (uint32_t)ms_read_user(p, pc[i].src, pc[i].len);
		memset(p + got, 0, ms_rec_pad(pc[i].len) - got); /* unreadable: zeros */
		p += ms_rec_pad(pc[i].len);
	}
	__atomic_store_n(&r->state, 1, __ATOMIC_RELEASE);
}
