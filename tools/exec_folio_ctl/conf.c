// SPDX-License-Identifier: GPL-2.0
/* The boot-time configuration, /etc/exec-folio.conf. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

static void trim(const char **s, size_t *len)
{
	while (*len && isspace((unsigned char)**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && isspace((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

int conf_parse_line(const char *line, size_t len, struct conf *c, int lineno,
		    char *err, size_t errlen)
{
	const char *key = line, *val, *eq, *hash;
	size_t klen, vlen;
	char value[64], word[KNOB_WORD_LEN];

	if (memchr(line, '\0', len)) {
		snprintf(err, errlen, "NUL byte in line");
		return -1;
	}
	hash = memchr(line, '#', len);
	if (hash)
		len = hash - line;
	trim(&key, &len);
	if (!len)
		return 0;
	eq = memchr(key, '=', len);
	if (!eq) {
		snprintf(err, errlen, "expected \"key = value\", got \"%.*s\"",
			 (int)(len > 40 ? 40 : len), key);
		return -1;
	}
	klen = eq - key;
	val = eq + 1;
	vlen = len - klen - 1;
	trim(&key, &klen);
	trim(&val, &vlen);
	if (klen != strlen("exec_order") || strncmp(key, "exec_order", klen)) {
		snprintf(err, errlen, "unknown setting \"%.*s\" (known: exec_order)",
			 (int)(klen > 40 ? 40 : klen), key);
		return -1;
	}
	if (!vlen || vlen >= sizeof(value)) {
		snprintf(err, errlen, "exec_order needs a mode or a size");
		return -1;
	}
	memcpy(value, val, vlen);
	value[vlen] = '\0';
	if (mode_from_word(value) == PR_EXEC_FOLIO_INHERIT ||
	    normalize_word(value, word, sizeof(word))) {
		snprintf(err, errlen, "\"%s\" is not a mode (never, arch, auto) or a size",
			 value);
		return -1;
	}
	if (c->exec_order_line) {
		snprintf(err, errlen, "exec_order already set on line %d",
			 c->exec_order_line);
		return -1;
	}
	memcpy(c->exec_order, word, sizeof(word));
	c->exec_order_line = lineno;
	return 0;
}

int conf_load(const char *path, struct conf *c, FILE *errs)
{
	char *line = NULL, err[160];
	size_t cap = 0;
	ssize_t n;
	int lineno = 0, bad = 0;
	FILE *f = fopen(path, "re");

	memset(c, 0, sizeof(*c));
	if (!f)
		return -1;
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (n > CONF_MAX_LINE) {
			fprintf(errs, "%s:%d: line longer than %d bytes\n", path,
				lineno, CONF_MAX_LINE);
			bad++;
			continue;
		}
		if (conf_parse_line(line, n, c, lineno, err, sizeof(err))) {
			fprintf(errs, "%s:%d: %s\n", path, lineno, err);
			bad++;
		}
	}
	free(line);
	if (ferror(f)) {
		fclose(f);
		errno = EIO;
		return -1;
	}
	fclose(f);
	return bad;
}
