// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CSV reporter: one row per histogram bucket, for spreadsheets.
 * RFC 4180: header row, CRLF line ends, fields with a comma, quote or line
 * break quoted with inner quotes doubled.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "report/report.h"

void report__csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_hist(FILE *f, const char *target, const struct fs_histogram *h)
{
	struct fs_bucket b;
	int first, last;

	/* Not measured has no rows: an empty range would read as "none". */
	if (!h->measured || !model__range(h, &first, &last))
		return;
	for (int s = first; s <= last; s++) {
		model__bucket(h, s, &b);
		report__csv_field(f, target);
		fputc(',', f);
		report__csv_field(f, h->spec->name);
		fprintf(f, ",%llu,%llu,%llu\r\n", (unsigned long long)b.lo,
			(unsigned long long)b.hi, (unsigned long long)b.count);
	}
}

int report__csv(FILE *f, const struct fs_report *r)
{
	fputs("target,histogram,lo,hi,count\r\n", f);
	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct fs_target_report *tr = &r->target[t];

		if (!tr->enabled)
			continue;
		for (int i = 0; i < tr->nhists; i++)
			csv_hist(f, tr->name, &tr->hist[i]);
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
