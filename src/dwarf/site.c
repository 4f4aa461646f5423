// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Inline sites: the DW_TAG_inlined_subroutine DIEs whose abstract origin
 * is the target, with entry PC, ranges, call line and where each
 * parameter is at the entry PC.
 *
 * A kernel has thousands of compilation units; only those whose top level
 * holds an abstract instance of the target (a DW_TAG_subprogram of that
 * name with DW_AT_inline) can have inlined copies of it, so only those
 * are walked in full. That holds for GCC without LTO, which is how
 * distribution kernels are built.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dwarf_internal.h"

#define MAX_ORIGINS 16

struct walk {
	struct dwarf *d;
	struct dwarf_sites *out;
	Dwarf_Die cu;
	Dwarf_Off origin[MAX_ORIGINS];
	int norigins;
	int err;
};

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, DW_AT_name, &a))
		return NULL;
	return dwarf_formstring(&a);
}

static void unavailable(struct dwarf_loc *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void unavailable(struct dwarf_loc *l, const char *fmt, ...)
{
	va_list ap;

	l->kind = DWARF_LOC_UNAVAILABLE;
	l->reg = -1;
	va_start(ap, fmt);
	vsnprintf(l->why, sizeof(l->why), fmt, ap);
	va_end(ap);
}

static bool op_is_reg(uint8_t atom)
{
	return atom >= DW_OP_reg0 && atom <= DW_OP_reg31;
}

static bool op_is_breg(uint8_t atom)
{
	return atom >= DW_OP_breg0 && atom <= DW_OP_breg31;
}

/* DW_OP_bregN off or DW_OP_bregx N off: register and offset. */
static bool breg_of(const Dwarf_Op *op, int *reg, int64_t *off)
{
	if (op_is_breg(op->atom)) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = (int)op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	return false;
}

/* The frame base of subprogram sub at pc as register + offset. */
static void frame_base(struct dwarf *d, Dwarf_Die *sub, uint64_t pc,
		       struct dwarf_loc *l)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	Dwarf_Frame *frame = NULL;
	size_t nops;

	if (!sub || !dwarf_attr(sub, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) != 1 || nops != 1)
		return;
	if (breg_of(&ops[0], &l->cfa_reg, &l->cfa_offset)) {
		l->cfa_known = true;
		return;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return;
	if ((!d->cfi_debug || dwarf_cfi_addrframe(d->cfi_debug, pc, &frame)) &&
	    (!d->cfi_eh || dwarf_cfi_addrframe(d->cfi_eh, pc, &frame)))
		return;
	/* libdw gives a "register + offset" CFA rule as one DW_OP_bregx. */
	if (!dwarf_frame_cfa(frame, &ops, &nops) && nops == 1 &&
	    breg_of(&ops[0], &l->cfa_reg, &l->cfa_offset))
		l->cfa_known = true;
	free(frame);
}

/* One location expression (libdw's decoded ops) as a dwarf_loc. */
static void classify(struct dwarf *d, Dwarf_Die *sub, uint64_t pc,
		     const Dwarf_Op *ops, size_t nops, struct dwarf_loc *l)
{
	uint8_t a0 = ops[0].atom;
	bool stack_value = nops == 2 && ops[1].atom == DW_OP_stack_value;

	l->reg = -1;
	if (a0 == DW_OP_entry_value || a0 == DW_OP_GNU_entry_value) {
		unavailable(l, "only as its value at the caller's entry "
			       "(DW_OP_entry_value)");
		return;
	}
	for (size_t i = 0; i < nops; i++)
		if (ops[i].atom == DW_OP_piece ||
		    ops[i].atom == DW_OP_bit_piece) {
			unavailable(l, "split into pieces");
			return;
		}
	if (nops == 1 && op_is_reg(a0)) {
		l->kind = DWARF_LOC_REG;
		l->reg = a0 - DW_OP_reg0;
	} else if (nops == 1 && a0 == DW_OP_regx) {
		l->kind = DWARF_LOC_REG;
		l->reg = (int)ops[0].number;
	} else if ((nops == 1 || stack_value) && op_is_breg(a0)) {
		l->kind = stack_value ? DWARF_LOC_VALUE : DWARF_LOC_MEM;
		l->reg = a0 - DW_OP_breg0;
		l->offset = (int64_t)ops[0].number;
	} else if ((nops == 1 || stack_value) && a0 == DW_OP_bregx) {
		l->kind = stack_value ? DWARF_LOC_VALUE : DWARF_LOC_MEM;
		l->reg = (int)ops[0].number;
		l->offset = (int64_t)ops[0].number2;
	} else if ((nops == 1 || stack_value) && a0 == DW_OP_fbreg) {
		l->kind = stack_value ? DWARF_LOC_FBVALUE : DWARF_LOC_FBREG;
		l->offset = (int64_t)ops[0].number;
		frame_base(d, sub, pc, l);
	} else if (nops == 1 && a0 == DW_OP_addr) {
		l->kind = DWARF_LOC_ADDR;
		l->offset = (int64_t)ops[0].number;
	} else if (stack_value && a0 >= DW_OP_lit0 && a0 <= DW_OP_lit31) {
		l->kind = DWARF_LOC_CONST;
		l->offset = a0 - DW_OP_lit0;
	} else if (stack_value && (a0 == DW_OP_const1u || a0 == DW_OP_const2u ||
				   a0 == DW_OP_const4u || a0 == DW_OP_const8u ||
				   a0 == DW_OP_constu)) {
		l->kind = DWARF_LOC_CONST;
		l->offset = (int64_t)ops[0].number;
	} else if (stack_value && (a0 == DW_OP_const1s || a0 == DW_OP_const2s ||
				   a0 == DW_OP_const4s || a0 == DW_OP_const8s ||
				   a0 == DW_OP_consts)) {
		l->kind = DWARF_LOC_CONST;
		l->offset = (int64_t)ops[0].number;
	} else if (nops == 1 && (a0 == DW_OP_implicit_pointer ||
				 a0 == DW_OP_GNU_implicit_pointer)) {
		unavailable(l, "an implicit pointer to the caller's variable "
			       "(DW_OP_implicit_pointer), which has no "
			       "address");
		/* Only a pointer to the variable's start stands for it. */
		if (!ops[0].number2)
			l->pointee = ops[0].number;
	} else {
		unavailable(l, "computed by a %zu-operation expression", nops);
	}
}

static void param_loc(struct dwarf *d, Dwarf_Die *sub, Dwarf_Die *param,
		      uint64_t pc, struct dwarf_loc *l)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Sword sval;
	int r;

	if (!dwarf_attr(param, DW_AT_location, &a)) {
		if (dwarf_attr(param, DW_AT_const_value, &a) &&
		    !dwarf_formsdata(&a, &sval)) {
			l->kind = DWARF_LOC_CONST;
			l->reg = -1;
			l->offset = sval;
			return;
		}
		unavailable(l, "optimised out (no location)");
		return;
	}
	r = dwarf_getlocation_addr(&a, pc, &ops, &nops, 1);
	if (r < 0) {
		unavailable(l, "unreadable location (%s)", dwarf_errmsg(-1));
		return;
	}
	if (r == 0 || nops == 0) {
		unavailable(l,
			    "optimised out at the entry PC 0x%" PRIx64
			    " (no location list entry covers it)",
			    pc);
		return;
	}
	classify(d, sub, pc, ops, nops, l);
}

