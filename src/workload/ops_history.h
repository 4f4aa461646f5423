/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The versions of --ops' files while readers race the operations (run
 * WL --ops N --jobs J): one mutator applies the operations and, for each
 * one that may change a file, says when its calls begin and records what
 * it changed when they have returned, the bytes as they were before; a
 * version is the files after an operation. A reader notes the newest
 * version when its call begins and the last operation begun when it
 * returns: its window. What it read is then judged against every version
 * in that window (struct wl_hist_view): a read does not take i_rwsem
 * (tmpfs, btrfs) and may see any of them, and each byte of any of them,
 * the zeros that a truncate or a punch leaves included. With one version
 * in the window the check is as exact as a sequential one.
 *
 * The records a reader may still need are kept, the others freed; the
 * mutator waits while the kept bytes pass a bound, so a slow reader
 * cannot make it fill the memory of a small guest.
 */
#ifndef FS_WORKLOAD_OPS_HISTORY_H
#define FS_WORKLOAD_OPS_HISTORY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "workload/ops.h"
#include "workload/options.h"

/* The most readers a history serves (--jobs J: J - 1 of them). */
#define WL_HIST_READERS (WL_OPS_MAX_JOBS - 1)
/* The old bytes kept for readers before the mutator waits for them. */
#define WL_HIST_KEEP_BYTES (64ULL << 20)
/*
 * The page cache a filesystem dropped over a range rounded out (xfs:
 * struct wl_ops_geom's inval_unit), the latest WL_HIST_INVALS of them:
 * where it drops part of a large folio, truncate_inode_partial_folio
 * zeroes that part first, and a pipe or a socket that holds the folio
 * from a splice made before returns those zeros. A read whose way holds
 * folios past the filesystem's locks (a pipe, a socket, the pipe inside
 * sendfile and copy_file_range) may see them, where a drop began during
 * the read; no other read can (xfs takes its IOLOCK for both).
 */
#define WL_HIST_INVALS 1024
#define WL_HIST_HELD 32

struct wl_hist_inval {
	__u32 file;
	__u64 lo, hi; /* rounded out */
};

/* One operation that may have changed a file, once its calls returned. */
struct wl_hist_rec {
	__u64 version; /* the version it made */
	__u32 index;   /* its index in the seed's sequence */
	struct wl_op op;
	__u32 file;	    /* the file whose bytes or size it changed */
	__u64 lo, hi;	    /* the bytes [lo, hi) it may have changed ... */
	unsigned char *old; /* ... as they were before it */
	__u64 old_size, new_size;
	__u64 t0, t1; /* when its calls began and ended, ns from the start */
};

/*
 * A schedule: when each reader's reads began, as the version of the
 * files they began after. Recorded by a run (--schedule), followed by a
 * replay (--replay): there each reader makes the same reads (by number),
 * each once that version is made, and the mutator begins no operation
 * while a read due before it has not begun. Where a call ends is the
 * kernel's.
 */
struct wl_hist_sched {
	__u32 *read;
	__u64 *k0;
	__u32 n, cap, pos;
};

struct wl_history {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct wl_shadow *files; /* the newest version */
	__u32 nfiles;
	__u64 t_start;		  /* wl__now_ns() of version 0 */
	__u64 started, committed; /* operations begun, recorded */
	/* The operation begun and not yet recorded (started > committed). */
	struct wl_op cur;
	__u32 cur_index;
	__u64 cur_t0;
	/* rec[i] made version first + i; none before first is kept. */
	struct wl_hist_rec **rec;
	__u64 first;
	__u32 nrec, cap;
	__u64 kept_bytes, keep_max;
	/* Each reader's window's first version while it reads, or
	 * UINT64_MAX. */
	__u64 active[WL_HIST_READERS];
	bool stop; /* the mutator is done: no reader starts another read */
	/* The page-cache drops begun, the latest in a ring, and how many
	 * had begun when each reader's call began. */
	struct wl_hist_inval inval[WL_HIST_INVALS];
	__u64 ninval;
	__u64 inval_at[WL_HIST_READERS];
	struct wl_hist_sched sched[WL_HIST_READERS];
	bool record, replay;
};

/*
 * What a reader could have seen of [off, off + len) of a file: the
 * versions from k0 to k1. base: the bytes of version k1; recs: the
 * records of k0 + 1 .. k1 that changed this file, whose old bytes are the
 * bytes of the versions before them; the sizes the file had.
 */
