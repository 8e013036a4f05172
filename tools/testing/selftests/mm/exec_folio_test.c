// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the exec folio policy: text faulted from a filesystem with
 * large folios (XFS) lands in folios of the size the policy picks.
 *
 * The helpers are built with this test, in exec_folio/ beside it, and
 * looked up in $EXEC_FOLIO_DIR (default: that directory), which must be
 * on a filesystem with large folio support such as XFS; where it is not,
 * the tests that look at folio sizes are skipped:
 *   bigtext     a static binary with about 3M of text at 0x401000 that
 *               faults all of it in and stops itself with --stop
 *   bigtext-2m  the same linked with 2M segment alignment
 *   hugetext    about 10M of text, 2M aligned: whole 2M blocks
 *   tinytext    a binary with a few hundred bytes of text
 *   bigtext-nosep  bigtext linked with -z noseparate-code: the ELF
 *               headers share the first text block
 *
 * Folio sizes are read back through /proc/<pid>/pagemap and
 * /proc/kpageflags by the folio walk of tools/exec_folio_ctl, the same
 * code "exec_folio_ctl report" uses.  Needs root.
 *
 * Without the feature every test is skipped; with EXEC_FOLIO_REQUIRE=1
 * in the environment they fail instead, so that a test run on a kernel
 * that must have it cannot pass by skipping.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "../../../exec_folio_ctl/folio_walk.h"
#include "../../../exec_folio_ctl/policy.h"
#include "../../../exec_folio_ctl/proc_smaps.h"

static unsigned int page_shift(void)
{
	return __builtin_ctzl(sysconf(_SC_PAGESIZE));
}

/*
 * 6.12's mmap read-around asks for order 0 folios, which readahead ramps
 * up by 2: with the policy at "never", text is in folios of this order
 * or smaller.
 */
#define READ_AROUND_MAX_ORDER	2

/*
 * The explicit size most tests ask for: 64K, the seed's size, with 4K
 * pages; with larger pages the smallest size above what read-around gives
 * (128K with 16K pages, 512K with 64K pages), so that the two can be told
 * apart.
 */
static unsigned int test_order(void)
{
	unsigned int o64k = page_shift() < 16 ? 16 - page_shift() : 0;

	return o64k > READ_AROUND_MAX_ORDER ? o64k : READ_AROUND_MAX_ORDER + 1;
}

/* test_order() as the knob writes it, "64K" or "512K". */
static const char *test_word(void)
{
	static char word[24];

	snprintf(word, sizeof(word), "%luK",
		 (1UL << (test_order() + page_shift())) >> 10);
	return word;
}

/* The knob's word for folios of @order, "128K" or "1M". */
/* The folio size of @order in bytes, as the prctl takes it. */
static unsigned long order_bytes(unsigned int order)
{
	return 1UL << (order + page_shift());
}

static const char *size_word(unsigned int order)
{
	static char word[24];
	unsigned long kb = (1UL << (order + page_shift())) >> 10;

	if (kb >= 1024)
		snprintf(word, sizeof(word), "%luM", kb >> 10);
	else
		snprintf(word, sizeof(word), "%luK", kb);
	return word;
}

/*
 * What "arch" must give, written out here rather than read from the
 * kernel so that a wrong exec_folio_order() fails: one contpte block on
 * arm64 (64K with 4K pages, 2M with 16K and 64K pages), nothing elsewhere.
 */
static unsigned int expected_arch_order(void)
{
#ifdef __aarch64__
	return folio_walk_contpte_order(page_shift());
#else
	return 0;
#endif
}

/*
 * The helper whose text has enough whole blocks of @order for 90% of it
 * to be in such folios: bigtext up to 256K folios, hugetext above.
 */
static const char *text_helper(unsigned int order)
{
	return order + page_shift() > 18 ? "hugetext" : "bigtext";
}

/* Where the helpers are: $EXEC_FOLIO_DIR, else exec_folio/ beside us. */
static const char *helper_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("EXEC_FOLIO_DIR");
	char self[PATH_MAX - 16], *slash;
	ssize_t n;

	if (env)
		return env;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return "exec_folio";
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	snprintf(dir, sizeof(dir), "%s/exec_folio", self);
	return dir;
}

static const char *helper(const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", helper_dir(), name);
	return path;
}

static bool have_knob(void)
{
	return access(EXEC_FOLIO_SIZE_KNOB, F_OK) == 0;
}

/* The feature must be there: EXEC_FOLIO_REQUIRE=1 turns skips into failures. */
static bool feature_required(void)
{
	const char *req = getenv("EXEC_FOLIO_REQUIRE");

	return req && strcmp(req, "0");
}

/* 6.12 has large page-cache folios on XFS (and tmpfs with huge=). */
#define XFS_MAGIC	0x58465342

static bool helpers_on_large_folio_fs(void)
{
	struct statfs sfs;

	return statfs(helper_dir(), &sfs) == 0 && sfs.f_type == XFS_MAGIC;
}

#define STATS_DIR	"/sys/kernel/mm/transparent_hugepage/exec_folio_stats/"

/* One exec_folio_stats counter, -1 if it cannot be read. */
static long stat_read(const char *name)
{
	char path[128];
	long val = -1;
	FILE *f;

	snprintf(path, sizeof(path), STATS_DIR "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &val) != 1)
		val = -1;
	fclose(f);
	return val;
}

/*
 * The knob is read, parsed and written by the code exec_folio_ctl uses
 * (tools/exec_folio_ctl/policy.c).  Write @word; 0 or -errno.
 */
static int knob_set(const char *word)
{
	return knob_write(word) ? -errno : 0;
}

/* The active word of the knob, "" if it cannot be read. */
static const char *knob_active(struct knob_state *st)
{
	return knob_read(st) ? "" : st->words[st->active];
}

/*
 * Drop the page cache, so that text is read by its exec.  0, or -1 if it
 * could not be dropped: then nothing measured after it means anything,
 * and the caller fails.
 */
static int cold_cache(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	int ret = -1;

	sync();
	if (fd >= 0) {
		if (write(fd, "3", 1) == 1)
			ret = 0;
		close(fd);
	}
	if (ret)
		perror("/proc/sys/vm/drop_caches");
	return ret;
}

/*
 * Exec @path with --stop (and @arg, unless NULL) from a cold page cache;
 * the stopped child's pid.
 */
static pid_t spawn_stopped_arg(const char *path, const char *arg)
{
	int status;
	pid_t pid;

	if (cold_cache())
		return -1;
	pid = fork();
	if (pid == 0) {
		execl(path, path, "--stop", arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, WUNTRACED) != pid ||
	    !WIFSTOPPED(status))
		return -1;
	return pid;
}

static pid_t spawn_stopped(const char *path)
{
	return spawn_stopped_arg(path, NULL);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

struct text_walk {
	struct folio_walk fw;
	const char *path;
	struct folio_report report;
	struct vma_info text;
	int nr_text;
	/* The process's minor and major faults when it stopped. */
	unsigned long minflt, majflt;
};

static int text_vma(const struct vma_info *vma, void *arg)
{
	struct text_walk *tw = arg;

	if (vma->perms[2] != 'x' || strcmp(vma->path, tw->path))
		return 0;
	tw->text = *vma;
	tw->nr_text++;
	return folio_walk_vma(&tw->fw, vma, &tw->report);
}

static int text_find(const struct vma_info *vma, void *arg)
{
	struct text_walk *tw = arg;

	if (vma->perms[2] == 'x' && !strcmp(vma->path, tw->path))
		tw->text = *vma;
	return 0;
}

/*
 * Read every page of @pid's text through /proc/<pid>/mem: the helpers
 * execute one function a page of their own text, not all of the libc
 * code linked in, and a page never faulted is not mapped.  Faulted here,
 * through the same fault path, every whole block of the text VMA can be
 * counted.
 */
static void text_fault_in(pid_t pid, struct text_walk *tw)
{
	unsigned long psize = sysconf(_SC_PAGESIZE), addr;
	char path[64], buf[64];
	int fd;

	tw->text.start = 0;
	tw->text.end = 0;
	if (smaps_foreach(pid, text_find, tw) || !tw->text.end)
		return;
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	for (addr = tw->text.start; addr < tw->text.end; addr += psize)
		if (pread(fd, buf, sizeof(buf), addr) != sizeof(buf))
			break;
	close(fd);
}

/* Walk the executable mappings of @path in @pid. */
static int text_report(pid_t pid, const char *path, struct text_walk *tw)
{
	int ret;

	memset(tw, 0, sizeof(*tw));
	tw->path = path;
	text_fault_in(pid, tw);
	memset(tw, 0, sizeof(*tw));
	tw->path = path;
	tw->fw.page_shift = page_shift();
	tw->fw.pmd_order = folio_walk_pmd_order(tw->fw.page_shift);
	tw->fw.nr_cont = 1;
	tw->fw.cont_orders[0] = folio_walk_contpte_order(tw->fw.page_shift);
	if (folio_walk_open(&tw->fw, pid))
		return -1;
	ret = smaps_foreach(pid, text_vma, tw);
	folio_walk_close(&tw->fw);
	return ret || tw->nr_text != 1 ? -1 : 0;
}

/* Percent of the text in folios of exactly @order (aligned, PTE or PMD). */
static double pct_order(const struct text_walk *tw, unsigned int order)
{
	const struct folio_counts *c = &tw->report.file;
	uint64_t pages = c->aligned[order];

	if (order == tw->fw.pmd_order)
		pages += c->pmd_mapped;
	return folio_percent(c, pages);
}

/* Pages of the text in folios of @order or larger, however mapped. */
static uint64_t pages_from_order(const struct text_walk *tw, unsigned int order)
{
	const struct folio_counts *c = &tw->report.file;
	uint64_t pages = order <= tw->fw.pmd_order ? c->pmd_mapped : 0;

	for (unsigned int o = order; o <= FW_MAX_ORDER; o++)
		pages += c->aligned[o] + c->unaligned[o];
	return pages;
}

/* Percent of the text in folios of @order or larger. */
static double pct_from_order(const struct text_walk *tw, unsigned int order)
{
	return folio_percent(&tw->report.file, pages_from_order(tw, order));
}

/*
 * One line a run, for the harness on the host to build the folio size
 * table: "# folio-dist <label>: <size>=<percent> ...".
 */
static void print_dist(const char *label, const struct text_walk *tw)
{
	const struct folio_counts *c = &tw->report.file;
	unsigned int o, max = tw->fw.pmd_order;
	char line[512];
	int n;

	n = snprintf(line, sizeof(line), "# folio-dist %s: small=%.1f", label,
		     folio_percent(c, c->small));
	for (o = 1; o <= max && o <= FW_MAX_ORDER; o++) {
		unsigned long kb = (1UL << (o + tw->fw.page_shift)) >> 10;
		double p = pct_order(tw, o);

		if (p >= 0.05)
			n += snprintf(line + n, sizeof(line) - n, " %luK=%.1f", kb, p);
	}
	for (o = 1, max = 0; o <= FW_MAX_ORDER; o++)
		max += c->unaligned[o];
	n += snprintf(line + n, sizeof(line) - n,
		      " unaligned=%.1f partial=%.1f pmd=%.1f cont=%.1f resident=%luK",
		      folio_percent(c, max), folio_percent(c, c->partial),
		      folio_percent(c, c->pmd_mapped), folio_percent(c, c->cont[0]),
		      (unsigned long)(c->resident << tw->fw.page_shift) >> 10);
	snprintf(line + n, sizeof(line) - n, " minflt=%lu majflt=%lu",
		 tw->minflt, tw->majflt);
	printf("%s\n", line);
	fflush(stdout);
}

/* Exec @name cold under the current policy; walk, print and reap. */
/* Fields 10 and 12 of /proc/<pid>/stat: minor and major faults. */
static void read_faults(pid_t pid, unsigned long *minflt, unsigned long *majflt)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	*minflt = *majflt = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	/* After the command name, which may hold spaces: state is field 3. */
	p = strrchr(buf, ')');
	if (p)
		sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %lu %*u %lu",
		       minflt, majflt);
}

