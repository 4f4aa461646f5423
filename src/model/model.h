/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The histogram model: the only place that knows buckets, units and
 * "not measured". Probes fill it (model__add_stats), reporters and compare
 * read it and never touch BPF maps.
 */
#ifndef FS_MODEL_H
#define FS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "shared.h"

enum fs_target {
	FS_TGT_DEDUPE,
	FS_TGT_SHMEM,
	FS_TGT_NR,
};

enum fs_hist_kind {
	FS_KIND_LOG2,  /* buckets [2^(k-1), 2^k - 1] */
	FS_KIND_ALIGN, /* buckets are single powers of two */
};

struct fs_hist_spec {
	const char *name; /* e.g. "bytes", "src_align" */
	const char *unit; /* "bytes" or "ns" */
	enum fs_hist_kind kind;
	const char *help; /* one line describing what is counted */
	/* Absent from reports of versions that did not have it: a JSON
	 * report without it reads as not measured. */
	bool optional;
};

struct fs_counter_spec {
	const char *name; /* "calls", "same", ... */
	/* Absent from reports of versions that did not count it: a JSON
	 * report without it reads as 0. */
	bool optional;
};

struct fs_bucket {
	__u64 lo, hi, count;
};

struct fs_histogram {
	const struct fs_hist_spec *spec;
	bool measured;
	char why[256]; /* set when !measured */
	__u64 slot[FS_SLOTS];
	__u64 count; /* sum of slot[] */
	__u64 sum;   /* sum of recorded values */
};

/* How a target was attached (or why it was not). */
struct fs_attach_info {
	char function[64];  /* the function we want to measure */
	char symbol[128];   /* the symbol we attached to */
	char mechanism[16]; /* "fentry", "kprobe", "none" */
	bool inlined;	    /* function has no symbol of its own */
	char reason[2048];  /* why this step was chosen, and what it sees */
	/* The ways into the target's path the histograms count on this
	 * kernel, and those they miss ("" where the target does not say). */
	char covers[400];
	/* kprobe-inline: the sites probed and the DWARF they came from
	 * (0 and "" for other mechanisms). */
	int inline_sites;
	char dwarf[400];
};

struct fs_target_report {
	bool enabled;
	/* Per-call events were selected: reports show their counts even
	 * when zero. */
	bool events;
	const char *name; /* "dedupe" or "shmem" */
	struct fs_attach_info attach;
	int nhists;
	struct fs_histogram hist[FS_MAX_HISTS];
	int ncounters;
	const struct fs_counter_spec *counter_spec;
	__u64 counter[FS_MAX_COUNTERS];
};

enum fs_kv_type { FS_KV_U64, FS_KV_STR };

struct fs_kv {
	char key[48];
	enum fs_kv_type type;
	__u64 u;
	char s[256];
};

#define FS_MAX_KV 48

/*
 * One failed ground-truth check: what kind of failure (FS_KIND_ANSWER for
 * a wrong status, return value or data; the others name what the kernel
 * did besides answering, e.g. "past ret", "data changed"), and the exact
 * layout that triggered it.
 */
struct fs_case {
	char kind[24];
	char layout[320]; /* e.g. "fs=xfs bs=1024 src_off=1024 ..." */
	char expected[96];
	char got[96];
	int group; /* 1 + its index in fs_validation.groups, 0: none */
};

#define FS_MAX_CASES 64

/* The kernel's answers checked against ground truth. */
#define FS_MAX_SKIPS 16

/*
 * Failures counted by kind, every one of them (cases keeps the first
 * FS_MAX_CASES only); kinds past FS_MAX_KINDS - 1 count as
 * FS_KIND_OTHER.
 */
#define FS_MAX_KINDS 8
#define FS_KIND_OTHER "other kinds"

struct fs_kinds {
	int n;
	struct fs_kind_count {
		char kind[24];
		__u64 count;
	} k[FS_MAX_KINDS];
};

/*
 * The checks of one group of layouts (model__check_group), so that a
 * report can give each group a verdict of its own (KTAP: one test per
 * group). A report of several runs (validate: one group per tier) says
 * in note what each group ran, or why it has no verdict.
 */
/* shmem-read's matrix makes the most: 4 huge= modes x 26 patterns. */
#define FS_MAX_VGROUPS 128
/* Where the checks of group names past FS_MAX_VGROUPS - 1 go. */
#define FS_VGROUP_MORE "more groups"

struct fs_vgroup {
	char name[64];
	__u64 checks, failures;
	struct fs_kinds kinds;
	char note[192];
};

/*
 * A command that replays a failure on its own (shrunk where the run
 * shrinks), e.g. "folioscope run shmem-read --random 3 --seed 7 ...";
 * group as in struct fs_case.
 */
#define FS_MAX_REPLAYS 16

