/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one header shared by the BPF programs and user space: histogram
 * layout and slot indices. Only fixed-width __u32/__u64 types, so both
 * sides agree on the layout byte for byte.
 */
#ifndef FOLIOSCOPE_SHARED_H
#define FOLIOSCOPE_SHARED_H

/*
 * log2 slots: slot 0 holds the value 0, slot k (k >= 1) holds
 * [2^(k-1), 2^k - 1]; values at or above 2^62 land in the last slot.
 * Alignments are powers of two, so an alignment 2^j sits alone in slot j+1.
 */
#define FS_SLOTS 64
#define FS_MAX_HISTS 8
#define FS_MAX_COUNTERS 16
/*
 * Alignment cap: 2 MiB; larger alignments count as 2 MiB. Offset 0 has no
 * largest power of two dividing it: it is recorded as 0, in slot 0, which
 * every report labels "offset 0".
 */
#define FS_ALIGN_CAP_SHIFT 21

/* Histograms of the dedupe-compare target. */
enum fs_dedupe_hist {
	FS_DD_BYTES,
	FS_DD_SRC_ALIGN,
	FS_DD_DST_ALIGN,
	FS_DD_FOLIO_SIZE,
	FS_DD_LATENCY,
	/* At an inline site: the caller that holds it, entry to return, for
	 * the same calls as FS_DD_LATENCY (so never less than it). */
	FS_DD_CALLER_LAT,
	FS_DD_NHIST,
};

/*
 * "dropped": calls not measured: the in-flight store refused them, or
 * the thread's next call found them still in flight (their exit lost).
 * "missed": program runs the kernel skipped (recursion, kprobe misses),
 * filled in by user space from bpf_prog_info and kprobe_profile, never
 * by the BPF side.
 */
enum fs_dedupe_counter {
	FS_DD_CALLS,
	FS_DD_SAME,
	FS_DD_DIFFERS,
	FS_DD_ERRORS,
	FS_DD_DROPPED,
	FS_DD_MISSED,
	/* Syscall level: ioctls of 32-bit (compat) tasks, not decoded. */
	FS_DD_COMPAT,
	FS_DD_EVENTS,  /* events the ring buffer took */
	FS_DD_EV_LOST, /* selected events it had no room for */
	FS_DD_NCOUNTERS,
};

/* Histograms of the tmpfs-read target. */
enum fs_shmem_hist {
	FS_SH_BYTES,
	FS_SH_REQ_BYTES,
	FS_SH_POS_ALIGN,
	FS_SH_BUF_ALIGN,
	FS_SH_FOLIO_SIZE,
	FS_SH_COPY_BYTES,
	FS_SH_LATENCY,
	/* Page-cache lookups per read: a folio looked up alone (the
	 * sub-probe's function), or a batch of them
	 * (filemap_get_folios_contig). */
	FS_SH_LOOKUPS,
	FS_SH_NHIST,
};

enum fs_shmem_counter {
	FS_SH_CALLS,
	FS_SH_ERRORS,
	FS_SH_DROPPED,
	FS_SH_MISSED,
	/* Syscall level: readv/preadv/preadv2 calls with more than
	 * FS_MAX_IOVECS iovecs; counted, req_bytes sums the first ones. */
	FS_SH_IOV_BEYOND,
	/* Syscall level: read-family syscalls of 32-bit (compat) tasks,
	 * not decoded (their numbers and registers differ). */
	FS_SH_COMPAT,
	FS_SH_EVENTS,  /* events the ring buffer took */
	FS_SH_EV_LOST, /* selected events it had no room for */
	/* Batch lookups of traced reads, and the folios they returned. */
	FS_SH_BATCHES,
	FS_SH_BATCH_FOLIOS,
	/* Bytes copied after a batch lookup: a copy per folio of the batch,
	 * with no lookup between them to tell one from the next, so not in
	 * copy_bytes. */
	FS_SH_BATCH_COPY_BYTES,
	FS_SH_NCOUNTERS,
};

