// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Stale workload dirs (src/workload/stale.c): which names count, which
 * processes are live runs, and that the clean-up removes only real dirs
 * of ours with those names, never what a symlink inside points to.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "workload/stale.h"

static void test_names(void **state)
{
	assert_true(wl__stale_name("folioscope-shmem-aB3xYz"));
	assert_true(wl__stale_name("folioscope-dedupe-000000"));
	assert_true(wl__stale_name("folioscope-ops-Qw12Er"));
	assert_false(wl__stale_name("folioscope-ops-Qw12E"));
	assert_false(wl__stale_name("folioscope-shmem-aB3xY"));
	assert_false(wl__stale_name("folioscope-shmem-aB3xYz0"));
	assert_false(wl__stale_name("folioscope-shmem-aB.xYz"));
	assert_false(wl__stale_name("folioscope-vm.aB3xYz"));
	assert_false(wl__stale_name("folioscope-shmem-"));
	assert_false(wl__stale_name("xfolioscope-shmem-aB3xYz"));
	assert_false(wl__stale_name(""));
}

static void put(const char *dir, const char *name, const void *buf, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static void fake_proc(const char *proc, int pid, const char *comm,
		      const char *cmdline, size_t len, const char *tmpdir)
{
	char dir[512], env[512];
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/%d", proc, pid);
	assert_int_equal(mkdir(dir, 0700), 0);
	put(dir, "comm", comm, strlen(comm));
	put(dir, "cmdline", cmdline, len);
	n = snprintf(env, sizeof(env), "PATH=/bin");
	if (tmpdir)
		n += 1 + snprintf(env + n + 1, sizeof(env) - n - 1, "TMPDIR=%s",
				  tmpdir);
	put(dir, "environ", env, n + 1);
}

static char tmp[] = "/tmp/test-stale-XXXXXX";

static void test_run_alive(void **state)
{
	char proc[600], real[600];

	assert_non_null(mkdtemp(tmp));
	assert_non_null(realpath(tmp, real));
	snprintf(proc, sizeof(proc), "%s/proc", tmp);
	assert_int_equal(mkdir(proc, 0700), 0);
	assert_int_equal(wl__run_alive(proc, 1, NULL), 0);
	/* Not runs: a trace, a vm whose guest runs 'run', a zombie, cat. */
	fake_proc(proc, 10, "folioscope\n", "folioscope\0trace\0", 17, NULL);
	fake_proc(proc, 11, "folioscope\n", "folioscope\0vm\0run\0", 18, NULL);
	fake_proc(proc, 12, "folioscope\n", "", 0, NULL);
	fake_proc(proc, 13, "cat\n", "cat\0run\0", 8, NULL);
	assert_int_equal(wl__run_alive(proc, 1, NULL), 0);
	/* A run with its temp dirs in /tmp: blocks /tmp only. */
	fake_proc(proc, 14, "folioscope\n", "./folioscope\0run\0shmem-read\0",
		  28, NULL);
	assert_int_equal(wl__run_alive(proc, 1, NULL), 14);
	assert_int_equal(wl__run_alive(proc, 1, "/tmp"), 14);
	assert_int_equal(wl__run_alive(proc, 1, real), 0);
	/* Itself does not count. */
	assert_int_equal(wl__run_alive(proc, 14, NULL), 0);
	/* One with TMPDIR=tmp blocks the clean-up of tmp. */
	fake_proc(proc, 15, "folioscope\n", "folioscope\0run\0dedupe\0", 22,
		  real);
	assert_int_equal(wl__run_alive(proc, 14, real), 15);
	assert_int_equal(wl__stale_clean_at(tmp, proc), 0);
}

/* A run with --dir DIR blocks the clean-up of DIR, whatever its TMPDIR. */
static void test_run_alive_dir(void **state)
{
	char proc[600], d[600], other[600], argv[1400];
	int n;

	snprintf(proc, sizeof(proc), "%s/proc-dir", tmp);
	snprintf(d, sizeof(d), "%s/d", tmp);
	snprintf(other, sizeof(other), "%s/other", tmp);
	assert_int_equal(mkdir(proc, 0700), 0);
	assert_int_equal(mkdir(d, 0700), 0);
	assert_int_equal(mkdir(other, 0700), 0);
	/* --dir DIR, its TMPDIR elsewhere. */
	n = snprintf(argv, sizeof(argv), "folioscope%crun%cdedupe%c--dir%c%s",
		     0, 0, 0, 0, d);
	fake_proc(proc, 20, "folioscope\n", argv, n + 1, "/");
	assert_int_equal(wl__run_alive(proc, 1, d), 20);
	assert_int_equal(wl__run_alive(proc, 1, other), 0);
	assert_int_equal(wl__run_alive(proc, 1, "/tmp"), 0);
	assert_int_equal(wl__run_alive(proc, 1, "/"), 20);
	/* --dir=DIR (the path with a trailing slash) */
	n = snprintf(argv, sizeof(argv), "folioscope%crun%c--dir=%s/%cdedupe",
		     0, 0, other, 0);
	fake_proc(proc, 21, "folioscope\n", argv, n + 1, "/");
	assert_int_equal(wl__run_alive(proc, 1, other), 21);
	/* After "--", --dir is no option. */
	n = snprintf(argv, sizeof(argv), "folioscope%crun%c--%c--dir=%s", 0, 0,
		     0, "/tmp");
	fake_proc(proc, 22, "folioscope\n", argv, n + 1, "/");
	assert_int_equal(wl__run_alive(proc, 20, "/tmp"), 0);
}

static bool exists(const char *fmt, const char *a)
{
	char path[600];
	struct stat sb;

	snprintf(path, sizeof(path), fmt, tmp, a);
	return !lstat(path, &sb);
}

static void test_clean(void **state)
{
	char path[600], proc[600], cmd[700];

	/* A fake /proc without runs. */
	snprintf(proc, sizeof(proc), "%s/emptyproc", tmp);
	assert_int_equal(mkdir(proc, 0700), 0);
	/* Outside: must survive everything. */
	snprintf(path, sizeof(path), "%s/keep", tmp);
	assert_int_equal(mkdir(path, 0700), 0);
	put(path, "precious", "x", 1);
	/* A stale dir with files, a subdir and a symlink to keep/. */
	snprintf(path, sizeof(path), "%s/folioscope-dedupe-Ab12Cd", tmp);
	assert_int_equal(mkdir(path, 0700), 0);
	put(path, "img0", "data", 4);
	snprintf(path, sizeof(path), "%s/folioscope-dedupe-Ab12Cd/mnt0", tmp);
	assert_int_equal(mkdir(path, 0700), 0);
	put(path, "f0000000", "data", 4);
	snprintf(cmd, sizeof(cmd), "%s/keep", tmp);
	snprintf(path, sizeof(path), "%s/folioscope-dedupe-Ab12Cd/link", tmp);
	assert_int_equal(symlink(cmd, path), 0);
	/* A symlink with a stale name, to keep/: left alone. */
	snprintf(path, sizeof(path), "%s/folioscope-shmem-Zz99zz", tmp);
	assert_int_equal(symlink(cmd, path), 0);
	/* Names that are not ours. */
	snprintf(path, sizeof(path), "%s/folioscope-vm.abcdef", tmp);
	assert_int_equal(mkdir(path, 0700), 0);
	/* Another user's dir with our name (as root only). */
	snprintf(path, sizeof(path), "%s/folioscope-shmem-other1", tmp);
	assert_int_equal(mkdir(path, 0700), 0);
	if (geteuid() == 0)
		assert_int_equal(chown(path, 65534, 65534), 0);

	assert_int_equal(wl__stale_clean_at(tmp, proc), geteuid() == 0 ? 1 : 2);
	assert_false(exists("%s/%s", "folioscope-dedupe-Ab12Cd"));
	assert_true(exists("%s/%s", "keep/precious"));
	assert_true(exists("%s/%s", "folioscope-shmem-Zz99zz"));
	assert_true(exists("%s/%s", "folioscope-vm.abcdef"));
	assert_int_equal(exists("%s/%s", "folioscope-shmem-other1"),
			 geteuid() == 0);
	/* Nothing left to do. */
	assert_int_equal(wl__stale_clean_at(tmp, proc), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_run_alive),
		cmocka_unit_test(test_run_alive_dir),
		cmocka_unit_test(test_clean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
