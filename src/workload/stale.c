// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Removing what killed runs left behind; see stale.h. Everything removed
 * must carry the workloads' own temp dir name, be a directory (not a
 * symlink) owned by us, and belong to no live run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <linux/loop.h>
#include "workload/stale.h"
#include "util/fs.h"
#include "util/util.h"
#include "util/err.h"

#define MAX_MOUNTS 64

bool wl__stale_name(const char *name)
{
	static const char *const tags[] = { "folioscope-shmem-",
					    "folioscope-dedupe-",
					    "folioscope-ops-" };

	for (size_t i = 0; i < ARRAY_SIZE(tags); i++) {
		size_t n = strlen(tags[i]);

		if (strncmp(name, tags[i], n))
			continue;
		/* mkdtemp's six characters. */
		return tmpname__suffix_ok(name + n);
	}
	return false;
}

/* The file's first len - 1 bytes, NUL-terminated; bytes read or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/*
 * The dir a process's workloads make their temp dirs in: its $TMPDIR, or
 * /tmp, resolved as that process sees it (relative to its cwd).
 */
static bool temp_parent(const char *procfs, long pid, char *out)
{
	char path[PATH_MAX], env[16384], tmp[PATH_MAX];
	const char *dir = "/tmp";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%ld/environ", procfs, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, env, sizeof(env) - 1);
	close(fd);
	if (n < 0)
		return false;
	env[n] = '\0';
	for (char *e = env; e < env + n; e += strlen(e) + 1)
		if (!strncmp(e, "TMPDIR=", 7) && e[7])
			dir = e + 7;
	if (dir[0] == '/')
		snprintf(tmp, sizeof(tmp), "%s", dir);
	else
		snprintf(tmp, sizeof(tmp), "%s/%ld/cwd/%s", procfs, pid, dir);
	return realpath(tmp, out) != NULL;
}

/*
 * Could the run pid, argv its NUL-separated command line (n bytes), make
 * its temp dirs in parent? Yes if its $TMPDIR is parent or cannot be
 * read, or if its --dir is parent or cannot be resolved.
 */
static bool run_uses(const char *procfs, long pid, const char *argv, size_t n,
		     const char *parent)
{
	char theirs[PATH_MAX], tmp[PATH_MAX];
	const char *end = argv + n, *dir = NULL;

	if (!temp_parent(procfs, pid, theirs) || !strcmp(theirs, parent))
		return true;
	for (const char *a = argv; a < end; a += strlen(a) + 1) {
		if (!strcmp(a, "--"))
			break;
		if (!strncmp(a, "--dir=", 6))
			dir = a + 6;
		else if (!strcmp(a, "--dir") && a + strlen(a) + 1 < end)
			dir = a + strlen(a) + 1;
	}
	if (!dir)
		return false;
	if (dir[0] == '/')
		snprintf(tmp, sizeof(tmp), "%s", dir);
	else
		snprintf(tmp, sizeof(tmp), "%s/%ld/cwd/%s", procfs, pid, dir);
	return !realpath(tmp, theirs) || !strcmp(theirs, parent);
}

pid_t wl__run_alive(const char *procfs, pid_t self, const char *parent)
{
	char path[PATH_MAX], buf[8192];
	struct dirent *e;
	pid_t found = 0;
	ssize_t n;
	DIR *d;

	d = opendir(procfs);
	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "%s/%ld/comm", procfs, pid);
		if (read_small(path, buf, sizeof(buf)) <= 0 ||
		    strcmp(buf, "folioscope\n"))
			continue;
		/* argv NUL-separated; a zombie's is empty. */
		snprintf(path, sizeof(path), "%s/%ld/cmdline", procfs, pid);
		n = read_small(path, buf, sizeof(buf));
		if (n <= 0)
			continue;
		if (strnlen(buf, n) + 1 >= (size_t)n ||
		    strcmp(buf + strlen(buf) + 1, "run"))
			continue;
		/* A run with its temp dirs elsewhere cannot own ours; one
		 * whose environment or argv cannot be read (whole) might. */
		if (parent && (size_t)n < sizeof(buf) - 1 &&
		    !run_uses(procfs, pid, buf, (size_t)n, parent))
			continue;
		found = (pid_t)pid;
	}
	closedir(d);
	return found;
}

/* /proc/self/mountinfo escapes space, tab, newline and '\' as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* Detach every mount at or below dir, deepest (latest) first. */
static int umount_under(const char *dir)
{
	char *mnt[MAX_MOUNTS], line[4096 + 256];
	int n = 0, done = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	while (n < MAX_MOUNTS && fgets(line, sizeof(line), f)) {
		char point[4096 + 1];

		/* id parent maj:min root mount-point ... */
		if (sscanf(line, "%*s %*s %*s %*s %4096s", point) != 1)
			continue;
		unescape(point);
		if (under(point, dir) && (mnt[n] = strdup(point)))
			n++;
	}
	fclose(f);
	while (n--) {
		if (!umount2(mnt[n], MNT_DETACH | UMOUNT_NOFOLLOW))
			done++;
		free(mnt[n]);
	}
	return done;
}

/* Unbind loop devices whose backing file is inside dir. */
static void loops_under(const char *dir)
{
	char path[PATH_MAX], back[PATH_MAX];
	struct dirent *e;
	DIR *d;

	d = opendir("/sys/block");
	if (!d)
		return;
	while ((e = readdir(d))) {
		ssize_t n;
		int fd;

		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file",
			 e->d_name);
		n = read_small(path, back, sizeof(back));
		if (n <= 0)
			continue;
		back[strcspn(back, "\n")] = '\0';
		if (!under(back, dir))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ioctl(fd, LOOP_CLR_FD, 0);
			close(fd);
		}
	}
	closedir(d);
}

int wl__stale_clean(const char *parent)
{
	return wl__stale_clean_at(parent, "/proc");
}

int wl__stale_clean_at(const char *parent, const char *procfs)
{
	char dir[PATH_MAX];
	struct dirent *e;
	struct stat sb;
	int removed = 0;
	DIR *d;

	char real[PATH_MAX];

	if (!parent) {
		parent = getenv("TMPDIR");
		if (!parent || !*parent)
			parent = "/tmp";
	}
	/* Mount points are listed canonical: "/tmp/", a symlinked TMPDIR. */
	if (!realpath(parent, real))
		return -errno;
	parent = real;
	if (wl__run_alive(procfs, getpid(), parent))
		return 0;
	d = opendir(parent);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		int mounts;

		if (!wl__stale_name(e->d_name))
			continue;
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid())
			continue;
		if (snprintf(dir, sizeof(dir), "%s/%s", parent, e->d_name) >=
		    (int)sizeof(dir))
			continue;
		mounts = umount_under(dir);
		loops_under(dir);
		/* A mount that would not go stays untouched. */
		tree__remove(dir, TREE_ONE_FS);
		if (lstat(dir, &sb)) {
			removed++;
			err__print("run", 0,
				   "removed '%s' (%d mount%s), left behind by "
				   "a run that was killed",
				   dir, mounts, mounts == 1 ? "" : "s");
		} else {
			err__print("run", 0,
				   "cannot remove '%s', left behind by a run "
				   "that was killed",
				   dir);
		}
	}
	closedir(d);
	return removed;
}
