// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Drawing the operations of --ops (ops.h): each from its index alone, a
 * stream of the seed per index (as random layouts are), never from what
 * the ones before left, so a failing sequence shrinks by leaving
 * operations out and those that stay are the same operations. Offsets
 * near page and folio boundaries, lengths from a byte to a folio and a
 * bit; reads by every way in; dedupe's remaps block-aligned mostly, in
 * the same file (in the source's page or 64 KiB) or the other one of the
 * filesystem; and a dedupe in three staged (enum wl_stage), which writes
 * the ranges it compares first: random data almost never puts equal
 * bytes at different in-page offsets, where compares at a wrong offset
 * go wrong.
 */
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "util/rng.h"
#include "util/util.h"
#include "workload/ops.h"
#include "workload/read.h"

#define NFILES WL_OPS_NFILES
#define MAX_SIZE WL_OPS_MAX_SIZE
#define MAX_LEN WL_OPS_MAX_LEN
#define MAX_IOV 8

static const char *const kind_names[OPK_NR] = {
	[OPK_READ] = "read",	    [OPK_PWRITE] = "pwrite",
	[OPK_WRITE] = "write",	    [OPK_TRUNCATE] = "truncate",
	[OPK_FALLOC] = "fallocate", [OPK_FALLOC_KEEP] = "fallocate-keep-size",
	[OPK_PUNCH] = "punch-hole", [OPK_ZERO] = "zero-range",
	[OPK_MMAP] = "mmap-write",  [OPK_DEDUPE] = "dedupe",
	[OPK_CLONE] = "clone",	    [OPK_COPY] = "copy_file_range",
};

/* The ways a read is drawn from, in the order of the draw: a seed's
 * sequence is the same operations whatever order enum wl_way has. */
static const enum wl_way draw_ways[] = {
	WL_WAY_READ,	    WL_WAY_PREAD,	  WL_WAY_READV,
	WL_WAY_SPLICE,	    WL_WAY_SENDFILE,	  WL_WAY_COPY_RANGE,
	WL_WAY_PREADV2,	    WL_WAY_URING_READ,	  WL_WAY_URING_READV,
	WL_WAY_URING_FIXED, WL_WAY_SENDFILE_SOCK, WL_WAY_LOOP,
};

const char *wl_op_kind__name(enum wl_op_kind k)
{
	return k < OPK_NR ? kind_names[k] : "?";
}

enum wl_huge wl_ops__huge(__u32 i)
{
	/* One mount per huge= mode, in the matrix's order. */
	return (enum wl_huge)(i % WL_HUGE_NR);
}

void wl_ops__geom(enum wl_kind kind, __u64 seed, __u32 page,
		  struct wl_ops_geom *g)
{
	static const __u32 xfs_bs[] = { 1024, 2048, 4096 };

	memset(g, 0, sizeof(*g));
	g->kind = kind;
	for (int i = 0; i < NFILES; i++) {
		g->filesys[i] = kind == WL_DEDUPE ? i / 2 : i;
		g->bs[i] = page;
		g->no_zero_range[i] = kind != WL_DEDUPE;
		if (kind != WL_DEDUPE) {
			snprintf(g->label[i], sizeof(g->label[i]), "huge=%s",
				 wl_huge__name(wl_ops__huge(i)));
		} else if (i < 2) {
			snprintf(g->label[i], sizeof(g->label[i]), "btrfs");
		} else {
			/* Sub-page blocks where the page allows them. */
			__u32 bs = xfs_bs[seed % 3];

			g->bs[i] = bs <= page ? bs : page;
			g->inval_unit[i] = page;
			snprintf(g->label[i], sizeof(g->label[i]), "xfs bs=%u",
				 g->bs[i]);
		}
	}
}

/* A file offset where things happen: a page or folio boundary, give or
 * take a little, inside a folio, or anywhere. */
static __u64 draw_point(struct rng *g, __u64 P)
{
	__u64 v;

	switch (rng__below(g, 6)) {
	case 0:
		v = 0;
		break;
	case 1:
		v = rng__below(g, MAX_SIZE);
		break;
	case 2: /* around a page boundary */
		v = P * rng__range(g, 1, 16) + rng__range(g, 0, 32) - 16;
		break;
	case 3: /* around a 2 MiB folio's end */
		v = WL_PMD * rng__range(g, 1, 3) + rng__range(g, 0, 4 * P) -
		    2 * P;
		break;
	case 4: /* inside a 2 MiB folio, at a page's odd offset */
		v = WL_PMD * rng__range(g, 0, 2) + P * rng__range(g, 1, 511) +
		    rng__range(g, 1, P - 1);
		break;
	default: /* page-aligned */
		v = P * rng__below(g, MAX_SIZE / P);
		break;
	}
	return wl__min(v, MAX_SIZE);
}

static __u64 draw_len(struct rng *g, __u64 P)
{
	switch (rng__below(g, 5)) {
	case 0:
		return rng__range(g, 1, 16);
	case 1: /* about a page */
		return P - 8 + rng__range(g, 0, 16);
	case 2:
		return P * rng__range(g, 1, 32);
	case 3:
		return rng__range(g, 1, 256 * KiB);
	default: /* a folio or more */
		return WL_PMD - P + rng__range(g, 0, 2 * P + 64);
	}
}

/* f's pair: the other file on f's filesystem for dedupe (two on each),
 * a file on another tmpfs for shmem-read. */
static __u32 sibling(__u32 f)
{
	return f ^ 1;
}

/* The pages a staged dedupe's ranges take at most: WL_STAGE_MAX_DESTS + 1
 * ranges of up to 4 pages, each after a gap of up to 7. */
#define STAGE_PAGES 48
/* A long staged dedupe of equal ranges: 16 to 256 pages each, whose
 * compare takes long enough that a store racing it can land after the
 * compare passed its page and before the remap. Their pages: the ranges
 * of one file with their gaps. */
#define STAGE_LONG_MIN 16
#define STAGE_LONG_MAX 256
#define STAGE_LONG_PAGES ((WL_STAGE_MAX_DESTS + 1) * (STAGE_LONG_MAX + 9))
/* Where a staged dedupe's decoys come from: above every write's pattern
 * (under WL_POISON_BASE) and the poison's, another for each file. */
#define STAGE_DECOY(file) ((2ULL + (file)) << 51)
/* ... and the second mutator's stores, above those of the four files. */
#define STORE_BASE (6ULL << 51)

static __u64 round_up(__u64 v, __u64 to)
{
	return (v + to - 1) / to * to;
}

/* A staged dedupe with its destinations in the source's page, at blocks
 * of their own, where the page has room for two ranges (blocks smaller
 * than a page): a page lies in one folio, whatever size the folio is,
 * so both ranges of every compare are one folio, as the matrix's
 * same-page layouts are. */
static void draw_one_page(struct rng *g, __u64 bs, __u64 per, __u64 at,
			  struct wl_op *op)
{
	__u64 blk[WL_STAGE_MAX_DESTS + 1], room = per;
	__u32 n = 0;

	op->ndest = (__u32)wl__min(op->ndest, per - 1);
	/* Distinct blocks, the source's first. */
	while (n <= op->ndest) {
		__u64 b = rng__below(g, per);
		__u32 k = 0;

		while (k < n && blk[k] != b)
			k++;
		if (k == n)
			blk[n++] = b;
	}
	/* Ranges that overlap none of the others, inside the page. */
	for (__u32 i = 0; i < n; i++) {
		room = wl__min(room, per - blk[i]);
		for (__u32 k = 0; k < n; k++)
			if (blk[k] > blk[i])
				room = wl__min(room, blk[k] - blk[i]);
	}
	op->len = bs * rng__range(g, 1, room);
	at = at / (bs * per) * (bs * per);
	op->off = at + bs * blk[0];
	for (__u32 d = 0; d < op->ndest; d++) {
		op->dest[d].file = op->file;
		op->dest[d].off = at + bs * blk[d + 1];
	}
}

/* A staged dedupe (enum wl_stage): the source at a block of its page,
 * each destination at another block of a page of its own (where the
 * page has more than one block), after the source's pages in the same
 * file or in the other file of the filesystem; no page holds two ranges,
 * so the decoys around one never land in another. */
static void draw_staged(struct rng *g, const struct wl_ops_geom *geo, __u64 P,
			struct wl_op *op)
{
	const __u64 bs = geo->bs[op->file], per = P / bs;
	__u64 last = (MAX_SIZE - STAGE_PAGES * P) / P * P;
	__u64 s = bs * rng__below(g, per), top = s, next[2];
	bool lng;

	op->stage = rng__pct(g, 50) ? WL_STAGE_SAME : WL_STAGE_DECOY;
	/* From a stream of its own (seeded from this one's state, which it
	 * does not advance), so that the other staged dedupes stay the
	 * draws they were. */
	{
		struct rng h;

		rng__seed(&h, g->s ^ 0x3c6ef372fe94f82bULL);
		lng = op->stage == WL_STAGE_SAME && rng__pct(&h, 50);
	}
	op->ndest = (__u32)rng__range(g, 1, WL_STAGE_MAX_DESTS);
	if (per > 1 && rng__pct(g, 33)) {
		draw_one_page(g, bs, per, wl__min(draw_point(g, P), last), op);
		return;
	}
	for (__u32 d = 0; d < op->ndest; d++) {
		op->dest[d].off =
			per > 1 ? (s + bs * rng__range(g, 1, per - 1)) % P : 0;
		top = op->dest[d].off > top ? op->dest[d].off : top;
	}
	/* DECOY: every range inside its page; SAME: up to three pages, or
	 * a long one. */
	if (lng) {
		op->len = bs * rng__range(g, STAGE_LONG_MIN * per,
					  STAGE_LONG_MAX * per);
		last = (MAX_SIZE - STAGE_LONG_PAGES * P) / P * P;
	} else {
		op->len = op->stage == WL_STAGE_DECOY
				  ? bs * rng__range(g, 1, (P - top) / bs)
				  : bs * rng__range(g, 1, 3 * per);
	}
	next[0] = wl__min(draw_point(g, P) / P * P, last);
	next[1] = wl__min(draw_point(g, P) / P * P, last);
	op->off = next[0] + s;
	next[0] += round_up(s + op->len, P);
	for (__u32 d = 0; d < op->ndest; d++) {
		struct wl_op_dest *t = &op->dest[d];
		int other = rng__pct(g, 50);
		__u64 pg = next[other] + P * rng__below(g, 8);

		t->file = other ? sibling(op->file) : op->file;
		t->off += pg;
		next[other] = pg + round_up(t->off - pg + op->len, P);
	}
}

/* dedupe, clone, copy_file_range: block-aligned mostly, lengths of
 * blocks with a tail now and then (clone: whole blocks only, which is
 * all it takes short of the source's EOF), destinations in the same file
 * or in the other file of the filesystem. Those in the source's page or
 * 64 KiB mostly overlap the source at these lengths, which the kernel
 * refuses (EINVAL); two ranges in one folio are the staged dedupes' that
 * lie in one page (draw_one_page). */
static void draw_remap(struct rng *g, const struct wl_ops_geom *geo, __u64 P,
		       struct wl_op *op)
{
	const __u64 bs = geo->bs[op->file];

	if (rng__pct(g, 85))
		op->off = op->off / bs * bs;
	switch (rng__below(g, 4)) {
	case 0:
		op->len = bs * rng__range(g, 1, 16);
		break;
	case 1:
		op->len = bs * rng__range(g, 1, 64);
		break;
	case 2: /* a tail: whole blocks and a bit */
		op->len = bs * rng__range(g, 0, 8) + rng__range(g, 1, bs - 1);
		break;
	default:
		op->len = WL_PMD + bs * rng__range(g, 0, 4);
		break;
	}
	if (op->off >= MAX_SIZE - bs)
		op->off = (MAX_SIZE - bs) / bs * bs;
	op->len = wl__min(op->len, MAX_SIZE - op->off);
	if (op->kind == OPK_CLONE)
		op->len = op->len < bs ? bs : op->len / bs * bs;
	op->ndest = 1;
	if (op->kind == OPK_DEDUPE)
		op->ndest = rng__pct(g, 50) ? 1
			    : rng__pct(g, 70)
				    ? (__u32)rng__range(g, 2, 4)
				    : (__u32)rng__range(g, 5, DD_MAX_DESTS);
	for (__u32 d = 0; d < op->ndest; d++) {
		struct wl_op_dest *t = &op->dest[d];

		/* shmem-read's other file is on another tmpfs: EXDEV, now
		 * and then; its copies are to the file itself. */
		t->file = rng__pct(g, geo->kind == WL_DEDUPE ? 35 : 85)
				  ? op->file
				  : sibling(op->file);
		if (t->file == op->file && rng__pct(g, 50)) {
			/* Near the source: its page, or its 64 KiB (mostly an
			 * overlap the kernel refuses). */
			__u64 span = rng__pct(g, 50) ? P : 64 * KiB;

			span = span < bs ? bs : span;
			t->off = op->off / span * span +
				 bs * rng__below(g, span / bs);
		} else {
			t->off = draw_point(g, P);
			if (rng__pct(g, 85))
				t->off = t->off / bs * bs;
		}
		if (t->off + op->len > MAX_SIZE)
			t->off = (MAX_SIZE - op->len) / bs * bs;
	}
}

/* A read's way, iovecs and flags, its offset and length drawn. */
static void draw_read(struct rng *g, __u64 P, struct wl_op *op)
{
	op->way = draw_ways[rng__below(g, ARRAY_SIZE(draw_ways))];
	op->iovecs =
		wl_way__info(op->way)->iovecs
			? (__u32)wl__min(rng__range(g, 1, MAX_IOV), op->len)
			: 1;
	/* Reads may start past EOF and past MAX_SIZE. */
	if (rng__pct(g, 10))
		op->off += rng__range(g, 0, P);
	/* preadv2 with its flags now and then. */
	if (op->way == WL_WAY_PREADV2 && rng__pct(g, 40))
		op->rwf = rng__pct(g, 50) ? RWF_HIPRI : RWF_NOWAIT;
	/* A loop device reads whole sectors with O_DIRECT. */
	if (wl_way__info(op->way)->sectors) {
		op->off = op->off / 512 * 512;
		op->len = (op->len + 511) / 512 * 512;
		if (op->len > MAX_LEN)
			op->len = MAX_LEN / 512 * 512;
	}
}

/* The larger of the files' block sizes: the unit offsets are drawn
 * around. */
static __u64 draw_unit(const struct wl_ops_geom *geo)
{
	return geo->bs[0] > geo->bs[NFILES - 1] ? geo->bs[0]
						: geo->bs[NFILES - 1];
}

void wl_op__draw_read(__u64 seed, __u32 stream, __u32 index,
		      const struct wl_ops_geom *geo, struct wl_op *op)
{
	const __u64 P = draw_unit(geo);
	struct rng g;

	rng__seed(&g, seed ^ ((__u64)stream * 0xd1342543de82ef95ULL));
	rng__seed(&g, rng__next(&g) ^ ((__u64)index * 0x9fb21c651e98df25ULL));
	memset(op, 0, sizeof(*op));
	op->kind = OPK_READ;
	op->file = (__u32)rng__below(&g, NFILES);
	op->off = draw_point(&g, P);
	op->len = draw_len(&g, P);
	draw_read(&g, P, op);
}

void wl_op__draw(__u64 seed, __u32 index, const struct wl_ops_geom *geo,
		 struct wl_op *op)
{
	/* The kinds' weights: reads a third (a quarter for dedupe), writes
	 * a quarter; dedupe's remaps a quarter of its operations. */
	static const unsigned int weights[2][OPK_NR] = {
		{ [OPK_READ] = 34,
		  [OPK_PWRITE] = 20,
		  [OPK_WRITE] = 5,
		  [OPK_TRUNCATE] = 11,
		  [OPK_FALLOC] = 4,
		  [OPK_FALLOC_KEEP] = 4,
		  [OPK_PUNCH] = 8,
		  [OPK_ZERO] = 4,
		  [OPK_MMAP] = 10,
		  [OPK_COPY] = 5 },
		{ [OPK_READ] = 22,
		  [OPK_PWRITE] = 17,
		  [OPK_WRITE] = 4,
		  [OPK_TRUNCATE] = 8,
		  [OPK_FALLOC] = 3,
		  [OPK_FALLOC_KEEP] = 3,
		  [OPK_PUNCH] = 6,
		  [OPK_ZERO] = 3,
		  [OPK_MMAP] = 6,
		  [OPK_DEDUPE] = 16,
		  [OPK_CLONE] = 6,
		  [OPK_COPY] = 6 },
	};
	const unsigned int *w = weights[geo->kind == WL_DEDUPE];
	const __u64 P = draw_unit(geo);
	unsigned int total = 0, pick;
	struct rng g;

	rng__seed(&g, seed);
	rng__seed(&g, rng__next(&g) ^ ((__u64)index * 0x9fb21c651e98df25ULL));
	memset(op, 0, sizeof(*op));
	for (int k = 0; k < OPK_NR; k++)
		total += w[k];
	pick = (unsigned int)rng__below(&g, total);
	for (int k = 0; k < OPK_NR; k++) {
		if (pick < w[k]) {
			op->kind = (enum wl_op_kind)k;
			break;
		}
		pick -= w[k];
	}
	op->file = (__u32)rng__below(&g, NFILES);
	op->off = draw_point(&g, P);
	op->len = draw_len(&g, P);
	switch (op->kind) {
	case OPK_READ:
		draw_read(&g, P, op);
		break;
	case OPK_TRUNCATE:
		op->len = 0; /* off is the new size */
		break;
	case OPK_DEDUPE:
	case OPK_CLONE:
	case OPK_COPY:
		draw_remap(&g, geo, P, op);
		/* Drawn after the rest, so that the other dedupes stay the
		 * draws they were. */
		if (op->kind == OPK_DEDUPE && rng__pct(&g, 30))
			draw_staged(&g, geo, P, op);
		break;
	default:
		/* What a write or an allocation covers stays under MAX_SIZE. */
		if (op->off >= MAX_SIZE)
			op->off = MAX_SIZE - 1;
		op->len = wl__min(op->len, MAX_SIZE - op->off);
		break;
	}
}

/* A preadv2's flag as the description shows it. */
static const char *rwf_name(int rwf)
{
	return rwf == RWF_HIPRI ? " hipri" : rwf == RWF_NOWAIT ? " nowait" : "";
}

void wl_op__describe(const struct wl_op *op, __u32 index,
		     const struct wl_ops_geom *geo, char *buf, size_t n)
{
	size_t used;

	if (op->kind == OPK_TRUNCATE) {
		snprintf(buf, n, "#%u truncate file %u (%s) to %llu", index,
			 op->file, geo->label[op->file],
			 (unsigned long long)op->off);
		return;
	}
	if (op->kind == OPK_READ) {
		snprintf(
			buf, n,
			"#%u read file %u (%s) by %s%s%s%.0u off %llu len %llu",
			index, op->file, geo->label[op->file],
			wl_way__name(op->way), rwf_name(op->rwf),
			op->iovecs > 1 ? " iovecs " : "",
			op->iovecs > 1 ? op->iovecs : 0,
			(unsigned long long)op->off,
			(unsigned long long)op->len);
		return;
	}
	used = (size_t)snprintf(
		buf, n, "#%u %s file %u (%s) off %llu len %llu", index,
		kind_names[op->kind], op->file, geo->label[op->file],
		(unsigned long long)op->off, (unsigned long long)op->len);
	for (__u32 d = 0; d < op->ndest && used < n; d++)
		used += (size_t)snprintf(buf + used, n - used, "%s%u@%llu",
					 d ? "," : " to ", op->dest[d].file,
					 (unsigned long long)op->dest[d].off);
	if (op->stage != WL_STAGE_NONE && used < n)
		used += (size_t)snprintf(
			buf + used, n - used, "%s",
			op->stage == WL_STAGE_SAME
				? " staged: equal, decoys around"
				: " staged: decoys, the source's bytes at its "
				  "in-page offset");
	if (wl_op__one_page(op, geo) && used < n)
		snprintf(buf + used, n - used, ", in one page");
}

bool wl_op__one_page(const struct wl_op *op, const struct wl_ops_geom *geo)
{
	const __u64 P = draw_unit(geo), pg = op->off / P;

	if (op->kind != OPK_DEDUPE || op->stage == WL_STAGE_NONE)
		return false;
	for (__u32 d = 0; d < op->ndest; d++)
		if (op->dest[d].file != op->file || op->dest[d].off / P != pg ||
		    (op->dest[d].off + op->len - 1) / P != pg)
			return false;
	return (op->off + op->len - 1) / P == pg;
}

__u64 wl_op__write_tag(__u64 seed, __u32 index)
{
	return ((__u64)(index + 1) << 23) ^ ((seed & 0x3f) << 44);
}

__u32 wl_op__stage(const struct wl_op *op, __u64 seed, __u32 index,
		   const struct wl_ops_geom *geo, struct wl_op *w)
{
	const __u64 P = draw_unit(geo), tag = wl_op__write_tag(seed, index);
	__u32 n = 0;

	if (op->kind != OPK_DEDUPE || op->stage == WL_STAGE_NONE)
		return 0;
	/* The source (d = 0), then each destination: decoys over its
	 * pages, then the source's bytes. */
	for (__u32 d = 0; d <= op->ndest; d++) {
		__u32 file = d ? op->dest[d - 1].file : op->file;
		__u64 off = d ? op->dest[d - 1].off : op->off;
		__u64 pg = off / P * P, end = round_up(off + op->len, P);
		bool seen = false;

		/* A page of the source's own (one page for all): its decoys
		 * are there, under the bytes written since. */
		for (__u32 k = 0; k < n; k++)
			seen |= w[k].file == file && w[k].off < end &&
				pg < w[k].off + w[k].len;
		if (!seen)
			w[n++] = (struct wl_op){ .kind = OPK_PWRITE,
						 .file = file,
						 .off = pg,
						 .len = end - pg,
						 .base = pg + tag +
							 STAGE_DECOY(file) };
		if (d && op->stage == WL_STAGE_DECOY)
			off = pg + op->off % P;
		w[n++] = (struct wl_op){ .kind = OPK_PWRITE,
					 .file = file,
					 .off = off,
					 .len = op->len,
					 .base = op->off + tag };
	}
	return n;
}

bool wl_op__store(const struct wl_op *op, __u64 seed, __u32 index,
		  const struct wl_ops_geom *geo, const __u64 *cmp_len,
		  struct wl_op *w, __u32 *dest, bool *by_mmap)
{
	const __u64 P = draw_unit(geo);
	__u32 cand[DD_MAX_DESTS], n = 0, d;
	__u64 off, len;
	struct rng g;

	if (op->kind != OPK_DEDUPE)
		return false;
	for (d = 0; d < op->ndest; d++)
		if (op->dest[d].file != op->file && cmp_len[d])
			cand[n++] = d;
	if (!n)
		return false;
	/* A stream of its own: the sequence's draws stay what they were. */
	rng__seed(&g, seed ^ 0x5f0e3a91c2d4b687ULL);
	rng__seed(&g, rng__next(&g) ^ ((__u64)index * 0x9fb21c651e98df25ULL));
	d = cand[rng__below(&g, n)];
	len = rng__range(&g, 1, wl__min(cmp_len[d], 2 * P));
	/* Half in the range's first unit, which the compare passes first:
	 * a store there that lands while the compare goes on is one the
	 * remap must keep out. */
	off = op->dest[d].off +
	      rng__below(&g, rng__pct(&g, 50) ? wl__min(P, cmp_len[d] - len + 1)
					      : cmp_len[d] - len + 1);
	*w = (struct wl_op){ .kind = OPK_PWRITE,
			     .file = op->dest[d].file,
			     .off = off,
			     .len = len,
			     .base = STORE_BASE + off +
				     wl_op__write_tag(seed, index) };
	*dest = d;
	/* Two in three through a mapping: a pwrite waits for the inode
	 * locks, which every remap takes; a store through a mapping only
	 * for the lock the remap must take for it. */
	*by_mmap = rng__pct(&g, 67);
	return true;
}
