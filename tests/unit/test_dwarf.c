// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Inline sites (src/dwarf/): tests/fixtures/dwarf/inline.c is built with
 * gcc -O2 -g at test time (spill.c with -O0 for an argument in the frame,
 * result.c with -O2 for a result stored through a frame address), and
 * every site, range, parameter location and exit src/dwarf/ finds is checked
 * against what binutils' readelf and objdump (and llvm-dwarfdump for range
 * lists) say about the same file.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "dwarf/dwarf.h"

#ifndef FS_SRCDIR
#define FS_SRCDIR "."
#endif

static char dir[256], lib[300], spill[300], result[300], loop[300];

/* ---- readelf --debug-dump=info,loc,Ranges ---- */
#define MAX_DIES 512
struct die {
	unsigned long off;
	int depth;
	char tag[48];
	char name[64];
	unsigned long origin, ranges;
	long loclist; /* -1: no DW_AT_location */
	bool has_ranges, has_const;
	uint64_t entry_pc, low_pc;
	int call_line;
};
static struct die dies[MAX_DIES];
static int ndies;

struct loc_entry {
	long list;
	uint64_t lo, hi;
	char expr[128];
};
static struct loc_entry locs[512];
static int nlocs;

struct rng_entry {
	unsigned long list;
	uint64_t lo, hi;
};
static struct rng_entry rngs[128];
static int nrngs;

/* ---- objdump -d ---- */
struct insn {
	uint64_t addr;
	char mnem[16];
	uint64_t target; /* 0: none */
	bool indirect;
};
static struct insn insns[1024];
static int ninsns;
static uint64_t text_end;

static FILE *run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	f = popen(cmd, "r");
	assert_non_null(f);
	return f;
}

static void parse_info(void)
{
	char line[512];
	struct die *d = NULL;
	FILE *f = run("readelf --debug-dump=info %s", lib);

	while (fgets(line, sizeof(line), f)) {
		int depth;
		unsigned long off, v;
		char tag[48];
		char *p;

		if (sscanf(line, " <%d><%lx>: Abbrev Number: %*d (%47[^)])",
			   &depth, &off, tag) == 3) {
			assert_true(ndies < MAX_DIES);
			d = &dies[ndies++];
			memset(d, 0, sizeof(*d));
			d->off = off;
			d->depth = depth;
			d->loclist = -1;
			snprintf(d->tag, sizeof(d->tag), "%s", tag);
			continue;
		}
		if (!d || !(p = strstr(line, "DW_AT_")))
			continue;
		if (sscanf(p, "DW_AT_abstract_origin: <0x%lx>", &v) == 1)
			d->origin = v;
		else if (sscanf(p, "DW_AT_entry_pc : 0x%lx", &v) == 1)
			d->entry_pc = v;
		else if (sscanf(p, "DW_AT_low_pc : 0x%lx", &v) == 1)
			d->low_pc = v;
		else if (sscanf(p, "DW_AT_call_line : %lu", &v) == 1)
			d->call_line = (int)v;
		else if (sscanf(p, "DW_AT_ranges : 0x%lx", &v) == 1) {
			d->ranges = v;
			d->has_ranges = true;
		} else if (sscanf(p, "DW_AT_location : 0x%lx (location list)",
				  &v) == 1)
			d->loclist = (long)v;
		else if (!strncmp(p, "DW_AT_const_value", 17))
			d->has_const = true;
		else if (!strncmp(p, "DW_AT_name", 10)) {
			char *c = strrchr(p, ':');

			if (c)
				sscanf(c + 1, " %63s", d->name);
		}
	}
	assert_int_equal(pclose(f), 0);
}

