// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Read what a live probe's maps hold: the per-CPU histograms summed over
 * CPUs and entries, the breakdown's entries, the runs the kernel missed,
 * and the events' ring buffer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "probe_impl.h"
#include "util/err.h"

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
		err__print(NULL, -errno, "cannot read map 'stats'");
		return -errno;
	}
	memset(out, 0, sizeof(*out));
	for (int c = 0; c < ncpu; c++)
		model__stats_add(out, &vals[c]);
	return 0;
}

/* How many keys the breakdown sent to "other", and whether it stopped
 * remembering keys (then "other" holds more). */
static void breakdown__count_other(const struct probe *pr,
				   struct probe_breakdown *b)
{
	const struct bpf_map *m =
		bpf_object__find_map_by_name(pr->obj, "by_slots");
	__u64 key, next, n = 0;
	__u32 slot;
	void *prev = NULL;

	b->nother = 0;
	b->keys_full = false;
	if (!m)
		return;
	while (!bpf_map__get_next_key(m, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		n++;
		if (!bpf_map__lookup_elem(m, &key, sizeof(key), &slot,
					  sizeof(slot), 0) &&
		    slot == FS_BY_OTHER)
			b->nother++;
	}
	b->keys_full = n >= FS_BY_KEYS;
}

static int probe__read_entries(const struct probe *pr, struct fs_stats *slots,
			       struct probe_breakdown *b)
{
	int ncpu = libbpf_num_possible_cpus();
	const struct bpf_map *binfo;
	struct fs_stats *vals;
	int err = 0;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	binfo = bpf_object__find_map_by_name(pr->obj, "by_info");
	for (__u32 k = 0; k < pr->nentries && !err; k++) {
		err = stats__read_entry(pr, k, vals, ncpu, &slots[k]);
		if (!err && b && binfo && pr->nentries > 1 &&
		    bpf_map__lookup_elem(binfo, &k, sizeof(k), &b->info[k],
					 sizeof(b->info[k]), 0))
			memset(&b->info[k], 0, sizeof(b->info[k]));
	}
	free(vals);
	if (!err && b && pr->nentries > 1)
		breakdown__count_other(pr, b);
	return err;
}

int probe__read(const struct probe *pr, struct fs_stats *sum,
		struct probe_breakdown *b)
{
	struct fs_stats *slots = b ? b->slots : NULL;
	int err;

	if (b)
		memset(b, 0, sizeof(*b));
	else
		slots = calloc(pr->nentries, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	err = probe__read_entries(pr, slots, b);
	if (!err) {
		*sum = slots[0];
		for (__u32 k = 1; k < pr->nentries; k++)
			model__stats_add(sum, &slots[k]);
		sum->counter[pr->tg->missed_counter] = probe__missed(pr);
	}
	if (!b)
		free(slots);
	return err;
}

int probe__events_add(struct probe *pr, struct ring_buffer **rb,
		      int (*fn)(void *ctx, void *data, size_t size), void *ctx)
{
	struct bpf_map *m = bpf_object__find_map_by_name(pr->obj, "events");

	if (!m)
		return -ENOENT;
	if (*rb)
		return ring_buffer__add(*rb, bpf_map__fd(m), fn, ctx);
	*rb = ring_buffer__new(bpf_map__fd(m), fn, ctx, NULL);
	return *rb ? 0 : -errno;
}
