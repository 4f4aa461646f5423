/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a killed run leaves behind (SIGKILL, OOM killer, power loss): the
 * workloads' private temp dirs "folioscope-shmem-XXXXXX" and
 * "folioscope-dedupe-XXXXXX" and what is in them (empty mount points,
 * loop images, files in a --dir). Their mounts are in the run's own mount
 * namespace and go with it, and its loop devices unbind themselves
 * (autoclear); a mount or loop device found here anyway (left by an
 * older folioscope, or bound on a kernel without LOOP_CONFIGURE) is
 * detached too. The next run removes them before it starts (and says
 * so), but only when no other 'folioscope run' using the same temp dir
 * is alive, since a live run cannot be told from a dead one by its dir.
 */
#ifndef FS_WORKLOAD_STALE_H
#define FS_WORKLOAD_STALE_H

#include <stdbool.h>
#include <sys/types.h>

/* Is name a workload temp dir name (folioscope-{shmem,dedupe}-XXXXXX)? */
bool wl__stale_name(const char *name);

/*
 * pid of another live 'folioscope run' process (comm folioscope, argv[1]
 * run) that makes its temp dirs in parent (a real path; its $TMPDIR or
 * /tmp, or its --dir; any parent if NULL or if its environment or argv
 * cannot be read), or 0.
 * procfs is the /proc to look in (tests pass a fake one).
 */
pid_t wl__run_alive(const char *procfs, pid_t self, const char *parent);

/*
 * In parent (NULL: $TMPDIR or /tmp; or a run's --dir), remove every
 * workload temp dir that is a real directory owned by the effective uid:
 * detach the mounts at or
 * below it (and loop devices backed by files in it), then delete the
 * tree without following symlinks or crossing into a mount. Prints one
 * line per dir removed. Does nothing while another run that makes its temp
 * dirs in parent is alive. Returns
 * the number of dirs removed, or a negative errno.
 */
int wl__stale_clean(const char *parent);
/* The same, with the live runs looked up in procfs (for tests). */
int wl__stale_clean_at(const char *parent, const char *procfs);

#endif /* FS_WORKLOAD_STALE_H */
