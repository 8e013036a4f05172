// SPDX-License-Identifier: GPL-2.0
/*
 * How the resident pages of a mapping are backed by folios.
 *
 * For every present page, pagemap gives the PFN and kpageflags the flags
 * of that PFN.  Pages of large folios (KPF_THP) are cut into runs whose
 * addresses and PFNs both advance by one; inside a run each compound
 * head starts a folio that lasts until the next head, and pages before
 * the first head, or of a folio that goes on past the run, are partially
 * mapped.  These are the definitions of tools/mm/thpmaps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "folio_walk.h"
#include "util.h"

#define PM_PRESENT		BIT_ULL(63)
#define PM_PFN_MASK		(BIT_ULL(55) - 1)
#define KPF_ANON		BIT_ULL(12)
#define KPF_COMPOUND_HEAD	BIT_ULL(15)
#define KPF_COMPOUND_TAIL	BIT_ULL(16)
#define KPF_THP			BIT_ULL(22)

/* PAGEMAP_SCAN of <linux/fs.h> (6.7), which older headers lack. */
#define FW_PAGEMAP_SCAN		_IOWR('f', 16, struct fw_pm_scan_arg)
#define FW_PAGE_IS_PRESENT	BIT_ULL(3)
#define FW_PAGE_IS_HUGE		BIT_ULL(6)

struct fw_page_region {
	uint64_t start;
	uint64_t end;
	uint64_t categories;
};

struct fw_pm_scan_arg {
	uint64_t size;
	uint64_t flags;
	uint64_t start;
	uint64_t end;
	uint64_t walk_end;
	uint64_t vec;
	uint64_t vec_len;
	uint64_t max_pages;
	uint64_t category_inverted;
	uint64_t category_mask;
	uint64_t category_anyof_mask;
	uint64_t return_mask;
};

/* Entries read per pread(): one page's worth of pagemap or kpageflags. */
#define FW_BATCH		512
/* Present pages buffered by the walk of a mapping (1 MiB), whatever its size. */
#ifndef FW_CHUNK
#define FW_CHUNK		32768
#endif

/* The flags cache: open addressing, emptied when it is 3/4 full. */
#define FW_CACHE_BITS		18
#define FW_CACHE_SIZE		BIT(FW_CACHE_BITS)

struct fw_flags_cache {
	size_t used;
	struct {
		uint64_t pfn_plus_one;	/* 0: empty slot */
		uint64_t flags;
	} slot[FW_CACHE_SIZE];
};

struct fw_flags_cache *folio_walk_cache_new(void)
{
	return calloc(1, sizeof(struct fw_flags_cache));
}

void folio_walk_cache_free(struct fw_flags_cache *cache)
{
	free(cache);
}

static size_t cache_slot(const struct fw_flags_cache *cache, uint64_t pfn)
{
	size_t i = (size_t)((pfn * 0x9e3779b97f4a7c15ULL) >> (64 - FW_CACHE_BITS));

	while (cache->slot[i].pfn_plus_one && cache->slot[i].pfn_plus_one != pfn + 1)
		i = (i + 1) & (FW_CACHE_SIZE - 1);
	return i;
}

static bool cache_get(const struct fw_flags_cache *cache, uint64_t pfn, uint64_t *flags)
{
	size_t i;

	if (!cache)
		return false;
	i = cache_slot(cache, pfn);
	if (!cache->slot[i].pfn_plus_one)
		return false;
	*flags = cache->slot[i].flags;
	return true;
}

static void cache_put(struct fw_flags_cache *cache, uint64_t pfn, uint64_t flags)
{
	size_t i;

	if (!cache)
		return;
	if (cache->used >= FW_CACHE_SIZE / 4 * 3) {
		memset(cache->slot, 0, sizeof(cache->slot));
		cache->used = 0;
	}
	i = cache_slot(cache, pfn);
	if (!cache->slot[i].pfn_plus_one)
		cache->used++;
	cache->slot[i].pfn_plus_one = pfn + 1;
	cache->slot[i].flags = flags;
}

struct fw_page {
	uint64_t vfn;
	uint64_t pfn;
	uint64_t flags;
	bool pmd;		/* PMD-mapped, from PAGEMAP_SCAN */
};

