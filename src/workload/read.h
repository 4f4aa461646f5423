/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The read engine: every read of a file that a workload makes, by any
 * way into the kernel (enum wl_way), goes through here. shmem-read's
 * readers, --ops' reads, the probe reads of the ways a kernel may lack
 * and --throughput's timed passes all call it.
 *
 *   read.c        the ways' table (what each takes, needs, where its
 *                 bytes go, how its calls are seen), a reader (open, one
 *                 call, close) and the counts the probes must see
 *   read_piped.c  the ways through a pipe in the kernel (splice,
 *                 sendfile to a file or a socket, copy_file_range), and
 *                 how their bytes come back into the buffer
 *   read_uring.c  io_uring's reads
 *   read_check.c  a read's buffer (iovecs, gaps, guards, poison) and the
 *                 verdict on what a call returned and wrote there
 *
 * Nothing here reads errno after another call has run: every failure is
 * carried with the errno of the call that failed, or none.
 */
#ifndef FS_WORKLOAD_READ_H
#define FS_WORKLOAD_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <linux/types.h>
#include <liburing.h>

#include "workload/workload_internal.h"

/* Where a way puts what it read, and so how its bytes come back into
 * the caller's buffer to be checked. */
enum wl_back {
	WL_BACK_USER, /* the user buffer itself */
	WL_BACK_PIPE, /* a pipe, drained into the buffer */
	WL_BACK_FILE, /* an output file, mapped and copied */
	WL_BACK_SOCK, /* a stream socket, received into the buffer */
};

/* What a way needs of the kernel beyond a file to read (caps.c tries
 * each). */
enum wl_need {
	WL_NEED_NONE,
	WL_NEED_URING,	/* io_uring, with a registered buffer */
	WL_NEED_LOOP,	/* a loop device */
	WL_NEED_SOCKET, /* AF_UNIX stream sockets */
	WL_NEED_NR,
};

/* How one call of a way is seen by the probes: at function level
 * (shmem_file_read_iter) and at the syscall level. */
enum wl_seen {
	/* One read syscall and one call of the function; a preadv2 that
	 * the filesystem refuses for its flag (EOPNOTSUPP) never reaches
	 * the function. */
	WL_SEEN_SYSCALL,
	/* One call of the function and no read syscall; 6.1 reads the rest
	 * of a short read once more. */
	WL_SEEN_URING,
	/* Through a pipe in the kernel, no read syscall: a call of the
	 * function per pipe's worth (at most one a page), one at least for
	 * a call that moved bytes, perhaps one for one that moved none. */
	WL_SEEN_PIPED,
	/* The loop worker's, a thread not of this process: none of this
	 * run's. */
	WL_SEEN_NONE,
};

struct wl_way_info {
	const char *name;
	enum wl_need need;
	enum wl_back back;
	enum wl_seen seen;
	bool iovecs; /* takes more than one iovec */
	bool moves;  /* reads at the file position and moves it */
	bool rwf;    /* takes preadv2's flags */
	/* The output file is on another filesystem: a kernel may refuse
	 * with EXDEV, which is its rule, not a failure. */
	bool other_fs;
	/* The output is a range of the file it reads, past its end (cut
	 * back after each call): the file is opened for writing, and read
	 * by one reader alone, since it grows while the call runs. */
	bool same_file;
	/* Whole 512-byte sectors with O_DIRECT, up to the file's last whole
	 * one: a loop device over the file. */
	bool sectors;
};

const struct wl_way_info *wl_way__info(enum wl_way w);

/* ---- one ring of io_uring (read_uring.c) ---- */

/*
 * A ring's io-wq workers and task work belong to the thread that made it
 * and outlive the ring (its teardown adds task work to that thread after
 * the ring is closed), and that task work marks the thread as signalled:
 * a later splice, sendfile or copy_file_range on it would stop short or
 * restart, and the kernel would read again what it had read. So a ring
 * lives on a thread that makes no such call after it: a reader's own, or
 * one made for a single read (wl_uring__once).
 */
struct wl_uring {
	struct io_uring ring;
	bool ok;
};

/* A ring, with fixed (if not NULL) registered for read_fixed. -errno;
 * *failed names the step ("ring", "registered buffers"). */
int wl_uring__open(struct wl_uring *u, const struct iovec *fixed,
		   const char **failed);
