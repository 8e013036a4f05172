// SPDX-License-Identifier: GPL-2.0
/*
 * eof_race [-n ROUNDS] [-R MIN] DIR: a fault-around that read i_size
 * before a truncation must not map pages past the new end of file ("mm/
 * filemap: read i_size under each folio's lock in filemap_map_pages()"),
 * with the race run on purpose by the fault_delay module (tests/kmod).
 *
 * Each round (ROUNDS, 20):
 *  - write a 256K file in one pwrite(): one dirty large folio on XFS;
 *  - splice one of its pages into a pipe, a reference that makes
 *    truncation's split of the folio fail, so that it stays in the page
 *    cache, dirty, its tail zeroed;
 *  - a thread arms fault_delay for itself and faults at 128K of a shared
 *    mapping: fault-around reads i_size (256K) and is held before it
 *    locks the folio;
 *  - meanwhile the file is truncated to 132K, and the round counts only
 *    if the fault was still held when the truncation ended and the page
 *    at 128K then was in a large folio (kpageflags);
 *  - once the fault is done, no page past the new end of file may be
 *    mapped (pagemap) and a read at 136K must raise SIGBUS.
 *
 * Exit status 0 if no round mapped a page past end of file and at least
 * MIN rounds (-R, default ROUNDS / 2) counted, 1 if a round mapped one,
 * 2 on a setup error, 3 if fewer rounds counted.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "kpf.h"

#define SZ_K 1024UL
#define FILE_SIZE (256 * SZ_K)
#define FAULT_AT (128 * SZ_K)
#define CUT (132 * SZ_K)
#define DELAY "/sys/kernel/debug/fault_delay"
#define DELAY_MS 500

static long psz;
static char *map;
static sigjmp_buf jb;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void bus(int sig)
{
	(void)sig;
	siglongjmp(jb, 1);
}

/* Read the word at @p: 1 if that raised SIGBUS. */
static __attribute__((noinline)) int read_word(const char *p, uint64_t *v)
{
	if (sigsetjmp(jb, 1))
		return 1;
	*v = *(const volatile uint64_t *)p;
	return 0;
}