int folio_walk_pmd_order(unsigned int page_shift)
{
	unsigned long long pmd_size = 0;
	int order = 0;
	FILE *f;

	f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "re");
	if (!f)
		return -1;
	if (fscanf(f, "%llu", &pmd_size) != 1)
		pmd_size = 0;
	fclose(f);
	while ((1ULL << (page_shift + order)) < pmd_size)
		order++;
	if (!pmd_size || (1ULL << (page_shift + order)) != pmd_size) {
		errno = EINVAL;
		return -1;
	}
	return order;
}

unsigned int folio_walk_contpte_order(unsigned int page_shift)
{
#ifdef __aarch64__
	/* CONT_PTE_SHIFT - PAGE_SHIFT in the kernel's pgtable-hwdef.h */
	switch (page_shift) {
	case 14:
		return 7;
	case 16:
		return 5;
	}
#endif
	return page_shift < 16 ? 16 - page_shift : 0;
}

static int read_entries(int fd, uint64_t index, uint64_t *buf, size_t nr);

bool folio_walk_arch_contpte(void)
{
#ifdef __aarch64__
	return true;
#else
	return false;
#endif
}

int folio_walk_pfns_visible(unsigned int page_shift)
{
	uint64_t entry = 1;	/* on the stack, written: a present page */
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -1;
	ret = read_entries(fd, (uintptr_t)&entry >> page_shift, &entry, 1);
	close(fd);
	if (ret)
		return -1;
	/* A page that is not present tells nothing: let the walk decide. */
	return !(entry & PM_PRESENT) || (entry & PM_PFN_MASK) ? 1 : 0;
}

int folio_walk_folio_order(struct folio_walk *fw, unsigned long addr)
{
	uint64_t entry, flags, head, pfn, nr = 1;

	if (read_entries(fw->pagemap_fd, addr >> fw->page_shift, &entry, 1))
		return -1;
	if (!(entry & PM_PRESENT) || !(entry & PM_PFN_MASK)) {
		errno = ENOENT;
		return -1;
	}
	pfn = entry & PM_PFN_MASK;
	if (read_entries(fw->kpageflags_fd, pfn, &flags, 1))
		return -1;
	if (!(flags & (KPF_COMPOUND_HEAD | KPF_COMPOUND_TAIL)))
		return 0;
	/* Back to the head; then its tails.  A folio is at most 2^FW_MAX_ORDER. */
	for (head = pfn; !(flags & KPF_COMPOUND_HEAD); ) {
		if (!head || pfn - head >= (1ULL << FW_MAX_ORDER) ||
		    read_entries(fw->kpageflags_fd, --head, &flags, 1)) {
			errno = EIO;
			return -1;
		}
	}
	while (nr < (1ULL << FW_MAX_ORDER)) {
		if (read_entries(fw->kpageflags_fd, head + nr, &flags, 1) ||
		    !(flags & KPF_COMPOUND_TAIL) || (flags & KPF_COMPOUND_HEAD))
			break;
		nr++;
	}
	return 63 - __builtin_clzll(nr);
}

/*
 * The regions of [start, end) that PAGEMAP_SCAN finds with every category
 * of @mask, with their PAGE_IS_HUGE category: call @fn for each, in
 * address order, until it returns non-zero.  The kernel visits only the
 * page tables that exist, so the cost follows what is mapped, not the
 * size of the range.  Returns 0, what @fn returned, or -1 with errno set.
 */
static int scan_regions(int fd, unsigned long start, unsigned long end, uint64_t mask,
			int (*fn)(uint64_t start, uint64_t end, bool huge, void *arg),
			void *arg)
{
	struct fw_page_region vec[64];
	struct fw_pm_scan_arg a;
	long n, i;
	int ret;

	while (start < end) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.start = start;
		a.end = end;
		a.vec = (uintptr_t)vec;
		a.vec_len = ARRAY_SIZE(vec);
		a.category_mask = mask;
		a.return_mask = FW_PAGE_IS_HUGE;
		n = ioctl(fd, FW_PAGEMAP_SCAN, &a);
		if (n < 0)
			return -1;
		for (i = 0; i < n; i++) {
			ret = fn(vec[i].start, vec[i].end,
				 vec[i].categories & FW_PAGE_IS_HUGE, arg);
			if (ret)
				return ret;
		}
		if (a.walk_end <= start)
			break;
		start = a.walk_end;
	}
	return 0;
}

static int no_region(uint64_t start, uint64_t end, bool huge, void *arg)
{
	(void)start;
	(void)end;
	(void)huge;
	(void)arg;
	return 0;
}

