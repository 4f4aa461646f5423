// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Attach planning. For each target the candidate steps go from most to
 * least precise: the function itself (fentry, then kprobe), then callers
 * that carry the same arguments (fentry, then kprobe each), then a
 * compiler-renamed clone, timed only. Callers come before a clone because
 * they still give bytes, alignments and folio sizes, which a clone whose
 * calling convention may differ from the source cannot. A step is
 * refused up front when kernel facts rule it out; the executor later
 * records what trying the remaining ones did.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "plan.h"
#include "util/util.h"

struct caller {
	const char *name;
	int handler;
	const char *note;
};

static const struct caller dedupe_callers[] = {
	{ "__generic_remap_file_range_prep", PLAN_H_DD_PREP,
	  "calls the compare with the same offsets and length when "
	  "REMAP_FILE_DEDUP is set; latency includes its range checks" },
	{ "generic_remap_file_range_prep", PLAN_H_DD_PREP,
	  "exported wrapper of the prep used by btrfs and xfs; latency "
	  "includes its range checks" },
	{ "vfs_dedupe_file_range_one", PLAN_H_DD_ONE,
	  "one FIDEDUPERANGE destination; latency includes the remap "
	  "itself" },
};

static const char *const mech_names[] = { "fentry", "kprobe", "syscall",
					  "kprobe-inline" };
static const char *const mode_names[] = { "auto", "fentry", "kprobe",
					  "syscall" };

const char *plan__mech_name(enum plan_mech m)
{
	return mech_names[m];
}

const char *plan__mode_name(enum plan_mode m)
{
	return mode_names[m];
}

