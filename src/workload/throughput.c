// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Timed sequential reads of one file, as lean as fio's psync engine: one
 * buffer, read(2) or pread(2) of a block at a time from the start to
 * EOF, nothing looked at. A kernel change of 20% in the copy is only
 * visible to a reader that does not spend more than the kernel does on
 * each byte; the checked pass that follows (the workload's own readers)
 * is what says the data were right, and it is not timed.
 *
 * Each pass is timed by the monotonic clock and by the thread's CPU
 * time (user + system, CLOCK_THREAD_CPUTIME_ID: exact, where getrusage
 * counts in ticks on many kernels); the pass in the middle
 * of the sorted rates is the run's figure, the slowest and fastest pass
 * its spread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload/workload_internal.h"

static __u64 clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* One pass from offset 0 to EOF (or to o->size, whichever comes first). */
static int pass(const struct wl_tput_opts *o, unsigned char *buf,
		struct wl_tput_pass *p)
{
	__u64 pos = 0, t0, c0;
	ssize_t n;

	memset(p, 0, sizeof(*p));
	t0 = clock_ns(CLOCK_MONOTONIC);
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (!o->pread && lseek(o->fd, 0, SEEK_SET) < 0)
		return -errno;
	while (pos < o->size) {
		size_t want = o->size - pos < o->bs ? o->size - pos : o->bs;

		n = o->pread ? pread(o->fd, buf, want, (off_t)pos)
			     : read(o->fd, buf, want);
		p->calls++;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			break;
		pos += (__u64)n;
	}
	p->wall_ns = clock_ns(CLOCK_MONOTONIC) - t0;
	p->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	p->bytes = pos;
	return 0;
}

/* Bytes per second of a pass, 0 for one too quick for the clock. */
double wl_tput__rate(const struct wl_tput_pass *p)
{
	return p->wall_ns ? (double)p->bytes * 1e9 / (double)p->wall_ns : 0;
}

static int by_rate(const void *a, const void *b)
{
	double x = wl_tput__rate(a), y = wl_tput__rate(b);

	return (x > y) - (x < y);
}

void wl_tput__summarize(struct wl_tput *t)
{
	struct wl_tput_pass sorted[WL_TPUT_MAX_PASSES];
	const struct wl_tput_pass *mid;

	if (!t->npasses)
		return;
	memcpy(sorted, t->pass, sizeof(sorted[0]) * t->npasses);
	qsort(sorted, t->npasses, sizeof(sorted[0]), by_rate);
	/* An even count takes the slower of the two middle passes. */
	mid = &sorted[(t->npasses - 1) / 2];
	t->bytes_per_s = wl_tput__rate(mid);
	t->min_bytes_per_s = wl_tput__rate(&sorted[0]);
	t->max_bytes_per_s = wl_tput__rate(&sorted[t->npasses - 1]);
	t->cpu_ns_per_gib = mid->bytes ? (double)mid->cpu_ns *
						 (double)(1ULL << 30) /
						 (double)mid->bytes
				       : 0;
}

int wl_tput__run(const struct wl_tput_opts *o, struct wl_tput *t)
{
	unsigned char *buf;
	int err = 0;

	memset(t, 0, sizeof(*t));
	if (!o->passes || o->passes > WL_TPUT_MAX_PASSES || !o->bs)
		return -EINVAL;
	/* Page-aligned, as fio's buffers are. */
	if (posix_memalign((void **)&buf, 4096, o->bs))
		return -ENOMEM;
	/* Touched once, so that no pass pays the buffer's page faults. */
	memset(buf, 0, o->bs);
	for (unsigned int i = 0; i < o->passes; i++) {
		err = pass(o, buf, &t->pass[i]);
		t->calls += t->pass[i].calls;
		t->bytes += t->pass[i].bytes;
		if (err)
			break;
		t->npasses++;
	}
	free(buf);
	wl_tput__summarize(t);
	return err;
}
