/* SPDX-License-Identifier: GPL-2.0 */
/* Which processes "report" looks at: PIDs, a cgroup, a systemd unit. */
#ifndef EXEC_FOLIO_PROCS_H
#define EXEC_FOLIO_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A set of processes in the order they were first given. */
struct pid_list {
	pid_t *pids;
	bool *listed;		/* found in a cgroup, not named: may exit meanwhile */
	size_t nr;
	size_t cap;
};

/*
 * Add the process @pid named by the user, unless it is already there
 * (then it counts as named); 0, or -1 with errno ENOMEM.
 */
int pid_list_add(struct pid_list *l, pid_t pid);
void pid_list_free(struct pid_list *l);

/*
 * Add every process of the cgroup directory @dir and of the cgroups
 * below it, as listed.  Returns 0, or -1 with errno set.
 */
int pid_list_add_cgroup(struct pid_list *l, const char *dir);

/*
 * The directory of the cgroup @arg: a directory with a cgroup.procs file
 * as given, or the path as /proc/PID/cgroup shows it
 * ("/system.slice/foo.service"), under the cgroup2 mount or else the
 * systemd v1 hierarchy.  Returns 0, or -1 with errno set (ENOENT).
 */
int cgroup_resolve(const char *arg, char *dir, size_t len);

/*
 * The cgroup directory of the systemd unit @name ("foo" means
 * "foo.service"), found by name under the cgroup2 mount or else the
 * systemd v1 hierarchy: in system.slice first, then anywhere.  Returns
 * 0, or -1 with errno set: EINVAL for a name that is no unit name,
 * ENOENT if no such cgroup exists (the unit is not running).
 */
int cgroup_find_unit(const char *name, char *dir, size_t len);

/* The process's name, /proc/@pid/comm, "" if it cannot be read. */
void proc_comm(pid_t pid, char *buf, size_t len);

#endif
