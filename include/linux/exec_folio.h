/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exec folio policy: the page-cache folio order that page faults on
 * executable file mappings read text into.
 *
 * See Documentation/admin-guide/mm/exec_folio.rst.
 */
#ifndef _LINUX_EXEC_FOLIO_H
#define _LINUX_EXEC_FOLIO_H

#include <linux/errno.h>
#include <linux/jump_label.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/pgtable.h>
#include <linux/sched.h>

struct kobj_attribute;
struct kobject;

/*
 * The policy modes.  The first four are the PR_EXEC_FOLIO_* prctl
 * arguments; ORDER is the prctl's (and the knob's) explicit size.
 * INHERIT is only meaningful for a process: it defers to the global
 * policy.
 */
enum exec_folio_mode {
	EXEC_FOLIO_INHERIT	= 0,
	EXEC_FOLIO_NEVER	= 1,	/* order 0: the ordinary read-around */
	EXEC_FOLIO_ARCH		= 2,	/* exec_folio_order() */
	EXEC_FOLIO_AUTO		= 3,	/* by text size, alignment, memory */
	EXEC_FOLIO_ORDER	= 4,	/* an explicit order */
};

/*
 * A policy is one word, the mode in the low byte and, for
 * EXEC_FOLIO_ORDER, the order above it, so that the fault path can read
 * it with a single READ_ONCE() and no lock.
 */
#define EXEC_FOLIO_POLICY(mode, order)	((unsigned int)(mode) | ((order) << 8))
#define EXEC_FOLIO_POLICY_MODE(policy)	((policy) & 0xff)
#define EXEC_FOLIO_POLICY_ORDER(policy)	(((policy) >> 8) & 0xff)
/*
 * In a process's policy: chosen while the process had opted out of THP
 * (PR_SET_THP_DISABLE), so it wins over that opt-out.
 */
#define EXEC_FOLIO_AFTER_THP_DISABLE	BIT(16)

/* The smallest explicit order offered; as for anonymous mTHP, not 1. */
#define EXEC_FOLIO_MIN_ORDER	2

/* The order of a 64K folio, 0 if the base page is already that large. */
static inline unsigned int exec_folio_order_64k(unsigned int page_shift)
{
	return page_shift < 16 ? 16 - page_shift : 0;
}

/**
 * exec_folio_congruent - Move a load address onto a congruent one.
 * @addr: The address chosen for the start of an image.
 * @vaddr: The virtual address a segment has in the image.
 * @offset: The file offset of that segment.
 * @size: A power of two.
 *
 * Return: the highest address not above @addr at which the segment,
 * loaded at @addr + @vaddr, is congruent with @offset modulo @size; @addr
 * itself if there is none (@addr below @size).
 */
static inline unsigned long exec_folio_congruent(unsigned long addr,
						 unsigned long vaddr,
						 unsigned long offset,
						 unsigned long size)
{
	unsigned long ret = (addr & ~(size - 1)) + ((offset - vaddr) & (size - 1));

	if (ret <= addr)
		return ret;
	return addr >= size ? ret - size : addr;
}

/**
 * struct exec_folio_input - What the exec folio decision depends on.
 * @global: The global policy (never INHERIT).
 * @local: The faulting process's policy, or INHERIT.
 * @arch_order: The architecture's preference, exec_folio_order().
 * @page_shift: The base page shift.
 * @pmd_order: The order of a PMD mapping.
 * @mapping_max_order: The largest folio order the file's mapping
 *	supports (0 when its filesystem has no large folios).
 * @vm_start: Start address of the text VMA.
 * @vm_end: End address of the text VMA.
 * @vm_pgoff: File page offset of @vm_start.
 * @vma_opt_out: The VMA opted out of THP (MADV_NOHUGEPAGE, or an mm
 *	whose new VMAs get VM_NOHUGEPAGE): text is read as under "never".
 * @mm_opt_out: The process opted out of THP (PR_SET_THP_DISABLE): text
 *	is read as under "never", unless the process chose its own policy
 *	after opting out (EXEC_FOLIO_AFTER_THP_DISABLE in @local); then no
 *	PMD-size folio, which do_set_pmd() would not map.
 * @no_pmd: The hardware cannot use THP: no PMD-size folio.
 * @thp_never: transparent_hugepage/enabled is "never": "auto" gives no
 *	PMD-size folio (an explicit size still does).
 *
 * Kept apart from the VMA and the running kernel's constants so that the
 * decision can be tested for every base page size on any machine.
 */
