// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a dedupe run needs, made before it and undone after it (dedupe.h):
 * the options checked, the filesystems picked (one, or btrfs and xfs at
 * three block sizes for the matrix) and made on fresh loop images, or a
 * temp dir under --dir on btrfs or xfs; room checked before anything is
 * written; every file written and fsynced, left cached or dropped (cold)
 * and the cache state proved; every answer worked out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "workload/dedupe.h"
#include "workload/safedir.h"

#define WL DD_WL
/* mkfs.xfs refuses images under 300 MB. */
#define IMG_MIN (320ULL << 20)
/* Sparse images: room for twice the data plus metadata costs nothing
 * until written. */
#define IMG_META (128ULL << 20)
/* What mkfs writes into a fresh image of ours, with a margin: measured
 * (the image's allocated size) with Debian 12's tools in a guest,
 * mkfs.xfs writes 64.3 MiB at every block size (it zeroes its log, 64
 * MiB for filesystems of 300 MB and more), mkfs.btrfs 4.6 MiB. Where
 * images live in RAM (a guest's /tmp is a tmpfs of half its memory)
 * that is what a filesystem costs before any file is written. */
#define MKFS_BYTES_XFS (72ULL << 20)
#define MKFS_BYTES_BTRFS (8ULL << 20)
/* Per-ioctl ranges and files: far more than any sane run. */
#define RANGES_MAX 1000000ULL
#define FILES_MAX 1000000U

static const char *magic_name(__u32 magic)
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

static bool pow2(__u64 v)
{
	return v && !(v & (v - 1));
}

/* Option checks that need no filesystem; one error line each. */
static int check_opts(const struct wl_opts *o, __u32 page)
{
	enum wl_fstype fs = o->fstype ?: WL_FSTYPE_BTRFS;
	int err = -EINVAL;

	if (fs >= WL_FSTYPE_NR) {
		wl__err(WL, err, "--fs %d", (int)fs);
		return err;
	}
	if (o->block_size) {
		if (o->dir) {
			wl__err_hint(WL, err, "(the block size is --dir's own)",
				     "--block-size with --dir");
			return err;
		}
		if (fs == WL_FSTYPE_BTRFS && o->block_size != page) {
			wl__err_hint(WL, err,
				     "(btrfs here supports only the page size "
				     "as block size)",
				     "--block-size '%u'", o->block_size);
			return err;
		}
		if (!pow2(o->block_size) || o->block_size < 1024 ||
		    o->block_size > page) {
			wl__err_hint(WL, err,
				     "(xfs with reflink: a power of two from "
				     "1024 to the page size)",
				     "--block-size '%u'", o->block_size);
			return err;
		}
	}
	if (o->image_size && o->dir) {
		wl__err_hint(WL, err, "(there is no image: files go to --dir)",
			     "--image-size with --dir");
		return err;
	}
	if (o->image_size && o->image_size < IMG_MIN) {
		wl__err_hint(WL, err,
			     "(at least 320M: mkfs.xfs refuses smaller images)",
			     "--image-size '%llu'",
			     (unsigned long long)o->image_size);
		return err;
	}
	if (o->mode == WL_MODE_MATRIX)
		return 0;
	if (o->differ >= DD_DIFF_NR) {
		wl__err_hint(WL, err,
			     "(want none, first, middle, word-end, "
			     "word-start, last or past)",
			     "--differ %d", (int)o->differ);
		return err;
	}
	if (o->dests < 1 || o->dests > DD_MAX_DESTS) {
		wl__err_hint(WL, err, "(want 1 .. 16)", "--dests '%u'",
			     o->dests);
		return err;
	}
	if (o->files) {
		__u64 size = o->file_size ? o->file_size : 4ULL << 20;
		__u64 range = o->range ? o->range : size;

		if (o->files < 2 || o->files > FILES_MAX) {
			wl__err_hint(WL, err, "(want 2 .. 1000000)",
				     "--files '%u'", o->files);
			return err;
		}
		if (size / range > RANGES_MAX) {
			wl__err_hint(WL, err, "(at most 1000000 ranges a file)",
				     "--file-size / --range '%llu / %llu'",
				     (unsigned long long)size,
				     (unsigned long long)range);
			return err;
		}
		if (size > (__u64)INT64_MAX / 2) {
			wl__err(WL, -EOVERFLOW, "--file-size '%llu'",
				(unsigned long long)size);
			return -EOVERFLOW;
		}
		return 0;
	}
	if (!o->count) {
		wl__err_hint(WL, err, "(must be at least 1)", "--count '0'");
		return err;
	}
	/* Offsets are loff_t: every range must end below INT64_MAX. */
	if (o->range > (__u64)INT64_MAX / 4 / o->count / DD_MAX_DESTS ||
	    o->src_off > (__u64)INT64_MAX / 4 ||
	    o->dst_off > (__u64)INT64_MAX / 4 ||
	    o->file_size > (__u64)INT64_MAX / 4) {
		err = -EOVERFLOW;
		wl__err(WL, err, "--count x --range '%u x %llu'", o->count,
			(unsigned long long)o->range);
		return err;
	}
	return 0;
}

