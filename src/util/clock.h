/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef FS_UTIL_CLOCK_H
#define FS_UTIL_CLOCK_H

#include <linux/types.h>

/* CLOCK_MONOTONIC in milliseconds: deadlines and durations that a change
 * of the wall clock does not move. */
__u64 clock__now_ms(void);

#endif /* FS_UTIL_CLOCK_H */
