// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dedupeloop: a tight loop of FIDEDUPERANGE ioctls on small ranges, the
 * dedupe overhead benchmark's workload. Creates DIR/dl.src and DIR/dl.dst
 * with identical contents (RANGE * 16 bytes, fsync'd), then dedupes range
 * i % 16 of the source onto the same range of the destination, CALLS
 * times. Each ioctl is one compare call (one destination).
 *
 *   dedupeloop -d DIR [-r RANGE] [-n CALLS] [-k]
 *
 * -k keeps the two files, and a later run with -k dedupes the same
 * ones: every loop then runs on the same inodes and the same shared
 * extents, instead of on new ones that btrfs places and indexes anew
 * (and frees, behind the next loop's back) each time.
 *
 * Prints: calls=N bytes=N elapsed_ns=N ns_per_call=X best_ns_per_call=X
 * p10_ns_per_call=X median_ns_per_call=X (batches.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "batches.h"

#define RANGES 16

static void die(const char *what)
{
	fprintf(stderr, "dedupeloop: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int make_file(const char *path, const char *buf, size_t size, int keep)
{
	struct stat sb;
	int fd;

	/* A kept file from an earlier run: its contents are checked by
	 * every dedupe's status. */
	fd = keep ? open(path, O_RDWR) : -1;
	if (fd >= 0 && !fstat(fd, &sb) && (size_t)sb.st_size == size)
		return fd;
	if (fd >= 0)
		close(fd);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("create");
	if (write(fd, buf, size) != (ssize_t)size || fsync(fd))
		die("write");
	return fd;
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	size_t range = 4096, size;
	unsigned long long calls = 2000, t0, t, i = 0;
	struct batches b;
	double q[3];
	char src[PATH_MAX], dst[PATH_MAX], *buf;
	struct {
		struct file_dedupe_range r;
		struct file_dedupe_range_info info;
	} req;
	int c, sfd, dfd, keep = 0;

	while ((c = getopt(argc, argv, "d:r:n:k")) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'r':
			range = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			calls = strtoull(optarg, NULL, 0);
			break;
		case 'k':
			keep = 1;
			break;
		default:
			fprintf(stderr, "usage: dedupeloop -d DIR [-r RANGE] "
					"[-n CALLS] [-k]\n");
			return 2;
		}
	}
	if (!dir || !range || !calls) {
		fprintf(stderr,
			"dedupeloop: need -d DIR, RANGE > 0, CALLS > 0\n");
		return 2;
	}
	size = range * RANGES;
	buf = malloc(size);
	if (!buf)
		die("malloc");
	for (size_t k = 0; k < size; k++)
		buf[k] = (char)(k * 2654435761u >> 24);
	snprintf(src, sizeof(src), "%s/dl.src", dir);
	snprintf(dst, sizeof(dst), "%s/dl.dst", dir);
	sfd = make_file(src, buf, size, keep);
	dfd = make_file(dst, buf, size, keep);
	if (batches__init(&b, calls))
		die("calloc");
	t0 = batches__now();
	while (i < calls) {
		unsigned long long n = calls - i < BATCH ? calls - i : BATCH;

		t = batches__now();
		for (unsigned long long j = 0; j < n; j++, i++) {
			memset(&req, 0, sizeof(req));
			req.r.src_offset = (i % RANGES) * range;
			req.r.src_length = range;
			req.r.dest_count = 1;
			req.info.dest_fd = dfd;
			req.info.dest_offset = req.r.src_offset;
			if (ioctl(sfd, FIDEDUPERANGE, &req))
				die("FIDEDUPERANGE");
			if (req.info.status != FILE_DEDUPE_RANGE_SAME) {
				fprintf(stderr,
					"dedupeloop: range %llu: status %d\n",
					i % RANGES, req.info.status);
				return 1;
			}
		}
		batches__add(&b, batches__now() - t, n);
	}
	t = batches__now() - t0;
	close(sfd);
	close(dfd);
	if (!keep) {
		unlink(src);
		unlink(dst);
	}
	batches__quantiles(&b, q);
	printf("calls=%llu bytes=%llu elapsed_ns=%llu ns_per_call=%.1f ", calls,
	       calls * range, t, (double)t / calls);
	batches__print(stdout, q);
	putchar('\n');
	batches__free(&b);
	return 0;
}
