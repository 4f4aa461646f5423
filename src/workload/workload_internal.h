/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the files of src/workload/ share, and their unit tests: the
 * counts a workload keeps for the probes, the interface of a mode (the
 * table in workload.c), and the support layer (error lines, paths,
 * tools, mounts, the watchdog, file I/O, memory). The rest of folioscope
 * uses workload.h; each room of the workloads has a header of its own
 * (read.h, pattern.h, caps.h, shmem_truth.h, dedupe_truth.h, ops.h,
 * random.h, throughput.h).
 */
#ifndef FS_WORKLOAD_INTERNAL_H
#define FS_WORKLOAD_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/types.h>
#include <stddef.h>
#include <linux/types.h>
#include "workload/workload.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024)

static inline __u64 wl__min(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

static inline __u64 wl__max(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

/* The counts at each level (see workload__totals). */
struct wl_totals {
	/* cmp: the compares that ran (the prep's checks passed and left a
	 * length to compare): SAME or DIFFERS, never an error. */
	struct wl_count func, one, sys, cmp;
	/* Reads that no read syscall shows: by io_uring, through a pipe in
	 * the kernel, by a loop device's worker (each call made). */
	__u64 via_uring, via_pipe, via_loop;
	/* Calls made, by way into the read (shmem-read). */
	__u64 way_calls[WL_WAY_NR];
};

void wl_totals__add(struct wl_totals *a, const struct wl_totals *b);

/*
 * What a mode of a workload does (workload.c picks one by the workload
 * and enum wl_mode): set up from the options, time (NULL: nothing to
 * time), run the traced phase into a report, the counts for the probes,
 * shrink its failures after the report is collected (NULL: none), undo
 * everything. space: the bytes a run of o needs where it is set up (RAM
 * or the images' disk), without setting anything up.
 */
struct wl_mode_ops {
	int (*prepare)(void **state, const struct wl_opts *o);
	/* space counts RAM (else the disk where images live) */
	bool space_in_ram;
	int (*space)(const struct wl_opts *o, __u64 *bytes);
	int (*timed)(void *state, struct fs_report *r);
	int (*run)(void *state, struct fs_report *r);
	const struct wl_totals *(*totals)(const void *state);
	void (*shrink)(void *state, struct fs_report *r);
	void (*destroy)(void *state);
};

/* The modes: dedupe.c's and shmem.c's layouts (one, a matrix, the
 * seed's), shmem.c's throughput, random.c's and ops.c's. */
extern const struct wl_mode_ops wl_dedupe_layouts, wl_shmem_layouts,
	wl_shmem_throughput, wl_random_layouts, wl_op_sequences;
/* The mode of workload k (NULL: it has none such). */
const struct wl_mode_ops *wl_mode__ops(enum wl_kind k, enum wl_mode m);

/* Chunk for writing test files: one PMD-sized folio per pwrite. */
#define WL_CHUNK (2ULL << 20)
#define WL_PMD (2ULL << 20)

/* ---- error lines (err.c) ---- */

/*
 * Print "folioscope: run WL: <fmt>: strerror(-err)" as one line; with
 * err == 0 the ": strerror" part is left out.
 */
void wl__err(const char *wl, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, with " <hint>" after the strerror, e.g. "(want 1 .. 8)". */
void wl__err_hint(const char *wl, int err, const char *hint, const char *fmt,
		  ...) __attribute__((format(printf, 4, 5)));

/* ---- paths and temp dirs (path.c) ---- */

/* out = dir/name; -ENAMETOOLONG if it does not fit. */
int wl__path(char *out, size_t len, const char *dir, const char *name);
/* mkdtemp "<parent or $TMPDIR or /tmp>/folioscope-<tag>-XXXXXX". */
int wl__mkdtemp(const char *wl, const char *parent, const char *tag, char *out,
		size_t len);
/* unlink or rmdir; a failure other than ENOENT gets an error line. */
void wl__remove(const char *wl, const char *path, bool dir);

/* ---- external tools (proc.c) ---- */

/*
 * fork/exec argv (looked up in $PATH, then /usr/sbin and /sbin) with stdout
 * to /dev/null, and wait. On failure the error line quotes the first line
 * of the tool's stderr and names its last argument.
 */
int wl__exec(const char *wl, char *const argv[]);

/* ---- mounts and loop devices (mount.c) ---- */

/*
 * Move the calling process, which must have a single thread, into a
 * mount namespace of its own (see workload__prepare); one error line and
 * a negative errno on failure.
 */
int wl__private_mounts(const char *wl);
/* Attach img to a free loop device that detaches itself on last close. */
int wl__loop_attach(const char *wl, const char *img, char *dev, size_t len,
		    int *loop_fd, bool *made_node);
/* mount(2) nosuid,nodev; returns 0 or negative errno and prints nothing,
 * so callers can word the error (tmpfs huge= needs its own hint). */
int wl__mount(const char *src, const char *dir, const char *fstype,
	      const char *data);
/* A tmpfs of size bytes with huge= at dir (mode 0700); one error line
 * (naming CONFIG_TRANSPARENT_HUGEPAGE where huge= is refused) on
 * failure. */
int wl__tmpfs_mount(const char *wl, const char *dir, enum wl_huge huge,
		    __u64 size);
/* Remount the tmpfs at dir with huge= (prints nothing). */
int wl__tmpfs_remount(const char *dir, enum wl_huge huge);
/* A filesystem on a loop device over a sparse image in dir. */
struct wl_loopfs {
	char img[PATH_MAX];
	char mnt[PATH_MAX];
	char loopdev[32];
	__u64 img_size;
	bool img_made, mnt_made, mounted, loop_node_made;
};
/*
 * dir/imgIDX (size bytes, rounded up to a MiB), mkfs'd as t (btrfs, or
 * xfs with bs-byte blocks and reflink), bound to a loop device that
 * detaches itself when unmounted, mounted at dir/mntIDX. One error line
 * on failure; m says what was made either way.
 */
int wl__loopfs_make(const char *wl, const char *dir, int idx, enum wl_fstype t,
		    __u32 bs, __u64 size, struct wl_loopfs *m);
/* Undo wl__loopfs_make; -EBUSY (and all kept) when it is still mounted. */
int wl__loopfs_remove(const char *wl, struct wl_loopfs *m);
/* umount2, retrying briefly while busy and then detaching lazily (with an
 * error line); a negative errno means it is still mounted. */
int wl__umount(const char *wl, const char *dir);

/* ---- bounds and the watchdog (watch.c) ---- */

/* Failure kinds of a layout that does not end as its ground truth says. */
#define WL_KIND_POSITION "position"	  /* file position not where due */
#define WL_KIND_NO_PROGRESS "no progress" /* more calls than it needs */
#define WL_KIND_TIMEOUT "timeout"	  /* past its deadline */
/* What a layout's calls need could not be made (a reader's file, its
 * output, ring or loop device): the layout is not run. */
#define WL_KIND_SETUP "set-up"

/* Default base of every layout's deadline, seconds (--deadline-base). */
#define WL_DEADLINE_BASE 30

__u64 wl__now_ns(void);
/* ns as milliseconds to the microsecond ("63.561", "-0.020") in buf. */
const char *wl__ms_text(__s64 ns, char *buf, size_t n);
/*
 * The time a layout of calls kernel calls moving bytes bytes may take:
 * base seconds, plus 2 s per MiB and 20 ms per call, which even an
 * emulated (TCG) guest on a busy host stays well inside.
 */
static inline __u64 wl__deadline_ns(__u64 base_s, __u64 bytes, __u64 calls)
{
	return base_s * 1000000000ULL + (bytes >> 20) * 2000000000ULL +
	       calls * 20000000ULL;
}

#define WL_WATCH_SLOTS 64
struct wl_watch;
/* Writes the layout of the call in a slot, for the timeout report. */
typedef void (*wl_watch_describe_fn)(const void *arg, char *buf, size_t n);
/* Start the watchdog thread; failures go to r (see watch.c). On a call
 * that never returns it calls the hook wl_watch__on_stuck set, if any,
 * then ends the process. */
int wl_watch__start(struct wl_watch **w, const char *wl, struct fs_report *r);
/* The calling thread enters a kernel call that may take limit_ns; slot
 * is the thread's own (a reader index). No-ops on a NULL watchdog. */
void wl_watch__enter(struct wl_watch *w, int slot, __u64 limit_ns,
		     wl_watch_describe_fn describe, const void *arg);
void wl_watch__leave(struct wl_watch *w, int slot);
void wl_watch__stop(struct wl_watch *w);
/* The hook of a call that never returns (workload__on_stuck). */
void wl_watch__on_stuck(wl_stuck_fn fn, void *ctx);

/* ---- file I/O and the page cache (io.c) ---- */

/* pread/pwrite all of len at off; -EIO for an unexpected EOF. */
int wl__pread_full(int fd, void *buf, size_t len, __u64 off);
int wl__pwrite_full(int fd, const void *buf, size_t len, __u64 off);
/*
 * Pages of the file behind fd in the page cache (mincore on a mapping):
 * *cached of *pages. Proves a "cold" range really is not cached.
 */
int wl__cached_pages(int fd, __u64 size, __u64 *cached, __u64 *pages);

/* ---- memory (mem.c) ---- */

/* ShmemHugePages from /proc/meminfo in kB; 0 when absent (no THP). */
__u64 wl__shmem_huge_kb(void);
/* MemAvailable in bytes (free RAM without it; 0 when unknown). */
__u64 wl__mem_available(void);
/*
 * Refuse a workload that would pin more than half of MemAvailable in RAM
 * (tmpfs pages cannot be reclaimed without swap): one error line naming
 * what (e.g. "--size '24G'") and -ENOMEM. RAM-backed data must never be
 * able to fill the machine.
 */
int wl__check_mem(const char *wl, const char *what, __u64 need);
/*
 * Refuse need bytes of test files in the directory where: more than its
 * filesystem has free (-ENOSPC), or, where it is in RAM, more than
 * wl__check_mem allows (-ENOMEM); one error line either way.
 */
int wl__check_space(const char *wl, const char *where, __u64 need);

/* need fits in half of avail (a safe share; unknown avail = 0: no). */
static inline bool wl__mem_fits(__u64 need, __u64 avail)
{
	return need <= avail / 2;
}

#endif /* FS_WORKLOAD_INTERNAL_H */
