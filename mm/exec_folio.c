// SPDX-License-Identifier: GPL-2.0
/*
 * Exec folio policy: which folio order page faults on executable file
 * mappings read text into.  One decision function takes every input (the
 * global and per-process policy, the architecture's preference, page and
 * PMD size, the VMA, the filesystem's limit); the fault path gathers them
 * without taking a lock.
 */

#include <linux/exec_folio.h>
#include <linux/huge_mm.h>
#include <linux/init.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/compat.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/sizes.h>

/* Written by the exec_folio_size knob, read locklessly by page faults. */
unsigned int exec_folio_global_policy __read_mostly =
	EXEC_FOLIO_POLICY(EXEC_FOLIO_ARCH, 0);

DEFINE_STATIC_KEY_FALSE(exec_folio_enabled);
DEFINE_PER_CPU(unsigned long, exec_folio_stats[NR_EXEC_FOLIO_STATS]);

/* Serialises changes of the global policy and of the static key. */
static DEFINE_MUTEX(exec_folio_key_lock);
/* Live mms whose own policy may give large folios. */
static atomic_t exec_folio_large_mms = ATOMIC_INIT(0);

/**
 * exec_folio_policy_is_large - Can a policy give text large folios?
 * @policy: A global or process policy.
 *
 * Return: false for "never", "inherit", and "arch" on an architecture
 * without a preference; true otherwise.
 */
