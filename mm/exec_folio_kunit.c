// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the exec folio decision.  Included from exec_folio.c.
 *
 * Each case is one set of inputs with the order it must give, for 4K,
 * 16K and 64K base pages whatever the page size of the running kernel.
 */

#include <kunit/test.h>

#define P(mode, order)	EXEC_FOLIO_POLICY(EXEC_FOLIO_##mode, order)

/* THP opt-outs and limits, as the cases give them. */
#define VMA_OPT_OUT	1	/* MADV_NOHUGEPAGE */
#define MM_OPT_OUT	2	/* PR_SET_THP_DISABLE */
#define NO_PMD		4	/* thp_disabled_by_hw() */
#define THP_NEVER	8	/* transparent_hugepage/enabled=never */
/* A process policy chosen after PR_SET_THP_DISABLE */
#define AFTER_OPT_OUT	EXEC_FOLIO_AFTER_THP_DISABLE

struct exec_folio_case {
	const char *name;
	unsigned int global;
	unsigned int local;
	unsigned int arch_order;
	unsigned int page_shift;
	unsigned int mapping_max_order;
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_pgoff;
	unsigned int want;
	unsigned int thp;
};

/*
 * Two text segments most cases use: an ordinary static x86_64 one, 2.6M
 * at 0x401000 from file page 1, which holds no whole aligned PMD; and a
 * 4M one that is 2M aligned in memory and in the file.
 */
#define TEXT_2_6M_START		0x401000UL
#define TEXT_2_6M_END		0x69a000UL
#define TEXT_2_6M_PGOFF		1
#define TEXT_4M_START		0x400000UL
#define TEXT_4M_END		0x800000UL
#define TEXT_4M_PGOFF		0x400

