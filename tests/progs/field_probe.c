// SPDX-License-Identifier: GPL-2.0
/*
 * field_probe: what tests/guest/field.sh needs besides exec_folio_ctl
 * report (which does the folio walk), for programs that cannot be
 * changed (real Debian programs run in a chroot):
 *
 *   field_probe stat PID       "state=S minflt=N majflt=N cpu=N" from
 *                              /proc/PID/stat (cpu in clock ticks)
 *   field_probe touch PID      read every page of PID's executable file
 *                              mappings through /proc/PID/mem, faulting
 *                              in what the program never ran, as
 *                              exec_folio_test does; prints
 *                              "touched_kb=N minflt=N majflt=N", the
 *                              faults being this reader's own (faults
 *                              taken for another process's memory are
 *                              counted on the task that takes them)
 *   field_probe cached FILE... "FILE size_kb=N cached_kb=N" each: the
 *                              file's pages in the page cache, from
 *                              mincore() on a fresh mapping that is
 *                              never touched
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: field_probe stat PID | touch PID | cached FILE...\n");
	return 2;
}

static int do_stat(const char *pid)
{
	char path[64], buf[2048], *p, state;
	unsigned long long minflt, majflt, utime, stime;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "re");
	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) S ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime" */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %llu %*u %llu %*u %llu %llu",
			 &state, &minflt, &majflt, &utime, &stime) != 5) {
		fprintf(stderr, "%s: cannot parse\n", path);
		return 1;
	}
	printf("state=%c minflt=%llu majflt=%llu cpu=%llu\n", state, minflt, majflt,
	       utime + stime);
	return 0;
}

static int do_touch(const char *pid)
{
	long psize = sysconf(_SC_PAGESIZE);
	unsigned long long touched = 0;
	char path[64], line[4096], buf[64];
	struct rusage before, after;
	FILE *maps;
	int mem;

	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	maps = fopen(path, "re");
	snprintf(path, sizeof(path), "/proc/%s/mem", pid);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	if (!maps || mem < 0) {
		perror(path);
		return 1;
	}
	getrusage(RUSAGE_SELF, &before);
	while (fgets(line, sizeof(line), maps)) {
		unsigned long start, end, addr;
		char perms[8];
		int name = 0;

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &start, &end, perms, &name) != 3)
			continue;
		/* Executable mappings of files, as exec_folio_ctl report. */
		if (perms[2] != 'x' || !name || line[name] != '/')
			continue;
		for (addr = start; addr < end; addr += psize) {
			if (pread(mem, buf, sizeof(buf), addr) != (ssize_t)sizeof(buf))
				break;
			touched += psize;
		}
	}
	getrusage(RUSAGE_SELF, &after);
	fclose(maps);
	close(mem);
	printf("touched_kb=%llu minflt=%ld majflt=%ld\n", touched >> 10,
	       after.ru_minflt - before.ru_minflt, after.ru_majflt - before.ru_majflt);
	return 0;
}

static int do_cached(const char *file)
{
	long psize = sysconf(_SC_PAGESIZE);
	unsigned long long cached = 0;
	unsigned char *vec;
	size_t pages, i;
	struct stat st;
	void *map;
	int fd;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		perror(file);
		return 1;
	}
	pages = (st.st_size + psize - 1) / psize;
	if (!pages) {
		printf("%s size_kb=0 cached_kb=0\n", file);
		close(fd);
		return 0;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(pages);
	if (map == MAP_FAILED || !vec || mincore(map, st.st_size, vec)) {
		perror(file);
		return 1;
	}
	for (i = 0; i < pages; i++)
		cached += vec[i] & 1;
	printf("%s size_kb=%llu cached_kb=%llu\n", file,
	       (unsigned long long)(st.st_size + 1023) >> 10, (cached * psize) >> 10);
	free(vec);
	munmap(map, st.st_size);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 0;

	if (argc < 3)
		return usage();
	if (!strcmp(argv[1], "stat") && argc == 3)
		return do_stat(argv[2]);
	if (!strcmp(argv[1], "touch") && argc == 3)
		return do_touch(argv[2]);
	if (strcmp(argv[1], "cached"))
		return usage();
	for (int i = 2; i < argc; i++)
		ret |= do_cached(argv[i]);
	return ret;
}