static int measure(const char *name, const char *label, struct text_walk *tw)
{
	const char *path = helper(name);
	unsigned long minflt, majflt;
	char real[PATH_MAX];
	pid_t pid;
	int ret;

	if (!realpath(path, real))
		return -1;
	pid = spawn_stopped(real);
	if (pid < 0)
		return -1;
	read_faults(pid, &minflt, &majflt);
	ret = text_report(pid, real, tw);
	tw->minflt = minflt;
	tw->majflt = majflt;
	reap(pid);
	if (!ret)
		print_dist(label, tw);
	return ret;
}

/*
 * Expect every whole, naturally aligned block of @order inside the text
 * VMA to be one folio of exactly that order: counted in pages, none may
 * be missing (the partial blocks at the VMA's ends can only be in
 * smaller folios).  A helper of the tests, so the harness's _metadata is
 * passed on.
 */
static void expect_blocks(struct __test_metadata *_metadata,
			  const struct text_walk *tw, const char *label,
			  unsigned int order)
{
	const struct folio_counts *c = &tw->report.file;
	unsigned long nr = 1UL << order;
	unsigned long first = tw->text.start >> tw->fw.page_shift;
	unsigned long last = tw->text.end >> tw->fw.page_shift;
	uint64_t got = c->aligned[order], want;

	if (order == tw->fw.pmd_order)
		got += c->pmd_mapped;
	first = (first + nr - 1) & ~(nr - 1);
	last &= ~(nr - 1);
	want = last > first ? last - first : 0;
	EXPECT_GT(want, 0);
	EXPECT_EQ(got, want)
		TH_LOG("%s: %llu of the %llu pages of whole %luK blocks in order-%u folios",
		       label, (unsigned long long)got, (unsigned long long)want,
		       (nr << tw->fw.page_shift) >> 10, order);
}

/*
 * Two fixtures: "interface" needs only the feature (the knob, the prctl,
 * their checks of bad input); "policy" also needs the helpers on a
 * filesystem with large folios.  Both save the policy and restore it.
 * Returns false when the test is skipped.
 */
static bool exec_folio_setup(struct __test_metadata *_metadata, char *saved,
			     size_t len, bool need_helpers)
{
	struct knob_state st;

	if (getuid() != 0)
		SKIP(return false, "needs root");
	if (!have_knob()) {
		/* Not a skip where the feature must be there. */
		ASSERT_FALSE(feature_required())
			TH_LOG("no " EXEC_FOLIO_SIZE_KNOB);
		SKIP(return false, "this kernel has no " EXEC_FOLIO_SIZE_KNOB);
	}
	snprintf(saved, len, "%s", knob_active(&st));
	EXPECT_NE(saved[0], '\0');
	if (need_helpers && access(helper("bigtext"), X_OK)) {
		ASSERT_FALSE(feature_required())
			TH_LOG("no helpers in %s", helper_dir());
		SKIP(return false, "no helper binaries in %s", helper_dir());
	}
	if (need_helpers && !helpers_on_large_folio_fs()) {
		ASSERT_FALSE(feature_required())
			TH_LOG("%s is not on XFS", helper_dir());
		SKIP(return false, "%s is not on XFS: set EXEC_FOLIO_DIR",
		     helper_dir());
	}
	EXPECT_EQ(prctl(PR_SET_EXEC_FOLIO_SIZE, PR_EXEC_FOLIO_INHERIT, 0, 0, 0), 0);
	return true;
}

static void exec_folio_teardown(const char *saved)
{
	if (saved[0])
		knob_set(saved);
	prctl(PR_SET_EXEC_FOLIO_SIZE, PR_EXEC_FOLIO_INHERIT, 0, 0, 0);
}

FIXTURE(policy) {
	char saved[32];
};

FIXTURE_SETUP(policy)
{
	exec_folio_setup(_metadata, self->saved, sizeof(self->saved), true);
}

FIXTURE_TEARDOWN(policy)
{
	exec_folio_teardown(self->saved);
}

FIXTURE(interface) {
	char saved[32];
};

FIXTURE_SETUP(interface)
{
	exec_folio_setup(_metadata, self->saved, sizeof(self->saved), false);
}

FIXTURE_TEARDOWN(interface)
{
	exec_folio_teardown(self->saved);
}

/*
 * The seed's case, 64K folios with 4K pages (test_order() with larger
 * pages): every whole block of the text is one folio, also the first
 * ones, which the loader's header reads used to put in small folios, and
 * the last ones, next to the read-only data.  Nothing larger.
 */
TEST_F(policy, text_in_explicit_size_folios)
{
	unsigned int order = test_order();
	const char *name = text_helper(order);
	struct text_walk tw;
	char label[32];

	snprintf(label, sizeof(label), "%s@%s", name, test_word());
	ASSERT_EQ(knob_set(test_word()), 0);
	ASSERT_EQ(measure(name, label, &tw), 0);
	EXPECT_GE(pct_order(&tw, order), 90.0);
	expect_blocks(_metadata, &tw, label, order);
	EXPECT_EQ(pages_from_order(&tw, order + 1), 0);
}

/*
 * The default, "arch": on arm64 text in contpte-block folios, at least
 * 90% of it and every whole block (hugetext where the block is 2M, so
 * that there are several), and none larger: with 16K and 64K pages that
 * is the 2M cap.  Elsewhere the ordinary read-around.
 */
TEST_F(policy, arch_gives_contpte_blocks)
{
	unsigned int order = expected_arch_order();
	const char *name = text_helper(order);
	struct text_walk tw;
	char label[32];

	snprintf(label, sizeof(label), "%s@arch", name);
	ASSERT_EQ(knob_set("arch"), 0);
	ASSERT_EQ(measure(name, label, &tw), 0);
	if (!order) {
		EXPECT_LT(pct_from_order(&tw, READ_AROUND_MAX_ORDER + 1), 5.0);
		return;
	}
	EXPECT_GE(pct_order(&tw, order), 90.0);
	expect_blocks(_metadata, &tw, label, order);
	EXPECT_EQ(pages_from_order(&tw, order + 1), 0);
	EXPECT_EQ(tw.report.file.pmd_mapped, 0);
}

/* "never" is the ordinary read-around: no larger folios than it makes. */
TEST_F(policy, never_is_read_around)
{
	struct text_walk tw;

	ASSERT_EQ(knob_set("never"), 0);
	ASSERT_EQ(measure("bigtext", "bigtext@never", &tw), 0);
	EXPECT_LT(pct_from_order(&tw, READ_AROUND_MAX_ORDER + 1), 5.0);
}

/* Every explicit size the knob lists ends up as the text's folio size. */
TEST_F(policy, explicit_sizes)
{
	struct knob_state st;
	int sizes = 0;

	ASSERT_EQ(knob_read(&st), 0);
	for (int i = 0; i < st.nr_words; i++) {
		const char *word = st.words[i];
		unsigned long long bytes;
		unsigned int order;
		struct text_walk tw;
		char label[32];

		if (parse_size(word, &bytes))
			continue;	/* a mode */
		order = __builtin_ctzll(bytes) - page_shift();
		ASSERT_EQ(knob_set(word), 0);
		snprintf(label, sizeof(label), "bigtext-2m@%s", word);
		ASSERT_EQ(measure("bigtext-2m", label, &tw), 0);
		expect_blocks(_metadata, &tw, label, order);
		sizes++;
	}
	EXPECT_GE(sizes, 1);
}

/* auto: PMD-mapped for 2M-aligned text of at least 2M. */
TEST_F(policy, auto_pmd_for_aligned_text)
{
	int pmd_order = folio_walk_pmd_order(page_shift());
	struct text_walk tw;

	ASSERT_GT(pmd_order, 0);
	if (pmd_order + page_shift() > 21)
		SKIP(return, "a PMD is larger than the 2M cap with this page size");
	ASSERT_EQ(knob_set("auto"), 0);
	ASSERT_EQ(measure("bigtext-2m", "bigtext-2m@auto", &tw), 0);
	EXPECT_GT(tw.report.file.pmd_mapped, 0);
	EXPECT_GE(tw.text.file_pmd_kb, 2048);
}

/*
 * auto: for text that cannot hold an aligned PMD, the arch's size, or 64K
 * where it has none.
 */
TEST_F(policy, auto_arch_size_for_ordinary_text)
{
	unsigned int order = expected_arch_order();
	struct text_walk tw;
	char label[32];

	if (!order && page_shift() >= 16)
		SKIP(return, "no arch size, and 64K is a single page");
	if (!order)
		order = 16 - page_shift();
	snprintf(label, sizeof(label), "%s@auto", text_helper(order));
	ASSERT_EQ(knob_set("auto"), 0);
	ASSERT_EQ(measure(text_helper(order), label, &tw), 0);
	expect_blocks(_metadata, &tw, label, order);
	EXPECT_EQ(tw.report.file.pmd_mapped, 0);
}

/*
 * auto: tiny text gets no folio larger than its VMA (one page on x86_64;
 * aarch64 pads it to 64K) or than read-around makes.  tinytext's file is
 * 1M larger than its text, so a read that ignored the text VMA's size
 * would show.
 */
/*
 * The largest order of the folios that back the text of @name, exec'd
 * cold under the current policy; -1 on error.
 */
static int max_text_folio_order(const char *name)
{
	unsigned long psize = sysconf(_SC_PAGESIZE), addr;
	struct text_walk tw = { 0 };
	char real[PATH_MAX];
	int order, max = -1;
	pid_t pid;

	if (!realpath(helper(name), real))
		return -1;
	pid = spawn_stopped(real);
	if (pid < 0)
		return -1;
	tw.path = real;
	text_fault_in(pid, &tw);
	tw.fw.page_shift = page_shift();
	if (tw.text.end && !folio_walk_open(&tw.fw, pid)) {
		for (addr = tw.text.start; addr < tw.text.end; addr += psize) {
			order = folio_walk_folio_order(&tw.fw, addr);
			if (order < 0) {
				max = -1;
				break;
			}
			if (order > max)
				max = order;
		}
		folio_walk_close(&tw.fw);
	}
	reap(pid);
	return max;
}

