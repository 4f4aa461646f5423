// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests: the workloads' ground truth (src/workload/pattern.c,
 * pattern_diff.c, dedupe_truth.c, dedupe_plans.c, shmem_truth.c): the
 * pattern, file contents, the answers the kernel must give, the default
 * matrices and the layout strings of failed checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>
#include <linux/fs.h>

#include "workload/dedupe_truth.h"
#include "workload/pattern.h"
#include "workload/read.h"
#include "workload/shmem_truth.h"
#include "util/util.h"

#define SAME FILE_DEDUPE_RANGE_SAME
#define DIFFERS FILE_DEDUPE_RANGE_DIFFERS

/* ---- pattern ---- */

/* Bytes of buf[0..len) that are not the pattern at off. */
static size_t pattern_bad(const void *buf, __u64 off, size_t len)
{
	const unsigned char *p = buf;
	size_t bad = 0;

	for (size_t i = 0; i < len; i++)
		bad += p[i] != wl_pattern__byte(off + i);
	return bad;
}

static void test_pattern_fill_matches_bytes(void **state)
{
	static const __u64 offs[] = { 0,	 1,    7,    8,
				      9,	 4095, 4096, (1ULL << 40) + 3,
				      ~0ULL - 20 };
	static const size_t lens[] = { 0, 1, 7, 8, 9, 17, 100 };
	unsigned char buf[128];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(offs); i++) {
		for (size_t j = 0; j < ARRAY_SIZE(lens); j++) {
			memset(buf, 0x5a, sizeof(buf));
			wl_pattern__fill(buf, offs[i], lens[j]);
			for (size_t k = 0; k < lens[j]; k++)
				assert_int_equal(buf[k],
						 wl_pattern__byte(offs[i] + k));
			/* Nothing written past len. */
			assert_int_equal(buf[lens[j]], 0x5a);
			assert_int_equal(pattern_bad(buf, offs[i], lens[j]), 0);
		}
	}
}

static void test_pattern_properties(void **state)
{
	unsigned char a[64], b[64];

	(void)state;
	/* A misplaced word shows up: shifted data is not the same. */
	wl_pattern__fill(a, 0, sizeof(a));
	wl_pattern__fill(b, 8, sizeof(b));
	assert_int_not_equal(memcmp(a, b, sizeof(a)), 0);
	assert_int_equal(pattern_bad(b, 0, sizeof(b)) > 0, 1);
	/* first_diff finds the one changed byte. */
	memcpy(b, a, sizeof(a));
	assert_int_equal(wl_bytes__first_diff(a, b, sizeof(a)), sizeof(a));
	b[37] ^= 1;
	assert_int_equal(wl_bytes__first_diff(a, b, sizeof(a)), 37);
	assert_int_equal(pattern_bad(b, 0, sizeof(b)), 1);
}

/* ---- dedupe: differing positions ---- */

static void test_diff_names(void **state)
{
	(void)state;
	for (int d = 0; d < DD_DIFF_NR; d++)
		assert_int_equal(dd_diff__parse(dd_diff__name(d)), d);
	assert_int_equal(dd_diff__parse("word"), -1);
	assert_string_equal(dd_diff__name(DD_DIFF_WORD_END), "word-end");
}

static void test_diff_pos(void **state)
{
	(void)state;
	/* 16 KiB: the word boundary a quarter in plus 5 words. */
	assert_int_equal(dd_diff__pos(DD_DIFF_FIRST, 16384), 0);
	assert_int_equal(dd_diff__pos(DD_DIFF_MIDDLE, 16384), 8195);
	assert_int_equal(dd_diff__pos(DD_DIFF_WORD_END, 16384), 4135);
	assert_int_equal(dd_diff__pos(DD_DIFF_WORD_START, 16384), 4136);
	assert_int_equal(dd_diff__pos(DD_DIFF_WORD_START, 16384) % 8, 0);
	assert_int_equal(dd_diff__pos(DD_DIFF_LAST, 16384), 16383);
	assert_int_equal(dd_diff__pos(DD_DIFF_PAST, 16384), 16384);
	/* Short ranges: the last word boundary inside, or the last byte. */
	assert_int_equal(dd_diff__pos(DD_DIFF_WORD_END, 12), 7);
	assert_int_equal(dd_diff__pos(DD_DIFF_WORD_START, 12), 8);
	assert_int_equal(dd_diff__pos(DD_DIFF_WORD_START, 5), 4);
	assert_int_equal(dd_diff__pos(DD_DIFF_MIDDLE, 1), 0);
	/* Every position but past lies inside the range. */
	for (__u64 cmp = 1; cmp < 100; cmp++)
		for (int d = DD_DIFF_FIRST; d < DD_DIFF_PAST; d++)
			assert_true(dd_diff__pos(d, cmp) < cmp);
}

/* ---- dedupe: file contents and answers ---- */

/* xfs with 1 KiB blocks on 4 KiB pages. */
static void plan_xfs1k(struct dd_plan *p)
{
	dd_plan__init(p, 4096);
	assert_int_equal(dd_plan__add_filesys(p, WL_FSTYPE_XFS, 1024), 0);
}

/* A one-destination case from src (size ssz) at so to a new file of
 * size dsz at doff, len bytes, differing at diff. */
static const struct dd_case *one(struct dd_plan *p, __u64 ssz, __u64 so,
				 __u64 len, __u64 dsz, __u64 doff,
				 enum dd_diff diff, bool same_file)
{
	struct dd_case c = {
		.name = "t", .src_off = so, .len = len, .count = 1, .ndest = 1
	};

	c.src = dd_plan__add_file(p, 0, ssz, false);
	c.dest[0].file =
		same_file ? c.src : dd_plan__add_file(p, 0, dsz, false);
	c.dest[0].off = doff;
	c.dest[0].diff = diff;
	assert_int_equal(dd_plan__add_case(p, &c), 0);
	return &p->cases[p->ncases - 1];
}

static void expect(const struct dd_plan *p, const struct dd_case *c,
		   int ioctl_err, int status, __u64 bytes, __u64 cmp, bool prep)
{
	struct dd_expect e;

	dd__expect(p, c, 0, 0, &e);
	assert_int_equal(e.ioctl_err, ioctl_err);
	if (!ioctl_err) {
		assert_int_equal(e.status, status);
		assert_int_equal(e.bytes_deduped, bytes);
		assert_int_equal(e.cmp_len, cmp);
	}
	assert_int_equal(e.reaches_prep, prep);
}