struct fs_replay {
	char cmd[1024];
	int group;
};

struct fs_validation {
	bool ran; /* a validating workload ran */
	__u64 checks;
	__u64 failures;
	struct fs_kinds kinds;
	int ncases; /* first FS_MAX_CASES failures kept */
	struct fs_case cases[FS_MAX_CASES];
	/* Cases kept per group when the report merges runs (model__merge),
	 * so that every group keeps its first ones; 0: the first
	 * FS_MAX_CASES of the run, whatever their group. */
	int cases_per_group;
	int nreplays;
	struct fs_replay replays[FS_MAX_REPLAYS];
	/*
	 * The environment changed under the run (image full, read-only
	 * remount, file truncated by another process): the answers it
	 * spoiled are "unjudged", neither passed nor failed, because they
	 * say nothing about the kernel. "" when undisturbed.
	 */
	char disturbed[192];
	__u64 unjudged;
	/*
	 * Layouts not run because the kernel lacks what they need (an entry
	 * point it does not have: io_uring disabled, RWF_NOWAIT refused):
	 * neither passed nor failed, each with the layout and why.
	 */
	int nskips;
	struct fs_skip {
		char what[64]; /* "plan=seq-64k syscall=io_uring-read" */
		char why[160];
	} skips[FS_MAX_SKIPS];
	/* Groups the checks were made in, and the one they go to now
	 * (1 + index, 0: none). */
	int ngroups;
	int cur_group;
	struct fs_vgroup groups[FS_MAX_VGROUPS];
};

/*
 * One row of a breakdown (trace -P, --by): a process, a cgroup, or the
 * "other" row of the keys past the table's FS_BY_SLOTS.
 */
struct fs_part {
	bool other;
	/* other: how many keys it holds, per target (each target's probes
	 * keep their own table), and whether that is only "at least" (the
	 * kernel's table of keys was full). */
	__u64 nother[FS_TGT_NR];
	bool nother_more[FS_TGT_NR];
	__u32 pid;     /* a process: its pid */
	char comm[16]; /* a process's name; a cgroup's first task's */
	__u64 cgroup_id;
	/* A cgroup's path below the cgroup2 mount ("/" the root), or
	 * ".../NAME" when the cgroup was gone before it could be found. */
	char cgroup[256];
	struct fs_target_report target[FS_TGT_NR];
};

/* A part's key, as the breakdown's owner of an entry tells it. */
struct fs_part_key {
	bool other;
	__u64 nother;
	bool nother_more;
	__u32 pid;
	const char *comm;
	__u64 cgroup_id;
	const char *cgroup;
};

/*
 * One interval of `trace -i`: the events between two reads of the maps,
 * per target, as the deltas of every histogram slot, sum and counter.
 * The intervals of a run add up to its totals.
 */
struct fs_interval_target {
	__u64 slot[FS_MAX_HISTS][FS_SLOTS];
	__u64 count[FS_MAX_HISTS]; /* sum of slot[h][] */
	__u64 sum[FS_MAX_HISTS];
	__u64 counter[FS_MAX_COUNTERS];
};

struct fs_interval {
	__u64 start_ms, end_ms; /* since tracing began */
	struct fs_interval_target target[FS_TGT_NR];
};

/*
 * What trace was told to look at: events outside these were never
 * counted, so a report without them would read as the whole machine.
 * Empty strings and npids 0 mean the filter was not used.
 */
struct fs_filters {
	int npids;
	__u32 pids[FS_MAX_PIDS]; /* -p */
	char comm[16];		 /* --comm */
	char cgroup[512];	 /* --cgroup: the directories as given,
				  * ", " between them */
	char dev[128];		 /* --dev, as given: a path or MAJ:MIN */
	char fs[16];		 /* --fs */
	char command[256];	 /* trace -- CMD: the command line */
};

/*
 * Folio coverage of a run: which folio sizes each target met in each group
 * of layouts (one filesystem and block size of the dedupe workload, one
 * huge= mount of shmem-read), from the folio_size histogram's events of
 * that group alone. large says whether the kernel puts large folios in
 * that group's page cache (1 yes, 0 no, -1 not judged), large_why the
 * fact it rests on.
 */
#define FS_MAX_COV 16

struct fs_cov_group {
	char name[32]; /* "xfs bs=1024", "tmpfs huge=always" */
	int large;
	char large_why[160];
	/* The targets traced in this group (a report of several runs may
	 * trace one workload's target in a group and the other's in
	 * another). */
	bool traced[FS_TGT_NR];
	__u64 slot[FS_TGT_NR][FS_SLOTS]; /* folio_size, this group only */
};

struct fs_coverage {
	/* A large-folio gap is a warning: the run was a matrix, which is
	 * there to cover the compare (one layout of the user's is not). */
	bool warn;
	int ngroups;
	struct fs_cov_group g[FS_MAX_COV];
};

