// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * For tests/host/profile.sh: runs under qemu-x86_64 with the insncount
 * plugin, its marker being mark(). Between the first two marks spin()
 * runs 1000 times, between the next two 3000 times: the plugin's two
 * windows must count spin's block (three nops and a ret) that often.
 * No libc, so that nothing else calls either function.
 */
__attribute__((noinline, used)) void mark(void)
{
	__asm__ volatile("");
}

__attribute__((noinline, used)) void spin(void)
{
	__asm__ volatile("nop\n\tnop\n\tnop");
}

static void spins(int n)
{
	for (int i = 0; i < n; i++)
		spin();
}

void _start(void)
{
	mark();
	spins(1000);
	mark();
	spins(3000);
	mark();
	__asm__ volatile("mov $60, %eax\n\txor %edi, %edi\n\tsyscall");
	__builtin_unreachable();
}