bool exec_folio_policy_is_large(unsigned int policy)
{
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

/*
 * Whether the fault path's static key must be on: for a global policy
 * that may give large folios, or, unless it is "never", while some live
 * process has a policy of its own that may.
 */
static bool exec_folio_key_wanted(unsigned int global, int nr_large_mms)
{
	return exec_folio_policy_is_large(global) ||
	       (nr_large_mms > 0 &&
		EXEC_FOLIO_POLICY_MODE(global) != EXEC_FOLIO_NEVER);
}

/* Turn the fault path's static key on or off; exec_folio_key_lock held. */
static void exec_folio_update_key(void)
{
	lockdep_assert_held(&exec_folio_key_lock);
	if (exec_folio_key_wanted(READ_ONCE(exec_folio_global_policy),
				  atomic_read(&exec_folio_large_mms)))
		static_branch_enable(&exec_folio_enabled);
	else
		static_branch_disable(&exec_folio_enabled);
}

static void exec_folio_key_off(struct work_struct *work)
{
	mutex_lock(&exec_folio_key_lock);
	exec_folio_update_key();
	mutex_unlock(&exec_folio_key_lock);
}

/*
 * When the last process that asked for large folios goes, the key goes
 * off a second later: a service restarted in a loop under a wrapper that
 * sets its policy does not patch the kernel's text at each start.
 */
static DECLARE_DELAYED_WORK(exec_folio_key_off_work, exec_folio_key_off);

/**
 * exec_folio_set_global - Set the global policy.
 * @policy: The new policy, already validated.
 */
void exec_folio_set_global(unsigned int policy)
{
	mutex_lock(&exec_folio_key_lock);
	WRITE_ONCE(exec_folio_global_policy, policy);
	exec_folio_update_key();
	mutex_unlock(&exec_folio_key_lock);
}

/**
 * exec_folio_mm_account - Account an mm's policy changing.
 * @old: Its policy before (EXEC_FOLIO_INHERIT for a new mm).
 * @new: Its policy now (EXEC_FOLIO_INHERIT for an mm going away).
 *
 * Counts the live mms whose own policy may give large folios, so that
 * the fault path's static key is on exactly while one exists (and the
 * global policy is not "never"), instead of from the first prctl() on:
 * one unprivileged process could otherwise leave every page-cache miss
 * on text taking the out-of-line decision for as long as the machine
 * runs.  Called on fork and execve (mm_init()), on a process's own
 * change (the prctl) and when the mm goes (__mmput()); may sleep.
 */
void exec_folio_mm_account(unsigned int old, unsigned int new)
{
	bool was = exec_folio_policy_is_large(old);
	bool is = exec_folio_policy_is_large(new);

	if (was == is)
		return;
	if (is) {
		if (atomic_inc_return(&exec_folio_large_mms) == 1) {
			mutex_lock(&exec_folio_key_lock);
			exec_folio_update_key();
			mutex_unlock(&exec_folio_key_lock);
		}
	} else if (atomic_dec_and_test(&exec_folio_large_mms)) {
		schedule_delayed_work(&exec_folio_key_off_work, HZ);
	}
}

/**
 * exec_folio_mm_set - Change a live mm's own policy.
 * @mm: The mm.
 * @policy: Its new policy.
 *
 * Serialised, so that two threads of one process changing its policy
 * at once account for the value each one replaced.
 */
void exec_folio_mm_set(struct mm_struct *mm, unsigned int policy)
{
	unsigned int old;

	mutex_lock(&exec_folio_key_lock);
	old = READ_ONCE(mm->exec_folio_policy);
	/*
	 * One word, read locklessly by page faults with READ_ONCE(): as for
	 * the other per-mm state the fault path reads without the mmap lock,
	 * a fault racing with the change may use the old policy.
	 */
	WRITE_ONCE(mm->exec_folio_policy, policy);
	mutex_unlock(&exec_folio_key_lock);
	exec_folio_mm_account(old, policy);
}

#ifdef CONFIG_DEBUG_FS
static int exec_folio_state_show(struct seq_file *m, void *v)
{
	seq_printf(m, "key: %s\nprocesses: %d\n",
		   static_key_enabled(&exec_folio_enabled) ? "on" : "off",
		   atomic_read(&exec_folio_large_mms));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(exec_folio_state);

/*
 * <debugfs>/exec_folio/state: whether the fault path's static key is on,
 * and how many live processes have an own policy that may give large
 * folios.  For tests and debugging; not an ABI.
 */
static int __init exec_folio_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("exec_folio", NULL);

	debugfs_create_file("state", 0444, dir, NULL, &exec_folio_state_fops);
	return 0;
}
late_initcall(exec_folio_debugfs_init);
#endif

/*
 * The key follows the boot-time policy (transparent_hugepage_exec_folio_size=
 * or the default).
 */
static int __init exec_folio_key_init(void)
{
	mutex_lock(&exec_folio_key_lock);
	exec_folio_update_key();
	mutex_unlock(&exec_folio_key_lock);
	return 0;
}
core_initcall(exec_folio_key_init);

/**
 * exec_folio_effective - The policy that applies to a process.
 * @global: The global policy.
 * @local: The process's policy.
 *
 * The global "never" is a hard off that no process can override;
 * otherwise a process's own choice wins over the global one.
 *
 * Return: the policy to apply, never EXEC_FOLIO_INHERIT.
 */
unsigned int exec_folio_effective(unsigned int global, unsigned int local)
{
	if (EXEC_FOLIO_POLICY_MODE(global) == EXEC_FOLIO_NEVER ||
	    EXEC_FOLIO_POLICY_MODE(local) == EXEC_FOLIO_INHERIT)
		return global;
	return local;
}

/**
 * exec_folio_cap - The largest exec folio order allowed.
 * @page_shift: The base page shift.
 * @pmd_order: The order of a PMD mapping.
 * @mapping_max_order: The mapping's largest folio order.
 *
 * Exec folios are never larger than a PMD, than the mapping supports,
 * or than 2M: larger page-cache folios cost too much memory on small
 * machines for what they save (with 64K base pages a PMD is 512M).
 *
 * Return: the cap, an order.
 */
unsigned int exec_folio_cap(unsigned int page_shift, unsigned int pmd_order,
			    unsigned int mapping_max_order)
{
	unsigned int cap_2m = ilog2(SZ_2M) - page_shift;

	return min3(pmd_order, mapping_max_order, cap_2m);
}

/*
 * A PMD-sized folio only pays off if it can be mapped by a PMD: the file
 * offset and the address must agree modulo the PMD size, and the VMA must
 * cover at least one aligned PMD.  Otherwise the read window starts
 * misaligned and the text ends up in a mix of smaller folios, worse than
 * the arch's size.
 */
static bool exec_folio_pmd_fits(const struct exec_folio_input *in)
{
	unsigned long pmd_size = 1UL << (in->pmd_order + in->page_shift);
	unsigned long offset = in->vm_pgoff << in->page_shift;
	unsigned long first = ALIGN(in->vm_start, pmd_size);

	if ((in->vm_start - offset) & (pmd_size - 1))
		return false;
	return first >= in->vm_start && first + pmd_size <= in->vm_end;
}

/*
 * "auto": PMD folios for text that can be PMD-mapped, else the arch's
 * preferred size (64K where the arch has none), never a folio larger
 * than the text itself.
 */
static unsigned int exec_folio_auto(const struct exec_folio_input *in,
				    unsigned int cap)
{
	unsigned long pages = (in->vm_end - in->vm_start) >> in->page_shift;
	unsigned int order;

	if (in->pmd_order <= cap && exec_folio_pmd_fits(in))
		return in->pmd_order;

	order = in->arch_order ? in->arch_order :
				 exec_folio_order_64k(in->page_shift);
	order = min(order, cap);
	while (order && (1UL << order) > pages)
		order--;
	return order;
}

/**
 * exec_folio_decide - Choose the folio order for a text page fault.
 * @in: Everything the decision depends on.
 *
 * THP opt-outs mean what they mean for anonymous memory, where they
 * disable every order: a VMA or a process that opted out reads text as
 * under "never".  A process that chose its own exec folio policy after
 * it opted out gets that policy (its later and more specific choice),
 * but no PMD-size folio, which could not be PMD-mapped; nor does any
 * policy where the hardware cannot use THP.  "auto" gives no PMD-size
 * folio while transparent_hugepage/enabled is "never", as glibc's
 * glibc.elf.thp tunable aligns nothing for THP then; an explicit size is
 * the administrator's own choice and does.  Memory is not looked at: the
 * read asks for the folio
 * as readahead does and steps down an order only when the page
 * allocator or the memory cgroup cannot give it
 * (page_cache_ra_order_exact()).
 *
 * Return: an order in [0, exec_folio_cap()]; 0 means the ordinary
 * read-around.
 */
unsigned int exec_folio_decide(const struct exec_folio_input *in)
{
	unsigned int policy = exec_folio_effective(in->global, in->local);
	unsigned int cap = exec_folio_cap(in->page_shift, in->pmd_order,
					  in->mapping_max_order);
	unsigned int order;

	if (in->vma_opt_out ||
	    (in->mm_opt_out && !(in->local & EXEC_FOLIO_AFTER_THP_DISABLE)))
		return 0;
	if ((in->mm_opt_out || in->no_pmd) && in->pmd_order <= cap)
		cap = in->pmd_order - 1;

	switch (EXEC_FOLIO_POLICY_MODE(policy)) {
	case EXEC_FOLIO_ARCH:
		order = min(in->arch_order, cap);
		break;
	case EXEC_FOLIO_AUTO:
		if (in->thp_never && in->pmd_order <= cap)
			cap = in->pmd_order - 1;
		order = exec_folio_auto(in, cap);
		break;
	case EXEC_FOLIO_ORDER:
		order = min(EXEC_FOLIO_POLICY_ORDER(policy), cap);
		break;
	default:
		return 0;
	}
	return order < EXEC_FOLIO_MIN_ORDER ? 0 : order;
}

/**
 * exec_folio_fault_order - The folio order for a page-cache miss on text.
 * @vma: The executable file VMA; the caller holds its mmap or VMA lock.
 *
 * Called once per miss, through exec_folio_vma_order().  Takes no lock:
 * the policies are read with READ_ONCE().
 *
 * Return: the order to read text into, 0 for the ordinary read-around.
 */
unsigned int exec_folio_fault_order(struct vm_area_struct *vma)
{
	struct exec_folio_input in = {
		.global = READ_ONCE(exec_folio_global_policy),
		.local = READ_ONCE(vma->vm_mm->exec_folio_policy),
		.arch_order = exec_folio_order(),
		.page_shift = PAGE_SHIFT,
		.pmd_order = PMD_ORDER,
		.mapping_max_order =
			mapping_max_folio_order(vma->vm_file->f_mapping),
		.vm_start = vma->vm_start,
		.vm_end = vma->vm_end,
		.vm_pgoff = vma->vm_pgoff,
		.vma_opt_out = vma->vm_flags & VM_NOHUGEPAGE,
		.mm_opt_out = test_bit(MMF_DISABLE_THP, &vma->vm_mm->flags),
		.no_pmd = thp_disabled_by_hw(),
		.thp_never = !hugepage_global_enabled(),
	};

	return exec_folio_decide(&in);
}

/**
 * exec_folio_place - The folio order to place a range of a file for.
 * @in: The policy's inputs.  @in->vm_start, @in->vm_end and @in->vm_pgoff
 *	describe the range as if it were mapped congruent with its file
 *	offset (at an address equal to the offset).
 *
 * The order a fault would read the range's text into, lowered until the
 * range holds a whole naturally aligned block of it: placing a mapping
 * congruent modulo a size costs address-space layout randomization, and
 * only pays when a folio of that size can then be mapped whole.
 *
 * Return: the order, 0 if no placement finer than a page helps.
 */
unsigned int exec_folio_place(const struct exec_folio_input *in)
{
	unsigned int order;

	for (order = exec_folio_decide(in);
	     order >= EXEC_FOLIO_MIN_ORDER; order--) {
		unsigned long size = 1UL << (order + in->page_shift);

		if (ALIGN(in->vm_start, size) + size <= in->vm_end)
			return order;
	}
	return 0;
}

/**
 * exec_folio_place_size - The size to place text of a file congruent for.
 * @mm: The address space the file is being mapped into; its policy
 *	applies.
 * @mapping: The file's mapping.
 * @offset: The file offset of the range being mapped.
 * @len: Its length.
 *
 * Return: a power of two larger than a page, modulo which the address of
 * the range should be congruent with @offset; 0 for no constraint.
 */
unsigned long exec_folio_place_size(struct mm_struct *mm,
				    struct address_space *mapping,
				    loff_t offset, unsigned long len)
{
	unsigned long start = offset & PAGE_MASK;
	struct exec_folio_input in = {
		.global = READ_ONCE(exec_folio_global_policy),
		.local = READ_ONCE(mm->exec_folio_policy),
		.arch_order = exec_folio_order(),
		.page_shift = PAGE_SHIFT,
		.pmd_order = PMD_ORDER,
		.mapping_max_order = mapping_max_folio_order(mapping),
		.vm_start = start,
		.vm_end = PAGE_ALIGN(offset + len),
		.vm_pgoff = start >> PAGE_SHIFT,
		.vma_opt_out = mm->def_flags & VM_NOHUGEPAGE,
		.mm_opt_out = test_bit(MMF_DISABLE_THP, &mm->flags),
		.no_pmd = thp_disabled_by_hw(),
		.thp_never = !hugepage_global_enabled(),
	};
	unsigned int order;

	if (in.vm_end <= in.vm_start)
		return 0;
	order = exec_folio_place(&in);
	return order ? PAGE_SIZE << order : 0;
}

/**
 * exec_folio_header_block - Let a PIE's first text block be one PMD folio.
 * @file: The program execve() is loading.
 *
 * Text at file offset 0 (-z noseparate-code, aarch64's default) shares
 * its first block with the ELF headers, which execve() read before it
 * knew where the text would be placed, in folios of at most 64K or the
 * architecture's size.  When the text is placed for PMD-size folios,
 * drop those folios of the first PMD block, so that the first fault on
 * it reads the block as one folio.  They were just read and are clean;
 * invalidate_mapping_pages() leaves any folio that is mapped (the
 * program already runs elsewhere), dirty or locked, and the fault then
 * reads around what is left.
 */
void exec_folio_header_block(struct file *file)
{
	struct address_space *mapping = exec_folio_real_mapping(file);
	unsigned long nr = 1UL << PMD_ORDER;
	struct folio *folio;
	bool whole;

	folio = filemap_get_folio(mapping, 0);
	if (IS_ERR(folio))
		return;
	whole = folio_nr_pages(folio) >= nr;
	folio_put(folio);
	if (whole)
		return;
	invalidate_mapping_pages(mapping, 0, nr - 1);
}

/**
 * exec_folio_mmap_size - The size to place a new file mapping congruent for.
 * @file: The file being mapped.
 * @len: The length of the mapping.
 * @pgoff: Its file page offset.
 * @flags: The mmap() flags.
 * @vm_flags: The VMA flags it will have.
 *
 * Only private file mappings without write permission are placed: that
 * is how loaders map a library or a program (glibc's ld.so maps the whole
 * file with its first segment's protection, then each segment over it),
 * and not how a file is mapped to be written.  The mapping need not be
 * executable yet: ld.so's first mapping of a library seldom is.  On
 * overlayfs the real file's mapping decides.  Not for anonymous,
 * MAP_FIXED, 32-bit or compat mappings, nor for a task that is not
 * randomized (ADDR_NO_RANDOMIZE, as setarch -R and gdb set it, or
 * randomize_va_space=0): its libraries load where they always did, so
 * that addresses recorded once (rr, scripts) stay valid whatever the
 * policy.
 *
 * Return: the size, or 0 to place the mapping as usual.
 */
unsigned long exec_folio_mmap_size(struct file *file, unsigned long len,
				   unsigned long pgoff, unsigned long flags,
				   vm_flags_t vm_flags)
{
	if (!file || !IS_ENABLED(CONFIG_64BIT) || in_compat_syscall() ||
	    (flags & MAP_FIXED) || (flags & MAP_TYPE) != MAP_PRIVATE ||
	    (vm_flags & VM_WRITE) || !current->mm ||
	    !(current->flags & PF_RANDOMIZE))
		return 0;
	return exec_folio_place_size(current->mm, exec_folio_real_mapping(file),
				     (loff_t)pgoff << PAGE_SHIFT, len);
}

/**
 * exec_folio_max_order - The largest order this kernel accepts.
 *
 * The cap for a filesystem with the largest folios the page cache has;
 * explicit sizes above it are refused by the knob and the prctl.
 *
 * Return: the order.
 */
unsigned int exec_folio_max_order(void)
{
	return exec_folio_cap(PAGE_SHIFT, PMD_ORDER, MAX_PAGECACHE_ORDER);
}

/**
 * exec_folio_format - Write a policy as the word the knob uses.
 * @policy: The policy.
 * @page_shift: The base page shift, to turn an order into a size.
 * @buf: Where to write.
 * @len: Size of @buf.
 *
 * Modes are written as "inherit", "never", "arch" or "auto"; an explicit
 * order as its folio size, "64K" or "2M".
 *
 * Return: the length written, as snprintf().
 */
int exec_folio_format(unsigned int policy, unsigned int page_shift,
		      char *buf, size_t len)
{
	static const char * const names[] = {
		[EXEC_FOLIO_INHERIT] = "inherit",
		[EXEC_FOLIO_NEVER] = "never",
		[EXEC_FOLIO_ARCH] = "arch",
		[EXEC_FOLIO_AUTO] = "auto",
	};
	unsigned int mode = EXEC_FOLIO_POLICY_MODE(policy);
	unsigned long size;

	if (mode != EXEC_FOLIO_ORDER)
		return snprintf(buf, len, "%s",
				mode < ARRAY_SIZE(names) ? names[mode] : "?");
	size = 1UL << (EXEC_FOLIO_POLICY_ORDER(policy) + page_shift);
	if (size >= SZ_1M)
		return snprintf(buf, len, "%luM", size >> 20);
	return snprintf(buf, len, "%luK", size >> 10);
}

#ifdef CONFIG_EXEC_FOLIO_KUNIT_TEST
#include "exec_folio_kunit.c"
#endif
