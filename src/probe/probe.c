// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Carry out attach plans; read the per-CPU histogram maps. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "probe.h"
#include "kevent.h"
#include "sysraw.h"
#include "dedupe.skel.h"
#include "shmem.skel.h"

/* The most links a step makes: an entry and an exit program on each of
 * the five reads' per-syscall tracepoints. */
#define PROBE_MAX_LINKS 10

struct probe {
	enum fs_target target;
	void *skel;
	struct bpf_object *obj;
	struct bpf_map *stats;
	struct bpf_link *link[PROBE_MAX_LINKS];
	int nlinks;
	/* Sub-probe (folios / copies) that could not be used, and why. */
	bool sub_missing;
	char sub_why[256];
	char sub_note[320]; /* sub-probe used the other mechanism: why */
	int sub_arg;	    /* shmem lookup: index of the folio out-pointer */
	bool cmp_src_is_inode; /* compare's first argument (<= 5.17) */
	__u32 nentries;	       /* stats entries: 1, or FS_STATS_ENTRIES (-P) */
	bool lean;	       /* --lean */
	bool inflight_hash; /* in-flight calls in the hash, not task storage */
	char inflight_why[224]; /* why the hash */
	/* Kprobes as tracefs events, whose missed runs are read back; why
	 * a kprobe had to use libbpf's PMU kprobe instead, or "". */
	struct kevents kev;
	char kev_why[200];
	int raw_slot; /* slots filled in the shared raw pair, if raw_added */
	bool raw_added;
};

/* BPF programs serving one (handler, mechanism) pair. */
struct progset {
	const char *entry, *exit;
	bool has_sub; /* a sub-probe (folios / copies) goes with it */
	/* Per-syscall tracepoints: the syscalls whose syscalls/sys_exit_*
	 * take the exit program, and sys_enter_* their own entry program. */
	const struct systp *syscalls;
	/* Raw sys_enter/sys_exit: run through the pair both targets
	 * share (sysraw.c), not attached themselves. */
	bool raw;
};

/*
 * The kernel refuses a tracepoint program that reads past the record of
 * one it is attached to, and a 3-argument syscall's record ends at its
 * third: those get an entry program that reads no more.
 */
struct systp {
	const char *name, *entry;
};

static const struct systp sh_syscalls[] = {
	{ "read", "tp_enter_sh3" },   { "pread64", "tp_enter_sh" },
	{ "readv", "tp_enter_sh3" },  { "preadv", "tp_enter_sh" },
	{ "preadv2", "tp_enter_sh" }, { NULL, NULL },
};
static const struct systp dd_syscalls[] = { { "ioctl", "tp_enter_dd" },
					    { NULL, NULL } };

static const struct progset *progset__get(int handler, enum plan_mech m)
{
	static const struct progset sets[][3] = {
		[PLAN_H_DD_CMP] = { { "fentry_cmp", "fexit_any", true },
				    { "kprobe_cmp", "kretprobe_any", true } },
		[PLAN_H_DD_PREP] = { { "fentry_prep", "fexit_any", true },
				     { "kprobe_prep", "kretprobe_any", true } },
		[PLAN_H_DD_ONE] = { { "fentry_one", "fexit_any", true },
				    { "kprobe_one", "kretprobe_any", true } },
		[PLAN_H_DD_CLONE] = { { NULL, NULL, false },
				      { "kprobe_clone", "kretprobe_any",
					false } },
		[PLAN_H_SH_READ] = { { "fentry_read", "fexit_read", true },
				     { "kprobe_read", "kretprobe_read",
				       true } },
		[PLAN_H_DD_SYSCALL] = { [MECH_SYSCALL] = { "sys_enter_dd",
							   "sys_exit_dd", false,
							   NULL, true } },
		[PLAN_H_SH_SYSCALL] = { [MECH_SYSCALL] = { "sys_enter_sh",
							   "sys_exit_sh", false,
							   NULL, true } },
		[PLAN_H_DD_SYSTP] = { [MECH_SYSCALL] = { "tp_enter_dd",
							 "tp_exit_dd", false,
							 dd_syscalls } },
		[PLAN_H_SH_SYSTP] = { [MECH_SYSCALL] = { "tp_enter_sh",
							 "tp_exit_sh", false,
							 sh_syscalls } },
	};

	return &sets[handler][m];
}

