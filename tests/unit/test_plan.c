// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Attach planning fed fake kernels: kallsyms, BTF prototypes, config. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "dwarf/dwarf.h"
#include "plan/plan.h"
#include "util/util.h"

struct fake_fn {
	const char *name;
	bool symbol;
	bool btf;
	struct fn_proto proto;
};

struct fake {
	const struct fake_fn *fns;
	int nfns;
	const char *clone;
	const char *blacklisted;
};

#define PREP6                                                                  \
	{                                                                      \
		6, { "ptr:struct file", "s64", "ptr:struct file", "s64",       \
		     "ptr:s64",		"u32" },                               \
			"s32"                                                  \
	}
#define PREP7                                                                  \
	{                                                                      \
		7, { "ptr:struct file", "s64", "ptr:struct file",     "s64",   \
		     "ptr:s64",		"u32", "ptr:struct iomap_ops" },       \
			"s32"                                                  \
	}
#define ONE                                                                    \
	{                                                                      \
		6, { "ptr:struct file",                                        \
		     "s64",                                                    \
		     "ptr:struct file",                                        \
		     "s64",                                                    \
		     "s64",                                                    \
		     "u32" },                                                  \
			"s64"                                                  \
	}
#define CMP                                                                    \
	{                                                                      \
		6,                                                             \
			{ "ptr:struct file",                                   \
			  "s64",                                               \
			  "ptr:struct file",                                   \
			  "s64",                                               \
			  "s64",                                               \
			  "ptr:bool" },                                        \
			"s32"                                                  \
	}
#define READ                                                                   \
	{                                                                      \
		2, { "ptr:struct kiocb", "ptr:struct iov_iter" }, "s64"        \
	}

/* Debian 12's 6.1: compare inlined, 7-argument __generic prep; per-syscall
 * tracepoints (CONFIG_FTRACE_SYSCALLS) as every kernel here but the
 * fakes below. */
static const struct fake_fn deb61[] = {
	{ "__generic_remap_file_range_prep", true, true, PREP7 },
	{ "generic_remap_file_range_prep", true, true, PREP6 },
	{ "vfs_dedupe_file_range_one", true, true, ONE },
	{ "shmem_file_read_iter", true, true, READ },
	{ PLAN_SYSTP_FACT, true, false, { 0 } },
};

/* shmem_get_folio_gfp(inode, index, loff_t write_end, struct folio **foliop,
 * sgp, gfp, vmf, vm_fault_t *fault_type) on 6.12 */
#define GFP612                                                                 \
	{                                                                      \
		8, { "ptr:struct inode",     "u64",    "s64",                  \
		     "ptr:ptr:struct folio", "u32",    "u32",                  \
		     "ptr:struct vm_fault",  "ptr:u32" },                      \
			"s32"                                                  \
	}
/* read_cache_folio(mapping, index, filler, file) -> struct folio * */
#define RCF                                                                    \
	{                                                                      \
		4,                                                             \
			{ "ptr:struct address_space", "u64", "ptr:other",      \
			  "ptr:struct file" },                                 \
			"ptr:struct folio"                                     \
	}

/*
 * Debian 12's 6.12 (6.12.118+deb12-cloud-amd64: kallsyms and BTF as its
 * doctor saw them in the VM): the compare inlined, the same callers and
 * prototypes as 6.1, and the shmem lookup worker with write_end before
 * the folio out-pointer.
 */
static const struct fake_fn deb612[] = {
	{ "__generic_remap_file_range_prep", true, true, PREP7 },
	{ "generic_remap_file_range_prep", true, true, PREP6 },
	{ "vfs_dedupe_file_range_one", true, true, ONE },
	{ "shmem_file_read_iter", true, true, READ },
	{ "shmem_get_folio_gfp", true, true, GFP612 },
	{ "read_cache_folio", true, true, RCF },
	{ PLAN_SYSTP_FACT, true, false, { 0 } },
};

/* A kernel where the compare is a real function. */
static const struct fake_fn upstream[] = {
	{ "vfs_dedupe_file_range_compare", true, true, CMP },
	{ "generic_remap_file_range_prep", true, true, PREP6 },
	{ "shmem_file_read_iter", true, true, READ },
};

/* A kernel that changed the compare's prototype (len became u32). */
static const struct fake_fn changed[] = {
	{ "vfs_dedupe_file_range_compare",
	  true,
	  true,
	  { 6,
	    { "ptr:struct file", "s64", "ptr:struct file", "s64", "u32",
	      "ptr:bool" },
	    "s32" } },
	{ "shmem_file_read_iter",
	  true,
	  true,
	  { 3, { "ptr:struct kiocb", "ptr:struct iov_iter", "u32" }, "s64" } },
};

static const struct fake_fn *fake_find(const struct kfacts *f, const char *name)
{
	const struct fake *fk = f->priv;

	for (int i = 0; i < fk->nfns; i++)
		if (!strcmp(fk->fns[i].name, name))
			return &fk->fns[i];
	return NULL;
}

static bool fake_has_symbol(const struct kfacts *f, const char *name)
{
	const struct fake *fk = f->priv;
	const struct fake_fn *fn = fake_find(f, name);

	if (fk->clone && !strcmp(name, fk->clone))
		return true;
	return fn && fn->symbol;
}

static bool fake_find_clone(const struct kfacts *f, const char *name, char *out,
			    size_t n)
{
	const struct fake *fk = f->priv;

	if (!fk->clone || strncmp(fk->clone, name, strlen(name)))
		return false;
	strncpy(out, fk->clone, n - 1);
	out[n - 1] = '\0';
	return true;
}

static int fake_btf_proto(const struct kfacts *f, const char *name,
			  struct fn_proto *p)
{
	const struct fake_fn *fn = fake_find(f, name);

	if (!fn || !fn->btf)
		return -ENOENT;
	*p = fn->proto;
	return 0;
}

static bool fake_blacklisted(const struct kfacts *f, const char *name)
{
	const struct fake *fk = f->priv;

	return fk->blacklisted && !strcmp(fk->blacklisted, name);
}

static void fake_init(struct kfacts *f, struct fake *fk,
		      const struct fake_fn *fns, int n, int kprobes)
{
	memset(f, 0, sizeof(*f));
	fk->fns = fns;
	fk->nfns = n;
	f->priv = fk;
	f->has_btf = true;
	f->kernel_btf = true;
	f->kprobes = kprobes;
	strcpy(f->kprobes_why, "CONFIG_KPROBES is not set in this kernel");
	f->has_symbol = fake_has_symbol;
	f->find_clone = fake_find_clone;
	f->btf_proto = fake_btf_proto;
	f->kprobe_blacklisted = fake_blacklisted;
}

