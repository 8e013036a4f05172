// SPDX-License-Identifier: GPL-2.0
/*
 * Reads of a binary other than the faults on its text.
 *
 * While execve() runs, the ELF loader read()s the binary's headers and
 * its interpreter's, IMA may hash the whole file, and ordinary readahead
 * puts what they read, often the start of the text, in the page cache in
 * small folios before the text is ever faulted.  Once the program runs,
 * a fault on its read-only data, next to the text in the file, reads
 * around it 64K either side, into the end of the text.
 *
 * When the exec folio policy reads the new program's text into large
 * folios, both are changed: reads through the file execve() opened are
 * done, while the exec runs, in naturally aligned folios of the policy's
 * size (so the first text block, which often shares its pages with the
 * headers, is one large folio too), and read-around of the binary's
 * other mappings stays inside them.  Neither changes the file's mode or
 * its shared readahead state.
 */

#include <linux/exec_folio.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched.h>

#include "internal.h"

/*
 * The folio order that the policy of @mm (NULL for a kernel thread's
 * exec) reads text in @mapping into, where no VMA is known yet: "auto"
 * is taken as its size for text that cannot be PMD-mapped, and nothing
 * above the architecture's size or 64K is used here (a PMD-size folio at
 * the start of a binary would hold its headers and segments other than
 * the text, and could seldom be PMD-mapped).  As for faults, memory is
 * not looked at: the read steps down where the allocation fails, and a
 * process that opted out of THP reads as under "never" unless it chose
 * its policy after opting out.
 */
static unsigned int exec_folio_binary_order(struct mm_struct *mm,
					    struct address_space *mapping)
{
	unsigned int local = mm ? READ_ONCE(mm->exec_folio_policy) :
				  EXEC_FOLIO_INHERIT;
	unsigned int policy = exec_folio_effective(READ_ONCE(exec_folio_global_policy),
						   local);
	unsigned int order_64k = exec_folio_order_64k(PAGE_SHIFT);
	unsigned int order;

	if (mm && test_bit(MMF_DISABLE_THP, &mm->flags) &&
	    !(local & EXEC_FOLIO_AFTER_THP_DISABLE))
		return 0;
	switch (EXEC_FOLIO_POLICY_MODE(policy)) {
	case EXEC_FOLIO_ARCH:
		order = exec_folio_order();
		break;
	case EXEC_FOLIO_AUTO:
		order = exec_folio_order() ? exec_folio_order() : order_64k;
		break;
	case EXEC_FOLIO_ORDER:
		order = EXEC_FOLIO_POLICY_ORDER(policy);
		break;
	default:
		return 0;
	}
	order = min3(order, max(exec_folio_order(), order_64k),
		     exec_folio_cap(PAGE_SHIFT, PMD_ORDER,
				    mapping_max_folio_order(mapping)));
	return order < EXEC_FOLIO_MIN_ORDER ? 0 : order;
}

/**
 * exec_folio_binary_large - Does the policy read a binary's text into large folios?
 * @mm: The address space.
 * @mapping: The binary's mapping.
 *
 * Return: true if the policy of @mm reads the text of @mapping into large
 * folios.
 */
bool exec_folio_binary_large(struct mm_struct *mm,
			     struct address_space *mapping)
{
	return exec_folio_binary_order(mm, mapping) > 0;
}

/**
 * exec_folio_read_binary - Read what execve() reads of a binary.
 * @ractl: The read()'s readahead control, on a file execve() opened.
 * @req_count: The pages the read() asked for.
 *
 * Called by exec_folio_exec_read() while the calling task is in
 * execve().  Reads the naturally aligned folios of the policy's order
 * that cover the request, and nothing else: no readahead window, no
 * update of the file's readahead state.
 *
 * Return: true if the read was done here, false for ordinary readahead.
 */
bool exec_folio_read_binary(struct readahead_control *ractl,
			    unsigned long req_count)
{
	unsigned int order = exec_folio_binary_order(current->mm,
						     ractl->mapping);
	pgoff_t index = readahead_index(ractl);
	pgoff_t start, end;

	if (!order)
		return false;
	start = round_down(index, 1UL << order);
	end = round_up(index + req_count, 1UL << order);
	ractl->_index = start;
	page_cache_ra_order_exact(ractl, end - start, order, NULL);
	return true;
}

/**
 * exec_folio_binary_ra - Keep read-around of a binary's data out of its text.
 * @vmf: A page-cache miss on a mapping of a file execve() opened, or on a
 *	private file mapping.
 * @ra_pages: The file's read-around size.
 * @start: Where to read from, if true is returned.
 * @nr: How many pages to read.
 *
 * For a binary whose text the policy reads into large folios, the usual
 * read-around window (@ra_pages centred on the fault) limited to the part
 * of the file the faulting mapping maps.  On a private mapping of a file
 * that execve() did not open (a library, as ld.so maps it), only when the
 * usual window would leave the mapping.  The mmap or VMA lock is held.
 *
 * Return: true to read [@start, @start + @nr) instead of read-around.
 */
bool exec_folio_binary_ra(struct vm_fault *vmf, unsigned long ra_pages,
			  pgoff_t *start, unsigned long *nr)
{
	struct vm_area_struct *vma = vmf->vma;
	pgoff_t first = vma->vm_pgoff;
	pgoff_t end = first + vma_pages(vma);
	/* Where the usual read-around starts: it stops at the file's start. */
	pgoff_t around = vmf->pgoff - min_t(pgoff_t, vmf->pgoff, ra_pages / 2);
	pgoff_t begin;

	/* A VMA that opted out of THP is read as under "never". */
	if (vma->vm_flags & VM_NOHUGEPAGE)
		return false;
	if (!(vma->vm_file->f_flags & __FMODE_EXEC) &&
	    around >= first && around + ra_pages <= end)
		return false;
	if (!exec_folio_binary_large(vma->vm_mm, vma->vm_file->f_mapping))
		return false;
	begin = vmf->pgoff - min(vmf->pgoff - first, ra_pages / 2);
	*start = begin;
	*nr = min(begin + ra_pages, end) - begin;
	return true;
}

/**
 * exec_folio_binary_async - Keep async readahead out of a binary's text.
 * @vmf: A fault on text, on a file execve() opened, or on a private file
 *	mapping, that found a folio marked for async readahead.
 * @ra_pages: The file's readahead size.
 *
 * Return: true if the policy reads the process's text into large folios
 * and @vmf is on text or a file execve() opened, or on a private mapping
 * whose end the readahead would run past.
 */
bool exec_folio_binary_async(struct vm_fault *vmf, unsigned long ra_pages)
{
	struct vm_area_struct *vma = vmf->vma;

	/* A VMA that opted out of THP is read as under "never". */
	if ((vma->vm_flags & VM_NOHUGEPAGE) ||
	    !exec_folio_binary_large(vma->vm_mm, vma->vm_file->f_mapping))
		return false;
	if ((vma->vm_flags & VM_EXEC) ||
	    (vma->vm_file->f_flags & __FMODE_EXEC))
		return true;
	return vmf->pgoff + ra_pages > vma->vm_pgoff + vma_pages(vma);
}
