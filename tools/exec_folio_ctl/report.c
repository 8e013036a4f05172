// SPDX-License-Identifier: GPL-2.0
/* "exec_folio_ctl report": how the text of processes is backed. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "procs.h"
#include "report.h"
#include "util.h"

/* Unreadable processes named one by one on stderr; the rest are counted. */
#define REPORT_MAX_NAMED	10

/* The error of the first write to the report's output that failed; 0: none. */
static int out_errno;

/* Has writing @out failed?  Called right after each write, errno is its own. */
static bool out_failed(FILE *out)
{
	if (!ferror(out))
		return false;
	if (!out_errno)
		out_errno = errno ? errno : EIO;
	return true;
}

static unsigned long long pages_kb(const struct report_opts *o, uint64_t pages)
{
	return (unsigned long long)(pages << o->page_shift) >> 10;
}

static unsigned long long order_kb(const struct report_opts *o, unsigned int order)
{
	return (1ULL << (order + o->page_shift)) >> 10;
}

unsigned long long report_translations(const struct report_opts *o,
				       const struct folio_counts *c)
{
	uint64_t rest = c->resident, n = 0;

	if (c->pmd_mapped <= rest) {
		n += c->pmd_mapped >> o->pmd_order;
		rest -= c->pmd_mapped;
	}
	if (o->contpte && c->cont[0] <= rest) {
		n += c->cont[0] >> o->cont_order;
		rest -= c->cont[0];
	}
	return n + rest;
}

typedef void (*emit_fn)(const char *key, uint64_t kb, double pct, void *arg);

/* One counter, if it is not zero. */
static void emit_nonzero(const struct report_opts *o, const struct folio_counts *c,
			 uint64_t pages, const char *key, emit_fn emit, void *arg)
{
	if (pages)
		emit(key, pages_kb(o, pages), folio_percent(c, pages), arg);
}

/*
 * Call @emit for each counter of @c that is not zero, with the names
 * tools/mm/thpmaps gives them ("file-thp-pte-aligned-64kB", ...) and our
 * own "file-base-page" for pages not in a large folio; @kind is "file" or
 * "anon".  The percentage is of the resident pages.
 */
static void report_counters(const struct report_opts *o, const char *kind,
			    const struct folio_counts *c, emit_fn emit, void *arg)
{
	unsigned long long cont_kb = order_kb(o, o->cont_order);
	char key[64];
	unsigned int ord;

	snprintf(key, sizeof(key), "%s-base-page", kind);
	emit_nonzero(o, c, c->small, key, emit, arg);
	for (ord = 1; ord <= o->pmd_order && ord <= FW_MAX_ORDER; ord++) {
		snprintf(key, sizeof(key), "%s-thp-pte-aligned-%llukB", kind, order_kb(o, ord));
		emit_nonzero(o, c, c->aligned[ord], key, emit, arg);
	}
	for (ord = 1; ord <= o->pmd_order && ord <= FW_MAX_ORDER; ord++) {
		snprintf(key, sizeof(key), "%s-thp-pte-unaligned-%llukB", kind, order_kb(o, ord));
		emit_nonzero(o, c, c->unaligned[ord], key, emit, arg);
	}
	snprintf(key, sizeof(key), "%s-thp-pte-partial", kind);
	emit_nonzero(o, c, c->partial, key, emit, arg);
	snprintf(key, sizeof(key), "%s-thp-pmd-aligned-%llukB", kind, order_kb(o, o->pmd_order));
	emit_nonzero(o, c, c->pmd_mapped, key, emit, arg);
	snprintf(key, sizeof(key), "%s-cont-pte-aligned-%llukB", kind, cont_kb);
	emit_nonzero(o, c, c->cont[0], key, emit, arg);
	snprintf(key, sizeof(key), "%s-cont-pmd-aligned-%llukB", kind, cont_kb);
	emit_nonzero(o, c, c->pmd_mapped, key, emit, arg);
}

/* The layout of thpmaps: "file-thp-pte-aligned-64kB:   1024 kB ( 34%)". */
static void emit_text(const char *key, uint64_t kb, double pct, void *arg)
{
	fprintf(arg, "  %s:%*s%10llu kB (%5.1f%%)\n", key, (int)(34 - strlen(key)), "",
		(unsigned long long)kb, pct);
}

struct json_ctx {
	FILE *out;
	int n;
};

static void emit_json(const char *key, uint64_t kb, double pct, void *arg)
{
	struct json_ctx *j = arg;

	(void)pct;
	fprintf(j->out, "%s\"%s\": %llu", j->n++ ? ", " : "", key,
		(unsigned long long)kb);
}

