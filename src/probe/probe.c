// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Carry out attach plans: open, load and attach a target's programs,
 * step by step, with the reasons for each fallback. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "probe_impl.h"
#include "sysraw.h"
#include "target.h"
#include "util/err.h"
#include "util/util.h"

/*
 * The --cgroup filter's map: a cgroup array only when trees are given. A
 * kernel without CONFIG_CGROUPS has no cgroup arrays, and the programs
 * that never reach the filter (no --cgroup) must load there too: a
 * one-entry array stands in, as the unused in-flight map does.
 */
static int cgroups__prepare(struct bpf_object *obj, __u32 ncgroups)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "filter_cgroups");
	int err;

	if (!m)
		return -ENOENT;
	if (ncgroups)
		return 0;
	err = bpf_map__set_type(m, BPF_MAP_TYPE_ARRAY);
	return err ?: bpf_map__set_max_entries(m, 1);
}

/* --cgroup: the trees' directories, in the order the filter tries them. */
static int probe__fill_cgroups(const struct probe *pr,
			       const struct probe_opts *o)
{
	const struct bpf_map *m =
		bpf_object__find_map_by_name(pr->obj, "filter_cgroups");

	if (!m)
		return -ENOENT;
	for (__u32 i = 0; i < o->ncgroups; i++)
		if (bpf_map__update_elem(m, &i, sizeof(i), &o->cgroup_fds[i],
					 sizeof(o->cgroup_fds[i]), 0))
			return -errno;
	return 0;
}

/*
 * The events ring: its asked size with events on, else the smallest the
 * kernel takes (a page), which no program writes to.
 */
static int events__prepare(struct bpf_object *obj, const struct probe_events *e)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "events");
	long page = sysconf(_SC_PAGESIZE);
	__u32 size = e->ring_bytes ? e->ring_bytes : FS_EV_RING_DEFAULT;

	if (!m)
		return -ENOENT;
	if (!probe_events__on(e) || size < (__u32)page)
		size = (__u32)page;
	return bpf_map__set_max_entries(m, size);
}

/*
 * Open the target's skeleton with every program off and filters set.
 * Every program the table names must be in the object: a table out of
 * step with the BPF code fails here, whatever step is tried.
 */
static int probe__open(struct probe *pr, const struct probe_opts *o)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = o->btf_path);
	const struct probe_target *tg = pr->tg;
	struct bpf_program *prog;
	char why[160];
	int err;

	pr->skel = tg->open(&oo, pr->kernel_btf);
	if (!pr->skel)
		return -errno;
	tg->configure(pr->skel, o, &pr->cfg);
	pr->obj = tg->obj(pr->skel);
	pr->stats = tg->stats(pr->skel);
	err = probe_target__check_obj(tg, pr->obj, false, why, sizeof(why));
	if (err) {
		err__print(NULL, 0, "internal error: %s", why);
		return err;
	}
	bpf_object__for_each_program (prog, pr->obj)
		bpf_program__set_autoload(prog, false);
	pr->nentries = o->by != FS_BY_NONE ? FS_STATS_ENTRIES : 1;
	pr->lean = o->lean;
	pr->events = probe_events__on(&o->ev);
	err = inflight__prepare(pr->obj, pr->cfg.inflight_store,
				pr->cfg.exit_only)
		      ?: events__prepare(pr->obj, &o->ev)
		      ?: cgroups__prepare(pr->obj, o->ncgroups);
	if (err)
		return err;
	return bpf_map__set_max_entries(pr->stats, pr->nentries);
}

/* Whether the sub-probe's function name hands out pages, not folios. */
static bool sub__pages(const struct probe_target *tg, const char *name)
{
	for (size_t i = 0;
	     i < ARRAY_SIZE(tg->sub_symbols) && tg->sub_symbols[i].name; i++)
		if (!strcmp(tg->sub_symbols[i].name, name))
			return tg->sub_symbols[i].pages;
	return true; /* unknown: the read that also takes a tail */
}

/*
 * Function the sub-probe attaches to, checked against BTF, most precise
 * first; NULL if none. Into c: for shmem lookups the out-pointer's index,
 * and whether the function hands out pages.
 */
