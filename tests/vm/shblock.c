// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * shblock DIR N DIR2: N threads inside shmem_file_read_iter at the same
 * time, for tests/vm/shinflight.sh. DIR and DIR2 are tmpfs mounts. Each
 * thread reads 4 KiB of DIR/src into its own page of an anonymous
 * mapping registered with userfaultfd (missing pages), so the read's
 * copy to user space faults and sleeps inside the call; the threads
 * start one after another, each once the previous one's fault has
 * arrived. Then the pages are filled and the reads finish. When
 * every first read has returned, each thread, one at a time, reads
 * 1000 bytes of DIR2/src and then 8 KiB of DIR/src. Prints
 * "shblock: M reads" and exits 0 when every read returned its full
 * length.
 *
 * shblock DIR N DIR2 migrate: the same, with every first read moved to
 * another CPU while it sleeps: thread i runs on CPU i % C (C the CPUs it
 * may use, at least 2) until its fault arrives, then on CPU (i + 1) % C,
 * where it wakes and finishes the read. Prints "shblock: M reads, K
 * moved".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/syscall.h>

#define LEN 65536
#define PAGE 4096
#define OTHER 1000
#define SECOND 8192
#define MAXT 64

static int src_fd, src2_fd;
static char *region;
static pthread_mutex_t second = PTHREAD_MUTEX_INITIALIZER;
/* The later reads start when every first one has returned: then at
 * most one read is in flight at a time. */
static pthread_barrier_t firsts;
static int bad;
/* migrate: the CPUs the threads take turns on, and each thread's id. */
static int cpus[MAXT], ncpus;
static volatile pid_t tids[MAXT];

static void die(const char *what)
{
	fprintf(stderr, "shblock: %s: %s\n", what, strerror(errno));
	exit(2);
}

static int file(const char *d, const char *data)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/src", d);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || pwrite(fd, data, LEN, 0) != LEN)
		die(path);
	return fd;
}

static void rd(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len, 0);

	if (n != (ssize_t)len) {
		fprintf(stderr, "shblock: read %zd of %zu bytes\n", n, len);
		__sync_fetch_and_add(&bad, 1);
	}
}

/* Thread tid (0: the caller) may run on cpu only. */
static void pin(pid_t tid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(tid, sizeof(set), &set))
		die("sched_setaffinity");
}

static void *reader(void *arg)
{
	long i = (long)arg;
	static __thread char buf[SECOND];

	if (ncpus) {
		pin(0, cpus[i % ncpus]);
		tids[i] = (pid_t)syscall(SYS_gettid);
	}
	rd(src_fd, region + i * PAGE, PAGE);
	pthread_barrier_wait(&firsts);
	pthread_mutex_lock(&second);
	rd(src2_fd, buf, OTHER);
	rd(src_fd, buf, SECOND);
	pthread_mutex_unlock(&second);
	return NULL;
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {};
	struct uffdio_zeropage zp = {};
	struct uffd_msg msg;
	pthread_t t[MAXT];
	static char data[LEN];
	static char seen[MAXT];
	struct pollfd pfd;
	long n, got = 0;
	int uffd;

	if ((argc != 4 && (argc != 5 || strcmp(argv[4], "migrate"))) ||
	    (n = strtol(argv[2], NULL, 10)) < 1 || n > MAXT) {
		fprintf(stderr, "usage: shblock DIR N (1..%d) DIR2 [migrate]\n",
			MAXT);
		return 2;
	}
	if (argc == 5) {
		cpu_set_t set;

		if (sched_getaffinity(0, sizeof(set), &set))
			die("sched_getaffinity");
		for (int c = 0; c < CPU_SETSIZE && ncpus < MAXT; c++)
			if (CPU_ISSET(c, &set))
				cpus[ncpus++] = c;
		if (ncpus < 2) {
			fprintf(stderr, "shblock: migrate needs 2 CPUs\n");
			return 2;
		}
	}
	for (int i = 0; i < LEN; i++)
		data[i] = (char)(i * 7 + 3);
	src_fd = file(argv[1], data);
	src2_fd = file(argv[3], data);
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		die("userfaultfd");
	region = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		die("mmap");
	reg.range.start = (unsigned long)region;
	reg.range.len = n * PAGE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");
	if (pthread_barrier_init(&firsts, NULL, (unsigned int)n))
		die("pthread_barrier_init");
	/* One thread at a time, each started once the previous one faults:
	 * then only one read at a time is before its copy, in the folio
	 * lookup, whose kretprobe has as few instances as the read's. */
	pfd.fd = uffd;
	pfd.events = POLLIN;
	for (long i = 0; i < n; i++) {
		if (pthread_create(&t[i], NULL, reader, (void *)i))
			die("pthread_create");
		/* The fault on thread i's page: it is asleep inside its
		 * read's copy. */
		while (got <= i) {
			unsigned long p;

			if (poll(&pfd, 1, -1) != 1 ||
			    read(uffd, &msg, sizeof(msg)) < 0)
				die("userfaultfd read");
			if (msg.event != UFFD_EVENT_PAGEFAULT)
				continue;
			p = (msg.arg.pagefault.address -
			     (unsigned long)region) /
			    PAGE;
			if (p < (unsigned long)n && !seen[p]) {
				seen[p] = 1;
				got++;
				/* Asleep in the copy: it wakes on the next
				 * CPU. Its id was stored before its read. */
				if (ncpus)
					pin(tids[p], cpus[(p + 1) % ncpus]);
			}
		}
	}
	zp.range.start = (unsigned long)region;
	zp.range.len = n * PAGE;
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &zp))
		die("UFFDIO_ZEROPAGE");
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (bad)
		return 1;
	if (ncpus)
		printf("shblock: %ld reads, %ld moved\n", 3 * n, n);
	else
		printf("shblock: %ld reads\n", 3 * n);
	return 0;
}
