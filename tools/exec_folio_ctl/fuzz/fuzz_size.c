// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: parse_size() and format_size().
 *
 * - parse_size() accepts exactly what an independent reading of its
 *   grammar accepts (digits, then K, M or G in any case, alone or with
 *   iB or ib for powers of 1024, or with B or b for powers of 1000, as
 *   util-linux), with the same value; never zero, never an overflowed
 *   product.
 * - A rejected input leaves the output unchanged.
 * - A parsed size formats to a word that parses back to the same value
 *   and formats to the same word again; a power of two (what the knob
 *   and the prctl take) formats to a word that fits a knob word.
 * - normalize_word() of a size is format_size() of it.
 * - format_size() never writes past a short buffer and terminates it.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../policy.h"
#include "fuzz.h"

#define SENTINEL	0x5a5a5a5a5a5a5a5aULL

static int ref_parse_size(const char *s, unsigned long long *bytes)
{
	unsigned long long v = 0, mult = 1, unit = 1024;
	int overflow = 0, exp = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (__builtin_mul_overflow(v, 10ULL, &v) ||
		    __builtin_add_overflow(v, (unsigned long long)(*p - '0'), &v))
			overflow = 1;
	}
	if (*p) {
		static const char suffixes[] = "kKmMgG";
		const char *suffix = strchr(suffixes, *p);

		if (!suffix)
			return -1;
		exp = 1 + (suffix - suffixes) / 2;
		p++;
		if (!strcmp(p, "B") || !strcmp(p, "b"))
			unit = 1000;
		else if (strcmp(p, "") && strcmp(p, "iB") && strcmp(p, "ib"))
			return -1;
	}
	while (exp--)
		mult *= unit;
	if (overflow || !v || __builtin_mul_overflow(v, mult, bytes))
		return -1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long long bytes = SENTINEL, ref = SENTINEL, again = SENTINEL;
	char *in = fuzz_strndup(data, size);
	char word[32], word2[32], norm[32];
	int ret, ref_ret;

	ret = parse_size(in, &bytes);
	ref_ret = ref_parse_size(in, &ref);
	FUZZ_CHECK(ret == 0 || ret == -1);
	FUZZ_CHECK(ret == ref_ret);
	if (ret) {
		FUZZ_CHECK(bytes == SENTINEL);
		goto out;
	}
	FUZZ_CHECK(bytes == ref);
	FUZZ_CHECK(bytes != 0);

	format_size(bytes, word, sizeof(word));
	FUZZ_CHECK(strlen(word) < 21);
	FUZZ_CHECK(parse_size(word, &again) == 0 && again == bytes);
	format_size(again, word2, sizeof(word2));
	FUZZ_CHECK(strcmp(word, word2) == 0);
	if (!(bytes & (bytes - 1)))
		FUZZ_CHECK(strlen(word) < KNOB_WORD_LEN);

	/* What the knob and the config file are given. */
	FUZZ_CHECK(normalize_word(in, norm, sizeof(norm)) == 0);
	FUZZ_CHECK(strcmp(norm, word) == 0);

	/* A short buffer: truncated and terminated, nothing written past it. */
	{
		size_t len = 1 + (size ? data[size - 1] % 24 : 0);
		char *small = fuzz_buf(len, 'x');

		format_size(bytes, small, len);
		FUZZ_CHECK(fuzz_terminated(small, len));
		FUZZ_CHECK(strncmp(small, word, strlen(small)) == 0);
		free(small);
	}
out:
	free(in);
	return 0;
}
