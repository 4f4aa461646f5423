// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host test: every kprobe-type program of both BPF objects passes the
 * verifier, with CO-RE relocated against the running kernel's BTF.
 * fentry/fexit programs are left out: loading them needs a kernel that
 * allows tracing programs (checked in the VM tests instead).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/libbpf.h>
/* The skeletons name shared.h's types (the fetch plan) without including it. */
#include "shared.h"
#include "dedupe.skel.h"
#include "shmem.skel.h"

/* kprobe and raw tracepoint programs: the ones this host can load. */
static int kprobe_only(struct bpf_object *obj)
{
	struct bpf_program *p;
	int n = 0;

	bpf_object__for_each_program (p, obj) {
		enum bpf_prog_type t = bpf_program__type(p);
		bool kp = t == BPF_PROG_TYPE_KPROBE ||
			  t == BPF_PROG_TYPE_RAW_TRACEPOINT;

		bpf_program__set_autoload(p, kp);
		n += kp;
	}
	return n;
}

static void test_dedupe_loads(void **state)
{
	struct dedupe_bpf *s = dedupe_bpf__open();

	assert_non_null(s);
	s->rodata->filter_tgid = (__u32)getpid();
	s->rodata->filter_proc = 1;
	/* The per-CPU slots, whose programs include the migration one
	 * (task storage is what the skeleton loads untouched). */
	s->rodata->inflight_store = FS_STORE_CPU;
	/* A sub-probe handing out pages: the folio size from a tail too. */
	s->rodata->sub_pages = 1;
	/* kprobe_cmp/prep/one/clone, kretprobe_any, kretprobe_folio,
	 * sys_enter_dd, sys_exit_dd, at the compare's inline sites
	 * kprobe_inline_entry/exit, kretprobe_inline_caller and
	 * kprobe_inline_caller_entry, the store's inflight_migrate, and
	 * the twins reading through bpf_rdonly_cast: kretprobe_any_cast,
	 * kretprobe_folio_cast */
	assert_int_equal(kprobe_only(s->obj), 15);
	assert_int_equal(dedupe_bpf__load(s), 0);
	assert_true(bpf_program__fd(s->progs.kprobe_prep) >= 0);
	assert_true(bpf_program__fd(s->progs.kretprobe_folio) >= 0);
	assert_true(bpf_program__fd(s->progs.sys_exit_dd) >= 0);
	assert_true(bpf_program__fd(s->progs.kprobe_inline_entry) >= 0);
	assert_true(bpf_program__fd(s->progs.kprobe_inline_exit) >= 0);
	assert_true(bpf_program__fd(s->progs.kretprobe_inline_caller) >= 0);
	assert_true(bpf_program__fd(s->progs.kprobe_inline_caller_entry) >= 0);
	assert_true(bpf_program__fd(s->progs.inflight_migrate) >= 0);
	assert_true(bpf_program__fd(s->progs.kretprobe_folio_cast) >= 0);
	assert_true(bpf_program__fd(s->progs.kretprobe_any_cast) >= 0);
	dedupe_bpf__destroy(s);
}

static void test_shmem_loads(void **state)
{
	struct shmem_bpf *s = shmem_bpf__open();

	assert_non_null(s);
	s->rodata->inflight_store = FS_STORE_CPU;
	s->rodata->sub_pages = 1;
	/* kprobe_read, kretprobe_read, kprobe_splice, kretprobe_splice,
	 * kprobe_lookup, kretprobe_lookup, kprobe_batch, kretprobe_batch,
	 * sys_enter_sh, sys_exit_sh, at the lookup's inline sites
	 * kprobe_lookup_inline_entry/exit, the store's inflight_migrate,
	 * and the twins reading through bpf_rdonly_cast: kprobe_read_cast,
	 * kretprobe_read_cast, kprobe_lookup_cast, kretprobe_lookup_cast */
	assert_int_equal(kprobe_only(s->obj), 17);
	assert_int_equal(shmem_bpf__load(s), 0);
	assert_true(bpf_program__fd(s->progs.kretprobe_lookup) >= 0);
	assert_true(bpf_program__fd(s->progs.kprobe_batch) >= 0);
	assert_true(bpf_program__fd(s->progs.kretprobe_batch) >= 0);
	assert_true(bpf_program__fd(s->progs.kprobe_splice) >= 0);
	assert_true(bpf_program__fd(s->progs.kretprobe_splice) >= 0);
	assert_true(bpf_program__fd(s->progs.kprobe_lookup_inline_entry) >= 0);
	assert_true(bpf_program__fd(s->progs.kprobe_lookup_inline_exit) >= 0);
	assert_true(bpf_program__fd(s->progs.sys_enter_sh) >= 0);
	assert_true(bpf_program__fd(s->progs.inflight_migrate) >= 0);
	assert_true(bpf_program__fd(s->progs.kprobe_read_cast) >= 0);
	assert_true(bpf_program__fd(s->progs.kretprobe_read_cast) >= 0);
	assert_true(bpf_program__fd(s->progs.kprobe_lookup_cast) >= 0);
	assert_true(bpf_program__fd(s->progs.kretprobe_lookup_cast) >= 0);
	shmem_bpf__destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dedupe_loads),
		cmocka_unit_test(test_shmem_loads),
	};

	if (geteuid()) {
		print_message("skipped: loading BPF programs needs root\n");
		return 0;
	}
	return cmocka_run_group_tests_name("host-load", tests, NULL, NULL);
}
