// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the versions of --ops' files under racing readers
 * (src/workload/ops_history.c): a window's view holds every version its
 * read could have seen and no other (torn writes and the zeros of a
 * truncate accepted, a byte of no version, of a version before the
 * window or after it refused), the lengths a read may return (exact
 * with one version), the loop device's EIO past a shrunk end, and the
 * records freed once no reader needs them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "workload/ops_history.h"
#include "workload/pattern.h"

#define NF WL_OPS_NFILES

struct fixture {
	struct wl_shadow files[NF];
	struct wl_history h;
	struct wl_hist_view v;
	__u32 index;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	for (int i = 0; i < NF; i++) {
		f->files[i].b = calloc(1, WL_OPS_MAX_SIZE);
		assert_non_null(f->files[i].b);
	}
	assert_int_equal(wl_hist__init(&f->h, f->files, NF, 1ULL << 30), 0);
	f->v.base = malloc(WL_OPS_MAX_LEN);
	assert_non_null(f->v.base);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	wl_hist__free(&f->h);
	for (int i = 0; i < NF; i++)
		free(f->files[i].b);
	free(f->v.base);
	free(f->v.recs);
	free(f);
	return 0;
}

/* The mutator runs op: its calls begin, then what they did. */
static void mutate(struct fixture *f, enum wl_op_kind kind, __u32 file,
		   __u64 off, __u64 len)
{
	struct wl_op op = {
		.kind = kind, .file = file, .off = off, .len = len
	};

	wl_hist__begin(&f->h, &op, f->index);
	wl_hist__apply(&f->h, f->files, &op, 7, f->index, 0);
	f->index++;
}

static void view(struct fixture *f, __u64 k0, __u64 k1, __u32 file, __u64 off,
		 __u64 len)
{
	f->v.file = file;
	f->v.off = off;
	f->v.len = len;
	f->v.sector = 0;
	assert_int_equal(wl_hist__view(&f->h, k0, k1, &f->v), 0);
}

static void test_torn_write_and_no_version(void **state)
{
	struct fixture *f = *state;
	unsigned char *v1 = malloc(8192), *v2 = malloc(8192), buf[8192];
	__u64 k0;

	assert_non_null(v1);
	assert_non_null(v2);
	mutate(f, OPK_PWRITE, 0, 0, 8192); /* version 1 */
	memcpy(v1, f->files[0].b, 8192);
	assert_true(wl_hist__read_begin(&f->h, 0, 0, &k0));
	assert_int_equal(k0, 1);
	mutate(f, OPK_PWRITE, 0, 4096, 4096); /* version 2 */
	memcpy(v2, f->files[0].b, 8192);
	assert_memory_not_equal(v1 + 4096, v2 + 4096, 4096);
	view(f, k0, 2, 0, 0, 8192);
	assert_int_equal(f->v.nrecs, 1);
	/* Either version whole, and a write seen half done. */
	assert_int_equal(wl_hist_view__diff(&f->v, 0, v1, 8192), 8192);
	assert_int_equal(wl_hist_view__diff(&f->v, 0, v2, 8192), 8192);
	memcpy(buf, v1, 6000);
	memcpy(buf + 6000, v2 + 6000, 8192 - 6000);
	assert_int_equal(wl_hist_view__diff(&f->v, 0, buf, 8192), 8192);
	/* A byte no version held, where the write changed bytes and where
	 * it did not. */
	buf[5000] = (unsigned char)(v1[5000] ^ v2[5000] ^ 0x5a);
	if (buf[5000] == v1[5000] || buf[5000] == v2[5000])
		buf[5000] ^= 0x80;
	assert_int_equal(wl_hist_view__diff(&f->v, 0, buf, 8192), 5000);
	memcpy(buf, v2, 8192);
	buf[100] ^= 0xff;
	assert_int_equal(wl_hist_view__diff(&f->v, 0, buf, 8192), 100);
	/* The newest version's byte is what the report shows first. */
	assert_int_equal(wl_hist_view__byte(&f->v, 5000), v2[5000]);
	wl_hist__read_done(&f->h, 0, &f->v);
	free(v1);
	free(v2);
}

