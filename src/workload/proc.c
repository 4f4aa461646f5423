// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Running the external tools a workload needs (mkfs): the tool looked up
 * in $PATH and the sbin dirs, and its stderr kept for the error line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "workload/workload_internal.h"
#include "util/proc.h"

/*
 * Tools are resolved like execvp would, but also in /usr/sbin and /sbin:
 * mkfs lives there and a non-login root shell may not have them in $PATH.
 */
static const struct exe_search wl_search = {
	.path_default = "/usr/bin:/bin",
	.extra = "/usr/sbin:/sbin",
};

int wl__exec(const char *wl, char *const argv[])
{
	const char *object = argv[0];
	struct proc_io io = { .in_fd = -1,
			      .search = &wl_search,
			      /* A killed run leaves no mkfs behind. */
			      .pdeathsig = true };
	int pfd[2] = { -1, -1 }, null_fd = -1;
	int status, err, i;
	char msg[256];
	size_t n = 0;
	ssize_t k;
	pid_t pid;

	/* Errors name the last argument: the image or device worked on. */
	for (i = 1; argv[i]; i++)
		object = argv[i];
	if (pipe2(pfd, O_CLOEXEC)) {
		err = -errno;
		wl__err(wl, err, "pipe for '%s'", argv[0]);
		goto cleanup;
	}
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null_fd < 0) {
		err = -errno;
		wl__err(wl, err, "open /dev/null for '%s'", argv[0]);
		goto cleanup;
	}
	io.out_fd = null_fd;
	io.err_fd = pfd[1];
	pid = proc__spawn(argv, &io);
	if (pid < 0) {
		err = pid;
		wl__err(wl, err, "exec '%s'", argv[0]);
		goto cleanup;
	}
	close(pfd[1]);
	pfd[1] = -1;
	/* Keep the start of the tool's stderr for the error line. */
	for (;;) {
		char drain[512];

		if (n < sizeof(msg) - 1)
			k = read(pfd[0], msg + n, sizeof(msg) - 1 - n);
		else
			k = read(pfd[0], drain, sizeof(drain));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if (n < sizeof(msg) - 1)
			n += k;
	}
	msg[n] = '\0';
	err = proc__wait_status(pid, &status);
	if (err) {
		wl__err(wl, err, "wait for '%s'", argv[0]);
		goto cleanup;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		goto cleanup;
	msg[strcspn(msg, "\n")] = '\0';
	err = -EIO;
	if (WIFEXITED(status))
		wl__err(wl, 0, "%s '%s': exit status %d%s%s", argv[0], object,
			WEXITSTATUS(status), *msg ? ": " : "", msg);
	else
		wl__err(wl, 0, "%s '%s': killed by signal %d", argv[0], object,
			WTERMSIG(status));
cleanup:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (null_fd >= 0)
		close(null_fd);
	return err;
}
