// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The guest kernels: Debian 12's cloud kernels (its own 6.1 by default,
 * and the 6.12 it ships from bookworm-security/backports), each fetched
 * with apt once and kept extracted in the cache. The cloud flavour is small
 * and boots fast, has BTF, and builds loop/btrfs/xfs as modules we can ship.
 *
 * Layout: <cache>/kernels/linux-image-<release>/{boot,lib/modules,...}
 * plus a .folioscope-complete stamp written last, so a tree from an
 * interrupted run is never mistaken for a good one. Downloads happen in
 * <cache>/kernels/.tmp-XXXXXX and are renamed into place.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "vm.h"
#include "vm_internal.h"

#define PKG_PREFIX "linux-image-"
#define STAMP ".folioscope-complete"
/* MEMO-<name>: what a series' meta package resolved to, valid while apt's
 * lists are older. */
#define MEMO ".resolved"
#define APT_LISTS "/var/lib/apt/lists"
/* A .tmp dir this old belongs to a run that was killed. */
#define STALE_TMP_S (6 * 3600)

/*
 * One Debian kernel series. The meta package depends on the newest image
 * of the series; every image of it is named PKG_PREFIX + series, which
 * tells its cached trees apart from another series' (6.1.0-57 vs 6.12.57).
 */
struct debian_kernel {
	const char *name;   /* --debian NAME */
	const char *meta;   /* apt meta package */
	const char *series; /* image package name after PKG_PREFIX */
};

static const struct debian_kernel debian_kernels[] = {
	{ "6.1", "linux-image-cloud-amd64", "6.1.0-" },
	{ "6.12", "linux-image-6.12-cloud-amd64", "6.12." },
};

#define DEBIAN_DEFAULT (&debian_kernels[0])

static const struct debian_kernel *debian__find(const char *name)
{
	size_t i;

	if (!name)
		return DEBIAN_DEFAULT;
	for (i = 0; i < ARRAY_SIZE(debian_kernels); i++)
		if (!strcmp(debian_kernels[i].name, name))
			return &debian_kernels[i];
	return NULL;
}

bool vm__debian_known(const char *name, char *names, size_t n)
{
	size_t i, off = 0;
	int r;

	if (n)
		names[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(debian_kernels) && off < n; i++) {
		r = snprintf(names + off, n - off, "%s%s", i ? ", " : "",
			     debian_kernels[i].name);
		if (r < 0)
			break;
		off += r;
	}
	return debian__find(name) != NULL;
}

static int path_too_long(const char *path)
{
	err__print("vm", 0, "path too long: '%s'", path);
	return -ENAMETOOLONG;
}

int vm_cache__dir(const char *opt, char *buf, size_t n)
{
	const char *env;
	int r;

	if (opt && *opt)
		r = snprintf(buf, n, "%s", opt);
	else if ((env = getenv("FOLIOSCOPE_CACHE")) && *env)
		r = snprintf(buf, n, "%s", env);
	else if ((env = getenv("XDG_CACHE_HOME")) && *env)
		r = snprintf(buf, n, "%s/folioscope", env);
	else if ((env = getenv("HOME")) && *env)
		r = snprintf(buf, n, "%s/.cache/folioscope", env);
	else
		return -ENOENT;
	return r >= (int)n ? -ENAMETOOLONG : 0;
}

/*
 * The x86 boot protocol puts a pointer to a "6.1.0-57-cloud-amd64 (...)"
 * string in the setup header (kernel_version at 0x20e, relative to 0x200),
 * so the release is known without booting or trusting the file name.
 */
