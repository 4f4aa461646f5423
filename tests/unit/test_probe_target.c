// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The per-target tables of src/probe/target.c against the BPF objects
 * they describe: every program a table names is in the opened skeleton,
 * every program of the skeleton is in some set, and the lookups probe.c
 * makes find what the plan asks for. Opening a skeleton needs no root.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <stdlib.h>
#include "probe/probe.h"
#include "probe/target.h"

static void test_tables_match_objects(void **state)
{
	for (int t = 0; t < FS_TGT_NR; t++) {
		const struct probe_target *tg = probe_target__get(t);
		char why[256] = "";
		int err = probe_target__check(tg, why, sizeof(why));

		if (err)
			print_message("%s: %s\n", tg->object, why);
		assert_int_equal(err, 0);
	}
}

/* A copy of a table with one name changed, or one program left out,
 * fails the check and names the program. */
static void test_check_catches_mismatch(void **state)
{
	struct probe_target tg = *probe_target__get(FS_TGT_SHMEM);
	struct probe_set *ps = (struct probe_set *)probe_target__set(
		&tg, PLAN_H_SH_READ, MECH_KPROBE);
	char why[256] = "";

	assert_non_null(ps);
	ps->prog[1].name = "kretprobe_reed";
	assert_int_equal(probe_target__check(&tg, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "program 'kretprobe_reed' (kprobe set) is "
				 "not in shmem.bpf.o");

	tg = *probe_target__get(FS_TGT_DEDUPE);
	tg.sub[MECH_KPROBE].prog[0].name = NULL;
	assert_int_equal(probe_target__check(&tg, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "program 'kretprobe_folio' of dedupe.bpf.o "
				 "is in no set of the dedupe table");
}

/* Every step the planner can build has a program set, with the sub-probe
 * where the step reads arguments at function level. */
static void test_sets_for_plan_handlers(void **state)
{
	static const struct {
		enum fs_target t;
		int handler;
		enum plan_mech mech;
		const char *entry, *exit;
		bool has_sub;
		/* --lean's exits alone: where a fexit sees the arguments
		 * the entry would have read (not the compare's, whose
		 * fexit_any counts what an entry kept). */
		bool exit_only;
	} want[] = {
		{ FS_TGT_DEDUPE, PLAN_H_DD_CMP, MECH_FENTRY, "fentry_cmp",
		  "fexit_any", true, false },
		{ FS_TGT_DEDUPE, PLAN_H_DD_CMP, MECH_KPROBE, "kprobe_cmp",
		  "kretprobe_any", true, false },
		{ FS_TGT_DEDUPE, PLAN_H_DD_PREP, MECH_FENTRY, "fentry_prep",
		  "fexit_prep", true, true },
		{ FS_TGT_DEDUPE, PLAN_H_DD_PREP, MECH_KPROBE, "kprobe_prep",
		  "kretprobe_any", true, false },
		{ FS_TGT_DEDUPE, PLAN_H_DD_ONE, MECH_FENTRY, "fentry_one",
		  "fexit_one", true, true },
		{ FS_TGT_DEDUPE, PLAN_H_DD_ONE, MECH_KPROBE, "kprobe_one",
		  "kretprobe_any", true, false },
		{ FS_TGT_DEDUPE, PLAN_H_DD_CLONE, MECH_KPROBE, "kprobe_clone",
		  "kretprobe_any", false, false },
		{ FS_TGT_SHMEM, PLAN_H_SH_READ, MECH_FENTRY, "fentry_read",
		  "fexit_read", true, true },
		{ FS_TGT_SHMEM, PLAN_H_SH_READ, MECH_KPROBE, "kprobe_read",
		  "kretprobe_read", true, false },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct probe_set *ps =
			probe_target__set(probe_target__get(want[i].t),
					  want[i].handler, want[i].mech);

		assert_non_null(ps);
		assert_string_equal(ps->prog[0].name, want[i].entry);
		assert_false(ps->prog[0].ret);
		assert_string_equal(ps->prog[1].name, want[i].exit);
		assert_true(ps->prog[1].ret);
		assert_int_equal(ps->has_sub, want[i].has_sub);
		assert_int_equal(ps->exit_only, want[i].exit_only);
	}
	assert_non_null(probe_target__set(probe_target__get(FS_TGT_DEDUPE),
					  PLAN_H_DD_SYSCALL, MECH_SYSCALL));
	assert_non_null(probe_target__set(probe_target__get(FS_TGT_SHMEM),
					  PLAN_H_SH_SYSCALL, MECH_SYSCALL));
	/* The raw pair goes through the one both targets share, each in
	 * its own slots. */
	assert_true(probe_target__set(probe_target__get(FS_TGT_DEDUPE),
				      PLAN_H_DD_SYSCALL, MECH_SYSCALL)
			    ->raw_shared);
	assert_int_equal(probe_target__set(probe_target__get(FS_TGT_DEDUPE),
					   PLAN_H_DD_SYSCALL, MECH_SYSCALL)
				 ->raw_slot,
			 FS_SYSRAW_DD_ENTER);
	assert_int_equal(probe_target__set(probe_target__get(FS_TGT_SHMEM),
					   PLAN_H_SH_SYSCALL, MECH_SYSCALL)
				 ->raw_slot,
			 FS_SYSRAW_SH_ENTER);
	/* Per-syscall tracepoints: every program on a tracepoint of its
	 * own, the five reads' (entry and exit) and ioctl's. */
	{
		const struct probe_set *ps =
			probe_target__set(probe_target__get(FS_TGT_SHMEM),
					  PLAN_H_SH_SYSTP, MECH_SYSCALL);
		int n = 0;

		assert_non_null(ps);
		assert_false(ps->raw_shared);
		for (; n < PROBE_SET_MAX && ps->prog[n].name; n++) {
			assert_non_null(ps->prog[n].tp);
			assert_int_equal(
				ps->prog[n].ret,
				!strncmp(ps->prog[n].tp, "sys_exit_", 9));
		}
		assert_int_equal(n, 10);
		ps = probe_target__set(probe_target__get(FS_TGT_DEDUPE),
				       PLAN_H_DD_SYSTP, MECH_SYSCALL);
		assert_non_null(ps);
		assert_string_equal(ps->prog[0].tp, "sys_enter_ioctl");
		assert_string_equal(ps->prog[1].tp, "sys_exit_ioctl");
	}
	/* Only the compare may take an inode as its first argument. */
	assert_true(probe_target__set(probe_target__get(FS_TGT_DEDUPE),
				      PLAN_H_DD_CMP, MECH_FENTRY)
			    ->src_may_be_inode);
	assert_false(probe_target__set(probe_target__get(FS_TGT_DEDUPE),
				       PLAN_H_DD_PREP, MECH_FENTRY)
			     ->src_may_be_inode);
	/* No fentry set for a renamed clone: the trampoline needs BTF. */
	assert_null(probe_target__set(probe_target__get(FS_TGT_DEDUPE),
				      PLAN_H_DD_CLONE, MECH_FENTRY));
}

/* The bench's FOLIOSCOPE_COST_DROP: parts by name, histograms by the
 * target's own names (the other target's left to it), anything else
 * refused with its name. */
static void test_cost_drop(void **state)
{
	struct probe_cost_drop d;
	char why[160];

	(void)state;
	unsetenv("FOLIOSCOPE_COST_DROP");
	assert_int_equal(probe__cost_drop(FS_TGT_SHMEM, &d, why, sizeof(why)),
			 0);
	assert_int_equal(d.parts | d.hists, 0);
	setenv("FOLIOSCOPE_COST_DROP", "time,hist=copy_bytes,inflight", 1);
	assert_int_equal(probe__cost_drop(FS_TGT_SHMEM, &d, why, sizeof(why)),
			 0);
	assert_int_equal(d.parts, FS_DROP_TIME | FS_DROP_INFLIGHT);
	assert_int_equal(d.hists, 1U << FS_SH_COPY_BYTES);
	/* copy_bytes is not dedupe's: nothing of dedupe's is left out. */
	assert_int_equal(probe__cost_drop(FS_TGT_DEDUPE, &d, why, sizeof(why)),
			 0);
	assert_int_equal(d.hists, 0);
	setenv("FOLIOSCOPE_COST_DROP", "hist=latency_ns", 1);
	assert_int_equal(probe__cost_drop(FS_TGT_DEDUPE, &d, why, sizeof(why)),
			 0);
	assert_int_equal(d.hists, 1U << FS_DD_LATENCY);
	setenv("FOLIOSCOPE_COST_DROP", "all", 1);
	assert_int_equal(probe__cost_drop(FS_TGT_SHMEM, &d, why, sizeof(why)),
			 0);
	assert_int_equal(d.parts, FS_DROP_ALL);
	setenv("FOLIOSCOPE_COST_DROP", "time,nothing", 1);
	assert_int_equal(probe__cost_drop(FS_TGT_SHMEM, &d, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "'nothing'"));
	setenv("FOLIOSCOPE_COST_DROP", "hist=nope", 1);
	assert_int_equal(probe__cost_drop(FS_TGT_SHMEM, &d, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "'nope'"));
	unsetenv("FOLIOSCOPE_COST_DROP");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_match_objects),
		cmocka_unit_test(test_check_catches_mismatch),
		cmocka_unit_test(test_sets_for_plan_handlers),
		cmocka_unit_test(test_cost_drop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
