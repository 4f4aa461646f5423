// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sequences of operations (run shmem-read|dedupe --ops N [--seed S]),
 * the way fsx (xfstests' file system exerciser) has found bugs for
 * decades: N operations drawn from the seed (ops_draw.c) run in turn on
 * four files, and a shadow of every file, its bytes and its size
 * (ops_shadow.c), is the ground truth. shmem-read's files are on four
 * tmpfs mounts, one per huge= mode; dedupe's on two loop filesystems,
 * btrfs and xfs (its block size drawn from the seed), two files each.
 *
 * Writes land anywhere; truncates go down and up, to sizes inside a page
 * and inside a 2 MiB folio; fallocate allocates, with and without
 * KEEP_SIZE; holes are punched and ranges zeroed; pages are written
 * through a shared mapping (never past EOF in the last page: tmpfs keeps
 * such bytes and the file shows them once it grows, which mmap(2) leaves
 * unspecified). dedupe adds FIDEDUPERANGE with 1 to 16 destinations (the
 * source's own page or 64 KiB among them), FICLONERANGE and
 * copy_file_range between the files of one filesystem. Every answer is
 * checked against the shadows: counts, errors, SAME or DIFFERS, st_size;
 * every read (by the read engine, read.h, any way in) byte for byte, with
 * the bytes past its return still the buffer's poison; and every file is
 * read whole at the end. So a page tail that a truncate or a punch left
 * stale is read back once the file grows over it, and a dedupe that
 * changed what it compared is read back.
 *
 * What one operation does with the state (an mmap write inside the
 * file's current size) is decided when it runs, the same way every time:
 * a failing sequence shrinks by leaving operations out (wl_shrink_seq).
 */
#include <errno.h>
#include <fcntl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "workload/caps.h"
#include "workload/dedupe_truth.h"
#include "workload/ops_run.h"
#include "workload/pattern.h"
#include "workload/random.h"
#include "workload/shrink.h"

#define NFILES WL_OPS_NFILES
#define MAX_LEN WL_OPS_MAX_LEN
#define SHRINK_TRIALS 200
/* Racing reads whose failure stderr tells in full. */
#define RACE_TOLD 3

/* Failure kinds of the operations that change files; the reads' are the
 * read engine's, the dedupe answers' dedupe's. */
#define K_ANSWER FS_CASE_ANSWER /* a return or errno not the shadow's */
/* A store that raced a FIDEDUPERANGE into its destination is not in the
 * file afterwards (--ops --jobs, dedupe). */
#define K_LOST_STORE "lost store"
#define K_SIZE "size" /* st_size is not the shadow's size */

/* The report's key of the reads skipped for what the kernel lacks. */
static const char *const need_kv[WL_NEED_NR] = {
	[WL_NEED_URING] = "ops_uring_skipped",
	[WL_NEED_LOOP] = "ops_loop_skipped",
	[WL_NEED_SOCKET] = "ops_socket_skipped",
};

/* " over hole+written": the states of mask (nothing for none). */
static void states_text(unsigned int mask, char *buf, size_t n)
{
	size_t used = 0;

	if (!n)
		return;
	buf[0] = '\0';
	for (int st = 0; st < WL_RANGE_NR && used < n; st++)
		if (mask & (1u << st))
			used += (size_t)snprintf(buf + used, n - used, "%s%s",
						 used ? "+" : " over ",
						 wl_range_state__name(st));
}

static void layout(const struct wl_ops *s, const struct wl_op *op, __u32 index,
		   char *buf, size_t n)
{
	char d[240];

	size_t used;

	if (index == UINT32_MAX)
		snprintf(d, sizeof(d),
			 "read-back file %u (%s) by pread off %llu len %llu",
			 op->file, s->geo.label[op->file],
			 (unsigned long long)op->off,
			 (unsigned long long)op->len);
	else
		wl_op__describe(op, index, &s->geo, d, sizeof(d));
	used = (size_t)snprintf(buf, n, "ops seed=%llu %s",
				(unsigned long long)s->seed, d);
	/* A read: the states of the pages it crossed. */
	if (op->kind == OPK_READ)
		states_text(wl_shadow__states(&s->shadows[op->file], op->off,
					      op->len),
			    buf + wl__min(used, n), n - wl__min(used, n));
}

/* A check of file's, described by lay; fail_index: the operation the
 * first failure shrinks to (race: a racing reader's). */
static void check_text(struct wl_ops *s, bool ok, const char *kind, __u32 file,
		       const char *lay, const char *want, const char *got,
		       __u32 fail_index, bool race)
{
	char group[48];

	/* The groups of the other runs: a filesystem and block size, a
	 * tmpfs mount. */
	if (s->geo.kind == WL_DEDUPE)
		snprintf(group, sizeof(group), "%s bs=%u",
			 s->geo.filesys[file] ? "xfs" : "btrfs",
			 s->geo.bs[file]);
	else
		snprintf(group, sizeof(group), "tmpfs %s", s->geo.label[file]);
	pthread_mutex_lock(&s->check_lock);
	model__check_group(s->r, group);
	model__check_kind(s->r, ok, kind, lay, want, got);
	if (!ok && s->want_kind &&
	    (!strcmp(kind, s->want_kind) ||
	     /* A race's catch, replayed alone: any wrong byte. */
	     (!strcmp(s->want_kind, WL_KIND_NO_VERSION) &&
	      wl_read__kind_is_data(kind))))
		s->trial_failed = true;
	if (!ok && !s->failed) {
		s->failed = true;
		s->fail_race = race;
		s->fail_index = fail_index;
		snprintf(s->kind, sizeof(s->kind), "%s", kind);
	}
	pthread_mutex_unlock(&s->check_lock);
}

static void check(struct wl_ops *s, bool ok, const char *kind,
		  const struct wl_op *op, __u32 index, const char *want,
		  const char *got)
{
	char lay[320];

	layout(s, op, index, lay, sizeof(lay));
	check_text(s, ok, kind, op->file, lay, want, got, index, false);
}

static void describe_cur(const void *arg, char *buf, size_t n)
{
	const struct ops_reader *rd = arg;
	char d[240];

	if (!rd->id) {
		layout(rd->s, rd->cur, rd->cur_index, buf, n);
		return;
	}
	/* A racing reader's: the shadows are the mutator's to read. */
	wl_op__describe(rd->cur, rd->cur_index, &rd->s->geo, d, sizeof(d));
	snprintf(buf, n, "ops seed=%llu jobs=%u reader %u %s",
		 (unsigned long long)rd->s->seed, rd->s->jobs, rd->id, d);
}

/* rd's call begins: the watchdog's slot is the reader's own. */
static void rd_enter(struct ops_reader *rd, const struct wl_op *op, __u32 index,
		     __u64 bytes)
{
	rd->cur = op;
	rd->cur_index = index;
	wl_watch__enter(rd->s->watch, (int)rd->id,
			wl__deadline_ns(rd->s->deadline_base, bytes, 1),
			describe_cur, rd);
}

static void watch_enter(struct wl_ops *s, const struct wl_op *op, __u32 index,
			__u64 bytes)
{
	rd_enter(&s->main, op, index, bytes);
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
	const struct wl_shadow *m = &s->shadows[file];
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
/* Whether the kernel has what need n asks for, tried once (with file
 * 0 for a loop device) by way w; said on stderr when it does not. */
static bool need_ready(struct wl_ops *s, enum wl_need n, enum wl_way w)
{
	char why[160];
	bool ok;

	pthread_mutex_lock(&s->check_lock);
	if (!s->need[n].ok && !s->need[n].lacking) {
		s->need[n].ok =
			!wl_caps__way(w, s->wl, s->f[0].path, why, sizeof(why));
		s->need[n].lacking = !s->need[n].ok;
		if (s->need[n].lacking)
			wl__err(s->wl, 0,
				"%s: its reads of the sequence are skipped",
				why);
	}
	ok = s->need[n].ok;
	if (!ok)
		s->need[n].skipped++;
	pthread_mutex_unlock(&s->check_lock);
	return ok;
}

/* The truth's view of a shadow (struct wl_read_truth). */
static size_t shadow_diff(const void *ctx, __u64 off, const void *buf,
			  size_t len)
{
	const struct wl_shadow *m = ctx;

	return wl_bytes__first_diff(buf, m->b + off, len);
}

static unsigned char shadow_byte(const void *ctx, __u64 off)
{
	const struct wl_shadow *m = ctx;

	return m->b[off];
}

/* The versions' view of a racing read (struct wl_read_truth). */
static size_t view_diff(const void *ctx, __u64 off, const void *buf, size_t len)
{
	return wl_hist_view__diff(ctx, off, buf, len);
}

static unsigned char view_byte(const void *ctx, __u64 off)
{
	return wl_hist_view__byte(ctx, off);
}

static bool view_ret_ok(const struct wl_read_truth *t, ssize_t ret)
{
	return wl_hist_view__ret_ok(t->ctx, ret, t->short_ok || t->nowait);
}

static bool view_err_ok(const struct wl_read_truth *t, int err)
{
	return wl_hist_view__err_ok(t->ctx, err);
}

/* What the probes see of a read, or of a tmpfs copy_file_range (a read
 * through a pipe in the kernel), into tot: dedupe's probes see none of
 * them. */
static void count_read(struct wl_ops *s, struct wl_totals *tot, enum wl_way w,
		       int rwf, const struct wl_read_req *q,
		       const struct wl_read_res *res)
{
	if (s->geo.kind != WL_DEDUPE)
		wl_read__count(w, rwf, q, res, s->page, tot);
}

/* Debug (--inject-stuck-reader): a call that never returns, waiting in
 * the kernel on an empty pipe, as a read deadlocked by a race would. */
static void stuck_call(void)
{
	int p[2];
	char c;

	if (!pipe(p))
		(void)!read(p[0], &c, 1);
}

/* A read's check: the mutator's as every operation's; a racing
 * reader's layout says who read what when, and what ran meanwhile. */
static void rd_check(struct ops_reader *rd, bool ok, const char *kind,
		     const struct wl_op *op, __u32 index, const char *want,
		     const char *got)
{
	struct wl_ops *s = rd->s;
	const struct wl_hist_view *v = &rd->view;
	char d[200], win[1200], lay[1600], t0s[24], t1s[24];

	if (!rd->id) {
		check(s, ok, kind, op, index, want, got);
		return;
	}
	if (ok) {
		check_text(s, true, kind, op->file, "", "", "", 0, true);
		return;
	}
	wl_op__describe(op, index, &s->geo, d, sizeof(d));
	wl_hist_view__window_text(v, &s->geo, false, win, sizeof(win));
	snprintf(lay, sizeof(lay),
		 "ops seed=%llu jobs=%u reader %u %s [%s..%s ms]: %s",
		 (unsigned long long)s->seed, s->jobs, rd->id, d,
		 wl__ms_text((__s64)rd->t0, t0s, sizeof(t0s)),
		 wl__ms_text((__s64)rd->t1, t1s, sizeof(t1s)), win);
	/* The first few in full on stderr: the read, what it got, and
	 * every operation of its window with its times. */
	if (__atomic_fetch_add(&s->race_told, 1, __ATOMIC_RELAXED) <
	    RACE_TOLD) {
		pthread_mutex_lock(&s->check_lock);
		/* "ops: seed=..." as the sequences' lines say it. */
		wl__err(s->wl, 0, "ops: %s FAILED (%s): %s; expected %s",
			lay + strlen("ops "), kind, got, want);
		for (__u32 j = 0; j < v->nrecs; j++) {
			const struct wl_hist_rec *r = v->recs[j];

			wl_op__describe(&r->op, r->index, &s->geo, d,
					sizeof(d));
			wl__err(s->wl, 0, "ops:   version %llu: %s [%s..%s ms]",
				(unsigned long long)r->version, d,
				wl__ms_text((__s64)r->t0, t0s, sizeof(t0s)),
				wl__ms_text((__s64)r->t1, t1s, sizeof(t1s)));
		}
		pthread_mutex_unlock(&s->check_lock);
	}
	check_text(s, false, kind, op->file, lay, want, got, v->k1_index, true);
}

/* A read by op's way (the read engine) by rd, checked: the mutator's
 * against the shadow, its answer a check, and so are its bytes when it
 * moved some (index UINT32_MAX is the final read-back's); a racing
 * reader's against every version of the file its call could have seen. */
void ops__read(struct wl_ops *s, struct ops_reader *rd, const struct wl_op *op,
	       __u32 index)
{
	struct ops_file *f = &s->f[op->file];
	const struct wl_shadow *m = &s->shadows[op->file];
	const struct wl_way_info *wi = wl_way__info(op->way);
	const bool racing = rd->id > 0;
	__u64 k0 = 0;
	struct wl_read_truth t = {
		.short_ok = wi->seen == WL_SEEN_PIPED,
		/* RWF_NOWAIT: tmpfs may refuse it (6.1 and 6.12 do), xfs
		 * reads what it has without blocking (6.12); what it
		 * returns must be right. */
		.nowait = op->rwf == RWF_NOWAIT,
	};
	struct wl_reader_opts ro = {
		.wl = s->wl,
		.way = op->way,
		.rwf = op->rwf,
		.path = f->path,
		.fd = rd->fd[op->file],
		.bs = op->len,
		.fixed = { rd->rmem, rd->rmem_len },
		/* This thread makes piped calls too. */
		.uring_once = true,
	};
	struct wl_read_verdict v;
	struct wl_read_res res;
	struct wl_reader r;
	struct wl_read_req q;
	struct wl_rbuf b;
	char dir[PATH_MAX], w[96], g[192];
	const char *failed;
	int err;

	if (wi->need != WL_NEED_NONE && !need_ready(s, wi->need, op->way))
		return;
	if (!racing) {
		/* A loop device ends at the file's last whole sector. */
		__u64 end = wi->sectors ? m->size / 512 * 512 : m->size;

		t.want = op->off < end ? wl__min(op->len, end - op->off) : 0;
		t.diff = shadow_diff;
		t.byte = shadow_byte;
		t.ctx = m;
		/* What the read crosses: written bytes, fallocated pages,
		 * holes. */
		for (int st = 0; st < WL_RANGE_NR; st++)
			if (wl_shadow__states(m, op->off, op->len) & (1u << st))
				rd->reads_in[st]++;
	}
	/* An output file goes beside the file, on its filesystem. */
	snprintf(dir, sizeof(dir), "%s", f->path);
	*strrchr(dir, '/') = '\0';
	ro.outdir = dir;
	wl_rbuf__layout(&b, rd->rmem + s->page, op->len, op->iovecs);
	wl_rbuf__poison(&b, WL_POISON_BASE + (rd->reads++) * 4099 +
				    ((__u64)rd->id << 40));
	/* A racing read's window opens before its reader does: a loop
	 * device takes the file's size when it is bound. */
	if (racing) {
		if (!wl_hist__read_begin(&s->hist, rd->id - 1, index, &k0))
			return;
		rd->t0 = wl__now_ns() - s->hist.t_start;
	}
	err = wl_reader__open(&r, &ro, &failed);
	if (!err) {
		q = (struct wl_read_req){ .pos = op->off,
					  .len = op->len,
					  .buf = b.base,
					  .iov = b.iov,
					  .niov = op->iovecs,
					  .seek = true };
		rd_enter(rd, op, index, op->len);
		if (racing && s->inject_stuck && rd->id == 1 && !index)
			stuck_call();
		wl_reader__read(&r, &q, &res);
		wl_watch__leave(s->watch, (int)rd->id);
	}
	wl_reader__close(&r);
	if (racing) {
		struct wl_hist_view *view = &rd->view;

		rd->t1 = wl__now_ns() - s->hist.t_start;
		view->file = op->file;
		view->off = op->off;
		view->len = op->len;
		view->sector = wi->sectors ? 512 : 0;
		/* A pipe, a socket, or the pipe inside sendfile and
		 * copy_file_range: it keeps the folios it took. */
		view->holds_folios = wi->back != WL_BACK_USER;
		if (wl_hist__read_end(&s->hist, rd->id - 1, k0, view)) {
			wl_hist__read_done(&s->hist, rd->id - 1, view);
			rd_check(rd, false, WL_KIND_SETUP, op, index,
				 "the versions of the window kept",
				 strerror(ENOMEM));
			return;
		}
		rd->nreads++;
		rd->overlapped += view->k1 > view->k0;
		t.want = wl__min(op->len, view->size_k1 > op->off
						  ? view->size_k1 - op->off
						  : 0);
		t.diff = view_diff;
		t.byte = view_byte;
		t.ret_ok = view_ret_ok;
		t.err_ok = view_err_ok;
		t.ctx = view;
		t.mismatch_kind = WL_KIND_NO_VERSION;
		snprintf(w, sizeof(w),
			 "ret fits a size of %llu..%llu, each byte a version's",
			 (unsigned long long)view->size_min,
			 (unsigned long long)view->size_max);
		t.want_text = w;
	}
	if (err) {
		snprintf(g, sizeof(g), "%s: %s", failed, strerror(-err));
		rd_check(rd, false, WL_KIND_SETUP, op, index,
			 "the reader set up", g);
		goto out;
	}
	count_read(s, rd->tot, op->way, op->rwf, &q, &res);
	if (!wl_read__answer_ok(&t, &res)) {
		wl_read__check(&b, op->off, &res, &t, &v);
		rd_check(rd, false, v.kind, op, index, v.want, v.got);
		goto out;
	}
	rd_check(rd, true, K_ANSWER, op, index, "", "");
	/* A refusal the truth allows (RWF_NOWAIT) reads nothing. */
	if (res.ret < 0)
		goto out;
	if (!wl_read__check(&b, op->off, &res, &t, &v)) {
		if (racing && v.has_at) {
			char bytes[160];

			wl_hist_view__bytes_text(&rd->view, v.at, bytes,
						 sizeof(bytes));
			snprintf(g, sizeof(g), "offset %llu: got 0x%02x; %s",
				 (unsigned long long)v.at,
				 *wl_rbuf__at(&b, v.at - op->off), bytes);
			rd_check(rd, false, v.kind, op, index, v.want, g);
		} else {
			rd_check(rd, false, v.kind, op, index, v.want, v.got);
		}
		goto out;
	}
	rd_check(rd, true, WL_KIND_DATA, op, index, "", "");
	/* Zeros a drop made in a folio the way held: counted, so a run
	 * says how often the rule let bytes through. */
	for (__u64 i = 0; racing && rd->view.nheld && i < (__u64)res.ret; i++)
		rd->held_zeros += wl_hist_view__held_zeros(
			&rd->view, op->off + i, wl_rbuf__at(&b, i), 1);
	if (op->way == WL_WAY_READ) {
		off_t pos = lseek(rd->fd[op->file], 0, SEEK_CUR);

		snprintf(w, sizeof(w), "file position %llu",
			 (unsigned long long)(op->off + (__u64)res.ret));
		snprintf(g, sizeof(g), "file position %lld", (long long)pos);
		rd_check(rd, (__u64)pos == op->off + (__u64)res.ret, "position",
			 op, index, w, g);
	}
out:
	if (racing)
		wl_hist__read_done(&s->hist, rd->id - 1, &rd->view);
}

/* What op did, into the shadows: through the versions' keeper while
 * readers race. */
static void shadow_apply(struct wl_ops *s, const struct wl_op *op, __u64 seed,
			 __u32 index, long long ret)
{
	wl_hist__apply(s->racing ? &s->hist : NULL, s->shadows, op, seed, index,
		       ret);
}

/* mmap-write: the operation's range, moved inside the current size,
 * through a shared mapping, msync'd. */
static int op_mmap(struct wl_ops *s, struct ops_file *f, const struct wl_op *op,
		   __u32 index, const char **what)
{
	__u64 o, l, pg, mapend;
	unsigned char *p;
	int err = 0;

	if (!wl_shadow__mmap_range(&s->shadows[op->file], op, &o, &l))
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
	wl_pattern__fill(p + (o - pg), o + wl_op__write_tag(s->seed, index), l);
	if (msync(p, mapend - pg, MS_SYNC)) {
		err = errno;
		*what = "msync";
	}
	munmap(p, mapend - pg);
out:
	wl_watch__leave(s->watch, 0);
	return err ? -err : 0;
}

/* The answer destination d may give, e as the geometry has it: for a
 * compare, SAME or DIFFERS by the shadows' bytes, either where a racing
 * store (st, NULL: none) made each right in some state of the call. */
static bool dedupe_answer_ok(const struct wl_ops *s, const struct wl_op *op,
			     __u32 d, const struct dd_store *st,
			     const struct dd_result *res, struct dd_expect *e)
{
	const unsigned char *a = s->shadows[op->file].b + op->off;
	const unsigned char *b =
		s->shadows[op->dest[d].file].b + op->dest[d].off;
	struct dd_expect alt = *e;
	bool same_ok, differs_ok;

	if (e->ioctl_err || e->status != FILE_DEDUPE_RANGE_SAME || !e->cmp_len)
		return dd__answer_ok(e, res);
	if (st) {
		dd__store_answers(a, b, op->dest[d].off, e->cmp_len, st,
				  &same_ok, &differs_ok);
	} else {
		same_ok = !memcmp(a, b, e->cmp_len);
		differs_ok = !same_ok;
	}
	alt.status = FILE_DEDUPE_RANGE_DIFFERS;
	alt.bytes_deduped = 0;
	if (!same_ok)
		*e = alt;
	if (dd__answer_ok(e, res))
		return true;
	if (same_ok && differs_ok && dd__answer_ok(&alt, res)) {
		*e = alt;
		return true;
	}
	return false;
}

/* After a FIDEDUPERANGE that a store raced: the store is in its file
 * (read through a mapping: no read the probes count), whatever the
 * remap shared; then the shadows take it, as a version of its own. */
static void store_settle(struct wl_ops *s, const struct wl_op *op, __u32 index)
{
	const struct ops_storer *st = &s->store;
	const struct wl_shadow *m = &s->shadows[st->w.file];
	__u64 skip = st->w.off % s->page, x = st->w.len;
	struct wl_op done = st->w;
	bool lost = false;
	char lay[320], w[96], g[96], t0s[24], t1s[24];
	size_t used;
	unsigned char *p;

	layout(s, op, index, lay, sizeof(lay));
	used = strlen(lay);
	snprintf(lay + used, sizeof(lay) - used,
		 "; jobs=%u store by %s file %u off %llu len %llu [%s ms into "
		 "the ioctl's %s ms]",
		 s->jobs, st->by_mmap ? "mapping" : "pwrite", st->w.file,
		 (unsigned long long)st->w.off, (unsigned long long)st->w.len,
		 wl__ms_text((__s64)(st->t0 - st->ioctl_t0), t0s, sizeof(t0s)),
		 wl__ms_text((__s64)(st->ioctl_t1 - st->ioctl_t0), t1s,
			     sizeof(t1s)));
	if (st->ret < 0) {
		snprintf(g, sizeof(g), "%s", strerror((int)-st->ret));
		check_text(s, false, K_ANSWER, op->file, lay,
			   "the racing store's pwrite made", g, index, true);
	} else {
		p = mmap(NULL, skip + st->w.len, PROT_READ, MAP_SHARED,
			 s->f[st->w.file].fd, (off_t)(st->w.off - skip));
		if (p != MAP_FAILED) {
			x = wl_bytes__first_diff(p + skip, st->bytes,
						 (size_t)st->w.len);
			if (x < st->w.len) {
				snprintf(w, sizeof(w),
					 "file %u offset %llu: 0x%02x, the "
					 "store's",
					 st->w.file,
					 (unsigned long long)(st->w.off + x),
					 st->bytes[x]);
				snprintf(g, sizeof(g),
					 "0x%02x (before the store: 0x%02x)",
					 p[skip + x], m->b[st->w.off + x]);
				lost = !memcmp(p + skip, m->b + st->w.off,
					       st->w.len);
			}
			munmap(p, skip + st->w.len);
		} else {
			snprintf(w, sizeof(w), "the store's range mapped");
			snprintf(g, sizeof(g), "%s", strerror(errno));
			x = 0;
		}
		/* The first few on stderr too, as racing readers' are. */
		if (x < st->w.len &&
		    __atomic_fetch_add(&s->race_told, 1, __ATOMIC_RELAXED) <
			    RACE_TOLD)
			wl__err(s->wl, 0,
				"ops: %s FAILED (%s): got %s; expected %s",
				lay + strlen("ops "), K_LOST_STORE, g, w);
		check_text(s, x >= st->w.len, K_LOST_STORE, op->file, lay,
			   x < st->w.len ? w : "", x < st->w.len ? g : "",
			   index, true);
	}
	/* A pwrite that wrote less: the shadow holds what it wrote. A
	 * store lost whole is one failure: its bytes were a version, and
	 * then the file went back to the bytes before it, which the shadow
	 * keeps, not to fail every read after it. */
	done.len = st->ret > 0 ? (__u64)st->ret : 0;
	if (lost)
		wl_hist__apply_lost(&s->hist, s->shadows, &done, s->seed,
				    index);
	else
		shadow_apply(s, &done, s->seed, index, done.len ? 0 : -1);
	ops__store_done(s);
}

/* FIDEDUPERANGE: each destination's answer against the shadow's, counted
 * at every level the probes see; with --jobs, a store into a destination
 * races it (ops_store.c). */
static void op_dedupe(struct wl_ops *s, const struct wl_op *op, __u32 index)
{
	const struct wl_shadow *src = &s->shadows[op->file];
	struct file_dedupe_range *q = s->req;
	struct dd_expect ex[DD_MAX_DESTS];
	__u64 cmp_len[DD_MAX_DESTS], pick[DD_MAX_DESTS], t0, t1;
	__u32 equal = 0;
	struct dd_store ds = { 0 };
	char w[96], g[96], lay[320];
	bool store;
	int ret, err = 0;

	memset(q, 0, sizeof(*q) + op->ndest * sizeof(q->info[0]));
	q->src_offset = op->off;
	q->src_length = op->len;
	q->dest_count = (__u16)op->ndest;
	for (__u32 d = 0; d < op->ndest; d++) {
		const struct wl_shadow *dst = &s->shadows[op->dest[d].file];
		struct dd_req rq = { .bs = s->geo.bs[op->file],
				     .src_size = src->size,
				     .dst_size = dst->size,
				     .src_off = op->off,
				     .dst_off = op->dest[d].off,
				     .len = op->len,
				     .same_file =
					     op->dest[d].file == op->file };

		q->info[d].dest_fd = s->f[op->dest[d].file].fd;
		q->info[d].dest_offset = op->dest[d].off;
		dd__geometry(&rq, &ex[d]);
		cmp_len[d] = !ex[d].ioctl_err && ex[d].status ==
							 FILE_DEDUPE_RANGE_SAME
				     ? ex[d].cmp_len
				     : 0;
	}
	/* A store raced into ranges that are equal: their remap is what
	 * must keep it out. Only where a store can race. */
	for (__u32 d = 0; s->racing && d < op->ndest; d++)
		if (op->dest[d].file != op->file && cmp_len[d] &&
		    !memcmp(src->b + op->off,
			    s->shadows[op->dest[d].file].b + op->dest[d].off,
			    cmp_len[d]))
			equal |= 1U << d;
	for (__u32 d = 0; d < op->ndest; d++)
		pick[d] = !equal || equal & (1U << d) ? cmp_len[d] : 0;
	store = s->racing && ops__store_arm(s, op, index, pick);
	if (store) {
		/* Written back first: the remap's own writeback then has
		 * nothing to wait for, and its compare comes early in the
		 * ioctl, where the store's delay can find it. Only the
		 * timing changes: the bytes are the same. */
		fdatasync(s->f[op->file].fd);
		fdatasync(s->f[s->store.w.file].fd);
		ds = (struct dd_store){ .off = s->store.w.off,
					.len = s->store.w.len,
					.bytes = s->store.bytes,
					.torn = s->store.by_mmap };
		wl_hist__begin(&s->hist, &s->store.w, index);
	}
	watch_enter(s, op, index, op->len * op->ndest);
	if (store)
		ops__store_go(s);
	t0 = wl__now_ns();
	ret = ioctl(s->f[op->file].fd, FIDEDUPERANGE, q);
	if (ret)
		err = -errno;
	t1 = wl__now_ns();
	wl_watch__leave(s->watch, 0);
	if (s->racing)
		ops__store_wait(s, store, t0, t1);
	for (__u32 d = 0; d < op->ndest; d++) {
		struct dd_result res = {
			.ioctl_err = err,
			.status = err ? 0 : q->info[d].status,
			.bytes = err ? 0 : q->info[d].bytes_deduped
		};
		struct dd_expect e = ex[d];
		bool raced = store && op->dest[d].file == s->store.w.file;
		bool ok = dedupe_answer_ok(s, op, d, raced ? &ds : NULL, &res,
					   &e);

		if (!ok) {
			dd__answer(e.ioctl_err, e.status, e.bytes_deduped, w,
				   sizeof(w));
			dd__answer(res.ioctl_err, res.status, res.bytes, g,
				   sizeof(g));
			snprintf(w + strlen(w), sizeof(w) - strlen(w),
				 " (destination %u%s)", d,
				 raced ? ", a store raced it" : "");
		}
		/* A raced destination's answer is the race's: shrinking
		 * replays the sequence alone first, as for a racing
		 * reader's. */
		layout(s, op, index, lay, sizeof(lay));
		check_text(s, ok, K_ANSWER, op->file, lay, ok ? "" : w,
			   ok ? "" : g, index, raced);
		if (store && d == s->store.dest && equal & (1U << d) && !err &&
		    (res.status == FILE_DEDUPE_RANGE_SAME ||
		     res.status == FILE_DEDUPE_RANGE_DIFFERS))
			ops__store_saw(s,
				       res.status == FILE_DEDUPE_RANGE_DIFFERS);
		dd__count_answer(&s->tot, op->len, &e, &res);
	}
	if (store)
		store_settle(s, op, index);
}

/* clone and copy_file_range: the kernel's count or error against the
 * shadow's; then the shadow copies what the kernel did. */
static long long op_remap(struct wl_ops *s, const struct wl_op *op, __u32 index)
{
	struct ops_file *f = &s->f[op->file], *t = &s->f[op->dest[0].file];
	struct answer a = { .call = wl_op_kind__name(op->kind) };
	__u64 alt = 0;
	long long ret;
	int err = 0;

	if (op->kind == OPK_CLONE) {
		struct file_clone_range c = { .src_fd = f->fd,
					      .src_offset = op->off,
					      .src_length = op->len,
					      .dest_offset = op->dest[0].off };

		a.want = wl_shadow__clone(s->shadows, op, s->geo.bs[op->file]);
		watch_enter(s, op, index, op->len);
		ret = ioctl(t->fd, FICLONERANGE, &c);
	} else {
		loff_t in = (loff_t)op->off, out = (loff_t)op->dest[0].off;

		a.want = wl_shadow__copy(s->shadows, op, &s->geo, &alt);
		a.alt_ret = (long long)alt;
		a.has_alt_ret = alt != 0;
		watch_enter(s, op, index, op->len);
		ret = copy_file_range(f->fd, &in, t->fd, &out, op->len, 0);
	}
	if (ret < 0)
		err = errno;
	wl_watch__leave(s->watch, 0);
	/* A wrong count is one failure: the shadow then follows what the
	 * kernel says it did, not to fail every read after it. */
	answer_ok(s, op, index, ret, err, &a);
	return ret;
}

/* A copy's destination range [off, off + n) of file against the shadow,
 * through a mapping (a page fault, no read the probes count): a copy
 * that wrote other bytes than it read fails here, at its own index. */
static void dest_check(struct wl_ops *s, __u32 file, __u64 off, __u64 n,
		       const struct wl_op *op, __u32 index)
{
	const struct wl_shadow *m = &s->shadows[file];
	__u64 skip = off % s->page, x;
	char w[96], g[96];
	unsigned char *p;

	p = mmap(NULL, skip + n, PROT_READ, MAP_SHARED, s->f[file].fd,
		 (off_t)(off - skip));
	if (p == MAP_FAILED) {
		snprintf(g, sizeof(g), "%s", strerror(errno));
		check(s, false, WL_KIND_READ_BACK, op, index,
		      "its destination mapped", g);
		return;
	}
	x = wl_bytes__first_diff(p + skip, m->b + off, (size_t)n);
	if (x < n) {
		snprintf(w, sizeof(w), "destination offset %llu: 0x%02x",
			 (unsigned long long)(off + x), m->b[off + x]);
		snprintf(g, sizeof(g), "0x%02x", p[skip + x]);
	}
	check(s, x >= n, WL_KIND_DATA, op, index, x < n ? w : "",
	      x < n ? g : "");
	munmap(p, skip + n);
}

/*
 * Before a fallocate of tmpfs: len bytes of stale memory written into an
 * unnamed file of the file's mount and freed, so that a kernel that
 * hands the fallocate pages it does not zero hands out these, which a
 * read then finds (kind stale). Best effort: a mount too full for it
 * just allocates from elsewhere.
 */
static void stale_free(struct wl_ops *s, const struct ops_file *f, __u64 len)
{
	int fd;

	if (s->geo.kind == WL_DEDUPE)
		return;
	fd = open(f->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	wl_stale__fill(s->wbuf, MAX_LEN);
	for (__u64 off = 0; off < len; off += MAX_LEN)
		if (wl__pwrite_full(fd, s->wbuf, wl__min(MAX_LEN, len - off),
				    off))
			break;
	close(fd);
}

/* A staged dedupe's writes (wl_op__stage), each checked as a pwrite is
 * and applied to the shadows as one (a version of its own while readers
 * race). */
static void op_stage(struct wl_ops *s, const struct wl_op *op, __u32 index)
{
	struct wl_op w[WL_STAGE_MAX_WRITES];
	__u32 n = wl_op__stage(op, s->seed, index, &s->geo, w);

	for (__u32 i = 0; i < n; i++) {
		struct answer a = { .call = "pwrite",
				    .want = (long long)w[i].len };
		long long ret;
		int err = 0;

		wl_pattern__fill(s->wbuf, w[i].base, w[i].len);
		if (s->racing)
			wl_hist__begin(&s->hist, &w[i], index);
		watch_enter(s, op, index, w[i].len);
		ret = pwrite(s->f[w[i].file].fd, s->wbuf, w[i].len,
			     (off_t)w[i].off);
		if (ret < 0)
			err = errno;
		wl_watch__leave(s->watch, 0);
		answer_ok(s, op, index, ret, err, &a);
		/* A short write: the shadow holds what it wrote. */
		w[i].len = ret > 0 ? (__u64)ret : 0;
		shadow_apply(s, &w[i], s->seed, index, w[i].len ? 0 : -1);
		size_check(s, w[i].file, op, index);
	}
}

/* Before op's calls: the page cache its filesystem drops around the
 * ranges it may change (xfs, struct wl_ops_geom's inval_unit), for the
 * racing reads that hold folios. */
static void op_inval(struct wl_ops *s, const struct wl_op *op)
{
	__u32 n = op->kind == OPK_DEDUPE ? op->ndest : 1;

	if (!s->racing)
		return;
	switch (op->kind) {
	case OPK_PUNCH:
	case OPK_ZERO:
		wl_hist__inval(&s->hist, op->file, op->off, op->off + op->len,
			       s->geo.inval_unit[op->file]);
		break;
	case OPK_CLONE:
	case OPK_COPY:
	case OPK_DEDUPE:
		for (__u32 d = 0; d < n; d++)
			wl_hist__inval(&s->hist, op->dest[d].file,
				       op->dest[d].off,
				       op->dest[d].off + op->len,
				       s->geo.inval_unit[op->dest[d].file]);
		break;
	default:
		break;
	}
}

/* Runs one operation and checks the kernel's answers. */
static void op_run(struct wl_ops *s, const struct wl_op *op, __u32 index)
{
	struct ops_file *f = &s->f[op->file];
	struct answer a = { .call = wl_op_kind__name(op->kind) };
	bool writes = op->kind == OPK_PWRITE || op->kind == OPK_WRITE;
	long long ret = 0;
	int err = 0;
	bool ok;

	s->done++;
	/* Its calls begin: a racing read that returns after this may see
	 * what they did. */
	if (s->racing)
		wl_hist__begin(&s->hist, op, index);
	switch (op->kind) {
	case OPK_READ:
		ops__read(s, &s->main, op, index);
		return;
	case OPK_DEDUPE:
		op_stage(s, op, index);
		op_inval(s, op);
		op_dedupe(s, op, index);
		return;
	case OPK_CLONE:
	case OPK_COPY:
		op_inval(s, op);
		ret = op_remap(s, op, index);
		shadow_apply(s, op, s->seed, index, ret);
		size_check(s, op->dest[0].file, op, index);
		if (op->kind == OPK_COPY && ret > 0)
			dest_check(s, op->dest[0].file, op->dest[0].off,
				   (__u64)ret, op, index);
		/* tmpfs copies through a pipe in the kernel: within the file
		 * the way copy_file_range-same-file, to another tmpfs
		 * copy_file_range-other-fs, which reaches no read where the
		 * kernel refuses it (EXDEV), as the matrix's plan is skipped.
		 */
		if (op->kind == OPK_COPY && ret >= 0) {
			struct wl_read_req q = { .pos = op->off };
			struct wl_read_res res = { .made = true, .ret = ret };

			count_read(s, &s->tot,
				   op->dest[0].file == op->file
					   ? WL_WAY_COPY_SAME
					   : WL_WAY_COPY_OTHER_FS,
				   0, &q, &res);
		}
		return;
	case OPK_MMAP:
		ret = op_mmap(s, f, op, index, &a.call);
		err = ret < 0 ? (int)-ret : 0;
		break;
	default:
		break;
	}
	if (writes)
		wl_pattern__fill(s->wbuf,
				 op->off + wl_op__write_tag(s->seed, index),
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
		stale_free(s, f, op->len);
		ret = fallocate(f->fd, 0, (off_t)op->off, (off_t)op->len);
		break;
	case OPK_FALLOC_KEEP:
		stale_free(s, f, op->len);
		ret = fallocate(f->fd, FALLOC_FL_KEEP_SIZE, (off_t)op->off,
				(off_t)op->len);
		break;
	case OPK_PUNCH:
		op_inval(s, op);
		ret = fallocate(f->fd,
				FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)op->off, (off_t)op->len);
		break;
	case OPK_ZERO:
		op_inval(s, op);
		/* tmpfs has no ZERO_RANGE: EOPNOTSUPP, nothing changed; a
		 * filesystem that has it (btrfs, xfs) must zero exactly the
		 * range, and refusing it there is a wrong answer. */
		ret = fallocate(f->fd, FALLOC_FL_ZERO_RANGE, (off_t)op->off,
				(off_t)op->len);
		a.alt = s->geo.no_zero_range[op->file] ? EOPNOTSUPP : 0;
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
	if (op->kind == OPK_ZERO && ok)
		(ret < 0 ? s->zero_refused : s->zeroed)[op->file]++;
	if (!ok && ret > 0 && writes) {
		/* A short write is one failure: the shadow then holds what
		 * the kernel says it wrote, not to fail every read after. */
		struct wl_op part = *op;

		part.len = (__u64)ret;
		shadow_apply(s, &part, s->seed, index, 0);
	} else {
		/* A refusal the shadow allows (ZERO_RANGE) changed nothing. */
		shadow_apply(s, op, s->seed, index, ok && ret >= 0 ? 0 : -1);
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
				    .way = WL_WAY_PREAD,
				    .iovecs = 1 };

		for (__u64 off = 0;; off += OPS_READBACK) {
			op.off = off;
			op.len = OPS_READBACK;
			ops__read(s, &s->main, &op, UINT32_MAX);
			if (off >= s->shadows[i].size)
				break;
		}
	}
}

static void run_seq(struct wl_ops *s, const __u32 *idx, __u32 n)
{
	struct wl_op op;

	for (__u32 i = 0; i < n; i++) {
		/* --time-limit: the operations so far, then the read-back. */
		if (s->until_ns && wl__now_ns() > s->until_ns)
			break;
		wl_op__draw(s->seed, idx[i], &s->geo, &op);
		op_run(s, &op, idx[i]);
	}
	/* The racing readers and the second mutator stop: the read-back is
	 * exact. */
	if (s->racing) {
		ops__store_stop(s);
		ops__race_stop(s);
	}
	read_back(s);
}

/* The ZERO_RANGE operations per filesystem (ops_zeroed_xfs: zeroed,
 * ops_zero_refused_tmpfs: refused as allowed), so that a suite sees them
 * done where the filesystem has it, not only accepted. */
static void zero_kv(const struct wl_ops *s, struct fs_report *r)
{
	/* dedupe: btrfs (filesys 0) and xfs (1); shmem-read: tmpfs. */
	static const char *const fs[2][2] = { { "tmpfs", NULL },
					      { "btrfs", "xfs" } };
	const int dd = s->geo.kind == WL_DEDUPE;
	__u64 done[2] = { 0 }, refused[2] = { 0 };
	char key[40];

	for (__u32 i = 0; i < NFILES; i++) {
		int k = dd ? s->geo.filesys[i] : 0;

		done[k] += s->zeroed[i];
		refused[k] += s->zero_refused[i];
	}
	for (int k = 0; k < 2 && fs[dd][k]; k++) {
		snprintf(key, sizeof(key), "ops_zeroed_%s", fs[dd][k]);
		model__kv_u64(r, key, done[k]);
		snprintf(key, sizeof(key), "ops_zero_refused_%s", fs[dd][k]);
		model__kv_u64(r, key, refused[k]);
	}
}

static int ops__run(void *state, struct fs_report *r)
{
	struct wl_ops *s = state;
	int err;
	__u64 t0;

	s->r = r;
	err = wl_watch__start(&s->watch, s->wl, r);
	if (err)
		return err;
	t0 = wl__now_ns();
	s->until_ns = s->limit_ms ? t0 + s->limit_ms * 1000000ULL : 0;
	/* --repeat K: the same sequence K times from fresh files, the
	 * readers' timing different each time: a race's catch rate. */
	for (__u32 k = 0; !err && k < s->repeat; k++) {
		__u64 before = r->validation.failures;

		if (k)
			err = ops__files_reset(s);
		if (!err && s->jobs > 1)
			err = ops__race_start(s);
		if (!err && s->jobs > 1 && s->geo.kind == WL_DEDUPE) {
			err = ops__store_start(s);
			if (err)
				ops__race_stop(s);
		}
		if (err)
			break;
		run_seq(s, s->idx, s->nidx);
		s->repeats_run++;
		s->repeats_failed += r->validation.failures > before;
	}
	/* A schedule that cannot be written is said; the run's verdicts
	 * still stand and are reported. */
	if (!err && s->schedule_path)
		ops__schedule_write(s, s->schedule_path);
	if (err) {
		wl_watch__stop(s->watch);
		s->watch = NULL;
		return err;
	}
	/* Shrink trials replay what ran, whatever the time, alone. */
	s->until_ns = 0;
	wl_watch__stop(s->watch);
	s->watch = NULL;
	model__kv_str(r, "mode", "ops");
	if (s->jobs > 1) {
		model__kv_u64(r, "ops_jobs", s->jobs);
		/* The racing readers' reads, and those whose window held
		 * more than one version of the files. */
		model__kv_u64(r, "race_reads", s->race_reads);
		model__kv_u64(r, "race_reads_overlapped", s->race_overlapped);
		/* Bytes read as zeros that only a page-cache drop around a
		 * change (xfs) explains, through a pipe or a socket. */
		model__kv_u64(r, "race_held_zeros", s->race_held_zeros);
	}
	if (s->jobs > 1 && s->geo.kind == WL_DEDUPE) {
		/* The second mutator's stores into dedupes' destinations:
		 * made, through a mapping, begun while their ioctl ran. */
		model__kv_u64(r, "race_stores", s->race_stores);
		model__kv_u64(r, "race_stores_mapped", s->race_stores_mapped);
		model__kv_u64(r, "race_stores_inside", s->race_stores_inside);
	}
	if (s->repeat > 1) {
		/* The runs of the sequence, and those with a failure. */
		model__kv_u64(r, "ops_repeat", s->repeats_run);
		model__kv_u64(r, "ops_repeats_failed", s->repeats_failed);
	}
	/* The sequence's own time (its read-back included), for the
	 * operations per second a machine runs. */
	model__kv_u64(r, "ops_ms", (wl__now_ns() - t0) / 1000000);
	model__kv_u64(r, "ops_seed", s->seed);
	model__kv_u64(r, "ops", s->n);
	model__kv_u64(r, "ops_run", s->done);
	if (s->geo.kind == WL_SHMEM) {
		char missed[256];

		wl_ways__missed(&s->tot, missed, sizeof(missed));
		model__kv_str(r, "ways_missed", missed);
	}
	for (int st = 0; st < WL_RANGE_NR; st++) {
		char key[40];

		snprintf(key, sizeof(key), "ops_reads_%s",
			 wl_range_state__name(st));
		model__kv_u64(r, key, s->main.reads_in[st]);
	}
	for (size_t n = 0; n < WL_NEED_NR; n++)
		if (s->need[n].skipped)
			model__kv_u64(r, need_kv[n], s->need[n].skipped);
	zero_kv(s, r);
	if (s->geo.kind == WL_DEDUPE) {
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

static const struct wl_totals *ops__totals(const void *state)
{
	const struct wl_ops *s = state;

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
	fails = !ops__files_reset(s);
	if (fails) {
		run_seq(s, idx, n);
		fails = s->trial_failed;
	}
	model__free(r);
	free(r);
	return fails;
}

/* After the traced phase: the first failure's sequence shrunk, printed
 * with its replay command. */
static void ops__shrink(void *state, struct fs_report *r)
{
	struct wl_ops *s = state;
	struct wl_totals saved = s->tot;
	char d[240], *cmd;
	__u32 n = 0, trials;
	size_t len, used;

	if (!s->failed)
		return;
	/* Trials have deadlines too: one that never returns is a timeout
	 * in the report, which is then written as it stands. */
	if (wl_watch__start(&s->watch, s->wl, r))
		s->watch = NULL;
	/* The sequence up to the first failure (the read-back's: all). */
	for (__u32 i = 0; i < s->nidx; i++) {
		s->idx[n++] = s->idx[i];
		if (s->idx[i] == s->fail_index)
			break;
	}
	if (s->fail_race) {
		wl__err(s->wl, 0,
			"ops: seed %llu: a race FAILED (%s) by operation %u "
			"of %u",
			(unsigned long long)s->seed, s->kind, s->fail_index,
			s->n);
		/* Shrinking replays alone: first, does it fail alone? */
		s->want_kind = s->kind;
		if (!trial_fails(s, s->idx, n)) {
			char again[160];

			s->want_kind = NULL;
			s->tot = saved;
			/* With its schedule, the same reads at the same
			 * points of the sequence. */
			snprintf(again, sizeof(again),
				 "folioscope run %s --ops %u --seed %llu "
				 "--jobs %u%s%s",
				 s->wl, s->n, (unsigned long long)s->seed,
				 s->jobs, s->schedule_path ? " --replay " : "",
				 s->schedule_path ? s->schedule_path : "");
			wl__err(s->wl, 0,
				"ops: the %u operations up to it run alone, "
				"without readers%s, pass: the failure needs "
				"the "
				"race, not shrunk; run again: %s",
				n, s->geo.kind == WL_DEDUPE ? " or stores" : "",
				again);
			model__replay(r, again);
			wl_watch__stop(s->watch);
			s->watch = NULL;
			return;
		}
		wl__err(s->wl, 0,
			"ops: the operations up to it fail alone too: "
			"shrinking without readers");
	} else if (s->fail_index == UINT32_MAX) {
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
	wl_watch__stop(s->watch);
	s->watch = NULL;
	s->tot = saved;
	len = 96 + (size_t)n * 11;
	cmd = malloc(len);
	if (!cmd)
		return;
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
	model__replay(r, cmd);
	free(cmd);
	for (__u32 i = 0; i < n; i++) {
		struct wl_op op;

		wl_op__draw(s->seed, s->idx[i], &s->geo, &op);
		wl_op__describe(&op, s->idx[i], &s->geo, d, sizeof(d));
		wl__err(s->wl, 0, "ops:   %s", d);
	}
}

const struct wl_mode_ops wl_op_sequences = {
	.prepare = ops__prepare,
	.run = ops__run,
	.totals = ops__totals,
	.shrink = ops__shrink,
	.destroy = ops__destroy,
};