static void test_debian61_auto(void **state)
{
	struct fake fk = {};
	struct kfacts f;
	struct plan p;

	fake_init(&f, &fk, deb61, ARRAY_SIZE(deb61), 1);
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_true(p.inlined);
	/* 2 on the compare, 6 on callers, the syscall level on per-syscall
	 * tracepoints, then on the raw ones */
	assert_int_equal(p.nsteps, 10);
	assert_int_equal(p.step[8].mech, MECH_SYSCALL);
	assert_string_equal(p.step[8].symbol, PLAN_SYSTP_SYMBOL);
	assert_int_equal(p.step[8].handler, PLAN_H_DD_SYSTP);
	assert_true(p.step[8].available);
	assert_int_equal(p.step[9].mech, MECH_SYSCALL);
	assert_string_equal(p.step[9].symbol, "sys_enter/sys_exit");
	assert_int_equal(p.step[9].handler, PLAN_H_DD_SYSCALL);
	assert_true(p.step[9].available);
	/* compare: no symbol, both steps refused with that reason */
	assert_false(p.step[0].available);
	assert_non_null(strstr(p.step[0].why, "no symbol"));
	assert_false(p.step[1].available);
	/* first usable: fentry on the 7-argument caller (tried, may fail) */
	assert_int_equal(plan__next(&p, 0), 2);
	assert_string_equal(p.step[2].symbol,
			    "__generic_remap_file_range_prep");
	assert_int_equal(p.step[2].mech, MECH_FENTRY);
	assert_int_equal(p.step[3].mech, MECH_KPROBE);
	assert_int_equal(plan__next(&p, 3), 3);
	assert_string_equal(p.step[4].symbol, "generic_remap_file_range_prep");
	assert_string_equal(p.step[6].symbol, "vfs_dedupe_file_range_one");
}

/*
 * 6.12's trampoline takes the 7-argument caller: fentry on it attaches
 * (doctor: attached, in-flight calls in task storage), so auto stays on
 * the first caller step with fentry, where 6.1 falls to kprobe.
 */
static void test_debian612_auto(void **state)
{
	struct fake fk = {};
	struct kfacts f;
	struct plan p;
	char why[512];

	fake_init(&f, &fk, deb612, ARRAY_SIZE(deb612), 1);
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_true(p.inlined);
	assert_int_equal(p.nsteps, 10);
	assert_false(p.step[0].available);
	assert_false(p.step[1].available);
	assert_int_equal(plan__next(&p, 0), 2);
	assert_string_equal(p.step[2].symbol,
			    "__generic_remap_file_range_prep");
	assert_int_equal(p.step[2].mech, MECH_FENTRY);
	assert_int_equal(p.step[2].handler, PLAN_H_DD_PREP);
	assert_int_equal(p.step[2].role, ROLE_CALLER);
	/* Every caller and the syscall level pass the static checks. */
	for (int i = 2; i < p.nsteps; i++)
		assert_true(p.step[i].available);

	p.step[2].tried = true;
	p.step[2].err = 0;
	strcpy(p.step[2].inflight, "task storage");
	p.chosen = 2;
	plan__reason(&p, why, sizeof(why));
	assert_non_null(strstr(why, "vfs_dedupe_file_range_compare is inlined "
				    "(no symbol); fentry on "
				    "__generic_remap_file_range_prep"));
	/* Only the compare's own two steps were passed over. */
	assert_non_null(strstr(why, "; fentry vfs_dedupe_file_range_compare: "
				    "no symbol"));
	assert_non_null(strstr(why, "; kprobe vfs_dedupe_file_range_compare: "
				    "no symbol"));
	assert_null(strstr(why, "kprobe __generic"));

	plan__build(&f, FS_TGT_SHMEM, PLAN_AUTO, &p);
	assert_int_equal(p.nsteps, 4);
	assert_int_equal(plan__next(&p, 0), 0);
	assert_int_equal(p.step[0].mech, MECH_FENTRY);
	assert_int_equal(p.step[0].role, ROLE_FUNC);
	assert_string_equal(p.step[0].symbol, "shmem_file_read_iter");
}

/* 6.12's lookup worker passes write_end first: the folio out-pointer is
 * argument 4 (index 3), where 6.1 has it third. */
static void test_debian612_sub_probes(void **state)
{
	const struct fn_proto gfp = GFP612, rcf = RCF;
	char why[160] = "";

	assert_true(plan__proto_ok(PLAN_H_SH_LOOKUP, &gfp, why, sizeof(why)));
	assert_int_equal(plan__lookup_arg(&gfp), 3);
	assert_true(plan__proto_ok(PLAN_H_DD_FOLIO, &rcf, why, sizeof(why)));
	assert_string_equal(why, "");
}

static void test_mode_filters_mechanisms(void **state)
{
	struct fake fk = {};
	struct kfacts f;
	struct plan p;

	fake_init(&f, &fk, deb61, ARRAY_SIZE(deb61), 1);
	plan__build(&f, FS_TGT_DEDUPE, PLAN_FENTRY, &p);
	assert_int_equal(p.nsteps, 4);
	for (int i = 0; i < p.nsteps; i++)
		assert_int_equal(p.step[i].mech, MECH_FENTRY);
	plan__build(&f, FS_TGT_SHMEM, PLAN_KPROBE, &p);
	assert_int_equal(p.nsteps, 1);
	assert_int_equal(p.step[0].mech, MECH_KPROBE);
	assert_true(p.step[0].available);
}

static void test_no_kprobes(void **state)
{
	struct fake fk = {};
	struct kfacts f;
	struct plan p;

	fake_init(&f, &fk, deb61, ARRAY_SIZE(deb61), 0);
	plan__build(&f, FS_TGT_SHMEM, PLAN_KPROBE, &p);
	assert_int_equal(plan__next(&p, 0), -1);
	assert_string_equal(p.step[0].why,
			    "CONFIG_KPROBES is not set in this kernel");
	plan__build(&f, FS_TGT_SHMEM, PLAN_AUTO, &p);
	assert_int_equal(plan__next(&p, 0), 0);
	assert_int_equal(p.step[0].mech, MECH_FENTRY);
}

static void test_upstream_prefers_function(void **state)
{
	struct fake fk = {};
	struct kfacts f;
	struct plan p;

	fake_init(&f, &fk, upstream, ARRAY_SIZE(upstream), 1);
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_false(p.inlined);
	assert_int_equal(plan__next(&p, 0), 0);
	assert_int_equal(p.step[0].role, ROLE_FUNC);
	assert_int_equal(p.step[0].handler, PLAN_H_DD_CMP);
	/* __generic_... absent on this kernel */
	assert_false(p.step[2].available);
}

static void test_changed_prototype_refused(void **state)
{
	struct fake fk = {};
	struct kfacts f;
	struct plan p;

	fake_init(&f, &fk, changed, ARRAY_SIZE(changed), 1);
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_false(p.step[0].available);
	assert_string_equal(p.step[0].why,
			    "BTF prototype argument 5 is u32, expected s64");
	assert_false(p.step[1].available);
	plan__build(&f, FS_TGT_SHMEM, PLAN_AUTO, &p);
	/* Both function steps refused: only the syscall level remains, on
	 * the raw tracepoints (this kernel has no per-syscall ones). */
	assert_int_equal(plan__next(&p, 0), 3);
	assert_int_equal(p.step[3].mech, MECH_SYSCALL);
	assert_int_equal(p.step[3].handler, PLAN_H_SH_SYSCALL);
	assert_non_null(strstr(p.step[0].why, "has 3 arguments"));
}

