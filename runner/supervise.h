/* SPDX-License-Identifier: MIT */
/*
 * The syscall tier (DESIGN.md section 2, tier 4): SYS_ statements answered
 * by a supervisor thread in mockrun, through seccomp user notification.
 *
 *	parent				child
 *	ms_sup_prepare()
 *	fork() ------------------------>
 *					ms_sup_install(): the filter, the
 *					listener's number in shared memory,
 *					then waits (futex) for the parent
 *	ms_sup_attach(): pidfd_getfd
 *	of the listener, the thread,
 *	the child released ------------>  execve(PROGRAM)
 *	... the run ...
 *	ms_sup_stop()
 *
 * Only statements on SYS_ names make a filter: without them none of this
 * runs, and mockrun starts a program exactly as before.
 */
#ifndef MS_SUPERVISE_H
#define MS_SUPERVISE_H

#include <stddef.h>
#include <sys/types.h>

struct ms_chan_hdr;
struct ms_state_hdr;
struct ms_sup;

/*
 * A supervisor for the SYS_ functions of spec (read-only; state is the
 * session's), or NULL with *err 0 when it has none; NULL with *err set
 * (-errno, why in msg) when it cannot be made.  Before the fork.
 */
struct ms_sup *ms_sup_prepare(const struct ms_chan_hdr *spec, struct ms_state_hdr *state,
			      int *err, char *msg, size_t cap);
/* In the child, last before the exec of the program, whose envp is envp:
 * 0, or -errno (the child then reports it and exits). */
int ms_sup_install(struct ms_sup *s, char *const envp[]);
/* In the parent, after the fork: 0, or -errno with msg (the child is
 * then killed by the caller). */
int ms_sup_attach(struct ms_sup *s, pid_t child, char *msg, size_t cap);
/* The child's exec of the program succeeded: an execve of the child is
 * the program's own from now on. */
void ms_sup_execd(struct ms_sup *s);
/* After the run (every process of the tree has exited): stops the
 * thread, frees s.  NULL is fine. */
void ms_sup_stop(struct ms_sup *s);

/* Before a run with a supervisor: 0, or -ENOEXEC with msg when program
 * prog (found on envp's PATH) is an ELF of another ABI than mockrun's
 * (x86-64, aarch64: arch.h). */
int ms_sup_check(const char *prog, char *const envp[], char *msg, size_t cap);
/* Whether ELF file path is a 64-bit program of mockrun's architecture
 * (1), another ABI (0), or not known (-1: not ELF, a script, unreadable). */
int ms_sup_elf_native(const char *path);

/* A hold was released (or its caller killed): the supervisor looks at
 * the SYS_ calls it holds (none: nothing happens).  Any thread. */
void ms_sup_poke(void);

#endif
