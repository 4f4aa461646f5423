// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SVG and HTML pieces the pictures share: XML escaping and the number
 * of charts a report draws.
 */
#include <stdio.h>
#include <string.h>
#include "report/report.h"

void report__xml_escape(FILE *f, const char *s)
{
	report__xml_escape_n(f, s, strlen(s));
}

void report__xml_escape_n(FILE *f, const char *s, size_t n)
{
	for (const char *end = s + n; s < end && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			/* XML 1.0 has no place for other control characters. */
			if ((unsigned char)*s < 0x20 && *s != '\n' &&
			    *s != '\t')
				fputc(' ', f);
			else
				fputc(*s, f);
		}
	}
}

int report__nr_charts(const struct fs_report *r)
{
	int n = 0;

	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct fs_target_report *tr = &r->target[t];

		if (!tr->enabled)
			continue;
		for (int i = 0; i < tr->nhists; i++)
			n += tr->hist[i].measured;
	}
	return n;
}