static const char *sub__symbol(const struct kfacts *f,
			       const struct probe_target *tg,
			       struct probe_load_cfg *c, char *why, size_t n)
{
	struct fn_proto proto;
	size_t len = 0;

	why[0] = '\0';
	for (size_t i = 0;
	     i < ARRAY_SIZE(tg->sub_symbols) && tg->sub_symbols[i].name; i++) {
		const char *sym = tg->sub_symbols[i].name;
		char one[160];

		if (!f->has_symbol(f, sym))
			snprintf(one, sizeof(one), "no symbol '%s'", sym);
		else if (f->btf_proto(f, sym, &proto))
			snprintf(one, sizeof(one), "no BTF func '%s'", sym);
		else if (plan__proto_ok(tg->sub_handler, &proto, one,
					sizeof(one))) {
			c->sub_arg = plan__lookup_arg(&proto);
			c->sub_pages = tg->sub_symbols[i].pages;
			return sym;
		}
		len += snprintf(why + len, n - len, "%s%s", len ? "; " : "",
				one);
		if (len >= n)
			len = n - 1;
	}
	return NULL;
}

/*
 * The traced function has the sub-probe's lookup inlined (DWARF): a probe
 * on a symbol of it would see none of the traced function's lookups, so
 * there is no sub-probe; why says why, naming what the inline sites give.
 * The lookup's result is written through a pointer to the caller's local,
 * which the inline exit would have to read where that local lives then.
 */
static bool sub__inlined(const struct kfacts *f, const struct probe *pr,
			 char *why, size_t n)
{
	const struct plan_inline *in = f->sub_inl[pr->target];
	int len;

	if (!in || !in->function[0])
		return false;
	len = snprintf(why, n, "%s is inlined into %s", in->function,
		       pr->tg->sub_inline_in);
	if (len < 0 || (size_t)len >= n)
		return true;
	if (!in->nsites)
		snprintf(why + len, n - len, ", sites unusable: %s", in->why);
	else if (plan_inline__out_why(in)[0])
		snprintf(why + len, n - len, "; folio not read there: %s",
			 plan_inline__out_why(in));
	return true;
}

/* An entry program left out: its set's exits count each call alone. */
static bool prog__left_out(const struct probe *pr, const struct probe_prog *pp)
{
	return pr->cfg.exit_only && !pp->ret;
}

/* Program name's twin that reads through bpf_rdonly_cast, or NULL. */
static struct bpf_program *prog__twin(const struct probe *pr, const char *name)
{
	char twin[64];

	if (snprintf(twin, sizeof(twin), "%s" PROBE_TWIN_SUFFIX, name) >=
	    (int)sizeof(twin))
		return NULL;
	return bpf_object__find_program_by_name(pr->obj, twin);
}

/* The program loaded for the set's program name: its twin with cast;
 * has_twin (may be NULL): whether name has one. */
static struct bpf_program *probe__prog(const struct probe *pr, const char *name,
				       bool *has_twin)
{
	struct bpf_program *twin = prog__twin(pr, name);

	if (has_twin)
		*has_twin = twin != NULL;
	return pr->cast && twin
		       ? twin
		       : bpf_object__find_program_by_name(pr->obj, name);
}

/* Turn on the programs of set ps (NULL: none), aimed at sym. */
static int set__enable(struct probe *pr, const struct probe_set *ps,
		       const char *sym)
{
	for (int i = 0; ps && i < PROBE_SET_MAX && ps->prog[i].name; i++) {
		bool has_twin;
		struct bpf_program *prog =
			probe__prog(pr, ps->prog[i].name, &has_twin);
		int err;

		if (!prog)
			return -ENOENT;
		if (prog__left_out(pr, &ps->prog[i]))
			continue;
		pr->cast_twins |= has_twin;
		bpf_program__set_autoload(prog, true);
		if (ps->mech != MECH_FENTRY)
			continue;
		err = bpf_program__set_attach_target(prog, 0, sym);
		if (err)
			return err;
	}
	return 0;
}

static int prog__attach(struct probe *pr, const struct probe_prog *pp,
			enum plan_mech m, const char *sym)
{
	struct bpf_program *prog = probe__prog(pr, pp->name, NULL);
	struct bpf_link *l;

