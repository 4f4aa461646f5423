// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The guest's whole root file system: an uncompressed newc cpio that the
 * kernel unpacks into rootfs. It holds busybox, folioscope, the host's
 * mkfs.btrfs/mkfs.xfs with their libraries, the loop/btrfs/xfs modules,
 * /init and /args. Nothing is compressed: the kernel unpacks ~20 MB of
 * plain cpio faster than it would inflate it, and we skip a gzip pass.
 *
 * The staging tree holds symlinks to the host's files, which cpio -L
 * archives as the files they point to, and the few files made here
 * (/init, /args, a generated modules.dep); the archive goes into an
 * unlinked file. So a vm killed at any point leaves a work dir of a few
 * KB, and nothing is copied twice (a vmlinux with DWARF is 600 MB). The
 * guest's own links (busybox's applets) are made by /init at boot.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "vm_internal.h"

/* Modules folioscope's workloads need: loop devices to hold file systems,
 * btrfs for dedupe, xfs as the second reflink file system. */
static const char *const modules_wanted[] = { "loop", "btrfs", "xfs" };

/* Index files beside the modules; busybox modprobe reads modules.dep. */
static const char *const modules_meta[] = {
	"modules.dep",	       "modules.dep.bin",
	"modules.alias",       "modules.alias.bin",
	"modules.softdep",     "modules.symbols",
	"modules.symbols.bin", "modules.builtin",
	"modules.builtin.bin", "modules.builtin.alias.bin",
	"modules.order",       "modules.devname",
};

/* Host tools folioscope runs in the guest to make its scratch file
 * systems; dynamically linked, so their libraries come along. */
static const char *const host_tools[] = { "mkfs.btrfs", "mkfs.xfs" };

static const char init_script[] =
	"#!/bin/busybox sh\n"
	"# /init of a folioscope VM, written by folioscope vm.\n"
	"# Runs /bin/folioscope (or vm --exec's script) once with the\n"
	"# arguments in /args, then powers\n"
	"# off. ttyS0: console; ttyS1/ttyS2: folioscope's stdout/stderr;\n"
	"# ttyS3: control, \"FILE n size\" + base64 + \"END n\" per output\n"
	"# file, then \"EXIT status\", which vm answers with \"ACK\".\n"
	"export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root TERM=dumb\n"
	"# The applets' links (the kernel's request_module() runs\n"
	"# /sbin/modprobe); --install finds busybox through /proc.\n"
	"/bin/busybox mount -t proc proc /proc\n"
	"/bin/busybox --install -s\n"
	"mount -t sysfs sysfs /sys\n"
	"mount -t devtmpfs devtmpfs /dev\n"
	"exec </dev/null >/dev/ttyS0 2>&1\n"
	"# --with files under /tmp keep their paths on the tmpfs mounted\n"
	"# there.\n"
	"/bin/busybox mv /tmp /.with-tmp 2>/dev/null\n"
	"/bin/busybox mkdir -p /tmp\n"
	"mount -t tmpfs tmpfs /tmp\n"
	"if [ -d /.with-tmp ]; then\n"
	"\t/bin/busybox cp -a /.with-tmp/. /tmp/ && /bin/busybox rm -rf "
	"/.with-tmp\n"
	"fi\n"
	"mount -t tracefs tracefs /sys/kernel/tracing\n"
	"mount -t debugfs debugfs /sys/kernel/debug\n"
	"mount -t bpf bpf /sys/fs/bpf\n"
	"# Built-in or missing modules are fine: the command reports what\n"
	"# it lacks better than we could.\n"
	"for m in loop btrfs xfs; do\n"
	"\tmodprobe \"$m\" || echo \"init: modprobe $m failed\"\n"
	"done\n"
	"ulimit -l unlimited\n"
	"# Raw: no \\n -> \\r\\n, no echo, bytes pass through unchanged.\n"
	"for t in 1 2 3; do\n"
	"\tstty -F /dev/ttyS$t raw -echo\n"
	"done\n"
	"# What goes out on a tty goes out from a child of this shell: as\n"
	"# PID 1 it gets a SIGCHLD for every orphan that exits, and one that\n"
	"# comes while it closes a tty's last fd cuts short the close's wait\n"
	"# for the UART to send it all: the kernel then drops what is left.\n"
	"(echo READY >/dev/ttyS3)\n"
	". /args\n"
	"# The outputs on ramfs: read back through the page cache alone,\n"
	"# not through tmpfs, whose reads may be what the kernel under\n"
	"# test gets wrong.\n"
	"mount -t ramfs ramfs /out\n"
	"cd /out\n"
	"# The command's status comes through a fifo: its subshell writes it\n"
	"# when the command exits, or folioscope itself when a thread of it\n"
	"# is stuck in the kernel for good (the process then never finishes\n"
	"# exiting, and waiting for it would hang the guest).\n"
	"# Held open read-write: opening it never blocks, so no signal\n"
	"# can interrupt the open (as PID 1 this shell gets SIGCHLD for\n"
	"# every orphan that exits), and a read never sees end of file.\n"
	"mkfifo /run/exit\n"
	"exec 4<>/run/exit\n"
	"export FOLIOSCOPE_VM_EXIT=/run/exit\n"
	"# vm --exec puts a script in /bin/vm-exec and names it in /args.\n"
	"(\"${VM_CMD:-/bin/folioscope}\" \"$@\" </dev/null >/dev/ttyS1 "
	"2>/dev/ttyS2 4<&-; echo $? >/run/exit) &\n"
	"until read st <&4; do :; done\n"
	"exec 4<&-\n"
	"cd /\n"
	"# The outputs and the status, from a child (see READY above).\n"
	"(\n"
	"exec 3<>/dev/ttyS3\n"
	"for f in /out/*; do\n"
	"\tn=${f#/out/}\n"
	"\tn=${n%%.*}\n"
	"\tcase $n in ''|*[!0-9]*) continue ;; esac\n"
	"\t[ -f \"$f\" ] || continue\n"
	"\techo \"FILE $n $(wc -c <\"$f\")\" >&3\n"
	"\tbase64 \"$f\" >&3\n"
	"\techo \"END $n\" >&3\n"
	"done\n"
	"echo \"EXIT $st\" >&3\n"
	"# vm answers the status line with ACK on this port: once that is\n"
	"# here, the host has every line before it, and powering off loses\n"
	"# nothing. Without it (30 s), the close below still waits for the\n"
	"# UART to send it all.\n"
	"read -t 30 ack <&3 || echo \"init: no answer to EXIT from vm\"\n"
	"exec 3>&-\n"
	")\n"
	"poweroff -f\n";

