/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Comparing two sets of runs (base and new kernel): statistics estimated
 * from log2 buckets, a homogeneity test on the bucket vectors, and the
 * --expect rules that turn a comparison into a CI verdict. Reads only the
 * model (src/model), like the reporters.
 */
#ifndef FS_COMPARE_H
#define FS_COMPARE_H

#include <stdbool.h>
#include <stdio.h>
#include "model/model.h"

/* ---- bucket statistics (stats.c) ---- */

/*
 * True when every recorded value sits exactly on its bucket's lower bound:
 * the recorded sum equals sum(count * lo). Power-of-two sizes (pages,
 * folios, read sizes) are the common case, and then percentiles are exact.
 */
bool cmp__at_lower_bounds(const struct fs_histogram *h);

/*
 * The q-quantile (0 <= q <= 1) estimated from the buckets; false if the
 * histogram is empty. The bucket holding the value of rank q*count is found
 * from the cumulative counts. Inside a log2 bucket [2^(k-1), 2^k) values
 * are taken as log-uniform, so the estimate is 2^(k-1) * 2^f, f being the
 * fraction of the bucket's count below the rank. Exact instead when
 * cmp__at_lower_bounds(), for the value-0 bucket, for alignment buckets
 * (one value each) and for the open-ended last bucket (its lower bound).
 */
bool cmp__quantile(const struct fs_histogram *h, double q, double *out);

/* sum/count, exact (the probes record the sum); false if empty. */
bool cmp__mean(const struct fs_histogram *h, double *out);

/* Smallest value seen (a bucket lower bound, exact) and largest possible
 * (its upper bound; exact when cmp__at_lower_bounds()); false if empty. */
bool cmp__min(const struct fs_histogram *h, double *out);
bool cmp__max(const struct fs_histogram *h, double *out);

/* Result of a test of homogeneity of rows (runs) over columns (buckets). */
struct cmp_test {
	int rows, cols;	  /* non-empty rows and columns actually used */
	int df;		  /* (rows - 1) * (cols - 1) */
	double g;	  /* G = 2 sum O ln(O/E) */
	double chi2;	  /* Pearson's sum (O-E)^2/E */
	double p;	  /* P(chi2_df >= G), 0 when it underflows */
	double cramers_v; /* sqrt(chi2 / (N * (min(rows, cols) - 1))) */
	int sparse;	  /* cells with expected count < 5 (approximation) */
	__u64 n;	  /* total count */
};

/*
 * G-test of homogeneity of nrows count vectors of ncols cells each
 * (row-major). All-zero rows and columns are dropped first; with fewer
 * than two of either the distributions cannot differ and the test has
 * df 0, p 1, V 0. Returns 0, or -EINVAL for nrows/ncols out of range.
 */
int cmp__homogeneity(const __u64 *counts, int nrows, int ncols,
		     struct cmp_test *t);

/* Upper tail P(X >= x) of the chi-square distribution with df degrees of
 * freedom (the regularized upper incomplete gamma Q(df/2, x/2)). */
double cmp__chi2_sf(double x, int df);

/* Cohen's words for Cramér's V with min(rows, cols) - 1 = dfs. */
const char *cmp__effect_word(double v, int dfs);

/*
 * The G-test of hb's buckets against hn's as the one sentence the text
 * and the picture print: "G-test: G = 63.96, df = 2, p = 1.29e-14;
 * Cramér's V = 0.601 (large)" (and a note when expected counts are
 * small), true; or "G-test: nothing to test (a side has no events)" or
 * "(both in one bucket)", false.
 */
bool cmp__test_text(char *buf, size_t n, const struct fs_histogram *hb,
		    const struct fs_histogram *hn);

/* ---- sides: one or more runs of the same workload on one kernel ---- */

struct cmp_side {
	const char *label; /* "base" or "new" */
	int nruns;
	struct fs_report *runs; /* nruns reports, as read */
	const char **paths;
	/*
	 * All runs summed: buckets, sums and counters added, validation
	 * checks/failures added; a histogram is measured only if it was in
	 * every run. Additive quantities are divided by nruns when shown or
	 * tested by a rule, so sides with different run counts compare.
	 */
	struct fs_report pooled;
};

/* Sum side->runs into side->pooled. */
void cmp__pool(struct cmp_side *side);

/*
 * Why the two sides may not be compared, in one line: targets traced,
 * attach mechanism/symbol per target, workload name and parameters, and
 * trace's filters (which were used; the values of all but pids and
 * devices, which differ between boots), across every run of both sides. Returns
 * 0 if they agree, else 1 with why set.
 */
int cmp__mismatch(const struct cmp_side *base, const struct cmp_side *new,
		  char *why, size_t n);

/*
 * Run-to-run noise of histogram hi of target t: Cramér's V of the
 * G-test among each side's runs, into vb and vn. False when a side has
 * one run (or more than CMP_NOISE_MAX_RUNS): no noise to measure.
 */
#define CMP_NOISE_MAX_RUNS 64
bool cmp__run_noise(const struct cmp_side *base, const struct cmp_side *new,
		    int t, int hi, double *vb, double *vn);
/*
 * cmp__run_noise as one sentence: "run to run: Cramér's V = 0.012 among
 * base runs, 0.020 among new runs", true; or why it is not measured,
 * false.
 */
