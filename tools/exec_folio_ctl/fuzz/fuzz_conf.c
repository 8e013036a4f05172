// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the configuration file.  The input is a file: each
 * line goes to conf_parse_line() (from a buffer of exactly its length,
 * not NUL-terminated, as conf_load() passes it), then the whole input to
 * conf_load() from a memfd.
 *
 * - conf_parse_line() accepts exactly what an independent reading of the
 *   format accepts: blank and comment lines, and one "exec_folio_size = VALUE"
 *   with VALUE a mode other than inherit or a size that fits a knob word;
 *   with the same word.  A line with a NUL byte is refused.
 * - A refused line leaves the configuration unchanged and gives a
 *   terminated, non-empty message within the room given (also a tiny
 *   room); an accepted one changes only what it set.
 * - conf_load() counts the same bad lines, writes one message line of
 *   printable ASCII for each (for the first CONF_MAX_MESSAGES of them,
 *   then one line for the rest), and ends with the same configuration.
 * - Parsing writes nothing anywhere: no file is opened for writing, no
 *   write(), no prctl() while the parser runs.  tests/host/fuzz.sh links
 *   this target with -Wl,--wrap for each of those calls (FUZZ_WRAPS).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../conf.h"
#include "../policy.h"
#include "fuzz.h"

static int in_parser;

static void forbidden(const char *what)
{
	if (in_parser) {
		fprintf(stderr, "config parsing called %s\n", what);
		abort();
	}
}

static int opens_for_write(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY ||
	       (flags & (O_CREAT | O_TRUNC | O_APPEND));
}

/* The mode argument of open() and openat(), if the flags say there is one. */
static mode_t open_mode(int flags, va_list ap)
{
	return flags & (O_CREAT | __O_TMPFILE) ? va_arg(ap, mode_t) : 0;
}

int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (opens_for_write(flags))
		forbidden("open for writing");
	return __real_open(path, flags, mode);
}

int __real_openat(int dirfd, const char *path, int flags, ...);
int __wrap_openat(int dirfd, const char *path, int flags, ...);
int __wrap_openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (opens_for_write(flags))
		forbidden("openat for writing");
	return __real_openat(dirfd, path, flags, mode);
}

FILE *__real_fopen(const char *path, const char *mode);
FILE *__wrap_fopen(const char *path, const char *mode);
FILE *__wrap_fopen(const char *path, const char *mode)
{
	if (strpbrk(mode, "wa+"))
		forbidden("fopen for writing");
	return __real_fopen(path, mode);
}

ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	forbidden("write");
	return __real_write(fd, buf, n);
}

int __real_prctl(int option, unsigned long a2, unsigned long a3,
		 unsigned long a4, unsigned long a5);
int __wrap_prctl(int option, unsigned long a2, unsigned long a3,
		 unsigned long a4, unsigned long a5);
int __wrap_prctl(int option, unsigned long a2, unsigned long a3,
		 unsigned long a4, unsigned long a5)
{
	forbidden("prctl");
	return __real_prctl(option, a2, a3, a4, a5);
}

/* The format, read independently: the expected result and word. */
static int ref_parse_line(const char *line, size_t len, char *word)
{
	const char *key, *val, *eq, *end;
	size_t klen, vlen;
	char value[64];
	int mode;

	if (memchr(line, '\0', len))
		return -1;
	end = memchr(line, '#', len);
	if (!end)
		end = line + len;
	key = line;
	while (key < end && isspace((unsigned char)*key))
		key++;
	while (end > key && isspace((unsigned char)end[-1]))
		end--;
	if (key == end)
		return 0;
	eq = memchr(key, '=', end - key);
	if (!eq)
		return -1;
	for (klen = eq - key; klen && isspace((unsigned char)key[klen - 1]); klen--)
		;
	if (klen != 15 || memcmp(key, "exec_folio_size", 15))
		return -1;
	for (val = eq + 1; val < end && isspace((unsigned char)*val); val++)
		;
	vlen = end - val;
	if (!vlen || vlen >= sizeof(value))
		return -1;
	memcpy(value, val, vlen);
	value[vlen] = '\0';
	mode = mode_from_word(value);
	if (mode == PR_EXEC_FOLIO_INHERIT)
		return -1;
	if (mode > 0) {
		snprintf(word, KNOB_WORD_LEN, "%s", value);
		for (; *word; word++)
			*word = tolower((unsigned char)*word);
		return 0;
	}
	{
		unsigned long long bytes;
		char buf[32];

		if (parse_size(value, &bytes))
			return -1;
		format_size(bytes, buf, sizeof(buf));
		if (strlen(buf) >= KNOB_WORD_LEN)
			return -1;
		snprintf(word, KNOB_WORD_LEN, "%s", buf);
	}
	return 0;
}