struct stage {
	const char *root; /* staging dir */
	bool verbose;
};

static int stage__path(const struct stage *s, const char *guest, char *buf,
		       size_t n)
{
	return vm_fs__fmt(buf, n, "%s/%s", s->root,
			  guest[0] == '/' ? guest + 1 : guest);
}

/* host made absolute (symlinks resolve relative to themselves). */
static int abs_path(const char *host, char *buf, size_t n)
{
	char cwd[PATH_MAX];

	if (host[0] == '/')
		return vm_fs__fmt(buf, n, "%s", host);
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	return vm_fs__fmt(buf, n, "%s/%s", cwd, host);
}

/* Puts host's file at guest: a link that cpio -L follows. */
static int stage__link(const struct stage *s, const char *host,
		       const char *guest)
{
	char dst[PATH_MAX], target[PATH_MAX];
	int err;

	err = abs_path(host, target, sizeof(target));
	if (!err)
		err = stage__path(s, guest, dst, sizeof(dst));
	if (!err)
		err = vm_fs__mkdir_parents(dst, 0755);
	if (!err && symlink(target, dst))
		err = -errno;
	if (err)
		err__print("vm", err, "cannot put '%s' into the initramfs",
			   host);
	return err;
}

/*
 * Copies an ELF file to guest (same path on both sides for libraries) and,
 * if it is dynamically linked, every library ldd lists plus the loader.
 * ldd prints "name => /path (addr)" or "/path (addr)"; static binaries
 * give no paths at all.
 */
