// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Plumbing shared by the workloads: the public entry points (which only
 * dispatch by name), temp dirs, fork/exec, loop devices, mount/umount,
 * whole-buffer I/O and page cache / huge page probes.
 *
 * Mounting lives here so that <sys/mount.h> stays out of dedupe.c, which
 * needs <linux/fs.h> for FIDEDUPERANGE: that pulls in <linux/mount.h>, and
 * the two clash on some glibc releases.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <linux/loop.h>

#include "workload/workload.h"

#define LOOP_MAJOR_NR 7

struct workload {
	const char *name; /* "dedupe" or "shmem-read" */
	struct dedupe *dd;
	struct shmem *sh;
};

void workload__defaults(struct wl_opts *o)
{
	memset(o, 0, sizeof(*o));
	/* range 0: 128 KiB, or a whole file for the seed workload. */
	o->count = 64;
	o->dests = 1;
	o->huge = "always";
	o->fill = "full";
	o->size = 16 << 20;
	o->bs = 64 << 10;
	o->syscall = "read";
	o->iovecs = 1;
	o->readers = 1;
}

/*
 * Move this process into a mount namespace of its own, none of whose
 * mounts propagate back, before the workload mounts anything. Its tmpfs
 * and loop mounts are then seen by no other process, and the kernel
 * unmounts them when the namespace goes, that is when this process (and
 * the tools it forked) are gone, whatever killed it; a loop device left
 * with no user then unbinds itself (autoclear). BPF programs see the
 * workload's files all the same: they key on tgid, dev_t and superblock,
 * not on mounts. Needs a single thread (the readers start later).
 */
static int private_mounts(const char *wl)
{
	int err;

	if (unshare(CLONE_NEWNS)) {
		err = -errno;
		wl__err(wl, err, "private mount namespace: unshare");
		return err;
	}
	/* A shared "/" (systemd) would otherwise put our mounts in the
	 * host's namespace too, through the copied peer groups. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		err = -errno;
		wl__err(wl, err, "private mount namespace: make '/' private");
		return err;
	}
	return 0;
}

int workload__prepare(struct workload **out, const char *name,
		      const struct wl_opts *o)
{
	struct workload *w;
	int err;

	*out = NULL;
	if (!name)
		name = "";
	if (strcmp(name, "dedupe") && strcmp(name, "shmem-read")) {
		err = -EINVAL;
		wl__err_hint(name, err, "(want dedupe or shmem-read)",
			     "unknown workload '%s'", name);
		return err;
	}
	err = private_mounts(name);
	if (err)
		return err;
	w = calloc(1, sizeof(*w));
	if (!w) {
		err = -ENOMEM;
		wl__err(name, err, "allocate workload");
		return err;
	}
	if (!strcmp(name, "dedupe")) {
		w->name = "dedupe";
		err = dedupe__prepare(&w->dd, o);
	} else {
		w->name = "shmem-read";
		err = shmem__prepare(&w->sh, o);
	}
	if (err) {
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

int workload__run(struct workload *w, struct fs_report *r)
{
	snprintf(r->workload_name, sizeof(r->workload_name), "%s", w->name);
	if (w->dd)
		return dedupe__run(w->dd, r);
	return shmem__run(w->sh, r);
}

void workload__totals(const struct workload *w, enum wl_level level,
		      __u64 *calls, __u64 *bytes)
{
	const struct wl_totals *t =
		w->dd ? dedupe__totals(w->dd) : shmem__totals(w->sh);

	*calls = t->calls;
	*bytes = t->bytes;
	if (level == WL_LEVEL_SYSCALL) {
		*calls = t->sys_calls;
		*bytes = t->sys_bytes;
	} else if (level == WL_LEVEL_DEDUPE_ONE && w->dd) {
		*calls = t->one_calls;
		*bytes = t->one_bytes;
	}
}

void workload__destroy(struct workload *w)
{
	if (!w)
		return;
	dedupe__destroy(w->dd);
	shmem__destroy(w->sh);
	free(w);
}

static void report(const char *wl, int err, const char *hint, const char *fmt,
		   va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* One fprintf so the line is written whole; on a terminal, first
	 * erase a progress line the command may be showing. */
	fprintf(stderr, "%sfolioscope: run %s: %s%s%s%s%s\n",
		isatty(STDERR_FILENO) ? "\r\033[K" : "", wl, msg,
		err ? ": " : "", err ? strerror(-err) : "", hint ? " " : "",
		hint ? hint : "");
}

