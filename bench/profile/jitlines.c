// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * jitlines: every loaded BPF program's machine code and the source line
 * each stretch of it came from, as the kernel keeps them (the JIT image
 * and its jited line info), for bench/profile/attribute.py:
 *
 *   prog ID NAME KSYM HEXCODE
 *   line ID ADDR FILE:LINE SOURCE-TEXT
 *
 * A program's code starts at KSYM; a line record holds from ADDR up to
 * the next one's.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct jit {
	__u32 len, nlines, nksyms;
	unsigned char *code;
	__u64 *addrs;
	struct bpf_line_info *lines;
	__u64 *ksyms;
};

static void jit__free(struct jit *j)
{
	free(j->code);
	free(j->addrs);
	free(j->lines);
	free(j->ksyms);
}

/* The second query, with room for what the first one counted. */
static int jit__get(int fd, struct bpf_prog_info *info, struct jit *j)
{
	__u32 len = sizeof(*info);

	j->len = info->jited_prog_len;
	j->nlines = info->nr_jited_line_info < info->nr_line_info
			    ? info->nr_jited_line_info
			    : info->nr_line_info;
	j->nksyms = info->nr_jited_ksyms;
	j->code = malloc(j->len);
	j->addrs = calloc(j->nlines + 1, sizeof(*j->addrs));
	j->lines = calloc(j->nlines + 1, sizeof(*j->lines));
	j->ksyms = calloc(j->nksyms + 1, sizeof(*j->ksyms));
	if (!j->code || !j->addrs || !j->lines || !j->ksyms)
		return -1;
	memset(info, 0, sizeof(*info));
	info->jited_prog_len = j->len;
	info->jited_prog_insns = (__u64)(unsigned long)j->code;
	info->nr_jited_line_info = j->nlines;
	info->jited_line_info = (__u64)(unsigned long)j->addrs;
	info->jited_line_info_rec_size = sizeof(__u64);
	info->nr_line_info = j->nlines;
	info->line_info = (__u64)(unsigned long)j->lines;
	info->line_info_rec_size = sizeof(struct bpf_line_info);
	info->nr_jited_ksyms = j->nksyms;
	info->jited_ksyms = (__u64)(unsigned long)j->ksyms;
	return bpf_obj_get_info_by_fd(fd, info, &len);
}

static void jit__print(__u32 id, const char *name, __u32 btf_id,
		       const struct jit *j)
{
	struct btf *btf = btf_id ? btf__load_from_kernel_by_id(btf_id) : NULL;

	printf("prog %u %s %llx ", id, name,
	       (unsigned long long)(j->nksyms ? j->ksyms[0] : 0));
	for (__u32 i = 0; i < j->len; i++)
		printf("%02x", j->code[i]);
	printf("\n");
	for (__u32 i = 0; btf && i < j->nlines; i++) {
		const char *file =
			btf__name_by_offset(btf, j->lines[i].file_name_off);
		const char *text =
			btf__name_by_offset(btf, j->lines[i].line_off);

		printf("line %u %llx %s:%u %s\n", id,
		       (unsigned long long)j->addrs[i], file ? file : "?",
		       BPF_LINE_INFO_LINE_NUM(j->lines[i].line_col),
		       text ? text : "");
	}
	btf__free(btf);
}

int main(void)
{
	__u32 id = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		char name[BPF_OBJ_NAME_LEN];
		struct jit j = {};
		__u32 btf_id;
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    info.jited_prog_len) {
			memcpy(name, info.name, sizeof(name));
			name[sizeof(name) - 1] = 0;
			btf_id = info.btf_id;
			if (!jit__get(fd, &info, &j))
				jit__print(id, name[0] ? name : "-", btf_id,
					   &j);
			jit__free(&j);
		}
		close(fd);
	}
	return 0;
}
