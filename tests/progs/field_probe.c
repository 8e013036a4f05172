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
 *   field_probe exitstop FILE CMD [ARG...]
 *                              run CMD (execvp) traced and hold it when
 *                              it ends (PTRACE_O_TRACEEXIT: stopped in
 *                              exit_group() before its memory is torn
 *                              down), so that a program that runs to
 *                              completion is measured as it was when it
 *                              finished.  Writes "pid=N" to FILE when
 *                              CMD starts, then one line when it is
 *                              held: "exited=1 exit_status=N run_ms=N"
 *                              at its exit (N above 128: killed by
 *                              signal N-128), or "stopped=SIG run_ms=N"
 *                              if it stopped itself (SIGSTOP, SIGTSTP:
 *                              it is left stopped, as untraced).  A
 *                              held CMD stays so until field_probe is
 *                              killed: PTRACE_O_EXITKILL then kills CMD
 *                              and releases it (a SIGKILL sent to CMD
 *                              itself does not end it once it is in
 *                              exit_group()); CMD running is killed
 *                              too.  Exit status: CMD's, if it ended
 *                              before it could be held; 126/127 if it
 *                              could not be run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: field_probe stat PID | touch PID | cached FILE... | exitstop FILE CMD [ARG...]\n");
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

static int wait_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static long long ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000LL + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Hold the child until this process is killed (PTRACE_O_EXITKILL). */
static _Noreturn void hold(FILE *f)
{
	fclose(f);
	for (;;)
		pause();
}

static int do_exitstop(const char *file, char **cmd)
{
	unsigned long msg;
	struct timespec t0;
	int status, sig;
	pid_t pid;
	FILE *f;

	f = fopen(file, "we");
	if (!f) {
		fprintf(stderr, "field_probe: %s: %s\n", file, strerror(errno));
		return 126;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("field_probe: fork");
		return 126;
	}
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
			perror("field_probe: PTRACE_TRACEME");
			_exit(126);
		}
		execvp(cmd[0], cmd);
		fprintf(stderr, "field_probe: %s: %s\n", cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	fprintf(f, "pid=%d\n", pid);
	fflush(f);
	/* The first stop is the SIGTRAP of its execve(). */
	if (waitpid(pid, &status, 0) != pid) {
		perror("field_probe: waitpid");
		return 126;
	}
	if (!WIFSTOPPED(status))
		return wait_status(status);
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)) {
		perror("field_probe: PTRACE_SETOPTIONS");
		kill(pid, SIGKILL);
		return 126;
	}
	for (sig = 0;; ) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) && errno != ESRCH) {
			perror("field_probe: PTRACE_CONT");
			kill(pid, SIGKILL);
			return 126;
		}
		if (waitpid(pid, &status, 0) != pid) {
			perror("field_probe: waitpid");
			return 126;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return wait_status(status);
		sig = WSTOPSIG(status);
		switch (status >> 16) {
		case PTRACE_EVENT_EXIT:
			/* The wait status of its exit, as waitpid() would give it. */
			if (ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg))
				msg = 0;
			fprintf(f, "exited=1 exit_status=%d run_ms=%lld\n",
				wait_status((int)msg), ms_since(&t0));
			hold(f);
		case PTRACE_EVENT_EXEC:		/* busybox chroot exec()s CMD */
		case PTRACE_EVENT_STOP:
			sig = 0;
			continue;
		}
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
			/* A signal-delivery-stop: not resumed, it stays stopped. */
			fprintf(f, "stopped=%d run_ms=%lld\n", sig, ms_since(&t0));
			hold(f);
		}
	}
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
	if (!strcmp(argv[1], "exitstop") && argc >= 4)
		return do_exitstop(argv[2], argv + 3);
	if (strcmp(argv[1], "cached"))
		return usage();
	for (int i = 2; i < argc; i++)
		ret |= do_cached(argv[i]);
	return ret;
}
