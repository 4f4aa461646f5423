// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * insncount: a qemu TCG plugin that counts the guest instructions each
 * translation block executes, and snapshots every count each time the
 * guest runs the block at mark= (bench/profile/mark.c, linked at a fixed
 * address). The instructions between two snapshots are a window; at exit
 * it writes, per window, each block's address, its instruction count and
 * how often it ran (bench/profile/attribute.py names them).
 *
 * Under -icount every guest instruction takes the same time, so these
 * counts are the guest's time, to the instruction.
 *
 *   -plugin insncount.so,out=FILE,mark=HEXADDR
 *
 * Debian's qemu runs plugins but ships no qemu-plugin.h: the few calls
 * of its version-1 API used here are declared below.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct {
		int min, cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus, max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*vcpu_udata_cb_t)(unsigned int, void *);
typedef void (*udata_cb_t)(qemu_plugin_id_t, void *);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb_t);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *,
					  vcpu_udata_cb_t,
					  enum qemu_plugin_cb_flags, void *);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *,
					      enum qemu_plugin_op, void *,
					      uint64_t);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb_t, void *);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

/* One translation of a block; a block translated again gets another. */
struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t runs; /* bumped by the translated code itself */
};

#define MAX_BLOCKS (1u << 22)
#define MAX_SNAPS 128

static struct block *blocks;
static unsigned int nblocks;
static uint64_t *snaps[MAX_SNAPS];
static unsigned int nsnap_blocks[MAX_SNAPS];
static unsigned int nsnaps;
static uint64_t mark_addr;
static const char *out_path;

/* The guest ran the marker: every block's runs so far. */
static void on_mark(unsigned int vcpu, void *data)
{
	uint64_t *s;

	(void)vcpu;
	(void)data;
	if (nsnaps == MAX_SNAPS)
		return;
	s = malloc(sizeof(*s) * (nblocks ? nblocks : 1));
	if (!s)
		return;
	for (unsigned int i = 0; i < nblocks; i++)
		s[i] = blocks[i].runs;
	nsnap_blocks[nsnaps] = nblocks;
	snaps[nsnaps++] = s;
}

/* Translation is serialised by qemu (and -icount runs one vCPU). */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b;

	(void)id;
	if (qemu_plugin_tb_vaddr(tb) == mark_addr)
		qemu_plugin_register_vcpu_tb_exec_cb(
			tb, on_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
	if (nblocks == MAX_BLOCKS)
		return;
	b = &blocks[nblocks++];
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = qemu_plugin_tb_n_insns(tb);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->runs, 1);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *data)
{
	FILE *f = fopen(out_path, "w");

	(void)id;
	(void)data;
	if (!f) {
		perror(out_path);
		return;
	}
	fprintf(f, "blocks %u snapshots %u%s\n", nblocks, nsnaps,
		nblocks == MAX_BLOCKS ? " full" : "");
	for (unsigned int s = 0; s + 1 < nsnaps; s++) {
		fprintf(f, "window %u\n", s);
		for (unsigned int i = 0; i < nsnap_blocks[s + 1]; i++) {
			uint64_t a = i < nsnap_blocks[s] ? snaps[s][i] : 0;
			uint64_t b = snaps[s + 1][i];

			if (b > a)
				fprintf(f,
					"%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
					blocks[i].vaddr, blocks[i].insns,
					b - a);
		}
	}
	fclose(f);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
		else if (!strncmp(argv[i], "mark=", 5))
			mark_addr = strtoull(argv[i] + 5, NULL, 16);
	}
	if (!out_path || !mark_addr) {
		fprintf(stderr, "insncount: need out=FILE,mark=HEXADDR\n");
		return -1;
	}
	blocks = calloc(MAX_BLOCKS, sizeof(*blocks));
	if (!blocks)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
