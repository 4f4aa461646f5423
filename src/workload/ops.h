/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Sequences of operations (run WL --ops N): what an operation is and how
 * it is drawn from the seed (ops_draw.c), and the shadow of each file,
 * the bytes and size the operations must have left it with
 * (ops_shadow.c): both pure, for the unit tests. ops.c runs them against
 * the kernel and shrinks a failing sequence.
 */
#ifndef FS_WORKLOAD_OPS_H
#define FS_WORKLOAD_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "workload/workload_internal.h"

/* Files stay under three 2 MiB folios and a bit; one operation moves a
 * folio and a bit at most. */
#define WL_OPS_MAX_SIZE (3 * WL_PMD + (64ULL << 10))
#define WL_OPS_MAX_LEN (WL_PMD + (64ULL << 10))
#define WL_OPS_NFILES 4

enum wl_op_kind {
	OPK_READ,
	OPK_PWRITE,
	OPK_WRITE, /* lseek, then write */
	OPK_TRUNCATE,
	OPK_FALLOC,
	OPK_FALLOC_KEEP,
	OPK_PUNCH,
	OPK_ZERO,
	OPK_MMAP,   /* write through a shared mapping, msync */
	OPK_DEDUPE, /* dedupe's: FIDEDUPERANGE */
	OPK_CLONE,  /* FICLONERANGE */
	OPK_COPY,   /* copy_file_range */
	OPK_NR,
};

/* "pwrite", "fallocate-keep-size", ... */
const char *wl_op_kind__name(enum wl_op_kind k);

struct wl_op_dest {
	__u32 file;
	__u64 off;
};

/*
 * A dedupe drawn now and then as a compound that sets up what it then
 * compares, what the matrix's decoy layouts do: equal ranges at
 * different in-page offsets (where sub-page blocks allow them), decoy
 * bytes around them, where a compare at a wrong offset would look.
 * Its own writes come first (wl_op__stage), so that a sequence still
 * shrinks by leaving operations out.
 */
enum wl_stage {
	WL_STAGE_NONE,
	/* The source's bytes at each destination, decoys around both:
	 * SAME, which a compare at a wrong offset turns into DIFFERS. */
	WL_STAGE_SAME,
	/* Decoys at each destination, and the source's bytes in the
	 * destination's page at the source's in-page offset, all inside
	 * one page: DIFFERS, which a compare reading the destination at
	 * the source's offset turns into SAME. */
	WL_STAGE_DECOY,
};

#define WL_STAGE_MAX_DESTS 3
/* Decoy and bytes for the source and for each destination. */
#define WL_STAGE_MAX_WRITES (2 * (1 + WL_STAGE_MAX_DESTS))

struct wl_op {
	enum wl_op_kind kind;
	__u32 file;
	enum wl_way way; /* reads */
	__u32 iovecs;	 /* iovec ways */
	int rwf;	 /* preadv2: 0, RWF_HIPRI or RWF_NOWAIT */
	__u64 off;	 /* truncate: the new size */
	__u64 len;
	/* dedupe: its destinations; clone and copy: dest[0] */
	__u32 ndest;
	struct wl_op_dest dest[DD_MAX_DESTS];
	enum wl_stage stage; /* dedupe */
	/* pwrite: the pattern's offset, where it is not off's own (0): a
	 * staged dedupe's writes put the source's bytes elsewhere. */
	__u64 base;
};

/* The files of a run: where each lives and its block size. shmem-read:
 * a tmpfs per file, one per huge= mode; dedupe: files 0 and 1 on btrfs,
 * 2 and 3 on xfs with a block size drawn from the seed. */
struct wl_ops_geom {
	enum wl_kind kind;
	int filesys[WL_OPS_NFILES]; /* the file's filesystem (or mount) */
	__u32 bs[WL_OPS_NFILES];
	/* The file's filesystem has no FALLOC_FL_ZERO_RANGE and must
	 * refuse it with EOPNOTSUPP (tmpfs); elsewhere (btrfs, xfs) a
	 * refusal is a wrong answer. */
	bool no_zero_range[WL_OPS_NFILES];
	/* The filesystem drops the page cache over a punch, a zero-range
	 * or a remap's destination rounded out to this many bytes (xfs:
	 * max(block, page), xfs_flush_unmap_range), bytes the operation
	 * leaves included; 0: over the changed bytes alone. */
	__u32 inval_unit[WL_OPS_NFILES];
	char label[WL_OPS_NFILES][24]; /* "huge=advise", "xfs bs=1024" */
};

void wl_ops__geom(enum wl_kind kind, __u64 seed, __u32 page,
		  struct wl_ops_geom *g);
