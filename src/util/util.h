/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * src/util/ is the helper layer all of src/ may use, and uses nothing of
 * src/ itself. It has one header per concern, each with its .c beside it
 * but this one; a file includes the headers of the concerns it needs:
 *   util.h   macros for any C file (ARRAY_SIZE)
 *   err.h    the one error printer (err__print: one whole line on
 *            stderr) and the terminal's progress line it erases first
 *   fs.h     whole writes, outputs written in place, temp names and
 *            their owners, tree removal, a path's superblock device,
 *            detached pseudo-filesystem mounts, whole-file reads
 *   proc.h   tools found and run with fork/exec (never a shell), waits,
 *            and telling vm's guest init that a command is done
 *   jsonb.h  a json-c tree built with one out-of-memory check at the end
 *   parse.h  the command line's sizes, counts, seconds, durations and
 *            index lists, pure so that the fuzz targets call what the
 *            commands call
 *   rng.h    a seeded generator that draws the same numbers on every
 *            machine
 *   clock.h  the monotonic clock in milliseconds, for deadlines
 */
#ifndef FS_UTIL_H
#define FS_UTIL_H

#include <stddef.h>

/* Elements of an array (not a pointer: sizeof would give the pointer's). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* FS_UTIL_H */