/* One folio size met and how many folios of it. */
struct fs_cov_size {
	__u64 size, count;
};

/*
 * Where the report was made when that was a guest of `folioscope vm`,
 * which tells its init on the kernel's command line: how qemu ran it,
 * and how many times the guest was booted again because its kernel died
 * before the guest's init started. accel "" = not in such a guest.
 */
struct fs_vm_facts {
	char accel[16]; /* "tcg", "kvm" */
	__u64 reboots;
};

struct fs_report {
	char tool_version[32];
	char kernel[128];
	char machine[64];
	__u64 page_size;
	struct fs_vm_facts vm;
	struct fs_target_report target[FS_TGT_NR];
	/* Workload's own totals and parameters; name is "" when none ran. */
	char workload_name[32];
	int nkv;
	struct fs_kv kv[FS_MAX_KV];
	struct fs_validation validation;
	struct fs_coverage coverage;
	struct fs_filters filters;
	/* A breakdown by process or cgroup (FS_BY_NONE: none), its rows
	 * heap-allocated; model__free releases them. */
	enum fs_by by;
	int nparts;
	struct fs_part *parts;
	/* trace -i: every interval, oldest first, heap-allocated;
	 * model__free releases it. */
	int nintervals;
	struct fs_interval *intervals;
};

/* Fill host facts (in a vm guest, its FOLIOSCOPE_VM_ACCEL and
 * FOLIOSCOPE_VM_BOOT) and the static histogram specs of every target. */
void model__init(struct fs_report *r);
/* Free what the report allocated (the breakdown's rows, the intervals). */
void model__free(struct fs_report *r);
/* Add a key's stats for target t to r's breakdown (r->by says what keys
 * are; merged by pid or cgroup id, "other" into one row). Returns 0 or
 * -ENOMEM. */
int model__part_add(struct fs_report *r, const struct fs_part_key *k,
		    enum fs_target t, const struct fs_stats *st);
/* The breakdown's names: "process", "cgroup"; NULL for FS_BY_NONE. */
const char *model__by_name(enum fs_by by);
/*
 * Append the interval [start_ms, end_ms] holding the events of delta (a
 * report of one interval). Returns 0 or -ENOMEM (r unchanged).
 */
int model__interval_add(struct fs_report *r, __u64 start_ms, __u64 end_ms,
			const struct fs_report *delta);
/* Move src's intervals to dst (which must have none). */
void model__intervals_move(struct fs_report *dst, struct fs_report *src);
/*
 * Whether r's intervals add up to its totals, for every slot, sum and
 * counter of every enabled target; if not, where they differ in why.
 * True for a report without intervals.
 */
bool model__intervals_add_up(const struct fs_report *r, char *why, size_t n);
/*
 * Set every enabled target's histograms (measured ones) and counters to
 * the sum of r's intervals: the totals as of the last interval's end.
 */
void model__totals_from_intervals(struct fs_report *r);
/* Mark a target enabled/disabled. */
void model__enable(struct fs_report *r, enum fs_target t, bool on);
/* Mark one histogram of a target as not measured, with the reason. */
void model__not_measured(struct fs_report *r, enum fs_target t, int hist,
			 const char *why);
/* Add one CPU's (or an already summed) stats value into a target. */
void model__add_stats(struct fs_report *r, enum fs_target t,
		      const struct fs_stats *st);
/* a += b, element-wise (summing CPUs or processes). */
void model__stats_add(struct fs_stats *a, const struct fs_stats *b);
/* a -= b, element-wise: the events between two snapshots of the
 * (only ever growing) kernel counters. */
void model__stats_sub(struct fs_stats *a, const struct fs_stats *b);
/* Index of the counter named name in target t, or -1. */
int model__counter_index(const struct fs_report *r, enum fs_target t,
			 const char *name);
/* Index of the counter / the histogram named name in tr, or -1. */
int model__counter_of(const struct fs_target_report *tr, const char *name);
int model__hist_of(const struct fs_target_report *tr, const char *name);

/* Bucket slot of histogram h into b: its count and its lo/hi bounds
 * (slot 0 is 0; align histograms have lo == hi; the last slot's hi is
 * ~0). Reporters print the slots model__range returns. */
void model__bucket(const struct fs_histogram *h, int slot, struct fs_bucket *b);
/* First and last non-empty slot; returns false if the histogram is empty. */
bool model__range(const struct fs_histogram *h, int *first, int *last);

/* Whether any filter is set. */
bool model__filtered(const struct fs_filters *f);
/* The filters in one line ("pid 12, 13; comm dd; ..."), "none" if unset. */
void model__filters_text(const struct fs_filters *f, char *buf, size_t n);

