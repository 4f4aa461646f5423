// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * FOLIOSCOPE_COST_DROP, for the bench alone: the parts of a traced call's
 * work to leave out of the programs, so that a run beside the full
 * program measures what each part costs (docs/benchmarks.md). What a part
 * feeds is then measured wrong, which the trace says on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe.h"
#include "shared.h"

static const struct {
	const char *name;
	__u32 bit;
} parts[] = {
	{ "file", FS_DROP_FILE },   { "inflight", FS_DROP_INFLIGHT },
	{ "time", FS_DROP_TIME },   { "folio", FS_DROP_FOLIO },
	{ "hists", FS_DROP_HISTS }, { "all", FS_DROP_ALL },
};

int probe__cost_drop(enum fs_target t, struct probe_cost_drop *d, char *why,
		     size_t n)
{
	const char *env = getenv("FOLIOSCOPE_COST_DROP");
	char list[256], *save = NULL;

	memset(d, 0, sizeof(*d));
	why[0] = '\0';
	if (!env || !*env)
		return 0;
	if (strlen(env) >= sizeof(list)) {
		snprintf(why, n, "FOLIOSCOPE_COST_DROP: too long");
		return -EINVAL;
	}
	strcpy(list, env);
	for (char *w = strtok_r(list, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		/* hist=NAME: one histogram; a name the target lacks is
		 * the other target's, left alone here. */
		if (!strncmp(w, "hist=", 5)) {
			int h = model__hist_index(t, w + 5);

			if (h < 0 &&
			    model__hist_index(t == FS_TGT_SHMEM ? FS_TGT_DEDUPE
								: FS_TGT_SHMEM,
					      w + 5) < 0) {
				snprintf(why, n,
					 "FOLIOSCOPE_COST_DROP: no histogram "
					 "'%s'",
					 w + 5);
				return -EINVAL;
			}
			if (h >= 0)
				d->hists |= 1U << h;
			continue;
		}
		while (i < sizeof(parts) / sizeof(parts[0]) &&
		       strcmp(parts[i].name, w))
			i++;
		if (i == sizeof(parts) / sizeof(parts[0])) {
			snprintf(why, n,
				 "FOLIOSCOPE_COST_DROP: no part '%s' (want "
				 "file, inflight, time, folio, hists, all or "
				 "hist=NAME)",
				 w);
			return -EINVAL;
		}
		d->parts |= parts[i].bit;
	}
	return 0;
}
