// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The dedupe workload's layouts (dedupe_truth.h): a plan's filesystems,
 * files and cases, with each destination range written into the files'
 * contents as it is added; the default matrix and its large-folio
 * layouts, one layout from the options, and the seed's identical files.
 * No system calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "workload/dedupe_truth.h"

void dd_plan__init(struct dd_plan *p, __u32 page)
{
	memset(p, 0, sizeof(*p));
	p->page = page;
}

void dd_plan__free(struct dd_plan *p)
{
	free(p->files);
	free(p->cases);
	p->files = NULL;
	p->cases = NULL;
	p->nfiles = p->ncases = p->cap_files = p->cap_cases = 0;
}

int dd_plan__add_filesys(struct dd_plan *p, enum wl_fstype type, __u32 bs)
{
	struct dd_filesys *f;

	if (p->nfilesys >= DD_MAX_FILESYS)
		return -ENOSPC;
	f = &p->filesys[p->nfilesys];
	f->type = type;
	f->bs = bs;
	return p->nfilesys++;
}

/* Grow *arr (of *cap elements of size sz) to hold n + 1 elements. */
static int grow(void **arr, int *cap, int n, size_t sz)
{
	int ncap;
	void *na;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	na = realloc(*arr, (size_t)ncap * sz);
	if (!na)
		return -ENOMEM;
	*arr = na;
	*cap = ncap;
	return 0;
}

int dd_plan__add_file(struct dd_plan *p, int fsi, __u64 size, bool cold)
{
	struct dd_file *f;
	int err;

	err = grow((void **)&p->files, &p->cap_files, p->nfiles,
		   sizeof(*p->files));
	if (err)
		return err;
	f = &p->files[p->nfiles];
	memset(f, 0, sizeof(*f));
	f->size = size;
	f->filesys = fsi;
	f->cold = cold;
	/* A base of its own per file, so that whatever lies outside the
	 * copied ranges differs from the source: a compare that reads the
	 * wrong place finds different bytes there. */
	f->delta = (__u64)p->nfiles << 40;
	return p->nfiles++;
}

int dd_plan__add_case(struct dd_plan *p, const struct dd_case *c)
{
	int err;

	if (c->ndest < 1 || c->ndest > DD_MAX_DESTS || c->count < 1 ||
	    c->src < 0 || c->src >= p->nfiles)
		return -EINVAL;
	for (unsigned int d = 0; d < c->ndest; d++) {
		const struct dd_dest *dst = &c->dest[d];
		struct dd_file *f;
		struct dd_seg *s;

		if (dst->file < 0 || dst->file >= p->nfiles)
			return -EINVAL;
		f = &p->files[dst->file];
		/* Nothing to write where the copy holds what the file
		 * already has (the seed's identical files). */
		if (!f->nseg && dst->diff == DD_DIFF_NONE &&
		    c->src_off + p->files[c->src].delta - dst->off == f->delta)
			continue;
		if (f->nseg >= DD_MAX_SEGS)
			return -ENOSPC;
		s = &f->seg[f->nseg++];
		memset(s, 0, sizeof(*s));
		s->start = dst->off;
		s->len = c->len;
		s->count = c->count;
		/* Wraps for dst->off > src_off + delta: that is intended,
		 * the pattern is defined on all of __u64. */
		s->delta = c->src_off + p->files[c->src].delta - dst->off;
		s->flip = dst->diff != DD_DIFF_NONE;
		s->flip_pos = s->flip ? dd__flip_pos(p, c, d) : 0;
	}
	err = grow((void **)&p->cases, &p->cap_cases, p->ncases,
		   sizeof(*p->cases));
	if (err)
		return err;
	p->cases[p->ncases++] = *c;
	return 0;
}

/* A destination of a matrix case: its own file (with its size, 0 = off +
 * count * len + pad) or, with same, a range of the source file. */
struct dspec {
	bool same;
	__u64 off, size;
	enum dd_diff diff;
};

