// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The versions of --ops' files while readers race the operations
 * (ops_history.h): the mutator's records, the readers' windows, and the
 * verdict on what a read returned against every version of its window.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/ops_history.h"
#include "workload/workload_internal.h"

#define NONE UINT64_MAX

int wl_hist__init(struct wl_history *h, struct wl_shadow *files, __u32 nfiles,
		  __u64 keep_max)
{
	memset(h, 0, sizeof(*h));
	h->files = files;
	h->nfiles = nfiles;
	h->keep_max = keep_max;
	h->t_start = wl__now_ns();
	h->first = 1;
	for (int i = 0; i < WL_HIST_READERS; i++)
		h->active[i] = NONE;
	if (pthread_mutex_init(&h->lock, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&h->cond, NULL)) {
		pthread_mutex_destroy(&h->lock);
		return -ENOMEM;
	}
	return 0;
}

static void rec_free(struct wl_hist_rec *r)
{
	if (r)
		free(r->old);
	free(r);
}

void wl_hist__free(struct wl_history *h)
{
	for (int i = 0; i < WL_HIST_READERS; i++) {
		free(h->sched[i].read);
		free(h->sched[i].k0);
	}
	for (__u32 i = 0; i < h->nrec; i++)
		rec_free(h->rec[i]);
	free(h->rec);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	memset(h, 0, sizeof(*h));
}

bool wl_hist__changes_files(const struct wl_op *op)
{
	return op->kind != OPK_READ && op->kind != OPK_DEDUPE;
}

/* The bytes op may change, from the shadows before it (ret as
 * wl_shadow__apply takes it): [*lo, *hi) of *file, whose size it may
 * change too. A superset is harmless: the old bytes of a byte it left
 * are the new ones. */
static void changes(const struct wl_shadow *files, const struct wl_op *op,
		    long long ret, __u32 *file, __u64 *lo, __u64 *hi)
{
	const struct wl_shadow *m = &files[op->file];
	__u64 end = op->off + op->len, o = 0, l = 0;

	*file = op->file;
	*lo = *hi = 0;
	if (ret < 0)
		return;
	switch (op->kind) {
	case OPK_PWRITE:
	case OPK_WRITE:
		*lo = op->off;
		*hi = end;
		break;
	case OPK_TRUNCATE:
		/* Down: the bytes past the new size become zeros. */
		if (op->off < m->size) {
			*lo = op->off;
			*hi = m->size;
		}
		break;
	case OPK_ZERO:
	case OPK_PUNCH:
		if (op->off < m->size) {
			*lo = op->off;
			*hi = wl__min(end, m->size);
		}
		break;
	case OPK_MMAP:
		if (wl_shadow__mmap_range(m, op, &o, &l)) {
			*lo = o;
			*hi = o + l;
		}
		break;
	case OPK_CLONE:
	case OPK_COPY:
		*file = op->dest[0].file;
		*lo = op->dest[0].off;
		*hi = *lo + (op->kind == OPK_CLONE ? op->len : (__u64)ret);
		break;
	default: /* fallocate changes a size only */
		break;
	}
	*hi = wl__min(*hi, WL_OPS_MAX_SIZE);
	*lo = wl__min(*lo, *hi);
}

/* Free the records no reader can need: those of versions up to the
 * oldest window's first (a new window starts at the newest). Locked. */
static void collect(struct wl_history *h)
{
	__u64 keep_from = h->committed, drop;

	for (int i = 0; i < WL_HIST_READERS; i++)
		if (h->active[i] < keep_from)
			keep_from = h->active[i];
	/* Records of versions first .. keep_from go. */
	if (keep_from < h->first)
		return;
	drop = wl__min(keep_from - h->first + 1, h->nrec);
	for (__u64 i = 0; i < drop; i++) {
		h->kept_bytes -= h->rec[i]->hi - h->rec[i]->lo;
		rec_free(h->rec[i]);
	}
	memmove(h->rec, h->rec + drop, (h->nrec - drop) * sizeof(*h->rec));
	h->nrec -= (__u32)drop;
	h->first += drop;
}

