/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Small helpers every part of src/ may use: header-only, no state, so any
 * file can include it without linking anything.
 */
#ifndef FS_UTIL_H
#define FS_UTIL_H

#include <stddef.h>

/* Elements of an array (not a pointer: sizeof would give the pointer's). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* FS_UTIL_H */