static void test_expect_same_and_differs(void **state)
{
	struct dd_plan p;
	const struct dd_case *c;

	(void)state;
	plan_xfs1k(&p);
	/* Different in-page positions (1024 vs 3072), identical data. */
	c = one(&p, 80 * KiB, 1024, 64 * KiB, 80 * KiB, 3072, DD_DIFF_NONE,
		false);
	expect(&p, c, 0, SAME, 64 * KiB, 64 * KiB, true);
	for (int d = DD_DIFF_FIRST; d <= DD_DIFF_LAST; d++) {
		c = one(&p, 80 * KiB, 1024, 64 * KiB, 80 * KiB, 3072, d, false);
		expect(&p, c, 0, DIFFERS, 0, 64 * KiB, true);
	}
	/* The same file, ranges apart. */
	c = one(&p, 160 * KiB, 0, 64 * KiB, 0, 66 * KiB, DD_DIFF_NONE, true);
	expect(&p, c, 0, SAME, 64 * KiB, 64 * KiB, true);
	c = one(&p, 160 * KiB, 0, 64 * KiB, 0, 66 * KiB, DD_DIFF_MIDDLE, true);
	expect(&p, c, 0, DIFFERS, 0, 64 * KiB, true);
	dd_plan__free(&p);
}

static void test_expect_geometry(void **state)
{
	struct dd_plan p;
	const struct dd_case *c;

	(void)state;
	plan_xfs1k(&p);
	/* Offsets inside a block: the remap prep refuses them. */
	c = one(&p, 64 * KiB, 512, 4096, 64 * KiB, 1024, DD_DIFF_NONE, false);
	expect(&p, c, 0, -EINVAL, 0, 0, true);
	c = one(&p, 64 * KiB, 1024, 4096, 64 * KiB, 1536, DD_DIFF_NONE, false);
	expect(&p, c, 0, -EINVAL, 0, 0, true);
	/* Destination range past its EOF. */
	c = one(&p, 64 * KiB, 0, 8192, 9 * KiB, 2048, DD_DIFF_NONE, false);
	expect(&p, c, 0, -EINVAL, 0, 0, true);
	/* Source range past EOF: the whole ioctl fails, no prep runs. */
	c = one(&p, 4096, 0, 5120, 64 * KiB, 0, DD_DIFF_NONE, false);
	expect(&p, c, -EINVAL, 0, 0, 0, false);
	/* Overlapping ranges of one file. */
	c = one(&p, 64 * KiB, 0, 8192, 0, 4096, DD_DIFF_NONE, true);
	expect(&p, c, 0, -EINVAL, 0, 0, true);
	/* A tail at EOF of both files: all of it is compared. */
	c = one(&p, 50153, 9216, 50153 - 9216, 50153, 9216, DD_DIFF_NONE,
		false);
	expect(&p, c, 0, SAME, 50153 - 9216, 50153 - 9216, true);
	c = one(&p, 50153, 9216, 50153 - 9216, 50153, 9216, DD_DIFF_LAST,
		false);
	expect(&p, c, 0, DIFFERS, 0, 50153 - 9216, true);
	/* Ending at EOF of the source only: rounded down to blocks. */
	c = one(&p, 50153, 9216, 50153 - 9216, 60000, 9216, DD_DIFF_NONE,
		false);
	expect(&p, c, 0, SAME, 50153 - 9216, 39936, true);
	/* Shortened: a byte past the whole blocks does not count, and
	 * bytes_deduped is still the request's length. */
	c = one(&p, 64 * KiB, 1024, 16 * KiB + 515, 64 * KiB, 2048,
		DD_DIFF_PAST, false);
	expect(&p, c, 0, SAME, 16 * KiB + 515, 16 * KiB, true);
	c = one(&p, 64 * KiB, 1024, 16 * KiB + 515, 64 * KiB, 2048,
		DD_DIFF_LAST, false);
	expect(&p, c, 0, DIFFERS, 0, 16 * KiB, true);
	/* Shorter than a block and not at EOF: nothing is compared. */
	c = one(&p, 64 * KiB, 0, 100, 64 * KiB, 0, DD_DIFF_NONE, false);
	expect(&p, c, 0, SAME, 100, 0, true);
	/* Zero length: no remap call at all. */
	c = one(&p, 64 * KiB, 0, 0, 64 * KiB, 0, DD_DIFF_NONE, false);
	expect(&p, c, 0, SAME, 0, 0, false);
	dd_plan__free(&p);
}

static void test_expect_cap(void **state)
{
	struct dd_plan p;
	const struct dd_case *c;

	(void)state;
	plan_xfs1k(&p);
	/* 1.5 GiB asked: 1 GiB compared and reported. The first byte
	 * differs so that the compare of the model stops at once. */
	c = one(&p, 2048 * MiB, 0, 1536 * MiB, 2048 * MiB, 0, DD_DIFF_FIRST,
		false);
	expect(&p, c, 0, DIFFERS, 0, DD_CAP, true);
	dd_plan__free(&p);
}

static void test_file_fill(void **state)
{
	struct dd_plan p;
	const struct dd_case *c;
	unsigned char a[8192], b[8192];

	(void)state;
	plan_xfs1k(&p);
	c = one(&p, 16 * KiB, 1024, 4096, 16 * KiB, 3072, DD_DIFF_MIDDLE,
		false);
	/* The destination range is the source's, but for one byte. */
	dd_file__fill(&p.files[c->src], 1024, a, 4096);
	dd_file__fill(&p.files[c->dest[0].file], 3072, b, 4096);
	assert_int_equal(wl_bytes__first_diff(a, b, 4096), 2048 + 3);
	b[2048 + 3] ^= 0xff;
	assert_memory_equal(a, b, 4096);
	/* Outside it, each file has a base of its own. */
	dd_file__fill(&p.files[c->src], 0, a, 1024);
	dd_file__fill(&p.files[c->dest[0].file], 0, b, 1024);
	assert_int_not_equal(memcmp(a, b, 1024), 0);
	/* A fill across the copied range matches piecewise fills. */
	dd_file__fill(&p.files[c->dest[0].file], 1000, a, 8000);
	dd_file__fill(&p.files[c->dest[0].file], 1000, b, 2072);
	dd_file__fill(&p.files[c->dest[0].file], 3072, b + 2072, 5928);
	assert_memory_equal(a, b, 8000);
	assert_false(dd_file__equal(&p.files[c->src], 1024,
				    &p.files[c->dest[0].file], 3072, 4096));
	assert_true(dd_file__equal(&p.files[c->src], 1024,
				   &p.files[c->dest[0].file], 3072, 2048));
	dd_plan__free(&p);
}

