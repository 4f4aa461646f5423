/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The benchmark's aggregation: raw records in (bench/README.md, "Raw
 * records"), per-measurement median/min/max over interleaved rounds,
 * per-round derived figures (ns added over a baseline, ratios between
 * variants), target checks, results.json and a table out.
 */
#ifndef FS_BENCH_STATS_H
#define FS_BENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define BENCH_NAME 64
#define BENCH_TEXT 4096

struct bench_key {
	char scope[16];
	char bench[BENCH_NAME];
	char variant[BENCH_NAME];
	char metric[BENCH_NAME];
};

struct bench_sample {
	struct bench_key k;
	int round;
	double value;
	bool derived;
};

struct bench_env {
	char scope[16];
	char key[BENCH_NAME];
	char value[BENCH_TEXT];
};

/* "baseline SCOPE BENCH METRIC VARIANT": added_METRIC for every other
 * variant, round by round: its value minus the mean of its own
 * pre_METRIC and post_METRIC samples of that round (untraced runs just
 * before and after its session) where they exist, else minus the mean
 * of the baseline's rounds r and r+1 (the baseline runs once more after
 * the last round: drift cancels). */
struct bench_baseline {
	struct bench_key k; /* k.variant = the baseline */
};

/* "ratio SCOPE BENCH METRIC NUM DEN NAME": NAME for variant NUM, per
 * round NUM/DEN of METRIC; rounds where DEN <= 0 are left out.
 * "part SCOPE BENCH METRIC NUM DEN NAME": per round DEN - NUM, what the
 * work variant NUM leaves out of DEN costs (a breakdown). */
struct bench_ratio {
	struct bench_key k; /* k.variant = NUM */
	char den[BENCH_NAME];
	char name[BENCH_NAME];
	bool diff; /* a part: DEN - NUM */
};

/* "floor SCOPE BENCH METRIC NAME BASE FLOOR FACTOR": variant NAME's
 * METRIC per round is FLOOR's where FLOOR is above FACTOR x BASE, else
 * BASE's: what a bystander is held to, the untraced run, or, where empty
 * programs on the same attach points already cost more than the target
 * allows over it, those programs. */
struct bench_floor {
	struct bench_key k; /* k.variant = NAME */
	char base[BENCH_NAME];
	char floor[BENCH_NAME];
	double factor;
};

enum bench_op { BENCH_LE, BENCH_GE };

/* "target SCOPE BENCH VARIANT METRIC le|ge LIMIT NAME...": the median
 * must be <= (le) or >= (ge) LIMIT. */
struct bench_target {
	struct bench_key k;
	enum bench_op op;
	double limit;
	char name[BENCH_TEXT];
};

struct bench_note {
	char scope[16];
	char text[BENCH_TEXT];
};

struct bench_set {
	struct bench_sample *samples;
	int nsamples, cap_samples;
	struct bench_env *env;
	int nenv, cap_env;
	struct bench_baseline *baselines;
	int nbaselines, cap_baselines;
	struct bench_ratio *ratios;
	int nratios, cap_ratios;
	struct bench_floor *floors;
	int nfloors, cap_floors;
	struct bench_target *targets;
	int ntargets, cap_targets;
	struct bench_note *notes;
	int nnotes, cap_notes;
};

struct bench_stat {
	struct bench_key k;
	double median, min, max;
	int runs;
	bool derived;
	double *values; /* in round order */
	int *rounds;
};

/*
 * A target against the rounds' interval, not the median alone: met when
 * every round is on the target's side (max <= limit for le), missed when
 * none is, not resolved when the interval straddles the limit or goes
 * below zero (an added cost lost in the untraced runs' spread).
 */
enum bench_outcome { BENCH_MET, BENCH_MISSED, BENCH_UNRESOLVED };

struct bench_verdict {
	const struct bench_target *t;
	bool measured;
	bool met; /* outcome == BENCH_MET */
	enum bench_outcome outcome;
	double value, min, max; /* median and interval over rounds */
};

/* "met", "missed" or "not resolved". */
const char *bench__outcome_name(enum bench_outcome o);

struct bench_result {
	struct bench_stat *stats;
	int nstats;
	struct bench_verdict *verdicts;
	int nverdicts;
};

void bench__init(struct bench_set *s);
void bench__free(struct bench_set *s);
/* One raw line; blank lines and '#' comments are fine. Returns 0, or
 * -EINVAL with a reason in err, or -ENOMEM. */
int bench__parse_line(struct bench_set *s, const char *line, char *err,
		      size_t errlen);
/* Every line of f; name is for messages. Prints one line on a bad record
 * and returns its error. */
int bench__parse_file(struct bench_set *s, FILE *f, const char *name);

/* Median of n values (mean of the two middle ones for even n); v is
 * sorted in place. n must be > 0. */
double bench__median(double *v, int n);
/* Unit of a metric, from its name: "ns", "ratio", "B/s", ... */
const char *bench__unit(const char *metric);

/* Derives added_* and ratios, then every measurement's statistics and
 * the targets' verdicts. Returns 0 or -ENOMEM. */
int bench__aggregate(struct bench_set *s, struct bench_result *r);
void bench__result_free(struct bench_result *r);
const struct bench_stat *bench__find(const struct bench_result *r,
				     const char *scope, const char *bench,
				     const char *variant, const char *metric);

/* results.json (schema "folioscope-bench/1"). Returns 0 or -errno. */
int bench__write_json(const struct bench_set *s, const struct bench_result *r,
		      FILE *f);
/* The table: plain text, or Markdown for docs/benchmarks.md. summary:
 * only the figures docs/benchmarks.md shows (added ns, ratios, BPF ns per
 * call, startup, memory, events/s, throughput, dedupe time), no
 * environment lines. */
void bench__print_table(const struct bench_set *s, const struct bench_result *r,
			FILE *f, bool markdown, bool summary);
/* Is metric one of the summary's? */
bool bench__in_summary(const char *metric);

#endif
