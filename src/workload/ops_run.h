/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An --ops run's state, shared by its two files: ops_setup.c makes the
 * files' mounts (a tmpfs per huge= mode, or btrfs and xfs on loop images),
 * the files and their shadows and the buffers, and undoes them; ops.c
 * runs the sequence against the kernel and shrinks a failing one.
 */
#ifndef FS_WORKLOAD_OPS_RUN_H
#define FS_WORKLOAD_OPS_RUN_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <linux/fs.h>
#include <linux/types.h>

#include "util/util.h"
#include "workload/ops.h"
#include "workload/ops_history.h"
#include "workload/read.h"

/* The final read-back's chunk; the reads' buffer holds it. */
#define OPS_READBACK (1ULL << 20)
/* dedupe's loop images: room for four files' data several times over,
 * and mkfs.xfs's 300 MB minimum. */
#define OPS_IMG_SIZE (384ULL << 20)

struct ops_file {
	char dir[PATH_MAX]; /* shmem-read: its own mount */
	char path[PATH_MAX];
	bool mounted, made;
	int fd;
};

struct wl_ops;

/*
 * Who reads the files: the mutator's own reads of the sequence (id 0,
 * checked against the one version there is), or one of --jobs' racing
 * readers (id 1 ..), checked against every version its call could have
 * seen (ops_history.h), on fds, a buffer and counts of its own.
 */
struct ops_reader {
	struct wl_ops *s;
	__u32 id;
	int fd[WL_OPS_NFILES];
	/* Its reads' buffer: a page of guard in front of the base, which
	 * is page-aligned (loop reads take it with O_DIRECT), room for the
	 * read-back's chunk and a read's iovecs, gaps and guard; all of it
	 * registered for io_uring-read_fixed. */
	unsigned char *rmem;
	__u64 rmem_len;
	struct wl_totals *tot; /* the run's (id 0) or own_tot */
	struct wl_totals own_tot;
	__u64 reads; /* poison seeds */
	/* Reads that crossed pages in each state (the mutator's only: the
	 * others cannot see the shadows' states while they change). */
	__u64 reads_in[WL_RANGE_NR];
	/* The read in flight, for the watchdog's report. */
	const struct wl_op *cur;
	__u32 cur_index;
	/* A racing reader: its thread, its window's view, its reads, those
	 * whose window held more than one version, its call's times (ns
	 * from the run's start). */
	pthread_t thread;
	bool running;
	struct wl_hist_view view;
	__u64 nreads, overlapped;
	__u64 held_zeros; /* zeros only a held drop explains */
	__u64 t0, t1;
};

/*
 * dedupe's second mutator (ops_store.c): while the mutator's
 * FIDEDUPERANGE runs, a store into one of its destinations (by pwrite,
 * or through a shared mapping: a page fault and page_mkwrite), begun a
 * drawn delay after the ioctl. Its bytes are a version of their own; the
 * ioctl's answer must be right for some state the destination was in
 * during the call, and the store must be in the file afterwards.
 */
struct ops_storer {
	struct wl_ops *s;
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* The store to make (armed by the mutator), the ioctl begun (go,
	 * spun on: a wakeup would cost more than the window), made. */
	bool armed, quit, made;
	int go;
	struct wl_op w; /* the store as a pwrite of the shadows */
	__u32 index, dest;
	bool by_mmap;
	int fd;
	unsigned char *map, *at; /* the mapping, the store's first byte */
	__u64 map_len;
	unsigned char *bytes; /* the store's bytes (a unit's pattern) */
	__u64 delay_ns;
	/* What it did: pwrite's return (-errno), when it began
	 * (wl__now_ns()). */
	long long ret;
	__u64 t0;
	__u64 ioctl_t0, ioctl_t1; /* the ioctl's */
	/* Recent ioctls' time: half the delays are drawn below it. The
	 * other half around aim_ns: where the compare happens, as the
	 * answers to stores through a mapping tell it (ops__store_saw). */
	__u64 ioctl_ns, aim_ns;
	/* Stores made, by mapping, begun while the ioctl ran. */
	__u64 stores, by_mapping, inside;
};
/* The watchdog's slot of the store: after every reader's. */
#define OPS_STORE_SLOT WL_OPS_MAX_JOBS
/* A store's most bytes: two units of the largest block size. */
#define OPS_STORE_MAX (2 * 65536)

