// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Work dirs a killed vm left (src/vm/stale.c): only real dirs named
 * folioscope-vm-PID.XXXXXX whose PID is no live folioscope are removed.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "vm/vm_internal.h"

static char tmp[] = "/tmp/test-vm-stale-XXXXXX";

static void make_dir(const char *name, bool with_file)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	assert_int_equal(mkdir(path, 0700), 0);
	if (!with_file)
		return;
	snprintf(path, sizeof(path), "%s/%s/qemu.log", tmp, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
}

static bool exists(const char *name)
{
	char path[256];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	return !lstat(path, &sb);
}

/* A pid that no longer exists: a reaped child's. */
static pid_t dead_pid(void)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return pid;
}

static void test_clean(void **state)
{
	char dead[64], mine[64], live[64], path[256];
	int status, fd, ready[2];
	pid_t child;
	char c;

	assert_non_null(mkdtemp(tmp));
	snprintf(dead, sizeof(dead), VM_WORKDIR_TAG "%d.Ab12Cd", dead_pid());
	snprintf(mine, sizeof(mine), VM_WORKDIR_TAG "%d.Ab12Cd", getpid());
	/* A live folioscope: a child given that name (then it says so). */
	assert_int_equal(pipe(ready), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		prctl(PR_SET_NAME, "folioscope");
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	snprintf(live, sizeof(live), VM_WORKDIR_TAG "%d.Ab12Cd", child);
	make_dir(dead, true);
	make_dir(mine, false);
	make_dir(live, false);
	/* Not ours: the old name, a short suffix, a file, a symlink. */
	make_dir("folioscope-vm.Ab12Cd", false);
	make_dir(VM_WORKDIR_TAG "1.Ab12C", false);
	snprintf(path, sizeof(path), "%s/" VM_WORKDIR_TAG "1.file00", tmp);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/" VM_WORKDIR_TAG "1.link00", tmp);
	assert_int_equal(symlink(tmp, path), 0);

	assert_int_equal(vm_stale__clean(tmp), 1);
	assert_false(exists(dead));
	assert_true(exists(mine));
	assert_true(exists(live));
	assert_true(exists("folioscope-vm.Ab12Cd"));
	assert_true(exists(VM_WORKDIR_TAG "1.Ab12C"));
	assert_true(exists(VM_WORKDIR_TAG "1.file00"));
	assert_true(exists(VM_WORKDIR_TAG "1.link00"));
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(vm_stale__clean(tmp), 1);
	assert_false(exists(live));
	assert_int_equal(vm_stale__clean(tmp), 0);
	snprintf(path, sizeof(path), "rm -rf '%s'", tmp);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
