// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reads that go through a pipe in the kernel: splice into a pipe,
 * sendfile to a file or a socket, copy_file_range to a file or to a range
 * of the file itself. Each moves a file's bytes somewhere other than a
 * user buffer; this brings them back into one, where the checks of every
 * read look at them, without another read of a tmpfs file (the probes
 * would count it): the pipe is drained, the socket read by a thread while
 * the call runs, the output file mapped. What fails or comes back short
 * on the way back is said in the result (back, back_err, back_failed),
 * with the errno of the call that failed: the verdict is the caller's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "util/util.h"
#include "workload/read_piped.h"

void wl_piped__close(struct wl_piped *p)
{
	int *fds[] = { &p->pipe[0], &p->pipe[1], &p->outfd };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* A non-blocking pipe sized past bs bytes, so that a call never stops
 * short for want of room (root may size past the usual limits:
 * CAP_SYS_RESOURCE); without that, as much as the limits allow: a smaller
 * pipe makes a call stop short, which is allowed. */
static int pipe_open(int fds[2], __u64 bs)
{
	__u64 room = bs + 2 * (__u64)sysconf(_SC_PAGESIZE), p2 = 4096;
	int want;

	while (p2 < room)
		p2 <<= 1;
	if (p2 > INT_MAX / 2)
		return -EFBIG;
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	for (want = (int)p2; fcntl(fds[1], F_SETPIPE_SZ, want) < 0; want /= 2)
		if (errno != EPERM || want <= 65536)
			return -errno;
	return 0;
}

/*
 * Room for one call's bs bytes: a pipe, a socket pair made by each call
 * (its end of stream tells the receiver that the call is over), or an
 * unnamed output file in dir (a tmpfs) or, for other_fs, a memfd (the
 * kernel's own tmpfs: another filesystem to copy_file_range). same_file
 * needs nothing: the read file is its output.
 */
int wl_piped__open(struct wl_piped *p, enum wl_way w, __u64 bs, const char *dir)
{
	const struct wl_way_info *wi = wl_way__info(w);

	p->way = w;
	p->bs = bs;
	p->pipe[0] = p->pipe[1] = p->outfd = -1;
	if (wi->same_file || wi->back == WL_BACK_SOCK)
		return 0;
	switch (wi->back) {
	case WL_BACK_PIPE:
		return pipe_open(p->pipe, bs);
	case WL_BACK_FILE:
		errno = 0;
		p->outfd = wi->other_fs
				   ? memfd_create("folioscope-out", MFD_CLOEXEC)
				   : open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC,
					  0600);
		return p->outfd < 0 ? (errno ? -errno : -EIO) : 0;
	default:
		return -EINVAL;
	}
}

/* The back part of res failed at step what with errno err. */
static void back_failed(struct wl_read_res *res, const char *what, int err)
{
	res->back = -1;
	res->back_err = err;
	res->back_failed = what;
}

/* An output file's n bytes from off (up to its end) into buf, through a
 * mapping: a page fault, not a read the probes would count. */
static void file_back(int fd, __u64 off, unsigned char *buf, __u64 n,
		      struct wl_read_res *res)
{
	__u64 skip = off % (__u64)sysconf(_SC_PAGESIZE);
	struct stat st;
	void *m;

	errno = 0;
	if (fstat(fd, &st)) {
		back_failed(res, "fstat of the output file", errno);
		return;
	}
	n = (__u64)st.st_size <= off	  ? 0
	    : (__u64)st.st_size - off < n ? (__u64)st.st_size - off
					  : n;
	res->back = 0;
	res->back_from = "the output file";
	if (!n)
		return;
	errno = 0;
	m = mmap(NULL, skip + n, PROT_READ, MAP_SHARED, fd,
		 (off_t)(off - skip));
	if (m == MAP_FAILED) {
		back_failed(res, "mmap of the output file", errno);
		return;
	}
	memcpy(buf, (unsigned char *)m + skip, n);
	munmap(m, skip + n);
	res->back = (ssize_t)n;
}

/*
 * copy_file_range from [pos, pos + bs) of fd to a range of fd past its
 * end: at the next 2 MiB boundary, so that no folio holds both (huge=
 * always puts a 2 MiB folio there), plus pos's offset in its page, so
 * that source and destination are as unaligned as each other. The bytes
 * come back through a mapping; then the file is cut back to its size.
 */
static void copy_same(int fd, loff_t *in, unsigned char *buf, __u64 bs,
		      struct wl_read_res *res)
{
	__u64 page = (__u64)sysconf(_SC_PAGESIZE), dst;
	struct stat st;
	loff_t out;