/*
 * Ranges after the first start at a multiple of --range: unless that is a
 * block multiple they start inside a block, which the kernel refuses. A
 * length that is not (a tail at EOF, a shortened range) needs one range.
 */
static int check_range(const struct dedupe *d, const struct wl_opts *o)
{
	__u32 bs = d->plan.filesys[0].bs;
	char hint[96];

	if (o->mode == WL_MODE_MATRIX || !o->range || !(o->range % bs))
		return 0;
	if (o->files ? o->range >= (o->file_size ? o->file_size : 4 << 20)
		     : o->count == 1)
		return 0;
	snprintf(hint, sizeof(hint),
		 "(not a multiple of the block size %u, so later ranges would "
		 "start inside a block)",
		 bs);
	wl__err_hint(WL, -EINVAL, hint, "--range '%llu'",
		     (unsigned long long)o->range);
	return -EINVAL;
}

/* --dir: must be a directory on btrfs or xfs; work in a temp dir inside. */
static int use_dir(struct dedupe *d, const char *dir)
{
	struct dd_mount *m = &d->m[0];
	struct statfs sfs;
	const char *name;
	int err;

	/* A real directory the user owns, not a symlink to elsewhere. */
	err = wl__check_dir(WL, "--dir", dir);
	if (err)
		return err;
	if (statfs(dir, &sfs)) {
		err = -errno;
		wl__err(WL, err, "statfs --dir '%s'", dir);
		return err;
	}
	name = magic_name((__u32)sfs.f_type);
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
	err = dd_plan__add_filesys(&d->plan, wl_fstype__parse(name),
				   (__u32)sfs.f_bsize);
	if (err < 0)
		return err;
	err = wl__mkdtemp(WL, dir, "dedupe", m->work, sizeof(m->work));
	if (!err)
		m->work_made = true;
	return err;
}

/* The filesystems of a loop-mode run; see the file comment. */
static int pick_fs(struct dedupe *d, const struct wl_opts *o)
{
	static const __u32 xfs_bs[] = { 4096, 1024, 2048 };
	__u32 page = d->plan.page;
	int err = 0;

	if (o->mode != WL_MODE_MATRIX || o->block_size) {
		enum wl_fstype fs = o->fstype ?: WL_FSTYPE_BTRFS;
		__u32 bs = o->block_size	   ? o->block_size
			   : fs == WL_FSTYPE_BTRFS ? page
						   : 4096;

		err = dd_plan__add_filesys(&d->plan, fs, bs);
		return err < 0 ? err : 0;
	}
	if (o->fstype != WL_FSTYPE_XFS)
		err = dd_plan__add_filesys(&d->plan, WL_FSTYPE_BTRFS, page);
	for (size_t i = 0; err >= 0 && i < 3; i++)
		if (o->fstype != WL_FSTYPE_BTRFS && xfs_bs[i] <= page)
			err = dd_plan__add_filesys(&d->plan, WL_FSTYPE_XFS,
						   xfs_bs[i]);
	return err < 0 ? err : 0;
}

static __u64 fs_data(const struct dd_plan *p, int fsi)
{
	__u64 sum = 0;

	for (int i = 0; i < p->nfiles; i++)
		if (p->files[i].filesys == fsi)
			sum += p->files[i].size;
	return sum;
}

/*
 * Bytes written where the images (or --dir's files) live: each
 * filesystem's files, 1/8 more for their metadata (a rough bound), and
 * in loop mode what mkfs writes.
 */
static __u64 space_need(const struct dedupe *d, bool loop)
{
	__u64 need = 0;

	for (int i = 0; i < d->plan.nfilesys; i++) {
		__u64 data = fs_data(&d->plan, i);

		need += data + data / 8;
		if (loop)
			need += d->plan.filesys[i].type == WL_FSTYPE_XFS
					? MKFS_BYTES_XFS
					: MKFS_BYTES_BTRFS;
	}
	return need;
}

