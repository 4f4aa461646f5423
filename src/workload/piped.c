// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reads that go through a pipe in the kernel: splice into a pipe,
 * sendfile to a file or a socket, copy_file_range to a file. Each moves a
 * file's bytes somewhere other than a user buffer; this brings them back
 * into one, where the checks of every read look at them, without another
 * read of a tmpfs file (the probes would count it): the pipe is drained,
 * the socket read by a thread while the call runs, the output file
 * mapped.
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
#include "workload/workload_internal.h"

void wl_piped__close(struct wl_piped *p)
{
	int *fds[] = { &p->pipe[0], &p->pipe[1], &p->outfd };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/*
 * Room for one call's bs bytes: a pipe sized past them (so that a call
 * never stops short for want of room; root may size past the usual
 * limits: CAP_SYS_RESOURCE), a socket pair made by each call, or an
 * unnamed output file in dir (a tmpfs) or, for other_fs, a memfd (the
 * kernel's own tmpfs: another filesystem to copy_file_range).
 */
int wl_piped__open(struct wl_piped *p, enum sh_call call, __u64 bs,
		   const char *dir)
{
	const struct sh_call_info *ci = sh_call__info(call);
	__u64 room = bs + 2 * (__u64)sysconf(_SC_PAGESIZE), p2 = 4096;
	int want;

	p->call = call;
	p->pipe[0] = p->pipe[1] = p->outfd = -1;
	while (p2 < room)
		p2 <<= 1;
	if (p2 > INT_MAX / 2)
		return -EFBIG;
	want = (int)p2;
	switch (ci->out) {
	case SH_OUT_PIPE:
		if (pipe2(p->pipe, O_CLOEXEC | O_NONBLOCK))
			return -errno;
		/* Without CAP_SYS_RESOURCE, as much as the limits allow: a
		 * smaller pipe makes a call stop short, which is allowed. */
		while (fcntl(p->pipe[1], F_SETPIPE_SZ, want) < 0) {
			if (errno != EPERM || want <= 65536)
				return -errno;
			want /= 2;
		}
		return 0;
	case SH_OUT_SOCK: {
		/* A socket pair per call (wl_piped__read): its end of stream
		 * tells the receiver that the call is over. This one only
		 * asks whether the kernel has AF_UNIX (a small test kernel
		 * may not: EAFNOSUPPORT). */
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
			return -errno;
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	case SH_OUT_FILE:
		p->outfd = ci->other_fs
				   ? memfd_create("folioscope-out", MFD_CLOEXEC)
				   : open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC,
					  0600);
		return p->outfd < 0 ? -errno : 0;
	default:
		return -EINVAL;
	}
}

/* The output file's first n bytes into buf, through a mapping. */
static ssize_t file_back(int fd, unsigned char *buf, __u64 n)
{
	struct stat st;
	void *m;

	if (fstat(fd, &st))
		return -1;
	if ((__u64)st.st_size < n)
		n = (__u64)st.st_size;
	if (!n)
		return 0;
	m = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	memcpy(buf, m, n);
	munmap(m, n);
	return (ssize_t)n;
}

/* What waits in a non-blocking pipe, up to n bytes, into buf. */
static ssize_t drain(int fd, unsigned char *buf, __u64 n)
{
	__u64 got = 0;

	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (r <= 0)
			return r < 0 ? -1 : (ssize_t)got;
		got += (__u64)r;
	}
	return (ssize_t)got;
}

/* The receiving end of a sendfile to a socket, drained while the call
 * runs: the first n bytes into buf, any more (a kernel that sends more
 * than asked) counted past it and dropped. */
struct sock_rx {
	int fd;
	unsigned char *buf;
	__u64 n, got;
	int err;
};

static void *sock_rx(void *arg)
{
	struct sock_rx *rx = arg;
	unsigned char spill[4096];

	for (;;) {
		bool in = rx->got < rx->n;
		ssize_t r =
			in ? recv(rx->fd, rx->buf + rx->got, rx->n - rx->got, 0)
			   : recv(rx->fd, spill, sizeof(spill), 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rx->err = r < 0 ? errno : 0;
			return NULL;
		}
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
static ssize_t sendfile_sock(int fd, loff_t *in, unsigned char *buf, __u64 bs,
			     ssize_t *back)
{
	struct sock_rx rx = { .buf = buf, .n = bs };
	int sv[2], err;
	pthread_t t;
	ssize_t ret;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	rx.fd = sv[1];
	err = pthread_create(&t, NULL, sock_rx, &rx);
	if (err) {
		close(sv[0]);
		close(sv[1]);
		errno = err;
		return -1;
	}
	ret = sendfile(sv[0], fd, in, bs);
	err = errno;
	shutdown(sv[0], SHUT_WR);
	pthread_join(t, NULL);
	close(sv[0]);
	close(sv[1]);
	if (ret >= 0 && !rx.err)
		*back = (ssize_t)(rx.got < bs ? rx.got : bs);
	errno = err;
	return ret;
}

ssize_t wl_piped__read(struct wl_piped *p, int fd, unsigned char *buf, __u64 bs,
		       __u64 pos, ssize_t *back)
{
	loff_t in = (loff_t)pos, out = 0;
	ssize_t ret;
	int err;

	*back = -1;
	if (p->outfd >= 0 &&
	    (ftruncate(p->outfd, 0) || lseek(p->outfd, 0, SEEK_SET) < 0))
		return -1;
	switch (p->call) {
	case SH_SPLICE:
		ret = splice(fd, &in, p->pipe[1], NULL, bs, 0);
		break;
	case SH_SENDFILE:
		ret = sendfile(p->outfd, fd, &in, bs);
		break;
	case SH_SENDFILE_SOCK:
		return sendfile_sock(fd, &in, buf, bs, back);
	default:
		ret = copy_file_range(fd, &in, p->outfd, &out, bs, 0);
		break;
	}
	err = errno;
	if (ret >= 0) {
		if (p->pipe[0] >= 0)
			*back = drain(p->pipe[0], buf, bs);
		else
			*back = file_back(p->outfd, buf, bs);
	}
	errno = err;
	return ret;
}

__u64 wl_piped__slack(__u64 pos, ssize_t ret, __u64 page)
{
	if (ret <= 0)
		return 1;
	return (pos % page + (__u64)ret + page - 1) / page - 1;
}
