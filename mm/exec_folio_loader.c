// SPDX-License-Identifier: GPL-2.0
/*
 * Reads of a binary that exec loads, other than the faults on its text.
 *
 * The ELF loader read()s a binary's headers, and ordinary readahead
 * pulls the pages after them, often the start of the text, into the
 * page cache in small folios before the text is ever faulted.  The same
 * happens when the binary's read-only data, next to the text in the
 * file, is faulted: read-around reads 64K either side.  When the exec
 * folio policy will read the text into large folios, neither may touch
 * it: the header reads read what they ask for, and read-around of the
 * binary's other mappings stays inside them.
 */

#include <linux/exec_folio.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

/* Whether the policy of @mm (may be NULL) reads text into large folios. */
static bool exec_folio_wants_large(struct mm_struct *mm)
{
	unsigned int local = mm ? READ_ONCE(mm->exec_folio_policy) :
				  EXEC_FOLIO_INHERIT;
	unsigned int policy = exec_folio_effective(READ_ONCE(exec_folio_global_policy),
						   local);

	switch (EXEC_FOLIO_POLICY_MODE(policy)) {
	case EXEC_FOLIO_ARCH:
		return exec_folio_order() > 0;
	case EXEC_FOLIO_AUTO:
	case EXEC_FOLIO_ORDER:
		return true;
	default:
		return false;
	}
}

/**
 * exec_folio_open_exec - Prepare a binary opened for execve().
 * @file: The binary or its interpreter, just opened by the exec code.
 *
 * Marks @file for random access (as POSIX_FADV_RANDOM would) when the
 * exec folio policy reads text into large folios, so that the loader's
 * reads of its headers do not read ahead into the text.  The file's
 * mappings are not affected: mmap read-around ignores FMODE_RANDOM.
 */
void exec_folio_open_exec(struct file *file)
{
	if (!mapping_large_folio_support(file->f_mapping) ||
	    !exec_folio_wants_large(current->mm))
		return;
	spin_lock(&file->f_lock);
	file->f_mode |= FMODE_RANDOM;
	spin_unlock(&file->f_lock);
}

/**
 * exec_folio_binary_ra - Keep read-around of a binary's data out of its text.
 * @vmf: A fault on a mapping that is not executable; its lock is held.
 * @ra: The read-around that is about to be done for it.
 *
 * For a file that exec opened (__FMODE_EXEC), whose text the policy reads
 * into large folios, limit @ra to the part of the file the faulting
 * mapping maps, with no async part to read on past it.
 */
void exec_folio_binary_ra(struct vm_fault *vmf, struct file_ra_state *ra)
{
	struct vm_area_struct *vma = vmf->vma;
	pgoff_t first = vma->vm_pgoff;
	pgoff_t end = first + vma_pages(vma);

	if (!(vma->vm_file->f_flags & __FMODE_EXEC) ||
	    !exec_folio_wants_large(vma->vm_mm))
		return;
	if (ra->start < first) {
		ra->size -= min_t(pgoff_t, ra->size, first - ra->start);
		ra->start = first;
	}
	if (ra->start + ra->size > end)
		ra->size = end - ra->start;
	ra->async_size = 0;
}