	if (m == MECH_KPROBE) {
		int err = kevents__open(&pr->kev);

		l = err ? NULL : kevents__attach(&pr->kev, prog, pp->ret, sym);
		if (!err && !l)
			err = -errno;
		if (!l) {
			/* Still measured, but what the probe misses is not
			 * counted: say so. */
			l = bpf_program__attach_kprobe(prog, pp->ret, sym);
			if (l && !pr->kev_why[0])
				snprintf(pr->kev_why, sizeof(pr->kev_why),
					 "kprobe runs missed are not counted "
					 "(tracefs kprobe event: %s)",
					 strerror(-err));
		}
	} else if (pp->tp) {
		l = kevents__attach_tp(&pr->kev, prog, "syscalls", pp->tp);
	} else { /* fentry target set before load; raw_tp named in SEC() */
		l = bpf_program__attach(prog);
	}
	if (!l)
		return -errno;
	pr->link[pr->nlinks++] = l;
	return 0;
}

/* A kprobe at sym+off whose program reads cookie with
 * bpf_get_attach_cookie. */
static int prog__attach_at(struct probe *pr, const char *name, const char *sym,
			   unsigned long long off, __u64 cookie)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ko, .offset = off, .bpf_cookie = cookie);
	struct bpf_program *prog =
		bpf_object__find_program_by_name(pr->obj, name);
	struct bpf_link *l;

	if (pr->nlinks >= PROBE_MAX_LINKS)
		return -E2BIG;
	l = bpf_program__attach_kprobe_opts(prog, sym, &ko);
	if (!l) {
		int err = -errno;

		snprintf(pr->inline_why, sizeof(pr->inline_why),
			 "the kernel refused a kprobe at %s+0x%llx: %s", sym,
			 off, strerror(-err));
		return err;
	}
	pr->link[pr->nlinks++] = l;
	return 0;
}

/*
 * Inline sites in: ps's entry program at every site's entry (the cookie
 * is the site's index into the fetch plan), its exit program at every
 * exit target (cookie: site * FS_INLINE_MAX_EXITS + the exit's index),
 * its return and entry programs, where it has them, on each caller once.
 * ret: the exits (the exit targets, the caller's return), else the
 * entries (the sites' entries, the caller's entry), as set__attach says.
 */
static int inline__attach(struct probe *pr, const struct probe_set *ps,
			  const struct plan_inline *in, bool ret)
{
	/* A sub-probe whose result is not found at the exits has its
	 * entries only (what happens between lookups). */
	bool exits = ps->handler != pr->tg->sub_handler || in->out_at_exit;
	int err = 0;

	for (int i = 0; i < in->nsites && !err; i++) {
		const struct plan_inline_site *st = &in->site[i];
		const struct probe_prog *caller = &ps->prog[ret ? 2 : 3];
		bool seen = false;

		if (!ret)
			err = prog__attach_at(pr, ps->prog[0].name, st->symbol,
					      st->entry_off, i);
		for (int e = 0; ret && exits && e < st->nexits && !err; e++)
			err = prog__attach_at(pr, ps->prog[1].name, st->symbol,
					      st->exit_off[e],
					      (__u64)i * FS_INLINE_MAX_EXITS +
						      (__u64)e);
		for (int j = 0; j < i; j++)
			seen |= !strcmp(in->site[j].symbol, st->symbol);
		if (!err && !seen && caller->name)
			err = prog__attach(pr, caller, MECH_KPROBE, st->symbol);
	}
	return err;
}

/*
 * Attach the programs of set ps (NULL: none) to sym: those that run at
 * the return if ret, else the entries. Every exit goes in before any
 * entry: a call that began while only the entries were in would leave
 * its record behind when it returned unseen (a thread's slot taken for
 * good, a per-CPU slot that sends every later call to the hash).
 */
static int set__attach(struct probe *pr, const struct probe_set *ps,
		       const char *sym, bool ret)
{
	int err = 0;

	if (ps && ps->mech == MECH_INLINE)
		return inline__attach(pr, ps,
				      ps->handler == pr->tg->sub_handler
					      ? pr->cfg.sub_inl
					      : pr->cfg.inl,
				      ret);

	for (int i = 0; ps && i < PROBE_SET_MAX && ps->prog[i].name && !err;
	     i++)
		if (ps->prog[i].ret == ret && !prog__left_out(pr, &ps->prog[i]))
			err = prog__attach(pr, &ps->prog[i], ps->mech, sym);
	return err;
}