/* One case of the matrix: count ranges of len bytes from src_off in a
 * source file of src_size bytes (cold: dropped from the page cache),
 * compared with ndest destinations. */
struct mcase {
	const char *name;
	bool cold;
	__u64 src_off, len;
	__u32 count;
	__u64 src_size;
	unsigned int ndest;
	const struct dspec *dests;
};

#define DSPECS(...) ((const struct dspec[])__VA_ARGS__)

static int add(struct dd_plan *p, int fsi, const struct mcase *m)
{
	const struct dspec *ds = m->dests;
	struct dd_case c;
	int src, f;

	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "%s", m->name);
	src = dd_plan__add_file(p, fsi, m->src_size, m->cold);
	if (src < 0)
		return src;
	c.src = src;
	c.src_off = m->src_off;
	c.len = m->len;
	c.count = m->count;
	c.ndest = m->ndest;
	for (unsigned int d = 0; d < m->ndest; d++) {
		__u64 size = ds[d].size;

		if (!size)
			size = ds[d].off + (__u64)m->count * m->len + p->page;
		f = ds[d].same ? src : dd_plan__add_file(p, fsi, size, m->cold);
		if (f < 0)
			return f;
		c.dest[d].file = f;
		c.dest[d].off = ds[d].off;
		c.dest[d].diff = ds[d].diff;
	}
	return dd_plan__add_case(p, &c);
}

/*
 * Decoys for a compare that reads the destination at the wrong place:
 * the one a pointer gets when it takes the source's in-page offset for
 * the destination's (the first seed's word loop does). For every chunk
 * of case ci's first range as the kernel walks it (up to the next page
 * end of either file), the destination page's bytes at the source's
 * in-page offset become the source chunk's bytes. That compare then
 * finds everything equal and answers SAME, while the real destination
 * range differs: at its differing byte, and wherever a later chunk's
 * decoy lies inside it. Needs a source file of nothing but its pattern.
 */
static int add_decoys(struct dd_plan *p, int ci)
{
	const struct dd_case *c = &p->cases[ci];
	const struct dd_file *src = &p->files[c->src];
	struct dd_file *f = &p->files[c->dest[0].file];
	__u64 so = c->src_off, dof = c->dest[0].off, len = c->len;
	const __u64 P = p->page;

	while (len) {
		__u64 sp = so % P, dp = dof % P;
		__u64 n = wl__min(wl__min(P - sp, P - dp), len);
		struct dd_seg *sg;

		if (f->nseg >= DD_MAX_SEGS)
			return -ENOSPC;
		sg = &f->seg[f->nseg++];
		memset(sg, 0, sizeof(*sg));
		sg->start = dof - dp + sp;
		sg->len = n;
		sg->count = 1;
		sg->delta = so + src->delta - sg->start;
		so += n;
		dof += n;
		len -= n;
	}
	return 0;
}

/* Source size that leaves the range a page short of EOF. */
#define PADDED(off, len) ((off) + (len) + P)

/* A case of one range and one destination in a file of its own. */
struct dd_single {
	const char *name;
	__u64 src_off, dst_off, len;
	enum dd_diff diff;
};

static int add_single(struct dd_plan *p, int fsi, const struct dd_single *s)
{
	const __u64 P = p->page;
	struct dspec d = { .off = s->dst_off, .diff = s->diff };
	struct mcase m = { .name = s->name,
			   .src_off = s->src_off,
			   .len = s->len,
			   .count = 1,
			   .src_size = PADDED(s->src_off, s->len),
			   .ndest = 1,
			   .dests = &d };

	return add(p, fsi, &m);
}

/*
 * Decoy cases (add_decoys) where blocks below the page size let source
 * and destination sit at different in-page offsets: the differing byte
 * first, in the middle, in the last word; a destination range in the
 * second half of a page behind a source at its start; and four pages,
 * where each chunk's decoy lies in the next one's real range.
 */
