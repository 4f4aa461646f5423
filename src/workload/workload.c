// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The public entry points of the workloads: they pick the workload by
 * name and dispatch to dedupe.c or shmem.c, and reconcile the probes'
 * counts with what the workload did.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/util.h"
#include "workload/workload_internal.h"

struct workload {
	const char *name; /* "dedupe" or "shmem-read" */
	struct dedupe *dd;
	struct shmem *sh;
	struct wl_random *rnd; /* --random: layouts of their own */
	struct wl_ops *ops;    /* --ops: sequences of operations */
};

void workload__on_stuck(wl_stuck_fn fn, void *ctx)
{
	wl_watch__on_stuck(fn, ctx);
}

bool workload__ops_only_valid(const char *list, unsigned int n)
{
	return !wl_ops__parse_only(list, n, NULL, NULL);
}

void workload__defaults(struct wl_opts *o)
{
	memset(o, 0, sizeof(*o));
	/* range 0: 128 KiB, or a whole file for the seed workload. */
	o->count = 64;
	o->dests = 1;
	o->huge = "always";
	o->fill = "full";
	o->size = 16 << 20;
	o->bs = 64 << 10;
	o->syscall = "read";
	o->iovecs = 1;
	o->readers = 1;
}

int workload__prepare(struct workload **out, const char *name,
		      const struct wl_opts *o)
{
	struct workload *w;
	int err;

	*out = NULL;
	if (!name)
		name = "";
	if (strcmp(name, "dedupe") && strcmp(name, "shmem-read")) {
		err = -EINVAL;
		wl__err_hint(name, err, "(want dedupe or shmem-read)",
			     "unknown workload '%s'", name);
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
	w->name = !strcmp(name, "dedupe") ? "dedupe" : "shmem-read";
	if (o->ops) {
		err = wl_ops__prepare(&w->ops, w->name, o);
	} else if (o->random) {
		err = wl_random__prepare(&w->rnd, w->name, o);
	} else if (!strcmp(name, "dedupe")) {
		err = dedupe__prepare(&w->dd, o);
	} else {
		err = shmem__prepare(&w->sh, o);
	}
	if (err) {
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

int workload__run(struct workload *w, struct fs_report *r)
{
	snprintf(r->workload_name, sizeof(r->workload_name), "%s", w->name);
	if (w->ops)
		return wl_ops__run(w->ops, r);
	if (w->rnd)
		return wl_random__run(w->rnd, r);
	if (w->dd)
		return dedupe__run(w->dd, r);
	return shmem__run(w->sh, r);
}

int workload__timed(struct workload *w, struct fs_report *r)
{
	return w->sh ? shmem__timed(w->sh, r) : 0;
}

void workload__totals(const struct workload *w, enum wl_level level,
		      struct wl_count *out)
{
	const struct wl_totals *t = w->ops   ? wl_ops__totals(w->ops)
				    : w->rnd ? wl_random__totals(w->rnd)
				    : w->dd  ? dedupe__totals(w->dd)
					     : shmem__totals(w->sh);
	bool dd = !strcmp(w->name, "dedupe");

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
	if (w && w->rnd)
		wl_random__shrink(w->rnd, r);
	if (w && w->ops)
		wl_ops__shrink(w->ops, r);
}

void workload__destroy(struct workload *w)
{
	if (!w)
		return;
	wl_random__destroy(w->rnd);
	wl_ops__destroy(w->ops);
	dedupe__destroy(w->dd);
	shmem__destroy(w->sh);
	free(w);
}
