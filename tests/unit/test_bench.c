// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests: the benchmark's aggregation (bench/stats.c) — parsing of
 * raw records, median/min/max, derived added_* and ratios, verdicts,
 * results.json. No timing is measured or asserted here. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "../../bench/stats.h"
#include "util/util.h"

static void feed(struct bench_set *s, const char *text)
{
	char err[256], line[1024];
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");

		memcpy(line, p, n);
		line[n] = '\0';
		err[0] = '\0';
		if (bench__parse_line(s, line, err, sizeof(err)))
			fail_msg("line '%s': %s", line, err);
		p += n + (p[n] == '\n');
	}
}

static void test_median(void **state)
{
	double a[] = { 5, 1, 3 };
	double b[] = { 4, 1, 3, 2 };
	double c[] = { 7 };

	assert_true(bench__median(a, 3) == 3);
	assert_true(bench__median(b, 4) == 2.5);
	assert_true(bench__median(c, 1) == 7);
	/* Sorted in place. */
	assert_true(a[0] == 1 && a[2] == 5);
}

static void test_parse_records(void **state)
{
	struct bench_set s;

	bench__init(&s);
	feed(&s, "# comment\n"
		 "\n"
		 "env vm kernel 6.1.0-57-cloud-amd64\n"
		 "env vm cpu AMD EPYC 7B13\n"
		 "sample vm pread4k untraced 0 ns_per_call 1000.5\n"
		 "note vm two  words\n"
		 "target vm pread4k folioscope-kprobe ratio_to_floor le 1.3 "
		 "the floor target\n");
	assert_int_equal(s.nenv, 2);
	assert_string_equal(s.env[1].key, "cpu");
	assert_string_equal(s.env[1].value, "AMD EPYC 7B13");
	assert_int_equal(s.nsamples, 1);
	assert_string_equal(s.samples[0].k.variant, "untraced");
	assert_string_equal(s.samples[0].k.metric, "ns_per_call");
	assert_int_equal(s.samples[0].round, 0);
	assert_true(s.samples[0].value == 1000.5);
	assert_int_equal(s.nnotes, 1);
	assert_string_equal(s.notes[0].text, "two  words");
	assert_int_equal(s.ntargets, 1);
	assert_int_equal(s.targets[0].op, BENCH_LE);
	assert_true(s.targets[0].limit == 1.3);
	assert_string_equal(s.targets[0].name, "the floor target");
	bench__free(&s);
}

/* The breakdown's note naming every variant it ran (40 of them, with
 * each histogram left out one by one) is kept whole. */
static void test_long_note(void **state)
{
	char line[2400], *p = line;
	struct bench_set s;
	char err[256];

	(void)state;
	p += sprintf(p, "note vm a partial run: only the variants");
	for (int i = 0; i < 40; i++)
		p += sprintf(p, " folioscope-drophist.name%02d-kprobe", i);
	bench__init(&s);
	assert_int_equal(bench__parse_line(&s, line, err, sizeof(err)), 0);
	assert_int_equal(s.nnotes, 1);
	assert_string_equal(s.notes[0].text, line + strlen("note vm "));
	bench__free(&s);
}

static void test_parse_errors(void **state)
{
	static const char *const bad[] = {
		"sample vm pread4k untraced 0 ns_per_call", /* a field short */
		"sample vm pread4k untraced x ns_per_call 1",	/* round */
		"sample vm pread4k untraced -1 ns_per_call 1",	/* round */
		"sample vm pread4k untraced 0 ns_per_call 1e",	/* value */
		"sample vm pread4k untraced 0 ns_per_call nan", /* not finite */
		"target vm b v m lt 1 name",			/* operator */
		"ratio vm b m num den",	       /* a field short */
		"floor vm b m name base fl 0", /* no factor */
		"floor vm b m name base fl",   /* a field short */
		"baseline vm b m",	       /* a field short */
		"bogus vm",		       /* record type */
		"sample averyveryveryverylongscopename b v 0 m 1", /* too long
								    */
	};
	struct bench_set s;
	char err[256];

	bench__init(&s);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		assert_int_equal(
			bench__parse_line(&s, bad[i], err, sizeof(err)),
			-EINVAL);
		assert_true(err[0] != '\0');
	}
	/* Nothing half-parsed was kept. */
	assert_int_equal(s.nsamples, 0);
	assert_int_equal(s.ntargets, 0);
	bench__free(&s);
}