/* Sub-probe programs per target and mechanism (entry and/or exit). */
struct subprobe {
	const char *entry, *exit;
};

static const struct subprobe *subprobe__get(enum fs_target t, enum plan_mech m)
{
	static const struct subprobe subs[FS_TGT_NR][2] = {
		[FS_TGT_DEDUPE] = { { NULL, "fexit_folio" },
				    { NULL, "kretprobe_folio" } },
		[FS_TGT_SHMEM] = { { "fentry_lookup", "fexit_lookup" },
				   { "kprobe_lookup", "kretprobe_lookup" } },
	};

	return &subs[t][m];
}

static void skel__destroy(enum fs_target t, void *skel)
{
	if (t == FS_TGT_DEDUPE)
		dedupe_bpf__destroy(skel);
	else
		shmem_bpf__destroy(skel);
}

/* Both skeletons' rodata share these field names. */
#define rodata__set_filters(rd, o)                                             \
	do {                                                                   \
		(rd)->filter_tgid = (o)->filter_tgid;                          \
		(rd)->filter_tree = (o)->filter_tree;                          \
		for (__u32 i = 0; i < FS_MAX_PIDS; i++)                        \
			(rd)->filter_pids[i] = (o)->pids[i];                   \
		(rd)->nr_filter_pids = (o)->npids;                             \
		memcpy((void *)(rd)->filter_comm, (o)->comm, 16);              \
		(rd)->has_filter_comm = (o)->comm[0] != '\0';                  \
		(rd)->filter_cgroup = (o)->cgroup;                             \
		(rd)->filter_dev = (o)->dev;                                   \
		(rd)->filter_magic = (o)->magic;                               \
		(rd)->page_size = (__u64)sysconf(_SC_PAGESIZE);                \
		(rd)->per_proc = (o)->per_proc;                                \
		(rd)->lean = (o)->lean;                                        \
	} while (0)

enum probe_inflight probe__inflight_mode(void)
{
	const char *env = getenv("FOLIOSCOPE_INFLIGHT");

	if (env && !strcmp(env, "hash"))
		return INFLIGHT_HASH;
	if (env && !strcmp(env, "task"))
		return INFLIGHT_TASK;
	if (env && !strcmp(env, "test-refuse"))
		return INFLIGHT_TEST_REFUSE;
	return INFLIGHT_AUTO;
}

/*
 * Size the two in-flight maps for the store in use: the other one stays
 * (the programs reference both; the verifier drops the unused branch) but
 * shrinks to one entry. An unused task-storage map becomes an array, so
 * a kernel without task storage can still create it.
 */
static int inflight__prepare(struct bpf_object *obj, bool hash)
{
	struct bpf_map *tm = bpf_object__find_map_by_name(obj, "inflight_task");
	struct bpf_map *hm = bpf_object__find_map_by_name(obj, "inflight");
	bool refuse = probe__inflight_mode() == INFLIGHT_TEST_REFUSE;
	int err;

	if (!tm || !hm)
		return -ENOENT;
	if (!hash && !refuse)
		return bpf_map__set_max_entries(hm, 1);
	err = bpf_map__set_type(tm,
				hash ? BPF_MAP_TYPE_ARRAY : BPF_MAP_TYPE_HASH);
	if (!err)
		err = bpf_map__set_map_flags(tm, 0);
	if (!err)
		err = bpf_map__set_max_entries(tm, 1);
	return err;
}

/* Open the target's skeleton with every program off and filters set. */
static int probe__open(struct probe *pr, const struct probe_opts *o)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = o->btf_path);
	struct bpf_program *prog;
	int err;

	if (pr->target == FS_TGT_DEDUPE) {
		struct dedupe_bpf *s = dedupe_bpf__open_opts(&oo);

		if (!s)
			return -errno;
		rodata__set_filters(s->rodata, o);
		s->rodata->inflight_hash = pr->inflight_hash;
		s->rodata->cmp_src_is_inode = pr->cmp_src_is_inode;
		pr->skel = s;
		pr->obj = s->obj;
		pr->stats = s->maps.stats;
	} else {
		struct shmem_bpf *s = shmem_bpf__open_opts(&oo);

		if (!s)
			return -errno;
		rodata__set_filters(s->rodata, o);
		s->rodata->inflight_hash = pr->inflight_hash;
		s->rodata->foliop_arg = pr->sub_arg;
		pr->skel = s;
		pr->obj = s->obj;
		pr->stats = s->maps.stats;
	}
	bpf_object__for_each_program (prog, pr->obj)
		bpf_program__set_autoload(prog, false);
	pr->nentries = o->per_proc ? FS_STATS_ENTRIES : 1;
	pr->lean = o->lean;
	err = inflight__prepare(pr->obj, pr->inflight_hash);
	if (err)
		return err;
	return bpf_map__set_max_entries(pr->stats, pr->nentries);
}