static void test_repeated_ranges(void **state)
{
	struct dd_plan p;
	struct dd_case c = {
		.name = "r", .src_off = 0, .len = 4096, .count = 4, .ndest = 1
	};
	struct dd_expect e;

	(void)state;
	plan_xfs1k(&p);
	c.src = dd_plan__add_file(&p, 0, 16 * KiB, false);
	c.dest[0].file = dd_plan__add_file(&p, 0, 16 * KiB + 2048, false);
	c.dest[0].off = 2048;
	c.dest[0].diff = DD_DIFF_WORD_START;
	assert_int_equal(dd_plan__add_case(&p, &c), 0);
	/* Every range has its own differing byte. */
	for (__u32 k = 0; k < 4; k++) {
		dd__expect(&p, &p.cases[0], k, 0, &e);
		assert_int_equal(e.status, DIFFERS);
		assert_int_equal(e.cmp_len, 4096);
	}
	dd_plan__free(&p);
}

static void test_layout_and_answer(void **state)
{
	struct dd_plan p;
	const struct dd_case *c;
	char buf[320];

	(void)state;
	plan_xfs1k(&p);
	c = one(&p, 69632, 1024, 65536, 69632, 3072, DD_DIFF_WORD_END, false);
	p.files[c->src].cold = true;
	dd__layout(&p, c, 0, 0, buf, sizeof(buf));
	assert_string_equal(buf,
			    "fs=xfs bs=1024 case=t src_off=1024 len=65536 "
			    "range=1/1 dest=1/1 dst=other-file dst_off=3072 "
			    "poff=1024/3072 sizes=69632/69632 "
			    "diff=word-end@+16423 cache=cold");
	dd__answer(0, SAME, 65536, buf, sizeof(buf));
	assert_string_equal(buf, "SAME bytes_deduped=65536");
	dd__answer(0, DIFFERS, 0, buf, sizeof(buf));
	assert_string_equal(buf, "DIFFERS bytes_deduped=0");
	dd__answer(-EINVAL, 0, 0, buf, sizeof(buf));
	assert_string_equal(buf, "ioctl error -22 (Invalid argument)");
	dd__answer(0, -EXDEV, 0, buf, sizeof(buf));
	assert_string_equal(buf, "status -18 (Invalid cross-device link) "
				 "bytes_deduped=0");
	dd_plan__free(&p);
}

/* Answer of the case named name, destination d. */
static void named(const struct dd_plan *p, const char *name, unsigned int d,
		  struct dd_expect *e)
{
	for (int i = 0; i < p->ncases; i++) {
		if (strcmp(p->cases[i].name, name))
			continue;
		dd__expect(p, &p->cases[i], 0, d, e);
		return;
	}
	fail_msg("no case '%s'", name);
}

static const struct dd_case *case_named(const struct dd_plan *p,
					const char *name)
{
	for (int i = 0; i < p->ncases; i++)
		if (!strcmp(p->cases[i].name, name))
			return &p->cases[i];
	fail_msg("no case '%s'", name);
	return NULL;
}

static void test_large_folio_layouts(void **state)
{
	static const __u32 sizes[] = { 4096, 1024, 2048 };
	struct dd_expect e;
	char buf[320];

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		__u32 bs = sizes[i];
		const struct dd_case *c;
		const struct dd_file *sf, *df;
		int before, ra = 0, small = 0, cases;
		__u64 total = 0;
		struct dd_plan p;

		dd_plan__init(&p, 4096);
		dd_plan__add_filesys(&p, WL_FSTYPE_XFS, bs);
		assert_int_equal(dd_plan__matrix(&p, 0), 0);
		before = p.ncases;
		assert_int_equal(dd_plan__large_folios(&p, 0), 0);
		cases = p.ncases - before;
		/* Four across files, and one inside a file's large folio. */
		assert_int_equal(cases, 5);
		for (int ci = before; ci < p.ncases - 1; ci++) {
			c = &p.cases[ci];
			sf = &p.files[c->src];
			df = &p.files[c->dest[0].file];
			/* Never cold: readahead files end up cached. */
			assert_false(sf->cold || df->cold);
			ra += sf->readahead + df->readahead;
			small += sf->small_writes + df->small_writes;
			total += sf->size + df->size;
			/* Each range spans more than a 128 KiB folio. */
			assert_true(c->len > 128 * KiB);
		}
		/* A few small layouts for a TCG guest. */
		assert_true(total < 4 * MiB);
		assert_int_equal(ra, 6);
		assert_int_equal(small, 1);
		/* Both sides read back, the whole range SAME. */
		c = case_named(&p, "lf-ra");
		assert_true(p.files[c->src].readahead &&
			    p.files[c->dest[0].file].readahead);
		dd__expect(&p, c, 0, 0, &e);
		assert_int_equal(e.status, SAME);
		assert_int_equal(e.cmp_len, 512 * KiB);
		/* Starting in a 64 KiB folio's later pages on both sides,
		 * differing in the last compared byte. */
		c = case_named(&p, "lf-ra-late");
		assert_true(c->src_off % (64 * KiB) >= 3 * 4096);
		assert_true(c->dest[0].off % (64 * KiB) >= 5 * 4096);
		dd__expect(&p, c, 0, 0, &e);
		assert_int_equal(e.status, DIFFERS);
		assert_int_equal(e.cmp_len, 256 * KiB);
		/* Large folios against page-sized ones. */
		c = case_named(&p, "lf-ra-vs-small");
		assert_true(p.files[c->src].readahead);
		assert_true(p.files[c->dest[0].file].small_writes);
		dd__expect(&p, c, 0, 0, &e);
		assert_int_equal(e.status, SAME);
		c = case_named(&p, "lf-big-vs-ra");
		assert_false(p.files[c->src].readahead ||
			     p.files[c->src].small_writes);
		assert_true(p.files[c->dest[0].file].readahead);
		assert_true(c->src_off % (128 * KiB) > 64 * KiB);
		dd__expect(&p, c, 0, 0, &e);
		assert_int_equal(e.status, DIFFERS);
		/* Sub-page blocks: the sides at different in-page offsets. */
		if (bs < 4096)
			assert_true(c->src_off % 4096 != c->dest[0].off % 4096);
		/* The layout names how the source got into the cache. */
		c = case_named(&p, "lf-ra-late");
		dd__layout(&p, c, 0, 0, buf, sizeof(buf));
		assert_non_null(strstr(buf, " cache=readahead"));
		/* Both sides in [64 KiB, 128 KiB) of one file read back
		 * through readahead: one 64 KiB folio where there are such. */
		c = case_named(&p, "lf-same-folio");
		assert_int_equal(c->dest[0].file, c->src);
		assert_true(p.files[c->src].readahead);
		assert_true(c->src_off / (64 * KiB) == 1 &&
			    (c->src_off + c->len - 1) / (64 * KiB) == 1);
		assert_true(c->dest[0].off / (64 * KiB) == 1 &&
			    (c->dest[0].off + c->len - 1) / (64 * KiB) == 1);
		dd__expect(&p, c, 0, 0, &e);
		assert_int_equal(e.status, DIFFERS);
		dd_plan__free(&p);
	}
}

