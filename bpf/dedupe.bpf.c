// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Dedupe compare (vfs_dedupe_file_range_compare) probes. The compare is
 * often inlined, so the same handlers also serve the callers that carry
 * its arguments; user space picks one flavour per kernel (attach plan) and
 * loads only those programs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common.bpf.h"

#define EFAULT 14
#define EBADE 52
#define REMAP_FILE_DEDUP 1

/* What the attached function is, which decides how its result reads. */
enum dd_kind {
	DD_KIND_CMP,	 /* the compare: 0 + *is_same, or -errno */
	DD_KIND_PREP,	 /* remap prep: 0 = same, -EBADE = differs, *len */
	DD_KIND_ONE,	 /* vfs_dedupe_file_range_one: bytes or -errno */
	DD_KIND_CLONE,	 /* renamed clone: arguments unknown, timing only */
	DD_KIND_SYSCALL, /* FIDEDUPERANGE ioctl: per-destination results */
	/* An inline site: timed from its entry to an exit, the verdict
	 * from is_same read at the exit when DWARF locates it, the errors
	 * (and otherwise the verdict) from the caller's return. */
	DD_KIND_INLINE,
};

/* dd_call.flags of an inline site's call. */
#define DD_F_EXITED 1	  /* left the site: timed, waits for the caller */
#define DD_F_SAME_KNOWN 2 /* is_same was read at the exit */
#define DD_F_SAME 4	  /* and it said same */

#define FIDEDUPERANGE 0xC0189436
#define FILE_DEDUPE_RANGE_SAME 0
#define FILE_DEDUPE_RANGE_DIFFERS 1

/*
 * Where a call's results are read at its exit: the function's pointer
 * arguments (function level) or the caller's request (syscall level).
 */
union dd_at_exit {
	struct {
		__u64 len_ptr;	/* loff_t * (PREP): the compared length */
		__u64 same_ptr; /* bool * (CMP): the verdict */
	} fn;
	struct {
		__u64 req;    /* struct file_dedupe_range * in user memory */
		__u64 ndests; /* its dest_count, read at entry */
	} sys;
};

/* A thread's in-flight record: the call in the slot (see inflight_head). */
struct dd_call {
	struct inflight_head h; /* first: h.ts non-zero while in flight */
	__u64 srcoff;
	__u64 dstoff;
	__u64 len; /* by value (CMP, ONE, SYSCALL) */
	union dd_at_exit at_exit;
	/* The last two folios counted in this call, most recent first:
	 * the compare alternates between a source and a destination
	 * folio, each read a page at a time, so a folio seen again is one
	 * of these two. */
	__u64 folio[2];
	__u32 kind;
	__u32 flags; /* DD_F_* */
	/* For events only: the source (a struct file *, or an inode if
	 * src_is_inode; 0 unknown), its fd (syscall level, has_fd), the
	 * folios met, and the call's latency once it ended. */
	__u32 src_is_inode;
	__u64 src;
	__u64 folio_min, folio_max;
	__u32 folio_n;
	__s32 fd;
	__u32 has_fd;
	__u32 dst_unknown; /* syscall level: the destination was unreadable */
	__u64 lat;
	/* 1 + the inline site whose entry is a loop's head, entered and not
	 * left yet (0: none): arriving there again is the loop's next turn. */
	__u32 loop_site;
};

/* An entry of the attached function, as its SEC() wrapper read it. */
struct dd_entry {
	__u32 kind;
	bool skip;	 /* the wrapper already knows it is not counted */
	bool is_inode;	 /* obj is a struct inode *, not a struct file * */
	const void *obj; /* the source, for the file filters; NULL: unknown */
	int fd;		 /* its fd (syscall level only) */
	__u64 srcoff;
	__u64 dstoff;
	__u64 len;
	__u64 flags; /* remap flags (PREP) */
	union dd_at_exit at_exit;
	__u32 loop_site; /* see dd_call */
};

FS_INFLIGHT_MAPS(struct dd_call);

/*
 * An inline site's caller: each thread's entry time, from its entry to
 * its return, whether or not the call reaches the site. A hash, not the
 * in-flight slot: the slot belongs to the call at the site, which opens
 * later. (The caller does not recurse.)
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u64);
	__type(value, __u64);
} caller_ts SEC(".maps");

/* A new record in the hash: from read-only data, not zeroed on the stack
 * by every call on the task-storage path, which never uses it. */
static const struct dd_call dd_zero;

/* The compare's first argument is a struct inode * before 5.18; user
 * space sets this from the BTF prototype. */
