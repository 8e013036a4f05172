// SPDX-License-Identifier: GPL-2.0
/*
 * folio_oracle: a test-only module for the x86_64 and arm64 test guests.
 *
 * "exec_folio_ctl report" infers how a mapping is backed by folios from
 * /proc/PID/pagemap and /proc/kpageflags (runs of pages contiguous in
 * address and PFN, split at compound heads, with tools/mm/thpmaps'
 * definitions).  The tests need to know that what it says is what the
 * kernel did, from a side that shares no code with it: this module reads
 * the page tables and the folios themselves.
 *
 *   # echo "PID START END [BLOCK]" > /sys/kernel/debug/folio_oracle
 *   # cat /sys/kernel/debug/folio_oracle
 *   resident=1024 small=0 partial=0 past=0 pmd=0 anon=0 cont=0 blocks=1024
 *   aligned-64=1024 map-64=1024 cache=1092 cache-4=4 cache-64=1088
 *
 * (START and END in hex, BLOCK in kB, by default arm64's contpte block
 * or 64K elsewhere).
 *
 * All figures are in kB, of [START, END) of the process's address space
 * (one VMA: START must lie in a VMA, END is clipped to it):
 *
 *   resident    pages mapped (by a present PTE or by a PMD)
 *   small       file pages mapped by PTE that are a folio of their own
 *   aligned-S   file pages of folios of S kB mapped whole by PTEs, page i
 *               of the folio at BASE + i pages, BASE aligned to S
 *   unaligned-S the same with BASE not aligned to S
 *   partial     file pages of large folios mapped by PTEs otherwise
 *   past        of them, those mapped in order from the folio's first page
 *               but not to its last: the folio goes on past them
 *   pmd         pages mapped by a PMD
 *   anon        pages of anonymous folios (CoW of a private text page)
 *   cont        (arm64) pages whose PTE has the contiguous bit
 *   blocks      pages mapped by PTEs in blocks of BLOCK kB of one folio,
 *               aligned to BLOCK in address and in PFN: what arm64 can
 *               map with the contiguous bit, or AMD's TLB coalesce
 *   map-S       all mapped file pages in folios of S kB (PMD included)
 *   cache       the page cache of the VMA's file over the range the VMA
 *               maps: pages present, clipped to the range
 *   cache-S     of which in folios of S kB
 *
 * small, aligned-S, unaligned-S, partial, pmd and blocks are thpmaps'
 * counters (file-base-page, file-thp-pte-aligned-SkB,
 * file-thp-pte-unaligned-SkB, file-thp-pte-partial,
 * file-thp-pmd-aligned-SkB, file-cont-pte-aligned-SkB).  The tables are read
 * under the mmap lock, and under RCU, of a process the test has
 * stopped; it is not meant for anything else.
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/pgtable.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#define ORACLE_ORDERS	(PMD_ORDER + 1)
/* The default block for "blocks": arm64's contpte block, else 64K. */
#ifdef CONFIG_ARM64
#define ORACLE_BLOCK	CONT_PTE_SIZE
#else
#define ORACLE_BLOCK	SZ_64K
#endif

static DEFINE_MUTEX(oracle_lock);
static char oracle_result[768];
static struct dentry *oracle_file;

/* Counts in pages. */
struct oracle_counts {
	unsigned long resident, small, partial, past, pmd, anon, cont, blocks;
	unsigned long aligned[ORACLE_ORDERS], unaligned[ORACLE_ORDERS];
	unsigned long mapped[ORACLE_ORDERS];
	unsigned long cache, cached[ORACLE_ORDERS];
};

/*
 * The run of PTE-mapped pages of one large folio being followed: the
 * folio's first PFN, the address its page 0 would have, its order, the
 * index in the folio of the run's first page and the run's length.
 */
struct oracle_run {
	unsigned long head_pfn, base, first, seen;
	unsigned int order;
};

/* The PMD entry that maps @addr, or NULL where a level above is empty. */
static pmd_t *oracle_pmd(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	p4d_t *p4d;
	pud_t *pud;

	if (pgd_none(READ_ONCE(*pgd)))
		return NULL;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(READ_ONCE(*p4d)))
		return NULL;
	pud = pud_offset(p4d, addr);
	if (pud_none(READ_ONCE(*pud)) || pud_leaf(READ_ONCE(*pud)))
		return NULL;
	return pmd_offset(pud, addr);
}

/*
 * The run ends: its pages were one whole folio or part of one; and the
 * blocks of @block pages in it aligned in address and PFN are counted.
 */
