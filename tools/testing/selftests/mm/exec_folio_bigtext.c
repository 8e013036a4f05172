// SPDX-License-Identifier: GPL-2.0
/*
 * A program with several MiB of text (exec_folio_text.S).  It calls the
 * function at the start of every 4K page of that text once, in a
 * scattered order as real programs fault text in, so that every page is
 * faulted from the page cache.  With --stop it then stops itself so that
 * a parent can measure how the text is backed, and exits when continued.
 * With --mlockall it first locks itself in memory, as services that must
 * not page do (mlockall(MCL_CURRENT | MCL_FUTURE) populates the text).
 */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exec_folio_text.h"

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
	unsigned long n = exec_folio_text_pages, step = 97, i, k;
	int stop = 0, a;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--stop") == 0)
			stop = 1;
		else if (strcmp(argv[a], "--mlockall") == 0 &&
			 mlockall(MCL_CURRENT | MCL_FUTURE))
			return 2;
	}
	while (gcd(step, n) != 1)
		step += 2;
	for (i = 0, k = 0; i < n; i++, k = (k + step) % n)
		((void (*)(void))(exec_folio_text + (k << 12)))();
	if (stop)
		raise(SIGSTOP);
	return 0;
}