/* Sparse image, mkfs, loop device, mount, for filesystem i. */
static int make_fs(struct dedupe *d, int i)
{
	const struct dd_filesys *fs = &d->plan.filesys[i];
	struct dd_mount *m = &d->m[i];
	__u64 size = d->image_size ? d->image_size
				   : fs_data(&d->plan, i) * 2 + IMG_META;
	int err;

	if (size < IMG_MIN)
		size = IMG_MIN;
	err = wl__loopfs_make(WL, d->tmpdir, i, fs->type, fs->bs, size,
			      &m->loop);
	if (!err)
		snprintf(m->work, sizeof(m->work), "%s", m->loop.mnt);
	return err;
}

int dedupe__file_path(const struct dedupe *d, int i, char *buf, size_t n)
{
	char name[32];

	snprintf(name, sizeof(name), "f%07d", i);
	return wl__path(buf, n, d->m[d->plan.files[i].filesys].work, name);
}

bool dedupe__env_err(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EROFS;
}

bool dedupe__env_why(const struct dedupe *d, int fsi, int err, char *buf,
		     size_t n)
{
	const struct dd_mount *m = &d->m[fsi];
	const char *type = wl_fstype__name(d->plan.filesys[fsi].type);

	if (!dedupe__env_err(err))
		return false;
	if (err == -EROFS)
		snprintf(buf, n, "%s filesystem '%s' was remounted read-only",
			 type, m->loop.mounted ? m->loop.mnt : m->work);
	else if (m->loop.img_made)
		snprintf(buf, n, "%s image '%s' of %llu MiB is full (%s)", type,
			 m->loop.img,
			 (unsigned long long)(m->loop.img_size >> 20),
			 err == -ENOSPC ? "ENOSPC" : "EDQUOT");
	else
		snprintf(buf, n, "%s filesystem of '%s' is full (%s)", type,
			 m->work, err == -ENOSPC ? "ENOSPC" : "EDQUOT");
	return true;
}

void dedupe__env_note(struct dedupe *d, int err, int file)
{
	if (d->env_err)
		return;
	d->env_err = err;
	d->env_filesys = d->plan.files[file].filesys;
}

/* A file operation of prepare failed on filesystem fsi: one line, which
 * for an environment fault says so and names the image or directory. */
static void file_err(const struct dedupe *d, int fsi, int err, const char *what,
		     const char *path)
{
	char why[PATH_MAX + 96], hint[96];

	if (!dedupe__env_why(d, fsi, err, why, sizeof(why))) {
		wl__err(WL, err, "%s '%s'", what, path);
		return;
	}
	snprintf(hint, sizeof(hint), "(the test files need %llu MiB%s)",
		 (unsigned long long)(fs_data(&d->plan, fsi) >> 20),
		 d->m[fsi].loop.img_made ? "; use a larger --image-size" : "");
	wl__err_hint(WL, err, err == -EROFS ? NULL : hint,
		     "environment fault, not a kernel answer: %s: %s '%s'", why,
		     what, path);
}