/*
 * Syscall level: iovecs of one readv/preadv/preadv2 summed into req_bytes
 * (the BPF loop's bound), and the most `run --iovecs` asks for.
 */
#define FS_MAX_IOVECS 64
/*
 * FIDEDUPERANGE destinations per ioctl: the most a workload puts in one
 * (the kernel takes up to a page of them), and the bound of the BPF loop
 * that reads their results back at the syscall level.
 */
#define DD_MAX_DESTS 16
/* Folios a folio_batch holds at most (PAGEVEC_SIZE): the bound of the
 * BPF loop over a batch lookup's folios. */
#define FS_BATCH_MAX 31
/* x86-64 syscall numbers the syscall level watches. */
#define FS_NR_READ 0
#define FS_NR_IOCTL 16
#define FS_NR_PREAD64 17
#define FS_NR_READV 19
#define FS_NR_PREADV 295
#define FS_NR_PREADV2 327
/* The same calls of 32-bit tasks (i386 numbers), counted as skipped. */
#define FS_NR32_READ 3
#define FS_NR32_IOCTL 54
#define FS_NR32_READV 145
#define FS_NR32_PREAD64 180
#define FS_NR32_PREADV 333
#define FS_NR32_PREADV2 378
/*
 * The raw sys_enter/sys_exit pair shared by both targets (sysraw.bpf.c):
 * the slots of its program array each target's programs fill.
 */
#define FS_SYSRAW_SH_ENTER 0
#define FS_SYSRAW_SH_EXIT 1
#define FS_SYSRAW_DD_ENTER 2
#define FS_SYSRAW_DD_EXIT 3
#define FS_SYSRAW_SLOTS 4
/* Syscall numbers the pair's slot tables cover: above every number
 * above, a power of two. */
#define FS_SYSRAW_NR_MAX 512

/*
 * Inline sites: where each argument of an inlined function is at a site's
 * entry, as user space found it in the DWARF and the entry probe fetches
 * it. Registers are DWARF's x86-64 numbers (0 rax, 1 rdx, 2 rcx, 3 rbx,
 * 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15).
 */
#define FS_INLINE_MAX_SITES 4
#define FS_INLINE_NARGS 6 /* arguments fetched, by position */
#define FS_INLINE_NREGS 16
/* Distinct exit targets per site; an exit program's cookie is
 * site * FS_INLINE_MAX_EXITS + the exit's index. */
#define FS_INLINE_MAX_EXITS 16

enum fs_fetch_kind {
	FS_FETCH_NONE,	/* no location at the entry: not measured */
	FS_FETCH_REG,	/* the register's value */
	FS_FETCH_MEM,	/* size bytes of memory at register + off */
	FS_FETCH_VALUE, /* register + off (an address in the frame) */
	FS_FETCH_CONST, /* off itself */
};

struct fs_fetch {
	__u32 kind; /* enum fs_fetch_kind */
	__u32 reg;  /* < FS_INLINE_NREGS */
	__s64 off;
	__u32 size; /* FS_FETCH_MEM: 1, 2, 4 or 8 */
	__u32 pad;
};

/* Filters: at most this many -p PIDs, and this many --cgroup trees. */
#define FS_MAX_PIDS 8
#define FS_MAX_CGROUPS 8

/*
 * What a breakdown keys its rows by: -P (--by process) the process,
 * --by cgroup the task's cgroup v2 (the one bpf_get_current_cgroup_id()
 * returns).
 */
enum fs_by {
	FS_BY_NONE,
	FS_BY_PROCESS,
	FS_BY_CGROUP,
};

/*
 * A breakdown's stats entries: 0..FS_BY_SLOTS-1 belong to one key each,
 * in order of first sight; later keys share the "other" entry. Without a
 * breakdown everything goes to entry 0. FS_BY_KEYS bounds the keys
 * remembered at all (those of "other" included), so user space can say
 * how many "other" holds, up to that.
 */
