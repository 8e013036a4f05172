// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the JSON strings of "status --json" and "report
 * --json" (paths and process names may hold any byte).
 *
 * - json_utf8_len() agrees with the well-formed sequences of Unicode's
 *   table 3-7 at every position of the input.
 * - json_string() writes one JSON string: quoted, valid UTF-8, no raw
 *   control character, quote or backslash inside, only valid escapes;
 *   decoded, it is the input with each byte that starts no well-formed
 *   sequence replaced by U+FFFD.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json.h"
#include "fuzz.h"

/* Length of the well-formed UTF-8 sequence at @s (table 3-7), 0 if none. */
static int ref_utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static int hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Append code point @cp to @out as UTF-8. */
static size_t put_utf8(unsigned char *out, unsigned int cp)
{
	if (cp < 0x80) {
		out[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = 0xc0 | cp >> 6;
		out[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	out[0] = 0xe0 | cp >> 12;
	out[1] = 0x80 | ((cp >> 6) & 0x3f);
	out[2] = 0x80 | (cp & 0x3f);
	return 3;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_strndup(data, size), *json = NULL;
	const unsigned char *s = (const unsigned char *)in, *p, *end;
	unsigned char *want, *got;
	size_t len, i, n = 0, m = 0, inlen = strlen(in);
	FILE *out;

	/* What the string should decode to. */
	want = malloc(3 * inlen + 1);
	FUZZ_CHECK(want);
	for (i = 0; i < inlen; ) {
		int l = ref_utf8_len(s + i);

		FUZZ_CHECK(json_utf8_len(s + i) == l);
		if (!l) {
			n += put_utf8(want + n, 0xfffd);
			i++;
		} else {
			memcpy(want + n, s + i, l);
			n += l;
			i += l;
		}
	}

	out = open_memstream(&json, &len);
	FUZZ_CHECK(out);
	json_string(out, in);
	FUZZ_CHECK(fclose(out) == 0);

	/* Parse it back as a JSON string, strictly. */
	p = (const unsigned char *)json;
	end = p + len;
	FUZZ_CHECK(len >= 2 && p[0] == '"' && end[-1] == '"');
	FUZZ_CHECK(!memchr(json, '\0', len));
	got = malloc(len + 1);
	FUZZ_CHECK(got);
	for (p++, end--; p < end; ) {
		int l = ref_utf8_len(p);

		FUZZ_CHECK(l > 0 && p + l <= end);
		FUZZ_CHECK(*p >= 0x20 && *p != '"');
		if (*p != '\\') {
			memcpy(got + m, p, l);
			m += l;
			p += l;
			continue;
		}
		FUZZ_CHECK(p + 1 < end);
		switch (p[1]) {
		case '"': case '\\': case '/':
			got[m++] = p[1];
			p += 2;
			break;
		case 'u': {
			unsigned int cp = 0;

			FUZZ_CHECK(p + 6 <= end);
			for (i = 2; i < 6; i++) {
				FUZZ_CHECK(hex(p[i]) >= 0);
				cp = cp << 4 | hex(p[i]);
			}
			/* Only controls and U+FFFD are escaped, no surrogates. */
			FUZZ_CHECK(cp < 0x20 || cp == 0x7f || cp == 0xfffd);
			m += put_utf8(got + m, cp);
			p += 6;
			break;
		}
		default:
			FUZZ_CHECK(p[1] == 'b' || p[1] == 'f' || p[1] == 'n' ||
				   p[1] == 'r' || p[1] == 't');
			got[m++] = p[1] == 'b' ? '\b' : p[1] == 'f' ? '\f' :
				   p[1] == 'n' ? '\n' : p[1] == 'r' ? '\r' : '\t';
			p += 2;
		}
	}
	FUZZ_CHECK(m == n && memcmp(got, want, n) == 0);
	free(got);
	free(json);
	free(want);
	free(in);
	return 0;
}
