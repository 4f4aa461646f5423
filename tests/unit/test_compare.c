// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of src/compare: statistics from log2 buckets, the G-test of
 * homogeneity and the chi-square tail (against values computed
 * independently, in closed form), pooling and the refusal to compare
 * different runs, and the --expect rule parser and evaluator.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compare/compare.h"
#include "util/util.h"

#define REL(a, b, tol) assert_true(fabs((a) - (b)) <= (tol)*fabs(b))

static struct fs_report *report_new(void)
{
	struct fs_report *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	model__init(r);
	model__enable(r, FS_TGT_SHMEM, true);
	snprintf(r->target[FS_TGT_SHMEM].attach.mechanism,
		 sizeof(r->target[FS_TGT_SHMEM].attach.mechanism), "fentry");
	snprintf(r->target[FS_TGT_SHMEM].attach.symbol,
		 sizeof(r->target[FS_TGT_SHMEM].attach.symbol),
		 "shmem_file_read_iter");
	snprintf(r->workload_name, sizeof(r->workload_name), "shmem-read");
	model__kv_str(r, "huge", "always");
	model__kv_u64(r, "bs", 65536);
	model__kv_u64(r, "calls", 128);
	return r;
}

/* n values of v each into histogram h. */
static void put(struct fs_histogram *h, __u64 v, __u64 n)
{
	h->slot[fs_log2_slot(v)] += n;
	h->count += n;
	h->sum += v * n;
}

static struct fs_histogram *copy_hist(struct fs_report *r)
{
	return &r->target[FS_TGT_SHMEM].hist[FS_SH_COPY_BYTES];
}

/* ---- bucket statistics ---- */

static void test_quantile_exact_powers(void **state)
{
	struct fs_report *r = report_new();
	struct fs_histogram *h = copy_hist(r);
	double v;

	assert_false(cmp__quantile(h, 0.5, &v));
	assert_false(cmp__mean(h, &v));
	/* Page-sized copies: every value on a lower bound, so exact. */
	put(h, 4096, 1000);
	assert_true(cmp__at_lower_bounds(h));
	assert_true(cmp__quantile(h, 0.5, &v));
	assert_true(v == 4096);
	assert_true(cmp__quantile(h, 0.99, &v));
	assert_true(v == 4096);
	assert_true(cmp__max(h, &v));
	assert_true(v == 4096);
	/* 10% pages, 90% 64 KiB: p50 and p90 exact, p05 a page. */
	put(h, 65536, 9000);
	assert_true(cmp__quantile(h, 0.05, &v));
	assert_true(v == 4096);
	assert_true(cmp__quantile(h, 0.5, &v));
	assert_true(v == 65536);
	assert_true(cmp__quantile(h, 0.0, &v));
	assert_true(v == 4096);
	assert_true(cmp__quantile(h, 1.0, &v));
	assert_true(v == 65536);
	assert_true(cmp__mean(h, &v));
	REL(v, (4096.0 * 1000 + 65536.0 * 9000) / 10000, 1e-12);
	assert_true(cmp__min(h, &v));
	assert_true(v == 4096);
	free(r);
}

/*
 * Log-uniform values over [2^10, 2^20): every log2 bucket holds the same
 * count, and the true q-quantile is 2^(10 + 10 q). The estimator assumes
 * log-uniform values inside a bucket, so it must get this right.
 */
static void test_quantile_log_uniform(void **state)
{
	struct fs_report *r = report_new();
	struct fs_histogram *h = copy_hist(r);
	static const double qs[] = { 0.05, 0.25, 0.55, 0.93, 0.99 };
	double v;

	for (int s = 11; s <= 20; s++) {
		h->slot[s] = 1000;
		h->count += 1000;
	}
	/* The continuous mean of that distribution; not on lower bounds. */
	h->sum = (__u64)(10000 * (1048576.0 - 1024.0) / (10 * log(2)));
	assert_false(cmp__at_lower_bounds(h));
	for (size_t i = 0; i < ARRAY_SIZE(qs); i++) {
		assert_true(cmp__quantile(h, qs[i], &v));
		REL(v, exp2(10 + 10 * qs[i]), 1e-9);
	}
	/* The largest possible value is the last bucket's upper bound. */
	assert_true(cmp__max(h, &v));
	assert_true(v == 1048575);
	free(r);
}

