/* SPDX-License-Identifier: GPL-2.0 */
/* "exec_folio_ctl report": how the text of processes is backed. */
#ifndef EXEC_FOLIO_REPORT_H
#define EXEC_FOLIO_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "folio_walk.h"

struct report_opts {
	bool json;
	unsigned int page_shift;
	unsigned int pmd_order;
	unsigned int cont_order;	/* contpte block to count, 64K by default */
};

/*
 * Report the executable file mappings of each of the @nr processes in
 * @pids (all processes if @pids is NULL) to @out, then their sum.
 * Returns 0, or 1 if a named process could not be read (reported on
 * stderr); processes that exit meanwhile are skipped under --all.
 */
int report_run(const struct report_opts *o, const pid_t *pids, int nr, FILE *out);

#endif
