// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The public entry points of the workloads: they pick the workload by
 * name and dispatch to dedupe.c or shmem.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/workload_internal.h"

struct workload {
	const char *name; /* "dedupe" or "shmem-read" */
	struct dedupe *dd;
	struct shmem *sh;
};

void workload__defaults(struct wl_opts *o)
{
	memset(o, 0, sizeof(*o));
	/* range 0: 128 KiB, or a whole file for the seed workload. */
	o->count = 64;
	o->dests = 1;
	o->huge = "always";
	o->fill = "full";
	o->size = 16 << 20;
	o->bs = 64 << 10;
	o->syscall = "read";
	o->iovecs = 1;
	o->readers = 1;
}

int workload__prepare(struct workload **out, const char *name,
		      const struct wl_opts *o)
{
	struct workload *w;
	int err;

	*out = NULL;
	if (!name)
		name = "";
	if (strcmp(name, "dedupe") && strcmp(name, "shmem-read")) {
		err = -EINVAL;
		wl__err_hint(name, err, "(want dedupe or shmem-read)",
			     "unknown workload '%s'", name);
		return err;
	}
	err = wl__private_mounts(name);
	if (err)
		return err;
	w = calloc(1, sizeof(*w));
	if (!w) {
		err = -ENOMEM;
		wl__err(name, err, "allocate workload");
		return err;
	}
	if (!strcmp(name, "dedupe")) {
		w->name = "dedupe";
		err = dedupe__prepare(&w->dd, o);
	} else {
		w->name = "shmem-read";
		err = shmem__prepare(&w->sh, o);
	}
	if (err) {
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

int workload__run(struct workload *w, struct fs_report *r)
{
	snprintf(r->workload_name, sizeof(r->workload_name), "%s", w->name);
	if (w->dd)
		return dedupe__run(w->dd, r);
	return shmem__run(w->sh, r);
}

void workload__totals(const struct workload *w, enum wl_level level,
		      __u64 *calls, __u64 *bytes)
{
	const struct wl_totals *t =
		w->dd ? dedupe__totals(w->dd) : shmem__totals(w->sh);

	*calls = t->calls;
	*bytes = t->bytes;
	if (level == WL_LEVEL_SYSCALL) {
		*calls = t->sys_calls;
		*bytes = t->sys_bytes;
	} else if (level == WL_LEVEL_DEDUPE_CMP && w->dd) {
		*calls = t->cmp_calls;
	} else if (level == WL_LEVEL_DEDUPE_ONE && w->dd) {
		*calls = t->one_calls;
		*bytes = t->one_bytes;
	}
}

void workload__destroy(struct workload *w)
{
	if (!w)
		return;
	dedupe__destroy(w->dd);
	shmem__destroy(w->sh);
	free(w);
}
