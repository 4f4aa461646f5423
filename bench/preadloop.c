// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * preadloop: a tight loop of pread(2)s on one warm file, the per-call
 * overhead benchmark's workload. Creates FILE (SIZE bytes, written once
 * and read once to warm it), then each of PROCS processes makes CALLS
 * preads of BS bytes, walking the file in order and wrapping at its end.
 *
 *   preadloop -f FILE [-b BS] [-s SIZE] [-n CALLS] [-P PROCS] [-k]
 *
 * Prints one line: calls=N bytes=N elapsed_ns=N ns_per_call=X
 * best_ns_per_call=X p10_ns_per_call=X median_ns_per_call=X
 * events_per_s=X. elapsed is wall time from a common start to the last
 * finisher; ns_per_call is per process (elapsed / CALLS); the others are
 * over the first process's batches of BATCH calls: the fastest, the 10th
 * percentile and the median batch. The fastest batches are the ones least
 * disturbed by other load on a shared machine. -k keeps FILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned long long parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'g':
	case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (end == s || *end || !v) {
		fprintf(stderr, "preadloop: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void die(const char *what)
{
	fprintf(stderr, "preadloop: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Calls per timed batch: short batches, so that some fall between the
 * other load a shared machine has. */
#define BATCH 50

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One process's loop; returns nonzero on a short or failed read. The
 * per-call means of its batches go to lat[] (*nlat of them). */
static int loop(const char *file, size_t bs, size_t size,
		unsigned long long calls, char *buf, double *lat, int *nlat)
{
	unsigned long long i = 0, t;
	off_t off = 0;
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		die("open");
	*nlat = 0;
	while (i < calls) {
		unsigned long long n = calls - i < BATCH ? calls - i : BATCH;

		t = now_ns();
		for (unsigned long long j = 0; j < n; j++) {
			if (pread(fd, buf, bs, off) != (ssize_t)bs)
				return 1;
			off += bs;
			if (off + bs > size)
				off = 0;
		}
		t = now_ns() - t;
		if (n == BATCH)
			lat[(*nlat)++] = (double)t / n;
		i += n;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *file = NULL;
	size_t bs = 4096, size = 1 << 20;
	unsigned long long calls = 20000, t0, t1;
	int procs = 1, keep = 0, c, fd, go[2], res[2], st, bad = 0, nlat = 0;
	double best[3] = { 0 }, *lat;
	char *buf;

	while ((c = getopt(argc, argv, "f:b:s:n:P:k")) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 'b':
			bs = parse_size(optarg);
			break;
		case 's':
			size = parse_size(optarg);
			break;
		case 'n':
			calls = parse_size(optarg);
			break;
		case 'P':
			procs = (int)parse_size(optarg);
			break;
		case 'k':
			keep = 1;
			break;
		default:
			fprintf(stderr, "usage: preadloop -f FILE [-b BS] [-s "
					"SIZE] [-n CALLS] [-P PROCS] [-k]\n");
			return 2;
		}
	}
	if (!file || bs > size || procs > 64) {
		fprintf(stderr,
			"preadloop: need -f FILE, BS <= SIZE, PROCS <= 64\n");
		return 2;
	}
	if (posix_memalign((void **)&buf, 4096, size))
		die("posix_memalign");
	lat = calloc(calls / BATCH + 1, sizeof(*lat));
	if (!lat)
		die("calloc");
	for (size_t i = 0; i < size; i++)
		buf[i] = (char)(i * 2654435761u >> 24);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("create");
	if (write(fd, buf, size) != (ssize_t)size)
		die("write");
	/* Warm: every page looked up once before timing. */
	if (pread(fd, buf, size, 0) != (ssize_t)size)
		die("warm read");
	close(fd);
	if (pipe(go) || pipe(res))
		die("pipe");
	for (int p = 0; p < procs; p++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid) {
			char x;
			int r;

			close(go[1]);
			close(res[0]);
			if (read(go[0], &x, 1) < 0)
				_exit(1);
			r = loop(file, bs, size, calls, buf, lat, &nlat);
			if (nlat) {
				qsort(lat, nlat, sizeof(*lat), cmp_double);
				best[0] = lat[0];
				best[1] = lat[nlat / 10];
				best[2] = lat[nlat / 2];
			}
			if (!p && write(res[1], best, sizeof(best)) < 0)
				r = 1;
			_exit(r);
		}
	}
	close(go[0]);
	close(res[1]);
	t0 = now_ns();
	close(go[1]); /* EOF releases every child at once */
	while (wait(&st) > 0)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st);
	t1 = now_ns();
	if (read(res[0], best, sizeof(best)) != sizeof(best))
		bad = 1;
	if (!keep)
		unlink(file);
	if (bad) {
		fprintf(stderr, "preadloop: a reader failed (short read?)\n");
		return 1;
	}
	printf("calls=%llu bytes=%llu elapsed_ns=%llu ns_per_call=%.1f "
	       "best_ns_per_call=%.1f p10_ns_per_call=%.1f "
	       "median_ns_per_call=%.1f events_per_s=%.0f\n",
	       calls * procs, (unsigned long long)calls * procs * bs, t1 - t0,
	       (double)(t1 - t0) / calls, best[0], best[1], best[2],
	       calls * procs * 1e9 / (t1 - t0));
	return 0;
}
