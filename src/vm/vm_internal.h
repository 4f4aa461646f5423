/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internals of the VM runner, shared by the files in src/vm/ only.
 * Every function that fails prints nothing unless it says so, and returns
 * a negative errno; the caller names the object in its one error line.
 */
#ifndef FS_VM_INTERNAL_H
#define FS_VM_INTERNAL_H

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "util/util.h"
#include "vm.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/proc.h"

#define VM_ERR_PREFIX "folioscope: vm: "

/* Guest serial ports: one per channel, so nothing needs demultiplexing. */
enum vm_chan_id {
	VM_CHAN_CONSOLE, /* ttyS0: kernel console and /init's messages */
	VM_CHAN_STDOUT,	 /* ttyS1: folioscope's stdout */
	VM_CHAN_STDERR,	 /* ttyS2: folioscope's stderr */
	VM_CHAN_CONTROL, /* ttyS3: output files, then "EXIT <status>" */
	VM_CHAN_NR,
};

/* ---- proc.c: run host tools with fork/exec, never through a shell ---- */

/* proc__spawn + proc__wait (util/proc.h). */
int vm_proc__run(char *const argv[], const struct proc_io *io);
/* Runs argv with stdout captured into a malloc'd NUL-terminated *out
 * (stderr to err_fd, -1 = /dev/null). Returns the exit status or -errno. */
int vm_proc__capture(char *const argv[], const char *cwd, int err_fd,
		     char **out);
/* Prints "cmd arg 'arg 2' ..." to f, quoted for a POSIX shell. */
void vm_proc__print_argv(FILE *f, char *const argv[]);

/* ---- fsutil.c ---- */

/* snprintf for paths and messages: -ENAMETOOLONG instead of silently
 * truncating (a truncated message is still printed in full as possible). */