static void parse_loc(void)
{
	char line[512], expr[128];
	long list = -1, off;
	unsigned long lo, hi;
	FILE *f = run("readelf --debug-dump=loc %s", lib);

	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "<End of list>")) {
			list = -1;
		} else if (strstr(line, " for:")) {
			if (list < 0 && sscanf(line, " %lx", &off) == 1)
				list = off;
		} else if (list >= 0 && sscanf(line, " %lx %lx (%127[^\n]", &lo,
					       &hi, expr) == 3) {
			assert_true(nlocs <
				    (int)(sizeof(locs) / sizeof(*locs)));
			locs[nlocs].list = list;
			locs[nlocs].lo = lo;
			locs[nlocs].hi = hi;
			snprintf(locs[nlocs].expr, sizeof(locs[nlocs].expr),
				 "%s", expr);
			nlocs++;
		}
	}
	assert_int_equal(pclose(f), 0);
}

/* readelf (binutils 2.40) prints only the first list of a CU's
 * .debug_rnglists; llvm-dwarfdump prints every DW_AT_ranges resolved. */
static void parse_ranges(void)
{
	char line[512];
	unsigned long list = 0, lo, hi;
	bool in_list = false;
	FILE *f = run("llvm-dwarfdump --debug-info %s", lib);

	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "DW_AT_ranges");

		if (p && sscanf(p, "DW_AT_ranges (0x%lx", &list) == 1) {
			in_list = true;
			for (int i = 0; i < nrngs; i++)
				if (rngs[i].list == list)
					in_list = false; /* seen already */
		} else if (in_list &&
			   sscanf(line, " [0x%lx, 0x%lx)", &lo, &hi) == 2) {
			assert_true(nrngs <
				    (int)(sizeof(rngs) / sizeof(*rngs)));
			rngs[nrngs].list = list;
			rngs[nrngs].lo = lo;
			rngs[nrngs].hi = hi;
			nrngs++;
		} else {
			in_list = false;
		}
	}
	assert_int_equal(pclose(f), 0);
}

static void parse_objdump(const char *file)
{
	char line[512];
	unsigned long a, t;
	FILE *f = run("objdump -d --no-show-raw-insn %s", file);

	ninsns = 0;
	while (fgets(line, sizeof(line), f)) {
		struct insn *in;
		char mnem[16], ops[256] = "";

		if (sscanf(line, " %lx:\t%15s %255[^\n]", &a, mnem, ops) < 2)
			continue;
		assert_true(ninsns < (int)(sizeof(insns) / sizeof(*insns)));
		in = &insns[ninsns++];
		memset(in, 0, sizeof(*in));
		in->addr = a;
		snprintf(in->mnem, sizeof(in->mnem), "%s", mnem);
		if (mnem[0] == 'j') {
			if (ops[0] == '*')
				in->indirect = true;
			else if (sscanf(ops, "%lx", &t) == 1)
				in->target = t;
		}
	}
	assert_int_equal(pclose(f), 0);
	text_end = ninsns ? insns[ninsns - 1].addr + 1 : 0;
}

/* tests/fixtures/dwarf/NAME.c built with gcc OPT -g into dir/libNAME.so,
 * its path in out. */
