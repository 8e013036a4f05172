// SPDX-License-Identifier: GPL-2.0
/*
 * The global exec folio policy: /sys/kernel/mm/transparent_hugepage/
 * exec_folio_size, and the transparent_hugepage_exec_folio_size= kernel
 * command line parameter (named as the THP boot parameters are).
 *
 * The knob accepts "never", "arch", "auto" and one word per folio size
 * this kernel can use for text ("16K" ... "2M" with 4K pages), lists them
 * all with the active one in brackets, and refuses anything else with
 * -EINVAL, keeping the old value.
 */

#define pr_fmt(fmt) "exec_folio: " fmt

#include <linux/exec_folio.h>
#include <linux/init.h>
#include <linux/kobject.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/sysfs.h>

/* Long enough for every word: "inherit", "512K". */
#define EXEC_FOLIO_WORD_LEN	16

/*
 * The @i-th policy the knob accepts, in the order the knob lists them:
 * the modes, then the explicit sizes from the smallest up to @max_order.
 */
static bool exec_folio_accepted(unsigned int i, unsigned int max_order,
				unsigned int *policy)
{
	static const enum exec_folio_mode modes[] = {
		EXEC_FOLIO_NEVER, EXEC_FOLIO_ARCH, EXEC_FOLIO_AUTO,
	};

	if (i < ARRAY_SIZE(modes)) {
		*policy = EXEC_FOLIO_POLICY(modes[i], 0);
		return true;
	}
	i -= ARRAY_SIZE(modes);
	if (EXEC_FOLIO_MIN_ORDER + i > max_order)
		return false;
	*policy = EXEC_FOLIO_POLICY(EXEC_FOLIO_ORDER, EXEC_FOLIO_MIN_ORDER + i);
	return true;
}

/**
 * exec_folio_parse - Parse a word written to the exec_folio_size knob.
 * @buf: The word, optionally followed by a newline.
 * @page_shift: The base page shift that sizes are relative to.
 * @max_order: The largest explicit order accepted.
 * @policy: Where to store the policy.
 *
 * Return: 0, or -EINVAL if @buf is not exactly one accepted word; then
 * @policy is left alone.
 */
int exec_folio_parse(const char *buf, unsigned int page_shift,
		     unsigned int max_order, unsigned int *policy)
{
	char word[EXEC_FOLIO_WORD_LEN];
	unsigned int candidate, i;

	for (i = 0; exec_folio_accepted(i, max_order, &candidate); i++) {
		exec_folio_format(candidate, page_shift, word, sizeof(word));
		if (sysfs_streq(buf, word)) {
			*policy = candidate;
			return 0;
		}
	}
	return -EINVAL;
}

static ssize_t exec_folio_size_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	unsigned int active = READ_ONCE(exec_folio_global_policy);
	unsigned int max_order = exec_folio_max_order();
	char word[EXEC_FOLIO_WORD_LEN];
	unsigned int policy, i;
	int len = 0;

	for (i = 0; exec_folio_accepted(i, max_order, &policy); i++) {
		exec_folio_format(policy, PAGE_SHIFT, word, sizeof(word));
		len += sysfs_emit_at(buf, len, policy == active ? "%s[%s]" : "%s%s",
				     i ? " " : "", word);
	}
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static ssize_t exec_folio_size_store(struct kobject *kobj,
				     struct kobj_attribute *attr,
				     const char *buf, size_t count)
{
	unsigned int policy;
	int err;

	err = exec_folio_parse(buf, PAGE_SHIFT, exec_folio_max_order(), &policy);
	if (err)
		return err;
	exec_folio_set_global(policy);
	return count;
}

struct kobj_attribute exec_folio_size_attr =
	__ATTR(exec_folio_size, 0644, exec_folio_size_show,
	       exec_folio_size_store);

/*
 * exec_folio_stats/: how often large text folios were allocated, and how
 * often an allocation or a memory cgroup charge failed and the read
 * stepped down an order.  Summed over CPUs, in the style of the mTHP
 * counters in hugepages-<size>/stats/.
 */
static unsigned long exec_folio_stat_sum(enum exec_folio_stat item)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(exec_folio_stats[item], cpu);
	return sum;
}

#define EXEC_FOLIO_STAT_ATTR(_name, _item)				\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%lu\n", exec_folio_stat_sum(_item));	\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

EXEC_FOLIO_STAT_ATTR(alloc, EXEC_FOLIO_STAT_ALLOC);
EXEC_FOLIO_STAT_ATTR(fallback, EXEC_FOLIO_STAT_FALLBACK);

static struct attribute *exec_folio_stats_attrs[] = {
	&alloc_attr.attr,
	&fallback_attr.attr,
	NULL,
};

static const struct attribute_group exec_folio_stats_group = {
	.name = "exec_folio_stats",
	.attrs = exec_folio_stats_attrs,
};

/**
 * exec_folio_sysfs_init - Add exec_folio_stats/ to the THP sysfs directory.
 * @hugepage_kobj: /sys/kernel/mm/transparent_hugepage.
 *
 * The counters are informational: failing to add them is reported and
 * does not fail THP's sysfs setup.
 */
void __init exec_folio_sysfs_init(struct kobject *hugepage_kobj)
{
	if (sysfs_create_group(hugepage_kobj, &exec_folio_stats_group))
		pr_warn("failed to register exec_folio_stats\n");
}

static int __init setup_exec_folio_size(char *str)
{
	unsigned int policy;

	if (exec_folio_parse(str, PAGE_SHIFT, exec_folio_max_order(), &policy)) {
		pr_warn("ignoring invalid transparent_hugepage_exec_folio_size=%s\n",
			str);
		return 1;
	}
	/* The static key is set from this by an initcall. */
	exec_folio_global_policy = policy;
	return 1;
}
__setup("transparent_hugepage_exec_folio_size=", setup_exec_folio_size);

#ifdef CONFIG_EXEC_FOLIO_KUNIT_TEST
#include "exec_folio_sysfs_kunit.c"
#endif