struct exec_folio_input {
	unsigned int global;
	unsigned int local;
	unsigned int arch_order;
	unsigned int page_shift;
	unsigned int pmd_order;
	unsigned int mapping_max_order;
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_pgoff;
	bool vma_opt_out;
	bool mm_opt_out;
	bool no_pmd;
	bool thp_never;
};

/* Counters in /sys/kernel/mm/transparent_hugepage/exec_folio_stats/ */
enum exec_folio_stat {
	EXEC_FOLIO_STAT_ALLOC,		/* large folios read for text faults */
	EXEC_FOLIO_STAT_FALLBACK,	/* allocation or charge failed: one order down */
	NR_EXEC_FOLIO_STATS,
};

#ifdef CONFIG_EXEC_FOLIO_POLICY

/* mm/exec_folio.c: the policy state and the decision */
extern unsigned int exec_folio_global_policy;

/*
 * On while some policy can read text into large folios: the global one,
 * or (unless the global one is "never") a process's.  Off, a fault runs
 * none of the policy's code.
 */
DECLARE_STATIC_KEY_FALSE(exec_folio_enabled);

unsigned int exec_folio_effective(unsigned int global, unsigned int local);
unsigned int exec_folio_cap(unsigned int page_shift, unsigned int pmd_order,
			    unsigned int mapping_max_order);
unsigned int exec_folio_decide(const struct exec_folio_input *in);
unsigned int exec_folio_fault_order(struct vm_area_struct *vma);
unsigned int exec_folio_place(const struct exec_folio_input *in);
unsigned long exec_folio_place_size(struct mm_struct *mm,
				    struct address_space *mapping,
				    loff_t offset, unsigned long len);
unsigned long exec_folio_mmap_size(struct file *file, unsigned long len,
				   unsigned long pgoff, unsigned long flags,
				   vm_flags_t vm_flags);
void exec_folio_header_block(struct file *file);
unsigned int exec_folio_max_order(void);
bool exec_folio_policy_is_large(unsigned int policy);
void exec_folio_set_global(unsigned int policy);
void exec_folio_mm_account(unsigned int old, unsigned int new);
void exec_folio_mm_set(struct mm_struct *mm, unsigned int policy);
int exec_folio_format(unsigned int policy, unsigned int page_shift,
		      char *buf, size_t len);

/**
 * exec_folio_vma_order - The folio order to read a page-cache miss into.
 * @vma: The faulting VMA; its mmap or VMA lock is held.
 *
 * Inline, so that a fault on a mapping that is not executable, or any
 * fault while no policy can ask for large folios, runs no new code out
 * of line.
 *
 * Return: the order, 0 for the ordinary read-around.
 */
static inline unsigned int exec_folio_vma_order(struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_EXEC) ||
	    !static_branch_unlikely(&exec_folio_enabled))
		return 0;
	return exec_folio_fault_order(vma);
}

/**
 * exec_folio_mmap_align - Place a new file mapping for its text's folios.
 * @file: The file being mapped; NULL for an anonymous mapping.
 * @len: The length of the mapping.
 * @pgoff: Its file page offset.
 * @flags: The mmap() flags.
 * @vm_flags: The VMA flags it will have.
 *
 * Called by thp_get_unmapped_area() when it found no PMD-aligned place
 * (it uses sizes below a PMD), and by __get_unmapped_area() for a file
 * without a get_unmapped_area method (overlayfs).
 *
 * Return: the size modulo which the mapping's address should be congruent
 * with its file offset, or 0.
 */
static inline unsigned long exec_folio_mmap_align(struct file *file,
						  unsigned long len,
						  unsigned long pgoff,
						  unsigned long flags,
						  vm_flags_t vm_flags)
{
	if (!static_branch_unlikely(&exec_folio_enabled))
		return 0;
	return exec_folio_mmap_size(file, len, pgoff, flags, vm_flags);
}

/* Whether any placement can happen: the fault path's static key. */
static inline bool exec_folio_placing(void)
{
	return static_branch_unlikely(&exec_folio_enabled);
}

/*
 * The mapping that holds @file's folios: on overlayfs the real file's,
 * whose i_mapping the overlay file's f_mapping is not.
 */
static inline struct address_space *exec_folio_real_mapping(struct file *file)
{
	struct inode *real = d_real_inode(file->f_path.dentry);

	return real == file_inode(file) ? file->f_mapping : real->i_mapping;
}

/**
 * exec_folio_text_align - Place a program's text for its folios.
 * @file: The program, being loaded by execve() into current->mm.
 * @offset: The file offset of its text.
 * @len: The length of its text.
 *
 * Return: the size modulo which the text's address should be congruent
 * with @offset, or 0.
 */
