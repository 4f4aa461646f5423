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
const volatile __u32 filter_tgid = 0; /* exactly this process */
const volatile __u32 filter_tree = 0; /* this process and descendants */
const volatile __u32 filter_pids[FS_MAX_PIDS] = {};
const volatile __u32 nr_filter_pids = 0;
const volatile char filter_comm[16] = {};
const volatile __u32 has_filter_comm = 0;
/* --cgroup: the trees, as directory fds in filter_cgroups' entries. */
const volatile __u32 nr_filter_cgroups = 0;
const volatile __u32 filter_dev = 0;   /* kernel dev_t of the fs */
const volatile __u64 filter_magic = 0; /* superblock magic (fs type) */
/*
 * Whether any process filter above is set, and whether a file filter is
 * (and not left out by the bench). Every handler tests these first: each
 * test of a global is a load the verifier keeps even where it removes
 * the branch, so without filters one load each, not one per filter.
 */
const volatile __u32 filter_proc = 0;
const volatile __u32 filter_files = 0;
/*
 * trace --lean: leave out the optional histograms that cost the most per
 * call (user buffer alignment here; user space also leaves the folio and
 * copy sub-probes unattached) and report them as not measured.
 */
const volatile __u32 lean = 0;
/*
 * --lean without events, where the exit alone sees the call (a fexit, a
 * read syscall's exit tracepoint): user space attaches no entry program,
 * and the exit counts the call from its arguments and what it returned
 * or wrote back. No record, no clock, so no latency.
 */
const volatile __u32 exit_only = 0;
/* The running kernel's page size, from sysconf(). */
const volatile __u64 page_size = 4096;
/* The sub-probe's function hands out pages, which may be a large folio's
 * tails, rather than folios (whose pointers are their heads). */
const volatile __u32 sub_pages = 0;
/*
 * Bench only: parts of the work left out (FS_DROP_*), histograms left out
 * by index (FOLIOSCOPE_COST_DROP). Declared in every build, so that both
 * share one skeleton layout, but read only in the bench's own build
 * (FS_BENCH_KNOBS, build/bench/folioscope-knobs): in a trace's programs
 * each test would still cost a load and a mask on every call after the
 * verifier dropped its branch.
 */
const volatile __u32 cost_drop = 0;
const volatile __u32 cost_drop_hist = 0;
#ifdef FS_BENCH_KNOBS
#define fs_drop(part) (cost_drop & (part))
#define fs_drop_hist(h) (cost_drop_hist & (1U << (h)))
#else
#define fs_drop(part) 0U
#define fs_drop_hist(h) 0U
#endif

/* A timestamp, or 1 where the bench leaves timestamps out (a record's
 * timestamp must not be 0: that marks it free). */
static __always_inline __u64 fs_now(void)
{
	return fs_drop(FS_DROP_TIME) ? 1 : bpf_ktime_get_ns();
}

/* Sized by user space: 1 entry, or FS_STATS_ENTRIES with a breakdown. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fs_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, FS_MAX_CGROUPS);
	__type(key, __u32);
	__type(value, __u32);
} filter_cgroups SEC(".maps");

/* A breakdown (enum fs_by): key -> stats entry, and who owns each entry. */
const volatile __u32 by = FS_BY_NONE;
__u32 next_by_slot = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FS_BY_KEYS);
	__type(key, __u64);
	__type(value, __u32);
} by_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FS_STATS_ENTRIES);
	__type(key, __u32);
	__type(value, struct fs_by_info);
} by_info SEC(".maps");

/* The directory name of the current task's cgroup v2 (kernfs node). */
static __always_inline void by__cgroup_name(char *out)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	const char *name = BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, name);

	bpf_probe_read_kernel_str(out, FS_CGROUP_NAME, name);
}

/*
 * The current key's stats entry. The hash lookup happens only with a
 * breakdown; a key seen for the first time takes the next free entry, or
 * "other" when all are taken, and is remembered either way (up to
 * FS_BY_KEYS) so user space can count what "other" holds. Two threads
 * racing on a new key may take two entries; user space merges entries by
 * key.
 */
