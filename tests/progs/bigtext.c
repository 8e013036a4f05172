// SPDX-License-Identifier: GPL-2.0
/*
 * A program with several MiB of text (see gen-text.py).  It calls every
 * function of the generated text once, in a scattered order as real
 * programs fault text in, so that every page of its text is faulted
 * from the page cache.  With --stop it then stops itself so that a
 * parent can measure how the text is backed, and exits when continued.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

extern void (*const text_funcs[])(void);
extern const unsigned long text_nfuncs;

static unsigned long gcd(unsigned long a, unsigned long b)
{
	while (b) {
		unsigned long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int main(int argc, char **argv)
{
	unsigned long n = text_nfuncs, step = 97, i, k;

	while (gcd(step, n) != 1)
		step += 2;
	for (i = 0, k = 0; i < n; i++, k = (k + step) % n)
		text_funcs[k]();
	if (argc > 1 && strcmp(argv[1], "--stop") == 0)
		raise(SIGSTOP);
	return 0;
}
