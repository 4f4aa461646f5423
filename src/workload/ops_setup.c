// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What an --ops run works on, made before it and undone after it
 * (ops_run.h): shmem-read's four tmpfs mounts, one per huge= mode, or
 * dedupe's btrfs and xfs on loop images (xfs's block size drawn from the
 * seed), with two files each; fresh files and all-zero shadows before
 * each sequence; the buffers and the sequence's indices.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workload/ops_run.h"

#define NFILES WL_OPS_NFILES
#define MAX_SIZE WL_OPS_MAX_SIZE
#define MAX_LEN WL_OPS_MAX_LEN
#define MAX_IOV 8

int ops__reader_mem(const struct wl_ops *s, struct ops_reader *rd)
{
	/* A page of guard in front of the reads' base. */
	__u64 span =
		s->page +
		wl_rbuf__span(OPS_READBACK > MAX_LEN ? OPS_READBACK : MAX_LEN,
			      MAX_IOV);

	rd->rmem_len = (span + s->page - 1) / s->page * s->page;
	rd->rmem = aligned_alloc(s->page, rd->rmem_len);
	return rd->rmem ? 0 : -ENOMEM;
}

int ops__files_reset(struct wl_ops *s)
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
		s->main.fd[i] = f->fd;
		memset(s->shadows[i].b, 0, MAX_SIZE);
		memset(s->shadows[i].state, WL_RANGE_HOLE, WL_OPS_STATE_PAGES);
		s->shadows[i].size = 0;
	}
	return 0;
}

/* The operations idx[0..n) from fresh files, then the read-back. */

/* shmem-read: a tmpfs per file, one per huge= mode. */
static int mounts_tmpfs(struct wl_ops *s)
{
	int err = 0;

	for (int i = 0; !err && i < NFILES; i++) {
		struct ops_file *f = &s->f[i];

		err = wl__mkdtemp(s->wl, NULL, "ops", f->dir, sizeof(f->dir));
		if (err)
			break;
		/* Room for the file in 2 MiB folios, and one more; and for
		 * each racing reader's output file. */
		err = wl__tmpfs_mount(s->wl, f->dir, wl_ops__huge(i),
				      MAX_SIZE + MAX_LEN + 2 * WL_PMD +
					      (s->jobs - 1) *
						      (MAX_LEN + WL_PMD));
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
		err = wl__loopfs_make(s->wl, s->tmpdir, k,
				      k ? WL_FSTYPE_XFS : WL_FSTYPE_BTRFS,
				      s->geo.bs[2 * k], OPS_IMG_SIZE,
				      &s->lfs[k]);
	for (int i = 0; !err && i < NFILES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "file%d", i);
		err = wl__path(s->f[i].path, sizeof(s->f[i].path),
			       s->lfs[s->geo.filesys[i]].mnt, name);
	}
	return err;
}

int ops__prepare(void **out, const struct wl_opts *o)
{
	const char *wl = wl_kind__name(o->kind);
	char racers[64] = "";
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
	s->limit_ms = o->time_limit_ms;
	wl_ops__geom(o->kind, s->seed, s->page, &s->geo);
	for (int i = 0; i < NFILES; i++)
		s->f[i].fd = -1;
	s->idx = calloc(s->n, sizeof(*s->idx));
	s->jobs = o->ops_jobs ? o->ops_jobs : 1;
	s->repeat = o->ops_repeat ? o->ops_repeat : 1;
	s->schedule_path = o->ops_schedule;
	s->replay_path = o->ops_replay;
	s->inject_stuck = o->inject_stuck_reader;
	if (pthread_mutex_init(&s->check_lock, NULL)) {
		free(s);
		return -ENOMEM;
	}
	s->main.s = s;
	s->main.tot = &s->tot;
	ops__reader_mem(s, &s->main);
	s->wbuf = malloc(MAX_LEN);
	s->req = calloc(1, sizeof(*s->req) +
				   DD_MAX_DESTS * sizeof(s->req->info[0]));
	for (int i = 0; i < NFILES; i++) {
		s->shadows[i].b = calloc(1, MAX_SIZE);
		s->shadows[i].state = calloc(1, WL_OPS_STATE_PAGES);
		if (!s->shadows[i].b || !s->shadows[i].state)
			err = -ENOMEM;
	}
	if (err || !s->idx || !s->main.rmem || !s->wbuf || !s->req) {
		err = -ENOMEM;
		wl__err(wl, err, "allocate the files' shadows");
		goto fail;
	}
	if (o->ops_only) {
		/* The command line checked them: ascending, under N. */
		s->only = true;
		s->nidx = o->ops_only_n < s->n ? o->ops_only_n : s->n;
		memcpy(s->idx, o->ops_only, s->nidx * sizeof(*s->idx));
	} else {
		for (__u32 i = 0; i < s->n; i++)
			s->idx[i] = i;
		s->nidx = s->n;
	}
	/* The shadows, and each racing reader's buffers and the versions
	 * kept for it. */
	err = wl__check_mem(wl, "--ops",
			    NFILES * (2 * MAX_SIZE + WL_PMD) +
				    (s->jobs - 1) * 3 * MAX_LEN +
				    (s->jobs > 1 ? WL_HIST_KEEP_BYTES : 0));
	if (!err && s->replay_path)
		err = ops__replay_read(s);
	if (!err)
		err = s->geo.kind == WL_DEDUPE ? mounts_loop(s)
					       : mounts_tmpfs(s);
	if (!err)
		err = ops__files_reset(s);
	if (err)
		goto fail;
	if (s->jobs > 1)
		snprintf(racers, sizeof(racers), ", %u racing reader%s%s",
			 s->jobs - 1, s->jobs > 2 ? "s" : "",
			 s->geo.kind == WL_DEDUPE ? " and stores into dedupes"
						  : "");
	wl__err(wl, 0, "ops: seed %llu, %u operations%s%s%s%s",
		(unsigned long long)s->seed, s->nidx,
		s->only ? " (--ops-only)" : "", racers,
		s->geo.kind == WL_DEDUPE ? ", xfs bs=" : "",
		s->geo.kind == WL_DEDUPE
			? s->geo.label[NFILES - 1] + strlen("xfs bs=")
			: "");
	*out = s;
	return 0;
fail:
	ops__destroy(s);
	return err;
}

void ops__destroy(void *state)
{
	struct wl_ops *s = state;
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
		if (s->geo.kind != WL_DEDUPE && !f->mounted && f->dir[0])
			wl__remove(s->wl, f->dir, true);
		free(s->shadows[i].b);
		free(s->shadows[i].state);
	}
	for (int k = 0; k < 2; k++)
		busy |= wl__loopfs_remove(s->wl, &s->lfs[k]) != 0;
	if (s->tmpdir[0] && !busy)
		wl__remove(s->wl, s->tmpdir, true);
	free(s->racers);
	for (int i = 0; i < WL_HIST_READERS; i++) {
		free(s->sched[i].read);
		free(s->sched[i].k0);
	}
	pthread_mutex_destroy(&s->check_lock);
	free(s->idx);
	free(s->main.rmem);
	free(s->replay_text);
	free(s->wbuf);
	free(s->req);
	free(s);
}
