// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Exits of an inline site: every place control leaves the site's address
 * ranges. The ranges' machine code is decoded with capstone; an exit is a
 * return, a jump whose target lies outside every range, a jump through a
 * register or memory, or the end of a range that execution runs off into
 * code outside the site. A jump that stays inside and lands on the entry
 * makes the entry a loop's head as well (dwarf_site.entry_loop).
 *
 * The bytes are the file's: the kernel patches some instructions at boot
 * (alternatives, return thunks), which changes what runs but not where
 * the site's code begins and ends.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dwarf_internal.h"

static bool in_site(const struct dwarf_site *s, uint64_t a)
{
	for (int i = 0; i < s->nranges; i++)
		if (a >= s->ranges[i].lo && a < s->ranges[i].hi)
			return true;
	return false;
}

/* The file bytes at [lo, hi) from the executable section holding them. */
static const uint8_t *code_at(struct dwarf *d, uint64_t lo, uint64_t hi)
{
	Elf_Scn *scn = NULL;

	if (hi <= lo)
		return NULL;
	while ((scn = elf_nextscn(d->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || lo < sh.sh_addr ||
		    hi > sh.sh_addr + sh.sh_size)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size < sh.sh_size)
			return NULL;
		return (const uint8_t *)data->d_buf + (lo - sh.sh_addr);
	}
	return NULL;
}

static int add_exit(struct dwarf_site *s, enum dwarf_exit_kind kind,
		    const cs_insn *insn, uint64_t target)
{
	struct dwarf_exit *e;

	e = realloc(s->exits, (s->nexits + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	s->exits = e;
	e = &s->exits[s->nexits++];
	e->kind = kind;
	e->insn = insn->address;
	e->target = target;
	snprintf(e->mnemonic, sizeof(e->mnemonic), "%s", insn->mnemonic);
	return 0;
}

/* The capstone register of a DWARF x86-64 register number. */
static x86_reg cs_reg(int reg)
{
	static const x86_reg regs[] = {
		X86_REG_RAX, X86_REG_RDX, X86_REG_RCX, X86_REG_RBX,
		X86_REG_RSI, X86_REG_RDI, X86_REG_RBP, X86_REG_RSP,
		X86_REG_R8,  X86_REG_R9,  X86_REG_R10, X86_REG_R11,
		X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15,
	};

	return reg >= 0 && reg < 16 ? regs[reg] : X86_REG_INVALID;
}

/* Where a parameter whose value is an address in the frame points, as
 * register + offset at the entry; false for another parameter. */
static bool frame_addr(const struct dwarf_loc *l, x86_reg *reg, int64_t *off)
{
	if (l->kind == DWARF_LOC_VALUE) {
		*reg = cs_reg(l->reg);
		*off = l->offset;
	} else if (l->kind == DWARF_LOC_FBVALUE && l->cfa_known) {
		*reg = cs_reg(l->cfa_reg);
		*off = l->cfa_offset + l->offset;
	} else {
		return false;
	}
	return *reg != X86_REG_INVALID;
}

/* Notes in each such parameter the first instruction storing where it
 * points (same base register and displacement, no index). */
static void note_stores(struct dwarf_site *s, const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	for (int i = 0; i < s->nparams; i++) {
		struct dwarf_param *p = &s->params[i];
		x86_reg reg;
		int64_t off;

		if (p->store || !frame_addr(&p->loc, &reg, &off))
			continue;
		for (int o = 0; o < x->op_count; o++) {
			const cs_x86_op *op = &x->operands[o];

			if (op->type == X86_OP_MEM &&
			    (op->access & CS_AC_WRITE) && op->mem.base == reg &&
			    op->mem.index == X86_REG_INVALID &&
			    op->mem.disp == off)
				p->store = insn->address;
		}
	}
}

/* One instruction: an exit or not. */
static int classify(csh cs, struct dwarf_site *s, const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	note_stores(s, insn);
	if (cs_insn_group(cs, insn, CS_GRP_RET) ||
	    cs_insn_group(cs, insn, CS_GRP_IRET))
		return add_exit(s, DWARF_EXIT_RETURN, insn, 0);
	if (!cs_insn_group(cs, insn, CS_GRP_JUMP))
		return 0;
	if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		uint64_t t = (uint64_t)x->operands[0].imm;

		if (t == s->entry_pc && in_site(s, t) && !s->entry_loop)
			s->entry_loop = insn->address;
		return in_site(s, t) ? 0
				     : add_exit(s, DWARF_EXIT_BRANCH, insn, t);
	}
	return add_exit(s, DWARF_EXIT_INDIRECT, insn, 0);
}

static bool ends_flow(const cs_insn *insn)
{
	return insn->id == X86_INS_JMP || insn->id == X86_INS_LJMP ||
	       insn->id == X86_INS_RET || insn->id == X86_INS_RETF ||
	       insn->id == X86_INS_IRET || insn->id == X86_INS_IRETQ ||
	       insn->id == X86_INS_UD2;
}

static int range_exits(csh cs, struct dwarf *d, struct dwarf_site *s,
		       const struct dwarf_range *r)
{
	const uint8_t *code = code_at(d, r->lo, r->hi);
	size_t size = r->hi - r->lo;
	uint64_t addr = r->lo;
	cs_insn *insn;
	bool last_ends = false;
	uint64_t last = 0;
	int err = 0;

	if (!code) {
		snprintf(s->exits_why, sizeof(s->exits_why),
			 "no code for 0x%" PRIx64 "-0x%" PRIx64 " in the file",
			 r->lo, r->hi);
		return -ENODATA;
	}
	insn = cs_malloc(cs);
	if (!insn)
		return -ENOMEM;
	while (size && cs_disasm_iter(cs, &code, &size, &addr, insn)) {
		err = classify(cs, s, insn);
		if (err)
			break;
		last_ends = ends_flow(insn);
		last = insn->address;
	}
	if (!err && size) {
		snprintf(s->exits_why, sizeof(s->exits_why),
			 "undecodable instruction at 0x%" PRIx64, addr);
		err = -EILSEQ;
	}
	if (!err && !last_ends && !in_site(s, r->hi)) {
		cs_insn ft = { .address = last };

		snprintf(ft.mnemonic, sizeof(ft.mnemonic), "%s", "-");
		err = add_exit(s, DWARF_EXIT_FALLTHROUGH, &ft, r->hi);
	}
	cs_free(insn, 1);
	return err;
}

int dwarf__find_exits(struct dwarf *d, struct dwarf_site *s)
{
	csh cs;
	int err = 0;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		snprintf(s->exits_why, sizeof(s->exits_why),
			 "capstone: cannot open an x86-64 decoder");
		return 0;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	for (int i = 0; i < s->nranges && !err; i++)
		err = range_exits(cs, d, s, &s->ranges[i]);
	cs_close(&cs);
	/* Missing or odd code leaves the site without exits and says why;
	 * only running out of memory fails the search. */
	return err == -ENOMEM ? err : 0;
}
