// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * folioscope run WORKLOAD: set the workload up, attach, run its traced
 * phase, report, and reconcile the histograms with the workload's own
 * totals (calls issued = calls seen, bytes moved = bytes summed).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "common.h"
#include "session.h"
#include "workload/workload.h"

struct run_args {
	struct common_opts c;
	const char *workload;
	struct wl_opts w;
};

enum { OPT_HUGE = 0x100, OPT_FS, OPT_DIR, OPT_RANGE, OPT_COUNT, OPT_SIZE,
       OPT_BS };

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "dedupe:", 1 },
	{ "fs", OPT_FS, "btrfs|xfs", 0, "filesystem to make on a loop image", 1 },
	{ "dir", OPT_DIR, "DIR", 0, "use DIR on btrfs/xfs instead of a loop image", 1 },
	{ "range", OPT_RANGE, "BYTES", 0, "bytes per dedupe range (default 128K)", 1 },
	{ "count", OPT_COUNT, "N", 0, "FIDEDUPERANGE calls (default 64)", 1 },
	{ NULL, 0, NULL, 0, "shmem-read:", 2 },
	{ "huge", OPT_HUGE, "MODE", 0, "tmpfs huge=always|never|within_size|advise", 2 },
	{ "size", OPT_SIZE, "BYTES", 0, "file size (default 16M)", 2 },
	{ "bs", OPT_BS, "BYTES", 0, "read size (default 64K)", 2 },
	{},
};

/* "64K", "2M", "1G" or plain bytes. */
static int parse_size(const char *s, __u64 *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end || !v)
		return -EINVAL;
	*out = v;
	return 0;
}

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct run_args *a = st->input;
	__u64 v = 0;

	switch (key) {
	case ARGP_KEY_INIT:
		common_opts_target = &a->c;
		break;
	case OPT_FS:
		if (strcmp(arg, "btrfs") && strcmp(arg, "xfs"))
			cli__usage_error(st, "unknown --fs '%s' (btrfs, xfs)", arg);
		a->w.fs = arg;
		break;
	case OPT_DIR:
		a->w.dir = arg;
		break;
	case OPT_HUGE:
		if (strcmp(arg, "always") && strcmp(arg, "never") &&
		    strcmp(arg, "within_size") && strcmp(arg, "advise"))
			cli__usage_error(st, "unknown --huge '%s'", arg);
		a->w.huge = arg;
		break;
	case OPT_RANGE:
	case OPT_SIZE:
	case OPT_BS:
	case OPT_COUNT:
		if (parse_size(arg, &v))
			cli__usage_error(st, "invalid size '%s'", arg);
		if (key == OPT_RANGE)
			a->w.range = v;
		else if (key == OPT_SIZE)
			a->w.size = v;
		else if (key == OPT_BS)
			a->w.bs = v;
		else if (v > 1000000)
			cli__usage_error(st, "--count %s is too large", arg);
		else
			a->w.count = (unsigned int)v;
		break;
	case ARGP_KEY_ARG:
		if (a->workload)
			cli__usage_error(st, "one workload at a time");
		if (strcmp(arg, "dedupe") && strcmp(arg, "shmem-read"))
			cli__usage_error(st, "unknown workload '%s' (dedupe, shmem-read)",
				   arg);
		a->workload = arg;
		break;
	case ARGP_KEY_END:
		if (!a->workload)
			cli__usage_error(st, "which workload? (dedupe, shmem-read)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &common_argp, 0, "Tracing and output:", 0 },
	{},
};

static const struct argp run_argp = {
	options, parse, "dedupe|shmem-read",
	"Drive a workload while tracing, report, and check the histograms "
	"against the workload's own totals.",
	children, NULL, NULL,
};

static __u64 kv_u64(const struct fs_report *r, const char *key)
{
	const struct fs_kv *kv = model__kv_find(r, key);

	return kv && kv->type == FS_KV_U64 ? kv->u : 0;
}

/*
 * Calls and bytes the workload made against what the probes saw. Only
 * for a plan that reads arguments (a renamed clone is timed only).
 */
static int run__reconcile(struct fs_report *r, enum fs_target t)
{
	const struct fs_target_report *tr = &r->target[t];
	int bh = t == FS_TGT_DEDUPE ? FS_DD_BYTES : FS_SH_BYTES;
	__u64 calls = tr->counter[0], bytes = tr->hist[bh].sum;
	__u64 wcalls = kv_u64(r, "calls"), wbytes = kv_u64(r, "bytes");
	bool ok;

	if (!tr->hist[bh].measured) {
		model__kv_str(r, "reconcile", "skipped: bytes not measured");
		return 0;
	}
	ok = calls == wcalls && bytes == wbytes;
	model__kv_str(r, "reconcile", ok ? "ok" : "MISMATCH");
	if (!ok)
		fprintf(stderr,
			"folioscope: run: tracing error on %s (%s %s): workload "
			"made %" PRIu64 " calls / %" PRIu64 " bytes, probes saw "
			"%" PRIu64 " / %" PRIu64 "\n",
			tr->name, tr->attach.mechanism, tr->attach.symbol,
			(uint64_t)wcalls, (uint64_t)wbytes, (uint64_t)calls,
			(uint64_t)bytes);
	return ok ? 0 : -EPROTO;
}

int cmd_run(int argc, char **argv)
{
	struct run_args a = { .c = { .mode = PLAN_AUTO } };
	struct workload *w = NULL;
	struct session s = {};
	struct probe_opts po = {};
	struct fs_report r;
	enum fs_target t;
	int err, rc = 1;

	workload__defaults(&a.w);
	argp_parse(&run_argp, argc, argv, 0, NULL, &a);
	t = strcmp(a.workload, "dedupe") ? FS_TGT_SHMEM : FS_TGT_DEDUPE;
	if (session__check_root("run"))
		return 1;
	if (a.c.targets)
		session__parse_targets(a.c.targets, s.want);
	else
		s.want[t] = true;
	s.want[t] = true; /* the workload's own target is always traced */

	model__init(&r);
	err = workload__prepare(&w, a.workload, &a.w);
	if (err)
		goto cleanup;
	/* Only this process runs the workload: keep its events only. */
	po.filter_tgid = (__u32)getpid();
	err = session__start(&s, a.c.mode, &po);
	if (err)
		goto cleanup;
	err = workload__run(w, &r);
	if (err)
		goto cleanup;
	err = session__collect(&s, &r, false);
	if (err)
		goto cleanup;
	rc = run__reconcile(&r, t) ? 1 : 0;
	if (kv_u64(&r, "validation_failures"))
		rc = 1;
	if (common__output(&a.c, &r))
		rc = 1;
cleanup:
	session__stop(&s);
	workload__destroy(w);
	return rc;
}