static void test_matrix(void **state)
{
	static const __u32 sizes[] = { 4096, 1024, 2048 };
	struct dd_expect e;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		__u32 bs = sizes[i];
		bool poff_same = false, poff_differs = false, multi = false;
		bool same_file = false, cold = false, tail = false;
		bool folio = false, ioctl_err = false;
		int diffs_seen = 0;
		__u64 total = 0;
		struct dd_plan p;

		dd_plan__init(&p, 4096);
		dd_plan__add_filesys(&p, WL_FSTYPE_XFS, bs);
		assert_int_equal(dd_plan__matrix(&p, 0), 0);
		for (int ci = 0; ci < p.ncases; ci++) {
			const struct dd_case *c = &p.cases[ci];

			multi |= c->ndest > 1;
			cold |= p.files[c->src].cold;
			for (unsigned int d = 0; d < c->ndest; d++) {
				__u64 sp = c->src_off % 4096;
				__u64 dp = c->dest[d].off % 4096;

				dd__expect(&p, c, 0, d, &e);
				same_file |= c->dest[d].file == c->src;
				diffs_seen |= 1 << c->dest[d].diff;
				ioctl_err |= e.ioctl_err != 0;
				tail |= e.status == SAME && e.cmp_len % bs;
				folio |= e.status == SAME &&
					 e.cmp_len >= 2 * MiB;
				if (sp != dp && e.status == SAME)
					poff_same = true;
				if (sp != dp && e.status == DIFFERS)
					poff_differs = true;
			}
		}
		/* Small enough for a TCG guest with 2 GiB: no file over
		 * 4 MiB + 2 pages, under 20 MiB on each filesystem. */
		for (int f = 0; f < p.nfiles; f++) {
			assert_true(p.files[f].size <= 4 * MiB + 8192);
			total += p.files[f].size;
		}
		assert_true(total < 20 * MiB);
		/* The cases the matrix must cover. */
		assert_true(multi && same_file && cold && tail && folio);
		assert_true(ioctl_err);
		assert_int_equal(diffs_seen, (1 << DD_DIFF_NR) - 1);
		if (bs < 4096)
			assert_true(poff_same && poff_differs);
		/* Each case's intended answer. */
		named(&p, "block", 0, &e);
		assert_int_equal(e.status, SAME);
		assert_int_equal(e.cmp_len, bs);
		named(&p, "tail-last", 0, &e);
		assert_int_equal(e.status, DIFFERS);
		named(&p, "tiny", 0, &e);
		assert_int_equal(e.status, SAME);
		assert_int_equal(e.cmp_len, 1000);
		named(&p, "dests", 0, &e);
		assert_int_equal(e.status, SAME);
		for (unsigned int d = 1; d <= 5; d++) {
			named(&p, "dests", d, &e);
			assert_int_equal(e.status, DIFFERS);
		}
		named(&p, "dests", 6, &e);
		assert_int_equal(e.status, SAME);
		named(&p, "shortened", 0, &e);
		assert_int_equal(e.status, SAME);
		assert_int_equal(e.cmp_len, 16 * KiB);
		/* Blocks under a page: both sides in one page of one file,
		 * and several destinations in the source's page. */
		if (bs < 4096) {
			const struct dd_case *c = case_named(&p, "same-page");

			assert_int_equal(c->dest[0].file, c->src);
			assert_int_equal(c->src_off / 4096, 0);
			assert_int_equal(c->dest[0].off / 4096, 0);
			named(&p, "same-page", 0, &e);
			assert_int_equal(e.status, SAME);
			assert_int_equal(e.cmp_len, bs);
			named(&p, "same-page-differs", 0, &e);
			assert_int_equal(e.status, DIFFERS);
			c = case_named(&p, "dests-one-page");
			assert_int_equal(c->ndest, bs == 1024 ? 3 : 1);
			for (unsigned int d = 0; d < c->ndest; d++) {
				assert_int_equal(c->dest[d].file, c->src);
				assert_int_equal(c->dest[d].off / 4096, 0);
				named(&p, "dests-one-page", d, &e);
				assert_int_equal(e.status,
						 d == 1 ? DIFFERS : SAME);
			}
		} else {
			/* A page-sized block fills the page: no such layout. */
			for (int ci = 0; ci < p.ncases; ci++)
				assert_true(
					strcmp(p.cases[ci].name, "same-page"));
		}
		named(&p, "shortened-last", 0, &e);
		assert_int_equal(e.status, DIFFERS);
		named(&p, "unaligned", 0, &e);
		assert_int_equal(e.status, -EINVAL);
		named(&p, "dst-past-eof", 0, &e);
		assert_int_equal(e.status, -EINVAL);
		named(&p, "overlap", 0, &e);
		assert_int_equal(e.status, -EINVAL);
		named(&p, "src-past-eof", 0, &e);
		assert_int_equal(e.ioctl_err, -EINVAL);
		named(&p, "same-file-differs", 0, &e);
		assert_int_equal(e.status, DIFFERS);
		dd_plan__free(&p);
	}
}

