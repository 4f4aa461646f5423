// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "progress.h"
#include "util/err.h"

static int enabled = -1;
static bool shown;

static bool progress__enabled(void)
{
	const char *env;

	if (enabled < 0) {
		env = getenv("FOLIOSCOPE_PROGRESS");
		enabled = tty__stderr() && !(env && !strcmp(env, "0"));
	}
	return enabled;
}

void progress__step(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	if (!progress__enabled())
		return;
	fprintf(stderr, "\rfolioscope: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("...\033[K", stderr);
	shown = true;
}

void progress__done(void)
{
	if (!shown)
		return;
	tty__erase_line();
	shown = false;
}
