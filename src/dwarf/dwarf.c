// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The DWARF file: opening it (libelf + libdw), its build ID, matching it
 * to the running kernel, and where to look for one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "dwarf_internal.h"
#include "util/util.h"

static void fmt(char *buf, size_t n, const char *f, const char *a,
		const char *b)
{
	if (n)
		snprintf(buf, n, f, a, b);
}

static void hex(const unsigned char *p, size_t len, char *out, size_t n)
{
	size_t i;

	if (!n)
		return;
	out[0] = '\0';
	for (i = 0; i < len && 2 * i + 2 < n; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
}

/* The NT_GNU_BUILD_ID note of an ELF file, from its note sections. */
static void elf_build_id(Elf *elf, char *out, size_t n)
{
	Elf_Scn *scn = NULL;

	out[0] = '\0';
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off,
					   &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + name_off, "GNU", 4)) {
				hex((unsigned char *)data->d_buf + desc_off,
				    nh.n_descsz, out, n);
				return;
			}
		}
	}
}

int dwarf__open(const char *path, struct dwarf **out, char *why, size_t n)
{
	struct dwarf *d;
	struct stat st;
	int err;

	*out = NULL;
	if (stat(path, &st)) {
		err = -errno;
		fmt(why, n, "%s: %s", path, strerror(-err));
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		fmt(why, n, "%s: %s", path, "not a regular file");
		return -EINVAL;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		fmt(why, n, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0) {
		err = -errno;
		fmt(why, n, "%s: %s", path, strerror(-err));
		goto fail;
	}
	elf_version(EV_CURRENT);
	d->elf = elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF) {
		fmt(why, n, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
		err = -ENOEXEC;
		goto fail;
	}
	elf_build_id(d->elf, d->build_id, sizeof(d->build_id));
	d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	if (!d->dw) {
		fmt(why, n, "%s: no DWARF (%s)", path, dwarf_errmsg(-1));
		err = -ENODATA;
		goto fail;
	}
	d->cfi_debug = dwarf_getcfi(d->dw);
	d->cfi_eh = dwarf_getcfi_elf(d->elf);
	*out = d;
	return 0;
fail:
	dwarf__close(d);
	return err;
}

void dwarf__close(struct dwarf *d)
{
	if (!d)
		return;
	/* cfi_debug belongs to the Dwarf. */
	if (d->cfi_eh)
		dwarf_cfi_end(d->cfi_eh);
	if (d->dw)
		dwarf_end(d->dw);
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	free(d);
}

const char *dwarf__path(const struct dwarf *d)
{
	return d->path;
}

const char *dwarf__build_id(const struct dwarf *d)
{
	return d->build_id;
}

int dwarf__symbolize(struct dwarf *d, uint64_t addr, char *name, size_t n,
		     uint64_t *start)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(d->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t i, nsym;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		nsym = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < nsym; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(data, i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    addr < sym.st_value ||
			    addr >= sym.st_value + sym.st_size)
				continue;
			s = elf_strptr(d->elf, sh.sh_link, sym.st_name);
			if (!s)
				continue;
			snprintf(name, n, "%s", s);
			*start = sym.st_value;
			return 0;
		}
	}
	return -ENOENT;
}

int dwarf__kernel_build_id(const char *notes, char *out, size_t n)
{
	unsigned char buf[4096];
	size_t off = 0;
	ssize_t len;
	int fd, err = -ENOENT;

	fd = open(notes, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf));
	close(fd);
	if (len < 0)
		return -errno;
	/* Elf64_Nhdr and Elf32_Nhdr are the same three 32-bit words. */
	while (off + sizeof(Elf64_Nhdr) <= (size_t)len) {
		Elf64_Nhdr nh;
		size_t name, desc;

		memcpy(&nh, buf + off, sizeof(nh));
		name = off + sizeof(nh);
		desc = name + ((nh.n_namesz + 3) & ~3u);
		if (desc + nh.n_descsz > (size_t)len)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(buf + name, "GNU", 4)) {
			hex(buf + desc, nh.n_descsz, out, n);
			err = 0;
			break;
		}
		off = desc + ((nh.n_descsz + 3) & ~3u);
	}
	return err;
}

/* Where perf and crash look for a kernel's DWARF, in their order. */
static const char *const distro_paths[] = {
	"/usr/lib/debug/boot/vmlinux-%s",
	"/usr/lib/debug/lib/modules/%s/vmlinux",
	"/boot/vmlinux-%s",
};

