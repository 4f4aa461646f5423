// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a shmem-read run reads, made before it and undone after it: the
 * options checked, a fresh tmpfs per huge= mode, its files written so
 * that their folios mix sizes, and the readers' buffers, after a check
 * that all of it leaves most of the machine's memory free.
 *
 * "mixed" writes its 4 KiB tail pieces while the mount is huge=never and
 * only then switches to its huge= mode for the whole 2 MiB chunks, so
 * even huge=always keeps the tail in small folios.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/falloc.h>

#include "util/util.h"
#include "workload/caps.h"
#include "workload/pattern.h"
#include "workload/shmem.h"

#define WL SH_WL
/* Larger requests are cut by read(2) to 0x7ffff000 anyway; the --bs
 * hint says "1 GiB". */
#define BS_MAX (1ULL << 30)
/* Reader buffers of all threads together. */
#define BUF_TOTAL_MAX (4ULL << 30)

/* The --iovecs message below spells out the limit. */
_Static_assert(FS_MAX_IOVECS == 64, "update the --iovecs message");

static int check_opts(struct shmem *s, const struct wl_opts *o)
{
	const struct wl_way_info *wi = wl_way__info(o->way);
	struct sh_plan *pl = &s->custom;
	int err = -EINVAL;

	if (o->huge >= WL_HUGE_NR) {
		wl__err_hint(WL, err,
			     "(want always, never, within_size or advise)",
			     "--huge %d", (int)o->huge);
		return err;
	}
	if (o->mode == WL_MODE_MATRIX)
		return 0;
	if (o->fill >= SH_FILL_NR) {
		wl__err_hint(WL, err, "(want full, sparse or mixed)",
			     "--fill %d", (int)o->fill);
		return err;
	}
	if (o->way >= WL_WAY_NR) {
		wl__err_hint(WL, err, "(want " WL_WAY_NAMES ")", "--syscall %d",
			     (int)o->way);
		return err;
	}
	if (o->rwf && (!wi->rwf || !wl_rwf__name(o->rwf)[0])) {
		wl__err_hint(WL, err,
			     "(want none, nowait or hipri, with --syscall "
			     "preadv2)",
			     "--rwf %d", o->rwf);
		return err;
	}
	if (o->buf_tmpfs && o->way == WL_WAY_URING_FIXED) {
		wl__err_hint(WL, err,
			     "(a registered buffer stays pinned; --buf-tmpfs "
			     "drops its pages before every read)",
			     "--buf-tmpfs with --syscall io_uring-read_fixed");
		return err;
	}
	if (!o->size || o->size > (__u64)INT64_MAX - 2 * WL_PMD) {
		wl__err(WL, err, "--size '%llu'", (unsigned long long)o->size);
		return err;
	}
	if (!o->bs || o->bs > BS_MAX) {
		wl__err_hint(WL, err, "(want 1 byte .. 1 GiB)", "--bs '%llu'",
			     (unsigned long long)o->bs);
		return err;
	}
	if (!o->iovecs || o->iovecs > FS_MAX_IOVECS || o->iovecs > o->bs ||
	    (o->iovecs > 1 && !wi->iovecs)) {
		wl__err_hint(
			WL, err,
			"(want 1 .. 64 and at most --bs; more than 1 "
			"needs --syscall readv, preadv2 or io_uring-readv)",
			"--iovecs '%u'", o->iovecs);
		return err;
	}
	if (!o->readers || o->readers > SH_MAX_READERS) {
		wl__err_hint(WL, err, "(want 1 .. 64)", "--readers '%u'",
			     o->readers);
		return err;
	}
	if (wi->same_file && o->readers > 1) {
		wl__err_hint(WL, err,
			     "(--syscall copy_file_range-same-file writes the "
			     "file it reads: one reader)",
			     "--readers '%u'", o->readers);
		return err;
	}
	if (o->buf_align > WL_PMD) {
		wl__err_hint(WL, err, "(want 0 .. 2 MiB)", "--buf-align '%llu'",
			     (unsigned long long)o->buf_align);
		return err;
	}
	if (wi->sectors && (o->bs % 512 || o->buf_align % 512)) {
		wl__err_hint(
			WL, err,
			"(--syscall loop reads whole 512-byte sectors with "
			"O_DIRECT)",
			"--bs '%llu' --buf-align '%llu'",
			(unsigned long long)o->bs,
			(unsigned long long)o->buf_align);
		return err;
	}
	if (o->offset > (__u64)INT64_MAX / 2 ||
	    o->length > (__u64)INT64_MAX / 2) {
		wl__err(WL, err, "--offset/--length '%llu/%llu'",
			(unsigned long long)o->offset,
			(unsigned long long)o->length);
		return err;
	}
	if ((o->bs + o->buf_align) * o->readers > BUF_TOTAL_MAX) {
		err = -ENOMEM;
		wl__err_hint(WL, err, "(all readers' buffers: at most 4 GiB)",
			     "--bs x --readers '%llu x %u'",
			     (unsigned long long)o->bs, o->readers);
		return err;
	}
	snprintf(pl->name, sizeof(pl->name), "custom");
	pl->way = o->way;
	pl->rwf = o->rwf;
	pl->iovecs = o->iovecs;
	pl->bs = o->bs;
	pl->offset = (__s64)o->offset;
	pl->length = o->length;
	pl->buf_align = o->buf_align;
	pl->readers = o->readers;
	return 0;
}

