/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The shmem-read workload's ground truth, with no system calls so that
 * unit tests can pin it down (shmem_truth.c): what each file holds
 * (--fill: its written pieces, holes reading as zeros), what a read must
 * return, the matrix's read plans and the layout string a failed check is
 * reported with.
 */
#ifndef FS_WORKLOAD_SHMEM_TRUTH_H
#define FS_WORKLOAD_SHMEM_TRUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "workload/workload_internal.h"

struct sh_file {
	enum sh_fill fill;
	__u64 size;
};

/* One written piece of a file; early pieces are written before the
 * mount switches to its huge= mode, so they stay in 4 KiB folios. */
struct sh_piece {
	__u64 start, end;
	bool early;
};

/* The i-th written piece of f, in file order; false past the last. */
bool sh_file__piece(const struct sh_file *f, __u64 i, struct sh_piece *p);
/* Expected contents at [off, off + len): pattern, zeros in holes and
 * past EOF. */
void sh_file__fill(const struct sh_file *f, __u64 off, void *buf, size_t len);
/* First byte of buf[0..len) that differs from f's contents at off, or
 * len: sh_file__fill's answer, checked in place. */
size_t sh_file__diff(const struct sh_file *f, __u64 off, const void *buf,
		     size_t len);
/* f's byte at off. */
unsigned char sh_file__byte(const struct sh_file *f, __u64 off);
/* How far from 0 a fallocated fill allocates (0: none is): its size, or
 * SH_KEEP_PAST more with KEEP_SIZE, so that folios lie past EOF too. */
#define SH_KEEP_PAST (64 * KiB + 5)
__u64 sh_file__allocated(const struct sh_file *f);
/*
 * RAM the written pieces of f take on tmpfs, at most (all it allocates,
 * for a fallocated fill): whole 2 MiB folios
 * for the pieces written in a huge= mode (huge), pages for the rest.
 * Holes take nothing.
 */
__u64 sh_file__mem(const struct sh_file *f, bool huge);
/* What a read of req bytes at pos must return. */
__u64 sh__expect_ret(__u64 size, __u64 pos, __u64 req);

/* A read pattern. Offset from_eof: the start is size + offset. */
struct sh_plan {
	char name[20];
	enum wl_way way;
	__u32 iovecs;
	__u64 bs;
	__s64 offset;
	bool from_eof;
	__u64 length; /* 0 = to EOF */
	__u64 buf_align;
	__u32 readers;
	int rwf; /* preadv2's RWF_* flags */
};

/* The default matrix's read plans; returns how many. */
int sh_plan__matrix(const struct sh_plan **plans);
/* The start of a plan's reads in a file of size bytes. */
__u64 sh_plan__start(const struct sh_plan *pl, __u64 size);
/* The exact layout of one read call, for a failed check. */
void sh__layout(enum wl_huge huge, const struct sh_file *f,
		const struct sh_plan *pl, __u32 reader, __u64 call, __u64 pos,
		char *buf, size_t n);

#endif /* FS_WORKLOAD_SHMEM_TRUTH_H */
