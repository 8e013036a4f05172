// SPDX-License-Identifier: GPL-2.0
/*
 * exec_folio_ctl - show and set the exec folio policy, run a command
 * under a policy of its own, and report how the text of processes is
 * backed by folios.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "args.h"
#include "conf.h"
#include "folio_walk.h"
#include "json.h"
#include "policy.h"
#include "procs.h"
#include "report.h"
#include "unit.h"
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

static void warn(const char *fmt, ...)
	__attribute__
	((format(printf, 1, 2)));

static void warn(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The error of the first write to stdout that failed (report's own); 0: none. */
static int stdout_errno;

/*
 * At exit, as util-linux's close_stdout(): whatever went to stdout must
 * have been written, or the exit status is 1 with "write error" and the
 * errno of the first write that failed.  A broken pipe is no error: the
 * reader has gone.
 */
static void close_stdout(void)
{
	int prev = ferror(stdout), err = stdout_errno;

	if ((fclose(stdout) || prev) && !err)
		err = errno;
	if ((prev || err) && err != EPIPE) {
		if (err)
			fprintf(stderr, PROG ": write error: %s\n", strerror(err));
		else
			fputs(PROG ": write error\n", stderr);
		_exit(EXIT_FAILURE);
	}
	if (fclose(stderr))
		_exit(EXIT_FAILURE);
}

/*
 * A standard descriptor that is closed is held by /dev/null, read-only
 * and close-on-exec: nothing opened later takes its number (a drop-in
 * written to where stdout should be), writes to it fail (EBADF, as to a
 * closed one) and a command run by exec gets it closed, as it was given.
 */
static void hold_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDONLY | O_CLOEXEC) != fd)
			_exit(EXIT_FAILURE);
}

static noreturn void try_help(void)
{
	die(EXIT_FAILURE, "try '" PROG " --help' for more information");
}

static noreturn void usage(void)
{
	static const char * const lines[] = {
		"Usage:",
		" " PROG " status [--pid PID]... [--json]",
		" " PROG " set MODE|SIZE",
		" " PROG " exec [--strict] (--mode MODE | --size SIZE | --order N)",
		"                [--] COMMAND [ARG]...",
		" " PROG " report (--pid PID | --cgroup PATH | --unit NAME)... [--rollup] [--json]",
		"                [--cont SIZE]",
		" " PROG " report --all [--rollup] [--json] [--cont SIZE]",
		" " PROG " apply [FILE]",
		" " PROG " enable-unit NAME (--mode MODE | --size SIZE | --order N) [--from FILE]",
		"                [--root DIR] [--print] [--exe PATH]",
		" " PROG " disable-unit NAME [--root DIR]",
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
		"               folios (root: CAP_SYS_ADMIN and read access to /proc/kpageflags)",
		" apply         apply a configuration file (default " CONF_DEFAULT_PATH ")",
		" enable-unit   write the systemd drop-in that runs service NAME under exec",
		" disable-unit  remove that drop-in",
		"",
		"Options:",
		" -p, --pid PID       a process (status, report; may be repeated)",
		" -a, --all           every process (report)",
		" -g, --cgroup PATH   the processes of a cgroup and its children (report)",
		" -u, --unit NAME     the processes of a systemd unit (report)",
		" -r, --rollup        only the sum over all processes (report)",
		" -j, --json          JSON output (status, report)",
		" -c, --cont SIZE     count contiguous blocks of SIZE (report;\n"
		"                     default: the contpte block, 64K or 2M on arm64)",
		" -m, --mode MODE     inherit, never, arch or auto (exec)",
		" -s, --size SIZE     an explicit folio size (exec)",
		" -o, --order N       an explicit folio order (exec)",
		"     --strict        fail if the kernel cannot apply the policy, instead",
		"                     of running COMMAND anyway with a warning (exec)",
		"     --from FILE     the unit as \"systemctl cat NAME\" prints it (enable-unit;",
		"                     default: run systemctl cat)",
		"     --root DIR      write under DIR/etc/systemd/system (enable-unit, disable-unit)",
		"     --print         print the drop-in instead of writing it (enable-unit)",
		"     --exe PATH      the exec_folio_ctl the drop-in runs (enable-unit;\n"
		"                     default: the installed one, else this one)",
		" -h, --help          display this help",
		" -V, --version       display version",
		"",
		"MODE is never, arch or auto; SIZE is a folio size such as 64K, 2M,",
		"65536 or 64KiB (K and KiB are 1024, KB is 1000).  See exec_folio_ctl(8).",
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
		    EXEC_FOLIO_SIZE_KNOB, strerror(errno));
	/* knob_read()'s EPROTO: "Protocol error" would tell an admin nothing. */
	if (errno == EPROTO)
		die(EXIT_FAILURE,
		    "%s: not the exec folio policy's format (\"never [arch] auto 16K ...\"): another kernel's file of that name?",
		    EXEC_FOLIO_SIZE_KNOB);
	die(EXIT_FAILURE, "cannot read %s: %s", EXEC_FOLIO_SIZE_KNOB, strerror(errno));
}