bool cmp__noise_text(char *buf, size_t n, const struct cmp_side *base,
		     const struct cmp_side *new, int t, int hi);

/* ---- rules (rule.c) ---- */

enum cmp_qkind {
	CMP_Q_HIST,	  /* target.histogram.stat */
	CMP_Q_COUNTER,	  /* target.counter */
	CMP_Q_VALIDATION, /* validation.failures | validation.checks */
	CMP_Q_WORKLOAD,	  /* workload.KEY (a numeric workload value) */
};

enum cmp_stat {
	CMP_ST_COUNT,
	CMP_ST_SUM,
	CMP_ST_MEAN,
	CMP_ST_PCT, /* pN: the N-th percentile */
	CMP_ST_MIN,
	CMP_ST_MAX,
};

struct cmp_quantity {
	enum cmp_qkind kind;
	int target;	    /* enum fs_target, for HIST and COUNTER */
	int index;	    /* histogram or counter index */
	enum cmp_stat stat; /* for HIST */
	double pct;	    /* for CMP_ST_PCT: 0 < pct < 100 */
	char key[48];	    /* VALIDATION: "failures"/"checks"; WORKLOAD: key */
};

enum cmp_op { CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQ, CMP_NE };

struct cmp_rule {
	char text[160];
	struct cmp_quantity lhs; /* always read from the new side */
	enum cmp_op op;
	bool rhs_base;		 /* rhs = factor * (quantity on base) */
	struct cmp_quantity rhs; /* when rhs_base */
	double factor;		 /* when rhs_base, 1 without "*F" */
	double number;		 /* when !rhs_base */
};

/*
 * Parse one --expect rule:
 *   rule  = lhs op rhs
 *   lhs   = TARGET.HIST.STAT | TARGET.COUNTER | validation.(failures|checks)
 *           | workload.KEY
 *   STAT  = count | sum | mean | min | max | pN (0 < N < 100, e.g. p99.9)
 *   op    = < | <= | > | >= | == | !=
 *   rhs   = NUMBER[K|M|G|T] | base[.STAT][*NUMBER]
 * Spaces between tokens are allowed. Returns 0, or -EINVAL with a one-line
 * reason (without the rule itself) in err.
 */
int cmp__rule_parse(const char *text, struct cmp_rule *rule, char *err,
		    size_t errlen);

/*
 * The value of q on a side: from the pooled report, additive quantities
 * (counts, sums, counters, validation, workload values) per run. Returns
 * false with a reason in why when it has none (target not traced,
 * histogram not measured or empty, key absent).
 */
bool cmp__value(const struct cmp_side *side, const struct cmp_quantity *q,
		double *out, char *why, size_t n);
/* Same, on one run of a side (for spreads). */
bool cmp__run_value(const struct fs_report *r, const struct cmp_quantity *q,
		    double *out, char *why, size_t n);

struct cmp_verdict {
	bool pass;
	bool evaluated;	 /* false: a side had no value (counts as a failure) */
	double lhs, rhs; /* when evaluated */
	char why[320];	 /* when !evaluated */
};

void cmp__rule_eval(const struct cmp_rule *rule, const struct cmp_side *base,
		    const struct cmp_side *new, struct cmp_verdict *v);

const char *cmp__op_str(enum cmp_op op);

/* ---- the text report (report.c) ---- */

/* Side-by-side distributions, statistics with changes and spreads, and
 * the homogeneity test, for every target traced on both sides. */
int cmp__report(FILE *f, const struct cmp_side *base,
		const struct cmp_side *new);

/* ---- KTAP (ktap.c) ---- */

/*
 * The rules' verdicts as KTAP version 1: the plan (one test per rule),
 * the sides as diagnostic lines (and warning, when set), then per rule
 * "ok N RULE # new L OP R" or "not ok N RULE # new L, not OP R" ("# no
 * value: why" for a rule a side had no value for). Returns 0 or -EIO.
 */
int cmp__ktap(FILE *f, const struct cmp_rule *rule, int nrules,
	      const struct cmp_side *base, const struct cmp_side *new,
	      const char *warning);

/* ---- the picture (picture.c) ---- */

/*
 * The comparison as a self-contained HTML page (html) or SVG document:
 * the rules with their verdicts first (a failed one marked "FAIL" and in
 * red, with the values it compared), the sides' facts (runs, kernel,
 * attach plan, workload; warning when set, e.g. runs compared with
 * --force), then per histogram measured on both sides base and new on
 * one log2 axis as fractions of each side's events, the min..max over a
 * side's runs, p50/p90/p99 of both and the G-test. A target traced on
 * one side only, or a histogram not measured on a side, is one line.
 * Returns 0 or -errno.
 */
int cmp__picture(FILE *f, bool html, const struct cmp_side *base,
		 const struct cmp_side *new, const struct cmp_rule *rule,
		 int nrules, const char *warning);

/* "64K", "2M", "1.5G" (binary) for bytes; "850ns", "12.3us" for ns. */
void cmp__fmt_value(char *buf, size_t n, double v, const char *unit);
/* A histogram not measured on a side, as the text and the picture say
 * it: "not measured on base: WHY; on new: WHY" (the sides it was not). */
void cmp__not_measured_text(char *buf, size_t n, const struct fs_histogram *hb,
			    const struct fs_histogram *hn);

#endif /* FS_COMPARE_H */