static void test_clone_timing_only_last(void **state)
{
	struct fake fk = {
		.clone = "vfs_dedupe_file_range_compare.constprop.0"
	};
	struct kfacts f;
	struct plan p;

	/* Only the clone: no callers with BTF. */
	fake_init(&f, &fk, NULL, 0, 1);
	fk.clone = "vfs_dedupe_file_range_compare.constprop.0";
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_string_equal(p.clone, fk.clone);
	assert_true(p.inlined);
	assert_int_equal(p.nsteps, 11);
	assert_int_equal(plan__next(&p, 0), 8);
	assert_int_equal(p.step[8].role, ROLE_CLONE);
	assert_int_equal(p.step[8].mech, MECH_KPROBE);
	assert_non_null(strstr(p.step[8].why, "calling convention"));
	/* With kprobes off only the syscall level is left. */
	f.kprobes = 0;
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_int_equal(plan__next(&p, 0), 10);
	assert_int_equal(p.step[10].role, ROLE_SYSCALL);
	plan__build(&f, FS_TGT_DEDUPE, PLAN_KPROBE, &p);
	assert_int_equal(plan__next(&p, 0), -1);
}

static void test_no_btf_and_blacklist(void **state)
{
	struct fake fk = { .blacklisted = "shmem_file_read_iter" };
	struct kfacts f;
	struct plan p;

	fake_init(&f, &fk, deb61, ARRAY_SIZE(deb61), 1);
	fk.blacklisted = "shmem_file_read_iter";
	plan__build(&f, FS_TGT_SHMEM, PLAN_AUTO, &p);
	assert_true(p.step[0].available);
	assert_false(p.step[1].available);
	assert_non_null(strstr(p.step[1].why, "blacklist"));
	f.has_btf = false;
	plan__build(&f, FS_TGT_SHMEM, PLAN_AUTO, &p);
	assert_false(p.step[0].available);
	assert_non_null(strstr(p.step[0].why, "no kernel BTF"));
}

/*
 * --btf FILE on a kernel whose own BTF is hidden: kprobes are planned
 * from FILE, fentry is refused (libbpf resolves its target only in the
 * kernel's BTF). With no BTF at all even the syscall level is refused,
 * and every reason names --btf.
 */
static void test_btf_file_without_kernel_btf(void **state)
{
	struct fake fk = {};
	struct kfacts f;
	struct plan p;

	fake_init(&f, &fk, deb61, ARRAY_SIZE(deb61), 1);
	f.kernel_btf = false;
	strcpy(f.btf_file, "/tmp/vmlinux.btf");
	plan__build(&f, FS_TGT_SHMEM, PLAN_AUTO, &p);
	assert_int_equal(p.step[0].mech, MECH_FENTRY);
	assert_false(p.step[0].available);
	assert_non_null(
		strstr(p.step[0].why, "fentry needs the kernel's own BTF"));
	assert_int_equal(plan__next(&p, 0), 1);
	assert_int_equal(p.step[1].mech, MECH_KPROBE);
	f.has_btf = false;
	plan__build(&f, FS_TGT_SHMEM, PLAN_AUTO, &p);
	assert_int_equal(plan__next(&p, 0), -1);
	for (int i = 0; i < p.nsteps; i++)
		assert_non_null(strstr(p.step[i].why, "give --btf FILE"));
}

static void test_reason_names_skipped_steps(void **state)
{
	struct fake fk = {};
	struct kfacts f;
	struct plan p;
	char why[512];

	fake_init(&f, &fk, deb61, ARRAY_SIZE(deb61), 1);
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	p.step[2].tried = true;
	p.step[2].err = -524;
	strcpy(p.step[2].err_msg, "attach failed: error 524 (ENOTSUPP)");
	p.chosen = 3;
	plan__reason(&p, why, sizeof(why));
	assert_non_null(strstr(why, "is inlined (no symbol)"));
	assert_non_null(
		strstr(why, "kprobe on __generic_remap_file_range_prep"));
	assert_non_null(strstr(why, "fentry __generic_remap_file_range_prep: "
				    "attach failed: error 524"));
}

/*
 * FOLIOSCOPE_EXCLUDE's list: whole names only (generic_... does not
 * exclude __generic_...); with both preps excluded on Debian's 6.1 the
 * plan falls to vfs_dedupe_file_range_one, fentry then kprobe.
 */
static void test_exclude_forces_dedupe_one(void **state)
{
	struct fake fk = {};
	struct kfacts f;
	struct plan p;

	fake_init(&f, &fk, deb61, ARRAY_SIZE(deb61), 1);
	strcpy(f.exclude, "generic_remap_file_range_prep");
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_int_equal(plan__next(&p, 0), 2);
	assert_false(p.step[4].available);
	assert_false(p.step[5].available);
	assert_string_equal(p.step[5].why, "'generic_remap_file_range_prep' "
					   "excluded by FOLIOSCOPE_EXCLUDE");
	strcpy(f.exclude,
	       "__generic_remap_file_range_prep,generic_remap_file_range_prep");
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_int_equal(plan__next(&p, 0), 6);
	assert_string_equal(p.step[6].symbol, "vfs_dedupe_file_range_one");
	assert_int_equal(p.step[6].mech, MECH_FENTRY);
	assert_int_equal(plan__next(&p, 7), 7);
	assert_int_equal(p.step[7].mech, MECH_KPROBE);
	plan__build(&f, FS_TGT_DEDUPE, PLAN_KPROBE, &p);
	assert_int_equal(plan__next(&p, 0), 3);
	assert_string_equal(p.step[3].symbol, "vfs_dedupe_file_range_one");
	/* The shmem target is left alone. */
	plan__build(&f, FS_TGT_SHMEM, PLAN_AUTO, &p);
	assert_int_equal(plan__next(&p, 0), 0);
}

/*
 * The syscall level on a kernel with per-syscall tracepoints: those come
 * first (other syscalls run nothing of ours), the raw sys_enter/sys_exit
 * stay behind them; the reason says which and why. -m syscall keeps both.
 */