static int add_param(struct dwarf_site *s, const char *name,
		     const struct dwarf_loc *l)
{
	struct dwarf_param *p;

	p = realloc(s->params, (s->nparams + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->params = p;
	p = &s->params[s->nparams++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name ? name : "?");
	p->loc = *l;
	return 0;
}

/* Parameters in the abstract instance's order; one the inlined copy has
 * no DIE for is optimised out entirely. */
static int site_params(struct walk *w, Dwarf_Die *sub, Dwarf_Die *inl,
		       Dwarf_Die *origin, struct dwarf_site *s)
{
	Dwarf_Die ap, cp;
	int err;

	if (dwarf_child(origin, &ap))
		return 0;
	do {
		struct dwarf_loc l = {};
		bool found = false;

		if (dwarf_tag(&ap) != DW_TAG_formal_parameter)
			continue;
		if (!dwarf_child(inl, &cp)) {
			do {
				Dwarf_Attribute a;
				Dwarf_Die o;

				if (dwarf_tag(&cp) != DW_TAG_formal_parameter ||
				    !dwarf_attr(&cp, DW_AT_abstract_origin,
						&a) ||
				    !dwarf_formref_die(&a, &o) ||
				    dwarf_dieoffset(&o) != dwarf_dieoffset(&ap))
					continue;
				param_loc(w->d, sub, &cp, s->entry_pc, &l);
				found = true;
				break;
			} while (!dwarf_siblingof(&cp, &cp));
		}
		if (!found)
			unavailable(&l, "optimised out (no DIE in the "
					"inlined copy)");
		err = add_param(s, die_name(&ap), &l);
		if (err)
			return err;
	} while (!dwarf_siblingof(&ap, &ap));
	return 0;
}

static int site_ranges(Dwarf_Die *inl, struct dwarf_site *s)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(inl, off, &base, &lo, &hi)) > 0) {
		struct dwarf_range *r;

		/* Corrupt DWARF can give an empty or inverted range: it holds
		 * no code. */
		if (hi <= lo)
			continue;
		r = realloc(s->ranges, (s->nranges + 1) * sizeof(*r));
		if (!r)
			return -ENOMEM;
		s->ranges = r;
		s->ranges[s->nranges].lo = lo;
		s->ranges[s->nranges].hi = hi;
		s->nranges++;
	}
	return 0;
}