/* fault_delay's state: "idle", "armed", "holding" or "done". */
static int delay_state(char *st, size_t len)
{
	char buf[64];
	int fd = open(DELAY, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	n = strcspn(buf, " \n");
	if ((size_t)n >= len)
		n = len - 1;
	memcpy(st, buf, n);
	st[n] = '\0';
	return 0;
}

static void *faulter(void *arg)
{
	char cmd[32];
	int fd = open(DELAY, O_WRONLY), n;

	(void)arg;
	n = snprintf(cmd, sizeof(cmd), "%d %d\n", gettid(), DELAY_MS);
	if (fd < 0 || write(fd, cmd, n) != n) {
		perror("eof_race: arming " DELAY);
		exit(2);
	}
	close(fd);
	(void)*(volatile char *)(map + FAULT_AT);
	return NULL;
}

/* Pages past the new end of file that a PTE maps (pagemap's view). */
static long mapped_past_eof(void)
{
	long i, n = 0;
	int pm = open("/proc/self/pagemap", O_RDONLY);
	uint64_t ent;

	if (pm < 0)
		return -1;
	for (i = (CUT + psz - 1) / psz; i < (long)(FILE_SIZE / psz); i++) {
		if (pread(pm, &ent, 8, ((uintptr_t)map / psz + i) * 8) != 8) {
			n = -1;
			break;
		}
		n += ent >> 63;
	}
	close(pm);
	return n;
}

int main(int argc, char **argv)
{
	long nrounds = 20, min = -1, counted = 0, wrong = 0, r;
	char path[4096], st[16], *buf;
	int fd, opt, pipefd[2];
	struct sigaction sa;

	while ((opt = getopt(argc, argv, "n:R:")) != -1) {
		switch (opt) {
		case 'n': nrounds = atol(optarg); break;
		case 'R': min = atol(optarg); break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || nrounds < 1) {
usage:
		fprintf(stderr, "usage: eof_race [-n ROUNDS] [-R MIN] DIR\n");
		return 2;
	}
	if (min < 0)
		min = nrounds / 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	psz = sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bus;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
	snprintf(path, sizeof(path), "%s/eof_race", argv[optind]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	buf = malloc(FILE_SIZE);
	if (fd < 0 || !buf || pipe(pipefd) || kpf_open() || delay_state(st, sizeof(st))) {
		perror("eof_race: setup (pagemap, kpageflags and " DELAY " needed)");
		return 2;
	}
	memset(buf, 0x5a, FILE_SIZE);
	map = mmap(NULL, FILE_SIZE, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("eof_race: mmap");
		return 2;
	}
	for (r = 0; r < nrounds; r++) {
		struct iovec iov = { map, psz };
		int held_over = 0, sigbus;
		uint64_t v = 0;
		pthread_t th;
		long pages, n;
		double t, trunc_ms;

		if (ftruncate(fd, 0) || pwrite(fd, buf, FILE_SIZE, 0) != (ssize_t)FILE_SIZE) {
			perror("eof_race: write");
			return 2;
		}
		/* The pin, then no PTE left: truncation has nothing to unmap. */
		(void)*(volatile char *)map;
		if (vmsplice(pipefd[1], &iov, 1, 0) != psz) {
			perror("eof_race: vmsplice");
			return 2;
		}
		madvise(map, FILE_SIZE, MADV_DONTNEED);
		/*
		 * Empty every CPU's LRU batches now (mlock() drains them all):
		 * else the truncation's drain waits for the CPU that holds the
		 * fault, and ends only after it.
		 */
		if (mlock(buf, psz) || munlock(buf, psz)) {
			perror("eof_race: mlock");
			return 2;
		}
		pthread_create(&th, NULL, faulter, NULL);
		/* Wait for the fault to be held (at most 5 s). */
		for (t = 0; t < 5e6; t += 1000) {
			if (delay_state(st, sizeof(st)) == 0 && !strcmp(st, "holding"))
				break;
			usleep(1000);
		}
		trunc_ms = -1;
		if (!strcmp(st, "holding")) {
			double t1 = now_ms();

			if (ftruncate(fd, CUT)) {
				perror("eof_race: ftruncate");
				return 2;
			}
			trunc_ms = now_ms() - t1;
			held_over = delay_state(st, sizeof(st)) == 0 && !strcmp(st, "holding");
		}
		pthread_join(th, NULL);
		pages = kpf_folio_pages(map + FAULT_AT, psz);
		n = mapped_past_eof();
		sigbus = read_word(map + CUT + psz, &v);
		if (n < 0) {
			perror("eof_race: pagemap");
			return 2;
		}
		printf("# eof_race: round %ld: fault %s the truncation (%.1f ms; %s), its folio %ld pages; "
		       "%ld pages past end of file mapped, a read at %#lx %s\n",
		       r + 1, held_over ? "held over" : "not held over", trunc_ms, st, pages, n,
		       CUT + psz, sigbus ? "raises SIGBUS" : "reads");
		if (n || !sigbus) {
			wrong++;
			if (sigbus)
				printf("eof_race: ERROR: round %ld: %ld pages past end of file %#lx mapped\n",
				       r + 1, n, CUT);
			else
				printf("eof_race: ERROR: round %ld: %ld pages past end of file %#lx mapped; "
				       "a read at %#lx returns %#llx instead of SIGBUS\n", r + 1, n, CUT,
				       CUT + psz, (unsigned long long)v);
		}
		if (held_over && pages > 1)
			counted++;
		/* Unpin; put the file back for the next round. */
		if (read(pipefd[0], buf, psz) != psz) {
			perror("eof_race: unpin");
			return 2;
		}
		memset(buf, 0x5a, psz);
		madvise(map, FILE_SIZE, MADV_DONTNEED);
	}
	printf("# eof_race: %ld rounds, %ld of them held a fault over the truncation of a large folio; "
	       "in %ld, pages past end of file were mapped\n", nrounds, counted, wrong);
	if (wrong)
		return 1;
	if (counted < min) {
		printf("# eof_race: the race did not run: %ld rounds counted, wanted %ld\n", counted, min);
		return 3;
	}
	return 0;
}
