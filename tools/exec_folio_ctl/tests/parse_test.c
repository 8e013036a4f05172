// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of exec_folio_ctl's parsers: sizes and modes, the knob's
 * format, config lines and files, smaps lines, option values.  Hostile
 * input included:
 * every bad input must give an error, none may crash or leak (run under
 * valgrind by "make check").  TAP output, ends "N passed, N failed".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "conf.h"
#include "json.h"
#include "policy.h"
#include "proc_smaps.h"
#include "unit.h"
#include "util.h"

static int passed, failed;

static void check(int ok, const char *what, const char *input)
{
	char shown[48];
	size_t n = 0;

	/* Inputs are hostile: show them on one line, escaped. */
	for (; *input && n < sizeof(shown) - 5; input++) {
		unsigned char ch = *input;

		n += snprintf(shown + n, sizeof(shown) - n,
			      ch >= 0x20 && ch < 0x7f ? "%c" : "\\x%02x", ch);
	}
	shown[n] = '\0';
	ok ? passed++ : failed++;
	printf("%sok %d - %s \"%s\"\n", ok ? "" : "not ", passed + failed, what, shown);
}

static void test_sizes(void)
{
	static const struct {
		const char *in;
		unsigned long long bytes;
	} good[] = {
		{ "65536", 65536 }, { "64K", 65536 }, { "64k", 65536 },
		{ "64KiB", 65536 }, { "64KB", 64000 }, { "64kb", 64000 }, { "2M", 2 << 20 },
		{ "2m", 2 << 20 }, { "2MiB", 2 << 20 }, { "1G", 1ULL << 30 },
		{ "16K", 16384 }, { "4096", 4096 }, { "2MB", 2000000 },
		{ "1GB", 1000000000 }, { "1GiB", 1ULL << 30 },
	};
	static const char * const bad[] = {
		"", "K", "-64K", "+64K", " 64K", "64K ", "64 K", "64KK", "64Ki",
		"64kiBB", "0", "0K", "64T", "1.5M", "0x10000", "64K\n",
		"18446744073709551616", "18446744073709551615K",
		"99999999999999999999999999", "\xff\xfe", "64\x01K",
	};
	unsigned long long b;
	char out[32];

	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		check(parse_size(good[i].in, &b) == 0 && b == good[i].bytes,
		      "size parses", good[i].in);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		check(parse_size(bad[i], &b) == -1, "bad size rejected", bad[i]);

	format_size(65536, out, sizeof(out));
	check(!strcmp(out, "64K"), "64K formats", out);
	format_size(2 << 20, out, sizeof(out));
	check(!strcmp(out, "2M"), "2M formats", out);
	format_size(512 << 10, out, sizeof(out));
	check(!strcmp(out, "512K"), "512K formats", out);
}

/* The option values of the subcommands (args.c): refused ones change nothing. */
static void test_args(void)
{
	static const char * const bad_pids[] = {
		"", "0", "-1", "+5", " 5", "5 ", "0x10", "1073741824", "99999999999", "5\n",
	};
	static const char * const bad_sizes[] = { "", "0", "1", "2", "2K", "48K", "64KB", "-4K" };
	static const char * const bad_orders[] = { "", "-1", "-0", "+3", " 3", "41", "63", "4\n" };
	static const char * const bad_conts[] = { "", "4K", "4kB", "48K", "64KB", "1" };
	unsigned long long b;
	unsigned int o;
	pid_t p;

	check(arg_pid("1073741823", &p) == 0 && p == 0x3fffffff, "largest PID taken", "1073741823");
	check(arg_pid("007", &p) == 0 && p == 7, "PID with leading zeros taken", "007");
	for (size_t i = 0; i < ARRAY_SIZE(bad_pids); i++) {
		p = 99;
		check(arg_pid(bad_pids[i], &p) == -1 && p == 99, "bad PID refused, untouched",
		      bad_pids[i]);
	}
	check(arg_folio_size("4K", &b) == 0 && b == 4096, "folio size 4K taken", "4K");
	check(arg_folio_size("2MiB", &b) == 0 && b == 2 << 20, "folio size 2MiB taken", "2MiB");
	for (size_t i = 0; i < ARRAY_SIZE(bad_sizes); i++)
		check(arg_folio_size(bad_sizes[i], (b = 99, &b)) == -1 && b == 99,
		      "bad folio size refused, untouched", bad_sizes[i]);
	check(arg_order("40", &o) == 0 && o == 40, "order 40 taken", "40");
	check(arg_order("0", &o) == 0 && o == 0, "order 0 taken", "0");
	for (size_t i = 0; i < ARRAY_SIZE(bad_orders); i++)
		check(arg_order(bad_orders[i], (o = 99, &o)) == -1 && o == 99,
		      "bad order refused, untouched", bad_orders[i]);
	check(arg_cont_size("64kB", 12, &b) == 0 && b == 65536, "--cont 64kB is 64K", "64kB");
	check(arg_cont_size("8K", 12, &b) == 0 && b == 8192, "--cont of two pages taken", "8K");
	check(arg_cont_size("64K", 16, &b) == -1, "--cont of one 64K page refused", "64K");
	for (size_t i = 0; i < ARRAY_SIZE(bad_conts); i++)
		check(arg_cont_size(bad_conts[i], 12, (b = 99, &b)) == -1 && b == 99,
		      "bad --cont refused, untouched", bad_conts[i]);
	check(arg_path("") == -1, "empty path refused", "");
	check(arg_path("/") == 0, "path taken", "/");
}

