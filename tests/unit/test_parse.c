// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The command line's pure parsers, linked without the CLI: sizes,
 * counts, seconds (src/util/parse.c) and the -t target list (src/session).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <cmocka.h>
#include "session/session.h"
#include "util/parse.h"
#include "util/util.h"

static void test_size(void **state)
{
	static const struct {
		const char *s;
		bool zero;
		int err;
		__u64 v;
	} cases[] = {
		{ "4096", false, 0, 4096 },
		{ "4K", false, 0, 4096 },
		{ "2m", false, 0, 2ULL << 20 },
		{ "1G", false, 0, 1ULL << 30 },
		{ "0x10", false, 0, 16 },
		{ "0", true, 0, 0 },
		{ "0", false, -EINVAL, 0 },
		{ " 1", false, -EINVAL, 0 },
		{ "-1", false, -EINVAL, 0 },
		{ "1KB", false, -EINVAL, 0 },
		{ "1T", false, -EINVAL, 0 },
		{ "", false, -EINVAL, 0 },
		{ "17179869184G", false, -EINVAL, 0 },
		{ "18446744073709551616", false, -EINVAL, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		__u64 v = 12345;

		assert_int_equal(size__parse(cases[i].s, cases[i].zero, &v),
				 cases[i].err);
		assert_int_equal(v, cases[i].err ? 12345 : cases[i].v);
	}
}

static void test_count(void **state)
{
	static const struct {
		const char *s;
		bool units;
		__u64 max;
		int err;
		__u64 v;
	} cases[] = {
		/* With units: run's counts. */
		{ "64", true, 1000000, 0, 64 },
		{ "4K", true, 65536, 0, 4096 },
		{ "0x10", true, 16, 0, 16 },
		{ "17", true, 16, -ERANGE, 0 },
		{ "1M", true, 65536, -ERANGE, 0 },
		{ "0", true, 16, -EINVAL, 0 },
		{ "1x", true, 16, -EINVAL, 0 },
		{ "-1", true, 16, -EINVAL, 0 },
		/* Without: decimal digits only (--sample). */
		{ "100", false, 4294967295ULL, 0, 100 },
		{ "010", false, 100, 0, 10 },
		{ "4294967295", false, 4294967295ULL, 0, 4294967295ULL },
		{ "4294967296", false, 4294967295ULL, -ERANGE, 0 },
		{ "99999999999999999999", false, 4294967295ULL, -ERANGE, 0 },
		{ "0", false, 100, -EINVAL, 0 },
		{ "4K", false, 1 << 20, -EINVAL, 0 },
		{ "0x10", false, 100, -EINVAL, 0 },
		{ " 1", false, 100, -EINVAL, 0 },
		{ "+1", false, 100, -EINVAL, 0 },
		{ "1.5", false, 100, -EINVAL, 0 },
		{ "", false, 100, -EINVAL, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		__u64 v = 12345;

		assert_int_equal(count__parse(cases[i].s, cases[i].units,
					      cases[i].max, &v),
				 cases[i].err);
		assert_int_equal(v, cases[i].err ? 12345 : cases[i].v);
	}
}

static void test_seconds(void **state)
{
	static const char *const bad[] = { "0",	   "-1",    "nan",     "inf",
					   "0x10", " 1",    "1s",      "",
					   ".",	   "1e400", "31536001" };
	double v;

	assert_int_equal(seconds__parse("1.5", &v), 0);
	assert_true(v == 1.5);
	assert_int_equal(seconds__parse("2e1", &v), 0);
	assert_true(v == 20.0);
	assert_int_equal(seconds__parse("31536000", &v), 0);
	assert_true(v == PARSE_MAX_SECONDS);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(seconds__parse(bad[i], &v), -EINVAL);
}

static void test_duration(void **state)
{
	static const struct {
		const char *s;
		__u64 ns;
	} good[] = {
		{ "500us", 500000 },	  { "2ms", 2000000 },
		{ "1.5s", 1500000000 },	  { "40000000ns", 40000000 },
		{ "0.0001ns", 1 },	  { "31536000s", 31536000000000000 },
		{ ".5ms", 500000 },	  { "10m", 600000000000 },
		{ "1.5h", 5400000000000 }
	};
	static const char *const bad[] = {
		"-1",	     "1parsec", "0ms",	"1",	  "ms",	 "1e3us",
		"1..2s",     "1 ms",	"1ms ", "0x10ms", ".ms", "",
		"31536001s", "infs",	"1MS",	"8761h",  "1mm"
	};
	__u64 v;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		v = 0;
		assert_int_equal(duration__parse(good[i].s, &v), 0);
		assert_int_equal(v, good[i].ns);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(duration__parse(bad[i], &v), -EINVAL);
}

static void test_targets(void **state)
{
	bool want[FS_TGT_NR];

	assert_int_equal(session__parse_targets("all", want), 0);
	for (int t = 0; t < FS_TGT_NR; t++)
		assert_true(want[t]);
	assert_int_equal(session__parse_targets("shmem", want), 0);
	for (int t = 0; t < FS_TGT_NR; t++)
		assert_int_equal(want[t], t == FS_TGT_SHMEM);
	assert_int_equal(session__parse_targets("dedupe", want), 0);
	for (int t = 0; t < FS_TGT_NR; t++)
		assert_int_equal(want[t], t == FS_TGT_DEDUPE);
	assert_int_equal(session__parse_targets("both", want), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size),	cmocka_unit_test(test_count),
		cmocka_unit_test(test_seconds), cmocka_unit_test(test_duration),
		cmocka_unit_test(test_targets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
