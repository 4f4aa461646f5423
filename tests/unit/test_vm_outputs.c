// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vm's ARGS with files to write on the host (src/vm/outputs.c): every
 * form of every file option becomes /out/N in the guest's argv, keeping
 * the host file's extension, in the order given; "-" (stdout) and the
 * workload's own arguments after "--" stay as they are; an unwritable
 * directory is refused before anything boots.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "vm/vm_internal.h"

static char dir[256];

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/test_vm_outputs.XXXXXX",
		 tmp ? tmp : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	return rmdir(dir);
}

static char *in_dir(const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

static void test_every_form(void **state)
{
	char *j = in_dir("r.json"), *o = in_dir("r.csv"), *k = in_dir("v.ktap");
	char *ev = in_dir("ev.jsonl"), *ev2 = in_dir("ev2.jsonl");
	char *jshort, *evlong;
	struct vm_outputs outs;
	char **g = NULL;

	assert_true(asprintf(&jshort, "-j%s", j) > 0);
	assert_true(asprintf(&evlong, "--events-json=%s", ev2) > 0);
	char *argv[] = {
		"trace", "--events-json", ev,	"-o", o,    jshort, "--ktap",
		k,	 evlong,	  "-j", "-",  "--", "-j",   "x.json"
	};
	int argc = (int)(sizeof(argv) / sizeof(*argv));

	(void)state;
	assert_int_equal(vm_outputs__rewrite(&outs, argc, argv, &g), 0);
	assert_int_equal(outs.n, 5);
	assert_string_equal(g[0], "trace");
	assert_string_equal(g[1], "--events-json");
	assert_string_equal(g[2], "/out/0.jsonl");
	assert_string_equal(g[3], "-o");
	assert_string_equal(g[4], "/out/1.csv");
	assert_string_equal(g[5], "-j/out/2.json");
	assert_string_equal(g[6], "--ktap");
	assert_string_equal(g[7], "/out/3.ktap");
	assert_string_equal(g[8], "--events-json=/out/4.jsonl");
	/* stdout, and the workload's own arguments, stay. */
	assert_string_equal(g[9], "-j");
	assert_string_equal(g[10], "-");
	assert_string_equal(g[11], "--");
	assert_string_equal(g[12], "-j");
	assert_string_equal(g[13], "x.json");
	assert_null(g[14]);
	assert_string_equal(outs.v[0].host_path, ev);
	assert_string_equal(outs.v[4].host_path, ev2);
	vm_outputs__free_argv(argc, g);
	vm_outputs__free(&outs);
	free(j), free(o), free(k), free(ev), free(ev2), free(jshort);
	free(evlong);
}

static void test_unwritable(void **state)
{
	char *argv[] = { "run", "shmem-read", "--events-json",
			 "/nonexistent-dir/ev.jsonl" };
	struct vm_outputs outs;
	char **g = NULL;

	(void)state;
	assert_int_equal(vm_outputs__rewrite(&outs, 4, argv, &g), -ENOENT);
	assert_null(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_form),
		cmocka_unit_test(test_unwritable),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