static const struct exec_folio_case exec_folio_cases[] = {
	/* global modes, 4K pages */
	{ "never", P(NEVER, 0), P(INHERIT, 0), 4, 12, 9,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 0 },
	{ "arch-none", P(ARCH, 0), P(INHERIT, 0), 0, 12, 9,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 0 },
	{ "arch-64k", P(ARCH, 0), P(INHERIT, 0), 4, 12, 9,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 4 },
	{ "arch-fs-small", P(ARCH, 0), P(INHERIT, 0), 4, 12, 2,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 2 },
	{ "arch-fs-none", P(ARCH, 0), P(INHERIT, 0), 4, 12, 0,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 0 },
	{ "order-16k", P(ORDER, 2), P(INHERIT, 0), 0, 12, 9,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 2 },
	{ "order-64k", P(ORDER, 4), P(INHERIT, 0), 0, 12, 9,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 4 },
	{ "order-2m", P(ORDER, 9), P(INHERIT, 0), 0, 12, 9,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 9 },
	{ "order-fs-cap", P(ORDER, 9), P(INHERIT, 0), 0, 12, 5,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 5 },
	/* process overrides */
	{ "local-order", P(ARCH, 0), P(ORDER, 4), 0, 12, 9,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 4 },
	{ "local-never", P(AUTO, 0), P(NEVER, 0), 0, 12, 9,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 0 },
	{ "local-auto", P(ARCH, 0), P(AUTO, 0), 0, 12, 9,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 4 },
	{ "local-arch", P(ORDER, 9), P(ARCH, 0), 4, 12, 9,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 4 },
	{ "global-never-wins", P(NEVER, 0), P(ORDER, 4), 4, 12, 9,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 0 },
	{ "global-never-wins-auto", P(NEVER, 0), P(AUTO, 0), 4, 12, 9,
	  TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 0 },
	/* auto by size and alignment, 4K pages */
	{ "auto-pmd", P(AUTO, 0), P(INHERIT, 0), 0, 12, 9,
	  TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 9 },
	{ "auto-pmd-fs-small", P(AUTO, 0), P(INHERIT, 0), 0, 12, 4,
	  TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 4 },
	{ "auto-no-whole-pmd", P(AUTO, 0), P(INHERIT, 0), 0, 12, 9,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 4 },
	{ "auto-pmd-offset-skew", P(AUTO, 0), P(INHERIT, 0), 0, 12, 9,
	  0x400000UL, 0x800000UL, 1, 4 },
	{ "auto-pmd-address-skew", P(AUTO, 0), P(INHERIT, 0), 0, 12, 9,
	  0x401000UL, 0xa01000UL, 0, 4 },
	{ "auto-exactly-2m", P(AUTO, 0), P(INHERIT, 0), 0, 12, 9,
	  0x200000UL, 0x400000UL, 0, 9 },
	{ "auto-just-under-2m", P(AUTO, 0), P(INHERIT, 0), 0, 12, 9,
	  0x200000UL, 0x3ff000UL, 0, 4 },
	{ "auto-just-over-64k", P(AUTO, 0), P(INHERIT, 0), 0, 12, 9,
	  0x401000UL, 0x412000UL, 1, 4 },
	{ "auto-just-under-64k", P(AUTO, 0), P(INHERIT, 0), 0, 12, 9,
	  0x401000UL, 0x410000UL, 1, 3 },
	{ "auto-16k", P(AUTO, 0), P(INHERIT, 0), 0, 12, 9,
	  0x401000UL, 0x405000UL, 1, 2 },
	{ "auto-tiny", P(AUTO, 0), P(INHERIT, 0), 0, 12, 9,
	  0x401000UL, 0x403000UL, 1, 0 },
	{ "auto-arch-64k", P(AUTO, 0), P(INHERIT, 0), 4, 12, 9,
	  TEXT_2_6M_START, TEXT_2_6M_END, TEXT_2_6M_PGOFF, 4 },
	/* 16K pages: PMD is 32M, contpte is 2M (order 7) */
	{ "16k-arch", P(ARCH, 0), P(INHERIT, 0), 7, 14, 11,
	  0x400000UL, 0x2400000UL, 0, 7 },
	{ "16k-auto", P(AUTO, 0), P(INHERIT, 0), 7, 14, 11,
	  0x2000000UL, 0x6000000UL, 0, 7 },
	{ "16k-order-capped-2m", P(ORDER, 11), P(INHERIT, 0), 0, 14, 11,
	  0x400000UL, 0x2400000UL, 0, 7 },
	{ "16k-auto-tiny", P(AUTO, 0), P(INHERIT, 0), 7, 14, 11,
	  0x400000UL, 0x404000UL, 0, 0 },
	/* 64K pages: PMD is 512M, contpte is 2M (order 5) */
	{ "64k-arch", P(ARCH, 0), P(INHERIT, 0), 5, 16, 13,
	  0x400000UL, 0x2400000UL, 0, 5 },
	{ "64k-auto", P(AUTO, 0), P(INHERIT, 0), 5, 16, 13,
	  0x400000UL, 0x2400000UL, 0, 5 },
	{ "64k-auto-no-arch", P(AUTO, 0), P(INHERIT, 0), 0, 16, 13,
	  0x400000UL, 0x2400000UL, 0, 0 },
	{ "64k-order-capped-2m", P(ORDER, 13), P(INHERIT, 0), 0, 16, 13,
	  0x400000UL, 0x2400000UL, 0, 5 },
	{ "64k-auto-1m-text", P(AUTO, 0), P(INHERIT, 0), 5, 16, 13,
	  0x400000UL, 0x500000UL, 0, 4 },
	/* THP opted out (VMA or process): read as under "never" */
	{ "auto-pmd-vma-opt-out", P(AUTO, 0), P(INHERIT, 0), 0, 12, 9,
	  TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 0, VMA_OPT_OUT },
	{ "order-2m-vma-opt-out", P(ORDER, 9), P(INHERIT, 0), 0, 12, 9,
	  TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 0, VMA_OPT_OUT },
	{ "order-64k-mm-opt-out", P(ORDER, 4), P(INHERIT, 0), 0, 12, 9,
	  TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 0, MM_OPT_OUT },
	{ "16k-arch-mm-opt-out", P(ARCH, 0), P(INHERIT, 0), 7, 14, 11,
	  0x400000UL, 0x2400000UL, 0, 0, MM_OPT_OUT },
	{ "64k-arch-vma-opt-out", P(ARCH, 0), P(INHERIT, 0), 5, 16, 13,
	  0x400000UL, 0x2400000UL, 0, 0, VMA_OPT_OUT },
	/* a process policy set before the opt-out loses to it */
	{ "prctl-2m-then-mm-opt-out", P(AUTO, 0), P(ORDER, 9), 0, 12, 9,
	  TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 0, MM_OPT_OUT },
	/* one set after it wins, below the PMD size */
	{ "mm-opt-out-then-prctl-2m", P(AUTO, 0), P(ORDER, 9) | AFTER_OPT_OUT,
	  0, 12, 9, TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 8, MM_OPT_OUT },
	{ "mm-opt-out-then-prctl-64k", P(AUTO, 0), P(ORDER, 4) | AFTER_OPT_OUT,
	  0, 12, 9, TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 4, MM_OPT_OUT },
	{ "mm-opt-out-then-prctl-never-global", P(NEVER, 0),
	  P(ORDER, 4) | AFTER_OPT_OUT, 0, 12, 9,
	  TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 0, MM_OPT_OUT },
	/* but not over the VMA's own opt-out */
	{ "vma-opt-out-over-prctl", P(AUTO, 0), P(ORDER, 9) | AFTER_OPT_OUT,
	  0, 12, 9, TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 0,
	  VMA_OPT_OUT | MM_OPT_OUT },
	/* hardware without THP: no PMD-size folio, the rest as usual */
	{ "auto-pmd-no-pmd", P(AUTO, 0), P(INHERIT, 0), 0, 12, 9,
	  TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 4, NO_PMD },
	{ "order-2m-no-pmd", P(ORDER, 9), P(INHERIT, 0), 0, 12, 9,
	  TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 8, NO_PMD },
	/* enabled=never: "auto" gives no PMD-size folio, "2M" still does */
	{ "auto-pmd-thp-never", P(AUTO, 0), P(INHERIT, 0), 0, 12, 9,
	  TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 4, THP_NEVER },
	{ "order-2m-thp-never", P(ORDER, 9), P(INHERIT, 0), 0, 12, 9,
	  TEXT_4M_START, TEXT_4M_END, TEXT_4M_PGOFF, 9, THP_NEVER },
	{ "16k-auto-thp-never", P(AUTO, 0), P(INHERIT, 0), 7, 14, 11,
	  0x2000000UL, 0x6000000UL, 0, 7, THP_NEVER },
};

