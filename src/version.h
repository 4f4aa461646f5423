/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef FS_VERSION_H
#define FS_VERSION_H
#define FOLIOSCOPE_VERSION "0.1.0"
#endif
