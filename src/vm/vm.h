/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The VM runner: boots a kernel in qemu with a busybox initramfs that holds
 * a static folioscope, runs "folioscope ARGS..." inside, streams its
 * stdout/stderr live, returns its exit status and brings back the files it
 * wrote (-j/--json/-o/--output/--ktap).
 */
#ifndef FS_VM_H
#define FS_VM_H

#include <stdbool.h>
#include <stddef.h>

/* How qemu runs the guest: KVM when it works, else TCG (auto). TCG
 * runs the guest's CPUs in one host thread unless tcg-multi; tcg-icount
 * runs one CPU whose clock counts the instructions it executes: see
 * vm_accels in accel.c for why. */
enum vm_accel {
	VM_ACCEL_AUTO,
	VM_ACCEL_KVM,
	VM_ACCEL_TCG,
	VM_ACCEL_TCG_MULTI,
	VM_ACCEL_TCG_ICOUNT,
};

/* The --accel value named name, or -1; names gets "auto, kvm, ..." for
 * an error message. */
int vm__accel_parse(const char *name, char *names, size_t n);

struct vm_opts {
	const char *kernel;    /* bzImage; NULL = a Debian 12 cloud kernel */
	const char *debian;    /* which one (vm__debian_known); NULL = 6.1 */
	const char *modules;   /* dir containing lib/modules/<release>/ ; NULL =
				  from the default kernel package, or none */
	const char *binary;    /* static binary to put in the guest as
				  /bin/folioscope; NULL = /proc/self/exe */
	const char *cache_dir; /* NULL = $FOLIOSCOPE_CACHE or
				  $XDG_CACHE_HOME/folioscope or
				  ~/.cache/folioscope */
	unsigned int mem_mb;   /* default 2048 */
	unsigned int cpus;     /* default 2; tcg-icount: 1 */
	unsigned int timeout_s; /* default 900; on timeout kill qemu, error */
	enum vm_accel accel; /* auto: KVM if /dev/kvm opens, TCG if qemu fails
				under it or failed before (see accel.c) */
	bool verbose;	     /* show kernel console + qemu command */
	/* Extra host files, each put at the same path in the guest; an ELF
	 * file brings the libraries ldd lists for it. */
	const char *const *with;
	int nwith;
	/* Host script put in the guest as /bin/vm-exec and run with ARGS
	 * instead of folioscope (which is still in the guest); NULL = none. */
	const char *exec;
	/* Put the kernel's vmlinux with DWARF at /usr/lib/debug/boot/
	 * vmlinux-RELEASE in the guest, where doctor looks for it: for a
	 * Debian kernel its linux-image-RELEASE-dbg, fetched once; for
	 * --kernel the vmlinux built with the bzImage (vm__built_debuginfo). */
	bool debuginfo;
};

#define VM_DEFAULT_MEM_MB 2048
/* With --debuginfo the initramfs carries a ~600 MB vmlinux, unpacked
 * into the guest's RAM next to the archive until that is freed. */
#define VM_DEBUGINFO_MEM_MB 3072
#define VM_DEFAULT_CPUS 2
#define VM_DEFAULT_TIMEOUT_S 900
/*
 * Seconds a guest under KVM may go without its kernel printing anything
 * (see CMDLINE in vm.c) before KVM is taken to stall: a nested KVM here
 * opens, qemu starts, SeaBIOS prints, and the guest gets no further.
 * Measured under TCG on this 2-CPU machine from qemu's start to the
 * kernel's first line: 0.5-0.9 s at a load of ~4, 1.5-8.1 s with four
 * CPU hogs added (load ~8), 3.4-9.8 s at a load of 12-14; of that, qemu's
 * own start up to SeaBIOS's first line took at most 1.7 s, and the rest
 * is guest code, which KVM runs several times faster than TCG. So a KVM
 * that works prints well within 15 s; a broken one costs those 15 s
 * once, as auto then remembers the failure (see accel.c).
 */
#define VM_KVM_STALL_S 15

/*
 * With o->exec, argc may be 0. Returns the guest command's exit status
 * (0..255), or a negative errno after printing one clear line on stderr for a
 * host-side failure.
 */
int vm__run(const struct vm_opts *o, int argc, char **argv);

/*
 * Path of the cached Debian 12 cloud kernel of series debian ("6.1",
 * "6.12"; NULL = 6.1), downloading it if needed: fills bzimage with the
 * vmlinuz path and moddir with the root that holds lib/modules/<release>/.
 * cache_dir NULL = the default cache. Returns 0 or a negative errno after
 * printing one line on stderr.
 */
int vm__default_kernel(const char *cache_dir, const char *debian, char *bzimage,
		       size_t n, char *moddir, size_t m);

/*
 * The vmlinux with DWARF of Debian kernel release (linux-image-RELEASE-
 * dbg), downloading it into the cache the first time. Returns 0 with its
 * path, or a negative errno after printing one line on stderr.
 */
int vm__debian_debuginfo(const char *cache_dir, const char *release,
			 char *vmlinux, size_t n);

/*
 * The vmlinux that was built with bzimage (a make kernel cache entry's
 * linux/vmlinux, a source tree's vmlinux, or one beside it): an ELF file.
 * Returns 0 with its path, or a negative errno after printing one line.
 */
int vm__built_debuginfo(const char *bzimage, char *vmlinux, size_t n);

/* Whether debian names a series vm__default_kernel knows; fills names
 * with the known ones ("6.1, 6.12") for an error message. */
bool vm__debian_known(const char *debian, char *names, size_t n);

#endif