static pid_t parse_pid(const char *s)
{
	pid_t pid;

	if (arg_pid(s, &pid))
		die(EXIT_FAILURE, "invalid PID '%s'", s);
	return pid;
}

/*
 * A path given as an option: an empty one (an unset shell variable) is
 * refused, never taken as the whole machine or the current directory.
 */
static const char *path_arg(const char *cmd, const char *opt, const char *arg)
{
	if (arg_path(arg))
		die(EXIT_FAILURE, "%s: %s needs a path, not an empty string", cmd, opt);
	return arg;
}

/* After a command's options: nothing may be left. */
static void no_more_args(int argc, char **argv)
{
	if (optind != argc)
		die(EXIT_FAILURE, "unexpected argument '%s'", argv[optind]);
}

static void status_json(const struct knob_state *st, const pid_t *pids,
			const char (*words)[KNOB_WORD_LEN], int nr, int pmd)
{
	char name[64];

	printf("{\"schema\": \"exec-folio-status\", \"version\": %d, \"exec_folio_size\": ",
	       JSON_SCHEMA_VERSION);
	json_string(stdout, st->words[st->active]);
	fputs(", \"accepted\": [", stdout);
	for (int i = 0; i < st->nr_words; i++) {
		fputs(i ? ", " : "", stdout);
		json_string(stdout, st->words[i]);
	}
	printf("], \"page_size\": %lu, \"pmd_size\": ", page_size());
	if (pmd >= 0)
		printf("%llu", (unsigned long long)page_size() << pmd);
	else
		fputs("null", stdout);
	fputs(", \"processes\": [", stdout);
	for (int i = 0; i < nr; i++) {
		proc_comm(pids[i], name, sizeof(name));
		printf("%s{\"pid\": %d, \"name\": ", i ? ", " : "", (int)pids[i]);
		json_string(stdout, name);
		fputs(", \"exec_folio_size\": ", stdout);
		json_string(stdout, words[i]);
		fputc('}', stdout);
	}
	fputs("], \"supported\": true}\n", stdout);
}

/*
 * status --json on a kernel without the feature: still one object, that
 * says so and why, for an inventory of a fleet with old kernels.  The
 * knob's error is @err; whether this process's status has the feature's
 * line tells whether the prctl is there (it is never called to find out).
 */
static void status_json_absent(int err, int pmd)
{
	char word[KNOB_WORD_LEN], reason[256];
	bool line = proc_policy_word(getpid(), word, sizeof(word)) == 0;

	printf("{\"schema\": \"exec-folio-status\", \"version\": %d, ",
	       JSON_SCHEMA_VERSION);
	printf("\"exec_folio_size\": null, \"accepted\": [], \"page_size\": %lu, ",
	       page_size());
	fputs("\"pmd_size\": ", stdout);
	if (pmd >= 0)
		printf("%llu", (unsigned long long)page_size() << pmd);
	else
		fputs("null", stdout);
	fputs(", \"processes\": [], \"supported\": false, \"knob\": false, \"prctl\": ", stdout);
	fputs(line ? "true" : "false", stdout);
	fputs(", \"reason\": ", stdout);
	snprintf(reason, sizeof(reason), "no %s (%s)%s", EXEC_FOLIO_SIZE_KNOB, strerror(err),
		 line ? "" : "; no ExecFolioSize in /proc/self/status: no prctl either");
	json_string(stdout, reason);
	fputs("}\n", stdout);
}

