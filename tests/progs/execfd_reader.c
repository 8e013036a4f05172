// SPDX-License-Identifier: GPL-2.0
/*
 * The interpreter of a binfmt_misc entry with the "O" flag, for
 * tests/guest/execfd.sh: the kernel opens the binary for execve() and
 * hands that same open file to the interpreter (AT_EXECFD).  Read it
 * all with read(), as an interpreter reads its script or bytecode, map
 * it PROT_EXEC and fault every page (so that exec_folio_ctl report sees
 * the folios those reads made), then stop for the caller to measure.
 * A file left in a special read mode by execve() (the old FMODE_RANDOM)
 * would have been read without readahead, in single pages.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

static char buf[65536];

int main(void)
{
	long fd = (long)getauxval(AT_EXECFD);
	long psize = sysconf(_SC_PAGESIZE);
	unsigned long sum = 0;
	off_t total = 0, i;
	ssize_t n;
	char *map;

	if (fd <= 0) {
		fprintf(stderr, "execfd_reader: no AT_EXECFD\n");
		return 2;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	if (n < 0 || !total) {
		perror("execfd_reader: read");
		return 2;
	}
	map = mmap(NULL, total, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		perror("execfd_reader: mmap");
		return 2;
	}
	for (i = 0; i < total; i += psize)
		sum += (unsigned char)map[i];
	printf("execfd_reader: read %lld bytes (sum %lu)\n", (long long)total, sum);
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