int vm_kernel__release(const char *bzimage, char *rel, size_t n)
{
	unsigned char hdr[0x210];
	char ver[256];
	unsigned int off;
	size_t i;
	int fd, err = 0;
	ssize_t r;

	fd = open(bzimage, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = pread(fd, hdr, sizeof(hdr), 0);
	if (r != (ssize_t)sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	off = hdr[0x20e] | hdr[0x20f] << 8;
	if (!off) {
		err = -ENOENT;
		goto cleanup;
	}
	r = pread(fd, ver, sizeof(ver) - 1, off + 0x200);
	if (r <= 0) {
		err = -ENOEXEC;
		goto cleanup;
	}
	ver[r] = '\0';
	for (i = 0; ver[i] && !isspace((unsigned char)ver[i]); i++)
		;
	ver[i] = '\0';
	if (!i || i >= n || strchr(ver, '/')) {
		err = -ENOEXEC;
		goto cleanup;
	}
	memcpy(rel, ver, i + 1);
cleanup:
	close(fd);
	return err;
}

/* An image package (or tree) of series dk: linux-image-<series>... */
static bool pkg_name_ok(const struct debian_kernel *dk, const char *s)
{
	size_t pl = strlen(PKG_PREFIX), sl = strlen(dk->series);

	if (strncmp(s, PKG_PREFIX, pl) || strncmp(s + pl, dk->series, sl) ||
	    strlen(s) <= pl + sl)
		return false;
	for (; *s; s++) {
		unsigned char c = *s;

		if (!islower(c) && !isdigit(c) && !strchr(".+-", c))
			return false;
	}
	return true;
}

/* linux-image-cloud-amd64 -> linux-image-6.1.0-57-cloud-amd64. apt-cache
 * reads only the local lists, so this is cheap enough for every run. */
static int package__resolve(const struct debian_kernel *dk, char *pkg, size_t n,
			    char *why, size_t wn)
{
	char *argv[] = { "apt-cache", "depends", (char *)dk->meta, NULL };
	char *out = NULL, *line, *save = NULL;
	int st, err = -ENOENT;

	st = vm_proc__capture(argv, NULL, -1, &out);
	if (st < 0) {
		vm_fs__fmt(why, wn, "cannot run apt-cache: %s", strerror(-st));
		return st;
	}
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *dep = strstr(line, "Depends: ");
		size_t len;

		if (!dep)
			continue;
		dep += strlen("Depends: ");
		dep += strspn(dep, "<");
		len = strcspn(dep, "> \t");
		dep[len] = '\0';
		if (!pkg_name_ok(dk, dep) || len >= n)
			continue;
		memcpy(pkg, dep, len + 1);
		err = 0;
		break;
	}
	free(out);
	if (err)
		vm_fs__fmt(why, wn,
			   "apt-cache knows no %s (is this Debian 12 with "
			   "bookworm-security? try apt-get update)",
			   dk->meta);
	return err;
}

static bool mtime_newer(const struct stat *a, const struct stat *b)
{
	if (a->st_mtim.tv_sec != b->st_mtim.tv_sec)
		return a->st_mtim.tv_sec > b->st_mtim.tv_sec;
	return a->st_mtim.tv_nsec >= b->st_mtim.tv_nsec;
}

/*
 * apt-cache needs ~1 s per call where apt keeps no binary cache (Docker
 * images), a tenth of a whole run. Its answer only changes when
 * "apt-get update" rewrites the lists, so remember it until then.
 */
static int package__memo_get(const struct debian_kernel *dk, const char *kdir,
			     char *pkg, size_t n)
{
	char path[PATH_MAX], *data = NULL;
	struct stat memo, lists;
	size_t len;
	int err;

	if (vm_fs__fmt(path, sizeof(path), "%s/%s-%s", kdir, MEMO, dk->name) ||
	    stat(path, &memo) || stat(APT_LISTS, &lists) ||
	    !mtime_newer(&memo, &lists))
		return -ENOENT;
	err = vm_fs__read_file(path, &data, &len);
	if (err)
		return err;
	data[strcspn(data, "\n")] = '\0';
	err = pkg_name_ok(dk, data) && strlen(data) < n ? 0 : -EINVAL;
	if (!err)
		strcpy(pkg, data);
	free(data);
	return err;
}

static void package__memo_put(const struct debian_kernel *dk, const char *kdir,
			      const char *pkg)
{
	char path[PATH_MAX], tmp[PATH_MAX], line[NAME_MAX + 2];

	if (vm_fs__fmt(path, sizeof(path), "%s/%s-%s", kdir, MEMO, dk->name) ||
	    vm_fs__fmt(tmp, sizeof(tmp), "%s.%d", path, (int)getpid()) ||
	    vm_fs__fmt(line, sizeof(line), "%s\n", pkg))
		return;
	if (vm_fs__write_file(tmp, line, strlen(line), 0644) ||
	    rename(tmp, path))
		unlink(tmp);
}

static bool tree__complete(const char *tree)
{
	char stamp[PATH_MAX];

	if (snprintf(stamp, sizeof(stamp), "%s/%s", tree, STAMP) >=
	    (int)sizeof(stamp))
		return false;
	return vm_fs__exists(stamp);
}

/* Newest complete tree of series dk in kdir, for when apt cannot answer
 * (offline). */
static int tree__newest(const struct debian_kernel *dk, const char *kdir,
			char *tree, size_t n)
{
	char best[NAME_MAX + 1] = "", path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	d = opendir(kdir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!pkg_name_ok(dk, de->d_name))
			continue;
		if (vm_fs__fmt(path, sizeof(path), "%s/%s", kdir, de->d_name) ||
		    !tree__complete(path))
			continue;
		if (!*best || strverscmp(de->d_name, best) > 0)
			snprintf(best, sizeof(best), "%s", de->d_name);
	}
	closedir(d);
	if (!*best)
		return -ENOENT;
	if (snprintf(tree, n, "%s/%s", kdir, best) >= (int)n)
		return -ENAMETOOLONG;
	return 0;
}

