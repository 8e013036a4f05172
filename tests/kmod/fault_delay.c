// SPDX-License-Identifier: GPL-2.0
/*
 * fault_delay: hold one fault-around, of one thread, between its reading
 * of i_size and its lock of the first folio (exec-folio tests only,
 * never in the series).
 *
 * filemap_map_pages() reads i_size, then calls next_uptodate_folio() to
 * look up and lock the first folio of its range.  A kprobe on
 * next_uptodate_folio() busy-waits there, once, for the thread that
 * armed it, until another thread releases it: a truncation run meanwhile
 * ends before the fault locks the folio, which is the race of "mm/filemap:
 * read i_size under each folio's lock in filemap_map_pages()" on demand
 * (tests/progs/eof_race.c).  The hold does not depend on how long the
 * truncation takes; MS only bounds it if nobody releases it.
 *
 * /sys/kernel/debug/fault_delay: write "TID MS" to arm it for thread TID
 * (at most 5000 ms), "release" to end the hold; read "STATE HELD" where
 * STATE is idle, armed, holding or done, and HELD counts the faults held
 * since the module was loaded.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

enum { IDLE, ARMED, HOLDING, DONE };
static const char *const state_names[] = { "idle", "armed", "holding", "done" };
static atomic_t state = ATOMIC_INIT(IDLE);
static pid_t target;
static unsigned int delay_ms;
static atomic_long_t held;
static atomic_t released;
static struct dentry *delay_file;

static int delay_pre(struct kprobe *p, struct pt_regs *regs)
{
	u64 end;

	if (current->pid != READ_ONCE(target) ||
	    atomic_cmpxchg(&state, ARMED, HOLDING) != ARMED)
		return 0;
	end = ktime_get_ns() + (u64)READ_ONCE(delay_ms) * NSEC_PER_MSEC;
	atomic_long_inc(&held);
	while (!atomic_read(&released) && ktime_get_ns() < end)
		cpu_relax();
	atomic_set(&state, DONE);
	return 0;
}

static struct kprobe delay_kp = {
	.symbol_name = "next_uptodate_folio",
	.pre_handler = delay_pre,
};

static ssize_t delay_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	char buf[32];
	unsigned int ms;
	int tid;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sysfs_streq(buf, "release")) {
		atomic_set(&released, 1);
		return len;
	}
	if (sscanf(buf, "%d %u", &tid, &ms) != 2 || tid <= 0 || ms > 5000)
		return -EINVAL;
	if (atomic_read(&state) == HOLDING)
		return -EBUSY;
	WRITE_ONCE(target, tid);
	WRITE_ONCE(delay_ms, ms);
	atomic_set(&released, 0);
	atomic_set(&state, ARMED);
	return len;
}

static ssize_t delay_read(struct file *file, char __user *ubuf, size_t len,
			  loff_t *ppos)
{
	char buf[48];
	int n = scnprintf(buf, sizeof(buf), "%s %ld\n",
			  state_names[atomic_read(&state)], atomic_long_read(&held));

	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations delay_fops = {
	.owner = THIS_MODULE,
	.read = delay_read,
	.write = delay_write,
	.llseek = default_llseek,
};

static int __init delay_init(void)
{
	int err = register_kprobe(&delay_kp);

	if (err) {
		pr_err("fault_delay: no kprobe on next_uptodate_folio: %d\n", err);
		return err;
	}
	delay_file = debugfs_create_file("fault_delay", 0600, NULL, NULL, &delay_fops);
	if (IS_ERR(delay_file)) {
		unregister_kprobe(&delay_kp);
		return PTR_ERR(delay_file);
	}
	return 0;
}

static void __exit delay_exit(void)
{
	debugfs_remove(delay_file);
	unregister_kprobe(&delay_kp);
}

module_init(delay_init);
module_exit(delay_exit);
MODULE_DESCRIPTION("Hold a fault-around between its i_size and its first folio lock (exec-folio tests)");
MODULE_LICENSE("GPL");
