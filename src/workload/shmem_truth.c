// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shmem-read workload's ground truth (shmem_truth.h): the pieces each
 * --fill writes and what a file therefore holds, checked in place or
 * written out; what a read must return; the matrix's read plans; the
 * layout string of one read call. No system calls.
 */
#include <stdio.h>
#include <string.h>

#include "util/util.h"
#include "workload/pattern.h"
#include "workload/shmem_truth.h"

static const char *const fill_names[SH_FILL_NR] = {
	[SH_FILL_FULL] = "full",
	[SH_FILL_SPARSE] = "sparse",
	[SH_FILL_MIXED] = "mixed",
	[SH_FILL_FALLOC] = "fallocated",
	[SH_FILL_FALLOC_KEEP] = "fallocated-keep-size",
	[SH_FILL_HOLE] = "hole",
};

const char *sh_fill__name(enum sh_fill f)
{
	return f < SH_FILL_NR ? fill_names[f] : "?";
}

int sh_fill__parse(const char *name)
{
	return wl__lookup(fill_names, SH_FILL_NR, name);
}

/* sparse: 12293 bytes in every other 2 MiB region, at a start that moves
 * by a page per piece (and 1 byte in), so pieces cross page boundaries
 * at different places. */
#define SPARSE_PIECE (3 * 4096 + 5)
/* mixed: the tail after the whole 2 MiB chunks holds two pieces with a
 * hole between and after them. */
#define MIXED_A 8195
#define MIXED_B_START 20491
#define MIXED_B_END_GAP 4103

bool sh_file__piece(const struct sh_file *f, __u64 i, struct sh_piece *p)
{
	__u64 h = f->size / WL_PMD * WL_PMD, t = f->size - h;
	struct sh_piece v[3];
	int n = 0;

	memset(p, 0, sizeof(*p));
	switch (f->fill) {
	case SH_FILL_FULL:
		if (i || !f->size)
			return false;
		p->end = f->size;
		return true;
	case SH_FILL_SPARSE:
		p->start = 2 * i * WL_PMD + (i % 256) * 4096 + 1;
		if (p->start >= f->size)
			return false;
		p->end = wl__min(p->start + SPARSE_PIECE, f->size);
		return true;
	case SH_FILL_MIXED:
		if (h)
			v[n++] = (struct sh_piece){ 0, h, false };
		if (t)
			v[n++] = (struct sh_piece){ h, h + wl__min(t, MIXED_A),
						    true };
		if (t > MIXED_B_START + MIXED_B_END_GAP)
			v[n++] = (struct sh_piece){ h + MIXED_B_START,
						    f->size - MIXED_B_END_GAP,
						    true };
		if (i >= (__u64)n)
			return false;
		*p = v[i];
		return true;
	default:
		return false;
	}
}

void sh_file__fill(const struct sh_file *f, __u64 off, void *buf, size_t len)
{
	unsigned char *b = buf;
	struct sh_piece p;
	__u64 i = 0;

	memset(buf, 0, len);
	/* Pieces are in file order; sparse ones sit one per 4 MiB. */
	if (f->fill == SH_FILL_SPARSE)
		i = off / (2 * WL_PMD);
	for (; sh_file__piece(f, i, &p) && p.start < off + len; i++) {
		__u64 a = wl__max(off, p.start), e = wl__min(off + len, p.end);

		if (a < e)
			wl_pattern__fill(b + (a - off), a, e - a);
	}
}

size_t sh_file__diff(const struct sh_file *f, __u64 off, const void *buf,
		     size_t len)
{
	const unsigned char *b = buf;
	__u64 at = off, end = off + len, i = 0, e;
	struct sh_piece p;
	size_t x;

	/* Pieces are in file order; sparse ones sit one per 4 MiB. */
	if (f->fill == SH_FILL_SPARSE)
		i = off / (2 * WL_PMD);
	for (; at < end && sh_file__piece(f, i, &p); i++) {
		if (p.end <= at)
			continue;
		if (p.start >= end)
			break;
		if (p.start > at) { /* the hole before the piece */
			x = wl_zero__diff(b + (at - off), p.start - at);
			if (x < p.start - at)
				return at - off + x;
			at = p.start;
		}
		e = p.end < end ? p.end : end;
		x = wl_pattern__diff(b + (at - off), at, e - at);
		if (x < e - at)
			return at - off + x;
		at = e;
	}
	if (at < end) { /* the hole after the last piece */
		x = wl_zero__diff(b + (at - off), end - at);
		if (x < end - at)
			return at - off + x;
	}
	return len;
}

