// SPDX-License-Identifier: GPL-2.0
/* "enable-unit": the systemd drop-in that wraps a service's commands. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static void free_cmds(char **cmds, int nr)
{
	while (nr > 0)
		free(cmds[--nr]);
}

int unit_exec_starts(const char *text, char *cmds[UNIT_MAX_EXEC], char *err, size_t errlen)
{
	char *copy = strdup(text), *line, *save = NULL, *pending = NULL;
	int nr = 0, service = 0, ours = 0;

	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *l = trim(line), *eq, *val;
		size_t len;

		/* "systemctl cat" starts each file with "# /path/to/file". */
		if (l[0] == '#' && l[1] == ' ' && l[2] == '/') {
			const char *base = strrchr(l, '/') + 1;

			ours = !strcmp(base, UNIT_DROP_IN_NAME);
			service = 0;
			continue;
		}
		if (!l[0] || l[0] == '#' || l[0] == ';')
			continue;
		if (l[0] == '[') {
			service = !strcmp(l, "[Service]");
			continue;
		}
		eq = strchr(l, '=');
		if (!service || ours || !eq)
			continue;
		*eq = '\0';
		if (strcmp(trim(l), "ExecStart"))
			continue;
		val = trim(eq + 1);
		len = strlen(val);
		if (len && val[len - 1] == '\\') {
			snprintf(err, errlen,
				 "ExecStart= continued on the next line: write the drop-in by hand");
			goto fail;
		}
		if (!len) {
			free_cmds(cmds, nr);
			nr = 0;
			continue;
		}
		if (nr == UNIT_MAX_EXEC) {
			snprintf(err, errlen, "more than %d ExecStart= lines", UNIT_MAX_EXEC);
			goto fail;
		}
		pending = strdup(val);
		if (!pending) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		cmds[nr++] = pending;
	}
	free(copy);
	if (!nr)
		snprintf(err, errlen, "the unit has no ExecStart=");
	return nr ? nr : -1;
fail:
	free_cmds(cmds, nr);
	free(copy);
	return -1;
}

/*
 * @path as the first word of a systemd command line: '%' is a specifier
 * there, so it is doubled ('$' is expanded in arguments only); a path with a space, a
 * quote, a backslash or a control byte is put in double quotes, with '"'
 * and '\' escaped.  A plain path is written as it is.
 */
static void write_exe(FILE *out, const char *path)
{
	bool quote = false;
	const char *p;

	for (p = path; *p; p++)
		if ((unsigned char)*p <= ' ' || strchr("\"'\\;", *p) || *p == 0x7f)
			quote = true;
	if (quote)
		fputc('"', out);
	for (p = path; *p; p++) {
		if (*p == '%') {
			fputc(*p, out);
		} else if (quote && (*p == '"' || *p == '\\')) {
			fputc('\\', out);
		} else if (quote && ((unsigned char)*p < ' ' || *p == 0x7f)) {
			fprintf(out, "\\x%02x", (unsigned char)*p);
			continue;
		}
		fputc(*p, out);
	}
	if (quote)
		fputc('"', out);
}

int unit_write_drop_in(FILE *out, const char *ctl, const char *policy, char **cmds, int nr,
		       char *err, size_t errlen)
{
	int i;

	for (i = 0; i < nr; i++) {
		size_t prefix = strspn(cmds[i], "-@:+!");

		if (memchr(cmds[i], '@', prefix)) {
			snprintf(err, errlen,
				 "ExecStart=%s sets argv[0] apart ('@'): write the drop-in by hand",
				 cmds[i]);
			return -1;
		}
		if (strstr(cmds[i], "exec_folio_ctl exec") ||
		    strstr(cmds[i], "exec_folio_ctl\" exec")) {
			snprintf(err, errlen, "ExecStart=%s already runs exec_folio_ctl exec",
				 cmds[i]);
			return -1;
		}
	}
	fprintf(out,
		"# Written by \"exec_folio_ctl enable-unit\": the service's commands run with\n"
		"# their own exec folio policy (%s).  Remove with \"exec_folio_ctl disable-unit\".\n"
		"[Service]\nExecStart=\n", policy);
	for (i = 0; i < nr; i++) {
		size_t prefix = strspn(cmds[i], "-@:+!");

		fprintf(out, "ExecStart=%.*s", (int)prefix, cmds[i]);
		write_exe(out, ctl);
		fprintf(out, " exec %s -- %s\n", policy, cmds[i] + prefix);
	}
	return 0;
}

int unit_service_name(const char *name, char *unit, size_t len)
{
	const char *dot = strrchr(name, '.');
	size_t i;

	if (!name[0] || name[0] == '.' || name[0] == '-' || strlen(name) > 200)
		return -1;
	for (i = 0; name[i]; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr(":-_.@\\", name[i]))
			return -1;
	if (dot && strcmp(dot, ".service"))
		dot = NULL;
	snprintf(unit, len, "%s%s", name, dot ? "" : ".service");
	return 0;
}
