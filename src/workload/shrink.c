// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shrinking a failing layout: greedy, one smaller variant at a time.
 * Passes over the variants in a fixed order, simplest first (fewer
 * readers, iovecs, destinations and ranges, plainer modes), then halved
 * lengths and sizes, then offsets moved toward aligned; each variant that
 * still fails becomes the layout. It ends after a pass that kept none, so
 * the result is a local minimum: no single step makes it smaller and
 * still failing (unless max_trials ran out first). The same layout and the same
 * answers always give the same result. A failing sequence of operations
 * (--ops) shrinks by leaving operations out: wl_shrink_seq at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "workload/read.h"
#include "workload/shrink.h"

bool wl_layout__valid(const struct wl_opts *o, __u32 page)
{
	const struct wl_way_info *wi = wl_way__info(o->way);

	if (o->kind == WL_DEDUPE) {
		__u64 b = o->block_size ? o->block_size : page;

		if (!o->range || !o->count || !o->dests ||
		    o->dests > DD_MAX_DESTS)
			return false;
		/* Later ranges would start inside a block (check_range). */
		return o->count == 1 || !(o->range % b);
	}
	if (!o->size || !o->bs || o->bs > WL_PMD * 2 + MiB || !o->iovecs ||
	    o->iovecs > FS_MAX_IOVECS || o->iovecs > o->bs || !o->readers ||
	    o->readers > SH_MAX_READERS || o->buf_align > WL_PMD)
		return false;
	if (o->way >= WL_WAY_NR || (wi->same_file && o->readers > 1) ||
	    (o->iovecs > 1 && !wi->iovecs))
		return false;
	/* Each trial stays short: a bounded number of calls. */
	{
		__u64 total = o->offset < o->size ? o->size - o->offset : 0;

		if (o->length)
			total = wl__min(total, o->length);
		return total / o->bs <= WL_LAYOUT_MAX_CALLS;
	}
}

static bool same_layout(const struct wl_opts *a, const struct wl_opts *b)
{
	return a->huge == b->huge && a->fill == b->fill && a->way == b->way &&
	       a->rwf == b->rwf && a->fstype == b->fstype &&
	       a->differ == b->differ && a->size == b->size && a->bs == b->bs &&
	       a->offset == b->offset && a->length == b->length &&
	       a->buf_align == b->buf_align && a->iovecs == b->iovecs &&
	       a->readers == b->readers && a->block_size == b->block_size &&
	       a->range == b->range && a->count == b->count &&
	       a->src_off == b->src_off && a->dst_off == b->dst_off &&
	       a->dst_off_set == b->dst_off_set && a->dests == b->dests &&
	       a->same_file == b->same_file && a->cold == b->cold &&
	       a->file_size == b->file_size;
}

/* Offset variants toward aligned: 0, down to a block b, down to the
 * first page (same in-page offset), half. */
static __u64 toward_aligned(__u64 off, int how, __u64 b, __u64 page)
{
	switch (how) {
	case 0:
		return 0;
	case 1:
		return off / b * b;
	case 2:
		return off % page;
	default:
		return off / 2;
	}
}

static __u64 half(__u64 v)
{
	return v > 1 ? v / 2 : v;
}

#define SHMEM_VARIANTS 19
/* Variant k of a shmem-read layout. */
static void shmem_variant(struct wl_opts *o, int k, __u32 page)
{
	switch (k) {
	case 0:
		o->readers = 1;
		break;
	case 1:
		o->readers = half(o->readers);
		break;
	case 2:
		o->iovecs = 1;
		break;
	case 3:
		o->iovecs = half(o->iovecs);
		break;
	case 4:
		if (o->iovecs == 1) {
			o->way = WL_WAY_READ;
			o->rwf = 0;
		}
		break;
	case 5:
		o->fill = SH_FILL_FULL;
		break;
	case 6:
		o->huge = WL_HUGE_NEVER;
		break;
	case 7: /* to EOF becomes half of what is left */
		if (!o->length && o->offset < o->size)
			o->length = half(o->size - o->offset);
		else
			o->length = half(o->length);
		break;
	case 8:
		o->size = half(o->size);
		break;
	case 9: /* the EOF stays as near: the head goes */
		if (o->offset >= o->size / 2 / page * page) {
			__u64 cut = o->size / 2 / page * page;

			o->size -= cut;
			o->offset -= cut;
		}
		break;
	case 10:
		o->bs = half(o->bs);
		break;
	case 11:
	case 12:
	case 13:
	case 14:
		o->offset = toward_aligned(o->offset, k - 11, page, page);
		break;
	case 15:
		o->buf_align = 0;
		break;
	case 16:
		o->buf_align = half(o->buf_align);
		break;
	case 17: /* same in-page offset, whole pages less */
		o->buf_align %= page;
		break;
	default:
		o->bs = o->bs / page * page ?: o->bs;
		break;
	}
}