/*
 * Function the sub-probe attaches to, checked against BTF, most precise
 * first; NULL if none. For shmem lookups also the out-pointer's index.
 */
static const char *sub__symbol(const struct kfacts *f, enum fs_target t,
			       int *arg, char *why, size_t n)
{
	static const char *const dd[] = { "read_cache_folio", "read_cache_page",
					  NULL };
	/*
	 * The _gfp workers first: the read loop may inline the exported
	 * wrapper (it does on Debian's 6.1), so only the worker is sure to
	 * be called. Where both fire, the second is a no-op: same count,
	 * same folio.
	 */
	static const char *const sh[] = { "shmem_get_folio_gfp",
					  "shmem_getpage_gfp",
					  "shmem_get_folio", "shmem_getpage",
					  NULL };
	const char *const *c = t == FS_TGT_DEDUPE ? dd : sh;
	int handler = t == FS_TGT_DEDUPE ? PLAN_H_DD_FOLIO : PLAN_H_SH_LOOKUP;
	struct fn_proto proto;
	size_t len = 0;

	why[0] = '\0';
	for (int i = 0; c[i]; i++) {
		char one[160];

		if (!f->has_symbol(f, c[i]))
			snprintf(one, sizeof(one), "no symbol '%s'", c[i]);
		else if (f->btf_proto(f, c[i], &proto))
			snprintf(one, sizeof(one), "no BTF func '%s'", c[i]);
		else if (plan__proto_ok(handler, &proto, one, sizeof(one))) {
			*arg = plan__lookup_arg(&proto);
			return c[i];
		}
		len += snprintf(why + len, n - len, "%s%s", len ? "; " : "",
				one);
		if (len >= n)
			len = n - 1;
	}
	return NULL;
}

static int prog__enable(struct probe *pr, const char *name, enum plan_mech m,
			const char *sym)
{
	struct bpf_program *prog =
		bpf_object__find_program_by_name(pr->obj, name);

	if (!prog)
		return -ENOENT;
	bpf_program__set_autoload(prog, true);
	if (m == MECH_FENTRY)
		return bpf_program__set_attach_target(prog, 0, sym);
	return 0;
}

static int prog__attach(struct probe *pr, const char *name, enum plan_mech m,
			bool retprobe, const char *sym)
{
	struct bpf_program *prog =
		bpf_object__find_program_by_name(pr->obj, name);
	struct bpf_link *l;

	if (m == MECH_KPROBE) {
		int err = kevents__open(&pr->kev);

		l = err ? NULL : kevents__attach(&pr->kev, prog, retprobe, sym);
		if (!err && !l)
			err = -errno;
		if (!l) {
			/* Still measured, but what the probe misses is not
			 * counted: say so. */
			l = bpf_program__attach_kprobe(prog, retprobe, sym);
			if (l && !pr->kev_why[0])
				snprintf(pr->kev_why, sizeof(pr->kev_why),
					 "kprobe runs missed are not counted "
					 "(tracefs kprobe event: %s)",
					 strerror(-err));
		}
	} else { /* fentry target set before load; raw_tp named in SEC() */
		l = bpf_program__attach(prog);
	}
	if (!l)
		return -errno;
	pr->link[pr->nlinks++] = l;
	return 0;
}

