// SPDX-License-Identifier: GPL-2.0
/* Reading the mappings of a process from /proc/<pid>/smaps. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc_smaps.h"
#include "util.h"

int smaps_parse_header(const char *line, struct vma_info *vma)
{
	unsigned int major, minor;
	int n = 0;
	const char *path;
	size_t len;

	memset(vma, 0, sizeof(*vma));
	if (sscanf(line, "%lx-%lx %4s %llx %x:%x %llu%n", &vma->start, &vma->end,
		   vma->perms, &vma->pgoff, &major, &minor, &vma->inode, &n) != 7 ||
	    vma->end <= vma->start || strlen(vma->perms) != 4)
		return -1;
	path = line + n;
	path += strspn(path, " \t");
	len = strcspn(path, "\n");
	if (len >= sizeof(vma->path)) {
		/* Said in both outputs, never cut silently. */
		len = sizeof(vma->path) - 1;
		vma->path_truncated = true;
	}
	memcpy(vma->path, path, len);
	vma->path[len] = '\0';
	return 0;
}

int smaps_parse_counter(const char *line, struct vma_info *vma)
{
	static const struct {
		const char *name;
		size_t offset;
	} fields[] = {
		{ "Rss", offsetof(struct vma_info, rss_kb) },
		{ "Anonymous", offsetof(struct vma_info, anon_kb) },
		{ "AnonHugePages", offsetof(struct vma_info, anon_pmd_kb) },
		{ "ShmemPmdMapped", offsetof(struct vma_info, file_pmd_kb) },
		{ "FilePmdMapped", offsetof(struct vma_info, file_pmd_kb) },
	};
	unsigned long long value;
	char name[64];
	size_t i;

	if (sscanf(line, "%63[A-Za-z_]: %llu", name, &value) != 2)
		return strchr(line, ':') ? 1 : -1;
	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		if (strcmp(name, fields[i].name) == 0) {
			/* The two PMD-mapped file counters add up. */
			*(uint64_t *)((char *)vma + fields[i].offset) += value;
			return 0;
		}
	}
	return 1;
}

int smaps_foreach(pid_t pid, int (*fn)(const struct vma_info *vma, void *arg),
		  void *arg)
{
	char file[64], *line = NULL;
	struct vma_info vma;
	size_t cap = 0;
	int have = 0, ret = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/smaps", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return -1;
	/* Fewer, larger reads: smaps of a big process is long. */
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	while (getline(&line, &cap, f) > 0) {
		struct vma_info next;

		if (smaps_parse_header(line, &next) == 0) {
			if (have) {
				ret = fn(&vma, arg);
				if (ret)
					goto out;
			}
			vma = next;
			have = 1;
		} else if (!have || smaps_parse_counter(line, &vma) < 0) {
			errno = EINVAL;
			ret = -1;
			goto out;
		}
	}
	if (ferror(f)) {
		ret = -1;
		goto out;
	}
	if (have)
		ret = fn(&vma, arg);
out:
	free(line);
	fclose(f);
	return ret;
}

int maps_foreach(pid_t pid, int (*fn)(const struct vma_info *vma, void *arg),
		 void *arg)
{
	char file[64], *line = NULL;
	struct vma_info vma;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return -1;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	while (getline(&line, &cap, f) > 0) {
		if (smaps_parse_header(line, &vma)) {
			errno = EINVAL;
			ret = -1;
			break;
		}
		vma.maps_only = true;
		ret = fn(&vma, arg);
		if (ret)
			break;
	}
	if (!ret && ferror(f))
		ret = -1;
	free(line);
	fclose(f);
	return ret;
}