/* Two point masses not on bucket bounds: linear walk of the counts. */
static void test_quantile_two_buckets(void **state)
{
	struct fs_report *r = report_new();
	struct fs_histogram *h = copy_hist(r);
	double v;

	put(h, 1000, 50); /* [512, 1024) */
	put(h, 3000, 50); /* [2048, 4096) */
	assert_true(cmp__quantile(h, 0.75, &v));
	REL(v, 2048 * sqrt(2), 1e-12);
	assert_true(cmp__quantile(h, 0.99, &v));
	REL(v, 2048 * exp2(0.98), 1e-12);
	/* The top of a bucket stays inside it. */
	assert_true(cmp__quantile(h, 0.5, &v));
	assert_true(v == 1023);
	assert_true(cmp__mean(h, &v));
	assert_true(v == 2000);
	free(r);
}

static void test_quantile_zero_and_align(void **state)
{
	struct fs_report *r = report_new();
	struct fs_histogram *h = copy_hist(r);
	struct fs_histogram *a = &r->target[FS_TGT_SHMEM].hist[FS_SH_POS_ALIGN];
	double v;

	put(h, 0, 3);
	put(h, 5000, 1);
	assert_true(cmp__quantile(h, 0.5, &v));
	assert_true(v == 0);
	/* Alignment buckets hold one value each: exact whatever the sum. */
	a->slot[fs_log2_slot(65536)] = 3;
	a->slot[fs_log2_slot(2097152)] = 1;
	a->count = 4;
	a->sum = 1;
	assert_true(cmp__quantile(a, 0.5, &v));
	assert_true(v == 65536);
	assert_true(cmp__quantile(a, 0.9, &v));
	assert_true(v == 2097152);
	free(r);
}

/* ---- chi-square tail and G-test ---- */

static void test_chi2_sf_known(void **state)
{
	/* df 1: the 5% critical value. */
	REL(cmp__chi2_sf(3.841458820694124, 1), 0.05, 1e-9);
	/* df 1: erfc(sqrt(x/2)); df 2: exp(-x/2), closed forms. */
	for (double x = 0.1; x < 60; x *= 1.7) {
		REL(cmp__chi2_sf(x, 1), erfc(sqrt(x / 2)), 1e-9);
		REL(cmp__chi2_sf(x, 2), exp(-x / 2), 1e-9);
	}
	/* df 10: the 5% critical value. */
	REL(cmp__chi2_sf(18.307038053275146, 10), 0.05, 1e-9);
	/* df 100 at x = 100: e^-50 sum_{i<50} 50^i/i! (even df). */
	REL(cmp__chi2_sf(100, 100), 0.4811916845279567, 1e-9);
	assert_true(cmp__chi2_sf(0, 3) == 1.0);
	/* Far in the tail: underflows to 0, never negative or NaN. */
	assert_true(cmp__chi2_sf(1e7, 1) == 0.0);
	assert_true(cmp__chi2_sf(1e6, 50) >= 0.0);
}

static void test_gtest_2x2(void **state)
{
	const __u64 c[] = { 10, 20, 30, 40 };
	struct cmp_test t;

	assert_int_equal(cmp__homogeneity(c, 2, 2, &t), 0);
	assert_int_equal(t.df, 1);
	/* Computed by hand: E = 12 18 / 28 42. */
	REL(t.g, 0.8043486460964835, 1e-12);
	REL(t.chi2, 0.7936507936507936, 1e-12);
	REL(t.cramers_v, 0.0890870806374748, 1e-12);
	REL(t.p, 0.36979636792989634, 1e-9);
	assert_int_equal(t.sparse, 0);
	assert_int_equal(t.n, 100);
}

