// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The read engine's core: a reader that makes one call of any way into a
 * read (the ways' table is ways.c's), and the counts a call leaves at
 * each level the probes see. The ways through a pipe are read_piped.c's,
 * io_uring's rings read_uring.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "workload/read.h"

void wl_reader__close(struct wl_reader *r)
{
	wl_piped__close(&r->out);
	wl_uring__close(&r->ring);
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->own_fd = false;
	/* After the device's last fd: autoclear unbinds it. */
	if (r->loop_fd >= 0)
		close(r->loop_fd);
	r->loop_fd = -1;
	if (r->loop_node)
		unlink(r->loopdev);
	r->loop_node = false;
}

/* The file, or a loop device over it opened for O_DIRECT reads. */
static int open_file(struct wl_reader *r, const char **failed)
{
	const struct wl_way_info *wi = wl_way__info(r->o.way);
	int err;

	if (wi->need == WL_NEED_LOOP) {
		*failed = "bind a loop device to the file";
		err = wl__loop_attach(r->o.wl, r->o.path, r->loopdev,
				      sizeof(r->loopdev), &r->loop_fd,
				      &r->loop_node);
		if (err)
			return err;
		*failed = "open the loop device with O_DIRECT";
		errno = 0;
		r->fd = open(r->loopdev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	} else if (r->o.fd >= 0 || !r->o.path) {
		r->fd = r->o.fd;
		return 0;
	} else {
		*failed = "open the file";
		errno = 0;
		r->fd = open(r->o.path,
			     (wi->same_file ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	}
	if (r->fd < 0)
		return errno ? -errno : -EIO;
	r->own_fd = true;
	return 0;
}

int wl_reader__open(struct wl_reader *r, const struct wl_reader_opts *o,
		    const char **failed)
{
	const struct wl_way_info *wi = wl_way__info(o->way);
	int err;

	memset(r, 0, sizeof(*r));
	r->o = *o;
	r->fd = r->loop_fd = -1;
	r->out.pipe[0] = r->out.pipe[1] = r->out.outfd = -1;
	*failed = NULL;
	err = open_file(r, failed);
	if (err)
		return err;
	if (wi->seen == WL_SEEN_PIPED) {
		*failed = "make its output";
		err = wl_piped__open(&r->out, o->way, o->bs, o->outdir);
		if (err)
			return err;
	}
	if (wi->need == WL_NEED_URING && !o->uring_once)
		err = wl_uring__open(&r->ring,
				     o->way == WL_WAY_URING_FIXED ? &o->fixed
								  : NULL,
				     failed);
	return err;
}

/* io_uring's read of q: on the reader's ring, or on a thread and a ring
 * of its own. */
static int uring_read(struct wl_reader *r, const struct wl_read_req *q)
{
	struct iovec one = { q->buf, q->len };
	const struct iovec *iov = q->niov > 1 ? q->iov : &one;
	__u32 n = q->niov > 1 ? q->niov : 1;
	const char *failed;

	if (r->o.uring_once)
		return wl_uring__once(
			r->o.way, r->fd, iov, n, q->pos,
			r->o.way == WL_WAY_URING_FIXED ? &r->o.fixed : NULL,
			&failed);
	return wl_uring__read(&r->ring, r->o.way, r->fd, iov, n, q->pos);
}

void wl_reader__read(struct wl_reader *r, const struct wl_read_req *q,
		     struct wl_read_res *res)
{
	const struct wl_way_info *wi = wl_way__info(r->o.way);
	int n = q->niov ? (int)q->niov : 1, ret;

	memset(res, 0, sizeof(*res));
	if (wi->seen == WL_SEEN_PIPED) {
		wl_piped__read(&r->out, r->fd, q->buf, q->len, q->pos, res);
		return;
	}
	if (q->seek && wi->moves) {
		errno = 0;
		if (lseek(r->fd, (off_t)q->pos, SEEK_SET) < 0) {
			res->back = -1;
			res->back_err = errno;
			res->back_failed = "lseek to the read's offset";
			return;
		}
	}
	res->made = true;
	errno = 0;
	switch (r->o.way) {
	case WL_WAY_READ:
		res->ret = read(r->fd, q->buf, q->len);
		break;
	case WL_WAY_READV:
		res->ret = readv(r->fd, q->iov, n);
		break;
	case WL_WAY_PREADV2:
		res->ret = preadv2(r->fd, q->iov, n, (off_t)q->pos, r->o.rwf);
		break;
	case WL_WAY_URING_READ:
	case WL_WAY_URING_READV:
	case WL_WAY_URING_FIXED:
		ret = uring_read(r, q);
		res->ret = ret < 0 ? -1 : ret;
		errno = ret < 0 ? -ret : 0;
		break;
	default: /* pread, and loop's pread of the device */
		res->ret = pread(r->fd, q->buf, q->len, (off_t)q->pos);
		break;
	}
	if (res->ret < 0)
		res->err = errno;
	/* Into the buffer itself: all that came, came back. */
	res->back = res->ret > 0 ? res->ret : 0;
}

__u64 wl_read__piped_slack(__u64 pos, ssize_t ret, __u64 page)
{
	if (ret <= 0)
		return 1;
	return (pos % page + (__u64)ret + page - 1) / page - 1;
}

void wl_read__count(enum wl_way w, int rwf, const struct wl_read_req *q,
		    const struct wl_read_res *res, __u64 page,
		    struct wl_totals *t)
{
	const struct wl_way_info *wi = wl_way__info(w);
	ssize_t ret = res->ret;
	bool refused;

	if (!res->made)
		return;
	t->way_calls[w]++;
	switch (wi->seen) {
	case WL_SEEN_SYSCALL:
		/* EAGAIN comes from inside the read; EOPNOTSUPP for a flag
		 * before it. */
		refused = rwf && ret < 0 && res->err == EOPNOTSUPP;
		t->sys.calls++;
		t->func.calls += !refused;
		if (ret < 0) {
			t->sys.errors++;
			t->func.errors += !refused;
		} else {
			t->sys.bytes += (__u64)ret;
			t->func.bytes += (__u64)ret;
		}
		break;
	case WL_SEEN_URING:
		t->via_uring++;
		t->func.calls++;
		if (ret < 0)
			t->func.errors++;
		else
			t->func.bytes += (__u64)ret;
		if (ret > 0 && (__u64)ret < q->len)
			t->func.calls_slack++;
		break;
	case WL_SEEN_PIPED:
		/* A call that failed was refused before any read. */
		t->via_pipe++;
		if (ret > 0) {
			t->func.calls++;
			t->func.bytes += (__u64)ret;
		}
		if (ret >= 0)
			t->func.calls_slack +=
				wl_read__piped_slack(q->pos, ret, page);
		break;
	default:
		t->via_loop++;
		break;
	}
}