static inline unsigned long exec_folio_text_align(struct file *file,
						  loff_t offset,
						  unsigned long len)
{
	if (!static_branch_unlikely(&exec_folio_enabled))
		return 0;
	return exec_folio_place_size(current->mm, exec_folio_real_mapping(file),
				     offset, len);
}

DECLARE_PER_CPU(unsigned long, exec_folio_stats[NR_EXEC_FOLIO_STATS]);

static inline void exec_folio_add(enum exec_folio_stat item,
				  unsigned long nr)
{
	if (nr)
		this_cpu_add(exec_folio_stats[item], nr);
}

/* A new mm (fork, execve): inherited and kept, like MMF_DISABLE_THP. */
static inline void exec_folio_mm_init(struct mm_struct *mm,
				      struct mm_struct *parent)
{
	mm->exec_folio_policy = parent ?
		READ_ONCE(parent->exec_folio_policy) : EXEC_FOLIO_INHERIT;
	if (mm->exec_folio_policy != EXEC_FOLIO_INHERIT)
		exec_folio_mm_account(EXEC_FOLIO_INHERIT, mm->exec_folio_policy);
}

/* An mm going away (__mmput()). */
static inline void exec_folio_mm_exit(struct mm_struct *mm)
{
	if (mm->exec_folio_policy != EXEC_FOLIO_INHERIT)
		exec_folio_mm_account(mm->exec_folio_policy, EXEC_FOLIO_INHERIT);
}

/* A privileged execve() drops the caller's own policy. */
static inline void exec_folio_mm_reset(struct mm_struct *mm)
{
	if (READ_ONCE(mm->exec_folio_policy) != EXEC_FOLIO_INHERIT)
		exec_folio_mm_set(mm, EXEC_FOLIO_INHERIT);
}

/* mm/exec_folio_sysfs.c: the exec_folio_size knob and the counters */
extern struct kobj_attribute exec_folio_size_attr;
void exec_folio_sysfs_init(struct kobject *hugepage_kobj);
int exec_folio_parse(const char *buf, unsigned int page_shift,
		     unsigned int max_order, unsigned int *policy);

/* mm/exec_folio_loader.c: other reads of a binary than its text faults */
bool exec_folio_read_binary(struct readahead_control *ractl,
			    unsigned long req_count);
bool exec_folio_binary_ra(struct vm_fault *vmf, unsigned long ra_pages,
			  pgoff_t *start, unsigned long *nr);
bool exec_folio_binary_async(struct vm_fault *vmf, unsigned long ra_pages);
bool exec_folio_binary_large(struct mm_struct *mm,
			     struct address_space *mapping);

/**
 * exec_folio_exec_read - Read what execve() reads of a binary.
 * @ractl: The read()'s readahead control.
 * @req_count: The pages the read() asked for.
 *
 * The ELF loader (and IMA's appraisal, and any binfmt handler) read the
 * binary and its interpreter through the file that execve() opened,
 * before the text is faulted.  While the exec runs, such reads are done
 * in the folio size the new program's text will want, so the text's
 * first blocks (often sharing pages with the headers) are not left in
 * small folios.  Tested on the file that execve() opened, not by
 * changing its mode, so reads by anyone else, or after the exec, are
 * not affected; on overlayfs it is the real file that is read.
 *
 * Return: true if the read was done here.
 */
static inline bool exec_folio_exec_read(struct readahead_control *ractl,
					unsigned long req_count)
{
	if (!static_branch_unlikely(&exec_folio_enabled) || !ractl->file ||
	    !(ractl->file->f_flags & __FMODE_EXEC) || !current->in_execve)
		return false;
	return exec_folio_read_binary(ractl, req_count);
}

/**
 * exec_folio_binary_window - Keep read-around of a binary's data out of its text.
 * @vmf: A page-cache miss that read-around serves (a mapping that is not
 *	executable, or text the policy leaves to read-around).
 * @ra_pages: The file's read-around size.
 * @start: Where the window to read starts, if true is returned.
 * @nr: Its length in pages.
 *
 * A binary is a file that execve() opened, or one mapped private, as
 * the dynamic loader maps a library's segments: read-around of its data
 * or read-only data would otherwise fill the neighbouring text with small
 * folios before the text is faulted.  For a private mapping, only a
 * read-around window that would leave the mapping is changed.
 *
 * Return: true if @vmf is on a binary of a process whose text the policy
 * reads into large folios; then read only [@start, @start + @nr), which
 * stays inside the faulting mapping's part of the file.
 */
