// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the policy words.  mode_from_word(),
 * normalize_word() into a knob-sized buffer, knob_parse() with
 * knob_list() and knob_find(), and policy_word().
 *
 * - normalize_word() accepts a mode in any case or a size, nothing else;
 *   what it writes is a whole word (never a truncated one, which would
 *   name another size: a size too long for the buffer is refused),
 *   terminated, and normalizes to itself: a mode to its lower-case
 *   name, a size to one that parses to the same value.  A rejected word
 *   leaves the output unchanged.
 * - knob_parse() accepts only text with 1 to KNOB_MAX_WORDS words, each
 *   shorter than KNOB_WORD_LEN, exactly one of them in brackets; the
 *   state it gives is what the same words, printed back, parse to.
 * - policy_word() gives "unknown" or a word normalize_word() keeps.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../policy.h"
#include "fuzz.h"

static const char * const modes[] = { "inherit", "never", "arch", "auto" };

static void check_normalize(const char *in)
{
	unsigned long long in_bytes, out_bytes;
	char *out = fuzz_buf(KNOB_WORD_LEN, 'x');
	char again[KNOB_WORD_LEN];
	int mode = mode_from_word(in);
	int ret = normalize_word(in, out, KNOB_WORD_LEN);

	FUZZ_CHECK(mode >= -1 && mode <= 3);
	if (mode >= 0)
		FUZZ_CHECK(strcasecmp(in, modes[mode]) == 0);
	if (ret) {
		char word[32];

		/* Only a size too long for a knob word is refused. */
		FUZZ_CHECK(ret == -1 && mode < 0);
		if (parse_size(in, &in_bytes) == 0) {
			format_size(in_bytes, word, sizeof(word));
			FUZZ_CHECK(strlen(word) >= KNOB_WORD_LEN);
		}
		FUZZ_CHECK(out[0] == 'x' && out[KNOB_WORD_LEN - 1] == 'x');
		goto out;
	}
	FUZZ_CHECK(fuzz_terminated(out, KNOB_WORD_LEN));
	FUZZ_CHECK(normalize_word(out, again, sizeof(again)) == 0);
	FUZZ_CHECK(strcmp(out, again) == 0);
	if (mode >= 0) {
		FUZZ_CHECK(strcmp(out, modes[mode]) == 0);
	} else {
		FUZZ_CHECK(parse_size(in, &in_bytes) == 0);
		FUZZ_CHECK(parse_size(out, &out_bytes) == 0);
		FUZZ_CHECK(in_bytes == out_bytes);
	}
out:
	free(out);
}

static void check_knob(const char *in)
{
	struct knob_state st, st2;
	char text[KNOB_MAX_WORDS * (KNOB_WORD_LEN + 3) + 1];
	char joined[KNOB_MAX_WORDS * (KNOB_WORD_LEN + 1) + 1];
	size_t used = 0, jused = 0, len;
	char *list;
	int i;

	if (knob_parse(in, &st))
		return;
	FUZZ_CHECK(st.nr_words >= 1 && st.nr_words <= KNOB_MAX_WORDS);
	FUZZ_CHECK(st.active >= 0 && st.active < st.nr_words);
	for (i = 0; i < st.nr_words; i++) {
		const char *w = st.words[i];
		size_t wl = strnlen(w, KNOB_WORD_LEN);

		FUZZ_CHECK(wl >= 1 && wl < KNOB_WORD_LEN);
		FUZZ_CHECK(!strpbrk(w, " \t\n"));
		FUZZ_CHECK(knob_find(&st, w) >= 0 && knob_find(&st, w) <= i);
		FUZZ_CHECK(strcmp(st.words[knob_find(&st, w)], w) == 0);
		used += snprintf(text + used, sizeof(text) - used,
				 i == st.active ? "%s[%s]" : "%s%s",
				 i ? " " : "", w);
		jused += snprintf(joined + jused, sizeof(joined) - jused, "%s%s",
				  i ? " " : "", w);
	}
	FUZZ_CHECK(used < sizeof(text) && jused < sizeof(joined));
	FUZZ_CHECK(knob_parse(text, &st2) == 0);
	FUZZ_CHECK(memcmp(&st, &st2, sizeof(st)) == 0);

	/* knob_list() into exactly enough room, and into too little. */
	list = fuzz_buf(jused + 1, 'x');
	knob_list(&st, list, jused + 1);
	FUZZ_CHECK(strcmp(list, joined) == 0);
	free(list);
	len = jused / 2 + 1;
	list = fuzz_buf(len, 'x');
	knob_list(&st, list, len);
	FUZZ_CHECK(fuzz_terminated(list, len));
	FUZZ_CHECK(strncmp(list, joined, strlen(list)) == 0);
	free(list);
}

static void check_policy_word(const uint8_t *data, size_t size)
{
	char *buf = fuzz_buf(KNOB_WORD_LEN, 'x');
	char norm[KNOB_WORD_LEN];
	long value = 0;

	if (size < sizeof(value))
		goto out;
	memcpy(&value, data, sizeof(value));
	policy_word(value, buf, KNOB_WORD_LEN);
	FUZZ_CHECK(fuzz_terminated(buf, KNOB_WORD_LEN));
	if (strcmp(buf, "unknown")) {
		FUZZ_CHECK(normalize_word(buf, norm, sizeof(norm)) == 0);
		FUZZ_CHECK(strcmp(buf, norm) == 0);
	}
out:
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_strndup(data, size);

	check_normalize(in);
	check_knob(in);
	check_policy_word(data, size);
	free(in);
	return 0;
}
