/* SPDX-License-Identifier: MIT */
/*
 * x86-64 (System V AMD64 ABI): see arch.h for the interface.
 */
#ifndef MS_ARCH_X86_64_H
#define MS_ARCH_X86_64_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#define MS_ARCH_NAME "x86_64"
#define MS_ARCH_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define MS_ARCH_R_GLOB_DAT R_X86_64_GLOB_DAT
#define MS_ARCH_INT_ARGS 6

/* The syscall tier (runner/supervise.c): the filter's architecture, the
 * ELF machine of a program it answers, the number column of
 * catalog/syscall.def; x32's calls are x86-64's with this bit set. */
#define MS_ARCH_AUDIT AUDIT_ARCH_X86_64
#define MS_ARCH_ELF_MACHINE EM_X86_64
#define MS_ARCH_SYS_NR(x86_64, aarch64) (x86_64)
#define MS_ARCH_SYS_ABI_BIT 0x40000000u
#define MS_ARCH_OTHER_ABIS "i386 or x32"

/* The frame the common stub saves (its layout is the assembly's below). */
struct ms_decl_frame {
	uint64_t gpr[6];	/* rdi, rsi, rdx, rcx, r8, r9: the arguments array, */
				/* as it is, of a function with no double */
	uint64_t fpr[8][2];	/* xmm0-7: saved only for one with doubles */
	uint64_t index;
	uint64_t armed;		/* ms_decl_armed[index] */
	int64_t ret;		/* a reply: to rax and xmm0; a traced real call's rax */
	uint64_t fpret;		/* a traced real call's xmm0 */
};
_Static_assert(sizeof(struct ms_decl_frame) == 208 && offsetof(struct ms_decl_frame, ret) == 192,
	       "the stub's frame");

#define MS_DECL_STUB_SIZE 16

static inline void ms_cpu_relax(void)
{
	__builtin_ia32_pause();
}

/* A system call of three arguments, inline (the kernel's ABI: the number
 * in rax, the arguments in rdi, rsi, rdx; rcx and r11 clobbered). */
#define MS_ARCH_SYSCALL3 1

