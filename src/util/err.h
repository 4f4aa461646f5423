/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one way folioscope prints an error or notice line on stderr
 * (err.c): "folioscope: WHERE: message[: strerror][ hint]", written with
 * one call so the line stays whole, and on a terminal preceded by what
 * erases a progress line that may be showing (the stream stderr is, not
 * fd 2: while argp parses, stderr is a stream of its own). errno is left
 * as it was.
 */
#ifndef FS_UTIL_ERR_H
#define FS_UTIL_ERR_H

#include <stdarg.h>
#include <stdbool.h>

/* Carriage return and erase to the end of the line. */
#define TTY_ERASE_LINE "\r\033[K"

/* Whether stderr is taken for a terminal: FOLIOSCOPE_TTY=1 or 0 says so
 * (vm passes on whether the host's stderr is one: the guest's is a
 * serial tty either way), else whether it is one. */
bool tty__stderr(void);

/* Erase the current stderr line (a progress line) if stderr is a
 * terminal. */
void tty__erase_line(void);

/*
 * One stderr line: where is the command or part speaking ("run", "vm",
 * "run dedupe"; NULL for none), err a negative errno whose text follows
 * the message (0 for none), hint NULL or text after that.
 */
void err__vprint(const char *where, int err, const char *hint, const char *fmt,
		 va_list ap) __attribute__((format(printf, 4, 0)));
void err__print(const char *where, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* FS_UTIL_ERR_H */