static void test_syscall_tracepoints_first(void **state)
{
	struct fake fk = {};
	struct kfacts f;
	struct plan p;
	char why[1024];

	fake_init(&f, &fk, deb61, ARRAY_SIZE(deb61), 0);
	for (int t = 0; t < FS_TGT_NR; t++) {
		int tp, raw;

		plan__build(&f, t, PLAN_SYSCALL, &p);
		assert_int_equal(p.nsteps, 2);
		tp = plan__next(&p, 0);
		assert_int_equal(tp, 0);
		assert_string_equal(p.step[0].symbol, PLAN_SYSTP_SYMBOL);
		assert_int_equal(p.step[0].role, ROLE_SYSCALL);
		assert_int_equal(p.step[0].handler, t == FS_TGT_DEDUPE
							    ? PLAN_H_DD_SYSTP
							    : PLAN_H_SH_SYSTP);
		raw = plan__next(&p, tp + 1);
		assert_int_equal(raw, 1);
		assert_string_equal(p.step[1].symbol, "sys_enter/sys_exit");
		assert_int_equal(p.step[1].handler,
				 t == FS_TGT_DEDUPE ? PLAN_H_DD_SYSCALL
						    : PLAN_H_SH_SYSCALL);
		p.step[0].tried = true;
		strcpy(p.step[0].err_msg, "attached");
		p.chosen = 0;
		plan__reason(&p, why, sizeof(why));
		assert_non_null(strstr(why, "per-syscall tracepoints"));
		assert_non_null(strstr(why, "other syscalls run no program"));
		assert_non_null(strstr(why, t == FS_TGT_DEDUPE
						    ? "sys_exit_ioctl"
						    : "{read,pread64,readv,"
						      "preadv,preadv2}"));
	}
	/* Auto on a kernel without kprobes: the same, after fentry. */
	plan__build(&f, FS_TGT_SHMEM, PLAN_AUTO, &p);
	assert_int_equal(plan__next(&p, 1), 2);
	assert_int_equal(p.step[2].handler, PLAN_H_SH_SYSTP);
}

/*
 * Without per-syscall tracepoints (no CONFIG_FTRACE_SYSCALLS), or with
 * them excluded (FOLIOSCOPE_EXCLUDE=syscalls), the raw pair is used and
 * the reason says why the per-syscall ones were not.
 */
static void test_syscall_raw_fallback(void **state)
{
	struct fake fk = {};
	struct kfacts f;
	struct plan p;
	char why[1024];

	fake_init(&f, &fk, upstream, ARRAY_SIZE(upstream), 0);
	plan__build(&f, FS_TGT_SHMEM, PLAN_SYSCALL, &p);
	assert_int_equal(p.nsteps, 2);
	assert_false(p.step[0].available);
	assert_string_equal(p.step[0].why, "no per-syscall tracepoints (no "
					   "ftrace_syscall_enter in kallsyms: "
					   "CONFIG_FTRACE_SYSCALLS is off)");
	assert_int_equal(plan__next(&p, 0), 1);
	p.chosen = 1;
	plan__reason(&p, why, sizeof(why));
	assert_non_null(strstr(why, "raw tracepoints sys_enter/sys_exit, "
				    "which run on every syscall"));
	assert_non_null(strstr(why, "; syscall syscalls: no per-syscall "
				    "tracepoints"));

	fake_init(&f, &fk, deb61, ARRAY_SIZE(deb61), 0);
	strcpy(f.exclude, PLAN_SYSTP_SYMBOL);
	plan__build(&f, FS_TGT_DEDUPE, PLAN_SYSCALL, &p);
	assert_false(p.step[0].available);
	assert_string_equal(p.step[0].why,
			    "'syscalls' excluded by FOLIOSCOPE_EXCLUDE");
	assert_int_equal(plan__next(&p, 0), 1);
	assert_int_equal(p.step[1].handler, PLAN_H_DD_SYSCALL);
	/* No BTF: neither, for the same reason as before. */
	f.has_btf = false;
	plan__build(&f, FS_TGT_DEDUPE, PLAN_SYSCALL, &p);
	assert_int_equal(plan__next(&p, 0), -1);
	assert_non_null(strstr(p.step[0].why, "give --btf FILE"));
}

static void test_parse_mode(void **state)
{
	enum plan_mode m;

	assert_int_equal(plan__parse_mode("kprobe", &m), 0);
	assert_int_equal(m, PLAN_KPROBE);
	assert_int_equal(plan__parse_mode("fentry", &m), 0);
	assert_int_equal(m, PLAN_FENTRY);
	assert_int_equal(plan__parse_mode("syscall", &m), 0);
	assert_int_equal(m, PLAN_SYSCALL);
	assert_int_equal(plan__parse_mode("uprobe", &m), -EINVAL);
}

/* ---- inline sites: fake DWARF sites into the probes' plan */

static const int sizes8[FS_INLINE_NARGS] = { 8, 8, 8, 8, 8, 8 };

#define SYM 0xffffffff81398580ULL

static struct dwarf_loc reg_loc(int reg)
{
	return (struct dwarf_loc){ .kind = DWARF_LOC_REG, .reg = reg };
}

static struct dwarf_loc gone(void)
{
	struct dwarf_loc l = { .kind = DWARF_LOC_UNAVAILABLE, .reg = -1 };

	strcpy(l.why, "optimised out (no location)");
	return l;
}

/* Debian 6.1's site as its DWARF has it: src, dest, is_same optimised
 * out, branch exits landing on four distinct targets. */
static void site61(struct dwarf_site *s, struct dwarf_param *pa,
		   struct dwarf_exit *ex)
{
	static const char *const names[] = { "src",    "srcoff", "dest",
					     "dstoff", "len",	 "is_same" };
	static const unsigned tgt[] = { 0x2f0, 0x607, 0x2a0, 0x2a0, 0x2af };

	memset(s, 0, sizeof(*s));
	strcpy(s->caller, "__generic_remap_file_range_prep");
	strcpy(s->symbol, "__generic_remap_file_range_prep");
	s->symbol_addr = SYM;
	s->entry_pc = SYM + 0x3f3;
	for (int i = 0; i < 6; i++)
		strcpy(pa[i].name, names[i]);
	pa[0].loc = gone();
	pa[1].loc = reg_loc(3);
	pa[2].loc = gone();
	pa[3].loc = reg_loc(6);
	pa[4].loc = reg_loc(8);
	pa[5].loc = gone();
	s->params = pa;
	s->nparams = 6;
	for (int i = 0; i < 5; i++) {
		ex[i] = (struct dwarf_exit){ .kind = DWARF_EXIT_BRANCH,
					     .insn = SYM + 0x325 + i,
					     .target = SYM + tgt[i] };
		strcpy(ex[i].mnemonic, "jmp");
	}
	s->exits = ex;
	s->nexits = 5;
}

