/* SPDX-License-Identifier: MIT */
/* bench's hand-written floor stubs (floor.c). */
#ifndef MSB_FLOOR_H
#define MSB_FLOOR_H

long msb_floor_const(void);
/* The constant at other call sites: bench's getpid, read and clock. */
int msb_floor_int(void);
long msb_floor_read(int fd, void *buf, unsigned long n);
int msb_floor_clock(int clockid, void *ts);
/* Queues n copies of value (at most 2^20 queued at once). */
void msb_floor_fill(unsigned long n, long value);
/* The next queued value, or -1 when none is left. */
long msb_floor_queue(void);

#endif