/* The entry and exit programs of ps into the raw pair both targets
 * share. */
static int set__attach_raw(struct probe *pr, const struct probe_set *ps,
			   const struct probe_opts *o)
{
	struct bpf_program *in, *out;
	int err;

	in = bpf_object__find_program_by_name(pr->obj, ps->prog[0].name);
	out = bpf_object__find_program_by_name(pr->obj, ps->prog[1].name);
	if (!in || !out)
		return -ENOENT;
	err = sysraw__add(ps->raw_slot, bpf_program__fd(in),
			  bpf_program__fd(out), o->btf_path);
	if (!err) {
		pr->raw_slot = ps->raw_slot;
		pr->raw_added = true;
	}
	return err;
}

static void probe__close(struct probe *pr)
{
	if (pr->raw_added)
		sysraw__remove(pr->raw_slot);
	pr->raw_added = false;
	/* In the reverse of their order: the entries out first. */
	for (int i = pr->nlinks - 1; i >= 0; i--)
		bpf_link__destroy(pr->link[i]);
	pr->nlinks = 0;
	kevents__close(&pr->kev);
	pr->kev_why[0] = '\0';
	if (pr->skel)
		pr->tg->destroy(pr->skel);
	pr->skel = NULL;
	pr->obj = NULL;
}

/*
 * One try of one step: open, enable its programs (with the sub-probe if
 * sub_sym), load, attach. On failure everything is closed again and
 * what failed is written to msg, the stage to *stage.
 */
static int probe__try_once(struct probe *pr, const struct plan_step *s,
			   const char *sub_sym, enum plan_mech sub_mech,
			   const struct probe_opts *o, char *msg, size_t n,
			   const char **stage)
{
	const struct probe_set *ps =
		probe_target__set(pr->tg, s->handler, s->mech);
	const struct probe_set *sp = sub_sym ? &pr->tg->sub[sub_mech] : NULL;
	const struct probe_set *ap =
		pr->also_sym ? &pr->tg->also[s->mech] : NULL;
	const struct probe_set *bp =
		sub_sym && pr->batch_sym
			? &pr->tg->batch[sub_mech == MECH_FENTRY ? MECH_FENTRY
								 : MECH_KPROBE]
			: NULL;
	const char *what = "open";
	int err;

	pr->cast_twins = false;
	/* Compiled into the programs at open. The second entry goes with
	 * the step's mechanism, so its set says the same. */
	pr->cfg.exit_only =
		o->lean && !probe_events__on(&o->ev) && ps && ps->exit_only;
	err = probe__open(pr, o);
	if (err)
		goto fail;
	what = "prepare";
	err = ps ? set__enable(pr, ps, s->symbol) : -ENOENT;
	if (!err)
		err = set__enable(pr, sp, sub_sym);
	if (!err)
		err = set__enable(pr, ap, pr->also_sym);
	if (!err)
		err = set__enable(pr, bp, pr->batch_sym);
	if (err)
		goto fail;
	what = "load";
	err = pr->tg->load(pr->skel);
	if (!err)
		err = probe__fill_cgroups(pr, o);
	if (err)
		goto fail;
	if (o->load_only)
		return 0;
	/* The migration program first, so that no record the entries make
	 * moves unseen; then every exit, then every entry (set__attach). */
	what = "attach sched_migrate_task";
	err = inflight__attach(pr);
	if (!err)
		what = "attach";
	for (int pass = 0; pass < 2 && !err; pass++) {
		bool ret = pass == 0;

		if (ps->raw_shared)
			err = ret ? set__attach_raw(pr, ps, o) : 0;
		else
			err = set__attach(pr, ps, s->symbol, ret);
		if (!err)
			err = set__attach(pr, sp, sub_sym, ret);
		if (!err)
			err = set__attach(pr, ap, pr->also_sym, ret);
		if (!err)
			err = set__attach(pr, bp, pr->batch_sym, ret);
	}
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
	else if (pr->inline_why[0] && !strcmp(what, "attach"))
		snprintf(msg, n, "%s failed: %s", what, pr->inline_why);
	else
		snprintf(msg, n, "%s failed: %s", what, strerror(-err));
	pr->inline_why[0] = '\0';
	*stage = what;
	probe__close(pr);
	return err;
}

