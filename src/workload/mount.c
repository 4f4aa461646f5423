// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Mounts for the workloads: the private mount namespace they run in, loop
 * devices for filesystem images, mount/remount/umount.
 *
 * Mounting lives here so that <sys/mount.h> stays out of dedupe.c, which
 * needs <linux/fs.h> for FIDEDUPERANGE: that pulls in <linux/mount.h>, and
 * the two clash on some glibc releases.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/loop.h>

#include "workload/workload_internal.h"

#define LOOP_MAJOR_NR 7

/*
 * Move this process into a mount namespace of its own, none of whose
 * mounts propagate back, before the workload mounts anything. Its tmpfs
 * and loop mounts are then seen by no other process, and the kernel
 * unmounts them when the namespace goes, that is when this process (and
 * the tools it forked) are gone, whatever killed it; a loop device left
 * with no user then unbinds itself (autoclear). BPF programs see the
 * workload's files all the same: they key on tgid, dev_t and superblock,
 * not on mounts. Needs a single thread (the readers start later).
 */
int wl__private_mounts(const char *wl)
{
	int err;

	if (unshare(CLONE_NEWNS)) {
		err = -errno;
		wl__err(wl, err, "private mount namespace: unshare");
		return err;
	}
	/* A shared "/" (systemd) would otherwise put our mounts in the
	 * host's namespace too, through the copied peer groups. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		err = -errno;
		wl__err(wl, err, "private mount namespace: make '/' private");
		return err;
	}
	return 0;
}

/* Open /dev/loopN, creating the node when /dev is not a devtmpfs. */
static int open_loop(int nr, char *dev, size_t len, bool *made_node)
{
	int fd;

	*made_node = false;
	snprintf(dev, len, "/dev/loop%d", nr);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT)
		return fd < 0 ? -errno : fd;
	if (mknod(dev, S_IFBLK | 0600, makedev(LOOP_MAJOR_NR, nr)))
		return -errno;
	*made_node = true;
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		unlink(dev);
		*made_node = false;
	}
	return fd;
}

/*
 * Bind img_fd to the loop device fd with autoclear set, so that the device
 * unbinds itself on its last close or umount. LOOP_CONFIGURE (5.8) does
 * both at once: the device is never bound without autoclear, so a kill at
 * any point cannot leave it bound (our fd closes with us). Before 5.8 it
 * takes LOOP_SET_FD then LOOP_SET_STATUS64; a kill between the two leaves
 * a bound device, which the next run's stale clean-up unbinds. *what
 * names the ioctl that failed.
 */
static int loop_bind(int fd, int img_fd, const char *img, const char **what)
{
	struct loop_config cfg;
	int err;

	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = img_fd;
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
	snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name),
		 "%s", img);
	*what = "LOOP_CONFIGURE";
	if (!ioctl(fd, LOOP_CONFIGURE, &cfg))
		return 0;
	/* An ioctl the kernel does not know: EINVAL from loop, or ENOTTY. */
	if (errno != EINVAL && errno != ENOTTY)
		return -errno;
	*what = "LOOP_SET_FD";
	if (ioctl(fd, LOOP_SET_FD, img_fd))
		return -errno;
	*what = "LOOP_SET_STATUS64";
	if (ioctl(fd, LOOP_SET_STATUS64, &cfg.info)) {
		err = -errno;
		ioctl(fd, LOOP_CLR_FD, 0);
		return err;
	}
	return 0;
}

