/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The read engine: every read of a file that a workload makes, by any
 * way into the kernel (enum wl_way), goes through here. shmem-read's
 * readers, --ops' reads, the probe reads of the ways a kernel may lack
 * and --throughput's timed passes all call it.
 *
 *   ways.c        the ways' table (what each takes, needs, where its
 *                 bytes go, how its calls are seen), and what one call is
 *                 asked and did (ways.h)
 *   read.c        a reader (open, one call, close) and the counts the
 *                 probes must see
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

#include "workload/read_piped.h"
#include "workload/read_uring.h"
#include "workload/ways.h"

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
/* Byte i of the call's bytes, across the iovecs. */
unsigned char *wl_rbuf__at(const struct wl_rbuf *b, __u64 i);
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
	/* A file that changes under the call (--ops --jobs): the lengths
	 * it may return are ret_ok's (NULL: want, exactly), said as
	 * want_text; a byte that is not the file's is of kind
	 * mismatch_kind, unless it is the poison (unwritten) or stale
	 * memory (stale). */
	bool (*ret_ok)(const struct wl_read_truth *t, ssize_t ret);
	/* ... and an error it may end with (NULL: none). */
	bool (*err_ok)(const struct wl_read_truth *t, int err);
	const char *want_text;
	const char *mismatch_kind;
	/* Debug: the first byte is expected flipped (a check that must
	 * fail, --inject-wrong-expectation). */
	bool inject;
};

/* Failure kinds of a read besides a wrong answer (FS_CASE_ANSWER). */
#define WL_KIND_DATA "data"	      /* [0, ret) is not the file's */
#define WL_KIND_UNWRITTEN "unwritten" /* ... and still holds the poison */
/* ... and holds stale memory: bytes never written to this file (a page
 * handed out without being zeroed) */
#define WL_KIND_STALE "stale"
#define WL_KIND_PAST "past ret" /* [ret, iov_len) changed */
#define WL_KIND_GUARD "guard"	/* outside the iovecs */
/* A byte that no version of a file changing under the call held in the
 * call's window: neither its bytes before, during nor after what ran
 * meanwhile, nor the zeros a truncate or a punch leaves (--ops --jobs). */
#define WL_KIND_NO_VERSION "no version"
/* Is kind one of a wrong byte in [0, ret)? */
bool wl_read__kind_is_data(const char *kind);
/* The bytes a way moved did not come back whole from its pipe, socket
 * or output file, or a step around the call failed. */
#define WL_KIND_READ_BACK "read-back"

/* A failed check's kind and texts. */
struct wl_read_verdict {
	const char *kind;
	char want[128], got[192];
	/* A byte that is not the file's: its file offset. */
	bool has_at;
	__u64 at;
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