void wl__err(const char *wl, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(wl, err, NULL, fmt, ap);
	va_end(ap);
}

void wl__err_hint(const char *wl, int err, const char *hint, const char *fmt,
		  ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(wl, err, hint, fmt, ap);
	va_end(ap);
}

int wl__path(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int wl__mkdtemp(const char *wl, const char *parent, const char *tag, char *out,
		size_t len)
{
	char name[64];
	int err;

	if (!parent) {
		parent = getenv("TMPDIR");
		if (!parent || !*parent)
			parent = "/tmp";
	}
	snprintf(name, sizeof(name), "folioscope-%s-XXXXXX", tag);
	err = wl__path(out, len, parent, name);
	if (err) {
		wl__err(wl, err, "temp dir in '%s'", parent);
		goto cleanup;
	}
	if (!mkdtemp(out)) {
		err = -errno;
		wl__err(wl, err, "temp dir in '%s'", parent);
	}
cleanup:
	if (err)
		out[0] = '\0';
	return err;
}

void wl__remove(const char *wl, const char *path, bool dir)
{
	int ret = dir ? rmdir(path) : unlink(path);

	if (ret && errno != ENOENT)
		wl__err(wl, -errno, "remove '%s'", path);
}

/* First dir of the ':'-separated list holding an executable name. */
static int find_in(const char *list, const char *name, char *out, size_t len)
{
	char *dirs, *dir, *save;
	int err = -ENOENT;

	dirs = strdup(list);
	if (!dirs)
		return -ENOMEM;
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		if (!wl__path(out, len, dir, name) && !access(out, X_OK)) {
			err = 0;
			break;
		}
	}
	free(dirs);
	return err;
}

/*
 * Resolve name like execvp would, but also in /usr/sbin and /sbin: mkfs
 * lives there and a non-login root shell may not have them in $PATH.
 * Done in the parent so the child only has to execv.
 */
static int find_exe(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	int err;

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, X_OK) ? -errno : 0;
	}
	err = find_in(path && *path ? path : "/usr/bin:/bin", name, out, len);
	if (err == -ENOENT)
		err = find_in("/usr/sbin:/sbin", name, out, len);
	return err;
}

/* Runs in the forked child: only async-signal-safe calls. */
static void exec_child(const char *exe, char *const argv[], int err_fd)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(err_fd, 2) < 0)
		_exit(126);
	execv(exe, argv);
	_exit(126);
}

int wl__exec(const char *wl, char *const argv[])
{
	const char *object = argv[0];
	char exe[4096], msg[256];
	int pfd[2] = { -1, -1 };
	int status, err, i;
	size_t n = 0;
	ssize_t k;
	pid_t pid;

	/* Errors name the last argument: the image or device worked on. */
	for (i = 1; argv[i]; i++)
		object = argv[i];
	err = find_exe(argv[0], exe, sizeof(exe));
	if (err) {
		wl__err(wl, err, "exec '%s'", argv[0]);
		return err;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		err = -errno;
		wl__err(wl, err, "pipe for '%s'", argv[0]);
		goto cleanup;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		wl__err(wl, err, "fork for '%s'", argv[0]);
		goto cleanup;
	}
	if (!pid)
		exec_child(exe, argv, pfd[1]);
	close(pfd[1]);
	pfd[1] = -1;
	/* Keep the start of the tool's stderr for the error line. */
	for (;;) {
		char drain[512];

		if (n < sizeof(msg) - 1)
			k = read(pfd[0], msg + n, sizeof(msg) - 1 - n);
		else
			k = read(pfd[0], drain, sizeof(drain));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if (n < sizeof(msg) - 1)
			n += k;
	}
	msg[n] = '\0';
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err = -errno;
			wl__err(wl, err, "wait for '%s'", argv[0]);
			goto cleanup;
		}
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		goto cleanup;
	msg[strcspn(msg, "\n")] = '\0';
	err = -EIO;
	if (WIFEXITED(status))
		wl__err(wl, 0, "%s '%s': exit status %d%s%s", argv[0], object,
			WEXITSTATUS(status), *msg ? ": " : "", msg);
	else
		wl__err(wl, 0, "%s '%s': killed by signal %d", argv[0], object,
			WTERMSIG(status));
