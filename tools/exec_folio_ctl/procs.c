// SPDX-License-Identifier: GPL-2.0
/* Which processes "report" looks at: PIDs, a cgroup, a systemd unit. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "procs.h"
#include "util.h"

#define CGROUP_MAX_ROOTS	4

static int list_add(struct pid_list *l, pid_t pid, bool listed)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		if (l->pids[i] == pid) {
			if (!listed)
				l->listed[i] = false;
			return 0;
		}
	}
	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		pid_t *p = realloc(l->pids, cap * sizeof(*p));
		bool *b = p ? realloc(l->listed, cap * sizeof(*b)) : NULL;

		if (p)
			l->pids = p;
		if (!b) {
			errno = ENOMEM;
			return -1;
		}
		l->listed = b;
		l->cap = cap;
	}
	l->listed[l->nr] = listed;
	l->pids[l->nr++] = pid;
	return 0;
}

int pid_list_add(struct pid_list *l, pid_t pid)
{
	return list_add(l, pid, false);
}

void pid_list_free(struct pid_list *l)
{
	free(l->pids);
	free(l->listed);
	memset(l, 0, sizeof(*l));
}

static int add_procs_file(struct pid_list *l, const char *dir)
{
	char path[PATH_MAX];
	long pid;
	int ret = 0;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fscanf(f, "%ld", &pid) == 1)
		if (pid > 0 && list_add(l, (pid_t)pid, true))
			ret = -1;
	if (ferror(f))
		ret = -1;
	fclose(f);
	return ret;
}

/* A stack of directory paths on the heap, for walks of any depth. */
struct dir_stack {
	char **v;
	size_t nr, cap;
};

static int stack_push(struct dir_stack *st, const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s%s%s", dir, name ? "/" : "", name ? name : "") >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (st->nr == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 64;
		char **v = realloc(st->v, cap * sizeof(*v));

		if (!v)
			return -1;
		st->v = v;
		st->cap = cap;
	}
	st->v[st->nr] = strdup(path);
	if (!st->v[st->nr])
		return -1;
	st->nr++;
	return 0;
}

/*
 * Call @fn for @root and every directory below it, depth first and in
 * directory order, as a recursive walk would, but with the paths on a
 * stack on the heap: a cgroup2 tree may be deeper than any fixed limit.
 * @skip (NULL: none) is a name not entered right below @root.  A
 * directory removed meanwhile (ENOENT) is no error, unless it is @root.
 * With @lenient, one that cannot be read is passed over (a search).
 * @fn returns 0 to go on, or what the walk returns: 1 (found), or -1
 * with errno set.  Returns 0 once every directory was visited.
 */
static int walk_dirs(const char *root, const char *skip, bool lenient,
		     int (*fn)(const char *dir, bool top, void *arg), void *arg)
{
	struct dir_stack st = { 0 };
	bool top = true;
	int ret = 0;

	if (stack_push(&st, root, NULL))
		return -1;
	while (!ret && st.nr) {
		char *dir = st.v[--st.nr];
		struct dirent *de;
		size_t base;
		DIR *d;

		ret = fn(dir, top, arg);
		if (ret < 0 && errno == ENOENT && !top)
			ret = 0;
		d = ret ? NULL : opendir(dir);
		if (!ret && !d && !lenient && (errno != ENOENT || top))
			ret = -1;
		base = st.nr;
		while (d && !ret && (de = readdir(d))) {
			if (de->d_type != DT_DIR || de->d_name[0] == '.' ||
			    (top && skip && !strcmp(de->d_name, skip)))
				continue;
			ret = stack_push(&st, dir, de->d_name);
		}
		if (d)
			closedir(d);
		/* Pushed in directory order: reversed, the first is walked first. */
		for (size_t i = base, j = st.nr; !ret && i + 1 < j; i++, j--) {
			char *t = st.v[i];

			st.v[i] = st.v[j - 1];
			st.v[j - 1] = t;
		}
		free(dir);
		top = false;
	}
	while (st.nr)
		free(st.v[--st.nr]);
	free(st.v);
	return ret;
}

static int add_dir(const char *dir, bool top, void *arg)
{
	(void)top;
	return add_procs_file(arg, dir);
}

int pid_list_add_cgroup(struct pid_list *l, const char *dir)
{
	int ret = walk_dirs(dir, NULL, false, add_dir, l);

	return ret < 0 ? -1 : 0;
}

