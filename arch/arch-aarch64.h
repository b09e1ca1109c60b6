/* SPDX-License-Identifier: MIT */
/*
 * aarch64 (AAPCS64, as Linux uses it): see arch.h for the interface.
 *
 * Arguments come in x0-x7 and v0-v7 (a double in d0-d7, the low half),
 * x8 holds a struct return's address, x16 and x17 are the scratch
 * registers a veneer or PLT entry may use, x30 the return address: the
 * caller for from= and reports.  Every stub is reached by a branch
 * through a register (PLT, GOT pointer), so with BTI enforced (a program
 * and every object marked, on hardware that has it) each would need a
 * `bti c`; Debian builds without branch protection, and the shim is not
 * marked, so the loader does not enforce it in a process that loads it.
 */
#ifndef MS_ARCH_AARCH64_H
#define MS_ARCH_AARCH64_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#define MS_ARCH_NAME "aarch64"
#define MS_ARCH_R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define MS_ARCH_R_GLOB_DAT R_AARCH64_GLOB_DAT
#define MS_ARCH_INT_ARGS 8
/* va_list is a struct (five fields), passed by reference */
#define MS_ARCH_VA_LIST_STRUCT 1

/* The syscall tier (runner/supervise.c): the filter's architecture, the
 * ELF machine of a program it answers, the number column of
 * catalog/syscall.def (the kernel's generic table).  Another ABI (arm32
 * compat) has another AUDIT_ARCH: the filter lets its calls through. */
#define MS_ARCH_AUDIT AUDIT_ARCH_AARCH64
#define MS_ARCH_ELF_MACHINE EM_AARCH64
#define MS_ARCH_SYS_NR(x86_64, aarch64) (aarch64)
#define MS_ARCH_OTHER_ABIS "arm32 or ILP32"

/* The frame the common stub saves at sp + 16, above x29 and x30 (its
 * layout is the assembly's below). */
struct ms_decl_frame {
	uint64_t gpr[8];	/* x0-x7: the arguments array, as it is, of a */
				/* function with no double */
	uint64_t x8;		/* a struct return's address, kept for the real call */
	uint64_t pad;
	uint64_t fpr[8][2];	/* q0-q7: saved only for one with doubles */
	uint64_t index;
	uint64_t armed;		/* ms_decl_armed[index] */
	int64_t ret;		/* a reply: to x0 and d0; a traced real call's x0 */
	uint64_t fpret;		/* a traced real call's d0 */
};
_Static_assert(sizeof(struct ms_decl_frame) == 240 && offsetof(struct ms_decl_frame, fpr) == 80 &&
		       offsetof(struct ms_decl_frame, index) == 208 &&
		       offsetof(struct ms_decl_frame, ret) == 224,
	       "the stub's frame");

#define MS_DECL_STUB_SIZE 16

static inline void ms_cpu_relax(void)
{
	__asm__ volatile("yield" ::: "memory");
}

/* A system call of three arguments, inline (the kernel's ABI: the number
 * in x8, the arguments in x0-x2, the result in x0). */
#define MS_ARCH_SYSCALL3 1

/* The instruction a signal interrupted, from its ucontext_t (crash.c). */
#define MS_ARCH_UC_PC(uc) ((uintptr_t)(uc)->uc_mcontext.pc)
static inline long ms_arch_syscall3(long nr, long a, long b, long c)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
}

/* The q registers, saved to or loaded from the frame (base x29 + 16). */
#define MS_A64_Q(op) \
	"	" op " q0, q1, [x29, #96]\n" \
	"	" op " q2, q3, [x29, #128]\n" \
	"	" op " q4, q5, [x29, #160]\n" \
	"	" op " q6, q7, [x29, #192]\n"
#define MS_A64_X(op) \
	"	" op " x0, x1, [x29, #16]\n" \
	"	" op " x2, x3, [x29, #32]\n" \
	"	" op " x4, x5, [x29, #48]\n" \
	"	" op " x6, x7, [x29, #64]\n"

/*
 * Stub i: `mov x17, #i; b ms_decl_common`, 16 bytes apart.  As on
 * x86-64: unarmed, a jump to real[i] through x16 with every argument
 * register untouched; armed, x0-x8 saved (q0-q7 too when a parameter is
 * a double) in a 256-byte frame (x29, x30, then struct ms_decl_frame),
 * ms_decl_consult() called directly on x0-x7 (no double) or through
 * ms_decl_dispatch(); a reply in x0 and d0; otherwise the registers
 * restored, the frame popped and a jump to real[i], or, when traced, a
 * call of it and ms_decl_after().
 */