TEST_F(policy, auto_small_for_tiny_text)
{
	unsigned int allowed = READ_AROUND_MAX_ORDER, o64k, exec_read;
	int largest;
	unsigned long pages;
	struct text_walk tw;

	ASSERT_EQ(knob_set("auto"), 0);
	ASSERT_EQ(measure("tinytext", "tinytext@auto", &tw), 0);
	pages = (tw.text.end - tw.text.start) >> page_shift();
	ASSERT_GT(pages, 0);
	while ((2UL << allowed) <= pages)
		allowed++;
	EXPECT_EQ(pages_from_order(&tw, allowed + 1), 0)
		TH_LOG("a folio larger than the %lu-page text VMA", pages);
	/*
	 * A folio that goes past the VMA is only partly mapped, and
	 * counted as "partial" above, whatever its size: so look at the
	 * size of each folio of the text itself.  Where the text shares the
	 * file's first block with the ELF headers (x86_64: headers in page
	 * 0, text in page 1), execve() has read that block before any fault,
	 * in the size it reads a binary in under "auto": the arch's size or
	 * 64K.  Nothing may be larger.
	 */
	o64k = page_shift() < 16 ? 16 - page_shift() : 0;
	exec_read = expected_arch_order() > o64k ? expected_arch_order() : o64k;
	if (tw.text.pgoff < (1ULL << (exec_read + page_shift())) && exec_read > allowed)
		allowed = exec_read;
	largest = max_text_folio_order("tinytext");
	EXPECT_GE(largest, 0);
	EXPECT_LE(largest, (int)allowed)
		TH_LOG("an order-%d folio holds the %lu-page text VMA", largest, pages);
}

/*
 * The first text block of a binary linked with -z noseparate-code (the
 * aarch64 default) also holds the ELF headers, which execve() reads
 * before the first fault.  Those reads are done in the policy's folio
 * size, so that block is one folio too: no whole block is missing.
 */
TEST_F(policy, header_block_in_large_folio)
{
	unsigned int order = test_order();
	struct text_walk tw;
	char label[48];

	if (access(helper("bigtext-nosep"), X_OK))
		SKIP(return, "no bigtext-nosep helper");
	snprintf(label, sizeof(label), "bigtext-nosep@%s", test_word());
	ASSERT_EQ(knob_set(test_word()), 0);
	ASSERT_EQ(measure("bigtext-nosep", label, &tw), 0);
	/* The text VMA starts at file offset 0, with the headers. */
	EXPECT_EQ(tw.text.pgoff, 0);
	expect_blocks(_metadata, &tw, label, order);
}

/*
 * The same for a PMD folio, under "auto": bigtext-nosep is not a PIE, but
 * its text is linked at 0x400000 from file offset 0, congruent modulo 2M,
 * so its first 2M block (with the ELF headers) is PMD-mapped like the
 * others, not left in the folios execve() read the headers in.
 */
TEST_F(policy, header_block_pmd_mapped_non_pie)
{
	int pmd_order = folio_walk_pmd_order(page_shift());
	struct text_walk tw;

	ASSERT_GT(pmd_order, 0);
	if (pmd_order + page_shift() > 21)
		SKIP(return, "a PMD is larger than the 2M cap with this page size");
	if (access(helper("bigtext-nosep"), X_OK))
		SKIP(return, "no bigtext-nosep helper");
	ASSERT_EQ(knob_set("auto"), 0);
	ASSERT_EQ(measure("bigtext-nosep", "bigtext-nosep@auto", &tw), 0);
	ASSERT_EQ(tw.text.pgoff, 0);
	ASSERT_EQ(tw.text.start & ((1UL << (pmd_order + page_shift())) - 1), 0);
	expect_blocks(_metadata, &tw, "bigtext-nosep@auto", pmd_order);
	EXPECT_GT(tw.report.file.pmd_mapped, 0);
}

/*
 * Text of which a few pages were read before the exec (a read() of the
 * file, a scanner, the loader of another binary): each block holding a
 * cached page is filled around it with the largest aligned folios that
 * fit (one page before it, then 2, 4, ... pages), not with single pages,
 * and every other whole block is still one folio, also the first, next
 * to the file's start, which was read too.  The pages are read with
 * POSIX_FADV_RANDOM, so that exactly they are cached (mincore() checks
 * those of the text), each the second page of its block.
 */
TEST_F(policy, text_fills_around_cached_pages)
{
	unsigned int order = test_order(), i;
	unsigned long psize = sysconf(_SC_PAGESIZE), nr = 1UL << order;
	unsigned long start, first, last, pick[3], npages, cached = 0;
	uint64_t base_small, want;
	const char *path = helper(text_helper(order));
	struct text_walk tw;
	unsigned char *vec;
	char real[PATH_MAX], buf[64];
	void *map;
	pid_t pid;
	int fd;

	ASSERT_EQ(knob_set(test_word()), 0);
	ASSERT_EQ(measure(text_helper(order), "fill-around@baseline", &tw), 0);
	base_small = tw.report.file.small;
	/* The whole blocks of the text, in file pages. */
	start = tw.text.pgoff / psize;
	first = (start + nr - 1) & ~(nr - 1);
	last = (start + (tw.text.end - tw.text.start) / psize) & ~(nr - 1);
	ASSERT_GE(last - first, 8 * nr);
	pick[0] = first + nr;
	pick[1] = first + ((last - first) / nr / 2) * nr;
	pick[2] = last - 2 * nr;

	ASSERT_NE(realpath(path, real), NULL);
	ASSERT_EQ(cold_cache(), 0);
	fd = open(real, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	/* The file's start too (its headers), as a scanner's read() would. */
	ASSERT_EQ(pread(fd, buf, sizeof(buf), 0), sizeof(buf));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(pread(fd, buf, sizeof(buf), (pick[i] + 1) * psize), sizeof(buf));
	npages = last + nr - start;
	map = mmap(NULL, npages * psize, PROT_READ, MAP_SHARED, fd, start * psize);
	ASSERT_NE(map, MAP_FAILED);
	vec = malloc(npages);
	ASSERT_NE(vec, NULL);
	ASSERT_EQ(mincore(map, npages * psize, vec), 0);
	for (i = 0; i < npages; i++)
		cached += vec[i] & 1;
	free(vec);
	munmap(map, npages * psize);
	close(fd);
	ASSERT_EQ(cached, 3 + !start)
		TH_LOG("%lu text pages cached before the exec, not %d", cached, 3 + !start);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		execl(real, real, "--stop", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(waitpid(pid, &fd, WUNTRACED), pid);
	ASSERT_TRUE(WIFSTOPPED(fd));
	ASSERT_EQ(text_report(pid, real, &tw), 0);
	reap(pid);
	print_dist("fill-around@3-cached-pages", &tw);
	/*
	 * Per cached page: it and the one-page gap before it.  Where the
	 * text starts in the file's first block (x86_64: at page 1), the
	 * cached first page leaves the page after it alone too.
	 */
	EXPECT_LE(tw.report.file.small, base_small + 2 * 3 + (start < nr ? 2 : 0))
		TH_LOG("%llu pages in single-page folios, %llu without the cached pages",
		       (unsigned long long)tw.report.file.small,
		       (unsigned long long)base_small);
	want = (last - first) - 3 * nr;
	EXPECT_EQ(tw.report.file.aligned[order] +
		  (order == tw.fw.pmd_order ? tw.report.file.pmd_mapped : 0), want)
		TH_LOG("%llu pages of the other whole blocks in order-%u folios, want %llu",
		       (unsigned long long)tw.report.file.aligned[order], order,
		       (unsigned long long)want);
}

/* The Rss of our own mapping that starts at @addr, in kB; -1 if none. */
struct rss_find {
	unsigned long addr;
	long kb;
};

static int rss_vma(const struct vma_info *vma, void *arg)
{
	struct rss_find *f = arg;

	if (vma->start != f->addr)
		return 0;
	f->kb = vma->rss_kb;
	return 1;
}

/*
 * Map @len bytes of @fd PROT_READ|PROT_EXEC, fault one byte 1M + 12K in
 * (through /proc/self/mem, the fault path text_fault_in() uses), and
 * return the mapping's Rss in kB (-1 on error).
 */
static long rss_after_one_exec_fault(int fd, size_t len)
{
	struct rss_find f = { .kb = -1 };
	int mem = open("/proc/self/mem", O_RDONLY);
	char *map, c;

	if (mem < 0)
		return -1;
	map = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (map != MAP_FAILED) {
		f.addr = (unsigned long)map;
		if (pread(mem, &c, 1, f.addr + (1UL << 20) + 12288) == 1)
			smaps_foreach(getpid(), rss_vma, &f);
		munmap(map, len);
	}
	close(mem);
	return f.kb;
}

/*
 * What the policy does not read, it does not map either: a fault on a
 * PROT_EXEC mapping maps what is in the page cache, as any file fault
 * does, whatever the policy.  Under "2M" (and "auto"), one fault maps
 * as much as under "never" for text cached in small folios (read() with
 * POSIX_FADV_RANDOM before), and for a memfd (shmem, whose folio sizes
 * the policy does not decide: JIT double mappings).  It used to map a
 * whole 2M window of PTEs in both cases.
 */
TEST_F(policy, exec_fault_maps_what_is_cached)
{
	size_t len = 4UL << 20;
	char path[PATH_MAX], *buf;
	long never_kb, big_kb;
	int fd, mfd;

	snprintf(path, sizeof(path), "%s/exec_folio_data", helper_dir());
	buf = malloc(len);
	ASSERT_NE(buf, NULL);
	memset(buf, 0xc3, len);		/* "ret" on x86: harmless as text */
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pwrite(fd, buf, len, 0), (ssize_t)len);
	ASSERT_EQ(fsync(fd), 0);
	mfd = memfd_create("exec_folio_jit", 0);
	ASSERT_GE(mfd, 0);
	ASSERT_EQ(pwrite(mfd, buf, len, 0), (ssize_t)len);

	/* The file, cached in single pages. */
	ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	ASSERT_EQ(pread(fd, buf, len, 0), (ssize_t)len);

	for (int i = 0; i < 2; i++) {
		int f = i ? mfd : fd;

		ASSERT_EQ(knob_set("never"), 0);
		never_kb = rss_after_one_exec_fault(f, len);
		ASSERT_EQ(knob_set("2M"), 0);
		big_kb = rss_after_one_exec_fault(f, len);
		TH_LOG("%s: one fault maps %ld kB under never, %ld kB under 2M",
		       i ? "memfd" : "file cached in pages", never_kb, big_kb);
		EXPECT_GT(never_kb, 0);
		EXPECT_EQ(big_kb, never_kb);
	}

	close(mfd);
	close(fd);
	unlink(path);
	free(buf);
}

/*
 * The read never goes past the text VMA: bigtext-2m has about 1M of
 * file padding between its text and its read-only data, and none of the
 * padding right after the text may be in the page cache afterwards.
 */
TEST_F(policy, padding_after_text_not_read)
{
	unsigned long psize = sysconf(_SC_PAGESIZE), text_end, check, cached = 0;
	const char *path = helper("bigtext-2m");
	struct text_walk tw;
	unsigned char *vec;
	struct stat st;
	void *map;
	int fd;

	ASSERT_EQ(knob_set(test_word()), 0);
	ASSERT_EQ(measure("bigtext-2m", "padding-check", &tw), 0);
	text_end = tw.text.pgoff + (tw.text.end - tw.text.start);
	check = 256 << 10;

	fd = open(path, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fstat(fd, &st), 0);
	ASSERT_GE((unsigned long)st.st_size, text_end + check);
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(map, MAP_FAILED);
	vec = calloc(st.st_size / psize + 1, 1);
	ASSERT_NE(vec, NULL);
	ASSERT_EQ(mincore(map, st.st_size, vec), 0);
	for (unsigned long off = text_end; off < text_end + check; off += psize)
		if (vec[off / psize] & 1)
			cached++;
	EXPECT_EQ(cached, 0) TH_LOG("%lu padding pages after the text are cached", cached);
	free(vec);
	munmap(map, st.st_size);
	close(fd);
}

/* Pages of [@map, @map + @len) in the page cache; -1 on error. */
static long cached_pages(char *map, size_t len)
{
	unsigned long psize = sysconf(_SC_PAGESIZE), n = len / psize;
	unsigned char *vec = malloc(n);
	long cached = 0;

	if (!vec || mincore(map, len, vec)) {
		free(vec);
		return -1;
	}
	for (unsigned long i = 0; i < n; i++)
		cached += vec[i] & 1;
	free(vec);
	return cached;
}

/*
 * Map @len bytes of @fd from @off PROT_READ | PROT_EXEC at an address
 * aligned to @align, so that nothing but the policy decides the folio
 * size.  The mapping sits in a reservation of @len + @align: unmap that
 * much, from *@area.
 */
static char *map_exec_aligned(int fd, size_t len, size_t align, off_t off,
			      char **area)
{
	char *map;

	*area = mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*area == MAP_FAILED)
		return MAP_FAILED;
	map = (char *)(((unsigned long)*area + align - 1) & ~(align - 1));
	return mmap(map, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, off);
}

