// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Checking read data against the pattern without writing the expected
 * bytes out first: the pattern's words are (w + 1) * K folded
 * (pattern.h), so the next word's product is the previous one plus K and
 * a vector of them steps by one add. AVX2 (4 words per step) or SSE2 (2)
 * where the CPU has them, chosen once at run time; a plain word loop
 * elsewhere. Every implementation answers the same: the first byte that
 * differs.
 */
#include <endian.h>
#include <string.h>
#include "workload/pattern.h"
#ifdef __x86_64__
#include <immintrin.h>
#endif

static inline __u64 load64(const unsigned char *p)
{
	__u64 v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/*
 * Words [0, n) of p against the pattern from word index w: the index of
 * the first word that may differ (a vector step with a difference), or
 * n. The caller finds the exact byte from there with the plain loop.
 */
typedef size_t (*words_fn)(const unsigned char *p, __u64 w, size_t n);
/* The same for zeros. */
typedef size_t (*zeros_fn)(const unsigned char *p, size_t n);

static size_t words_plain(const unsigned char *p, __u64 w, size_t n)
{
	__u64 v = (w + 1) * WL_PATTERN_K;
	size_t i;

	for (i = 0; i < n; i++, v += WL_PATTERN_K)
		if (load64(p + i * 8) != wl_pattern__fold(v))
			break;
	return i;
}

static size_t zeros_plain(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (load64(p + i * 8))
			break;
	return i;
}

#ifdef __x86_64__
static size_t words_sse2(const unsigned char *p, __u64 w, size_t n)
{
	const __m128i step = _mm_set1_epi64x((long long)(2 * WL_PATTERN_K));
	__m128i v = _mm_set_epi64x((long long)((w + 2) * WL_PATTERN_K),
				   (long long)((w + 1) * WL_PATTERN_K));
	size_t i;

	for (i = 0; i + 2 <= n; i += 2) {
		__m128i e = _mm_xor_si128(v, _mm_srli_epi64(v, 32));
		__m128i x = _mm_loadu_si128((const __m128i *)(p + i * 8));

		if (_mm_movemask_epi8(_mm_cmpeq_epi8(e, x)) != 0xffff)
			break;
		v = _mm_add_epi64(v, step);
	}
	return i;
}

static size_t zeros_sse2(const unsigned char *p, size_t n)
{
	const __m128i z = _mm_setzero_si128();
	size_t i;

	for (i = 0; i + 2 <= n; i += 2) {
		__m128i x = _mm_loadu_si128((const __m128i *)(p + i * 8));

		if (_mm_movemask_epi8(_mm_cmpeq_epi8(x, z)) != 0xffff)
			break;
	}
	return i;
}

/* Two vectors (8 words, 64 bytes) per step: one test for both. */
__attribute__((target("avx2"))) static size_t words_avx2(const unsigned char *p,
							 __u64 w, size_t n)
{
	const __m256i step = _mm256_set1_epi64x((long long)(8 * WL_PATTERN_K));
	__m256i a = _mm256_set_epi64x((long long)((w + 4) * WL_PATTERN_K),
				      (long long)((w + 3) * WL_PATTERN_K),
				      (long long)((w + 2) * WL_PATTERN_K),
				      (long long)((w + 1) * WL_PATTERN_K));
	__m256i b = _mm256_add_epi64(
		a, _mm256_set1_epi64x((long long)(4 * WL_PATTERN_K)));
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		__m256i xa = _mm256_loadu_si256((const __m256i *)(p + i * 8));
		__m256i xb =
			_mm256_loadu_si256((const __m256i *)(p + i * 8 + 32));
		__m256i da = _mm256_xor_si256(
			xa, _mm256_xor_si256(a, _mm256_srli_epi64(a, 32)));
		__m256i db = _mm256_xor_si256(
			xb, _mm256_xor_si256(b, _mm256_srli_epi64(b, 32)));
		__m256i d = _mm256_or_si256(da, db);

		if (!_mm256_testz_si256(d, d))
			break;
		a = _mm256_add_epi64(a, step);
		b = _mm256_add_epi64(b, step);
	}
	return i;
}

__attribute__((target("avx2"))) static size_t zeros_avx2(const unsigned char *p,
							 size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		__m256i d = _mm256_or_si256(
			_mm256_loadu_si256((const __m256i *)(p + i * 8)),
			_mm256_loadu_si256((const __m256i *)(p + i * 8 + 32)));

		if (!_mm256_testz_si256(d, d))
			break;
	}
	return i;
}
#endif

static const struct {
	words_fn words;
	zeros_fn zeros;
} impls[WL_V_NR] = {
	[WL_V_PLAIN] = { words_plain, zeros_plain },
#ifdef __x86_64__
	[WL_V_SSE2] = { words_sse2, zeros_sse2 },
	[WL_V_AVX2] = { words_avx2, zeros_avx2 },
#endif
};

/* -1: not chosen yet. */
static int active = -1;

bool wl_vimpl__supported(enum wl_vimpl i)
{
	if (i >= WL_V_NR || !impls[i].words)
		return false;
#ifdef __x86_64__
	if (i == WL_V_AVX2) {
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx2");
	}
#endif
	return true;
}

int wl_vimpl__set(enum wl_vimpl i)
{
	if (!wl_vimpl__supported(i))
		return -1;
	__atomic_store_n(&active, (int)i, __ATOMIC_RELAXED);
	return 0;
}

enum wl_vimpl wl_vimpl__get(void)
{
	int i = __atomic_load_n(&active, __ATOMIC_RELAXED);

	if (i >= 0)
		return i;
	/* Fastest first. Readers racing here pick the same answer. */
	for (i = WL_V_NR - 1; i > 0 && !wl_vimpl__supported(i); i--)
		;
	__atomic_store_n(&active, i, __ATOMIC_RELAXED);
	return i;
}

size_t wl_pattern__diff_with(enum wl_vimpl impl, const void *buf, __u64 off,
			     size_t len)
{
	const unsigned char *p = buf;
	size_t i = 0, n, k;
	__u64 w;

	/* Bytes up to a word boundary of the file offset. */
	for (; i < len && ((off + i) & 7); i++)
		if (p[i] != wl_pattern__byte(off + i))
			return i;
	w = (off + i) >> 3;
	n = (len - i) / 8;
	k = impls[impl].words(p + i, w, n);
	/* From the first suspect word: the plain loop, to the exact word. */
	k += words_plain(p + i + k * 8, w + k, n - k);
	i += k * 8;
	/* The first differing word's first differing byte, or the tail. */
	for (; i < len; i++)
		if (p[i] != wl_pattern__byte(off + i))
			return i;
	return len;
}

size_t wl_pattern__diff(const void *buf, __u64 off, size_t len)
{
	return wl_pattern__diff_with(wl_vimpl__get(), buf, off, len);
}

size_t wl_zero__diff_with(enum wl_vimpl impl, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t n = len / 8, k, i;

	k = impls[impl].zeros(p, n);
	k += zeros_plain(p + k * 8, n - k);
	for (i = k * 8; i < len; i++)
		if (p[i])
			return i;
	return len;
}

size_t wl_zero__diff(const void *buf, size_t len)
{
	return wl_zero__diff_with(wl_vimpl__get(), buf, len);
}
