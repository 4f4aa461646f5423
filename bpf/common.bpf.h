/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Pieces every BPF object of folioscope shares: the per-CPU stats map,
 * the per-thread in-flight map, the tgid filter and CO-RE folio sizing.
 * Include after vmlinux.h and the libbpf headers.
 */
#ifndef FS_COMMON_BPF_H
#define FS_COMMON_BPF_H

#include "shared.h"

/*
 * Filters, set between open and load (0 / empty = no filter). Process
 * filters run first in every handler; file filters where the file is
 * known (the superblock of the file being read or deduped).
 */
const volatile __u32 filter_tgid = 0;  /* exactly this process */
const volatile __u32 filter_tree = 0;  /* this process and descendants */
const volatile __u32 filter_pids[FS_MAX_PIDS] = {};
const volatile __u32 nr_filter_pids = 0;
const volatile char filter_comm[16] = {};
const volatile __u32 has_filter_comm = 0;
const volatile __u64 filter_cgroup = 0; /* cgroup v2 id */
const volatile __u32 filter_dev = 0;    /* kernel dev_t of the fs */
const volatile __u64 filter_magic = 0;  /* superblock magic (fs type) */
/* The running kernel's page size, from sysconf(). */
const volatile __u64 page_size = 4096;

/* Sized by user space: 1 entry, or FS_STATS_ENTRIES with -P. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fs_stats);
} stats SEC(".maps");

/* -P: process -> stats entry, and who owns each entry. */
const volatile __u32 per_proc = 0;
__u32 next_proc_slot = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} proc_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FS_STATS_ENTRIES);
	__type(key, __u32);
	__type(value, struct fs_proc_info);
} proc_info SEC(".maps");

/*
 * The current process's stats entry. The hash lookup happens only with
 * -P; a process seen for the first time takes the next free entry, or
 * "other" when all are taken. Two threads racing on a new process may
 * take two entries; user space merges entries by pid.
 */
static __always_inline __u32 proc__slot(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct fs_proc_info info = { .pid = tgid };
	__u32 *slot, idx;

	if (!per_proc)
		return 0;
	slot = bpf_map_lookup_elem(&proc_slots, &tgid);
	if (slot)
		return *slot;
	idx = __sync_fetch_and_add(&next_proc_slot, 1);
	if (idx >= FS_PROC_SLOTS) {
		idx = FS_PROC_OTHER;
	} else {
		bpf_get_current_comm(info.comm, sizeof(info.comm));
		bpf_map_update_elem(&proc_info, &idx, &info, BPF_ANY);
	}
	bpf_map_update_elem(&proc_slots, &tgid, &idx, BPF_NOEXIST);
	return idx;
}

static __always_inline struct fs_stats *stats__get(void)
{
	__u32 key = proc__slot();

	return bpf_map_lookup_elem(&stats, &key);
}

/* Is the current task tgid root or one of its descendants? */
static __always_inline bool filter__in_tree(__u32 root)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();

	/* A bounded walk up the parents; deeper trees are not followed. */
	for (int i = 0; i < 32; i++) {
		__u32 tgid = BPF_CORE_READ(t, tgid);

		if (tgid == root)
			return true;
		if (tgid <= 1)
			return false;
		t = BPF_CORE_READ(t, real_parent);
	}
	return false;
}

static __always_inline bool filter__pass(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (filter_tgid && tgid != filter_tgid)
		return false;
	if (nr_filter_pids) {
		bool hit = false;

		for (int i = 0; i < FS_MAX_PIDS; i++)
			if (i < nr_filter_pids && filter_pids[i] == tgid)
				hit = true;
		if (!hit)
			return false;
	}
	if (filter_cgroup && bpf_get_current_cgroup_id() != filter_cgroup)
		return false;
	if (has_filter_comm) {
		char comm[16];

		bpf_get_current_comm(comm, sizeof(comm));
		for (int i = 0; i < 16; i++) {
			if (comm[i] != filter_comm[i])
				return false;
			if (!comm[i])
				break;
		}
	}
	if (filter_tree && !filter__in_tree(filter_tree))
		return false;
	return true;
}

