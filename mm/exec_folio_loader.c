// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own reads of a binary it is about to execute.
 *
 * The ELF loader read()s a binary's headers, and ordinary readahead
 * pulls the pages after them, often the start of the text, into the
 * page cache in small folios before the text is ever faulted.  When
 * the exec folio policy will read this process's text into large
 * folios, those header reads are random access: read what is asked for
 * and leave the text to its first page fault.
 */

#include <linux/exec_folio.h>
#include <linux/fs.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

/* Whether text of the process that is exec'ing goes into large folios. */
static bool exec_folio_wants_large(void)
{
	unsigned int local = current->mm ?
		READ_ONCE(current->mm->exec_folio_policy) : EXEC_FOLIO_INHERIT;
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
	    !exec_folio_wants_large())
		return;
	spin_lock(&file->f_lock);
	file->f_mode |= FMODE_RANDOM;
	spin_unlock(&file->f_lock);
}