static int check_id(struct dwarf *d, const char *kernel_id, char *why, size_t n)
{
	if (!kernel_id || !kernel_id[0])
		return 0;
	if (!d->build_id[0]) {
		fmt(why, n,
		    "%s has no GNU build ID; the running kernel's is %s",
		    d->path, kernel_id);
		return -ESTALE;
	}
	if (strcmp(d->build_id, kernel_id)) {
		snprintf(why, n,
			 "%s is another kernel's DWARF: build ID %s, the "
			 "running kernel's is %s",
			 d->path, d->build_id, kernel_id);
		return -ESTALE;
	}
	return 0;
}

int dwarf__locate(const char *given, const char *release, const char *kernel_id,
		  struct dwarf **out, char *why, size_t n)
{
	char path[4096], looked[1024] = "";
	size_t i, off = 0;
	int err;

	*out = NULL;
	if (given) {
		err = dwarf__open(given, out, why, n);
		if (err)
			return err;
		err = check_id(*out, kernel_id, why, n);
		if (err) {
			dwarf__close(*out);
			*out = NULL;
		}
		return err;
	}
	for (i = 0; i < ARRAY_SIZE(distro_paths); i++) {
		snprintf(path, sizeof(path), distro_paths[i], release);
		if (access(path, F_OK)) {
			off += snprintf(looked + off, sizeof(looked) - off,
					"%s%s", i ? ", " : "", path);
			if (off >= sizeof(looked))
				off = sizeof(looked) - 1;
			continue;
		}
		err = dwarf__open(path, out, why, n);
		if (!err)
			err = check_id(*out, kernel_id, why, n);
		if (err) {
			dwarf__close(*out);
			*out = NULL;
		}
		return err;
	}
	snprintf(why, n, "no DWARF for %s: looked at %s; give --debuginfo FILE",
		 release, looked);
	return -ENOENT;
}

/* The x86-64 psABI's DWARF register numbers. */
static const char *const x86_64_regs[] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8",
	"r9",  "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};

const char *dwarf__reg_name(int reg)
{
	if (reg < 0 || reg >= (int)ARRAY_SIZE(x86_64_regs))
		return "?";
	return x86_64_regs[reg];
}

void dwarf_loc__describe(const struct dwarf_loc *l, char *buf, size_t n)
{
	const char *r = dwarf__reg_name(l->reg);

	switch (l->kind) {
	case DWARF_LOC_REG:
		snprintf(buf, n, "%s", r);
		break;
	case DWARF_LOC_MEM:
		snprintf(buf, n, "memory at %s%+" PRId64, r, l->offset);
		break;
	case DWARF_LOC_FBREG:
	case DWARF_LOC_FBVALUE: {
		const char *what =
			l->kind == DWARF_LOC_FBREG ? "memory at" : "value";

		if (l->cfa_known)
			snprintf(buf, n,
				 "%s frame base%+" PRId64 " (%s%+" PRId64 ")",
				 what, l->offset, dwarf__reg_name(l->cfa_reg),
				 l->cfa_offset + l->offset);
		else
			snprintf(buf, n, "%s frame base%+" PRId64, what,
				 l->offset);
		break;
	}
	case DWARF_LOC_ADDR:
		snprintf(buf, n, "memory at 0x%" PRIx64, (uint64_t)l->offset);
		break;
	case DWARF_LOC_VALUE:
		snprintf(buf, n, "value %s%+" PRId64, r, l->offset);
		break;
	case DWARF_LOC_CONST:
		snprintf(buf, n, "constant %" PRId64, l->offset);
		break;
	default:
		snprintf(buf, n, "unavailable: %s", l->why);
		break;
	}
}

const char *dwarf_exit__kind_name(enum dwarf_exit_kind k)
{
	switch (k) {
	case DWARF_EXIT_FALLTHROUGH:
		return "fall-through";
	case DWARF_EXIT_BRANCH:
		return "branch";
	case DWARF_EXIT_INDIRECT:
		return "indirect";
	case DWARF_EXIT_RETURN:
		return "return";
	}
	return "?";
}

void dwarf__addr_name(struct dwarf *d, uint64_t addr, char *buf, size_t n)
{
	char sym[DWARF_NAME_MAX];
	uint64_t start;

	if (!dwarf__symbolize(d, addr, sym, sizeof(sym), &start))
		snprintf(buf, n, "%s+0x%" PRIx64, sym, addr - start);
	else
		snprintf(buf, n, "0x%" PRIx64, addr);
}