int wl_hist__sched_add(struct wl_history *h, __u32 reader, __u32 read, __u64 k0)
{
	struct wl_hist_sched *c = &h->sched[reader];

	if (c->n == c->cap) {
		__u32 cap = c->cap ? 2 * c->cap : 256;
		__u32 *r = realloc(c->read, cap * sizeof(*r));
		__u64 *k;

		if (!r)
			return -ENOMEM;
		c->read = r;
		k = realloc(c->k0, cap * sizeof(*k));
		if (!k)
			return -ENOMEM;
		c->k0 = k;
		c->cap = cap;
	}
	c->read[c->n] = read;
	c->k0[c->n++] = k0;
	return 0;
}

bool wl_hist__sched_next(struct wl_history *h, __u32 reader, __u32 *read)
{
	const struct wl_hist_sched *c = &h->sched[reader];
	bool more;

	pthread_mutex_lock(&h->lock);
	more = c->pos < c->n;
	if (more)
		*read = c->read[c->pos];
	pthread_mutex_unlock(&h->lock);
	return more;
}

void wl_hist__sched_skip(struct wl_history *h, __u32 reader)
{
	pthread_mutex_lock(&h->lock);
	if (h->sched[reader].pos < h->sched[reader].n)
		h->sched[reader].pos++;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

/* A replay: a reader has a read due at the newest version, which must
 * begin before the next operation does. Locked. */
static bool read_due(const struct wl_history *h)
{
	for (int i = 0; h->replay && i < WL_HIST_READERS; i++) {
		const struct wl_hist_sched *c = &h->sched[i];

		if (c->pos < c->n && c->k0[c->pos] <= h->committed)
			return true;
	}
	return false;
}

void wl_hist__begin(struct wl_history *h, const struct wl_op *op, __u32 index)
{
	if (!h || !wl_hist__changes_files(op))
		return;
	pthread_mutex_lock(&h->lock);
	/* Bounded memory: wait for the readers to let records go; and in a
	 * replay, for the reads due first. */
	while (h->kept_bytes > h->keep_max || read_due(h))
		pthread_cond_wait(&h->cond, &h->lock);
	h->cur = *op;
	h->cur_index = index;
	h->cur_t0 = wl__now_ns() - h->t_start;
	h->started++;
	pthread_mutex_unlock(&h->lock);
}

static void no_memory(void)
{
	/* A reader cannot be judged, and a wrong verdict is worse than
	 * none. */
	fprintf(stderr, "folioscope: ops: out of memory for the versions of "
			"the files\n");
	abort();
}

/* Room for one more record, or none. */
static void rec_room(struct wl_history *h)
{
	struct wl_hist_rec **grown;
	__u32 cap = h->cap ? 2 * h->cap : 64;

	if (h->nrec < h->cap)
		return;
	grown = realloc(h->rec, cap * sizeof(*grown));
	if (!grown)
		no_memory();
	h->rec = grown;
	h->cap = cap;
}

/* op's record, its bytes into the shadows; h->lock held. */
static struct wl_hist_rec *apply_locked(struct wl_history *h,
					struct wl_shadow *files,
					const struct wl_op *op, __u64 seed,
					__u32 index, long long ret)
{
	struct wl_hist_rec *r = calloc(1, sizeof(*r));

	if (!r)
		no_memory();
	changes(files, op, ret, &r->file, &r->lo, &r->hi);
	r->old = r->hi > r->lo ? malloc(r->hi - r->lo) : NULL;
	if (r->hi > r->lo && !r->old)
		no_memory();
	rec_room(h);
	r->version = h->started;
	r->index = index;
	r->op = *op;
	r->old_size = files[r->file].size;
	if (r->old)
		memcpy(r->old, files[r->file].b + r->lo, r->hi - r->lo);
	wl_shadow__apply(files, op, seed, index, ret);
	r->new_size = files[r->file].size;
	r->t0 = h->cur_t0;
	r->t1 = wl__now_ns() - h->t_start;
	h->kept_bytes += r->hi - r->lo;
	h->rec[h->nrec++] = r;
	h->committed = r->version;
	return r;
}

void wl_hist__apply(struct wl_history *h, struct wl_shadow *files,
		    const struct wl_op *op, __u64 seed, __u32 index,
		    long long ret)
{
	if (!h || !wl_hist__changes_files(op)) {
		wl_shadow__apply(files, op, seed, index, ret);
		return;
	}
	pthread_mutex_lock(&h->lock);
	apply_locked(h, files, op, seed, index, ret);
	collect(h);
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

void wl_hist__apply_lost(struct wl_history *h, struct wl_shadow *files,
			 const struct wl_op *op, __u64 seed, __u32 index)
{
	struct wl_hist_rec *a, *b = calloc(1, sizeof(*b));

	if (!b)
		no_memory();
	/* Both under one hold of the lock: no read begins between them. */
	pthread_mutex_lock(&h->lock);
	a = apply_locked(h, files, op, seed, index, 0);
	*b = *a;
	b->old = a->hi > a->lo ? malloc(a->hi - a->lo) : NULL;
	if (a->hi > a->lo && !b->old)
		no_memory();
	rec_room(h);
	if (b->old) {
		memcpy(b->old, files[a->file].b + a->lo, a->hi - a->lo);
		memcpy(files[a->file].b + a->lo, a->old, a->hi - a->lo);
	}
	b->version = ++h->started;
	h->kept_bytes += b->hi - b->lo;
	h->rec[h->nrec++] = b;
	h->committed = b->version;
	collect(h);
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

void wl_hist__inval(struct wl_history *h, __u32 file, __u64 lo, __u64 hi,
		    __u32 unit)
{
	struct wl_hist_inval *in;

	if (!h || !unit || hi <= lo)
		return;
	pthread_mutex_lock(&h->lock);
	in = &h->inval[h->ninval % WL_HIST_INVALS];
	in->file = file;
	in->lo = lo / unit * unit;
	in->hi = (hi + unit - 1) / unit * unit;
	h->ninval++;
	pthread_mutex_unlock(&h->lock);
}

void wl_hist__stop(struct wl_history *h)
{
	pthread_mutex_lock(&h->lock);
	/* A replay's reads due at the last version begin first. */
	while (read_due(h))
		pthread_cond_wait(&h->cond, &h->lock);
	__atomic_store_n(&h->stop, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

bool wl_hist__read_begin(struct wl_history *h, __u32 reader, __u32 read,
			 __u64 *k0)
{
	struct wl_hist_sched *c = &h->sched[reader];
	bool go;

	pthread_mutex_lock(&h->lock);
	/* A replay: once the version it began after is made. */
	while (h->replay && !h->stop && c->pos < c->n &&
	       h->committed < c->k0[c->pos])
		pthread_cond_wait(&h->cond, &h->lock);
	go = !h->stop ||
	     (h->replay && c->pos < c->n && c->k0[c->pos] <= h->committed);
	*k0 = h->committed;
	if (go) {
		h->active[reader] = *k0;
		h->inval_at[reader] = h->ninval;
		if (h->replay && c->pos < c->n)
			c->pos++;
		if (h->record && wl_hist__sched_add(h, reader, read, *k0))
			h->record = false; /* out of memory: no schedule */
	}
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	return go;
}

static const struct wl_hist_rec *rec_of(const struct wl_history *h, __u64 k)
{
	return k >= h->first && k - h->first < h->nrec ? h->rec[k - h->first]
						       : NULL;
}

/* The drops of v's file begun since the reader's call began, for a way
 * that holds folios. Locked. */
static void held_drops(const struct wl_history *h, __u32 reader,
		       struct wl_hist_view *v)
{
	__u64 from = h->inval_at[reader];

	v->nheld = 0;
	v->held_lost = false;
	if (!v->holds_folios)
		return;
	if (h->ninval - from > WL_HIST_INVALS) {
		v->held_lost = true;
		return;
	}
	for (__u64 i = from; i < h->ninval; i++) {
		const struct wl_hist_inval *in = &h->inval[i % WL_HIST_INVALS];

		if (in->file != v->file)
			continue;
		if (v->nheld == WL_HIST_HELD) {
			v->held_lost = true;
			return;
		}
		v->held[v->nheld].lo = in->lo;
		v->held[v->nheld++].hi = in->hi;
	}
}

int wl_hist__read_end(struct wl_history *h, __u32 reader, __u64 k0,
		      struct wl_hist_view *v)
{
	__u64 k1;
	__u32 k1_index;

	pthread_mutex_lock(&h->lock);
	/* The operation begun before the call returned: wait for what it
	 * did. */
	k1 = h->started;
	/* The operation of version k1 is the one begun last. */
	k1_index = k1 ? h->cur_index : 0;
	while (h->committed < k1)
		pthread_cond_wait(&h->cond, &h->lock);
	held_drops(h, reader, v);
	pthread_mutex_unlock(&h->lock);
	v->k1_index = k1_index;
	return wl_hist__view(h, k0, k1, v);
}

int wl_hist__view(struct wl_history *h, __u64 k0, __u64 k1,
		  struct wl_hist_view *v)
{
	const struct wl_shadow *m;
	__u64 kn, copy;

	pthread_mutex_lock(&h->lock);
	v->k0 = k0;
	v->k1 = k1;
	kn = h->committed;
	m = &h->files[v->file];
	/* The newest bytes, then back to version k1 below. */
	copy = v->off < WL_OPS_MAX_SIZE
		       ? wl__min(v->len, WL_OPS_MAX_SIZE - v->off)
		       : 0;
	memcpy(v->base, m->b + v->off, copy);
	memset(v->base + copy, 0, v->len - copy);
	v->size_k1 = m->size;
	v->nrecs = 0;
	if (kn - k0 > v->cap) {
		const struct wl_hist_rec **grown =
			realloc(v->recs, (kn - k0) * sizeof(*grown));

		if (!grown) {
			pthread_mutex_unlock(&h->lock);
			return -ENOMEM;
		}
		v->recs = grown;
		v->cap = (__u32)(kn - k0);
	}
	/* Records of k0 + 1 .. kn: kept while the reader is active. */
	for (__u64 k = k0 + 1; k <= kn; k++)
		v->recs[v->nrecs++] = rec_of(h, k);
	pthread_mutex_unlock(&h->lock);
	/* Undo kn .. k1 + 1: the bytes and size of version k1. */
	for (__u64 k = kn; k > v->k1; k--) {
		const struct wl_hist_rec *r = v->recs[k - k0 - 1];
		__u64 lo, hi;

		if (r->file != v->file)
			continue;
		v->size_k1 = r->old_size;
		lo = wl__max(r->lo, v->off);
		hi = wl__min(r->hi, v->off + v->len);
		if (lo < hi)
			memcpy(v->base + (lo - v->off), r->old + (lo - r->lo),
			       hi - lo);
	}
	v->nrecs = (__u32)(v->k1 - k0);
	v->size_min = v->size_max = v->size_k1;
	for (__u32 i = 0; i < v->nrecs; i++) {
		const struct wl_hist_rec *r = v->recs[i];

		if (r->file != v->file)
			continue;
		v->size_min = wl__min(v->size_min, r->old_size);
		v->size_max = wl__max(v->size_max, r->old_size);
	}
	return 0;
}

void wl_hist__read_done(struct wl_history *h, __u32 reader,
			struct wl_hist_view *v)
{
	(void)v;
	pthread_mutex_lock(&h->lock);
	h->active[reader] = NONE;
	collect(h);
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

bool wl_hist_view__ret_ok(const struct wl_hist_view *v, ssize_t ret,
			  bool short_ok)
{
	__u64 smin = v->size_min, smax = v->size_max, end;

	if (v->sector) {
		smin = smin / v->sector * v->sector;
		smax = smax / v->sector * v->sector;
	}
	if (ret < 0 || (__u64)ret > v->len)
		return false;
	end = v->off + (__u64)ret;
	/* Nothing: the read began at or past an end it saw. */
	if (!ret)
		return smin <= v->off;
	/* Never past the largest end of the window. */
	if (end > smax)
		return false;
	/* Short: it stopped at or past an end it saw (a size that dropped
	 * under it, or one a write was still raising), or a pipe's worth
	 * ended. */
	return (__u64)ret == v->len || short_ok || smin <= end;
}

/* A loop device's read that the file's end, shrunk since the device was
 * bound, cut short. */
static bool loop_cut(const struct wl_hist_view *v)
{
	return v->sector &&
	       v->size_min / v->sector * v->sector < v->off + v->len;
}

bool wl_hist_view__err_ok(const struct wl_hist_view *v, int err)
{
	/* lo_complete_rq: a short read of the backing file that read
	 * nothing ends the rest of the request with BLK_STS_IOERR. */
	return err == EIO && loop_cut(v);
}

/* The byte at off in the version before record r, if r changed it. */
static bool rec_old(const struct wl_hist_rec *r, __u32 file, __u64 off,
		    unsigned char *b)
{
	if (!r || r->file != file || off < r->lo || off >= r->hi)
		return false;
	*b = r->old[off - r->lo];
	return true;
}

/* A zero at off that a drop held by the read's way explains. */
static bool held_zero(const struct wl_hist_view *v, __u64 off)
{
	for (__u32 j = 0; j < v->nheld; j++)
		if (off >= v->held[j].lo && off < v->held[j].hi)
			return true;
	return false;
}

/* Whether some version of the window held b at off. */
static bool version_byte(const struct wl_hist_view *v, __u64 off,
			 unsigned char b)
{
	/* lo_read_simple: a short read of the backing file zero-fills the
	 * whole request, the bytes it read before included. Past the
	 * smallest end, what a loop device returns is not judged: see
	 * docs/validation.md. */
	bool seen = b == v->base[off - v->off] ||
		    (loop_cut(v) && (!b || off >= v->size_min));
	unsigned char old;

	for (__u32 j = 0; !seen && j < v->nrecs; j++)
		seen = rec_old(v->recs[j], v->file, off, &old) && old == b;
	return seen;
}

size_t wl_hist_view__diff(const struct wl_hist_view *v, __u64 off,
			  const unsigned char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!version_byte(v, off + i, buf[i]) &&
		    (buf[i] || !held_zero(v, off + i)))
			return i;
	return n;
}

size_t wl_hist_view__held_zeros(const struct wl_hist_view *v, __u64 off,
				const unsigned char *buf, size_t n)
{
	size_t held = 0;

	for (size_t i = 0; v->nheld && i < n; i++)
		held += !buf[i] && held_zero(v, off + i) &&
			!version_byte(v, off + i, 0);
	return held;
}

unsigned char wl_hist_view__byte(const struct wl_hist_view *v, __u64 off)
{
	return v->base[off - v->off];
}

void wl_hist_view__bytes_text(const struct wl_hist_view *v, __u64 off,
			      char *buf, size_t n)
{
	size_t used;

	if (!n)
		return;
	used = (size_t)snprintf(buf, n, "version %llu: 0x%02x",
				(unsigned long long)v->k1,
				wl_hist_view__byte(v, off));
	for (__u32 j = v->nrecs; j-- > 0 && used < n;) {
		const struct wl_hist_rec *r = v->recs[j];
		unsigned char b;

		if (rec_old(r, v->file, off, &b))
			used += (size_t)snprintf(
				buf + used, n - used, ", before #%u %s: 0x%02x",
				r->index, wl_op_kind__name(r->op.kind), b);
	}
}

void wl_hist_view__window_text(const struct wl_hist_view *v,
			       const struct wl_ops_geom *geo, bool all,
			       char *buf, size_t n)
{
	char t0s[24], t1s[24];
	size_t used;
	__u32 mine = 0;

	if (!n)
		return;
	for (__u32 j = 0; j < v->nrecs; j++)
		mine += v->recs[j]->file == v->file;
	used = (size_t)snprintf(buf, n, "versions %llu..%llu%s",
				(unsigned long long)v->k0,
				(unsigned long long)v->k1,
				all    ? ""
				: mine ? " by "
				       : ", none of this file's");
	for (__u32 j = 0; j < v->nrecs && used < n; j++) {
		const struct wl_hist_rec *r = v->recs[j];
		char d[160];

		if (!all) {
			/* Short: the operations on this file. */
			if (r->file == v->file)
				used += (size_t)snprintf(
					buf + used, n - used, "%s#%u %s",
					used && buf[used - 1] != ' ' ? ", "
								     : "",
					r->index, wl_op_kind__name(r->op.kind));
			continue;
		}
		wl_op__describe(&r->op, r->index, geo, d, sizeof(d));
		used += (size_t)snprintf(
			buf + used, n - used, "; %s [%s..%s ms]", d,
			wl__ms_text((__s64)r->t0, t0s, sizeof(t0s)),
			wl__ms_text((__s64)r->t1, t1s, sizeof(t1s)));
	}
}
