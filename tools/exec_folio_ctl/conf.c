// SPDX-License-Identifier: GPL-2.0
/* The boot-time configuration, /etc/exec-folio.conf. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

void conf_escape(const char *s, size_t len, size_t max, char *out, size_t outlen)
{
	size_t i, n = 0;

	if (!outlen)
		return;
	for (i = 0; i < len && i < max && n + 8 < outlen; i++) {
		unsigned char ch = s[i];

		if (ch >= 0x20 && ch < 0x7f && ch != '\\')
			out[n++] = ch;
		else
			n += snprintf(out + n, outlen - n, "\\x%02x", ch);
	}
	if (i < len && n + 4 < outlen)
		n += snprintf(out + n, outlen - n, "...");
	out[n] = '\0';
}

int conf_parse_line(const char *line, size_t len, struct conf *c, int lineno,
		    char *err, size_t errlen)
{
	const char *key = line, *val, *eq, *hash;
	size_t klen, vlen;
	char value[64], word[KNOB_WORD_LEN], shown[200];

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
		conf_escape(key, len, 40, shown, sizeof(shown));
		snprintf(err, errlen, "expected \"key = value\", got \"%s\"", shown);
		return -1;
	}
	klen = eq - key;
	val = eq + 1;
	vlen = len - klen - 1;
	trim(&key, &klen);
	trim(&val, &vlen);
	if (klen != strlen("exec_folio_size") || strncmp(key, "exec_folio_size", klen)) {
		conf_escape(key, klen, 40, shown, sizeof(shown));
		snprintf(err, errlen, "unknown setting \"%s\" (known: exec_folio_size)", shown);
		return -1;
	}
	if (!vlen || vlen >= sizeof(value)) {
		snprintf(err, errlen, "exec_folio_size needs a mode or a size");
		return -1;
	}
	memcpy(value, val, vlen);
	value[vlen] = '\0';
	if (mode_from_word(value) == PR_EXEC_FOLIO_INHERIT ||
	    normalize_word(value, word, sizeof(word))) {
		conf_escape(value, vlen, 40, shown, sizeof(shown));
		snprintf(err, errlen, "\"%s\" is not a mode (never, arch, auto) or a size",
			 shown);
		return -1;
	}
	if (c->exec_folio_size_line) {
		snprintf(err, errlen, "exec_folio_size already set on line %d",
			 c->exec_folio_size_line);
		return -1;
	}
	memcpy(c->exec_folio_size, word, sizeof(word));
	c->exec_folio_size_line = lineno;
	return 0;
}

/* The whole file, NUL-terminated; a CONF_ERR_* on failure. */
static int read_small_file(const char *path, char **text, size_t *len)
{
	struct stat st;
	ssize_t n = 0;
	size_t got = 0;
	char *buf;
	int fd, err;

	/* O_NONBLOCK: a FIFO must not hang us before fstat() refuses it. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return CONF_ERR_ERRNO;
	if (fstat(fd, &st)) {
		err = errno;
		close(fd);
		errno = err;
		return CONF_ERR_ERRNO;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return CONF_ERR_NOT_REGULAR;
	}
	if (st.st_size > CONF_MAX_SIZE) {
		close(fd);
		return CONF_ERR_TOO_LARGE;
	}
	buf = malloc(CONF_MAX_SIZE + 2);
	if (!buf) {
		close(fd);
		errno = ENOMEM;
		return CONF_ERR_ERRNO;
	}
	/* The file may grow after fstat(): read one byte more than allowed. */
	while (got <= CONF_MAX_SIZE) {
		n = read(fd, buf + got, CONF_MAX_SIZE + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	err = errno;
	close(fd);
	if (n < 0) {
		free(buf);
		errno = err;
		return CONF_ERR_ERRNO;
	}
	if (got > CONF_MAX_SIZE) {
		free(buf);
		return CONF_ERR_TOO_LARGE;
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return 0;
}

int conf_load(const char *path, struct conf *c, FILE *errs)
{
	char *text, err[240];
	size_t len, pos, n;
	int lineno = 0, bad = 0, ret;

	memset(c, 0, sizeof(*c));
	ret = read_small_file(path, &text, &len);
	if (ret)
		return ret;
	for (pos = 0; pos < len; pos += n) {
		const char *nl = memchr(text + pos, '\n', len - pos);

		n = nl ? (size_t)(nl - (text + pos)) + 1 : len - pos;
		lineno++;
		if (n > CONF_MAX_LINE)
			snprintf(err, sizeof(err), "line longer than %d bytes", CONF_MAX_LINE);
		else if (!conf_parse_line(text + pos, n, c, lineno, err, sizeof(err)))
			continue;
		if (bad++ < CONF_MAX_MESSAGES)
			fprintf(errs, "%s:%d: %s\n", path, lineno, err);
	}
	if (bad > CONF_MAX_MESSAGES)
		fprintf(errs, "%s: %d more bad lines not shown\n", path, bad - CONF_MAX_MESSAGES);
	free(text);
	return bad;
}
