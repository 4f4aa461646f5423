// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sysloop: the bystander benchmark's workload, syscalls a tracer does
 * not measure but may still tax.
 *
 *   sysloop getppid [-n CALLS]         getppid(2), which nothing traces
 *   sysloop pread [-f FILE] [-n CALLS] 4 KiB preads of FILE at offset 0
 *                                      (default /dev/zero: not tmpfs)
 *   sysloop migrate [-n CALLS]         sched_setaffinity(2) to the other
 *                                      of two CPUs: one migration per call,
 *                                      which the scheduler's
 *                                      sched_migrate_task tracepoint sees
 *                                      (exit 3 with one CPU: nothing to
 *                                      move to)
 *
 * Prints one line: calls=N best_ns_per_call=X p10_ns_per_call=X
 * median_ns_per_call=X (batches.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "batches.h"

#define BS 4096

enum mode { GETPPID, PREAD, MIGRATE };

/* The first two CPUs this thread may run on: 0, or -1 with one. */
static int two_cpus(int cpu[2])
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	return n == 2 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "getppid", "pread", "migrate" };
	const char *file = "/dev/zero";
	unsigned long long calls = 20000, i = 0, t, k = 0;
	static char buf[BS] __attribute__((aligned(4096)));
	cpu_set_t on[2];
	int c, fd = -1, cpu[2];
	enum mode mode = GETPPID;
	struct batches b;
	double q[3];

	while (argc >= 2 && mode <= MIGRATE && strcmp(argv[1], names[mode]))
		mode++;
	if (argc < 2 || mode > MIGRATE) {
		fprintf(stderr,
			"usage: sysloop getppid|pread|migrate [-f FILE] "
			"[-n CALLS]\n");
		return 2;
	}
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
	if (mode == MIGRATE) {
		if (two_cpus(cpu)) {
			fprintf(stderr, "sysloop: migrate needs two CPUs\n");
			return 3;
		}
		for (int j = 0; j < 2; j++) {
			CPU_ZERO(&on[j]);
			CPU_SET(cpu[j], &on[j]);
		}
	}
	if (mode == PREAD) {
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
			if (mode == GETPPID) {
				/* The libc wrapper may not enter the kernel. */
				syscall(SYS_getppid);
			} else if (mode == MIGRATE) {
				/* Pinned to the CPU it is not on: moved now. */
				if (sched_setaffinity(0, sizeof(on[0]),
						      &on[k++ & 1])) {
					perror("sysloop: sched_setaffinity");
					return 1;
				}
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
