// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The public entry points of the workloads: the table of what each mode
 * of each workload does (struct wl_mode_ops), the calls that go through
 * it, and the reconcile of the probes' counts with what the workload
 * did.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/util.h"
#include "workload/workload_internal.h"

static const char *const kind_names[WL_KIND_NR] = {
	[WL_DEDUPE] = "dedupe",
	[WL_SHMEM] = "shmem-read",
};

const char *wl_kind__name(enum wl_kind k)
{
	return k < WL_KIND_NR ? kind_names[k] : "?";
}

int wl_kind__parse(const char *name)
{
	return wl__lookup(kind_names, WL_KIND_NR, name);
}

/* What each mode of each workload does; NULL: the workload has no such
 * mode (the command line refuses it first). */
static const struct wl_mode_ops *const modes[WL_KIND_NR][WL_MODE_NR] = {
	[WL_DEDUPE] = {
		[WL_MODE_LAYOUT] = &wl_dedupe_layouts,
		[WL_MODE_MATRIX] = &wl_dedupe_layouts,
		[WL_MODE_RANDOM] = &wl_random_layouts,
		[WL_MODE_OPS] = &wl_op_sequences,
	},
	[WL_SHMEM] = {
		[WL_MODE_LAYOUT] = &wl_shmem_layouts,
		[WL_MODE_MATRIX] = &wl_shmem_layouts,
		[WL_MODE_RANDOM] = &wl_random_layouts,
		[WL_MODE_OPS] = &wl_op_sequences,
		[WL_MODE_THROUGHPUT] = &wl_shmem_throughput,
	},
};

const struct wl_mode_ops *wl_mode__ops(enum wl_kind k, enum wl_mode m)
{
	return k < WL_KIND_NR && m < WL_MODE_NR ? modes[k][m] : NULL;
}

static void count_add(struct wl_count *a, const struct wl_count *b)
{
	a->calls += b->calls;
	a->bytes += b->bytes;
	a->same += b->same;
	a->differs += b->differs;
	a->errors += b->errors;
	a->calls_slack += b->calls_slack;
}

void wl_totals__add(struct wl_totals *a, const struct wl_totals *b)
{
	count_add(&a->func, &b->func);
	count_add(&a->one, &b->one);
	count_add(&a->sys, &b->sys);
	count_add(&a->cmp, &b->cmp);
	a->via_uring += b->via_uring;
	a->via_pipe += b->via_pipe;
	a->via_loop += b->via_loop;
	for (int w = 0; w < WL_WAY_NR; w++)
		a->way_calls[w] += b->way_calls[w];
}

struct workload {
	enum wl_kind kind;
	const struct wl_mode_ops *ops;
	void *state;
};

void workload__on_stuck(wl_stuck_fn fn, void *ctx)
{
	wl_watch__on_stuck(fn, ctx);
}

void workload__defaults(struct wl_opts *o)
{
	memset(o, 0, sizeof(*o));
	/* range 0: 128 KiB, or a whole file for the seed workload. */
	o->count = 64;
	o->dests = 1;
	o->huge = WL_HUGE_ALWAYS;
	o->fill = SH_FILL_FULL;
	o->size = 16 << 20;
	o->bs = 64 << 10;
	o->way = WL_WAY_READ;
	o->iovecs = 1;
	o->readers = 1;
}

int workload__prepare(struct workload **out, const struct wl_opts *o)
{
	const struct wl_mode_ops *ops = wl_mode__ops(o->kind, o->mode);
	const char *name = wl_kind__name(o->kind);
	struct workload *w;
	int err;

	*out = NULL;
	if (!ops) {
		err = -EINVAL;
		wl__err_hint(name, err, "(not a mode of this workload)",
			     "mode %d", (int)o->mode);
		return err;
	}
	err = wl__private_mounts(name);
	if (err)
		return err;
	w = calloc(1, sizeof(*w));
	if (!w) {
		err = -ENOMEM;
		wl__err(name, err, "allocate workload");
		return err;
	}
	w->kind = o->kind;
	w->ops = ops;
	err = ops->prepare(&w->state, o);
	if (err) {
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

int workload__run(struct workload *w, struct fs_report *r)
{
	snprintf(r->workload_name, sizeof(r->workload_name), "%s",
		 wl_kind__name(w->kind));
	return w->ops->run(w->state, r);
}

int workload__timed(struct workload *w, struct fs_report *r)
{
	return w->ops->timed ? w->ops->timed(w->state, r) : 0;
}

void workload__totals(const struct workload *w, enum wl_level level,
		      struct wl_count *out)
{
	const struct wl_totals *t = w->ops->totals(w->state);
	bool dd = w->kind == WL_DEDUPE;

	*out = t->func;
	if (level == WL_LEVEL_SYSCALL)
		*out = t->sys;
	else if (level == WL_LEVEL_DEDUPE_CMP && dd)
		*out = t->cmp;
	else if (level == WL_LEVEL_DEDUPE_ONE && dd)
		*out = t->one;
}

/*
 * What the workload did, at the level the plan sees it (want), against
 * what the probes of its target counted: calls, bytes, and the SAME,
 * DIFFERS and error counters the target has. Only for a plan that reads
 * arguments (a renamed clone is timed only). One stderr line names every
 * number that differs.
 */
int workload__reconcile(struct fs_report *r, enum fs_target t,
			const struct wl_count *want)
{
	const struct fs_target_report *tr = &r->target[t];
	int bh = t == FS_TGT_DEDUPE ? FS_DD_BYTES : FS_SH_BYTES;
	const struct {
		const char *name;
		__u64 want;
	} n[] = {
		{ "calls", want->calls },   { "bytes", want->bytes },
		{ "same", want->same },	    { "differs", want->differs },
		{ "errors", want->errors },
	};
	char msg[512] = "";
	size_t used = 0;

	if (!tr->hist[bh].measured) {
		model__kv_str(r, "reconcile", "skipped: bytes not measured");
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(n); i++) {
		int c = model__counter_index(r, t, n[i].name);
		/* The calls the kernel may add of its own (see wl_count). */
		__u64 slack = i ? 0 : want->calls_slack, saw;

		if (!strcmp(n[i].name, "bytes"))
			saw = tr->hist[bh].sum;
		else if (c >= 0)
			saw = tr->counter[c];
		else
			continue; /* no such counter: the target cannot tell */
		if ((saw >= n[i].want && saw - n[i].want <= slack) ||
		    used >= sizeof(msg))
			continue;
		used += (size_t)snprintf(
			msg + used, sizeof(msg) - used,
			"%s%s: workload %" PRIu64 "%s%.0" PRIu64
			"%s, probes %" PRIu64,
			used ? "; " : "", n[i].name, (uint64_t)n[i].want,
			slack ? " (+ up to " : "", (uint64_t)slack,
			slack ? " the kernel may add)" : "", (uint64_t)saw);
	}
	model__kv_str(r, "reconcile", msg[0] ? "MISMATCH" : "ok");
	if (msg[0])
		err__print("run", 0, "tracing error on %s (%s %s): %s",
			   tr->name, tr->attach.mechanism, tr->attach.symbol,
			   msg);
	return msg[0] ? -EPROTO : 0;
}

void workload__shrink(struct workload *w, struct fs_report *r)
{
	if (w && w->ops->shrink)
		w->ops->shrink(w->state, r);
}

void workload__destroy(struct workload *w)
{
	if (!w)
		return;
	w->ops->destroy(w->state);
	free(w);
}
