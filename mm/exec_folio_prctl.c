// SPDX-License-Identifier: GPL-2.0
/*
 * PR_SET_EXEC_FOLIO_ORDER and PR_GET_EXEC_FOLIO_ORDER: a process's own
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
 */

#include <linux/build_bug.h>
#include <linux/exec_folio.h>
#include <linux/mm.h>
#include <linux/prctl.h>

static_assert(PR_EXEC_FOLIO_INHERIT == EXEC_FOLIO_INHERIT);
static_assert(PR_EXEC_FOLIO_NEVER == EXEC_FOLIO_NEVER);
static_assert(PR_EXEC_FOLIO_ARCH == EXEC_FOLIO_ARCH);
static_assert(PR_EXEC_FOLIO_AUTO == EXEC_FOLIO_AUTO);
static_assert(PR_EXEC_FOLIO_ORDER == EXEC_FOLIO_ORDER);
static_assert(EXEC_FOLIO_POLICY(0, 1) == 1 << PR_EXEC_FOLIO_ORDER_SHIFT);

/**
 * exec_folio_prctl_set - Set a process's exec folio policy.
 * @mm: The caller's mm.
 * @mode: A PR_EXEC_FOLIO_* mode.
 * @order: The order for PR_EXEC_FOLIO_ORDER, else 0.
 * @arg4: Must be 0.
 * @arg5: Must be 0.
 *
 * Return: 0; -EINVAL for an unknown mode, an order this kernel cannot
 * use for text, or a non-zero unused argument.  Nothing changes on
 * error.
 */
int exec_folio_prctl_set(struct mm_struct *mm, unsigned long mode,
			 unsigned long order, unsigned long arg4,
			 unsigned long arg5)
{
	if (arg4 || arg5)
		return -EINVAL;
	switch (mode) {
	case PR_EXEC_FOLIO_INHERIT:
	case PR_EXEC_FOLIO_NEVER:
	case PR_EXEC_FOLIO_ARCH:
	case PR_EXEC_FOLIO_AUTO:
		if (order)
			return -EINVAL;
		break;
	case PR_EXEC_FOLIO_ORDER:
		if (order < EXEC_FOLIO_MIN_ORDER || order > exec_folio_max_order())
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}

	/*
	 * One word, read locklessly by page faults with READ_ONCE(): as for
	 * the other per-mm state the fault path reads without the mmap lock,
	 * a fault racing with the change may use the old policy.
	 */
	WRITE_ONCE(mm->exec_folio_policy, EXEC_FOLIO_POLICY(mode, order));
	exec_folio_process_wants(EXEC_FOLIO_POLICY(mode, order));
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
 * Return: the mode, ORed with the order shifted left by
 * PR_EXEC_FOLIO_ORDER_SHIFT for PR_EXEC_FOLIO_ORDER; -EINVAL if an
 * argument is not 0.
 */
int exec_folio_prctl_get(struct mm_struct *mm, unsigned long arg2,
			 unsigned long arg3, unsigned long arg4,
			 unsigned long arg5)
{
	if (arg2 || arg3 || arg4 || arg5)
		return -EINVAL;
	return READ_ONCE(mm->exec_folio_policy);
}