int wl__loop_attach(const char *wl, const char *img, char *dev, size_t len,
		    int *loop_fd, bool *made_node)
{
	int ctl = -1, img_fd = -1, fd = -1, err = 0, nr, tries;
	const char *what = "LOOP_CONFIGURE";

	*loop_fd = -1;
	*made_node = false;
	dev[0] = '\0';
	img_fd = open(img, O_RDWR | O_CLOEXEC);
	if (img_fd < 0) {
		err = -errno;
		wl__err(wl, err, "open image '%s'", img);
		goto cleanup;
	}
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		err = -errno;
		wl__err(wl, err, "open '/dev/loop-control'");
		goto cleanup;
	}
	/* Someone else may bind the free device before we do: retry. */
	for (tries = 0; tries < 16; tries++) {
		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0) {
			err = -errno;
			wl__err(wl, err,
				"LOOP_CTL_GET_FREE '/dev/loop-control'");
			goto cleanup;
		}
		fd = open_loop(nr, dev, len, made_node);
		if (fd < 0) {
			err = fd;
			wl__err(wl, err, "open '%s'", dev);
			goto cleanup;
		}
		err = loop_bind(fd, img_fd, img, &what);
		if (!err)
			break;
		close(fd);
		fd = -1;
		if (*made_node)
			unlink(dev);
		*made_node = false;
		if (err != -EBUSY)
			break;
	}
	if (err) {
		wl__err(wl, err, "%s '%s'", what, dev);
		goto cleanup;
	}
	/* Kept open until the mount holds the device: closing it earlier
	 * would let autoclear unbind it before the mount. */
	*loop_fd = fd;
	fd = -1;
cleanup:
	if (fd >= 0)
		close(fd);
	if (err && *made_node) {
		unlink(dev);
		*made_node = false;
	}
	if (ctl >= 0)
		close(ctl);
	if (img_fd >= 0)
		close(img_fd);
	return err;
}

int wl__mount(const char *src, const char *dir, const char *fstype,
	      const char *data)
{
	if (mount(src, dir, fstype, MS_NOSUID | MS_NODEV, data))
		return -errno;
	return 0;
}

/* tmpfs huge= modes and dedupe's filesystems by name. */
static const char *const huge_names[WL_HUGE_NR] = {
	[WL_HUGE_ALWAYS] = "always",
	[WL_HUGE_WITHIN_SIZE] = "within_size",
	[WL_HUGE_ADVISE] = "advise",
	[WL_HUGE_NEVER] = "never",
};

static const char *const fstype_names[WL_FSTYPE_NR] = {
	[WL_FSTYPE_BTRFS] = "btrfs",
	[WL_FSTYPE_XFS] = "xfs",
};

const char *wl_huge__name(enum wl_huge h)
{
	return h < WL_HUGE_NR ? huge_names[h] : "?";
}

int wl_huge__parse(const char *name)
{
	return wl__lookup(huge_names, WL_HUGE_NR, name);
}

const char *wl_fstype__name(enum wl_fstype t)
{
	return t < WL_FSTYPE_NR ? fstype_names[t] : NULL;
}

int wl_fstype__parse(const char *name)
{
	return wl__lookup(fstype_names, WL_FSTYPE_NR, name);
}

int wl__tmpfs_mount(const char *wl, const char *dir, enum wl_huge huge,
		    __u64 size)
{
	const char *h = wl_huge__name(huge);
	char data[128];
	int err;

	snprintf(data, sizeof(data), "huge=%s,size=%llu,mode=0700", h,
		 (unsigned long long)size);
	err = wl__mount("folioscope", dir, "tmpfs", data);
	if (!err)
		return 0;
	/* tmpfs accepts huge=never everywhere, anything else only with THP. */
	if (err == -EINVAL && huge != WL_HUGE_NEVER)
		wl__err_hint(wl, err,
			     "(tmpfs huge= needs a kernel with "
			     "CONFIG_TRANSPARENT_HUGEPAGE)",
			     "mount tmpfs huge=%s '%s'", h, dir);
	else
		wl__err(wl, err, "mount tmpfs huge=%s '%s'", h, dir);
	return err;
}

int wl__tmpfs_remount(const char *dir, enum wl_huge huge)
{
	char data[32];

	snprintf(data, sizeof(data), "huge=%s", wl_huge__name(huge));
	if (mount(NULL, dir, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV, data))
		return -errno;
	return 0;
}

