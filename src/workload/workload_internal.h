/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internals of the workloads, shared by the files in src/workload/ and
 * their unit tests only; the rest of folioscope uses workload.h.
 */
#ifndef FS_WORKLOAD_INTERNAL_H
#define FS_WORKLOAD_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <sys/uio.h>
#include <sys/types.h>
#include <stddef.h>
#include <linux/types.h>
#include "workload/workload.h"

struct dedupe;
struct shmem;

/* The counts at each level (see workload__totals). */
struct wl_totals {
	/* cmp: the compares that ran (the prep's checks passed and left a
	 * length to compare): SAME or DIFFERS, never an error. */
	struct wl_count func, one, sys, cmp;
};

/* ---- the workloads (dedupe.c, shmem.c), dispatched to by workload.c ---- */

int dedupe__prepare(struct dedupe **d, const struct wl_opts *o);
/* Bytes a loop-mode run of o writes where its images live (mkfs's own
 * included), without setting anything up. */
int dedupe__space(const struct wl_opts *o, __u64 *bytes);
int dedupe__run(struct dedupe *d, struct fs_report *r);
const struct wl_totals *dedupe__totals(const struct dedupe *d);
void dedupe__destroy(struct dedupe *d);

int shmem__prepare(struct shmem **s, const struct wl_opts *o);
/* Bytes of RAM a run of o pins (its files and buffers), without setting
 * anything up. */
int shmem__space(const struct wl_opts *o, __u64 *bytes);
int shmem__run(struct shmem *s, struct fs_report *r);
int shmem__timed(struct shmem *s, struct fs_report *r);
const struct wl_totals *shmem__totals(const struct shmem *s);
void shmem__destroy(struct shmem *s);

/* Chunk for writing test files: one PMD-sized folio per pwrite. */
#define WL_CHUNK (2ULL << 20)
#define WL_PMD (2ULL << 20)

/* ---- error lines (err.c) ---- */

/*
 * Print "folioscope: run WL: <fmt>: strerror(-err)" as one line; with
 * err == 0 the ": strerror" part is left out.
 */