/* The entry and exit programs on each syscall's own tracepoints. */
static int prog__attach_syscalls(struct probe *pr, const struct progset *ps)
{
	for (int i = 0; ps->syscalls[i].name; i++) {
		for (int exit = 0; exit < 2; exit++) {
			const char *name =
				exit ? ps->exit : ps->syscalls[i].entry;
			struct bpf_program *prog =
				bpf_object__find_program_by_name(pr->obj, name);
			char tp[64];
			struct bpf_link *l;

			if (pr->nlinks >= PROBE_MAX_LINKS)
				return -ENOSPC;
			snprintf(tp, sizeof(tp), "sys_%s_%s",
				 exit ? "exit" : "enter", ps->syscalls[i].name);
			l = kevents__attach_tp(&pr->kev, prog, "syscalls", tp);
			if (!l)
				return -errno;
			pr->link[pr->nlinks++] = l;
		}
	}
	return 0;
}

/* The entry and exit programs into the raw pair both targets share. */
static int prog__attach_raw(struct probe *pr, const struct progset *ps,
			    const struct probe_opts *o)
{
	int slot = pr->target == FS_TGT_DEDUPE ? FS_SYSRAW_DD_ENTER
					       : FS_SYSRAW_SH_ENTER;
	int err = sysraw__add(slot,
			      bpf_program__fd(bpf_object__find_program_by_name(
				      pr->obj, ps->entry)),
			      bpf_program__fd(bpf_object__find_program_by_name(
				      pr->obj, ps->exit)),
			      o->btf_path);

	if (!err) {
		pr->raw_slot = slot;
		pr->raw_added = true;
	}
	return err;
}

static void probe__close(struct probe *pr)
{
	if (pr->raw_added)
		sysraw__remove(pr->raw_slot);
	pr->raw_added = false;
	for (int i = 0; i < pr->nlinks; i++)
		bpf_link__destroy(pr->link[i]);
	pr->nlinks = 0;
	kevents__close(&pr->kev);
	pr->kev_why[0] = '\0';
	if (pr->skel)
		skel__destroy(pr->target, pr->skel);
	pr->skel = NULL;
	pr->obj = NULL;
}

/*
 * One try of one step: open, enable its programs (with the sub-probe if
 * with_sub), load, attach. On failure everything is closed again and
 * what failed is written to msg, the stage to *stage.
 */
static int probe__try_once(struct probe *pr, const struct plan_step *s,
			   const char *sub_sym, enum plan_mech sub_mech,
			   const struct probe_opts *o, char *msg, size_t n,
			   const char **stage)
{
	const struct progset *ps = progset__get(s->handler, s->mech);
	const struct subprobe *sp = subprobe__get(pr->target, sub_mech);
	const char *what = "open";
	int err;

	err = probe__open(pr, o);
	if (err)
		goto fail;
	what = "prepare";
	err = prog__enable(pr, ps->entry, s->mech, s->symbol);
	if (!err)
		err = prog__enable(pr, ps->exit, s->mech, s->symbol);
	for (int i = 0; !err && ps->syscalls && ps->syscalls[i].name; i++)
		err = prog__enable(pr, ps->syscalls[i].entry, s->mech,
				   s->symbol);
	if (!err && sub_sym && sp->entry)
		err = prog__enable(pr, sp->entry, sub_mech, sub_sym);
	if (!err && sub_sym && sp->exit)
		err = prog__enable(pr, sp->exit, sub_mech, sub_sym);
	if (err)
		goto fail;
	what = "load";
	err = bpf_object__load(pr->obj);
	if (err)
		goto fail;
	if (o->load_only)
		return 0;
	what = "attach";
	if (ps->syscalls) {
		err = prog__attach_syscalls(pr, ps);
	} else if (ps->raw) {
		err = prog__attach_raw(pr, ps, o);
	} else {
		err = prog__attach(pr, ps->entry, s->mech, false, s->symbol);
		if (!err)
			err = prog__attach(pr, ps->exit, s->mech, true,
					   s->symbol);
	}
	if (!err && sub_sym && sp->entry)
		err = prog__attach(pr, sp->entry, sub_mech, false, sub_sym);
	if (!err && sub_sym && sp->exit)
		err = prog__attach(pr, sp->exit, sub_mech, true, sub_sym);
	if (err)
		goto fail;
	kevents__done_setup(&pr->kev);
	return 0;
fail:
	/* 524 is the kernel's ENOTSUPP, which has no user-space name. */
	if (err == -524)
		snprintf(msg, n, "%s failed: error 524 (ENOTSUPP)%s", what,
			 s->mech == MECH_FENTRY
				 ? ": the BPF trampoline cannot take this "
				   "function (more than 6 arguments on this "
				   "kernel?)"
				 : "");
	else
		snprintf(msg, n, "%s failed: %s", what, strerror(-err));
	*stage = what;
	probe__close(pr);
	return err;
}

