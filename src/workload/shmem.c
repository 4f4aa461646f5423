// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * shmem-read workload: read files on fresh tmpfs mounts
 * (shmem_file_read_iter) by any way into the kernel (the read engine,
 * read.h), from one or several threads, and check every call: its return
 * value against the file size, every byte against what was written
 * (zeros in holes), the buffer past what it returned, and guard bytes
 * around the user buffer.
 *
 *   default   one file (--fill, --size) on one mount (--huge), read with
 *             one plan (--syscall, --bs, --offset, --length,
 *             --buf-align, --iovecs, --readers); --buf-tmpfs maps the
 *             buffers from a memfd, faulted in by the reads' copies
 *   --throughput  first N timed passes of read or pread over the file
 *             with nothing checked and nothing traced (throughput.c),
 *             then the checked pass; the report gets the middle pass's
 *             MB/s and CPU time
 *   --matrix  the default matrix: full, sparse and mixed files on
 *             huge=always, within_size, advise and never mounts, each read
 *             with every plan of shmem_truth.c's table
 *
 * What is read is made in shmem_setup.c. Before the readers, each plan's
 * way is tried: what it needs of the kernel (caps.c), and for the ways a
 * kernel may refuse (a flag of preadv2, a pipe's ways) one byte read and
 * checked; a plan the kernel cannot run is a skip with why.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "workload/caps.h"
#include "workload/pattern.h"
#include "workload/shmem.h"
#include "workload/throughput.h"

#define WL SH_WL

/* Readers wait here until all exist, so that their reads overlap; or
 * leave without reading when one could not be started. */
struct sh_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int state; /* 0 wait, 1 go, -1 give up */
};

/* The truth's view of a file (struct wl_read_truth). */
static size_t file_diff(const void *ctx, __u64 off, const void *buf, size_t len)
{
	return sh_file__diff(ctx, off, buf, len);
}

static unsigned char file_byte(const void *ctx, __u64 off)
{
	return sh_file__byte(ctx, off);
}

/*
 * The checks from now on are of mount mi read with plan pl: one group of
 * the matrix; one layout (of the command line, or of --random) is one
 * group per mount, as its coverage is.
 */
static void check_group(struct shmem *s, int mi, const struct sh_plan *pl)
{
	char name[64];

	if (s->matrix)
		snprintf(name, sizeof(name), "tmpfs huge=%s plan=%s",
			 wl_huge__name(s->m[mi].huge), pl->name);
	else
		snprintf(name, sizeof(name), "tmpfs huge=%s",
			 wl_huge__name(s->m[mi].huge));
	model__check_group(s->r, name);
}

/* The plan's way, for the skip and probe lines: "preadv2 rwf=nowait". */
static void plan_way(const struct sh_plan *pl, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s", wl_way__name(pl->way),
		 pl->rwf ? " rwf=" : "", wl_rwf__name(pl->rwf));
}

/* The probe read's byte of the first file against the file's: its
 * answer (one byte), then the byte as it came back. */
static void probe_check(struct shmem *s, const struct sh_plan *pl,
			const struct wl_read_res *res, unsigned char byte)
{
	const struct sh_inst *in = &s->inst[0];
	unsigned char want = sh_file__byte(&in->f, 0);
	bool back = res->made && res->ret == 1 && res->back != 1;
	int got = res->made && res->ret == 1 && res->back == 1 ? byte : -1;
	char lay[320], w[48], g[96];

	snprintf(lay, sizeof(lay),
		 "huge=%s file=%s size=%llu plan=%s syscall=%s rwf=%s probe "
		 "pos=0",
		 wl_huge__name(s->m[in->mount].huge), sh_fill__name(in->f.fill),
		 (unsigned long long)in->f.size, pl->name,
		 wl_way__name(pl->way), wl_rwf__name(pl->rwf));
	snprintf(w, sizeof(w), "1 byte: 0x%02x", want);
	if (back && res->back < 0)
		snprintf(g, sizeof(g), "no byte: %s failed: %s",
			 res->back_failed, wl_read__errno_text(res->back_err));
	else if (back)
		snprintf(g, sizeof(g), "no byte back from %s", res->back_from);
	else if (got < 0)
		snprintf(g, sizeof(g), "no byte");
	else
		snprintf(g, sizeof(g), "0x%02x", got);
	check_group(s, in->mount, pl);
	model__check_kind(s->r, got == want,
			  back ? WL_KIND_READ_BACK : FS_CASE_ANSWER, lay, w, g);
}