const volatile __u32 cmp_src_is_inode = 0;

static __always_inline const struct super_block *dd__sb_of_file(const void *f)
{
	return BPF_CORE_READ((struct file *)f, f_inode, i_sb);
}

/* The superblock of a struct file, or of a struct inode if is_inode. */
static __always_inline const struct super_block *dd__sb_of(const void *p,
							   bool is_inode)
{
	if (is_inode)
		return BPF_CORE_READ((struct inode *)p, i_sb);
	return dd__sb_of_file(p);
}

/*
 * The current thread's record, created (zeroed) if create and missing.
 * In the hash a record stays while the thread has open entries, so its
 * depth survives from entry to exit.
 */
static __always_inline struct dd_call *dd__slot(bool create)
{
	return inflight__slot(&inflight_task, &inflight, &inflight_cpu,
			      &dd_zero, create);
}

static __always_inline void dd__count(int counter)
{
	struct fs_stats *st = stats__get();

	if (st)
		counter__inc(st, counter);
}

/*
 * Whether a call the process filters let through is counted; the entry
 * and the exit that counts a call alone both ask this, so that they
 * cannot disagree. The preps also serve reflink clones, and only dedupe
 * runs the compare (vfs_dedupe_file_range_one is dedupe only: it adds
 * REMAP_FILE_DEDUP itself, further down). With a file filter, calls on
 * an unknown file are not counted; the source is read only then.
 */
static __always_inline bool dd__counted(const struct dd_entry *e)
{
	if (e->kind == DD_KIND_PREP && !(e->flags & REMAP_FILE_DEDUP))
		return false;
	return !filter_files ||
	       (e->obj && filter__file_sb(dd__sb_of(e->obj, e->is_inode)));
}

/*
 * An entry of the attached function (for the syscall level: of a
 * FIDEDUPERANGE ioctl). Process filters come first: a call they reject
 * leaves no trace, and neither does its exit, which checks them again.
 * c: the thread's record if the caller has already looked it up, else
 * NULL.
 */
static __always_inline int dd__enter_in(const struct dd_entry *e,
					struct dd_call *c)
{
	bool skip;

	if (!filter__pass())
		return 0;
	skip = e->skip || !dd__counted(e);
	if (!c)
		c = dd__slot(true);
	if (!c) {
		if (!skip)
			dd__count(FS_DD_DROPPED);
		return 0;
	}
	/* A filtered call opens an entry too, so that its exit does not
	 * take the slot of a call around it. */
	c->h.depth++;
	c->loop_site = e->loop_site;
	if (skip)
		return 0;
	/* A live call in the slot lost its exit (a missed kretprobe) or
	 * is the outer call of this nested one: it is not measured. */
	if (c->h.ts)
		dd__count(FS_DD_DROPPED);
	c->h.by_slot = by__slot();
	c->kind = e->kind;
	c->srcoff = e->srcoff;
	c->dstoff = e->dstoff;
	c->len = e->len;
	c->at_exit = e->at_exit;
	c->folio[0] = 0;
	c->folio[1] = 0;
	c->flags = 0;
	if (ev_on) {
		c->src = (__u64)e->obj;
		c->src_is_inode = e->is_inode;
		c->fd = e->fd;
		c->has_fd = e->kind == DD_KIND_SYSCALL;
		c->folio_min = 0;
		c->folio_max = 0;
		c->folio_n = 0;
		/* The prep takes the length by pointer: the asked length
		 * is what it points at now (at exit, the compared one). */
		if (e->kind == DD_KIND_PREP)
			bpf_probe_read_kernel(&c->len, sizeof(c->len),
					      (void *)e->at_exit.fn.len_ptr);
	}
	c->h.call_depth = c->h.depth;
	c->h.ts = fs_now();
	return 0;
}

static __always_inline int dd__enter(const struct dd_entry *e)
{
	return dd__enter_in(e, NULL);
}

/*
 * The call (for the syscall level: its current destination) as an event.
 * ret: the compared length, or -errno.
 */