static void test_custom_and_seed(void **state)
{
	struct wl_opts o;
	struct dd_plan p;
	struct dd_expect e;

	(void)state;
	workload__defaults(&o);
	o.range = 8192;
	o.count = 3;
	o.dests = 2;
	o.same_file = true;
	o.differ = DD_DIFF_LAST;
	plan_xfs1k(&p);
	assert_int_equal(dd_plan__custom(&p, 0, &o), 0);
	/* One file: the source ranges, then one span per destination. */
	assert_int_equal(p.nfiles, 1);
	assert_int_equal(p.files[0].size, 3 * 24576);
	assert_int_equal(p.cases[0].dest[1].off, 2 * 24576);
	dd__expect(&p, &p.cases[0], 2, 1, &e);
	assert_int_equal(e.status, DIFFERS);
	dd_plan__free(&p);

	workload__defaults(&o);
	o.files = 4;
	o.file_size = 1 * MiB + 1000;
	o.range = 256 * KiB;
	o.dests = 2;
	plan_xfs1k(&p);
	assert_int_equal(dd_plan__seed(&p, 0, &o), 0);
	assert_int_equal(p.nfiles, 4);
	/* Two groups of destinations, each whole ranges plus a tail. */
	assert_int_equal(p.ncases, 4);
	assert_int_equal(p.cases[0].count, 4);
	assert_int_equal(p.cases[1].len, 1000);
	assert_int_equal(p.cases[2].ndest, 1);
	dd__expect(&p, &p.cases[1], 0, 1, &e);
	assert_int_equal(e.status, SAME);
	assert_int_equal(e.cmp_len, 1000);
	dd__expect(&p, &p.cases[0], 3, 0, &e);
	assert_int_equal(e.status, SAME);
	assert_int_equal(e.bytes_deduped, 256 * KiB);
	dd_plan__free(&p);
}

/* ---- shmem-read ---- */

static void test_sh_names(void **state)
{
	(void)state;
	for (int f = 0; f < SH_FILL_NR; f++)
		assert_int_equal(sh_fill__parse(sh_fill__name(f)), f);
	for (int c = 0; c < WL_WAY_NR; c++)
		assert_int_equal(wl_way__parse(wl_way__name(c)), c);
	for (int h = 0; h < WL_HUGE_NR; h++)
		assert_int_equal(wl_huge__parse(wl_huge__name(h)), h);
	assert_int_equal(sh_fill__parse("holes"), -1);
	assert_int_equal(wl_way__parse("preadv"), -1);
}

static void test_sh_pieces(void **state)
{
	struct sh_file full = { SH_FILL_FULL, 4 * MiB + 4097 };
	struct sh_file sparse = { SH_FILL_SPARSE, 4 * MiB + 20000 };
	struct sh_file mixed = { SH_FILL_MIXED, 2 * MiB + 300003 };
	struct sh_piece pc;

	(void)state;
	assert_true(sh_file__piece(&full, 0, &pc));
	assert_int_equal(pc.start, 0);
	assert_int_equal(pc.end, full.size);
	assert_false(sh_file__piece(&full, 1, &pc));
	/* Sparse: a piece in the 1st and 3rd 2 MiB region, holes around. */
	assert_true(sh_file__piece(&sparse, 0, &pc));
	assert_int_equal(pc.start, 1);
	assert_int_equal(pc.end, 1 + 12293);
	assert_true(sh_file__piece(&sparse, 1, &pc));
	assert_int_equal(pc.start, 4 * MiB + 4097);
	assert_true(pc.end < sparse.size);
	assert_false(sh_file__piece(&sparse, 2, &pc));
	/* Mixed: a whole 2 MiB chunk, then early 4 KiB pieces. */
	assert_true(sh_file__piece(&mixed, 0, &pc));
	assert_int_equal(pc.end, 2 * MiB);
	assert_false(pc.early);
	assert_true(sh_file__piece(&mixed, 1, &pc));
	assert_true(pc.early);
	assert_int_equal(pc.start, 2 * MiB);
	assert_true(sh_file__piece(&mixed, 2, &pc));
	assert_true(pc.early && pc.end == mixed.size - 4103);
	assert_false(sh_file__piece(&mixed, 3, &pc));
}

