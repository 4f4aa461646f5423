// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A 32-bit program for tests/host/syscalls.sh, built with gcc -m32
 * -static -nostdlib (no 32-bit libc needed). Through int 0x80 on the
 * tmpfs file argv[1]: an lseek (i386 number 19, x86-64's readv) whose
 * registers also hold what a readv of that file would (edi = fd,
 * esi = an iovec, edx = 1); a read (i386 3); an lchown (i386 16,
 * x86-64's ioctl) of no path with esi = FIDEDUPERANGE and edx = a valid
 * struct file_dedupe_range; and a real ioctl (i386 54) FIDEDUPERANGE.
 * Decoded with the x86-64 table, the lseek reads as a readv of the file
 * and the lchown as a dedupe; neither is one.
 */
#define NR32_EXIT 1
#define NR32_READ 3
#define NR32_OPEN 5
#define NR32_LCHOWN 16
#define NR32_LSEEK 19
#define NR32_IOCTL 54
#define FIDEDUPERANGE 0xC0189436

struct iovec32 {
	unsigned int base, len;
};

/* struct file_dedupe_range with one struct file_dedupe_range_info. */
struct dedupe32 {
	unsigned long long src_offset, src_length;
	unsigned short dest_count, reserved1;
	unsigned int reserved2;
	long long dest_fd;
	unsigned long long dest_offset, bytes_deduped;
	int status;
	unsigned int reserved;
};

static long sys32(long nr, long b, long c, long d, long si, long di)
{
	long r;

	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "a"(nr), "b"(b), "c"(c), "d"(d), "S"(si), "D"(di)
			 : "memory");
	return r;
}

static char buf[100];

void start_c(long *sp)
{
	const char *path = ((const char **)(sp + 1))[1];
	struct iovec32 iov = { (unsigned int)(long)buf, sizeof(buf) };
	struct dedupe32 d = { .src_length = 4096, .dest_count = 1 };
	long fd = sys32(NR32_OPEN, (long)path, 0, 0, 0, 0);

	if (fd < 0)
		sys32(NR32_EXIT, 2, 0, 0, 0, 0);
	d.dest_fd = fd;
	sys32(NR32_LSEEK, fd, 0, 1 /* SEEK_CUR */, (long)&iov, fd);
	sys32(NR32_READ, fd, (long)buf, sizeof(buf), 0, 0);
	/* No path: it fails with EFAULT and changes nothing. */
	sys32(NR32_LCHOWN, 0, -1, (long)&d, FIDEDUPERANGE, fd);
	sys32(NR32_IOCTL, fd, FIDEDUPERANGE, (long)&d, 0, 0);
	sys32(NR32_EXIT, 0, 0, 0, 0, 0);
}

/* The stack holds argc, then argv: hand its address to start_c. */
__asm__(".globl _start\n"
	"_start:\n"
	"	mov %esp, %eax\n"
	"	push %eax\n"
	"	call start_c\n");
