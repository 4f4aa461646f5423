// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The running kernel's DWARF: --debuginfo FILE or a distribution path,
 * accepted only when its GNU build ID is the running kernel's, since
 * addresses and register assignments from another build would put probes
 * in the wrong places.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dwarf_internal.h"

#define KERNEL_NOTES "/sys/kernel/notes"

void dwarf_kernel__open(struct dwarf_kernel *k, const char *given,
			const char *release)
{
	const char *notes = getenv("FOLIOSCOPE_KERNEL_NOTES");
	int err;

	memset(k, 0, sizeof(*k));
	k->given = given != NULL;
	if (!notes || !*notes)
		notes = KERNEL_NOTES;
	err = dwarf__kernel_build_id(notes, k->kernel_id, sizeof(k->kernel_id));
	if (err) {
		k->kernel_id[0] = '\0';
		snprintf(k->why, sizeof(k->why),
			 "cannot read the running kernel's build ID from %s: "
			 "%s",
			 notes, strerror(-err));
		return;
	}
	dwarf__locate(given, release, k->kernel_id, &k->d, k->why,
		      sizeof(k->why));
}

void dwarf_kernel__close(struct dwarf_kernel *k)
{
	dwarf__close(k->d);
	k->d = NULL;
}
