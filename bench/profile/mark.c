// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mark: exits at once. Linked without libc at a fixed address, so that
 * its first block is one the insncount plugin can tell from every other
 * the guest runs: each run snapshots the plugin's counts.
 */
void _start(void)
{
	__asm__ volatile("mov $60, %eax\n\txor %edi, %edi\n\tsyscall");
	__builtin_unreachable();
}
