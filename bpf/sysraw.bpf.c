// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The raw sys_enter/sys_exit tracepoints, for kernels without per-syscall
 * ones: one program per direction for both targets. Every syscall of
 * every task runs them, so each leaves after a compare for a syscall no
 * target traces, and hands the others to the target's own program (a
 * tail call into the slot its probe filled; an empty slot returns).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "shared.h"

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, FS_SYSRAW_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} handlers SEC(".maps");

/* Numbers in either table: a 32-bit task's are told apart (and counted)
 * by the target's program. */
static __always_inline bool is_read(long id)
{
	return id == FS_NR_READ || id == FS_NR_PREAD64 || id == FS_NR_READV ||
	       id == FS_NR_PREADV || id == FS_NR_PREADV2 ||
	       id == FS_NR32_READ || id == FS_NR32_PREAD64 ||
	       id == FS_NR32_READV || id == FS_NR32_PREADV ||
	       id == FS_NR32_PREADV2;
}

SEC("raw_tp/sys_enter")
int sys_enter_all(u64 *ctx)
{
	long id = (long)ctx[1];

	if (is_read(id))
		bpf_tail_call(ctx, &handlers, FS_SYSRAW_SH_ENTER);
	else if (id == FS_NR_IOCTL || id == FS_NR32_IOCTL)
		bpf_tail_call(ctx, &handlers, FS_SYSRAW_DD_ENTER);
	return 0;
}

/*
 * sys_exit has the return value, not the number: the saved orig_ax. The
 * targets' exits decode only x86-64 numbers. Every syscall of every task
 * runs this, so its read is the tracer's whole cost on a syscall it does
 * not trace: through bpf_rdonly_cast (6.2 on) it is one load, as cheap as
 * an empty program; through bpf_probe_read_kernel, where the kernel lacks
 * that kfunc, it is a helper call (about 30 ns more per syscall on a
 * 6.18 AMD host). User space loads one of the two.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

static __always_inline int sys_exit__dispatch(u64 *ctx, long id)
{
	if (id == FS_NR_READ || id == FS_NR_PREAD64 || id == FS_NR_READV ||
	    id == FS_NR_PREADV || id == FS_NR_PREADV2)
		bpf_tail_call(ctx, &handlers, FS_SYSRAW_SH_EXIT);
	else if (id == FS_NR_IOCTL)
		bpf_tail_call(ctx, &handlers, FS_SYSRAW_DD_EXIT);
	return 0;
}

SEC("raw_tp/sys_exit")
int sys_exit_all(u64 *ctx)
{
	struct pt_regs *regs = bpf_rdonly_cast(
		(void *)ctx[0], bpf_core_type_id_kernel(struct pt_regs));

	return sys_exit__dispatch(ctx, regs->orig_ax);
}

SEC("raw_tp/sys_exit")
int sys_exit_helper(u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];

	return sys_exit__dispatch(ctx, BPF_CORE_READ(regs, orig_ax));
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