static void test_gtest_2x3_zero_columns(void **state)
{
	/* Two all-zero columns (empty buckets) are dropped: df 2, not 4. */
	const __u64 c[] = { 20, 0, 30, 0, 50, 30, 0, 30, 0, 40 };
	struct cmp_test t;

	assert_int_equal(cmp__homogeneity(c, 2, 5, &t), 0);
	assert_int_equal(t.cols, 3);
	assert_int_equal(t.df, 2);
	REL(t.g, 3.1269600683408427, 1e-12);
	REL(t.chi2, 3.1111111111111107, 1e-12);
	REL(t.cramers_v, 0.1247219128924647, 1e-12);
	REL(t.p, 0.20940606145871168, 1e-9);
}

static void test_gtest_degenerate(void **state)
{
	const __u64 same[] = { 7, 0, 3, 7, 0, 3 };
	const __u64 apart[] = { 100, 0, 0, 100 };
	const __u64 one_col[] = { 5, 9 };
	const __u64 one_row[] = { 5, 9, 0, 0 };
	struct cmp_test t;

	assert_int_equal(cmp__homogeneity(same, 2, 3, &t), 0);
	assert_true(t.g < 1e-12 && t.cramers_v < 1e-9);
	REL(t.p, 1.0, 1e-9);
	assert_int_equal(cmp__homogeneity(apart, 2, 2, &t), 0);
	REL(t.cramers_v, 1.0, 1e-12);
	assert_true(t.p < 1e-40);
	assert_string_equal(cmp__effect_word(t.cramers_v, 1), "large");
	/* Nothing to test: one bucket, or one side empty. */
	assert_int_equal(cmp__homogeneity(one_col, 2, 1, &t), 0);
	assert_int_equal(t.df, 0);
	assert_true(t.p == 1.0);
	assert_int_equal(cmp__homogeneity(one_row, 2, 2, &t), 0);
	assert_int_equal(t.df, 0);
	assert_int_equal(cmp__homogeneity(one_row, 0, 2, &t), -EINVAL);
	assert_string_equal(cmp__effect_word(0.05, 1), "negligible");
	assert_string_equal(cmp__effect_word(0.2, 1), "small");
	assert_string_equal(cmp__effect_word(0.2, 4), "medium");
}

/* The G-test as the text and the picture both say it. */
static void test_gtest_sentence(void **state)
{
	struct fs_report *a = report_new(), *b = report_new();
	char text[320];

	put(copy_hist(a), 4096, 50);
	assert_false(
		cmp__test_text(text, sizeof(text), copy_hist(a), copy_hist(b)));
	assert_string_equal(text,
			    "G-test: nothing to test (a side has no events)");
	put(copy_hist(b), 4096, 20);
	assert_false(
		cmp__test_text(text, sizeof(text), copy_hist(a), copy_hist(b)));
	assert_string_equal(text,
			    "G-test: nothing to test (both in one bucket)");
	put(copy_hist(a), 65536, 50);
	put(copy_hist(b), 65536, 80);
	assert_true(
		cmp__test_text(text, sizeof(text), copy_hist(a), copy_hist(b)));
	assert_non_null(strstr(text, "G-test: G = "));
	assert_non_null(strstr(text, ", df = 1, p = "));
	assert_non_null(strstr(text, "; Cramér's V = "));
	model__free(a);
	model__free(b);
	free(a);
	free(b);
}

/* ---- rules ---- */

static void parse_ok(const char *text, struct cmp_rule *r)
{
	char err[256] = "";

	if (cmp__rule_parse(text, r, err, sizeof(err)))
		fail_msg("'%s' rejected: %s", text, err);
}