/* A refusal of the kernel's for a way it does not take: EXDEV across
 * filesystems, a pipe's ways a filesystem lacks. */
static bool refused(int err)
{
	return err == EXDEV || err == EINVAL || err == ENOSYS ||
	       err == EOPNOTSUPP || err == EAFNOSUPPORT;
}

/*
 * Plan pl's way tried on this kernel, into why ("" when it can run):
 * what it needs, then for a way the kernel may refuse (preadv2's flags,
 * the ways through a pipe) one byte of the first file read the way its
 * readers will, counted as the probes see it and checked.
 */
static void probe_plan(struct shmem *s, const struct sh_plan *pl, char *why,
		       size_t n)
{
	const struct wl_way_info *wi = wl_way__info(pl->way);
	const struct sh_inst *in = &s->inst[0];
	struct wl_reader_opts ro = {
		.wl = WL,
		.way = pl->way,
		.rwf = pl->rwf,
		.path = in->path,
		.fd = -1,
		.outdir = s->m[in->mount].dir,
		.bs = 1,
	};
	unsigned char byte[8] = { 0 };
	struct wl_read_req q = { .pos = 0, .len = 1, .buf = byte };
	struct iovec iov = { byte, 1 };
	struct wl_read_res res;
	struct wl_reader r;
	const char *failed;
	char way[48];
	int err;

	why[0] = '\0';
	if (wl_caps__way(pl->way, WL, in->path, why, n))
		return;
	if (wi->seen != WL_SEEN_PIPED && !pl->rwf)
		return;
	plan_way(pl, way, sizeof(way));
	q.iov = &iov;
	q.niov = 1;
	err = wl_reader__open(&r, &ro, &failed);
	if (err) {
		/* The readers say why when the file is not there. */
		if (strcmp(failed, "open the file"))
			snprintf(why, n, "%s: %s: %s", way, failed,
				 strerror(-err));
		wl_reader__close(&r);
		return;
	}
	wl_reader__read(&r, &q, &res);
	wl_reader__close(&r);
	if (res.made && res.ret < 0 && res.err == EOPNOTSUPP && pl->rwf) {
		/* Counted: the syscall level saw it. */
		wl_read__count(pl->way, pl->rwf, &q, &res, s->page, &s->tot);
		snprintf(why, n,
			 "preadv2 RWF_%s: EOPNOTSUPP: this kernel's tmpfs "
			 "does not take it",
			 pl->rwf == RWF_NOWAIT ? "NOWAIT" : "HIPRI");
		return;
	}
	if (res.made && res.ret < 0 && wi->seen == WL_SEEN_PIPED &&
	    refused(res.err)) {
		snprintf(why, n, "%s: %s: this kernel does not take it", way,
			 strerror(res.err));
		return;
	}
	wl_read__count(pl->way, pl->rwf, &q, &res, s->page, &s->tot);
	probe_check(s, pl, &res, byte[0]);
}

/* Which plans the kernel cannot run (s->skip), each said on stderr. */
static int probe_plans(struct shmem *s)
{
	char way[48];

	s->skip = calloc((size_t)s->nplans, sizeof(*s->skip));
	if (!s->skip) {
		wl__err(WL, -ENOMEM, "allocate the plans' skips");
		return -ENOMEM;
	}
	for (int p = 0; p < s->nplans; p++) {
		probe_plan(s, &s->plans[p], s->skip[p], sizeof(s->skip[p]));
		plan_way(&s->plans[p], way, sizeof(way));
		if (s->skip[p][0])
			wl__err(WL, 0, "skipped plan %s (%s): %s",
				s->plans[p].name, way, s->skip[p]);
	}
	return 0;
}

/*
 * A wrong answer from a file whose size is no longer the one written: a
 * process other than the workload truncated (or extended) it, so the
 * answer says nothing about the kernel. Recorded once per file as a
 * disturbed run, with this call unjudged; the reader stops. Called with
 * s->lock held.
 */