static int fixture(char *out, size_t n, const char *name, const char *opt)
{
	char cmd[1024];

	snprintf(out, n, "%s/lib%s.so", dir, name);
	snprintf(cmd, sizeof(cmd),
		 "gcc %s -g -fPIC -shared -o %s %s/tests/fixtures/dwarf/%s.c",
		 opt, out, FS_SRCDIR, name);
	return system(cmd) ? -1 : 0;
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/test_dwarf.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	if (fixture(lib, sizeof(lib), "inline", "-O2") ||
	    fixture(spill, sizeof(spill), "spill", "-O0") ||
	    fixture(loop, sizeof(loop), "loop", "-Os") ||
	    fixture(result, sizeof(result), "result", "-O2"))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static const struct die *die_at(unsigned long off)
{
	for (int i = 0; i < ndies; i++)
		if (dies[i].off == off)
			return &dies[i];
	fail_msg("no DIE at 0x%lx", off);
	return NULL;
}

static bool in_ranges(const struct dwarf_site *s, uint64_t a)
{
	for (int i = 0; i < s->nranges; i++)
		if (a >= s->ranges[i].lo && a < s->ranges[i].hi)
			return true;
	return false;
}

static const struct insn *insn_at(uint64_t a)
{
	for (int i = 0; i < ninsns; i++)
		if (insns[i].addr == a)
			return &insns[i];
	return NULL;
}

/* Where readelf says the parameter DIE p is at pc. */
static void check_param(const struct die *p, const struct dwarf_param *got,
			uint64_t pc)
{
	char buf[256], want[64];
	const char *reg;

	dwarf_loc__describe(&got->loc, buf, sizeof(buf));
	if (p->loclist < 0 && !p->has_const) {
		assert_int_equal(got->loc.kind, DWARF_LOC_UNAVAILABLE);
		return;
	}
	if (p->loclist < 0)
		return; /* a constant: checked by kind in test_sites */
	for (int i = 0; i < nlocs; i++) {
		if (locs[i].list != p->loclist || pc < locs[i].lo ||
		    pc >= locs[i].hi)
			continue;
		/* "DW_OP_reg3 (rbx))" -> rbx */
		if (!strncmp(locs[i].expr, "DW_OP_reg", 9) &&
		    !strchr(locs[i].expr, ';')) {
			reg = strchr(locs[i].expr, '(');
			assert_non_null(reg);
			snprintf(want, sizeof(want), "%.*s",
				 (int)strcspn(reg + 1, ")"), reg + 1);
			assert_int_equal(got->loc.kind, DWARF_LOC_REG);
			assert_string_equal(buf, want);
		} else if (strstr(locs[i].expr, "DW_OP_entry_value")) {
			assert_int_equal(got->loc.kind, DWARF_LOC_UNAVAILABLE);
		} else {
			assert_int_not_equal(got->loc.kind,
					     DWARF_LOC_UNAVAILABLE);
		}
		return;
	}
	/* No entry covers pc. */
	assert_int_equal(got->loc.kind, DWARF_LOC_UNAVAILABLE);
}

static void check_exits(const struct dwarf_site *s)
{
	uint64_t loop = 0;
	int want = 0;

	/* Every exit is where objdump says, with its mnemonic and target. */
	for (int i = 0; i < s->nexits; i++) {
		const struct dwarf_exit *e = &s->exits[i];
		const struct insn *in = insn_at(e->insn);

		assert_non_null(in);
		assert_true(in_ranges(s, e->insn));
		if (e->kind == DWARF_EXIT_BRANCH) {
			assert_string_equal(e->mnemonic, in->mnem);
			assert_int_equal(e->target, in->target);
		}
		if (e->kind == DWARF_EXIT_FALLTHROUGH) {
			const struct insn *next = insn_at(e->target);

			assert_false(in_ranges(s, e->target));
			assert_true(next || e->target == text_end);
			assert_true(in < insns + ninsns - 1 &&
				    in[1].addr == e->target);
		}
		if (e->kind != DWARF_EXIT_INDIRECT &&
		    e->kind != DWARF_EXIT_RETURN)
			assert_false(in_ranges(s, e->target));
	}
	/* And objdump's exits are all there. */
	for (int i = 0; i < ninsns; i++) {
		const struct insn *in = &insns[i];
		bool ret = !strncmp(in->mnem, "ret", 3);
		bool jump_out = in->mnem[0] == 'j' &&
				(in->indirect || !in_ranges(s, in->target));
		bool last = i + 1 < ninsns && !in_ranges(s, insns[i + 1].addr);
		bool stops = ret || !strcmp(in->mnem, "jmp");

		if (!in_ranges(s, in->addr))
			continue;
		want += ret || jump_out;
		want += last && !stops;
	}
	assert_int_equal(s->nexits, want);
	/* The entry is a loop's head exactly when objdump shows a jump in
	 * the site landing on it: the first such jump. */
	for (int i = 0; i < ninsns; i++)
		if (in_ranges(s, insns[i].addr) && insns[i].mnem[0] == 'j' &&
		    !insns[i].indirect && insns[i].target == s->entry_pc) {
			loop = insns[i].addr;
			break;
		}
	assert_int_equal(s->entry_loop, loop);
}

static void test_sites(void **state)
{
	struct dwarf_sites sites;
	struct dwarf *d;
	char why[512];
	const struct die *fold = NULL;
	int n, want = 0, regs = 0;
	bool seen_a = false, seen_b = false;

	parse_info();
	parse_loc();
	parse_ranges();
	parse_objdump(lib);
	for (int i = 0; i < ndies; i++)
		if (!strcmp(dies[i].tag, "DW_TAG_subprogram") &&
		    !strcmp(dies[i].name, "fold"))
			fold = &dies[i];
	assert_non_null(fold);
	for (int i = 0; i < ndies; i++)
		want += !strcmp(dies[i].tag, "DW_TAG_inlined_subroutine") &&
			dies[i].origin == fold->off;
	/* The fixture's promise: two call sites, both inlined. */
	assert_int_equal(want, 2);

	assert_int_equal(dwarf__open(lib, &d, why, sizeof(why)), 0);
	n = dwarf__find_inline(d, "fold", &sites, why, sizeof(why));
	assert_int_equal(n, want);
	assert_string_equal(sites.function, "fold");
	for (int i = 0; i < n; i++) {
		const struct dwarf_site *s = &sites.site[i];
		const struct die *inl = die_at(s->die);
		int nr = 0, np = 0;

		assert_string_equal(inl->tag, "DW_TAG_inlined_subroutine");
		assert_int_equal(inl->origin, fold->off);
		assert_int_equal(s->entry_pc, inl->entry_pc);
		assert_string_equal(s->entry_from, "DW_AT_entry_pc");
		assert_int_equal(s->call_line, inl->call_line);
		assert_non_null(strstr(s->call_file, "inline.c"));
		seen_a |= !strcmp(s->caller, "caller_a");
		seen_b |= !strcmp(s->caller, "caller_b");
		assert_string_equal(s->symbol, s->caller);
		assert_true(s->entry_pc > s->symbol_addr);
		assert_true(in_ranges(s, s->entry_pc));

		/* Ranges: readelf's list, in its order. */
		assert_true(inl->has_ranges);
		for (int r = 0; r < nrngs; r++) {
			if (rngs[r].list != inl->ranges)
				continue;
			assert_true(nr < s->nranges);
			assert_int_equal(s->ranges[nr].lo, rngs[r].lo);
			assert_int_equal(s->ranges[nr].hi, rngs[r].hi);
			nr++;
		}
		assert_int_equal(nr, s->nranges);

		/* Parameters in declaration order, each where readelf says. */
		assert_int_equal(s->nparams, 4);
		assert_string_equal(s->params[0].name, "p");
		assert_string_equal(s->params[1].name, "n");
		assert_string_equal(s->params[2].name, "seed");
		assert_string_equal(s->params[3].name, "unused");
		for (int j = ndies - 1; j >= 0; j--) {
			const struct die *p = &dies[j];
			const struct die *o;

			if (p->depth != inl->depth + 1 || p->off < inl->off ||
			    strcmp(p->tag, "DW_TAG_formal_parameter"))
				continue;
			/* only this inlined copy's own parameters */
			bool mine = true;

			for (int k = 0; k < ndies; k++)
				if (dies[k].off > inl->off &&
				    dies[k].off < p->off &&
				    dies[k].depth <= inl->depth)
					mine = false;
			if (!mine)
				continue;
			o = die_at(p->origin);
			for (int q = 0; q < s->nparams; q++)
				if (!strcmp(s->params[q].name, o->name)) {
					check_param(p, &s->params[q],
						    s->entry_pc);
					np++;
				}
		}
		assert_int_equal(np, 4);
		assert_int_equal(s->params[3].loc.kind, DWARF_LOC_UNAVAILABLE);
		assert_non_null(strstr(s->params[3].loc.why, "optimised out"));
		for (int q = 0; q < s->nparams; q++)
			regs += s->params[q].loc.kind == DWARF_LOC_REG;

		assert_string_equal(s->exits_why, "");
		assert_true(s->nexits > 0);
		check_exits(s);
	}
	assert_true(seen_a && seen_b);
	assert_true(regs >= 2);
	/* A function that is never inlined has no sites. */
	dwarf_sites__free(&sites);
	assert_int_equal(
		dwarf__find_inline(d, "caller_a", &sites, why, sizeof(why)), 0);
	dwarf_sites__free(&sites);
	dwarf__close(d);
}

/*
 * An inline entry that is also its loop's head: entry_loop is the jump
 * back, as objdump shows it (check_exits), and the fixture keeps its
 * promise that there is one.
 */
static void test_entry_loop(void **state)
{
	struct dwarf_sites sites;
	const struct dwarf_site *s;
	struct dwarf *d;
	char why[512];

	(void)state;
	parse_objdump(loop);
	assert_int_equal(dwarf__open(loop, &d, why, sizeof(why)), 0);
	assert_int_equal(
		dwarf__find_inline(d, "spin", &sites, why, sizeof(why)), 1);
	s = &sites.site[0];
	assert_string_equal(s->caller, "caller_loop");
	assert_string_equal(s->exits_why, "");
	check_exits(s);
	assert_true(s->entry_loop != 0);
	assert_true(in_ranges(s, s->entry_loop));
	assert_true(s->entry_loop > s->entry_pc);
	dwarf_sites__free(&sites);
	dwarf__close(d);
}

static void file_build_id(char *out, size_t n)
{
	char line[256];
	FILE *f = run("readelf -n %s", lib);

	out[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " Build ID: %128s", out) == 1)
			break;
	pclose(f);
	assert_true(out[0]);
	(void)n;
}