/* Write file i's contents, fsync, and leave it cached or (cold) not. */
static int make_file(struct dedupe *d, int i, unsigned char *buf)
{
	const struct dd_file *f = &d->plan.files[i];
	char path[PATH_MAX];
	__u64 off, cached, pages;
	/* Page-sized writes make no folio larger than a page. */
	__u64 piece = f->small_writes ? d->plan.page : WL_CHUNK;
	int fd = -1, err;

	err = dedupe__file_path(d, i, path, sizeof(path));
	if (err) {
		wl__err(WL, err, "path of file %d", i);
		return err;
	}
	fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		file_err(d, f->filesys, err, "create", path);
		return err;
	}
	d->made[i] = true;
	for (off = 0; off < f->size; off += piece) {
		size_t len = f->size - off < piece ? f->size - off : piece;

		dd_file__fill(f, off, buf, len);
		err = wl__pwrite_full(fd, buf, len, off);
		if (err) {
			file_err(d, f->filesys, err, "write", path);
			goto cleanup;
		}
	}
	/* Dedupe writes back dirty pages before it compares; do that now
	 * so the traced ioctls are the compare, not delalloc/writeback. */
	if (fsync(fd)) {
		err = -errno;
		file_err(d, f->filesys, err, "fsync", path);
		goto cleanup;
	}
	if (f->cold || f->readahead) {
		/* Clean pages go: the compare, or the reads below, must
		 * bring them back from disk. */
		err = -posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (err) {
			wl__err(WL, err, "fadvise DONTNEED '%s'", path);
			goto cleanup;
		}
	}
	/* Sequential reads from the start: the kernel's readahead, not the
	 * compare's one folio at a time, brings the file back (the read
	 * chunk is the readahead window's default). */
	for (off = 0; f->readahead && off < f->size; off += 128 << 10) {
		if (pread(fd, buf, 128 << 10, off) < 0) {
			err = -errno;
			wl__err(WL, err, "read back '%s'", path);
			goto cleanup;
		}
	}
	d->ra_files += f->readahead;
	/* Prove the layout's cache state rather than assume it. */
	err = wl__cached_pages(fd, f->size, &cached, &pages);
	if (!err && !f->cold && cached < pages) {
		/* With blocks below the page size, the EOF folio is only
		 * partly uptodate after the writes, which mincore counts as
		 * not cached: read whole chunks, past EOF, to fill it. */
		for (off = 0; off < f->size; off += WL_CHUNK) {
			if (pread(fd, buf, WL_CHUNK, off) < 0) {
				err = -errno;
				break;
			}
		}
		if (!err)
			err = wl__cached_pages(fd, f->size, &cached, &pages);
	}
	if (err) {
		wl__err(WL, err, "page cache state of '%s'", path);
		goto cleanup;
	}
	if (f->cold) {
		d->cold_files++;
		d->cold_cached += cached;
	} else {
		d->warm_uncached += pages - cached;
	}
cleanup:
	close(fd);
	return err;
}

/* Every expected answer, before anything is traced. */
static int plan_answers(struct dedupe *d)
{
	const struct dd_plan *p = &d->plan;
	size_t n = 0;

	d->first = calloc(p->ncases ? p->ncases : 1, sizeof(*d->first));
	if (!d->first)
		return -ENOMEM;
	for (int c = 0; c < p->ncases; c++) {
		d->first[c] = n;
		n += (size_t)p->cases[c].count * p->cases[c].ndest;
	}
	d->nres = n;
	d->want = calloc(n ? n : 1, sizeof(*d->want));
	d->got = calloc(n ? n : 1, sizeof(*d->got));
	if (!d->want || !d->got)
		return -ENOMEM;
	for (int c = 0; c < p->ncases; c++) {
		const struct dd_case *cs = &p->cases[c];

		for (__u32 k = 0; k < cs->count; k++)
			for (unsigned int j = 0; j < cs->ndest; j++)
				dd__expect(p, cs, k, j,
					   &d->want[d->first[c] +
						    (size_t)k * cs->ndest + j]);
	}
	return 0;
}

/* --inject-wrong-expectation: turn the first answer into a wrong one,
 * so that a test can show the checker fails when the kernel and the
 * expectation disagree. */
static void inject(struct dedupe *d)
{
	struct dd_expect *e = &d->want[0];
	const struct dd_case *c = &d->plan.cases[0];

	if (!d->nres)
		return;
	d->inject = true;
	if (!e->ioctl_err && e->status == FILE_DEDUPE_RANGE_SAME) {
		e->status = FILE_DEDUPE_RANGE_DIFFERS;
		e->bytes_deduped = 0;
	} else {
		e->ioctl_err = 0;
		e->status = FILE_DEDUPE_RANGE_SAME;
		e->bytes_deduped = c->len < DD_CAP ? c->len : DD_CAP;
	}
}

/* The plan of o: filesystems, files, cases. co gets o with the
 * defaults it implies. */
static int plan_build(struct dedupe *d, const struct wl_opts *o,
		      struct wl_opts *co)
{
	int err;

	*co = *o;
	dd_plan__init(&d->plan, (__u32)sysconf(_SC_PAGESIZE));
	err = check_opts(o, d->plan.page);
	if (err)
		return err;
	if (!co->range)
		co->range = co->files ? 0 : 128 << 10;
	d->mode = o->mode == WL_MODE_MATRIX ? "matrix"
		  : o->files		    ? "seed"
					    : "custom";
	err = o->dir ? use_dir(d, o->dir) : pick_fs(d, o);
	if (err)
		return err;
	err = check_range(d, co);
	if (err)
		return err;
	for (int i = 0; !err && i < d->plan.nfilesys; i++) {
		err = o->mode == WL_MODE_MATRIX ? dd_plan__matrix(&d->plan, i)
		      : o->files		? dd_plan__seed(&d->plan, i, co)
				 : dd_plan__custom(&d->plan, i, co);
		/* After the filesystem's own matrix, so cases stay grouped
		 * per filesystem. */
		if (!err && o->mode == WL_MODE_MATRIX && !o->no_large_layouts)
			err = dd_plan__large_folios(&d->plan, i);
	}
	if (err)
		wl__err(WL, err, "build the %s layout", d->mode);
	return err;
}

