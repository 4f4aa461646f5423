/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Attach planning: kernel facts in, an ordered plan with reasons out.
 * Pure logic over a facts interface, so tests feed it fake kernels.
 */
#ifndef FS_PLAN_H
#define FS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include "model/model.h"

#define FN_MAX_ARGS 12

#define PLAN_INLINE_EXITS FS_INLINE_MAX_EXITS

/* One inline site as the probes need it: offsets inside symbol. */
struct plan_inline_site {
	char symbol[128]; /* the ELF symbol (caller) holding the site */
	unsigned long long entry_off;
	/* The entry is also the head of a loop of the inlined code: an
	 * arrival there before an exit continues the call in flight. */
	bool entry_loops;
	int nexits; /* distinct exit targets */
	unsigned long long exit_off[PLAN_INLINE_EXITS];
};

/*
 * The inline sites of a function from the kernel's DWARF, with the
 * per-site fetch plan of its arguments (plan__inline_build).
 */
struct plan_inline {
	char source[400]; /* "PATH (--debuginfo)", "" without DWARF */
	/* The inlined function whose sites these are; for a sub-probe's
	 * lookups, set when the traced function inlines one, even if its
	 * sites cannot be probed (nsites 0, why says why). */
	char function[128];
	char why[400]; /* why there are no usable sites, or "" */
	int nsites;
	struct plan_inline_site site[FS_INLINE_MAX_SITES];
	struct fs_fetch fetch[FS_INLINE_MAX_SITES][FS_INLINE_NARGS];
	/* Why argument i has no location at some site ("" = it has one at
	 * every site). */
	char arg_why[FS_INLINE_NARGS][200];
	/* The out argument points at the caller's variable (an implicit
	 * pointer, or an address in the frame that the site stores
	 * through): the result is that variable, fetched at each exit
	 * target of every site. */
	bool out_at_exit;
	/* The out argument's index, -1: none (exit_why may say why). */
	int out_arg;
	struct fs_fetch exit_fetch[FS_INLINE_MAX_SITES][FS_INLINE_MAX_EXITS];
	/* Why an out argument fetched at the entry is not read at the
	 * exits ("" when it is, or when arg_why says why it is not
	 * fetched at all). */
	char exit_why[200];
};

/* A BTF prototype reduced to what the handlers depend on. */
struct fn_proto {
	int nargs;
	/* "s64", "u64", "u32", "bool", "struct NAME", "void", "other",
	 * and "ptr:" + the pointee's kind ("ptr:ptr:struct folio") */
	char arg[FN_MAX_ARGS][48];
	char ret[48];
};

struct kfacts {
	char release[128];
	bool has_btf; /* BTF to plan with: the kernel's, or --btf FILE */
	/* The kernel's own BTF loads (libbpf: /sys/kernel/btf/vmlinux or a
	 * vmlinux image); libbpf finds fentry targets only in that one. */
	bool kernel_btf;
	char btf_file[256];	 /* --btf FILE, or "" */
	char blacklist_src[320]; /* where the kprobe blacklist was read */
	int blacklist_len;	 /* functions in it */
	char lockdown[32]; /* "none", "integrity", "confidentiality", "?" */
	int kprobes;	   /* CONFIG_KPROBES: 1 yes, 0 no, -1 unknown */
	char kprobes_why[160];
	/* Functions no step may attach to, "a,b,c" (FOLIOSCOPE_EXCLUDE):
	 * lets tests force a less precise step on a kernel where the
	 * precise ones work. */
	char exclude[256];
	/* A text symbol of that exact name exists (kallsyms). */
	bool (*has_symbol)(const struct kfacts *f, const char *name);
	/* A compiler-renamed clone (name.constprop.N, .isra.N, .part.N,
	 * .llvm.N): copies its name to out and returns true. */
	bool (*find_clone)(const struct kfacts *f, const char *name, char *out,
			   size_t n);
	/* BTF func prototype; -ENOENT when there is no BTF func. */
	int (*btf_proto)(const struct kfacts *f, const char *name,
			 struct fn_proto *p);
	/* Listed in the kprobe blacklist. */
	bool (*kprobe_blacklisted)(const struct kfacts *f, const char *name);
	/* Inline sites of each target's inlined function
	 * (plan__inline_target); NULL when nobody looked. */
	const struct plan_inline *inl[FS_TGT_NR];
	/* Inline sites of the sub-probe's lookup in the traced function
	 * (probe_target.sub_inline_in); NULL when nobody looked, nsites 0
	 * when the traced function calls the lookup. */
	const struct plan_inline *sub_inl[FS_TGT_NR];
	void *priv;
};

