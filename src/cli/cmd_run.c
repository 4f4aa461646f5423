// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * folioscope run WORKLOAD: set the workload up, attach, run its traced
 * phase, report, and reconcile the histograms with the workload's own
 * totals (calls issued = calls seen, bytes moved = bytes summed). Exits 1
 * on a tracing mismatch or any failed ground-truth check.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include "commands.h"
#include "common.h"
#include "evopts.h"
#include "events/events.h"
#include "util/parse.h"
#include "progress.h"
#include "runguard.h"
#include "session/session.h"
#include "workload/workload.h"
#include "util/err.h"

/* Options that belong to one workload or are a layout of their own. */
enum opt_class {
	OC_DEDUPE = 1,	 /* dedupe only */
	OC_SHMEM = 2,	 /* shmem-read only */
	OC_LAYOUT = 4,	 /* a layout: not with --matrix */
	OC_NOT_SEED = 8, /* not with --files (the seed's own layout) */
};

struct run_args {
	struct common_opts c;
	struct events_cli ev;
	const char *workload; /* as given, NULL until it is */
	struct wl_opts w;
	/* The modes asked for, checked against each other before one is
	 * set in w.mode; --ops-only's list as given, and parsed. */
	bool matrix, rwf_given;
	const char *ops_only;
	__u32 *ops_idx;
	bool kmsg_user;
	bool quiet;	  /* -q: no header lines before the events */
	const char *ktap; /* --ktap FILE, "-" = stdout */
	/* The first option given of each class, for conflict errors. */
	const char *first[16];
	bool seed_set;
};

enum {
	OPT_HUGE = 0x100,
	OPT_FS,
	OPT_DIR,
	OPT_RANGE,
	OPT_COUNT,
	OPT_SIZE,
	OPT_BS,
	OPT_MATRIX,
	OPT_INJECT,
	OPT_INJECT_STUCK,
	OPT_BLOCK_SIZE,
	OPT_SRC_OFF,
	OPT_DST_OFF,
	OPT_DESTS,
	OPT_SAME_FILE,
	OPT_DIFFER,
	OPT_COLD,
	OPT_FILES,
	OPT_FILE_SIZE,
	OPT_FILL,
	OPT_OFFSET,
	OPT_LENGTH,
	OPT_BUF_ALIGN,
	OPT_SYSCALL,
	OPT_RWF,
	OPT_IOVECS,
	OPT_READERS,
	OPT_JOBS,
	OPT_REPEAT,
	OPT_SCHEDULE,
	OPT_REPLAY,
	OPT_BUF_TMPFS,
	OPT_THROUGHPUT,
	OPT_IMAGE_SIZE,
	OPT_STOP_AFTER,
	OPT_DEADLINE_BASE,
	OPT_KMSG_USER,
	OPT_RANDOM,
	OPT_SEED,
	OPT_OPS,
	OPT_OPS_ONLY,
	OPT_NO_LARGE_LAYOUTS,
	OPT_KTAP,
	OPT_TIME_LIMIT,
};

/* --dests' help spells out the workload's destination limit. */
_Static_assert(DD_MAX_DESTS == 16, "update --dests' help");

/* --iovecs' help spells out the syscall level's iovec limit. */
_Static_assert(FS_MAX_IOVECS == 64, "update --iovecs' help and messages");

