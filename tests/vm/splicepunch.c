// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A read through a pipe of an xfs file that a punch changes meanwhile, a
 * page away from the bytes the pipe holds (tests/vm/splice.sh):
 *
 *   splicepunch FILE warm|cold
 *
 * FILE gets 256 KiB of 0xaa in one pwrite: warm leaves the page cache as
 * the write made it; cold writes it back, drops it and reads it again
 * (readahead's folios). Then [0, 16 KiB) is spliced into a pipe that
 * nothing reads yet, 3 bytes at 8292 are punched out (xfs invalidates
 * the page cache over the whole page around them), and the pipe is read.
 * Every byte the pipe returns was 0xaa in the file when it was spliced,
 * and all but those 3 still are. Prints "N FIRST": how many of the
 * 16384 bytes are not 0xaa, and the first of them (-1: none).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>

#define SIZE (256 << 10)
#define SPLICED 16384

int main(int argc, char **argv)
{
	static unsigned char b[SIZE], got[SPLICED];
	loff_t off = 0;
	long first = -1, n = 0;
	int fd, p[2];

	if (argc != 3 || (strcmp(argv[2], "warm") && strcmp(argv[2], "cold"))) {
		fprintf(stderr, "usage: splicepunch FILE warm|cold\n");
		return 2;
	}
	memset(b, 0xaa, sizeof(b));
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || pwrite(fd, b, SIZE, 0) != SIZE || pipe(p)) {
		perror("splicepunch: the file");
		return 1;
	}
	if (!strcmp(argv[2], "cold") &&
	    (fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) ||
	     pread(fd, b, SIZE, 0) != SIZE)) {
		perror("splicepunch: read back cold");
		return 1;
	}
	if (splice(fd, &off, p[1], NULL, SPLICED, 0) != SPLICED) {
		perror("splicepunch: splice");
		return 1;
	}
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 8292,
		      3)) {
		perror("splicepunch: punch");
		return 1;
	}
	if (read(p[0], got, SPLICED) != SPLICED) {
		perror("splicepunch: read the pipe");
		return 1;
	}
	for (long i = 0; i < SPLICED; i++) {
		if (got[i] == 0xaa)
			continue;
		n++;
		if (first < 0)
			first = i;
	}
	printf("%ld %ld\n", n, first);
	return 0;
}
