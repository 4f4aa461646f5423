// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The per-target tables probe.c carries out plans with. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "target.h"
#include "dedupe.skel.h"
#include "shmem.skel.h"
#include "dedupe_nok.skel.h"
#include "shmem_nok.skel.h"

/*
 * fn: skeleton SK opened on the ELF of another build of its object, OTHER
 * (the same maps and programs by name): the build for kernels without
 * BTF of their own, whose object names no kfunc (Makefile, NOK_SKELS).
 */
#define SKEL_OPEN_OTHER(fn, sk, other)                                         \
	static void *fn(const struct bpf_object_open_opts *oo)                 \
	{                                                                      \
		struct sk *s = calloc(1, sizeof(*s));                          \
		int err = s ? sk##__create_skeleton(s) : -ENOMEM;              \
                                                                               \
		if (!err) {                                                    \
			s->skeleton->data = (void *)other##__elf_bytes(        \
				&s->skeleton->data_sz);                        \
			err = bpf_object__open_skeleton(s->skeleton, oo);      \
		}                                                              \
		if (err) {                                                     \
			if (s)                                                 \
				sk##__destroy(s);                              \
			errno = -err;                                          \
			return NULL;                                           \
		}                                                              \
		return s;                                                      \
	}
SKEL_OPEN_OTHER(dd__open_nok, dedupe_bpf, dedupe_nok_bpf)
SKEL_OPEN_OTHER(sh__open_nok, shmem_bpf, shmem_nok_bpf)

/* Both skeletons' rodata share these field names: the filters and the
 * in-flight store. */
#define rodata__set(rd, o, c)                                                  \
	do {                                                                   \
		(rd)->filter_tgid = (o)->filter_tgid;                          \
		(rd)->filter_tree = (o)->filter_tree;                          \
		for (__u32 i = 0; i < FS_MAX_PIDS; i++)                        \
			(rd)->filter_pids[i] = (o)->pids[i];                   \
		(rd)->nr_filter_pids = (o)->npids;                             \
		memcpy((void *)(rd)->filter_comm, (o)->comm, 16);              \
		(rd)->has_filter_comm = (o)->comm[0] != '\0';                  \
		(rd)->nr_filter_cgroups = (o)->ncgroups;                       \
		(rd)->filter_dev = (o)->dev;                                   \
		(rd)->filter_magic = (o)->magic;                               \
		(rd)->filter_proc = (o)->filter_tgid || (o)->filter_tree ||    \
				    (o)->npids || (o)->comm[0] ||              \
				    (o)->ncgroups;                             \
		(rd)->filter_files = ((o)->dev || (o)->magic) &&               \
				     !((c)->cost_drop & FS_DROP_FILE);         \
		(rd)->page_size = (__u64)sysconf(_SC_PAGESIZE);                \
		(rd)->sub_pages = (c)->sub_pages;                              \
		(rd)->by = (o)->by;                                            \
		(rd)->lean = (o)->lean;                                        \
		(rd)->exit_only = (c)->exit_only;                              \
		(rd)->inflight_store = (c)->inflight_store;                    \
		(rd)->cost_drop = (c)->cost_drop;                              \
		(rd)->cost_drop_hist = (c)->cost_drop_hist;                    \
		(rd)->ev_on = probe_events__on(&(o)->ev);                      \
		(rd)->ev_all = (o)->ev.all;                                    \
		(rd)->ev_errors = (o)->ev.errors;                              \
		(rd)->ev_slower_ns = (o)->ev.slower_ns;                        \
		(rd)->ev_sample = (o)->ev.sample;                              \
	} while (0)

static void *dd__open(const struct bpf_object_open_opts *oo, bool kfunc)
{
	return kfunc ? dedupe_bpf__open_opts(oo) : dd__open_nok(oo);
}

static void dd__configure(void *skel, const struct probe_opts *o,
			  const struct probe_load_cfg *c)
{
	struct dedupe_bpf *s = skel;

	rodata__set(s->rodata, o, c);
	s->rodata->cmp_src_is_inode = c->cmp_src_is_inode;
	if (!c->inl)
		return;
	memcpy((void *)s->rodata->inline_fetch, c->inl->fetch,
	       sizeof(s->rodata->inline_fetch));
	s->rodata->inline_loop_sites = 0;
	for (int i = 0; i < c->inl->nsites; i++)
		if (c->inl->site[i].entry_loops)
			s->rodata->inline_loop_sites |= 1u << i;
}