/* One line, as conf_load() would pass it; returns what the parser did. */
static int check_line(const uint8_t *data, size_t len, struct conf *c, int lineno)
{
	char *line = fuzz_buf(len, 0), *err, *tiny;
	char word[KNOB_WORD_LEN] = "";
	struct conf before = *c, tc;
	size_t errlen = 160, tinylen = 1 + len % 8;
	int ret, expect;

	memcpy(line, data, len);
	expect = ref_parse_line(line, len, word);
	err = fuzz_buf(errlen, 'x');
	in_parser = 1;
	ret = conf_parse_line(line, len, c, lineno, err, errlen);
	in_parser = 0;
	FUZZ_CHECK(ret == 0 || ret == -1);
	if (expect == 0 && word[0] && before.exec_folio_size_line)
		expect = -1;	/* set twice */
	FUZZ_CHECK(ret == expect);
	if (ret) {
		FUZZ_CHECK(memcmp(c, &before, sizeof(before)) == 0);
		FUZZ_CHECK(fuzz_terminated(err, errlen) && err[0]);
	} else if (word[0]) {
		FUZZ_CHECK(c->exec_folio_size_line == lineno);
		FUZZ_CHECK(strcmp(c->exec_folio_size, word) == 0);
	} else {
		FUZZ_CHECK(memcmp(c, &before, sizeof(before)) == 0);
	}

	/* Again with a tiny message buffer, from the same state. */
	tc = before;
	tiny = fuzz_buf(tinylen, 'x');
	in_parser = 1;
	FUZZ_CHECK(conf_parse_line(line, len, &tc, lineno, tiny, tinylen) == ret);
	in_parser = 0;
	if (ret)
		FUZZ_CHECK(fuzz_terminated(tiny, tinylen));
	free(tiny);
	free(err);
	free(line);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct conf c, loaded;
	const uint8_t *p = data, *end = data + size;
	int lineno = 0, bad = 0, ret, nl = 0;
	char *msgs = NULL;
	size_t msglen = 0, i;
	FILE *errs;

	memset(&c, 0, sizeof(c));
	while (p < end) {
		const uint8_t *eol = memchr(p, '\n', end - p);
		size_t len = eol ? (size_t)(eol - p) + 1 : (size_t)(end - p);

		lineno++;
		if (len > CONF_MAX_LINE)
			bad++;
		else if (check_line(p, len, &c, lineno))
			bad++;
		p += len;
	}

	if (fd < 0) {
		fd = memfd_create("fuzz-conf", MFD_CLOEXEC);
		FUZZ_CHECK(fd >= 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	FUZZ_CHECK(ftruncate(fd, 0) == 0);
	FUZZ_CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);
	errs = open_memstream(&msgs, &msglen);
	FUZZ_CHECK(errs);
	memset(&loaded, 0x5a, sizeof(loaded));
	in_parser = 1;
	ret = conf_load(path, &loaded, errs);
	in_parser = 0;
	fclose(errs);
#ifdef CONF_MAX_SIZE
	if (size > CONF_MAX_SIZE) {
		FUZZ_CHECK(ret == CONF_ERR_TOO_LARGE && !msglen);
		goto out;
	}
#endif
	FUZZ_CHECK(ret == bad);
	FUZZ_CHECK(loaded.exec_folio_size_line == c.exec_folio_size_line);
	FUZZ_CHECK(strcmp(loaded.exec_folio_size, c.exec_folio_size) == 0);
	for (i = 0; i < msglen; i++)
		nl += msgs[i] == '\n';
#ifdef CONF_MAX_MESSAGES
	for (i = 0; i < msglen; i++)
		FUZZ_CHECK(msgs[i] == '\n' || (msgs[i] >= 0x20 && msgs[i] < 0x7f));
	/* The first CONF_MAX_MESSAGES bad lines, then how many more. */
	if (bad > CONF_MAX_MESSAGES)
		bad = CONF_MAX_MESSAGES + 1;
#endif
	FUZZ_CHECK(nl == bad && (!msglen || msgs[msglen - 1] == '\n'));
	FUZZ_CHECK(!bad || strncmp(msgs, path, strlen(path)) == 0);
#ifdef CONF_MAX_SIZE
out:
#endif
	free(msgs);
	return 0;
}
