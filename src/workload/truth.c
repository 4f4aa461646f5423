// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ground truth of the workloads, with no system calls so that unit tests
 * can pin it down: the test pattern, what every test file holds, what the
 * kernel must answer for each dedupe range and read, the default matrices
 * and the layout strings a failed check is reported with.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>

#include "workload/workload_internal.h"
#include "util/util.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024)

static __u64 min_u64(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

static __u64 max_u64(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

/* ---- the pattern ---- */

static inline __u64 pattern_word(__u64 word)
{
	__u64 v = (word + 1) * 0x9e3779b97f4a7c15ULL;

	return v ^ (v >> 32);
}

void wl__pattern_fill(void *buf, __u64 off, size_t len)
{
	unsigned char *p = buf;
	size_t i = 0;

	/* Byte by byte up to a word boundary of the file offset, then whole
	 * words: little-endian, so byte k of a word is bits 8k..8k+7, as in
	 * wl__pattern_byte. */
	for (; i < len && ((off + i) & 7); i++)
		p[i] = wl__pattern_byte(off + i);
	for (; i + 8 <= len; i += 8) {
		__u64 v = htole64(pattern_word((off + i) >> 3));

		memcpy(p + i, &v, 8);
	}
	for (; i < len; i++)
		p[i] = wl__pattern_byte(off + i);
}

void wl__poison_fill(void *buf, __u64 seed, size_t len)
{
	unsigned char *p = buf;
	size_t i = 0;
	__u64 v;

	/* The test pattern at an offset no file reaches, every byte with
	 * its low bit set: whole words after the word-aligned start. */
	wl__pattern_fill(buf, seed, len);
	for (; i < len && ((seed + i) & 7); i++)
		p[i] |= 1;
	for (; i + 8 <= len; i += 8) {
		memcpy(&v, p + i, 8);
		v |= 0x0101010101010101ULL;
		memcpy(p + i, &v, 8);
	}
	for (; i < len; i++)
		p[i] |= 1;
}

size_t wl__poison_diff(const void *buf, __u64 seed, size_t len)
{
	const unsigned char *p = buf;
	unsigned char want[4096];

	for (size_t done = 0; done < len;) {
		size_t n =
			len - done < sizeof(want) ? len - done : sizeof(want);
		size_t x;

		wl__poison_fill(want, seed + done, n);
		x = wl__first_diff(p + done, want, n);
		if (x < n)
			return done + x;
		done += n;
	}
	return len;
}

size_t wl__pattern_check(const void *buf, __u64 off, size_t len)
{
	const unsigned char *p = buf;
	size_t bad = 0;

	for (size_t i = 0; i < len; i++)
		bad += p[i] != wl__pattern_byte(off + i);
	return bad;
}

size_t wl__first_diff(const void *a, const void *b, size_t len)
{
	const unsigned char *x = a, *y = b;
	size_t i = 0;

	/* memcmp first: mismatches are rare, and it is fast. */
	if (!memcmp(a, b, len))
		return len;
	while (i < len && x[i] == y[i])
		i++;
	return i;
}

/* ---- dedupe: file contents ---- */

static const char *const diff_names[DD_DIFF_NR] = {
	[DD_DIFF_NONE] = "none",
	[DD_DIFF_FIRST] = "first",
	[DD_DIFF_MIDDLE] = "middle",
	[DD_DIFF_WORD_END] = "word-end",
	[DD_DIFF_WORD_START] = "word-start",
	[DD_DIFF_LAST] = "last",
	[DD_DIFF_PAST] = "past",
};

const char *dd_diff__name(enum dd_diff d)
{
	return d < DD_DIFF_NR ? diff_names[d] : "?";
}

int dd_diff__parse(const char *name)
{
	for (int d = 0; d < DD_DIFF_NR; d++)
		if (!strcmp(name, diff_names[d]))
			return d;
	return -1;
}

/*
 * The word boundary sits a quarter into the range plus 5 words, so that
 * it is neither the middle nor, for page-sized ranges, a page boundary.
 * Ranges too short for that use their last word boundary.
 */
static __u64 word_boundary(__u64 cmp)
{
	__u64 w = (cmp / 4) / 8 * 8 + 40;

	if (w < cmp)
		return w;
	return cmp > 8 ? (cmp - 1) / 8 * 8 : 0;
}

__u64 dd_diff__pos(enum dd_diff d, __u64 cmp)
{
	__u64 w = word_boundary(cmp);

	if (!cmp)
		return 0;
	switch (d) {
	case DD_DIFF_MIDDLE:
		return min_u64(cmp / 2 + 3, cmp - 1);
	case DD_DIFF_WORD_END:
		return w ? w - 1 : cmp - 1;
	case DD_DIFF_WORD_START:
		return w ? w : cmp - 1;
	case DD_DIFF_LAST:
		return cmp - 1;
	case DD_DIFF_PAST:
		return cmp;
	default:
		return 0;
	}
}

/* Invert the flipped bytes of seg s that fall in [off, off + len). */
static void seg_flips(const struct dd_seg *s, __u64 off, unsigned char *buf,
		      size_t len)
{
	__u64 first = s->start + s->flip_pos, k = 0;

	/* Only inside its own piece: a "past" byte of an unshortened range
	 * would otherwise land in the next range. */
	if (!s->flip || s->flip_pos >= s->len)
		return;
	if (off > first)
		k = (off - first + s->len - 1) / s->len;
	for (; k < s->count; k++) {
		__u64 pos = first + k * s->len;

		if (pos >= off + len)
			break;
		buf[pos - off] ^= 0xff;
	}
}

void dd_file__fill(const struct dd_file *f, __u64 off, void *buf, size_t len)
{
	unsigned char *p = buf;

	wl__pattern_fill(p, off + f->delta, len);
	/* Later segments win, as they were written later. */
	for (int i = 0; i < f->nseg; i++) {
		const struct dd_seg *s = &f->seg[i];
		__u64 end = s->start + s->len * s->count;
		__u64 a = max_u64(off, s->start), b = min_u64(off + len, end);

		if (a >= b)
			continue;
		wl__pattern_fill(p + (a - off), a + s->delta, b - a);
		seg_flips(s, a, p + (a - off), b - a);
	}
}

bool dd_file__equal(const struct dd_file *a, __u64 aoff,
		    const struct dd_file *b, __u64 boff, __u64 len)
{
	unsigned char x[16384], y[16384];

	while (len) {
		size_t n = min_u64(len, sizeof(x));

		dd_file__fill(a, aoff, x, n);
		dd_file__fill(b, boff, y, n);
		if (memcmp(x, y, n))
			return false;
		aoff += n;
		boff += n;
		len -= n;
	}
	return true;
}

/* ---- dedupe: plans ---- */

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

int dd_plan__add_fs(struct dd_plan *p, const char *fs, __u32 bs)
{
	struct dd_fsinfo *f;

	if (p->nfs >= DD_MAX_FS)
		return -ENOSPC;
	f = &p->fs[p->nfs];
	snprintf(f->fs, sizeof(f->fs), "%s", fs);
	f->bs = bs;
	return p->nfs++;
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

int dd_plan__add_file(struct dd_plan *p, int fs, __u64 size, bool cold)
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
	f->fs = fs;
	f->cold = cold;
	/* A base of its own per file, so that whatever lies outside the
	 * copied ranges differs from the source: a compare that reads the
	 * wrong place finds different bytes there. */
	f->delta = (__u64)p->nfiles << 40;
	return p->nfiles++;
}

void dd__geometry(const struct dd_req *q, struct dd_expect *e)
{
	__u64 so = q->src_off, doff = q->dst_off, len = q->len, bs = q->bs;
	__u64 bcount;

	memset(e, 0, sizeof(*e));
	e->status = FILE_DEDUPE_RANGE_SAME;
	/* vfs_dedupe_file_range: the whole request fails when the source
	 * range, before the cap, does not lie inside the source file. */
	if (so + len < so || so + len > q->src_size) {
		e->ioctl_err = -EINVAL;
		return;
	}
	len = min_u64(len, DD_CAP);
	/* vfs_dedupe_file_range_one: nothing to do, no remap call. */
	if (!len)
		return;
	e->reaches_prep = true;
	/* generic_remap_checks, in its order. */
	if (so % bs || doff % bs || doff + len < doff) {
		e->status = -EINVAL;
		return;
	}
	if (so >= q->src_size || doff >= q->dst_size ||
	    doff + len > q->dst_size) {
		e->status = -EINVAL;
		return;
	}
	/* Ending at EOF of both files, the tail block may be partial;
	 * otherwise the length is rounded down to whole blocks
	 * (REMAP_FILE_CAN_SHORTEN). */
	if (so + len == q->src_size && doff + len == q->dst_size) {
		e->cmp_len = len;
		bcount = (q->src_size + bs - 1) / bs * bs - so;
	} else {
		e->cmp_len = len / bs * bs;
		bcount = e->cmp_len;
	}
	if (q->same_file && doff + bcount > so && doff < so + bcount) {
		e->cmp_len = 0;
		e->status = -EINVAL;
		return;
	}
	/* The ioctl reports the request's (capped) length as deduped, even
	 * when the remap shortened it to whole blocks. */
	e->bytes_deduped = len;
}

/* Everything of dd__expect but the compare of the contents. */
static void geometry(const struct dd_plan *p, const struct dd_case *c, __u32 k,
		     unsigned int d, struct dd_expect *e)
{
	const struct dd_file *sf = &p->files[c->src];
	struct dd_req q = {
		.bs = p->fs[sf->fs].bs,
		.src_size = sf->size,
		.dst_size = p->files[c->dest[d].file].size,
		.src_off = c->src_off + (__u64)k * c->len,
		.dst_off = c->dest[d].off + (__u64)k * c->len,
		.len = c->len,
		.same_file = c->dest[d].file == c->src,
	};

	dd__geometry(&q, e);
}

bool dd__answer_ok(const struct dd_expect *e, const struct dd_result *g)
{
	if (e->ioctl_err || g->ioctl_err)
		return e->ioctl_err == g->ioctl_err;
	return e->status == g->status && e->bytes_deduped == g->bytes;
}

void dd__count(struct wl_totals *t, __u64 req_len, const struct dd_expect *e,
	       const struct dd_result *g)
{
	/* The syscall-level probe counts every destination of every ioctl,
	 * with the byte count the ioctl reports (the request's length for
	 * DIFFERS). */
	struct wl_count *sys = &t->sys, *func = &t->func, *one = &t->one,
			*cmp = &t->cmp;
	bool same = !g->ioctl_err && g->status == FILE_DEDUPE_RANGE_SAME;
	bool differs = !g->ioctl_err && g->status == FILE_DEDUPE_RANGE_DIFFERS;

	sys->calls++;
	if (same) {
		sys->same++;
		sys->bytes += g->bytes;
	} else if (differs) {
		sys->differs++;
		sys->bytes += req_len;
	} else {
		sys->errors++;
	}
	/* The function-level probe sees the remap prep, which runs unless
	 * the whole ioctl failed, with the length it compared: a SAME that
	 * compared nothing (length 0) is neither SAME nor DIFFERS there,
	 * and an error it returns is one. */
	if (!g->ioctl_err && e->reaches_prep) {
		func->calls++;
		if (same && e->cmp_len)
			func->same++;
		else if (differs)
			func->differs++;
		else if (!same)
			func->errors++;
	}
	if (same || differs)
		func->bytes += e->cmp_len;
	/* The compare itself runs when the prep's checks pass and leave
	 * something to compare: every SAME or DIFFERS answer with a
	 * compared length. */
	if (!g->ioctl_err && e->reaches_prep && e->cmp_len &&
	    (same || differs)) {
		cmp->calls++;
		cmp->bytes += e->cmp_len;
		cmp->same += same;
		cmp->differs += differs;
	}
	/* vfs_dedupe_file_range_one runs for every destination of an
	 * ioctl that did not fail as a whole; it returns the compared
	 * length when SAME (0, counted as neither, when it compared
	 * nothing) and only -EBADE when DIFFERS, where the request's
	 * (capped) length is counted. */
	if (g->ioctl_err)
		return;
	one->calls++;
	if (same) {
		one->bytes += e->cmp_len;
		one->same += e->cmp_len > 0;
	} else if (differs) {
		one->differs++;
		one->bytes += req_len < DD_CAP ? req_len : DD_CAP;
	} else {
		one->errors++;
	}
}

void dd__expect(const struct dd_plan *p, const struct dd_case *c, __u32 k,
		unsigned int d, struct dd_expect *e)
{
	const struct dd_dest *dst = &c->dest[d];

	geometry(p, c, k, d, e);
	if (e->ioctl_err || e->status != FILE_DEDUPE_RANGE_SAME || !e->cmp_len)
		return;
	if (dd_file__equal(&p->files[c->src], c->src_off + (__u64)k * c->len,
			   &p->files[dst->file], dst->off + (__u64)k * c->len,
			   e->cmp_len))
		return;
	e->status = FILE_DEDUPE_RANGE_DIFFERS;
	e->bytes_deduped = 0;
}

/* Where dest d's differing byte goes, relative to its range. */
static __u64 flip_pos(const struct dd_plan *p, const struct dd_case *c,
		      unsigned int d)
{
	struct dd_expect e;

	geometry(p, c, 0, d, &e);
	return dd_diff__pos(c->dest[d].diff,
			    e.cmp_len ? e.cmp_len : min_u64(c->len, DD_CAP));
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
		s->flip_pos = s->flip ? flip_pos(p, c, d) : 0;
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

static int add(struct dd_plan *p, int fs, const struct mcase *m)
{
	const struct dspec *ds = m->dests;
	struct dd_case c;
	int src, f;

	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "%s", m->name);
	src = dd_plan__add_file(p, fs, m->src_size, m->cold);
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
		f = ds[d].same ? src : dd_plan__add_file(p, fs, size, m->cold);
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
		__u64 n = min_u64(min_u64(P - sp, P - dp), len);
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

static int add_single(struct dd_plan *p, int fs, const struct dd_single *s)
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

	return add(p, fs, &m);
}

/*
 * Decoy cases (add_decoys) where blocks below the page size let source
 * and destination sit at different in-page offsets: the differing byte
 * first, in the middle, in the last word; a destination range in the
 * second half of a page behind a source at its start; and four pages,
 * where each chunk's decoy lies in the next one's real range.
 */
static int add_decoy_cases(struct dd_plan *p, int fs)
{
	const __u64 b = p->fs[fs].bs, P = p->page;
	const struct dd_single t[] = {
		{ "decoy-first", b, 2 * b, b, DD_DIFF_FIRST },
		{ "decoy-middle", b, 2 * b, b, DD_DIFF_MIDDLE },
		{ "decoy-last-word", b, 2 * b, b, DD_DIFF_LAST },
		{ "decoy-2nd-half", 0, P / 2, P / 2, DD_DIFF_MIDDLE },
		{ "decoy-pages", 0, P / 2, 4 * P, DD_DIFF_LAST },
	};
	int err = 0;

	for (size_t i = 0; !err && i < ARRAY_SIZE(t); i++) {
		err = add_single(p, fs, &t[i]);
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
int dd_plan__matrix(struct dd_plan *p, int fs)
{
	const __u64 b = p->fs[fs].bs, P = p->page;
	const __u64 tail_size = 48 * KiB + 1001, tail_off = 8 * KiB + b;
	const __u64 short_len = 16 * KiB + b / 2 + 3;
	int err = 0;

	/* The layouts read as a table; clang-format breaks "err ?:"
	 * chains apart. */
	/* clang-format off */
	/* Lengths: one block (sub-page when b < page), a page, many pages,
	 * a PMD folio (cold: read from disk page by page), two PMD folios
	 * from a block in. */
	err = err ?: add(p, fs, &(struct mcase){
		.name = "block", .src_off = b, .len = b, .count = 1,
		.src_size = PADDED(b, b), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * b } }) });
	err = err ?: add(p, fs, &(struct mcase){
		.name = "page", .src_off = 0, .len = P, .count = 1,
		.src_size = PADDED(0, P), .ndest = 1,
		.dests = DSPECS({ { .off = P } }) });
	err = err ?: add(p, fs, &(struct mcase){
		.name = "multi-poff", .src_off = b, .len = 64 * KiB,
		.count = 1, .src_size = PADDED(b, 64 * KiB), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * b } }) });
	err = err ?: add(p, fs, &(struct mcase){
		.name = "multi-samepoff", .src_off = b, .len = 64 * KiB,
		.count = 1, .src_size = PADDED(b, 64 * KiB), .ndest = 1,
		.dests = DSPECS({ { .off = b + 2 * P } }) });
	err = err ?: add(p, fs, &(struct mcase){
		.name = "folio", .cold = true, .src_off = 0, .len = 2 * MiB,
		.count = 1, .src_size = PADDED(0, 2 * MiB), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * MiB } }) });
	err = err ?: add(p, fs, &(struct mcase){
		.name = "large", .src_off = b, .len = 4 * MiB, .count = 1,
		.src_size = PADDED(b, 4 * MiB), .ndest = 1,
		.dests = DSPECS({ { .off = 0 } }) });
	/* Tails that end at EOF of both files (same size): the length is
	 * not a block multiple; and a file smaller than a block. */
	err = err ?: add(p, fs, &(struct mcase){
		.name = "tail", .src_off = tail_off,
		.len = tail_size - tail_off, .count = 1,
		.src_size = tail_size, .ndest = 1,
		.dests = DSPECS({ { .off = tail_off, .size = tail_size } }) });
	err = err ?: add(p, fs, &(struct mcase){
		.name = "tail-last", .cold = true, .src_off = tail_off,
		.len = tail_size - tail_off, .count = 1,
		.src_size = tail_size, .ndest = 1,
		.dests = DSPECS({
			{ .off = tail_off, .size = tail_size, .diff = DD_DIFF_LAST },
		}) });
	err = err ?: add(p, fs, &(struct mcase){
		.name = "tiny", .src_off = 0, .len = 1000, .count = 1,
		.src_size = 1000, .ndest = 1,
		.dests = DSPECS({ { .off = 0, .size = 1000 } }) });
	/* One source, many destinations: every differing position, at
	 * in-page positions b, 2b, ..., and a range of the source file. */
	err = err ?: add(p, fs, &(struct mcase){
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
	err = err ?: add(p, fs, &(struct mcase){
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
	err = err ?: add(p, fs, &(struct mcase){
		.name = "same-file", .src_off = 0, .len = 64 * KiB,
		.count = 1, .src_size = PADDED(64 * KiB + 2 * b, 64 * KiB),
		.ndest = 1,
		.dests = DSPECS({ { .same = true, .off = 64 * KiB + 2 * b } }) });
	err = err ?: add(p, fs, &(struct mcase){
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
		err = err ?: add(p, fs, &(struct mcase){
			.name = "same-page", .src_off = 0, .len = b,
			.count = 1, .src_size = PADDED(0, P), .ndest = 1,
			.dests = DSPECS({ { .same = true, .off = P - b } }) });
		err = err ?: add(p, fs, &(struct mcase){
			.name = "same-page-differs", .cold = true,
			.src_off = P - b, .len = b, .count = 1,
			.src_size = PADDED(0, P), .ndest = 1,
			.dests = DSPECS({
				{ .same = true, .off = 0, .diff = DD_DIFF_MIDDLE },
			}) });
		err = err ?: add(p, fs, &(struct mcase){
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
	err = err ?: add(p, fs, &(struct mcase){
		.name = "shortened", .src_off = b, .len = short_len,
		.count = 1, .src_size = PADDED(b, short_len), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * b, .diff = DD_DIFF_PAST } }) });
	err = err ?: add(p, fs, &(struct mcase){
		.name = "shortened-last", .src_off = b, .len = short_len,
		.count = 1, .src_size = PADDED(b, short_len), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * b, .diff = DD_DIFF_LAST } }) });
	/* Consecutive ranges, one ioctl each. */
	err = err ?: add(p, fs, &(struct mcase){
		.name = "ranges", .src_off = 0, .len = 4 * b, .count = 8,
		.src_size = PADDED(0, 32 * b), .ndest = 1,
		.dests = DSPECS({ { .off = 8 * b } }) });
	err = err ?: add(p, fs, &(struct mcase){
		.name = "ranges-differs", .cold = true, .src_off = b,
		.len = 16 * KiB, .count = 4, .src_size = PADDED(b, 64 * KiB),
		.ndest = 1,
		.dests = DSPECS({ { .off = 3 * b, .diff = DD_DIFF_MIDDLE } }) });
	/* Errors: an offset inside a block, a destination range past its
	 * EOF, overlapping ranges of one file (per destination), and a
	 * source range past EOF (the whole ioctl). */
	err = err ?: add(p, fs, &(struct mcase){
		.name = "unaligned", .src_off = b + b / 2, .len = 4 * b,
		.count = 1, .src_size = PADDED(b, 8 * b), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * b } }) });
	err = err ?: add(p, fs, &(struct mcase){
		.name = "dst-past-eof", .src_off = 0, .len = 8 * b,
		.count = 1, .src_size = PADDED(0, 8 * b), .ndest = 1,
		.dests = DSPECS({ { .off = 2 * b, .size = 9 * b } }) });
	err = err ?: add(p, fs, &(struct mcase){
		.name = "overlap", .src_off = 0, .len = 8 * b, .count = 1,
		.src_size = PADDED(0, 16 * b), .ndest = 1,
		.dests = DSPECS({ { .same = true, .off = 4 * b } }) });
	err = err ?: add(p, fs, &(struct mcase){
		.name = "src-past-eof", .src_off = 0, .len = 5 * b,
		.count = 1, .src_size = 4 * b, .ndest = 1,
		.dests = DSPECS({ { .off = 0 } }) });
	/* clang-format on */
	if (!err && b < P)
		err = add_decoy_cases(p, fs);
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
int dd_plan__large_folios(struct dd_plan *p, int fs)
{
	const __u64 b = p->fs[fs].bs, P = p->page;
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

		err = add_single(p, fs, &t[i].one);
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
		      ?: add(p, fs,
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

int dd_plan__custom(struct dd_plan *p, int fs, const struct wl_opts *o)
{
	__u64 span = (__u64)o->count * o->range, dst_off, size;
	unsigned int ndest = o->dests ? o->dests : 1;
	int diff = o->differ ? dd_diff__parse(o->differ) : DD_DIFF_NONE;
	struct dd_case c;
	int src, f;

	if (diff < 0 || ndest > DD_MAX_DESTS)
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
				    : max_u64(o->src_off + span,
					      dst_off + ndest * span);
		src = dd_plan__add_file(p, fs, size, o->cold);
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
		src = dd_plan__add_file(p, fs, size, o->cold);
		if (src < 0)
			return src;
		size = o->file_size ? o->file_size : dst_off + span;
		for (unsigned int d = 0; d < ndest; d++) {
			f = dd_plan__add_file(p, fs, size, o->cold);
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

int dd_plan__seed(struct dd_plan *p, int fs, const struct wl_opts *o)
{
	__u64 size = o->file_size ? o->file_size : 4 * MiB;
	__u64 range = o->range ? o->range : min_u64(size, DD_CAP);
	unsigned int per = o->dests ? o->dests : 1;
	__u32 full = size / range;
	__u64 tail = size % range;
	int first = -1, err, g = 0;
	struct dd_case c;

	if (o->files < 2 || per > DD_MAX_DESTS)
		return -EINVAL;
	for (unsigned int i = 0; i < o->files; i++) {
		err = dd_plan__add_file(p, fs, size, o->cold);
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
		c.ndest = min_u64(per, o->files - i);
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

void dd__layout(const struct dd_plan *p, const struct dd_case *c, __u32 k,
		unsigned int d, char *buf, size_t n)
{
	const struct dd_file *sf = &p->files[c->src];
	const struct dd_dest *dst = &c->dest[d];
	const struct dd_file *df = &p->files[dst->file];
	const struct dd_fsinfo *fs = &p->fs[sf->fs];
	__u64 so = c->src_off + (__u64)k * c->len;
	__u64 doff = dst->off + (__u64)k * c->len;
	char diff[48];

	if (dst->diff == DD_DIFF_NONE)
		snprintf(diff, sizeof(diff), "none");
	else
		snprintf(diff, sizeof(diff), "%s@+%llu",
			 dd_diff__name(dst->diff),
			 (unsigned long long)flip_pos(p, c, d));
	snprintf(buf, n,
		 "fs=%s bs=%u case=%s src_off=%llu len=%llu range=%u/%u "
		 "dest=%u/%u dst=%s dst_off=%llu poff=%llu/%llu "
		 "sizes=%llu/%llu diff=%s cache=%s",
		 fs->fs, fs->bs, c->name, (unsigned long long)so,
		 (unsigned long long)c->len, k + 1, c->count, d + 1, c->ndest,
		 dst->file == c->src ? "same-file" : "other-file",
		 (unsigned long long)doff, (unsigned long long)(so % p->page),
		 (unsigned long long)(doff % p->page),
		 (unsigned long long)sf->size, (unsigned long long)df->size,
		 diff,
		 sf->cold	    ? "cold"
		 : sf->readahead    ? "readahead"
		 : sf->small_writes ? "small-writes"
				    : "warm");
}

void dd__answer(int ioctl_err, int status, __u64 bytes, char *buf, size_t n)
{
	if (ioctl_err)
		snprintf(buf, n, "ioctl error %d (%s)", ioctl_err,
			 strerror(-ioctl_err));
	else if (status == FILE_DEDUPE_RANGE_SAME)
		snprintf(buf, n, "SAME bytes_deduped=%llu",
			 (unsigned long long)bytes);
	else if (status == FILE_DEDUPE_RANGE_DIFFERS)
		snprintf(buf, n, "DIFFERS bytes_deduped=%llu",
			 (unsigned long long)bytes);
	else
		snprintf(buf, n, "status %d (%s) bytes_deduped=%llu", status,
			 status < 0 ? strerror(-status) : "unknown",
			 (unsigned long long)bytes);
}

/* ---- shmem-read ---- */

static const char *const fill_names[SH_FILL_NR] = {
	[SH_FILL_FULL] = "full",
	[SH_FILL_SPARSE] = "sparse",
	[SH_FILL_MIXED] = "mixed",
};

static const struct sh_call_info calls[SH_CALL_NR] = {
	[SH_READ] = { "read", .moves = true, .syscall = true },
	[SH_PREAD] = { "pread", .syscall = true },
	[SH_READV] = { "readv", .iovecs = true, .moves = true,
		       .syscall = true },
	[SH_PREADV2] = { "preadv2", .iovecs = true, .syscall = true,
			 .rwf = true },
	[SH_URING_READ] = { "io_uring-read", .uring = true },
	[SH_URING_READV] = { "io_uring-readv", .iovecs = true, .uring = true },
	[SH_URING_FIXED] = { "io_uring-read_fixed", .uring = true },
	/* The file's offset given, so its position stays where it is. */
	[SH_SPLICE] = { "splice", .piped = true, .out = SH_OUT_PIPE },
	[SH_SENDFILE] = { "sendfile", .piped = true, .out = SH_OUT_FILE },
	[SH_SENDFILE_SOCK] = { "sendfile-socket", .piped = true,
			       .out = SH_OUT_SOCK },
	[SH_COPY_RANGE] = { "copy_file_range", .piped = true,
			    .out = SH_OUT_FILE },
	[SH_COPY_OTHER_FS] = { "copy_file_range-other-fs", .piped = true,
			       .out = SH_OUT_FILE, .other_fs = true },
	[SH_COPY_SAME] = { "copy_file_range-same-file", .piped = true,
			   .out = SH_OUT_FILE, .same_file = true },
	[SH_LOOP] = { "loop", .loop = true },
};

const struct sh_call_info *sh_call__info(enum sh_call c)
{
	return &calls[c < SH_CALL_NR ? c : SH_READ];
}

const char *sh_fill__name(enum sh_fill f)
{
	return f < SH_FILL_NR ? fill_names[f] : "?";
}

int sh_fill__parse(const char *name)
{
	for (int f = 0; f < SH_FILL_NR; f++)
		if (!strcmp(name, fill_names[f]))
			return f;
	return -1;
}

static const struct {
	const char *name;
	int flags;
} rwfs[] = { { "none", 0 }, { "nowait", RWF_NOWAIT }, { "hipri", RWF_HIPRI } };

const char *sh__rwf_name(int rwf)
{
	for (size_t i = 1; i < ARRAY_SIZE(rwfs); i++)
		if (rwf == rwfs[i].flags)
			return rwfs[i].name;
	return "";
}

int sh__rwf_parse(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(rwfs); i++)
		if (!strcmp(name, rwfs[i].name))
			return rwfs[i].flags;
	return -1;
}

const char *sh_call__name(enum sh_call c)
{
	return c < SH_CALL_NR ? calls[c].name : "?";
}

int sh_call__parse(const char *name)
{
	for (int c = 0; c < SH_CALL_NR; c++)
		if (!strcmp(name, calls[c].name))
			return c;
	return -1;
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
		p->end = min_u64(p->start + SPARSE_PIECE, f->size);
		return true;
	case SH_FILL_MIXED:
		if (h)
			v[n++] = (struct sh_piece){ 0, h, false };
		if (t)
			v[n++] = (struct sh_piece){ h, h + min_u64(t, MIXED_A),
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
		__u64 a = max_u64(off, p.start), e = min_u64(off + len, p.end);

		if (a < e)
			wl__pattern_fill(b + (a - off), a, e - a);
	}
}

__u64 sh_file__mem(const struct sh_file *f, bool huge)
{
	struct sh_piece p;
	__u64 sum = 0;

	/* One piece per 4 MiB, each inside one 2 MiB region and over 4
	 * pages: a bound without walking a huge sparse file. */
	if (f->fill == SH_FILL_SPARSE)
		return (f->size / (2 * WL_PMD) + 1) *
		       (huge ? WL_PMD : 4 * 4096);
	for (__u64 i = 0; sh_file__piece(f, i, &p); i++) {
		/* Early pieces are written while the mount is huge=never. */
		__u64 unit = huge && !p.early ? WL_PMD : 4096;
		__u64 a = p.start / unit * unit;
		__u64 b = (p.end + unit - 1) / unit * unit;

		sum += b - a;
	}
	return sum;
}

__u64 sh__expect_ret(__u64 size, __u64 pos, __u64 req)
{
	return pos >= size ? 0 : min_u64(req, size - pos);
}

/*
 * The default read patterns, each run on every file of the matrix. Sizes
 * there are 4 MiB + 4097 (full), 2 MiB + 300003 (mixed) and 4 MiB + 20000
 * (sparse): all reach past the first 2 MiB folio and end mid-page.
 */
static const struct sh_plan matrix_plans[] = {
	/* name, call, iovecs, bs, offset, from_eof, length, buf_align,
	 * readers, rwf */
	{ "seq-64k", SH_READ, 1, 64 * KiB, 0, false, 0, 0, 1, 0 },
	{ "bytes-1", SH_PREAD, 1, 1, 2 * MiB - 300, false, 600, 1, 1, 0 },
	{ "odd-7", SH_READV, 2, 7, 4090, false, 70, 5, 1, 0 },
	{ "readv-3m", SH_READV, 3, 3 * MiB + 5, 4095, false, 0, 3, 1, 0 },
	{ "pages-x4", SH_PREAD, 1, 4096, 4096, false, 256 * KiB, 8, 4, 0 },
	{ "folio-2m", SH_READ, 1, 2 * MiB, 2 * MiB, false, 0, 4095, 1, 0 },
	{ "readv16-x2", SH_READV, 16, 64 * KiB + 17, 1, false, 512 * KiB, 1, 2,
	  0 },
	{ "read-x3", SH_READ, 1, 100000, 12345, false, 1 * MiB, 2, 3, 0 },
	{ "to-eof", SH_PREAD, 1, 4096, -12288, true, 0, 0, 1, 0 },
	{ "past-eof", SH_READV, 2, 4096, -100, true, 0, 7, 1, 0 },
	{ "beyond-eof", SH_PREAD, 1, 4096, 1, true, 0, 0, 1, 0 },
	/* The other ways in: preadv2 with its flags, io_uring's reads
	 * (each where the kernel has it; else a skip). */
	{ "pv2-odd", SH_PREADV2, 3, 5000, 4093, false, 100000, 3, 1, 0 },
	{ "pv2-nowait", SH_PREADV2, 1, 64 * KiB, 0, false, 1 * MiB, 0, 1,
	  RWF_NOWAIT },
	{ "pv2-hipri", SH_PREADV2, 2, 4096 + 13, 2 * MiB - 4096, false,
	  256 * KiB, 5, 1, RWF_HIPRI },
	{ "uring-read", SH_URING_READ, 1, 64 * KiB + 3, 7, false, 1 * MiB, 1, 2,
	  0 },
	{ "uring-readv", SH_URING_READV, 4, 3 * MiB + 5, 0, false, 0, 2, 1, 0 },
	{ "uring-fixed", SH_URING_FIXED, 1, 2 * MiB, 2 * MiB - 100, false, 0, 0,
	  1, 0 },
	{ "uring-eof", SH_URING_READ, 1, 4096, -100, true, 0, 0, 1, 0 },
	/* Reads through a pipe in the kernel: splice into one, sendfile to
	 * a file and to a socket, copy_file_range to a file of the same
	 * tmpfs, to one of another and to the file itself. */
	{ "splice-odd", SH_SPLICE, 1, 5000, 2 * MiB - 3001, false, 200000, 0, 1,
	  0 },
	{ "splice-eof", SH_SPLICE, 1, 4096, -100, true, 0, 0, 1, 0 },
	{ "sendfile-2m", SH_SENDFILE, 1, 2 * MiB + 3, 2 * MiB - 4097, false, 0,
	  0, 1, 0 },
	{ "sendsock-x2", SH_SENDFILE_SOCK, 1, 64 * KiB + 1, 4095, false,
	  1 * MiB, 0, 2, 0 },
	{ "cfr-all", SH_COPY_RANGE, 1, 300000, 12345, false, 0, 0, 1, 0 },
	{ "cfr-other-fs", SH_COPY_OTHER_FS, 1, 1 * MiB, 7, false, 3 * MiB, 0, 1,
	  0 },
	/* copy_file_range to a range of the file it reads (past its end,
	 * cut back after each call): one reader, the file grows meanwhile. */
	{ "cfr-same", SH_COPY_SAME, 1, 2 * MiB + 5, 2 * MiB - 4097, false, 0, 0,
	  1, 0 },
	{ "cfr-same-eof", SH_COPY_SAME, 1, 4096, -100, true, 0, 0, 1, 0 },
	/* A loop device over the file, read with O_DIRECT: whole sectors,
	 * across a 2 MiB folio and up to the device's end. */
	{ "loop-64k", SH_LOOP, 1, 64 * KiB, 2 * MiB - 8192, false, 1 * MiB, 0,
	  1, 0 },
	{ "loop-eof", SH_LOOP, 1, 8192, -12800, true, 0, 0, 1, 0 },
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

__u64 sh__iov_len(__u64 bs, __u32 n, __u32 j)
{
	return bs / n + (j == n - 1 ? bs % n : 0);
}

void sh__layout(const char *huge, const struct sh_file *f,
		const struct sh_plan *pl, __u32 reader, __u64 call, __u64 pos,
		char *buf, size_t n)
{
	snprintf(buf, n,
		 "huge=%s file=%s size=%llu plan=%s syscall=%s%s%s iovecs=%u "
		 "bs=%llu offset=%llu length=%llu buf_align=%llu readers=%u "
		 "reader=%u call=%llu pos=%llu",
		 huge, sh_fill__name(f->fill), (unsigned long long)f->size,
		 pl->name, sh_call__name(pl->call), pl->rwf ? " rwf=" : "",
		 sh__rwf_name(pl->rwf), pl->iovecs, (unsigned long long)pl->bs,
		 (unsigned long long)sh_plan__start(pl, f->size),
		 (unsigned long long)pl->length,
		 (unsigned long long)pl->buf_align, pl->readers, reader,
		 (unsigned long long)call, (unsigned long long)pos);
}
