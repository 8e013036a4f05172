// SPDX-License-Identifier: GPL-2.0
/*
 * An x86 PIE with no libc and 512K of text (exec_folio_text.S), built
 * both for x86_64 (nolibc-pie) and with -m32 (compat-pie): it stops
 * itself, so that tests/guest/compat.sh can read where the kernel placed
 * it, and exits when continued.
 */
#ifdef __x86_64__
#define NR_getpid	39
#define NR_kill		62
#define NR_exit		60

static long sys2(long nr, long a, long b)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b)
			 : "rcx", "r11", "memory");
	return ret;
}
#else
#define NR_getpid	20
#define NR_kill		37
#define NR_exit		1

static long sys2(long nr, long a, long b)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b)
			 : "memory");
	return ret;
}
#endif

void _start(void)
{
	sys2(NR_kill, sys2(NR_getpid, 0, 0), 19);	/* SIGSTOP */
	sys2(NR_exit, 0, 0);
	for (;;)
		;
}
