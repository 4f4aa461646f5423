/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Timed reads as lean as fio's (throughput.c): shmem-read --throughput's
 * passes before its checked one.
 */
#ifndef FS_WORKLOAD_THROUGHPUT_H
#define FS_WORKLOAD_THROUGHPUT_H

#include <stdbool.h>
#include <linux/types.h>

#include "workload/workload.h"

struct wl_tput_opts {
	int fd;
	__u64 size; /* bytes per pass, from offset 0 */
	__u64 bs;
	enum wl_way way; /* read (from 0, the position moving) or pread */
	unsigned int passes;
};

struct wl_tput_pass {
	__u64 calls, bytes, wall_ns, cpu_ns;
};

struct wl_tput {
	struct wl_tput_pass pass[WL_TPUT_MAX_PASSES];
	unsigned int npasses; /* passes that read to the end */
	__u64 calls, bytes;   /* every call made, the failed pass's too */
	/* The middle pass by rate (the slower middle one of an even
	 * count), and the slowest and fastest. */
	double bytes_per_s, min_bytes_per_s, max_bytes_per_s;
	double cpu_ns_per_gib; /* the middle pass's user + system time */
};

/* o->passes timed passes over o->fd into t; 0 or a negative errno (the
 * passes before the failing one are kept in t). */
int wl_tput__run(const struct wl_tput_opts *o, struct wl_tput *t);
/* The figures of t->pass[0 .. npasses) (run does it; unit tests too). */
void wl_tput__summarize(struct wl_tput *t);
double wl_tput__rate(const struct wl_tput_pass *p);

#endif /* FS_WORKLOAD_THROUGHPUT_H */
