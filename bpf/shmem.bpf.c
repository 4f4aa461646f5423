// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tmpfs read (shmem_file_read_iter) probes, plus the copies to user space
 * made inside it (copy_page_to_iter, also reached from copy_folio_to_iter
 * on kernels with folio-sized copies).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common.bpf.h"

struct sh_call {
	__u64 ts;
	__u64 pos;
	__u64 req;
	__u64 buf;      /* user buffer address, 0 when not a user iter */
	__u64 last_folio; /* count each folio once per call */
	__u32 has_buf;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u64);
	__type(value, struct sh_call);
} inflight SEC(".maps");

/* iov_iter before 5.14: bit-flag "type"; before 6.4: "iov". */
struct iov_iter___v513 {
	unsigned int type;
} __attribute__((preserve_access_index));

struct iov_iter___v63 {
	const struct iovec *iov;
} __attribute__((preserve_access_index));

/*
 * Address the next byte will be copied to, for user-memory iterators
 * (ITER_UBUF since 6.0, used by read(2); ITER_IOVEC for readv). Enum
 * values differ between versions, so they come from the target's BTF.
 */
static __always_inline bool iter__user_addr(struct iov_iter *it, __u64 *addr)
{
	__u64 off = BPF_CORE_READ(it, iov_offset);
	const struct iovec *iov;
	__u32 type;

	if (bpf_core_field_exists(it->iter_type))
		type = BPF_CORE_READ(it, iter_type);
	else
		type = BPF_CORE_READ((struct iov_iter___v513 *)it, type) & ~1U;

	if (bpf_core_enum_value_exists(enum iter_type, ITER_UBUF) &&
	    type == bpf_core_enum_value(enum iter_type, ITER_UBUF)) {
		*addr = (__u64)BPF_CORE_READ(it, ubuf) + off;
		return true;
	}
	if (type != bpf_core_enum_value(enum iter_type, ITER_IOVEC))
		return false;
	if (bpf_core_field_exists(it->__iov))
		iov = BPF_CORE_READ(it, __iov);
	else
		iov = BPF_CORE_READ((struct iov_iter___v63 *)it, iov);
	*addr = (__u64)BPF_CORE_READ(iov, iov_base) + off;
	return true;
}

static __always_inline int sh__enter(struct kiocb *iocb, struct iov_iter *to)
{
	__u64 tid = bpf_get_current_pid_tgid();
	struct sh_call c = {};

	if (!filter__pass())
		return 0;
	c.pos = BPF_CORE_READ(iocb, ki_pos);
	c.req = BPF_CORE_READ(to, count);
	c.has_buf = iter__user_addr(to, &c.buf);
	c.ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&inflight, &tid, &c, BPF_ANY);
	return 0;
}

static __always_inline int sh__exit(long ret)
{
	__u64 tid = bpf_get_current_pid_tgid();
	struct fs_stats *st;
	struct sh_call *c;

	c = bpf_map_lookup_elem(&inflight, &tid);
	if (!c)
		return 0;
	st = stats__get();
	if (!st)
		goto out;
	counter__inc(st, FS_SH_CALLS);
	hist__add(st, FS_SH_LATENCY, bpf_ktime_get_ns() - c->ts);
	hist__add(st, FS_SH_REQ_BYTES, c->req);
	hist__add_align(st, FS_SH_POS_ALIGN, c->pos);
	if (c->has_buf)
		hist__add_align(st, FS_SH_BUF_ALIGN, c->buf);
	if (ret < 0)
		counter__inc(st, FS_SH_ERRORS);
	else
		hist__add(st, FS_SH_BYTES, ret);
out:
	bpf_map_delete_elem(&inflight, &tid);
	return 0;
}

/* One copy to user space; only counted inside a traced shmem read. */
static __always_inline int sh__copy(const void *page, __u64 bytes)
{
	__u64 tid = bpf_get_current_pid_tgid();
	struct fs_stats *st;
	struct sh_call *c;
	__u64 head, ch;

	c = bpf_map_lookup_elem(&inflight, &tid);
	if (!c)
		return 0;
	st = stats__get();
	if (!st)
		return 0;
	hist__add(st, FS_SH_COPY_BYTES, bytes);
	ch = BPF_CORE_READ((struct page *)page, compound_head);
	head = ch & 1 ? ch - 1 : (__u64)page;
	if (head != c->last_folio) {
		c->last_folio = head;
		hist__add(st, FS_SH_FOLIO_SIZE, folio__bytes(page));
	}
	return 0;
}

SEC("fentry")
int BPF_PROG(fentry_read, struct kiocb *iocb, struct iov_iter *to)
{
	return sh__enter(iocb, to);
}

SEC("fexit")
int BPF_PROG(fexit_read, struct kiocb *iocb, struct iov_iter *to, long ret)
{
	return sh__exit(ret);
}

SEC("kprobe")
int BPF_KPROBE(kprobe_read, struct kiocb *iocb, struct iov_iter *to)
{
	return sh__enter(iocb, to);
}

SEC("kretprobe")
int BPF_KRETPROBE(kretprobe_read, long ret)
{
	return sh__exit(ret);
}

/* copy_page_to_iter(struct page *page, size_t offset, size_t bytes, i) */
SEC("fentry")
int BPF_PROG(fentry_copy, struct page *page, size_t offset, size_t bytes)
{
	return sh__copy(page, bytes);
}

SEC("kprobe")
int BPF_KPROBE(kprobe_copy, struct page *page, size_t offset, size_t bytes)
{
	return sh__copy(page, bytes);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
