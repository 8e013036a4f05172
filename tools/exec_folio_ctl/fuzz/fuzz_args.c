// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the option values of every subcommand, parsed from
 * argv vectors as main parses them (getopt_long with each subcommand's
 * options, each value given to the args.c parser main gives it).
 *
 * The input: one byte that picks the subcommand, then its arguments,
 * separated by NUL bytes.  For each option value:
 *
 * - A refused value returns -1 and leaves the output untouched.
 * - An accepted value is what the option's grammar says, checked against
 *   an independent reading: a PID is digits only, 1 to ARG_MAX_PID; a
 *   --size is a power of two from 4K; an --order digits only, 0 to
 *   ARG_MAX_ORDER; a --cont size a power of two of at least two pages
 *   (NUMBER "kB" is NUMBER KiB); a mode one of the four words in any
 *   case; a path anything but "".
 * - What enable-unit writes into a drop-in for an accepted --size or
 *   --order (format_size(), "%u"), exec takes back as the same value:
 *   a drop-in never holds a value that keeps the unit from starting.
 * - exec's prctl value (the page size shifted by the order) does not
 *   overflow for pages of 4K to 64K.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../args.h"
#include "../policy.h"
#include "fuzz.h"

#define SENTINEL	0x5a5a5a5a5a5a5a5aULL
#define MAX_ARGS	32

/* NAME: a unit name, that cgroup_find_unit() checks as it looks. */
enum kind { PID, FOLIO_SIZE, ORDER, CONT, MODE, PATH, NAME, FLAG };

struct opt {
	const char *name;
	int val;
	enum kind kind;
};

/* Each subcommand's options as main gives them to getopt_long. */
struct cmd {
	const char *name, *shorts;
	struct opt opts[10];
};

static const struct cmd cmds[] = {
	{ "status", "p:jh", {
		{ "pid", 'p', PID }, { "json", 'j', FLAG }, { "help", 'h', FLAG } } },
	{ "set", "h", { { "help", 'h', FLAG } } },
	{ "exec", "+m:s:o:h", {
		{ "mode", 'm', MODE }, { "size", 's', FOLIO_SIZE }, { "order", 'o', ORDER },
		{ "strict", 256, FLAG }, { "help", 'h', FLAG } } },
	{ "report", "p:ag:u:rjc:h", {
		{ "pid", 'p', PID }, { "all", 'a', FLAG }, { "cgroup", 'g', PATH },
		{ "unit", 'u', NAME }, { "rollup", 'r', FLAG }, { "json", 'j', FLAG },
		{ "cont", 'c', CONT }, { "help", 'h', FLAG } } },
	{ "apply", "h", { { "help", 'h', FLAG } } },
	{ "enable-unit", "m:s:o:h", {
		{ "mode", 'm', MODE }, { "size", 's', FOLIO_SIZE }, { "order", 'o', ORDER },
		{ "from", 256, PATH }, { "root", 257, PATH }, { "print", 258, FLAG },
		{ "exe", 259, PATH }, { "help", 'h', FLAG } } },
	{ "disable-unit", "h", { { "root", 256, PATH }, { "help", 'h', FLAG } } },
};

static int all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

static void check_pid(const char *s)
{
	pid_t pid = (pid_t)0x5a5a5a5a, again = 0;
	char buf[32];

	if (arg_pid(s, &pid)) {
		FUZZ_CHECK(pid == (pid_t)0x5a5a5a5a);
		FUZZ_CHECK(!all_digits(s) || strtoull(s, NULL, 10) == 0 ||
			   strlen(s) > 10 || strtoull(s, NULL, 10) > ARG_MAX_PID);
		return;
	}
	FUZZ_CHECK(all_digits(s));
	FUZZ_CHECK(pid >= 1 && pid <= ARG_MAX_PID);
	FUZZ_CHECK(strtoull(s, NULL, 10) == (unsigned long long)pid);
	snprintf(buf, sizeof(buf), "%d", (int)pid);
	FUZZ_CHECK(arg_pid(buf, &again) == 0 && again == pid);
}

static void check_folio_size(const char *s)
{
	unsigned long long bytes = SENTINEL, ref = 0, again = SENTINEL;
	char word[32];
	int ref_ok = parse_size(s, &ref) == 0 && !(ref & (ref - 1)) && ref >= 4096;

	if (arg_folio_size(s, &bytes)) {
		FUZZ_CHECK(bytes == SENTINEL);
		FUZZ_CHECK(!ref_ok);
		return;
	}
	FUZZ_CHECK(ref_ok && bytes == ref);
	/* enable-unit writes format_size(): exec reads it back. */
	format_size(bytes, word, sizeof(word));
	FUZZ_CHECK(strlen(word) < KNOB_WORD_LEN);
	FUZZ_CHECK(arg_folio_size(word, &again) == 0 && again == bytes);
}