static __always_inline void dd__event_send(struct fs_stats *st,
					   const struct dd_call *c, long ret,
					   __u32 result)
{
	struct fs_event e = {
		.lat_ns = c->lat,
		.off = c->srcoff,
		.off2 = c->dstoff,
		.req = c->len,
		.ret = ret,
		.folio_min = c->folio_min,
		.folio_max = c->folio_max,
		.folio_n = c->folio_n,
		.target = 0,
		.result = result,
		.fd = c->fd,
	};
	const void *src = (const void *)c->src;

	if (c->kind != DD_KIND_CLONE && !c->dst_unknown)
		e.flags |= FS_EVF_DST;
	if (c->kind != DD_KIND_CLONE)
		e.flags |= FS_EVF_LEN;
	if (c->kind != DD_KIND_CLONE && c->kind != DD_KIND_SYSCALL)
		e.flags |= FS_EVF_FOLIO;
	if (c->has_fd)
		e.flags |= FS_EVF_FD;
	if (src)
		event__inode(&e, c->src_is_inode
					 ? (const struct inode *)src
					 : BPF_CORE_READ((struct file *)src,
							 f_inode));
	event__emit(st, &e, FS_DD_EVENTS, FS_DD_EV_LOST);
}

/*
 * The event of the call, if selected. The selection comes first: with no
 * events its branch is dead and the verifier drops it before any of the
 * event's stack is written, so the syscall level's loop over the
 * destinations explores as few states as without events.
 */
static __always_inline void
dd__event(struct fs_stats *st, const struct dd_call *c, long ret, __u32 result)
{
	if (event__selected(c->lat,
			    result == FS_EV_ERROR || result == FS_EV_DIFFERS))
		dd__event_send(st, c, ret, result);
}

/* A compare of len bytes at srcoff and dstoff that found same or not:
 * its event's result. */
static __always_inline __u32 dd__record(struct fs_stats *st, __u64 srcoff,
					__u64 dstoff, __u64 len, bool same)
{
	counter__inc_own(st, same ? FS_DD_SAME : FS_DD_DIFFERS);
	hist__add_own(st, FS_DD_BYTES, len);
	hist__add_align_own(st, FS_DD_SRC_ALIGN, srcoff);
	hist__add_align_own(st, FS_DD_DST_ALIGN, dstoff);
	return same ? FS_EV_SAME : FS_EV_DIFFERS;
}

/* A call that failed: its event's result (ret is the -errno). */
static __always_inline __u32 dd__fail(struct fs_stats *st)
{
	counter__inc_own(st, FS_DD_ERRORS);
	return FS_EV_ERROR;
}

/*
 * Syscall level: one FIDEDUPERANGE ioctl, its ranges and per-destination
 * results read from the caller's struct file_dedupe_range. Each
 * destination counts as one compare call; folio sizes are invisible here.
 */
static __always_inline void dd__sys_exit(struct fs_stats *st, struct dd_call *c,
					 long ret)
{
	struct file_dedupe_range_info info;
	const struct file_dedupe_range_info *infos;
	__u32 n = c->at_exit.sys.ndests;

	infos = (const void *)(c->at_exit.sys.req +
			       sizeof(struct file_dedupe_range));
	for (__u32 i = 0; i < DD_MAX_DESTS; i++) {
		if (i >= n)
			break;
		counter__inc_own(st, FS_DD_CALLS);
		if (ret < 0 ||
		    bpf_probe_read_user(&info, sizeof(info), &infos[i])) {
			dd__fail(st);
			continue;
		}
		c->dstoff = info.dest_offset;
		if (info.status == FILE_DEDUPE_RANGE_SAME)
			dd__record(st, c->srcoff, c->dstoff, info.bytes_deduped,
				   true);
		else if (info.status == FILE_DEDUPE_RANGE_DIFFERS)
			dd__record(st, c->srcoff, c->dstoff, c->len, false);
		else
			dd__fail(st);
	}
}

/*
 * The syscall level's events: the destinations again, in a loop of
 * their own that only a run with events loads, so the counting loop
 * above is the same with events or without.
 */
static __always_inline void dd__sys_events(struct fs_stats *st,
					   struct dd_call *c, long ret)
{
	struct file_dedupe_range_info info;
	const struct file_dedupe_range_info *infos;
	__u32 n = c->at_exit.sys.ndests;

	infos = (const void *)(c->at_exit.sys.req +
			       sizeof(struct file_dedupe_range));
	for (__u32 i = 0; i < DD_MAX_DESTS; i++) {
		if (i >= n)
			break;
		if (ret < 0 ||
		    bpf_probe_read_user(&info, sizeof(info), &infos[i])) {
			/* The destination's offset is not read. */
			c->dst_unknown = 1;
			dd__event(st, c, ret < 0 ? ret : -EFAULT, FS_EV_ERROR);
			continue;
		}
		c->dst_unknown = 0;
		c->dstoff = info.dest_offset;
		if (info.status == FILE_DEDUPE_RANGE_SAME)
			dd__event(st, c, info.bytes_deduped, FS_EV_SAME);
		else if (info.status == FILE_DEDUPE_RANGE_DIFFERS)
			dd__event(st, c, c->len, FS_EV_DIFFERS);
		else
			dd__event(st, c, info.status, FS_EV_ERROR);
	}
}