static int stage__elf(const struct stage *s, const char *host,
		      const char *ldd_path, const char *guest)
{
	char *argv[] = { "ldd", (char *)ldd_path, NULL };
	char *out = NULL, *line, *save = NULL, dst[PATH_MAX];
	int err, st;

	err = stage__link(s, host, guest);
	if (err)
		return err;
	st = vm_proc__capture(argv, NULL, -1, &out);
	if (st < 0) {
		err__print("vm", st, "cannot run ldd on '%s'", host);
		return st;
	}
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *lib = strstr(line, "=> ");

		lib = lib ? lib + 3 : line + strspn(line, " \t");
		if (!strncmp(lib, "not found", 9)) {
			err__print("vm", 0,
				   "'%s' needs a library the host lacks: %s",
				   host, line + strspn(line, " \t"));
			err = -ENOENT;
			break;
		}
		if (lib[0] != '/')
			continue; /* linux-vdso.so.1, "statically linked" */
		lib[strcspn(lib, " \t(")] = '\0';
		err = stage__path(s, lib, dst, sizeof(dst));
		if (err)
			break;
		if (vm_fs__exists(dst))
			continue;
		err = stage__link(s, lib, lib);
		if (err)
			break;
	}
	free(out);
	return err;
}

/* "kernel/fs/btrfs/btrfs.ko.xz" -> "btrfs"; '-' and '_' are the same to
 * modprobe, so compare names with both folded to '_'. */
static bool module__is(const char *path, size_t len, const char *name)
{
	const char *base = path, *p;
	size_t blen, i;

	for (p = path; p < path + len; p++)
		if (*p == '/')
			base = p + 1;
	blen = strlen(name);
	if ((size_t)(path + len - base) < blen + 3)
		return false;
	for (i = 0; i < blen; i++) {
		char a = base[i] == '-' ? '_' : base[i];
		char b = name[i] == '-' ? '_' : name[i];

		if (a != b)
			return false;
	}
	return !strncmp(base + blen, ".ko", 3);
}

/* Generates modules.dep text with "depmod -n" for a tree that lacks it
 * (e.g. a package extracted by hand); only "x.ko: deps" lines are kept. */
static int modules__gen_dep(const char *moddir, const char *release, char **dep)
{
	char depmod[PATH_MAX], *out = NULL, *line, *save = NULL, *w, *end;
	int err;

	err = exe__find("depmod", &vm_tool_search, depmod, sizeof(depmod));
	if (err)
		return err;
	{
		char *argv[] = { depmod,	  "-n", "-b", (char *)moddir,
				 (char *)release, NULL };

		err = vm_proc__capture(argv, NULL, -1, &out);
	}
	if (err)
		return err < 0 ? err : -EIO;
	w = out;
	end = out + strlen(out);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t key = strcspn(line, ": \t");

		/* Other sections start with '#' or "alias x y", "softdep". */
		if (line[0] == '#' || line[key] != ':' ||
		    !memmem(line, key, ".ko", 3))
			continue;
		/* Compacting in place: w never passes the '\0' strtok_r
		 * left at this line's end, so the next line is intact. */
		key = strlen(line);
		memmove(w, line, key);
		w += key;
		*w++ = '\n';
	}
	if (w > end)
		w = end; /* kept the last line whole: it had no '\n' */
	*w = '\0';
	*dep = out;
	return 0;
}

/* Links one module of src_dir (absolute) at the same relative path in
 * dst_dir. */
static int modules__link_one(const char *src_dir, const char *dst_dir,
			     const char *rel, size_t len)
{
	char src[PATH_MAX], dst[PATH_MAX];
	int err;

	if (vm_fs__fmt(src, sizeof(src), "%s/%.*s", src_dir, (int)len, rel) ||
	    vm_fs__fmt(dst, sizeof(dst), "%s/%.*s", dst_dir, (int)len, rel))
		return -ENAMETOOLONG;
	/* Listed but absent (a pruned tree): skip, like a built-in one. */
	if (vm_fs__exists(dst) || !vm_fs__exists(src))
		return 0;
	err = vm_fs__mkdir_parents(dst, 0755);
	if (!err && symlink(src, dst))
		err = -errno;
	return err;
}

/*
 * Ships modules_wanted and everything modules.dep says they need (its
 * lists are already transitive). A kernel without a modules tree, or a
 * module that is built in or absent, is skipped without a word: the
 * guest's modprobe failing is not fatal.
 */
