/* SPDX-License-Identifier: GPL-2.0 */
/* "exec_folio_ctl report": how the text of processes is backed. */
#ifndef EXEC_FOLIO_REPORT_H
#define EXEC_FOLIO_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "folio_walk.h"
#include "procs.h"

struct report_opts {
	bool json;
	bool rollup_only;		/* only the sum over all processes */
	bool contpte;			/* one TLB entry maps a cont block (arm64) */
	bool maps;			/* read maps, not smaps: PAGEMAP_SCAN works */
	bool no_scan;			/* walk without PAGEMAP_SCAN (a test of 5.x) */
	unsigned int page_shift;
	unsigned int pmd_order;
	unsigned int cont_order;	/* contpte block to count, 64K by default */
};

/*
 * Report the executable file mappings of the processes of @pl (all
 * processes if @pl is NULL) to @out, then their sum.  A process named
 * by its PID that cannot be read is an error.  One found by listing
 * (--all, a cgroup) that exits meanwhile is skipped and counted (on
 * stderr in text, in "skipped" in JSON); one that cannot be read for
 * another reason is skipped, counted and named on stderr, and makes the
 * result 1.  Returns 0 or 1, or -1 with errno set if writing @out failed:
 * the walk stops at the first write that fails, and errno is its own.
 */
int report_run(const struct report_opts *o, const struct pid_list *pl, FILE *out);

/*
 * The TLB entries the resident pages of @c need, as mapped: one per PMD
 * mapping, one per contpte block if @o->contpte, one per page otherwise.
 */
unsigned long long report_translations(const struct report_opts *o,
				       const struct folio_counts *c);

#endif
