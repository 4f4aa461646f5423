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

/*
 * Each syscall number's slot, plus one (0: no target traces it), looked
 * up in one bounded load: a syscall no target traces (nearly every one)
 * costs a compare and a load instead of a compare per traced number.
 * Entries take both tables' numbers: a 32-bit task's calls are told
 * apart (and counted) by the target's program; no i386 number of one
 * target is an x86-64 number of the other. The targets' exits decode
 * only x86-64 numbers.
 */
#define SLOT(s) ((s) + 1)
static const __u8 enter_slot[FS_SYSRAW_NR_MAX] = {
	[FS_NR_READ] = SLOT(FS_SYSRAW_SH_ENTER),
	[FS_NR_PREAD64] = SLOT(FS_SYSRAW_SH_ENTER),
	[FS_NR_READV] = SLOT(FS_SYSRAW_SH_ENTER),
	[FS_NR_PREADV] = SLOT(FS_SYSRAW_SH_ENTER),
	[FS_NR_PREADV2] = SLOT(FS_SYSRAW_SH_ENTER),
	[FS_NR32_READ] = SLOT(FS_SYSRAW_SH_ENTER),
	[FS_NR32_PREAD64] = SLOT(FS_SYSRAW_SH_ENTER),
	[FS_NR32_READV] = SLOT(FS_SYSRAW_SH_ENTER),
	[FS_NR32_PREADV] = SLOT(FS_SYSRAW_SH_ENTER),
	[FS_NR32_PREADV2] = SLOT(FS_SYSRAW_SH_ENTER),
	[FS_NR_IOCTL] = SLOT(FS_SYSRAW_DD_ENTER),
	[FS_NR32_IOCTL] = SLOT(FS_SYSRAW_DD_ENTER),
};
static const __u8 exit_slot[FS_SYSRAW_NR_MAX] = {
	[FS_NR_READ] = SLOT(FS_SYSRAW_SH_EXIT),
	[FS_NR_PREAD64] = SLOT(FS_SYSRAW_SH_EXIT),
	[FS_NR_READV] = SLOT(FS_SYSRAW_SH_EXIT),
	[FS_NR_PREADV] = SLOT(FS_SYSRAW_SH_EXIT),
	[FS_NR_PREADV2] = SLOT(FS_SYSRAW_SH_EXIT),
	[FS_NR_IOCTL] = SLOT(FS_SYSRAW_DD_EXIT),
};

static __always_inline int sysraw__dispatch(u64 *ctx, const __u8 *slots,
					    long id)
{
	__u8 s;

	if ((__u64)id >= FS_SYSRAW_NR_MAX)
		return 0;
	s = slots[id];
	if (s)
		bpf_tail_call(ctx, &handlers, s - 1);
	return 0;
}

SEC("raw_tp/sys_enter")
int sys_enter_all(u64 *ctx)
{
	return sysraw__dispatch(ctx, enter_slot, (long)ctx[1]);
}

/*
 * sys_exit has the return value, not the number: the saved orig_ax. The
 * targets' exits decode only x86-64 numbers. Every syscall of every task
 * runs this, so its read is the tracer's whole cost on a syscall it does
 * not trace. Through bpf_rdonly_cast (6.2 on) it is one load, as cheap as
 * an empty program. Before that, the task's saved registers
 * (bpf_task_pt_regs, 5.15 on) are a typed pointer the program loads
 * from directly, after two helpers that only compute addresses; through
 * bpf_probe_read_kernel, where the kernel has neither, it is a copy that
 * guards against faults: on 6.1 under qemu -icount, 70 instructions more
 * per getppid than through the saved registers. User space loads the
 * first of the three the kernel takes.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

SEC("raw_tp/sys_exit")
int sys_exit_all(u64 *ctx)
{
	struct pt_regs *regs = bpf_rdonly_cast(
		(void *)ctx[0], bpf_core_type_id_kernel(struct pt_regs));

	return sysraw__dispatch(ctx, exit_slot, regs->orig_ax);
}

SEC("raw_tp/sys_exit")
int sys_exit_task(u64 *ctx)
{
	struct pt_regs *regs =
		(struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	return sysraw__dispatch(ctx, exit_slot, regs->orig_ax);
}

SEC("raw_tp/sys_exit")
int sys_exit_helper(u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];

	return sysraw__dispatch(ctx, exit_slot, BPF_CORE_READ(regs, orig_ax));
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
