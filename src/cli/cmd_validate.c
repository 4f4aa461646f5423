// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * folioscope validate: every tier of both workloads on this kernel (the
 * matrices, random layouts, sequences of operations), one verdict. Each
 * tier is a `folioscope run` of its own (tiers.c), so that a tier whose
 * call never returns, or that dies, is that tier's failure and the
 * others still run; their reports become one, a group per tier, which
 * `report` and `compare` read like any other.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include "commands.h"
#include "common.h"
#include "runguard.h"
#include "tiers.h"
#include "report/report.h"
#include "session/session.h"
#include "util/err.h"
#include "util/parse.h"
#include "workload/options.h"

struct validate_args {
	struct common_opts c;
	struct tier_opts t;
	const char *ktap, *junit;
	bool seed_set;
};

enum {
	OPT_SEED = 0x100,
	OPT_BUDGET,
	OPT_ONLY,
	OPT_TIERS,
	OPT_RANDOM,
	OPT_OPS,
	OPT_KTAP,
	OPT_JUNIT,
};

static const struct argp_option options[] = {
	{ "budget", OPT_BUDGET, "DURATION", 0,
	  "time for the whole run (default 10m): the matrices run whole, "
	  "the time left is shared by the drawn tiers (docs/validation.md)",
	  0 },
	{ "seed", OPT_SEED, "S", 0,
	  "draw the random layouts and operations from seed S (default: a "
	  "fresh one, printed)",
	  0 },
	{ "only", OPT_ONLY, "WORKLOAD", 0,
	  "the tiers of one workload: shmem or dedupe (default both)", 0 },
	{ "tiers", OPT_TIERS, "LIST", 0,
	  "the tiers to run, comma-separated: matrix, random, ops, race "
	  "(default all)",
	  0 },
	{ "random", OPT_RANDOM, "N", 0,
	  "random layouts per workload, at most (default 256, the most); "
	  "the budget may stop the tier sooner",
	  0 },
	{ "ops", OPT_OPS, "N", 0,
	  "operations per sequence, at most (default 100000); the budget "
	  "may stop the tier sooner",
	  0 },
	{ "ktap", OPT_KTAP, "FILE", 0,
	  "also write the verdicts as KTAP version 1 to FILE: a test per "
	  "tier with its checks as subtests; - is stdout, and the report "
	  "goes to stderr",
	  0 },
	{ "junit", OPT_JUNIT, "FILE", 0,
	  "also write the verdicts as JUnit XML to FILE: a testsuite per tier",
	  0 },
	{},
};