bool folio_walk_can_scan(void)
{
	static int known = -1;
	uint64_t probe = 1;	/* a present page to scan */
	unsigned long page = sysconf(_SC_PAGESIZE);
	unsigned long start = (uintptr_t)&probe & ~(page - 1);
	int fd;

	if (known >= 0)
		return known;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	known = scan_regions(fd, start, start + page, FW_PAGE_IS_PRESENT, no_region,
			     NULL) == 0;
	close(fd);
	return known;
}

int folio_walk_open(struct folio_walk *fw, pid_t pid)
{
	char path[64];
	int err;

	fw->pages = NULL;
	fw->pagemap_fd = -1;
	fw->kpageflags_fd = -1;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fw->pagemap_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fw->pagemap_fd < 0)
		return -1;
	fw->kpageflags_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fw->kpageflags_fd < 0)
		goto err;
	/* Bounded: however large a mapping is, it is walked in chunks of this. */
	fw->pages = malloc(FW_CHUNK * sizeof(*fw->pages));
	if (!fw->pages)
		goto err;
	fw->scan = folio_walk_can_scan() && !fw->no_scan;
	return 0;
err:
	err = errno;
	folio_walk_close(fw);
	errno = err;
	return -1;
}

void folio_walk_close(struct folio_walk *fw)
{
	if (fw->pagemap_fd >= 0)
		close(fw->pagemap_fd);
	if (fw->kpageflags_fd >= 0)
		close(fw->kpageflags_fd);
	free(fw->pages);
	fw->pages = NULL;
	fw->pagemap_fd = -1;
	fw->kpageflags_fd = -1;
}

/*
 * @nr entries of pagemap or kpageflags from @index.  Returns 0, or -1
 * with errno set: ESRCH when nothing at all is read (pagemap reads
 * nothing once the address space it was opened on is gone: the process
 * exited or exec'd, as PAGEMAP_SCAN then fails with ESRCH), EIO for a
 * short read.
 */
static int read_entries(int fd, uint64_t index, uint64_t *buf, size_t nr)
{
	ssize_t want = nr * sizeof(*buf);
	ssize_t got = pread(fd, buf, want, index * sizeof(*buf));

	if (got == want)
		return 0;
	if (got >= 0)
		errno = got ? EIO : ESRCH;
	return -1;
}

static struct folio_counts *counts_of(struct folio_report *out,
				      const struct fw_page *page)
{
	return page->flags & KPF_ANON ? &out->anon : &out->file;
}

static unsigned int floor_log2(uint64_t n)
{
	return 63 - __builtin_clzll(n);
}

/* One run of large-folio pages contiguous in address and PFN. */
static int walk_run(struct folio_walk *fw, const struct fw_page *run,
		    size_t n, struct folio_report *out)
{
	size_t head = 0, next, end = n, last = n;
	uint64_t after;
	unsigned int c;

	while (head < n && !(run[head].flags & KPF_COMPOUND_HEAD))
		head++;
	counts_of(out, &run[0])->partial += head;
	if (head < n) {
		/* Does the last folio go on past the run? */
		if (!cache_get(fw->cache, run[n - 1].pfn + 1, &after)) {
			if (read_entries(fw->kpageflags_fd, run[n - 1].pfn + 1, &after, 1))
				after = 0;
			else
				cache_put(fw->cache, run[n - 1].pfn + 1, after);
		}
		for (last = n - 1; !(run[last].flags & KPF_COMPOUND_HEAD); last--)
			;
		if (after & KPF_COMPOUND_TAIL) {
			counts_of(out, &run[last])->partial += n - last;
			end = last;
		}
	}
	while (head < end) {
		unsigned int order;
		uint64_t nr;

		for (next = head + 1; next < end &&
		     !(run[next].flags & KPF_COMPOUND_HEAD); next++)
			;
		order = floor_log2(next - head);
		nr = 1ULL << order;
		if (order <= FW_MAX_ORDER) {
			struct folio_counts *cnt = counts_of(out, &run[head]);

			if (run[head].vfn % nr == 0)
				cnt->aligned[order] += nr;
			else
				cnt->unaligned[order] += nr;
		}
		head = next;
	}

	for (c = 0; c < fw->nr_cont; c++) {
		uint64_t nr = 1ULL << fw->cont_orders[c];
		size_t i, k;

		if (run[0].pfn % nr != run[0].vfn % nr)
			continue;
		i = (nr - run[0].vfn % nr) % nr;
		for (; i + nr <= n; i += nr) {
			for (k = i + 1; k < i + nr; k++)
				if (run[k].flags & KPF_COMPOUND_HEAD)
					break;
			if (k == i + nr)
				counts_of(out, &run[i])->cont[c] += nr;
		}
	}
	return 0;
}

