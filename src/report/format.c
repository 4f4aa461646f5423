// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Export formats: their names, and the one place that picks a writer by
 * format (report__emit) and writes its output to a file (report__write).
 * Only this file calls the writers by format; they share words.c,
 * markup.c and atomic.c, never this file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "report/report.h"
#include "util/util.h"
#include "util/err.h"

static const char *const format_names[REPORT_FMT_NR] = {
	[REPORT_FMT_TEXT] = "text",
	[REPORT_FMT_JSON] = "json",
	[REPORT_FMT_CSV] = "csv",
	[REPORT_FMT_OPENMETRICS] = "openmetrics",
	[REPORT_FMT_PROMETHEUS] = "prometheus",
	[REPORT_FMT_SVG] = "svg",
	[REPORT_FMT_HTML] = "html",
};

static const struct {
	const char *ext;
	enum report_format fmt;
} format_exts[] = {
	{ ".json", REPORT_FMT_JSON },	   { ".csv", REPORT_FMT_CSV },
	{ ".om", REPORT_FMT_OPENMETRICS }, { ".prom", REPORT_FMT_PROMETHEUS },
	{ ".svg", REPORT_FMT_SVG },	   { ".html", REPORT_FMT_HTML },
	{ ".htm", REPORT_FMT_HTML },	   { ".txt", REPORT_FMT_TEXT },
};

int report__format_parse(const char *name, enum report_format *fmt)
{
	for (int i = 0; i < REPORT_FMT_NR; i++) {
		if (!strcmp(name, format_names[i])) {
			*fmt = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *report__format_name(enum report_format fmt)
{
	return fmt < REPORT_FMT_NR ? format_names[fmt] : "?";
}

int report__format_guess(const char *path, enum report_format *fmt)
{
	const char *dot = strrchr(path, '.');

	/* A dot in a directory name is not an extension. */
	if (!dot || strchr(dot, '/'))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(format_exts); i++) {
		if (!strcasecmp(dot, format_exts[i].ext)) {
			*fmt = format_exts[i].fmt;
			return 0;
		}
	}
	return -EINVAL;
}

bool report__format_ab(enum report_format fmt)
{
	return fmt == REPORT_FMT_SVG || fmt == REPORT_FMT_HTML;
}

int report__emit(FILE *f, enum report_format fmt, const struct fs_report *base,
		 const struct fs_report *next)
{
	int err;

	if (next && !report__format_ab(fmt))
		return -EINVAL;
	switch (fmt) {
	case REPORT_FMT_TEXT:
		err = report__text(f, base);
		break;
	case REPORT_FMT_JSON:
		err = report__json_stream(f, base);
		break;
	case REPORT_FMT_CSV:
		err = report__csv(f, base);
		break;
	case REPORT_FMT_OPENMETRICS:
		err = report__openmetrics(f, base, true);
		break;
	case REPORT_FMT_PROMETHEUS:
		err = report__openmetrics(f, base, false);
		break;
	case REPORT_FMT_SVG:
		err = report__svg(f, base, next);
		break;
	case REPORT_FMT_HTML:
		err = report__html(f, base, next);
		break;
	default:
		return -EINVAL;
	}
	if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
	return err;
}

struct emit_args {
	enum report_format fmt;
	const struct fs_report *base, *next;
};

static int emit_render(FILE *f, void *arg)
{
	const struct emit_args *e = arg;

	return report__emit(f, e->fmt, e->base, e->next);
}

int report__write(const char *path, enum report_format fmt,
		  const struct fs_report *base, const struct fs_report *next)
{
	struct emit_args e = { .fmt = fmt, .base = base, .next = next };
	int err = report__render_atomic(path, emit_render, &e);

	if (err == -EINVAL && next && !report__format_ab(fmt))
		err__print(NULL, 0,
			   "cannot write '%s': format %s shows one run; two "
			   "need svg or html",
			   path, report__format_name(fmt));
	else if (err)
		err__print(NULL, err, "cannot write '%s'", path);
	return err;
}