static int modules__stage(const struct stage *s, const char *moddir,
			  const char *release)
{
	char src_dir[PATH_MAX], dst_dir[PATH_MAX], path[PATH_MAX];
	char *dep = NULL, *line, *save = NULL, *gen = NULL;
	bool have_dep;
	size_t i;
	int err;

	if (!moddir || !release)
		return 0;
	if (abs_path(moddir, path, sizeof(path)) ||
	    vm_fs__fmt(src_dir, sizeof(src_dir), "%s/lib/modules/%s", path,
		       release) ||
	    vm_fs__fmt(dst_dir, sizeof(dst_dir), "%s/lib/modules/%s", s->root,
		       release))
		return -ENAMETOOLONG;
	if (!vm_fs__is_dir(src_dir)) {
		if (s->verbose)
			err__print("vm", 0, "no '%s': no modules in the guest",
				   src_dir);
		return 0;
	}
	err = vm_fs__mkdir_p(dst_dir, 0755);
	if (err)
		goto cleanup;

	err = vm_fs__fmt(path, sizeof(path), "%s/modules.dep", src_dir);
	if (err)
		goto cleanup;
	have_dep = !vm_fs__read_file(path, &dep, NULL);
	if (!have_dep) {
		err = modules__gen_dep(moddir, release, &gen);
		if (err) {
			if (s->verbose)
				err__print(
					"vm", 0,
					"no modules.dep in '%s' and depmod -n "
					"failed: %s",
					src_dir, strerror(-err));
			err = 0;
			goto cleanup;
		}
		dep = strdup(gen);
		if (!dep) {
			err = -ENOMEM;
			goto cleanup;
		}
		err = vm_fs__fmt(path, sizeof(path), "%s/modules.dep", dst_dir);
		if (!err)
			err = vm_fs__write_file(path, gen, strlen(gen), 0644);
		if (err)
			goto cleanup;
	}

	for (line = strtok_r(dep, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *d, *dsave = NULL;
		bool want = false;

		if (!colon)
			continue;
		for (i = 0; i < ARRAY_SIZE(modules_wanted); i++)
			want |= module__is(line, colon - line,
					   modules_wanted[i]);
		if (!want)
			continue;
		err = modules__link_one(src_dir, dst_dir, line, colon - line);
		if (err)
			goto cleanup;
		for (d = strtok_r(colon + 1, " \t", &dsave); d;
		     d = strtok_r(NULL, " \t", &dsave)) {
			err = modules__link_one(src_dir, dst_dir, d, strlen(d));
			if (err)
				goto cleanup;
		}
	}

	for (i = 0; i < ARRAY_SIZE(modules_meta); i++) {
		char src[PATH_MAX];

		if (vm_fs__fmt(src, sizeof(src), "%s/%s", src_dir,
			       modules_meta[i]) ||
		    vm_fs__fmt(path, sizeof(path), "%s/%s", dst_dir,
			       modules_meta[i]))
			continue;
		if (!vm_fs__exists(src) || vm_fs__exists(path))
			continue;
		if (symlink(src, path)) {
			err = -errno;
			goto cleanup;
		}
	}
cleanup:
	if (err)
		err__print("vm", err, "cannot stage modules from '%s'",
			   src_dir);
	free(dep);
	free(gen);
	return err;
}

static int stage__busybox(const struct stage *s)
{
	/* busybox-static normally; a dynamic one brings its libraries. */
	if (!vm_fs__exists("/bin/busybox")) {
		err__print("vm", 0,
			   "no /bin/busybox on the host "
			   "(install busybox-static)");
		return -ENOENT;
	}
	return stage__elf(s, "/bin/busybox", "/bin/busybox", "/bin/busybox");
}

/*
 * vm --with: each file at its own path in the guest, with its libraries
 * if it is a dynamic ELF file (ldd on anything else lists none). vm
 * --exec: the script as /bin/vm-exec, run by its #! line.
 */
static int stage__extra(const struct stage *s,
			const struct initramfs_spec *spec)
{
	char abs[PATH_MAX], cwd[PATH_MAX];
	const char *w;
	int i, err;

	for (i = 0; i < spec->nwith; i++) {
		w = spec->with[i];
		/* The path as given, made absolute: symlinks keep their name.
		 */
		if (w[0] == '/')
			err = vm_fs__fmt(abs, sizeof(abs), "%s", w);
		else if (!getcwd(cwd, sizeof(cwd)))
			err = -errno;
		else
			err = vm_fs__fmt(abs, sizeof(abs), "%s/%s", cwd, w);
		if (!err && access(abs, R_OK))
			err = -errno;
		if (err) {
			err__print("vm", err, "cannot read '%s'", w);
			return err;
		}
		err = stage__elf(s, abs, abs, abs);
		if (err)
			return err;
	}
	if (spec->debuginfo) {
		char guest[PATH_MAX];

		if (!spec->release ||
		    vm_fs__fmt(guest, sizeof(guest),
			       "/usr/lib/debug/boot/vmlinux-%s", spec->release))
			return -EINVAL;
		err = stage__link(s, spec->debuginfo, guest);
		if (err)
			return err;
	}
	/* A copy, small and always executable: /init runs it directly. */
	if (spec->exec) {
		char dst[PATH_MAX];

		err = stage__path(s, "/bin/vm-exec", dst, sizeof(dst));
		if (!err)
			err = vm_fs__copy_file(spec->exec, dst, 0755);
		if (err)
			err__print("vm", err,
				   "cannot copy '%s' into the initramfs",
				   spec->exec);
		return err;
	}
	return 0;
}

/* Arguments reach the guest as one sourced "set -- 'a' 'b'" line: single
 * quotes keep every byte literal, so nothing is ever expanded. */
static int stage__args(const struct stage *s, int argc, char **argv, bool exec)
{
	char *buf = NULL, path[PATH_MAX];
	size_t len = 0;
	int i, err;

	/* A guest's stderr is a serial tty: progress lines and erase
	 * escapes only when ours is a terminal. */
	if (asprintf(&buf, "export FOLIOSCOPE_TTY=%d; %sset --",
		     tty__stderr() ? 1 : 0,
		     exec ? "VM_CMD=/bin/vm-exec; " : "") < 0)
		return -ENOMEM;
	len = strlen(buf);
	for (i = 0; i < argc; i++) {
		char *nb = realloc(buf, len + 2);

		if (!nb) {
			err = -ENOMEM;
			goto cleanup;
		}
		buf = nb;
		buf[len++] = ' ';
		buf[len] = '\0';
		err = vm_fs__shell_quote(&buf, &len, argv[i]);
		if (err)
			goto cleanup;
	}
	err = stage__path(s, "/args", path, sizeof(path));
	if (!err) {
		buf[len] = '\n'; /* shell_quote left room for the NUL */
		err = vm_fs__write_file(path, buf, len + 1, 0644);
	}
cleanup:
	if (err)
		err__print("vm", err, "cannot write the guest's /args");
	free(buf);
	return err;
}

/* cpio takes its file list on stdin: directories first, so pre-order. */
static int cpio__list(FILE *f, const char *root, const char *rel)
{
	char path[PATH_MAX], sub[PATH_MAX];
	struct dirent *de;
	int err = 0;
	DIR *d;

	if (vm_fs__fmt(path, sizeof(path), "%s/%s", root, rel))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (vm_fs__fmt(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
			       de->d_name)) {
			err = -ENAMETOOLONG;
			break;
		}
		fprintf(f, "%s\n", sub);
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			if (!fstatat(dirfd(d), de->d_name, &st,
				     AT_SYMLINK_NOFOLLOW) &&
			    S_ISDIR(st.st_mode))
				de->d_type = DT_DIR;
		}
		if (de->d_type == DT_DIR) {
			err = cpio__list(f, root, sub);
			if (err)
				break;
		}
	}
	closedir(d);
	return err;
}

