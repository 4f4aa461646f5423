// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ways into a read as a table of data (ways.h): one row per way,
 * with its name (--syscall's), what it needs, where its bytes go and how
 * the probes see its calls; and preadv2's flags by name.
 */
#include <stdio.h>
#include <string.h>

#include "util/util.h"
#include "workload/ways.h"

static const struct wl_way_info ways[WL_WAY_NR] = {
	[WL_WAY_READ] = { "read", .moves = true },
	[WL_WAY_PREAD] = { "pread" },
	[WL_WAY_READV] = { "readv", .iovecs = true, .moves = true },
	[WL_WAY_PREADV2] = { "preadv2", .iovecs = true, .rwf = true },
	[WL_WAY_URING_READ] = { "io_uring-read", .need = WL_NEED_URING,
				.seen = WL_SEEN_URING },
	[WL_WAY_URING_READV] = { "io_uring-readv", .need = WL_NEED_URING,
				 .seen = WL_SEEN_URING, .iovecs = true },
	[WL_WAY_URING_FIXED] = { "io_uring-read_fixed", .need = WL_NEED_URING,
				 .seen = WL_SEEN_URING },
	/* The file's offset given, so its position stays where it is. */
	[WL_WAY_SPLICE] = { "splice", .back = WL_BACK_PIPE,
			    .seen = WL_SEEN_PIPED },
	[WL_WAY_SENDFILE] = { "sendfile", .back = WL_BACK_FILE,
			      .seen = WL_SEEN_PIPED },
	[WL_WAY_SENDFILE_SOCK] = { "sendfile-socket", .need = WL_NEED_SOCKET,
				   .back = WL_BACK_SOCK,
				   .seen = WL_SEEN_PIPED },
	[WL_WAY_COPY_RANGE] = { "copy_file_range", .back = WL_BACK_FILE,
				.seen = WL_SEEN_PIPED },
	[WL_WAY_COPY_OTHER_FS] = { "copy_file_range-other-fs",
				   .back = WL_BACK_FILE, .seen = WL_SEEN_PIPED,
				   .other_fs = true },
	[WL_WAY_COPY_SAME] = { "copy_file_range-same-file",
			       .back = WL_BACK_FILE, .seen = WL_SEEN_PIPED,
			       .same_file = true },
	[WL_WAY_LOOP] = { "loop", .need = WL_NEED_LOOP, .seen = WL_SEEN_NONE,
			  .sectors = true },
};

const struct wl_way_info *wl_way__info(enum wl_way w)
{
	return &ways[w < WL_WAY_NR ? w : WL_WAY_READ];
}

const char *wl_way__name(enum wl_way w)
{
	return w < WL_WAY_NR ? ways[w].name : "?";
}

void wl_ways__missed(const struct wl_totals *t, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int w = 0; w < WL_WAY_NR; w++) {
		int m;

		if (t->way_calls[w])
			continue;
		m = snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
			     ways[w].name);
		if (m < 0 || (size_t)m >= n - len)
			break;
		len += (size_t)m;
	}
	if (!len)
		snprintf(buf, n, "none");
}

int wl_way__parse(const char *name)
{
	for (int w = 0; name && w < WL_WAY_NR; w++)
		if (!strcmp(name, ways[w].name))
			return w;
	return -1;
}

static const struct {
	const char *name;
	int flags;
} rwfs[] = { { "none", 0 }, { "nowait", RWF_NOWAIT }, { "hipri", RWF_HIPRI } };

const char *wl_rwf__name(int rwf)
{
	for (size_t i = 1; i < ARRAY_SIZE(rwfs); i++)
		if (rwf == rwfs[i].flags)
			return rwfs[i].name;
	return "";
}

int wl_rwf__parse(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(rwfs); i++)
		if (!strcmp(name, rwfs[i].name))
			return rwfs[i].flags;
	return -1;
}
