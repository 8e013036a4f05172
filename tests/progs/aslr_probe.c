// SPDX-License-Identifier: GPL-2.0
/*
 * aslr_probe [--no-randomize]: print the load bias of the program, of the
 * dynamic loader and of libc, one "NAME BIAS" line each ("exe", "ld",
 * "libc"), and exit.  Linked as a PIE with several MiB of text
 * (exec_folio_text.S), so that the exec folio policy places it for 2M
 * folios; run it many times to see the load addresses ASLR picks.
 *
 * --no-randomize re-executes it with ADDR_NO_RANDOMIZE, as setarch -R.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/personality.h>
#include <unistd.h>

#include "exec_folio_text.h"

static int one(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = info->dlpi_name;
	int *n = data;

	(void)size;
	if ((*n)++ == 0)
		name = "exe";
	else if (strstr(name, "libc.so"))
		name = "libc";
	else if (strstr(name, "ld-linux"))
		name = "ld";
	else
		return 0;
	printf("%s %#lx\n", name, (unsigned long)info->dlpi_addr);
	return 0;
}

int main(int argc, char **argv)
{
	int n = 0;

	if (argc > 1 && strcmp(argv[1], "--no-randomize") == 0) {
		if (personality(ADDR_NO_RANDOMIZE) < 0) {
			perror("aslr_probe: personality");
			return 1;
		}
		/* By its path: a chroot may have no /proc. */
		execv(argv[0], (char *[]){ argv[0], NULL });
		perror("aslr_probe: execv");
		return 1;
	}
	/* Keep the big text linked in. */
	if (argc > 2)
		((void (*)(void))exec_folio_text)();
	dl_iterate_phdr(one, &n);
	return 0;
}
