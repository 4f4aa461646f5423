/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Number parsers of the command line, pure (no argp, no exit) so that the
 * fuzz targets (tests/fuzz) call exactly what the commands call.
 */
#ifndef FS_UTIL_PARSE_H
#define FS_UTIL_PARSE_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * A byte size: decimal (or 0x hex) digits and an optional K, M or G
 * (binary) suffix, nothing else: no sign, no space, no overflow; zero
 * only when zero is true. Returns 0 or -EINVAL.
 */
int size__parse(const char *s, bool zero, __u64 *out);

/*
 * A count: a whole number from 1 to max. With units, written as
 * size__parse takes it (0x hex, a K, M or G suffix: --block-size 4K);
 * without, decimal digits only (--sample 100). Returns 0, -EINVAL (not
 * such a number, or 0) or -ERANGE (above max).
 */
int count__parse(const char *s, bool units, __u64 max, __u64 *out);

/* The longest duration or interval a command takes: a year. */
#define PARSE_MAX_SECONDS (86400.0 * 365)

/*
 * Seconds: a finite decimal number, 0 < v <= PARSE_MAX_SECONDS (so no nan,
 * inf, hex float, sign or space). Returns 0 or -EINVAL.
 */
int seconds__parse(const char *s, double *out);

/*
 * A duration: a decimal number and a unit, ns, us, ms, s, m or h
 * ("500us", "2ms", "1.5s", "10m"), nothing else; more than 0 and at most
 * PARSE_MAX_SECONDS, rounded to whole nanoseconds (at least 1). Returns
 * 0 or -EINVAL.
 */
int duration__parse(const char *s, __u64 *ns);

/*
 * A list of indices: ascending decimal numbers under n, comma-separated,
 * at least one ("3,17,42"), into idx[0..) (NULL: only counted) and
 * *count. Returns 0 or -EINVAL.
 */
int index_list__parse(const char *s, __u32 n, __u32 *idx, __u32 *count);

#endif /* FS_UTIL_PARSE_H */
