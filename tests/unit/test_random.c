// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests: the seeded generator (src/util/rng.c), the random layouts
 * drawn from it (src/workload/random.c) and the shrinking of a failing
 * layout (src/workload/shrink.c) against planted failure rules.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/rng.h"
#include "util/util.h"
#include "vm/vm.h"
#include "workload/random.h"
#include "workload/shrink.h"

#define PAGE 4096
#define NDRAW 16

/* ---- the generator ---- */

static void test_rng_known_values(void **state)
{
	struct rng a, b;

	(void)state;
	/* splitmix64's published first outputs for seed 0 and 1: the same
	 * on every machine. */
	rng__seed(&a, 0);
	assert_true(rng__next(&a) == 0xe220a8397b1dcdafULL);
	assert_true(rng__next(&a) == 0x6e789e6aa1b965f4ULL);
	rng__seed(&a, 1);
	assert_true(rng__next(&a) == 0x910a2dec89025cc1ULL);
	/* Same seed, same stream; another seed, another. */
	rng__seed(&a, 42);
	rng__seed(&b, 42);
	for (int i = 0; i < 100; i++)
		assert_true(rng__next(&a) == rng__next(&b));
	rng__seed(&b, 43);
	assert_true(rng__next(&a) != rng__next(&b));
}

static void test_rng_bounds(void **state)
{
	struct rng g;
	int seen[7] = { 0 };

	(void)state;
	rng__seed(&g, 7);
	for (int i = 0; i < 7000; i++) {
		__u64 v = rng__range(&g, 3, 9);

		assert_true(v >= 3 && v <= 9);
		seen[v - 3]++;
	}
	/* Every value of a small range comes up. */
	for (int i = 0; i < 7; i++)
		assert_true(seen[i] > 0);
	assert_int_equal(rng__below(&g, 0), 0);
	assert_int_equal(rng__below(&g, 1), 0);
	assert_int_equal(rng__range(&g, 5, 5), 5);
	assert_int_equal(rng__pct(&g, 0), 0);
	assert_int_equal(rng__pct(&g, 100), 1);
}

/* ---- drawn layouts ---- */

static void draw_all(enum wl_kind wl, __u64 seed, char cmd[NDRAW][512])
{
	struct wl_opts base, o;

	workload__defaults(&base);
	base.kind = wl;
	for (unsigned int i = 0; i < NDRAW; i++) {
		wl_rand__draw(seed, i, PAGE, &base, &o);
		assert_true(wl_layout__valid(&o, PAGE));
		wl_rand__command(&o, cmd[i], sizeof(cmd[i]));
	}
}

static void check_reproducible(enum wl_kind wl)
{
	static char a[NDRAW][512], b[NDRAW][512], c[NDRAW][512];
	int differ = 0, distinct = 0;

	draw_all(wl, 1, a);
	draw_all(wl, 1, b);
	draw_all(wl, 2, c);
	for (int i = 0; i < NDRAW; i++) {
		/* The same seed draws the same layouts, option for option. */
		assert_string_equal(a[i], b[i]);
		differ += strcmp(a[i], c[i]) != 0;
		distinct += i && strcmp(a[i], a[i - 1]) != 0;
	}
	/* Another seed, other layouts; and the layouts of one seed are
	 * not all one. */
	assert_true(differ >= NDRAW - 1);
	assert_true(distinct >= NDRAW - 2);
}

static void test_draw_reproducible(void **state)
{
	(void)state;
	check_reproducible(WL_SHMEM);
	check_reproducible(WL_DEDUPE);
}

/* Layout i of seed 1 does not depend on the layouts before it: drawn
 * alone it is the same. */
static void test_draw_by_index(void **state)
{
	static char all[NDRAW][512];
	struct wl_opts base, o;
	char one[512];

	(void)state;
	workload__defaults(&base);
	base.kind = WL_SHMEM;
	draw_all(WL_SHMEM, 1, all);
	wl_rand__draw(1, 11, PAGE, &base, &o);
	wl_rand__command(&o, one, sizeof(one));
	assert_string_equal(one, all[11]);
}

