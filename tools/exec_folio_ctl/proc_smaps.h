/* SPDX-License-Identifier: GPL-2.0 */
/* Reading the mappings of a process from /proc/<pid>/smaps. */
#ifndef EXEC_FOLIO_PROC_SMAPS_H
#define EXEC_FOLIO_PROC_SMAPS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* One mapping: its smaps header line and the counters the walk needs. */
struct vma_info {
	unsigned long start;
	unsigned long end;
	unsigned long long pgoff;	/* offset in the file, in bytes */
	char perms[5];			/* "r-xp" */
	unsigned long long inode;
	char path[PATH_MAX];		/* empty for anonymous memory */
	bool path_truncated;		/* the kernel's path was longer: cut */
	uint64_t rss_kb;
	uint64_t anon_kb;		/* Anonymous */
	uint64_t anon_pmd_kb;		/* AnonHugePages */
	uint64_t file_pmd_kb;		/* ShmemPmdMapped + FilePmdMapped */
	/* From /proc/<pid>/maps: no counters, the walk finds them itself. */
	bool maps_only;
};

/*
 * Parse one smaps header line ("start-end perms offset dev inode path").
 * Returns 0, or -1 if @line is not a header line.
 */
int smaps_parse_header(const char *line, struct vma_info *vma);

/*
 * Parse one smaps counter line ("Rss:   123 kB") into @vma.  Returns 0,
 * 1 for a well-formed counter the walk does not use, -1 for garbage.
 */
int smaps_parse_counter(const char *line, struct vma_info *vma);

/*
 * Call @fn for each mapping of @pid, in address order; stops early and
 * returns what @fn returned if that was not 0.  Returns -1 with errno
 * set if smaps cannot be read or is malformed.
 */
int smaps_foreach(pid_t pid, int (*fn)(const struct vma_info *vma, void *arg),
		  void *arg);

/*
 * The same from /proc/@pid/maps, which is much cheaper to read than smaps
 * (no page table walk of every mapping): each mapping has maps_only set
 * and no counters.
 */
int maps_foreach(pid_t pid, int (*fn)(const struct vma_info *vma, void *arg),
		 void *arg);

#endif