/* One read by way w (read, readv, read_fixed from the registered
 * buffer) of fd at off, waited for: its result or -errno. */
int wl_uring__read(struct wl_uring *u, enum wl_way w, int fd,
		   const struct iovec *iov, __u32 niov, __u64 off);
void wl_uring__close(struct wl_uring *u);
/* wl_uring__open, wl_uring__read (none for fd < 0: the ring alone, to
 * see that the kernel has one) and wl_uring__close on a thread of their
 * own. */
int wl_uring__once(enum wl_way w, int fd, const struct iovec *iov, __u32 niov,
		   __u64 off, const struct iovec *fixed, const char **failed);

/* ---- a reader ---- */

struct wl_reader_opts {
	const char *wl; /* the workload, for the error lines of a loop */
	enum wl_way way;
	int rwf;	  /* preadv2's flags */
	const char *path; /* the file */
	/* The file open already (borrowed, not closed), or -1 with a path:
	 * the reader opens path (for writing too where the way writes the
	 * file). */
	int fd;
	/* Where an output file is made: the directory of a file on the
	 * same tmpfs as the one read. */
	const char *outdir;
	__u64 bs; /* the largest call: a pipe holds it whole */
	/* io_uring-read_fixed: the region registered; every read's buffer
	 * lies inside it. */
	struct iovec fixed;
	/* Each io_uring read on a thread and a ring of its own: for a
	 * caller whose thread makes piped calls too. */
	bool uring_once;
};

/* Where a piped call puts its bytes (read_piped.c); fds -1 when unused. */
struct wl_piped {
	enum wl_way way;
	__u64 bs;
	int pipe[2], outfd;
};

struct wl_reader {
	struct wl_reader_opts o;
	int fd; /* the file, or the loop device */
	bool own_fd;
	struct wl_piped out;
	struct wl_uring ring;
	/* loop: the device, its binding fd, its node if we made it */
	char loopdev[64];
	int loop_fd;
	bool loop_node;
};

/*
 * Set the reader up: the file (or a loop device over it, opened with
 * O_DIRECT), the way's output, its ring. 0, or -errno with *failed
 * naming what could not be made ("open the file", "its output", ...);
 * wl_reader__close either way.
 */
int wl_reader__open(struct wl_reader *r, const struct wl_reader_opts *o,
		    const char **failed);
void wl_reader__close(struct wl_reader *r);

/* One call: len bytes at pos into buf (iovec ways: into iov[0..niov),
 * which buf starts). */
struct wl_read_req {
	__u64 pos;
	__u64 len;
	unsigned char *buf;
	const struct iovec *iov;
	__u32 niov;
	/* A way that reads at the file position: lseek to pos first. */
	bool seek;
};

/* What one call did. */
struct wl_read_res {
	/* The call was made (else a step before it failed: back_failed
	 * says which, with back_err). */
	bool made;
	ssize_t ret; /* its return, as read(2) gives one */
	int err;     /* errno it set when ret < 0; 0: none set */
	/* Bytes that came back into the buffer from where the way put
	 * them (ret for a way into the buffer itself), or -1 when that
	 * failed: back_failed names the step, back_err its errno (0: the
	 * call set none). */
	ssize_t back;
	int back_err;
	const char *back_failed;
	const char *back_from; /* "the pipe", "the socket", ... */
};

void wl_reader__read(struct wl_reader *r, const struct wl_read_req *q,
		     struct wl_read_res *res);

/*
 * What call q of way w (with rwf) that did res counts at each level the
 * probes see, into t (see enum wl_seen): calls, bytes, errors, the calls
 * the kernel may add (calls_slack) and the reads no syscall shows.
 */
void wl_read__count(enum wl_way w, int rwf, const struct wl_read_req *q,
		    const struct wl_read_res *res, __u64 page,
		    struct wl_totals *t);
/* The calls a piped call that returned ret at pos may add beyond one: a
 * pipe's worth each, so at most one a page; and for one that moved
 * nothing, perhaps one (copy_file_range at EOF stops before reading). */
__u64 wl_read__piped_slack(__u64 pos, ssize_t ret, __u64 page);

/* ---- the ways through a pipe (read_piped.c) ---- */

/* Make p's output for way w's calls of up to bs bytes (dir: the tmpfs
 * of an output file). 0 or -errno; wl_piped__close either way. */