unsigned char sh_file__byte(const struct sh_file *f, __u64 off)
{
	unsigned char b;

	sh_file__fill(f, off, &b, 1);
	return b;
}

__u64 sh_file__allocated(const struct sh_file *f)
{
	switch (f->fill) {
	case SH_FILL_FALLOC:
		return f->size;
	case SH_FILL_FALLOC_KEEP:
		return f->size + SH_KEEP_PAST;
	default:
		return 0;
	}
}

__u64 sh_file__mem(const struct sh_file *f, bool huge)
{
	__u64 unit = huge ? WL_PMD : 4096, alloc = sh_file__allocated(f);
	struct sh_piece p;
	__u64 sum = 0;

	/* Fallocated: all of it, in the mount's folios. */
	if (alloc)
		return (alloc + unit - 1) / unit * unit;
	/* One piece per 4 MiB, each inside one 2 MiB region and over 4
	 * pages: a bound without walking a huge sparse file. */
	if (f->fill == SH_FILL_SPARSE)
		return (f->size / (2 * WL_PMD) + 1) *
		       (huge ? WL_PMD : 4 * 4096);
	for (__u64 i = 0; sh_file__piece(f, i, &p); i++) {
		/* Early pieces are written while the mount is huge=never. */
		__u64 u = p.early ? 4096 : unit;
		__u64 a = p.start / u * u;
		__u64 b = (p.end + u - 1) / u * u;

		sum += b - a;
	}
	return sum;
}

__u64 sh__expect_ret(__u64 size, __u64 pos, __u64 req)
{
	return pos >= size ? 0 : wl__min(req, size - pos);
}

/*
 * The default read patterns, each run on every file of the matrix. Sizes
 * there are 4 MiB + 4097 (full), 2 MiB + 300003 (mixed) and 4 MiB + 20000
 * (sparse): all reach past the first 2 MiB folio and end mid-page.
 */