static __always_inline __u32 by__slot(void)
{
	__u32 *slot, idx;
	__u64 key;

	/* Without a breakdown no helper runs: the verifier drops the rest. */
	if (by == FS_BY_NONE)
		return 0;
	if (by == FS_BY_CGROUP)
		key = bpf_get_current_cgroup_id();
	else
		key = bpf_get_current_pid_tgid() >> 32;
	slot = bpf_map_lookup_elem(&by_slots, &key);
	if (slot)
		return *slot;
	idx = __sync_fetch_and_add(&next_by_slot, 1);
	if (idx >= FS_BY_SLOTS) {
		idx = FS_BY_OTHER;
	} else {
		/* Zeroed here, not where declared: every call without a
		 * breakdown would zero it for nothing. */
		struct fs_by_info info = {};

		if (by == FS_BY_CGROUP) {
			info.cgroup = key;
			by__cgroup_name(info.cgroup_name);
		}
		info.pid = bpf_get_current_pid_tgid() >> 32;
		bpf_get_current_comm(info.comm, sizeof(info.comm));
		bpf_map_update_elem(&by_info, &idx, &info, BPF_ANY);
	}
	bpf_map_update_elem(&by_slots, &key, &idx, BPF_NOEXIST);
	return idx;
}

static __always_inline struct fs_stats *stats__get(void)
{
	__u32 key = by__slot();

	return bpf_map_lookup_elem(&stats, &key);
}

/*
 * The stats entry a call's entry chose (h->by_slot): its sub-probes and
 * its exit pay an array lookup, not the breakdown's hash again.
 */
static __always_inline struct fs_stats *stats__at(__u32 slot)
{
	if (by == FS_BY_NONE)
		slot = 0;
	return bpf_map_lookup_elem(&stats, &slot);
}

/*
 * In-flight calls, one per thread, kept from entry to exit, in one of
 * three stores (inflight_store, FS_STORE_*, set by user space before
 * load; the verifier drops the other stores' branches):
 *
 * - FS_STORE_CPU (the default): a slot per CPU, owned by the
 *   thread whose call it holds (inflight_head.owner). A call that cannot
 *   migrate between entry and exit, which is almost every one, costs an
 *   array lookup and a compare with the current task (itself a helper
 *   call). A call that can is moved: the scheduler's
 *   sched_migrate_task tracepoint (inflight__migrate) takes a moving
 *   thread's record out of its old CPU's slot into the hash before the
 *   thread runs again. An entry that finds its CPU's slot held by another
 *   thread's call (which sleeps, or was preempted) goes to the hash as
 *   well. A thread looks in the hash only while records live there
 *   (inflight_away), so a call that never met either case pays nothing
 *   for them.
 * - FS_STORE_TASK (where the migration program cannot attach, or
 *   FOLIOSCOPE_INFLIGHT=task): task local storage. After a thread's
 *   first call it costs no hashing, no bucket lock and no element
 *   allocation, but a helper call per program that does more than the
 *   slot's lookup.
 * - FS_STORE_HASH: the hash keyed by thread id, for kernels that refuse
 *   task storage.
 *
 * An unused map stays (the programs reference it) shrunk to one entry; an
 * unused task-storage map is made an array, so every kernel can create
 * it. A record is live while its timestamp is non-zero: a slot or task
 * storage is not deleted at exit, only marked free.
 */
const volatile __u32 inflight_store = FS_STORE_TASK;

/* Records in the hash, in FS_STORE_CPU: while 0, no thread looks there.
 * A thread reads its own updates, and a migration's update is ordered
 * before the thread runs again by the scheduler's own barriers. */
__s64 inflight_away = 0;

/*
 * The first member of every in-flight record: what ties a thread's exits
 * to its entries. Besides the call in the slot it counts the thread's
 * open entries of the attached function, filtered ones included, so an
 * exit knows whether it belongs to the call in the slot.
 */
struct inflight_head {
	__u64 ts;	  /* entry time; non-zero while the call is in flight */
	__u32 depth;	  /* open entries on this thread */
	__u32 call_depth; /* depth at the entry of the call in the slot */
	__u32 by_slot;	  /* the call's stats entry (by__slot at entry) */
	__u32 away;	  /* FS_STORE_CPU: in the hash, not a CPU's slot */
	__u64 owner;	  /* FS_STORE_CPU: the owning task_struct *; 0 free */
};

#define FS_INFLIGHT_MAPS(vtype)                                                \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                       \
		__uint(max_entries, 1);                                        \
		__type(key, __u32);                                            \
		__type(value, vtype);                                          \
	} inflight_cpu SEC(".maps");                                           \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_TASK_STORAGE);                       \
		__uint(map_flags, BPF_F_NO_PREALLOC);                          \
		__type(key, int);                                              \
		__type(value, vtype);                                          \
	} inflight_task SEC(".maps");                                          \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_HASH);                               \
		__uint(max_entries, 10240);                                    \
		__type(key, __u64);                                            \
		__type(value, vtype);                                          \
	} inflight SEC(".maps")

