// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What this kernel can do that a workload may need, each tried by making
 * and undoing one: a ring of io_uring with a registered buffer (not built
 * in, or kernel.io_uring_disabled), a loop device bound to a file (a
 * kernel without loop, or no free device), an AF_UNIX socket pair (small
 * test kernels have none). A way that needs what is missing is skipped
 * by the workloads, with why.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "workload/caps.h"
#include "workload/read_uring.h"

int wl_caps__way(enum wl_way w, const char *wl, const char *path, char *why,
		 size_t n)
{
	unsigned char byte;
	struct iovec one = { &byte, 1 };
	const char *failed = NULL;
	char dev[64];
	int sv[2], lfd = -1, err = 0;
	bool node = false;

	why[0] = '\0';
	switch (wl_way__info(w)->need) {
	case WL_NEED_URING:
		err = wl_uring__once(WL_WAY_URING_FIXED, -1, &one, 1, 0, &one,
				     &failed);
		if (err && failed && !strcmp(failed, "ring"))
			snprintf(why, n,
				 "io_uring: %s (not built, or "
				 "kernel.io_uring_disabled)",
				 strerror(-err));
		else if (err)
			snprintf(why, n, "io_uring %s: %s",
				 failed ? failed : "read", strerror(-err));
		break;
	case WL_NEED_LOOP:
		err = wl__loop_attach(wl, path, dev, sizeof(dev), &lfd, &node);
		if (lfd >= 0)
			close(lfd);
		if (node)
			unlink(dev);
		if (err)
			snprintf(why, n, "loop: no loop device to bind: %s",
				 strerror(-err));
		break;
	case WL_NEED_SOCKET:
		errno = 0;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
			err = errno ? -errno : -EIO;
			snprintf(why, n,
				 "%s: an AF_UNIX socket pair: %s (no AF_UNIX "
				 "in this kernel)",
				 wl_way__name(w), strerror(-err));
			break;
		}
		close(sv[0]);
		close(sv[1]);
		break;
	default:
		break;
	}
	return err;
}

bool wl_caps__thp_forced(void)
{
	char line[128] = "";
	FILE *f;

	f = fopen("/sys/kernel/mm/transparent_hugepage/shmem_enabled", "re");
	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return strstr(line, "[force]") != NULL;
}
