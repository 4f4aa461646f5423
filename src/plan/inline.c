// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * From DWARF inline sites to what the probes take: kprobe offsets of each
 * site's entry and exit targets, and a fetch per argument that the BPF
 * side carries out with bounded register and memory reads. Pure: the
 * sites come in as data, so tests feed it made-up ones.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "plan.h"
#include "dwarf/dwarf.h"

/* The fetch of one argument at the entry; on failure why says why. */
static bool loc__fetch(const struct dwarf_loc *l, int size, struct fs_fetch *f,
		       char *why, size_t n)
{
	int reg = l->reg;
	long long off = l->offset;

	memset(f, 0, sizeof(*f));
	switch (l->kind) {
	case DWARF_LOC_UNAVAILABLE:
		snprintf(why, n, "%s", l->why);
		return false;
	case DWARF_LOC_CONST:
		f->kind = FS_FETCH_CONST;
		f->off = off;
		return true;
	case DWARF_LOC_ADDR:
		snprintf(why, n, "at a fixed address, which is not fetched");
		return false;
	case DWARF_LOC_FBREG:
	case DWARF_LOC_FBVALUE:
		if (!l->cfa_known) {
			snprintf(why, n,
				 "frame base %+lld: the call frame "
				 "information gives no register for it",
				 off);
			return false;
		}
		reg = l->cfa_reg;
		off += l->cfa_offset;
		f->kind = l->kind == DWARF_LOC_FBREG ? FS_FETCH_MEM
						     : FS_FETCH_VALUE;
		break;
	case DWARF_LOC_MEM:
		f->kind = FS_FETCH_MEM;
		break;
	case DWARF_LOC_VALUE:
		f->kind = FS_FETCH_VALUE;
		break;
	case DWARF_LOC_REG:
		f->kind = FS_FETCH_REG;
		off = 0;
		break;
	}
	if (reg < 0 || reg >= FS_INLINE_NREGS) {
		snprintf(why, n,
			 "DWARF register %d is not a general-purpose "
			 "register",
			 reg);
		return false;
	}
	if (f->kind == FS_FETCH_MEM && size != 1 && size != 2 && size != 4 &&
	    size != 8) {
		snprintf(why, n, "in memory with size %d", size);
		return false;
	}
	f->reg = (__u32)reg;
	f->off = off;
	f->size = f->kind == FS_FETCH_MEM ? (__u32)size : 0;
	return true;
}

/* Adds the exit target off to s unless it is there; false when full. */
static bool site__add_exit(struct plan_inline_site *s, unsigned long long off)
{
	for (int i = 0; i < s->nexits; i++)
		if (s->exit_off[i] == off)
			return true;
	if (s->nexits >= PLAN_INLINE_EXITS)
		return false;
	s->exit_off[s->nexits++] = off;
	return true;
}

/* Site d into s; on failure why says why. */
static bool site__build(const struct dwarf_site *d, struct plan_inline_site *s,
			char *why, size_t n)
{
	memset(s, 0, sizeof(*s));
	if (!d->symbol[0] || d->entry_pc < d->symbol_addr) {
		snprintf(why, n, "entry 0x%llx is in no function symbol",
			 (unsigned long long)d->entry_pc);
		return false;
	}
	if (d->exits_why[0]) {
		snprintf(why, n, "exits unknown: %s", d->exits_why);
		return false;
	}
	if (!d->nexits) {
		snprintf(why, n, "no exits found");
		return false;
	}
	snprintf(s->symbol, sizeof(s->symbol), "%s", d->symbol);
	s->entry_off = d->entry_pc - d->symbol_addr;
	s->entry_loops = d->entry_loop != 0;
	for (int i = 0; i < d->nexits; i++) {
		const struct dwarf_exit *e = &d->exits[i];

		/* A probe on a branch fires before the branch is decided:
		 * exits are probed where they land, which a return or an
		 * indirect jump does not say. */
		if (e->kind == DWARF_EXIT_RETURN ||
		    e->kind == DWARF_EXIT_INDIRECT || !e->target ||
		    e->target < d->symbol_addr) {
			snprintf(why, n,
				 "exit at %s+0x%llx (%s) has no target in %s "
				 "to probe",
				 d->symbol,
				 (unsigned long long)(e->insn - d->symbol_addr),
				 e->mnemonic, d->symbol);
			return false;
		}
		if (!site__add_exit(s, e->target - d->symbol_addr)) {
			snprintf(why, n, "more than %d exit targets",
				 PLAN_INLINE_EXITS);
			return false;
		}
	}
	return true;
}

/*
 * The result an out argument pointing at the caller's variable stands
 * for, at each of s's exit targets (from d's exits landing there): the
 * variable where the DWARF puts it there; on failure why says why.
 */
static bool site__pointee(const struct dwarf_site *d,
			  const struct plan_inline_site *s, struct fs_fetch *f,
			  char *why, size_t n)
{
	char one[DWARF_WHY_MAX + 64];

	for (int x = 0; x < s->nexits; x++) {
		const struct dwarf_exit *e = NULL;

		for (int k = 0; k < d->nexits && !e; k++)
			if (d->exits[k].target - d->symbol_addr ==
			    s->exit_off[x])
				e = &d->exits[k];
		if (!e ||
		    !loc__fetch(&e->pointee, 8, &f[x], one, sizeof(one))) {
			snprintf(why, n, "at the exit %s+0x%llx: %s", s->symbol,
				 s->exit_off[x],
				 e ? one : "no exit lands there");
			return false;
		}
	}
	return true;
}