/*
 * Without DW_AT_entry_pc or DW_AT_low_pc, DWARF leaves the entry unknown,
 * and the first range is not always it: GCC puts shared error paths of
 * the inlined body (a "mov $-EINVAL; jmp") in ranges of their own. The
 * entry is taken as the lowest range start where a parameter already has
 * a location, which is where the arguments have been set up.
 */
static void site_entry(Dwarf_Die *inl, struct dwarf_site *s)
{
	Dwarf_Die p;
	Dwarf_Addr pc;
	uint64_t best = UINT64_MAX;

	if (dwarf_hasattr(inl, DW_AT_entry_pc) && !dwarf_entrypc(inl, &pc)) {
		s->entry_pc = pc;
		snprintf(s->entry_from, sizeof(s->entry_from),
			 "DW_AT_entry_pc");
		return;
	}
	if (dwarf_hasattr(inl, DW_AT_low_pc) && !dwarf_lowpc(inl, &pc)) {
		s->entry_pc = pc;
		snprintf(s->entry_from, sizeof(s->entry_from), "DW_AT_low_pc");
		return;
	}
	if (!s->nranges)
		return;
	if (!dwarf_child(inl, &p)) {
		do {
			Dwarf_Attribute a;
			Dwarf_Op *ops;
			size_t nops;

			if (dwarf_tag(&p) != DW_TAG_formal_parameter ||
			    !dwarf_attr(&p, DW_AT_location, &a))
				continue;
			for (int i = 0; i < s->nranges; i++)
				if (s->ranges[i].lo < best &&
				    dwarf_getlocation_addr(&a, s->ranges[i].lo,
							   &ops, &nops,
							   1) == 1 &&
				    nops)
					best = s->ranges[i].lo;
		} while (!dwarf_siblingof(&p, &p));
	}
	if (best != UINT64_MAX) {
		s->entry_pc = best;
		snprintf(s->entry_from, sizeof(s->entry_from),
			 "no DW_AT_entry_pc: first range where a parameter "
			 "has a location");
		return;
	}
	s->entry_pc = s->ranges[0].lo;
	snprintf(s->entry_from, sizeof(s->entry_from),
		 "no DW_AT_entry_pc: start of the first range");
}