static const struct sh_plan matrix_plans[] = {
	/* name, way, iovecs, bs, offset, from_eof, length, buf_align,
	 * readers, rwf */
	{ "seq-64k", WL_WAY_READ, 1, 64 * KiB, 0, false, 0, 0, 1, 0 },
	{ "bytes-1", WL_WAY_PREAD, 1, 1, 2 * MiB - 300, false, 600, 1, 1, 0 },
	{ "odd-7", WL_WAY_READV, 2, 7, 4090, false, 70, 5, 1, 0 },
	{ "readv-3m", WL_WAY_READV, 3, 3 * MiB + 5, 4095, false, 0, 3, 1, 0 },
	{ "pages-x4", WL_WAY_PREAD, 1, 4096, 4096, false, 256 * KiB, 8, 4, 0 },
	{ "folio-2m", WL_WAY_READ, 1, 2 * MiB, 2 * MiB, false, 0, 4095, 1, 0 },
	{ "readv16-x2", WL_WAY_READV, 16, 64 * KiB + 17, 1, false, 512 * KiB, 1,
	  2, 0 },
	{ "read-x3", WL_WAY_READ, 1, 100000, 12345, false, 1 * MiB, 2, 3, 0 },
	{ "to-eof", WL_WAY_PREAD, 1, 4096, -12288, true, 0, 0, 1, 0 },
	{ "past-eof", WL_WAY_READV, 2, 4096, -100, true, 0, 7, 1, 0 },
	{ "beyond-eof", WL_WAY_PREAD, 1, 4096, 1, true, 0, 0, 1, 0 },
	/* The other ways in: preadv2 with its flags, io_uring's reads
	 * (each where the kernel has it; else a skip). */
	{ "pv2-odd", WL_WAY_PREADV2, 3, 5000, 4093, false, 100000, 3, 1, 0 },
	{ "pv2-nowait", WL_WAY_PREADV2, 1, 64 * KiB, 0, false, 1 * MiB, 0, 1,
	  RWF_NOWAIT },
	{ "pv2-hipri", WL_WAY_PREADV2, 2, 4096 + 13, 2 * MiB - 4096, false,
	  256 * KiB, 5, 1, RWF_HIPRI },
	{ "uring-read", WL_WAY_URING_READ, 1, 64 * KiB + 3, 7, false, 1 * MiB,
	  1, 2, 0 },
	{ "uring-readv", WL_WAY_URING_READV, 4, 3 * MiB + 5, 0, false, 0, 2, 1,
	  0 },
	{ "uring-fixed", WL_WAY_URING_FIXED, 1, 2 * MiB, 2 * MiB - 100, false,
	  0, 0, 1, 0 },
	{ "uring-eof", WL_WAY_URING_READ, 1, 4096, -100, true, 0, 0, 1, 0 },
	/* Reads through a pipe in the kernel: splice into one, sendfile to
	 * a file and to a socket, copy_file_range to a file of the same
	 * tmpfs, to one of another and to the file itself. */
	{ "splice-odd", WL_WAY_SPLICE, 1, 5000, 2 * MiB - 3001, false, 200000,
	  0, 1, 0 },
	{ "splice-eof", WL_WAY_SPLICE, 1, 4096, -100, true, 0, 0, 1, 0 },
	{ "sendfile-2m", WL_WAY_SENDFILE, 1, 2 * MiB + 3, 2 * MiB - 4097, false,
	  0, 0, 1, 0 },
	{ "sendsock-x2", WL_WAY_SENDFILE_SOCK, 1, 64 * KiB + 1, 4095, false,
	  1 * MiB, 0, 2, 0 },
	{ "cfr-all", WL_WAY_COPY_RANGE, 1, 300000, 12345, false, 0, 0, 1, 0 },
	{ "cfr-other-fs", WL_WAY_COPY_OTHER_FS, 1, 1 * MiB, 7, false, 3 * MiB,
	  0, 1, 0 },
	/* copy_file_range to a range of the file it reads (past its end,
	 * cut back after each call): one reader, the file grows meanwhile. */
	{ "cfr-same", WL_WAY_COPY_SAME, 1, 2 * MiB + 5, 2 * MiB - 4097, false,
	  0, 0, 1, 0 },
	{ "cfr-same-eof", WL_WAY_COPY_SAME, 1, 4096, -100, true, 0, 0, 1, 0 },
	/* A loop device over the file, read with O_DIRECT: whole sectors,
	 * across a 2 MiB folio and up to the device's end. */
	{ "loop-64k", WL_WAY_LOOP, 1, 64 * KiB, 2 * MiB - 8192, false, 1 * MiB,
	  0, 1, 0 },
	{ "loop-eof", WL_WAY_LOOP, 1, 8192, -12800, true, 0, 0, 1, 0 },
};

int sh_plan__matrix(const struct sh_plan **plans)
{
	*plans = matrix_plans;
	return ARRAY_SIZE(matrix_plans);
}

__u64 sh_plan__start(const struct sh_plan *pl, __u64 size)
{
	if (!pl->from_eof)
		return (__u64)pl->offset;
	if (pl->offset < 0 && (__u64)-pl->offset > size)
		return 0;
	return size + pl->offset;
}

void sh__layout(enum wl_huge huge, const struct sh_file *f,
		const struct sh_plan *pl, __u32 reader, __u64 call, __u64 pos,
		char *buf, size_t n)
{
	snprintf(buf, n,
		 "huge=%s file=%s size=%llu plan=%s syscall=%s%s%s iovecs=%u "
		 "bs=%llu offset=%llu length=%llu buf_align=%llu readers=%u "
		 "reader=%u call=%llu pos=%llu",
		 wl_huge__name(huge), sh_fill__name(f->fill),
		 (unsigned long long)f->size, pl->name, wl_way__name(pl->way),
		 pl->rwf ? " rwf=" : "", wl_rwf__name(pl->rwf), pl->iovecs,
		 (unsigned long long)pl->bs,
		 (unsigned long long)sh_plan__start(pl, f->size),
		 (unsigned long long)pl->length,
		 (unsigned long long)pl->buf_align, pl->readers, reader,
		 (unsigned long long)call, (unsigned long long)pos);
}