static int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char list[512], size[32], words[64][KNOB_WORD_LEN];
	struct knob_state st;
	struct pid_list pl = { 0 };
	int c, pmd, json = 0;

	while ((c = getopt_long(argc, argv, "p:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (pid_list_add(&pl, parse_pid(optarg)))
				die(EXIT_FAILURE, "out of memory");
			if (pl.nr > ARRAY_SIZE(words))
				die(EXIT_FAILURE, "too many --pid options");
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage();
		default:
			try_help();
		}
	}
	no_more_args(argc, argv);

	if (json && knob_read(&st) && errno == ENOENT)
		status_json_absent(errno, folio_walk_pmd_order(page_shift()));
	read_knob_or_die(&st);
	for (size_t i = 0; i < pl.nr; i++) {
		pid_t pid = pl.pids[i];

		if (proc_policy_word(pid, words[i], sizeof(words[i]))) {
			if (errno == ENODATA)
				die(EXIT_NO_KERNEL_SUPPORT,
				    "process %d: no ExecFolioSize in /proc/%d/status",
				    (int)pid, (int)pid);
			int err = errno;

			/* As report says it: missing, or hidden by hidepid=. */
			if (err == ENOENT && kill(pid, 0) && errno == ESRCH)
				die(EXIT_FAILURE, "no process %d", (int)pid);
			if (err == ENOENT)
				die(EXIT_FAILURE,
				    "cannot read /proc/%d/status: not in /proc for this user (mounted with hidepid=?)",
				    (int)pid);
			die(EXIT_FAILURE, "cannot read /proc/%d/status: %s",
			    (int)pid, strerror(err));
		}
	}
	pmd = folio_walk_pmd_order(page_shift());
	if (json) {
		status_json(&st, pl.pids, words, pl.nr, pmd);
		pid_list_free(&pl);
		return EXIT_SUCCESS;
	}
	knob_list(&st, list, sizeof(list));
	printf("exec_folio_size: %s\n", st.words[st.active]);
	printf("accepted:   %s\n", list);
	format_size(page_size(), size, sizeof(size));
	printf("page size:  %s\n", size);
	if (pmd >= 0) {
		format_size((unsigned long long)page_size() << pmd, size, sizeof(size));
		printf("PMD size:   %s\n", size);
	}
	for (size_t i = 0; i < pl.nr; i++)
		printf("pid %d:%*s%s\n", (int)pl.pids[i], pl.pids[i] < 10 ? 5 : 1, "", words[i]);
	pid_list_free(&pl);
	return EXIT_SUCCESS;
}

/* Commands without options of their own: only --help. */
static void only_help(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h')
			usage();
		try_help();
	}
}

