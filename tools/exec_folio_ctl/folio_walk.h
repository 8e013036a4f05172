/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the resident pages of a mapping are backed by folios, read from
 * /proc/<pid>/pagemap and /proc/kpageflags.  The definitions are those
 * of the kernel's tools/mm/thpmaps, so the numbers agree with it.
 */
#ifndef EXEC_FOLIO_FOLIO_WALK_H
#define EXEC_FOLIO_FOLIO_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc_smaps.h"

#define FW_MAX_ORDER	20
#define FW_MAX_CONT	4

/* Counts in base pages, for one kind of memory (file or anonymous). */
struct folio_counts {
	/*
	 * Large folios wholly and contiguously mapped by PTEs, by order,
	 * split by whether the mapping address is aligned to the folio
	 * size.  PMD-mapped folios are not included here.
	 */
	uint64_t aligned[FW_MAX_ORDER + 1];
	uint64_t unaligned[FW_MAX_ORDER + 1];
	/* Pages of large folios that are not wholly, contiguously mapped. */
	uint64_t partial;
	/* Present pages that are not part of a large folio. */
	uint64_t small;
	/*
	 * Pages in blocks of 1 << cont_orders[i] pages, aligned to the block
	 * size in both address and PFN, within one folio and mapped by PTEs:
	 * what arm64 can map with contiguous PTEs (contpte).
	 */
	uint64_t cont[FW_MAX_CONT];
	/* Pages mapped by PMD (from smaps). */
	uint64_t pmd_mapped;
	/* All resident pages: the percentage base (smaps Rss). */
	uint64_t resident;
};

struct folio_report {
	struct folio_counts file;
	struct folio_counts anon;
};

struct fw_flags_cache;
struct fw_page;

struct folio_walk {
	int pagemap_fd;
	int kpageflags_fd;
	unsigned int page_shift;
	unsigned int pmd_order;
	unsigned int nr_cont;
	unsigned int cont_orders[FW_MAX_CONT];
	/*
	 * Optional (NULL: none): the kpageflags of PFNs already read, kept
	 * across processes, whose shared text (libc, ...) is then read once.
	 */
	struct fw_flags_cache *cache;
	/* Set by the caller: walk without PAGEMAP_SCAN, as before 6.7. */
	bool no_scan;
	/* Set by folio_walk_open(): PAGEMAP_SCAN finds the present pages. */
	bool scan;
	/* The walk's buffer: a bounded chunk of a mapping's present pages. */
	struct fw_page *pages;
};

/* A cache for folio_walk.cache; NULL if out of memory. */
struct fw_flags_cache *folio_walk_cache_new(void);
void folio_walk_cache_free(struct fw_flags_cache *cache);

/* The order of a PMD mapping, from the THP sysfs; -1 with errno set. */
int folio_walk_pmd_order(unsigned int page_shift);

/*
 * The order of the block that this machine can map with one TLB entry of
 * contiguous PTEs: arm64's contpte block (64K with 4K pages, 2M with 16K
 * and 64K pages), 64K elsewhere (as AMD's and RISC-V's PTE coalescing).
 */
unsigned int folio_walk_contpte_order(unsigned int page_shift);

/*
 * Whether one entry of contiguous PTEs maps a whole contpte block in the
 * TLB here: true on arm64, false where blocks are at best coalesced by
 * the hardware unseen.
 */
bool folio_walk_arch_contpte(void);

/*
 * Whether pagemap shows this process page frame numbers: it shows 0
 * without CAP_SYS_ADMIN in the initial user namespace, which would make
 * every page look small.  Returns 1, 0, or -1 with errno set.
 */
int folio_walk_pfns_visible(unsigned int page_shift);

/*
 * Whether this kernel has the PAGEMAP_SCAN ioctl (6.7 and later), which
 * the walk of a maps_only mapping needs to find PMD mappings, and with
 * which every walk visits only the present pages of a mapping.
 */
bool folio_walk_can_scan(void);

/*
 * Open the pagemap of @pid and /proc/kpageflags (both need root to show
 * PFNs), and allocate the walk's buffer, whose size does not depend on
 * the process.  Returns 0, or -1 with errno set (ENOMEM: this program is
 * out of memory, which says nothing of the process).
 */
int folio_walk_open(struct folio_walk *fw, pid_t pid);
void folio_walk_close(struct folio_walk *fw);

/*
 * Add up how @vma's resident pages are backed into @out (which the
 * caller zeroes, so that mappings can be rolled up).  A mapping from
 * smaps comes with its resident and PMD-mapped counts; for one from maps
 * (maps_only) the walk takes them from pagemap and PAGEMAP_SCAN.
 * Its cost follows the resident pages, not the size of the mapping:
 * with PAGEMAP_SCAN only present pages are read, and without it (kernels
 * before 6.7, or no_scan) pagemap is read until smaps' count of resident
 * pages is found; memory is bounded by the walk's buffer.
 * Returns 0, or -1 with errno set: EPERM if pagemap hides page frame
 * numbers, EOPNOTSUPP for a maps_only mapping without PAGEMAP_SCAN.
 */
int folio_walk_vma(struct folio_walk *fw, const struct vma_info *vma,
		   struct folio_report *out);

/*
 * The order of the folio that backs @addr in the process @fw was opened
 * for, found through kpageflags from its head to its last tail: also for
 * a folio that is only partly mapped.  Returns the order, or -1 with
 * errno set (ENOENT: @addr is not mapped to a page).
 */
int folio_walk_folio_order(struct folio_walk *fw, unsigned long addr);

/* Add every counter of @from to @to (rollups). */
void folio_report_add(struct folio_report *to, const struct folio_report *from);

/* Percent of @pages in @counts->resident, 0 if nothing is resident. */
double folio_percent(const struct folio_counts *counts, uint64_t pages);

#endif