/*
 * The room a layout needs, computed from its draw: every layout of a few
 * seeds at N = 256 fits the default guest, whose /tmp is a tmpfs of half
 * its RAM and whose test files may take half of MemAvailable (a quarter
 * of its RAM is a bound below both). The layouts of one seed together do
 * not fit (xfs images take 64 MiB of log each): a run sets each up
 * only while it runs.
 */
static void test_space_fits_default_guest(void **state)
{
	const __u64 room = (__u64)VM_DEFAULT_MEM_MB << 20 >> 2;
	const enum wl_kind wls[] = { WL_DEDUPE, WL_SHMEM };
	struct wl_opts base, o;

	(void)state;
	workload__defaults(&base);
	for (size_t w = 0; w < ARRAY_SIZE(wls); w++) {
		const struct wl_mode_ops *one =
			wl_mode__ops(wls[w], WL_MODE_LAYOUT);

		base.kind = wls[w];
		for (__u64 seed = 1; seed <= 4; seed++) {
			__u64 max = 0, sum64 = 0, need;

			for (unsigned int i = 0; i < WL_RANDOM_MAX; i++) {
				wl_rand__draw(seed, i, PAGE, &base, &o);
				assert_int_equal(one->space(&o, &need), 0);
				assert_true(need > 0);
				if (wls[w] == WL_DEDUPE &&
				    o.fstype == WL_FSTYPE_XFS)
					assert_true(need > (64ULL << 20));
				max = need > max ? need : max;
				if (i < 64)
					sum64 += need;
			}
			print_message("%s seed %llu: largest of 256 layouts "
				      "%llu KiB, first 64 together %llu "
				      "MiB\n",
				      wl_kind__name(wls[w]),
				      (unsigned long long)seed,
				      (unsigned long long)(max >> 10),
				      (unsigned long long)(sum64 >> 20));
			assert_true(max <= room);
			if (wls[w] == WL_DEDUPE)
				assert_true(sum64 >
					    (__u64)VM_DEFAULT_MEM_MB << 20 >>
					    1);
		}
	}
}

/* Over many draws, the space the matrices sample comes up. */
static void test_draw_coverage(void **state)
{
	struct wl_opts base, o;
	int huge_never = 0, sparse = 0, readv_many = 0, readers = 0;
	int eof_past = 0, odd_buf = 0, small_bs = 0, falloc = 0, keep = 0;
	int xfs1k = 0, btrfs = 0, same = 0, dests = 0, count = 0, tail = 0;
	int unaligned = 0, cold = 0, differ = 0;

	(void)state;
	workload__defaults(&base);
	for (unsigned int i = 0; i < 400; i++) {
		base.kind = WL_SHMEM;
		wl_rand__draw(9, i, PAGE, &base, &o);
		huge_never += o.huge == WL_HUGE_NEVER;
		sparse += o.fill == SH_FILL_SPARSE;
		falloc += o.fill == SH_FILL_FALLOC;
		keep += o.fill == SH_FILL_FALLOC_KEEP;
		readv_many += o.iovecs > 16;
		readers += o.readers > 1;
		eof_past += o.offset >= o.size;
		odd_buf += o.buf_align & 1;
		small_bs += o.bs < 16;
		assert_int_equal(o.mode, WL_MODE_LAYOUT);
		base.kind = WL_DEDUPE;
		wl_rand__draw(9, i, PAGE, &base, &o);
		xfs1k += o.block_size == 1024;
		btrfs += o.fstype == WL_FSTYPE_BTRFS;
		same += o.same_file;
		dests += o.dests > 4;
		count += o.count > 1;
		tail += o.count == 1 && o.range % (o.block_size ?: PAGE);
		unaligned += (o.src_off % (o.block_size ?: PAGE)) != 0;
		cold += o.cold;
		differ += o.differ != DD_DIFF_NONE;
	}
	assert_true(huge_never && sparse && readv_many && readers && eof_past &&
		    odd_buf && small_bs && falloc && keep);
	assert_true(xfs1k && btrfs && same && dests && count && tail &&
		    unaligned && cold && differ);
	/* --fs restricts the draw. */
	base.fstype = WL_FSTYPE_XFS;
	for (unsigned int i = 0; i < 50; i++) {
		wl_rand__draw(9, i, PAGE, &base, &o);
		assert_int_equal(o.fstype, WL_FSTYPE_XFS);
		assert_true(o.block_size >= 1024 && o.block_size <= PAGE);
	}
	/* --block-size too. */
	base.fstype = WL_FSTYPE_ANY;
	base.block_size = 2048;
	for (unsigned int i = 0; i < 50; i++) {
		wl_rand__draw(9, i, PAGE, &base, &o);
		assert_int_equal(o.fstype, WL_FSTYPE_XFS);
		assert_int_equal(o.block_size, 2048);
	}
	base.block_size = PAGE;
	btrfs = 0;
	for (unsigned int i = 0; i < 50; i++) {
		wl_rand__draw(9, i, PAGE, &base, &o);
		btrfs += o.fstype == WL_FSTYPE_BTRFS;
		assert_true(o.block_size == 0 || o.block_size == PAGE);
	}
	assert_true(btrfs > 0 && btrfs < 50);
}