static int dd__load(void *skel)
{
	return dedupe_bpf__load(skel);
}

static void dd__destroy(void *skel)
{
	dedupe_bpf__destroy(skel);
}

static struct bpf_object *dd__obj(void *skel)
{
	return ((struct dedupe_bpf *)skel)->obj;
}

static struct bpf_map *dd__stats(void *skel)
{
	return ((struct dedupe_bpf *)skel)->maps.stats;
}

static void *sh__open(const struct bpf_object_open_opts *oo, bool kfunc)
{
	return kfunc ? shmem_bpf__open_opts(oo) : sh__open_nok(oo);
}

static void sh__configure(void *skel, const struct probe_opts *o,
			  const struct probe_load_cfg *c)
{
	struct shmem_bpf *s = skel;

	rodata__set(s->rodata, o, c);
	s->rodata->foliop_arg = c->sub_arg;
	if (c->sub_inl) {
		memcpy((void *)s->rodata->lookup_inline_fetch,
		       c->sub_inl->fetch,
		       sizeof(s->rodata->lookup_inline_fetch));
		memcpy((void *)s->rodata->lookup_inline_exit_fetch,
		       c->sub_inl->exit_fetch,
		       sizeof(s->rodata->lookup_inline_exit_fetch));
	}
}

static int sh__load(void *skel)
{
	return shmem_bpf__load(skel);
}

static void sh__destroy(void *skel)
{
	shmem_bpf__destroy(skel);
}

static struct bpf_object *sh__obj(void *skel)
{
	return ((struct shmem_bpf *)skel)->obj;
}

static struct bpf_map *sh__stats(void *skel)
{
	return ((struct shmem_bpf *)skel)->maps.stats;
}

/* An entry program and its return program. */
#define PAIR(e, x)                                                             \
	{                                                                      \
		{ e, false },                                                  \
		{                                                              \
			x, true                                                \
		}                                                              \
	}

/* What the tmpfs read programs count. */
#define SH_COVERS_READ_ITER                                                    \
	"read, pread, readv, preadv, preadv2, io_uring reads and loop "        \
	"devices (shmem_file_read_iter)"
#define SH_COVERS_SYSCALL                                                      \
	"the read, pread64, readv, preadv and preadv2 syscalls only; NOT "     \
	"io_uring, splice, sendfile, copy_file_range or loop devices, "        \
	"which make no read syscall of their own"

