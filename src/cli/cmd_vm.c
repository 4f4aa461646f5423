// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* folioscope vm: run "folioscope ARGS..." in a throwaway qemu guest. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "common.h"
#include "util/parse.h"
#include "vm/vm.h"

enum {
	OPT_KERNEL = 0x100, /* long-only: no short letters to collide with */
	OPT_MODULES,
	OPT_MEM,
	OPT_CPUS,
	OPT_TIMEOUT,
	OPT_WITH,
	OPT_EXEC,
	OPT_ACCEL,
	OPT_DEBIAN,
	OPT_DEBUGINFO,
};

#define VM_MAX_WITH 64

struct vm_args {
	struct vm_opts o;
	int argc; /* the guest command: folioscope's own arguments */
	char **argv;
	const char *with[VM_MAX_WITH];
};

static const struct argp_option options[] = {
	{ "kernel", OPT_KERNEL, "BZIMAGE", 0,
	  "boot BZIMAGE (default: Debian 12's cloud kernel, see --debian)", 0 },
	{ "debian", OPT_DEBIAN, "VERSION", 0,
	  "boot Debian 12's VERSION cloud kernel, 6.1 (the default) or 6.12, "
	  "with its modules (fetched once with apt, then cached)",
	  0 },
	{ "debuginfo", OPT_DEBUGINFO, NULL, 0,
	  "put the kernel's vmlinux with DWARF where the guest's doctor looks "
	  "for it: with --kernel the vmlinux built with the bzImage (beside "
	  "it, in linux/ beside it, or the tree's top of arch/x86/boot/"
	  "bzImage), else the Debian kernel's linux-image-RELEASE-dbg "
	  "(fetched once, about 300 MB, cached); guest memory defaults to "
	  "3072 MB then",
	  0 },
	{ "modules", OPT_MODULES, "DIR", 0,
	  "take loop/btrfs/xfs from DIR/lib/modules/RELEASE/", 0 },
	{ "mem", OPT_MEM, "MB", 0, "guest memory (default 2048)", 0 },
	{ "cpus", OPT_CPUS, "N", 0,
	  "guest CPUs (default 2; 1, the only choice, with tcg-icount)", 0 },
	{ "timeout", OPT_TIMEOUT, "S", 0,
	  "stop the guest after S seconds (default 900; for validate twice "
	  "its --budget and 900 more)",
	  0 },
	{ "with", OPT_WITH, "PATH", 0,
	  "also put host file PATH in the guest at the same (absolute) path, "
	  "with the libraries ldd lists for it; repeatable",
	  0 },
	{ "exec", OPT_EXEC, "SCRIPT", 0,
	  "run host script SCRIPT (#!/bin/sh: busybox) in the guest with "
	  "ARGS instead of folioscope; /bin/folioscope is still there",
	  0 },
	{ "accel", OPT_ACCEL, "auto|kvm|tcg|tcg-multi|tcg-icount", 0,
	  "how qemu runs the guest (default auto: KVM when /dev/kvm opens, "
	  "TCG when qemu cannot run the guest under it, or could not before "
	  "with this qemu and host kernel: see below; kvm always tries KVM); "
	  "TCG runs the guest's CPUs in one host thread, tcg-multi in one "
	  "each (faster on idle host CPUs; guests may crash while probes are "
	  "attached or detached); tcg-icount runs one CPU whose clock counts "
	  "the instructions it executes (qemu -icount, 8 ns each): the same "
	  "code takes the same time on every run, whatever the host's load "
	  "(make bench's guests), at about half TCG's speed",
	  0 },
	{ "verbose", 'v', NULL, 0,
	  "show the qemu command and the kernel console", 0 },
	{},
};

static unsigned int parse_uint(const struct argp_state *st, const char *opt,
			       const char *arg)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || !v || v > UINT_MAX || arg[0] == '-')
		cli__usage_error(st, "invalid %s '%s'", opt, arg);
	return v;
}

/*
 * The guest's time for `validate`: its budget (default 10 minutes) is
 * for the drawn tiers after the matrices, and shrinking comes after it.
 */