static int cmd_set(int argc, char **argv)
{
	char word[KNOB_WORD_LEN], list[512];
	struct knob_state st;
	const char *arg;

	only_help(argc, argv);
	if (argc - optind != 1)
		die(EXIT_FAILURE, "set: expected one MODE or SIZE");
	arg = argv[optind];
	read_knob_or_die(&st);
	knob_list(&st, list, sizeof(list));
	if (normalize_word(arg, word, sizeof(word)) || knob_find(&st, word) < 0)
		die(EXIT_FAILURE, "'%s' is not accepted by this kernel; accepted: %s",
		    arg, list);
	if (geteuid() != 0)
		die(EXIT_FAILURE, "set: changing the global policy needs root");
	if (knob_write(word))
		die(EXIT_FAILURE, "cannot write '%s' to %s: %s", word, EXEC_FOLIO_SIZE_KNOB,
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

/*
 * Set the calling process's policy.  The feature is detected by its
 * sysfs knob before any prctl, so that a prctl number that some other
 * kernel gives another meaning is never called.  A size smaller than a
 * page here (@below_page: 16K where pages are 64K) is refused as the
 * kernel refuses a size.  Returns 0, or a message in @err and the exit
 * status --strict gives it.
 */
static int set_policy(unsigned long value, bool below_page,
		      const char *what, char *err, size_t len)
{
	char page[32];

	if (access(EXEC_FOLIO_SIZE_KNOB, F_OK)) {
		snprintf(err, len, "this kernel has no exec folio policy (no %s)",
			 EXEC_FOLIO_SIZE_KNOB);
		return EXIT_NO_KERNEL_SUPPORT;
	}
	if (below_page) {
		/* Not given to the kernel: say so, not that it refused it. */
		format_size(page_size(), page, sizeof(page));
		snprintf(err, len, "%s not applied: smaller than the %s page of this machine",
			 what, page);
		return EXIT_FAILURE;
	}
	if (prctl(PR_SET_EXEC_FOLIO_SIZE, value, 0, 0, 0) == 0)
		return 0;
	snprintf(err, len, "the kernel refused %s: %s", what, strerror(errno));
	return EXIT_FAILURE;
}

static int cmd_exec(int argc, char **argv)
{
	enum { OPT_STRICT = 256 };
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 's' },
		{ "order", required_argument, NULL, 'o' },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* A mode, or a size in bytes: PR_SET_EXEC_FOLIO_SIZE's argument. */
	unsigned long value = 0;
	unsigned long long bytes;
	const char *what = NULL;
	unsigned int order;
	char err[256];
	int c, set = 0, strict = 0, status;
	bool below_page = false;

	/* '+': options stop at the command, whose own options are its own. */
	while ((c = getopt_long(argc, argv, "+m:s:o:h", opts, NULL)) != -1) {
		int m;

		if (c == OPT_STRICT) {
			strict = 1;
			continue;
		}
		if (c != 'h' && c != '?' && set++)
			die(EXIT_FAILURE, "exec: give only one of --mode, --size, --order");
		switch (c) {
		case 'm':
			m = mode_from_word(optarg);
			if (m < 0)
				die(EXIT_FAILURE,
				    "exec: invalid mode '%s' (inherit, never, arch, auto)",
				    optarg);
			value = m;
			break;
		case 's':
			if (arg_folio_size(optarg, &bytes))
				die(EXIT_FAILURE,
				    "exec: invalid size '%s' (a power of two from 4K: a number of pages)",
				    optarg);
			/* A size for larger pages than these: no error here. */
			below_page = bytes < page_size();
			value = bytes;
			break;
		case 'o':
			/* A folio order: the size in pages is 2^order. */
			if (arg_order(optarg, &order))
				die(EXIT_FAILURE, "exec: invalid order '%s' (0 to %d)", optarg,
				    ARG_MAX_ORDER);
			value = page_size() << order;
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

	/* An optional tuning must not keep a service from starting. */
	status = set_policy(value, below_page, what, err, sizeof(err));
	if (status && strict)
		die(status, "%s", err);
	if (status)
		warn("%s; running %s with the policy it inherits", err, argv[optind]);
	execvp(argv[optind], argv + optind);
	die(errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN,
	    "failed to execute %s: %s", argv[optind], strerror(errno));
}

/*
 * CAP_SYS_ADMIN in the effective set, from /proc/self/status.  If that
 * cannot be read, the reason is the error, not a missing capability:
 * /proc not mounted, no file descriptor free.
 */
static int has_cap_sys_admin(void)
{
	unsigned long long caps = 0;
	char line[256];
	int found = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f && errno == ENOENT)
		die(EXIT_FAILURE, "report: cannot read /proc/self/status: %s (is /proc mounted?)",
		    strerror(errno));
	if (!f)
		die(EXIT_FAILURE, "report: cannot read /proc/self/status: %s", strerror(errno));
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &caps) == 1;
	fclose(f);
	return !!(caps & (1ULL << 21));		/* CAP_SYS_ADMIN */
}

static noreturn void unit_error(const char *name)
{
	if (errno == EINVAL)
		die(EXIT_FAILURE, "report: invalid unit name '%s'", name);
	die(EXIT_FAILURE, "report: no cgroup for unit '%s' (is it running?)", name);
}

static int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "unit", required_argument, NULL, 'u' },
		{ "rollup", no_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "cont", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts o = { .page_shift = page_shift() };
	unsigned long long bytes = page_size() <<
				   folio_walk_contpte_order(o.page_shift);
	int c, targets = 0, all = 0, pmd, ret, fd;
	struct pid_list pl = { 0 };
	char dir[PATH_MAX];

	while ((c = getopt_long(argc, argv, "p:ag:u:rjc:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (pid_list_add(&pl, parse_pid(optarg)))
				die(EXIT_FAILURE, "out of memory");
			targets++;
			break;
		case 'a':
			all = 1;
			break;
		case 'g':
			if (cgroup_resolve(path_arg("report", "--cgroup", optarg), dir,
					   sizeof(dir)))
				die(EXIT_FAILURE, "report: no cgroup '%s'", optarg);
			if (pid_list_add_cgroup(&pl, dir))
				die(EXIT_FAILURE, "cannot read cgroup %s: %s", dir,
				    strerror(errno));
			targets++;
			break;
		case 'u':
			if (cgroup_find_unit(optarg, dir, sizeof(dir)))
				unit_error(optarg);
			if (pid_list_add_cgroup(&pl, dir))
				die(EXIT_FAILURE, "cannot read cgroup %s: %s", dir,
				    strerror(errno));
			targets++;
			break;
		case 'r':
			o.rollup_only = true;
			break;
		case 'j':
			o.json = true;
			break;
		case 'c':
			/* Also as report prints it: "64kB" is 65536, the kernel's kB. */
			if (arg_cont_size(optarg, o.page_shift, &bytes))
				die(EXIT_FAILURE, "report: invalid --cont size '%s'", optarg);
			break;
		case 'h':
			usage();
		default:
			try_help();
		}
	}
	no_more_args(argc, argv);
	if (!targets == !all)
		die(EXIT_FAILURE, "report: give --pid PID, --cgroup PATH, --unit NAME or --all");
	if (!has_cap_sys_admin())
		die(EXIT_FAILURE,
		    "report needs CAP_SYS_ADMIN: without it pagemap hides page frame numbers");
	if (folio_walk_pfns_visible(o.page_shift) == 0)
		die(EXIT_FAILURE,
		    "report: pagemap hides page frame numbers here (CAP_SYS_ADMIN in the initial user namespace needed)");
	pmd = folio_walk_pmd_order(o.page_shift);
	if (pmd < 0)
		die(EXIT_FAILURE, "cannot read the PMD size: %s", strerror(errno));
	o.pmd_order = pmd;
	o.cont_order = size_order(bytes);
	if (o.cont_order > o.pmd_order)
		die(EXIT_FAILURE, "report: --cont size is larger than a PMD");
	o.no_scan = getenv("EXEC_FOLIO_CTL_NO_PAGEMAP_SCAN");
	o.maps = folio_walk_can_scan() && !o.no_scan && !getenv("EXEC_FOLIO_CTL_SMAPS");
	o.contpte = folio_walk_arch_contpte() &&
		    o.cont_order == folio_walk_contpte_order(o.page_shift);
	/* open(), not access(): access() ignores capabilities unless uid is 0. */
	fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == EACCES)
		die(EXIT_FAILURE,
		    "cannot read /proc/kpageflags: %s (it is root's only: run as root, or with CAP_DAC_READ_SEARCH too)",
		    strerror(errno));
	if (fd < 0)
		die(EXIT_FAILURE, "cannot read /proc/kpageflags: %s", strerror(errno));
	close(fd);
	if (!all && !pl.nr)
		warn("no processes in the cgroup");
	ret = report_run(&o, all ? NULL : &pl, stdout);
	pid_list_free(&pl);
	if (ret < 0) {
		/* Reported at exit, with the errno of the write that failed. */
		stdout_errno = errno;
		ret = EXIT_FAILURE;
	}
	return ret;
}

