// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The VM runner's work dirs "folioscope-vm-PID.XXXXXX" (fifos, the
 * initramfs, qemu's log) are removed when it ends, however it ends,
 * except by SIGKILL (qemu dies with it: PR_SET_PDEATHSIG). The next vm
 * removes the dirs whose PID is no live folioscope; see vm_internal.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "vm_internal.h"

int vm_stale__clean(const char *parent)
{
	char path[PATH_MAX];
	struct dirent *e;
	struct stat sb;
	int removed = 0;
	DIR *d;

	d = opendir(parent);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		long pid = tmpname__owner(e->d_name, VM_WORKDIR_TAG);

		if (!pid || owner__alive(pid))
			continue;
		/* A real dir of ours: never a symlink's target. */
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid())
			continue;
		if (vm_fs__fmt(path, sizeof(path), "%s/%s", parent, e->d_name))
			continue;
		if (tree__remove(path, 0)) {
			err__print("vm", 0,
				   "cannot remove '%s', left behind "
				   "by a vm that was killed",
				   path);
			continue;
		}
		removed++;
		err__print("vm", 0,
			   "removed '%s', left behind by a vm that "
			   "was killed",
			   path);
	}
	closedir(d);
	return removed;
}