static int add_decoy_cases(struct dd_plan *p, int fsi)
{
	const __u64 b = p->filesys[fsi].bs, P = p->page;
	const struct dd_single t[] = {
		{ "decoy-first", b, 2 * b, b, DD_DIFF_FIRST },
		{ "decoy-middle", b, 2 * b, b, DD_DIFF_MIDDLE },
		{ "decoy-last-word", b, 2 * b, b, DD_DIFF_LAST },
		{ "decoy-2nd-half", 0, P / 2, P / 2, DD_DIFF_MIDDLE },
		{ "decoy-pages", 0, P / 2, 4 * P, DD_DIFF_LAST },
	};
	int err = 0;

	for (size_t i = 0; !err && i < ARRAY_SIZE(t); i++) {
		err = add_single(p, fsi, &t[i]);
		if (!err)
			err = add_decoys(p, p->ncases - 1);
	}
	return err;
}

/*
 * The default matrix on one filesystem of block size b. With b below the
 * page size, "-poff" cases put source and destination at different
 * positions inside a page (b vs 2b), "-samepoff" at the same one; with
 * b = page size they differ in page index only. Kept to ~16 MiB per
 * filesystem (no file above 4 MiB + 2 pages) so that it runs in seconds
 * in a TCG guest with 2 GiB. The 1 GiB per-call cap is a custom layout
 * (docs/validation.md: --range 1G, or more to see the cap cut it).
 */
