// SPDX-License-Identifier: GPL-2.0
/* "exec_folio_ctl report": how the text of processes is backed. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static unsigned long long pages_kb(const struct report_opts *o, uint64_t pages)
{
	return (unsigned long long)(pages << o->page_shift) >> 10;
}

static unsigned long long order_kb(const struct report_opts *o, unsigned int order)
{
	return (1ULL << (order + o->page_shift)) >> 10;
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

/* A JSON string: paths may hold quotes, control characters, any byte. */
static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

static void print_counts(const struct report_opts *o, FILE *out,
			 const struct folio_counts *c)
{
	if (o->json) {
		struct json_ctx j = { out, 0 };

		fprintf(out, "{\"resident_kb\": %llu, \"counters\": {",
			pages_kb(o, c->resident));
		report_counters(o, "file", c, emit_json, &j);
		fputs("}}", out);
	} else {
		fprintf(out, "  file-resident:%21s%10llu kB\n", "", pages_kb(o, c->resident));
		report_counters(o, "file", c, emit_text, out);
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

	if (o->json) {
		fprintf(pw->out,
			"%s\n      {\"start\": \"0x%lx\", \"end\": \"0x%lx\", \"perms\": \"%s\", \"offset\": \"0x%llx\", \"path\": ",
			pw->nr_maps ? "," : "", vma->start, vma->end, vma->perms,
			vma->pgoff);
		json_string(pw->out, vma->path);
		fputs(", \"text\": ", pw->out);
		print_counts(o, pw->out, &one.file);
		fputc('}', pw->out);
	} else {
		fprintf(pw->out, "%d: %016lx-%016lx %s %08llx %s\n", (int)pw->pid,
			vma->start, vma->end, vma->perms, vma->pgoff, vma->path);
		print_counts(o, pw->out, &one.file);
	}
	pw->nr_maps++;
	return 0;
}

/* One process; 0, or -1 with errno set if it could not be read. */
static int report_pid(const struct report_opts *o, pid_t pid, FILE *out,
		      struct folio_report *total, int *nr_json)
{
	struct proc_walk pw = { .o = o, .out = out, .pid = pid };
	int ret;

	pw.fw.page_shift = o->page_shift;
	pw.fw.pmd_order = o->pmd_order;
	pw.fw.nr_cont = 1;
	pw.fw.cont_orders[0] = o->cont_order;
	if (folio_walk_open(&pw.fw, pid))
		return -1;
	if (o->json)
		fprintf(out, "%s\n    {\"pid\": %d, \"mappings\": [", (*nr_json)++ ? "," : "",
			(int)pid);
	ret = smaps_foreach(pid, walk_text, &pw);
	folio_walk_close(&pw.fw);
	if (o->json) {
		fputs("],\n     \"rollup\": ", out);
		print_counts(o, out, &pw.sum.file);
		fputc('}', out);
	} else if (pw.nr_maps) {
		fprintf(out, "%d: rollup of %d text mapping%s\n", (int)pid, pw.nr_maps,
			pw.nr_maps == 1 ? "" : "s");
		print_counts(o, out, &pw.sum.file);
	}
	folio_report_add(total, &pw.sum);
	return ret ? -1 : 0;
}

int report_run(const struct report_opts *o, const pid_t *pids, int nr, FILE *out)
{
	struct folio_report total = { 0 };
	int ret = 0, nr_json = 0, nr_procs = 0;

	if (o->json)
		fputs("{\"processes\": [", out);
	if (pids) {
		for (int i = 0; i < nr; i++) {
			if (report_pid(o, pids[i], out, &total, &nr_json)) {
				fprintf(stderr, "exec_folio_ctl: cannot read process %d: %s\n",
					(int)pids[i], strerror(errno));
				ret = 1;
			}
			nr_procs++;
		}
	} else {
		DIR *d = opendir("/proc");
		struct dirent *de;

		if (!d) {
			fprintf(stderr, "exec_folio_ctl: cannot read /proc: %s\n",
				strerror(errno));
			return 1;
		}
		while ((de = readdir(d))) {
			char *end;
			long pid = strtol(de->d_name, &end, 10);

			if (!isdigit((unsigned char)de->d_name[0]) || *end || pid <= 0)
				continue;
			/* Processes come and go; kernel threads have no text. */
			if (report_pid(o, (pid_t)pid, out, &total, &nr_json) == 0)
				nr_procs++;
		}
		closedir(d);
	}
	if (o->json) {
		fputs("\n  ],\n  \"rollup\": ", out);
		print_counts(o, out, &total.file);
		fputs("}\n", out);
	} else if (nr_procs > 1) {
		fprintf(out, "all %d processes: rollup\n", nr_procs);
		print_counts(o, out, &total.file);
	}
	return ret;
}
