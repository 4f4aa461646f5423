/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Random layouts (random.c) and the shrinking of what fails (shrink.c).
 *
 * A random layout is one layout of the workload (the options a plain
 * "run dedupe" or "run shmem-read" takes), so the command that replays it
 * is those options, and it runs through the same code and checks as any
 * layout given on the command line.
 */
#ifndef FS_WORKLOAD_RANDOM_H
#define FS_WORKLOAD_RANDOM_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "workload/workload_internal.h"

/*
 * Layout index of seed: filesystem and block size, ranges and offsets
 * (dedupe) or huge=, fill, size, way in and buffer (shmem-read), drawn
 * from a stream of its own, so that it does not depend on the layouts
 * before it. base gives what is not drawn (the workload, --fs,
 * --deadline-base, --buf-tmpfs, ...).
 */
void wl_rand__draw(__u64 seed, unsigned int index, __u32 page,
		   const struct wl_opts *base, struct wl_opts *out);
/* "folioscope run WL --opt val ..." that runs exactly layout o. */
void wl_rand__command(const struct wl_opts *o, char *buf, size_t n);
/* Does the workload accept layout o (the command line's checks)? */
bool wl_rand__valid(const struct wl_opts *o, __u32 page);

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

#endif /* FS_WORKLOAD_RANDOM_H */