/* The folios of each size: [{"size": 65536, "kb": ..., "share": ...}, ...] */
static void json_folios(const struct report_opts *o, FILE *out, const struct folio_counts *c)
{
	unsigned int ord;
	int n = 0;

	fputs("\"folios\": [", out);
	for (ord = 1; ord <= o->pmd_order && ord <= FW_MAX_ORDER; ord++) {
		uint64_t pmd = ord == o->pmd_order ? c->pmd_mapped : 0;
		uint64_t all = c->aligned[ord] + c->unaligned[ord] + pmd;

		if (!all)
			continue;
		fprintf(out,
			"%s{\"size\": %llu, \"kb\": %llu, \"share\": %.1f, \"aligned_kb\": %llu, \"unaligned_kb\": %llu, \"pmd_mapped_kb\": %llu}",
			n++ ? ", " : "", order_kb(o, ord) << 10, pages_kb(o, all),
			folio_percent(c, all), pages_kb(o, c->aligned[ord]),
			pages_kb(o, c->unaligned[ord]), pages_kb(o, pmd));
	}
	fputs("]", out);
}

static void print_counts(const struct report_opts *o, FILE *out,
			 const struct folio_counts *c)
{
	if (o->json) {
		struct json_ctx j = { out, 0 };

		fprintf(out,
			"{\"resident_kb\": %llu, \"base_pages_kb\": %llu, \"base_pages_share\": %.1f, \"partial_kb\": %llu, \"pmd_mapped_kb\": %llu, \"pmd_mapped_share\": %.1f, \"cont_kb\": %llu, \"cont_share\": %.1f, \"translations\": %llu, \"translations_base_pages\": %llu, ",
			pages_kb(o, c->resident), pages_kb(o, c->small),
			folio_percent(c, c->small), pages_kb(o, c->partial),
			pages_kb(o, c->pmd_mapped), folio_percent(c, c->pmd_mapped),
			pages_kb(o, c->cont[0]), folio_percent(c, c->cont[0]),
			report_translations(o, c), (unsigned long long)c->resident);
		json_folios(o, out, c);
		fputs(", \"counters\": {", out);
		report_counters(o, "file", c, emit_json, &j);
		fputs("}}", out);
	} else {
		fprintf(out, "  file-resident:%21s%10llu kB\n", "", pages_kb(o, c->resident));
		report_counters(o, "file", c, emit_text, out);
		fprintf(out, "  translations:%22s%10llu (%llu in base pages)\n", "",
			report_translations(o, c), (unsigned long long)c->resident);
	}
}

struct proc_walk {
	const struct report_opts *o;
	struct folio_walk fw;
	struct folio_report sum;
	FILE *out;
	pid_t pid;
	int nr_maps;
};

static int walk_text(const struct vma_info *vma, void *arg)
{
	struct proc_walk *pw = arg;
	const struct report_opts *o = pw->o;
	struct folio_report one = { 0 };

	/* Executable mappings of files: text. */
	if (vma->perms[2] != 'x' || vma->path[0] != '/')
		return 0;
	if (folio_walk_vma(&pw->fw, vma, &one))
		return -1;
	folio_report_add(&pw->sum, &one);
	if (o->rollup_only)
		return 0;
	if (o->json) {
		fprintf(pw->out,
			"%s\n      {\"start\": \"0x%lx\", \"end\": \"0x%lx\", \"perms\": \"%s\", \"offset\": \"0x%llx\", \"path\": ",
			pw->nr_maps ? "," : "", vma->start, vma->end, vma->perms,
			vma->pgoff);
		json_string(pw->out, vma->path);
		if (vma->path_truncated)
			fputs(", \"path_truncated\": true", pw->out);
		fputs(", \"text\": ", pw->out);
		print_counts(o, pw->out, &one.file);
		fputc('}', pw->out);
	} else {
		fprintf(pw->out, "%d: %016lx-%016lx %s %08llx %s%s\n", (int)pw->pid,
			vma->start, vma->end, vma->perms, vma->pgoff, vma->path,
			vma->path_truncated ? " (path truncated)" : "");
		print_counts(o, pw->out, &one.file);
	}
	pw->nr_maps++;
	return 0;
}

#define PF_KTHREAD	0x00200000	/* the kernel's flag for a kernel thread */

/*
 * The state letter of @pid from /proc/@pid/stat ('R', 'S', 'Z', ...) and
 * its flags; 0 if it is gone.
 */
static char proc_state(pid_t pid, unsigned long *flags)
{
	char path[64], buf[1024], *paren, state;
	size_t n;
	FILE *f;

	*flags = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) S ppid pgrp session tty tpgid flags ...": comm may hold ')'. */
	paren = strrchr(buf, ')');
	if (!paren || sscanf(paren + 1, " %c %*d %*d %*d %*d %*d %lu", &state, flags) != 2)
		return 0;
	return state;
}

