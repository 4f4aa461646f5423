// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * doctor's inline sites: for a target with no symbol of its own, where
 * the kernel's DWARF puts its inlined copies, where their arguments are at
 * the entry, and where control leaves them, or the one line saying why
 * there is no DWARF to ask and where it was looked for.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "doctor_inline.h"

void doctor_inline__find(struct dwarf_kernel *k, const char *function,
			 struct doctor_inline *di)
{
	memset(di, 0, sizeof(*di));
	if (!k->d)
		return;
	di->err = dwarf__find_inline(k->d, function, &di->sites, di->why,
				     sizeof(di->why));
}

void doctor_inline__free(struct doctor_inline *di)
{
	if (di->err >= 0)
		dwarf_sites__free(&di->sites);
}

static const char *source_name(const struct dwarf_kernel *k)
{
	return k->given ? "--debuginfo" : "distribution path";
}

/* A value that is an address in the frame, which the site may store
 * through (dwarf_param.store). */
static bool frame_pointer(const struct dwarf_loc *l)
{
	return l->kind == DWARF_LOC_VALUE ||
	       (l->kind == DWARF_LOC_FBVALUE && l->cfa_known);
}

void doctor_inline__text(struct dwarf_kernel *k, const struct doctor_inline *di)
{
	char a[192], b[192], loc[512];

	if (!k->d) {
		printf("  inline sites: unknown (%s)\n", k->why);
		return;
	}
	printf("  DWARF: %s (%s), build ID %s matches the kernel's\n",
	       dwarf__path(k->d), source_name(k), dwarf__build_id(k->d));
	if (di->err < 0) {
		printf("  inline sites: unreadable (%s)\n", di->why);
		return;
	}
	printf("  inline sites: %d\n", di->sites.n);
	for (int i = 0; i < di->sites.n; i++) {
		const struct dwarf_site *s = &di->sites.site[i];

		printf("  site %d: inlined into %s at %s:%d\n", i + 1,
		       s->caller, s->call_file, s->call_line);
		dwarf__addr_name(k->d, s->entry_pc, a, sizeof(a));
		printf("    entry:  %s (0x%" PRIx64 ", %s)\n", a, s->entry_pc,
		       s->entry_from);
		if (s->entry_loop) {
			dwarf__addr_name(k->d, s->entry_loop, a, sizeof(a));
			printf("    loop:   the entry is also a loop's head "
			       "(jump back at %s): arriving again before an "
			       "exit is the same call\n",
			       a);
		}
		for (int r = 0; r < s->nranges; r++) {
			dwarf__addr_name(k->d, s->ranges[r].lo, a, sizeof(a));
			dwarf__addr_name(k->d, s->ranges[r].hi, b, sizeof(b));
			printf("    range:  %s - %s\n", a, b);
		}
		for (int e = 0; e < s->nexits; e++) {
			const struct dwarf_exit *x = &s->exits[e];

			dwarf__addr_name(k->d, x->insn, a, sizeof(a));
			if (x->target)
				dwarf__addr_name(k->d, x->target, b, sizeof(b));
			else
				snprintf(b, sizeof(b), "?");
			printf("    exit:   %-12s at %s (%s) -> %s\n",
			       dwarf_exit__kind_name(x->kind), a, x->mnemonic,
			       b);
			if (s->pointee_param >= 0) {
				dwarf_loc__describe(&x->pointee, loc,
						    sizeof(loc));
				printf("            result there: %s\n", loc);
			}
		}
		if (s->exits_why[0])
			printf("    exits:  unknown (%s)\n", s->exits_why);
		for (int p = 0; p < s->nparams; p++) {
			const struct dwarf_param *pa = &s->params[p];

			dwarf_loc__describe(&pa->loc, loc, sizeof(loc));
			printf("    arg %-8s %s", pa->name, loc);
			if (frame_pointer(&pa->loc) && pa->store) {
				dwarf__addr_name(k->d, pa->store, a, sizeof(a));
				printf(", stored through at %s", a);
			} else if (frame_pointer(&pa->loc)) {
				printf(", never stored through by the site");
			}
			printf("\n");
		}
	}
}

/* Kernel addresses need all 64 bits, more than a JSON number keeps in
 * most readers (doubles): hex strings. */
static void put_addr(struct jsonb *b, struct json_object *o, const char *key,
		     uint64_t a)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, a);
	jsonb__put(b, o, key, json_object_new_string(buf));
}

/* key: the symbol+offset name of address a. */
static void put_addr_name(struct jsonb *b, struct json_object *o,
			  const char *key, struct dwarf *d, uint64_t a)
{
	char name[192];

	dwarf__addr_name(d, a, name, sizeof(name));
	jsonb__put_str_or_null(b, o, key, name);
}

