/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ways through a pipe in the kernel (read_piped.c), for the read
 * engine's reader (read.h).
 */
#ifndef FS_WORKLOAD_READ_PIPED_H
#define FS_WORKLOAD_READ_PIPED_H

#include <linux/types.h>

#include "workload/ways.h"

/* Where a piped call puts its bytes (read_piped.c); fds -1 when unused. */
struct wl_piped {
	enum wl_way way;
	__u64 bs;
	int pipe[2], outfd;
};

/* Make p's output for way w's calls of up to bs bytes (dir: the tmpfs
 * of an output file). 0 or -errno; wl_piped__close either way. */
int wl_piped__open(struct wl_piped *p, enum wl_way w, __u64 bs,
		   const char *dir);
/* One call of bs bytes from fd at pos (the file's position left alone),
 * then the bytes it moved back into buf: res as wl_reader__read's. */
void wl_piped__read(struct wl_piped *p, int fd, unsigned char *buf, __u64 bs,
		    __u64 pos, struct wl_read_res *res);
void wl_piped__close(struct wl_piped *p);

#endif /* FS_WORKLOAD_READ_PIPED_H */