static void test_inline_build_61(void **state)
{
	struct dwarf_param pa[6];
	struct dwarf_exit ex[5];
	struct dwarf_site s;
	struct plan_inline in;

	site61(&s, pa, ex);
	plan__inline_build(&s, 1, sizes8, 5, &in);
	assert_string_equal(in.why, "");
	assert_int_equal(in.nsites, 1);
	assert_string_equal(in.site[0].symbol,
			    "__generic_remap_file_range_prep");
	assert_int_equal(in.site[0].entry_off, 0x3f3);
	/* Exits are probed where they land, each target once. */
	assert_int_equal(in.site[0].nexits, 4);
	assert_int_equal(in.site[0].exit_off[0], 0x2f0);
	assert_int_equal(in.site[0].exit_off[1], 0x607);
	assert_int_equal(in.site[0].exit_off[2], 0x2a0);
	assert_int_equal(in.site[0].exit_off[3], 0x2af);
	assert_int_equal(in.fetch[0][1].kind, FS_FETCH_REG);
	assert_int_equal(in.fetch[0][1].reg, 3);
	assert_int_equal(in.fetch[0][3].reg, 6);
	assert_int_equal(in.fetch[0][4].kind, FS_FETCH_REG);
	assert_int_equal(in.fetch[0][4].reg, 8);
	assert_int_equal(in.fetch[0][5].kind, FS_FETCH_NONE);
	assert_string_equal(in.arg_why[1], "");
	assert_string_equal(in.arg_why[4], "");
	assert_string_equal(in.arg_why[5],
			    "'is_same' at the inline entry: optimised out (no "
			    "location)");
	assert_non_null(strstr(in.arg_why[0], "'src'"));
}

/* 6.12's is_same: the value frame base-72, the frame base the CFA at
 * rsp+152: the address rsp+80. A memory argument in the frame, and one
 * whose frame base the CFI does not give. */
static void test_inline_build_frame(void **state)
{
	struct dwarf_param pa[6];
	struct dwarf_exit ex[5];
	struct dwarf_site s;
	struct plan_inline in;

	site61(&s, pa, ex);
	pa[5].loc = (struct dwarf_loc){ .kind = DWARF_LOC_FBVALUE,
					.reg = -1,
					.offset = -72,
					.cfa_known = true,
					.cfa_reg = 7,
					.cfa_offset = 152 };
	pa[0].loc = (struct dwarf_loc){ .kind = DWARF_LOC_MEM,
					.reg = 6,
					.offset = 16 };
	pa[2].loc = (struct dwarf_loc){ .kind = DWARF_LOC_FBREG,
					.reg = -1,
					.offset = -8 };
	/* 6.12's inlined code keeps the verdict in registers: no store to
	 * rsp+80 in the site, so the exit has nothing to read. */
	plan__inline_build(&s, 1, sizes8, 5, &in);
	assert_int_equal(in.nsites, 1);
	assert_int_equal(in.fetch[0][5].kind, FS_FETCH_NONE);
	assert_string_equal(
		in.arg_why[5],
		"'is_same' at the inline entry: the address rsp+80, "
		"where the inlined code never stores (the result "
		"stays in registers)");
	/* A site that stores there: read at the exit. */
	pa[5].store = SYM + 0x500;
	plan__inline_build(&s, 1, sizes8, 5, &in);
	assert_int_equal(in.nsites, 1);
	assert_int_equal(in.fetch[0][5].kind, FS_FETCH_VALUE);
	assert_int_equal(in.fetch[0][5].reg, 7);
	assert_int_equal(in.fetch[0][5].off, 80);
	assert_string_equal(in.arg_why[5], "");
	assert_int_equal(in.fetch[0][0].kind, FS_FETCH_MEM);
	assert_int_equal(in.fetch[0][0].reg, 6);
	assert_int_equal(in.fetch[0][0].off, 16);
	assert_int_equal(in.fetch[0][0].size, 8);
	assert_int_equal(in.fetch[0][2].kind, FS_FETCH_NONE);
	assert_non_null(strstr(in.arg_why[2], "frame base -8"));
	/* A register that is no general-purpose one (xmm0 is 17). */
	pa[4].loc = reg_loc(17);
	plan__inline_build(&s, 1, sizes8, 5, &in);
	assert_int_equal(in.fetch[0][4].kind, FS_FETCH_NONE);
	assert_non_null(strstr(in.arg_why[4], "DWARF register 17"));
}

/* Sites the probes cannot take: no site, too many, a return exit. */
static void test_inline_build_refused(void **state)
{
	struct dwarf_param pa[6];
	struct dwarf_exit ex[5];
	struct dwarf_site s[FS_INLINE_MAX_SITES + 1] = { 0 };
	struct plan_inline in;

	plan__inline_build(s, 0, sizes8, 5, &in);
	assert_int_equal(in.nsites, 0);
	assert_string_equal(in.why, "no inline site in the DWARF");
	for (int i = 0; i <= FS_INLINE_MAX_SITES; i++)
		site61(&s[i], pa, ex);
	plan__inline_build(s, FS_INLINE_MAX_SITES + 1, sizes8, 5, &in);
	assert_int_equal(in.nsites, 0);
	assert_non_null(strstr(in.why, "at most 4"));
	plan__inline_build(s, 2, sizes8, 5, &in);
	assert_int_equal(in.nsites, 2);
	ex[1].kind = DWARF_EXIT_RETURN;
	strcpy(ex[1].mnemonic, "ret");
	plan__inline_build(s, 1, sizes8, 5, &in);
	assert_int_equal(in.nsites, 0);
	assert_string_equal(
		in.why,
		"site in __generic_remap_file_range_prep: exit at "
		"__generic_remap_file_range_prep+0x326 (ret) has no target in "
		"__generic_remap_file_range_prep to probe");
}

/*
 * Inline sites per target: each target's step comes from its own entry in
 * the table and its own DWARF sites, never another target's. shmem's
 * traced function is never inlined: sites found for it add no step. The
 * fetch plan follows the argument table it is given: a second function
 * with a 4-byte argument in memory (shmem_get_folio's sgp) and an out
 * pointer that its code never stores through.
 */
/*
 * shmem's folio lookup inlined into the read loop at SYM + entry_off:
 * parameters inode (in r14), index (in index_reg) and foliop (for the
 * test to set), foliop the pointee parameter, exits ex for the test to
 * fill (nexits of them).
 */
static void lookup_site(struct dwarf_site *s, struct dwarf_param pa[3],
			struct dwarf_exit *ex, int nexits,
			unsigned long long entry_off, int index_reg)
{
	static const char *const names[] = { "inode", "index", "foliop" };

	memset(s, 0, sizeof(*s));
	memset(pa, 0, 3 * sizeof(*pa));
	memset(ex, 0, nexits * sizeof(*ex));
	strcpy(s->caller, "shmem_file_read_iter");
	strcpy(s->symbol, "shmem_file_read_iter");
	s->symbol_addr = SYM;
	s->entry_pc = SYM + entry_off;
	for (int i = 0; i < 3; i++)
		strcpy(pa[i].name, names[i]);
	pa[0].loc = reg_loc(14);
	pa[1].loc = reg_loc(index_reg);
	s->params = pa;
	s->nparams = 3;
	s->pointee_param = 2;
	s->exits = ex;
	s->nexits = nexits;
}