static void site_call(struct walk *w, Dwarf_Die *inl, struct dwarf_site *s)
{
	Dwarf_Attribute a;
	Dwarf_Word v;
	Dwarf_Files *files;
	size_t nfiles;
	const char *f;

	if (dwarf_attr(inl, DW_AT_call_line, &a) && !dwarf_formudata(&a, &v))
		s->call_line = (int)v;
	if (dwarf_attr(inl, DW_AT_call_file, &a) && !dwarf_formudata(&a, &v) &&
	    !dwarf_getsrcfiles(&w->cu, &files, &nfiles) && v < nfiles &&
	    (f = dwarf_filesrc(files, v, NULL, NULL)))
		snprintf(s->call_file, sizeof(s->call_file), "%s", f);
}

/*
 * What the site's out pointer points at, at each exit's target. An
 * implicit pointer: the inlined code wrote the caller's variable directly,
 * so what it wrote is that variable's value where control lands. An
 * address in the frame (frame base + offset, the caller's variable lives
 * there): what it wrote is the memory there, with the frame base taken at
 * the exit's target, where the CFA's rule can differ from the entry's.
 */
static void site_pointee(struct dwarf *d, Dwarf_Die *sub, struct dwarf_site *s)
{
	const struct dwarf_loc *p;
	Dwarf_Die var;

	s->pointee_param = -1;
	for (int i = 0; i < s->nparams && s->pointee_param < 0; i++)
		if (s->params[i].loc.pointee)
			s->pointee_param = i;
	for (int i = 0; i < s->nparams && s->pointee_param < 0; i++)
		if (s->params[i].loc.kind == DWARF_LOC_FBVALUE)
			s->pointee_param = i;
	for (int e = 0; e < s->nexits; e++)
		unavailable(&s->exits[e].pointee,
			    "no parameter points at a variable of the caller");
	if (s->pointee_param < 0)
		return;
	p = &s->params[s->pointee_param].loc;
	if (!p->pointee) {
		for (int e = 0; e < s->nexits; e++) {
			struct dwarf_loc *l = &s->exits[e].pointee;

			if (!s->exits[e].target) {
				unavailable(l, "the exit has no known target");
				continue;
			}
			memset(l, 0, sizeof(*l));
			l->kind = DWARF_LOC_FBREG;
			l->reg = -1;
			l->offset = p->offset;
			frame_base(d, sub, s->exits[e].target, l);
		}
		return;
	}
	if (!dwarf_offdie(d->dw, p->pointee, &var)) {
		for (int e = 0; e < s->nexits; e++)
			unavailable(&s->exits[e].pointee,
				    "the implicit pointer's variable DIE "
				    "0x%" PRIx64 " is unreadable",
				    p->pointee);
		return;
	}
	for (int e = 0; e < s->nexits; e++) {
		struct dwarf_exit *x = &s->exits[e];
		Dwarf_Attribute a;
		Dwarf_Op *ops;
		size_t nops;

		memset(&x->pointee, 0, sizeof(x->pointee));
		if (!x->target) {
			unavailable(&x->pointee,
				    "the exit has no known target");
		} else if (dwarf_attr(&var, DW_AT_location, &a) &&
			   dwarf_getlocation_addr(&a, x->target, &ops, &nops,
						  1) == 0) {
			/* No guess from neighbouring ranges: GCC ends a
			 * variable's list where the register still holds
			 * it as well as where it is dead. */
			unavailable(&x->pointee,
				    "optimised out where the exit lands (no "
				    "location list entry covers it)");
		} else {
			param_loc(d, sub, &var, x->target, &x->pointee);
		}
	}
}

