// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The atomic file write every export shares (-j, -o, --ktap,
 * --events-json, compare -o): rendered whole in memory, then a temp file
 * beside the target (tmpfile.c), fsync and rename, so a reader never sees
 * half a file and a failed render leaves the old one as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "report/report.h"
#include "util/fs.h"

int report__write_atomic(const char *path, const void *buf, size_t len)
{
	bool have_tmp = false;
	sigset_t stop, old;
	char *tmp = NULL;
	int fd = -1, err;
	mode_t mask;

	if (!strcmp(path, "-")) {
		/* After what stdio still holds (trace's "== interval" heads).
		 */
		if (fflush(stdout))
			return -errno;
		return fd__write_all(STDOUT_FILENO, buf, len);
	}
	if (path__write_in_place(path)) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		err = fd__write_all(fd, buf, len);
		if (close(fd) && !err)
			err = -errno;
		return err;
	}
	/* What a SIGKILLed export of path left (the one thing not blocked). */
	report__tmp_clean(path);
	/*
	 * A stop signal is held until the temp file is renamed or removed:
	 * dying of it in between would leave the temp behind. (Another
	 * thread that does not block them could still take one.)
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	/* Same directory as path, so rename() is atomic. */
	err = report__tmp_name(path, &tmp);
	if (err)
		goto cleanup;
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	have_tmp = true;
	/* mkstemp() makes 0600; a report is no secret: the mode open()
	 * would give. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask)) {
		err = -errno;
		goto cleanup;
	}
	err = fd__write_all(fd, buf, len);
	if (err)
		goto cleanup;
	/* On disk before the rename makes it visible. */
	if (fsync(fd)) {
		err = -errno;
		goto cleanup;
	}
	err = close(fd) ? -errno : 0;
	fd = -1;
	if (err)
		goto cleanup;
	if (rename(tmp, path)) {
		err = -errno;
		goto cleanup;
	}
	have_tmp = false;

cleanup:
	if (fd >= 0)
		close(fd);
	if (have_tmp)
		unlink(tmp);
	free(tmp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

int report__render_atomic(const char *path, int (*render)(FILE *f, void *arg),
			  void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	err = render(f, arg);
	if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (!err)
		err = report__write_atomic(path, buf, len);
	free(buf);
	return err;
}
