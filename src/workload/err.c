// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The workloads' error lines: one line on stderr per failure, worded the
 * same way for every workload.
 */
#include <stdarg.h>
#include <stdio.h>

#include "workload/workload_internal.h"
#include "util/err.h"

static void report(const char *wl, int err, const char *hint, const char *fmt,
		   va_list ap)
{
	char where[64];

	snprintf(where, sizeof(where), "run %s", wl);
	err__vprint(where, err, hint, fmt, ap);
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
