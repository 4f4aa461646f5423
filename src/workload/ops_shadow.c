// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shadows of --ops' files (ops.h): what each operation must have
 * done to the bytes and the size of the files, and the answers of
 * FICLONERANGE and copy_file_range from the shadows alone. The ground
 * truth every read and every st_size of a sequence is checked against;
 * and the state of each page (a hole, fallocated, written), which names
 * what a read crossed.
 */
#include <errno.h>
#include <string.h>

#include "workload/ops.h"
#include "workload/pattern.h"

static const char *const state_names[WL_RANGE_NR] = {
	[WL_RANGE_HOLE] = "hole",
	[WL_RANGE_FALLOC] = "fallocated",
	[WL_RANGE_WRITTEN] = "written",
};

const char *wl_range_state__name(enum wl_range_state s)
{
	return s < WL_RANGE_NR ? state_names[s] : "?";
}

unsigned int wl_shadow__states(const struct wl_shadow *m, __u64 off, __u64 len)
{
	__u64 end = wl__min(off + len, m->size);
	unsigned int mask = 0;

	if (!m->state)
		return 0;
	for (__u64 p = off / WL_OPS_STATE_PAGE;
	     off < end && p * WL_OPS_STATE_PAGE < end; p++)
		mask |= 1u << m->state[p];
	return mask;
}

/*
 * The pages of [off, end): those it touches at all (whole false) or only
 * those it covers whole, from state from (WL_RANGE_NR: any) to state to.
 */
static void set_states(struct wl_shadow *m, __u64 off, __u64 end, bool whole,
		       enum wl_range_state from, enum wl_range_state to)
{
	__u64 first, last;

	if (!m->state || off >= end)
		return;
	end = wl__min(end, WL_OPS_STATE_PAGES * WL_OPS_STATE_PAGE);
	first = whole ? (off + WL_OPS_STATE_PAGE - 1) / WL_OPS_STATE_PAGE
		      : off / WL_OPS_STATE_PAGE;
	last = whole ? end / WL_OPS_STATE_PAGE
		     : (end + WL_OPS_STATE_PAGE - 1) / WL_OPS_STATE_PAGE;
	for (__u64 p = first; p < last; p++)
		if (from == WL_RANGE_NR || m->state[p] == from)
			m->state[p] = (unsigned char)to;
}

/* What op did to the pages' states (see enum wl_range_state). */
static void apply_states(struct wl_shadow *files, const struct wl_op *op,
			 long long ret)
{
	struct wl_shadow *m = &files[op->file];
	__u64 end = op->off + op->len, o, l;

	switch (op->kind) {
	case OPK_PWRITE:
	case OPK_WRITE:
		set_states(m, op->off, end, false, WL_RANGE_NR,
			   WL_RANGE_WRITTEN);
		break;
	case OPK_MMAP:
		if (wl_shadow__mmap_range(m, op, &o, &l))
			set_states(m, o, o + l, false, WL_RANGE_NR,
				   WL_RANGE_WRITTEN);
		break;
	case OPK_TRUNCATE:
		set_states(m, op->off, WL_OPS_STATE_PAGES * WL_OPS_STATE_PAGE,
			   true, WL_RANGE_NR, WL_RANGE_HOLE);
		break;
	case OPK_FALLOC:
	case OPK_FALLOC_KEEP:
		set_states(m, op->off, end, false, WL_RANGE_HOLE,
			   WL_RANGE_FALLOC);
		break;
	case OPK_PUNCH:
		set_states(m, op->off, end, true, WL_RANGE_NR, WL_RANGE_HOLE);
		break;
	case OPK_ZERO:
		/* Unwritten extents for whole pages, zeros written in the
		 * others. */
		set_states(m, op->off, end, false, WL_RANGE_NR,
			   WL_RANGE_WRITTEN);
		set_states(m, op->off, end, true, WL_RANGE_NR, WL_RANGE_FALLOC);
		break;
	case OPK_CLONE:
	case OPK_COPY:
		set_states(&files[op->dest[0].file], op->dest[0].off,
			   op->dest[0].off + (op->kind == OPK_CLONE
						      ? op->len
						      : (__u64)ret),
			   false, WL_RANGE_NR, WL_RANGE_WRITTEN);
		break;
	default:
		break;
	}
}

bool wl_shadow__mmap_range(const struct wl_shadow *m, const struct wl_op *op,
			   __u64 *off, __u64 *len)
{
	if (!m->size)
		return false;
	*off = op->off % m->size;
	*len = wl__min(op->len, m->size - *off);
	return true;
}

