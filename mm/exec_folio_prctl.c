// SPDX-License-Identifier: GPL-2.0
/*
 * PR_SET_EXEC_FOLIO_SIZE and PR_GET_EXEC_FOLIO_SIZE: a process's own
 * exec folio policy.  Like PR_SET_THP_DISABLE it is inherited on fork
 * and kept across execve, so a wrapper can set it and exec a service.
 *
 * It needs no privilege, like MADV_HUGEPAGE, which also lets any process
 * choose how page-cache folios it faults are sized.  The page cache is
 * shared, so the folio size a process reads a file in stays for every
 * process that maps it; but any process that can map a file can already
 * decide how it is read (MADV_HUGEPAGE reads PMD-size folios, read()s
 * ramp readahead up to them), folios are reclaimed as usual, and the
 * global "never" still turns the policy off for everyone.
 *
 * The size is given in bytes, as the exec_folio_size knob and the
 * hugepages-<size>kB directories of anonymous mTHP name sizes, so that
 * one value means the same folio on every base page size.
 */

#include <linux/build_bug.h>
#include <linux/exec_folio.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/prctl.h>

static_assert(PR_EXEC_FOLIO_INHERIT == EXEC_FOLIO_INHERIT);
static_assert(PR_EXEC_FOLIO_NEVER == EXEC_FOLIO_NEVER);
static_assert(PR_EXEC_FOLIO_ARCH == EXEC_FOLIO_ARCH);
static_assert(PR_EXEC_FOLIO_AUTO == EXEC_FOLIO_AUTO);
/* A size is never mistaken for a mode. */
static_assert((PAGE_SIZE << EXEC_FOLIO_MIN_ORDER) > PR_EXEC_FOLIO_AUTO);

/**
 * exec_folio_prctl_set - Set a process's exec folio policy.
 * @mm: The caller's mm.
 * @value: PR_EXEC_FOLIO_INHERIT, _NEVER, _ARCH or _AUTO; or a folio size
 *	in bytes: a power of two, at least four base pages and at most the
 *	largest size the exec_folio_size knob lists.
 * @arg3: Must be 0.
 * @arg4: Must be 0.
 * @arg5: Must be 0.
 *
 * A THP opt-out (PR_SET_THP_DISABLE) makes a process read text as under
 * "never"; a policy set while the process has opted out wins over it.
 *
 * Return: 0; -EINVAL for any other @value or a non-zero unused argument.
 * Nothing changes on error.
 */
int exec_folio_prctl_set(struct mm_struct *mm, unsigned long value,
			 unsigned long arg3, unsigned long arg4,
			 unsigned long arg5)
{
	unsigned int policy;

	if (arg3 || arg4 || arg5)
		return -EINVAL;
	switch (value) {
	case PR_EXEC_FOLIO_INHERIT:
	case PR_EXEC_FOLIO_NEVER:
	case PR_EXEC_FOLIO_ARCH:
	case PR_EXEC_FOLIO_AUTO:
		policy = EXEC_FOLIO_POLICY(value, 0);
		break;
	default:
		if (!is_power_of_2(value) ||
		    value < PAGE_SIZE << EXEC_FOLIO_MIN_ORDER ||
		    value > PAGE_SIZE << exec_folio_max_order())
			return -EINVAL;
		policy = EXEC_FOLIO_POLICY(EXEC_FOLIO_ORDER,
					   ilog2(value) - PAGE_SHIFT);
		break;
	}
	/*
	 * A choice made while the process has opted out of THP is meant for
	 * its text: it wins over the opt-out.  An opt-out made after it (by
	 * a wrapper or a runtime, say) wins over it.
	 */
	if (value != PR_EXEC_FOLIO_INHERIT &&
	    test_bit(MMF_DISABLE_THP, &mm->flags))
		policy |= EXEC_FOLIO_AFTER_THP_DISABLE;

	exec_folio_mm_set(mm, policy);
	return 0;
}

/**
 * exec_folio_prctl_get - Read a process's exec folio policy.
 * @mm: The caller's mm.
 * @arg2: Must be 0.
 * @arg3: Must be 0.
 * @arg4: Must be 0.
 * @arg5: Must be 0.
 *
 * Return: the value PR_SET_EXEC_FOLIO_SIZE was given (or that a fork or
 * an execve kept): a PR_EXEC_FOLIO_* mode or a folio size in bytes;
 * -EINVAL if an argument is not 0.
 */
int exec_folio_prctl_get(struct mm_struct *mm, unsigned long arg2,
			 unsigned long arg3, unsigned long arg4,
			 unsigned long arg5)
{
	unsigned int policy = READ_ONCE(mm->exec_folio_policy);

	if (arg2 || arg3 || arg4 || arg5)
		return -EINVAL;
	if (EXEC_FOLIO_POLICY_MODE(policy) != EXEC_FOLIO_ORDER)
		return EXEC_FOLIO_POLICY_MODE(policy);
	return PAGE_SIZE << EXEC_FOLIO_POLICY_ORDER(policy);
}
