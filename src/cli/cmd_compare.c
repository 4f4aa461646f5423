// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * folioscope compare: two kernels' reports side by side, and --expect
 * rules as a CI gate. Exit 0: compared, every rule holds; 1: a rule
 * failed (or could not be evaluated); 2: usage error, malformed rule,
 * unreadable report, or runs that measured different things (without
 * --force).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "common.h"
#include "compare/compare.h"
#include "report/report.h"
#include "util/err.h"

enum {
	OPT_VS = 0x100,
	OPT_FORCE,
	OPT_FORMAT,
	OPT_KTAP,
};

/* At most this many runs per side: the run-to-run test's table limit. */
#define MAX_RUNS 64
#define MAX_RULES 64

struct compare_args {
	const char *paths[2][MAX_RUNS];
	int npaths[2];
	bool vs; /* --vs seen: later files are new runs */
	bool force;
	bool quiet;
	const char *output; /* -o FILE: the picture */
	const char *format; /* --format html|svg */
	const char *ktap;   /* --ktap FILE, "-" = stdout */
	struct cmp_rule rules[MAX_RULES];
	int nrules;
};

static const struct argp_option options[] = {
	{ "expect", 'e', "RULE", 0,
	  "exit 1 unless RULE holds, e.g. 'shmem.copy_bytes.p50>=64K', "
	  "'dedupe.latency_ns.p50<base*0.9', 'validation.failures==0' "
	  "(repeatable)",
	  0 },
	{ "force", OPT_FORCE, NULL, 0,
	  "compare even if attach plans, workloads or filters differ", 0 },
	{ "vs", OPT_VS, NULL, 0,
	  "files before are base runs, files after are new runs", 0 },
	{ "quiet", 'q', NULL, 0, "print only the rule verdicts", 0 },
	{ "output", 'o', "FILE", 0,
	  "also draw the comparison into FILE (html or svg, from --format "
	  "or the name)",
	  0 },
	{ "format", OPT_FORMAT, "FORMAT", 0,
	  "html or svg: the picture's format (without -o, on stdout instead "
	  "of the text)",
	  0 },
	{ "ktap", OPT_KTAP, "FILE", 0,
	  "also write the rules' verdicts as KTAP version 1 to FILE "
	  "(atomically), a test per --expect rule; - is stdout, and the "
	  "text goes to stderr",
	  0 },
	{},
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct compare_args *a = st->input;
	char err[256];
	int side;

	switch (key) {
	case 'e':
		if (a->nrules >= MAX_RULES)
			cli__usage_error(st, "more than %d --expect rules",
					 MAX_RULES);
		if (cmp__rule_parse(arg, &a->rules[a->nrules], err,
				    sizeof(err)))
			cli__usage_error(st, "bad rule '%s': %s", arg, err);
		a->nrules++;
		break;
	case OPT_FORCE:
		a->force = true;
		break;
	case 'q':
		a->quiet = true;
		break;
	case 'o':
		a->output = arg;
		break;
	case OPT_FORMAT:
		a->format = arg;
		break;
	case OPT_KTAP:
		cli__check_output(arg);
		a->ktap = arg;
		break;
	case OPT_VS:
		if (a->vs)
			cli__usage_error(st, "--vs given twice");
		if (!a->npaths[0])
			cli__usage_error(st, "--vs needs base runs before it");
		a->vs = true;
		break;
	case ARGP_KEY_ARG:
		side = a->vs ? 1 : 0;
		if (a->npaths[side] >= MAX_RUNS)
			cli__usage_error(st, "more than %d runs per side",
					 MAX_RUNS);
		a->paths[side][a->npaths[side]++] = arg;
		break;
	case ARGP_KEY_END:
		if (!a->vs) {
			/* Without --vs: exactly BASE.json NEW.json. */
			if (a->npaths[0] != 2)
				cli__usage_error(
					st,
					"want BASE.json NEW.json (or "
					"BASE... --vs NEW... for repeated "
					"runs), got %d file%s",
					a->npaths[0],
					a->npaths[0] == 1 ? "" : "s");
			a->paths[1][0] = a->paths[0][1];
			a->npaths[0] = a->npaths[1] = 1;
		} else if (!a->npaths[1]) {
			cli__usage_error(st, "--vs needs new runs after it");
		}
		if (a->ktap && !a->nrules)
			cli__usage_error(st,
					 "--ktap writes a test per --expect "
					 "rule: give one");
		/* stdout carries one thing: KTAP, or the picture. */
		if (a->ktap && !strcmp(a->ktap, "-") && a->format &&
		    (!a->output || !strcmp(a->output, "-")))
			cli__usage_error(st, "--ktap - and the picture both "
					     "write stdout; give -o FILE");
		if (a->ktap && !strcmp(a->ktap, "-") && a->output &&
		    !strcmp(a->output, "-"))
			cli__usage_error(st, "--ktap - and -o - both write "
					     "stdout");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp compare_argp = {
	options,
	parse,
	"BASE.json NEW.json\nBASE.json... --vs NEW.json...",
	"Compare reports written by 'run -j' or 'trace -j' on a base and a new "
	"kernel: per histogram both distributions, count/mean/p50/p90/p99/max "
	"with their change, and a G-test of homogeneity with Cramér's V. "
	"With several runs per side the histograms are pooled and each "
	"statistic's run-to-run range is shown beside the change."
	"\vRULE = LHS OP RHS. LHS: TARGET.HIST.STAT, TARGET.COUNTER, "
	"validation.failures, validation.checks or workload.KEY; STAT: count, "
	"sum, mean, min, max, pN. OP: < <= > >= == !=. RHS: a number "
	"(K/M/G/T suffixes) or base[.STAT][*FACTOR], the same quantity on the "
	"base side. Counts are per run. Exit status: 0 all rules hold, 1 a "
	"rule failed or had no value, 2 usage error, bad rule, unreadable "
	"report, or runs whose attach plans, workloads or filters differ "
	"(unless --force; of the filters, which ones were used and their "
	"values, except pids and devices, which differ between boots).",
	NULL,
	NULL,
	NULL,
};

/* The picture's format: --format, else -o's extension; exits 2 if it is
 * neither html nor svg. */
static bool picture_html(const struct compare_args *a)
{
	struct argp_state st = { .name = "compare" };
	enum report_format fmt;

	if (a->format ? report__format_parse(a->format, &fmt)
		      : report__format_guess(a->output, &fmt))
		cli__usage_error(&st,
				 "cannot tell the picture's format%s%s; "
				 "--format html or svg",
				 a->format ? " from " : "",
				 a->format ? a->format : "");
	if (fmt != REPORT_FMT_HTML && fmt != REPORT_FMT_SVG)
		cli__usage_error(&st,
				 "a comparison draws as html or svg, not %s",
				 report__format_name(fmt));
	return fmt == REPORT_FMT_HTML;
}

/* What the picture and the KTAP of a compare are drawn from. */
struct cmp_render {
	const struct compare_args *a;
	bool html;
	const struct cmp_side *base, *new;
	const char *warning;
};

static int picture_render(FILE *f, void *arg)
{
	const struct cmp_render *c = arg;

	return cmp__picture(f, c->html, c->base, c->new, c->a->rules,
			    c->a->nrules, c->warning);
}

static int ktap_render(FILE *f, void *arg)
{
	const struct cmp_render *c = arg;

	return cmp__ktap(f, c->a->rules, c->a->nrules, c->base, c->new,
			 c->warning);
}

/* The picture or the KTAP, rendered whole and written atomically to path
 * ("-": stdout). */
static int cmp__write(const char *path, int (*render)(FILE *, void *),
		      const struct cmp_render *c)
{
	int err = report__render_atomic(path, render, (void *)c);

	if (err)
		err__print("compare", err, "cannot write '%s'", path);
	return err;
}

static int side__load(struct cmp_side *s, const char *label, const char **paths,
		      int n)
{
	s->label = label;
	s->nruns = n;
	s->paths = paths;
	s->runs = calloc(n, sizeof(*s->runs));
	if (!s->runs) {
		err__print("compare", 0, "out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++)
		/* report__json_read prints its one line on failure. */
		if (report__json_read(paths[i], &s->runs[i]))
			return -1;
	cmp__pool(s);
	return 0;
}

/* The runs and what they hold (a -P table, trace -i's intervals); the
 * pooled report shares the first run's and is not freed apart. */
static void side__free(struct cmp_side *s)
{
	for (int i = 0; s->runs && i < s->nruns; i++)
		model__free(&s->runs[i]);
	free(s->runs);
}

static int rules__check(FILE *out, const struct compare_args *a,
			const struct cmp_side *base, const struct cmp_side *new)
{
	struct cmp_verdict v;
	char l[32], r[32];
	int failed = 0;

	if (!a->nrules)
		return 0;
	fprintf(out, "%s", a->quiet ? "" : "\nrules\n");
	for (int i = 0; i < a->nrules; i++) {
		const struct cmp_rule *rule = &a->rules[i];

		cmp__rule_eval(rule, base, new, &v);
		if (!v.evaluated) {
			fprintf(out, "  FAIL  %s: no value (%s)\n", rule->text,
				v.why);
			failed++;
			continue;
		}
		cmp__fmt_value(l, sizeof(l), v.lhs, NULL);
		cmp__fmt_value(r, sizeof(r), v.rhs, NULL);
		fprintf(out, "  %s  %s: new %s %s %s%s\n",
			v.pass ? "ok  " : "FAIL", rule->text, l,
			cmp__op_str(rule->op), r,
			rule->rhs_base ? " (from base)" : "");
		if (!v.pass)
			failed++;
	}
	fprintf(out, "%s%d of %d rules hold\n", a->quiet ? "" : "\n",
		a->nrules - failed, a->nrules);
	return failed;
}

/* How many rules fail, without printing (the picture shows them). */
static int rules__count(const struct compare_args *a,
			const struct cmp_side *base, const struct cmp_side *new)
{
	struct cmp_verdict v;
	int failed = 0;

	for (int i = 0; i < a->nrules; i++) {
		cmp__rule_eval(&a->rules[i], base, new, &v);
		failed += !v.pass;
	}
	return failed;
}

int cmd_compare(int argc, char **argv)
{
	struct cmp_side base = {}, new = {};
	struct compare_args *a;
	char why[1024];
	bool html = false, forced = false, to_stdout;
	FILE *out;
	int rc = 2;

	/* A few hundred KiB of rules: not for the stack. */
	a = calloc(1, sizeof(*a));
	if (!a) {
		err__print("compare", 0, "out of memory");
		return 2;
	}
	cli__argp_parse(&compare_argp, argc, argv, ARGP_IN_ORDER, NULL, a);
	if (a->output || a->format)
		html = picture_html(a);
	/* The picture on stdout replaces the text there. */
	to_stdout = a->format && (!a->output || !strcmp(a->output, "-"));
	/* KTAP on stdout moves the text to stderr. */
	out = a->ktap && !strcmp(a->ktap, "-") ? stderr : stdout;
	if (side__load(&base, "base", a->paths[0], a->npaths[0]) ||
	    side__load(&new, "new", a->paths[1], a->npaths[1]))
		goto cleanup;
	if (cmp__mismatch(&base, &new, why, sizeof(why))) {
		if (!a->force) {
			err__print("compare", 0,
				   "runs differ: %s (--force compares anyway)",
				   why);
			goto cleanup;
		}
		if (!to_stdout)
			fprintf(out,
				"warning: compared with --force although runs "
				"differ: %s\n",
				why);
		forced = true;
	}
	struct cmp_render c = { .a = a,
				.html = html,
				.base = &base,
				.new = &new,
				.warning = forced ? why : NULL };

	if ((a->output || a->format) &&
	    cmp__write(a->output ? a->output : "-", picture_render, &c))
		goto cleanup;
	if (a->ktap && cmp__write(a->ktap, ktap_render, &c))
		goto cleanup;
	if (to_stdout) {
		rc = rules__count(a, &base, &new) ? 1 : 0;
		goto cleanup;
	}
	if (!a->quiet && cmp__report(out, &base, &new)) {
		err__print("compare", 0, "cannot write the report");
		goto cleanup;
	}
	rc = rules__check(out, a, &base, &new) ? 1 : 0;
	if (fflush(out))
		rc = 2;
cleanup:
	side__free(&base);
	side__free(&new);
	free(a);
	return rc;
}
