// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* folioscope's stderr lines; see err.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/err.h"

bool tty__stderr(void)
{
	const char *env = getenv("FOLIOSCOPE_TTY");
	int saved = errno;
	bool tty;

	if (env && (!strcmp(env, "0") || !strcmp(env, "1")))
		return env[0] == '1';
	tty = isatty(fileno(stderr));
	errno = saved;
	return tty;
}

void tty__erase_line(void)
{
	int saved = errno;

	if (tty__stderr())
		fputs(TTY_ERASE_LINE, stderr);
	errno = saved;
}

void err__vprint(const char *where, int err, const char *hint, const char *fmt,
		 va_list ap)
{
	int saved = errno; /* callers may still return -errno */
	char msg[8192];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%sfolioscope: %s%s%s%s%s%s%s\n",
		tty__stderr() ? TTY_ERASE_LINE : "", where ? where : "",
		where ? ": " : "", msg, err ? ": " : "",
		err ? strerror(-err) : "", hint ? " " : "", hint ? hint : "");
	errno = saved;
}

void err__print(const char *where, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err__vprint(where, err, NULL, fmt, ap);
	va_end(ap);
}