static void test_sh_fill(void **state)
{
	struct sh_file sparse = { SH_FILL_SPARSE, 4 * MiB + 20000 };
	unsigned char buf[20000];

	(void)state;
	/* Byte 0 is a hole, 1 .. 12293 pattern, then zeros. */
	sh_file__fill(&sparse, 0, buf, sizeof(buf));
	assert_int_equal(buf[0], 0);
	assert_int_equal(pattern_bad(buf + 1, 1, 12293), 0);
	for (size_t i = 12294; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);
	/* Across the second piece's start, in the third region. */
	sh_file__fill(&sparse, 4 * MiB + 4000, buf, 200);
	for (int i = 0; i < 97; i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(pattern_bad(buf + 97, 4 * MiB + 4097, 103), 0);
	/* Past EOF: zeros. */
	sh_file__fill(&sparse, sparse.size - 10, buf, 100);
	for (int i = 0; i < 100; i++)
		assert_int_equal(buf[i], 0);
}

static void test_sh_mem(void **state)
{
	struct sh_file full = { SH_FILL_FULL, 4 * MiB + 4097 };
	struct sh_file sparse = { SH_FILL_SPARSE, 4 * MiB + 20000 };
	struct sh_file mixed = { SH_FILL_MIXED, 2 * MiB + 300003 };
	struct sh_file big = { SH_FILL_SPARSE, 1ULL << 40 };

	(void)state;
	/* Huge: whole 2 MiB folios; else pages. */
	assert_int_equal(sh_file__mem(&full, true), 6 * MiB);
	assert_int_equal(sh_file__mem(&full, false), 4 * MiB + 8192);
	/* Two pieces, each in one 2 MiB region and over 4 pages. */
	assert_int_equal(sh_file__mem(&sparse, true), 4 * MiB);
	assert_int_equal(sh_file__mem(&sparse, false), 2 * 16 * KiB);
	/* The tail is written before huge= is on: pages in both modes
	 * (3 pages, then 68 from the page holding byte 20491 in). */
	assert_int_equal(sh_file__mem(&mixed, true), 2 * MiB + 71 * 4096);
	assert_int_equal(sh_file__mem(&mixed, false), 2 * MiB + 71 * 4096);
	/* A 1 TiB sparse file: a bound, at once, without walking it. */
	assert_int_equal(sh_file__mem(&big, false), (262144ULL + 1) * 16 * KiB);
	assert_int_equal(sh_file__mem(&big, true), (262144ULL + 1) * 2 * MiB);
	/* Half of what is available, at most; unknown (0) fits nothing. */
	/* Fallocated: all of it, past the size with KEEP_SIZE, and no
	 * written piece: zeros. */
	{
		struct sh_file fa = { SH_FILL_FALLOC, 4 * MiB + 8193 };
		struct sh_file fk = { SH_FILL_FALLOC_KEEP, 2 * MiB + 40961 };
		unsigned char b[64];
		struct sh_piece pc;

		assert_int_equal(sh_file__allocated(&fa), 4 * MiB + 8193);
		assert_int_equal(sh_file__allocated(&fk),
				 2 * MiB + 40961 + SH_KEEP_PAST);
		assert_int_equal(sh_file__allocated(&sparse), 0);
		assert_int_equal(sh_file__mem(&fa, true), 6 * MiB);
		assert_int_equal(sh_file__mem(&fa, false), 4 * MiB + 3 * 4096);
		assert_int_equal(sh_file__mem(&fk, false),
				 (2 * MiB + 40961 + SH_KEEP_PAST + 4095) /
					 4096 * 4096);
		assert_false(sh_file__piece(&fa, 0, &pc));
		memset(b, 0xff, sizeof(b));
		sh_file__fill(&fk, 2 * MiB, b, sizeof(b));
		assert_int_equal(wl_zero__diff(b, sizeof(b)), sizeof(b));
	}
	assert_true(wl__mem_fits(512 * MiB, 1024 * MiB));
	assert_false(wl__mem_fits(512 * MiB + 1, 1024 * MiB));
	assert_false(wl__mem_fits(1, 0));
	assert_true(wl__mem_fits(0, 0));
}

static void test_sh_expect_and_plans(void **state)
{
	const struct sh_plan *pl;
	int n, calls = 0, multi = 0, from_eof = 0, tiny = 0, huge = 0;
	char buf[320];

	(void)state;
	assert_int_equal(sh__expect_ret(100, 0, 64), 64);
	assert_int_equal(sh__expect_ret(100, 90, 64), 10);
	assert_int_equal(sh__expect_ret(100, 100, 64), 0);
	assert_int_equal(sh__expect_ret(100, 200, 64), 0);
	/* readv: the remainder goes to the last iovec. */
	assert_int_equal(wl_rbuf__iov_len(7, 2, 0), 3);
	assert_int_equal(wl_rbuf__iov_len(7, 2, 1), 4);
	n = sh_plan__matrix(&pl);
	assert_true(n >= 8);
	for (int i = 0; i < n; i++) {
		__u64 sum = 0;

		calls |= 1 << pl[i].way;
		multi |= pl[i].readers > 1;
		from_eof |= pl[i].from_eof;
		tiny |= pl[i].bs == 1;
		huge |= pl[i].bs > 2 * MiB;
		for (__u32 j = 0; j < pl[i].iovecs; j++)
			sum += wl_rbuf__iov_len(pl[i].bs, pl[i].iovecs, j);
		assert_int_equal(sum, pl[i].bs);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(pl[i].name, pl[j].name);
	}
	/* Every way in: read, pread, readv, preadv2, io_uring's three. */
	assert_int_equal(calls, (1 << WL_WAY_NR) - 1);
	assert_true(multi && from_eof && tiny && huge);
	/* preadv2 with each RWF flag; what takes iovecs and what moves. */
	{
		int rwf = 0;

		for (int i = 0; i < n; i++)
			rwf |= pl[i].rwf;
		assert_int_equal(rwf, RWF_NOWAIT | RWF_HIPRI);
	}
	assert_true(wl_way__info(WL_WAY_READV)->iovecs &&
		    wl_way__info(WL_WAY_PREADV2)->iovecs &&
		    wl_way__info(WL_WAY_URING_READV)->iovecs &&
		    !wl_way__info(WL_WAY_URING_FIXED)->iovecs);
	assert_true(wl_way__info(WL_WAY_READ)->moves &&
		    !wl_way__info(WL_WAY_PREADV2)->moves &&
		    !wl_way__info(WL_WAY_URING_READ)->moves);
	assert_true(wl_way__info(WL_WAY_PREADV2)->seen == WL_SEEN_SYSCALL &&
		    wl_way__info(WL_WAY_URING_FIXED)->seen == WL_SEEN_URING);
	assert_int_equal(wl_way__parse("io_uring-read_fixed"),
			 WL_WAY_URING_FIXED);
	assert_int_equal(wl_rwf__parse("nowait"), RWF_NOWAIT);
	assert_int_equal(wl_rwf__parse("bogus"), -1);
	assert_string_equal(wl_rwf__name(RWF_HIPRI), "hipri");
	/* Offsets from EOF: ending exactly at it, and starting past it. */
	for (int i = 0; i < n; i++) {
		if (!strcmp(pl[i].name, "to-eof"))
			assert_int_equal(sh_plan__start(&pl[i], 100000),
					 100000 - 12288);
		if (!strcmp(pl[i].name, "beyond-eof"))
			assert_int_equal(sh_plan__start(&pl[i], 100000),
					 100001);
	}
	sh__layout(WL_HUGE_ALWAYS,
		   &(struct sh_file){ SH_FILL_MIXED, 2 * MiB + 3 }, &pl[0], 0,
		   5, 327680, buf, sizeof(buf));
	assert_string_equal(buf,
			    "huge=always file=mixed size=2097155 plan=seq-64k "
			    "syscall=read iovecs=1 bs=65536 offset=0 length=0 "
			    "buf_align=0 readers=1 reader=0 call=5 pos=327680");
}

/* ---- checking in place (pattern_diff.c), every implementation ---- */

/* Positions of one wrong byte in a buffer of len: the first, the last,
 * the middle, unaligned ones inside and across vector steps. */
static size_t flip_positions(size_t len, size_t *pos)
{
	static const size_t at[] = { 1, 3, 7, 8, 15, 31, 33, 63, 64, 65, 100 };
	size_t n = 0;

	if (!len)
		return 0;
	pos[n++] = 0;
	pos[n++] = len - 1;
	pos[n++] = len / 2;
	if (len / 2 + 5 < len)
		pos[n++] = len / 2 + 5;
	for (size_t i = 0; i < ARRAY_SIZE(at); i++) {
		if (at[i] < len)
			pos[n++] = at[i];
		if (len > at[i])
			pos[n++] = len - 1 - at[i];
	}
	return n;
}

/*
 * Implementation im on len bytes at b for file offset off: the right
 * pattern and all zeroes compare equal, and one wrong byte (low or high
 * bit) at each of the n positions pos is found where it is.
 */
static void check_flips(int im, unsigned char *b, __u64 off, size_t len,
			const size_t *pos, size_t n)
{
	static const unsigned char bits[] = { 0x01, 0x80 };

	wl_pattern__fill(b, off, len);
	assert_int_equal(wl_pattern__diff_with(im, b, off, len), len);
	memset(b, 0, len);
	assert_int_equal(wl_zero__diff_with(im, b, len), len);
	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < sizeof(bits); i++) {
			wl_pattern__fill(b, off, len);
			b[pos[k]] ^= bits[i];
			assert_int_equal(wl_pattern__diff_with(im, b, off, len),
					 pos[k]);
			memset(b, 0, len);
			b[pos[k]] = bits[i];
			assert_int_equal(wl_zero__diff_with(im, b, len),
					 pos[k]);
		}
	}
}

