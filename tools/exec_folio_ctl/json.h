/* SPDX-License-Identifier: GPL-2.0 */
/* The little JSON the utility writes: strings that are always valid UTF-8. */
#ifndef EXEC_FOLIO_JSON_H
#define EXEC_FOLIO_JSON_H

#include <stdio.h>

/* The version of the JSON output of "status --json" and "report --json". */
#define JSON_SCHEMA_VERSION	1

/*
 * Write @s as a JSON string.  Valid UTF-8 is written as it is; quotes,
 * backslashes and control characters are escaped; a byte that is not
 * part of valid UTF-8 becomes U+FFFD (paths may hold any byte).
 */
void json_string(FILE *out, const char *s);

/* The length of the valid UTF-8 sequence at @s, 0 if there is none. */
int json_utf8_len(const unsigned char *s);

#endif
