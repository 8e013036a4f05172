/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the libFuzzer targets of exec_folio_ctl's parsers.
 * Each target checks what the parser promises, not only that it does
 * not crash: a broken promise is reported and aborts, which libFuzzer
 * counts as a crash and saves the input.
 */
#ifndef EXEC_FOLIO_FUZZ_H
#define EXEC_FOLIO_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant broken: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/*
 * A NUL-terminated copy of @size bytes in a buffer of exactly the size it
 * needs, so that ASan sees any read past the end.  The string ends at the
 * first NUL of @data, as it would for a C caller.
 */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A buffer of exactly @len bytes, filled with @fill. */
static inline char *fuzz_buf(size_t len, int fill)
{
	char *b = malloc(len ? len : 1);

	if (!b)
		abort();
	memset(b, fill, len ? len : 1);
	return b;
}

/* Whether @s is NUL-terminated within its @len bytes. */
static inline int fuzz_terminated(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

#endif
