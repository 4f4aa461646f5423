// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Random layouts (--random N --seed S): each one a custom layout of the
 * workload, drawn over the space the matrices sample, prepared and run
 * as a workload of its own through the same code and checks. A layout
 * that fails is shrunk (shrink.c) by running smaller variants of it after
 * the traced phase, and reported as the command that replays it.
 *
 * The draws depend on the seed alone, never on the machine: a guest
 * draws what the host draws. Each layout is set up just before it runs
 * and removed right after, so a run needs the room of its largest
 * layout, not of all of them (64 xfs images of 64 MiB of log each do not
 * fit a guest's tmpfs /tmp); that room is computed from the draws and
 * checked before anything is set up. Set-up thus happens with the
 * probes attached: it makes no call they count (files are written,
 * not read; no FIDEDUPERANGE), and mkfs runs as another process.
 *
 *   dedupe      btrfs or xfs with 1024/2048/4096-byte blocks; one or
 *               consecutive ranges of any length (block multiples, tails
 *               at EOF, under a block); aligned or unaligned offsets;
 *               1 .. 16 destinations, in other files or the source's;
 *               a differing byte anywhere; cold or warm; files that end
 *               right after, past or before the ranges
 *   shmem-read  every huge= mode and fill (holes); sizes around page and
 *               2 MiB folio boundaries; read, pread, readv with 1 .. 64
 *               iovecs; request sizes from 1 byte to 3 MiB; offsets at 0,
 *               odd, near a page or folio boundary, at and past EOF;
 *               aligned and odd buffers; 1 .. 4 concurrent readers
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/rng.h"
#include "util/util.h"
#include "workload/random.h"
#include "workload/shrink.h"
#include "workload/read.h"

/* Trials to shrink one failing layout; fewer for dedupe, where each
 * makes a filesystem (seconds in an emulated guest). */
static const unsigned int shrink_trials[WL_KIND_NR] = {
	[WL_DEDUPE] = 64,
	[WL_SHMEM] = 200,
};

static void draw_shmem(struct rng *g, __u32 page, struct wl_opts *o)
{
	const __u64 P = page;
	__u64 size, bs, off, total;

	o->huge = (enum wl_huge)rng__below(g, WL_HUGE_NR);
	/* The written states here; the fallocated ones are drawn last. */
	o->fill = (enum sh_fill)rng__below(g, SH_FILL_MIXED + 1);
	switch (rng__below(g, 4)) {
	case 0: /* a few pages, ending mid-page */
		size = rng__range(g, 1, 3 * P + 100);
		break;
	case 1: /* around the first 2 MiB folio's end */
		size = WL_PMD - P + rng__range(g, 0, 2 * P);
		break;
	case 2:
		size = WL_PMD + rng__range(g, 1, MiB);
		break;
	default:
		size = 2 * WL_PMD + rng__range(g, 1, 20000);
		break;
	}
	o->size = size;
	/* read, pread or readv here; the other ways in are drawn last, so
	 * that a seed's other draws stay what they were. */
	o->way = (enum wl_way)rng__below(g, WL_WAY_READV + 1);
	o->iovecs = 1;
	if (o->way == WL_WAY_READV)
		o->iovecs = rng__pct(g, 20) ? rng__range(g, 17, FS_MAX_IOVECS)
					    : rng__range(g, 1, 16);
	switch (rng__below(g, 5)) {
	case 0: /* a few bytes a call */
		bs = rng__range(g, 1, 16);
		break;
	case 1: /* about a page */
		bs = P - 8 + rng__range(g, 0, 16);
		break;
	case 2:
		bs = P * rng__range(g, 1, 16);
		break;
	case 3:
		bs = 64 * KiB + rng__range(g, 0, 64);
		break;
	default: /* a folio or more */
		bs = rng__pct(g, 50) ? WL_PMD : 3 * MiB + 5;
		break;
	}
	o->bs = wl__max(bs, o->iovecs);
	switch (rng__below(g, 6)) {
	case 0:
		off = 0;
		break;
	case 1:
		off = rng__range(g, 1, 63);
		break;
	case 2: /* around a page boundary */
		off = P * rng__range(g, 1, 8) + rng__range(g, 0, 16) - 8;
		break;
	case 3: /* around the first folio's end */
		off = WL_PMD - rng__range(g, 0, 2 * P);
		break;
	case 4: /* the last pages: the EOF read */
		off = size - wl__min(size, rng__range(g, 0, 3 * P));
		break;
	default: /* at or past EOF */
		off = size + rng__range(g, 0, P);
		break;
	}
	o->offset = off;
	o->length = rng__pct(g, 40) ? 0 : rng__range(g, 1, 512 * KiB);
	/* Bounded calls: a small request size reads a short stretch. */
	total = off < size ? size - off : 0;
	if (o->length)
		total = wl__min(total, o->length);
	if (total / o->bs >= WL_LAYOUT_MAX_CALLS)
		o->length = o->bs * WL_LAYOUT_MAX_CALLS;
	switch (rng__below(g, 4)) {
	case 0:
		o->buf_align = 0;
		break;
	case 1:
		o->buf_align = rng__range(g, 1, 7);
		break;
	case 2:
		o->buf_align = P - 1;
		break;
	default:
		o->buf_align = rng__below(g, P);
		break;
	}
	o->readers = rng__pct(g, 25) ? rng__range(g, 2, 4) : 1;
	/* preadv2 (with an RWF flag now and then), io_uring's reads and
	 * the calls that read through a pipe (one buffer, no iovecs). */
	o->rwf = 0;
	switch (rng__below(g, 14)) {
	case 0:
		o->way = WL_WAY_PREADV2;
		o->rwf = rng__pct(g, 50)   ? 0
			 : rng__pct(g, 50) ? RWF_HIPRI
					   : RWF_NOWAIT;
		break;
	case 1:
		o->way = o->iovecs > 1 ? WL_WAY_URING_READV : WL_WAY_URING_READ;
		break;
	case 2:
		o->way = WL_WAY_URING_READV;
		break;
	case 3:
		if (o->iovecs == 1 && !o->buf_tmpfs)
			o->way = WL_WAY_URING_FIXED;
		break;
	case 4:
	case 5:
	case 6:
	case 7: {
		static const enum wl_way piped[] = {
			WL_WAY_SPLICE,	      WL_WAY_SENDFILE,
			WL_WAY_SENDFILE_SOCK, WL_WAY_COPY_RANGE,
			WL_WAY_COPY_OTHER_FS, WL_WAY_COPY_SAME,
		};

		if (o->iovecs == 1 && !o->buf_tmpfs)
			o->way = piped[rng__below(g, ARRAY_SIZE(piped))];
		/* It writes the file it reads: one reader. */
		if (wl_way__info(o->way)->same_file)
			o->readers = 1;
		break;
	}
	case 8:
		/* A loop device reads whole sectors: the request and the
		 * buffer on them. */
		if (o->iovecs == 1 && !o->buf_tmpfs) {
			o->way = WL_WAY_LOOP;
			o->bs = o->bs < 512 ? 512 : o->bs / 512 * 512;
			o->buf_align = 0;
		}
		break;
	default:
		break;
	}
	/* A fallocated file now and then, drawn last so that a seed's
	 * other draws stay what they were. */
	if (rng__pct(g, 15))
		o->fill =
			rng__pct(g, 50) ? SH_FILL_FALLOC : SH_FILL_FALLOC_KEEP;
}

static void draw_dedupe(struct rng *g, __u32 page, const struct wl_opts *base,
			struct wl_opts *o)
{
	const __u64 P = page;
	struct {
		enum wl_fstype t;
		__u32 bs;
	} fs[4];
	int nfs = 0, pick;
	__u64 b, range, span, fit;

	/* --fs and --block-size narrow the choice. */
	if (base->fstype != WL_FSTYPE_XFS &&
	    (!base->block_size || base->block_size == page))
		fs[nfs++] = (typeof(fs[0])){ WL_FSTYPE_BTRFS, 0 };
	if (base->fstype != WL_FSTYPE_BTRFS)
		for (__u32 bs = 1024; bs <= 4096; bs *= 2)
			if (bs <= page &&
			    (!base->block_size || base->block_size == bs))
				fs[nfs++] =
					(typeof(fs[0])){ WL_FSTYPE_XFS, bs };
	if (!nfs) /* refused by the workload's own checks */
		fs[nfs++] = (typeof(fs[0])){ base->fstype ?: WL_FSTYPE_BTRFS,
					     base->block_size };
	pick = (int)rng__below(g, nfs);
	o->fstype = fs[pick].t;
	o->block_size = fs[pick].bs;
	b = o->block_size ? o->block_size : P;
	o->count = rng__pct(g, 65) ? 1 : rng__range(g, 2, 8);
	if (o->count > 1) {
		/* Later ranges start at multiples of it: whole blocks. */
		range = b * rng__range(g, 1, 32);
	} else {
		switch (rng__below(g, 5)) {
		case 0:
			range = b * rng__range(g, 1, 64);
			break;
		case 1: /* a tail at EOF, or shortened to whole blocks */
			range = b * rng__range(g, 1, 16) +
				rng__range(g, 1, b - 1);
			break;
		case 2: /* under a block */
			range = rng__range(g, 1, b - 1);
			break;
		case 3:
			range = P * rng__range(g, 1, 4);
			break;
		default: /* 2 or 4 MiB, perhaps a block more */
			range = WL_PMD * rng__range(g, 1, 2) +
				(rng__pct(g, 50) ? 0 : b);
			break;
		}
	}
	o->range = range;
	span = (__u64)o->count * range;
	o->src_off = b * rng__range(g, 0, 16) + (rng__pct(g, 15) ? b / 2 : 0);
	o->dests = rng__pct(g, 50)   ? 1
		   : rng__pct(g, 80) ? rng__range(g, 2, 4)
				     : rng__range(g, 5, DD_MAX_DESTS);
	if (range > MiB)
		o->dests = wl__min(o->dests, 4);
	o->same_file = rng__pct(g, 20);
	o->dst_off_set = rng__pct(g, 60);
	o->dst_off = 0;
	if (o->dst_off_set && o->same_file)
		/* Now and then overlapping the source's ranges. */
		o->dst_off =
			rng__pct(g, 25)
				? o->src_off + b * rng__range(g, 0, 4)
				: o->src_off + span + b * rng__range(g, 0, 8);
	else if (o->dst_off_set)
		o->dst_off = b * rng__range(g, 0, 16) +
			     (rng__pct(g, 10) ? b / 2 : 0);
	o->differ = rng__pct(g, 40)
			    ? DD_DIFF_NONE
			    : (enum dd_diff)rng__range(g, 1, DD_DIFF_NR - 1);
	o->cold = rng__pct(g, 30);
	/* 0: each file ends right after its ranges (tails at EOF). */
	fit = wl__max(o->src_off, o->dst_off_set ? o->dst_off : o->src_off) +
	      (o->same_file ? (__u64)o->dests + 1 : 1) * span;
	o->file_size = 0;
	if (rng__pct(g, 15))
		o->file_size = fit + rng__range(g, 1, 2 * P);
	else if (rng__pct(g, 5))
		o->file_size = fit - wl__min(fit - 1, rng__range(g, 1, b));
}

void wl_rand__draw(__u64 seed, unsigned int index, __u32 page,
		   const struct wl_opts *base, struct wl_opts *out)
{
	struct rng g;

	/* A stream per index: seed and index mixed by one splitmix step. */
	rng__seed(&g, seed);
	rng__seed(&g, rng__next(&g) ^ ((__u64)index * 0xd1b54a32d192ed03ULL));
	*out = *base;
	out->mode = WL_MODE_LAYOUT;
	out->random = 0;
	out->inject_wrong = false;
	out->stop_after = 0;
	out->files = 0;
	if (base->kind == WL_DEDUPE)
		draw_dedupe(&g, page, base, out);
	else
		draw_shmem(&g, page, out);
}

/* Append " fmt" to buf at *len. */
static void put(char *buf, size_t n, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*len >= n)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *len, n - *len, fmt, ap);
	va_end(ap);
	if (k > 0)
		*len += (size_t)k;
}