/*
 * The lookup's out pointer inlined as an implicit pointer to the read
 * loop's folio variable: the folio is that variable at each exit target,
 * in whatever register the DWARF puts it there; where one exit target has
 * no location for it, the result is not fetched anywhere, and why names
 * that exit.
 */
static void test_inline_build_pointee(void **state)
{
	struct dwarf_param pa[3];
	struct dwarf_exit ex[3];
	struct dwarf_site s;
	struct plan_inline in;

	(void)state;
	lookup_site(&s, pa, ex, 3, 0x82, 12);
	pa[2].loc = (struct dwarf_loc){ .kind = DWARF_LOC_UNAVAILABLE,
					.reg = -1,
					.pointee = 0x144cb66 };
	strcpy(pa[2].loc.why, "an implicit pointer");
	/* Two exits land on one target, a third elsewhere. */
	ex[0] = (struct dwarf_exit){ .kind = DWARF_EXIT_BRANCH,
				     .insn = SYM + 0x106,
				     .target = SYM + 0x12d,
				     .pointee = reg_loc(13) };
	ex[1] = ex[0];
	ex[1].insn = SYM + 0x10a;
	ex[2] = (struct dwarf_exit){ .kind = DWARF_EXIT_BRANCH,
				     .insn = SYM + 0x11d,
				     .target = SYM + 0x27c,
				     .pointee = { .kind = DWARF_LOC_CONST,
						  .reg = -1 } };
	plan__inline_build(&s, 1, sizes8, 2, &in);
	assert_string_equal(in.why, "");
	assert_int_equal(in.nsites, 1);
	assert_true(in.out_at_exit);
	assert_string_equal(in.arg_why[2], "");
	assert_int_equal(in.fetch[0][2].kind, FS_FETCH_NONE);
	assert_int_equal(in.site[0].nexits, 2);
	assert_int_equal(in.site[0].exit_off[0], 0x12d);
	assert_int_equal(in.exit_fetch[0][0].kind, FS_FETCH_REG);
	assert_int_equal(in.exit_fetch[0][0].reg, 13);
	assert_int_equal(in.site[0].exit_off[1], 0x27c);
	assert_int_equal(in.exit_fetch[0][1].kind, FS_FETCH_CONST);
	assert_int_equal(in.exit_fetch[0][1].off, 0);
	assert_int_equal(in.fetch[0][0].kind, FS_FETCH_REG);
	assert_int_equal(in.fetch[0][0].reg, 14);

	/* Not located where the second target lands. */
	ex[2].pointee =
		(struct dwarf_loc){ .kind = DWARF_LOC_UNAVAILABLE, .reg = -1 };
	strcpy(ex[2].pointee.why, "optimised out where the exit lands");
	plan__inline_build(&s, 1, sizes8, 2, &in);
	assert_int_equal(in.nsites, 1);
	assert_false(in.out_at_exit);
	assert_string_equal(in.arg_why[2],
			    "'foliop', a pointer to the caller's variable, at "
			    "the exit shmem_file_read_iter+0x27c: optimised "
			    "out where the exit lands");
	assert_int_equal(in.fetch[0][2].kind, FS_FETCH_NONE);

	/* The same parameter as an ordinary out pointer is not a pointee:
	 * pointee_param alone (0 in a zeroed site) does not make one. */
	pa[2].loc.pointee = 0;
	plan__inline_build(&s, 1, sizes8, 2, &in);
	assert_false(in.out_at_exit);
	assert_string_equal(in.arg_why[2], "'foliop' at the inline entry: "
					   "an implicit pointer");
}

/*
 * The lookup's out pointer inlined as the address of the read loop's
 * folio in the frame (frame base-72, the frame base the CFA): the folio
 * is the memory there at each exit target, with the CFA's rule at that
 * target (rsp+120 at one, rsp+128 at another, after a push), and still
 * the address at the entry.
 */
static void test_inline_build_frame_exits(void **state)
{
	struct dwarf_loc at_exit = { .kind = DWARF_LOC_FBREG,
				     .reg = -1,
				     .offset = -72,
				     .cfa_known = true,
				     .cfa_reg = 7,
				     .cfa_offset = 120 };
	struct dwarf_param pa[3];
	struct dwarf_exit ex[3];
	struct dwarf_site s;
	struct plan_inline in;

	(void)state;
	lookup_site(&s, pa, ex, 3, 0x89, 3);
	pa[2].loc = at_exit;
	pa[2].loc.kind = DWARF_LOC_FBVALUE;
	pa[2].store = SYM + 0x12e;
	ex[0] = (struct dwarf_exit){ .kind = DWARF_EXIT_FALLTHROUGH,
				     .insn = SYM + 0x12e,
				     .target = SYM + 0x133,
				     .pointee = at_exit };
	ex[1] = (struct dwarf_exit){ .kind = DWARF_EXIT_BRANCH,
				     .insn = SYM + 0xa2,
				     .target = SYM + 0x293,
				     .pointee = at_exit };
	ex[1].pointee.cfa_offset = 128;
	ex[2] = ex[0];
	ex[2].insn = SYM + 0x108;
	plan__inline_build(&s, 1, sizes8, 2, &in);
	assert_string_equal(in.why, "");
	assert_int_equal(in.nsites, 1);
	assert_true(in.out_at_exit);
	assert_string_equal(in.arg_why[2], "");
	assert_string_equal(in.exit_why, "");
	assert_string_equal(plan_inline__out_why(&in), "");
	assert_int_equal(in.site[0].nexits, 2);
	assert_int_equal(in.site[0].exit_off[0], 0x133);
	assert_int_equal(in.exit_fetch[0][0].kind, FS_FETCH_MEM);
	assert_int_equal(in.exit_fetch[0][0].reg, 7);
	assert_int_equal(in.exit_fetch[0][0].off, 48);
	assert_int_equal(in.exit_fetch[0][0].size, 8);
	assert_int_equal(in.site[0].exit_off[1], 0x293);
	assert_int_equal(in.exit_fetch[0][1].kind, FS_FETCH_MEM);
	assert_int_equal(in.exit_fetch[0][1].reg, 7);
	assert_int_equal(in.exit_fetch[0][1].off, 56);
	assert_int_equal(in.exit_fetch[0][1].size, 8);
	/* The address at the entry, for programs that read it there. */
	assert_int_equal(in.fetch[0][2].kind, FS_FETCH_VALUE);
	assert_int_equal(in.fetch[0][2].reg, 7);
	assert_int_equal(in.fetch[0][2].off, 48);

	/* No CFA rule where the second target lands: not read at the
	 * exits, and why, the address still fetched at the entry. */
	ex[1].pointee.cfa_known = false;
	plan__inline_build(&s, 1, sizes8, 2, &in);
	assert_int_equal(in.nsites, 1);
	assert_false(in.out_at_exit);
	assert_string_equal(in.arg_why[2], "");
	assert_int_equal(in.fetch[0][2].kind, FS_FETCH_VALUE);
	assert_string_equal(plan_inline__out_why(&in),
			    "'foliop', the address of the caller's variable, "
			    "at the exit shmem_file_read_iter+0x293: frame "
			    "base -72: the call frame information gives no "
			    "register for it");

	/* The address relative to a register, not to the frame base: no
	 * pointee, so read at the entry only. */
	ex[1].pointee.cfa_known = true;
	s.pointee_param = -1;
	pa[2].loc = (struct dwarf_loc){ .kind = DWARF_LOC_VALUE,
					.reg = 7,
					.offset = 48 };
	plan__inline_build(&s, 1, sizes8, 2, &in);
	assert_false(in.out_at_exit);
	assert_string_equal(in.arg_why[2], "");
	assert_string_equal(plan_inline__out_why(&in),
			    "'foliop' at the inline entry: the address rsp+48, "
			    "which no frame base offset locates at the exits");

	/* A site that never stores there: not fetched at all, arg_why
	 * says why, which is also why it is not read at the exits. */
	s.pointee_param = 2;
	pa[2].loc = at_exit;
	pa[2].loc.kind = DWARF_LOC_FBVALUE;
	pa[2].store = 0;
	plan__inline_build(&s, 1, sizes8, 2, &in);
	assert_false(in.out_at_exit);
	assert_int_equal(in.fetch[0][2].kind, FS_FETCH_NONE);
	assert_string_equal(in.exit_why, "");
	assert_string_equal(plan_inline__out_why(&in),
			    "'foliop' at the inline entry: the address rsp+48, "
			    "where the inlined code never stores (the result "
			    "stays in registers)");
	/* No out argument: nothing to say. */
	plan__inline_build(&s, 1, sizes8, -1, &in);
	assert_int_equal(in.out_arg, -1);
	assert_string_equal(plan_inline__out_why(&in), "");
}