/* Two rounds of an interleaved run plus the closing baseline run. */
static const char *const raw =
	"baseline vm pread4k ns_per_call untraced\n"
	"ratio vm pread4k added_ns_per_call folioscope-fentry bpftrace-fentry "
	"ratio_to_bpftrace\n"
	"ratio vm pread4k added_ns_per_call folioscope-fentry floor-fentry "
	"ratio_to_floor\n"
	"target vm pread4k folioscope-fentry ratio_to_bpftrace le 0.5 half of "
	"bpftrace\n"
	"target vm pread4k folioscope-fentry ratio_to_floor le 1.3 floor\n"
	"target vm pread4k folioscope-kprobe ratio_to_floor le 1.3 never "
	"measured\n"
	"sample vm pread4k untraced 0 ns_per_call 1000\n"
	"sample vm pread4k folioscope-fentry 0 ns_per_call 1150\n"
	"sample vm pread4k bpftrace-fentry 0 ns_per_call 1500\n"
	"sample vm pread4k floor-fentry 0 ns_per_call 1100\n"
	"sample vm pread4k untraced 1 ns_per_call 1200\n"
	"sample vm pread4k folioscope-fentry 1 ns_per_call 1300\n"
	"sample vm pread4k bpftrace-fentry 1 ns_per_call 1700\n"
	/* floor below the baseline in round 1: no ratio that round */
	"sample vm pread4k floor-fentry 1 ns_per_call 1000\n"
	"sample vm pread4k untraced 2 ns_per_call 1000\n";

static void test_aggregate(void **state)
{
	const struct bench_stat *st;
	struct bench_result r;
	struct bench_set s;

	bench__init(&s);
	feed(&s, raw);
	assert_int_equal(bench__aggregate(&s, &r), 0);

	st = bench__find(&r, "vm", "pread4k", "untraced", "ns_per_call");
	assert_non_null(st);
	assert_int_equal(st->runs, 3);
	assert_true(st->median == 1000 && st->min == 1000 && st->max == 1200);
	assert_false(st->derived);

	/* Round 0 baseline: mean of rounds 0 and 1 = 1100; round 1: 1100. */
	st = bench__find(&r, "vm", "pread4k", "folioscope-fentry",
			 "added_ns_per_call");
	assert_non_null(st);
	assert_true(st->derived);
	assert_int_equal(st->runs, 2);
	assert_true(st->values[0] == 50 && st->values[1] == 200);
	assert_true(st->median == 125 && st->min == 50 && st->max == 200);
	/* No added_* for the baseline itself. */
	assert_null(bench__find(&r, "vm", "pread4k", "untraced",
				"added_ns_per_call"));

	/* Per round: 50/400 and 200/600. */
	st = bench__find(&r, "vm", "pread4k", "folioscope-fentry",
			 "ratio_to_bpftrace");
	assert_non_null(st);
	assert_int_equal(st->runs, 2);
	assert_true(st->min == 0.125);
	assert_true(st->max > 0.3333 && st->max < 0.3334);

	/* Floor added 0 in round 0 (1100 - 1100) and -100 in round 1:
	 * both rounds are left out, so the ratio is not measured. */
	assert_null(bench__find(&r, "vm", "pread4k", "folioscope-fentry",
				"ratio_to_floor"));

	assert_int_equal(r.nverdicts, 3);
	assert_true(r.verdicts[0].measured && r.verdicts[0].met);
	assert_false(r.verdicts[1].measured);
	assert_false(r.verdicts[2].measured);

	/* Aggregating twice gives the same (derived records are rebuilt). */
	bench__result_free(&r);
	assert_int_equal(bench__aggregate(&s, &r), 0);
	st = bench__find(&r, "vm", "pread4k", "folioscope-fentry",
			 "added_ns_per_call");
	assert_int_equal(st->runs, 2);
	bench__result_free(&r);
	bench__free(&s);
}

/* A variant's own untraced runs, just before and after its session,
 * take precedence over the round's baseline runs. */