static void test_rule_parse_valid(void **state)
{
	struct cmp_rule r;

	parse_ok("shmem.copy_bytes.p50>=65536", &r);
	assert_int_equal(r.lhs.kind, CMP_Q_HIST);
	assert_int_equal(r.lhs.target, FS_TGT_SHMEM);
	assert_int_equal(r.lhs.index, FS_SH_COPY_BYTES);
	assert_int_equal(r.lhs.stat, CMP_ST_PCT);
	assert_true(r.lhs.pct == 50);
	assert_int_equal(r.op, CMP_GE);
	assert_false(r.rhs_base);
	assert_true(r.number == 65536);

	parse_ok("dedupe.latency_ns.p50<base*0.9", &r);
	assert_int_equal(r.lhs.target, FS_TGT_DEDUPE);
	assert_int_equal(r.lhs.index, FS_DD_LATENCY);
	assert_int_equal(r.op, CMP_LT);
	assert_true(r.rhs_base);
	assert_int_equal(r.rhs.stat, CMP_ST_PCT);
	assert_true(r.factor == 0.9);

	parse_ok("validation.failures==0", &r);
	assert_int_equal(r.lhs.kind, CMP_Q_VALIDATION);
	assert_string_equal(r.lhs.key, "failures");
	assert_int_equal(r.op, CMP_EQ);

	parse_ok("shmem.calls==base", &r);
	assert_int_equal(r.lhs.kind, CMP_Q_COUNTER);
	assert_int_equal(r.lhs.index, FS_SH_CALLS);
	assert_true(r.rhs_base && r.factor == 1);

	parse_ok("  shmem.copy_bytes.p99.9 <= 2M ", &r);
	assert_true(r.lhs.pct == 99.9);
	assert_int_equal(r.op, CMP_LE);
	assert_true(r.number == 2097152);

	parse_ok("shmem.copy_bytes.max > base.p99 * 1.5", &r);
	assert_int_equal(r.lhs.stat, CMP_ST_MAX);
	assert_int_equal(r.rhs.stat, CMP_ST_PCT);
	assert_true(r.rhs.pct == 99 && r.factor == 1.5);

	parse_ok("dedupe.same!=0", &r);
	assert_int_equal(r.op, CMP_NE);
	parse_ok("workload.shmem_huge_pages_kb>0.5K", &r);
	assert_int_equal(r.lhs.kind, CMP_Q_WORKLOAD);
	assert_string_equal(r.lhs.key, "shmem_huge_pages_kb");
	assert_true(r.number == 512);
	parse_ok("dedupe.bytes.mean>1e3", &r);
	assert_true(r.number == 1000);
	parse_ok("validation.checks>-1", &r);
	assert_true(r.number == -1);
}

static void test_rule_parse_malformed(void **state)
{
	static const struct {
		const char *rule, *msg;
	} bad[] = {
		{ "", "empty" },
		{ "   ", "empty" },
		{ "shmem", "needs a '.'" },
		{ "shmem.copy_bytes", "is a histogram" },
		{ "shmem.copy_bytes>1", "is a histogram" },
		{ "shmem.nope.p50>1", "no histogram 'nope'" },
		{ "shmem.nope>1", "no counter or histogram" },
		{ "nosuch.calls==1", "unknown target" },
		{ "shmem.copy_bytes.p100>1", "unknown statistic" },
		{ "shmem.copy_bytes.p0>1", "unknown statistic" },
		{ "shmem.copy_bytes.median>1", "unknown statistic" },
		{ "shmem.copy_bytes.p50.5.1>1", "unexpected '.'" },
		{ "shmem.calls=1", "use ==" },
		{ "shmem.calls=>1", "operator" },
		{ "shmem.calls<<1", "unknown operator" },
		{ "shmem.calls<", "missing value" },
		{ "shmem.calls", "missing operator" },
		{ "shmem.calls<abc", "number or 'base'" },
		{ "shmem.calls<1X", "after the number" },
		{ "shmem.calls<1.2.3", "bad number" },
		{ "shmem.calls<nan", "number or 'base'" },
		{ "shmem.calls<inf", "number or 'base'" },
		{ "shmem.calls<0x10", "after the number" },
		{ "shmem.calls<1 2", "unexpected '2'" },
		{ "shmem.calls<base*", "expected a number" },
		{ "shmem.calls<base*2K", "after the number" },
		{ "shmem.calls<base.p50", "needs a histogram" },
		{ "shmem.calls<baseline", "number or 'base'" },
		{ "validation.failures.p50==0", "takes no statistic" },
		{ "validation.oops==0", "unknown 'validation.oops'" },
		{ "workload.a.b==0", "takes no statistic" },
		{ ".calls==0", "expected a name" },
		{ "shmem.==0", "expected a name after" },
		{ "shmem.copy_bytes.==0", "expected a statistic" },
		{ "shmem.copy_bytes.p50>=base.nope", "unknown statistic" },
		/* Fuzzing: a 47-character pN and its '.' overflowed the stat
		 * name buffer (ASan: stack-buffer-overflow, make check SAN=1).
		 */
		{ "shmem.copy_bytes."
		  "p9999999999999999999999999999999999999999999999.9>1",
		  "expected a statistic" },
	};
	char err[256], longrule[400];
	struct cmp_rule r;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		if (!cmp__rule_parse(bad[i].rule, &r, err, sizeof(err)))
			fail_msg("'%s' accepted", bad[i].rule);
		if (!strstr(err, bad[i].msg))
			fail_msg("'%s': error '%s' lacks '%s'", bad[i].rule,
				 err, bad[i].msg);
		/* One line, for the one stderr line of a usage error. */
		assert_null(strchr(err, '\n'));
	}
	memset(longrule, 'a', sizeof(longrule) - 1);
	longrule[sizeof(longrule) - 1] = '\0';
	assert_int_equal(cmp__rule_parse(longrule, &r, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "longer than"));
}