int vm_fs__fmt(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

int vm_fs__mkdir_p(const char *path, mode_t mode);
/* Creates the parents of path. */
int vm_fs__mkdir_parents(const char *path, mode_t mode);
/* Copies src's bytes (following symlinks) to dst, creating dst's parents;
 * mode 0 = src's permission bits. */
int vm_fs__copy_file(const char *src, const char *dst, mode_t mode);
int vm_fs__write_file(const char *path, const void *data, size_t len,
		      mode_t mode);
/* Reads a whole (small) file into a malloc'd NUL-terminated buffer. */
int vm_fs__read_file(const char *path, char **data, size_t *len);
/* Searches PATH plus the sbin dirs (tools like mkfs.xfs live there). */
extern const struct exe_search vm_tool_search;
bool vm_fs__is_dir(const char *path);
/* Whether path exists, itself (a dangling symlink does). */
bool vm_fs__exists(const char *path);
/* A file in dir with no name (O_TMPFILE, else unlinked at once): its
 * space comes back when the last fd closes, even after SIGKILL. */
int vm_fs__tmpfile(const char *dir);
/* Appends the POSIX-shell single-quoted form of s to buf (realloc'd). */
int vm_fs__shell_quote(char **buf, size_t *len, const char *s);

/* ---- stale.c ---- */

/* Work dirs are "<TMPDIR>/folioscope-vm-<pid>.XXXXXX". */
#define VM_WORKDIR_TAG "folioscope-vm-"
/*
 * Remove the work dirs in parent that a killed vm left: real dirs of the
 * effective uid whose pid is neither this process nor a live folioscope;
 * one line on stderr each. Returns how many, or -errno.
 */
int vm_stale__clean(const char *parent);

/* ---- kernel_cache.c ---- */

/* The cache root: opt, or $FOLIOSCOPE_CACHE, $XDG_CACHE_HOME/folioscope,
 * ~/.cache/folioscope. */
int vm_cache__dir(const char *opt, char *buf, size_t n);
/* Kernel release ("6.1.0-57-cloud-amd64") from a bzImage's setup header. */
int vm_kernel__release(const char *bzimage, char *rel, size_t n);

/* ---- accel.c: the qemu binary, and KVM failures remembered ---- */

#define VM_QEMU_NAME "qemu-system-x86_64"
/* The qemu that boots guests: $FOLIOSCOPE_QEMU (a path, or a name looked
 * up in PATH) or qemu-system-x86_64 from PATH. Fills buf with the file
 * found, else with the name itself (running it then says why). */
void vm_qemu__find(char *buf, size_t n);

/* One --accel value: what qemu gets for it under TCG (-accel, and
 * -icount where the guest's clock counts instructions), what the guest's
 * reports call it, how many CPUs it runs (0: any), and whether it never
 * tries KVM. */
struct vm_accel_info {
	const char *name;
	enum vm_accel accel;
	const char *tcg;
	const char *report;
	const char *icount;
	unsigned int max_cpus;
	bool tcg_only;
};

const struct vm_accel_info *vm_accel__info(enum vm_accel a);

/* qemu's -accel value for a, under KVM or not; the name a guest's
 * reports give it (vm.accel). */
const char *vm_accel__qemu(enum vm_accel a, bool kvm);
const char *vm_accel__report(enum vm_accel a, bool kvm);

/* What a KVM failure is remembered for: one qemu binary, one host kernel. */
struct vm_kvm_key {
	char qemu[PATH_MAX]; /* the binary, symlinks resolved */
	long long size;
	long long mtime_s;
	long mtime_ns;
	char kernel[65]; /* uname -r */
};

int vm_kvm__key(const char *qemu, struct vm_kvm_key *k);
/* The record's path: <cache>/kvm-failed (cache as vm_cache__dir). */
int vm_kvm__record_path(const char *cache_opt, char *buf, size_t n);
/* Whether path holds a record for k; if so, why (n > 0) gets the failure
 * it recorded ("" if none). */
bool vm_kvm__recorded(const char *path, const struct vm_kvm_key *k, char *why,
		      size_t n);
/* Records that KVM failed for k (replacing any record): why, one line. */
int vm_kvm__record(const char *path, const struct vm_kvm_key *k,
		   const char *why);
/* Removes the record at path, if any: KVM ran a guest here. */
int vm_kvm__forget(const char *path);

/* ---- initramfs.c ---- */

struct initramfs_spec {
	const char *binary;  /* host file that becomes /bin/folioscope */
	const char *moddir;  /* root holding lib/modules/<release>/, or NULL */
	const char *release; /* kernel release, or NULL if unknown */
	int argc;	     /* guest arguments, already rewritten */
	char **argv;
	const char *const *with; /* extra host files (vm_opts.with) */
	int nwith;
	const char *exec; /* script run instead of folioscope, or NULL */
	/* host vmlinux with DWARF, put at /usr/lib/debug/boot/vmlinux-
	 * <release>; or NULL */
	const char *debuginfo;
	bool verbose;
};

/* Builds an uncompressed newc cpio, staging in workdir, into a file with
 * no name there: *fd (O_CLOEXEC), which qemu can read as
 * /proc/self/fd/N. Nothing of it stays in workdir. Prints its own
 * one-line error. */
int vm_initramfs__build(const struct initramfs_spec *s, const char *workdir,
			int *fd);

/* ---- lines.c: the guest's output, by whole lines ---- */

/* A partial line goes out after this much quiet on its channel. */
#define VM_LINES_QUIET_S 0.5
/* The other channel's lines wait this long at most for a partial line
 * that went out to end. */
#define VM_LINES_HOLD_S 5.0
/* A line this long goes out in pieces. */
#define VM_LINES_MAX (256 * 1024)

struct vm_lines_chan {
	int fd;	   /* host fd it goes to */
	dev_t dev; /* the file behind it (ino 0: not known) */
	ino_t ino;
	char *buf; /* received, not yet written */
	size_t len, cap;
	double t_last; /* when bytes last arrived */
	double t_open; /* when its line went out unfinished */
	bool open;     /* what it wrote last does not end a line */
	bool dead;     /* the host fd's reader went away (EPIPE) */
};

#define VM_LINES_NR 3

struct vm_lines {
	struct vm_lines_chan ch[VM_LINES_NR];
};

/* Times are seconds on one monotonic clock. Channels start with no fd:
 * what they get is dropped until vm_lines__set_fd gives them one. */
void vm_lines__init(struct vm_lines *l);
void vm_lines__set_fd(struct vm_lines *l, int ci, int fd);
/* Takes n bytes channel ci received at now; writes what may go. */
int vm_lines__add(struct vm_lines *l, int ci, const char *buf, size_t n,
		  double now);
/* Seconds until vm_lines__tick has something to write, or -1. */
double vm_lines__due_in(const struct vm_lines *l, double now);
/* Writes the partial lines that have waited long enough. */
void vm_lines__tick(struct vm_lines *l, double now);
/* Writes everything; end_lines: then ends an unfinished line with '\n'
 * (before a line of our own on the same fd). */
void vm_lines__flush(struct vm_lines *l, bool end_lines, double now);
void vm_lines__free(struct vm_lines *l);

/* ---- outputs.c: files the guest writes and the host gets back ---- */

struct vm_output {
	char *host_path; /* as given on the command line */
	char *tmp_path;	 /* temp file beside host_path while receiving */
	int fd;
	uint64_t size; /* announced by the guest */
	uint64_t got;  /* decoded so far */
	unsigned int b64_acc;
	int b64_bits;
	bool complete;
	bool failed;
};

struct vm_outputs {
	struct vm_output *v;
	int n;
	int cur; /* output being received, or -1 */
};

/* Copies argv, rewriting the file of -j/--json/-o/--output/--ktap/
 * --events-json to /out/N.
 * Checks each host path's directory is writable before anything boots. */
int vm_outputs__rewrite(struct vm_outputs *outs, int argc, char **argv,
			char ***gargv);
void vm_outputs__free_argv(int argc, char **gargv);
/* Handles one control-channel line; EXIT sets *status. Prints its own
 * error for host-side failures. */
int vm_outputs__control_line(struct vm_outputs *outs, const char *line,
			     int *status);
/* Renames every completely received file into place; drops the rest. */
int vm_outputs__deliver(struct vm_outputs *outs);
void vm_outputs__free(struct vm_outputs *outs);

#endif
