// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "workload/safedir.h"
#include "util/err.h"

int wl__check_dir(const char *wl, const char *opt, const char *dir)
{
	const char *why = NULL;
	struct stat sb;
	int err = 0;

	if (lstat(dir, &sb)) {
		err = -errno;
		why = strerror(errno);
	} else if (S_ISLNK(sb.st_mode)) {
		err = -ELOOP;
		why = "a symlink; give the directory itself";
	} else if (!S_ISDIR(sb.st_mode)) {
		err = -ENOTDIR;
		why = strerror(ENOTDIR);
	} else if (sb.st_uid != geteuid()) {
		err = -EPERM;
		why = "owned by another user; use a directory you own";
	}
	if (err)
		err__print(NULL, 0, "run %s: %s '%s': %s", wl, opt, dir, why);
	return err;
}