static void side_of(struct cmp_side *s, struct fs_report *runs, int n,
		    const char **paths)
{
	s->label = "x";
	s->runs = runs;
	s->nruns = n;
	s->paths = paths;
	cmp__pool(s);
}

static bool holds(const char *text, const struct cmp_side *b,
		  const struct cmp_side *n, bool *evaluated)
{
	struct cmp_verdict v;
	struct cmp_rule r;

	parse_ok(text, &r);
	cmp__rule_eval(&r, b, n, &v);
	*evaluated = v.evaluated;
	return v.pass;
}

static void test_rule_eval(void **state)
{
	static const char *paths[] = { "a.json", "b.json" };
	struct fs_report *base = report_new(), *new = report_new();
	struct cmp_side *sb = calloc(1, sizeof(*sb));
	struct cmp_side *sn = calloc(1, sizeof(*sn));
	bool ev;

	assert_non_null(sb);
	assert_non_null(sn);
	put(copy_hist(base), 4096, 2048);
	put(copy_hist(new), 65536, 128);
	base->target[FS_TGT_SHMEM].counter[FS_SH_CALLS] = 129;
	new->target[FS_TGT_SHMEM].counter[FS_SH_CALLS] = 129;
	model__kv_u64(base, "validation_failures", 0);
	model__kv_u64(new, "validation_failures", 3);
	model__not_measured(new, FS_TGT_SHMEM, FS_SH_LATENCY, "no clock");
	side_of(sb, base, 1, paths);
	side_of(sn, new, 1, paths + 1);

	assert_true(holds("shmem.copy_bytes.p50>=64K", sb, sn, &ev) && ev);
	assert_false(holds("shmem.copy_bytes.p50<=4K", sb, sn, &ev));
	assert_true(ev);
	assert_true(holds("shmem.copy_bytes.p50==base*16", sb, sn, &ev));
	assert_true(holds("shmem.copy_bytes.count<base", sb, sn, &ev));
	assert_true(holds("shmem.calls==base", sb, sn, &ev));
	assert_false(holds("shmem.calls!=base", sb, sn, &ev));
	assert_true(holds("workload.bs==64K", sb, sn, &ev));
	/* The model's checks are absent: the workload's value counts. */
	assert_false(holds("validation.failures==0", sb, sn, &ev));
	assert_true(ev);
	/* Not measured and not traced: no value, which fails the rule. */
	assert_false(holds("shmem.latency_ns.p50<base", sb, sn, &ev));
	assert_false(ev);
	assert_false(holds("shmem.latency_ns.count>=0", sb, sn, &ev));
	assert_false(ev);
	assert_false(holds("dedupe.calls==0", sb, sn, &ev));
	assert_false(ev);
	assert_false(holds("shmem.folio_size.p50>0", sb, sn, &ev));
	assert_false(ev); /* empty */
	assert_false(holds("validation.checks>0", sb, sn, &ev));
	assert_false(ev);
	assert_false(holds("workload.huge==1", sb, sn, &ev));
	assert_false(ev);
	/* The model's validation wins over the workload value. */
	new->validation.ran = true;
	new->validation.checks = 10;
	cmp__pool(sn);
	assert_true(holds("validation.failures==0", sb, sn, &ev) && ev);
	assert_true(holds("validation.checks==10", sb, sn, &ev));
	free(base);
	free(new);
	free(sb);
	free(sn);
}