static inline bool exec_folio_binary_window(struct vm_fault *vmf,
					    unsigned long ra_pages,
					    pgoff_t *start, unsigned long *nr)
{
	struct vm_area_struct *vma = vmf->vma;

	if (!static_branch_unlikely(&exec_folio_enabled))
		return false;
	if (!(vma->vm_file->f_flags & __FMODE_EXEC) &&
	    (vma->vm_flags & VM_MAYSHARE))
		return false;
	return exec_folio_binary_ra(vmf, ra_pages, start, nr);
}

/**
 * exec_folio_binary_async_ra - Keep async readahead out of a binary's text.
 * @vmf: A fault that found a folio marked for async readahead.
 * @ra_pages: The file's readahead size.
 *
 * A loader's read() of a binary's headers leaves a readahead mark, and
 * the first fault on a marked folio, by the loader's first mapping of the
 * binary or by its text, would read ahead sequentially into the text in
 * small folios, ramping up.  Text, and a binary's other mappings, are
 * read by their faults instead.
 *
 * Return: true if @vmf is on text, or on a binary (see
 * exec_folio_binary_window()) whose readahead would leave the faulting
 * mapping, of a process whose text the policy reads into large folios:
 * then do no async readahead.
 */
static inline bool exec_folio_binary_async_ra(struct vm_fault *vmf,
					      unsigned long ra_pages)
{
	struct vm_area_struct *vma = vmf->vma;

	if (!static_branch_unlikely(&exec_folio_enabled))
		return false;
	if (!(vma->vm_flags & VM_EXEC) &&
	    !(vma->vm_file->f_flags & __FMODE_EXEC) &&
	    (vma->vm_flags & VM_MAYSHARE))
		return false;
	return exec_folio_binary_async(vmf, ra_pages);
}

/* mm/exec_folio_prctl.c: PR_SET/GET_EXEC_FOLIO_SIZE */
int exec_folio_prctl_set(struct mm_struct *mm, unsigned long value,
			 unsigned long arg3, unsigned long arg4,
			 unsigned long arg5);
int exec_folio_prctl_get(struct mm_struct *mm, unsigned long arg2,
			 unsigned long arg3, unsigned long arg4,
			 unsigned long arg5);

#else /* !CONFIG_EXEC_FOLIO_POLICY */

static inline void exec_folio_add(enum exec_folio_stat item,
				  unsigned long nr)
{
}

static inline void exec_folio_sysfs_init(struct kobject *hugepage_kobj)
{
}

/*
 * Without the policy (also whenever THP is off), the architecture's
 * order where the file allows it, but no more than 64K: there is no knob
 * to turn it down, and no memory pressure check.
 */
static inline unsigned int exec_folio_vma_order(struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_EXEC))
		return 0;
	return min3(exec_folio_order(), exec_folio_order_64k(PAGE_SHIFT),
		    mapping_max_folio_order(vma->vm_file->f_mapping));
}

static inline unsigned long exec_folio_mmap_align(struct file *file,
						  unsigned long len,
						  unsigned long pgoff,
						  unsigned long flags,
						  vm_flags_t vm_flags)
{
	return 0;
}

static inline unsigned long exec_folio_text_align(struct file *file,
						  loff_t offset,
						  unsigned long len)
{
	return 0;
}

static inline bool exec_folio_placing(void)
{
	return false;
}

static inline void exec_folio_header_block(struct file *file)
{
}

static inline void exec_folio_mm_init(struct mm_struct *mm,
				      struct mm_struct *parent)
{
}

static inline void exec_folio_mm_exit(struct mm_struct *mm)
{
}

static inline void exec_folio_mm_reset(struct mm_struct *mm)
{
}

static inline bool exec_folio_exec_read(struct readahead_control *ractl,
					unsigned long req_count)
{
	return false;
}

static inline bool exec_folio_binary_window(struct vm_fault *vmf,
					    unsigned long ra_pages,
					    pgoff_t *start, unsigned long *nr)
{
	return false;
}

static inline bool exec_folio_binary_async_ra(struct vm_fault *vmf,
					      unsigned long ra_pages)
{
	return false;
}

static inline int exec_folio_prctl_set(struct mm_struct *mm,
				       unsigned long value, unsigned long arg3,
				       unsigned long arg4, unsigned long arg5)
{
	return -EINVAL;
}

static inline int exec_folio_prctl_get(struct mm_struct *mm,
				       unsigned long arg2, unsigned long arg3,
				       unsigned long arg4, unsigned long arg5)
{
	return -EINVAL;
}

#endif /* CONFIG_EXEC_FOLIO_POLICY */

#endif /* _LINUX_EXEC_FOLIO_H */