static void exec_folio_case_desc(const struct exec_folio_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(exec_folio, exec_folio_cases, exec_folio_case_desc);

static void exec_folio_test_decide(struct kunit *test)
{
	const struct exec_folio_case *c = test->param_value;
	struct exec_folio_input in = {
		.global = c->global,
		.local = c->local,
		.arch_order = c->arch_order,
		.page_shift = c->page_shift,
		.pmd_order = c->page_shift - 3,
		.mapping_max_order = c->mapping_max_order,
		.vm_start = c->vm_start,
		.vm_end = c->vm_end,
		.vm_pgoff = c->vm_pgoff,
		.vma_opt_out = c->thp & VMA_OPT_OUT,
		.mm_opt_out = c->thp & MM_OPT_OUT,
		.no_pmd = c->thp & NO_PMD,
		.thp_never = c->thp & THP_NEVER,
	};
	unsigned int order = exec_folio_decide(&in);

	KUNIT_EXPECT_EQ(test, order, c->want);
	/* Whatever the inputs, never above the PMD, the mapping, or 2M. */
	KUNIT_EXPECT_LE(test, order, exec_folio_cap(in.page_shift, in.pmd_order,
						    in.mapping_max_order));
	KUNIT_EXPECT_LE(test, 1UL << (order + in.page_shift), (unsigned long)SZ_2M);
	if (in.mm_opt_out || in.no_pmd)
		KUNIT_EXPECT_LT(test, order, in.pmd_order);
}

static void exec_folio_test_cap(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, exec_folio_cap(12, 9, 9), 9U);
	KUNIT_EXPECT_EQ(test, exec_folio_cap(12, 9, 0), 0U);
	KUNIT_EXPECT_EQ(test, exec_folio_cap(14, 11, 11), 7U);
	KUNIT_EXPECT_EQ(test, exec_folio_cap(16, 13, 13), 5U);
	KUNIT_EXPECT_LE(test, exec_folio_max_order(), (unsigned int)PMD_ORDER);
}

