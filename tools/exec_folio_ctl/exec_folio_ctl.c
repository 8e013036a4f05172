// SPDX-License-Identifier: GPL-2.0
/*
 * exec_folio_ctl - show and set the exec folio policy, run a command
 * under a policy of its own, and report how the text of processes is
 * backed by folios.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "conf.h"
#include "folio_walk.h"
#include "policy.h"
#include "report.h"
#include "util.h"

#define PROG		"exec_folio_ctl"
#define VERSION		"0.1"

/* Exit status for a kernel without the exec folio policy. */
#define EXIT_NO_KERNEL_SUPPORT	2
#define EXIT_CANNOT_RUN		126
#define EXIT_NOT_FOUND		127

/* "prog: message" on stderr, then exit with @status. */
static noreturn void die(int status, const char *fmt, ...)
	__attribute__
	((format(printf, 2, 3)));

static noreturn void die(int status, const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static noreturn void try_help(void)
{
	die(EXIT_FAILURE, "try '" PROG " --help' for more information");
}

static noreturn void usage(void)
{
	static const char * const lines[] = {
		"Usage:",
		"  status [--pid PID]...",
		"  set MODE|SIZE",
		"  exec (--mode MODE | --size SIZE | --order N) [--] COMMAND [ARG]...",
		"  report (--pid PID... | --all) [--json] [--cont SIZE]",
		"  apply [FILE]",
		"",
		"Show and set the page-cache folio size that program text is read into,",
		"run a command with its own setting, and report how text is backed.",
		"",
		"Commands:",
		" status        the global policy, the accepted values, page and PMD size,",
		"               and with --pid the setting of processes",
		" set           set the global policy (root)",
		" exec          run COMMAND with its own policy, inherited by its children",
		" report        how the executable mappings of processes are backed by",
		"               folios (root)",
		" apply         apply a configuration file (default )",
		"",
		"Options:",
		" -p, --pid PID     a process (status, report; may be repeated)",
		" -a, --all         every process (report)",
		" -j, --json        JSON output (report)",
		" -c, --cont SIZE   count contiguous blocks of SIZE (report;\n"
		"                   default: the contpte block, 64K or 2M on arm64)",
		" -m, --mode MODE   inherit, never, arch or auto (exec)",
		" -s, --size SIZE   an explicit folio size (exec)",
		" -o, --order N     an explicit folio order (exec)",
		" -h, --help        display this help",
		" -V, --version     display version",
		"",
		"MODE is never, arch or auto; SIZE is a folio size such as 64K, 2M,",
		"65536 or 64KiB.  See exec_folio_ctl(8).",
	};

	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		puts(lines[i]);
	exit(EXIT_SUCCESS);
}

static unsigned long page_size(void)
{
	return (unsigned long)sysconf(_SC_PAGESIZE);
}

static unsigned int page_shift(void)
{
	return __builtin_ctzl(page_size());
}

static void read_knob_or_die(struct knob_state *st)
{
	if (knob_read(st) == 0)
		return;
	if (errno == ENOENT)
		die(EXIT_NO_KERNEL_SUPPORT, "this kernel has no exec folio policy (%s: %s)",
		    EXEC_ORDER_KNOB, strerror(errno));
	die(EXIT_FAILURE, "cannot read %s: %s", EXEC_ORDER_KNOB, strerror(errno));
}

static pid_t parse_pid(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > 0x3fffffff)
		die(EXIT_FAILURE, "invalid PID '%s'", s);
	return (pid_t)v;
}

/* After a command's options: nothing may be left. */
static void no_more_args(int argc, char **argv, const char *cmd)
{
	if (optind != argc)
		die(EXIT_FAILURE, "%s: unexpected argument '%s'", cmd, argv[optind]);
}

