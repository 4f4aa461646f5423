// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli/runguard.h"
#include "workload/stale.h"
#include "util/util.h"

volatile sig_atomic_t runguard_signal;

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig)
{
	static const char msg[] =
		"folioscope: run: interrupted: finishing the workload to undo "
		"it (again to exit at once)\n";
	ssize_t n;

	if (runguard_signal) {
		/* Second one: now. The next run removes what is left. */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	runguard_signal = sig;
	n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)n;
}

void runguard__start(void)
{
	struct sigaction sa;

	wl__stale_clean(NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* Restarted: the workload's syscalls must not see EINTR. */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) {
		struct sigaction old;

		/* Under nohup a hangup stays ignored. (SIGINT is taken even
		 * when ignored, as trace does: a shell's background job has
		 * it ignored and is still stopped with kill -INT.) */
		if (stop_signals[i] == SIGHUP &&
		    !sigaction(SIGHUP, NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(stop_signals[i], &sa, NULL);
	}
}

void runguard__clean_dir(const char *dir)
{
	struct stat sb;

	/* Only a --dir the workload would accept (safedir.h); it says why
	 * it refuses any other, so nothing is printed here. */
	if (lstat(dir, &sb) || !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid())
		return;
	wl__stale_clean(dir);
}

int runguard__finish(int rc)
{
	int sig = runguard_signal;

	if (!sig)
		return rc;
	fflush(NULL);
	signal(sig, SIG_DFL);
	raise(sig);
	return 128 + sig; /* only if the signal is blocked */
}