static void exec_folio_test_format(struct kunit *test)
{
	char buf[16];

	exec_folio_format(P(INHERIT, 0), 12, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "inherit");
	exec_folio_format(P(NEVER, 0), 12, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "never");
	exec_folio_format(P(AUTO, 0), 12, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "auto");
	exec_folio_format(P(ORDER, 2), 12, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "16K");
	exec_folio_format(P(ORDER, 9), 12, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "2M");
	exec_folio_format(P(ORDER, 2), 16, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "256K");
}

/*
 * Placement: a range of a file (the text of a program or a library, or a
 * whole library as ld.so maps it first) and the order to place it
 * congruent for, given the policy.
 */
struct exec_folio_place_case {
	const char *name;
	unsigned int global;
	unsigned int arch_order;
	unsigned int page_shift;
	unsigned int mapping_max_order;
	unsigned long offset;
	unsigned long len;
	unsigned int thp;
	unsigned int want;
};

static const struct exec_folio_place_case exec_folio_place_cases[] = {
	/* Debian 12's cmake: PIE, 7.2M of text at 0x2d000, two whole 2M blocks */
	{ "never", P(NEVER, 0), 0, 12, 9, 0x2d000, 0x733000, 0, 0 },
	{ "arch-none", P(ARCH, 0), 0, 12, 9, 0x2d000, 0x733000, 0, 0 },
	{ "auto-pie-pmd", P(AUTO, 0), 0, 12, 9, 0x2d000, 0x733000, 0, 9 },
	{ "auto-pie-mm-opt-out", P(AUTO, 0), 0, 12, 9, 0x2d000, 0x733000, MM_OPT_OUT, 0 },
	{ "auto-pie-no-pmd", P(AUTO, 0), 0, 12, 9, 0x2d000, 0x733000, NO_PMD, 4 },
	{ "auto-pie-thp-never", P(AUTO, 0), 0, 12, 9, 0x2d000, 0x733000, THP_NEVER, 4 },
	{ "order-64k-pie", P(ORDER, 4), 0, 12, 9, 0x2d000, 0x733000, 0, 4 },
	{ "order-2m-pie", P(ORDER, 9), 0, 12, 9, 0x2d000, 0x733000, 0, 9 },
	{ "fs-no-large-folios", P(AUTO, 0), 0, 12, 0, 0x2d000, 0x733000, 0, 0 },
	/* libc's text: 1.3M at 0x26000, no whole 2M block */
	{ "auto-libc", P(AUTO, 0), 0, 12, 9, 0x26000, 0x14d000, 0, 4 },
	{ "arch-64k-libc", P(ARCH, 0), 4, 12, 9, 0x26000, 0x14d000, 0, 4 },
	{ "order-2m-libc", P(ORDER, 9), 0, 12, 9, 0x26000, 0x14d000, 0, 7 },
	/* ld.so's text: 148K at 0x1000; its whole file, 212K from 0 */
	{ "auto-ldso-text", P(AUTO, 0), 0, 12, 9, 0x1000, 0x25000, 0, 4 },
	{ "auto-ldso-file", P(AUTO, 0), 0, 12, 9, 0, 0x35000, 0, 4 },
	/* too small for a whole 64K block: the largest whole block */
	{ "auto-48k", P(AUTO, 0), 0, 12, 9, 0x1000, 0xc000, 0, 2 },
	{ "auto-12k", P(AUTO, 0), 0, 12, 9, 0x1000, 0x3000, 0, 0 },
	/* arm64 16K pages: the arch's 2M contpte block */
	{ "16k-arch-4m", P(ARCH, 0), 7, 14, 11, 0x10000, 0x400000, 0, 7 },
	{ "16k-auto-4m", P(AUTO, 0), 7, 14, 11, 0x10000, 0x400000, 0, 7 },
	/* arm64 64K pages: the arch's 2M contpte block, no 512M PMD */
	{ "64k-arch-10m", P(ARCH, 0), 5, 16, 13, 0x10000, 0xa00000, 0, 5 },
	{ "64k-arch-1m", P(ARCH, 0), 5, 16, 13, 0x10000, 0x100000, 0, 3 },
	/* arm64 4K pages: 64K contpte */
	{ "4k-arch-libc", P(ARCH, 0), 4, 12, 9, 0x10000, 0x140000, 0, 4 },
};

