// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A run's verdicts as KTAP version 1 (the kernel's
 * Documentation/dev-tools/ktap.rst), the format kselftest and KUnit
 * results are collected in, so that a kernel CI reads folioscope without
 * glue of its own.
 *
 * The leaves are the report's own numbers, so that a KTAP parser's counts
 * can be held against the JSON: one per ground-truth check (passed or
 * failed), one skipped test per layout the kernel cannot run and one when
 * the environment left answers unjudged; besides them only reconcile,
 * the histograms against the workload's totals, which exits 1 too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/report.h"
#include "util/err.h"

/* Subtests are indented by two spaces per level (ktap.rst). */
#define SUB "  "

void report__ktap_text(FILE *f, const char *s)
{
	/* A description cannot hold '#' (it starts the directive), and a
	 * line break would end the line. */
	for (; *s; s++)
		fputc(*s == '#' ? '.' : (unsigned char)*s < ' ' ? ' ' : *s, f);
}

/* Checks and failures of no group (the kernel log's, made after the
 * workload): a test of their own. */
static void ungrouped(const struct fs_validation *v, __u64 *checks,
		      __u64 *failures)
{
	*checks = v->checks;
	*failures = v->failures;
	for (int g = 0; g < v->ngroups; g++) {
		*checks -= v->groups[g].checks;
		*failures -= v->groups[g].failures;
	}
}

/* "kind: layout" of a failed check. */
static void case_reason(FILE *f, const struct fs_case *c)
{
	report__ktap_text(f, c->kind);
	fputs(": ", f);
	report__ktap_text(f, c->layout);
}

/*
 * Test n: the checks of group g (0: those of no group) named name, each
 * a subtest: the failed ones the report kept first (what they expected
 * and got as a diagnostic line before each), then failures past those
 * the report keeps, then the passed ones.
 */
static void ktap_group(FILE *f, const struct fs_report *r, int n, int g,
		       const char *name, __u64 checks, __u64 failures)
{
	const struct fs_validation *v = &r->validation;
	const struct fs_case *first = NULL;
	__u64 i = 0, kept = 0;

	fputs(SUB "KTAP version 1\n" SUB "# Subtest: ", f);
	report__ktap_text(f, name);
	fprintf(f, "\n" SUB "1..%llu\n", (unsigned long long)checks);
	for (int k = 0; k < v->ncases && kept < failures; k++) {
		const struct fs_case *c = &v->cases[k];

		if (c->group != g)
			continue;
		if (!first)
			first = c;
		kept++;
		fputs(SUB "# expected: ", f);
		report__ktap_text(f, c->expected);
		fputs("; got: ", f);
		report__ktap_text(f, c->got);
		i++;
		fprintf(f, "\n" SUB "not ok %llu check %llu # ",
			(unsigned long long)i, (unsigned long long)i);
		case_reason(f, c);
		fputc('\n', f);
	}
	for (; i < failures; i++)
		fprintf(f,
			SUB "not ok %llu check %llu # a failure past the "
			    "first %d, whose layouts the report keeps\n",
			(unsigned long long)i + 1, (unsigned long long)i + 1,
			v->cases_per_group ?: FS_MAX_CASES);
	for (; i < checks; i++)
		fprintf(f, SUB "ok %llu check %llu\n",
			(unsigned long long)i + 1, (unsigned long long)i + 1);
	fprintf(f, "%sok %d ", failures ? "not " : "", n);
	report__ktap_text(f, name);
	if (first) {
		fputs(" # ", f);
		case_reason(f, first);
		if (failures > 1)
			fprintf(f, " (and %llu more failure%s)",
				(unsigned long long)failures - 1,
				failures > 2 ? "s" : "");
	} else if (failures) {
		fprintf(f,
			" # %llu failures past the first %d, whose layouts "
			"the report keeps",
			(unsigned long long)failures,
			v->cases_per_group ?: FS_MAX_CASES);
	}
	fputc('\n', f);
}