static void test_added_pre_post(void **state)
{
	const struct bench_stat *st;
	struct bench_result r;
	struct bench_set s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	bench__init(&s);
	feed(&s, "baseline vm b ns_per_call untraced\n"
		 "sample vm b untraced 0 ns_per_call 1000\n"
		 "sample vm b untraced 1 ns_per_call 3000\n"
		 "sample vm b x 0 ns_per_call 1500\n"
		 "sample vm b x 0 pre_ns_per_call 1100\n"
		 "sample vm b x 0 post_ns_per_call 1300\n"
		 "sample vm b y 0 ns_per_call 1500\n"
		 "sample vm b y 0 pre_ns_per_call 1400\n"
		 "sample vm b z 0 ns_per_call 2500\n");
	assert_int_equal(bench__aggregate(&s, &r), 0);
	st = bench__find(&r, "vm", "b", "x", "added_ns_per_call");
	assert_true(st && st->median == 300); /* 1500 - (1100 + 1300) / 2 */
	st = bench__find(&r, "vm", "b", "y", "added_ns_per_call");
	assert_true(st && st->median == 100); /* 1500 - 1400 */
	st = bench__find(&r, "vm", "b", "z", "added_ns_per_call");
	assert_true(st && st->median == 500); /* 2500 - (1000 + 3000) / 2 */
	/* pre_/post_ are kept (JSON) but not printed in the table. */
	assert_non_null(bench__find(&r, "vm", "b", "x", "pre_ns_per_call"));
	f = open_memstream(&buf, &len);
	bench__print_table(&s, &r, f, false, false);
	fclose(f);
	assert_null(strstr(buf, "pre_ns_per_call"));
	assert_non_null(strstr(buf, "added_ns_per_call"));
	free(buf);
	bench__result_free(&r);
	bench__free(&s);
}

/* A target is judged on the rounds' interval: met when every round is
 * on its side, missed when none is, not resolved when it straddles. */
static void test_target_ge(void **state)
{
	struct bench_result r;
	struct bench_set s;

	bench__init(&s);
	feed(&s, "ratio host shmem-4k read_bytes_per_s run fio ratio_to_fio\n"
		 "target host shmem-4k run ratio_to_fio ge 0.95 within 5%\n"
		 "target host shmem-4k run ratio_to_fio ge 0.9 within 10%\n"
		 "target host shmem-4k run ratio_to_fio ge 0.995 within 0.5%\n"
		 "target host shmem-4k run ratio_to_fio le 0.95 at most 95%\n"
		 "sample host shmem-4k run 0 read_bytes_per_s 90\n"
		 "sample host shmem-4k fio 0 read_bytes_per_s 100\n"
		 "sample host shmem-4k run 1 read_bytes_per_s 99\n"
		 "sample host shmem-4k fio 1 read_bytes_per_s 100\n"
		 "sample host shmem-4k run 2 read_bytes_per_s 98\n"
		 "sample host shmem-4k fio 2 read_bytes_per_s 100\n");
	assert_int_equal(bench__aggregate(&s, &r), 0);
	assert_int_equal(r.nverdicts, 4);
	assert_true(r.verdicts[0].measured);
	assert_true(r.verdicts[0].value > 0.9799 &&
		    r.verdicts[0].value < 0.9801);
	assert_true(r.verdicts[0].min > 0.8999 && r.verdicts[0].min < 0.9001);
	assert_true(r.verdicts[0].max > 0.9899 && r.verdicts[0].max < 0.9901);
	/* Median 0.98 >= 0.95, but round 0 (0.90) is below. */
	assert_int_equal(r.verdicts[0].outcome, BENCH_UNRESOLVED);
	assert_false(r.verdicts[0].met);
	assert_int_equal(r.verdicts[1].outcome, BENCH_MET);
	assert_true(r.verdicts[1].met);
	assert_int_equal(r.verdicts[2].outcome, BENCH_MISSED);
	assert_int_equal(r.verdicts[3].outcome, BENCH_UNRESOLVED);
	assert_string_equal(bench__outcome_name(BENCH_UNRESOLVED),
			    "not resolved");
	bench__result_free(&r);
	bench__free(&s);

	/* Under the limit in every round, but below zero in one: noise. */
	bench__init(&s);
	feed(&s, "target vm b x ratio le 1.3 under 1.3x\n"
		 "sample vm b x 0 ratio -0.5\n"
		 "sample vm b x 1 ratio 1.1\n"
		 "sample vm b x 2 ratio 1.2\n");
	assert_int_equal(bench__aggregate(&s, &r), 0);
	assert_int_equal(r.verdicts[0].outcome, BENCH_UNRESOLVED);
	bench__result_free(&r);
	bench__free(&s);
}

