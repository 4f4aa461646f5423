/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the files of src/dwarf/ share: the open file. */
#ifndef FS_DWARF_INTERNAL_H
#define FS_DWARF_INTERNAL_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include "dwarf.h"

struct dwarf {
	char path[4096];
	int fd;
	Elf *elf;
	Dwarf *dw;
	/* Call frame information: .debug_frame (owned by dw) and .eh_frame
	 * (ours); either may be NULL. A file may have one, the other or
	 * both, covering different code. */
	Dwarf_CFI *cfi_debug, *cfi_eh;
	char build_id[DWARF_BUILD_ID_HEX];
};

/* exit.c: fills s->exits from the machine code of s->ranges. */
int dwarf__find_exits(struct dwarf *d, struct dwarf_site *s);

/* dwarf.c: the ELF function symbol containing addr. */
int dwarf__symbolize(struct dwarf *d, uint64_t addr, char *name, size_t n,
		     uint64_t *start);

#endif /* FS_DWARF_INTERNAL_H */