static void test_build_id(void **state)
{
	char want[DWARF_BUILD_ID_HEX], why[1024], notes[300], got[129];
	const char *other = "00112233445566778899aabbccddeeff00112233";
	unsigned char note[12 + 4 + 20];
	struct dwarf *d;
	FILE *f;

	file_build_id(want, sizeof(want));
	assert_int_equal(dwarf__open(lib, &d, why, sizeof(why)), 0);
	assert_string_equal(dwarf__build_id(d), want);
	dwarf__close(d);

	/* The same ID: accepted. */
	assert_int_equal(dwarf__locate(lib, "x", want, &d, why, sizeof(why)),
			 0);
	assert_non_null(d);
	dwarf__close(d);
	/* Another kernel's: refused in one line naming both IDs. */
	assert_int_equal(dwarf__locate(lib, "x", other, &d, why, sizeof(why)),
			 -ESTALE);
	assert_null(d);
	assert_non_null(strstr(why, want));
	assert_non_null(strstr(why, other));
	assert_null(strchr(why, '\n'));

	/* /sys/kernel/notes: Elf64_Nhdr + "GNU\0" + the ID, after another
	 * note the reader must skip. */
	snprintf(notes, sizeof(notes), "%s/notes", dir);
	f = fopen(notes, "w");
	assert_non_null(f);
	memset(note, 0, sizeof(note));
	note[0] = 6;  /* namesz */
	note[4] = 4;  /* descsz */
	note[8] = 99; /* type */
	memcpy(note + 12, "Linux\0\0\0", 8);
	assert_int_equal(fwrite(note, 1, 24, f), 24);
	memset(note, 0, sizeof(note));
	note[0] = 4;
	note[4] = 20;
	note[8] = 3; /* NT_GNU_BUILD_ID */
	memcpy(note + 12, "GNU", 4);
	for (int i = 0; i < 20; i++)
		note[16 + i] = (unsigned char)(0x11 * (i % 16));
	assert_int_equal(fwrite(note, 1, sizeof(note), f), sizeof(note));
	fclose(f);
	assert_int_equal(dwarf__kernel_build_id(notes, got, sizeof(got)), 0);
	assert_string_equal(got, "00112233445566778899aabbccddeeff00112233");
}

