// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "session/session.h"
#include "dwarf/dwarf.h"
#include "probe/target.h"
#include "util/cgroup.h"
#include "util/err.h"
#include "util/util.h"

int session__parse_targets(const char *s, bool want[FS_TGT_NR])
{
	int t;

	memset(want, 0, sizeof(bool) * FS_TGT_NR);
	if (!strcmp(s, "all")) {
		for (t = 0; t < FS_TGT_NR; t++)
			want[t] = true;
		return 0;
	}
	t = model__target_from_name(s);
	if (t < 0)
		return -EINVAL;
	want[t] = true;
	return 0;
}

int session__check_root(const char *cmd)
{
	if (geteuid() == 0)
		return 0;
	err__print(
		cmd, 0,
		"must run as root (loads BPF programs and mounts filesystems)");
	return -EPERM;
}

/*
 * The kernel's DWARF for an inline plan: 1 with k open and out->source
 * said, 0 without DWARF (out->why says why; the plan falls back), or
 * -ENOENT when the user's --debuginfo cannot be used (said here).
 */
static int inline__dwarf_open(const char *cmd, const char *debuginfo,
			      const char *release, struct dwarf_kernel *k,
			      struct plan_inline *out)
{
	dwarf_kernel__open(k, debuginfo, release);
	if (!k->d) {
		if (debuginfo) {
			err__print(cmd, 0, "--debuginfo: %s", k->why);
			return -ENOENT;
		}
		snprintf(out->why, sizeof(out->why), "%s", k->why);
		return 0;
	}
	snprintf(out->source, sizeof(out->source), "%s (%s)", dwarf__path(k->d),
		 debuginfo ? "--debuginfo" : "distribution path");
	return 1;
}

int session__inline(const char *cmd, const char *debuginfo, const char *release,
		    enum fs_target t, struct plan_inline *out)
{
	const struct probe_target *tg = probe_target__get(t);
	const char *function = plan__inline_target(t)->function;
	struct dwarf_sites sites = { 0 };
	struct dwarf_kernel k;
	char why[DWARF_WHY_MAX];
	int n;

	memset(out, 0, sizeof(*out));
	n = inline__dwarf_open(cmd, debuginfo, release, &k, out);
	if (n <= 0)
		return n;
	n = dwarf__find_inline(k.d, function, &sites, why, sizeof(why));
	if (n < 0)
		snprintf(out->why, sizeof(out->why), "%s: %s", out->source,
			 why);
	else {
		plan__inline_build(sites.site, n, tg->inline_arg_size,
				   tg->inline_verdict_arg, out);
		/* The compare's programs read its verdict at the entry's
		 * address only: one that is read at the exits alone (an
		 * implicit pointer) is not read. */
		if (out->out_at_exit) {
			int v = tg->inline_verdict_arg;

			for (int i = 0; i < out->nsites; i++)
				if (out->fetch[i][v].kind == FS_FETCH_NONE)
					snprintf(out->arg_why[v],
						 sizeof(out->arg_why[0]),
						 "the verdict is an implicit "
						 "pointer to the caller's "
						 "variable, which the "
						 "compare's programs do not "
						 "read at the exits");
			out->out_at_exit = false;
		}
	}
	if (n >= 0)
		dwarf_sites__free(&sites);
	dwarf_kernel__close(&k);
	return 0;
}

/* Keeps the sites in caller; returns how many are left. */
static int sites__keep_caller(struct dwarf_sites *s, const char *caller)
{
	int n = 0;

	for (int i = 0; i < s->n; i++) {
		if (strcmp(s->site[i].caller, caller))
			continue;
		if (n != i) {
			struct dwarf_site t = s->site[n];

			s->site[n] = s->site[i];
			s->site[i] = t;
		}
		n++;
	}
	return n;
}

/* The plan of the sub-probe's inlined lookup at sites[0..n), the out
 * argument found by its name. */
