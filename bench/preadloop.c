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
 * over the first process's batches (batches.h). -k keeps FILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "batches.h"

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

/* One process's loop, timed into B; returns nonzero on a short or failed
 * read. */
static int loop(const char *file, size_t bs, size_t size,
		unsigned long long calls, char *buf, struct batches *b)
{
	unsigned long long i = 0, t;
	off_t off = 0;
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		die("open");
	while (i < calls) {
		unsigned long long n = calls - i < BATCH ? calls - i : BATCH;

		t = batches__now();
		for (unsigned long long j = 0; j < n; j++) {
			if (pread(fd, buf, bs, off) != (ssize_t)bs)
				return 1;
			off += bs;
			if (off + bs > size)
				off = 0;
		}
		batches__add(b, batches__now() - t, n);
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
	int procs = 1, keep = 0, c, fd, go[2], res[2], st, bad = 0;
	struct batches b;
	double best[3] = { 0 };
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
	if (batches__init(&b, calls))
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
			r = loop(file, bs, size, calls, buf, &b);
			batches__quantiles(&b, best);
			if (!p && write(res[1], best, sizeof(best)) < 0)
				r = 1;
			_exit(r);
		}
	}
	close(go[0]);
	close(res[1]);
	t0 = batches__now();
	close(go[1]); /* EOF releases every child at once */
	while (wait(&st) > 0)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st);
	t1 = batches__now();
	if (read(res[0], best, sizeof(best)) != sizeof(best))
		bad = 1;
	if (!keep)
		unlink(file);
	if (bad) {
		fprintf(stderr, "preadloop: a reader failed (short read?)\n");
		return 1;
	}
	printf("calls=%llu bytes=%llu elapsed_ns=%llu ns_per_call=%.1f ",
	       calls * procs, (unsigned long long)calls * procs * bs, t1 - t0,
	       (double)(t1 - t0) / calls);
	batches__print(stdout, best);
	printf(" events_per_s=%.0f\n", calls * procs * 1e9 / (t1 - t0));
	return 0;
}