#define DEDUPE_VARIANTS 20
/* Variant k of a dedupe layout. */
static void dedupe_variant(struct wl_opts *o, int k, __u32 page)
{
	__u64 b = o->block_size ? o->block_size : page;

	switch (k) {
	case 0:
		o->dests = 1;
		break;
	case 1:
		o->dests = o->dests > 1 ? o->dests - 1 : 1;
		break;
	case 2:
		o->count = 1;
		break;
	case 3:
		o->count = (__u32)half(o->count);
		break;
	case 4:
		o->same_file = false;
		break;
	case 5:
		o->cold = false;
		break;
	case 6:
		o->file_size = 0;
		break;
	case 7:
		o->differ = DD_DIFF_NONE;
		break;
	case 8: /* halved; whole blocks while later ranges need them */
		o->range = half(o->range);
		if (o->count > 1)
			o->range = o->range / b * b;
		break;
	case 9:
		if (o->range >= b)
			o->range = o->range / b * b;
		break;
	case 10:
	case 11:
	case 12:
	case 13:
		o->src_off = toward_aligned(o->src_off, k - 10, b, page);
		break;
	case 14:
		o->dst_off_set = false;
		o->dst_off = 0;
		break;
	case 15:
	case 16:
	case 17:
	case 18:
		if (o->dst_off_set)
			o->dst_off =
				toward_aligned(o->dst_off, k - 15, b, page);
		break;
	default:
		o->file_size = half(o->file_size);
		break;
	}
}

/* Each workload's variants, simplest first. */
static const struct {
	void (*variant)(struct wl_opts *o, int k, __u32 page);
	int n;
} variants[WL_KIND_NR] = {
	[WL_DEDUPE] = { dedupe_variant, DEDUPE_VARIANTS },
	[WL_SHMEM] = { shmem_variant, SHMEM_VARIANTS },
};

unsigned int wl_shrink(struct wl_opts *o, __u32 page, wl_fails_fn fails,
		       void *ctx, unsigned int max_trials)
{
	int steps = variants[o->kind].n;
	unsigned int trials = 0;
	bool progress = true;

	/* Passes over the steps until one keeps nothing; a step that
	 * succeeded is tried again at once (halving goes on halving). */
	while (progress && trials < max_trials) {
		progress = false;
		for (int k = 0; k < steps && trials < max_trials;) {
			struct wl_opts c = *o;

			variants[o->kind].variant(&c, k, page);
			if (same_layout(&c, o) || !wl_layout__valid(&c, page)) {
				k++;
				continue;
			}
			trials++;
			if (fails(ctx, &c)) {
				*o = c;
				progress = true;
			} else {
				k++;
			}
		}
	}
	return trials;
}

/*
 * A failing sequence: delta debugging (Zeller's ddmin, complements only).
 * The sequence is cut into gran chunks; a candidate without one chunk
 * that still fails becomes the sequence (and the chunks grow back by
 * one); when none does, the chunks are halved, down to single operations.
 * It ends when no single operation can go, or max_trials ran out.
 */
unsigned int wl_shrink_seq(__u32 *idx, __u32 *n, wl_seq_fails_fn fails,
			   void *ctx, unsigned int max_trials)
{
	unsigned int trials = 0;
	__u32 gran = 2, *cand;

	if (*n < 2)
		return 0;
	cand = malloc(*n * sizeof(*cand));
	if (!cand)
		return 0;
	while (*n >= 2 && trials < max_trials) {
		__u32 chunk = (*n + gran - 1) / gran;
		bool kept = false;

		if (gran > *n)
			gran = *n;
		for (__u32 start = 0; start < *n && trials < max_trials;
		     start += chunk) {
			__u32 end = start + chunk < *n ? start + chunk : *n;
			__u32 m = 0;

			for (__u32 i = 0; i < *n; i++)
				if (i < start || i >= end)
					cand[m++] = idx[i];
			if (!m)
				continue;
			trials++;
			if (fails(ctx, cand, m)) {
				memcpy(idx, cand, m * sizeof(*idx));
				*n = m;
				gran = gran > 2 ? gran - 1 : 2;
				kept = true;
				break;
			}
		}
		if (kept)
			continue;
		if (gran >= *n)
			break;
		gran = gran * 2 < *n ? gran * 2 : *n;
	}
	free(cand);
	return trials;
}
