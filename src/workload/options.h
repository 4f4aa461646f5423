/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A run's options as typed values (struct wl_opts): the command line
 * parses each once, with the name tables each option's module holds
 * (the way in: read.c; huge= and the filesystem: mount.c; the fill:
 * shmem_truth.c; the differing byte: dedupe_truth.c; the workload:
 * workload.c), and the workloads read the values.
 */
#ifndef FS_WORKLOAD_OPTIONS_H
#define FS_WORKLOAD_OPTIONS_H

#include <stdbool.h>
#include <string.h>
#include <linux/types.h>

/* The index of name in names[0..n), or -1: the option tables' parser. */
static inline int wl__lookup(const char *const *names, int n, const char *name)
{
	for (int i = 0; name && i < n; i++)
		if (names[i] && !strcmp(name, names[i]))
			return i;
	return -1;
}

/* The workloads. */
enum wl_kind {
	WL_DEDUPE,
	WL_SHMEM,
	WL_KIND_NR,
};

/* "dedupe", "shmem-read"; the parser's answer is -1 for another name. */
const char *wl_kind__name(enum wl_kind k);
int wl_kind__parse(const char *name);

/*
 * What a run does with its workload: one layout from the options (or
 * dedupe's seed workload, --files), the default matrix of layouts, N
 * random layouts, N random operations on a few files, or shmem-read's
 * timed passes before its checked one. workload.c holds a table of what
 * each does, per workload.
 */
enum wl_mode {
	WL_MODE_LAYOUT,
	WL_MODE_MATRIX,
	WL_MODE_RANDOM,
	WL_MODE_OPS,
	WL_MODE_THROUGHPUT,
	WL_MODE_NR,
};

/*
 * How a read enters the kernel (shmem-read's --syscall, and every read
 * of --ops): the read engine (read.h) holds what each takes and how its
 * calls are seen. The first three keep their places: random layouts
 * draw them by index.
 */
enum wl_way {
	WL_WAY_READ,
	WL_WAY_PREAD,
	WL_WAY_READV,
	WL_WAY_PREADV2,
	WL_WAY_URING_READ,
	WL_WAY_URING_READV,
	WL_WAY_URING_FIXED,
	WL_WAY_SPLICE,
	WL_WAY_SENDFILE,
	WL_WAY_SENDFILE_SOCK,
	WL_WAY_COPY_RANGE,
	WL_WAY_COPY_OTHER_FS,
	WL_WAY_COPY_SAME,
	WL_WAY_LOOP,
	WL_WAY_NR,
};

/* What wl_way__parse takes, for --help and its usage error. */
#define WL_WAY_NAMES                                                           \
	"read, pread, readv, preadv2, io_uring-read, io_uring-readv, "         \
	"io_uring-read_fixed, splice, sendfile, sendfile-socket, "             \
	"copy_file_range, copy_file_range-other-fs, "                          \
	"copy_file_range-same-file or loop"
const char *wl_way__name(enum wl_way w);
int wl_way__parse(const char *name);

/* tmpfs huge= modes, in the order the matrix and --ops use them. */
enum wl_huge {
	WL_HUGE_ALWAYS,
	WL_HUGE_WITHIN_SIZE,
	WL_HUGE_ADVISE,
	WL_HUGE_NEVER,
	WL_HUGE_NR,
};

const char *wl_huge__name(enum wl_huge h);
int wl_huge__parse(const char *name);

/* What a shmem-read file holds (--fill). */
enum sh_fill {
	SH_FILL_FULL,	/* pattern from 0 to size */
	SH_FILL_SPARSE, /* small pieces in every other 2 MiB, holes between */
	SH_FILL_MIXED,	/* whole 2 MiB chunks, then a sparse 4 KiB tail */
	/* fallocated over all of its size, which fallocate(2) sets, and
	 * never written: zeros */
	SH_FILL_FALLOC,
	/* its size set first, then fallocated with KEEP_SIZE over all of
	 * it and past its end, never written: zeros, and folios past EOF */
	SH_FILL_FALLOC_KEEP,
	/* its size set, nothing written or allocated: all of it a hole */
	SH_FILL_HOLE,
	SH_FILL_NR,
};

const char *sh_fill__name(enum sh_fill f);
int sh_fill__parse(const char *name);

/* preadv2's --rwf: the RWF_* flags of "none", "nowait", "hipri" (-1 for
 * another name), and the name of flags ("" for none). */
int wl_rwf__parse(const char *name);
const char *wl_rwf__name(int rwf);

/* dedupe's filesystems on loop images (--fs); ANY: not given (one
 * layout: btrfs; the matrix: both). */
enum wl_fstype {
	WL_FSTYPE_ANY,
	WL_FSTYPE_BTRFS,
	WL_FSTYPE_XFS,
	WL_FSTYPE_NR,
};

/* "btrfs", "xfs" (NULL for ANY); the parser takes those two only. */
const char *wl_fstype__name(enum wl_fstype t);
int wl_fstype__parse(const char *name);

/* Where the one differing byte of a dedupe destination range sits
 * (--differ). */
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
int dd_diff__parse(const char *name);

