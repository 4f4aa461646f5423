/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Macros every part of src/ may use: header-only, no state. The rest of
 * the shared layer has a header per concern beside it: err.h (stderr
 * lines), fs.h (temp names, tree removal, whole writes), proc.h (tool
 * look-up and spawn), jsonb.h (JSON building), parse.h (sizes, seconds).
 */
#ifndef FS_UTIL_H
#define FS_UTIL_H

#include <stddef.h>

/* Elements of an array (not a pointer: sizeof would give the pointer's). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* FS_UTIL_H */
