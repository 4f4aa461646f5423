// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The record of KVM failing here (src/vm/accel.c): it holds for one qemu
 * binary (path, size, mtime) on one host kernel and for nothing else,
 * and $FOLIOSCOPE_QEMU chooses the qemu.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <cmocka.h>
#include "vm/vm_internal.h"

static char tmp[] = "/tmp/test-vm-accel-XXXXXX";
static char qemu[PATH_MAX], link_path[PATH_MAX], record[PATH_MAX];

static void write_file(const char *path, const char *text, mode_t mode)
{
	assert_int_equal(vm_fs__write_file(path, text, strlen(text), mode), 0);
}

static int setup(void **state)
{
	assert_non_null(mkdtemp(tmp));
	snprintf(qemu, sizeof(qemu), "%s/bin/qemu-system-x86_64", tmp);
	snprintf(link_path, sizeof(link_path), "%s/qemu-link", tmp);
	snprintf(record, sizeof(record), "%s/cache/kvm-failed", tmp);
	assert_int_equal(vm_fs__mkdir_parents(qemu, 0755), 0);
	write_file(qemu, "#!/bin/sh\n", 0755);
	assert_int_equal(symlink(qemu, link_path), 0);
	return 0;
}

static int teardown(void **state)
{
	assert_int_equal(tree__remove(tmp, 0), 0);
	return 0;
}

static void test_key(void **state)
{
	struct vm_kvm_key k;
	struct utsname u;
	struct stat st;

	/* Through the symlink: the key names the file itself. */
	assert_int_equal(vm_kvm__key(link_path, &k), 0);
	assert_string_equal(k.qemu, qemu);
	assert_int_equal(stat(qemu, &st), 0);
	assert_int_equal(k.size, st.st_size);
	assert_int_equal(k.mtime_s, st.st_mtim.tv_sec);
	assert_int_equal(k.mtime_ns, st.st_mtim.tv_nsec);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(k.kernel, u.release);
	assert_true(vm_kvm__key("/nonexistent/qemu", &k) < 0);
}

static void test_record(void **state)
{
	struct vm_kvm_key k, other;
	char why[64];

	assert_int_equal(vm_kvm__key(qemu, &k), 0);
	assert_false(vm_kvm__recorded(record, &k, why, sizeof(why)));
	/* The cache dir is created on the way. */
	assert_int_equal(vm_kvm__record(record, &k, "qemu said no"), 0);
	strcpy(why, "unchanged");
	assert_true(vm_kvm__recorded(record, &k, why, sizeof(why)));
	assert_string_equal(why, "qemu said no");
	/* Truncated to the buffer, still a match. */
	assert_true(vm_kvm__recorded(record, &k, why, 5));
	assert_string_equal(why, "qemu");
	assert_true(vm_kvm__recorded(record, &k, NULL, 0));

	/* Any other qemu or kernel: no match. */
	other = k;
	strcat(other.qemu, "2");
	assert_false(vm_kvm__recorded(record, &other, NULL, 0));
	other = k;
	other.size++;
	assert_false(vm_kvm__recorded(record, &other, NULL, 0));
	other = k;
	other.mtime_s--;
	assert_false(vm_kvm__recorded(record, &other, NULL, 0));
	other = k;
	other.mtime_ns = (other.mtime_ns + 1) % 1000000000;
	assert_false(vm_kvm__recorded(record, &other, NULL, 0));
	other = k;
	strcpy(other.kernel, "6.1.0-other");
	assert_false(vm_kvm__recorded(record, &other, NULL, 0));

	/* A new record replaces the old one. */
	other = k;
	other.size++;
	assert_int_equal(vm_kvm__record(record, &other, "stalled"), 0);
	assert_false(vm_kvm__recorded(record, &k, NULL, 0));
	assert_true(vm_kvm__recorded(record, &other, why, sizeof(why)));
	assert_string_equal(why, "stalled");

	/* Not a record: no match. */
	write_file(record, "# a comment only\n", 0644);
	assert_false(vm_kvm__recorded(record, &other, NULL, 0));
	write_file(record, "", 0644);
	assert_false(vm_kvm__recorded(record, &other, NULL, 0));

	assert_int_equal(vm_kvm__forget(record), 0);
	assert_false(vm_fs__exists(record));
	assert_int_equal(vm_kvm__forget(record), 0);
}

static void test_paths(void **state)
{
	char buf[PATH_MAX], want[PATH_MAX + 16];
	char *path = getenv("PATH");
	char *saved = path ? strdup(path) : NULL;

	setenv("FOLIOSCOPE_CACHE", tmp, 1);
	assert_int_equal(vm_kvm__record_path(NULL, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/kvm-failed", tmp);
	assert_string_equal(buf, want);
	assert_int_equal(vm_kvm__record_path("/opt/c", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/opt/c/kvm-failed");
	unsetenv("FOLIOSCOPE_CACHE");

	/* qemu-system-x86_64 from PATH, or $FOLIOSCOPE_QEMU: a name looked
	 * up in PATH or a path taken as it is. */
	snprintf(want, sizeof(want), "%s/bin", tmp);
	setenv("PATH", want, 1);
	unsetenv("FOLIOSCOPE_QEMU");
	vm_qemu__find(buf, sizeof(buf));
	assert_string_equal(buf, qemu);
	setenv("FOLIOSCOPE_QEMU", link_path, 1);
	vm_qemu__find(buf, sizeof(buf));
	assert_string_equal(buf, link_path);
	setenv("FOLIOSCOPE_QEMU", "qemu-nonexistent", 1);
	vm_qemu__find(buf, sizeof(buf));
	assert_string_equal(buf, "qemu-nonexistent");
	unsetenv("FOLIOSCOPE_QEMU");
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_paths),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
