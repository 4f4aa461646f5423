/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Workloads: drive the kernel paths folioscope traces and check the kernel's
 * answers against ground truth. They run in the calling process, because
 * the BPF programs keep only events of folioscope's own tgid.
 *
 *   dedupe      FIDEDUPERANGE over ranges whose contents the tool built,
 *               on btrfs or xfs (vfs_dedupe_file_range_compare)
 *   shmem-read  read/pread/readv of files on fresh tmpfs mounts
 *               (shmem_file_read_iter)
 *
 * Every answer of the kernel (status, byte count, data read back) is one
 * model__check: a wrong one is kept with the exact layout that caused it.
 *
 * Lifecycle: prepare (set up, not traced) -> run (the traced phase) ->
 * destroy (undo everything prepare did).
 */
#ifndef FS_WORKLOAD_H
#define FS_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "model/model.h"

/*
 * The traced phase finished one group of layouts: one filesystem and
 * block size of dedupe (fs "xfs", name "xfs bs=1024"), one mount of
 * shmem-read (fs "tmpfs", name "tmpfs huge=always"). Called on the
 * workload's thread with no call of the workload in flight, so a run can
 * snapshot the histograms per group.
 */
typedef void (*wl_group_fn)(void *ctx, const char *fs, const char *name);

struct wl_opts {
	bool matrix; /* the default matrix of layouts instead of one */
	/* --random N: N layouts drawn from seed instead of one (0: off) */
	unsigned int random;
	/* --ops N: N operations drawn from seed on a few files checked
	 * against a model of each (0: off); ops_only: "3,17,42", only those
	 * of the N (a shrunk failure's replay) */
	unsigned int ops;
	const char *ops_only;
	__u64 seed;
	/* dedupe --matrix: leave out the layouts that put large folios in
	 * the page cache (a debug option, to show the coverage warning) */
	bool no_large_layouts;
	wl_group_fn group_end; /* NULL: nobody asks */
	void *group_ctx;
	bool inject_wrong; /* debug: flip one expected answer */
	/* debug: SIGSTOP the process after this many traced dedupe cases or
	 * read calls (0 = never), so that a test can change the environment
	 * at a known point and then SIGCONT it */
	__u64 stop_after;
	/* Seconds every layout's deadline starts from (0 = the default):
	 * a layout past its deadline, or a kernel call that has not
	 * returned by then, is a "timeout" failure. */
	__u64 deadline_base;
	/* dedupe */
	const char *dir; /* existing dir on btrfs/xfs; NULL = loop-mounted fs */
	__u64 image_size;   /* loop image size; 0 = fit the data */
	const char *fs;	    /* "btrfs" (default) or "xfs"; matrix: NULL = all */
	__u32 block_size;   /* xfs mkfs -b size=; 0 = default (4096) */
	__u64 range;	    /* bytes per dedupe range; 0 = default */
	unsigned int count; /* ranges (one ioctl each), default 64 */
	__u64 src_off;	    /* first source offset */
	__u64 dst_off;	    /* first destination offset */
	bool dst_off_set;
	unsigned int dests; /* destinations per ioctl, default 1 */
	bool same_file;	    /* destinations are ranges of the source file */
	const char *differ; /* byte that differs per destination, or NULL */
	bool cold;	    /* drop the files' pages before the dedupe */
	unsigned int files; /* seed workload: N identical files, 0 = off */
	__u64 file_size;    /* seed: size of each file; else 0 = fit ranges */
	/* shmem-read */
	const char *huge;     /* tmpfs huge=: "always" (default), "never",
			       * "within_size", "advise" */
	const char *fill;     /* "full" (default), "sparse", "mixed" */
	__u64 size;	      /* file size, default 16 MiB */
	__u64 bs;	      /* read size, default 64 KiB */
	__u64 offset;	      /* first file position read */
	__u64 length;	      /* bytes to read from offset; 0 = to EOF */
	__u64 buf_align;      /* buffer = page-aligned base + buf_align */
	const char *syscall;  /* one of SH_CALL_NAMES, default "read" */
	const char *rwf;      /* preadv2: "none" (default), "nowait",
			       * "hipri" */
	unsigned int iovecs;  /* readv: iovecs per call, default 1 */
	unsigned int readers; /* concurrent reader threads, default 1 */
	/* Reader buffers mapped MAP_SHARED from a tmpfs file (a memfd) and
	 * unmapped before every call, so each read's copy faults them in:
	 * folio lookups of another file inside the read. */
	bool buf_tmpfs;
	/* --throughput: this many timed passes as lean as fio's before the
	 * checked one (0 = off, at most WL_TPUT_MAX_PASSES) */
	unsigned int throughput;
};

#define WL_TPUT_MAX_PASSES 32

struct workload; /* opaque */

/*
 * A kernel call of the workload never returned (past its deadline, the
 * "timeout" failure already in the report): fn(ctx, stack) runs on the
 * watchdog's thread to write the report as the run saw it (stack: the
 * stuck thread's kernel stack, one line), then the process exits 1.
 */
typedef void (*wl_stuck_fn)(void *ctx, const char *stack);
void workload__on_stuck(wl_stuck_fn fn, void *ctx);

/* Whether --ops-only list names operations of --ops n (ascending
 * indices under n, comma-separated). */
bool workload__ops_only_valid(const char *list, unsigned int n);