/*
 * MADV_RANDOM on text is honoured as on any mapping: a miss reads the
 * faulting page only, not a large folio (nor a read-around window).
 */
TEST_F(policy, exec_mapping_honours_madv_random)
{
	const char *path = helper("bigtext-2m");
	unsigned long len = 1UL << 20, off = 2UL << 20;
	int fd, pipefd[2];
	long cached;
	char *map;

	ASSERT_EQ(knob_set(test_word()), 0);
	ASSERT_EQ(cold_cache(), 0);
	fd = open(path, O_RDONLY);
	ASSERT_GE(fd, 0);
	map = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
	ASSERT_NE(map, MAP_FAILED);
	ASSERT_EQ(madvise(map, len, MADV_RANDOM), 0);
	/* Fault the first page in: writing to a pipe copies from it. */
	ASSERT_EQ(pipe(pipefd), 0);
	ASSERT_EQ(write(pipefd[1], map, 1), 1);
	close(pipefd[0]);
	close(pipefd[1]);
	cached = cached_pages(map, len);
	EXPECT_EQ(cached, 1) TH_LOG("%ld pages read for one random fault", cached);
	munmap(map, len);
	close(fd);
}

/*
 * A file's mmap_miss counts its page cache misses, and above 100 it
 * stops read-around, which would only hurt a file read at random.  A
 * text miss maps its whole folio at once, so nothing counts it back: a
 * program with more than 100 blocks of text used to get single pages
 * after its 100th.  Text reads go on past that limit, one folio at the
 * fault.  hugetext (10M) has 160 blocks of 64K.
 */
TEST_F(policy, text_past_miss_limit_in_policy_folios)
{
	unsigned int order = test_order();
	unsigned long blocks = (10240UL << 10) >> (order + page_shift());
	struct text_walk tw;
	char label[32];

	if (blocks < 128)
		SKIP(return, "hugetext has %lu blocks of %s, fewer than 128",
		     blocks, test_word());
	snprintf(label, sizeof(label), "hugetext@%s", test_word());
	ASSERT_EQ(knob_set(test_word()), 0);
	ASSERT_EQ(measure("hugetext", label, &tw), 0);
	expect_blocks(_metadata, &tw, label, order);
	EXPECT_EQ(pages_from_order(&tw, order + 1), 0);
}

/*
 * A sparse file of @len bytes in the helpers' directory (XFS), open as
 * *@fd and again, read-only, as *@fd2 if @fd2 is not NULL, then unlinked:
 * its holes read as zeroes with no disk I/O, and the page cache they take
 * is what the tests count.  0 or -1.
 */
static int sparse_file(size_t len, int *fd, int *fd2)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sparse-exec-data", helper_dir());
	*fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (*fd < 0)
		return -1;
	if (fd2)
		*fd2 = open(path, O_RDONLY);
	unlink(path);
	if ((fd2 && *fd2 < 0) || ftruncate(*fd, len))
		return -1;
	return 0;
}

/* A read fault on the page at @p, as a load from it would take. */
static int touch(char *p)
{
	return madvise(p, sysconf(_SC_PAGESIZE), MADV_POPULATE_READ);
}

#define RANDOM_DATA_BLOCKS	256
#define RANDOM_DATA_FAULTS	100

/*
 * Under the policy @word, map a sparse file of 256 blocks of @blk bytes
 * with @prot and read one page in each of 2 x 100 of them, in a
 * scattered order; *@first and *@second: the pages the first and the
 * second 100 misses read.  0 or -1.
 */
static int random_reads(const char *word, int prot, unsigned long blk,
			long *first, long *second)
{
	unsigned long psize = sysconf(_SC_PAGESIZE), blk_pages = blk / psize;
	size_t len = RANDOM_DATA_BLOCKS * blk;
	char *area, *map;
	int fd, ret = -1;

	if (knob_set(word) || sparse_file(len, &fd, NULL))
		return -1;
	map = map_exec_aligned(fd, len, blk, 0, &area);
	if (map == MAP_FAILED || mprotect(map, len, prot))
		goto out;
	for (unsigned long i = 0; i < 2 * RANDOM_DATA_FAULTS; i++) {
		unsigned long block = i * 97 % RANDOM_DATA_BLOCKS;
		unsigned long page = i * 37 % blk_pages;

		if (touch(map + block * blk + page * psize))
			goto out;
		if (i == RANDOM_DATA_FAULTS - 1)
			*first = cached_pages(map, len);
	}
	*second = cached_pages(map, len) - *first;
	ksft_print_msg("random reads, %s, %luK%s: first 100 misses %ld kB, next 100 %ld kB\n",
		       word, blk >> 10, prot & PROT_EXEC ? " exec" : "",
		       *first * (long)(psize >> 10), *second * (long)(psize >> 10));
	ret = 0;
out:
	if (map != MAP_FAILED)
		munmap(area, len + blk);
	close(fd);
	if (cold_cache())
		ret = -1;
	return ret;
}

/*
 * What bounds the I/O of a large PROT_EXEC mapping of data read at
 * random (a JIT cache, a class-data archive) that has no MADV_RANDOM:
 * the first 100 misses on the file read a whole folio each, 2M under
 * "2M", mapped by a PMD, or 1M under "1M", mapped by PTEs; then the
 * file's mmap_miss is past its limit, and a miss reads its page only.
 * The retry of each miss, which maps what the miss read, used to count
 * 1M folios' 256 pages as hits, and they were read for ever.  Under
 * "never" a data mapping's read-around stops the same way.
 */
TEST_F(policy, random_exec_data_reads_shrink_past_miss_limit)
{
	static const struct {
		const char *word;
		int prot;
		unsigned long blk;
		bool large;
	} cases[] = {
		{ "2M", PROT_READ | PROT_EXEC, 2UL << 20, true },
		{ "1M", PROT_READ | PROT_EXEC, 1UL << 20, true },
		{ "never", PROT_READ, 1UL << 20, false },
	};
	unsigned long psize = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		long first = 0, second = 0;
		/* Pages a miss reads at least: a folio, or two pages. */
		long want = 2;

		if (cases[i].large)
			want = cases[i].blk / psize;

		ASSERT_EQ(random_reads(cases[i].word, cases[i].prot, cases[i].blk,
				       &first, &second), 0);
		/* Large reads first, so that the bound can be told apart. */
		EXPECT_GE(first, (long)(RANDOM_DATA_FAULTS * want * 9 / 10))
			TH_LOG("%s: the first misses read %ld pages", cases[i].word, first);
		EXPECT_EQ(second, RANDOM_DATA_FAULTS)
			TH_LOG("%s: the next misses read %ld pages", cases[i].word, second);
	}
}

#define REFUND_MISSES	130

/*
 * A fault-around hit counts back only the pages fault-around was asked
 * for (fault_around_bytes), not the rest of the large folio it maps at
 * the same time.  Counting the whole folio took up to 512 off mmap_miss
 * per hit, so one hit in a few hundred misses kept large reads of data
 * read at random going for ever.  Here, with 1M folios: 130 misses take
 * the file's mmap_miss past its limit of 100; then a fault on a folio
 * that another open file cached, which fault-around maps whole; then the
 * next miss must still be past the limit: its page only, not 1M.
 */
TEST_F(policy, fault_around_hit_refunds_only_its_window)
{
	unsigned long psize = sysconf(_SC_PAGESIZE), blk = 1UL << 20;
	unsigned long blk_pages = blk / psize, last = REFUND_MISSES + 10;
	size_t len = (last + 1) * blk;
	char *area, *map, *area2, *other;
	long cached;
	int fd, fd2;

	if (psize >= 64 << 10)
		SKIP(return, "no fault-around with 64K pages (fault_around_bytes)");
	ASSERT_EQ(knob_set("1M"), 0);
	ASSERT_EQ(sparse_file(len, &fd, &fd2), 0);
	map = map_exec_aligned(fd, len, blk, 0, &area);
	ASSERT_NE(map, MAP_FAILED);
	other = map_exec_aligned(fd2, len, blk, 0, &area2);
	ASSERT_NE(other, MAP_FAILED);
	/* Block 0 read through the other file: its own mmap_miss. */
	ASSERT_EQ(touch(other), 0);
	EXPECT_EQ(cached_pages(map, blk), (long)blk_pages);
	for (unsigned long i = 1; i <= REFUND_MISSES; i++)
		ASSERT_EQ(touch(map + i * blk + (i * 37 % blk_pages) * psize), 0);
	cached = cached_pages(map + blk, 100 * blk);
	EXPECT_GE(cached, (long)(90 * blk_pages))
		TH_LOG("the first 100 misses read %ld pages", cached);
	/* The hit: fault-around maps block 0's 1M folio. */
	ASSERT_EQ(touch(map + (blk_pages / 2) * psize), 0);
	/* The next miss. */
	ASSERT_EQ(touch(map + last * blk), 0);
	cached = cached_pages(map + last * blk, blk);
	ksft_print_msg("%d misses, a fault-around hit on a 1M folio, then a miss read %ld kB\n",
		       REFUND_MISSES, cached * (long)(psize >> 10));
	EXPECT_EQ(cached, 1);
	munmap(area, len + blk);
	munmap(area2, len + blk);
	close(fd);
	close(fd2);
	EXPECT_EQ(cold_cache(), 0);
}

/* A load into it is a read fault the compiler cannot drop. */
char exec_folio_sink;

/*
 * A fault on a large folio already in the page cache maps the whole
 * folio at once, not only the pages fault-around asks for
 * (fault_around_bytes, 64K: 16 pages with 4K pages, 4 with 16K): what
 * lets arm64 map cached text with contiguous PTEs, and rmap mlock a
 * folio on map.  Another mapping of the file reads a 256K folio; a fresh
 * mapping's first fault there must map all of it.  With 64K pages there
 * is no fault-around.
 */
