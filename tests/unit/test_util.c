// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shared helpers in src/util: temp-name parsing, the owner check,
 * tool look-up over a PATH of temp dirs, spawning, tree removal and
 * whole writes, on real files in a temp dir.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "util/err.h"
#include "util/fs.h"
#include "util/jsonb.h"
#include "util/proc.h"
#include "util/util.h"

static char tmp[] = "/tmp/test-util-XXXXXX";

static void path_of(char *out, const char *rel)
{
	snprintf(out, PATH_MAX, "%s/%s", tmp, rel);
}

static void make_file(const char *rel, const char *text, mode_t mode)
{
	char p[PATH_MAX];
	int fd;

	path_of(p, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	assert_true(fd >= 0);
	assert_int_equal(fd__write_all(fd, text, strlen(text)), 0);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
}

static void make_dir(const char *rel)
{
	char p[PATH_MAX];

	path_of(p, rel);
	assert_int_equal(mkdir(p, 0755), 0);
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

static void test_suffix(void **state)
{
	static const struct {
		const char *s;
		bool ok;
	} cases[] = {
		{ "abcXYZ", true },  { "a1B2c3", true },   { "000000", true },
		{ "abc12", false },  { "abc1234", false }, { "abc-12", false },
		{ "abc 12", false }, { "", false },	   { "ab.c12", false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_int_equal(tmpname__suffix_ok(cases[i].s), cases[i].ok);
}

static void test_owner(void **state)
{
	static const struct {
		const char *name, *prefix;
		long pid;
	} cases[] = {
		{ "folioscope-vm-123.abcDEF", "folioscope-vm-", 123 },
		{ ".out.json.folioscope-42.Ab3dE9", ".out.json.folioscope-",
		  42 },
		{ "folioscope-vm-0123.abcDEF", "folioscope-vm-", 0 },
		{ "folioscope-vm--5.abcDEF", "folioscope-vm-", 0 },
		{ "folioscope-vm-123abcDEF", "folioscope-vm-", 0 },
		{ "folioscope-vm-123.abcDE", "folioscope-vm-", 0 },
		{ "folioscope-vm-123.abcDEFG", "folioscope-vm-", 0 },
		{ "folioscope-vm-123.abc/EF", "folioscope-vm-", 0 },
		{ "folioscope-vm-.abcDEF", "folioscope-vm-", 0 },
		{ "folioscope-shmem-123.abcDEF", "folioscope-vm-", 0 },
		{ "folioscope-vm-99999999999999999999.abcDEF", "folioscope-vm-",
		  0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_int_equal(tmpname__owner(cases[i].name, cases[i].prefix),
				 cases[i].pid);
}

/* owner__alive on a live child named NAME ("" keeps ours). */
static bool owner_probe(const char *name)
{
	int go[2], ready[2], st;
	bool alive;
	pid_t child;
	char c;

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		if (*name)
			prctl(PR_SET_NAME, name);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	alive = owner__alive(child);
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(waitpid(child, &st, 0), child);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
	return alive;
}

static void test_owner_alive(void **state)
{
	pid_t child;
	int st;

	assert_true(owner__alive(getpid()));
	child = fork();
	assert_true(child >= 0);
	if (!child)
		_exit(0);
	assert_int_equal(waitpid(child, &st, 0), child);
	/* Reaped: its /proc entry is gone. */
	assert_false(owner__alive(child));
	/* Alive with our name (test_util here, folioscope-dyn in use)... */
	assert_true(owner_probe(""));
	/* ...or the installed name; another program's is not ours. */
	assert_true(owner_probe("folioscope"));
	assert_false(owner_probe("cat"));
}

static void test_exe_find(void **state)
{
	char path[2 * PATH_MAX + 2], want[PATH_MAX], out[PATH_MAX];
	char a[PATH_MAX], b[PATH_MAX], sbin[PATH_MAX];
	struct exe_search s = { .path_default = "/nonexistent" };
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	make_dir("a");
	make_dir("b");
	make_dir("sbin");
	make_dir("a/dirtool");
	make_file("a/tool", "#!/bin/sh\nexit 3\n", 0644);
	make_file("b/tool", "#!/bin/sh\nexit 7\n", 0755);
	make_file("sbin/sbintool", "#!/bin/sh\nexit 0\n", 0755);
	path_of(a, "a");
	path_of(b, "b");
	path_of(sbin, "sbin");
	snprintf(path, sizeof(path), "%s:%s", a, b);
	assert_int_equal(setenv("PATH", path, 1), 0);

	/* a/tool is not executable: the first executable one wins. */
	assert_int_equal(exe__find("tool", &s, out, sizeof(out)), 0);
	path_of(want, "b/tool");
	assert_string_equal(out, want);
	/* Extra dirs only with them in the search. */
	assert_int_equal(exe__find("sbintool", &s, out, sizeof(out)), -ENOENT);
	s.extra = sbin;
	assert_int_equal(exe__find("sbintool", &s, out, sizeof(out)), 0);
	path_of(want, "sbin/sbintool");
	assert_string_equal(out, want);
	/* A directory is no tool. */
	assert_int_equal(exe__find("dirtool", &s, out, sizeof(out)), -ENOENT);
	assert_int_equal(exe__find("missing", &s, out, sizeof(out)), -ENOENT);
	/* No $PATH: the default list. */
	assert_int_equal(unsetenv("PATH"), 0);
	s.path_default = b;
	assert_int_equal(exe__find("tool", &s, out, sizeof(out)), 0);
	path_of(want, "b/tool");
	assert_string_equal(out, want);
	/* A name with a '/' is taken as it is. */
	assert_int_equal(exe__find(want, &s, out, sizeof(out)), 0);
	assert_string_equal(out, want);
	path_of(want, "a/tool");
	assert_int_equal(exe__find(want, &s, out, sizeof(out)), -EACCES);

	if (old)
		assert_int_equal(setenv("PATH", old, 1), 0);
	free(old);
}

static void test_spawn(void **state)
{
	char b[PATH_MAX];
	struct exe_search s = { .path_default = "/nonexistent" };
	struct proc_io io = { .in_fd = -1, .search = &s };
	char *argv[] = { "tool7", NULL };
	char *missing[] = { "missing", NULL };
	pid_t pid;

	make_dir("spawn");
	make_file("spawn/tool7", "#!/bin/sh\nexit 7\n", 0755);
	path_of(b, "spawn");
	s.extra = b;
	pid = proc__spawn(argv, &io);
	assert_true(pid > 0);
	assert_int_equal(proc__wait(pid), 7);
	assert_int_equal(proc__spawn(missing, &io), -ENOENT);
}

static void test_tree_remove(void **state)
{
	char root[PATH_MAX], keep[PATH_MAX], link[PATH_MAX];
	struct stat st;

	make_dir("t");
	make_dir("t/d1");
	make_dir("t/d1/d2");
	make_file("t/f", "x", 0644);
	make_file("t/d1/d2/g", "y", 0400);
	make_file("keep", "kept", 0644);
	path_of(keep, "keep");
	path_of(link, "t/d1/link");
	assert_int_equal(symlink(keep, link), 0);
	path_of(link, "t/d1/dirlink");
	assert_int_equal(symlink(tmp, link), 0);
	path_of(root, "t");

	assert_int_equal(tree__remove(root, 0), 0);
	assert_int_equal(lstat(root, &st), -1);
	assert_int_equal(errno, ENOENT);
	/* The links went, not what they point to. */
	assert_int_equal(stat(keep, &st), 0);
	assert_int_equal(st.st_size, 4);
	/* Nothing there: nothing to do. */
	assert_int_equal(tree__remove(root, 0), 0);
	assert_int_equal(tree__remove(root, TREE_ONE_FS), 0);
}

static void test_tree_one_fs(void **state)
{
	char root[PATH_MAX], mnt[PATH_MAX], inside[PATH_MAX];
	struct stat st;
	int fd;

	make_dir("m");
	make_dir("m/mnt");
	make_file("m/f", "x", 0644);
	path_of(root, "m");
	path_of(mnt, "m/mnt");
	if (mount("none", mnt, "tmpfs", 0, "size=1m")) {
		printf("skipped: cannot mount a tmpfs (%s): needs "
		       "CAP_SYS_ADMIN\n",
		       strerror(errno));
		skip();
	}
	path_of(inside, "m/mnt/inside");
	fd = open(inside, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);

	/* The mount and what is in it stay; the rest goes. */
	assert_int_equal(tree__remove(root, TREE_ONE_FS), -EBUSY);
	assert_int_equal(stat(inside, &st), 0);
	path_of(inside, "m/f");
	assert_int_equal(lstat(inside, &st), -1);
	assert_int_equal(umount2(mnt, MNT_DETACH), 0);
	assert_int_equal(tree__remove(root, TREE_ONE_FS), 0);
	assert_int_equal(lstat(root, &st), -1);
}

/* Off btrfs the superblock's device is stat's; a missing path is an error
 * (tests/host/peers.sh checks btrfs, where the two differ). */
static void test_sb_dev(void **state)
{
	struct stat st;
	dev_t dev = 0;

	(void)state;
	assert_int_equal(stat(tmp, &st), 0);
	assert_int_equal(path__sb_dev(tmp, &dev), 0);
	assert_int_equal(dev, st.st_dev);
	assert_int_equal(path__sb_dev("/nonexistent/x", &dev), -ENOENT);
}

static void test_write_all(void **state)
{
	static char buf[1 << 20], back[1 << 20];
	char p[PATH_MAX];
	ssize_t n;
	int fd;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7 + 1);
	path_of(p, "big");
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fd__write_all(fd, buf, sizeof(buf)), 0);
	n = pread(fd, back, sizeof(back), 0);
	assert_int_equal(n, sizeof(back));
	assert_memory_equal(buf, back, sizeof(buf));
	close(fd);
	assert_int_equal(fd__write_all(fd, buf, 1), -EBADF);
}

/* fd__read_all: a file of 1 MiB + 3 bytes back whole and NUL
 * terminated, across the buffer's growth; a limit of exactly its size
 * takes it, one byte less refuses it; a pipe read to its end. */
static void test_read_all(void **state)
{
	static char buf[(1 << 20) + 3];
	char p[PATH_MAX], *data;
	size_t len = 0;
	int fd, pp[2];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 13 + 5);
	path_of(p, "readall");
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fd__write_all(fd, buf, sizeof(buf)), 0);
	close(fd);
	assert_int_equal(file__read_at(AT_FDCWD, p, &data, &len), 0);
	assert_int_equal(len, sizeof(buf));
	assert_memory_equal(data, buf, sizeof(buf));
	assert_int_equal(data[len], '\0');
	free(data);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	assert_int_equal(fd__read_all(fd, sizeof(buf), &data, &len), 0);
	assert_int_equal(len, sizeof(buf));
	free(data);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(fd__read_all(fd, sizeof(buf) - 1, &data, &len),
			 -EFBIG);
	assert_null(data);
	close(fd);
	assert_int_equal(file__read_at(AT_FDCWD, "/nonexistent/x", &data, NULL),
			 -ENOENT);
	assert_int_equal(pipe(pp), 0);
	assert_int_equal(fd__write_all(pp[1], "abc", 3), 0);
	close(pp[1]);
	assert_int_equal(fd__read_all(pp[0], 0, &data, &len), 0);
	assert_int_equal(len, 3);
	assert_string_equal(data, "abc");
	free(data);
	close(pp[0]);
}

static void test_jsonb(void **state)
{
	struct jsonb b = { .oom = false };
	struct json_object *root = json_object_new_object(), *arr, *o;
	char fixed[4] = { 'a', 'b', 'c', 'd' }; /* no NUL */

	assert_non_null(root);
	arr = jsonb__put(&b, root, "list", json_object_new_array());
	assert_non_null(arr);
	o = jsonb__push(&b, arr, json_object_new_object());
	assert_non_null(o);
	jsonb__put(&b, o, "s", JSONB_STR(fixed));
	jsonb__put_str_or_null(&b, o, "empty", "");
	jsonb__put_str_or_null(&b, o, "none", NULL);
	jsonb__put_str_or_null(&b, o, "x", "y");
	assert_false(b.oom);
	assert_string_equal(
		json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN),
		"{\"list\":[{\"s\":\"abcd\",\"empty\":null,\"none\":null,"
		"\"x\":\"y\"}]}");
	/* A failed value or a failed parent is recorded, never added. */
	assert_null(jsonb__put(&b, root, "nothing", NULL));
	assert_true(b.oom);
	b.oom = false;
	assert_null(jsonb__put(&b, NULL, "orphan", json_object_new_int(1)));
	assert_true(b.oom);
	b.oom = false;
	assert_null(jsonb__push(&b, NULL, json_object_new_int(1)));
	assert_true(b.oom);
	b.oom = false;
	jsonb__put_null(&b, NULL, "k");
	assert_true(b.oom);
	assert_false(json_object_object_get_ex(root, "nothing", NULL));
	json_object_put(root);
}

/* What err__print writes, with stderr sent to a file. */
static void read_stderr(FILE *f, char *out, size_t len)
{
	size_t n;

	fflush(f);
	rewind(f);
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
}

static void test_err_print(void **state)
{
	char p[PATH_MAX], got[256];
	FILE *f, *old = stderr;

	path_of(p, "stderr");
	f = fopen(p, "w+");
	assert_non_null(f);
	stderr = f;
	errno = EACCES;
	err__print("run", -ENOENT, "cannot open '%s' %d", "x", 5);
	/* A caller returning -errno after the line still has its own. */
	assert_int_equal(errno, EACCES);
	err__print(NULL, 0, "plain");
	stderr = old;
	read_stderr(f, got, sizeof(got));
	fclose(f);
	assert_string_equal(got, "folioscope: run: cannot open 'x' 5: "
				 "No such file or directory\n"
				 "folioscope: plain\n");
}

/* A child that announces "status" on the fifo, then exits with it or
 * (linger) waits until it is killed. */
static pid_t announcer(const char *fifo, int status, bool linger)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		int fd = open(fifo, O_WRONLY | O_NONBLOCK);
		char line[16];
		int n = snprintf(line, sizeof(line), "%d\n", status);

		if (fd < 0 || write(fd, line, (size_t)n) != n)
			_exit(99);
		close(fd);
		while (linger)
			pause();
		_exit(status);
	}
	return pid;
}

