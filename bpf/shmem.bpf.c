// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tmpfs read (shmem_file_read_iter, and shmem_file_splice_read where the
 * kernel has it) probes, plus the folio lookups made inside them
 * (shmem_get_folio and kin, and the page cache's batch lookup,
 * filemap_get_folios_contig, where a read takes its folios in batches). The
 * read loop looks up one folio (a page before 6.13) per iteration and then
 * copies to user space, so the iterator's count dropping between lookups is the
 * size of each copy. That works on every version, where hooking the copy itself
 * does not (copy_page_to_iter takes neither fentry nor kprobe on Debian's 6.1).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common.bpf.h"

/*
 * A thread's in-flight record. Besides the read in the slot it counts
 * the thread's open entries (h.depth), those the file filters reject
 * included, so an exit knows whether it belongs to the read in the
 * slot: the exit of a filtered read, or one whose entry opened no slot,
 * is not counted and leaves a slot whose exit was missed alone.
 */
/* For events only: what the read met, and its fd (syscall level). */
struct sh_ev {
	__u64 folio_min, folio_max;
	__u64 chunk_min, chunk_max;
	__u32 folio_n, chunk_n;
	__s32 fd;
	__u32 has_fd;
};

struct sh_call {
	struct inflight_head h; /* first: h.ts non-zero while in flight */
	__u64 pos;
	__u64 req;
	__u64 buf;	   /* user buffer address, if has_buf */
	__u64 to;	   /* struct iov_iter * of the read */
	__u64 foliop;	   /* struct folio ** of the lookup in progress */
	__u64 last_folio;  /* count each folio once per call */
	__u64 last_count;  /* iterator count at the previous lookup */
	__u64 inode;	   /* struct inode * of the file being read */
	__u64 batch;	   /* struct folio_batch * of the batch in progress */
	__u64 batch_inode; /* and the file it is of */
	__u32 lookups;	   /* lookups of this read: alone, or a batch each */
	__u32 has_buf;
	__u32 has_prev; /* SH_PREV_*: what the last lookup was */
	/* Last: written and copied only with events on (ev_on), so a run
	 * without events neither zeroes nor copies it. */
	struct sh_ev ev;
};

/* Index of the folio (or page) out-pointer of the lookup function. */
const volatile __u32 foliop_arg = 2;

FS_INFLIGHT_MAPS(struct sh_call);

/* A new record in the hash: from read-only data, not zeroed on the stack
 * by every call on the task-storage path, which never uses it. */
static const struct sh_call sh_zero;

/* iov_iter before 5.14: bit-flag "type"; before 6.4: "iov". */
struct iov_iter___v513 {
	unsigned int type;
} __attribute__((preserve_access_index));

struct iov_iter___v63 {
	const struct iovec *iov;
} __attribute__((preserve_access_index));

/*
 * A kprobe's copies of the heads of shmem_file_read_iter's arguments
 * (FS_HREAD): the iocb's file and position; the iterator's type, offset,
 * count and user address (or iovec array), its first 40 bytes on every
 * kernel since 5.14.
 */
struct sh_iocb_head {
	__u64 w[2];
	__u64 n;
};

struct sh_iter_head {
	__u64 w[5];
	__u64 n;
};

/*
 * Address the next byte will be copied to, for user-memory iterators
 * (ITER_UBUF since 6.0, used by read(2); ITER_IOVEC for readv). Enum
 * values differ between versions, so they come from the target's BTF.
 * ih: a kprobe's copy of the iterator's head (unused with btf).
 */
static __always_inline bool iter__user_addr(struct iov_iter *it,
					    const struct sh_iter_head *ih,
					    bool btf, __u64 *addr)
{
	__u64 off = FS_HREAD(btf, it, ih, iov_offset);
	const struct iovec *iov;
	__u32 type;

	if (bpf_core_field_exists(it->iter_type))
		type = FS_HREAD(btf, it, ih, iter_type);
	else
		type = BPF_CORE_READ((struct iov_iter___v513 *)it, type) & ~1U;

	if (bpf_core_enum_value_exists(enum iter_type, ITER_UBUF) &&
	    type == bpf_core_enum_value(enum iter_type, ITER_UBUF)) {
		/* Through a BTF pointer the verifier types a plain load of
		 * the union as its first member. From 6.4 that is the
		 * embedded iovec, whose base is a number; before, an iovec
		 * pointer, so a probe read. A kprobe's copy holds numbers. */
		if (!btf)
			*addr = (__u64)FS_HREAD(false, it, ih, ubuf);
		else if (bpf_core_field_exists(it->__ubuf_iovec))
			*addr = (__u64)it->__ubuf_iovec.iov_base;
		else
			*addr = (__u64)BPF_CORE_READ(it, ubuf);
		*addr += off;
		return true;
	}
	if (type != bpf_core_enum_value(enum iter_type, ITER_IOVEC))
		return false;
	if (bpf_core_field_exists(it->__iov))
		iov = FS_HREAD(btf, it, ih, __iov);
	else
		iov = BPF_CORE_READ((struct iov_iter___v63 *)it, iov);
	*addr = (__u64)BPF_CORE_READ(iov, iov_base) + off;
	return true;
}

static __always_inline void sh__count_dropped(void)
{
	struct fs_stats *st = stats__get();

	if (st)
		counter__inc(st, FS_SH_DROPPED);
}

/*
 * The current thread's record, created (zeroed) if create and missing.
 * In the hash a record stays while the thread has open entries, so its
 * depth survives from entry to exit.
 */
static __always_inline struct sh_call *sh__slot(bool create)
{
	return inflight__slot(&inflight_task, &inflight, &inflight_cpu,
			      &sh_zero, create);
}

/*
 * An entry the file filters reject (or, at syscall level, a read of a
 * file that is not on tmpfs): it opens an entry, so that its exit does
 * not take the slot of a read whose exit was missed. create: make the
 * record if the thread has none; at syscall level, where reads do not
 * nest, a thread without a record has no slot to protect.
 */
static __always_inline void sh__skip(bool create)
{
	struct sh_call *c = sh__slot(create);

	if (c)
		c->h.depth++;
}

/*
 * The thread's record, claimed for a new read: its depth opened, the
 * rest zeroed up to the event part, which the caller clears only when
 * events are on. The caller fills it in place and sets h.ts last. A
 * refused slot is counted, not hidden, and so is a live read the slot
 * held: its exit was missed (a kretprobe out of instances) and it is not
 * measured.
 */
static __always_inline struct sh_call *sh__claim(void)
{
	struct sh_call *c = sh__slot(true);
	__u32 depth;

	if (!c) {
		sh__count_dropped();
		return NULL;
	}
	if (c->h.ts)
		sh__count_dropped();
	depth = c->h.depth + 1;
	c->h.depth = depth;
	c->h.call_depth = depth;
	c->h.by_slot = by__slot();
	__builtin_memset(__builtin_assume_aligned(&c->pos, 8), 0,
			 offsetof(struct sh_call, ev) -
				 offsetof(struct sh_call, pos));
	return c;
}

/*
 * The read in the slot if the innermost open entry is its own, else
 * NULL: a folio lookup inside a filtered read is not counted.
 */
static __always_inline struct sh_call *sh__current(void)
{
	struct sh_call *c = sh__slot(false);

	if (!c || !c->h.ts || c->h.call_depth != c->h.depth)
		return NULL;
	return c;
}

/*
 * A read that passed the filters, from its file f at pos for req bytes:
 * kept for its exit. to is shmem_file_read_iter's iterator; NULL for a
 * splice read, which fills pipe buffers (no user buffer to align, no
 * iterator whose count marks the copies). btf: f and to are BTF pointers.
 */
static __always_inline int sh__open_call(struct file *f, __u64 pos, __u64 req,
					 struct iov_iter *to,
					 const struct sh_iter_head *ih,
					 bool btf)
{
	struct sh_call *c = sh__claim();

	if (!c)
		return 0;
	c->pos = pos;
	c->req = req;
	c->to = (__u64)to;
	/* Bench: without the file's inode, lookups are matched to any
	 * read (sh__lookup_begin). */
	if (!fs_drop(FS_DROP_FILE))
		c->inode = (__u64)FS_READ(btf, f, f_inode);
	if (!lean && to)
		c->has_buf = iter__user_addr(to, ih, btf, &c->buf);
	if (ev_on)
		c->ev = (struct sh_ev){};
	c->h.ts = fs_now();
	return 0;
}

/* shmem_file_read_iter's entry. btf: iocb and to are BTF pointers
 * (fentry), read without helpers; else each is copied once (FS_HREAD). */
static __always_inline int sh__enter(struct kiocb *iocb, struct iov_iter *to,
				     bool btf)
{
	struct sh_iocb_head kh;
	struct sh_iter_head ih;
	struct file *f;

	/* Process filters first: a read they reject leaves no trace, and
	 * neither does its exit, which checks them again. */
	if (!filter__pass())
		return 0;
	if (!btf)
		fs_head__copy(&kh, iocb);
	f = FS_HREAD(btf, iocb, &kh, ki_filp);
	if (!filter__file(f)) {
		sh__skip(true);
		return 0;
	}
	/* --lean wants only the count of the iterator: one field, one
	 * probe read. */
	ih.n = 0;
	if (!btf && !lean)
		fs_head__copy(&ih, to);
	return sh__open_call(f, FS_HREAD(btf, iocb, &kh, ki_pos),
			     FS_HREAD(btf, to, &ih, count), to, &ih, btf);
}

/* shmem_file_splice_read's entry (6.5 on: splice, sendfile and
 * copy_file_range read tmpfs there, not through shmem_file_read_iter).
 * The position is behind a pointer to a plain integer, which no BTF
 * pointer reaches. */
static __always_inline int sh__enter_splice(struct file *in, loff_t *ppos,
					    __u64 len, bool btf)
{
	loff_t pos = 0;

	if (!filter__pass())
		return 0;
	if (!filter__file(in)) {
		sh__skip(true);
		return 0;
	}
	bpf_probe_read_kernel(&pos, sizeof(pos), ppos);
	return sh__open_call(in, pos, len, NULL, NULL, btf);
}

/* Bytes the read's iterator still wants. A local pointer, so CO-RE
 * relocates only the iov_iter access, not our own struct's. cast: a
 * guarded load through bpf_rdonly_cast (fs_cast), not a probe read. */
static __always_inline __u64 sh__count(const struct sh_call *c, bool cast)
{
	struct iov_iter *to = (struct iov_iter *)c->to;

	if (cast)
		return fs_cast(to, struct iov_iter)->count;
	return BPF_CORE_READ(to, count);
}

/* The bytes handed to user space since the previous folio lookup. */
/* What the read's previous lookup was, so what its count's drop since is:
 * none yet, one folio's (one copy), or a batch's (a copy per folio). */
enum { SH_PREV_NONE, SH_PREV_ONE, SH_PREV_BATCH };

static __always_inline void sh__chunk(struct fs_stats *st, struct sh_call *c,
				      __u64 count)
{
	/* Locked: the read's exit and the folio lookups both close copies. */
	if (c->has_prev == SH_PREV_BATCH && c->last_count > count) {
		__sync_fetch_and_add(&st->counter[FS_SH_BATCH_COPY_BYTES],
				     c->last_count - count);
	} else if (c->has_prev && c->last_count > count) {
		hist__add(st, FS_SH_COPY_BYTES, c->last_count - count);
		if (ev_on)
			event__minmax(&c->ev.chunk_min, &c->ev.chunk_max,
				      &c->ev.chunk_n, c->last_count - count);
	}
	c->last_count = count;
}

/*
 * A folio lookup of the read in flight on inode: close the previous
 * iteration's copy and return the read (NULL: not one of its lookups).
 * Only the read's own file counts: the copy to user space can fault on a
 * buffer mapped from another tmpfs file, whose lookup runs in the same
 * thread while the read is in flight.
 */
static __always_inline struct sh_call *
sh__lookup_begin(__u64 inode, struct fs_stats **st, bool cast)
{
	struct sh_call *c = sh__current();

	if (!c || (c->inode != inode && !fs_drop(FS_DROP_FILE)))
		return NULL;
	*st = stats__at(c->h.by_slot);
	if (!*st)
		return NULL;
	c->lookups++;
	sh__chunk(*st, c, sh__count(c, cast));
	c->has_prev = SH_PREV_ONE;
	return c;
}

/* A lookup starts; its exit program reads the folio through foliop. */
static __always_inline int sh__lookup_enter(__u64 inode, __u64 foliop,
					    bool cast)
{
	struct fs_stats *st;
	struct sh_call *c = sh__lookup_begin(inode, &st, cast);

	if (c)
		c->foliop = foliop;
	return 0;
}

/* What a lookup that returned ret left in *foliop: a hole or an error
 * leaves nothing to read. */
static __always_inline __u64 sh__out_folio(int ret, __u64 foliop, bool cast)
{
	__u64 folio = 0;

	if (ret == 0 && cast)
		folio = fs_cast_u64(foliop);
	else if (ret == 0)
		bpf_probe_read_kernel(&folio, sizeof(folio), (void *)foliop);
	return folio;
}

/* The lookup of c returned folio (0: none, a hole or an error). */
static __always_inline void
sh__lookup_folio(struct fs_stats *st, struct sh_call *c, __u64 folio, bool cast)
{
	c->foliop = 0;
	if (folio && folio != c->last_folio) {
		__u64 size = folio__bytes((void *)folio, sub_pages, cast);

		c->last_folio = folio;
		hist__add_own(st, FS_SH_FOLIO_SIZE, size);
		if (ev_on)
			event__minmax(&c->ev.folio_min, &c->ev.folio_max,
				      &c->ev.folio_n, size);
	}
}

/* The lookup returns: the folio it found (none for a hole). */
static __always_inline int sh__lookup_exit(int ret, bool cast)
{
	struct fs_stats *st;
	struct sh_call *c;

	/* Lookups outside a traced read leave after the record's test. */
	c = sh__current();
	if (!c || !c->foliop)
		return 0;
	st = stats__at(c->h.by_slot);
	if (!st)
		return 0;
	sh__lookup_folio(st, c, sh__out_folio(ret, c->foliop, cast), cast);
	return 0;
}

/*
 * The read as an event, if selected; the caller tests ev_on first, so
 * that without events nothing of this (the selection's inputs included)
 * is computed. Folios and copy chunks are seen only at function level
 * (c->to set) and not with --lean; user space also clears them when the
 * sub-probe is not attached.
 */
static __always_inline void
sh__event(struct fs_stats *st, const struct sh_call *c, long ret, __u64 lat)
{
	struct fs_event e = {
		.lat_ns = lat,
		.off = c->pos,
		.req = c->req,
		.ret = ret,
		.buf = c->buf,
		.folio_min = c->ev.folio_min,
		.folio_max = c->ev.folio_max,
		.folio_n = c->ev.folio_n,
		.chunk_min = c->ev.chunk_min,
		.chunk_max = c->ev.chunk_max,
		.chunk_n = c->ev.chunk_n,
		.target = 1,
		.result = ret < 0 ? FS_EV_ERROR : FS_EV_OK,
		.fd = c->ev.fd,
		.flags = FS_EVF_LEN,
	};

	/* A short read is one that returned less than it asked for. */
	if (!event__selected(lat, ret < 0 || (__u64)ret < c->req))
		return;
	if (c->has_buf)
		e.flags |= FS_EVF_BUF;
	if (c->ev.has_fd)
		e.flags |= FS_EVF_FD;
	if (c->to && !lean)
		e.flags |= FS_EVF_FOLIO | FS_EVF_CHUNK;
	event__inode(&e, (const struct inode *)c->inode);
	event__emit(st, &e, FS_SH_EVENTS, FS_SH_EV_LOST);
}

/* Bytes a read that returned ret handed out: none on an error. */
static __always_inline __u64 sh__done(long ret)
{
	return ret > 0 ? ret : 0;
}

/* What a read that asked for req bytes returned: an error, or bytes
 * read (asked and read mostly equal: one log2 for both). */
static __always_inline void sh__count_result(struct fs_stats *st, __u64 req,
					     long ret)
{
	if (ret < 0) {
		counter__inc_own(st, FS_SH_ERRORS);
		hist__add_own(st, FS_SH_REQ_BYTES, req);
	} else {
		hist__add_pair_own(st, FS_SH_REQ_BYTES, req, FS_SH_BYTES, ret);
	}
}

/* A read at pos for req bytes that returned ret, counted at its exit. */
static __always_inline int sh__count_alone(struct fs_stats *st, __u64 pos,
					   __u64 req, long ret)
{
	counter__inc_own(st, FS_SH_CALLS);
	hist__add_align_own(st, FS_SH_POS_ALIGN, pos);
	sh__count_result(st, req, ret);
	return 0;
}

/*
 * The read's own exit, alone, for req bytes: by now the position has
 * moved past what was read (an error moves it not at all), so the read
 * started at end, where the position is now, minus that.
 */
static __always_inline int sh__exit_alone(const struct file *f, __u64 end,
					  __u64 req, long ret)
{
	struct fs_stats *st;

	if (!filter__pass() || !filter__file(f))
		return 0;
	st = stats__get();
	if (!st)
		return 0;
	return sh__count_alone(st, end - sh__done(ret), req, ret);
}

/* to: the read's iterator as a BTF pointer (fexit), else NULL; cast:
 * the record's iterator is read through fs_cast. */
static __always_inline int sh__exit(long ret, struct iov_iter *to, bool cast)
{
	struct fs_stats *st;
	struct sh_call *c;
	__u64 lat;

	c = sh__slot(false);
	if (!c || !inflight__close(&c->h, &inflight))
		return 0;
	st = stats__at(c->h.by_slot);
	if (!st)
		goto out;
	counter__inc_own(st, FS_SH_CALLS);
	lat = fs_now() - c->h.ts;
	hist__add_own(st, FS_SH_LATENCY, lat);
	hist__add_align_own(st, FS_SH_POS_ALIGN, c->pos);
	if (c->has_buf)
		hist__add_align_own(st, FS_SH_BUF_ALIGN, c->buf);
	sh__count_result(st, c->req, ret);
	if (c->to && !lean)
		sh__chunk(st, c, to ? to->count : sh__count(c, cast));
	if (!lean)
		hist__add_own(st, FS_SH_LOOKUPS, c->lookups);
	if (ev_on)
		sh__event(st, c, ret, lat);
out:
	inflight__done(&c->h, &inflight);
	return 0;
}

SEC("fentry")
int BPF_PROG(fentry_read, struct kiocb *iocb, struct iov_iter *to)
{
	return sh__enter(iocb, to, true);
}

SEC("fexit")
int BPF_PROG(fexit_read, struct kiocb *iocb, struct iov_iter *to, long ret)
{
	/* The iterator has handed out what was read: the read asked for
	 * what it still wants plus that. The file is read for the file
	 * filters only: a BTF load costs a fault guard. */
	if (exit_only)
		return sh__exit_alone(filter_files ? iocb->ki_filp : NULL,
				      iocb->ki_pos, to->count + sh__done(ret),
				      ret);
	return sh__exit(ret, to, false);
}

SEC("kprobe")
int BPF_KPROBE(kprobe_read, struct kiocb *iocb, struct iov_iter *to)
{
	return sh__enter(iocb, to, false);
}

/* kprobe_read's twin (fs_cast): the iocb and iterator as the kernel's
 * types, read as fentry_read reads its arguments. */
SEC("kprobe")
int BPF_KPROBE(kprobe_read_cast, struct kiocb *iocb, struct iov_iter *to)
{
	if (!FS_TWIN_CAST)
		return sh__enter(iocb, to, false);
	return sh__enter(fs_cast(iocb, struct kiocb),
			 fs_cast(to, struct iov_iter), true);
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_read, long ret)
{
	return sh__exit(ret, NULL, false);
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_read_cast, long ret)
{
	return sh__exit(ret, NULL, FS_TWIN_CAST);
}

SEC("fentry")
int BPF_PROG(fentry_splice, struct file *in, loff_t *ppos,
	     struct pipe_inode_info *pipe, size_t len)
{
	return sh__enter_splice(in, ppos, len, true);
}

SEC("fexit")
int BPF_PROG(fexit_splice, struct file *in, loff_t *ppos,
	     struct pipe_inode_info *pipe, size_t len, unsigned int flags,
	     long ret)
{
	if (exit_only) {
		loff_t end = 0;

		bpf_probe_read_kernel(&end, sizeof(end), ppos);
		return sh__exit_alone(in, end, len, ret);
	}
	return sh__exit(ret, NULL, false);
}

SEC("kprobe")
int BPF_KPROBE(kprobe_splice, struct file *in, loff_t *ppos,
	       struct pipe_inode_info *pipe, size_t len)
{
	return sh__enter_splice(in, ppos, len, false);
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_splice, long ret)
{
	return sh__exit(ret, NULL, false);
}

/*
 * shmem_get_folio and kin at fexit, one program for the whole lookup:
 * fexit sees the arguments too (the out-pointer's position comes from
 * BTF), and the lookup leaves the read's iterator alone, so its count is
 * the one an entry program would have read.
 */
static __always_inline int sh__fexit_lookup(__u64 *ctx, bool cast)
{
	/* The inode is the first argument of every lookup: a plain load. */
	__u64 inode = ctx[0], foliop = 0, ret = 0;
	struct fs_stats *st;
	struct sh_call *c;

	bpf_get_func_arg(ctx, foliop_arg, &foliop);
	bpf_get_func_ret(ctx, &ret);
	c = sh__lookup_begin(inode, &st, cast);
	if (c)
		sh__lookup_folio(st, c, sh__out_folio((int)ret, foliop, cast),
				 cast);
	return 0;
}

SEC("fexit")
int BPF_PROG(fexit_lookup)
{
	return sh__fexit_lookup(ctx, false);
}

SEC("fexit")
int BPF_PROG(fexit_lookup_cast)
{
	return sh__fexit_lookup(ctx, FS_TWIN_CAST);
}

static __always_inline int sh__kprobe_lookup(struct pt_regs *ctx, bool cast)
{
	/* Plain ctx loads, each through fs_opaque: clang would merge the
	 * two candidates into one load at a variable offset, which the
	 * verifier refuses. (A _CORE read is a helper call and a
	 * fault-guarded copy each.) */
	__u64 inode = PT_REGS_PARM1(ctx), p3 = PT_REGS_PARM3(ctx),
	      p4 = PT_REGS_PARM4(ctx);

	fs_opaque(p3);
	fs_opaque(p4);
	return sh__lookup_enter(inode, foliop_arg == 3 ? p4 : p3, cast);
}

SEC("kprobe")
int BPF_KPROBE(kprobe_lookup)
{
	return sh__kprobe_lookup(ctx, false);
}

SEC("kprobe")
int BPF_KPROBE(kprobe_lookup_cast)
{
	return sh__kprobe_lookup(ctx, FS_TWIN_CAST);
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_lookup, long ret)
{
	return sh__lookup_exit((int)ret, false);
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_lookup_cast, long ret)
{
	return sh__lookup_exit((int)ret, FS_TWIN_CAST);
}

/*
 * The page cache's batch lookup, where a read takes its folios in
 * batches (filemap_get_folios_contig): one lookup of the read in flight
 * on the batch's file, and the size of each folio it returned, as the
 * lookups of one folio count theirs. Other callers' batches, and those of
 * other files, leave after the record's test.
 */
static __always_inline void sh__batch(__u64 inode, struct folio_batch *fb,
				      long nr)
{
	struct sh_call *c = sh__current();
	struct fs_stats *st;

	if (!c || (c->inode != inode && !fs_drop(FS_DROP_FILE)))
		return;
	st = stats__at(c->h.by_slot);
	if (!st || nr < 0)
		return;
	c->lookups++;
	if (c->to && !lean) {
		sh__chunk(st, c, sh__count(c, false));
		c->has_prev = SH_PREV_BATCH;
	}
	counter__inc(st, FS_SH_BATCHES);
	__sync_fetch_and_add(&st->counter[FS_SH_BATCH_FOLIOS], nr);
	for (int i = 0; i < FS_BATCH_MAX && i < nr; i++) {
		__u64 folio = (__u64)BPF_CORE_READ(fb, folios[i]);

		if (!folio || folio == c->last_folio)
			continue;
		c->last_folio = folio;
		hist__add(st, FS_SH_FOLIO_SIZE,
			  folio__bytes((void *)folio, false, false));
	}
}

SEC("fexit")
int BPF_PROG(fexit_batch, struct address_space *mapping, unsigned long *start,
	     unsigned long end, struct folio_batch *fbatch, unsigned int ret)
{
	sh__batch((__u64)mapping->host, fbatch, ret);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(kprobe_batch, struct address_space *mapping,
	       unsigned long *start, unsigned long end,
	       struct folio_batch *fbatch)
{
	struct sh_call *c = sh__current();

	if (c) {
		c->batch = (__u64)fbatch;
		c->batch_inode = (__u64)BPF_CORE_READ(mapping, host);
	}
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_batch, long ret)
{
	struct sh_call *c = sh__current();

	if (!c || !c->batch)
		return 0;
	sh__batch(c->batch_inode, (struct folio_batch *)c->batch,
		  (unsigned int)ret);
	c->batch = 0;
	return 0;
}

/*
 * The lookup inlined into the read loop: an entry program at each inline
 * site's entry (the cookie is the site's index) and an exit program at
 * each of its exit targets (cookie: site * FS_INLINE_MAX_EXITS + exit).
 * The inlined lookup writes the loop's own folio variable instead of
 * going through a pointer, so the folio is that variable where each exit
 * lands (user space, from DWARF); a hole or a failed lookup leaves it
 * NULL there, as the function would through the pointer.
 */
const volatile struct fs_fetch lookup_inline_fetch[FS_INLINE_MAX_SITES]
						  [FS_INLINE_NARGS] = {};
const volatile struct fs_fetch
	lookup_inline_exit_fetch[FS_INLINE_MAX_SITES *
				 FS_INLINE_MAX_EXITS] = {};

_Static_assert((FS_INLINE_MAX_SITES & (FS_INLINE_MAX_SITES - 1)) == 0 &&
		       (FS_INLINE_MAX_EXITS & (FS_INLINE_MAX_EXITS - 1)) == 0,
	       "the inline fetch tables are indexed by masking");

/* Marks a lookup in flight at an inline site (no out-pointer to keep). */
#define SH_FOLIOP_INLINE 1

SEC("kprobe")
int kprobe_lookup_inline_entry(struct pt_regs *ctx)
{
	__u32 site = (__u32)bpf_get_attach_cookie(ctx);
	__u64 inode = 0;

	fs_opaque(site);
	site &= FS_INLINE_MAX_SITES - 1;
	if (!fetch__do(ctx, &lookup_inline_fetch[site][0], &inode))
		return 0;
	return sh__lookup_enter(inode, SH_FOLIOP_INLINE, false);
}

/* An exit target: other paths of the loop run through it too, so only a
 * lookup of this read that entered a site and has not left counts. */
SEC("kprobe")
int kprobe_lookup_inline_exit(struct pt_regs *ctx)
{
	__u32 i = (__u32)bpf_get_attach_cookie(ctx);
	struct fs_stats *st;
	struct sh_call *c;
	__u64 folio = 0;

	c = sh__current();
	if (!c || c->foliop != SH_FOLIOP_INLINE)
		return 0;
	st = stats__at(c->h.by_slot);
	if (!st)
		return 0;
	fs_opaque(i);
	i &= FS_INLINE_MAX_SITES * FS_INLINE_MAX_EXITS - 1;
	fetch__do(ctx, &lookup_inline_exit_fetch[i], &folio);
	sh__lookup_folio(st, c, folio, false);
	return 0;
}

/*
 * Syscall level: read/pread64/readv/preadv/preadv2 on tmpfs files, told
 * apart by the superblock magic. One such syscall is one
 * shmem_file_read_iter call; folio lookups and copies are invisible here.
 * x86-64 syscalls only: those of 32-bit (compat) tasks are counted apart.
 */
#define TMPFS_MAGIC 0x01021994
#define S_IFMT 00170000
#define S_IFREG 0100000

/*
 * The f_op every regular tmpfs file has (shmem_file_operations, which
 * /proc/kallsyms lists only on kernels built with KALLSYMS_ALL), learned
 * from the first file that passed the full checks below. Once known, a
 * read of any other file leaves after two reads, the fd's file and its
 * f_op, and a tmpfs read needs no inode or superblock unless a file
 * filter asks for them.
 */
__u64 shmem_fops = 0;

/*
 * Until then: the inode's head (mode and superblock), the superblock's
 * magic and the inode's i_fop. Regular files only: a fifo, socket or
 * device node on tmpfs (or devtmpfs) is not read by
 * shmem_file_read_iter. And only a file opened with its inode's i_fop: an
 * O_PATH descriptor has empty_fops (its read fails before any read_iter),
 * which must not be learned.
 */
static __always_inline bool sh__sys_file(long fd, struct file **fp)
{
	struct super_block *sb = NULL;
	struct inode *ino;
	struct file *f;
	__u64 fop;
	__u32 mode;

	*fp = f = fd__file(fd);
	if (!f)
		return false;
	fop = (__u64)BPF_CORE_READ(f, f_op);
	if (shmem_fops)
		return fop == shmem_fops && filter__file(f);
	ino = BPF_CORE_READ(f, f_inode);
	if (inode__mode_sb(ino, &mode, &sb) || (mode & S_IFMT) != S_IFREG ||
	    BPF_CORE_READ(sb, s_magic) != TMPFS_MAGIC ||
	    (__u64)BPF_CORE_READ(ino, i_fop) != fop)
		return false;
	shmem_fops = fop;
	return !filter_files || filter__file_sb(sb);
}

/* What a read syscall asks for, from its arguments: bytes, the first
 * buffer, whether past FS_MAX_IOVECS, and whether its position is an
 * argument (r10). Where it is not, it is the file's, which the caller
 * reads: at the entry as it is, at the exit moved by what was read. */
struct sh_sysreq {
	__u64 req, buf;
	bool positioned, has_buf, beyond;
};

static __always_inline void sh__sys_req(const struct fs_sysargs *a, long id,
					struct sh_sysreq *q)
{
	struct iovec iov;

	/* pread64 always, preadv/preadv2 unless offset -1: at the argument. */
	q->positioned = id == FS_NR_PREAD64 ||
			((id == FS_NR_PREADV || id == FS_NR_PREADV2) &&
			 (long)a->r10 != -1);
	if (id == FS_NR_READ || id == FS_NR_PREAD64) {
		q->buf = a->si;
		q->req = a->dx;
		q->has_buf = true;
		return;
	}
	/* Past FS_MAX_IOVECS the call still counts, with req_bytes of the
	 * first ones: counted apart, not hidden. */
	q->beyond = a->dx > FS_MAX_IOVECS;
	for (int i = 0; i < FS_MAX_IOVECS && i < a->dx; i++) {
		if (bpf_probe_read_user(&iov, sizeof(iov),
					(void *)(a->si + i * sizeof(iov))))
			break;
		if (!i) {
			q->buf = (__u64)iov.iov_base;
			q->has_buf = true;
		}
		q->req += iov.iov_len;
	}
}

static __always_inline int sh__sys_enter(const struct fs_sysargs *a, long id)
{
	struct sh_sysreq q = {};
	struct fs_stats *st;
	struct sh_call *c;
	struct file *f = NULL;

	/* Bench: without the checks, every read is taken as a tmpfs read,
	 * read and readv at position 0. */
	if (!fs_drop(FS_DROP_FILE) && !sh__sys_file(a->di, &f)) {
		sh__skip(false);
		return 0;
	}
	c = sh__claim();
	if (!c)
		return 0;
	sh__sys_req(a, id, &q);
	if (q.positioned)
		c->pos = a->r10;
	else if (f)
		c->pos = BPF_CORE_READ(f, f_pos);
	c->req = q.req;
	c->buf = q.buf;
	c->has_buf = q.has_buf && !lean;
	if (q.beyond) {
		st = stats__at(c->h.by_slot);
		if (st)
			counter__inc(st, FS_SH_IOV_BEYOND);
	}
	/* The file for an event's path: its inode and fd. */
	if (ev_on) {
		c->ev = (struct sh_ev){ .fd = a->di, .has_fd = !!f };
		if (f)
			c->inode = (__u64)BPF_CORE_READ(f, f_inode);
	}
	c->h.ts = fs_now();
	return 0;
}

/*
 * --lean's syscall exit alone: the arguments are still in the registers
 * the task entered with (the kernel returns its result in ax and leaves
 * the argument registers alone), and the fd is looked up now. A read
 * whose fd another thread closed or replaced meanwhile is judged by the
 * file the fd holds at the exit.
 */
static __always_inline int sh__sys_exit_alone(long id, long ret)
{
	struct sh_sysreq q = {};
	struct fs_sysargs a = {};
	struct fs_stats *st;
	struct pt_regs *regs;
	struct file *f = NULL;
	__u64 pos = 0;

	if (!filter__pass())
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	a.di = regs->di;
	a.si = regs->si;
	a.dx = regs->dx;
	a.r10 = regs->r10;
	if (!fs_drop(FS_DROP_FILE) && !sh__sys_file(a.di, &f))
		return 0;
	st = stats__get();
	if (!st)
		return 0;
	sh__sys_req(&a, id, &q);
	if (q.positioned)
		pos = a.r10;
	else if (f)
		pos = BPF_CORE_READ(f, f_pos) - sh__done(ret);
	if (q.beyond)
		counter__inc(st, FS_SH_IOV_BEYOND);
	return sh__count_alone(st, pos, q.req, ret);
}

static __always_inline bool sh__is_read(long id)
{
	return id == FS_NR_READ || id == FS_NR_PREAD64 || id == FS_NR_READV ||
	       id == FS_NR_PREADV || id == FS_NR_PREADV2;
}

static __always_inline bool sh__is_read32(long id)
{
	return id == FS_NR32_READ || id == FS_NR32_PREAD64 ||
	       id == FS_NR32_READV || id == FS_NR32_PREADV ||
	       id == FS_NR32_PREADV2;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter_sh, struct pt_regs *regs, long id)
{
	bool read64 = sh__is_read(id);
	struct fs_sysargs a;
	struct fs_stats *st;

	if ((!read64 && !sh__is_read32(id)) || !filter__pass())
		return 0;
	/* A 32-bit task's syscall whose number is a read in either table:
	 * not decoded, counted. */
	if (sys__compat()) {
		st = stats__get();
		if (st)
			counter__inc(st, FS_SH_COMPAT);
		return 0;
	}
	if (!read64)
		return 0;
	if (sysargs__read(regs, &a)) {
		sh__skip(false);
		return 0;
	}
	return sh__sys_enter(&a, id);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit_sh, struct pt_regs *regs, long ret)
{
	/* Every syscall exits here: leave before the map lookup. The
	 * process filters run in inflight__close, for threads with a record. */
	if (!sh__is_read(BPF_CORE_READ(regs, orig_ax)) || sys__compat())
		return 0;
	return sh__exit(ret, NULL, false);
}

/*
 * The same on the per-syscall tracepoints of the five reads: attached to
 * those alone, so every other syscall runs no program of ours. Their
 * record carries the syscall's number and arguments; the kernel does not
 * run them for a 32-bit task's syscalls.
 */
SEC("tracepoint")
int tp_enter_sh(struct syscall_trace_enter *ctx)
{
	struct fs_sysargs a = {};

	if (!filter__pass())
		return 0;
	a.di = ctx->args[0];
	a.si = ctx->args[1];
	a.dx = ctx->args[2];
	a.r10 = ctx->args[3];
	return sh__sys_enter(&a, ctx->nr);
}

/* read and readv: the kernel refuses a program that reads past their
 * record's third argument. */
SEC("tracepoint")
int tp_enter_sh3(struct syscall_trace_enter *ctx)
{
	struct fs_sysargs a = {};

	if (!filter__pass())
		return 0;
	a.di = ctx->args[0];
	a.si = ctx->args[1];
	a.dx = ctx->args[2];
	return sh__sys_enter(&a, ctx->nr);
}

SEC("tracepoint")
int tp_exit_sh(struct syscall_trace_exit *ctx)
{
	if (exit_only)
		return sh__sys_exit_alone(ctx->nr, ctx->ret);
	return sh__exit(ctx->ret, NULL, false);
}

/* The in-flight store's move of a migrating thread's record (FS_STORE_CPU;
 * attached only then). */
SEC("raw_tp/sched_migrate_task")
int BPF_PROG(inflight_migrate, struct task_struct *p, int dest_cpu)
{
	return inflight__migrate(&inflight, &inflight_cpu, p, FS_SH_DROPPED);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