void wl_rand__command(const struct wl_opts *o, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	put(buf, n, &len, "folioscope run %s", wl_kind__name(o->kind));
	if (o->kind == WL_DEDUPE) {
		put(buf, n, &len, " --fs %s",
		    wl_fstype__name(o->fstype ?: WL_FSTYPE_BTRFS));
		if (o->block_size)
			put(buf, n, &len, " --block-size %u", o->block_size);
		put(buf, n, &len, " --range %llu --count %u --src-off %llu",
		    (unsigned long long)o->range, o->count,
		    (unsigned long long)o->src_off);
		if (o->dst_off_set)
			put(buf, n, &len, " --dst-off %llu",
			    (unsigned long long)o->dst_off);
		put(buf, n, &len, " --dests %u", o->dests);
		if (o->same_file)
			put(buf, n, &len, " --same-file");
		if (o->differ)
			put(buf, n, &len, " --differ %s",
			    dd_diff__name(o->differ));
		if (o->cold)
			put(buf, n, &len, " --cold");
		if (o->file_size)
			put(buf, n, &len, " --file-size %llu",
			    (unsigned long long)o->file_size);
		if (o->image_size)
			put(buf, n, &len, " --image-size %llu",
			    (unsigned long long)o->image_size);
		return;
	}
	put(buf, n, &len, " --huge %s --fill %s --size %llu --syscall %s",
	    wl_huge__name(o->huge), sh_fill__name(o->fill),
	    (unsigned long long)o->size, wl_way__name(o->way));
	if (o->rwf)
		put(buf, n, &len, " --rwf %s", wl_rwf__name(o->rwf));
	put(buf, n, &len, " --iovecs %u --bs %llu --offset %llu", o->iovecs,
	    (unsigned long long)o->bs, (unsigned long long)o->offset);
	if (o->length)
		put(buf, n, &len, " --length %llu",
		    (unsigned long long)o->length);
	put(buf, n, &len, " --buf-align %llu --readers %u",
	    (unsigned long long)o->buf_align, o->readers);
	if (o->buf_tmpfs)
		put(buf, n, &len, " --buf-tmpfs");
}