/* A kernel thread: no user memory, so no text to report. */
static bool kernel_thread(pid_t pid)
{
	unsigned long flags;

	return proc_state(pid, &flags) && (flags & PF_KTHREAD);
}

/* Did @pid exit (or become a zombie) since it was listed? */
static bool vanished(pid_t pid)
{
	unsigned long flags;
	char state = proc_state(pid, &flags);

	return !state || state == 'Z' || state == 'X';
}

/*
 * One process, written to @out only if all of it could be read.
 * Returns 0, 1 for a kernel thread (nothing to report), or -1 with
 * errno set.
 */
static int report_pid(const struct report_opts *o, pid_t pid, FILE *out,
		      struct folio_report *total, int *nr_json, struct fw_flags_cache *cache)
{
	struct proc_walk pw = { .o = o, .pid = pid };
	char *buf = NULL, name[64];
	size_t len = 0;
	int ret, err;

	pw.fw.page_shift = o->page_shift;
	pw.fw.pmd_order = o->pmd_order;
	pw.fw.nr_cont = 1;
	pw.fw.cont_orders[0] = o->cont_order;
	pw.fw.cache = cache;
	pw.fw.no_scan = o->no_scan;
	if (folio_walk_open(&pw.fw, pid)) {
		err = errno;
		if (err == ESRCH && kernel_thread(pid))
			return 1;
		errno = err;
		return -1;
	}
	pw.out = open_memstream(&buf, &len);
	if (!pw.out) {
		err = errno;
		folio_walk_close(&pw.fw);
		errno = err;
		return -1;
	}
	if (o->json && !o->rollup_only) {
		proc_comm(pid, name, sizeof(name));
		fprintf(pw.out, "%s\n    {\"pid\": %d, \"name\": ", *nr_json ? "," : "", (int)pid);
		json_string(pw.out, name);
		fputs(", \"mappings\": [", pw.out);
	}
	ret = o->maps ? maps_foreach(pid, walk_text, &pw) : smaps_foreach(pid, walk_text, &pw);
	err = errno;
	folio_walk_close(&pw.fw);
	if (o->rollup_only) {
		/* only the sum */
	} else if (o->json) {
		fputs("],\n     \"rollup\": ", pw.out);
		print_counts(o, pw.out, &pw.sum.file);
		fputc('}', pw.out);
	} else if (pw.nr_maps) {
		fprintf(pw.out, "%d: rollup of %d text mapping%s\n", (int)pid, pw.nr_maps,
			pw.nr_maps == 1 ? "" : "s");
		print_counts(o, pw.out, &pw.sum.file);
	}
	if (fclose(pw.out) && !ret) {
		err = errno;
		ret = -1;
	}
	if (!ret) {
		fwrite(buf, 1, len, out);
		out_failed(out);
		folio_report_add(total, &pw.sum);
		if (o->json && !o->rollup_only)
			(*nr_json)++;
	}
	free(buf);
	errno = err;
	return ret ? -1 : 0;
}

struct skips {
	int vanished;
	int unreadable;
	pid_t pids[REPORT_MAX_NAMED];
	int errs[REPORT_MAX_NAMED];
};

static void skip_pid(struct skips *s, pid_t pid, int err)
{
	if (err == ESRCH || err == ENOENT || vanished(pid)) {
		s->vanished++;
		return;
	}
	if (s->unreadable < REPORT_MAX_NAMED) {
		s->pids[s->unreadable] = pid;
		s->errs[s->unreadable] = err;
	}
	s->unreadable++;
}

static void print_skips(const struct report_opts *o, const struct skips *s, FILE *out)
{
	int i, named = s->unreadable < REPORT_MAX_NAMED ? s->unreadable : REPORT_MAX_NAMED;

	if (o->json) {
		fprintf(out,
			",\n  \"skipped\": {\"vanished\": %d, \"unreadable\": %d, \"unreadable_pids\": [",
			s->vanished, s->unreadable);
		for (i = 0; i < named; i++) {
			fprintf(out, "%s{\"pid\": %d, \"error\": ", i ? ", " : "", (int)s->pids[i]);
			json_string(out, strerror(s->errs[i]));
			fputc('}', out);
		}
		fputs("]}", out);
	} else if (s->vanished) {
		/* No error: the JSON carries the count, the text says it here. */
		fprintf(stderr, "exec_folio_ctl: skipped %d process%s that exited\n",
			s->vanished, s->vanished == 1 ? "" : "es");
	}
	if (!s->unreadable)
		return;
	fprintf(stderr, "exec_folio_ctl: skipped %d unreadable process%s:", s->unreadable,
		s->unreadable == 1 ? "" : "es");
	for (i = 0; i < named; i++)
		fprintf(stderr, "%s %d (%s)", i ? "," : "", (int)s->pids[i], strerror(s->errs[i]));
	fprintf(stderr, "%s\n", s->unreadable > named ? ", ..." : "");
}