int dd_plan__matrix(struct dd_plan *p, int fsi)
{
	const __u64 b = p->filesys[fsi].bs, P = p->page;
	const __u64 tail_size = 48 * KiB + 1001, tail_off = 8 * KiB + b;
	const __u64 short_len = 16 * KiB + b / 2 + 3;
	int err = 0;

	/* The layouts read as a table; clang-format breaks "err ?:"
	 * chains apart. */
	/* clang-format off */
	/* Lengths: one block (sub-page when b < page), a page, many pages,
	 * a PMD folio (cold: read from disk page by page), two PMD folios
	 * from a block in. */
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "block", .src_off = b, .len = b, .count = 1,
		.src_size = PADDED(b, b), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * b } }) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "page", .src_off = 0, .len = P, .count = 1,
		.src_size = PADDED(0, P), .ndest = 1,
		.dests = DSPECS({ { .off = P } }) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "multi-poff", .src_off = b, .len = 64 * KiB,
		.count = 1, .src_size = PADDED(b, 64 * KiB), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * b } }) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "multi-samepoff", .src_off = b, .len = 64 * KiB,
		.count = 1, .src_size = PADDED(b, 64 * KiB), .ndest = 1,
		.dests = DSPECS({ { .off = b + 2 * P } }) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "folio", .cold = true, .src_off = 0, .len = 2 * MiB,
		.count = 1, .src_size = PADDED(0, 2 * MiB), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * MiB } }) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "large", .src_off = b, .len = 4 * MiB, .count = 1,
		.src_size = PADDED(b, 4 * MiB), .ndest = 1,
		.dests = DSPECS({ { .off = 0 } }) });
	/* Tails that end at EOF of both files (same size): the length is
	 * not a block multiple; and a file smaller than a block. */
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "tail", .src_off = tail_off,
		.len = tail_size - tail_off, .count = 1,
		.src_size = tail_size, .ndest = 1,
		.dests = DSPECS({ { .off = tail_off, .size = tail_size } }) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "tail-last", .cold = true, .src_off = tail_off,
		.len = tail_size - tail_off, .count = 1,
		.src_size = tail_size, .ndest = 1,
		.dests = DSPECS({
			{ .off = tail_off, .size = tail_size, .diff = DD_DIFF_LAST },
		}) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "tiny", .src_off = 0, .len = 1000, .count = 1,
		.src_size = 1000, .ndest = 1,
		.dests = DSPECS({ { .off = 0, .size = 1000 } }) });
	/* One source, many destinations: every differing position, at
	 * in-page positions b, 2b, ..., and a range of the source file. */
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "dests", .src_off = b, .len = 16 * KiB, .count = 1,
		.src_size = PADDED(b + 16 * KiB + b, 16 * KiB), .ndest = 7,
		.dests = DSPECS({
			{ .off = b },
			{ .off = 2 * b, .diff = DD_DIFF_FIRST },
			{ .off = 3 * b, .diff = DD_DIFF_MIDDLE },
			{ .off = 4 * b, .diff = DD_DIFF_WORD_END },
			{ .off = 5 * b, .diff = DD_DIFF_WORD_START },
			{ .off = 6 * b, .diff = DD_DIFF_LAST },
			{ .same = true, .off = b + 16 * KiB + b },
		}) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "dests-samepoff", .cold = true, .src_off = 2 * b,
		.len = 3 * P, .count = 1, .src_size = PADDED(2 * b, 3 * P),
		.ndest = 6,
		.dests = DSPECS({
			{ .off = 2 * b, .diff = DD_DIFF_WORD_START },
			{ .off = 2 * b + P },
			{ .off = 2 * b + 2 * P, .diff = DD_DIFF_LAST },
			{ .off = 2 * b, .diff = DD_DIFF_FIRST },
			{ .off = 2 * b + P },
			{ .off = 2 * b + 3 * P, .diff = DD_DIFF_MIDDLE },
		}) });
	/* Source and destination in the same file. */
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "same-file", .src_off = 0, .len = 64 * KiB,
		.count = 1, .src_size = PADDED(64 * KiB + 2 * b, 64 * KiB),
		.ndest = 1,
		.dests = DSPECS({ { .same = true, .off = 64 * KiB + 2 * b } }) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "same-file-differs", .cold = true, .src_off = b,
		.len = 64 * KiB, .count = 1,
		.src_size = PADDED(64 * KiB + 3 * b, 64 * KiB), .ndest = 1,
		.dests = DSPECS({
			{ .same = true, .off = 64 * KiB + 3 * b, .diff = DD_DIFF_WORD_END },
		}) });
	/* Both sides in one page of one file (blocks under a page): the
	 * compare gets one folio for the source and the destination;
	 * then several destinations in the source's page. */
	if (b < P) {
		err = err ?: add(p, fsi, &(struct mcase){
			.name = "same-page", .src_off = 0, .len = b,
			.count = 1, .src_size = PADDED(0, P), .ndest = 1,
			.dests = DSPECS({ { .same = true, .off = P - b } }) });
		err = err ?: add(p, fsi, &(struct mcase){
			.name = "same-page-differs", .cold = true,
			.src_off = P - b, .len = b, .count = 1,
			.src_size = PADDED(0, P), .ndest = 1,
			.dests = DSPECS({
				{ .same = true, .off = 0, .diff = DD_DIFF_MIDDLE },
			}) });
		err = err ?: add(p, fsi, &(struct mcase){
			.name = "dests-one-page", .src_off = 0, .len = b,
			.count = 1, .src_size = PADDED(0, P),
			.ndest = 4 * b <= P ? 3 : 1,
			.dests = DSPECS({
				{ .same = true, .off = P - b },
				{ .same = true, .off = b, .diff = DD_DIFF_LAST },
				{ .same = true, .off = 2 * b },
			}) });
	}
	/* Not a block multiple and not at EOF: the kernel compares whole
	 * blocks only, so a byte past them does not count. */
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "shortened", .src_off = b, .len = short_len,
		.count = 1, .src_size = PADDED(b, short_len), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * b, .diff = DD_DIFF_PAST } }) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "shortened-last", .src_off = b, .len = short_len,
		.count = 1, .src_size = PADDED(b, short_len), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * b, .diff = DD_DIFF_LAST } }) });
	/* Consecutive ranges, one ioctl each. */
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "ranges", .src_off = 0, .len = 4 * b, .count = 8,
		.src_size = PADDED(0, 32 * b), .ndest = 1,
		.dests = DSPECS({ { .off = 8 * b } }) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "ranges-differs", .cold = true, .src_off = b,
		.len = 16 * KiB, .count = 4, .src_size = PADDED(b, 64 * KiB),
		.ndest = 1,
		.dests = DSPECS({ { .off = 3 * b, .diff = DD_DIFF_MIDDLE } }) });
	/* Errors: an offset inside a block, a destination range past its
	 * EOF, overlapping ranges of one file (per destination), and a
	 * source range past EOF (the whole ioctl). */
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "unaligned", .src_off = b + b / 2, .len = 4 * b,
		.count = 1, .src_size = PADDED(b, 8 * b), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * b } }) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "dst-past-eof", .src_off = 0, .len = 8 * b,
		.count = 1, .src_size = PADDED(0, 8 * b), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * b, .size = 9 * b } }) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "overlap", .src_off = 0, .len = 8 * b, .count = 1,
		.src_size = PADDED(0, 16 * b), .ndest = 1,
		.dests = DSPECS({ { .same = true, .off = 4 * b } }) });
	err = err ?: add(p, fsi, &(struct mcase){
		.name = "src-past-eof", .src_off = 0, .len = 5 * b,
		.count = 1, .src_size = 4 * b, .ndest = 1,
		.dests = DSPECS({ { .off = 0 } }) });
	/* clang-format on */
	if (!err && b < P)
		err = add_decoy_cases(p, fsi);
	return err;
}

