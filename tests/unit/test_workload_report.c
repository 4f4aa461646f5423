// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests: how a workload's ground-truth checks reach the reports: the
 * JSON "validation" section (written, read back, malformed input refused)
 * and the text verdict with the failed cases.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <cmocka.h>

#include "report/report.h"
#include "util/util.h"
#include "workload/workload.h"

static char dir[] = "/tmp/fs-test-validation-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/r.json", dir);
	unlink(path);
	return rmdir(dir);
}

static void path_of(char *buf, size_t n)
{
	snprintf(buf, n, "%s/r.json", dir);
}

static void write_file(const char *text)
{
	char path[128];
	FILE *f;

	path_of(path, sizeof(path));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A run with 3 checks, 2 of which failed. */
static void make_report(struct fs_report *r)
{
	model__init(r);
	snprintf(r->workload_name, sizeof(r->workload_name), "dedupe");
	model__kv_u64(r, "validation_failures", 2);
	model__check(r, true, "", "", "");
	model__check(r, false, "fs=xfs bs=1024 case=dests dest=2/7",
		     "DIFFERS bytes_deduped=0", "SAME bytes_deduped=16384");
	model__check_kind(r, false, "unwritten",
			  "huge=always file=sparse call=3",
			  "ret=4096, data as written",
			  "ret=4096, file offset 5: want 0x00, got 0x17");
}

static void test_json_round_trip(void **state)
{
	struct fs_report *r = malloc(sizeof(*r)), *back = malloc(sizeof(*r));
	char path[128];

	(void)state;
	make_report(r);
	path_of(path, sizeof(path));
	assert_int_equal(report__json_write(r, path), 0);
	assert_int_equal(report__json_read(path, back), 0);
	assert_true(back->validation.ran);
	assert_int_equal(back->validation.checks, 3);
	assert_int_equal(back->validation.failures, 2);
	assert_int_equal(back->validation.ncases, 2);
	assert_string_equal(back->validation.cases[0].layout,
			    "fs=xfs bs=1024 case=dests dest=2/7");
	assert_string_equal(back->validation.cases[1].got,
			    "ret=4096, file offset 5: want 0x00, got 0x17");
	/* Each failure keeps its kind. */
	assert_string_equal(back->validation.cases[0].kind, FS_CASE_ANSWER);
	assert_string_equal(back->validation.cases[1].kind, "unwritten");
	free(r);
	free(back);
}

static void test_json_absent_without_checks(void **state)
{
	struct fs_report *r = malloc(sizeof(*r)), *back = malloc(sizeof(*r));
	char path[128], text[4096];
	FILE *f;
	size_t n;

	(void)state;
	model__init(r);
	path_of(path, sizeof(path));
	assert_int_equal(report__json_write(r, path), 0);
	f = fopen(path, "r");
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	/* No checks ran: no section, which is not "0 failures". */
	assert_null(strstr(text, "\"validation\""));
	assert_int_equal(report__json_read(path, back), 0);
	assert_false(back->validation.ran);
	free(r);
	free(back);
}

/* Only the first FS_MAX_CASES failures are kept, and written. */
static void test_json_many_failures(void **state)
{
	struct fs_report *r = malloc(sizeof(*r)), *back = malloc(sizeof(*r));
	char path[128];

	(void)state;
	model__init(r);
	for (int i = 0; i < FS_MAX_CASES + 10; i++)
		model__check(r, false, "l", "e", "g");
	path_of(path, sizeof(path));
	assert_int_equal(report__json_write(r, path), 0);
	assert_int_equal(report__json_read(path, back), 0);
	assert_int_equal(back->validation.failures, FS_MAX_CASES + 10);
	assert_int_equal(back->validation.ncases, FS_MAX_CASES);
	free(r);
	free(back);
}

static void test_json_rejects(void **state)
{
	static const char head[] =
		"{\"schema\":\"folioscope/1\",\"tool\":{\"version\":\"x\"},"
		"\"host\":{\"kernel\":\"k\",\"machine\":\"m\",\"page_size\":"
		"4096},"
		"\"targets\":{},";
	static const char *const bad[] = {
		"\"validation\":[]}",
		"\"validation\":{\"checks\":1,\"failures\":2,\"cases\":"
		"[{\"layout\":\"a\",\"expected\":\"b\",\"got\":\"c\"},"
		"{\"layout\":\"a\",\"expected\":\"b\",\"got\":\"c\"}]}}",
		"\"validation\":{\"checks\":3,\"failures\":2,\"cases\":"
		"[{\"layout\":\"a\",\"expected\":\"b\",\"got\":\"c\"}]}}",
		"\"validation\":{\"checks\":3,\"failures\":1,\"cases\":"
		"[{\"layout\":\"a\",\"expected\":\"b\"}]}}",
		"\"validation\":{\"checks\":3,\"cases\":[]}}",
		"\"validation\":{\"checks\":-3,\"failures\":0,\"cases\":[]}}",
	};
	struct fs_report *r = malloc(sizeof(*r));
	char path[128], text[1024];

	(void)state;
	path_of(path, sizeof(path));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(text, sizeof(text), "%s%s", head, bad[i]);
		write_file(text);
		assert_int_equal(report__json_read(path, r), -EINVAL);
	}
	/* And the well-formed one passes. */
	snprintf(text, sizeof(text), "%s%s", head,
		 "\"validation\":{\"checks\":3,\"failures\":1,\"cases\":"
		 "[{\"layout\":\"a\",\"expected\":\"b\",\"got\":\"c\"}]}}");
	write_file(text);
	assert_int_equal(report__json_read(path, r), 0);
	assert_int_equal(r->validation.failures, 1);
	/* A case without a kind is a wrong answer. */
	assert_string_equal(r->validation.cases[0].kind, FS_CASE_ANSWER);
	free(r);
}

