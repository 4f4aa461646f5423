// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dedupe workload: FIDEDUPERANGE over two files with identical contents,
 * which makes the kernel compare every range (vfs_dedupe_file_range_compare).
 * Ground truth: the data are equal, so every range must come back
 * FILE_DEDUPE_RANGE_SAME with bytes_deduped == range.
 *
 * The files live on a fresh loop-mounted btrfs/xfs image, or in a temp
 * dir under --dir when that is on btrfs or xfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/fs.h>
#include <linux/magic.h>

#include "workload/workload.h"

#define WL "dedupe"
/* mkfs.xfs refuses images under 300 MB. */
#define IMG_SIZE (320ULL << 20)
/* What the two files may take on that image, leaving metadata room
 * (spelled out in the --count x --range hint). */
#define IMG_DATA_MAX (192ULL << 20)
/* Dedupe works in whole fs blocks; 4 KiB is the btrfs and xfs default
 * (the hint text below spells it out). */
#define DD_BLOCK 4096ULL

struct dedupe {
	char fs[8];
	__u64 range;
	unsigned int count;
	/* Loop mode: tmpdir holds the image and the mount point. */
	char tmpdir[PATH_MAX];
	char img[PATH_MAX];
	char mnt[PATH_MAX];
	char loopdev[32];
	bool img_made, mnt_made, mounted, loop_node_made;
	/* Where src and dst live: the mount point, or a temp dir in --dir. */
	char work[PATH_MAX];
	bool work_made;
	char src[PATH_MAX];
	char dst[PATH_MAX];
	bool src_made, dst_made;
	int src_fd, dst_fd;
	struct file_dedupe_range *req; /* with room for one destination */
};

static const char *fs_name(__u32 magic)
{
	switch (magic) {
	case BTRFS_SUPER_MAGIC:
		return "btrfs";
	case XFS_SUPER_MAGIC:
		return "xfs";
	case TMPFS_MAGIC:
		return "tmpfs";
	case RAMFS_MAGIC:
		return "ramfs";
	case EXT4_SUPER_MAGIC:
		return "ext2/3/4";
	case OVERLAYFS_SUPER_MAGIC:
		return "overlayfs";
	case NFS_SUPER_MAGIC:
		return "nfs";
	case FUSE_SUPER_MAGIC:
		return "fuse";
	}
	return NULL;
}

static int check_opts(struct dedupe *d, const struct wl_opts *o)
{
	const char *fs = o->fs ? o->fs : "btrfs";
	int err = -EINVAL;

	if (strcmp(fs, "btrfs") && strcmp(fs, "xfs")) {
		wl__err(WL, err, "--fs '%s'", fs);
		return err;
	}
	if (!o->range || o->range % DD_BLOCK) {
		wl__err_hint(WL, err,
			     "(must be a non-zero multiple of 4096, the fs "
			     "block size)",
			     "--range '%llu'", (unsigned long long)o->range);
		return err;
	}
	if (!o->count) {
		wl__err_hint(WL, err, "(must be at least 1)", "--count '0'");
		return err;
	}
	/* Offsets are loff_t: the whole file must fit in INT64_MAX. */
	if (o->range > (__u64)INT64_MAX / o->count) {
		err = -EOVERFLOW;
		wl__err(WL, err, "--count x --range '%u x %llu'", o->count,
			(unsigned long long)o->range);
		return err;
	}
	if (!o->dir && 2 * (__u64)o->count * o->range > IMG_DATA_MAX) {
		err = -EFBIG;
		wl__err_hint(WL, err,
			     "(both files must fit in 192 MiB of the 320 MiB "
			     "image; use --dir for more)",
			     "--count x --range '%u x %llu'", o->count,
			     (unsigned long long)o->range);
		return err;
	}
	snprintf(d->fs, sizeof(d->fs), "%s", fs);
	d->range = o->range;
	d->count = o->count;
	return 0;
}