static __u64 roundup_pmd(__u64 v)
{
	return (v + WL_PMD - 1) / WL_PMD * WL_PMD;
}

/* Mount i (its files chosen), tmpfs sized for its files in whole huge
 * folios, and for the output files of the calls that copy into one on
 * the same tmpfs (sendfile, copy_file_range), a reader's each: one the
 * mount could not hold would make the call stop short, and the kernel
 * drop bytes it had read. */
static int mount_tmpfs(struct shmem *s, int i, enum wl_huge huge)
{
	struct sh_mount *m = &s->m[i];
	__u64 limit = WL_PMD, out = 0, stale = 0;
	int err;

	/* Its files, and the stale memory written and freed before the
	 * largest fallocate. */
	for (int j = 0; j < s->ninst; j++) {
		const struct sh_file *f = &s->inst[j].f;
		__u64 alloc = roundup_pmd(sh_file__allocated(f));

		if (s->inst[j].mount != i)
			continue;
		limit += wl__max(roundup_pmd(f->size), alloc);
		stale = wl__max(stale, alloc);
	}
	limit += stale;
	for (int p = 0; p < s->nplans; p++) {
		const struct wl_way_info *wi = wl_way__info(s->plans[p].way);
		__u64 need = s->plans[p].readers * roundup_pmd(s->plans[p].bs);

		/* The file itself takes a copy from the next 2 MiB on. */
		if (wi->same_file)
			need += WL_PMD;
		if (wi->back == WL_BACK_FILE && !wi->other_fs && need > out)
			out = need;
	}
	limit += out;
	err = wl__mkdtemp(WL, NULL, "shmem", m->dir, sizeof(m->dir));
	if (err)
		return err;
	err = wl__tmpfs_mount(WL, m->dir, huge, limit);
	if (!err)
		m->mounted = true;
	return err;
}

/* Write the early or the late pieces of a file, a 2 MiB region per
 * pwrite so that each fills one PMD folio at most. */
static int write_pieces(struct sh_inst *in, int fd, bool early,
			unsigned char *buf)
{
	struct sh_piece p;
	int err;

	for (__u64 i = 0; sh_file__piece(&in->f, i, &p); i++) {
		__u64 off = p.start;

		if (p.early != early)
			continue;
		while (off < p.end) {
			__u64 end = (off / WL_PMD + 1) * WL_PMD;
			size_t n = (end < p.end ? end : p.end) - off;

			wl_pattern__fill(buf, off, n);
			err = wl__pwrite_full(fd, buf, n, off);
			if (err) {
				wl__err(WL, err, "write '%s'", in->path);
				return err;
			}
			off += n;
		}
	}
	return 0;
}

static bool has_early(const struct sh_file *f)
{
	struct sh_piece p;

	for (__u64 i = 0; sh_file__piece(f, i, &p); i++)
		if (p.early)
			return true;
	return false;
}