/*
 * probe__try_once with the bpf_rdonly_cast twins where pr->cast says so,
 * and once more without them when that load fails: a kernel that has the
 * kfunc but refuses a twin still gets the probe reads. A failure the
 * retry shares is not the twins': they stay on for the next try.
 */
static int probe__try_cast(struct probe *pr, const struct plan_step *s,
			   const char *sub_sym, enum plan_mech sub_mech,
			   const struct probe_opts *o, char *msg, size_t n,
			   const char **stage)
{
	const char *first_stage;
	char first[256];
	int err = probe__try_once(pr, s, sub_sym, sub_mech, o, msg, n, stage);

	if (!err || !pr->cast || !pr->cast_twins || err == -EPERM ||
	    strcmp(*stage, "load"))
		return err;
	snprintf(first, sizeof(first), "%s", msg);
	first_stage = *stage;
	pr->cast = false;
	if (probe__try_once(pr, s, sub_sym, sub_mech, o, msg, n, stage)) {
		pr->cast = true;
		snprintf(msg, n, "%s", first);
		*stage = first_stage;
		return err;
	}
	snprintf(pr->cast_why, sizeof(pr->cast_why),
		 "the bpf_rdonly_cast twins failed to load: %s", first);
	return 0;
}

/*
 * probe__try_once with the per-CPU slots for in-flight calls; once more
 * with task storage when the load fails or the migration program's attach
 * does (the kernel may refuse that program alone); and once more with the
 * hash when the kernel refuses task storage with EINVAL or EACCES at
 * load. FOLIOSCOPE_INFLIGHT=cpu, task or hash names one store, and no
 * other is tried. A step the kernel does not allow (EPERM) is not tried
 * again: no store changes that. The last try's error is the step's.
 */
static int probe__try_inflight(struct probe *pr, const struct plan_step *s,
			       const char *sub_sym, enum plan_mech sub_mech,
			       const struct probe_opts *o, char *msg, size_t n)
{
	const struct inflight_mode *m = inflight__mode();
	const char *stage = "";
	int err;

	pr->cfg.inflight_store = m->first;
	snprintf(pr->inflight_why, sizeof(pr->inflight_why), "%s",
		 m->mode == INFLIGHT_HASH ? "FOLIOSCOPE_INFLIGHT=hash" : "");
	err = probe__try_cast(pr, s, sub_sym, sub_mech, o, msg, n, &stage);
	if (!err || m->only || err == -EPERM)
		return err;
	if (pr->cfg.inflight_store == FS_STORE_CPU) {
		if (strcmp(stage, "load") &&
		    strcmp(stage, "attach sched_migrate_task"))
			return err;
		snprintf(pr->inflight_why, sizeof(pr->inflight_why),
			 "per-CPU slots refused: %s", msg);
		pr->cfg.inflight_store = FS_STORE_TASK;
		err = probe__try_cast(pr, s, sub_sym, sub_mech, o, msg, n,
				      &stage);
		if (!err || err == -EPERM)
			return err;
	}
	if (strcmp(stage, "load") || (err != -EINVAL && err != -EACCES))
		return err;
	snprintf(pr->inflight_why, sizeof(pr->inflight_why),
		 "task storage refused: %s", msg);
	pr->cfg.inflight_store = FS_STORE_HASH;
	return probe__try_cast(pr, s, sub_sym, sub_mech, o, msg, n, &stage);
}

/*
 * probe__try_inflight with the target's second entry, and once more
 * without it when that fails: the step itself still measures, and the
 * second entry's ways in are named as missed (pr->also_why).
 */