static bool resized(struct sh_reader *rd)
{
	struct sh_inst *in = rd->in;
	struct stat st;

	if (stat(in->path, &st) || (__u64)st.st_size == in->f.size)
		return false;
	rd->stop = true;
	model__disturbed(
		rd->s->r, 1,
		"file '%s' was %s by another process (size %llu -> "
		"%llu) during the run",
		in->path,
		(__u64)st.st_size < in->f.size ? "truncated" : "extended",
		(unsigned long long)in->f.size, (unsigned long long)st.st_size);
	in->disturbed = true;
	return true;
}

static void check(struct sh_reader *rd, bool ok, const char *kind, __u64 call,
		  __u64 pos, const char *want, const char *got)
{
	char lay[320] = "";
	size_t n;

	/* Passed checks need no lock: counted here, added when the reader
	 * ends (reader_done). */
	if (ok) {
		rd->passed++;
		return;
	}
	sh__layout(rd->s->m[rd->in->mount].huge, &rd->in->f, rd->pl, rd->idx,
		   call, pos, lay, sizeof(lay));
	n = strlen(lay);
	if (rd->s->inject && rd->s->first_run && !rd->idx && !call)
		snprintf(lay + n, sizeof(lay) - n,
			 " injected=wrong-expectation");
	pthread_mutex_lock(&rd->s->lock);
	if (!resized(rd))
		model__check_kind(rd->s->r, false, kind, lay, want, got);
	pthread_mutex_unlock(&rd->s->lock);
}

static void reader_done(struct sh_reader *rd)
{
	pthread_mutex_lock(&rd->s->lock);
	model__checks_passed(rd->s->r, rd->passed);
	pthread_mutex_unlock(&rd->s->lock);
	rd->passed = 0;
}

/* The poison seed of iovec byte 0 of the reader's current call. */
static __u64 poison_seed(const struct sh_reader *rd)
{
	return WL_POISON_BASE + ((__u64)rd->idx << 40) + rd->seq * 4099;
}

/* The layout of the reader's call in flight (wl_watch_describe_fn). */
static void describe(const void *arg, char *buf, size_t n)
{
	const struct sh_reader *rd = arg;

	sh__layout(rd->s->m[rd->in->mount].huge, &rd->in->f, rd->pl, rd->idx,
		   rd->cur_call, rd->cur_pos, buf, n);
}

/*
 * A layout that does not end as its ground truth says: too many calls,
 * the file position not where the calls put it, past its deadline. The
 * reader stops; the run goes on with the next layout.
 */
static void bound_fail(struct sh_reader *rd, const char *kind, __u64 call,
		       __u64 pos, const char *want, const char *got)
{
	check(rd, false, kind, call, pos, want, got);
	rd->stop = true;
}

/* Bytes a reader of pl on f must get, from start. */
static __u64 plan_bytes(const struct sh_plan *pl, __u64 size, __u64 start)
{
	__u64 end = size;

	if (pl->length && start + pl->length < end)
		end = start + pl->length;
	return end > start ? end - start : 0;
}

/* After call: the file position must be exactly where the calls put it
 * (pread leaves it alone). */
static bool position_ok(struct sh_reader *rd, __u64 call, __u64 pos, __u64 want)
{
	off_t cur;
	char w[96], g[96];

	errno = 0;
	cur = lseek(rd->rd.fd, 0, SEEK_CUR);
	if (cur >= 0 && (__u64)cur == want)
		return true;
	snprintf(w, sizeof(w), "file position %llu after the call",
		 (unsigned long long)want);
	if (cur < 0)
		snprintf(g, sizeof(g), "lseek(SEEK_CUR) failed: %s",
			 strerror(errno));
	else
		snprintf(g, sizeof(g), "file position %lld (%s)",
			 (long long)cur,
			 (__u64)cur < want ? "went back or stayed" : "ahead");
	bound_fail(rd, WL_KIND_POSITION, call, pos, w, g);
	return false;
}