/* A bystander's floor: the untraced run, or the empty programs where they
 * cost more than the target's factor over it; the ratio to it, round by
 * round. */
static void test_floor(void **state)
{
	const struct bench_stat *st;
	struct bench_result r;
	struct bench_set s;

	(void)state;
	bench__init(&s);
	feed(&s, "floor vm getppid ns_per_call floor-or-untraced untraced "
		 "floortp 1.05\n"
		 "ratio vm getppid ns_per_call fs floor-or-untraced ratio_b\n"
		 "target vm getppid fs ratio_b le 1.05 bystander\n"
		 /* round 0: the floor 1.04x untraced, under the factor */
		 "sample vm getppid untraced 0 ns_per_call 1000\n"
		 "sample vm getppid floortp 0 ns_per_call 1040\n"
		 "sample vm getppid fs 0 ns_per_call 1030\n"
		 /* round 1: the floor 1.5x: it is the denominator */
		 "sample vm getppid untraced 1 ns_per_call 1000\n"
		 "sample vm getppid floortp 1 ns_per_call 1500\n"
		 "sample vm getppid fs 1 ns_per_call 1560\n"
		 /* round 2: no floor run, so no figure */
		 "sample vm getppid untraced 2 ns_per_call 900\n"
		 "sample vm getppid fs 2 ns_per_call 5000\n");
	assert_int_equal(bench__aggregate(&s, &r), 0);
	st = bench__find(&r, "vm", "getppid", "floor-or-untraced",
			 "ns_per_call");
	assert_non_null(st);
	assert_int_equal(st->runs, 2);
	assert_true(st->min == 1000 && st->max == 1500);
	st = bench__find(&r, "vm", "getppid", "fs", "ratio_b");
	assert_non_null(st);
	assert_int_equal(st->runs, 2);
	assert_true(st->min > 1.0299 && st->min < 1.0301);
	assert_true(st->max > 1.0399 && st->max < 1.0401);
	assert_int_equal(r.verdicts[0].outcome, BENCH_MET);
	bench__result_free(&r);
	bench__free(&s);
}

/* A breakdown's part: the full variant's figure minus the one without
 * that part, per round; a part that costs nothing may come out below 0. */
static void test_part(void **state)
{
	const struct bench_stat *st;
	struct bench_result r;
	struct bench_set s;

	(void)state;
	bench__init(&s);
	feed(&s,
	     "part host pread4k bpf_ns_per_call folioscope-droptime-syscall "
	     "folioscope-syscall cost_bpf_ns\n"
	     "sample host pread4k folioscope-syscall 0 bpf_ns_per_call 600\n"
	     "sample host pread4k folioscope-droptime-syscall 0 "
	     "bpf_ns_per_call 450\n"
	     "sample host pread4k folioscope-syscall 1 bpf_ns_per_call 640\n"
	     "sample host pread4k folioscope-droptime-syscall 1 "
	     "bpf_ns_per_call 660\n"
	     "sample host pread4k folioscope-syscall 2 bpf_ns_per_call 500\n"
	     "sample host pread4k folioscope-droptime-syscall 2 "
	     "bpf_ns_per_call 400\n");
	assert_int_equal(bench__aggregate(&s, &r), 0);
	st = bench__find(&r, "host", "pread4k", "folioscope-droptime-syscall",
			 "cost_bpf_ns");
	assert_non_null(st);
	assert_int_equal(st->runs, 3);
	assert_true(st->median > 99.99 && st->median < 100.01);
	assert_true(st->min > -20.01 && st->min < -19.99);
	assert_true(st->max > 149.99 && st->max < 150.01);
	assert_string_equal(bench__unit("cost_bpf_ns"), "ns");
	assert_true(bench__in_summary("cost_bpf_ns"));
	bench__result_free(&r);
	bench__free(&s);
}

static void test_units(void **state)
{
	assert_string_equal(bench__unit("ns_per_call"), "ns");
	assert_string_equal(bench__unit("added_ns_per_call"), "ns");
	assert_string_equal(bench__unit("ratio_to_floor"), "ratio");
	assert_string_equal(bench__unit("read_bytes_per_s"), "B/s");
	assert_string_equal(bench__unit("events_per_s"), "1/s");
	assert_string_equal(bench__unit("startup_s"), "s");
	assert_string_equal(bench__unit("sys_s_per_gib"), "s");
	assert_string_equal(bench__unit("rss_kb"), "KiB");
	assert_string_equal(bench__unit("map_memlock_bytes"), "B");
}

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, k, &v));
	return v;
}