static int add_site(struct walk *w, Dwarf_Die *sub, Dwarf_Die *inl,
		    Dwarf_Die *origin)
{
	struct dwarf_sites *out = w->out;
	struct dwarf_site *s;
	const char *name;
	int err;

	s = realloc(out->site, (out->n + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	out->site = s;
	s = &out->site[out->n++];
	memset(s, 0, sizeof(*s));
	name = sub ? die_name(sub) : NULL;
	snprintf(s->caller, sizeof(s->caller), "%s", name ? name : "?");
	s->die = dwarf_dieoffset(inl);
	err = site_ranges(inl, s);
	if (err)
		return err;
	site_entry(inl, s);
	site_call(w, inl, s);
	if (dwarf__symbolize(w->d, s->entry_pc, s->symbol, sizeof(s->symbol),
			     &s->symbol_addr))
		snprintf(s->symbol, sizeof(s->symbol), "%s", s->caller);
	err = site_params(w, sub, inl, origin, s);
	if (err)
		return err;
	err = dwarf__find_exits(w->d, s);
	if (!err)
		site_pointee(w->d, sub, s);
	return err;
}

static bool is_origin(struct walk *w, Dwarf_Die *die, Dwarf_Die *origin)
{
	Dwarf_Attribute a;

	if (!dwarf_attr(die, DW_AT_abstract_origin, &a) ||
	    !dwarf_formref_die(&a, origin))
		return false;
	for (int i = 0; i < w->norigins; i++)
		if (dwarf_dieoffset(origin) == w->origin[i])
			return true;
	return false;
}

/* sub: the concrete subprogram the walk is in (NULL at the top). */
static void walk_tree(struct walk *w, Dwarf_Die *die, Dwarf_Die *sub)
{
	Dwarf_Die child, origin;

	if (dwarf_child(die, &child))
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Die *inner = sub;

		if (w->err)
			return;
		if (tag == DW_TAG_subprogram) {
			/* An abstract instance has no code. */
			if (dwarf_hasattr(&child, DW_AT_inline))
				continue;
			inner = &child;
		}
		if (tag == DW_TAG_inlined_subroutine &&
		    is_origin(w, &child, &origin)) {
			w->err = add_site(w, sub, &child, &origin);
			continue;
		}
		if (dwarf_haschildren(&child))
			walk_tree(w, &child, inner);
	} while (!dwarf_siblingof(&child, &child));
}

/* The CU's abstract instances of function. */
static void find_origins(struct walk *w, const char *function)
{
	Dwarf_Die child;
	const char *name;

	w->norigins = 0;
	if (dwarf_child(&w->cu, &child))
		return;
	do {
		if (dwarf_tag(&child) != DW_TAG_subprogram ||
		    !dwarf_hasattr(&child, DW_AT_inline))
			continue;
		name = die_name(&child);
		if (name && !strcmp(name, function) &&
		    w->norigins < MAX_ORIGINS)
			w->origin[w->norigins++] = dwarf_dieoffset(&child);
	} while (!dwarf_siblingof(&child, &child));
}

int dwarf__find_inline(struct dwarf *d, const char *function,
		       struct dwarf_sites *out, char *why, size_t n)
{
	struct walk w = { .d = d, .out = out };
	Dwarf_CU *cu = NULL;
	Dwarf_Die subdie;
	Dwarf_Half version;
	uint8_t unit_type;

	memset(out, 0, sizeof(*out));
	snprintf(out->function, sizeof(out->function), "%s", function);
	while (!dwarf_get_units(d->dw, cu, &cu, &version, &unit_type, &w.cu,
				&subdie)) {
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
			continue;
		find_origins(&w, function);
		if (!w.norigins)
			continue;
		walk_tree(&w, &w.cu, NULL);
		if (w.err) {
			snprintf(why, n, "%s: %s", d->path, strerror(-w.err));
			dwarf_sites__free(out);
			return w.err;
		}
	}
	return out->n;
}

void dwarf_sites__free(struct dwarf_sites *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->site[i].ranges);
		free(s->site[i].params);
		free(s->site[i].exits);
	}
	free(s->site);
	s->site = NULL;
	s->n = 0;
}