/* File filters on the superblock of the file the call works on. */
static __always_inline bool filter__file_sb(const struct super_block *sb)
{
	if (filter_dev && BPF_CORE_READ(sb, s_dev) != filter_dev)
		return false;
	if (filter_magic && BPF_CORE_READ(sb, s_magic) != filter_magic)
		return false;
	return true;
}

static __always_inline bool filter__file(const struct file *f)
{
	if (!filter_dev && !filter_magic)
		return true;
	return f && filter__file_sb(BPF_CORE_READ(f, f_inode, i_sb));
}

/*
 * Per-CPU values, but a tracing program can still be interrupted by
 * another on the same CPU; atomic adds keep the counts exact, which the
 * tests reconcile against the workload's own totals.
 */
/*
 * Hide a value from the optimiser so the mask after it survives: clang
 * knows a slot is < FS_SLOTS and drops the mask, and older verifiers
 * (6.1) then see an unbounded index.
 */
#define fs_opaque(x) asm volatile("" : "+r"(x))

static __always_inline void hist__add(struct fs_stats *st, int h, __u64 v)
{
	__u32 slot = fs_log2_slot(v);

	fs_opaque(slot);
	slot &= FS_SLOTS - 1;
	fs_opaque(h);
	h &= FS_MAX_HISTS - 1;
	__sync_fetch_and_add(&st->hist[h].slot[slot], 1);
	__sync_fetch_and_add(&st->hist[h].sum, v);
}

static __always_inline void hist__add_align(struct fs_stats *st, int h,
					    __u64 v)
{
	hist__add(st, h, fs_alignment(v));
}

static __always_inline void counter__inc(struct fs_stats *st, int c)
{
	fs_opaque(c);
	c &= FS_MAX_COUNTERS - 1;
	__sync_fetch_and_add(&st->counter[c], 1);
}

/* Older layouts of struct folio / struct page, matched by CO-RE. */
struct folio___v61 {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

struct page___v50 {
	unsigned char compound_order;
} __attribute__((preserve_access_index));

/*
 * Size in bytes of the folio that page belongs to. A tail page has bit 0
 * of compound_head set and points at its head. A head page is recognised
 * by its first tail pointing back at it, which avoids decoding page flags
 * (their type and PG_head's value changed across versions). The order is
 * kept in the folio (6.1-6.5: _folio_order; 6.6+: low byte of _flags_1)
 * or in the first tail page (<= 6.0: compound_order).
 */
static __always_inline __u64 folio__bytes(const void *page)
{
	__u64 psize = page_size, ch, ch1;
	const void *head = page, *tail1;
	__u32 order;

	ch = BPF_CORE_READ((struct page *)page, compound_head);
	if (ch & 1)
		head = (const void *)(ch - 1);
	tail1 = head + bpf_core_type_size(struct page);
	ch1 = BPF_CORE_READ((struct page *)tail1, compound_head);
	if (ch1 != (__u64)head + 1)
		return psize;
	if (bpf_core_field_exists(struct folio___v61, _folio_order))
		order = BPF_CORE_READ((struct folio___v61 *)head, _folio_order);
	else if (bpf_core_field_exists(struct folio, _flags_1))
		order = BPF_CORE_READ((struct folio *)head, _flags_1) & 0xff;
	else
		order = BPF_CORE_READ((struct page___v50 *)tail1,
				      compound_order);
	return psize << (order & 31);
}

/* x86-64 syscall numbers the syscall-level plan watches. */
#define FS_NR_READ 0
#define FS_NR_IOCTL 16
#define FS_NR_PREAD64 17
#define FS_NR_READV 19
#define FS_NR_PREADV 295
#define FS_NR_PREADV2 327

/* The struct file behind fd in the current task, or NULL. */
static __always_inline struct file *fd__file(long fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds = BPF_CORE_READ(fdt, fd);
	unsigned int max = BPF_CORE_READ(fdt, max_fds);
	struct file *f = NULL;

	if (fd < 0 || fd >= max)
		return NULL;
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

#endif /* FS_COMMON_BPF_H */