/* What the prep wrote back through len_ptr: the clamped, compared
 * length. cast: read through fs_cast, else by a probe read. */
static __always_inline __u64 dd__prep_len(__u64 len_ptr, bool cast)
{
	__u64 len = 0;

	if (cast)
		return fs_cast_u64(len_ptr);
	bpf_probe_read_kernel(&len, sizeof(len), (void *)len_ptr);
	return len;
}

/* A prep that returned ret (0: same, -EBADE: differs, else an error)
 * and compared len bytes: its event's result. ret 0 with len 0: nothing
 * compared, an event only. */
static __always_inline __u32 dd__prep_result(struct fs_stats *st, __u64 srcoff,
					     __u64 dstoff, int ret, __u64 len)
{
	if (ret == 0 && len)
		return dd__record(st, srcoff, dstoff, len, true);
	if (ret == -EBADE)
		return dd__record(st, srcoff, dstoff, len, false);
	if (ret)
		return dd__fail(st);
	return FS_EV_SAME;
}

/*
 * vfs_dedupe_file_range_one's result, asked for len bytes: its event's.
 * The filesystem's remap returns the length it deduped: the compared
 * length, after the prep's clamping (rounded down to whole blocks unless
 * the range ends at EOF of both files). 0: nothing compared (len 0, or
 * clamped to 0), an event only. -EBADE: differs after some compared
 * bytes this level cannot see; the request's length is counted, as the
 * FIDEDUPERANGE level does.
 */
static __always_inline __u32 dd__one_result(struct fs_stats *st, __u64 srcoff,
					    __u64 dstoff, long ret, __u64 len)
{
	if (ret > 0)
		return dd__record(st, srcoff, dstoff, ret, true);
	if (ret == -EBADE)
		return dd__record(st, srcoff, dstoff, len, false);
	if (ret < 0)
		return dd__fail(st);
	return FS_EV_SAME;
}

/* caller_t0: at an inline site, its caller's entry time (0: unknown).
 * cast: what the call wrote through its pointers is read through fs_cast
 * (bpf/common.bpf.h), not by probe reads. */
static __always_inline int dd__exit(long ret, __u64 caller_t0, bool cast)
{
	struct fs_stats *st;
	struct dd_call *c;
	__u32 res = FS_EV_SAME;
	__u64 len = 0;
	long evret;
	bool same = false;

	c = dd__slot(false);
	if (!c || !inflight__close(&c->h, &inflight))
		return 0;
	st = stats__at(c->h.by_slot);
	if (!st)
		goto out;
	/* An inline site's call was timed at its exit; without one it was
	 * not measured. */
	if (c->kind == DD_KIND_INLINE && !(c->flags & DD_F_EXITED)) {
		counter__inc(st, FS_DD_DROPPED);
		goto out;
	}
	if (c->kind != DD_KIND_INLINE) {
		c->lat = fs_now() - c->h.ts;
		hist__add_own(st, FS_DD_LATENCY, c->lat);
	} else if (caller_t0) {
		hist__add_own(st, FS_DD_CALLER_LAT, fs_now() - caller_t0);
	}
	if (c->kind == DD_KIND_SYSCALL) {
		dd__sys_exit(st, c, ret);
		if (ev_on)
			dd__sys_events(st, c, ret);
		goto out;
	}
	counter__inc_own(st, FS_DD_CALLS);

	/* The compare and the prep return int: the register's upper half
	 * is not part of the value. */
	if (c->kind == DD_KIND_CMP || c->kind == DD_KIND_PREP ||
	    c->kind == DD_KIND_INLINE)
		ret = (int)ret;
	evret = ret;
	/* The event's result and ret, from the same branches: without
	 * events two registers, the event itself dropped with its branch. */
	switch (c->kind) {
	case DD_KIND_CMP:
		if (ret) {
			res = dd__fail(st);
			break;
		}
		if (cast)
			same = fs_cast_u8(c->at_exit.fn.same_ptr);
		else
			bpf_probe_read_kernel(&same, sizeof(same),
					      (void *)c->at_exit.fn.same_ptr);
		res = dd__record(st, c->srcoff, c->dstoff, c->len, same);
		evret = c->len;
		break;
	case DD_KIND_PREP:
		len = dd__prep_len(c->at_exit.fn.len_ptr, cast);
		res = dd__prep_result(st, c->srcoff, c->dstoff, ret, len);
		evret = res == FS_EV_ERROR ? ret : len;
		break;
	case DD_KIND_ONE:
		res = dd__one_result(st, c->srcoff, c->dstoff, ret, c->len);
		if (ret == -EBADE)
			evret = c->len;
		break;
	case DD_KIND_INLINE:
		/* The caller returns the compare's error, -EBADE when it
		 * differs, 0 when it is the same. */
		if (ret && ret != -EBADE) {
			res = dd__fail(st);
			break;
		}
		if (c->flags & DD_F_SAME_KNOWN)
			same = c->flags & DD_F_SAME;
		else
			same = ret == 0;
		res = dd__record(st, c->srcoff, c->dstoff, c->len, same);
		evret = c->len;
		break;
	default:
		/* Clone: the return value's meaning is unknown. */
		res = FS_EV_TIMED;
		break;
	}
	if (ev_on)
		dd__event(st, c, evret, res);
out:
	inflight__done(&c->h, &inflight);
	return 0;
}