#define FS_BY_SLOTS 64
#define FS_BY_OTHER FS_BY_SLOTS
#define FS_STATS_ENTRIES (FS_BY_SLOTS + 1)
#define FS_BY_KEYS 4096

/* Who owns a breakdown's entry: what its first call's task was. */
#define FS_CGROUP_NAME 64
struct fs_by_info {
	__u64 cgroup; /* FS_BY_CGROUP: the cgroup v2 id; 0 = entry unused */
	__u32 pid;    /* FS_BY_PROCESS: the tgid; 0 = entry unused */
	char comm[16];
	/* FS_BY_CGROUP: the cgroup directory's own name (the path's last
	 * part), for a cgroup gone before user space could name it. */
	char cgroup_name[FS_CGROUP_NAME];
};

struct fs_hist_cell {
	__u64 slot[FS_SLOTS];
	__u64 sum;
};

/*
 * Value of the per-CPU "stats" array of each BPF object (one entry per
 * target). User space sums it over CPUs into the histogram model.
 */
struct fs_stats {
	struct fs_hist_cell hist[FS_MAX_HISTS];
	__u64 counter[FS_MAX_COUNTERS];
};

/*
 * Slot math, compiled into both the BPF programs and the user-space model
 * so the two can never disagree. The BPF backend has no count-leading-
 * zeros, and a search by halves costs a compare and a branch per step:
 * instead, a power of two p = 2^i is told by the top six bits of
 * p * FS_LOG2_MUL, which differ for each of the 64 (a de Bruijn
 * sequence), through a table of 64 bytes: fewer instructions than the
 * search, and none of its branches on the value's size.
 */
#define FS_LOG2_MUL 0x022fdd63cc95386dULL

static const __u8 fs_log2_table[64] = {
	0,  1,	2,  53, 3,  7,	54, 27, 4,  38, 41, 8,	34, 55, 48, 28,
	62, 5,	39, 46, 44, 42, 22, 9,	24, 35, 59, 56, 49, 18, 29, 11,
	63, 52, 6,  26, 37, 40, 33, 47, 61, 45, 43, 21, 23, 58, 17, 10,
	51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12,
};

/* floor(log2(p)) of a power of two p. */
static inline __u32 fs_log2_pow2(__u64 p)
{
	return fs_log2_table[(p * FS_LOG2_MUL) >> 58];
}

/* Slot of 0 or a power of two: 0, or log2 + 1 (at most 63 + 1 -> 63). */
static inline __u32 fs_pow2_slot(__u64 p)
{
	__u32 r;

	if (!p)
		return 0;
	r = fs_log2_pow2(p) + 1;
	return r < FS_SLOTS ? r : FS_SLOTS - 1;
}

/*
 * Slot of v: 0 for 0, floor(log2(v)) + 1 otherwise, the top one holding
 * everything from 2^62 on. With every bit below v's top one set, v + 1 is
 * the power of two whose log2 is the slot, and 0 + 1 = 2^0 gives slot 0:
 * no test for zero and no clamp, two branches fewer on every histogram
 * update. Only v >= 2^63 wraps v + 1 to 0; its top bit turns the slot
 * back into the last one.
 */
_Static_assert(FS_SLOTS == 64, "fs_log2_slot: 2^63 and up go to slot 63");

static inline __u32 fs_log2_slot(__u64 v)
{
	v |= v >> 1;
	v |= v >> 2;
	v |= v >> 4;
	v |= v >> 8;
	v |= v >> 16;
	v |= v >> 32;
	return fs_log2_pow2(v + 1) | (__u32)(v >> 63) * (FS_SLOTS - 1);
}

