/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Random layouts (random.c): drawn from a seed, and the command that
 * replays one; a failing one is shrunk (shrink.h).
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
#endif /* FS_WORKLOAD_RANDOM_H */