TEST_F(policy, fault_around_maps_cached_folio_whole)
{
	unsigned long psize = sysconf(_SC_PAGESIZE), blk = 256UL << 10;
	struct rss_find f = { .kb = -1 };
	struct folio_walk fw = { 0 };
	char *area, *map, *area2, *other;
	size_t len = 4 * blk;
	int fd, fd2, order;

	if (psize >= 64 << 10)
		SKIP(return, "no fault-around with 64K pages (fault_around_bytes)");
	ASSERT_EQ(knob_set("256K"), 0);
	ASSERT_EQ(sparse_file(len, &fd, &fd2), 0);
	other = map_exec_aligned(fd2, len, blk, 0, &area2);
	ASSERT_NE(other, MAP_FAILED);
	ASSERT_EQ(touch(other + blk), 0);
	fw.page_shift = page_shift();
	ASSERT_EQ(folio_walk_open(&fw, getpid()), 0);
	order = folio_walk_folio_order(&fw, (unsigned long)other + blk);
	folio_walk_close(&fw);
	ASSERT_GE(order, 0);
	ASSERT_EQ(order_bytes(order), blk)
		TH_LOG("the other mapping read an order-%d folio, not 256K", order);
	map = map_exec_aligned(fd, len, blk, 0, &area);
	ASSERT_NE(map, MAP_FAILED);
	/* A load from the fifth page of the cached folio. */
	exec_folio_sink = map[blk + 5 * psize];
	f.addr = (unsigned long)map;
	smaps_foreach(getpid(), rss_vma, &f);
	ksft_print_msg("one fault on a cached 256K folio maps %ld kB\n", f.kb);
	EXPECT_EQ(f.kb, (long)(blk >> 10))
		TH_LOG("one fault on a cached 256K folio mapped %ld kB, not all of it", f.kb);
	munmap(area, len + blk);
	munmap(area2, len + blk);
	close(fd);
	close(fd2);
	EXPECT_EQ(cold_cache(), 0);
}

/*
 * A process that opted out of THP (PR_SET_THP_DISABLE, kept across
 * execve) reads text as under "never" under "auto" and "2M", as the
 * opt-out disables every anonymous mTHP order.  If it chose a size with
 * PR_SET_EXEC_FOLIO_SIZE after opting out, that size wins, without the
 * PMD-size folio do_set_pmd() would not map: the largest size below.
 * Without the opt-out the same binary is PMD-mapped, so the test can
 * tell them apart.
 */
TEST_F(policy, thp_disabled_process_reads_as_never)
{
	int pmd_order = folio_walk_pmd_order(page_shift());
	static const char * const policies[] = { "auto", "2M" };
	struct text_walk tw;
	char label[48];

	if (pmd_order + page_shift() > 21)
		SKIP(return, "a PMD is larger than the 2M cap with this page size");
	ASSERT_EQ(knob_set("auto"), 0);
	ASSERT_EQ(measure("bigtext-2m", "bigtext-2m@auto", &tw), 0);
	ASSERT_GT(tw.report.file.pmd_mapped, 0);
	for (size_t i = 0; i < ARRAY_SIZE(policies); i++) {
		ASSERT_EQ(knob_set(policies[i]), 0);
		ASSERT_EQ(prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0), 0);
		snprintf(label, sizeof(label), "bigtext-2m@%s+thp-disable",
			 policies[i]);
		ASSERT_EQ(measure("bigtext-2m", label, &tw), 0);
		ASSERT_EQ(prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0), 0);
		EXPECT_EQ(tw.report.file.pmd_mapped, 0);
		EXPECT_LT(pct_from_order(&tw, READ_AROUND_MAX_ORDER + 1), 5.0);
	}
	/* A size chosen after the opt-out wins, below the PMD size. */
	ASSERT_EQ(knob_set("auto"), 0);
	ASSERT_EQ(prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0), 0);
	ASSERT_EQ(prctl(PR_SET_EXEC_FOLIO_SIZE, 2UL << 20, 0, 0, 0), 0);
	ASSERT_EQ(measure("bigtext-2m", "bigtext-2m@auto+thp-disable+prctl-2M", &tw), 0);
	ASSERT_EQ(prctl(PR_SET_EXEC_FOLIO_SIZE, PR_EXEC_FOLIO_INHERIT, 0, 0, 0), 0);
	ASSERT_EQ(prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0), 0);
	EXPECT_EQ(pages_from_order(&tw, pmd_order), 0);
	EXPECT_EQ(tw.report.file.pmd_mapped, 0);
	EXPECT_GE(pct_from_order(&tw, 4), 50.0);
	/* One chosen before the opt-out does not. */
	ASSERT_EQ(prctl(PR_SET_EXEC_FOLIO_SIZE, 2UL << 20, 0, 0, 0), 0);
	ASSERT_EQ(prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0), 0);
	ASSERT_EQ(measure("bigtext-2m", "bigtext-2m@auto+prctl-2M+thp-disable", &tw), 0);
	ASSERT_EQ(prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0), 0);
	ASSERT_EQ(prctl(PR_SET_EXEC_FOLIO_SIZE, PR_EXEC_FOLIO_INHERIT, 0, 0, 0), 0);
	EXPECT_LT(pct_from_order(&tw, READ_AROUND_MAX_ORDER + 1), 5.0);
}

#define THP_ENABLED	"/sys/kernel/mm/transparent_hugepage/enabled"

/* The active word of THP_ENABLED ("always [madvise] never"), "" if unread. */
static void thp_enabled_read(char *word, size_t len)
{
	FILE *f = fopen(THP_ENABLED, "re");
	char buf[64], *lb, *rb;

	word[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	lb = strchr(buf, '[');
	rb = lb ? strchr(lb, ']') : NULL;
	if (rb) {
		*rb = '\0';
		snprintf(word, len, "%s", lb + 1);
	}
}

/* Write @word to the file at @path from offset 0, as one write; 0 or -1. */
static int write_word(const char *path, const char *word)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, word, strlen(word));
	close(fd);
	return n == (ssize_t)strlen(word) ? 0 : -1;
}

/*
 * With transparent_hugepage/enabled at "never", "auto" gives 2M-aligned
 * text no PMD-size folio (as glibc.elf.thp aligns nothing then), only
 * its size below; the explicit "2M" still does.
 */
TEST_F(policy, auto_respects_thp_enabled_never)
{
	int pmd_order = folio_walk_pmd_order(page_shift());
	struct text_walk tw, tw2m;
	char saved[16];
	int ret, ret2m;

	if (pmd_order + page_shift() > 21)
		SKIP(return, "a PMD is larger than the 2M cap with this page size");
	thp_enabled_read(saved, sizeof(saved));
	ASSERT_NE(saved[0], '\0');
	ASSERT_EQ(write_word(THP_ENABLED, "never"), 0);
	ret = knob_set("auto") ? -1 :
	      measure("bigtext-2m", "bigtext-2m@auto+thp-never", &tw);
	ret2m = knob_set("2M") ? -1 :
		measure("bigtext-2m", "bigtext-2m@2M+thp-never", &tw2m);
	ASSERT_EQ(write_word(THP_ENABLED, saved), 0);
	ASSERT_EQ(ret, 0);
	ASSERT_EQ(ret2m, 0);
	EXPECT_EQ(tw.report.file.pmd_mapped, 0);
	EXPECT_EQ(pages_from_order(&tw, pmd_order), 0);
	EXPECT_GE(pct_from_order(&tw, 4), 50.0);
	EXPECT_GT(tw2m.report.file.pmd_mapped, 0);
}

/*
 * A text mapping with MADV_NOHUGEPAGE is read as under "never", also
 * under "2M": no PMD-size folio, and the folio sizes the same mapping
 * gets under "never" (the ordinary read-around, whose asynchronous part
 * grows its folios), where without the opt-out it is one PMD folio.
 */
TEST_F(policy, nohugepage_text_gets_no_pmd_folio)
{
	int pmd_order = folio_walk_pmd_order(page_shift());
	const char *path = helper("bigtext-2m");
	static const struct {
		const char *knob, *label;
		int advice;
	} runs[] = {
		{ "never", "map-2m@never", MADV_NORMAL },
		{ "2M", "map-2m", MADV_NORMAL },
		{ "2M", "map-2m+nohugepage", MADV_NOHUGEPAGE },
	};
	size_t len = 2UL << 20;
	uint64_t never_large = 0;

	if (pmd_order + page_shift() != 21)
		SKIP(return, "needs a 2M PMD");
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		struct text_walk tw;
		char real[PATH_MAX];
		char *area, *map;
		uint64_t large;
		int fd;

		ASSERT_EQ(knob_set(runs[i].knob), 0);
		ASSERT_EQ(cold_cache(), 0);
		ASSERT_NE(realpath(path, real), NULL);
		fd = open(real, O_RDONLY);
		ASSERT_GE(fd, 0);
		/* bigtext-2m's second 2M of file, 2M-aligned. */
		map = map_exec_aligned(fd, len, len, len, &area);
		ASSERT_NE(map, MAP_FAILED);
		ASSERT_EQ(madvise(map, len, runs[i].advice), 0);
		/* Read faults on every page, as execution would make. */
		ASSERT_EQ(madvise(map, len, MADV_POPULATE_READ), 0);
		ASSERT_EQ(text_report(getpid(), real, &tw), 0);
		print_dist(runs[i].label, &tw);
		large = pages_from_order(&tw, READ_AROUND_MAX_ORDER + 1);
		if (i == 0) {
			never_large = large;
		} else if (runs[i].advice == MADV_NORMAL) {
			EXPECT_EQ(pages_from_order(&tw, pmd_order), len >> page_shift());
		} else {
			EXPECT_EQ(pages_from_order(&tw, pmd_order), 0);
			/* Opted out: what "never" reads, within an eighth. */
			EXPECT_LE(large > never_large ? large - never_large :
				  never_large - large, (len >> page_shift()) / 8) {
				TH_LOG("%lu pages in folios above order %d, %lu under never",
				       (unsigned long)large, READ_AROUND_MAX_ORDER,
				       (unsigned long)never_large);
			}
		}
		munmap(area, 2 * len);
		close(fd);
	}
}

#define MIN_FREE_KBYTES	"/proc/sys/vm/min_free_kbytes"

/* Write @val to the sysctl at @path from offset 0; 0 or -1. */
static int write_long(const char *path, long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", val);
	return write_word(path, buf);
}

/*
 * While the node is below its high watermark (min_free_kbytes raised
 * until it is: where kswapd keeps a machine whose page cache has filled
 * memory), "auto" still gives 2M-aligned text PMD-size folios: the read
 * asks the page allocator for them as readahead does and steps down
 * only when it cannot give them.  The policy itself does not call that
 * state short.
 */
