/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The boot-time configuration, /etc/exec-folio.conf:
 *
 *   # comment
 *   exec_folio_size = auto
 *
 * One "key = value" a line; blank lines and comments are ignored.
 */
#ifndef EXEC_FOLIO_CONF_H
#define EXEC_FOLIO_CONF_H

#include <stdio.h>

#include "policy.h"

#define CONF_DEFAULT_PATH	"/etc/exec-folio.conf"
#define CONF_MAX_LINE		1024
#define CONF_MAX_SIZE		(64 * 1024)	/* a configuration is small */
#define CONF_MAX_MESSAGES	10		/* bad lines reported one by one */

/* What conf_load() returns besides a count of bad lines. */
#define CONF_ERR_ERRNO		(-1)	/* cannot be read: errno */
#define CONF_ERR_NOT_REGULAR	(-2)	/* a device, directory, FIFO... */
#define CONF_ERR_TOO_LARGE	(-3)	/* over CONF_MAX_SIZE */

struct conf {
	char exec_folio_size[KNOB_WORD_LEN];	/* the knob's word; "" if not set */
	int exec_folio_size_line;
};

/*
 * Parse one line into @c.  Returns 0, or -1 with a message naming the
 * problem in @err.
 */
int conf_parse_line(const char *line, size_t len, struct conf *c, int lineno,
		    char *err, size_t errlen);

/*
 * Parse a whole file, a regular file of at most CONF_MAX_SIZE bytes; the
 * first CONF_MAX_MESSAGES bad lines are reported on @errs as
 * "path:line: message", with bytes that are not printable ASCII escaped.
 * Returns the number of bad lines, or one of CONF_ERR_*.
 */
int conf_load(const char *path, struct conf *c, FILE *errs);

/*
 * Copy @len bytes of @s to @out as printable ASCII: other bytes as \xNN,
 * at most @max input bytes, then "...".
 */
void conf_escape(const char *s, size_t len, size_t max, char *out, size_t outlen);

#endif
