/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * File and temp-name helpers shared by the exports, the workloads and the
 * VM runner (fs.c). Errors are negative errnos.
 */
#ifndef FS_UTIL_FS_H
#define FS_UTIL_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Write all len bytes, retrying short writes and EINTR; 0 or -errno. */
int fd__write_all(int fd, const void *buf, size_t len);

/*
 * Whether an output named path must be written in place, not through a
 * temp file renamed over it: it exists and is a device, a FIFO or a
 * socket (-j /dev/null, a pipe a reader waits on). A rename would put a
 * regular file in its place, even over /dev/null as root.
 */
bool path__write_in_place(const char *path);

/* Flags of tree__remove. */
enum {
	/* Do not descend into a directory on another file system (a mount
	 * point stays, with what is mounted on it). */
	TREE_ONE_FS = 1,
};

/*
 * Remove path and, if it is a directory, everything below it, depth
 * first, never following a symlink (the link itself is removed). A path
 * that does not exist is no error. Returns 0 or the first -errno met;
 * what could be removed is removed either way.
 */
int tree__remove(const char *path, int flags);

/* Is s exactly the six letters and digits mkstemp/mkdtemp put for
 * their "XXXXXX"? */
bool tmpname__suffix_ok(const char *s);

/*
 * The owner pid in a temp name "PREFIX<pid>.XXXXXX" (the pid without
 * leading zeros, the suffix as tmpname__suffix_ok), or 0 if name is not
 * one.
 */
long tmpname__owner(const char *name, const char *prefix);

/*
 * Is pid this process or a live folioscope (which may still use what it
 * made)? A pid whose command name cannot be read counts as alive: what
 * it owns is left alone.
 */
bool owner__alive(long pid);

/*
 * The device number of the superblock PATH is on: what the kernel keeps in
 * inode->i_sb->s_dev and the probes compare. stat's st_dev is not it on
 * btrfs (a subvolume's own anonymous device), so this takes the mount's
 * major:minor from /proc/self/mountinfo, the mount found by statx's mount
 * id; where statx has no mount id, st_dev.
 */
int path__sb_dev(const char *path, dev_t *dev);

/*
 * A new mount of a pseudo filesystem (tracefs, debugfs, securityfs) that
 * is attached nowhere: the returned fd is its root, for openat() or as
 * /proc/self/fd/N in a path. No directory, no namespace sees it, and it
 * goes when the fd and the files opened through it are closed, whatever
 * kills us. The fd or -errno.
 */
int fs__mount_detached(const char *fstype, bool rdonly);

/*
 * Reads fd to its end into *data, NUL terminated (parsers want the NUL),
 * free()d by the caller; its length into *len if len. max: -EFBIG once
 * more than max bytes would be kept (0: no limit). 0 or -errno, and
 * *data NULL on an error.
 */
int fd__read_all(int fd, size_t max, char **data, size_t *len);
/* fd__read_all of FILE (relative to DIRFD, or AT_FDCWD), without limit. */
int file__read_at(int dirfd, const char *file, char **data, size_t *len);

#endif /* FS_UTIL_FS_H */