/* ---- the random workload ---- */

struct layout {
	struct wl_opts o;
	void *state; /* set up while it runs */
	bool failed;
	char kind[24]; /* its first failure's, "" if not kept */
};

struct wl_random {
	const char *wl;
	/* What one layout of the workload does (its layout mode). */
	const struct wl_mode_ops *one;
	__u64 seed;
	__u64 limit_ms; /* --time-limit */
	__u32 page;
	enum wl_kind kind;
	unsigned int n;
	struct layout *l;
	struct wl_totals tot;
};

/* The largest layout must fit where it will be set up: in RAM, or where
 * its images live. */
static int check_room(const struct wl_random *rw)
{
	const char *where = getenv("TMPDIR");
	unsigned int big = 0;
	__u64 max = 0, need;
	char what[96];
	int err;

	for (unsigned int i = 0; i < rw->n; i++) {
		err = rw->one->space(&rw->l[i].o, &need);
		if (err) {
			wl__err(rw->wl, err, "random layout %u: its size", i);
			return err;
		}
		if (need > max) {
			max = need;
			big = i;
		}
	}
	if (!where || !*where)
		where = "/tmp";
	snprintf(what, sizeof(what), "random layout %u", big);
	err = rw->one->space_in_ram ? wl__check_mem(rw->wl, what, max)
				    : wl__check_space(rw->wl, where, max);
	if (err)
		wl__err(rw->wl, 0,
			"random layout %u of seed %llu, the largest, needs "
			"%llu MiB: none is set up",
			big, (unsigned long long)rw->seed,
			(unsigned long long)(max >> 20));
	return err;
}