static int cmd_apply(int argc, char **argv)
{
	const char *path = CONF_DEFAULT_PATH;
	struct knob_state st;
	char list[512];
	struct conf conf;
	int bad;

	only_help(argc, argv);
	if (argc - optind > 1)
		die(EXIT_FAILURE, "apply: expected at most one FILE");
	if (argc - optind == 1)
		path = path_arg("apply", "FILE", argv[optind]);
	bad = conf_load(path, &conf, stderr);
	switch (bad) {
	case CONF_ERR_ERRNO:
		die(EXIT_FAILURE, "cannot read %s: %s", path, strerror(errno));
	case CONF_ERR_NOT_REGULAR:
		die(EXIT_FAILURE, "%s: not a regular file, nothing applied", path);
	case CONF_ERR_TOO_LARGE:
		die(EXIT_FAILURE, "%s: larger than %d KiB, nothing applied", path,
		    CONF_MAX_SIZE >> 10);
	case 0:
		break;
	default:
		die(EXIT_FAILURE, "%s: %d bad line%s, nothing applied", path, bad,
		    bad == 1 ? "" : "s");
	}
	if (!conf.exec_folio_size[0])
		return EXIT_SUCCESS;
	read_knob_or_die(&st);
	knob_list(&st, list, sizeof(list));
	if (knob_find(&st, conf.exec_folio_size) < 0)
		die(EXIT_FAILURE,
		    "%s:%d: '%s' is not accepted by this kernel (accepted: %s), nothing applied",
		    path, conf.exec_folio_size_line, conf.exec_folio_size, list);
	if (geteuid() != 0)
		die(EXIT_FAILURE, "apply: changing the global policy needs root");
	if (knob_write(conf.exec_folio_size))
		die(EXIT_FAILURE, "cannot write '%s' to %s: %s", conf.exec_folio_size,
		    EXEC_FOLIO_SIZE_KNOB, strerror(errno));
	return EXIT_SUCCESS;
}