static void ranges_json(struct jsonb *b, struct json_object *arr,
			struct dwarf *d, const struct dwarf_site *s)
{
	for (int r = 0; r < s->nranges; r++) {
		struct json_object *jr =
			jsonb__push(b, arr, json_object_new_object());

		put_addr(b, jr, "lo", s->ranges[r].lo);
		put_addr(b, jr, "hi", s->ranges[r].hi);
		put_addr_name(b, jr, "from", d, s->ranges[r].lo);
		put_addr_name(b, jr, "to", d, s->ranges[r].hi);
	}
}

static void exits_json(struct jsonb *b, struct json_object *arr,
		       struct dwarf *d, const struct dwarf_site *s)
{
	for (int e = 0; e < s->nexits; e++) {
		const struct dwarf_exit *x = &s->exits[e];
		struct json_object *je =
			jsonb__push(b, arr, json_object_new_object());

		jsonb__put_str_or_null(b, je, "kind",
				       dwarf_exit__kind_name(x->kind));
		put_addr_name(b, je, "at", d, x->insn);
		put_addr(b, je, "insn", x->insn);
		jsonb__put_str_or_null(b, je, "mnemonic", x->mnemonic);
		if (x->target) {
			put_addr(b, je, "target", x->target);
			put_addr_name(b, je, "to", d, x->target);
		} else {
			jsonb__put_null(b, je, "target");
			jsonb__put_null(b, je, "to");
		}
		/* Where the variable the out pointer points at is there. */
		if (s->pointee_param >= 0) {
			char loc[512];

			dwarf_loc__describe(&x->pointee, loc, sizeof(loc));
			jsonb__put_str_or_null(b, je, "result", loc);
		} else {
			jsonb__put_null(b, je, "result");
		}
	}
}

static void params_json(struct jsonb *b, struct json_object *arr,
			const struct dwarf_site *s)
{
	char loc[512];

	for (int p = 0; p < s->nparams; p++) {
		const struct dwarf_loc *l = &s->params[p].loc;
		bool avail = l->kind != DWARF_LOC_UNAVAILABLE;
		struct json_object *jp =
			jsonb__push(b, arr, json_object_new_object());

		jsonb__put_str_or_null(b, jp, "name", s->params[p].name);
		jsonb__put(b, jp, "available", json_object_new_boolean(avail));
		dwarf_loc__describe(l, loc, sizeof(loc));
		jsonb__put_str_or_null(b, jp, "location", avail ? loc : NULL);
		jsonb__put_str_or_null(b, jp, "reason", avail ? NULL : l->why);
		if (frame_pointer(l))
			jsonb__put(b, jp, "stored_through",
				   json_object_new_boolean(s->params[p].store));
	}
}

static void site_json(struct jsonb *b, struct json_object *js, struct dwarf *d,
		      const struct dwarf_site *s)
{
	jsonb__put_str_or_null(b, js, "caller", s->caller);
	/* readelf --debug-dump=info --dwarf-start=DIE shows it. */
	put_addr(b, js, "die", s->die);
	jsonb__put_str_or_null(b, js, "call_file", s->call_file);
	jsonb__put(b, js, "call_line", json_object_new_int(s->call_line));
	put_addr_name(b, js, "entry", d, s->entry_pc);
	put_addr(b, js, "entry_pc", s->entry_pc);
	jsonb__put_str_or_null(b, js, "entry_from", s->entry_from);
	if (s->entry_loop)
		put_addr_name(b, js, "entry_loop", d, s->entry_loop);
	else
		jsonb__put_str_or_null(b, js, "entry_loop", NULL);
	ranges_json(b, jsonb__put(b, js, "ranges", json_object_new_array()), d,
		    s);
	exits_json(b, jsonb__put(b, js, "exits", json_object_new_array()), d,
		   s);
	jsonb__put_str_or_null(b, js, "exits_reason", s->exits_why);
	params_json(b, jsonb__put(b, js, "params", json_object_new_array()), s);
}

void doctor_inline__json(struct jsonb *b, struct json_object *j,
			 struct dwarf_kernel *k, const struct doctor_inline *di)
{
	const char *why = !k->d ? k->why : di->err < 0 ? di->why : NULL;

	jsonb__put_str_or_null(b, j, "dwarf", k->d ? dwarf__path(k->d) : NULL);
	jsonb__put_str_or_null(b, j, "source", k->d ? source_name(k) : NULL);
	jsonb__put_str_or_null(b, j, "build_id",
			       k->d ? dwarf__build_id(k->d) : NULL);
	jsonb__put_str_or_null(b, j, "kernel_build_id", k->kernel_id);
	if (k->d && di->err >= 0) {
		struct json_object *sites =
			jsonb__put(b, j, "sites", json_object_new_array());

		for (int i = 0; i < di->sites.n; i++)
			site_json(
				b,
				jsonb__push(b, sites, json_object_new_object()),
				k->d, &di->sites.site[i]);
	} else {
		jsonb__put_null(b, j, "sites");
	}
	jsonb__put_str_or_null(b, j, "reason", why);
}
