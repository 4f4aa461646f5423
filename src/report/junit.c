// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A run's verdicts as JUnit XML, the test report Jenkins, GitLab and most
 * CI dashboards read: a testsuite per group of layouts (validate: per
 * tier), a testcase per failed check the report keeps, one for the
 * failures past those and one for the checks that passed, whose count a
 * property gives; a testsuite "skipped" with a skipped testcase per
 * layout the kernel cannot run, and "reconcile".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "report/report.h"
#include "util/err.h"

static void attr(FILE *f, const char *name, const char *value)
{
	fprintf(f, " %s=\"", name);
	report__xml_escape(f, value);
	fputc('"', f);
}

static void testcase_open(FILE *f, const char *suite, const char *name)
{
	fputs("    <testcase", f);
	attr(f, "classname", suite);
	attr(f, "name", name);
}

/* The testcases of group g (0: checks of no group), in suite name. */
static void suite(FILE *f, const struct fs_report *r, int g, const char *name,
		  __u64 checks, __u64 failures, const char *note)
{
	const struct fs_validation *v = &r->validation;
	__u64 kept = 0;
	int tests = 0, failed = 0;
	char what[400];

	for (int k = 0; k < v->ncases; k++)
		kept += v->cases[k].group == g;
	tests = (int)kept + (failures > kept) + (checks > failures) +
		(!checks && note);
	failed = (int)kept + (failures > kept);
	fputs("  <testsuite", f);
	attr(f, "name", name);
	fprintf(f,
		" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\">\n",
		tests, failed, !checks && note ? 1 : 0);
	fprintf(f,
		"    <properties><property name=\"checks\" value=\"%llu\"/>"
		"<property name=\"failed_checks\" value=\"%llu\"/>",
		(unsigned long long)checks, (unsigned long long)failures);
	if (note) {
		fputs("<property name=\"note\"", f);
		attr(f, "value", note);
		fputs("/>", f);
	}
	fputs("</properties>\n", f);
	for (int k = 0; k < v->ncases; k++) {
		const struct fs_case *c = &v->cases[k];

		if (c->group != g)
			continue;
		snprintf(what, sizeof(what), "%s: %s", c->kind, c->layout);
		testcase_open(f, name, what);
		fputs(">\n      <failure", f);
		attr(f, "type", c->kind);
		snprintf(what, sizeof(what), "expected: %s; got: %s",
			 c->expected, c->got);
		attr(f, "message", what);
		fputs("/>\n    </testcase>\n", f);
	}
	if (failures > kept) {
		snprintf(what, sizeof(what),
			 "%llu more failures, past those the report keeps",
			 (unsigned long long)(failures - kept));
		testcase_open(f, name, what);
		fputs(">\n      <failure", f);
		attr(f, "type", "failures not kept");
		attr(f, "message", what);
		fputs("/>\n    </testcase>\n", f);
	}
	if (checks > failures) {
		snprintf(what, sizeof(what), "%llu checks passed",
			 (unsigned long long)(checks - failures));
		testcase_open(f, name, what);
		fputs("/>\n", f);
	}
	if (!checks && note) {
		testcase_open(f, name, "nothing checked");
		fputs(">\n      <skipped", f);
		attr(f, "message", note);
		fputs("/>\n    </testcase>\n", f);
	}
	fputs("  </testsuite>\n", f);
}

int report__junit(FILE *f, const struct fs_report *r)
{
	const struct fs_validation *v = &r->validation;
	const struct fs_kv *rec = model__kv_find(r, "reconcile");
	__u64 none_checks = v->checks, none_failures = v->failures;
	char name[96];

	for (int g = 0; g < v->ngroups; g++) {
		none_checks -= v->groups[g].checks;
		none_failures -= v->groups[g].failures;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", f);
	snprintf(name, sizeof(name), "folioscope %s", r->workload_name);
	attr(f, "name", name);
	fputs(">\n", f);
	for (int g = 0; g < v->ngroups; g++) {
		const struct fs_vgroup *vg = &v->groups[g];

		if (vg->checks || vg->note[0])
			suite(f, r, g + 1, vg->name, vg->checks, vg->failures,
			      vg->note[0] ? vg->note : NULL);
	}
	if (none_checks)
		suite(f, r, 0, "the whole run", none_checks, none_failures,
		      NULL);
	if (v->nskips) {
		fputs("  <testsuite name=\"skipped\"", f);
		fprintf(f,
			" tests=\"%d\" failures=\"0\" errors=\"0\" "
			"skipped=\"%d\">\n",
			v->nskips, v->nskips);
		for (int k = 0; k < v->nskips; k++) {
			testcase_open(f, "skipped", v->skips[k].what);
			fputs(">\n      <skipped", f);
			attr(f, "message", v->skips[k].why);
			fputs("/>\n    </testcase>\n", f);
		}
		fputs("  </testsuite>\n", f);
	}
	if (rec && rec->type == FS_KV_STR) {
		bool ok = !strcmp(rec->s, "ok");
		bool skip = !strncmp(rec->s, "skipped: ", 9);

		fprintf(f,
			"  <testsuite name=\"reconcile\" tests=\"1\" "
			"failures=\"%d\" errors=\"0\" skipped=\"%d\">\n",
			!ok && !skip, skip);
		testcase_open(f, "reconcile",
			      "the probes' counts are the workload's totals");
		if (ok) {
			fputs("/>\n", f);
		} else if (skip) {
			fputs(">\n      <skipped", f);
			attr(f, "message", rec->s + 9);
			fputs("/>\n    </testcase>\n", f);
		} else {
			fputs(">\n      <failure", f);
			attr(f, "type", "reconcile");
			attr(f, "message", rec->s);
			fputs("/>\n    </testcase>\n", f);
		}
		fputs("  </testsuite>\n", f);
	}
	fputs("</testsuites>\n", f);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

static int junit_render(FILE *f, void *arg)
{
	return report__junit(f, arg);
}

int report__junit_write(const struct fs_report *r, const char *path)
{
	int err = report__render_atomic(path, junit_render, (void *)r);

	if (err)
		err__print(NULL, err, "cannot write '%s'", path);
	return err;
}