static void sub__inline_build(const struct probe_target *tg,
			      const struct dwarf_site *sites, int n,
			      struct plan_inline *out)
{
	static const int size[FS_INLINE_NARGS] = { 8, 8, 8, 8, 8, 8 };
	size_t len = 0;
	int nnames = 0;
	int arg;

	while (nnames < (int)ARRAY_SIZE(tg->sub_inline_out) &&
	       tg->sub_inline_out[nnames])
		nnames++;
	arg = plan__inline_param(sites, n, tg->sub_inline_out, nnames);
	plan__inline_build(sites, n, size, arg, out);
	if (arg >= 0 || !nnames)
		return;
	len = snprintf(out->exit_why, sizeof(out->exit_why),
		       "no parameter named");
	for (int i = 0; i < nnames && len < sizeof(out->exit_why); i++)
		len += snprintf(out->exit_why + len,
				sizeof(out->exit_why) - len, "%s '%s'",
				i ? " or" : "", tg->sub_inline_out[i]);
}

int session__sub_inline(const char *cmd, const char *debuginfo,
			const struct kfacts *f, enum fs_target t,
			struct plan_inline *out)
{
	const struct probe_target *tg = probe_target__get(t);
	struct dwarf_kernel k;
	char why[DWARF_WHY_MAX];
	int n;

	memset(out, 0, sizeof(*out));
	if (!tg->sub_inline_in)
		return 0;
	n = inline__dwarf_open(cmd, debuginfo, f->release, &k, out);
	if (n <= 0)
		return n;
	snprintf(out->why, sizeof(out->why), "no lookup inlined into %s",
		 tg->sub_inline_in);
	/*
	 * In the sub-probe's order of preference: the first lookup the read
	 * inlines, unless a lookup before it is a symbol the read calls.
	 * The exported wrapper inlined into the read (Debian's 6.1 and
	 * 6.12) still calls the worker, whose symbol sees every lookup.
	 */
	for (size_t i = 0; i < ARRAY_SIZE(tg->sub_symbols) &&
			   tg->sub_symbols[i].name && !out->function[0];
	     i++) {
		const char *sym = tg->sub_symbols[i].name;
		struct dwarf_sites sites = { 0 };
		int kept = 0;

		if (dwarf__find_inline(k.d, sym, &sites, why, sizeof(why)) >=
		    0) {
			kept = sites__keep_caller(&sites, tg->sub_inline_in);
			if (kept > 0) {
				sub__inline_build(tg, sites.site, kept, out);
				snprintf(out->function, sizeof(out->function),
					 "%s", sym);
			}
			dwarf_sites__free(&sites);
		}
		if (!kept && f->has_symbol(f, sym)) {
			snprintf(out->why, sizeof(out->why),
				 "%s is a symbol, not inlined into %s", sym,
				 tg->sub_inline_in);
			break;
		}
	}
	dwarf_kernel__close(&k);
	return 0;
}

/* Every step of a failed plan, on one line. */
static void plan__print_failure(const struct plan *p, enum plan_mode m)
{
	char steps[4096];
	size_t n = 0;

	steps[0] = '\0';
	for (int i = 0; i < p->nsteps && n < sizeof(steps); i++) {
		const struct plan_step *s = &p->step[i];

		n += snprintf(steps + n, sizeof(steps) - n, "%s %s %s: %s",
			      i ? ";" : "", plan__mech_name(s->mech), s->symbol,
			      s->tried ? s->err_msg : s->why);
	}
	err__print(model__target_name(p->target), 0, "cannot attach%s%s:%s",
		   m == PLAN_AUTO ? "" : " with --mode ",
		   m == PLAN_AUTO ? "" : plan__mode_name(m),
		   p->nsteps ? steps : " no step for this mode");
}