static const struct argp_option options[] = {
	{ "quiet", 'q', NULL, 0,
	  "no header lines before the events (their columns, what the attach "
	  "level does not see)",
	  0 },
	{ "matrix", OPT_MATRIX, NULL, 0,
	  "run the default matrix of layouts (see docs/validation.md) instead "
	  "of one",
	  0 },
	{ "random", OPT_RANDOM, "N", 0,
	  "run N layouts drawn at random (1 .. 256) instead of one; a failing "
	  "one is shrunk and printed as the command that replays it",
	  0 },
	{ "ops", OPT_OPS, "N", 0,
	  "run N operations drawn at random (writes, truncates, fallocate, "
	  "punched holes, mmap writes, reads; dedupe: FIDEDUPERANGE, "
	  "FICLONERANGE, copy_file_range) on a few files, each checked "
	  "against a model of the files; a failing sequence is shrunk and "
	  "printed as the command that replays it",
	  0 },
	{ "ops-only", OPT_OPS_ONLY, "LIST", 0,
	  "--ops: run only these operations of the N (ascending indices, "
	  "comma-separated: a shrunk sequence's replay)",
	  0 },
	{ "jobs", OPT_JOBS, "J", 0,
	  "--ops: one thread runs the operations while J - 1 readers read "
	  "the same files by every way in, each read checked against every "
	  "version of the file its call could have seen; dedupe adds a store "
	  "into a destination of each FIDEDUPERANGE while it runs (2 .. 17; "
	  "default 1: the operations alone)",
	  0 },
	{ "repeat", OPT_REPEAT, "K", 0,
	  "--ops --jobs: run the sequence K times from fresh files (1 .. "
	  "1000): how often a race is caught (ops_repeats_failed of "
	  "ops_repeat)",
	  0 },
	{ "schedule", OPT_SCHEDULE, "FILE", 0,
	  "--ops --jobs: write when each reader's reads began (the version "
	  "of the files each began after) to FILE, for --replay",
	  0 },
	{ "replay", OPT_REPLAY, "FILE", 0,
	  "--ops --jobs: make the reads of FILE's schedule, each once the "
	  "operations it began after are done and before the next begins",
	  0 },
	{ "seed", OPT_SEED, "S", 0,
	  "--random, --ops: draw from seed S (default: a fresh one, printed)",
	  0 },
	{ "time-limit", OPT_TIME_LIMIT, "DURATION", 0,
	  "--random, --ops: draw no more layouts or operations after "
	  "DURATION (90s, 10m); the report says how many ran "
	  "(random_ran, ops_run), which a replay with that N repeats",
	  0 },
	{ "ktap", OPT_KTAP, "FILE", 0,
	  "also write the verdicts as KTAP version 1 to FILE (atomically): "
	  "a test per group of layouts with its checks as subtests, a "
	  "skipped one per layout the kernel cannot run, and reconcile; - "
	  "is stdout, and the report goes to stderr",
	  0 },
	/* Debug: proves the checker can fail (tests/vm/validation.sh). */
	{ "inject-wrong-expectation", OPT_INJECT, NULL, OPTION_HIDDEN,
	  "flip the first expected answer", 0 },
	/* Debug: a stuck racing read whose report must reach the host
	 * (tests/vm/validation.sh). */
	{ "inject-stuck-reader", OPT_INJECT_STUCK, NULL, OPTION_HIDDEN,
	  "--ops --jobs: racing reader 1's first read never returns", 0 },
	/* Debug: a fixed point to disturb a run at (tests/host/faults.sh). */
	{ "stop-after", OPT_STOP_AFTER, "N", OPTION_HIDDEN,
	  "SIGSTOP after N dedupe cases or read calls", 0 },
	/* Debug: short deadlines for the watchdog's tests. */
	{ "deadline-base", OPT_DEADLINE_BASE, "SECONDS", OPTION_HIDDEN,
	  "every layout's deadline starts from SECONDS (default 30)", 0 },
	/* Debug: lets a test write the complaint (tests/host/fakes.sh). */
	{ "kmsg-user", OPT_KMSG_USER, NULL, OPTION_HIDDEN,
	  "kernel log: records of user space count too", 0 },
	/* Debug: a matrix without its large-folio layouts, to show the
	 * coverage warning (tests/vm/validation.sh). */
	{ "no-large-folio-layouts", OPT_NO_LARGE_LAYOUTS, NULL, OPTION_HIDDEN,
	  "dedupe --matrix: leave out the large-folio layouts", 0 },
	{ NULL, 0, NULL, 0, "dedupe:", 1 },
	{ "fs", OPT_FS, "btrfs|xfs", 0,
	  "filesystem to make on a loop image (--matrix: all)", 1 },
	{ "block-size", OPT_BLOCK_SIZE, "BYTES", 0,
	  "xfs block size (mkfs.xfs -b size=), 1024 .. page size", 1 },
	{ "dir", OPT_DIR, "DIR", 0,
	  "use DIR on btrfs/xfs instead of a loop image", 1 },
	{ "image-size", OPT_IMAGE_SIZE, "BYTES", 0,
	  "size of each loop image, at least 320M (default: twice the data "
	  "+ 128M)",
	  1 },
	{ "range", OPT_RANGE, "BYTES", 0,
	  "bytes per dedupe range (default 128K; --files: the file size)", 1 },
	{ "count", OPT_COUNT, "N", 0,
	  "consecutive ranges, one FIDEDUPERANGE each (default 64)", 1 },
	{ "src-off", OPT_SRC_OFF, "BYTES", 0, "first source offset (default 0)",
	  1 },
	{ "dst-off", OPT_DST_OFF, "BYTES", 0,
	  "first destination offset (default: --src-off, or after the "
	  "source ranges with --same-file)",
	  1 },
	{ "dests", OPT_DESTS, "N", 0,
	  "destinations per ioctl, 1 .. 16 (default 1)", 1 },
	{ "same-file", OPT_SAME_FILE, NULL, 0,
	  "destinations are ranges of the source file", 1 },
	{ "differ", OPT_DIFFER, "WHERE", 0,
	  "one byte differs per destination range: none, first, middle, "
	  "word-end, word-start, last, past (just past what is compared)",
	  1 },
	{ "cold", OPT_COLD, NULL, 0, "drop the files' pages before the dedupe",
	  1 },
	{ "files", OPT_FILES, "N", 0,
	  "seed workload: N identical files, deduped against the first", 1 },
	{ "file-size", OPT_FILE_SIZE, "BYTES", 0,
	  "size of each file (--files: default 4M; else: just the ranges)", 1 },
	{ NULL, 0, NULL, 0, "shmem-read:", 2 },
	{ "huge", OPT_HUGE, "MODE", 0,
	  "tmpfs huge=always|never|within_size|advise", 2 },
	{ "fill", OPT_FILL, "HOW", 0,
	  "file contents: full, sparse (holes), mixed (2M chunks + sparse "
	  "4K tail), fallocated (fallocated, never written: zeros), "
	  "fallocated-keep-size (the size set, then fallocated with "
	  "KEEP_SIZE over it and past it), hole (the size set, nothing "
	  "else) (default full)",
	  2 },
	{ "size", OPT_SIZE, "BYTES", 0, "file size (default 16M)", 2 },
	{ "bs", OPT_BS, "BYTES", 0, "bytes per read call (default 64K)", 2 },
	{ "offset", OPT_OFFSET, "BYTES", 0,
	  "first file position read (default 0)", 2 },
	{ "length", OPT_LENGTH, "BYTES", 0, "bytes to read (default: to EOF)",
	  2 },
	{ "buf-align", OPT_BUF_ALIGN, "N", 0,
	  "user buffer = page-aligned base + N (default 0)", 2 },
	{ "syscall", OPT_SYSCALL, "CALL", 0, WL_WAY_NAMES " (default read)",
	  2 },
	{ "rwf", OPT_RWF, "FLAG", 0, "preadv2: none (default), nowait or hipri",
	  2 },
	{ "iovecs", OPT_IOVECS, "K", 0,
	  "readv, preadv2, io_uring-readv: iovecs per call, 1 .. 64", 2 },
	{ "readers", OPT_READERS, "N", 0, "concurrent reader threads, 1 .. 64",
	  2 },
	{ "buf-tmpfs", OPT_BUF_TMPFS, NULL, 0,
	  "user buffers mapped from a tmpfs file (memfd, MAP_SHARED) and "
	  "unmapped before every call: each copy faults them in",
	  2 },
	{ "throughput", OPT_THROUGHPUT, "N", OPTION_ARG_OPTIONAL,
	  "first N timed passes (default 3, at most 32) of --syscall read or "
	  "pread over the file, nothing checked or traced, as lean as fio's "
	  "psync, then the checked pass; reports mb_per_s and cpu_us_per_gib "
	  "of the middle pass",
	  2 },
	{},
};