static void test_words(void)
{
	static const struct {
		const char *in, *out;
	} good[] = {
		{ "never", "never" }, { "ARCH", "arch" }, { "Auto", "auto" },
		{ "65536", "64K" }, { "64k", "64K" }, { "64KiB", "64K" },
		{ "2048K", "2M" }, { "2m", "2M" }, { "inherit", "inherit" },
	};
	static const char * const bad[] = { "", "nev", "never\n", "always", "64 K", "[auto]" };
	char out[KNOB_WORD_LEN];

	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		check(normalize_word(good[i].in, out, sizeof(out)) == 0 &&
		      !strcmp(out, good[i].out), "word normalizes", good[i].in);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		check(normalize_word(bad[i], out, sizeof(out)) == -1, "bad word rejected",
		      bad[i]);
	check(mode_from_word("never") == PR_EXEC_FOLIO_NEVER, "mode never", "never");
	check(mode_from_word("64K") == -1, "size is no mode", "64K");
}

static void test_knob(void)
{
	static const char * const bad[] = {
		"", "\n", "never arch auto\n", "[never] [arch]\n", "[]\n", "[never\n",
		"never]\n", "[waytoolongawordforaknob]\n",
		"a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F [G]\n",
	};
	struct knob_state st;
	char list[256];

	check(knob_parse("never arch [auto] 16K 32K 64K 2M\n", &st) == 0 &&
	      st.nr_words == 7 && st.active == 2 && !strcmp(st.words[5], "64K"),
	      "knob parses", "never arch [auto] ...");
	knob_list(&st, list, sizeof(list));
	check(!strcmp(list, "never arch auto 16K 32K 64K 2M"), "knob lists", list);
	check(knob_find(&st, "2M") == 6 && knob_find(&st, "4M") == -1, "knob finds", "2M");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		check(knob_parse(bad[i], &st) == -1, "bad knob text rejected", bad[i]);
}

static void test_policy_words(void)
{
	char out[32];

	policy_word(65536, out, sizeof(out));
	check(!strcmp(out, "64K"), "65536 bytes is 64K", out);
	policy_word(2 << 20, out, sizeof(out));
	check(!strcmp(out, "2M"), "2M", out);
	policy_word(PR_EXEC_FOLIO_INHERIT, out, sizeof(out));
	check(!strcmp(out, "inherit"), "inherit", out);
	policy_word(-1, out, sizeof(out));
	check(!strcmp(out, "unknown"), "error is unknown", out);
	policy_word(4, out, sizeof(out));
	check(!strcmp(out, "unknown"), "4, no mode, no size, is unknown", out);
	policy_word(3 << 16, out, sizeof(out));
	check(!strcmp(out, "unknown"), "192K, no power of two, is unknown", out);
}