/* Workload key/values. */
void model__kv_u64(struct fs_report *r, const char *key, __u64 v);
void model__kv_str(struct fs_report *r, const char *key, const char *s);
const struct fs_kv *model__kv_find(const struct fs_report *r, const char *key);

/* The kind of a failed check that is a plain wrong answer. */
#define FS_CASE_ANSWER "wrong answer"

/* Count one ground-truth check; on failure keep the case (up to
 * FS_MAX_CASES) as kind FS_CASE_ANSWER. */
void model__check(struct fs_report *r, bool ok, const char *layout,
		  const char *expected, const char *got);
/* The same with the failure's kind, e.g. "past ret", "position". */
void model__check_kind(struct fs_report *r, bool ok, const char *kind,
		       const char *layout, const char *expected,
		       const char *got);
/* Count n ground-truth checks that passed. */
void model__checks_passed(struct fs_report *r, __u64 n);
/*
 * The checks from now on belong to group name, the layouts one verdict
 * covers (dedupe: a filesystem and block size, "xfs bs=1024"; shmem-read:
 * a mount and a read pattern, "tmpfs huge=always plan=seq-64k"); NULL:
 * to none. A name met before takes them as well; past FS_MAX_VGROUPS - 1
 * names, the last group, FS_VGROUP_MORE, takes the rest.
 */
void model__check_group(struct fs_report *r, const char *name);

/* Count n failures of kind in k (a kind past FS_MAX_KINDS - 1 as
 * FS_KIND_OTHER). */
void model__kinds_add(struct fs_kinds *k, const char *kind, __u64 n);
/* How many failures of kind k holds (0: none). */
__u64 model__kinds_count(const struct fs_kinds *k, const char *kind);

/* Set the note of group name (made when new), printf-style. */
void model__group_note(struct fs_report *r, const char *name, const char *fmt,
		       ...) __attribute__((format(printf, 3, 4)));

/* A command that replays a failure, in the current group (kept up to
 * FS_MAX_REPLAYS). */
void model__replay(struct fs_report *r, const char *cmd);

/* How one run joins a report of several (model__merge). */
struct fs_merge {
	const char *group; /* the group its checks go to */
	int max_cases;	   /* of its failed checks, the first ones kept */
	int max_replays;   /* of its replays, the first ones kept */
};

/*
 * Add report src, one run, to dst as group m->group: its histograms and
 * counters (target by target; one not yet in dst is taken whole), its
 * checks, failures and kinds (all in the group), its first cases and
 * replays, its skips (once per what), disturbance and coverage groups
 * (by name). Key/values are the caller's: they describe one run.
 * Returns 0, or -ENOSPC when a coverage group did not fit (the rest
 * merged).
 */
int model__merge(struct fs_report *dst, const struct fs_report *src,
		 const struct fs_merge *m);

/* A layout not run because the kernel lacks what it needs (kept once
 * per what, FS_MAX_SKIPS at most). */
void model__skip(struct fs_report *r, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The environment disturbed the run: keep the first reason, count the
 * answers it kept from being judged. */
void model__disturbed(struct fs_report *r, __u64 unjudged, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Append coverage group name: target t's folio_size events in delta (a
 * report of that group's events only) for every target enabled there;
 * a group of that name already there takes them as well (random layouts
 * end a group each, many on one filesystem and block size). large and
 * why: see struct fs_cov_group, the first group's stand. -ENOSPC past
 * FS_MAX_COV groups.
 */
int model__coverage_add(struct fs_report *r, const char *name, int large,
			const char *why, const struct fs_report *delta);
/* The folio_size histogram of target t (NULL when it has none). */
const struct fs_histogram *model__folio_hist(const struct fs_report *r,
					     enum fs_target t);
/*
 * The folio sizes target t met in group g, smallest first (at most max):
 * returns how many, 0 when it met none, -1 when the target is off or its
 * folio_size is not measured (the histogram's why says why). Folios are
 * a power of two bytes, so each met size is its log2 bucket's low end.
 */
int model__coverage_sizes(const struct fs_report *r, int g, enum fs_target t,
			  struct fs_cov_size *out, int max);
/*
 * Group g is a large-folio gap for target t: the kernel makes large
 * folios there (large == 1), t measured folios and met some, and none
 * was larger than a page.
 */
bool model__coverage_gap(const struct fs_report *r, int g, enum fs_target t);
/* Group g warns: the coverage warns on gaps and g is one for a target. */
bool model__coverage_warning(const struct fs_report *r, int g);

const char *model__target_name(enum fs_target t);
int model__target_from_name(const char *name); /* -1 if unknown */
/* Index of target t's histogram named name, or -1. */
int model__hist_index(enum fs_target t, const char *name);

#endif /* FS_MODEL_H */