int wl_piped__open(struct wl_piped *p, enum wl_way w, __u64 bs,
		   const char *dir);
/* One call of bs bytes from fd at pos (the file's position left alone),
 * then the bytes it moved back into buf: res as wl_reader__read's. */
void wl_piped__read(struct wl_piped *p, int fd, unsigned char *buf, __u64 bs,
		    __u64 pos, struct wl_read_res *res);
void wl_piped__close(struct wl_piped *p);

/* ---- a read's buffer and the verdict on a call (read_check.c) ---- */

/* Guard bytes before and after the buffer and between iovecs: the
 * kernel must not write outside what it was given. */
#define WL_RBUF_GUARD 64
#define WL_RBUF_GAP 3

/*
 * A call's buffer: len bytes in n iovecs from base, WL_RBUF_GAP bytes
 * apart, with WL_RBUF_GUARD bytes before base and after the last one.
 * Before a call every iovec byte holds the call's poison, the gaps and
 * guards a canary.
 */
struct wl_rbuf {
	unsigned char *base;
	struct iovec iov[FS_MAX_IOVECS];
	__u32 n;
	__u64 seed; /* the poison's */
};

/* Bytes from base a buffer of len bytes in n iovecs spans, its last
 * guard included (the first lies before base). */
__u64 wl_rbuf__span(__u64 len, __u32 n);
/* Lay the iovecs out from base (iovec j: wl_rbuf__iov_len). */
void wl_rbuf__layout(struct wl_rbuf *b, unsigned char *base, __u64 len,
		     __u32 n);
/* Length of iovec j of a call of len bytes split in n. */
__u64 wl_rbuf__iov_len(__u64 len, __u32 n, __u32 j);
/* The call's poison (offsets run on across the iovecs), and the
 * canary in the gaps and guards. */
void wl_rbuf__poison(struct wl_rbuf *b, __u64 seed);

/* What a read must return and write: its bytes against the file's. */
struct wl_read_truth {
	__u64 want; /* what it must return */
	/* Fewer, but not none, is right too: a way through a pipe may
	 * stop short (where a pipe's worth ends at a hole, say). */
	bool short_ok;
	/* RWF_NOWAIT: it may stop where it would block (short, or EAGAIN
	 * before its first byte), or the filesystem refuses the flag
	 * (EOPNOTSUPP). */
	bool nowait;
	/* The file's contents: the first byte of buf[0..len) that is not
	 * the file's at off (len: none), and the file's byte at off. */
	size_t (*diff)(const void *ctx, __u64 off, const void *buf, size_t len);
	unsigned char (*byte)(const void *ctx, __u64 off);
	const void *ctx;
	/* Debug: the first byte is expected flipped (a check that must
	 * fail, --inject-wrong-expectation). */
	bool inject;
};

/* Failure kinds of a read besides a wrong answer (FS_CASE_ANSWER). */
#define WL_KIND_DATA "data"	      /* [0, ret) is not the file's */
#define WL_KIND_UNWRITTEN "unwritten" /* ... and still holds the poison */
#define WL_KIND_PAST "past ret"	      /* [ret, iov_len) changed */
#define WL_KIND_GUARD "guard"	      /* outside the iovecs */
/* The bytes a way moved did not come back whole from its pipe, socket
 * or output file, or a step around the call failed. */
#define WL_KIND_READ_BACK "read-back"

/* A failed check's kind and texts. */
struct wl_read_verdict {
	const char *kind;
	char want[128], got[192];
};

/* An errno as the verdicts word it: strerror, or "no errno set" for 0
 * (a call that failed without setting one). */
const char *wl_read__errno_text(int err);

/* Is the call's return (or error) one the truth allows? */
bool wl_read__answer_ok(const struct wl_read_truth *t,
			const struct wl_read_res *res);
/* The whole verdict on one call: its answer, then its bytes (read back
 * whole, the file's in [0, ret), the poison from ret on, the canary in
 * the gaps and guards). True when it passed; else v has the kind of the
 * first thing wrong and its texts. */
bool wl_read__check(const struct wl_rbuf *b, __u64 pos,
		    const struct wl_read_res *res,
		    const struct wl_read_truth *t, struct wl_read_verdict *v);

#endif /* FS_WORKLOAD_READ_H */