/* The reader's way set up, or a failed check of kind set-up. */
static bool reader_open(struct sh_reader *rd, __u64 start)
{
	const struct sh_plan *pl = rd->pl;
	const struct shmem *s = rd->s;
	struct wl_reader_opts ro = {
		.wl = WL,
		.way = pl->way,
		.rwf = pl->rwf,
		.path = rd->in->path,
		.fd = -1,
		.outdir = s->m[rd->in->mount].dir,
		.bs = pl->bs,
		.fixed = { rd->mem, s->bufsize },
	};
	const char *failed = "lseek to the plan's start";
	char g[192];
	int err = wl_reader__open(&rd->rd, &ro, &failed);

	/* Each reader has its own file position. */
	if (!err && wl_way__info(pl->way)->moves) {
		errno = 0;
		if (lseek(rd->rd.fd, (off_t)start, SEEK_SET) < 0)
			err = errno ? -errno : -EIO;
	}
	if (!err)
		return true;
	snprintf(g, sizeof(g), "%s: %s", failed, strerror(-err));
	check(rd, false, WL_KIND_SETUP, 0, start, "the reader set up", g);
	return false;
}

/* One reader: set up, read the plan's range call by call, close. */
static void *reader(void *arg)
{
	struct sh_reader *rd = arg;
	const struct sh_plan *pl = rd->pl;
	const struct wl_way_info *wi = wl_way__info(pl->way);
	const __u64 page = rd->s->page;
	/* A loop device holds the file's whole sectors; O_DIRECT reads
	 * start on one. */
	__u64 sector = wi->sectors ? ~511ULL : ~0ULL;
	__u64 start = sh_plan__start(pl, rd->in->f.size) & sector, pos = start;
	__u32 n = wi->iovecs ? pl->iovecs : 1;
	/* The ground truth's bound: the calls the bytes take, plus the
	 * one that returns 0 at EOF. */
	__u64 total = plan_bytes(pl, rd->in->f.size & sector, start);
	/* A piped call may come back short: once a page at worst. */
	__u64 need =
		(total + pl->bs - 1) / pl->bs + 1 +
		(wi->seen == WL_SEEN_PIPED ? (total + page - 1) / page : 0);
	__u64 limit = wl__deadline_ns(rd->s->deadline_base, total, need);
	struct wl_read_truth truth = {
		.short_ok = wi->seen == WL_SEEN_PIPED,
		.nowait = pl->rwf & RWF_NOWAIT,
		.diff = file_diff,
		.byte = file_byte,
		.ctx = &rd->in->f,
	};
	struct wl_read_verdict v;
	struct wl_read_res res;
	__u64 call = 0, t0;
	char w[96], g[96];

	wl_rbuf__layout(&rd->buf, rd->mem + page + pl->buf_align, pl->bs, n);
	if (rd->gate) {
		pthread_mutex_lock(&rd->gate->lock);
		while (!rd->gate->state)
			pthread_cond_wait(&rd->gate->cond, &rd->gate->lock);
		pthread_mutex_unlock(&rd->gate->lock);
		if (rd->gate->state < 0)
			return NULL;
	}
	rd->eof = rd->in->f.size & sector;
	if (!reader_open(rd, start))
		goto cleanup;
	t0 = wl__now_ns();
	while (!pl->length || pos - start < pl->length) {
		struct wl_read_req q = { .pos = pos,
					 .len = pl->bs,
					 .buf = rd->buf.base,
					 .iov = rd->buf.iov,
					 .niov = n };
		__u64 now = wl__now_ns();
		bool ok;

		if (call >= need) {
			snprintf(w, sizeof(w),
				 "%llu bytes in at most %llu calls",
				 (unsigned long long)total,
				 (unsigned long long)need);
			snprintf(g, sizeof(g),
				 "call %llu needed, %llu bytes read",
				 (unsigned long long)call + 1,
				 (unsigned long long)(pos - start));
			bound_fail(rd, WL_KIND_NO_PROGRESS, call, pos, w, g);
			break;
		}
		if (now - t0 > limit) {
			snprintf(w, sizeof(w), "layout done within %llu s",
				 (unsigned long long)(limit / 1000000000ULL));
			snprintf(g, sizeof(g),
				 "%llu of %llu bytes after %llu s",
				 (unsigned long long)(pos - start),
				 (unsigned long long)total,
				 (unsigned long long)((now - t0) /
						      1000000000ULL));
			bound_fail(rd, WL_KIND_TIMEOUT, call, pos, w, g);
			break;
		}

		/* Every byte the call may write holds this call's poison,
		 * the gaps and guards their canary. */
		rd->seq++;
		wl_rbuf__poison(&rd->buf, poison_seed(rd));
		/* --buf-tmpfs: unmapped, so this call's copy faults. The
		 * poison stays in the memfd for the checks. */
		if (rd->s->bufmap)
			madvise(rd->mem, rd->s->bufsize, MADV_DONTNEED);
		rd->cur_call = call;
		rd->cur_pos = pos;
		wl_watch__enter(rd->s->watch, (int)rd->idx, limit - (now - t0),
				describe, rd);
		wl_reader__read(&rd->rd, &q, &res);
		wl_watch__leave(rd->s->watch, (int)rd->idx);
		wl_read__count(pl->way, pl->rwf, &q, &res, page, &rd->tot);
		if (res.made && res.ret < 0 && res.err == EINTR)
			continue;
		truth.want = sh__expect_ret(rd->eof, pos, pl->bs);
		/* The test hook: the first call of the first run expects its
		 * first byte flipped, so that one check must fail. */
		truth.inject = rd->s->inject && rd->s->first_run && !rd->idx &&
			       !call && res.ret > 0;
		ok = wl_read__check(&rd->buf, pos, &res, &truth, &v);
		check(rd, ok, v.kind, call, pos, v.want, v.got);
		if (res.made && !rd->stop &&
		    !position_ok(
			    rd, call, pos,
			    !wi->moves ? 0 : pos + (res.ret > 0 ? res.ret : 0)))
			break;
		call++;
		/* --stop-after: a test may now change the file. */
		if (rd->s->stop_after &&
		    __atomic_add_fetch(&rd->s->calls_done, 1,
				       __ATOMIC_RELAXED) == rd->s->stop_after)
			raise(SIGSTOP);
		if (!res.made || res.ret <= 0 || rd->stop)
			break;
		pos += res.ret;
	}
cleanup:
	reader_done(rd);
	wl_reader__close(&rd->rd);
	return NULL;
}

