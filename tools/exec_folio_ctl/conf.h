/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The boot-time configuration, /etc/exec-folio.conf:
 *
 *   # comment
 *   exec_order = auto
 *
 * One "key = value" a line; blank lines and comments are ignored.
 */
#ifndef EXEC_FOLIO_CONF_H
#define EXEC_FOLIO_CONF_H

#include <stdio.h>

#include "policy.h"

#define CONF_DEFAULT_PATH	"/etc/exec-folio.conf"
#define CONF_MAX_LINE		1024

struct conf {
	char exec_order[KNOB_WORD_LEN];	/* the knob's word; "" if not set */
	int exec_order_line;
};

/*
 * Parse one line into @c.  Returns 0, or -1 with a message naming the
 * problem in @err.
 */
int conf_parse_line(const char *line, size_t len, struct conf *c, int lineno,
		    char *err, size_t errlen);

/*
 * Parse a whole file; every bad line is reported on @errs as
 * "path:line: message".  Returns the number of bad lines, or -1 if the
 * file cannot be read (errno set).
 */
int conf_load(const char *path, struct conf *c, FILE *errs);

#endif
