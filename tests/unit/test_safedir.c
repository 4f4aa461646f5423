// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* wl__check_dir (src/workload/safedir.c): what --dir may be. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "workload/safedir.h"

static void test_check_dir(void **state)
{
	char tmp[] = "/tmp/test-safedir-XXXXXX", p[128], cmd[160];

	assert_non_null(mkdtemp(tmp));
	assert_int_equal(wl__check_dir("dedupe", "--dir", tmp), 0);
	snprintf(p, sizeof(p), "%s/link", tmp);
	assert_int_equal(symlink(tmp, p), 0);
	assert_int_equal(wl__check_dir("dedupe", "--dir", p), -ELOOP);
	snprintf(p, sizeof(p), "%s/none", tmp);
	assert_int_equal(wl__check_dir("dedupe", "--dir", p), -ENOENT);
	snprintf(p, sizeof(p), "%s/file", tmp);
	assert_int_equal(mknod(p, S_IFREG | 0600, 0), 0);
	assert_int_equal(wl__check_dir("dedupe", "--dir", p), -ENOTDIR);
	if (geteuid() == 0) {
		snprintf(p, sizeof(p), "%s/other", tmp);
		assert_int_equal(mkdir(p, 0777), 0);
		assert_int_equal(chown(p, 65534, 65534), 0);
		assert_int_equal(wl__check_dir("dedupe", "--dir", p), -EPERM);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
