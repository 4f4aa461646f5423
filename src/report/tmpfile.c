// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The temp files of atomic exports, named so that the next export of the
 * same file can tell its own kind from anything else in the directory and
 * its owner from other processes: "DIR/.BASE.folioscope-PID.XXXXXX".
 * A SIGKILL between mkstemp and rename leaves one; it is removed only
 * when it is a regular file of ours whose PID is no live folioscope.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "report/report.h"
#include "util/fs.h"
#include "util/err.h"

#define TMP_TAG ".folioscope-"

/* dirname and basename of path, each malloc'd; -ENOMEM. */
static int split(const char *path, char **dir, char **base)
{
	char *a = strdup(path), *b = strdup(path);
	int err = 0;

	*dir = *base = NULL;
	if (!a || !b) {
		err = -ENOMEM;
		goto cleanup;
	}
	*dir = strdup(dirname(a));
	*base = strdup(basename(b));
	if (!*dir || !*base) {
		free(*dir);
		free(*base);
		*dir = *base = NULL;
		err = -ENOMEM;
	}
cleanup:
	free(a);
	free(b);
	return err;
}

int report__tmp_name(const char *path, char **out)
{
	char *dir = NULL, *base = NULL;
	int err;

	*out = NULL;
	err = split(path, &dir, &base);
	if (err)
		return err;
	if (asprintf(out, "%s/.%s" TMP_TAG "%ld.XXXXXX", dir, base,
		     (long)getpid()) < 0) {
		*out = NULL;
		err = -ENOMEM;
	}
	free(dir);
	free(base);
	return err;
}

/* The owner pid of name if it is a temp file of base's, else 0. */
static long tmp_owner(const char *name, const char *base)
{
	char prefix[NAME_MAX + sizeof(TMP_TAG) + 2];

	if (snprintf(prefix, sizeof(prefix), ".%s" TMP_TAG, base) >=
	    (int)sizeof(prefix))
		return 0;
	return tmpname__owner(name, prefix);
}

int report__tmp_clean(const char *path)
{
	char *dir = NULL, *base = NULL;
	struct dirent *e;
	struct stat sb;
	int err, removed = 0;
	DIR *d = NULL;

	err = split(path, &dir, &base);
	if (err)
		return err;
	d = opendir(dir);
	if (!d) {
		err = -errno;
		goto cleanup;
	}
	while ((e = readdir(d))) {
		long pid = tmp_owner(e->d_name, base);

		if (!pid || owner__alive(pid))
			continue;
		/* Only a regular file of ours: never a symlink or a dir. */
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(sb.st_mode) || sb.st_uid != geteuid())
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0)) {
			err__print(NULL, -errno,
				   "cannot remove '%s/%s', left behind by an "
				   "export that was killed",
				   dir, e->d_name);
			continue;
		}
		removed++;
		err__print(NULL, 0,
			   "removed '%s/%s', left behind by an export that was "
			   "killed",
			   dir, e->d_name);
	}
	err = removed;
cleanup:
	if (d)
		closedir(d);
	free(dir);
	free(base);
	return err;
}