/*
 * probe__try_once with task storage for in-flight calls, and once more
 * with the hash when the kernel refused the load with EINVAL or EACCES
 * (unless FOLIOSCOPE_INFLIGHT says otherwise). If the hash fails too,
 * its error is the step's.
 */
static int probe__try(struct probe *pr, const struct plan_step *s,
		      const char *sub_sym, enum plan_mech sub_mech,
		      const struct probe_opts *o, char *msg, size_t n)
{
	enum probe_inflight mode = probe__inflight_mode();
	const char *stage = "";
	int err;

	pr->inflight_hash = mode == INFLIGHT_HASH;
	snprintf(pr->inflight_why, sizeof(pr->inflight_why), "%s",
		 pr->inflight_hash ? "FOLIOSCOPE_INFLIGHT=hash" : "");
	err = probe__try_once(pr, s, sub_sym, sub_mech, o, msg, n, &stage);
	if (!err || pr->inflight_hash || mode == INFLIGHT_TASK ||
	    strcmp(stage, "load") || (err != -EINVAL && err != -EACCES))
		return err;
	snprintf(pr->inflight_why, sizeof(pr->inflight_why),
		 "task storage refused: %s", msg);
	pr->inflight_hash = true;
	return probe__try_once(pr, s, sub_sym, sub_mech, o, msg, n, &stage);
}

/* Where the live probe keeps in-flight calls, for doctor and reports. */
static void probe__inflight_desc(const struct probe *pr, char *out, size_t n)
{
	if (pr->inflight_hash)
		snprintf(out, n, "hash (%s)", pr->inflight_why);
	else
		snprintf(out, n, "task storage");
}

/*
 * Try a step with its sub-probe: first with the step's own mechanism,
 * then with the other one (a function fentry cannot trampoline may still
 * take a kprobe), then without a sub-probe, marking what it measures as
 * not measured.
 */
static int probe__step(const struct kfacts *f, struct probe *pr,
		       struct plan_step *s, const struct probe_opts *o)
{
	const struct progset *ps = progset__get(s->handler, s->mech);
	enum plan_mech order[2] = { s->mech, s->mech == MECH_FENTRY
						     ? MECH_KPROBE
						     : MECH_FENTRY };
	char subwhy[256] = "", msg[256];
	const char *sub_sym = NULL;
	size_t len = 0;
	int err;

	pr->sub_missing = false;
	pr->sub_note[0] = '\0';
	if (s->handler == PLAN_H_DD_CMP) {
		struct fn_proto proto;

		pr->cmp_src_is_inode =
			!f->btf_proto(f, s->symbol, &proto) &&
			!strcmp(proto.arg[0], "ptr:struct inode");
	}
	if (ps->has_sub && !o->lean) {
		sub_sym = sub__symbol(f, pr->target, &pr->sub_arg, subwhy,
				      sizeof(subwhy));
		for (int i = 0; sub_sym && i < 2; i++) {
			if (order[i] == MECH_KPROBE && f->kprobes == 0)
				continue;
			err = probe__try(pr, s, sub_sym, order[i], o, msg,
					 sizeof(msg));
			if (!err) {
				if (i)
					snprintf(pr->sub_note,
						 sizeof(pr->sub_note),
						 "; %s via %s (%s)", sub_sym,
						 plan__mech_name(order[i]),
						 subwhy);
				goto done;
			}
			len += snprintf(subwhy + len, sizeof(subwhy) - len,
					"%s%s on %s: %s", len ? "; " : "",
					plan__mech_name(order[i]), sub_sym,
					msg);
			if (len >= sizeof(subwhy))
				len = sizeof(subwhy) - 1;
		}
		pr->sub_missing = true;
		snprintf(pr->sub_why, sizeof(pr->sub_why), "%s", subwhy);
	}
	err = probe__try(pr, s, NULL, s->mech, o, s->err_msg,
			 sizeof(s->err_msg));
done:
	s->tried = true;
	s->err = err;
	s->inflight[0] = '\0';
	if (!err) {
		snprintf(s->err_msg, sizeof(s->err_msg), "attached");
		probe__inflight_desc(pr, s->inflight, sizeof(s->inflight));
	}
	return err;
}

