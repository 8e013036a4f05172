// SPDX-License-Identifier: GPL-2.0
/*
 * punch_edge [-r ROUNDS] [-t SECS] DIR: does a hole punched in a large
 * page-cache folio let a concurrent mmap read see zeros outside the hole?
 *
 * The question comes from file_stress, which read zeros (about 1 run in
 * 600 on arm64 under TCG) at a file offset that no change had touched.
 * The suspected path, in stock 6.12: XFS's punch (xfs_flush_unmap_range())
 * writes back and truncates the page cache over the hole rounded OUT to
 * whole pages, so the page that holds the hole's unaligned start is in
 * the truncated range even though most of its bytes are not punched.  On
 * a large folio, truncate_inode_partial_folio() zeroes the range's part
 * of the folio, whole pages included, before it splits the folio; the
 * split leaves those zeroed pages in the page cache, unlocked and
 * uptodate, until the last pass of truncate_inode_pages_range() removes
 * them.  A fault in between (its PTE was zapped by the punch's unmap, so
 * the reader faults; it waits for the folio lock the truncation holds)
 * maps a zeroed page and reads zeros where the file has data.  With
 * small folios the page is removed whole and refaulted from the disk
 * (written back first), so the data stays right.
 *
 * Each round: the file (4M, no zero byte in it) is written and written
 * back, so that it is cached in large folios (checked with kpageflags:
 * the round counts only if the page below the hole is in a folio of 16
 * pages or more); readers spin on the bytes of the hole's first page
 * below the hole (never punched), through a MAP_SHARED mapping, while the
 * main thread punches [page + page / 2, + page).  Any zero read there is
 * wrong.  After the punch, pread() and the mapping must read zeroes in
 * the hole and the data around it (so that a kernel that leaves the
 * hole unzeroed fails too).  Works on any filesystem with large folios
 * (XFS; tmpfs with huge=always goes through shmem_undo_range()).
 * Prints "# " lines; exit 0 if every read was right, 1 if one was not
 * (zeroes below the hole during the punch, or wrong bytes after it), 2
 * on setup errors, 3 if fewer than 10 rounds had a large folio.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kpf.h"

#define FILESZ (4UL << 20)
#define NREADERS 2

static long page;
static char *map;
static uint64_t hole_page;	/* file offset of the page the hole starts in */
static volatile int go, stop, busy;
static long zero_reads, reads;