int plan__parse_mode(const char *s, enum plan_mode *m)
{
	for (int i = 0; i < 4; i++) {
		if (!strcmp(s, mode_names[i])) {
			*m = (enum plan_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Expected argument kinds per handler; NULL = not checked. */
struct expect {
	int min_args, max_args;
	const char *arg[FN_MAX_ARGS];
	const char *ret;
};

static const struct expect expects[] = {
	/* (src, loff_t srcoff, dst, loff_t dstoff, loff_t len, bool *same) */
	[PLAN_H_DD_CMP] = { 6,
			    6,
			    { NULL, "s64", NULL, "s64", "s64", "ptr:bool" },
			    NULL },
	/* (in, loff_t pos_in, out, loff_t pos_out, loff_t *len, u32 flags
	 *  [, dax ops]) */
	[PLAN_H_DD_PREP] = { 6,
			     7,
			     { NULL, "s64", NULL, "s64", "ptr:s64", "u32" },
			     NULL },
	/* (src, loff_t, dst, loff_t, loff_t len, u32 flags) -> loff_t */
	[PLAN_H_DD_ONE] = { 6,
			    6,
			    { NULL, "s64", NULL, "s64", "s64", "u32" },
			    "s64" },
	[PLAN_H_DD_CLONE] = { 0, FN_MAX_ARGS, { NULL }, NULL },
	[PLAN_H_SH_READ] = { 2,
			     2,
			     { "ptr:struct kiocb", "ptr:struct iov_iter" },
			     "s64" },
	/* shmem_get_folio[_gfp](inode, pgoff_t index, [loff_t write_end,]
	 * struct folio **foliop, ...) -> int; <= 6.0 shmem_getpage[_gfp]
	 * with struct page **. The out-pointer is checked below. */
	[PLAN_H_SH_LOOKUP] = { 4, 8, { "ptr:struct inode", "u64" }, "s32" },
	[PLAN_H_DD_FOLIO] = { 1, FN_MAX_ARGS, { NULL }, NULL },
	[PLAN_H_DD_SYSCALL] = { 0, FN_MAX_ARGS, { NULL }, NULL },
	[PLAN_H_SH_SYSCALL] = { 0, FN_MAX_ARGS, { NULL }, NULL },
	[PLAN_H_DD_SYSTP] = { 0, FN_MAX_ARGS, { NULL }, NULL },
	[PLAN_H_SH_SYSTP] = { 0, FN_MAX_ARGS, { NULL }, NULL },
	[PLAN_H_DD_INLINE] = { 0, FN_MAX_ARGS, { NULL }, NULL },
	/* (struct file *in, loff_t *ppos, struct pipe_inode_info *, size_t
	 *  len, unsigned int flags) -> ssize_t */
	[PLAN_H_SH_SPLICE] = { 5,
			       5,
			       { "ptr:struct file", "ptr:s64",
				 "ptr:struct pipe_inode_info", "u64", "u32" },
			       "s64" },
};

bool plan__proto_ok(int handler, const struct fn_proto *p, char *why, size_t n)
{
	const struct expect *e = &expects[handler];

	if (p->nargs < e->min_args || p->nargs > e->max_args) {
		snprintf(why, n,
			 "BTF prototype has %d arguments, expected %d%s",
			 p->nargs, e->min_args,
			 e->max_args > e->min_args ? " or more" : "");
		return false;
	}
	for (int i = 0; i < p->nargs && i < FN_MAX_ARGS; i++) {
		if (e->arg[i] && strcmp(e->arg[i], p->arg[i])) {
			snprintf(why, n,
				 "BTF prototype argument %d is %s, expected %s",
				 i + 1, p->arg[i], e->arg[i]);
			return false;
		}
	}
	if (handler == PLAN_H_SH_LOOKUP && plan__lookup_arg(p) < 0) {
		snprintf(why, n,
			 "BTF prototype has no struct folio ** or "
			 "struct page ** as argument 3 or 4");
		return false;
	}
	if (handler == PLAN_H_DD_FOLIO && strcmp(p->ret, "ptr:struct folio") &&
	    strcmp(p->ret, "ptr:struct page")) {
		snprintf(why, n,
			 "BTF prototype returns %s, expected a folio "
			 "or page pointer",
			 p->ret);
		return false;
	}
	if (e->ret && strcmp(e->ret, p->ret)) {
		snprintf(why, n, "BTF prototype returns %s, expected %s",
			 p->ret, e->ret);
		return false;
	}
	return true;
}

int plan__lookup_arg(const struct fn_proto *p)
{
	for (int i = 2; i <= 3 && i < p->nargs; i++)
		if (!strcmp(p->arg[i], "ptr:ptr:struct folio") ||
		    !strcmp(p->arg[i], "ptr:ptr:struct page"))
			return i;
	return -1;
}

/* Is name one of the comma-separated names in f->exclude? */
static bool excluded(const struct kfacts *f, const char *name)
{
	size_t len = strlen(name);

	for (const char *e = f->exclude; *e;) {
		const char *end = strchr(e, ',');
		size_t n = end ? (size_t)(end - e) : strlen(e);

		if (n == len && !strncmp(e, name, n))
			return true;
		if (!end)
			break;
		e = end + 1;
	}
	return false;
}

/*
 * The inline step: DWARF sites to probe, kprobes, and callers kprobes may
 * stop in. Its symbol names the first site's entry.
 */
static void inline__check(const struct kfacts *f, enum fs_target t,
			  struct plan_step *s)
{
	const struct plan_inline *in = f->inl[t];

	if (in && in->nsites)
		snprintf(s->symbol, sizeof(s->symbol), "%s+0x%llx",
			 in->site[0].symbol, in->site[0].entry_off);
	if (excluded(f, "kprobe-inline")) {
		snprintf(s->why, sizeof(s->why),
			 "'kprobe-inline' excluded by FOLIOSCOPE_EXCLUDE");
		return;
	}
	if (!in->nsites) {
		snprintf(s->why, sizeof(s->why), "%s", in->why);
		return;
	}
	if (f->kprobes == 0) {
		snprintf(s->why, sizeof(s->why), "%s", f->kprobes_why);
		return;
	}
	for (int i = 0; i < in->nsites; i++) {
		if (f->kprobe_blacklisted(f, in->site[i].symbol)) {
			snprintf(s->why, sizeof(s->why),
				 "'%s' is in the kprobe blacklist",
				 in->site[i].symbol);
			return;
		}
	}
	snprintf(s->why, sizeof(s->why),
		 "%d inline site%s from DWARF (%s): kprobes at the entry and "
		 "the exits",
		 in->nsites, in->nsites == 1 ? "" : "s", in->source);
	s->available = true;
}

/* Static checks of one step; fills available/why. */
static void step__check(const struct kfacts *f, enum fs_target t,
			struct plan_step *s)
{
	struct fn_proto proto;
	int err;

	s->available = false;
	if (s->role == ROLE_INLINE) {
		inline__check(f, t, s);
		return;
	}
	if (s->role == ROLE_SYSCALL) {
		/* Raw tracepoints need neither symbols nor kprobes, but the
		 * programs' CO-RE reads need some BTF of this kernel; whether
		 * the kernel lets them attach is found out by trying. */
		if (!f->has_btf) {
			snprintf(
				s->why, sizeof(s->why),
				"no kernel BTF (/sys/kernel/btf/vmlinux) for "
				"the "
				"programs' CO-RE relocations; give --btf FILE");
			return;
		}
		if (s->handler != PLAN_H_DD_SYSTP &&
		    s->handler != PLAN_H_SH_SYSTP) {
			s->available = true;
			return;
		}
		if (excluded(f, s->symbol)) {
			snprintf(s->why, sizeof(s->why),
				 "'%s' excluded by FOLIOSCOPE_EXCLUDE",
				 s->symbol);
			return;
		}
		if (!f->has_symbol(f, PLAN_SYSTP_FACT)) {
			snprintf(s->why, sizeof(s->why),
				 "no per-syscall tracepoints (no "
				 "%s in kallsyms: CONFIG_FTRACE_SYSCALLS "
				 "is off)",
				 PLAN_SYSTP_FACT);
			return;
		}
		s->available = true;
		return;
	}
	if (excluded(f, s->symbol)) {
		snprintf(s->why, sizeof(s->why),
			 "'%s' excluded by FOLIOSCOPE_EXCLUDE", s->symbol);
		return;
	}
	if (!f->has_symbol(f, s->symbol)) {
		snprintf(s->why, sizeof(s->why),
			 "no symbol '%s' in kallsyms (inlined or absent)",
			 s->symbol);
		return;
	}
	if (s->mech == MECH_KPROBE) {
		if (f->kprobes == 0) {
			snprintf(s->why, sizeof(s->why), "%s", f->kprobes_why);
			return;
		}
		if (f->kprobe_blacklisted(f, s->symbol)) {
			snprintf(s->why, sizeof(s->why),
				 "'%s' is in the kprobe blacklist", s->symbol);
			return;
		}
	}
	if (s->role == ROLE_CLONE) {
		/* No prototype to trust: the clone's ABI may differ. */
		if (s->mech == MECH_FENTRY) {
			snprintf(s->why, sizeof(s->why),
				 "renamed clone has no BTF func");
			return;
		}
		s->available = true;
		return;
	}
	if (!f->has_btf) {
		snprintf(s->why, sizeof(s->why),
			 "no kernel BTF (/sys/kernel/btf/vmlinux) to check the "
			 "prototype against; give --btf FILE");
		return;
	}
	if (s->mech == MECH_FENTRY && !f->kernel_btf) {
		/* The kernel checks the target's BTF id against its own BTF,
		 * and libbpf takes it from nowhere else. */
		snprintf(s->why, sizeof(s->why),
			 "fentry needs the kernel's own BTF "
			 "(/sys/kernel/btf/vmlinux) for the target's BTF id; "
			 "--btf FILE serves planning and CO-RE only");
		return;
	}
	err = f->btf_proto(f, s->symbol, &proto);
	if (err) {
		snprintf(s->why, sizeof(s->why),
			 "no BTF func '%s' to check the arguments against",
			 s->symbol);
		return;
	}
	if (!plan__proto_ok(s->handler, &proto, s->why, sizeof(s->why)))
		return;
	s->available = true;
}

static void plan__add(const struct kfacts *f, struct plan *p, enum plan_mode m,
		      enum plan_mech mech, enum plan_role role, const char *sym,
		      int handler, const char *note)
{
	struct plan_step *s;

	if (p->nsteps >= PLAN_MAX_STEPS)
		return;
	if ((m == PLAN_FENTRY && mech != MECH_FENTRY) ||
	    (m == PLAN_KPROBE && mech != MECH_KPROBE && mech != MECH_INLINE) ||
	    (m == PLAN_SYSCALL && mech != MECH_SYSCALL))
		return;
	s = &p->step[p->nsteps++];
	memset(s, 0, sizeof(*s));
	s->mech = mech;
	s->role = role;
	s->handler = handler;
	snprintf(s->symbol, sizeof(s->symbol), "%s", sym);
	step__check(f, p->target, s);
	if (s->available && note && role != ROLE_INLINE)
		snprintf(s->why, sizeof(s->why), "%s", note);
}

static void plan__both(const struct kfacts *f, struct plan *p, enum plan_mode m,
		       enum plan_role role, const char *sym, int handler,
		       const char *note)
{
	plan__add(f, p, m, MECH_FENTRY, role, sym, handler, note);
	plan__add(f, p, m, MECH_KPROBE, role, sym, handler, note);
}

/*
 * The functions kernels inline that the kprobe-inline step probes. The
 * dedupe compare is inlined on most kernels. shmem's traced function is
 * an f_op, never inlined; its folio lookups (shmem_get_folio) are on some
 * kernels, but they are a sub-probe, which has no inline programs.
 */
static const struct plan_inline_target inline_targets[FS_TGT_NR] = {
	[FS_TGT_DEDUPE] = { "vfs_dedupe_file_range_compare", PLAN_H_DD_INLINE },
	[FS_TGT_SHMEM] = { NULL, 0 },
};

const struct plan_inline_target *plan__inline_target(enum fs_target t)
{
	static const struct plan_inline_target none = { NULL, 0 };

	return (unsigned int)t < FS_TGT_NR ? &inline_targets[t] : &none;
}

/* The inline step of p's target, where someone looked for DWARF (f->inl):
 * its sites measure the function itself, so it comes before callers. */
static void plan__inline(const struct kfacts *f, struct plan *p,
			 enum plan_mode m)
{
	const struct plan_inline_target *it = plan__inline_target(p->target);

	if (it->function && f->inl[p->target])
		plan__add(f, p, m, MECH_INLINE, ROLE_INLINE, it->function,
			  it->handler, NULL);
}

void plan__build(const struct kfacts *f, enum fs_target t, enum plan_mode m,
		 struct plan *p)
{
	memset(p, 0, sizeof(*p));
	p->target = t;
	p->chosen = -1;
	if (t == FS_TGT_SHMEM) {
		p->function = "shmem_file_read_iter";
		p->inlined = !f->has_symbol(f, p->function);
		plan__both(f, p, m, ROLE_FUNC, p->function, PLAN_H_SH_READ,
			   NULL);
		plan__inline(f, p, m);
		plan__add(f, p, m, MECH_SYSCALL, ROLE_SYSCALL,
			  PLAN_SYSTP_SYMBOL, PLAN_H_SH_SYSTP,
			  "syscall-level on the per-syscall tracepoints "
			  "sys_enter/sys_exit_{read,pread64,readv,preadv,"
			  "preadv2}, so other syscalls run no program of ours: "
			  "reads on tmpfs files, one per shmem_file_read_iter "
			  "call; 32-bit tasks' reads are not seen");
		plan__add(
			f, p, m, MECH_SYSCALL, ROLE_SYSCALL,
			"sys_enter/sys_exit", PLAN_H_SH_SYSCALL,
			"syscall-level on the raw tracepoints sys_enter/"
			"sys_exit, which run on every syscall: read, pread64, "
			"readv, preadv, preadv2 on tmpfs files, one per "
			"shmem_file_read_iter call");
		return;
	}
	p->function = "vfs_dedupe_file_range_compare";
	p->inlined = !f->has_symbol(f, p->function);
	f->find_clone(f, p->function, p->clone, sizeof(p->clone));
	plan__both(f, p, m, ROLE_FUNC, p->function, PLAN_H_DD_CMP, NULL);
	plan__inline(f, p, m);
	for (size_t i = 0; i < ARRAY_SIZE(dedupe_callers); i++)
		plan__both(f, p, m, ROLE_CALLER, dedupe_callers[i].name,
			   dedupe_callers[i].handler, dedupe_callers[i].note);
	if (p->clone[0])
		plan__add(f, p, m, MECH_KPROBE, ROLE_CLONE, p->clone,
			  PLAN_H_DD_CLONE,
			  "renamed clone: its calling convention may differ "
			  "from the source, so only calls and latency are "
			  "measured");
	plan__add(f, p, m, MECH_SYSCALL, ROLE_SYSCALL, PLAN_SYSTP_SYMBOL,
		  PLAN_H_DD_SYSTP,
		  "syscall-level on the per-syscall tracepoints "
		  "sys_enter/sys_exit_ioctl, so other syscalls run no program "
		  "of ours: FIDEDUPERANGE ioctls, one call per destination; "
		  "32-bit tasks' ioctls are not seen");
	plan__add(f, p, m, MECH_SYSCALL, ROLE_SYSCALL, "sys_enter/sys_exit",
		  PLAN_H_DD_SYSCALL,
		  "syscall-level on the raw tracepoints sys_enter/sys_exit, "
		  "which run on every syscall (one program each way for both "
		  "targets): FIDEDUPERANGE ioctls, one call per destination");
}

int plan__next(const struct plan *p, int from)
{
	for (int i = from < 0 ? 0 : from; i < p->nsteps; i++)
		if (p->step[i].available)
			return i;
	return -1;
}

void plan__reason(const struct plan *p, char *out, size_t n)
{
	const struct plan_step *s;
	size_t len = 0;

	out[0] = '\0';
	if (p->chosen < 0) {
		snprintf(out, n, "no attach step worked");
		return;
	}
	s = &p->step[p->chosen];
	if (s->role == ROLE_SYSCALL)
		len = snprintf(out, n, "%s: no function-level step attached",
			       s->why);
	else if (s->role == ROLE_FUNC)
		len = snprintf(out, n, "%s on %s itself",
			       plan__mech_name(s->mech), s->symbol);
	else if (s->role == ROLE_INLINE)
		len = snprintf(out, n, "%s on %s's inline sites: %s",
			       plan__mech_name(s->mech), p->function, s->why);
	else
		len = snprintf(out, n, "%s%s; %s on %s: %s", p->function,
			       p->inlined ? " is inlined (no symbol)"
					  : " cannot be used",
			       plan__mech_name(s->mech), s->symbol, s->why);
	/* Then why each more precise step was passed over. */
	for (int i = 0; i < p->chosen && len < n; i++) {
		const struct plan_step *e = &p->step[i];

		len += snprintf(out + len, n - len, "; %s %s: %s",
				plan__mech_name(e->mech), e->symbol,
				e->tried ? e->err_msg : e->why);
	}
}