static void test_pattern_diff_impls(void **state)
{
	static const __u64 offs[] = { 0, 1, 5, 7, 8, 4093, 2 * MiB - 3 };
	static const size_t lens[] = { 0,  1,  7,  8,	9,    31,
				       63, 64, 65, 127, 4096, 64 * KiB + 13 };
	const size_t noffs = ARRAY_SIZE(offs);
	const size_t nlens = ARRAY_SIZE(lens);
	unsigned char *mem = malloc(64 * KiB + 64);
	size_t pos[32];
	int ran = 0;

	(void)state;
	assert_non_null(mem);
	for (int im = 0; im < WL_V_NR; im++) {
		if (!wl_vimpl__supported(im))
			continue;
		ran++;
		for (size_t l = 0; l < nlens; l++) {
			size_t n = flip_positions(lens[l], pos);

			/* The buffer at 0, 1 and 3 bytes past alignment. */
			for (int sh = 0; sh < 3; sh++)
				for (size_t o = 0; o < noffs; o++)
					check_flips(im,
						    mem + (sh ? 2 * sh - 1 : 0),
						    offs[o], lens[l], pos, n);
		}
	}
	/* The plain and SSE2 ones exist on every x86-64 CPU. */
	assert_true(ran >= 2);
	/* The fastest is chosen by default. */
	assert_true(wl_vimpl__supported(wl_vimpl__get()));
	free(mem);
}

/* sh_file__diff agrees with sh_file__fill on every fill, hole and piece
 * edge, and finds one wrong byte (in a hole or in data) with each
 * implementation. */
static void test_sh_diff(void **state)
{
	static const struct sh_file files[] = {
		{ SH_FILL_FULL, 4 * MiB + 4097 },
		{ SH_FILL_SPARSE, 4 * MiB + 20000 },
		{ SH_FILL_MIXED, 2 * MiB + 300003 },
	};
	static const __u64 offs[] = { 0,
				      1,
				      4095,
				      12290,
				      2 * MiB - 300,
				      2 * MiB + 8190,
				      2 * MiB + 20480,
				      4 * MiB + 4000 };
	static const size_t lens[] = { 1, 7, 100, 4096, 30000, 70000 };
	unsigned char *buf = malloc(70000);
	enum wl_vimpl was = wl_vimpl__get();
	size_t pos[32];

	(void)state;
	assert_non_null(buf);
	for (int im = 0; im < WL_V_NR; im++) {
		if (wl_vimpl__set(im))
			continue;
		for (size_t fi = 0; fi < ARRAY_SIZE(files); fi++) {
			const struct sh_file *f = &files[fi];

			for (size_t o = 0; o < ARRAY_SIZE(offs); o++) {
				for (size_t l = 0; l < ARRAY_SIZE(lens); l++) {
					size_t len = lens[l];
					size_t n = flip_positions(len, pos);

					if (offs[o] + len > f->size)
						continue;
					sh_file__fill(f, offs[o], buf, len);
					assert_int_equal(
						sh_file__diff(f, offs[o], buf,
							      len),
						len);
					for (size_t k = 0; k < n; k++) {
						buf[pos[k]] ^= 0x10;
						assert_int_equal(
							sh_file__diff(f,
								      offs[o],
								      buf, len),
							pos[k]);
						buf[pos[k]] ^= 0x10;
					}
				}
			}
		}
	}
	assert_int_equal(wl_vimpl__set(was), 0);
	free(buf);
}

/*
 * The decoy cases of the sub-page matrices: a compare that reads each
 * destination chunk at the source's in-page offset (the first seed's
 * word loop) finds it equal to the source, while the real ranges differ:
 * the kernel must answer DIFFERS, and one with that bug answers SAME.
 * Page-sized blocks have no decoys (offsets in a page are all 0).
 */