struct wl_hist_view {
	__u32 file;
	__u64 off, len;
	__u64 k0, k1;
	__u32 k1_index;	     /* the index of the operation that made k1 */
	unsigned char *base; /* len bytes: the reader's */
	const struct wl_hist_rec **recs;
	__u32 nrecs, cap;
	__u64 size_min, size_max, size_k1;
	/* A loop device reads whole sectors: the sizes it can see are
	 * rounded down to them. */
	__u32 sector;
	/* Set by the reader: its way holds folios past the filesystem's
	 * locks. Then the drops of this file begun during the call
	 * (held_lost: more than the view keeps, or gone from the ring),
	 * whose zeros it may return. */
	bool holds_folios;
	__u32 nheld;
	bool held_lost;
	struct {
		__u64 lo, hi;
	} held[WL_HIST_HELD];
};

int wl_hist__init(struct wl_history *h, struct wl_shadow *files, __u32 nfiles,
		  __u64 keep_max);
void wl_hist__free(struct wl_history *h);

/* The mutator: op's calls begin (a no-op for a read or a dedupe, which
 * change no byte), and then what they did, as wl_shadow__apply takes it;
 * a NULL history just applies it. */
bool wl_hist__changes_files(const struct wl_op *op);
void wl_hist__begin(struct wl_history *h, const struct wl_op *op, __u32 index);
void wl_hist__apply(struct wl_history *h, struct wl_shadow *files,
		    const struct wl_op *op, __u64 seed, __u32 index,
		    long long ret);
/* A store that was lost (op, begun with wl_hist__begin): the version
 * with its bytes, and then the one without them, which the file went
 * back to; both made at once. */
void wl_hist__apply_lost(struct wl_history *h, struct wl_shadow *files,
			 const struct wl_op *op, __u64 seed, __u32 index);
/* The mutator: op's calls about to drop the page cache over [lo, hi)
 * of file, rounded out to unit (wl_ops_geom's inval_unit). */
void wl_hist__inval(struct wl_history *h, __u32 file, __u64 lo, __u64 hi,
		    __u32 unit);
/* The mutator is done: readers end their loops. */
void wl_hist__stop(struct wl_history *h);

/*
 * A reader (0 .. WL_HIST_READERS - 1): its call is about to begin
 * (false: the mutator is done, read no more); its call has returned, the
 * view of what it could have seen (v->base holds v->len bytes, set by
 * the caller); and it is done with the view.
 */
bool wl_hist__read_begin(struct wl_history *h, __u32 reader, __u32 read,
			 __u64 *k0);
int wl_hist__read_end(struct wl_history *h, __u32 reader, __u64 k0,
		      struct wl_hist_view *v);
void wl_hist__read_done(struct wl_history *h, __u32 reader,
			struct wl_hist_view *v);
/* The schedule: an entry of reader's (recorded or loaded, in order);
 * a replaying reader's next read (false: its schedule is done). */
int wl_hist__sched_add(struct wl_history *h, __u32 reader, __u32 read,
		       __u64 k0);
bool wl_hist__sched_next(struct wl_history *h, __u32 reader, __u32 *read);
/* ... a read the reader did not make (a way this kernel lacks). */
void wl_hist__sched_skip(struct wl_history *h, __u32 reader);
/* The view of versions k0 .. k1 (k1 recorded; the records after k0
 * kept): what wl_hist__read_end builds once the window's last operation
 * is recorded. */
int wl_hist__view(struct wl_history *h, __u64 k0, __u64 k1,
		  struct wl_hist_view *v);

/* The view's verdicts: is ret a length some version allows (it ends at
 * len, or at or past an end of the file it could have seen, never past
 * the largest); the first byte of buf[0..n) at file offset off that no
 * version held (n: none); the newest version's byte at off. */
bool wl_hist_view__ret_ok(const struct wl_hist_view *v, ssize_t ret,
			  bool short_ok);
/* An error a read may end with: a loop device keeps the size it was
 * bound with, and a read of it past the end of a file that shrank since
 * fails with EIO; or it returns zeros for the whole request, which diff
 * takes too. */
bool wl_hist_view__err_ok(const struct wl_hist_view *v, int err);
size_t wl_hist_view__diff(const struct wl_hist_view *v, __u64 off,
			  const unsigned char *buf, size_t n);
/* Of buf[0..n) at off, the zeros only a drop held by the read's way
 * allows (no version held them): 0 for a read without such a drop. */
size_t wl_hist_view__held_zeros(const struct wl_hist_view *v, __u64 off,
				const unsigned char *buf, size_t n);
unsigned char wl_hist_view__byte(const struct wl_hist_view *v, __u64 off);
/* What the versions held at off, newest first ("version 12: 0x41,
 * before #30 pwrite: 0x00"); the window, short ("versions 11..13 by #29
 * truncate, #30 pwrite": those of this file) or all its operations with
 * their times. */
void wl_hist_view__bytes_text(const struct wl_hist_view *v, __u64 off,
			      char *buf, size_t n);
void wl_hist_view__window_text(const struct wl_hist_view *v,
			       const struct wl_ops_geom *geo, bool all,
			       char *buf, size_t n);

#endif /* FS_WORKLOAD_OPS_HISTORY_H */
