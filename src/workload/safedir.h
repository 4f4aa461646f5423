/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A directory given by the user (run dedupe --dir) that a workload may
 * create its private temp dir in: it must be a real directory, not a
 * symlink (one planted there would redirect the run elsewhere), and owned
 * by the effective uid (as root, a dir another user controls could be
 * swapped for a symlink between the check and the use).
 */
#ifndef FS_WORKLOAD_SAFEDIR_H
#define FS_WORKLOAD_SAFEDIR_H

/*
 * 0, or a negative errno after one line on stderr naming opt (e.g.
 * "--dir") and why: -ENOENT and the like, -ELOOP for a symlink,
 * -ENOTDIR, -EPERM for a directory owned by another user.
 */
int wl__check_dir(const char *wl, const char *opt, const char *dir);

#endif /* FS_WORKLOAD_SAFEDIR_H */