/*
 * The out argument is found by its name, wherever the release put it:
 * 6.1's (inode, index, foliop, ...) and 6.12's (inode, index, write_end,
 * foliop, ...), the first name of the list found winning; a site without
 * any of the names, or sites that disagree, give none.
 */
static void test_inline_param(void **state)
{
	static const char *const want[] = { "foliop", "pagep" };
	struct dwarf_param pa[3], pb[4];
	struct dwarf_exit ex[1], eb[1];
	struct dwarf_site s[2];

	(void)state;
	lookup_site(&s[0], pa, ex, 1, 0x82, 12);
	assert_int_equal(plan__inline_param(s, 1, want, 2), 2);
	lookup_site(&s[1], pb, eb, 1, 0x90, 12);
	memset(&pb[3], 0, sizeof(pb[3]));
	strcpy(pb[2].name, "write_end");
	strcpy(pb[3].name, "foliop");
	s[1].nparams = 4;
	assert_int_equal(plan__inline_param(&s[1], 1, want, 2), 3);
	/* Two sites, the argument at 2 in one and 3 in the other. */
	assert_int_equal(plan__inline_param(s, 2, want, 2), -1);
	/* Another name of the list. */
	strcpy(pa[2].name, "pagep");
	assert_int_equal(plan__inline_param(s, 1, want, 2), 2);
	assert_int_equal(plan__inline_param(s, 1, want, 1), -1);
	/* The first name wins where a site has both. */
	strcpy(pb[2].name, "pagep");
	assert_int_equal(plan__inline_param(&s[1], 1, want, 2), 3);
	assert_int_equal(plan__inline_param(s, 0, want, 2), -1);
}

/* A site whose entry is also its loop's head says so to the probes. */
static void test_inline_entry_loop(void **state)
{
	struct dwarf_param pa[3];
	struct dwarf_exit ex[1];
	struct dwarf_site s[2];
	struct plan_inline in;

	(void)state;
	lookup_site(&s[0], pa, ex, 1, 0x82, 12);
	ex[0] = (struct dwarf_exit){ .kind = DWARF_EXIT_BRANCH,
				     .insn = SYM + 0x90,
				     .target = SYM + 0x200 };
	s[1] = s[0];
	s[1].entry_pc = SYM + 0x300;
	s[1].entry_loop = SYM + 0x3a6;
	plan__inline_build(s, 2, sizes8, -1, &in);
	assert_string_equal(in.why, "");
	assert_int_equal(in.nsites, 2);
	assert_false(in.site[0].entry_loops);
	assert_true(in.site[1].entry_loops);
	assert_int_equal(in.site[1].entry_off, 0x300);
}

static void test_inline_targets(void **state)
{
	static const int sizes_lookup[FS_INLINE_NARGS] = { 8, 8, 8, 4, 0, 0 };
	static const char *const names[] = { "inode", "index", "foliop",
					     "sgp" };
	struct dwarf_param pa[6], lp[4];
	struct dwarf_exit ex[5], lx;
	struct dwarf_site s, ls;
	struct plan_inline in, lin;
	struct fake fk = {};
	struct kfacts f;
	struct plan p;

	assert_string_equal(plan__inline_target(FS_TGT_DEDUPE)->function,
			    "vfs_dedupe_file_range_compare");
	assert_int_equal(plan__inline_target(FS_TGT_DEDUPE)->handler,
			 PLAN_H_DD_INLINE);
	assert_null(plan__inline_target(FS_TGT_SHMEM)->function);
	assert_null(plan__inline_target(FS_TGT_NR)->function);

	/* A second function's site: shmem_get_folio inlined in
	 * shmem_file_read_iter. */
	memset(&ls, 0, sizeof(ls));
	strcpy(ls.caller, "shmem_file_read_iter");
	strcpy(ls.symbol, "shmem_file_read_iter");
	ls.symbol_addr = SYM;
	ls.entry_pc = SYM + 0x90;
	for (int i = 0; i < 4; i++)
		strcpy(lp[i].name, names[i]);
	lp[0].loc = reg_loc(12);
	lp[1].loc = reg_loc(3);
	lp[2].loc = (struct dwarf_loc){ .kind = DWARF_LOC_VALUE,
					.reg = 7,
					.offset = 16 };
	lp[2].store = 0;
	lp[3].loc = (struct dwarf_loc){ .kind = DWARF_LOC_MEM,
					.reg = 6,
					.offset = -20 };
	ls.params = lp;
	ls.nparams = 4;
	lx = (struct dwarf_exit){ .kind = DWARF_EXIT_BRANCH,
				  .insn = SYM + 0xc0,
				  .target = SYM + 0x140 };
	strcpy(lx.mnemonic, "jne");
	ls.exits = &lx;
	ls.nexits = 1;
	plan__inline_build(&ls, 1, sizes_lookup, 2, &lin);
	assert_string_equal(lin.why, "");
	assert_int_equal(lin.nsites, 1);
	assert_string_equal(lin.site[0].symbol, "shmem_file_read_iter");
	assert_int_equal(lin.site[0].entry_off, 0x90);
	assert_int_equal(lin.site[0].nexits, 1);
	assert_int_equal(lin.site[0].exit_off[0], 0x140);
	assert_int_equal(lin.fetch[0][0].kind, FS_FETCH_REG);
	assert_int_equal(lin.fetch[0][0].reg, 12);
	assert_int_equal(lin.fetch[0][3].kind, FS_FETCH_MEM);
	assert_int_equal(lin.fetch[0][3].reg, 6);
	assert_int_equal(lin.fetch[0][3].off, -20);
	assert_int_equal(lin.fetch[0][3].size, 4);
	/* The out pointer is never stored through: not fetched, and why. */
	assert_int_equal(lin.fetch[0][2].kind, FS_FETCH_NONE);
	assert_non_null(strstr(lin.arg_why[2], "'foliop'"));

	site61(&s, pa, ex);
	plan__inline_build(&s, 1, sizes8, 5, &in);
	strcpy(in.source, "/v (--debuginfo)");
	strcpy(lin.source, "/v (--debuginfo)");
	fake_init(&f, &fk, deb61, ARRAY_SIZE(deb61), 1);
	/* Sites for shmem only: neither target gets a step. */
	f.inl[FS_TGT_SHMEM] = &lin;
	plan__build(&f, FS_TGT_SHMEM, PLAN_AUTO, &p);
	for (int i = 0; i < p.nsteps; i++)
		assert_int_not_equal(p.step[i].mech, MECH_INLINE);
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	for (int i = 0; i < p.nsteps; i++)
		assert_int_not_equal(p.step[i].mech, MECH_INLINE);
	/* Dedupe's own: its step names its own site, not shmem's. */
	f.inl[FS_TGT_DEDUPE] = &in;
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_int_equal(p.step[2].mech, MECH_INLINE);
	assert_string_equal(p.step[2].symbol,
			    "__generic_remap_file_range_prep+0x3f3");
	assert_true(p.step[2].available);
	plan__build(&f, FS_TGT_SHMEM, PLAN_AUTO, &p);
	for (int i = 0; i < p.nsteps; i++)
		assert_int_not_equal(p.step[i].mech, MECH_INLINE);
}

