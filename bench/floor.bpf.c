// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The floor of the overhead benchmark: empty programs, one entry/exit
 * pair per mechanism. What a tracer of that mechanism cannot avoid
 * paying per call (trampoline or kprobe dispatch, raw tracepoint call).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("fentry")
int fentry_empty(void *ctx)
{
	return 0;
}

SEC("fexit")
int fexit_empty(void *ctx)
{
	return 0;
}

SEC("kprobe")
int kprobe_empty(void *ctx)
{
	return 0;
}

SEC("kretprobe")
int kretprobe_empty(void *ctx)
{
	return 0;
}

SEC("raw_tp/sys_enter")
int sys_enter_empty(void *ctx)
{
	return 0;
}

SEC("raw_tp/sys_exit")
int sys_exit_empty(void *ctx)
{
	return 0;
}

/* Attached to each per-syscall tracepoint the syscall-level plan uses. */
SEC("tracepoint")
int tp_empty(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
