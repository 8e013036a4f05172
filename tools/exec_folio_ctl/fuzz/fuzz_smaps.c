// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: smaps lines.  The input is split into lines, as
 * smaps_foreach() reads them, and each goes to smaps_parse_header(),
 * then, if it is not a header, to smaps_parse_counter() on the current
 * mapping.
 *
 * - A header that parses has start < end, four permission characters,
 *   a path without a newline that fits PATH_MAX; printed back as the
 *   kernel prints headers, it parses to the same mapping.
 * - A counter line returns 0, 1 or -1, and -1 only for a line without
 *   a colon.  1 and -1 leave the mapping unchanged; 0 adds the value
 *   to exactly one counter and leaves everything else unchanged.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proc_smaps.h"
#include "../util.h"
#include "fuzz.h"

static void check_header(const struct vma_info *vma)
{
	static char line[PATH_MAX + 128];
	static struct vma_info again;
	size_t plen = strnlen(vma->path, sizeof(vma->path));

	FUZZ_CHECK(vma->start < vma->end);
	FUZZ_CHECK(strnlen(vma->perms, sizeof(vma->perms)) == 4);
	FUZZ_CHECK(plen < sizeof(vma->path));
	FUZZ_CHECK(!memchr(vma->path, '\n', plen));
	FUZZ_CHECK(vma->path[0] != ' ' && vma->path[0] != '\t');
	FUZZ_CHECK(!vma->rss_kb && !vma->anon_kb && !vma->anon_pmd_kb &&
		   !vma->file_pmd_kb);

	snprintf(line, sizeof(line), "%08lx-%08lx %s %08llx 00:00 %llu %s\n",
		 vma->start, vma->end, vma->perms, vma->pgoff, vma->inode,
		 vma->path);
	FUZZ_CHECK(smaps_parse_header(line, &again) == 0);
	FUZZ_CHECK(again.start == vma->start && again.end == vma->end);
	FUZZ_CHECK(again.pgoff == vma->pgoff && again.inode == vma->inode);
	FUZZ_CHECK(strcmp(again.perms, vma->perms) == 0);
	FUZZ_CHECK(strcmp(again.path, vma->path) == 0);
}

static void check_counter(const char *line, struct vma_info *vma)
{
	static struct vma_info before;
	uint64_t *const counters[] = {
		&vma->rss_kb, &vma->anon_kb, &vma->anon_pmd_kb, &vma->file_pmd_kb,
	};
	const uint64_t *const old[] = {
		&before.rss_kb, &before.anon_kb, &before.anon_pmd_kb,
		&before.file_pmd_kb,
	};
	size_t i, changed = 0;
	int ret;

	memcpy(&before, vma, sizeof(before));	/* padding too, for memcmp() */
	ret = smaps_parse_counter(line, vma);
	FUZZ_CHECK(ret >= -1 && ret <= 1);
	if (ret == -1)
		FUZZ_CHECK(!strchr(line, ':'));
	if (ret) {
		FUZZ_CHECK(memcmp(vma, &before, sizeof(before)) == 0);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		changed += *counters[i] != *old[i];
		*counters[i] = *old[i];
	}
	/* A value of 0 changes nothing; else one counter, nothing more. */
	FUZZ_CHECK(changed <= 1);
	FUZZ_CHECK(memcmp(vma, &before, sizeof(before)) == 0);
	memcpy(vma, &before, sizeof(before));
	smaps_parse_counter(line, vma);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vma_info vma, next;
	const uint8_t *p = data, *end = data + size;
	int have = 0;

	while (p < end) {
		const uint8_t *eol = memchr(p, '\n', end - p);
		size_t len = eol ? (size_t)(eol - p) + 1 : (size_t)(end - p);
		char *line = fuzz_strndup(p, len);

		p += len;
		if (smaps_parse_header(line, &next) == 0) {
			check_header(&next);
			vma = next;
			have = 1;
		} else if (have) {
			check_counter(line, &vma);
		}
		free(line);
	}
	return 0;
}