/*
 * The traced phase finished one group of layouts: one filesystem and
 * block size of dedupe (fstype "xfs", name "xfs bs=1024"), one mount of
 * shmem-read (fstype "tmpfs", name "tmpfs huge=always"). Called on the
 * workload's thread with no call of the workload in flight, so a run can
 * snapshot the histograms per group.
 */
typedef void (*wl_group_fn)(void *ctx, const char *fstype, const char *name);

/* A run's options, as typed values: the command line parses each once. */
struct wl_opts {
	enum wl_kind kind;
	enum wl_mode mode;
	/* WL_MODE_RANDOM: this many layouts drawn from seed */
	unsigned int random;
	/* WL_MODE_OPS: this many operations drawn from seed on a few files
	 * checked against a shadow of each; ops_only: only those of them
	 * (ascending indices, a shrunk failure's replay), NULL for all */
	unsigned int ops;
	const __u32 *ops_only;
	__u32 ops_only_n;
	/* --jobs J: the mutator runs the operations while J - 1 readers
	 * race it (0 or 1: the mutator alone), J <= WL_OPS_MAX_JOBS */
	__u32 ops_jobs;
	/* --repeat K: the sequence K times (with --jobs), <= WL_OPS_MAX_REPEAT
	 */
	__u32 ops_repeat;
	/* --schedule FILE, --replay FILE (with --jobs): write the readers'
	 * schedule, follow one */
	const char *ops_schedule, *ops_replay;
	__u64 seed;
	/* WL_MODE_RANDOM, WL_MODE_OPS: draw no more layouts or operations
	 * after this many ms (0: no limit); the report says how many ran */
	__u64 time_limit_ms;
	/* dedupe --matrix: leave out the layouts that put large folios in
	 * the page cache (a debug option, to show the coverage warning) */
	bool no_large_layouts;
	wl_group_fn group_end; /* NULL: nobody asks */
	void *group_ctx;
	bool inject_wrong; /* debug: flip one expected answer */
	/* debug: --ops --jobs' racing reader 1's first read never returns */
	bool inject_stuck_reader;
	/* debug: SIGSTOP the process after this many traced dedupe cases or
	 * read calls (0 = never), so that a test can change the environment
	 * at a known point and then SIGCONT it */
	__u64 stop_after;
	/* Seconds every layout's deadline starts from (0 = the default):
	 * a layout past its deadline, or a kernel call that has not
	 * returned by then, is a "timeout" failure. */
	__u64 deadline_base;
	/* dedupe */
	const char *dir; /* existing dir on btrfs/xfs; NULL = loop-mounted fs */
	__u64 image_size;      /* loop image size; 0 = fit the data */
	enum wl_fstype fstype; /* matrix: ANY = all */
	__u32 block_size;      /* xfs mkfs -b size=; 0 = default (4096) */
	__u64 range;	       /* bytes per dedupe range; 0 = default */
	unsigned int count;    /* ranges (one ioctl each), default 64 */
	__u64 src_off;	       /* first source offset */
	__u64 dst_off;	       /* first destination offset */
	bool dst_off_set;
	unsigned int dests;  /* destinations per ioctl, default 1 */
	bool same_file;	     /* destinations are ranges of the source file */
	enum dd_diff differ; /* byte that differs per destination */
	bool cold;	     /* drop the files' pages before the dedupe */
	unsigned int files;  /* seed workload: N identical files, 0 = off */
	__u64 file_size;     /* seed: size of each file; else 0 = fit ranges */
	/* shmem-read */
	enum wl_huge huge;
	enum sh_fill fill;
	__u64 size;	      /* file size, default 16 MiB */
	__u64 bs;	      /* read size, default 64 KiB */
	__u64 offset;	      /* first file position read */
	__u64 length;	      /* bytes to read from offset; 0 = to EOF */
	__u64 buf_align;      /* buffer = page-aligned base + buf_align */
	enum wl_way way;      /* --syscall */
	int rwf;	      /* preadv2's RWF_* flags */
	unsigned int iovecs;  /* readv: iovecs per call, default 1 */
	unsigned int readers; /* concurrent reader threads, default 1 */
	/* Reader buffers mapped MAP_SHARED from a tmpfs file (a memfd) and
	 * unmapped before every call, so each read's copy faults them in:
	 * folio lookups of another file inside the read. */
	bool buf_tmpfs;
	/* WL_MODE_THROUGHPUT: this many timed passes as lean as fio's
	 * before the checked one (at most WL_TPUT_MAX_PASSES) */
	unsigned int throughput;
};

#define WL_TPUT_MAX_PASSES 32

/* The most --jobs of --ops: the mutator and its racing readers. */
#define WL_OPS_MAX_JOBS 17
#define WL_OPS_MAX_REPEAT 1000
/* The most --readers a shmem-read run starts. */
#define SH_MAX_READERS 64
/* The most --random layouts a run draws. */
#define WL_RANDOM_MAX 256
#define WL_OPS_MAX 1000000

#endif /* FS_WORKLOAD_OPTIONS_H */
