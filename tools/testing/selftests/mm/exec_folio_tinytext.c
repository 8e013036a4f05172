// SPDX-License-Identifier: GPL-2.0
/*
 * exec_folio_test helper: a few KiB of text and no libc: stops itself so that a
 * parent can measure how its text is backed, then exits.  The "auto"
 * policy must leave text this small in small folios.
 */
#include <signal.h>
#include <sys/syscall.h>

static long sys3(long nr, long a, long b, long c)
{
	long ret;
#if defined(__x86_64__)
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	ret = x0;
#else
#error "tinytext: unsupported architecture"
#endif
	return ret;
}

void _start(void)
{
	sys3(SYS_kill, sys3(SYS_getpid, 0, 0, 0), SIGSTOP, 0);
	sys3(SYS_exit, 0, 0, 0);
	for (;;)
		;
}

/*
 * 1M of read-only data after the text, so that the file is much larger
 * than the text: a read that ignored the end of the text VMA would put
 * some of it in large folios.
 */
const char exec_folio_filler[1 << 20] = { 1 };