/*
 * An argument in the frame: DW_OP_fbreg as readelf has it, the frame base
 * (the CFA) as readelf's interpreted CFI table has it at the entry PC, and
 * the sum is the address the inlined code takes of the argument there
 * (objdump: "lea -0x4(%rbp),%rax").
 */
static void test_frame_base(void **state)
{
	struct dwarf_sites sites;
	struct dwarf *d;
	const struct dwarf_loc *l;
	char why[512], line[512], buf[256], want[64], cfa[32] = "";
	long fbreg = 0;
	bool have_fbreg = false, origin = false;
	unsigned long pc;
	FILE *f;

	assert_int_equal(dwarf__open(spill, &d, why, sizeof(why)), 0);
	assert_int_equal(
		dwarf__find_inline(d, "spill", &sites, why, sizeof(why)), 1);
	assert_string_equal(sites.site[0].caller, "caller_c");
	assert_int_equal(sites.site[0].nparams, 1);
	assert_string_equal(sites.site[0].params[0].name, "v");
	l = &sites.site[0].params[0].loc;

	/* The inlined copy's parameter is the DIE with an abstract origin;
	 * caller_c's own x has a name instead. */
	f = run("readelf --debug-dump=info %s", spill);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "(DW_OP_fbreg: ");

		if (strstr(line, "Abbrev Number"))
			origin = false;
		if (strstr(line, "DW_AT_abstract_origin"))
			origin = true;
		if (p && origin && strstr(line, "DW_AT_location")) {
			assert_false(have_fbreg); /* one such argument */
			have_fbreg =
				sscanf(p, "(DW_OP_fbreg: %ld)", &fbreg) == 1;
		}
	}
	assert_int_equal(pclose(f), 0);
	assert_true(have_fbreg);
	assert_int_equal(l->kind, DWARF_LOC_FBREG);
	assert_int_equal(l->offset, fbreg);

	/* Rows "ADDR CFA ...": the last one at or before the entry PC. */
	f = run("readelf --debug-dump=frames-interp %s", spill);
	while (fgets(line, sizeof(line), f)) {
		char c[32];

		if (sscanf(line, "%lx %31s", &pc, c) == 2 && strchr(c, '+') &&
		    pc <= sites.site[0].entry_pc)
			snprintf(cfa, sizeof(cfa), "%s", c);
	}
	assert_int_equal(pclose(f), 0);
	assert_true(l->cfa_known);
	snprintf(want, sizeof(want), "%s%+" PRId64, dwarf__reg_name(l->cfa_reg),
		 l->cfa_offset);
	assert_string_equal(want, cfa);

	/* The code's own address of v at the entry. */
	f = run("objdump -d --no-show-raw-insn %s", spill);
	snprintf(want, sizeof(want), "-0x%" PRIx64 "(%%%s)",
		 -(l->cfa_offset + l->offset), dwarf__reg_name(l->cfa_reg));
	snprintf(buf, sizeof(buf), "%" PRIx64 ":", sites.site[0].entry_pc);
	have_fbreg = false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line + strspn(line, " "), buf, strlen(buf)))
			have_fbreg = strstr(line, "lea") && strstr(line, want);
	assert_int_equal(pclose(f), 0);
	assert_true(have_fbreg);
	dwarf_loc__describe(l, buf, sizeof(buf));
	snprintf(want, sizeof(want), "memory at frame base%ld (%s%+" PRId64 ")",
		 fbreg, dwarf__reg_name(l->cfa_reg), l->cfa_offset + l->offset);
	assert_string_equal(buf, want);
	dwarf_sites__free(&sites);
	dwarf__close(d);
}

