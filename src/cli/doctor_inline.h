/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* doctor's part about inline sites: what the kernel's DWARF says about
 * each target the kernel inlined. */
#ifndef FS_DOCTOR_INLINE_H
#define FS_DOCTOR_INLINE_H

#include <json-c/json.h>
#include "dwarf/dwarf.h"
#include "util/jsonb.h"

/* Sites of function in k's DWARF (none when k has no DWARF). */
struct doctor_inline {
	struct dwarf_sites sites;
	int err; /* from dwarf__find_inline */
	char why[DWARF_WHY_MAX];
};

void doctor_inline__find(struct dwarf_kernel *k, const char *function,
			 struct doctor_inline *di);
void doctor_inline__free(struct doctor_inline *di);
void doctor_inline__text(struct dwarf_kernel *k,
			 const struct doctor_inline *di);
/* The sites into object j, through b (util/jsonb.h). */
void doctor_inline__json(struct jsonb *b, struct json_object *j,
			 struct dwarf_kernel *k,
			 const struct doctor_inline *di);

#endif /* FS_DOCTOR_INLINE_H */
