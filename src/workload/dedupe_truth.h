/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The dedupe workload's ground truth, with no system calls so that unit
 * tests can pin it down: what every test file holds (dedupe_truth.c),
 * the layouts of a run (dedupe_plans.c: the matrix, one layout from the
 * options, the seed's), and what the kernel must answer for each
 * destination of each FIDEDUPERANGE, as the layout string a failed check
 * is reported with.
 */
#ifndef FS_WORKLOAD_DEDUPE_TRUTH_H
#define FS_WORKLOAD_DEDUPE_TRUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "workload/workload_internal.h"

/* Copied-in ranges per file: a source with a destination range per
 * destination of one case at most. */
#define DD_MAX_SEGS DD_MAX_DESTS
#define DD_MAX_FILESYS 4
/* vfs_dedupe_file_range caps one request at 1 GiB. */
#define DD_CAP (1ULL << 30)

/* Offset of the differing byte in a compared range of cmp bytes. */
__u64 dd_diff__pos(enum dd_diff d, __u64 cmp);

/*
 * Part of a file copied from elsewhere: [start, start + count * len) holds
 * pattern(off + delta); with flip, byte start + k*len + flip_pos of each
 * of the count pieces is inverted (the one differing byte).
 */
struct dd_seg {
	__u64 start, len, delta, flip_pos;
	__u32 count;
	bool flip;
};

/* A test file: pattern(off + delta) outside its segments. */
struct dd_file {
	__u64 size, delta;
	int filesys; /* index of the filesystem it lives on */
	bool cold;   /* dropped from the page cache before the dedupe */
	/* Dropped, then read back sequentially so that readahead fills the
	 * page cache (with large folios where the filesystem takes them). */
	bool readahead;
	/* Written a page at a time: a buffered write makes folios no larger
	 * than it, so these stay small where big writes make large ones. */
	bool small_writes;
	int nseg;
	struct dd_seg seg[DD_MAX_SEGS];
};

/* The contents of f at [off, off + len). */
void dd_file__fill(const struct dd_file *f, __u64 off, void *buf, size_t len);
/* Do a at aoff and b at boff hold the same len bytes? */
bool dd_file__equal(const struct dd_file *a, __u64 aoff,
		    const struct dd_file *b, __u64 boff, __u64 len);

struct dd_dest {
	int file;
	__u64 off;
	enum dd_diff diff;
};

/*
 * One layout: count FIDEDUPERANGE ioctls, the k-th comparing
 * [src_off + k*len, +len) of the source with [dest.off + k*len, +len) of
 * each destination.
 */
struct dd_case {
	char name[24];
	int src;
	__u64 src_off, len;
	__u32 count;
	unsigned int ndest;
	struct dd_dest dest[DD_MAX_DESTS];
};

/* A filesystem of a run: btrfs or xfs, with its block size. */
struct dd_filesys {
	enum wl_fstype type;
	__u32 bs;
};

/* Everything a run does, with its files' contents: built before it runs. */
struct dd_plan {
	__u32 page;
	int nfilesys;
	struct dd_filesys filesys[DD_MAX_FILESYS];
	int nfiles, cap_files;
	struct dd_file *files;
	int ncases, cap_cases;
	struct dd_case *cases;
};

/* What the kernel must answer for one destination of one ioctl. */
struct dd_expect {
	int ioctl_err; /* the whole ioctl fails with this -errno, or 0 */
	int status;    /* FILE_DEDUPE_RANGE_SAME/_DIFFERS or -errno */
	__u64 bytes_deduped;
	__u64 cmp_len;	   /* bytes the kernel compares (0: none) */
	bool reaches_prep; /* the fs's remap prep runs (the traced caller) */
};

/* What the kernel answered for one destination of one ioctl. */
struct dd_result {
	int ioctl_err;
	__s32 status;
	__u64 bytes;
};

/* One destination of a FIDEDUPERANGE request, with the files' sizes. */
struct dd_req {
	__u64 bs; /* the filesystem's block size */
	__u64 src_size, dst_size;
	__u64 src_off, dst_off, len;
	bool same_file;
};

/* Everything of the kernel's answer for q but the compare of the bytes:
 * errors, and the length compared (the answer is SAME unless those
 * bytes differ). */
void dd__geometry(const struct dd_req *q, struct dd_expect *e);
/* A store that raced a FIDEDUPERANGE into one of its destinations: len
 * bytes at off of the destination's file; torn: through a mapping,
 * where the remap's writeback may stop it part way (its first bytes in
 * the page, the rest faulting until the remap is done). */
struct dd_store {
	__u64 off, len;
	const unsigned char *bytes;
	bool torn;
};
/* The answers a compare of src against dst (n bytes at dst_off of the
 * destination's file, as they were before st) may give when st raced
 * it: SAME where the ranges were equal in some state the destination was
 * in during the call, DIFFERS where they differed in one. */
void dd__store_answers(const unsigned char *src, const unsigned char *dst,
		       __u64 dst_off, __u64 n, const struct dd_store *st,
		       bool *same_ok, bool *differs_ok);
bool dd__answer_ok(const struct dd_expect *e, const struct dd_result *g);
/* What one destination's answer g (expected e, request of req_len bytes)
 * counts at each level the probes see (see workload__totals). */
void dd__count_answer(struct wl_totals *t, __u64 req_len,
		      const struct dd_expect *e, const struct dd_result *g);

void dd_plan__init(struct dd_plan *p, __u32 page);
void dd_plan__free(struct dd_plan *p);
/* Add a filesystem; returns its index or -ENOSPC. */
int dd_plan__add_filesys(struct dd_plan *p, enum wl_fstype type, __u32 bs);
/* Add a file of size bytes on filesystem fsi; returns its index or
 * -errno. */
int dd_plan__add_file(struct dd_plan *p, int fsi, __u64 size, bool cold);
/*
 * Add a case and write its destination ranges (copies of the source
 * range, plus each destination's differing byte) into the file models.
 * Returns 0 or -errno (-ENOSPC: too many segments in one file).
 */
int dd_plan__add_case(struct dd_plan *p, const struct dd_case *c);
/* The default matrix for filesystem fsi (see dedupe_plans.c for the
 * list). */
int dd_plan__matrix(struct dd_plan *p, int fsi);
/*
 * The matrix's layouts for large folios on filesystem fsi: files read back
 * through readahead, written in big or page-sized writes, ranges starting
 * in a folio's later pages, source and destination of different folio
 * sizes.
 */
int dd_plan__large_folios(struct dd_plan *p, int fsi);
/* One layout from the options (--range, --count, --dests, ...). */
int dd_plan__custom(struct dd_plan *p, int fsi, const struct wl_opts *o);
/* The seed's workload: o->files identical files, file 0 the source. */
int dd_plan__seed(struct dd_plan *p, int fsi, const struct wl_opts *o);

/* Everything of dd__expect but the compare of the contents. */
void dd__geometry_of(const struct dd_plan *p, const struct dd_case *c, __u32 k,
		     unsigned int d, struct dd_expect *e);
/* Where destination d's differing byte goes, relative to its range. */
__u64 dd__flip_pos(const struct dd_plan *p, const struct dd_case *c,
		   unsigned int d);
/*
 * The kernel's answer for destination d of the k-th ioctl of case c,
 * from the checks of vfs_dedupe_file_range and generic_remap_checks and
 * the file contents.
 */
void dd__expect(const struct dd_plan *p, const struct dd_case *c, __u32 k,
		unsigned int d, struct dd_expect *e);
/* The exact layout of one destination of one ioctl, for a failed check. */
void dd__layout(const struct dd_plan *p, const struct dd_case *c, __u32 k,
		unsigned int d, char *buf, size_t n);
/* "SAME bytes_deduped=N", "DIFFERS ...", "status -22 (EINVAL)", ... */
void dd__answer(int ioctl_err, int status, __u64 bytes, char *buf, size_t n);

#endif /* FS_WORKLOAD_DEDUPE_TRUTH_H */