/* Leftovers of killed downloads would otherwise pile up (~130 MB each). */
static void tmp__sweep(const char *kdir)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	d = opendir(kdir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, ".tmp-", 5))
			continue;
		if (!vm_fs__fmt(path, sizeof(path), "%s/%s", kdir,
				de->d_name) &&
		    !lstat(path, &st) && time(NULL) - st.st_mtime > STALE_TMP_S)
			tree__remove(path, 0);
	}
	closedir(d);
}

/* Last non-empty line of a tool's log, for a one-line error. */
static void log__last_line(const char *path, char *buf, size_t n)
{
	char *data = NULL, *end, *start;

	snprintf(buf, n, "(no output)");
	if (vm_fs__read_file(path, &data, NULL))
		return;
	end = data + strlen(data);
	while (end > data && isspace((unsigned char)end[-1]))
		end--;
	*end = '\0';
	start = strrchr(data, '\n');
	start = start ? start + 1 : data;
	if (*start)
		snprintf(buf, n, "%s", start);
	free(data);
}

/* Whether a tool's log holds NEEDLE: tells a member missing from a package
 * from other failures of the same pipeline. */
static bool log__contains(const char *path, const char *needle)
{
	char *data = NULL;
	bool found;

	if (vm_fs__read_file(path, &data, NULL))
		return false;
	found = strstr(data, needle) != NULL;
	free(data);
	return found;
}

static int tool__run_logged(char *const argv[], const char *cwd,
			    const char *log, char *why, size_t wn)
{
	struct proc_io io = { .cwd = cwd, .in_fd = -1 };
	char last[256];
	int fd, st;

	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		st = -errno;
		vm_fs__fmt(why, wn, "cannot create '%s': %s", log,
			   strerror(-st));
		return st;
	}
	io.out_fd = fd;
	io.err_fd = fd;
	st = vm_proc__run(argv, &io);
	close(fd);
	if (st < 0) {
		vm_fs__fmt(why, wn, "cannot run %s: %s", argv[0],
			   strerror(-st));
		return st;
	}
	if (st) {
		log__last_line(log, last, sizeof(last));
		vm_fs__fmt(why, wn, "%s %s failed (exit %d): %s", argv[0],
			   argv[1], st, last);
		return -EIO;
	}
	return 0;
}