static const struct probe_target targets[FS_TGT_NR] = {
	[FS_TGT_DEDUPE] = {
		.object = "dedupe",
		.open = dd__open,
		.configure = dd__configure,
		.load = dd__load,
		.destroy = dd__destroy,
		.obj = dd__obj,
		.stats = dd__stats,
		.set = {
			{ PLAN_H_DD_CMP, MECH_FENTRY, true, true,
			  PAIR("fentry_cmp", "fexit_any") },
			{ PLAN_H_DD_CMP, MECH_KPROBE, true, true,
			  PAIR("kprobe_cmp", "kretprobe_any") },
			{ PLAN_H_DD_PREP, MECH_FENTRY, true, false,
			  PAIR("fentry_prep", "fexit_prep"),
			  .exit_only = true },
			{ PLAN_H_DD_PREP, MECH_KPROBE, true, false,
			  PAIR("kprobe_prep", "kretprobe_any") },
			{ PLAN_H_DD_ONE, MECH_FENTRY, true, false,
			  PAIR("fentry_one", "fexit_one"),
			  .exit_only = true },
			{ PLAN_H_DD_ONE, MECH_KPROBE, true, false,
			  PAIR("kprobe_one", "kretprobe_any") },
			{ PLAN_H_DD_CLONE, MECH_KPROBE, false, false,
			  PAIR("kprobe_clone", "kretprobe_any") },
			{ PLAN_H_DD_SYSTP, MECH_SYSCALL, false, false,
			  { { "tp_enter_dd", false, "sys_enter_ioctl" },
			    { "tp_exit_dd", true, "sys_exit_ioctl" } } },
			{ PLAN_H_DD_SYSCALL, MECH_SYSCALL, false, false,
			  PAIR("sys_enter_dd", "sys_exit_dd"),
			  .raw_shared = true, .raw_slot = FS_SYSRAW_DD_ENTER },
			/* Entries, exit targets, the caller's return and
			 * entry. */
			{ PLAN_H_DD_INLINE, MECH_INLINE, true, false,
			  { { "kprobe_inline_entry", false },
			    { "kprobe_inline_exit", false },
			    { "kretprobe_inline_caller", true },
			    { "kprobe_inline_caller_entry", false } } },
		},
		.sub = {
			[MECH_FENTRY] = { PLAN_H_DD_FOLIO, MECH_FENTRY, false,
					  false, { { "fexit_folio", true } } },
			[MECH_KPROBE] = { PLAN_H_DD_FOLIO, MECH_KPROBE, false,
					  false,
					  { { "kretprobe_folio", true } } },
		},
		.sub_handler = PLAN_H_DD_FOLIO,
		.sub_symbols = { { "read_cache_folio" },
				 { "read_cache_page", .pages = true } },
		.nsub_hists = 1,
		.sub_hist = { FS_DD_FOLIO_SIZE },
		.sub_unseen = "the folios the compare reads are",
		.nlean_hists = 1,
		.lean_hist = { FS_DD_FOLIO_SIZE },
		.latency_hist = FS_DD_LATENCY,
		.missed_counter = FS_DD_MISSED,
		/* (src, srcoff, dest, dstoff, len, is_same) */
		.inline_arg_size = { 8, 8, 8, 8, 8, 8 },
		.inline_arg_hist = { -1, FS_DD_SRC_ALIGN, -1, FS_DD_DST_ALIGN,
				     FS_DD_BYTES, -1 },
		.inline_verdict_arg = 5,
		.inline_file_arg = 0,
		.inline_caller_hist = FS_DD_CALLER_LAT,
	},
	[FS_TGT_SHMEM] = {
		.object = "shmem",
		.open = sh__open,
		.configure = sh__configure,
		.load = sh__load,
		.destroy = sh__destroy,
		.obj = sh__obj,
		.stats = sh__stats,
		.set = {
			{ PLAN_H_SH_READ, MECH_FENTRY, true, false,
			  PAIR("fentry_read", "fexit_read"),
			  .exit_only = true, .covers = SH_COVERS_READ_ITER },
			{ PLAN_H_SH_READ, MECH_KPROBE, true, false,
			  PAIR("kprobe_read", "kretprobe_read"),
			  .covers = SH_COVERS_READ_ITER },
			/* The kernel refuses a tracepoint program that reads
			 * past the record of one it is attached to: read's
			 * and readv's end at their third argument, and get
			 * an entry program that reads no more. */
			{ PLAN_H_SH_SYSTP, MECH_SYSCALL, false, false,
			  { { "tp_enter_sh3", false, "sys_enter_read" },
			    { "tp_exit_sh", true, "sys_exit_read" },
			    { "tp_enter_sh", false, "sys_enter_pread64" },
			    { "tp_exit_sh", true, "sys_exit_pread64" },
			    { "tp_enter_sh3", false, "sys_enter_readv" },
			    { "tp_exit_sh", true, "sys_exit_readv" },
			    { "tp_enter_sh", false, "sys_enter_preadv" },
			    { "tp_exit_sh", true, "sys_exit_preadv" },
			    { "tp_enter_sh", false, "sys_enter_preadv2" },
			    { "tp_exit_sh", true, "sys_exit_preadv2" } },
			  .exit_only = true, .covers = SH_COVERS_SYSCALL },
			{ PLAN_H_SH_SYSCALL, MECH_SYSCALL, false, false,
			  PAIR("sys_enter_sh", "sys_exit_sh"),
			  .raw_shared = true, .raw_slot = FS_SYSRAW_SH_ENTER,
			  .covers = SH_COVERS_SYSCALL },
		},
		/* From 6.5 splice reads of tmpfs have a function of their
		 * own; before, they call shmem_file_read_iter. */
		.also = {
			[MECH_FENTRY] = { PLAN_H_SH_SPLICE, MECH_FENTRY, false,
					  false,
					  PAIR("fentry_splice",
					       "fexit_splice"),
					  .exit_only = true },
			[MECH_KPROBE] = { PLAN_H_SH_SPLICE, MECH_KPROBE, false,
					  false,
					  PAIR("kprobe_splice",
					       "kretprobe_splice") },
		},
		.also_handler = PLAN_H_SH_SPLICE,
		.also_symbol = "shmem_file_splice_read",
		.also_covers = "splice, sendfile and copy_file_range",
		.also_absent = "they read through shmem_file_read_iter, as "
			       "before 6.5",
		.sub = {
			/* fexit alone: it has the arguments too. */
			[MECH_FENTRY] = { PLAN_H_SH_LOOKUP, MECH_FENTRY, false,
					  false,
					  { { "fexit_lookup", false } } },
			[MECH_KPROBE] = { PLAN_H_SH_LOOKUP, MECH_KPROBE, false,
					  false,
					  PAIR("kprobe_lookup",
					       "kretprobe_lookup") },
			[MECH_INLINE] = { PLAN_H_SH_LOOKUP, MECH_INLINE, false,
					  false,
					  { { "kprobe_lookup_inline_entry",
					      false },
					    { "kprobe_lookup_inline_exit",
					      false } } },
		},
		.sub_handler = PLAN_H_SH_LOOKUP,
		.batch = {
			[MECH_FENTRY] = { PLAN_H_SH_LOOKUP, MECH_FENTRY, false,
					  false,
					  { { "fexit_batch", false } } },
			[MECH_KPROBE] = { PLAN_H_SH_LOOKUP, MECH_KPROBE, false,
					  false,
					  PAIR("kprobe_batch",
					       "kretprobe_batch") },
		},
		.batch_symbol = "filemap_get_folios_contig",
		/*
		 * The _gfp workers first: the read loop may inline the
		 * exported wrapper (it does on Debian's 6.1), so only the
		 * worker is sure to be called. Where both fire, the second
		 * is a no-op: same count, same folio.
		 */
		.sub_symbols = { { "shmem_get_folio_gfp" },
				 { "shmem_getpage_gfp", .pages = true },
				 { "shmem_get_folio" },
				 { "shmem_getpage", .pages = true } },
		/* (inode, index, foliop, ...) on 6.1; 6.12's _gfp worker
		 * takes write_end before foliop */
		.sub_inline_in = "shmem_file_read_iter",
		.sub_inline_out = { "foliop", "pagep" },
		.nsub_hists = 3,
		.sub_hist = { FS_SH_FOLIO_SIZE, FS_SH_COPY_BYTES,
			      FS_SH_LOOKUPS },
		.sub_unseen = "folio lookups and copies to user space are",
		/* The user buffer's alignment (an iterator walk per call at
		 * function level) and the sub-probe's histograms (a second
		 * probe pair on every folio lookup). */
		.nlean_hists = 4,
		.lean_hist = { FS_SH_BUF_ALIGN, FS_SH_FOLIO_SIZE,
			       FS_SH_COPY_BYTES, FS_SH_LOOKUPS },
		.latency_hist = FS_SH_LATENCY,
		.missed_counter = FS_SH_MISSED,
		.inline_arg_hist = { -1, -1, -1, -1, -1, -1 },
		.inline_verdict_arg = -1,
		.inline_file_arg = -1,
		.inline_caller_hist = -1,
	},
};