/* --dir: must be a directory on btrfs or xfs; work in a temp dir inside. */
static int use_dir(struct dedupe *d, const char *dir)
{
	struct statfs sfs;
	struct stat st;
	const char *name;
	int err;

	if (stat(dir, &st)) {
		err = -errno;
		wl__err(WL, err, "--dir '%s'", dir);
		return err;
	}
	if (!S_ISDIR(st.st_mode)) {
		err = -ENOTDIR;
		wl__err(WL, err, "--dir '%s'", dir);
		return err;
	}
	if (statfs(dir, &sfs)) {
		err = -errno;
		wl__err(WL, err, "statfs --dir '%s'", dir);
		return err;
	}
	name = fs_name((__u32)sfs.f_type);
	if (!name || (strcmp(name, "btrfs") && strcmp(name, "xfs"))) {
		err = -EOPNOTSUPP;
		if (name)
			wl__err(WL, 0,
				"--dir '%s' is on %s, which does not support "
				"FIDEDUPERANGE (need btrfs or xfs)",
				dir, name);
		else
			wl__err(WL, 0,
				"--dir '%s' is on a filesystem with magic "
				"0x%x, which does not support FIDEDUPERANGE "
				"(need btrfs or xfs)",
				dir, (__u32)sfs.f_type);
		return err;
	}
	/* A 64 KiB-block xfs, say, cannot dedupe 4 KiB ranges. */
	if (sfs.f_bsize > 0 && d->range % (__u64)sfs.f_bsize) {
		char hint[64];

		err = -EINVAL;
		snprintf(hint, sizeof(hint),
			 "(not a multiple of the --dir block size, %ld)",
			 (long)sfs.f_bsize);
		wl__err_hint(WL, err, hint, "--range '%llu'",
			     (unsigned long long)d->range);
		return err;
	}
	snprintf(d->fs, sizeof(d->fs), "%s", name);
	err = wl__mkdtemp(WL, dir, "dedupe", d->work, sizeof(d->work));
	if (!err)
		d->work_made = true;
	return err;
}

/* No --dir: sparse image, mkfs, loop device, mount, all under one tmpdir. */
static int make_fs(struct dedupe *d)
{
	char *btrfs[] = {"mkfs.btrfs", "-f", "-q", d->img, NULL};
	char *xfs[] = {"mkfs.xfs", "-f", "-q", "-m", "reflink=1", d->img, NULL};
	int fd = -1, loop_fd = -1, err;

	err = wl__mkdtemp(WL, NULL, "dedupe", d->tmpdir, sizeof(d->tmpdir));
	if (err)
		goto cleanup;
	err = wl__path(d->img, sizeof(d->img), d->tmpdir, "img");
	if (!err)
		err = wl__path(d->mnt, sizeof(d->mnt), d->tmpdir, "mnt");
	if (err) {
		wl__err(WL, err, "paths in '%s'", d->tmpdir);
		goto cleanup;
	}
	fd = open(d->img, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		wl__err(WL, err, "create image '%s'", d->img);
		goto cleanup;
	}
	d->img_made = true;
	if (ftruncate(fd, IMG_SIZE)) {
		err = -errno;
		wl__err(WL, err, "truncate image '%s'", d->img);
		goto cleanup;
	}
	close(fd);
	fd = -1;
	err = wl__exec(WL, strcmp(d->fs, "xfs") ? btrfs : xfs);
	if (err)
		goto cleanup;
	if (mkdir(d->mnt, 0700)) {
		err = -errno;
		wl__err(WL, err, "mkdir '%s'", d->mnt);
		goto cleanup;
	}
	d->mnt_made = true;
	err = wl__loop_attach(WL, d->img, d->loopdev, sizeof(d->loopdev),
			      &loop_fd, &d->loop_node_made);
	if (err)
		goto cleanup;
	err = wl__mount(d->loopdev, d->mnt, d->fs, NULL);
	if (err) {
		wl__err(WL, err, "mount %s '%s'", d->fs, d->loopdev);
		goto cleanup;
	}
	d->mounted = true;
	snprintf(d->work, sizeof(d->work), "%s", d->mnt);
cleanup:
	/* The mount holds the loop device now; without one, this close
	 * detaches it (autoclear). */
	if (loop_fd >= 0)
		close(loop_fd);
	if (fd >= 0)
		close(fd);
	return err;
}

static int make_file(const char *path, __u64 size, int *fd, bool *made)
{
	int err;

	*fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (*fd < 0) {
		err = -errno;
		wl__err(WL, err, "create '%s'", path);
		return err;
	}
	*made = true;
	err = wl__write_pattern(WL, *fd, path, size);
	if (err)
		return err;
	/* Dedupe writes back dirty pages before it compares; do that now
	 * so the traced ioctls are the compare, not delalloc/writeback. */
	if (fsync(*fd)) {
		err = -errno;
		wl__err(WL, err, "fsync '%s'", path);
	}
	return err;
}

