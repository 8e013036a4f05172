/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The values the subcommands' options take, parsed alike by every
 * subcommand that takes them (and by the fuzzer).  Each parser is pure:
 * 0 and the value in *out, or -1 and *out untouched.
 */
#ifndef EXEC_FOLIO_ARGS_H
#define EXEC_FOLIO_ARGS_H

#include <sys/types.h>

/* The smallest folio size of any Linux: its smallest page. */
#define ARG_MIN_FOLIO_SIZE	4096ULL
/* The largest --order: exec's prctl value is the page size shifted by it. */
#define ARG_MAX_ORDER		40
/* The largest PID a kernel gives (PID_MAX_LIMIT). */
#define ARG_MAX_PID		0x3fffffff

/* --pid (status, report): a decimal from 1 to ARG_MAX_PID. */
int arg_pid(const char *s, pid_t *pid);

/*
 * --size (exec, enable-unit): a size as parse_size() reads it that is a
 * folio size on some Linux, a power of two from ARG_MIN_FOLIO_SIZE.
 */
int arg_folio_size(const char *s, unsigned long long *bytes);

/*
 * --order (exec, enable-unit): digits only, 0 to ARG_MAX_ORDER, so that
 * what enable-unit writes into a drop-in exec takes when the unit starts.
 */
int arg_order(const char *s, unsigned int *order);

/*
 * --cont (report): a size as parse_size() reads it, or as report prints
 * it (NUMBER "kB" is NUMBER KiB), that is a power of two of at least two
 * pages of 1 << @page_shift bytes.
 */
int arg_cont_size(const char *s, unsigned int page_shift, unsigned long long *bytes);

/* A path (--cgroup, --from, --root, --exe, apply's FILE): not empty. */
int arg_path(const char *s);

#endif
