// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which vmlinux vm --kernel BZIMAGE --debuginfo hands the guest
 * (src/vm/built.c): make kernel's cache entry, a source tree, or one
 * beside the bzImage; only an ELF file, and one line when there is none.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "vm/vm.h"
#include "vm/vm_internal.h"

static char tmp[] = "/tmp/test-vm-built-XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	assert_int_equal(vm_fs__mkdir_parents(path, 0755), 0);
	assert_int_equal(vm_fs__write_file(path, text, strlen(text), 0644), 0);
}

static int found(const char *bz_rel, char *out, size_t n)
{
	char bz[PATH_MAX];

	snprintf(bz, sizeof(bz), "%s/%s", tmp, bz_rel);
	return vm__built_debuginfo(bz, out, n);
}

static void expect(const char *bz_rel, const char *want_rel)
{
	char got[PATH_MAX], want[PATH_MAX];

	snprintf(want, sizeof(want), "%s/%s", tmp, want_rel);
	assert_int_equal(found(bz_rel, got, sizeof(got)), 0);
	assert_string_equal(got, want);
}

static int setup(void **state)
{
	assert_non_null(mkdtemp(tmp));
	return 0;
}

static int teardown(void **state)
{
	assert_int_equal(tree__remove(tmp, 0), 0);
	return 0;
}

static void test_cache_entry(void **state)
{
	char link[PATH_MAX];

	put("built/base-1/bzImage", "HdrS");
	put("built/base-1/linux/vmlinux", "\177ELF rest");
	/* The tree's vmlinux, not the tree's own bzImage's neighbour. */
	put("built/base-1/vmlinux", "\177ELF other");
	expect("built/base-1/bzImage", "built/base-1/linux/vmlinux");
	/* build/kernels/NAME is a link to the entry: the path goes through
	 * it as given. */
	snprintf(link, sizeof(link), "%s/base", tmp);
	assert_int_equal(symlink("built/base-1", link), 0);
	expect("base/bzImage", "base/linux/vmlinux");
}

static void test_source_tree(void **state)
{
	put("tree/arch/x86/boot/bzImage", "HdrS");
	put("tree/vmlinux", "\177ELF");
	expect("tree/arch/x86/boot/bzImage", "tree/vmlinux");
}

static void test_beside(void **state)
{
	put("copy/bzImage", "HdrS");
	put("copy/vmlinux", "\177ELF");
	expect("copy/bzImage", "copy/vmlinux");
}

static void test_refused(void **state)
{
	char got[PATH_MAX] = "";

	/* No vmlinux at all. */
	put("none/bzImage", "HdrS");
	assert_int_equal(found("none/bzImage", got, sizeof(got)), -ENOENT);
	/* A vmlinux that is not ELF is named, not skipped silently... */
	put("text/bzImage", "HdrS");
	put("text/linux/vmlinux", "not elf");
	assert_int_equal(found("text/bzImage", got, sizeof(got)), -ENOEXEC);
	/* ...unless a later place has an ELF one. */
	put("text/vmlinux", "\177ELF");
	expect("text/bzImage", "text/vmlinux");
	/* A directory where the file should be. */
	put("dir/bzImage", "HdrS");
	put("dir/linux/vmlinux/x", "");
	assert_int_equal(found("dir/bzImage", got, sizeof(got)), -EISDIR);
	/* A file shorter than the ELF magic. */
	put("short/bzImage", "HdrS");
	put("short/vmlinux", "\177E");
	assert_int_equal(found("short/bzImage", got, sizeof(got)), -ENOEXEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cache_entry),
		cmocka_unit_test(test_source_tree),
		cmocka_unit_test(test_beside),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