int dedupe__prepare(struct dedupe **out, const struct wl_opts *o)
{
	struct dedupe *d;
	__u64 size;
	int err;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		err = -ENOMEM;
		wl__err(WL, err, "allocate state");
		return err;
	}
	d->src_fd = -1;
	d->dst_fd = -1;
	err = check_opts(d, o);
	if (err)
		goto cleanup;
	err = o->dir ? use_dir(d, o->dir) : make_fs(d);
	if (err)
		goto cleanup;
	err = wl__path(d->src, sizeof(d->src), d->work, "src");
	if (!err)
		err = wl__path(d->dst, sizeof(d->dst), d->work, "dst");
	if (err) {
		wl__err(WL, err, "paths in '%s'", d->work);
		goto cleanup;
	}
	size = (__u64)d->count * d->range;
	err = make_file(d->src, size, &d->src_fd, &d->src_made);
	if (!err)
		err = make_file(d->dst, size, &d->dst_fd, &d->dst_made);
	if (err)
		goto cleanup;
	/* Allocated here so the traced phase makes no mmap/brk calls. */
	d->req = calloc(1, sizeof(*d->req) +
				   sizeof(struct file_dedupe_range_info));
	if (!d->req) {
		err = -ENOMEM;
		wl__err(WL, err, "allocate FIDEDUPERANGE request");
		goto cleanup;
	}
	*out = d;
cleanup:
	if (err)
		dedupe__destroy(d);
	return err;
}

int dedupe__run(struct dedupe *d, struct fs_report *r)
{
	struct file_dedupe_range_info *info = &d->req->info[0];
	__u64 calls = 0, bytes = 0, same = 0, differs = 0, errors = 0;
	__u64 bad = 0;
	const char *hint = NULL;
	int first_err = 0;
	unsigned int i, first_i = 0;

	for (i = 0; i < d->count; i++) {
		__u64 off = (__u64)i * d->range;
		int st;

		memset(d->req, 0, sizeof(*d->req) + sizeof(*info));
		d->req->src_offset = off;
		d->req->src_length = d->range;
		d->req->dest_count = 1;
		info->dest_fd = d->dst_fd;
		info->dest_offset = off;
		calls++;
		if (ioctl(d->src_fd, FIDEDUPERANGE, d->req)) {
			st = -errno;
		} else {
			st = info->status;
			bytes += info->bytes_deduped;
		}
		if (st == FILE_DEDUPE_RANGE_SAME)
			same++;
		else if (st == FILE_DEDUPE_RANGE_DIFFERS)
			differs++;
		else
			errors++;
		if (st < 0 && !first_err) {
			first_err = st;
			first_i = i;
		}
		if (st != FILE_DEDUPE_RANGE_SAME ||
		    info->bytes_deduped != d->range)
			bad++;
	}
	/* Reported after the loop to keep the traced phase to ioctls. */
	if (first_err == -EOPNOTSUPP && !strcmp(d->fs, "xfs"))
		hint = "(xfs needs reflink=1)";
	if (first_err)
		wl__err_hint(WL, first_err, hint,
			     "FIDEDUPERANGE range %u of '%s'", first_i, d->dst);
	model__kv_str(r, "fs", d->fs);
	model__kv_u64(r, "range", d->range);
	model__kv_u64(r, "count", d->count);
	model__kv_u64(r, "calls", calls); /* one destination per ioctl */
	model__kv_u64(r, "bytes", bytes);
	model__kv_u64(r, "same", same);
	model__kv_u64(r, "differs", differs);
	model__kv_u64(r, "errors", errors);
	model__kv_u64(r, "validation_failures", bad);
	return 0;
}

void dedupe__destroy(struct dedupe *d)
{
	if (!d)
		return;
	free(d->req);
	if (d->src_fd >= 0)
		close(d->src_fd);
	if (d->dst_fd >= 0)
		close(d->dst_fd);
	if (d->src_made)
		wl__remove(WL, d->src, false);
	if (d->dst_made)
		wl__remove(WL, d->dst, false);
	if (d->work_made)
		wl__remove(WL, d->work, true);
	/* Autoclear unbinds the loop device as the umount drops it. If the
	 * umount failed, keep the mount point and image it still uses. */
	if (!d->mounted || !wl__umount(WL, d->mnt)) {
		if (d->loop_node_made)
			wl__remove(WL, d->loopdev, false);
		if (d->mnt_made)
			wl__remove(WL, d->mnt, true);
		if (d->img_made)
			wl__remove(WL, d->img, false);
		if (d->tmpdir[0])
			wl__remove(WL, d->tmpdir, true);
	}
	free(d);
}