const struct probe_target *probe_target__get(enum fs_target t)
{
	return &targets[t];
}

const struct probe_set *probe_target__set(const struct probe_target *tg,
					  int handler, enum plan_mech m)
{
	for (int i = 0; i < PROBE_TARGET_SETS && tg->set[i].prog[0].name; i++)
		if (tg->set[i].handler == handler && tg->set[i].mech == m)
			return &tg->set[i];
	return NULL;
}

/* Every program of set s is in obj; else why names the first missing. */
static int set__check(const struct probe_target *tg, const struct probe_set *s,
		      struct bpf_object *obj, char *why, size_t n)
{
	for (int i = 0; i < PROBE_SET_MAX && s->prog[i].name; i++)
		if (!bpf_object__find_program_by_name(obj, s->prog[i].name)) {
			snprintf(why, n,
				 "program '%s' (%s %s) is not in %s.bpf.o",
				 s->prog[i].name, plan__mech_name(s->mech),
				 s->handler == tg->sub_handler ? "sub-probe"
							       : "set",
				 tg->object);
			return -ENOENT;
		}
	return 0;
}

static bool set__names(const struct probe_set *s, const char *name)
{
	for (int i = 0; i < PROBE_SET_MAX && s->prog[i].name; i++)
		if (!strcmp(s->prog[i].name, name))
			return true;
	return false;
}

