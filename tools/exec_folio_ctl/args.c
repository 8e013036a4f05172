// SPDX-License-Identifier: GPL-2.0
/* The values the subcommands' options take: see args.h. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "policy.h"

/* Digits only, no sign, no space: @max at most; 0 or -1. */
static int digits(const char *s, unsigned long long max, unsigned long long *v)
{
	unsigned long long n = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		n = n * 10 + (unsigned int)(*s - '0');
		if (n > max)
			return -1;
	}
	*v = n;
	return 0;
}

int arg_pid(const char *s, pid_t *pid)
{
	unsigned long long v;

	if (digits(s, ARG_MAX_PID, &v) || !v)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

int arg_folio_size(const char *s, unsigned long long *bytes)
{
	unsigned long long v;

	if (parse_size(s, &v) || (v & (v - 1)) || v < ARG_MIN_FOLIO_SIZE)
		return -1;
	*bytes = v;
	return 0;
}

int arg_order(const char *s, unsigned int *order)
{
	unsigned long long v;

	if (digits(s, ARG_MAX_ORDER, &v))
		return -1;
	*order = (unsigned int)v;
	return 0;
}

int arg_cont_size(const char *s, unsigned int page_shift, unsigned long long *bytes)
{
	size_t n = strspn(s, "0123456789");
	unsigned long long v;
	char kib[32];
	int ret;

	if (n && n < sizeof(kib) - 2 && !strcmp(s + n, "kB")) {
		snprintf(kib, sizeof(kib), "%.*sK", (int)n, s);
		ret = parse_size(kib, &v);
	} else {
		ret = parse_size(s, &v);
	}
	if (ret || (v & (v - 1)) || page_shift >= 63 || v < 2ULL << page_shift)
		return -1;
	*bytes = v;
	return 0;
}

int arg_path(const char *s)
{
	return s[0] ? 0 : -1;
}
