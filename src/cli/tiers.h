/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The tiers of `folioscope validate` (tiers.c): which runs validate a
 * kernel, in what order, with what share of the time budget, and their
 * reports made one, a group per tier.
 */
#ifndef FS_CLI_TIERS_H
#define FS_CLI_TIERS_H

#include <stdbool.h>
#include <linux/types.h>
#include "model/model.h"

/* Operations per sequence when --ops is not given: the budget, not N,
 * ends the tier. */
#define TIERS_OPS_DEFAULT 100000

struct tier_opts {
	__u64 seed;
	__u64 budget_ms;
	unsigned int random, ops; /* N of --random, --ops */
	unsigned int kinds;	  /* bit per enum wl_kind; 0: all */
	unsigned int modes;	  /* bit per tier mode; 0: all */
	/* Passed on to every run (NULL: not given). */
	const char *mode, *btf, *debuginfo;
	bool verbose;
};

struct tiers;

/* --only WORKLOAD ("shmem", "dedupe") into a bit of enum wl_kind. */
int tiers__parse_only(const char *s, unsigned int *kinds);
/* --tiers LIST ("matrix,random,ops", any of them) into mode bits. */
int tiers__parse_modes(const char *s, unsigned int *modes);

/* Make the runs' work dir; returns 0 or -errno (printed). */
int tiers__open(struct tiers **out, const struct tier_opts *o);
/*
 * Run every chosen tier in turn, each a `folioscope run` child whose
 * report is merged into r as the tier's group (model__merge), with the
 * tier's note, replays and, for a tier without a report, a failed check
 * of kind "no verdict". Then r's workload values: the seed, the budget,
 * the time taken, reconcile and kernel_log over the tiers, the ways
 * into a read no tier reached. Stops early (the tiers not run noted)
 * on SIGINT/SIGTERM/SIGHUP. Returns 0, or -errno when nothing could be
 * run (printed).
 */
int tiers__run(struct tiers *t, struct fs_report *r);
/* The exit status of the whole: 1 failures, a disturbed tier or a
 * reconcile mismatch; 4 nothing checked; else 0. */
int tiers__status(const struct tiers *t, const struct fs_report *r);
/* Remove the work dir (NULL: nothing). */
void tiers__destroy(struct tiers *t);

#endif /* FS_CLI_TIERS_H */
