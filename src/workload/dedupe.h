/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A dedupe run's state, shared by its two files: dedupe_setup.c checks
 * the options, picks the filesystems, makes them (loop images) or a temp
 * dir in --dir, writes the files and works out every answer before
 * anything is traced, and undoes it all; dedupe.c runs the traced
 * ioctls, checks each answer, reads back what was compared, and reports.
 */
#ifndef FS_WORKLOAD_DEDUPE_H
#define FS_WORKLOAD_DEDUPE_H

#include <limits.h>
#include <stdbool.h>
#include <linux/fs.h>
#include <linux/types.h>

#include "workload/dedupe_truth.h"

#define DD_WL "dedupe"
#define DD_READ_CHUNK (1ULL << 20)

struct dd_mount {
	struct wl_loopfs loop; /* loop mode */
	/* Where the files go: the mount point, or a temp dir in --dir. */
	char work[PATH_MAX];
	bool work_made;
};

struct dedupe {
	struct dd_plan plan;
	const char *mode; /* "custom", "matrix" or "seed" */
	/* Loop mode: tmpdir holds the images and mount points. */
	char tmpdir[PATH_MAX];
	struct dd_mount m[DD_MAX_FILESYS];
	bool *made;    /* per file */
	size_t *first; /* per case: index of its first result */
	size_t nres;
	struct dd_expect *want; /* per (case, range, destination) */
	struct dd_result *got;
	struct file_dedupe_range *req;
	unsigned char *buf[2]; /* DD_READ_CHUNK each, for the read-back */
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
	int env_err, env_filesys;
	__u64 cold_files, cold_cached, warm_uncached;
	__u64 ra_files; /* read back through readahead */
	struct wl_totals tot;
	wl_group_fn group_end;
	void *group_ctx;
};

/* dedupe_setup.c */
int dedupe__prepare(void **out, const struct wl_opts *o);
int dedupe__space(const struct wl_opts *o, __u64 *bytes);
void dedupe__destroy(void *state);
/* The path of file i. */
int dedupe__file_path(const struct dedupe *d, int i, char *buf, size_t n);
/*
 * Errors that say the filesystem under the run filled up or was made
 * read-only, not that the kernel answered wrong: they are reported as a
 * disturbed environment, never as a failed check.
 */
bool dedupe__env_err(int err);
/* What an environment fault did to filesystem fsi, in words; false when
 * err is not one. */
bool dedupe__env_why(const struct dedupe *d, int fsi, int err, char *buf,
		     size_t n);
/* Keep the first environment fault of the traced phase. */
void dedupe__env_note(struct dedupe *d, int err, int file);

#endif /* FS_WORKLOAD_DEDUPE_H */