/* The hash's key for the current thread: its task in FS_STORE_CPU (what
 * the migration tracepoint knows it by), its thread id otherwise. */
static __always_inline __u64 inflight__key(void)
{
	if (inflight_store == FS_STORE_CPU)
		return bpf_get_current_task();
	return bpf_get_current_pid_tgid();
}

/*
 * FS_STORE_CPU: the current thread's record, in this CPU's slot if it
 * owns it, else in the hash while records live there. create: claim the
 * free slot, or, when another thread's call holds it, a new record in
 * the hash.
 */
static __always_inline void *inflight__cpu_slot(void *hmap, void *cmap,
						const void *zero, bool create)
{
	__u64 me = bpf_get_current_task();
	struct inflight_head *s, *h;
	__u32 key = 0;

	s = bpf_map_lookup_elem(cmap, &key);
	if (!s)
		return NULL;
	if (s->owner == me)
		return s;
	if (*(volatile __s64 *)&inflight_away) {
		h = bpf_map_lookup_elem(hmap, &me);
		if (h || !create)
			return h;
	} else if (!create) {
		return NULL;
	}
	/* A compare-and-swap: a fentry program can be preempted (not
	 * migrated) between the test and the store, and another thread's
	 * entry run on this CPU meanwhile. */
	if (!s->owner && !__sync_val_compare_and_swap(&s->owner, 0, me))
		return s;
	if (bpf_map_update_elem(hmap, &me, zero, BPF_NOEXIST))
		return NULL;
	h = bpf_map_lookup_elem(hmap, &me);
	if (h) {
		h->away = 1;
		__sync_fetch_and_add(&inflight_away, 1);
	}
	return h;
}

/*
 * The current thread's record, created from zero (a zeroed value of the
 * map's type) if create and missing; NULL if missing or refused (hash
 * full, task storage busy or out of memory). A record also counts the
 * thread's open entries of the attached function, so that an exit is
 * tied to its entry; in the hash it stays while that count is not 0.
 */