/* ---- pooling and refusing ---- */

static void test_pool_and_mismatch(void **state)
{
	static const char *paths[] = { "b1", "b2", "n1" };
	struct fs_report *runs = calloc(3, sizeof(*runs));
	struct cmp_side *sb = calloc(1, sizeof(*sb));
	struct cmp_side *sn = calloc(1, sizeof(*sn));
	struct cmp_quantity q = {};
	char why[512];
	struct fs_report *t;
	double v;
	bool ev;

	assert_non_null(runs);
	assert_non_null(sb);
	assert_non_null(sn);
	for (int i = 0; i < 3; i++) {
		t = report_new();
		runs[i] = *t;
		free(t);
		runs[i].target[FS_TGT_SHMEM].counter[FS_SH_CALLS] = 100 + i;
		put(copy_hist(&runs[i]), 4096, 10 * (i + 1));
	}
	side_of(sb, runs, 2, paths);
	side_of(sn, runs + 2, 1, paths + 2);
	assert_int_equal(copy_hist(&sb->pooled)->count, 30);
	assert_int_equal(sb->pooled.target[FS_TGT_SHMEM].counter[FS_SH_CALLS],
			 201);
	/* Additive quantities per run: 100.5 calls, 15 copies. */
	q.kind = CMP_Q_COUNTER;
	q.target = FS_TGT_SHMEM;
	q.index = FS_SH_CALLS;
	assert_true(cmp__value(sb, &q, &v, why, sizeof(why)));
	assert_true(v == 100.5);
	assert_true(holds("shmem.calls==102", sb, sn, &ev));
	assert_true(holds("shmem.copy_bytes.count==base*2", sb, sn, &ev));
	assert_int_equal(cmp__mismatch(sb, sn, why, sizeof(why)), 0);

	/* A different read size is a different workload. */
	model__kv_u64(&runs[2], "bs", 4096);
	assert_int_equal(cmp__mismatch(sb, sn, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "workload bs=65536 in b1 but 4096 in n1"));
	model__kv_u64(&runs[2], "bs", 65536);
	/* Results may differ; settings may not. */
	model__kv_u64(&runs[2], "calls", 7);
	model__kv_str(&runs[2], "huge_folios", "always: in effect (+4096 kB)");
	model__kv_str(&runs[2], "reconcile", "MISMATCH");
	assert_int_equal(cmp__mismatch(sb, sn, why, sizeof(why)), 0);
	/* A string setting only one side has. */
	model__kv_str(&runs[2], "fill", "sparse");
	assert_int_equal(cmp__mismatch(sb, sn, why, sizeof(why)), 1);
	assert_non_null(
		strstr(why, "workload fill=(none) in b1 but sparse in n1"));
	runs[2].nkv--;
	/* Another attach mechanism, in a base run. */
	snprintf(runs[1].target[FS_TGT_SHMEM].attach.mechanism,
		 sizeof(runs[1].target[FS_TGT_SHMEM].attach.mechanism),
		 "kprobe");
	assert_int_equal(cmp__mismatch(sb, sn, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "shmem attached by fentry"));
	assert_non_null(strstr(why, "kprobe shmem_file_read_iter in b2"));
	snprintf(runs[1].target[FS_TGT_SHMEM].attach.mechanism,
		 sizeof(runs[1].target[FS_TGT_SHMEM].attach.mechanism),
		 "fentry");
	/* A target traced on one side only. */
	model__enable(&runs[2], FS_TGT_DEDUPE, true);
	assert_int_equal(cmp__mismatch(sb, sn, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "dedupe traced in n1 only"));
	model__enable(&runs[2], FS_TGT_DEDUPE, false);
	/* Not measured in one run: not measured pooled, never zeros. */
	model__not_measured(&runs[1], FS_TGT_SHMEM, FS_SH_COPY_BYTES, "gone");
	cmp__pool(sb);
	assert_false(copy_hist(&sb->pooled)->measured);
	assert_false(holds("shmem.copy_bytes.count>=base", sb, sn, &ev));
	assert_false(ev);
	free(runs);
	free(sb);
	free(sn);
}

