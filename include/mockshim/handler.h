/* SPDX-License-Identifier: MIT */
/**
 * @file handler.h
 * Handler modules: mock any exported function of any library a program
 * loads, CMocka style, driven by the same statements as the catalog.
 *
 * @code
 * #include <mockshim/handler.h>
 *
 * MOCKSHIM_MOCK(int, chef_cook, const char *order, char **dish_out)
 * {
 *	check_expected(order);
 *	if (!mock_type(bool))
 *		return -1;
 *	*dish_out = mock_ptr_type(char *);
 *	return mock_type(int);
 * }
 * @endcode
 *
 * Build it as a shared object (cc -shared -fPIC handler.c -o handler.so)
 * and run `mockrun -m handler.so -e 'will_return(chef_cook, true)' ...`.
 * While no statement names the function, calls go straight to the real
 * one and the handler is not entered.  MOCKSHIM_REAL(name)(args) calls the
 * real function (the __real_ of ld --wrap).
 *
 * Inside a handler: mock(), mock_type(T), mock_ptr_type(T) pop the
 * function's will_return queue (integers, booleans, strings, NULL; an
 * empty queue is a reported failure and gives 0); mock_double() pops a
 * double (will_return(fn, 2.5)); check_expected(param)
 * and check_expected_ptr(param) take the parameter's next expect_*;
 * function_called() takes part in call ordering.  Define
 * MOCKSHIM_NO_SHORT_NAMES to get only the mockshim_-prefixed forms.
 *
 * x86-64 and aarch64: the exported function is a stub of a few
 * instructions (MOCKSHIM_STUB_ASM below, one per architecture).
 */
#ifndef MOCKSHIM_HANDLER_H
#define MOCKSHIM_HANDLER_H

#include <stdint.h>

