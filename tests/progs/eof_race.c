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
 *  - a thread on CPU 1 arms fault_delay for itself and faults at 128K of
 *    a shared mapping: fault-around reads i_size (256K) and is held
 *    before it locks the folio, until the main thread (CPU 0) releases it;
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
#include <sched.h>
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
/* The longest hold: only if the release never comes. */
#define DELAY_MS 5000

static long psz;
static char *map;
static int ready[2], go[2];
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

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int delay_write(const char *cmd)
{
	int fd = open(DELAY, O_WRONLY), n = strlen(cmd), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, cmd, n) == n;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * The faulter, on CPU 1 (the main thread is on CPU 0, so that the hold,
 * which masks interrupts there, never holds up the main thread's timers):
 * it says it is ready, waits for the word, arms fault_delay and faults.
 */
static void *faulter(void *arg)
{
	char cmd[32], c = 0;

	(void)arg;
	if (pin(1) || write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1) {
		perror("eof_race: faulter");
		exit(2);
	}
	snprintf(cmd, sizeof(cmd), "%d %d\n", gettid(), DELAY_MS);
	if (delay_write(cmd)) {
		perror("eof_race: arming " DELAY);
		exit(2);
	}
	(void)*(volatile char *)(map + FAULT_AT);
	return NULL;
}

/* Pages past the new end of file that a PTE maps (pagemap's view). */
static long mapped_past_eof(void)
{
	long i, n = 0;
	uint64_t ent;

	for (i = (CUT + psz - 1) / psz; i < (long)(FILE_SIZE / psz); i++) {
		if (pread(kpf_pagemap_fd, &ent, 8, ((uintptr_t)map / psz + i) * 8) != 8)
			return -1;
		n += ent >> 63;
	}
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
	if (fd < 0 || !buf || pipe(pipefd) || pipe(ready) || pipe(go) || kpf_open() ||
	    delay_state(st, sizeof(st))) {
		perror("eof_race: setup (pagemap, kpageflags and " DELAY " needed)");
		return 2;
	}
	if (pin(0)) {
		perror("eof_race: CPU 0 (2 CPUs needed)");
		return 2;
	}
	memset(buf, 0x5a, FILE_SIZE);
	/*
	 * At an address aligned to the file's size: fault-around's window is
	 * aligned in the address space (fault_around_bytes, 64K), and only
	 * so does the window of the fault at 128K reach past 132K whatever
	 * the address mmap() picks (without the patch, its pages past end of
	 * file are mapped in every round, not in some boots).
	 */
	map = mmap(NULL, 2 * FILE_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map != MAP_FAILED)
		map = mmap((char *)(((uintptr_t)map + FILE_SIZE - 1) & ~(FILE_SIZE - 1)), FILE_SIZE,
			   PROT_READ | PROT_EXEC, MAP_SHARED | MAP_FIXED, fd, 0);
	if (map == MAP_FAILED) {
		perror("eof_race: mmap");
		return 2;
	}
	for (r = 0; r < nrounds; r++) {
		struct iovec iov = { map, psz };
		int held_over = 0, sigbus;
		char c = 0;
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
		if (pthread_create(&th, NULL, faulter, NULL) || read(ready[0], &c, 1) != 1) {
			perror("eof_race: thread");
			return 2;
		}
		/*
		 * Empty every CPU's LRU batches now, the faulter's stack in
		 * them (mlock() drains them all): else the truncation's drain
		 * waits for the CPU that holds the fault, and ends only after it.
		 */
		if (mlock(buf, psz) || munlock(buf, psz) || write(go[1], &c, 1) != 1) {
			perror("eof_race: mlock");
			return 2;
		}
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
		if (delay_write("release")) {
			perror("eof_race: releasing " DELAY);
			return 2;
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
