// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dedupe workload: FIDEDUPERANGE over ranges whose contents the tool wrote
 * itself (vfs_dedupe_file_range_compare), so it knows every answer:
 *
 *   default   one layout from the options: --count ranges of --range bytes
 *             from --src-off of one file to --dst-off of --dests files (or
 *             of the same file), optionally differing in one byte, cold
 *   --matrix  the default matrix (dedupe_plans.c) on btrfs and on xfs with
 *             4096, 1024 and 2048 byte blocks, so that offsets sit at
 *             different places inside a page
 *   --files   the seed's workload: N identical files, deduped against the
 *             first, with totals
 *
 * Each destination's status and bytes_deduped is one check; after the
 * traced ioctls every compared range is read back from disk and must still
 * hold what was written (one check per range).
 *
 * The files live on fresh loop-mounted btrfs/xfs images, or in a temp dir
 * under --dir when that is on btrfs or xfs (dedupe_setup.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/statvfs.h>

#include "workload/dedupe.h"
#include "workload/pattern.h"

#define WL DD_WL
/* A destination (or source) whose bytes the dedupe replaced. */
#define DD_KIND_DATA_CHANGED "data changed"

static int open_file(const struct dedupe *d, int i, int flags)
{
	char path[PATH_MAX];
	int fd;

	if (dedupe__file_path(d, i, path, sizeof(path)))
		return -ENAMETOOLONG;
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The layout of the ioctl in flight (wl_watch_describe_fn). */
static void describe(const void *arg, char *buf, size_t n)
{
	const struct dedupe *d = arg;

	dd__layout(&d->plan, d->cur_case, d->cur_k, 0, buf, n);
}

/* The traced phase of one case: its ioctls, nothing else but open/close. */
static int run_case(struct dedupe *d, int ci)
{
	const struct dd_case *c = &d->plan.cases[ci];
	struct file_dedupe_range_info *info = d->req->info;
	int fds[DD_MAX_DESTS + 1], err = 0, file = c->src;
	unsigned int j, nfd = 0;

	fds[nfd] = open_file(d, c->src, O_RDONLY);
	if (fds[nfd] < 0) {
		err = fds[nfd];
		goto cleanup;
	}
	nfd++;
	for (j = 0; j < c->ndest; j++, nfd++) {
		file = c->dest[j].file;
		fds[nfd] = open_file(d, file, O_RDWR);
		if (fds[nfd] < 0) {
			err = fds[nfd];
			goto cleanup;
		}
	}
	for (__u32 k = 0; k < c->count; k++) {
		struct dd_result *res =
			&d->got[d->first[ci] + (size_t)k * c->ndest];
		int ret;

		memset(d->req, 0, sizeof(*d->req) + c->ndest * sizeof(*info));
		d->req->src_offset = c->src_off + (__u64)k * c->len;
		d->req->src_length = c->len;
		d->req->dest_count = c->ndest;
		for (j = 0; j < c->ndest; j++) {
			info[j].dest_fd = fds[1 + j];
			info[j].dest_offset =
				c->dest[j].off + (__u64)k * c->len;
		}
		d->cur_case = c;
		d->cur_k = k;
		wl_watch__enter(
			d->watch, 0,
			wl__deadline_ns(d->deadline_base, c->len * c->ndest, 1),
			describe, d);
		ret = ioctl(fds[0], FIDEDUPERANGE, d->req) ? -errno : 0;
		wl_watch__leave(d->watch, 0);
		for (j = 0; j < c->ndest; j++) {
			res[j].ioctl_err = ret;
			res[j].status = ret ? 0 : info[j].status;
			res[j].bytes = ret ? 0 : info[j].bytes_deduped;
		}
	}
cleanup:
	while (nfd)
		close(fds[--nfd]);
	/* A filesystem made read-only (or full) under the run: the cases
	 * left cannot run, which says nothing about the kernel. */
	if (dedupe__env_err(err)) {
		dedupe__env_note(d, err, file);
		return err;
	}
	if (err)
		wl__err(WL, err, "open the files of case '%s'", c->name);
	return err;
}

static void layout(const struct dedupe *d, const struct dd_case *c, __u32 k,
		   unsigned int j, const char *extra, char *buf, size_t n)
{
	size_t len;

	dd__layout(&d->plan, c, k, j, buf, n);
	len = strlen(buf);
	snprintf(buf + len, n - len, "%s%s", extra,
		 d->inject && c == d->plan.cases && !k && !j
			 ? " injected=wrong-expectation"
			 : "");
}

/*
 * Read [off, off + len) of file i back and compare it with what was
 * written. Returns the number of bytes that differ (0: unchanged), or
 * -errno; *where and the bytes tell about the first difference, *last
 * is the last byte that differs.
 */
static __s64 read_back(struct dedupe *d, int i, __u64 off, __u64 len,
		       __u64 *where, __u64 *last, unsigned char *want,
		       unsigned char *got)
{
	const struct dd_file *f = &d->plan.files[i];
	__s64 bad = 0;
	int fd, err = 0;

	if (off >= f->size)
		return 0;
	if (len > f->size - off)
		len = f->size - off;
	fd = open_file(d, i, O_RDONLY);
	if (fd < 0)
		return fd;
	/* From disk, not from pages the dedupe left behind. */
	posix_fadvise(fd, off, len, POSIX_FADV_DONTNEED);
	while (len) {
		size_t n = len < DD_READ_CHUNK ? len : DD_READ_CHUNK, x;

		err = wl__pread_full(fd, d->buf[1], n, off);
		if (err)
			break;
		dd_file__fill(f, off, d->buf[0], n);
		x = wl_bytes__first_diff(d->buf[0], d->buf[1], n);
		if (x < n && !bad) {
			*where = off + x;
			*want = d->buf[0][x];
			*got = d->buf[1][x];
		}
		/* Every byte that was replaced, and the last of them. */
		for (; x < n; x++) {
			if (d->buf[0][x] == d->buf[1][x])
				continue;
			bad++;
			*last = off + x;
		}
		off += n;
		len -= n;
	}
	close(fd);
	return err ? err : bad;
}

static void check_read_back(struct dedupe *d, struct fs_report *r,
			    const struct dd_case *c, __u32 k, unsigned int j,
			    bool src, __u64 *rereads)
{
	int file = src ? c->src : c->dest[j].file;
	__u64 off = (src ? c->src_off : c->dest[j].off) + (__u64)k * c->len;
	__u64 len = c->len < DD_CAP ? c->len : DD_CAP, where = 0, last = 0;
	unsigned char want = 0, got = 0;
	char lay[320], msg[96];
	__s64 bad;

	bad = read_back(d, file, off, len, &where, &last, &want, &got);
	(*rereads)++;
	if (bad < 0)
		snprintf(msg, sizeof(msg), "read error: %s", strerror(-bad));
	else if (bad)
		snprintf(msg, sizeof(msg),
			 "%lld bytes replaced in [%llu, %llu]; at %llu: want "
			 "0x%02x, got 0x%02x",
			 (long long)bad, (unsigned long long)where,
			 (unsigned long long)last, (unsigned long long)where,
			 want, got);
	else
		snprintf(msg, sizeof(msg), "as written");
	layout(d, c, k, j, src ? " reread=src" : " reread=dst", lay,
	       sizeof(lay));
	/* Data the dedupe replaced is the worst outcome there is: a kind
	 * of its own, apart from a wrong answer. */
	model__check_kind(r, bad == 0,
			  bad > 0 ? DD_KIND_DATA_CHANGED : FS_CASE_ANSWER, lay,
			  "as written", msg);
}

/*
 * Record an environment fault of the traced phase in the report; a
 * filesystem found read-only now was remounted during the run (it was
 * written in prepare), even if no answer showed it.
 */
static void note_disturbed(struct dedupe *d, struct fs_report *r,
			   __u64 unjudged)
{
	char why[PATH_MAX + 96];
	struct statvfs sv;

	for (int i = 0; !d->env_err && i < d->plan.nfilesys; i++) {
		const char *dir =
			d->m[i].loop.mounted ? d->m[i].loop.mnt : d->m[i].work;

		if (!statvfs(dir, &sv) && (sv.f_flag & ST_RDONLY)) {
			d->env_err = -EROFS;
			d->env_filesys = i;
		}
	}
	if (!dedupe__env_why(d, d->env_filesys, d->env_err, why, sizeof(why)))
		return;
	model__disturbed(r, unjudged, "%s during the run", why);
}

/* Case ci's group of layouts: its filesystem and block size. */
static void group_name(const struct dedupe *d, int ci, char *name, size_t n)
{
	const struct dd_plan *p = &d->plan;
	int fsi = p->files[p->cases[ci].src].filesys;

	snprintf(name, n, "%s bs=%u", wl_fstype__name(p->filesys[fsi].type),
		 p->filesys[fsi].bs);
}

/* Case ci ran: was it its filesystem's last? Then that group ends. */
static void group_done(const struct dedupe *d, int ci)
{
	const struct dd_plan *p = &d->plan;
	int fsi = p->files[p->cases[ci].src].filesys;
	char name[32];

	if (!d->group_end || (ci + 1 < p->ncases &&
			      p->files[p->cases[ci + 1].src].filesys == fsi))
		return;
	group_name(d, ci, name, sizeof(name));
	d->group_end(d->group_ctx, wl_fstype__name(p->filesys[fsi].type), name);
}

static int dedupe__run(void *state, struct fs_report *r)
{
	struct dedupe *d = state;
	const struct dd_plan *p = &d->plan;
	__u64 same = 0, differs = 0, errors = 0, ioctl_errors = 0, ioctls = 0,
	      deduped = 0;
	__u64 rereads = 0, unjudged = 0;
	char lay[320], want[96], got[96], fsl[64] = "", bsl[64] = "";
	char group[32];
	int err = 0, first_err = 0;

	/* A kernel call that never returns still ends the run with a
	 * verdict (watch.c). */
	err = wl_watch__start(&d->watch, WL, r);
	if (err) {
		wl__err(WL, err, "start the watchdog");
		return err;
	}
	/* Traced phase: the ioctls (and open/close), nothing else. */
	for (int c = 0; !err && c < p->ncases; c++) {
		/* A timeout the watchdog finds is this group's failure. */
		group_name(d, c, group, sizeof(group));
		model__check_group(r, group);
		err = run_case(d, c);
		if (!err)
			d->ncases_run = c + 1;
		group_done(d, c);
		/* --stop-after: files closed, so a test may remount now. */
		if (!err && d->stop_after && (__u64)c + 1 == d->stop_after)
			raise(SIGSTOP);
	}
	wl_watch__stop(d->watch);
	d->watch = NULL;
	if (err && !d->env_err)
		return err;
	for (int c = d->ncases_run; c < p->ncases; c++)
		unjudged += (__u64)p->cases[c].count * p->cases[c].ndest;

	/* Checks, then the read-back: dedupe must never change data. */
	for (int ci = 0; ci < d->ncases_run; ci++) {
		const struct dd_case *c = &p->cases[ci];

		group_name(d, ci, group, sizeof(group));
		model__check_group(r, group);
		for (__u32 k = 0; k < c->count; k++) {
			bool src_read = false;

			ioctls++;
			for (unsigned int j = 0; j < c->ndest; j++) {
				size_t i =
					d->first[ci] + (size_t)k * c->ndest + j;
				const struct dd_expect *e = &d->want[i];
				const struct dd_result *g = &d->got[i];
				bool ok = dd__answer_ok(e, g);
				int gerr = g->ioctl_err ?: g->status;

				dd__count_answer(&d->tot, c->len, e, g);
				/* Full or read-only under the run: no verdict
				 * on the kernel, and nothing to read back. */
				if (!ok &&
				    dedupe__env_err(gerr < 0 ? gerr : 0)) {
					dedupe__env_note(d, gerr,
							 c->dest[j].file);
					unjudged++;
					errors++;
					continue;
				}
				if (g->ioctl_err)
					ioctl_errors++;
				if (g->ioctl_err || g->status < 0)
					errors++;
				else if (g->status == FILE_DEDUPE_RANGE_SAME)
					same++;
				else
					differs++;
				deduped += g->bytes;
				if (!first_err && !ok)
					first_err = g->ioctl_err ?: g->status;
				layout(d, c, k, j, "", lay, sizeof(lay));
				dd__answer(e->ioctl_err, e->status,
					   e->bytes_deduped, want,
					   sizeof(want));
				dd__answer(g->ioctl_err, g->status, g->bytes,
					   got, sizeof(got));
				model__check(r, ok, lay, want, got);
				if (g->ioctl_err || g->status < 0)
					continue;
				if (!src_read)
					check_read_back(d, r, c, k, j, true,
							&rereads);
				src_read = true;
				check_read_back(d, r, c, k, j, false, &rereads);
			}
		}
	}
	note_disturbed(d, r, unjudged);
	/* The matrix expects some errors; only a surprise one gets a hint. */
	if (first_err == -EOPNOTSUPP)
		wl__err_hint(WL, first_err, "(xfs needs reflink=1)",
			     "FIDEDUPERANGE");
	for (int i = 0; i < p->nfilesys; i++) {
		size_t n = strlen(fsl), m = strlen(bsl);

		snprintf(fsl + n, sizeof(fsl) - n, "%s%s", i ? "," : "",
			 wl_fstype__name(p->filesys[i].type));
		snprintf(bsl + m, sizeof(bsl) - m, "%s%u", i ? "," : "",
			 p->filesys[i].bs);
	}
	model__kv_str(r, "mode", d->mode);
	model__kv_str(r, "fs", fsl);
	model__kv_str(r, "block_sizes", bsl);
	if (p->ncases == 1) {
		model__kv_u64(r, "range", p->cases[0].len);
		model__kv_u64(r, "count", p->cases[0].count);
		model__kv_u64(r, "dests", p->cases[0].ndest);
	}
	if (!strcmp(d->mode, "seed")) {
		model__kv_u64(r, "files", p->nfiles);
		model__kv_u64(r, "file_size", p->files[0].size);
	}
	model__kv_u64(r, "cases", p->ncases);
	model__kv_u64(r, "ioctls", ioctls);
	/* Function-level totals; run replaces them with what its plan's
	 * level sees (workload__totals). */
	model__kv_u64(r, "calls", d->tot.func.calls);
	model__kv_u64(r, "bytes", d->tot.func.bytes);
	model__kv_u64(r, "same", same);
	model__kv_u64(r, "differs", differs);
	model__kv_u64(r, "errors", errors);
	/* Of those, destinations of ioctls that failed as a whole. */
	model__kv_u64(r, "ioctl_errors", ioctl_errors);
	model__kv_u64(r, "bytes_deduped", deduped);
	model__kv_u64(r, "rereads", rereads);
	model__kv_u64(r, "cold_files", d->cold_files);
	model__kv_u64(r, "cold_pages_cached", d->cold_cached);
	model__kv_u64(r, "warm_pages_uncached", d->warm_uncached);
	model__kv_u64(r, "readahead_files", d->ra_files);
	if (d->cold_cached)
		wl__err(WL, 0,
			"warning: %llu pages of the cold files stayed in the "
			"page cache after POSIX_FADV_DONTNEED",
			(unsigned long long)d->cold_cached);
	model__kv_u64(r, "validation_checks", r->validation.checks);
	model__kv_u64(r, "validation_failures", r->validation.failures);
	return 0;
}

static const struct wl_totals *dedupe__totals(const void *state)
{
	const struct dedupe *d = state;

	return &d->tot;
}

const struct wl_mode_ops wl_dedupe_layouts = {
	.prepare = dedupe__prepare,
	.space = dedupe__space,
	.run = dedupe__run,
	.totals = dedupe__totals,
	.destroy = dedupe__destroy,
};