/* The inline step comes after the compare's own steps and before its
 * callers; without DWARF it stays in the plan with the reason. */
static void test_inline_step(void **state)
{
	struct dwarf_param pa[6];
	struct dwarf_exit ex[5];
	struct dwarf_site s;
	struct plan_inline in;
	struct fake fk = {};
	struct kfacts f;
	struct plan p;
	char why[1024];

	site61(&s, pa, ex);
	plan__inline_build(&s, 1, sizes8, 5, &in);
	strcpy(in.source, "/v (--debuginfo)");
	fake_init(&f, &fk, deb61, ARRAY_SIZE(deb61), 1);
	/* Nobody looked for DWARF: no inline step. */
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_int_equal(p.nsteps, 10);
	f.inl[FS_TGT_DEDUPE] = &in;
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_int_equal(p.nsteps, 11);
	assert_int_equal(p.step[2].mech, MECH_INLINE);
	assert_int_equal(p.step[2].role, ROLE_INLINE);
	assert_string_equal(plan__mech_name(MECH_INLINE), "kprobe-inline");
	assert_string_equal(p.step[2].symbol,
			    "__generic_remap_file_range_prep+0x3f3");
	assert_int_equal(plan__next(&p, 0), 2);
	assert_string_equal(p.step[2].why,
			    "1 inline site from DWARF (/v (--debuginfo)): "
			    "kprobes at the entry and the exits");
	assert_string_equal(p.step[3].symbol,
			    "__generic_remap_file_range_prep");
	p.chosen = 2;
	plan__reason(&p, why, sizeof(why));
	assert_non_null(strstr(why, "kprobe-inline on "
				    "vfs_dedupe_file_range_compare's inline "
				    "sites: 1 inline site"));
	/* -m kprobe keeps it, -m fentry and syscall leave it out. */
	plan__build(&f, FS_TGT_DEDUPE, PLAN_KPROBE, &p);
	assert_int_equal(p.step[1].mech, MECH_INLINE);
	plan__build(&f, FS_TGT_DEDUPE, PLAN_FENTRY, &p);
	for (int i = 0; i < p.nsteps; i++)
		assert_int_not_equal(p.step[i].mech, MECH_INLINE);
	/* No kprobes, a blacklisted caller, no DWARF: refused, saying why. */
	f.kprobes = 0;
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_false(p.step[2].available);
	assert_string_equal(p.step[2].why,
			    "CONFIG_KPROBES is not set in this kernel");
	f.kprobes = 1;
	fk.blacklisted = "__generic_remap_file_range_prep";
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_false(p.step[2].available);
	assert_non_null(strstr(p.step[2].why, "kprobe blacklist"));
	fk.blacklisted = NULL;
	memset(&in, 0, sizeof(in));
	strcpy(in.why, "no DWARF for 6.1.0-57-cloud-amd64: looked at ...");
	plan__build(&f, FS_TGT_DEDUPE, PLAN_AUTO, &p);
	assert_false(p.step[2].available);
	assert_string_equal(p.step[2].symbol, "vfs_dedupe_file_range_compare");
	assert_string_equal(p.step[2].why, in.why);
	assert_int_equal(plan__next(&p, 0), 3);
	/* The shmem target has no inline step. */
	plan__build(&f, FS_TGT_SHMEM, PLAN_AUTO, &p);
	for (int i = 0; i < p.nsteps; i++)
		assert_int_not_equal(p.step[i].mech, MECH_INLINE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debian61_auto),
		cmocka_unit_test(test_debian612_auto),
		cmocka_unit_test(test_debian612_sub_probes),
		cmocka_unit_test(test_mode_filters_mechanisms),
		cmocka_unit_test(test_no_kprobes),
		cmocka_unit_test(test_upstream_prefers_function),
		cmocka_unit_test(test_changed_prototype_refused),
		cmocka_unit_test(test_clone_timing_only_last),
		cmocka_unit_test(test_no_btf_and_blacklist),
		cmocka_unit_test(test_btf_file_without_kernel_btf),
		cmocka_unit_test(test_reason_names_skipped_steps),
		cmocka_unit_test(test_exclude_forces_dedupe_one),
		cmocka_unit_test(test_syscall_tracepoints_first),
		cmocka_unit_test(test_syscall_raw_fallback),
		cmocka_unit_test(test_parse_mode),
		cmocka_unit_test(test_inline_build_61),
		cmocka_unit_test(test_inline_build_frame),
		cmocka_unit_test(test_inline_build_refused),
		cmocka_unit_test(test_inline_step),
		cmocka_unit_test(test_inline_build_pointee),
		cmocka_unit_test(test_inline_build_frame_exits),
		cmocka_unit_test(test_inline_param),
		cmocka_unit_test(test_inline_entry_loop),
		cmocka_unit_test(test_inline_targets),
	};

	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
