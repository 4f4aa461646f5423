// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memcpybw: the machine's memcpy bandwidth for the copy a read makes,
 * the physical limit of any tmpfs read workload: BS-byte copies from a
 * SIZE-byte source (walked in order, like a file) into one BS-byte
 * buffer, for at least SECONDS.
 *
 *   memcpybw [-b BS] [-s SIZE] [-t SECONDS]
 *
 * Prints: bytes=N elapsed_ns=N bytes_per_s=X
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "batches.h"

int main(int argc, char **argv)
{
	size_t bs = 65536, size = 64 << 20, off = 0;
	unsigned long long t0, t, bytes = 0, limit;
	double secs = 0.5;
	char *src, *dst;
	int c;

	while ((c = getopt(argc, argv, "b:s:t:")) != -1) {
		switch (c) {
		case 'b':
			bs = strtoul(optarg, NULL, 0);
			break;
		case 's':
			size = strtoul(optarg, NULL, 0);
			break;
		case 't':
			secs = strtod(optarg, NULL);
			break;
		default:
			fprintf(stderr, "usage: memcpybw [-b BS] [-s SIZE] "
					"[-t SECONDS]\n");
			return 2;
		}
	}
	if (!bs || bs > size || secs <= 0) {
		fprintf(stderr, "memcpybw: need 0 < BS <= SIZE, SECONDS > 0\n");
		return 2;
	}
	src = malloc(size);
	dst = malloc(bs);
	if (!src || !dst)
		return 1;
	memset(src, 0x5a, size);
	memset(dst, 0, bs);
	limit = (unsigned long long)(secs * 1e9);
	t0 = batches__now();
	do {
		for (int i = 0; i < 64; i++) {
			memcpy(dst, src + off, bs);
			/* The copy must happen: dst escapes to the compiler. */
			__asm__ volatile("" : : "r"(dst) : "memory");
			off += bs;
			if (off + bs > size)
				off = 0;
			bytes += bs;
		}
		t = batches__now() - t0;
	} while (t < limit);
	printf("bytes=%llu elapsed_ns=%llu bytes_per_s=%.0f\n", bytes, t,
	       bytes * 1e9 / t);
	return 0;
}
