// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One io_uring read, or only the ring it would take, on a thread of its
 * own with a ring of its own. A ring's io-wq workers and task work belong
 * to the thread that made it and outlive the ring (its teardown adds
 * task work to that thread after the ring is closed), and that task work
 * marks the thread as signalled: a later sendfile or copy_file_range on
 * it would stop short or restart, and the kernel would read again what it
 * had read, so that the probes count bytes no call moved.
 */
#include <errno.h>
#include <pthread.h>

#include <liburing.h>

#include "workload/workload_internal.h"

static void *uring_once(void *arg)
{
	struct wl_uring_req *r = arg;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int ret = io_uring_queue_init(2, &ring, 0);

	r->failed = "ring";
	if (ret < 0)
		goto out;
	if (r->call == SH_URING_FIXED) {
		r->failed = "registered buffers";
		ret = io_uring_register_buffers(&ring, r->iov, 1);
		if (ret < 0)
			goto exit;
	}
	r->failed = NULL;
	if (r->fd < 0)
		goto exit;
	sqe = io_uring_get_sqe(&ring);
	if (r->call == SH_URING_READV)
		io_uring_prep_readv(sqe, r->fd, r->iov, r->niov, r->off);
	else if (r->call == SH_URING_FIXED)
		io_uring_prep_read_fixed(sqe, r->fd, r->iov[0].iov_base,
					 (unsigned int)r->iov[0].iov_len,
					 r->off, 0);
	else
		io_uring_prep_read(sqe, r->fd, r->iov[0].iov_base,
				   (unsigned int)r->iov[0].iov_len, r->off);
	ret = io_uring_submit_and_wait(&ring, 1);
	if (ret >= 0)
		ret = io_uring_wait_cqe(&ring, &cqe);
	if (ret >= 0) {
		ret = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
exit:
	io_uring_queue_exit(&ring);
out:
	r->res = ret < 0 ? ret : (r->fd < 0 ? 0 : ret);
	return NULL;
}

int wl_uring__run(struct wl_uring_req *r)
{
	pthread_t t;
	int err = pthread_create(&t, NULL, uring_once, r);

	if (err) {
		r->failed = "thread";
		return r->res = -err;
	}
	pthread_join(t, NULL);
	return r->res;
}
