/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What 'folioscope run' needs around the command itself: removing what a
 * killed run left behind, and SIGINT/SIGTERM/SIGHUP deferred until the
 * workload has been undone (a default signal death left its tmpfs or loop
 * mount behind). A second signal ends the process at once; the next run
 * then removes what it left.
 */
#ifndef FS_CLI_RUNGUARD_H
#define FS_CLI_RUNGUARD_H

#include <signal.h>

/* The first stop signal received, 0 if none: code may poll it to stop
 * early at a point where it can still clean up. */
extern volatile sig_atomic_t runguard_signal;

/* Before the command: stale dirs in $TMPDIR, then the signal handlers. */
void runguard__start(void);
/*
 * Stale dirs in a run's --dir, once the options are parsed; only when
 * dir is a real directory owned by the effective uid.
 */
void runguard__clean_dir(const char *dir);
/*
 * After the command returned rc (having cleaned up): without a signal,
 * rc; with one, die of that signal, as the caller expects of a command
 * that was interrupted.
 */
int runguard__finish(int rc);

#endif /* FS_CLI_RUNGUARD_H */