int dedupe__space(const struct wl_opts *o, __u64 *bytes)
{
	struct wl_opts co, lo = *o;
	struct dedupe *d = calloc(1, sizeof(*d));
	int err;

	*bytes = 0;
	if (!d)
		return -ENOMEM;
	lo.dir = NULL;
	err = plan_build(d, &lo, &co);
	if (!err)
		*bytes = space_need(d, true);
	dedupe__destroy(d);
	return err;
}

int dedupe__prepare(void **out, const struct wl_opts *o)
{
	struct wl_opts co;
	unsigned char *buf = NULL;
	struct dedupe *d;
	const char *where;
	__u64 need;
	int err;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		err = -ENOMEM;
		wl__err(WL, err, "allocate state");
		return err;
	}
	err = plan_build(d, o, &co);
	d->group_end = o->group_end;
	d->group_ctx = o->group_ctx;
	if (err)
		goto cleanup;
	need = space_need(d, !o->dir);
	where = o->dir ? o->dir : getenv("TMPDIR");
	if (!where || !*where)
		where = "/tmp";
	err = wl__check_space(WL, where, need);
	if (err)
		goto cleanup;
	err = plan_answers(d);
	if (err) {
		wl__err(WL, err, "allocate %zu answers", d->nres);
		goto cleanup;
	}
	if (o->inject_wrong)
		inject(d);
	d->image_size = o->image_size;
	d->stop_after = o->stop_after;
	d->deadline_base = o->deadline_base ?: WL_DEADLINE_BASE;
	if (!o->dir) {
		err = wl__mkdtemp(WL, NULL, "dedupe", d->tmpdir,
				  sizeof(d->tmpdir));
		for (int i = 0; !err && i < d->plan.nfilesys; i++)
			err = make_fs(d, i);
		if (err)
			goto cleanup;
	}
	d->made = calloc(d->plan.nfiles ? d->plan.nfiles : 1, sizeof(*d->made));
	buf = malloc(WL_CHUNK);
	d->buf[0] = malloc(DD_READ_CHUNK);
	d->buf[1] = malloc(DD_READ_CHUNK);
	/* Allocated here so the traced phase makes no mmap/brk calls. */
	d->req = calloc(1, sizeof(*d->req) +
				   DD_MAX_DESTS * sizeof(d->req->info[0]));
	if (!d->made || !buf || !d->buf[0] || !d->buf[1] || !d->req) {
		err = -ENOMEM;
		wl__err(WL, err, "allocate buffers");
		goto cleanup;
	}
	for (int i = 0; !err && i < d->plan.nfiles; i++)
		err = make_file(d, i, buf);
	if (err)
		goto cleanup;
	*out = d;
cleanup:
	free(buf);
	if (err)
		dedupe__destroy(d);
	return err;
}

static void remove_files(struct dedupe *d)
{
	char path[PATH_MAX];

	for (int i = 0; d->made && i < d->plan.nfiles; i++) {
		/* A loop image goes whole, and its files with it (they may
		 * be on a filesystem remounted read-only meanwhile). */
		if (d->m[d->plan.files[i].filesys].loop.mounted)
			continue;
		if (d->made[i] && !dedupe__file_path(d, i, path, sizeof(path)))
			wl__remove(WL, path, false);
	}
}

void dedupe__destroy(void *state)
{
	struct dedupe *d = state;
	bool busy = false;

	if (!d)
		return;
	remove_files(d);
	for (int i = 0; i < DD_MAX_FILESYS; i++) {
		struct dd_mount *m = &d->m[i];

		if (m->work_made)
			wl__remove(WL, m->work, true);
		busy |= wl__loopfs_remove(WL, &m->loop) != 0;
	}
	if (d->tmpdir[0] && !busy)
		wl__remove(WL, d->tmpdir, true);
	free(d->made);
	free(d->first);
	free(d->want);
	free(d->got);
	free(d->req);
	free(d->buf[0]);
	free(d->buf[1]);
	dd_plan__free(&d->plan);
	free(d);
}
