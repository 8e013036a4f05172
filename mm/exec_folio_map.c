// SPDX-License-Identifier: GPL-2.0
/*
 * Map text that the exec folio policy read into large folios a whole
 * folio at a time.
 *
 * A read fault on a file mapping maps the faulting page, plus whatever
 * of the page cache lies in the fault-around window (64K).  Text read
 * into 64K or 2M folios then ends up mapped in pieces, one PTE for the
 * first fault in a folio and fault-around runs for the rest, and arm64
 * only sets the contiguous bit when a single set_ptes() covers a whole
 * aligned block (or folds a block when its last PTE is set alone).  So
 * without this, much of the text in contpte-sized folios is not mapped
 * contiguously, with 16K pages none of it, and the iTLB gains nothing.
 *
 * Only faults on mappings whose policy asks for large folios are
 * changed: with "never", or "arch" on an architecture with no
 * preference, text is mapped as before.
 */

#include <linux/exec_folio.h>
#include <linux/mm.h>

/* The exec folio order for @vmf's mapping, 0 if it is not file text. */
static unsigned int exec_folio_map_order(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;

	if (!(vma->vm_flags & VM_EXEC) || !vma->vm_file ||
	    (vmf->flags & FAULT_FLAG_WRITE))
		return 0;
	return exec_folio_fault_order(vma);
}

/**
 * exec_folio_fault_around_pages - The fault-around window for a fault.
 * @vmf: The read fault.
 * @nr_pages: The usual window, fault_around_bytes in pages.
 *
 * In text read into large folios, fault around at least a whole folio,
 * so that a folio that is already cached is mapped by one set_ptes()
 * rather than in fault_around_bytes pieces.
 *
 * Return: the window in pages, a power of two.
 */
unsigned long exec_folio_fault_around_pages(struct vm_fault *vmf,
					    unsigned long nr_pages)
{
	return max(nr_pages, 1UL << exec_folio_map_order(vmf));
}

/**
 * exec_folio_map_whole - Map the whole folio on a text fault?
 * @vmf: The read fault.
 * @folio: The page-cache folio that holds the faulting page.
 *
 * finish_fault() maps only the faulting page of a file folio, to keep
 * RSS as it was; for text the policy read into large folios, mapping the
 * whole folio at once is what lets it be mapped contiguously.  The caller
 * still falls back to one page when the folio does not fit the VMA and
 * the page table or some of its pages are already mapped.
 *
 * Return: true to map all of @folio.
 */
bool exec_folio_map_whole(struct vm_fault *vmf, struct folio *folio)
{
	return folio_test_large(folio) && exec_folio_map_order(vmf);
}