static void sub_destroy(const struct wl_random *rw, struct layout *l)
{
	rw->one->destroy(l->state);
	l->state = NULL;
}

static void random__destroy(void *state);

static int random__prepare(void **out, const struct wl_opts *o)
{
	const char *wl = wl_kind__name(o->kind);
	struct wl_random *rw;
	char cmd[512];
	int err = 0;

	*out = NULL;
	if (!o->random || o->random > WL_RANDOM_MAX) {
		wl__err_hint(wl, -EINVAL, "(want 1 .. 256)", "--random '%u'",
			     o->random);
		return -EINVAL;
	}
	if (o->dir) {
		wl__err_hint(wl, -EINVAL,
			     "(random layouts draw their filesystem and block "
			     "size: loop images only)",
			     "--random with --dir");
		return -EINVAL;
	}
	rw = calloc(1, sizeof(*rw));
	if (rw)
		rw->l = calloc(o->random, sizeof(*rw->l));
	if (!rw || !rw->l) {
		free(rw);
		wl__err(wl, -ENOMEM, "allocate random layouts");
		return -ENOMEM;
	}
	rw->wl = wl;
	rw->one = wl_mode__ops(o->kind, WL_MODE_LAYOUT);
	rw->limit_ms = o->time_limit_ms;
	rw->seed = o->seed;
	rw->kind = o->kind;
	rw->n = o->random;
	rw->page = (__u32)sysconf(_SC_PAGESIZE);
	/* The seed and every layout first: each replays on its own. */
	wl__err(wl, 0, "random: seed %llu, %u layouts",
		(unsigned long long)rw->seed, rw->n);
	for (unsigned int i = 0; i < rw->n; i++) {
		wl_rand__draw(rw->seed, i, rw->page, o, &rw->l[i].o);
		wl_rand__command(&rw->l[i].o, cmd, sizeof(cmd));
		wl__err(wl, 0, "random layout %u: %s", i, cmd);
	}
	err = check_room(rw);
	if (err) {
		random__destroy(rw);
		return err;
	}
	*out = rw;
	return 0;
}