/*
 * len bytes of stale memory written into an unnamed file of the mount
 * and freed: the pages a fallocate right after is handed are those, so a
 * kernel that does not zero what it allocates returns them.
 */
static int stale_free(const struct sh_mount *m, __u64 len, unsigned char *buf)
{
	int fd = open(m->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600), err = 0;

	if (fd < 0)
		return -errno;
	wl_stale__fill(buf, WL_PMD);
	for (__u64 off = 0; !err && off < len; off += WL_PMD)
		err = wl__pwrite_full(fd, buf, wl__min(WL_PMD, len - off), off);
	close(fd);
	return err;
}

/* A fallocated fill: stale memory freed, then the fallocate (with
 * KEEP_SIZE past the size already set, or setting it). */
static int fallocate_file(const struct sh_mount *m, struct sh_inst *in, int fd,
			  unsigned char *buf)
{
	__u64 alloc = sh_file__allocated(&in->f);
	bool keep = in->f.fill == SH_FILL_FALLOC_KEEP;
	int err;

	if (!alloc)
		return 0;
	err = stale_free(m, roundup_pmd(alloc), buf);
	if (err) {
		wl__err(WL, err, "stale memory in '%s'", m->dir);
		return err;
	}
	if (fallocate(fd, keep ? FALLOC_FL_KEEP_SIZE : 0, 0, (off_t)alloc)) {
		err = -errno;
		wl__err(WL, err, "fallocate%s '%s'", keep ? " KEEP_SIZE" : "",
			in->path);
	}
	return err;
}

/* Mount i and make its files; see the file comment for the order. */
static int make_mount(struct shmem *s, int i, unsigned char *buf)
{
	struct sh_mount *m = &s->m[i];
	bool early = false;
	int fds[SH_MATRIX_FILES * WL_HUGE_NR], n = 0, err;
	__u64 kb0, kb1;

	for (int j = 0; j < s->ninst; j++)
		if (s->inst[j].mount == i && has_early(&s->inst[j].f))
			early = true;
	early = early && m->huge != WL_HUGE_NEVER;
	kb0 = wl__shmem_huge_kb();
	err = mount_tmpfs(s, i, early ? WL_HUGE_NEVER : m->huge);
	if (err)
		return err;
	for (int j = 0; j < s->ninst; j++) {
		struct sh_inst *in = &s->inst[j];
		char name[16];

		if (in->mount != i)
			continue;
		snprintf(name, sizeof(name), "%s", sh_fill__name(in->f.fill));
		err = wl__path(in->path, sizeof(in->path), m->dir, name);
		if (err) {
			wl__err(WL, err, "path in '%s'", m->dir);
			goto cleanup;
		}
		fds[n] = open(in->path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
			      0600);
		if (fds[n] < 0) {
			err = -errno;
			wl__err(WL, err, "create '%s'", in->path);
			goto cleanup;
		}
		in->made = true;
		/* Size first: huge=within_size decides by i_size, and the
		 * holes at the end need it anyway; but a plain fallocate
		 * sets it itself. */
		if (in->f.fill != SH_FILL_FALLOC &&
		    ftruncate(fds[n], in->f.size)) {
			err = -errno;
			wl__err(WL, err, "truncate '%s'", in->path);
			n++;
			goto cleanup;
		}
		err = write_pieces(in, fds[n], true, buf);
		n++;
		if (err)
			goto cleanup;
	}
	if (early) {
		err = wl__tmpfs_remount(m->dir, m->huge);
		if (err) {
			wl__err(WL, err, "remount tmpfs huge=%s '%s'",
				wl_huge__name(m->huge), m->dir);
			goto cleanup;
		}
	}
	for (int j = 0, k = 0; j < s->ninst; j++) {
		if (s->inst[j].mount != i)
			continue;
		err = write_pieces(&s->inst[j], fds[k], false, buf);
		if (!err)
			err = fallocate_file(m, &s->inst[j], fds[k], buf);
		k++;
		if (err)
			goto cleanup;
	}
	/* Growth only: others freeing huge pages meanwhile is not ours. */
	kb1 = wl__shmem_huge_kb();
	m->huge_kb = kb1 > kb0 ? kb1 - kb0 : 0;
	/* A 2 MiB folio needs a 2 MiB region inside i_size for within_size;
	 * huge=always gets one anywhere; a file all hole has none. */
	for (int j = 0; j < s->ninst; j++)
		if (s->inst[j].mount == i && s->inst[j].f.size >= WL_PMD &&
		    sh_file__mem(&s->inst[j].f, true) &&
		    (m->huge == WL_HUGE_ALWAYS ||
		     m->huge == WL_HUGE_WITHIN_SIZE))
			m->expect_huge = true;
cleanup:
	while (n)
		close(fds[--n]);
	return err;
}