static void test_window_bounds(void **state)
{
	struct fixture *f = *state;
	unsigned char v1[4096], v2[4096], v3[4096], v4[4096];
	__u64 k0;

	mutate(f, OPK_PWRITE, 0, 0, 4096); /* 1 */
	memcpy(v1, f->files[0].b, 4096);
	mutate(f, OPK_PWRITE, 0, 0, 4096); /* 2 */
	memcpy(v2, f->files[0].b, 4096);
	assert_true(wl_hist__read_begin(&f->h, 0, 0, &k0));
	mutate(f, OPK_PWRITE, 0, 0, 4096); /* 3 */
	memcpy(v3, f->files[0].b, 4096);
	mutate(f, OPK_PWRITE, 0, 0, 4096); /* 4: after the call returned */
	memcpy(v4, f->files[0].b, 4096);
	view(f, k0, 3, 0, 0, 4096);
	assert_int_equal(f->v.k0, 2);
	assert_int_equal(f->v.nrecs, 1);
	/* Versions 2 and 3 only: not 1, before the window, nor 4, made
	 * after the call returned (undone from the newest). */
	assert_int_equal(wl_hist_view__diff(&f->v, 0, v2, 4096), 4096);
	assert_int_equal(wl_hist_view__diff(&f->v, 0, v3, 4096), 4096);
	assert_true(wl_hist_view__diff(&f->v, 0, v1, 4096) < 4096);
	assert_true(wl_hist_view__diff(&f->v, 0, v4, 4096) < 4096);
	/* One version in the window: exact. */
	view(f, 3, 3, 0, 0, 4096);
	assert_int_equal(f->v.nrecs, 0);
	assert_int_equal(wl_hist_view__diff(&f->v, 0, v3, 4096), 4096);
	assert_true(wl_hist_view__diff(&f->v, 0, v2, 4096) < 4096);
	wl_hist__read_done(&f->h, 0, &f->v);
}

static void test_truncate_zeros_and_lengths(void **state)
{
	struct fixture *f = *state;
	unsigned char buf[8192];
	__u64 k0;

	mutate(f, OPK_PWRITE, 1, 0, 8192); /* 1: size 8192 */
	assert_true(wl_hist__read_begin(&f->h, 0, 0, &k0));
	mutate(f, OPK_TRUNCATE, 1, 100, 0); /* 2: size 100 */
	view(f, k0, 2, 1, 0, 8192);
	assert_int_equal(f->v.size_min, 100);
	assert_int_equal(f->v.size_max, 8192);
	/* A reader that sampled the old size copies zeros past the new
	 * one: permitted; the old bytes too. */
	memcpy(buf, f->files[1].b, 8192);
	assert_int_equal(wl_hist_view__diff(&f->v, 0, buf, 8192), 8192);
	/* Lengths: either end, or any stop at or past an end it saw (the
	 * size dropped under it), never past the largest. */
	assert_true(wl_hist_view__ret_ok(&f->v, 8192, false));
	assert_true(wl_hist_view__ret_ok(&f->v, 100, false));
	assert_true(wl_hist_view__ret_ok(&f->v, 4096, false));
	assert_false(wl_hist_view__ret_ok(&f->v, 50, false));
	assert_false(wl_hist_view__ret_ok(&f->v, 0, false));
	/* A pipe's worth may end anywhere. */
	assert_true(wl_hist_view__ret_ok(&f->v, 50, true));
	/* One version (size 100): exactly min(len, size - off). */
	view(f, 2, 2, 1, 0, 8192);
	assert_true(wl_hist_view__ret_ok(&f->v, 100, false));
	assert_false(wl_hist_view__ret_ok(&f->v, 4096, false));
	assert_false(wl_hist_view__ret_ok(&f->v, 8192, false));
	assert_false(wl_hist_view__ret_ok(&f->v, 99, false));
	/* Zeros past the old size where no version had its end: refused
	 * in a window of size 8192 alone. */
	view(f, 1, 1, 1, 0, 8192);
	memset(buf, 0, sizeof(buf));
	{
		size_t nz = 0;

		while (nz < 8192 && !f->v.base[nz])
			nz++;
		assert_true(nz < 100);
		assert_int_equal(wl_hist_view__diff(&f->v, 0, buf, 8192), nz);
	}
	assert_false(wl_hist_view__ret_ok(&f->v, 100, false));
	wl_hist__read_done(&f->h, 0, &f->v);
}

