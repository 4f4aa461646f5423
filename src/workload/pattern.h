/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The bytes the workloads write and the bytes a read's buffer holds
 * before the call, defined once: every file's data, every expected byte
 * and every in-place check derive from wl_pattern__word.
 *
 *   pattern  the byte at file offset off; files hold it at off + a
 *            shift of their own (dedupe, --ops writes)
 *   poison   the pattern at offsets past any file, every byte odd: what
 *            a read's buffer holds before the call, so a byte the kernel
 *            did not write is told from one it wrote
 *
 * pattern.c writes them and finds the first byte that is not the poison;
 * pattern_diff.c finds the first byte that is not the pattern, or not
 * zero, in place (vector code where the CPU has it).
 */
#ifndef FS_WORKLOAD_PATTERN_H
#define FS_WORKLOAD_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* Word w of the pattern (bytes 8w .. 8w + 7, little-endian): a
 * golden-ratio hash of w + 1, folded. No zero runs, and a misplaced
 * block shows up as a mismatch. Consecutive words' products differ by
 * WL_PATTERN_K, which the vector checks step by. */
#define WL_PATTERN_K 0x9e3779b97f4a7c15ULL

static inline __u64 wl_pattern__fold(__u64 v)
{
	return v ^ (v >> 32);
}

static inline __u64 wl_pattern__word(__u64 w)
{
	return wl_pattern__fold((w + 1) * WL_PATTERN_K);
}

/* The byte at file offset off. */
static inline unsigned char wl_pattern__byte(__u64 off)
{
	return (unsigned char)(wl_pattern__word(off >> 3) >> ((off & 7) * 8));
}

/* buf[i] = wl_pattern__byte(off + i), a word at a time where it can. */
void wl_pattern__fill(void *buf, __u64 off, size_t len);

/*
 * The poison of seed: never zero (a hole read must write its zeros), and
 * different for each seed. WL_POISON_BASE puts seeds past any file
 * offset, so the poison is not the data that belongs there.
 */
#define WL_POISON_BASE (1ULL << 50)

static inline unsigned char wl_poison__byte(__u64 seed, __u64 i)
{
	return wl_pattern__byte(seed + i) | 1;
}

void wl_poison__fill(void *buf, __u64 seed, size_t len);
/* The first byte of buf[0..len) that is not the poison of seed, or len. */
size_t wl_poison__diff(const void *buf, __u64 seed, size_t len);

/*
 * Stale memory: what a run writes into memory it then frees right before
 * it fallocates, so that a kernel that hands out a page it did not zero
 * hands out this. Every 8-byte word is "STALE!!!": no file's pattern and
 * no poison holds it, and a page keeps its word alignment wherever it is
 * mapped.
 */
static inline unsigned char wl_stale__byte(__u64 off)
{
	return (unsigned char)"STALE!!!"[off & 7];
}

void wl_stale__fill(void *buf, size_t len);
/* Do the bytes of buf[0..len) (at file offset off) from its first on,
 * four of them where there are, hold stale memory? */
bool wl_stale__at(const void *buf, __u64 off, size_t len);

/* First index where a and b differ, or len. */
size_t wl_bytes__first_diff(const void *a, const void *b, size_t len);

/*
 * In place (pattern_diff.c): the offset of the first byte of buf[0..len)
 * that is not the pattern at file offset off (not zero, for
 * wl_zero__diff), or len. The fastest implementation the CPU has is used
 * unless one is set (the unit tests run each).
 */
enum wl_vimpl { WL_V_PLAIN, WL_V_SSE2, WL_V_AVX2, WL_V_NR };
bool wl_vimpl__supported(enum wl_vimpl i);
/* Use implementation i from now on; -1 if this CPU lacks it. */
int wl_vimpl__set(enum wl_vimpl i);
enum wl_vimpl wl_vimpl__get(void);
size_t wl_pattern__diff(const void *buf, __u64 off, size_t len);
size_t wl_pattern__diff_with(enum wl_vimpl impl, const void *buf, __u64 off,
			     size_t len);
size_t wl_zero__diff(const void *buf, size_t len);
size_t wl_zero__diff_with(enum wl_vimpl impl, const void *buf, size_t len);

#endif /* FS_WORKLOAD_PATTERN_H */