	errno = 0;
	if (fstat(fd, &st)) {
		back_failed(res, "fstat of the file before the copy", errno);
		return;
	}
	dst = ((__u64)st.st_size + WL_PMD - 1) / WL_PMD * WL_PMD +
	      (__u64)*in % page;
	out = (loff_t)dst;
	res->made = true;
	errno = 0;
	res->ret = copy_file_range(fd, in, fd, &out, bs, 0);
	if (res->ret < 0)
		res->err = errno;
	else
		file_back(fd, dst, buf, bs, res);
	errno = 0;
	if (ftruncate(fd, st.st_size))
		back_failed(res, "ftruncate of the file back to its size",
			    errno);
}

/* What waits in a non-blocking pipe, up to n bytes, into buf. */
static void drain(int fd, unsigned char *buf, __u64 n, struct wl_read_res *res)
{
	__u64 got = 0;

	res->back_from = "the pipe";
	while (got < n) {
		ssize_t r;

		errno = 0;
		r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (r < 0) {
			back_failed(res, "read from the pipe", errno);
			return;
		}
		if (!r)
			break;
		got += (__u64)r;
	}
	res->back = (ssize_t)got;
}

/* The receiving end of a sendfile to a socket, drained while the call
 * runs: the first n bytes into buf, any more (a kernel that sends more
 * than asked) counted past it and dropped. */
struct sock_rx {
	int fd;
	unsigned char *buf;
	__u64 n, got;
	bool failed;
	int err;
};

static void *sock_rx(void *arg)
{
	struct sock_rx *rx = arg;
	unsigned char spill[4096];

	for (;;) {
		bool in = rx->got < rx->n;
		ssize_t r;

		errno = 0;
		r = in ? recv(rx->fd, rx->buf + rx->got, rx->n - rx->got, 0)
		       : recv(rx->fd, spill, sizeof(spill), 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rx->err = errno;
			rx->failed = true;
			return NULL;
		}
		if (!r)
			return NULL;
		rx->got += (__u64)r;
	}
}

/*
 * sendfile to a blocking stream socket whose other end a thread drains,
 * as a server's would be: the call waits for room instead of stopping
 * short. Stopping short would drop the rest of the pipe's worth the
 * kernel had already read from the file, so that the probes would count
 * bytes no call moved. back: the bytes received, at most bs.
 */
static void sendfile_sock(int fd, loff_t *in, unsigned char *buf, __u64 bs,
			  struct wl_read_res *res)
{
	struct sock_rx rx = { .buf = buf, .n = bs };
	int sv[2], err;
	pthread_t t;

	errno = 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		back_failed(res, "socketpair", errno);
		return;
	}
	rx.fd = sv[1];
	err = pthread_create(&t, NULL, sock_rx, &rx);
	if (err) {
		close(sv[0]);
		close(sv[1]);
		back_failed(res, "start the socket's receiver", err);
		return;
	}
	res->made = true;
	errno = 0;
	res->ret = sendfile(sv[0], fd, in, bs);
	if (res->ret < 0)
		res->err = errno;
	shutdown(sv[0], SHUT_WR);
	pthread_join(t, NULL);
	close(sv[0]);
	close(sv[1]);
	res->back_from = "the socket";
	if (rx.failed)
		back_failed(res, "recv from the socket", rx.err);
	else
		res->back = (ssize_t)(rx.got < bs ? rx.got : bs);
}

void wl_piped__read(struct wl_piped *p, int fd, unsigned char *buf, __u64 bs,
		    __u64 pos, struct wl_read_res *res)
{
	loff_t in = (loff_t)pos, out = 0;

	memset(res, 0, sizeof(*res));
	errno = 0;
	if (p->outfd >= 0 &&
	    (ftruncate(p->outfd, 0) || lseek(p->outfd, 0, SEEK_SET) < 0)) {
		back_failed(res, "empty the output file", errno);
		return;
	}
	switch (p->way) {
	case WL_WAY_SENDFILE_SOCK:
		sendfile_sock(fd, &in, buf, bs, res);
		return;
	case WL_WAY_COPY_SAME:
		copy_same(fd, &in, buf, bs, res);
		return;
	default:
		break;
	}
	res->made = true;
	errno = 0;
	if (p->way == WL_WAY_SPLICE)
		res->ret = splice(fd, &in, p->pipe[1], NULL, bs, 0);
	else if (p->way == WL_WAY_SENDFILE)
		res->ret = sendfile(p->outfd, fd, &in, bs);
	else
		res->ret = copy_file_range(fd, &in, p->outfd, &out, bs, 0);
	if (res->ret < 0) {
		res->err = errno;
		return;
	}
	if (wl_way__info(p->way)->back != WL_BACK_PIPE) {
		file_back(p->outfd, 0, buf, bs, res);
		return;
	}
	drain(p->pipe[0], buf, bs, res);
	/* What could not be read back would be the next call's: a fresh
	 * pipe, so that each call is judged on its own bytes. */
	if (res->back < 0) {
		close(p->pipe[0]);
		close(p->pipe[1]);
		p->pipe[0] = p->pipe[1] = -1;
		if (pipe_open(p->pipe, p->bs))
			p->pipe[0] = p->pipe[1] = -1;
	}
}
