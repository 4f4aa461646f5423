/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What this kernel can do that a workload may need (caps.c): each way
 * into a read has its needs (io_uring, a loop device, AF_UNIX sockets),
 * tried once by making and undoing one; and whether every tmpfs mount
 * gets huge folios whatever its huge= says.
 */
#ifndef FS_WORKLOAD_CAPS_H
#define FS_WORKLOAD_CAPS_H

#include <stdbool.h>
#include <stddef.h>

#include "workload/workload.h"

/* Can way w run here? 0, or -errno with why (a sentence, naming the
 * way) filled; path: a file the loop device is bound to, to try. */
int wl_caps__way(enum wl_way w, const char *wl, const char *path, char *why,
		 size_t n);
/* shmem_enabled is "force": every tmpfs mount makes huge folios. */
bool wl_caps__thp_forced(void);

#endif /* FS_WORKLOAD_CAPS_H */
