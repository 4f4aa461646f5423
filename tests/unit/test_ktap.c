// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests: the KTAP of a run (report__ktap) from a report built here,
 * for what the host's runs rarely make (failures past those a report
 * keeps, a disturbed environment, reconcile's other verdicts, more groups
 * than a report keeps), and the groups the model counts checks in.
 * tests/host/ktap.sh holds real runs' KTAP against the kernel's parser.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/report.h"

/* The KTAP of r, malloc'd. */
static char *ktap_of(const struct fs_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__ktap(f, r), 0);
	fclose(f);
	return buf;
}

/* How many lines of text start with prefix. */
static int lines_with(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	int count = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');

		count += !strncmp(p, prefix, n);
		if (!nl)
			break;
		p = nl + 1;
	}
	return count;
}

static struct fs_report *new_report(const char *workload)
{
	struct fs_report *r = malloc(sizeof(*r));

	assert_non_null(r);
	model__init(r);
	snprintf(r->workload_name, sizeof(r->workload_name), "%s", workload);
	return r;
}

static void test_groups(void **state)
{
	struct fs_report *r = new_report("dedupe");
	char *k;

	(void)state;
	model__check_group(r, "btrfs bs=4096");
	model__checks_passed(r, 3);
	model__check_group(r, "xfs bs=1024");
	model__check(r, true, "fs=xfs bs=1024 case=a", "", "");
	model__check(r, false, "fs=xfs bs=1024 case=b", "SAME", "DIFFERS");
	/* Back in a group met before: its checks add up there. */
	model__check_group(r, "btrfs bs=4096");
	model__check_kind(r, false, "data changed", "fs=btrfs bs=4096 #1",
			  "untouched", "1 byte\nreplaced");
	model__check_group(r, NULL);
	model__check_kind(r, false, "kernel log", "the whole run", "clean",
			  "WARNING: at mm/x.c");
	model__kv_str(r, "reconcile", "ok");
	assert_int_equal(r->validation.ngroups, 2);
	assert_int_equal(r->validation.groups[0].checks, 4);
	assert_int_equal(r->validation.groups[0].failures, 1);
	assert_int_equal(r->validation.groups[1].checks, 2);
	assert_int_equal(r->validation.cases[0].group, 2);
	assert_int_equal(r->validation.cases[2].group, 0);

	k = ktap_of(r);
	assert_non_null(strstr(k, "KTAP version 1\n1..4\n# folioscope "));
	assert_non_null(strstr(k,
			       "  KTAP version 1\n"
			       "  # Subtest: btrfs bs=4096\n"
			       "  1..4\n"
			       "  # expected: untouched; got: 1 byte replaced\n"
			       "  not ok 1 check 1 # data changed: "
			       "fs=btrfs bs=4096 .1\n"
			       "  ok 2 check 2\n  ok 3 check 3\n"
			       "  ok 4 check 4\n"
			       "not ok 1 btrfs bs=4096 # data changed: "
			       "fs=btrfs bs=4096 .1\n"));
	assert_non_null(strstr(k, "  not ok 1 check 1 # wrong answer: "
				  "fs=xfs bs=1024 case=b\n"
				  "  ok 2 check 2\n"
				  "not ok 2 xfs bs=1024 # wrong answer: "
				  "fs=xfs bs=1024 case=b\n"));
	assert_non_null(strstr(k, "  # Subtest: the whole run\n  1..1\n"));
	assert_non_null(strstr(k, "not ok 3 the whole run # kernel log: "
				  "the whole run\nok 4 reconcile\n"));
	free(k);
	free(r);
}

/* Failures past FS_MAX_CASES: still one failed subtest each. */
static void test_failures_not_kept(void **state)
{
	struct fs_report *r = new_report("shmem-read");
	char *k;

	(void)state;
	model__check_group(r, "tmpfs huge=never");
	for (int i = 0; i < FS_MAX_CASES + 5; i++)
		model__check(r, false, "huge=never call=1", "a", "b");
	model__checks_passed(r, 2);
	model__kv_str(r, "reconcile", "MISMATCH");
	k = ktap_of(r);
	assert_int_equal(lines_with(k, "  not ok "), FS_MAX_CASES + 5);
	assert_int_equal(lines_with(k, "  not ok 65 check 65 # a failure "
				       "past the first 64"),
			 1);
	assert_int_equal(lines_with(k, "  ok "), 2);
	assert_non_null(strstr(k,
			       "not ok 1 tmpfs huge=never # wrong answer: "
			       "huge=never call=1 (and 68 more failures)\n"));
	assert_non_null(strstr(k, "not ok 2 reconcile # MISMATCH"));
	free(k);
	free(r);
}

static void test_skips_disturbed(void **state)
{
	struct fs_report *r = new_report("shmem-read");
	char *k;

	(void)state;
	model__skip(r, "plan=pv2-nowait syscall=preadv2 rwf=nowait",
		    "EOPNOTSUPP");
	model__disturbed(r, 7, "file '/x' was truncated");
	model__kv_str(r, "reconcile", "skipped: a call never returned");
	k = ktap_of(r);
	assert_non_null(strstr(k, "KTAP version 1\n1..3\n"));
	assert_non_null(strstr(k, "ok 1 plan=pv2-nowait syscall=preadv2 "
				  "rwf=nowait # SKIP EOPNOTSUPP\n"
				  "ok 2 environment # SKIP disturbed, not a "
				  "kernel failure: file '/x' was truncated; "
				  "unjudged answers: 7\n"
				  "ok 3 reconcile # SKIP a call never "
				  "returned\n"));
	/* No group without checks: a KTAP subtest of none is an error. */
	assert_null(strstr(k, "Subtest"));
	free(k);
	free(r);
}

/* More group names than a report keeps: the last group takes the rest. */
static void test_group_overflow(void **state)
{
	struct fs_report *r = new_report("shmem-read");
	char name[32];

	(void)state;
	for (int i = 0; i < FS_MAX_VGROUPS + 10; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		model__check_group(r, name);
		model__check(r, true, "", "", "");
	}
	model__check_group(r, "g0");
	model__check(r, true, "", "", "");
	assert_int_equal(r->validation.ngroups, FS_MAX_VGROUPS);
	assert_string_equal(r->validation.groups[FS_MAX_VGROUPS - 1].name,
			    FS_VGROUP_MORE);
	assert_int_equal(r->validation.groups[0].checks, 2);
	assert_int_equal(r->validation.groups[FS_MAX_VGROUPS - 1].checks, 11);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_failures_not_kept),
		cmocka_unit_test(test_skips_disturbed),
		cmocka_unit_test(test_group_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