int probe__attach(const struct kfacts *f, struct plan *p,
		  const struct probe_opts *o, struct probe **out)
{
	struct probe *pr;
	int err = -ENOENT;

	*out = NULL;
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	pr->target = p->target;
	for (int i = plan__next(p, 0); i >= 0; i = plan__next(p, i + 1)) {
		err = probe__step(f, pr, &p->step[i], o);
		if (!err) {
			p->chosen = i;
			*out = pr;
			return 0;
		}
	}
	free(pr);
	return err;
}

void probe__try_all(const struct kfacts *f, struct plan *p,
		    const struct probe_opts *o)
{
	struct probe pr;

	for (int i = plan__next(p, 0); i >= 0; i = plan__next(p, i + 1)) {
		memset(&pr, 0, sizeof(pr));
		pr.target = p->target;
		if (!probe__step(f, &pr, &p->step[i], o)) {
			if (p->chosen < 0)
				p->chosen = i;
			probe__close(&pr);
		}
	}
}

/* Histograms a step cannot measure, with the reason. */
static void probe__mark_unmeasured(const struct probe *pr,
				   const struct plan_step *s,
				   struct fs_report *r)
{
	enum fs_target t = pr->target;
	struct fs_target_report *tr = &r->target[t];
	char why[320];

	if (s->role == ROLE_SYSCALL) {
		snprintf(
			why, sizeof(why),
			"syscall-level plan: %s not visible at the syscall "
			"boundary",
			t == FS_TGT_DEDUPE
				? "the folios the compare reads are"
				: "folio lookups and copies to user space are");
		if (t == FS_TGT_DEDUPE) {
			model__not_measured(r, t, FS_DD_FOLIO_SIZE, why);
		} else {
			model__not_measured(r, t, FS_SH_FOLIO_SIZE, why);
			model__not_measured(r, t, FS_SH_COPY_BYTES, why);
		}
		return;
	}
	if (s->role == ROLE_CLONE) {
		snprintf(why, sizeof(why),
			 "attached to renamed clone %s, whose arguments are "
			 "not read (calling convention may differ)",
			 s->symbol);
		for (int h = 0; h < tr->nhists; h++)
			if (h != FS_DD_LATENCY)
				model__not_measured(r, t, h, why);
		return;
	}
	if (!pr->sub_missing)
		return;
	snprintf(why, sizeof(why), "sub-probe unavailable: %s", pr->sub_why);
	if (t == FS_TGT_DEDUPE) {
		model__not_measured(r, t, FS_DD_FOLIO_SIZE, why);
	} else {
		model__not_measured(r, t, FS_SH_FOLIO_SIZE, why);
		model__not_measured(r, t, FS_SH_COPY_BYTES, why);
	}
}

/*
 * --lean: what it leaves out, where the plan would have measured it. The
 * user buffer's alignment (an iterator walk per call at function level)
 * and the sub-probes' folio sizes and copy chunks (a second probe pair
 * on every folio lookup).
 */
static void probe__mark_lean(const struct probe *pr, struct fs_report *r)
{
	static const int sh[] = { FS_SH_BUF_ALIGN, FS_SH_FOLIO_SIZE,
				  FS_SH_COPY_BYTES };
	static const int dd[] = { FS_DD_FOLIO_SIZE };
	const char *why = "left out by --lean";
	enum fs_target t = pr->target;
	const int *h = t == FS_TGT_DEDUPE ? dd : sh;
	int n = t == FS_TGT_DEDUPE ? 1 : 3;

	if (!pr->lean)
		return;
	for (int i = 0; i < n; i++)
		if (r->target[t].hist[h[i]].measured)
			model__not_measured(r, t, h[i], why);
}

/*
 * Program runs the kernel skipped: recursion misses of every loaded
 * program, and the runs the kprobes missed (a kretprobe out of
 * instances, maxactive, does not run at that call's return).
 */
