// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * io_uring's reads: a ring (with a registered buffer for read_fixed), one
 * read submitted and waited for, and the same on a thread of its own for
 * a caller whose thread must not own a ring (read.h says why).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "workload/read_uring.h"

int wl_uring__open(struct wl_uring *u, const struct iovec *fixed,
		   const char **failed)
{
	int err;

	*failed = "ring";
	err = io_uring_queue_init(4, &u->ring, 0);
	if (err < 0)
		return err;
	u->ok = true;
	if (!fixed)
		return 0;
	*failed = "registered buffers";
	return io_uring_register_buffers(&u->ring, fixed, 1);
}

void wl_uring__close(struct wl_uring *u)
{
	if (u->ok)
		io_uring_queue_exit(&u->ring);
	u->ok = false;
}

int wl_uring__read(struct wl_uring *u, enum wl_way w, int fd,
		   const struct iovec *iov, __u32 niov, __u64 off)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	if (w == WL_WAY_URING_READV)
		io_uring_prep_readv(sqe, fd, iov, niov, off);
	else if (w == WL_WAY_URING_FIXED)
		io_uring_prep_read_fixed(sqe, fd, iov[0].iov_base,
					 (unsigned int)iov[0].iov_len, off, 0);
	else
		io_uring_prep_read(sqe, fd, iov[0].iov_base,
				   (unsigned int)iov[0].iov_len, off);
	ret = io_uring_submit_and_wait(&u->ring, 1);
	if (ret >= 0)
		ret = io_uring_wait_cqe(&u->ring, &cqe);
	if (ret < 0)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(&u->ring, cqe);
	return ret;
}

/* One read on a thread of its own (wl_uring__once). */
struct once {
	enum wl_way way;
	int fd;
	const struct iovec *iov, *fixed;
	__u32 niov;
	__u64 off;
	int res;
	const char *failed;
};

static void *once_thread(void *arg)
{
	struct once *o = arg;
	struct wl_uring u = { .ok = false };

	o->res = wl_uring__open(&u, o->fixed, &o->failed);
	if (!o->res) {
		o->failed = NULL;
		if (o->fd >= 0)
			o->res = wl_uring__read(&u, o->way, o->fd, o->iov,
						o->niov, o->off);
	}
	wl_uring__close(&u);
	return NULL;
}

int wl_uring__once(enum wl_way w, int fd, const struct iovec *iov, __u32 niov,
		   __u64 off, const struct iovec *fixed, const char **failed)
{
	struct once o = { w, fd, iov, fixed, niov, off, 0, NULL };
	pthread_t t;
	int err = pthread_create(&t, NULL, once_thread, &o);

	if (err) {
		*failed = "thread";
		return -err;
	}
	pthread_join(t, NULL);
	*failed = o.failed;
	return o.res;
}