/* n bytes of src at so to dst at doff (src and dst may be one file). */
static void shadow_copy(struct wl_shadow *dst, __u64 doff,
			const struct wl_shadow *src, __u64 so, __u64 n)
{
	if (!n)
		return;
	memmove(dst->b + doff, src->b + so, n);
	if (doff + n > dst->size)
		dst->size = doff + n;
}

void wl_shadow__apply(struct wl_shadow *files, const struct wl_op *op,
		      __u64 seed, __u32 index, long long ret)
{
	struct wl_shadow *m = &files[op->file];
	__u64 end = op->off + op->len;

	if (ret < 0)
		return; /* refused: nothing changed (checked elsewhere) */
	/* Before the bytes: an mmap store's range is of the size before. */
	apply_states(files, op, ret);
	switch (op->kind) {
	case OPK_PWRITE:
	case OPK_WRITE:
		wl_pattern__fill(
			m->b + op->off,
			op->base ?: op->off + wl_op__write_tag(seed, index),
			op->len);
		if (end > m->size)
			m->size = end;
		break;
	case OPK_TRUNCATE:
		/* Past the size the shadow is zero: what a file grown over it
		 * again must read. */
		if (op->off < m->size)
			memset(m->b + op->off, 0, m->size - op->off);
		m->size = op->off;
		break;
	case OPK_FALLOC:
		if (end > m->size)
			m->size = end;
		break;
	case OPK_ZERO:
		if (op->off < m->size)
			memset(m->b + op->off, 0,
			       wl__min(end, m->size) - op->off);
		if (end > m->size)
			m->size = end;
		break;
	case OPK_PUNCH:
		if (op->off < m->size)
			memset(m->b + op->off, 0,
			       wl__min(end, m->size) - op->off);
		break;
	case OPK_MMAP: {
		__u64 o, l;

		if (!wl_shadow__mmap_range(m, op, &o, &l))
			break;
		wl_pattern__fill(m->b + o, o + wl_op__write_tag(seed, index),
				 l);
		break;
	}
	case OPK_CLONE:
		shadow_copy(&files[op->dest[0].file], op->dest[0].off, m,
			    op->off, op->len);
		break;
	case OPK_COPY:
		shadow_copy(&files[op->dest[0].file], op->dest[0].off, m,
			    op->off, (__u64)ret);
		break;
	default: /* reads and dedupe change nothing */
		break;
	}
}

int wl_shadow__clone(const struct wl_shadow *files, const struct wl_op *op,
		     __u32 bs)
{
	const struct wl_shadow *src = &files[op->file];
	__u64 so = op->off, doff = op->dest[0].off, len = op->len;

	/* generic_remap_checks without REMAP_FILE_CAN_SHORTEN: aligned
	 * starts, the source range inside the source (a length the source's
	 * EOF would shorten is refused), no overlap within one file. */
	if (so % bs || doff % bs || so >= src->size || so + len > src->size)
		return -EINVAL;
	if (len % bs && so + len != src->size)
		return -EINVAL;
	if (op->dest[0].file == op->file && doff + len > so && doff < so + len)
		return -EINVAL;
	return 0;
}

int wl_shadow__copy(const struct wl_shadow *files, const struct wl_op *op,
		    const struct wl_ops_geom *geo, __u64 *alt)
{
	const struct wl_shadow *src = &files[op->file];
	__u64 so = op->off, doff = op->dest[0].off, count,
	      bs = geo->bs[op->file];

	*alt = 0;
	/* Between two tmpfs mounts: tmpfs has no copy_file_range of its
	 * own, and the splice fallback takes one superblock only. */
	if (geo->filesys[op->dest[0].file] != geo->filesys[op->file])
		return -EXDEV;
	if (so >= src->size)
		return 0;
	count = wl__min(op->len, src->size - so);
	/* generic_copy_file_checks: no overlap within one file. */
	if (op->dest[0].file == op->file && doff + count > so &&
	    doff < so + count)
		return -EINVAL;
	/* tmpfs: a splice of it all. */
	if (geo->kind != WL_DEDUPE)
		return (int)count;
	/* One filesystem: a clone first, which may stop at the last whole
	 * block (always short of the source's EOF; at EOF when the
	 * destination goes on past the range), then, had it cloned
	 * nothing, a copy of it all. A clone that takes the tail, or a
	 * filesystem that declines the clone, copies it all. */
	if (!(so % bs) && !(doff % bs) && count >= bs && count % bs) {
		*alt = count;
		return (int)(count / bs * bs);
	}
	return (int)count;
}