static void oracle_flush(struct oracle_run *run, struct oracle_counts *c,
			 unsigned long block)
{
	unsigned long j, end = run->first + run->seen;

	if (!run->seen)
		return;
	if (run->first == 0 && run->seen == 1UL << run->order) {
		if (IS_ALIGNED(run->base, PAGE_SIZE << run->order))
			c->aligned[run->order] += run->seen;
		else
			c->unaligned[run->order] += run->seen;
	} else {
		c->partial += run->seen;
		if (run->first == 0)
			c->past += run->seen;
	}
	/* Page j of the folio is at base + j pages and at PFN head + j. */
	if (((run->base >> PAGE_SHIFT) - run->head_pfn) % block == 0) {
		j = round_up(run->head_pfn + run->first, block) - run->head_pfn;
		for (; j + block <= end; j += block)
			c->blocks += block;
	}
	run->seen = 0;
}

/* One file page of a large folio, mapped by PTE at @addr. */
static void oracle_large(struct oracle_run *run, struct oracle_counts *c,
			 unsigned long addr, struct folio *folio,
			 unsigned long pfn, unsigned long block)
{
	unsigned long head = folio_pfn(folio), idx = pfn - head;
	unsigned long base = addr - (idx << PAGE_SHIFT);

	if (run->seen && run->head_pfn == head && run->base == base &&
	    run->first + run->seen == idx) {
		run->seen++;
		return;
	}
	oracle_flush(run, c, block);
	run->head_pfn = head;
	run->base = base;
	run->order = folio_order(folio);
	run->first = idx;
	run->seen = 1;
}

static void oracle_tables(struct mm_struct *mm, unsigned long start,
			  unsigned long end, unsigned long block,
			  struct oracle_counts *c)
{
	struct oracle_run run = { };
	unsigned long addr = start;

	rcu_read_lock();
	while (addr < end) {
		pmd_t *pmdp = oracle_pmd(mm, addr);
		struct folio *folio;
		unsigned long pfn;
		pte_t *ptep, pte;
		pmd_t pmd;

		pmd = pmdp ? pmdp_get_lockless(pmdp) : __pmd(0);
		if (pmd_none(pmd) || !pmd_present(pmd)) {
			oracle_flush(&run, c, block);
			addr = min(pmd_addr_end(addr, end), end);
			continue;
		}
		if (pmd_leaf(pmd)) {
			unsigned long next = min(pmd_addr_end(addr, end), end);
			unsigned long nr = (next - addr) >> PAGE_SHIFT;

			oracle_flush(&run, c, block);
			folio = page_folio(pmd_page(pmd));
			c->resident += nr;
			c->pmd += nr;
			if (folio_test_anon(folio))
				c->anon += nr;
			else if (folio_order(folio) < ORACLE_ORDERS)
				c->mapped[folio_order(folio)] += nr;
			addr = next;
			continue;
		}
		ptep = pte_offset_kernel(&pmd, addr);
#ifdef CONFIG_ARM64
		/* Raw entry: ptep_get() would gather the whole block's bits. */
		pte = __ptep_get(ptep);
#else
		pte = ptep_get(ptep);
#endif
		if (!pte_present(pte) || !pfn_valid(pte_pfn(pte))) {
			oracle_flush(&run, c, block);
			addr += PAGE_SIZE;
			continue;
		}
		c->resident++;
#ifdef CONFIG_ARM64
		if (pte_cont(pte))
			c->cont++;
#endif
		pfn = pte_pfn(pte);
		folio = page_folio(pfn_to_page(pfn));
		if (folio_test_anon(folio)) {
			oracle_flush(&run, c, block);
			c->anon++;
		} else if (!folio_test_large(folio)) {
			oracle_flush(&run, c, block);
			c->small++;
			c->mapped[0]++;
		} else {
			if (folio_order(folio) < ORACLE_ORDERS)
				c->mapped[folio_order(folio)]++;
			oracle_large(&run, c, addr, folio, pfn, block);
		}
		addr += PAGE_SIZE;
	}
	oracle_flush(&run, c, block);
	rcu_read_unlock();
}

/* The page cache of @mapping over [@first, @last], by folio order. */
static void oracle_cache(struct address_space *mapping, pgoff_t first,
			 pgoff_t last, struct oracle_counts *c)
{
	XA_STATE(xas, &mapping->i_pages, first);
	struct folio *folio;

	rcu_read_lock();
	xas_for_each(&xas, folio, last) {
		pgoff_t lo, hi;

		if (xas_retry(&xas, folio) || xa_is_value(folio))
			continue;
		if (!folio_try_get(folio)) {
			xas_reset(&xas);
			continue;
		}
		if (unlikely(folio != xas_reload(&xas))) {
			folio_put(folio);
			xas_reset(&xas);
			continue;
		}
		lo = max(folio->index, first);
		hi = min(folio->index + folio_nr_pages(folio) - 1, last);
		if (hi >= lo && folio_order(folio) < ORACLE_ORDERS) {
			c->cache += hi - lo + 1;
			c->cached[folio_order(folio)] += hi - lo + 1;
		}
		folio_put(folio);
	}
	rcu_read_unlock();
}

