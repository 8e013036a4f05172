// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the exec_folio_size knob's parser.  Included from
 * exec_folio_sysfs.c.
 */

#include <kunit/test.h>

struct exec_folio_parse_case {
	const char *input;
	unsigned int page_shift;
	unsigned int max_order;
	int err;
	unsigned int policy;	/* when err is 0 */
};

#define OK(in, shift, max, mode, order) \
	{ in, shift, max, 0, EXEC_FOLIO_POLICY(EXEC_FOLIO_##mode, order) }
#define BAD(in, shift, max) { in, shift, max, -EINVAL, 0 }

static const struct exec_folio_parse_case exec_folio_parse_cases[] = {
	OK("never", 12, 9, NEVER, 0),
	OK("never\n", 12, 9, NEVER, 0),
	OK("arch", 12, 9, ARCH, 0),
	OK("auto\n", 12, 9, AUTO, 0),
	OK("16K", 12, 9, ORDER, 2),
	OK("64K", 12, 9, ORDER, 4),
	OK("512K", 12, 9, ORDER, 7),
	OK("1M", 12, 9, ORDER, 8),
	OK("2M\n", 12, 9, ORDER, 9),
	OK("64K", 14, 7, ORDER, 2),
	OK("2M", 14, 7, ORDER, 7),
	OK("256K", 16, 5, ORDER, 2),
	OK("2M", 16, 5, ORDER, 5),
	BAD("", 12, 9),
	BAD("\n", 12, 9),
	BAD("inherit", 12, 9),
	BAD("Never", 12, 9),
	BAD("never\n\n", 12, 9),
	BAD(" never", 12, 9),
	BAD("never ", 12, 9),
	BAD("arch auto", 12, 9),
	BAD("[arch]", 12, 9),
	BAD("64k", 12, 9),
	BAD("64KB", 12, 9),
	BAD("65536", 12, 9),
	BAD("4K", 12, 9),
	BAD("8K", 12, 9),
	BAD("48K", 12, 9),
	BAD("4M", 12, 9),
	BAD("1M", 12, 4),
	BAD("32K", 14, 7),
	BAD("64K", 16, 5),
	BAD("128K", 16, 5),
	BAD("4M", 16, 5),
	BAD("0", 12, 9),
	BAD("-1", 12, 9),
	BAD("\xff\xfe", 12, 9),
	BAD("2M2M", 12, 9),
};

static void exec_folio_parse_desc(const struct exec_folio_parse_case *c,
				  char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pE\" %uK pages",
		 (int)strlen(c->input), c->input, 1U << (c->page_shift - 10));
}

KUNIT_ARRAY_PARAM(exec_folio_parse, exec_folio_parse_cases,
		  exec_folio_parse_desc);

static void exec_folio_test_parse(struct kunit *test)
{
	const struct exec_folio_parse_case *c = test->param_value;
	unsigned int policy = 0xdead;
	int err;

	err = exec_folio_parse(c->input, c->page_shift, c->max_order, &policy);
	KUNIT_EXPECT_EQ(test, err, c->err);
	/* On error the output is untouched, so the old value is kept. */
	KUNIT_EXPECT_EQ(test, policy, c->err ? 0xdead : c->policy);
}

/* Every word the knob lists must parse back to the policy it stands for. */
static void exec_folio_test_roundtrip(struct kunit *test)
{
	static const unsigned int shifts[] = { 12, 14, 16 };
	char word[EXEC_FOLIO_WORD_LEN];
	unsigned int s, i, policy, back;

	for (s = 0; s < ARRAY_SIZE(shifts); s++) {
		unsigned int max = exec_folio_cap(shifts[s], shifts[s] - 3,
						  shifts[s] - 3);

		for (i = 0; exec_folio_accepted(i, max, &policy); i++) {
			exec_folio_format(policy, shifts[s], word, sizeof(word));
			KUNIT_EXPECT_EQ(test, exec_folio_parse(word, shifts[s],
							       max, &back), 0);
			KUNIT_EXPECT_EQ(test, back, policy);
		}
		/* three modes and every size from order 2 up to 2M */
		KUNIT_EXPECT_EQ(test, i, 3 + max - EXEC_FOLIO_MIN_ORDER + 1);
	}
}

static struct kunit_case exec_folio_sysfs_test_cases[] = {
	KUNIT_CASE_PARAM(exec_folio_test_parse, exec_folio_parse_gen_params),
	KUNIT_CASE(exec_folio_test_roundtrip),
	{}
};

static struct kunit_suite exec_folio_sysfs_test_suite = {
	.name = "exec_folio_sysfs",
	.test_cases = exec_folio_sysfs_test_cases,
};

kunit_test_suite(exec_folio_sysfs_test_suite);

#undef OK
#undef BAD
