/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Inline sites from a kernel's DWARF: where a function the compiler
 * inlined lives in its callers (entry PC, address ranges), where each of
 * its parameters is at the entry PC, and the addresses where control
 * leaves the inlined code. DWARF is read with elfutils' libdw, machine
 * code decoded with capstone (x86-64).
 */
#ifndef FS_DWARF_H
#define FS_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DWARF_BUILD_ID_HEX 129 /* 64 bytes as hex + NUL */
#define DWARF_NAME_MAX 128
#define DWARF_WHY_MAX 256

struct dwarf;

/* Where a parameter is at a given PC. */
enum dwarf_loc_kind {
	DWARF_LOC_UNAVAILABLE, /* why says why */
	DWARF_LOC_REG,	       /* in register reg */
	DWARF_LOC_MEM,	       /* in memory at reg + offset */
	DWARF_LOC_FBREG,       /* in memory at frame base + offset */
	DWARF_LOC_ADDR,	       /* in memory at a fixed address (offset) */
	DWARF_LOC_VALUE,       /* the value is reg + offset (no memory) */
	DWARF_LOC_CONST,       /* the value is the constant offset */
	DWARF_LOC_FBVALUE,     /* the value is frame base + offset (the
				  address of something in the frame) */
};

struct dwarf_loc {
	enum dwarf_loc_kind kind;
	int reg;	/* DWARF register number, -1 when none */
	int64_t offset; /* see kind */
	/* For DWARF_LOC_FBREG and _FBVALUE: the frame base at that PC, when the
	 * call frame information gives it as a register + offset (the CFA). */
	bool cfa_known;
	int cfa_reg;
	int64_t cfa_offset;
	char why[DWARF_WHY_MAX];
	/* An implicit pointer (unavailable, why says so): the .debug_info
	 * offset of the caller's variable it points at, 0 otherwise. */
	uint64_t pointee;
};

struct dwarf_param {
	char name[64];
	struct dwarf_loc loc;
	/* For a value that is an address in the frame (DWARF_LOC_VALUE,
	 * DWARF_LOC_FBVALUE with the CFA known): the first instruction of
	 * the site that stores there, 0 when none does (the compiler kept
	 * what the function writes through it in registers). */
	uint64_t store;
};

struct dwarf_range {
	uint64_t lo, hi; /* [lo, hi) */
};

enum dwarf_exit_kind {
	DWARF_EXIT_FALLTHROUGH, /* a range ends and the next byte is outside */
	DWARF_EXIT_BRANCH,	/* jump (or conditional) to outside */
	DWARF_EXIT_INDIRECT,	/* jump through a register or memory */
	DWARF_EXIT_RETURN,	/* ret: leaves the caller as well */
};

struct dwarf_exit {
	enum dwarf_exit_kind kind;
	uint64_t insn;	 /* the instruction (for a fall-through: the last
			    one of the range) */
	uint64_t target; /* where control goes; 0 when unknown */
	char mnemonic[16];
	/* At target, where the variable the site's pointee_param points at
	 * is; unavailable when there is none. */
	struct dwarf_loc pointee;
};

struct dwarf_site {
	char caller[DWARF_NAME_MAX]; /* subprogram it is inlined into */
	char symbol[DWARF_NAME_MAX]; /* ELF symbol holding the entry PC */
	uint64_t symbol_addr;
	uint64_t entry_pc;
	char entry_from[96]; /* which attribute or rule gave entry_pc */
	uint64_t die; /* offset of the DW_TAG_inlined_subroutine in .debug_info
		       */
	char call_file[DWARF_NAME_MAX];
	int call_line;
	struct dwarf_range *ranges;
	int nranges;
	struct dwarf_param *params;
	int nparams;
	struct dwarf_exit *exits;
	int nexits;
	char exits_why[DWARF_WHY_MAX]; /* set when exits could not be found */
	/* A jump inside the site back to entry_pc, 0 when none: the entry is
	 * also the head of a loop of the inlined code, reached again on
	 * every turn of the loop without control leaving the site. */
	uint64_t entry_loop;
	/* The first parameter that is an implicit pointer to a variable of
	 * the caller or, without one, the first whose value is an address
	 * in the frame (DWARF_LOC_FBVALUE): the variable each exit's pointee
	 * locates; -1: none. */
	int pointee_param;
};

struct dwarf_sites {
	char function[DWARF_NAME_MAX];
	struct dwarf_site *site;
	int n;
};

/*
 * Opens an ELF file with DWARF. Returns 0, or a negative errno with one
 * line in why (not a file, no ELF, no DWARF, ...).
 */
int dwarf__open(const char *path, struct dwarf **out, char *why, size_t n);
void dwarf__close(struct dwarf *d);
const char *dwarf__path(const struct dwarf *d);

/* The GNU build ID of the file as hex; "" when it has none. */
const char *dwarf__build_id(const struct dwarf *d);

/*
 * Every inlined instance of function. Returns the number of sites (0 when
 * the function is never inlined), or a negative errno with why. Free with
 * dwarf_sites__free.
 */
int dwarf__find_inline(struct dwarf *d, const char *function,
		       struct dwarf_sites *out, char *why, size_t n);
void dwarf_sites__free(struct dwarf_sites *s);

/* x86-64 name of a DWARF register number ("rdi"), "?" when unknown. */
const char *dwarf__reg_name(int reg);
/* "rdi", "memory at rsp+16", "unavailable: ..." */
void dwarf_loc__describe(const struct dwarf_loc *l, char *buf, size_t n);
const char *dwarf_exit__kind_name(enum dwarf_exit_kind k);

/*
 * The running kernel's GNU build ID from notes (normally
 * /sys/kernel/notes, a list of ELF notes). 0, or a negative errno.
 */
int dwarf__kernel_build_id(const char *notes, char *hex, size_t n);

/*
 * Which DWARF to use for a kernel of release whose build ID is kernel_id
 * ("" when unknown): given (--debuginfo) if set, else the first
 * distribution path that exists. On success path is filled and the file
 * is open in *out with its build ID matching; otherwise a negative errno
 * and one line in why, which names the paths looked at or both build IDs.
 */
int dwarf__locate(const char *given, const char *release, const char *kernel_id,
		  struct dwarf **out, char *why, size_t n);

/* "symbol+0xoff" for addr, or its hex when no function symbol holds it. */
void dwarf__addr_name(struct dwarf *d, uint64_t addr, char *buf, size_t n);

/* The running kernel's DWARF, found and checked (kernel.c). */
struct dwarf_kernel {
	struct dwarf *d; /* NULL when there is none to use: see why */
	bool given;	 /* from --debuginfo, not a distribution path */
	char kernel_id[DWARF_BUILD_ID_HEX]; /* "" when unknown */
	char why[1024];
};

/*
 * given: --debuginfo FILE or NULL; release: the running kernel's. The
 * running kernel's build ID is read from /sys/kernel/notes
 * ($FOLIOSCOPE_KERNEL_NOTES names another notes file, for tests). A
 * kernel whose build ID cannot be read gets no DWARF: nothing would show
 * that the file describes it. Always returns with k->d or k->why set.
 */
void dwarf_kernel__open(struct dwarf_kernel *k, const char *given,
			const char *release);
void dwarf_kernel__close(struct dwarf_kernel *k);

#endif /* FS_DWARF_H */
