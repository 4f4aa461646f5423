// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * File I/O of the workloads: reads and writes of a whole buffer, and how
 * much of a file is in the page cache.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "workload/workload_internal.h"

int wl__pread_full(int fd, void *buf, size_t len, __u64 off)
{
	unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = pread(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int wl__pwrite_full(int fd, const void *buf, size_t len, __u64 off)
{
	const unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = pwrite(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int wl__cached_pages(int fd, __u64 size, __u64 *cached, __u64 *pages)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *vec = NULL;
	void *map = MAP_FAILED;
	int err = 0;

	*cached = 0;
	*pages = (size + page - 1) / page;
	if (!size)
		return 0;
	/* mincore on a shared file mapping reports the page cache, and
	 * never faults pages in itself. */
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	vec = malloc(*pages);
	if (!vec) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (mincore(map, size, vec)) {
		err = -errno;
		goto cleanup;
	}
	for (__u64 i = 0; i < *pages; i++)
		*cached += vec[i] & 1;
cleanup:
	free(vec);
	munmap(map, size);
	return err;
}