static void test_conf_lines(void)
{
	static const struct {
		const char *in, *want;
	} good[] = {
		{ "exec_folio_size = auto\n", "auto" }, { "exec_folio_size=64k", "64K" },
		{ "  exec_folio_size\t=\t2M   # PMD text\n", "2M" }, { "# comment\n", "" },
		{ "\n", "" }, { "\x20\t\x20\n", "" }, { "exec_folio_size = NEVER", "never" },
	};
	static const char * const bad[] = {
		"exec_folio_size\n", "exec_folio_size =\n", "exec_folio_size = inherit\n",
		"exec_folio_size = 64 K\n", "exec_folio_size = sometimes\n", "exec-order = auto\n",
		"EXEC_ORDER = auto\n", "thp = always\n", "= auto\n", "auto\n",
		"exec_folio_size = 99999999999999999999999G\n",
		"exec_folio_size = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	};
	char err[160];
	struct conf c;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		memset(&c, 0, sizeof(c));
		check(conf_parse_line(good[i].in, strlen(good[i].in), &c, 1, err,
				      sizeof(err)) == 0 && !strcmp(c.exec_folio_size, good[i].want),
		      "config line parses", good[i].in);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&c, 0, sizeof(c));
		check(conf_parse_line(bad[i], strlen(bad[i]), &c, 1, err, sizeof(err)) == -1 &&
		      err[0] && !c.exec_folio_size[0], "bad config line rejected", bad[i]);
	}
	memset(&c, 0, sizeof(c));
	check(conf_parse_line("exec_folio_size = auto", 22, &c, 1, err, sizeof(err)) == 0 &&
	      conf_parse_line("exec_folio_size = 2M", 20, &c, 2, err, sizeof(err)) == -1 &&
	      !strcmp(c.exec_folio_size, "auto") && strstr(err, "line 1"),
	      "duplicate setting rejected, first kept", "exec_folio_size twice");
	check(conf_parse_line("exec_folio_size = a\0uto", 23, &c, 3, err, sizeof(err)) == -1,
	      "NUL byte rejected", "exec_folio_size = a\\0uto");
}

static int write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, len, f) != len)
		return -1;
	return fclose(f);
}

static void test_conf_files(void)
{
	char path[] = "/tmp/exec-folio-conf-XXXXXX";
	char *huge = malloc(CONF_MAX_LINE * 4);
	FILE *errs = fopen("/dev/null", "w");
	struct conf c;
	int fd = mkstemp(path);

	if (fd < 0 || !huge || !errs) {
		check(0, "temporary file", path);
		return;
	}
	close(fd);
	write_file(path, "# boot time\nexec_folio_size = auto\n", 35);
	check(conf_load(path, &c, errs) == 0 && !strcmp(c.exec_folio_size, "auto") &&
	      c.exec_folio_size_line == 2, "config file loads", path);
	write_file(path, "exec_folio_size = auto\nbogus\nexec_folio_size = 2M\n", 50);
	check(conf_load(path, &c, errs) == 2, "two bad lines counted", path);
	memset(huge, 'x', CONF_MAX_LINE * 4 - 1);
	huge[CONF_MAX_LINE * 4 - 1] = '\n';
	write_file(path, huge, CONF_MAX_LINE * 4);
	check(conf_load(path, &c, errs) == 1, "overlong line rejected", "xxxx...");
	for (int i = 0; i < CONF_MAX_LINE * 4; i++)
		huge[i] = (char)(i * 131 + 7);
	write_file(path, huge, CONF_MAX_LINE * 4);
	check(conf_load(path, &c, errs) > 0, "garbage bytes rejected", "random bytes");
	write_file(path, "", 0);
	check(conf_load(path, &c, errs) == 0 && !c.exec_folio_size[0], "empty file is fine", "");
	unlink(path);
	check(conf_load(path, &c, errs) == -1, "missing file is an error", path);
	free(huge);
	fclose(errs);
}

static void test_smaps(void)
{
	static const char header[] =
		"00400000-006fb000 r-xp 00001000 fd:01 1234   /mnt/exec folio/big text\n";
	struct vma_info v;

	check(smaps_parse_header(header, &v) == 0 &&
	      v.start == 0x400000 && v.end == 0x6fb000 && v.pgoff == 0x1000 &&
	      !strcmp(v.perms, "r-xp") && !strcmp(v.path, "/mnt/exec folio/big text"),
	      "smaps header with spaces in the path", "00400000-006fb000 ...");
	check(smaps_parse_header("7ffd0000-7ffd1000 rw-p 00000000 00:00 0\n", &v) == 0 &&
	      v.path[0] == '\0', "anonymous mapping", "7ffd0000-7ffd1000");
	check(smaps_parse_header("Rss:  4 kB\n", &v) == -1, "counter is no header", "Rss:");
	check(smaps_parse_header("00500000-00400000 r-xp 0 00:00 0\n", &v) == -1,
	      "end before start rejected", "00500000-00400000");
	check(smaps_parse_header("zzzz\n", &v) == -1, "garbage header rejected", "zzzz");
	memset(&v, 0, sizeof(v));
	check(smaps_parse_counter("Rss:                3004 kB\n", &v) == 0 && v.rss_kb == 3004,
	      "Rss parses", "Rss: 3004 kB");
	check(smaps_parse_counter("FilePmdMapped:  2048 kB\n", &v) == 0 &&
	      smaps_parse_counter("ShmemPmdMapped:  0 kB\n", &v) == 0 &&
	      v.file_pmd_kb == 2048, "PMD-mapped counters add", "FilePmdMapped");
	check(smaps_parse_counter("VmFlags: rd ex mr mw me\n", &v) == 1,
	      "VmFlags is known but unused", "VmFlags");
	check(smaps_parse_counter("garbage without colon\n", &v) == -1,
	      "garbage counter rejected", "garbage");
}

