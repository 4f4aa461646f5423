/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The raw sys_enter/sys_exit pair both targets share at the syscall level
 * when the kernel has no per-syscall tracepoints: one program per
 * direction, which hands a target's syscalls to that target's programs.
 */
#ifndef FS_SYSRAW_H
#define FS_SYSRAW_H

#include <linux/types.h>

/*
 * Put entry_fd and exit_fd in slots slot and slot + 1 (FS_SYSRAW_*),
 * loading and attaching the pair first if no target uses it yet
 * (btf_path: --btf, or NULL). Returns 0 or -errno.
 */
int sysraw__add(int slot, int entry_fd, int exit_fd, const char *btf_path);
/* Empty the two slots; the last user detaches the pair. */
void sysraw__remove(int slot);

#endif /* FS_SYSRAW_H */
