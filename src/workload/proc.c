// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Running the external tools a workload needs (mkfs): fork/exec with the
 * tool looked up in $PATH and the sbin dirs, and its stderr kept for the
 * error line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "workload/workload_internal.h"

/* First dir of the ':'-separated list holding an executable name. */
static int find_in(const char *list, const char *name, char *out, size_t len)
{
	char *dirs, *dir, *save;
	int err = -ENOENT;

	dirs = strdup(list);
	if (!dirs)
		return -ENOMEM;
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		if (!wl__path(out, len, dir, name) && !access(out, X_OK)) {
			err = 0;
			break;
		}
	}
	free(dirs);
	return err;
}

/*
 * Resolve name like execvp would, but also in /usr/sbin and /sbin: mkfs
 * lives there and a non-login root shell may not have them in $PATH.
 * Done in the parent so the child only has to execv.
 */
static int find_exe(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	int err;

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, X_OK) ? -errno : 0;
	}
	err = find_in(path && *path ? path : "/usr/bin:/bin", name, out, len);
	if (err == -ENOENT)
		err = find_in("/usr/sbin:/sbin", name, out, len);
	return err;
}

/* Runs in the forked child: only async-signal-safe calls. */
static void exec_child(const char *exe, char *const argv[], int err_fd)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(err_fd, 2) < 0)
		_exit(126);
	execv(exe, argv);
	_exit(126);
}

int wl__exec(const char *wl, char *const argv[])
{
	const char *object = argv[0];
	char exe[4096], msg[256];
	int pfd[2] = { -1, -1 };
	int status, err, i;
	size_t n = 0;
	ssize_t k;
	pid_t pid;

	/* Errors name the last argument: the image or device worked on. */
	for (i = 1; argv[i]; i++)
		object = argv[i];
	err = find_exe(argv[0], exe, sizeof(exe));
	if (err) {
		wl__err(wl, err, "exec '%s'", argv[0]);
		return err;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		err = -errno;
		wl__err(wl, err, "pipe for '%s'", argv[0]);
		goto cleanup;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		wl__err(wl, err, "fork for '%s'", argv[0]);
		goto cleanup;
	}
	if (!pid)
		exec_child(exe, argv, pfd[1]);
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
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err = -errno;
			wl__err(wl, err, "wait for '%s'", argv[0]);
			goto cleanup;
		}
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
	return err;
}