/* A count that must fit an unsigned int and be at most max. */
static unsigned int parse_count(const struct argp_state *st, const char *name,
				const char *arg, __u64 max)
{
	__u64 v = 0;
	int err = count__parse(arg, true, max, &v);

	if (err == -ERANGE)
		cli__usage_error(st, "%s %s is too large (at most %llu)", name,
				 arg, (unsigned long long)max);
	if (err)
		cli__usage_error(st, "invalid %s '%s'", name, arg);
	return (unsigned int)v;
}

static __u64 parse_bytes(const struct argp_state *st, const char *name,
			 const char *arg, bool zero)
{
	__u64 v = 0;

	if (size__parse(arg, zero, &v))
		cli__usage_error(st, "invalid size '%s' for %s", arg, name);
	return v;
}

static void note(struct run_args *a, unsigned int cls, const char *name)
{
	for (int b = 0; b < 4; b++)
		if (cls & (1u << b) && !a->first[b])
			a->first[b] = name;
}

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct run_args *a = st->input;
	struct wl_opts *w = &a->w;

	switch (key) {
	case ARGP_KEY_INIT:
		common_opts_target = &a->c;
		st->child_inputs[1] = &a->ev; /* children[1] */
		break;
	case OPT_MATRIX:
		a->matrix = true;
		break;
	case OPT_RANDOM:
		w->random = parse_count(st, "--random", arg, WL_RANDOM_MAX);
		if (!w->random)
			cli__usage_error(st,
					 "--random needs at least 1 layout");
		break;
	case OPT_OPS:
		w->ops = parse_count(st, "--ops", arg, WL_OPS_MAX);
		if (!w->ops)
			cli__usage_error(st,
					 "--ops needs at least 1 operation");
		break;
	case OPT_OPS_ONLY:
		a->ops_only = arg;
		break;
	case OPT_SCHEDULE:
		w->ops_schedule = arg;
		break;
	case OPT_REPLAY:
		w->ops_replay = arg;
		break;
	case OPT_REPEAT:
		w->ops_repeat =
			parse_count(st, "--repeat", arg, WL_OPS_MAX_REPEAT);
		break;
	case OPT_JOBS:
		w->ops_jobs = parse_count(st, "--jobs", arg, WL_OPS_MAX_JOBS);
		break;
	case OPT_SEED: {
		char *end;

		errno = 0;
		w->seed = strtoull(arg, &end, 0);
		if (errno || end == arg || *end || *arg == '-')
			cli__usage_error(st, "invalid --seed '%s'", arg);
		a->seed_set = true;
		break;
	}
	case OPT_INJECT:
		w->inject_wrong = true;
		break;
	case OPT_INJECT_STUCK:
		w->inject_stuck_reader = true;
		break;
	case OPT_TIME_LIMIT: {
		__u64 ns;

		if (duration__parse(arg, &ns))
			cli__usage_error(st,
					 "invalid --time-limit '%s' (want a "
					 "duration with a unit: 90s, 10m)",
					 arg);
		w->time_limit_ms = ns / 1000000 ?: 1;
		break;
	}
	case OPT_FS:
		if (wl_fstype__parse(arg) <= WL_FSTYPE_ANY)
			cli__usage_error(st, "unknown --fs '%s' (btrfs, xfs)",
					 arg);
		w->fstype = (enum wl_fstype)wl_fstype__parse(arg);
		note(a, OC_DEDUPE, "--fs");
		break;
	case OPT_BLOCK_SIZE:
		w->block_size = parse_count(st, "--block-size", arg, 65536);
		note(a, OC_DEDUPE, "--block-size");
		break;
	case OPT_DIR:
		w->dir = arg;
		note(a, OC_DEDUPE, "--dir");
		break;
	case OPT_IMAGE_SIZE:
		w->image_size = parse_bytes(st, "--image-size", arg, false);
		note(a, OC_DEDUPE, "--image-size");
		break;
	case OPT_STOP_AFTER:
		w->stop_after = parse_count(st, "--stop-after", arg, 1000000);
		break;
	case OPT_DEADLINE_BASE:
		w->deadline_base =
			parse_count(st, "--deadline-base", arg, 86400);
		break;
	case OPT_KMSG_USER:
		a->kmsg_user = true;
		break;
	case OPT_NO_LARGE_LAYOUTS:
		w->no_large_layouts = true;
		note(a, OC_DEDUPE, "--no-large-folio-layouts");
		break;
	case 'q':
		a->quiet = true;
		break;
	case OPT_KTAP:
		cli__check_output(arg);
		a->ktap = arg;
		break;
	case OPT_RANGE:
		w->range = parse_bytes(st, "--range", arg, false);
		note(a, OC_DEDUPE | OC_LAYOUT, "--range");
		break;
	case OPT_COUNT:
		w->count = parse_count(st, "--count", arg, 1000000);
		note(a, OC_DEDUPE | OC_LAYOUT | OC_NOT_SEED, "--count");
		break;
	case OPT_SRC_OFF:
		w->src_off = parse_bytes(st, "--src-off", arg, true);
		note(a, OC_DEDUPE | OC_LAYOUT | OC_NOT_SEED, "--src-off");
		break;
	case OPT_DST_OFF:
		w->dst_off = parse_bytes(st, "--dst-off", arg, true);
		w->dst_off_set = true;
		note(a, OC_DEDUPE | OC_LAYOUT | OC_NOT_SEED, "--dst-off");
		break;
	case OPT_DESTS:
		w->dests = parse_count(st, "--dests", arg, DD_MAX_DESTS);
		note(a, OC_DEDUPE | OC_LAYOUT, "--dests");
		break;
	case OPT_SAME_FILE:
		w->same_file = true;
		note(a, OC_DEDUPE | OC_LAYOUT | OC_NOT_SEED, "--same-file");
		break;
	case OPT_DIFFER:
		if (dd_diff__parse(arg) < 0)
			cli__usage_error(
				st,
				"unknown --differ '%s' (none, first, middle, "
				"word-end, word-start, last, past)",
				arg);
		w->differ = (enum dd_diff)dd_diff__parse(arg);
		note(a, OC_DEDUPE | OC_LAYOUT | OC_NOT_SEED, "--differ");
		break;
	case OPT_COLD:
		w->cold = true;
		note(a, OC_DEDUPE | OC_LAYOUT, "--cold");
		break;
	case OPT_FILES:
		w->files = parse_count(st, "--files", arg, 1000000);
		note(a, OC_DEDUPE | OC_LAYOUT, "--files");
		break;
	case OPT_FILE_SIZE:
		w->file_size = parse_bytes(st, "--file-size", arg, false);
		note(a, OC_DEDUPE | OC_LAYOUT, "--file-size");
		break;
	case OPT_HUGE:
		if (wl_huge__parse(arg) < 0)
			cli__usage_error(st, "unknown --huge '%s'", arg);
		w->huge = (enum wl_huge)wl_huge__parse(arg);
		note(a, OC_SHMEM | OC_LAYOUT, "--huge");
		break;
	case OPT_FILL:
		if (sh_fill__parse(arg) < 0)
			cli__usage_error(
				st,
				"unknown --fill '%s' (full, sparse, mixed, "
				"fallocated, fallocated-keep-size, hole)",
				arg);
		w->fill = (enum sh_fill)sh_fill__parse(arg);
		note(a, OC_SHMEM | OC_LAYOUT, "--fill");
		break;
	case OPT_SIZE:
		w->size = parse_bytes(st, "--size", arg, false);
		note(a, OC_SHMEM | OC_LAYOUT, "--size");
		break;
	case OPT_BS:
		w->bs = parse_bytes(st, "--bs", arg, false);
		note(a, OC_SHMEM | OC_LAYOUT, "--bs");
		break;
	case OPT_OFFSET:
		w->offset = parse_bytes(st, "--offset", arg, true);
		note(a, OC_SHMEM | OC_LAYOUT, "--offset");
		break;
	case OPT_LENGTH:
		w->length = parse_bytes(st, "--length", arg, false);
		note(a, OC_SHMEM | OC_LAYOUT, "--length");
		break;
	case OPT_BUF_ALIGN:
		w->buf_align = parse_bytes(st, "--buf-align", arg, true);
		note(a, OC_SHMEM | OC_LAYOUT, "--buf-align");
		break;
	case OPT_SYSCALL:
		if (wl_way__parse(arg) < 0)
			cli__usage_error(
				st, "unknown --syscall '%s' (" WL_WAY_NAMES ")",
				arg);
		w->way = (enum wl_way)wl_way__parse(arg);
		note(a, OC_SHMEM | OC_LAYOUT, "--syscall");
		break;
	case OPT_RWF:
		if (wl_rwf__parse(arg) < 0)
			cli__usage_error(st,
					 "unknown --rwf '%s' (none, nowait, "
					 "hipri)",
					 arg);
		w->rwf = wl_rwf__parse(arg);
		a->rwf_given = true;
		note(a, OC_SHMEM | OC_LAYOUT, "--rwf");
		break;
	case OPT_BUF_TMPFS:
		w->buf_tmpfs = true;
		note(a, OC_SHMEM, "--buf-tmpfs");
		break;
	case OPT_THROUGHPUT:
		w->throughput = arg ? parse_count(st, "--throughput", arg,
						  WL_TPUT_MAX_PASSES)
				    : 3;
		note(a, OC_SHMEM | OC_LAYOUT, "--throughput");
		break;
	case OPT_IOVECS:
		w->iovecs = parse_count(st, "--iovecs", arg, FS_MAX_IOVECS);
		note(a, OC_SHMEM | OC_LAYOUT, "--iovecs");
		break;
	case OPT_READERS:
		w->readers = parse_count(st, "--readers", arg, SH_MAX_READERS);
		note(a, OC_SHMEM | OC_LAYOUT, "--readers");
		break;
	case ARGP_KEY_ARG:
		if (a->workload)
			cli__usage_error(st, "one workload at a time");
		if (wl_kind__parse(arg) < 0)
			cli__usage_error(
				st,
				"unknown workload '%s' (dedupe, shmem-read)",
				arg);
		a->workload = arg;
		w->kind = (enum wl_kind)wl_kind__parse(arg);
		break;
	case ARGP_KEY_END:
		if (!a->workload)
			cli__usage_error(
				st, "which workload? (dedupe, shmem-read)");
		/* Indices: bit numbers of enum opt_class. */
		if (w->kind == WL_DEDUPE && a->first[1])
			cli__usage_error(st, "%s is a shmem-read option",
					 a->first[1]);
		if (w->kind != WL_DEDUPE && a->first[0])
			cli__usage_error(st, "%s is a dedupe option",
					 a->first[0]);
		if (a->matrix && a->first[2])
			cli__usage_error(
				st, "--matrix runs its own layouts; drop %s",
				a->first[2]);
		if (w->random && (a->matrix || w->files || a->first[2]))
			cli__usage_error(
				st, "--random draws its own layouts; drop %s",
				a->matrix  ? "--matrix"
				: w->files ? "--files"
					   : a->first[2]);
		if (w->random && w->dir)
			cli__usage_error(st, "--random makes its own loop "
					     "images; drop --dir");
		/* Debug options of one layout: with several, which? */
		if (w->random && (w->inject_wrong || w->stop_after))
			cli__usage_error(st,
					 "--random runs several layouts; "
					 "drop %s",
					 w->inject_wrong
						 ? "--inject-wrong-expectation"
						 : "--stop-after");
		if (w->ops && (w->random || a->matrix || w->files ||
			       a->first[2] || w->inject_wrong || w->stop_after))
			cli__usage_error(
				st, "--ops runs its own operations; drop %s",
				w->random	  ? "--random"
				: a->matrix	  ? "--matrix"
				: w->files	  ? "--files"
				: a->first[2]	  ? a->first[2]
				: w->inject_wrong ? "--inject-wrong-expectation"
						  : "--stop-after");
		if (a->ops_only && !w->ops)
			cli__usage_error(st, "--ops-only needs --ops");
		if (w->ops_jobs > 1 && !w->ops)
			cli__usage_error(st, "--jobs needs --ops");
		if (w->inject_stuck_reader && w->ops_jobs < 2)
			cli__usage_error(st,
					 "--inject-stuck-reader needs --ops "
					 "and --jobs");
		if ((w->ops_schedule || w->ops_replay) && w->ops_jobs < 2)
			cli__usage_error(st, "%s needs --ops and --jobs",
					 w->ops_schedule ? "--schedule"
							 : "--replay");
		if ((w->ops_schedule || w->ops_replay) && w->ops_repeat > 1)
			cli__usage_error(st,
					 "%s runs the sequence once; drop "
					 "--repeat",
					 w->ops_schedule ? "--schedule"
							 : "--replay");
		if (w->ops_repeat > 1 && w->ops_jobs < 2)
			cli__usage_error(st, "--repeat needs --ops and --jobs "
					     "(alone, a sequence runs the same "
					     "every time)");
		if (a->rwf_given && w->way != WL_WAY_PREADV2)
			cli__usage_error(st, "--rwf needs --syscall preadv2");
		/* The timed passes read the whole file in order into one
		 * buffer, as fio's psync engine does. */
		if (w->throughput && w->way != WL_WAY_READ &&
		    w->way != WL_WAY_PREAD)
			cli__usage_error(st,
					 "--throughput reads with --syscall "
					 "read or pread, not %s",
					 wl_way__name(w->way));
		if (w->throughput &&
		    (w->readers > 1 || w->offset || w->length || w->buf_align ||
		     w->iovecs > 1 || w->buf_tmpfs))
			cli__usage_error(st,
					 "--throughput reads the whole file "
					 "with one reader into one buffer; "
					 "drop %s",
					 w->readers > 1	 ? "--readers"
					 : w->offset	 ? "--offset"
					 : w->length	 ? "--length"
					 : w->buf_align	 ? "--buf-align"
					 : w->iovecs > 1 ? "--iovecs"
							 : "--buf-tmpfs");
		if (a->ops_only && index_list__parse(a->ops_only, w->ops, NULL,
						     &w->ops_only_n))
			cli__usage_error(st,
					 "invalid --ops-only '%s' (ascending "
					 "operation indices under --ops %u, "
					 "comma-separated)",
					 a->ops_only, w->ops);
		if (a->ops_only) {
			a->ops_idx = calloc(w->ops_only_n, sizeof(*a->ops_idx));
			if (!a->ops_idx)
				cli__usage_error(st,
						 "no memory for --ops-only");
			index_list__parse(a->ops_only, w->ops, a->ops_idx,
					  &w->ops_only_n);
			w->ops_only = a->ops_idx;
		}
		w->mode = w->ops	  ? WL_MODE_OPS
			  : w->random	  ? WL_MODE_RANDOM
			  : a->matrix	  ? WL_MODE_MATRIX
			  : w->throughput ? WL_MODE_THROUGHPUT
					  : WL_MODE_LAYOUT;
		if (a->seed_set && !w->random && !w->ops)
			cli__usage_error(st, "--seed needs --random or --ops");
		if (w->time_limit_ms && !w->random && !w->ops)
			cli__usage_error(
				st, "--time-limit needs --random or --ops");
		if (w->files && a->first[3])
			cli__usage_error(
				st, "--files runs the seed's layout; drop %s",
				a->first[3]);
		/* stdout carries one thing: KTAP, or one report. */
		if (a->ktap && !strcmp(a->ktap, "-") &&
		    ((a->c.json && !strcmp(a->c.json, "-")) ||
		     (a->c.output && !strcmp(a->c.output, "-"))))
			cli__usage_error(st,
					 "--ktap - and %s - both write "
					 "stdout",
					 a->c.json && !strcmp(a->c.json, "-")
						 ? "-j"
						 : "-o");
		a->c.stdout_taken = a->ktap && !strcmp(a->ktap, "-");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &common_argp, 0, "Tracing and output:", 0 },
	{ &events_cli_argp, 0, NULL, 0 },
	{},
};

