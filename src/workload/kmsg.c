// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel's own complaints during a run: /dev/kmsg is opened when the
 * run starts, positioned after the last record, and read when it ends.
 * A record of the kernel (facility 0) that is a WARNING, a BUG, an Oops,
 * a general protection fault, a KASAN or UBSAN report or a hung task
 * fails the run, whatever its answers were: a kernel that got the
 * answer right while it complained is not right.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "workload/workload_internal.h"

struct wl_kmsg {
	int fd;
	bool user;
};

/* Message texts that are complaints, wherever they start in the line. */
static const char *const complaints[] = {
	"WARNING: ",
	"BUG: ",
	"kernel BUG at ",
	"Oops: ",
	"general protection fault",
	"KASAN: ",
	"UBSAN: ",
	" blocked for more than ", /* "INFO: task x:1 blocked for more
				    * than 120 seconds." */
};

const char *wl_kmsg__complaint(const char *rec, bool user)
{
	const char *msg = strchr(rec, ';');
	unsigned long pri;
	char *end;

	/* "PRI,SEQ,TS,FLAGS;MESSAGE": PRI = facility << 3 | level. */
	pri = strtoul(rec, &end, 10);
	if (!msg || end == rec || *end != ',')
		return NULL;
	if ((pri >> 3) != 0 && !(user && (pri >> 3) == 1))
		return NULL;
	msg++;
	for (size_t i = 0; i < ARRAY_SIZE(complaints); i++)
		if (strstr(msg, complaints[i]))
			return msg;
	return NULL;
}

int wl_kmsg__open(struct wl_kmsg **out, bool user)
{
	struct wl_kmsg *k;
	int err;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->user = user;
	k->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0 || lseek(k->fd, 0, SEEK_END) < 0) {
		err = -errno;
		if (k->fd >= 0)
			close(k->fd);
		free(k);
		return err;
	}
	*out = k;
	return 0;
}

int wl_kmsg__scan(struct wl_kmsg *k, char *first, size_t n)
{
	/* One record per read; longer ones are cut to the buffer. */
	char rec[8192];
	int found = 0;

	first[0] = '\0';
	for (;;) {
		ssize_t len = read(k->fd, rec, sizeof(rec) - 1);
		const char *msg;
		char *nl;

		if (len < 0 && errno == EPIPE)
			continue; /* records overwritten: read on */
		if (len <= 0)
			break;
		rec[len] = '\0';
		nl = strchr(rec, '\n');
		if (nl)
			*nl = '\0';
		msg = wl_kmsg__complaint(rec, k->user);
		if (msg && !found++)
			snprintf(first, n, "%s", msg);
	}
	return found;
}

void wl_kmsg__close(struct wl_kmsg *k)
{
	if (!k)
		return;
	close(k->fd);
	free(k);
}