static void test_text_verdict(void **state)
{
	struct fs_report *r = malloc(sizeof(*r));
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	make_report(r);
	f = open_memstream(&buf, &len);
	assert_int_equal(report__text(f, r), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\nvalidation: 3 checks, 2 failures\n"));
	assert_non_null(
		strstr(buf, "  FAIL (wrong answer) fs=xfs bs=1024 case=dests "
			    "dest=2/7\n"
			    "    expected: DIFFERS bytes_deduped=0\n"
			    "    got:      SAME bytes_deduped=16384\n"));
	assert_non_null(strstr(buf, "  FAIL (unwritten) huge=always "
				    "file=sparse call=3\n"));
	free(buf);

	/* Nothing checked: no verdict line at all. */
	model__init(r);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(report__text(f, r), 0);
	fclose(f);
	assert_null(strstr(buf, "validation:"));
	free(buf);
	free(r);
}

/* HTML: the kind is the first column of the failed checks. */
static void test_html_kind(void **state)
{
	struct fs_report *r = malloc(sizeof(*r));
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	make_report(r);
	f = open_memstream(&buf, &len);
	assert_int_equal(report__html(f, r, NULL), 0);
	fclose(f);
	assert_non_null(strstr(buf, "<tr><th>kind</th><th>layout</th>"));
	assert_non_null(strstr(buf, "<tr><td>unwritten</td><td>huge=always "
				    "file=sparse call=3</td>"));
	free(buf);
	free(r);
}

/* A dedupe target whose probes counted what want says, bytes measured. */
static void probe_counts(struct fs_report *r, const struct wl_count *want)
{
	struct fs_target_report *tr = &r->target[FS_TGT_DEDUPE];

	model__init(r);
	tr->hist[FS_DD_BYTES].measured = true;
	tr->hist[FS_DD_BYTES].sum = want->bytes;
	tr->counter[FS_DD_CALLS] = want->calls;
	tr->counter[FS_DD_SAME] = want->same;
	tr->counter[FS_DD_DIFFERS] = want->differs;
	tr->counter[FS_DD_ERRORS] = want->errors;
}

static const char *reconcile_kv(const struct fs_report *r)
{
	const struct fs_kv *kv = model__kv_find(r, "reconcile");

	return kv ? kv->s : "";
}

/*
 * Every count is reconciled: a probe that swapped SAME and DIFFERS, or
 * lost an error, is a mismatch even where calls and bytes agree.
 */
static void test_reconcile_counters(void **state)
{
	const struct wl_count want = {
		.calls = 6, .bytes = 12288, .same = 3, .differs = 2, .errors = 1
	};
	struct fs_report *r = malloc(sizeof(*r));
	struct wl_count w;

	(void)state;
	probe_counts(r, &want);
	assert_int_equal(workload__reconcile(r, FS_TGT_DEDUPE, &want), 0);
	assert_string_equal(reconcile_kv(r), "ok");

	w = want;
	w.same = want.differs;
	w.differs = want.same;
	probe_counts(r, &w);
	assert_int_equal(workload__reconcile(r, FS_TGT_DEDUPE, &want), -EPROTO);
	assert_string_equal(reconcile_kv(r), "MISMATCH");

	w = want;
	w.errors = 0;
	w.same = 4;
	probe_counts(r, &w);
	assert_int_equal(workload__reconcile(r, FS_TGT_DEDUPE, &want), -EPROTO);

	/* shmem counts no SAME or DIFFERS: only what it has is compared;
	 * its errors are. */
	model__init(r);
	r->target[FS_TGT_SHMEM].hist[FS_SH_BYTES].measured = true;
	r->target[FS_TGT_SHMEM].hist[FS_SH_BYTES].sum = want.bytes;
	r->target[FS_TGT_SHMEM].counter[FS_SH_CALLS] = want.calls;
	r->target[FS_TGT_SHMEM].counter[FS_SH_ERRORS] = want.errors;
	assert_int_equal(workload__reconcile(r, FS_TGT_SHMEM, &want), 0);
	r->target[FS_TGT_SHMEM].counter[FS_SH_ERRORS] = 0;
	assert_int_equal(workload__reconcile(r, FS_TGT_SHMEM, &want), -EPROTO);

	/* Bytes not measured: nothing to reconcile against. */
	model__init(r);
	model__not_measured(r, FS_TGT_DEDUPE, FS_DD_BYTES, "a clone");
	assert_int_equal(workload__reconcile(r, FS_TGT_DEDUPE, &want), 0);
	assert_string_equal(reconcile_kv(r), "skipped: bytes not measured");
	free(r);
}

/* Which /dev/kmsg records are the kernel complaining. */
static void test_kmsg_complaints(void **state)
{
	static const struct {
		const char *rec;
		bool user, complaint;
	} t[] = {
		{ "4,812,1234567,-;WARNING: CPU: 1 PID: 77 at mm/shmem.c:2700 "
		  "shmem_file_read_iter+0x1/0x2",
		  false, true },
		{ "1,5,6,-;BUG: KASAN: slab-out-of-bounds in memcmp+0x1/0x2",
		  false, true },
		{ "0,5,6,-;kernel BUG at fs/remap_range.c:300!", false, true },
		{ "4,5,6,-;UBSAN: shift-out-of-bounds in mm/shmem.c:12:3",
		  false, true },
		{ "4,5,6,-;Oops: 0000 [#1] PREEMPT SMP", false, true },
		{ "3,5,6,-;INFO: task folioscope:123 blocked for more than 120 "
		  "seconds.",
		  false, true },
		{ "4,5,6,-;general protection fault, probably for "
		  "non-canonical "
		  "address",
		  false, true },
		{ "6,5,6,-;loop0: detected capacity change from 0 to 65536",
		  false, false },
		{ "5,5,6,-;XFS (loop0): Mounting V5 Filesystem", false, false },
		/* Facility 1 (user): only with user. */
		{ "12,5,6,-;WARNING: CPU: 0 PID: 1 at fake", false, false },
		{ "12,5,6,-;WARNING: CPU: 0 PID: 1 at fake", true, true },
		{ "28,5,6,-;WARNING: from a daemon", true, false },
		{ "no prefix WARNING: x", false, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *m = wl_kmsg__complaint(t[i].rec, t[i].user);

		if (t[i].complaint) {
			assert_non_null(m);
			assert_string_equal(m, strchr(t[i].rec, ';') + 1);
		} else {
			assert_null(m);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_absent_without_checks),
		cmocka_unit_test(test_json_many_failures),
		cmocka_unit_test(test_json_rejects),
		cmocka_unit_test(test_text_verdict),
		cmocka_unit_test(test_html_kind),
		cmocka_unit_test(test_reconcile_counters),
		cmocka_unit_test(test_kmsg_complaints),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