enum plan_mode { PLAN_AUTO, PLAN_FENTRY, PLAN_KPROBE, PLAN_SYSCALL };
/* MECH_SYSCALL: the syscall level, the fallback when neither fentry nor
 * kprobes attach (e.g. a locked-down kernel): the per-syscall tracepoints
 * of the traced syscalls where the kernel has them, else the raw
 * tracepoints at every syscall's entry and exit. MECH_INLINE
 * ("kprobe-inline"): kprobes at the inline sites' entries and exits,
 * found in the kernel's DWARF. */
enum plan_mech { MECH_FENTRY, MECH_KPROBE, MECH_SYSCALL, MECH_INLINE };

/* Which BPF handler flavour a step uses. */
enum plan_role {
	ROLE_FUNC,    /* the function itself, arguments read */
	ROLE_CALLER,  /* a caller carrying the same arguments */
	ROLE_CLONE,   /* renamed clone: timing only */
	ROLE_SYSCALL, /* syscall level: what the syscall boundary shows */
	ROLE_INLINE,  /* the inlined function's sites in its callers */
};

struct plan_step {
	enum plan_mech mech;
	enum plan_role role;
	char symbol[128];
	int handler;	/* target-specific handler id, see PLAN_H_* */
	bool available; /* static facts allow it */
	char why[320];	/* why not available, or what it measures */
	bool tried;
	int err; /* result of trying: 0 attached, -errno */
	char err_msg[256];
	/* Where an attached step keeps in-flight calls, and why there:
	 * "task storage", or "hash (...)". */
	char inflight[192];
	/* An attached step whose programs read kernel memory: how, and why
	 * not the cheaper way ("" where none of its programs has a twin). */
	char reads[256];
	/* An attached step: the ways into the target's path its programs
	 * count on this kernel, and those they miss. */
	char covers[400];
};

/* Handler ids: which set of BPF programs serves a step. */
enum {
	PLAN_H_DD_CMP,
	PLAN_H_DD_PREP,
	PLAN_H_DD_ONE,
	PLAN_H_DD_CLONE,
	PLAN_H_SH_READ,
	PLAN_H_DD_SYSCALL, /* FIDEDUPERANGE ioctls */
	PLAN_H_SH_SYSCALL, /* read syscalls on tmpfs files */
	PLAN_H_SH_LOOKUP,  /* sub-probe: folio lookups of the read loop */
	PLAN_H_DD_FOLIO,   /* sub-probe: folios read by the compare */
	PLAN_H_DD_SYSTP,   /* FIDEDUPERANGE ioctls, per-syscall tracepoints */
	PLAN_H_SH_SYSTP,   /* tmpfs reads, per-syscall tracepoints */
	PLAN_H_DD_INLINE,  /* the compare's inline sites */
	PLAN_H_SH_SPLICE,  /* tmpfs splice reads, beside PLAN_H_SH_READ */
};

/* The step symbol of the per-syscall tracepoints (their tracefs group):
 * FOLIOSCOPE_EXCLUDE=syscalls leaves the raw ones. */
#define PLAN_SYSTP_SYMBOL "syscalls"
/* A function only a kernel with per-syscall tracepoints has
 * (CONFIG_FTRACE_SYSCALLS). */
#define PLAN_SYSTP_FACT "ftrace_syscall_enter"

#define PLAN_MAX_STEPS 16

