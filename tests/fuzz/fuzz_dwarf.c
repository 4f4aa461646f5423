// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: the DWARF reader (src/dwarf/) on any file: open it,
 * find the inline sites of "fold" (the seed is tests/fixtures/dwarf/
 * inline.c built with gcc -O2 -g) and describe every location. Whatever
 * the bytes, the reader must return an error or sites, never crash; a
 * site's exits must lie in its ranges.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "dwarf/dwarf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], why[512], buf[512];
	struct dwarf_sites s;
	struct dwarf *d;
	int fd, n;

	fd = memfd_create("fuzz-dwarf", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (dwarf__open(path, &d, why, sizeof(why))) {
		close(fd);
		return 0;
	}
	n = dwarf__find_inline(d, "fold", &s, why, sizeof(why));
	for (int i = 0; i < n; i++) {
		const struct dwarf_site *site = &s.site[i];

		for (int p = 0; p < site->nparams; p++)
			dwarf_loc__describe(&site->params[p].loc, buf,
					    sizeof(buf));
		for (int e = 0; e < site->nexits; e++) {
			bool in = false;

			for (int r = 0; r < site->nranges; r++)
				in |= site->exits[e].insn >=
					      site->ranges[r].lo &&
				      site->exits[e].insn < site->ranges[r].hi;
			if (!in)
				abort();
		}
	}
	if (n >= 0)
		dwarf_sites__free(&s);
	dwarf__close(d);
	close(fd);
	return 0;
}