static bool target__names(const struct probe_target *tg, const char *name)
{
	size_t len = strlen(name), sl = strlen(PROBE_TWIN_SUFFIX);

	/* Every object's, serving the in-flight store, not a plan step. */
	if (!strcmp(name, PROBE_INFLIGHT_MIGRATE))
		return true;
	/* A twin stands for the program its name ends in. */
	if (len > sl && !strcmp(name + len - sl, PROBE_TWIN_SUFFIX)) {
		char base[64];

		if (len - sl >= sizeof(base))
			return false;
		memcpy(base, name, len - sl);
		base[len - sl] = '\0';
		return target__names(tg, base);
	}
	for (int i = 0; i < PROBE_TARGET_SETS && tg->set[i].prog[0].name; i++)
		if (set__names(&tg->set[i], name))
			return true;
	for (size_t i = 0; i < sizeof(tg->sub) / sizeof(tg->sub[0]); i++)
		if (set__names(&tg->sub[i], name))
			return true;
	for (size_t i = 0; i < sizeof(tg->also) / sizeof(tg->also[0]); i++)
		if (set__names(&tg->also[i], name))
			return true;
	for (size_t i = 0; i < sizeof(tg->batch) / sizeof(tg->batch[0]); i++)
		if (set__names(&tg->batch[i], name))
			return true;
	return false;
}

int probe_target__check_obj(const struct probe_target *tg,
			    struct bpf_object *obj, bool all, char *why,
			    size_t n)
{
	struct bpf_program *prog;
	int err = 0;

	for (int i = 0;
	     i < PROBE_TARGET_SETS && tg->set[i].prog[0].name && !err; i++)
		err = set__check(tg, &tg->set[i], obj, why, n);
	for (size_t i = 0; i < sizeof(tg->sub) / sizeof(tg->sub[0]) && !err;
	     i++)
		err = set__check(tg, &tg->sub[i], obj, why, n);
	for (size_t i = 0; i < sizeof(tg->also) / sizeof(tg->also[0]) && !err;
	     i++)
		err = set__check(tg, &tg->also[i], obj, why, n);
	for (size_t i = 0; i < sizeof(tg->batch) / sizeof(tg->batch[0]) && !err;
	     i++)
		err = set__check(tg, &tg->batch[i], obj, why, n);
	if (err || !all)
		return err;
	bpf_object__for_each_program (prog, obj) {
		const char *name = bpf_program__name(prog);

		if (!target__names(tg, name)) {
			snprintf(why, n,
				 "program '%s' of %s.bpf.o is in no set of "
				 "the %s table",
				 name, tg->object, tg->object);
			return -ENOENT;
		}
	}
	return 0;
}

int probe_target__check(const struct probe_target *tg, char *why, size_t n)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	int err = 0;

	/* Both builds: with the kfunc, and for kernels without BTF. */
	for (int kfunc = 1; kfunc >= 0 && !err; kfunc--) {
		void *skel = tg->open(&oo, kfunc);

		if (!skel) {
			err = -errno;
			snprintf(why, n, "cannot open %s%s.bpf.o: %s",
				 tg->object, kfunc ? "" : "_nok",
				 strerror(errno));
			return err;
		}
		err = probe_target__check_obj(tg, tg->obj(skel), true, why, n);
		tg->destroy(skel);
	}
	return err;
}