/*
 * exit_only (bpf/common.bpf.h) at the prep's or vfs_dedupe_file_range_
 * one's fexit: the call counted alone, from the arguments the trampoline
 * kept and what the call returned and wrote back, after the filters its
 * entry would have applied (dd__enter_in). e->kind: DD_KIND_PREP or
 * DD_KIND_ONE.
 */
static __always_inline int dd__exit_alone(const struct dd_entry *e, long ret,
					  bool cast)
{
	struct fs_stats *st;

	if (!filter__pass() || !dd__counted(e))
		return 0;
	st = stats__get();
	if (!st)
		return 0;
	counter__inc_own(st, FS_DD_CALLS);
	if (e->kind == DD_KIND_ONE)
		dd__one_result(st, e->srcoff, e->dstoff, ret, e->len);
	else
		dd__prep_result(st, e->srcoff, e->dstoff, ret,
				dd__prep_len(e->at_exit.fn.len_ptr, cast));
	return 0;
}

/*
 * A folio the compare read (read_cache_folio / read_cache_page return):
 * each folio once per call, however many of its pages are compared.
 */
static __always_inline int dd__folio(const void *folio, bool cast)
{
	struct fs_stats *st;
	struct dd_call *c;
	__u64 f = (__u64)folio, prev;

	c = dd__slot(false);
	if (!c || !c->h.ts || c->kind == DD_KIND_CLONE ||
	    (c->flags & DD_F_EXITED))
		return 0;
	/* ERR_PTR values sit in the last page of the address space. */
	if (!folio || f >= (__u64)-4095)
		return 0;
	if (f == c->folio[0])
		return 0;
	prev = c->folio[1];
	c->folio[1] = c->folio[0];
	c->folio[0] = f;
	if (f == prev)
		return 0;
	st = stats__at(c->h.by_slot);
	if (st) {
		__u64 size = folio__bytes(folio, sub_pages, cast);

		hist__add_own(st, FS_DD_FOLIO_SIZE, size);
		if (ev_on)
			event__minmax(&c->folio_min, &c->folio_max, &c->folio_n,
				      size);
	}
	return 0;
}

/* x86-64 passes the sixth argument in r9; libbpf 1.1 has no PARM6. */
#define DD_PARM6(ctx) (((struct pt_regs *)(ctx))->r9)

/* ---- vfs_dedupe_file_range_compare(src, srcoff, dst, dstoff, len, same) */
SEC("fentry")
int BPF_PROG(fentry_cmp, void *src, loff_t srcoff, void *dst, loff_t dstoff,
	     loff_t len, bool *is_same)
{
	return dd__enter(&(struct dd_entry){
		.kind = DD_KIND_CMP,
		.obj = src,
		.is_inode = cmp_src_is_inode,
		.srcoff = srcoff,
		.dstoff = dstoff,
		.len = len,
		.at_exit.fn.same_ptr = (__u64)is_same,
	});
}

SEC("kprobe")
int BPF_KPROBE(kprobe_cmp, void *src, loff_t srcoff, void *dst, loff_t dstoff,
	       loff_t len)
{
	return dd__enter(&(struct dd_entry){
		.kind = DD_KIND_CMP,
		.obj = src,
		.is_inode = cmp_src_is_inode,
		.srcoff = srcoff,
		.dstoff = dstoff,
		.len = len,
		.at_exit.fn.same_ptr = DD_PARM6(ctx),
	});
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_any, long ret)
{
	return dd__exit(ret, 0, false);
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_any_cast, long ret)
{
	return dd__exit(ret, 0, FS_TWIN_CAST);
}