static void test_command(void **state)
{
	struct wl_opts o;
	char cmd[512];

	(void)state;
	workload__defaults(&o);
	o.kind = WL_SHMEM;
	o.huge = WL_HUGE_NEVER;
	o.fill = SH_FILL_SPARSE;
	o.size = 5000;
	o.way = WL_WAY_READV;
	o.iovecs = 3;
	o.bs = 7;
	o.offset = 4095;
	o.length = 70;
	o.buf_align = 5;
	o.readers = 2;
	wl_rand__command(&o, cmd, sizeof(cmd));
	assert_string_equal(cmd,
			    "folioscope run shmem-read --huge never --fill "
			    "sparse --size 5000 --syscall readv --iovecs 3 "
			    "--bs 7 --offset 4095 --length 70 --buf-align 5 "
			    "--readers 2");
	o.length = 0; /* to EOF: no --length */
	wl_rand__command(&o, cmd, sizeof(cmd));
	assert_null(strstr(cmd, "--length"));

	workload__defaults(&o);
	o.kind = WL_DEDUPE;
	o.fstype = WL_FSTYPE_XFS;
	o.block_size = 1024;
	o.range = 3000;
	o.count = 1;
	o.src_off = 1024;
	o.dst_off = 2048;
	o.dst_off_set = true;
	o.dests = 2;
	o.same_file = true;
	o.differ = DD_DIFF_LAST;
	o.cold = true;
	o.file_size = 9000;
	wl_rand__command(&o, cmd, sizeof(cmd));
	assert_string_equal(cmd, "folioscope run dedupe --fs xfs --block-size "
				 "1024 --range 3000 --count 1 --src-off 1024 "
				 "--dst-off 2048 --dests 2 --same-file "
				 "--differ last --cold --file-size 9000");
}

/* ---- shrinking ---- */

struct rule {
	unsigned int calls;
};

/* The planted failure: fails when more than 100 bytes are read from an
 * odd offset. */
static bool sh_rule(void *ctx, const struct wl_opts *o)
{
	struct rule *r = ctx;

	r->calls++;
	return o->length > 100 && (o->offset & 1);
}

