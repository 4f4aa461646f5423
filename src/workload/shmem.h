/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A shmem-read run's state, shared by its two files: shmem_setup.c makes
 * what the run reads (the options checked, tmpfs mounts, files written in
 * the order that mixes folio sizes, the readers' buffers) and undoes it;
 * shmem.c runs the traced phase (the probe reads, the readers, the
 * checks) and reports.
 */
#ifndef FS_WORKLOAD_SHMEM_H
#define FS_WORKLOAD_SHMEM_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <linux/types.h>

#include "workload/read.h"
#include "workload/shmem_truth.h"

#define SH_WL "shmem-read"
/* Files of the matrix on each mount. */
#define SH_MATRIX_FILES 5

struct sh_mount {
	enum wl_huge huge;
	char dir[PATH_MAX];
	bool mounted;
	__u64 huge_kb; /* ShmemHugePages growth while its files were made */
	bool expect_huge;
};

struct sh_inst {
	struct sh_file f;
	int mount;
	char path[PATH_MAX];
	bool made;
	/* Another process changed its size: its later plans do not run. */
	bool disturbed;
};

struct shmem;
struct sh_gate;

struct sh_reader {
	struct shmem *s;
	struct sh_inst *in;
	const struct sh_plan *pl;
	__u32 idx;
	unsigned char *mem; /* page-aligned buffer, made in prepare */
	struct wl_rbuf buf;
	struct sh_gate *gate;
	struct wl_reader rd;
	struct wl_totals tot; /* what its calls count, for the probes */
	__u64 seq;	      /* calls of this reader over all plans: poison */
	__u64 passed; /* checks passed, added to the report at the end */
	__u64 eof;    /* where its reads end: the file's (whole) size */
	bool stop;    /* the file changed under it: read no further */
	__u64 cur_call, cur_pos; /* the call in flight, for the watchdog */
};

struct shmem {
	bool matrix;
	wl_group_fn group_end;
	void *group_ctx;
	int nmount;
	struct sh_mount m[WL_HUGE_NR];
	int ninst;
	struct sh_inst inst[WL_HUGE_NR * SH_MATRIX_FILES];
	int nplans;
	const struct sh_plan *plans;
	struct sh_plan custom;
	/* Why plan p cannot run on this kernel ("" when it can). */
	char (*skip)[160];
	__u64 page, bufsize;
	__u32 nreaders; /* buffers made */
	/* --buf-tmpfs: every reader's buffer is a slice of this mapping. */
	unsigned char *bufmap;
	__u64 buflen;
	struct sh_reader rd[SH_MAX_READERS];
	/* Checks come from several threads; model__check is not atomic. */
	pthread_mutex_t lock;
	struct fs_report *r;
	bool inject, first_run;
	__u64 stop_after, calls_done; /* --stop-after */
	__u64 deadline_base;	      /* seconds */
	struct wl_watch *watch;
	struct wl_totals tot;
	unsigned int tput_passes; /* --throughput */
};

/* shmem_setup.c */
int shmem__prepare(void **out, const struct wl_opts *o);
int shmem__space(const struct wl_opts *o, __u64 *bytes);
void shmem__destroy(void *state);

#endif /* FS_WORKLOAD_SHMEM_H */
