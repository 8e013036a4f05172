// SPDX-License-Identifier: GPL-2.0
/*
 * checktext SEED [POLICY]: the program the exec stress tests run, many
 * thousand times.  Its text (gen-checktext.py) is one function per 4K:
 * function i returns i and the rest of its 4K is a pattern of (i, word).
 * It calls 8 of them at offsets spread over the text (which ones depends
 * on SEED), compares each one's 4K with the pattern, and exits with
 * 64 + SEED % 64, so a parent can tell a correct run from a corrupted
 * one (2: pattern wrong, 3: wrong return value) or one that crashed.
 * With POLICY (a number), the process's PR_GET_EXEC_FOLIO_SIZE must
 * return it (4 if not): the prctl survived fork and exec.
 *
 * No libc (as tinytext): an exec costs the kernel's work and little else.
 */
#include <stdint.h>
#include <sys/syscall.h>

#define PR_GET_EXEC_FOLIO_SIZE 0x45584647

extern unsigned int (*const ct_funcs[])(void);
extern const unsigned long ct_nfuncs;

static long sys5(long nr, long a, long b, long c, long d, long e)
{
	long ret;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;

	__asm__ volatile("syscall" : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;

	__asm__ volatile("svc 0" : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory");
	ret = x0;
#else
#error "checktext: unsupported architecture"
#endif
	return ret;
}

static __attribute__((noreturn)) void leave(int code)
{
	for (;;)
		sys5(SYS_exit_group, code, 0, 0, 0, 0);
}

static void say(const char *s, unsigned long a, unsigned long b)
{
	char buf[160], *p = buf;
	unsigned long v[2] = { a, b };
	int i;

	while (*s && p < buf + 100)
		*p++ = *s++;
	for (i = 0; i < 2; i++) {
		char d[24];
		int n = 0;

		*p++ = ' ';
		do
			d[n++] = '0' + v[i] % 10;
		while ((v[i] /= 10) && n < 22);
		while (n)
			*p++ = d[--n];
	}
	*p++ = '\n';
	sys5(SYS_write, 2, (long)buf, p - buf, 0, 0);
}

static long number(const char *s)
{
	long v = 0, sign = 1;

	if (*s == '-') {
		sign = -1;
		s++;
	}
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return sign * v;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

__attribute__((used, noreturn)) void checktext_main(long *sp)
{
	long argc = sp[0];
	char **argv = (char **)(sp + 1);
	unsigned long n = ct_nfuncs, seed, j, k, w;

	if (argc < 2)
		leave(5);
	seed = number(argv[1]);
	if (argc > 2 && argv[2][0] != '-') {
		long want = number(argv[2]);
		long got = sys5(SYS_prctl, PR_GET_EXEC_FOLIO_SIZE, 0, 0, 0, 0);

		if (got != want) {
			say("checktext: policy, expected:", got, want);
			leave(4);
		}
	}
	for (j = 0; j < 8; j++) {
		const volatile uint64_t *page;

		k = (seed + j * (n / 8) + (seed >> 8) % (n / 8 + 1)) % n;
		if (ct_funcs[k]() != k) {
			say("checktext: function, returned:", k, ct_funcs[k]());
			leave(3);
		}
		page = (const volatile uint64_t *)(uintptr_t)ct_funcs[k];
		for (w = 2; w < 512; w++) {
			if (page[w] != mix((k << 16) | w)) {
				say("checktext: wrong text in page, word:", k, w);
				leave(2);
			}
		}
	}
	leave(64 + seed % 64);
}

#if defined(__x86_64__)
__asm__(".globl _start\n_start:\n\txor %rbp, %rbp\n\tmov %rsp, %rdi\n"
	"\tand $-16, %rsp\n\tcall checktext_main\n\thlt\n");
#else
__asm__(".globl _start\n_start:\n\tmov x0, sp\n\tbl checktext_main\n\tbrk #0\n");
#endif