int wl__umount(const char *wl, const char *dir)
{
	int err, i;

	/* A just-closed file or a udev probe can hold it for a moment. */
	for (i = 0; i < 50; i++) {
		if (!umount2(dir, UMOUNT_NOFOLLOW))
			return 0;
		err = -errno;
		if (err != -EBUSY)
			break;
		usleep(20 * 1000);
	}
	if (err == -EBUSY && !umount2(dir, MNT_DETACH | UMOUNT_NOFOLLOW)) {
		wl__err_hint(wl, err, "(detached lazily)", "umount '%s'", dir);
		return 0;
	}
	wl__err(wl, err, "umount '%s'", dir);
	return err;
}

int wl__loopfs_make(const char *wl, const char *dir, int idx, enum wl_fstype t,
		    __u32 bs, __u64 size, struct wl_loopfs *m)
{
	const char *fs = t == WL_FSTYPE_XFS ? "xfs" : "btrfs";
	char name[32], bsz[32];
	char *btrfs[] = { "mkfs.btrfs", "-f", "-q", m->img, NULL };
	char *xfs[] = { "mkfs.xfs", "-f", "-q",	  "-m", "reflink=1",
			"-b",	    bsz,  m->img, NULL };
	int fd = -1, loop_fd = -1, err;

	size = (size + (1 << 20) - 1) >> 20 << 20;
	snprintf(bsz, sizeof(bsz), "size=%u", bs);
	snprintf(name, sizeof(name), "img%d", idx);
	err = wl__path(m->img, sizeof(m->img), dir, name);
	snprintf(name, sizeof(name), "mnt%d", idx);
	if (!err)
		err = wl__path(m->mnt, sizeof(m->mnt), dir, name);
	if (err) {
		wl__err(wl, err, "paths in '%s'", dir);
		goto cleanup;
	}
	fd = open(m->img, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		wl__err(wl, err, "create image '%s'", m->img);
		goto cleanup;
	}
	m->img_made = true;
	m->img_size = size;
	if (ftruncate(fd, (off_t)size)) {
		err = -errno;
		wl__err(wl, err, "truncate image '%s'", m->img);
		goto cleanup;
	}
	close(fd);
	fd = -1;
	err = wl__exec(wl, t == WL_FSTYPE_XFS ? xfs : btrfs);
	if (err)
		goto cleanup;
	if (mkdir(m->mnt, 0700)) {
		err = -errno;
		wl__err(wl, err, "mkdir '%s'", m->mnt);
		goto cleanup;
	}
	m->mnt_made = true;
	err = wl__loop_attach(wl, m->img, m->loopdev, sizeof(m->loopdev),
			      &loop_fd, &m->loop_node_made);
	if (err)
		goto cleanup;
	err = wl__mount(m->loopdev, m->mnt, fs, NULL);
	if (err) {
		wl__err(wl, err, "mount %s '%s'", fs, m->loopdev);
		goto cleanup;
	}
	m->mounted = true;
cleanup:
	/* The mount holds the loop device now; without one, this close
	 * detaches it (autoclear). */
	if (loop_fd >= 0)
		close(loop_fd);
	if (fd >= 0)
		close(fd);
	return err;
}

int wl__loopfs_remove(const char *wl, struct wl_loopfs *m)
{
	/* Autoclear unbinds the loop device as the umount drops it. If the
	 * umount failed, keep the mount point and image it still uses. */
	if (m->mounted && wl__umount(wl, m->mnt))
		return -EBUSY;
	m->mounted = false;
	if (m->loop_node_made)
		wl__remove(wl, m->loopdev, false);
	if (m->mnt_made)
		wl__remove(wl, m->mnt, true);
	if (m->img_made)
		wl__remove(wl, m->img, false);
	m->loop_node_made = m->mnt_made = m->img_made = false;
	return 0;
}