static unsigned int parse_n(const struct argp_state *st, const char *name,
			    const char *arg, __u64 max)
{
	__u64 v = 0;

	if (count__parse(arg, true, max, &v) || !v)
		cli__usage_error(st, "invalid %s '%s' (want 1 .. %llu)", name,
				 arg, (unsigned long long)max);
	return (unsigned int)v;
}

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct validate_args *a = st->input;
	struct tier_opts *t = &a->t;

	switch (key) {
	case OPT_BUDGET: {
		__u64 ns;

		if (duration__parse(arg, &ns) || ns < 1000000000ULL)
			cli__usage_error(st,
					 "invalid --budget '%s' (want a "
					 "duration of 1s or more with a unit: "
					 "10m, 1h)",
					 arg);
		t->budget_ms = ns / 1000000;
		break;
	}
	case OPT_SEED: {
		char *end;

		errno = 0;
		t->seed = strtoull(arg, &end, 0);
		if (errno || end == arg || *end || *arg == '-')
			cli__usage_error(st, "invalid --seed '%s'", arg);
		a->seed_set = true;
		break;
	}
	case OPT_ONLY:
		if (tiers__parse_only(arg, &t->kinds))
			cli__usage_error(
				st, "unknown --only '%s' (shmem, dedupe)", arg);
		break;
	case OPT_TIERS:
		if (tiers__parse_modes(arg, &t->modes))
			cli__usage_error(st,
					 "invalid --tiers '%s' (want a "
					 "comma-separated list of matrix, "
					 "random, ops, race)",
					 arg);
		break;
	case OPT_RANDOM:
		t->random = parse_n(st, "--random", arg, WL_RANDOM_MAX);
		break;
	case OPT_OPS:
		t->ops = parse_n(st, "--ops", arg, WL_OPS_MAX);
		break;
	case OPT_KTAP:
		cli__check_output(arg);
		a->ktap = arg;
		break;
	case OPT_JUNIT:
		cli__check_output(arg);
		a->junit = arg;
		break;
	case ARGP_KEY_INIT:
		common_opts_target = &a->c;
		break;
	case ARGP_KEY_ARG:
		cli__usage_error(st, "validate takes no arguments ('%s')", arg);
		break;
	case ARGP_KEY_END:
		/* The children's options, as a run takes them. */
		if (a->c.mode != PLAN_AUTO)
			t->mode = plan__mode_name(a->c.mode);
		t->btf = a->c.btf;
		t->debuginfo = a->c.debuginfo;
		t->verbose = fs_verbose;
		if (a->ktap && !strcmp(a->ktap, "-") &&
		    ((a->c.json && !strcmp(a->c.json, "-")) ||
		     (a->c.output && !strcmp(a->c.output, "-")) ||
		     (a->junit && !strcmp(a->junit, "-"))))
			cli__usage_error(st, "--ktap - and another output both "
					     "write stdout");
		if (a->junit && !strcmp(a->junit, "-") &&
		    ((a->c.json && !strcmp(a->c.json, "-")) ||
		     (a->c.output && !strcmp(a->c.output, "-"))))
			cli__usage_error(st, "--junit - and another output "
					     "both write stdout");
		a->c.stdout_taken = (a->ktap && !strcmp(a->ktap, "-")) ||
				    (a->junit && !strcmp(a->junit, "-"));
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &common_report_argp, 0, "Attaching and output:", 0 },
	{},
};

static const struct argp validate_argp = {
	options,
	parse,
	NULL,
	"Validate this kernel: run every tier of both workloads (each "
	"workload's --matrix, --random, --ops, and --ops with readers racing "
	"it) within a time budget, each "
	"checked against ground truth, and give one verdict with what was "
	"covered and what was skipped. Exit 0 pass, 1 failures (or a tier "
	"without a verdict), 4 nothing checked.",
	children,
	NULL,
	NULL,
};

int cmd_validate(int argc, char **argv)
{
	struct validate_args a = {
		.c = { .mode = PLAN_AUTO },
		.t = { .budget_ms = 600000,
		       .random = WL_RANDOM_MAX,
		       .ops = TIERS_OPS_DEFAULT },
	};
	struct fs_report *r;
	struct tiers *tt = NULL;
	char verdict[512];
	int rc, err;

	cli__argp_parse(&validate_argp, argc, argv, 0, NULL, &a);
	if (!a.seed_set) {
		__u32 s;

		if (getrandom(&s, sizeof(s), 0) != sizeof(s))
			s = (__u32)(time(NULL) ^ ((__u64)getpid() << 16));
		a.t.seed = s;
	}
	if (session__check_root("validate"))
		return 1;
	r = malloc(sizeof(*r));
	if (!r) {
		err__print("validate", -ENOMEM, "allocate the report");
		return 1;
	}
	model__init(r);
	err = tiers__open(&tt, &a.t);
	if (!err)
		err = tiers__run(tt, r);
	if (err) {
		tiers__destroy(tt);
		model__free(r);
		free(r);
		return 1;
	}
	rc = tiers__status(tt, r);
	tiers__destroy(tt);
	if (common__output(&a.c, r))
		rc = 1;
	if (a.ktap && report__ktap_write(r, a.ktap))
		rc = 1;
	if (a.junit && report__junit_write(r, a.junit))
		rc = 1;
	report__verdict(verdict, sizeof(verdict), r);
	err__print(NULL, 0, "validate: %s", verdict);
	model__free(r);
	free(r);
	return rc;
}
