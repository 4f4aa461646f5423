// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dedupe workload: FIDEDUPERANGE over ranges whose contents the tool wrote
 * itself (vfs_dedupe_file_range_compare), so it knows every answer:
 *
 *   default   one layout from the options: --count ranges of --range bytes
 *             from --src-off of one file to --dst-off of --dests files (or
 *             of the same file), optionally differing in one byte, cold
 *   --matrix  the default matrix (truth.c) on btrfs and on xfs with 4096,
 *             1024 and 2048 byte blocks, so that offsets sit at different
 *             places inside a page
 *   --files   the seed's workload: N identical files, deduped against the
 *             first, with totals
 *
 * Each destination's status and bytes_deduped is one check; after the
 * traced ioctls every compared range is read back from disk and must still
 * hold what was written (one check per range).
 *
 * The files live on fresh loop-mounted btrfs/xfs images, or in a temp dir
 * under --dir when that is on btrfs or xfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <linux/fs.h>
#include <linux/magic.h>

#include "workload/safedir.h"
#include "workload/workload_internal.h"

#define WL "dedupe"
/* A destination (or source) whose bytes the dedupe replaced. */
#define DD_KIND_DATA_CHANGED "data changed"
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
#define READ_CHUNK (1ULL << 20)

struct dd_mount {
	struct wl_loopfs fs; /* loop mode */
	/* Where the files go: the mount point, or a temp dir in --dir. */
	char work[PATH_MAX];
	bool work_made;
};