static const struct argp run_argp = {
	options,
	parse,
	"dedupe|shmem-read",
	"Drive a workload while tracing, check the kernel's answers against "
	"ground truth, report, and check the histograms against the "
	"workload's own totals.",
	children,
	NULL,
	NULL,
};

/* The workload runs on the main thread: events are read beside it, by a
 * thread that sleeps until some come or run__events_stop wakes it. */
struct run_events {
	struct session *s;
	pthread_t thread;
	atomic_bool stop;
};

static void *run__events_thread(void *arg)
{
	struct run_events *re = arg;

	while (!atomic_load(&re->stop))
		session__wait(re->s, -1, NULL);
	return NULL;
}

static void run__events_stop(struct run_events *re)
{
	atomic_store(&re->stop, true);
	session__wake(re->s);
	pthread_join(re->thread, NULL);
}

/* Folio coverage: the histograms' events of each group of layouts. */
struct run_cov {
	struct session *s;
	struct fs_report *r;
	struct fs_report *delta; /* heap: reports are large */
	int err;
};

/* wl_group_fn: one group ended, take its events since the previous. */
static void run__group_end(void *ctx, const char *fs, const char *name)
{
	struct run_cov *rc = ctx;
	char why[160];
	int large, err;

	if (rc->err)
		return;
	model__init(rc->delta);
	err = session__collect(rc->s, rc->delta, true);
	large = kfacts__large_folios(&rc->s->facts, fs, why, sizeof(why));
	if (!err)
		err = model__coverage_add(rc->r, name, large, why, rc->delta);
	model__free(rc->delta);
	/* Coverage is a report on the run, not a check: it stops, and
	 * the run goes on. */
	if (err) {
		rc->err = err;
		err__print("run", err, "folio coverage of group '%s'", name);
	}
}