/* ---- the picture ---- */

static char *picture_of(bool html, const struct cmp_side *b,
			const struct cmp_side *n, const struct cmp_rule *rules,
			int nrules)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(cmp__picture(f, html, b, n, rules, nrules, NULL), 0);
	fclose(f);
	return buf;
}

static void test_picture(void **state)
{
	static const char *paths[] = { "b1.json", "b2.json", "n1.json" };
	struct fs_report *runs = calloc(3, sizeof(*runs));
	struct cmp_side *sb = calloc(1, sizeof(*sb));
	struct cmp_side *sn = calloc(1, sizeof(*sn));
	struct cmp_rule rules[2];
	char *page;

	assert_non_null(runs);
	assert_non_null(sb);
	assert_non_null(sn);
	for (int i = 0; i < 3; i++) {
		struct fs_report *r = report_new();

		runs[i] = *r;
		free(r);
	}
	/* Base: 3 of 4 and 1 of 2 at 4 KiB (pooled 4 of 6); new: 64 KiB. */
	put(copy_hist(&runs[0]), 4096, 3);
	put(copy_hist(&runs[0]), 65536, 1);
	put(copy_hist(&runs[1]), 4096, 1);
	put(copy_hist(&runs[1]), 65536, 1);
	put(copy_hist(&runs[2]), 65536, 8);
	model__not_measured(&runs[2], FS_TGT_SHMEM, FS_SH_LATENCY, "no clock");
	side_of(sb, runs, 2, paths);
	side_of(sn, runs + 2, 1, paths + 2);
	sb->label = "base";
	sn->label = "new";
	parse_ok("shmem.copy_bytes.p50>=64K", &rules[0]);
	parse_ok("shmem.copy_bytes.p50>=1M", &rules[1]);

	page = picture_of(true, sb, sn, rules, 2);
	/* Fractions of each side's own events, spread over base's runs. */
	assert_non_null(strstr(page, "data-side=\"base\" data-slot=\"13\" "
				     "data-lo=\"4096\" data-count=\"4\" "
				     "data-fraction=\"0.666667\""));
	assert_non_null(strstr(page, "data-side=\"new\" data-slot=\"17\" "
				     "data-lo=\"65536\" data-count=\"8\" "
				     "data-fraction=\"1.000000\""));
	assert_non_null(strstr(page, "class=\"spread\" data-side=\"base\" "
				     "data-slot=\"13\" data-min=\"0.500000\" "
				     "data-max=\"0.750000\""));
	assert_null(strstr(page, "class=\"spread\" data-side=\"new\""));
	assert_non_null(strstr(page, "<g class=\"pct\" data-side=\"new\" "
				     "data-q=\"50\" data-value=\"65536\""));
	assert_non_null(strstr(page, "<g class=\"pct\" data-side=\"base\" "
				     "data-q=\"50\" data-value=\"4096\""));
	/* The rules first, the failed one marked with what it compared. */
	assert_non_null(strstr(page, "rule pass"));
	assert_true(strstr(page, "rule pass") <
		    strstr(page, "<figure class=\"ab-chart\""));
	assert_non_null(strstr(page, "<li class=\"rule fail\" data-verdict="
				     "\"fail\">FAIL shmem.copy_bytes.p50&gt;"
				     "=1M: new 65536 &gt;= 1048576</li>"));
	assert_non_null(strstr(page, "1 of 2 rules hold"));
	/* Not measured on a side: a line, no chart. */
	assert_non_null(strstr(page, "shmem latency_ns: not measured on new: "
				     "no clock"));
	assert_null(strstr(page, "data-histogram=\"latency_ns\">"));
	/* Empty on both sides: a chart that says so. */
	assert_non_null(strstr(page, "no events on either side"));
	assert_null(strstr(page, "<script"));
	free(page);

	/* Traced on one side only: one line. */
	runs[2].target[FS_TGT_SHMEM].enabled = false;
	cmp__pool(sn);
	page = picture_of(false, sb, sn, NULL, 0);
	assert_non_null(strstr(page, "shmem: traced on base only, nothing to "
				     "compare"));
	assert_null(strstr(page, "class=\"ab\""));
	assert_true(!strncmp(page, "<?xml", 5));
	free(page);
	free(runs);
	free(sb);
	free(sn);
}