static void sub_clamped(uint64_t *v, uint64_t sub)
{
	*v = *v > sub ? *v - sub : 0;
}

/* PMD-mapped folios are counted apart, as thpmaps does. */
static void account_pmd(struct folio_walk *fw, struct folio_counts *before,
			struct folio_counts *cnt, uint64_t pmd_pages)
{
	unsigned int c;

	if (fw->pmd_order <= FW_MAX_ORDER) {
		uint64_t added = cnt->aligned[fw->pmd_order] -
				 before->aligned[fw->pmd_order];

		sub_clamped(&added, pmd_pages);
		cnt->aligned[fw->pmd_order] = before->aligned[fw->pmd_order] + added;
	}
	for (c = 0; c < fw->nr_cont; c++) {
		uint64_t added = cnt->cont[c] - before->cont[c];

		sub_clamped(&added, pmd_pages);
		cnt->cont[c] = before->cont[c] + added;
	}
	cnt->pmd_mapped += pmd_pages;
}

/* The walk of one mapping: its present pages, a chunk at a time. */
struct vma_walk {
	struct folio_walk *fw;
	struct folio_report *out;
	bool maps_only;
	size_t np;		/* pages in fw->pages */
	size_t flagged;		/* of which the first have their flags */
	uint64_t found;		/* present pages seen */
	uint64_t want;		/* smaps' count of them (0: not known) */
	uint64_t file_pmd, anon_pmd;	/* PMD-mapped pages (maps_only) */
};

/* The kpageflags of the pages that lack them: from the cache, or in runs of PFNs. */
static int read_flags(struct vma_walk *w)
{
	struct folio_walk *fw = w->fw;
	struct fw_page *pages = fw->pages;
	uint64_t buf[FW_BATCH];
	size_t i, j;

	for (i = w->flagged; i < w->np; i = j) {
		if (cache_get(fw->cache, pages[i].pfn, &pages[i].flags)) {
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < w->np && j - i < FW_BATCH &&
		     pages[j].pfn == pages[j - 1].pfn + 1 &&
		     !cache_get(fw->cache, pages[j].pfn, &pages[j].flags); j++)
			;
		if (read_entries(fw->kpageflags_fd, pages[i].pfn, buf, j - i))
			return -1;
		for (size_t k = i; k < j; k++) {
			pages[k].flags = buf[k - i];
			cache_put(fw->cache, pages[k].pfn, buf[k - i]);
		}
	}
	w->flagged = w->np;
	return 0;
}

/* Do pages @a and @b (next to it in the buffer) belong to one run? */
static bool same_run(const struct fw_page *a, const struct fw_page *b)
{
	return (a->flags & KPF_THP) && (b->flags & KPF_THP) &&
	       b->vfn == a->vfn + 1 && b->pfn == a->pfn + 1;
}

/*
 * Count the pages buffered.  Unless @last, the run of large-folio pages
 * at the end of the buffer may go on in the next chunk: it is kept from
 * its last folio head on (from its start if it has none), so that each
 * folio and contiguous block is counted whole, as if the mapping were
 * walked at once.  (A run over the whole buffer with no head but at its
 * start would be a folio larger than FW_CHUNK pages, which no kernel
 * makes: it is counted as if the run ended there.)
 */
static int flush_pages(struct vma_walk *w, bool last)
{
	struct fw_page *pages = w->fw->pages;
	size_t i, j, cut = w->np;

	if (read_flags(w))
		return -1;
	if (!last && w->np && (pages[w->np - 1].flags & KPF_THP)) {
		size_t s = w->np - 1, h;

		while (s > 0 && same_run(&pages[s - 1], &pages[s]))
			s--;
		for (h = w->np - 1; h > s && !(pages[h].flags & KPF_COMPOUND_HEAD); h--)
			;
		if (h > 0)
			cut = h;
	}
	for (i = 0; i < cut; i++) {
		struct folio_counts *c = counts_of(w->out, &pages[i]);

		if (w->maps_only) {
			c->resident++;
			if (pages[i].pmd)
				*(pages[i].flags & KPF_ANON ? &w->anon_pmd : &w->file_pmd) += 1;
		}
		if (!(pages[i].flags & KPF_THP))
			c->small++;
	}
	for (i = 0; i < cut; i = j) {
		if (!(pages[i].flags & KPF_THP)) {
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < cut && same_run(&pages[j - 1], &pages[j]); j++)
			;
		walk_run(w->fw, pages + i, j - i, w->out);
	}
	memmove(pages, pages + cut, (w->np - cut) * sizeof(*pages));
	w->np -= cut;
	w->flagged = w->np;
	return 0;
}

