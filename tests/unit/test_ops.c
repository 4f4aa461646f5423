// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the sequences of operations (src/workload/ops_draw.c,
 * ops_shadow.c): the
 * draws (reproducible, one stream per index, every kind and entry point,
 * within bounds), the shadow of a file (what each operation leaves, above
 * all the zeros a truncate or a punch leaves in a page's tail), and the
 * shrinking of a failing sequence (src/workload/shrink.c's ddmin) against
 * planted rules.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "workload/ops.h"
#include "workload/random.h"
#include "workload/shrink.h"
#include "workload/read.h"

#define PAGE 4096

static struct wl_ops_geom sh_geo, dd_geo;

static int setup(void **state)
{
	(void)state;
	wl_ops__geom(WL_SHMEM, 1, PAGE, &sh_geo);
	/* Seed 1: xfs with 2048-byte blocks. */
	wl_ops__geom(WL_DEDUPE, 1, PAGE, &dd_geo);
	return 0;
}

static void test_geom(void **state)
{
	struct wl_ops_geom g;

	(void)state;
	assert_int_equal(sh_geo.kind, WL_SHMEM);
	assert_string_equal(sh_geo.label[1], "huge=within_size");
	assert_int_equal(dd_geo.kind, WL_DEDUPE);
	assert_string_equal(dd_geo.label[0], "btrfs");
	assert_string_equal(dd_geo.label[3], "xfs bs=2048");
	assert_int_equal(dd_geo.filesys[1], 0);
	assert_int_equal(dd_geo.filesys[2], 1);
	assert_int_equal(dd_geo.bs[0], PAGE);
	/* ZERO_RANGE may be refused on tmpfs only: btrfs and xfs have it. */
	for (int i = 0; i < WL_OPS_NFILES; i++) {
		assert_true(sh_geo.no_zero_range[i]);
		assert_false(dd_geo.no_zero_range[i]);
	}
	/* Every xfs block size over the seeds. */
	for (__u64 seed = 0; seed < 3; seed++) {
		wl_ops__geom(WL_DEDUPE, seed, PAGE, &g);
		assert_int_equal(g.bs[2], 1024u << seed);
	}
}

static void test_draw_reproducible(void **state)
{
	struct wl_op a, b;
	char da[240], db[240];
	int differ = 0;

	(void)state;
	for (__u32 i = 0; i < 200; i++) {
		wl_op__draw(1, i, &dd_geo, &a);
		wl_op__draw(1, i, &dd_geo, &b);
		assert_memory_equal(&a, &b, sizeof(a));
		wl_op__draw(2, i, &dd_geo, &b);
		wl_op__describe(&a, i, &dd_geo, da, sizeof(da));
		wl_op__describe(&b, i, &dd_geo, db, sizeof(db));
		differ += strcmp(da, db) != 0;
	}
	/* Another seed, other operations. */
	assert_true(differ > 190);
}

/* Over many draws: every kind and entry point, sizes and offsets inside
 * a page, around page and 2 MiB boundaries, and writes within bounds. */
static void test_draw_coverage(void **state)
{
	int kinds[OPK_NR] = { 0 }, ways[WL_WAY_NR] = { 0 };
	int in_page = 0, near_pmd = 0, small = 0, big = 0, multi_iov = 0;
	struct wl_op op;

	(void)state;
	for (__u32 i = 0; i < 5000; i++) {
		wl_op__draw(7, i, &sh_geo, &op);
		kinds[op.kind]++;
		assert_true(op.file < 4);
		if (op.kind == OPK_READ) {
			ways[op.way]++;
			assert_true(op.iovecs >= 1 && op.iovecs <= op.len);
			multi_iov += op.iovecs > 1;
		} else if (op.kind == OPK_TRUNCATE) {
			assert_true(op.off <= WL_OPS_MAX_SIZE);
			in_page += op.off % PAGE != 0;
			near_pmd += op.off % WL_PMD < 2 * PAGE ||
				    op.off % WL_PMD > WL_PMD - 2 * PAGE;
		} else {
			assert_true(op.len >= 1 && op.len <= WL_OPS_MAX_LEN);
			assert_true(op.off + op.len <= WL_OPS_MAX_SIZE);
		}
		small += op.len && op.len <= 16;
		big += op.len >= WL_PMD - PAGE;
	}
	for (int k = 0; k < OPK_NR; k++)
		assert_true(k == OPK_DEDUPE || k == OPK_CLONE ? !kinds[k]
							      : kinds[k] > 50);
	/* Every way in but the two that copy to another tmpfs or to the
	 * file itself (--ops' files are the other files' peers). */
	for (int w = 0; w < WL_WAY_NR; w++)
		assert_true(w == WL_WAY_COPY_OTHER_FS || w == WL_WAY_COPY_SAME
				    ? !ways[w]
				    : ways[w] > 100);
	assert_true(in_page > 100 && near_pmd > 50);
	assert_true(small > 100 && big > 100 && multi_iov > 100);
}

/* dedupe's remaps: between files of one filesystem, aligned mostly,
 * with 1 to 16 destinations, some in the source's page or 64 KiB. */
static void test_draw_remaps(void **state)
{
	int kinds[OPK_NR] = { 0 }, many = 0, same_page = 0, same_64k = 0;
	int unaligned = 0, tails = 0;
	struct wl_op op;

	(void)state;
	for (__u32 i = 0; i < 5000; i++) {
		wl_op__draw(3, i, &dd_geo, &op);
		kinds[op.kind]++;
		if (op.kind < OPK_DEDUPE)
			continue;
		__u32 bs = dd_geo.bs[op.file];

		assert_true(op.ndest >= 1 && op.ndest <= DD_MAX_DESTS);
		assert_true(op.kind == OPK_DEDUPE || op.ndest == 1);
		many += op.ndest > 4;
		unaligned += op.off % bs != 0;
		tails += op.len % bs != 0;
		if (op.kind == OPK_CLONE)
			assert_int_equal(op.len % bs, 0);
		assert_true(op.off + op.len <= WL_OPS_MAX_SIZE);
		for (__u32 d = 0; d < op.ndest; d++) {
			const struct wl_op_dest *t = &op.dest[d];

			assert_int_equal(dd_geo.filesys[t->file],
					 dd_geo.filesys[op.file]);
			assert_true(t->off + op.len <= WL_OPS_MAX_SIZE);
			if (t->file != op.file)
				continue;
			same_page += t->off / PAGE == op.off / PAGE;
			same_64k += t->off / 65536 == op.off / 65536;
		}
	}
	assert_true(kinds[OPK_DEDUPE] > 500 && kinds[OPK_CLONE] > 150 &&
		    kinds[OPK_COPY] > 150);
	assert_true(many > 50 && same_page > 50 && same_64k > 100);
	assert_true(unaligned > 50 && tails > 50);
}

static unsigned char buf[WL_OPS_MAX_SIZE];

static struct wl_op mk(enum wl_op_kind k, __u64 off, __u64 len)
{
	return (struct wl_op){ .kind = k, .off = off, .len = len };
}

/* Whether m's bytes [a, e) are all zero. */
static bool zero(const struct wl_shadow *m, __u64 a, __u64 e)
{
	for (__u64 x = a; x < e; x++)
		if (m->b[x])
			return false;
	return true;
}

static void test_shadow(void **state)
{
	struct wl_shadow files[1] = { { .b = buf } }, *mp = files;
#define m (*mp)
	struct wl_op op;
	__u64 o, l;

	(void)state;
	memset(buf, 0, sizeof(buf));
	assert_false(wl_shadow__mmap_range(&m, &op, &o, &l));
	op = mk(OPK_PWRITE, 100, 3 * PAGE);
	wl_shadow__apply(files, &op, 1, 0, 0);
	assert_int_equal(m.size, 100 + 3 * PAGE);
	assert_true(zero(&m, 0, 100));
	assert_false(zero(&m, 100, 101));
	/* Truncate down inside a page: everything past it is zero, so a
	 * file grown over it again reads zeros there. */
	op = mk(OPK_TRUNCATE, PAGE + 10, 0);
	wl_shadow__apply(files, &op, 1, 1, 0);
	assert_int_equal(m.size, PAGE + 10);
	assert_true(zero(&m, PAGE + 10, 100 + 3 * PAGE));
	op = mk(OPK_TRUNCATE, 5 * PAGE, 0);
	wl_shadow__apply(files, &op, 1, 2, 0);
	assert_int_equal(m.size, 5 * PAGE);
	assert_false(zero(&m, PAGE + 9, PAGE + 10));
	assert_true(zero(&m, PAGE + 10, 5 * PAGE));
	/* A punch zeroes inside the size only, and keeps the size. */
	op = mk(OPK_PUNCH, 200, 1000);
	wl_shadow__apply(files, &op, 1, 3, 0);
	assert_true(zero(&m, 200, 1200));
	assert_false(zero(&m, 199, 200));
	assert_false(zero(&m, 1200, 1201));
	assert_int_equal(m.size, 5 * PAGE);
	/* KEEP_SIZE allocation changes nothing; a plain one grows. */
	op = mk(OPK_FALLOC_KEEP, 4 * PAGE, 8 * PAGE);
	wl_shadow__apply(files, &op, 1, 4, 0);
	assert_int_equal(m.size, 5 * PAGE);
	op = mk(OPK_FALLOC, 4 * PAGE, 8 * PAGE);
	wl_shadow__apply(files, &op, 1, 5, 0);
	assert_int_equal(m.size, 12 * PAGE);
	/* ZERO_RANGE refused (tmpfs): nothing; done: zeros, and growth. */
	op = mk(OPK_ZERO, 150, 100 * PAGE);
	wl_shadow__apply(files, &op, 1, 6, -1);
	assert_false(zero(&m, 150, 151));
	wl_shadow__apply(files, &op, 1, 6, 0);
	assert_true(zero(&m, 150, 150 + 100 * PAGE));
	assert_int_equal(m.size, 150 + 100 * PAGE);
	/* Two writes of one range write different bytes. */
	op = mk(OPK_PWRITE, 0, 64);
	wl_shadow__apply(files, &op, 1, 7, 0);
	memcpy(buf + WL_OPS_MAX_SIZE - 64, m.b, 64);
	wl_shadow__apply(files, &op, 1, 8, 0);
	assert_true(memcmp(buf + WL_OPS_MAX_SIZE - 64, m.b, 64));
	/* An mmap write lands inside the current size. */
	op = mk(OPK_MMAP, 3 * m.size + 7, 10 * PAGE);
	assert_true(wl_shadow__mmap_range(&m, &op, &o, &l));
	assert_int_equal(o, 7);
	assert_int_equal(l, 10 * PAGE);
	op = mk(OPK_MMAP, m.size - 5, 10 * PAGE);
	assert_true(wl_shadow__mmap_range(&m, &op, &o, &l));
	assert_int_equal(o + l, m.size);
	/* A refused write changes nothing. */
	l = m.size;
	op = mk(OPK_PWRITE, l, 64);
	wl_shadow__apply(files, &op, 1, 9, -1);
	assert_int_equal(m.size, l);
#undef m
}

/* shmem-read's copy_file_range: within a file, through a pipe, all of
 * it up to the source's EOF; to another tmpfs, EXDEV. */
static void test_shadow_tmpfs_copy(void **state)
{
	static unsigned char a[WL_OPS_MAX_SIZE], b[WL_OPS_MAX_SIZE];
	struct wl_shadow f[2] = { { .b = a }, { .b = b } };
	struct wl_op op = { .kind = OPK_PWRITE, .off = 0, .len = 10000 };
	__u64 alt = 1;

	(void)state;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	wl_shadow__apply(f, &op, 1, 0, 0);
	/* Unaligned, past the source's EOF: the rest, never a clone's
	 * whole blocks. */
	op = (struct wl_op){ .kind = OPK_COPY,
			     .file = 0,
			     .off = 4096,
			     .len = 8193,
			     .ndest = 1,
			     .dest = { { 0, WL_PMD + 3 } } };
	assert_int_equal(wl_shadow__copy(f, &op, &sh_geo, &alt), 10000 - 4096);
	assert_int_equal(alt, 0);
	wl_shadow__apply(f, &op, 1, 1, 10000 - 4096);
	assert_int_equal(f[0].size, WL_PMD + 3 + 10000 - 4096);
	assert_memory_equal(a + WL_PMD + 3, a + 4096, 10000 - 4096);
	/* Overlapping within the file. */
	op.dest[0].off = 4096 + 100;
	assert_int_equal(wl_shadow__copy(f, &op, &sh_geo, &alt), -EINVAL);
	/* To the other file: another tmpfs mount, even past EOF. */
	op.dest[0] = (struct wl_op_dest){ 1, 0 };
	assert_int_equal(wl_shadow__copy(f, &op, &sh_geo, &alt), -EXDEV);
	op.off = 3 * WL_PMD;
	assert_int_equal(wl_shadow__copy(f, &op, &sh_geo, &alt), -EXDEV);
}

/* clone and copy_file_range on two files of a filesystem of 2048-byte
 * blocks: what the kernel must answer, and what the files hold after. */
static void test_shadow_remaps(void **state)
{
	static unsigned char a[WL_OPS_MAX_SIZE], b[WL_OPS_MAX_SIZE];
	struct wl_shadow f[2] = { { .b = a }, { .b = b } };
	struct wl_op op = { .kind = OPK_PWRITE, .off = 0, .len = 100000 };
	/* Both files on one filesystem of 2048-byte blocks. */
	const struct wl_ops_geom g2k = { .kind = WL_DEDUPE,
					 .filesys = { 0, 0, 1, 1 },
					 .bs = { 2048, 2048, 2048, 2048 } };
	__u64 alt;

	(void)state;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	wl_shadow__apply(f, &op, 1, 0, 0);
	/* clone: aligned starts, whole blocks inside the source. */
	op = (struct wl_op){ .kind = OPK_CLONE,
			     .file = 0,
			     .off = 4096,
			     .len = 8192,
			     .ndest = 1,
			     .dest = { { 1, 2048 } } };
	assert_int_equal(wl_shadow__clone(f, &op, 2048), 0);
	wl_shadow__apply(f, &op, 1, 1, 0);
	assert_int_equal(f[1].size, 2048 + 8192);
	assert_memory_equal(b + 2048, a + 4096, 8192);
	op.off = 4096 + 1024;
	assert_int_equal(wl_shadow__clone(f, &op, 2048), -EINVAL);
	op.off = 98304; /* past the source's EOF at 100000 */
	assert_int_equal(wl_shadow__clone(f, &op, 2048), -EINVAL);
	/* A tail that is not whole blocks, ending at the source's EOF:
	 * taken; short of it: refused (no shortening for a clone). */
	op.off = 96256;
	op.len = 100000 - 96256;
	assert_int_equal(wl_shadow__clone(f, &op, 2048), 0);
	op.len -= 1;
	assert_int_equal(wl_shadow__clone(f, &op, 2048), -EINVAL);
	/* Overlapping ranges of one file. */
	op = (struct wl_op){ .kind = OPK_CLONE,
			     .file = 0,
			     .off = 0,
			     .len = 8192,
			     .ndest = 1,
			     .dest = { { 0, 4096 } } };
	assert_int_equal(wl_shadow__clone(f, &op, 2048), -EINVAL);
	op.dest[0].off = 8192;
	assert_int_equal(wl_shadow__clone(f, &op, 2048), 0);
	/* copy_file_range: up to the source's EOF; 0 past it. */
	op = (struct wl_op){ .kind = OPK_COPY,
			     .file = 0,
			     .off = 99000,
			     .len = 5000,
			     .ndest = 1,
			     .dest = { { 1, 7 } } };
	assert_int_equal(wl_shadow__copy(f, &op, &g2k, &alt), 1000);
	assert_int_equal(alt, 0);
	wl_shadow__apply(f, &op, 1, 2, 1000);
	assert_memory_equal(b + 7, a + 99000, 1000);
	op.off = 100000;
	assert_int_equal(wl_shadow__copy(f, &op, &g2k, &alt), 0);
	/* Aligned, not whole blocks: the clone's whole blocks, or all. */
	op = (struct wl_op){ .kind = OPK_COPY,
			     .file = 0,
			     .off = 2048,
			     .len = 5000,
			     .ndest = 1,
			     .dest = { { 1, 4096 } } };
	assert_int_equal(wl_shadow__copy(f, &op, &g2k, &alt), 4096);
	assert_int_equal(alt, 5000);
	/* Overlap within one file. */
	op.dest[0] = (struct wl_op_dest){ 0, 4096 };
	assert_int_equal(wl_shadow__copy(f, &op, &g2k, &alt), -EINVAL);
	/* A copy of nothing changes nothing, not even the size. */
	op = (struct wl_op){ .kind = OPK_COPY,
			     .file = 0,
			     .off = 200000,
			     .len = 10,
			     .ndest = 1,
			     .dest = { { 1, 3 * 1024 * 1024 } } };
	wl_shadow__apply(f, &op, 1, 3, 0);
	assert_int_equal(f[1].size,
			 2048 + 8192 > 7 + 1000 ? 2048 + 8192 : 1007);
}

/* Whether [a, a + n) of file fa and [b, b + n) of fb hold the same bytes. */
static bool same_bytes(const struct wl_shadow *f, __u32 fa, __u64 a, __u32 fb,
		       __u64 b, __u64 n)
{
	return !memcmp(f[fa].b + a, f[fb].b + b, n);
}

/*
 * Staged dedupes on xfs with 2048-byte blocks (and btrfs with the
 * page's): drawn now and then, each range at its own block of its own
 * pages, a destination at another in-page offset than the source's where
 * the page has more than one block. After its writes, SAME: the source's
 * bytes at every destination, and other bytes where a compare at the
 * source's in-page offset in the destination's page would look; DECOY:
 * other bytes at every destination, the source's where that compare
 * looks.
 */
static void test_stage(void **state)
{
	static unsigned char m[WL_OPS_NFILES][WL_OPS_MAX_SIZE];
	struct wl_shadow f[WL_OPS_NFILES];
	struct wl_op w[WL_STAGE_MAX_WRITES];
	int staged[3] = { 0 }, other_poff = 0, dedupes = 0, one_page = 0;
	struct wl_op op;
	char d[240];

	(void)state;
	for (__u32 i = 0; i < 5000; i++) {
		wl_op__draw(1, i, &dd_geo, &op);
		if (op.kind != OPK_DEDUPE)
			assert_int_equal(op.stage, WL_STAGE_NONE);
		if (op.kind != OPK_DEDUPE)
			continue;
		dedupes++;
		staged[op.stage]++;
		if (op.stage == WL_STAGE_NONE) {
			assert_int_equal(wl_op__stage(&op, 1, i, &dd_geo, w),
					 0);
			continue;
		}
		__u64 bs = dd_geo.bs[op.file], sp = op.off % PAGE;
		__u32 n = wl_op__stage(&op, 1, i, &dd_geo, w);
		bool one = wl_op__one_page(&op, &dd_geo);

		wl_op__describe(&op, i, &dd_geo, d, sizeof(d));
		assert_non_null(strstr(d, " staged: "));
		assert_true((strstr(d, ", in one page") != NULL) == one);
		assert_true(op.ndest >= 1 && op.ndest <= WL_STAGE_MAX_DESTS);
		/* One page: its decoys once, under every range's bytes. */
		assert_int_equal(n, one ? op.ndest + 2 : 2 * (op.ndest + 1));
		one_page += one;
		/* Only where a page holds two blocks and more. */
		assert_true(!one || bs < PAGE);
		assert_true(op.len >= bs && op.len % bs == 0 && sp % bs == 0);
		if (op.stage == WL_STAGE_DECOY)
			assert_true(sp + op.len <= PAGE);
		for (__u32 k = 0; k < n; k++)
			assert_true(w[k].off + w[k].len <= WL_OPS_MAX_SIZE);
		for (int k = 0; k < WL_OPS_NFILES; k++)
			f[k] = (struct wl_shadow){ .b = m[k] };
		for (__u32 k = 0; k < n; k++) {
			assert_int_equal(w[k].kind, OPK_PWRITE);
			wl_shadow__apply(f, &w[k], 1, i, 0);
		}
		for (__u32 t = 0; t < op.ndest; t++) {
			const struct wl_op_dest *x = &op.dest[t];
			__u64 dp = x->off % PAGE, pg = x->off - dp;

			assert_int_equal(dd_geo.filesys[x->file],
					 dd_geo.filesys[op.file]);
			assert_true(x->off % bs == 0);
			/* In the source's page and overlapping no other
			 * range, or in no page of the source's. */
			if (one) {
				assert_true(x->off + op.len <= op.off ||
					    x->off >= op.off + op.len);
				for (__u32 u = 0; u < t; u++)
					assert_true(x->off + op.len <=
							    op.dest[u].off ||
						    x->off >= op.dest[u].off +
								      op.len);
			} else {
				assert_true(x->file != op.file ||
					    pg >= (op.off + op.len + PAGE - 1) /
							    PAGE * PAGE);
			}
			if (bs < PAGE)
				assert_true(dp != sp);
			other_poff += dp != sp;
			if (op.stage == WL_STAGE_DECOY)
				assert_true(dp + op.len <= PAGE);
			/* What the compare must see, and what one reading the
			 * destination at the source's in-page offset would:
			 * the other answer, wherever the offsets differ. */
			bool right = same_bytes(f, op.file, op.off, x->file,
						x->off, op.len);
			bool wrong =
				same_bytes(f, op.file, op.off, x->file, pg + sp,
					   wl__min(op.len, PAGE - sp));

			assert_true(right ==
				    (op.stage == WL_STAGE_SAME || dp == sp));
			/* In one page that place is the source itself. */
			if (dp != sp)
				assert_true(one ? wrong : wrong != right);
		}
		/* All zero again for the next. */
		for (__u32 k = 0; k < n; k++)
			memset(m[w[k].file] + w[k].off, 0, w[k].len);
	}
	/* Now and then: a third of the dedupes, as many of each kind. */
	assert_true(staged[WL_STAGE_SAME] > dedupes / 10 &&
		    staged[WL_STAGE_DECOY] > dedupes / 10 &&
		    staged[WL_STAGE_NONE] > dedupes / 2);
	assert_true(other_poff > 100);
	assert_true(one_page > 20 && one_page < staged[WL_STAGE_SAME]);
}

/* The staged dedupes tests/vm/validation.sh replays alone (--ops-only)
 * with seed 3 (xfs with 1024-byte blocks), to count the folios each
 * compare meets: 180, 209 and 247 in one page (one folio a compare),
 * 50 and 123 in pages of their own (two). */
static void test_stage_replays(void **state)
{
	static const struct {
		__u32 index, ndest;
		enum wl_stage stage;
		bool one;
	} want[] = {
		{ 180, 2, WL_STAGE_SAME, true },
		{ 209, 3, WL_STAGE_SAME, true },
		{ 247, 3, WL_STAGE_DECOY, true },
		{ 50, 1, WL_STAGE_DECOY, false },
		{ 123, 1, WL_STAGE_DECOY, false },
	};
	struct wl_ops_geom g;
	struct wl_op op;

	(void)state;
	wl_ops__geom(WL_DEDUPE, 3, PAGE, &g);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		wl_op__draw(3, want[i].index, &g, &op);
		assert_int_equal(op.kind, OPK_DEDUPE);
		assert_int_equal(g.bs[op.file], 1024);
		assert_int_equal(op.stage, want[i].stage);
		assert_int_equal(op.ndest, want[i].ndest);
		assert_int_equal(wl_op__one_page(&op, &g), want[i].one);
		for (__u32 d = 0; d < op.ndest; d++)
			assert_int_equal(op.dest[d].off / PAGE ==
							 op.off / PAGE &&
						 op.dest[d].file == op.file,
					 want[i].one);
	}
}

/* Planted rules: fails while all of need[] are in the sequence. */
struct rule {
	const __u32 *need;
	int n;
	unsigned int calls;
	__u32 min_len; /* or: fails while at least this long */
};

static bool rule_fails(void *ctx, const __u32 *idx, __u32 n)
{
	struct rule *r = ctx;
	int found = 0;

	r->calls++;
	if (r->min_len)
		return n >= r->min_len;
	for (int k = 0; k < r->n; k++)
		for (__u32 i = 0; i < n; i++)
			if (idx[i] == r->need[k]) {
				found++;
				break;
			}
	return found == r->n;
}

static void test_shrink_seq(void **state)
{
	static const __u32 need[] = { 3, 17, 40, 99 };
	__u32 idx[100], n = 100, again[100], m = 100;
	struct rule r = { .need = need, .n = 4 };
	unsigned int trials;

	(void)state;
	for (__u32 i = 0; i < 100; i++)
		idx[i] = again[i] = i;
	trials = wl_shrink_seq(idx, &n, rule_fails, &r, 500);
	assert_int_equal(trials, r.calls);
	assert_int_equal(n, 4);
	assert_memory_equal(idx, need, sizeof(need));
	/* The same sequence and rule, the same result and trials. */
	r.calls = 0;
	assert_int_equal(wl_shrink_seq(again, &m, rule_fails, &r, 500), trials);
	assert_int_equal(m, 4);
	/* The budget holds. */
	for (__u32 i = 0; i < 100; i++)
		idx[i] = i;
	n = 100;
	r.calls = 0;
	assert_int_equal(wl_shrink_seq(idx, &n, rule_fails, &r, 5), 5);
	assert_int_equal(r.calls, 5);
	/* A rule on the length: down to exactly that many. */
	struct rule len = { .min_len = 7 };

	for (__u32 i = 0; i < 100; i++)
		idx[i] = i;
	n = 100;
	wl_shrink_seq(idx, &n, rule_fails, &len, 500);
	assert_int_equal(n, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geom),
		cmocka_unit_test(test_draw_reproducible),
		cmocka_unit_test(test_draw_coverage),
		cmocka_unit_test(test_draw_remaps),
		cmocka_unit_test(test_shadow),
		cmocka_unit_test(test_shadow_remaps),
		cmocka_unit_test(test_shadow_tmpfs_copy),
		cmocka_unit_test(test_stage),
		cmocka_unit_test(test_stage_replays),
		cmocka_unit_test(test_shrink_seq),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