void wl__err(const char *wl, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, with " <hint>" after the strerror, e.g. "(want 1 .. 8)". */
void wl__err_hint(const char *wl, int err, const char *hint, const char *fmt,
		  ...) __attribute__((format(printf, 4, 5)));

/* ---- paths and temp dirs (path.c) ---- */

/* out = dir/name; -ENAMETOOLONG if it does not fit. */
int wl__path(char *out, size_t len, const char *dir, const char *name);
/* mkdtemp "<parent or $TMPDIR or /tmp>/folioscope-<tag>-XXXXXX". */
int wl__mkdtemp(const char *wl, const char *parent, const char *tag, char *out,
		size_t len);
/* unlink or rmdir; a failure other than ENOENT gets an error line. */
void wl__remove(const char *wl, const char *path, bool dir);

/* ---- external tools (proc.c) ---- */

/*
 * fork/exec argv (looked up in $PATH, then /usr/sbin and /sbin) with stdout
 * to /dev/null, and wait. On failure the error line quotes the first line
 * of the tool's stderr and names its last argument.
 */
int wl__exec(const char *wl, char *const argv[]);

/* ---- mounts and loop devices (mount.c) ---- */

/*
 * Move the calling process, which must have a single thread, into a
 * mount namespace of its own (see workload__prepare); one error line and
 * a negative errno on failure.
 */
int wl__private_mounts(const char *wl);
/* Attach img to a free loop device that detaches itself on last close. */
int wl__loop_attach(const char *wl, const char *img, char *dev, size_t len,
		    int *loop_fd, bool *made_node);
/* mount(2) nosuid,nodev; returns 0 or negative errno and prints nothing,
 * so callers can word the error (tmpfs huge= needs its own hint). */
int wl__mount(const char *src, const char *dir, const char *fstype,
	      const char *data);
/* A tmpfs of size bytes with huge= at dir (mode 0700); one error line
 * (naming CONFIG_TRANSPARENT_HUGEPAGE where huge= is refused) on
 * failure. */
int wl__tmpfs_mount(const char *wl, const char *dir, const char *huge,
		    __u64 size);
/* A filesystem on a loop device over a sparse image in dir. */
struct wl_loopfs {
	char img[PATH_MAX];
	char mnt[PATH_MAX];
	char loopdev[32];
	__u64 img_size;
	bool img_made, mnt_made, mounted, loop_node_made;
};
/*
 * dir/imgIDX (size bytes, rounded up to a MiB), mkfs'd as fs ("btrfs", or
 * "xfs" with bs-byte blocks and reflink), bound to a loop device that
 * detaches itself when unmounted, mounted at dir/mntIDX. One error line
 * on failure; m says what was made either way.
 */
int wl__loopfs_make(const char *wl, const char *dir, int idx, const char *fs,
		    __u32 bs, __u64 size, struct wl_loopfs *m);
/* Undo wl__loopfs_make; -EBUSY (and all kept) when it is still mounted. */
int wl__loopfs_remove(const char *wl, struct wl_loopfs *m);
/* Change the options of the mount at dir (MS_REMOUNT); prints nothing. */
int wl__remount(const char *dir, const char *data);
/* umount2, retrying briefly while busy and then detaching lazily (with an
 * error line); a negative errno means it is still mounted. */
int wl__umount(const char *wl, const char *dir);

/* ---- bounds and the watchdog (watch.c) ---- */

/* Failure kinds of a layout that does not end as its ground truth says. */
#define WL_KIND_POSITION "position"	  /* file position not where due */
#define WL_KIND_NO_PROGRESS "no progress" /* more calls than it needs */
#define WL_KIND_TIMEOUT "timeout"	  /* past its deadline */

/* Default base of every layout's deadline, seconds (--deadline-base). */
#define WL_DEADLINE_BASE 30

__u64 wl__now_ns(void);
/*
 * The time a layout of calls kernel calls moving bytes bytes may take:
 * base seconds, plus 2 s per MiB and 20 ms per call, which even an
 * emulated (TCG) guest on a busy host stays well inside.
 */
static inline __u64 wl__deadline_ns(__u64 base_s, __u64 bytes, __u64 calls)
{
	return base_s * 1000000000ULL + (bytes >> 20) * 2000000000ULL +
	       calls * 20000000ULL;
}

#define WL_WATCH_SLOTS 64
struct wl_watch;
/* Writes the layout of the call in a slot, for the timeout report. */
typedef void (*wl_watch_describe_fn)(const void *arg, char *buf, size_t n);
/* Start the watchdog thread; failures go to r (see watch.c). On a call
 * that never returns it calls the hook wl_watch__on_stuck set, if any,
 * then ends the process. */
int wl_watch__start(struct wl_watch **w, const char *wl, struct fs_report *r);
/* The calling thread enters a kernel call that may take limit_ns; slot
 * is the thread's own (a reader index). No-ops on a NULL watchdog. */
void wl_watch__enter(struct wl_watch *w, int slot, __u64 limit_ns,
		     wl_watch_describe_fn describe, const void *arg);
void wl_watch__leave(struct wl_watch *w, int slot);
void wl_watch__stop(struct wl_watch *w);
/* The hook of a call that never returns (workload__on_stuck). */
void wl_watch__on_stuck(wl_stuck_fn fn, void *ctx);

/* ---- file I/O and the page cache (io.c) ---- */

/* pread/pwrite all of len at off; -EIO for an unexpected EOF. */
int wl__pread_full(int fd, void *buf, size_t len, __u64 off);
int wl__pwrite_full(int fd, const void *buf, size_t len, __u64 off);
/*
 * Pages of the file behind fd in the page cache (mincore on a mapping):
 * *cached of *pages. Proves a "cold" range really is not cached.
 */
int wl__cached_pages(int fd, __u64 size, __u64 *cached, __u64 *pages);

/* ---- memory (mem.c) ---- */

/* ShmemHugePages from /proc/meminfo in kB; 0 when absent (no THP). */
__u64 wl__shmem_huge_kb(void);
/* MemAvailable in bytes (free RAM without it; 0 when unknown). */
__u64 wl__mem_available(void);
/*
 * Refuse a workload that would pin more than half of MemAvailable in RAM
 * (tmpfs pages cannot be reclaimed without swap): one error line naming
 * what (e.g. "--size '24G'") and -ENOMEM. RAM-backed data must never be
 * able to fill the machine.
 */
int wl__check_mem(const char *wl, const char *what, __u64 need);
/*
 * Refuse need bytes of test files in the directory where: more than its
 * filesystem has free (-ENOSPC), or, where it is in RAM, more than
 * wl__check_mem allows (-ENOMEM); one error line either way.
 */
int wl__check_space(const char *wl, const char *where, __u64 need);

/* ---- ground truth, pure (truth.c): no system calls ---- */

/* The deterministic test data: the byte at file offset off. */
static inline unsigned char wl__pattern_byte(__u64 off)
{
	/* Golden-ratio hash of the 8-byte word index: no zero runs, and a
	 * misplaced block shows up as a mismatch. */
	__u64 v = ((off >> 3) + 1) * 0x9e3779b97f4a7c15ULL;

	v ^= v >> 32;
	return (unsigned char)(v >> ((off & 7) * 8));
}

/* buf[i] = wl__pattern_byte(off + i), a word at a time where it can. */
void wl__pattern_fill(void *buf, __u64 off, size_t len);
/*
 * What a read's buffer holds before the call: never zero (a hole read
 * must write its zeros), and different for each seed. WL_POISON_BASE
 * puts seeds past any file offset, so the poison is not the data that
 * belongs there. wl__poison_diff: the first byte of buf[0..len) that is
 * not the poison of seed, or len.
 */
#define WL_POISON_BASE (1ULL << 50)
static inline unsigned char wl__poison_byte(__u64 seed, __u64 i)
{
	return wl__pattern_byte(seed + i) | 1;
}
void wl__poison_fill(void *buf, __u64 seed, size_t len);
size_t wl__poison_diff(const void *buf, __u64 seed, size_t len);
/* Number of bytes of buf that differ from the pattern at off. */
size_t wl__pattern_check(const void *buf, __u64 off, size_t len);
/* First index where a and b differ, or len. */
size_t wl__first_diff(const void *a, const void *b, size_t len);
/*
 * Checking data against the pattern in place (verify.c): the offset of
 * the first byte of buf[0..len) that is not the pattern at file offset
 * off (not zero, for wl__zero_diff), or len. Implementations: the
 * fastest the CPU has is used unless one is set (tests run each).
 */
enum wl_vimpl { WL_V_PLAIN, WL_V_SSE2, WL_V_AVX2, WL_V_NR };
bool wl_vimpl__supported(enum wl_vimpl i);
/* Use implementation i from now on; -1 if this CPU lacks it. */
int wl_vimpl__set(enum wl_vimpl i);
enum wl_vimpl wl_vimpl__get(void);
size_t wl__pattern_diff(const void *buf, __u64 off, size_t len);
size_t wl__pattern_diff_with(enum wl_vimpl impl, const void *buf, __u64 off,
			     size_t len);
size_t wl__zero_diff(const void *buf, size_t len);
size_t wl__zero_diff_with(enum wl_vimpl impl, const void *buf, size_t len);

/* need fits in half of avail (a safe share; unknown avail = 0: no). */
static inline bool wl__mem_fits(__u64 need, __u64 avail)
{
	return need <= avail / 2;
}

/* -- dedupe -- */

/* Copied-in ranges per file: a source with a destination range per
 * destination of one case at most. */
#define DD_MAX_SEGS DD_MAX_DESTS
#define DD_MAX_FS 4
/* vfs_dedupe_file_range caps one request at 1 GiB. */
#define DD_CAP (1ULL << 30)

/* Where the one differing byte of a destination range sits. */
enum dd_diff {
	DD_DIFF_NONE,
	DD_DIFF_FIRST,	    /* offset 0 of the range */
	DD_DIFF_MIDDLE,	    /* len/2 + 3: inside a word */
	DD_DIFF_WORD_END,   /* 8k - 1: last byte of a word */
	DD_DIFF_WORD_START, /* 8k: first byte of the next word */
	DD_DIFF_LAST,	    /* the last byte the kernel compares */
	DD_DIFF_PAST,	    /* the first byte after what it compares */
	DD_DIFF_NR,
};

const char *dd_diff__name(enum dd_diff d);
/* Offset of the differing byte in a compared range of cmp bytes. */
__u64 dd_diff__pos(enum dd_diff d, __u64 cmp);

/*
 * Part of a file copied from elsewhere: [start, start + count * len) holds
 * pattern(off + delta); with flip, byte start + k*len + flip_pos of each
 * of the count pieces is inverted (the one differing byte).
 */
struct dd_seg {
	__u64 start, len, delta, flip_pos;
	__u32 count;
	bool flip;
};

/* A test file: pattern(off + delta) outside its segments. */
struct dd_file {
	__u64 size, delta;
	int fs;	   /* index of the filesystem it lives on */
	bool cold; /* dropped from the page cache before the dedupe */
	/* Dropped, then read back sequentially so that readahead fills the
	 * page cache (with large folios where the filesystem takes them). */
	bool readahead;
	/* Written a page at a time: a buffered write makes folios no larger
	 * than it, so these stay small where big writes make large ones. */
	bool small_writes;
	int nseg;
	struct dd_seg seg[DD_MAX_SEGS];
};

/* The contents of f at [off, off + len). */
void dd_file__fill(const struct dd_file *f, __u64 off, void *buf, size_t len);
/* Do a at aoff and b at boff hold the same len bytes? */
bool dd_file__equal(const struct dd_file *a, __u64 aoff,
		    const struct dd_file *b, __u64 boff, __u64 len);

struct dd_dest {
	int file;
	__u64 off;
	enum dd_diff diff;
};

/*
 * One layout: count FIDEDUPERANGE ioctls, the k-th comparing
 * [src_off + k*len, +len) of the source with [dest.off + k*len, +len) of
 * each destination.
 */
struct dd_case {
	char name[24];
	int src;
	__u64 src_off, len;
	__u32 count;
	unsigned int ndest;
	struct dd_dest dest[DD_MAX_DESTS];
};

struct dd_fsinfo {
	char fs[8]; /* "btrfs" or "xfs" */
	__u32 bs;   /* block size */
};

/* Everything a run does, with its files' contents: built before it runs. */
struct dd_plan {
	__u32 page;
	int nfs;
	struct dd_fsinfo fs[DD_MAX_FS];
	int nfiles, cap_files;
	struct dd_file *files;
	int ncases, cap_cases;
	struct dd_case *cases;
};

/* What the kernel must answer for one destination of one ioctl. */
struct dd_expect {
	int ioctl_err; /* the whole ioctl fails with this -errno, or 0 */
	int status;    /* FILE_DEDUPE_RANGE_SAME/_DIFFERS or -errno */
	__u64 bytes_deduped;
	__u64 cmp_len;	   /* bytes the kernel compares (0: none) */
	bool reaches_prep; /* the fs's remap prep runs (the traced caller) */
};

/* What the kernel answered for one destination of one ioctl. */
struct dd_result {
	int ioctl_err;
	__s32 status;
	__u64 bytes;
};

/* One destination of a FIDEDUPERANGE request, with the files' sizes. */
struct dd_req {
	__u64 bs; /* the filesystem's block size */
	__u64 src_size, dst_size;
	__u64 src_off, dst_off, len;
	bool same_file;
};

/* Everything of the kernel's answer for q but the compare of the bytes:
 * errors, and the length compared (the answer is SAME unless those
 * bytes differ). */
void dd__geometry(const struct dd_req *q, struct dd_expect *e);
bool dd__answer_ok(const struct dd_expect *e, const struct dd_result *g);
/* What one destination's answer g (expected e, request of req_len bytes)
 * counts at each level the probes see (see workload__totals). */
void dd__count(struct wl_totals *t, __u64 req_len, const struct dd_expect *e,
	       const struct dd_result *g);

void dd_plan__init(struct dd_plan *p, __u32 page);
void dd_plan__free(struct dd_plan *p);
/* Add a filesystem; returns its index or -ENOSPC. */
int dd_plan__add_fs(struct dd_plan *p, const char *fs, __u32 bs);
/* Add a file of size bytes on filesystem fs; returns its index or -errno. */
int dd_plan__add_file(struct dd_plan *p, int fs, __u64 size, bool cold);
/*
 * Add a case and write its destination ranges (copies of the source
 * range, plus each destination's differing byte) into the file models.
 * Returns 0 or -errno (-ENOSPC: too many segments in one file).
 */
int dd_plan__add_case(struct dd_plan *p, const struct dd_case *c);
/* The default matrix for filesystem fs (see truth.c for the list). */
int dd_plan__matrix(struct dd_plan *p, int fs);
/*
 * The matrix's layouts for large folios on filesystem fs: files read back
 * through readahead, written in big or page-sized writes, ranges starting
 * in a folio's later pages, source and destination of different folio
 * sizes.
 */
int dd_plan__large_folios(struct dd_plan *p, int fs);
/* One layout from the options (--range, --count, --dests, ...). */
int dd_plan__custom(struct dd_plan *p, int fs, const struct wl_opts *o);
/* The seed's workload: o->files identical files, file 0 the source. */
int dd_plan__seed(struct dd_plan *p, int fs, const struct wl_opts *o);

/*
 * The kernel's answer for destination d of the k-th ioctl of case c,
 * from the checks of vfs_dedupe_file_range and generic_remap_checks and
 * the file contents.
 */
void dd__expect(const struct dd_plan *p, const struct dd_case *c, __u32 k,
		unsigned int d, struct dd_expect *e);
/* The exact layout of one destination of one ioctl, for a failed check. */
void dd__layout(const struct dd_plan *p, const struct dd_case *c, __u32 k,
		unsigned int d, char *buf, size_t n);
/* "SAME bytes_deduped=N", "DIFFERS ...", "status -22 (EINVAL)", ... */
void dd__answer(int ioctl_err, int status, __u64 bytes, char *buf, size_t n);

/* -- shmem-read -- */

enum sh_fill {
	SH_FILL_FULL,	/* pattern from 0 to size */
	SH_FILL_SPARSE, /* small pieces in every other 2 MiB, holes between */
	SH_FILL_MIXED,	/* whole 2 MiB chunks, then a sparse 4 KiB tail */
	SH_FILL_NR,
};

/* How a read enters the kernel (--syscall); sh_call__info says what
 * each takes and where the probes see it. */
enum sh_call {
	SH_READ,
	SH_PREAD,
	SH_READV,
	SH_PREADV2,
	SH_URING_READ,
	SH_URING_READV,
	SH_URING_FIXED,
	SH_SPLICE,
	SH_SENDFILE,
	SH_SENDFILE_SOCK,
	SH_COPY_RANGE,
	SH_COPY_OTHER_FS,
	SH_COPY_SAME,
	SH_LOOP,
	SH_CALL_NR,
};

/* Where a call puts what it read, and so how the reader gets the bytes
 * back into its buffer to check them. */
enum sh_out {
	SH_OUT_USER, /* the user buffer itself */
	SH_OUT_PIPE, /* a pipe, drained into the buffer */
	SH_OUT_FILE, /* another file from offset 0, mapped and copied */
	SH_OUT_SOCK, /* a stream socket, received into the buffer */
};

struct sh_call_info {
	const char *name;
	bool iovecs;  /* takes more than one iovec */
	bool moves;   /* reads at the file position and moves it */
	bool syscall; /* one read syscall each: the syscall level sees it */
	bool rwf;     /* takes --rwf */
	bool uring;   /* an io_uring request (the run needs io_uring) */
	/*
	 * Read in the kernel through a pipe (splice_read): one call may
	 * be several reads of the file, a pipe's worth each, so the probes
	 * may see more calls than the workload makes.
	 */
	bool piped;
	enum sh_out out;
	/* The output file is on another filesystem: a kernel may refuse
	 * with EXDEV, which is its rule, not a failure. */
	bool other_fs;
	/* The output is a range of the file it reads, past its end (the
	 * file is cut back after): the reader opens it for writing, and
	 * alone, since the file grows while the call runs. */
	bool same_file;
	/*
	 * Reads a loop device over the file (O_DIRECT, in 512-byte sectors
	 * up to the last whole one) with pread: the kernel's loop worker
	 * reads the file, in a thread not of this process, which run's
	 * own-process filter leaves out.
	 */
	bool loop;
};

const struct sh_call_info *sh_call__info(enum sh_call c);

/* One io_uring read (src/workload/uring.c), on a thread of its own. */
struct wl_uring_req {
	enum sh_call call; /* SH_URING_READ, SH_URING_READV, SH_URING_FIXED */
	int fd;		   /* < 0: only the ring (and its registered buffer) */
	const struct iovec *iov; /* read, read_fixed: iov[0], registered */
	unsigned int niov;
	__u64 off;
	int res;	    /* the read's result, or -errno */
	const char *failed; /* what failed before the read: "ring", ... */
};

/* Runs r and waits for it: r->res. */
int wl_uring__run(struct wl_uring_req *r);

/* Where a piped call (sh_call_info.piped) puts its bytes: fds, -1 when
 * unused. */
struct wl_piped {
	enum sh_call call;
	int pipe[2], outfd;
};

/* Make p's output for call's bs bytes (dir: the tmpfs of the output
 * file, where the call has one). 0 or -errno; wl_piped__close either way. */
int wl_piped__open(struct wl_piped *p, enum sh_call call, __u64 bs,
		   const char *dir);
/*
 * One call of bs bytes from fd at pos (the file's position left alone),
 * its return as read(2) gives one; then the bytes it moved, and any past
 * what it returned, back into buf. *back: how many came back (-1: could
 * not, errno says why).
 */
ssize_t wl_piped__read(struct wl_piped *p, int fd, unsigned char *buf, __u64 bs,
		       __u64 pos, ssize_t *back);
void wl_piped__close(struct wl_piped *p);
/*
 * The reads of the file the kernel may make for one call that returned
 * ret at pos, beyond one: a pipe's worth each, so at most one a page;
 * and for a call that moved nothing, perhaps one, perhaps none
 * (copy_file_range at EOF stops before reading).
 */
__u64 wl_piped__slack(__u64 pos, ssize_t ret, __u64 page);
/* preadv2's --rwf as a name: "nowait", "hipri", "" for none. */
const char *sh__rwf_name(int rwf);

struct sh_file {
	enum sh_fill fill;
	__u64 size;
};

/* One written piece of a file; early pieces are written before the
 * mount switches to its huge= mode, so they stay in 4 KiB folios. */
struct sh_piece {
	__u64 start, end;
	bool early;
};

const char *sh_fill__name(enum sh_fill f);
const char *sh_call__name(enum sh_call c);
/* The i-th written piece of f, in file order; false past the last. */
bool sh_file__piece(const struct sh_file *f, __u64 i, struct sh_piece *p);
/* Expected contents at [off, off + len): pattern, zeros in holes and
 * past EOF. */
void sh_file__fill(const struct sh_file *f, __u64 off, void *buf, size_t len);
/* First byte of buf[0..len) that differs from f's contents at off, or
 * len: sh_file__fill's answer, checked in place (verify.c). */
size_t sh_file__diff(const struct sh_file *f, __u64 off, const void *buf,
		     size_t len);
/*
 * RAM the written pieces of f take on tmpfs, at most: whole 2 MiB folios
 * for the pieces written in a huge= mode (huge), pages for the rest.
 * Holes take nothing.
 */
__u64 sh_file__mem(const struct sh_file *f, bool huge);
/* What a read of req bytes at pos must return. */
__u64 sh__expect_ret(__u64 size, __u64 pos, __u64 req);

/* A read pattern. Offset from_eof: the start is size + offset. */
struct sh_plan {
	char name[20];
	enum sh_call call;
	__u32 iovecs;
	__u64 bs;
	__s64 offset;
	bool from_eof;
	__u64 length; /* 0 = to EOF */
	__u64 buf_align;
	__u32 readers;
	int rwf; /* preadv2's RWF_* flags */
};

/* The default matrix's read patterns; returns how many. */
int sh_plan__matrix(const struct sh_plan **plans);
/* The start of a plan's reads in a file of size bytes. */
__u64 sh_plan__start(const struct sh_plan *pl, __u64 size);
/* Length of iovec j of a call of bs bytes split in n. */
__u64 sh__iov_len(__u64 bs, __u32 n, __u32 j);
/* The exact layout of one read call, for a failed check. */
void sh__layout(const char *huge, const struct sh_file *f,
		const struct sh_plan *pl, __u32 reader, __u64 call, __u64 pos,
		char *buf, size_t n);

/* ---- random layouts (random.c) and their shrinking (shrink.c) ---- */

/*
 * A random layout is one custom layout of the workload (the options a
 * plain "run dedupe" or "run shmem-read" takes), so the command that
 * replays it is those options, and it runs through the same code and
 * checks as any layout given on the command line.
 */
/*
 * Layout index of seed: fs/block size, ranges and offsets (dedupe) or
 * huge=, fill, size, call and buffer (shmem-read), drawn from a stream of
 * its own, so that it does not depend on the layouts before it. base
 * gives what is not drawn (--fs, --deadline-base, --buf-tmpfs, ...).
 */
void wl_rand__draw(const char *wl, __u64 seed, unsigned int index, __u32 page,
		   const struct wl_opts *base, struct wl_opts *out);
/* "folioscope run WL --opt val ..." that runs exactly layout o. */
void wl_rand__command(const char *wl, const struct wl_opts *o, char *buf,
		      size_t n);
/* Does the workload accept layout o (the command line's checks)? */
bool wl_rand__valid(const char *wl, const struct wl_opts *o, __u32 page);

/* Does layout o still fail? (a run of it, or a test's rule) */
typedef bool (*wl_fails_fn)(void *ctx, const struct wl_opts *o);
/*
 * Shrink failing layout o: try smaller variants of it one at a time
 * (fewer readers, iovecs, destinations and ranges; halved lengths and
 * sizes; offsets moved toward aligned; plainer modes), keep each that
 * still fails, until none does or max_trials ran. Deterministic. Returns
 * the number of trials.
 */
unsigned int wl_shrink(const char *wl, struct wl_opts *o, __u32 page,
		       wl_fails_fn fails, void *ctx, unsigned int max_trials);

/* Does the sequence of operations idx[0..n) still fail? */
typedef bool (*wl_seq_fails_fn)(void *ctx, const __u32 *idx, __u32 n);
/*
 * Shrink a failing sequence of operation indices in place (ddmin: drop
 * chunks, then single operations, while it still fails) until no single
 * one can go or max_trials ran. Deterministic. Returns the trials.
 */
unsigned int wl_shrink_seq(__u32 *idx, __u32 *n, wl_seq_fails_fn fails,
			   void *ctx, unsigned int max_trials);

/* ---- sequences of operations (ops.c) ---- */

/* Files stay under three 2 MiB folios and a bit; one operation moves a
 * folio and a bit at most. */
#define WL_OPS_MAX_SIZE (3 * WL_PMD + (64ULL << 10))
#define WL_OPS_MAX_LEN (WL_PMD + (64ULL << 10))
#define WL_OPS_NFILES 4

enum wl_op_kind {
	OPK_READ,
	OPK_PWRITE,
	OPK_WRITE, /* lseek, then write */
	OPK_TRUNCATE,
	OPK_FALLOC,
	OPK_FALLOC_KEEP,
	OPK_PUNCH,
	OPK_ZERO,
	OPK_MMAP,   /* write through a shared mapping, msync */
	OPK_DEDUPE, /* dedupe's: FIDEDUPERANGE */
	OPK_CLONE,  /* FICLONERANGE */
	OPK_COPY,   /* copy_file_range */
	OPK_NR,
};

/* How a read enters the kernel. */
enum wl_op_via {
	OPV_READ,
	OPV_PREAD,
	OPV_READV,
	OPV_SPLICE,
	OPV_SENDFILE,
	OPV_COPY,
	OPV_PREADV2,
	OPV_URING,
	OPV_URING_READV,
	OPV_URING_FIXED,
	OPV_SENDFILE_SOCK,
	OPV_LOOP,
	OPV_NR
};

struct wl_op_dest {
	__u32 file;
	__u64 off;
};

struct wl_op {
	enum wl_op_kind kind;
	__u32 file;
	enum wl_op_via via; /* reads */
	__u32 iovecs;	    /* readv */
	int rwf;	    /* preadv2: 0, RWF_HIPRI or RWF_NOWAIT */
	__u64 off;	    /* truncate: the new size */
	__u64 len;
	/* dedupe: its destinations; clone and copy: dest[0] */
	__u32 ndest;
	struct wl_op_dest dest[DD_MAX_DESTS];
};

/* The files of a run: where each lives and its block size. shmem-read:
 * a tmpfs per file, one per huge= mode; dedupe: files 0 and 1 on btrfs,
 * 2 and 3 on xfs with a block size drawn from the seed. */
struct wl_ops_geom {
	bool dd;
	int fs[WL_OPS_NFILES];
	__u32 bs[WL_OPS_NFILES];
	char label[WL_OPS_NFILES][24]; /* "huge=advise", "xfs bs=1024" */
};

void wl_ops__geom(const char *wl, __u64 seed, __u32 page,
		  struct wl_ops_geom *g);
/* Operation index of seed, from a stream of its own: it does not depend
 * on the operations before it. */
void wl_op__draw(__u64 seed, __u32 index, const struct wl_ops_geom *geo,
		 struct wl_op *op);
/* "#17 pwrite file 2 (huge=advise) off 2093056 len 8200" */
void wl_op__describe(const struct wl_op *op, __u32 index,
		     const struct wl_ops_geom *geo, char *buf, size_t n);

/* A file as the operations left it: bytes b[0..size), zero past size. */
struct wl_ops_model {
	unsigned char *b;
	__u64 size;
};

/* What op (index of seed) did to the files' models, the kernel having
 * answered ret (< 0: refused, nothing changed; copy_file_range: the
 * bytes it copied). */
void wl_ops_model__apply(struct wl_ops_model *files, const struct wl_op *op,
			 __u64 seed, __u32 index, long long ret);
/* An mmap write's range in m's current size; false when m is empty. */
bool wl_ops_model__mmap_range(const struct wl_ops_model *m,
			      const struct wl_op *op, __u64 *off, __u64 *len);
/* FICLONERANGE's answer on the models: 0 or -EINVAL. */
int wl_ops_model__clone(const struct wl_ops_model *files,
			const struct wl_op *op, __u32 bs);
/* copy_file_range's answer: the bytes copied, -EINVAL or -EXDEV; *alt
 * another right count (whole blocks cloned, or all copied where the
 * filesystem declines the clone), 0 for none. */
int wl_ops_model__copy(const struct wl_ops_model *files, const struct wl_op *op,
		       const struct wl_ops_geom *geo, __u64 *alt);

/* --ops-only LIST: ascending operation indices under n, comma-separated,
 * into idx (NULL: only checked) and *count. -EINVAL when it is not. */
int wl_ops__parse_only(const char *list, __u32 n, __u32 *idx, __u32 *count);

/* The --ops workload. */
struct wl_ops;
int wl_ops__prepare(struct wl_ops **out, const char *wl,
		    const struct wl_opts *o);
int wl_ops__run(struct wl_ops *s, struct fs_report *r);
const struct wl_totals *wl_ops__totals(const struct wl_ops *s);
/* After the traced phase: the first failure's sequence shrunk, printed
 * with its replay command. Returns 1 if there was one. */
int wl_ops__shrink(struct wl_ops *s, struct fs_report *r);
void wl_ops__destroy(struct wl_ops *s);

/* The random workload: N layouts of a seed, each a workload of its own. */
struct wl_random;
int wl_random__prepare(struct wl_random **out, const char *wl,
		       const struct wl_opts *o);
int wl_random__run(struct wl_random *rw, struct fs_report *r);
const struct wl_totals *wl_random__totals(const struct wl_random *rw);
int wl_random__shrink(struct wl_random *rw, struct fs_report *r);
void wl_random__destroy(struct wl_random *rw);

/* ---- timed reads as lean as fio's (throughput.c) ---- */

struct wl_tput_opts {
	int fd;
	__u64 size; /* bytes per pass, from offset 0 */
	__u64 bs;
	bool pread; /* pread(2) at the position, else read(2) from 0 */
	unsigned int passes;
};

struct wl_tput_pass {
	__u64 calls, bytes, wall_ns, cpu_ns;
};

struct wl_tput {
	struct wl_tput_pass pass[WL_TPUT_MAX_PASSES];
	unsigned int npasses; /* passes that read to the end */
	__u64 calls, bytes;   /* every call made, the failed pass's too */
	/* The middle pass by rate (the slower middle one of an even
	 * count), and the slowest and fastest. */
	double bytes_per_s, min_bytes_per_s, max_bytes_per_s;
	double cpu_ns_per_gib; /* the middle pass's user + system time */
};

/* o->passes timed passes over o->fd into t; 0 or a negative errno (the
 * passes before the failing one are kept in t). */
int wl_tput__run(const struct wl_tput_opts *o, struct wl_tput *t);
/* The figures of t->pass[0 .. npasses) (run does it; unit tests too). */
void wl_tput__summarize(struct wl_tput *t);
double wl_tput__rate(const struct wl_tput_pass *p);

#endif /* FS_WORKLOAD_INTERNAL_H */
