// SPDX-License-Identifier: GPL-2.0
/*
 * fault_around_split [-R ROUNDS] [-F FAULTS] [-O OVERLAPS] DIR [SECS] [READERS]:
 * fault-around that starts inside a large page cache folio while the
 * folio is split must map nothing below its start.
 *
 * File U's first 1M is one folio (4K pages: order 8, four 64-page slots
 * of its XArray node).  The upper VMA maps U from its last slot on (file
 * index 192), so a fault on its first page starts fault-around inside
 * that folio, through a sibling entry.  The lower VMA, directly below it
 * in the same page table, maps another file, L, whose every page holds
 * its own index.  One thread, with the readers held off, drops U's first
 * 1M and writes it again (one large folio), then lets the readers go and
 * punches a page near the folio's end, which splits it.  The readers zap
 * both VMAs, fault on the upper VMA's first page, and read the lower
 * VMA's pages that a walk stepping back to the folio's second slot would
 * reach: a page of U there (a PTE that fault-around put below its start,
 * outside its VMA) is an error.  Such a PTE is one that truncation cannot
 * find again (it unmaps by file index): a debug kernel then stops at
 * VM_BUG_ON_FOLIO(folio_mapped()).
 *
 * That the race ran is checked, not assumed: each round the splitter
 * looks up, in the kernel's pagemap and kpageflags, the folio it wrote
 * (it must be the whole 1M: else that round has no split to race with),
 * and the readers count their faults, and those that started while a
 * split was in flight.  -R, -F and -O are floors for the rounds with a
 * whole 1M folio, the faults and those overlaps: a run below one of them
 * did not exercise the race, whatever it saw.
 *
 * Exit status 0 if no page was wrong and every floor was reached, 1 if a
 * page was wrong, 2 on a setup error, 3 if a floor was not reached.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kpf.h"

#define SZ_2M (2UL << 20)
/* The folio: 4 slots of 64 pages in its XArray node (4K pages) */
#define FOLIO (1UL << 20)
#define TAG_U 0x5500000000000000ULL
#define TAG_L 0x4c00000000000000ULL

static long psz, lpages, upages = 64;
static int fdu, stop, rewriting, splitting;
static char *lmap, *umap;
static long rounds, large, faults, overlaps, bad, kpf_err;

#define LOAD(v) __atomic_load_n(&(v), __ATOMIC_RELAXED)
#define ADD(v, n) __atomic_add_fetch(&(v), (n), __ATOMIC_RELAXED)

/* Write [off, off + len) of @fd with each word holding @tag | its page. */
static int fill(int fd, uint64_t tag, uint64_t off, uint64_t len)
{
	uint64_t *b = malloc(len);
	ssize_t n;

	if (!b)
		return -1;
	for (uint64_t p = 0; p < len; p += 8)
		b[p / 8] = tag | ((off + p) / psz);
	n = pwrite(fd, b, len, off);
	free(b);
	return n == (ssize_t)len ? 0 : -1;
}

/*
 * The pages of the folio that holds U's page at the upper VMA's start,
 * through a mapping of the splitter's own (the readers are held off).
 */
static long kpf_check(void)
{
	char *m = mmap(NULL, FOLIO, PROT_READ, MAP_SHARED, fdu, 0);
	long n;

	if (m == MAP_FAILED)
		return -1;
	(void)*(volatile char *)(m + lpages * psz);
	n = kpf_folio_pages(m + lpages * psz, psz);
	munmap(m, FOLIO);
	return n;
}