#define MS_ARCH_DECL_ASM \
	".text\n" \
	".p2align 4\n" \
	".globl ms_decl_stubs\n" \
	".hidden ms_decl_stubs\n" \
	".type ms_decl_stubs, %function\n" \
	"ms_decl_stubs:\n" \
	"	.cfi_startproc\n" \
	"	.set i, 0\n" \
	"	.rept " MS_ARCH_STR(MS_DECL_MAX) "\n" \
	"	.p2align 4\n" \
	"	mov x17, #i\n" \
	"	b ms_decl_common\n" \
	"	.set i, i + 1\n" \
	"	.endr\n" \
	"	.cfi_endproc\n" \
	"	.size ms_decl_stubs, . - ms_decl_stubs\n" \
	".p2align 4\n" \
	".type ms_decl_common, %function\n" \
	"ms_decl_common:\n" \
	"	.cfi_startproc\n" \
	"	adrp x16, ms_decl_armed\n" \
	"	add x16, x16, :lo12:ms_decl_armed\n" \
	"	ldrb w16, [x16, x17]\n" \
	"	cbnz w16, 1f\n" \
	"	adrp x16, ms_decl_real\n" \
	"	add x16, x16, :lo12:ms_decl_real\n" \
	"	ldr x16, [x16, x17, lsl #3]\n" \
	"	br x16\n" \
	"1:	stp x29, x30, [sp, #-256]!\n" \
	"	.cfi_def_cfa_offset 256\n" \
	"	.cfi_offset x29, -256\n" \
	"	.cfi_offset x30, -248\n" \
	"	mov x29, sp\n" \
	"	.cfi_def_cfa x29, 256\n" \
	MS_A64_X("stp") \
	"	str x8, [x29, #80]\n" \
	"	stp x17, x16, [x29, #224]\n" \
	"	tbz w16, #1, 3f\n" \
	MS_A64_Q("stp") \
	"	mov w0, w17\n" \
	"	add x1, x29, #16\n" \
	"	mov x2, x30\n" \
	"	bl ms_decl_dispatch\n" \
	"	b 4f\n" \
	"3:	adrp x9, ms_decl_fn\n" \
	"	add x9, x9, :lo12:ms_decl_fn\n" \
	"	ldrb w0, [x9, x17]\n" \
	"	adrp x9, ms_decl_idbase\n" \
	"	ldr w9, [x9, :lo12:ms_decl_idbase]\n" \
	"	add w0, w0, w9\n" \
	"	add x1, x29, #16\n" \
	"	add x2, x29, #240\n" \
	"	mov x3, x30\n" \
	"	bl ms_decl_consult\n" \
	"4:	cmp w0, #1\n" \
	"	b.eq 2f\n" \
	"	cmp w0, #2\n" \
	"	b.eq 6f\n" \
	"	ldp x17, x16, [x29, #224]\n" \
	"	tbz w16, #1, 5f\n" \
	MS_A64_Q("ldp") \
	"5:\n" \
	MS_A64_X("ldp") \
	"	ldr x8, [x29, #80]\n" \
	"	.cfi_remember_state\n" \
	"	ldp x29, x30, [sp], #256\n" \
	"	.cfi_restore x29\n" \
	"	.cfi_restore x30\n" \
	"	.cfi_def_cfa sp, 0\n" \
	"	adrp x16, ms_decl_real\n" \
	"	add x16, x16, :lo12:ms_decl_real\n" \
	"	ldr x16, [x16, x17, lsl #3]\n" \
	"	br x16\n" \
	"2:	.cfi_restore_state\n" \
	"	ldr x0, [x29, #240]\n" \
	"	fmov d0, x0\n" \
	"	.cfi_remember_state\n" \
	"	ldp x29, x30, [sp], #256\n" \
	"	.cfi_restore x29\n" \
	"	.cfi_restore x30\n" \
	"	.cfi_def_cfa sp, 0\n" \
	"	ret\n" \
	"6:	.cfi_restore_state\n"	/* traced: the real function is called */ \
	"	ldp x17, x16, [x29, #224]\n" \
	"	tbz w16, #1, 7f\n" \
	MS_A64_Q("ldp") \
	"7:\n" \
	MS_A64_X("ldp") \
	"	ldr x8, [x29, #80]\n" \
	"	adrp x16, ms_decl_real\n" \
	"	add x16, x16, :lo12:ms_decl_real\n" \
	"	ldr x16, [x16, x17, lsl #3]\n" \
	"	blr x16\n" \
	"	str x0, [x29, #240]\n" \
	"	str d0, [x29, #248]\n" \
	"	ldr x0, [x29, #224]\n" \
	"	add x1, x29, #16\n" \
	"	ldr x2, [x29, #8]\n" \
	"	bl ms_decl_after\n" \
	"	ldr x0, [x29, #240]\n" \
	"	ldr d0, [x29, #248]\n" \
	"	ldp x29, x30, [sp], #256\n" \
	"	.cfi_restore x29\n" \
	"	.cfi_restore x30\n" \
	"	.cfi_def_cfa sp, 0\n" \
	"	ret\n" \
	"	.cfi_endproc\n" \
	"	.size ms_decl_common, . - ms_decl_common\n" \
	".previous\n"

/*
 * vfork's entry (trampolines_hand.c): the caller's return address is in x30; a frame
 * for the call of ms_vfork_prepare ({ mocked, value } in x0 and x1),
 * popped before the real vfork is jumped to.
 */
#define MS_ARCH_VFORK_ASM \
	".text\n" \
	".globl vfork\n" \
	".type vfork, %function\n" \
	"vfork:\n" \
	"	stp x29, x30, [sp, #-16]!\n" \
	"	mov x29, sp\n" \
	"	mov x0, x30\n"			/* the caller, for from= and reports */ \
	"	bl ms_vfork_prepare\n" \
	"	ldp x29, x30, [sp], #16\n" \
	"	cbnz x0, 1f\n" \
	"	adrp x16, ms_vfork_real\n" \
	"	ldr x16, [x16, :lo12:ms_vfork_real]\n" \
	"	br x16\n"			/* no frame of ours left */ \
	"1:	mov x0, x1\n"			/* the reply; errno is set */ \
	"	ret\n" \
	".size vfork, .-vfork\n"

#endif