static unsigned long pages_kb(unsigned long pages)
{
	return pages << (PAGE_SHIFT - 10);
}

static int oracle_print(char *buf, size_t size, const struct oracle_counts *c)
{
	static const char * const prefix[] = { "aligned", "unaligned", "map", "cache" };
	const unsigned long *per[] = { c->aligned, c->unaligned, c->mapped, c->cached };
	unsigned int i, ord;
	int n;

	n = scnprintf(buf, size,
		      "resident=%lu small=%lu partial=%lu past=%lu pmd=%lu anon=%lu cont=%lu blocks=%lu",
		      pages_kb(c->resident), pages_kb(c->small), pages_kb(c->partial),
		      pages_kb(c->past), pages_kb(c->pmd), pages_kb(c->anon), pages_kb(c->cont),
		      pages_kb(c->blocks));
	for (i = 0; i < ARRAY_SIZE(prefix); i++) {
		if (i == 3)
			n += scnprintf(buf + n, size - n, " cache=%lu", pages_kb(c->cache));
		for (ord = 0; ord < ORACLE_ORDERS; ord++)
			if (per[i][ord])
				n += scnprintf(buf + n, size - n, " %s-%lu=%lu", prefix[i],
					       pages_kb(1UL << ord), pages_kb(per[i][ord]));
	}
	n += scnprintf(buf + n, size - n, "\n");
	return n;
}

static int oracle_measure(int pid, unsigned long start, unsigned long end,
			  unsigned long block, struct oracle_counts *c)
{
	struct vm_area_struct *vma;
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *found;
	int ret = 0;

	found = find_get_pid(pid);
	task = get_pid_task(found, PIDTYPE_PID);
	put_pid(found);
	if (!task)
		return -ESRCH;
	mm = get_task_mm(task);
	put_task_struct(task);
	if (!mm)
		return -ESRCH;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, start);
	if (!vma) {
		ret = -ENOENT;
		goto out;
	}
	end = min(end, vma->vm_end);
	oracle_tables(mm, start, end, block, c);
	if (vma->vm_file) {
		pgoff_t first = vma->vm_pgoff + ((start - vma->vm_start) >> PAGE_SHIFT);

		oracle_cache(vma->vm_file->f_mapping, first,
			     first + ((end - start) >> PAGE_SHIFT) - 1, c);
	}
out:
	mmap_read_unlock(mm);
	mmput(mm);
	return ret;
}

static ssize_t oracle_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct oracle_counts *c;
	unsigned long start, end, block, block_kb;
	char buf[80];
	int pid, ret, n;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	n = sscanf(buf, "%d %lx %lx %lu", &pid, &start, &end, &block_kb);
	if (n < 3 || start >= end || !PAGE_ALIGNED(start) || !PAGE_ALIGNED(end))
		return -EINVAL;
	if (n == 3)
		block_kb = ORACLE_BLOCK >> 10;
	block = (block_kb << 10) >> PAGE_SHIFT;
	if (!block || !is_power_of_2(block) || block > PTRS_PER_PTE)
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ret = oracle_measure(pid, start, end, block, c);
	if (!ret) {
		mutex_lock(&oracle_lock);
		oracle_print(oracle_result, sizeof(oracle_result), c);
		mutex_unlock(&oracle_lock);
	}
	kfree(c);
	return ret ? ret : len;
}

static ssize_t oracle_read(struct file *file, char __user *ubuf, size_t len,
			   loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&oracle_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, oracle_result,
				      strlen(oracle_result));
	mutex_unlock(&oracle_lock);
	return ret;
}

static const struct file_operations oracle_fops = {
	.owner = THIS_MODULE,
	.read = oracle_read,
	.write = oracle_write,
	.llseek = default_llseek,
};

static int __init oracle_init(void)
{
	oracle_file = debugfs_create_file("folio_oracle", 0600, NULL, NULL,
					  &oracle_fops);
	return IS_ERR(oracle_file) ? PTR_ERR(oracle_file) : 0;
}

static void __exit oracle_exit(void)
{
	debugfs_remove(oracle_file);
}

module_init(oracle_init);
module_exit(oracle_exit);
MODULE_DESCRIPTION("The folios a process's mapping and its file's page cache hold (exec-folio tests)");
MODULE_LICENSE("GPL");