static void exec_folio_place_desc(const struct exec_folio_place_case *c,
				  char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(exec_folio_place, exec_folio_place_cases,
		  exec_folio_place_desc);

static void exec_folio_test_place(struct kunit *test)
{
	const struct exec_folio_place_case *c = test->param_value;
	unsigned long page = 1UL << c->page_shift;
	struct exec_folio_input in = {
		.global = c->global,
		.local = P(INHERIT, 0),
		.arch_order = c->arch_order,
		.page_shift = c->page_shift,
		.pmd_order = c->page_shift - 3,
		.mapping_max_order = c->mapping_max_order,
		.vm_start = c->offset & ~(page - 1),
		.vm_end = ALIGN(c->offset + c->len, page),
		.vm_pgoff = c->offset >> c->page_shift,
		.vma_opt_out = c->thp & VMA_OPT_OUT,
		.mm_opt_out = c->thp & MM_OPT_OUT,
		.no_pmd = c->thp & NO_PMD,
		.thp_never = c->thp & THP_NEVER,
	};
	unsigned int order = exec_folio_place(&in);
	unsigned long size = 1UL << (order + c->page_shift);

	KUNIT_EXPECT_EQ(test, order, c->want);
	if (!order)
		return;
	/* A whole aligned block of the size fits in the range. */
	KUNIT_EXPECT_LE(test, ALIGN(in.vm_start, size) + size, in.vm_end);
	/* Never more than a fault would read. */
	KUNIT_EXPECT_LE(test, order, exec_folio_decide(&in));
}

static void exec_folio_test_congruent(struct kunit *test)
{
	static const struct {
		unsigned long addr, vaddr, offset, size;
	} c[] = {
		{ 0x555555554000UL, 0x2d000, 0x2d000, SZ_2M },
		{ 0x555555400000UL, 0x2d000, 0x2d000, SZ_2M },
		{ 0x7f0000001000UL, 0x1000, 0x3000, SZ_64K },
		{ 0x7f0000005000UL, 0x1000, 0x3000, SZ_64K },
		{ 0xaaaaaaab0000UL, 0x10000, 0x0, SZ_2M },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		unsigned long r = exec_folio_congruent(c[i].addr, c[i].vaddr,
						       c[i].offset, c[i].size);

		KUNIT_EXPECT_EQ(test, (r + c[i].vaddr - c[i].offset) &
				(c[i].size - 1), 0UL);
		KUNIT_EXPECT_LE(test, r, c[i].addr);
		KUNIT_EXPECT_LT(test, c[i].addr - r, c[i].size);
	}
	/* No congruent address at or below it: unchanged. */
	KUNIT_EXPECT_EQ(test, exec_folio_congruent(0x1000, 0, 0x3000, SZ_64K),
			0x1000UL);
	/* Already congruent: unchanged. */
	KUNIT_EXPECT_EQ(test, exec_folio_congruent(0x555555400000UL, 0x2d000,
						   0x2d000, SZ_2M),
			0x555555400000UL);
}

/*
 * The static key cases need no live process with a large policy of its
 * own (true at boot); a rerun of the suite after boot (through debugfs)
 * may find one, and skips.
 */
static void exec_folio_test_need_no_process(struct kunit *test)
{
	if (atomic_read(&exec_folio_large_mms))
		kunit_skip(test, "a live process has a large policy of its own");
}

/*
 * The fault path's static key follows the global policy: off under
 * "never", and under "arch" where the architecture has no preference
 * (x86), so that no new code runs there; on for any policy that can give
 * large folios.
 */
static void exec_folio_test_static_key(struct kunit *test)
{
	unsigned int saved = READ_ONCE(exec_folio_global_policy);

	exec_folio_test_need_no_process(test);
	exec_folio_set_global(EXEC_FOLIO_POLICY(EXEC_FOLIO_NEVER, 0));
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&exec_folio_enabled));
	exec_folio_set_global(EXEC_FOLIO_POLICY(EXEC_FOLIO_ARCH, 0));
	KUNIT_EXPECT_EQ(test, static_key_enabled(&exec_folio_enabled),
			exec_folio_order() > 0);
	exec_folio_set_global(EXEC_FOLIO_POLICY(EXEC_FOLIO_AUTO, 0));
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&exec_folio_enabled));
	exec_folio_set_global(EXEC_FOLIO_POLICY(EXEC_FOLIO_NEVER, 0));
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&exec_folio_enabled));
	exec_folio_set_global(EXEC_FOLIO_POLICY(EXEC_FOLIO_ORDER,
						EXEC_FOLIO_MIN_ORDER));
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&exec_folio_enabled));
	exec_folio_set_global(saved);
}