static __always_inline void *inflight__slot(void *tmap, void *hmap, void *cmap,
					    const void *zero, bool create)
{
	__u32 key = 0;
	__u64 tid;
	void *c;

	/* Bench only: the cheapest store there is, which a call that
	 * sleeps and wakes on another CPU would not find. */
	if (fs_drop(FS_DROP_INFLIGHT))
		return bpf_map_lookup_elem(cmap, &key);
	if (inflight_store == FS_STORE_CPU)
		return inflight__cpu_slot(hmap, cmap, zero, create);
	if (inflight_store == FS_STORE_TASK)
		return bpf_task_storage_get(
			tmap, bpf_get_current_task_btf(), NULL,
			create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	tid = inflight__key();
	c = bpf_map_lookup_elem(hmap, &tid);
	if (c || !create)
		return c;
	bpf_map_update_elem(hmap, &tid, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(hmap, &tid);
}

/* The current thread's record h holds nothing: out of the hash with it,
 * or its CPU slot freed (task storage stays, with a zero timestamp). */
static __always_inline void inflight__forget(struct inflight_head *h,
					     void *hmap)
{
	__u64 key;

	if (fs_drop(FS_DROP_INFLIGHT))
		return;
	if (inflight_store == FS_STORE_CPU && !h->away) {
		h->owner = 0;
		return;
	}
	if (inflight_store == FS_STORE_TASK)
		return;
	key = inflight__key();
	if (!bpf_map_delete_elem(hmap, &key) && inflight_store == FS_STORE_CPU)
		__sync_fetch_and_add(&inflight_away, -1);
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

/*
 * The cheapest test first: pid compares (one helper, taken only when a
 * pid filter is set), the cgroup trees (a helper per tree), the command
 * name (a helper and a compare), the tree walk (a read per ancestor).
 * Without filters it runs no helper at all.
 */
static __always_inline bool filter__pass(void)
{
	__u32 tgid = 0;

	if (!filter_proc)
		return true;
	if (filter_tgid || nr_filter_pids)
		tgid = bpf_get_current_pid_tgid() >> 32;
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
	if (nr_filter_cgroups) {
		bool hit = false;

		/* The task's cgroup or one below it: a container's cgroup
		 * holds the cgroups of its own services. */
		for (__u32 i = 0; i < FS_MAX_CGROUPS; i++)
			if (!hit && i < nr_filter_cgroups &&
			    bpf_current_task_under_cgroup(&filter_cgroups, i) ==
				    1)
				hit = true;
		if (!hit)
			return false;
	}
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

/*
 * The exit of an entry, h the thread's record: true if the
 * entry it closes was the last one still open and belongs to the call
 * in the slot, which the caller then counts and frees with
 * inflight__done. False for a filtered call's exit, an outer call's
 * whose slot a nested call took, an exit whose entry was not seen. hmap
 * is the object's in-flight hash.
 */
static __always_inline bool inflight__close(struct inflight_head *h, void *hmap)
{
	__u32 d;

	/* Only threads with a record pay for the process filters. */
	if (!h->depth || !filter__pass())
		return false;
	d = h->depth--;
	if (h->ts && h->call_depth == d)
		return true;
	if (!h->depth && !h->ts)
		inflight__forget(h, hmap);
	return false;
}

/* The call in the slot (inflight__close said so) is counted: free it. */
static __always_inline void inflight__done(struct inflight_head *h, void *hmap)
{
	h->ts = 0;
	if (!h->depth)
		inflight__forget(h, hmap);
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
	if (!filter_files)
		return true;
	return f && filter__file_sb(BPF_CORE_READ(f, f_inode, i_sb));
}

/*
 * Hide a value from the optimiser so the mask after it survives: clang
 * knows a slot is < FS_SLOTS and drops the mask, and older verifiers
 * (6.1) then see an unbounded index.
 */
#define fs_opaque(x) asm volatile("" : "+r"(x))

/*
 * An index into one of the stats' arrays, masked to size: a constant (a
 * histogram or counter named where the helper is inlined, nearly every
 * call) folds, mask and all, into the address; one chosen at run time
 * (same ? FS_DD_SAME : FS_DD_DIFFERS) is hidden first, so the verifier
 * sees the mask and a bounded index.
 */
#define fs_index(x, size)                                                      \
	do {                                                                   \
		if (!__builtin_constant_p(x))                                  \
			fs_opaque(x);                                          \
		(x) &= (size)-1;                                               \
	} while (0)

/*
 * A field of p. Where p is a BTF pointer (an fentry or fexit argument,
 * btf a constant true) the verifier checks a plain load, which costs no
 * helper call; elsewhere (kprobe registers, pointers kept as numbers) a
 * CO-RE probe read.
 */
#define FS_READ(btf, p, field) ((btf) ? (p)->field : BPF_CORE_READ(p, field))

/*
 * bpf_rdonly_cast (6.2 on): addr, a number, as a pointer to the kernel's
 * type. Its fields are then plain loads, which the JIT guards against a
 * fault (a faulting load reads 0), where a probe read is a helper call
 * and a fault-guarded copy (about 90 instructions). A kernel without the
 * kfunc refuses every program that calls it, so only the programs named
 * NAME_cast do, each a twin of NAME that user space loads in its place
 * where the kernel's BTF has the kfunc (src/probe/probe.c). cast: a
 * constant, true in those twins.
 */
#ifndef FS_NO_KFUNC
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;
#define fs_cast(addr, type)                                                    \
	((type *)bpf_rdonly_cast((const void *)(addr),                         \
				 bpf_core_type_id_kernel(type)))
#define FS_TWIN_CAST true
#else
/*
 * The object built for kernels without BTF of their own (src/probe/
 * target.c), where libbpf cannot resolve a kfunc and refuses an object
 * that names one: the twins are their bases, so fs_cast sits only in
 * branches the compiler drops.
 */
#define fs_cast(addr, type) ((type *)(addr))
#define FS_TWIN_CAST false
#endif
/*
 * The number at kernel address addr (a local the traced function writes
 * through a pointer) through fs_cast: the load at offset 0 of a struct
 * whose first member is a number, a struct page's flags. (A struct whose
 * first member is a pointer would make the value a pointer, which the
 * verifier does not let a program compare or mask as a number.)
 */
#define fs_cast_u64(addr) (*(const __u64 *)fs_cast(addr, struct page))
#define fs_cast_u8(addr) (*(const __u8 *)fs_cast(addr, struct page))

/*
 * Where p is no BTF pointer (a kprobe's argument), its struct's first
 * bytes copied with one probe read (fs_head__copy) into h, a struct with
 * a __u64 array w and a __u64 n (bytes copied; 0 if the read faulted):
 * each field is then a stack load instead of a probe read of its own, a
 * helper call and a fault-guarded copy (about 600 ns under qemu
 * -icount). A field that lies beyond w (its offset is the running
 * kernel's, CO-RE, so the verifier drops whichever branch that offset
 * rules out), or a faulted copy, takes the probe read.
 */
#define fs_head__copy(h, p)                                                    \
	((h)->n = bpf_probe_read_kernel((h)->w, sizeof((h)->w), (p))           \
			  ? 0                                                  \
			  : sizeof((h)->w))
#define FS_HREAD(btf, p, h, field)                                             \
	((btf) ? (p)->field                                                    \
	 : bpf_core_field_offset((p)->field) +                                 \
					 bpf_core_field_size((p)->field) <=    \
				 sizeof((h)->w) &&                             \
			 (h)->n                                                \
		 ? ((typeof(p))(h)->w)->field                                  \
		 : BPF_CORE_READ(p, field))

/*
 * Adds to the per-CPU stats. A field one program alone writes (of those
 * one attach loads) takes a plain add (the _own helpers): the kernel
 * never runs a program twice at once on one CPU, so nothing else writes
 * that slot mid-update. kprobe and tracepoint programs run with
 * preemption off and bpf_prog_active refusing any nested one; fentry,
 * fexit and raw tracepoint programs are guarded by their own recursion
 * counter (a second run on the CPU is refused and counted as missed), or
 * ran with preemption off on kernels before it. A field two programs
 * write takes a locked add: an fexit program may be preempted mid-update
 * and the other run on that CPU. The tests reconcile every count against
 * the workload's own totals.
 */
static __always_inline __u32 hist__masked(int *h, __u32 slot)
{
	fs_opaque(slot);
	slot &= FS_SLOTS - 1;
	fs_index(*h, FS_MAX_HISTS);
	return slot;
}

/* Bench only: histogram h left out (h a constant where inlined). One
 * word says it, so the bench's build pays one load and a branch: user
 * space sets every bit when all histograms are left out. */
static __always_inline bool hist__dropped(int h)
{
	return fs_drop_hist(h);
}

/* For a histogram several programs write. */
static __always_inline void hist__add(struct fs_stats *st, int h, __u64 v)
{
	__u32 slot;

	if (hist__dropped(h))
		return;
	slot = hist__masked(&h, fs_log2_slot(v));
	__sync_fetch_and_add(&st->hist[h].slot[slot], 1);
	__sync_fetch_and_add(&st->hist[h].sum, v);
}

/* One more value v in slot of a histogram only the calling program
 * writes. */
static __always_inline void hist__put_own(struct fs_stats *st, int h,
					  __u32 slot, __u64 v)
{
	slot = hist__masked(&h, slot);
	st->hist[h].slot[slot]++;
	st->hist[h].sum += v;
}

/* For a histogram only the calling program writes. */
static __always_inline void hist__add_own(struct fs_stats *st, int h, __u64 v)
{
	if (!hist__dropped(h))
		hist__put_own(st, h, fs_log2_slot(v), v);
}

/*
 * Two histograms only the calling program writes, of values that are
 * mostly equal (bytes asked and bytes read): then one log2 serves both.
 */
static __always_inline void hist__add_pair_own(struct fs_stats *st, int h1,
					       __u64 v1, int h2, __u64 v2)
{
	__u32 s1 = fs_log2_slot(v1);
	__u32 s2 = v2 == v1 ? s1 : fs_log2_slot(v2);

	if (!hist__dropped(h1))
		hist__put_own(st, h1, s1, v1);
	if (!hist__dropped(h2))
		hist__put_own(st, h2, s2, v2);
}

/* The alignment of v (a power of two or 0): its slot without the
 * general log2. */
static __always_inline void hist__add_align_own(struct fs_stats *st, int h,
						__u64 v)
{
	__u64 a = fs_alignment(v);

	if (!hist__dropped(h))
		hist__put_own(st, h, fs_pow2_slot(a), a);
}

/* For a counter several programs write. */
static __always_inline void counter__inc(struct fs_stats *st, int c)
{
	fs_index(c, FS_MAX_COUNTERS);
	__sync_fetch_and_add(&st->counter[c], 1);
}

/* For a counter only the calling program writes. */
static __always_inline void counter__inc_own(struct fs_stats *st, int c)
{
	fs_index(c, FS_MAX_COUNTERS);
	st->counter[c]++;
}

/* Architectures whose thread_info has no cpu keep it in the task. */
struct task_struct___cpu {
	unsigned int cpu;
} __attribute__((preserve_access_index));

/*
 * sched_migrate_task for p, in FS_STORE_CPU: p is about to run on
 * another CPU, so a record it holds in its old CPU's slot moves to the
 * hash, and the slot is freed after the copy. p is not running (the
 * scheduler moves only tasks off a CPU), so nothing writes its record
 * meanwhile; other threads on the old CPU only read the owner, and see
 * the slot free only once the copy is done. A call whose record the
 * hash cannot take is lost, and counted in counter dropped of its stats
 * entry, as a call the store refused at entry would be.
 */
static __always_inline int inflight__migrate(void *hmap, void *cmap,
					     struct task_struct *p, int dropped)
{
	struct fs_stats *st;
	struct inflight_head *s;
	__u64 me = (__u64)p;
	__u32 key = 0, cpu;

	if (inflight_store != FS_STORE_CPU)
		return 0;
	if (bpf_core_field_exists(p->thread_info.cpu))
		cpu = BPF_CORE_READ(p, thread_info.cpu);
	else
		cpu = BPF_CORE_READ((struct task_struct___cpu *)p, cpu);
	s = bpf_map_lookup_percpu_elem(cmap, &key, cpu);
	if (!s || s->owner != me)
		return 0;
	s->away = 1;
	if (!bpf_map_update_elem(hmap, &me, s, BPF_NOEXIST)) {
		__sync_fetch_and_add(&inflight_away, 1);
	} else if (s->ts) {
		st = stats__at(s->by_slot);
		if (st)
			counter__inc(st, dropped);
	}
	s->away = 0;
	s->ts = 0;
	s->depth = 0;
	__sync_lock_test_and_set(&s->owner, 0);
	return 0;
}

const volatile __u32 ev_on = 0;
const volatile __u32 ev_all = 0;
const volatile __u32 ev_errors = 0; /* failed, DIFFERS, short reads */
const volatile __u64 ev_slower_ns = 0;
const volatile __u32 ev_sample = 0;

/* Sized by user space (a power of two, at least a page). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FS_EV_RING_MIN);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} ev_nth SEC(".maps");

/* Is a call that took lat ns, failed or not, to become an event? */
static __always_inline bool event__selected(__u64 lat, bool failed)
{
	__u32 zero = 0;
	__u64 *n;

	if (!ev_on)
		return false;
	if ((ev_all || ev_errors || ev_slower_ns) && !ev_all &&
	    !(ev_errors && failed) && !(ev_slower_ns && lat >= ev_slower_ns))
		return false;
	if (ev_sample <= 1)
		return true;
	n = bpf_map_lookup_elem(&ev_nth, &zero);
	if (!n)
		return false;
	return (*n)++ % ev_sample == 0;
}

/*
 * The one way out for an event: e has the call's own parts, this adds
 * who and where, then the ring buffer takes it or the loss is counted
 * (in st's counter lost; taken ones in taken), never dropped unseen.
 */
static __always_inline void event__emit(struct fs_stats *st, struct fs_event *e,
					int taken, int lost)
{
	__u64 id = bpf_get_current_pid_tgid();

	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->cpu = bpf_get_smp_processor_id();
	e->ts_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (bpf_ringbuf_output(&events, e, sizeof(*e), 0))
		counter__inc(st, lost);
	else
		counter__inc(st, taken);
}

/* Device and inode number of an inode, for an event. */
static __always_inline void event__inode(struct fs_event *e,
					 const struct inode *ino)
{
	if (!ino)
		return;
	e->ino = BPF_CORE_READ(ino, i_ino);
	e->dev = BPF_CORE_READ(ino, i_sb, s_dev);
	e->flags |= FS_EVF_FILE;
}

/* One more folio or chunk of size v met by the call: min, max, count. */
static __always_inline void event__minmax(__u64 *min, __u64 *max, __u32 *n,
					  __u64 v)
{
	if (!*n || v < *min)
		*min = v;
	if (v > *max)
		*max = v;
	(*n)++;
}

/* Older layouts of struct folio / struct page, matched by CO-RE. */
struct folio___v61 {
	unsigned long __head;
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

struct page___v50 {
	unsigned char compound_order;
} __attribute__((preserve_access_index));

/*
 * Where a folio's first tail page keeps the order, as an offset into that
 * page: 6.1-6.5 in the folio's _folio_order, 6.6+ in the low byte of
 * _flags_1 (the tail's flags word, little-endian), <= 6.0 in the page's
 * compound_order. The folio overlays its head and first tail, so a folio
 * field past the head page is one of the first tail.
 */
static __always_inline __u32 folio__order_off(void)
{
	__u32 psz = bpf_core_type_size(struct page);

	if (bpf_core_field_exists(struct folio___v61, _folio_order))
		return bpf_core_field_offset(struct folio___v61, _folio_order) -
		       psz;
	if (bpf_core_field_exists(struct folio, _flags_1))
		return bpf_core_field_offset(struct folio, _flags_1) - psz;
	return bpf_core_field_offset(struct page___v50, compound_order);
}

/* Room for the first tail page's bytes a folio's size needs. */
#define FS_TAIL_BYTES 64

/*
 * Size in bytes of the folio whose head page is head. A large folio's
 * first tail has bit 0 of compound_head set and points back at its head,
 * which tells a large folio without decoding page flags (their type and
 * PG_head's value changed across versions); that tail also holds the
 * order. Both come from one copy of the tail's first bytes, up to the
 * later of the two fields (16 bytes on 6.12, 18 on 6.1): the copy moves
 * a word at a time, so it costs by its length; with cast, two guarded
 * loads. The page after an order-0 folio may be unmapped: then the copy
 * fails (the load reads 0), and the folio is one page.
 */
static __always_inline __u64 folio__head_bytes(const void *head, bool cast)
{
	__u32 psz = bpf_core_type_size(struct page);
	__u32 cho = bpf_core_field_offset(struct page, compound_head);
	__u32 oo = folio__order_off();
	__u32 len = cho + 8 > oo + 1 ? cho + 8 : oo + 1;
	__u64 words[FS_TAIL_BYTES / 8];
	__u8 *buf = (__u8 *)words;
	const void *tail1 = head + psz;
	__u64 psize = page_size;
	__u8 order = 0;

	if (cast) {
		/* The first tail's words as the folio's own fields (6.1 on):
		 * BTF types them as numbers, where the tail's struct page
		 * types compound_head's offset as a list's pointer. Named
		 * fields, so that CO-RE patches each load's own offset: the
		 * same words at offsets computed from cho and oo cost an add
		 * and a cast each (9 instructions a folio lookup on 6.12). */
		const struct folio *fo = fs_cast(head, struct folio);
		const struct folio___v61 *fo61 = (const void *)fo;
		__u64 h1 = bpf_core_field_exists(fo->_head_1) ? fo->_head_1
							      : fo61->__head;

		if (h1 != (__u64)head + 1)
			return psize;
		if (bpf_core_field_exists(fo61->_folio_order))
			order = fo61->_folio_order;
		else
			order = fo->_flags_1 & 0xff;
		return psize << (order & 31);
	}
	if (len > sizeof(words)) {
		/* A layout the copy does not fit: a read per field. */
		if (BPF_CORE_READ((struct page *)tail1, compound_head) !=
		    (__u64)head + 1)
			return psize;
		bpf_probe_read_kernel(&order, sizeof(order), tail1 + oo);
		return psize << (order & 31);
	}
	if (bpf_probe_read_kernel(buf, len, tail1) ||
	    *(__u64 *)(buf + cho) != (__u64)head + 1)
		return psize;
	return psize << (buf[oo] & 31);
}

/*
 * Size in bytes of the folio that page belongs to. maybe_tail: page came
 * from a function that returns pages, not folios, so it may be a large
 * folio's tail: then its compound_head, bit 0 set, points at the head.
 * cast: read through bpf_rdonly_cast (fs_cast).
 */
static __always_inline __u64 folio__bytes(const void *page, bool maybe_tail,
					  bool cast)
{
	__u64 ch;

	if (fs_drop(FS_DROP_FOLIO))
		return page_size;
	/* A page's own compound_head, through fs_cast, would be typed a
	 * pointer (see folio__head_bytes): a probe read, on the functions
	 * that hand out pages (before the folio ones). */
	if (maybe_tail) {
		ch = BPF_CORE_READ((struct page *)page, compound_head);
		if (ch & 1)
			page = (const void *)(ch - 1);
	}
	return folio__head_bytes(page, cast);
}

/*
 * x86's TS_COMPAT in thread_info.status: the current syscall came in
 * through a 32-bit entry (int 0x80, sysenter, 32-bit syscall). The entry
 * sets it before the sys_enter tracepoint and clears it on the way back
 * to user space (6.1 to 6.18), so it holds at sys_enter and sys_exit.
 * Such a syscall's number and argument registers are i386's: decoding it
 * with the x86-64 table would read an lseek (19) as a readv.
 */
#define FS_TS_COMPAT 0x0002

static __always_inline bool sys__compat(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	if (!bpf_core_field_exists(t->thread_info.status))
		return false;
	return t->thread_info.status & FS_TS_COMPAT;
}

/*
 * The syscall's arguments, r10 to orig_ax of x86-64's struct pt_regs (an
 * ABI layout), read in one copy instead of one read per register.
 */
struct fs_sysargs {
	__u64 r10, r9, r8, ax, cx, dx, si, di, orig_ax;
};

static __always_inline int sysargs__read(const struct pt_regs *regs,
					 struct fs_sysargs *a)
{
	return bpf_probe_read_kernel(
		a, sizeof(*a),
		(const void *)regs +
			bpf_core_field_offset(struct pt_regs, r10));
}

/*
 * The struct file behind fd in the current task, or NULL. The task, its
 * file table and the table's array pointer are direct (BTF) loads; only
 * the array slot needs a helper read.
 */
static __always_inline struct file *fd__file(long fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = task->files->fdt;
	struct file *f = NULL;

	if (fd < 0 || fd >= fdt->max_fds)
		return NULL;
	bpf_probe_read_kernel(&f, sizeof(f), &fdt->fd[fd]);
	return f;
}

/*
 * i_mode and i_sb of an inode. Both are among its first members, so one
 * read of the inode's head serves both; at CO-RE offsets, with a read
 * each on a kernel where they sit further in.
 */
static __always_inline int inode__mode_sb(const struct inode *ino, __u32 *mode,
					  struct super_block **sb)
{
	__u32 mo = bpf_core_field_offset(struct inode, i_mode);
	__u32 so = bpf_core_field_offset(struct inode, i_sb);
	__u64 head[8];

	if (mo > sizeof(head) - sizeof(__u16) ||
	    so > sizeof(head) - sizeof(__u64)) {
		*mode = BPF_CORE_READ(ino, i_mode);
		*sb = BPF_CORE_READ(ino, i_sb);
		return *sb ? 0 : -1;
	}
	if (bpf_probe_read_kernel(head, sizeof(head), ino))
		return -1;
	*mode = *(__u16 *)((void *)head + mo);
	*sb = *(struct super_block **)((void *)head + so);
	return 0;
}

/* ---- inline sites: fetches from the registers at a kprobe */

/* A general-purpose register by DWARF number, 0 for another. */
static __always_inline __u64 regs__get(struct pt_regs *r, __u32 reg)
{
	switch (reg) {
	case 0:
		return BPF_CORE_READ(r, ax);
	case 1:
		return BPF_CORE_READ(r, dx);
	case 2:
		return BPF_CORE_READ(r, cx);
	case 3:
		return BPF_CORE_READ(r, bx);
	case 4:
		return BPF_CORE_READ(r, si);
	case 5:
		return BPF_CORE_READ(r, di);
	case 6:
		return BPF_CORE_READ(r, bp);
	case 7:
		return BPF_CORE_READ(r, sp);
	case 8:
		return BPF_CORE_READ(r, r8);
	case 9:
		return BPF_CORE_READ(r, r9);
	case 10:
		return BPF_CORE_READ(r, r10);
	case 11:
		return BPF_CORE_READ(r, r11);
	case 12:
		return BPF_CORE_READ(r, r12);
	case 13:
		return BPF_CORE_READ(r, r13);
	case 14:
		return BPF_CORE_READ(r, r14);
	case 15:
		return BPF_CORE_READ(r, r15);
	}
	return 0;
}

/* A value the way user space's fetch plan f says (from DWARF), with the
 * registers at a kprobe: false when f has none or its memory cannot be
 * read. */
static __always_inline bool
fetch__do(struct pt_regs *r, const volatile struct fs_fetch *f, __u64 *v)
{
	__u64 addr;
	__u32 v32 = 0;
	__u16 v16 = 0;
	__u8 v8 = 0;

	*v = 0;
	switch (f->kind) {
	case FS_FETCH_REG:
		*v = regs__get(r, f->reg);
		return true;
	case FS_FETCH_VALUE:
		*v = regs__get(r, f->reg) + f->off;
		return true;
	case FS_FETCH_CONST:
		*v = f->off;
		return true;
	case FS_FETCH_MEM:
		addr = regs__get(r, f->reg) + f->off;
		if (f->size == 8)
			return !bpf_probe_read_kernel(v, 8, (void *)addr);
		if (f->size == 4) {
			if (bpf_probe_read_kernel(&v32, 4, (void *)addr))
				return false;
			*v = v32;
			return true;
		}
		if (f->size == 2) {
			if (bpf_probe_read_kernel(&v16, 2, (void *)addr))
				return false;
			*v = v16;
			return true;
		}
		if (f->size == 1) {
			if (bpf_probe_read_kernel(&v8, 1, (void *)addr))
				return false;
			*v = v8;
			return true;
		}
		return false;
	}
	return false;
}

#endif /* FS_COMMON_BPF_H */