/* Keys every layout sets that add up over the layouts; the others
 * describe one layout (its size, its call) and are dropped. */
static const char *const sum_keys[] = {
	"calls",
	"calls_slack",
	"io_uring_calls",
	"piped_calls",
	"loop_calls",
	"bytes",
	"errors",
	"same",
	"differs",
	"ioctl_errors",
	"bytes_deduped",
	"rereads",
	"cases",
	"ioctls",
	"cold_files",
	"cold_pages_cached",
	"warm_pages_uncached",
	"shmem_huge_kb",
};

static int sum_index(const char *key)
{
	for (size_t i = 0; i < sizeof(sum_keys) / sizeof(sum_keys[0]); i++)
		if (!strcmp(key, sum_keys[i]))
			return (int)i;
	return -1;
}

/* After the layouts: the keys they set from index first on become the
 * sums, or go. */
static void merge_keys(struct fs_report *r, int first, const __u64 *sum)
{
	int out = first;

	for (int i = first; i < r->nkv; i++) {
		int k = sum_index(r->kv[i].key);

		if (k < 0 || r->kv[i].type != FS_KV_U64)
			continue;
		r->kv[out] = r->kv[i];
		r->kv[out++].u = sum[k];
	}
	r->nkv = out;
}

/* The failed checks of layout i (cases from n0 on) name it: its plan
 * or case is "random-I" instead of "custom". */
static void name_cases(struct fs_report *r, int n0, unsigned int i)
{
	for (int c = n0; c < r->validation.ncases; c++) {
		char *lay = r->validation.cases[c].layout, *at, buf[320];

		at = strstr(lay, "plan=custom ");
		if (!at)
			at = strstr(lay, "case=custom ");
		if (!at)
			continue;
		snprintf(buf, sizeof(buf), "%.*srandom-%u%s",
			 (int)(at - lay + 5), lay, i, at + 11);
		snprintf(lay, sizeof(r->validation.cases[c].layout), "%s", buf);
	}
}

static int random__run(void *state, struct fs_report *r)
{
	struct wl_random *rw = state;
	__u64 failed = 0, sum[sizeof(sum_keys) / sizeof(sum_keys[0])] = { 0 };
	__u64 until =
		rw->limit_ms ? wl__now_ns() + rw->limit_ms * 1000000ULL : 0;
	unsigned int ran = 0;
	int err = 0, first = r->nkv;

	for (unsigned int i = 0; !err && i < rw->n; i++) {
		struct layout *l = &rw->l[i];

		/* --time-limit: the layouts so far. */
		if (until && wl__now_ns() > until)
			break;
		ran++;
		__u64 f0 = r->validation.failures;
		int n0 = r->validation.ncases;
		const struct wl_totals *t;

		err = rw->one->prepare(&l->state, &l->o);
		if (err) {
			wl__err(rw->wl, 0,
				"random layout %u of seed %llu: could not be "
				"set up",
				i, (unsigned long long)rw->seed);
			break;
		}
		err = rw->one->run(l->state, r);
		for (int k = first; k < r->nkv; k++) {
			int x = sum_index(r->kv[k].key);

			if (x >= 0 && r->kv[k].type == FS_KV_U64)
				sum[x] += r->kv[k].u;
		}
		t = rw->one->totals(l->state);
		wl_totals__add(&rw->tot, t);
		sub_destroy(rw, l);
		if (r->validation.failures == f0)
			continue;
		l->failed = true;
		failed++;
		name_cases(r, n0, i);
		if (n0 < r->validation.ncases)
			snprintf(l->kind, sizeof(l->kind), "%s",
				 r->validation.cases[n0].kind);
	}
	merge_keys(r, first, sum);
	model__kv_str(r, "mode", "random");
	model__kv_u64(r, "random_seed", rw->seed);
	model__kv_u64(r, "random_layouts", rw->n);
	model__kv_u64(r, "random_ran", ran);
	model__kv_u64(r, "random_failed", failed);
	if (rw->kind == WL_SHMEM) {
		char missed[256];

		wl_ways__missed(&rw->tot, missed, sizeof(missed));
		model__kv_str(r, "ways_missed", missed);
	}
	model__kv_u64(r, "validation_checks", r->validation.checks);
	model__kv_u64(r, "validation_failures", r->validation.failures);
	return err;
}