static void test_decoys(void **state)
{
	static const __u32 sizes[] = { 1024, 2048, 4096 };
	struct dd_expect e;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		int decoys = 0;
		struct dd_plan p;

		dd_plan__init(&p, 4096);
		dd_plan__add_filesys(&p, WL_FSTYPE_XFS, sizes[i]);
		assert_int_equal(dd_plan__matrix(&p, 0), 0);
		for (int ci = 0; ci < p.ncases; ci++) {
			const struct dd_case *c = &p.cases[ci];
			const struct dd_file *src = &p.files[c->src];
			const struct dd_file *dst = &p.files[c->dest[0].file];
			__u64 so = c->src_off, dof = c->dest[0].off;
			__u64 len = c->len;
			bool fooled = true;

			if (strncmp(c->name, "decoy-", 6))
				continue;
			decoys++;
			assert_int_not_equal(so % 4096, dof % 4096);
			dd__expect(&p, c, 0, 0, &e);
			assert_int_equal(e.ioctl_err, 0);
			assert_int_equal(e.status, FILE_DEDUPE_RANGE_DIFFERS);
			assert_int_equal(e.cmp_len, c->len);
			while (len) {
				__u64 sp = so % 4096, dp = dof % 4096;
				__u64 n = 4096 - sp < 4096 - dp ? 4096 - sp
								: 4096 - dp;

				n = n < len ? n : len;
				fooled &= dd_file__equal(src, so, dst,
							 dof - dp + sp, n);
				so += n;
				dof += n;
				len -= n;
			}
			assert_true(fooled);
		}
		assert_int_equal(decoys, sizes[i] < 4096 ? 5 : 0);
		dd_plan__free(&p);
	}
}

/*
 * The poison a read's buffer holds before the call: no zero byte (a hole
 * read must write its zeros), a different byte stream per seed, and
 * wl_poison__diff finds the first byte the kernel changed, across its
 * 4 KiB steps.
 */
static void test_poison(void **state)
{
	enum { N = 3 * 4096 + 77 };
	unsigned char *a = malloc(N), *b = malloc(N);
	size_t same = 0;

	(void)state;
	wl_poison__fill(a, WL_POISON_BASE + 5, N);
	wl_poison__fill(b, WL_POISON_BASE + 5 + 4099, N);
	for (size_t i = 0; i < N; i++) {
		assert_int_not_equal(a[i], 0);
		assert_int_equal(a[i], wl_poison__byte(WL_POISON_BASE + 5, i));
		same += a[i] == b[i];
	}
	/* Another call's poison: at most a few bytes agree by chance. */
	assert_true(same < N / 16);
	assert_int_equal(wl_poison__diff(a, WL_POISON_BASE + 5, N), N);
	for (size_t at = 0; at < N; at += 4093) {
		a[at] ^= 0x40;
		assert_int_equal(wl_poison__diff(a, WL_POISON_BASE + 5, N), at);
		a[at] ^= 0x40;
	}
	/* A part of the buffer is checked with its own seed. */
	assert_int_equal(
		wl_poison__diff(a + 100, WL_POISON_BASE + 105, N - 100),
		N - 100);
	a[N - 1] = 0;
	assert_int_equal(wl_poison__diff(a, WL_POISON_BASE + 5, N), N - 1);
	free(a);
	free(b);
}

/* The answers dd__store_answers allows for src against dst (16 bytes at
 * file offset 100) with st racing. */
static void want_answers(const unsigned char *src, const unsigned char *dst,
			 const struct dd_store *st, bool same, bool differs)
{
	bool s, d;

	dd__store_answers(src, dst, 100, 16, st, &s, &d);
	assert_int_equal(s, same);
	assert_int_equal(d, differs);
}

/* A store racing a FIDEDUPERANGE: which answers some state allows. The
 * destination's range is 16 bytes at file offset 100. */
static void test_store_answers(void **state)
{
	unsigned char src[16], dst[16], w[4];
	struct dd_store st = { .off = 105, .len = 2, .bytes = w };

	(void)state;
	memset(src, 0x41, sizeof(src));
	memcpy(dst, src, sizeof(dst));
	/* Equal before, the store changes a byte: SAME (before it) or
	 * DIFFERS (after it). */
	w[0] = 0x41;
	w[1] = 0x7a;
	want_answers(src, dst, &st, true, true);
	/* A store that writes the source's bytes: equal in both states. */
	w[1] = 0x41;
	want_answers(src, dst, &st, true, false);
	/* Out of the range: the bytes before it decide alone. */
	st.off = 200;
	w[1] = 0x7a;
	want_answers(src, dst, &st, true, false);
	st.off = 105;
	/* Different at 105 and 106 before; the store makes 105 equal and
	 * 106 different still: DIFFERS in both states. */
	dst[5] = 0x00;
	dst[6] = 0x00;
	w[0] = 0x41;
	w[1] = 0x00;
	want_answers(src, dst, &st, false, true);
	/* It makes both equal: SAME after it, DIFFERS before. */
	w[1] = 0x41;
	want_answers(src, dst, &st, true, true);
	/* 105 equal only before the store, 106 only after: no whole state
	 * is equal for a pwrite; a torn store through a mapping (its 106
	 * in, its 105 not yet) leaves one that is. */
	dst[5] = 0x41;
	w[0] = 0x00;
	want_answers(src, dst, &st, false, true);
	st.torn = true;
	want_answers(src, dst, &st, true, true);
	/* A byte outside the store that differs: no state is equal. */
	dst[0] = 0x00;
	want_answers(src, dst, &st, false, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pattern_fill_matches_bytes),
		cmocka_unit_test(test_pattern_properties),
		cmocka_unit_test(test_diff_names),
		cmocka_unit_test(test_diff_pos),
		cmocka_unit_test(test_expect_same_and_differs),
		cmocka_unit_test(test_expect_geometry),
		cmocka_unit_test(test_expect_cap),
		cmocka_unit_test(test_file_fill),
		cmocka_unit_test(test_repeated_ranges),
		cmocka_unit_test(test_layout_and_answer),
		cmocka_unit_test(test_matrix),
		cmocka_unit_test(test_large_folio_layouts),
		cmocka_unit_test(test_custom_and_seed),
		cmocka_unit_test(test_sh_names),
		cmocka_unit_test(test_sh_pieces),
		cmocka_unit_test(test_sh_fill),
		cmocka_unit_test(test_sh_mem),
		cmocka_unit_test(test_sh_expect_and_plans),
		cmocka_unit_test(test_pattern_diff_impls),
		cmocka_unit_test(test_sh_diff),
		cmocka_unit_test(test_poison),
		cmocka_unit_test(test_decoys),
		cmocka_unit_test(test_store_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