static void test_json(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "/usr/bin/sl\xc3\xa9", "\"/usr/bin/sl\xc3\xa9\"" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"" },
		{ "tab\there", "\"tab\\u0009here\"" },
		{ "\x7f", "\"\\u007f\"" },
		{ "latin1 \xe9!", "\"latin1 \\ufffd!\"" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },		/* overlong '/' */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },	/* surrogate */
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },	/* U+1F600 */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },	/* > U+10FFFF */
		{ "\xe2\x82", "\"\\ufffd\\ufffd\"" },		/* cut short */
	};
	char buf[128];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		json_string(f, cases[i].in);
		fclose(f);
		check(!strcmp(buf, cases[i].out), "JSON string", cases[i].in);
	}
}

static void test_unit(void)
{
	static const char text[] =
		"# /usr/lib/systemd/system/x.service\n[Unit]\nExecStart=/not/service\n"
		"[Service]\nExecStart=/usr/bin/a\nExecStart=\nExecStart = -/usr/bin/b \"c d\"\n"
		"ExecStart=+/usr/bin/e\n; comment\n"
		"# /etc/systemd/system/x.service.d/exec-folio.conf\n[Service]\nExecStart=\n"
		"ExecStart=/usr/sbin/exec_folio_ctl exec --size 2M -- /usr/bin/b\n";
	static const char want[] =
		"\nExecStart=\nExecStart=-/usr/sbin/exec_folio_ctl exec --size 2M -- /usr/bin/b \"c d\"\n"
		"ExecStart=+/usr/sbin/exec_folio_ctl exec --size 2M -- /usr/bin/e\n";
	char *cmds[UNIT_MAX_EXEC], err[256], name[64], *buf = NULL;
	size_t len = 0;
	int nr = unit_exec_starts(text, cmds, err, sizeof(err));
	FILE *f;

	check(nr == 2 && !strcmp(cmds[0], "-/usr/bin/b \"c d\"") && !strcmp(cmds[1], "+/usr/bin/e"),
	      "unit ExecStart= lines, reset, our drop-in left out", "x.service");
	f = open_memstream(&buf, &len);
	check(f && nr == 2 &&
	      unit_write_drop_in(f, "/usr/sbin/exec_folio_ctl", "--size 2M", cmds, nr, err,
				 sizeof(err)) == 0, "drop-in written", "");
	if (f)
		fclose(f);
	check(buf && strstr(buf, want), "drop-in keeps prefixes", buf ? buf : "");
	free(buf);
	while (nr > 0)
		free(cmds[--nr]);
	check(unit_exec_starts("[Unit]\nDescription=x\n", cmds, err, sizeof(err)) == -1 &&
	      strstr(err, "no ExecStart"), "unit without ExecStart rejected", err);
	check(unit_exec_starts("[Service]\nExecStart=/a \\\n b\n", cmds, err, sizeof(err)) == -1,
	      "continued ExecStart rejected", err);
	check(unit_service_name("nginx", name, sizeof(name)) == 0 && !strcmp(name, "nginx.service"),
	      "unit name gets .service", name);
	check(unit_service_name("a@b.service", name, sizeof(name)) == 0 &&
	      !strcmp(name, "a@b.service"), "template instance name", name);
	check(unit_service_name("../etc", name, sizeof(name)) == -1 &&
	      unit_service_name("a/b", name, sizeof(name)) == -1 &&
	      unit_service_name("", name, sizeof(name)) == -1, "bad unit names rejected", "../etc");
}

int main(void)
{
	test_sizes();
	test_args();
	test_words();
	test_knob();
	test_policy_words();
	test_conf_lines();
	test_conf_files();
	test_smaps();
	test_json();
	test_unit();
	printf("1..%d\n%d passed, %d failed\n", passed + failed, passed, failed);
	return failed ? 1 : 0;
}
