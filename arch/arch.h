/* SPDX-License-Identifier: MIT */
/*
 * What differs between processor architectures, behind one interface:
 * one header per architecture (arch-x86_64.h, arch-aarch64.h), chosen
 * here by the compiler's macro, for the shim (libmockshim/) and the
 * driver alike.  A port to another architecture is one new header
 * defining the same names, plus the MOCKSHIM_MOCK stub in
 * include/mockshim/handler.h (installed: it cannot include this file).
 *
 * Each arch-*.h defines
 *   MS_ARCH_NAME                 "x86_64", "aarch64"
 *   MS_ARCH_R_JUMP_SLOT,         the relocation types of a GOT entry of
 *   MS_ARCH_R_GLOB_DAT           a function (PLT call, address taken)
 *   MS_ARCH_INT_ARGS             integer registers a call passes
 *   MS_ARCH_VA_LIST_STRUCT       defined where va_list is a struct, not
 *                                a pointer (shim.h's MS_U, MS_G)
 *   struct ms_decl_frame         what the declared functions' common stub
 *                                saves: gpr[] (the integer argument
 *                                registers in order), fpr[8][2] (the
 *                                first 8 floating-point argument
 *                                registers), index, armed, ret (a reply,
 *                                or a traced real call's integer result)
 *                                and fpret (its floating-point result)
 *   MS_DECL_STUB_SIZE            bytes between two declared stubs
 *   MS_ARCH_DECL_ASM             the stubs ms_decl_stubs (MS_DECL_MAX of
 *                                them) and their common part: see
 *                                declared.c for what they do
 *   MS_ARCH_VFORK_ASM            vfork's entry: see trampolines_hand.c
 *   ms_cpu_relax()               the spin-wait hint (pause, yield)
 *   ms_arch_syscall3(nr, a, b, c)  optional (MS_ARCH_SYSCALL3 defined
 *                                with it): a system call inline, its
 *                                result the kernel's (-errno, errno
 *                                untouched); without it the shim's trace
 *                                writes go through syscall()
 *   MS_ARCH_AUDIT                the syscall tier's: the seccomp filter's
 *                                AUDIT_ARCH_*, MS_ARCH_ELF_MACHINE the
 *                                EM_* of the programs it answers,
 *   MS_ARCH_SYS_NR(x86_64, aarch64)  which of syscall.def's number
 *                                columns is this architecture's (a port
 *                                adds a column), MS_ARCH_OTHER_ABIS the
 *                                ABIs it refuses, by name, and where the
 *                                CPU has one, MS_ARCH_SYS_ABI_BIT: the
 *                                number bit of another ABI (x32)
 * The C the stubs call: ms_decl_dispatch, ms_consult, ms_decl_after,
 * ms_vfork_prepare, with the caller's return address for from=.
 */
#ifndef MS_ARCH_H
#define MS_ARCH_H

#define MS_ARCH_STR_(x) #x
#define MS_ARCH_STR(x) MS_ARCH_STR_(x)

#if defined(__x86_64__)
#include "arch-x86_64.h"
#elif defined(__aarch64__)
#include "arch-aarch64.h"
#else
#error "mockshim has no port to this architecture: add arch/arch-<cpu>.h (see arch.h)"
#endif

#endif
