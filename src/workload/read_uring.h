/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * io_uring's reads (read_uring.c), for the read engine (read.h) and the
 * kernel's capabilities (caps.c).
 */
#ifndef FS_WORKLOAD_READ_URING_H
#define FS_WORKLOAD_READ_URING_H

#include <stdbool.h>
#include <sys/uio.h>
#include <linux/types.h>
#include <liburing.h>

#include "workload/ways.h"

/*
 * A ring's io-wq workers and task work belong to the thread that made it
 * and outlive the ring (its teardown adds task work to that thread after
 * the ring is closed), and that task work marks the thread as signalled:
 * a later splice, sendfile or copy_file_range on it would stop short or
 * restart, and the kernel would read again what it had read. So a ring
 * lives on a thread that makes no such call after it: a reader's own, or
 * one made for a single read (wl_uring__once).
 */
struct wl_uring {
	struct io_uring ring;
	bool ok;
};

/* A ring, with fixed (if not NULL) registered for read_fixed. -errno;
 * *failed names the step ("ring", "registered buffers"). */
int wl_uring__open(struct wl_uring *u, const struct iovec *fixed,
		   const char **failed);
/* One read by way w (read, readv, read_fixed from the registered
 * buffer) of fd at off, waited for: its result or -errno. */
int wl_uring__read(struct wl_uring *u, enum wl_way w, int fd,
		   const struct iovec *iov, __u32 niov, __u64 off);
void wl_uring__close(struct wl_uring *u);
/* wl_uring__open, wl_uring__read (none for fd < 0: the ring alone, to
 * see that the kernel has one) and wl_uring__close on a thread of their
 * own. */
int wl_uring__once(enum wl_way w, int fd, const struct iovec *iov, __u32 niov,
		   __u64 off, const struct iovec *fixed, const char **failed);

#endif /* FS_WORKLOAD_READ_URING_H */