struct plan {
	enum fs_target target;
	const char *function;
	bool inlined;	 /* no symbol of its own */
	char clone[128]; /* renamed clone found, or "" */
	int nsteps;
	struct plan_step step[PLAN_MAX_STEPS];
	int chosen; /* index of the step in use, -1 if none */
};

int plan__parse_mode(const char *s, enum plan_mode *m);
const char *plan__mode_name(enum plan_mode m);
const char *plan__mech_name(enum plan_mech m);

/*
 * The function of a target whose inline sites the kprobe-inline step
 * probes, with the handler of its programs; function NULL where the
 * target has none.
 */
struct plan_inline_target {
	const char *function;
	int handler;
};
const struct plan_inline_target *plan__inline_target(enum fs_target t);

/* Build the ordered candidate steps for a target under a mode. */
void plan__build(const struct kfacts *f, enum fs_target t, enum plan_mode m,
		 struct plan *p);
/* First available step at or after index from, or -1. */
int plan__next(const struct plan *p, int from);
/* Check a prototype against a handler's expectations; on mismatch write
 * why and return false. */
bool plan__proto_ok(int handler, const struct fn_proto *p, char *why, size_t n);
/* Index of the folio/page out-pointer of a shmem lookup function (2 or
 * 3), or -1. */
int plan__lookup_arg(const struct fn_proto *p);
/*
 * The probes' view of a function's inline sites (dwarf/dwarf.h's, given
 * as sites, n): entry and exit-target offsets in the symbol holding each
 * site, and each argument's fetch at the entry. arg_size[i] is argument
 * i's size in bytes. out_arg (-1: none) is an argument the function
 * writes its result through, read at the exit: it is fetched only where
 * the site's code stores there; when it points at a variable of the
 * caller that every exit target locates, out->exit_fetch reads it there
 * (out->out_at_exit). A site that cannot be probed (an exit with no
 * target in its symbol, more exits or sites than the probes take) makes
 * out->why say so and out->nsites 0.
 */
struct dwarf_site;
void plan__inline_build(const struct dwarf_site *sites, int n,
			const int arg_size[FS_INLINE_NARGS], int out_arg,
			struct plan_inline *out);
/*
 * The index of the parameter named one of names[0..nnames) (the first
 * name found wins), the same at each of the n sites; -1 when a site has
 * none of them there. Kernels move an argument between releases (6.12's
 * shmem_get_folio_gfp takes write_end before foliop): its name stays.
 */
int plan__inline_param(const struct dwarf_site *sites, int n,
		       const char *const *names, int nnames);
/* Why in's out argument is not read at the exits: "" when it is
 * (out_at_exit), else the reason (none when there is no out argument
 * and nobody said why). */
const char *plan_inline__out_why(const struct plan_inline *in);
/* One-line summary of why the chosen step was picked (for reports). */
void plan__reason(const struct plan *p, char *out, size_t n);

/*
 * Gather the running kernel's facts (kallsyms, BTF, config, lockdown);
 * with btf_file (--btf), prototypes come from that file instead of the
 * kernel's BTF. One error line on failure.
 */
int kfacts__load(struct kfacts *f, const char *btf_file);
/* Can path be used as --btf (raw BTF or an ELF file with .BTF)? On
 * failure why gets the reason; returns 0 or -errno. */
int kfacts__check_btf(const char *path, char *why, size_t n);
void kfacts__free(struct kfacts *f);
/*
 * Does the kernel put large folios in the page cache of files on fs
 * ("xfs", "btrfs", "tmpfs")? 1 yes, 0 no, -1 not judged; why says what
 * the answer rests on. The page cache takes them when its BTF has the
 * mapping flag a filesystem sets to ask for them (enum mapping_flags:
 * AS_LARGE_FOLIO_SUPPORT, or AS_FOLIO_ORDER_MAX where the flag became an
 * order range); xfs asks on every inode it sets up wherever the page
 * cache has that flag. btrfs asks only in some builds and tmpfs decides
 * by its huge= mode, which the shmem workload checks itself: not judged.
 */
int kfacts__large_folios(const struct kfacts *f, const char *fs, char *why,
			 size_t n);

#endif /* FS_PLAN_H */