cleanup:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	return err;
}

/* Open /dev/loopN, creating the node when /dev is not a devtmpfs. */
static int open_loop(int nr, char *dev, size_t len, bool *made_node)
{
	int fd;

	*made_node = false;
	snprintf(dev, len, "/dev/loop%d", nr);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT)
		return fd < 0 ? -errno : fd;
	if (mknod(dev, S_IFBLK | 0600, makedev(LOOP_MAJOR_NR, nr)))
		return -errno;
	*made_node = true;
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		unlink(dev);
		*made_node = false;
	}
	return fd;
}

/*
 * Bind img_fd to the loop device fd with autoclear set, so that the device
 * unbinds itself on its last close or umount. LOOP_CONFIGURE (5.8) does
 * both at once: the device is never bound without autoclear, so a kill at
 * any point cannot leave it bound (our fd closes with us). Before 5.8 it
 * takes LOOP_SET_FD then LOOP_SET_STATUS64; a kill between the two leaves
 * a bound device, which the next run's stale clean-up unbinds. *what
 * names the ioctl that failed.
 */
static int loop_bind(int fd, int img_fd, const char *img, const char **what)
{
	struct loop_config cfg;
	int err;

	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = img_fd;
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
	snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name),
		 "%s", img);
	*what = "LOOP_CONFIGURE";
	if (!ioctl(fd, LOOP_CONFIGURE, &cfg))
		return 0;
	/* An ioctl the kernel does not know: EINVAL from loop, or ENOTTY. */
	if (errno != EINVAL && errno != ENOTTY)
		return -errno;
	*what = "LOOP_SET_FD";
	if (ioctl(fd, LOOP_SET_FD, img_fd))
		return -errno;
	*what = "LOOP_SET_STATUS64";
	if (ioctl(fd, LOOP_SET_STATUS64, &cfg.info)) {
		err = -errno;
		ioctl(fd, LOOP_CLR_FD, 0);
		return err;
	}
	return 0;
}

int wl__loop_attach(const char *wl, const char *img, char *dev, size_t len,
		    int *loop_fd, bool *made_node)
{
	int ctl = -1, img_fd = -1, fd = -1, err = 0, nr, tries;
	const char *what = "LOOP_CONFIGURE";

	*loop_fd = -1;
	*made_node = false;
	dev[0] = '\0';
	img_fd = open(img, O_RDWR | O_CLOEXEC);
	if (img_fd < 0) {
		err = -errno;
		wl__err(wl, err, "open image '%s'", img);
		goto cleanup;
	}
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		err = -errno;
		wl__err(wl, err, "open '/dev/loop-control'");
		goto cleanup;
	}
	/* Someone else may bind the free device before we do: retry. */
	for (tries = 0; tries < 16; tries++) {
		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0) {
			err = -errno;
			wl__err(wl, err,
				"LOOP_CTL_GET_FREE '/dev/loop-control'");
			goto cleanup;
		}
		fd = open_loop(nr, dev, len, made_node);
		if (fd < 0) {
			err = fd;
			wl__err(wl, err, "open '%s'", dev);
			goto cleanup;
		}
		err = loop_bind(fd, img_fd, img, &what);
		if (!err)
			break;
		close(fd);
		fd = -1;
		if (*made_node)
			unlink(dev);
		*made_node = false;
		if (err != -EBUSY)
			break;
	}
	if (err) {
		wl__err(wl, err, "%s '%s'", what, dev);
		goto cleanup;
	}
	/* Kept open until the mount holds the device: closing it earlier
	 * would let autoclear unbind it before the mount. */
	*loop_fd = fd;
	fd = -1;
