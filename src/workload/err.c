// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The workloads' error lines: one line on stderr per failure, worded the
 * same way for every workload.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "workload/workload_internal.h"

static void report(const char *wl, int err, const char *hint, const char *fmt,
		   va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* One fprintf so the line is written whole; on a terminal, first
	 * erase a progress line the command may be showing. */
	fprintf(stderr, "%sfolioscope: run %s: %s%s%s%s%s\n",
		isatty(STDERR_FILENO) ? "\r\033[K" : "", wl, msg,
		err ? ": " : "", err ? strerror(-err) : "", hint ? " " : "",
		hint ? hint : "");
}

void wl__err(const char *wl, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(wl, err, NULL, fmt, ap);
	va_end(ap);
}

void wl__err_hint(const char *wl, int err, const char *hint, const char *fmt,
		  ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(wl, err, hint, fmt, ap);
	va_end(ap);
}
