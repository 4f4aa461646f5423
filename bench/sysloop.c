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
 * median_ns_per_call=X (batches.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "batches.h"

#define BS 4096

int main(int argc, char **argv)
{
	const char *file = "/dev/zero", *what;
	unsigned long long calls = 20000, i = 0, t;
	static char buf[BS] __attribute__((aligned(4096)));
	int c, fd = -1, pread_mode;
	struct batches b;
	double q[3];

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
	if (batches__init(&b, calls))
		return 1;
	while (i + BATCH <= calls) {
		t = batches__now();
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
		batches__add(&b, batches__now() - t, BATCH);
		i += BATCH;
	}
	batches__quantiles(&b, q);
	printf("calls=%llu ", i);
	batches__print(stdout, q);
	putchar('\n');
	batches__free(&b);
	return 0;
}