struct run {
	const struct report_opts *o;
	FILE *out;
	struct folio_report total;
	struct skips skips;
	struct fw_flags_cache *cache;
	int nr_json, nr_procs, failed;
};

/*
 * One process, read again if it exec'd while it was read.  One found by
 * listing (--all, a cgroup) that cannot be read is skipped and counted,
 * as it may have exited since; one named by the user is an error.
 */
static void report_one(struct run *r, pid_t pid, bool listed)
{
	int ret = report_pid(r->o, pid, r->out, &r->total, &r->nr_json, r->cache);

	/* Its address space went away, but not the process: it exec'd. */
	if (ret < 0 && errno == ESRCH && !vanished(pid))
		ret = report_pid(r->o, pid, r->out, &r->total, &r->nr_json, r->cache);
	if (ret == 0) {
		r->nr_procs++;
	} else if (ret < 0 && errno == ENOMEM) {
		/* This program's memory, not the process: never "unreadable". */
		fprintf(stderr, "exec_folio_ctl: out of memory reading process %d\n", (int)pid);
		r->failed = 1;
	} else if (ret < 0 && listed) {
		skip_pid(&r->skips, pid, errno);
	} else if (ret < 0) {
		int err = errno;
		unsigned long flags;
		char state = proc_state(pid, &flags);

		/*
		 * The true cause: no such process (kill() knows, whatever
		 * /proc shows), one hidden by /proc's hidepid=, or one that
		 * has exited.
		 */
		if (!state && kill(pid, 0) && errno == ESRCH)
			fprintf(stderr, "exec_folio_ctl: no process %d\n", (int)pid);
		else if (!state && err == ENOENT)
			fprintf(stderr,
				"exec_folio_ctl: cannot read process %d: not in /proc for this user (mounted with hidepid=?)\n",
				(int)pid);
		else if (state == 'Z' || state == 'X')
			fprintf(stderr,
				"exec_folio_ctl: process %d has exited (a zombie): no memory to report\n",
				(int)pid);
		else
			fprintf(stderr, "exec_folio_ctl: cannot read process %d: %s\n",
				(int)pid, strerror(err));
		r->failed = 1;
	}
}

/* Every process in /proc; 0, or -1 if /proc cannot be read. */
static int report_all(struct run *r)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d) {
		fprintf(stderr, "exec_folio_ctl: cannot read /proc: %s\n", strerror(errno));
		return -1;
	}
	/* Once the output has failed, reading more processes is for nothing. */
	while (!out_errno && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (isdigit((unsigned char)de->d_name[0]) && !*end && pid > 0)
			report_one(r, (pid_t)pid, true);
	}
	closedir(d);
	return 0;
}

int report_run(const struct report_opts *o, const struct pid_list *pl, FILE *out)
{
	/* Without memory for the cache, only slower. */
	struct run r = { .o = o, .out = out, .cache = folio_walk_cache_new() };

	if (o->json)
		fprintf(out,
			"{\"schema\": \"exec-folio-report\", \"version\": %d, \"page_size\": %llu, \"pmd_size\": %llu, \"cont_size\": %llu,\n  \"processes\": [",
			JSON_SCHEMA_VERSION, 1ULL << o->page_shift,
			1ULL << (o->page_shift + o->pmd_order),
			1ULL << (o->page_shift + o->cont_order));
	if (!pl && report_all(&r)) {
		folio_walk_cache_free(r.cache);
		return 1;
	}
	for (size_t i = 0; pl && i < pl->nr && !out_errno; i++)
		report_one(&r, pl->pids[i], pl->listed[i]);
	if (out_errno) {
		folio_walk_cache_free(r.cache);
		errno = out_errno;
		return -1;
	}
	if (o->json) {
		fprintf(out, "\n  ],\n  \"processes_reported\": %d", r.nr_procs);
		print_skips(o, &r.skips, out);
		fputs(",\n  \"rollup\": ", out);
		print_counts(o, out, &r.total.file);
		fputs("}\n", out);
	} else {
		print_skips(o, &r.skips, out);
		if (r.nr_procs > 1 || o->rollup_only) {
			fprintf(out, "all %d process%s: rollup\n", r.nr_procs,
				r.nr_procs == 1 ? "" : "es");
			print_counts(o, out, &r.total.file);
		}
	}
	folio_walk_cache_free(r.cache);
	if (out_failed(out)) {
		errno = out_errno;
		return -1;
	}
	return r.failed || r.skips.unreadable;
}
