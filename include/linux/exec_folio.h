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
#include <linux/mm_types.h>
#include <linux/pgtable.h>

struct file;
struct file_ra_state;
struct folio;
struct kobj_attribute;
struct vm_fault;

/*
 * The policy modes.  The values are those of the PR_EXEC_FOLIO_* prctl
 * arguments.  INHERIT is only meaningful for a process: it defers to the
 * global policy.
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
#define EXEC_FOLIO_POLICY_ORDER(policy)	((policy) >> 8)

/* The smallest explicit order offered; as for anonymous mTHP, not 1. */
#define EXEC_FOLIO_MIN_ORDER	2

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
 * @low_memory: The local node is below its high watermark.
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
	bool low_memory;
};

#ifdef CONFIG_EXEC_FOLIO_POLICY

/* mm/exec_folio.c: the policy state and the decision */
extern unsigned int exec_folio_global_policy;

unsigned int exec_folio_effective(unsigned int global, unsigned int local);
unsigned int exec_folio_cap(unsigned int page_shift, unsigned int pmd_order,
			    unsigned int mapping_max_order);
unsigned int exec_folio_decide(const struct exec_folio_input *in);
unsigned int exec_folio_fault_order(struct vm_area_struct *vma);
unsigned int exec_folio_max_order(void);
int exec_folio_format(unsigned int policy, unsigned int page_shift,
		      char *buf, size_t len);

static inline void exec_folio_mm_init(struct mm_struct *mm,
				      struct mm_struct *parent)
{
	/* Inherited on fork and kept across execve, like MMF_DISABLE_THP. */
	mm->exec_folio_policy = parent ?
		READ_ONCE(parent->exec_folio_policy) : EXEC_FOLIO_INHERIT;
}

/* mm/exec_folio_sysfs.c: the exec_order knob */
extern struct kobj_attribute exec_order_attr;
int exec_folio_parse(const char *buf, unsigned int page_shift,
		     unsigned int max_order, unsigned int *policy);

/* mm/exec_folio_loader.c: other reads of a binary than its text faults */
void exec_folio_open_exec(struct file *file);
void exec_folio_binary_ra(struct vm_fault *vmf, struct file_ra_state *ra);

/* mm/exec_folio_map.c: mapping text folios whole */
unsigned long exec_folio_fault_around_pages(struct vm_fault *vmf,
					    unsigned long nr_pages);
bool exec_folio_map_whole(struct vm_fault *vmf, struct folio *folio);

/* mm/exec_folio_prctl.c: PR_SET/GET_EXEC_FOLIO_ORDER */
int exec_folio_prctl_set(struct mm_struct *mm, unsigned long mode,
			 unsigned long order, unsigned long arg4,
			 unsigned long arg5);
int exec_folio_prctl_get(struct mm_struct *mm, unsigned long arg2,
			 unsigned long arg3, unsigned long arg4,
			 unsigned long arg5);

#else /* !CONFIG_EXEC_FOLIO_POLICY */

static inline unsigned int exec_folio_fault_order(struct vm_area_struct *vma)
{
	return exec_folio_order();
}

static inline void exec_folio_mm_init(struct mm_struct *mm,
				      struct mm_struct *parent)
{
}

static inline void exec_folio_open_exec(struct file *file)
{
}

static inline void exec_folio_binary_ra(struct vm_fault *vmf,
					struct file_ra_state *ra)
{
}

static inline unsigned long exec_folio_fault_around_pages(struct vm_fault *vmf,
							  unsigned long nr_pages)
{
	return nr_pages;
}

static inline bool exec_folio_map_whole(struct vm_fault *vmf,
					struct folio *folio)
{
	return false;
}

static inline int exec_folio_prctl_set(struct mm_struct *mm,
				       unsigned long mode, unsigned long order,
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