void workload__defaults(struct wl_opts *o);
/*
 * Set up (mkfs/mount/write files); name is "dedupe" or "shmem-read".
 * On error: one line on stderr, negative errno, nothing left behind.
 * It first moves the calling process, which must have a single thread, into
 * a private mount namespace, so the kernel drops the workload's mounts
 * when the process dies: the stale clean-up (stale.h), which has to see
 * the host's mounts, must run before.
 */
int workload__prepare(struct workload **w, const char *name,
		      const struct wl_opts *o);
/*
 * The untraced timed passes of run shmem-read --throughput, between
 * prepare and the probes' attach; their figures go into r. 0 with
 * nothing to time.
 */
int workload__timed(struct workload *w, struct fs_report *r);
/*
 * Run the traced phase and record the workload's totals in r. Returns 0,
 * or a negative errno on a setup-like failure; ground-truth mismatches are
 * model__check failures (and the "validation_failures" key), not returned.
 */
int workload__run(struct workload *w, struct fs_report *r);
/*
 * The level a plan sees calls at. They differ for dedupe, where an
 * ioctl with an error or a shortened range is seen differently: the
 * remap prep (the compare's callers) sees each destination that gets
 * that far, with the compared length; vfs_dedupe_file_range_one sees
 * every destination of an ioctl that did not fail as a whole, with the
 * compared length when SAME and the request's when DIFFERS; the
 * syscall boundary sees every destination with the length the ioctl
 * reports (the request's for DIFFERS).
 */
/* WL_LEVEL_DEDUPE_CMP: the compare itself, which only requests that pass
 * the prep's range checks with something to compare reach. */
enum wl_level {
	WL_LEVEL_FUNC,
	WL_LEVEL_DEDUPE_ONE,
	WL_LEVEL_SYSCALL,
	WL_LEVEL_DEDUPE_CMP,
};

/*
 * What the traced phase caused as a probe at one level counts it: calls,
 * bytes, and how the calls ended (SAME, DIFFERS, an error; dedupe only
 * has SAME and DIFFERS).
 */
struct wl_count {
	__u64 calls, bytes;
	__u64 same, differs, errors;
	/* Calls the kernel may make on its own beyond calls: io_uring may
	 * read the rest of a short read once more (6.1 does, and that call
	 * returns 0 at EOF), one for each short io_uring read; a call
	 * through a pipe reads a pipe's worth at a time, so up to one a
	 * page it moved (wl_piped__slack). */
	__u64 calls_slack;
};

void workload__totals(const struct workload *w, enum wl_level level,
		      struct wl_count *out);
/*
 * Reconcile target t's probes in r with want (workload__totals at the
 * plan's level): calls, bytes (the bytes histogram's sum) and each of
 * same, differs and errors that t counts. Sets the "reconcile" value to
 * "ok" or "MISMATCH" (or "skipped: ..." when the plan does not measure
 * bytes); on a mismatch one stderr line names every number that differs
 * and it returns -EPROTO.
 */
int workload__reconcile(struct fs_report *r, enum fs_target t,
			const struct wl_count *want);
/*
 * The kernel log of a run (kmsg.c): open /dev/kmsg after its last record
 * (user: debug, records of user space count too, so that a test can
 * write one), then scan what came since: the number of kernel
 * complaints (WARNING, BUG, Oops, KASAN, UBSAN, hung task, ...) with the
 * first one's message in first. wl_kmsg__complaint: the message of one
 * /dev/kmsg record if it is a complaint, else NULL.
 */
#define WL_KIND_KERNEL_LOG "kernel log"
struct wl_kmsg;
int wl_kmsg__open(struct wl_kmsg **k, bool user);
int wl_kmsg__scan(struct wl_kmsg *k, char *first, size_t n);
void wl_kmsg__close(struct wl_kmsg *k);
const char *wl_kmsg__complaint(const char *rec, bool user);
/*
 * --random: shrink each layout that failed to a smallest one that still
 * fails, and print the command that replays it (one stderr line each).
 * Runs after the traced phase's report is collected: its trial runs are
 * not part of it. A no-op for other runs.
 */
void workload__shrink(struct workload *w, struct fs_report *r);
/* Undo everything prepare did. Safe on NULL and after a partial prepare. */
void workload__destroy(struct workload *w);

/*
 * Option values the command line checks while it parses them: the index
 * of a name, or -1 for a name the workload does not know.
 */
int dd_diff__parse(const char *name); /* --differ */
int sh_fill__parse(const char *name); /* --fill */
int sh_call__parse(const char *name); /* --syscall */
/* What sh_call__parse takes, for --help and its usage error. */
#define SH_CALL_NAMES                                                          \
	"read, pread, readv, preadv2, io_uring-read, io_uring-readv, "         \
	"io_uring-read_fixed, splice, sendfile, sendfile-socket, "             \
	"copy_file_range, copy_file_range-other-fs, "                          \
	"copy_file_range-same-file or loop"
/* --rwf: the RWF_* flags of "none", "nowait", "hipri"; -1 else. */
int sh__rwf_parse(const char *name);
/* The most --readers a shmem-read run starts. */
#define SH_MAX_READERS 64
/* The most --random layouts a run draws. */
#define WL_RANDOM_MAX 256
#define WL_OPS_MAX 1000000

#endif /* FS_WORKLOAD_H */
