/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Workloads: drive the kernel paths folioscope traces and check the kernel's
 * answers against ground truth. They run in the calling process, because
 * the BPF programs keep only events of folioscope's own tgid.
 *
 *   dedupe      FIDEDUPERANGE over two identical files on btrfs or xfs
 *               (vfs_dedupe_file_range_compare)
 *   shmem-read  sequential read(2) of a file on a fresh tmpfs mount
 *               (shmem_file_read_iter)
 *
 * Lifecycle: prepare (set up, not traced) -> run (the traced phase, only
 * the measured syscalls) -> destroy (undo everything prepare did).
 */
#ifndef FS_WORKLOAD_H
#define FS_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "model/model.h"

struct wl_opts {
	/* dedupe */
	const char *dir; /* existing dir on btrfs/xfs; NULL = loop-mounted fs */
	const char *fs;	 /* "btrfs" (default) or "xfs" */
	__u64 range;	 /* bytes per dedupe range, default 128 KiB */
	unsigned int count; /* FIDEDUPERANGE calls, default 64 */
	/* shmem-read */
	const char *huge; /* tmpfs huge=: "always" (default), "never",
			   * "within_size", "advise" */
	__u64 size;	  /* file size, default 16 MiB */
	__u64 bs;	  /* read size, default 64 KiB */
};

struct workload; /* opaque */

void workload__defaults(struct wl_opts *o);
/*
 * Set up (mkfs/mount/write files); name is "dedupe" or "shmem-read".
 * On error: one line on stderr, negative errno, nothing left behind.
 */
int workload__prepare(struct workload **w, const char *name,
		      const struct wl_opts *o);
/*
 * Run the traced phase and record the workload's totals in r. Returns 0,
 * or a negative errno on a setup-like failure; ground-truth mismatches are
 * counted in the "validation_failures" key, not returned.
 */
int workload__run(struct workload *w, struct fs_report *r);
/* Undo everything prepare did. Safe on NULL and after a partial prepare. */
void workload__destroy(struct workload *w);

/*
 * Internal: shared by the files of src/workload/ only. Nothing outside
 * this directory should call what follows.
 */
struct dedupe;
struct shmem;

int dedupe__prepare(struct dedupe **d, const struct wl_opts *o);
int dedupe__run(struct dedupe *d, struct fs_report *r);
void dedupe__destroy(struct dedupe *d);

int shmem__prepare(struct shmem **s, const struct wl_opts *o);
int shmem__run(struct shmem *s, struct fs_report *r);
void shmem__destroy(struct shmem *s);

/* Chunk for writing test files: one PMD-sized folio per pwrite. */
#define WL_CHUNK (2ULL << 20)

/*
 * Print "folioscope: run WL: <fmt>: strerror(-err)" as one line; with
 * err == 0 the ": strerror" part is left out.
 */
void wl__err(const char *wl, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, with " <hint>" after the strerror, e.g. "(want 1 .. 8)". */
void wl__err_hint(const char *wl, int err, const char *hint, const char *fmt,
		  ...) __attribute__((format(printf, 4, 5)));
/* out = dir/name; -ENAMETOOLONG if it does not fit. */
int wl__path(char *out, size_t len, const char *dir, const char *name);
/* mkdtemp "<parent or $TMPDIR or /tmp>/folioscope-<tag>-XXXXXX". */
int wl__mkdtemp(const char *wl, const char *parent, const char *tag, char *out,
		size_t len);
/* unlink or rmdir; a failure other than ENOENT gets an error line. */
void wl__remove(const char *wl, const char *path, bool dir);
/*
 * fork/exec argv (looked up in $PATH, then /usr/sbin and /sbin) with stdout
 * to /dev/null, and wait. On failure the error line quotes the first line
 * of the tool's stderr and names its last argument.
 */
int wl__exec(const char *wl, char *const argv[]);
/* Attach img to a free loop device that detaches itself on last close. */
int wl__loop_attach(const char *wl, const char *img, char *dev, size_t len,
		    int *loop_fd, bool *made_node);
/* mount(2) nosuid,nodev; returns 0 or negative errno and prints nothing,
 * so callers can word the error (tmpfs huge= needs its own hint). */
int wl__mount(const char *src, const char *dir, const char *fstype,
	      const char *data);
/* umount2, retrying briefly while busy and then detaching lazily (with an
 * error line); a negative errno means it is still mounted. */
int wl__umount(const char *wl, const char *dir);

/* The deterministic test data: the byte at file offset off. */
static inline unsigned char wl__pattern_byte(__u64 off)
{
	/* Golden-ratio hash of the 8-byte word index: no zero runs, and a
	 * misplaced block shows up as a mismatch. */
	__u64 v = ((off >> 3) + 1) * 0x9e3779b97f4a7c15ULL;

	v ^= v >> 32;
	return (unsigned char)(v >> ((off & 7) * 8));
}

void wl__pattern_fill(void *buf, __u64 off, size_t len);
/* Number of bytes of buf that differ from the pattern at off. */
size_t wl__pattern_check(const void *buf, __u64 off, size_t len);
/* Write size bytes of pattern to fd in WL_CHUNK pwrites. */
int wl__write_pattern(const char *wl, int fd, const char *path, __u64 size);

#endif /* FS_WORKLOAD_H */