/* How a file of a large-folio layout gets into the page cache. */
enum lf_how {
	LF_BIG,	  /* written in WL_CHUNK writes, kept cached */
	LF_RA,	  /* dropped, read back through readahead */
	LF_SMALL, /* written a page at a time, kept cached */
};

static void lf_apply(struct dd_file *f, enum lf_how how)
{
	f->readahead = how == LF_RA;
	f->small_writes = how == LF_SMALL;
}

/*
 * A folio is naturally aligned, so an offset a few pages past a 64 KiB
 * boundary starts inside a large folio's later pages wherever the page
 * cache holds 64 KiB or larger ones there. With blocks below the page
 * size the two sides also sit at different in-page offsets.
 */
int dd_plan__large_folios(struct dd_plan *p, int fsi)
{
	const __u64 b = p->filesys[fsi].bs, P = p->page;
	const struct {
		struct dd_single one;
		enum lf_how src, dst;
	} t[] = {
		{ { "lf-ra", 0, 0, 512 * KiB, DD_DIFF_NONE }, LF_RA, LF_RA },
		{ { "lf-ra-late", 64 * KiB + 3 * P + b,
		    128 * KiB + 5 * P + 2 * b, 256 * KiB, DD_DIFF_LAST },
		  LF_RA,
		  LF_RA },
		{ { "lf-ra-vs-small", 32 * KiB + P + b, 2 * b, 192 * KiB,
		    DD_DIFF_NONE },
		  LF_RA,
		  LF_SMALL },
		{ { "lf-big-vs-ra", 128 * KiB - 2 * P, 64 * KiB + P + b,
		    256 * KiB, DD_DIFF_WORD_END },
		  LF_BIG,
		  LF_RA },
	};
	int err = 0;

	for (size_t i = 0; !err && i < ARRAY_SIZE(t); i++) {
		const struct dd_case *c;

		err = add_single(p, fsi, &t[i].one);
		if (err)
			break;
		c = &p->cases[p->ncases - 1];
		lf_apply(&p->files[c->src], t[i].src);
		lf_apply(&p->files[c->dest[0].file], t[i].dst);
	}
	/* Source and destination in one large folio of one file: both in
	 * [64 KiB, 128 KiB), a folio of its own wherever readahead made
	 * 64 KiB or larger ones there. */
	err = err
		      ?: add(p, fsi,
			     &(struct mcase){
				     .name = "lf-same-folio",
				     .src_off = 64 * KiB + b,
				     .len = 8 * KiB,
				     .count = 1,
				     .src_size = 256 * KiB,
				     .ndest = 1,
				     .dests = DSPECS({
					     { .same = true,
					       .off = 96 * KiB + 2 * b,
					       .diff = DD_DIFF_WORD_START },
				     }) });
	if (!err)
		lf_apply(&p->files[p->cases[p->ncases - 1].src], LF_RA);
	return err;
}