static unsigned int validate_timeout(int argc, char **argv)
{
	__u64 ns = 600ULL * 1000000000ULL;

	for (int i = 1; i < argc; i++) {
		const char *v = NULL;

		if (!strcmp(argv[i], "--budget") && i + 1 < argc)
			v = argv[i + 1];
		else if (!strncmp(argv[i], "--budget=", 9))
			v = argv[i] + 9;
		/* The guest's validate refuses a bad one. */
		if (v && duration__parse(v, &ns))
			return 0;
	}
	return (unsigned int)(2 * (ns / 1000000000ULL) + 900);
}

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct vm_args *a = st->input;

	switch (key) {
	case OPT_KERNEL:
		a->o.kernel = arg;
		break;
	case OPT_DEBIAN: {
		char names[64];

		if (!vm__debian_known(arg, names, sizeof(names)))
			cli__usage_error(st, "invalid --debian '%s' (%s)", arg,
					 names);
		a->o.debian = arg;
		break;
	}
	case OPT_DEBUGINFO:
		a->o.debuginfo = true;
		break;
	case OPT_MODULES:
		a->o.modules = arg;
		break;
	case OPT_MEM:
		a->o.mem_mb = parse_uint(st, "--mem", arg);
		break;
	case OPT_CPUS:
		a->o.cpus = parse_uint(st, "--cpus", arg);
		break;
	case OPT_TIMEOUT:
		a->o.timeout_s = parse_uint(st, "--timeout", arg);
		break;
	case OPT_WITH:
		if (a->o.nwith >= VM_MAX_WITH)
			cli__usage_error(st, "too many --with (at most %d)",
					 VM_MAX_WITH);
		a->with[a->o.nwith++] = arg;
		a->o.with = a->with;
		break;
	case OPT_EXEC:
		a->o.exec = arg;
		break;
	case OPT_ACCEL: {
		char names[64];
		int accel = vm__accel_parse(arg, names, sizeof(names));

		if (accel < 0)
			cli__usage_error(st, "invalid --accel '%s' (%s)", arg,
					 names);
		a->o.accel = (enum vm_accel)accel;
		break;
	}
	case 'v':
		a->o.verbose = true;
		break;
	case ARGP_KEY_ARG:
		/* The first non-option starts the guest command: its options
		 * (-j, -d, ...) are folioscope's, not ours. ARGP_IN_ORDER
		 * makes argp stop here instead of permuting them forward. */
		a->argv = &st->argv[st->next - 1];
		a->argc = st->argc - st->next + 1;
		st->next = st->argc;
		break;
	case ARGP_KEY_END:
		if (a->o.kernel && a->o.debian)
			cli__usage_error(st, "--kernel and --debian both name "
					     "the kernel: give one");
		if (!a->argc && !a->o.exec)
			cli__usage_error(st, "missing the folioscope ARGS to "
					     "run (e.g. vm -- trace -d 5)");
		if (!a->o.timeout_s && !a->o.exec && a->argc &&
		    !strcmp(a->argv[0], "validate"))
			a->o.timeout_s = validate_timeout(a->argc, a->argv);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp vm_argp = {
	options,
	parse,
	"[--] ARGS...",
	"Boot a kernel in qemu and run 'folioscope ARGS...' inside; its "
	"output streams here and its exit status is ours.\vFiles named by "
	"-j/--json/-o/--output/--ktap/--junit/--events-json in ARGS are "
	"written "
	"on "
	"this host (also "
	"with --exec: the script gets /out/N in their place and writes "
	"there). The "
	"guest's /init runs the command in /out (a ramfs) with "
	"PATH=/bin:/sbin:/usr/bin:"
	"/usr/sbin, tracefs, debugfs and bpffs mounted. Debian's "
	"kernels are cached in $FOLIOSCOPE_CACHE, $XDG_CACHE_HOME/folioscope "
	"or ~/.cache/folioscope.\n\nWith --accel auto, a KVM that fails before "
	"the guest's kernel prints anything (qemu dies, or the guest stalls) "
	"while TCG then boots is recorded in that cache dir as kvm-failed, for "
	"this qemu binary (path, size, mtime) and host kernel (uname -r); "
	"later auto runs go straight to TCG and say so. --accel kvm still "
	"tries KVM, and a guest that boots under KVM removes the record. "
	"FOLIOSCOPE_QEMU names the qemu to run (default qemu-system-x86_64 "
	"from PATH).",
	NULL,
	NULL,
	NULL,
};

int cmd_vm(int argc, char **argv)
{
	struct vm_args a = {};
	int err;

	cli__argp_parse(&vm_argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	err = vm__run(&a.o, a.argc, a.argv);
	/* vm__run has printed the reason for a host-side failure. */
	return err < 0 ? 1 : err;
}
