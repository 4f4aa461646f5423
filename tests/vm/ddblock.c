// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ddblock DIR N [DIR2]: N threads inside vfs_dedupe_file_range_one at
 * the same time, for tests/vm/inflight.sh. A writer takes the destination's
 * inode lock and sleeps in a userfaultfd fault on its source buffer while
 * holding it; N threads then dedupe into that destination and sleep on
 * the lock inside the call (each seen in state D). Then the fault is
 * resolved and, once every first dedupe has returned, every thread
 * makes a second one into a file of its own, one thread at a time; with DIR2
 * (another filesystem), a dedupe between two files there comes first.
 * Each dedupe is 64 KiB of equal data. Prints "ddblock: M dedupes SAME"
 * and exits 0 when every answer is SAME with 65536 bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define LEN 65536
#define MAXT 64

static const char *dir, *dir2;
static int src_fd, dst_fd, uffd, src2_fd = -1;
static char *page;
static pthread_mutex_t second = PTHREAD_MUTEX_INITIALIZER;
/* The later dedupes start when every first one has returned: then at
 * most one call is in flight at a time, whatever order the first ones
 * took the lock in. */
static pthread_barrier_t firsts;
static pid_t tids[MAXT];
static int bad;

static void die(const char *what)
{
	fprintf(stderr, "ddblock: %s: %s\n", what, strerror(errno));
	exit(2);
}

static int file(const char *d, const char *name, const char *data)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || pwrite(fd, data, LEN, 0) != LEN || fsync(fd))
		die(path);
	return fd;
}

static void dedupe(int src, int dst)
{
	struct {
		struct file_dedupe_range r;
		struct file_dedupe_range_info i;
	} a;

	memset(&a, 0, sizeof(a));
	a.r.src_length = LEN;
	a.r.dest_count = 1;
	a.i.dest_fd = dst;
	if (ioctl(src, FIDEDUPERANGE, &a))
		die("FIDEDUPERANGE");
	if (a.i.status != FILE_DEDUPE_RANGE_SAME || a.i.bytes_deduped != LEN) {
		fprintf(stderr, "ddblock: status %d bytes %llu\n", a.i.status,
			(unsigned long long)a.i.bytes_deduped);
		__sync_fetch_and_add(&bad, 1);
	}
}

static void *writer(void *arg)
{
	(void)arg;
	/* Takes the destination's inode lock, then faults on page. */
	if (pwrite(dst_fd, page, 4096, LEN) != 4096)
		die("pwrite");
	return NULL;
}

static void *deduper(void *arg)
{
	long i = (long)arg;
	char name[4096];
	int fd, fd2 = -1;

	snprintf(name, sizeof(name), "%s/own%ld", dir, i);
	tids[i] = (pid_t)syscall(SYS_gettid);
	dedupe(src_fd, dst_fd);
	pthread_barrier_wait(&firsts);
	fd = open(name, O_RDWR); /* made by main */
	if (fd < 0)
		die(name);
	if (dir2) {
		snprintf(name, sizeof(name), "%s/own%ld", dir2, i);
		fd2 = open(name, O_RDWR);
		if (fd2 < 0)
			die(name);
	}
	pthread_mutex_lock(&second);
	if (dir2)
		dedupe(src2_fd, fd2);
	dedupe(src_fd, fd);
	pthread_mutex_unlock(&second);
	close(fd);
	if (fd2 >= 0)
		close(fd2);
	return NULL;
}

/* Is thread tid asleep uninterruptibly inside an ioctl (the dedupe)? */
static bool in_ioctl(pid_t tid)
{
	char path[64], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return !strncmp(buf, "16 ", 3);
}

/* Thread tid's state letter, from /proc/self/task/TID/stat. */
static char state(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : '?';
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {};
	struct uffdio_zeropage zp = {};
	struct uffd_msg msg;
	pthread_t w, t[MAXT];
	static char data[LEN];
	struct pollfd pfd;
	long n;
	int d;

	if (argc < 3 || argc > 4 || (n = strtol(argv[2], NULL, 10)) < 1 ||
	    n > MAXT) {
		fprintf(stderr, "usage: ddblock DIR N (1..%d) [DIR2]\n", MAXT);
		return 2;
	}
	dir = argv[1];
	dir2 = argc == 4 ? argv[3] : NULL;
	for (int i = 0; i < LEN; i++)
		data[i] = (char)(i * 7 + 3);
	src_fd = file(dir, "src", data);
	dst_fd = file(dir, "dst", data);
	if (dir2)
		src2_fd = file(dir2, "src", data);
	for (long i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "own%ld", i);
		close(file(dir, name, data));
		if (dir2)
			close(file(dir2, name, data));
	}
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		die("userfaultfd");
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		die("mmap");
	reg.range.start = (unsigned long)page;
	reg.range.len = 4096;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");
	if (pthread_barrier_init(&firsts, NULL, (unsigned int)n))
		die("pthread_barrier_init");
	if (pthread_create(&w, NULL, writer, NULL))
		die("pthread_create");
	/* The fault arrives while the writer holds the inode lock. */
	pfd.fd = uffd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, -1) != 1 || read(uffd, &msg, sizeof(msg)) < 0)
		die("userfaultfd read");
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, deduper, (void *)i))
			die("pthread_create");
	/* Every deduper asleep on the lock, inside the call. */
	for (d = 0; d < n;) {
		d = 0;
		for (long i = 0; i < n; i++)
			d += __atomic_load_n(&tids[i], __ATOMIC_SEQ_CST) &&
			     state(tids[i]) == 'D' && in_ioctl(tids[i]);
		if (d < n)
			sched_yield();
	}
	zp.range.start = (unsigned long)page;
	zp.range.len = 4096;
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &zp))
		die("UFFDIO_ZEROPAGE");
	pthread_join(w, NULL);
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (bad)
		return 1;
	printf("ddblock: %ld dedupes SAME\n", (dir2 ? 3 : 2) * n);
	return 0;
}
