/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel probes: carries out an attach plan (load + attach, falling
 * through failed steps with their errors recorded) and moves the per-CPU
 * histogram maps into the model. Nothing else touches BPF maps.
 */
#ifndef FS_PROBE_H
#define FS_PROBE_H

#include <linux/types.h>
#include "model/model.h"
#include "plan/plan.h"

struct probe;

/*
 * Per-call events: which calls become one (any of all, errors, slower
 * than slower_ns; sample N keeps one in N of them, or of all calls when
 * alone) and the ring buffer's size. Nothing set: no events at all.
 */
struct probe_events {
	bool all;
	bool errors; /* failed, DIFFERS, short reads */
	__u64 slower_ns;
	__u32 sample;	  /* 0: every selected call */
	__u32 ring_bytes; /* a power of two; 0: FS_EV_RING_DEFAULT */
};

static inline bool probe_events__on(const struct probe_events *e)
{
	return e->all || e->errors || e->slower_ns || e->sample;
}

/* Filters, compiled into the BPF programs before load (0 = none). */
struct probe_opts {
	__u32 filter_tgid;	 /* exactly this process */
	__u32 filter_tree;	 /* this process and its descendants */
	__u32 pids[FS_MAX_PIDS]; /* -p: any of these processes */
	__u32 npids;
	char comm[16]; /* --comm: task name, "" = any */
	/* --cgroup: open directories of cgroup v2 trees (the caller
	 * owns them), any of which a task must be in or under. */
	int cgroup_fds[FS_MAX_CGROUPS];
	__u32 ncgroups;
	__u32 dev;	/* --dev: kernel dev_t of the file's fs */
	__u64 magic;	/* --fs: superblock magic of the file's fs */
	enum fs_by by;	/* -P, --by: one stats entry per key */
	bool lean;	/* --lean: leave out the costliest optional hists */
	bool load_only; /* load through the verifier, attach nothing */
	struct probe_events ev;
	const char
		*btf_path; /* --btf: CO-RE against this BTF, NULL = kernel's */
	/* --debuginfo: the kernel's DWARF, NULL = distribution paths */
	const char *debuginfo;
};

/*
 * Walk the plan from its first available step: load and attach, record
 * each failure in the step (err, err_msg) and try the next. On success
 * p->chosen is set and *out holds the live probe. Returns 0 or -errno of
 * the last failure (-ENOENT when no step was available).
 */
int probe__attach(const struct kfacts *f, struct plan *p,
		  const struct probe_opts *o, struct probe **out);
/*
 * The maps' current contents summed over CPUs (and processes) into sum,
 * plus the kernel's count of missed program runs in the "missed" counter.
 * Counters only grow, so two reads differ by exactly the events in
 * between. With a breakdown, b (or NULL) receives each key's entry and
 * owner, and how many keys "other" holds.
 */
struct probe_breakdown {
	struct fs_stats slots[FS_STATS_ENTRIES];
	struct fs_by_info info[FS_STATS_ENTRIES]; /* unused: pid 0 */
	__u64 nother;				  /* keys in "other" */
	bool keys_full; /* FS_BY_KEYS remembered: "other" holds more */
};

int probe__read(const struct probe *pr, struct fs_stats *sum,
		struct probe_breakdown *b);
/* FOLIOSCOPE_COST_DROP's parts (FS_DROP_*) and histograms (by index). */
struct probe_cost_drop {
	__u32 parts, hists;
};

/*
 * The bench's FOLIOSCOPE_COST_DROP=PART,... for target t: file, inflight,
 * time, folio, hists, all, hist=NAME (target t's histogram NAME; the
 * other target's names are taken and left to it). 0, or -EINVAL with
 * why.
 */
int probe__cost_drop(enum fs_target t, struct probe_cost_drop *d, char *why,
		     size_t n);
/* FOLIOSCOPE_COST_DROP holds no part t lacks: 0, else -EINVAL with the
 * reason on stderr (before a plan is tried, so that the reason is the
 * one error said). */
int probe__cost_check(enum fs_target t);

/*
 * In-flight store: per-CPU slots (with a hash for calls that move between
 * CPUs, which a program on sched_migrate_task moves there), falling back
 * to task local storage when that program fails to load or attach, and
 * to a hash map when the kernel refuses task storage (EINVAL/EACCES at
 * load). FOLIOSCOPE_INFLIGHT=cpu, =task or =hash names the one store to
 * use; =test-refuse provokes a real refusal of task storage (and starts
 * there), =test-nocpu a real refusal of the migration program's attach,
 * =test-nomigrate keeps the slots without their migration program,
 * =test-smallhash keeps them with a one-entry hash (all four for tests);
 * anything else is the default.
 */
enum probe_inflight {
	INFLIGHT_AUTO,
	INFLIGHT_CPU,
	INFLIGHT_TASK,
	INFLIGHT_HASH,
	/* Tests: make the kernel refuse task storage (its map handed over
	 * as a hash, which the verifier rejects), to exercise the fallback. */
	INFLIGHT_TEST_REFUSE,
	/* Tests: the per-CPU slots without the move of migrating threads'
	 * records, to show what the move is for. */
	INFLIGHT_TEST_NOMIGRATE,
	/* Tests: the per-CPU slots with a hash of one entry, so that moving
	 * threads' records find it full: those calls are counted dropped. */
	INFLIGHT_TEST_SMALLHASH,
	/* Tests: the migration program attached to a tracepoint no kernel
	 * has, so that the per-CPU slots fail and task storage is used. */
	INFLIGHT_TEST_NOCPU,
};
enum probe_inflight probe__inflight_mode(void);

/* Attach info and "not measured" marks of the live probe into r. */
void probe__describe(const struct probe *pr, const struct plan *p,
		     struct fs_report *r);
/*
 * Events: add the probe's ring buffer to *rb (made if NULL), fn called
 * with ctx for each event. 0 or -errno.
 */
struct ring_buffer;
int probe__events_add(struct probe *pr, struct ring_buffer **rb,
		      int (*fn)(void *ctx, void *data, size_t size), void *ctx);
/* The FS_EVF_* parts the live probe's events can carry: the folio and
 * copy parts only with the sub-probe attached. */
__u32 probe__events_seen(const struct probe *pr);

/* Detach and free; safe on NULL. */
void probe__destroy(struct probe *pr);

/* Try every available step (attach, then detach at once) so each step
 * records the kernel's real answer; for doctor. */
void probe__try_all(const struct kfacts *f, struct plan *p,
		    const struct probe_opts *o);

#endif /* FS_PROBE_H */