TEST_F(policy, pressure_keeps_auto_pmd)
{
	long free_kb = 0, old_min = 0;
	struct text_walk tw;
	char line[128];
	FILE *f;
	int ret;

	if (folio_walk_pmd_order(page_shift()) + page_shift() > 21)
		SKIP(return, "a PMD is larger than the 2M cap with this page size");
	ASSERT_EQ(knob_set("auto"), 0);
	ASSERT_EQ(cold_cache(), 0);
	f = fopen("/proc/meminfo", "r");
	ASSERT_NE(f, NULL);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemFree: %ld kB", &free_kb) == 1)
			break;
	fclose(f);
	f = fopen(MIN_FREE_KBYTES, "r");
	ASSERT_NE(f, NULL);
	ASSERT_EQ(fscanf(f, "%ld", &old_min), 1);
	fclose(f);
	ASSERT_GT(free_kb, 0);

	/* high = min + min / 4 or more: 0.85 of free puts high above it. */
	ASSERT_EQ(write_long(MIN_FREE_KBYTES, free_kb * 85 / 100), 0);
	ret = measure("bigtext-2m", "bigtext-2m@auto+pressure", &tw);
	ASSERT_EQ(write_long(MIN_FREE_KBYTES, old_min), 0);
	ASSERT_EQ(ret, 0);
	EXPECT_GT(tw.report.file.pmd_mapped, 0);
}

/* The counters are there, and large text folios are counted. */
TEST_F(policy, stats_count_large_folios)
{
	struct text_walk tw;
	long before = stat_read("alloc");

	ASSERT_GE(before, 0);
	ASSERT_GE(stat_read("fallback"), 0);
	ASSERT_EQ(knob_set(test_word()), 0);
	ASSERT_EQ(measure("bigtext", "bigtext@stats", &tw), 0);
	EXPECT_GT(stat_read("alloc"), before);
}

/*
 * Only text faults are counted.  A private read-only mapping of a binary
 * shorter than the read-around window (as ld.so maps a library's
 * segments), faulted by a process whose text is read in large folios, is
 * read in order-2 folios inside the mapping (exec_folio_binary_ra()):
 * those are data, and alloc must not move.  With 64K pages the window is
 * inside the mapping and ordinary read-around reads it.
 */
TEST_F(policy, stats_count_only_text)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = 16 * page;
	long before, after;
	char *map;
	int fd;

	ASSERT_EQ(knob_set(test_word()), 0);
	fd = open(helper("bigtext"), O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(cold_cache(), 0);
	before = stat_read("alloc");
	ASSERT_GE(before, 0);
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(map, MAP_FAILED);
	for (size_t off = 0; off < len; off += page)
		ASSERT_EQ(touch(map + off), 0);
	after = stat_read("alloc");
	munmap(map, len);
	close(fd);
	EXPECT_EQ(after, before)
		TH_LOG("alloc went from %ld to %ld for a non-text read", before, after);
}

#define FAULT_AROUND_BYTES	"/sys/kernel/debug/fault_around_bytes"

#define PM_PRESENT		0x8000000000000000ULL
#define PM_PFN_MASK		0x007fffffffffffffULL
#define KPF_HWPOISON_BIT	19

/* Open a debugfs file for reading, mounting debugfs first if it is not. */
static FILE *debugfs_fopen(const char *path)
{
	FILE *f = fopen(path, "re");

	if (!f && errno == ENOENT &&
	    !mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL))
		f = fopen(path, "re");
	return f;
}

/* Read the pagemap entry of @addr in the process @fw was opened for; 0 or -1. */
static int fw_pagemap(const struct folio_walk *fw, unsigned long addr, uint64_t *ent)
{
	return pread(fw->pagemap_fd, ent, sizeof(*ent),
		     (addr >> fw->page_shift) * sizeof(*ent)) == sizeof(*ent) ? 0 : -1;
}

/* Read the /proc/kpageflags word of @pfn; 0 or -1. */
static int fw_kpageflags(const struct folio_walk *fw, uint64_t pfn, uint64_t *flags)
{
	return pread(fw->kpageflags_fd, flags, sizeof(*flags),
		     pfn * sizeof(*flags)) == sizeof(*flags) ? 0 : -1;
}

/*
 * Map @fd afresh, fault its page 1, and count the pages of its first
 * @nr that the fault mapped; *@poisoned says whether page 2 was among
 * them, *@order is the order of page 1's folio and *@next_hwpoison
 * whether the frame after page 1's (page 2's, in the same folio) is
 * poisoned.  -1 if the mapping or the walk fails.
 */
static int poisoned_round(int fd, size_t len, unsigned long nr, bool *poisoned,
			  int *order, bool *next_hwpoison)
{
	unsigned long psize = sysconf(_SC_PAGESIZE);
	struct folio_walk fw = { 0 };
	uint64_t ent, pfn = 0, flags = 0;
	int present = 0, ret = 0;
	char *m;

	fw.page_shift = page_shift();
	fw.pmd_order = folio_walk_pmd_order(fw.page_shift);
	if (folio_walk_open(&fw, getpid()))
		return -1;
	m = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		folio_walk_close(&fw);
		return -1;
	}
	exec_folio_sink = m[psize];
	*poisoned = false;
	for (unsigned long i = 0; i < nr && !ret; i++) {
		ret = fw_pagemap(&fw, (unsigned long)m + i * psize, &ent);
		if (ret || !(ent & PM_PRESENT))
			continue;
		present++;
		if (i == 1)
			pfn = ent & PM_PFN_MASK;
		if (i == 2)
			*poisoned = true;
	}
	if (!ret && pfn)
		ret = fw_kpageflags(&fw, pfn + 1, &flags);
	*next_hwpoison = flags & (1ULL << KPF_HWPOISON_BIT);
	*order = folio_walk_folio_order(&fw, (unsigned long)m + psize);
	folio_walk_close(&fw);
	munmap(m, len);
	return ret ? -1 : present;
}

/*
 * A large folio with a poisoned page that memory_failure() could not
 * split (a pipe buffer that vmsplice() filled holds a reference to
 * another of its pages) stays in the page cache.  A fault on one of its
 * good pages must not map the poisoned one: with fault-around off
 * finish_fault() maps only the faulting page, with it on fault-around
 * maps the others around the poisoned one.  The kernel's own view says
 * what happened: pagemap which pages a fresh mapping got, kpageflags
 * that the folio is still large and its page 2 poisoned.  Needs
 * CONFIG_MEMORY_FAILURE (MADV_HWPOISON).
 */
TEST_F(policy, poisoned_folio_maps_no_poisoned_page)
{
	unsigned long psize = sysconf(_SC_PAGESIZE);
	size_t fsize = order_bytes(test_order()), len = 4 * fsize;
	unsigned long nr = fsize / psize;
	char path[PATH_MAX], saved_fab[32] = "", *buf;
	int fd, pfd[2], status, present, order;
	bool poisoned, hwpoison;
	FILE *f;
	pid_t pid;

	f = debugfs_fopen(FAULT_AROUND_BYTES);
	if (!f || !fgets(saved_fab, sizeof(saved_fab), f)) {
		if (f)
			fclose(f);
		SKIP(return, "no " FAULT_AROUND_BYTES);
	}
	fclose(f);
	saved_fab[strcspn(saved_fab, "\n")] = '\0';

	snprintf(path, sizeof(path), "%s/exec_folio_poison", helper_dir());
	buf = malloc(len);
	ASSERT_NE(buf, NULL);
	memset(buf, 0xc3, len);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pwrite(fd, buf, len, 0), (ssize_t)len);
	free(buf);
	ASSERT_EQ(fsync(fd), 0);
	ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	ASSERT_EQ(prctl(PR_SET_EXEC_FOLIO_SIZE, fsize, 0, 0, 0), 0);
	ASSERT_EQ(pipe(pfd), 0);

	/*
	 * The child reads the file into folios of @fsize, pins page 0 in
	 * the pipe and poisons page 2; memory_failure() cannot split the
	 * folio and kills the child (SIGBUS).  The pipe keeps the pin.
	 */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char *m = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		struct iovec iov = { .iov_len = psize };

		if (m == MAP_FAILED)
			_exit(10);
		exec_folio_sink = m[0];
		iov.iov_base = m;
		if (vmsplice(pfd[1], &iov, 1, 0) != (ssize_t)psize)
			_exit(11);
		if (madvise(m + 2 * psize, psize, MADV_HWPOISON))
			_exit(errno == EINVAL || errno == EPERM ? 12 : 13);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 12) {
		close(pfd[0]);
		close(pfd[1]);
		close(fd);
		unlink(path);
		SKIP(return, "no MADV_HWPOISON (CONFIG_MEMORY_FAILURE)");
	}
	ASSERT_FALSE(WIFEXITED(status) && (WEXITSTATUS(status) == 10 ||
					   WEXITSTATUS(status) == 11))
		TH_LOG("setup: the child could not map or vmsplice() the file (%d)",
		       WEXITSTATUS(status));
	TH_LOG("poisoning child: %s %d", WIFSIGNALED(status) ? "killed by signal" :
	       "exited", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));

	/* finish_fault() alone: one page. */
	ASSERT_EQ(write_word(FAULT_AROUND_BYTES, "4096"), 0);
	present = poisoned_round(fd, len, nr, &poisoned, &order, &hwpoison);
	write_word(FAULT_AROUND_BYTES, saved_fab);
	ASSERT_GE(present, 0);
	/* The setup, from kpageflags: still one large folio, page 2 poisoned. */
	ASSERT_EQ(order, (int)test_order())
		TH_LOG("setup: page 1 is in an order-%d folio, not order %u: the folio was split",
		       order, test_order());
	ASSERT_TRUE(hwpoison)
		TH_LOG("setup: page 2 is not poisoned");
	TH_LOG("fault-around off: %d of the folio's %lu pages mapped, poisoned page %s",
	       present, nr, poisoned ? "mapped" : "not mapped");
	EXPECT_FALSE(poisoned)
		TH_LOG("finish_fault() mapped the poisoned page of an unsplit folio");
	EXPECT_EQ(present, 1);

	/* Fault-around (as it was): every page but the poisoned one. */
	present = poisoned_round(fd, len, nr, &poisoned, &order, &hwpoison);
	ASSERT_GE(present, 0);
	TH_LOG("fault-around %s bytes: %d of the folio's %lu pages mapped, poisoned page %s",
	       saved_fab, present, nr, poisoned ? "mapped" : "not mapped");
	EXPECT_FALSE(poisoned)
		TH_LOG("fault-around mapped the poisoned page of an unsplit folio");
	if (strtoul(saved_fab, NULL, 0) >= fsize)
		EXPECT_EQ(present, (int)nr - 1);

	close(pfd[0]);
	close(pfd[1]);
	close(fd);
	unlink(path);
}

#define KPF_MLOCKED_BIT		33

struct mlock_count {
	/* Resident text pages; mlocked; in a folio the VMA maps whole. */
	unsigned long resident, mlocked, whole, whole_unlocked;
};

/*
 * Count @pid's text pages by what kpageflags says of their folios:
 * PG_mlocked, and whether the folio lies inside the text VMA (one that
 * crosses its end is not mapped whole and is rightly not mlocked).
 */
static int count_mlocked(pid_t pid, const struct vma_info *vma,
			 struct mlock_count *c)
{
	unsigned int shift = page_shift();
	unsigned long psize = 1UL << shift, addr;
	struct folio_walk fw = { 0 };
	int ret = 0;

