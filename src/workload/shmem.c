// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * shmem-read workload: read files on fresh tmpfs mounts
 * (shmem_file_read_iter) with read, pread or readv, from one or several
 * threads, and check every call: its return value against the file size
 * and every byte against what was written (zeros in holes), plus guard
 * bytes around the user buffer.
 *
 *   default   one file (--fill, --size) on one mount (--huge), read with
 *             one pattern (--syscall, --bs, --offset, --length,
 *             --buf-align, --iovecs, --readers); --buf-tmpfs maps the
 *             buffers from a memfd, faulted in by the reads' copies
 *   --throughput  first N timed passes of read or pread over the file
 *             with nothing checked and nothing traced (throughput.c),
 *             then the checked pass; the report gets the middle pass's
 *             MB/s and CPU time
 *   --matrix  the default matrix: full, sparse and mixed files on
 *             huge=always, within_size, advise and never mounts, each read
 *             with every pattern of truth.c's table
 *
 * Files are written so that their folios mix sizes: "mixed" writes its
 * 4 KiB tail pieces while the mount is huge=never and only then switches
 * to its huge= mode for the whole 2 MiB chunks, so even huge=always keeps
 * the tail in small folios.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <liburing.h>

#include "util/util.h"
#include "workload/workload_internal.h"

#define WL "shmem-read"
/* Larger requests are cut by read(2) to 0x7ffff000 anyway; the --bs
 * hint says "1 GiB". */
#define BS_MAX (1ULL << 30)
/* Reader buffers of all threads together. */
#define BUF_TOTAL_MAX (4ULL << 30)
/* Guard bytes before and after the buffer and between iovecs: the
 * kernel must not write outside what it was given. */
#define GUARD 64
#define IOV_GAP 3
#define CANARY 0xa5
#define NMODES 4
#define MATRIX_FILES 3

static const char *const huge_modes[NMODES] = {
	"always",
	"within_size",
	"advise",
	"never",
};

struct sh_mount {
	const char *huge;
	char dir[PATH_MAX];
	bool mounted;
	__u64 huge_kb; /* ShmemHugePages growth while its files were made */
	bool expect_huge;
};

struct sh_inst {
	struct sh_file f;
	int mount;
	char path[PATH_MAX];
	bool made;
	/* Another process changed its size: its later plans do not run. */
	bool disturbed;
};

struct shmem;

/* Readers wait here until all exist, so that their reads overlap; or
 * leave without reading when one could not be started. */
struct sh_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int state; /* 0 wait, 1 go, -1 give up */
};

/* The --iovecs message below spells out the limit. */
_Static_assert(FS_MAX_IOVECS == 64, "update the --iovecs message");

struct sh_reader {
	struct shmem *s;
	struct sh_inst *in;
	const struct sh_plan *pl;
	__u32 idx;
	unsigned char *mem; /* page-aligned buffer, made in prepare */
	struct iovec iov[FS_MAX_IOVECS];
	struct sh_gate *gate;
	__u64 calls, bytes, errors;
	__u64 short_uring; /* io_uring reads that returned short */
	__u64 seq;    /* calls of this reader over all plans: poison seed */
	__u64 passed; /* checks passed, added to the report at the end */
	int err;
	int fd;		      /* the reader's own open file */
	struct io_uring ring; /* io_uring plans: the reader's own ring */
	bool ring_ok;
	/* Piped calls: where the bytes go, and the calls the probes may
	 * see beyond one per call. */
	struct wl_piped piped;
	__u64 piped_slack;
	/* loop: the device, its node if we made it, what it reads up to */
	char loopdev[64];
	int loop_fd;
	bool loop_node;
	__u64 eof;
	__u64 made; /* piped and loop calls made (the others: calls) */
	bool stop;  /* the file changed under it: read no further */
	__u64 cur_call, cur_pos; /* the call in flight, for the watchdog */
};

struct shmem {
	const char *mode; /* "custom" or "matrix" */
	wl_group_fn group_end;
	void *group_ctx;
	int nmount;
	struct sh_mount m[NMODES];
	int ninst;
	struct sh_inst inst[NMODES * MATRIX_FILES];
	int nplans;
	const struct sh_plan *plans;
	struct sh_plan custom;
	/* Why plan p cannot run on this kernel ("" when it can). */
	char (*skip)[160];
	__u64 page, bufsize;
	__u32 nreaders; /* buffers made */
	/* --buf-tmpfs: every reader's buffer is a slice of this mapping. */
	unsigned char *bufmap;
	__u64 buflen;
	struct sh_reader rd[SH_MAX_READERS];
	/* Checks come from several threads; model__check is not atomic. */
	pthread_mutex_t lock;
	struct fs_report *r;
	bool inject, first_run;
	__u64 stop_after, calls_done; /* --stop-after */
	__u64 deadline_base;	      /* seconds */
	struct wl_watch *watch;
	struct wl_totals tot;
	__u64 uring_calls; /* reads through io_uring: no syscall of theirs */
	__u64 loop_calls;  /* reads of a loop device: the loop worker's */
	__u64 piped_calls; /* splice, sendfile, copy_file_range: no read
			    * syscall either */
	unsigned int tput_passes; /* --throughput */
};