/*
 * A matrix group that met only folios of a page where the kernel makes
 * large ones never ran the compare's folio arithmetic: say so as loudly
 * as shmem-read does for a huge= mount without 2 MiB folios.
 */
static void coverage_warn(const struct fs_report *r, enum fs_target t)
{
	for (int g = 0; r->coverage.warn && g < r->coverage.ngroups; g++)
		if (model__coverage_gap(r, g, t))
			err__print(
				"run", 0,
				"WARNING: %s: %s met only %llu-byte folios, "
				"but the kernel makes large ones there (%s): "
				"this run did NOT exercise large folios",
				r->coverage.g[g].name, model__target_name(t),
				(unsigned long long)r->page_size,
				r->coverage.g[g].large_why);
}

static __u64 kv_u64(const struct fs_report *r, const char *key)
{
	const struct fs_kv *kv = model__kv_find(r, key);

	return kv && kv->type == FS_KV_U64 ? kv->u : 0;
}

/*
 * The kernel log since the run started: a complaint is a failed check of
 * its own kind, quoting the first one; klog gets the summary.
 */
static void kernel_log(struct fs_report *r, struct wl_kmsg *k, char *klog,
		       size_t n)
{
	char first[160];
	int found = wl_kmsg__scan(k, first, sizeof(first));

	if (!found) {
		snprintf(klog, n, "clean");
		return;
	}
	snprintf(klog, n, "%d complaint%s", found, found > 1 ? "s" : "");
	model__check_kind(r, false, WL_KIND_KERNEL_LOG, "the whole run",
			  "no WARNING, BUG, Oops, KASAN, UBSAN or hung task",
			  first);
	err__print(
		"run", 0,
		"the kernel complained during the run (%d record%s), first: %s",
		found, found > 1 ? "s" : "", first);
}

