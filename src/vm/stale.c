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

/* The owner pid in a work dir's name, or 0 if name is none. */
static long owner(const char *name)
{
	static const char tag[] = VM_WORKDIR_TAG;
	const char *p;
	char *end;
	long pid;

	if (strncmp(name, tag, sizeof(tag) - 1))
		return 0;
	p = name + sizeof(tag) - 1;
	if (*p < '1' || *p > '9')
		return 0;
	pid = strtol(p, &end, 10);
	/* mkdtemp's six characters. */
	if (pid <= 0 || *end != '.' || strlen(end + 1) != 6)
		return 0;
	for (p = end + 1; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return 0;
	return pid;
}

/* This process, a live folioscope, or one that cannot be told apart. */
static bool owner_alive(long pid)
{
	char path[64], comm[32];
	ssize_t n;
	int fd;

	if (pid == (long)getpid())
		return true;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n < 0)
		return true;
	comm[n] = '\0';
	return !strcmp(comm, "folioscope\n");
}

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
		long pid = owner(e->d_name);

		if (!pid || owner_alive(pid))
			continue;
		/* A real dir of ours: never a symlink's target. */
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid())
			continue;
		if (vm_fs__fmt(path, sizeof(path), "%s/%s", parent, e->d_name))
			continue;
		if (vm_fs__remove_tree(path)) {
			fprintf(stderr,
				VM_ERR_PREFIX "cannot remove '%s', left behind "
					      "by a vm that was killed\n",
				path);
			continue;
		}
		removed++;
		fprintf(stderr,
			VM_ERR_PREFIX "removed '%s', left behind by a vm that "
				      "was killed\n",
			path);
	}
	closedir(d);
	return removed;
}