/*
 * Size the readers' buffers: the most readers any plan has, each buffer
 * big enough for all plans. Returns how many readers.
 */
static __u32 size_buffers(struct shmem *s)
{
	__u64 need = 0;
	__u32 readers = 0;

	for (int p = 0; p < s->nplans; p++) {
		const struct sh_plan *pl = &s->plans[p];
		__u64 n = pl->buf_align + wl_rbuf__span(pl->bs, pl->iovecs);

		need = n > need ? n : need;
		readers = pl->readers > readers ? pl->readers : readers;
	}
	/* A page in front: the base is page-aligned (not more), with the
	 * leading guard bytes in the page before it. */
	s->bufsize = s->page + need;
	return readers;
}

/*
 * tmpfs pages cannot be reclaimed (no swap here), so the files and the
 * buffers must leave most of the machine free: refuse a run that needs
 * more than half of MemAvailable, before anything is written.
 */
static __u64 mem_need(struct shmem *s)
{
	bool forced = wl_caps__thp_forced();
	__u64 need, stale = 0, readers = size_buffers(s);

	need = readers * s->bufsize;
	/* The stale memory written and freed before a fallocate: at most
	 * the largest fallocated file again. */
	for (int i = 0; i < s->ninst; i++)
		stale = wl__max(stale, sh_file__allocated(&s->inst[i].f));
	need += stale;
	for (int i = 0; i < s->ninst; i++) {
		enum wl_huge huge = s->m[s->inst[i].mount].huge;

		need += sh_file__mem(&s->inst[i].f,
				     forced || huge != WL_HUGE_NEVER);
	}
	return need;
}

static int check_mem(struct shmem *s, const struct wl_opts *o)
{
	__u64 need = mem_need(s);
	char what[96];

	if (o->mode == WL_MODE_MATRIX)
		snprintf(what, sizeof(what), "--matrix");
	else
		snprintf(what, sizeof(what),
			 "--size '%llu' with --bs x --readers '%llu x %u'",
			 (unsigned long long)o->size, (unsigned long long)o->bs,
			 o->readers);
	return wl__check_mem(WL, what, need);
}

/*
 * --buf-tmpfs: the buffers as page-aligned slices of one memfd (a tmpfs
 * file) mapped MAP_SHARED, left unfaulted: the reads fault them in.
 */