static void test_loop_eio(void **state)
{
	struct fixture *f = *state;
	__u64 k0;

	mutate(f, OPK_PWRITE, 2, 0, 16384); /* 1 */
	assert_true(wl_hist__read_begin(&f->h, 0, 0, &k0));
	mutate(f, OPK_TRUNCATE, 2, 1000, 0); /* 2 */
	view(f, k0, 2, 2, 4096, 4096);
	f->v.sector = 512;
	assert_true(wl_hist_view__err_ok(&f->v, EIO));
	/* ... or zeros for the whole request, below the new end too. */
	{
		unsigned char z[4096] = { 0 };
		__u64 nz = 0;

		while (nz < 1000 && !f->files[2].b[nz])
			nz++;
		assert_true(nz < 1000);
		assert_int_equal(wl_hist_view__diff(&f->v, 4096, z, 4096),
				 4096);
		view(f, k0, 2, 2, 0, 4096);
		f->v.sector = 512;
		assert_int_equal(wl_hist_view__diff(&f->v, 0, z, 4096), 4096);
		f->v.sector = 0;
		assert_int_equal(wl_hist_view__diff(&f->v, 0, z, 4096), nz);
		/* Past the smallest end (1000), any byte; below it, a
		 * byte no version held is still refused. */
		memset(z, 0x5a, sizeof(z));
		f->v.sector = 512;
		assert_int_equal(
			wl_hist_view__diff(&f->v, 1000, z + 1000, 3096), 3096);
		memcpy(z, f->v.base, 1000);
		z[999] ^= 0xff;
		assert_int_equal(wl_hist_view__diff(&f->v, 0, z, 4096), 999);
		view(f, k0, 2, 2, 4096, 4096);
		f->v.sector = 512;
	}
	assert_false(wl_hist_view__err_ok(&f->v, EINVAL));
	/* Not for another way, nor where the file kept its end. */
	f->v.sector = 0;
	assert_false(wl_hist_view__err_ok(&f->v, EIO));
	view(f, 1, 1, 2, 4096, 4096);
	f->v.sector = 512;
	assert_false(wl_hist_view__err_ok(&f->v, EIO));
	wl_hist__read_done(&f->h, 0, &f->v);
}

static void test_records_freed(void **state)
{
	struct fixture *f = *state;
	__u64 k0;

	mutate(f, OPK_PWRITE, 0, 0, 4096);
	/* No reader: nothing kept. */
	assert_int_equal(f->h.nrec, 0);
	assert_int_equal(f->h.kept_bytes, 0);
	assert_true(wl_hist__read_begin(&f->h, 3, 0, &k0));
	mutate(f, OPK_PWRITE, 0, 0, 4096);
	mutate(f, OPK_PUNCH, 0, 0, 100);
	/* A fallocate changes no byte: a record with none kept. */
	mutate(f, OPK_FALLOC, 0, 0, 65536);
	assert_int_equal(f->h.nrec, 3);
	assert_int_equal(f->h.kept_bytes, 4096 + 100);
	/* A read or a dedupe begins no version. */
	mutate(f, OPK_READ, 0, 0, 100);
	mutate(f, OPK_DEDUPE, 0, 0, 100);
	assert_int_equal(f->h.started, 4);
	assert_int_equal(f->h.committed, 4);
	wl_hist__read_done(&f->h, 3, &f->v);
	assert_int_equal(f->h.nrec, 0);
	assert_int_equal(f->h.kept_bytes, 0);
	/* Stopped: no read begins. */
	wl_hist__stop(&f->h);
	assert_false(wl_hist__read_begin(&f->h, 0, 0, &k0));
}

/* A store lost by a remap: its bytes a version, then the bytes before
 * it again, both made at once. A read whose window spans them may see
 * either; one that begins after them sees only the bytes the file went
 * back to. */
static void test_lost_store(void **state)
{
	struct fixture *f = *state;
	unsigned char before[4096], stored[4096], buf[4096];
	struct wl_op st = { .kind = OPK_PWRITE,
			    .file = 2,
			    .off = 0,
			    .len = 4096,
			    .base = 777 };
	__u64 k0;

	mutate(f, OPK_PWRITE, 2, 0, 4096); /* 1 */
	memcpy(before, f->files[2].b, 4096);
	assert_true(wl_hist__read_begin(&f->h, 0, 0, &k0));
	assert_int_equal(k0, 1);
	wl_hist__begin(&f->h, &st, f->index);
	wl_hist__apply_lost(&f->h, f->files, &st, 7, f->index);
	f->index++;
	/* Versions 2 (the store) and 3 (without it); the shadow is 3's. */
	assert_int_equal(f->h.committed, 3);
	assert_memory_equal(f->files[2].b, before, 4096);
	view(f, k0, 3, 2, 0, 4096);
	assert_int_equal(f->v.nrecs, 2);
	wl_pattern__fill(stored, 777, 4096);
	assert_memory_not_equal(stored, before, 4096);
	assert_int_equal(wl_hist_view__diff(&f->v, 0, before, 4096), 4096);
	assert_int_equal(wl_hist_view__diff(&f->v, 0, stored, 4096), 4096);
	wl_hist__read_done(&f->h, 0, &f->v);
	/* Begun after: the bytes before the store only. */
	assert_true(wl_hist__read_begin(&f->h, 0, 1, &k0));
	assert_int_equal(k0, 3);
	view(f, k0, 3, 2, 0, 4096);
	assert_int_equal(wl_hist_view__diff(&f->v, 0, before, 4096), 4096);
	memcpy(buf, before, 4096);
	memcpy(buf, stored, 100);
	assert_true(wl_hist_view__diff(&f->v, 0, buf, 4096) < 100);
	wl_hist__read_done(&f->h, 0, &f->v);
}