/*
 * All of @fd, at most @max bytes, in a NUL-terminated buffer; NULL on
 * error, EFBIG if there is more (never cut silently: a command cut short
 * is another command), EILSEQ for a NUL byte (C strings would end there).
 */
static char *read_all(int fd, size_t max)
{
	size_t len = 0;
	char *buf = malloc(max + 2);
	ssize_t n;

	if (!buf)
		return NULL;
	while (len <= max) {
		n = read(fd, buf + len, max + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if (!n)
			break;
		len += n;
	}
	if (len > max || memchr(buf, '\0', len)) {
		free(buf);
		errno = len > max ? EFBIG : EILSEQ;
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* Why read_all() failed, for a message. */
static const char *read_all_error(int err)
{
	if (err == EFBIG)
		return "larger than " __stringify(UNIT_MAX_TEXT_KIB) " KiB, nothing written";
	if (err == EILSEQ)
		return "a NUL byte in the unit text, nothing written";
	return strerror(err);
}

/* What "systemctl cat UNIT" prints; NULL with a message on failure. */
static char *systemctl_cat(const char *unit)
{
	int fds[2], status, err;
	char *text;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return NULL;
	pid = fork();
	if (pid < 0)
		return NULL;
	if (!pid) {
		dup2(fds[1], STDOUT_FILENO);
		execlp("systemctl", "systemctl", "cat", "--", unit, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	text = read_all(fds[0], UNIT_MAX_TEXT);
	err = errno;
	close(fds[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		free(text);
		errno = ENOENT;
		return NULL;
	}
	errno = err;
	return text;
}

/* mkdir -p: 0, or -1 with the errno of the mkdir that failed. */
static int mkdir_p(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

/*
 * The exec_folio_ctl a drop-in runs, in @self: @exe if given, else the
 * installed one if there is one (not the build tree a run from there
 * would write into /etc/systemd), else this very program.
 */
static void drop_in_exe(const char *exe, char *self, size_t len)
{
	static const char * const installed[] = {
		"/usr/sbin/exec_folio_ctl", "/usr/local/sbin/exec_folio_ctl",
	};
	ssize_t n;

	if (exe) {
		if (access(exe, X_OK))
			die(EXIT_FAILURE, "enable-unit: --exe %s: %s", exe, strerror(errno));
		if (exe[0] != '/')
			die(EXIT_FAILURE, "enable-unit: --exe %s: not an absolute path", exe);
		if (snprintf(self, len, "%s", exe) >= (int)len)
			die(EXIT_FAILURE, "enable-unit: --exe path too long");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(installed); i++) {
		if (!access(installed[i], X_OK)) {
			snprintf(self, len, "%s", installed[i]);
			return;
		}
	}
	n = readlink("/proc/self/exe", self, len - 1);
	if (n <= 0)
		die(EXIT_FAILURE, "cannot find my own path: %s", strerror(errno));
	self[n] = '\0';
}

static void drop_in_path(const char *root, const char *unit, char *dir, size_t dlen,
			 char *file, size_t flen)
{
	if (snprintf(dir, dlen, "%s/etc/systemd/system/%s.d", root, unit) >= (int)dlen ||
	    snprintf(file, flen, "%s/%s", dir, UNIT_DROP_IN_NAME) >= (int)flen)
		die(EXIT_FAILURE, "--root path too long");
}

static int cmd_enable_unit(int argc, char **argv)
{
	enum { OPT_FROM = 256, OPT_ROOT, OPT_PRINT, OPT_EXE };
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 's' },
		{ "order", required_argument, NULL, 'o' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "print", no_argument, NULL, OPT_PRINT },
		{ "exe", required_argument, NULL, OPT_EXE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char policy[64] = "", unit[256], dir[PATH_MAX], file[PATH_MAX], tmp[PATH_MAX + 8];
	char self[PATH_MAX], err[PATH_MAX + 128], size[32], *cmds[UNIT_MAX_EXEC], *text;
	const char *from = NULL, *root = "", *exe = NULL;
	unsigned long long bytes;
	int c, nr, print = 0, fd;
	unsigned int order;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	while ((c = getopt_long(argc, argv, "m:s:o:h", opts, NULL)) != -1) {
		if ((c == 'm' || c == 's' || c == 'o') && policy[0])
			die(EXIT_FAILURE, "enable-unit: give only one of --mode, --size, --order");
		switch (c) {
		case 'm':
			if (mode_from_word(optarg) < 0)
				die(EXIT_FAILURE,
				    "enable-unit: invalid mode '%s' (inherit, never, arch, auto)",
				    optarg);
			normalize_word(optarg, size, sizeof(size));
			snprintf(policy, sizeof(policy), "--mode %s", size);
			break;
		case 's':
			/* As exec takes it: the drop-in may serve larger pages too. */
			if (arg_folio_size(optarg, &bytes))
				die(EXIT_FAILURE,
				    "enable-unit: invalid size '%s' (a power of two from 4K: a number of pages)",
				    optarg);
			format_size(bytes, size, sizeof(size));
			snprintf(policy, sizeof(policy), "--size %s", size);
			break;
		case 'o':
			/* As exec takes it, or the unit would not start. */
			if (arg_order(optarg, &order))
				die(EXIT_FAILURE, "enable-unit: invalid order '%s' (0 to %d)",
				    optarg, ARG_MAX_ORDER);
			snprintf(policy, sizeof(policy), "--order %u", order);
			break;
		case OPT_FROM:
			from = path_arg("enable-unit", "--from", optarg);
			break;
		case OPT_ROOT:
			root = path_arg("enable-unit", "--root", optarg);
			break;
		case OPT_PRINT:
			print = 1;
			break;
		case OPT_EXE:
			exe = path_arg("enable-unit", "--exe", optarg);
			break;
		case 'h':
			usage();
		default:
			try_help();
		}
	}
	if (argc - optind != 1)
		die(EXIT_FAILURE, "enable-unit: expected one service NAME");
	if (unit_service_name(argv[optind], unit, sizeof(unit)))
		die(EXIT_FAILURE, "enable-unit: invalid service name '%s'", argv[optind]);
	if (!policy[0])
		die(EXIT_FAILURE, "enable-unit: give --mode, --size or --order");
	drop_in_exe(exe, self, sizeof(self));

	if (from) {
		fd = open(from, O_RDONLY | O_CLOEXEC);
		text = fd < 0 ? NULL : read_all(fd, UNIT_MAX_TEXT);
		if (fd >= 0)
			close(fd);
		if (!text && (errno == EFBIG || errno == EILSEQ))
			die(EXIT_FAILURE, "enable-unit: %s: %s", from, read_all_error(errno));
		if (!text)
			die(EXIT_FAILURE, "cannot read %s: %s", from, strerror(errno));
	} else {
		text = systemctl_cat(unit);
		if (!text && (errno == EFBIG || errno == EILSEQ))
			die(EXIT_FAILURE, "enable-unit: \"systemctl cat %s\": %s", unit,
			    read_all_error(errno));
		if (!text)
			die(EXIT_FAILURE, "enable-unit: \"systemctl cat %s\" failed: no such unit?",
			    unit);
	}
	nr = unit_exec_starts(text, cmds, err, sizeof(err));
	free(text);
	if (nr < 0)
		die(EXIT_FAILURE, "enable-unit: %s: %s", unit, err);
	out = open_memstream(&buf, &len);
	if (!out)
		die(EXIT_FAILURE, "out of memory");
	c = unit_write_drop_in(out, self, policy, cmds, nr, err, sizeof(err));
	fclose(out);
	while (nr > 0)
		free(cmds[--nr]);
	if (c)
		die(EXIT_FAILURE, "enable-unit: %s: %s", unit, err);
	if (print) {
		fputs(buf, stdout);
		free(buf);
		return EXIT_SUCCESS;
	}
	drop_in_path(root, unit, dir, sizeof(dir), file, sizeof(file));
	if (mkdir_p(dir))
		die(EXIT_FAILURE, "cannot create %s: %s", dir, strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s.new", file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len || fsync(fd) || close(fd) ||
	    rename(tmp, file))
		die(EXIT_FAILURE, "cannot write %s: %s", file, strerror(errno));
	free(buf);
	fprintf(stderr, "wrote %s\nnow run: systemctl daemon-reload && systemctl restart %s\n",
		file, unit);
	return EXIT_SUCCESS;
}

static int cmd_disable_unit(int argc, char **argv)
{
	enum { OPT_ROOT = 256 };
	static const struct option opts[] = {
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char unit[256], dir[PATH_MAX], file[PATH_MAX];
	const char *root = "";
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == OPT_ROOT)
			root = path_arg("disable-unit", "--root", optarg);
		else if (c == 'h')
			usage();
		else
			try_help();
	}
	if (argc - optind != 1)
		die(EXIT_FAILURE, "disable-unit: expected one service NAME");
	if (unit_service_name(argv[optind], unit, sizeof(unit)))
		die(EXIT_FAILURE, "disable-unit: invalid service name '%s'", argv[optind]);
	drop_in_path(root, unit, dir, sizeof(dir), file, sizeof(file));
	if (unlink(file))
		die(EXIT_FAILURE, "cannot remove %s: %s", file, strerror(errno));
	rmdir(dir);	/* if nothing else is in it */
	fprintf(stderr, "removed %s\nnow run: systemctl daemon-reload && systemctl restart %s\n",
		file, unit);
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
		{ "enable-unit", cmd_enable_unit },
		{ "disable-unit", cmd_disable_unit },
	};

	hold_std_fds();
	atexit(close_stdout);
	if (argc < 2)
		die(EXIT_FAILURE, "no command given; try '" PROG " --help'");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		usage();
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf(PROG " from exec-folio " VERSION "\n");
		return EXIT_SUCCESS;
	}
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!strcmp(argv[1], cmds[i].name)) {
			/* getopt's messages name argv[0]: the program, not the command. */
			argv[1] = PROG;
			return cmds[i].fn(argc - 1, argv + 1);
		}
	}
	die(EXIT_FAILURE, "unknown command '%s'; try '" PROG " --help'", argv[1]);
}