/*
 * The report (text, -j, -o), then the verdicts as KTAP: what every run
 * that ends with a verdict writes. Returns 0 or -errno.
 */
static int run__output(const struct run_args *a, const struct fs_report *r)
{
	int err = common__output(&a->c, r), e;

	if (a->ktap) {
		e = report__ktap_write(r, a->ktap);
		if (e)
			err = e;
	}
	return err;
}

/* What a stuck call's report needs (run__stuck). */
struct run_stuck {
	struct session *s;
	struct fs_report *r;
	const struct run_args *a;
};

/*
 * A workload call never returned: the report as the run saw it, on the
 * watchdog's thread while the stuck one stays in the kernel. The probes'
 * counts are read as they are (the stuck call still in flight); they
 * cannot be reconciled.
 */
static void run__stuck(void *ctx, const char *stack)
{
	struct run_stuck *st = ctx;

	(void)stack; /* on stderr already, with the layout */
	progress__done();
	if (session__collect(st->s, st->r, false))
		err__print("run", 0, "the probes' counts could not be read");
	model__kv_str(st->r, "reconcile", "skipped: a call never returned");
	model__kv_str(st->r, "kernel_log", "not read: a call never returned");
	run__output(st->a, st->r);
}

/* A shrink trial's call never returned: the report as collected, the
 * timeout among its failures. */