cleanup:
	if (fd >= 0)
		close(fd);
	if (err && *made_node) {
		unlink(dev);
		*made_node = false;
	}
	if (ctl >= 0)
		close(ctl);
	if (img_fd >= 0)
		close(img_fd);
	return err;
}

int wl__mount(const char *src, const char *dir, const char *fstype,
	      const char *data)
{
	if (mount(src, dir, fstype, MS_NOSUID | MS_NODEV, data))
		return -errno;
	return 0;
}

int wl__remount(const char *dir, const char *data)
{
	if (mount(NULL, dir, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV, data))
		return -errno;
	return 0;
}

int wl__umount(const char *wl, const char *dir)
{
	int err, i;

	/* A just-closed file or a udev probe can hold it for a moment. */
	for (i = 0; i < 50; i++) {
		if (!umount2(dir, UMOUNT_NOFOLLOW))
			return 0;
		err = -errno;
		if (err != -EBUSY)
			break;
		usleep(20 * 1000);
	}
	if (err == -EBUSY && !umount2(dir, MNT_DETACH | UMOUNT_NOFOLLOW)) {
		wl__err_hint(wl, err, "(detached lazily)", "umount '%s'", dir);
		return 0;
	}
	wl__err(wl, err, "umount '%s'", dir);
	return err;
}

int wl__pread_full(int fd, void *buf, size_t len, __u64 off)
{
	unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = pread(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int wl__pwrite_full(int fd, const void *buf, size_t len, __u64 off)
{
	const unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = pwrite(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int wl__cached_pages(int fd, __u64 size, __u64 *cached, __u64 *pages)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *vec = NULL;
	void *map = MAP_FAILED;
	int err = 0;

	*cached = 0;
	*pages = (size + page - 1) / page;
	if (!size)
		return 0;
	/* mincore on a shared file mapping reports the page cache, and
	 * never faults pages in itself. */
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	vec = malloc(*pages);
	if (!vec) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (mincore(map, size, vec)) {
		err = -errno;
		goto cleanup;
	}
	for (__u64 i = 0; i < *pages; i++)
		*cached += vec[i] & 1;
cleanup:
	free(vec);
	munmap(map, size);
	return err;
}

/* The value of one "Key: N kB" line of /proc/meminfo; false if absent. */
static bool meminfo_kb(const char *key, __u64 *kb)
{
	unsigned long long v;
	size_t klen = strlen(key);
	bool found = false;
	char line[256];
	FILE *f;

	f = fopen("/proc/meminfo", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':' &&
		    sscanf(line + klen + 1, " %llu kB", &v) == 1)
			found = true;
	fclose(f);
	if (found)
		*kb = v;
	return found;
}

__u64 wl__shmem_huge_kb(void)
{
	__u64 kb = 0;

	meminfo_kb("ShmemHugePages", &kb);
	return kb;
}

__u64 wl__mem_available(void)
{
	struct sysinfo si;
	__u64 kb;

	if (meminfo_kb("MemAvailable", &kb))
		return kb << 10;
	/* Before 3.14 there is no MemAvailable: free RAM is the bound. */
	if (!sysinfo(&si))
		return (__u64)si.freeram * si.mem_unit;
	return 0;
}

int wl__check_mem(const char *wl, const char *what, __u64 need)
{
	__u64 avail = wl__mem_available();
	char hint[128];

	if (wl__mem_fits(need, avail))
		return 0;
	snprintf(hint, sizeof(hint),
		 "(needs %llu MiB of RAM, over half of MemAvailable %llu MiB)",
		 (unsigned long long)(need >> 20),
		 (unsigned long long)(avail >> 20));
	wl__err_hint(wl, -ENOMEM, hint, "%s", what);
	return -ENOMEM;
}