/* ---- [__]generic_remap_file_range_prep(in, pos_in, out, pos_out, *len,
 * flags[, ops]) */
SEC("fentry")
int BPF_PROG(fentry_prep, void *fin, loff_t pos_in, void *fout, loff_t pos_out,
	     loff_t *len, unsigned int flags)
{
	return dd__enter(&(struct dd_entry){
		.kind = DD_KIND_PREP,
		.obj = fin,
		.srcoff = pos_in,
		.dstoff = pos_out,
		.flags = flags,
		.at_exit.fn.len_ptr = (__u64)len,
	});
}

/* Shared by every fentry flavour: the return value comes from the
 * trampoline, so the function's argument count does not matter here. */
static __always_inline int dd__fexit_any(__u64 *ctx, bool cast)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	return dd__exit((long)ret, 0, cast);
}

SEC("fexit")
int BPF_PROG(fexit_any)
{
	return dd__fexit_any(ctx, false);
}

SEC("fexit")
int BPF_PROG(fexit_any_cast)
{
	return dd__fexit_any(ctx, FS_TWIN_CAST);
}

/* The prep's exit: as fexit_any, or under exit_only the call alone. */
static __always_inline int dd__fexit_prep(__u64 *ctx, bool cast)
{
	__u64 ret = 0;

	if (!exit_only)
		return dd__fexit_any(ctx, cast);
	bpf_get_func_ret(ctx, &ret);
	return dd__exit_alone(
		&(struct dd_entry){
			.kind = DD_KIND_PREP,
			.obj = (void *)ctx[0],
			.srcoff = ctx[1],
			.dstoff = ctx[3],
			.flags = (unsigned int)ctx[5],
			.at_exit.fn.len_ptr = ctx[4],
		},
		(int)ret, cast);
}

SEC("fexit")
int BPF_PROG(fexit_prep)
{
	return dd__fexit_prep(ctx, false);
}

SEC("fexit")
int BPF_PROG(fexit_prep_cast)
{
	return dd__fexit_prep(ctx, FS_TWIN_CAST);
}

SEC("kprobe")
int BPF_KPROBE(kprobe_prep, void *fin, loff_t pos_in, void *fout,
	       loff_t pos_out, loff_t *len)
{
	return dd__enter(&(struct dd_entry){
		.kind = DD_KIND_PREP,
		.obj = fin,
		.srcoff = pos_in,
		.dstoff = pos_out,
		.flags = DD_PARM6(ctx),
		.at_exit.fn.len_ptr = (__u64)len,
	});
}

/* ---- vfs_dedupe_file_range_one(src, src_pos, dst, dst_pos, len, flags) */
SEC("fentry")
int BPF_PROG(fentry_one, void *src, loff_t src_pos, void *dst, loff_t dst_pos,
	     loff_t len, unsigned int flags)
{
	return dd__enter(&(struct dd_entry){
		.kind = DD_KIND_ONE,
		.obj = src,
		.srcoff = src_pos,
		.dstoff = dst_pos,
		.len = len,
		.flags = flags,
	});
}

SEC("kprobe")
int BPF_KPROBE(kprobe_one, void *src, loff_t src_pos, void *dst, loff_t dst_pos,
	       loff_t len)
{
	return dd__enter(&(struct dd_entry){
		.kind = DD_KIND_ONE,
		.obj = src,
		.srcoff = src_pos,
		.dstoff = dst_pos,
		.len = len,
		.flags = DD_PARM6(ctx),
	});
}

/* Its exit: as fexit_any, or under exit_only the call alone. */
SEC("fexit")
int BPF_PROG(fexit_one, void *src, loff_t src_pos, void *dst, loff_t dst_pos,
	     loff_t len)
{
	__u64 ret = 0;

	if (!exit_only)
		return dd__fexit_any(ctx, false);
	bpf_get_func_ret(ctx, &ret);
	return dd__exit_alone(
		&(struct dd_entry){
			.kind = DD_KIND_ONE,
			.obj = src,
			.srcoff = src_pos,
			.dstoff = dst_pos,
			.len = len,
		},
		(long)ret, false);
}

/* ---- a compiler-renamed clone: never read its arguments */
SEC("kprobe")
int BPF_KPROBE(kprobe_clone)
{
	return dd__enter(&(struct dd_entry){ .kind = DD_KIND_CLONE });
}

/*
 * ---- the compare's inline sites: one entry program at each site's entry
 * (the attach cookie is the site's index), one at every exit target, and
 * the caller's return.
 */