	memset(c, 0, sizeof(*c));
	fw.page_shift = shift;
	fw.pmd_order = folio_walk_pmd_order(shift);
	if (folio_walk_open(&fw, pid))
		return -1;
	for (addr = vma->start; addr < vma->end; addr += psize) {
		unsigned long idx = (vma->pgoff >> shift) + ((addr - vma->start) >> shift);
		unsigned long first, nr;
		uint64_t ent, flags;
		int order;

		if (fw_pagemap(&fw, addr, &ent)) {
			ret = -1;
			break;
		}
		if (!(ent & PM_PRESENT))
			continue;
		if (fw_kpageflags(&fw, ent & PM_PFN_MASK, &flags)) {
			ret = -1;
			break;
		}
		order = folio_walk_folio_order(&fw, addr);
		if (order < 0) {
			ret = -1;
			break;
		}
		nr = 1UL << order;
		first = addr - ((idx & (nr - 1)) << shift);
		c->resident++;
		if (flags & (1ULL << KPF_MLOCKED_BIT))
			c->mlocked++;
		if (first >= vma->start && first + (nr << shift) <= vma->end) {
			c->whole++;
			if (!(flags & (1ULL << KPF_MLOCKED_BIT)))
				c->whole_unlocked++;
		}
	}
	folio_walk_close(&fw);
	return ret;
}

/*
 * The text of a process that called mlockall(MCL_CURRENT | MCL_FUTURE)
 * is mlocked, in whatever folios it is: every page of the text VMA in a
 * folio the VMA maps whole has PG_mlocked (kpageflags: the kernel's own
 * view, not smaps' Locked:, which follows VM_LOCKED alone), under never
 * (XFS's read-around folios are large too), the test size and, with 4K
 * pages, 2M.  6.12 mlocked no large folio when it mapped one.
 */
TEST_F(policy, mlockall_text_is_mlocked)
{
	unsigned int nr_words = page_shift() == 12 ? 3 : 2;
	char real[PATH_MAX];
	const char *words[3];

	words[0] = "never";
	words[1] = test_word();
	words[2] = "2M";

	ASSERT_NE(realpath(helper("bigtext-2m"), real), NULL);
	for (unsigned int i = 0; i < nr_words; i++) {
		struct text_walk tw = { .path = real };
		struct mlock_count c;
		pid_t pid;

		ASSERT_EQ(knob_set(words[i]), 0);
		pid = spawn_stopped_arg(real, "--mlockall");
		ASSERT_GT(pid, 0);
		ASSERT_EQ(smaps_foreach(pid, text_find, &tw), 0);
		ASSERT_NE(tw.text.end, 0);
		ASSERT_EQ(count_mlocked(pid, &tw.text, &c), 0);
		reap(pid);
		TH_LOG("%s: %lu of %lu resident text pages mlocked; %lu in folios",
		       words[i], c.mlocked, c.resident, c.whole);
		TH_LOG("%s: the VMA maps whole, %lu of them not mlocked",
		       words[i], c.whole_unlocked);
		EXPECT_GT(c.whole, c.resident * 9 / 10);
		EXPECT_EQ(c.whole_unlocked, 0);
	}
}

#define KEY_STATE	"/sys/kernel/debug/exec_folio/state"

/*
 * The fault path's static key and the count of processes with a large
 * policy of their own, from KEY_STATE (debugfs mounted if it is not);
 * 0 or -1.
 */
static int key_state(bool *on, long *procs)
{
	FILE *f = debugfs_fopen(KEY_STATE);
	char word[8];
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "key: %7s processes: %ld", word, procs);
	fclose(f);
	if (n != 2)
		return -1;
	*on = !strcmp(word, "on");
	return 0;
}

/*
 * The fault path's static key follows the live requests: under a global
 * policy that leaves it off (x86's "arch"), a process that asks for a
 * size with the prctl turns it on for as long as it lives, and it goes
 * off again (a second later) once the process has exited.
 */
TEST_F(policy, static_key_follows_live_requests)
{
	long before, procs;
	int ready[2], i;
	bool on;
	pid_t pid;
	char c;

	ASSERT_EQ(knob_set("arch"), 0);
	ASSERT_EQ(key_state(&on, &before), 0)
		TH_LOG("cannot read %s", KEY_STATE);
	if (on)
		SKIP(return, "the global policy keeps the key on here");
	ASSERT_EQ(pipe(ready), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(ready[0]);
		if (prctl(PR_SET_EXEC_FOLIO_SIZE, order_bytes(test_order()), 0, 0, 0))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	ASSERT_EQ(read(ready[0], &c, 1), 1);
	close(ready[0]);
	EXPECT_EQ(key_state(&on, &procs), 0);
	EXPECT_TRUE(on);
	EXPECT_EQ(procs, before + 1);
	reap(pid);
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(key_state(&on, &procs), 0);
		if (!on)
			break;
		usleep(100000);
	}
	EXPECT_FALSE(on)
		TH_LOG("the key is still on 5 s after the process exited");
	EXPECT_EQ(procs, before);
}

/* Every word the knob lists can be written and reads back as active. */
TEST_F(interface, knob_roundtrip)
{
	struct knob_state st, now;

	ASSERT_EQ(knob_read(&st), 0);
	ASSERT_GE(knob_find(&st, "never"), 0);
	ASSERT_GE(knob_find(&st, "arch"), 0);
	ASSERT_GE(knob_find(&st, "auto"), 0);
	for (int i = 0; i < st.nr_words; i++) {
		ASSERT_EQ(knob_set(st.words[i]), 0) TH_LOG("writing %s", st.words[i]);
		EXPECT_STREQ(knob_active(&now), st.words[i]);
	}
}

/*
 * The sizes offered follow the page size: every power of two from four
 * pages up to 2M (the cap; a PMD if that is smaller), nothing else.
 */
TEST_F(interface, knob_sizes_follow_page_size)
{
	int pmd_order = folio_walk_pmd_order(page_shift());
	unsigned long long want = 4ULL << page_shift(), bytes, top;
	struct knob_state st;

	ASSERT_GT(pmd_order, 0);
	top = 1ULL << (page_shift() + pmd_order);
	if (top > 2ULL << 20)
		top = 2ULL << 20;
	ASSERT_EQ(knob_read(&st), 0);
	for (int i = 0; i < st.nr_words; i++) {
		if (parse_size(st.words[i], &bytes))
			continue;	/* a mode */
		EXPECT_EQ(bytes, want) TH_LOG("offered %s", st.words[i]);
		want = bytes * 2;
	}
	EXPECT_EQ(want, top * 2) TH_LOG("the largest size offered is not the cap");
}

/* Bad words fail with EINVAL and leave the policy as it was. */
TEST_F(interface, knob_rejects_invalid)
{
	static const char * const bad[] = {
		"", "\n", "inherit", "Never", "never\n\n", " arch", "arch ",
		"[auto]", "arch auto", "64k", "64KB", "65536", "4K", "8K", "48K",
		"4M", "1G", "0", "-1", "\xff\xfe", "2M2M",
	};
	struct knob_state st;

	ASSERT_EQ(knob_set("auto"), 0);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = knob_set(bad[i]);

		/* An empty write never reaches the store. */
		EXPECT_TRUE(err == -EINVAL || (!bad[i][0] && !err))
			TH_LOG("\"%s\" gave %d", bad[i], err);
		EXPECT_STREQ(knob_active(&st), "auto");
	}
}

/* Only root may change the global policy. */
TEST_F(interface, knob_needs_root)
{
	struct knob_state st;
	char before[KNOB_WORD_LEN];
	int status;
	pid_t pid;

	snprintf(before, sizeof(before), "%s", knob_active(&st));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(knob_set("never") == -EACCES ? 0 : 1);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(WEXITSTATUS(status), 0);
	EXPECT_STREQ(knob_active(&st), before);
}

static long get_policy(void)
{
	return prctl(PR_GET_EXEC_FOLIO_SIZE, 0, 0, 0, 0);
}

/*
 * Bad prctl arguments fail with EINVAL and change nothing: values that
 * are neither a mode nor a folio size in bytes this kernel takes for text
 * (4, the old explicit-order mode, included), and unused arguments.
 */