static int map_buffers(struct shmem *s, __u32 readers)
{
	__u64 slice = (s->bufsize + s->page - 1) / s->page * s->page;
	void *map;
	int fd, err = 0;

	fd = memfd_create("folioscope-buf", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	s->buflen = slice * readers;
	if (ftruncate(fd, s->buflen)) {
		err = -errno;
		goto cleanup;
	}
	map = mmap(NULL, s->buflen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		goto cleanup;
	}
	s->bufmap = map;
	for (__u32 i = 0; i < readers; i++)
		s->rd[i].mem = s->bufmap + i * slice;
	s->nreaders = readers;
cleanup:
	close(fd);
	return err;
}

/* Allocate and fault in the buffers size_buffers sized. */
static int make_buffers(struct shmem *s, bool buf_tmpfs)
{
	__u32 readers = size_buffers(s);

	if (buf_tmpfs)
		return map_buffers(s, readers);
	for (__u32 i = 0; i < readers; i++) {
		struct sh_reader *rd = &s->rd[i];
		int err;

		err = -posix_memalign((void **)&rd->mem, WL_PMD, s->bufsize);
		if (err) {
			rd->mem = NULL;
			return err;
		}
		s->nreaders++;
		/* Fault it in now: the traced reads should copy, not
		 * fault. */
		memset(rd->mem, 0, s->bufsize);
	}
	return 0;
}

static struct shmem *shmem__alloc(void)
{
	struct shmem *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->page = (__u64)sysconf(_SC_PAGESIZE);
	return s;
}

/* The mounts, files and read plans of o. */
static int plan_build(struct shmem *s, const struct wl_opts *o)
{
	int err = check_opts(s, o);

	if (err)
		return err;
	if (o->mode == WL_MODE_MATRIX) {
		static const struct sh_file files[SH_MATRIX_FILES] = {
			{ SH_FILL_FULL, (4ULL << 20) + 4097 },
			{ SH_FILL_SPARSE, (4ULL << 20) + 20000 },
			{ SH_FILL_MIXED, (2ULL << 20) + 300003 },
			{ SH_FILL_FALLOC, (4ULL << 20) + 8193 },
			{ SH_FILL_FALLOC_KEEP, (2ULL << 20) + 40961 },
		};

		s->matrix = true;
		s->nmount = WL_HUGE_NR;
		for (int i = 0; i < WL_HUGE_NR; i++) {
			s->m[i].huge = (enum wl_huge)i;
			for (int j = 0; j < SH_MATRIX_FILES; j++) {
				s->inst[s->ninst].f = files[j];
				s->inst[s->ninst++].mount = i;
			}
		}
		s->nplans = sh_plan__matrix(&s->plans);
	} else {
		s->nmount = 1;
		s->m[0].huge = o->huge;
		s->inst[0].f.fill = o->fill;
		s->inst[0].f.size = o->size;
		s->ninst = 1;
		s->plans = &s->custom;
		s->nplans = 1;
	}
	return 0;
}

int shmem__space(const struct wl_opts *o, __u64 *bytes)
{
	struct shmem *s = shmem__alloc();
	int err;

	*bytes = 0;
	if (!s)
		return -ENOMEM;
	err = plan_build(s, o);
	if (!err)
		*bytes = mem_need(s);
	shmem__destroy(s);
	return err;
}

int shmem__prepare(void **out, const struct wl_opts *o)
{
	unsigned char *buf = NULL;
	struct shmem *s;
	int err;

	*out = NULL;
	s = shmem__alloc();
	if (!s) {
		err = -ENOMEM;
		wl__err(WL, err, "allocate state");
		return err;
	}
	s->inject = o->inject_wrong;
	s->stop_after = o->stop_after;
	s->tput_passes = o->mode == WL_MODE_THROUGHPUT ? o->throughput : 0;
	s->deadline_base = o->deadline_base ?: WL_DEADLINE_BASE;
	s->group_end = o->group_end;
	s->group_ctx = o->group_ctx;
	err = plan_build(s, o);
	if (err)
		goto cleanup;
	err = check_mem(s, o);
	if (err)
		goto cleanup;
	buf = malloc(WL_PMD);
	if (!buf) {
		err = -ENOMEM;
		wl__err(WL, err, "allocate write buffer");
		goto cleanup;
	}
	for (int i = 0; !err && i < s->nmount; i++)
		err = make_mount(s, i, buf);
	if (err)
		goto cleanup;
	err = make_buffers(s, o->buf_tmpfs);
	if (err) {
		wl__err(WL, err, "allocate %llu-byte read buffers",
			(unsigned long long)s->bufsize);
		goto cleanup;
	}
	*out = s;
cleanup:
	free(buf);
	if (err)
		shmem__destroy(s);
	return err;
}

void shmem__destroy(void *state)
{
	struct shmem *s = state;

	if (!s)
		return;
	free(s->skip);
	if (s->bufmap)
		munmap(s->bufmap, s->buflen);
	else
		for (__u32 i = 0; i < s->nreaders; i++)
			free(s->rd[i].mem);
	for (int i = 0; i < s->ninst; i++)
		if (s->inst[i].made)
			wl__remove(WL, s->inst[i].path, false);
	/* Only remove a mount point once nothing is mounted on it. */
	for (int i = 0; i < s->nmount; i++) {
		struct sh_mount *m = &s->m[i];

		if ((!m->mounted || !wl__umount(WL, m->dir)) && m->dir[0])
			wl__remove(WL, m->dir, true);
	}
	pthread_mutex_destroy(&s->lock);
	free(s);
}
