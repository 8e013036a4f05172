/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "enable-unit": the systemd drop-in that runs a service's commands under
 * "exec_folio_ctl exec", so that a service gets its own folio size
 * without editing its unit.
 */
#ifndef EXEC_FOLIO_UNIT_H
#define EXEC_FOLIO_UNIT_H

#include <stddef.h>
#include <stdio.h>

#define UNIT_DROP_IN_NAME	"exec-folio.conf"
#define UNIT_MAX_TEXT_KIB	1024
#define UNIT_MAX_TEXT		(UNIT_MAX_TEXT_KIB * 1024)
#define UNIT_MAX_EXEC		16

/*
 * The ExecStart= commands of a unit, from the text "systemctl cat" prints
 * (the unit file and its drop-ins, each after a "# /path" line), leaving
 * out our own drop-in.  An empty ExecStart= clears the list, as systemd
 * does.  Returns the number found, or -1 with a message in @err.
 */
int unit_exec_starts(const char *text, char *cmds[UNIT_MAX_EXEC], char *err, size_t errlen);

/*
 * Write the drop-in that wraps @cmds in "@ctl exec @policy --" to @out;
 * @ctl is quoted and escaped for systemd ('%' doubled, quotes where it
 * has a space or a quote).
 * Returns 0, or -1 with a message in @err (a command whose argv[0] is
 * set apart with '@' cannot be wrapped).
 */
int unit_write_drop_in(FILE *out, const char *ctl, const char *policy, char **cmds, int nr,
		       char *err, size_t errlen);

/* A valid service name: "foo" or "foo.service", no path. */
int unit_service_name(const char *name, char *unit, size_t len);

#endif
