// SPDX-License-Identifier: GPL-2.0
/* The exec folio policy as the utility sees it: words, sizes, knob, prctl. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "policy.h"
#include "util.h"

static const char * const mode_words[] = {
	[PR_EXEC_FOLIO_INHERIT] = "inherit",
	[PR_EXEC_FOLIO_NEVER] = "never",
	[PR_EXEC_FOLIO_ARCH] = "arch",
	[PR_EXEC_FOLIO_AUTO] = "auto",
};

int parse_size(const char *s, unsigned long long *bytes)
{
	unsigned long long v = 0, base = 1024, mult = 1;
	const char *p = s;
	int exp = 0;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int d = *p - '0';

		if (v > (~0ULL - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	switch (*p) {
	case 'k': case 'K':
		exp = 1;
		break;
	case 'm': case 'M':
		exp = 2;
		break;
	case 'g': case 'G':
		exp = 3;
		break;
	case '\0':
		break;
	default:
		return -1;
	}
	if (*p) {
		p++;
		/* As util-linux: 64K and 64KiB are 65536 bytes, 64KB is 64000. */
		if (strcmp(p, "iB") == 0 || strcmp(p, "ib") == 0) {
			p += 2;
		} else if (strcmp(p, "B") == 0 || strcmp(p, "b") == 0) {
			p++;
			base = 1000;
		}
		if (*p)
			return -1;
	}
	while (exp--)
		mult *= base;
	if (!v || v > ~0ULL / mult)
		return -1;
	*bytes = v * mult;
	return 0;
}

void format_size(unsigned long long bytes, char *buf, size_t len)
{
	if (bytes >= 1ULL << 20 && !(bytes & ((1ULL << 20) - 1)))
		snprintf(buf, len, "%lluM", bytes >> 20);
	else if (!(bytes & 1023))
		snprintf(buf, len, "%lluK", bytes >> 10);
	else
		snprintf(buf, len, "%llu", bytes);
}

int mode_from_word(const char *word)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mode_words); i++)
		if (strcasecmp(word, mode_words[i]) == 0)
			return (int)i;
	return -1;
}

int normalize_word(const char *in, char *out, size_t len)
{
	unsigned long long bytes;
	int mode = mode_from_word(in);
	char word[32];

	if (mode < 0 && parse_size(in, &bytes))
		return -1;
	if (mode >= 0)
		snprintf(word, sizeof(word), "%s", mode_words[mode]);
	else
		format_size(bytes, word, sizeof(word));
	/* Cut short, a size would name another size: refuse it instead. */
	if (strlen(word) >= len)
		return -1;
	memcpy(out, word, strlen(word) + 1);
	return 0;
}

int knob_parse(const char *text, struct knob_state *st)
{
	const char *p = text;

	memset(st, 0, sizeof(*st));
	st->active = -1;
	for (;;) {
		size_t n;
		int bracket;

		p += strspn(p, " \t\n");
		if (!*p)
			break;
		n = strcspn(p, " \t\n");
		bracket = p[0] == '[';
		if (bracket && (n < 3 || p[n - 1] != ']'))
			return -1;
		if (n - 2 * bracket >= KNOB_WORD_LEN || st->nr_words == KNOB_MAX_WORDS)
			return -1;
		if (bracket) {
			if (st->active >= 0)
				return -1;
			st->active = st->nr_words;
		}
		memcpy(st->words[st->nr_words], p + bracket, n - 2 * bracket);
		st->words[st->nr_words][n - 2 * bracket] = '\0';
		st->nr_words++;
		p += n;
	}
	return st->nr_words && st->active >= 0 ? 0 : -1;
}

int knob_read(struct knob_state *st)
{
	char buf[512];
	ssize_t n;
	int fd = open(EXEC_FOLIO_SIZE_KNOB, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	if (knob_parse(buf, st)) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int knob_write(const char *word)
{
	int fd = open(EXEC_FOLIO_SIZE_KNOB, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -1;
	n = write(fd, word, strlen(word));
	err = errno;
	close(fd);
	if (n != (ssize_t)strlen(word)) {
		errno = n < 0 ? err : EIO;
		return -1;
	}
	return 0;
}

int knob_find(const struct knob_state *st, const char *word)
{
	int i;

	for (i = 0; i < st->nr_words; i++)
		if (strcmp(st->words[i], word) == 0)
			return i;
	return -1;
}

void knob_list(const struct knob_state *st, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < st->nr_words && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? " " : "",
				 st->words[i]);
}

int proc_policy_word(pid_t pid, char *word, size_t len)
{
	char path[64], line[256], found[KNOB_WORD_LEN];
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	errno = ENODATA;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "ExecFolioSize: %15s", found) == 1) {
			snprintf(word, len, "%s", found);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

void policy_word(long value, char *buf, size_t len)
{
	if (value >= PR_EXEC_FOLIO_INHERIT && value <= PR_EXEC_FOLIO_AUTO)
		snprintf(buf, len, "%s", mode_words[value]);
	else if (value >= 4096 && value <= 1L << 40 && !(value & (value - 1)))
		format_size((unsigned long long)value, buf, len);
	else
		snprintf(buf, len, "unknown");
}
