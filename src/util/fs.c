// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* File and temp-name helpers; see fs.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "util/fs.h"

int fd__write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

/* Depth-first removal relative to a directory fd, never following links;
 * dev is the file system to stay on, or 0 for any. */
static int remove_at(int dfd, const char *name, dev_t dev)
{
	struct dirent *de;
	struct stat st;
	int fd, r, err = 0;
	DIR *d;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dfd, name, 0) && errno != ENOENT)
			return -errno;
		return 0;
	}
	if (dev && st.st_dev != dev)
		return -EBUSY;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		err = -errno;
		close(fd);
		return err;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = remove_at(dirfd(d), de->d_name, dev);
		if (r && !err)
			err = r;
	}
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) && errno != ENOENT && !err)
		err = -errno;
	return err;
}

int tree__remove(const char *path, int flags)
{
	struct stat st;
	dev_t dev = 0;

	if (flags & TREE_ONE_FS) {
		if (lstat(path, &st))
			return errno == ENOENT ? 0 : -errno;
		dev = st.st_dev;
	}
	return remove_at(AT_FDCWD, path, dev);
}

bool tmpname__suffix_ok(const char *s)
{
	if (strlen(s) != 6)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

long tmpname__owner(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p;
	char *end;
	long pid;

	if (strncmp(name, prefix, n))
		return 0;
	p = name + n;
	if (*p < '1' || *p > '9')
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno || pid <= 0 || *end != '.' || !tmpname__suffix_ok(end + 1))
		return 0;
	return pid;
}

/* PID's comm without the newline; -ENOENT when the process is gone. */
static int comm__read(long pid, char *comm, size_t n)
{
	char path[64];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, comm, n - 1);
	close(fd);
	if (len < 0)
		return -EIO;
	comm[len] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return 0;
}

bool owner__alive(long pid)
{
	char comm[32], own[32];

	if (pid == (long)getpid())
		return true;
	switch (comm__read(pid, comm, sizeof(comm))) {
	case 0:
		break;
	case -ENOENT:
		return false;
	default:
		return true; /* cannot tell: leave it */
	}
	/* The installed name, or ours: folioscope-dyn (the valgrind build)
	 * and a renamed copy keep each other's dirs too. */
	return !strcmp(comm, "folioscope") ||
	       (!comm__read(getpid(), own, sizeof(own)) && !strcmp(comm, own));
}

bool path__write_in_place(const char *path)
{
	struct stat st;

	return !stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int path__sb_dev(const char *path, dev_t *dev)
{
	unsigned int maj, min;
	struct statx stx;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS | STATX_MNT_ID, &stx))
		return -errno;
	*dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	if (!(stx.stx_mask & STATX_MNT_ID))
		return 0;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT ...": proc(5). */
	while (getline(&line, &cap, f) > 0) {
		unsigned long long id;

		if (sscanf(line, "%llu %*u %u:%u", &id, &maj, &min) == 3 &&
		    id == stx.stx_mnt_id) {
			*dev = makedev(maj, min);
			break;
		}
	}
	free(line);
	fclose(f);
	/* No such line (the mount went away in between): st_dev stays. */
	return 0;
}

int fs__mount_detached(const char *fstype, bool rdonly)
{
	int fsfd, mfd, err;

	fsfd = fsopen(fstype, FSOPEN_CLOEXEC);
	if (fsfd < 0)
		return -errno;
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		err = -errno;
		close(fsfd);
		return err;
	}
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC,
		      MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC |
			      (rdonly ? MOUNT_ATTR_RDONLY : 0));
	err = mfd < 0 ? -errno : mfd;
	close(fsfd);
	return err;
}

int fd__read_all(int fd, size_t max, char **data, size_t *len)
{
	size_t used = 0, cap = 0;
	char *buf = NULL, *nb;
	int err = 0;
	ssize_t n;

	*data = NULL;
	for (;;) {
		if (cap - used < 4097) {
			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
		}
		n = read(fd, buf + used, cap - used - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				err = -errno;
			break;
		}
		used += n;
		if (max && used > max) {
			err = -EFBIG;
			break;
		}
	}
	if (err) {
		free(buf);
		return err;
	}
	buf[used] = '\0';
	*data = buf;
	if (len)
		*len = used;
	return 0;
}

int file__read_at(int dirfd, const char *file, char **data, size_t *len)
{
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC), err;

	*data = NULL;
	if (fd < 0)
		return -errno;
	err = fd__read_all(fd, 0, data, len);
	close(fd);
	return err;
}
