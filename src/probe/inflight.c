// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The in-flight store a probe keeps calls in from entry to exit: which
 * one (FOLIOSCOPE_INFLIGHT), its maps sized before load, the per-CPU
 * store's migration program, and its description. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "probe_impl.h"
#include "util/util.h"

static const struct inflight_mode inflight_auto = { "", INFLIGHT_AUTO,
						    FS_STORE_CPU, false };
static const struct inflight_mode inflight_modes[] = {
	{ "hash", INFLIGHT_HASH, FS_STORE_HASH, true },
	{ "cpu", INFLIGHT_CPU, FS_STORE_CPU, true },
	{ "task", INFLIGHT_TASK, FS_STORE_TASK, true },
	{ "test-refuse", INFLIGHT_TEST_REFUSE, FS_STORE_TASK, false },
	{ "test-nomigrate", INFLIGHT_TEST_NOMIGRATE, FS_STORE_CPU, true },
	{ "test-smallhash", INFLIGHT_TEST_SMALLHASH, FS_STORE_CPU, true },
	{ "test-nocpu", INFLIGHT_TEST_NOCPU, FS_STORE_CPU, false },
};

const struct inflight_mode *inflight__mode(void)
{
	const char *env = getenv("FOLIOSCOPE_INFLIGHT");

	for (size_t i = 0; env && i < ARRAY_SIZE(inflight_modes); i++)
		if (!strcmp(env, inflight_modes[i].name))
			return &inflight_modes[i];
	return &inflight_auto;
}

enum probe_inflight probe__inflight_mode(void)
{
	return inflight__mode()->mode;
}

/*
 * Size the in-flight maps for the store in use: the unused ones stay (the
 * programs reference them; the verifier drops the unused branches) but
 * shrink to one entry. An unused task-storage map becomes an array, so a
 * kernel without task storage can still create it. The per-CPU store
 * keeps the hash for calls that move; its migration program loads only
 * with it, and only when the step keeps records (not --lean's exits
 * alone).
 */
int inflight__prepare(struct bpf_object *obj, enum fs_store store,
		      bool exit_only)
{
	struct bpf_map *tm = bpf_object__find_map_by_name(obj, "inflight_task");
	struct bpf_map *hm = bpf_object__find_map_by_name(obj, "inflight");
	struct bpf_program *mig =
		bpf_object__find_program_by_name(obj, PROBE_INFLIGHT_MIGRATE);
	enum probe_inflight mode = probe__inflight_mode();
	bool refuse = mode == INFLIGHT_TEST_REFUSE;
	int err = 0;

	if (!tm || !hm || !mig)
		return -ENOENT;
	bpf_program__set_autoload(mig, store == FS_STORE_CPU && !exit_only &&
					       mode != INFLIGHT_TEST_NOMIGRATE);
	/* Task storage alone: the hash is unused. */
	if (store == FS_STORE_TASK && !refuse)
		return bpf_map__set_max_entries(hm, 1);
	if (mode == INFLIGHT_TEST_SMALLHASH)
		err = bpf_map__set_max_entries(hm, 1);
	if (err)
		return err;
	err = bpf_map__set_type(tm, store != FS_STORE_TASK ? BPF_MAP_TYPE_ARRAY
							   : BPF_MAP_TYPE_HASH);
	if (!err)
		err = bpf_map__set_map_flags(tm, 0);
	if (!err)
		err = bpf_map__set_max_entries(tm, 1);
	return err;
}

/* The per-CPU store's move of migrating threads' records, once the step's
 * programs are attached. */
int inflight__attach(struct probe *pr)
{
	struct bpf_program *mig;
	struct bpf_link *l;

	/* Loaded only for the slots (inflight__prepare decides). */
	mig = bpf_object__find_program_by_name(pr->obj, PROBE_INFLIGHT_MIGRATE);
	if (!mig)
		return -ENOENT;
	if (!bpf_program__autoload(mig))
		return 0;
	/* A tracepoint no kernel has: the kernel refuses the attach, as one
	 * without sched_migrate_task would. */
	if (probe__inflight_mode() == INFLIGHT_TEST_NOCPU)
		l = bpf_program__attach_raw_tracepoint(
			mig, "folioscope_test_no_such_tracepoint");
	else
		l = bpf_program__attach(mig);
	if (!l)
		return -errno;
	pr->link[pr->nlinks++] = l;
	return 0;
}

/* Where the live probe keeps in-flight calls, for doctor and reports. */
void inflight__describe(const struct probe *pr, char *out, size_t n)
{
	if (pr->cfg.exit_only)
		snprintf(out, n,
			 "none (--lean: each call counted at its exit)");
	else if (pr->cfg.inflight_store == FS_STORE_HASH)
		snprintf(out, n, "hash (%s)", pr->inflight_why);
	else if (pr->cfg.inflight_store == FS_STORE_CPU)
		snprintf(out, n, "per-CPU slots");
	else if (pr->inflight_why[0])
		snprintf(out, n, "task storage (%s)", pr->inflight_why);
	else
		snprintf(out, n, "task storage");
}