static const struct wl_totals *random__totals(const void *state)
{
	const struct wl_random *rw = state;

	return &rw->tot;
}

struct trial {
	struct wl_random *rw;
	const char *kind;
};

/*
 * One trial: the layout as a workload of its own, its checks in a report
 * of their own; it fails as the original did when a check of the same
 * kind fails. Its lines on stderr (set-up errors of a variant the kernel
 * refuses, warnings) are not the run's: they go to /dev/null.
 */
static bool trial_fails(void *ctx, const struct wl_opts *o)
{
	struct trial *t = ctx;
	struct layout l = { .o = *o };
	struct fs_report *r = malloc(sizeof(*r));
	bool fails = false;
	int saved, null;

	if (!r)
		return false;
	model__init(r);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	if (!t->rw->one->prepare(&l.state, &l.o)) {
		if (!t->rw->one->run(l.state, r))
			for (int i = 0; i < r->validation.ncases && !fails; i++)
				fails = !t->kind[0] ||
					!strcmp(r->validation.cases[i].kind,
						t->kind);
		if (!t->kind[0] && r->validation.failures)
			fails = true;
	}
	sub_destroy(t->rw, &l);
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
	if (null >= 0)
		close(null);
	model__free(r);
	free(r);
	return fails;
}

/* Failed layouts shrunk, the first ones: each takes its trials, and a
 * bug that fails many layouts is the same bug in most of them. */
#define SHRINK_LAYOUTS 4

static void random__shrink(void *state, struct fs_report *r)
{
	struct wl_random *rw = state;
	unsigned int shrunk = 0;
	char cmd[512];

	for (unsigned int i = 0; i < rw->n; i++) {
		struct layout *l = &rw->l[i];
		struct trial t = { rw, l->kind };
		struct wl_opts o = l->o;
		unsigned int trials;

		if (!l->failed)
			continue;
		wl_rand__command(&o, cmd, sizeof(cmd));
		wl__err(rw->wl, 0,
			"random layout %u of seed %llu FAILED (%s): %s%s", i,
			(unsigned long long)rw->seed,
			l->kind[0] ? l->kind : "failure", cmd,
			shrunk == SHRINK_LAYOUTS ? " (not shrunk: the first "
						   "failed layouts were)"
						 : "");
		if (shrunk == SHRINK_LAYOUTS)
			continue;
		shrunk++;
		trials = wl_shrink(&o, rw->page, trial_fails, &t,
				   shrink_trials[o.kind]);
		wl_rand__command(&o, cmd, sizeof(cmd));
		wl__err(rw->wl, 0,
			"random layout %u shrunk in %u trials; replay: %s", i,
			trials, cmd);
		model__replay(r, cmd);
	}
}

static void random__destroy(void *state)
{
	struct wl_random *rw = state;

	if (!rw)
		return;
	for (unsigned int i = 0; rw->l && i < rw->n; i++)
		sub_destroy(rw, &rw->l[i]);
	free(rw->l);
	free(rw);
}

const struct wl_mode_ops wl_random_layouts = {
	.prepare = random__prepare,
	.run = random__run,
	.totals = random__totals,
	.shrink = random__shrink,
	.destroy = random__destroy,
};