/* Finds the one .deb apt-get download left in dir. */
static int deb__find(const char *dir, char *deb, size_t n)
{
	struct dirent *de;
	int err = -ENOENT;
	size_t len;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len > 4 && !strcmp(de->d_name + len - 4, ".deb")) {
			if (snprintf(deb, n, "%s/%s", dir, de->d_name) < (int)n)
				err = 0;
			break;
		}
	}
	closedir(d);
	return err;
}

/*
 * A download is staged in DIR/.tmp-XXXXXX (tmp__sweep removes those a dead
 * run left) and becomes the cache tree in one rename, so a tree that exists
 * is complete. The kernel and its -dbg package share this; only what they
 * extract and check between fetch and commit differs.
 */
struct staging {
	char tmp[PATH_MAX], log[PATH_MAX], root[PATH_MAX], deb[PATH_MAX];
};

/* Makes the staging dir and fetches PKG's .deb into it with apt-get. On
 * error the caller still calls staging__end. */
static int staging__fetch(struct staging *st, const char *dir, const char *pkg,
			  char *why, size_t wn)
{
	char *argv[] = { "apt-get", "download", (char *)pkg, NULL };
	int err;

	st->tmp[0] = '\0';
	tmp__sweep(dir);
	if (vm_fs__fmt(st->tmp, sizeof(st->tmp), "%s/.tmp-XXXXXX", dir)) {
		st->tmp[0] = '\0';
		vm_fs__fmt(why, wn, "cache path too long");
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(st->tmp)) {
		err = -errno;
		st->tmp[0] = '\0';
		vm_fs__fmt(why, wn, "cannot create a temp dir in '%s': %s", dir,
			   strerror(-err));
		return err;
	}
	if (vm_fs__fmt(st->log, sizeof(st->log), "%s/log", st->tmp) ||
	    vm_fs__fmt(st->root, sizeof(st->root), "%s/root", st->tmp)) {
		vm_fs__fmt(why, wn, "cache path too long");
		return -ENAMETOOLONG;
	}
	err = tool__run_logged(argv, st->tmp, st->log, why, wn);
	if (err)
		return err;
	err = deb__find(st->tmp, st->deb, sizeof(st->deb));
	if (err)
		vm_fs__fmt(why, wn, "apt-get download %s left no .deb", pkg);
	return err;
}

/* Stamps the extracted root with PKG and renames it to TREE. */
static int staging__commit(struct staging *st, const char *pkg,
			   const char *tree, char *why, size_t wn)
{
	char path[PATH_MAX];
	int err;

	err = vm_fs__fmt(path, sizeof(path), "%s/%s", st->root, STAMP);
	if (!err)
		err = vm_fs__write_file(path, pkg, strlen(pkg), 0644);
	if (err) {
		vm_fs__fmt(why, wn, "cannot write '%s': %s", path,
			   strerror(-err));
		return err;
	}
	if (!rename(st->root, tree))
		return 0;
	err = -errno;
	/* A concurrent run may have won the race: its tree is good. */
	if ((err == -EEXIST || err == -ENOTEMPTY) && tree__complete(tree))
		return 0;
	vm_fs__fmt(why, wn, "cannot rename '%s' to '%s': %s", st->root, tree,
		   strerror(-err));
	return err;
}

static void staging__end(struct staging *st)
{
	if (st->tmp[0])
		tree__remove(st->tmp, 0);
}