int session__start(struct session *s, enum plan_mode m,
		   const struct probe_opts *o)
{
	int err;

	err = kfacts__load(&s->facts, o->btf_path);
	if (err)
		return err;
	s->facts_loaded = true;
	/* Every program has CO-RE reads: without BTF nothing can load. */
	if (!s->facts.has_btf) {
		err__print(NULL, 0,
			   "no kernel BTF (/sys/kernel/btf/vmlinux is "
			   "missing), which the BPF programs need; give --btf "
			   "FILE with this kernel's BTF");
		return -ENOENT;
	}
	s->by = o->by;
	if (s->by == FS_BY_CGROUP && !s->cgroup_names) {
		s->cgroup_names = cgroup_names__new();
		if (!s->cgroup_names)
			return -ENOMEM;
	}
	for (int t = 0; t < FS_TGT_NR && m != PLAN_FENTRY && m != PLAN_SYSCALL;
	     t++) {
		if (!s->want[t] || !plan__inline_target(t)->function)
			continue;
		err = session__inline(NULL, o->debuginfo, s->facts.release, t,
				      &s->inl[t]);
		if (err)
			return err;
		s->facts.inl[t] = &s->inl[t];
	}
	for (int t = 0; t < FS_TGT_NR && !o->lean; t++) {
		if (!s->want[t] || !probe_target__get(t)->sub_inline_in)
			continue;
		err = session__sub_inline(NULL, o->debuginfo, &s->facts, t,
					  &s->sub_inl[t]);
		if (err)
			return err;
		s->facts.sub_inl[t] = &s->sub_inl[t];
	}
	for (int t = 0; t < FS_TGT_NR; t++) {
		if (!s->want[t])
			continue;
		/* A bench switch set wrong is the error, not the plan's
		 * steps. */
		err = probe__cost_check(t);
		if (err)
			return err;
		plan__build(&s->facts, t, m, &s->plan[t]);
		err = probe__attach(&s->facts, &s->plan[t], o, &s->probe[t]);
		if (err) {
			plan__print_failure(&s->plan[t], m);
			return err;
		}
	}
	return 0;
}

/* The key of breakdown entry k, as its owner's info tells it. */
static bool session__part_key(struct session *s,
			      const struct probe_breakdown *b, int k,
			      struct fs_part_key *key, char *path, size_t n)
{
	const struct fs_by_info *in = &b->info[k];

	memset(key, 0, sizeof(*key));
	if (k == FS_BY_OTHER) {
		key->other = true;
		key->nother = b->nother;
		key->nother_more = b->keys_full;
		return true;
	}
	/* An entry no key took yet. */
	if (!in->pid)
		return false;
	key->pid = in->pid;
	key->comm = in->comm;
	if (s->by == FS_BY_CGROUP) {
		key->cgroup_id = in->cgroup;
		cgroup_names__path(s->cgroup_names, in->cgroup, in->cgroup_name,
				   path, n);
		key->cgroup = path;
	}
	return true;
}

/* A breakdown's rows (the events since the previous delta collect). */
static int session__parts(struct session *s, int t, struct fs_report *r,
			  const struct probe_breakdown *b, bool delta)
{
	struct fs_part_key key;
	char path[256];
	int err = 0;

	if (delta && !s->last_slots[t]) {
		s->last_slots[t] =
			calloc(FS_STATS_ENTRIES, sizeof(struct fs_stats));
		if (!s->last_slots[t])
			return -ENOMEM;
	}
	r->by = s->by;
	for (int k = 0; k < FS_STATS_ENTRIES && !err; k++) {
		struct fs_stats d = b->slots[k];

		if (delta) {
			model__stats_sub(&d, &s->last_slots[t][k]);
			s->last_slots[t][k] = b->slots[k];
		}
		/* Unused entries, and keys idle in this interval. */
		if (!session__part_key(s, b, k, &key, path, sizeof(path)) ||
		    !d.counter[0])
			continue;
		err = model__part_add(r, &key, t, &d);
	}
	return err;
}

int session__collect_both(struct session *s, struct fs_report *delta,
			  struct fs_report *total)
{
	struct probe_breakdown *b = NULL;
	struct fs_stats now, d;
	int err = 0;