static int probe__try_also(struct probe *pr, const struct plan_step *s,
			   const char *sub_sym, enum plan_mech sub_mech,
			   const struct probe_opts *o, char *msg, size_t n)
{
	const char *also = pr->also_sym;
	int err = probe__try_inflight(pr, s, sub_sym, sub_mech, o, msg, n);

	/* Not being allowed is not about which functions. */
	if (!err || !also || err == -EPERM)
		return err;
	pr->also_sym = NULL;
	if (probe__try_inflight(pr, s, sub_sym, sub_mech, o, msg, n)) {
		pr->also_sym = also;
		return err;
	}
	snprintf(pr->also_why, sizeof(pr->also_why), "%s %s with it: %s",
		 plan__mech_name(s->mech), also, msg);
	return 0;
}

/*
 * probe__try_also with the batch lookup beside a sub-probe, and once
 * more without it when that fails: the sub-probe still counts the folios
 * looked up alone, and pr->batch_why says what is not counted.
 */
static int probe__try(struct probe *pr, const struct plan_step *s,
		      const char *sub_sym, enum plan_mech sub_mech,
		      const struct probe_opts *o, char *msg, size_t n)
{
	const char *batch = pr->batch_sym;
	char first[256];
	int err = probe__try_also(pr, s, sub_sym, sub_mech, o, msg, n);

	if (!err || !batch || !sub_sym || err == -EPERM)
		return err;
	snprintf(first, sizeof(first), "%s", msg);
	pr->batch_sym = NULL;
	if (probe__try_also(pr, s, sub_sym, sub_mech, o, msg, n)) {
		pr->batch_sym = batch;
		return err;
	}
	snprintf(pr->batch_why, sizeof(pr->batch_why),
		 "batch lookups (%s) NOT counted: %s", batch, first);
	return 0;
}

/*
 * The target's second entry for step s, or NULL, with why not in
 * pr->also_why when the kernel has one the step cannot take. Only a step
 * on the function itself takes it: callers, clones and inline sites are
 * the one function's, and the syscall level sees no such call.
 */
static const char *also__symbol(const struct kfacts *f, struct probe *pr,
				const struct plan_step *s)
{
	const struct probe_target *tg = pr->tg;
	struct fn_proto proto;
	char why[200];

	pr->also_why[0] = '\0';
	if (!tg->also_symbol || s->role != ROLE_FUNC ||
	    !f->has_symbol(f, tg->also_symbol))
		return NULL;
	if (f->btf_proto(f, tg->also_symbol, &proto)) {
		snprintf(pr->also_why, sizeof(pr->also_why), "no BTF func '%s'",
			 tg->also_symbol);
		return NULL;
	}
	if (!plan__proto_ok(tg->also_handler, &proto, why, sizeof(why))) {
		snprintf(pr->also_why, sizeof(pr->also_why), "%s: %s",
			 tg->also_symbol, why);
		return NULL;
	}
	return tg->also_symbol;
}

/* What an attached step s counts, and what it misses, into s->covers. */
static void probe__covers(const struct kfacts *f, const struct probe *pr,
			  struct plan_step *s)
{
	const struct probe_target *tg = pr->tg;
	const struct probe_set *ps = probe_target__set(tg, s->handler, s->mech);
	size_t len;

	s->covers[0] = '\0';
	if (!ps || !ps->covers)
		return;
	len = (size_t)snprintf(s->covers, sizeof(s->covers), "%s", ps->covers);
	if (!tg->also_symbol || s->role != ROLE_FUNC ||
	    len >= sizeof(s->covers))
		return;
	if (pr->also_sym)
		snprintf(s->covers + len, sizeof(s->covers) - len, "; %s (%s)",
			 tg->also_covers, pr->also_sym);
	else if (!f->has_symbol(f, tg->also_symbol))
		snprintf(s->covers + len, sizeof(s->covers) - len,
			 "; %s as well (no %s: %s)", tg->also_covers,
			 tg->also_symbol, tg->also_absent);
	else
		snprintf(s->covers + len, sizeof(s->covers) - len,
			 "; NOT %s (%s)", tg->also_covers, pr->also_why);
}

/*
 * Whether a step loads the bpf_rdonly_cast twins first: where the
 * kernel's BTF has the kfunc (6.2 on). FOLIOSCOPE_READS=probe keeps the
 * probe reads; =cast tries the twins on any kernel (tests: the retry
 * without them).
 */