static int package__download(const char *kdir, const char *pkg,
			     const char *tree, char *why, size_t wn)
{
	const char *release = pkg + strlen(PKG_PREFIX);
	char depmod[PATH_MAX], path[PATH_MAX];
	struct staging st;
	int err;

	err__print("vm", 0, "downloading %s (once, into %s)", pkg, kdir);
	err = staging__fetch(&st, kdir, pkg, why, wn);
	if (err)
		goto cleanup;
	{
		char *argv[] = { "dpkg-deb", "-x", st.deb, st.root, NULL };

		err = tool__run_logged(argv, st.tmp, st.log, why, wn);
		if (err)
			goto cleanup;
	}
	if (vm_fs__fmt(path, sizeof(path), "%s/boot/vmlinuz-%s", st.root,
		       release) ||
	    !vm_fs__exists(path)) {
		err = -ENOENT;
		vm_fs__fmt(why, wn, "%s has no boot/vmlinuz-%s", pkg, release);
		goto cleanup;
	}
	/* busybox modprobe in the guest needs modules.dep, which Debian
	 * generates in the postinst we never run. */
	err = exe__find("depmod", &vm_tool_search, depmod, sizeof(depmod));
	if (err) {
		vm_fs__fmt(why, wn, "cannot find depmod (install kmod): %s",
			   strerror(-err));
		goto cleanup;
	}
	{
		char *argv[] = { depmod, "-b", st.root, (char *)release, NULL };

		err = tool__run_logged(argv, st.tmp, st.log, why, wn);
		if (err)
			goto cleanup;
	}
	err = staging__commit(&st, pkg, tree, why, wn);
cleanup:
	staging__end(&st);
	return err;
}

int vm__default_kernel(const char *cache_dir, const char *debian, char *bzimage,
		       size_t n, char *moddir, size_t m)
{
	char cache[PATH_MAX], kdir[PATH_MAX], tree[PATH_MAX], pkg[NAME_MAX];
	char why[PATH_MAX + 256] = "", names[64];
	const struct debian_kernel *dk = debian__find(debian);
	const char *release;
	int err;

	if (!dk) {
		vm__debian_known(debian, names, sizeof(names));
		err__print("vm", 0, "no Debian kernel '%s' (%s)", debian,
			   names);
		return -EINVAL;
	}

	err = vm_cache__dir(cache_dir, cache, sizeof(cache));
	if (err) {
		err__print("vm", 0,
			   "no cache dir: set FOLIOSCOPE_CACHE or HOME");
		return err;
	}
	if (snprintf(kdir, sizeof(kdir), "%s/kernels", cache) >=
	    (int)sizeof(kdir))
		return path_too_long(cache);
	err = vm_fs__mkdir_p(kdir, 0755);
	if (err) {
		err__print("vm", err, "cannot create '%s'", kdir);
		return err;
	}

	err = package__memo_get(dk, kdir, pkg, sizeof(pkg));
	if (err) {
		err = package__resolve(dk, pkg, sizeof(pkg), why, sizeof(why));
		if (!err)
			package__memo_put(dk, kdir, pkg);
	}
	if (!err) {
		if (snprintf(tree, sizeof(tree), "%s/%s", kdir, pkg) >=
		    (int)sizeof(tree))
			return path_too_long(kdir);
		if (!tree__complete(tree))
			err = package__download(kdir, pkg, tree, why,
						sizeof(why));
	}
	if (err) {
		/* Offline or apt broken: an older cached kernel still works. */
		if (tree__newest(dk, kdir, tree, sizeof(tree))) {
			err__print("vm", 0, "no Debian %s kernel: %s", dk->name,
				   why);
			return err;
		}
		err__print("vm", 0, "warning: %s; using cached %s", why, tree);
	}

	release = strrchr(tree, '/') + 1 + strlen(PKG_PREFIX);
	if (snprintf(bzimage, n, "%s/boot/vmlinuz-%s", tree, release) >=
		    (int)n ||
	    snprintf(moddir, m, "%s", tree) >= (int)m)
		return path_too_long(tree);
	return 0;
}

/*
 * A Debian kernel's DWARF: linux-image-<release>-dbg, ~280 MB, fetched
 * only for vm --debuginfo. Of the package only the vmlinux is kept (the
 * modules' debug files are gigabytes unpacked), at
 * <cache>/debuginfo/linux-image-<release>-dbg/usr/lib/debug/boot/vmlinux-
 * <release>, the path the package installs it at, with the same stamp and
 * temp-dir rules as the kernels.
 */