/* When the key must be on, for a global policy and live process policies. */
static void exec_folio_test_key_wanted(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, exec_folio_key_wanted(P(NEVER, 0), 0));
	KUNIT_EXPECT_FALSE(test, exec_folio_key_wanted(P(NEVER, 0), 5));
	KUNIT_EXPECT_EQ(test, exec_folio_key_wanted(P(ARCH, 0), 0),
			exec_folio_order() > 0);
	KUNIT_EXPECT_TRUE(test, exec_folio_key_wanted(P(ARCH, 0), 1));
	KUNIT_EXPECT_TRUE(test, exec_folio_key_wanted(P(AUTO, 0), 0));
	KUNIT_EXPECT_TRUE(test, exec_folio_key_wanted(P(ORDER, 4), 0));
}

/*
 * A process policy that may give large folios keeps the key on while
 * its mm lives, even where the global policy alone leaves it off (x86's
 * "arch"), but not under the global "never"; when the last such mm
 * goes, the key goes off (a second later).
 */
static void exec_folio_test_static_key_process(struct kunit *test)
{
	unsigned int saved = READ_ONCE(exec_folio_global_policy);
	unsigned int large = P(ORDER, EXEC_FOLIO_MIN_ORDER);

	exec_folio_test_need_no_process(test);
	exec_folio_set_global(P(ARCH, 0));
	/* Policies that give no large folio are not counted. */
	exec_folio_mm_account(P(INHERIT, 0), P(NEVER, 0));
	KUNIT_EXPECT_EQ(test, atomic_read(&exec_folio_large_mms), 0);
	exec_folio_mm_account(P(INHERIT, 0), large);
	KUNIT_EXPECT_EQ(test, atomic_read(&exec_folio_large_mms), 1);
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&exec_folio_enabled));
	/* The administrator's "never" beats any process's policy. */
	exec_folio_set_global(P(NEVER, 0));
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&exec_folio_enabled));
	exec_folio_set_global(P(ARCH, 0));
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&exec_folio_enabled));
	/* A change between two large policies changes nothing. */
	exec_folio_mm_account(large, P(AUTO, 0));
	KUNIT_EXPECT_EQ(test, atomic_read(&exec_folio_large_mms), 1);
	exec_folio_mm_account(P(AUTO, 0), P(INHERIT, 0));
	KUNIT_EXPECT_EQ(test, atomic_read(&exec_folio_large_mms), 0);
	flush_delayed_work(&exec_folio_key_off_work);
	KUNIT_EXPECT_EQ(test, static_key_enabled(&exec_folio_enabled),
			exec_folio_order() > 0);
	exec_folio_set_global(saved);
}

static struct kunit_case exec_folio_test_cases[] = {
	KUNIT_CASE_PARAM(exec_folio_test_decide, exec_folio_gen_params),
	KUNIT_CASE_PARAM(exec_folio_test_place, exec_folio_place_gen_params),
	KUNIT_CASE(exec_folio_test_congruent),
	KUNIT_CASE(exec_folio_test_cap),
	KUNIT_CASE(exec_folio_test_format),
	KUNIT_CASE(exec_folio_test_static_key),
	KUNIT_CASE(exec_folio_test_key_wanted),
	KUNIT_CASE(exec_folio_test_static_key_process),
	{}
};

static struct kunit_suite exec_folio_test_suite = {
	.name = "exec_folio",
	.test_cases = exec_folio_test_cases,
};

kunit_test_suite(exec_folio_test_suite);

#undef P
