// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Writing the pattern and the poison (pattern.h), and the first byte of a
 * buffer that is not the poison. Pure: the unit tests pin it down.
 */
#include <endian.h>
#include <string.h>

#include "workload/pattern.h"

void wl_pattern__fill(void *buf, __u64 off, size_t len)
{
	unsigned char *p = buf;
	size_t i = 0;

	/* Byte by byte up to a word boundary of the file offset, then whole
	 * words: little-endian, so byte k of a word is bits 8k..8k+7, as in
	 * wl_pattern__byte. */
	for (; i < len && ((off + i) & 7); i++)
		p[i] = wl_pattern__byte(off + i);
	for (; i + 8 <= len; i += 8) {
		__u64 v = htole64(wl_pattern__word((off + i) >> 3));

		memcpy(p + i, &v, 8);
	}
	for (; i < len; i++)
		p[i] = wl_pattern__byte(off + i);
}

void wl_poison__fill(void *buf, __u64 seed, size_t len)
{
	unsigned char *p = buf;
	size_t i = 0;
	__u64 v;

	/* The pattern at an offset no file reaches, every byte with its low
	 * bit set: whole words after the word-aligned start. */
	wl_pattern__fill(buf, seed, len);
	for (; i < len && ((seed + i) & 7); i++)
		p[i] |= 1;
	for (; i + 8 <= len; i += 8) {
		memcpy(&v, p + i, 8);
		v |= 0x0101010101010101ULL;
		memcpy(p + i, &v, 8);
	}
	for (; i < len; i++)
		p[i] |= 1;
}

size_t wl_poison__diff(const void *buf, __u64 seed, size_t len)
{
	const unsigned char *p = buf;
	unsigned char want[4096];

	for (size_t done = 0; done < len;) {
		size_t n =
			len - done < sizeof(want) ? len - done : sizeof(want);
		size_t x;

		wl_poison__fill(want, seed + done, n);
		x = wl_bytes__first_diff(p + done, want, n);
		if (x < n)
			return done + x;
		done += n;
	}
	return len;
}

size_t wl_bytes__first_diff(const void *a, const void *b, size_t len)
{
	const unsigned char *x = a, *y = b;
	size_t i = 0;

	/* memcmp first: mismatches are rare, and it is fast. */
	if (!memcmp(a, b, len))
		return len;
	while (i < len && x[i] == y[i])
		i++;
	return i;
}

void wl_stale__fill(void *buf, size_t len)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = wl_stale__byte(i);
}

bool wl_stale__at(const void *buf, __u64 off, size_t len)
{
	const unsigned char *p = buf;
	size_t n = len < 4 ? len : 4;

	for (size_t i = 0; i < n; i++)
		if (p[i] != wl_stale__byte(off + i))
			return false;
	return n > 0;
}
