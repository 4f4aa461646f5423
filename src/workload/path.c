// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Paths and temp dirs of the workloads: joining a dir and a name, making
 * a temp dir, and removing files and dirs again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "workload/workload_internal.h"

int wl__path(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int wl__mkdtemp(const char *wl, const char *parent, const char *tag, char *out,
		size_t len)
{
	char name[64];
	int err;

	if (!parent) {
		parent = getenv("TMPDIR");
		if (!parent || !*parent)
			parent = "/tmp";
	}
	snprintf(name, sizeof(name), "folioscope-%s-XXXXXX", tag);
	err = wl__path(out, len, parent, name);
	if (err) {
		wl__err(wl, err, "temp dir in '%s'", parent);
		goto cleanup;
	}
	if (!mkdtemp(out)) {
		err = -errno;
		wl__err(wl, err, "temp dir in '%s'", parent);
	}
cleanup:
	if (err)
		out[0] = '\0';
	return err;
}

void wl__remove(const char *wl, const char *path, bool dir)
{
	int ret = dir ? rmdir(path) : unlink(path);

	if (ret && errno != ENOENT)
		wl__err(wl, -errno, "remove '%s'", path);
}
