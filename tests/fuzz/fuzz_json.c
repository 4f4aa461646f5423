// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: the JSON report reader (report__json_read, through a
 * memfd so the real open/read path runs), then, for a report it accepts,
 * every exporter and the comparison of the report with itself (text
 * and pictures): what
 * 'folioscope report' and 'folioscope compare' do with a file they are given.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "compare/compare.h"
#include "report/report.h"

static FILE *sink;
static int memfd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* The reader's one-line errors: run.sh passes -close_fd_mask=2. */
	sink = fopen("/dev/null", "w");
	memfd = memfd_create("fuzz-json", MFD_CLOEXEC);
	return sink && memfd >= 0 ? 0 : 1;
}

static void exercise(const struct fs_report *r)
{
	static const char *paths[] = { "fuzz.json" };
	struct cmp_side base = { .label = "base", .nruns = 1, .paths = paths };
	struct cmp_side new = { .label = "new", .nruns = 1, .paths = paths };
	struct fs_report runs[2];
	char why[512];
	int mismatch;

	for (int f = 0; f < REPORT_FMT_NR; f++)
		report__emit(sink, f, r, NULL);
	report__emit(sink, REPORT_FMT_SVG, r, r);
	report__emit(sink, REPORT_FMT_HTML, r, r);
	memcpy(&runs[0], r, sizeof(*r));
	memcpy(&runs[1], r, sizeof(*r));
	base.runs = &runs[0];
	new.runs = &runs[1];
	cmp__pool(&base);
	cmp__pool(&new);
	mismatch = cmp__mismatch(&base, &new, why, sizeof(why));
	cmp__report(sink, &base, &new);
	cmp__picture(sink, true, &base, &new, NULL, 0, mismatch ? why : NULL);
	cmp__picture(sink, false, &base, &new, NULL, 0, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fs_report r;
	char path[64];

	if (ftruncate(memfd, 0) ||
	    pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	if (!report__json_read(path, &r)) {
		exercise(&r);
		model__free(&r);
	}
	return 0;
}
