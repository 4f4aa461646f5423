// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory and space the workloads may use: /proc/meminfo values and the
 * checks that keep test files from filling the machine.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "workload/workload_internal.h"

/* The value of one "Key: N kB" line of /proc/meminfo; false if absent. */
static bool meminfo_kb(const char *key, __u64 *kb)
{
	unsigned long long v;
	size_t klen = strlen(key);
	bool found = false;
	char line[256];
	FILE *f;

	f = fopen("/proc/meminfo", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':' &&
		    sscanf(line + klen + 1, " %llu kB", &v) == 1)
			found = true;
	fclose(f);
	if (found)
		*kb = v;
	return found;
}

__u64 wl__shmem_huge_kb(void)
{
	__u64 kb = 0;

	meminfo_kb("ShmemHugePages", &kb);
	return kb;
}

__u64 wl__mem_available(void)
{
	struct sysinfo si;
	__u64 kb;

	if (meminfo_kb("MemAvailable", &kb))
		return kb << 10;
	/* Before 3.14 there is no MemAvailable: free RAM is the bound. */
	if (!sysinfo(&si))
		return (__u64)si.freeram * si.mem_unit;
	return 0;
}

int wl__check_mem(const char *wl, const char *what, __u64 need)
{
	__u64 avail = wl__mem_available();
	char hint[128];

	if (wl__mem_fits(need, avail))
		return 0;
	snprintf(hint, sizeof(hint),
		 "(needs %llu MiB of RAM, over half of MemAvailable %llu MiB)",
		 (unsigned long long)(need >> 20),
		 (unsigned long long)(avail >> 20));
	wl__err_hint(wl, -ENOMEM, hint, "%s", what);
	return -ENOMEM;
}

int wl__check_space(const char *wl, const char *where, __u64 need)
{
	struct statvfs sv;
	struct statfs sfs;
	__u64 avail;
	char hint[96], what[PATH_MAX + 48];

	if (statvfs(where, &sv) || statfs(where, &sfs))
		return 0; /* let the writes tell */
	avail = (__u64)sv.f_bavail * sv.f_frsize;
	if (need > avail) {
		snprintf(hint, sizeof(hint),
			 "(%llu MiB free; use --dir or fewer bytes)",
			 (unsigned long long)(avail >> 20));
		wl__err_hint(wl, -ENOSPC, hint,
			     "%llu MiB of test files in '%s'",
			     (unsigned long long)(need >> 20), where);
		return -ENOSPC;
	}
	/* In RAM (a tmpfs /tmp, a VM's rootfs), writing them pins memory. */
	if ((__u32)sfs.f_type != TMPFS_MAGIC &&
	    (__u32)sfs.f_type != RAMFS_MAGIC)
		return 0;
	snprintf(what, sizeof(what),
		 "%llu MiB of test files in RAM-backed '%s'",
		 (unsigned long long)(need >> 20), where);
	return wl__check_mem(wl, what, need);
}