/* The first line cpio said on stderr (err_fd), for its error line. */
static void cpio__why(int err_fd, char *buf, size_t n)
{
	ssize_t got = pread(err_fd, buf, n - 1, 0);

	buf[got > 0 ? got : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* The archive of root into out: -L, so the links to host files are
 * archived as those files. */
static int cpio__write(const char *root, const char *workdir, int out)
{
	char *argv[] = { "cpio", "--quiet", "-o",  "-L", "-H",
			 "newc", "-R",	    "0:0", NULL };
	struct proc_io io = { .cwd = root, .out_fd = out };
	char why[256];
	int lst = -1, lg = -1, err, st;
	FILE *f = NULL;

	lst = vm_fs__tmpfile(workdir);
	lg = vm_fs__tmpfile(workdir);
	if (lst < 0 || lg < 0) {
		err = lst < 0 ? lst : lg;
		goto cleanup;
	}
	f = fdopen(dup(lst), "w");
	if (!f) {
		err = -errno;
		goto cleanup;
	}
	err = cpio__list(f, root, "");
	if (fclose(f) && !err)
		err = -errno;
	if (err)
		goto cleanup;
	if (lseek(lst, 0, SEEK_SET) < 0) {
		err = -errno;
		goto cleanup;
	}
	io.in_fd = lst;
	io.err_fd = lg;
	st = vm_proc__run(argv, &io);
	if (st < 0) {
		err__print("vm", st, "cannot run cpio");
		err = st;
	} else if (st) {
		cpio__why(lg, why, sizeof(why));
		err__print("vm", 0, "cpio failed (exit %d)%s%s", st,
			   why[0] ? ": " : "", why);
		err = -EIO;
	}
	goto done;
cleanup:
	err__print("vm", err, "cannot write the initramfs in '%s'", workdir);
done:
	if (lst >= 0)
		close(lst);
	if (lg >= 0)
		close(lg);
	return err;
}

static int stage__all(const struct initramfs_spec *spec, const char *root,
		      const char *workdir);

int vm_initramfs__build(const struct initramfs_spec *spec, const char *workdir,
			int *fd)
{
	char root[PATH_MAX];
	int err;

	*fd = -1;
	err = vm_fs__fmt(root, sizeof(root), "%s/staging", workdir);
	if (err) {
		err__print("vm", err, "cannot stage the initramfs in '%s'",
			   workdir);
		return err;
	}
	err = stage__all(spec, root, workdir);
	if (!err) {
		*fd = vm_fs__tmpfile(workdir);
		if (*fd < 0) {
			err = *fd;
			err__print("vm", err,
				   "cannot create the initramfs in '%s'",
				   workdir);
		}
	}
	if (!err)
		err = cpio__write(root, workdir, *fd);
	tree__remove(root, 0);
	if (err && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	return err;
}

/* The staging tree at root: links to the host's files, and ours. */
static int stage__all(const struct initramfs_spec *spec, const char *root,
		      const char *workdir)
{
	static const char *const dirs[] = {
		"bin", "sbin", "dev", "proc", "sys",	 "tmp",
		"out", "root", "run", "etc",  "usr/bin", "usr/sbin"
	};
	char path[PATH_MAX], tool[PATH_MAX];
	char self[PATH_MAX], self_link[64];
	const char *bin = spec->binary, *ldd_bin;
	struct stage s = { .root = root, .verbose = spec->verbose };
	size_t i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		err = vm_fs__fmt(path, sizeof(path), "%s/%s", root, dirs[i]);
		if (!err)
			err = vm_fs__mkdir_p(path, 0755);
		if (err)
			goto fail;
	}

	err = stage__busybox(&s);
	if (err)
		return err;

	/* ldd runs a loader on its argument, so /proc/self/exe must be
	 * resolved first. The link names this process's exe by its pid, not
	 * "self", which would be cpio's: it still reads our binary even if
	 * the file was replaced since we started. */
	if (!bin || !strcmp(bin, "/proc/self/exe")) {
		snprintf(self_link, sizeof(self_link), "/proc/%ld/exe",
			 (long)getpid());
		bin = self_link;
	}
	ldd_bin = bin;
	if (bin == self_link && realpath(bin, self))
		ldd_bin = self;
	err = stage__elf(&s, bin, ldd_bin, "/bin/folioscope");
	if (err)
		return err;

	for (i = 0; i < ARRAY_SIZE(host_tools); i++) {
		if (exe__find(host_tools[i], &vm_tool_search, tool,
			      sizeof(tool))) {
			err__print("vm", 0,
				   "warning: no %s on the host; the "
				   "guest will lack it",
				   host_tools[i]);
			continue;
		}
		err = stage__elf(&s, tool, tool, tool);
		if (err)
			return err;
	}

	err = modules__stage(&s, spec->moddir, spec->release);
	if (err)
		return err;

	err = stage__path(&s, "/init", path, sizeof(path));
	if (!err)
		err = vm_fs__write_file(path, init_script,
					sizeof(init_script) - 1, 0755);
	if (err)
		goto fail;
	err = stage__extra(&s, spec);
	if (err)
		return err;
	return stage__args(&s, spec->argc, spec->argv, spec->exec != NULL);
fail:
	err__print("vm", err, "cannot stage the initramfs in '%s'", workdir);
	return err;
}