/* Largest power of two dividing v, capped at 2 MiB; 0 for v = 0. */
static inline __u64 fs_alignment(__u64 v)
{
	__u64 a = v & (~v + 1);

	if (a > (1ULL << FS_ALIGN_CAP_SHIFT))
		return 1ULL << FS_ALIGN_CAP_SHIFT;
	return a;
}

/*
 * Per-call events: one record per selected call through the ring buffer
 * "events". Which parts the attach level saw is in flags: a part whose
 * bit is clear was not seen, it is not a zero.
 */
#define FS_EVF_FILE (1U << 0)  /* dev and ino */
#define FS_EVF_BUF (1U << 1)   /* buf: the user buffer's address */
#define FS_EVF_FOLIO (1U << 2) /* folio_min/max/n */
#define FS_EVF_CHUNK (1U << 3) /* chunk_min/max/n */
#define FS_EVF_DST (1U << 4)   /* off2: the destination offset (dedupe) */
#define FS_EVF_FD (1U << 5)    /* fd: the call's descriptor (syscall level) */
#define FS_EVF_LEN (1U << 6)   /* ret: the length returned */

enum fs_ev_result {
	FS_EV_OK,      /* a read that returned ret bytes */
	FS_EV_SAME,    /* a compare that found the ranges equal */
	FS_EV_DIFFERS, /* a compare that found them different */
	FS_EV_ERROR,   /* ret is -errno */
	FS_EV_TIMED,   /* timing only: the result is not known */
};

/* Ring buffer size when not asked otherwise, and its bounds. */
#define FS_EV_RING_DEFAULT (256U << 10)
#define FS_EV_RING_MIN 4096U
#define FS_EV_RING_MAX (1U << 30)

struct fs_event {
	__u64 ts_ns;  /* bpf_ktime_get_ns() at the call's end (monotonic) */
	__u64 lat_ns; /* entry to exit */
	__u64 ino;
	__u64 off;  /* file position (dedupe: source offset) */
	__u64 off2; /* dedupe: destination offset */
	__u64 req;  /* length asked */
	__s64 ret;  /* length returned, or -errno */
	__u64 buf;
	__u64 folio_min, folio_max;
	__u64 chunk_min, chunk_max;
	__u32 folio_n, chunk_n;
	__u32 pid, tid;
	__u32 dev; /* kernel dev_t (12-bit major, 20-bit minor) */
	__u32 cpu;
	__u32 target; /* enum fs_target of user space: 0 dedupe, 1 shmem */
	__u32 result; /* enum fs_ev_result */
	__u32 flags;  /* FS_EVF_* */
	__s32 fd;
	char comm[16];
};

/* Where in-flight calls live (bpf/common.bpf.h, inflight_store). */
enum fs_store {
	FS_STORE_TASK, /* task local storage */
	FS_STORE_HASH, /* a hash keyed by thread id */
	FS_STORE_CPU,  /* per-CPU slots; the hash for calls that move */
};

/*
 * Parts of a traced call's work that a bench variant leaves out, to
 * measure what each costs (FOLIOSCOPE_COST_DROP, docs/benchmarks.md).
 * A trace that leaves one out measures wrong: never set otherwise. The
 * histograms are left out one by one by their index (cost_drop_hist).
 */
#define FS_DROP_FILE (1U << 0)	   /* the fd -> file -> inode checks */
#define FS_DROP_INFLIGHT (1U << 1) /* the store: a per-CPU slot instead */
#define FS_DROP_TIME (1U << 2)	   /* the timestamps */
#define FS_DROP_FOLIO (1U << 3)	   /* the folio's order: a page each */
#define FS_DROP_HISTS (1U << 4)	   /* every histogram update */
#define FS_DROP_ALL                                                            \
	(FS_DROP_FILE | FS_DROP_INFLIGHT | FS_DROP_TIME | FS_DROP_FOLIO |      \
	 FS_DROP_HISTS)

#endif /* FOLIOSCOPE_SHARED_H */