/*
 * An argument whose value is an address in the frame (put's out, the
 * address of caller_d's r): the site's store through it is found, at an
 * instruction objdump shows writing that frame slot; an argument in a
 * register has none.
 */
static void test_store_through(void **state)
{
	struct dwarf_sites sites;
	const struct dwarf_site *s;
	const struct dwarf_param *out;
	struct dwarf *d;
	char why[512], line[512], at[32], want[64];
	bool seen = false;
	FILE *f;

	assert_int_equal(dwarf__open(result, &d, why, sizeof(why)), 0);
	assert_int_equal(dwarf__find_inline(d, "put", &sites, why, sizeof(why)),
			 1);
	s = &sites.site[0];
	assert_string_equal(s->caller, "caller_d");
	assert_int_equal(s->nparams, 2);
	out = &s->params[1];
	assert_string_equal(out->name, "out");
	assert_int_equal(out->loc.kind, DWARF_LOC_FBVALUE);
	assert_true(out->loc.cfa_known);
	assert_true(in_ranges(s, out->store));
	assert_int_equal(s->params[0].store, 0);
	snprintf(at, sizeof(at), "%" PRIx64 ":", out->store);
	snprintf(want, sizeof(want), ",0x%" PRIx64 "(%%%s)",
		 out->loc.cfa_offset + out->loc.offset,
		 dwarf__reg_name(out->loc.cfa_reg));
	f = run("objdump -d --no-show-raw-insn %s", result);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line + strspn(line, " "), at, strlen(at)))
			seen = strstr(line, "mov") && strstr(line, want);
	assert_int_equal(pclose(f), 0);
	assert_true(seen);
	dwarf_sites__free(&sites);
	dwarf__close(d);
}

