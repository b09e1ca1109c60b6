/* SPDX-License-Identifier: MIT */
/*
 * The floor of a mocked reply: hand-written stubs in a shared library,
 * called through the PLT as any interposed function is.  A mock that
 * returns a constant cannot cost less than msb_floor_const, one that
 * takes values from a queue less than msb_floor_queue (one process, one
 * thread, no count, no event: the least a queue can do).  bench's ops
 * floor_const and floor_queue call them; run.py divides mockshim's
 * replies by them ("mockshim / floor").
 */
#include "floor.h"

long msb_floor_const(void)
{
	return 42;
}

/* The same constant at the call sites of bench's getpid (an int), read
 * and clock loops: what their arguments and result cost the caller. */
int msb_floor_int(void)
{
	return 42;
}

long msb_floor_read(int fd, void *buf, unsigned long n)
{
	(void)fd;
	(void)buf;
	(void)n;
	return 1;
}

int msb_floor_clock(int clockid, void *ts)
{
	(void)clockid;
	(void)ts;
	return 0;
}

#define QUEUE_CAP (1u << 20)

static long queue[QUEUE_CAP];
static unsigned long head, tail;

void msb_floor_fill(unsigned long n, long value)
{
	for (unsigned long i = 0; i < n && tail - head < QUEUE_CAP; i++)
		queue[tail++ % QUEUE_CAP] = value;
}

long msb_floor_queue(void)
{
	if (head == tail)
		return -1;	/* empty: a real stub would call the real function */
	return queue[head++ % QUEUE_CAP];
}