static int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char list[512], size[32];
	struct knob_state st;
	pid_t pids[64];
	int nr = 0, c, pmd;

	while ((c = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (nr == (int)ARRAY_SIZE(pids))
				die(EXIT_FAILURE, "too many --pid options");
			pids[nr++] = parse_pid(optarg);
			break;
		case 'h':
			usage();
		default:
			try_help();
		}
	}
	no_more_args(argc, argv, "status");

	read_knob_or_die(&st);
	knob_list(&st, list, sizeof(list));
	printf("exec_order: %s\n", st.words[st.active]);
	printf("accepted:   %s\n", list);
	format_size(page_size(), size, sizeof(size));
	printf("page size:  %s\n", size);
	pmd = folio_walk_pmd_order(page_shift());
	if (pmd >= 0) {
		format_size((unsigned long long)page_size() << pmd, size, sizeof(size));
		printf("PMD size:   %s\n", size);
	}
	for (int i = 0; i < nr; i++) {
		char word[KNOB_WORD_LEN];

		if (proc_policy_word(pids[i], word, sizeof(word))) {
			if (errno == ENODATA)
				die(EXIT_NO_KERNEL_SUPPORT,
				    "process %d: no ExecFolioOrder in /proc/%d/status",
				    (int)pids[i], (int)pids[i]);
			die(EXIT_FAILURE, "cannot read /proc/%d/status: %s",
			    (int)pids[i], strerror(errno));
		}
		printf("pid %d:%*s%s\n", (int)pids[i], pids[i] < 10 ? 5 : 1, "", word);
	}
	return EXIT_SUCCESS;
}

static int cmd_set(int argc, char **argv)
{
	char word[KNOB_WORD_LEN], list[512];
	struct knob_state st;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		usage();
	if (argc != 2)
		die(EXIT_FAILURE, "set: expected one MODE or SIZE");
	read_knob_or_die(&st);
	knob_list(&st, list, sizeof(list));
	if (normalize_word(argv[1], word, sizeof(word)) || knob_find(&st, word) < 0)
		die(EXIT_FAILURE, "'%s' is not accepted by this kernel; accepted: %s",
		    argv[1], list);
	if (geteuid() != 0)
		die(EXIT_FAILURE, "set: changing the global policy needs root");
	if (knob_write(word))
		die(EXIT_FAILURE, "cannot write '%s' to %s: %s", word, EXEC_ORDER_KNOB,
		    strerror(errno));
	return EXIT_SUCCESS;
}

/* The order of an explicit folio size, -1 if it is no power-of-two pages. */
static int size_order(unsigned long long bytes)
{
	unsigned long long pages;

	if (bytes % page_size())
		return -1;
	pages = bytes / page_size();
	if (pages & (pages - 1))
		return -1;
	return __builtin_ctzll(pages);
}

static void prctl_or_die(unsigned long mode, unsigned long order, const char *what)
{
	if (prctl(PR_SET_EXEC_FOLIO_ORDER, mode, order, 0, 0) == 0)
		return;
	if (errno == EINVAL && prctl(PR_GET_EXEC_FOLIO_ORDER, 0, 0, 0, 0) < 0)
		die(EXIT_NO_KERNEL_SUPPORT, "this kernel has no per-process exec folio policy");
	die(EXIT_FAILURE, "the kernel refused %s: %s", what, strerror(errno));
}

static int cmd_exec(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 's' },
		{ "order", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long mode = 0, order = 0;
	unsigned long long bytes;
	const char *what = NULL;
	char *end;
	int c, set = 0;

	/* '+': options stop at the command, whose own options are its own. */
	while ((c = getopt_long(argc, argv, "+m:s:o:h", opts, NULL)) != -1) {
		int m;

		if (c != 'h' && c != '?' && set++)
			die(EXIT_FAILURE, "exec: give only one of --mode, --size, --order");
		switch (c) {
		case 'm':
			m = mode_from_word(optarg);
			if (m < 0)
				die(EXIT_FAILURE,
				    "exec: invalid mode '%s' (inherit, never, arch, auto)",
				    optarg);
			mode = m;
			break;
		case 's':
			if (parse_size(optarg, &bytes) || size_order(bytes) < 0)
				die(EXIT_FAILURE,
				    "exec: invalid size '%s' (a power-of-two number of pages)",
				    optarg);
			mode = PR_EXEC_FOLIO_ORDER;
			order = size_order(bytes);
			break;
		case 'o':
			errno = 0;
			order = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || order > 63)
				die(EXIT_FAILURE, "exec: invalid order '%s'", optarg);
			mode = PR_EXEC_FOLIO_ORDER;
			break;
		case 'h':
			usage();
		default:
			try_help();
		}
		what = optarg;
	}
	if (!set)
		die(EXIT_FAILURE, "exec: give --mode, --size or --order");
	if (optind >= argc)
		die(EXIT_FAILURE, "exec: no command given");

	prctl_or_die(mode, order, what);
	execvp(argv[optind], argv + optind);
	die(errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN,
	    "failed to execute %s: %s", argv[optind], strerror(errno));
}

