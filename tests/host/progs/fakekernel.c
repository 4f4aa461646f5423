// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fake kernel bugs for the validators, as an LD_PRELOAD shim.
 *
 * FS_FAKE_DEDUPE=clone: before each FIDEDUPERANGE, every destination
 * whose in-page offset differs from the source's gets the source range
 * cloned onto it (FICLONERANGE), so the kernel then honestly answers
 * SAME where the data differed: a false SAME, with the destination's
 * bytes replaced, as a compare that reads the wrong place would cause.
 * FS_FAKE_DEDUPE=hang: the FIDEDUPERANGE never returns (it waits in the
 * kernel on an empty pipe instead).
 *
 * The shmem-read bugs: a shim of
 * read(2) and pread(2) on the workload's tmpfs files (paths with
 * "/folioscope-shmem-" in them; every other file reads as usual). Each
 * call makes exactly one real read, so the probes see what they would see
 * without the shim. FS_FAKE_READ picks the bug:
 *
 *   hole   bytes that read as zero are not copied: the buffer keeps what
 *          it held there (a kernel that skips zero-filling holes)
 *   past   a short read also writes a zero byte at buf[ret]
 *   pos    after an odd-length read the file position goes back one byte
 *          (read(2) only: pread has no file position)
 *   short  every read asks the kernel for half of what it was asked
 *   warn   the first read also writes a WARNING to the kernel log (as a
 *          record of user space: run with --kmsg-user)
 *   hang   the read never returns: it waits in the kernel on an empty
 *          pipe instead
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef ssize_t (*read_fn)(int, void *, size_t);
typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);

static const char *bug(int fd)
{
	const char *b = getenv("FS_FAKE_READ");
	char link[64], path[4096];
	ssize_t n;

	if (!b)
		return NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return NULL;
	path[n] = '\0';
	return strstr(path, "/folioscope-shmem-") ? b : NULL;
}

/* The bug, on a call that read ret bytes of count into buf (the real
 * bytes in tmp for "hole"). */
static void apply(const char *b, int fd, char *buf, const char *tmp,
		  size_t count, ssize_t ret, int pos)
{
	if (ret < 0)
		return;
	if (!strcmp(b, "hole")) {
		for (ssize_t i = 0; i < ret; i++)
			if (tmp[i])
				buf[i] = tmp[i];
	} else if (!strcmp(b, "past") && (size_t)ret < count) {
		buf[ret] = 0;
	} else if (!strcmp(b, "pos") && pos && (ret & 1)) {
		lseek(fd, -1, SEEK_CUR);
	}
}

static ssize_t call(const char *b, int fd, void *buf, size_t count, off_t off,
		    int pos)
{
	static read_fn real_read;
	static pread_fn real_pread;
	char *tmp = buf;
	ssize_t ret;

	if (!real_read) {
		real_read = (read_fn)dlsym(RTLD_NEXT, "read");
		real_pread = (pread_fn)dlsym(RTLD_NEXT, "pread");
	}
	if (b && !strcmp(b, "hang")) {
		int p[2];

		if (pipe(p))
			abort();
		return real_read(p[0], buf, count);
	}
	if (b && !strcmp(b, "hole")) {
		tmp = malloc(count ? count : 1);
		if (!tmp)
			abort();
	}
	if (b && !strcmp(b, "warn")) {
		static int warned;
		int k = warned++ ? -1 : open("/dev/kmsg", O_WRONLY);

		if (k >= 0) {
			char line[160];
			int n = snprintf(line, sizeof(line),
					 "<4>WARNING: CPU: 0 PID: %d at "
					 "mm/shmem.c:2700 shmem_file_read_iter "
					 "(folioscope fake)\n",
					 (int)getpid());

			if (write(k, line, (size_t)n) != n)
				abort();
			close(k);
		}
	}
	if (b && !strcmp(b, "short") && count > 1)
		count /= 2;
	ret = pos ? real_read(fd, tmp, count) : real_pread(fd, tmp, count, off);
	if (b)
		apply(b, fd, buf, tmp, count, ret, pos);
	if (tmp != buf)
		free(tmp);
	return ret;
}

ssize_t read(int fd, void *buf, size_t count)
{
	return call(bug(fd), fd, buf, count, 0, 1);
}

ssize_t pread(int fd, void *buf, size_t count, off_t off)
{
	return call(bug(fd), fd, buf, count, off, 0);
}

ssize_t pread64(int fd, void *buf, size_t count, off_t off)
{
	return call(bug(fd), fd, buf, count, off, 0);
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real_ioctl)(int, unsigned long, ...);
	const char *b = getenv("FS_FAKE_DEDUPE");
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real_ioctl)
		real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT,
								     "ioctl");
	if (b && !strcmp(b, "hang") && req == FIDEDUPERANGE) {
		int p[2];
		char c;

		if (pipe(p))
			abort();
		return (int)read(p[0], &c, 1);
	}
	if (b && !strcmp(b, "clone") && req == FIDEDUPERANGE) {
		struct file_dedupe_range *r = arg;

		for (__u16 i = 0; i < r->dest_count; i++) {
			struct file_clone_range c = {
				.src_fd = fd,
				.src_offset = r->src_offset,
				.src_length = r->src_length,
				.dest_offset = r->info[i].dest_offset,
			};

			if (r->src_offset % 4096 != c.dest_offset % 4096)
				real_ioctl(r->info[i].dest_fd, FICLONERANGE,
					   &c);
		}
	}
	return real_ioctl(fd, req, arg);
}