TEST_F(interface, prctl_rejects_invalid)
{
	unsigned long page = sysconf(_SC_PAGESIZE);
	const unsigned long bad[][4] = {
		{ 4, 0, 0, 0 },				/* no mode, no size */
		{ 5, 0, 0, 0 },
		{ 99, 0, 0, 0 },
		{ -1UL, 0, 0, 0 },
		{ page, 0, 0, 0 },			/* order 0 and 1 */
		{ 2 * page, 0, 0, 0 },
		{ 3 * order_bytes(test_order()), 0, 0, 0 }, /* no power of two */
		{ order_bytes(test_order()) + 1, 0, 0, 0 },
		{ 4UL << 20, 0, 0, 0 },			/* above the 2M cap */
		{ 1UL << (sizeof(long) * 8 - 1), 0, 0, 0 },
		{ PR_EXEC_FOLIO_AUTO, 4, 0, 0 },	/* unused arguments */
		{ order_bytes(test_order()), 1, 0, 0 },
		{ PR_EXEC_FOLIO_ARCH, 0, 0, 1 },
	};
	long before;

	ASSERT_EQ(prctl(PR_SET_EXEC_FOLIO_SIZE, order_bytes(test_order()), 0, 0, 0), 0);
	before = get_policy();
	ASSERT_EQ(before, (long)order_bytes(test_order()));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		errno = 0;
		EXPECT_EQ(prctl(PR_SET_EXEC_FOLIO_SIZE, bad[i][0], bad[i][1],
				bad[i][2], bad[i][3]), -1) {
			TH_LOG("case %zu: %#lx", i, bad[i][0]);
		}
		EXPECT_EQ(errno, EINVAL);
		EXPECT_EQ(get_policy(), before);
	}
	errno = 0;
	EXPECT_EQ(prctl(PR_GET_EXEC_FOLIO_SIZE, 1, 0, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	/*
	 * 82 and 83, the next numbers of mainline's sequence, are not
	 * ours: a caller that means mainline's future option there must
	 * not reach the exec folio policy.  Nor are the tags this series
	 * used for page-relative orders before it took sizes in bytes.
	 */
	errno = 0;
	EXPECT_EQ(prctl(82, PR_EXEC_FOLIO_NEVER, 0, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(prctl(83, 0, 0, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	errno = 0;
	EXPECT_EQ(prctl(0x45584f53, PR_EXEC_FOLIO_NEVER, 0, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(get_policy(), before);
	/* Every mode reads back as itself; a size as its bytes. */
	for (unsigned long m = PR_EXEC_FOLIO_INHERIT; m <= PR_EXEC_FOLIO_AUTO; m++) {
		ASSERT_EQ(prctl(PR_SET_EXEC_FOLIO_SIZE, m, 0, 0, 0), 0);
		EXPECT_EQ(get_policy(), (long)m);
	}
}

/* The ExecFolioSize word of a process, "" if absent. */
static void status_word(pid_t pid, char *word, size_t len)
{
	if (proc_policy_word(pid, word, len))
		word[0] = '\0';
}

/*
 * A process's setting survives fork and execve: read back with
 * PR_GET_EXEC_FOLIO_SIZE in a forked child, in /proc/<pid>/status of an
 * exec'd one, and in the folio sizes of that one's text.  The global
 * policy is the next larger size, so text in the process's size can come
 * from nothing else (with 4K pages on arm64 "arch" is the test size).
 */
TEST_F(policy, prctl_inherited_across_fork_and_exec)
{
	unsigned int order = test_order();
	long want = order_bytes(order);
	char word[32], real[PATH_MAX];
	struct text_walk tw;
	int status;
	pid_t pid;

	ASSERT_EQ(knob_set(size_word(order + 1)), 0);
	ASSERT_EQ(prctl(PR_SET_EXEC_FOLIO_SIZE, order_bytes(order), 0, 0, 0), 0);
	ASSERT_EQ(get_policy(), want);
	status_word(getpid(), word, sizeof(word));
	EXPECT_STREQ(word, test_word());

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(get_policy() == want ? 0 : 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(WEXITSTATUS(status), 0);

	ASSERT_NE(realpath(helper(text_helper(order)), real), NULL);
	pid = spawn_stopped(real);
	ASSERT_GT(pid, 0);
	status_word(pid, word, sizeof(word));
	EXPECT_STREQ(word, test_word());
	ASSERT_EQ(text_report(pid, real, &tw), 0);
	reap(pid);
	print_dist("prctl", &tw);
	EXPECT_GE(pct_order(&tw, order), 90.0);
	expect_blocks(_metadata, &tw, "prctl", order);
	EXPECT_EQ(pages_from_order(&tw, order + 1), 0);

	ASSERT_EQ(prctl(PR_SET_EXEC_FOLIO_SIZE, PR_EXEC_FOLIO_INHERIT, 0, 0, 0), 0);
	status_word(getpid(), word, sizeof(word));
	EXPECT_STREQ(word, "inherit");
}

/*
 * The prctl needs no privilege: a process that dropped to nobody sets its
 * size and execs; its text is read in that size (the global policy is
 * the next larger one), and the global policy is unchanged.
 */
TEST_F(policy, prctl_unprivileged_then_exec)
{
	unsigned int order = test_order();
	const char *name = text_helper(order);
	char real[PATH_MAX], global[32];
	struct knob_state st;
	struct text_walk tw;
	int status;
	pid_t pid;

	snprintf(global, sizeof(global), "%s", size_word(order + 1));
	ASSERT_EQ(knob_set(global), 0);
	ASSERT_NE(realpath(helper(name), real), NULL);
	ASSERT_EQ(cold_cache(), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		if (prctl(PR_SET_EXEC_FOLIO_SIZE, order_bytes(order), 0, 0, 0))
			_exit(3);
		execl(real, real, "--stop", (char *)NULL);
		perror(real);
		_exit(127);
	}
	ASSERT_EQ(waitpid(pid, &status, WUNTRACED), pid);
	ASSERT_TRUE(WIFSTOPPED(status))
		TH_LOG("the unprivileged child exited %d (2: setuid, 3: prctl, 127: exec)",
		       WEXITSTATUS(status));
	ASSERT_EQ(text_report(pid, real, &tw), 0);
	reap(pid);
	print_dist("prctl-unprivileged", &tw);
	expect_blocks(_metadata, &tw, "prctl-unprivileged", order);
	EXPECT_EQ(pages_from_order(&tw, order + 1), 0);
	EXPECT_STREQ(knob_active(&st), global);
}

/*
 * The process's own mode wins over a different global policy: "never"
 * gives read-around, "arch" the arch's size, "auto" a PMD for 2M-aligned
 * text, where the global policy is an explicit size none of them gives.
 */
static void process_mode_over_global(struct __test_metadata *_metadata,
				     unsigned long mode, const char *name,
				     struct text_walk *tw)
{
	char label[48];

	ASSERT_EQ(knob_set(size_word(test_order() + 1)), 0);
	ASSERT_EQ(prctl(PR_SET_EXEC_FOLIO_SIZE, mode, 0, 0, 0), 0);
	snprintf(label, sizeof(label), "%s@%s+process-%s", name,
		 size_word(test_order() + 1),
		 mode == PR_EXEC_FOLIO_NEVER ? "never" :
		 mode == PR_EXEC_FOLIO_ARCH ? "arch" : "auto");
	ASSERT_EQ(measure(name, label, tw), 0);
}

TEST_F(policy, process_never_over_global_size)
{
	struct text_walk tw;

	process_mode_over_global(_metadata, PR_EXEC_FOLIO_NEVER, "bigtext", &tw);
	EXPECT_LT(pct_from_order(&tw, READ_AROUND_MAX_ORDER + 1), 5.0);
}

TEST_F(policy, process_arch_over_global_size)
{
	unsigned int order = expected_arch_order();
	struct text_walk tw;

	process_mode_over_global(_metadata, PR_EXEC_FOLIO_ARCH, text_helper(order), &tw);
	if (!order) {
		EXPECT_LT(pct_from_order(&tw, READ_AROUND_MAX_ORDER + 1), 5.0);
		return;
	}
	expect_blocks(_metadata, &tw, "process arch", order);
	EXPECT_EQ(pages_from_order(&tw, order + 1), 0);
}

TEST_F(policy, process_auto_over_global_size)
{
	struct text_walk tw;

	if (folio_walk_pmd_order(page_shift()) + page_shift() > 21)
		SKIP(return, "a PMD is larger than the 2M cap with this page size");
	process_mode_over_global(_metadata, PR_EXEC_FOLIO_AUTO, "bigtext-2m", &tw);
	EXPECT_GT(tw.report.file.pmd_mapped, 0);
	EXPECT_GE(tw.text.file_pmd_kb, 2048);
}

/* The global "never" wins over any process's setting. */
TEST_F(policy, global_never_beats_prctl)
{
	struct text_walk tw;

	ASSERT_EQ(prctl(PR_SET_EXEC_FOLIO_SIZE, order_bytes(test_order()), 0, 0, 0), 0);
	ASSERT_EQ(knob_set("never"), 0);
	ASSERT_EQ(measure("bigtext", "bigtext@never+prctl", &tw), 0);
	EXPECT_LT(pct_from_order(&tw, READ_AROUND_MAX_ORDER + 1), 5.0);
}

#define PROBE_PAGES	256
#define PROBE_FAULT	100

/*
 * mincore() of [@map, @map + @len) into @vec once the reads a fault
 * started have finished: mincore() counts only folios that are up to
 * date, and the fault waits for its own folio only.  0 or -1.
 */
static int settled_mincore(char *map, size_t len, unsigned char *vec)
{
	unsigned long n = len / sysconf(_SC_PAGESIZE);
	unsigned char *prev = malloc(n);
	int same = 0, ret = -1;

	if (!prev)
		return -1;
	for (int i = 0; i < 100 && same < 3; i++) {
		if (mincore(map, len, vec))
			goto out;
		same = i && !memcmp(prev, vec, n) ? same + 1 : 0;
		memcpy(prev, vec, n);
		usleep(20000);
	}
	ret = 0;
out:
	free(prev);
	return ret;
}

/*
 * Write a file of PROBE_PAGES pages in @dir, drop the page cache, map it
 * with @prot and take one read fault on page PROBE_FAULT; @vec gets
 * mincore()'s view of what that fault read.  0 or -1.
 */
static int one_fault_reads(const char *dir, int prot, unsigned char *vec)
{
	unsigned long psize = sysconf(_SC_PAGESIZE);
	size_t len = PROBE_PAGES * psize;
	char path[PATH_MAX], *buf, *map;
	int fd, ret = -1;

	snprintf(path, sizeof(path), "%s/one-fault-probe", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	buf = malloc(len);
	if (!buf)
		goto out;
	memset(buf, 0x5a, len);
	if (write(fd, buf, len) != (ssize_t)len || fsync(fd) || cold_cache())
		goto out;
	map = mmap(NULL, len, prot, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		goto out;
	if (!touch(map + PROBE_FAULT * psize))
		ret = settled_mincore(map, len, vec);
	munmap(map, len);
out:
	free(buf);
	close(fd);
	unlink(path);
	return ret;
}

/* The pages @a and @b disagree on; their counts in *@na and *@nb. */
static int cached_differ(const unsigned char *a, const unsigned char *b,
			 int *na, int *nb)
{
	int diff = 0;

	*na = *nb = 0;
	for (int i = 0; i < PROBE_PAGES; i++) {
		*na += a[i] & 1;
		*nb += b[i] & 1;
		diff += (a[i] & 1) != (b[i] & 1);
	}
	return diff;
}

/* "first-last" of the cached pages in @v, for the log. */
static const char *cached_range(const unsigned char *v)
{
	static char buf[2][32];
	static int which;
	int first = -1, last = -1;

	for (int i = 0; i < PROBE_PAGES; i++) {
		if (!(v[i] & 1))
			continue;
		if (first < 0)
			first = i;
		last = i;
	}
	which ^= 1;
	snprintf(buf[which], sizeof(buf[which]), "%d-%d", first, last);
	return buf[which];
}

/*
 * On a filesystem without large folios (ext2 and ext4 in 6.12) neither
 * the policy nor, without CONFIG_EXEC_FOLIO_POLICY, the architecture's
 * exec folio size changes what a fault reads: one fault on a PROT_EXEC
 * mapping reads the pages a PROT_READ one reads, the read-around centred
 * on the fault, not a window aligned to a folio size the file cannot
 * have.  On XFS beside it the two differ, so that the test can fail.
 * The directory is $EXEC_FOLIO_SMALL_DIR; without it, a skip.
 */
TEST(small_folio_fs_exec_reads_like_data)
{
	const char *dir = getenv("EXEC_FOLIO_SMALL_DIR");
	unsigned char data[PROBE_PAGES], exec[PROBE_PAGES];
	bool large = expected_arch_order() > 0;
	struct knob_state st;
	char saved[32] = "";
	int na, nb, diff;

	if (!dir)
		SKIP(return, "no $EXEC_FOLIO_SMALL_DIR (a filesystem without large folios)");
	if (getuid() != 0)
		SKIP(return, "needs root");
	if (have_knob()) {
		snprintf(saved, sizeof(saved), "%s", knob_active(&st));
		ASSERT_EQ(knob_set(test_word()), 0);
		large = true;
	}
	ASSERT_EQ(one_fault_reads(dir, PROT_READ, data), 0);
	ASSERT_EQ(one_fault_reads(dir, PROT_READ | PROT_EXEC, exec), 0);
	diff = cached_differ(data, exec, &na, &nb);
	ksft_print_msg("%s: one fault read pages %s for data, %s for text, %d differ\n",
		       dir, cached_range(data), cached_range(exec), diff);
	EXPECT_EQ(diff, 0);
	if (large && helpers_on_large_folio_fs()) {
		ASSERT_EQ(one_fault_reads(helper_dir(), PROT_READ, data), 0);
		ASSERT_EQ(one_fault_reads(helper_dir(), PROT_READ | PROT_EXEC, exec), 0);
		diff = cached_differ(data, exec, &na, &nb);
		ksft_print_msg("%s (XFS): pages %s read for data, %s for text, %d differ\n",
			       helper_dir(), cached_range(data), cached_range(exec), diff);
		EXPECT_GT(diff, 0);
	}
	if (saved[0])
		knob_set(saved);
}

/*
 * Measure the text under whatever policy the kernel booted with, on any
 * kernel (also one without this feature): the host compares a stock
 * kernel with "never" through these lines.
 */
TEST(boot_policy_distribution)
{
	struct text_walk tw;

	if (getuid() != 0)
		SKIP(return, "needs root");
	if (access(helper("bigtext"), X_OK))
		SKIP(return, "no helper binaries in %s", helper_dir());
	ASSERT_EQ(measure("bigtext", "bigtext@boot", &tw), 0);
}

TEST_HARNESS_MAIN