#ifdef __cplusplus
#define MOCKSHIM_EXTERN_C extern "C"
#define MOCKSHIM_BEGIN_C extern "C" {
#define MOCKSHIM_END_C }
extern "C" {
#else
#define MOCKSHIM_EXTERN_C
#define MOCKSHIM_BEGIN_C
#define MOCKSHIM_END_C
#endif

#define MOCKSHIM_MOCK_ABI 1

/** One mocked function of a module; the layout is fixed (the stub reads
 * real at offset 0 and armed at offset 8). */
struct mockshim_mock {
	union {
		void *ptr;
		void (*fn)(void);
	} real;
	unsigned char armed;
	unsigned char reserved[3];
	unsigned abi;
	const char *name;
	unsigned id;
};

/** Called by each mock's constructor: arms it from the session. */
void mockshim_register(struct mockshim_mock *m);
/** mock(): the next value queued for the handler named func. */
uintmax_t mockshim_mock_value(const char *func);
/** mock_double(): the next value as a double (an integer is converted). */
double mockshim_mock_double(const char *func);
/** check_expected(): checks param's value against its next expect_*. */
void mockshim_check_expected(const char *func, const char *param, uintmax_t value);
/** function_called(): this call takes part in call ordering. */
void mockshim_function_called(const char *func);
/** dlsym, called from the module so that RTLD_NEXT means "after it". */
extern void *(*const mockshim_dlsym)(void *handle, const char *name);

#define MOCKSHIM_RTLD_NEXT ((void *)-1L)

#define mockshim_mock() mockshim_mock_value(__func__)
#define mockshim_mock_type(T) ((T)mockshim_mock_value(__func__))
#define mockshim_mock_ptr_type(T) ((T)(uintptr_t)mockshim_mock_value(__func__))
#define mockshim_mock_dbl() mockshim_mock_double(__func__)
#define mockshim_check_expected_value(p) mockshim_check_expected(__func__, #p, (uintmax_t)(p))
#define mockshim_check_expected_ptr(p) \
	mockshim_check_expected(__func__, #p, (uintmax_t)(uintptr_t)(p))
#define mockshim_function_called_here() mockshim_function_called(__func__)

#ifndef MOCKSHIM_NO_SHORT_NAMES
#define mock() mockshim_mock()
#define mock_type(T) mockshim_mock_type(T)
#define mock_ptr_type(T) mockshim_mock_ptr_type(T)
#define mock_double() mockshim_mock_dbl()
#define check_expected(p) mockshim_check_expected_value(p)
#define check_expected_ptr(p) mockshim_check_expected_ptr(p)
#define function_called() mockshim_function_called_here()
#endif

/** The real function behind a mock, typed as the mock. */
#define MOCKSHIM_REAL(name) \
	((__typeof__(&mockshim_handler_##name))mockshim_mock_##name.real.fn)

/*
 * The exported function: to the handler when armed (byte 8 of the
 * struct mockshim_mock), else to the real function (its word 0), with
 * every argument register as the caller left it.  One per architecture;
 * a port adds its own (and libmockshim/arch-<cpu>.h in the source tree).
 */
#if defined(__x86_64__)
#define MOCKSHIM_STUB_ASM(name)                                                                 \
	".text\n"                                                                               \
	".globl " #name "\n"                                                                    \
	".type " #name ", @function\n" #name ":\n"                                              \
	"\tcmpb $0, mockshim_mock_" #name "+8(%rip)\n"                                          \
	"\tjne mockshim_handler_" #name "\n"                                                    \
	"\tjmp *mockshim_mock_" #name "(%rip)\n"                                                \
	".size " #name ", .-" #name "\n"
#elif defined(__aarch64__)
#define MOCKSHIM_STUB_ASM(name)                                                                 \
	".text\n"                                                                               \
	".globl " #name "\n"                                                                    \
	".type " #name ", %function\n" #name ":\n"                                              \
	"\tadrp x16, mockshim_mock_" #name "\n"                                                 \
	"\tadd x16, x16, :lo12:mockshim_mock_" #name "\n"                                       \
	"\tldrb w17, [x16, #8]\n"                                                               \
	"\tcbz w17, 1f\n"                                                                       \
	"\tb mockshim_handler_" #name "\n"                                                      \
	"1:\tldr x16, [x16]\n"                                                                  \
	"\tbr x16\n"                                                                            \
	".size " #name ", .-" #name "\n"
#else
#error "mockshim/handler.h: MOCKSHIM_MOCK has no stub for this architecture (x86-64, aarch64)"
#endif

/*
 * Defines the exported function `name`: a stub that jumps to the handler
 * (the function body that follows the macro) when a statement arms it,
 * else to the real definition, registers it with the shim at load time,
 * and records its declaration in the section "mockshim_mocks", which the
 * driver reads to know the module's functions and their parameters.
 */
#define MOCKSHIM_MOCK(ret, name, ...)                                                          \
	MOCKSHIM_BEGIN_C                                                                        \
	__attribute__((visibility("hidden"))) ret mockshim_handler_##name(__VA_ARGS__);         \
	__attribute__((visibility("hidden"))) struct mockshim_mock mockshim_mock_##name =       \
		{ { 0 }, 0, { 0, 0, 0 }, MOCKSHIM_MOCK_ABI, #name, 0 };                          \
	__attribute__((section("mockshim_mocks"), used, aligned(1))) static const char          \
		mockshim_decl_##name[] = "mockshim1\0" #ret "\0" #name "\0" #__VA_ARGS__;        \
	__asm__(MOCKSHIM_STUB_ASM(name));                                                       \
	__attribute__((constructor)) static void mockshim_init_##name(void)                    \
	{                                                                                       \
		mockshim_mock_##name.real.ptr = mockshim_dlsym(MOCKSHIM_RTLD_NEXT, #name);       \
		mockshim_register(&mockshim_mock_##name);                                        \
	}                                                                                       \
	MOCKSHIM_END_C                                                                          \
	MOCKSHIM_EXTERN_C __attribute__((visibility("hidden"))) ret mockshim_handler_##name(__VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif
