// SPDX-License-Identifier: GPL-2.0
/*
 * exec_cost: what the exec folio policy costs where it is not meant to
 * help, measured in the guest (tests/guest/cost.sh).
 *
 *   exec_cost exec RUNS PROGRAM
 *	RUNS times: drop the page cache, then fork and exec PROGRAM --stop
 *	and wait until it stops itself (it has faulted all its text).
 *	Prints the median and the fastest time, in ms.
 *   exec_cost scan FILE MIB
 *	Write FILE (MIB MiB of data), drop the page cache, map it private
 *	and read-only (not executable, as a program maps a data file), and
 *	read one byte of every page in order.  Prints the time in ms and
 *	the major and minor faults the scan took.
 *
 * Output: one "# cost ..." line; exit 0, or 1 with a message on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "folio_walk.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	int ok;

	sync();
	if (fd < 0)
		return -1;
	ok = write(fd, "3", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cost_exec(int runs, const char *path)
{
	double *ms = calloc(runs, sizeof(*ms));

	if (!ms)
		return 1;
	for (int i = 0; i < runs; i++) {
		double t0;
		int status;
		pid_t pid;

		if (drop_caches()) {
			fprintf(stderr, "exec_cost: cannot drop the page cache\n");
			return 1;
		}
		t0 = now_ms();
		pid = fork();
		if (pid == 0) {
			execl(path, path, "--stop", (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, WUNTRACED) != pid ||
		    !WIFSTOPPED(status)) {
			fprintf(stderr, "exec_cost: %s did not stop itself\n", path);
			return 1;
		}
		ms[i] = now_ms() - t0;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	qsort(ms, runs, sizeof(*ms), cmp_double);
	printf("# cost exec %s: runs=%d median=%.1f ms fastest=%.1f ms\n",
	       path, runs, ms[runs / 2], ms[0]);
	free(ms);
	return 0;
}

/* The share of the mapping's pages in folios of each order, for the log. */
static void print_orders(char *map, size_t len, long psize)
{
	unsigned long count[32] = { 0 }, n = len / psize;
	struct folio_walk fw = { .page_shift = __builtin_ctzl(psize) };

	if (folio_walk_open(&fw, getpid())) {
		printf(" (not visible)");
		return;
	}
	for (unsigned long i = 0; i < n; i++) {
		int order = folio_walk_folio_order(&fw, (unsigned long)map + i * psize);

		if (order >= 0 && order < 32)
			count[order]++;
	}
	folio_walk_close(&fw);
	for (int o = 0; o < 32; o++)
		if (count[o])
			printf(" %luK=%.1f%%", (psize << o) >> 10, 100.0 * count[o] / n);
}

static int cost_scan(const char *path, long mib)
{
	long psize = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)mib << 20;
	struct rusage r0, r1;
	char buf[1 << 16];
	volatile char sum = 0;
	double t0, t;
	char *map;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "exec_cost: %s: %s\n", path, strerror(errno));
		return 1;
	}
	memset(buf, 0x5a, sizeof(buf));
	for (size_t done = 0; done < len; done += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			fprintf(stderr, "exec_cost: writing %s failed\n", path);
			return 1;
		}
	if (fsync(fd) || drop_caches()) {
		fprintf(stderr, "exec_cost: cannot drop the page cache\n");
		return 1;
	}
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "exec_cost: mmap: %s\n", strerror(errno));
		return 1;
	}
	getrusage(RUSAGE_SELF, &r0);
	t0 = now_ms();
	for (size_t off = 0; off < len; off += psize)
		sum += map[off];
	t = now_ms() - t0;
	getrusage(RUSAGE_SELF, &r1);
	printf("# cost scan %ldM: %.1f ms majflt=%ld minflt=%ld folios:", mib, t,
	       r1.ru_majflt - r0.ru_majflt, r1.ru_minflt - r0.ru_minflt);
	print_orders(map, len, psize);
	printf("\n");
	munmap(map, len);
	close(fd);
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "exec") && atoi(argv[2]) > 0)
		return cost_exec(atoi(argv[2]), argv[3]);
	if (argc == 4 && !strcmp(argv[1], "scan") && atol(argv[3]) > 0)
		return cost_scan(argv[2], atol(argv[3]));
	fprintf(stderr, "usage: exec_cost exec RUNS PROGRAM | exec_cost scan FILE MIB\n");
	return 1;
}
