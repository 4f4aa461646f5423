/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Progress of long work on one self-overwriting stderr line, only when
 * stderr is a terminal (and FOLIOSCOPE_PROGRESS is not "0", which the VM
 * runner sets for a guest whose output is redirected on the host).
 */
#ifndef FS_PROGRESS_H
#define FS_PROGRESS_H

void progress__step(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Erase the progress line before real output. */
void progress__done(void);

#endif /* FS_PROGRESS_H */