/* The last test: the probes' counts against the workload's totals. */
static void ktap_reconcile(FILE *f, const struct fs_report *r, int n)
{
	const struct fs_kv *kv = model__kv_find(r, "reconcile");
	const char *s = kv && kv->type == FS_KV_STR ? kv->s : NULL;

	if (s && !strcmp(s, "ok")) {
		fprintf(f, "ok %d reconcile\n", n);
	} else if (s && !strncmp(s, "skipped: ", 9)) {
		fprintf(f, "ok %d reconcile # SKIP ", n);
		report__ktap_text(f, s + 9);
		fputc('\n', f);
	} else if (s) {
		fprintf(f,
			"not ok %d reconcile # %s: the probes' counts are not "
			"the workload's totals\n",
			n, !strcmp(s, "MISMATCH") ? "MISMATCH" : "unknown");
	} else {
		fprintf(f, "ok %d reconcile # SKIP not reconciled\n", n);
	}
}

int report__ktap(FILE *f, const struct fs_report *r)
{
	const struct fs_validation *v = &r->validation;
	__u64 none_checks, none_failures;
	char verdict[512];
	int ntests = 1, n = 0;

	ungrouped(v, &none_checks, &none_failures);
	for (int g = 0; g < v->ngroups; g++)
		ntests += v->groups[g].checks > 0 || v->groups[g].note[0];
	ntests += (none_checks > 0) + v->nskips + (v->disturbed[0] != 0);
	/* "run shmem-read", or the command that made a report of several
	 * runs: "validate". */
	fprintf(f, "KTAP version 1\n1..%d\n# folioscope %s %s", ntests,
		r->tool_version,
		strcmp(r->workload_name, "validate") ? "run " : "");
	report__ktap_text(f, r->workload_name);
	fputs(" on Linux ", f);
	report__ktap_text(f, r->kernel);
	fputs(" ", f);
	report__ktap_text(f, r->machine);
	report__verdict(verdict, sizeof(verdict), r);
	fputs("\n# ", f);
	report__ktap_text(f, verdict);
	fputc('\n', f);
	for (int g = 0; g < r->coverage.ngroups; g++) {
		if (!model__coverage_warning(r, g))
			continue;
		fputs("# WARNING: ", f);
		report__ktap_text(f, r->coverage.g[g].name);
		fputs(" met only page-sized folios where the kernel makes "
		      "large ones: this run did NOT exercise large folios\n",
		      f);
	}
	for (int g = 0; g < v->ngroups; g++) {
		const struct fs_vgroup *vg = &v->groups[g];

		if (vg->checks) {
			ktap_group(f, r, ++n, g + 1, vg->name, vg->checks,
				   vg->failures);
		} else if (vg->note[0]) {
			/* A run of a report of several that checked
			 * nothing: its note says why. */
			fprintf(f, "ok %d ", ++n);
			report__ktap_text(f, vg->name);
			fputs(" # SKIP ", f);
			report__ktap_text(f, vg->note);
			fputc('\n', f);
		}
	}
	if (none_checks)
		ktap_group(f, r, ++n, 0, "the whole run", none_checks,
			   none_failures);
	for (int k = 0; k < v->nskips; k++) {
		fprintf(f, "ok %d ", ++n);
		report__ktap_text(f, v->skips[k].what);
		fputs(" # SKIP ", f);
		report__ktap_text(f, v->skips[k].why);
		fputc('\n', f);
	}
	/* Neither passed nor failed: the answers it spoiled say nothing
	 * about the kernel. */
	if (v->disturbed[0]) {
		fprintf(f,
			"ok %d environment # SKIP disturbed, not a kernel "
			"failure: ",
			++n);
		report__ktap_text(f, v->disturbed);
		fprintf(f, "; unjudged answers: %llu\n",
			(unsigned long long)v->unjudged);
	}
	ktap_reconcile(f, r, ++n);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

static int ktap_render(FILE *f, void *arg)
{
	return report__ktap(f, arg);
}

int report__ktap_write(const struct fs_report *r, const char *path)
{
	/* The same temp + fsync + rename as every report. */
	int err = report__render_atomic(path, ktap_render, (void *)r);

	if (err)
		err__print(NULL, err, "cannot write '%s'", path);
	return err;
}