struct dedupe {
	struct dd_plan plan;
	const char *mode; /* "custom", "matrix" or "seed" */
	/* Loop mode: tmpdir holds the images and mount points. */
	char tmpdir[PATH_MAX];
	struct dd_mount m[DD_MAX_FS];
	bool *made;    /* per file */
	size_t *first; /* per case: index of its first result */
	size_t nres;
	struct dd_expect *want; /* per (case, range, destination) */
	struct dd_result *got;
	struct file_dedupe_range *req;
	unsigned char *buf[2]; /* READ_CHUNK each, for the read-back */
	bool inject;
	__u64 image_size, stop_after; /* see struct wl_opts */
	__u64 deadline_base;	      /* seconds */
	struct wl_watch *watch;
	/* The ioctl in flight, for the watchdog. */
	const struct dd_case *cur_case;
	__u32 cur_k;
	/* Cases whose ioctls ran; an environment fault stops the rest. */
	int ncases_run;
	/* The first environment fault of the traced phase (-errno, 0 none)
	 * and the filesystem it hit. */
	int env_err, env_fs;
	__u64 cold_files, cold_cached, warm_uncached;
	__u64 ra_files; /* read back through readahead */
	struct wl_totals tot;
	wl_group_fn group_end;
	void *group_ctx;
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

static bool pow2(__u64 v)
{
	return v && !(v & (v - 1));
}

/* Option checks that need no filesystem; one error line each. */
static int check_opts(const struct wl_opts *o, __u32 page)
{
	const char *fs = o->fs ? o->fs : "btrfs";
	int err = -EINVAL;

	if (strcmp(fs, "btrfs") && strcmp(fs, "xfs")) {
		wl__err(WL, err, "--fs '%s'", fs);
		return err;
	}
	if (o->block_size) {
		if (o->dir) {
			wl__err_hint(WL, err, "(the block size is --dir's own)",
				     "--block-size with --dir");
			return err;
		}
		if (!strcmp(fs, "btrfs") && o->block_size != page) {
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
	if (o->matrix)
		return 0;
	if (o->differ && dd_diff__parse(o->differ) < 0) {
		wl__err_hint(WL, err,
			     "(want none, first, middle, word-end, "
			     "word-start, last or past)",
			     "--differ '%s'", o->differ);
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
	__u32 bs = d->plan.fs[0].bs;
	char hint[96];

	if (o->matrix || !o->range || !(o->range % bs))
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
	err = dd_plan__add_fs(&d->plan, name, (__u32)sfs.f_bsize);
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

	if (!o->matrix || o->block_size) {
		const char *fs = o->fs ? o->fs : "btrfs";
		__u32 bs = o->block_size	  ? o->block_size
			   : !strcmp(fs, "btrfs") ? page
						  : 4096;

		err = dd_plan__add_fs(&d->plan, fs, bs);
		return err < 0 ? err : 0;
	}
	if (!o->fs || !strcmp(o->fs, "btrfs"))
		err = dd_plan__add_fs(&d->plan, "btrfs", page);
	for (size_t i = 0; err >= 0 && i < 3; i++)
		if (!o->fs || !strcmp(o->fs, "xfs"))
			if (xfs_bs[i] <= page)
				err = dd_plan__add_fs(&d->plan, "xfs",
						      xfs_bs[i]);
	return err < 0 ? err : 0;
}

static __u64 fs_data(const struct dd_plan *p, int fs)
{
	__u64 sum = 0;

	for (int i = 0; i < p->nfiles; i++)
		if (p->files[i].fs == fs)
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

	for (int i = 0; i < d->plan.nfs; i++) {
		__u64 data = fs_data(&d->plan, i);

		need += data + data / 8;
		if (loop)
			need += strcmp(d->plan.fs[i].fs, "xfs")
					? MKFS_BYTES_BTRFS
					: MKFS_BYTES_XFS;
	}
	return need;
}

/* Sparse image, mkfs, loop device, mount, for filesystem i. */
static int make_fs(struct dedupe *d, int i)
{
	const struct dd_fsinfo *fs = &d->plan.fs[i];
	struct dd_mount *m = &d->m[i];
	__u64 size = d->image_size ? d->image_size
				   : fs_data(&d->plan, i) * 2 + IMG_META;
	int err;

	if (size < IMG_MIN)
		size = IMG_MIN;
	err = wl__loopfs_make(WL, d->tmpdir, i, fs->fs, fs->bs, size, &m->fs);
	if (!err)
		snprintf(m->work, sizeof(m->work), "%s", m->fs.mnt);
	return err;
}

static int file_path(const struct dedupe *d, int i, char *buf, size_t n)
{
	char name[32];

	snprintf(name, sizeof(name), "f%07d", i);
	return wl__path(buf, n, d->m[d->plan.files[i].fs].work, name);
}

/*
 * Errors that say the filesystem under the run filled up or was made
 * read-only, not that the kernel answered wrong: they are reported as a
 * disturbed environment, never as a failed check.
 */
static bool env_err(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EROFS;
}

/* What an environment fault did to filesystem fs, in words; false when
 * err is not one. */
static bool env_why(const struct dedupe *d, int fs, int err, char *buf,
		    size_t n)
{
	const struct dd_mount *m = &d->m[fs];
	const char *type = d->plan.fs[fs].fs;

	if (!env_err(err))
		return false;
	if (err == -EROFS)
		snprintf(buf, n, "%s filesystem '%s' was remounted read-only",
			 type, m->fs.mounted ? m->fs.mnt : m->work);
	else if (m->fs.img_made)
		snprintf(buf, n, "%s image '%s' of %llu MiB is full (%s)", type,
			 m->fs.img, (unsigned long long)(m->fs.img_size >> 20),
			 err == -ENOSPC ? "ENOSPC" : "EDQUOT");
	else
		snprintf(buf, n, "%s filesystem of '%s' is full (%s)", type,
			 m->work, err == -ENOSPC ? "ENOSPC" : "EDQUOT");
	return true;
}

/* Keep the first environment fault of the traced phase. */
static void env_note(struct dedupe *d, int err, int file)
{
	if (d->env_err)
		return;
	d->env_err = err;
	d->env_fs = d->plan.files[file].fs;
}

/* A file operation of prepare failed on filesystem fs: one line, which
 * for an environment fault says so and names the image or directory. */
static void file_err(const struct dedupe *d, int fs, int err, const char *what,
		     const char *path)
{
	char why[PATH_MAX + 96], hint[96];

	if (!env_why(d, fs, err, why, sizeof(why))) {
		wl__err(WL, err, "%s '%s'", what, path);
		return;
	}
	snprintf(hint, sizeof(hint), "(the test files need %llu MiB%s)",
		 (unsigned long long)(fs_data(&d->plan, fs) >> 20),
		 d->m[fs].fs.img_made ? "; use a larger --image-size" : "");
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

	err = file_path(d, i, path, sizeof(path));
	if (err) {
		wl__err(WL, err, "path of file %d", i);
		return err;
	}
	fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		file_err(d, f->fs, err, "create", path);
		return err;
	}
	d->made[i] = true;
	for (off = 0; off < f->size; off += piece) {
		size_t len = f->size - off < piece ? f->size - off : piece;

		dd_file__fill(f, off, buf, len);
		err = wl__pwrite_full(fd, buf, len, off);
		if (err) {
			file_err(d, f->fs, err, "write", path);
			goto cleanup;
		}
	}
	/* Dedupe writes back dirty pages before it compares; do that now
	 * so the traced ioctls are the compare, not delalloc/writeback. */
	if (fsync(fd)) {
		err = -errno;
		file_err(d, f->fs, err, "fsync", path);
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
	d->mode = o->matrix ? "matrix" : o->files ? "seed" : "custom";
	err = o->dir ? use_dir(d, o->dir) : pick_fs(d, o);
	if (err)
		return err;
	err = check_range(d, co);
	if (err)
		return err;
	for (int i = 0; !err && i < d->plan.nfs; i++) {
		err = o->matrix	 ? dd_plan__matrix(&d->plan, i)
		      : o->files ? dd_plan__seed(&d->plan, i, co)
				 : dd_plan__custom(&d->plan, i, co);
		/* After the filesystem's own matrix, so cases stay grouped
		 * per filesystem. */
		if (!err && o->matrix && !o->no_large_layouts)
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

int dedupe__prepare(struct dedupe **out, const struct wl_opts *o)
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
		for (int i = 0; !err && i < d->plan.nfs; i++)
			err = make_fs(d, i);
		if (err)
			goto cleanup;
	}
	d->made = calloc(d->plan.nfiles ? d->plan.nfiles : 1, sizeof(*d->made));
	buf = malloc(WL_CHUNK);
	d->buf[0] = malloc(READ_CHUNK);
	d->buf[1] = malloc(READ_CHUNK);
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

static int open_file(const struct dedupe *d, int i, int flags)
{
	char path[PATH_MAX];
	int fd;

	if (file_path(d, i, path, sizeof(path)))
		return -ENAMETOOLONG;
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The layout of the ioctl in flight (wl_watch_describe_fn). */
static void describe(const void *arg, char *buf, size_t n)
{
	const struct dedupe *d = arg;

	dd__layout(&d->plan, d->cur_case, d->cur_k, 0, buf, n);
}

/* The traced phase of one case: its ioctls, nothing else but open/close. */
static int run_case(struct dedupe *d, int ci)
{
	const struct dd_case *c = &d->plan.cases[ci];
	struct file_dedupe_range_info *info = d->req->info;
	int fds[DD_MAX_DESTS + 1], err = 0, file = c->src;
	unsigned int j, nfd = 0;

	fds[nfd] = open_file(d, c->src, O_RDONLY);
	if (fds[nfd] < 0) {
		err = fds[nfd];
		goto cleanup;
	}
	nfd++;
	for (j = 0; j < c->ndest; j++, nfd++) {
		file = c->dest[j].file;
		fds[nfd] = open_file(d, file, O_RDWR);
		if (fds[nfd] < 0) {
			err = fds[nfd];
			goto cleanup;
		}
	}
	for (__u32 k = 0; k < c->count; k++) {
		struct dd_result *res =
			&d->got[d->first[ci] + (size_t)k * c->ndest];
		int ret;

		memset(d->req, 0, sizeof(*d->req) + c->ndest * sizeof(*info));
		d->req->src_offset = c->src_off + (__u64)k * c->len;
		d->req->src_length = c->len;
		d->req->dest_count = c->ndest;
		for (j = 0; j < c->ndest; j++) {
			info[j].dest_fd = fds[1 + j];
			info[j].dest_offset =
				c->dest[j].off + (__u64)k * c->len;
		}
		d->cur_case = c;
		d->cur_k = k;
		wl_watch__enter(
			d->watch, 0,
			wl__deadline_ns(d->deadline_base, c->len * c->ndest, 1),
			describe, d);
		ret = ioctl(fds[0], FIDEDUPERANGE, d->req) ? -errno : 0;
		wl_watch__leave(d->watch, 0);
		for (j = 0; j < c->ndest; j++) {
			res[j].ioctl_err = ret;
			res[j].status = ret ? 0 : info[j].status;
			res[j].bytes = ret ? 0 : info[j].bytes_deduped;
		}
	}
cleanup:
	while (nfd)
		close(fds[--nfd]);
	/* A filesystem made read-only (or full) under the run: the cases
	 * left cannot run, which says nothing about the kernel. */
	if (env_err(err)) {
		env_note(d, err, file);
		return err;
	}
	if (err)
		wl__err(WL, err, "open the files of case '%s'", c->name);
	return err;
}

static void layout(const struct dedupe *d, const struct dd_case *c, __u32 k,
		   unsigned int j, const char *extra, char *buf, size_t n)
{
	size_t len;

	dd__layout(&d->plan, c, k, j, buf, n);
	len = strlen(buf);
	snprintf(buf + len, n - len, "%s%s", extra,
		 d->inject && c == d->plan.cases && !k && !j
			 ? " injected=wrong-expectation"
			 : "");
}

/*
 * Read [off, off + len) of file i back and compare it with what was
 * written. Returns the number of bytes that differ (0: unchanged), or
 * -errno; *where and the bytes tell about the first difference, *last
 * is the last byte that differs.
 */
static __s64 read_back(struct dedupe *d, int i, __u64 off, __u64 len,
		       __u64 *where, __u64 *last, unsigned char *want,
		       unsigned char *got)
{
	const struct dd_file *f = &d->plan.files[i];
	__s64 bad = 0;
	int fd, err = 0;

	if (off >= f->size)
		return 0;
	if (len > f->size - off)
		len = f->size - off;
	fd = open_file(d, i, O_RDONLY);
	if (fd < 0)
		return fd;
	/* From disk, not from pages the dedupe left behind. */
	posix_fadvise(fd, off, len, POSIX_FADV_DONTNEED);
	while (len) {
		size_t n = len < READ_CHUNK ? len : READ_CHUNK, x;

		err = wl__pread_full(fd, d->buf[1], n, off);
		if (err)
			break;
		dd_file__fill(f, off, d->buf[0], n);
		x = wl__first_diff(d->buf[0], d->buf[1], n);
		if (x < n && !bad) {
			*where = off + x;
			*want = d->buf[0][x];
			*got = d->buf[1][x];
		}
		/* Every byte that was replaced, and the last of them. */
		for (; x < n; x++) {
			if (d->buf[0][x] == d->buf[1][x])
				continue;
			bad++;
			*last = off + x;
		}
		off += n;
		len -= n;
	}
	close(fd);
	return err ? err : bad;
}

static void check_read_back(struct dedupe *d, struct fs_report *r,
			    const struct dd_case *c, __u32 k, unsigned int j,
			    bool src, __u64 *rereads)
{
	int file = src ? c->src : c->dest[j].file;
	__u64 off = (src ? c->src_off : c->dest[j].off) + (__u64)k * c->len;
	__u64 len = c->len < DD_CAP ? c->len : DD_CAP, where = 0, last = 0;
	unsigned char want = 0, got = 0;
	char lay[320], msg[96];
	__s64 bad;

	bad = read_back(d, file, off, len, &where, &last, &want, &got);
	(*rereads)++;
	if (bad < 0)
		snprintf(msg, sizeof(msg), "read error: %s", strerror(-bad));
	else if (bad)
		snprintf(msg, sizeof(msg),
			 "%lld bytes replaced in [%llu, %llu]; at %llu: want "
			 "0x%02x, got 0x%02x",
			 (long long)bad, (unsigned long long)where,
			 (unsigned long long)last, (unsigned long long)where,
			 want, got);
	else
		snprintf(msg, sizeof(msg), "as written");
	layout(d, c, k, j, src ? " reread=src" : " reread=dst", lay,
	       sizeof(lay));
	/* Data the dedupe replaced is the worst outcome there is: a kind
	 * of its own, apart from a wrong answer. */
	model__check_kind(r, bad == 0,
			  bad > 0 ? DD_KIND_DATA_CHANGED : FS_CASE_ANSWER, lay,
			  "as written", msg);
}

/*
 * Record an environment fault of the traced phase in the report; a
 * filesystem found read-only now was remounted during the run (it was
 * written in prepare), even if no answer showed it.
 */
static void note_disturbed(struct dedupe *d, struct fs_report *r,
			   __u64 unjudged)
{
	char why[PATH_MAX + 96];
	struct statvfs sv;

	for (int i = 0; !d->env_err && i < d->plan.nfs; i++) {
		const char *dir =
			d->m[i].fs.mounted ? d->m[i].fs.mnt : d->m[i].work;

		if (!statvfs(dir, &sv) && (sv.f_flag & ST_RDONLY)) {
			d->env_err = -EROFS;
			d->env_fs = i;
		}
	}
	if (!env_why(d, d->env_fs, d->env_err, why, sizeof(why)))
		return;
	model__disturbed(r, unjudged, "%s during the run", why);
}

/* Case ci's group of layouts: its filesystem and block size. */
static void group_name(const struct dedupe *d, int ci, char *name, size_t n)
{
	const struct dd_plan *p = &d->plan;
	int fs = p->files[p->cases[ci].src].fs;

	snprintf(name, n, "%s bs=%u", p->fs[fs].fs, p->fs[fs].bs);
}

/* Case ci ran: was it its filesystem's last? Then that group ends. */
static void group_done(const struct dedupe *d, int ci)
{
	const struct dd_plan *p = &d->plan;
	int fs = p->files[p->cases[ci].src].fs;
	char name[32];

	if (!d->group_end ||
	    (ci + 1 < p->ncases && p->files[p->cases[ci + 1].src].fs == fs))
		return;
	group_name(d, ci, name, sizeof(name));
	d->group_end(d->group_ctx, p->fs[fs].fs, name);
}

int dedupe__run(struct dedupe *d, struct fs_report *r)
{
	const struct dd_plan *p = &d->plan;
	__u64 same = 0, differs = 0, errors = 0, ioctl_errors = 0, ioctls = 0,
	      deduped = 0;
	__u64 rereads = 0, unjudged = 0;
	char lay[320], want[96], got[96], fsl[64] = "", bsl[64] = "";
	char group[32];
	int err = 0, first_err = 0;

	/* A kernel call that never returns still ends the run with a
	 * verdict (watch.c). */
	err = wl_watch__start(&d->watch, WL, r);
	if (err) {
		wl__err(WL, err, "start the watchdog");
		return err;
	}
	/* Traced phase: the ioctls (and open/close), nothing else. */
	for (int c = 0; !err && c < p->ncases; c++) {
		/* A timeout the watchdog finds is this group's failure. */
		group_name(d, c, group, sizeof(group));
		model__check_group(r, group);
		err = run_case(d, c);
		if (!err)
			d->ncases_run = c + 1;
		group_done(d, c);
		/* --stop-after: files closed, so a test may remount now. */
		if (!err && d->stop_after && (__u64)c + 1 == d->stop_after)
			raise(SIGSTOP);
	}
	wl_watch__stop(d->watch);
	d->watch = NULL;
	if (err && !d->env_err)
		return err;
	for (int c = d->ncases_run; c < p->ncases; c++)
		unjudged += (__u64)p->cases[c].count * p->cases[c].ndest;

	/* Checks, then the read-back: dedupe must never change data. */
	for (int ci = 0; ci < d->ncases_run; ci++) {
		const struct dd_case *c = &p->cases[ci];

		group_name(d, ci, group, sizeof(group));
		model__check_group(r, group);
		for (__u32 k = 0; k < c->count; k++) {
			bool src_read = false;

			ioctls++;
			for (unsigned int j = 0; j < c->ndest; j++) {
				size_t i =
					d->first[ci] + (size_t)k * c->ndest + j;
				const struct dd_expect *e = &d->want[i];
				const struct dd_result *g = &d->got[i];
				bool ok = dd__answer_ok(e, g);
				int gerr = g->ioctl_err ?: g->status;

				dd__count(&d->tot, c->len, e, g);
				/* Full or read-only under the run: no verdict
				 * on the kernel, and nothing to read back. */
				if (!ok && env_err(gerr < 0 ? gerr : 0)) {
					env_note(d, gerr, c->dest[j].file);
					unjudged++;
					errors++;
					continue;
				}
				if (g->ioctl_err)
					ioctl_errors++;
				if (g->ioctl_err || g->status < 0)
					errors++;
				else if (g->status == FILE_DEDUPE_RANGE_SAME)
					same++;
				else
					differs++;
				deduped += g->bytes;
				if (!first_err && !ok)
					first_err = g->ioctl_err ?: g->status;
				layout(d, c, k, j, "", lay, sizeof(lay));
				dd__answer(e->ioctl_err, e->status,
					   e->bytes_deduped, want,
					   sizeof(want));
				dd__answer(g->ioctl_err, g->status, g->bytes,
					   got, sizeof(got));
				model__check(r, ok, lay, want, got);
				if (g->ioctl_err || g->status < 0)
					continue;
				if (!src_read)
					check_read_back(d, r, c, k, j, true,
							&rereads);
				src_read = true;
				check_read_back(d, r, c, k, j, false, &rereads);
			}
		}
	}
	note_disturbed(d, r, unjudged);
	/* The matrix expects some errors; only a surprise one gets a hint. */
	if (first_err == -EOPNOTSUPP)
		wl__err_hint(WL, first_err, "(xfs needs reflink=1)",
			     "FIDEDUPERANGE");
	for (int i = 0; i < p->nfs; i++) {
		size_t n = strlen(fsl), m = strlen(bsl);

		snprintf(fsl + n, sizeof(fsl) - n, "%s%s", i ? "," : "",
			 p->fs[i].fs);
		snprintf(bsl + m, sizeof(bsl) - m, "%s%u", i ? "," : "",
			 p->fs[i].bs);
	}
	model__kv_str(r, "mode", d->mode);
	model__kv_str(r, "fs", fsl);
	model__kv_str(r, "block_sizes", bsl);
	if (p->ncases == 1) {
		model__kv_u64(r, "range", p->cases[0].len);
		model__kv_u64(r, "count", p->cases[0].count);
		model__kv_u64(r, "dests", p->cases[0].ndest);
	}
	if (!strcmp(d->mode, "seed")) {
		model__kv_u64(r, "files", p->nfiles);
		model__kv_u64(r, "file_size", p->files[0].size);
	}
	model__kv_u64(r, "cases", p->ncases);
	model__kv_u64(r, "ioctls", ioctls);
	/* Function-level totals; run replaces them with what its plan's
	 * level sees (workload__totals). */
	model__kv_u64(r, "calls", d->tot.func.calls);
	model__kv_u64(r, "bytes", d->tot.func.bytes);
	model__kv_u64(r, "same", same);
	model__kv_u64(r, "differs", differs);
	model__kv_u64(r, "errors", errors);
	/* Of those, destinations of ioctls that failed as a whole. */
	model__kv_u64(r, "ioctl_errors", ioctl_errors);
	model__kv_u64(r, "bytes_deduped", deduped);
	model__kv_u64(r, "rereads", rereads);
	model__kv_u64(r, "cold_files", d->cold_files);
	model__kv_u64(r, "cold_pages_cached", d->cold_cached);
	model__kv_u64(r, "warm_pages_uncached", d->warm_uncached);
	model__kv_u64(r, "readahead_files", d->ra_files);
	if (d->cold_cached)
		wl__err(WL, 0,
			"warning: %llu pages of the cold files stayed in the "
			"page cache after POSIX_FADV_DONTNEED",
			(unsigned long long)d->cold_cached);
	model__kv_u64(r, "validation_checks", r->validation.checks);
	model__kv_u64(r, "validation_failures", r->validation.failures);
	return 0;
}

const struct wl_totals *dedupe__totals(const struct dedupe *d)
{
	return &d->tot;
}

static void remove_files(struct dedupe *d)
{
	char path[PATH_MAX];

	for (int i = 0; d->made && i < d->plan.nfiles; i++) {
		/* A loop image goes whole, and its files with it (they may
		 * be on a filesystem remounted read-only meanwhile). */
		if (d->m[d->plan.files[i].fs].fs.mounted)
			continue;
		if (d->made[i] && !file_path(d, i, path, sizeof(path)))
			wl__remove(WL, path, false);
	}
}

void dedupe__destroy(struct dedupe *d)
{
	bool busy = false;

	if (!d)
		return;
	remove_files(d);
	for (int i = 0; i < DD_MAX_FS; i++) {
		struct dd_mount *m = &d->m[i];

		if (m->work_made)
			wl__remove(WL, m->work, true);
		busy |= wl__loopfs_remove(WL, &m->fs) != 0;
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
