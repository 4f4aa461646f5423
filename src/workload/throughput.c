// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Timed sequential reads of one file, as lean as fio's psync engine: one
 * buffer, read(2) or pread(2) of a block at a time from the start to
 * EOF by the read engine's reader (a switch away from the call), nothing
 * looked at. A kernel change of 20% in the copy is only
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

#include "workload/read.h"
#include "workload/throughput.h"

static __u64 clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* One pass from offset 0 to EOF (or to o->size, whichever comes first),
 * by the read engine's reader r. */
static int pass(const struct wl_tput_opts *o, struct wl_reader *r,
		unsigned char *buf, struct wl_tput_pass *p)
{
	struct wl_read_req q = { .buf = buf };
	struct wl_read_res res;
	__u64 t0, c0;

	memset(p, 0, sizeof(*p));
	t0 = clock_ns(CLOCK_MONOTONIC);
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (o->way == WL_WAY_READ && lseek(o->fd, 0, SEEK_SET) < 0)
		return -errno;
	while (q.pos < o->size) {
		q.len = o->size - q.pos < o->bs ? o->size - q.pos : o->bs;
		wl_reader__read(r, &q, &res);
		p->calls++;
		if (res.ret < 0) {
			if (res.err == EINTR)
				continue;
			return res.err ? -res.err : -EIO;
		}
		if (!res.ret)
			break;
		q.pos += (__u64)res.ret;
	}
	p->wall_ns = clock_ns(CLOCK_MONOTONIC) - t0;
	p->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	p->bytes = q.pos;
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
	struct wl_reader_opts ro = { .way = o->way, .fd = o->fd };
	struct wl_reader r;
	unsigned char *buf;
	const char *failed;
	int err = 0;

	memset(t, 0, sizeof(*t));
	if (!o->passes || o->passes > WL_TPUT_MAX_PASSES || !o->bs ||
	    (o->way != WL_WAY_READ && o->way != WL_WAY_PREAD))
		return -EINVAL;
	err = wl_reader__open(&r, &ro, &failed);
	if (err) {
		wl_reader__close(&r);
		return err;
	}
	/* Page-aligned, as fio's buffers are. */
	if (posix_memalign((void **)&buf, 4096, o->bs)) {
		wl_reader__close(&r);
		return -ENOMEM;
	}
	/* Touched once, so that no pass pays the buffer's page faults. */
	memset(buf, 0, o->bs);
	for (unsigned int i = 0; i < o->passes; i++) {
		err = pass(o, &r, buf, &t->pass[i]);
		t->calls += t->pass[i].calls;
		t->bytes += t->pass[i].bytes;
		if (err)
			break;
		t->npasses++;
	}
	free(buf);
	wl_reader__close(&r);
	wl_tput__summarize(t);
	return err;
}
