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
		}
		if (s->exits_why[0])
			printf("    exits:  unknown (%s)\n", s->exits_why);
		for (int p = 0; p < s->nparams; p++) {
			dwarf_loc__describe(&s->params[p].loc, loc,
					    sizeof(loc));
			printf("    arg %-8s %s\n", s->params[p].name, loc);
		}
	}
}

static struct json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* Kernel addresses need all 64 bits, more than a JSON number keeps in
 * most readers (doubles): hex strings. */
static struct json_object *jaddr(uint64_t a)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, a);
	return json_object_new_string(buf);
}

static struct json_object *site_json(struct dwarf *d,
				     const struct dwarf_site *s)
{
	struct json_object *js = json_object_new_object();
	struct json_object *arr;
	char a[192], loc[512];

	json_object_object_add(js, "caller", jstr(s->caller));
	/* readelf --debug-dump=info --dwarf-start=DIE shows it. */
	json_object_object_add(js, "die", jaddr(s->die));
	json_object_object_add(js, "call_file", jstr(s->call_file));
	json_object_object_add(js, "call_line",
			       json_object_new_int(s->call_line));
	dwarf__addr_name(d, s->entry_pc, a, sizeof(a));
	json_object_object_add(js, "entry", jstr(a));
	json_object_object_add(js, "entry_pc", jaddr(s->entry_pc));
	json_object_object_add(js, "entry_from", jstr(s->entry_from));
	arr = json_object_new_array();
	for (int r = 0; r < s->nranges; r++) {
		struct json_object *jr = json_object_new_object();

		json_object_object_add(jr, "lo", jaddr(s->ranges[r].lo));
		json_object_object_add(jr, "hi", jaddr(s->ranges[r].hi));
		dwarf__addr_name(d, s->ranges[r].lo, a, sizeof(a));
		json_object_object_add(jr, "from", jstr(a));
		dwarf__addr_name(d, s->ranges[r].hi, a, sizeof(a));
		json_object_object_add(jr, "to", jstr(a));
		json_object_array_add(arr, jr);
	}
	json_object_object_add(js, "ranges", arr);
	arr = json_object_new_array();
	for (int e = 0; e < s->nexits; e++) {
		const struct dwarf_exit *x = &s->exits[e];
		struct json_object *je = json_object_new_object();

		json_object_object_add(je, "kind",
				       jstr(dwarf_exit__kind_name(x->kind)));
		dwarf__addr_name(d, x->insn, a, sizeof(a));
		json_object_object_add(je, "at", jstr(a));
		json_object_object_add(je, "insn", jaddr(x->insn));
		json_object_object_add(je, "mnemonic", jstr(x->mnemonic));
		json_object_object_add(je, "target",
				       x->target ? jaddr(x->target) : NULL);
		if (x->target)
			dwarf__addr_name(d, x->target, a, sizeof(a));
		json_object_object_add(je, "to", x->target ? jstr(a) : NULL);
		json_object_array_add(arr, je);
	}
	json_object_object_add(js, "exits", arr);
	json_object_object_add(js, "exits_reason",
			       s->exits_why[0] ? jstr(s->exits_why) : NULL);
	arr = json_object_new_array();
	for (int p = 0; p < s->nparams; p++) {
		const struct dwarf_loc *l = &s->params[p].loc;
		struct json_object *jp = json_object_new_object();

		json_object_object_add(jp, "name", jstr(s->params[p].name));
		json_object_object_add(
			jp, "available",
			json_object_new_boolean(l->kind !=
						DWARF_LOC_UNAVAILABLE));
		dwarf_loc__describe(l, loc, sizeof(loc));
		json_object_object_add(
			jp, "location",
			l->kind == DWARF_LOC_UNAVAILABLE ? NULL : jstr(loc));
		json_object_object_add(
			jp, "reason",
			l->kind == DWARF_LOC_UNAVAILABLE ? jstr(l->why) : NULL);
		json_object_array_add(arr, jp);
	}
	json_object_object_add(js, "params", arr);
	return js;
}

struct json_object *doctor_inline__json(struct dwarf_kernel *k,
					const struct doctor_inline *di)
{
	struct json_object *j = json_object_new_object();
	struct json_object *sites = NULL;

	json_object_object_add(j, "dwarf",
			       k->d ? jstr(dwarf__path(k->d)) : NULL);
	json_object_object_add(j, "source", k->d ? jstr(source_name(k)) : NULL);
	json_object_object_add(j, "build_id",
			       k->d ? jstr(dwarf__build_id(k->d)) : NULL);
	json_object_object_add(j, "kernel_build_id",
			       k->kernel_id[0] ? jstr(k->kernel_id) : NULL);
	if (k->d && di->err >= 0) {
		sites = json_object_new_array();
		for (int i = 0; i < di->sites.n; i++)
			json_object_array_add(
				sites, site_json(k->d, &di->sites.site[i]));
	}
	json_object_object_add(j, "sites", sites);
	json_object_object_add(j, "reason",
			       !k->d	     ? jstr(k->why)
			       : di->err < 0 ? jstr(di->why)
					     : NULL);
	return j;
}
