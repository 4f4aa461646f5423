// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sequences of operations (run shmem-read|dedupe --ops N [--seed S]),
 * the way fsx (xfstests' file system exerciser) has found bugs for
 * decades: N operations drawn from the seed run in turn on four files,
 * and an in-memory model of every file, its bytes and its size, is the
 * ground truth. shmem-read's files are on four tmpfs mounts, one per
 * huge= mode; dedupe's on two loop filesystems, btrfs and xfs (its block
 * size drawn from the seed), two files each.
 *
 * Writes land anywhere; truncates go down and up, to sizes inside a page
 * and inside a 2 MiB folio; fallocate allocates, with and without
 * KEEP_SIZE; holes are punched and ranges zeroed; pages are written
 * through a shared mapping (never past EOF in the last page: tmpfs keeps
 * such bytes and the file shows them once it grows, which mmap(2) leaves
 * unspecified). dedupe adds FIDEDUPERANGE with 1 to 16 destinations (the
 * source's own page or 64 KiB among them), FICLONERANGE and
 * copy_file_range between the files of one filesystem. Every answer is
 * checked against the model: counts, errors, SAME or DIFFERS, st_size;
 * every read byte for byte, with the bytes past its return still the
 * buffer's poison; and every file is read whole at the end. So a page
 * tail that a truncate or a punch left stale is read back once the file
 * grows over it, and a dedupe that changed what it compared is read back.
 *
 * Each operation is drawn from its index alone (a stream per index, as
 * random layouts are), never from what the ones before left: a failing
 * sequence shrinks by leaving operations out (wl_shrink_seq), and those
 * that stay are the same operations. What one does with the state (an
 * mmap write inside the file's current size) is decided when it runs,
 * the same way every time.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <liburing.h>

#include "util/rng.h"
#include "util/util.h"
#include "workload/workload_internal.h"

#define KiB 1024ULL
#define NFILES WL_OPS_NFILES
#define MAX_SIZE WL_OPS_MAX_SIZE
#define MAX_LEN WL_OPS_MAX_LEN
/* Poisoned bytes after a read's length: a read past it shows there. */
#define GUARD 64
#define MAX_IOV 8
/* The final read-back's chunk. */
#define READBACK (1ULL << 20)
#define SHRINK_TRIALS 200
/* dedupe's loop images: room for four files' data several times over,
 * and mkfs.xfs's 300 MB minimum. */
#define IMG_SIZE (384ULL << 20)

static const char *const huge_modes[NFILES] = { "always", "within_size",
						"advise", "never" };

static const char *const kind_names[OPK_NR] = {
	[OPK_READ] = "read",	    [OPK_PWRITE] = "pwrite",
	[OPK_WRITE] = "write",	    [OPK_TRUNCATE] = "truncate",
	[OPK_FALLOC] = "fallocate", [OPK_FALLOC_KEEP] = "fallocate-keep-size",
	[OPK_PUNCH] = "punch-hole", [OPK_ZERO] = "zero-range",
	[OPK_MMAP] = "mmap-write",  [OPK_DEDUPE] = "dedupe",
	[OPK_CLONE] = "clone",	    [OPK_COPY] = "copy_file_range",
};

static const char *const via_names[OPV_NR] = {
	[OPV_READ] = "read",
	[OPV_PREAD] = "pread",
	[OPV_READV] = "readv",
	[OPV_SPLICE] = "splice",
	[OPV_PREADV2] = "preadv2",
	[OPV_URING] = "io_uring-read",
	[OPV_SENDFILE] = "sendfile",
	[OPV_COPY] = "copy_file_range",
	[OPV_URING_READV] = "io_uring-readv",
	[OPV_URING_FIXED] = "io_uring-read_fixed",
	[OPV_SENDFILE_SOCK] = "sendfile-socket",
	[OPV_LOOP] = "loop",
};

/* Failure kinds of the operations that change files; the reads' are
 * shmem-read's, the dedupe answers' dedupe's. */
#define K_ANSWER FS_CASE_ANSWER /* a return or errno not the model's */
#define K_SIZE "size"		/* st_size is not the model's size */
#define K_DATA "data"
#define K_UNWRITTEN "unwritten"
#define K_PAST "past ret"

static __u64 min_u64(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

void wl_ops__geom(const char *wl, __u64 seed, __u32 page, struct wl_ops_geom *g)
{
	static const __u32 xfs_bs[] = { 1024, 2048, 4096 };

	memset(g, 0, sizeof(*g));
	g->dd = !strcmp(wl, "dedupe");
	for (int i = 0; i < NFILES; i++) {
		g->fs[i] = g->dd ? i / 2 : i;
		g->bs[i] = page;
		if (!g->dd) {
			snprintf(g->label[i], sizeof(g->label[i]), "huge=%s",
				 huge_modes[i]);
		} else if (i < 2) {
			snprintf(g->label[i], sizeof(g->label[i]), "btrfs");
		} else {
			/* Sub-page blocks where the page allows them. */
			__u32 bs = xfs_bs[seed % 3];

			g->bs[i] = bs <= page ? bs : page;
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
	return min_u64(v, MAX_SIZE);
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

/* dedupe, clone, copy_file_range: block-aligned mostly, lengths of
 * blocks with a tail now and then (clone: whole blocks only, which is
 * all it takes short of the source's EOF), destinations in the same file
 * (in the source's page or 64 KiB, to meet one folio on both sides) or
 * in the other file of the filesystem. */
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
	op->len = min_u64(op->len, MAX_SIZE - op->off);
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
		t->file = rng__pct(g, geo->dd ? 35 : 85) ? op->file
							 : sibling(op->file);
		if (t->file == op->file && rng__pct(g, 50)) {
			/* Near the source: its page, or its 64 KiB. */
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
	const unsigned int *w = weights[geo->dd];
	const __u64 P = geo->bs[0] > geo->bs[NFILES - 1] ? geo->bs[0]
							 : geo->bs[NFILES - 1];
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
		op->via = (enum wl_op_via)rng__below(&g, OPV_NR);
		op->iovecs =
			op->via == OPV_READV || op->via == OPV_PREADV2 ||
					op->via == OPV_URING_READV
				? (__u32)min_u64(rng__range(&g, 1, MAX_IOV),
						 op->len)
				: 1;
		/* Reads may start past EOF and past MAX_SIZE. */
		if (rng__pct(&g, 10))
			op->off += rng__range(&g, 0, P);
		/* preadv2 with its flags now and then. */
		if (op->via == OPV_PREADV2 && rng__pct(&g, 40))
			op->rwf = rng__pct(&g, 50) ? RWF_HIPRI : RWF_NOWAIT;
		/* A loop device reads whole sectors with O_DIRECT. */
		if (op->via == OPV_LOOP) {
			op->off = op->off / 512 * 512;
			op->len = (op->len + 511) / 512 * 512;
			if (op->len > MAX_LEN)
				op->len = MAX_LEN / 512 * 512;
		}
		break;
	case OPK_TRUNCATE:
		op->len = 0; /* off is the new size */
		break;
	case OPK_DEDUPE:
	case OPK_CLONE:
	case OPK_COPY:
		draw_remap(&g, geo, P, op);
		break;
	default:
		/* What a write or an allocation covers stays under MAX_SIZE. */
		if (op->off >= MAX_SIZE)
			op->off = MAX_SIZE - 1;
		op->len = min_u64(op->len, MAX_SIZE - op->off);
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
			via_names[op->via], rwf_name(op->rwf),
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
}

/* ---- the model of the files ---- */

/* What a write of operation index puts at [off, off + len): the pattern
 * shifted by a tag of its own, so that no two writes write the same
 * bytes, nor any write a stale byte's. Under WL_POISON_BASE. */
static __u64 write_tag(__u64 seed, __u32 index)
{
	return ((__u64)(index + 1) << 23) ^ ((seed & 0x3f) << 44);
}

bool wl_ops_model__mmap_range(const struct wl_ops_model *m,
			      const struct wl_op *op, __u64 *off, __u64 *len)
{
	if (!m->size)
		return false;
	*off = op->off % m->size;
	*len = min_u64(op->len, m->size - *off);
	return true;
}

/* n bytes of src at so to dst at doff (src and dst may be one file). */
static void model_copy(struct wl_ops_model *dst, __u64 doff,
		       const struct wl_ops_model *src, __u64 so, __u64 n)
{
	if (!n)
		return;
	memmove(dst->b + doff, src->b + so, n);
	if (doff + n > dst->size)
		dst->size = doff + n;
}

void wl_ops_model__apply(struct wl_ops_model *files, const struct wl_op *op,
			 __u64 seed, __u32 index, long long ret)
{
	struct wl_ops_model *m = &files[op->file];
	__u64 end = op->off + op->len;

	if (ret < 0)
		return; /* refused: nothing changed (checked elsewhere) */
	switch (op->kind) {
	case OPK_PWRITE:
	case OPK_WRITE:
		wl__pattern_fill(m->b + op->off,
				 op->off + write_tag(seed, index), op->len);
		if (end > m->size)
			m->size = end;
		break;
	case OPK_TRUNCATE:
		/* Past the size the model is zero: what a file grown over it
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
			       min_u64(end, m->size) - op->off);
		if (end > m->size)
			m->size = end;
		break;
	case OPK_PUNCH:
		if (op->off < m->size)
			memset(m->b + op->off, 0,
			       min_u64(end, m->size) - op->off);
		break;
	case OPK_MMAP: {
		__u64 o, l;

		if (!wl_ops_model__mmap_range(m, op, &o, &l))
			break;
		wl__pattern_fill(m->b + o, o + write_tag(seed, index), l);
		break;
	}
	case OPK_CLONE:
		model_copy(&files[op->dest[0].file], op->dest[0].off, m,
			   op->off, op->len);
		break;
	case OPK_COPY:
		model_copy(&files[op->dest[0].file], op->dest[0].off, m,
			   op->off, (__u64)ret);
		break;
	default: /* reads and dedupe change nothing */
		break;
	}
}

int wl_ops_model__clone(const struct wl_ops_model *files,
			const struct wl_op *op, __u32 bs)
{
	const struct wl_ops_model *src = &files[op->file];
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

int wl_ops_model__copy(const struct wl_ops_model *files, const struct wl_op *op,
		       const struct wl_ops_geom *geo, __u64 *alt)
{
	const struct wl_ops_model *src = &files[op->file];
	__u64 so = op->off, doff = op->dest[0].off, count,
	      bs = geo->bs[op->file];

	*alt = 0;
	/* Between two tmpfs mounts: tmpfs has no copy_file_range of its
	 * own, and the splice fallback takes one superblock only. */
	if (geo->fs[op->dest[0].file] != geo->fs[op->file])
		return -EXDEV;
	if (so >= src->size)
		return 0;
	count = min_u64(op->len, src->size - so);
	/* generic_copy_file_checks: no overlap within one file. */
	if (op->dest[0].file == op->file && doff + count > so &&
	    doff < so + count)
		return -EINVAL;
	/* tmpfs: a splice of it all. */
	if (!geo->dd)
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

/* ---- running them ---- */

/* The ways into a read that a kernel may lack (a small test kernel has no
 * AF_UNIX, a distribution may turn io_uring off): each is tried at its
 * first read; the reads of one it lacks are skipped, said once on stderr
 * and counted in the report under kv. */
enum way { WAY_URING, WAY_LOOP, WAY_SOCKET, WAY_NR };

static const struct way_info {
	const char *kv;
	const char *lacks;
} way_info[WAY_NR] = {
	[WAY_URING] = { "ops_uring_skipped",
			"io_uring: its reads of the sequence are skipped (not "
			"built, or kernel.io_uring_disabled)" },
	[WAY_LOOP] = { "ops_loop_skipped",
		       "loop: its reads of the sequence are skipped (no loop "
		       "device)" },
	[WAY_SOCKET] = { "ops_socket_skipped",
			 "sendfile-socket: its reads of the sequence are "
			 "skipped (no AF_UNIX sockets)" },
};

static enum way way_of(enum wl_op_via v)
{
	switch (v) {
	case OPV_URING:
	case OPV_URING_READV:
	case OPV_URING_FIXED:
		return WAY_URING;
	case OPV_LOOP:
		return WAY_LOOP;
	case OPV_SENDFILE_SOCK:
		return WAY_SOCKET;
	default:
		return WAY_NR;
	}
}

struct ops_file {
	char dir[PATH_MAX]; /* shmem-read: its own mount */
	char path[PATH_MAX];
	bool mounted, made;
	int fd;
};

struct wl_ops {
	const char *wl;
	struct wl_ops_geom geo;
	__u64 seed;
	__u32 n;    /* --ops N */
	__u32 *idx; /* the operations, in order (--ops-only: those) */
	__u32 nidx;
	__u32 page;
	__u64 deadline_base;
	struct ops_file f[NFILES];
	struct wl_ops_model models[NFILES]; /* file i's */
	/* dedupe: the loop filesystems in a temp dir of their own */
	char tmpdir[PATH_MAX];
	struct wl_loopfs lfs[2];
	unsigned char *rbuf; /* MAX_LEN + GUARD, and the read-back's chunk */
	unsigned char *wbuf;
	struct file_dedupe_range *req;
	struct wl_watch *watch;
	struct fs_report *r; /* where the checks go now */
	struct wl_totals tot;
	__u64 reads; /* poison seeds */
	__u64 done;  /* operations run */
	/* The operation in flight, for the watchdog's report. */
	const struct wl_op *cur;
	__u32 cur_index;
	/* The first failure: its operation's index, its kind. */
	bool failed;
	__u32 fail_index;
	char kind[24];
	/* A shrink trial looks for this kind only. */
	const char *want_kind;
	bool trial_failed;
	/* The ways in a kernel may lack (way_ready). */
	struct {
		bool ok, lacking;
		__u64 skipped;
	} way[WAY_NR];
};

static void layout(const struct wl_ops *s, const struct wl_op *op, __u32 index,
		   char *buf, size_t n)
{
	char d[240];

	if (index == UINT32_MAX)
		snprintf(d, sizeof(d),
			 "read-back file %u (%s) by pread off %llu len %llu",
			 op->file, s->geo.label[op->file],
			 (unsigned long long)op->off,
			 (unsigned long long)op->len);
	else
		wl_op__describe(op, index, &s->geo, d, sizeof(d));
	snprintf(buf, n, "ops seed=%llu %s", (unsigned long long)s->seed, d);
}

static void check(struct wl_ops *s, bool ok, const char *kind,
		  const struct wl_op *op, __u32 index, const char *want,
		  const char *got)
{
	char lay[320], group[48];

	layout(s, op, index, lay, sizeof(lay));
	/* The groups of the other runs: a filesystem and block size, a
	 * tmpfs mount. */
	if (s->geo.dd)
		snprintf(group, sizeof(group), "%s bs=%u",
			 s->geo.fs[op->file] ? "xfs" : "btrfs",
			 s->geo.bs[op->file]);
	else
		snprintf(group, sizeof(group), "tmpfs %s",
			 s->geo.label[op->file]);
	model__check_group(s->r, group);
	model__check_kind(s->r, ok, kind, lay, want, got);
	if (ok)
		return;
	if (s->want_kind && !strcmp(kind, s->want_kind))
		s->trial_failed = true;
	if (!s->failed) {
		s->failed = true;
		s->fail_index = index;
		snprintf(s->kind, sizeof(s->kind), "%s", kind);
	}
}

static void describe_cur(const void *arg, char *buf, size_t n)
{
	const struct wl_ops *s = arg;

	layout(s, s->cur, s->cur_index, buf, n);
}

static void watch_enter(struct wl_ops *s, const struct wl_op *op, __u32 index,
			__u64 bytes)
{
	s->cur = op;
	s->cur_index = index;
	wl_watch__enter(s->watch, 0,
			wl__deadline_ns(s->deadline_base, bytes, 1),
			describe_cur, s);
}

/* A call that must return want (0 or a byte count) or alt_ret, or with
 * alt fail with errno alt. */
struct answer {
	const char *call;
	long long want, alt_ret;
	int alt;
	bool has_alt_ret;
	/* Less than want, but not nothing, is right too (splice, sendfile
	 * and copy_file_range may stop short). */
	bool short_ok;
	/* RWF_NOWAIT: the read may stop where it would block (short, or
	 * EAGAIN before its first byte), or the filesystem refuses the flag
	 * (EOPNOTSUPP: tmpfs on 6.1 and 6.12). */
	bool nowait;
};

static bool answer_ok(struct wl_ops *s, const struct wl_op *op, __u32 index,
		      long long ret, int err, const struct answer *a)
{
	char w[96], g[96];
	bool ok =
		(a->want >= 0 ? ret == a->want
			      : ret < 0 && err == (int)-a->want) ||
		(a->has_alt_ret && ret == a->alt_ret) ||
		(a->alt && ret < 0 && err == a->alt) ||
		((a->short_ok || a->nowait) && ret > 0 && ret < a->want) ||
		(a->nowait && ret < 0 && (err == EAGAIN || err == EOPNOTSUPP));

	if (!ok) {
		if (a->want < 0)
			snprintf(w, sizeof(w), "%s fails with %s", a->call,
				 strerror((int)-a->want));
		else if (a->nowait)
			snprintf(w, sizeof(w),
				 "%s returns %lld, fewer, EAGAIN or EOPNOTSUPP",
				 a->call, a->want);
		else
			snprintf(w, sizeof(w), "%s returns %lld%s%s", a->call,
				 a->want, a->alt ? " or " : "",
				 a->alt ? strerror(a->alt) : "");
		if (ret < 0)
			snprintf(g, sizeof(g), "error %d (%s)", -err,
				 strerror(err));
		else
			snprintf(g, sizeof(g), "%lld", ret);
	}
	check(s, ok, K_ANSWER, op, index, ok ? "" : w, ok ? "" : g);
	return ok;
}

static void size_check(struct wl_ops *s, __u32 file, const struct wl_op *op,
		       __u32 index)
{
	const struct wl_ops_model *m = &s->models[file];
	struct stat st;
	char w[64], g[64];
	bool ok = !fstat(s->f[file].fd, &st) && (__u64)st.st_size == m->size;

	if (!ok) {
		snprintf(w, sizeof(w), "st_size %llu",
			 (unsigned long long)m->size);
		snprintf(g, sizeof(g), "st_size %lld", (long long)st.st_size);
	}
	check(s, ok, K_SIZE, op, index, ok ? "" : w, ok ? "" : g);
}

/* op's read as an io_uring request (read, readv over iov, or read_fixed
 * into the buffer the ring registers), on a thread and a ring of its own
 * (wl_uring__run), waited for: its result as pread(2) gives one (-1 with
 * errno). */
static ssize_t uring_read(struct wl_ops *s, int fd, const struct wl_op *op,
			  const struct iovec *iov)
{
	struct iovec one = { s->rbuf, op->len };
	struct wl_uring_req r = {
		.call = op->via == OPV_URING_READV   ? SH_URING_READV
			: op->via == OPV_URING_FIXED ? SH_URING_FIXED
						     : SH_URING_READ,
		.fd = fd,
		.iov = op->via == OPV_URING_READV ? iov : &one,
		.niov = op->via == OPV_URING_READV ? op->iovecs : 1,
		.off = op->off,
	};
	int ret = wl_uring__run(&r);

	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

/* Whether way w can run here: a ring with a registered buffer, a loop
 * device bound to file 0, a socket pair, made and undone. */
static bool way_ready(struct wl_ops *s, enum way w)
{
	char dev[PATH_MAX];
	struct iovec iov = { s->rbuf, 1 };
	struct wl_uring_req r = { .call = SH_URING_FIXED,
				  .fd = -1,
				  .iov = &iov };
	int sv[2], lfd = -1, err = 0;
	bool node = false;

	if (s->way[w].ok || s->way[w].lacking)
		return s->way[w].ok;
	switch (w) {
	case WAY_URING:
		err = wl_uring__run(&r);
		break;
	case WAY_LOOP:
		err = wl__loop_attach(s->wl, s->f[0].path, dev, sizeof(dev),
				      &lfd, &node);
		if (lfd >= 0)
			close(lfd);
		if (node)
			unlink(dev);
		break;
	default:
		err = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)
			      ? -errno
			      : 0;
		if (!err) {
			close(sv[0]);
			close(sv[1]);
		}
		break;
	}
	s->way[w].ok = !err;
	s->way[w].lacking = err != 0;
	if (err)
		wl__err(s->wl, err, "%s", way_info[w].lacks);
	return !err;
}

/*
 * op's read through a loop device bound to the file now, as big as the
 * file in whole sectors, read with O_DIRECT (op's range is in sectors,
 * the buffer page-aligned): its result as pread(2) gives one. The loop
 * worker reads the file, in a thread not of this process.
 */
static ssize_t loop_read(struct wl_ops *s, const struct ops_file *f,
			 const struct wl_op *op)
{
	char dev[PATH_MAX];
	ssize_t ret = -1;
	bool node;
	int lfd, fd, err;

	err = wl__loop_attach(s->wl, f->path, dev, sizeof(dev), &lfd, &node);
	if (err) {
		errno = -err;
		return -1;
	}
	fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	err = errno;
	if (fd >= 0) {
		ret = pread(fd, s->rbuf, op->len, (off_t)op->off);
		err = errno;
		close(fd);
	}
	close(lfd);
	if (node)
		unlink(dev);
	errno = err;
	return ret;
}

/* The piped call of a read's entry point, SH_CALL_NR for one that
 * reads into user memory. */
static enum sh_call piped_call(enum wl_op_via v)
{
	switch (v) {
	case OPV_SPLICE:
		return SH_SPLICE;
	case OPV_SENDFILE:
		return SH_SENDFILE;
	case OPV_COPY:
		return SH_COPY_RANGE;
	case OPV_SENDFILE_SOCK:
		return SH_SENDFILE_SOCK;
	default:
		return SH_CALL_NR;
	}
}

/* A read through a pipe in the kernel from off that returned ret (a
 * piped read, or a tmpfs copy): at most a pipe's worth each, with no
 * read syscall (dedupe's probes see none). */
static void count_piped(struct wl_ops *s, __u64 off, long long ret)
{
	if (s->geo.dd)
		return;
	if (ret > 0) {
		s->tot.func.calls++;
		s->tot.func.bytes += (__u64)ret;
	}
	if (ret >= 0)
		s->tot.func.calls_slack +=
			wl_piped__slack(off, (ssize_t)ret, s->page);
}

/* A read by op's entry point, checked against the model; index
 * UINT32_MAX is the final read-back's. */
static void op_read(struct wl_ops *s, const struct wl_op *op, __u32 index)
{
	struct ops_file *f = &s->f[op->file];
	const struct wl_ops_model *m = &s->models[op->file];
	bool uring = way_of(op->via) == WAY_URING;
	/* A loop device ends at the file's last whole sector. */
	__u64 end = op->via == OPV_LOOP ? m->size / 512 * 512 : m->size,
	      want = op->off < end ? min_u64(op->len, end - op->off) : 0,
	      seed = WL_POISON_BASE + (s->reads++) * 4099, x;
	enum sh_call pc = piped_call(op->via);

	if (way_of(op->via) < WAY_NR && !way_ready(s, way_of(op->via))) {
		s->way[way_of(op->via)].skipped++;
		return;
	}
	/* RWF_NOWAIT: tmpfs may refuse it (6.1 and 6.12 do), xfs reads
	 * what it has without blocking (6.12); what it returns must be
	 * right. */
	struct answer a = { .call = via_names[op->via],
			    .want = (long long)want,
			    .short_ok = pc != SH_CALL_NR,
			    .nowait = op->rwf == RWF_NOWAIT };
	struct iovec iov[MAX_IOV];
	struct wl_piped p;
	char w[96], g[128];
	ssize_t ret = -1, back = 0;
	int err = 0;

	wl__poison_fill(s->rbuf, seed, op->len + GUARD);
	for (__u32 j = 0, at = 0; j < op->iovecs; j++) {
		iov[j].iov_base = s->rbuf + at;
		iov[j].iov_len = sh__iov_len(op->len, op->iovecs, j);
		at += iov[j].iov_len;
	}
	if (pc != SH_CALL_NR) {
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s", f->path);
		*strrchr(dir, '/') = '\0';
		err = -wl_piped__open(&p, pc, op->len, dir);
		if (err) {
			wl_piped__close(&p);
			wl__err(s->wl, -err, "the output of a %s",
				via_names[op->via]);
			check(s, false, K_ANSWER, op, index, "its output made",
			      strerror(err));
			return;
		}
	}
	watch_enter(s, op, index, op->len);
	switch (op->via) {
	case OPV_READ:
		if (lseek(f->fd, (off_t)op->off, SEEK_SET) >= 0)
			ret = read(f->fd, s->rbuf, op->len);
		break;
	case OPV_PREAD:
		ret = pread(f->fd, s->rbuf, op->len, (off_t)op->off);
		break;
	case OPV_SPLICE:
	case OPV_SENDFILE:
	case OPV_SENDFILE_SOCK:
	case OPV_COPY:
		ret = wl_piped__read(&p, f->fd, s->rbuf, op->len, op->off,
				     &back);
		break;
	case OPV_URING:
	case OPV_URING_READV:
	case OPV_URING_FIXED:
		ret = uring_read(s, f->fd, op, iov);
		break;
	case OPV_LOOP:
		ret = loop_read(s, f, op);
		break;
	case OPV_PREADV2:
		ret = preadv2(f->fd, iov, (int)op->iovecs, (off_t)op->off,
			      op->rwf);
		break;
	default:
		ret = preadv(f->fd, iov, (int)op->iovecs, (off_t)op->off);
		break;
	}
	if (ret < 0)
		err = errno;
	wl_watch__leave(s->watch, 0);
	if (pc != SH_CALL_NR) {
		wl_piped__close(&p);
		if (ret >= 0 && back < 0) {
			snprintf(g, sizeof(g), "%s", strerror(errno));
			check(s, false, K_ANSWER, op, index,
			      "its bytes back from its output", g);
			return;
		}
	}
	if (pc != SH_CALL_NR)
		count_piped(s, op->off, ret);
	/* An io_uring read is one call of shmem_file_read_iter and no
	 * syscall; 6.1 reads the rest of a short one once more. */
	if (!s->geo.dd && uring) {
		s->tot.func.calls++;
		if (ret < 0)
			s->tot.func.errors++;
		else
			s->tot.func.bytes += (__u64)ret;
		if (ret > 0 && (__u64)ret < op->len)
			s->tot.func.calls_slack++;
	}
	/* A loop read is none of this process's. Every other read is one
	 * call of shmem_file_read_iter, but for a preadv2 refused for its
	 * flag, which never gets there. */
	if (!s->geo.dd && pc == SH_CALL_NR && !uring && op->via != OPV_LOOP) {
		/* EAGAIN comes from inside the read; EOPNOTSUPP before it. */
		bool refused = op->rwf && ret < 0 && err == EOPNOTSUPP;

		s->tot.func.calls += !refused;
		s->tot.func.errors += ret < 0 && !refused;
		s->tot.sys.calls++;
		if (ret < 0) {
			s->tot.sys.errors++;
		} else {
			s->tot.func.bytes += (__u64)ret;
			s->tot.sys.bytes += (__u64)ret;
		}
	}
	/* A refusal the model allows (RWF_NOWAIT) reads nothing. */
	if (!answer_ok(s, op, index, ret, err, &a) || ret < 0)
		return;
	/* [0, ret): the model's bytes; a byte still the poison was never
	 * written (a hole the kernel did not zero). */
	x = wl__first_diff(s->rbuf, m->b + op->off, (size_t)ret);
	if (x < (__u64)ret) {
		bool stale = s->rbuf[x] == wl__poison_byte(seed, x);

		snprintf(w, sizeof(w), "file offset %llu: 0x%02x",
			 (unsigned long long)(op->off + x), m->b[op->off + x]);
		snprintf(g, sizeof(g), "0x%02x%s", s->rbuf[x],
			 stale ? " (not written)" : "");
		check(s, false, stale ? K_UNWRITTEN : K_DATA, op, index, w, g);
		return;
	}
	/* [ret, len + GUARD): still this read's poison. */
	x = (__u64)ret + wl__poison_diff(s->rbuf + ret, seed + (__u64)ret,
					 op->len + GUARD - (__u64)ret);
	if (x < op->len + GUARD) {
		snprintf(w, sizeof(w), "buffer past byte %lld untouched",
			 (long long)ret);
		snprintf(g, sizeof(g), "buffer byte %llu written",
			 (unsigned long long)x);
		check(s, false, K_PAST, op, index, w, g);
		return;
	}
	check(s, true, K_DATA, op, index, "", "");
	if (op->via == OPV_READ) {
		off_t pos = lseek(f->fd, 0, SEEK_CUR);

		snprintf(w, sizeof(w), "file position %llu",
			 (unsigned long long)(op->off + (__u64)ret));
		snprintf(g, sizeof(g), "file position %lld", (long long)pos);
		check(s, (__u64)pos == op->off + (__u64)ret, "position", op,
		      index, w, g);
	}
}

/* mmap-write: the operation's range, moved inside the current size,
 * through a shared mapping, msync'd. */
static int op_mmap(struct wl_ops *s, struct ops_file *f, const struct wl_op *op,
		   __u32 index, const char **what)
{
	__u64 o, l, pg, mapend;
	unsigned char *p;
	int err = 0;

	if (!wl_ops_model__mmap_range(&s->models[op->file], op, &o, &l))
		return 0; /* an empty file has no page to map */
	pg = o / s->page * s->page;
	mapend = o + l;
	watch_enter(s, op, index, l);
	p = mmap(NULL, mapend - pg, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
		 (off_t)pg);
	if (p == MAP_FAILED) {
		err = errno;
		*what = "mmap";
		goto out;
	}
	wl__pattern_fill(p + (o - pg), o + write_tag(s->seed, index), l);
	if (msync(p, mapend - pg, MS_SYNC)) {
		err = errno;
		*what = "msync";
	}
	munmap(p, mapend - pg);
out:
	wl_watch__leave(s->watch, 0);
	return err ? -err : 0;
}

/* FIDEDUPERANGE: each destination's answer against the model's, counted
 * at every level the probes see. */
static void op_dedupe(struct wl_ops *s, const struct wl_op *op, __u32 index)
{
	const struct wl_ops_model *src = &s->models[op->file];
	struct file_dedupe_range *q = s->req;
	char w[96], g[96];
	int ret, err = 0;

	memset(q, 0, sizeof(*q) + op->ndest * sizeof(q->info[0]));
	q->src_offset = op->off;
	q->src_length = op->len;
	q->dest_count = (__u16)op->ndest;
	for (__u32 d = 0; d < op->ndest; d++) {
		q->info[d].dest_fd = s->f[op->dest[d].file].fd;
		q->info[d].dest_offset = op->dest[d].off;
	}
	watch_enter(s, op, index, op->len * op->ndest);
	ret = ioctl(s->f[op->file].fd, FIDEDUPERANGE, q);
	if (ret)
		err = -errno;
	wl_watch__leave(s->watch, 0);
	for (__u32 d = 0; d < op->ndest; d++) {
		const struct wl_ops_model *dst = &s->models[op->dest[d].file];
		struct dd_req rq = { .bs = s->geo.bs[op->file],
				     .src_size = src->size,
				     .dst_size = dst->size,
				     .src_off = op->off,
				     .dst_off = op->dest[d].off,
				     .len = op->len,
				     .same_file =
					     op->dest[d].file == op->file };
		struct dd_result res = {
			.ioctl_err = err,
			.status = err ? 0 : q->info[d].status,
			.bytes = err ? 0 : q->info[d].bytes_deduped
		};
		struct dd_expect e;
		bool ok;

		dd__geometry(&rq, &e);
		if (!e.ioctl_err && e.status == FILE_DEDUPE_RANGE_SAME &&
		    e.cmp_len &&
		    memcmp(src->b + op->off, dst->b + op->dest[d].off,
			   e.cmp_len)) {
			e.status = FILE_DEDUPE_RANGE_DIFFERS;
			e.bytes_deduped = 0;
		}
		ok = dd__answer_ok(&e, &res);
		if (!ok) {
			dd__answer(e.ioctl_err, e.status, e.bytes_deduped, w,
				   sizeof(w));
			dd__answer(res.ioctl_err, res.status, res.bytes, g,
				   sizeof(g));
			snprintf(w + strlen(w), sizeof(w) - strlen(w),
				 " (destination %u)", d);
		}
		check(s, ok, K_ANSWER, op, index, ok ? "" : w, ok ? "" : g);
		dd__count(&s->tot, op->len, &e, &res);
	}
}

/* clone and copy_file_range: the kernel's count or error against the
 * model's; then the model copies what the kernel did. */
static long long op_remap(struct wl_ops *s, const struct wl_op *op, __u32 index)
{
	struct ops_file *f = &s->f[op->file], *t = &s->f[op->dest[0].file];
	struct answer a = { .call = kind_names[op->kind] };
	__u64 alt = 0;
	long long ret;
	int err = 0;

	if (op->kind == OPK_CLONE) {
		struct file_clone_range c = { .src_fd = f->fd,
					      .src_offset = op->off,
					      .src_length = op->len,
					      .dest_offset = op->dest[0].off };

		a.want =
			wl_ops_model__clone(s->models, op, s->geo.bs[op->file]);
		watch_enter(s, op, index, op->len);
		ret = ioctl(t->fd, FICLONERANGE, &c);
	} else {
		loff_t in = (loff_t)op->off, out = (loff_t)op->dest[0].off;

		a.want = wl_ops_model__copy(s->models, op, &s->geo, &alt);
		a.alt_ret = (long long)alt;
		a.has_alt_ret = alt != 0;
		watch_enter(s, op, index, op->len);
		ret = copy_file_range(f->fd, &in, t->fd, &out, op->len, 0);
	}
	if (ret < 0)
		err = errno;
	wl_watch__leave(s->watch, 0);
	/* A wrong count is one failure: the model then follows what the
	 * kernel says it did, not to fail every read after it. */
	answer_ok(s, op, index, ret, err, &a);
	return ret;
}

/* A copy's destination range [off, off + n) of file against the model,
 * through a mapping (a page fault, no read the probes count): a copy
 * that wrote other bytes than it read fails here, at its own index. */
static void dest_check(struct wl_ops *s, __u32 file, __u64 off, __u64 n,
		       const struct wl_op *op, __u32 index)
{
	const struct wl_ops_model *m = &s->models[file];
	__u64 skip = off % s->page, x;
	char w[96], g[96];
	unsigned char *p;

	p = mmap(NULL, skip + n, PROT_READ, MAP_SHARED, s->f[file].fd,
		 (off_t)(off - skip));
	if (p == MAP_FAILED) {
		snprintf(g, sizeof(g), "%s", strerror(errno));
		check(s, false, K_ANSWER, op, index, "its destination mapped",
		      g);
		return;
	}
	x = wl__first_diff(p + skip, m->b + off, (size_t)n);
	if (x < n) {
		snprintf(w, sizeof(w), "destination offset %llu: 0x%02x",
			 (unsigned long long)(off + x), m->b[off + x]);
		snprintf(g, sizeof(g), "0x%02x", p[skip + x]);
	}
	check(s, x >= n, K_DATA, op, index, x < n ? w : "", x < n ? g : "");
	munmap(p, skip + n);
}

/* Runs one operation and checks the kernel's answers. */
static void op_run(struct wl_ops *s, const struct wl_op *op, __u32 index)
{
	struct ops_file *f = &s->f[op->file];
	struct answer a = { .call = kind_names[op->kind] };
	bool writes = op->kind == OPK_PWRITE || op->kind == OPK_WRITE;
	long long ret = 0;
	int err = 0;
	bool ok;

	s->done++;
	switch (op->kind) {
	case OPK_READ:
		op_read(s, op, index);
		return;
	case OPK_DEDUPE:
		op_dedupe(s, op, index);
		return;
	case OPK_CLONE:
	case OPK_COPY:
		ret = op_remap(s, op, index);
		wl_ops_model__apply(s->models, op, s->seed, index, ret);
		size_check(s, op->dest[0].file, op, index);
		if (op->kind == OPK_COPY && ret > 0)
			dest_check(s, op->dest[0].file, op->dest[0].off,
				   (__u64)ret, op, index);
		/* tmpfs copies through a pipe in the kernel. */
		if (op->kind == OPK_COPY)
			count_piped(s, op->off, ret);
		return;
	case OPK_MMAP:
		ret = op_mmap(s, f, op, index, &a.call);
		err = ret < 0 ? (int)-ret : 0;
		break;
	default:
		break;
	}
	if (writes)
		wl__pattern_fill(s->wbuf, op->off + write_tag(s->seed, index),
				 op->len);
	if (op->kind != OPK_MMAP)
		watch_enter(s, op, index, op->len);
	switch (op->kind) {
	case OPK_PWRITE:
		ret = pwrite(f->fd, s->wbuf, op->len, (off_t)op->off);
		break;
	case OPK_WRITE:
		ret = lseek(f->fd, (off_t)op->off, SEEK_SET) < 0
			      ? -1
			      : write(f->fd, s->wbuf, op->len);
		break;
	case OPK_TRUNCATE:
		ret = ftruncate(f->fd, (off_t)op->off);
		break;
	case OPK_FALLOC:
		ret = fallocate(f->fd, 0, (off_t)op->off, (off_t)op->len);
		break;
	case OPK_FALLOC_KEEP:
		ret = fallocate(f->fd, FALLOC_FL_KEEP_SIZE, (off_t)op->off,
				(off_t)op->len);
		break;
	case OPK_PUNCH:
		ret = fallocate(f->fd,
				FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)op->off, (off_t)op->len);
		break;
	case OPK_ZERO:
		/* tmpfs has no ZERO_RANGE: EOPNOTSUPP, nothing changed; a
		 * filesystem that zeroes must zero exactly the range. */
		ret = fallocate(f->fd, FALLOC_FL_ZERO_RANGE, (off_t)op->off,
				(off_t)op->len);
		a.alt = EOPNOTSUPP;
		break;
	default:
		break;
	}
	if (op->kind != OPK_MMAP) {
		if (ret < 0)
			err = errno;
		wl_watch__leave(s->watch, 0);
	}
	a.want = writes ? (long long)op->len : 0;
	ok = answer_ok(s, op, index, ret, err, &a);
	if (!ok && ret > 0 && writes) {
		/* A short write is one failure: the model then holds what
		 * the kernel says it wrote, not to fail every read after. */
		struct wl_op part = *op;

		part.len = (__u64)ret;
		wl_ops_model__apply(s->models, &part, s->seed, index, 0);
	} else {
		/* A refusal the model allows (ZERO_RANGE) changed nothing. */
		wl_ops_model__apply(s->models, op, s->seed, index,
				    ok && ret >= 0 ? 0 : -1);
	}
	size_check(s, op->file, op, index);
	if (op->kind == OPK_WRITE) {
		off_t pos = lseek(f->fd, 0, SEEK_CUR);
		char w[64], g[64];

		/* Where the bytes it wrote put it. */
		snprintf(w, sizeof(w), "file position %llu",
			 (unsigned long long)(op->off + (ret > 0 ? ret : 0)));
		snprintf(g, sizeof(g), "file position %lld", (long long)pos);
		check(s, ret < 0 || (__u64)pos == op->off + (__u64)ret,
		      "position", op, index, w, g);
	}
}

/* Every file read whole, and once more at its end (0 bytes). */
static void read_back(struct wl_ops *s)
{
	for (__u32 i = 0; i < NFILES; i++) {
		struct wl_op op = { .kind = OPK_READ,
				    .file = i,
				    .via = OPV_PREAD,
				    .iovecs = 1 };

		for (__u64 off = 0;; off += READBACK) {
			op.off = off;
			op.len = READBACK;
			op_read(s, &op, UINT32_MAX);
			if (off >= s->models[i].size)
				break;
		}
	}
}

/* Fresh files, models all zero. */
static int files_reset(struct wl_ops *s)
{
	for (int i = 0; i < NFILES; i++) {
		struct ops_file *f = &s->f[i];

		if (f->fd >= 0)
			close(f->fd);
		f->fd = -1;
		if (f->made && unlink(f->path) && errno != ENOENT) {
			int err = -errno;

			wl__err(s->wl, err, "remove '%s'", f->path);
			return err;
		}
		f->made = false;
		f->fd = open(f->path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC,
			     0600);
		if (f->fd < 0) {
			int err = -errno;

			wl__err(s->wl, err, "create '%s'", f->path);
			return err;
		}
		f->made = true;
		memset(s->models[i].b, 0, MAX_SIZE);
		s->models[i].size = 0;
	}
	return 0;
}

/* The operations idx[0..n) from fresh files, then the read-back. */
static void run_seq(struct wl_ops *s, const __u32 *idx, __u32 n)
{
	struct wl_op op;

	for (__u32 i = 0; i < n; i++) {
		wl_op__draw(s->seed, idx[i], &s->geo, &op);
		op_run(s, &op, idx[i]);
	}
	read_back(s);
}

int wl_ops__parse_only(const char *list, __u32 n, __u32 *idx, __u32 *count)
{
	const char *p = list;
	__u32 k = 0;
	__u64 prev = 0;

	while (*p) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || end == p || *p == '-' || v >= n ||
		    (k && v <= prev) || (*end && (*end != ',' || !end[1])))
			return -EINVAL;
		if (idx)
			idx[k] = (__u32)v;
		k++;
		prev = v;
		p = *end ? end + 1 : end;
	}
	if (count)
		*count = k;
	return k ? 0 : -EINVAL;
}

/* shmem-read: a tmpfs per file, one per huge= mode. */
static int mounts_tmpfs(struct wl_ops *s)
{
	int err = 0;

	for (int i = 0; !err && i < NFILES; i++) {
		struct ops_file *f = &s->f[i];

		err = wl__mkdtemp(s->wl, NULL, "ops", f->dir, sizeof(f->dir));
		if (err)
			break;
		/* Room for the file in 2 MiB folios, and one more. */
		err = wl__tmpfs_mount(s->wl, f->dir, huge_modes[i],
				      MAX_SIZE + MAX_LEN + 2 * WL_PMD);
		if (err)
			break;
		f->mounted = true;
		err = wl__path(f->path, sizeof(f->path), f->dir, "file");
	}
	return err;
}

/* dedupe: btrfs and xfs on loop images, two files on each. */
static int mounts_loop(struct wl_ops *s)
{
	int err = wl__check_space(s->wl,
				  getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
				  2 * ((72ULL << 20) + 4 * MAX_SIZE));

	if (!err)
		err = wl__mkdtemp(s->wl, NULL, "ops", s->tmpdir,
				  sizeof(s->tmpdir));
	for (int k = 0; !err && k < 2; k++)
		err = wl__loopfs_make(s->wl, s->tmpdir, k, k ? "xfs" : "btrfs",
				      s->geo.bs[2 * k], IMG_SIZE, &s->lfs[k]);
	for (int i = 0; !err && i < NFILES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "file%d", i);
		err = wl__path(s->f[i].path, sizeof(s->f[i].path),
			       s->lfs[s->geo.fs[i]].mnt, name);
	}
	return err;
}

int wl_ops__prepare(struct wl_ops **out, const char *wl,
		    const struct wl_opts *o)
{
	struct wl_ops *s;
	int err = 0;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		wl__err(wl, -ENOMEM, "allocate state");
		return -ENOMEM;
	}
	s->wl = wl;
	s->seed = o->seed;
	s->n = o->ops;
	s->page = (__u32)sysconf(_SC_PAGESIZE);
	s->deadline_base = o->deadline_base ?: WL_DEADLINE_BASE;
	wl_ops__geom(wl, s->seed, s->page, &s->geo);
	for (int i = 0; i < NFILES; i++)
		s->f[i].fd = -1;
	s->idx = calloc(s->n, sizeof(*s->idx));
	/* Page-aligned: loop reads take it with O_DIRECT. */
	s->rbuf = aligned_alloc(s->page,
				((READBACK > MAX_LEN ? READBACK : MAX_LEN) +
				 GUARD + s->page - 1) /
					s->page * s->page);
	s->wbuf = malloc(MAX_LEN);
	s->req = calloc(1, sizeof(*s->req) +
				   DD_MAX_DESTS * sizeof(s->req->info[0]));
	for (int i = 0; i < NFILES; i++) {
		s->models[i].b = calloc(1, MAX_SIZE);
		if (!s->models[i].b)
			err = -ENOMEM;
	}
	if (err || !s->idx || !s->rbuf || !s->wbuf || !s->req) {
		err = -ENOMEM;
		wl__err(wl, err, "allocate the files' models");
		goto fail;
	}
	if (o->ops_only) {
		err = wl_ops__parse_only(o->ops_only, s->n, s->idx, &s->nidx);
		if (err) {
			wl__err(wl, err, "--ops-only '%s'", o->ops_only);
			goto fail;
		}
	} else {
		for (__u32 i = 0; i < s->n; i++)
			s->idx[i] = i;
		s->nidx = s->n;
	}
	err = wl__check_mem(wl, "--ops", NFILES * (2 * MAX_SIZE + WL_PMD));
	if (!err)
		err = s->geo.dd ? mounts_loop(s) : mounts_tmpfs(s);
	if (!err)
		err = files_reset(s);
	if (err)
		goto fail;
	wl__err(wl, 0, "ops: seed %llu, %u operations%s%s%s",
		(unsigned long long)s->seed, s->nidx,
		o->ops_only ? " (--ops-only)" : "",
		s->geo.dd ? ", xfs bs=" : "",
		s->geo.dd ? s->geo.label[NFILES - 1] + strlen("xfs bs=") : "");
	*out = s;
	return 0;
fail:
	wl_ops__destroy(s);
	return err;
}

int wl_ops__run(struct wl_ops *s, struct fs_report *r)
{
	int err;
	__u64 t0;

	s->r = r;
	err = wl_watch__start(&s->watch, s->wl, r);
	if (err)
		return err;
	t0 = wl__now_ns();
	run_seq(s, s->idx, s->nidx);
	wl_watch__stop(s->watch);
	s->watch = NULL;
	model__kv_str(r, "mode", "ops");
	/* The sequence's own time (its read-back included), for the
	 * operations per second a machine runs. */
	model__kv_u64(r, "ops_ms", (wl__now_ns() - t0) / 1000000);
	model__kv_u64(r, "ops_seed", s->seed);
	model__kv_u64(r, "ops", s->n);
	model__kv_u64(r, "ops_run", s->done);
	for (int w = 0; w < WAY_NR; w++)
		if (s->way[w].skipped)
			model__kv_u64(r, way_info[w].kv, s->way[w].skipped);
	if (s->geo.dd) {
		model__kv_u64(r, "same", s->tot.sys.same);
		model__kv_u64(r, "differs", s->tot.sys.differs);
		model__kv_u64(r, "errors", s->tot.sys.errors);
		model__kv_u64(r, "xfs_block_size", s->geo.bs[NFILES - 1]);
	}
	if (s->failed)
		model__kv_u64(r, "ops_failed_at", s->fail_index);
	model__kv_u64(r, "validation_checks", r->validation.checks);
	model__kv_u64(r, "validation_failures", r->validation.failures);
	return 0;
}

const struct wl_totals *wl_ops__totals(const struct wl_ops *s)
{
	return &s->tot;
}

/* One shrink trial: fresh files, the sequence, its checks in a report of
 * their own; it fails as the run did with a check of the same kind. */
static bool trial_fails(void *ctx, const __u32 *idx, __u32 n)
{
	struct wl_ops *s = ctx;
	struct fs_report *r = malloc(sizeof(*r));
	bool fails;

	if (!r)
		return false;
	model__init(r);
	s->r = r;
	s->trial_failed = false;
	fails = !files_reset(s);
	if (fails) {
		run_seq(s, idx, n);
		fails = s->trial_failed;
	}
	model__free(r);
	free(r);
	return fails;
}

int wl_ops__shrink(struct wl_ops *s, struct fs_report *r)
{
	struct wl_totals saved = s->tot;
	char d[240], *cmd;
	__u32 n = 0, trials;
	size_t len, used;

	(void)r;
	if (!s->failed)
		return 0;
	/* The sequence up to the first failure (the read-back's: all). */
	for (__u32 i = 0; i < s->nidx; i++) {
		s->idx[n++] = s->idx[i];
		if (s->idx[i] == s->fail_index)
			break;
	}
	if (s->fail_index == UINT32_MAX) {
		wl__err(s->wl, 0,
			"ops: seed %llu: the read-back after %u operations "
			"FAILED (%s)",
			(unsigned long long)s->seed, n, s->kind);
	} else {
		struct wl_op op;

		wl_op__draw(s->seed, s->fail_index, &s->geo, &op);
		wl_op__describe(&op, s->fail_index, &s->geo, d, sizeof(d));
		wl__err(s->wl, 0,
			"ops: seed %llu: operation %u FAILED (%s): %s",
			(unsigned long long)s->seed, s->fail_index, s->kind, d);
	}
	s->want_kind = s->kind;
	trials = wl_shrink_seq(s->idx, &n, trial_fails, s, SHRINK_TRIALS);
	s->want_kind = NULL;
	s->tot = saved;
	len = 96 + (size_t)n * 11;
	cmd = malloc(len);
	if (!cmd)
		return 1;
	used = (size_t)snprintf(cmd, len,
				"folioscope run %s --ops %u --seed %llu "
				"--ops-only ",
				s->wl, s->n, (unsigned long long)s->seed);
	for (__u32 i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(cmd + used, len - used, "%s%u",
					 i ? "," : "", s->idx[i]);
	wl__err(s->wl, 0,
		"ops: shrunk to %u operations in %u trials; replay: %s", n,
		trials, cmd);
	free(cmd);
	for (__u32 i = 0; i < n; i++) {
		struct wl_op op;

		wl_op__draw(s->seed, s->idx[i], &s->geo, &op);
		wl_op__describe(&op, s->idx[i], &s->geo, d, sizeof(d));
		wl__err(s->wl, 0, "ops:   %s", d);
	}
	return 1;
}

void wl_ops__destroy(struct wl_ops *s)
{
	bool busy = false;

	if (!s)
		return;
	wl_watch__stop(s->watch);
	for (int i = 0; i < NFILES; i++) {
		struct ops_file *f = &s->f[i];

		if (f->fd >= 0)
			close(f->fd);
		if (f->made)
			wl__remove(s->wl, f->path, false);
		if (f->mounted && !wl__umount(s->wl, f->dir))
			f->mounted = false;
		if (!s->geo.dd && !f->mounted && f->dir[0])
			wl__remove(s->wl, f->dir, true);
		free(s->models[i].b);
	}
	for (int k = 0; k < 2; k++)
		busy |= wl__loopfs_remove(s->wl, &s->lfs[k]) != 0;
	if (s->tmpdir[0] && !busy)
		wl__remove(s->wl, s->tmpdir, true);
	free(s->idx);
	free(s->rbuf);
	free(s->wbuf);
	free(s->req);
	free(s);
}