static bool probe__cast_first(const struct kfacts *f, char *why, size_t n)
{
	const char *env = getenv("FOLIOSCOPE_READS");
	struct fn_proto proto;

	why[0] = '\0';
	if (!f->kernel_btf) {
		snprintf(
			why, n,
			"no BTF of the kernel's own: libbpf resolves no kfunc");
		return false;
	}
	if (env && !strcmp(env, "cast"))
		return true;
	if (env && !strcmp(env, "probe")) {
		snprintf(why, n, "FOLIOSCOPE_READS=probe");
		return false;
	}
	if (f->btf_proto(f, "bpf_rdonly_cast", &proto)) {
		snprintf(why, n,
			 "no kfunc bpf_rdonly_cast in the kernel's BTF");
		return false;
	}
	return true;
}

/* How the attached step's programs read kernel memory, for doctor. */
static void probe__reads_desc(const struct probe *pr, char *out, size_t n)
{
	if (!pr->cast_twins)
		snprintf(out, n, "%s", "");
	else if (pr->cast)
		snprintf(out, n, "guarded loads (bpf_rdonly_cast)");
	else
		snprintf(out, n, "probe reads (%s)", pr->cast_why);
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
	const struct probe_set *ps =
		probe_target__set(pr->tg, s->handler, s->mech);
	/* An inline step's sub-probe is a kprobe first, like its own. */
	enum plan_mech first = s->mech == MECH_INLINE ? MECH_KPROBE : s->mech;
	enum plan_mech order[2] = { first, first == MECH_FENTRY ? MECH_KPROBE
								: MECH_FENTRY };
	char subwhy[400] = "", msg[256];
	const char *sub_sym = NULL;
	size_t len = 0;
	int err;

	pr->sub_missing = false;
	pr->sub_note[0] = '\0';
	pr->batch_why[0] = '\0';
	pr->kernel_btf = f->kernel_btf;
	pr->cast = probe__cast_first(f, pr->cast_why, sizeof(pr->cast_why));
	pr->batch_sym =
		pr->tg->batch_symbol && f->has_symbol(f, pr->tg->batch_symbol)
			? pr->tg->batch_symbol
			: NULL;
	pr->also_sym = also__symbol(f, pr, s);
	if (pr->also_sym && s->mech == MECH_KPROBE && f->kprobes == 0) {
		snprintf(pr->also_why, sizeof(pr->also_why), "%s",
			 f->kprobes_why);
		pr->also_sym = NULL;
	}
	pr->cfg.inl = s->role == ROLE_INLINE ? f->inl[pr->target] : NULL;
	/* File filters at an inline site need the file, which may have no
	 * location there: then the step would count nothing. */
	if (pr->cfg.inl && (o->dev || o->magic) &&
	    pr->tg->inline_file_arg >= 0 &&
	    pr->cfg.inl->arg_why[pr->tg->inline_file_arg][0]) {
		s->tried = true;
		s->err = -EINVAL;
		snprintf(s->err_msg, sizeof(s->err_msg),
			 "--dev/--fs need the file: %s",
			 pr->cfg.inl->arg_why[pr->tg->inline_file_arg]);
		return s->err;
	}
	if (ps && ps->src_may_be_inode) {
		struct fn_proto proto;

		pr->cfg.cmp_src_is_inode =
			!f->btf_proto(f, s->symbol, &proto) &&
			!strcmp(proto.arg[0], "ptr:struct inode");
	}
	pr->cfg.sub_inl = NULL;
	if (ps && ps->has_sub && !o->lean &&
	    sub__inlined(f, pr, subwhy, sizeof(subwhy))) {
		const struct plan_inline *in = f->sub_inl[pr->target];

		if (in->nsites && f->kprobes != 0) {
			pr->cfg.sub_inl = in;
			pr->cfg.sub_pages = sub__pages(pr->tg, in->function);
			err = probe__try(pr, s, in->function, MECH_INLINE, o,
					 msg, sizeof(msg));
			if (!err) {
				snprintf(pr->sub_note, sizeof(pr->sub_note),
					 "; folio lookups: %s at %d inline "
					 "site%s in %s (DWARF %s), %s",
					 in->function, in->nsites,
					 in->nsites == 1 ? "" : "s",
					 pr->tg->sub_inline_in, in->source,
					 in->out_at_exit
						 ? "the folio read at the exits"
						 : "entries only: the folio is "
						   "not found at the exits");
				goto done;
			}
			pr->cfg.sub_inl = NULL;
			snprintf(subwhy, sizeof(subwhy),
				 "%s is inlined into %s: its inline sites: %s",
				 in->function, pr->tg->sub_inline_in, msg);
		} else if (in->nsites) {
			snprintf(subwhy, sizeof(subwhy),
				 "%s is inlined into %s: its inline sites "
				 "need kprobes: %s",
				 in->function, pr->tg->sub_inline_in,
				 f->kprobes_why);
		}
		pr->sub_missing = true;
		snprintf(pr->sub_why, sizeof(pr->sub_why), "%s", subwhy);
		snprintf(pr->sub_note, sizeof(pr->sub_note),
			 "; no sub-probe: %s (%d inline site%s, DWARF %s)",
			 subwhy, in->nsites, in->nsites == 1 ? "" : "s",
			 in->source);
	} else if (ps && ps->has_sub && !o->lean) {
		sub_sym = sub__symbol(f, pr->tg, &pr->cfg, subwhy,
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
	s->reads[0] = '\0';
	if (!err) {
		pr->syscall = s->mech == MECH_SYSCALL;
		snprintf(s->err_msg, sizeof(s->err_msg), "attached");
		inflight__describe(pr, s->inflight, sizeof(s->inflight));
		probe__reads_desc(pr, s->reads, sizeof(s->reads));
		probe__covers(f, pr, s);
	}
	return err;
}

#ifdef FS_BENCH_KNOBS
#define PROBE_KNOBS true
#else
#define PROBE_KNOBS false
#endif

/* The bench's FOLIOSCOPE_COST_DROP for target t into *d; an unknown
 * part is said on stderr, and so is any part at all in a build whose
 * programs do not read it (all but the bench's). */
static int cost__read(enum fs_target t, struct probe_cost_drop *d)
{
	char why[160];
	int err = probe__cost_drop(t, d, why, sizeof(why));

	if (err) {
		err__print(NULL, 0, "%s", why);
	} else if ((d->parts || d->hists) && !PROBE_KNOBS) {
		err__print(NULL, 0,
			   "FOLIOSCOPE_COST_DROP: this build's programs leave "
			   "nothing out; the bench's build does "
			   "(build/bench/folioscope-knobs, make bench-tools)");
		err = -EINVAL;
	}
	return err;
}

/* FOLIOSCOPE_COST_DROP into the programs' configuration, said on stderr:
 * a trace with it set measures wrong. */
static int probe__cost_cfg(struct probe *pr)
{
	struct probe_cost_drop d;
	int err = cost__read(pr->target, &d);

	if (err)
		return err;
	pr->cfg.cost_drop = d.parts;
	/* The programs test one word per histogram: all of them left out
	 * is every bit set. */
	pr->cfg.cost_drop_hist = (d.parts & FS_DROP_HISTS) ? ~0U : d.hists;
	if (d.parts || d.hists)
		err__print(NULL, 0,
			   "warning: %s: FOLIOSCOPE_COST_DROP leaves work out "
			   "of the programs (a bench variant): what it feeds "
			   "is not measured right",
			   model__target_name(pr->target));
	return 0;
}

int probe__cost_check(enum fs_target t)
{
	struct probe_cost_drop d;

	return cost__read(t, &d);
}

int probe__attach(const struct kfacts *f, struct plan *p,
		  const struct probe_opts *o, struct probe **out)
{
	struct probe *pr;
	int err;

	*out = NULL;
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	pr->target = p->target;
	pr->tg = probe_target__get(p->target);
	if (probe__cost_cfg(pr)) {
		free(pr);
		return -EINVAL;
	}
	/* A plan without a step the kernel may take attaches nothing. */
	err = -ENOENT;
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
		pr.tg = probe_target__get(p->target);
		if (!probe__step(f, &pr, &p->step[i], o)) {
			if (p->chosen < 0)
				p->chosen = i;
			probe__close(&pr);
		}
	}
}

void probe__destroy(struct probe *pr)
{
	if (!pr)
		return;
	probe__close(pr);
	free(pr);
}
