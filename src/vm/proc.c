// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Running host tools (apt-get, dpkg-deb, depmod, ldd, cpio, qemu) with
 * fork/exec. No shell is involved, so user-supplied paths and arguments are
 * never parsed twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "vm_internal.h"

int vm_proc__run(char *const argv[], const struct proc_io *io)
{
	pid_t pid = proc__spawn(argv, io);

	if (pid < 0)
		return pid;
	return proc__wait(pid);
}

int vm_proc__capture(char *const argv[], const char *cwd, int err_fd,
		     char **out)
{
	struct proc_io io = { .cwd = cwd, .in_fd = -1, .err_fd = err_fd };
	int p[2] = { -1, -1 }, null_fd = -1, err;
	char *buf = NULL;
	pid_t pid = -1;

	*out = NULL;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	if (err_fd < 0) {
		null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		io.err_fd = null_fd;
	}
	io.out_fd = p[1];
	pid = proc__spawn(argv, &io);
	close(p[1]);
	p[1] = -1;
	if (pid < 0) {
		err = pid;
		goto cleanup;
	}
	err = fd__read_all(p[0], 0, &buf, NULL);
	if (err)
		goto cleanup;
	err = proc__wait(pid);
	pid = -1;
	if (err >= 0) {
		*out = buf;
		buf = NULL;
	}
cleanup:
	if (p[0] >= 0)
		close(p[0]);
	if (null_fd >= 0)
		close(null_fd);
	if (pid > 0) {
		kill(pid, SIGKILL);
		proc__wait(pid);
	}
	free(buf);
	return err;
}

void vm_proc__print_argv(FILE *f, char *const argv[])
{
	const char *safe =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"0123456789-_./=:,+@%";
	int i;

	for (i = 0; argv[i]; i++) {
		const char *s = argv[i];

		if (i)
			fputc(' ', f);
		if (*s && strspn(s, safe) == strlen(s)) {
			fputs(s, f);
			continue;
		}
		fputc('\'', f);
		for (; *s; s++) {
			if (*s == '\'')
				fputs("'\\''", f);
			else
				fputc(*s, f);
		}
		fputc('\'', f);
	}
	fputc('\n', f);
}
