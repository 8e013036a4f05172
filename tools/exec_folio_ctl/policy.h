/* SPDX-License-Identifier: GPL-2.0 */
/* The exec folio policy as the utility sees it: words, sizes, knob, prctl. */
#ifndef EXEC_FOLIO_POLICY_H
#define EXEC_FOLIO_POLICY_H

#include <stddef.h>
#include <sys/types.h>

#define EXEC_FOLIO_SIZE_KNOB "/sys/kernel/mm/transparent_hugepage/exec_folio_size"

/* arg2: one of the modes, or a folio size in bytes. */
#ifndef PR_SET_EXEC_FOLIO_SIZE
#define PR_SET_EXEC_FOLIO_SIZE		0x45584653 /* "EXFS" */
#define PR_GET_EXEC_FOLIO_SIZE		0x45584647 /* "EXFG" */
#define PR_EXEC_FOLIO_INHERIT		0
#define PR_EXEC_FOLIO_NEVER		1
#define PR_EXEC_FOLIO_ARCH		2
#define PR_EXEC_FOLIO_AUTO		3
#endif

#define KNOB_MAX_WORDS	32
#define KNOB_WORD_LEN	16

/* What the knob lists: every accepted word, and which one is active. */
struct knob_state {
	char words[KNOB_MAX_WORDS][KNOB_WORD_LEN];
	int nr_words;
	int active;		/* index into words, -1 if none */
};

/*
 * Parse a size as util-linux does: a decimal number of bytes, or with a
 * K, M or G suffix in any case, alone or followed by "iB" for powers of
 * 1024 (65536, 64K, 64k, 64KiB, 2M), or followed by "B" for powers of
 * 1000 (64KB is 64000).  Returns 0, or -1 for anything else, zero, or
 * overflow.
 */
int parse_size(const char *s, unsigned long long *bytes);

/* Write @bytes as the knob writes sizes: "64K", "2M".  */
void format_size(unsigned long long bytes, char *buf, size_t len);

/*
 * Turn what a user typed for the knob (a mode, in any case, or a size in
 * any form parse_size() takes) into the knob's own word.  Returns 0, or
 * -1 if it is neither or the word does not fit in @len.
 */
int normalize_word(const char *in, char *out, size_t len);

/* A mode word ("inherit", "never", "arch", "auto") to PR_EXEC_FOLIO_*; -1 if not. */
int mode_from_word(const char *word);

/* Parse the knob's contents ("never [arch] auto 16K ..."); 0 or -1. */
int knob_parse(const char *text, struct knob_state *st);

/* Read the knob; 0, or -1 with errno set (ENOENT: no such kernel feature). */
int knob_read(struct knob_state *st);

/* Write a word to the knob; 0, or -1 with errno set. */
int knob_write(const char *word);

/* Index of @word in @st, -1 if the kernel does not accept it. */
int knob_find(const struct knob_state *st, const char *word);

/* The accepted words joined by spaces, without brackets. */
void knob_list(const struct knob_state *st, char *buf, size_t len);

/*
 * The ExecFolioSize word of /proc/@pid/status ("inherit", "64K", ...).
 * Returns 0; -1 with errno set if the file cannot be read, or ENODATA if
 * the kernel does not show the line.
 */
int proc_policy_word(pid_t pid, char *word, size_t len);

/*
 * A process's policy as PR_GET_EXEC_FOLIO_SIZE returns it (a mode or a
 * size in bytes), as a word: "inherit", "never", "arch", "auto" or a
 * size; "unknown" for anything else.
 */
void policy_word(long value, char *buf, size_t len);

#endif