/*
 * The same out pointer at put's exits: caller_d's r in memory at the same
 * frame base offset, the frame base the CFA at the exit's target as the
 * CFI has it there, and that address is the frame slot the instruction
 * at the target reads (caller_d returns r).
 */
static void test_frame_exits(void **state)
{
	struct dwarf_sites sites;
	const struct dwarf_site *s;
	struct dwarf *d;
	char why[512], line[512], at[32], want[64];
	int seen = 0;
	FILE *f;

	assert_int_equal(dwarf__open(result, &d, why, sizeof(why)), 0);
	assert_int_equal(dwarf__find_inline(d, "put", &sites, why, sizeof(why)),
			 1);
	s = &sites.site[0];
	assert_int_equal(s->pointee_param, 1);
	assert_true(s->nexits > 0);
	for (int e = 0; e < s->nexits; e++) {
		const struct dwarf_loc *l = &s->exits[e].pointee;

		assert_true(s->exits[e].target != 0);
		assert_int_equal(l->kind, DWARF_LOC_FBREG);
		assert_int_equal(l->offset, s->params[1].loc.offset);
		assert_true(l->cfa_known);
		snprintf(at, sizeof(at), "%" PRIx64 ":", s->exits[e].target);
		snprintf(want, sizeof(want), "0x%" PRIx64 "(%%%s),",
			 l->cfa_offset + l->offset,
			 dwarf__reg_name(l->cfa_reg));
		f = run("objdump -d --no-show-raw-insn %s", result);
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line + strspn(line, " "), at,
				     strlen(at)) &&
			    strstr(line, "mov") && strstr(line, want))
				seen++;
		assert_int_equal(pclose(f), 0);
	}
	assert_int_equal(seen, s->nexits);
	dwarf_sites__free(&sites);
	dwarf__close(d);
}

static void test_bad_input(void **state)
{
	char why[512], path[300];
	struct dwarf *d;
	FILE *f;

	assert_int_equal(dwarf__open(dir, &d, why, sizeof(why)), -EINVAL);
	assert_null(d);
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(dwarf__open(path, &d, why, sizeof(why)), -ENOENT);
	snprintf(path, sizeof(path), "%s/garbage", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("not an ELF file at all\n", f);
	fclose(f);
	assert_int_equal(dwarf__open(path, &d, why, sizeof(why)), -ENOEXEC);
	assert_non_null(strstr(why, "not an ELF"));
	/* An ELF file without DWARF (a stripped one). */
	assert_int_equal(dwarf__open("/bin/true", &d, why, sizeof(why)),
			 -ENODATA);
	assert_non_null(strstr(why, "no DWARF"));
	/* A release with no DWARF anywhere: the paths looked at. */
	assert_int_equal(
		dwarf__locate(NULL, "0.0.0-none", "", &d, why, sizeof(why)),
		-ENOENT);
	assert_non_null(strstr(why, "/usr/lib/debug/boot/vmlinux-0.0.0-none"));
	assert_non_null(strstr(why, "/boot/vmlinux-0.0.0-none"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sites),
		cmocka_unit_test(test_entry_loop),
		cmocka_unit_test(test_frame_base),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_store_through),
		cmocka_unit_test(test_frame_exits),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
