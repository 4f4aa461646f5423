// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The dedupe workload's ground truth (dedupe_truth.h): what a test file
 * holds, what the kernel must answer for one destination of one
 * FIDEDUPERANGE (from the checks of vfs_dedupe_file_range and
 * generic_remap_checks and the files' contents), what that answer counts
 * at each level the probes see, and the texts a failed check is reported
 * with. No system calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>

#include "util/util.h"
#include "workload/dedupe_truth.h"
#include "workload/pattern.h"

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
	return wl__lookup(diff_names, DD_DIFF_NR, name);
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
		return wl__min(cmp / 2 + 3, cmp - 1);
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

	wl_pattern__fill(p, off + f->delta, len);
	/* Later segments win, as they were written later. */
	for (int i = 0; i < f->nseg; i++) {
		const struct dd_seg *s = &f->seg[i];
		__u64 end = s->start + s->len * s->count;
		__u64 a = wl__max(off, s->start), b = wl__min(off + len, end);

		if (a >= b)
			continue;
		wl_pattern__fill(p + (a - off), a + s->delta, b - a);
		seg_flips(s, a, p + (a - off), b - a);
	}
}

bool dd_file__equal(const struct dd_file *a, __u64 aoff,
		    const struct dd_file *b, __u64 boff, __u64 len)
{
	unsigned char x[16384], y[16384];

	while (len) {
		size_t n = wl__min(len, sizeof(x));

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
	len = wl__min(len, DD_CAP);
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

void dd__geometry_of(const struct dd_plan *p, const struct dd_case *c, __u32 k,
		     unsigned int d, struct dd_expect *e)
{
	const struct dd_file *sf = &p->files[c->src];
	struct dd_req q = {
		.bs = p->filesys[sf->filesys].bs,
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

void dd__store_answers(const unsigned char *src, const unsigned char *dst,
		       __u64 dst_off, __u64 n, const struct dd_store *st,
		       bool *same_ok, bool *differs_ok)
{
	bool eq_old = true, eq_new = true, eq_mix = true;

	for (__u64 i = 0; i < n; i++) {
		__u64 at = dst_off + i;
		unsigned char o = dst[i], w = o;

		if (at >= st->off && at < st->off + st->len)
			w = st->bytes[at - st->off];
		eq_old &= src[i] == o;
		eq_new &= src[i] == w;
		eq_mix &= src[i] == o || src[i] == w;
	}
	/* A pwrite is before the compare or after the remap (the inode
	 * locks); a torn store leaves any mix of its bytes and the old. */
	*same_ok = eq_old || eq_new || (st->torn && eq_mix);
	*differs_ok = !(eq_old && eq_new);
}

void dd__count_answer(struct wl_totals *t, __u64 req_len,
		      const struct dd_expect *e, const struct dd_result *g)
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

	dd__geometry_of(p, c, k, d, e);
	if (e->ioctl_err || e->status != FILE_DEDUPE_RANGE_SAME || !e->cmp_len)
		return;
	if (dd_file__equal(&p->files[c->src], c->src_off + (__u64)k * c->len,
			   &p->files[dst->file], dst->off + (__u64)k * c->len,
			   e->cmp_len))
		return;
	e->status = FILE_DEDUPE_RANGE_DIFFERS;
	e->bytes_deduped = 0;
}

__u64 dd__flip_pos(const struct dd_plan *p, const struct dd_case *c,
		   unsigned int d)
{
	struct dd_expect e;

	dd__geometry_of(p, c, 0, d, &e);
	return dd_diff__pos(c->dest[d].diff,
			    e.cmp_len ? e.cmp_len : wl__min(c->len, DD_CAP));
}

void dd__layout(const struct dd_plan *p, const struct dd_case *c, __u32 k,
		unsigned int d, char *buf, size_t n)
{
	const struct dd_file *sf = &p->files[c->src];
	const struct dd_dest *dst = &c->dest[d];
	const struct dd_file *df = &p->files[dst->file];
	const struct dd_filesys *fs = &p->filesys[sf->filesys];
	__u64 so = c->src_off + (__u64)k * c->len;
	__u64 doff = dst->off + (__u64)k * c->len;
	char diff[48];

	if (dst->diff == DD_DIFF_NONE)
		snprintf(diff, sizeof(diff), "none");
	else
		snprintf(diff, sizeof(diff), "%s@+%llu",
			 dd_diff__name(dst->diff),
			 (unsigned long long)dd__flip_pos(p, c, d));
	snprintf(buf, n,
		 "fs=%s bs=%u case=%s src_off=%llu len=%llu range=%u/%u "
		 "dest=%u/%u dst=%s dst_off=%llu poff=%llu/%llu "
		 "sizes=%llu/%llu diff=%s cache=%s",
		 wl_fstype__name(fs->type), fs->bs, c->name,
		 (unsigned long long)so, (unsigned long long)c->len, k + 1,
		 c->count, d + 1, c->ndest,
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
