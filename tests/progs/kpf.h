/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpf.h: the size of the folio that maps an address, from the kernel's
 * own view (/proc/self/pagemap and /proc/kpageflags; needs
 * CAP_SYS_ADMIN), for the stress programs to check that a race they
 * claim to run had the large folio it needs.  Deliberately not the
 * utility's walk (tools/exec_folio_ctl/folio_walk.c): a test of the
 * series should not measure with the code under test.
 */
#ifndef KPF_H
#define KPF_H
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_MAX_SCAN 512	/* pages: a folio of up to 2M with 4K pages */

static int kpf_pagemap_fd = -1, kpf_flags_fd = -1;

/* 0 if pagemap and kpageflags can be read, else -1. */
static inline int kpf_open(void)
{
	if (kpf_pagemap_fd < 0)
		kpf_pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
	if (kpf_flags_fd < 0)
		kpf_flags_fd = open("/proc/kpageflags", O_RDONLY);
	return kpf_pagemap_fd < 0 || kpf_flags_fd < 0 ? -1 : 0;
}

/*
 * kpf_folio_pages() - pages in the folio mapped at @addr
 * @addr: an address of this process
 * @psz: the base page size
 *
 * Return: the folio's number of pages (1 for a small folio), 0 if
 * nothing is mapped there, -1 if the kernel's view cannot be read.  A
 * folio larger than KPF_MAX_SCAN pages counts as KPF_MAX_SCAN.
 */
static inline long kpf_folio_pages(const void *addr, long psz)
{
	uint64_t ent, pfn, lo, fl[2 * KPF_MAX_SCAN];
	long i, n, at;
	ssize_t got;

	if (kpf_open() ||
	    pread(kpf_pagemap_fd, &ent, 8, (uintptr_t)addr / psz * 8) != 8)
		return -1;
	if (!(ent >> 63))
		return 0;
	pfn = ent & ((1ULL << 55) - 1);
	if (!pfn)
		return -1;	/* PFNs hidden: no CAP_SYS_ADMIN */
	/* The flags of the pages around it, in one read. */
	lo = pfn >= KPF_MAX_SCAN ? pfn - KPF_MAX_SCAN + 1 : 0;
	got = pread(kpf_flags_fd, fl, sizeof(fl), lo * 8);
	at = pfn - lo;
	if (got < (at + 1) * 8)
		return -1;
	n = got / 8;
	if (!(fl[at] & (1ULL << KPF_COMPOUND_HEAD | 1ULL << KPF_COMPOUND_TAIL)))
		return 1;
	/* Back to the head, then on over its tails. */
	for (i = at; i > 0 && fl[i] & (1ULL << KPF_COMPOUND_TAIL); i--)
		;
	for (at = i++; i < n && fl[i] & (1ULL << KPF_COMPOUND_TAIL); i++)
		;
	return i - at > KPF_MAX_SCAN ? KPF_MAX_SCAN : i - at;
}
#endif
