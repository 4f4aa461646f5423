// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shadows of --ops' files (ops.h): what each operation must have
 * done to the bytes and the size of the files, and the answers of
 * FICLONERANGE and copy_file_range from the shadows alone. The ground
 * truth every read and every st_size of a sequence is checked against.
 */
#include <errno.h>
#include <string.h>

#include "workload/ops.h"
#include "workload/pattern.h"

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
	switch (op->kind) {
	case OPK_PWRITE:
	case OPK_WRITE:
		wl_pattern__fill(m->b + op->off,
				 op->off + wl_op__write_tag(seed, index),
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