	if (s->by != FS_BY_NONE) {
		b = malloc(sizeof(*b));
		if (!b)
			return -ENOMEM;
	}
	for (int t = 0; t < FS_TGT_NR && !err; t++) {
		if (!s->probe[t])
			continue;
		err = probe__read(s->probe[t], &now, b);
		if (err)
			break;
		if (total) {
			total->filters = s->filters;
			probe__describe(s->probe[t], &s->plan[t], total);
			model__add_stats(total, t, &now);
			if (b)
				err = session__parts(s, t, total, b, false);
		}
		if (delta && !err) {
			d = now;
			model__stats_sub(&d, &s->last[t]);
			s->last[t] = now;
			delta->filters = s->filters;
			probe__describe(s->probe[t], &s->plan[t], delta);
			model__add_stats(delta, t, &d);
			if (b)
				err = session__parts(s, t, delta, b, true);
		}
	}
	free(b);
	return err;
}

int session__collect(struct session *s, struct fs_report *r, bool delta)
{
	return session__collect_both(s, delta ? r : NULL, delta ? NULL : r);
}

static int session__on_event(void *ctx, void *data, size_t size)
{
	const struct session_evsrc *src = ctx;
	struct session *s = src->s;
	const struct plan *p = &s->plan[src->t];

	if (size < sizeof(struct fs_event))
		return 0;
	s->ev_fn(s->ev_ctx, src->t, plan__mech_name(p->step[p->chosen].mech),
		 probe__events_seen(s->probe[src->t]), data);
	return 0;
}

int session__events_start(struct session *s, session_event_fn fn, void *ctx)
{
	int err = 0;

	s->ev_fn = fn;
	s->ev_ctx = ctx;
	for (int t = 0; t < FS_TGT_NR && !err; t++) {
		if (!s->probe[t])
			continue;
		s->evsrc[t] = (struct session_evsrc){ .s = s, .t = t };
		err = probe__events_add(s->probe[t], &s->rb, session__on_event,
					&s->evsrc[t]);
	}
	if (!err && !s->wake_on) {
		s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (s->wake_fd < 0)
			err = -errno;
		s->wake_on = !err;
	}
	if (err)
		err__print(NULL, err, "cannot read the events' ring buffer");
	return err;
}

int session__events_drain(struct session *s)
{
	return s->rb ? ring_buffer__consume(s->rb) : 0;
}

int session__wait(struct session *s, int ms, const sigset_t *mask)
{
	struct pollfd p[2] = {
		{ .fd = s->rb ? ring_buffer__epoll_fd(s->rb) : -1,
		  .events = POLLIN },
		{ .fd = s->wake_on ? s->wake_fd : -1, .events = POLLIN },
	};
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000 };
	eventfd_t n;

	if (ppoll(p, 2, ms < 0 ? NULL : &ts, mask) < 0)
		return -errno;
	/* Taken, so that the next wait sleeps again. */
	if (p[1].revents & POLLIN)
		eventfd_read(s->wake_fd, &n);
	return s->rb && (p[0].revents & POLLIN) ? ring_buffer__consume(s->rb)
						: 0;
}

int session__wake(struct session *s)
{
	if (!s->wake_on)
		return 0;
	return eventfd_write(s->wake_fd, 1) ? -errno : 0;
}

void session__stop(struct session *s)
{
	ring_buffer__free(s->rb);
	s->rb = NULL;
	if (s->wake_on)
		close(s->wake_fd);
	s->wake_on = false;
	for (int t = 0; t < FS_TGT_NR; t++) {
		probe__destroy(s->probe[t]);
		s->probe[t] = NULL;
		free(s->last_slots[t]);
		s->last_slots[t] = NULL;
	}
	cgroup_names__free(s->cgroup_names);
	s->cgroup_names = NULL;
	if (s->facts_loaded)
		kfacts__free(&s->facts);
	s->facts_loaded = false;
}
