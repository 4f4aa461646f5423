// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reads that go through a pipe in the kernel: splice into a pipe,
 * sendfile to a file or a socket, copy_file_range to a file. Each moves a
 * file's bytes somewhere other than a user buffer; this brings them back
 * into one, where the checks of every read look at them, without another
 * read of a tmpfs file (the probes would count it): the pipe and the
 * socket are drained, the output file is mapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
	int *fds[] = { &p->pipe[0], &p->pipe[1], &p->outfd, &p->sock[0],
		       &p->sock[1] };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/*
 * Room for one call's bs bytes: a pipe or a socket's buffers sized past
 * them (so that a call never stops short for want of room; root may size
 * past the usual limits: CAP_SYS_RESOURCE, SO_SNDBUFFORCE), or an
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
	p->pipe[0] = p->pipe[1] = p->outfd = p->sock[0] = p->sock[1] = -1;
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
	case SH_OUT_SOCK:
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p->sock))
			return -errno;
		/* Both ends non-blocking: a socket buffer that fills makes
		 * sendfile stop short instead of waiting for a reader that
		 * is this thread. FORCE needs CAP_NET_ADMIN; else the
		 * sysctl's maximum. */
		want *= 2;
		if (setsockopt(p->sock[0], SOL_SOCKET, SO_SNDBUFFORCE, &want,
			       sizeof(want)))
			setsockopt(p->sock[0], SOL_SOCKET, SO_SNDBUF, &want,
				   sizeof(want));
		if (setsockopt(p->sock[1], SOL_SOCKET, SO_RCVBUFFORCE, &want,
			       sizeof(want)))
			setsockopt(p->sock[1], SOL_SOCKET, SO_RCVBUF, &want,
				   sizeof(want));
		if (fcntl(p->sock[0], F_SETFL, O_NONBLOCK) ||
		    fcntl(p->sock[1], F_SETFL, O_NONBLOCK))
			return -errno;
		return 0;
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

/* What waits in a non-blocking fd (a pipe or a socket), up to n bytes,
 * into buf. */
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
		ret = sendfile(p->sock[0], fd, &in, bs);
		break;
	default:
		ret = copy_file_range(fd, &in, p->outfd, &out, bs, 0);
		break;
	}
	err = errno;
	if (ret >= 0) {
		if (p->pipe[0] >= 0)
			*back = drain(p->pipe[0], buf, bs);
		else if (p->sock[1] >= 0)
			*back = drain(p->sock[1], buf, bs);
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