/* ---- a workload's own figures: throughput and its spread ---- */

static char *report_of(const struct cmp_side *b, const struct cmp_side *n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(cmp__report(f, b, n), 0);
	fclose(f);
	return text;
}

static void test_workload_results(void **state)
{
	static const char *paths[] = { "b1", "b2", "b3", "n1", "n2", "n3" };
	/* base 1000, 1100, 1200 MB/s; new 1250, 1300, 1400 or, overlapping
	 * the base, 1150, 1300, 1400. */
	static const __u64 bmb[] = { 1000, 1100, 1200 };
	static const __u64 nmb[] = { 1250, 1300, 1400 };
	struct fs_report *runs = calloc(6, sizeof(*runs));
	struct cmp_side *sb = calloc(1, sizeof(*sb));
	struct cmp_side *sn = calloc(1, sizeof(*sn));
	char *text;
	bool ev;

	assert_non_null(runs);
	assert_non_null(sb);
	assert_non_null(sn);
	for (int i = 0; i < 6; i++) {
		snprintf(runs[i].workload_name, sizeof(runs[i].workload_name),
			 "shmem-read");
		model__kv_u64(&runs[i], "throughput_passes", 3);
		model__kv_u64(&runs[i], "mb_per_s",
			      i < 3 ? bmb[i] : nmb[i - 3]);
		model__kv_u64(&runs[i], "cpu_us_per_gib", 1000);
	}
	side_of(sb, runs, 3, paths);
	side_of(sn, runs + 3, 3, paths + 3);
	text = report_of(sb, sn);
	/* The per-run mean, the change and both sides' spread. */
	assert_non_null(strstr(text, "workload results:"));
	assert_non_null(strstr(text, "workload.mb_per_s: read throughput"));
	assert_non_null(
		strstr(text, "mean            1100       1316.7  +19.7%"));
	assert_non_null(strstr(text, "1000..1200 | 1250..1400  runs separate"));
	/* An unchanged value says neither. */
	assert_non_null(strstr(text, "1000..1000 | 1000..1000\n"));
	free(text);
	assert_true(holds("workload.mb_per_s>=base*1.1", sb, sn, &ev) && ev);
	assert_false(holds("workload.mb_per_s>=base*1.2", sb, sn, &ev));
	assert_true(ev);

	model__kv_u64(&runs[3], "mb_per_s", 1150);
	cmp__pool(sn);
	text = report_of(sb, sn);
	assert_non_null(strstr(text, "1000..1200 | 1150..1400  runs overlap"));
	free(text);

	/* Without the values (a run that timed nothing), no section. */
	for (int i = 0; i < 6; i++)
		runs[i].nkv = 0;
	cmp__pool(sb);
	cmp__pool(sn);
	text = report_of(sb, sn);
	assert_null(strstr(text, "workload results"));
	free(text);
	free(runs);
	free(sb);
	free(sn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantile_exact_powers),
		cmocka_unit_test(test_quantile_log_uniform),
		cmocka_unit_test(test_quantile_two_buckets),
		cmocka_unit_test(test_quantile_zero_and_align),
		cmocka_unit_test(test_chi2_sf_known),
		cmocka_unit_test(test_gtest_2x2),
		cmocka_unit_test(test_gtest_2x3_zero_columns),
		cmocka_unit_test(test_gtest_degenerate),
		cmocka_unit_test(test_gtest_sentence),
		cmocka_unit_test(test_rule_parse_valid),
		cmocka_unit_test(test_rule_parse_malformed),
		cmocka_unit_test(test_rule_eval),
		cmocka_unit_test(test_pool_and_mismatch),
		cmocka_unit_test(test_picture),
		cmocka_unit_test(test_workload_results),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