static void gate_open(struct sh_gate *g, int state)
{
	pthread_mutex_lock(&g->lock);
	g->state = state;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

/* Plan pl on file in with its readers, concurrently when several. */
static int run_plan(struct shmem *s, struct sh_inst *in,
		    const struct sh_plan *pl)
{
	struct sh_gate gate = { PTHREAD_MUTEX_INITIALIZER,
				PTHREAD_COND_INITIALIZER, 0 };
	pthread_t tid[SH_MAX_READERS];
	__u32 made = 0;
	int err = 0;

	for (__u32 i = 0; i < pl->readers; i++) {
		struct sh_reader *rd = &s->rd[i];

		rd->s = s;
		rd->in = in;
		rd->pl = pl;
		rd->idx = i;
		memset(&rd->tot, 0, sizeof(rd->tot));
		rd->passed = 0;
		rd->eof = in->f.size;
		rd->stop = false;
		rd->gate = pl->readers > 1 ? &gate : NULL;
	}
	/* io_uring's reads on threads of their own even alone: a ring
	 * belongs to the thread that made it (read.h), and this thread
	 * reads through pipes later. */
	if (pl->readers == 1 && wl_way__info(pl->way)->need != WL_NEED_URING) {
		reader(&s->rd[0]);
	} else {
		for (; made < pl->readers; made++) {
			err = -pthread_create(&tid[made], NULL, reader,
					      &s->rd[made]);
			if (err)
				break;
		}
		gate_open(&gate, err ? -1 : 1);
		for (__u32 i = 0; i < made; i++)
			pthread_join(tid[i], NULL);
		if (err) {
			wl__err(WL, err, "start reader %u of plan '%s'", made,
				pl->name);
			return err;
		}
	}
	for (__u32 i = 0; i < pl->readers; i++)
		wl_totals__add(&s->tot, &s->rd[i].tot);
	return 0;
}

/*
 * --throughput: the timed passes over the one file, before the probes
 * attach (the kernel's throughput, not the tracer's: a probe per copy
 * would cost a kernel that copies in smaller pieces more). The figures
 * go into the report as whole numbers: MB/s (10^6 bytes) and CPU
 * microseconds per GiB; the checked pass comes in shmem__run.
 */
static int shmem__timed(void *state, struct fs_report *r)
{
	struct shmem *s = state;
	const struct sh_plan *pl = &s->plans[0];
	struct wl_tput_opts o = {
		.size = s->inst[0].f.size,
		.bs = pl->bs,
		.way = pl->way,
		.passes = s->tput_passes,
	};
	struct wl_tput t;
	int err;

	if (!s->tput_passes)
		return 0;
	o.fd = open(s->inst[0].path, O_RDONLY | O_CLOEXEC);
	if (o.fd < 0) {
		err = -errno;
		wl__err(WL, err, "open '%s'", s->inst[0].path);
		return err;
	}
	err = wl_tput__run(&o, &t);
	close(o.fd);
	if (err) {
		wl__err(WL, err, "timed pass %u of '%s'", t.npasses + 1,
			s->inst[0].path);
		return err;
	}
	model__kv_u64(r, "throughput_passes", t.npasses);
	model__kv_u64(r, "mb_per_s", (__u64)(t.bytes_per_s / 1e6 + 0.5));
	model__kv_u64(r, "mb_per_s_min",
		      (__u64)(t.min_bytes_per_s / 1e6 + 0.5));
	model__kv_u64(r, "mb_per_s_max",
		      (__u64)(t.max_bytes_per_s / 1e6 + 0.5));
	model__kv_u64(r, "cpu_us_per_gib",
		      (__u64)(t.cpu_ns_per_gib / 1e3 + 0.5));
	return 0;
}

static void report_huge(struct shmem *s, struct fs_report *r)
{
	char msg[128] = "", key[32];
	size_t n;
	__u64 total = 0;

	for (int i = 0; i < s->nmount; i++) {
		const struct sh_mount *m = &s->m[i];
		const char *huge = wl_huge__name(m->huge);

		total += m->huge_kb;
		if (s->nmount > 1) {
			snprintf(key, sizeof(key), "huge_kb_%s", huge);
			model__kv_u64(r, key, m->huge_kb);
		}
		if (!m->expect_huge)
			continue;
		n = strlen(msg);
		if (m->huge_kb) {
			snprintf(msg + n, sizeof(msg) - n,
				 "%s%s: in effect (+%llu kB)", n ? ", " : "",
				 huge, (unsigned long long)m->huge_kb);
			continue;
		}
		snprintf(msg + n, sizeof(msg) - n, "%s%s: NOT in effect",
			 n ? ", " : "", huge);
		wl__err(WL, 0,
			"WARNING: huge=%s but ShmemHugePages did not grow "
			"while the files were written: tmpfs is NOT using "
			"2 MiB folios, this run measures 4 KiB ones (see "
			"/sys/kernel/mm/transparent_hugepage/shmem_enabled)",
			huge);
	}
	model__kv_u64(r, "shmem_huge_kb", total);
	model__kv_str(r, "huge_folios",
		      *msg ? msg
			   : "none expected (no huge= mode that makes "
			     "them)");
}

/* The run's figures: its layout (one) or its size (a matrix), and its
 * counts. */
static void report_run(struct shmem *s, struct fs_report *r)
{
	char missed[256];

	model__kv_str(r, "mode", s->matrix ? "matrix" : "custom");
	if (s->nmount == 1) {
		const struct sh_plan *pl = &s->plans[0];

		model__kv_str(r, "huge", wl_huge__name(s->m[0].huge));
		model__kv_str(r, "fill", sh_fill__name(s->inst[0].f.fill));
		model__kv_u64(r, "size", s->inst[0].f.size);
		model__kv_str(r, "syscall", wl_way__name(pl->way));
		model__kv_u64(r, "bs", pl->bs);
		model__kv_u64(r, "offset", (__u64)pl->offset);
		model__kv_u64(r, "length", pl->length);
		model__kv_u64(r, "buf_align", pl->buf_align);
		model__kv_u64(r, "iovecs", pl->iovecs);
		model__kv_u64(r, "readers", pl->readers);
		if (s->bufmap)
			model__kv_str(r, "buffers",
				      "tmpfs (memfd, MAP_SHARED)");
	} else {
		model__kv_u64(r, "files", s->ninst);
		model__kv_u64(r, "plans", s->nplans);
		wl_ways__missed(&s->tot, missed, sizeof(missed));
		model__kv_str(r, "ways_missed", missed);
	}
	/* A read is one shmem_file_read_iter call at either level. */
	model__kv_u64(r, "calls", s->tot.func.calls);
	model__kv_u64(r, "bytes", s->tot.func.bytes);
	model__kv_u64(r, "errors", s->tot.func.errors);
	/* How many more the probes may see (wl_count.calls_slack), and
	 * the reads the syscall level cannot see. */
	model__kv_u64(r, "calls_slack", s->tot.func.calls_slack);
	model__kv_u64(r, "io_uring_calls", s->tot.via_uring);
	model__kv_u64(r, "piped_calls", s->tot.via_pipe);
	model__kv_u64(r, "loop_calls", s->tot.via_loop);
	model__kv_u64(r, "validation_checks", r->validation.checks);
	model__kv_u64(r, "validation_failures", r->validation.failures);
}

static int shmem__run(void *state, struct fs_report *r)
{
	struct shmem *s = state;
	int err = 0;

	s->r = r;
	/* The groups in the order they run, though the probes' checks
	 * come first. */
	for (int mi = 0; mi < s->nmount; mi++)
		for (int p = 0; p < s->nplans; p++)
			check_group(s, mi, &s->plans[p]);
	model__check_group(r, NULL);
	/* Before the reads: say whether the huge-page layout holds, and
	 * which plans this kernel cannot run. */
	report_huge(s, r);
	err = probe_plans(s);
	if (err)
		return err;
	for (int p = 0; p < s->nplans; p++) {
		const struct sh_plan *pl = &s->plans[p];
		char what[64], way[48];

		if (!s->skip[p][0])
			continue;
		plan_way(pl, way, sizeof(way));
		snprintf(what, sizeof(what), "plan=%s syscall=%s", pl->name,
			 way);
		model__skip(r, what, "%s", s->skip[p]);
	}
	s->first_run = true;
	err = wl_watch__start(&s->watch, WL, r);
	if (err) {
		wl__err(WL, err, "start the watchdog");
		return err;
	}
	/* Traced phase: the readers' open, reads and close. */
	for (int i = 0; !err && i < s->ninst; i++) {
		int mi = s->inst[i].mount;

		for (int p = 0; !err && !s->inst[i].disturbed && p < s->nplans;
		     p++) {
			if (s->skip[p][0])
				continue;
			check_group(s, mi, &s->plans[p]);
			err = run_plan(s, &s->inst[i], &s->plans[p]);
			s->first_run = false;
		}
		/* The mount's last file: its group of layouts ends. */
		if (s->group_end &&
		    (i + 1 == s->ninst || s->inst[i + 1].mount != mi)) {
			char name[32];

			snprintf(name, sizeof(name), "tmpfs huge=%s",
				 wl_huge__name(s->m[mi].huge));
			s->group_end(s->group_ctx, "tmpfs", name);
		}
	}
	wl_watch__stop(s->watch);
	s->watch = NULL;
	report_run(s, r);
	return err;
}

static const struct wl_totals *shmem__totals(const void *state)
{
	const struct shmem *s = state;

	return &s->tot;
}

const struct wl_mode_ops wl_shmem_layouts = {
	.prepare = shmem__prepare,
	.space = shmem__space,
	.space_in_ram = true,
	.run = shmem__run,
	.totals = shmem__totals,
	.destroy = shmem__destroy,
};

const struct wl_mode_ops wl_shmem_throughput = {
	.prepare = shmem__prepare,
	.space = shmem__space,
	.space_in_ram = true,
	.timed = shmem__timed,
	.run = shmem__run,
	.totals = shmem__totals,
	.destroy = shmem__destroy,
};