#define DBG_VMLINUX "usr/lib/debug/boot/vmlinux-"

static int debuginfo__extract(const char *deb, const char *root,
			      const char *release, const char *log, char *why,
			      size_t wn)
{
	char member[PATH_MAX];
	/* $0 $1 $2: never expanded inside the script text. */
	char *argv[] = { "sh",
			 "-c",
			 "mkdir -p \"$1\" && dpkg-deb --fsys-tarfile \"$0\" | "
			 "LC_ALL=C tar -x -C \"$1\" \"$2\"",
			 (char *)deb,
			 (char *)root,
			 member,
			 NULL };

	if (vm_fs__fmt(member, sizeof(member), "./%s%s", DBG_VMLINUX, release))
		return -ENAMETOOLONG;
	return tool__run_logged(argv, NULL, log, why, wn);
}

static int debuginfo__download(const char *ddir, const char *pkg,
			       const char *release, const char *tree, char *why,
			       size_t wn)
{
	char path[PATH_MAX];
	struct staging st;
	struct stat sb;
	time_t t0 = time(NULL);
	int err;

	err__print("vm", 0, "downloading %s (once, about 300 MB, into %s)", pkg,
		   ddir);
	err = staging__fetch(&st, ddir, pkg, why, wn);
	if (err)
		goto cleanup;
	if (!stat(st.deb, &sb))
		err__print("vm", 0,
			   "got %lld MB in %lld s; extracting vmlinux-%s",
			   (long long)sb.st_size >> 20,
			   (long long)(time(NULL) - t0), release);
	err = debuginfo__extract(st.deb, st.root, release, st.log, why, wn);
	if (err && !log__contains(st.log, "Not found in archive"))
		goto cleanup;
	if (err ||
	    vm_fs__fmt(path, sizeof(path), "%s/%s%s", st.root, DBG_VMLINUX,
		       release) ||
	    !vm_fs__exists(path)) {
		err = -ENOENT;
		vm_fs__fmt(why, wn, "%s has no /%s%s", pkg, DBG_VMLINUX,
			   release);
		goto cleanup;
	}
	err = staging__commit(&st, pkg, tree, why, wn);
	if (!err)
		err__print("vm", 0, "%s ready after %lld s", pkg,
			   (long long)(time(NULL) - t0));
cleanup:
	staging__end(&st);
	return err;
}

int vm__debian_debuginfo(const char *cache_dir, const char *release,
			 char *vmlinux, size_t n)
{
	char cache[PATH_MAX], ddir[PATH_MAX], tree[PATH_MAX], pkg[NAME_MAX];
	char why[PATH_MAX + 256] = "";
	int err;

	if (!release || !*release || strchr(release, '/')) {
		err__print("vm", 0,
			   "--debuginfo: the kernel's release is unknown");
		return -EINVAL;
	}
	err = vm_cache__dir(cache_dir, cache, sizeof(cache));
	if (err) {
		err__print("vm", 0,
			   "no cache dir: set FOLIOSCOPE_CACHE or HOME");
		return err;
	}
	if (vm_fs__fmt(ddir, sizeof(ddir), "%s/debuginfo", cache) ||
	    vm_fs__fmt(pkg, sizeof(pkg), "%s%s-dbg", PKG_PREFIX, release) ||
	    vm_fs__fmt(tree, sizeof(tree), "%s/%s", ddir, pkg))
		return path_too_long(cache);
	err = vm_fs__mkdir_p(ddir, 0755);
	if (err) {
		err__print("vm", err, "cannot create '%s'", ddir);
		return err;
	}
	if (!tree__complete(tree)) {
		err = debuginfo__download(ddir, pkg, release, tree, why,
					  sizeof(why));
		if (err) {
			err__print("vm", 0, "--debuginfo: %s", why);
			return err;
		}
	}
	if (snprintf(vmlinux, n, "%s/%s%s", tree, DBG_VMLINUX, release) >=
	    (int)n)
		return path_too_long(tree);
	return 0;
}
