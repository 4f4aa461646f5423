// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sysloop: the bystander benchmark's workload, syscalls a tracer does
 * not measure but may still tax.
 *
 *   sysloop getppid [-n CALLS]         getppid(2), which nothing traces
 *   sysloop pread [-f FILE] [-n CALLS] 4 KiB preads of FILE at offset 0
 *                                      (default /dev/zero: not tmpfs)
 *
 * Prints one line: calls=N best_ns_per_call=X p10_ns_per_call=X
 * median_ns_per_call=X, over batches of BATCH calls (the fastest
 * batches are the ones least disturbed by other load on a shared
 * machine).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define BATCH 50
#define BS 4096

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *file = "/dev/zero", *what;
	unsigned long long calls = 20000, i = 0, t;
	static char buf[BS] __attribute__((aligned(4096)));
	int c, fd = -1, nlat = 0, pread_mode;
	double *lat;

	if (argc < 2 ||
	    (strcmp(argv[1], "getppid") && strcmp(argv[1], "pread"))) {
		fprintf(stderr,
			"usage: sysloop getppid|pread [-f FILE] [-n CALLS]\n");
		return 2;
	}
	what = argv[1];
	pread_mode = !strcmp(what, "pread");
	optind = 2;
	while ((c = getopt(argc, argv, "f:n:")) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 'n':
			calls = strtoull(optarg, NULL, 0);
			break;
		default:
			return 2;
		}
	}
	if (calls < BATCH) {
		fprintf(stderr, "sysloop: need at least %d calls\n", BATCH);
		return 2;
	}
	if (pread_mode) {
		fd = open(file, O_RDONLY);
		if (fd < 0) {
			fprintf(stderr, "sysloop: %s: %s\n", file,
				strerror(errno));
			return 1;
		}
	}
	lat = calloc(calls / BATCH + 1, sizeof(*lat));
	if (!lat)
		return 1;
	while (i + BATCH <= calls) {
		t = now_ns();
		for (int j = 0; j < BATCH; j++) {
			if (!pread_mode) {
				/* The libc wrapper may not enter the kernel. */
				syscall(SYS_getppid);
			} else if (pread(fd, buf, BS, 0) != BS) {
				fprintf(stderr, "sysloop: short read of %s\n",
					file);
				return 1;
			}
		}
		lat[nlat++] = (double)(now_ns() - t) / BATCH;
		i += BATCH;
	}
	qsort(lat, nlat, sizeof(*lat), cmp_double);
	printf("calls=%llu best_ns_per_call=%.1f p10_ns_per_call=%.1f "
	       "median_ns_per_call=%.1f\n",
	       i, lat[0], lat[nlat / 10], lat[nlat / 2]);
	return 0;
}
