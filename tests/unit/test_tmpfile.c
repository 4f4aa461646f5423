// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Temp files of atomic exports (src/report/tmpfile.c): their name, which
 * stale ones the next export of the same file removes (a dead owner's
 * regular files only), and that a write leaves no temp file.
 */
#include <errno.h>
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
#include "report/report.h"

static char dir[] = "/tmp/test-tmpfile-XXXXXX";

static void touch(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
}

static bool exists(const char *name)
{
	char path[256];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !lstat(path, &sb);
}

/* Entries of dir, sorted, one per line (for "nothing else left"). */
static char *listing(void)
{
	char cmd[128], *out = calloc(1, 4096);
	FILE *p;
	size_t n;

	assert_non_null(out);
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | sort", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, 4095, p);
	out[n] = '\0';
	pclose(p);
	return out;
}

static void test_name(void **state)
{
	char want[128], *name = NULL;

	assert_int_equal(report__tmp_name("/a/b/out.json", &name), 0);
	snprintf(want, sizeof(want), "/a/b/.out.json.folioscope-%ld.XXXXXX",
		 (long)getpid());
	assert_string_equal(name, want);
	free(name);
	assert_int_equal(report__tmp_name("out.csv", &name), 0);
	snprintf(want, sizeof(want), "./.out.csv.folioscope-%ld.XXXXXX",
		 (long)getpid());
	assert_string_equal(name, want);
	free(name);
}

/* A child named folioscope (comm), alive until killed. */
static pid_t fake_folioscope(void)
{
	int ready[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		prctl(PR_SET_NAME, "folioscope");
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	return pid;
}

static void test_clean(void **state)
{
	char out[256], live[64], mine[64], dead[64], *before;
	pid_t child, gone;
	int status;

	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/out.json", dir);
	/* A pid that no longer exists: a reaped child's. */
	gone = fork();
	assert_true(gone >= 0);
	if (!gone)
		_exit(0);
	assert_int_equal(waitpid(gone, &status, 0), gone);
	child = fake_folioscope();
	snprintf(dead, sizeof(dead), ".out.json.folioscope-%d.Ab12Cd", gone);
	snprintf(live, sizeof(live), ".out.json.folioscope-%d.Ab12Cd", child);
	snprintf(mine, sizeof(mine), ".out.json.folioscope-%d.Ab12Cd",
		 getpid());
	touch(dead);
	touch(live);
	touch(mine);
	/* Not ours to remove: other names, a symlink, a directory. */
	touch("out.json");
	touch(".out.json2.folioscope-1.Ab12Cd");
	touch(".other.json.folioscope-1.Ab12Cd");
	touch(".out.json.folioscope-1.Ab12C");
	touch(".out.json.folioscope-x1.Ab12Cd");
	touch("out.json.Ab12Cd");
	snprintf(out, sizeof(out), "%s/.out.json.folioscope-1.Zz99zz", dir);
	assert_int_equal(symlink("out.json", out), 0);
	snprintf(out, sizeof(out), "%s/.out.json.folioscope-1.dir000", dir);
	assert_int_equal(mkdir(out, 0700), 0);
	snprintf(out, sizeof(out), "%s/out.json", dir);

	/* Only the dead owner's. */
	assert_int_equal(report__tmp_clean(out), 1);
	assert_false(exists(dead));
	assert_true(exists(live));
	assert_true(exists(mine));
	assert_true(exists(".out.json.folioscope-1.Zz99zz"));
	assert_true(exists(".out.json.folioscope-1.dir000"));
	assert_true(exists(".out.json2.folioscope-1.Ab12Cd"));
	assert_true(exists(".other.json.folioscope-1.Ab12Cd"));
	/* Once the live one dies, its file is stale too. */
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(report__tmp_clean(out), 1);
	assert_false(exists(live));
	assert_int_equal(report__tmp_clean(out), 0);

	/* A write: the file, and no temp file of its own left. */
	assert_int_equal(unlink(out), 0);
	before = listing();
	assert_int_equal(report__write_atomic(out, "new\n", 4), 0);
	assert_true(exists("out.json"));
	assert_int_equal(unlink(out), 0);
	{
		char *after = listing();

		assert_string_equal(after, before);
		free(after);
	}
	free(before);
	snprintf(out, sizeof(out), "rm -rf '%s'", dir);
	assert_int_equal(system(out), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_clean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