static void test_shrink_shmem(void **state)
{
	struct rule r = { 0 };
	struct wl_opts o;
	unsigned int trials;
	char cmd[512];

	(void)state;
	workload__defaults(&o);
	o.kind = WL_SHMEM;
	o.huge = WL_HUGE_ALWAYS;
	o.fill = SH_FILL_SPARSE;
	o.size = (4 << 20) + 20000;
	o.way = WL_WAY_READV;
	o.iovecs = 4;
	o.bs = 65536;
	o.offset = 4097;
	o.length = 1000000;
	o.buf_align = 7;
	o.readers = 3;
	assert_true(sh_rule(&r, &o));
	r.calls = 0;
	trials = wl_shrink(&o, PAGE, sh_rule, &r, 1000);
	assert_int_equal(trials, r.calls);
	wl_rand__command(&o, cmd, sizeof(cmd));
	/* One reader, one plain read, no holes, 4 KiB folios; the length
	 * halved while above 100 (1000000 / 2^13 = 122), the offset moved
	 * to the first page (odd: 1), the file halved down to 1 byte, the
	 * request to 1 byte, the buffer aligned. */
	assert_string_equal(cmd, "folioscope run shmem-read --huge never "
				 "--fill full --size 1 --syscall read "
				 "--iovecs 1 --bs 1 --offset 1 --length 122 "
				 "--buf-align 0 --readers 1");
	/* A local minimum: no single step keeps it failing. */
	assert_true(sh_rule(&r, &o));
	r.calls = 0;
	assert_true(wl_shrink(&o, PAGE, sh_rule, &r, 1000) == r.calls);
	wl_rand__command(&o, cmd, sizeof(cmd));
	assert_non_null(strstr(cmd, "--offset 1 --length 122"));
}

/* Fails for a range over 5000 bytes from an odd source offset, with at
 * least 2 destinations. */
static bool dd_rule(void *ctx, const struct wl_opts *o)
{
	struct rule *r = ctx;

	r->calls++;
	return o->range > 5000 && (o->src_off & 1) && o->dests >= 2;
}

static void test_shrink_dedupe(void **state)
{
	struct rule r = { 0 };
	struct wl_opts o;
	char cmd[512];

	(void)state;
	workload__defaults(&o);
	o.kind = WL_DEDUPE;
	o.fstype = WL_FSTYPE_XFS;
	o.block_size = 1024;
	o.range = 1000000;
	o.count = 1;
	o.src_off = 8193;
	o.dst_off = 12288;
	o.dst_off_set = true;
	o.dests = 5;
	o.same_file = true;
	o.differ = DD_DIFF_MIDDLE;
	o.cold = true;
	o.file_size = 2000000;
	wl_shrink(&o, PAGE, dd_rule, &r, 1000);
	wl_rand__command(&o, cmd, sizeof(cmd));
	/* Destinations dropped to the 2 it needs, plain files, no
	 * differing byte, files that fit; the range halved while above
	 * 5000 (1000000 / 2^7 = 7812), then cut to whole blocks (7168);
	 * the offset moved to the first page (8193 % 4096 = 1); the
	 * destination offset dropped. */
	assert_string_equal(cmd, "folioscope run dedupe --fs xfs --block-size "
				 "1024 --range 7168 --count 1 --src-off 1 "
				 "--dests 2");
}

/* The trial budget holds, and a layout that no longer fails stays. */
static void test_shrink_budget(void **state)
{
	struct rule r = { 0 };
	struct wl_opts o, before;

	(void)state;
	workload__defaults(&o);
	o.kind = WL_SHMEM;
	o.offset = 4097;
	o.length = 1000000;
	o.readers = 3;
	before = o;
	assert_int_equal(wl_shrink(&o, PAGE, sh_rule, &r, 3), 3);
	assert_int_equal(r.calls, 3);
	assert_int_equal(o.readers, 1);
	o = before;
	o.offset = 4096; /* even: never fails */
	r.calls = 0;
	wl_shrink(&o, PAGE, sh_rule, &r, 1000);
	assert_true(r.calls > 0);
	assert_int_equal(o.offset, 4096);
	assert_true(o.length == 1000000 && o.readers == 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_known_values),
		cmocka_unit_test(test_rng_bounds),
		cmocka_unit_test(test_draw_reproducible),
		cmocka_unit_test(test_draw_by_index),
		cmocka_unit_test(test_draw_coverage),
		cmocka_unit_test(test_space_fits_default_guest),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_shrink_shmem),
		cmocka_unit_test(test_shrink_dedupe),
		cmocka_unit_test(test_shrink_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