/* Why the result is not read at the exits, if no site said so first:
 * the first site's reason stands for all. */
__attribute__((format(printf, 2, 3))) static void
no_exits(struct plan_inline *out, const char *fmt, ...)
{
	va_list ap;

	if (out->exit_why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(out->exit_why, sizeof(out->exit_why), fmt, ap);
	va_end(ap);
}

void plan__inline_build(const struct dwarf_site *sites, int n,
			const int arg_size[FS_INLINE_NARGS], int out_arg,
			struct plan_inline *out)
{
	char why[300];
	bool exits = out_arg >= 0;

	out->why[0] = '\0';
	out->exit_why[0] = '\0';
	out->nsites = 0;
	memset(out->site, 0, sizeof(out->site));
	memset(out->fetch, 0, sizeof(out->fetch));
	memset(out->arg_why, 0, sizeof(out->arg_why));
	memset(out->exit_fetch, 0, sizeof(out->exit_fetch));
	out->out_at_exit = false;
	out->out_arg = out_arg;
	if (n <= 0) {
		snprintf(out->why, sizeof(out->why),
			 "no inline site in the DWARF");
		return;
	}
	if (n > FS_INLINE_MAX_SITES) {
		snprintf(out->why, sizeof(out->why),
			 "%d inline sites, the probes take at most %d", n,
			 FS_INLINE_MAX_SITES);
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct dwarf_site *d = &sites[i];

		if (!site__build(d, &out->site[i], why, sizeof(why))) {
			snprintf(out->why, sizeof(out->why), "site in %s: %s",
				 d->caller, why);
			return;
		}
		for (int a = 0; a < FS_INLINE_NARGS; a++) {
			const char *at = " at the inline entry:";

			if (a >= d->nparams) {
				snprintf(why, sizeof(why), "no parameter %d",
					 a + 1);
			} else if (a == out_arg && d->pointee_param == a &&
				   d->params[a].loc.pointee) {
				memset(&out->fetch[i][a], 0,
				       sizeof(out->fetch[i][a]));
				if (site__pointee(d, &out->site[i],
						  out->exit_fetch[i], why,
						  sizeof(why)))
					continue;
				at = ", a pointer to the caller's variable,";
			} else if (!loc__fetch(&d->params[a].loc, arg_size[a],
					       &out->fetch[i][a], why,
					       sizeof(why))) {
				/* why says why */
			} else if (a == out_arg && !d->params[a].store) {
				snprintf(why, sizeof(why),
					 "the address %s%+lld, where the "
					 "inlined code never stores (the "
					 "result stays in registers)",
					 dwarf__reg_name(
						 (int)out->fetch[i][a].reg),
					 (long long)out->fetch[i][a].off);
			} else if (a != out_arg) {
				continue;
			} else if (d->pointee_param != a) {
				exits = false;
				no_exits(out,
					 "'%s' at the inline entry: the "
					 "address %s%+lld, which no frame "
					 "base offset locates at the exits",
					 d->params[a].name,
					 dwarf__reg_name(
						 (int)out->fetch[i][a].reg),
					 (long long)out->fetch[i][a].off);
				continue;
			} else {
				/* An address in the frame that the site
				 * stores through: the memory there at the
				 * exits too. */
				if (!site__pointee(d, &out->site[i],
						   out->exit_fetch[i], why,
						   sizeof(why))) {
					exits = false;
					no_exits(out,
						 "'%s', the address of the "
						 "caller's variable, %s",
						 d->params[a].name, why);
				}
				continue;
			}
			/* The first site's reason stands for all. */
			if (!out->arg_why[a][0])
				snprintf(out->arg_why[a],
					 sizeof(out->arg_why[a]), "%s%s%s%s %s",
					 a < d->nparams ? "'" : "",
					 a < d->nparams ? d->params[a].name
							: "argument",
					 a < d->nparams ? "'" : "", at, why);
			out->fetch[i][a].kind = FS_FETCH_NONE;
		}
	}
	/* Every site must give the result at its exits. */
	if (exits && !out->arg_why[out_arg][0])
		out->out_at_exit = true;
	if (out->out_at_exit || (out_arg >= 0 && out->arg_why[out_arg][0]))
		out->exit_why[0] = '\0';
	out->nsites = n;
}

int plan__inline_param(const struct dwarf_site *sites, int n,
		       const char *const *names, int nnames)
{
	int found = -1;

	for (int i = 0; i < n; i++) {
		const struct dwarf_site *d = &sites[i];
		int at = -1;

		for (int k = 0; k < nnames && at < 0; k++)
			for (int a = 0; a < d->nparams && at < 0; a++)
				if (!strcmp(d->params[a].name, names[k]))
					at = a;
		if (at < 0 || (found >= 0 && at != found))
			return -1;
		found = at;
	}
	return found;
}

const char *plan_inline__out_why(const struct plan_inline *in)
{
	int a = in->out_arg;

	if (in->out_at_exit)
		return "";
	if (a < 0 || a >= FS_INLINE_NARGS)
		return in->exit_why;
	return in->arg_why[a][0] ? in->arg_why[a] : in->exit_why;
}