static __u64 probe__missed(const struct probe *pr)
{
	struct bpf_program *prog;
	__u64 missed = 0;

	bpf_object__for_each_program (prog, pr->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			missed += info.recursion_misses;
	}
	return missed + kevents__missed(&pr->kev);
}

/* Entry key of the stats map, summed over CPUs into out. */
static int stats__read_entry(const struct probe *pr, __u32 key,
			     struct fs_stats *vals, int ncpu,
			     struct fs_stats *out)
{
	if (bpf_map__lookup_elem(pr->stats, &key, sizeof(key), vals,
				 sizeof(*vals) * ncpu, 0)) {
		fprintf(stderr, "folioscope: cannot read map 'stats': %s\n",
			strerror(errno));
		return -errno;
	}
	memset(out, 0, sizeof(*out));
	for (int c = 0; c < ncpu; c++)
		model__stats_add(out, &vals[c]);
	return 0;
}

static int missed_counter(enum fs_target t)
{
	return t == FS_TGT_DEDUPE ? FS_DD_MISSED : FS_SH_MISSED;
}

static int probe__read_procs(const struct probe *pr, struct fs_stats *slots,
			     struct fs_proc_info *info)
{
	int ncpu = libbpf_num_possible_cpus();
	const struct bpf_map *pinfo;
	struct fs_stats *vals;
	int err = 0;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	pinfo = bpf_object__find_map_by_name(pr->obj, "proc_info");
	for (__u32 k = 0; k < pr->nentries && !err; k++) {
		err = stats__read_entry(pr, k, vals, ncpu, &slots[k]);
		memset(&info[k], 0, sizeof(info[k]));
		if (!err && pinfo && pr->nentries > 1)
			bpf_map__lookup_elem(pinfo, &k, sizeof(k), &info[k],
					     sizeof(info[k]), 0);
	}
	free(vals);
	return err;
}

int probe__read(const struct probe *pr, struct fs_stats *sum,
		struct fs_stats *slots_out, struct fs_proc_info *info_out)
{
	struct fs_stats *slots = slots_out;
	struct fs_proc_info *info = info_out;
	int err = -ENOMEM;

	if (!slots)
		slots = calloc(pr->nentries, sizeof(*slots));
	if (!info)
		info = calloc(pr->nentries, sizeof(*info));
	if (!slots || !info)
		goto cleanup;
	err = probe__read_procs(pr, slots, info);
	if (err)
		goto cleanup;
	*sum = slots[0];
	for (__u32 k = 1; k < pr->nentries; k++)
		model__stats_add(sum, &slots[k]);
	sum->counter[missed_counter(pr->target)] = probe__missed(pr);
cleanup:
	if (slots != slots_out)
		free(slots);
	if (info != info_out)
		free(info);
	return err;
}

void probe__describe(const struct probe *pr, const struct plan *p,
		     struct fs_report *r)
{
	const struct plan_step *s = &p->step[p->chosen];
	struct fs_attach_info *ai = &r->target[pr->target].attach;

	model__enable(r, pr->target, true);
	snprintf(ai->function, sizeof(ai->function), "%s", p->function);
	snprintf(ai->symbol, sizeof(ai->symbol), "%s", s->symbol);
	snprintf(ai->mechanism, sizeof(ai->mechanism), "%s",
		 plan__mech_name(s->mech));
	ai->inlined = p->inlined;
	plan__reason(p, ai->reason, sizeof(ai->reason));
	if (pr->sub_note[0])
		snprintf(ai->reason + strlen(ai->reason),
			 sizeof(ai->reason) - strlen(ai->reason), "%s",
			 pr->sub_note);
	snprintf(ai->reason + strlen(ai->reason),
		 sizeof(ai->reason) - strlen(ai->reason),
		 "; in-flight calls: %s", s->inflight);
	if (pr->kev_why[0])
		snprintf(ai->reason + strlen(ai->reason),
			 sizeof(ai->reason) - strlen(ai->reason), "; %s",
			 pr->kev_why);
	probe__mark_unmeasured(pr, s, r);
	probe__mark_lean(pr, r);
}

void probe__destroy(struct probe *pr)
{
	if (!pr)
		return;
	probe__close(pr);
	free(pr);
}