static void test_json(void **state)
{
	struct json_object *root, *ms, *m, *ts, *t;
	struct bench_result r;
	struct bench_set s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	bool found = false;

	bench__init(&s);
	feed(&s, "env vm kernel 6.1.0-57-cloud-amd64\nenv vm where vm\n");
	feed(&s, raw);
	feed(&s, "note vm a note\n");
	assert_int_equal(bench__aggregate(&s, &r), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(bench__write_json(&s, &r, f), 0);
	fclose(f);
	root = json_tokener_parse(buf);
	assert_non_null(root);
	assert_string_equal(json_object_get_string(get(root, "schema")),
			    "folioscope-bench/1");
	assert_string_equal(
		json_object_get_string(
			get(get(get(root, "environments"), "vm"), "kernel")),
		"6.1.0-57-cloud-amd64");
	ms = get(root, "measurements");
	assert_int_equal(json_object_array_length(ms), r.nstats);
	for (size_t i = 0; i < json_object_array_length(ms); i++) {
		m = json_object_array_get_idx(ms, i);
		if (strcmp(json_object_get_string(get(m, "metric")),
			   "added_ns_per_call") ||
		    strcmp(json_object_get_string(get(m, "variant")),
			   "folioscope-fentry"))
			continue;
		found = true;
		assert_string_equal(json_object_get_string(get(m, "unit")),
				    "ns");
		assert_true(json_object_get_boolean(get(m, "derived")));
		assert_true(json_object_get_double(get(m, "median")) == 125);
		assert_true(json_object_get_double(get(m, "min")) == 50);
		assert_true(json_object_get_double(get(m, "max")) == 200);
		assert_int_equal(json_object_get_int(get(m, "runs")), 2);
		assert_int_equal(json_object_array_length(get(m, "values")), 2);
	}
	assert_true(found);
	ts = get(root, "targets");
	assert_int_equal(json_object_array_length(ts), 3);
	t = json_object_array_get_idx(ts, 0);
	assert_true(json_object_get_boolean(get(t, "met")));
	assert_string_equal(json_object_get_string(get(t, "verdict")), "met");
	assert_true(json_object_get_double(get(t, "max")) <=
		    json_object_get_double(get(t, "limit")));
	assert_string_equal(json_object_get_string(get(t, "op")), "le");
	/* Not measured: value and met are null. */
	t = json_object_array_get_idx(ts, 1);
	assert_null(get(t, "met"));
	assert_null(get(t, "verdict"));
	assert_null(get(t, "value"));
	assert_int_equal(json_object_array_length(get(root, "notes")), 1);
	json_object_put(root);
	free(buf);
	bench__result_free(&r);
	bench__free(&s);
}

static void test_table(void **state)
{
	struct bench_result r;
	struct bench_set s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	bench__init(&s);
	feed(&s, raw);
	assert_int_equal(bench__aggregate(&s, &r), 0);
	f = open_memstream(&buf, &len);
	bench__print_table(&s, &r, f, true, false);
	fclose(f);
	assert_non_null(strstr(
		buf, "| vm | pread4k | folioscope-fentry | added_ns_per_call | "
		     "125 ns | 50 ns | 200 ns | 2 |"));
	assert_non_null(strstr(buf, "| half of bpftrace | vm | 0.23x [0.12x, "
				    "0.33x] | <= 0.50x | met |"));
	assert_non_null(strstr(buf, "not measured"));
	free(buf);
	/* The summary keeps derived figures, not the raw ns per call. */
	buf = NULL;
	f = open_memstream(&buf, &len);
	bench__print_table(&s, &r, f, true, true);
	fclose(f);
	assert_non_null(strstr(buf, "| added_ns_per_call |"));
	assert_null(strstr(buf, "| ns_per_call |"));
	assert_true(bench__in_summary("ratio_to_floor"));
	assert_true(bench__in_summary("ratio_to_ftrace"));
	assert_false(bench__in_summary("ns_per_call"));
	free(buf);
	bench__result_free(&r);
	bench__free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_parse_records),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_long_note),
		cmocka_unit_test(test_aggregate),
		cmocka_unit_test(test_added_pre_post),
		cmocka_unit_test(test_target_ge),
		cmocka_unit_test(test_part),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