/* A child's exit, or its announcement when it lingers past the grace. */
static void test_wait_announced(void **state)
{
	char dir[] = "/tmp/fs-wait-unit.XXXXXX", fifo[64];
	struct proc_wait w = { .grace_ms = 200, .out_fd = -1 };
	int out[2];
	size_t big = 200000;
	pid_t pid;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/exit", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	w.announce_fd = open(fifo, O_RDWR | O_NONBLOCK);
	assert_true(w.announce_fd >= 0);

	/* Exits without a word. */
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(3);
	assert_int_equal(proc__wait_announced(pid, &w), 0);
	assert_true(w.exited);
	assert_true(WIFEXITED(w.status));
	assert_int_equal(WEXITSTATUS(w.status), 3);

	/* Says it, then does it. */
	w.announced = -1;
	pid = announcer(fifo, 1, false);
	assert_int_equal(proc__wait_announced(pid, &w), 0);
	assert_true(w.exited);
	assert_int_equal(WEXITSTATUS(w.status), 1);
	assert_int_equal(w.announced, 1);
	/* Nothing of it is left for the next child's wait. */
	w.announced = -1;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(proc__wait_announced(pid, &w), 0);
	assert_true(w.exited);
	assert_int_equal(w.announced, -1);

	/* Says it and stays. */
	pid = announcer(fifo, 5, true);
	assert_int_equal(proc__wait_announced(pid, &w), 0);
	assert_false(w.exited);
	assert_int_equal(w.announced, 5);
	kill(pid, SIGKILL);
	assert_int_equal(proc__wait(pid), 128 + SIGKILL);

	/* Its stdout, more than a pipe holds, read while it runs. */
	assert_int_equal(pipe(out), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		char *buf = malloc(big);

		close(out[0]);
		memset(buf, 'j', big);
		_exit(buf && write(out[1], buf, big) == (ssize_t)big ? 0 : 1);
	}
	close(out[1]);
	w.out_fd = out[0];
	assert_int_equal(proc__wait_announced(pid, &w), 0);
	assert_true(w.exited);
	assert_int_equal(WEXITSTATUS(w.status), 0);
	assert_int_equal(w.out_len, big);
	assert_int_equal(w.out[big - 1], 'j');
	assert_int_equal(w.out[big], 0);
	free(w.out);
	w.out = NULL;
	w.out_len = 0;
	close(out[0]);

	close(w.announce_fd);
	unlink(fifo);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suffix),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_owner_alive),
		cmocka_unit_test(test_exe_find),
		cmocka_unit_test(test_spawn),
		cmocka_unit_test(test_wait_announced),
		cmocka_unit_test(test_tree_remove),
		cmocka_unit_test(test_tree_one_fs),
		cmocka_unit_test(test_sb_dev),
		cmocka_unit_test(test_write_all),
		cmocka_unit_test(test_read_all),
		cmocka_unit_test(test_jsonb),
		cmocka_unit_test(test_err_print),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
