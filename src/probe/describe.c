// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What a live probe measures, into the report: where it attached and
 * why, what it cannot measure and why, what its events carry. */
#include <stdio.h>
#include <string.h>
#include "probe_impl.h"

/* Every histogram of the target's sub-probe (folios, copies) not
 * measured, for why. */
static void sub__not_measured(const struct probe *pr, struct fs_report *r,
			      const char *why)
{
	for (int i = 0; i < pr->tg->nsub_hists; i++)
		model__not_measured(r, pr->target, pr->tg->sub_hist[i], why);
}

/* Histograms a step cannot measure, with the reason. */
static void probe__mark_unmeasured(const struct probe *pr,
				   const struct plan_step *s,
				   struct fs_report *r)
{
	const struct probe_target *tg = pr->tg;
	enum fs_target t = pr->target;
	struct fs_target_report *tr = &r->target[t];
	char why[320];

	if (s->role != ROLE_INLINE && tg->inline_caller_hist >= 0)
		model__not_measured(r, t, tg->inline_caller_hist,
				    "measured at inline sites only (the "
				    "kprobe-inline step)");
	if (s->role == ROLE_SYSCALL) {
		snprintf(why, sizeof(why),
			 "syscall-level plan: %s not visible at the syscall "
			 "boundary",
			 tg->sub_unseen);
		sub__not_measured(pr, r, why);
		return;
	}
	if (s->role == ROLE_INLINE) {
		for (int a = 0; a < FS_INLINE_NARGS; a++)
			if (tg->inline_arg_hist[a] >= 0 &&
			    pr->cfg.inl->arg_why[a][0])
				model__not_measured(r, t,
						    tg->inline_arg_hist[a],
						    pr->cfg.inl->arg_why[a]);
	}
	if (s->role == ROLE_CLONE) {
		snprintf(why, sizeof(why),
			 "attached to renamed clone %s, whose arguments are "
			 "not read (calling convention may differ)",
			 s->symbol);
		for (int h = 0; h < tr->nhists; h++)
			if (h != tg->latency_hist)
				model__not_measured(r, t, h, why);
		return;
	}
	/* At inline sites without the result, the first sub histogram (the
	 * result's) is not measured; the others come from the entries. */
	if (!pr->sub_missing && pr->cfg.sub_inl &&
	    !pr->cfg.sub_inl->out_at_exit) {
		snprintf(why, sizeof(why), "sub-probe at inline sites: %s",
			 plan_inline__out_why(pr->cfg.sub_inl));
		model__not_measured(r, t, tg->sub_hist[0], why);
	}
	if (!pr->sub_missing)
		return;
	snprintf(why, sizeof(why), "sub-probe unavailable: %s", pr->sub_why);
	sub__not_measured(pr, r, why);
}

/* --lean: what it leaves out, where the plan would have measured it. */
static void probe__mark_lean(const struct probe *pr, struct fs_report *r)
{
	const struct probe_target *tg = pr->tg;
	enum fs_target t = pr->target;

	if (!pr->lean)
		return;
	for (int i = 0; i < tg->nlean_hists; i++)
		if (r->target[t].hist[tg->lean_hist[i]].measured)
			model__not_measured(r, t, tg->lean_hist[i],
					    "left out by --lean");
	if (pr->cfg.exit_only && r->target[t].hist[tg->latency_hist].measured)
		model__not_measured(r, t, tg->latency_hist,
				    "left out by --lean: each call is counted "
				    "at its exit alone, with no clock");
}

/* What an inline step measures and where the verdict comes from. */
static void inline__describe(const struct probe *pr, char *out, size_t n)
{
	const struct plan_inline *in = pr->cfg.inl;
	int v = pr->tg->inline_verdict_arg;
	size_t len = strlen(out);

	if (len >= n)
		return;
	/* libbpf's kprobes at symbol+offset are perf kprobes, which have
	 * no tracefs profile to read their misses from. */
	len += snprintf(out + len, n - len,
			"; latency: the inlined code itself, entry to exit "
			"(caller_latency_ns: its caller's, entry to return, "
			"of the same calls); missed runs of the site's "
			"kprobes are not counted");
	if (len >= n || v < 0)
		return;
	if (!in->arg_why[v][0])
		snprintf(out + len, n - len,
			 "; SAME/DIFFERS read at the exit, errors from the "
			 "caller's return");
	else
		snprintf(out + len, n - len,
			 "; SAME/DIFFERS and errors from the caller's return "
			 "(%s)",
			 in->arg_why[v]);
}

void probe__describe(const struct probe *pr, const struct plan *p,
		     struct fs_report *r)
{
	const struct plan_step *s = &p->step[p->chosen];
	struct fs_attach_info *ai = &r->target[pr->target].attach;

	model__enable(r, pr->target, true);
	r->target[pr->target].events = pr->events;
	snprintf(ai->function, sizeof(ai->function), "%s", p->function);
	snprintf(ai->symbol, sizeof(ai->symbol), "%s", s->symbol);
	snprintf(ai->mechanism, sizeof(ai->mechanism), "%s",
		 plan__mech_name(s->mech));
	ai->inlined = p->inlined;
	plan__reason(p, ai->reason, sizeof(ai->reason));
	snprintf(ai->covers, sizeof(ai->covers), "%s", s->covers);
	if (s->role == ROLE_INLINE) {
		inline__describe(pr, ai->reason, sizeof(ai->reason));
		ai->inline_sites = pr->cfg.inl->nsites;
		snprintf(ai->dwarf, sizeof(ai->dwarf), "%s",
			 pr->cfg.inl->source);
	}
	if (pr->sub_note[0])
		snprintf(ai->reason + strlen(ai->reason),
			 sizeof(ai->reason) - strlen(ai->reason), "%s",
			 pr->sub_note);
	if (pr->batch_why[0])
		snprintf(ai->reason + strlen(ai->reason),
			 sizeof(ai->reason) - strlen(ai->reason), "; %s",
			 pr->batch_why);
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

__u32 probe__events_seen(const struct probe *pr)
{
	__u32 all = FS_EVF_FILE | FS_EVF_BUF | FS_EVF_FOLIO | FS_EVF_CHUNK |
		    FS_EVF_DST | FS_EVF_FD | FS_EVF_LEN;

	if (pr->sub_missing || pr->lean || pr->syscall)
		all &= ~(FS_EVF_FOLIO | FS_EVF_CHUNK);
	return all;
}