static uint8_t pattern(uint64_t o)
{
	uint64_t z = (o >> 3) * 0x9e3779b97f4a7c15ULL;

	z ^= z >> 29;
	return (uint8_t)(z | 1);	/* never 0 */
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *reader(void *arg)
{
	long id = (long)arg;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		__atomic_add_fetch(&busy, 1, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&go, __ATOMIC_SEQ_CST)) {
			__atomic_sub_fetch(&busy, 1, __ATOMIC_SEQ_CST);
			continue;
		}
		/* The bytes of the hole's page below the hole, 8 at a time. */
		for (uint64_t o = hole_page + id * 8; o < hole_page + page / 2; o += 8 * NREADERS) {
			uint64_t v = *(volatile uint64_t *)(map + o);

			__atomic_add_fetch(&reads, 1, __ATOMIC_RELAXED);
			for (int i = 0; i < 8; i++)
				if (((v >> (8 * i)) & 0xff) == 0) {
					__atomic_add_fetch(&zero_reads, 1, __ATOMIC_RELAXED);
					break;
				}
		}
		__atomic_sub_fetch(&busy, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int opt, fd, rounds = 2000, secs = 60, large = 0, done = 0, bad_rounds = 0;
	long first_bad = -1;
	pthread_t th[NREADERS];
	char path[4096];
	uint8_t *buf, *chk;
	long wrong_after = 0;
	double t0;

	while ((opt = getopt(argc, argv, "r:t:")) != -1) {
		switch (opt) {
		case 'r': rounds = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: punch_edge [-r ROUNDS] [-t SECS] DIR\n");
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: punch_edge [-r ROUNDS] [-t SECS] DIR\n");
		return 2;
	}
	page = sysconf(_SC_PAGESIZE);
	snprintf(path, sizeof(path), "%s/punch_edge", argv[optind]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	buf = malloc(FILESZ);
	chk = malloc(2 * page);
	if (fd < 0 || !buf || !chk) {
		fprintf(stderr, "punch_edge: %s: %s\n", path, strerror(errno));
		return 2;
	}
	map = mmap(NULL, FILESZ, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "punch_edge: mmap: %s\n", strerror(errno));
		return 2;
	}
	for (int i = 0; i < NREADERS; i++)
		pthread_create(&th[i], NULL, reader, (void *)(long)i);
	t0 = now();
	for (int r = 0; r < rounds && now() - t0 < secs; r++) {
		long z0, n;

		/* A new file: written whole, so that it is cached in large folios. */
		if (ftruncate(fd, 0)) {
			fprintf(stderr, "punch_edge: ftruncate: %s\n", strerror(errno));
			return 2;
		}
		for (uint64_t o = 0; o < FILESZ; o++)
			buf[o] = pattern(o);
		if (pwrite(fd, buf, FILESZ, 0) != (ssize_t)FILESZ || fdatasync(fd)) {
			fprintf(stderr, "punch_edge: pwrite: %s\n", strerror(errno));
			return 2;
		}
		/* The hole's page: somewhere in the middle of a 2M folio. */
		hole_page = (1UL << 20) + (r % 64) * 4 * page;
		*(volatile char *)(map + hole_page);
		n = kpf_folio_pages(map + hole_page, page);
		done++;
		if (n < 16)
			continue;
		large++;
		z0 = __atomic_load_n(&zero_reads, __ATOMIC_RELAXED);
		__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
		usleep(200);
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      hole_page + page / 2, page)) {
			fprintf(stderr, "punch_edge: punch: %s\n", strerror(errno));
			return 2;
		}
		usleep(200);
		/* Readers out of the mapping before the file is truncated. */
		__atomic_store_n(&go, 0, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&busy, __ATOMIC_SEQ_CST))
			;
		/*
		 * After the punch, through pread() and the mapping: the hole
		 * reads as zeroes, the rest of its two pages as the data.
		 */
		if (pread(fd, chk, 2 * page, hole_page) != 2 * page) {
			fprintf(stderr, "punch_edge: pread: %s\n", strerror(errno));
			return 2;
		}
		for (long i = 0; i < 2 * page; i++) {
			int in_hole = i >= page / 2 && i < page / 2 + page;
			uint8_t want = in_hole ? 0 : pattern(hole_page + i);

			if (chk[i] != want || ((volatile uint8_t *)map)[hole_page + i] != want) {
				if (!wrong_after)
					printf("# punch_edge: round %d: after the punch, offset %#llx (%s the hole) "
					       "reads %02x by pread, %02x by the mapping, not %02x\n", r,
					       (unsigned long long)(hole_page + i), in_hole ? "in" : "outside",
					       chk[i], ((volatile uint8_t *)map)[hole_page + i], want);
				wrong_after++;
			}
		}
		if (__atomic_load_n(&zero_reads, __ATOMIC_RELAXED) > z0) {
			uint8_t pc[8] = { 0 };
			uint64_t mv = *(volatile uint64_t *)(map + hole_page);

			if (pread(fd, pc, 8, hole_page) != 8)
				pc[0] = 0;
			if (bad_rounds < 5)
				printf("# punch_edge: round %d: zeros read below the hole at %#llx; "
				       "after the punch the mapping reads %016llx, pread %02x%02x%02x%02x (file %02x%02x%02x%02x), "
				       "folio of %ld pages\n", r, (unsigned long long)hole_page,
				       (unsigned long long)mv, pc[0], pc[1], pc[2], pc[3],
				       pattern(hole_page), pattern(hole_page + 1), pattern(hole_page + 2),
				       pattern(hole_page + 3), kpf_folio_pages(map + hole_page, page));
			bad_rounds++;
			if (first_bad < 0)
				first_bad = r;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < NREADERS; i++)
		pthread_join(th[i], NULL);
	printf("# punch_edge: %d rounds in %.1f s, %d with the hole's page in a large folio (kpageflags); "
	       "%ld reads below the hole during the punch, %ld read zeros, in %d rounds (first: round %ld); "
	       "%ld bytes wrong after it\n",
	       done, now() - t0, large, reads, zero_reads, bad_rounds, first_bad, wrong_after);
	if (zero_reads || wrong_after)
		return 1;
	return large < 10 ? 3 : 0;
}