static void check_order(const char *s)
{
	unsigned int order = 0x5a5a5a5a, again = 0;
	char buf[16];

	if (arg_order(s, &order)) {
		FUZZ_CHECK(order == 0x5a5a5a5a);
		FUZZ_CHECK(!all_digits(s) || strtoul(s, NULL, 10) > ARG_MAX_ORDER);
		return;
	}
	FUZZ_CHECK(all_digits(s) && order <= ARG_MAX_ORDER);
	FUZZ_CHECK(strtoul(s, NULL, 10) == order);
	/* exec's prctl value: 64K pages << the order fits. */
	FUZZ_CHECK(((65536ULL << order) >> order) == 65536ULL);
	/* enable-unit writes "%u": exec reads it back. */
	snprintf(buf, sizeof(buf), "%u", order);
	FUZZ_CHECK(arg_order(buf, &again) == 0 && again == order);
}

static void check_cont(const char *s)
{
	static const unsigned int shifts[] = { 12, 14, 16 };

	for (size_t i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
		unsigned long long bytes = SENTINEL, ref = 0;
		size_t n = strspn(s, "0123456789");
		int ret = arg_cont_size(s, shifts[i], &bytes), ref_ret;

		if (n && !strcmp(s + n, "kB")) {
			char *k = strdup(s);

			if (!k)
				abort();
			k[n] = 'K';
			k[n + 1] = '\0';
			ref_ret = parse_size(k, &ref);
			free(k);
		} else {
			ref_ret = parse_size(s, &ref);
		}
		if (ret) {
			FUZZ_CHECK(bytes == SENTINEL);
			FUZZ_CHECK(ref_ret || (ref & (ref - 1)) || ref < 2ULL << shifts[i]);
			continue;
		}
		FUZZ_CHECK(ref_ret == 0 && bytes == ref);
		FUZZ_CHECK(!(bytes & (bytes - 1)) && bytes >= 2ULL << shifts[i]);
	}
}

static void check_mode(const char *s)
{
	static const char * const words[] = { "inherit", "never", "arch", "auto" };
	int m = mode_from_word(s), ref = -1;

	for (int i = 0; i < 4; i++)
		if (!strcasecmp(s, words[i]))
			ref = i;
	FUZZ_CHECK(m == ref);
}

static void check_path(const char *s)
{
	FUZZ_CHECK(arg_path(s) == (s[0] ? 0 : -1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct option longs[11];
	char *copy, *argv[MAX_ARGS + 2];
	const struct cmd *cmd;
	int argc = 0, c, nr = 0;
	size_t pos;

	if (!size)
		return 0;
	cmd = &cmds[data[0] % (sizeof(cmds) / sizeof(cmds[0]))];
	/* The arguments, each its own allocation: ASan sees a read past one. */
	copy = fuzz_strndup(data + 1, size - 1);
	argv[argc++] = (char *)"exec_folio_ctl";
	for (pos = 0; pos < size - 1 && argc <= MAX_ARGS;) {
		size_t len = strnlen(copy + pos, size - 1 - pos);

		argv[argc++] = fuzz_strndup((const uint8_t *)copy + pos, len);
		pos += len + 1;
	}
	argv[argc] = NULL;
	memset(longs, 0, sizeof(longs));
	for (const struct opt *o = cmd->opts; o->name; o++, nr++) {
		longs[nr].name = o->name;
		longs[nr].has_arg = o->kind == FLAG ? no_argument : required_argument;
		longs[nr].val = o->val;
	}
	optind = 0;	/* glibc: start over */
	opterr = 0;
	while ((c = getopt_long(argc, argv, cmd->shorts, longs, NULL)) != -1) {
		const struct opt *o = NULL;

		for (int i = 0; i < nr; i++)
			if (cmd->opts[i].val == c)
				o = &cmd->opts[i];
		if (!o) {
			FUZZ_CHECK(c == '?');
			continue;
		}
		if (longs[o - cmd->opts].has_arg == required_argument)
			FUZZ_CHECK(optarg != NULL);
		switch (o->kind) {
		case PID:
			check_pid(optarg);
			break;
		case FOLIO_SIZE:
			check_folio_size(optarg);
			break;
		case ORDER:
			check_order(optarg);
			break;
		case CONT:
			check_cont(optarg);
			break;
		case MODE:
			check_mode(optarg);
			break;
		case PATH:
			check_path(optarg);
			break;
		case NAME:
		case FLAG:
			break;
		}
	}
	/* apply's FILE is a path too. */
	if (!strcmp(cmd->name, "apply") && optind < argc)
		check_path(argv[optind]);
	for (int i = 1; i < argc; i++)
		free(argv[i]);
	free(copy);
	return 0;
}