static void *splitter(void *arg)
{
	long n;

	(void)arg;
	while (!LOAD(stop)) {
		/*
		 * Drop the folio's range (no writeback) and write it again,
		 * with the readers held off, so that no fault reads part of
		 * it in small folios first: one large folio.
		 */
		__atomic_store_n(&rewriting, 1, __ATOMIC_SEQ_CST);
		usleep(100);
		fallocate(fdu, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, FOLIO);
		if (fill(fdu, TAG_U, 0, FOLIO))
			perror("fault_around_split: pwrite");
		/* Is it one folio of 1M, where the upper VMA starts? */
		n = kpf_check();
		if (n < 0)
			ADD(kpf_err, 1);
		else if (n >= (long)(FOLIO / psz))
			ADD(large, 1);
		__atomic_store_n(&rewriting, 0, __ATOMIC_SEQ_CST);
		usleep(500);
		/* Split it under the readers' faults. */
		__atomic_store_n(&splitting, 1, __ATOMIC_SEQ_CST);
		fallocate(fdu, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, FOLIO - 2 * psz, psz);
		__atomic_store_n(&splitting, 0, __ATOMIC_SEQ_CST);
		ADD(rounds, 1);
	}
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	while (!LOAD(stop)) {
		while (LOAD(rewriting) && !LOAD(stop))
			usleep(50);
		madvise(lmap, lpages * psz, MADV_DONTNEED);
		madvise(umap, upages * psz, MADV_DONTNEED);
		if (LOAD(splitting))
			ADD(overlaps, 1);
		(void)*(volatile char *)umap;
		ADD(faults, 1);
		/* fault-around can step back to the folio's 2nd 64-page slot */
		for (long i = lpages - (FOLIO / psz - 64) + 64; i < lpages; i++) {
			uint64_t v = *(volatile uint64_t *)(lmap + i * psz);

			if (v == (TAG_L | i))
				continue;
			if (ADD(bad, 1) <= 5)
				printf("fault_around_split: ERROR: %ld pages below the upper VMA, the lower VMA reads %#llx (expected %#llx)\n",
				       lpages - i, (unsigned long long)v,
				       (unsigned long long)(TAG_L | i));
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long min_large = 0, min_faults = 0, min_overlaps = 0;
	int secs, nr, fdl, i, opt, rc;
	pthread_t th[9];
	char path[4096], *r;

	while ((opt = getopt(argc, argv, "R:F:O:")) != -1) {
		switch (opt) {
		case 'R': min_large = atol(optarg); break;
		case 'F': min_faults = atol(optarg); break;
		case 'O': min_overlaps = atol(optarg); break;
		default: goto usage;
		}
	}
	argc -= optind - 1;
	argv += optind - 1;
	secs = argc > 2 ? atoi(argv[2]) : 30;
	nr = argc > 3 ? atoi(argv[3]) : 6;
	if (argc < 2 || argc > 4 || secs < 1 || nr < 1 || nr > 8) {
usage:
		fprintf(stderr, "usage: fault_around_split [-R ROUNDS] [-F FAULTS] [-O OVERLAPS] DIR [SECS] [READERS]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	psz = sysconf(_SC_PAGESIZE);
	/* The upper VMA starts in the folio's last 64-page slot. */
	lpages = FOLIO * 3 / 4 / psz;
	snprintf(path, sizeof(path), "%s/fault_around_split.u", argv[1]);
	fdu = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	snprintf(path, sizeof(path), "%s/fault_around_split.l", argv[1]);
	fdl = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fdu < 0 || fdl < 0 || fill(fdu, TAG_U, 0, 2 * SZ_2M) ||
	    fill(fdl, TAG_L, 0, lpages * psz)) {
		perror("fault_around_split: files");
		return 2;
	}
	/* Both VMAs in one 2M-aligned region: one page table. */
	r = mmap(NULL, 2 * SZ_2M, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return 2;
	r = (char *)(((uintptr_t)r + SZ_2M - 1) & ~(SZ_2M - 1));
	lmap = mmap(r, lpages * psz, PROT_READ, MAP_SHARED | MAP_FIXED, fdl, 0);
	umap = mmap(r + lpages * psz, upages * psz, PROT_READ | PROT_EXEC,
		    MAP_SHARED | MAP_FIXED, fdu, lpages * psz);
	if (lmap == MAP_FAILED || umap == MAP_FAILED) {
		perror("fault_around_split: mmap");
		return 2;
	}
	pthread_create(&th[0], NULL, splitter, NULL);
	for (i = 1; i <= nr; i++)
		pthread_create(&th[i], NULL, reader, NULL);
	for (i = 0; i < secs * 10 && !LOAD(bad); i++)
		usleep(100000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i <= nr; i++)
		pthread_join(th[i], NULL);
	printf("# fault_around_split: %ld splits, %ld of a whole 1M folio (%ld not looked up), "
	       "%ld faults at the upper VMA's start, %ld of them during a split, %ld wrong pages below it\n",
	       rounds, large, kpf_err, faults, overlaps, bad);
	if (bad)
		return 1;
	rc = 0;
	if (large < min_large) {
		printf("# fault_around_split: the race did not run: %ld rounds with a whole 1M folio, wanted %ld\n",
		       large, min_large);
		rc = 3;
	}
	if (faults < min_faults) {
		printf("# fault_around_split: the race did not run: %ld faults, wanted %ld\n",
		       faults, min_faults);
		rc = 3;
	}
	if (overlaps < min_overlaps) {
		printf("# fault_around_split: the race did not run: %ld faults during a split, wanted %ld\n",
		       overlaps, min_overlaps);
		rc = 3;
	}
	return rc;
}
