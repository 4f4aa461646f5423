/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What probe.c needs to know about each target, as data: its skeleton,
 * the BPF programs serving each plan handler and mechanism, its
 * sub-probe, and which histograms go unmeasured when a part is missing.
 * probe.c holds no target-specific branch; a new target is a new table.
 */
#ifndef FS_PROBE_TARGET_H
#define FS_PROBE_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <bpf/libbpf.h>
#include "model/model.h"
#include "plan/plan.h"
#include "probe.h"

/* One BPF program of a set, by its name in the object. */
struct probe_prog {
	const char *name;
	/* Runs at the function's return: attached as a kretprobe (fexit
	 * and raw tracepoints say so in their SEC()). */
	bool ret;
	/* The per-syscall tracepoint syscalls/TP it attaches to, or NULL. */
	const char *tp;
};

#define PROBE_SET_MAX 12

/* The programs serving one plan handler with one mechanism. */
struct probe_set {
	int handler; /* PLAN_H_* */
	enum plan_mech mech;
	bool has_sub; /* the target's sub-probe goes with it */
	/* The compare's first argument may be an inode (<= 5.17): read the
	 * function's BTF and tell the programs. */
	bool src_may_be_inode;
	struct probe_prog prog[PROBE_SET_MAX]; /* up to the first NULL name */
	/* Raw sys_enter/sys_exit: the entry and exit programs (prog[0],
	 * prog[1]) go in slots raw_slot and raw_slot + 1 of the pair both
	 * targets share (sysraw.c), not attached themselves. */
	bool raw_shared;
	int raw_slot;
	/* Under --lean without events, its return programs alone are
	 * attached and count each call from what its exit sees (the BPF
	 * side's exit_only): no entry program, no record, no latency. */
	bool exit_only;
	/* The ways into the target's path these programs count (NULL:
	 * the target does not say). */
	const char *covers;
};

/* The program every object has for the per-CPU in-flight store: it moves
 * a migrating thread's record (bpf/common.bpf.h, inflight__migrate). */
#define PROBE_INFLIGHT_MIGRATE "inflight_migrate"
/* A set's program NAME may have a twin NAME_cast that reads kernel memory
 * through bpf_rdonly_cast (bpf/common.bpf.h, fs_cast), loaded in its
 * place where the kernel has the kfunc. */
#define PROBE_TWIN_SUFFIX "_cast"

/* Settings compiled into the programs of one try, besides the filters. */
struct probe_load_cfg {
	enum fs_store inflight_store; /* where in-flight calls live */
	/* Bench only (FOLIOSCOPE_COST_DROP): FS_DROP_* parts and
	 * histograms by index left out. */
	__u32 cost_drop, cost_drop_hist;
	bool cmp_src_is_inode; /* dedupe compare: first argument an inode */
	int sub_arg;	/* shmem lookup: index of the folio out-pointer */
	bool sub_pages; /* the sub-probe's function hands out pages */
	bool exit_only; /* the set's exit_only applies: exits alone */
	const struct plan_inline *inl; /* inline step: sites and fetches */
	/* Sub-probe at the lookup's inline sites: sites and fetches. */
	const struct plan_inline *sub_inl;
};

#define PROBE_TARGET_SETS 10

struct probe_target {
	const char *object; /* the BPF object's name, for messages */
	/* Skeleton: open (NULL + errno on failure), rodata, load, destroy.
	 * open's kfunc: the kernel has BTF of its own, so libbpf can
	 * resolve the kfunc the bpf_rdonly_cast twins call; else the
	 * object's build that names none. */
	void *(*open)(const struct bpf_object_open_opts *oo, bool kfunc);
	void (*configure)(void *skel, const struct probe_opts *o,
			  const struct probe_load_cfg *c);
	int (*load)(void *skel);
	void (*destroy)(void *skel);
	struct bpf_object *(*obj)(void *skel);
	struct bpf_map *(*stats)(void *skel);
	/* Main programs, one set per (handler, mechanism), up to the first
	 * set without programs. */
	struct probe_set set[PROBE_TARGET_SETS];
	/* Sub-probe: programs per mechanism (fentry, kprobe, and at the
	 * lookup's inline sites: entry, exit targets), the handler
	 * its prototype is checked against, candidate functions (most
	 * precise first, up to the first without a name), each with
	 * whether it hands out pages, which may be a large folio's tails,
	 * rather than folios. */
	struct probe_set sub[MECH_INLINE + 1];
	int sub_handler;
	struct probe_sub_symbol {
		const char *name;
		bool pages;
	} sub_symbols[6];
	/*
	 * A second entry into the traced path, attached beside a step on
	 * the function itself where the kernel has it (also_symbol; NULL:
	 * none): its programs per mechanism, the handler its prototype is
	 * checked against, the ways in it covers, and where those go on a
	 * kernel without it.
	 */
	struct probe_set also[MECH_KPROBE + 1];
	int also_handler;
	const char *also_symbol;
	const char *also_covers;
	const char *also_absent;
	/*
	 * The page cache's batch lookup (batch_symbol; NULL: none), attached
	 * with the sub-probe where the kernel has the symbol: a read that
	 * takes its folios in batches looks up a batch each time, not a
	 * folio. Its programs per mechanism: fentry's with a fentry
	 * sub-probe, the kprobe pair with the others.
	 */
	struct probe_set batch[MECH_KPROBE + 1];
	const char *batch_symbol;
	/*
	 * The traced function the sub-probe's lookups are called from
	 * (NULL: no such check). Where the DWARF has a sub symbol inlined
	 * there, a probe on any symbol misses those lookups; sub_inline_out
	 * names the argument the lookup writes its result through (by name:
	 * its position moves between releases), NULL-terminated.
	 */
	const char *sub_inline_in;
	const char *sub_inline_out[4];
	/* Histograms only the sub-probe measures: unmeasured without it
	 * and at the syscall level, where sub_unseen is what the syscall
	 * boundary does not show ("the folios ... are"). */
	int nsub_hists;
	int sub_hist[FS_MAX_HISTS];
	const char *sub_unseen;
	/* Histograms --lean leaves out. */
	int nlean_hists;
	int lean_hist[FS_MAX_HISTS];
	/* The one histogram a renamed clone (timing only) measures. */
	int latency_hist;
	int missed_counter; /* filled from the kernel's counts of misses */
	/*
	 * Inline step: each argument's size (for a fetch from memory), the
	 * histogram that needs it (-1: none), and the argument whose value
	 * at the exit is the verdict (-1: none).
	 */
	int inline_arg_size[FS_INLINE_NARGS];
	int inline_arg_hist[FS_INLINE_NARGS];
	int inline_verdict_arg;
	int inline_file_arg; /* the file the file filters look at, or -1 */
	/* The caller's latency around an inline site's (-1: none): only an
	 * inline step measures it. */
	int inline_caller_hist;
};

/* The table of target t. */
const struct probe_target *probe_target__get(enum fs_target t);
/* Program set of a handler and mechanism, or NULL. */
const struct probe_set *probe_target__set(const struct probe_target *tg,
					  int handler, enum plan_mech m);
/*
 * Every program tg names exists in obj (the target's opened object);
 * with all, also every program of obj is named by tg. On mismatch why
 * gets the first one and -ENOENT is returned.
 */
int probe_target__check_obj(const struct probe_target *tg,
			    struct bpf_object *obj, bool all, char *why,
			    size_t n);
/* Open tg's skeleton and check it with probe_target__check_obj(all). */
int probe_target__check(const struct probe_target *tg, char *why, size_t n);

#endif /* FS_PROBE_TARGET_H */