/* The huge= mode of shmem-read's file i. */
enum wl_huge wl_ops__huge(__u32 i);
/* Operation index of seed, from a stream of its own: it does not depend
 * on the operations before it. */
void wl_op__draw(__u64 seed, __u32 index, const struct wl_ops_geom *geo,
		 struct wl_op *op);
/* Read index of a racing reader's stream (1 ..) of seed: a read as the
 * sequence draws them, by every way in. */
void wl_op__draw_read(__u64 seed, __u32 stream, __u32 index,
		      const struct wl_ops_geom *geo, struct wl_op *op);
/* "#17 pwrite file 2 (huge=advise) off 2093056 len 8200" */
void wl_op__describe(const struct wl_op *op, __u32 index,
		     const struct wl_ops_geom *geo, char *buf, size_t n);
/* What a write of operation index puts at [off, off + len): the pattern
 * shifted by a tag of its own, so that no two writes write the same
 * bytes, nor any write a stale byte's. Under WL_POISON_BASE. */
__u64 wl_op__write_tag(__u64 seed, __u32 index);
/* A staged dedupe whose ranges all lie in the source's page: one folio
 * for both sides of every compare. */
bool wl_op__one_page(const struct wl_op *op, const struct wl_ops_geom *geo);
/* A staged dedupe's writes (op->stage), in order, into w (room for
 * WL_STAGE_MAX_WRITES): pwrites with their pattern's base, each applied
 * to the shadows as one; their count (0: not staged). */
__u32 wl_op__stage(const struct wl_op *op, __u64 seed, __u32 index,
		   const struct wl_ops_geom *geo, struct wl_op *w);

/*
 * The second mutator's store into a dedupe's destination while the
 * FIDEDUPERANGE runs (--ops --jobs, dedupe): into one of the
 * destinations in another file than the source whose compare covers
 * cmp_len[d] bytes (0: none), at most two units inside them, by pwrite
 * or by a store through a shared mapping. w: a pwrite with its pattern's
 * base (bytes no write, decoy or poison has), as the shadows apply it;
 * dest: the destination; false: no destination takes one.
 */
bool wl_op__store(const struct wl_op *op, __u64 seed, __u32 index,
		  const struct wl_ops_geom *geo, const __u64 *cmp_len,
		  struct wl_op *w, __u32 *dest, bool *by_mmap);

/*
 * What a page of a file holds by what was last done to it: never
 * allocated or punched out (a hole), fallocated and never written since,
 * or written (by write, an mmap store, a copy or a clone). Kept a 4 KiB
 * page at a time, to name what a read crossed.
 */
enum wl_range_state {
	WL_RANGE_HOLE,
	WL_RANGE_FALLOC,
	WL_RANGE_WRITTEN,
	WL_RANGE_NR,
};

#define WL_OPS_STATE_PAGE 4096ULL
#define WL_OPS_STATE_PAGES (WL_OPS_MAX_SIZE / WL_OPS_STATE_PAGE + 1)

/* "hole", "fallocated", "written" */
const char *wl_range_state__name(enum wl_range_state s);

/* A file as the operations must have left it: bytes b[0..size), zero
 * past size, and each page's state (NULL: not kept). */
struct wl_shadow {
	unsigned char *b;
	__u64 size;
	unsigned char *state; /* WL_OPS_STATE_PAGES of enum wl_range_state */
};

/* The states the pages of [off, off + len) inside m's size are in, as a
 * mask of 1 << state (0: none, or not kept). */
unsigned int wl_shadow__states(const struct wl_shadow *m, __u64 off, __u64 len);

/* What op (index of seed) did to the files' shadows, the kernel having
 * answered ret (< 0: refused, nothing changed; copy_file_range: the
 * bytes it copied). */
void wl_shadow__apply(struct wl_shadow *files, const struct wl_op *op,
		      __u64 seed, __u32 index, long long ret);
/* An mmap write's range in m's current size; false when m is empty. */
bool wl_shadow__mmap_range(const struct wl_shadow *m, const struct wl_op *op,
			   __u64 *off, __u64 *len);
/* FICLONERANGE's answer on the shadows: 0 or -EINVAL. */
int wl_shadow__clone(const struct wl_shadow *files, const struct wl_op *op,
		     __u32 bs);
/* copy_file_range's answer: the bytes copied, -EINVAL or -EXDEV; *alt
 * another right count (whole blocks cloned, or all copied where the
 * filesystem declines the clone), 0 for none. */
int wl_shadow__copy(const struct wl_shadow *files, const struct wl_op *op,
		    const struct wl_ops_geom *geo, __u64 *alt);

#endif /* FS_WORKLOAD_OPS_H */