static int is_cgroup_dir(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= (int)sizeof(path))
		return 0;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The cgroup2 mounts first, then the systemd v1 hierarchy (name=systemd). */
static int cgroup_roots(char roots[][PATH_MAX], int max)
{
	char *line = NULL, mnt[PATH_MAX], fstype[64], opts[512];
	size_t cap = 0;
	int nr = 0, pass;
	FILE *f;

	for (pass = 0; pass < 2 && nr < max; pass++) {
		f = fopen("/proc/self/mountinfo", "re");
		if (!f)
			return -1;
		while (nr < max && getline(&line, &cap, f) > 0) {
			const char *sep = strstr(line, " - ");

			if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
			    sscanf(sep, " - %63s %*s %511s", fstype, opts) != 2)
				continue;
			if (strchr(mnt, '\\'))
				continue;	/* an escaped space: not a cgroup mount */
			if (pass == 0 && !strcmp(fstype, "cgroup2"))
				snprintf(roots[nr++], PATH_MAX, "%s", mnt);
			else if (pass == 1 && !strcmp(fstype, "cgroup") &&
				 strstr(opts, "name=systemd"))
				snprintf(roots[nr++], PATH_MAX, "%s", mnt);
		}
		fclose(f);
	}
	free(line);
	return nr;
}

int cgroup_resolve(const char *arg, char *dir, size_t len)
{
	char roots[CGROUP_MAX_ROOTS][PATH_MAX];
	int nr, i;

	if (is_cgroup_dir(arg)) {
		snprintf(dir, len, "%s", arg);
		return 0;
	}
	nr = cgroup_roots(roots, CGROUP_MAX_ROOTS);
	for (i = 0; i < nr; i++) {
		if (snprintf(dir, len, "%s/%s", roots[i], arg + (arg[0] == '/')) < (int)len &&
		    is_cgroup_dir(dir))
			return 0;
	}
	errno = ENOENT;
	return -1;
}

struct find_arg {
	const char *name;
	char *out;
	size_t len;
};

static int match_dir(const char *dir, bool top, void *arg)
{
	struct find_arg *f = arg;
	const char *base = strrchr(dir, '/');

	if (top || strcmp(base ? base + 1 : dir, f->name))
		return 0;
	snprintf(f->out, f->len, "%s", dir);
	return 1;
}

/*
 * Depth-first search below @dir for a directory called @name, not
 * descending into @skip (NULL: none) right below @dir.  Returns 1 if
 * found (in @out), else 0.
 */
static int find_dir(const char *dir, const char *name, const char *skip, char *out, size_t len)
{
	struct find_arg f = { name, out, len };

	return walk_dirs(dir, skip, true, match_dir, &f) == 1;
}

int cgroup_find_unit(const char *name, char *dir, size_t len)
{
	static const char * const types[] = {
		".service", ".scope", ".slice", ".socket", ".mount", ".swap",
	};
	char roots[CGROUP_MAX_ROOTS][PATH_MAX], unit[256], sys[PATH_MAX];
	const char *dot = strrchr(name, '.');
	size_t i;
	int nr, r;

	if (!name[0] || name[0] == '.' || strchr(name, '/') || strlen(name) > 200) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; dot && i < ARRAY_SIZE(types); i++)
		if (!strcmp(dot, types[i]))
			break;
	snprintf(unit, sizeof(unit), "%s%s", name, dot && i < ARRAY_SIZE(types) ? "" : ".service");
	nr = cgroup_roots(roots, CGROUP_MAX_ROOTS);
	/*
	 * The system's units first: a user manager may run a unit of the
	 * same name (user.slice/user@1000.service/app.slice/dbus.service).
	 */
	for (r = 0; r < nr; r++)
		if (snprintf(sys, sizeof(sys), "%s/system.slice", roots[r]) < (int)sizeof(sys) &&
		    find_dir(sys, unit, NULL, dir, len))
			return 0;
	for (r = 0; r < nr; r++)
		if (find_dir(roots[r], unit, "system.slice", dir, len))
			return 0;
	errno = ENOENT;
	return -1;
}

void proc_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	size_t n;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	/* A name may hold a newline: only the last one ends it. */
	n = fread(buf, 1, len - 1, f);
	if (n && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	fclose(f);
}
