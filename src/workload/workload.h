/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Workloads: drive the kernel paths folioscope traces and check the kernel's
 * answers against ground truth. They run in the calling process, because
 * the BPF programs keep only events of folioscope's own tgid.
 *
 *   dedupe      FIDEDUPERANGE over ranges whose contents the tool built,
 *               on btrfs or xfs (vfs_dedupe_file_range_compare)
 *   shmem-read  reads of files on fresh tmpfs mounts, by every way in
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
#include "workload/options.h"

struct workload; /* opaque */

/*
 * A kernel call of the workload never returned (past its deadline, the
 * "timeout" failure already in the report): fn(ctx, stack) runs on the
 * watchdog's thread to write the report as the run saw it (stack: the
 * stuck thread's kernel stack, one line), then the process exits 1.
 */
typedef void (*wl_stuck_fn)(void *ctx, const char *stack);
void workload__on_stuck(wl_stuck_fn fn, void *ctx);

void workload__defaults(struct wl_opts *o);
/*
 * Set up (mkfs/mount/write files) the workload o->kind in mode o->mode.
 * On error: one line on stderr, negative errno, nothing left behind.
 * It first moves the calling process, which must have a single thread, into
 * a private mount namespace, so the kernel drops the workload's mounts
 * when the process dies: the stale clean-up (stale.h), which has to see
 * the host's mounts, must run before.
 */
int workload__prepare(struct workload **w, const struct wl_opts *o);
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
 * --random and --ops: shrink what failed (each layout, the first
 * failure's sequence) to a smallest that still fails, and print the
 * command that replays it. Runs after the traced phase's report is
 * collected: its trial runs are not part of it. A no-op for other runs.
 */
void workload__shrink(struct workload *w, struct fs_report *r);
/* Undo everything prepare did. Safe on NULL and after a partial prepare. */
void workload__destroy(struct workload *w);

#endif /* FS_WORKLOAD_H */