static void run__stuck_shrinking(void *ctx, const char *stack)
{
	struct run_stuck *st = ctx;

	(void)stack;
	progress__done();
	run__output(st->a, st->r);
}

/* The target each workload drives. */
static const enum fs_target kind_target[WL_KIND_NR] = {
	[WL_DEDUPE] = FS_TGT_DEDUPE,
	[WL_SHMEM] = FS_TGT_SHMEM,
};

int cmd_run(int argc, char **argv)
{
	struct run_args a = { .c = { .mode = PLAN_AUTO } };
	struct workload *w = NULL;
	struct session s = {};
	struct probe_opts po = {};
	struct run_events re = {};
	struct evout *ev = NULL;
	bool ev_thread = false;
	struct fs_report r;
	const struct plan_step *step;
	enum fs_target t;
	enum wl_level level = WL_LEVEL_FUNC;
	struct wl_count want;
	struct wl_kmsg *kmsg = NULL;
	struct run_cov cov = {};
	struct run_stuck stuck = { .s = &s, .r = &r, .a = &a };
	char klog[160] = "";
	int err, rc = 1;

	workload__defaults(&a.w);
	cli__argp_parse(&run_argp, argc, argv, 0, NULL, &a);
	/* A fresh seed, printed with the layouts, so the run can be
	 * repeated; 32 bits, short to type and exact in any JSON reader. */
	if ((a.w.random || a.w.ops) && !a.seed_set) {
		if (getrandom(&a.w.seed, sizeof(a.w.seed), 0) !=
		    sizeof(a.w.seed))
			a.w.seed = (__u64)time(NULL) ^ ((__u64)getpid() << 16);
		a.w.seed &= 0xffffffffULL;
	}
	t = kind_target[a.w.kind];
	if (session__check_root("run"))
		return 1;
	/* A killed 'run dedupe --dir DIR' left its temp dir in DIR. Before
	 * workload__prepare: from then on this process has its own mounts. */
	if (a.w.dir)
		runguard__clean_dir(a.w.dir);
	if (a.c.targets)
		session__parse_targets(a.c.targets, s.want);
	else
		s.want[t] = true;
	s.want[t] = true; /* the workload's own target is always traced */

	model__init(&r);
	/* From here on, the kernel's complaints are the run's. */
	err = wl_kmsg__open(&kmsg, a.kmsg_user);
	if (err)
		snprintf(klog, sizeof(klog), "not read: /dev/kmsg: %s",
			 strerror(-err));
	progress__step("run", "preparing %s%s", a.workload,
		       a.w.mode == WL_MODE_MATRIX ? " (matrix)"
		       : a.w.random		  ? " (random)"
						  : "");
	/* The session starts after prepare; groups end only in run. */
	cov.s = &s;
	cov.r = &r;
	/* A matrix is there to cover the compare; one layout is not. */
	r.coverage.warn = a.w.mode == WL_MODE_MATRIX;
	cov.delta = malloc(sizeof(*cov.delta));
	if (!cov.delta) {
		err__print("run", -ENOMEM, "allocate the coverage report");
		goto cleanup;
	}
	a.w.group_end = run__group_end;
	a.w.group_ctx = &cov;
	err = workload__prepare(&w, &a.w);
	if (err)
		goto cleanup;
	if (a.w.throughput) {
		progress__step("run", "timing %u passes", a.w.throughput);
		err = workload__timed(w, &r);
		if (err)
			goto cleanup;
	}
	/* Only this process runs the workload: keep its events only. */
	po.filter_tgid = (__u32)getpid();
	po.btf_path = a.c.btf;
	po.debuginfo = a.c.debuginfo;
	po.ev = a.ev.sel;
	progress__step("run", "attaching");
	err = session__start(&s, a.c.mode, &po);
	if (err)
		goto cleanup;
	if (probe_events__on(&po.ev)) {
		progress__done();
		err = evout__open(&ev, a.ev.json, &s,
				  a.c.stdout_taken ? stderr : stdout, a.quiet);
		re.s = &s;
		if (!err)
			err = -pthread_create(&re.thread, NULL,
					      run__events_thread, &re);
		if (err)
			goto cleanup;
		ev_thread = true;
	}
	progress__step("run", "running %s and checking its answers",
		       a.workload);
	workload__on_stuck(run__stuck, &stuck);
	err = workload__run(w, &r);
	workload__on_stuck(NULL, NULL);
	/* Checks from here on (the kernel log's) are of no group. */
	model__check_group(&r, NULL);
	if (err)
		goto cleanup;
	if (ev_thread) {
		run__events_stop(&re);
		ev_thread = false;
		err = evout__close(ev, &s);
		ev = NULL;
		if (err)
			goto cleanup;
	}
	progress__step("run", "collecting");
	err = session__collect(&s, &r, false);
	if (err)
		goto cleanup;
	progress__done();
	/* What the plan's level sees: the syscall level,
	 * vfs_dedupe_file_range_one and the compare's inline sites count
	 * dedupe destinations and bytes differently from the remap prep. */
	step = &s.plan[t].step[s.plan[t].chosen];
	if (step->mech == MECH_SYSCALL)
		level = WL_LEVEL_SYSCALL;
	else if (step->handler == PLAN_H_DD_ONE)
		level = WL_LEVEL_DEDUPE_ONE;
	else if (step->handler == PLAN_H_DD_INLINE)
		level = WL_LEVEL_DEDUPE_CMP;
	workload__totals(w, level, &want);
	model__kv_u64(&r, "calls", want.calls);
	model__kv_u64(&r, "bytes", want.bytes);
	model__kv_u64(&r, "calls_slack", want.calls_slack);
	rc = workload__reconcile(&r, t, &want) ? 1 : 0;
	coverage_warn(&r, t);
	if (kmsg)
		kernel_log(&r, kmsg, klog, sizeof(klog));
	model__kv_str(&r, "kernel_log", klog);
	if (r.validation.failures || kv_u64(&r, "validation_failures")) {
		rc = 1;
		/* After the report is collected: the trials are not in it,
		 * but a trial that never returns is. */
		workload__on_stuck(run__stuck_shrinking, &stuck);
		workload__shrink(w, &r);
		workload__on_stuck(NULL, NULL);
	}
	/* Not a verdict on the kernel: the answers it spoiled are unjudged,
	 * and a run that could not judge everything has not passed. */
	if (r.validation.disturbed[0]) {
		err__print(
			NULL, 0,
			"run %s: environment disturbed, not a kernel failure: "
			"%s; unjudged answers: %" PRIu64,
			a.workload, r.validation.disturbed,
			(uint64_t)r.validation.unjudged);
		rc = 1;
	}
	/* Not a pass: the kernel could not run a single layout of it. */
	if (!rc && r.validation.nskips && !r.validation.checks) {
		err__print("run", 0,
			   "nothing checked: this kernel cannot run any layout "
			   "of this run (the SKIP lines say why)");
		rc = 4;
	}
	if (run__output(&a, &r))
		rc = 1;
cleanup:
	progress__done();
	if (ev_thread)
		run__events_stop(&re);
	evout__close(ev, &s);
	session__stop(&s);
	workload__destroy(w);
	wl_kmsg__close(kmsg);
	free(cov.delta);
	free(a.ops_idx);
	return rc;
}
