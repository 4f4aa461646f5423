// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DWARF of a kernel someone built: vm --kernel BZIMAGE --debuginfo hands
 * the guest the vmlinux that make built with that bzImage. Where it sits
 * depends on who built it:
 *   DIR/bzImage + DIR/linux/vmlinux        tests/kernels/build.sh's cache
 *                                          entry (and build/kernels/NAME,
 *                                          a link to one)
 *   TREE/arch/x86/boot/bzImage + TREE/vmlinux   a kernel source tree
 *   DIR/bzImage + DIR/vmlinux              both copied side by side
 * Only an ELF file is taken; whether its DWARF and build ID belong to the
 * booted kernel is for the guest to tell (doctor compares the build ID
 * with /sys/kernel/notes), since the bzImage holds it compressed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "util/err.h"
#include "vm.h"
#include "vm_internal.h"

#define TREE_BOOT "/arch/x86/boot"

/* 0 for a regular ELF file, else a negative errno (-ENOEXEC: not ELF). */
static int elf__check(const char *path)
{
	unsigned char magic[4];
	struct stat st;
	ssize_t got;
	int fd, err;

	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EISDIR;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	got = read(fd, magic, sizeof(magic));
	err = got < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	if (got != sizeof(magic) || memcmp(magic, "\177ELF", 4))
		return -ENOEXEC;
	return 0;
}

int vm__built_debuginfo(const char *bzimage, char *vmlinux, size_t n)
{
	char dir[PATH_MAX], cand[3][PATH_MAX];
	const char *slash = strrchr(bzimage, '/');
	size_t len, nc = 0, i, bad = 0;
	int err, first = -ENOENT;

	if (!slash)
		vm_fs__fmt(dir, sizeof(dir), ".");
	else if (vm_fs__fmt(dir, sizeof(dir), "%.*s", (int)(slash - bzimage),
			    bzimage))
		return -ENAMETOOLONG;
	if (!dir[0])
		vm_fs__fmt(dir, sizeof(dir), "/");
	len = strlen(dir);
	if (vm_fs__fmt(cand[nc++], PATH_MAX, "%s/linux/vmlinux", dir))
		return -ENAMETOOLONG;
	if (len > strlen(TREE_BOOT) &&
	    !strcmp(dir + len - strlen(TREE_BOOT), TREE_BOOT) &&
	    vm_fs__fmt(cand[nc++], PATH_MAX, "%.*s/vmlinux",
		       (int)(len - strlen(TREE_BOOT)), dir))
		return -ENAMETOOLONG;
	if (vm_fs__fmt(cand[nc++], PATH_MAX, "%s/vmlinux", dir))
		return -ENAMETOOLONG;
	for (i = 0; i < nc; i++) {
		err = elf__check(cand[i]);
		if (!err)
			return vm_fs__fmt(vmlinux, n, "%s", cand[i])
				       ? -ENAMETOOLONG
				       : 0;
		/* The first file that exists but is unusable says why. */
		if (err != -ENOENT && first == -ENOENT) {
			first = err;
			bad = i;
		}
	}
	if (first == -ENOEXEC)
		err__print("vm", 0, "--debuginfo: '%s' is not an ELF file",
			   cand[bad]);
	else if (first != -ENOENT)
		err__print("vm", first, "--debuginfo: cannot read '%s'",
			   cand[bad]);
	else
		err__print("vm", 0,
			   "--debuginfo: no vmlinux built with '%s' (none of "
			   "%s, %s%s%s)",
			   bzimage, cand[0], cand[1], nc > 2 ? ", " : "",
			   nc > 2 ? cand[2] : "");
	return first;
}