static int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "cont", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts o = { .page_shift = page_shift() };
	unsigned long long bytes = page_size() <<
				   folio_walk_contpte_order(o.page_shift);
	int c, nr = 0, all = 0, pmd, ret;
	pid_t *pids = calloc(argc, sizeof(*pids));

	if (!pids)
		die(EXIT_FAILURE, "out of memory");
	while ((c = getopt_long(argc, argv, "p:ajc:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pids[nr++] = parse_pid(optarg);
			break;
		case 'a':
			all = 1;
			break;
		case 'j':
			o.json = true;
			break;
		case 'c':
			if (parse_size(optarg, &bytes) || size_order(bytes) < 1)
				die(EXIT_FAILURE, "report: invalid --cont size '%s'", optarg);
			break;
		case 'h':
			usage();
		default:
			try_help();
		}
	}
	no_more_args(argc, argv, "report");
	if (!nr == !all)
		die(EXIT_FAILURE, "report: give --pid PID or --all");
	if (geteuid() != 0)
		die(EXIT_FAILURE, "report needs root: pagemap shows page frames only to root");
	pmd = folio_walk_pmd_order(o.page_shift);
	if (pmd < 0)
		die(EXIT_FAILURE, "cannot read the PMD size: %s", strerror(errno));
	o.pmd_order = pmd;
	o.cont_order = size_order(bytes);
	if (o.cont_order > o.pmd_order)
		die(EXIT_FAILURE, "report: --cont size is larger than a PMD");
	if (access("/proc/kpageflags", R_OK))
		die(EXIT_FAILURE, "cannot read /proc/kpageflags: %s", strerror(errno));
	ret = report_run(&o, all ? NULL : pids, nr, stdout);
	free(pids);
	return ret;
}

static int cmd_apply(int argc, char **argv)
{
	const char *path = CONF_DEFAULT_PATH;
	struct knob_state st;
	char list[512];
	struct conf conf;
	int bad;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		usage();
	if (argc > 2)
		die(EXIT_FAILURE, "apply: expected at most one FILE");
	if (argc == 2)
		path = argv[1];
	bad = conf_load(path, &conf, stderr);
	if (bad < 0)
		die(EXIT_FAILURE, "cannot read %s: %s", path, strerror(errno));
	if (bad)
		die(EXIT_FAILURE, "%s: %d bad line%s, nothing applied", path, bad,
		    bad == 1 ? "" : "s");
	if (!conf.exec_order[0])
		return EXIT_SUCCESS;
	read_knob_or_die(&st);
	knob_list(&st, list, sizeof(list));
	if (knob_find(&st, conf.exec_order) < 0)
		die(EXIT_FAILURE,
		    "%s:%d: '%s' is not accepted by this kernel (accepted: %s), nothing applied",
		    path, conf.exec_order_line, conf.exec_order, list);
	if (geteuid() != 0)
		die(EXIT_FAILURE, "apply: changing the global policy needs root");
	if (knob_write(conf.exec_order))
		die(EXIT_FAILURE, "cannot write '%s' to %s: %s", conf.exec_order,
		    EXEC_ORDER_KNOB, strerror(errno));
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "status", cmd_status },
		{ "set", cmd_set },
		{ "exec", cmd_exec },
		{ "report", cmd_report },
		{ "apply", cmd_apply },
	};

	if (argc < 2)
		die(EXIT_FAILURE, "no command given; try '" PROG " --help'");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		usage();
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf(PROG " from exec-folio " VERSION "\n");
		return EXIT_SUCCESS;
	}
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	die(EXIT_FAILURE, "unknown command '%s'; try '" PROG " --help'", argv[1]);
}