/* Each site's arguments at its entry, by position (user space, from
 * DWARF). */
const volatile struct fs_fetch inline_fetch[FS_INLINE_MAX_SITES]
					   [FS_INLINE_NARGS] = {};

_Static_assert((FS_INLINE_MAX_SITES & (FS_INLINE_MAX_SITES - 1)) == 0,
	       "FS_INLINE_MAX_SITES bounds an index by masking");

/* Argument a at site's entry into *v; false when it has no location or
 * its memory cannot be read. */
static __always_inline bool inline__arg(struct pt_regs *r, __u32 site, int a,
					__u64 *v)
{
	*v = 0;
	if (site >= FS_INLINE_MAX_SITES || a < 0 || a >= FS_INLINE_NARGS)
		return false;
	/* The compiler may test a copy of site and index with the other:
	 * the mask, which it cannot drop past the opaque barrier, bounds the
	 * index itself (FS_INLINE_MAX_SITES is a power of two). */
	fs_opaque(site);
	site &= FS_INLINE_MAX_SITES - 1;
	return fetch__do(r, &inline_fetch[site][a], v);
}

/* Sites whose entry is also a loop's head, one bit each (user space,
 * from the machine code): the loop comes back to the entry on every
 * turn without leaving the site, so only the first arrival is a call. */
const volatile __u32 inline_loop_sites = 0;

_Static_assert(FS_INLINE_MAX_SITES <= 32,
	       "inline_loop_sites has a bit per site");

SEC("kprobe")
int kprobe_inline_entry(struct pt_regs *ctx)
{
	__u32 site = (__u32)bpf_get_attach_cookie(ctx);
	__u64 src, srcoff, dstoff, len, same;
	struct dd_call *c = NULL;
	__u32 loop = 0;

	site &= FS_INLINE_MAX_SITES - 1;
	/* The record found here serves the entry too: one lookup. */
	if (inline_loop_sites & (1u << site)) {
		c = dd__slot(false);
		if (c && c->h.depth && c->loop_site == site + 1)
			return 0;
		loop = site + 1;
	}
	inline__arg(ctx, site, 0, &src);
	inline__arg(ctx, site, 1, &srcoff);
	inline__arg(ctx, site, 3, &dstoff);
	inline__arg(ctx, site, 4, &len);
	inline__arg(ctx, site, 5, &same);
	return dd__enter_in(
		&(struct dd_entry){
			.kind = DD_KIND_INLINE,
			.obj = (const void *)src,
			.is_inode = cmp_src_is_inode,
			.srcoff = srcoff,
			.dstoff = dstoff,
			.len = len,
			.at_exit.fn.same_ptr = same,
			.loop_site = loop,
		},
		c);
}

/*
 * An exit target. Other paths of the caller run through it too: only a
 * call of this thread that entered the site and has not left it yet is
 * timed here.
 */
SEC("kprobe")
int kprobe_inline_exit(struct pt_regs *ctx)
{
	struct fs_stats *st;
	struct dd_call *c;
	bool same = false;

	c = dd__slot(false);
	if (!c)
		return 0;
	/* Left the site: the next arrival at its entry is a new call. */
	c->loop_site = 0;
	if (!c->h.ts || c->kind != DD_KIND_INLINE || (c->flags & DD_F_EXITED))
		return 0;
	c->lat = fs_now() - c->h.ts;
	st = stats__at(c->h.by_slot);
	if (st)
		hist__add_own(st, FS_DD_LATENCY, c->lat);
	c->flags |= DD_F_EXITED;
	if (c->at_exit.fn.same_ptr &&
	    !bpf_probe_read_kernel(&same, sizeof(same),
				   (void *)c->at_exit.fn.same_ptr))
		c->flags |= DD_F_SAME_KNOWN | (same ? DD_F_SAME : 0);
	return 0;
}

/* The caller's entry, for its latency around the site's. */
SEC("kprobe")
int kprobe_inline_caller_entry(struct pt_regs *ctx)
{
	__u64 tid = bpf_get_current_pid_tgid();
	__u64 now = fs_now();

	bpf_map_update_elem(&caller_ts, &tid, &now, BPF_ANY);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_inline_caller, long ret)
{
	__u64 tid = bpf_get_current_pid_tgid();
	__u64 *t0 = bpf_map_lookup_elem(&caller_ts, &tid);
	__u64 caller_t0 = t0 ? *t0 : 0;

	if (t0)
		bpf_map_delete_elem(&caller_ts, &tid);
	return dd__exit(ret, caller_t0, false);
}

