/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the files of src/probe/ share of a live probe: its state, and the
 * in-flight store's part in opening, attaching and describing it. Only
 * src/probe/ includes this; the rest of folioscope sees probe.h.
 */
#ifndef FOLIOSCOPE_PROBE_IMPL_H
#define FOLIOSCOPE_PROBE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <bpf/libbpf.h>
#include "probe.h"
#include "kevent.h"
#include "target.h"

/* A step's programs plus its sub-probe's; an inline step has one entry,
 * its exit targets and the caller's return and entry per site. */
#define PROBE_MAX_LINKS                                                        \
	(2 * PROBE_SET_MAX + FS_INLINE_MAX_SITES * (PLAN_INLINE_EXITS + 3))

struct probe {
	const struct probe_target *tg;
	enum fs_target target;
	void *skel;
	struct bpf_object *obj;
	struct bpf_map *stats;
	struct bpf_link *link[PROBE_MAX_LINKS];
	int nlinks;
	/* Sub-probe (folios / copies) that could not be used, and why. */
	bool sub_missing;
	char sub_why[400];
	char sub_note[700]; /* sub-probe used the other mechanism, or none: why
			     */
	struct probe_load_cfg cfg; /* compiled into the programs */
	__u32 nentries;		/* stats entries: 1, or FS_STATS_ENTRIES (-P) */
	bool lean;		/* --lean */
	bool syscall;		/* the step attached is the syscall level */
	bool events;		/* per-call events selected */
	char inflight_why[224]; /* why not the per-CPU slots, or the hash */
	/* Load NAME_cast in place of NAME where the object has it: the
	 * twin reads kernel memory through bpf_rdonly_cast's guarded loads,
	 * not probe reads (bpf/common.bpf.h, fs_cast). cast_twins: an
	 * enabled program has one (loaded in its place where cast);
	 * cast_why: why they are not used. */
	bool cast, cast_twins;
	char cast_why[224];
	/* The kernel has BTF of its own: open the objects' build that names
	 * the kfunc (probe_target.open). */
	bool kernel_btf;
	/* Kprobes as tracefs events, whose missed runs are read back; why
	 * a kprobe had to use libbpf's PMU kprobe instead, or "". */
	struct kevents kev;
	char kev_why[200];
	int raw_slot; /* slots filled in the shared raw pair, if raw_added */
	bool raw_added;
	char inline_why[256]; /* the inline probe the kernel refused */
	/* The target's second entry (probe_target.also_symbol) attached
	 * with the step, or NULL; why it is not, when the kernel has it. */
	const char *also_sym;
	char also_why[300];
	/* The page cache's batch lookup (probe_target.batch_symbol)
	 * attached with the sub-probe, or NULL; why not, when the kernel
	 * has it. */
	const char *batch_sym;
	char batch_why[300];
};

/* FOLIOSCOPE_INFLIGHT's values (probe.h says what each does): the store
 * a step tries first, and whether it is the only one tried. */
struct inflight_mode {
	const char *name;
	enum probe_inflight mode;
	enum fs_store first;
	bool only;
};

/* inflight.c: the FOLIOSCOPE_INFLIGHT mode in force (auto without it). */
const struct inflight_mode *inflight__mode(void);
/* inflight.c: size the in-flight maps of obj for store (before load). */
int inflight__prepare(struct bpf_object *obj, enum fs_store store,
		      bool exit_only);
/* inflight.c: attach the per-CPU store's migration program, if loaded. */
int inflight__attach(struct probe *pr);
/* inflight.c: where the live probe keeps in-flight calls, for doctor and
 * reports. */
void inflight__describe(const struct probe *pr, char *out, size_t n);

#endif