static int parse_in(const char *name, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

static int check_opts(struct shmem *s, const struct wl_opts *o)
{
	const char *huge = o->huge ? o->huge : "always";
	const char *fill = o->fill ? o->fill : "full";
	const char *call = o->syscall ? o->syscall : "read";
	const char *rwf = o->rwf ? o->rwf : "none";
	const struct sh_call_info *ci;
	struct sh_plan *pl = &s->custom;
	int err = -EINVAL;

	if (parse_in(huge, huge_modes, NMODES) < 0) {
		wl__err_hint(WL, err,
			     "(want always, never, within_size or advise)",
			     "--huge '%s'", huge);
		return err;
	}
	if (o->matrix)
		return 0;
	if (sh_fill__parse(fill) < 0) {
		wl__err_hint(WL, err, "(want full, sparse or mixed)",
			     "--fill '%s'", fill);
		return err;
	}
	if (sh_call__parse(call) < 0) {
		wl__err_hint(WL, err, "(want " SH_CALL_NAMES ")",
			     "--syscall '%s'", call);
		return err;
	}
	ci = sh_call__info(sh_call__parse(call));
	if (sh__rwf_parse(rwf) < 0 || (o->rwf && !ci->rwf)) {
		wl__err_hint(WL, err,
			     "(want none, nowait or hipri, with --syscall "
			     "preadv2)",
			     "--rwf '%s'", rwf);
		return err;
	}
	if (o->buf_tmpfs && sh_call__parse(call) == SH_URING_FIXED) {
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
	    (o->iovecs > 1 && !ci->iovecs)) {
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
	if (ci->same_file && o->readers > 1) {
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
	if (ci->loop && (o->bs % 512 || o->buf_align % 512)) {
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
	pl->call = sh_call__parse(call);
	pl->rwf = sh__rwf_parse(rwf);
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
static int mount_tmpfs(struct shmem *s, int i, const char *huge)
{
	struct sh_mount *m = &s->m[i];
	__u64 limit = WL_PMD, out = 0;
	int err;

	for (int j = 0; j < s->ninst; j++)
		if (s->inst[j].mount == i)
			limit += roundup_pmd(s->inst[j].f.size);
	for (int p = 0; p < s->nplans; p++) {
		const struct sh_call_info *ci = sh_call__info(s->plans[p].call);

		__u64 need = s->plans[p].readers * roundup_pmd(s->plans[p].bs);

		/* The file itself takes a copy from the next 2 MiB on. */
		if (ci->same_file)
			need += WL_PMD;
		if (ci->out == SH_OUT_FILE && !ci->other_fs && need > out)
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

			wl__pattern_fill(buf, off, n);
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

/* Mount i and make its files; see the file comment for the order. */
static int make_mount(struct shmem *s, int i, unsigned char *buf)
{
	struct sh_mount *m = &s->m[i];
	bool early = false;
	int fds[MATRIX_FILES * NMODES], n = 0, err;
	__u64 kb0, kb1;
	char data[64];

	for (int j = 0; j < s->ninst; j++)
		if (s->inst[j].mount == i && has_early(&s->inst[j].f))
			early = true;
	early = early && strcmp(m->huge, "never");
	kb0 = wl__shmem_huge_kb();
	err = mount_tmpfs(s, i, early ? "never" : m->huge);
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
		 * holes at the end need it anyway. */
		if (ftruncate(fds[n], in->f.size)) {
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
		snprintf(data, sizeof(data), "huge=%s", m->huge);
		err = wl__remount(m->dir, data);
		if (err) {
			wl__err(WL, err, "remount tmpfs %s '%s'", data, m->dir);
			goto cleanup;
		}
	}
	for (int j = 0, k = 0; j < s->ninst; j++) {
		if (s->inst[j].mount != i)
			continue;
		err = write_pieces(&s->inst[j], fds[k++], false, buf);
		if (err)
			goto cleanup;
	}
	/* Growth only: others freeing huge pages meanwhile is not ours. */
	kb1 = wl__shmem_huge_kb();
	m->huge_kb = kb1 > kb0 ? kb1 - kb0 : 0;
	/* A 2 MiB folio needs a 2 MiB region inside i_size for within_size;
	 * huge=always gets one anywhere. */
	for (int j = 0; j < s->ninst; j++)
		if (s->inst[j].mount == i && s->inst[j].f.size >= WL_PMD &&
		    (!strcmp(m->huge, "always") ||
		     !strcmp(m->huge, "within_size")))
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
		__u64 n = pl->buf_align + pl->bs +
			  (pl->iovecs - 1) * (__u64)IOV_GAP + GUARD;

		need = n > need ? n : need;
		readers = pl->readers > readers ? pl->readers : readers;
	}
	/* A page in front: the base is page-aligned (not more), with the
	 * leading guard bytes in the page before it. */
	s->bufsize = s->page + need;
	return readers;
}

/* Does the kernel force huge folios on every tmpfs mount? */
static bool thp_shmem_forced(void)
{
	char line[128] = "";
	FILE *f;

	f = fopen("/sys/kernel/mm/transparent_hugepage/shmem_enabled", "re");
	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return strstr(line, "[force]") != NULL;
}

/*
 * tmpfs pages cannot be reclaimed (no swap here), so the files and the
 * buffers must leave most of the machine free: refuse a run that needs
 * more than half of MemAvailable, before anything is written.
 */
static __u64 mem_need(struct shmem *s)
{
	bool forced = thp_shmem_forced();
	__u64 need, readers = size_buffers(s);

	need = readers * s->bufsize;
	for (int i = 0; i < s->ninst; i++) {
		const char *huge = s->m[s->inst[i].mount].huge;

		need += sh_file__mem(&s->inst[i].f,
				     forced || strcmp(huge, "never"));
	}
	return need;
}

static int check_mem(struct shmem *s, const struct wl_opts *o)
{
	__u64 need = mem_need(s);
	char what[96];

	if (o->matrix)
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

/* Why call (with rwf) cannot be used on this kernel's tmpfs, into why
 * ("" when it can): one call tried on file path, in the traced phase, so
 * counted in tot as the probes see it (a preadv2 refused for its flag
 * never reaches shmem_file_read_iter). */
static void probe_call(enum sh_call call, int rwf, const char *path,
		       struct wl_totals *tot, char *why, size_t n, int *got)
{
	ssize_t ret;
	unsigned char byte;
	struct iovec iov = { &byte, 1 };
	int fd, err;

	why[0] = '\0';
	*got = -2; /* no read */
	if (sh_call__info(call)->uring) {
		struct wl_uring_req r = { .call = call, .fd = -1, .iov = &iov };

		err = wl_uring__run(&r);
		if (err && !strcmp(r.failed, "ring"))
			snprintf(why, n,
				 "io_uring: %s (not built, or "
				 "kernel.io_uring_disabled)",
				 strerror(-err));
		else if (err)
			snprintf(why, n, "io_uring %s: %s", r.failed,
				 strerror(-err));
		return;
	}
	if (!rwf)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return; /* the readers say why */
	ret = preadv2(fd, &iov, 1, 0, rwf);
	err = ret < 0 ? errno : 0;
	close(fd);
	tot->sys.calls++;
	if (ret < 0)
		tot->sys.errors++;
	else
		tot->sys.bytes += (__u64)ret;
	if (err == EOPNOTSUPP) {
		snprintf(why, n,
			 "preadv2 RWF_%s: EOPNOTSUPP: this kernel's tmpfs "
			 "does not take it",
			 rwf == RWF_NOWAIT ? "NOWAIT" : "HIPRI");
		return;
	}
	tot->func.calls++;
	if (ret < 0)
		tot->func.errors++;
	else
		tot->func.bytes += (__u64)ret;
	*got = ret == 1 ? byte : -1;
}

/*
 * The checks from now on are of mount mi read with plan pl: one group of
 * the matrix; one layout (of the command line, or of --random) is one
 * group per mount, as its coverage is.
 */
static void check_group(struct shmem *s, int mi, const struct sh_plan *pl)
{
	char name[64];

	if (!strcmp(s->mode, "matrix"))
		snprintf(name, sizeof(name), "tmpfs huge=%s plan=%s",
			 s->m[mi].huge, pl->name);
	else
		snprintf(name, sizeof(name), "tmpfs huge=%s", s->m[mi].huge);
	model__check_group(s->r, name);
}

/* The first byte of the first file, as a probe read it (-1: not). */
static void probe_check(struct shmem *s, const struct sh_plan *pl, int got)
{
	const struct sh_inst *in = &s->inst[0];
	unsigned char want = 0;
	char lay[320], w[48], g[48];

	sh_file__fill(&in->f, 0, &want, 1);
	snprintf(lay, sizeof(lay),
		 "huge=%s file=%s size=%llu plan=%s syscall=%s rwf=%s probe "
		 "pos=0",
		 s->m[in->mount].huge, sh_fill__name(in->f.fill),
		 (unsigned long long)in->f.size, pl->name,
		 sh_call__name(pl->call), sh__rwf_name(pl->rwf));
	snprintf(w, sizeof(w), "1 byte: 0x%02x", want);
	if (got < 0)
		snprintf(g, sizeof(g), "no byte");
	else
		snprintf(g, sizeof(g), "0x%02x", got);
	pthread_mutex_lock(&s->lock);
	check_group(s, in->mount, pl);
	model__check(s->r, got == want, lay, w, g);
	pthread_mutex_unlock(&s->lock);
}

static void piped_probe(struct shmem *s, const struct sh_plan *pl, char *why,
			size_t n, int *got);
static void loop_probe(struct shmem *s, char *why, size_t n, int *got);

/* Which plans the kernel cannot run (s->skip), each said on stderr. */
static int probe_calls(struct shmem *s)
{
	s->skip = calloc((size_t)s->nplans, sizeof(*s->skip));
	if (!s->skip) {
		wl__err(WL, -ENOMEM, "allocate the plans' skips");
		return -ENOMEM;
	}
	for (int p = 0; p < s->nplans; p++) {
		const struct sh_plan *pl = &s->plans[p];

		int got;

		if (sh_call__info(pl->call)->piped)
			piped_probe(s, pl, s->skip[p], sizeof(s->skip[p]),
				    &got);
		else if (sh_call__info(pl->call)->loop)
			loop_probe(s, s->skip[p], sizeof(s->skip[p]), &got);
		else
			probe_call(pl->call, pl->rwf, s->inst[0].path, &s->tot,
				   s->skip[p], sizeof(s->skip[p]), &got);
		/* The probe's one byte is a read like the others: checked. */
		if (got != -2)
			probe_check(s, pl, got);
		if (s->skip[p][0])
			wl__err(WL, 0, "skipped plan %s (%s%s%s): %s", pl->name,
				sh_call__name(pl->call), pl->rwf ? " rwf=" : "",
				sh__rwf_name(pl->rwf), s->skip[p]);
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
	if (o->matrix) {
		static const struct sh_file files[MATRIX_FILES] = {
			{ SH_FILL_FULL, (4ULL << 20) + 4097 },
			{ SH_FILL_SPARSE, (4ULL << 20) + 20000 },
			{ SH_FILL_MIXED, (2ULL << 20) + 300003 },
		};

		s->mode = "matrix";
		s->nmount = NMODES;
		for (int i = 0; i < NMODES; i++) {
			s->m[i].huge = huge_modes[i];
			for (int j = 0; j < MATRIX_FILES; j++) {
				s->inst[s->ninst].f = files[j];
				s->inst[s->ninst++].mount = i;
			}
		}
		s->nplans = sh_plan__matrix(&s->plans);
	} else {
		s->mode = "custom";
		s->nmount = 1;
		s->m[0].huge = huge_modes[parse_in(o->huge ? o->huge : "always",
						   huge_modes, NMODES)];
		s->inst[0].f.fill = sh_fill__parse(o->fill ? o->fill : "full");
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

int shmem__prepare(struct shmem **out, const struct wl_opts *o)
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
	s->tput_passes = o->throughput;
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

	if (fstat(rd->fd, &st) || (__u64)st.st_size == in->f.size)
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

/* Failure kinds besides a wrong answer (FS_CASE_ANSWER). */
#define K_DATA "data"		/* [0, ret) is not the file's contents */
#define K_UNWRITTEN "unwritten" /* ... and still holds the poison */
#define K_PAST "past ret"	/* [ret, iov_len) changed */
#define K_GUARD "guard"		/* outside the iovecs */

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

static void set_guards(struct sh_reader *rd, unsigned char *base, __u32 n)
{
	memset(base - GUARD, CANARY, GUARD);
	for (__u32 j = 0; j + 1 < n; j++)
		memset((unsigned char *)rd->iov[j].iov_base +
			       rd->iov[j].iov_len,
		       CANARY, IOV_GAP);
	memset((unsigned char *)rd->iov[n - 1].iov_base +
		       rd->iov[n - 1].iov_len,
	       CANARY, GUARD);
}

/* Offset from base of the first guard byte that changed, or -1. */
static long guards_hit(const struct sh_reader *rd, unsigned char *base, __u32 n)
{
	const unsigned char *g;

	for (int i = 0; i < GUARD; i++)
		if (base[i - GUARD] != CANARY)
			return i - GUARD;
	for (__u32 j = 0; j < n; j++) {
		size_t len = j + 1 < n ? IOV_GAP : GUARD;

		g = (unsigned char *)rd->iov[j].iov_base + rd->iov[j].iov_len;
		for (size_t i = 0; i < len; i++)
			if (g[i] != CANARY)
				return g + i - base;
	}
	return -1;
}

/* What a call should have done, for a failed check's "expected". */
static void check_fail(struct sh_reader *rd, const char *kind, __u64 call,
		       __u64 pos, __u64 want, const char *got)
{
	char w[96];

	snprintf(w, sizeof(w),
		 "ret=%llu, data as written, rest of the buffer and guards "
		 "untouched",
		 (unsigned long long)want);
	check(rd, false, kind, call, pos, w, got);
}

/* The poison seed of iovec byte 0 of the reader's current call. */
static __u64 poison_seed(const struct sh_reader *rd)
{
	return WL_POISON_BASE + ((__u64)rd->idx << 40) + rd->seq * 4099;
}

/* Fill every iovec with this call's poison (offsets run on across the
 * iovecs), then the guards. */
static void poison(struct sh_reader *rd, unsigned char *base, __u32 n)
{
	__u64 seed = poison_seed(rd);

	for (__u32 j = 0; j < n; j++) {
		wl__poison_fill(rd->iov[j].iov_base, seed, rd->iov[j].iov_len);
		seed += rd->iov[j].iov_len;
	}
	set_guards(rd, base, n);
}

/*
 * Check one call's result: return value, data (scattered over the iovecs
 * for readv, compared with the file's contents in place) and guards.
 * Builds the texts only when something is wrong.
 */
static void check_call(struct sh_reader *rd, unsigned char *base, __u32 n,
		       __u64 call, __u64 pos, ssize_t ret, int err)
{
	const struct sh_plan *pl = rd->pl;
	__u64 want = sh__expect_ret(rd->eof, pos, pl->bs);
	/* The test hook: the first call of the first run expects its first
	 * byte flipped, so that one check must fail. */
	bool inject = rd->s->inject && rd->s->first_run && !rd->idx && !call &&
		      ret > 0;
	__u64 seed = poison_seed(rd), done = 0;
	char got[96];
	long hit;

	if (ret < 0) {
		snprintf(got, sizeof(got), "error %d (%s)", err,
			 strerror(-err));
		check_fail(rd, FS_CASE_ANSWER, call, pos, want, got);
		return;
	}
	/* splice, sendfile and copy_file_range may move less than asked
	 * (where a pipe's worth of reading ends at a hole, say), but not
	 * nothing while there is something to move. */
	if ((__u64)ret != want &&
	    !(sh_call__info(pl->call)->piped && ret > 0 && (__u64)ret < want)) {
		snprintf(got, sizeof(got), "ret=%lld", (long long)ret);
		check_fail(rd, FS_CASE_ANSWER, call, pos, want, got);
		return;
	}
	/* [0, ret): the file's bytes; a byte still holding the poison was
	 * never written (a hole the kernel did not zero, say). */
	for (__u32 j = 0; j < n && done < (__u64)ret; j++) {
		const unsigned char *b = rd->iov[j].iov_base;
		size_t len = rd->iov[j].iov_len, x;
		unsigned char wb;

		if (len > ret - done)
			len = ret - done;
		x = inject && !j
			    ? 0
			    : sh_file__diff(&rd->in->f, pos + done, b, len);
		if (x < len) {
			/* Unwritten when the bytes from there on still hold
			 * the poison: four of them where there are (one could
			 * be the file's byte by chance). */
			size_t k = len - x < 4 ? len - x : 4;
			bool stale =
				wl__poison_diff(b + x, seed + done + x, k) == k;

			sh_file__fill(&rd->in->f, pos + done + x, &wb, 1);
			if (inject && !j)
				wb ^= 0xff;
			snprintf(got, sizeof(got),
				 "ret=%lld, file offset %llu: want 0x%02x, "
				 "got 0x%02x%s",
				 (long long)ret,
				 (unsigned long long)(pos + done + x), wb, b[x],
				 stale ? " (not written)" : "");
			check_fail(rd, stale && !inject ? K_UNWRITTEN : K_DATA,
				   call, pos, want, got);
			return;
		}
		done += len;
	}
	/* [ret, iov_len) of every iovec: still this call's poison. */
	done = 0;
	for (__u32 j = 0; j < n; j++) {
		const unsigned char *b = rd->iov[j].iov_base;
		size_t len = rd->iov[j].iov_len, from = 0, x;

		if (done < (__u64)ret)
			from = (__u64)ret - done < len ? (size_t)(ret - done)
						       : len;
		x = from +
		    wl__poison_diff(b + from, seed + done + from, len - from);
		if (x < len) {
			snprintf(got, sizeof(got),
				 "ret=%lld, wrote iovec %u byte %zu (buffer "
				 "byte %llu) past ret",
				 (long long)ret, j, x,
				 (unsigned long long)(done + x));
			check_fail(rd, K_PAST, call, pos, want, got);
			return;
		}
		done += len;
	}
	hit = guards_hit(rd, base, n);
	if (hit != -1) {
		snprintf(got, sizeof(got),
			 "ret=%lld, wrote outside the buffer at base%+ld",
			 (long long)ret, hit);
		check_fail(rd, K_GUARD, call, pos, want, got);
		return;
	}
	check(rd, true, NULL, call, pos, NULL, NULL);
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
static bool position_ok(struct sh_reader *rd, int fd, __u64 call, __u64 pos,
			__u64 want)
{
	off_t cur = lseek(fd, 0, SEEK_CUR);
	char w[96], g[96];

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

/*
 * Why piped plan pl cannot run here, into why ("" when it can): one byte
 * of the first file tried the way its readers will, counted in s->tot as
 * the probes see it; *got is the byte that came back (-1: none, -2: not
 * tried). A kernel's refusal (EXDEV across filesystems, say) is a skip.
 */
static void piped_probe(struct shmem *s, const struct sh_plan *pl, char *why,
			size_t n, int *got)
{
	const struct sh_inst *in = &s->inst[0];
	struct wl_piped t;
	unsigned char byte[8] = { 0 };
	ssize_t ret, back;
	int fd, err;

	why[0] = '\0';
	*got = -2;
	fd = open(in->path,
		  (sh_call__info(pl->call)->same_file ? O_RDWR : O_RDONLY) |
			  O_CLOEXEC);
	if (fd < 0)
		return; /* the readers say why */
	err = wl_piped__open(&t, pl->call, 1, s->m[in->mount].dir);
	if (err) {
		snprintf(why, n, "%s: its output: %s", sh_call__name(pl->call),
			 strerror(-err));
		goto out;
	}
	ret = wl_piped__read(&t, fd, byte, 1, 0, &back);
	err = ret < 0 ? errno : 0;
	/* EAFNOSUPPORT: no AF_UNIX (a small test kernel) for
	 * sendfile-socket's socket pair. */
	if (ret < 0 && (err == EXDEV || err == EINVAL || err == ENOSYS ||
			err == EOPNOTSUPP || err == EAFNOSUPPORT)) {
		snprintf(why, n, "%s: %s: this kernel does not take it",
			 sh_call__name(pl->call), strerror(err));
		goto out;
	}
	if (ret > 0) {
		s->tot.func.calls++;
		s->tot.func.bytes += (__u64)ret;
	}
	if (ret >= 0)
		s->tot.func.calls_slack += wl_piped__slack(0, ret, s->page);
	/* Checked like the readers' calls. */
	s->piped_calls++;
	*got = ret == 1 && back == 1 ? byte[0] : -1;
out:
	wl_piped__close(&t);
	close(fd);
}

/* A loop device over the reader's file, opened for O_DIRECT reads: the
 * fd, or -1 with errno. */
static int loop_open(struct sh_reader *rd)
{
	int err = wl__loop_attach(WL, rd->in->path, rd->loopdev,
				  sizeof(rd->loopdev), &rd->loop_fd,
				  &rd->loop_node);
	int fd;

	if (err) {
		errno = -err;
		return -1;
	}
	fd = open(rd->loopdev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		wl__err(WL, -errno, "open '%s' with O_DIRECT", rd->loopdev);
	return fd;
}

/* The loop device's binding fd (autoclear: the device unbinds at its
 * last close) and the node, if loop_open made it. */
static void loop_close(struct sh_reader *rd)
{
	if (rd->loop_fd >= 0)
		close(rd->loop_fd);
	rd->loop_fd = -1;
	if (rd->loop_node)
		unlink(rd->loopdev);
	rd->loop_node = false;
}

/* Why loop plans cannot run here, into why ("" when they can): a loop
 * device bound to the first file and unbound again. No read. */
static void loop_probe(struct shmem *s, char *why, size_t n, int *got)
{
	struct sh_reader t = { .s = s, .in = &s->inst[0], .loop_fd = -1 };
	int err = wl__loop_attach(WL, t.in->path, t.loopdev, sizeof(t.loopdev),
				  &t.loop_fd, &t.loop_node);

	*got = -2;
	why[0] = '\0';
	if (err)
		snprintf(why, n, "loop: no loop device to bind: %s",
			 strerror(-err));
	loop_close(&t);
}

/* An io_uring plan's ring, with the reader's buffer registered for
 * read_fixed. The kernel has io_uring: shmem__prepare checked. */
static int ring_open(struct sh_reader *rd)
{
	struct iovec buf = { rd->mem, rd->s->bufsize };
	int err;

	err = io_uring_queue_init(4, &rd->ring, 0);
	if (err)
		return err;
	rd->ring_ok = true;
	if (rd->pl->call == SH_URING_FIXED)
		err = io_uring_register_buffers(&rd->ring, &buf, 1);
	return err;
}

/* One io_uring read at pos, waited for: its result as read(2) gives one
 * (-1 with errno). */
static ssize_t ring_read(struct sh_reader *rd, int fd, unsigned char *base,
			 __u32 n, __u64 pos)
{
	const struct sh_plan *pl = rd->pl;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&rd->ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe) {
		errno = EBUSY;
		return -1;
	}
	if (pl->call == SH_URING_READ)
		io_uring_prep_read(sqe, fd, base, (unsigned int)pl->bs, pos);
	else if (pl->call == SH_URING_READV)
		io_uring_prep_readv(sqe, fd, rd->iov, n, pos);
	else
		io_uring_prep_read_fixed(sqe, fd, base, (unsigned int)pl->bs,
					 pos, 0);
	ret = io_uring_submit_and_wait(&rd->ring, 1);
	if (ret >= 0)
		ret = io_uring_wait_cqe(&rd->ring, &cqe);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	ret = cqe->res;
	io_uring_cqe_seen(&rd->ring, cqe);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

/* One reader: open, read the plan's range call by call, close. */
static void *reader(void *arg)
{
	struct sh_reader *rd = arg;
	const struct sh_plan *pl = rd->pl;
	const struct sh_call_info *ci = sh_call__info(pl->call);
	/* A loop device holds the file's whole sectors; O_DIRECT reads
	 * start on one. */
	__u64 sector = ci->loop ? ~511ULL : ~0ULL;
	__u64 start = sh_plan__start(pl, rd->in->f.size) & sector, pos = start;
	unsigned char *base = rd->mem + rd->s->page + pl->buf_align, *p;
	__u32 n = ci->iovecs ? pl->iovecs : 1;
	/* The ground truth's bound: the calls the bytes take, plus the
	 * one that returns 0 at EOF. */
	__u64 total = plan_bytes(pl, rd->in->f.size & sector, start);
	/* A piped call may come back short: once a page at worst. */
	__u64 need = (total + pl->bs - 1) / pl->bs + 1 +
		     (ci->piped ? (total + rd->s->page - 1) / rd->s->page : 0);
	__u64 limit = wl__deadline_ns(rd->s->deadline_base, total, need);
	__u64 call = 0, t0;
	char w[96], g[96];
	ssize_t ret, back = 0;
	int fd;

	p = base;
	for (__u32 j = 0; j < n; j++) {
		rd->iov[j].iov_base = p;
		rd->iov[j].iov_len = sh__iov_len(pl->bs, n, j);
		p += rd->iov[j].iov_len + IOV_GAP;
	}
	if (rd->gate) {
		pthread_mutex_lock(&rd->gate->lock);
		while (!rd->gate->state)
			pthread_cond_wait(&rd->gate->cond, &rd->gate->lock);
		pthread_mutex_unlock(&rd->gate->lock);
		if (rd->gate->state < 0)
			return NULL;
	}
	rd->eof = rd->in->f.size & sector;
	fd = ci->loop ? loop_open(rd)
		      : open(rd->in->path,
			     (ci->same_file ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0) {
		rd->err = -errno;
		loop_close(rd);
		return NULL;
	}
	rd->fd = fd;
	/* Each reader has its own file position. */
	if (ci->moves && lseek(fd, start, SEEK_SET) < 0) {
		rd->err = -errno;
		goto cleanup;
	}
	if (ci->uring) {
		rd->err = ring_open(rd);
		if (rd->err)
			goto cleanup;
	}
	if (ci->piped) {
		rd->err = wl_piped__open(&rd->piped, pl->call, pl->bs,
					 rd->s->m[rd->in->mount].dir);
		if (rd->err)
			goto cleanup;
	}
	t0 = wl__now_ns();
	while (!pl->length || pos - start < pl->length) {
		__u64 now = wl__now_ns();
		int err = 0;

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
		 * the guards their canary. */
		rd->seq++;
		poison(rd, base, n);
		/* --buf-tmpfs: unmapped, so this call's copy faults. The
		 * poison stays in the memfd for the checks. */
		if (rd->s->bufmap)
			madvise(rd->mem, rd->s->bufsize, MADV_DONTNEED);
		rd->cur_call = call;
		rd->cur_pos = pos;
		wl_watch__enter(rd->s->watch, (int)rd->idx, limit - (now - t0),
				describe, rd);
		switch (pl->call) {
		case SH_READ:
			ret = read(fd, base, pl->bs);
			break;
		case SH_PREAD:
			ret = pread(fd, base, pl->bs, pos);
			break;
		case SH_READV:
			ret = readv(fd, rd->iov, n);
			break;
		case SH_PREADV2:
			ret = preadv2(fd, rd->iov, n, (off_t)pos, pl->rwf);
			break;
		case SH_LOOP:
			ret = pread(fd, base, pl->bs, (off_t)pos);
			break;
		default:
			ret = ci->piped ? wl_piped__read(&rd->piped, fd, base,
							 pl->bs, pos, &back)
					: ring_read(rd, fd, base, n, pos);
			break;
		}
		if (ret < 0)
			err = -errno;
		wl_watch__leave(rd->s->watch, (int)rd->idx);
		if (ci->piped && ret >= 0 && back < 0) {
			rd->err = -errno;
			wl__err(WL, rd->err,
				"the bytes of a %s back from its "
				"output",
				sh_call__name(pl->call));
			break;
		}
		if (ci->loop) {
			/* Read by the loop worker: not this process's. */
			rd->made++;
		} else if (ci->piped) {
			rd->made++;
			/* At least one read of the file in the kernel for a
			 * call that moved bytes, a pipe's worth each; one
			 * that failed was refused before any read. */
			if (ret > 0)
				rd->calls++;
			if (ret >= 0)
				rd->piped_slack +=
					wl_piped__slack(pos, ret, rd->s->page);
		} else {
			/* Every call reaches shmem_file_read_iter. */
			rd->calls++;
			if (ret < 0)
				rd->errors++;
		}
		if (err == -EINTR)
			continue;
		check_call(rd, base, n, call, pos, ret, err);
		/* The loop worker's reads are not this run's to count. */
		if (ret > 0 && !ci->loop)
			rd->bytes += ret;
		if (ci->uring && ret > 0 && (__u64)ret < pl->bs)
			rd->short_uring++;
		if (!rd->stop &&
		    !position_ok(rd, fd, call, pos,
				 !ci->moves ? 0 : pos + (ret > 0 ? ret : 0)))
			break;
		call++;
		/* --stop-after: a test may now change the file. */
		if (rd->s->stop_after &&
		    __atomic_add_fetch(&rd->s->calls_done, 1,
				       __ATOMIC_RELAXED) == rd->s->stop_after)
			raise(SIGSTOP);
		if (ret <= 0 || rd->stop)
			break;
		pos += ret;
	}
cleanup:
	reader_done(rd);
	if (rd->ring_ok)
		io_uring_queue_exit(&rd->ring);
	rd->ring_ok = false;
	wl_piped__close(&rd->piped);
	close(fd);
	/* After the device's last fd: autoclear unbinds it. */
	loop_close(rd);
	return NULL;
}

/* Plan pl on file in with its readers, concurrently when several. */
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
		rd->calls = rd->bytes = rd->errors = rd->passed = 0;
		rd->short_uring = 0;
		rd->piped_slack = 0;
		rd->loop_fd = -1;
		rd->loop_node = false;
		rd->eof = in->f.size;
		rd->made = 0;
		rd->piped.pipe[0] = rd->piped.pipe[1] = rd->piped.outfd = -1;
		rd->err = 0;
		rd->fd = -1;
		rd->stop = false;
		rd->gate = pl->readers > 1 ? &gate : NULL;
	}
	/* io_uring's reads on threads of their own even alone: the io-wq
	 * workers and task work of a ring belong to the thread that made it
	 * and outlive the ring (its teardown adds task work to that thread
	 * after the ring is closed), and that task work marks the thread as
	 * signalled, which cuts a later sendfile or copy_file_range short or
	 * restarts it (the kernel then reads again what it had read). */
	if (pl->readers == 1 && !sh_call__info(pl->call)->uring) {
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
	for (__u32 i = 0; i < pl->readers; i++) {
		s->tot.func.calls += s->rd[i].calls;
		s->tot.func.bytes += s->rd[i].bytes;
		s->tot.func.errors += s->rd[i].errors;
		s->tot.func.calls_slack +=
			s->rd[i].short_uring + s->rd[i].piped_slack;
		/* io_uring's reads are no read syscall: the syscall level
		 * does not see them. */
		if (sh_call__info(pl->call)->uring)
			s->uring_calls += s->rd[i].calls;
		if (sh_call__info(pl->call)->piped)
			s->piped_calls += s->rd[i].made;
		if (sh_call__info(pl->call)->loop)
			s->loop_calls += s->rd[i].made;
		if (sh_call__info(pl->call)->syscall) {
			s->tot.sys.calls += s->rd[i].calls;
			s->tot.sys.bytes += s->rd[i].bytes;
			s->tot.sys.errors += s->rd[i].errors;
		}
		if (s->rd[i].err && !err) {
			err = s->rd[i].err;
			wl__err(WL, err, "reader %u of plan '%s' on '%s'", i,
				pl->name, in->path);
		}
	}
	return err;
}

/*
 * --throughput: the timed passes over the one file, before the probes
 * attach (the kernel's throughput, not the tracer's: a probe per copy
 * would cost a kernel that copies in smaller pieces more). The figures
 * go into the report as whole numbers: MB/s (10^6 bytes) and CPU
 * microseconds per GiB; the checked pass comes in shmem__run.
 */
int shmem__timed(struct shmem *s, struct fs_report *r)
{
	const struct sh_plan *pl = &s->plans[0];
	struct wl_tput_opts o = {
		.size = s->inst[0].f.size,
		.bs = pl->bs,
		.pread = pl->call == SH_PREAD,
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

		total += m->huge_kb;
		if (s->nmount > 1) {
			snprintf(key, sizeof(key), "huge_kb_%s", m->huge);
			model__kv_u64(r, key, m->huge_kb);
		}
		if (!m->expect_huge)
			continue;
		n = strlen(msg);
		if (m->huge_kb) {
			snprintf(msg + n, sizeof(msg) - n,
				 "%s%s: in effect (+%llu kB)", n ? ", " : "",
				 m->huge, (unsigned long long)m->huge_kb);
			continue;
		}
		snprintf(msg + n, sizeof(msg) - n, "%s%s: NOT in effect",
			 n ? ", " : "", m->huge);
		wl__err(WL, 0,
			"WARNING: huge=%s but ShmemHugePages did not grow "
			"while the files were written: tmpfs is NOT using "
			"2 MiB folios, this run measures 4 KiB ones (see "
			"/sys/kernel/mm/transparent_hugepage/shmem_enabled)",
			m->huge);
	}
	model__kv_u64(r, "shmem_huge_kb", total);
	model__kv_str(r, "huge_folios",
		      *msg ? msg
			   : "none expected (no huge= mode that makes "
			     "them)");
}

int shmem__run(struct shmem *s, struct fs_report *r)
{
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
	err = probe_calls(s);
	if (err)
		return err;
	for (int p = 0; p < s->nplans; p++) {
		const struct sh_plan *pl = &s->plans[p];
		char what[64];

		if (!s->skip[p][0])
			continue;
		snprintf(what, sizeof(what), "plan=%s syscall=%s%s%s", pl->name,
			 sh_call__name(pl->call), pl->rwf ? " rwf=" : "",
			 sh__rwf_name(pl->rwf));
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
				 s->m[mi].huge);
			s->group_end(s->group_ctx, "tmpfs", name);
		}
	}
	wl_watch__stop(s->watch);
	s->watch = NULL;
	model__kv_str(r, "mode", s->mode);
	if (s->nmount == 1) {
		const struct sh_plan *pl = &s->plans[0];

		model__kv_str(r, "huge", s->m[0].huge);
		model__kv_str(r, "fill", sh_fill__name(s->inst[0].f.fill));
		model__kv_u64(r, "size", s->inst[0].f.size);
		model__kv_str(r, "syscall", sh_call__name(pl->call));
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
	}
	/* A read is one shmem_file_read_iter call at either level. */
	model__kv_u64(r, "calls", s->tot.func.calls);
	model__kv_u64(r, "bytes", s->tot.func.bytes);
	model__kv_u64(r, "errors", s->tot.func.errors);
	/* How many more the probes may see (wl_count.calls_slack), and
	 * the reads the syscall level cannot see. */
	model__kv_u64(r, "calls_slack", s->tot.func.calls_slack);
	model__kv_u64(r, "io_uring_calls", s->uring_calls);
	model__kv_u64(r, "piped_calls", s->piped_calls);
	model__kv_u64(r, "loop_calls", s->loop_calls);
	model__kv_u64(r, "validation_checks", r->validation.checks);
	model__kv_u64(r, "validation_failures", r->validation.failures);
	return err;
}

const struct wl_totals *shmem__totals(const struct shmem *s)
{
	return &s->tot;
}

void shmem__destroy(struct shmem *s)
{
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