struct wl_ops {
	const char *wl;
	struct wl_ops_geom geo;
	__u64 seed;
	__u32 n;    /* --ops N */
	__u32 *idx; /* the operations, in order (--ops-only: those) */
	__u32 nidx;
	bool only; /* --ops-only */
	__u32 page;
	__u64 deadline_base;
	/* --time-limit: no operation drawn after until_ns (0: none), set
	 * when the run starts */
	__u64 limit_ms, until_ns;
	struct ops_file f[WL_OPS_NFILES];
	struct wl_shadow shadows[WL_OPS_NFILES]; /* file i's */
	/* dedupe: the loop filesystems in a temp dir of their own */
	char tmpdir[PATH_MAX];
	struct wl_loopfs lfs[2];
	unsigned char *wbuf;
	struct file_dedupe_range *req;
	struct wl_watch *watch;
	/* The mutator's reads, and --jobs J's J - 1 racing readers with the
	 * files' versions they are checked against. */
	struct ops_reader main;
	__u32 jobs;
	struct ops_reader *racers;
	struct wl_history hist;
	struct ops_storer store; /* dedupe: the second mutator */
	bool racing;	 /* the readers run: hist is the shadows' keeper */
	__u32 race_told; /* racing failures told in full on stderr */
	__u64 race_reads, race_overlapped, race_held_zeros;
	/* dedupe's racing stores: made, by a mapping, begun during their
	 * ioctl. */
	__u64 race_stores, race_stores_mapped, race_stores_inside;
	/* --schedule FILE: the readers' schedule, kept from the history
	 * for the file; --replay FILE: one to follow. */
	const char *schedule_path, *replay_path;
	/* --replay's file, read before the run (a schedule on tmpfs would
	 * be reads the probes count), parsed when the readers start. */
	char *replay_text;
	size_t replay_len;
	struct wl_hist_sched sched[WL_HIST_READERS];
	/* --repeat K: the sequence's runs, and those with a failure. */
	__u32 repeat, repeats_run, repeats_failed;
	/* Checks come from every reader. */
	pthread_mutex_t check_lock;
	struct fs_report *r; /* where the checks go now */
	struct wl_totals tot;
	/* ZERO_RANGE operations per file: done, refused. */
	__u64 zeroed[WL_OPS_NFILES], zero_refused[WL_OPS_NFILES];
	__u64 done; /* operations run */
	/* The first failure: its operation's index, its kind; a racing
	 * reader's: the last operation begun when its call returned. */
	bool failed, fail_race;
	__u32 fail_index;
	char kind[24];
	/* Debug: racing reader 1's first read never returns. */
	bool inject_stuck;
	/* A shrink trial looks for this kind only. */
	const char *want_kind;
	bool trial_failed;
	/* What a way into a read may need of the kernel and lack (a
	 * small test kernel has no AF_UNIX, a distribution may turn
	 * io_uring off): each is tried at the first read that needs it;
	 * the reads that need what the kernel lacks are skipped, said once
	 * on stderr and counted in the report (need_ready). */
	struct {
		bool ok, lacking;
		__u64 skipped;
	} need[WL_NEED_NR];
};

/* ops_setup.c */
int ops__prepare(void **out, const struct wl_opts *o);
void ops__destroy(void *state);
/* Fresh files, shadows all zero. */
int ops__files_reset(struct wl_ops *s);
/* A reader's buffer (rmem, rmem_len) for the reads of --ops. */
int ops__reader_mem(const struct wl_ops *s, struct ops_reader *rd);

/* ops.c: a read by op's way, checked (index UINT32_MAX: the
 * read-back's; a racing reader's: its own read's number). */
void ops__read(struct wl_ops *s, struct ops_reader *rd, const struct wl_op *op,
	       __u32 index);

/* ops_race.c: --jobs' readers start, race the sequence, and stop (their
 * counts added to the run's, race_reads and race_overlapped). */
int ops__race_start(struct wl_ops *s);
void ops__race_stop(struct wl_ops *s);
/* --schedule FILE: when each reader's reads began. */
int ops__schedule_write(struct wl_ops *s, const char *path);
/* --replay FILE: its text, read while the run is set up. */
int ops__replay_read(struct wl_ops *s);

/* ops_store.c: the second mutator starts (dedupe, --jobs) and stops;
 * around a FIDEDUPERANGE (op, index) whose compare covers cmp_len[d] of
 * destination d: arm a store (false: none), let it go as the ioctl
 * begins, and wait until it is made (armed; the ioctl's time, t0..t1,
 * either way: the delays are drawn below it). */
int ops__store_start(struct wl_ops *s);
void ops__store_stop(struct wl_ops *s);
bool ops__store_arm(struct wl_ops *s, const struct wl_op *op, __u32 index,
		    const __u64 *cmp_len);
void ops__store_go(struct wl_ops *s);
void ops__store_wait(struct wl_ops *s, bool armed, __u64 ioctl_t0,
		     __u64 ioctl_t1);
/* After the wait: the store's range unmapped. */
void ops__store_done(struct wl_ops *s);
/* What the answer for the store's destination, equal to the source
 * before the store, says of a store through a mapping: it landed before
 * the compare (DIFFERS) or after it (SAME). */
void ops__store_saw(struct wl_ops *s, bool before_compare);

#endif /* FS_WORKLOAD_OPS_RUN_H */