int dd_plan__custom(struct dd_plan *p, int fsi, const struct wl_opts *o)
{
	__u64 span = (__u64)o->count * o->range, dst_off, size;
	unsigned int ndest = o->dests ? o->dests : 1;
	enum dd_diff diff = o->differ;
	struct dd_case c;
	int src, f;

	if (diff >= DD_DIFF_NR || ndest > DD_MAX_DESTS)
		return -EINVAL;
	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "custom");
	c.src_off = o->src_off;
	c.len = o->range;
	c.count = o->count;
	c.ndest = ndest;
	if (o->same_file) {
		/* Right after the source ranges unless told otherwise. */
		dst_off = o->dst_off_set ? o->dst_off : o->src_off + span;
		size = o->file_size ? o->file_size
				    : wl__max(o->src_off + span,
					      dst_off + ndest * span);
		src = dd_plan__add_file(p, fsi, size, o->cold);
		if (src < 0)
			return src;
		for (unsigned int d = 0; d < ndest; d++) {
			c.dest[d].file = src;
			c.dest[d].off = dst_off + d * span;
			c.dest[d].diff = diff;
		}
	} else {
		dst_off = o->dst_off_set ? o->dst_off : o->src_off;
		size = o->file_size ? o->file_size : o->src_off + span;
		src = dd_plan__add_file(p, fsi, size, o->cold);
		if (src < 0)
			return src;
		size = o->file_size ? o->file_size : dst_off + span;
		for (unsigned int d = 0; d < ndest; d++) {
			f = dd_plan__add_file(p, fsi, size, o->cold);
			if (f < 0)
				return f;
			c.dest[d].file = f;
			c.dest[d].off = dst_off;
			c.dest[d].diff = diff;
		}
	}
	c.src = src;
	return dd_plan__add_case(p, &c);
}

int dd_plan__seed(struct dd_plan *p, int fsi, const struct wl_opts *o)
{
	__u64 size = o->file_size ? o->file_size : 4 * MiB;
	__u64 range = o->range ? o->range : wl__min(size, DD_CAP);
	unsigned int per = o->dests ? o->dests : 1;
	__u32 full = size / range;
	__u64 tail = size % range;
	int first = -1, err, g = 0;
	struct dd_case c;

	if (o->files < 2 || per > DD_MAX_DESTS)
		return -EINVAL;
	for (unsigned int i = 0; i < o->files; i++) {
		err = dd_plan__add_file(p, fsi, size, o->cold);
		if (err < 0)
			return err;
		if (!i)
			first = err;
		/* Fully duplicated data: every file is the same pattern. */
		p->files[err].delta = 0;
	}
	/* File 0 is the source of every destination, as a dedupe tool
	 * that found them all identical would do. */
	for (unsigned int i = 1; i < o->files; i += per, g++) {
		memset(&c, 0, sizeof(c));
		c.src = first;
		c.ndest = wl__min(per, o->files - i);
		for (unsigned int d = 0; d < c.ndest; d++)
			c.dest[d].file = first + i + d;
		if (full) {
			snprintf(c.name, sizeof(c.name), "seed-%d", g);
			c.len = range;
			c.count = full;
			err = dd_plan__add_case(p, &c);
			if (err)
				return err;
		}
		if (tail) {
			/* The rest, ending at EOF of both files. */
			snprintf(c.name, sizeof(c.name), "seed-tail-%d", g);
			c.src_off = (__u64)full * range;
			for (unsigned int d = 0; d < c.ndest; d++)
				c.dest[d].off = c.src_off;
			c.len = tail;
			c.count = 1;
			err = dd_plan__add_case(p, &c);
			if (err)
				return err;
		}
	}
	return 0;
}