/* ---- folios read by the compare */
static __always_inline int dd__fexit_folio(__u64 *ctx, bool cast)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	return dd__folio((const void *)ret, cast);
}

SEC("fexit")
int BPF_PROG(fexit_folio)
{
	return dd__fexit_folio(ctx, false);
}

/* Twins read the folio through fs_cast (bpf/common.bpf.h). */
SEC("fexit")
int BPF_PROG(fexit_folio_cast)
{
	return dd__fexit_folio(ctx, FS_TWIN_CAST);
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_folio, void *ret)
{
	return dd__folio(ret, false);
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_folio_cast, void *ret)
{
	return dd__folio(ret, FS_TWIN_CAST);
}

/* ---- syscall level: ioctl(fd, FIDEDUPERANGE, struct file_dedupe_range *) */
SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter_dd, struct pt_regs *regs, long id)
{
	struct file_dedupe_range hdr;
	struct fs_sysargs a;
	struct fs_stats *st;
	bool unread;

	if (id != FS_NR_IOCTL && id != FS_NR32_IOCTL)
		return 0;
	/* A 32-bit task's ioctl (or a syscall numbered ioctl in the x86-64
	 * table): its registers are i386's, not decoded, counted. */
	if (sys__compat()) {
		if (filter__pass()) {
			st = stats__get();
			if (st)
				counter__inc(st, FS_DD_COMPAT);
		}
		return 0;
	}
	if (id != FS_NR_IOCTL || sysargs__read(regs, &a) ||
	    (__u32)a.si != FIDEDUPERANGE)
		return 0;
	/* An unreadable argument is an ioctl that fails at once: not
	 * counted, but its entry is, for its exit. */
	unread = bpf_probe_read_user(&hdr, sizeof(hdr), (void *)a.dx);
	return dd__enter(&(struct dd_entry){
		.kind = DD_KIND_SYSCALL,
		.skip = unread,
		.obj = filter_files || ev_on ? fd__file(a.di) : NULL,
		.fd = (int)a.di,
		.srcoff = hdr.src_offset,
		.len = hdr.src_length,
		.at_exit.sys.req = a.dx,
		.at_exit.sys.ndests = hdr.dest_count,
	});
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit_dd, struct pt_regs *regs, long ret)
{
	/* Every syscall exits here: leave before the map lookup. The
	 * ioctl's arguments are still in the saved user registers, so
	 * other ioctls' exits do not close the entry of a FIDEDUPERANGE. */
	if (BPF_CORE_READ(regs, orig_ax) != FS_NR_IOCTL || sys__compat() ||
	    (__u32)BPF_CORE_READ(regs, si) != FIDEDUPERANGE)
		return 0;
	return dd__exit(ret, 0, false);
}

/*
 * The same on the per-syscall tracepoints of ioctl: attached to it
 * alone, so every other syscall runs no program of ours (the kernel does
 * not run them for a 32-bit task's syscalls).
 */
SEC("tracepoint")
int tp_enter_dd(struct syscall_trace_enter *ctx)
{
	struct file_dedupe_range hdr;
	unsigned long fd = ctx->args[0], arg = ctx->args[2];
	bool unread;

	if ((__u32)ctx->args[1] != FIDEDUPERANGE)
		return 0;
	unread = bpf_probe_read_user(&hdr, sizeof(hdr), (void *)arg);
	return dd__enter(&(struct dd_entry){
		.kind = DD_KIND_SYSCALL,
		.skip = unread,
		.obj = filter_files || ev_on ? fd__file(fd) : NULL,
		.fd = (int)fd,
		.srcoff = hdr.src_offset,
		.len = hdr.src_length,
		.at_exit.sys.req = arg,
		.at_exit.sys.ndests = hdr.dest_count,
	});
}

/*
 * Other ioctls' exits find no open entry in their thread (inflight__close
 * leaves then): only a FIDEDUPERANGE's entry opens one, and its exit is
 * the thread's next ioctl exit.
 */
SEC("tracepoint")
int tp_exit_dd(struct syscall_trace_exit *ctx)
{
	return dd__exit(ctx->ret, 0, false);
}

/* The in-flight store's move of a migrating thread's record (FS_STORE_CPU;
 * attached only then). */
SEC("raw_tp/sched_migrate_task")
int BPF_PROG(inflight_migrate, struct task_struct *p, int dest_cpu)
{
	return inflight__migrate(&inflight, &inflight_cpu, p, FS_DD_DROPPED);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