/*
 * xfs drops the page cache over a punch rounded out to pages, and the
 * part of a large folio it drops is zeroed while a pipe may hold it: a
 * read by a way that holds folios may return those zeros when the drop
 * began during the read, and no other read may.
 */
static void test_held_drop_zeros(void **state)
{
	struct fixture *f = *state;
	unsigned char buf[4 * 4096], before[4 * 4096];
	size_t held = 0;
	struct wl_op punch = {
		.kind = OPK_PUNCH, .file = 3, .off = 8292, .len = 3
	};
	__u64 k0;

	mutate(f, OPK_PWRITE, 3, 0, sizeof(buf)); /* 1 */
	memcpy(before, f->files[3].b, sizeof(before));
	/* A drop begun before the read does not count. */
	wl_hist__inval(&f->h, 3, 100, 103, 4096);
	assert_true(wl_hist__read_begin(&f->h, 0, 0, &k0));
	wl_hist__begin(&f->h, &punch, f->index);
	wl_hist__inval(&f->h, 3, punch.off, punch.off + punch.len, 4096);
	/* And one of another file. */
	wl_hist__inval(&f->h, 2, 8192, 8193, 4096);
	wl_hist__apply(&f->h, f->files, &punch, 7, f->index++, 0); /* 2 */
	/* The pipe returned zeros over the whole page of the punch: 8192
	 * .. 12287, of which only 8292 .. 8294 were ever zeros. */
	memcpy(buf, f->files[3].b, sizeof(buf));
	memset(buf + 8192, 0, 4096);
	f->v.holds_folios = true;
	f->v.file = 3;
	f->v.off = 0;
	f->v.len = sizeof(buf);
	f->v.sector = 0;
	assert_int_equal(wl_hist__read_end(&f->h, 0, k0, &f->v), 0);
	assert_int_equal(f->v.nheld, 1);
	assert_int_equal(f->v.held[0].lo, 8192);
	assert_int_equal(f->v.held[0].hi, 12288);
	assert_int_equal(wl_hist_view__diff(&f->v, 0, buf, sizeof(buf)),
			 sizeof(buf));
	/* Counted: the zeros no version held (the punched bytes, and the
	 * pattern's own zeros, were zeros in a version). */
	for (int i = 8192; i < 12288; i++)
		held += before[i] && f->files[3].b[i];
	assert_true(held > 4000);
	assert_int_equal(wl_hist_view__held_zeros(&f->v, 0, buf, sizeof(buf)),
			 held);
	/* A zero past the page, or in the page of the earlier drop: no
	 * version held it, no drop of the read explains it. */
	buf[12288] = 0;
	if (f->files[3].b[12288])
		assert_int_equal(wl_hist_view__diff(&f->v, 0, buf, sizeof(buf)),
				 12288);
	buf[12288] = f->files[3].b[12288];
	buf[100] = 0;
	if (f->files[3].b[100])
		assert_int_equal(wl_hist_view__diff(&f->v, 0, buf, sizeof(buf)),
				 100);
	buf[100] = f->files[3].b[100];
	wl_hist__read_done(&f->h, 0, &f->v);
	/* The same read by a way that copies under the filesystem's lock
	 * (read, pread): the zeros are bytes no version held. */
	assert_true(wl_hist__read_begin(&f->h, 0, 1, &k0));
	wl_hist__inval(&f->h, 3, punch.off, punch.off + punch.len, 4096);
	f->v.holds_folios = false;
	assert_int_equal(wl_hist__read_end(&f->h, 0, k0, &f->v), 0);
	assert_int_equal(f->v.nheld, 0);
	assert_true(wl_hist_view__diff(&f->v, 0, buf, sizeof(buf)) < 8292);
	assert_int_equal(wl_hist_view__held_zeros(&f->v, 0, buf, sizeof(buf)),
			 0);
	wl_hist__read_done(&f->h, 0, &f->v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_torn_write_and_no_version,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_window_bounds, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_truncate_zeros_and_lengths,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop_eio, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_store, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_records_freed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_held_drop_zeros, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
