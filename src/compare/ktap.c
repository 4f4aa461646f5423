// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The --expect rules' verdicts as KTAP version 1, one test per rule in
 * the order given, for a kernel CI that gates on a comparison the way it
 * gates on kselftest results.
 */
#include <errno.h>
#include <stdio.h>
#include "compare/compare.h"
#include "report/report.h"

/* "# base: 3 runs on Linux 6.1.0-13-cloud-amd64", of its first run */
static void side_line(FILE *f, const struct cmp_side *s)
{
	fprintf(f, "# %s: %d run%s on Linux ", s->label, s->nruns,
		s->nruns == 1 ? "" : "s");
	report__ktap_text(f, s->runs[0].kernel);
	fputc('\n', f);
}

int cmp__ktap(FILE *f, const struct cmp_rule *rule, int nrules,
	      const struct cmp_side *base, const struct cmp_side *new,
	      const char *warning)
{
	struct cmp_verdict v;
	char l[32], r[32];

	fprintf(f, "KTAP version 1\n1..%d\n# folioscope compare\n", nrules);
	side_line(f, base);
	side_line(f, new);
	if (warning) {
		fputs("# warning: compared with --force although runs "
		      "differ: ",
		      f);
		report__ktap_text(f, warning);
		fputc('\n', f);
	}
	for (int i = 0; i < nrules; i++) {
		cmp__rule_eval(&rule[i], base, new, &v);
		fprintf(f, "%sok %d ", v.pass ? "" : "not ", i + 1);
		report__ktap_text(f, rule[i].text);
		/* The values compared, as the text's verdict says them. */
		if (!v.evaluated) {
			fputs(" # no value: ", f);
			report__ktap_text(f, v.why);
		} else {
			cmp__fmt_value(l, sizeof(l), v.lhs, NULL);
			cmp__fmt_value(r, sizeof(r), v.rhs, NULL);
			fprintf(f, " # new %s%s %s %s%s", l,
				v.pass ? "" : ", not", cmp__op_str(rule[i].op),
				r, rule[i].rhs_base ? " (from base)" : "");
		}
		fputc('\n', f);
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