/* The instruction a signal interrupted, from its ucontext_t (crash.c). */
#define MS_ARCH_UC_PC(uc) ((uintptr_t)(uc)->uc_mcontext.gregs[REG_RIP])
static inline long ms_arch_syscall3(long nr, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

/*
 * Stub i: `endbr64; movl $i, %r11d; jmp ms_decl_common`, 16 bytes apart.
 * A function with no double parameter reads no SSE register, so its
 * stub saves none, and its six integer registers, saved in order, are
 * the arguments array ms_consult() takes: ms_decl_consult() reads them
 * in place.
 * With doubles, xmm0-7 are saved too and ms_decl_dispatch() sorts the
 * registers into the parameters' order.  A reply goes to rax and xmm0
 * alike (either is the return register, the other is scratch).  The
 * caller, for from=, is the return address at (%rsp) on entry.  A traced
 * call calls the real function instead of jumping to it, so that its
 * result can be traced (no declared function takes stack arguments).
 * Before any of that, a live MS_FAST_ALWAYS slot (ms_decl_slot[i], the
 * function's struct ms_fast) is answered with no frame: the count, the
 * value to rax and xmm0 (rax is scratch: a declared function is never
 * variadic); declared.c checks the offsets.
 */
#define MS_ARCH_DECL_ASM \
	".text\n" \
	".p2align 4\n" \
	".globl ms_decl_stubs\n" \
	".hidden ms_decl_stubs\n" \
	".type ms_decl_stubs, @function\n" \
	"ms_decl_stubs:\n" \
	"	.cfi_startproc\n" \
	"	.set i, 0\n" \
	"	.rept " MS_ARCH_STR(MS_DECL_MAX) "\n" \
	"	.p2align 4\n" \
	"	endbr64\n" \
	"	movl $i, %r11d\n" \
	"	jmp ms_decl_common\n" \
	"	.set i, i + 1\n" \
	"	.endr\n" \
	"	.cfi_endproc\n" \
	"	.size ms_decl_stubs, . - ms_decl_stubs\n" \
	".p2align 4\n" \
	".type ms_decl_common, @function\n" \
	"ms_decl_common:\n" \
	"	.cfi_startproc\n" \
	"	leaq ms_decl_armed(%rip), %r10\n" \
	"	movzbl (%r10, %r11), %r10d\n" \
	"	testl %r10d, %r10d\n" \
	"	jnz 1f\n" \
	"	leaq ms_decl_real(%rip), %r10\n" \
	"	jmp *(%r10, %r11, 8)\n" \
	"1:	leaq ms_decl_slot(%rip), %rax\n"	/* the function's fast slot */ \
	"	movq (%rax, %r11, 8), %rax\n" \
	"	cmpl $1, (%rax)\n"			/* live == MS_FAST_ALWAYS */ \
	"	jne 8f\n" \
	"	movq 24(%rax), %r10\n"			/* consumed */ \
	"	lock addl $1, (%r10)\n" \
	"	movq 16(%rax), %rax\n"			/* value */ \
	"	movq %rax, %xmm0\n" \
	"	ret\n" \
	"8:	pushq %rbp\n" \
	"	.cfi_def_cfa_offset 16\n" \
	"	.cfi_offset %rbp, -16\n" \
	"	movq %rsp, %rbp\n" \
	"	.cfi_def_cfa_register %rbp\n" \
	"	subq $208, %rsp\n" \
	"	movq %rdi, 0(%rsp)\n" \
	"	movq %rsi, 8(%rsp)\n" \
	"	movq %rdx, 16(%rsp)\n" \
	"	movq %rcx, 24(%rsp)\n" \
	"	movq %r8, 32(%rsp)\n" \
	"	movq %r9, 40(%rsp)\n" \
	"	movq %r11, 176(%rsp)\n" \
	"	movq %r10, 184(%rsp)\n" \
	"	testl $2, %r10d\n" \
	"	jz 3f\n" \
	"	movdqa %xmm0, 48(%rsp)\n" \
	"	movdqa %xmm1, 64(%rsp)\n" \
	"	movdqa %xmm2, 80(%rsp)\n" \
	"	movdqa %xmm3, 96(%rsp)\n" \
	"	movdqa %xmm4, 112(%rsp)\n" \
	"	movdqa %xmm5, 128(%rsp)\n" \
	"	movdqa %xmm6, 144(%rsp)\n" \
	"	movdqa %xmm7, 160(%rsp)\n" \
	"	movl %r11d, %edi\n" \
	"	movq %rsp, %rsi\n" \
	"	movq 8(%rbp), %rdx\n" \
	"	call ms_decl_dispatch\n" \
	"	jmp 4f\n" \
	"3:	leaq ms_decl_fn(%rip), %r10\n" \
	"	movzbl (%r10, %r11), %edi\n" \
	"	addl ms_decl_idbase(%rip), %edi\n" \
	"	movq %rsp, %rsi\n" \
	"	leaq 192(%rsp), %rdx\n" \
	"	movq 8(%rbp), %rcx\n" \
	"	call ms_decl_consult\n" \
	"4:	cmpl $1, %eax\n" \
	"	je 2f\n" \
	"	cmpl $2, %eax\n" \
	"	je 6f\n" \
	"	movq 176(%rsp), %r11\n" \
	"	testb $2, 184(%rsp)\n" \
	"	jz 5f\n" \
	"	movdqa 48(%rsp), %xmm0\n" \
	"	movdqa 64(%rsp), %xmm1\n" \
	"	movdqa 80(%rsp), %xmm2\n" \
	"	movdqa 96(%rsp), %xmm3\n" \
	"	movdqa 112(%rsp), %xmm4\n" \
	"	movdqa 128(%rsp), %xmm5\n" \
	"	movdqa 144(%rsp), %xmm6\n" \
	"	movdqa 160(%rsp), %xmm7\n" \
	"5:	movq 0(%rsp), %rdi\n" \
	"	movq 8(%rsp), %rsi\n" \
	"	movq 16(%rsp), %rdx\n" \
	"	movq 24(%rsp), %rcx\n" \
	"	movq 32(%rsp), %r8\n" \
	"	movq 40(%rsp), %r9\n" \
	"	.cfi_remember_state\n" \
	"	leave\n" \
	"	.cfi_def_cfa %rsp, 8\n" \
	"	leaq ms_decl_real(%rip), %r10\n" \
	"	jmp *(%r10, %r11, 8)\n" \
	"2:	.cfi_restore_state\n" \
	"	movq 192(%rsp), %rax\n" \
	"	movq %rax, %xmm0\n" \
	"	leave\n" \
	"	.cfi_def_cfa %rsp, 8\n" \
	"	ret\n" \
	"6:	.cfi_def_cfa %rbp, 16\n"	/* traced: the real function is called */ \
	"	testb $2, 184(%rsp)\n" \
	"	jz 7f\n" \
	"	movdqa 48(%rsp), %xmm0\n" \
	"	movdqa 64(%rsp), %xmm1\n" \
	"	movdqa 80(%rsp), %xmm2\n" \
	"	movdqa 96(%rsp), %xmm3\n" \
	"	movdqa 112(%rsp), %xmm4\n" \
	"	movdqa 128(%rsp), %xmm5\n" \
	"	movdqa 144(%rsp), %xmm6\n" \
	"	movdqa 160(%rsp), %xmm7\n" \
	"7:	movq 0(%rsp), %rdi\n" \
	"	movq 8(%rsp), %rsi\n" \
	"	movq 16(%rsp), %rdx\n" \
	"	movq 24(%rsp), %rcx\n" \
	"	movq 32(%rsp), %r8\n" \
	"	movq 40(%rsp), %r9\n" \
	"	movq 176(%rsp), %r11\n" \
	"	leaq ms_decl_real(%rip), %r10\n" \
	"	call *(%r10, %r11, 8)\n" \
	"	movq %rax, 192(%rsp)\n" \
	"	movq %xmm0, 200(%rsp)\n" \
	"	movq 176(%rsp), %rdi\n" \
	"	movq %rsp, %rsi\n" \
	"	movq 8(%rbp), %rdx\n" \
	"	call ms_decl_after\n" \
	"	movq 192(%rsp), %rax\n" \
	"	movq 200(%rsp), %xmm0\n" \
	"	leave\n" \
	"	.cfi_def_cfa %rsp, 8\n" \
	"	ret\n" \
	"	.cfi_endproc\n" \
	"	.size ms_decl_common, . - ms_decl_common\n" \
	".previous\n"

/*
 * vfork's entry (trampolines_hand.c): the caller's return address is at (%rsp);
 * ms_vfork_prepare returns { mocked, value } in rax and rdx.
 */
#define MS_ARCH_VFORK_ASM \
	".text\n" \
	".globl vfork\n" \
	".type vfork, @function\n" \
	"vfork:\n" \
	"	movq (%rsp), %rdi\n"		/* the caller, for from= and reports */ \
	"	subq $8, %rsp\n"		/* the stack aligned for the call */ \
	"	call ms_vfork_prepare\n" \
	"	addq $8, %rsp\n" \
	"	testq %rax, %rax\n" \
	"	jnz 1f\n" \
	"	jmp *ms_vfork_real(%rip)\n"	/* no frame of ours left */ \
	"1:	movq %rdx, %rax\n"		/* the reply; errno is set */ \
	"	ret\n" \
	".size vfork, .-vfork\n"

#endif