/*
 * Add the present pages of [start, end) to the walk, reading pagemap a
 * batch at a time.  Returns 0, 1 once smaps' count of present pages is
 * reached (the rest of the mapping has none to find), or -1 with errno
 * set.
 */
static int add_range(uint64_t start, uint64_t end, bool pmd, void *arg)
{
	struct vma_walk *w = arg;
	struct folio_walk *fw = w->fw;
	uint64_t first = start >> fw->page_shift, nr = (end - start) >> fw->page_shift;
	uint64_t buf[FW_BATCH], i;
	size_t j;

	for (i = 0; i < nr; i += FW_BATCH) {
		size_t chunk = nr - i < FW_BATCH ? nr - i : FW_BATCH;

		if (read_entries(fw->pagemap_fd, first + i, buf, chunk))
			return -1;
		for (j = 0; j < chunk; j++) {
			struct fw_page *p;

			if (!(buf[j] & PM_PRESENT))
				continue;
			/* PFN 0 is never a process's page: pagemap hides PFNs. */
			if (!(buf[j] & PM_PFN_MASK)) {
				errno = EPERM;
				return -1;
			}
			if (w->np == FW_CHUNK && flush_pages(w, false))
				return -1;
			p = &fw->pages[w->np++];
			p->vfn = first + i + j;
			p->pfn = buf[j] & PM_PFN_MASK;
			p->pmd = pmd;
			w->found++;
		}
		if (w->want && w->found >= w->want)
			return 1;
	}
	return 0;
}

int folio_walk_vma(struct folio_walk *fw, const struct vma_info *vma,
		   struct folio_report *out)
{
	uint64_t kb_pages = fw->page_shift - 10;
	struct folio_report before = *out;
	struct vma_walk w = { .fw = fw, .out = out, .maps_only = vma->maps_only };
	int ret;

	if (!vma->maps_only) {
		out->anon.resident += vma->anon_kb >> kb_pages;
		out->file.resident += (vma->rss_kb - vma->anon_kb) >> kb_pages;
		if (!vma->rss_kb)
			return 0;
		w.want = vma->rss_kb >> kb_pages;
		w.file_pmd = vma->file_pmd_kb >> kb_pages;
		w.anon_pmd = vma->anon_pmd_kb >> kb_pages;
	} else if (!fw->scan) {
		/* The PMD mappings of a maps_only mapping are known from PAGEMAP_SCAN only. */
		errno = EOPNOTSUPP;
		return -1;
	}
	/*
	 * Only the present pages: PAGEMAP_SCAN finds them where the kernel
	 * has it; otherwise pagemap is read a batch at a time, until smaps'
	 * count of them is found.
	 */
	if (fw->scan)
		ret = scan_regions(fw->pagemap_fd, vma->start, vma->end, FW_PAGE_IS_PRESENT,
				   add_range, &w);
	else
		ret = add_range(vma->start, vma->end, false, &w);
	if (ret < 0 || flush_pages(&w, true))
		return -1;
	account_pmd(fw, &before.file, &out->file, w.file_pmd);
	account_pmd(fw, &before.anon, &out->anon, w.anon_pmd);
	return 0;
}

double folio_percent(const struct folio_counts *counts, uint64_t pages)
{
	return counts->resident ? 100.0 * pages / counts->resident : 0.0;
}

void folio_report_add(struct folio_report *to, const struct folio_report *from)
{
	struct folio_counts *t[] = { &to->file, &to->anon };
	const struct folio_counts *f[] = { &from->file, &from->anon };

	for (int k = 0; k < 2; k++) {
		for (int i = 0; i <= FW_MAX_ORDER; i++) {
			t[k]->aligned[i] += f[k]->aligned[i];
			t[k]->unaligned[i] += f[k]->unaligned[i];
		}
		for (int i = 0; i < FW_MAX_CONT; i++)
			t[k]->cont[i] += f[k]->cont[i];
		t[k]->partial += f[k]->partial;
		t[k]->small += f[k]->small;
		t[k]->pmd_mapped += f[k]->pmd_mapped;
		t[k]->resident += f[k]->resident;
	}
}
