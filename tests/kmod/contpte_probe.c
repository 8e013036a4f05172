// SPDX-License-Identifier: GPL-2.0
/*
 * contpte_probe: a test-only module for the arm64 test guests.
 *
 * Whether arm64 really mapped a block of text with the contiguous bit is
 * visible in the page tables only; no /proc file shows it.  This module
 * counts it, so the tests can check that what "exec_folio_ctl report"
 * infers from pagemap and kpageflags (aligned blocks of one folio, fully
 * mapped) is what the kernel did:
 *
 *   # echo "PID START END" > /sys/kernel/debug/contpte_probe   (hex addresses)
 *   # cat /sys/kernel/debug/contpte_probe
 *   pte=768 cont=736 pmd=0
 *
 * pte counts the pages of [START, END) mapped by a present PTE, cont
 * those of them with the contiguous bit, pmd the pages mapped by a PMD.
 * It reads the tables under the mmap lock of a process the test has
 * stopped; it is not meant for anything else.
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pgtable.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>

static DEFINE_MUTEX(probe_lock);
static char probe_result[64];
static struct dentry *probe_file;

struct probe_counts {
	unsigned long pte, cont, pmd;
};

/* The PMD entry that maps @addr, or NULL where a level above is empty. */
static pmd_t *probe_pmd(struct mm_struct *mm, unsigned long addr)
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

static void probe_range(struct mm_struct *mm, unsigned long start,
			unsigned long end, struct probe_counts *c)
{
	unsigned long addr;

	for (addr = start; addr < end; addr += PAGE_SIZE) {
		pmd_t *pmdp = probe_pmd(mm, addr);
		pmd_t pmd;
		pte_t pte;

		if (!pmdp)
			continue;
		pmd = pmdp_get(pmdp);
		if (pmd_none(pmd))
			continue;
		if (pmd_leaf(pmd)) {
			c->pmd++;
			continue;
		}
		/* Raw entry: ptep_get() would gather the whole block's bits. */
		pte = __ptep_get(pte_offset_kernel(pmdp, addr));
		if (!pte_present(pte))
			continue;
		c->pte++;
		if (pte_cont(pte))
			c->cont++;
	}
}

static ssize_t probe_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct probe_counts c = { };
	unsigned long start, end;
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *found;
	char buf[64];
	int pid;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%d %lx %lx", &pid, &start, &end) != 3 ||
	    start >= end || !PAGE_ALIGNED(start))
		return -EINVAL;

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
	probe_range(mm, start, end, &c);
	mmap_read_unlock(mm);
	mmput(mm);

	mutex_lock(&probe_lock);
	snprintf(probe_result, sizeof(probe_result), "pte=%lu cont=%lu pmd=%lu\n",
		 c.pte, c.cont, c.pmd);
	mutex_unlock(&probe_lock);
	return len;
}

static ssize_t probe_read(struct file *file, char __user *ubuf, size_t len,
			  loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&probe_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, probe_result,
				      strlen(probe_result));
	mutex_unlock(&probe_lock);
	return ret;
}

static const struct file_operations probe_fops = {
	.owner = THIS_MODULE,
	.read = probe_read,
	.write = probe_write,
	.llseek = default_llseek,
};

static int __init probe_init(void)
{
	probe_file = debugfs_create_file("contpte_probe", 0600, NULL, NULL,
					 &probe_fops);
	return IS_ERR(probe_file) ? PTR_ERR(probe_file) : 0;
}

static void __exit probe_exit(void)
{
	debugfs_remove(probe_file);
}

module_init(probe_init);
module_exit(probe_exit);
MODULE_DESCRIPTION("Count contiguous-bit PTEs of a process (exec-folio tests)");
MODULE_LICENSE("GPL");
