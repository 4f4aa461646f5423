/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ways into a read (enum wl_way, workload.h) as data (ways.c): what
 * each takes, needs of the kernel, where its bytes go and how the probes
 * see its calls; and what one call of the read engine is asked and did.
 * The words every file of the engine (read.h) shares.
 */
#ifndef FS_WORKLOAD_WAYS_H
#define FS_WORKLOAD_WAYS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <linux/types.h>

#include "workload/workload_internal.h"

/* Where a way puts what it read, and so how its bytes come back into
 * the caller's buffer to be checked. */
enum wl_back {
	WL_BACK_USER, /* the user buffer itself */
	WL_BACK_PIPE, /* a pipe, drained into the buffer */
	WL_BACK_FILE, /* an output file, mapped and copied */
	WL_BACK_SOCK, /* a stream socket, received into the buffer */
};

/* What a way needs of the kernel beyond a file to read (caps.c tries
 * each). */
enum wl_need {
	WL_NEED_NONE,
	WL_NEED_URING,	/* io_uring, with a registered buffer */
	WL_NEED_LOOP,	/* a loop device */
	WL_NEED_SOCKET, /* AF_UNIX stream sockets */
	WL_NEED_NR,
};

/* How one call of a way is seen by the probes: at function level
 * (shmem_file_read_iter) and at the syscall level. */
enum wl_seen {
	/* One read syscall and one call of the function; a preadv2 that
	 * the filesystem refuses for its flag (EOPNOTSUPP) never reaches
	 * the function. */
	WL_SEEN_SYSCALL,
	/* One call of the function and no read syscall; 6.1 reads the rest
	 * of a short read once more. */
	WL_SEEN_URING,
	/* Through a pipe in the kernel, no read syscall: a call of the
	 * function per pipe's worth (at most one a page), one at least for
	 * a call that moved bytes, perhaps one for one that moved none. */
	WL_SEEN_PIPED,
	/* The loop worker's, a thread not of this process: none of this
	 * run's. */
	WL_SEEN_NONE,
};

struct wl_way_info {
	const char *name;
	enum wl_need need;
	enum wl_back back;
	enum wl_seen seen;
	bool iovecs; /* takes more than one iovec */
	bool moves;  /* reads at the file position and moves it */
	bool rwf;    /* takes preadv2's flags */
	/* The output file is on another filesystem: a kernel may refuse
	 * with EXDEV, which is its rule, not a failure. */
	bool other_fs;
	/* The output is a range of the file it reads, past its end (cut
	 * back after each call): the file is opened for writing, and read
	 * by one reader alone, since it grows while the call runs. */
	bool same_file;
	/* Whole 512-byte sectors with O_DIRECT, up to the file's last whole
	 * one: a loop device over the file. */
	bool sectors;
};

const struct wl_way_info *wl_way__info(enum wl_way w);

/* The names of the ways t made no call of, ", "-separated ("none": it
 * made calls of every one): what a run of many layouts did not reach. */
void wl_ways__missed(const struct wl_totals *t, char *buf, size_t n);

/* One call: len bytes at pos into buf (iovec ways: into iov[0..niov),
 * which buf starts). */
struct wl_read_req {
	__u64 pos;
	__u64 len;
	unsigned char *buf;
	const struct iovec *iov;
	__u32 niov;
	/* A way that reads at the file position: lseek to pos first. */
	bool seek;
};

/* What one call did. */
struct wl_read_res {
	/* The call was made (else a step before it failed: back_failed
	 * says which, with back_err). */
	bool made;
	ssize_t ret; /* its return, as read(2) gives one */
	int err;     /* errno it set when ret < 0; 0: none set */
	/* Bytes that came back into the buffer from where the way put
	 * them (ret for a way into the buffer itself), or -1 when that
	 * failed: back_failed names the step, back_err its errno (0: the
	 * call set none). */
	ssize_t back;
	int back_err;
	const char *back_failed;
	const char *back_from; /* "the pipe", "the socket", ... */
};

#endif /* FS_WORKLOAD_WAYS_H */
