/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shrinking what fails (shrink.c): a layout (of --random) to a smallest
 * variant that still fails, a sequence of operations (of --ops) to a
 * smallest subsequence that still fails. Deterministic: the same input
 * and answers give the same result.
 */
#ifndef FS_WORKLOAD_SHRINK_H
#define FS_WORKLOAD_SHRINK_H

#include <stdbool.h>
#include <linux/types.h>

#include "workload/workload_internal.h"

/* Calls one reader may make for a drawn layout: keeps a layout (and each
 * trial of its shrinking) to well under a second. */
#define WL_LAYOUT_MAX_CALLS 1024ULL

/* Does the workload accept layout o (the command line's checks)? A
 * shrunk variant must stay one it does. */
bool wl_layout__valid(const struct wl_opts *o, __u32 page);

/* Does layout o still fail? (a run of it, or a test's rule) */
typedef bool (*wl_fails_fn)(void *ctx, const struct wl_opts *o);
/*
 * Shrink failing layout o: try smaller variants of it one at a time
 * (fewer readers, iovecs, destinations and ranges; halved lengths and
 * sizes; offsets moved toward aligned; plainer modes), keep each that
 * still fails, until none does or max_trials ran. Deterministic. Returns
 * the number of trials.
 */
unsigned int wl_shrink(struct wl_opts *o, __u32 page, wl_fails_fn fails,
		       void *ctx, unsigned int max_trials);

/* Does the sequence of operations idx[0..n) still fail? */
typedef bool (*wl_seq_fails_fn)(void *ctx, const __u32 *idx, __u32 n);
/*
 * Shrink a failing sequence of operation indices in place (ddmin: drop
 * chunks, then single operations, while it still fails) until no single
 * one can go or max_trials ran. Deterministic. Returns the trials.
 */
unsigned int wl_shrink_seq(__u32 *idx, __u32 *n, wl_seq_fails_fn fails,
			   void *ctx, unsigned int max_trials);

#endif /* FS_WORKLOAD_SHRINK_H */
